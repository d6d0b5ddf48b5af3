"""Where RURP's time and memory go on wide tables (issue 38, item 1's baseline).

One instance per process (peak RSS is the process's): RURP (chi-square set, eps 1,
Hamming distortion unless ``--distortion``) on the default backend, split into

* ``build``: the conic form (:func:`rldp_models.programs.conic_form.conic_program`,
  Python and scipy assembly of Theorem 4's rows, eq. 29);
* ``setup`` and ``iterations``: the backend's solve (Clarabel's equilibration and
  symbolic factorisation, then its interior-point iterations);
* ``finish``: the exact check over all pairs and the repair
  (:func:`rldp_models.programs.solution.finish_solution`);
* ``bound``: the optimality certificate
  (:func:`rldp_models.optimality.best_claim.solution_optimality`).

Each phase reports CPU seconds (the process's, all threads) and the peak RSS reached by
its end.

Run (one JSON line each; the results of issue 38 are in ``many_categories_results.jsonl``)::

    PYTHONPATH=. python benchmarks/many_categories.py --shape 16x30
    PYTHONPATH=. python benchmarks/many_categories.py --adult education native-country

Synthetic tables are :func:`rldp_models.datasets.jeffreys_instance` draws with
``n = 10,000`` and seed 7 (as ``benchmarks/instances.py`` makes them).

Measured on main at 17b9c5a (2-core machine shared with two other workers, load 7-8; CPU s
of the process, peak RSS; ``direct``):

=========  ======  =====  ======  ======  =====  ==========  ===========
table      build   solve  finish  bound   total  peak        iterations
=========  ======  =====  ======  ======  =====  ==========  ===========
10x20      0.24    8.81   0.06    1.74    11.7   402 MB      45
12x24      0.36    34.62  0.05    5.09    40.9   705 MB      53
16x30      1.11    136.8  0.09    32.66   171.5  1,797 MB    65
Adult      1.87    292.9  0.14    25.15   321.1  2,833 MB    57
=========  ======  =====  ======  ======  =====  ==========  ===========

(Adult: education x native-country, 16x42.) The solve is Clarabel: at 10x20 its timers
(``print_timers``) give 7.9 s, of which the KKT factorisation (``kkt update``) 5.3 s, the KKT
solves 1.3 s, the cone scalings 0.2 s and the set-up 0.37 s; the Python build and the exact
finish are under 1% at every size, the optimality bound 13-19%. At 12x24 (qdldl) the
factorisation is 61.7 of 75.1 s of Clarabel's wall clock, the KKT solves 7.1 s (faer: 41.7
and 25.0 s, 32.7 against 38.1 s CPU); at 16x30 (faer, one thread) 217.9 and 105.3 of 361 s
(115.8 s CPU, 61 iterations). The factor grows faster than the rows (qdldl's AMD on the KKT
pattern: 2.57M nonzeros and 0.22 GFLOP at 10x20, 5.55M and 0.73 GFLOP at 12x24): each
output's block is a dense front over its ``|S||U|`` protocol cells and the pairs' multipliers.
faer with ``max_threads = 1`` took 25.0 and 25.1 s CPU against 27.7 and 26.2 s with its
default threads at 8x30 (same 51 iterations; not adopted: the idle machine's wall time is
unmeasured). Constraint generation over the (s1, s2, y) rows (measured on a branch, not
kept: slower at every size tried) took 29.7 s for the solve at 10x20 (two rounds of 1,699 and
1,728 of the 1,800 triples, the nominal seed violating 94% of them), against 8.8 s for the one
whole solve; seeded with the triples active at the optimum it still cost 2.3x at 12x24.
"""

from __future__ import annotations

import argparse
import json
import resource
import time
from pathlib import Path
from typing import Any, Callable

from rldp_models.data import Crosstab
from rldp_models.datasets import jeffreys_instance
from rldp_models.optimality.best_claim import solution_optimality
from rldp_models.programs import preset
from rldp_models.programs.conic_form import conic_program
from rldp_models.programs.solution import finish_solution

ADULT = Path("/work/shared/data/adult/adult.data")  # beside /work/main; worktrees live elsewhere


def crosstab_of(args: argparse.Namespace) -> Crosstab:
    """The synthetic ``--shape`` table or the Adult crosstab of ``--adult S U``."""
    if args.adult:
        return Crosstab.from_records(ADULT, *args.adult)
    n_s, n_u = (int(v) for v in args.shape.split("x"))
    return jeffreys_instance(n_s, n_u, args.n, seed=args.seed).crosstab


def peak_mb() -> int:
    """The process's peak resident set so far, in MB (Linux reports kB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024


def timed(phases: dict[str, Any], name: str, step: Callable[[], Any]) -> Any:
    """Run ``step``; record its CPU and wall seconds and the peak RSS at its end."""
    cpu, wall = time.process_time(), time.perf_counter()
    value = step()
    phases[name] = {"cpu": round(time.process_time() - cpu, 2),
                    "wall": round(time.perf_counter() - wall, 2), "peak_mb": peak_mb()}
    return value


def direct(program: Any, phases: dict[str, Any], report: dict[str, Any]) -> Any:
    """Today's path: build, one solve, finish."""
    import solvers

    conic = timed(phases, "build", lambda: conic_program(program))
    report.update(n=conic.A.shape[1], m=conic.A.shape[0], nnz=conic.A.nnz,
                  soc=len(conic.cones.soc))
    result = timed(phases, "solve", lambda: solvers.solve(program, solver="clarabel-direct"))
    phases["solve"]["setup_wall"] = round(result.timings.build_seconds, 2)
    report["log"] = result.log
    return timed(phases, "finish", lambda: finish_solution(program, result, "clarabel-direct", {}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shape", default="10x20")
    parser.add_argument("--adult", nargs=2, metavar=("SENSITIVE", "PUBLIC"))
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--distortion", default="hamming")
    parser.add_argument("--no-bound", action="store_true", help="skip the optimality bound")
    args = parser.parse_args()
    crosstab = crosstab_of(args)
    phases: dict[str, Any] = {}
    report: dict[str, Any] = {"instance": "x".join(args.adult) if args.adult else args.shape,
                              "shape": "x".join(map(str, crosstab.shape)),
                              "distortion": args.distortion}
    program = timed(phases, "program", lambda: preset("RURP", crosstab, 1.0,
                                                       distortion=args.distortion))
    solution = direct(program, phases, report)
    report.update(objective=solution.objective, holds=solution.guarantee_holds,
                  repair=None if solution.repair is None else str(solution.repair.method))
    if not args.no_bound:
        bound = timed(phases, "bound", lambda: solution_optimality(solution))
        report["gap"] = bound.get("relative_gap")
        report["bound_kind"] = bound.get("bound")
    report["phases"] = phases
    report["cpu_total"] = round(time.process_time(), 1)
    report["peak_mb"] = peak_mb()
    print(json.dumps(report), flush=True)


if __name__ == "__main__":
    main()
