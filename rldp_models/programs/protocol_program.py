"""Declarative protocol programs ``P(Y | S, U)`` and their solutions.

A :class:`ProtocolProgram` is an objective plus constraint families (see
:mod:`rldp_models.programs.components`) over one crosstab, one distortion and
one output alphabet. It emits itself as a cvxpy model (always) or a Pyomo
model (when every block is linear), is solved through the solver registry, and
returns a :class:`ProtocolSolution` whose protocol has been checked exactly —
and repaired if the solver's answer missed the guarantee by a hair.
"""

from __future__ import annotations

import copy as _copy
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Sequence

import cvxpy as cp
import numpy as np

import solvers
from rldp_models.data import Crosstab
from rldp_models.distortion import distortion_matrix
from rldp_models.errors import InputError
from rldp_models.programs.components import ConstraintFamily, Objective, RowStochastic
from rldp_models.programs.conic_form import conic_program
from rldp_models.programs.context import BuildContext, ProblemData
from rldp_models.uncertainty.base import UncertaintySet
from rldp_models.uncertainty.chi_square import ChiSquareSet

if TYPE_CHECKING:
    from rldp_models.programs.solution import ProtocolSolution


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
    eps : float
        The privacy level, reported with results.
    name : str
    parametric : bool
        Build the cvxpy model with parameters so :meth:`update` can change the
        data and re-solve without rebuilding (for sweeps).
    """

    crosstab: Crosstab
    objective: Objective
    constraints: Sequence[ConstraintFamily]
    uncertainty: UncertaintySet | None = None
    distortion: str | np.ndarray = "squared"
    outputs: Sequence[str] | None = None
    eps: float = 0.0
    name: str = "custom"
    parametric: bool = False
    _context: BuildContext | None = field(default=None, init=False, repr=False)
    _model: solvers.CvxpyModel | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        if not np.isfinite(self.eps) or self.eps < 0:
            raise InputError(f"eps must be a finite number >= 0, got {self.eps}")
        self.outputs = tuple(self.crosstab.u_labels if self.outputs is None
                             else (str(y) for y in self.outputs))
        if len(self.outputs) < 1:
            raise InputError("the output alphabet must not be empty")
        self.distortion_matrix = distortion_matrix(self.distortion, self.crosstab, self.outputs)
        robust = self.objective.robust or any(c.robust for c in self.constraints)
        if robust and self.uncertainty is None:
            raise InputError(f"{self.name}: robust blocks need an uncertainty set")

    # ------------------------------------------------------------------ data
    @property
    def is_robust(self) -> bool:
        return self.objective.robust or any(c.robust for c in self.constraints)

    def problem_data(self) -> ProblemData:
        radius = self.uncertainty.radius if self.uncertainty is not None else 0.0
        return ProblemData.from_phat(self.crosstab.phat, radius)

    # ------------------------------------------------------------------ emitters
    def to_cvxpy(self) -> solvers.CvxpyModel:
        """The program as a cvxpy problem with named variables and constraint groups."""
        if self._model is None:
            context = BuildContext(self.crosstab, tuple(self.outputs), self.distortion_matrix,
                                   self.problem_data(), self.parametric,
                                   uncertainty=self.uncertainty)
            objective = self.objective.build(context)
            for family in (RowStochastic(), *self.constraints):
                family.build(context)
            problem = cp.Problem(cp.Minimize(objective),
                                 [c for group in context.constraints.values() for c in group])
            self._context = context
            self._model = solvers.CvxpyModel(problem, context.variables, context.constraints)
        return self._model

    def to_pyomo(self) -> solvers.PyomoModel:
        """The program as a Pyomo LP; only for programs whose blocks are all linear."""
        from rldp_models.programs.pyomo_emitter import emit_pyomo

        if self.is_robust:
            raise solvers.UnsupportedModelError(
                f"{self.name} has conic (robust) blocks and cannot be written as a Pyomo LP; "
                f"use a conic solver: {', '.join(solvers.available('cvxpy'))}")
        return emit_pyomo(self)

    # ------------------------------------------------------------------ sweeps
    def update(self, crosstab: Crosstab, uncertainty: UncertaintySet | None = None) -> None:
        """Swap in new counts (and set) and keep the built model when its shape allows.

        Without ``uncertainty``, the chi-square set is rebuilt from the new counts
        at the current set's ``alpha``.

        A parametric model keeps its compiled form unless the set of secrets
        without records changes (nominal privacy has another shape then).
        """
        if crosstab.shape != self.crosstab.shape:
            raise InputError("update needs a crosstab of the same shape")
        old_zero = self.problem_data().zero_secrets
        if uncertainty is None and self.uncertainty is not None:
            if self.uncertainty.alpha is None or not isinstance(self.uncertainty, ChiSquareSet):
                raise InputError("update needs a new uncertainty set: the current one is not "
                                 "a chi-square set with an alpha to recalibrate from")
            uncertainty = ChiSquareSet.from_counts(crosstab.counts, self.uncertainty.alpha)
        self.crosstab, self.uncertainty = crosstab, uncertainty
        data = self.problem_data()
        # only the chi-square blocks read their data through parameters; other sets rebuild
        baked_in = uncertainty is not None and not isinstance(uncertainty, ChiSquareSet)
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
    def solve(self, solver: str = solvers.DEFAULT_SOLVER, **options: Any) -> "ProtocolSolution":
        """Solve, check the guarantee exactly, repair if needed.

        Parameters
        ----------
        solver : str
            Registry name (:func:`solvers.available`).
        **options
            Passed to the solver.
        """
        from rldp_models.programs.solution import finish_solution

        result = solvers.solve(self, solver=solver, **options)
        return finish_solution(self, result)

    def to_conic(self) -> solvers.ConicProgram:
        """The program in canonical conic form (:mod:`rldp_models.programs.conic_form`)."""
        return conic_program(self)

    def multipliers(self) -> dict[str, dict[str, cp.Variable]]:
        """Named multiplier variables of the robust blocks (after :meth:`to_cvxpy`)."""
        self.to_cvxpy()
        assert self._context is not None
        return self._context.multipliers
