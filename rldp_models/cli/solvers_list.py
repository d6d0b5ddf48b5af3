"""``rldp solvers``: list the registered solvers and whether each can run here."""

from __future__ import annotations

import argparse


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("solvers", help="list solvers and their availability",
                                   description=__doc__)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import solvers

    for name, backend in solvers.backends().items():
        status = backend.availability()
        state = "available" if status.ok else f"unavailable: {status.reason}"
        print(f"{name:10s} {backend.form:15s} {state}")
    return 0
