"""Protocol results of ``rldp protocol`` verify, including degenerate count tables."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from rldp_models.certificates.verification import verify
from rldp_models.cli import main
from rldp_models.data import Crosstab
from tests.shared_data import result_fields


@settings(max_examples=3, deadline=None)
@given(counts=st.lists(st.integers(0, 5), min_size=6, max_size=6).filter(
           lambda c: sum(c[:3]) > 0 and sum(c[3:]) > 0),
       eps=st.sampled_from([0.0, 0.5, 6.0]), name=st.sampled_from(["srr", "grr", "ir"]))
def test_protocol_results_verify(counts: list[int], eps: float, name: str) -> None:
    """Zero cells, tiny n, eps = 0 and large eps; the certificate is the recorded bracket."""
    crosstab = Crosstab.from_array(np.reshape(counts, (2, 3)))
    with tempfile.TemporaryDirectory() as work:
        table, out = Path(work) / "counts.csv", Path(work) / "out.json"
        crosstab.to_csv(table)
        code = main(["protocol", name, "--counts", str(table), "--eps", str(eps),
                     "--out", str(out)])
        assert out.exists() == (code == 0)  # a failing protocol is never written
        if code != 0:
            return
        record = result_fields(out)
    report = verify(record, crosstab)
    assert report.certificate.holds, report.lines()
    assert report.guarantee.holds, report.lines()
    level = report.guarantee.data["level"]
    assert level.attained <= level.certified + 1e-9


def test_polyopt_dual_is_checked_over_gamma(tmp_path: Path) -> None:
    """PolyOpt's LP dual bounds I_Phat over Gamma; a second LP solver over the rays agrees."""
    from scipy.optimize import linprog

    from rldp_models.conelp.exact_lp_dual import gamma_cone_rays, interval_utility, outer_ratio

    crosstab = Crosstab.from_array(np.array([[3, 1], [1, 4]]))
    table, out = tmp_path / "counts.csv", tmp_path / "out.json"
    crosstab.to_csv(table)
    assert main(["protocol", "polyopt", "--counts", str(table), "--eps", "1.5",
                 "--out", str(out)]) == 0
    record = result_fields(out)
    report = verify(record, crosstab)
    assert report.holds, report.lines()
    bound = float(report.certificate.data["lp"].bound)
    rays = gamma_cone_rays(crosstab.counts, 0.05, outer_ratio(1.5))
    mu = interval_utility("mi", {"prior": crosstab.phat.ravel()})
    masses = [float(sum(ray)) for ray in rays]
    V = np.array([[float(x) / m for x in ray] for ray, m in zip(rays, masses)]).T
    values = [float(mu(ray).mid) / m for ray, m in zip(rays, masses)]
    optimum = -linprog(-np.array(values), A_eq=V, b_eq=np.ones(4), method="highs").fun
    assert abs(bound - optimum) <= 1e-7

    record["certificate"]["dual"][0] -= 1e-4
    tampered = verify(record, crosstab)
    assert tampered.guarantee.holds and not tampered.certificate.holds


def test_a_level_not_proven_finite_is_inconclusive_not_a_failure(tmp_path: Path,
                                                                 monkeypatch) -> None:
    """When the checker cannot prove any finite level (certified inf, with its note), the
    guarantee is inconclusive: rldp verify exits 3 and says why in one line."""
    from rldp_models.certificates import guarantee
    from rldp_models.privacy.worst_case import WorstCaseEpsilon

    crosstab = Crosstab.from_array(np.array([[3, 1, 2], [1, 4, 2]]))
    table, out = tmp_path / "counts.csv", tmp_path / "out.json"
    crosstab.to_csv(table)
    assert main(["protocol", "grr", "--counts", str(table), "--eps", "1", "--out", str(out)]) == 0
    note = "a ratio's denominator could not be proven positive"
    monkeypatch.setattr(guarantee.checker, "rldp_epsilon", lambda *args: WorstCaseEpsilon(
        float("inf"), 0.4, (0, 0, 1), None, note))
    verdict = verify(result_fields(out), crosstab).guarantee
    assert verdict.inconclusive and not verdict.fails and note in verdict.headline
    assert main(["verify", str(out), "--counts", str(table)]) == 3
