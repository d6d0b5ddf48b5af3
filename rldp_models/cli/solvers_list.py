"""``rldp solvers``: list the registered solvers and whether each is installed here.

The listing finds each solver's packages without importing them (about the
cost of a numpy import; :func:`solvers.registry.installed`), so it says
*installed*, not *usable*. ``--check`` solves a tiny program (NUNP on a 2 x 2
table, a linear program every solver takes) with each installed solver and
says which are usable: a MOSEK without a licence, or a broken build, shows
there.
"""

from __future__ import annotations

import argparse
import time

from rldp_models.cli import one_line


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("solvers", help="list solvers and their availability",
                                   description=__doc__)
    parser.add_argument("--check", action="store_true",
                        help="solve a tiny program with each installed solver (imports them)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import solvers
    from solvers.registry import installed

    found = installed()
    for name, backend in solvers.backends().items():
        status = found[name]
        state = "installed" if status.ok else f"not installed: {status.reason}"
        if status.ok and args.check:
            state = usable(name)
        print(f"{name:16s} {backend.form:15s} {state}")
    return 0


def usable(name: str) -> str:
    """``usable (0.01 s)`` when ``name`` solves its tiny program, else why not."""
    import solvers

    start = time.perf_counter()
    try:
        result = solvers.solve(tiny_program(solvers.backends()[name].form), solver=name)
    except Exception as exc:  # noqa: BLE001 - any failure is the answer: this solver is unusable
        return f"unusable: {one_line(exc)}"
    if not result.status.has_solution:
        return f"unusable: returned {result.status.value} on a tiny linear program"
    return f"usable ({time.perf_counter() - start:.2f} s)"


def tiny_program(form: str) -> object:
    """NUNP on a 2 x 2 table (a linear program), or for an LP-matrix backend
    ``min x0 + x1`` subject to ``x0 + x1 >= 1``, ``0 <= x <= 1``."""
    if form == "linear_program":
        import numpy as np
        import scipy.sparse as sp
        from solvers import LinearProgram

        return LinearProgram(c=np.ones(2), A_ub=sp.csr_matrix([[-1.0, -1.0]]),
                             b_ub=np.array([-1.0]), A_eq=sp.csr_matrix((0, 2)),
                             b_eq=np.zeros(0), lb=np.zeros(2), ub=np.ones(2))
    from rldp_models.data import Crosstab
    from rldp_models.programs import preset

    return preset("NUNP", Crosstab.from_array([[3, 1], [1, 2]]), 1.0, distortion="hamming")
