"""A weighted sum of nominal and worst-case expected distortions, each over its own set.

``w_0 E_Phat d(U, Y) + sum_k w_k max_{P in F_k} E_P d(U, Y)``: the objectives of
NUNP/NURP (eqs. 7-8, the nominal term) and RUNP/RURP (eqs. 9-10, a worst-case
term) mixed, e.g. ``0.5`` nominal plus ``0.5`` worst case over the chi-square
set. Each worst-case term is written as ``t_k`` with ``delta*(v | F_k) <= t_k``
(Lemma 1; ``v`` the per-cell expected distortion, eq. 22) from its set's own
robust counterpart (``support_at_most``), over the block's set for that term
(``None``: the program's).

The record declares the weights and each term's set, so ``rldp verify``
rebuilds the objective and re-evaluates the stated value: the nominal term
exactly (rationals: ``Phat = counts / n``, the dyadic protocol, the distortion's
doubles), each worst-case term as a certified upper bound (its set's
``certified_support_bound`` at the stored multipliers, interval arithmetic),
which must not exceed the stated value; the value itself must equal the
objective re-evaluated from the matrix (:meth:`WeightedDistortion.evaluate`, the
sets' closed forms), so a stated value moved either way fails.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import mpmath
import numpy as np

from rldp_models.distortion import expected_distortion
from rldp_models.errors import InputError
from rldp_models.exact import interval, iv, upper
from rldp_models.privacy.stored_bounds import (
    OBJECTIVE_TOLERANCE,
    AttainedWorstCase,
    ConstraintBound,
    StoredCheck,
)
from rldp_models.programs.components import certifiable_set
from rldp_models.programs.contract import Multipliers, Objective, Problem, robust_set
from rldp_models.uncertainty.base import Capability, UncertaintySet, stated_support

if TYPE_CHECKING:
    import cvxpy as cp

    from rldp_models.programs.context import BuildContext
    from rldp_models.programs.protocol_program import ProtocolProgram

Term = tuple[float, "UncertaintySet | None"]
"""``(w_k, F_k)``: a worst-case term's weight and set (None: the program's)."""


@dataclass(frozen=True)
class WeightedDistortion(Objective):
    """``nominal * E_Phat d + sum_k w_k max_{F_k} E_P d`` (module docstring).

    Parameters
    ----------
    nominal : float
        The nominal term's weight ``w_0 >= 0``.
    worst_case : sequence of (weight, set or None)
        Each worst-case term's weight ``w_k >= 0`` and set (None: the program's).
    name : str
        The worst-case terms' groups are ``<name>[k]``.
    """

    nominal: float = 0.0
    worst_case: tuple[Term, ...] = ()
    name: str = "weighted_utility"
    robust: bool = True

    def __post_init__(self) -> None:
        """Terms as tuples; the block is robust when it has a worst-case term.

        Raises
        ------
        InputError
            If a weight is negative or not finite, or there is no term.
        """
        terms = tuple((float(w), over) for w, over in self.worst_case)
        object.__setattr__(self, "worst_case", terms)
        object.__setattr__(self, "nominal", float(self.nominal))
        object.__setattr__(self, "robust", bool(terms))
        weights = [self.nominal, *(w for w, _ in terms)]
        if not all(np.isfinite(w) and w >= 0 for w in weights) or not any(weights):
            raise InputError(f"{self.name}: weights must be finite, >= 0 and not all 0")

    def parameters(self) -> dict[str, Any]:
        """The weights, and each worst-case term's set under ``over`` (declared by the record);
        ``robust`` (derived: whether there is a worst-case term) names the value's measure."""
        return {"nominal": self.nominal, "name": self.name, "robust": self.robust,
                "worst_case": [{"weight": w, "over": over} for w, over in self.worst_case]}

    @classmethod
    def from_parameters(cls, parameters: dict[str, Any]) -> "WeightedDistortion":
        terms = tuple((term["weight"], term.get("over")) for term in parameters["worst_case"])
        return cls(parameters["nominal"], terms, parameters.get("name", "weighted_utility"))

    def own_sets(self) -> tuple[UncertaintySet, ...]:
        return tuple(over for _, over in self.worst_case if over is not None)

    def needs_program_set(self) -> bool:
        return any(over is None for _, over in self.worst_case)

    def _sets(self, uncertainty: UncertaintySet | None) -> list[UncertaintySet]:
        return [robust_set(over, uncertainty) for _, over in self.worst_case]

    def capabilities(self, uncertainty: UncertaintySet | None) -> frozenset[Capability]:
        """Linear when every term's set is (the cvxpy form; no direct rows)."""
        linear = all(Capability.LINEAR in s.capabilities for s in self._sets(uncertainty))
        return frozenset({Capability.LINEAR}) if linear else frozenset()

    def build(self, context: BuildContext) -> cp.Expression:
        import cvxpy as cp  # here, not at the top: rldp solve's default path never needs cvxpy

        v = context.expected_distortion_per_cell()
        cost = self.nominal * (np.ravel(context.crosstab.phat) @ v)
        for k, (weight, over) in enumerate(self.worst_case):
            view = context.over(over)
            worst = cp.Variable(name=f"{self.name}_{k}_worst_case")
            cone = view.robust_set().support_at_most(v, worst, view.value)
            context.add(f"{self.name}[{k}]", cone.constraints, cone.multipliers)
            cost = cost + weight * worst
        return cost

    def _per_cell(self, protocol: np.ndarray, program: "ProtocolProgram") -> np.ndarray:
        return np.sum(protocol * np.tile(program.distortion_matrix,
                                         (program.crosstab.shape[0], 1)), axis=1)

    def evaluate(self, protocol: np.ndarray, program: "ProtocolProgram") -> float:
        """The nominal term plus each set's closed-form support function at ``v``."""
        v = self._per_cell(protocol, program)
        nominal = self.nominal * float(np.ravel(program.crosstab.phat) @ v)
        return nominal + sum(w * stated_support(s, v) for (w, _), s in
                             zip(self.worst_case, self._sets(program.uncertainty)))

    def certificate_multipliers(self, protocol: np.ndarray, program: "ProtocolProgram",
                                multipliers: Multipliers) -> Multipliers:
        """Per term the solver's multipliers, or the set's closed-form ones at ``protocol``
        when those certify a smaller bound (after a repair)."""
        v = self._per_cell(protocol, program)
        found = {}
        for k, s in enumerate(self._sets(program.uncertainty)):
            group = f"{self.name}[{k}]"
            candidates = [s.support_multipliers(v)] + \
                ([multipliers[group]] if group in multipliers else [])
            found[group] = min(candidates, key=lambda m: s.certified_support_bound(v, m))
        return found

    def certify_multipliers(self, protocol: np.ndarray, problem: Problem,
                            multipliers: Multipliers) -> StoredCheck:
        """The nominal term exactly plus each term's certified bound at the stored
        multipliers, at most the recorded value; and each set's own worst case, which must
        not beat its term's bound."""
        missing = tuple(f"{self.name}[{k}]" for k in range(len(self.worst_case))
                        if f"{self.name}[{k}]" not in multipliers)
        if missing or problem.value is None or \
                (self.needs_program_set() and problem.uncertainty is None):
            return StoredCheck(missing=missing or (self.name,))
        counts = problem.crosstab.counts
        v = expected_distortion(protocol, problem.distortion, counts.shape[0])
        n = int(counts.sum())
        nominal = sum((Fraction(int(c), n) * x for c, x in zip(np.ravel(counts), v)),
                      Fraction(0))
        total = interval(Fraction(self.nominal) * nominal)
        point = np.array([float(x) for x in v])
        attained = self.nominal * float(nominal)
        for k, ((weight, _), s) in enumerate(zip(self.worst_case, self._sets(problem.uncertainty))):
            region = certifiable_set(s, counts)
            bound = iv.mpf(region.certified_support_bound(v, multipliers[f"{self.name}[{k}]"]))
            total = total + interval(weight) * bound
            with warnings.catch_warnings():  # the set's worst case is pulled into F itself
                warnings.simplefilter("ignore", UserWarning)
                p = np.asarray(region.worst_case(point)[0], dtype=float)
            attained += weight * float(np.ravel(p) @ point)
        value = float(problem.value)
        certified = upper(total)
        bound = ConstraintBound(self.name, mpmath.mpf(certified), value,
                                OBJECTIVE_TOLERANCE * (1 + abs(value)))
        return StoredCheck((bound,), (), (AttainedWorstCase(self.name, float(certified),
                                                            attained, None, objective=True),))
