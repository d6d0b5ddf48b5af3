"""``rldp schema``: print the JSON Schema of result records (the versioned record contract).

Every result the toolkit writes (``rldp solve``, ``rldp mechanism``, ``rldp
protocol``, or ``CertifiedResult.to_record`` in Python) follows it; ``rldp
verify`` validates a record against it before any check.
"""

from __future__ import annotations

import argparse


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("schema", help="print the JSON Schema of result records",
                                   description=__doc__)
    parser.set_defaults(func=run)


def add_embed_argument(parser: argparse.ArgumentParser) -> None:
    """``--no-embed-counts``, shared by the commands that write a record."""
    parser.add_argument("--no-embed-counts", action="store_true",
                        help="keep only a SHA-256 digest of the counts in OUT.json, not the "
                             "table (rldp verify then needs --counts or --data)")


def run(args: argparse.Namespace) -> int:
    from rldp_models.results.schema import schema_text

    print(schema_text(), end="")
    return 0
