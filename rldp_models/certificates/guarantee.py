"""The stated guarantee of a result, checked independently of its certificate.

* ``solve`` results: every guarantee block of the declaration, rebuilt with
  the declared set around the counts, by its own ``certify`` hook (the
  library's: eq. 6 at ``Phat``, eq. 23 over the chi-square set, the product
  form (**) over any other set), every multiplier found afresh (the stored
  ones are the certificate's, and are checked separately);
* ``mechanism`` results: the mechanism's own notion (LDP, LDP across
  secrets, ULDP, (eps, delta)-LDP, LDP w.r.t. S, LIP, SRLIP) by the exact
  certifiers of :mod:`rldp_models.privacy.matrix_checks`;
* ``protocol`` results: ``(eps, F)``-RLDP by the RLDP checker
  (:func:`rldp_models.rldp_protocols.checker.rldp_epsilon`).

The ``exact_*`` functions decide the same guarantees at the stated eps by the
exact checks alone, without the worst-case bracket's attained end (Dinkelbach
over cvxpy): what a release needs before it draws.
"""

from __future__ import annotations

import math

import numpy as np

from rldp_models.certificates.verdict import Verdict
from rldp_models.data import Crosstab
from rldp_models.errors import InputError
from rldp_models.exact import is_exactly_stochastic
from rldp_models.mechanisms.declarations import declared_mechanism
from rldp_models.programs.protocol_program import ProtocolProgram
from rldp_models.results.blocks import build_block
from rldp_models.results.certificate_record import CertificateRecord
from rldp_models.uncertainty.declared import build_set
from rldp_models.rldp_protocols import checker
from rldp_models.programs.contract import GuaranteeFamily, block_label

ROW_SUM_TOLERANCE = 1e-9
"""Largest accepted ``|row sum - 1|`` of a mechanism's or protocol's ``Q``."""


def _check_labels(labels: dict, crosstab: Crosstab) -> None:
    if list(labels.get("S", [])) != list(crosstab.s_labels) or \
            list(labels.get("U", [])) != list(crosstab.u_labels):
        raise InputError("the counts' labels differ from the result's labels "
                         f"(S {labels.get('S')}, U {labels.get('U')})")


def solve_protocol(record: dict, crosstab: Crosstab) -> np.ndarray:
    """The matrix of a solve record, ``(|S||U|, |Y|)``, its labels checked against the counts."""
    labels = record["details"]["labels"]
    _check_labels(labels, crosstab)
    try:
        protocol = np.array(record["matrix"]["rows"], dtype=float)
    except (TypeError, ValueError):
        raise InputError("the result's matrix is not a numeric [x][y] array") from None
    n_s, n_u = crosstab.shape
    if protocol.shape != (n_s * n_u, len(labels["Y"])):
        raise InputError(f"the result's matrix has shape {protocol.shape}, expected "
                         f"({n_s * n_u}, {len(labels['Y'])})")
    return protocol


def matrix(record: dict, key: str = "Q") -> np.ndarray:
    """``Q[x][y]`` of a mechanism or protocol result, checked to be a stochastic matrix."""
    try:
        Q = np.array(record[key], dtype=float)
    except (TypeError, ValueError):
        raise InputError(f"the result's {key} is not a numeric [x][y] array") from None
    if Q.ndim != 2 or Q.size == 0:
        raise InputError(f"the result's {key} has shape {Q.shape}, not (|X|, |Y|)")
    return Q


def _stochastic_failure(Q: np.ndarray) -> str | None:
    if not np.all(np.isfinite(Q)) or np.any(Q < 0):
        return "not a stochastic matrix: an entry is negative or not finite"
    deviation = float(np.max(np.abs(Q.sum(axis=1) - 1.0)))
    if deviation > ROW_SUM_TOLERANCE:
        return f"not a stochastic matrix: a row sum is off by {deviation:.3g}"
    return None


def mechanism_guarantee(record: dict) -> Verdict:
    """The exact check of the declared mechanism's notion at the recorded eps (its ``certify``
    hook, :mod:`rldp_models.mechanisms.declarations`)."""
    Q = matrix(record)
    failure = _stochastic_failure(Q)
    if failure:
        return Verdict(False, failure)
    name, eps = str(record["mechanism"]), float(record["eps"])
    declared = declared_mechanism(name)
    certification = declared.certify(Q, eps, record)
    where = "" if certification.worst_pair is None else \
        f"; tightest at {list(certification.worst_pair)}"
    return Verdict(certification.holds, f"{declared.notion} of {name} at eps = {eps:g}, "
                   f"decided exactly{where}")


def protocol_guarantee(record: dict, crosstab: Crosstab) -> Verdict:
    """``(eps, F)``-RLDP of a protocol result by the RLDP checker (Definition 1)."""
    _check_labels(record["labels"], crosstab)
    Q = matrix(record)
    failure = _stochastic_failure(Q)
    if failure:
        return Verdict(False, failure)
    if Q.shape[0] != crosstab.counts.size:
        raise InputError(f"the result's Q has {Q.shape[0]} rows, the counts {crosstab.counts.size}"
                         " cells")
    eps, alpha = float(record["eps"]), float(record["alpha"])
    level = checker.rldp_epsilon(Q, crosstab, alpha)
    headline = f"(eps, F)-RLDP over the chi-square set (alpha = {alpha}), eps = {eps:g}"
    details = (f"worst-case eps over F: {level.certified:.9g} (certified upper bound); "
               f"{level.attained:.9g} attained by a distribution in F",)
    unproven = level.inconclusive is not None and level.certified == math.inf  # no bound proven
    if unproven:
        headline += f": the level could not be proven finite ({level.inconclusive})"
    return Verdict(level.certified <= eps, headline, details, {"level": level},
                   inconclusive=unproven)


def exact_protocol_guarantee(record: dict, crosstab: Crosstab) -> Verdict:
    """``(eps, F)``-RLDP of a protocol result at its stated eps, decided without a solver.

    Proposition 4's level (RLDP for every distribution) or eq. (23) proved by
    Theorem 4 bounds at closed-form multipliers
    (:func:`~rldp_models.privacy.guarantees.check_robust_privacy`); where neither
    proves it, the RLDP checker's certified level decides (:func:`protocol_guarantee`).
    """
    from rldp_models.privacy.guarantees import check_robust_privacy
    from rldp_models.uncertainty.chi_square import ChiSquareSet

    _check_labels(record["labels"], crosstab)
    Q = matrix(record)
    failure = _stochastic_failure(Q)
    if failure or Q.shape[0] != crosstab.counts.size:
        return protocol_guarantee(record, crosstab)
    eps, alpha = float(record["eps"]), float(record["alpha"])
    headline = f"(eps, F)-RLDP over the chi-square set (alpha = {alpha}), eps = {eps:g}"
    if checker.proposition4_level(Q, crosstab.shape) <= eps:
        return Verdict(True, headline + ", by Proposition 4 (every distribution)")
    uncertainty = ChiSquareSet.from_counts(crosstab.counts, alpha)
    if check_robust_privacy(Q, crosstab.counts, uncertainty, eps).holds:
        return Verdict(True, headline + ", by Theorem 4 bounds in interval arithmetic")
    return protocol_guarantee(record, crosstab)


def exact_declared_guarantee(record: dict, crosstab: Crosstab) -> Verdict:
    """Every guarantee block of a declaration decided by its exact ``check`` at its eps.

    As :func:`declared_guarantee`, without each block's ``certify`` report (the
    worst-case bracket around the level).
    """
    protocol = solve_protocol(record, crosstab)
    stochastic, reason = is_exactly_stochastic(protocol)
    if not stochastic:
        return Verdict(False, f"not a stochastic matrix: {reason}")
    program, constraints = declared_program(record, crosstab)
    checks = [(family, family.check(protocol, program, {})) for family, _ in constraints
              if isinstance(family, GuaranteeFamily)]
    if not checks:
        return Verdict(False, "the declaration has no block with a privacy check")
    secrets, outputs = crosstab.s_labels, program.output_labels
    verdicts = [Verdict(bool(check.holds), f"{block_label(family)} {family.name}: {check.kind}"
                        f" guarantee, eps = {check.eps:g}", (check.summary(secrets, outputs),))
                for family, check in checks]
    if len(verdicts) == 1:
        return verdicts[0]
    return Verdict.all_of(verdicts, f"{len(verdicts)} declared guarantees of "
                          f"{record['declaration']['name']} checked exactly",
                          tuple(v.headline for v in verdicts), {})


def declared_program(record: dict, crosstab: Crosstab):
    """The program a record declares, rebuilt around ``crosstab``, with its blocks' sources.

    The distortion is rebuilt from its declared name and the declared outputs (a user's
    matrix is the one recorded). Returns the program and ``(block, source)`` per constraint,
    then the objective's.

    Raises
    ------
    InputError
        If the declaration does not make a program.
    """
    declaration = record["declaration"]
    built = [(spec, *build_block(spec, crosstab)) for spec in declaration["blocks"]]
    objectives = [(block, source) for spec, block, source in built
                  if spec["role"] == "objective"]
    constraints = [(block, source) for spec, block, source in built
                   if spec["role"] == "constraint"]
    if len(objectives) != 1:
        raise InputError(f"the declaration has {len(objectives)} objectives, not one")
    uncertainty = None if declaration["uncertainty"] is None else \
        build_set(declaration["uncertainty"], crosstab)
    named = declaration["parameters"].get("distortion", "squared")
    details = record["details"]
    distortion = np.asarray(details["distortion_matrix"], dtype=float) if named == "matrix" \
        else str(named)
    outputs = declaration["parameters"].get("outputs") or details["labels"]["Y"]
    program = ProtocolProgram(crosstab, objectives[0][0], [block for block, _ in constraints],
                              uncertainty=uncertainty, distortion=distortion,
                              outputs=[str(y) for y in outputs],
                              name=str(declaration["name"]))
    return program, [*constraints, *objectives]


def declared_guarantee(record: dict, crosstab: Crosstab) -> Verdict:
    """The guarantees of a program rebuilt from its declaration, each checked afresh.

    Every constraint block of the declaration is rebuilt from the registry
    (:mod:`rldp_models.results.blocks`; third-party blocks through the
    ``rldp_models.blocks`` entry points) with its recorded parameters, over
    the declared set rebuilt around these counts. Library privacy blocks are
    checked by the same exact checks as the presets (:func:`_library_block_verdict`);
    any other block by its own ``check(protocol, program, {})``, and its verdict
    is marked as coming from plug-in code, as is an objective from plug-in code (it
    re-evaluates the stated value). Each block's ``certify`` is given the record's stored
    multipliers as hints (robust privacy in product form starts its bounds there; whatever
    it uses, it proves).
    """
    declaration = record["declaration"]
    protocol = solve_protocol(record, crosstab)
    stochastic, reason = is_exactly_stochastic(protocol)
    if not stochastic:
        return Verdict(False, f"not a stochastic matrix: {reason}")
    program, constraints = declared_program(record, crosstab)
    hints = CertificateRecord.from_json(record.get("certificate")).fields.get("multipliers") \
        or {}
    verdicts, plugins = [], []
    for family, source in constraints:
        if not isinstance(family, GuaranteeFamily):
            if source != "library" and family is program.objective:
                plugins.append(f"objective {block_label(family)} ({source}) [plug-in code]")
            continue
        found = family.certify(protocol, program, hints)
        if source != "library":
            plugins.append(f"{block_label(family)} ({source})")
        verdicts.append(Verdict(found.holds, found.headline + (
            "" if source == "library" else " [plug-in code]"), found.details,
            inconclusive=found.inconclusive))
    if not verdicts:
        return Verdict(False, "the declaration has no block with a privacy check")
    if len(verdicts) == 1 and not plugins:
        return verdicts[0]
    headline = (f"{len(verdicts)} declared guarantees of {declaration['name']} re-checked from "
                f"its declaration" + (f"; from plug-in code: {', '.join(plugins)}"
                                      if plugins else ""))
    details = tuple(line for v in verdicts
                    for line in (("holds: " if v.holds else "FAILS: ") + v.headline, *v.details))
    return Verdict.all_of(verdicts, headline, details, {"plugins": plugins})
