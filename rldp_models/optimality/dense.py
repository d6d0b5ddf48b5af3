"""An enclosure of the solution of a small dense interval linear system, in BLAS arithmetic.

For ``M x = b`` with ``M`` in ``[Mc - Mr, Mc + Mr]`` and ``b`` in an enclosure, take an
approximate inverse ``R`` of ``Mc`` and ``x~ = R bc``. If ``|I - R M| <= D`` entrywise
for every ``M`` in the interval and ``alpha = ||D||_inf < 1``, then every such ``M`` is
invertible and, with ``z >= |R| |b - M x~|``,

    ``|x - x~| <= z + D 1 beta``,  ``beta = ||z||_inf / (1 - alpha)``

(Krawczyk's operator; Rump, "Verification methods: rigorous results using
floating-point arithmetic", Acta Numerica 19, 2010, Theorem 10.2 and Section 10.5 for
interval data). Products are bounded a priori as in
:mod:`~rldp_models.optimality.enclosure`, so BLAS may sum in any order. python-flint's
``arb_mat.solve`` does the same in ball arithmetic but takes 3 s at order 400, where the
core of a 10x20 robust program lies.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg

from rldp_models.optimality.enclosure import UNIT_ROUNDOFF, Enclosure, gamma


class SingularCore(ZeroDivisionError):
    """The interval matrix is not proved invertible (``||I - R M|| < 1`` fails)."""


def _up(values: np.ndarray, k: int) -> np.ndarray:
    """Nonnegative ``values`` computed by sums of ``k`` nonnegative products, made bounds
    from above (covers ``gamma_k`` and the final rounding)."""
    return np.nextafter(values * (1.0 + 2.0 * gamma(k + 2)), np.inf)


def dense_solve(mid: np.ndarray, rad: np.ndarray, rhs: Enclosure) -> Enclosure:
    """An enclosure of every ``x`` with ``M x = b``, ``|M - mid| <= rad``, ``b`` in ``rhs``."""
    n = mid.shape[0]
    R = scipy.linalg.inv(mid)
    x = R @ rhs.mid
    R_abs, mid_abs = np.abs(R), np.abs(mid)
    spread = _up(R_abs @ mid_abs, n)
    defect = np.abs(np.eye(n) - R @ mid) * (1.0 + 2.0 * UNIT_ROUNDOFF)
    bound = _up(defect + gamma(n) * spread + R_abs @ rad, n + 2)
    alpha = float(_up(bound.sum(axis=1), n).max(initial=0.0))
    if not alpha < 1.0:
        raise SingularCore(f"the core is not proved invertible (||I - R M|| <= {alpha:.3g})")
    x_abs = np.abs(x)
    residual = np.abs(rhs.mid - mid @ x) * (1.0 + 2.0 * UNIT_ROUNDOFF)
    residual = _up(residual + gamma(n + 1) * (np.abs(rhs.mid) + mid_abs @ x_abs)
                   + rhs.rad + rad @ x_abs, n + 3)
    z = _up(R_abs @ residual, n)
    beta = float(np.nextafter(_up(np.array([z.max(initial=0.0)]), 1)[0] /
                              np.nextafter(1.0 - alpha, 0.0), np.inf))
    radius = _up(z + bound.sum(axis=1) * beta, n + 2)
    return Enclosure(x, radius)
