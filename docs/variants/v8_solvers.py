"""V8: V2 and V3 solved by Clarabel, SCS, ECOS, HiGHS (where linear) and MOSEK (where
licensed), 60 s each: objective, status, verify verdict and time per solver.

A solver that cannot take a program is named with its reason on one line. V3 is loaded
by path from ``docs/variants/v3_chi2_box.py``; without that file one line says so.

    python docs/variants/v8_solvers.py --counts counts.csv
"""

import itertools
import tempfile
import time

from rldp_models.certificates.verification import verify
from rldp_models.programs import ProtocolProgram
from rldp_models.results.files import read_record
from variant_io import arguments, record, variant_programs

SOLVERS = ("clarabel", "scs", "ecos", "highs", "mosek")


def row(name: str, program: ProtocolProgram, solver: str, out: str) -> str:
    if program.refusal(solver):
        return f"{name:14} {solver:9} cannot take the program: {program.refusal(solver)}"
    start = time.perf_counter()
    solution, problem = record(program, out, solver=solver, time_limit=60.0)
    if problem:
        return f"{name:14} {solver:9} {problem}"
    holds = verify(read_record(out), program.crosstab).holds
    return (f"{name:14} {solver:9} {solution.objective:14.9g} {solution.status.value:9} "
            f"{'verifies' if holds else 'FAILS':9} {time.perf_counter() - start:6.1f} s")


def main() -> None:
    crosstab = arguments(__doc__, out=False).counts
    programs = {name: make(crosstab) for name, make in
                variant_programs("v2_kl_utility", "v3_chi2_box").items()}
    print(f"{'variant':14} {'solver':9} {'objective':>14} {'status':9} {'verify':9} {'time':>8}")
    with tempfile.TemporaryDirectory() as folder:
        for (name, program), solver in itertools.product(programs.items(), SOLVERS):
            print(row(name, program, solver, f"{folder}/{name}-{solver}.json"), flush=True)


if __name__ == "__main__":
    main()
