"""Figs. 2-11 of ``rldp-privacy-utility-tradeoff.txt`` (Sec. VIII) as experiments.

Synthetic instances (Secs. VIII-A to VIII-F): ``P*`` drawn from the Jeffreys
prior on ``S x U`` (``a_1 x a_2``), ``n`` records drawn from ``P*``, ``F`` the
chi-square set of the sample at ``alpha`` (0.05 unless varied); the paper
averages ``I_Phat(X;Y) / H(X)`` over 200 distributions for
``eps in [0.2, 8]``. Fig. 10 uses the Adult data (:mod:`rldp_models.datasets`).

Readings where the paper is silent (stated in each ``claim``): the ``eps``
grid (:data:`FULL_EPS`), the ``n`` values of Figs. 7 and 9, ``H(X)`` taken
under ``Phat`` (the quantity the aggregator has), and for Fig. 11 the paper's
default of 200 distributions. The tables, figures and verdicts are built by
:mod:`.rldp_tasks` (tasks and rows) and :mod:`.rldp_verdicts` (summaries).
"""

from __future__ import annotations

from rldp_models.experiments.base import Experiment
from rldp_models.experiments.rldp_parameters import (fig5_tasks, fig5_verdict, fig6_tasks,
                                                     fig6_verdict, plot_difference_against_entropy,
                                                     plot_parameters, run_ir_against_grr_cr,
                                                     run_parameters)
from rldp_models.experiments.rldp_tasks import (fig10_tasks, fig11_tasks, fig2_tasks,
                                                fig3_tasks, fig4_tasks, fig7_tasks, fig8_tasks,
                                                fig9_tasks, plot_adult, plot_by_alpha, plot_by_n,
                                                plot_by_shape, plot_difference, run_adult,
                                                run_synthetic)
from rldp_models.experiments.rldp_verdicts import (fig2_verdict, fig3_verdict, fig4_verdict,
                                                   fig7_verdict,
                                                   fig8_verdict, fig9_verdict, fig10_verdict,
                                                   fig11_verdict)

PAPER = "rldp-privacy-utility-tradeoff.txt"

EXPERIMENTS = (
    Experiment(
        id="rldp-fig2", title="PolyOpt against the low-complexity protocols, 3x3 synthetic",
        paper=f"{PAPER}, Fig. 2 (Sec. VIII-A)",
        claim="PolyOpt significantly outperforms IR, GRR-CR, UE-CR, SRR and GRR in "
              "I_Phat(X;Y)/H(X) (3x3, n = 1000, alpha = 0.05, 200 Jeffreys distributions).",
        tasks=fig2_tasks, run_task=run_synthetic, plot=plot_by_shape, summarise=fig2_verdict),
    Experiment(
        id="rldp-fig3", title="Low-complexity protocols for a_1 in {3,5}, a_2 in {3,5,7,9}",
        paper=f"{PAPER}, Fig. 3 (Sec. VIII-B)",
        claim="For eps large enough SRR is the best protocol, and the larger a_1, a_2 the "
              "larger that eps; GRR is slightly below SRR everywhere; UE-CR beats IR and "
              "GRR-CR for small alphabets at small eps and is the worse choice at high eps.",
        tasks=fig3_tasks, run_task=run_synthetic, plot=plot_by_shape, summarise=fig3_verdict),
    Experiment(
        id="rldp-fig4", title="Low-complexity protocols for a_1 in {7,9}, a_2 in {3,5,7,9}",
        paper=f"{PAPER}, Fig. 4 (Sec. VIII-B)",
        claim="As in Fig. 3 for larger a_1: for eps large enough SRR is the best protocol, from "
              "a larger eps the larger a_1, a_2; GRR slightly below SRR; UE-CR the worse choice "
              "at high eps.",
        tasks=fig4_tasks, run_task=run_synthetic, plot=plot_by_shape, summarise=fig4_verdict),
    Experiment(
        id="rldp-fig5", title="Optimal parameters of IR, GRR-CR and UE-CR (5x5 synthetic)",
        paper=f"{PAPER}, Fig. 5 (Sec. VIII-C)",
        claim="For low eps IR and GRR-CR spend the whole budget on S or on U; GRR-CR on U for "
              "eps < 1 and on S for 1 < eps < 3, for any P; IR's average eps_2/eps is close to "
              "0.5; UE-CR has kappa = lambda = 1 (no leakage about S) at low eps.",
        tasks=fig5_tasks, run_task=run_parameters, plot=plot_parameters,
        summarise=fig5_verdict),
    Experiment(
        id="rldp-fig6", title="IR against GRR-CR: utility difference against H(X) (5x5, eps 4)",
        paper=f"{PAPER}, Fig. 6 (Sec. VIII-D)",
        claim="For 2000 Jeffreys distributions (5x5, eps = 4) many have equal IR and GRR-CR "
              "utility (both spend the budget on S); among the others the difference falls with "
              "H(X): GRR-CR outperforms IR for large H(X).",
        tasks=fig6_tasks, run_task=run_ir_against_grr_cr,
        plot=plot_difference_against_entropy, summarise=fig6_verdict),
    Experiment(
        id="rldp-fig7", title="Role of n (5x5 synthetic)",
        paper=f"{PAPER}, Fig. 7 (Sec. VIII-E)",
        claim="Larger n leaves SRR and GRR unchanged and raises the utility of IR, GRR-CR and "
              "UE-CR, more for GRR-CR and UE-CR than for IR. The paper does not list its n "
              "values; we take n in {100, 1000, 10000, 100000} with the same P* per seed.",
        tasks=fig7_tasks, run_task=run_synthetic, plot=plot_by_n, summarise=fig7_verdict),
    Experiment(
        id="rldp-fig8", title="Role of alpha (5x5 synthetic)",
        paper=f"{PAPER}, Fig. 8 (Sec. VIII-E)",
        claim="Smaller alpha lowers the utility of GRR-CR and UE-CR (alpha 0.1 -> 1e-4 costs "
              "36% and 47% at eps = 0.1) and leaves IR unchanged (d = 2 in Theorem 15).",
        tasks=fig8_tasks, run_task=run_synthetic, plot=plot_by_alpha, summarise=fig8_verdict),
    Experiment(
        id="rldp-fig9", title="Robustness of utility: (I_Phat - I_P*)/H(X) (5x5 synthetic)",
        paper=f"{PAPER}, Fig. 9 (Sec. VIII-F)",
        claim="The true utility I_P* is on average often higher than the optimised I_Phat, "
              "especially for small n, and the difference becomes negligible for larger n. "
              "n values not given in the paper: we take n in {100, 1000, 10000}; H(X) under Phat.",
        tasks=fig9_tasks, run_task=run_synthetic, plot=plot_difference, summarise=fig9_verdict),
    Experiment(
        id="rldp-fig10", title="Adult data: (sex, race), (education, occupation), "
                               "(relationship, native-country)",
        paper=f"{PAPER}, Fig. 10 (Sec. VIII-G)",
        claim="On the Adult pairs the protocols rank as on synthetic data of the same size "
              "(Fig. 11): PolyOpt (where computable) on top, SRR best at large eps. Pairs read "
              "from the caption two by two, categories unmerged ('?' kept: a_2 = 42).",
        tasks=fig10_tasks, run_task=run_adult, plot=plot_adult, summarise=fig10_verdict,
        needs_data=True),
    Experiment(
        id="rldp-fig11", title="Synthetic data with the Adult pairs' a_1, a_2 and n",
        paper=f"{PAPER}, Fig. 11 (Sec. VIII-G)",
        claim="Synthetic data of the Adult shapes (2x5, 16x15, 6x42; n = 32561) gives the "
              "same relative behaviour of the protocols as the real data of Fig. 10.",
        tasks=fig11_tasks, run_task=run_synthetic, plot=plot_by_shape, summarise=fig11_verdict),
)
"""The RLDP paper's experiments, in figure order."""
