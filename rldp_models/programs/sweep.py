"""Solving one program on many data sets, building the model once (the sweep fast path).

With ``"clarabel-direct"`` (the default for the presets: the program's
default backend, :mod:`rldp_models.programs.backend_choice`) the canonical
conic form (:mod:`rldp_models.programs.conic_form`) is refilled in place and
the kept Clarabel solver takes the new numbers. With a cvxpy solver
(``"clarabel"``) the model is built with cvxpy parameters (DPP) for the data it
reads — ``Phat``, the conditionals, ``B + 1``, ``rho`` — so each new data set
only updates parameter values and re-solves the compiled problem. Either model is rebuilt only when
the set of secrets without records changes (the model has another shape then).
"""

from __future__ import annotations

from typing import Any, Iterable, Iterator

import solvers

from rldp_models.data import Crosstab
from rldp_models.programs.backend_choice import default_solver
from rldp_models.programs.conic_form import forget_conic_program
from rldp_models.programs.presets import preset
from rldp_models.programs.solution import ProtocolSolution, finish_solution
from rldp_models.uncertainty.chi_square import ChiSquareSet


def sweep(problem: str, crosstabs: Iterable[Crosstab], eps: float, alpha: float = 0.05,
          solver: str | None = None, certify: bool = True,
          **options: Any) -> Iterator[ProtocolSolution]:
    """Solve ``problem`` on each crosstab in turn, reusing the compiled model.

    Parameters
    ----------
    problem : {"NUNP", "NURP", "RUNP", "RURP"}
    crosstabs : iterable of Crosstab
        All of one shape.
    eps, alpha : float
    solver : str, optional
        ``"clarabel-direct"`` (conic form refilled in place) or ``"clarabel"``
        (cvxpy parameters); any registered conic solver works. Default: the
        program's default backend.
    certify : bool
        Round, check exactly and repair each protocol (as :meth:`ProtocolProgram.solve`
        does). With ``False`` the solutions carry the solver's raw result only.
    **options
        ``distortion``, ``outputs``.

    Yields
    ------
    ProtocolSolution
    """
    program = None
    for crosstab in crosstabs:
        uncertainty = ChiSquareSet.from_counts(crosstab.counts, alpha)
        if program is None:
            program = preset(problem, crosstab, eps, alpha, uncertainty=uncertainty,
                             parametric=True, **options)
        else:
            program.update(crosstab, uncertainty)
        solver = solver or default_solver(program)
        result = solvers.solve(program, solver=solver)
        solution = finish_solution(program, result, solver) if certify else \
            ProtocolSolution(program, result)
        solution.program = program.snapshot()
        forget_conic_program(solution.program)  # the kept conic model is refilled next
        yield solution
