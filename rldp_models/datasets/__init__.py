"""Public data sets the papers' experiments read from a local copy (never bundled)."""

from rldp_models.datasets.adult import (ADULT_PAIRS, adult_crosstab, default_adult_path,
                                        download_adult, load_adult)

__all__ = ["ADULT_PAIRS", "adult_crosstab", "default_adult_path", "download_adult",
           "load_adult"]
