"""Result files of ``rldp solve`` (the JSON contract of DESIGN.md) and reading them back."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from rldp_models.certificates.record import CertificateRecord
from rldp_models.errors import InputError

if TYPE_CHECKING:
    from rldp_models.programs.solution import ProtocolSolution

REQUIRED_KEYS = ("problem", "status", "objective", "eps", "alpha", "n", "radius_B", "solver",
                 "solve_seconds", "labels", "protocol", "certificate")


def jsonable(value: Any) -> Any:
    """``value`` as JSON-ready Python data: arrays to lists, dataclasses to dicts, numpy
    scalars to Python numbers, non-finite floats to strings (``"inf"``)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return jsonable(dataclasses.asdict(value))
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return jsonable(value.tolist())
    if isinstance(value, (np.floating, float)):
        return float(value) if np.isfinite(value) else str(float(value))
    if isinstance(value, np.integer):
        return int(value)
    return value


def solution_to_dict(solution: "ProtocolSolution") -> dict[str, Any]:
    """The result of a protocol program as the JSON-ready dictionary of the CLI contract."""
    program = solution.program
    crosstab = program.crosstab
    uncertainty = program.uncertainty
    distortion = program.distortion if isinstance(program.distortion, str) else "matrix"
    record = {
        "result_type": "solve",
        "problem": program.name,
        "status": solution.status.value,
        "objective": solution.objective,
        "solver_objective": solution.result.objective,
        "eps": program.eps,
        "alpha": None if uncertainty is None else uncertainty.alpha,
        "n": crosstab.n,
        "radius_B": None if uncertainty is None else uncertainty.radius,
        "solver": solution.result.solver,
        "solve_seconds": solution.result.timings.solve_seconds,
        "build_seconds": solution.result.timings.build_seconds,
        "distortion": distortion,
        "distortion_matrix": program.distortion_matrix,
        "labels": {"S": list(crosstab.s_labels), "U": list(crosstab.u_labels),
                   "Y": list(program.outputs)},
        "counts": crosstab.counts,
        "guarantee": {
            "privacy": "robust" if any(c.robust for c in program.constraints) else "nominal",
            "holds": solution.guarantee_holds,
            "checks": [{"kind": c.kind, "holds": c.holds, "eps": c.eps,
                        "worst_margin": c.worst_margin, "worst_at_y_s1_s2": list(c.worst_at)}
                       for c in solution.checks],
        },
        "repair": None if solution.repair is None else {
            "method": solution.repair.method,
            "mixing_weight": solution.repair.weight,
            "objective_before": solution.repair.objective_before,
            "objective_after": solution.repair.objective_after,
            "utility_cost": solution.repair.utility_cost,
        },
        "protocol": None if solution.protocol is None else solution.protocol_cube(),
        "certificate": _certificate(solution).to_json(),
    }
    return jsonable(record)


def _certificate(solution: "ProtocolSolution") -> CertificateRecord:
    """``chi-square-conic`` (chi-square set, or no set), or ``set-conic`` for another set.

    Over another set, robust privacy is certified in product form: the
    conditional bounds are proved afresh from the solver's and stored with the
    set's multipliers (:func:`rldp_models.certificates.product.product_certificate`).
    """
    from rldp_models.uncertainty.chi_square import ChiSquareSet

    program = solution.program
    fields = {"multipliers": solution.multipliers, "duals": solution.result.dual}
    if program.uncertainty is None or isinstance(program.uncertainty, ChiSquareSet):
        return CertificateRecord("chi-square-conic", fields)
    from rldp_models.certificates.product import product_certificate
    from rldp_models.programs.components import RobustSecretPrivacy, solver_bounds

    for family in program.constraints:
        if isinstance(family, RobustSecretPrivacy) and solution.protocol is not None:
            fields["multipliers"] = {**solution.multipliers, **product_certificate(
                solution.protocol, program.uncertainty,
                solver_bounds(solution.multipliers, family.name))}
    return CertificateRecord("set-conic", fields)


def write_json(record: dict[str, Any], path: str | Path) -> None:
    """Write a result record (made JSON-ready by :func:`jsonable`) with full-precision doubles."""
    Path(path).write_text(json.dumps(jsonable(record), indent=1) + "\n")


def read_record(path: str | Path) -> dict[str, Any]:
    """Read any result file of the toolkit (solve, mechanism, protocol) as a JSON object."""
    try:
        record = json.loads(Path(path).read_text())
    except (OSError, json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read a result file ({str(exc).splitlines()[0]})") \
            from None
    if not isinstance(record, dict):
        raise InputError(f"{path}: a result file must hold a JSON object")
    return record


def read_result(path: str | Path) -> dict[str, Any]:
    """Read a result file of ``rldp solve``, checking it has the keys of the contract."""
    record = read_record(path)
    missing = [key for key in REQUIRED_KEYS if key not in record]
    if missing:
        raise InputError(f"{path}: not a protocol result, missing {', '.join(missing)}")
    return record
