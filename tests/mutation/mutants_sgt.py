"""Mutants of the stochastic gradient trees [GPF19] formulas (see :mod:`tests.mutation.mutant`)."""

from __future__ import annotations

from tests.mutation.mutant import Mutant

LOSSES = "tests/sgt/test_oracle_losses.py"
STATS = "tests/sgt/test_oracle_statistics.py"
SPLITS = "tests/sgt/test_oracle_splits.py"
GH_PY, GH_C = "reference/sgt/grad_hess.py", "csrc/sgt/grad_hess.c"
SP_PY, SP_C = "reference/sgt/splits.py", "csrc/sgt/splits.c"
MOMENTS = f"{SPLITS}::test_loss_change_moments_are_the_sample_moments_of_the_loss_change"
POOLED = f"{SPLITS}::test_pooled_moments_are_those_of_every_childs_loss_changes"
BINNING = f"{SPLITS}::test_bin_is_the_equal_width_interval_holding_the_value"
TRANSFER = f"{SPLITS}::test_transfer_functions_are_the_logistic_and_the_softmax"

SGT_MUTANTS: list[Mutant] = [
    Mutant(
        "sgt-squared-hessian",
        "squared error h = 1 -> 2 [GPF19, Eq. 25]",
        f"{LOSSES}::test_squared_error_derivatives_are_those_of_half_squared_error",
        (
            ("reference/sgt/losses.py", "return raw - y, 1.0", "return raw - y, 2.0", 1),
            ("csrc/sgt/losses.c", "    *h = 1.0;\n", "    *h = 2.0;\n", 1),
        ),
    ),
    Mutant(
        "sgt-bce-gradient-sign",
        "BCE g = σ(f) - y -> y - σ(f) [GPF19, Eq. 28]",
        f"{LOSSES}::test_cross_entropy_derivatives_are_those_of_the_log_loss",
        (
            (
                "reference/sgt/losses.py",
                "return p - y, p * (1.0 - p)",
                "return y - p, p * (1.0 - p)",
                1,
            ),
            ("csrc/sgt/losses.c", "    *g = p - y;\n", "    *g = y - p;\n", 1),
        ),
    ),
    Mutant(
        "sgt-bce-hessian",
        "BCE h = σ(1 - σ) -> σ [GPF19, Eq. 29]",
        f"{LOSSES}::test_cross_entropy_derivatives_are_those_of_the_log_loss",
        (
            ("reference/sgt/losses.py", "return p - y, p * (1.0 - p)", "return p - y, p", 1),
            ("csrc/sgt/losses.c", "    *h = p * (1.0 - p);\n", "    *h = p;\n", 1),
        ),
    ),
    Mutant(
        "sgt-pseudo-huber-hessian",
        "pseudo-Huber h = (1 + r²)^(-3/2) -> (1 + r²)^(-1) [SGT-SPEC §3.5]",
        f"{LOSSES}::test_pseudo_huber_derivatives_are_those_of_the_pseudo_huber_loss",
        (
            ("reference/sgt/losses.py", "return r / root, 1.0 / (q * root)",
             "return r / root, 1.0 / q", 1),
            ("csrc/sgt/losses.c", "    *h = 1.0 / (q * root);\n", "    *h = 1.0 / q;\n", 1),
        ),
    ),
    Mutant(
        "sgt-softmax-hessian",
        "softmax committee h_c = p(1 - p) -> p [GPF19, Eq. 22]",
        f"{LOSSES}::test_softmax_committee_derivatives_are_the_diagonal_of_the_cross_entropy",
        (
            ("reference/sgt/losses.py", "hess.append(p * (1.0 - p))", "hess.append(p)", 1),
            ("csrc/sgt/losses.c", "hess[c] = p * (1.0 - p);", "hess[c] = p;", 1),
        ),
    ),
    Mutant(
        "sgt-softmax-gradient",
        "softmax committee g_c = p - [y=c] -> p - [y=c]/2 [GPF19, Eq. 21]",
        f"{LOSSES}::test_softmax_committee_derivatives_are_the_diagonal_of_the_cross_entropy",
        (
            (
                "reference/sgt/losses.py",
                "grads.append(p - (1.0 if c == label else 0.0))",
                "grads.append(p - (0.5 if c == label else 0.0))",
                1,
            ),
            (
                "csrc/sgt/losses.c",
                "grads[c] = p - (c == label ? 1.0 : 0.0);",
                "grads[c] = p - (c == label ? 0.5 : 0.0);",
                1,
            ),
        ),
    ),
    Mutant(
        "sgt-welford-mg",
        "Welford M_g += (g - ḡ_old)(g - ḡ_new) -> (g - ḡ_new)² [SGT-SPEC §4.2]",
        f"{STATS}::test_welford_cell_equals_two_pass_moments",
        (
            (
                "reference/sgt/grad_hess.py",
                "self.m_g += (g - mean_g_old) * (g - mean_g_new)",
                "self.m_g += (g - mean_g_new) * (g - mean_g_new)",
                1,
            ),
            (
                "csrc/sgt/grad_hess.c",
                "s->m_g += (g - mean_g_old) * (g - mean_g_new);",
                "s->m_g += (g - mean_g_new) * (g - mean_g_new);",
                1,
            ),
        ),
    ),
    Mutant(
        "sgt-welford-covariance",
        "co-moment C += (g - ḡ_old)(h - h̄_new) -> (g - ḡ_old)(h - h̄_old) [SGT-SPEC §4.2]",
        f"{STATS}::test_welford_cell_equals_two_pass_moments",
        (
            (
                "reference/sgt/grad_hess.py",
                "self.c += (g - mean_g_old) * (h - mean_h_new)",
                "self.c += (g - mean_g_old) * (h - mean_h_old)",
                1,
            ),
            (
                "csrc/sgt/grad_hess.c",
                "s->c += (g - mean_g_old) * (h - mean_h_new);",
                "s->c += (g - mean_g_old) * (h - mean_h_old);",
                1,
            ),
        ),
    ),
    Mutant(
        "sgt-variance-denominator",
        "s_g² = M_g/(n - 1) -> M_g/n [SGT-SPEC §4.4]",
        f"{STATS}::test_welford_cell_equals_two_pass_moments",
        (
            (
                "reference/sgt/grad_hess.py",
                "return self.m_g / (float(self.n) - 1.0) if self.n >= 2 else 0.0",
                "return self.m_g / float(self.n) if self.n >= 2 else 0.0",
                1,
            ),
            (
                "csrc/sgt/grad_hess.c",
                "return s->n >= 2 ? s->m_g / ((double)s->n - 1.0) : 0.0;",
                "return s->n >= 2 ? s->m_g / (double)s->n : 0.0;",
                1,
            ),
        ),
    ),
    Mutant(
        "sgt-newton-lambda",
        "Newton step -ḡ/(h̄ + λ) -> -ḡ/(h̄ + 2λ) [GPF19, Eq. 13]",
        f"{STATS}::test_newton_step_is_minus_mean_gradient_over_mean_hessian_plus_lambda",
        (
            (
                "reference/sgt/grad_hess.py",
                "return -stats.mean_g() / (stats.mean_h() + lam + EPSILON)",
                "return -stats.mean_g() / (stats.mean_h() + 2.0 * lam + EPSILON)",
                1,
            ),
            (
                "csrc/sgt/grad_hess.c",
                "/ (sgt_stats_mean_h(s) + lam + DBL_MIN);",
                "/ (sgt_stats_mean_h(s) + 2.0 * lam + DBL_MIN);",
                1,
            ),
            (
                "csrc/sgt/splits.c",
                "double delta = -mean_g / (mean_h + lam + DBL_MIN);",
                "double delta = -mean_g / (mean_h + 2.0 * lam + DBL_MIN);",
                1,
            ),
        ),
    ),
    Mutant(
        "sgt-t-test-df",
        "t-test degrees of freedom n - 1 -> n [GPF19, Eq. 16]",
        f"{STATS}::test_split_test_p_value_is_the_two_sided_student_t_tail",
        (
            ("reference/sgt/splits.py", "nu = float(n) - 1.0\n", "nu = float(n)\n", 1),
            ("csrc/sgt/splits.c", "nu = (double)n - 1.0;", "nu = (double)n;", 1),
        ),
    ),
    Mutant(
        "sgt-t-statistic",
        "F = n m²/s² -> (n - 1) m²/s² [GPF19, Eq. 16]",
        f"{STATS}::test_split_test_p_value_is_the_two_sided_student_t_tail",
        (
            (
                "reference/sgt/splits.py",
                "f_stat = float(n) * mean * mean / variance",
                "f_stat = (float(n) - 1.0) * mean * mean / variance",
                1,
            ),
            (
                "csrc/sgt/splits.c",
                "f_stat = (double)n * mean * mean / variance;",
                "f_stat = ((double)n - 1.0) * mean * mean / variance;",
                1,
            ),
        ),
    ),
    Mutant(
        "sgt-loss-change-hessian-term",
        "Var(L) term Δ⁴ s_h²/4 -> Δ⁴ s_h²/2 [GPF19, Eq. 18]",
        MOMENTS,
        (
            (
                GH_PY,
                "+ 0.25 * delta2 * delta2 * stats.var_h()",
                "+ 0.5 * delta2 * delta2 * stats.var_h()",
                1,
            ),
            (
                GH_C,
                "+ 0.25 * delta2 * delta2 * sgt_stats_var_h(s)",
                "+ 0.5 * delta2 * delta2 * sgt_stats_var_h(s)",
                1,
            ),
            (
                SP_C,
                "+ 0.25 * delta2 * delta2 * sgt_stats_var_h(s)",
                "+ 0.5 * delta2 * delta2 * sgt_stats_var_h(s)",
                1,
            ),
        ),
    ),
    Mutant(
        "sgt-loss-change-covariance-term",
        "Var(L) term Δ³ c_gh -> 2 Δ³ c_gh [GPF19, Eq. 18]",
        MOMENTS,
        (
            (
                GH_PY,
                "+ delta2 * delta * stats.cov_gh()",
                "+ 2.0 * delta2 * delta * stats.cov_gh()",
                1,
            ),
            (
                GH_C,
                "+ delta2 * delta * sgt_stats_cov_gh(s);",
                "+ 2.0 * delta2 * delta * sgt_stats_cov_gh(s);",
                1,
            ),
            (
                SP_C,
                "+ delta2 * delta * sgt_stats_cov_gh(s);",
                "+ 2.0 * delta2 * delta * sgt_stats_cov_gh(s);",
                1,
            ),
        ),
    ),
    Mutant(
        "sgt-loss-change-mean",
        "mean loss change Δḡ + h̄Δ²/2 -> Δḡ + h̄Δ² [GPF19, Eq. 7]",
        MOMENTS,
        (
            (
                GH_PY,
                "mean = delta * stats.mean_g() + 0.5 * stats.mean_h() * delta * delta",
                "mean = delta * stats.mean_g() + stats.mean_h() * delta * delta",
                1,
            ),
            (
                GH_C,
                "*mean = delta * sgt_stats_mean_g(s) + 0.5 * sgt_stats_mean_h(s) * delta * delta;",
                "*mean = delta * sgt_stats_mean_g(s) + sgt_stats_mean_h(s) * delta * delta;",
                1,
            ),
            (
                SP_C,
                "*mean = delta * mean_g + 0.5 * mean_h * delta * delta;",
                "*mean = delta * mean_g + mean_h * delta * delta;",
                1,
            ),
        ),
    ),
    Mutant(
        "sgt-pool-within",
        "pooled variance Σ (n_j - 1) s_j² -> Σ n_j s_j² [SGT-SPEC §7.3]",
        POOLED,
        (
            (SP_PY, "within += (count - 1.0) * s2_j", "within += count * s2_j", 1),
            (
                SP_C,
                "within += (count - 1.0) * moment_var[j];",
                "within += count * moment_var[j];",
                1,
            ),
        ),
    ),
    Mutant(
        "sgt-pool-between",
        "pooled variance Σ n_j (m_j - m)² -> Σ (m_j - m)² [SGT-SPEC §7.3]",
        POOLED,
        (
            (SP_PY, "between += count * (diff * diff)", "between += diff * diff", 1),
            (SP_C, "between += count * (diff * diff);", "between += diff * diff;", 1),
        ),
    ),
    Mutant(
        "sgt-pool-denominator",
        "pooled variance / (n - 1) -> / n [SGT-SPEC §7.3]",
        POOLED,
        (
            (
                SP_PY,
                "variance = (within + between) / (float(n) - 1.0) if n >= 2 else 0.0",
                "variance = (within + between) / float(n) if n >= 2 else 0.0",
                1,
            ),
            (SP_C, "(within + between) / ((double)n - 1.0)", "(within + between) / (double)n", 1),
        ),
    ),
    Mutant(
        "sgt-merge-weight",
        "Chan merge weight n_A n_B / n -> n_A n_B / (n + 1) [SGT-SPEC §4.3]",
        f"{SPLITS}::test_merged_cell_equals_the_cell_of_all_pairs",
        (
            (
                GH_PY,
                "weight = float(a.n) * float(b.n) / float(out.n)",
                "weight = float(a.n) * float(b.n) / float(out.n + 1)",
                1,
            ),
            (
                GH_C,
                "weight = (double)a->n * (double)b->n / (double)r.n;",
                "weight = (double)a->n * (double)b->n / (double)(r.n + 1);",
                1,
            ),
        ),
    ),
    Mutant(
        "sgt-binary-split-children",
        "binary split pays γ·2/n -> γ·1/n [GPF19, Eq. 5]",
        f"{SPLITS}::test_best_numeric_split_is_the_brute_force_minimum_over_thresholds",
        (
            (SP_PY, "cost = penalty(gamma, 2, n_leaf)", "cost = penalty(gamma, 1, n_leaf)", 1),
            (
                SP_C,
                "cost = sgt_penalty(gamma, 2, n_leaf);",
                "cost = sgt_penalty(gamma, 1, n_leaf);",
                1,
            ),
        ),
    ),
    Mutant(
        "sgt-penalty-denominator",
        "penalty γ|Q|/n -> γ|Q|/(n + 1) [GPF19, Eq. 5]",
        f"{SPLITS}::test_split_penalty_is_gamma_times_children_over_leaf_count",
        (
            (
                SP_PY,
                "return gamma * float(n_children) / float(n_leaf)",
                "return gamma * float(n_children) / float(n_leaf + 1)",
                1,
            ),
            (
                SP_C,
                "return gamma * (double)n_children / (double)n_leaf;",
                "return gamma * (double)n_children / (double)(n_leaf + 1);",
                1,
            ),
        ),
    ),
    Mutant(
        "sgt-nominal-children",
        "nominal split pays γ·K/n -> γ·2/n [GPF19, Eq. 5]",
        f"{SPLITS}::test_nominal_split_pays_gamma_per_child",
        (
            (
                SP_PY,
                "mean + penalty(gamma, len(cells), n_leaf)",
                "mean + penalty(gamma, 2, n_leaf)",
                1,
            ),
            (
                SP_C,
                "out->mean = mean + sgt_penalty(gamma, k, n_leaf);",
                "out->mean = mean + sgt_penalty(gamma, 2, n_leaf);",
                1,
            ),
        ),
    ),
    Mutant(
        "sgt-bin-top-edge",
        "clip to the last bin at position >= B -> > B [GPF19, §3.2]",
        BINNING,
        (
            (
                "reference/sgt/quantizer.py",
                "if position >= float(bins):",
                "if position > float(bins):",
                1,
            ),
            (
                "csrc/sgt/quantizer.c",
                "if (position >= (double)bins)",
                "if (position > (double)bins)",
                1,
            ),
        ),
    ),
    Mutant(
        "sgt-bin-width",
        "bin position B (x - lo)/(hi - lo) -> (B - 1)(x - lo)/(hi - lo) [GPF19, §3.2]",
        BINNING,
        (
            (
                "reference/sgt/quantizer.py",
                "position = float(bins) * (x - lo) / (hi - lo)",
                "position = float(bins - 1) * (x - lo) / (hi - lo)",
                1,
            ),
            (
                "csrc/sgt/quantizer.c",
                "position = (double)bins * (x - lo) / (hi - lo);",
                "position = (double)(bins - 1) * (x - lo) / (hi - lo);",
                1,
            ),
        ),
    ),
    Mutant(
        "sgt-sigmoid-negative-branch",
        "logistic e^f/(1 + e^f) -> 1/(1 + e^f) for f < 0 [GPF19, Eq. 26]",
        TRANSFER,
        (
            (
                "reference/sgt/losses.py",
                "    return e / (1.0 + e)\n",
                "    return 1.0 / (1.0 + e)\n",
                1,
            ),
            ("csrc/sgt/losses.c", "    return e / (1.0 + e);", "    return 1.0 / (1.0 + e);", 1),
        ),
    ),
    Mutant(
        "sgt-softmax-fixed-score",
        "committee's hard-wired score f_k = 0 -> 1 [GPF19, Eq. 19]",
        TRANSFER,
        (
            (
                "reference/sgt/losses.py",
                "scores = list(raws) + [0.0]",
                "scores = list(raws) + [1.0]",
                1,
            ),
            (
                "csrc/sgt/losses.c",
                "double s = c < n_raws ? raws[c] : 0.0;",
                "double s = c < n_raws ? raws[c] : 1.0;",
                1,
            ),
            (
                "csrc/sgt/losses.c",
                "probs[c] = exp((c < n_raws ? raws[c] : 0.0) - top);",
                "probs[c] = exp((c < n_raws ? raws[c] : 1.0) - top);",
                1,
            ),
        ),
    ),
]
