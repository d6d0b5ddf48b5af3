"""The built-in demonstration: the four programs on one seeded instance of the paper's setting.

``|S| = 3``, ``|U| = 5``, ``d(u, y) = (u - y)^2``, ``alpha = 0.05``,
``eps = 0.5``, ``P*`` from the Jeffreys prior, ``n = 75`` (Section V of the
robust-optimization paper).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypedDict

from rldp_models.datasets import Instance, jeffreys_instance
from rldp_models.privacy.metrics import distortion_star, epsilon_star
from rldp_models.problem_kinds import PRESETS
from rldp_models.programs import preset

if TYPE_CHECKING:
    from rldp_models.programs import ProtocolSolution

class DemoSetting(TypedDict):
    """The demo instance's sizes, privacy level, significance and seed."""

    n_s: int
    n_u: int
    n: int
    eps: float
    alpha: float
    seed: int


DEMO_SETTING: DemoSetting = {"n_s": 3, "n_u": 5, "n": 75, "eps": 0.5, "alpha": 0.05,
                             "seed": 2022}


@dataclass
class DemoRow:
    """One program's outcome on the demo instance."""

    problem: str
    solution: "ProtocolSolution"
    d_star: float
    eps_star: float
    seconds: float


def run_demo(seed: int = DEMO_SETTING["seed"], solver: str | None = None
             ) -> tuple[Instance, list[DemoRow]]:
    """Solve NUNP, NURP, RUNP and RURP on the seeded instance and score them at ``P*``.

    ``solver=None`` lets each program choose its fastest backend (the direct conic path).
    """
    instance = jeffreys_instance(DEMO_SETTING["n_s"], DEMO_SETTING["n_u"], DEMO_SETTING["n"],
                                 seed)
    rows = []
    for problem in PRESETS:
        start = time.perf_counter()
        program = preset(problem, instance.crosstab, DEMO_SETTING["eps"], DEMO_SETTING["alpha"])
        solution = program.solve(solver=solver)
        seconds = time.perf_counter() - start
        protocol = solution.protocol
        if protocol is None:
            raise RuntimeError(f"{problem}: the solver returned no protocol ({solution.status})")
        rows.append(DemoRow(problem, solution,
                            distortion_star(protocol, instance.p_star, program.distortion_matrix),
                            epsilon_star(protocol, instance.p_star), seconds))
    return instance, rows
