"""What a set answers from its conic data alone: support, worst case, multipliers, proofs.

:class:`AnsweredByData` is the part of the set protocol
(:mod:`rldp_models.uncertainty.base`) that needs no closed form, shared by a set
from data (:class:`~rldp_models.uncertainty.conic_set.ConicSet`) and a library set's
derived counterpart (:class:`~rldp_models.uncertainty.derived.DerivedSet`):

* ``support``, ``worst_case``, ``support_multipliers`` -- one primal solve over the
  data, ``y`` its cone duals (:mod:`.primal_duals`);
* :meth:`~AnsweredByData.data_bound` -- the derived certificate at ``{"y": ...}``
  (:class:`~.derived_certificate.DualCertifier`, ball arithmetic);
* ``conditional_bound`` -- one Charnes-Cooper solve per term (:mod:`.conditional_dual`);
  the capability ``CONDITIONAL_DUAL`` says so.

A class using it sets ``phat``, ``description`` (its data), ``exact_b`` (``b`` in
rationals) and ``name``.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Mapping, cast

import mpmath
import numpy as np

from rldp_models.exact import ExactVector
from rldp_models.uncertainty.base import UncertaintySet
from rldp_models.uncertainty.conditional_dual import ConditionalCertificate, ConditionalDual
from rldp_models.uncertainty.derived_certificate import DualCertifier
from rldp_models.uncertainty.derived_form import ConicDescription
from rldp_models.uncertainty.primal_duals import PrimalDuals


class AnsweredByData:
    """The data-answered methods of the module docstring (a mixin)."""

    phat: np.ndarray
    description: ConicDescription
    exact_b: list[Fraction]
    name: str

    def _answers(self) -> dict[str, Any]:
        """The per-set state: primal problems, certifier, conditional dual, proved terms."""
        state = self.__dict__.get("_answered")
        if state is None:
            state = {"primal": PrimalDuals(self.description), "certifier": None,
                     "conditional": None, "proved": {}}
            self.__dict__["_answered"] = state
        return state

    def certifier(self) -> DualCertifier:
        """The derived certificate's checker (built once)."""
        state = self._answers()
        if state["certifier"] is None:
            state["certifier"] = DualCertifier(self.description, exact_b=self.exact_b)
        return state["certifier"]

    def _primal(self, v: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
        """``(sup v.P, maximiser, y)`` by one primal solve over the data.

        Raises
        ------
        cvxpy.error.SolverError
            If the solver finds no maximiser.
        """
        import cvxpy as cp  # here, not at the top: rldp solve's default path never needs cvxpy

        found = self._answers()["primal"].support(v)
        if found is None:
            raise cp.error.SolverError(f"{self.name}: no maximiser over the set's data")
        return found

    def support(self, v: np.ndarray) -> float:
        """``delta*(v | F)`` by one solve of the primal over the data."""
        return self._primal(v)[0]

    def proved_support(self, v: np.ndarray) -> float:
        """An upper bound on ``delta*(v | F)``: the derived certificate at the primal's duals
        (one solve over the data), rounded up, and never below the solve's own value.

        What a stated worst-case value is taken from (:func:`.base.stated_support`), so that
        ``rldp verify`` re-proves it at the stored multipliers. The solve's value alone can
        fall below the certificate by more than verify's tolerance (V3 on Adult race x
        marital-status after the tightened repair: 3.7e-9 against 1e-9).
        """
        value, _, y = self._primal(v)
        bound = float(self.data_bound(v, {"y": y}))
        return max(value, float(np.nextafter(bound, np.inf)))

    def worst_case(self, v: np.ndarray) -> tuple[np.ndarray, float]:
        """A maximiser of ``v.P`` over the data, and its value (one primal solve)."""
        value, p, _ = self._primal(v)
        return p.reshape(self.phat.shape), value

    def support_multipliers(self, v: np.ndarray) -> dict[str, Any]:
        """The derived dual's ``y`` at ``v``: the primal's cone duals (:mod:`.primal_duals`)."""
        return {"y": self._primal(v)[2]}

    def data_bound(self, v: ExactVector, multipliers: Mapping[str, Any]) -> mpmath.mpf:
        """The derived certificate at ``multipliers["y"]`` (an upper bound on ``delta*(v)``)."""
        return self.certifier().bound(v, np.asarray(multipliers["y"], dtype=float))

    def conditional_bound(self, v: np.ndarray, s: int,
                          start: tuple[float, np.ndarray] | None = None
                          ) -> ConditionalCertificate:
        """A proved ``kappa >= sup_{R in C_s} v.R`` in at most one solve
        (:mod:`.conditional_dual`; none when ``start``, a ``(kappa, y)`` the caller has,
        proves).

        Kept: the same term asked again (a record's multipliers after the check) is
        not solved again.
        """
        v = np.asarray(v, dtype=float).ravel()
        state = self._answers()
        key = (int(s), v.tobytes())
        if key not in state["proved"]:
            if state["conditional"] is None:
                state["conditional"] = ConditionalDual(cast(UncertaintySet, self),
                                                       state["primal"])
            state["proved"][key] = state["conditional"].bound(v, s, start)
        return state["proved"][key]
