"""A solved protocol program (:class:`~rldp_models.programs.solution.ProtocolSolution`)
as a :class:`~rldp_models.results.certified.CertifiedResult`.

The declaration lists every block of the program (objective and constraint
families, :mod:`rldp_models.results.blocks`) and the uncertainty set with all
its parameters, so ``rldp verify`` can rebuild any variant made of registered
blocks — a preset, RURP over a box set, or a program with a plug-in block.
"""

from __future__ import annotations


from rldp_models.finish import Repair
from rldp_models.optimality.best_claim import solution_optimality
from rldp_models.programs.contract import Problem
from rldp_models.programs.protocol_program import ProtocolProgram
from rldp_models.programs.solution import ProtocolSolution
from rldp_models.results.blocks import block_declaration, radius_origin, registered_blocks
from rldp_models.results.certificate_record import CertificateRecord, conic_kind
from rldp_models.results.certified import (
    CertifiedResult,
    Declaration,
    GuaranteeVerdict,
    SolverRecord,
)
from rldp_models.results.files import GuaranteeFailed
from rldp_models.results.json_ready import jsonable
from rldp_models.uncertainty.declared import set_declaration


def program_certificate(solution: ProtocolSolution) -> CertificateRecord:
    """``chi-square-conic`` (a set with exact pair projections, or no set), or ``set-conic``.

    The multipliers are the solver's (as the solution keeps them) and what each
    block records beyond them (its ``recorded_multipliers``: over a set without
    exact pair projections, robust privacy's proved product-form bounds).
    """
    program = solution.program
    multipliers = dict(solution.multipliers)
    if solution.protocol is not None:
        problem = Problem(program.crosstab, program.uncertainty, program.distortion_matrix,
                          tuple(program.output_labels), solution.objective)
        for family in program.constraints:
            multipliers.update(family.recorded_multipliers(solution.protocol, problem,
                                                           solution.multipliers))
    return CertificateRecord(conic_kind(program.uncertainty),
                             {"multipliers": multipliers, "duals": solution.result.dual,
                              "optimality": solution_optimality(solution)})


def program_declaration(program: ProtocolProgram, radius_from: str | None = None) -> Declaration:
    """Blocks with their parameters, the set with all of its, and the program's options."""
    blocks = [block_declaration(program.objective, "objective"),
              *(block_declaration(family, "constraint") for family in program.constraints)]
    if radius_from is None and program.uncertainty is not None:
        radius_from = radius_origin(program.uncertainty)
    distortion = program.distortion if isinstance(program.distortion, str) else "matrix"
    return Declaration("program", program.name, blocks,
                       set_declaration(program.uncertainty, radius_from),
                       {"distortion": distortion, "outputs": list(program.outputs or ())})


def program_guarantees(solution: ProtocolSolution) -> tuple[GuaranteeVerdict, ...]:
    """Every guarantee block's exact check, named by its block and its source; its detail
    names the worst constraint's output and secrets, and a restricted guarantee's pairs, by
    their labels."""
    program = solution.program
    secrets, outputs = program.crosstab.s_labels, program.output_labels
    known = registered_blocks()
    verdicts = []
    for family, check in zip(program.guarantees, solution.checks):
        entry = known.get(type(family).__name__)
        source = entry.source if entry is not None and entry.cls is type(family) \
            else "unregistered"
        verdicts.append(GuaranteeVerdict(
            str(check.kind), float(check.eps), bool(check.holds),
            check.summary(secrets, outputs) + family.scope(secrets, outputs),
            family.name, source))
    return tuple(verdicts)


def solution_result(solution: ProtocolSolution,
                    radius_from: str | None = None) -> CertifiedResult:
    """The certified result of a solved program (the solution's one form on its way to disk).

    Parameters
    ----------
    solution : ProtocolSolution
    radius_from : str, optional
        How the set's radius was chosen (``"alpha"``: calibrated from its
        alpha, re-derived by ``rldp verify``; ``"given"``); default from the set.
    """
    if solution.protocol is None:
        raise GuaranteeFailed(f"{solution.program.name}: the solver returned "
                              f"{solution.status.value}; no protocol")
    program, repair = solution.program, solution.repair
    crosstab, uncertainty = program.crosstab, program.uncertainty
    worst = "worst-case " if program.objective.robust else ""
    distortion = program.distortion if isinstance(program.distortion, str) else "matrix"
    labels = jsonable({"S": list(crosstab.s_labels), "U": list(crosstab.u_labels),
                       "Y": list(program.output_labels)})
    timings = solution.result.timings
    return CertifiedResult(
        "solve", solution.protocol, [[s, u] for s in labels["S"] for u in labels["U"]],
        labels["Y"],
        {"measure": f"{worst}expected {distortion} distortion", "value": solution.objective,
         "sense": "min"},
        program_guarantees(solution), program_certificate(solution).to_json(),
        Repair("none", 0.0, solution.objective, solution.objective) if repair is None
        else repair,
        program_declaration(program, radius_from),
        SolverRecord(solution.result.solver, solution.status.value,
                     {"build": timings.build_seconds, "solve": timings.solve_seconds}),
        crosstab,
        jsonable({"problem": program.name, "status": solution.status.value,
                  "objective": solution.objective,
                  "solver_objective": solution.result.objective,
                  "alpha": None if uncertainty is None else uncertainty.alpha,
                  "n": crosstab.n,
                  "radius_B": None if uncertainty is None else uncertainty.radius,
                  "solver": solution.result.solver, "solve_seconds": timings.solve_seconds,
                  "build_seconds": timings.build_seconds,
                  "distortion_matrix": program.distortion_matrix, "labels": labels}))
