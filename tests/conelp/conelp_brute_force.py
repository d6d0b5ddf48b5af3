"""Brute force shared by the cone-LP tests: optimise over whole mechanisms, not rays.

(A helper module, not a conftest.py: ``tests/conftest.py`` is imported by name
elsewhere in the suite, and a second ``conftest`` module would shadow it.)

``mechanism_polytope_optimum`` enumerates (with cdd, directly) the vertices of
``{Q in R^{a x l} : rows stochastic, every column q satisfies a.q >= 0}`` and
returns the largest ``I(X;Y)`` among them. ``I(X;Y)`` is convex in ``Q``, so
the maximum over the polytope is at a vertex: this is the whole-mechanism
approach of the papers (Theorem 1 of privacy-funnel-ldp-lip.txt), independent
of the cone-LP code. Taking ``l = a + 1`` outputs also tests, rather than
assumes, that ``a`` outputs suffice (Theorem 2 (a) of the extremal paper).
"""

from __future__ import annotations

import itertools

import cdd
import numpy as np


def mutual_information(prior: np.ndarray, Q: np.ndarray) -> np.ndarray:
    """I(X;Y) of a batch of mechanisms Q[..., x, y], written out (extremal paper eq. (5))."""
    joint = prior[:, None] * Q
    output = joint.sum(axis=-2, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(joint > 0, joint * np.log(Q / output), 0.0)
    return terms.sum(axis=(-2, -1))


def mechanism_polytope_optimum(prior: np.ndarray, column_rows: np.ndarray, outputs: int) -> float:
    a = prior.size
    n = a * outputs
    index = np.arange(n).reshape(a, outputs)
    inequalities = [np.eye(n)[i] for i in range(n)]
    for row, y in itertools.product(column_rows, range(outputs)):
        constraint = np.zeros(n)
        constraint[index[:, y]] = row
        inequalities.append(constraint)
    equalities = [np.isin(np.arange(n), index[x]).astype(float) for x in range(a)]
    array = [[0.0, *row] for row in inequalities] + [[-1.0, *row] for row in equalities]
    matrix = cdd.matrix_from_array(array, lin_set=range(len(inequalities), len(array)),
                                   rep_type=cdd.RepType.INEQUALITY)
    generators = np.array(cdd.copy_generators(cdd.polyhedron_from_matrix(matrix)).array)
    vertices = generators[generators[:, 0] == 1, 1:].reshape(-1, a, outputs)
    return float(mutual_information(prior, np.clip(vertices, 0, None)).max())
