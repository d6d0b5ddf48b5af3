"""``rldp verify OUT.json --counts FILE``: check a result's protocol independently.

Exit 0 exactly when the protocol is an (exactly) stochastic matrix that meets
its stated guarantee — nominal (at ``Phat``) for NUNP and RUNP, robust (for
every distribution in the chi-square set) for NURP and RURP — and print the
worst-case eps it achieves. Exit 1 with the reason otherwise.
"""

from __future__ import annotations

import argparse
import math

import numpy as np

from rldp_models.cli.common import add_data_arguments, load_crosstab
from rldp_models.data import Crosstab
from rldp_models.errors import InputError
from rldp_models.exact import is_exactly_stochastic
from rldp_models.problem_kinds import PRESETS
from rldp_models.results_io import read_result


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("verify", help="check a result's privacy guarantee",
                                   description=__doc__)
    parser.add_argument("result", metavar="OUT.json")
    add_data_arguments(parser)
    parser.set_defaults(func=run)


def _protocol(record: dict, crosstab: Crosstab) -> np.ndarray:
    labels = record["labels"]
    if list(labels.get("S", [])) != list(crosstab.s_labels) or \
            list(labels.get("U", [])) != list(crosstab.u_labels):
        raise InputError("the counts' labels differ from the result's labels "
                         f"(S {labels.get('S')}, U {labels.get('U')})")
    try:
        cube = np.array(record["protocol"], dtype=float)
    except (TypeError, ValueError):
        raise InputError("the result's protocol is not a numeric [s][u][y] array") from None
    n_s, n_u = crosstab.shape
    if cube.ndim != 3 or cube.shape[:2] != (n_s, n_u) or cube.shape[2] != len(labels["Y"]):
        raise InputError(f"the result's protocol has shape {cube.shape}, expected "
                         f"({n_s}, {n_u}, {len(labels['Y'])})")
    return cube.reshape(n_s * n_u, -1)


def _robust_multipliers(record: dict) -> dict:
    groups = (record.get("certificate") or {}).get("multipliers") or {}
    found = {}
    for name, values in groups.items():
        if name.startswith("robust_privacy[") and {"c", "t"} <= set(values):
            s1, s2 = (int(i) for i in name[len("robust_privacy["):-1].split(","))
            found[s1, s2] = {"c": np.asarray(values["c"], float),
                             "t": np.asarray(values["t"], float)}
    return found


def run(args: argparse.Namespace) -> int:
    record = read_result(args.result)
    crosstab = load_crosstab(args)
    problem = str(record["problem"]).upper()
    if problem not in PRESETS:
        raise InputError(f"cannot verify problem {problem!r}; known: {', '.join(PRESETS)}")
    protocol = _protocol(record, crosstab)
    eps = float(record["eps"])
    stochastic, reason = is_exactly_stochastic(protocol)
    if not stochastic:
        print(f"FAIL: not a stochastic matrix: {reason}")
        return 1
    if PRESETS[problem][1]:
        return _verify_robust(record, crosstab, protocol, eps)
    return _verify_nominal(crosstab, protocol, eps)


def _verify_nominal(crosstab: Crosstab, protocol: np.ndarray, eps: float) -> int:
    from rldp_models.privacy.guarantees import check_nominal_privacy
    from rldp_models.privacy.metrics import epsilon_star

    check = check_nominal_privacy(protocol, crosstab.counts, eps)
    achieved = epsilon_star(protocol, crosstab.phat)
    print(f"nominal guarantee (at Phat), eps = {eps:g}: {'holds' if check.holds else 'FAILS'}")
    print(f"  worst-case eps at Phat: {achieved:.9g}")
    if not check.holds:
        print(f"FAIL: {check.summary()}")
    return 0 if check.holds else 1


def _verify_robust(record: dict, crosstab: Crosstab, protocol: np.ndarray, eps: float) -> int:
    from rldp_models.privacy.guarantees import check_robust_privacy
    from rldp_models.privacy.worst_case import worst_case_epsilon
    from rldp_models.uncertainty.chi_square import ChiSquareSet, chi_square_radius

    alpha = record.get("alpha")
    if alpha is None:
        raise InputError("a robust result must record its alpha")
    radius = chi_square_radius(crosstab.n, crosstab.counts.size, float(alpha))
    stated = record.get("radius_B")
    if stated is not None and not math.isclose(float(stated), radius, rel_tol=1e-12):
        print(f"FAIL: the result's radius B = {stated} is not the one of alpha = {alpha} "
              f"and these counts ({radius})")
        return 1
    uncertainty = ChiSquareSet(crosstab.phat, radius, float(alpha))
    check = check_robust_privacy(protocol, crosstab.counts, uncertainty, eps,
                                 _robust_multipliers(record))
    worst = worst_case_epsilon(protocol, crosstab.counts, uncertainty)
    print(f"robust guarantee (all P in the chi-square set, alpha = {alpha}, B = {radius:.6g}), "
          f"eps = {eps:g}: {'holds' if check.holds else 'FAILS'}")
    print(f"  worst-case eps over F: {worst.certified:.9g} (certified upper bound); "
          f"{worst.attained:.9g} attained by a distribution in F")
    if not check.holds:
        print(f"FAIL: {check.summary()}")
    return 0 if check.holds else 1
