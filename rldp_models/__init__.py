"""rldp-models: optimal and robust local-differential-privacy release protocols.

The modelling layer: data (:mod:`rldp_models.data`), uncertainty sets
(:mod:`rldp_models.uncertainty`), symbolic derivations
(:mod:`rldp_models.symbolic`), robust protocol programs
(:mod:`rldp_models.programs`), evaluation and exact privacy checks
(:mod:`rldp_models.privacy`), and the ``rldp`` command line.
"""

__version__ = "0.1.0"
