"""Certificates of the toolkit's results and their verification (issue 5, DESIGN core idea 4).

Every robust constraint keeps its multipliers and every LP its duals; this
package re-checks them without the solver that produced them:
each block of a program through its ``certify_multipliers`` hook (60-digit
interval arithmetic and independent inner solves,
:mod:`~rldp_models.privacy.stored_bounds`), :mod:`~rldp_models.conelp.exact_lp_dual`
(cone-LP duals in exact rationals) and :mod:`~rldp_models.certificates.verification`
(both verdicts of ``rldp verify``).
"""
