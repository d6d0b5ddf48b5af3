"""``verify(record, crosstab)``: both verdicts on a result file of the toolkit.

The *guarantee* verdict comes from :mod:`rldp_models.certificates.guarantee`
(independent of the certificate). The *certificate* verdict re-checks what
the result claims beyond privacy, without the solver that produced it:

* ``solve``: one loop over the blocks rebuilt from the declaration, each
  re-evaluating its robust constraints at the multipliers the record stores
  for its groups (its ``certify_multipliers`` hook: 60-digit interval
  arithmetic, and per constraint the attained worst case in ``F`` from an
  independent inner solve, :mod:`~rldp_models.privacy.stored_bounds`), a
  user's registered block as a library block's;
* ``mechanism``: a cone LP's dual over every ray of the stated cone in exact
  rationals, and the optimality gap of ``Q`` (:mod:`~rldp_models.conelp.exact_lp_dual`);
  staircase duals on more than 12 inputs by the independent pattern checker
  (:mod:`~rldp_models.certificates.staircase_check`);
  closed-form mechanisms claim no optimality and have nothing to certify;
* ``protocol``: the recorded RLDP bracket — its witness is a member of ``F``
  (exactly, in rationals), reaches the recorded lower end, and that end does
  not exceed the certified level; for PolyOpt also its LP dual over the rays
  of Gamma (eq. 44), enumerated up to 8 cells and beyond that by the
  branch-and-bound proof written beside the result
  (:mod:`~rldp_models.certificates.pricing_proof`).
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from functools import partial

import numpy as np

from rldp_models.certificates import claims, guarantee, optimality
from rldp_models.certificates.pricing_proof import check_pricing_proof
from rldp_models.certificates.factored_protocol import (pair_level, factored_certificate,
                                                       factored_guarantee, worst_pair)
from rldp_models.uncertainty.certifiable import ChiSquareCertifiable
from rldp_models.certificates.staircase_check import large_staircase_verdict
from rldp_models.certificates.verdict import Verdict, VerificationReport
from rldp_models.conelp.exact_lp_dual import (
    MAX_GAMMA_DIMENSION,
    MAX_RAYS,
    LPCheck,
    attribute_cone_rays,
    check_lp_dual,
    cone_rays,
    gamma_cone_rays,
    gamma_cone_rows,
    interval_utility,
    lp_check_at,
    outer_ratio,
    utility_lower_bound,
)
from rldp_models.data import Crosstab
from rldp_models.errors import InputError, TooManyRays
from rldp_models.exact import is_exactly_stochastic
from rldp_models.mechanisms.declarations import declared_mechanism
from rldp_models.exact import DIGITS, digits_text
from rldp_models.privacy.stored_bounds import StoredCheck
from rldp_models.programs.contract import Problem
from rldp_models.programs.protocol_program import ProtocolProgram
from rldp_models.results.certificate_record import CertificateRecord, conic_kind
from rldp_models.results.files import load_pricing_proof
from rldp_models.results.migration import producer_fields, round1_type
from rldp_models.results.record import migrate
from rldp_models.results.schema import validate
from rldp_models.uncertainty.chi_square import chi_square_radius

LEVEL_TOLERANCE = 1e-9
"""Accepted disagreement between a recorded RLDP level and the one recomputed."""


def result_type(record: dict) -> str:
    """``result_type`` of a record (current or round-1)."""
    if "schema_version" in record:
        return str(record["result_type"])

    return round1_type(record)


def needs_counts(record: dict) -> bool:
    """Whether verifying the record needs the count table (solve and protocol results)."""
    return result_type(record) != "mechanism"


def verify(record: dict, crosstab: Crosstab | None = None) -> VerificationReport:
    """Check a record of any version (round-1 files are migrated, then validated).

    Raises
    ------
    InputError
        If the record does not follow the schema, or when counts are needed and not given.
    """
    record = migrate(record)
    validate(record)
    return verify_record(record, crosstab)


def verify_record(record: dict, crosstab: Crosstab | None = None) -> VerificationReport:
    """Both verdicts on a validated record (see the module docstring).

    A record written by this release must have dyadic rows summing to exactly
    1 (the finish path's promise); a migrated round-1 record is held to the
    round-1 tolerance. A program with a declaration is re-checked from it
    (:func:`~rldp_models.certificates.guarantee.declared_guarantee`).

    Raises
    ------
    InputError
        When the record's content does not fit itself or the counts.
    """
    kind = record["result_type"]
    if kind != "mechanism" and crosstab is None:
        raise InputError(f"verifying a {kind} result needs the counts: give --counts FILE or "
                         "--data FILE --sensitive COL --public COL")
    _check_shape(record)
    fields = producer_fields(record) if kind != "solve" else {}
    try:
        if kind == "mechanism":
            report = VerificationReport(kind, guarantee.mechanism_guarantee(fields),
                                        mechanism_certificate(fields))
        elif crosstab is None:  # refused above: every other kind needs the counts
            raise AssertionError(f"a {kind} result reached verification without counts")
        elif kind == "solve":
            report = VerificationReport(kind, guarantee.declared_guarantee(record, crosstab),
                                        solve_certificate(record, crosstab))
        elif "product" in fields:
            report = VerificationReport(kind, factored_guarantee(fields, crosstab),
                                        factored_certificate(fields, crosstab))
        else:
            verdict = guarantee.protocol_guarantee(fields, crosstab)
            report = VerificationReport(kind, verdict,
                                        protocol_certificate(fields, crosstab, verdict))
    except KeyError as exc:
        raise InputError(f"the {kind} result lacks the field {exc}") from None
    return _exact_rows(record, _with_claims(record, crosstab, report))


def verify_guarantee(record: dict, crosstab: Crosstab | None = None) -> Verdict:
    """The guarantee verdict alone, decided by the exact checks at the stated eps.

    What a release needs before it draws (:func:`rldp_models.disclosure.channel.verified_result`):
    the stated guarantee and its claims (:mod:`.claims`), without the certificate
    and without the worst-case bracket around the level, so that no solver runs.

    Raises
    ------
    InputError
        As :func:`verify`.
    """
    record = migrate(record)
    validate(record)
    kind = record["result_type"]
    if kind != "mechanism" and crosstab is None:
        raise InputError(f"checking a {kind} result needs the counts: give --counts FILE or "
                         "--data FILE --sensitive COL --public COL")
    _check_shape(record)
    try:
        if kind == "mechanism":
            verdict = guarantee.mechanism_guarantee(producer_fields(record))
        elif crosstab is None:  # refused above
            raise AssertionError(f"a {kind} result reached the check without counts")
        elif kind == "solve":
            verdict = guarantee.exact_declared_guarantee(record, crosstab)
        else:
            fields = producer_fields(record)
            verdict = factored_guarantee(fields, crosstab) if "product" in fields else \
                guarantee.exact_protocol_guarantee(fields, crosstab)
    except KeyError as exc:
        raise InputError(f"the {kind} result lacks the field {exc}") from None
    return _failed_by(claims.stated_guarantee(record, crosstab, verdict.holds), verdict)


def _with_claims(record: dict, crosstab: Crosstab | None,
                 report: VerificationReport) -> VerificationReport:
    """A verdict fails too when the record states what its declaration and matrix do not
    give (:mod:`.claims`): an eps or labels (the guarantee), the value (the certificate)."""
    guarantee_claim = claims.stated_guarantee(record, crosstab, report.guarantee.holds)
    value_claim = claims.stated_value(record, _evaluated(record, crosstab))
    return VerificationReport(report.result_type, _failed_by(guarantee_claim, report.guarantee),
                              _failed_by(value_claim, report.certificate))


def _failed_by(claim: Verdict, verdict: Verdict) -> Verdict:
    if claim.holds:
        return verdict
    return Verdict(False, claim.headline, (*claim.details, verdict.headline, *verdict.details))


def _evaluated(record: dict, crosstab: Crosstab | None) -> float | None:
    """The value re-evaluated from the matrix: a program's by its declared objective, a
    protocol's ``I_Phat(X;Y)``, a cone-LP mechanism's utility from its certificate."""
    rows = record["matrix"].get("rows")
    if rows is None or record["value"].get("value") is None:
        return None
    Q = np.asarray(rows, dtype=float)
    kind = record["result_type"]
    if kind == "solve" and crosstab is not None and record["declaration"]["blocks"]:
        program, _ = guarantee.declared_program(record, crosstab)
        return float(program.objective.evaluate(Q, program))
    if kind == "protocol" and crosstab is not None:
        return claims.mutual_information(crosstab.phat, Q)
    utility = (record.get("certificate") or {}).get("utility")
    if kind == "mechanism" and isinstance(utility, dict) and \
            utility.get("measure") == record["value"].get("measure"):
        return float(utility_lower_bound(interval_utility(str(utility["measure"]),
                                                          utility["parameters"]), Q))
    return None


def _check_shape(record: dict) -> None:
    """The matrix has one row per input label and one column per output label; a solve
    result has one input per ``(s, u)`` of its labels.

    Raises
    ------
    InputError
        When the record's matrix does not fit its own labels, or an array of it is ragged
        (:func:`.claims.check_shapes`).
    """
    claims.check_shapes(record)
    matrix = record["matrix"]
    rows, inputs, outputs = matrix.get("rows"), matrix["inputs"], matrix.get("outputs", [])
    if rows is None:  # a product too large to write densely: its factors are checked
        return
    if len(rows) != len(inputs) or any(len(row) != len(outputs) for row in rows):
        raise InputError(f"the record's matrix is not {len(inputs)} x {len(outputs)} "
                         "(one row per input label, one column per output label)")
    labels = record["details"]["labels"]
    if record["result_type"] == "solve" and \
            len(inputs) != len(labels.get("S", [])) * len(labels.get("U", [])):
        raise InputError("the record's inputs are not the pairs (s, u) of its labels")


def _exact_rows(record: dict, report: VerificationReport) -> VerificationReport:
    """A written record's rows must be exact: dyadic, summing to exactly 1 in rationals."""
    if record.get("migrated_from") is not None or record["matrix"].get("rows") is None:
        return report  # a product's factors are checked for exact rows by its guarantee
    exact, reason = is_exactly_stochastic(np.asarray(record["matrix"]["rows"], dtype=float))
    if exact:
        return report
    failed = Verdict(False, f"the rows are not exact: {reason}", (report.guarantee.headline,
                                                                   *report.guarantee.details))
    return VerificationReport(report.result_type, failed, report.certificate)


def _wrong_kind(certificate: CertificateRecord, kind: str) -> Verdict:
    return Verdict(False, f"the result needs a {kind} certificate, not {certificate.kind!r}")


# ---------------------------------------------------------------------- solve results
def solve_certificate(record: dict, crosstab: Crosstab) -> Verdict:
    """Every block's robust constraints at the stored multipliers, and the optimality claim.

    One loop over the blocks rebuilt from the declaration: each re-evaluates its
    own constraints at the multipliers the record stores for its groups (its
    ``certify_multipliers`` hook, :mod:`rldp_models.programs.contract`), a
    user's registered block as a library block.
    """
    certificate = CertificateRecord.from_json(record.get("certificate"))
    program, _ = guarantee.declared_program(record, crosstab)
    expected = conic_kind(program.uncertainty)
    if certificate.kind != expected:
        return _wrong_kind(certificate, expected)
    protocol = guarantee.solve_protocol(record, crosstab)
    value = float(record["value"]["value"])
    problem = Problem(crosstab, program.uncertainty, program.distortion_matrix,
                      tuple(program.output_labels), value)
    multipliers = certificate.fields.get("multipliers") or {}
    check = StoredCheck.joined([block.certify_multipliers(protocol, problem, multipliers)
                                for block in (program.objective, *program.constraints)])
    if not check.constraints and not check.missing:
        found = Verdict(True, f"{program.name} has no robust constraint to certify")
    else:
        where = "" if program.uncertainty is None else f" over the {program.uncertainty.name} set"
        notes = "".join(f"; {note}" for note in check.notes)
        found = Verdict(check.holds, f"{len(check.constraints)} robust constraints{where} "
                        f"re-evaluated at the stored multipliers ({DIGITS}-digit interval "
                        f"arithmetic{notes})", tuple(_conic_details(check)),
                        {"bounds": check.constraints, "worst_cases": list(check.attained)})
    return _with_optimality(found, program, protocol, certificate, value)


def _with_optimality(found: Verdict, program: ProtocolProgram, protocol: np.ndarray,
                     certificate: CertificateRecord, value: float) -> Verdict:
    """``found`` with the optimality claim's verdict appended (:mod:`.optimality`)."""
    stored = certificate.fields.get("optimality")
    gap = optimality.unclaimed_verdict(stored)
    if gap is None:
        assert isinstance(stored, dict)  # unclaimed_verdict is None only for a claiming dict
        gap = optimality.claimed_verdict(stored, program, protocol,
                                         certificate.fields.get("multipliers") or {}, value)
    return Verdict.all_of((found, gap), found.headline,
                          (*found.details, gap.headline, *(f"  {line}" for line in gap.details)),
                          {**found.data, "optimality": gap.data})


def _conic_details(check: StoredCheck) -> list[str]:
    details = []
    if check.missing:
        details.append(f"no multipliers for {len(check.missing)} robust constraint groups, e.g. "
                       f"{check.missing[0]}")
    worst = check.worst
    if worst is not None:
        details.append(f"largest violation {digits_text(worst.violation, 6)} at {worst.name} "
                       f"(bound {digits_text(worst.bound, 12)}, right-hand side {worst.rhs:.12g}"
                       f", tolerance {worst.tolerance:.1e})")
    finite = [a for a in check.attained if np.isfinite(a.attained)]
    constraints = [a for a in finite if not a.objective]
    tightest = [max(constraints, key=lambda a: a.certified)] if constraints else []
    for found in [a for a in finite if a.objective] + tightest:
        details.append(f"inner worst case at {found.name}: certified {found.certified:.9g}, "
                       f"attained {found.attained:.9g} (gap {found.gap:.3e})")
    if finite:
        loosest = max(finite, key=lambda a: a.gap)
        details.append(f"inner worst case over F (independent solve): largest gap "
                       f"{loosest.gap:.3e} at {loosest.name} (certified {loosest.certified:.9g},"
                       f" attained {loosest.attained:.9g})")
    if len(finite) < len(check.attained):
        details.append(f"{len(check.attained) - len(finite)} inner solves found no member of F")
    details += [f"the bound of {a.name} ({a.certified:.9g}) is beaten in F ({a.attained:.9g})"
                for a in check.attained if not a.consistent]
    return details


# ---------------------------------------------------------------------- mechanism results
def mechanism_certificate(record: dict) -> Verdict:
    """A cone LP's dual re-checked over every ray; closed forms have nothing to certify."""
    name = str(record["mechanism"])
    declared = declared_mechanism(name)
    if declared.cone is None:
        return Verdict(True, f"{name} is a closed-form mechanism: no optimality is claimed, "
                       "nothing to certify")
    certificate = CertificateRecord.from_json(record.get("certificate"))
    if certificate.kind != "lp-dual":
        return _wrong_kind(certificate, "lp-dual")
    if declared.per_attribute:
        return _srlip_certificate(record, certificate.fields)
    utility = certificate.fields.get("utility")
    if not isinstance(utility, dict):
        return Verdict(False, "the certificate does not record its utility (measure, "
                       "parameters); re-run rldp mechanism to write one that does")
    joint = None if record.get("joint") is None else np.asarray(record["joint"], dtype=float)
    cone = certificate.fields.get("cone", declared.cone)
    if cone != declared.cone:
        return Verdict(False, f"the certificate's LP is over the {cone} cone; {name}'s is the "
                       f"{declared.cone} cone")
    Q = guarantee.matrix(record)
    if declared.staircase_pattern and 2**Q.shape[0] - 2 > MAX_RAYS:
        return large_staircase_verdict(certificate.fields, Q, float(record["eps"]))
    return _lp_verdict(cone, certificate.fields["dual"], Q, utility,
                       lambda: cone_rays(cone, Q.shape[0], outer_ratio(float(record["eps"])),
                                         joint), stated=certificate.fields)


def _claimed_gap(fields: dict) -> float | None:
    """The gap an anytime PolyOpt record claims (``proven_gap``; None: the optimum)."""
    claim = fields.get("proven_gap")
    if claim is None:
        return None
    if isinstance(claim, bool) or not isinstance(claim, (int, float)):
        raise InputError(f"the certificate's proven_gap is not a number: {claim!r}")
    return float(claim)


def _lp_verdict(cone: str, dual, Q: np.ndarray, utility: dict, rays_of_cone,
                label: str = "", claimed_gap: float | None = None,
                stated: dict | None = None) -> Verdict:
    """One cone LP's dual checked over every ray of the outer cone at ``R >= e^eps``; the
    certificate's ``stated`` fields' ``upper_bound`` must be at least the bound proven."""
    dual = np.asarray(dual, dtype=float)
    if dual.shape != (Q.shape[0],):
        raise InputError(f"the certificate's dual has shape {dual.shape}, expected "
                         f"({Q.shape[0]},)")
    try:
        rays = rays_of_cone()
    except TooManyRays as exc:  # the check cannot be done here; the result was not shown wrong
        return Verdict.could_not_check(f"{label}the LP dual cannot be re-checked: {exc}")
    except InputError as exc:
        return Verdict(False, f"{label}the LP dual cannot be re-checked: {exc}")
    mu = interval_utility(str(utility["measure"]), utility["parameters"])
    check = check_lp_dual(dual, rays, mu, np.ones(Q.shape[0]), Q, claimed_gap)
    unproven = _unproven_bound(stated, check)
    if unproven:
        return Verdict(False, f"{label}the record states a bound its LP dual does not give: "
                       f"{unproven[0]}", (), {"lp": check})
    return Verdict(check.holds, f"{label}LP dual checked over all {check.rays} rays of the "
                   f"{cone} cone at ratio >= e^eps, in exact rationals",
                   (f"dual infeasibility per unit ray mass: {digits_text(check.violation, 6)} "
                    f"(accepted <= 1e-9)",
                    f"utility bound {digits_text(check.bound, 15)}; U(Q) >= "
                    f"{digits_text(check.attained, 15)}; gap {digits_text(check.gap, 6)}"),
                   {"lp": check})


def _unproven_bound(stated: dict | None, check: LPCheck) -> list[str]:
    """What is wrong with the stated ``upper_bound`` given the proven one (none stated: nothing)."""
    return [] if stated is None else claims.proven_bound_problems(stated, float(check.bound))


def _srlip_certificate(record: dict, fields: dict) -> Verdict:
    """Each attribute's dual over the rays of its cone ``C_j`` (privacy funnel Thm 3).

    ``Q^j`` maximises ``I(X^j; Y^j)`` over mechanisms with columns in ``C_j``
    at ``eps^j``; its dual is in mechanism form, one number per value of ``X^j``.
    """
    sizes = [int(a) for a in record["attribute_sizes"]]
    joint = np.asarray(record["joint"], dtype=float).reshape(-1, *sizes)
    verdicts = []
    for j, attribute in enumerate(record["attributes"]):
        prior = joint.sum(axis=tuple(axis for axis in range(joint.ndim) if axis != j + 1))
        ratio = outer_ratio(float(attribute["eps"]))
        verdicts.append(_lp_verdict(f"attribute-{j}", fields["dual"][j],
                                    np.asarray(attribute["Q"], dtype=float),
                                    {"measure": "mi", "parameters": {"prior": prior}},
                                    partial(attribute_cone_rays, joint, j, ratio),
                                    f"attribute {j + 1}: "))
    headline = f"{len(verdicts)} per-attribute duals checked in exact rationals"
    unchecked = [v.headline for v in verdicts if v.inconclusive]
    if unchecked:
        headline += f"; {unchecked[0]}"
    return Verdict.all_of(verdicts, headline,
                          tuple(line for v in verdicts for line in (v.headline, *v.details)))


# ---------------------------------------------------------------------- protocol results
def protocol_certificate(record: dict, crosstab: Crosstab, verdict: Verdict) -> Verdict:
    """The recorded RLDP bracket: its witness is in ``F`` and reaches the recorded lower end
    (at the recorded worst output and pair of secrets, ``worst_at``, when recorded)."""
    claim = record.get("rldp")
    if not isinstance(claim, dict) or claim.get("witness") is None:
        return Verdict(True, "no RLDP bracket recorded: nothing to certify")
    level = verdict.data.get("level")
    witness = np.asarray(claim["witness"], dtype=float)
    radius = chi_square_radius(crosstab.n, crosstab.counts.size, float(record["alpha"]))
    region = ChiSquareCertifiable(crosstab.counts, radius)
    member = witness.shape == crosstab.shape and region.contains_exactly(witness)
    Q = guarantee.matrix(record)
    where = worst_pair(claim, crosstab.s_labels, Q.shape[1]) \
        if claim.get("worst_at") is not None else None
    reached = float("nan")
    if member and where is None:  # a bracket recorded without where it is attained
        reached = _level_at(Q, witness)
    elif member and isinstance(where, tuple):
        y, s1, s2 = where
        reached = pair_level(Q[:, y].reshape(crosstab.shape), witness, s1, s2)
    problems = []
    if isinstance(where, str):
        problems.append(where)
    elif not member:
        problems.append("the recorded witness is not a distribution in F")
    elif reached < float(claim["attained"]) - LEVEL_TOLERANCE:
        problems.append(f"the witness reaches eps {reached:.9g}, less than the recorded "
                        f"{float(claim['attained']):.9g}")
    certified = float(claim["certified"])
    if level is not None and certified < level.attained - LEVEL_TOLERANCE:
        problems.append(f"the recorded certified level {certified:.9g} is below a level "
                        f"attained in F ({level.attained:.9g})")
    if member and certified < reached - LEVEL_TOLERANCE:
        problems.append(f"the recorded certified level {certified:.9g} is below the witness's "
                        f"{reached:.9g}")
    details = [f"recorded level in [{float(claim['attained']):.9g}, {certified:.9g}]; the "
               f"witness reaches {reached:.9g}", *problems]
    bracket = Verdict(not problems, "recorded RLDP bracket and its witness distribution "
                      "(membership in F decided in exact rationals)", tuple(details))
    if (record.get("certificate") or {}).get("kind", "none") == "none":
        return bracket
    lp = _polyopt_certificate(record, crosstab)
    return Verdict.all_of((bracket, lp), f"{bracket.headline}; {lp.headline}",
                          (*bracket.details, *lp.details), lp.data)


def _polyopt_certificate(record: dict, crosstab: Crosstab) -> Verdict:
    """PolyOpt's LP dual (maximise ``I_Phat(X;Y)`` over Gamma, eq. 47) over Gamma's rays."""
    certificate = CertificateRecord.from_json(record["certificate"])
    utility = certificate.fields.get("utility")
    if certificate.kind != "lp-dual" or not isinstance(utility, dict):
        return Verdict(False, "the PolyOpt LP dual does not record its cone and utility; "
                       "re-run rldp protocol polyopt to write one that does")
    cone = certificate.fields.get("cone", "polyopt-gamma")
    if cone != "polyopt-gamma":
        return Verdict(False, f"the certificate's LP is over the {cone} cone; PolyOpt's is "
                       "Gamma (polyopt-gamma)")
    overstated = claims.robust_lower_bound_problems(record, crosstab)
    if overstated:
        return Verdict(False, f"the record states what Q2 does not give: {overstated[0]}")
    ratio = outer_ratio(float(record["eps"]))
    if crosstab.counts.size > MAX_GAMMA_DIMENSION:
        if not certificate.fields.get("pricing_proof"):
            return Verdict(False, "the PolyOpt LP dual over Gamma records no pricing proof "
                           f"({crosstab.counts.size} cells: Gamma is not enumerated); re-run "
                           "rldp protocol polyopt to write one")
        return _pricing_proof_verdict(record, crosstab, certificate, ratio)
    rays = partial(gamma_cone_rays, crosstab.counts, float(record["alpha"]), ratio,
                   bool(certificate.fields.get("finer", False)))
    return _lp_verdict("polyopt-gamma", certificate.fields["dual"], guarantee.matrix(record),
                       utility, rays, claimed_gap=_claimed_gap(certificate.fields),
                       stated=certificate.fields)


def _pricing_proof_verdict(record: dict, crosstab: Crosstab, certificate: CertificateRecord,
                           ratio: Fraction) -> Verdict:
    """PolyOpt's LP dual over Gamma by the branch-and-bound proof written beside the result.

    Gamma is too big to enumerate; :mod:`~rldp_models.certificates.pricing_proof`
    bounds the dual's violation over all its rays from the recorded tree.
    """
    fields = certificate.fields
    rows = gamma_cone_rows(crosstab.counts, float(record["alpha"]), ratio,
                           bool(fields.get("finer", False)))
    utility = fields["utility"]
    prior = [Fraction(float(p)) for p in utility["parameters"]["prior"]]
    try:
        proof = load_pricing_proof(fields["pricing_proof"])
        check = check_pricing_proof(proof, rows.tolist(), prior, fields["dual"])
    except InputError as exc:
        return Verdict(False, f"the pricing proof of the LP dual cannot be checked: {exc}")
    if not check.holds:
        return Verdict(False, "the pricing proof of the LP dual over Gamma does not check",
                       check.problems)
    Q = guarantee.matrix(record)
    lp = lp_check_at(fields["dual"], check.per_mass, check.leaves,
                     interval_utility(str(utility["measure"]), utility["parameters"]),
                     np.ones(Q.shape[0]), Q, _claimed_gap(fields))
    unproven = _unproven_bound(fields, lp)
    if unproven:
        return Verdict(False, f"the record states a bound its pricing proof does not give: "
                       f"{unproven[0]}", (), {"lp": lp})
    if lp.claimed_gap is not None:
        return Verdict(lp.holds, f"PolyOpt protocol proven within {digits_text(lp.gap, 6)} "
                       f"nats of LP (47)'s optimum over Gamma (record claims "
                       f"{digits_text(lp.claimed_gap, 6)}), by a branch-and-bound proof "
                       f"({check.boxes} boxes, {check.leaves} leaves) in exact rationals",
                       (f"utility bound {digits_text(lp.bound, 15)}; U(Q) >= "
                        f"{digits_text(lp.attained, 15)}",), {"lp": lp})
    return Verdict(lp.holds, f"LP dual checked over all rays of the polyopt-gamma cone at "
                   f"ratio >= e^eps by a branch-and-bound proof ({check.boxes} boxes, "
                   f"{check.leaves} leaves: root box, splits, leaf bounds, empty boxes) in exact "
                   f"rationals", (f"dual infeasibility per unit ray mass <= "
                                  f"{digits_text(check.per_mass, 6)} (accepted <= 1e-9)",
                                  f"utility bound {digits_text(lp.bound, 15)}; U(Q) >= "
                                  f"{digits_text(lp.attained, 15)}; gap {digits_text(lp.gap, 6)}"),
                   {"lp": lp})


def _level_at(Q: np.ndarray, p: np.ndarray) -> float:
    """``max_{y, s1 != s2} log P(y|s1) / P(y|s2)`` under ``P`` (0 when nothing is released)."""
    n_s = p.shape[0]
    conditionals = [(p[s] / p[s].sum()) @ Q.reshape(n_s, p.shape[1], -1)[s] for s in range(n_s)]
    worst = 0.0
    for s1, s2 in itertools.permutations(range(n_s), 2):
        with np.errstate(divide="ignore", invalid="ignore"):
            ratios = np.where(conditionals[s1] > 0, conditionals[s1] / conditionals[s2], 1.0)
        worst = max(worst, float(np.log(np.max(ratios))))
    return worst
