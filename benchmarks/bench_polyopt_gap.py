"""PolyOpt's proven gap at a CPU-second limit (issue 37: the real 4x4, seeded 5x5, 6x6).

Runs ``polyopt_protocol(..., proof=True, time_limit=LIMIT)`` as ``rldp protocol
polyopt --time-limit`` does, with the run's clock switched to ``time.process_time``
(the shared machine gives a wall-clock limit whatever share of a core it happens to
have), and prints per eps the CPU seconds, the proven relative gap to LP (47)'s
optimum over Gamma, the utility and whether column generation converged. Instances
are those of ``bench_polyopt_scip.py``: ``hair`` (HairEyeColor 4x4) or a seeded
Jeffreys draw ``RxC`` (seed 0, n = 1000, as ``bench_polyopt.py``). ``SHARE=x`` before
``NAME`` sets ``polyopt.PRICING_SHARE`` (column generation's share of the limit). Run::

    PYTHONPATH=. python benchmarks/bench_polyopt_gap.py hair 120 0.5 1 2 5
    PYTHONPATH=. python benchmarks/bench_polyopt_gap.py SHARE=0.5 hair 120 2
    PYTHONPATH=. python benchmarks/bench_polyopt_gap.py 5x5 600 0.5 1 2 5 8
    PYTHONPATH=. python benchmarks/bench_polyopt_gap.py 6x6 1800 2

Measured earlier (load 10-17 on 2 cores; limits cut from the issue's to fit the session):
hair at 120 CPU s, eps 2: 15.01% before (main, same run) -> 13.56% after; eps 5: 0.90% ->
certified (80 s); at 60 CPU s eps 1 23.6%, eps 0.5 7.2%. 5x5 (seed 0): eps 2 at 120 CPU s
34.7%, eps 8 at 120 1.16%, at 60 eps 1 64.4%, eps 5 16.7%. 6x6 eps 2 at 100 CPU s: 68.0%.
(With the wall clock, ``rldp protocol polyopt`` on hair at eps 5 with ``--time-limit 40``:
54.6% before, 2.55% after, re-checked by ``rldp verify``.)

Where the gap comes from (issue 37, hair eps 2; ``uptime`` load 1-4 on 2 cores). LP (47)'s
optimum is 1.11373 (column generation run to convergence, ``polyopt_protocol(...,
method="column-generation")`` without a limit: 287 CPU s, 82 rounds; after 12 s it held
1.1040-1.1059, after 70 s 1.1125). At 120 CPU s with the proof's former targets on ``h``
(1.v >= 1/max p): utility 1.10395 (0.9% below the optimum), bound 1.16462 (4.6% above),
gap 5.21%: the proof's branch and bound, not column generation, was the weak side (10% of
the bound closed in 38 s of proof, 3% never, at about 2,000 boxes a second, 90% of it in
HiGHS). Its dual was not: a ray SCIP found in 30 s there gives a Lagrangian bound of only
1.1087. Proving at shifted duals ``lam + t 1`` (a box closes once ``h <= t 1.v``), each leaf
settled on the better of its multipliers and those that closed it a step before: 2.43%
(utility 1.10576, bound 1.13330, 1.8% above the optimum; 3% closed at 52 s of proof, 10% at
5 s). Not moved: lazy children bounded from their parent's multipliers (nearly every child
still needed its LP), HiGHS presolve off, propagation, ``MIDPOINT_WEIGHT`` 0.1/0.5 (3% at
38 s with 0.25, 40 s at 0.5, 53 s at 0.1). hair at 120 CPU s, same runs (load 1.4-2.3),
before -> after: eps 1 9.67% -> 6.73% (121.0 CPU s: its certification ran past the
limit by 1 s), eps 5 a gap below 0.0005% either way, in 28.3 s -> 43.1 s (the proof
steps through more shifts). Seeded 5x5 at 120 CPU s, same runs (load 2-4),
before -> after: eps 0.5 73.2% -> 66.8%, eps 1 55.8% -> 51.1%, eps 2 25.9% -> 13.6%, eps 5
8.03% -> 1.48%, eps 8 0.355% -> 0.100%; eps 2 at 600 CPU s after: 7.31% (load 3).

Column generation's share (issue 37, hair eps 2 at 120 CPU s, load 4-6, former proof): 0.8 22.9%,
0.65 17.7%, 0.5 17.6%, 0.35 13.0% (the old default), 0.2 10.6%, 0.1 9.2%, 0.05 10.6%
(a worse protocol): a longer column generation does not converge at eps 2 either, and
takes the time the proof's branch and bound needs to close boxes. eps 5: proven gap below
0.0005% at 0.1 (54.5 CPU s) and 0.2 (67.6 s), flagged stopped early; at 0.8 column
generation converged (gap 0, 81.1 s).
"""

from __future__ import annotations

import sys
import time
from types import SimpleNamespace

from bench_polyopt_scip import instance

from rldp_models.conelp import pricing_progress
from rldp_models.rldp_protocols import polyopt
from rldp_models.rldp_protocols.polyopt import polyopt_protocol


def main(argv: list[str]) -> None:
    """``[SHARE=x] NAME LIMIT EPS...``: one line per eps."""
    pricing_progress.time = SimpleNamespace(monotonic=time.process_time)  # type: ignore[assignment]
    if argv[0].startswith("SHARE="):
        polyopt.PRICING_SHARE = float(argv.pop(0).removeprefix("SHARE="))
    table, limit = instance(argv[0]), float(argv[1])
    for eps in (float(e) for e in argv[2:]):
        start = time.process_time()
        result = polyopt_protocol(table, eps, proof=True, time_limit=limit)
        cpu = time.process_time() - start
        print(f"{argv[0]} eps {eps:g} limit {limit:g}: cpu {cpu:.1f} s, gap "
              f"{100 * result.relative_gap:.3f}%, utility {result.utility_hat:.6f}, bound "
              f"{result.certificate.upper_bound:.6f}, stopped {result.stopped_early}",
              flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
