"""``forall(F, expr <= 0)``: a constraint for every distribution in an uncertainty set, in one line.

Inside a block's ``build(context)`` a user states a constraint that must hold
for every ``P`` in a set ``F``, writing ``P`` as a cvxpy Variable of ``|X|``
entries and the expression affine in it (coefficients may be affine in the
protocol, e.g. ``context.P[:, y] @ P``)::

    P = cp.Variable(context.n_s * context.n_u)
    group = forall(context.uncertainty, context.P[:, 0] @ P <= 0.4, P)
    context.add("first_output_at_most_0.4", group.constraints, group.multipliers)

or, as a whole block, ``ForAll("name", lambda context, P: context.P[:, 0] @ P <= 0.4)``.
``forall`` reads the coefficients ``v`` and constant ``c`` of the expression
in ``P`` (``v_x = e(P = e_x) - e(P = 0)``, checked to be affine) and returns
the set's robust counterpart of ``v.P + c <= 0`` (``support_at_most``: the
closed form where the set has one; the conic dual derived from its membership
otherwise, :mod:`rldp_models.uncertainty.derived`). With ``given=s`` the
statement is over the conditionals ``R = P(U | S = s)`` (``P`` then has
``|U|`` entries), by the Charnes-Cooper form (*) of
:mod:`rldp_models.uncertainty.base`.

:class:`ForAll` also checks its constraint at the returned protocol,
independently of the solver: the set's ``certified_support_bound`` (interval
arithmetic) plus the rounding of evaluating ``v`` and ``c`` in floating point.

:class:`RobustPrivacyOn` is robust secret privacy (eq. 23) restricted to chosen
outputs and ordered secret pairs: Theorem 4's exact pair form over the
chi-square set, the product form (**) over any other set.

Hooks (today's ``ConstraintFamily`` protocol of
:mod:`rldp_models.programs.components`): ``name``, ``robust``,
``build(context)``, ``check(protocol, program, multipliers)``. Nothing else
of the block contract is assumed, so the blocks port to declared
capabilities by adding them.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import cvxpy as cp
import mpmath
import numpy as np

from rldp_models import symbolic
from rldp_models.exact import interval, iv, upper
from rldp_models.privacy.guarantees import GuaranteeCheck, check_robust_privacy
from rldp_models.programs.components import conditional_expectation_bounds, solver_bounds
from rldp_models.programs.context import BuildContext
from rldp_models.uncertainty.base import UncertaintySet, conditional_at_most, certify_conditional
from rldp_models.uncertainty.chi_square import ChiSquareSet
from rldp_models.uncertainty.chi_square_conic import ConicSupport, pair_support_at_most
from rldp_models.uncertainty.set_privacy import check_product_privacy

DOUBLE_UNIT = 2.0**-53
"""Unit round-off of a double."""


def substitute(expression: cp.Expression, variable: cp.Variable,
               replacement: cp.Expression) -> cp.Expression:
    """``expression`` with every occurrence of ``variable`` replaced (a rebuilt tree)."""
    if expression is variable or (isinstance(expression, cp.Variable)
                                  and expression.id == variable.id):
        return replacement
    if not expression.args:
        return expression
    return expression.copy([substitute(arg, variable, replacement) for arg in expression.args])


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
        direct = float(np.ravel(expression.value)[0])
        combined = float(np.ravel(parts.coefficients.value) @ np.ravel(variable.value)
                         + float(np.ravel(parts.constant.value)[0]))
    finally:
        for x, value in zip((*others, variable), saved):
            x.value = value
    if not np.isclose(direct, combined, rtol=1e-9, atol=1e-12):
        raise ValueError("forall: the expression is not affine in the uncertain distribution")


def statement_parts(statement: cp.Constraint, variable: cp.Variable) -> AffineInP:
    """``lhs - rhs`` of ``lhs <= rhs`` (or ``>=``), split into its parts affine in ``P``."""
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
    if given is None:
        return uncertainty.support_at_most(parts.coefficients, -parts.constant)
    column = cp.reshape(parts.coefficients, (parts.coefficients.size, 1), order="F")
    return conditional_at_most(uncertainty, column, cp.reshape(-parts.constant, (1,), order="F"),
                               given)


def value_with_rounding(expression: cp.Expression, protocol_variable: cp.Variable,
                        protocol: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``expression`` at ``protocol`` in floating point, and a bound on its rounding error.

    ``expression`` is affine in the protocol; with Jacobian ``J`` and constant
    ``c`` its float evaluation is within ``2 (k + 2) u (|J|^T |x| + |c|)`` of
    the exact value (``k`` terms per entry, Higham's ``gamma_k`` doubled for
    the constant and the Jacobian's own product).
    """
    saved = protocol_variable.value
    try:
        protocol_variable.value = np.zeros(protocol_variable.shape)
        constant = np.ravel(np.asarray(expression.value, dtype=float))
        protocol_variable.value = protocol
        value = np.ravel(np.asarray(expression.value, dtype=float))
        gradient = expression.grad.get(protocol_variable)
    finally:
        protocol_variable.value = saved
    if gradient is None:
        magnitude = np.abs(constant)
        terms = 1
    else:
        jacobian = abs(gradient)  # (protocol entries, expression entries)
        flat = np.abs(np.ravel(protocol, order="F"))
        magnitude = np.ravel(jacobian.T @ flat) + np.abs(constant)
        terms = int(max(np.diff(gradient.tocsc().indptr).max(initial=0), 1))
    return value, 2.0 * (terms + 2) * DOUBLE_UNIT * magnitude


@dataclass
class ForallCheck(GuaranteeCheck):
    """The verdict of a :class:`ForAll` constraint: ``worst_margin`` bounds ``sup_F (v.P + c)``."""

    statement: str = ""

    def summary(self) -> str:
        verdict = "holds" if self.holds else "FAILS"
        return (f"forall {self.statement} {verdict}: certified worst case over the set "
                f"{self.worst_margin:.3e} (must be <= 0)")


@dataclass(frozen=True)
class ForAll:
    """A constraint family: ``statement(context, P)`` for every ``P`` in the set (module docstring).

    Parameters
    ----------
    name : str
        The constraint group's name.
    statement : callable
        ``(context, P) -> expression <= bound`` with ``P`` a cvxpy Variable
        of ``|X|`` (or, with ``given``, ``|U|``) entries.
    given : int, optional
        Over the conditionals ``P(U | S = given)`` instead.
    uncertainty : UncertaintySet, optional
        Default: the program's set.
    """

    name: str
    statement: Callable[[BuildContext, cp.Variable], cp.Constraint]
    given: int | None = None
    uncertainty: UncertaintySet | None = None
    robust: bool = True
    _built: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def build(self, context: BuildContext) -> None:
        uncertainty = self.uncertainty or context.uncertainty
        size = context.n_u if self.given is not None else context.n_s * context.n_u
        variable = cp.Variable(size, name=f"{self.name}_P")
        parts = statement_parts(self.statement(context, variable), variable)
        cone = counterpart(uncertainty, parts, self.given)
        context.add(self.name, cone.constraints, cone.multipliers)
        self._built.update(parts=parts, protocol=context.P, uncertainty=uncertainty)

    def check(self, protocol: np.ndarray, program: Any,
              multipliers: dict[str, Any]) -> GuaranteeCheck:
        """The certified worst case of ``v.P + c`` over the set at ``protocol`` (must be <= 0)."""
        if "parts" not in self._built:
            program.to_cvxpy()
        parts, variable = self._built["parts"], self._built["protocol"]
        uncertainty = self._built["uncertainty"]
        v, v_error = value_with_rounding(parts.coefficients, variable, protocol)
        c, c_error = value_with_rounding(parts.constant, variable, protocol)
        if self.given is None:
            bound = uncertainty.certified_support_bound(v, uncertainty.support_multipliers(v))
        else:
            bound = certify_conditional(uncertainty, v, self.given, -float(c[0]))
            c = np.zeros(1)
        worst = upper(iv.mpf(bound) + interval(float(c[0])) + interval(float(v_error.max()))
                      + interval(float(c_error.max())))
        return ForallCheck(worst <= 0.0, "robust", 0.0, worst, (0, 0, 0),
                           np.array([[[worst]]]), {}, self.name)


@dataclass(frozen=True)
class RobustPrivacyOn:
    """Robust secret privacy (eq. 23) on chosen outputs and ordered secret pairs only.

    ``outputs`` are indices of ``Y`` (default all), ``pairs`` ordered pairs
    ``(s1, s2)`` with ``s1 != s2`` (default all). Over the chi-square set each
    pair uses Theorem 4's exact form on the chosen columns; over any other set
    the product form (**) of :mod:`rldp_models.uncertainty.base` with bounds
    ``hi``/``lo`` on the conditionals the chosen pairs need.
    """

    eps: float
    outputs: Sequence[int] | None = None
    pairs: Sequence[tuple[int, int]] | None = None
    name: str = "robust_privacy_on"
    robust: bool = True

    def chosen(self, n_s: int, n_y: int) -> tuple[list[int], list[tuple[int, int]]]:
        """The outputs and pairs, validated against the program's sizes."""
        outputs = list(range(n_y)) if self.outputs is None else [int(y) for y in self.outputs]
        pairs = [(s1, s2) for s1, s2 in itertools.permutations(range(n_s), 2)] \
            if self.pairs is None else [(int(a), int(b)) for a, b in self.pairs]
        if not all(0 <= y < n_y for y in outputs) or not outputs:
            raise ValueError(f"{self.name}: outputs must be indices in 0..{n_y - 1}")
        if not all(0 <= a < n_s and 0 <= b < n_s and a != b for a, b in pairs) or not pairs:
            raise ValueError(f"{self.name}: pairs must be (s1, s2) with s1 != s2 in 0..{n_s - 1}")
        return outputs, pairs

    def build(self, context: BuildContext) -> None:
        outputs, pairs = self.chosen(context.n_s, len(context.outputs))
        if isinstance(context.uncertainty, ChiSquareSet):
            self._build_pairs(context, outputs, pairs)
            return
        factor = float(np.exp(self.eps))
        hi, lo = conditional_expectation_bounds(context, self.name)
        for s1, s2 in pairs:
            context.add(f"{self.name}/pair[{s1},{s2}]",
                        [hi[s1, outputs] <= factor * lo[s2, outputs]])

    def _build_pairs(self, context: BuildContext, outputs: list[int],
                     pairs: list[tuple[int, int]]) -> None:
        phat, rho = context.data.phat, context.data.rho
        lemma2 = symbolic.lemma2_conjugate(self.eps)
        for s1, s2 in pairs:
            empty = (context.data.zero_secrets[s1], context.data.zero_secrets[s2])
            cone = pair_support_at_most(lemma2.scale1 * context.block(s1)[:, outputs],
                                        lemma2.scale2 * context.block(s2)[:, outputs],
                                        lemma2.value, phat[[s1, s2]], rho[s1, s2], empty)
            context.add(f"{self.name}[{s1},{s2}]", cone.constraints, cone.multipliers)

    def check(self, protocol: np.ndarray, program: Any,
              multipliers: dict[str, Any]) -> GuaranteeCheck:
        """The exact check (Theorem 4, or the product form), restricted to the choice."""
        n_s = program.crosstab.shape[0]
        outputs, pairs = self.chosen(n_s, protocol.shape[1])
        if isinstance(program.uncertainty, ChiSquareSet):
            full = check_robust_privacy(protocol, program.crosstab.counts, program.uncertainty,
                                        self.eps, refine=True)
        else:
            full = check_product_privacy(protocol, program.uncertainty, self.eps,
                                         solver_bounds(multipliers, self.name))
        margins = np.full(full.margins.shape, np.nan)
        for (s1, s2), y in itertools.product(pairs, outputs):
            margins[s1, s2, y] = full.margins[s1, s2, y]
        masked = np.where(np.isnan(margins), -np.inf, margins)
        s1, s2, y = np.unravel_index(int(np.argmax(masked)), masked.shape)
        worst = float(mpmath.mpf(masked[s1, s2, y]))
        return GuaranteeCheck(worst <= 0.0, "robust", self.eps, worst, (int(y), int(s1), int(s2)),
                              margins, full.multipliers)
