"""The block contract: what the library calls on an objective or a constraint family.

A protocol program (:class:`~rldp_models.programs.protocol_program.ProtocolProgram`)
is one :class:`Objective` plus :class:`ConstraintFamily` objects. Every hook the
library calls is declared here; optional ones have defaults and are announced
by :meth:`Block.capabilities`, never discovered by ``hasattr``.

Writing a block (e.g. i19's ``forall(F, expr <= 0)``) takes two methods:

* ``build(context)`` — add cvxpy constraints with ``context.add(name, constraints,
  multipliers)`` (:class:`~rldp_models.programs.context.BuildContext`); an
  objective returns the cvxpy expression to minimise. Required.
* ``check(protocol, program, multipliers)`` — for a :class:`GuaranteeFamily`
  only (a block that states a privacy guarantee, at its ``eps``): the exact
  check, independent of the solver, returning a
  :class:`~rldp_models.privacy.guarantees.GuaranteeCheck`. An objective
  instead implements ``evaluate(protocol, program)``, its exact value.

Everything else is optional:

========================  ==================================================  ==============
hook                      what it is for                                      default
========================  ==================================================  ==============
``capabilities(set)``     which forms the block provides over ``set``         cvxpy only
                          (:class:`~rldp_models.uncertainty.base.Capability`)
``build_conic(builder)``  its rows in the direct conic form (declare           refuses
                          ``DIRECT_CONIC``)
linear (Pyomo) form       declare ``LINEAR``: the constraints ``build`` adds   --
                          are then linear and are read as the LP's rows
                          (:mod:`rldp_models.programs.linear_form`)
``mixed_multipliers``     multipliers of ``(1-w) P + w U`` from those of P     none (the check
                          (the repair, :mod:`rldp_models.programs.solution`)   finds its own)
``secret_margins``        constraint values affine in per-secret mixing        None (not
                          weights, with the multipliers that mix along         tried)
                          (:mod:`rldp_models.programs.secret_mix`)
``certificate_multipliers``  an objective's multipliers proving its value    none
                          at the returned protocol
``certify(protocol, p,``  the verdict ``rldp verify`` prints (a             ``check``
``hints)``                :class:`~rldp_models.privacy.certified.Certified`;
                          ``hints``: the record's multipliers, to start from)
``certify_multipliers``   its robust constraints re-evaluated at a record's    nothing stored
                          stored multipliers (:class:`Problem` data; a         to re-check
                          :class:`~rldp_models.privacy.stored_bounds.StoredCheck`)
``recorded_multipliers``  what the record stores beyond the solver's          none
                          multipliers, for ``certify_multipliers``
``optimality_modelled()``  whether the optimality gap's Lagrangian covers it   False
``estimated_worst_margin``  a float guess of the worst margin at the          None (check
                          solver's multipliers, to pick the first repair      first)
``own_sets()``            the sets the block names itself (``over=``)          none
``needs_program_set()``   whether it is robust over the program's set          ``robust`` and
                                                                              no own set
``uniform_margin(n_y)``   the guarantee's worst margin at the uniform          privacy's
                          protocol (the repair's first mixing weight)         ``(1-e^eps)/|Y|``
``parameters()``          the record's declaration of the block               dataclass fields
``from_parameters(p)``    rebuilds it from a record (``rldp verify``)         ``cls(**p)``
========================  ==================================================  ==============

Blocks are usually frozen dataclasses (hashable: a kept conic model is keyed by
them). The program's guarantees are its :class:`GuaranteeFamily` blocks, and
its ``eps`` is theirs (:func:`program_eps`).

A robust block may name its own set (a parameter ``over``, :data:`SET_PARAMETER`:
``RobustDistortion(over=F1)``); without one it is robust over the program's
``uncertainty`` (:func:`robust_set`). A record declares the block's set beside it
(:mod:`rldp_models.results.blocks`), and ``rldp verify`` rebuilds it around the
record's counts.

"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any, Iterable, Sequence, TypeAlias, TypeVar

import numpy as np

from rldp_models.data import Crosstab
from rldp_models.errors import InputError
from rldp_models.privacy.certified import Certified
from rldp_models.privacy.guarantees import GuaranteeCheck
from rldp_models.privacy.stored_bounds import StoredCheck
from rldp_models.programs.conic_builder import ConicBuilder
from rldp_models.uncertainty.base import NO_CAPABILITIES, Capability, UncertaintySet
from solvers.registry import UnsupportedModelError

if TYPE_CHECKING:
    import cvxpy as cp

    from rldp_models.programs.context import BuildContext
    from rldp_models.programs.protocol_program import ProtocolProgram

Multipliers = dict[str, dict[str, Any]]
"""Multiplier values by constraint group, then by name (e.g. ``{"privacy[0,1]": {"c": ...}}``)."""

BlockT = TypeVar("BlockT", bound="Block")


@dataclass(frozen=True)
class Problem:
    """The data a block's :meth:`Block.certify_multipliers` reads, rebuilt from a record.

    Attributes
    ----------
    crosstab : Crosstab
        The counts (and the secrets' labels).
    uncertainty : UncertaintySet or None
        The declared set, rebuilt around the counts.
    distortion : ndarray
        ``d[u, y]``.
    outputs : tuple of str
        The outputs' labels.
    value : float or None
        The recorded value of the objective (what a robust objective's bound must not exceed).
    """

    crosstab: Crosstab
    uncertainty: UncertaintySet | None
    distortion: np.ndarray
    outputs: tuple[str, ...]
    value: float | None = None


Reference: TypeAlias = "tuple[np.ndarray, Multipliers] | None"
"""A protocol to mix toward and the multipliers its solver gave (None: the uniform protocol)."""


@dataclass(frozen=True)
class SecretMargins:
    """Upper bounds on a guarantee's constraint values after each secret ``s``'s rows are
    mixed with a reference protocol at a weight ``w_s`` of its own: ``margins + slopes @ w``
    (:mod:`rldp_models.programs.secret_mix`).

    Attributes
    ----------
    margins : ndarray, shape (k,)
        The proved constraint values (upper ends) at the protocol, ``<= 0`` where they hold.
    slopes : ndarray, shape (k, |S|)
        The change of each bound per unit of ``w_s``.
    own : Multipliers
        The multipliers proving ``margins`` (the solver's form, the block's groups).
    reference : Multipliers
        The reference's, in the same form: mixed with ``own`` they prove the mix's bounds
        (:meth:`GuaranteeFamily.secret_mixed_multipliers`).
    """

    margins: np.ndarray
    slopes: np.ndarray
    own: Multipliers
    reference: Multipliers


SET_PARAMETER = "over"
"""The parameter under which a block names its own uncertainty set (at any depth of its
``parameters()``): a record holds the set's declaration there."""


def robust_set(over: UncertaintySet | None,
               uncertainty: UncertaintySet | None) -> UncertaintySet:
    """The set a robust block is robust over: its own (``over``), else the program's.

    Raises
    ------
    InputError
        If neither is given.
    """
    chosen = uncertainty if over is None else over
    if chosen is None:
        raise InputError("robust blocks need an uncertainty set: the program's uncertainty= "
                         "or the block's own over=")
    return chosen


def own_set(over: UncertaintySet | None, uncertainty: UncertaintySet | None) -> bool:
    """Whether a block's set ``over`` is another than the program's ``uncertainty`` (then its
    rows are its set's cvxpy form: the direct rows and the optimality model read the
    program's set)."""
    return over is not None and over is not uncertainty


def set_capabilities(uncertainty: UncertaintySet | None) -> frozenset[Capability]:
    """The capabilities a set declares; a program without a set is fully linear and direct."""
    if uncertainty is None:
        return frozenset(Capability)
    return uncertainty.capabilities


class Block(ABC):
    """What every block of a program is: named, robust or not, built into cvxpy."""

    robust: bool

    @abstractmethod
    def build(self, context: BuildContext) -> Any:
        """Add the block to the cvxpy model under construction."""

    def capabilities(self, uncertainty: UncertaintySet | None) -> frozenset[Capability]:
        """The forms this block provides over ``uncertainty``; default: the cvxpy form only."""
        return NO_CAPABILITIES

    def build_conic(self, builder: ConicBuilder) -> None:
        """Write the block's rows into the direct conic form (when it declares ``DIRECT_CONIC``)."""
        raise UnsupportedModelError(f"{type(self).__name__} has no direct conic form")

    def certify_multipliers(self, protocol: np.ndarray, problem: Problem,
                            multipliers: Multipliers) -> StoredCheck:
        """The block's robust constraints at a record's stored ``multipliers`` (``rldp verify``'s
        certificate verdict): bounds in interval arithmetic, groups without multipliers,
        values attained in the set. By default the block stores nothing to re-check."""
        return StoredCheck()

    def own_sets(self) -> tuple[UncertaintySet, ...]:
        """The sets the block names itself (``over=``, :data:`SET_PARAMETER`); none by
        default."""
        return ()

    def needs_program_set(self) -> bool:
        """Whether the block is robust over the program's ``uncertainty`` (a robust block
        without a set of its own)."""
        return self.robust and not self.own_sets()

    def optimality_modelled(self) -> bool:
        """Whether the Lagrangian model of a proven optimality gap
        (:mod:`rldp_models.optimality.lagrangian`: the terms of eqs. 7-10) covers this
        block; a program with a block it does not cover claims no gap. Default: not covered."""
        return False

    def recorded_multipliers(self, protocol: np.ndarray, problem: Problem,
                             multipliers: Multipliers) -> Multipliers:
        """Multipliers a record stores beyond the solver's, for :meth:`certify_multipliers`
        (e.g. the product form's proved bounds); none by default."""
        return {}

    def parameters(self) -> dict[str, Any]:
        """The block's declaration in a record: its dataclass fields by default."""
        if dataclasses.is_dataclass(self):
            return {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.init}
        return {}

    @classmethod
    def from_parameters(cls: type[BlockT], parameters: dict[str, Any]) -> BlockT:
        """The block a record declares (the inverse of :meth:`parameters`)."""
        return cls(**parameters)


class Objective(Block):
    """Something to minimise, and its exact value at a given protocol."""

    name: str = "objective"
    """The group its multipliers and direct rows are recorded under (a robust objective's
    certificate and optimality dual are read by it)."""

    @abstractmethod
    def build(self, context: BuildContext) -> cp.Expression:
        """The cvxpy expression to minimise."""

    @abstractmethod
    def evaluate(self, protocol: np.ndarray, program: "ProtocolProgram") -> float:
        """The objective at ``protocol`` (exactly stochastic rows), not the solver's number."""

    def certificate_multipliers(self, protocol: np.ndarray, program: "ProtocolProgram",
                                multipliers: Multipliers) -> Multipliers:
        """Multipliers proving the objective's value at the returned ``protocol``; none
        by default (a nominal objective needs none)."""
        return {}


class ConstraintFamily(Block):
    """A named group of constraints on the protocol."""

    name: str

    @abstractmethod
    def build(self, context: BuildContext) -> None:
        """Call ``context.add(self.name, constraints, multipliers)``."""


class GuaranteeFamily(ConstraintFamily):
    """A constraint family that states a guarantee at ``eps`` and checks it exactly.

    The solution runs every guarantee family's :meth:`check` on the returned
    protocol, independently of the solver; the result records the verdicts.
    """

    eps: float

    @abstractmethod
    def check(self, protocol: np.ndarray, program: "ProtocolProgram",
              multipliers: Multipliers) -> GuaranteeCheck:
        """The exact check; ``multipliers`` are the solver's (possibly empty) as a hint."""

    def certify(self, protocol: np.ndarray, program: "ProtocolProgram",
                hints: Multipliers | None = None) -> Certified:
        """The verdict ``rldp verify`` prints for this guarantee on ``protocol`` (rebuilt
        from a record); by default the exact :meth:`check`, every multiplier found afresh.

        ``hints`` are the record's stored multipliers: a block may start its search from
        them, as long as it proves whatever it uses (the default ignores them)."""
        check = self.check(protocol, program, {})
        at_eps = f", eps = {check.eps:g}" if check.eps and np.isfinite(check.eps) else ""
        secrets, outputs = program.crosstab.s_labels, program.output_labels
        return Certified(bool(check.holds), f"{block_label(self)} {self.name}: {check.kind} "
                         f"guarantee{at_eps}{self.scope(secrets, outputs)}",
                         (check.summary(secrets, outputs),))

    def scope(self, secrets: Sequence[Any], outputs: Sequence[Any]) -> str:
        """What the guarantee covers, by the secrets' and outputs' labels, when it is not
        every output and pair (e.g. ``" over pairs ('a', 'b')"``); empty by default."""
        return ""

    def uniform_margin(self, n_outputs: int) -> float:
        """The guarantee's largest constraint value at the uniform protocol ``1/|Y|`` (the
        repair mixes toward it, :mod:`rldp_models.programs.solution`): privacy's
        ``(1 - e^eps) / |Y|`` by default; NaN when unknown (the repair then starts from a
        small weight and doubles it)."""
        return float((1.0 - np.exp(self.eps)) / n_outputs)

    def mixed_multipliers(self, multipliers: Multipliers, weight: float,
                          n_outputs: int) -> Multipliers:
        """Multipliers proving the guarantee of ``(1 - weight) P + weight U``; none by default."""
        return {}

    def secret_margins(self, protocol: np.ndarray, program: "ProtocolProgram",
                       multipliers: Multipliers,
                       reference: Reference = None) -> "SecretMargins | None":
        """The guarantee's constraint values at ``protocol`` as affine bounds in per-secret
        weights toward ``reference`` (:mod:`rldp_models.programs.secret_mix`); None (the
        default) where there are none, and the per-secret repair is then not tried."""
        return None

    def secret_mixed_multipliers(self, found: Sequence[SecretMargins],
                                 weights: Sequence[np.ndarray],
                                 n_outputs: int) -> Multipliers:
        """Multipliers proving the guarantee after secret ``s``'s rows are mixed with each
        reference ``r`` of ``found`` at ``weights[r][s]``; none by default."""
        return {}

    def estimated_worst_margin(self, protocol: np.ndarray, program: "ProtocolProgram",
                               multipliers: Multipliers) -> float | None:
        """A floating-point guess of the worst constraint value; None: check exactly first."""
        return None


def block_label(block: Block) -> str:
    """The class name of a block (for messages)."""
    return type(block).__name__


def guarantee_families(constraints: Iterable[Any]) -> list[GuaranteeFamily]:
    """The families among ``constraints`` that state a guarantee, in order."""
    return [block for block in constraints if isinstance(block, GuaranteeFamily)]


def program_eps(constraints: Sequence[Any], stated: float | None) -> float:
    """The program's eps, derived from its guarantee blocks.

    With no ``stated`` eps: the guarantee families' eps when they agree, their
    smallest when they differ (the strictest guarantee the program makes), 0.0
    without any. A ``stated`` eps must be one of the blocks' (it names the level
    of one of the guarantees), else the two statements disagree.

    Raises
    ------
    InputError
        If ``stated`` is not the eps of any guarantee block.
    """
    levels = sorted({family.eps for family in guarantee_families(constraints)
                     if np.isfinite(family.eps)})
    if stated is None:
        return levels[0] if levels else 0.0
    if levels and stated not in levels:
        raise InputError(f"the program states eps = {stated:g} but its guarantee blocks are at "
                         f"eps = {', '.join(f'{e:g}' for e in levels)}")
    return float(stated)
