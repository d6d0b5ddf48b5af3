"""Checking a branch-and-bound proof of a pricing bound, without searching.

Column generation over a cone ``C = {v >= 0 : A v >= 0}`` is certified by a
bound on the largest reduced cost per unit mass ``(mu(v) - lam.v) / (1.v)``
over all rays (:mod:`rldp_models.conelp.column_generation`). For mutual
information on the slice ``P = {v in C : p.v = 1}`` (``p > 0``) that reduced
cost times ``1.v`` is ``h(v) = sum_x (p_x v_x log v_x - lam_x v_x)``, and
:meth:`~rldp_models.conelp.concave_pricing.ConcavePricing.proof` records the
spatial branch and bound (Horst and Tuy, *Global Optimization*, Ch. VI-VII)
that bounds ``max_P h``. This module re-checks such a record in exact
rationals (every double held exactly) and :mod:`mpmath.iv` for ``t log t``:

(a) *root*: for each ``x``, row multipliers ``y`` (cone part clipped to
    ``>= 0``, the last entry the slice row's) give by weak duality over the
    box ``K = {0 <= v <= c}`` ``sum_j min(r_j l_j, r_j u_j) + y_p <= min (+-v_x)``
    over ``P`` in ``K``, with ``r = c - A^T y_A - y_p p``; the root box must hold
    these bounds. ``c_x = 1/p_x`` bounds ``P`` where ``p_x > 0``; where
    ``p_x = 0`` the proof's trial cap ``c_x`` must exceed the proven maximum
    strictly and a witness ``w`` in ``P`` and ``K`` is checked exactly: then
    ``P`` lies in ``K`` (a point of ``P`` beyond a cap would give, on its segment
    to ``w``, one of ``P`` in ``K`` at the cap), so ``P`` is bounded, nonempty and
    every nonzero ray of ``C`` has ``p.v > 0`` and a multiple in ``P``;
(b) *splits*: a box cut at ``v_x = t`` is covered by its two halves, and each
    recorded child must contain its half shrunk by ``p.v = 1``
    (``p_x v_x <= 1 - sum_{y != x} p_y l_y`` and the same from below), recomputed
    exactly; the splits form a tree from the root whose unsplit boxes are
    exactly the leaves and the dropped boxes;
(c) *leaves*: on a box, ``p_x t log t <= s_x t + max(f(l_x) - s_x l_x, f(u_x) - s_x u_x)``
    for any slope ``s_x`` (convexity), so ``h <= sum_x c_x - min (lam - s).v``,
    the minimum bounded by weak duality with the leaf's multipliers;
(d) *dropped boxes*: multipliers with weak-duality bound ``> 0`` at cost 0
    prove ``P`` misses the box (a Farkas certificate).

Then ``H = max`` of the leaf bounds bounds ``h`` on ``P``, and every ray's
reduced cost per unit mass is ``<= H max(p)`` if ``H > 0`` (``1.v >= 1/max p``
on ``P``) and ``<= H / sum(u_root)`` otherwise.

Proof format (a mapping of numpy arrays, saved with :func:`numpy.savez_compressed`):
``lower``, ``upper`` (boxes x d; box 0 the root); ``cap`` and ``witness``
(d, for step (a)); ``split`` (k x 4: parent,
coordinate, left child, right child) and ``cut`` (k); ``drop`` and ``leaf``
(box ids); multipliers for the root bounds (``min v_0, max v_0, min v_1, ...``),
the dropped boxes and the leaves as sparse rows ``<name>_ptr``, ``_col``,
``_val``, ``_width`` with ``name`` in ``root``, ``ray``, ``leafy``
(``width = m + 1``: one per cone row, then the slice row); ``dual`` and
``claimed`` (the search's bound on ``h``) for reference.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

import mpmath
import numpy as np

from rldp_models.errors import InputError
from rldp_models.exact import interval, iv
from rldp_models.exact import high_precision, upper_mpf

Rational = list[Fraction]


@dataclass(frozen=True)
class PricingProofCheck:
    """Outcome of :func:`check_pricing_proof`.

    Attributes
    ----------
    problems : tuple of str
        Every failed step (empty when the proof checks).
    h_bound : mpmath.mpf
        Proven upper bound on ``max_P h`` (``inf`` when the proof fails).
    per_mass : mpmath.mpf
        Proven bound on the largest reduced cost per unit mass over ``C``.
    leaves, boxes : int
        Sizes of the proof.
    """

    problems: tuple[str, ...]
    h_bound: mpmath.mpf
    per_mass: mpmath.mpf
    leaves: int
    boxes: int

    @property
    def holds(self) -> bool:
        return not self.problems


def check_pricing_proof(proof: Mapping[str, np.ndarray], rows: Sequence[Sequence[Fraction]],
                        prior: Sequence[Fraction], dual: Sequence[float],
                        claimed: float | None = None) -> PricingProofCheck:
    """Steps (a)-(d) of the module docstring for the cone ``A v >= 0`` (``rows``), ``p``, ``lam``.

    ``claimed``, if given, is the bound on the reduced cost per unit mass to
    prove: the check fails when the proven bound exceeds it.

    Raises
    ------
    InputError
        If ``prior`` is negative or zero, or the proof's arrays are malformed.
    """
    A = [[Fraction(x) for x in row] for row in rows]
    p = [Fraction(x) for x in prior]
    lam = [Fraction(float(x)) for x in dual]
    if min(p) < 0 or max(p) <= 0 or len(lam) != len(p) or any(len(r) != len(p) for r in A):
        raise InputError("a pricing proof needs a nonnegative nonzero prior, and rows and dual "
                         "of its length")
    tree = _Tree(proof, len(p), len(A) + 1)
    problems = tree.structure()
    if not problems:
        cone = _Cone(A, p)
        problems = tree.root(cone) + tree.splits(p) + tree.drops(cone)
    if problems:
        return PricingProofCheck(tuple(problems), mpmath.inf, mpmath.inf, len(tree.leaf),
                                 len(tree.lower))
    bounds = [tree.leaf_bound(i, cone, lam) for i in range(len(tree.leaf))]
    if not bounds:
        return PricingProofCheck((), -mpmath.inf, -mpmath.inf, 0, len(tree.lower))
    h = max(bounds)
    per_mass = _per_mass(h, p, tree.upper[0])
    if claimed is not None and not per_mass <= Fraction(float(claimed)):
        problems.append(f"the proven bound per unit mass {float(per_mass):.8g} exceeds "
                        f"the claimed {float(claimed):.8g}")
    return PricingProofCheck(tuple(problems), _upper(h), _upper(per_mass), len(bounds),
                             len(tree.lower))


def _per_mass(h: Fraction, p: Rational, root_upper: Rational) -> Fraction:
    """``H max(p)`` if ``H > 0`` (``1.v >= 1/max p``) else ``H / sum(u)`` (``1.v <= sum u``)."""
    return h * max(p) if h > 0 else h / sum(root_upper, Fraction(0))


def _upper(x: Fraction) -> mpmath.mpf:
    """``x`` rounded up to an :class:`mpmath.mpf`."""
    with high_precision():
        return upper_mpf(interval(x))


def _fractions(values: np.ndarray) -> Rational:
    return [Fraction(float(x)) for x in values]


class _Tree:
    """The proof's arrays as exact rationals, with one method per checked step."""

    def __init__(self, proof: Mapping[str, np.ndarray], d: int, width: int) -> None:
        try:
            lower, upper = np.asarray(proof["lower"], float), np.asarray(proof["upper"], float)
            self.split = np.asarray(proof["split"], np.int64).reshape(-1, 4)
            self.cut = _fractions(np.asarray(proof["cut"], float).ravel())
            self.drop = [int(i) for i in np.asarray(proof["drop"]).ravel()]
            self.leaf = [int(i) for i in np.asarray(proof["leaf"]).ravel()]
            self.root_y = _sparse(proof, "root", width)
            self.cap = _fractions(np.asarray(proof["cap"], float).ravel())
            self.witness = _fractions(np.asarray(proof["witness"], float).ravel())
            self.ray_y = _sparse(proof, "ray", width)
            self.leaf_y = _sparse(proof, "leafy", width)
        except KeyError as exc:
            raise InputError(f"the pricing proof lacks the array {exc}") from None
        if lower.ndim != 2 or lower.shape != upper.shape or lower.shape[1] != d \
                or not np.all(np.isfinite(lower)) or not np.all(np.isfinite(upper)):
            raise InputError(f"the pricing proof's boxes must be finite, of width {d}")
        if len(self.cut) != len(self.split) or len(self.root_y) != 2 * d \
                or len(self.ray_y) != len(self.drop) or len(self.leaf_y) != len(self.leaf) \
                or len(self.cap) != d or len(self.witness) != d:
            raise InputError("the pricing proof's arrays disagree in length")
        self.lower = [_fractions(row) for row in lower]
        self.upper = [_fractions(row) for row in upper]
        self.logs: dict[tuple[Fraction, Fraction], Fraction] = {}

    def structure(self) -> list[str]:
        """The splits form a tree from box 0; its unsplit boxes are the leaves and drops."""
        n = len(self.lower)
        ids = [int(i) for i in self.split[:, [0, 2, 3]].ravel()] + self.drop + self.leaf
        if any(not 0 <= i < n for i in ids) or any(
                not 0 <= x < len(self.lower[0]) for x in self.split[:, 1]):
            return ["a box id or split coordinate is out of range"]
        children = [int(c) for c in self.split[:, [2, 3]].ravel()]
        parents = [int(c) for c in self.split[:, 0]]
        problems = []
        if sorted(children) != list(range(1, n)):
            problems.append("every box but the root must be the child of exactly one split")
        if len(set(parents)) != len(parents):
            problems.append("a box is split twice")
        if any(c <= a for a, left, right in self.split[:, [0, 2, 3]] for c in (left, right)):
            problems.append("a child's id does not follow its parent's (the splits may cycle)")
        terminal = sorted(set(range(n)) - set(parents))
        if sorted(self.leaf + self.drop) != terminal:
            problems.append("the leaves and dropped boxes are not exactly the unsplit boxes")
        return problems

    def root(self, cone: _Cone) -> list[str]:
        """(a): the root box holds ``P``, by weak duality over ``K = {0 <= v <= c}``."""
        A, p = cone.rows, cone.prior
        d = len(p)
        low, high = [Fraction(0)] * d, [1 / px if px else c for px, c in zip(p, self.cap)]
        problems = [] if all(p) else self._witness(A, p, high)
        for x in range(d):
            for k, sign in enumerate((1, -1)):
                cost = [Fraction(sign if j == x else 0) for j in range(d)]
                proven = sign * cone.weak_duality(cost, self.root_y[2 * x + k], low, high)
                if sign > 0 and self.lower[0][x] > max(proven, Fraction(0)):
                    problems.append(f"root lower bound on v_{x} is not proven")
                if sign < 0 and self.upper[0][x] < min(proven, high[x]):
                    problems.append(f"root upper bound on v_{x} is not proven")
                if sign < 0 and p[x] == 0 and not proven < high[x]:
                    problems.append(f"v_{x} (zero prior) is not proven inside its cap")
        return problems

    def _witness(self, A: list[Rational], p: Rational, high: Rational) -> list[str]:
        """The witness scaled to ``p.w = 1`` lies in ``C`` and ``K``, exactly."""
        mass = sum((px * w for px, w in zip(p, self.witness)), Fraction(0))
        if mass <= 0 or min(self.witness) < 0:
            return ["the witness is not a point of the cone with p.w > 0"]
        w = [x / mass for x in self.witness]
        if any(sum((a * x for a, x in zip(row, w)), Fraction(0)) < 0 for row in A) \
                or any(x > h for x, h in zip(w, high)):
            return ["the witness is not in the cone's slice inside the caps"]
        return []

    def splits(self, p: Rational) -> list[str]:
        """(b): each child contains its half of the parent shrunk by ``p.v = 1``."""
        problems = []
        for (parent, x, left, right), cut in zip(self.split.tolist(), self.cut):
            halves = ((left, self.lower[parent], _replace(self.upper[parent], x, cut)),
                      (right, _replace(self.lower[parent], x, cut), self.upper[parent]))
            for child, low, high in halves:
                shrunk = _tightened(low, high, p)
                if shrunk is not None and not _contains(
                        (self.lower[child], self.upper[child]), shrunk):
                    problems.append(f"box {child} does not cover its half of box {parent}")
        return problems

    def drops(self, cone: _Cone) -> list[str]:
        """(d): every dropped box misses ``P`` (weak duality at cost 0 proves ``0 > 0``)."""
        zero = [Fraction(0)] * len(cone.prior)
        return [f"dropped box {box} is not proven empty" for box, y in zip(self.drop, self.ray_y)
                if not cone.weak_duality(zero, y, self.lower[box], self.upper[box]) > 0]

    def leaf_bound(self, i: int, cone: _Cone, lam: Rational) -> Fraction:
        """(c): ``sum_x c_x - min (lam - s).v`` over the leaf (clipped to ``v >= 0``), exactly."""
        low = [max(a, Fraction(0)) for a in self.lower[self.leaf[i]]]
        high = [max(b, a) for a, b in zip(low, self.upper[self.leaf[i]])]
        p = cone.prior
        slopes = [_slope(px, a, b) for px, a, b in zip(p, low, high)]
        total = sum((max(self._xlogx(px, t) - s * t for t in (a, b))
                     for px, s, a, b in zip(p, slopes, low, high)), Fraction(0))
        cost = [m - s for m, s in zip(lam, slopes)]
        return total - cone.weak_duality(cost, self.leaf_y[i], low, high)

    def _xlogx(self, p: Fraction, t: Fraction) -> Fraction:
        """An upper bound on ``p t log t`` (``t >= 0``), remembered: boxes share their ends."""
        if (p, t) not in self.logs:
            self.logs[p, t] = _upper_xlogx(p, t)
        return self.logs[p, t]


def _sparse(proof: Mapping[str, np.ndarray], name: str, width: int) -> list[dict[int, Fraction]]:
    """Rows of a sparse multiplier matrix as ``{column: value}``, exactly."""
    if int(proof[f"{name}_width"]) != width:
        raise InputError(f"the pricing proof's {name} multipliers have width "
                         f"{int(proof[f'{name}_width'])}, the cone {width}")
    pointer = np.asarray(proof[f"{name}_ptr"], np.int64)
    column = np.asarray(proof[f"{name}_col"], np.int64)
    value = np.asarray(proof[f"{name}_val"], float)
    if pointer.size == 0 or pointer[0] != 0 or np.any(np.diff(pointer) < 0) \
            or pointer[-1] != column.size or column.size != value.size \
            or np.any((column < 0) | (column >= width)) or not np.all(np.isfinite(value)):
        raise InputError(f"the pricing proof's {name} multipliers are malformed")
    return [{int(c): Fraction(float(v)) for c, v in zip(column[a:b], value[a:b])}
            for a, b in zip(pointer[:-1], pointer[1:])]


class _Cone:
    """The rows ``A`` and the prior ``p``, also as integers over one denominator per row."""

    def __init__(self, A: list[Rational], p: Rational) -> None:
        self.rows, self.prior = A, p
        self.scaled = [_over_common_denominator(row) for row in A + [p]]

    def weak_duality(self, cost: Rational, y: dict[int, Fraction], low: Rational,
                     high: Rational) -> Fraction:
        """``sum_j min(r_j l_j, r_j u_j) + y_p <= min cost.v`` over ``P`` in the box, exactly.

        ``r = cost - A^T max(y_A, 0) - y_p p``; any multipliers give a valid
        bound. ``r`` is summed in integers over the least common denominator.
        """
        slice_index = len(self.rows)
        terms = [(yi, self.scaled[i]) for i, yi in y.items() if i == slice_index or yi > 0]
        denominator = math.lcm(*(c.denominator for c in cost),
                               *(yi.denominator * scaled[1] for yi, scaled in terms))
        reduced = [c.numerator * (denominator // c.denominator) for c in cost]
        for yi, (numerators, row_denominator) in terms:
            factor = yi.numerator * (denominator // (yi.denominator * row_denominator))
            reduced = [r - factor * a for r, a in zip(reduced, numerators)]
        ends = [a if (r >= 0) == (a <= b) else b for r, a, b in zip(reduced, low, high)]
        scale = math.lcm(*(t.denominator for t in ends))
        total = sum(r * t.numerator * (scale // t.denominator) for r, t in zip(reduced, ends))
        return Fraction(total, denominator * scale) + y.get(slice_index, Fraction(0))


def _over_common_denominator(values: Rational) -> tuple[list[int], int]:
    """Integers ``n`` and ``D`` with ``values = n / D``."""
    denominator = math.lcm(*(v.denominator for v in values))
    return [v.numerator * (denominator // v.denominator) for v in values], denominator


def _tightened(low: Rational, high: Rational, p: Rational) -> tuple[Rational, Rational] | None:
    """The box shrunk by ``p.v = 1`` (one exact pass); None if that leaves it empty."""
    low_mass = sum((px * a for px, a in zip(p, low)), Fraction(0))
    high_mass = sum((px * b for px, b in zip(p, high)), Fraction(0))
    new_low = [max(a, (1 - high_mass + px * b) / px) if px else a
               for px, a, b in zip(p, low, high)]
    new_high = [min(b, (1 - low_mass + px * a) / px) if px else b
                for px, a, b in zip(p, low, high)]
    if any(a > b for a, b in zip(new_low, new_high)):
        return None
    return new_low, new_high


def _contains(outer: tuple[Rational, Rational], inner: tuple[Rational, Rational]) -> bool:
    return all(a <= b for a, b in zip(outer[0], inner[0])) and \
        all(a >= b for a, b in zip(outer[1], inner[1]))


def _replace(values: Rational, x: int, value: Fraction) -> Rational:
    out = list(values)
    out[x] = value
    return out


def _slope(p: Fraction, a: Fraction, b: Fraction) -> Fraction:
    """A secant slope of ``p t log t`` on ``[a, b]`` in doubles (any slope is valid)."""
    if b <= a:
        return Fraction(0)
    fa, fb = (float(p) * float(t) * np.log(float(t)) if t > 0 else 0.0 for t in (a, b))
    slope = (fb - fa) / float(b - a) if float(b - a) > 0 else 0.0
    return Fraction(slope) if np.isfinite(slope) else Fraction(0)


def _upper_xlogx(p: Fraction, t: Fraction) -> Fraction:
    """The upper end of ``p t log t`` in :mod:`mpmath.iv` (``0`` at ``t = 0``), exactly."""
    if t == 0 or p == 0:
        return Fraction(0)
    with high_precision():
        sign, man, exp, _ = upper_mpf(interval(p * t) * iv.log(interval(t)))._mpf_
    return (-1) ** sign * Fraction(man) * Fraction(2) ** exp
