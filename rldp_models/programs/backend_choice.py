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

* a nominal program (no robust block: an LP) with at least
  :data:`LARGE_NOMINAL_ENTRIES` protocol entries goes to HiGHS: Adult education x
  occupation NUNP (16x15, 3,600 entries) 4.0 s end to end against 82 s through the
  direct path and 89 s through cvxpy, same optimum (0.0995483), proven gap 2.4e-12;
  below it the direct path wins (NUNP 7x14, 1,372 entries: 0.08 s against 0.34 s; race
  x education 5x16: 0.03 s against 0.11 s of solve).

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

LARGE_NOMINAL_ENTRIES = 2000
"""Protocol entries ``|S||U||Y|`` from which a nominal (LP) program goes to HiGHS."""


def default_solver(program: "ProtocolProgram", note: bool = True) -> str:
    """The fastest registered backend that supports ``program``.

    Parameters
    ----------
    program : ProtocolProgram
    note : bool
        Log one line (module docstring) when the fastest path does not apply,
        naming the blocks that keep the program off it.
    """
    forms = program.solver_forms()
    if not program.is_robust and program.crosstab.counts.size * len(program.output_labels) \
            >= LARGE_NOMINAL_ENTRIES:
        choice = fastest(forms, ("highs", *FASTEST_FIRST))
        if choice == "highs":
            return choice
    choice = fastest(forms, FASTEST_FIRST)
    if note and choice != FASTEST_FIRST[0]:
        LOGGER.warning("rldp: note: %s: %s; solving with %s", program.name,
                       _why_not_direct(program), choice)
    return choice


def _why_not_direct(program: "ProtocolProgram") -> str:
    missing = [block_label(block) + "".join(f" (over its own {s.name} set)"
                                            for s in block.own_sets())
               for block in program_blocks(program)
               if Capability.DIRECT_CONIC not in block.capabilities(program.uncertainty)]
    if not missing:
        return f"{FASTEST_FIRST[0]} is not available here"
    over = "" if program.uncertainty is None else f" over the {program.uncertainty.name} set"
    return f"no direct conic form for {', '.join(missing)}{over}"
