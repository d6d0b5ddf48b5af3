"""Symbolic derivations (sympy) behind the robust counterparts.

The builders and support functions do not type these formulas in: they take
them from the functions below, which derive them from the statements in the
robust-optimization paper and cache numeric versions. The three values the
default solve path needs (Theorem 4's constant, Lemma 2 at ``eps``, Theorem 2's
elimination) are also written out in :mod:`rldp_models.symbolic_values`, so that
path does not import sympy; its tests check they are what these derivations give.

* :func:`affine_conjugate` -- the partial concave conjugate of a function
  affine in the uncertain parameter (Lemmas 1 and 2, eqs. 20 and 27).
* :func:`theorem2_c_elimination` -- the minimisation over ``c >= 0`` in
  Theorem 2 (eq. 21).
* :func:`theorem4_c_elimination` -- the minimisation over ``c >= 0`` in
  Theorem 4 (eq. 29), and the constant ``K = 2^(-2/3) + 2^(1/3)``.
* :func:`lemma2_conjugate` -- Lemma 2 (eq. 27) at a given ``eps``.
* :func:`lemma9_bounds` -- the roots of eq. (41) of the RLDP paper, which are
  the coordinate bounds of Lemma 9 (eqs. 36-37).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np
import sympy as sp

from rldp_models.symbolic_values import BlockConjugate

__all__ = ["AffineConjugate", "BlockConjugate", "CElimination", "PowerConjugate",
           "affine_conjugate", "lemma2_conjugate", "lemma9_bounds", "power_divergence_conjugate",
           "power_gamma_elimination", "theorem2_c_elimination",
           "theorem4_c_elimination", "theorem4_constant"]


@dataclass(frozen=True)
class AffineConjugate:
    """The conjugate ``f_*(v) = inf_a v.a - f(a)`` of ``f(a) = g.a + f0``.

    It equals ``value`` where ``v == gradient`` and ``-inf`` elsewhere.
    """

    gradient: tuple[sp.Expr, ...]
    value: sp.Expr


def affine_conjugate(expression: sp.Expr, parameters: Sequence[sp.Symbol]) -> AffineConjugate:
    """Derive the partial concave conjugate of a function affine in ``parameters``.

    Parameters
    ----------
    expression : sympy expression
        ``f(a, x)``, affine in the uncertain parameters ``a``.
    parameters : sequence of sympy symbols
        The uncertain parameters ``a``.

    Returns
    -------
    AffineConjugate
        ``inf_a v.a - f(a)`` is finite only at ``v = grad_a f`` and equals
        ``-f(0)`` there (Lemma 1 gives ``D``; Lemma 2 gives ``0``).

    Raises
    ------
    ValueError
        If ``expression`` is not affine in ``parameters``.
    """
    gradient = tuple(sp.diff(expression, a) for a in parameters)
    for g in gradient:
        if any(sp.diff(g, a) != 0 for a in parameters):
            raise ValueError("expression is not affine in the parameters")
    at_zero = expression.subs({a: 0 for a in parameters})
    return AffineConjugate(gradient=gradient, value=sp.simplify(-at_zero))


@functools.lru_cache(maxsize=64)
def lemma2_conjugate(eps: float) -> BlockConjugate:
    """Derive Lemma 2 on a one-cell template and evaluate it at ``eps``.

    With one symbol per block, ``L~ = q1 R1 - e^eps q2 R2``; its gradient in
    ``(R1, R2)`` is ``(q1, -e^eps q2)`` and its conjugate value is 0.
    """
    q1, q2, r1, r2, e = sp.symbols("q1 q2 R1 R2 eps", real=True)
    conjugate = affine_conjugate(q1 * r1 - sp.exp(e) * q2 * r2, (r1, r2))
    scale1 = sp.simplify(conjugate.gradient[0] / q1)
    scale2 = sp.simplify(conjugate.gradient[1] / q2)
    return BlockConjugate(float(scale1.subs(e, eps)), float(scale2.subs(e, eps)),
                          float(conjugate.value))


@dataclass(frozen=True)
class CElimination:
    """Result of minimising a support-function expression over ``c >= 0``.

    Attributes
    ----------
    c_opt : sympy expression
        The minimiser.
    value : sympy expression
        The minimum.
    symbols : tuple of sympy symbols
        The free symbols, in the argument order of the numeric functions.
    """

    c_opt: sp.Expr
    value: sp.Expr
    symbols: tuple[sp.Symbol, ...]

    @functools.cached_property
    def value_function(self) -> Callable[..., float]:
        return sp.lambdify(self.symbols, self.value, "numpy")

    @functools.cached_property
    def c_function(self) -> Callable[..., float]:
        return sp.lambdify(self.symbols, self.c_opt, "numpy")


def _minimise_over_c(expression: sp.Expr, c: sp.Symbol,
                     symbols: tuple[sp.Symbol, ...]) -> CElimination:
    stationary = [root for root in sp.solve(sp.diff(expression, c), c) if root.is_positive]
    if len(stationary) != 1:
        raise ArithmeticError(f"expected one positive stationary point, got {stationary}")
    c_opt = sp.simplify(stationary[0])
    if not sp.simplify(sp.diff(expression, c, 2).subs(c, c_opt)).is_positive:
        raise ArithmeticError("the stationary point is not a minimum")
    return CElimination(c_opt, sp.simplify(expression.subs(c, c_opt)), symbols)


@functools.lru_cache(maxsize=1)
def theorem2_c_elimination() -> CElimination:
    """Minimise ``-2 sqrt(c) S + c (B + 1)`` over ``c > 0`` (Theorem 2, eq. 21).

    ``S = sum_x Phat_x sqrt(w_x - v_x) > 0``. Gives ``c* = S^2/(B+1)^2`` and
    the value ``-S^2/(B+1)``; the numeric functions take ``(S, B)``.
    """
    c, s, b = sp.symbols("c S B", positive=True)
    expression = -2 * sp.sqrt(c) * s + c * (b + 1)
    return _minimise_over_c(expression, c, (s, b))


@functools.lru_cache(maxsize=1)
def theorem4_constant() -> sp.Expr:
    """``K = 2^(-2/3) + 2^(1/3)`` of Theorem 4 (eq. 29); ``K^3 = 27/4``."""
    return sp.Integer(2) ** sp.Rational(-2, 3) + sp.Integer(2) ** sp.Rational(1, 3)


@functools.lru_cache(maxsize=1)
def theorem4_c_elimination() -> CElimination:
    """Minimise ``-K c^(2/3) T + c R`` over ``c > 0`` (Theorem 4, eq. 29).

    ``T = sum_i (sum_u Phat_{s_i,u} sqrt(w_i(u) - v_i(u)))^(2/3) > 0`` and
    ``R = sqrt(B+1) - 1 + Phat_{s1} + Phat_{s2}``. Gives the value
    ``-T^3/R^2`` (because ``K^3 = 27/4``); the numeric functions take ``(T, R)``.
    """
    c, t, r = sp.symbols("c T R", positive=True)
    expression = -theorem4_constant() * c ** sp.Rational(2, 3) * t + c * r
    elimination = _minimise_over_c(expression, c, (t, r))
    value = sp.nsimplify(sp.simplify(elimination.value))
    return CElimination(elimination.c_opt, value, (t, r))


@functools.lru_cache(maxsize=1)
def lemma9_bounds() -> tuple[Callable[..., np.ndarray], Callable[..., np.ndarray]]:
    """Lower and upper coordinate bounds of the chi-square set (Lemma 9).

    Solves eq. (41), ``Phat_x^2/P_x + (1 - Phat_x)^2/(1 - P_x) = B + 1``, for
    ``P_x``; the two roots are eqs. (36) and (37). Returns numeric functions of
    ``(phat_x, B)``, lower root first.
    """
    p, q, b = sp.symbols("P phat B", positive=True)
    equation = sp.Eq(q**2 / p + (1 - q) ** 2 / (1 - p), b + 1)
    roots = sp.solve(equation, p)
    if len(roots) != 2:
        raise ArithmeticError(f"expected two roots of eq. (41), got {roots}")
    probe = {q: sp.Rational(1, 3), b: sp.Rational(1, 2)}
    lower, upper = sorted(roots, key=lambda root: float(root.subs(probe)))
    return (sp.lambdify((q, b), lower, "numpy"), sp.lambdify((q, b), upper, "numpy"))


@dataclass(frozen=True)
class PowerConjugate:
    """The convex conjugate of the Cressie-Read generator (DESIGN.md, power-divergence sets).

    ``phi(t) = (t^(-lambda) - 1) / (lambda (lambda + 1))`` for ``t >= 0`` has
    ``phi'(t) = -t^(-lambda-1) / (lambda + 1)``. Writing the slope as
    ``s = -u / (lambda + 1)`` with ``u > 0``, the maximiser of ``s t - phi(t)``
    is ``t = u^(-1/(lambda+1))`` and

    ``phi*(s) = 1/(lambda (lambda+1)) - u^(lambda/(lambda+1)) / lambda``.

    ``conjugate`` is that expression in ``(u, lambda)``; ``affine_conjugate``
    the same in ``(W, lambda)`` with ``W = u^(lambda/(lambda+1))`` (affine in
    ``W``, so interval arithmetic can bound ``W`` itself); ``log_conjugate`` is
    the limit ``lambda -> 0`` (``phi = -log t``, ``phi*(s) = -1 - log u``).
    Where ``u <= 0`` the conjugate is ``+inf`` for ``lambda > -1`` and
    ``1/(lambda (lambda+1))`` (the value ``-phi(0)``) for ``lambda < -1``.
    ``lambda = -1`` has no per-cell generator of this form; its set uses
    ``phi(t) = t log t`` with ``phi*(s) = exp(s - 1)`` (``entropy_conjugate``).
    """

    phi: sp.Expr
    conjugate: sp.Expr
    affine_conjugate: sp.Expr
    power: sp.Symbol
    log_conjugate: sp.Expr
    entropy_conjugate: sp.Expr
    u: sp.Symbol
    lam: sp.Symbol
    s: sp.Symbol


def _conjugate_at(phi: sp.Expr, t: sp.Symbol, slope: sp.Expr) -> sp.Expr:
    """``slope t* - phi(t*)`` at the one stationary point ``phi'(t*) = slope``."""
    roots = sp.solve(sp.Eq(sp.diff(phi, t), slope), t)
    if len(roots) != 1:
        raise ArithmeticError(f"expected one stationary point of phi, got {roots}")
    return sp.simplify(sp.powsimp(slope * roots[0] - phi.subs(t, roots[0]), force=True))


@functools.lru_cache(maxsize=1)
def power_divergence_conjugate() -> PowerConjugate:
    """Derive ``phi*`` of the Cressie-Read generator for symbolic ``lambda`` (and its limits)."""
    t, u = sp.symbols("t u", positive=True)
    s = sp.Symbol("s", real=True)
    lam = sp.Symbol("lambda", real=True, nonzero=True)
    phi = (t ** (-lam) - 1) / (lam * (lam + 1))
    conjugate = _conjugate_at(phi, t, -u / (lam + 1))
    power = sp.Symbol("W", positive=True)
    in_power = conjugate.subs(u, power ** ((lam + 1) / lam))
    affine = sp.simplify(sp.powsimp(sp.expand_power_base(in_power, force=True), force=True))
    if sp.diff(affine, power, 2) != 0:
        raise ArithmeticError(f"phi* is not affine in u^(lambda/(lambda+1)): {affine}")
    log_conjugate = sp.simplify(sp.limit(conjugate, lam, 0))
    entropy_conjugate = _conjugate_at(t * sp.log(t), t, s)
    return PowerConjugate(phi, conjugate, affine, power, log_conjugate, entropy_conjugate, u,
                          lam, s)


@functools.lru_cache(maxsize=1)
def power_gamma_elimination() -> CElimination:
    """Minimise ``A g + B g^p`` over ``g > 0`` (the scale multiplier of a power-divergence dual).

    With ``p = 1/(lambda+1)``, ``A = r + 1/(lambda (lambda+1))`` and
    ``B = -S/lambda`` this is the dual of the power-divergence support function
    at fixed ``mu`` (:mod:`rldp_models.uncertainty.power_divergence`). The
    numeric functions take ``(A, B, p)``; the caller checks that the
    stationary point is a minimum (``p (p - 1) B > 0``) and positive.
    """
    g = sp.Symbol("g", positive=True)
    a, b, p = sp.symbols("A B p", real=True)
    roots = sp.solve(sp.Eq(sp.diff(a * g + b * g**p, g), 0), g)
    if len(roots) != 1:
        raise ArithmeticError(f"expected one stationary point, got {roots}")
    g_opt = sp.simplify(roots[0])
    return CElimination(g_opt, sp.simplify(a * g_opt + b * g_opt**p), (a, b, p))
