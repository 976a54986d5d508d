"""Mutants of the stochastic gradient trees [GPF19] formulas (see :mod:`tests.mutation.mutant`)."""

from __future__ import annotations

from tests.mutation.mutant import Mutant

LOSSES = "tests/test_oracle_losses.py"
STATS = "tests/test_oracle_sgt_statistics.py"

SGT_MUTANTS: list[Mutant] = [
    Mutant("sgt-squared-hessian", "squared error h = 1 -> 2 [GPF19, Eq. 25]",
           f"{LOSSES}::test_squared_error_derivatives_are_those_of_half_squared_error", (
               ("reference/sgt/losses.py", "return raw - y, 1.0", "return raw - y, 2.0", 1),
               ("csrc/sgt_losses.c", "    *h = 1.0;\n", "    *h = 2.0;\n", 1))),
    Mutant("sgt-bce-gradient-sign", "BCE g = σ(f) - y -> y - σ(f) [GPF19, Eq. 28]",
           f"{LOSSES}::test_cross_entropy_derivatives_are_those_of_the_log_loss", (
               ("reference/sgt/losses.py", "return p - y, p * (1.0 - p)",
                "return y - p, p * (1.0 - p)", 1),
               ("csrc/sgt_losses.c", "    *g = p - y;\n", "    *g = y - p;\n", 1))),
    Mutant("sgt-bce-hessian", "BCE h = σ(1 - σ) -> σ [GPF19, Eq. 29]",
           f"{LOSSES}::test_cross_entropy_derivatives_are_those_of_the_log_loss", (
               ("reference/sgt/losses.py", "return p - y, p * (1.0 - p)", "return p - y, p", 1),
               ("csrc/sgt_losses.c", "    *h = p * (1.0 - p);\n", "    *h = p;\n", 1))),
    Mutant("sgt-softmax-hessian", "softmax committee h_c = p(1 - p) -> p [GPF19, Eq. 22]",
           f"{LOSSES}::test_softmax_committee_derivatives_are_the_diagonal_of_the_cross_entropy",
           (("reference/sgt/losses.py", "hess.append(p * (1.0 - p))", "hess.append(p)", 1),
            ("csrc/sgt_losses.c", "hess[c] = p * (1.0 - p);", "hess[c] = p;", 1))),
    Mutant("sgt-softmax-gradient", "softmax committee g_c = p - [y=c] -> p - [y=c]/2 "
           "[GPF19, Eq. 21]",
           f"{LOSSES}::test_softmax_committee_derivatives_are_the_diagonal_of_the_cross_entropy",
           (("reference/sgt/losses.py", "grads.append(p - (1.0 if c == label else 0.0))",
             "grads.append(p - (0.5 if c == label else 0.0))", 1),
            ("csrc/sgt_losses.c", "grads[c] = p - (c == label ? 1.0 : 0.0);",
             "grads[c] = p - (c == label ? 0.5 : 0.0);", 1))),
    Mutant("sgt-welford-mg", "Welford M_g += (g - ḡ_old)(g - ḡ_new) -> (g - ḡ_new)² "
           "[SGT-SPEC §4.2]", f"{STATS}::test_welford_cell_equals_two_pass_moments", (
               ("reference/sgt/grad_hess.py", "self.m_g += (g - mean_g_old) * (g - mean_g_new)",
                "self.m_g += (g - mean_g_new) * (g - mean_g_new)", 1),
               ("csrc/sgt_grad_hess.c", "s->m_g += (g - mean_g_old) * (g - mean_g_new);",
                "s->m_g += (g - mean_g_new) * (g - mean_g_new);", 1))),
    Mutant("sgt-welford-covariance", "co-moment C += (g - ḡ_old)(h - h̄_new) -> "
           "(g - ḡ_old)(h - h̄_old) [SGT-SPEC §4.2]",
           f"{STATS}::test_welford_cell_equals_two_pass_moments", (
               ("reference/sgt/grad_hess.py", "self.c += (g - mean_g_old) * (h - mean_h_new)",
                "self.c += (g - mean_g_old) * (h - mean_h_old)", 1),
               ("csrc/sgt_grad_hess.c", "s->c += (g - mean_g_old) * (h - mean_h_new);",
                "s->c += (g - mean_g_old) * (h - mean_h_old);", 1))),
    Mutant("sgt-variance-denominator", "s_g² = M_g/(n - 1) -> M_g/n [SGT-SPEC §4.4]",
           f"{STATS}::test_welford_cell_equals_two_pass_moments", (
               ("reference/sgt/grad_hess.py",
                "return self.m_g / (float(self.n) - 1.0) if self.n >= 2 else 0.0",
                "return self.m_g / float(self.n) if self.n >= 2 else 0.0", 1),
               ("csrc/sgt_grad_hess.c", "return s->n >= 2 ? s->m_g / ((double)s->n - 1.0) : 0.0;",
                "return s->n >= 2 ? s->m_g / (double)s->n : 0.0;", 1))),
    Mutant("sgt-newton-lambda", "Newton step -ḡ/(h̄ + λ) -> -ḡ/(h̄ + 2λ) [GPF19, Eq. 13]",
           f"{STATS}::test_newton_step_is_minus_mean_gradient_over_mean_hessian_plus_lambda", (
               ("reference/sgt/grad_hess.py",
                "return -stats.mean_g() / (stats.mean_h() + lam + EPSILON)",
                "return -stats.mean_g() / (stats.mean_h() + 2.0 * lam + EPSILON)", 1),
               ("csrc/sgt_grad_hess.c", "/ (sgt_stats_mean_h(s) + lam + DBL_MIN);",
                "/ (sgt_stats_mean_h(s) + 2.0 * lam + DBL_MIN);", 1),
               ("csrc/sgt_splits.c", "double delta = -mean_g / (mean_h + lam + DBL_MIN);",
                "double delta = -mean_g / (mean_h + 2.0 * lam + DBL_MIN);", 1))),
    Mutant("sgt-t-test-df", "t-test degrees of freedom n - 1 -> n [GPF19, Eq. 16]",
           f"{STATS}::test_split_test_p_value_is_the_two_sided_student_t_tail", (
               ("reference/sgt/splits.py", "nu = float(n) - 1.0\n", "nu = float(n)\n", 1),
               ("csrc/sgt_splits.c", "nu = (double)n - 1.0;", "nu = (double)n;", 1))),
    Mutant("sgt-t-statistic", "F = n m²/s² -> (n - 1) m²/s² [GPF19, Eq. 16]",
           f"{STATS}::test_split_test_p_value_is_the_two_sided_student_t_tail", (
               ("reference/sgt/splits.py", "f_stat = float(n) * mean * mean / variance",
                "f_stat = (float(n) - 1.0) * mean * mean / variance", 1),
               ("csrc/sgt_splits.c", "f_stat = (double)n * mean * mean / variance;",
                "f_stat = ((double)n - 1.0) * mean * mean / variance;", 1))),
]
