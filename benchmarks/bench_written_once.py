"""The direct conic form's builder against its form before "written once" (issue 32, item 3).

Each library block now states its rows once (``build_conic``); the cvxpy and
Pyomo models are emitted from that statement. The direct path must keep its
speed: :func:`~rldp_models.programs.conic_form.conic_program` is timed as it is
today and as it was at commit :data:`BASELINE` (``conic_builder``,
``conic_rows``, ``components`` and ``conic_form`` read from the repository's
history and executed under names of their own, the program's blocks rebuilt
from the old classes), alternately, in the same process, in CPU seconds (best
of :data:`ROUNDS`). Both must write the same matrix, right-hand side, cost and
cones (so the solve that follows is the same); the ratio today / baseline must
be at most 1.1 (``extra_info``: ``cpu_before``, ``cpu_now``,
``cpu_ratio_now_over_before``). RURP (Hamming, eps 1) on Adult race x education (5 x 16; a
synthetic 5 x 16 without the data) runs by default, synthetic RURP 10 x 20 is
``slow``. Without the history (a shallow clone, no git) the benchmark is skipped.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import inspect
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any
from unittest import mock

import numpy as np
import pytest

from rldp_models.data import Crosstab
from rldp_models.datasets import jeffreys_instance
from rldp_models.programs import preset
from rldp_models.programs.conic_form import conic_program
from rldp_models.programs.protocol_program import ProtocolProgram
import solvers.registry

from instances import ADULT, race_education, synthetic_10x20
from timing import cpu_seconds

BASELINE = "a935ceb"
"""The last commit whose blocks were written twice (cvxpy ``build`` and ``build_conic``)."""
ROOT = Path(__file__).resolve().parents[1]
ROUNDS = 5
KEPT = "_conic_form"  # where conic_program keeps its model on a program (then and now)


def _baseline_source(path: str) -> str:
    try:
        return subprocess.run(["git", "show", f"{BASELINE}:{path}"], cwd=ROOT,
                              capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip(f"the repository's history at {BASELINE} is not available")


def _load(path: str, replaced: dict[str, ModuleType]) -> ModuleType:
    """The module at ``path`` as it was at :data:`BASELINE`, its imports of the modules in
    ``replaced`` pointing at their baseline versions."""
    name = "baseline_written_once_" + Path(path).stem
    spec = importlib.util.spec_from_loader(name, loader=None)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while being defined
    with mock.patch.dict(sys.modules, replaced):
        exec(compile(_baseline_source(path), f"{BASELINE}:{path}", "exec"), module.__dict__)
    return module


def _contract_then() -> ModuleType:
    """Today's block contract with the two wrappers the baseline imported: ``as_family`` and
    ``as_objective`` returned a block of the contract unchanged (they wrapped only blocks
    written before the contract, a layer deleted since)."""
    from rldp_models.programs import contract

    then = ModuleType("baseline_written_once_contract")
    then.__dict__.update(contract.__dict__)
    then.__dict__.update(as_family=lambda block: block, as_objective=lambda block: block)
    return then


def _baseline_modules() -> tuple[ModuleType, ModuleType]:
    """``(components, conic_form)`` as they were at :data:`BASELINE`."""
    replaced: dict[str, ModuleType] = {"rldp_models.programs.contract": _contract_then(),
                                       # the baseline imported the registry's errors from
                                       # solvers.errors, since folded into solvers.registry
                                       "solvers.errors": solvers.registry}
    for stem in ("conic_builder", "conic_rows", "components", "conic_form"):
        replaced[f"rldp_models.programs.{stem}"] = _load(f"rldp_models/programs/{stem}.py",
                                                         replaced)
    return (replaced["rldp_models.programs.components"],
            replaced["rldp_models.programs.conic_form"])


def _as_baseline(program: ProtocolProgram, components: ModuleType) -> ProtocolProgram:
    """``program`` with its blocks rebuilt from the baseline's classes of the same names."""

    def old(block: Any) -> Any:
        # the baseline predates ``over=`` (a block's own set); these blocks use the program's
        then = getattr(components, type(block).__name__)
        accepted = inspect.signature(then).parameters
        parameters = block.parameters()
        assert all(parameters[k] is None for k in parameters if k not in accepted)
        return then(**{k: v for k, v in parameters.items() if k in accepted})

    return dataclasses.replace(program, objective=old(program.objective),
                               constraints=[old(block) for block in program.constraints])


def _build_seconds(build: Any, program: ProtocolProgram) -> tuple[Any, float]:
    program.__dict__.pop(KEPT, None)
    return cpu_seconds(lambda: build(program))


def _compare(benchmark: Any, crosstab: Crosstab) -> None:
    components, old_form = _baseline_modules()
    now_program = preset("RURP", crosstab, 1.0, 0.05, distortion="hamming")
    old_program = _as_baseline(now_program, components)
    before, now, seconds = None, None, {"before": [], "now": []}
    for _ in range(ROUNDS):
        before, cpu = _build_seconds(old_form.conic_program, old_program)
        seconds["before"].append(cpu)
        now, cpu = _build_seconds(conic_program, now_program)
        seconds["now"].append(cpu)
    assert before is not None and now is not None
    assert (before.A != now.A).nnz == 0 and before.cones == now.cones
    np.testing.assert_array_equal(before.b, now.b)
    np.testing.assert_array_equal(before.c, now.c)
    benchmark.pedantic(lambda: _build_seconds(conic_program, now_program), rounds=1,
                       iterations=1)
    ratio = min(seconds["now"]) / min(seconds["before"])
    benchmark.extra_info.update(cpu_before=min(seconds["before"]), cpu_now=min(seconds["now"]),
                                cpu_ratio_now_over_before=ratio)
    assert ratio <= 1.1, f"the direct builder is {ratio:.2f}x its baseline's CPU time"


def _race_education_or_synthetic() -> Crosstab:
    """Adult race x education, or a synthetic 5 x 16 table where the data are absent."""
    if ADULT.exists():
        return race_education()
    return jeffreys_instance(5, 16, 30_000, seed=7).crosstab


def test_direct_builder_5x16(benchmark: Any) -> None:
    _compare(benchmark, _race_education_or_synthetic())


@pytest.mark.slow
def test_direct_builder_10x20(benchmark: Any) -> None:
    _compare(benchmark, synthetic_10x20())
