"""The cone LP's basic solution made exact (:mod:`rldp_models.conelp.exact_basis`).

The eps = 0 optimum of LDP w.r.t. ``S`` is checked against an independent
computation: for two secrets the cone ``{q >= 0 : P(y|s=0) = P(y|s=1)}`` is
``{q >= 0 : c.q = 0}`` with ``c = p(1) p(0, .) - p(0) p(1, .)``; its rays are
``|c_j| e_i + c_i e_j`` (``c_i > 0 > c_j``) and ``e_x`` (``c_x = 0``), written
out here, and the LP over them is solved by trying every basis in exact
rationals, mutual information evaluated by its definition.
"""

from __future__ import annotations

import io
import itertools
from contextlib import redirect_stdout
from fractions import Fraction
from pathlib import Path

import mpmath
import numpy as np
import pytest

import rldp_models.cli as cli
from rldp_models.conelp import ldp_wrt_secret_mechanism, lip_mechanism
from rldp_models.conelp.exact_basis import ExactCone, exact_basis_mechanisms
from rldp_models.conelp.exact_lp_dual import LPCheck, joint_cone_rays
from rldp_models.privacy import certify_ldp_wrt_secret

COUNTS = np.array([[10, 20, 5, 7], [3, 8, 12, 9]])
"""``/work/notes/s3/joint_s2x4.csv``: S correlated with X, not a function of it."""

GENERIC = np.array([[17, 3, 25, 9], [4, 22, 6, 13]])
"""Counts whose doubles give rays of about 110 bits: no exact-double mechanism on them."""


def joint_of(counts: np.ndarray) -> np.ndarray:
    return counts / counts.sum()


def mutual_information(prior: np.ndarray, Q: np.ndarray) -> float:
    """``I(X;Y) = sum_{x,y} p_x Q_xy log(Q_xy / P(y))`` from its definition."""
    p_y = prior @ Q
    total = 0.0
    for x, y in itertools.product(range(Q.shape[0]), range(Q.shape[1])):
        if Q[x, y] > 0:
            total += prior[x] * Q[x, y] * np.log(Q[x, y] / p_y[y])
    return total


def brute_force_eps_zero_optimum(joint: np.ndarray) -> float:
    """max I(X;Y) over mechanisms with ``P(y|0) = P(y|1)``: every basis of the rays, exactly."""
    exact = [[Fraction(float(v)) for v in row] for row in joint]
    mass = [sum(row) for row in exact]
    c = [mass[1] * exact[0][x] - mass[0] * exact[1][x] for x in range(joint.shape[1])]
    d = len(c)
    rays = [[abs(c[j]) if k == i else c[i] if k == j else Fraction(0) for k in range(d)]
            for i in range(d) for j in range(d) if c[i] > 0 > c[j]]
    rays += [[Fraction(int(k == x)) for k in range(d)] for x in range(d) if c[x] == 0]
    best = 0.0
    prior = joint.sum(axis=0)
    for size in range(1, d + 1):
        for basis in itertools.combinations(rays, size):
            weights = _solve_exactly(basis, d)
            if weights is not None:
                Q = np.array([[float(w * ray[x]) for w, ray in zip(weights, basis)]
                              for x in range(d)])
                best = max(best, mutual_information(prior, Q))
    return best


def _solve_exactly(basis: tuple[list[Fraction], ...], d: int) -> list[Fraction] | None:
    """``w >= 0`` with ``sum_r w_r basis_r = 1`` by Gauss-Jordan in Fractions, or None."""
    m = len(basis)
    rows = [[basis[r][x] for r in range(m)] + [Fraction(1)] for x in range(d)]
    pivot_row = 0
    for col in range(m):
        pivot = next((i for i in range(pivot_row, d) if rows[i][col] != 0), None)
        if pivot is None:
            return None
        rows[pivot_row], rows[pivot] = rows[pivot], rows[pivot_row]
        rows[pivot_row] = [v / rows[pivot_row][col] for v in rows[pivot_row]]
        for i in range(d):
            if i != pivot_row and rows[i][col] != 0:
                factor = rows[i][col]
                rows[i] = [a - factor * b for a, b in zip(rows[i], rows[pivot_row])]
        pivot_row += 1
    if any(rows[i][m] != 0 for i in range(m, d)):
        return None
    weights = [rows[i][m] for i in range(m)]
    return weights if all(w >= 0 for w in weights) else None


def test_eps_zero_ldp_s_reaches_the_brute_force_optimum() -> None:
    joint = joint_of(COUNTS)
    expected = brute_force_eps_zero_optimum(joint)
    assert expected > 0.6  # informative: S is not a function of X
    mechanism = ldp_wrt_secret_mechanism(joint, 0.0)
    assert mechanism.repair.method == "none"
    assert mechanism.certification.holds
    assert certify_ldp_wrt_secret(mechanism.Q, joint, 0.0).holds
    assert mechanism.utility == pytest.approx(expected, abs=1e-12)
    assert mutual_information(joint.sum(axis=0), mechanism.Q) == pytest.approx(expected,
                                                                               abs=1e-12)


def test_eps_zero_lip_reaches_the_same_optimum() -> None:
    """Two secrets: ``P(y|s) = P(y)`` for both ``s`` iff ``P(y|0) = P(y|1)``."""
    joint = joint_of(COUNTS)
    mechanism = lip_mechanism(joint, 0.0)
    assert mechanism.repair.method == "none"
    assert mechanism.utility == pytest.approx(brute_force_eps_zero_optimum(joint), abs=1e-12)


def test_exact_columns_lie_on_the_rays_and_rows_sum_to_one() -> None:
    joint = joint_of(COUNTS)
    mechanism = ldp_wrt_secret_mechanism(joint, 0.0)
    exact = [[Fraction(float(v)) for v in row] for row in joint]
    mass = [sum(row) for row in exact]
    for column in mechanism.Q.T:
        q = [Fraction(float(v)) for v in column]
        assert mass[1] * sum(a * b for a, b in zip(exact[0], q)) == \
            mass[0] * sum(a * b for a, b in zip(exact[1], q))
    for row in mechanism.Q:
        assert sum(Fraction(float(v)) for v in row) == 1


def test_long_rays_leave_the_fallback_and_say_so() -> None:
    """Generic doubles: no exact-double informative mechanism; the repair record says fallback."""
    joint = joint_of(GENERIC)
    mechanism = ldp_wrt_secret_mechanism(joint, 0.0)
    assert mechanism.repair.method == "fallback" and mechanism.certification.holds
    assert mechanism.solution.value > 0.1  # the LP's optimum is informative, all the same


def test_exact_basis_on_a_hand_made_cone() -> None:
    """``{q >= 0 : q_0 + q_1 = 2 q_2}``: rays (2, 0, 1) and (0, 2, 1), weights 1/2 each."""
    c = [Fraction(1), Fraction(1), Fraction(-2)]
    rows = np.array([c, [-v for v in c]], dtype=object)
    vectors = np.array([[2.0 + 1e-13, 0.0], [0.0, 2.0], [1.0, 1.0 - 1e-13]])
    on_rays, rounded = exact_basis_mechanisms(vectors, ExactCone(rows))
    expected = np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]])
    np.testing.assert_array_equal(on_rays, expected)
    np.testing.assert_array_equal(rounded, expected)


def test_a_point_off_every_ray_gives_no_candidate() -> None:
    """A float vector in the cone's interior is no ray: nothing is claimed exact."""
    c = [Fraction(1), Fraction(1), Fraction(-2)]
    rows = np.array([c, [-v for v in c]], dtype=object)
    assert exact_basis_mechanisms(np.array([[1.0], [1.0], [1.0]]), ExactCone(rows)) == []


def test_verifier_lip_cone_at_eps_zero_has_rays() -> None:
    """The LIP cone normalises ``P(y)`` as ``certify_lip`` does (the doubles sum near 1)."""
    rays = joint_cone_rays("lip", joint_of(GENERIC), Fraction(1))
    assert len(rays) == len(joint_cone_rays("ldp-wrt-secret", joint_of(GENERIC), Fraction(1)))
    assert rays


def test_an_infinite_bound_is_not_optimal() -> None:
    check = LPCheck(0, mpmath.mpf("-inf"), mpmath.mpf("inf"), mpmath.mpf(0))
    assert not check.optimal and not check.holds


def rldp(argv: list[str]) -> tuple[int, str]:
    out = io.StringIO()
    with redirect_stdout(out):
        try:
            code = cli.main(argv)
        except SystemExit as exc:
            code = int(exc.code or 0)
    return code, out.getvalue()


def write_joint(path: Path, counts: np.ndarray) -> str:
    lines = ["s," + ",".join(f"x{i}" for i in range(counts.shape[1]))]
    lines += [f"s{i}," + ",".join(str(int(v)) for v in row) for i, row in enumerate(counts)]
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_cli_eps_zero_ldp_s_is_verified(tmp_path: Path) -> None:
    out = str(tmp_path / "a.json")
    code, text = rldp(["mechanism", "ldp-s", "--eps", "0", "--joint",
                       write_joint(tmp_path / "j.csv", COUNTS), "--out", out])
    assert code == 0 and "certificate verified" in text and "repaired" not in text
    code, text = rldp(["verify", out])
    assert code == 0 and "certificate: holds" in text


PRIOR_CSV = "x,p\na,3\nb,5\nc,1\nd,7\n"
SRLIP_COUNTS = np.array([[5, 15, 2, 4], [30, 50, 1, 2]])


@pytest.mark.parametrize("name, eps, counts", [
    ("staircase", "0", None), ("staircase", "0.5", None),
    ("ldp-s", "0", COUNTS), ("ldp-s", "0", GENERIC), ("ldp-s", "1e-6", GENERIC),
    ("ldp-s", "0.5", GENERIC),
    ("lip", "0", COUNTS), ("lip", "0", GENERIC), ("lip", "0.5", GENERIC),
    ("srlip", "0", SRLIP_COUNTS), ("srlip", "0.5", SRLIP_COUNTS),
])
def test_writer_says_what_verify_finds(tmp_path: Path, name: str, eps: str,
                                       counts: np.ndarray | None) -> None:
    """The printed certificate verdict is ``rldp verify``'s; only a verified one is written."""
    out = str(tmp_path / "o.json")
    if counts is None:
        (tmp_path / "p.csv").write_text(PRIOR_CSV)
        inputs = ["--prior", str(tmp_path / "p.csv")]
    else:
        inputs = ["--joint", write_joint(tmp_path / "j.csv", counts)]
    if name == "srlip":
        inputs += ["--attribute-sizes", "2", "2"]
    code, text = rldp(["mechanism", name, "--eps", eps, *inputs, "--out", out])
    said = "certificate verified" in text
    assert said != ("certificate NOT verified" in text)
    assert (code == 0) == said == Path(out).exists()  # an unverified optimum is not written
    if said:
        code, verdict = rldp(["verify", out])
        assert "certificate: holds" in verdict and code == 0
    else:
        assert code == 1 and "certificate: FAILS" in text
