"""What a record states about itself, compared with what ``rldp verify`` re-derives.

A record's guarantee, certificate and declaration are checked by the other
modules of this package; this one holds the record's *statements* to them
(issue 35, item 1): every guarantee's ``eps`` is the eps of the block (or
producer) that states it, the stated ``value`` is the value re-evaluated from
the matrix (within the precision the certificate checks to), and the labels of
the matrix are the ones the declaration and the counts give. A statement kept
in two places (a record written before eps lived once keeps copies in
``details``) must agree in both.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from rldp_models.certificates.verdict import Verdict
from rldp_models.conelp.exact_lp_dual import interval_utility, utility_lower_bound
from rldp_models.data import Crosstab

VALUE_TOLERANCE = 1e-9
"""Accepted relative disagreement of a stated value with its re-evaluation (the
certificate's objective tolerance, :data:`rldp_models.certificates.conic.OBJECTIVE_TOLERANCE`)."""

VALUE_COPIES = {"solve": "objective", "mechanism": "utility", "protocol": "utility_hat"}
"""Where a record written before the value lived once keeps its copy among the details."""


def stated_eps(record: dict[str, Any]) -> list[tuple[str, float]]:
    """``(where, eps)`` of every statement of eps a record makes, the declaration's first."""
    declaration = record["declaration"]
    found = [(f"declaration.blocks[{i}].parameters.eps", block["parameters"]["eps"])
             for i, block in enumerate(declaration["blocks"])
             if isinstance(block.get("parameters"), dict) and "eps" in block["parameters"]]
    if "eps" in declaration["parameters"]:
        found.append(("declaration.parameters.eps", declaration["parameters"]["eps"]))
    if "eps" in record["details"]:
        found.append(("details.eps", record["details"]["eps"]))
    found += [(f"guarantees[{i}].eps", g["eps"]) for i, g in enumerate(record["guarantees"])
              if "eps" in g]
    return [(where, float(eps)) for where, eps in found if eps is not None]


def eps_problems(record: dict[str, Any]) -> list[str]:
    """Each statement of eps that is not one the declaration makes.

    A program's blocks state its eps (one per guarantee block); a guarantee
    naming its block must state that block's. A mechanism or protocol states
    one eps; every copy of it must be the same number.
    """
    blocks = {str(b["parameters"].get("name")): float(b["parameters"]["eps"])
              for b in record["declaration"]["blocks"]
              if isinstance(b.get("parameters"), dict) and b["parameters"].get("eps") is not None}
    statements = stated_eps(record)
    if not statements:
        return []
    declared = set(blocks.values()) or {statements[0][1]}
    problems = [f"{where} = {eps:g} is not an eps the declaration states "
                f"({', '.join(f'{e:g}' for e in sorted(declared))})"
                for where, eps in statements if eps not in declared]
    for i, g in enumerate(record["guarantees"]):
        own = blocks.get(str(g.get("block")))
        if own is not None and "eps" in g and float(g["eps"]) != own:
            problems.append(f"guarantees[{i}].eps = {float(g['eps']):g} is not the eps of its "
                            f"block {g['block']} ({own:g})")
    return problems


def label_problems(record: dict[str, Any], crosstab: Crosstab | None) -> list[str]:
    """The matrix's input and output labels against the declaration, the counts and copies.

    A solve result's inputs are the pairs ``(s, u)`` of the counts' labels in order,
    its outputs the declared ones (the U labels by default); a mechanism's or
    protocol's labels must equal the copies its details keep.
    """
    matrix, details = record["matrix"], record["details"]
    labels = details.get("labels") or {}
    problems = []
    outputs = matrix.get("outputs")
    if outputs is not None and labels.get("Y") is not None and \
            _strings(outputs) != _strings(labels["Y"]):
        problems.append("matrix.outputs are not the output labels details.labels.Y states")
    if labels.get("X") is not None and _strings(matrix["inputs"]) != _strings(labels["X"]):
        problems.append("matrix.inputs are not the input labels details.labels.X states")
    if record["result_type"] == "solve" and crosstab is not None:
        pairs = [[str(s), str(u)] for s in crosstab.s_labels for u in crosstab.u_labels]
        if _strings(matrix["inputs"]) != pairs:
            problems.append("matrix.inputs are not the pairs (s, u) of the counts' labels")
        declared = record["declaration"]["parameters"].get("outputs") or \
            [str(u) for u in crosstab.u_labels]
        if outputs is not None and _strings(outputs) != _strings(declared):
            problems.append("matrix.outputs are not the outputs the declaration states")
    return problems


def _strings(labels: Any) -> list:
    return [_strings(x) if isinstance(x, list) else str(x) for x in labels]


def value_problems(record: dict[str, Any], evaluated: float | None) -> list[str]:
    """The stated value against its copy and its re-evaluation ``evaluated`` (None: not
    re-evaluated here; the certificate checks it)."""
    stated = record["value"].get("value")
    copy = record["details"].get(VALUE_COPIES[record["result_type"]], stated)
    if stated is None and copy is None:
        return []
    if stated is None or copy is None or float(copy) != float(stated):
        return [f"value.value = {stated} is not the value the details state ({copy})"]
    if evaluated is not None and not _close(float(stated), evaluated):
        return [f"value.value = {float(stated):.12g} is not the value re-evaluated from the "
                f"matrix ({evaluated:.12g})"]
    return []


def _close(stated: float, evaluated: float) -> bool:
    return math.isfinite(stated) and \
        abs(stated - evaluated) <= VALUE_TOLERANCE * (1.0 + abs(evaluated))


def mutual_information(prior: np.ndarray, Q: np.ndarray) -> float:
    """``I(X; Y)`` in nats for ``X ~ prior`` and ``Y | X ~ Q`` (the lower end of its
    interval enclosure, ``Q``'s doubles taken exactly)."""
    mu = interval_utility("mi", {"prior": np.asarray(prior, dtype=float).ravel().tolist()})
    return float(utility_lower_bound(mu, Q))


def stated_guarantee(record: dict[str, Any], crosstab: Crosstab | None) -> Verdict:
    """Every statement of eps and the labels, held to what the declaration gives."""
    return _verdict([*eps_problems(record), *label_problems(record, crosstab)],
                    "eps and labels as the record states them are the declared ones")


def stated_value(record: dict[str, Any], evaluated: float | None) -> Verdict:
    """The stated value, held to its re-evaluation (a claim beyond privacy: the certificate's)."""
    return _verdict(value_problems(record, evaluated), "the stated value is re-evaluated")


def _verdict(problems: list[str], holds: str) -> Verdict:
    if problems:
        return Verdict(False, f"the record states what its declaration and matrix do not "
                       f"give: {problems[0]}", tuple(problems[1:]))
    return Verdict(True, holds)
