"""One Python call per ``rldp`` command: :func:`solve`, :func:`verify`, :func:`compare`,
:func:`coverage`, :func:`release` (and :func:`~rldp_models.api.solver_comparison.compare_solvers`).

Each returns an outcome of :mod:`rldp_models.api.outcomes` (``summary()``, notebook
display, ``to_frame()``); each command of :mod:`rldp_models.cli` is a thin wrapper
that parses its options, calls the function and prints the summary. Data is given
as a :class:`~rldp_models.data.Crosstab`, a pandas DataFrame (records with
``sensitive=`` and ``public=``, else a table of counts such as ``pd.crosstab``) or
a path (a records CSV with ``sensitive=``/``public=``, else a counts CSV); see
:func:`crosstab_of`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Sequence, Union

from rldp_models.api.outcomes import Protocol, Released, Solved, Table, Verification
from rldp_models.errors import InputError

if TYPE_CHECKING:
    import pandas as pd

    from rldp_models.data import Crosstab
    from rldp_models.experiments.curve import Curve
    from rldp_models.programs import ProtocolProgram
    from rldp_models.results.certified import CertifiedResult
    from rldp_models.uncertainty.base import UncertaintySet

Data = Union["Crosstab", "pd.DataFrame", str, Path]
ResultLike = Union["CertifiedResult", Protocol, str, Path]


class NoProtocol(RuntimeError):
    """The solver returned no protocol (it gave up: every preset is feasible).

    Attributes
    ----------
    status : str
        The solver's status.
    log : str
        The solver's last message.
    """

    def __init__(self, message: str, status: str, log: str) -> None:
        super().__init__(message)
        self.status, self.log = status, log


def crosstab_of(data: Data, sensitive: str | None = None, public: str | None = None,
                weights: str | None = None) -> Crosstab:
    """The crosstab ``data`` describes (module docstring), with at least two secret values.

    Raises
    ------
    InputError
        Unreadable or malformed data, or a table with a single S value.
    """
    import pandas as pd

    from rldp_models.data import Crosstab

    records = sensitive is not None or public is not None
    if records and not (sensitive and public):
        raise InputError("records need both sensitive= and public= columns")
    if weights is not None and not isinstance(data, pd.DataFrame):
        raise InputError("weights= goes with a DataFrame of records")
    if isinstance(data, Crosstab):
        if records:
            raise InputError("sensitive= and public= go with records, not a Crosstab")
        crosstab = data
    elif isinstance(data, pd.DataFrame):
        crosstab = Crosstab.from_frame(data, str(sensitive), str(public), weights) if records \
            else Crosstab.from_crosstab(data)
    elif isinstance(data, (str, Path)):
        crosstab = Crosstab.from_records(data, str(sensitive), str(public)) if records \
            else Crosstab.from_csv(data)
    else:
        raise InputError(f"data must be a Crosstab, a DataFrame or a path, got "
                         f"{type(data).__name__}")
    if crosstab.shape[0] < 2:
        raise InputError(f"the table has a single secret value ({crosstab.s_labels[0]!r}): "
                         "with one value of S there is nothing to protect; "
                         "give data with at least two S values (rows)")
    return crosstab


@dataclass(frozen=True)
class ProgramSpec:
    """A preset program as ``rldp solve`` names it (:func:`rldp_models.programs.preset`).

    ``radius_from="bootstrap"`` calibrates the set's radius by a parametric
    bootstrap (``bootstrap_draws``, ``bootstrap_seed``;
    :func:`rldp_models.uncertainty.calibration.calibrated_set`), else the set's own
    alpha calibration or the given ``radius``.
    """

    problem: str
    eps: float
    alpha: float = 0.05
    distortion: str = "squared"
    uncertainty: str = "chi2"
    radius: float | None = None
    lam: float | None = None
    order: float | None = None
    radius_from: str = "asymptotic"
    bootstrap_draws: int | None = None
    bootstrap_seed: int | None = None

    def uncertainty_set(self, crosstab: Crosstab) -> UncertaintySet:
        """The set around ``crosstab``; a routing note (e.g. ``power`` at lambda 1 is
        chi-square) is printed."""
        from rldp_models.uncertainty.calibration import (BOOTSTRAP_DRAWS, BOOTSTRAP_SEED,
                                                         calibrated_set)
        from rldp_models.uncertainty.named import named_set, routing_note

        family = {"lam": self.lam, "order": self.order}
        note = routing_note(self.uncertainty, **family)
        if note is not None:
            print(note)
        if self.radius_from == "bootstrap":
            if self.radius is not None:
                raise InputError("give either --radius or --radius-from bootstrap, not both")
            if any(value is not None for value in family.values()):
                raise InputError(f"--radius-from bootstrap has no statistic for --uncertainty "
                                 f"{self.uncertainty}")
            draws = BOOTSTRAP_DRAWS if self.bootstrap_draws is None else self.bootstrap_draws
            seed = BOOTSTRAP_SEED if self.bootstrap_seed is None else self.bootstrap_seed
            return calibrated_set(self.uncertainty, crosstab, self.alpha, draws, seed)
        return named_set(self.uncertainty, crosstab, self.alpha, self.radius, **family)

    def build(self, crosstab: Crosstab) -> ProtocolProgram:
        """A fresh program over ``crosstab``."""
        from rldp_models.problem_kinds import PRESETS
        from rldp_models.programs import preset

        problem = self.problem.upper()
        if problem not in PRESETS:
            raise InputError(f"unknown program {self.problem!r}; one of {', '.join(PRESETS)}")
        return preset(problem, crosstab, self.eps, self.alpha,
                      uncertainty=self.uncertainty_set(crosstab), distortion=self.distortion)

    @property
    def radius_source(self) -> str:
        """How the set's radius was chosen, as the declaration records it."""
        if self.radius_from == "bootstrap":
            return "bootstrap"
        return "--radius" if self.radius is not None else "alpha"


def solve(problem: str, data: Data, *, eps: float, alpha: float = 0.05,
          distortion: str = "squared", uncertainty: str = "chi2", radius: float | None = None,
          lam: float | None = None, order: float | None = None,
          radius_from: str = "asymptotic", bootstrap_draws: int | None = None,
          bootstrap_seed: int | None = None, solver: str | None = None,
          sensitive: str | None = None, public: str | None = None) -> Solved:
    """Solve NUNP, NURP, RUNP or RURP on ``data`` (``rldp solve``).

    Returns
    -------
    Solved
        The certified protocol (``to_frame()``, ``guarantees()``, ``write(path)``)
        and the solve's status, objective, checks and whole time (wall and CPU).

    Raises
    ------
    NoProtocol
        The solver gave up (``rldp solve`` exits 3).
    InputError
        Bad data or options.
    """
    spec = ProgramSpec(problem, eps, alpha, distortion, uncertainty, radius, lam, order,
                       radius_from, bootstrap_draws, bootstrap_seed)
    return solve_spec(spec, crosstab_of(data, sensitive, public), solver)


def solve_spec(spec: ProgramSpec, crosstab: Crosstab, solver: str | None = None) -> Solved:
    """:func:`solve` of a :class:`ProgramSpec` over a crosstab; the time is the whole solve."""
    import solvers
    from rldp_models.programs.backend_choice import default_solver
    from rldp_models.progress import note
    from rldp_models.results.program_result import solution_result

    if solver is not None:
        solvers.get(solver)  # fail fast on an unknown or unavailable solver
    wall, cpu = time.perf_counter(), time.process_time()
    program = spec.build(crosstab)
    solver = solver or default_solver(program)
    note("step", f"solve, exact check and repair ({solver})")
    solution = program.solve(solver=solver)
    if solution.protocol is None:
        raise NoProtocol(f"{spec.problem.upper()}: solver {solver} returned "
                         f"{solution.status.value}", solution.status.value, solution.result.log)
    note("step", "optimality certificate")
    note("iteration", "")
    result = solution_result(solution, spec.radius_source)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    outputs = list(result.outputs)
    assert solution.objective is not None  # a protocol was returned
    return Solved(result, status=solution.status.value, objective=float(solution.objective),
                  solver=solver, wall_seconds=wall, cpu_seconds=cpu,
                  solver_seconds=solution.result.timings.total_seconds,
                  checks=tuple(c.summary(crosstab.s_labels, outputs) for c in solution.checks),
                  repair=None if solution.repair is None else
                  f"{repair_description(solution.repair)}; objective cost "
                  f"{solution.repair.cost:.3g}")


def repair_description(repair: Any) -> str:
    """What the repair of a solved program did, in words (:class:`~rldp_models.finish.Repair`)."""
    if repair.method == "fallback":
        return "replaced by the best protocol that ignores its input (eps = 0)"
    toward = {"uniform": "the uniform protocol",
              "tightened": "the program's solution at eps (1 - 1e-4)",
              "margin": "the program's solution with its conditional bounds kept 1e-10 inside",
              "per secret": "the uniform protocol and the reference programs' solutions, "
                            "each secret's rows at weights of their own"}.get(
        str(repair.reference), str(repair.reference))
    then = f", then with the uniform protocol, weight {repair.uniform_weight:.3g}" \
        if repair.uniform_weight else ""
    largest = "largest weight" if repair.secret_weights else "weight"
    return f"mixed with {toward}, {largest} {repair.weight:.3g}{then}"


def verify(result: ResultLike | dict, data: Data | None = None, *,
           sensitive: str | None = None, public: str | None = None) -> Verification:
    """Both verdicts of ``rldp verify`` on a record: the guarantee and the certificate.

    ``result`` is a record file, a record (dict) or a result; ``data`` the counts
    to check against (default: those the record embeds). The checks are
    :func:`rldp_models.certificates.verification.verify`'s.

    Raises
    ------
    InputError
        A malformed record, counts needed and absent, or counts other than the
        record's (digests differ).
    """
    from rldp_models.certificates.verification import verify as verify_record
    from rldp_models.results.counts import counts_digest, embedded_crosstab, recorded_digest
    from rldp_models.results.record import migrate

    record = migrate(_record(result))
    given = data is not None
    crosstab = crosstab_of(data, sensitive, public) if data is not None else None
    if crosstab is None and record.get("result_type") != "mechanism":
        crosstab = embedded_crosstab(record)
    digest = counts_digest(crosstab) if crosstab is not None else None
    recorded = recorded_digest(record)
    if digest is not None and recorded is not None and recorded != digest:
        raise InputError(f"the counts given (digest {digest}) are not the ones the result was "
                         f"made from (digest {recorded})")
    return Verification(verify_record(record, crosstab), digest, given)


def _record(result: ResultLike | dict) -> dict:
    """The JSON record of ``result``; a relative PolyOpt proof is resolved beside its file."""
    from rldp_models.results.certified import CertifiedResult
    from rldp_models.results.files import read_record
    from rldp_models.results.record import to_record

    if isinstance(result, Protocol):
        return to_record(result.result)
    if isinstance(result, CertifiedResult):
        return to_record(result)
    if isinstance(result, dict):
        return result
    record = read_record(result)
    certificate = record.get("certificate")
    proof = certificate.get("pricing_proof") if isinstance(certificate, dict) else None
    if isinstance(certificate, dict) and isinstance(proof, str) and not Path(proof).is_absolute():
        certificate["pricing_proof"] = str(Path(result).parent / proof)
    return record


def compare(results: Mapping[str, ResultLike] | Sequence[str | Path], data: Data, *,
            distortion: str = "hamming", alpha: float = 0.05, sensitive: str | None = None,
            public: str | None = None) -> Comparison:
    """Results side by side on one table of counts (``rldp compare``;
    :func:`rldp_models.disclosure.comparison.compare` gives the measures).

    ``results`` maps names to results (or record files); a list of files is
    named by their stems. The outcome's ``designed_elsewhere`` lists the results
    designed on other counts (their level over these counts' F is measured, not
    the one their guarantee certifies).
    """
    from rldp_models.disclosure.comparison import compare as measure
    from rldp_models.disclosure.comparison import format_table
    from rldp_models.disclosure.channel import load_result
    from rldp_models.results.counts import counts_digest

    crosstab = crosstab_of(data, sensitive, public)
    named = dict(results) if isinstance(results, Mapping) else dict(
        zip(file_names([str(p) for p in results]), results))
    loaded: dict[str, CertifiedResult] = {}
    elsewhere = []
    digest = counts_digest(crosstab)
    for name, given in named.items():
        if isinstance(given, Protocol):
            loaded[name], design = given.result, None
        elif isinstance(given, (str, Path)):
            loaded[name], design = load_result(given)
        else:
            loaded[name], design = given, None
        if design is not None and design != digest:
            elsewhere.append(name)
    table = measure(loaded, crosstab, distortion, alpha)
    title = (f"n = {crosstab.n}, |S| x |U| = {crosstab.shape[0]} x {crosstab.shape[1]}, "
             f"distortion {distortion}, alpha = {alpha:g}")
    return Comparison(table, title, format_table(table), tuple(elsewhere))


@dataclass(frozen=True, repr=False)
class Comparison(Table):
    """:func:`compare`'s table, and the results designed on other counts."""

    designed_elsewhere: tuple[str, ...] = ()

    def plot(self, path: str | Path) -> None:
        """The comparison as a PNG: worst-case expected distortion (what the programs minimise)
        against the certified eps over F (:func:`rldp_models.disclosure.comparison.plot`)."""
        from rldp_models.disclosure.comparison import plot

        plot(self.table, path)


def file_names(paths: Sequence[str]) -> list[str]:
    """Each file's stem, or its path where stems repeat."""
    stems = [Path(p).stem for p in paths]
    return [stem if stems.count(stem) == 1 else path for stem, path in zip(stems, paths)]


def coverage(data: Data, *, alpha: float | Sequence[float] = 0.05,
             uncertainty: str | Sequence[str] = ("chi2", "kl", "tv", "box"),
             draws: int = 10_000, seed: int = 0,
             reference: str | Sequence[str] = ("phat", "dirichlet"),
             n: int | Sequence[int] | None = None, radius_from: str = "asymptotic",
             inner_draws: int = 500, confidence: float = 0.95, executor: str = "serial",
             workers: int | None = None, sensitive: str | None = None,
             public: str | None = None) -> Table:
    """How often each uncertainty set holds the truth on this table (``rldp coverage``;
    :func:`rldp_models.uncertainty.coverage.coverage_study`)."""
    from rldp_models.executors import executor_from_spec
    from rldp_models.uncertainty.coverage import coverage_study

    crosstab = crosstab_of(data, sensitive, public)
    if not 0 < confidence < 1:
        raise InputError(f"confidence must lie in (0, 1), got {confidence}")
    table = coverage_study(crosstab.counts, _listed(uncertainty), list(_listed(alpha)), draws,
                           seed, list(_listed(reference)),
                           list(_listed(n)) if n is not None else None, radius_from,
                           inner_draws, executor_from_spec(executor, workers), confidence)
    return Table(table, "", coverage_text(table, confidence))


def curve(data: Data, eps: Sequence[float], *, alpha: float = 0.05,
          methods: Sequence[str] | None = None, distortion: str = "hamming",
          executor: str = "serial", workers: int | None = None, seed: int = 0,
          progress: bool = False, sensitive: str | None = None,
          public: str | None = None) -> "Curve":
    """The privacy-utility curve of the table (``rldp curve``;
    :func:`rldp_models.experiments.curve.curve`): each program's and protocol's objective
    against ``eps``, with the chi-square set's coverage at ``alpha``."""
    from rldp_models.executors import executor_from_spec
    from rldp_models.experiments.curve import PROGRAMS, PROTOCOLS
    from rldp_models.experiments.curve import curve as curve_of

    return curve_of(crosstab_of(data, sensitive, public), eps, alpha,
                    list(methods) if methods is not None else PROGRAMS + PROTOCOLS, distortion,
                    executor_from_spec(executor, workers), seed=seed, progress=progress)


def _listed(value: Any) -> list:
    return list(value) if isinstance(value, (list, tuple)) else [value]


def coverage_text(table: "pd.DataFrame", confidence: float) -> str:
    """The coverage table as aligned text, one line per set, n, reference and alpha."""
    header = (f"{'set':5s} {'n':>7s} {'reference':10s} {'radius':10s} {'alpha':>6s} "
              f"{'coverage':>8s}  {100 * confidence:.0f}% Clopper-Pearson  {'draws':>7s}")
    lines = [header]
    for row in table.itertuples():
        lines.append(f"{row.set:5s} {row.n:7d} {row.reference:10s} {row.radius_from:10s} "
                     f"{row.alpha:6.3g} {row.coverage:8.4f}  [{row.low:.4f}, {row.high:.4f}]"
                     f"{'':6s}{row.draws:7d}")
    return "\n".join(lines)


def release(result: ResultLike, records: "pd.DataFrame | str | Path", *, sensitive: str,
            public: str, keep: Sequence[str] = (), seed: int | None = None,
            out: str | Path | None = None, check: bool = True) -> Released:
    """Privatise records with a certified result, drawing every value exactly (``rldp release``).

    ``records`` is a DataFrame (released in memory: ``to_frame()``) or a CSV file,
    streamed into ``out``. A result file is re-checked first (its guarantee, from
    the record and its embedded counts, as ``rldp verify`` does) unless
    ``check=False``; a result object was checked exactly when it was made.
    Warnings (:class:`~rldp_models.disclosure.records.ReleaseWarning`) are issued
    with :mod:`warnings`.

    Raises
    ------
    rldp_models.disclosure.channel.GuaranteeNotVerified
        The re-check failed: nothing was released.
    InputError
        Bad records (uncovered ``(s, u)``, missing columns) or options.
    """
    import pandas as pd

    from rldp_models.disclosure.channel import load_result, verified_result
    from rldp_models.disclosure.records import release_csv, release_frame, result_digest

    if not isinstance(records, pd.DataFrame) and out is None:
        raise InputError("releasing a records file needs out= (the released CSV)")
    if isinstance(records, pd.DataFrame) and out is not None:
        raise InputError("out= goes with a records file; a DataFrame is released in memory")
    digest, checked, drawn_with, name = None, "", None, ""
    if isinstance(result, (str, Path)):
        drawn_with, name = result_digest(result), Path(result).name
        if check:
            certified, digest, checked = verified_result(result)
        else:
            certified, digest = load_result(result)
    else:
        certified = result.result if isinstance(result, Protocol) else result
        if not certified.holds:
            raise InputError("the result's guarantee does not hold; it cannot be used")
    if isinstance(records, pd.DataFrame):
        frame = release_frame(certified, records, sensitive, public, keep, seed)
        return Released(len(frame), seed is not None, certified.declaration.name, frame=frame,
                        checked=checked)
    summary = release_csv(certified, records, sensitive, public, str(out), keep, seed, digest,
                          result_digest=drawn_with, result_name=name)
    return Released(summary.records, summary.seeded, certified.declaration.name,
                    out=summary.out, checked=checked)
