"""rldp-models: optimal and robust local-differential-privacy release protocols.

The modelling layer: data (:mod:`rldp_models.data`), uncertainty sets
(:mod:`rldp_models.uncertainty`), symbolic derivations
(:mod:`rldp_models.symbolic`), robust protocol programs
(:mod:`rldp_models.programs`), evaluation and exact privacy checks
(:mod:`rldp_models.privacy`), the Python API (:mod:`rldp_models.api`: ``rldp_models.solve``,
``verify``, ``compare``, ``compare_solvers``, ``coverage``, ``release``,
``estimate``, ``curve``), and the
``rldp`` command line.
"""

__version__ = "0.1.0"

API = {"solve": "solve", "verify": "verify", "compare": "compare",
       "compare_solvers": "compare_solvers", "coverage": "coverage",
       "release": "release", "estimate": "estimate", "crosstab_of": "crosstab_of",
       "curve": "curve"}
"""The one-call-per-command functions (:mod:`rldp_models.api`) by their name here, imported on
first use so that ``import rldp_models`` stays cheap (the release stage's package is
:mod:`rldp_models.disclosure`)."""


def __getattr__(name: str) -> object:
    if name in API:
        from rldp_models import api

        return getattr(api, API[name])
    raise AttributeError(f"module 'rldp_models' has no attribute {name!r}")
