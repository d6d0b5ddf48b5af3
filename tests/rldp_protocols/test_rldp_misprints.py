"""UE-CR as printed (Protocol 3: dummy ``U~ ~ Phat_{U|s}``, the true secret) is not RLDP.

DESIGN.md lists the suspected misprint: the dummy for ``t != s`` must be drawn
from ``Phat_{U|t}`` (as eq. 92's factors ``T^_t`` require). Here the printed
reading is built step by step with the parameters the corrected search chose,
and the checker's *attained* level (a witness in F, a lower bound on the true
level) exceeds eps, while the corrected protocol is certified within eps.
"""

from __future__ import annotations

import itertools

import numpy as np

from rldp_models.data import Crosstab
from rldp_models.mechanisms import RandomizedResponse, UnaryEncoding, index_to_bits
from rldp_models.rldp_protocols import rldp_epsilon, ue_conditional

ALPHA = 0.05
DEPENDENT = Crosstab.from_array([[40, 6, 4], [5, 7, 38]])


def printed_protocol_3(crosstab: Crosstab, kappa: float, lam: float, eps1: float,
                       levels: list[float]) -> np.ndarray:
    """Protocol 3 read literally: every dummy report uses ``Phat_{U|s}`` of the input's s."""
    n_s, n_u = crosstab.shape
    conditionals = crosstab.phat / crosstab.phat.sum(axis=1, keepdims=True)
    encoding = UnaryEncoding(kappa, lam, n_s, eps1).matrix()
    public = [RandomizedResponse(level, n_u).matrix() for level in levels]
    rows = []
    for s, u in itertools.product(range(n_s), range(n_u)):
        row = []
        for index, members in enumerate(index_to_bits(np.arange(2 ** n_s), n_s)):
            chosen = np.flatnonzero(members)
            for reports in itertools.product(range(n_u), repeat=chosen.size):
                value = encoding[s, index]
                for t, v in zip(chosen, reports):
                    value *= public[t][u, v] if t == s else conditionals[s] @ public[t][:, v]
                row.append(value)
        rows.append(row)
    return np.array(rows)


def test_printed_ue_cr_leaks_beyond_eps_and_the_corrected_one_does_not():
    eps = 1.0
    corrected = ue_conditional(DEPENDENT, eps, ALPHA)
    assert rldp_epsilon(corrected.Q, DEPENDENT, ALPHA).certified <= eps
    p = corrected.parameters
    printed = printed_protocol_3(DEPENDENT, p["kappa"], p["lambda"], p["eps_1"], p["delta"])
    assert np.allclose(printed.sum(axis=1), 1.0)
    assert rldp_epsilon(printed, DEPENDENT, ALPHA).attained > 1.5 * eps
