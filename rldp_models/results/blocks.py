"""Blocks as declarations, and back: what ``rldp verify`` rebuilds.

A program's declaration lists its blocks by registered name with their
parameters. Library blocks are registered here; a third party registers its
own through the entry-point group :data:`ENTRY_POINT_GROUP`
(``rldp_models.blocks``), each entry naming a block class::

    [project.entry-points."rldp_models.blocks"]
    StrictPairPrivacy = "my_package.blocks:StrictPairPrivacy"

A block of the contract (:class:`~rldp_models.programs.contract.Block`) is
declared by its ``parameters()`` and rebuilt by ``from_parameters``. Its
``certify(protocol, program)`` then gives the verdict, and a
verdict from a plug-in's code says so (``source`` ``plugin:<distribution>``).

A set is declared and rebuilt by :mod:`rldp_models.uncertainty.declared`.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import metadata
from typing import Any


from rldp_models.errors import InputError
from rldp_models.programs.contract import Block

ENTRY_POINT_GROUP = "rldp_models.blocks"
LIBRARY_BLOCKS = {
    "NominalDistortion": "rldp_models.programs.components:NominalDistortion",
    "RobustDistortion": "rldp_models.programs.components:RobustDistortion",
    "NominalSecretPrivacy": "rldp_models.programs.components:NominalSecretPrivacy",
    "RobustSecretPrivacy": "rldp_models.programs.components:RobustSecretPrivacy",
    "ForAll": "rldp_models.programs.forall:ForAll",
}


@dataclass(frozen=True)
class RegisteredBlock:
    """A block class and where it comes from (``library`` or ``plugin:<distribution>``)."""

    name: str
    cls: type
    source: str


def _load(target: str) -> type:
    from importlib import import_module

    module, _, attribute = target.partition(":")
    return getattr(import_module(module), attribute)


def registered_blocks() -> dict[str, RegisteredBlock]:
    """Every known block by name: the library's, then the entry points' (read afresh)."""
    found = {name: RegisteredBlock(name, _load(target), "library")
             for name, target in LIBRARY_BLOCKS.items()}
    for entry in metadata.entry_points(group=ENTRY_POINT_GROUP):
        if entry.name in found:
            continue  # a plug-in cannot replace a library block
        distribution = entry.dist.name if entry.dist is not None else entry.module
        found[entry.name] = RegisteredBlock(entry.name, entry.load(), f"plugin:{distribution}")
    return found


def block_name(block: Any) -> str:
    return type(block).__name__


def block_declaration(block: Block, role: str) -> dict[str, Any]:
    """``{"block", "role", "parameters", "source"}`` of one block of a program."""
    name = block_name(block)
    known = registered_blocks().get(name)
    source = known.source if known is not None and known.cls is type(block) else "unregistered"
    return {"block": name, "role": role, "parameters": dict(block.parameters()), "source": source}


def build_block(declaration: dict[str, Any]) -> tuple[Any, str]:
    """The block a declaration names, built from its parameters, and its source.

    Raises
    ------
    InputError
        If no block of that name is registered or its parameters do not fit.
    """
    name = declaration["block"]
    known = registered_blocks().get(name)
    if known is None:
        raise InputError(f"the result declares the block {name!r}, which is not registered "
                         f"here (library blocks: {', '.join(LIBRARY_BLOCKS)}; third-party "
                         f"blocks register through the entry-point group {ENTRY_POINT_GROUP})")
    if not issubclass(known.cls, Block):
        raise InputError(f"the block {name!r} registered from {known.source} is not a block of "
                         f"the contract (rldp_models.programs.contract.Block)")
    try:
        return known.cls.from_parameters(dict(declaration["parameters"])), known.source
    except TypeError as exc:
        raise InputError(f"the parameters of block {name!r} do not fit it "
                         f"({str(exc).splitlines()[0]})") from None
