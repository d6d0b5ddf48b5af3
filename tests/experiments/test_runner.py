"""The runner: labelled, ordered tables; the four output files; the progress-bar rule.

A toy experiment (module-level task function, so process pools can run it)
draws numbers from each task's seed; its expected table is computed here
directly with numpy, independently of the runner.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rldp_models.errors import InputError
from rldp_models.experiments import runner
from rldp_models.experiments.base import Experiment, Finding, Row, Task
from rldp_models.experiments.runner import (LABEL_COLUMNS, experiment_tasks, label_rows,
                                            progress_enabled, run_experiment, run_tasks)


def toy_tasks(quick: bool) -> list[Task]:
    return [{"seed": seed, "draws": 2 if quick else 5} for seed in (11, 7, 3)]


def toy_run(task: Task) -> list[Row]:
    rng = np.random.default_rng(task["seed"])
    return [{"method": f"m{i}", "value": float(rng.normal())} for i in range(task["draws"])]


def toy_plot(table: pd.DataFrame):
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(3, 2))
    axes.plot(table["value"].to_numpy(), marker="o")
    return figure


def toy_summary(table: pd.DataFrame) -> Finding:
    return Finding.from_checks("toy finding text", {"has rows": len(table) > 0, "all negative":
                                        bool((table["value"] < 0).all())})


TOY = Experiment(id="toy", title="toy", paper="none", claim="toy claim", tasks=toy_tasks,
                 run_task=toy_run, plot=toy_plot, summarise=toy_summary)


def test_table_is_labelled_and_in_task_order(tmp_path) -> None:
    result = run_experiment(TOY, tmp_path, quick=True, executor="serial", progress=False)
    table = pd.read_csv(result.paths["csv"])
    assert list(table.columns[:3]) == list(LABEL_COLUMNS)
    expected = [np.random.default_rng(seed).normal(size=2) for seed in (11, 7, 3)]
    assert table["seed"].tolist() == [11, 11, 7, 7, 3, 3]
    assert table["task"].tolist() == [0, 0, 1, 1, 2, 2]
    assert (table["experiment"] == "toy").all()
    np.testing.assert_array_equal(table["value"], np.concatenate(expected))


def test_four_files_and_summary_verdicts(tmp_path) -> None:
    result = run_experiment(TOY, tmp_path, quick=True, executor="serial", progress=False)
    assert {p.name for p in tmp_path.iterdir()} == {"toy.csv", "toy.png", "toy.svg", "toy.md"}
    assert result.paths["png"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "<svg" in result.paths["svg"].read_text()
    summary = result.paths["md"].read_text()
    assert "toy claim" in summary and "toy finding text" in summary
    assert "| has rows | see the finding | **reproduced** |" in summary
    all_negative = bool((result.table["value"] < 0).all())
    verdict = "**reproduced**" if all_negative else "**not reproduced**"
    assert f"| all negative | see the finding | {verdict}" in summary
    assert f"- Verdicts: {2 - (not all_negative)} reproduced, {int(not all_negative)} not " \
        "reproduced, 0 not resolved at this size" in summary
    assert "3 tasks, 6 rows" in summary and "Executor: serial" in summary


def test_rerun_writes_identical_files(tmp_path) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    run_experiment(TOY, first, quick=True, executor="serial", progress=False)
    run_experiment(TOY, second, quick=True, executor="serial", progress=False)
    for name in ("toy.csv", "toy.svg", "toy.png"):
        assert (first / name).read_bytes() == (second / name).read_bytes(), name


def test_row_seed_overrides_task_seed_and_options_reach_tasks() -> None:
    tasks = experiment_tasks(TOY, quick=True, options={"data": "x.csv"})
    assert all(task["data"] == "x.csv" for task in tasks)
    table = label_rows("toy", [{"seed": 1}, {"seed": 2}],
                       [[{"method": "a", "seed": 99}], [{"method": "b"}]])
    assert table["seed"].tolist() == [99, 2]


def test_task_without_seed_is_an_input_error() -> None:
    broken = Experiment(id="broken", title="", paper="", claim="",
                        tasks=lambda quick: [{"x": 1}], run_task=toy_run, plot=toy_plot,
                        summarise=toy_summary)
    with pytest.raises(InputError, match="no 'seed'"):
        experiment_tasks(broken, quick=True)


def test_progress_bar_rule(monkeypatch) -> None:
    monkeypatch.setenv("CI", "true")
    assert progress_enabled() is False
    assert progress_enabled(True) is True
    monkeypatch.delenv("CI")
    monkeypatch.setattr("sys.stderr.isatty", lambda: False, raising=False)
    assert progress_enabled() is False


_FIRST_TASK_TABLES: dict = {}


def _available() -> list[Experiment]:
    """Registered experiments of the modules whose EXPERIMENTS are not empty yet."""
    return list(runner.experiments().values())


@pytest.mark.parametrize("experiment", _available(), ids=lambda e: e.id)
def test_every_experiment_has_a_quick_form_with_the_required_columns(
        experiment: Experiment) -> None:
    quick, full = experiment.tasks(True), experiment.tasks(False)
    assert quick and full and len(quick) <= len(full)
    assert all("seed" in task for task in quick)
    if experiment.needs_data:
        pytest.skip("reads the Adult data; covered by its own tests")
    key = (experiment.run_task, repr(quick[0]))
    if key not in _FIRST_TASK_TABLES:  # Fig. 2c and 2d share their tasks: run them once
        _FIRST_TASK_TABLES[key] = run_tasks(experiment, quick[:1], _serial(), progress=False)
    table = _FIRST_TASK_TABLES[key]
    assert len(table) > 0
    assert {"experiment", "task", "seed", "method"} <= set(table.columns)


def _serial():
    from rldp_models.executors import executor_from_spec

    return executor_from_spec("serial")


def test_cli_lists_and_rejects_bad_input(capsys, tmp_path) -> None:
    from rldp_models.cli import main

    assert main(["reproduce", "--list"]) == 0
    listed = capsys.readouterr().out
    assert all(experiment_id in listed for experiment_id in runner.experiments())
    out = str(tmp_path)
    for argv, message in ((["reproduce", "no-such-id", "--out", out], "unknown experiment"),
                          (["reproduce", "uldp-tv", "--out", out, "--executor", "mpi"],
                           "unknown executor")):
        assert main(argv) == 2
        error = capsys.readouterr().err
        assert message in error and error.count("\n") == 1


def test_cli_missing_adult_data_is_one_line(capsys, tmp_path) -> None:
    from rldp_models.cli import main

    needing = [e.id for e in runner.experiments().values() if e.needs_data]
    if not needing:
        pytest.skip("no registered experiment reads the Adult data yet")
    missing = tmp_path / "nowhere" / "adult.data"
    assert main(["reproduce", needing[0], "--out", str(tmp_path), "--quick",
                 "--data", str(missing)]) == 2
    error = capsys.readouterr().err
    assert "Adult data not found" in error and error.count("\n") == 1
    assert not any(tmp_path.glob("*.csv"))
