"""Conditional bounds of a set from conic data in one solve: the Charnes-Cooper dual of (*).

For a secret ``s`` the conditional support ``sup_{R in C_s} v.R`` is the
linear-fractional program ``sup {v.P_s / P(s) : P in F, P(s) > 0}``. With the
set's conic data (``A x + s = b``, ``s in K``, ``p = E^T x``; (1) of
:mod:`rldp_models.uncertainty.derived_certificate`), Charnes-Cooper's substitution
``z = x / P(s)``, ``t = 1 / P(s)`` makes it the conic program
``sup {v.z_s : b t - A z in K, 1.z_s = 1, t >= 0}``, whose dual is

    (CC)  min kappa   s.t.   A^T y = E e_s(v - kappa 1),   b.y <= 0,   y in K*.

Weak duality is (*) of :mod:`rldp_models.uncertainty.base`: any ``(kappa, y)``
feasible in (CC) has ``delta*(e_s(v - kappa) | F) <= b.y <= 0``. So one solve
(the primal, its cone duals being ``y``: :mod:`.primal_duals`) gives a candidate
``kappa`` and the multipliers ``y`` that prove it -- no bisection.

Proof. At the optimum ``b.y = 0`` up to the solver's tolerance, so ``kappa`` is
raised by ``delta`` and ``y`` by ``delta d_s``, where ``d_s`` are the multipliers of
``sup_F -P(s)`` (``A^T d = -E e_s(1)``, ``b.d = -min_F P(s)``; solved once per
secret): then ``b.y`` drops by ``delta min_F P(s)``, room for the solver's
residuals. The raise is sized by the excess of the unraised proof:
``delta = 1.25 excess / min_F P(s)``, doubled while it fails (:data:`TRIES` proofs at most).
The raised pair is proved by the set's
:class:`~rldp_models.uncertainty.derived_certificate.DualCertifier` (ball
arithmetic, :func:`~rldp_models.uncertainty.base.certify_conditional`), rounding
of ``v - kappa`` included. If none proves, or the solve fails, the bound is the
simplex bound ``max v`` (always valid: ``C_s``
holds distributions) -- "not proved" at the solver's bound, which the finish
path repairs, never a false "violated".

Scale. (CC) is solved at ``unit = (v - min v) / (max v - min v)``, whose values lie in
``[0, 1]`` whatever the protocol's column, and mapped back (``kappa = min v + spread
kappa_unit``, ``y = spread y_unit``: (CC) is linear in ``(v, kappa, y)``). On sets with
cells of very different mass (V3 on Adult race x marital-status, cells 3e-5 to 0.4)
(CC)'s duals can still miss by 1e-7 of ``P(s)``, and the raise that repairs it is
2% of the bound, which the mixing repair then pays 200 times over. So when (CC)'s own
``y`` does not prove, the support problem ``g(k) = delta*(e_s(unit - k) | F)`` is solved at
(CC)'s ``k`` (its duals are accurate to the solver's tolerance where (CC)'s homogenised
ones are not), with Dinkelbach's Newton step ``k += g(k) / P*(s)`` while it does not prove
(:data:`SUPPORT_SOLVES` at most), and the closest is raised along ``d_s``. On that table
V3's repair cost fell from +212% of the objective to about +1%.

Mixing. The proof is convex in ``(kappa, y)``: the certified bound of a mixture is at most
the mixture of the bounds up to the rounding the certificate covers anyway. So once a pair
proves with excess ``c <= 0``, every pair tried below it that failed with excess ``e > 0``
gives a lower candidate ``l (kappa, y) + (1 - l) (kappa_e, y_e)`` at the share ``l``
(:data:`MIX_SAFETY` times ``e / (e - c)``) where the interpolated excess is 0; each is proved
afresh, ``l`` doubled while it fails (:data:`MIX_TRIES`). The Newton steps stop at the
first proof, which their noise (about 1e-9 per support solve on Adult's smallest secrets)
can put 1e-7 above the failed pair next to the supremum; on V3 over Adult race x
marital-status the worst bound's loss fell from 7e-6 to 5e-8 of its value.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import mpmath
import numpy as np

from rldp_models.uncertainty.base import UncertaintySet, certify_conditional, embed
from rldp_models.uncertainty.primal_duals import PrimalDuals

TRIES = 4
"""Proofs tried per term: at the solve's ``kappa``, then raised (below)."""

GROWTH = 1.25
"""A failed proof's excess ``c`` sets the next raise ``delta = GROWTH c / min_F P(s)`` (the room
``d_s`` gives), at least twice the last and :data:`FIRST_NUDGE` ``max |v|``. The excess falls by
``delta min_F P(s)`` along ``d_s`` (V3 at 5x11: 4.6e-10 became -4.6e-10 at twice the raise
needed), so a quarter more than the raise needed proves, and the bound is raised less."""

FIRST_NUDGE = 1e-10

SUPPORT_SOLVES = 3
"""Support solves after (CC) when its own multipliers do not prove (Newton steps, below)."""

MIX_SAFETY = 1.5
"""The first share of the proved pair in a mixture with a lower failed one: this times the
share at which the mixture's excess, interpolated linearly, is 0 (Mixing, module docstring)."""

MIX_TRIES = 3
"""Mixtures certified per failed pair, the proved pair's share doubled after each failure."""


@dataclass(frozen=True)
class ConditionalCertificate:
    """A proved ``kappa >= sup_{R in C_s} v.R`` and the ``y`` proving it (None: ``kappa = max v``).

    ``check`` is the certified upper bound on ``delta*(e_s(v - kappa) | F)``, rounding
    included (``<= 0``).
    """

    kappa: float
    multipliers: dict[str, Any] | None
    check: mpmath.mpf


class ConditionalDual:
    """(CC) of the module docstring for one set: one primal solve per term, then the proof.

    Parameters
    ----------
    uncertainty
        The set: its ``phat`` (shape ``(|S|, |U|)``) and ``certified_support_bound``
        at derived multipliers ``{"y": ...}``.
    primal
        Its data's parametrised primals.
    """

    def __init__(self, uncertainty: UncertaintySet, primal: PrimalDuals) -> None:
        self.uncertainty, self.primal = uncertainty, primal
        self.shape: tuple[int, int] = uncertainty.phat.shape
        self._floors: dict[int, np.ndarray | None] = {}

    def floor(self, s: int) -> np.ndarray | None:
        """``d_s`` of the module docstring (solved once per secret; None if the solve fails)."""
        if s not in self._floors:
            found = self.primal.support(-embed(np.ones(self.shape[1]), s, self.shape))
            self._floors[s] = None if found is None else found[2]
        return self._floors[s]

    def bound(self, v: np.ndarray, s: int,
              start: tuple[float, np.ndarray] | None = None) -> ConditionalCertificate:
        """A proved upper bound on ``sup_{R in C_s} v.R`` (module docstring).

        ``start`` is a ``(kappa, y)`` the caller already has for this term (the program's
        own: its solve states every bound with such a ``y``, the derived dual of
        :mod:`rldp_models.uncertainty.derived`); proved as it is first, so a term the solver
        proved needs no solve here. Not raised: a solver at default tolerances leaves
        ``b.y`` about ``1e-9`` above 0, and the raise that repairs it (by ``b.y / min_F P(s)``)
        costs more than (CC)'s own (measured on V6 at 5x11: 1e-7 against 1e-8). It is not
        trusted: only what the certificate proves counts; if it proves nothing, (CC) is
        solved.
        """
        v = np.asarray(v, dtype=float).ravel()
        tried = _Attempts()
        proved = self._first_proof(v, s, start, tried)
        if proved is None:
            return ConditionalCertificate(float(v.max()), None, mpmath.mpf(0))
        return self._tightest(v, s, proved, tried)

    def _first_proof(self, v: np.ndarray, s: int, start: tuple[float, np.ndarray] | None,
                     tried: "_Attempts") -> ConditionalCertificate | None:
        """The first pair that proves: ``start``, then (CC)'s, then the support solves'
        (:meth:`_newton`); every pair tried is kept in ``tried``. None: none proves."""
        if start is not None:
            kappa, y = start
            proved = self._raised(v, s, float(kappa), np.asarray(y, dtype=float).ravel(),
                                  tried, 1)
            if proved is not None:
                return proved
        low, spread = float(v.min()), float(v.max() - v.min())
        if spread <= 0.0:
            return None
        unit = (v - low) / spread
        mass = float(self.uncertainty.phat[s].sum())
        solved = self.primal.conditional(embed(unit, s, self.shape),
                                         embed(np.ones(v.size), s, self.shape),
                                         mass if mass > 0 else 1.0)
        if solved is None:
            return None
        kappa = low + spread * solved[0]
        return self._raised(v, s, kappa, spread * solved[1], tried, 1) or \
            self._newton(v, s, unit, (low, spread), solved[0], tried)

    def _tightest(self, v: np.ndarray, s: int, proved: ConditionalCertificate,
                  tried: "_Attempts") -> ConditionalCertificate:
        """``proved`` moved toward each lower pair that failed, lowest first (module docstring,
        Mixing); the lowest proved ``kappa``."""
        best = proved
        for kappa, y, excess in tried.below(proved.kappa):
            if kappa >= best.kappa or best.multipliers is None:
                continue
            share = MIX_SAFETY * excess / (excess - float(best.check))
            for _ in range(MIX_TRIES):
                if share >= 1.0:
                    break
                mixed_kappa = share * best.kappa + (1.0 - share) * kappa
                mixed_y = share * best.multipliers["y"] + (1.0 - share) * y
                check = certify_conditional(self.uncertainty, v, s, mixed_kappa,
                                            {"y": mixed_y})
                if check <= 0:
                    best = ConditionalCertificate(mixed_kappa, {"y": mixed_y}, check)
                    break
                share = 2.0 * share
        return best

    def _newton(self, v: np.ndarray, s: int, unit: np.ndarray, scale: tuple[float, float],
                kappa: float, tried: "_Attempts") -> ConditionalCertificate | None:
        """The proof from support solves at ``unit = (v - low) / spread`` (module docstring):
        Dinkelbach's Newton steps ``k += g(k) / P*(s)`` on ``g(k) = delta*(e_s(unit - k) | F)``
        from (CC)'s ``kappa`` (``unit``'s scale), :data:`SUPPORT_SOLVES` at most; the pair
        whose proof fell least short is raised along ``d_s``."""
        low, spread = scale
        for _ in range(SUPPORT_SOLVES):
            step = self.primal.support(embed(unit - kappa, s, self.shape))
            if step is None:
                break
            value, maximiser, y = step
            proved = self._proof(v, s, low + spread * kappa, spread * y, tried)
            if proved is not None:
                return proved
            mass = float(np.asarray(maximiser).reshape(self.shape)[s].sum())
            if value <= 0.0 or mass <= 0.0:
                break
            kappa += value / mass
        closest = tried.closest()
        return None if closest is None else self._raised(v, s, *closest, tried)

    def _raised(self, v: np.ndarray, s: int, kappa: float, y: np.ndarray,
                tried: "_Attempts", tries: int = TRIES) -> ConditionalCertificate | None:
        """``(kappa, y)`` proved, raised along ``d_s`` as the module docstring says (``tries``
        proofs at most); None if none below ``max v`` proves (``y`` of the wrong size
        included)."""
        top, scale = float(v.max()), max(float(np.abs(v).max()), 1e-300)
        if not np.isfinite(kappa) or y.size != self.primal.description.b_vector.size:
            return None
        floor = self.floor(s)
        room = 0.0 if floor is None else -float(self.primal.description.b_vector @ floor)
        nudge = 0.0
        for _ in range(tries):
            raised = kappa + nudge
            if raised >= top:
                return None
            moved = y if floor is None else y + nudge * floor
            proved = self._proof(v, s, raised, moved, tried)
            if proved is not None:
                return proved
            if room <= 0:
                return None
            nudge = max(2.0 * nudge, GROWTH * tried.last_excess / room, FIRST_NUDGE * scale)
        return None

    def _proof(self, v: np.ndarray, s: int, kappa: float, y: np.ndarray,
               tried: "_Attempts") -> ConditionalCertificate | None:
        """``(kappa, y)`` certified in ball arithmetic; kept in ``tried`` if it fails."""
        check = certify_conditional(self.uncertainty, v, s, kappa, {"y": y})
        if check <= 0:
            return ConditionalCertificate(kappa, {"y": y}, check)
        tried.failed(kappa, y, float(check))
        return None


@dataclass
class _Attempts:
    """The pairs ``(kappa, y)`` whose proof failed, with the excess of each (``> 0``)."""

    pairs: list[tuple[float, np.ndarray, float]] = field(default_factory=list)

    def failed(self, kappa: float, y: np.ndarray, excess: float) -> None:
        self.pairs.append((kappa, y, excess))

    @property
    def last_excess(self) -> float:
        return self.pairs[-1][2]

    def closest(self) -> tuple[float, np.ndarray] | None:
        """The pair whose proof fell least short, if any failed."""
        if not self.pairs:
            return None
        kappa, y, _ = min(self.pairs, key=lambda pair: pair[2])
        return kappa, y

    def below(self, kappa: float) -> list[tuple[float, np.ndarray, float]]:
        """The failed pairs under ``kappa``, lowest first."""
        return sorted((pair for pair in self.pairs if pair[0] < kappa), key=lambda p: p[0])
