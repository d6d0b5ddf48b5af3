"""Column generation driven by a pricing oracle (DESIGN.md, "Performance").

The cone LP ``max sum_r theta_r mu(v_r)  s.t.  sum_r theta_r v_r = rhs`` of
:mod:`rldp_models.conelp.engine`, for cones whose rays are too many to list:
the master LP holds only the rays generated so far, and a
:class:`~rldp_models.conelp.pricing.PricingOracle` finds rays of positive
reduced cost per unit mass ``(mu(v) - lam.v) / (1.v)`` and *proves* a bound
``delta`` on it over every ray of the cone. The master, its preconditioning
and the polishing of its support are the engine's
(:func:`~rldp_models.conelp.engine.generate_columns`).

Signature::

    solve_by_pricing(oracle: PricingOracle, utility: ColumnUtility, rhs: ArrayLike,
                     solver: str = "highspy", *, batch: int | None = None,
                     max_iterations: int = 1000, tolerance: float = 1e-10,
                     watch: RoundWatch | None = None, **options) -> ConeLPSolution

* ``utility`` evaluates ``mu`` on the oracle's seed rays (``utility.columns``);
  the oracle gives the utilities of the rays it proposes.
* Stops when the oracle's bound is ``<= tolerance`` (no proposed ray is new
  with reduced cost above ``tolerance``), or after ``max_iterations`` master
  LPs (status ITERATION_LIMIT).
* The oracle prices at the master's dual ``lam`` shifted by ``c 1``, the
  smallest shift that makes it feasible on the master's own rays (the LP
  solver meets those only to its tolerance, the size of ``tolerance``), so a
  ray it ranks above ``tolerance`` is never one the master already has.
  ``solution.certificate.max_violation`` is ``delta = c +`` the oracle's last
  proven bound, so ``lam + max(delta, 0) 1`` is dual feasible over every ray
  and ``certificate.upper_bound`` bounds every mechanism in the cone.
* ``watch`` (:class:`~rldp_models.conelp.pricing_progress.RoundWatch`) sees
  every round and may end the run early (anytime: the protocol of the last
  master, the certificate of the round with the smallest proven bound).
* ``solution.rays`` is ``None`` (oracle rays have no index);
  ``solution.vectors`` holds the rays in use, ``solution.pricing_nodes`` the
  oracle's total work.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from rldp_models.conelp.engine import (PRICING_TOLERANCE, ColumnUtility, ConeLPSolution,
                                       PricedRays, generate_columns)
from rldp_models.conelp.pricing import PricingOracle
from rldp_models.conelp.pricing_progress import RoundWatch
from rldp_models.errors import InputError


def solve_by_pricing(oracle: PricingOracle, utility: ColumnUtility, rhs: ArrayLike,
                     solver: str = "highspy", *, batch: int | None = None,
                     max_iterations: int = 1000, tolerance: float = PRICING_TOLERANCE,
                     watch: RoundWatch | None = None, **options: Any) -> ConeLPSolution:
    """The cone LP over the oracle's cone, by column generation (see the module docstring).

    Parameters
    ----------
    oracle : PricingOracle
    utility : ColumnUtility
        ``mu``; used on the seed rays.
    rhs : array_like, shape (d,)
        ``sum_y Q_y``, nonnegative, inside the cone of the seed rays.
    solver : str
        Registry name for the master LPs.
    batch : int, optional
        Rays asked of the oracle per round (default ``2 d``).
    max_iterations : int
    tolerance : float
        Reduced cost per unit mass below which the master is optimal. An
        oracle that stops its search early on a good ray must know it (e.g.
        ``ConcavePricing(..., entering=tolerance)``), or it may stop on a ray
        that does not enter.
    watch : RoundWatch, optional
        Reports rounds and says when to stop (see the module docstring).
    **options
        Passed to the solver.

    Raises
    ------
    InputError
        On a malformed ``rhs`` or seed.
    solvers.SolverError
        If a master LP has no solution.
    """
    rhs = np.asarray(rhs, dtype=float)
    if rhs.shape != (oracle.dimension,) or np.any(rhs < 0):
        raise InputError(f"rhs must be a nonnegative vector of length {oracle.dimension}")
    seed = np.asarray(oracle.seed(), dtype=float)
    if seed.ndim != 2 or seed.shape[0] != oracle.dimension or seed.shape[1] == 0:
        raise InputError(f"the oracle's seed must be rays of length {oracle.dimension}")
    start = PricedRays(seed, utility.columns(seed), _keys(seed), np.inf)
    return generate_columns(lambda dual, count, known: _priced(oracle.price(dual, count)),
                            start, rhs, solver, batch=batch, max_iterations=max_iterations,
                            options=options, tolerance=tolerance, watch=watch)


def _priced(result: Any) -> PricedRays:
    rays = np.asarray(result.rays, dtype=float)
    return PricedRays(rays, np.asarray(result.utilities, dtype=float), _keys(rays),
                      float(result.upper_bound), int(result.nodes))


def _keys(rays: np.ndarray) -> list[bytes]:
    """Each ray's bytes: the same ray proposed twice is recognised."""
    return [np.ascontiguousarray(rays[:, i]).tobytes() for i in range(rays.shape[1])]
