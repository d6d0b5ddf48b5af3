"""Reference protocols of ``rldp-privacy-utility-tradeoff.txt`` that ignore ``F``: SRR and GRR.

* SRR (Definition 5, eq. 18) is ``(eps, P_X)``-RLDP (Lemma 6), hence
  ``(eps, F)``-RLDP for every ``F``; optimal for large ``eps`` (Theorem 7).
* GRR on ``X`` (eq. 16) is ``eps``-LDP, hence ``(eps, F)``-RLDP for every ``F``.

Both output ``Y = X = S x U`` (row-major) and are returned as
:class:`~rldp_models.rldp_protocols.components.RLDPProtocol` like IR and CR.
"""

from __future__ import annotations

from rldp_models.data import Crosstab
from rldp_models.mechanisms import SecretRandomizedResponse
from rldp_models.rldp_protocols.components import RLDPProtocol, grr, protocol_result


def _x_labels(crosstab: Crosstab) -> list[list[str]]:
    return [[s, u] for s in crosstab.s_labels for u in crosstab.u_labels]


def srr_protocol(crosstab: Crosstab, eps: float, alpha: float) -> RLDPProtocol:
    """SRR of level ``eps`` on the crosstab's ``S x U`` (``alpha`` only labels the record)."""
    n_s, n_u = crosstab.shape
    Q = SecretRandomizedResponse(eps, n_s, n_u).matrix()
    return protocol_result("srr", crosstab, eps, alpha, Q, _x_labels(crosstab),
                           {"uncertainty": "all distributions (Lemma 6)"}, None)


def grr_protocol(crosstab: Crosstab, eps: float, alpha: float) -> RLDPProtocol:
    """GRR of level ``eps`` on ``X = S x U`` (eq. 16; ``alpha`` only labels the record)."""
    n_s, n_u = crosstab.shape
    Q = grr(eps, n_s * n_u)
    return protocol_result("grr", crosstab, eps, alpha, Q, _x_labels(crosstab),
                           {"uncertainty": "all distributions (eps-LDP)"}, None)
