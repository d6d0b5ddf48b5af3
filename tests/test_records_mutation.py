"""Nothing a record claims goes unchecked (issue 35, item 1).

Records of every producer (``rldp solve`` NUNP/NURP/RUNP/RURP, every ``rldp protocol``,
closed-form and cone-LP mechanisms, PolyOpt with a short time limit) are written once;
then each leaf is edited (:mod:`tests.record_mutation`: numbers nudged by a relative
1e-3 both ways, integers by one, booleans flipped, labels permuted, other strings
renamed, list entries deleted), the record re-sealed (its counts digest recomputed as
the writer does) and ``rldp verify`` run in this process on it.

Whether the edited claim is still true is decided per leaf, independently of verify, by
the rule ``docs/records.md`` gives its pattern (``any``: every edit is false; ``lower``:
a bound from above, raising it states a weaker claim that still holds; ``raise``: the
mirror; ``proof``: a witness, which an edit may leave a valid witness, so only a
completed check is required; informational: not a claim, verify must pass). A leaf
whose pattern neither table lists fails the test.

The default form samples a few producers and leaves (about a minute of CPU); the
``slow`` form edits up to three leaves of every pattern of every producer.
"""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import numpy as np
import pytest

from tests.record_mutation import (
    Mutation,
    classify,
    documented_patterns,
    get,
    leaves,
    mutated,
    mutations_of,
    nudged,
    pattern_of,
    representatives,
    verify_exit,
)
from rldp_models.certificates.claims import VALUE_TOLERANCE
from tests.test_records_verify_property import run_cli


TABLE = "s,1,2,3\nx,10,6,5\ny,5,8,7\nz,6,5,9\n"
JOINT = "s,a,b,c\nx,10,5,3\ny,4,8,1\n"
PRIOR = "x,p\na,0.5\nb,0.3\nc,0.2\n"

PRODUCERS: dict[str, list[str]] = {
    **{f"solve-{p}": ["solve", p, "--counts", "{table}", "--eps", "1"]
       for p in ("NUNP", "NURP", "RUNP", "RURP")},
    **{f"protocol-{p}": ["protocol", p, "--counts", "{table}", "--eps", "1"]
       for p in ("ir", "grr-cr", "ue-cr", "srr", "grr")},
    "protocol-polyopt": ["protocol", "polyopt", "--counts", "{table}", "--eps", "1",
                         "--time-limit", "5"],
    **{f"mechanism-{m}": ["mechanism", m, "--counts", "{table}", "--eps", "1"]
       for m in ("binary", "rr", "geometric", "srr", "ue")},
    "mechanism-urr": ["mechanism", "urr", "--counts", "{table}", "--eps", "1",
                      "--sensitive", "x"],
    "mechanism-quaternary": ["mechanism", "quaternary", "--k", "2", "--delta", "0.2",
                             "--eps", "1"],
    "mechanism-staircase": ["mechanism", "staircase", "--prior", "{prior}", "--eps", "1"],
    **{f"mechanism-{m}": ["mechanism", m, "--joint", "{joint}", "--eps", "1"]
       for m in ("lip", "ldp-s")},
}

QUICK = {"solve-RURP": 8, "protocol-srr": 8, "mechanism-rr": 10, "mechanism-lip": 10,
         "solve-NUNP": 8}
"""The default form: producer and how many sampled leaves of it are edited."""

@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The module's folder: inputs, each producer's record (written once), edited records."""
    return tmp_path_factory.mktemp("records-mutation")


def record_of(producer: str, work: Path) -> dict:
    """The record ``producer`` writes on the small table (written once per module run)."""
    out = work / f"{producer}.json"
    if not out.exists():
        inputs = {"table": TABLE, "joint": JOINT, "prior": PRIOR}
        paths = {}
        for name, text in inputs.items():
            paths[name] = work / f"{name}.csv"
            paths[name].write_text(text)
        argv = [arg.format(**{k: str(v) for k, v in paths.items()})
                for arg in PRODUCERS[producer]]
        code, err = run_cli([*argv, "--out", str(out), "-q"])
        assert code == 0, (producer, err)
    record = json.loads(out.read_text())
    certificate = record.get("certificate") or {}
    if isinstance(certificate.get("pricing_proof"), str):  # the proof stays where it is
        certificate["pricing_proof"] = str(work / certificate["pricing_proof"])
    return record


def expected_codes(rule: str | None, mutation: Mutation, record: dict) -> set[int]:
    """The exit codes verify may give for ``mutation`` of a leaf under ``rule`` (None:
    informational), decided from the rule and the record, never from verify."""
    if rule is None:  # not a claim: passes, unless the edit leaves the schema
        return {0, 2}
    false, any_code = {1, 2}, {0, 1, 2}
    if mutation.kind == "delete":
        return false
    if rule == "proof":
        return {0, 1}
    old = get(record, mutation.path)
    weaker = (rule == "lower" and (mutation.kind == "up" or (mutation.kind == "flip" and old))) \
        or (rule == "raise" and mutation.kind == "down")
    if weaker:
        return any_code  # a weaker claim, still true; a copy that now differs may be refused
    if rule == "lower" and mutation.kind == "down" and mutation.pattern.endswith("eps") \
            and stated_level(record) <= nudged(old, False):
        return any_code  # the matrix's level, as its writer found it, is below the lowered eps
    if mutation.kind in ("up", "down") and isinstance(old, float) and \
            abs(old - nudged(old, mutation.kind == "up")) <= VALUE_TOLERANCE * (1 + abs(old)):
        return any_code  # within the precision the value is stated to (a value near 0)
    return false


def stated_level(record: dict) -> float:
    """The level the writer found (``details.privacy_check.level`` or ``details.rldp.certified``),
    ``inf`` when the record states none: an eps at or above it is a true claim."""
    details = record["details"]
    for level in ((details.get("privacy_check") or {}).get("level"),
                  (details.get("rldp") or {}).get("certified")):
        if level is not None:
            return float(level)
    blocks = [b for b in record["declaration"]["blocks"] if b.get("role") == "constraint"]
    if blocks and all(b["block"] == "NominalSecretPrivacy" for b in blocks):
        return nominal_level(record)
    return math.inf


def nominal_level(record: dict) -> float:
    """``max_y max_{s1, s2} log P(y|s1) / P(y|s2)`` with ``P(y|s) = sum_u Phat(u|s) Q(y|s,u)``
    from the embedded counts and rows (the level of nominal secret privacy)."""
    counts = np.asarray(record["counts"]["table"], dtype=float)
    rows = np.asarray(record["matrix"]["rows"], dtype=float).reshape(*counts.shape, -1)
    seen = counts.sum(axis=1) > 0
    released = np.einsum("su,suy->sy", counts[seen] / counts[seen].sum(axis=1, keepdims=True),
                         rows[seen])
    with np.errstate(divide="ignore"):
        logs = np.log(released)
    return float(np.max(logs[:, None, :] - logs[None, :, :]))


def rule_of(pattern: str) -> str | None:
    """The rule of a documented leaf pattern: None when informational (read first)."""
    tables = documented_patterns()
    if classify(pattern, tables["informational"]) is not None:
        return None
    rule = classify(pattern, tables["checked"])
    assert rule is not None, f"{pattern} is in neither table of docs/records.md"
    return rule


def undocumented(record: dict) -> list[str]:
    tables = documented_patterns()
    return sorted({pattern_of(path) for path, _ in leaves(record)
                   if classify(pattern_of(path), tables["checked"]) is None
                   and classify(pattern_of(path), tables["informational"]) is None})


def sweep(producer: str, record: dict, paths: list, work: Path) -> list[str]:
    """Every edit of ``paths`` whose verify exit is not the one its rule allows."""
    wrong = []
    for path in paths:
        for mutation in mutations_of(record, path):
            if mutation.pattern == "counts.digest":
                continue  # the digest is what re-sealing recomputes
            rule = rule_of(mutation.pattern)
            code, text = verify_exit(mutated(record, mutation), work / "mutated.json")
            allowed = expected_codes(rule, mutation, record)
            if code not in allowed or "Traceback" in text:
                last = text.strip().splitlines()[-1:] or [""]
                wrong.append(f"{producer} {path} {mutation.kind}: exit {code}, expected "
                             f"{sorted(allowed)} (rule {rule}): {last[0][:150]}")
    return wrong


@pytest.mark.parametrize("producer", sorted(QUICK))
def test_every_leaf_is_documented_and_sampled_edits_are_caught(producer: str, work: Path) -> None:
    record = record_of(producer, work)
    assert undocumented(record) == []
    code, text = verify_exit(record, work / "unedited.json")
    assert code == 0, text  # the unedited record verifies: every failure below is the edit's
    paths = representatives(record, 1)
    sample = random.Random(producer).sample(paths, min(QUICK[producer], len(paths)))
    assert sweep(producer, record, sample, work) == []


@pytest.mark.slow
@pytest.mark.parametrize("producer", sorted(PRODUCERS))
def test_every_edit_of_every_leaf_is_caught(producer: str, work: Path) -> None:
    record = record_of(producer, work)
    assert undocumented(record) == []
    assert sweep(producer, record, representatives(record, 3), work) == []
