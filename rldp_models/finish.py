"""One finish path for every producer: dyadic rows, an exact re-check, a repair by mixing.

DESIGN.md, core idea 4 and "Exact release". Whatever produced a protocol or
mechanism (a conic solver, a cone LP, a closed form in floating point), it is
finished the same way:

1. **Round** every row to dyadic rationals ``k_i / 2^52`` summing to 1 exactly
   (:func:`dyadic_rows`). Such numbers are exact doubles, so the matrix written
   to JSON *is* the rational matrix that was checked.
2. **Re-check** every guarantee exactly on the rounded matrix (the caller's
   ``certify``: rationals, with ``e^eps`` enclosed by interval refinement; at
   ``eps = 0`` equal rows are needed, which rounding keeps because equal rows
   round to equal rows).
3. **Repair** if the solver or the rounding broke a guarantee: mix with a
   strictly feasible ``reference`` (privacy constraints are convex in the
   matrix), ``(1 - w) Q + w R`` rounded again and re-checked, ``w`` doubling
   from a first weight up to 1; if even that fails (``eps = 0``: the uniform
   protocol has no slack), the ``fallback`` (an input-ignoring matrix) is used.
   The reference is the uniform protocol unless the producer has a better one
   (e.g. its own program solved at a slightly smaller eps:
   :mod:`rldp_models.programs.solution`); :func:`mixing_weight` predicts the
   first weight from the two matrices' exact margins.
4. **Record** the weight, the reference and the cost in the producer's value
   (:class:`Repair`, the one repair record of every producer and result file).

If nothing passes, :class:`GuaranteeError` is raised and no result exists. Under a
time limit (:mod:`solvers.deadline`) each exact check first checks the deadline: no
matrix has passed before the one that returns, so :class:`~solvers.deadline.TimeLimitReached`
carries no result from here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

import numpy as np

from rldp_models.exact import exact_stochastic_rows
from solvers import deadline

FIRST_WEIGHT = 2.0**-30
"""First mixing weight when the producer cannot predict one."""

V = TypeVar("V")
Certify = Callable[[np.ndarray, "float | None"], V]
"""``certify(matrix, weight)``: the exact verdict on ``matrix``; ``weight`` is the
mixing weight that made it (0 unmixed, None for the fallback), for producers whose
certificates mix with the matrix (robust multipliers)."""


class GuaranteeError(ArithmeticError):
    """Even the fallback fails its exact check: no result can be returned.

    ``unrepaired`` is the rounded matrix with its (failing) verdict, for
    producers that report the failure instead of a result.
    """

    def __init__(self, message: str, unrepaired: "Finished | None" = None) -> None:
        super().__init__(message)
        self.unrepaired = unrepaired


RepairMethod = Literal["none", "mix", "fallback"]
"""How a matrix was made to pass its exact checks (:attr:`Repair.method`)."""


@dataclass(frozen=True)
class Repair:
    """How the returned matrix came to pass every exact check: the one repair record.

    Every producer (program solutions, cone-LP mechanisms, closed-form and
    PolyOpt protocols) returns this, and every result record stores it as its
    ``repair`` block. With ``Q`` the producer's matrix (rounded to exact rows),
    ``R`` the reference, ``U`` the uniform matrix on the outputs and
    ``a = weight``, ``b = uniform_weight``, the returned matrix is (each mix
    rounded to exact rows again, :func:`dyadic_rows`)

    * ``"none"``: ``Q`` itself (``a = b = 0``);
    * ``"mix"``: ``P = (1 - b) ((1 - a) Q + a R) + b U``. Privacy constraints
      ``g(P) <= 0`` are convex in ``P`` and ``R``, ``U`` are strictly feasible, so
      ``g(P) <= (1 - b) ((1 - a) g(Q) + a g(R)) + b g(U)`` (DESIGN.md, core
      idea 4; ``docs/guarantees.md`` section 3); ``b`` is 0 unless ``R`` is not
      ``U`` and ``a`` alone left a constraint failing where ``R`` had no slack;
    * ``"fallback"``: an input-ignoring matrix (``a = 1``), private at every
      ``eps >= 0``: at ``eps = 0`` mixing cannot help (``g(U) = 0``).

    With reference ``"per secret"`` (:mod:`rldp_models.programs.secret_mix`) ``R`` is ``Q``
    with each secret's rows mixed with reference protocols at weights of their own
    (``secret_weights``), the returned matrix ``(1 - b) R + b U`` and ``weight`` the largest
    weight taken off a secret's rows.

    The guarantee never rests on this record: the returned matrix passed its
    exact check; the record says how it was obtained and what it cost.

    Attributes
    ----------
    method : {"none", "mix", "fallback"}
    weight : float
        ``a``, the weight on ``R`` (0 for ``"none"``, 1 for ``"fallback"``).
    value_before, value_after : float or None
        The producer's value (objective or utility) of the rounded unrepaired
        ``Q`` and of the returned matrix; None when the producer has no value.
    reference : str or None
        For ``"mix"``: which ``R``; ``"uniform"`` (``R = U``), ``"tightened"``
        (the same program solved with every eps multiplied by ``1 - 1e-4``,
        :func:`rldp_models.programs.solution.tightened_program`), ``"margin"`` (with
        its conditional bounds kept inside,
        :func:`rldp_models.programs.solution.reference_programs`), ``"per secret"``
        (see ``secret_weights``) or a producer's
        own name (``"given"`` by default). None otherwise. Records written
        before ``uniform_weight`` existed may say ``"tightened+uniform"``, with
        ``weight`` the total weight ``1 - (1 - a) (1 - b)``.
    uniform_weight : float
        ``b``, the weight of the second mix with ``U`` (0 when there is none).
    secret_weights : tuple of (str, tuple of float)
        For a ``"per secret"`` mix, each reference's name (``"uniform"``, ``"tightened"``,
        ``"margin"``) and its weight per secret (empty otherwise).
    """

    method: RepairMethod
    weight: float
    value_before: float | None = None
    value_after: float | None = None
    reference: str | None = None
    uniform_weight: float = 0.0
    secret_weights: tuple[tuple[str, tuple[float, ...]], ...] = ()

    @property
    def cost(self) -> float:
        """``|value_after - value_before|``: what the repair cost (0 without one)."""
        if self.value_before is None or self.value_after is None:
            return 0.0
        return abs(self.value_after - self.value_before)

    @property
    def relative_cost(self) -> float:
        """:attr:`cost` relative to ``|value_after|`` (0 without one)."""
        if self.value_after is None:
            return 0.0
        return self.cost / max(abs(self.value_after), 1e-300)

    @property
    def label(self) -> str:
        """Short name for reports: ``method``, a mix's with its reference (``"mix-uniform"``)."""
        if self.method == "mix" and self.reference is not None:
            return f"mix-{self.reference}"
        return self.method

    @property
    def total_weight(self) -> float:
        """``1 - (1 - a) (1 - b)``: the weight taken off ``Q`` in all."""
        return 1.0 - (1.0 - self.weight) * (1.0 - self.uniform_weight)


@dataclass(frozen=True)
class Finished(Generic[V]):
    """The finished matrix, the exact verdict on it and the repair record."""

    matrix: np.ndarray
    verdict: V
    repair: Repair

    @property
    def value(self) -> float:
        """The producer's value of the finished matrix (a finish given ``value=``)."""
        if self.repair.value_after is None:
            raise ValueError("this matrix was finished without a value")
        return self.repair.value_after


def dyadic_rows(matrix: np.ndarray) -> np.ndarray:
    """Rows of multiples of ``2^-52`` summing to exactly 1 (see :mod:`rldp_models.exact`)."""
    return exact_stochastic_rows(matrix)


def uniform_reference(matrix: np.ndarray) -> np.ndarray:
    """The uniform protocol on the outputs of ``matrix``: strictly feasible for every
    eps > 0 notion of the toolkit (all its likelihood ratios are 1)."""
    return np.full(matrix.shape, 1.0 / matrix.shape[1])


def mixing_weight(margins: np.ndarray, reference_margins: np.ndarray) -> float:
    """The smallest ``w`` with ``(1 - w) m + w m_R <= 0`` wherever ``m > 0`` and ``m_R < 0``.

    ``margins`` are the exact constraint values (upper bounds) of a failing
    matrix, ``reference_margins`` those of the reference at the same
    constraints. A constraint value convex in the matrix is at most the
    mixture of the two, so this ``w`` restores every violated constraint where
    the reference has slack, up to the slack of the bounds (the mix is
    re-checked exactly all the same). Violated constraints where the reference
    has none are left out (0.0 if that is all of them). NaN entries
    (constraints that do not exist) are ignored.
    """
    own = np.asarray(margins, dtype=float)
    other = np.asarray(reference_margins, dtype=float)
    helped = (own > 0.0) & (other < 0.0)
    if not helped.any():
        return 0.0
    return float(np.max(own[helped] / (own[helped] - other[helped])))


def finish(matrix: np.ndarray, certify: Certify, holds: Callable[[Any], bool], *,
           value: Callable[[np.ndarray], float] | None = None,
           reference: np.ndarray | None = None, reference_name: str | None = None,
           first_weight: float | Callable[[Any], float | None] | None = FIRST_WEIGHT,
           check_unmixed: bool = True,
           fallback: np.ndarray | Callable[[], np.ndarray] | None = None) -> Finished:
    """Round, re-check exactly, repair (see the module docstring).

    Parameters
    ----------
    matrix : ndarray
        The producer's matrix, nearly row-stochastic.
    certify : callable
        ``certify(matrix, weight)``, the exact verdict on a rounded matrix.
    holds : callable
        Whether a verdict says every guarantee holds.
    value : callable, optional
        The producer's value of a matrix, for the repair's cost.
    reference : ndarray, optional
        Strictly feasible matrix to mix with (default: the uniform protocol).
    reference_name : str, optional
        What the record calls ``reference`` (default ``"uniform"`` without a
        reference, ``"given"`` with one).
    first_weight : float or callable or None
        The first mixing weight, or a function of the failed verdict giving it
        (None: mixing cannot help, go to the fallback).
    check_unmixed : bool
        False when the producer already predicts that the rounded matrix fails
        (a check saved); mixing starts at ``first_weight`` at once.
    fallback : ndarray or callable, optional
        Input-ignoring matrix used when mixing fails, or a function making it
        (called only then: the best such matrix can cost more to find than the
        whole finish of a matrix that passes).

    Raises
    ------
    GuaranteeError
        If nothing passes.
    solvers.deadline.TimeLimitReached
        If a time limit passes before an exact check (:func:`solvers.deadline.check`).
    """
    raw = np.clip(np.asarray(matrix, dtype=float), 0.0, None)
    rounded = dyadic_rows(raw)
    before = None if value is None else value(rounded)
    verdict = first = None
    if check_unmixed:
        deadline.check("the exact check of the rounded matrix")
        verdict = first = certify(rounded, 0.0)
        if holds(verdict):
            return Finished(rounded, verdict, Repair("none", 0.0, before, before))
    if reference is None:
        reference, reference_name = uniform_reference(raw), "uniform"
    name = reference_name or "given"
    weight = first_weight(verdict) if callable(first_weight) else first_weight
    while weight is not None:
        deadline.check("the repair (mixing, then the exact check)")
        weight = float(min(1.0, max(weight, 2.0**-52)))
        mixed = dyadic_rows((1.0 - weight) * raw + weight * reference)
        verdict = certify(mixed, weight)
        if holds(verdict):
            after = None if value is None else value(mixed)
            return Finished(mixed, verdict, Repair("mix", weight, before, after, name))
        weight = None if weight >= 1.0 else 2.0 * weight
    if fallback is not None:
        deadline.check("the repair (the fallback's exact check)")
        constant = dyadic_rows(fallback() if callable(fallback) else fallback)
        verdict = certify(constant, None)
        if holds(verdict):
            after = None if value is None else value(constant)
            return Finished(constant, verdict, Repair("fallback", 1.0, before, after))
    raise GuaranteeError("no matrix passed its exact guarantee check, not even after mixing "
                         "with the reference or the fallback",
                         Finished(rounded, first if first is not None else certify(rounded, 0.0),
                                  Repair("none", 0.0, before, before)))
