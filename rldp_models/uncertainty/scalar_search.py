"""Minimisation of a convex function of one variable on a half-line.

The closed forms of Theorems 2 and 4 reduce, once the multipliers ``w`` are
set equal within each block, to convex problems in one or two scalars. This
module finds their minima without a conic solver, so that the closed forms
can be checked against the conic reformulations the builders use.
"""

from __future__ import annotations

from typing import Any, Callable

from scipy.optimize import minimize_scalar


def minimise_convex_on_half_line(f: Callable[[float], float], start: float,
                                 scale: float) -> tuple[float, float]:
    """Minimise a convex ``f`` over ``[start, inf)``.

    Parameters
    ----------
    f : callable
        Convex on ``[start, inf)`` with a finite minimiser.
    start : float
        Left end of the half-line.
    scale : float
        A positive length on which ``f`` changes noticeably; used for the
        first bracket and the tolerance.

    Returns
    -------
    (float, float)
        The minimiser and the minimum.
    """
    width = max(scale, 1e-300)
    while f(start + 2 * width) < f(start + width):
        width *= 2.0
    upper = start + 2 * width
    result = minimize_scalar(f, bounds=(start, upper), method="bounded",
                             options={"xatol": 1e-13 * (upper - start), "maxiter": 2000})
    best_x, best_f = float(result.x), float(result.fun)
    at_start = f(start)
    return (start, at_start) if at_start <= best_f else (best_x, best_f)


def direct_solver_options(solver: str) -> dict[str, Any]:
    """Tight tolerances for the direct maximisations that closed forms are checked against.

    Clarabel's defaults stop at a relative gap of 1e-8, which on small sets
    leaves the direct maximum ~1e-6 short of the support function.
    """
    if solver.lower() == "clarabel":
        return {"tol_gap_abs": 1e-11, "tol_gap_rel": 1e-11, "tol_feas": 1e-11}
    return {}
