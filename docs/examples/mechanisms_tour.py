"""Closed-form mechanisms, their exact checks, a utility, and two estimators."""

import numpy as np

from rldp_models.estimators import em_estimate, empirical_estimate, output_frequencies
from rldp_models.mechanisms import RandomizedResponse, SecretRandomizedResponse, UtilityOptimizedRR
from rldp_models.privacy import certify_ldp, certify_uldp, ldp_epsilon, uldp_epsilon
from rldp_models.utility import MutualInformation

eps = 1.0
rr = RandomizedResponse(eps, 4)
Q = rr.matrix()
print("RR: ldp_epsilon =", ldp_epsilon(Q), "| certify_ldp(Q, 1.0):", certify_ldp(Q, eps))
print("    certify_ldp(Q, 0.999):", certify_ldp(Q, 0.999).holds)

srr = SecretRandomizedResponse(eps, 2, 3)           # X = S x U, |S| = 2, |U| = 3
Q_srr = srr.matrix()
print("SRR: LDP level", round(ldp_epsilon(Q_srr), 6),
      "| level across secrets", round(ldp_epsilon(Q_srr, srr.secret_of()), 6))

urr = UtilityOptimizedRR(eps, [True, True, False, False, False])
print("uRR: ULDP level", uldp_epsilon(urr.matrix(), np.array(urr.sensitive)),
      "| certify_uldp:", certify_uldp(urr.matrix(), np.array(urr.sensitive), eps).holds)

prior = np.array([0.4, 0.3, 0.2, 0.1])
print(f"I(X;Y) under RR = {MutualInformation(prior).total(Q):.6f} nats")

rng = np.random.default_rng(7)
x = rng.choice(4, size=20_000, p=prior)
y = rr.sample(x, rng)
f = output_frequencies(y, 4)
print("empirical inversion:", np.round(empirical_estimate(Q, f), 4))
em = em_estimate(Q, f)
print("EM:", np.round(em.estimate, 4), "iterations", em.iterations, "converged", em.converged)
