"""The estimate figure: readable PNGs whatever the number of coordinates."""

from __future__ import annotations

import matplotlib.image
import numpy as np
import pandas as pd

from rldp_models.disclosure.estimation import MAX_FIGURE_INCHES, plot_estimate


def _frame(count: int, estimable: bool) -> pd.DataFrame:
    values = np.full(count, 1.0 / count) if estimable else np.full(count, np.nan)
    return pd.DataFrame({"target": [f"P_X(s{k}, u{k})" for k in range(count)],
                         "estimable": estimable, "em": values, "em_low": values * 0.9,
                         "em_high": values * 1.1, "inversion": values,
                         "inversion_low": values * 0.9, "inversion_high": values * 1.1,
                         "truth": np.full(count, 1.0 / count),
                         "reason": "" if estimable else "not estimable"})


def test_a_target_with_nothing_estimable_still_makes_a_readable_figure(tmp_path) -> None:
    # the figure used to be empty axes with a legend of nothing
    path = tmp_path / "none.png"
    plot_estimate(_frame(16, estimable=False), path, "nothing")
    image = matplotlib.image.imread(path)
    assert image.ndim == 3 and image.shape[1] >= 8 * 120 - 2
    assert image[..., :3].std() > 0  # not a blank page: the text is drawn


def test_a_large_target_figure_is_capped_in_width(tmp_path) -> None:
    path = tmp_path / "wide.png"
    plot_estimate(_frame(240, estimable=True), path, "education x occupation", level=0.9)
    image = matplotlib.image.imread(path)
    assert image.shape[1] <= MAX_FIGURE_INCHES * 120 + 2
