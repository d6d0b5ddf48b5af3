"""The dual cone ``K*`` of a conic program, block by block: projection, room, proof of membership.

Rows follow Clarabel's and cvxpy's order (``cvxpy...clarabel_conif.dims_to_solver_cones``):
a zero cone (dual: free), a nonnegative orthant (self-dual), second-order cones
``{(h, t): |t| <= h}`` (self-dual), exponential cones
``cl{(x, y, z): y > 0, y e^(x/y) <= z}`` with dual
``cl{(u, v, w): u < 0, -u e^(v/u) <= e w}``, and 3-d power cones
``{(x, y, z): x^a y^(1-a) >= |z|, x, y >= 0}`` with dual
``{(u, v, w): (u/a)^a (v/(1-a))^(1-a) >= |w|, u, v >= 0}``
(Clarabel's documentation, "Supported cone types"; Chandrasekaran and Shah, "Relative
entropy optimization and its applications", Math. Program. 161, 2017, for the
exponential cone). Membership is proved for a whole box of duals
(:class:`~rldp_models.optimality.enclosure.Enclosure`): in floats rounded outward for the
orthant and the second-order cones, in python-flint ``arb`` balls for the other two.
"""

from __future__ import annotations

from dataclasses import dataclass

import flint
import numpy as np

from rldp_models.optimality.enclosure import Enclosure, gamma

ZERO, NONNEG, SOC, EXP, POWER = range(5)
PROJECTION_MARGIN = 1e-12
"""A second-order cone's head is raised to ``(1 + PROJECTION_MARGIN)`` times its tail's
norm: strictly inside, so that rounding-level corrections keep it in ``K*`` (with the
head at the norm itself, 10x20 RURP had 7,878 cones outside after the first round)."""
KINDS = ("zero", "nonneg", "soc", "exp", "power")


@dataclass(frozen=True)
class DualCones:
    """Sizes of the cones in row order: zero, nonnegative, second-order, exponential, power.

    ``soc`` holds each second-order cone's dimension, ``exp`` the number of exponential
    cones, ``power`` each 3-d power cone's exponent ``a``.
    """

    zero: int = 0
    nonneg: int = 0
    soc: tuple[int, ...] = ()
    exp: int = 0
    power: tuple[float, ...] = ()

    @property
    def rows(self) -> int:
        return self.zero + self.nonneg + sum(self.soc) + 3 * self.exp + 3 * len(self.power)


@dataclass(frozen=True)
class ConeBlocks:
    """The row layout of :class:`DualCones`: one block per cone (each zero and nonnegative
    row is a block of its own). ``kind`` and ``block`` per row; ``starts``, ``sizes``,
    ``block_kind`` per block (kinds: :data:`KINDS`); ``alpha`` per power cone."""

    kind: np.ndarray
    block: np.ndarray
    starts: np.ndarray
    sizes: np.ndarray
    block_kind: np.ndarray
    alpha: np.ndarray

    @classmethod
    def of(cls, cones: DualCones) -> "ConeBlocks":
        counts = (cones.zero, cones.nonneg, len(cones.soc), cones.exp, len(cones.power))
        sizes = np.concatenate([np.ones(cones.zero + cones.nonneg, dtype=np.int64),
                                np.asarray(cones.soc, dtype=np.int64),
                                np.full(cones.exp + len(cones.power), 3, dtype=np.int64)])
        block_kind = np.repeat(np.arange(5), counts)
        starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
        block = np.repeat(np.arange(sizes.size), sizes)
        return cls(block_kind[block], block, starts, sizes, block_kind,
                   np.asarray(cones.power, dtype=float))

    def of_kind(self, kind: int) -> np.ndarray:
        """The blocks of one kind."""
        return np.flatnonzero(self.block_kind == kind)


def tail_norms(blocks: ConeBlocks, values: np.ndarray) -> np.ndarray:
    """``|t|`` of every block's tail (all rows but the first), in floats."""
    squares = values**2
    squares[blocks.starts] = 0.0
    return np.sqrt(np.add.reduceat(squares, blocks.starts)) if blocks.starts.size \
        else np.zeros(0)


def project(blocks: ConeBlocks, y: np.ndarray) -> np.ndarray:
    """``y`` moved into ``K*`` in floating point (a start: membership is proved later).

    Orthant: clipped at 0; a second-order cone: its head raised just above the tail's
    norm (:data:`PROJECTION_MARGIN`); an
    exponential cone: ``w`` raised to ``-u e^(v/u - 1)`` (``u < 0``), else ``u`` set to 0
    and ``v, w`` clipped; a power cone: ``u, v`` clipped and scaled up to ``|w|``. Each
    move is along a direction of ``K*``, so a point already inside stays.
    """
    y = np.array(y, dtype=float)
    orthant = blocks.starts[blocks.of_kind(NONNEG)]
    y[orthant] = np.maximum(y[orthant], 0.0)
    heads = blocks.starts[blocks.of_kind(SOC)]
    y[heads] = np.maximum(y[heads], tail_norms(blocks, y)[blocks.of_kind(SOC)] *
                          (1.0 + PROJECTION_MARGIN))
    for start in blocks.starts[blocks.of_kind(EXP)]:
        u, v, w = y[start:start + 3]
        if u < 0:
            y[start + 2] = max(w, -u * np.exp(v / u - 1.0))
        else:
            y[start:start + 3] = 0.0, max(v, 0.0), max(w, 0.0)
    for start, a in zip(blocks.starts[blocks.of_kind(POWER)], blocks.alpha):
        u, v, w = max(y[start], 0.0), max(y[start + 1], 0.0), y[start + 2]
        value = (u / a) ** a * (v / (1 - a)) ** (1 - a)
        if value < abs(w):
            u, v = (a * abs(w), (1 - a) * abs(w)) if value == 0 else \
                (u * abs(w) / value, v * abs(w) / value)
        y[start:start + 3] = u, v, w
    return y


def interior_direction(blocks: ConeBlocks) -> np.ndarray:
    """A point of the interior of ``K*`` on every cone but the zero cone (0 there):
    1 on the orthant, ``(1, 0, ..)`` on a second-order cone, ``(-1, 0, 1)`` on an
    exponential cone (``1 < e``), ``(1, 1, 0)`` on a power cone."""
    direction = np.zeros(blocks.kind.size)
    starts = blocks.starts
    direction[starts[blocks.block_kind == NONNEG]] = 1.0
    direction[starts[blocks.block_kind == SOC]] = 1.0
    exp = starts[blocks.block_kind == EXP]
    direction[exp], direction[exp + 2] = -1.0, 1.0
    power = starts[blocks.block_kind == POWER]
    direction[power], direction[power + 1] = 1.0, 1.0
    return direction


def violations(blocks: ConeBlocks, box: Enclosure) -> np.ndarray:
    """For each block: 0 if every point of ``box`` lies in that cone of ``K*`` (proved),
    else a positive float estimating how far the box reaches out along the block's
    interior direction (:func:`interior_direction`)."""
    out = np.zeros(blocks.starts.size)
    lower, upper = box.lower(), box.upper()
    orthant = blocks.of_kind(NONNEG)
    out[orthant] = np.maximum(-lower[blocks.starts[orthant]], 0.0)
    soc = blocks.of_kind(SOC)
    if soc.size:
        reach = np.maximum(np.abs(lower), np.abs(upper))
        k = int(blocks.sizes[soc].max())
        norms = np.nextafter(tail_norms(blocks, reach)[soc] * (1.0 + 2.0 * gamma(k)), np.inf)
        heads = lower[blocks.starts[soc]]
        out[soc] = np.where(heads >= norms, 0.0, norms - heads)
    for kind, check in ((EXP, _exp_slack), (POWER, _power_slack)):
        for index, b in enumerate(blocks.of_kind(kind)):
            start = blocks.starts[b]
            balls = [flint.arb(float(m), float(r)) for m, r in
                     zip(box.mid[start:start + 3], box.rad[start:start + 3])]
            slack = check(balls, float(blocks.alpha[index]) if kind == POWER else 0.0)
            out[b] = 0.0 if slack is not None and slack >= 0 else \
                max(float(abs(slack).upper()) if slack is not None else 0.0,
                    float(np.abs(box.mid[start:start + 3]).max()) * 1e-12, 1e-300)
    return out


def _exp_slack(ball: list[flint.arb], _: float) -> flint.arb | None:
    """``e w + u e^(v/u)`` on a box with ``u < 0`` proved (``None`` when ``u < 0`` is not)."""
    u, v, w = ball
    if not u < 0:
        return None
    return flint.arb.const_e() * w + u * (v / u).exp()


def _power_slack(ball: list[flint.arb], a: float) -> flint.arb | None:
    """``(u/a)^a (v/(1-a))^(1-a) - |w|`` on a box with ``u, v > 0`` proved."""
    u, v, w = ball
    alpha = flint.arb(a)
    if not (u > 0 and v > 0):
        return None
    return (alpha * (u / alpha).log() + (1 - alpha) * (v / (1 - alpha)).log()).exp() - abs(w)
