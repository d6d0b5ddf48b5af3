"""Proven lower bounds on the optimum of any compiled conic program, by weak duality.

:func:`proven_lower_bound` takes ``min c.x + offset, A x + s = b, s in K`` and an
approximate dual; :func:`conic_lower_bound` and :func:`cvxpy_lower_bound` read the two
compiled forms the toolkit solves (:mod:`rldp_models.optimality.adapters`).

Beside that engine, the optimality gaps of the protocol programs, imported by their
modules (this face imports none of them, so the engine needs no program or set):
the Lagrangian model of the four programs (:mod:`~rldp_models.optimality.lagrangian`)
and its dual from a solve (:mod:`~rldp_models.optimality.lagrangian_dual`), weak
duality on a compiled program (:mod:`~rldp_models.optimality.program_bound`), and the
claim a record keeps (:mod:`~rldp_models.optimality.best_claim`).
"""

from rldp_models.optimality.adapters import conic_lower_bound, cvxpy_columns, cvxpy_lower_bound, \
    declared_rows_dual
from rldp_models.optimality.cones import DualCones
from rldp_models.optimality.weak_duality import LowerBound, proven_lower_bound

__all__ = ["DualCones", "LowerBound", "conic_lower_bound", "cvxpy_columns", "cvxpy_lower_bound",
           "declared_rows_dual", "proven_lower_bound"]
