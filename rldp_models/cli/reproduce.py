"""``rldp reproduce``: rerun a paper figure and compare the result with the paper's statement.

``rldp reproduce --list`` names the registered experiments;
``rldp reproduce ID --out DIR`` writes ``DIR/ID.csv`` (raw results), ``.png``
and ``.svg`` (the figure) and ``.md`` (the comparison with the paper);
``rldp reproduce all --quick --out DIR`` runs every reduced form. Each paper
claim gets a verdict: reproduced, not reproduced (with the numbers and the
reason) or not resolved at this size. Exit code 1 when some claim is not
reproduced, 2 on bad input; a claim the size cannot resolve does not fail a run.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from rldp_models.errors import InputError

EXECUTOR_SPECS = "serial, joblib, dask-local or dask://HOST:PORT"
"""For the help text (the executors module imports pandas, too slow for ``--help``);
:func:`rldp_models.executors.executor_from_spec` says the same on a bad spec."""

if TYPE_CHECKING:
    from rldp_models.experiments.base import Experiment
    from rldp_models.executors import Executor


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("reproduce", help="reproduce a paper figure",
                                   description=__doc__)
    parser.add_argument("experiment", nargs="?", metavar="ID",
                        help="experiment id (see --list), or 'all'")
    parser.add_argument("--list", action="store_true", help="list the experiments and exit")
    parser.add_argument("--out", metavar="DIR", help="output directory")
    parser.add_argument("--quick", action="store_true",
                        help="the reduced form (under a minute) instead of the paper's sizes")
    parser.add_argument("--workers", type=int, metavar="N",
                        help="worker processes (default: the number of cores)")
    parser.add_argument("--executor", default="joblib", metavar="SPEC",
                        help=f"one of {EXECUTOR_SPECS} (default joblib)")
    parser.add_argument("--data", metavar="PATH",
                        help="Adult data file (default $RLDP_ADULT_DATA, else "
                             "shared/data/adult/adult.data beside the source checkout)")
    parser.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                        help="force the progress bar on or off (default: on a terminal, "
                             "off when CI=true)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from rldp_models.experiments import runner
    from rldp_models.executors import executor_from_spec

    if args.list:
        for experiment in runner.experiments().values():
            needs = "  [needs Adult data]" if experiment.needs_data else ""
            print(f"{experiment.id:22s} {experiment.title}{needs}")
        return 0
    if not args.experiment:
        raise InputError("name an experiment (rldp reproduce --list) or 'all'")
    if not args.out:
        raise InputError("--out DIR is required")
    executor = executor_from_spec(args.executor, args.workers)
    chosen = list(runner.experiments().values()) if args.experiment == "all" \
        else [runner.get(args.experiment)]
    data = data_path(args.data)
    failed = False
    for experiment in chosen:
        if experiment.needs_data and not data.is_file():
            if args.experiment != "all":
                raise InputError(_missing_data(data))
            sys.stderr.write(f"rldp: skipping {experiment.id}: {_missing_data(data)}\n")
            continue
        failed |= not _run_one(experiment, args, executor, data)
    return 1 if failed else 0


def data_path(given: str | None) -> Path:
    """``--data``, else :func:`rldp_models.datasets.default_adult_path`."""
    from rldp_models.datasets import default_adult_path

    return Path(given) if given else default_adult_path()


def _missing_data(path: Path) -> str:
    return f"Adult data not found at {path}; pass --data PATH/adult.data or set RLDP_ADULT_DATA"


def _run_one(experiment: "Experiment", args: argparse.Namespace, executor: "Executor",
             data: Path) -> bool:
    from rldp_models.experiments.runner import run_experiment, verdict_counts

    options = {"data": str(data)} if experiment.needs_data else None
    result = run_experiment(experiment, args.out, quick=args.quick, executor=executor,
                            options=options, progress=args.progress)
    print(f"{experiment.id}: {verdict_counts(result.finding)}, "
          f"{result.seconds:.1f} s ({executor.label}) -> "
          f"{Path(args.out) / experiment.id}.{{csv,png,svg,md}}")
    return result.finding.holds
