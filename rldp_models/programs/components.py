"""Building blocks of protocol programs: objectives and constraint families.

A program is an objective plus constraint families. Every block is a small
object with a ``build(context)`` method; the four programs of the
robust-optimization paper (eqs. 7-10) are combinations of the blocks below,
and a new robust variant is a new combination, or a new block written by the
user with the same method (see the docs' "Write your own robust variant").

Objectives return the cvxpy expression to minimise. Constraint families call
``context.add(name, constraints, multipliers)``. The contract every block
follows, and its optional hooks, are :mod:`rldp_models.programs.contract`.

Written once. A library block states its rows once, in the direct conic form
(``build_conic``, rows in :mod:`rldp_models.programs.conic_rows`); its cvxpy
``build`` emits that statement (:func:`~rldp_models.programs.cvxpy_emission.emit_block`).
Over a set without direct rows a robust block's cvxpy rows are the set's own
(``support_at_most``, the conditional counterparts): the set states them, once.
"""

from __future__ import annotations

import itertools
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Sequence, cast

import numpy as np

from rldp_models import symbolic_values
from rldp_models.distortion import expected_distortion
from rldp_models.errors import InputError
from rldp_models.privacy.certified import Certified, secret_privacy
from rldp_models.privacy.guarantees import (
    GuaranteeCheck,
    check_nominal_privacy,
    check_robust_privacy,
    pair_rows,
)
from rldp_models.privacy.metrics import distortion_star
from rldp_models.privacy.pair_certificate import pair_check
from rldp_models.privacy.set_privacy import (
    check_product_privacy,
    product_check,
    product_multipliers,
    stored_candidates,
)
from rldp_models.privacy.stored_bounds import (
    OBJECTIVE_TOLERANCE,
    AttainedWorstCase,
    ConstraintBound,
    StoredCheck,
)
from rldp_models.programs import conic_rows
from rldp_models.programs.conic_builder import ConicBuilder
from rldp_models.programs.context import ordered_secret_pairs
from rldp_models.programs.cvxpy_emission import emit_block, emit_objective
from rldp_models.programs.contract import (
    ConstraintFamily,
    GuaranteeFamily,
    Multipliers,
    Objective,
    Problem,
    Reference,
    SecretMargins,
    robust_set,
    set_capabilities,
)
from rldp_models.uncertainty.base import (
    Capability,
    NO_CAPABILITIES,
    UncertaintySet,
    stated_support,
)
from rldp_models.uncertainty.certifiable import CertifiableSet, ChiSquareCertifiable
from rldp_models.uncertainty.pair_support_batch import theorem4_expression

if TYPE_CHECKING:
    import cvxpy as cp

    from rldp_models.programs.context import BuildContext
    from rldp_models.programs.protocol_program import ProtocolProgram
    from rldp_models.uncertainty.chi_square import ChiSquareSet

__all__ = ["ConstraintFamily", "NominalDistortion", "NominalSecretPrivacy", "Objective",
           "RobustDistortion", "RobustSecretPrivacy", "RowStochastic", "ordered_secret_pairs"]

LINEAR_AND_DIRECT = frozenset({Capability.LINEAR, Capability.DIRECT_CONIC})
"""What a block with only linear constraints and direct rows provides over any set."""


@dataclass(frozen=True)
class NominalDistortion(Objective):
    """``E_{(S,U) ~ Phat} d(U, Y)``: the objective of NUNP and NURP (eqs. 7-8)."""

    robust: bool = False

    def optimality_modelled(self) -> bool:
        return True

    def build(self, context: BuildContext) -> cp.Expression:
        """The statement's cost (:func:`~rldp_models.programs.cvxpy_emission.emit_objective`)."""
        return emit_objective(self, context)

    def capabilities(self, uncertainty: UncertaintySet | None) -> frozenset[Capability]:
        return LINEAR_AND_DIRECT

    def build_conic(self, builder: ConicBuilder) -> None:
        conic_rows.nominal_distortion_cost(builder)

    def evaluate(self, protocol: np.ndarray, program: "ProtocolProgram") -> float:
        return distortion_star(protocol, program.crosstab.phat, program.distortion_matrix)


@dataclass(frozen=True)
class RobustDistortion(Objective):
    """``max_{P in F} E_P d(U, Y)``: the objective of RUNP and RURP (eqs. 9-10).

    Written as ``min D`` subject to ``delta*(v | F) <= D`` with ``v`` the
    per-cell expected distortion (Lemma 1; for the chi-square set Theorem 2,
    eq. 22). The epigraph comes from the block's own set ``over`` when it names
    one, else from the program's uncertainty set (``support_at_most`` of
    :class:`rldp_models.uncertainty.base.UncertaintySet`).
    """

    robust: bool = True
    name: str = "robust_utility"
    over: UncertaintySet | None = None

    def own_sets(self) -> tuple[UncertaintySet, ...]:
        return () if self.over is None else (self.over,)

    def optimality_modelled(self) -> bool:
        """Over the program's set (the Lagrangian model of the gap reads that set)."""
        return self.over is None

    def build(self, context: BuildContext) -> cp.Expression:
        """The stated rows (Theorem 2) over a set that has them, else the set's epigraph."""
        import cvxpy as cp  # here, not at the top: rldp solve's default path never needs cvxpy

        context = context.over(self.over)
        if Capability.DIRECT_CONIC in set_capabilities(context.robust_set()):
            return emit_objective(self, context)
        worst = cp.Variable(name="worst_case_distortion")
        context.variables["worst_case_distortion"] = worst
        cone = context.robust_set().support_at_most(context.expected_distortion_per_cell(),
                                                    worst, context.value)
        context.add(self.name, cone.constraints, cone.multipliers)
        return worst

    def capabilities(self, uncertainty: UncertaintySet | None) -> frozenset[Capability]:
        """Linear over a linear set; direct rows (Theorem 2) over a set that has them, when
        it is the program's (the direct form reads the program's set)."""
        if self.over is not None:
            return set_capabilities(self.over) & {Capability.LINEAR}
        return set_capabilities(uncertainty) & LINEAR_AND_DIRECT

    def build_conic(self, builder: ConicBuilder) -> None:
        conic_rows.robust_distortion_rows(builder, self.name)

    def evaluate(self, protocol: np.ndarray, program: "ProtocolProgram") -> float:
        """The worst case over the set by its closed form (Theorem 2 for the chi-square set)."""
        per_cell = np.sum(protocol * np.tile(program.distortion_matrix,
                                             (program.crosstab.shape[0], 1)), axis=1)
        return stated_support(robust_set(self.over, program.uncertainty), per_cell)

    def certificate_multipliers(self, protocol: np.ndarray, program: "ProtocolProgram",
                                multipliers: Multipliers) -> Multipliers:
        """The solver's multipliers, unless the closed form's (Theorem 2 at ``protocol``)
        give a smaller certified bound, as they do after a repair."""
        uncertainty = robust_set(self.over, program.uncertainty)
        per_cell = np.sum(protocol * np.tile(program.distortion_matrix,
                                             (program.crosstab.shape[0], 1)), axis=1)
        candidates = [uncertainty.support_multipliers(per_cell)]
        if self.name in multipliers:
            candidates.append(multipliers[self.name])
        return {self.name: min(candidates,
                               key=lambda m: uncertainty.certified_support_bound(per_cell, m))}

    def certify_multipliers(self, protocol: np.ndarray, problem: Problem,
                            multipliers: Multipliers) -> StoredCheck:
        """Lemma 1's bound ``delta*(v | F)`` at the stored multipliers (Theorem 2 over the
        chi-square set, with ``Phat`` exact), at most the recorded objective ``D``; and
        ``max_{P in F} v.P`` by the set's own search, which must not beat it."""
        values = multipliers.get(self.name)
        uncertainty = problem.uncertainty if self.over is None else self.over
        if values is None or uncertainty is None or problem.value is None:
            return StoredCheck(missing=(self.name,))
        v = expected_distortion(protocol, problem.distortion, problem.crosstab.shape[0])
        region = certifiable_set(uncertainty, problem.crosstab.counts)
        objective = float(problem.value)
        bound = ConstraintBound(self.name, region.certified_support_bound(v, values), objective,
                                OBJECTIVE_TOLERANCE * (1 + abs(objective)))
        point = np.array([float(x) for x in v])
        with warnings.catch_warnings():  # the set's worst case is pulled into F itself
            warnings.simplefilter("ignore", UserWarning)
            p = np.asarray(region.worst_case(point)[0], dtype=float)
        attained = AttainedWorstCase(self.name, float(bound.bound), float(np.ravel(p) @ point),
                                     p, objective=True)
        return StoredCheck((bound,), (), (attained,))


def certifiable_set(uncertainty: UncertaintySet, counts: np.ndarray) -> CertifiableSet:
    """The set as its certificate is checked: a set with exact pair projections (the
    chi-square set) with ``Phat = counts / n`` exact, any other set as it is."""
    if Capability.EXACT_PAIR in uncertainty.capabilities:
        return ChiSquareCertifiable(counts, uncertainty.radius)
    return cast(CertifiableSet, uncertainty)


@dataclass(frozen=True)
class RowStochastic(ConstraintFamily):
    """``sum_y P(y | x) = 1`` for every x (``P >= 0`` is on the variable)."""

    name: str = "stochastic"
    robust: bool = False

    def build(self, context: BuildContext) -> None:
        emit_block(self, context)

    def capabilities(self, uncertainty: UncertaintySet | None) -> frozenset[Capability]:
        return LINEAR_AND_DIRECT

    def build_conic(self, builder: ConicBuilder) -> None:
        conic_rows.stochastic_rows(builder, self.name)


def _exact_pair_set(uncertainty: UncertaintySet) -> "ChiSquareSet":
    """A set with the ``EXACT_PAIR`` capability: Theorem 3's pair projections are the
    chi-square set's, so today that is what such a set is."""
    return cast("ChiSquareSet", uncertainty)


CONDITIONAL_MARGIN = 1e-10
"""The joint-probability margin of a conditional bound proved by the set's conditional duals
in a model built with ``solver_margins`` (the repair's reference,
:func:`~rldp_models.programs.solution.reference_programs`): ``delta*(e_s(v - hi) | F) <=
-CONDITIONAL_MARGIN``, the feasibility tolerance of
:data:`~rldp_models.programs.protocol_program.CLARABEL_TIGHT`. The solver meets the row to
about that residual in joint units, which is the residual divided by ``P(s)`` in the
conditional bound itself, so a secret with few records has its bounds 1e-8 optimistic; the
margin makes them conservative by about the same ``margin / P(s)``. V3 on Adult race x age in
11 bands (race "Other": 0.8% of the records), relative to the independent model, with the
margin in the program itself: +2.9e-6 at 1e-10, +4.1e-6 at 2e-10, +6.6e-6 at 3e-10, +2.1e-5
at 1e-9 (without: +2.7e-5)."""


def conditional_margin(uncertainty: UncertaintySet) -> float:
    """:data:`CONDITIONAL_MARGIN` over a set whose conditional bounds are proved by its
    conditional duals (``CONDITIONAL_DUAL``), else 0 (the set's closed form proves them)."""
    return CONDITIONAL_MARGIN if Capability.CONDITIONAL_DUAL in uncertainty.capabilities \
        else 0.0


def conditional_expectation_bounds(context: BuildContext,
                                   name: str) -> tuple[cp.Variable, cp.Variable]:
    """Variables ``hi[s, y] >= sup_{R in C_s} P(y|s, .).R`` and ``lo[s, y] <= inf ...``.

    Built from the set's conditional robust counterpart ((*) of
    :mod:`rldp_models.uncertainty.base`); groups ``<name>/sup[s]`` and
    ``<name>/inf[s]`` keep the set's multipliers and the bound (``"bound"``).
    """
    import cvxpy as cp  # here, not at the top: rldp solve's default path never needs cvxpy
    from rldp_models.uncertainty.cvxpy_rows import conditional_at_most

    shape = (context.n_s, len(context.outputs))
    hi = cp.Variable(shape, name=f"{name}_sup_conditional")
    lo = cp.Variable(shape, name=f"{name}_inf_conditional")
    margin = conditional_margin(context.robust_set()) if context.solver_margins else 0.0
    for s in range(context.n_s):
        for side, block, rhs, bound in (("sup", context.block(s), hi[s], hi),
                                        ("inf", -context.block(s), -lo[s], lo)):
            cone = conditional_at_most(context.robust_set(), block, rhs, s, margin)
            context.add(f"{name}/{side}[{s}]", cone.constraints,
                        {**cone.multipliers, "bound": bound[s]})
    return hi, lo


def solver_bounds(multipliers: dict[str, Any], name: str) -> dict[tuple[str, int], Any]:
    """The solver's ``hi[s]`` and ``lo[s]`` of :func:`conditional_expectation_bounds`, and the
    derived dual's ``y`` proving them where the set's counterpart has one (``(side + " proof",
    s)``, :func:`~rldp_models.privacy.set_privacy.conditional_bounds`)."""
    found = {}
    for group, values in multipliers.items():
        for side in ("sup", "inf"):
            prefix = f"{name}/{side}["
            if group.startswith(prefix) and "bound" in values:
                s = int(group[len(prefix):-1])
                found[side, s] = values["bound"]
                if "y" in values:
                    found[f"{side} proof", s] = values["y"]
    return found


def mixed_bounds(multipliers: dict[str, Any], name: str, weight: float,
                 n_outputs: int) -> dict[str, Any]:
    """Bounds on expectations of ``(1 - weight) P + weight U`` from those of ``P``.

    Every expectation of a column of the uniform protocol is ``1/|Y|``, and the
    bounds are of linear functions of the protocol, so they mix the same way; a derived
    dual's ``y`` proving a bound (``A^T y = E e_s(q - kappa)``, ``b.y <= 0``) proves the
    mixed one scaled by ``1 - weight``, as ``q - kappa`` is.
    """
    return {group: {"bound": (1 - weight) * np.asarray(values["bound"]) + weight / n_outputs,
                    **({"y": (1 - weight) * np.asarray(values["y"])} if "y" in values else {})}
            for group, values in multipliers.items()
            if group.startswith(name + "/") and "bound" in values}


@dataclass(frozen=True)
class NominalSecretPrivacy(GuaranteeFamily):
    """``P(Y=y | S=s1) <= e^eps P(Y=y | S=s2)`` at ``Phat`` (eq. 6), all y, s1 != s2.

    A secret with no records has no empirical conditional; its conditional is
    then taken to be any distribution on U (the worst case over the simplex),
    which makes the constraint ``max_u P(y|s1,u) <= ...`` on that side.
    """

    eps: float
    name: str = "privacy"
    robust: bool = False

    def optimality_modelled(self) -> bool:
        return True

    def build(self, context: BuildContext) -> None:
        emit_block(self, context)

    def capabilities(self, uncertainty: UncertaintySet | None) -> frozenset[Capability]:
        return LINEAR_AND_DIRECT

    def build_conic(self, builder: ConicBuilder) -> None:
        conic_rows.nominal_privacy_rows(builder, self.name, self.eps)

    def check(self, protocol: np.ndarray, program: "ProtocolProgram",
              multipliers: Multipliers) -> GuaranteeCheck:
        return check_nominal_privacy(protocol, program.crosstab.counts, self.eps)

    def certify(self, protocol: np.ndarray, program: "ProtocolProgram",
                hints: Multipliers | None = None) -> Certified:
        """Eq. (6) at ``Phat``, with the worst-case eps there (exact: ``hints`` unused)."""
        return secret_privacy(protocol, program.crosstab, None, self.eps,
                              program.output_labels)


@dataclass(frozen=True)
class RobustSecretPrivacy(GuaranteeFamily):
    """Eq. (6) for every ``P`` in the uncertainty set (eq. 23).

    Chi-square set, via Theorem 4 (eq. 30): for each ordered pair
    ``(s1, s2)`` and each output ``y``,
    ``delta*(P(y|s1, .), -e^eps P(y|s2, .) | F_{U|s1,s2}) <= 0``.
    Multipliers ``c`` and ``t`` are kept per pair (shape (|Y|,) and (2, |Y|)).

    A set with the ``EXACT_PAIR`` capability is treated so (the chi-square set).

    Any other set, via the product of its conditional projections ((**) of
    :mod:`rldp_models.uncertainty.base`, a sufficient condition): variables
    ``hi[s, y] >= sup_{R in C_s} P(y|s, .).R`` and
    ``lo[s, y] <= inf_{R in C_s} P(y|s, .).R`` (groups ``<name>/sup[s]`` and
    ``<name>/inf[s]``, the set's multipliers under its own names), and
    ``hi[s1, y] <= e^eps lo[s2, y]`` (group ``<name>/pair[s1,s2]``).

    ``outputs`` (indices of ``Y``) and ``pairs`` (ordered ``(s1, s2)``,
    ``s1 != s2``) restrict the guarantee to those outputs and secret pairs;
    the default (None) is all of them. The record declares both, so
    ``rldp verify`` re-checks the restricted guarantee.

    ``over`` is the block's own set (default: the program's). Over its own set
    the block has no direct rows (they read the program's set): its rows are
    Theorem 4's emitted into cvxpy with that set's radius, or the product form.
    """

    eps: float
    name: str = "robust_privacy"
    robust: bool = True
    outputs: tuple[int, ...] | None = None
    pairs: tuple[tuple[int, int], ...] | None = None
    over: UncertaintySet | None = None

    def __post_init__(self) -> None:
        """Lists (as a record stores them) become tuples, so the block stays hashable."""
        if self.outputs is not None:
            object.__setattr__(self, "outputs", tuple(int(y) for y in self.outputs))
        if self.pairs is not None:
            object.__setattr__(self, "pairs", tuple((int(a), int(b)) for a, b in self.pairs))

    def own_sets(self) -> tuple[UncertaintySet, ...]:
        return () if self.over is None else (self.over,)

    def optimality_modelled(self) -> bool:
        """Over every output and pair and the program's set (restricted, its Lagrangian has
        fewer terms; over its own set, the gap's model reads another set)."""
        return not self.restricted and self.over is None

    @property
    def restricted(self) -> bool:
        """Whether the guarantee covers only some outputs or pairs."""
        return self.outputs is not None or self.pairs is not None

    def chosen(self, n_s: int, n_y: int) -> tuple[list[int], list[tuple[int, int]]]:
        """The outputs and ordered pairs the guarantee covers, checked against the sizes.

        Raises
        ------
        InputError
            If an output or a pair is out of range, a pair repeats a secret, or
            a choice is empty.
        """
        outputs = list(range(n_y)) if self.outputs is None else list(self.outputs)
        pairs = ordered_secret_pairs(n_s) if self.pairs is None else list(self.pairs)
        if not outputs or not all(0 <= y < n_y for y in outputs):
            raise InputError(f"{self.name}: outputs must be indices in 0..{n_y - 1}")
        if not pairs or not all(0 <= a < n_s and 0 <= b < n_s and a != b for a, b in pairs):
            raise InputError(f"{self.name}: pairs must be (s1, s2) with s1 != s2 in "
                             f"0..{n_s - 1}")
        return outputs, pairs

    def capabilities(self, uncertainty: UncertaintySet | None) -> frozenset[Capability]:
        """Direct rows in the exact pair form (Theorem 4) over all outputs and pairs; linear
        in product form over a linear set (the product form has no direct rows)."""
        offered = set_capabilities(uncertainty if self.over is None else self.over)
        if Capability.EXACT_PAIR in offered:
            return NO_CAPABILITIES if self.restricted or self.over is not None \
                else offered & {Capability.DIRECT_CONIC}
        return offered & {Capability.LINEAR}

    def build_conic(self, builder: ConicBuilder) -> None:
        """Theorem 4's rows over the chosen outputs and pairs (all of them by default)."""
        n_s = builder.program.crosstab.shape[0]
        outputs, pairs = self.chosen(n_s, len(builder.program.output_labels))
        conic_rows.robust_privacy_rows(builder, self.name, self.eps,
                                       None if self.outputs is None else outputs, pairs)

    def build(self, context: BuildContext) -> None:
        """The stated rows (Theorem 4) in the exact pair form, else the product form."""
        context = context.over(self.over)
        if self._exact_pairs(context.uncertainty):
            emit_block(self, context)
        else:
            self._build_product(context)

    def _build_product(self, context: BuildContext) -> None:
        hi, lo = conditional_expectation_bounds(context, self.name)
        factor = float(np.exp(self.eps))
        columns = self._columns(context)
        for s1, s2 in self.chosen(context.n_s, len(context.outputs))[1]:
            context.add(f"{self.name}/pair[{s1},{s2}]",
                        [hi[s1, columns] <= factor * lo[s2, columns]])

    def _columns(self, context: BuildContext) -> slice | list[int]:
        """The chosen outputs as an index of ``P``'s columns (all: a plain slice)."""
        outputs = self.chosen(context.n_s, len(context.outputs))[0]
        return slice(None) if self.outputs is None else outputs

    @staticmethod
    def _exact_pairs(uncertainty: UncertaintySet | None) -> bool:
        return Capability.EXACT_PAIR in set_capabilities(uncertainty)

    def check(self, protocol: np.ndarray, program: "ProtocolProgram",
              multipliers: Multipliers) -> GuaranteeCheck:
        """The exact check with the solver's multipliers; repairs are cheaper than refining."""
        uncertainty = robust_set(self.over, program.uncertainty)
        if not self._exact_pairs(uncertainty):
            full = check_product_privacy(protocol, uncertainty, self.eps,
                                         self._solver_bounds(multipliers))
        else:
            chosen = self.chosen(program.crosstab.shape[0], protocol.shape[1])[1]
            pairs = {pair: multipliers.get(self._group(*pair)) for pair in chosen}
            full = check_robust_privacy(protocol, program.crosstab.counts,
                                        _exact_pair_set(uncertainty), self.eps,
                                        {k: v for k, v in pairs.items()
                                         if v is not None and self._fits(v, protocol)},
                                        refine=self.restricted, pairs=chosen)
        return full if not self.restricted else self._restrict(full, protocol)

    def certify(self, protocol: np.ndarray, program: "ProtocolProgram",
                hints: Multipliers | None = None) -> Certified:
        """Over every output and pair: eq. (23) with the worst-case eps over ``F`` bracketed
        (the product form over a set without exact pair projections, its search starting from
        the record's stored bounds, ``hints``, each proved afresh or replaced); restricted, the
        check."""
        if self.restricted:
            return super().certify(protocol, program)
        return secret_privacy(protocol, program.crosstab,
                              robust_set(self.over, program.uncertainty), self.eps,
                              program.output_labels, stored_candidates(hints or {}, self.name))

    def certify_multipliers(self, protocol: np.ndarray, problem: Problem,
                            multipliers: Multipliers) -> StoredCheck:
        """Over every output and pair: eq. (30) at the stored ``(c, t)`` of every pair over a
        set with exact pair projections, else the product form's stored bounds and pair
        inequalities. Restricted, nothing: its guarantee is re-checked afresh (:meth:`certify`)."""
        uncertainty = problem.uncertainty if self.over is None else self.over
        if self.restricted or uncertainty is None:
            return StoredCheck()
        secrets = problem.crosstab.s_labels
        if self._exact_pairs(uncertainty):
            return pair_check(protocol, problem.crosstab.counts,
                              _exact_pair_set(uncertainty), self.eps, multipliers,
                              self.name, secrets, problem.outputs)
        return product_check(protocol, uncertainty, self.eps, multipliers, self.name,
                             secrets, problem.outputs)

    def recorded_multipliers(self, protocol: np.ndarray, problem: Problem,
                             multipliers: Multipliers) -> Multipliers:
        """Over a set without exact pair projections, the product form's proved bounds and
        the set's multipliers of each
        (:func:`~rldp_models.privacy.set_privacy.product_multipliers`)."""
        uncertainty = problem.uncertainty if self.over is None else self.over
        if uncertainty is None or self._exact_pairs(uncertainty):
            return {}
        return product_multipliers(protocol, uncertainty, self.name,
                                   self._solver_bounds(multipliers))

    def scope(self, secrets: Sequence[Any], outputs: Sequence[Any]) -> str:
        """Restricted: the chosen outputs and ordered pairs, by their labels."""
        if not self.restricted:
            return ""
        chosen_outputs, pairs = self.chosen(len(secrets), len(outputs))
        parts = [] if self.outputs is None else \
            [f"outputs {', '.join(repr(str(outputs[y])) for y in chosen_outputs)}"]
        if self.pairs is not None:
            parts.append("pairs " + ", ".join(f"({str(secrets[a])!r}, {str(secrets[b])!r})"
                                              for a, b in pairs))
        return " over " + " and ".join(parts)

    def _fits(self, values: dict[str, Any], protocol: np.ndarray) -> bool:
        """Whether a pair's multipliers cover every output (a restricted block's cover only
        the chosen ones; the other outputs then get the closed form's)."""
        return bool(np.size(values["c"]) == protocol.shape[1])

    def _restrict(self, full: GuaranteeCheck, protocol: np.ndarray) -> GuaranteeCheck:
        """``full``'s verdict on the chosen outputs and pairs only (other margins NaN)."""
        outputs, pairs = self.chosen(full.margins.shape[0], protocol.shape[1])
        margins = np.full(full.margins.shape, np.nan)
        for (s1, s2), y in itertools.product(pairs, outputs):
            margins[s1, s2, y] = full.margins[s1, s2, y]
        masked = np.where(np.isnan(margins), -np.inf, margins)
        at = tuple(int(i) for i in np.unravel_index(int(np.argmax(masked)), masked.shape))
        worst = float(masked[at])
        return GuaranteeCheck(worst <= 0.0, "robust", self.eps, worst, (at[2], at[0], at[1]),
                              margins, full.multipliers)

    def estimated_worst_margin(self, protocol: np.ndarray, program: "ProtocolProgram",
                               multipliers: Multipliers) -> float | None:
        """The largest constraint value at the solver's multipliers, in floating point.

        Theorem 4's expression (eq. 29) at each pair's ``(c, t)`` (``t_i``
        raised to ``max_u v_i(u)`` as in the exact check), vectorised over
        pairs and outputs. A guide for the repair's mixing weight only: the
        verdict is always the exact :meth:`check`. ``None`` for the product
        form, when a pair has no multipliers, or when they are not finite.
        """
        uncertainty = program.uncertainty if self.over is None else self.over
        if uncertainty is None or not self._exact_pairs(uncertainty) or self.restricted:
            return None
        pairs = ordered_secret_pairs(program.crosstab.shape[0])
        found = [multipliers[group] for group in map(lambda pair: self._group(*pair), pairs)
                 if group in multipliers]
        if len(found) < len(pairs):
            return None
        rows = pair_rows(protocol, _exact_pair_set(uncertainty), self.eps, pairs)
        c = np.maximum(np.concatenate([np.ravel(values["c"]) for values in found]), 0.0)
        t = np.concatenate([np.reshape(values["t"], (2, -1)) for values in found], axis=1)
        t1, t2 = np.maximum(t[0], rows.v1.max(axis=1)), np.maximum(t[1], rows.v2.max(axis=1))
        with np.errstate(divide="ignore", invalid="ignore"):
            values = theorem4_expression(c, t1, t2, rows.v1, rows.v2, rows.p1, rows.p2, rows.rho,
                                         symbolic_values.THEOREM4_CONSTANT)
        worst = float(np.max(values))
        return worst if np.isfinite(worst) else None

    def mixed_multipliers(self, multipliers: Multipliers, weight: float,
                          n_outputs: int) -> Multipliers:
        """Multipliers for ``(1 - weight) P + weight U`` from those of ``P``.

        The uniform protocol's constraint is certified by ``c = 0``,
        ``t = (1/|Y|, -e^eps/|Y|)``; Theorem 4's expression is jointly convex
        and positively homogeneous in ``(c, t, v)``, so the mixture of the two
        certificates bounds the mixed constraint by the mixture of the bounds.
        In product form the bounds ``hi``, ``lo`` on conditional expectations
        mix the same way (``P(y|s, .)`` of the uniform protocol is ``1/|Y|``).
        """
        uniform_t = np.array([[1.0], [-np.exp(self.eps)]]) / n_outputs
        mixed = {}
        for group, values in multipliers.items():
            if group.startswith(self.name + "["):
                mixed[group] = {"c": (1 - weight) * np.asarray(values["c"]),
                                "t": (1 - weight) * np.asarray(values["t"]) + weight * uniform_t}
        return {**mixed, **mixed_bounds(multipliers, self.name, weight, n_outputs)}

    def _solver_bounds(self, multipliers: dict[str, Any]) -> dict[tuple[str, int], Any]:
        return solver_bounds(multipliers, self.name)

    def secret_margins(self, protocol: np.ndarray, program: "ProtocolProgram",
                       multipliers: Multipliers,
                       reference: Reference = None) -> SecretMargins | None:
        """In product form (unrestricted): ``hi[s1, y] - e^eps lo[s2, y]`` for every ordered
        pair and output, the bounds proved as the check proves them, with their slopes in
        per-secret weights toward ``reference``.

        Secret ``s``'s rows mixed at ``w_s`` with the reference's have bounds at most
        ``(1 - w_s) hi + w_s hi_R`` (at least ``(1 - w_s) lo + w_s lo_R``), proved by the mix
        of the two proofs (``q - kappa`` mixes so); for the uniform protocol ``hi_R = lo_R =
        1/|Y|`` with ``y = 0``, and the bounds are exact. So each value moves by at most
        ``w_s1 (hi_R - hi) - e^eps w_s2 (lo_R - lo)`` (``e^eps`` rounded up). None over a set
        with exact pair projections (Theorem 4's expression is not affine in the protocol).
        """
        uncertainty = robust_set(self.over, program.uncertainty)
        if self.restricted or self._exact_pairs(uncertainty):
            return None
        own = self._proved_bounds(protocol, uncertainty, multipliers)
        other = self._uniform_bounds(own, protocol.shape[1]) if reference is None else \
            self._proved_bounds(reference[0], uncertainty, reference[1])
        n_s, n_y = program.crosstab.shape[0], protocol.shape[1]
        hi, lo = self._sides(own, n_s)
        hi_r, lo_r = self._sides(other, n_s)
        factor = float(np.nextafter(np.exp(self.eps), np.inf))
        rows, margins = [], []
        for (s1, s2), y in itertools.product(ordered_secret_pairs(n_s), range(n_y)):
            slope = np.zeros(n_s)
            slope[s1] += hi_r[s1, y] - hi[s1, y]
            slope[s2] -= factor * (lo_r[s2, y] - lo[s2, y])
            rows.append(slope)
            margins.append(hi[s1, y] - factor * lo[s2, y])
        return SecretMargins(np.array(margins), np.array(rows), own, other)

    def _proved_bounds(self, protocol: np.ndarray, uncertainty: UncertaintySet,
                       multipliers: Multipliers) -> Multipliers:
        """Each secret's proved conditional bounds and their derived duals where the set has
        them, as the solver's groups ``<name>/sup[s]``: ``{"bound": ..., "y": ...}``."""
        groups = product_multipliers(protocol, uncertainty, self.name,
                                     self._solver_bounds(multipliers))
        found = stored_candidates(groups, self.name)
        return {f"{self.name}/{side}[{s}]": {
            "bound": bound, **({"y": found[f"{side} proof", s]}
                               if (f"{side} proof", s) in found else {})}
            for (side, s), bound in found.items() if side in ("sup", "inf")}

    def _uniform_bounds(self, own: Multipliers, n_outputs: int) -> Multipliers:
        """The uniform protocol's bounds (``1/|Y|``, proved by ``y = 0``) in ``own``'s form."""
        return {group: {"bound": np.full(np.shape(values["bound"]), 1.0 / n_outputs),
                        **({"y": np.zeros(np.shape(values["y"]))} if "y" in values else {})}
                for group, values in own.items()}

    def _sides(self, groups: Multipliers, n_s: int) -> tuple[np.ndarray, np.ndarray]:
        """``hi`` and ``lo``, shape ``(|S|, |Y|)``, from :meth:`_proved_bounds`' groups."""
        def side(name: str) -> np.ndarray:
            return np.array([np.ravel(groups[f"{self.name}/{name}[{s}]"]["bound"])
                             for s in range(n_s)])
        return side("sup"), side("inf")

    def secret_mixed_multipliers(self, found: Sequence[SecretMargins],
                                 weights: Sequence[np.ndarray],
                                 n_outputs: int) -> Multipliers:
        """The proved bounds of :meth:`secret_margins` mixed per secret: ``(1 - sum_r w_rs)
        own + sum_r w_rs reference_r``, bounds and derived duals alike (a dual is kept only
        where every protocol of the mix has one)."""
        if not found:
            return {}
        mixed = {}
        for group, values in found[0].own.items():
            s = int(group[group.index("[") + 1:-1])
            keep = 1.0 - sum(float(w[s]) for w in weights)
            parts = [(keep, values), *((float(w[s]), margins.reference[group])
                                       for w, margins in zip(weights, found))]
            mixed[group] = {key: sum(share * np.asarray(part[key], dtype=float)
                                     for share, part in parts)
                            for key in ("bound", "y") if all(key in part for _, part in parts)}
        return mixed

    def _group(self, s1: int, s2: int) -> str:
        return f"{self.name}[{s1},{s2}]"
