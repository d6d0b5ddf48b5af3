"""The tables the papers' experiments run on: the UCI Adult data set, read from a local copy
(never bundled), and random instances drawn from the Jeffreys prior.

Adult
-----
The 1994 US census (``n = 32561``) as used in Sec. VIII-G of
``rldp-privacy-utility-tradeoff.txt``.

The paper (Fig. 10) pairs the categorical attributes *sex*, *race*,
*education*, *occupation*, *relationship* and *native-country* as ``(S, U)``
and labels each panel with ``(a_1, a_2)``. Reading: the attributes are taken
in the caption's order, two by two -- ``(sex, race) = (2, 5)``,
``(education, occupation) = (16, 15)``, ``(relationship, native-country) =
(6, 42)`` -- and no category is merged (the paper names no binning): the
UCI missing-value mark ``?`` stays a category of its own, which is what makes
native-country's ``a_2 = 42`` quoted for Fig. 11.

The file is read from a local copy: the UCI ``adult.data`` without a header,
or the same columns with a header row. :func:`download_adult` fetches the UCI
file for online users; the tests never call it.

Random instances
----------------
The synthetic instances of the robust-optimization paper (Section V) and of
the RLDP paper (Secs. VIII-A to VIII-F): a true distribution ``P*`` from the
Jeffreys prior (:func:`jeffreys_instance`) and a sample of ``n`` records from
it. pandas is imported only to read Adult.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from rldp_models.data import Crosstab
from rldp_models.errors import InputError

if TYPE_CHECKING:
    import pandas as pd

ADULT_COLUMNS = ("age", "workclass", "fnlwgt", "education", "education-num",
                 "marital-status", "occupation", "relationship", "race", "sex",
                 "capital-gain", "capital-loss", "hours-per-week", "native-country", "Salary")
"""Column names of ``adult.data`` (UCI ``adult.names``; the last is the income class)."""

ADULT_PAIRS = (("sex", "race"), ("education", "occupation"), ("relationship", "native-country"))
"""``(S, U)`` attribute pairs of Fig. 10, in the caption's order."""

ADULT_URL = "https://archive.ics.uci.edu/ml/machine-learning-databases/adult/adult.data"
"""The UCI copy :func:`download_adult` fetches."""

ADULT_ENV = "RLDP_ADULT_DATA"
"""Environment variable naming the local ``adult.data``."""


SHARED_ADULT = Path("shared") / "data" / "adult" / "adult.data"
"""Where the shared copy sits beside a source checkout (``<checkout>/../shared/...``)."""


def default_adult_path() -> Path:
    """``$RLDP_ADULT_DATA``, else the first ``shared/data/adult/adult.data`` beside the
    package's project root or one of its parents (a checkout, or a worktree one level
    deeper), whatever the working directory; else ``<project root>/../`` that path, absent."""
    if ADULT_ENV in os.environ:
        return Path(os.environ[ADULT_ENV])
    root = Path(__file__).resolve().parents[1]
    found = [parent / SHARED_ADULT for parent in root.parents if (parent / SHARED_ADULT).is_file()]
    return found[0] if found else root.parent / SHARED_ADULT


def load_adult(path: str | Path) -> pd.DataFrame:
    """The records of ``adult.data`` as strings, one column per attribute.

    Raises
    ------
    InputError
        When the file is absent or does not have the 15 Adult columns.
    """
    import pandas as pd

    path = Path(path)
    if not path.is_file():
        raise InputError(f"Adult data not found at {path}; set {ADULT_ENV} or pass its path "
                         f"(download: {ADULT_URL})")
    try:
        frame = pd.read_csv(path, header=None, skipinitialspace=True, dtype=str)
    except (OSError, pd.errors.ParserError, pd.errors.EmptyDataError,
            UnicodeDecodeError) as exc:
        raise InputError(f"{path}: not an Adult file ({str(exc).splitlines()[0]})") from None
    if frame.shape[1] != len(ADULT_COLUMNS):
        raise InputError(f"{path}: expected the 15 Adult columns, got {frame.shape[1]}")
    if tuple(frame.iloc[0]) == ADULT_COLUMNS:  # the shared copy has a header row
        frame = frame.iloc[1:].reset_index(drop=True)
    frame.columns = list(ADULT_COLUMNS)
    return frame


def adult_crosstab(path: str | Path, sensitive: str, public: str) -> Crosstab:
    """Counts of ``(sensitive, public)`` over all records, categories unmerged (``?`` kept).

    Labels are sorted alphabetically.
    """
    if sensitive == public:
        raise InputError(f"the same attribute {sensitive!r} as S and U; choose two different ones")
    frame = load_adult(path)
    for column in (sensitive, public):
        if column not in frame.columns:
            raise InputError(f"no Adult attribute {column!r}; attributes are "
                             f"{', '.join(ADULT_COLUMNS)}")
    import pandas as pd

    table = pd.crosstab(frame[sensitive], frame[public]).sort_index().sort_index(axis=1)
    return Crosstab(table.to_numpy(), tuple(table.index), tuple(table.columns))


def download_adult(destination: str | Path) -> Path:
    """Fetch the UCI ``adult.data`` to ``destination`` (online users only)."""
    import urllib.request

    destination = Path(destination)
    destination.parent.mkdir(parents=True, exist_ok=True)
    urllib.request.urlretrieve(ADULT_URL, destination)  # noqa: S310 (fixed https URL)
    return destination


@dataclass(frozen=True)
class Instance:
    """A true distribution ``P*`` and a sample of ``n`` records drawn from it."""

    p_star: np.ndarray  # (|S|, |U|)
    crosstab: Crosstab
    seed: int


def jeffreys_instance(n_s: int, n_u: int, n: int, seed: int) -> Instance:
    """Draw ``P*`` from the Jeffreys prior (Dirichlet(1/2)) and ``n`` records from ``P*``.

    S and U are labelled ``0, 1, ...`` as in the paper (``U`` numeric, so the
    squared distortion applies).
    """
    rng = np.random.default_rng(seed)
    p_star = rng.dirichlet(np.full(n_s * n_u, 0.5)).reshape(n_s, n_u)
    counts = rng.multinomial(n, p_star.ravel()).reshape(n_s, n_u)
    return Instance(p_star, Crosstab.from_array(counts), seed)
