"""The ``repair`` block of a result record: one spelling written, every old one read.

Written (schema version 2, :class:`rldp_models.finish.Repair`)::

    {"method": "none" | "mix" | "fallback", "weight": a, "cost": |after - before|,
     "value_before": ..., "value_after": ...,
     "reference": "uniform" | "tightened" | ...   (a "mix" only),
     "uniform_weight": b                          (a two-stage mix only),
     "secret_weights": {"uniform": [w_1, ...], ...}  (a mix per secret only)}

for the returned matrix ``P = (1 - b) ((1 - a) Q + a R) + b U`` (see
:class:`~rldp_models.finish.Repair`). Read as well, so that files already written
keep loading:

* the program spelling of round-1 ``rldp solve`` files: ``method``
  ``"mix-uniform"`` / ``"mix-tightened"`` / ``"best-constant"``,
  ``mixing_weight``, ``objective_before``, ``objective_after``,
  ``uniform_weight``, ``utility_cost``;
* the cone-LP mechanism spelling (``repair_method`` of ``rldp mechanism``
  files): ``"mix-uniform"``, ``"constant"``, with ``utility_before`` /
  ``utility_after``;
* schema-2 records whose two-stage mix says ``reference``
  ``"tightened+uniform"`` with the total weight (kept as written: ``a`` and
  ``b`` cannot be recovered from it).

``rldp verify`` never trusts this block: the matrix is re-checked exactly.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rldp_models.errors import InputError
from rldp_models.finish import Repair, RepairMethod

OLD_METHODS: dict[str, tuple[RepairMethod, str | None]] = {
    "none": ("none", None), "mix": ("mix", None), "fallback": ("fallback", None),
    "mix-uniform": ("mix", "uniform"), "mix-tightened": ("mix", "tightened"),
    "best-constant": ("fallback", None), "constant": ("fallback", None)}
"""Every ``method`` a record has used, as the one method and the reference it implies."""


def repair_to_json(repair: Repair) -> dict[str, Any]:
    """The record's ``repair`` block (module docstring); ``reference`` only for a mix with
    one, ``uniform_weight`` only when a second mix with the uniform matrix followed."""
    block: dict[str, Any] = {"method": repair.method, "weight": repair.weight,
                             "cost": repair.cost, "value_before": repair.value_before,
                             "value_after": repair.value_after}
    if repair.reference is not None:
        block["reference"] = repair.reference
    if repair.uniform_weight > 0.0:
        block["uniform_weight"] = repair.uniform_weight
    if repair.secret_weights:
        block["secret_weights"] = {name: list(weights) for name, weights in repair.secret_weights}
    return block


def repair_from_json(block: Mapping[str, Any] | None) -> Repair:
    """A :class:`~rldp_models.finish.Repair` from a ``repair`` block of any spelling
    (module docstring); no block (None or empty) is no repair.

    Raises
    ------
    InputError
        If ``method`` is none of the spellings above.
    """
    if not block:
        return Repair("none", 0.0)
    method = str(block.get("method", "none"))
    if method not in OLD_METHODS:
        raise InputError(f"unknown repair method {method[:40]!r}; known: "
                         f"{', '.join(OLD_METHODS)}")
    unified, implied = OLD_METHODS[method]
    weight = block.get("weight", block.get("mixing_weight"))
    return Repair(unified, _number(weight, 1.0 if unified == "fallback" else 0.0),
                  _optional(block.get("value_before", block.get("objective_before",
                                                                 block.get("utility_before")))),
                  _optional(block.get("value_after", block.get("objective_after",
                                                               block.get("utility_after")))),
                  block.get("reference", implied if unified == "mix" else None),
                  _number(block.get("uniform_weight"), 0.0),
                  tuple((str(name), tuple(float(w) for w in weights))
                        for name, weights in (block.get("secret_weights") or {}).items()))


def _number(value: Any, default: float) -> float:
    return default if value is None else float(value)


def _optional(value: Any) -> float | None:
    return None if value is None else float(value)
