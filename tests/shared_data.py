"""Data helpers the tests import (kept out of conftest.py, whose module name is not unique)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
ADULT = SHARED / "data" / "adult" / "adult.data"


def without_warnings(err: str) -> str:
    """``err`` without ``rldp: warning:`` lines (the sparsity warning of every command that
    loads a sparse table; errors are still one line of their own)."""
    return "".join(line for line in err.splitlines(keepends=True)
                   if not line.startswith("rldp: warning:"))


def random_counts(rng: np.random.Generator, n_s: int, n_u: int, n: int) -> np.ndarray:
    """Counts of ``n`` records from a Jeffreys-random distribution (zero cells likely)."""
    return rng.multinomial(n, rng.dirichlet(np.full(n_s * n_u, 0.5))).reshape(n_s, n_u)


def rewritten_copy(path: Path, directory: Path, change) -> Path:
    """A copy of the result JSON ``path`` in ``directory`` after ``change(record)`` edits it."""
    import json

    record = json.loads(path.read_text())
    change(record)
    out = directory / path.name
    out.write_text(json.dumps(record))
    return out


def result_fields(path: Path) -> dict:
    """The producer fields of a result record (the flat round-1 layout the checks read)."""
    from rldp_models.results.files import read_record
    from rldp_models.results.migration import producer_fields
    from rldp_models.results.record import migrate

    return producer_fields(migrate(read_record(path)))


def rewritten_fields_copy(path: Path, directory: Path, change) -> Path:
    """A round-1-layout copy of the record ``path`` after ``change(fields)`` edits its fields."""
    import json

    fields = result_fields(path)
    change(fields)
    out = directory / path.name
    out.write_text(json.dumps(fields))
    return out


def quick_tables(experiments, out: Path) -> dict:
    """Run every experiment's quick form serially into ``out``; its CSV read back, by id.

    Also asserts that the CSV, PNG, SVG and summary were written and are non-empty.
    """
    import pandas as pd

    from rldp_models.experiments.runner import run_experiment

    read = {}
    for experiment in experiments:
        result = run_experiment(experiment, out, quick=True, executor="serial", progress=False)
        for suffix in ("csv", "png", "svg", "md"):
            assert result.paths[suffix].stat().st_size > 0
        read[experiment.id] = pd.read_csv(result.paths["csv"])
    return read
