"""Linear constraints on the protocol, declared by their coefficients.

``sum_{x, y} A_k[x, y] P(y | x)  <=  b_k`` (or ``>=``) for each row ``k``: a
cap, a floor or any linear requirement on the protocol itself (not on an
uncertain distribution: that is :mod:`rldp_models.programs.forall`). The block
holds the coefficients as data (per row, its nonzero entries ``(x, y, a)``),
so a record declares them and ``rldp verify`` rebuilds and re-checks the block
from the record alone.

The check is exact: each row's value at the returned (dyadic) protocol is
computed in rationals, the coefficients and bounds taken as the doubles they
are. The finish path repairs a row broken by the solver's tolerance or the
rounding like any guarantee, by mixing with the uniform protocol
(:mod:`rldp_models.programs.solution`): a linear row's value at the mix is the
mix of the values, so the repair restores every row the uniform protocol meets
with slack (:meth:`LinearConstraints.uniform_margin`, which also sets the first
weight). A row the uniform protocol does not meet strictly (e.g. a cap below
``1/|Y|`` on one output) cannot be repaired that way: the solve then fails
with no result rather than return a protocol that breaks it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Callable, Sequence

import numpy as np
import scipy.sparse as sparse

from rldp_models.data import Crosstab
from rldp_models.errors import InputError
from rldp_models.privacy.certified import Certified
from rldp_models.privacy.guarantees import GuaranteeCheck
from rldp_models.programs.context import BuildContext, ProblemData
from rldp_models.programs.contract import GuaranteeFamily, Multipliers, block_label
from rldp_models.programs.forall import affine_in_protocol
from rldp_models.uncertainty.base import Capability, UncertaintySet

if TYPE_CHECKING:
    import cvxpy as cp

    from rldp_models.programs.protocol_program import ProtocolProgram

SENSES = ("<=", ">=")
"""The senses a row may have."""

Entry = tuple[int, int, float]
"""``(x, y, a)``: the coefficient ``a`` of ``P(y | x)``."""


@dataclass
class LinearCheck(GuaranteeCheck):
    """The verdict of :class:`LinearConstraints`: ``margins[k]`` is row ``k``'s value minus
    its bound (``>=`` rows negated), exactly; ``worst_at[0]`` the worst row."""

    statement: str = ""

    def summary(self, secrets: Sequence[Any] | None = None,
                outputs: Sequence[Any] | None = None) -> str:
        """One line: the verdict and the worst row (the labels are unused)."""
        verdict = "holds" if self.holds else "FAILS"
        return (f"linear constraints {self.statement} {verdict}: largest row value minus bound "
                f"{self.worst_margin:.3e} at row {self.worst_at[0]} (exact, must be <= 0)")


@dataclass(frozen=True)
class LinearConstraints(GuaranteeFamily):
    """``sum_{x,y} A_k[x, y] P(y | x) (sense) b_k`` for every row ``k`` (module docstring).

    Parameters
    ----------
    name : str
        The constraint group's name.
    rows : rows of ``(x, y, a)`` entries
        Row ``k``'s nonzero coefficients; ``x`` indexes the protocol's inputs
        ``(s, u)`` row-major, ``y`` its outputs.
    bounds : floats
        ``b_k``, one per row.
    sense : {"<=", ">="}
    """

    name: str
    rows: tuple[tuple[Entry, ...], ...]
    bounds: tuple[float, ...]
    sense: str = "<="
    robust: bool = False
    eps = math.nan  # states no privacy level: the program's eps is its privacy blocks'

    def __post_init__(self) -> None:
        """Lists (as a record stores them) become tuples; rows, bounds and sense must fit.

        Raises
        ------
        InputError
            If the sense is unknown, a row has no bound, or a number is not finite.
        """
        set_field = object.__setattr__
        set_field(self, "rows", tuple(tuple((int(x), int(y), float(a)) for x, y, a in row)
                                      for row in self.rows))
        set_field(self, "bounds", tuple(float(b) for b in self.bounds))
        if self.sense not in SENSES:
            raise InputError(f"linear constraints {self.name}: sense must be one of "
                             f"{', '.join(SENSES)}, not {self.sense!r}")
        if len(self.rows) != len(self.bounds) or not self.rows:
            raise InputError(f"linear constraints {self.name}: {len(self.rows)} rows but "
                             f"{len(self.bounds)} bounds (one per row, at least one)")
        numbers = [a for row in self.rows for _, _, a in row] + list(self.bounds)
        if not all(math.isfinite(v) for v in numbers):
            raise InputError(f"linear constraints {self.name}: coefficients and bounds must "
                             "be finite")

    @classmethod
    def from_statement(cls, name: str, statement: Callable[["cp.Variable"], "cp.Constraint"],
                       crosstab: Crosstab, n_outputs: int | None = None) -> "LinearConstraints":
        """The rows of ``statement(P)``, an inequality affine in the protocol ``P``
        (a cvxpy Variable of shape ``(|X|, |Y|)``), read once; e.g.
        ``lambda P: P[:, -1] <= 0.3`` caps the last output's probability for every input.

        Raises
        ------
        InputError
            If the statement is not an inequality affine in ``P``.
        """
        import cvxpy as cp  # here, not at the top: rldp solve's default path never needs cvxpy

        n_y = crosstab.shape[1] if n_outputs is None else int(n_outputs)
        context = BuildContext(crosstab, tuple(str(y) for y in range(n_y)),
                               np.zeros((crosstab.shape[1], n_y)),
                               ProblemData.from_phat(crosstab.phat, 0.0), False)
        constraint = statement(context.P)
        if not isinstance(constraint, cp.constraints.Inequality):
            raise InputError(f"linear constraints {name}: the statement must be an "
                             "inequality 'expression <= bound' affine in P")
        lhs, rhs = constraint.args
        try:
            matrix, offsets = affine_in_protocol(cp.vec(lhs - rhs, order="C"), context.P)
        except ValueError as exc:
            raise InputError(f"linear constraints {name}: {exc}") from None
        rows = [tuple((int(i) // n_y, int(i) % n_y, float(row[i])) for i in np.flatnonzero(row))
                for row in matrix]
        return cls(name, tuple(rows), tuple(-float(o) for o in offsets), "<=")

    def capabilities(self, uncertainty: UncertaintySet | None) -> frozenset[Capability]:
        """Linear (the Pyomo/HiGHS path); no direct conic rows."""
        return frozenset({Capability.LINEAR})

    def matrix(self, n_x: int, n_y: int) -> sparse.csr_matrix:
        """``A`` with one row per constraint and one column per ``P[x, y]``, row-major.

        Raises
        ------
        InputError
            If an entry is outside the ``n_x x n_y`` protocol.
        """
        if any(not (0 <= x < n_x and 0 <= y < n_y) for row in self.rows for x, y, _ in row):
            raise InputError(f"linear constraints {self.name}: an entry (x, y) is outside the "
                             f"{n_x} x {n_y} protocol")
        entries = [(k, x * n_y + y, a) for k, row in enumerate(self.rows) for x, y, a in row]
        rows, columns, values = zip(*entries) if entries else ((), (), ())
        return sparse.csr_matrix((values, (rows, columns)), shape=(len(self.rows), n_x * n_y))

    def build(self, context: BuildContext) -> None:
        import cvxpy as cp  # here, not at the top: rldp solve's default path never needs cvxpy

        lhs = self.matrix(*context.P.shape) @ cp.vec(context.P, order="C")
        bounds = np.array(self.bounds)
        context.add(self.name, [lhs <= bounds if self.sense == "<=" else lhs >= bounds])

    def _sign(self) -> int:
        return 1 if self.sense == "<=" else -1

    def check(self, protocol: np.ndarray, program: "ProtocolProgram",
              multipliers: Multipliers) -> GuaranteeCheck:
        """Each row's value minus its bound at ``protocol``, in rationals (``>=`` negated)."""
        self.matrix(*protocol.shape)  # the entries fit the protocol
        margins = [self._sign() * (sum((Fraction(a) * Fraction(float(protocol[x, y]))
                                        for x, y, a in row), Fraction(0)) - Fraction(b))
                   for row, b in zip(self.rows, self.bounds)]
        worst = max(range(len(margins)), key=lambda k: margins[k])
        eps = float(program.eps) if program.eps is not None else 0.0
        return LinearCheck(margins[worst] <= 0, "linear", eps, float(margins[worst]),
                           (worst, 0, 0), np.array([float(m) for m in margins]), {}, self.name)

    def certify(self, protocol: np.ndarray, program: "ProtocolProgram",
                hints: Multipliers | None = None) -> Certified:
        """The exact :meth:`check`, named as a constraint on the protocol (no eps; nothing
        to start from: ``hints`` unused)."""
        check = self.check(protocol, program, {})
        return Certified(bool(check.holds), f"{block_label(self)} {self.name}: "
                         f"{len(self.rows)} linear constraints on the protocol, checked in "
                         f"rationals", (check.summary(),))

    def uniform_margin(self, n_outputs: int) -> float:
        """The largest row value minus bound at the uniform protocol (the repair's slack)."""
        return max(self._sign() * (sum(a for _, _, a in row) / n_outputs - b)
                   for row, b in zip(self.rows, self.bounds))
