"""Size estimates of :mod:`rldp_models.resources` and the plain-text help formatter."""

from __future__ import annotations

import pytest

from rldp_models import resources
from rldp_models.cli import plain_text
from rldp_models.errors import InputError


def test_ue_cr_counts_its_outputs_exactly() -> None:
    """UE-CR releases (|U|+1)^|S| outputs (Thms 19-20): 17^5 on 5x16, 16^16 on 16x15."""
    assert "1,419,857 outputs" in resources.protocol_estimate("ue-cr", 5, 16).what
    assert f"{float(16**16):.3g} outputs" in resources.protocol_estimate("ue-cr", 16, 15).what
    small = resources.protocol_estimate("ue-cr", 2, 4)
    assert small.bytes == pytest.approx(resources.BASELINE_BYTES + 8 * 25 * 51)


def test_the_issues_measurement_is_what_the_estimate_says() -> None:
    """Dense UE-CR on Adult race x education grew to 5.8 GB (issue 20): the dense estimate
    within 10%; the product form written now stays near the baseline (measured 208 MB peak
    there, 373 MB at education x occupation's 2^16 report patterns)."""
    memory, _ = resources.dense_protocol_cost(5, 80, 17**5)
    assert memory == pytest.approx(5.8e9, rel=0.1)
    assert resources.protocol_estimate("ue-cr", 5, 16).bytes == pytest.approx(208e6, rel=0.25)
    assert resources.protocol_estimate("ue-cr", 16, 15).bytes == pytest.approx(373e6, rel=0.25)


def test_rr_needs_k_squared_entries() -> None:
    estimate = resources.mechanism_estimate("rr", 200_000)
    assert estimate.bytes >= 8 * 200_000**2  # at least the k x k doubles numpy was asked for
    assert "200,000 x 200,000" in estimate.what


def test_astronomical_sizes_never_overflow() -> None:
    for estimate in (resources.protocol_estimate("ue-cr", 1000, 1000),
                     resources.mechanism_estimate("ue", 10**6),
                     resources.protocol_estimate("polyopt", 100, 100)):
        assert estimate.bytes < float("inf") and estimate.seconds < float("inf")
        with pytest.raises(InputError):
            resources.check(estimate, 2**40, None)


def test_refusal_is_one_line_naming_size_estimate_and_limit() -> None:
    estimate = resources.Estimate("rr with k = 9", 3 * 2**30, 1.0)
    with pytest.raises(InputError) as raised:
        resources.check(estimate, 2**30, None)
    message = str(raised.value)
    assert "\n" not in message
    assert "rr with k = 9" in message and "3 GiB" in message and "1 GiB (--max-memory)" in message
    resources.check(estimate, 4 * 2**30, None)  # fits: no error


def test_time_ceiling_default_and_explicit() -> None:
    slow = resources.Estimate("work", 1.0, 7 * 3600.0)
    with pytest.raises(InputError, match="--time-limit SECONDS raises this"):
        resources.check(slow, 2**30, None)
    resources.check(slow, 2**30, 8 * 3600.0)
    with pytest.raises(InputError, match=r"limit of 1 min \(--time-limit\)"):
        resources.check(resources.Estimate("work", 1.0, 61.0), 2**30, 60.0)


@pytest.mark.parametrize("text, size", [("8G", 8 * 2**30), ("512M", 512 * 2**20),
                                        ("1.5GiB", int(1.5 * 2**30)), ("1000", 1000),
                                        ("2k", 2048), ("1T", 2**40)])
def test_parse_size(text: str, size: int) -> None:
    assert resources.parse_size(text) == size


@pytest.mark.parametrize("text", ["", "G", "-1G", "1x", "nan", "0", "1e9"])
def test_parse_size_refuses(text: str) -> None:
    with pytest.raises(InputError):
        resources.parse_size(text)


def test_default_memory_limit_is_a_share_of_the_machine() -> None:
    assert 0 < resources.default_memory_limit() <= resources.machine_memory()


@pytest.mark.parametrize("seconds, text", [(5, "5 s"), (90, "1.5 min"), (7200, "2 h"),
                                           (3 * 86400, "3 days"), (1e20, "> 1000 years")])
def test_format_seconds(seconds: float, text: str) -> None:
    assert resources.format_seconds(seconds) == text


@pytest.mark.parametrize("rst, plain", [
    (":mod:`rldp_models.uncertainty.named`", "rldp_models.uncertainty.named"),
    (":func:`~rldp_models.privacy.worst_case.worst_case_epsilon`", "worst_case_epsilon"),
    ("``--radius R``", "--radius R"),
    ("**guarantee**: holds", "guarantee: holds"),
    ("the :class:`~rldp_models.cli.ExitCode` table", "the ExitCode table"),
    ("``rldp verify OUT.json [--counts FILE | --data FILE ...]``",
     "rldp verify OUT.json [--counts FILE | --data FILE ...]"),
])
def test_help_is_plain_text(rst: str, plain: str) -> None:
    assert plain_text(rst) == plain


def test_the_direct_conic_path_follows_its_fitted_laws() -> None:
    """The estimate is the start-up plus the law in n_s and n_u (the outputs count beyond the
    cone entries); 16x42 (Adult education x native-country) fits a machine the cvxpy path's
    estimate would refuse, and squared distortion is estimated costlier than Hamming."""
    direct = resources.robust_program_estimate("RURP", 16, 15, True, direct=True,
                                               distortion="hamming")
    law = resources.DIRECT_TIME_LAW
    assert direct.seconds == pytest.approx(resources.DIRECT_OVERHEAD_SECONDS
                                           + law.scale * 16**law.s_exponent
                                           * 15**law.u_exponent)
    through_cvxpy = resources.robust_program_estimate("RURP", 16, 42, True)
    wide = resources.robust_program_estimate("RURP", 16, 42, True, direct=True)
    assert wide.bytes < 8 * 2**30 < through_cvxpy.bytes
    assert wide.seconds < through_cvxpy.seconds
    hamming = resources.robust_program_estimate("RURP", 10, 20, True, direct=True,
                                                distortion="hamming")
    squared = resources.robust_program_estimate("RURP", 10, 20, True, direct=True)
    assert squared.seconds > hamming.seconds
