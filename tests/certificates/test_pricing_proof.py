"""Branch-and-bound pricing proofs, checked without search, against enumerated rays.

Grounding: the rays of small PolyOpt cones Gamma are enumerated by exact
double description (:mod:`rldp_models.conelp.exact_lp_dual`) and the largest
reduced cost per unit mass is taken over them in interval arithmetic
(:func:`check_lp_dual`); the proof's checked bound must cover it and be
close to it at a dual where it is 0. Tampered proofs must be rejected; a
hand-made tree on a cone with an empty box (``v_0 >= v_1`` against
``v_0 <= 1.2 < 1.3 <= v_1``) checks the Farkas step.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from rldp_models.certificates.pricing_proof import check_pricing_proof
from rldp_models.conelp import inner_ratio
from rldp_models.conelp.concave_pricing import ConcavePricing
from rldp_models.conelp.exact_lp_dual import _enumerated, check_lp_dual, interval_utility
from rldp_models.conelp.polyopt_gamma import gamma_rows, gamma_vertices
from rldp_models.conelp.pricing_proof_record import ProofRecorder, sparse_rows
from rldp_models.errors import InputError
from rldp_models.results.files import load_pricing_proof, save_pricing_proof
from rldp_models.uncertainty.chi_square import ChiSquareSet
from tests.shared_data import result_fields

TABLES = {"2x3": ([[30, 10, 5], [15, 45, 20]], 1.5),
          "2x3-zero-cell": ([[30, 0, 5], [15, 45, 20]], 0.7),
          "3x3": ([[30, 10, 5], [15, 45, 20], [8, 12, 25]], 2.0)}


def _cone(name: str):
    counts, eps = TABLES[name]
    counts = np.array(counts)
    rows = gamma_rows(gamma_vertices(ChiSquareSet.from_counts(counts, 0.05), False),
                      Fraction(inner_ratio(eps)))
    prior = (counts / counts.sum()).ravel()
    return rows, prior, _enumerated(rows, counts.size)


@pytest.fixture(scope="module", params=sorted(TABLES))
def case(request):
    """A cone, its exact rays and a dual at which the largest reduced cost is about 0."""
    rows, prior, rays = _cone(request.param)
    mu = interval_utility("mi", {"prior": prior})
    d = prior.size
    dual = np.full(d, 0.3) + 0.05 * np.arange(d)
    dual = dual + float(check_lp_dual(dual, rays, mu, np.ones(d), np.eye(d)).violation)
    truth = float(check_lp_dual(dual, rays, mu, np.ones(d), np.eye(d)).violation)
    proof = ConcavePricing(rows.astype(float), prior).proof(dual)
    return rows.tolist(), [Fraction(float(p)) for p in prior], dual, truth, proof


def test_proof_checks_and_covers_the_enumerated_rays(case, tmp_path) -> None:
    rows, prior, dual, truth, proof = case
    save_pricing_proof(tmp_path / "p.npz", proof)
    check = check_pricing_proof(load_pricing_proof(tmp_path / "p.npz"), rows, prior, dual, 1e-9)
    assert check.holds, check.problems
    assert truth <= check.per_mass <= truth + 1e-9
    assert check.leaves == len(proof["leaf"]) >= 1


def _tampered(proof: dict, **changes) -> dict:
    out = {key: np.array(value, copy=True) for key, value in proof.items()}
    out.update(changes)
    return out


def test_tampered_proofs_are_rejected(case) -> None:
    rows, prior, dual, truth, proof = case
    val = proof["leafy_val"].copy()
    val[:] = -1.0
    assert not check_pricing_proof(_tampered(proof, leafy_val=val), rows, prior, dual,
                                   1e-9).holds
    leaf = proof["leaf"][:-1]
    fewer = _tampered(proof, leaf=leaf, leafy_ptr=proof["leafy_ptr"][:-1])
    fewer["leafy_col"] = fewer["leafy_col"][:fewer["leafy_ptr"][-1]]
    fewer["leafy_val"] = fewer["leafy_val"][:fewer["leafy_ptr"][-1]]
    assert not check_pricing_proof(fewer, rows, prior, dual).holds
    upper = proof["upper"].copy()
    x = int(np.argmax(upper[0] - proof["lower"][0]))
    upper[0, x] -= 1e-6 * (upper[0, x] - proof["lower"][0, x])
    assert not check_pricing_proof(_tampered(proof, upper=upper), rows, prior, dual).holds
    assert not check_pricing_proof(proof, rows, prior, dual, truth - 1e-6).holds


def test_shrunk_child_box_is_rejected(case) -> None:
    rows, prior, dual, _, proof = case
    if not len(proof["split"]):
        pytest.skip("no split in this proof")
    child = int(proof["split"][0, 2])
    upper = proof["upper"].copy()
    x = int(np.argmax(upper[child] - proof["lower"][child]))
    upper[child, x] = proof["lower"][child, x]
    assert not check_pricing_proof(_tampered(proof, upper=upper), rows, prior, dual).holds


def test_farkas_ray_proves_an_empty_box() -> None:
    """Cone ``v_0 >= v_1, v_0 >= v_2``, ``p`` uniform: ``P`` misses ``v_0 <= 1.2, v_1 >= 1.3``."""
    rows = [[Fraction(1), Fraction(-1), Fraction(0)], [Fraction(1), Fraction(0), Fraction(-1)]]
    prior = [Fraction(1, 3)] * 3
    dual = np.zeros(3)
    oracle = ConcavePricing(np.array(rows, dtype=float), np.full(3, 1 / 3))
    base = oracle.proof(dual)
    root_low, root_high = base["lower"][0], base["upper"][0]
    empty_low, empty_high = root_low.copy(), root_high.copy()
    empty_high[0], empty_low[1] = 1.2, 1.3
    recorder = ProofRecorder(oracle)
    recorder._box(empty_low, empty_high)
    oracle._recorder = recorder
    assert oracle._node(dual, empty_low, empty_high, np.inf) is None
    oracle._recorder = None
    ray = recorder.rays[0]
    # root -> (v_0 <= 1.2: box 1, v_0 >= 1.2: box 2); box 1 -> (v_1 <= 1.3: 3, v_1 >= 1.3: 4)
    left_high, right_low = root_high.copy(), root_low.copy()
    left_high[0] = right_low[0] = 1.2
    low_left_high = left_high.copy()
    low_left_high[1] = 1.3
    boxes = [(root_low, root_high), (root_low, left_high), (right_low, root_high),
             (root_low, low_left_high), (empty_low, empty_high)]
    zero = np.zeros(len(rows) + 1)
    proof = {key: value for key, value in base.items() if not key.startswith(("ray", "leafy"))}
    proof.update(lower=np.array([b[0] for b in boxes]), upper=np.array([b[1] for b in boxes]),
                 split=np.array([[0, 0, 1, 2], [1, 1, 3, 4]]), cut=np.array([1.2, 1.3]),
                 drop=np.array([4]), leaf=np.array([2, 3]))
    proof.update(sparse_rows([ray], 3, "ray"), **sparse_rows([zero, zero], 3, "leafy"))
    assert check_pricing_proof(proof, rows, prior, dual).holds
    proof.update(sparse_rows([zero], 3, "ray"))
    assert not check_pricing_proof(proof, rows, prior, dual).holds
    proof.update(sparse_rows([ray], 3, "ray"), drop=np.array([3]), leaf=np.array([2, 4]))
    assert not check_pricing_proof(proof, rows, prior, dual).holds


def test_bad_witness_or_cap_is_rejected_where_a_cell_is_zero() -> None:
    rows, prior, rays = _cone("2x3-zero-cell")
    proof = ConcavePricing(rows.astype(float), prior).proof(np.zeros(prior.size))
    exact = [Fraction(float(p)) for p in prior]
    assert check_pricing_proof(proof, rows.tolist(), exact, np.zeros(prior.size)).holds
    zero = int(np.flatnonzero(prior == 0)[0])
    witness = np.zeros(prior.size)
    witness[zero - 1] = 1.0
    cap = proof["cap"].copy()
    cap[zero] = proof["upper"][0, zero] / 2
    for bad in ({"witness": witness}, {"cap": cap}):
        assert not check_pricing_proof(_tampered(proof, **bad), rows.tolist(), exact,
                                       np.zeros(prior.size)).holds


def test_malformed_proofs_fail_loudly(case) -> None:
    rows, prior, dual, _, proof = case
    with pytest.raises(InputError):
        check_pricing_proof(proof, rows, [-prior[0]] + prior[1:], dual)
    with pytest.raises(InputError):
        check_pricing_proof(_tampered(proof, leafy_width=np.array(2)), rows, prior, dual)
    with pytest.raises(InputError):
        check_pricing_proof({k: v for k, v in proof.items() if k != "witness"}, rows, prior,
                            dual)


@pytest.mark.slow
def test_cli_writes_a_proof_that_rldp_verify_checks(tmp_path) -> None:
    """3x3 with a zero cell (9 cells: beyond enumeration in ``rldp verify``), column generation."""

    from rldp_models.certificates.verification import verify
    from rldp_models.cli import main
    from rldp_models.data import Crosstab

    crosstab = Crosstab.from_array(np.array([[30, 0, 5], [15, 45, 20], [8, 12, 25]]))
    table, out = tmp_path / "counts.csv", tmp_path / "out.json"
    crosstab.to_csv(table)
    assert main(["protocol", "polyopt", "--counts", str(table), "--eps", "0.3", "--method",
                 "column-generation", "--out", str(out)]) == 0
    record = result_fields(out)
    assert record["certificate"]["pricing_proof"] == "out.proof.npz"  # named beside OUT.json
    moved = tmp_path / "moved"
    moved.mkdir()
    for name in ("out.json", "out.proof.npz"):
        (tmp_path / name).rename(moved / name)
    assert main(["verify", str(moved / "out.json"), "--counts", str(table)]) == 0
    path = moved / "out.proof.npz"
    record["certificate"]["pricing_proof"] = str(path)
    report = verify(record, crosstab)
    assert report.holds and "branch-and-bound proof" in report.certificate.headline
    proof = load_pricing_proof(path)
    save_pricing_proof(path, _tampered(proof, leaf=proof["leaf"][::-1][:-1],
                                       leafy_ptr=proof["leafy_ptr"][:-1]))
    assert not verify(record, crosstab).certificate.holds
    assert main(["verify", str(moved / "out.json"), "--counts", str(table)]) == 1
    path.unlink()
    missing = verify(record, crosstab).certificate
    assert not missing.holds and "cannot be checked" in missing.headline


def test_enumerated_tables_beyond_verify_enumeration_get_a_proof(tmp_path) -> None:
    """3x3 (9 cells) is enumerated by ``auto``; ``rldp verify`` does not enumerate 9 cells,
    so the CLI writes the pricing proof there too, and verify accepts it."""

    from rldp_models.cli import main
    from rldp_models.data import Crosstab

    table, out = tmp_path / "counts.csv", tmp_path / "out.json"
    Crosstab.from_array(np.array([[30, 2, 5], [15, 45, 20], [8, 12, 25]])).to_csv(table)
    assert main(["protocol", "polyopt", "--counts", str(table), "--eps", "1", "--out",
                 str(out)]) == 0
    record = result_fields(out)
    assert record["parameters"]["method"] == "enumerate"
    assert record["certificate"]["pricing_proof"] == "out.proof.npz"
    assert main(["verify", str(out), "--counts", str(table)]) == 0


def test_float_tightening_contains_the_exact_one_for_a_tiny_prior() -> None:
    """Each child the search records must hold its half shrunk by ``p.v = 1``, computed exactly.

    Adult sex x relationship has a cell of 1 in 32,561 records (``p_x = 3.1e-5``): the float
    bound ``(1 - sum_{y != x} p_y l_y) / p_x`` is then off by ``~1e-15 / p_x``, above a slack
    of ``1e-12 (1 + |u_x|)``, and ``rldp verify`` rejected the proof (box 496 of box 468).
    The exact shrinking is the checker's own (step (b) of its module docstring).
    """
    from rldp_models.certificates.pricing_proof import _contains, _tightened

    rng = np.random.default_rng(0)
    d = 12
    prior = np.concatenate([[1 / 32561], rng.dirichlet(np.ones(d - 1)) * (1 - 1 / 32561)])
    oracle = ConcavePricing(np.eye(d), prior)
    exact_prior = [Fraction(float(p)) for p in prior]
    point = rng.dirichlet(np.ones(d), 400) / prior  # on p.v = 1, with v_0 of order 1
    point[:, 0] = rng.uniform(0.0, 2.0, 400)
    point[:, 1:] *= (1 - prior[0] * point[:, :1]) / (point[:, 1:] @ prior[1:])[:, None]
    lower = point * rng.uniform(1 - 1e-5, 1.0, point.shape)  # narrow: the slice shrinks v_0
    upper = point * rng.uniform(1.0, 1 + 1e-5, point.shape)
    lower[:, 0], upper[:, 0] = 0.0, 2.0
    new_lower, new_upper = oracle._tightened(lower, upper)
    for k in range(lower.shape[0]):
        shrunk = _tightened([Fraction(float(a)) for a in lower[k]],
                            [Fraction(float(b)) for b in upper[k]], exact_prior)
        recorded = ([Fraction(float(a)) for a in new_lower[k]],
                    [Fraction(float(b)) for b in new_upper[k]])
        assert shrunk is None or _contains(recorded, shrunk), k


def test_a_split_coordinate_is_not_read_as_a_box_id() -> None:
    """One split of the root on ``v_3``: three boxes, coordinate 3 is no box id."""
    rows, prior = np.eye(4), np.full(4, 0.25)
    proof = ConcavePricing(rows, prior).proof(np.zeros(4))
    low, high = proof["lower"][0], proof["upper"][0]
    left_high, right_low = high.copy(), low.copy()
    left_high[3] = right_low[3] = 2.0
    zero = np.zeros(5)
    tree = {key: value for key, value in proof.items() if not key.startswith("leafy")}
    tree.update(lower=np.array([low, low, right_low]), upper=np.array([high, left_high, high]),
                split=np.array([[0, 3, 1, 2]]), cut=np.array([2.0]), drop=np.zeros(0, int),
                leaf=np.array([1, 2]), **sparse_rows([zero, zero], 5, "leafy"))
    exact = [Fraction(1, 4)] * 4
    check = check_pricing_proof(tree, rows.tolist(), exact, np.zeros(4))
    assert check.holds, check.problems


@pytest.mark.parametrize("counts", [[[1, 10451, 8984], [11056, 5374, 15929]],
                                    [[12784, 7642, 19906], [12471, 19029, 2]],
                                    [[2, 17309, 11527], [15519, 16384, 2159]]])
@pytest.mark.parametrize("eps", [0.5, 1.0, 2.0, 5.0])
def test_root_box_is_proven_where_a_cell_is_tiny(counts, eps) -> None:
    """A cell of 1-2 records caps ``v_x`` at ``1/p_x`` (tens of thousands): the float
    weak-duality bound on ``max v_x`` then errs by more than a fixed ``1e-12`` and the
    checker, exact, found the recorded root upper bound unproven (these tables failed at
    eps 1-2 before). A dual of 10 closes the search at the root."""
    counts = np.array(counts)
    rows = gamma_rows(gamma_vertices(ChiSquareSet.from_counts(counts, 0.05), False),
                      Fraction(inner_ratio(eps)))
    prior = (counts / counts.sum()).ravel()
    dual = np.full(prior.size, 10.0)
    proof = ConcavePricing(rows.astype(float), prior).proof(dual)
    check = check_pricing_proof(proof, rows.tolist(), [Fraction(float(p)) for p in prior], dual)
    assert check.holds, check.problems


@pytest.mark.slow
@pytest.mark.parametrize("public, eps", [("relationship", 1.0), ("relationship", 2.0)])
def test_adult_sex_by_relationship_proof_verifies(tmp_path, public, eps) -> None:
    """The reported case: a cell of 1 record in 32,561 (sex x relationship); ``rldp verify``
    rejected the proof at eps 1 (a child box short of its half) and eps 2 (root bound)."""
    import os
    from pathlib import Path

    from rldp_models.cli import main
    from tests.shared_data import ADULT

    data = Path(os.environ.get("RLDP_ADULT_DATA", ADULT))
    if not data.exists():
        pytest.skip("the shared Adult data is absent (set RLDP_ADULT_DATA)")
    out = tmp_path / "po.json"
    assert main(["protocol", "polyopt", "--data", str(data), "--sensitive", "sex", "--public",
                 public, "--eps", str(eps), "--alpha", "0.05", "--out", str(out)]) == 0
    assert main(["verify", str(out)]) == 0


@pytest.mark.parametrize("counts, eps", [([[13741, 10986, 2], [5888, 12692, 15517]], 2.0),
                                         ([[9036, 10230, 2], [17900, 2385, 18746]], 1.0),
                                         ([[11859, 5837, 7115], [14670, 2, 10583]], 0.5)])
def test_complete_proof_checks_where_a_cell_is_tiny(counts, eps) -> None:
    """A complete search at the dual where the largest reduced cost is about 0 (found by
    :meth:`ConcavePricing.tight_bound`): its children covered their halves only up to a
    float slack too small for ``p_x = 2 / 47,000`` before (``box 41 does not cover its half
    of box 40``); the checker is exact, so it checks the covering independently."""
    counts = np.array(counts)
    rows = gamma_rows(gamma_vertices(ChiSquareSet.from_counts(counts, 0.05), False),
                      Fraction(inner_ratio(eps)))
    prior = (counts / counts.sum()).ravel()
    dual = np.zeros(prior.size)
    dual += ConcavePricing(rows.astype(float), prior).tight_bound(dual, 1e-9)[0]
    proof = ConcavePricing(rows.astype(float), prior).proof(dual)
    check = check_pricing_proof(proof, rows.tolist(), [Fraction(float(p)) for p in prior], dual)
    assert check.holds, check.problems
    assert len(proof["split"]) > 0


def _off_dual(case) -> tuple:
    """The case's rows and prior (also as floats), its dual lowered by 0.02, and the largest
    reduced cost per unit mass there over the enumerated rays (> 0: pricing has work)."""
    rows, prior, dual, _, _ = case
    prior_float = np.array([float(p) for p in prior])
    rays = _enumerated(np.array(rows, dtype=object), len(prior))
    mu = interval_utility("mi", {"prior": prior_float})
    d = len(prior)
    off = dual - 0.02
    truth = float(check_lp_dual(off, rays, mu, np.ones(d), np.eye(d)).violation)
    assert truth > 0
    return rows, prior, prior_float, off, truth


def test_settled_proof_of_a_stopped_search_is_exact_and_no_looser(case) -> None:
    """A search stopped after a few batches, settled (:mod:`rldp_models.conelp.settled_shift`):
    its proof checks at the shifted dual with a reduced cost per unit mass ``<= 0`` there, the
    shift covers the largest reduced cost over the enumerated rays, and it is no looser than
    the checker's ``H max(p)`` of the same tree unsettled."""
    rows, prior, prior_float, off, truth = _off_dual(case)

    def oracle() -> ConcavePricing:
        calls = iter(range(1_000_000))
        return ConcavePricing(np.array(rows, dtype=float), prior_float,
                              stop=lambda: next(calls) >= 3)

    plain = oracle().proof(off)
    settled = oracle().proof(off, settle=True)
    shift = float(settled["dual"][0] - off[0])
    assert np.allclose(settled["dual"] - off, shift, rtol=0, atol=1e-15)
    check = check_pricing_proof(settled, rows, prior, settled["dual"])
    assert check.holds, check.problems
    assert check.per_mass <= 1e-12
    assert shift >= truth - 1e-12
    crude = check_pricing_proof(plain, rows, prior, off)
    assert crude.holds and float(crude.h_bound) > 0
    assert shift <= float(crude.per_mass) + 1e-12


def test_a_shifted_proof_stopped_at_its_next_shift_keeps_the_shift_it_closed(case) -> None:
    """:meth:`ConcavePricing.proof` at shifts ``(2 t, t / 2, 0)`` of a dual whose largest
    reduced cost per unit mass is ``t`` over the enumerated rays, stopped a few batches into
    the second shift and settled: it checks exactly at its own dual, covers ``t``, and proves
    no more than the first shift (which closed), though the boxes solved again at the second
    have multipliers tight only there."""
    rows, prior, prior_float, off, truth = _off_dual(case)
    reached: list[tuple[float, float]] = []
    calls = iter(range(1_000_000))
    oracle = ConcavePricing(np.array(rows, dtype=float), prior_float,
                            stop=lambda: bool(reached) and next(calls) >= 3)
    made = oracle.proof(off, (2.0 * truth, 0.5 * truth, 0.0),
                        lambda shift, top: reached.append((shift, top)), settle=True)
    assert reached[0][1] <= 1e-9 and len(reached) == 2 and reached[1][1] > 0
    check = check_pricing_proof(made, rows, prior, made["dual"])
    assert check.holds, check.problems
    assert check.per_mass <= 1e-12
    shift = float(made["dual"][0] - off[0])
    assert np.allclose(made["dual"] - off, shift, rtol=0, atol=1e-15)
    assert truth - 1e-12 <= shift <= 2.0 * truth + 1e-9


def test_settled_shift_takes_each_leafs_better_multipliers(case) -> None:
    """Given zero multipliers (valid, loose) and a finished tree's own as the alternative, the
    settled shift is the tree's own one; with the zeros alone it is larger."""
    from rldp_models.conelp.settled_shift import settled_shift

    rows, prior, dual, _, proof = case
    oracle = ConcavePricing(np.array(rows, dtype=float), np.array([float(p) for p in prior]))
    leaves = proof["leaf"]
    lower, upper = proof["lower"][leaves], proof["upper"][leaves]
    record = np.zeros((leaves.size, oracle.rows.shape[0] + 1))  # the leaves', from the proof
    pointer, column, value = proof["leafy_ptr"], proof["leafy_col"], proof["leafy_val"]
    index, norms = oracle.row_source
    for k in range(leaves.size):
        part = slice(pointer[k], pointer[k + 1])
        record[k, column[part]] = value[part]
    record[:, index] *= norms  # back to the oracle's normalised rows
    top = float(proof["claimed"])
    zeros = np.zeros_like(record)
    alone = settled_shift(oracle, dual, lower, upper, zeros, top)[0]
    both = settled_shift(oracle, dual, lower, upper, zeros, top, record)[0]
    best = settled_shift(oracle, dual, lower, upper, record, top)[0]
    assert both == pytest.approx(best, rel=1e-6, abs=1e-12)
    assert alone > both + 1e-9
