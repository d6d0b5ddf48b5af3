"""Argument helpers shared by the ``rldp`` subcommands."""

from __future__ import annotations

import argparse
import math

from rldp_models.data import Crosstab
from rldp_models.errors import InputError


def add_data_arguments(parser: argparse.ArgumentParser) -> None:
    """``--counts FILE`` or ``--data FILE --sensitive COL --public COL``."""
    group = parser.add_argument_group("data (one of)")
    group.add_argument("--counts", metavar="FILE",
                       help="crosstab CSV: corner cell then U labels; rows: S label, counts")
    group.add_argument("--data", metavar="FILE", help="raw records CSV with a header row")
    group.add_argument("--sensitive", metavar="COL", help="column of S in --data")
    group.add_argument("--public", metavar="COL", help="column of U in --data")


def load_crosstab(args: argparse.Namespace) -> Crosstab:
    """The crosstab named by the data arguments."""
    if args.counts and args.data:
        raise InputError("give either --counts or --data, not both")
    if args.counts:
        return Crosstab.from_csv(args.counts)
    if args.data:
        if not (args.sensitive and args.public):
            raise InputError("--data needs --sensitive COL and --public COL")
        return Crosstab.from_records(args.data, args.sensitive, args.public)
    raise InputError("no data: give --counts FILE or --data FILE --sensitive COL --public COL")


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
    """An argparse type: eps >= 0."""
    value = finite_float(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"eps must be >= 0, got {text}")
    return value


def significance(text: str) -> float:
    """An argparse type: alpha in (0, 1)."""
    value = finite_float(text)
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"alpha must lie in (0, 1), got {text}")
    return value
