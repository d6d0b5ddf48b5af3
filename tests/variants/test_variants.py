"""The runnable variants of ``docs/variants`` (issue 33): each script, run as a user runs it,
writes a record whose value is the optimum of an independent plain-cvxpy model of the same
program (:mod:`tests.variants.independent`) and which ``rldp verify`` accepts from the record
alone; a record whose declared cap or stated value is wrong fails verification.

Tables: 4x4 (default run) and 5x11 (``-m slow``), seeded Poisson counts with empty cells.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from rldp_models.cli import main
from tests.variants.independent import independent_optimum, optimum, v3_support, v6_support

ROOT = Path(__file__).resolve().parents[2]
VARIANTS = ROOT / "docs" / "variants"
SCRIPTS = {"V1": "v1_pair_restricted", "V2": "v2_kl_utility", "V3": "v3_chi2_box",
           "V4": "v4_mixed_objective", "V5": "v5_output_cap", "V6": "v6_wasserstein",
           "V7": "v7_distortion_file"}
PRODUCT_FORM = {"V3": v3_support, "V6": v6_support}
"""The variants in product form and their sets' support duals (:func:`independent_optimum`)."""
TABLES = {"4x4": ((4, 4), 1.5, 3), "5x11": ((5, 11), 0.6, 5)}
"""Shape, Poisson mean and seed of each table."""
LOW, HIGH = -1e-6, 1e-5
"""The record's value relative to the optimum: within [LOW, HIGH] (issue 33)."""


def counts_of(table: str) -> np.ndarray:
    """Seeded Poisson counts with at least one empty cell and no empty secret."""
    shape, mean, seed = TABLES[table]
    counts = np.random.default_rng(seed).poisson(mean, size=shape)
    counts[counts.sum(axis=1) == 0, 0] = 1
    assert (counts == 0).any()
    return counts


def distortion_of(table: str) -> np.ndarray:
    """V7's |U| x |Y| distortion: |u - y| plus seeded noise, not a named distortion."""
    k = TABLES[table][0][1]
    noise = np.random.default_rng(11).uniform(0.0, 0.5, size=(k, k))
    return np.abs(np.subtract.outer(np.arange(k), np.arange(k))) + noise


def run_variant(variant: str, table: str, folder: Path) -> Path:
    """Run the script as a user does (``python docs/variants/<script>.py ...``)."""
    counts = folder / f"counts-{table}.csv"
    pd.DataFrame(counts_of(table), index=[f"s{i}" for i in range(TABLES[table][0][0])],
                 columns=[f"u{j}" for j in range(TABLES[table][0][1])]).to_csv(counts)
    out = folder / f"{variant}-{table}.json"
    extra = []
    if variant == "V7":
        np.savetxt(folder / "d.csv", distortion_of(table), delimiter=",")
        extra = ["--distortion", str(folder / "d.csv")]
    subprocess.run([sys.executable, str(VARIANTS / f"{SCRIPTS[variant]}.py"), "--counts",
                    str(counts), "--out", str(out), *extra], check=True, capture_output=True,
                   env={**os.environ, "PYTHONPATH": str(ROOT)})
    return out


@pytest.fixture(scope="module")
def records(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], Path]:
    """Each variant's record, written once per table on first use."""
    folder, found = tmp_path_factory.mktemp("variants"), {}

    class Records(dict):
        def __missing__(self, key: tuple[str, str]) -> Path:
            found[key] = self[key] = run_variant(*key, folder)
            return found[key]

    return Records()


CASES = [pytest.param(v, t, id=f"{v}-{t}", marks=[pytest.mark.slow] if t == "5x11" else [])
         for t in TABLES for v in SCRIPTS]


@pytest.mark.parametrize("variant, table", CASES)
def test_the_record_is_the_optimum_and_verifies(records, variant: str, table: str) -> None:
    path = records[variant, table]
    value = json.loads(path.read_text())["value"]["value"]
    counts = counts_of(table)
    expected = independent_optimum(counts, PRODUCT_FORM[variant](counts)) \
        if variant in PRODUCT_FORM else \
        optimum(counts, variant, distortion_of(table) if variant == "V7" else None)
    assert LOW <= (value - expected) / abs(expected) <= HIGH, (value, expected)
    assert main(["verify", str(path)]) == 0


def _rewritten(path: Path, change) -> Path:
    record = json.loads(path.read_text())
    change(record)
    tampered = path.with_name(f"tampered-{path.name}")
    tampered.write_text(json.dumps(record))
    return tampered


def test_a_cap_lowered_below_the_matrix_entries_fails(records, capsys) -> None:
    path = records["V5", "4x4"]
    rows = np.array(json.loads(path.read_text())["matrix"]["rows"])

    def lower_cap(record: dict) -> None:
        cap = next(b for b in record["declaration"]["blocks"] if b["block"] == "LinearConstraints")
        cap["parameters"]["bounds"] = [rows[:, -1].max() / 2 - 1e-6] * rows.shape[0]

    assert main(["verify", str(_rewritten(path, lower_cap))]) == 1
    assert "FAILS: LinearConstraints last_output_cap" in capsys.readouterr().out


@pytest.mark.parametrize("factor", [1.01, 0.99])
def test_a_mixed_objective_value_moved_by_one_percent_fails(records, capsys,
                                                            factor: float) -> None:
    def moved(record: dict) -> None:
        record["value"]["value"] *= factor
        record["details"]["objective"] = record["value"]["value"]

    assert main(["verify", str(_rewritten(records["V4", "4x4"], moved))]) == 1
    assert "certificate: FAILS" in capsys.readouterr().out


def test_the_utility_set_is_declared_with_its_block(records) -> None:
    """V2: the KL ball is the objective's own, beside the program's chi-square set."""
    declaration = json.loads(records["V2", "4x4"].read_text())["declaration"]
    objective = declaration["blocks"][0]
    assert objective["parameters"]["over"]["set"] == "kl"
    assert objective["parameters"]["over"]["radius_from"] == "alpha"
    assert declaration["uncertainty"]["set"] == "chi2"


def test_a_block_set_not_built_on_the_record_counts_is_bad_input(records, capsys) -> None:
    """The KL ball's radius is re-derived from its alpha and the counts: moved, it is refused."""
    def widened(record: dict) -> None:
        record["declaration"]["blocks"][0]["parameters"]["over"]["radius"] *= 2

    assert main(["verify", str(_rewritten(records["V2", "4x4"], widened))]) == 2
    assert capsys.readouterr().err.count("\n") == 1


ARGUMENT_PARSING = ("arguments(", "argparse.", "parser.", ".parse_args(")
"""What marks a line as argument parsing: the scripts' shared parser, or argparse's."""


def user_code_lines(path: Path) -> list[str]:
    """Non-blank, non-comment lines, without imports, docstrings and argument parsing
    (:data:`ARGUMENT_PARSING`)."""
    source = path.read_text()
    skipped = set()
    for node in ast.walk(ast.parse(source)):
        body = getattr(node, "body", None)
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            skipped.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) and \
                isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
            skipped.update(range(body[0].lineno, (body[0].end_lineno or body[0].lineno) + 1))
    lines = [line for number, line in enumerate(source.splitlines(), 1)
             if number not in skipped]
    return [line for line in lines if line.strip() and not line.strip().startswith("#")
            and not any(mark in line for mark in ARGUMENT_PARSING)]


SCRIPT_FILES = sorted(VARIANTS.glob("v[1-8]_*.py"))


@pytest.mark.parametrize("path", SCRIPT_FILES, ids=lambda p: p.name)
def test_each_script_is_at_most_20_lines_of_user_code(path: Path) -> None:
    lines = user_code_lines(path)
    assert len(lines) <= 20, "\n".join(lines)
    assert all(len(line) <= 100 for line in lines)


def test_the_line_count_skips_only_imports_docstrings_and_argument_parsing(tmp_path) -> None:
    script = tmp_path / "v9_example.py"
    script.write_text('"""Doc\nstring."""\nimport numpy as np\nfrom a import (\n    b,\n)\n\n'
                      'def program(x):\n    """Doc."""\n    # note\n    return np.sum(x)\n\n\n'
                      'def main():\n    args = arguments(__doc__)\n    print(program(args))\n'
                      'parser = argparse.ArgumentParser()\nparser.add_argument("--out")\n'
                      'args = parser.parse_args()\n')
    assert user_code_lines(script) == ["def program(x):", "    return np.sum(x)",
                                       "def main():", "    print(program(args))"]


def test_every_owned_variant_script_is_present() -> None:
    names = {path.stem for path in SCRIPT_FILES}
    assert {*SCRIPTS.values(), "v8_solvers"} <= names
