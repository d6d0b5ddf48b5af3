"""The repair that mixes each secret's rows with reference protocols at weights of their own.

The finish path repairs a protocol ``Q`` that fails its exact check by one mix
``(1 - b) Q + b R`` (:mod:`rldp_models.finish`). Where a guarantee's constraint values
have bounds affine in per-secret weights (``secret_margins`` of the block contract: robust
privacy in product form, whose conditional bounds of secret ``s`` mix with the
reference's), each secret ``s`` can instead take weights ``w_rs`` of its own toward each
reference ``R_r`` (the uniform protocol ``U``, and the tightened program's protocol):

    Q'[s, u, :] = (1 - sum_r w_rs) Q[s, u, :] + sum_r w_rs R_r[s, u, :].

The objective ``f`` is convex in the protocol and ``Q'`` is the convex combination
``(1 - sum w) Q + sum_rs w_rs Q^(rs)`` (``Q^(rs)``: ``Q`` with secret ``s``'s rows from
``R_r``), so ``f(Q') <= f(Q) + sum_rs w_rs c_rs`` with ``c_rs = f(Q^(rs)) - f(Q)``. The
weights are the linear program

    min  c.w   s.t.   margins + sum_r slopes_r w_r <= 0   (every guarantee),
                      sum_r w_rs <= 1,   w >= 0,

solved by HiGHS; the mix is then rounded, checked exactly (at the mixed multipliers, then
afresh) and topped up by the ordinary uniform mix if a constraint still fails.

Why it pays: the proof of a conditional bound of secret ``s`` loses about the solver's
residual divided by ``P(s)`` (:mod:`rldp_models.uncertainty.conditional_dual`), so the
failing constraints are those of secrets with few records, and moving only their rows costs
about ``P(s)`` times what moving every row would. On V3 over Adult race x marital-status
(secrets from 0.8% to 85% of the records) one weight on the tightened reference cost 1.1e-5
of the objective, and weights per secret on it and on ``U`` 6e-7 (predicted by the LP).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Sequence

import numpy as np
from scipy.optimize import linprog

from rldp_models.finish import Certify, Finished, GuaranteeError, Repair, finish
from rldp_models.programs.contract import Multipliers, Reference, SecretMargins

if TYPE_CHECKING:
    from rldp_models.programs.protocol_program import ProtocolProgram

MARGINS = (0.001, 0.1, 10.0)
"""The LP asks every bound to be at most minus this times the largest violation, one exact
check each while the mix needs a uniform top-up: the mix's bounds are proved afresh and may
land a little above the mixed ones."""


def secret_rows(protocol: np.ndarray, references: Sequence[np.ndarray],
                weights: Sequence[np.ndarray]) -> np.ndarray:
    """``protocol`` with secret ``s``'s rows mixed with each ``references[r]``'s at
    ``weights[r][s]``."""
    def per_row(w: np.ndarray) -> np.ndarray:
        return np.repeat(np.asarray(w, dtype=float), protocol.shape[0] // len(w))[:, None]
    kept = 1.0 - sum((per_row(w) for w in weights), np.zeros((protocol.shape[0], 1)))
    return kept * protocol + sum(per_row(w) * matrix for w, matrix in zip(weights, references))


def secret_weights(found: Sequence[Sequence[SecretMargins]], costs: np.ndarray,
                   margin: float = 0.0) -> np.ndarray | None:
    """The cheapest weights, shape ``(references, |S|)``, that make every bound ``<=
    -margin`` times the largest violation (the module docstring's LP; ``found[g][r]``:
    guarantee ``g`` toward reference ``r``); None if HiGHS finds none.

    The weights are solved in units of the largest violation ``m`` (``w = m z``), so that
    the rows' right-hand sides are of order 1: violations of 1e-8 lie below HiGHS's
    feasibility tolerance (1e-7) in the weights' own units.
    """
    n_refs, n_s = costs.shape
    slopes = np.vstack([np.hstack([margins.slopes for margins in per_reference])
                        for per_reference in found])
    values = np.concatenate([per_reference[0].margins for per_reference in found])
    unit = float(values.max())
    shares = np.hstack([np.eye(n_s)] * n_refs)
    answer = linprog(np.maximum(costs, 0.0).ravel(), A_ub=np.vstack([slopes, shares]),
                     b_ub=np.concatenate([-values / unit - margin, np.full(n_s, 1.0 / unit)]),
                     bounds=(0.0, 1.0 / unit), method="highs")
    if answer.status != 0 or answer.x is None:
        return None
    return np.clip(unit * answer.x, 0.0, 1.0).reshape(n_refs, n_s)


def secret_mix_repair(program: "ProtocolProgram", protocol: np.ndarray, before: float,
                      multipliers: Multipliers, references: Sequence[Reference],
                      certifier: Callable[[Multipliers], Certify], holds: Callable[[Any], bool],
                      first_weight: Callable[[Any], float | None],
                      topped_up: Callable[[Multipliers, float], Multipliers]
                      ) -> tuple[Finished, np.ndarray, Multipliers] | None:
    """The per-secret mix of ``protocol`` (exact rows, objective ``before``) toward
    ``references`` (None: the
    uniform protocol) that passes every exact check: its finished matrix, the weights
    (shape ``(references, |S|)``) and the multipliers proving it; None where a guarantee has
    no affine bounds, where nothing fails, or where no mix passes.

    ``certifier(multipliers)`` is the finish path's exact check (``(matrix, weight)``, the
    weight of a further uniform mix) starting from ``multipliers``; ``first_weight`` gives
    that top-up mix's first weight from a failed verdict, and ``topped_up(multipliers,
    weight)`` the multipliers it is checked at. The LP asks for more slack while
    the mix needs the top-up (:data:`MARGINS`); the cheapest mix is kept.
    """
    found = [[family.secret_margins(protocol, program, multipliers, reference)
              for reference in references] for family in program.guarantees]
    affine = [[margins for margins in per_reference if margins is not None]
              for per_reference in found]
    if not affine or any(len(per) != len(references) for per in affine) or \
            not any(np.any(per[0].margins > 0.0) for per in affine):
        return None
    matrices = [np.full(protocol.shape, 1.0 / protocol.shape[1]) if reference is None
                else reference[0] for reference in references]
    objective = program.objective
    n_s = program.crosstab.shape[0]
    costs = np.array([[objective.evaluate(secret_rows(protocol, [matrix], [np.eye(n_s)[s]]),
                                          program) - before for s in range(n_s)]
                      for matrix in matrices])
    kept: tuple[Finished, np.ndarray, Multipliers] | None = None
    for margin in MARGINS:
        weights = secret_weights(affine, costs, margin)
        if weights is None:
            break
        mixed = {**multipliers, **{group: values for family, per in
                                   zip(program.guarantees, affine)
                                   for group, values in family.secret_mixed_multipliers(
                                       per, list(weights), protocol.shape[1]).items()}}
        try:
            finished = finish(secret_rows(protocol, matrices, list(weights)), certifier(mixed),
                              holds, value=lambda matrix: objective.evaluate(matrix, program),
                              first_weight=first_weight)
        except GuaranteeError:
            finished = None
        if finished is not None and finished.repair.method != "fallback" and (
                kept is None or finished.value < kept[0].value):
            kept = (finished, weights, mixed if finished.repair.method == "none" else
                    topped_up(mixed, finished.repair.weight))
        if finished is not None and finished.repair.method == "none":
            break
    return kept


def secret_repair(finished: Finished, weights: np.ndarray, names: Sequence[str],
                  value_before: float | None) -> Repair:
    """The record of a per-secret mix: ``weight`` the largest weight taken off a secret's
    rows, ``secret_weights`` each reference's weights by its name, and the top-up uniform
    mix's weight as ``uniform_weight``."""
    return Repair("mix", float(weights.sum(axis=0).max()), value_before,
                  finished.repair.value_after, "per secret", finished.repair.weight,
                  tuple((name, tuple(float(w) for w in row)) for name, row in zip(names, weights)))
