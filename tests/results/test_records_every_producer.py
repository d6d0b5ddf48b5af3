"""Every producer's record: round trip, schema, exact rows, ``rldp verify`` accepts it and
rejects it when its matrix is made leaky (issue 16; issue 20 item 4)."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from rldp_models.cli import main
from rldp_models.results.record import from_record, to_record
from rldp_models.results.schema import validate
from rldp_models.results.files import read_record

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "round1"
COUNTS = {"2x3": FIXTURES / "counts_2x3.csv", "3x3": FIXTURES / "counts_3x3.csv",
          "3x5": FIXTURES / "counts_3x5.csv"}

COMMANDS = {
    **{f"solve-{p}": ["solve", p, "--counts", COUNTS["2x3"], "--eps", "1"]
       for p in ("NUNP", "NURP", "RUNP", "RURP")},
    **{f"solve-RURP-{s}": ["solve", "RURP", "--counts", COUNTS["2x3"], "--eps", "1",
                           "--uncertainty", s] for s in ("kl", "tv", "box")},
    "solve-NURP-radius": ["solve", "NURP", "--counts", COUNTS["2x3"], "--eps", "1",
                          "--uncertainty", "box", "--radius", "0.05"],
    **{f"mechanism-{m}": ["mechanism", m, "--eps", "1", "--prior", FIXTURES / "prior.csv"]
       for m in ("binary", "rr", "geometric", "staircase")},
    "mechanism-quaternary": ["mechanism", "quaternary", "--eps", "1", "--k", "2",
                             "--delta", "0.1"],
    "mechanism-srr": ["mechanism", "srr", "--eps", "1", "--counts", COUNTS["2x3"]],
    "mechanism-ue": ["mechanism", "ue", "--eps", "1", "--k", "3"],
    **{f"mechanism-{m}": ["mechanism", m, "--eps", "1", "--prior", FIXTURES / "prior.csv",
                          "--sensitive", "a", "b"] for m in ("urr", "urap")},
    **{f"mechanism-{m}": ["mechanism", m, "--eps", "1", "--joint", FIXTURES / "joint.csv"]
       for m in ("ldp-s", "lip")},
    "mechanism-srlip": ["mechanism", "srlip", "--eps", "1", "--joint",
                        FIXTURES / "joint_srlip.csv", "--attribute-sizes", "2", "3"],
    **{f"protocol-{p}": ["protocol", p, "--counts", COUNTS["2x3"], "--eps", "2"]
       for p in ("srr", "ir", "grr-cr", "ue-cr", "grr", "polyopt")},
}


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    work = tmp_path_factory.mktemp("records")
    paths = {}
    for name, argv in COMMANDS.items():
        paths[name] = work / f"{name}.json"
        assert main([*map(str, argv), "--out", str(paths[name])]) == 0, name
    return paths


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_record_round_trips_and_validates(written, name: str) -> None:
    record = read_record(written[name])
    validate(record)
    result = from_record(record)
    again = to_record(result)
    validate(again)
    assert json.loads(json.dumps(again)) == record
    assert result.holds and result.guarantees


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_rows_are_dyadic_and_sum_to_exactly_one(written, name: str) -> None:
    rows = read_record(written[name])["matrix"]["rows"]
    for row in rows:
        fractions = [Fraction(x) for x in row]
        assert all(x >= 0 and (x * 2**52).denominator == 1 for x in fractions)
        assert sum(fractions) == 1


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_guarantee_holds_exactly_by_an_independent_check(written, name: str) -> None:
    """The notion's exact certifier on the rows read back (not the producer's verdict)."""
    from rldp_models import privacy
    from rldp_models.data import Crosstab
    from rldp_models.rldp_protocols.checker import rldp_epsilon

    record = read_record(written[name])
    Q = np.array(record["matrix"]["rows"], dtype=float)
    eps = from_record(record).guarantees[0].eps  # its block's, stated once
    details = record["details"]
    kind = record["result_type"]
    if kind == "protocol":
        crosstab = Crosstab.from_csv(COUNTS["2x3"])
        assert rldp_epsilon(Q, crosstab, details["alpha"]).certified <= eps
    elif kind == "mechanism" and details["mechanism"] in ("rr", "geometric", "binary", "ue",
                                                          "staircase"):
        assert privacy.certify_ldp(Q, eps).holds
    elif kind == "mechanism" and details["mechanism"] in ("urr", "urap"):
        assert privacy.certify_uldp(Q, np.array(details["sensitive"]), eps).holds
    elif kind == "mechanism" and details["mechanism"] == "lip":
        assert privacy.certify_lip(Q, np.array(details["joint"]), eps).holds
    elif kind == "solve" and record["producer"] in ("NUNP", "RUNP"):
        from rldp_models.privacy.guarantees import check_nominal_privacy

        crosstab = Crosstab.from_csv(COUNTS["2x3"])
        assert check_nominal_privacy(Q, crosstab.counts, eps).holds


def _verify(capsys, path: Path) -> tuple[int, str, str]:
    code = main(["verify", str(path)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_verify_accepts_the_record_with_its_embedded_counts(written, capsys, name) -> None:
    code, out, err = _verify(capsys, written[name])
    assert code == 0, out + err
    if not name.startswith("mechanism"):
        assert "counts: sha256:" in out


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_verify_rejects_the_record_made_leaky(written, capsys, tmp_path, name: str) -> None:
    """Each input sent to its own output (exactly stochastic, infinitely leaky): exit 1."""
    record = read_record(written[name])
    rows = record["matrix"]["rows"]
    width = len(rows[0])
    record["matrix"]["rows"] = [[1.0 if y == x % width else 0.0 for y in range(width)]
                                for x in range(len(rows))]
    leaky = tmp_path / "leaky.json"
    leaky.write_text(json.dumps(record))
    code, out, err = _verify(capsys, leaky)
    assert code == 1, out + err
    assert "guarantee: FAILS" in out


def test_rows_that_do_not_sum_to_one_exactly_fail(written, capsys, tmp_path) -> None:
    record = read_record(written["mechanism-rr"])
    record["matrix"]["rows"][0][0] += 2.0**-50
    record["matrix"]["rows"][0][1] -= 2.0**-51
    path = tmp_path / "inexact.json"
    path.write_text(json.dumps(record))
    code, out, _ = _verify(capsys, path)
    assert code == 1 and "not exact" in out
