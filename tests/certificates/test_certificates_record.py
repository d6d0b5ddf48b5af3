"""Certificate records: JSON round trip, kinds of older files, and bad records."""

from __future__ import annotations

import json

import mpmath
import numpy as np
import pytest

from rldp_models.exact import high_precision, iv, upper_mpf
from rldp_models.results.certificate_record import VERSION, CertificateRecord
from rldp_models.certificates.verification import result_type
from rldp_models.errors import InputError


def test_round_trip_through_json() -> None:
    record = CertificateRecord("chi-square-conic", {"multipliers": {
        "robust_privacy[0,1]": {"c": np.array([0.5, 0.25]), "t": np.zeros((2, 2))}}})
    loaded = CertificateRecord.from_json(json.loads(json.dumps(record.to_json())))
    assert loaded.kind == "chi-square-conic" and loaded.version == VERSION
    assert loaded.fields["multipliers"]["robust_privacy[0,1]"]["c"] == [0.5, 0.25]


@pytest.mark.parametrize("stored, kind", [
    ({"multipliers": {}, "duals": {}}, "chi-square-conic"),
    ({"dual": [1.0, 2.0], "verified": True}, "lp-dual"),
    (None, "none"),
])
def test_kind_of_files_written_before_the_field(stored, kind: str) -> None:
    assert CertificateRecord.from_json(stored).kind == kind


@pytest.mark.parametrize("stored", [[1, 2], {"kind": "magic"}, {"kind": "none", "version": 99}])
def test_bad_records_are_input_errors(stored) -> None:
    with pytest.raises(InputError):
        CertificateRecord.from_json(stored)


@pytest.mark.parametrize("record, kind", [
    ({"result_type": "protocol", "Q": []}, "protocol"),
    ({"problem": "NURP", "protocol": []}, "solve"),
    ({"mechanism": "rr", "Q": []}, "mechanism"),
    ({"protocol": "srr", "Q": []}, "protocol"),
])
def test_result_type_from_field_or_keys(record: dict, kind: str) -> None:
    assert result_type(record) == kind


def test_high_precision_is_at_least_50_digits_and_restored() -> None:
    before = iv.prec
    with high_precision():
        assert iv.dps >= 50
        third = upper_mpf(iv.mpf(1) / 3)
    assert iv.prec == before
    with mpmath.workdps(80):
        assert third >= mpmath.mpf(1) / 3
        assert third - mpmath.mpf(1) / 3 < mpmath.mpf(10) ** -50
