"""``rldp demo``: the four programs on a built-in seeded instance of the paper's setting.

Each program's result is written as the one result record (``rldp schema``,
counts embedded), which ``rldp verify`` checks.
"""

from __future__ import annotations

import argparse
from pathlib import Path

DEMO_SEED = 2022
"""The demo's seed (``rldp_models.experiments.robust_opt.DEMO_SETTING``; kept here so
``--help`` imports nothing)."""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("demo", help="run the four programs on a built-in instance",
                                   description=__doc__)
    parser.add_argument("--out", default="rldp-demo", metavar="DIR",
                        help="directory for the results (default ./rldp-demo)")
    parser.add_argument("--seed", type=int, default=DEMO_SEED,
                        help=f"seed of the instance (default {DEMO_SEED})")
    parser.add_argument("--solver", default=None,
                        help="solver registry name (default: the fastest backend each "
                             "program allows)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import solvers
    from rldp_models.experiments.robust_opt import (DEMO_SETTING, run_demo,
                                                    scatter_eps_distortion)
    from rldp_models.results.files import GuaranteeFailed, write_result
    from rldp_models.results.program_result import solution_result
    from rldp_models.safe_io import atomic_output

    if args.solver is not None:
        solvers.get(args.solver)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    instance, rows = run_demo(args.seed, args.solver)
    counts_path = out / "counts.csv"
    instance.crosstab.to_csv(counts_path)
    print(f"|S| = 3, |U| = 5, d = (u - y)^2, alpha = {DEMO_SETTING['alpha']}, "
          f"eps = {DEMO_SETTING['eps']}, n = {DEMO_SETTING['n']}, P* ~ Jeffreys (seed {args.seed})")
    print(f"{'program':8s} {'objective':>10s} {'D*':>8s} {'eps*':>8s} {'time (s)':>9s}  guarantee")
    for row in rows:
        verdict = "exact" if row.solution.guarantee_holds else "FAILED"
        try:  # the v2 record (rldp schema), counts embedded; never written if it fails
            write_result(solution_result(row.solution), out / f"{row.problem}.json")
        except GuaranteeFailed:
            verdict += " (not written)"
        if row.solution.repair is not None:
            verdict += f" (repaired: {row.solution.repair.label}, weight " \
                f"{row.solution.repair.weight:.1e})"
        print(f"{row.problem:8s} {row.solution.objective:10.4f} {row.d_star:8.4f} "
              f"{row.eps_star:8.4f} {row.seconds:9.2f}  {verdict}")
    with atomic_output(out / "scatter.png", "wb") as handle:  # whole, or not at all
        scatter_eps_distortion([(r.problem, r.d_star, r.eps_star) for r in rows],
                               DEMO_SETTING["eps"], handle,
                               title=f"n = {DEMO_SETTING['n']}, seed {args.seed}")
    print(f"wrote {out}/{{NUNP,NURP,RUNP,RURP}}.json, {counts_path}, {out / 'scatter.png'}")
    print(f"check a result: rldp verify {out / 'NURP.json'} --counts {counts_path}")
    return 0 if all(r.solution.guarantee_holds for r in rows) else 1
