"""Regenerate the figure gallery: images, `findings.json` and `docs/gallery.md`.

Usage (from the repository root)::

    python docs/gallery/build_gallery.py                  # every experiment, quick forms
    python docs/gallery/build_gallery.py uldp-tv          # only some, keep the others
    python docs/gallery/build_gallery.py --page-only      # rewrite gallery.md only
    python docs/gallery/build_gallery.py --from-csv ID    # re-judge and redraw a committed CSV

Each experiment runs through :func:`rldp_models.experiments.runner.run_experiment`
(quick form by default, ``--full`` for the paper's sizes; the gallery commits
full forms) into a scratch directory; its PNG, SVG, CSV and summary
(``<id>-summary.txt``, the runner's Markdown under a name mkdocs does not take
for a page) are copied here, the CSV gzipped (``<id>.csv.gz``), and its finding
(text, claims with verdicts, counts) is stored in ``findings.json``. The page
opens with the table of every figure (claims reproduced / not reproduced / not
resolved, time) and lists every
registered experiment in registry order, so one not run yet appears with its
command and without a figure, and ``mkdocs build --strict`` never meets a
missing image.
"""

from __future__ import annotations

import argparse
import gzip
import json
import shutil
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

GALLERY = Path(__file__).resolve().parent
PAGE = GALLERY.parent / "gallery.md"
FINDINGS = GALLERY / "findings.json"


def main(argv: list[str] | None = None) -> int:
    from rldp_models.cli.reproduce import data_path
    from rldp_models.experiments import runner

    args = _parser().parse_args(argv)
    data = data_path(args.data)
    experiments = runner.experiments()
    findings = json.loads(FINDINGS.read_text()) if FINDINGS.exists() else {}
    chosen = [] if args.page_only else (args.ids or list(experiments))
    if args.from_csv:
        for experiment_id in chosen:
            findings[experiment_id] = rejudge(runner.get(experiment_id),
                                              findings.get(experiment_id, {}))
        chosen = []
    failed = False
    with tempfile.TemporaryDirectory() as scratch:
        done: set[str] = set()
        for experiment_id in chosen:
            if experiment_id in done:  # its table came from an experiment with the same tasks
                continue
            experiment = runner.get(experiment_id)
            options = {"data": str(data)} if experiment.needs_data else None
            if experiment.needs_data and not data.is_file():
                print(f"skipping {experiment_id}: no Adult data at {data}", file=sys.stderr)
                continue
            try:
                result = runner.run_experiment(experiment, scratch, quick=not args.full,
                                               executor=args.executor, workers=args.workers,
                                               options=options)
            except Exception as exc:  # report and go on: one broken figure keeps the rest
                print(f"{experiment_id}: ERROR {' '.join(str(exc).split())}", file=sys.stderr)
                failed = True
                continue
            shared = shared_results(result, [runner.get(i) for i in chosen], not args.full,
                                    options, scratch)
            for produced in [result, *shared]:
                experiment_id = produced.experiment.id
                for suffix in ("png", "svg"):
                    shutil.copyfile(produced.paths[suffix], GALLERY / f"{experiment_id}.{suffix}")
                store_csv(produced.paths["csv"], experiment_id)
                shutil.copyfile(produced.paths["md"], GALLERY / f"{experiment_id}-summary.txt")
                findings[experiment_id] = finding_record(produced, args.full)
                done.add(experiment_id)
                print(f"{experiment_id}: {findings[experiment_id]['counts']}")
    FINDINGS.write_text(json.dumps(findings, indent=1) + "\n")
    PAGE.write_text(gallery_page(experiments, findings), encoding="utf-8")
    return 1 if failed else 0


def store_csv(path: Path, experiment_id: str) -> None:
    """Keep the run's CSV as ``<id>.csv.gz``: a quarter of the size, read by pandas as it is;
    no time stamp in the header, so the same table gives the same bytes."""
    with open(path, "rb") as source, open(GALLERY / f"{experiment_id}.csv.gz", "wb") as out, \
            gzip.GzipFile(fileobj=out, mode="wb", compresslevel=9, mtime=0) as packed:
        shutil.copyfileobj(source, packed)


def shared_results(result, experiments: list, quick: bool, options: dict | None,
                   scratch: str) -> list:
    """Results of the other ``experiments`` whose tasks and task runner are ``result``'s
    (e.g. robust-opt Figs. 2c and 2d plot two columns of the same runs): judged and drawn
    from ``result``'s table instead of running the same tasks again."""
    from rldp_models.experiments.base import RunResult
    from rldp_models.experiments.runner import experiment_tasks, write_outputs

    source = result.experiment
    tasks = experiment_tasks(source, quick, options)
    shared = []
    for experiment in experiments:
        if experiment.id == source.id or experiment.run_task is not source.run_task \
                or experiment_tasks(experiment, quick, options) != tasks:
            continue
        table = result.table.assign(experiment=experiment.id)
        partial = RunResult(experiment, table, experiment.summarise(table), result.seconds,
                            _Label(f"{result.executor.label}, the runs of {source.id}"),
                            quick, {})
        shared.append(replace(partial, paths=write_outputs(partial, Path(scratch))))
    return shared


def rejudge(experiment, record: dict) -> dict:
    """Redraw and re-judge ``experiment`` from its committed CSV (the run's time and form
    are kept from ``record``)."""
    import pandas as pd

    from rldp_models.experiments.base import RunResult
    from rldp_models.experiments.runner import save_figure, summary_markdown

    table = pd.read_csv(GALLERY / f"{experiment.id}.csv.gz")
    result = RunResult(experiment, table, experiment.summarise(table),
                       record.get("seconds", 0.0), _Label(record.get("executor", "")),
                       record.get("form") != "full", {})
    save_figure(result, GALLERY / f"{experiment.id}.png", GALLERY / f"{experiment.id}.svg")
    (GALLERY / f"{experiment.id}-summary.txt").write_text(summary_markdown(result),
                                                          encoding="utf-8")
    return finding_record(result, record.get("form") == "full")


class _Label:
    """An executor stand-in carrying only the label of the run that wrote the CSV."""

    def __init__(self, label: str) -> None:
        self.label = label


def finding_record(result, full: bool) -> dict:
    """What ``findings.json`` keeps of a run."""
    finding = result.finding
    return {"text": finding.text, "counts": finding.counts,
            "claims": [{"claim": c.claim, "measured": c.measured, "verdict": c.verdict.value,
                        "reason": c.reason} for c in finding.claims],
            "form": "full" if full else "quick", "seconds": round(result.seconds, 1),
            "executor": result.executor.label}


VERDICTS = ("reproduced", "not reproduced", "not resolved at this size")


def gallery_page(experiments: dict, findings: dict) -> str:
    """The Markdown of ``docs/gallery.md``."""
    lines = [
        "# Figure gallery",
        "",
        "Every registered experiment (`rldp reproduce --list`): the paper's figure number and "
        "claim, the figure as the toolkit computes it, and each of the paper's statements with "
        "what was measured and a verdict: **reproduced**, **not reproduced** (with the numbers "
        "and the reason) or **not resolved at this size** (the sample cannot decide it). "
        "A statistical claim is resolved only when its 95% interval excludes the other side; a "
        "statement about every instance is refuted by one counterexample and confirmed only "
        "over at least the paper's number of instances. The figures are computed by "
        "`python docs/gallery/build_gallery.py --full ID` (the paper's sizes); each has its "
        "CSV and the run's summary beside it. Times are wall times of the tasks on a 2-core "
        "machine shared by eight engineers (load 7-19, two workers under nice), so they "
        "measure the machine as much as the code; a figure not run in full gives its measured "
        "CPU time per task instead.",
        "",
        *summary_table(experiments, findings),
        "",
    ]
    for experiment_id, experiment in experiments.items():
        lines += _section(experiment, findings.get(experiment_id),
                          (GALLERY / f"{experiment_id}.png").exists())
    return "\n".join(lines)


def summary_table(experiments: dict, findings: dict) -> list[str]:
    """One row per experiment: figure, form, claims per verdict, time; then the totals."""
    lines = ["| experiment | paper, figure | form | reproduced | not reproduced | "
             "not resolved | time |", "|---|---|---|---|---|---|---|"]
    totals = dict.fromkeys(VERDICTS, 0)
    for experiment_id, experiment in experiments.items():
        finding = findings.get(experiment_id)
        if finding is None or "counts" not in finding:
            cost = f" (~{finding['cpu_seconds']:,} CPU s)" if finding and "cpu_seconds" in finding \
                else ""
            lines.append(f"| [{experiment_id}](#{experiment_id}) | {_md(experiment.paper)} | "
                         f"not run{cost} | | | | |")
            continue
        counts = finding["counts"]
        for verdict in VERDICTS:
            totals[verdict] += counts[verdict]
        lines.append(f"| [{experiment_id}](#{experiment_id}) | {_md(experiment.paper)} | "
                     f"{finding['form']} | " + " | ".join(str(counts[v]) for v in VERDICTS)
                     + f" | {finding['seconds']} s |")
    lines.append("| **all** | | | " + " | ".join(f"**{totals[v]}**" for v in VERDICTS) + " | |")
    return lines


def _section(experiment, finding: dict | None, has_image: bool) -> list[str]:
    data = " --data PATH/adult.data" if experiment.needs_data else ""
    lines = [f"## {experiment.id}", "", f"**{_md(experiment.title)}** — {experiment.paper}", "",
             f"*Paper's claim.* {_md(experiment.claim)}", ""]
    if has_image and finding is not None and "claims" in finding:
        lines += [f"![{experiment.id}](gallery/{experiment.id}.png)", "",
                  f"[SVG](gallery/{experiment.id}.svg) · [CSV](gallery/{experiment.id}.csv.gz) · "
                  f"[summary](gallery/{experiment.id}-summary.txt) · {finding['form']} form, "
                  f"{finding['seconds']} s ({finding['executor']})", "",
                  f"*Finding.* {_md(finding['text'])}", "",
                  "| paper's claim | measured | verdict |", "|---|---|---|",
                  *[f"| {_md(c['claim'])} | {_md(c['measured']) or 'see the finding'} | "
                    f"**{c['verdict']}**{': ' + _md(c['reason']) if c['reason'] else ''} |"
                    for c in finding["claims"]], ""]
    else:
        cost = (f" Measured cost: {_md(finding['cost'])}." if finding and "cost" in finding
                else "")
        lines += ["*Full form not run yet:* "
                  f"`python docs/gallery/build_gallery.py --full {experiment.id}`.{cost}", ""]
    lines += ["```bash", f"rldp reproduce {experiment.id} --out results{data}          "
              "# paper's sizes", f"rldp reproduce {experiment.id} --out results --quick{data}  "
              "# CI form", "```", ""]
    return lines


def _md(text: str) -> str:
    """``text`` with Markdown's emphasis and table characters escaped (``eps*``, ``|X|``)."""
    return text.replace("*", r"\*").replace("_", r"\_").replace("|", r"\|")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ids", nargs="*", help="experiment ids (default: all)")
    parser.add_argument("--full", action="store_true", help="the paper's sizes")
    parser.add_argument("--page-only", action="store_true", help="only rewrite gallery.md")
    parser.add_argument("--from-csv", action="store_true",
                        help="re-judge and redraw the committed CSVs of IDS without rerunning")
    parser.add_argument("--executor", default="joblib")
    parser.add_argument("--workers", type=int)
    parser.add_argument("--data", help="Adult data file for rldp-fig10 (default as in "
                                       "rldp reproduce)")
    return parser


if __name__ == "__main__":
    raise SystemExit(main())
