"""``rldp mechanism staircase|ldp-s|lip|srlip``: optimal mechanisms from the cone LPs.

Inputs
------
``staircase`` (eps-LDP, ``extremal-mechanisms-ldp.txt`` Theorem 4) reads the
input alphabet X from ``--prior FILE`` with ``--utility mi`` (the default), or
from ``--prior0 FILE --prior1 FILE`` with ``--utility kl|tv|chi2`` (the
f-divergence ``D_f(P_0 Q || P_1 Q)`` of the output marginals). Prior files are
CSVs with a header row, then ``label,probability-or-count`` rows; the two files
of a divergence must list the same labels in the same order.

``ldp-s``, ``lip`` and ``srlip`` (``privacy-funnel-ldp-lip.txt`` Theorems 1-3)
read ``--joint FILE``: a crosstab CSV whose first row is a corner cell then
the X labels, and each further row an S label then one value per X label.
A table of whole numbers is counts and is normalised; any other table is
probabilities and must sum to 1 within :data:`PROBABILITY_SUM_TOLERANCE`.
``ldp-s`` maximises ``--utility`` (mi: ``I(X;Y)`` under the X marginal of
the joint; kl, tv, chi2: ``--prior0``/``--prior1`` with the joint's X
labels); ``lip`` and ``srlip`` maximise ``I(X;Y)``, as the paper does.

``srlip`` needs ``--attribute-sizes a_1 ... a_m``: X is ``X^1 x ... x X^m``
and the joint's X columns are in row-major order over the attributes (the
last attribute varies fastest). ``--split e_1 ... e_m`` gives the budgets
``eps^j`` (default ``eps / m`` each; at most ``eps`` in total).

Output (OUT.json)
-----------------
``mechanism``, ``eps``, ``utility_measure`` (mi, kl, tv or chi2),
``utility`` (``U(Q)`` recomputed from ``Q``; nats for mi and kl),
``labels`` (``X``, ``Y`` and, from a joint, ``S``), ``Q`` (``[x][y]``),
``repair_method`` and ``repair_weight``, ``certificate`` and ``privacy_check``.

``repair_method`` says how the LP's mechanism was made to pass the exact
check of its notion (:mod:`rldp_models.conelp.mechanism`): ``none`` (it
passed as it was, or its basic solution recomputed in exact rationals,
:mod:`rldp_models.conelp.exact_basis`, passed), ``mix`` (mixed with the
uniform mechanism, with weight ``repair_weight``) or ``fallback`` (replaced
by the one-output mechanism, weight 1: ``ldp-s`` and ``lip`` at ``eps = 0``
when the exact basis needs more than doubles, as for most joints given in
doubles). The summary's certificate verdict is ``rldp verify``'s, from the
same check on the record about to be written
(:func:`rldp_models.cli.mechanism_io.optimality_verdict`). A result whose
certificate is NOT verified (a fallback far below the LP's bound; a
column-generation staircase stopped short of the tolerance) is not written:
the verdict's lines are printed, one line on stderr says why, and the exit
code is 1 (``ExitCode.FAILED``), although its privacy guarantee holds. A
written record's ``certificate.verified`` is that check's verdict. ``ldp-s``
and ``lip`` on a cone whose rays the check cannot list (more than
``MAX_RAYS``), ``srlip`` with such an attribute cone, and ``staircase`` with
a utility other than mi on more than 16 inputs (no independent check) are
refused before solving: one line, exit 2. Files written
before the one repair record (:class:`rldp_models.finish.Repair`) say
``mix-uniform`` and ``constant``. For ``srlip`` both are lists over the
attributes, and ``product_repair``
(``method``, ``weight``) is that of the product ``Q``.

``certificate.dual`` is the LP dual in mechanism form: one number per input
symbol, with ``dual.q >= mu(q)`` for every column ``q`` of the privacy cone,
so ``sum(dual)`` bounds the utility of every feasible mechanism. For ``lip``
the LP is in joint form (``w = p_X * q``) and its dual ``lam`` becomes
``lam_x p_x`` (0 for inputs of zero mass). ``max_violation``,
``duality_gap`` and ``upper_bound`` are those of the LP's
:class:`~rldp_models.conelp.engine.DualCertificate`. For ``srlip`` every
field is a list over the attributes (``dual[j]`` has ``a_j`` numbers): each
certifies ``Q^j`` optimal for ``I(X^j;Y^j)`` at ``eps^j``, not the product.
``srlip`` also writes ``attribute_sizes``, ``split`` and ``attributes``
(``Q``, ``eps``, ``utility`` of each ``Q^j``); its ``Y`` labels are lists of
per-attribute output indices, in the row-major order of ``Q``.

``privacy_check`` comes from :mod:`rldp_models.privacy.matrix_checks`,
independently of the solver: ``holds`` is decided exactly (``exact`` is
true) by ``certify_ldp``, ``certify_ldp_wrt_secret``, ``certify_lip`` or
``certify_srlip`` (of the product ``Q``), which also give ``worst_pair``;
``level`` is the float level of the same notion, for information. ``srlip``
adds Theorem 3's float per-attribute levels ``attribute_levels``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from rldp_models.cli import ExitCode, one_line
from rldp_models.cli.common import epsilon
from rldp_models.cli.mechanism_io import read_prior, write_and_report
from rldp_models.data import read_csv_rows
from rldp_models.errors import InputError

if TYPE_CHECKING:
    from rldp_models.results.mechanism_result import MechanismInputs
    from rldp_models.utility import SublinearUtility

OPTIMAL_NAMES = ("staircase", "ldp-s", "lip", "srlip")
UTILITIES = ("mi", "kl", "tv", "chi2")
JOINT_NAMES = ("ldp-s", "lip", "srlip")
SRLIP_OPTIONS = ("attribute_sizes", "split")
STAIRCASE_OPTIONS = ("method",)
OWN_OPTIONS = ("utility", "prior0", "prior1", "joint", *SRLIP_OPTIONS, *STAIRCASE_OPTIONS)
CLOSED_FORM_OPTIONS = ("k", "counts", "delta", "sensitive")

PROBABILITY_SUM_TOLERANCE = 1e-9
"""Largest accepted ``|sum - 1|`` of a joint given as probabilities."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of the optimal mechanisms, added to ``rldp mechanism``."""
    group = parser.add_argument_group(
        "optimal mechanisms (staircase, ldp-s, lip, srlip)",
        "lip and srlip maximise mutual information I(X;Y), as the paper does")
    group.add_argument("--utility", choices=UTILITIES,
                       help="staircase and ldp-s: mi (default, I(X;Y)) or the f-divergence kl, "
                            "tv, chi2 between the output marginals of --prior0 and --prior1")
    group.add_argument("--prior0", metavar="FILE", help="P_0 for kl/tv/chi2 (prior CSV)")
    group.add_argument("--prior1", metavar="FILE",
                       help="P_1 for kl/tv/chi2 (prior CSV, same labels as --prior0)")
    group.add_argument("--joint", metavar="FILE",
                       help="ldp-s/lip/srlip: S x X crosstab CSV (corner cell, X labels; rows: "
                            "S label, values); whole numbers are counts, else probabilities")
    group.add_argument("--attribute-sizes", type=int, nargs="+", metavar="A",
                       help="srlip: |X^1| ... |X^m|; the joint's X columns in row-major order "
                            "(last attribute fastest)")
    group.add_argument("--split", type=epsilon, nargs="+", metavar="E",
                       help="srlip: per-attribute budgets (default eps/m each)")
    group.add_argument("--method", choices=("auto", "enumerate", "column-generation"),
                       help="staircase: price all 2^k patterns (enumerate, k <= 24), use the "
                            "exact pricing oracle (column-generation, mi/kl/tv, k <= 64), or "
                            "choose by k (auto, the default)")


def reject_options(args: argparse.Namespace) -> None:
    """Refuse the options of this module for a closed-form mechanism."""
    _reject(args, OWN_OPTIONS, ", ".join(OPTIMAL_NAMES))


def run(args: argparse.Namespace) -> int:
    """Solve the cone LP named by ``args.name``, check it and write OUT.json."""
    _reject(args, CLOSED_FORM_OPTIONS, "the closed-form mechanisms")
    if args.name != "srlip":
        _reject(args, SRLIP_OPTIONS, "srlip")
    if args.name != "staircase":
        _reject(args, STAIRCASE_OPTIONS, "staircase")
    problem = _problem(args)
    from solvers import SolverError

    try:
        result = _srlip_result(args, problem) if args.name == "srlip" else \
            _single_result(args, problem)
    except SolverError as exc:  # no --solver here: a failure on valid input, not bad input
        sys.stderr.write(f"rldp: {args.name}: the cone LP's solver gave up ({one_line(exc)}); "
                         f"nothing was certified or written\n")
        return ExitCode.INCONCLUSIVE
    return write_and_report(result, args)


def _reject(args: argparse.Namespace, options: tuple[str, ...], owners: str) -> None:
    given = [option for option in options if getattr(args, option) is not None]
    if given:
        flag = "--" + given[0].replace("_", "-")
        raise InputError(f"{flag} does not apply to {args.name}; it is for {owners}")


# --- inputs ------------------------------------------------------------------------------

def _problem(args: argparse.Namespace) -> "MechanismInputs":
    measure = args.utility or "mi"
    if args.name in ("lip", "srlip") and measure != "mi":
        raise InputError(f"{args.name} maximises mutual information; --utility {measure} "
                         f"does not apply")
    if args.name in JOINT_NAMES:
        return _joint_problem(args, measure)
    return _prior_problem(args, measure)


def _prior_problem(args: argparse.Namespace, measure: str) -> "MechanismInputs":
    """The alphabet and utility of ``staircase``."""
    from rldp_models.results.mechanism_result import MechanismInputs
    from rldp_models.utility import MutualInformation

    if args.joint is not None:
        raise InputError("staircase takes --prior FILE (or --prior0/--prior1), not --joint")
    if measure == "mi":
        _refuse_divergence_priors(args)
        if args.prior is None:
            raise InputError("staircase needs --prior FILE (or --utility kl|tv|chi2 with "
                             "--prior0 FILE --prior1 FILE)")
        labels, prior = read_prior(args.prior)
        return MechanismInputs(labels, prior, MutualInformation(prior), measure)
    if args.prior is not None:
        raise InputError(f"--utility {measure} takes --prior0 and --prior1, not --prior")
    labels, prior0, utility = _divergence(args, measure, None)
    return MechanismInputs(labels, prior0, utility, measure)


def _joint_problem(args: argparse.Namespace, measure: str) -> "MechanismInputs":
    """The joint, alphabet and utility of ``ldp-s``, ``lip`` and ``srlip``."""
    from rldp_models.results.mechanism_result import MechanismInputs
    from rldp_models.utility import MutualInformation

    if args.joint is None:
        raise InputError(f"{args.name} needs --joint FILE (an S x X crosstab CSV)")
    if args.prior is not None:
        raise InputError(f"{args.name} takes the distribution of X from --joint, not --prior")
    s_labels, x_labels, joint = read_joint(args.joint)
    prior = joint.sum(axis=0)
    if measure == "mi":
        _refuse_divergence_priors(args)
        utility: "SublinearUtility" = MutualInformation(prior)
    else:
        _, _, utility = _divergence(args, measure, x_labels)
    return MechanismInputs(x_labels, prior, utility, measure, s_labels, joint)


def _refuse_divergence_priors(args: argparse.Namespace) -> None:
    if args.prior0 is not None or args.prior1 is not None:
        raise InputError("--prior0/--prior1 are for --utility kl, tv or chi2")


def _divergence(args: argparse.Namespace, measure: str, x_labels: list[str] | None
                ) -> tuple[list[str], np.ndarray, "SublinearUtility"]:
    """Labels, ``P_0`` and the f-divergence utility from ``--prior0`` and ``--prior1``.

    The labels of both files (and ``x_labels`` when given) must agree, in order.
    ``kl`` and ``chi2`` need ``P_0 << P_1``, else some columns have infinite utility.
    """
    if args.prior0 is None or args.prior1 is None:
        raise InputError(f"--utility {measure} needs --prior0 FILE and --prior1 FILE")
    labels0, prior0 = read_prior(args.prior0)
    labels1, prior1 = read_prior(args.prior1)
    if labels1 != labels0:
        raise InputError(f"{args.prior0} and {args.prior1} must list the same labels in the "
                         f"same order, got {labels0} and {labels1}")
    if x_labels is not None and labels0 != x_labels:
        raise InputError(f"{args.prior0} must list the X labels of {args.joint} in order, "
                         f"got {labels0} and {x_labels}")
    if measure != "tv" and np.any((prior0 > 0) & (prior1 == 0)):
        raise InputError(f"--utility {measure} needs prior1 > 0 wherever prior0 > 0")
    from rldp_models.utility import chi_square_divergence, kl_divergence, total_variation

    divergences = {"kl": kl_divergence, "tv": total_variation, "chi2": chi_square_divergence}
    return labels0, prior0, divergences[measure](prior0, prior1)


def read_joint(path: str | Path) -> tuple[list[str], list[str], np.ndarray]:
    """S labels, X labels and the joint ``P(S=s, X=x)`` from an S x X crosstab CSV.

    Whole numbers are counts and are normalised; otherwise the values are
    probabilities and must sum to 1 within :data:`PROBABILITY_SUM_TOLERANCE`.
    """
    rows = read_csv_rows(path)
    if len(rows) < 2 or len(rows[0]) < 3:
        raise InputError(f"{path}: a joint needs a header row (corner cell, >= 2 X labels) and "
                         f"at least one S row")
    if any(len(row) != len(rows[0]) for row in rows):
        raise InputError(f"{path}: ragged CSV, every row needs {len(rows[0])} fields")
    s_labels, x_labels = [row[0] for row in rows[1:]], rows[0][1:]
    for axis, labels in (("S", s_labels), ("X", x_labels)):
        if len(set(labels)) != len(labels):
            raise InputError(f"{path}: duplicate {axis} labels")
    try:
        values = np.array([[float(cell) for cell in row[1:]] for row in rows[1:]])
    except ValueError:
        raise InputError(f"{path}: values must be numbers") from None
    if not np.all(np.isfinite(values)) or np.any(values < 0) or values.sum() <= 0:
        raise InputError(f"{path}: values must be finite, >= 0, and not all 0")
    if np.any(values != np.round(values)) and abs(values.sum() - 1.0) > PROBABILITY_SUM_TOLERANCE:
        raise InputError(f"{path}: probabilities must sum to 1, they sum to {values.sum():.12g} "
                         f"(give whole-number counts to have them normalised)")
    return s_labels, x_labels, values / values.sum()


# --- solving ---------------------------------------------------------------------------

def _single_result(args: argparse.Namespace, problem: "MechanismInputs"):
    """``staircase``, ``ldp-s`` or ``lip`` solved and made a certified result."""
    from rldp_models import conelp
    from rldp_models.results.mechanism_result import optimal_mechanism_result

    if args.name == "staircase":
        _refuse_uncheckable_staircase(len(problem.prior), problem.measure)
        result = conelp.staircase_mechanism(problem.prior, args.eps, problem.utility,
                                            method=args.method or "auto")
    elif args.name == "ldp-s":
        _refuse_uncheckable_cone(args.name, problem.secret_joint, args.eps)
        result = conelp.ldp_wrt_secret_mechanism(problem.secret_joint, args.eps, problem.utility)
    else:
        _refuse_uncheckable_cone(args.name, problem.secret_joint, args.eps)
        result = conelp.lip_mechanism(problem.secret_joint, args.eps)
    return optimal_mechanism_result(args.name, result, problem, args.eps)


def _refuse_uncheckable_staircase(k: int, measure: str) -> None:
    """Refuse, before solving, a staircase whose certificate has no independent check
    (:func:`rldp_models.certificates.staircase_check.uncheckable`: a utility other than
    mutual information past 16 inputs); its result could never be written.

    Raises
    ------
    InputError
        One line, naming the reason.
    """
    from rldp_models.certificates.staircase_check import uncheckable

    reason = uncheckable(k, measure)
    if reason is not None:
        raise InputError(f"staircase: refused before solving: the certificate of optimality "
                         f"could not be checked ({reason}); --utility mi has one at every k")


def _refuse_uncheckable_cone(name: str, joint: np.ndarray, eps: float) -> None:
    """Refuse, before solving, a cone whose rays no check of the certificate can list.

    The certificate is checked over every ray of the cone in exact rationals
    (:func:`rldp_models.conelp.exact_lp_dual.cone_rays`, by the producer and by
    ``rldp verify``), which gives up past ``MAX_RAYS`` rays; a result on such a
    cone would be refused after the solve (or, in ``lip``, the float double
    description would run for tens of minutes first: Adult race x
    native-country). Listing the rays up to the cap is quick both ways (Adult,
    ``eps = 1``: 0.01-0.14 s for race x education, 1-6 s to give up on race x
    native-country or occupation x education).

    Raises
    ------
    InputError
        One line: the cone is too large to certify.
    """
    from rldp_models.conelp.exact_lp_dual import MAX_RAYS, cone_rays, outer_ratio
    from rldp_models.results.certificate_record import LP_CONES

    try:
        cone_rays(LP_CONES[name], joint.shape[1], outer_ratio(eps), joint)
    except InputError as exc:
        raise InputError(f"{name}: refused before solving: the certificate of optimality "
                         f"could not be checked ({exc}; the check lists at most {MAX_RAYS})"
                         ) from None


def _srlip_result(args: argparse.Namespace, problem: "MechanismInputs"):
    """``srlip``: per-attribute cone LPs, the product and its certificates."""
    from rldp_models import conelp
    from rldp_models.results.mechanism_result import srlip_result

    sizes = _attribute_sizes(args.attribute_sizes, len(problem.x_labels))
    joint = problem.secret_joint.reshape(-1, *sizes)
    _refuse_uncheckable_attribute_cones(joint, args.eps, args.split)
    result = conelp.srlip_mechanism(joint, args.eps, args.split)
    return srlip_result(result, problem, sizes, args.eps)


def _refuse_uncheckable_attribute_cones(joint: np.ndarray, eps: float,
                                        split: list[float] | None) -> None:
    """Refuse, before solving, an attribute whose cone ``C_j`` has rays no check can list.

    SRLIP solves one cone LP per attribute over the rays of ``C_j`` (privacy
    funnel eqs. 15-16), and its certificate is checked over the same rays in
    exact rationals (:func:`rldp_models.conelp.exact_lp_dual.attribute_cone_rays`,
    by the producer and by ``rldp verify``), which gives up past ``MAX_RAYS``:
    the same bound as ``lip``'s (:func:`_refuse_uncheckable_cone`). With one
    attribute ``C_1`` is the LIP cone: Adult race x native-country and education
    x occupation ran more than 4 minutes before this check, which refuses them
    in seconds.

    Raises
    ------
    InputError
        One line: the attribute whose cone is too large to certify.
    """
    from rldp_models.conelp.exact_lp_dual import MAX_RAYS, attribute_cone_rays, outer_ratio
    from rldp_models.conelp.srlip import split_budgets
    from rldp_models.errors import TooManyRays

    for j, eps_j in enumerate(split_budgets(eps, joint.ndim - 1, split)):
        try:
            attribute_cone_rays(joint, j, outer_ratio(eps_j))
        except TooManyRays as exc:
            raise InputError(f"srlip: refused before solving: the certificate of optimality "
                             f"of attribute {j + 1} (of {joint.shape[1 + j]} values) could not "
                             f"be checked ({exc}; the check lists at most {MAX_RAYS})") from None


def _attribute_sizes(sizes: list[int] | None, a: int) -> tuple[int, ...]:
    if sizes is None:
        raise InputError("srlip needs --attribute-sizes A1 A2 ... (X = X^1 x ... x X^m)")
    if min(sizes) < 1 or int(np.prod(sizes)) != a:
        raise InputError(f"--attribute-sizes {' '.join(map(str, sizes))} must be >= 1 and "
                         f"multiply to |X| = {a}")
    return tuple(sizes)
