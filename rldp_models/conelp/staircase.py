"""The optimal eps-LDP mechanism by the staircase LP (Theorem 4 of ``extremal-mechanisms-ldp.txt``).

The LDP cone ``{q >= 0 : q_x <= e^eps q_x'}`` has the staircase patterns as
its extreme rays (Theorem 2 (b), Definition 3), known in closed form, so the
cone LP needs no vertex enumeration. Two ways to solve it, both column
generation with a master LP of ``k`` rows:

* ``"enumerate"``: every round prices all ``2^k - 2`` patterns by subset sums
  (:class:`~rldp_models.conelp.rays.StaircaseRays`, ``k <= 24``; a single ray
  when ``eps = 0`` or ``k = 1``);
* ``"column-generation"``: an exact pricing oracle
  (:mod:`rldp_models.conelp.staircase_pricing`) finds the best pattern and
  proves a bound over all of them, for mutual information, KL divergence and
  total variation, ``k`` up to :data:`MAX_ORACLE_SIZE`.

``"auto"`` (the default) enumerates up to ``k = ENUMERATION_LIMIT`` (and for
other utilities) and uses the oracle beyond.
"""

from __future__ import annotations

from functools import partial
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from rldp_models.conelp.column_generation import solve_by_pricing
from rldp_models.conelp.cones import inner_ratio, pairwise_ratio_rows
from rldp_models.conelp.engine import ColumnUtility, ConeLP, ConeLPSolution
from rldp_models.conelp.mechanism import OptimalMechanism, guaranteed_mechanism
from rldp_models.conelp.rays import (MAX_STAIRCASE_SIZE, RaySet, StaircaseRays, staircase_rays,
                                     subset_sums)
from rldp_models.conelp.staircase_pricing import (ORACLE_UTILITIES, mutual_information_pattern,
                                                  staircase_oracle)
from rldp_models.errors import InputError
from rldp_models.privacy import certify_ldp
from rldp_models.utility import MutualInformation
from rldp_models.validation import as_epsilon, as_probability_vector


Method = Literal["auto", "enumerate", "column-generation"]

METHODS: tuple[str, ...] = ("auto", "enumerate", "column-generation")
"""Values of ``method`` (see the module docstring)."""

ENUMERATION_LIMIT = 20
"""``"auto"`` prices all ``2^k - 2`` patterns up to this ``k``, and uses the oracle beyond
(``benchmarks/bench_conelp.py``: the oracle overtakes full pricing near ``k = 20``)."""

MAX_ORACLE_SIZE = 64
"""Largest ``k`` for ``"column-generation"``."""


def staircase_mechanism(prior: ArrayLike, eps: float, utility: ColumnUtility | None = None, *,
                        solver: str = "highspy", method: Method = "auto") -> OptimalMechanism:
    """The eps-LDP mechanism maximising ``U(Q) = sum_y mu(Q_y)``.

    Parameters
    ----------
    prior : array_like, shape (k,)
        Distribution of ``X``; fixes ``k`` and the default utility.
    eps : float
        Privacy level, ``>= 0``.
    utility : ColumnUtility, optional
        A sublinear utility on columns of length ``k`` (default: mutual
        information ``I(X;Y)`` under ``prior``, Sec. 4).
    solver : str
        Registry name for the master LPs.
    method : {"auto", "enumerate", "column-generation"}
        How the patterns are priced (see the module docstring).

    Returns
    -------
    OptimalMechanism
        ``Q`` (at most ``k`` outputs, Theorem 2 (a)), its utility, the LP
        certificate (dual feasible over *all* patterns either way), and the
        exact eps-LDP verdict
        (:func:`~rldp_models.privacy.matrix_checks.certify_ldp`) with the repair
        it needed (:mod:`rldp_models.conelp.mechanism`).

    Raises
    ------
    InputError
        On a bad prior, eps or method, or a ``k`` too large for the method.
    """
    prior = as_probability_vector(prior, "prior")
    eps = as_epsilon(eps)
    utility = MutualInformation(prior) if utility is None else utility
    if utility.size != prior.size:
        raise InputError(f"the utility is for {utility.size} inputs, the prior has {prior.size}")
    ratio = inner_ratio(eps)
    if choose_method(prior.size, ratio, utility, method) == "enumerate":
        rays = staircase_rays(prior.size, ratio)
        solution = ConeLP(rays, pattern_utilities(rays, utility), np.ones(prior.size)).solve(solver)
    else:
        solution = _by_oracle(utility, ratio, solver)
    stated = pairwise_ratio_rows(np.eye(prior.size), np.exp(eps))
    return guaranteed_mechanism(solution.columns, stated, partial(certify_ldp, eps=eps), utility,
                                eps, solution)


def choose_method(size: int, ratio: float, utility: ColumnUtility, method: str) -> str:
    """``"enumerate"`` or ``"column-generation"`` for ``method`` (see the module docstring).

    Raises
    ------
    InputError
        On an unknown method, a size beyond the chosen method's limit, or
        ``"column-generation"`` for a utility without an oracle.
    """
    if method not in METHODS:
        raise InputError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    if ratio == 1.0 or size == 1:
        return "enumerate"
    oracle = type(utility) in ORACLE_UTILITIES
    if method == "auto":
        method = "column-generation" if oracle and size > ENUMERATION_LIMIT else "enumerate"
    if method == "enumerate" and size > MAX_STAIRCASE_SIZE:
        raise InputError(f"enumerating the 2^k staircase patterns needs k <= "
                         f"{MAX_STAIRCASE_SIZE}, got {size}"
                         + ("" if oracle else f" (no pricing oracle for {type(utility).__name__})"))
    if method == "column-generation" and size > MAX_ORACLE_SIZE:
        raise InputError(f"column generation is limited to k <= {MAX_ORACLE_SIZE}, got {size}")
    return method


def _by_oracle(utility: ColumnUtility, ratio: float, solver: str) -> ConeLPSolution:
    """The cone LP by column generation with the exact staircase pricing oracle."""
    return solve_by_pricing(staircase_oracle(utility, ratio), utility, np.ones(utility.size),
                            solver)


def pattern_utilities(rays: RaySet, utility: ColumnUtility) -> np.ndarray:
    """``mu`` of every staircase pattern.

    For mutual information ``mu(S_A)`` depends on ``A`` only through ``P(A)``
    (Sec. 4, display after eq. (18), with ``S_A`` in ``{1, r}``):
    ``mu(S_A) = r log(r) P(A) - (1 + (r-1) P(A)) log(1 + (r-1) P(A))``,
    evaluated for all ``A`` from subset sums. Other utilities are evaluated
    column by column.
    """
    if isinstance(rays, StaircaseRays) and type(utility) is MutualInformation:
        return mutual_information_pattern(subset_sums(utility.prior)[1:-1], rays.ratio)
    return ConeLP.from_utility(rays, utility, np.ones(rays.dimension)).utilities
