"""``rldp_models.estimate``: ``M P_X`` from released records, the Python call of ``rldp estimate``.

The released values are what :func:`rldp_models.release` returns, a DataFrame with
the column ``Y``, or the CSV ``rldp release`` wrote; the result is the one they
were released with (a file, or the result object). Only the coordinates the release
determines are estimated (:mod:`rldp_models.disclosure.identifiability`), by EM and projected
inversion with bootstrap intervals (:func:`rldp_models.disclosure.estimation.estimate`).
Warnings (a seeded release, an unchecked file, a fit short of its tolerance) are
:class:`EstimateWarning`.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Union

from rldp_models.api.calls import Data, crosstab_of
from rldp_models.api.outcomes import Outcome, Protocol, Released, html_lines, html_table
from rldp_models.errors import InputError

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

    from rldp_models.data import Crosstab
    from rldp_models.disclosure.channel import ReleaseChannel
    from rldp_models.disclosure.identifiability import Target
    from rldp_models.results.certified import CertifiedResult

ReleasedValues = Union[Released, "pd.DataFrame", str, Path]


class EstimateWarning(UserWarning):
    """Something the estimates should be read with: a seeded release, a release not bound to
    the result, a maximum likelihood fit short of its tolerance."""


@dataclass(frozen=True, repr=False)
class Estimated(Outcome):
    """The estimate of every target coordinate (``rldp estimate``'s table and figure).

    Attributes
    ----------
    frame : pandas.DataFrame
        One row per coordinate: ``target``, ``estimable``, ``em`` with ``em_low`` and
        ``em_high``, ``inversion`` with its interval, ``truth`` (when given) and ``reason``
        (why a coordinate is not estimable; empty otherwise).
    rank, inputs : int
        The channel's rank and its number of inputs.
    converged : bool
        The point fit and at least 99% of the bootstrap fits reached their tolerance.
    draws : int
        Bootstrap tables.
    level : float
        The intervals' level.
    title : str
        What was estimated from what (the figure's title).
    """

    frame: "pd.DataFrame"
    rank: int
    inputs: int
    converged: bool
    draws: int
    level: float
    title: str = ""

    @property
    def estimable(self) -> bool:
        """Whether at least one coordinate was estimated."""
        return bool(self.frame["estimable"].any())

    def to_frame(self) -> "pd.DataFrame":
        return self.frame.copy()

    def note(self, listed_in: str = "to_frame()") -> str | None:
        """The coordinates not estimable and why, in one line (None when all are); past the
        first eight, a count and where they are ``listed_in``."""
        missing = self.frame[~self.frame["estimable"]]
        if missing.empty:
            return None
        names = list(missing["target"])
        more = f", and {len(names) - 8} more (see {listed_in})" if len(names) > 8 else ""
        return (f"not estimable (channel rank {self.rank} of {self.inputs} inputs): "
                f"{', '.join(names[:8])}{more}; {missing['reason'].iloc[0]}")

    def table_text(self) -> str:
        """The estimated coordinates as aligned text, under the intervals' description."""
        from rldp_models.disclosure.estimation import METHOD

        shown = self.frame[self.frame["estimable"]].drop(columns=["estimable", "reason"])
        if shown.empty:
            return ""
        return (f"intervals: {self.level:.0%}, {METHOD}, {self.draws} tables\n"
                + shown.to_string(index=False, float_format=lambda v: f"{v:.4f}"))

    def summary(self) -> str:
        return "\n".join(part for part in (self.note(), self.table_text()) if part)

    def plot(self, path: str | Path) -> None:
        """The estimates and their intervals as a PNG
        (:func:`rldp_models.disclosure.estimation.plot_estimate`)."""
        from rldp_models.disclosure.estimation import plot_estimate

        plot_estimate(self.frame, path, self.title, self.level)

    def _repr_html_(self) -> str:
        return html_lines(self.summary()) + html_table(
            self.frame.drop(columns=["estimable"]), self.title)


def estimate(released: ReleasedValues, result: "CertifiedResult | Protocol | str | Path", *,
             target: str | Path = "U", truth: Data | None = None,
             sensitive: str | None = None, public: str | None = None,
             draws: int | None = None, level: float | None = None, seed: int | None = None,
             unchecked_release: bool = False) -> Estimated:
    """Estimate ``M P_X`` from released records (``rldp estimate``; module docstring).

    Parameters
    ----------
    released : Released, DataFrame or path
        The released values: what :func:`~rldp_models.api.calls.release` returned, a frame
        with the column ``Y``, or the CSV ``rldp release`` wrote.
    result : result, Protocol or path
        The result they were released with. A released file records its result file's
        digest and is read only with that file (``unchecked_release=True`` reads it anyway,
        or with a result object, with a warning).
    target : {"U", "S", "X"} or path
        The marginal of U, of S, the joint, or a target CSV
        (:mod:`rldp_models.disclosure.identifiability`).
    truth : data, optional
        The true records (as for :func:`~rldp_models.api.calls.crosstab_of`), to add their
        own ``M P_X`` as the column ``truth``.
    draws, level, seed
        Bootstrap tables (default 400), interval level (default 0.95), bootstrap seed.

    Raises
    ------
    InputError
        Bad options, unreadable or foreign released values, or truth records the result
        does not cover.
    """
    from rldp_models.disclosure import estimation
    from rldp_models.disclosure.channel import ReleaseChannel
    from rldp_models.disclosure.identifiability import identifiability, target as named_target

    draws = estimation.BOOTSTRAP_DRAWS if draws is None else draws
    level = estimation.LEVEL if level is None else level
    _check(draws, level)
    certified, name = _certified(result)
    channel = ReleaseChannel.from_result(certified)
    counts, source = _released_counts(released, result, channel, unchecked_release)
    goal = named_target(str(target), channel.input_labels)
    known = None if truth is None else _truth(crosstab_of(truth, sensitive, public), channel, goal)
    verdict = identifiability(channel, goal.rows, goal.names)
    table = estimation.estimate(channel.matrix(), counts, goal, verdict, draws, level, seed)
    frame = table.frame
    if known is not None:
        frame.insert(len(frame.columns) - 1, "truth", known)
    if not table.converged and frame["estimable"].any():
        warnings.warn("the maximum likelihood fit did not reach its tolerance on the point "
                      "estimate or 1% of the bootstrap tables; its intervals may be off",
                      EstimateWarning, stacklevel=2)
    return Estimated(frame, verdict.rank, verdict.inputs, table.converged, draws, level,
                     f"{source} with {name}")


def _check(draws: int, level: float) -> None:
    from rldp_models.disclosure.estimation import MAX_DRAWS

    if not 2 <= draws <= MAX_DRAWS:
        raise InputError(f"--draws must lie in [2, {MAX_DRAWS}], got {draws} (each table "
                         "is kept in memory and refitted by EM)")
    if not 0 < level < 1:
        raise InputError(f"--level must lie in (0, 1), got {level}")


def _certified(result: "CertifiedResult | Protocol | str | Path") -> tuple["CertifiedResult", str]:
    """The result and its name (a file is read as
    :func:`~rldp_models.disclosure.channel.load_result` reads it: refused if its recorded
    guarantee does not hold)."""
    from rldp_models.disclosure.channel import load_result

    if isinstance(result, (str, Path)):
        certified = load_result(result)[0]
    else:
        certified = result.result if isinstance(result, Protocol) else result
        if not certified.holds:
            raise InputError("the result's guarantee does not hold; it cannot be used")
    return certified, certified.declaration.name


def _released_counts(released: ReleasedValues, result: object, channel: "ReleaseChannel",
                     unchecked: bool) -> tuple["np.ndarray", str]:
    """Counts of each output among the released values, and what they are called; warns
    of a seeded release and of a file not bound to ``result``."""
    import pandas as pd

    from rldp_models.disclosure.records import RELEASED_COLUMN, check_released_with
    from rldp_models.disclosure.estimation import output_counts, released_counts

    if isinstance(released, Released):
        released = released.to_frame() if released.out is None else released.out
    if isinstance(released, pd.DataFrame):
        if RELEASED_COLUMN not in released.columns:
            raise InputError(f"the released frame has no column {RELEASED_COLUMN!r} "
                             "(the released values)")
        counts, marked = output_counts(released[RELEASED_COLUMN], channel.output_texts(),
                                       "the released frame"), \
            bool(released.attrs.get("not_for_release"))
        source = "released records"
    elif isinstance(released, (str, Path)):
        problem = check_released_with(released, result, unchecked) \
            if isinstance(result, (str, Path)) else _unbound(released, unchecked)
        if problem is not None:
            warnings.warn(problem, EstimateWarning, stacklevel=3)
        counts, marked = released_counts(released, channel.output_texts())
        source = Path(released).name
    else:
        raise InputError(f"released must be a DataFrame or a path, got {type(released).__name__}")
    if marked:
        warnings.warn("the released file is marked NOT FOR RELEASE (seeded)", EstimateWarning,
                      stacklevel=3)
    return counts, source


def _unbound(released: str | Path, unchecked: bool) -> str:
    """A released file read with a result object: its recorded digest names a file."""
    problem = (f"{released} records the digest of the result file it was released with; "
               "a result object cannot be checked against it")
    if not unchecked:
        raise InputError(f"{problem}: give the result file, or accept it with "
                         "--unchecked-release")
    return f"{problem}; read anyway (--unchecked-release)"


def _truth(truth: "Crosstab", channel: "ReleaseChannel", goal: "Target") -> "np.ndarray":
    """``M P_X`` of the true records (InputError if one is not covered by the result)."""
    try:
        return goal.of(channel.distribution(truth))
    except InputError as exc:
        raise InputError(f"--truth: {exc}") from None
