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

import itertools
import math
from typing import Any

import numpy as np

from rldp_models.certificates.verdict import Verdict
from rldp_models.conelp.exact_lp_dual import interval_utility, utility_lower_bound
from rldp_models.conelp.polyopt_gamma import safe_coordinate_bounds
from rldp_models.data import Crosstab
from rldp_models.distortion import distortion_matrix
from rldp_models.errors import InputError
from rldp_models.exact import is_exactly_stochastic
from rldp_models.conelp.polyopt_robust import robust_utility_lower_bounds
from rldp_models.rldp_protocols.factored_form import FactoredProtocol
from rldp_models.uncertainty.chi_square import chi_square_radius

VALUE_TOLERANCE = 1e-9
"""Accepted relative disagreement of a stated value with its re-evaluation (the certificate's
objective tolerance, :data:`rldp_models.privacy.stored_bounds.OBJECTIVE_TOLERANCE`)."""

ROUND1_ROW_TOLERANCE = 1e-9
"""How far a round-1 record's ``Q2`` rows (floats, written before exact rows) may sum from 1."""

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
    wrong = next((where for where, eps in found if eps is not None
                  and (isinstance(eps, bool) or not isinstance(eps, (int, float)))), None)
    if wrong is not None:
        raise InputError(f"the record's {wrong} is not a number")
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


MATRIX_FIELDS = (("counts", "table"), ("details", "joint"), ("details", "distortion_matrix"),
                 ("details", "Q2"), ("details", "rldp", "witness"),
                 ("certificate", "optimality", "dual", "sides"),
                 ("certificate", "optimality", "dual", "objective_members"))
"""Where a record keeps an array the checks read as one block of numbers."""


def check_shapes(record: dict[str, Any]) -> None:
    """Every array of :data:`MATRIX_FIELDS` a record holds is rectangular (no row shorter
    than another), the embedded counts are one row per secret label and one column per
    public label, and a program declares one output per column: what the checks assume
    before they read a number.

    Raises
    ------
    InputError
        Naming the first field that is not.
    """
    for path in MATRIX_FIELDS:
        value: Any = record
        for key in path:
            value = value.get(key) if isinstance(value, dict) else None
        if value is None:
            continue
        try:
            shape = np.asarray(value, dtype=float).shape
        except (TypeError, ValueError):
            raise InputError(f"the record's {'.'.join(path)} is not a rectangular array of "
                             "numbers (rows of unequal length)") from None
        if path == ("counts", "table") and isinstance(record["counts"].get("labels"), dict):
            labels = record["counts"]["labels"]
            expected = (len(labels.get("S") or []), len(labels.get("U") or []))
            if shape != expected:
                raise InputError(f"the record's counts.table is {' x '.join(map(str, shape))}, "
                                 f"not one row per S label and one column per U label "
                                 f"({expected[0]} x {expected[1]})")
    declared = record["declaration"]["parameters"].get("outputs")
    outputs = record["matrix"].get("outputs")
    if record["result_type"] == "solve" and isinstance(declared, list) and \
            isinstance(outputs, list) and len(declared) != len(outputs):
        raise InputError(f"the record's declaration.parameters.outputs name {len(declared)} "
                         f"outputs, its matrix has {len(outputs)}")
    for where, named, labelled, size in labelled_lengths(record):
        if named is not None and size is not None and named != size:
            raise InputError(f"the record's {where} names {named} labels, its {labelled} "
                             f"has {size}")


def labelled_lengths(record: dict[str, Any]) -> list[tuple[str, int | None, str, int | None]]:
    """``(where, how many labels, what they label, its length)`` for every list of labels
    in ``details``: ``labels.X``/``labels.Y`` name the matrix's inputs and outputs,
    ``labels.S`` the rows of ``joint`` (else the counts' S labels), ``labels.U`` the counts'
    U labels, and a closed-form mechanism's ``S`` and ``U`` the table whose pairs are the
    inputs (labels of another length are not these labels: bad input, not a false claim).
    A length is None where the record has no such list."""
    details, matrix = record["details"], record["matrix"]
    labels = details.get("labels") if isinstance(details.get("labels"), dict) else {}
    counted = (record.get("counts") or {}).get("labels")
    counted = counted if isinstance(counted, dict) else {}
    joint_rows = _length(details.get("joint"))
    found = [("details.labels.X", _length(labels.get("X")), "matrix.inputs",
              _length(matrix.get("inputs"))),
             ("details.labels.Y", _length(labels.get("Y")), "matrix.outputs",
              _length(matrix.get("outputs"))),
             ("details.labels.S", _length(labels.get("S")),
              "details.joint" if joint_rows is not None else "counts.labels.S",
              joint_rows if joint_rows is not None else _length(counted.get("S"))),
             ("details.labels.U", _length(labels.get("U")), "counts.labels.U",
              _length(counted.get("U")))]
    s_count, u_count = _length(details.get("S")), _length(details.get("U"))
    if record["result_type"] == "mechanism" and s_count is not None and u_count is not None:
        found.append(("details.S x details.U", s_count * u_count, "matrix.inputs",
                      _length(matrix.get("inputs"))))
    return found


def _length(value: Any) -> int | None:
    return len(value) if isinstance(value, list) else None


def distortion_problems(record: dict[str, Any], crosstab: Crosstab | None) -> list[str]:
    """A program's ``details.distortion_matrix`` against the named distortion it declares,
    evaluated on the counts' labels and the declared outputs (a ``matrix`` distortion *is*
    that field, read by the program itself)."""
    named = record["declaration"]["parameters"].get("distortion")
    stated = record["details"].get("distortion_matrix")
    if record["result_type"] != "solve" or crosstab is None or stated is None or \
            not isinstance(named, str) or named == "matrix":
        return []
    outputs = record["declaration"]["parameters"].get("outputs") or \
        (record["details"].get("labels") or {}).get("Y") or list(crosstab.u_labels)
    declared = distortion_matrix(named, crosstab, [str(y) for y in outputs])
    if not np.array_equal(np.asarray(stated, dtype=float), declared):
        return [f"details.distortion_matrix is not the {named} distortion the declaration "
                "names, on the counts' labels"]
    return []


def label_problems(record: dict[str, Any], crosstab: Crosstab | None) -> list[str]:
    """The matrix's input and output labels against the declaration, the counts and copies.

    A solve or protocol result's inputs are the pairs ``(s, u)`` of the counts' labels in
    order (a mechanism's over a crosstab those of the table labels it keeps,
    ``details.S`` and ``details.U``), a solve result's outputs the declared ones (the U
    labels by default); a mechanism's or protocol's labels must equal the copies its
    details keep.
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
    if crosstab is not None and details.get("n") is not None and \
            int(details["n"]) != int(crosstab.counts.sum()):
        problems.append(f"details.n = {details['n']} is not the number of records counted "
                        f"({int(crosstab.counts.sum())})")
    if record["result_type"] != "mechanism" and crosstab is not None:
        pairs = [[str(s), str(u)] for s in crosstab.s_labels for u in crosstab.u_labels]
        if _strings(matrix["inputs"]) != pairs:
            problems.append("matrix.inputs are not the pairs (s, u) of the counts' labels")
    table_labels = [details.get(key) for key in ("S", "U")]
    if record["result_type"] == "mechanism" and all(isinstance(t, list) for t in table_labels):
        pairs = [[str(s), str(u)] for s in table_labels[0] for u in table_labels[1]]
        if _strings(matrix["inputs"]) != pairs:
            problems.append("matrix.inputs are not the pairs (s, u) of details.S and details.U")
    if record["result_type"] == "solve" and crosstab is not None:
        declared = record["declaration"]["parameters"].get("outputs") or \
            [str(u) for u in crosstab.u_labels]
        if outputs is not None and _strings(outputs) != _strings(declared):
            problems.append("matrix.outputs are not the outputs the declaration states")
    return problems


OUTPUTS_ARE_INPUTS = frozenset({"rr", "geometric", "srr", "urr", "grr", "ir", "grr-cr"})
"""Producers whose outputs are their inputs, in the same order (a report of an input)."""

INDEXED_OUTPUTS = {"binary": "{}", "lip": "{}", "ldp-s": "{}", "quaternary": "{}",
                   "staircase": "{}", "polyopt": "ray{}"}
"""Producers whose outputs are numbered in order, and the form of the numbers."""


def output_problems(record: dict[str, Any]) -> list[str]:
    """``matrix.outputs`` against what the producer's outputs are: its inputs (a report of
    an input), numbered columns, or UE's bit vectors in counting order (version-2 records)."""
    matrix, producer = record["matrix"], str(record["producer"])
    outputs = matrix.get("outputs")
    if outputs is None or record.get("migrated_from") is not None:
        return []
    if producer in OUTPUTS_ARE_INPUTS:
        expected = _strings(matrix["inputs"])
    elif producer in INDEXED_OUTPUTS:
        expected = [INDEXED_OUTPUTS[producer].format(i) for i in range(len(outputs))]
    elif producer == "ue" and outputs and isinstance(outputs[0], str):
        expected = [format(i, f"0{len(outputs[0])}b") for i in range(len(outputs))]
    elif producer == "ue-cr" and matrix.get("kind") == "ue-cr":
        expected = ue_cr_outputs(matrix["S"], matrix["U"])
    else:
        return []
    if _strings(outputs) != expected:
        return [f"matrix.outputs are not the outputs {producer} releases, in its order"]
    return []


def ue_cr_outputs(s_labels: list, u_labels: list) -> list:
    """UE-CR's outputs in dense-column order: for each pattern ``y`` (row-major over
    :attr:`~rldp_models.rldp_protocols.factored_form.FactoredProtocol.coordinate_sizes`),
    the ``[t, v]`` of every secret ``t`` reported, as the writer labels them."""
    protocol = FactoredProtocol("ue-cr", {}, list(s_labels), list(u_labels), 0.0, 0.5)
    patterns = itertools.product(*map(range, protocol.coordinate_sizes))
    return _strings([protocol.output_label(y) for y in patterns])


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


NAME_COPIES = ("mechanism", "protocol", "problem")
"""The keys under which ``details`` repeats the producer's name."""

UNCERTAINTY_COPIES = {"radius": "radius_B", "alpha": "alpha"}
"""``declaration.uncertainty`` keys and the ``details`` keys that repeat them."""


RADIUS_SOURCES = ("alpha", "given", "--radius", "bootstrap")
"""How a set's radius can have been chosen (``declaration.uncertainty.radius_from``): from
alpha, given to the Python program, given as ``rldp solve --radius``, or by the bootstrap."""


def copy_problems(record: dict[str, Any]) -> list[str]:
    """Each fact stated twice whose two statements differ: the producer's name
    (``producer``, ``declaration.name``, ``details.mechanism|protocol|problem``), the
    uncertainty set's radius and alpha, and the parameters a protocol's declaration and
    details both state."""
    declaration, details = record["declaration"], record["details"]
    names = {"producer": record["producer"], "declaration.name": declaration["name"],
             **{f"details.{key}": details[key] for key in NAME_COPIES if key in details}}
    problems = [f"{where} = {name!r} is not the producer {record['producer']!r}"
                for where, name in names.items() if str(name) != str(record["producer"])]
    uncertainty = declaration.get("uncertainty") or {}
    problems += [f"declaration.uncertainty.{key} = {uncertainty[key]} is not details.{copy} "
                 f"({details[copy]})" for key, copy in UNCERTAINTY_COPIES.items()
                 if uncertainty.get(key) is not None and details.get(copy) is not None
                 and float(uncertainty[key]) != float(details[copy])]
    blocks = declaration["blocks"]
    declared = {str((b.get("parameters") or {}).get("name")) for b in blocks}
    problems += [f"guarantees[{i}].block = {g['block']!r} is not a declared block"
                 for i, g in enumerate(record["guarantees"])
                 if blocks and g.get("block") is not None and str(g["block"]) not in declared]
    problems += [f"declaration.blocks[{i}].source = {b['source']!r} is neither 'library' nor "
                 "'plugin:<distribution>'" for i, b in enumerate(blocks)
                 if "source" in b and b["source"] != "library"
                 and not str(b["source"]).startswith("plugin:")]
    multipliers = (record.get("certificate") or {}).get("multipliers") or {}
    problems += [f"certificate.multipliers.{key} names no declared block"
                 for key in multipliers
                 if blocks and key.split("[")[0].split("/")[0] not in declared]
    radius_from = uncertainty.get("radius_from")
    if radius_from is not None and radius_from not in RADIUS_SOURCES:
        problems.append(f"declaration.uncertainty.radius_from = {radius_from!r} is none of "
                        f"{', '.join(RADIUS_SOURCES)}")
    if record["result_type"] == "protocol" and uncertainty.get("set", "chi2") != "chi2":
        problems.append(f"declaration.uncertainty.set = {uncertainty['set']!r}: a protocol's F "
                        "is the chi-square set")
    coordinates = record["matrix"].get("coordinates")
    if details.get("output_count") is not None and isinstance(coordinates, list) and \
            int(details["output_count"]) != math.prod(int(c) for c in coordinates):
        problems.append(f"details.output_count = {details['output_count']} is not the product "
                        "of matrix.coordinates")
    stated = details.get("parameters")
    if isinstance(stated, dict):
        problems += [f"declaration.parameters.{key} = {value!r} is not details.parameters."
                     f"{key} ({stated[key]!r})"
                     for key, value in declaration["parameters"].items()
                     if key in stated and stated[key] != value]
    return problems


def measure_problems(record: dict[str, Any]) -> list[str]:
    """``value.measure`` and ``value.sense`` against what the producer's value is: a
    program's (worst-case) expected distortion, minimised; a mechanism's declared utility
    (``mi`` unless declared), a protocol's ``I_Phat(X;Y)``, maximised."""
    value, declaration = record["value"], record["declaration"]
    kind = record["result_type"]
    if kind == "solve":
        objective = [b for b in declaration["blocks"] if b.get("role") == "objective"]
        robust = bool(objective and (objective[0].get("parameters") or {}).get("robust"))
        distortion = declaration["parameters"].get("distortion")
        measure = (f"{'worst-case ' if robust else ''}expected "
                   f"{distortion if isinstance(distortion, str) else 'matrix'} distortion")
        sense = "min"
    elif kind == "mechanism":
        measure, sense = str(declaration["parameters"].get("utility_measure", "mi")), "max"
    else:
        measure, sense = "I_Phat(X;Y) in nats", "max"
    problems = []
    if kind != "solve" or declaration["blocks"]:
        if value["measure"] != measure:
            problems.append(f"value.measure = {value['measure']!r} is not the value the "
                            f"producer gives ({measure!r})")
    if value["sense"] != sense:
        problems.append(f"value.sense = {value['sense']!r} is not {sense!r}")
    return problems


def holds_problems(record: dict[str, Any], holds: bool) -> list[str]:
    """Each ``holds`` the record states that is not the exact verdict ``holds``."""
    stated = [(f"guarantees[{i}].holds", g.get("holds")) for i, g in
              enumerate(record["guarantees"])]
    check = record["details"].get("privacy_check")
    if isinstance(check, dict):
        stated.append(("details.privacy_check.holds", check.get("holds")))
    return [f"{where} = {str(value).lower()} but the guarantee holds" for where, value in stated
            if value is not None and bool(value) != holds and holds]


def bound_problems(record: dict[str, Any]) -> list[str]:
    """A certificate's stated bound on the optimum on the right side of the stated value:
    an LP dual's ``upper_bound`` (a utility, maximised) at least ``value.value``; an
    optimality certificate's ``lower`` at most its ``upper`` and ``upper`` the value."""
    certificate, stated = record.get("certificate") or {}, record["value"].get("value")
    if stated is None:
        return []
    problems = []
    upper = certificate.get("upper_bound")
    below = float(stated) - VALUE_TOLERANCE * (1 + abs(float(stated)))
    if isinstance(upper, (int, float)) and float(upper) < below:
        problems.append(f"certificate.upper_bound = {float(upper):.12g} is below the value "
                        f"{float(stated):.12g} Q attains")
    rhs, dual = certificate.get("rhs"), certificate.get("dual")
    if rhs is not None and isinstance(dual, list) and \
            all(isinstance(d, (int, float)) for d in dual) and \
            list(map(float, rhs)) != [1.0] * len(dual):
        problems.append("certificate.rhs is not the right-hand side of the LP's equalities "
                        "(one 1 per dual: each row of Q sums to one)")
    optimality = certificate.get("optimality")
    if isinstance(optimality, dict) and optimality.get("upper") is not None:
        if not _close(float(optimality["upper"]), float(stated)):
            problems.append(f"certificate.optimality.upper = {optimality['upper']} is not the "
                            f"value {stated}")
        problems += _gap_problems(optimality)
    return problems


def proven_bound_problems(certificate: dict[str, Any], proven: float) -> list[str]:
    """An LP dual's stated ``upper_bound`` against the bound ``proven`` from the dual over
    every ray (or its pricing proof): a stated bound below it is a claim nothing proves
    (within :data:`VALUE_TOLERANCE`, the exact bound's rounding to a double)."""
    stated = certificate.get("upper_bound")
    if not isinstance(stated, (int, float)) or isinstance(stated, bool) or \
            not math.isfinite(proven):
        return []
    if float(stated) < proven - VALUE_TOLERANCE * (1.0 + abs(proven)):
        return [f"certificate.upper_bound = {float(stated):.12g} is below the bound the LP "
                f"dual proves ({proven:.12g})"]
    return []


def robust_lower_bound_problems(fields: dict[str, Any], crosstab: Crosstab) -> list[str]:
    """PolyOpt's ``lower_bound`` ``L`` against ``Q^2`` (``Q2``; the protocol's fields, as
    verify reads them from ``details``): at most the sum over its columns of the robust lower
    bounds ``mu^2`` over ``F``'s safe box (Theorem 12(2), eq. 46,
    :func:`~rldp_models.conelp.polyopt_robust.robust_utility_lower_bounds`, within
    :data:`VALUE_TOLERANCE`); a larger ``L`` is not what ``Q^2`` gives."""
    stated, Q2 = fields.get("lower_bound"), fields.get("Q2")
    if not isinstance(stated, (int, float)) or isinstance(stated, bool) or \
            not isinstance(Q2, list):
        return []
    radius = chi_square_radius(crosstab.n, crosstab.counts.size, float(fields["alpha"]))
    lower, upper = safe_coordinate_bounds(crosstab.phat.ravel(), radius)
    Q2 = np.asarray(Q2, dtype=float)
    if Q2.ndim != 2 or Q2.shape[0] != crosstab.counts.size:
        raise InputError(f"the record's details.Q2 is not one row per input "
                         f"({crosstab.counts.size})")
    if fields.get("migrated_from") is not None:  # a round-1 file's rows are floats
        if Q2.min() < 0 or np.abs(Q2.sum(axis=1) - 1.0).max() > ROUND1_ROW_TOLERANCE:
            return [f"details.Q2 is not a protocol (rows nonnegative and summing to 1 within "
                    f"{ROUND1_ROW_TOLERANCE:g}), so no lower_bound is proven for it"]
    elif not is_exactly_stochastic(Q2)[0]:
        return ["details.Q2 is not a protocol (rows of exact dyadic rationals summing to 1), "
                "so no lower_bound is proven for it"]
    given = float(robust_utility_lower_bounds(Q2, lower, upper).sum())
    if float(stated) > given + VALUE_TOLERANCE * (1.0 + abs(given)):
        return [f"details.lower_bound = {float(stated):.12g} exceeds the robust utility Q2 is "
                f"proven to keep over F ({given:.12g})"]
    return []


def _gap_problems(optimality: dict[str, Any]) -> list[str]:
    """An optimality certificate's ``lower <= upper`` and its stated ``gap`` no smaller
    than ``upper - lower`` (``relative_gap`` is informational: near 0 the writer's
    relative form is its own)."""
    if optimality.get("lower") is None:
        return []
    lower, upper = float(optimality["lower"]), float(optimality["upper"])
    slack = VALUE_TOLERANCE * (1.0 + abs(upper))
    problems = []
    if lower > upper + slack:
        problems.append(f"certificate.optimality.lower = {lower} exceeds its upper end {upper}")
    gap = optimality.get("gap")
    if gap is not None and float(gap) < upper - lower - slack:
        problems.append(f"certificate.optimality.gap = {gap} is less than upper - lower "
                        f"({upper - lower})")
    return problems


def stated_guarantee(record: dict[str, Any], crosstab: Crosstab | None,
                     holds: bool = True) -> Verdict:
    """Every statement of eps, the labels, the copies of one fact and each stated verdict,
    held to what the declaration and the exact verdict ``holds`` give (the copies only in
    a record written as version 2: a migrated round-1 file was not written in this layout)."""
    copies = copy_problems(record) if record.get("migrated_from") is None else []
    return _verdict([*eps_problems(record), *label_problems(record, crosstab),
                     *output_problems(record), *distortion_problems(record, crosstab), *copies,
                     *holds_problems(record, holds)],
                    "eps and labels as the record states them are the declared ones")


def prior_value(record: dict[str, Any]) -> tuple[float | None, list[str]]:
    """A closed-form mechanism's stated value re-evaluated: ``I(X;Y)`` with ``X`` drawn
    from the prior it carries (``details.prior``, one probability per input, summing to 1
    within :data:`PRIOR_TOLERANCE`), and what is wrong with that prior. ``(None, [])`` for
    a record that is not a closed form stating a value, or a migrated round-1 file (its
    value was written before the prior was kept, and is not a claim)."""
    certificate = record.get("certificate") or {}
    rows = record["matrix"].get("rows")
    if record["result_type"] != "mechanism" or certificate.get("kind", "none") != "none" or \
            record["value"].get("value") is None or rows is None or \
            record.get("migrated_from") is not None:
        return None, []
    prior = record["details"].get("prior")
    if prior is None:
        return None, ["value.value states a utility, but the record carries no prior "
                      "(details.prior) to re-evaluate it at"]
    if not isinstance(prior, list) or \
            not all(isinstance(p, (int, float)) and not isinstance(p, bool) for p in prior):
        raise InputError("the record's details.prior is not a list of numbers")
    p = np.asarray(prior, dtype=float)
    if len(p) != len(rows) or not np.all(p >= 0) or abs(float(p.sum()) - 1) > PRIOR_TOLERANCE:
        return None, ["details.prior is not a distribution over matrix.inputs (one "
                      "probability per input, summing to 1)"]
    return mutual_information(p, np.asarray(rows, dtype=float)), []


PRIOR_TOLERANCE = 1e-12
"""How far a carried prior's sum may be from 1 (the rounding of a normalised float vector)."""


def stated_value(record: dict[str, Any], evaluated: float | None) -> Verdict:
    """The stated value, what it measures and the certificate's bounds on the optimum, held
    to its re-evaluation (a claim beyond privacy: the certificate's); a closed-form
    mechanism's value is re-evaluated at the prior it carries (:func:`prior_value`)."""
    measure = measure_problems(record) if record.get("migrated_from") is None else []
    prior_problems: list[str] = []
    if evaluated is None:
        evaluated, prior_problems = prior_value(record)
    return _verdict([*prior_problems, *value_problems(record, evaluated), *measure,
                     *bound_problems(record)], "the stated value is re-evaluated")


def _verdict(problems: list[str], holds: str) -> Verdict:
    if problems:
        return Verdict(False, f"the record states what its declaration and matrix do not "
                       f"give: {problems[0]}", tuple(problems[1:]))
    return Verdict(True, holds)
