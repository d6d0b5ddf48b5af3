"""Declarative protocol programs ``P(Y | S, U)`` and their solutions.

A :class:`ProtocolProgram` is an objective plus constraint families (see
:mod:`rldp_models.programs.components`, and the contract they follow,
:mod:`rldp_models.programs.contract`) over one crosstab, one distortion and
one output alphabet. It emits itself as a cvxpy model (always), in the direct
conic form (when every block provides its rows) or as a Pyomo LP (when every
block is linear), is solved through the solver registry — by default with the
fastest backend its blocks allow (:mod:`rldp_models.programs.backend_choice`) —
and returns a :class:`ProtocolSolution` whose protocol has been checked exactly,
and repaired if the solver's answer missed the guarantee by a hair.
"""

from __future__ import annotations

import copy as _copy
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

import solvers
from rldp_models.data import Crosstab
from rldp_models.distortion import distortion_matrix
from rldp_models.errors import InputError
from rldp_models.programs.backend_choice import default_solver
from rldp_models.programs.components import RowStochastic
from rldp_models.programs.conic_form import conic_program, program_blocks
from rldp_models.programs.context import BuildContext, ProblemData
from rldp_models.programs.contract import (
    ConstraintFamily,
    GuaranteeFamily,
    Objective,
    guarantee_families,
    program_eps,
)
from rldp_models.programs.solution import ProtocolSolution, finish_solution
from rldp_models.uncertainty.base import Capability, UncertaintySet
from rldp_models.uncertainty.named import named_set

if TYPE_CHECKING:
    import cvxpy as cp


CLARABEL_TIGHT = {"tol_gap_abs": 1e-10, "tol_gap_rel": 1e-10, "tol_feas": 1e-10,
                  "reduced_tol_gap_abs": 1e-8, "reduced_tol_gap_rel": 1e-8,
                  "reduced_tol_feas": 1e-8, "reduced_tol_ktratio": 1e-6}
"""Clarabel's tolerances for a program solved through cvxpy with no options of the caller's:
those the direct backend gives small programs (``solvers.backends.clarabel_direct``). At
Clarabel's defaults (1e-8) the returned protocol of V1 on Adult race x marital-status
(objective 0.0118) was 7.5e-5 (relative) above the optimum, with a proven gap of 1.06e-6;
at 1e-10 it is 1.8e-6 above it, in 0.17 s against 0.2 s.

Its "almost solved" tolerances are the defaults' full ones, so a solve that stops short of
1e-10 ("optimal but inaccurate") still meets what the defaults' solve would. It is finished
and kept unless its repair is costly; then the defaults' solve is finished too, and the lower
certified objective kept (:data:`CLARABEL_ATTEMPTS`).
Neither wins everywhere: V3 on Adult race x marital-status stops so at 1e-10, and the
defaults' optimal solve left product-form privacy violated by 8e-6 (its repaired objective
3.6e-3 above the optimum against 5.8e-5); V5 on Adult race x education also stops so, and
there the defaults' solve finishes 1.9e-5 lower."""

CLARABEL_SHORTER_STEPS = {"max_step_fraction": 0.9}
"""Clarabel's options for a further solve when the others stop without a solution: steps to
90% of the way to the cone boundary, not 99%. With few records the sets' radii are large
and the exponential cones of a KL ball's dual (V2 on a 5x14 table of 43 records, KL radius
1.04, chi-square B = 2.07) are met near their boundary, where Clarabel's step length fell to
0 ("insufficient progress" at iteration 15); at 0.9 it solves in 41 iterations. The same
table with ten times the counts solves at the defaults."""

SECOND_FINISH_ABOVE = 1e-5
"""Relative repair cost of an almost-solved tight solve's finished protocol above which the
next attempt (Clarabel's defaults) is solved and finished too, and the lower certified
objective kept (:data:`CLARABEL_ATTEMPTS`); below it the second cannot gain more than
issue 33's window, and each finish re-proves every guarantee (over a minute for V6 at 5x11)."""

CLARABEL_ATTEMPTS: tuple[dict[str, float], ...] = (CLARABEL_TIGHT, {}, CLARABEL_SHORTER_STEPS)
"""Clarabel's settings for a program given no options, in order, until a solve ends optimal,
or almost solved within the defaults' tolerances (:data:`CLARABEL_TIGHT`) with a repair
costing at most :data:`SECOND_FINISH_ABOVE` (``ProtocolProgram._clarabel_at_its_best``)."""


def _repair_share(solution: ProtocolSolution) -> float:
    """What a finished solution's repair cost, relative to its objective (inf: no protocol)."""
    if solution.objective is None:
        return math.inf
    return 0.0 if solution.repair is None else solution.repair.relative_cost


def _certified_value(solution: ProtocolSolution) -> float:
    """A finished solution's certified objective (every program minimises); no protocol
    ranks last."""
    return math.inf if solution.objective is None else float(solution.objective)


def _within_default_tolerances(attempt: dict[str, float]) -> bool:
    """Whether Clarabel's "almost solved" under ``attempt`` meets its default tolerances."""
    return all(attempt.get(f"reduced_tol_{name}", 1.0) <= 1e-8
               for name in ("gap_abs", "gap_rel", "feas"))


def _check_contract(objective: Any, constraints: Sequence[Any]) -> None:
    """Reject blocks that do not derive from the contract's classes (one-line input error)."""
    if not isinstance(objective, Objective):
        raise InputError(f"{type(objective).__name__} is not an objective: derive it from "
                         f"rldp_models.programs.contract.Objective")
    for block in constraints:
        if not isinstance(block, ConstraintFamily):
            raise InputError(f"{type(block).__name__} is not a constraint family: derive it "
                             f"from rldp_models.programs.contract.ConstraintFamily")


@dataclass
class ProtocolProgram:
    """An optimisation problem over release protocols ``P(Y=y | S=s, U=u)``.

    Parameters
    ----------
    crosstab : Crosstab
        Counts of the public data set; ``Phat`` is their empirical distribution.
    objective : Objective
        E.g. :class:`~rldp_models.programs.components.NominalDistortion`.
    constraints : sequence of ConstraintFamily
        Row-stochasticity is always added.
    uncertainty : UncertaintySet, optional
        Needed by robust blocks: a chi-square set or any set following
        :class:`rldp_models.uncertainty.base.UncertaintySet`.
    distortion : str or ndarray
        ``"squared"``, ``"absolute"``, ``"hamming"`` or a ``(|U|, |Y|)`` matrix.
    outputs : sequence of str, optional
        Output alphabet; default the U labels.
    eps : float, optional
        The privacy level reported with results. Derived from the guarantee
        blocks when not given; when given it must be one of theirs
        (:func:`~rldp_models.programs.contract.program_eps`).
    name : str
    parametric : bool
        Build the cvxpy model with parameters so :meth:`update` can change the
        data and re-solve without rebuilding (for sweeps).
    solver_margins : bool
        Build conditional bounds proved by a set's conditional duals with
        :data:`~rldp_models.programs.components.CONDITIONAL_MARGIN` (the repair's reference
        solve does: :func:`~rldp_models.programs.solution.reference_programs`); the program a
        record names has none.
    """

    crosstab: Crosstab
    objective: Objective
    constraints: Sequence[ConstraintFamily]
    uncertainty: UncertaintySet | None = None
    distortion: str | np.ndarray = "squared"
    outputs: Sequence[str] | None = None
    eps: float | None = None  # a float after __post_init__
    name: str = "custom"
    parametric: bool = False
    solver_margins: bool = False
    _context: BuildContext | None = field(default=None, init=False, repr=False)
    _model: solvers.CvxpyModel | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        _check_contract(self.objective, self.constraints)
        self.eps = program_eps(self.constraints, self.eps)
        if not np.isfinite(self.eps) or self.eps < 0:
            raise InputError(f"eps must be a finite number >= 0, got {self.eps}")
        self.outputs = tuple(self.crosstab.u_labels if self.outputs is None
                             else (str(y) for y in self.outputs))
        if len(self.outputs) < 1:
            raise InputError("the output alphabet must not be empty")
        self.distortion_matrix = distortion_matrix(self.distortion, self.crosstab, self.outputs)
        if self.uncertainty is None and any(block.needs_program_set()
                                            for block in (self.objective, *self.constraints)):
            raise InputError(f"{self.name}: robust blocks need an uncertainty set (the "
                             f"program's uncertainty=, or the block's own over=)")

    # ------------------------------------------------------------------ data
    @property
    def is_robust(self) -> bool:
        return self.objective.robust or any(c.robust for c in self.constraints)

    @property
    def output_labels(self) -> tuple[str, ...]:
        """The output alphabet (``outputs``, or the U labels by default)."""
        assert self.outputs is not None  # set by __post_init__
        return tuple(self.outputs)

    @property
    def guarantees(self) -> list[GuaranteeFamily]:
        """The blocks that state a guarantee (checked exactly; the result records them)."""
        return guarantee_families(self.constraints)

    def capabilities(self) -> frozenset[Capability]:
        """What every block of the program provides over its set (the forms it can take)."""
        common = frozenset(Capability)
        for block in program_blocks(self):
            common &= block.capabilities(self.uncertainty)
        return common

    def solver_forms(self) -> frozenset[str]:
        """The registry's model forms this program can be emitted as (:func:`solvers.fastest`)."""
        offered = self.capabilities()
        return frozenset({"cvxpy"}
                         | ({"conic"} if Capability.DIRECT_CONIC in offered else set())
                         | ({"pyomo"} if Capability.LINEAR in offered else set()))

    def refusal(self, solver: str) -> str | None:
        """Why the registry's ``solver`` cannot take this program, in one line, or None.

        Not available here (e.g. MOSEK without its package or licence), a model form
        the program cannot be emitted as (HiGHS takes linear programs only), or cones
        the solver lacks (asked of the cvxpy model).
        """
        availability = solvers.describe().get(solver.lower())
        if availability is None or not availability.ok:
            return f"{solver}: {availability.reason if availability else 'not registered'}"
        backend = solvers.get(solver)
        if backend.form not in self.solver_forms():
            return f"{solver} takes {backend.form} models; the program has no {backend.form} " \
                f"form ({'not linear' if backend.form == 'pyomo' else 'a block lacks it'})"
        lacking = getattr(backend, "refusal", None)  # a cvxpy backend names missing cones
        return lacking(self.to_cvxpy()) if callable(lacking) and backend.form == "cvxpy" \
            else None

    def problem_data(self) -> ProblemData:
        radius = self.uncertainty.radius if self.uncertainty is not None else 0.0
        return ProblemData.from_phat(self.crosstab.phat, radius)

    # ------------------------------------------------------------------ emitters
    def to_cvxpy(self) -> solvers.CvxpyModel:
        """The program as a cvxpy problem with named variables and constraint groups."""
        import cvxpy as cp  # here, not at the top: rldp solve's default path never needs cvxpy

        if self._model is None:
            context = BuildContext(self.crosstab, self.output_labels, self.distortion_matrix,
                                   self.problem_data(), self.parametric,
                                   uncertainty=self.uncertainty,
                                   solver_margins=self.solver_margins)
            objective = self.objective.build(context)
            for family in (RowStochastic(), *self.constraints):
                family.build(context)
            problem = cp.Problem(cp.Minimize(objective),
                                 [c for group in context.constraints.values() for c in group])
            self._context = context
            self._model = solvers.CvxpyModel(problem, context.variables, context.constraints)
        return self._model

    def to_pyomo(self) -> solvers.PyomoModel:
        """The program as a Pyomo LP; only when every block has a linear form over the set
        (:mod:`rldp_models.programs.linear_form`)."""
        # The one place a Pyomo model is built: importing linear_form (and so Pyomo, ~0.3 s
        # CPU) here keeps it off the default path (direct conic form), which never needs it.
        from rldp_models.programs.linear_form import pyomo_model

        return pyomo_model(self)

    # ------------------------------------------------------------------ sweeps
    def update(self, crosstab: Crosstab, uncertainty: UncertaintySet | None = None) -> None:
        """Swap in new counts (and set) and keep the built model when its shape allows.

        Without ``uncertainty``, the current set is recalibrated from the new
        counts at its ``alpha`` (:func:`rldp_models.uncertainty.named_set`).

        A parametric model keeps its compiled form unless the set of secrets
        without records changes (nominal privacy has another shape then).
        """
        if crosstab.shape != self.crosstab.shape:
            raise InputError("update needs a crosstab of the same shape")
        if any(block.own_sets() for block in (self.objective, *self.constraints)):
            raise InputError("update cannot recalibrate the sets blocks name themselves "
                             "(over=): build the program again around the new counts")
        old_zero = self.problem_data().zero_secrets
        if uncertainty is None and self.uncertainty is not None:
            if self.uncertainty.alpha is None:
                raise InputError("update needs a new uncertainty set: the current one has no "
                                 "alpha to recalibrate from")
            uncertainty = named_set(self.uncertainty.name, crosstab, self.uncertainty.alpha)
        self.crosstab, self.uncertainty = crosstab, uncertainty
        data = self.problem_data()
        # only sets whose counterpart reads parameters are refilled; the others rebuild
        baked_in = uncertainty is not None and \
            Capability.PARAMETRIC not in uncertainty.capabilities
        if not self.parametric or self._context is None or data.zero_secrets != old_zero \
                or baked_in:
            self._model, self._context = None, None
            return
        self._context.data, self._context.uncertainty = data, uncertainty
        for name, parameter in self._context.parameters.items():
            parameter.value = getattr(data, name)

    def snapshot(self) -> "ProtocolProgram":
        """A copy of the declaration and data, detached from the built model."""
        copy = _copy.copy(self)
        copy._model, copy._context = None, None
        return copy

    # ------------------------------------------------------------------ solving
    def solve(self, solver: str | None = None, **options: Any) -> ProtocolSolution:
        """Solve, check the guarantee exactly, repair if needed.

        Parameters
        ----------
        solver : str, optional
            Registry name (:func:`solvers.available`). Default: the fastest
            backend the program's blocks allow
            (:func:`~rldp_models.programs.backend_choice.default_solver`; a
            one-line note on stderr when that is not the fastest path).
        **options
            Passed to the solver. Clarabel given none is tried with
            :data:`CLARABEL_ATTEMPTS` in turn.
        """
        solver = solver or default_solver(self)
        if solver == "clarabel" and not options:
            return self._clarabel_at_its_best()
        result = solvers.solve(self, solver=solver, **options)
        return finish_solution(self, result, solver, options)

    def _clarabel_at_its_best(self) -> ProtocolSolution:
        """Solved with :data:`CLARABEL_ATTEMPTS` in turn, each finished right after its solve
        (the robust blocks' multipliers are read from the model's variables, which the next
        solve overwrites).

        An optimal solve is returned (or the lower certified objective of it and an
        almost-solved one before it); an almost-solved one within the defaults' tolerances
        is returned when its repair cost at most :data:`SECOND_FINISH_ABOVE` of its
        objective, else the next attempt is made. With neither, the first solve with a
        solution is finished, else the last.
        """
        best: ProtocolSolution | None = None
        tried: list[tuple[solvers.SolveResult, dict[str, Any]]] = []
        for attempt in CLARABEL_ATTEMPTS:
            result = solvers.solve(self, solver="clarabel", **attempt)
            optimal = result.status is solvers.Status.OPTIMAL
            if optimal or (result.status.has_solution and _within_default_tolerances(attempt)):
                finished = finish_solution(self, result, "clarabel", dict(attempt))
                if best is None or _certified_value(finished) < _certified_value(best):
                    best = finished
                if optimal or _repair_share(best) <= SECOND_FINISH_ABOVE:
                    return best
            tried.append((result, dict(attempt)))
        if best is not None:
            return best
        result, attempt = next((t for t in tried if t[0].status.has_solution), tried[-1])
        return finish_solution(self, result, "clarabel", attempt)

    def to_conic(self) -> solvers.ConicProgram:
        """The program in canonical conic form (:mod:`rldp_models.programs.conic_form`)."""
        return conic_program(self)

    def multipliers(self) -> dict[str, dict[str, cp.Expression]]:
        """Named multiplier variables of the robust blocks (after :meth:`to_cvxpy`)."""
        self.to_cvxpy()
        assert self._context is not None
        return self._context.multipliers
