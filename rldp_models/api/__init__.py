"""The Python API: one call per ``rldp`` command, each returning a self-describing outcome.

>>> import rldp_models as rldp                                      # doctest: +SKIP
>>> solved = rldp.solve("RURP", df, sensitive="race", public="education", eps=1,
...                     distortion="hamming")                       # doctest: +SKIP
>>> solved.to_frame(); solved.guarantees(); rldp.verify(solved)     # doctest: +SKIP

See :mod:`rldp_models.api.calls`, :mod:`rldp_models.api.estimation` and
:mod:`rldp_models.api.outcomes`.
"""

from rldp_models.api.calls import (
    NoProtocol,
    ProgramSpec,
    compare,
    coverage,
    crosstab_of,
    curve,
    release,
    solve,
    verify,
)
from rldp_models.api.estimation import Estimated, EstimateWarning, estimate
from rldp_models.api.outcomes import Outcome, Protocol, Released, Solved, Table, Verification


def __getattr__(name: str) -> object:
    """:func:`~rldp_models.api.solver_comparison.compare_solvers`, imported on first use (it
    loads the optimality machinery)."""
    if name == "compare_solvers":
        from rldp_models.api.solver_comparison import compare_solvers

        return compare_solvers
    raise AttributeError(f"module 'rldp_models.api' has no attribute {name!r}")

__all__ = ["EstimateWarning", "Estimated", "NoProtocol", "Outcome", "ProgramSpec", "Protocol",
           "Released", "Solved", "Table", "Verification", "compare", "compare_solvers",
           "coverage", "crosstab_of", "curve", "estimate", "release", "solve", "verify"]
