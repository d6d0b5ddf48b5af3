"""Clarabel's dual of ``min c.x, A x + s = b, s in K`` at its default tolerances."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import scipy.sparse as sp


def clarabel_cone_list(zero: int = 0, nonneg: int = 0, soc: tuple[int, ...] = (),
                       exp: int = 0, power: tuple[float, ...] = ()) -> list[Any]:
    import clarabel

    cones: list[Any] = []
    if zero:
        cones.append(clarabel.ZeroConeT(zero))
    if nonneg:
        cones.append(clarabel.NonnegativeConeT(nonneg))
    cones += [clarabel.SecondOrderConeT(d) for d in soc]
    cones += [clarabel.ExponentialConeT() for _ in range(exp)]
    cones += [clarabel.PowerConeT(a) for a in power]
    return cones


def clarabel_solve(c: np.ndarray, A: sp.spmatrix, b: np.ndarray, **cones: Any) -> Any:
    """Clarabel's solution (default settings, quiet)."""
    import clarabel

    settings = clarabel.DefaultSettings()
    settings.verbose = False
    n = A.shape[1]
    return clarabel.DefaultSolver(sp.csc_matrix((n, n)), np.asarray(c, dtype=float),
                                  sp.csc_matrix(A), np.asarray(b, dtype=float),
                                  clarabel_cone_list(**cones), settings).solve()


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(20261207)
