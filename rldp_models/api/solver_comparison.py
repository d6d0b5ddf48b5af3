"""Solve one model with every available solver and compare (``rldp compare-solvers``).

Each solver of :func:`solvers.available` that accepts the model solves a
freshly built copy of it; solvers that cannot (a conic model for an LP solver,
MOSEK without a licence) are listed with the reason. Against a reference
solver the table gives the objective difference, the largest difference of the
protocol ``P(y | s, u)`` and of the constraint groups' multipliers, and the
time of the whole solve (building the model, solving, finishing the protocol to
exact rows with any repair, and its bounds; wall clock). :func:`compare_solvers`
returns the table; the printed one is at most 100 characters wide (status and
gaps; differences; bounds; notes) unless ``wide``.

Dual signs: every backend returns multipliers in cvxpy's convention (a
multiplier of ``g(x) <= 0`` is ``>= 0``, Lagrangian ``f + y g`` for a
minimisation; :class:`solvers.SolveResult`). The comparison checks it: a
group whose negated multipliers match the reference's far better than the
multipliers themselves is flipped and named in the ``note`` column, so a
backend that broke the convention shows up there instead of as a large
difference.
Groups are compared only where both solvers return the same shape; robust
programs' cone multipliers need not be unique, so their differences measure
agreement, not error.

Each solver's protocol is also finished as ``rldp solve`` finishes it (dyadic
rows, the exact guarantee check, a repair if needed): ``exact`` says whether it
passes, ``upper`` is its proven objective (exact, or Theorem 2's bound at its
multipliers), ``lower`` the proven lower bound on the optimum from its own
solve (the conic dual of a direct conic solver; members at its protocol and LP
multipliers for cvxpy solvers and sets other than chi-square, whose gap is that
of the product-of-projections model; :mod:`rldp_models.certificates.optimality`),
``own_gap`` its own ``(upper - lower) / upper``, and ``proven_gap`` is
``(upper - L) / upper`` with ``L`` the best proven lower bound of any solver in
the table (``gap_from`` names it): a proof about every solver's protocol,
whichever solver's bound gave it.

Time: the program's default backend (the fast path ``rldp solve`` takes) solves
first; every other solver then gets a budget of :data:`BUDGET_FACTOR` times its
solving time, at least :data:`MIN_BUDGET_SECONDS` (``--budget`` sets it), passed as the
registry's ``time_limit``. A solver stopped by it says so in ``note`` and is
compared with what it had (first-order solvers such as SCS ran for 848 s on
RURP Adult race x education at their default tolerances, against 2 s of CPU
for the default). One line on stderr gives the budget, so the wait is known.
A row without a solution always says why in ``note`` (the solver's own status
line, or the reason it was skipped).
"""

from __future__ import annotations

import csv
import json
import math
import sys
import textwrap
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from rldp_models.api.calls import Data, ProgramSpec, crosstab_of
from rldp_models.api.outcomes import Table
from rldp_models.errors import InputError
from rldp_models.finish import GuaranteeError
from rldp_models.optimality import lagrangian
from rldp_models.optimality.best_claim import solution_optimality
from rldp_models.optimality.lagrangian_dual import conic_instance
from rldp_models.programs.backend_choice import default_solver
from rldp_models.programs.protocol_program import ProtocolProgram
from rldp_models.programs.solution import finish_solution
from rldp_models.progress import progress
from rldp_models.safe_io import atomic_output, write_text
from rldp_models.uncertainty.chi_square import ChiSquareSet
from solvers.result import SolveResult

COLUMNS = ("solver", "status", "objective", "objective_diff", "max_primal_diff",
           "max_dual_diff", "seconds", "exact", "upper", "lower", "own_gap", "proven_gap",
           "gap_from", "note")


@dataclass
class SolverRow:
    """One line of the comparison."""

    solver: str
    status: str
    objective: float | None = None
    objective_diff: float | None = None
    max_primal_diff: float | None = None
    max_dual_diff: float | None = None
    seconds: float | None = None
    exact: str | None = None
    upper: float | None = None
    lower: float | None = None
    own_gap: float | None = None
    proven_gap: float | None = None
    gap_from: str | None = None
    note: str = ""
    solver_seconds: float | None = field(default=None, repr=False)
    primal: np.ndarray | None = field(default=None, repr=False)
    dual: dict[str, np.ndarray] = field(default_factory=dict, repr=False)


def solve_with(name: str, spec: ProgramSpec, crosstab: Any,
               budget: float | None = None) -> SolverRow:
    """Solve a fresh copy of the model with ``name``; a row saying why if it cannot.

    A solver that refuses the model is ``skipped``; one that fails inside
    (numerical trouble, a crash of the solver library) is ``failed`` with its
    message: one solver's failure is a line of the comparison, not the end of it.
    A row without a solution carries the solver's status line in ``note``; with
    ``budget`` (seconds of solving, the registry's ``time_limit``) a solver
    stopped there says so.
    """
    import solvers

    start = time.perf_counter()
    program = spec.build(crosstab)
    options = {} if budget is None else {"time_limit": budget}
    try:
        result = solvers.solve(program, solver=name, **options)
    except solvers.SolverError as exc:
        return SolverRow(name, "skipped", note=" ".join(str(exc).split()))
    except Exception as exc:  # noqa: BLE001 - any failure of one solver is one row of the table
        return SolverRow(name, "failed", note=f"{type(exc).__name__}: {' '.join(str(exc).split())}")
    row = SolverRow(name, result.status.value, solver_seconds=result.timings.total_seconds)
    if budget is not None and result.timings.solve_seconds >= BUDGET_REACHED * budget:
        row.note = f"stopped at its budget of {budget:.3g} s (--budget)"
    if result.status.has_solution:
        row.objective = result.objective
        row.primal = np.asarray(result.primal["protocol"], dtype=float)
        row.dual = {g: np.asarray(v, dtype=float).ravel() for g, v in result.dual.items()}
        _finish(row, program, result, options)
    else:
        row.note = _joined(row.note, " ".join(result.log.split()) or
                           f"{name} returned {result.status.value} and no message")
    row.seconds = time.perf_counter() - start  # the whole solve, finish included
    return row


BUDGET_REACHED = 0.98
"""A solve that used this share of its budget is taken as stopped by it (solvers check their
clock between iterations, so they stop just after or just before it)."""


def _joined(*notes: str) -> str:
    return "; ".join(note for note in notes if note)


def _finish(row: SolverRow, program: ProtocolProgram, result: SolveResult,
            options: dict[str, Any]) -> None:
    """``exact``, ``upper`` and ``lower`` of the row: its protocol finished and its bounds.

    A repair's tightened re-solve gets the same ``options`` (the budget's time limit):
    unbounded, SCS spent 4x its budgeted solve there on a 4 x 4 table."""
    try:
        solution = finish_solution(program, result, row.solver, options)
    except GuaranteeError as exc:
        row.exact = "fails"
        row.note = _joined(row.note, " ".join(str(exc).split()))
        return
    row.exact = "passes" if solution.guarantee_holds else "fails"
    claim = solution_optimality(solution)
    if claim.get("claimed"):
        row.upper, row.lower = claim["upper"], claim["lower"]
        row.own_gap = claim["relative_gap"]
        return
    row.note = _joined(row.note, f"no proven gap: {claim.get('reason')}")
    if program.uncertainty is not None and not isinstance(program.uncertainty, ChiSquareSet):
        return  # the upper bound below is Theorem 2's (chi-square)
    if solution.protocol is None:
        return
    upper = lagrangian.upper_bound(conic_instance(program), solution.protocol,
                            solution.multipliers)
    row.upper = float(upper.value.upper()) if upper.proved else None


def proven_gaps(rows: list[SolverRow]) -> None:
    """``proven_gap`` of every row against the best proven lower bound in the table."""
    proved = [(row.lower, row.solver) for row in rows if row.lower is not None]
    if not proved:
        return
    lower, solver = max(proved)
    for row in rows:
        if row.upper is not None:
            row.proven_gap = lagrangian.relative(
                float(np.nextafter(row.upper - lower, np.inf)), row.upper)
            row.gap_from = solver


def _max_difference(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.nanmax(np.abs(a - b))) if a.size else 0.0


def compare(rows: list[SolverRow], reference: str | None) -> str:
    """Fill the difference columns against the reference; return its name."""
    solved = [row for row in rows if row.primal is not None]
    if not solved:
        raise InputError("no solver returned a solution for this model")
    by_name = {row.solver: row for row in solved}
    if reference is not None and reference not in by_name:
        raise InputError(f"reference solver {reference!r} returned no solution")
    base = by_name.get(reference or "clarabel") or by_name.get("clarabel") or solved[0]
    assert base.primal is not None and base.objective is not None
    for row in solved:
        assert row.primal is not None and row.objective is not None  # solved rows have both
        row.objective_diff = row.objective - base.objective
        row.max_primal_diff = _max_difference(row.primal, base.primal)
        common = [g for g in row.dual if g in base.dual and row.dual[g].shape == base.dual[g].shape]
        flipped = [g for g in common if _sign_flipped(row.dual[g], base.dual[g])]
        for group in flipped:
            row.dual[group] = -row.dual[group]
        if flipped:
            row.note = _joined(row.note, "dual sign flipped to the reference's convention: "
                               + ", ".join(flipped))
        row.max_dual_diff = max((_max_difference(row.dual[g], base.dual[g]) for g in common),
                                default=None)
    return base.solver


def _sign_flipped(values: np.ndarray, reference: np.ndarray) -> bool:
    """Whether ``-values`` matches the reference far better than ``values`` (module docstring)."""
    scale = float(np.nanmax(np.abs(reference))) if reference.size else 0.0
    if scale <= 1e-9:
        return False
    plain, negated = _max_difference(values, reference), _max_difference(-values, reference)
    return negated < 0.1 * plain and plain > 1e-6 * scale


def unavailable_rows() -> list[SolverRow]:
    """Registered solvers that cannot run here, with the reason (e.g. MOSEK without a licence)."""
    import solvers

    return [SolverRow(name, "unavailable", note=status.reason)
            for name, status in solvers.describe().items() if not status.ok]


BUDGET_FACTOR = 20.0
"""Each solver after the default may take this many times the default's seconds..."""

MIN_BUDGET_SECONDS = 10.0
"""... and at least this many."""


BOUND_COLUMNS = ("upper", "lower")
"""Printed with 10 significant digits (they differ in the 7th to 9th)."""


def _cell(value: Any, digits: int = 6) -> str:
    if value is None:
        return "-"
    if isinstance(value, float) and value == 0:
        return "0"
    if isinstance(value, float):
        return f"{value:.{digits}g}" if math.isfinite(value) else str(value)
    return str(value)


TEXT_WIDTH = 100
"""Characters per line of the printed table unless ``wide``."""

NARROW_BLOCKS = (("solver", "status", "objective", "seconds", "exact", "own_gap", "proven_gap"),
                 ("solver", "objective_diff", "max_primal_diff", "max_dual_diff"),
                 ("solver", "upper", "lower", "gap_from"))
"""The columns of each block of the narrow table; the notes follow, one per solver."""


def format_table(rows: list[SolverRow], wide: bool = False) -> str:
    """The rows as aligned text: every column on one line when ``wide``, else
    :data:`NARROW_BLOCKS` then each note wrapped at :data:`TEXT_WIDTH` characters."""
    if wide:
        return _aligned(rows, COLUMNS)
    blocks = [_aligned(rows, columns) for columns in NARROW_BLOCKS]
    notes = [textwrap.fill(f"{row.solver}: {row.note}", TEXT_WIDTH, subsequent_indent="    ")
             for row in rows if row.note]
    return "\n\n".join([*blocks, *(["notes:\n" + "\n".join(notes)] if notes else [])])


def _aligned(rows: list[SolverRow], columns: tuple[str, ...]) -> str:
    cells = [list(columns)] + [[_cell(getattr(row, c), 10 if c in BOUND_COLUMNS else 6)
                                for c in columns] for row in rows]
    widths = [max(len(line[i]) for line in cells) for i in range(len(columns))]
    return "\n".join("  ".join(text.ljust(w) for text, w in zip(line, widths)).rstrip()
                     for line in cells)


def write_rows(rows: list[SolverRow], path: str, meta: dict[str, Any]) -> None:
    """The table as CSV or JSON (by the file's suffix)."""
    records = [{key: value for key, value in asdict(row).items() if key in COLUMNS}
               for row in rows]
    suffix = Path(path).suffix.lower()
    if suffix == ".json":
        write_text(path, json.dumps({**meta, "rows": records}, indent=2))
    elif suffix == ".csv":
        with atomic_output(path, newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=COLUMNS)
            writer.writeheader()
            writer.writerows(records)
    else:
        raise InputError(f"--out must end in .csv or .json, got {path!r}")


def compare_solvers(problem: str, data: Data, *, eps: float, alpha: float = 0.05,
                    distortion: str = "squared", uncertainty: str = "chi2",
                    radius: float | None = None, lam: float | None = None,
                    order: float | None = None, radius_from: str = "asymptotic",
                    bootstrap_draws: int | None = None, bootstrap_seed: int | None = None,
                    reference: str | None = None, budget: float | None = None,
                    sensitive: str | None = None, public: str | None = None,
                    announce: bool = False) -> SolverComparison:
    """Solve one preset program with every available solver and compare (module docstring).

    ``budget`` is the seconds of solving each solver after the default may take
    (default: :data:`BUDGET_FACTOR` times the default's, at least
    :data:`MIN_BUDGET_SECONDS`); ``announce`` says it on stderr.
    """
    import solvers

    spec = ProgramSpec(problem, eps, alpha, distortion, uncertainty, radius, lam, order,
                       radius_from, bootstrap_draws, bootstrap_seed)
    if reference is not None:
        solvers.get(reference)  # fail fast on an unknown or unavailable reference
    crosstab = crosstab_of(data, sensitive, public)
    rows = solve_all(spec, crosstab, solvers.available(), budget, announce)
    base = compare(rows, reference.lower() if reference else None)
    proven_gaps(rows)
    rows += unavailable_rows()
    table = pd_table(rows)
    title = (f"{spec.problem.upper()} (eps = {eps:g}, uncertainty {uncertainty}); "
             f"differences against {base}")
    return SolverComparison(table, title, format_table(rows), rows=tuple(rows), reference=base,
                            meta={"problem": spec.problem.upper(), "eps": eps,
                                  "uncertainty": uncertainty, "reference": base})


@dataclass(frozen=True, repr=False)
class SolverComparison(Table):
    """:func:`compare_solvers`' table (``to_frame()``), its rows and the reference solver."""

    rows: tuple[SolverRow, ...] = ()
    reference: str = ""
    meta: dict[str, Any] = field(default_factory=dict)

    def text_table(self, wide: bool = False) -> str:
        """The table as text: at most :data:`TEXT_WIDTH` characters a line unless ``wide``."""
        return format_table(list(self.rows), wide)

    def summary(self, wide: bool = False) -> str:
        return f"{self.title}\n{self.text_table(wide)}"

    def write(self, path: str) -> None:
        """The table as CSV or JSON (by the file's suffix)."""
        write_rows(list(self.rows), path, self.meta)


def pd_table(rows: list[SolverRow]) -> Any:
    """The rows as a DataFrame of :data:`COLUMNS`."""
    import pandas as pd

    return pd.DataFrame([{key: value for key, value in asdict(row).items() if key in COLUMNS}
                         for row in rows], columns=list(COLUMNS))


def solve_all(spec: ProgramSpec, crosstab: Any, names: list[str], budget: float | None = None,
              announce: bool = False) -> list[SolverRow]:
    """One row per solver of ``names``, in that order: the program's default backend first,
    unbounded; then the others within the budget (module docstring), announced on stderr."""
    first = default_solver(spec.build(crosstab), note=False)
    order = [first, *(name for name in names if name != first)] if first in names else names
    rows: dict[str, SolverRow] = {}
    limit: float | None = None
    with progress(order, desc="compare-solvers", unit="solver") as bar:
        for name in bar:
            bar.set_postfix_str(name if limit is None else f"{name}, up to {limit:.3g} s")
            rows[name] = solve_with(name, spec, crosstab, limit)
            if limit is None:
                limit = budget or max(MIN_BUDGET_SECONDS,
                                      BUDGET_FACTOR * (rows[name].solver_seconds or 0.0))
                if announce:
                    _announce(rows[name], limit, len(order) - 1)
    return [rows[name] for name in names]


def _announce(first: SolverRow, budget: float, others: int) -> None:
    """One line on stderr: how long the rest may take."""
    if others:
        sys.stderr.write(f"rldp: compare-solvers: {first.solver} (the default) took "
                         f"{first.solver_seconds or 0:.3g} s of solving; each of the {others} "
                         f"other solvers may take up to {budget:.3g} s of solving (--budget)\n")
