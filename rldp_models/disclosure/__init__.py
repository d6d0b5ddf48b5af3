"""From a certified result to released data: exact release, estimation, comparison.

=================================  ===========================================
module                             idea
=================================  ===========================================
:mod:`~.sampling`                  exact draws from dyadic rows with random bits
:mod:`~.audit`                     statistical audit of released draws (fit, ratios)
:mod:`~.channel`                   a result read and re-checked, ready to draw
:mod:`~.records`                   releasing records; the result digest a file records
:mod:`~.identifiability`           targets ``M P_X``; exact row-space test against ``Q^T``
:mod:`~.estimation`                released counts; EM, inversion, intervals, figure
:mod:`~.comparison`                results side by side on one table of counts
=================================  ===========================================

The command line: ``rldp release``, ``rldp estimate``, ``rldp compare``
(``docs/release.md``).
"""
