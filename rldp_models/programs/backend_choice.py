"""The default backend of a program: the fastest one its blocks allow (capabilities, not types).

A program declares the model forms it can take (``ProtocolProgram.solver_forms``:
``"conic"`` when every block writes direct conic rows, ``"pyomo"`` when every
block is linear, ``"cvxpy"`` always); :data:`FASTEST_FIRST` is the order measured
in ``benchmarks/bench_default_backend.py`` on this project's machine (2 cores):

* the direct conic path (``clarabel-direct``) is fastest wherever it applies:
  solve and exact finish 2.7x (NUNP 3x4), 5.7x (NURP 3x4), 5.4x (RURP 3x4),
  1.8x (RURP 5x10), 1.6x (NUNP 7x14) faster than the cvxpy path;
* for LP variants without direct rows (robust programs over box, l1 and
  polyhedral sets) neither LP nor conic path wins throughout: HiGHS through
  Pyomo takes 4.7 s against 7.6 s for RURP-box 5x10 but 5.6 s against 2.6 s
  for RURP-tv 5x10, and loses every 3x4 case (emitting the Pyomo model costs
  more than the LP solve there), so they keep the cvxpy path and ``highs`` is
  chosen by ``--solver``.

When the fastest path does not apply, the choice falls back and says so in
one line through the ``rldp_models`` logger at WARNING level: on stderr when
the application has not configured logging (Python's last-resort handler
prints the bare message), and routed wherever it has. Not an error; an
explicit ``solver`` always wins.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from rldp_models.programs.conic_form import program_blocks
from rldp_models.programs.contract import block_label
from rldp_models.uncertainty.base import Capability
from solvers.registry import fastest

if TYPE_CHECKING:
    from rldp_models.programs.protocol_program import ProtocolProgram

LOGGER = logging.getLogger("rldp_models")

FASTEST_FIRST = ("clarabel-direct", "clarabel")
"""Registry names in measured order, fastest first (module docstring)."""


def default_solver(program: "ProtocolProgram", note: bool = True) -> str:
    """The fastest registered backend that supports ``program``.

    Parameters
    ----------
    program : ProtocolProgram
    note : bool
        Log one line (module docstring) when the fastest path does not apply,
        naming the blocks that keep the program off it.
    """
    choice = fastest(program.solver_forms(), FASTEST_FIRST)
    if note and choice != FASTEST_FIRST[0]:
        LOGGER.warning("rldp: note: %s: %s; solving with %s", program.name,
                       _why_not_direct(program), choice)
    return choice


def _why_not_direct(program: "ProtocolProgram") -> str:
    missing = [block_label(block) for block in program_blocks(program)
               if Capability.DIRECT_CONIC not in block.capabilities(program.uncertainty)]
    if not missing:
        return f"{FASTEST_FIRST[0]} is not available here"
    over = "" if program.uncertainty is None else f" over the {program.uncertainty.name} set"
    return f"no direct conic form for {', '.join(missing)}{over}"
