"""The protocols compared in Sec. VIII of ``rldp-privacy-utility-tradeoff.txt``, as table rows.

:func:`utility_rows` runs every requested protocol on one crosstab and level
and returns one row per protocol with ``I_Phat(X;Y)`` (nats), ``H_Phat(X)``
and the normalised utility ``I_Phat(X;Y) / H_Phat(X)`` the paper plots; with
a true distribution ``P*`` the rows also carry ``I_{P*}(X;Y)`` (Sec. VIII-F).

Every protocol is built by :mod:`rldp_models.rldp_protocols` and its utility
computed from its matrix. UE-CR is built in product form
(:func:`~rldp_models.rldp_protocols.factored_builders.ue_cr_factored`: its
factors, certified by the factor check, about 3x faster than the dense
builder at 5x5) and its utility taken from the factors; its dense matrix is
expanded only where ``I_{P*}`` needs it. When that matrix is too large
(``(|U|+1)^|S|`` outputs, e.g. Adult's ``6 x 42``) the parameters are searched
and the utility taken from Theorem 20, which is exact at ``P = Phat``
(:func:`ue_cr_utility_only`). For ``|S| > UE_MAX_SECRETS`` even Theorem 20's
``2^|S|`` subsets are too many and UE-CR is reported as ``nan``.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import cvxpy
import numpy as np
from scipy.stats import entropy

from rldp_models.data import Crosstab
from rldp_models.rldp_protocols import (grr_conditional, grr_protocol, independent_reporting,
                                        polyopt_protocol, srr_protocol, ue_conditional)
from rldp_models.rldp_protocols.components import (chi_square_set, conditional_radii,
                                                   theorem17_levels)
from rldp_models.rldp_protocols.factored_builders import ue_cr_factored
from rldp_models.rldp_protocols.ue_conditional import ue_cr_parameters, ue_cr_utility
from rldp_models.utility import MutualInformation
import solvers

class BuiltProtocol(Protocol):
    """What the tables read from every builder's result."""

    @property
    def Q(self) -> np.ndarray: ...  # noqa: N802 (the papers' name)

    @property
    def utility_hat(self) -> float: ...


BUILDERS: dict[str, Callable[[Crosstab, float, float], BuiltProtocol]] = {
    "polyopt": polyopt_protocol, "ir": independent_reporting, "grr-cr": grr_conditional,
    "ue-cr": ue_conditional, "srr": srr_protocol, "grr": grr_protocol}
"""Protocol builders by the method names used in the tables."""

LABELS = {"polyopt": "PolyOpt", "ir": "IR", "grr-cr": "GRR-CR", "ue-cr": "UE-CR",
          "srr": "SRR", "grr": "GRR"}
"""Legend names as in the paper's captions."""

COLOURS = {"polyopt": "tab:purple", "ir": "tab:blue", "grr-cr": "tab:orange",
           "ue-cr": "tab:green", "srr": "tab:red", "grr": "tab:gray"}
"""One colour per method across all figures."""

LOW_COMPLEXITY = ("ir", "grr-cr", "ue-cr", "srr", "grr")
"""The protocols of Figs. 3, 4 and 7 (all but PolyOpt)."""

SOLVER_FAILURES = (cvxpy.error.SolverError, solvers.SolverError)
"""Failures recorded as ``nan`` rows instead of ending the run."""

UE_MATRIX_LIMIT = 10_000
"""Largest ``(|U|+1)^|S|`` for which UE-CR's matrix is built."""

UE_MAX_SECRETS = 10
"""Largest ``|S|`` for which UE-CR is evaluated at all (Theorem 20 sums ``2^|S|`` terms)."""


def utility_rows(crosstab: Crosstab, eps: float, alpha: float, methods: Sequence[str],
                 p_star: np.ndarray | None = None) -> list[dict[str, Any]]:
    """One row per method: ``method, eps, alpha, utility_hat, entropy_hat, normalised, error,
    seconds`` (wall time of building and certifying the protocol: data, never asserted).

    A solver failure (:data:`SOLVER_FAILURES`, e.g. in PolyOpt's LP or its
    certification) gives ``nan`` utilities and its first line in ``error``.

    With ``p_star`` (shape ``(|S|, |U|)``) the rows add ``utility_star = I_{P*}(X;Y)``
    computed from the protocol's matrix.
    """
    entropy_hat = float(entropy(crosstab.phat.ravel()))
    rows = []
    for method in methods:
        error = ""
        start = time.perf_counter()
        try:
            utility, Q = _utility_and_matrix(method, crosstab, eps, alpha,
                                             with_matrix=p_star is not None)
            if math.isnan(utility):
                error = f"skipped: UE-CR with |S| = {crosstab.shape[0]} > {UE_MAX_SECRETS}"
        except SOLVER_FAILURES as exc:  # one failed LP must not end a 200-instance run
            utility, Q, error = math.nan, None, f"{type(exc).__name__}: {exc}".splitlines()[0]
        row = {"method": method, "eps": eps, "alpha": alpha, "utility_hat": utility,
               "entropy_hat": entropy_hat, "normalised": utility / entropy_hat, "error": error,
               "seconds": time.perf_counter() - start}
        if p_star is not None:
            row["utility_star"] = (MutualInformation(p_star.ravel()).total(Q)
                                   if Q is not None else math.nan)
        rows.append(row)
    return rows


def _utility_and_matrix(method: str, crosstab: Crosstab, eps: float, alpha: float,
                        with_matrix: bool = True) -> tuple[float, np.ndarray | None]:
    """``I_Phat(X;Y)`` of the method's protocol and its matrix (``None`` if not built; UE-CR's
    is expanded from its factors only ``with_matrix``)."""
    n_s, n_u = crosstab.shape
    if method == "ue-cr" and (n_u + 1) ** n_s > UE_MATRIX_LIMIT:
        return (ue_cr_utility_only(crosstab, eps, alpha) if n_s <= UE_MAX_SECRETS
                else math.nan), None
    if method == "ue-cr":
        try:
            product = ue_cr_factored(crosstab, eps, alpha)
        except RuntimeError:  # its factors did not prove eps: the dense builder below
            product = None
        if product is not None:
            return product.utility(crosstab.phat), product.dense() if with_matrix else None
    protocol = BUILDERS[method](crosstab, eps, alpha)
    return protocol.utility_hat, protocol.Q


def ue_cr_utility_only(crosstab: Crosstab, eps: float, alpha: float) -> float:
    """Theorem 20's ``I_Phat`` of the best ``(eps, F)``-RLDP UE-CR, without its matrix.

    The parameters are :func:`~rldp_models.rldp_protocols.ue_conditional.ue_cr_parameters`'s
    (the protocol's own search); the matrix, with ``(|U|+1)^|S|`` outputs, is never built.
    """
    _, eps2, kappa, lam = ue_cr_parameters(crosstab, eps, alpha)
    radii = conditional_radii(chi_square_set(crosstab, alpha))
    return ue_cr_utility(crosstab.phat, kappa, lam, theorem17_levels(eps2, radii))

