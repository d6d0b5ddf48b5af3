"""The bound on the toolkit's own compiled programs: the four presets in direct conic form.

The upper bound it is compared with comes from elsewhere: the objective the toolkit
recomputes at its finished protocol (exactly repaired, its guarantee checked), so
``LB <= UB`` checks the bound and ``(UB - LB) / max(1, |UB|)`` is the proven gap.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from rldp_models.data import Crosstab
from rldp_models.datasets import jeffreys_instance
from rldp_models.optimality import conic_lower_bound, declared_rows_dual
from rldp_models.programs import preset
from rldp_models.programs.conic_form import conic_program
from solvers.backends.clarabel_direct import ClarabelDirectBackend, clarabel_cones

PRESETS = ("NUNP", "NURP", "RUNP", "RURP")
EPS, ALPHA = 0.5, 0.05


def _clarabel_default_dual(conic) -> np.ndarray:
    """Clarabel at its default tolerances on the conic form (no boost, presolve off)."""
    import clarabel

    settings = clarabel.DefaultSettings()
    settings.verbose = False
    settings.presolve_enable = False
    n = conic.A.shape[1]
    solution = clarabel.DefaultSolver(sp.csc_matrix((n, n)), conic.c, conic.A, conic.b,
                                      clarabel_cones(conic), settings).solve()
    assert str(solution.status) == "Solved"
    return np.asarray(solution.z)


def _finished_objective(crosstab: Crosstab, name: str) -> float:
    solution = preset(name, crosstab, EPS, ALPHA).solve(solver="clarabel-direct")
    assert solution.guarantee_holds and solution.objective is not None
    return float(solution.objective)


@pytest.mark.parametrize("name", PRESETS)
def test_presets_on_3x5_at_clarabel_defaults(demo_crosstab: Crosstab, name: str) -> None:
    conic = conic_program(preset(name, demo_crosstab, EPS, ALPHA))
    bound = conic_lower_bound(conic, _clarabel_default_dual(conic), simplices=("protocol",))
    upper = _finished_objective(demo_crosstab, name)
    assert bound.proved, bound.reason
    assert bound.lower <= upper
    assert bound.relative_gap(upper) <= 1e-6


@pytest.mark.parametrize("name", PRESETS)
def test_presets_from_the_backends_named_duals(demo_crosstab: Crosstab, name: str) -> None:
    """The direct backend reports duals per declared row group (mixed and folded groups
    mapped back); :func:`declared_rows_dual` undoes that for the rows of ``A``."""
    _assert_proved_from_named_duals(demo_crosstab, name)


def test_another_instances_dual_is_refused_or_below(demo_crosstab: Crosstab) -> None:
    """RURP's dual on another 3x5 table of the same shape and zero cells (one more record
    in every counted cell): a valid bound (below the optimum) or none."""
    counts = np.asarray(demo_crosstab.counts)
    other = Crosstab.from_array(np.where(counts > 0, counts + 1, 0))
    conic = conic_program(preset("RURP", demo_crosstab, EPS, ALPHA))
    foreign = _clarabel_default_dual(conic_program(preset("RURP", other, EPS, ALPHA)))
    bound = conic_lower_bound(conic, foreign, simplices=("protocol",))
    assert not bound.proved or bound.lower <= _finished_objective(demo_crosstab, "RURP")


def test_without_the_protocol_box_the_bound_stays_valid(demo_crosstab: Crosstab) -> None:
    """NUNP's protocol entries are its only columns. Unboxed, each is cancelled exactly
    (or, where that fails, boxed by its own rows: ``P >= 0`` rows of one entry and rows
    summing to 1, :mod:`rldp_models.optimality.simple_bounds`); the bound is proved and
    stays below the finished protocol's objective."""
    conic = conic_program(preset("NUNP", demo_crosstab, EPS, ALPHA))
    z = _clarabel_default_dual(conic)
    boxed = conic_lower_bound(conic, z, simplices=("protocol",))
    unboxed = conic_lower_bound(conic, z)
    assert boxed.free == 0
    upper = _finished_objective(demo_crosstab, "NUNP")
    assert unboxed.proved and unboxed.lower <= upper


@pytest.mark.slow
@pytest.mark.parametrize("name", PRESETS)
def test_presets_on_5x11(name: str) -> None:
    """5x11 (n = 1,000), the backend's duals (its own tolerances: 1e-10 below 200k
    nonzeros); at Clarabel's defaults the gap is 5e-7 to 6e-6 (docs/optimality.md)."""
    crosstab = jeffreys_instance(5, 11, 1000, seed=1).crosstab
    _assert_proved_from_named_duals(crosstab, name)


def _assert_proved_from_named_duals(crosstab: Crosstab, name: str) -> None:
    """The direct backend's named duals give a proven bound within 1e-6 of the finished
    protocol's objective."""
    conic = conic_program(preset(name, crosstab, EPS, ALPHA))
    result = ClarabelDirectBackend().solve(conic)
    bound = conic_lower_bound(conic, declared_rows_dual(conic, result.dual),
                              simplices=("protocol",))
    upper = _finished_objective(crosstab, name)
    assert bound.proved, bound.reason
    assert bound.lower <= upper and bound.relative_gap(upper) <= 1e-6
