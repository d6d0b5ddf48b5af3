"""The protocol every uncertainty set follows, and what follows from it generically.

A set ``F`` of joint distributions ``P(s, u)`` (a subset of the simplex over
``X = S x U``) is described to the toolkit by

* ``contains(p)`` — membership;
* ``support(v)`` — the support function ``delta*(v | F) = sup_{P in F} v.P``
  in closed form (or by its dual program);
* ``worst_case(v)`` — a direct maximiser ``(P, v.P)``, computed without the
  dual (a greedy rule, the primal LP or the primal conic program);
* ``membership(p)`` — cvxpy constraints that say ``p in F`` (the primal
  description used by direct solvers);
* ``support_at_most(v, rhs)`` — cvxpy constraints, in the multipliers of the
  dual, that hold iff ``delta*(v[:, k] | F) <= rhs[k]`` for every column ``k``
  (the robust counterpart, Lemma 1 of the robust-optimization paper), with
  the multipliers under stable names;
* ``support_multipliers(v)`` and ``certified_support_bound(v, multipliers)`` —
  dual multipliers near the optimum, and the dual objective at *any*
  multipliers (made feasible first) evaluated in interval arithmetic: an upper
  bound on ``delta*(v | F)`` whatever the multipliers.

Conditionals (robust privacy, eq. 23 / Theorem 3 of the robust-optimization
paper). For a secret ``s`` let ``C_s = {P(. | s) : P in F, P(s) > 0}``. Then
for every ``kappa``

``sup_{R in C_s} v.R <= kappa  iff  delta*(e_s(v - kappa) | F) <= 0``     (*)

where ``e_s(w)`` puts ``w`` on row ``s`` and zeros elsewhere: multiply
``v.P(s, .)/P(s) <= kappa`` by ``P(s) > 0``; distributions with ``P(s) = 0``
give ``0 <= 0``. So the support function of ``C_s`` (a linear-fractional
problem, Charnes-Cooper) is ``min {kappa : delta*(e_s(v - kappa) | F) <= 0}``,
and its epigraph is the set's own epigraph at an affine argument: every set
gets conditional robust counterparts for free.

Pairs. The exact robust privacy constraint is
``sup_{P in F} [P(y|s1) - e^eps P(y|s2)] <= 0``, a supremum of a difference
of two ratios with different denominators over the *pair* projection
``F_{U|s1,s2}``. Cross-multiplying gives an indefinite bilinear form in
``P``, which is not convex in general. For sets other than chi-square (whose
pair projection Theorem 3 describes exactly) the toolkit uses the product
``C_{s1} x C_{s2}``, which contains the pair projection, so

``sup_{C_{s1}} q1.R - e^eps inf_{C_{s2}} q2.R <= 0``                       (**)

implies the exact constraint. (**) is convex in the protocol and exactly the
guarantee the toolkit certifies for these sets; it may cost some utility
compared with the exact (nonconvex) constraint. It is the same relaxation as
in the RLDP paper's PolyOpt (Lemma 13 applied, in the proof of Theorem 11, to
a product ``D = prod_s D_{U|s}`` of per-secret polytopes), with each ``C_s``
used exactly instead of a polytope around it.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Mapping, Protocol, runtime_checkable

import mpmath
import numpy as np

from rldp_models.exact import ExactVector, interval, iv
from rldp_models.exact import high_precision, upper_mpf
from rldp_models.uncertainty.conic_support import ConicSupport

if TYPE_CHECKING:
    import cvxpy as cp

DOUBLE_ROUNDING = 2.0**-52
"""Relative error bound of one double subtraction (twice the unit round-off)."""


class Capability(enum.Enum):
    """What a set (or a program block) can do besides the cvxpy form everything has.

    Declared, never discovered: a set lists them in its class attribute
    ``capabilities``; a block answers :meth:`rldp_models.programs.contract.Block.capabilities`
    for the program's set. Builders and the backend choice ask for these, never
    for a type.

    EXACT_PAIR
        The set's pair projections are known exactly (Theorem 3 of the
        robust-optimization paper: the chi-square set), so robust privacy is
        the exact constraint (eq. 30) rather than the product form (**).
    LINEAR
        The set's robust counterpart ``support_at_most`` is a system of linear
        constraints (LP duality: box, polyhedral and l1 sets); a block with this
        capability adds only linear constraints, so the program has a Pyomo/LP form.
    DIRECT_CONIC
        The block (or, for a set, the library blocks over it) writes its rows
        straight into the canonical conic form (:mod:`rldp_models.programs.conic_form`).
    PARAMETRIC
        The set's counterpart reads its data through the builder's parameters
        (``value``), so a parametric model is refilled, not rebuilt, for new counts.
    CONDITIONAL_DUAL
        The set proves bounds on its conditionals ``sup_{R in C_s} v.R`` itself, by one
        solve of the Charnes-Cooper dual of (*) (``conditional_bound(v, s)``, a set from
        conic data: :mod:`rldp_models.uncertainty.conditional_dual`), not by bisection.
    """

    EXACT_PAIR = "exact-pair"
    LINEAR = "linear"
    DIRECT_CONIC = "direct-conic"
    PARAMETRIC = "parametric"
    CONDITIONAL_DUAL = "conditional-dual"


NO_CAPABILITIES: frozenset[Capability] = frozenset()


@runtime_checkable
class UncertaintySet(Protocol):
    """What the program builder and the certificate checker need from a set (module docstring).

    ``capabilities`` declares what the set can do beyond the cvxpy form (:class:`Capability`).
    """

    capabilities: ClassVar[frozenset[Capability]]

    @property
    def name(self) -> str: ...

    @property
    def phat(self) -> np.ndarray: ...

    @property
    def radius(self) -> float: ...

    @property
    def alpha(self) -> float | None: ...

    def contains(self, p: np.ndarray, tol: float = 0.0) -> bool: ...

    def support(self, v: np.ndarray) -> float: ...

    def worst_case(self, v: np.ndarray) -> tuple[np.ndarray, Any]: ...

    def membership(self, p: cp.Expression) -> list[Any]: ...

    def support_at_most(self, v: cp.Expression, rhs: cp.Expression | np.ndarray,
                        value: Callable[[str], Any] | None = None) -> ConicSupport: ...

    def support_multipliers(self, v: np.ndarray) -> dict[str, Any]: ...

    def certified_support_bound(self, v: ExactVector,
                                multipliers: Mapping[str, Any]) -> mpmath.mpf: ...


class ConditionalDualSet(UncertaintySet, Protocol):
    """A set with the ``CONDITIONAL_DUAL`` capability: it proves its conditional bounds."""

    def conditional_bound(self, v: np.ndarray, s: int,
                          start: tuple[float, np.ndarray] | None = None) -> Any:
        """A proved ``kappa >= sup_{R in C_s} v.R`` (``.kappa``) and its ``.multipliers``
        (None when ``kappa = max v``); ``start`` a ``(kappa, y)`` to try first."""


@dataclass(frozen=True)
class ConditionalBound:
    """A certified upper bound ``kappa`` on ``sup_{R in C_s} v.R`` and the check behind it.

    ``check`` is the certified upper bound on ``delta*(e_s(v - kappa) | F)``,
    rounding of ``v - kappa`` included; it is ``<= 0``, which proves (*).
    """

    kappa: float
    check: mpmath.mpf


def scalar(x: Any) -> float:
    """A multiplier given as a number or a one-element array, as a float."""
    return float(np.ravel(np.asarray(x, dtype=float))[0])


def embed(v: np.ndarray, s: int, shape: tuple[int, int]) -> np.ndarray:
    """``e_s(v)`` for a numeric vector, flattened row-major."""
    full = np.zeros(shape)
    full[s] = v
    return full.ravel()


def conditional_support(uncertainty: UncertaintySet, v: np.ndarray, s: int,
                        near: float | None = None) -> float:
    """``sup_{R in C_s} v.R`` by bisection on ``kappa`` in (*), using the set's support function.

    ``kappa -> delta*(e_s(v - kappa))`` is non-increasing, and the answer lies
    in ``[min v, max v]``. A guess ``near`` (e.g. a solver's value) narrows the
    first bracket to ``near +- 1e-6 max|v|`` when it holds the answer.
    """
    v = np.asarray(v, dtype=float)
    shape = uncertainty.phat.shape

    def feasible(kappa: float) -> bool:
        return uncertainty.support(embed(v - kappa, s, shape)) <= 0.0

    lo, hi = float(v.min()), float(v.max())
    scale = max(hi - lo, float(np.abs(v).max()), 1e-300)
    if near is not None and lo < near < hi:
        below, above = max(near - 1e-6 * scale, lo), min(near + 1e-6 * scale, hi)
        if feasible(above):
            hi = above
            if not feasible(below):
                lo = below
    while hi - lo > 1e-13 * scale:
        mid = 0.5 * (lo + hi)
        if not lo < mid < hi:
            break
        if feasible(mid):
            hi = mid
        else:
            lo = mid
    return hi


def stated_support(uncertainty: UncertaintySet, v: np.ndarray) -> float:
    """``delta*(v | F)`` as a record states a worst case: the set's ``proved_support`` (an
    upper bound, for sets answered by a solve) where it has one, else its ``support``
    (closed forms)."""
    proved = getattr(uncertainty, "proved_support", None)
    return float(proved(v)) if callable(proved) else float(uncertainty.support(v))


def certify_conditional(uncertainty: UncertaintySet, v: np.ndarray, s: int,
                        kappa: float, multipliers: dict[str, Any] | None = None) -> mpmath.mpf:
    """Certified upper bound on ``delta*(e_s(v - kappa) | F)`` (``<= 0`` proves ``kappa``).

    ``v - kappa`` is rounded once per entry; ``delta*`` is 1-Lipschitz in the
    max norm on subsets of the simplex, so adding ``max |w| 2^-52`` covers it.
    Without ``multipliers`` the set's own (:meth:`support_multipliers`) are used.
    """
    w = embed(np.asarray(v, dtype=float) - kappa, s, uncertainty.phat.shape)
    if multipliers is None:
        multipliers = uncertainty.support_multipliers(w)
    bound = uncertainty.certified_support_bound(w, multipliers)

    with high_precision():
        rounding = interval(float(np.abs(w).max())) * interval(DOUBLE_ROUNDING)
        return upper_mpf(iv.mpf(bound) + rounding)


def conditional_upper_bound(uncertainty: UncertaintySet, v: np.ndarray, s: int,
                            near: float | None = None) -> ConditionalBound:
    """A certified upper bound on ``sup_{R in C_s} v.R``: the bisection's answer, nudged up.

    Falls back to ``max v`` (the simplex bound, always valid) if no nudge certifies.
    ``near`` is passed to :func:`conditional_support`.
    """
    v = np.asarray(v, dtype=float)
    kappa = conditional_support(uncertainty, v, s, near)
    scale = max(float(np.abs(v).max()), 1e-300)
    for step in (0.0, 1e-12, 1e-10, 1e-8, 1e-6):
        candidate = min(kappa + step * scale, float(v.max()))
        check = certify_conditional(uncertainty, v, s, candidate)
        if check <= 0:
            return ConditionalBound(candidate, check)
    return ConditionalBound(float(v.max()), mpmath.mpf(0))
