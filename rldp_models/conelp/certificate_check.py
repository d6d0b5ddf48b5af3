"""An independent check of a staircase LP's dual certificate, for any ``k``.

The certificate of :func:`~rldp_models.conelp.staircase.staircase_mechanism`
is ``lam`` with ``max_violation = delta``: it claims that ``lam' = lam +
max(delta, 0) 1`` satisfies ``mu(S_A) <= lam'.S_A`` for every staircase
pattern ``S_A``. This module re-decides that claim per unit mass,

    ``max_A (mu(S_A) - lam'.S_A) / (1.S_A) <= tolerance``,

by an algorithm unrelated to the pricing oracle's branch-and-bound
(:mod:`rldp_models.conelp.staircase_pricing`):

* ``"brute-force"`` (``k <= BRUTE_FORCE_LIMIT``): every pattern written out,
  ``mu`` evaluated by the utility's own ``columns``;
* ``"milp"`` (mutual information, any ``k``): an outer approximation in
  HiGHS. With ``t = p.z`` and ``g`` the concave pattern utility (Sec. 4 of
  ``extremal-mechanisms-ldp.txt``), the MILP ``max w - L' - tol k - (r-1)(lam'
  + tol).z`` over binary ``z`` and ``w <= g(t_j) + g'(t_j)(p.z - t_j)`` (tangents,
  so ``w >= g(p.z)`` is allowed: the optimum is an *upper* bound on
  ``max N' - tol D``) is solved repeatedly, adding the tangent at each
  solution's ``t`` (Kelley's cutting planes), until its proven dual bound is
  ``<= 0`` (accept) or the true value at its solution is ``> 0`` (reject).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Literal

import highspy
import numpy as np
import scipy.sparse as sp

from rldp_models.conelp.engine import ColumnUtility, ConeLPSolution
from rldp_models.conelp.rays import StaircaseRays
from rldp_models.conelp.staircase_pricing import mutual_information_pattern
from rldp_models.errors import InputError
from rldp_models.utility import MutualInformation
from solvers.backends.highs import silence_highs_banner

BRUTE_FORCE_LIMIT = 16
"""Largest ``k`` checked by writing out all ``2^k - 2`` patterns."""

CHECK_TOLERANCE = 1e-9
"""Accepted dual infeasibility per unit mass."""

INITIAL_TANGENTS = 65
"""Tangent points of ``g`` on a uniform grid of ``[0, 1]`` before the first MILP."""

MAX_CUT_ROUNDS = 400
"""MILPs at most; the check is inconclusive (rejects) past it."""

TIME_LIMIT = 600.0
"""Seconds for all MILPs together; the check is inconclusive (rejects) past it. One
Dirichlet prior at k = 24, eps = 2 kept HiGHS on its first MILP for over 10 minutes."""

GAP_SHARE = 0.5
"""HiGHS may stop with its dual bound within ``GAP_SHARE * tolerance * k`` of its best
pattern: enough to prove ``<= 0`` when every pattern is ``tolerance`` inside."""

_MILP_OPTIONS = {"mip_rel_gap": 0.0, "mip_feasibility_tolerance": 1e-10,
                 "primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}

CheckMethod = Literal["auto", "brute-force", "milp"]


@dataclass(frozen=True)
class DualCheck:
    """Verdict of :func:`check_staircase_dual`.

    Attributes
    ----------
    accepted : bool
        ``lam'`` is dual feasible to ``tolerance`` per unit mass over every pattern.
    bound : float
        Brute force: the exact ``max (mu - lam'.S) / (1.S) - tolerance``. MILP: an upper
        bound on ``max (mu - lam'.S - tolerance 1.S)`` (``<= 0`` when accepted),
        or, on rejection, the true value at a violating pattern.
    method : str
        ``"brute-force"`` or ``"milp"``.
    rounds : int
        MILPs solved (0 for brute force).
    decided : bool
        False when the MILP stopped (time or round limit) neither proving the bound
        nor finding a violating pattern: not accepted, yet nothing shown wrong.
    """

    accepted: bool
    bound: float
    method: str
    rounds: int
    decided: bool = True


def check_certificate(solution: ConeLPSolution, utility: ColumnUtility, ratio: float, *,
                      tolerance: float = CHECK_TOLERANCE,
                      method: CheckMethod = "auto") -> DualCheck:
    """Check ``solution.certificate`` of a staircase LP (``lam + max(delta, 0) 1``)."""
    certificate = solution.certificate
    dual = certificate.dual + max(certificate.max_violation, 0.0)
    return check_staircase_dual(dual, utility, ratio, tolerance=tolerance, method=method,
                                tangents=_pattern_masses(solution.vectors, utility))


def _pattern_masses(vectors: np.ndarray, utility: ColumnUtility) -> np.ndarray:
    """``P(A)`` of the patterns in use (mutual information): tangent points worth starting with."""
    prior = getattr(utility, "prior", None)
    if prior is None or vectors.size == 0:
        return np.zeros(0)
    return prior @ (vectors > vectors.min(axis=0))


def check_staircase_dual(dual: np.ndarray, utility: ColumnUtility, ratio: float, *,
                         tolerance: float = CHECK_TOLERANCE, method: CheckMethod = "auto",
                         tangents: np.ndarray | None = None) -> DualCheck:
    """Decide ``max_A (mu(S_A) - dual.S_A) / (1.S_A) <= tolerance`` (module docstring).

    ``tangents``: extra points ``t`` in ``[0, 1]`` for the MILP's first cuts
    (any tangent of ``g`` is valid; they only save rounds). The MILP check
    stops after :data:`TIME_LIMIT` seconds (or :data:`MAX_CUT_ROUNDS` rounds),
    inconclusive: not accepted and not ``decided``.

    Raises
    ------
    InputError
        On a method that does not apply (``k`` too large for brute force, or
        MILP for a utility other than mutual information).
    """
    dual = np.asarray(dual, dtype=float)
    k = dual.size
    if method == "auto":
        method = "brute-force" if k <= BRUTE_FORCE_LIMIT else "milp"
    if method == "brute-force":
        if k > BRUTE_FORCE_LIMIT:
            raise InputError(f"brute force checks k <= {BRUTE_FORCE_LIMIT}, got {k}")
        return _brute_force(dual, utility, ratio, tolerance)
    if method != "milp" or type(utility) is not MutualInformation:
        raise InputError("the MILP check is for mutual information (method 'milp')")
    extra = np.zeros(0) if tangents is None else np.asarray(tangents, dtype=float)
    return _kelley(dual, utility.prior, ratio, tolerance, extra)


def _brute_force(dual: np.ndarray, utility: ColumnUtility, ratio: float,
                 tolerance: float) -> DualCheck:
    rays = StaircaseRays(dual.size, ratio)
    patterns = rays.columns(np.arange(rays.count))
    reduced = (utility.columns(patterns) - patterns.T @ dual) / patterns.sum(axis=0)
    worst = float(reduced.max()) - tolerance
    return DualCheck(worst <= 0.0, worst, "brute-force", 0)


def _kelley(dual: np.ndarray, prior: np.ndarray, ratio: float, tolerance: float,
            tangents: np.ndarray) -> DualCheck:
    """Cutting planes on the tangents of ``g`` until the MILP proves ``<= 0`` or finds ``> 0``."""

    k, r = dual.size, ratio
    highs = _milp(prior, dual, ratio, tolerance)
    points = [*np.linspace(0.0, 1.0, INITIAL_TANGENTS), *np.clip(tangents, 0.0, 1.0)]
    constant = -float(dual.sum()) - tolerance * k
    deadline = time.monotonic() + TIME_LIMIT
    for rounds in range(1, MAX_CUT_ROUNDS + 1):
        for t in points:
            _add_tangent(highs, prior, r, t)
        highs.setOptionValue("time_limit", max(deadline - time.monotonic(), 1.0))
        highs.run()
        bound = float(highs.getInfo().mip_dual_bound)
        if bound <= 0.0:
            return DualCheck(True, bound, "milp", rounds)
        if highs.getModelStatus() == highspy.HighsModelStatus.kTimeLimit:
            return DualCheck(False, bound, "milp", rounds, decided=False)
        z = np.round(np.asarray(highs.getSolution().col_value)[:k])
        t_star = float(prior @ z)
        true = (float(mutual_information_pattern(t_star, r)) + constant
                - (r - 1.0) * float((dual + tolerance) @ z))
        if true > 0.0 and 0 < z.sum() < k:
            return DualCheck(False, true, "milp", rounds)
        points = [t_star]
    return DualCheck(False, bound, "milp", MAX_CUT_ROUNDS, decided=False)


def _milp(prior: np.ndarray, dual: np.ndarray, ratio: float,
          tolerance: float) -> highspy.Highs:
    """Binary ``z`` (columns ``0..k-1``) and free ``w`` (column ``k``), no rows yet."""
    k = dual.size
    silence_highs_banner()
    highs = highspy.Highs()
    highs.setOptionValue("output_flag", False)
    for key, value in _MILP_OPTIONS.items():
        highs.setOptionValue(key, value)
    highs.setOptionValue("mip_abs_gap", GAP_SHARE * tolerance * k)
    costs = np.append(-(ratio - 1.0) * (dual + tolerance), 1.0)
    lower = np.zeros(k + 1)
    lower[k] = -highspy.kHighsInf
    upper = np.ones(k + 1)
    upper[k] = highspy.kHighsInf
    empty = np.zeros(0, dtype=np.int32)
    highs.addCols(k + 1, costs, lower, upper, 0, empty, empty, np.zeros(0))
    highs.changeColsIntegrality(k, np.arange(k, dtype=np.int32),
                                np.full(k, highspy.HighsVarType.kInteger))
    highs.changeObjectiveSense(highspy.ObjSense.kMaximize)
    highs.changeObjectiveOffset(-float(dual.sum()) - tolerance * k)
    # at least one and at most k - 1 inputs: the patterns are the proper subsets
    row = sp.csr_matrix(np.append(np.ones(k), 0.0)[None, :])
    highs.addRows(1, np.array([1.0]), np.array([k - 1.0]), row.nnz,
                  row.indptr[:-1].astype(np.int32), row.indices.astype(np.int32), row.data)
    return highs


def _add_tangent(highs: highspy.Highs, prior: np.ndarray, ratio: float, t: float) -> None:
    """``w - g'(t) p.z <= g(t) - g'(t) t``."""
    r = ratio
    value = float(mutual_information_pattern(t, r))
    slope = r * np.log(r) - (r - 1.0) * (1.0 + np.log1p((r - 1.0) * t))
    row = sp.csr_matrix(np.append(-slope * prior, 1.0)[None, :])
    highs.addRows(1, np.array([-np.inf]), np.array([value - slope * t]), row.nnz,
                  row.indptr[:-1].astype(np.int32), row.indices.astype(np.int32), row.data)
