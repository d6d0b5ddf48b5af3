"""``rldp compare``: results side by side on one table of counts.

For each RESULT.json and the counts (Phat, and F its (1 - alpha) chi-square
set): I_Phat(X;Y)/H(X); the expected distortion (--distortion, of the U value
each output releases; n/a when outputs release no single u, as UE-CR's) at
Phat and its certified worst case over F (Theorem 2); eps at Phat (exact) and
the certified (eps, F)-RLDP level; the output alphabet size; the producer's
recorded time. Prints one table; --out writes it as CSV with a PNG beside it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rldp_models.cli.common import add_data_arguments, load_crosstab, significance
from rldp_models.cli.exit_codes import ExitCode
from rldp_models.data import Crosstab
from rldp_models.distortion import NAMED_DISTORTIONS
from rldp_models.errors import InputError
from rldp_models.release.comparison import compare
from rldp_models.release.figures import figure_path, plot_comparison
from rldp_models.release.loading import load_result
from rldp_models.release.provenance import refuse_released
from rldp_models.results.certified import CertifiedResult
from rldp_models.results.counts import counts_digest


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("compare", help="compare results on common measures",
                                   description=__doc__)
    parser.add_argument("results", metavar="RESULT.json", nargs="+", help="result records")
    add_data_arguments(parser)
    parser.add_argument("--distortion", choices=NAMED_DISTORTIONS, default="hamming",
                        help="distortion of the released U value (default hamming)")
    parser.add_argument("--alpha", type=significance, default=0.05,
                        help="significance of F (default 0.05)")
    parser.add_argument("--out", metavar="FILE.csv", help="write the table (and a PNG beside)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    png = figure_path(args.out) if args.out else None
    refuse_released(args.data, "--data")
    refuse_released(args.counts, "--counts")
    crosstab = load_crosstab(args)
    names = _names(args.results)
    loaded = {name: load_result(path) for name, path in zip(names, args.results)}
    results = {name: result for name, (result, _) in loaded.items()}
    table = compare(results, crosstab, args.distortion, args.alpha)
    _warn_other_design(loaded, crosstab)
    print(f"n = {crosstab.n}, |S| x |U| = {crosstab.shape[0]} x {crosstab.shape[1]}, "
          f"distortion {args.distortion}, alpha = {args.alpha:g}")
    print(table.to_string(index=False, na_rep="n/a", float_format=lambda v: f"{v:.4g}"))
    if args.out and png:
        try:
            table.to_csv(args.out, index=False)
        except OSError as exc:
            raise InputError(f"cannot write {args.out}: {exc.strerror}") from None
        plot_comparison(table, png)
        sys.stdout.write(f"  wrote {args.out}, {png}\n")
    return ExitCode.OK


def _warn_other_design(loaded: dict[str, tuple[CertifiedResult, str | None]],
                       crosstab: Crosstab) -> None:
    """Warn when results were designed on other counts: their level over these counts' F is
    measured here, not the one their guarantee certifies (that one is over their design F)."""
    digest = counts_digest(crosstab)
    other = [name for name, (_, design) in loaded.items() if design and design != digest]
    if other:
        sys.stderr.write(f"rldp: warning: {', '.join(other)} designed on other counts than "
                         "these: 'eps over F' is their level over this table's F, not the "
                         "level their guarantee certifies (over their design counts' F)\n")


def _names(paths: list[str]) -> list[str]:
    """Each file's stem, or its path where stems repeat."""
    stems = [Path(p).stem for p in paths]
    return [stem if stems.count(stem) == 1 else path for stem, path in zip(stems, paths)]
