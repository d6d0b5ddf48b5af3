"""What a program component sees while a protocol model is being built.

The context holds the decision variable ``P[x, y] = P(Y=y | X=x)`` with
``x = (s, u)`` in row-major order, the data the components read (as cvxpy
constants, or as parameters when the model is to be re-solved for new data),
and the named constraint groups and multipliers the components add.
"""

from __future__ import annotations

import copy
import itertools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Mapping

import numpy as np

from rldp_models.data import Crosstab
from rldp_models.errors import InputError
from rldp_models.uncertainty.base import UncertaintySet

if TYPE_CHECKING:
    import cvxpy as cp


def ordered_secret_pairs(n_s: int) -> list[tuple[int, int]]:
    """All ordered pairs ``(s1, s2)`` with ``s1 != s2``."""
    return [(s1, s2) for s1, s2 in itertools.product(range(n_s), repeat=2) if s1 != s2]


@dataclass
class ProblemData:
    """Numbers a protocol model depends on, derived from the counts and the radius."""

    phat: np.ndarray  # (|S|, |U|)
    conditional: np.ndarray  # (|S|, |U|), rows of zero-mass secrets left at zero
    b_plus_one: float
    rho: np.ndarray  # (|S|, |S|): sqrt(B+1) - 1 + Phat_s1 + Phat_s2

    @classmethod
    def from_phat(cls, phat: np.ndarray, radius: float) -> "ProblemData":
        mass = phat.sum(axis=1)
        conditional = np.divide(phat, mass[:, None], out=np.zeros_like(phat),
                                where=mass[:, None] > 0)
        rho = np.sqrt(radius + 1.0) - 1.0 + mass[:, None] + mass[None, :]
        return cls(phat, conditional, radius + 1.0, rho)

    @property
    def zero_secrets(self) -> tuple[bool, ...]:
        """Which secrets have no records; they change the shape of nominal privacy."""
        return tuple(bool(m == 0) for m in self.phat.sum(axis=1))


@dataclass
class BuildContext:
    """Shared state of one protocol model under construction.

    Components read ``P``, ``distortion`` and the data accessors, and call
    :meth:`add` to register named constraint groups and multipliers, which the
    solver registry uses to key duals and the certificate uses to find the
    multipliers of each robust constraint.
    """

    crosstab: Crosstab
    outputs: tuple[str, ...]
    distortion: np.ndarray  # d[u, y]
    data: ProblemData
    parametric: bool
    P: cp.Variable = field(init=False)
    constraints: dict[str, list[Any]] = field(default_factory=dict)
    multipliers: dict[str, dict[str, cp.Expression]] = field(default_factory=dict)
    variables: dict[str, cp.Variable] = field(default_factory=dict)
    parameters: dict[str, cp.Parameter] = field(default_factory=dict)
    uncertainty: UncertaintySet | None = None  # the program's set (rldp_models.uncertainty.base)
    solver_margins: bool = False  # CONDITIONAL_MARGIN on conditional bounds (a reference)

    def __post_init__(self) -> None:
        import cvxpy as cp  # here, not at the top: rldp solve's default path never needs cvxpy

        n_s, n_u = self.crosstab.shape
        self.P = cp.Variable((n_s * n_u, len(self.outputs)), nonneg=True, name="protocol")
        self.variables["protocol"] = self.P

    @property
    def output_labels(self) -> tuple[str, ...]:
        """The output alphabet (as :class:`~rldp_models.programs.conic_builder.ConicBuilder`
        reads it from a program)."""
        return self.outputs

    @property
    def distortion_matrix(self) -> np.ndarray:
        """``d[u, y]`` (as a program names it)."""
        return self.distortion

    @property
    def n_s(self) -> int:
        return self.crosstab.shape[0]

    @property
    def n_u(self) -> int:
        return self.crosstab.shape[1]

    def block(self, s: int) -> cp.Expression:
        """Rows of ``P`` for secret ``s``: shape (|U|, |Y|)."""
        return self.P[s * self.n_u:(s + 1) * self.n_u, :]

    def value(self, name: str) -> Any:
        """The named datum as a cvxpy parameter (parametric models) or a constant."""
        import cvxpy as cp  # here, not at the top: rldp solve's default path never needs cvxpy

        current = getattr(self.data, name)
        if not self.parametric:
            return current
        if name not in self.parameters:
            shape = np.shape(current)
            self.parameters[name] = cp.Parameter(shape, name=name, value=current,
                                                 nonneg=bool(np.all(np.asarray(current) >= 0)))
        return self.parameters[name]

    def expected_distortion_per_cell(self) -> cp.Expression:
        """``v_x = sum_y P[x, y] d(u_x, y)``, shape (|X|,)."""
        import cvxpy as cp  # here, not at the top: rldp solve's default path never needs cvxpy

        d_rows = np.tile(self.distortion, (self.n_s, 1))
        return cp.sum(cp.multiply(self.P, d_rows), axis=1)

    def over(self, uncertainty: UncertaintySet | None) -> "BuildContext":
        """The context as a block with its own set ``uncertainty`` sees it (None: this one).

        The protocol, groups, multipliers and variables are shared with this context;
        the set and the data derived from its radius (``rho`` of Theorem 4) are the
        block's, as constants (a block's own set is not refilled by a sweep).
        """
        if uncertainty is None or uncertainty is self.uncertainty:
            return self
        view = copy.copy(self)
        view.uncertainty, view.parametric = uncertainty, False
        view.data = ProblemData.from_phat(self.crosstab.phat, float(uncertainty.radius))
        return view

    def robust_set(self) -> UncertaintySet:
        """The program's uncertainty set, which a robust block needs."""
        if self.uncertainty is None:
            raise InputError("robust blocks need an uncertainty set")
        return self.uncertainty

    def add(self, name: str, constraints: list[Any],
            multipliers: Mapping[str, cp.Expression] | None = None) -> None:
        """Register a named constraint group (and its multipliers)."""
        if name in self.constraints:
            raise ValueError(f"constraint group {name!r} is already defined")
        self.constraints[name] = list(constraints)
        if multipliers:
            self.multipliers[name] = dict(multipliers)
