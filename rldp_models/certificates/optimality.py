"""``rldp verify``'s re-check of a stored optimality claim: both bounds recomputed from the
stored dual, the counts and the protocol, without the solver (the bounds and their proof:
:mod:`rldp_models.optimality.lagrangian` for the Lagrangian model of the four programs,
:mod:`rldp_models.optimality.program_bound` for weak duality on any compiled program).
"""

from __future__ import annotations

from typing import Any

import flint
import numpy as np

from rldp_models.certificates.verdict import Verdict
from rldp_models.optimality.lagrangian import (
    BITS,
    MATCH_TOLERANCE,
    PRODUCT_QUALIFIER,
    Bound,
    Instance,
    LagrangianDual,
    float_above,
    float_below,
    lower_bound,
    relative,
    upper_bound,
)
from rldp_models.optimality.lagrangian_dual import conic_instance
from rldp_models.optimality.program_bound import WEAK, accepted_upper, bound_model, \
    program_lower_bound
from rldp_models.programs.protocol_program import ProtocolProgram
from rldp_models.uncertainty.base import Capability


def unclaimed_verdict(stored: Any) -> Verdict | None:
    """What a record that claims no gap says (None when it claims one)."""
    if not isinstance(stored, dict):
        return Verdict(True, "optimality: not claimed (the record has no optimality "
                       "certificate)")
    if not stored.get("claimed"):
        reason = str(stored.get("reason", "no reason"))
        if reason.startswith("not proved"):  # a bound was tried and failed: say which
            return Verdict(True, f"optimality: {reason}")
        return Verdict(True, f"optimality: not claimed ({reason})")
    return None


def claimed_verdict(stored: dict, program: ProtocolProgram, protocol: np.ndarray,
                    multipliers: dict, value: float) -> Verdict:
    """Re-check a claiming ``certificate.optimality`` by the bound it holds (``bound``:
    weak duality, else the Lagrangian model, the default of records before it)."""
    if stored.get("bound") == WEAK:
        return weak_verdict(stored, program, value)
    if not isinstance(stored.get("dual"), dict) or "terms" not in stored["dual"]:
        return Verdict(False, "optimality: NOT proved", ("the Lagrangian claim has no "
                                                         "Lagrangian dual",))
    return verdict(stored, conic_instance(program), protocol, multipliers)


def weak_verdict(stored: dict, program: ProtocolProgram, value: float) -> Verdict:
    """Re-check a stored claim by weak duality (``bound`` is ``"weak duality"``) without the
    solver: the compiled program rebuilt from the declaration and the counts, the bound
    recomputed from the stored dual, compared with the stored ``lower`` (to
    :data:`MATCH_TOLERANCE` either way) and the model; ``value`` is the record's value,
    the upper end as the certificate check accepts it."""
    dual = stored.get("dual")
    if not isinstance(dual, dict) or dual.get("form") not in ("direct", "cvxpy"):
        return Verdict(False, "optimality: NOT proved", ("the claim by weak duality has no "
                                                         "dual of a compiled form",))
    form, z = str(dual["form"]), np.asarray(dual.get("z", []), dtype=float)
    try:
        bound = program_lower_bound(program, form, z)
    except ValueError as exc:
        return Verdict(False, "optimality: NOT proved", (str(exc),))
    model = bound_model(program, form, bound)
    problems = [] if bound.proved else [f"the stored dual proves no bound ({bound.reason})"]
    if stored.get("model") != model:
        problems.append(f"the claim is of the model {stored.get('model')!r}, the record's "
                        f"program is {model!r}")
    if bound.proved and abs(float(stored["lower"]) - bound.lower) > \
            MATCH_TOLERANCE * (1 + abs(bound.lower)):
        problems.append(f"the stored lower bound {float(stored['lower']):.15g} is not the one "
                        f"its dual proves ({bound.lower:.15g})")
    if problems:
        return Verdict(False, "optimality: NOT proved", tuple(problems))
    lower = bound.lower
    upper = float_above(accepted_upper(value))
    if lower > upper:
        return Verdict(False, "optimality: NOT proved", (_crossed(lower, upper),))
    gap = float_above(flint.arb(upper) - flint.arb(lower))
    rel = relative(gap, upper)
    return Verdict(True, f"optimal within {rel:.3g} (relative): proved",
                   (f"model: {model}",
                    f"lower bound on the optimum {lower:.12g} (weak duality on the compiled "
                    f"program from the stored dual of its {z.size} rows, summed in ball "
                    "arithmetic)",
                    f"upper bound on the returned protocol's objective {upper:.12g} (the "
                    "value, as the certificate check accepts it)",
                    f"gap {gap:.3g} absolute, {rel:.3g} relative to max(1, |upper|)"),
                   {"lower": lower, "upper": upper, "gap": gap, "relative_gap": rel})


def verdict(stored: dict, instance: Instance, protocol: np.ndarray,
            multipliers: dict) -> Verdict:
    """Re-check a stored claimed ``certificate.optimality`` without the solver.

    Both bounds are recomputed from the stored dual, the counts and the
    protocol; the claim holds when every member is proved to lie in its set
    and the stored bounds are the recomputed ones (to :data:`MATCH_TOLERANCE`):
    a tampered dual, a moved bound, or a dual of another instance fail.
    """
    dual = LagrangianDual.from_json(stored["dual"])
    low, high = lower_bound(instance, dual), upper_bound(instance, protocol, multipliers)
    problems = low.problems + high.problems
    if not problems:
        problems += _mismatches(stored, instance, low, high)
    if problems:
        return Verdict(False, "optimality: NOT proved", tuple(problems))
    lower, upper = float_below(low.value), float_above(high.value)
    gap = float_above(flint.arb(upper) - flint.arb(lower))
    rel = relative(gap, upper)
    qualifier = PRODUCT_QUALIFIER if instance.product and instance.robust_privacy else ""
    return Verdict(True, f"optimal within {rel:.3g} (relative){qualifier}: proved",
                   (f"model: {instance.model}",
                    f"lower bound on the optimum {lower:.12g} (Lagrangian dual, "
                    f"{dual.weights.size} privacy terms, members of the sets proved "
                    f"{_proof_kind(instance)})",
                    f"upper bound on the returned protocol's objective {upper:.12g}",
                    f"gap {gap:.3g} absolute, {rel:.3g} relative to max(1, |upper|)"),
                   {"lower": lower, "upper": upper, "gap": gap, "relative_gap": rel})


def _crossed(lower: float, upper: float) -> str:
    """Why a lower bound above the returned protocol's objective proves nothing: the
    protocol is feasible for the program the record names, so its objective is at least
    that program's optimum; a bound above it is of another program (a compiled program
    tighter than the one named: a margin inside ``K*`` on derived counterparts did that,
    ``tests/optimality/test_derived_claims.py``)."""
    return f"the lower bound {lower:.15g} is above the returned protocol's objective " \
        f"{upper:.15g}: the bound is not on the program the protocol is proved feasible for"


def _proof_kind(instance: Instance) -> str:
    if instance.product and Capability.LINEAR in getattr(instance.uncertainty, "capabilities",
                                                          frozenset()):
        return "in exact rationals"
    return f"in {BITS}-bit ball arithmetic"


def _mismatches(stored: dict, instance: Instance, low: Bound, high: Bound) -> list[str]:
    found = []
    if stored.get("model") != instance.model:
        found.append(f"the claim is of the model {stored.get('model')!r}, the record's "
                     f"program is {instance.model!r}")
    for name, ball in (("lower", low.value), ("upper", high.value)):
        value = float(stored[name])
        recomputed = float(ball.mid())
        if abs(value - recomputed) > MATCH_TOLERANCE * (1 + abs(recomputed)):
            found.append(f"the stored {name} bound {value:.15g} is not the one its dual and "
                         f"protocol prove ({recomputed:.15g})")
    return found
