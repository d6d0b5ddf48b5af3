"""Argument helpers shared by the ``rldp`` subcommands: data, eps and alpha, one range each.

Every subcommand takes eps through :func:`epsilon` (``0 <= eps <=``
:data:`~rldp_models.validation.MAX_EPSILON`) and alpha through
:func:`significance` (``0 < alpha < 1``), so one value means the same everywhere.
A command that builds an uncertainty set chooses its radius with
``--radius-from asymptotic|bootstrap`` (:func:`add_radius_arguments`, with the
bootstrap's size and seed; the set is built by
:meth:`rldp_models.api.ProgramSpec.uncertainty_set`).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from pathlib import Path
from typing import IO, TYPE_CHECKING

from rldp_models.errors import InputError
from rldp_models.validation import MAX_EPSILON


if TYPE_CHECKING:
    from rldp_models.data import Crosstab
    from rldp_models.results.certified import CertifiedResult

_loaded: dict[tuple, "Crosstab"] = {}


def add_data_arguments(parser: argparse.ArgumentParser) -> None:
    """``--counts FILE`` or ``--data FILE --sensitive COL --public COL``."""
    group = parser.add_argument_group("data (one of)")
    group.add_argument("--counts", metavar="FILE",
                       help="crosstab CSV: corner cell then U labels; rows: S label, counts")
    group.add_argument("--data", metavar="FILE", help="raw records CSV with a header row")
    group.add_argument("--sensitive", metavar="COL", help="column of S in --data")
    group.add_argument("--public", metavar="COL", help="column of U in --data")


def load_crosstab(args: argparse.Namespace) -> Crosstab:
    """The crosstab named by the data arguments, with at least two secret values.

    Read once per process and file version (the preflight check and the
    command share it); when first read, Cochran's-rule warning is printed as
    one ``rldp: warning:`` line on stderr if the table is sparse
    (:func:`warn_if_sparse`).

    Raises
    ------
    InputError
        On missing or conflicting data arguments, the same column as S and U,
        unreadable data, or a table with a single S value.
    """
    key = _data_key(args)
    if key not in _loaded:
        _loaded[key] = _read_crosstab(args)
        warn_if_sparse(_loaded[key])
    return _loaded[key]


def warn_if_sparse(crosstab: Crosstab, stream: IO[str] | None = None) -> str | None:
    """Print Cochran's-rule warning as one ``rldp: warning:`` line when it applies; return it."""
    from rldp_models.uncertainty.sparsity import sparsity_warning

    warning = sparsity_warning(crosstab)
    if warning is not None:
        (stream or sys.stderr).write(f"rldp: warning: {warning}\n")
    return warning


def _data_key(args: argparse.Namespace) -> tuple:
    path = args.counts or args.data
    try:
        stat = os.stat(path) if path else None
    except OSError:
        stat = None
    version = (stat.st_mtime_ns, stat.st_size, stat.st_ino) if stat else None
    return (args.counts, args.data, args.sensitive, args.public, version)


def _read_crosstab(args: argparse.Namespace) -> Crosstab:
    from rldp_models.data import Crosstab

    if args.counts and args.data:
        raise InputError("give either --counts or --data, not both")
    if args.counts:
        if args.sensitive or args.public:
            raise InputError("--sensitive and --public go with --data, not --counts")
        crosstab = Crosstab.from_csv(args.counts)
    elif args.data:
        if not (args.sensitive and args.public):
            raise InputError("--data needs --sensitive COL and --public COL")
        crosstab = _records_crosstab(args.data, args.sensitive, args.public)
    else:
        raise InputError("no data: give --counts FILE or --data FILE --sensitive COL --public COL")
    if crosstab.shape[0] < 2:
        raise InputError(f"the table has a single secret value ({crosstab.s_labels[0]!r}): "
                         "with one value of S there is nothing to protect; "
                         "give data with at least two S values (rows)")
    return crosstab


def _records_crosstab(path: str, sensitive: str, public: str) -> Crosstab:
    """:meth:`Crosstab.from_records`, each :class:`RecordsWarning` as one
    ``rldp: warning:`` line on stderr."""
    import warnings

    from rldp_models.data import Crosstab, RecordsWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", RecordsWarning)
        crosstab = Crosstab.from_records(path, sensitive, public)
    for warning in caught:
        if issubclass(warning.category, RecordsWarning):
            sys.stderr.write(f"rldp: warning: {warning.message}\n")
        else:
            warnings.warn_explicit(warning.message, warning.category, warning.filename,
                                   warning.lineno)
    return crosstab


def finite_float(text: str) -> float:
    """An argparse type: a finite float."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"not a finite number: {text!r}")
    return value


def epsilon(text: str) -> float:
    """An argparse type: ``0 <= eps <= MAX_EPSILON``."""
    value = finite_float(text)
    if not 0 <= value <= MAX_EPSILON:
        raise argparse.ArgumentTypeError(f"eps must lie in [0, {MAX_EPSILON:g}], got {text}")
    return value


def significance(text: str) -> float:
    """An argparse type: alpha in (0, 1)."""
    value = finite_float(text)
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"alpha must lie in (0, 1), got {text}")
    return value


def whole_number(text: str, low: int, high: int | None = None) -> int:
    """An argparse type's core: an integer in ``[low, high]`` (``high`` None: no upper end)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < low or (high is not None and value > high):
        within = f"at least {low:,}" if high is None else f"from {low:,} to {high:,}"
        raise argparse.ArgumentTypeError(f"must be a whole number {within}, got {text}")
    return value


SEED_LIMIT = 2**128 - 1
"""The largest seed numpy's generators take as one integer in this CLI (128 bits)."""


def seed(text: str) -> int:
    """An argparse type: a seed numpy's generators take (an integer in [0, 2**128))."""
    return whole_number(text, 0, SEED_LIMIT)


def positive_count(text: str) -> int:
    """An argparse type: a whole number of at least 1 (draws, tables)."""
    return whole_number(text, 1)


def write_result(result: "CertifiedResult", out: str, name: str,
                 embed_counts: bool = True) -> int:
    """Write ``result`` to ``out`` and say so; a result whose guarantee fails is not written.

    Returns the exit code: ``OK``, or ``FAILED`` with one line on stderr naming ``name``.
    """
    from rldp_models.cli import ExitCode
    from rldp_models.results import files

    try:
        files.write_result(result, out, embed_counts=embed_counts)
    except files.GuaranteeFailed as exc:
        sys.stderr.write(f"rldp: {name}: {exc}\n")
        return ExitCode.FAILED
    print(f"  wrote {out}")
    return ExitCode.OK


RADIUS_FROM = ("asymptotic", "bootstrap")
"""Choices of ``--radius-from``."""


def add_radius_arguments(parser: argparse.ArgumentParser) -> None:
    """``--radius-from``, ``--bootstrap-draws`` and ``--bootstrap-seed``."""
    group = parser.add_argument_group("radius of the uncertainty set")
    group.add_argument("--radius-from", choices=RADIUS_FROM, default="asymptotic",
                       help="asymptotic: the chi-square quantile of --alpha (default); "
                            "bootstrap: the (1 - alpha) quantile of the set's statistic over "
                            "simulated tables (for sparse tables)")
    group.add_argument("--bootstrap-draws", type=bootstrap_draws, default=None, metavar="N",
                       help="simulated tables of the bootstrap (default: "
                            "rldp_models.uncertainty.calibration.BOOTSTRAP_DRAWS, 10,000)")
    group.add_argument("--bootstrap-seed", type=seed, default=None, metavar="S",
                       help="seed of the bootstrap (default: "
                            "rldp_models.uncertainty.calibration.BOOTSTRAP_SEED, 0)")


MAX_BOOTSTRAP_DRAWS = 10**8
"""Most simulated tables ``--bootstrap-draws`` accepts (numpy refuses arrays far beyond)."""


def bootstrap_draws(text: str) -> int:
    """An argparse type: a whole number of simulated tables, at most
    :data:`MAX_BOOTSTRAP_DRAWS` (the bootstrap itself refuses fewer than 100)."""
    return whole_number(text, 0, MAX_BOOTSTRAP_DRAWS)


def figure_path(out: str, plot: str | None = None) -> Path:
    """Where the PNG of a table written to ``out`` goes: ``plot``, else beside ``out``.

    Checked before any work, so that a bad path is one line and not a late failure
    after the table was written.

    Raises
    ------
    InputError
        The path does not end in ``.png``, is ``out`` itself (``--out table.png``
        would be overwritten by its figure), or lies in a directory that does not exist.
    """
    png = Path(plot) if plot else Path(out).with_suffix(".png")
    option = "--plot" if plot else "the PNG beside --out"
    if png.suffix.lower() != ".png":
        raise InputError(f"{option} {png}: a figure name must end in .png")
    if png.resolve() == Path(out).resolve():
        raise InputError(f"{option} {png} is the --out table itself; give --out a .csv name")
    if not png.resolve().parent.is_dir():
        raise InputError(f"{option} {png}: directory {png.parent} does not exist "
                         "(create it first)")
    return png


def add_embed_argument(parser: argparse.ArgumentParser) -> None:
    """``--no-embed-counts``, shared by the commands that write a record."""
    parser.add_argument("--no-embed-counts", action="store_true",
                        help="keep only a SHA-256 digest of the counts in OUT.json, not the "
                             "table (rldp verify then needs --counts or --data)")
