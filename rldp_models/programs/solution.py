"""Turning a solver's answer into a protocol whose guarantee holds exactly.

Steps (DESIGN.md, core idea 4; the loop is :mod:`rldp_models.finish`):
round the solver's matrix to an exactly row-stochastic one; run every
constraint family's exact check; if a check fails by a hair, mix with the
uniform protocol ``U(y|x) = 1/|Y|`` — privacy constraints are convex in the
protocol and the uniform protocol meets each with margin
``(1 - e^eps)/|Y| < 0``, so mixing weight ``lambda >= m / (m - (1 - e^eps)/|Y|)``
restores a violated margin ``m`` — and report the weight and its cost in the
objective.

The exact checks were the slow part of finishing a large program (RURP 10x20:
~4 s each; now 0.02-0.1 s, the whole finish of a protocol that passes under 1% of
the solve's CPU time on RURP 10x20 and Adult education x occupation), so the
first weight is predicted, not measured: families with an
``estimated_worst_margin`` (a floating-point evaluation of their bound at the
solver's multipliers) give ``m``, and when it is not clearly negative the
protocol is mixed at once with ``PREDICTION_SAFETY`` times the weight ``m``
needs, then checked exactly — one exact check instead of two. Only if that
check fails does the weight double as before.

The uniform protocol is a poor reference for a nearly optimal protocol: even a
weight of 5e-7 on it costs ~3e-6 of the objective (RURP 3x5). So when a
repair was needed, the program is solved once more (same backend and solver
options) with every
guarantee block's eps shrunk by ``TIGHTENING`` (:func:`tightened_program`,
built from the blocks' own ``parameters()`` / ``from_parameters``): its
protocol is strictly feasible at eps and nearly optimal, and mixing toward it
costs 5-20x less. The mixed protocol is checked exactly like any other (with
the checks' own closed-form multipliers, the solver's do not mix with it), and
the cheaper of the two certified repairs is kept; if the extra solve or its
mix fails, the uniform repair stands. The extra solve costs as much as the first
(RURP 10x20 with a forced miss: 13.4 s of finish after a 12.7 s solve), which is
why it is only tried above :data:`TIGHTEN_ABOVE`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

import solvers
from rldp_models.exact import exact_stochastic_rows
from rldp_models.finish import (
    FIRST_WEIGHT,
    Certify,
    Finished,
    GuaranteeError,
    Repair,
    finish,
    mixing_weight,
)
from rldp_models.privacy.guarantees import GuaranteeCheck
from rldp_models.programs.conic_form import MULTIPLIER_NAMES
from rldp_models.errors import InputError
from rldp_models.programs.contract import Block, Multipliers, Reference, robust_set
from rldp_models.uncertainty.base import Capability
from rldp_models.programs.lp_values import load_cvxpy_values
from rldp_models.programs.secret_mix import secret_mix_repair, secret_repair
from solvers import SolveResult, Status

if TYPE_CHECKING:
    from rldp_models.programs.protocol_program import ProtocolProgram

PREDICTION_SAFETY = 1.1  # first weight = 1.1 x the weight a predicted margin needs
PREDICTION_SLACK = 1e-10  # margins are predicted as at least this much larger
TIGHTEN_ABOVE = 1e-8
"""Relative cost of the uniform repair above which the tightened reference is tried: below
it the extra solve (a second solve of the whole program) cannot move the proven gap under the
1e-6 the certificates aim at (Adult education x occupation: uniform weight 2.9e-9)."""
LARGE_PROGRAM_CELLS = 10_000
TIGHTEN_LARGE_ABOVE = 1e-6
""":data:`TIGHTEN_ABOVE` for programs of more than :data:`LARGE_PROGRAM_CELLS` protocol cells,
whose second solve takes minutes and whose proven gaps are far above 1e-6: on Adult education
x native-country (16 x 42, 28,224 cells) the uniform repair cost 1.4e-8 of the objective, the
tightened solve took another 190 s of the 400 and was not kept, and the proven gap is 5.6e-3."""
TIGHTEN_CONDITIONAL_ABOVE = 1e-5
""":data:`TIGHTEN_ABOVE` for a guarantee proved through a set's conditional duals
(:func:`_proved_by_conditional_duals`): there the uniform repair is usually cheap (V6 at 5x11:
1.9e-7 of the objective) and the tightened one slow, but where the conditional bounds are
loose by 1e-5 of themselves (V3 on Adult race x marital-status) the uniform repair cost
1.3e-3 of the objective and the tightened one 5.8e-5, in 9 s in all."""
SECRET_MIX_ABOVE = 1e-6
"""Relative cost of the uniform repair above which the mix per secret is tried
(:func:`_cheaper_repair`): below it the mix cannot move a value out of issue 33's window or
a proven gap past 1e-6, and it re-proves every conditional bound (V6 on Adult race x age
in 11 bands: 14 s to save 3e-8 of the objective)."""
TIGHTENING = 1e-4
"""Relative eps reduction of the repair's reference program: its protocol is strictly
feasible at eps, and mixing toward it costs 5-20x less than toward the uniform protocol
(3x5 RURP seeds 2, 7, 10; 1e-5 and 1e-6 cost more: their passing weights are larger)."""


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
        How the returned protocol was repaired (:class:`rldp_models.finish.Repair`:
        a ``"mix"`` with ``reference`` ``"uniform"`` or ``"tightened"``, or the
        ``"fallback"``, the best protocol that ignores its input); None when the
        rounded solver protocol passed as it is.
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
    :func:`~rldp_models.programs.lp_values.load_cvxpy_values`)."""
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
    objective = program.objective
    return min(candidates, key=lambda q: objective.evaluate(q, program))


def _mixed(program: "ProtocolProgram", multipliers: Multipliers, weight: float) -> Multipliers:
    """Multipliers of the mixed protocol, from the families that know how to mix theirs."""
    mixed: Multipliers = {}
    for family in program.guarantees:
        mixed.update(family.mixed_multipliers(multipliers, weight, len(program.output_labels)))
    return mixed


def _first_weight(program: "ProtocolProgram", checks: list[GuaranteeCheck]) -> float | None:
    """:data:`PREDICTION_SAFETY` times the weight on the uniform protocol that each failed check
    needs (the margins mix linearly; a weight that falls short is doubled by the finish loop;
    twice it cost V3 on a wide 5x14 table 1.5e-5 of the objective); None if one cannot."""
    weight = 0.0
    n_y = len(program.output_labels)
    for family, check in zip(program.guarantees, checks):
        if check.holds:
            continue
        needed = _needed_weight(check.worst_margin, family.uniform_margin(n_y))
        if needed is None:
            return None
        weight = max(weight, min(1.0, PREDICTION_SAFETY * needed))
    return weight


def _needed_weight(margin: float, uniform_margin: float) -> float | None:
    """The weight on the uniform protocol that restores a violated ``margin``, given the
    guarantee's margin at the uniform protocol (:meth:`GuaranteeFamily.uniform_margin`).

    None when the uniform protocol has no slack to give (eps = 0, or a linear constraint
    it does not meet); :data:`~rldp_models.finish.FIRST_WEIGHT` (doubled until it passes)
    when that margin is unknown (NaN).
    """
    if np.isnan(uniform_margin):
        return FIRST_WEIGHT
    if uniform_margin >= 0:
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
        needed = _needed_weight(margin + PREDICTION_SLACK,
                                family.uniform_margin(len(program.output_labels)))
        if needed is None:
            return 0.0
        weight = max(weight, min(1.0, PREDICTION_SAFETY * needed))
    return weight


def finish_solution(program: "ProtocolProgram", result: SolveResult,
                    solver: str | None = None,
                    options: Mapping[str, Any] | None = None) -> ProtocolSolution:
    """Round, check exactly, and if needed repair the solver's protocol.

    Through the one finish path of every producer
    (:func:`rldp_models.finish.finish`): the reference is the uniform
    protocol, the fallback (eps = 0, where mixing cannot help) the best
    protocol that ignores its input, which meets every eps = 0 constraint
    exactly. After a mix, the mix toward the tightened program's solution
    (:func:`_tightened_repair`) replaces it when it costs less.

    Parameters
    ----------
    solver : str, optional
        The registry name ``result`` came from, for the tightened reference's
        solve (default: ``result.solver`` when it is a registered name; else no
        tightened reference is tried).
    options : mapping, optional
        The solver options ``result`` was obtained with
        (``ProtocolProgram.solve(**options)``), passed to the tightened
        reference's solve as well.
    """
    solution = ProtocolSolution(program, result)
    if not result.status.has_solution:
        return solution
    raw = np.clip(result.primal["protocol"], 0.0, None)
    solution.multipliers = _multiplier_values(program, result)
    predicted = _predicted_weight(program, exact_stochastic_rows(raw), solution.multipliers)

    objective = program.objective
    first_weight = predicted or (lambda checks: _first_weight(program, checks))
    finished = finish(raw, _certifier(program, solution.multipliers), _all_hold,
                      value=lambda protocol: objective.evaluate(protocol, program),
                      first_weight=first_weight, check_unmixed=not predicted,
                      fallback=lambda: _best_constant_protocol(program))
    cheaper = _cheaper_repair(program, raw, finished, solution.multipliers, solver or
                              result.solver, options or {})
    repair = finished.repair
    if cheaper is not None:
        repair, finished, proving = cheaper
        # the multipliers that prove the mix, not the solver's
        solution.multipliers = {**_without_guarantee_groups(program, solution.multipliers),
                                **proving}
    elif repair.method != "none":
        # keep the multipliers that prove the repaired protocol, not the solver's
        solution.multipliers = {**solution.multipliers,
                                **_mixed(program, solution.multipliers, repair.weight)} \
            if repair.method == "mix" else {}
    protocol, checks = finished.matrix, finished.verdict
    solution.protocol, solution.checks = protocol, checks
    solution.repair = None if repair.method == "none" else repair
    solution.objective = repair.value_after
    solution.multipliers = _certificate_multipliers(program, protocol, checks,
                                                    solution.multipliers)
    return solution


def _all_hold(checks: list[GuaranteeCheck]) -> bool:
    return all(check.holds for check in checks)


def _certifier(program: "ProtocolProgram", multipliers: Multipliers) -> Certify:
    """The finish path's exact check starting from ``multipliers``: at weight 0 the
    multipliers themselves, at a weight ``w`` of a uniform mix the families' mixed ones, and
    for the fallback (``None``) none."""
    def certify(protocol: np.ndarray, weight: float | None) -> list[GuaranteeCheck]:
        if weight is None:
            return _run_checks(program, protocol, {})
        found = multipliers if weight == 0.0 else _mixed(program, multipliers, weight)
        return _run_checks(program, protocol, found)
    return certify


def _cheaper_repair(program: "ProtocolProgram", raw: np.ndarray, uniform: Finished,
                    multipliers: Multipliers, solver: str, options: Mapping[str, Any]
                    ) -> tuple[Repair, Finished, Multipliers] | None:
    """A repair cheaper than ``uniform`` (the one-weight uniform mix), if one is found.

    Only past :data:`TIGHTEN_ABOVE`. First (past :data:`SECRET_MIX_ABOVE`) the mix per secret
    toward the uniform protocol
    (:mod:`rldp_models.programs.secret_mix`, no solve) where the guarantees allow it; then,
    where the best so far still costs more than :func:`_worth_tightening` allows, the
    reference programs (:func:`reference_programs`) are solved once each, and the mix per
    secret toward their protocols and the uniform protocol, each reference ``R``'s own mix per
    secret toward the uniform protocol (where ``R``'s slack is about the solve's violations,
    as the margin reference's is, every mix toward ``R`` pays about the whole way), and the
    one-weight mix toward each ``R`` (:func:`_tightened_repair`) are tried. The cheapest is
    returned, or None if none beats ``uniform``.
    """
    if uniform.repair.method != "mix" or uniform.repair.relative_cost <= TIGHTEN_ABOVE:
        return None
    protocol, before = exact_stochastic_rows(raw), uniform.repair.value_before
    assert before is not None  # value= given
    tried: list[tuple[Repair, Finished, Multipliers]] = []

    def per_secret(references: list[Reference], names: list[str],
                   start: tuple[np.ndarray, Multipliers] | None = None,
                   start_name: str = "") -> None:
        """The mix per secret of ``start`` (default: the solve's protocol) toward
        ``references``; from a reference ``R`` (named ``start_name``), recorded as the mix of
        the solve's protocol toward ``U`` and ``R`` whose weights on each secret add up to 1."""
        matrix, own = (protocol, multipliers) if start is None else start
        value = before if start is None else program.objective.evaluate(matrix, program)
        found = secret_mix_repair(program, matrix, value, own, references,
                                  lambda given: _certifier(program, given), _all_hold,
                                  lambda checks: _first_weight(program, checks),
                                  lambda given, weight: {**given,
                                                         **_mixed(program, given, weight)})
        if found is not None and start is not None:
            weights = np.vstack([found[1], 1.0 - found[1].sum(axis=0)])
            tried.append((secret_repair(found[0], weights, [*names, start_name], before),
                          found[0], found[2]))
        elif found is not None:
            tried.append((secret_repair(found[0], found[1], names, before), found[0], found[2]))

    if uniform.repair.relative_cost > SECRET_MIX_ABOVE:
        per_secret([None], ["uniform"])
    cheapest = min(tried, key=lambda t: t[1].value, default=None)
    if _worth_tightening(uniform, program, None if cheapest is None else cheapest[0]):
        references = _references(program, solver, options)
        if references:
            per_secret([None, *(found for _, found in references)],
                       ["uniform", *(name for name, _ in references)])
        for name, found in references:
            per_secret([None], ["uniform"], found, name)
            one_weight = _tightened_repair(program, raw, uniform, multipliers, found, name)
            tried.extend([one_weight] if one_weight is not None else [])
    cheapest = min(tried, key=lambda t: t[1].value, default=None)
    if cheapest is None or cheapest[1].value >= uniform.value:
        return None
    return cheapest


def tightened_program(program: "ProtocolProgram",
                      tightening: float = TIGHTENING) -> "ProtocolProgram | None":
    """The same program with every guarantee block's eps multiplied by ``1 - tightening``.

    Each block is rebuilt from its own declaration (``type(block).from_parameters``
    of ``block.parameters()`` with ``eps`` replaced), so any block of the contract
    that declares a finite ``eps`` is tightened, and every other block (objective,
    ``forall`` blocks, ...) is kept as it is. None when no block declares one
    (e.g. eps = 0: nothing to tighten) or a block cannot be rebuilt.
    """
    constraints, changed = [], False
    for block in program.constraints:
        parameters = block.parameters() if isinstance(block, Block) else {}
        eps = parameters.get("eps")
        if isinstance(eps, (int, float)) and np.isfinite(eps) and eps > 0:
            try:
                block = type(block).from_parameters({**parameters,
                                                     "eps": float(eps) * (1.0 - tightening)})
            except (TypeError, ValueError):
                return None
            changed = True
        constraints.append(block)
    if not changed:
        return None
    return dataclasses.replace(program.snapshot(), constraints=constraints, eps=None,
                               parametric=False)


def reference_programs(program: "ProtocolProgram") -> list[tuple[str, "ProtocolProgram"]]:
    """The programs whose protocols the repair mixes toward, by the name the record gives
    them: ``"tightened"`` (:func:`tightened_program`) and, where a guarantee is proved by a
    set's conditional duals, ``"margin"``: the program with its conditional bounds kept
    :data:`~rldp_models.programs.components.CONDITIONAL_MARGIN` inside.

    The solver meets a conditional bound's rows only to its residual over ``P(s)``, so a
    rare secret's bounds come out optimistic, and a smaller eps leaves them so. Measured on
    V3 against the independent model (relative), Adult race x age in 11 bands (race "Other":
    0.8% of the records) / race x marital-status / race x workclass: +2.7e-5 / +1.9e-6 /
    +3.0e-6 with the tightened reference alone, +1.9e-6 / +1.4e-5 / +1.3e-5 with the margin
    one alone (its slack is about the violations, so every mix toward it pays about the
    whole way), +1.9e-6 / +9.0e-7 / +2.3e-6 with both. The margin is not in the program
    itself: on V6 over race x age it moved the solve's own value 1.1e-5 above the optimum.
    """
    found = []
    tightened = tightened_program(program)
    if tightened is not None:
        found.append(("tightened", tightened))
    if _proved_by_conditional_duals(program):
        found.append(("margin", dataclasses.replace(program.snapshot(), solver_margins=True,
                                                    parametric=False)))
    return found


def _references(program: "ProtocolProgram", solver: str, options: Mapping[str, Any]
                ) -> list[tuple[str, tuple[np.ndarray, Multipliers]]]:
    """The reference programs' protocols (:func:`reference_programs`, rounded to exact rows)
    and multipliers from ``solver`` with the caller's ``options``, by name; none where
    ``solver`` is not a registered name, and a program whose solve fails is left out."""
    if solver.lower() not in solvers.available():
        return []
    found = []
    for name, reference in reference_programs(program):
        try:
            answer = solvers.solve(reference, solver=solver, **options)
            if not answer.status.has_solution or "protocol" not in answer.primal:
                continue
            multipliers = _multiplier_values(reference, answer)
        except Exception:  # any failure of an extra solve: the other repairs stand
            continue
        found.append((name, (exact_stochastic_rows(np.clip(answer.primal["protocol"], 0.0,
                                                               None)), multipliers)))
    return found


@dataclass
class _MixedCertifier:
    """Exact checks of ``(1 - b) ((1 - a) P + a R) + b U`` for the tightened repair.

    ``a`` is ``toward`` (fixed), ``b`` the weight :func:`~rldp_models.finish.finish`
    passes. Each guarantee family is checked at the mixture of the two solves'
    multipliers (valid for the toolkit's robust families: Theorem 4's expression
    is jointly convex and positively homogeneous in ``(c, t)``, and the product
    form's bounds on conditional expectations mix linearly), mixed in turn with
    the uniform protocol's by the families' ``mixed_multipliers``, and where that
    fails at the check's own closed-form multipliers. Both checks are exact;
    ``proving`` keeps, per ``b``, the mixed multipliers of the families they proved.
    """

    program: "ProtocolProgram"
    own: Multipliers
    reference: Multipliers
    toward: float
    proving: dict[float, Multipliers] = field(default_factory=dict)

    def __call__(self, protocol: np.ndarray, weight: float | None) -> list[GuaranteeCheck]:
        weight = 0.0 if weight is None else weight
        mixed = _mix_multipliers(self.own, self.reference, self.toward)
        if weight > 0.0:
            mixed = {**mixed, **_mixed(self.program, mixed, weight)}
        checks, proving = [], {}
        for family in self.program.guarantees:
            check = family.check(protocol, self.program, mixed)
            if check.holds:
                proving.update(_groups_of(family.name, mixed))
            elif mixed:
                check = family.check(protocol, self.program, {})
            checks.append(check)
        self.proving[weight] = proving
        return checks


TIGHTENED_TRIES = 6
"""At most this many weights on the tightened reference (doubling from the predicted
one, while the certified objective improves)."""


def _worth_tightening(finished: Finished, program: "ProtocolProgram",
                      repair: Repair | None = None) -> bool:
    """Whether a mix (``repair``, by default ``finished``'s) cost more than
    :data:`TIGHTEN_ABOVE` of the objective (:data:`TIGHTEN_LARGE_ABOVE` past
    :data:`LARGE_PROGRAM_CELLS` protocol cells, :data:`TIGHTEN_CONDITIONAL_ABOVE` for
    guarantees proved by conditional duals)."""
    repair = finished.repair if repair is None else repair
    if repair.method != "mix" or repair.value_before is None or repair.value_after is None:
        return False
    above = TIGHTEN_LARGE_ABOVE if finished.matrix.size > LARGE_PROGRAM_CELLS else TIGHTEN_ABOVE
    if _proved_by_conditional_duals(program):
        above = max(above, TIGHTEN_CONDITIONAL_ABOVE)
    return repair.relative_cost > above


def _proved_by_conditional_duals(program: "ProtocolProgram") -> bool:
    """Whether a guarantee is proved through a set's conditional duals (product form over a
    set with ``CONDITIONAL_DUAL``: a set from data).

    Such a guarantee's uniform repair is usually cheap, and the tightened reference does
    not beat it (so it is tried only above :data:`TIGHTEN_CONDITIONAL_ABOVE`): the repair's
    margin is the solver's residual on the derived dual's ``b.y <= 0`` divided by ``P(s)``
    (V6 at 5x11: ``b.y`` about 1.7e-9, margin 1e-8, uniform weight 1.2e-7, cost 1.9e-7 of
    the objective), which the tightened program's solve has as well; and each mix it tries
    is proved afresh, one Charnes-Cooper solve per term. Measured on V6 at 5x11: the extra
    solve and its six mixes took 165 of 286 s and the uniform repair stood.
    """
    for family in program.guarantees:
        if not getattr(family, "robust", False):
            continue
        try:
            found = robust_set(getattr(family, "over", None), program.uncertainty)
        except InputError:
            continue
        if Capability.CONDITIONAL_DUAL in found.capabilities:
            return True
    return False


def _tightened_repair(program: "ProtocolProgram", raw: np.ndarray, uniform: Finished,
                      multipliers: Multipliers, found: tuple[np.ndarray, Multipliers],
                      name: str = "tightened") -> tuple[Repair, Finished, Multipliers] | None:
    """The mix toward a reference program's protocol (``found``: it and its solver's
    multipliers, :func:`_references`; ``name``: the record's), its finished matrix and the
    multipliers proving it, when it is certified exactly and costs less than ``uniform``
    (the uniform protocol's mix); else None.

    The first weight ``a`` comes from the exact margins of the unmixed protocol and
    of the reference (:func:`~rldp_models.finish.mixing_weight`); what ``a`` leaves
    failing (constraints where the reference has no slack) is finished by the
    ordinary uniform mix. ``a`` doubles while the certified objective improves.
    """
    reference, reference_multipliers = found
    first = _reference_weight(
        _MixedCertifier(program, multipliers, reference_multipliers, 0.0)(
            exact_stochastic_rows(raw), 0.0),
        _MixedCertifier(program, multipliers, reference_multipliers, 1.0)(reference, 0.0))
    best: tuple[float, float, Finished, Multipliers] | None = None  # value, a, finished, proof
    weight = min(1.0, PREDICTION_SAFETY * first)
    for _ in range(TIGHTENED_TRIES if first > 0.0 else 0):
        certify = _MixedCertifier(program, multipliers, reference_multipliers, weight)
        try:
            finished = _finish_mix(program, (1.0 - weight) * raw + weight * reference, certify)
        except GuaranteeError:
            finished = None
        if finished is not None:
            if best is not None and finished.value >= best[0]:
                break
            best = (finished.value, weight, finished,
                    certify.proving[finished.repair.weight])
        if weight >= 1.0:
            break
        weight = min(1.0, 2.0 * weight)
    if best is None or best[0] >= uniform.value:
        return None
    value, weight, finished, proving = best
    assert uniform.repair.value_before is not None  # value= given
    repair = Repair("mix", weight, uniform.repair.value_before, value, name,
                    finished.repair.weight)
    return repair, finished, proving


def _finish_mix(program: "ProtocolProgram", mixed: np.ndarray,
                certify: _MixedCertifier) -> Finished:
    """``mixed`` rounded and checked exactly, mixed with the uniform protocol if it fails."""
    objective = program.objective
    return finish(mixed, certify, _all_hold,
                  value=lambda protocol: objective.evaluate(protocol, program),
                  first_weight=lambda checks: _first_weight(program, checks))


def _mix_multipliers(own: Multipliers, reference: Multipliers, weight: float) -> Multipliers:
    """``(1 - weight) own + weight reference``, group by group, where both solves have the
    group with the same names and shapes."""
    mixed = {}
    for group, values in own.items():
        other = reference.get(group, {})
        if set(other) != set(values) or any(np.shape(values[key]) != np.shape(other[key])
                                            for key in values):
            continue
        mixed[group] = {key: (1.0 - weight) * np.asarray(values[key], dtype=float)
                        + weight * np.asarray(other[key], dtype=float) for key in values}
    return mixed


def _reference_weight(checks: list[GuaranteeCheck],
                      reference_checks: list[GuaranteeCheck]) -> float:
    """The weight on the reference that each failed check's margins need where the
    reference has slack (the largest; 0.0 when it helps nowhere)."""
    return max((mixing_weight(check.margins, reference.margins)
                for check, reference in zip(checks, reference_checks) if not check.holds),
               default=0.0)


def _groups_of(name: str, multipliers: Multipliers) -> Multipliers:
    """The groups of the block named ``name`` (``name``, ``name[...]``, ``name/...``)."""
    return {group: values for group, values in multipliers.items()
            if group == name or group.startswith((name + "[", name + "/"))}


def _without_guarantee_groups(program: "ProtocolProgram",
                              multipliers: Multipliers) -> Multipliers:
    """``multipliers`` without the guarantee blocks' groups (they proved the solver's
    protocol, not a mix with another reference)."""
    dropped = {group for family in program.guarantees
               for group in _groups_of(family.name, multipliers)}
    return {group: values for group, values in multipliers.items() if group not in dropped}


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
    found.update(program.objective.certificate_multipliers(protocol, program,
                                                                          multipliers))
    return found
