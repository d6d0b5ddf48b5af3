"""How many of Theorem 4's pair constraints are active at the optimum of RURP (issue 38, item 1).

RURP (chi-square set, eps 1, Hamming distortion unless ``--distortion``) is solved on the
default backend (the direct Clarabel path); for every ordered pair ``(s1, s2)`` and output
``y`` it reports

* the dual of the pair's main row (``t_1 + t_2 + c rho - K (q_1 + q_2) <= value``, the
  first ``|Y|`` rows of the group ``robust_privacy[s1,s2]``, eq. 29) relative to the
  largest such dual, counted above 1e-3, 1e-4 and 1e-6;
* the slack of the constraint at the returned protocol: minus Theorem 4's bound (eq. 29)
  evaluated exactly (interval arithmetic) at the closed-form multipliers
  (:func:`rldp_models.privacy.guarantees.check_robust_privacy`, no solver multipliers),
  counted below 1e-3, 1e-4 and 1e-6 in absolute terms (the constraint is in units of
  probability). The returned protocol is the certified one: after a repair that mixes
  in the uniform protocol every slack grows by about the mixing weight, so the 1e-6
  count is a floor.

Run (a script, not a test; the numbers go into the issue's note)::

    PYTHONPATH=. python benchmarks/active_pairs.py --shape 8x8
    PYTHONPATH=. python benchmarks/active_pairs.py --shape 16x30
    PYTHONPATH=. python benchmarks/active_pairs.py --data ../shared/data/adult/adult.data \
        --sensitive education --public native-country

Synthetic tables are :func:`rldp_models.datasets.jeffreys_instance` draws with
``n = 10,000`` and seed 7, as ``benchmarks/instances.py`` makes them. The runs of
issue 38 (8x8, 10x20, 16x30; one JSON line each) are in ``active_pairs_results.jsonl``:
with a dual above 1e-3 / 1e-4 / 1e-6 of the largest, 15% / 16% / 16% of the (s1, s2, y)
triples at 8x8, 37% / 51% / 96% at 10x20, 22% / 34% / 83% at 16x30; at 10x20 and 16x30
every pair has active triples and every output some (three outputs of 16x30 on all 240
pairs).
"""

from __future__ import annotations

import argparse
import json
import resource
import time

import numpy as np

from rldp_models.data import Crosstab
from rldp_models.datasets import jeffreys_instance
from rldp_models.privacy.guarantees import check_robust_privacy
from rldp_models.programs import preset

DUAL_LEVELS = (1e-3, 1e-4, 1e-6)
SLACK_LEVELS = (1e-3, 1e-4, 1e-6)


def crosstab_of(args: argparse.Namespace) -> Crosstab:
    """The synthetic ``--shape`` table or the Adult crosstab."""
    if args.data:
        return Crosstab.from_records(args.data, args.sensitive, args.public)
    n_s, n_u = (int(v) for v in args.shape.split("x"))
    return jeffreys_instance(n_s, n_u, 10_000, seed=7).crosstab


def pair_duals(dual: dict[str, np.ndarray], n_s: int, n_y: int) -> np.ndarray:
    """The main rows' duals as ``[s1, s2, y]`` (NaN on the diagonal)."""
    duals = np.full((n_s, n_s, n_y), np.nan)
    for s1 in range(n_s):
        for s2 in range(n_s):
            if s1 != s2:
                duals[s1, s2] = np.abs(dual[f"robust_privacy[{s1},{s2}]"][:n_y])
    return duals


def summary(active: np.ndarray) -> dict[str, object]:
    """Counts of active triples: in all, per output y, and per pair (distribution)."""
    off = ~np.eye(active.shape[0], dtype=bool)
    per_pair = active[off].sum(axis=1)
    return {"active": int(active[off].sum()), "of": int(active[off].size),
            "share": float(active[off].mean()),
            "per_y": active[off].sum(axis=0).tolist(),
            "pairs_with_none": int((per_pair == 0).sum()),
            "per_pair_quartiles": np.percentile(per_pair, [0, 25, 50, 75, 100]).tolist()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shape", default="8x8")
    parser.add_argument("--data")
    parser.add_argument("--sensitive")
    parser.add_argument("--public")
    parser.add_argument("--distortion", default="hamming")
    args = parser.parse_args()
    crosstab = crosstab_of(args)
    program = preset("RURP", crosstab, 1.0, distortion=args.distortion)
    start = time.process_time()
    solution = program.solve()
    cpu = time.process_time() - start
    assert solution.protocol is not None and solution.guarantee_holds
    n_s, n_u = crosstab.shape
    n_y = solution.protocol.shape[1]
    duals = pair_duals(solution.result.dual, n_s, n_y)
    top = np.nanmax(duals)
    check = check_robust_privacy(solution.protocol, crosstab.counts, program.uncertainty, 1.0,
                                 refine=False)
    slack = -check.margins
    report = {"shape": f"{n_s}x{n_u}", "outputs": n_y, "solver": solution.result.solver,
              "repair": None if solution.repair is None else str(solution.repair.method),
              "cpu_seconds": round(cpu, 1),
              "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024,
              "dual": {f"{level:g}": summary(np.nan_to_num(duals) > level * top)
                       for level in DUAL_LEVELS},
              "slack": {f"{level:g}": summary(np.nan_to_num(slack, nan=np.inf) < level)
                        for level in SLACK_LEVELS},
              "both_1e-4": summary((np.nan_to_num(duals) > 1e-4 * top)
                                   & (np.nan_to_num(slack, nan=np.inf) < 1e-4))}
    print(json.dumps(report))


if __name__ == "__main__":
    main()
