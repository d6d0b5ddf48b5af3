"""One registry of solver backends and one dispatcher, :func:`solve`, with the errors they raise.

Backends register under a lower-case name. Third parties add backends
through the ``rldp_models.solvers`` entry-point group: each entry point
loads a :class:`Backend` instance (or a zero-argument callable returning one).
"""

from __future__ import annotations

import inspect
import time
from dataclasses import dataclass
from importlib import metadata
from typing import Any, Protocol, cast

from solvers import deadline
from solvers.conic import ConicProgram, conic_from_linear_program
from solvers.model import CvxpyModel, LinearProgram, PyomoModel
from solvers.result import SolveResult, Status


class SolverError(ValueError):
    """A solver was asked for that cannot serve the request."""


class UnknownSolverError(SolverError):
    """The name is not registered."""


class SolverUnavailableError(SolverError):
    """The solver is registered but cannot run here (not installed, no licence)."""


class UnsupportedModelError(SolverError):
    """The solver cannot take this model (e.g. an LP solver given a conic model)."""


DEFAULT_SOLVER = "clarabel"
ENTRY_POINT_GROUP = "rldp_models.solvers"


@dataclass(frozen=True)
class Availability:
    """Whether a backend can run here, and if not, why not."""

    ok: bool
    reason: str = ""


class Backend(Protocol):
    """What a solver backend provides.

    ``form`` names the model representation the backend consumes:
    ``"cvxpy"`` (:class:`~solvers.model.CvxpyModel`), ``"pyomo"``
    (:class:`~solvers.model.PyomoModel`) or ``"linear_program"``
    (:class:`~solvers.model.LinearProgram`).
    """

    name: str
    form: str
    description: str

    def availability(self) -> Availability: ...

    def solve(self, model: Any, /, **options: Any) -> SolveResult: ...


class RefusingBackend(Backend, Protocol):
    """A backend that can say, before solving, that it cannot take a model of its form."""

    def refusal(self, model: Any) -> str | None:
        """Why the backend cannot take ``model`` (e.g. a cone it lacks), or ``None``."""
        ...


_BACKENDS: dict[str, Backend] = {}
_entry_points_loaded = False


def register(backend: Backend, *, replace: bool = False) -> None:
    """Add ``backend`` to the registry under ``backend.name``.

    An entry point of the ``rldp_models.solvers`` group may load a backend
    instance, a backend class, or a function returning a backend.
    """
    key = backend.name.lower()
    if key in _BACKENDS and not replace:
        raise ValueError(f"a solver named {key!r} is already registered")
    _BACKENDS[key] = backend


def _load_entry_points() -> None:
    global _entry_points_loaded
    if _entry_points_loaded:
        return
    _entry_points_loaded = True
    for entry in metadata.entry_points(group=ENTRY_POINT_GROUP):
        loaded = entry.load()
        backend = loaded() if inspect.isclass(loaded) or inspect.isfunction(loaded) else loaded
        register(cast(Backend, backend), replace=True)  # an entry point's object: trusted


def registered() -> list[str]:
    """Names of all registered backends, available here or not."""
    _load_entry_points()
    return sorted(_BACKENDS)


def available(form: str | None = None) -> list[str]:
    """Names of the backends that can run on this machine.

    Parameters
    ----------
    form : str, optional
        Only backends consuming this model form (``"cvxpy"``, ``"pyomo"``,
        ``"linear_program"``).
    """
    return [
        name
        for name in registered()
        if _BACKENDS[name].availability().ok and (form is None or _BACKENDS[name].form == form)
    ]


def backends() -> dict[str, Backend]:
    """Every registered backend by name, available here or not."""
    return {name: _BACKENDS[name] for name in registered()}


def describe() -> dict[str, Availability]:
    """Availability of every registered backend, with the reason when unavailable."""
    return {name: _BACKENDS[name].availability() for name in registered()}


PACKAGES = {
    "clarabel": ("cvxpy", "clarabel"), "scs": ("cvxpy", "scs"), "ecos": ("cvxpy", "ecos"),
    "mosek": ("cvxpy", "mosek"), "highs": ("pyomo", "highspy"), "highspy": ("highspy",),
    "clarabel-direct": ("clarabel",), "scs-direct": ("scs",),
}
"""The packages each built-in backend imports, for :func:`installed` to find without importing."""


def installed() -> dict[str, Availability]:
    """Whether each backend's packages are installed, found without importing them.

    Built-in backends are looked up with :func:`importlib.util.find_spec` on
    :data:`PACKAGES` (about a millisecond each, where :func:`describe` imports
    cvxpy and Pyomo, about 2 s); a backend registered by a third party answers its
    own :meth:`Backend.availability`. Installed is not usable: a licence (MOSEK)
    or a broken build shows only when solving (``rldp solvers --check``).
    """
    from importlib.util import find_spec

    found = {}
    for name in registered():
        packages = PACKAGES.get(name)
        if packages is None:
            found[name] = _BACKENDS[name].availability()
            continue
        missing = [package for package in packages if find_spec(package) is None]
        found[name] = Availability(not missing, f"{', '.join(missing)} not installed"
                                   if missing else "")
    return found


def get(name: str) -> Backend:
    """The backend registered as ``name``, checked to be usable here."""
    _load_entry_points()
    key = name.lower()
    if key not in _BACKENDS:
        raise UnknownSolverError(
            f"unknown solver {name!r}; available solvers: {', '.join(available())}"
        )
    backend = _BACKENDS[key]
    status = backend.availability()
    if not status.ok:
        raise SolverUnavailableError(
            f"solver {name!r} is not usable here ({status.reason}); "
            f"available solvers: {', '.join(available())}"
        )
    return backend


_FORMS = {
    "cvxpy": (CvxpyModel, "to_cvxpy"),
    "pyomo": (PyomoModel, "to_pyomo"),
    "linear_program": (LinearProgram, "to_linear_program"),
    "conic": (ConicProgram, "to_conic"),
}


def _emit(model: Any, form: str, solver_name: str) -> Any:
    """The representation of ``model`` that a backend of ``form`` consumes."""
    model_type, emitter_name = _FORMS[form]
    if isinstance(model, model_type):
        return model
    if form == "cvxpy" and _is_cvxpy_problem(model):
        return CvxpyModel(problem=model, variables={v.name(): v for v in model.variables()})
    emitter = getattr(model, emitter_name, None)
    if form == "conic" and emitter is None and _can_emit(model, "linear_program"):
        return conic_from_linear_program(_emit(model, "linear_program", solver_name))
    if emitter is None:
        suitable = [n for n in available() if _can_emit(model, _BACKENDS[n].form)]
        raise UnsupportedModelError(
            f"solver {solver_name!r} needs a {form} model, which this model cannot provide; "
            f"solvers for it: {', '.join(suitable) or 'none'}"
        )
    return emitter()


def _is_cvxpy_problem(model: Any) -> bool:
    import cvxpy

    return isinstance(model, cvxpy.Problem)


def _can_emit(model: Any, form: str) -> bool:
    """Whether ``model`` can be given to a backend of ``form``: the forms it declares
    (``solver_forms()``, e.g. a protocol program's, from its blocks), else its emitters."""
    declared = getattr(model, "solver_forms", None)
    if callable(declared):
        return form in declared()
    model_type, emitter_name = _FORMS[form]
    if isinstance(model, model_type) or hasattr(model, emitter_name):
        return True
    return form == "cvxpy" and _is_cvxpy_problem(model)


def fastest(forms: frozenset[str], preference: tuple[str, ...]) -> str:
    """The first backend of ``preference`` that is available here and consumes one of ``forms``.

    ``forms`` are what a model declares it can be emitted as (e.g.
    ``ProtocolProgram.solver_forms()``); ``preference`` is the caller's measured
    order, fastest first. Falls back to :data:`DEFAULT_SOLVER`.
    """
    _load_entry_points()
    for name in preference:
        backend = _BACKENDS.get(name)
        if backend is not None and backend.form in forms and backend.availability().ok:
            return name
    return DEFAULT_SOLVER


def solve(model: Any, solver: str = DEFAULT_SOLVER, **options: Any) -> SolveResult:
    """Solve ``model`` with the backend registered as ``solver``.

    Parameters
    ----------
    model
        A :class:`~solvers.model.CvxpyModel`, :class:`~solvers.model.PyomoModel`,
        :class:`~solvers.model.LinearProgram`, a ``cvxpy.Problem``, or any object
        with a ``to_cvxpy``/``to_pyomo``/``to_linear_program`` method.
    solver : str
        Registry name (see :func:`available`). Default ``"clarabel"``.
    **options
        Passed to the backend (tolerances, ``verbose``). ``time_limit`` (seconds of
        solving) is understood by every built-in backend but ECOS, which has none and
        ignores it: each stops there with what it has (an inaccurate iterate or
        ``iteration_limit``). Under a :func:`solvers.deadline.limited` block the seconds
        left are the default ``time_limit``, and no solve starts once it has passed.

    Returns
    -------
    SolveResult
        Timings include the time spent emitting the model form.
    """
    backend = get(solver)
    start = time.perf_counter()
    form = _emit(model, backend.form, solver)
    emit_seconds = time.perf_counter() - start
    refused = _refusal(backend, form)
    if refused is not None:
        raise UnsupportedModelError(
            f"solver {solver!r} cannot take this model: {refused}; "
            f"solvers for it: {', '.join(suitable(model, form, exclude=backend.name)) or 'none'}")
    deadline.check(f"{solver} solve")
    left = deadline.remaining()
    if left is not None and "time_limit" not in options:
        options["time_limit"] = max(left, 1e-3)
    result = backend.solve(form, **options)
    result.timings.build_seconds += emit_seconds
    if result.status in (Status.ERROR, Status.ITERATION_LIMIT):
        others = suitable(model, form, exclude=backend.name)
        said = result.log or f"{backend.name} returned {result.status.value}"
        result.log = f"{said}; solvers that also take this model: {', '.join(others) or 'none'}"
    return result


def _refusal(backend: Backend, form: Any) -> str | None:
    """The backend's reason to refuse ``form`` up front, if it declares one."""
    refusal = getattr(backend, "refusal", None)
    return cast(RefusingBackend, backend).refusal(form) if callable(refusal) else None


def suitable(model: Any, emitted: Any = None, exclude: str = "") -> list[str]:
    """Available backends that can take ``model``: its forms, and no up-front refusal.

    ``emitted`` is the model already emitted in one form; backends of that form are
    asked about it (a cvxpy model's cones), others only whether the form can be emitted.
    """
    names = []
    for name in available():
        backend = _BACKENDS[name]
        if name == exclude or not _can_emit(model, backend.form):
            continue
        same_form = emitted is not None and isinstance(emitted, _FORMS[backend.form][0])
        if same_form and _refusal(backend, emitted) is not None:
            continue
        names.append(name)
    return names
