"""The mutants: single-formula changes applied to the Python *and* its C twin at once.

Lockstep cannot see a mutant that changes both backends alike; each mutant here names the
oracle test that computes the formula by another route and must fail on it
(``killer``: a pytest node id or file). An equivalent mutant (one no test can kill,
because the behaviour does not change) would be listed with ``equivalent`` saying why;
there are none so far.

Each edit is ``(path, old, new, count)``: ``old`` must occur exactly ``count`` times in
the file, and every occurrence is replaced (so a stale mutant fails loudly instead of
silently mutating nothing; ``tests/test_mutation_harness.py`` checks this in the default
suite).
"""

from __future__ import annotations

from dataclasses import dataclass

LOSSES = "tests/test_oracle_losses.py"
EVIDENCE = "tests/test_oracle_leaf_evidence.py"
ABACOC = "tests/test_oracle_abacoc_rules.py"
STATS = "tests/test_oracle_sgt_statistics.py"


@dataclass(frozen=True)
class Mutant:
    """One paired change and the oracle that must kill it."""

    id: str
    what: str
    killer: str
    edits: tuple[tuple[str, str, str, int], ...]
    equivalent: str = ""


MUTANTS: list[Mutant] = [
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
    Mutant("dt-class-prior-weight", "Dirichlet prior 1/C -> 2/C in the class leaf's evidence "
           "and predictive alike [DT-SPEC §3.3]", EVIDENCE, (
               ("reference/dynatree/leaf_models.py", "inv_c = 1.0 / float(cfg.n_classes)",
                "inv_c = 2.0 / float(cfg.n_classes)", 2),
               ("csrc/dt_leaf_models.c", "double inv_c = 1.0 / (double)c->n_classes",
                "double inv_c = 2.0 / (double)c->n_classes", 2),
               ("csrc/dt_model.c", "? 1.0 / (double)m->cfg.n_classes", "? 2.0 / "
                "(double)m->cfg.n_classes", 1))),
    Mutant("dt-class-prior-total", "Dirichlet total mass n + 1 -> n + 2 in evidence and "
           "predictive alike [DT-SPEC §3.3]", EVIDENCE, (
               ("reference/dynatree/leaf_models.py", "ell = -lgamma(float(st.n) + st.nu + 1.0)",
                "ell = -lgamma(float(st.n) + st.nu + 2.0)", 1),
               ("reference/dynatree/leaf_models.py", "/ (float(st.n) + st.nu + 1.0)",
                "/ (float(st.n) + st.nu + 2.0)", 1),
               ("csrc/dt_leaf_models.c", "a = st[DT_OFF_N] + st[DT_OFF_NU] + 1.0;",
                "a = st[DT_OFF_N] + st[DT_OFF_NU] + 2.0;", 1),
               ("csrc/dt_leaf_models.c", "(st[DT_OFF_N] + st[DT_OFF_NU] + 1.0);",
                "(st[DT_OFF_N] + st[DT_OFF_NU] + 2.0);", 1))),
    Mutant("dt-constant-evidence-log-n", "constant leaf evidence -log(n)/2 -> -log(n+1)/2 "
           "[DT-SPEC §3.1]", EVIDENCE, (
               ("reference/dynatree/leaf_models.py", "ell = ell - 0.5 * math.log(n)",
                "ell = ell - 0.5 * math.log(n + 1.0)", 1),
               ("csrc/dt_leaf_models.c", "ell = ell - 0.5 * log(n);",
                "ell = ell - 0.5 * log(n + 1.0);", 1))),
    Mutant("dt-evidence-q-half", "evidence -df/2 log(Q/2) -> -df/2 log(Q) [DT-SPEC §3.1]",
           EVIDENCE, (
               ("reference/dynatree/leaf_models.py", "ell = ell - 0.5 * df * math.log(q / 2.0)",
                "ell = ell - 0.5 * df * math.log(q)", 1),
               ("csrc/dt_leaf_models.c", "ell = ell - 0.5 * df * log(q / 2.0)",
                "ell = ell - 0.5 * df * log(q)", 1))),
    Mutant("dt-predictive-h", "predictive h = 1/(n + nu) -> 2/(n + nu) [DT-SPEC §3.1]",
           EVIDENCE, (
               ("reference/dynatree/leaf_models.py", "        h = 1.0 / tot\n",
                "        h = 2.0 / tot\n", 1),
               ("csrc/dt_leaf_models.c", "tot > 0.0) h = 1.0 / tot;",
                "tot > 0.0) h = 2.0 / tot;", 1))),
    Mutant("ab-centre-step", "ADJ centre step (x - c)/u -> (x - c)/(u + 1) [DOC15, Alg. 4]",
           f"{ABACOC}::test_auto_adj_balls_follow_algorithm_4_by_hand", (
               ("reference/abacoc/balls.py", "center[j] + (x[j] - center[j]) / u",
                "center[j] + (x[j] - center[j]) / (u + 1.0)", 1),
               ("csrc/ab_balls.c", "c[j] + (x[j] - c[j]) / u;", "c[j] + (x[j] - c[j]) / (u + 1.0);",
                1))),
    Mutant("ab-radius-exponent", "radius law m^(-1/(2+d)) -> m^(-1/(1+d)) [DOC15, Alg. 4]",
           f"{ABACOC}::test_auto_adj_balls_follow_algorithm_4_by_hand", (
               ("reference/abacoc/balls.py", "exponent = -1.0 / (2.0 + d)",
                "exponent = -1.0 / (1.0 + d)", 1),
               ("csrc/ab_balls.c", "exponent = -1.0 / (2.0 + d);",
                "exponent = -1.0 / (1.0 + d);", 1))),
    Mutant("ab-band-width", "band half-width 1/(2 sqrt(n + 2)) -> 1/(2 sqrt(n + 1)) "
           "[DOC15, Alg. 2]", f"{ABACOC}::test_randomized_base_probability_is_algorithm_2", (
               ("reference/abacoc/balls.py", "gamma = 1.0 / (2.0 * math.sqrt(float(n + 2)))",
                "gamma = 1.0 / (2.0 * math.sqrt(float(n + 1)))", 1),
               ("csrc/ab_balls.c", "double gamma = 1.0 / (2.0 * sqrt((double)(n + 2)));",
                "double gamma = 1.0 / (2.0 * sqrt((double)(n + 1)));", 1))),
    Mutant("ab-laplace", "Laplace estimate (n1 + 1)/(n + 2) -> (n1 + 1)/(n + 3) "
           "[DOC15, Alg. 2]", f"{ABACOC}::test_randomized_base_probability_is_algorithm_2", (
               ("reference/abacoc/balls.py", "q = float(n1 + 1) / float(n + 2)",
                "q = float(n1 + 1) / float(n + 3)", 1),
               ("csrc/ab_balls.c", "double q = (double)(n1 + 1) / (double)(n + 2);",
                "double q = (double)(n1 + 1) / (double)(n + 3);", 1))),
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
