"""Names of the four programs of the robust-optimization paper (eqs. 7-10).

Each maps to ``(robust utility, robust privacy)``. Kept free of heavy imports so
the command line can list the names without loading a modelling layer.
"""

PRESETS: dict[str, tuple[bool, bool]] = {
    "NUNP": (False, False),
    "NURP": (False, True),
    "RUNP": (True, False),
    "RURP": (True, True),
}

UNCERTAINTY_SETS: tuple[str, ...] = ("chi2", "kl", "tv", "box", "power", "renyi")
"""Names of the uncertainty sets ``rldp solve --uncertainty`` accepts
(:mod:`rldp_models.uncertainty.named`)."""
