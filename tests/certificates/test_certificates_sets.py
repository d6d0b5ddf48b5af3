"""``rldp verify`` on solve results over the KL, TV and box sets (issue 5, product form)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from rldp_models.cli import main
from rldp_models.data import Crosstab
from rldp_models.uncertainty.kl_ball import KLBallSet
from tests.shared_data import rewritten_fields_copy, result_fields

SETS = ("kl", "tv", "box")


def _verify(capsys, path: Path, counts: Path) -> tuple[int, list[str]]:
    code = main(["verify", str(path), "--counts", str(counts)])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("counts: sha256:")  # the digest checked against comes first
    return code, lines[1:]


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    work = tmp_path_factory.mktemp("sets")
    paths = {"counts": work / "counts.csv"}
    Crosstab.from_array(np.array([[5, 0, 3], [2, 6, 1]]), ["A", "B"],
                        ["1", "2", "3"]).to_csv(paths["counts"])
    for name in SETS:
        paths[name] = work / f"RURP_{name}.json"
        assert main(["solve", "RURP", "--counts", str(paths["counts"]), "--eps", "0.5",
                     "--uncertainty", name, "--out", str(paths[name])]) == 0
    paths["NUNP"] = work / "NUNP_kl.json"
    assert main(["solve", "NUNP", "--counts", str(paths["counts"]), "--eps", "0.5",
                 "--uncertainty", "kl", "--out", str(paths["NUNP"])]) == 0
    return paths


@pytest.mark.parametrize("name", SETS)
def test_results_over_each_set_verify(results, capsys, name: str) -> None:
    code, lines = _verify(capsys, results[name], results["counts"])
    assert code == 0, lines
    assert lines[0].startswith("guarantee: holds") and f"over the {name} set" in lines[0]
    certificate = next(line for line in lines if line.startswith("certificate:"))
    assert certificate.startswith("certificate: holds")


def test_stored_kl_bounds_cover_a_conditional_attained_in_the_set(results) -> None:
    """Each stored ``hi[s, y]`` is at least ``P(y|s,.).R`` at the conditional of a member of F
    found by the primal exponential-cone program (no multipliers involved)."""
    record = result_fields(results["kl"])
    counts = np.array(record["counts"], dtype=float)
    kl = KLBallSet(counts / counts.sum(), record["uncertainty"]["radius"])
    protocol = np.array(record["protocol"])
    multipliers = record["certificate"]["multipliers"]
    for s in range(2):
        for y in range(protocol.shape[2]):
            v = np.zeros(counts.shape)
            v[s] = protocol[s, :, y]
            p, _ = kl.worst_case(v.ravel())
            conditional = p[s] / p[s].sum()
            assert conditional @ protocol[s, :, y] <= \
                multipliers[f"robust_privacy/sup[{s}]"]["bound"][y] + 1e-7


def test_a_tampered_multiplier_fails_the_certificate_only(results, capsys, tmp_path) -> None:
    def tamper(record: dict) -> None:
        for values in record["certificate"]["multipliers"].values():
            for found in values.get("per_output", []):
                found["mu"] = 10.0
        record["certificate"]["multipliers"]["robust_utility"]["mu"] = 10.0

    code, lines = _verify(capsys, rewritten_fields_copy(results["kl"], tmp_path, tamper),
                          results["counts"])
    assert code == 1
    assert lines[0].startswith("guarantee: holds")
    assert any(line.startswith("certificate: FAILS") for line in lines)
    assert lines[-1] == "FAIL: the certificate check failed"


def test_a_lowered_conditional_bound_is_rejected(results, capsys, tmp_path) -> None:
    def lower(record: dict) -> None:
        bound = record["certificate"]["multipliers"]["robust_privacy/sup[0]"]["bound"]
        bound[1] *= 0.5

    code, lines = _verify(capsys, rewritten_fields_copy(results["box"], tmp_path, lower),
                          results["counts"])
    assert code == 1 and lines[-1] == "FAIL: the certificate check failed"
    assert any("robust_privacy/sup[A] y=2" in line for line in lines)  # labels of s=0, y=1


def test_a_nominal_protocol_relabelled_robust_fails_the_guarantee(results, capsys,
                                                                  tmp_path) -> None:
    def relabel(record: dict) -> None:
        record["problem"] = "NURP"

    code, lines = _verify(capsys, rewritten_fields_copy(results["NUNP"], tmp_path, relabel),
                          results["counts"])
    assert code == 1
    assert lines[0].startswith("guarantee: FAILS") and "over the kl set" in lines[0]
    assert "guarantee" in lines[-1]


def test_a_radius_that_is_not_the_sets_is_bad_input(results, capsys, tmp_path) -> None:
    def widen(record: dict) -> None:
        record["uncertainty"]["radius"] *= 2

    code = main(["verify", str(rewritten_fields_copy(results["tv"], tmp_path, widen)), "--counts",
                 str(results["counts"])])
    assert code == 2
    assert "radius" in capsys.readouterr().err
