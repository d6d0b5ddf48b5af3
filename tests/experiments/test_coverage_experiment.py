"""The ``coverage`` reproduction: tasks, one block, the summary and the figure."""

from __future__ import annotations

from rldp_models.experiments.coverage import EXPERIMENTS, plot_coverage, run_task, summarise
from rldp_models.experiments.runner import label_rows

EXPERIMENT = EXPERIMENTS[0]


def test_tasks_cover_every_setting_with_distinct_seeds() -> None:
    quick = EXPERIMENT.tasks(True)
    settings = {task["setting"] for task in quick}
    assert len(settings) == 5
    seeds = {(task["setting"], task["seed"]) for task in quick}
    assert len({seed for _, seed in seeds}) == len(settings)  # one seed per setting
    assert all(task["draws"] > 0 for task in quick)


def test_a_jeffreys_block_counts_covered_draws_per_set() -> None:
    task = next(t for t in EXPERIMENT.tasks(True) if t["setting"] == "3x3 Jeffreys")
    rows = run_task(task)
    assert {row["set"] for row in rows} >= {"chi2", "kl", "tv", "box"}
    by_set = {row["set"]: row["covered"] for row in rows}
    assert 0 < by_set["chi2"] <= by_set["tv"] <= task["draws"]
    assert rows == run_task(task)  # deterministic in the task


def test_summary_and_plot_from_the_raw_table(tmp_path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    tasks = [t for t in EXPERIMENT.tasks(True) if t["pair"] is None][:2]
    table = label_rows(EXPERIMENT.id, tasks, [run_task(t) for t in tasks])
    finding = summarise(table)
    assert "3x3 Jeffreys" in finding.text
    assert finding.checks["tv and box cover at least as often as chi2 (they contain it)"]
    figure = plot_coverage(table)
    figure.savefig(tmp_path / "coverage.png")
    assert (tmp_path / "coverage.png").stat().st_size > 0
