"""Certificates of the toolkit's results and their verification (issue 5, DESIGN core idea 4).

Every robust constraint keeps its multipliers and every LP its duals; this
package re-checks them without the solver that produced them:
:mod:`~rldp_models.certificates.conic` (chi-square programs, 60-digit
interval arithmetic), :mod:`~rldp_models.conelp.exact_lp_dual` (cone-LP duals in
exact rationals), :mod:`~rldp_models.certificates.worst_case` (independent
inner solves) and :mod:`~rldp_models.certificates.verification` (both verdicts of ``rldp verify``).
"""
