"""Blocks as declarations, and back: what ``rldp verify`` rebuilds.

A program's declaration lists its blocks by registered name with their
parameters. Library blocks are registered here; a third party registers its
own through the entry-point group :data:`ENTRY_POINT_GROUP`
(``rldp_models.blocks``), each entry naming a block class::

    [project.entry-points."rldp_models.blocks"]
    StrictPairPrivacy = "my_package.blocks:StrictPairPrivacy"

A block that is code in a file, not an installed distribution, is loaded by
path (:func:`load_plugin_file`, ``rldp verify r.json --plugins my_blocks.py``):
every block class the file defines is registered with source
``plugin:<file name>``.

A block of the contract (:class:`~rldp_models.programs.contract.Block`) is
declared by its ``parameters()`` and rebuilt by ``from_parameters``. Its
``certify(protocol, program)`` then gives the verdict, and a
verdict from a plug-in's code says so (``source`` ``plugin:<distribution>``).

A set is declared and rebuilt by :mod:`rldp_models.uncertainty.declared`: the
program's, and each set a block names itself (a parameter ``over``, at any depth
of its parameters: :data:`~rldp_models.programs.contract.SET_PARAMETER`), which
the record holds as its declaration and :func:`build_block` rebuilds around the
record's counts (its radius re-derived from its alpha where it was calibrated).
"""

from __future__ import annotations

import importlib.util
import inspect
import sys
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from types import ModuleType
from typing import Any

from rldp_models.data import Crosstab
from rldp_models.errors import InputError
from rldp_models.programs.contract import SET_PARAMETER, Block
from rldp_models.uncertainty.declared import build_set, set_declaration

ENTRY_POINT_GROUP = "rldp_models.blocks"
LIBRARY_BLOCKS = {
    "NominalDistortion": "rldp_models.programs.components:NominalDistortion",
    "RobustDistortion": "rldp_models.programs.components:RobustDistortion",
    "NominalSecretPrivacy": "rldp_models.programs.components:NominalSecretPrivacy",
    "RobustSecretPrivacy": "rldp_models.programs.components:RobustSecretPrivacy",
    "ForAll": "rldp_models.programs.forall:ForAll",
    "LinearConstraints": "rldp_models.programs.linear_constraints:LinearConstraints",
    "WeightedDistortion": "rldp_models.programs.weighted_objective:WeightedDistortion",
}

_FILE_BLOCKS: dict[str, "RegisteredBlock"] = {}
"""Blocks loaded from plug-in files in this process (:func:`load_plugin_file`)."""


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


def load_plugin_file(path: str | Path) -> list[str]:
    """Import the Python file ``path`` and register every block class it defines.

    Returns the names registered (source ``plugin:<file name>``). A plug-in cannot
    replace a library block.

    Raises
    ------
    InputError
        If the file is missing, does not import (a syntax error, an exception at
        import) or defines no block class.
    """
    file = Path(path)
    if not file.is_file():
        raise InputError(f"--plugins {path}: no such file")
    module = _module_of(file)
    classes = [cls for _, cls in inspect.getmembers(module, inspect.isclass)
               if issubclass(cls, Block) and cls.__module__ == module.__name__
               and not inspect.isabstract(cls) and cls.__name__ not in LIBRARY_BLOCKS]
    if not classes:
        raise InputError(f"--plugins {path}: defines no block class (a subclass of "
                         f"rldp_models.programs.contract.Block)")
    for cls in classes:
        _FILE_BLOCKS[cls.__name__] = RegisteredBlock(cls.__name__, cls, f"plugin:{file.name}")
    return [cls.__name__ for cls in classes]


def _module_of(file: Path) -> ModuleType:
    """The module of ``file``: the one already imported from it (a script that imported its
    blocks registers those very classes), else the file imported as ``rldp_plugin_<stem>``.

    Raises
    ------
    InputError
        If the file does not import.
    """
    resolved = file.resolve()
    for module in list(sys.modules.values()):
        origin = getattr(module, "__file__", None)
        if origin is not None and Path(origin).resolve() == resolved:
            return module
    spec = importlib.util.spec_from_file_location(f"rldp_plugin_{file.stem}", file)
    if spec is None or spec.loader is None:
        raise InputError(f"--plugins {file}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses and pickling look their module up there
    try:
        spec.loader.exec_module(module)
    except SyntaxError as exc:
        del sys.modules[spec.name]
        raise InputError(f"--plugins {file}: syntax error at line {exc.lineno}: "
                         f"{exc.msg}") from None
    except Exception as exc:  # the plug-in's own code failed: the input's fault
        del sys.modules[spec.name]
        first = str(exc).splitlines()[0] if str(exc) else ""
        raise InputError(f"--plugins {file}: importing it failed "
                         f"({type(exc).__name__}: {first})") from None
    return module


def registered_blocks() -> dict[str, RegisteredBlock]:
    """Every known block by name: the library's, the plug-in files', then the entry points'
    (read afresh)."""
    found = {name: RegisteredBlock(name, _load(target), "library")
             for name, target in LIBRARY_BLOCKS.items()}
    found.update({name: entry for name, entry in _FILE_BLOCKS.items() if name not in found})
    for entry in metadata.entry_points(group=ENTRY_POINT_GROUP):
        if entry.name in found:
            continue  # a plug-in cannot replace a library block
        distribution = entry.dist.name if entry.dist is not None else entry.module
        found[entry.name] = RegisteredBlock(entry.name, entry.load(), f"plugin:{distribution}")
    return found


def block_name(block: Any) -> str:
    return type(block).__name__


def radius_origin(uncertainty: Any) -> str:
    """How a set's radius was chosen, as its declaration records it: ``"alpha"`` (calibrated,
    re-derived by ``rldp verify``) when the set has an alpha, else ``"given"``."""
    return "alpha" if getattr(uncertainty, "alpha", None) is not None else "given"


def _sets_declared(value: Any, key: str | None = None) -> Any:
    """``value`` with every set under the key ``over`` replaced by its declaration."""
    if key == SET_PARAMETER and value is not None and not isinstance(value, dict):
        return set_declaration(value, radius_origin(value))
    if isinstance(value, dict):
        return {k: _sets_declared(v, k) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_sets_declared(v) for v in value]
    return value


def _sets_built(value: Any, crosstab: Crosstab, key: str | None = None) -> Any:
    """``value`` with every set declaration under the key ``over`` built around ``crosstab``."""
    if key == SET_PARAMETER and isinstance(value, dict):
        return build_set(value, crosstab)
    if isinstance(value, dict):
        return {k: _sets_built(v, crosstab, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_sets_built(v, crosstab) for v in value]
    return value


def block_declaration(block: Block, role: str) -> dict[str, Any]:
    """``{"block", "role", "parameters", "source"}`` of one block of a program; a set the
    block names itself is declared in its place (:mod:`rldp_models.uncertainty.declared`)."""
    name = block_name(block)
    known = registered_blocks().get(name)
    source = known.source if known is not None and known.cls is type(block) else "unregistered"
    return {"block": name, "role": role, "parameters": _sets_declared(dict(block.parameters())),
            "source": source}


def build_block(declaration: dict[str, Any], crosstab: Crosstab) -> tuple[Any, str]:
    """The block a declaration names, built from its parameters (its own sets around
    ``crosstab``), and its source.

    Raises
    ------
    InputError
        If no block of that name is registered, its parameters do not fit, or a set
        it declares is unknown or not the one the counts give.
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
        parameters = _sets_built(dict(declaration["parameters"]), crosstab)
        return known.cls.from_parameters(parameters), known.source
    except TypeError as exc:
        raise InputError(f"the parameters of block {name!r} do not fit it "
                         f"({str(exc).splitlines()[0]})") from None
