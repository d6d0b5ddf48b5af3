"""Turning a solver's answer into a protocol whose guarantee holds exactly.

Steps (DESIGN.md, core idea 4; the loop is :mod:`rldp_models.finish`):
round the solver's matrix to an exactly row-stochastic one; run every
constraint family's exact check; if a check fails by a hair, mix with the
uniform protocol ``U(y|x) = 1/|Y|`` — privacy constraints are convex in the
protocol and the uniform protocol meets each with margin
``(1 - e^eps)/|Y| < 0``, so mixing weight ``lambda >= m / (m - (1 - e^eps)/|Y|)``
restores a violated margin ``m`` — and report the weight and its cost in the
objective.

The exact checks are the slow part of finishing a large program (RURP 10x20:
~4 s each), so the first weight is predicted, not measured: families with an
``estimated_worst_margin`` (a floating-point evaluation of their bound at the
solver's multipliers) give ``m``, and when it is not clearly negative the
protocol is mixed at once with ``PREDICTION_SAFETY`` times the weight ``m``
needs, then checked exactly — one exact check instead of two. Only if that
check fails does the weight double as before.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from rldp_models.exact import exact_stochastic_rows
from rldp_models.finish import finish
from rldp_models.privacy.guarantees import GuaranteeCheck
from rldp_models.programs.conic_form import MULTIPLIER_NAMES
from rldp_models.programs.contract import Multipliers, as_objective
from rldp_models.programs.linear_form import load_cvxpy_values
from solvers import SolveResult, Status

if TYPE_CHECKING:
    from rldp_models.programs.protocol_program import ProtocolProgram

PREDICTION_SAFETY = 1.1  # first weight = 1.1 x the weight a predicted margin needs
PREDICTION_SLACK = 1e-10  # margins are predicted as at least this much larger


@dataclass
class Repair:
    """How a protocol was repaired.

    ``method`` is ``"mix-uniform"`` (``P = (1 - weight) P_solver + weight U``) or
    ``"best-constant"`` (at eps = 0: the best protocol that ignores its input).
    """

    method: str
    weight: float
    objective_before: float
    objective_after: float

    @property
    def utility_cost(self) -> float:
        return self.objective_after - self.objective_before


@dataclass
class ProtocolSolution:
    """A solved protocol program.

    Attributes
    ----------
    program : ProtocolProgram
    result : SolveResult
        What the solver returned (status, objective, duals, timings).
    protocol : ndarray or None
        ``P[x, y]`` with exactly stochastic rows, after any repair.
    objective : float or None
        The objective recomputed at ``protocol`` (not the solver's number).
    checks : list of GuaranteeCheck
        The exact checks of every constraint family that has one.
    repair : Repair or None
    multipliers : dict
        Values of the robust blocks' multipliers that prove the returned
        protocol's guarantee and objective (:func:`_certificate_multipliers`):
        the certificate of the result file.
    """

    program: "ProtocolProgram"
    result: SolveResult
    protocol: np.ndarray | None = None
    objective: float | None = None
    checks: list[GuaranteeCheck] = field(default_factory=list)
    repair: Repair | None = None
    multipliers: dict[str, dict[str, np.ndarray]] = field(default_factory=dict)

    @property
    def status(self) -> Status:
        return self.result.status

    @property
    def guarantee_holds(self) -> bool:
        return self.protocol is not None and all(check.holds for check in self.checks)

    def protocol_cube(self) -> np.ndarray:
        """The protocol as ``[s][u][y]``."""
        n_s, n_u = self.program.crosstab.shape
        if self.protocol is None:
            raise ValueError(f"{self.program.name}: the solver returned no protocol")
        return self.protocol.reshape(n_s, n_u, -1)


def _multiplier_values(program: "ProtocolProgram",
                       result: SolveResult) -> dict[str, dict[str, np.ndarray]]:
    """The robust blocks' multipliers: from a conic-form result's ``"<group>.<name>"``
    primal entries when present (:mod:`rldp_models.programs.conic_form`), else from
    the cvxpy model's variables (given an LP solver's values first,
    :func:`~rldp_models.programs.linear_form.load_cvxpy_values`)."""
    from_result = _conic_multipliers(result)
    if from_result:
        return from_result
    load_cvxpy_values(program, result.primal)
    values = {}
    for group, named in program.multipliers().items():
        if all(var.value is not None for var in named.values()):
            values[group] = {key: np.asarray(var.value, dtype=float) for key, var in named.items()}
    return values


def _conic_multipliers(result: SolveResult) -> dict[str, dict[str, np.ndarray]]:
    values: dict[str, dict[str, np.ndarray]] = {}
    for name, value in result.primal.items():
        group, _, key = name.rpartition(".")
        if group and key in MULTIPLIER_NAMES:
            values.setdefault(group, {})[key] = np.asarray(value, dtype=float)
    return values


def _run_checks(program: "ProtocolProgram", protocol: np.ndarray,
                multipliers: Multipliers) -> list[GuaranteeCheck]:
    return [family.check(protocol, program, multipliers) for family in program.guarantees]


def _best_constant_protocol(program: "ProtocolProgram") -> np.ndarray:
    """The protocol ignoring its input with the best objective: private at every eps >= 0."""
    n_x, n_y = int(np.prod(program.crosstab.shape)), len(program.output_labels)
    candidates = [np.tile(np.eye(n_y)[y], (n_x, 1)) for y in range(n_y)]
    objective = as_objective(program.objective)
    return min(candidates, key=lambda q: objective.evaluate(q, program))


def _mixed(program: "ProtocolProgram", multipliers: Multipliers, weight: float) -> Multipliers:
    """Multipliers of the mixed protocol, from the families that know how to mix theirs."""
    mixed: Multipliers = {}
    for family in program.guarantees:
        mixed.update(family.mixed_multipliers(multipliers, weight, len(program.output_labels)))
    return mixed


def _first_weight(checks: list[GuaranteeCheck], n_y: int) -> float | None:
    """Twice the weight on the uniform protocol that each failed check needs; None if one can't."""
    weight = 0.0
    for check in checks:
        if check.holds:
            continue
        needed = _needed_weight(check.worst_margin, check.eps, n_y)
        if needed is None:
            return None
        weight = max(weight, min(1.0, 2.0 * needed))
    return weight


def _needed_weight(margin: float, eps: float, n_y: int) -> float | None:
    """The weight on the uniform protocol that restores a violated ``margin``; None at eps 0."""
    uniform_margin = (1.0 - np.exp(eps)) / n_y
    if uniform_margin >= 0:  # eps = 0: the uniform protocol has no slack to give
        return None
    return margin / (margin - uniform_margin)


def _predicted_weight(program: "ProtocolProgram", protocol: np.ndarray,
                      multipliers: Multipliers) -> float:
    """A first mixing weight from the families' float estimates; 0.0 to check first.

    0.0 when every family predicts a clear pass, or when one cannot predict
    (no ``estimated_worst_margin``, or eps = 0): the exact check then comes
    first, as without a prediction.
    """
    weight = 0.0
    for family in program.guarantees:
        margin = family.estimated_worst_margin(protocol, program, multipliers)
        if margin is None:
            return 0.0
        if margin < -PREDICTION_SLACK:
            continue
        needed = _needed_weight(margin + PREDICTION_SLACK, family.eps, len(program.output_labels))
        if needed is None:
            return 0.0
        weight = max(weight, min(1.0, PREDICTION_SAFETY * needed))
    return weight


def finish_solution(program: "ProtocolProgram", result: SolveResult) -> ProtocolSolution:
    """Round, check exactly, and if needed repair the solver's protocol.

    Through the one finish path of every producer
    (:func:`rldp_models.finish.finish`): the reference is the uniform
    protocol, the fallback (eps = 0, where mixing cannot help) the best
    protocol that ignores its input, which meets every eps = 0 constraint
    exactly.
    """
    solution = ProtocolSolution(program, result)
    if not result.status.has_solution:
        return solution
    raw = np.clip(result.primal["protocol"], 0.0, None)
    solution.multipliers = _multiplier_values(program, result)
    predicted = _predicted_weight(program, exact_stochastic_rows(raw), solution.multipliers)
    n_y = len(program.output_labels)

    def certify(protocol: np.ndarray, weight: float | None) -> list[GuaranteeCheck]:
        if weight is None:
            return _run_checks(program, protocol, {})
        multipliers = solution.multipliers if weight == 0.0 else \
            _mixed(program, solution.multipliers, weight)
        return _run_checks(program, protocol, multipliers)

    objective = as_objective(program.objective)
    finished = finish(raw, certify, lambda checks: all(check.holds for check in checks),
                      value=lambda protocol: objective.evaluate(protocol, program),
                      first_weight=predicted or (lambda checks: _first_weight(checks, n_y)),
                      check_unmixed=not predicted, fallback=_best_constant_protocol(program))
    protocol, checks, repair = finished.matrix, finished.verdict, finished.repair
    assert repair.value_before is not None and repair.value_after is not None  # value= given
    if repair.method != "none":
        method = "mix-uniform" if repair.method == "mix" else "best-constant"
        solution.repair = Repair(method, repair.weight, repair.value_before, repair.value_after)
        # keep the multipliers that prove the repaired protocol, not the solver's
        solution.multipliers = {**solution.multipliers,
                                **_mixed(program, solution.multipliers, repair.weight)} \
            if method == "mix-uniform" else {}
    solution.protocol, solution.checks = protocol, checks
    solution.objective = repair.value_after
    solution.multipliers = _certificate_multipliers(program, protocol, checks,
                                                    solution.multipliers)
    return solution


def _certificate_multipliers(program: "ProtocolProgram", protocol: np.ndarray,
                             checks: list[GuaranteeCheck], multipliers: Multipliers) -> Multipliers:
    """The multipliers that prove the returned protocol's constraints and objective.

    Privacy groups get those the exact check used (the solver's, mixed ones
    after a repair, or closed-form ones where those were missing or better);
    a robust objective keeps the solver's multipliers unless the closed form's
    (Theorem 2 at the returned protocol) give a smaller certified bound, as
    they do after a repair.
    """
    found = dict(multipliers)
    for family, check in zip(program.guarantees, checks):
        for pair, values in check.multipliers.items():
            found[f"{family.name}[{pair}]"] = values
    found.update(as_objective(program.objective).certificate_multipliers(protocol, program,
                                                                          multipliers))
    return found
