"""Uncertainty sets as declarations, and back: what a record states and ``rldp verify`` rebuilds.

A set's declaration is its ``name``, ``radius`` and every other parameter it
declares: its ``parameters()`` when it defines one (where radius provenance
such as coverage calibration belongs), else its scalar dataclass fields. A
:class:`~rldp_models.uncertainty.derived.DerivedSet` is declared as ``derived``
with the wrapped set's declaration and its name under ``wraps``. The names are
those of :mod:`rldp_models.uncertainty.named`.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np

from rldp_models.errors import InputError
from rldp_models.uncertainty.calibration import bootstrap_radius
from rldp_models.uncertainty.chi_square import ChiSquareSet
from rldp_models.uncertainty.conic_set import (
    CONIC,
    INTERSECTION,
    NOT_CLAIMED,
    ConicSet,
    from_data,
    intersection,
)
from rldp_models.uncertainty.derived import DERIVED, DerivedSet
from rldp_models.uncertainty.named import SET_NAMES, named_set, shape_parameters
from rldp_models.uncertainty.set_data import SetData


def set_declaration(uncertainty: Any, radius_from: str | None = None) -> dict[str, Any] | None:
    """The uncertainty set's name, radius and every other parameter it declares.

    A :class:`~rldp_models.uncertainty.derived.DerivedSet` is declared as ``derived``
    with the wrapped set's declaration and its name under ``wraps``.
    """
    if uncertainty is None:
        return None
    if isinstance(uncertainty, ConicSet):
        parts = [set_declaration(part, "given" if part.alpha is None else "alpha")
                 for part in uncertainty.parts]
        member = uncertainty.stored_member()
        return {**uncertainty.declaration, **({"parts": parts} if parts else {}),
                **({} if member is None else {"member": [str(x) for x in member]})}
    if isinstance(uncertainty, DerivedSet):
        return {**(set_declaration(uncertainty.wrapped, radius_from) or {}), "set": DERIVED,
                "wraps": str(uncertainty.wrapped.name)}
    if hasattr(uncertainty, "parameters") and callable(uncertainty.parameters):
        parameters = dict(uncertainty.parameters())
    elif dataclasses.is_dataclass(uncertainty):
        parameters = {f.name: getattr(uncertainty, f.name) for f in dataclasses.fields(uncertainty)
                      if _is_scalar(getattr(uncertainty, f.name))}
    else:
        parameters = {"alpha": getattr(uncertainty, "alpha", None)}
    parameters.pop("name", None)
    declared = {"set": str(uncertainty.name), "radius": float(uncertainty.radius), **parameters}
    source = getattr(uncertainty, "radius_source", None)
    if isinstance(source, dict):  # a bootstrap radius: how to draw it again
        declared["radius_source"] = dict(source)
        radius_from = "bootstrap"
    if radius_from is not None:
        declared["radius_from"] = radius_from
    return declared


def bootstrap_checked_radius(declaration: dict[str, Any], crosstab: Any) -> float:
    """The recorded bootstrap radius, drawn again from its recorded draws and seed.

    :func:`rldp_models.uncertainty.calibration.bootstrap_radius` is
    deterministic in (set, counts, alpha, draws, seed), so the recorded radius
    and provenance must be reproduced exactly.

    Raises
    ------
    InputError
        If the provenance is incomplete or does not give the recorded radius.
    """
    source, alpha = declaration.get("radius_source"), declaration.get("alpha")
    if not isinstance(source, dict) or alpha is None:
        raise InputError("the set's radius is a bootstrap's, but its radius_source (draws, "
                         "seed) or alpha is not recorded")
    try:
        draws, seed = int(source["draws"]), int(source["seed"])
    except (KeyError, TypeError, ValueError):
        raise InputError("the bootstrap's radius_source lacks integer draws and seed") from None
    radius, again = bootstrap_radius(str(declaration["set"]), crosstab.counts, float(alpha),
                                     draws, seed)
    recorded = float(declaration["radius"])
    if radius != recorded or again != source:
        raise InputError(f"the {declaration['set']} set's recorded bootstrap radius {recorded} "
                         f"is not the one its recorded draws ({draws}) and seed ({seed}) give "
                         f"for these counts ({radius})")
    return radius


def _is_scalar(value: Any) -> bool:
    return value is None or isinstance(value, (bool, int, float, str, np.floating, np.integer))


def build_set(declaration: dict[str, Any], crosstab: Any) -> Any:
    """The declared set around ``crosstab``'s Phat, with its recorded radius.

    When the radius was calibrated from ``alpha`` (``radius_from`` ``alpha``),
    the calibration is redone from the counts and must give the recorded radius;
    a bootstrap radius (``radius_from`` ``bootstrap``) is drawn again from its
    recorded ``radius_source`` (:func:`bootstrap_checked_radius`).

    Raises
    ------
    InputError
        If the set is unknown or its radius is not the one the counts give.
    """
    name = declaration["set"]
    if name in (CONIC, INTERSECTION):
        return declared_data_set(declaration, crosstab)
    if name == DERIVED:
        wrapped = {**declaration, "set": declaration.get("wraps")}
        if wrapped["set"] == DERIVED:
            raise InputError("a derived set must wrap a named set, not another derived set")
        return DerivedSet(build_set(wrapped, crosstab))
    if name not in SET_NAMES:
        raise InputError(f"the result declares the uncertainty set {name!r}; known: "
                         f"{', '.join(SET_NAMES)}")
    radius, alpha = float(declaration["radius"]), declaration.get("alpha")
    if declaration.get("radius_from") == "bootstrap":
        radius = bootstrap_checked_radius(declaration, crosstab)
    elif str(declaration.get("radius_from", "")).startswith("alpha"):
        if alpha is None:
            raise InputError("the set's radius is calibrated from alpha, but no alpha is recorded")
        calibrated = named_set(name, crosstab, float(alpha),
                               **shape_parameters(declaration)).radius
        if not math.isclose(calibrated, radius, rel_tol=1e-12):
            raise InputError(f"the {name} set's recorded radius {radius} is not the one alpha = "
                             f"{alpha} gives for these counts ({calibrated})")
    if name == "chi2":
        return ChiSquareSet(crosstab.phat, radius, None if alpha is None else float(alpha))
    return named_set(name, crosstab, float(alpha) if alpha is not None else 0.05, radius,
                     **shape_parameters(declaration))


def declared_data_set(declaration: dict[str, Any], crosstab: Any) -> ConicSet:
    """A set from data (:mod:`rldp_models.uncertainty.conic_set`) rebuilt around ``crosstab``.

    ``conic``: its recorded data (:class:`~rldp_models.uncertainty.set_data.SetData`)
    at the counts' ``Phat``; ``intersection``: its two parts, each rebuilt by
    :func:`build_set`. Either way the set is built on the record's own counts, and
    it must be proved non-empty (``Phat`` a member, in rationals:
    :meth:`~rldp_models.uncertainty.conic_set.ConicSet.proved_nonempty`; else the
    declaration's stored ``member``, every column of the data as a rational:
    :meth:`~rldp_models.uncertainty.conic_set.ConicSet.proved_member`), so that a
    vacuous set cannot make a guarantee hold.

    Raises
    ------
    InputError
        If the data or the parts do not make a set, the set claims a coverage, or
        neither ``Phat`` nor the stored member is proved a member.
    """
    name, radius = str(declaration.get("name", declaration["set"])), declaration.get("radius")
    radius = 0.0 if radius is None else float(radius)
    if declaration.get("coverage") != NOT_CLAIMED:
        raise InputError(f"the set {name!r} is a set from data: its coverage is "
                         f"{NOT_CLAIMED!r}, not {declaration.get('coverage')!r}")
    if declaration["set"] == CONIC:
        data = SetData.from_json(declaration.get("data"), crosstab.phat.size)
        built = from_data(crosstab.phat, data, name, radius, crosstab.counts)
    else:
        parts = declaration.get("parts")
        if not isinstance(parts, list) or len(parts) != 2 or \
                not all(isinstance(part, dict) and "set" in part for part in parts):
            raise InputError("an intersection declares its two sets under 'parts'")
        built = intersection(build_set(parts[0], crosstab), build_set(parts[1], crosstab))
    member = declaration.get("member")
    if not built.proved_nonempty(crosstab.counts) and \
            not (isinstance(member, list) and built.proved_member(member)):
        raise InputError(f"the declared set {name!r} is not proved non-empty: neither Phat of "
                         "these counts nor a stored member is shown to be a member of its data "
                         "(checked in rationals)")
    return built
