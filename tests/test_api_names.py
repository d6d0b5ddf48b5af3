"""One Python call per command (issue 36 item 2): each is an attribute of ``rldp_models``, has a
docstring, and is in the table of ``docs/python-api.md`` beside its command."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import rldp_models as rldp

CALLS = {"solve": "solve", "verify": "verify", "compare": "compare",
         "compare_solvers": "compare-solvers", "coverage": "coverage",
         "release": "release", "estimate": "estimate", "curve": "curve"}
"""Each call and its command."""
GUIDE = (Path(__file__).parent.parent / "docs" / "python-api.md").read_text()


@pytest.mark.parametrize("name", CALLS)
def test_each_command_has_a_documented_call(name: str) -> None:
    call = getattr(rldp, name)
    assert callable(call) and call.__doc__ and len(call.__doc__.split()) > 5
    row = re.search(rf"^\| `rldp {CALLS[name]}` \| `rldp_models\.{name}\(", GUIDE, re.MULTILINE)
    assert row, f"docs/python-api.md has no row for rldp {CALLS[name]}"
