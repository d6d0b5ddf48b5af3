"""``forall(F, expr <= 0)``: a constraint for every distribution in an uncertainty set, in one line.

Inside a block's ``build(context)`` a user states a constraint that must hold
for every ``P`` in a set ``F``, writing ``P`` as a cvxpy Variable of ``|X|``
entries and the expression affine in it (coefficients may be affine in the
protocol, e.g. ``context.P[:, y] @ P``)::

    P = cp.Variable(context.n_s * context.n_u)
    group = forall(context.uncertainty, context.P[:, 0] @ P <= 0.4, P)
    context.add("first_output_at_most_0.4", group.constraints, group.multipliers)

or, as a whole block, ``ForAll.from_statement("name", lambda context, P: context.P[:, 0] @ P
<= 0.4, crosstab)``.
``forall`` reads the coefficients ``v`` and constant ``c`` of the expression
in ``P`` (``v_x = e(P = e_x) - e(P = 0)``, checked to be affine) and returns
the set's robust counterpart of ``v.P + c <= 0`` (``support_at_most``: the
closed form where the set has one; the conic dual derived from its membership
otherwise, :mod:`rldp_models.uncertainty.derived`). With ``given=s`` the
statement is over the conditionals ``R = P(U | S = s)`` (``P`` then has
``|U|`` entries), by the Charnes-Cooper form (*) of
:mod:`rldp_models.uncertainty.base`.

:class:`ForAll` is a block of the contract
(:class:`~rldp_models.programs.contract.GuaranteeFamily`) declared by data, not
code: the statement's coefficients are affine in the protocol ``Q`` (``q`` its
entries row-major), ``v = A q + a`` and ``c = g . q + h``, and the block holds
``A, a, g, h`` (read once from the statement by :meth:`ForAll.from_statement`).
A record declares them, so ``rldp verify`` rebuilds and re-checks the block
from the record alone. It checks its constraint at the returned protocol
independently of the solver: the set's ``certified_support_bound`` (interval
arithmetic) plus the rounding of evaluating ``v`` and ``c`` in floating point.
Over a linear set its counterpart is linear (``LINEAR``: the Pyomo/HiGHS path);
it writes no direct conic rows.

Robust privacy on chosen outputs or secret pairs is a parameter of the library
block: ``RobustSecretPrivacy(eps, outputs=..., pairs=...)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Sequence

import mpmath
import numpy as np
import scipy.sparse as sparse

from rldp_models.data import Crosstab
from rldp_models.errors import InputError
from rldp_models.exact import interval, iv, upper
from rldp_models.privacy.guarantees import GuaranteeCheck
from rldp_models.privacy.stored_bounds import ConstraintBound, StoredCheck
from rldp_models.programs.context import BuildContext, ProblemData
from rldp_models.programs.contract import (
    GuaranteeFamily,
    Multipliers,
    Problem,
    robust_set,
    set_capabilities,
)
from rldp_models.uncertainty.base import Capability, UncertaintySet, certify_conditional
from rldp_models.uncertainty.conic_support import ConicSupport

if TYPE_CHECKING:
    import cvxpy as cp

    from rldp_models.programs.protocol_program import ProtocolProgram

DOUBLE_UNIT = 2.0**-53
"""Unit round-off of a double."""


def substitute(expression: cp.Expression, variable: cp.Variable,
               replacement: cp.Expression) -> cp.Expression:
    """``expression`` with every occurrence of ``variable`` replaced (a rebuilt tree)."""
    import cvxpy as cp  # here, not at the top: rldp solve's default path never needs cvxpy

    if expression is variable or (isinstance(expression, cp.Variable)
                                  and expression.id == variable.id):
        return replacement
    arguments: list[cp.Expression] = getattr(expression, "args", [])  # leaves have none
    if not arguments:
        return expression
    return expression.copy([substitute(arg, variable, replacement) for arg in arguments])


@dataclass(frozen=True)
class AffineInP:
    """``e(P) = coefficients . P + constant``: the parts of an expression affine in ``P``."""

    coefficients: cp.Expression
    constant: cp.Expression


def affine_parts(expression: cp.Expression, variable: cp.Variable) -> AffineInP:
    """Coefficients ``v_x = e(e_x) - e(0)`` and constant ``e(0)`` of a scalar ``e`` affine in ``P``.

    Raises
    ------
    ValueError
        If ``e`` is not a scalar, or a numeric test at random values shows it is
        not affine in ``P``.
    """
    import cvxpy as cp  # here, not at the top: rldp solve's default path never needs cvxpy

    if expression.size != 1:
        raise ValueError("forall needs a scalar expression")
    size = variable.size
    basis = np.eye(size)
    at_zero = substitute(expression, variable, cp.Constant(np.zeros(variable.shape)))
    columns = [substitute(expression, variable, cp.Constant(basis[x].reshape(variable.shape)))
               - at_zero for x in range(size)]
    parts = AffineInP(cp.hstack([cp.reshape(c, (1,), order="F") for c in columns]),
                      cp.reshape(at_zero, (), order="F"))
    _check_affine(expression, variable, parts)
    return parts


def _check_affine(expression: cp.Expression, variable: cp.Variable, parts: AffineInP) -> None:
    """``e(a) == v.a + c`` at random ``a`` and random values of the other variables."""
    rng = np.random.default_rng(0)
    others = [x for x in expression.variables() if x.id != variable.id]
    saved = [x.value for x in (*others, variable)]
    try:
        for x in others:
            x.value = rng.uniform(0.1, 1.0, x.shape)
        variable.value = rng.uniform(0.1, 1.0, variable.shape)
        direct = float(np.ravel(np.asarray(expression.value))[0])
        combined = float(np.ravel(np.asarray(parts.coefficients.value))
                         @ np.ravel(np.asarray(variable.value))
                         + float(np.ravel(np.asarray(parts.constant.value))[0]))
    finally:
        for x, value in zip((*others, variable), saved):
            x.value = value
    if not np.isclose(direct, combined, rtol=1e-9, atol=1e-12):
        raise ValueError("forall: the expression is not affine in the uncertain distribution")


def statement_parts(statement: cp.Constraint, variable: cp.Variable) -> AffineInP:
    """``lhs - rhs`` of ``lhs <= rhs`` (or ``>=``), split into its parts affine in ``P``."""
    import cvxpy as cp  # here, not at the top: rldp solve's default path never needs cvxpy

    if not isinstance(statement, cp.constraints.Inequality):
        raise ValueError("forall needs an inequality 'expression <= bound'")
    lhs, rhs = statement.args
    return affine_parts(lhs - rhs, variable)


def forall(uncertainty: UncertaintySet, statement: cp.Constraint, variable: cp.Variable,
           given: int | None = None) -> ConicSupport:
    """Constraints that say ``statement`` holds for every ``P`` in ``uncertainty``.

    Parameters
    ----------
    uncertainty : UncertaintySet
    statement : cvxpy inequality
        ``expression <= bound``, affine in ``variable``.
    variable : cvxpy Variable
        Stands for ``P`` (``|X|`` entries, row-major ``(s, u)``), or for
        ``P(U | S = given)`` (``|U|`` entries) when ``given`` is set.
    given : int, optional
        A secret: the statement is over its conditionals ``C_s``.
    """
    parts = statement_parts(statement, variable)
    return counterpart(uncertainty, parts, given)


def counterpart(uncertainty: UncertaintySet, parts: AffineInP,
                given: int | None) -> ConicSupport:
    """The robust counterpart of ``v.P + c <= 0`` (or over ``C_given``)."""
    import cvxpy as cp  # here, not at the top: rldp solve's default path never needs cvxpy
    from rldp_models.uncertainty.cvxpy_rows import conditional_at_most

    if given is None:
        return uncertainty.support_at_most(parts.coefficients, -parts.constant)
    column = cp.reshape(parts.coefficients, (parts.coefficients.size, 1), order="F")
    return conditional_at_most(uncertainty, column, cp.reshape(-parts.constant, (1,), order="F"),
                               given)


Statement = Callable[[BuildContext, "cp.Variable"], "cp.Constraint"]
"""``(context, P) -> expression <= bound``, affine in ``P``."""


def affine_in_protocol(expression: cp.Expression,
                       protocol: cp.Variable) -> tuple[np.ndarray, np.ndarray]:
    """``(J, e0)`` with ``expression = J q + e0``, ``q`` the protocol's entries row-major.

    Raises
    ------
    ValueError
        If ``expression`` is not affine in the protocol.
    """
    if not expression.is_affine():
        raise ValueError("forall: the coefficients must be affine in the protocol")
    saved = protocol.value
    try:
        protocol.value = np.zeros(protocol.shape)
        at_zero = np.ravel(np.asarray(expression.value, dtype=float))
        gradient = expression.grad.get(protocol)
    finally:
        protocol.value = saved
    if gradient is None:
        return np.zeros((at_zero.size, protocol.size)), at_zero
    # cvxpy's gradient rows follow the protocol's entries column-major
    row_major = np.arange(protocol.size).reshape(protocol.shape, order="F").ravel()
    jacobian = sparse.csr_matrix(gradient)[row_major, :].T.toarray()
    return jacobian, at_zero


def rounding_bound(matrix: np.ndarray, offset: np.ndarray, q: np.ndarray) -> np.ndarray:
    """A bound on the floating-point error of ``matrix @ q + offset`` per entry.

    Higham's ``gamma_k`` for a dot product of ``k`` terms plus the offset,
    doubled: ``2 (k + 2) u (|matrix| |q| + |offset|)``.
    """
    terms = matrix.shape[1] + 1
    return 2.0 * (terms + 2) * DOUBLE_UNIT * (np.abs(matrix) @ np.abs(q) + np.abs(offset))


@dataclass
class ForallCheck(GuaranteeCheck):
    """The verdict of a :class:`ForAll` constraint: ``worst_margin`` bounds ``sup_F (v.P + c)``."""

    statement: str = ""

    def summary(self, secrets: Sequence[Any] | None = None,
                outputs: Sequence[Any] | None = None) -> str:
        """One line (a set constraint names no secret or output: the labels are unused)."""
        verdict = "holds" if self.holds else "FAILS"
        return (f"forall {self.statement} {verdict}: certified worst case over the set "
                f"{self.worst_margin:.3e} (must be <= 0)")


def _floats(values: Sequence[Any]) -> tuple[float, ...]:
    return tuple(float(x) for x in values)


@dataclass(frozen=True)
class ForAll(GuaranteeFamily):
    """``v.P + c <= 0`` for every ``P`` in the program's set, ``v = A q + a``, ``c = g.q + h``.

    ``q`` is the protocol's entries row-major (``|X||Y|``); ``P`` has ``|X|``
    entries, or with ``given = s`` it stands for the conditional
    ``P(U | S = s)`` (``|U|`` entries; (*) of
    :mod:`rldp_models.uncertainty.base`). Build one from a cvxpy statement
    with :meth:`from_statement`.

    Parameters
    ----------
    name : str
        The constraint group's name.
    coefficients : rows of floats
        ``A``, shape (entries of ``P``, ``|X||Y|``).
    offsets : floats
        ``a``, one per entry of ``P``.
    constant_coefficients : floats
        ``g``, ``|X||Y|`` of them.
    constant : float
        ``h``.
    given : int, optional
        Over the conditionals of this secret.
    over : UncertaintySet, optional
        The block's own set (default: the program's); ``forall(F, ...)`` for the
        block is ``ForAll.from_statement(..., over=F)``.
    """

    name: str
    coefficients: tuple[tuple[float, ...], ...]
    offsets: tuple[float, ...]
    constant_coefficients: tuple[float, ...]
    constant: float = 0.0
    given: int | None = None
    robust: bool = True
    over: UncertaintySet | None = None
    eps = math.nan  # states no privacy level: the program's eps is its privacy blocks'

    def __post_init__(self) -> None:
        """Lists (as a record stores them) become tuples of floats; the shapes must agree.

        Raises
        ------
        InputError
            If ``A``'s rows, ``a`` and ``g`` do not fit together.
        """
        set_field = object.__setattr__
        set_field(self, "coefficients", tuple(_floats(row) for row in self.coefficients))
        set_field(self, "offsets", _floats(self.offsets))
        set_field(self, "constant_coefficients", _floats(self.constant_coefficients))
        set_field(self, "constant", float(self.constant))
        if self.given is not None:
            set_field(self, "given", int(self.given))
        width = len(self.constant_coefficients)
        if len(self.offsets) != len(self.coefficients) or \
                any(len(row) != width for row in self.coefficients):
            raise InputError(f"forall {self.name}: coefficients must be {len(self.offsets)} "
                             f"rows of {width} entries (one per protocol entry)")

    @classmethod
    def from_statement(cls, name: str, statement: Statement, crosstab: Crosstab,
                       n_outputs: int | None = None, given: int | None = None,
                       over: UncertaintySet | None = None) -> "ForAll":
        """The block of ``statement(context, P)``, its coefficients read once.

        Parameters
        ----------
        statement : callable
            ``(context, P) -> expression <= bound`` with ``P`` a cvxpy Variable
            of ``|X|`` (or, with ``given``, ``|U|``) entries; the expression is
            affine in ``P`` with coefficients affine in ``context.P``.
        crosstab : Crosstab
            The program's counts (their shape sizes ``P`` and the protocol).
        n_outputs : int, optional
            ``|Y|``; default ``|U|`` as in :class:`ProtocolProgram`.
        over : UncertaintySet, optional
            The block's own set (default: the program's).
        """
        import cvxpy as cp  # here, not at the top: rldp solve's default path never needs cvxpy

        n_s, n_u = crosstab.shape
        n_y = n_u if n_outputs is None else int(n_outputs)
        context = BuildContext(crosstab, tuple(str(y) for y in range(n_y)),
                               np.zeros((n_u, n_y)), ProblemData.from_phat(crosstab.phat, 0.0),
                               False)
        variable = cp.Variable(n_u if given is not None else n_s * n_u, name=f"{name}_P")
        parts = statement_parts(statement(context, variable), variable)
        matrix, offsets = affine_in_protocol(parts.coefficients, context.P)
        row, constant = affine_in_protocol(parts.constant, context.P)
        return cls(name, tuple(map(tuple, matrix)), tuple(offsets), tuple(row[0]),
                   float(constant[0]), given, over=over)

    def own_sets(self) -> tuple[UncertaintySet, ...]:
        return () if self.over is None else (self.over,)

    def capabilities(self, uncertainty: UncertaintySet | None) -> frozenset[Capability]:
        """Linear over a linear set (the counterpart is the set's own linear rows)."""
        return set_capabilities(uncertainty if self.over is None else self.over) & \
            {Capability.LINEAR}

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
        """``A, a, g, h`` as arrays."""
        return (np.array(self.coefficients, dtype=float).reshape(len(self.offsets), -1),
                np.array(self.offsets), np.array(self.constant_coefficients), self.constant)

    def _fit(self, n_s: int, n_u: int, n_y: int) -> None:
        rows = n_u if self.given is not None else n_s * n_u
        if len(self.offsets) != rows or len(self.constant_coefficients) != n_s * n_u * n_y:
            raise InputError(f"forall {self.name}: its coefficients are "
                             f"{len(self.offsets)} x {len(self.constant_coefficients)}, the "
                             f"program needs {rows} x {n_s * n_u * n_y}")
        if self.given is not None and not 0 <= self.given < n_s:
            raise InputError(f"forall {self.name}: given = {self.given} is not a secret")

    def build(self, context: BuildContext) -> None:
        import cvxpy as cp  # here, not at the top: rldp solve's default path never needs cvxpy

        self._fit(context.n_s, context.n_u, len(context.outputs))
        matrix, offsets, row, constant = self.arrays()
        q = cp.vec(context.P, order="C")
        parts = AffineInP(sparse.csr_matrix(matrix) @ q + offsets, row @ q + constant)
        cone = counterpart(context.over(self.over).robust_set(), parts, self.given)
        context.add(self.name, cone.constraints, cone.multipliers)

    def check(self, protocol: np.ndarray, program: "ProtocolProgram",
              multipliers: Multipliers) -> GuaranteeCheck:
        """The certified worst case of ``v.P + c`` over the set at ``protocol`` (must be <= 0),
        at the set's own multipliers."""
        worst = self._worst(protocol, robust_set(self.over, program.uncertainty), None)
        return ForallCheck(worst <= 0.0, "robust", 0.0, worst, (0, 0, 0),
                           np.array([[[worst]]]), {}, self.name)

    def certify_multipliers(self, protocol: np.ndarray, problem: Problem,
                            multipliers: Multipliers) -> StoredCheck:
        """The same bound at the record's stored multipliers of the group ``name``."""
        values = multipliers.get(self.name)
        uncertainty = problem.uncertainty if self.over is None else self.over
        if values is None or uncertainty is None:
            return StoredCheck(missing=(self.name,))
        worst = self._worst(protocol, uncertainty, values)
        return StoredCheck((ConstraintBound(f"forall {self.name}", mpmath.mpf(worst), 0.0),))

    def _worst(self, protocol: np.ndarray, uncertainty: UncertaintySet,
               multipliers: dict[str, Any] | None) -> Any:
        """An upper bound on ``sup_F (v.P + c)`` at ``multipliers`` (None: the set's own).

        ``sup_F (v + d).P <= sup_F v.P + max |d|`` on distributions, so the
        rounding ``d`` of ``v`` adds its largest bound.
        """
        n_s, n_u = uncertainty.phat.shape
        self._fit(n_s, n_u, protocol.shape[1])
        matrix, offsets, row, constant = self.arrays()
        q = np.ravel(protocol)
        v, v_error = matrix @ q + offsets, rounding_bound(matrix, offsets, q)
        c = float(row @ q + constant)
        c_error = float(rounding_bound(row[None, :], np.array([constant]), q)[0])
        if self.given is None:
            chosen = uncertainty.support_multipliers(v) if multipliers is None else multipliers
            bound = iv.mpf(uncertainty.certified_support_bound(v, chosen)) + interval(c)
        else:
            bound = iv.mpf(certify_conditional(uncertainty, v, self.given, -c, multipliers))
        return upper(bound + interval(float(v_error.max(initial=0.0))) + interval(c_error))
