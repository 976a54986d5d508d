"""Mutants of the dynamic trees [TGP11; AG13] formulas (see :mod:`tests.mutation.mutant`)."""

from __future__ import annotations

from tests.mutation.mutant import Mutant

EVIDENCE = "tests/dynatree/test_oracle_leaf_evidence.py"
LINEAR = "tests/dynatree/test_oracle_linear_leaf.py"
RETIRED = "tests/dynatree/test_oracle_retired_stats.py"
PRIOR = "tests/dynatree/test_oracle_tree_prior_and_resampling.py"
DISCARD = "tests/dynatree/test_oracle_discard_stats.py"
LM_PY, LM_C = "reference/dynatree/leaf_models.py", "csrc/dynatree/leaf_models.c"
FG_PY, FG_C = "reference/dynatree/forgetting.py", "csrc/dynatree/forgetting.c"
DS_PY, DS_C = "reference/dynatree/discard_stats.py", "csrc/dynatree/discard_stats.c"
SLOPE = "tests/dynatree/test_oracle_slope_prior.py"
LN_PY = "reference/dynatree/linear_leaf.py"

DYNATREE_MUTANTS: list[Mutant] = [
    Mutant(
        "dt-class-prior-weight",
        "Dirichlet prior 1/C -> 2/C in the class leaf's evidence "
        "and predictive alike [DT-SPEC §3.3]",
        EVIDENCE,
        (
            (
                "reference/dynatree/leaf_models.py",
                "inv_c = 1.0 / float(cfg.n_classes)",
                "inv_c = 2.0 / float(cfg.n_classes)",
                2,
            ),
            (
                "csrc/dynatree/leaf_models.c",
                "double inv_c = 1.0 / (double)c->n_classes",
                "double inv_c = 2.0 / (double)c->n_classes",
                2,
            ),
            (
                "csrc/dynatree/model.c",
                "? 1.0 / (double)m->cfg.n_classes",
                "? 2.0 / (double)m->cfg.n_classes",
                1,
            ),
        ),
    ),
    Mutant(
        "dt-class-prior-total",
        "Dirichlet total mass n + 1 -> n + 2 in evidence and predictive alike [DT-SPEC §3.3]",
        EVIDENCE,
        (
            (
                "reference/dynatree/leaf_models.py",
                "ell = -lgamma(float(st.n) + st.nu + 1.0)",
                "ell = -lgamma(float(st.n) + st.nu + 2.0)",
                1,
            ),
            (
                "reference/dynatree/leaf_models.py",
                "/ (float(st.n) + st.nu + 1.0)",
                "/ (float(st.n) + st.nu + 2.0)",
                1,
            ),
            (
                "csrc/dynatree/leaf_models.c",
                "a = st[DT_OFF_N] + st[DT_OFF_NU] + 1.0;",
                "a = st[DT_OFF_N] + st[DT_OFF_NU] + 2.0;",
                1,
            ),
            (
                "csrc/dynatree/leaf_models.c",
                "(st[DT_OFF_N] + st[DT_OFF_NU] + 1.0);",
                "(st[DT_OFF_N] + st[DT_OFF_NU] + 2.0);",
                1,
            ),
        ),
    ),
    Mutant(
        "dt-constant-evidence-log-n",
        "constant leaf evidence -log(n)/2 -> -log(n+1)/2 [DT-SPEC §3.1]",
        EVIDENCE,
        (
            (
                "reference/dynatree/leaf_models.py",
                "ell = ell - 0.5 * math.log(n)",
                "ell = ell - 0.5 * math.log(n + 1.0)",
                1,
            ),
            (
                "csrc/dynatree/leaf_models.c",
                "ell = ell - 0.5 * log_count(c, n);",
                "ell = ell - 0.5 * log(n + 1.0);",
                1,
            ),
        ),
    ),
    Mutant(
        "dt-evidence-q-half",
        "evidence -df/2 log(Q/2) -> -df/2 log(Q) [DT-SPEC §3.1]",
        EVIDENCE,
        (
            (
                "reference/dynatree/leaf_models.py",
                "ell = ell - 0.5 * df * math.log(q / 2.0)",
                "ell = ell - 0.5 * df * math.log(q)",
                1,
            ),
            (
                "csrc/dynatree/leaf_models.c",
                "ell = ell - 0.5 * df * log(q / 2.0)",
                "ell = ell - 0.5 * df * log(q)",
                1,
            ),
        ),
    ),
    Mutant(
        "dt-predictive-h",
        "predictive h = 1/(n + nu) -> 2/(n + nu) [DT-SPEC §3.1]",
        EVIDENCE,
        (
            (
                "reference/dynatree/leaf_models.py",
                "        h = 1.0 / tot\n",
                "        h = 2.0 / tot\n",
                1,
            ),
            ("csrc/dynatree/leaf_models.c", "tot > 0.0) h = 1.0 / tot;",
             "tot > 0.0) h = 2.0 / tot;", 1),
        ),
    ),
    Mutant(
        "dt-linear-logdet",
        "linear evidence + log|G^-1|/2 -> + log|G^-1| [DT-SPEC §3.2]",
        f"{LINEAR}::test_linear_leaf_evidence_is_the_integrated_likelihood",
        (
            (LM_PY, "ell = ell + 0.5 * st.log_det_ginv", "ell = ell + 1.0 * st.log_det_ginv", 1),
            (
                LM_C,
                "ell = ell + 0.5 * st[DT_OFF_LOGDET];",
                "ell = ell + 1.0 * st[DT_OFF_LOGDET];",
                1,
            ),
        ),
    ),
    Mutant(
        "dt-linear-mean-parameters",
        "mean parameters in use d_m = δ + p -> δ + p - 1 [DT-SPEC §3.0]",
        f"{LINEAR}::test_linear_leaf_predictive_is_the_bayesian_regression_t",
        (
            (LM_PY, "                plin += 1\n",
             "                plin += 1 if j > 0 else 0\n", 1),
            (LM_C, "if (st[c->off_ginv + j * c->p + j] > 0.0) plin++;",
             "if (j > 0 && st[c->off_ginv + j * c->p + j] > 0.0) plin++;", 1),
        ),
    ),
    Mutant(
        "dt-linear-pivot-tolerance",
        "redundant regressors dropped at pivot <= 1e-9 of the column's sum of squares -> "
        "only at pivot <= 0 [DT-SPEC §3.2]",
        "tests/dynatree/test_collinear_linear_leaf.py::"
        "test_collinear_leaf_is_the_least_squares_fit_on_independent_columns",
        (
            (LN_PY, "if not s > PIVOT_TOL * scale:", "if not s > 0.0 * scale:", 1),
            (LM_C, "if (!(s > DT_PIVOT_TOL * scale)) continue;",
             "if (!(s > 0.0 * scale)) continue;", 1),
        ),
    ),
    Mutant(
        "dt-slope-prior-logdet",
        "slope-prior evidence + p/2 log κ -> + (p - 1)/2 log κ [DT-SPEC §3.7]",
        f"{SLOPE}::test_slope_prior_evidence_is_the_integrated_likelihood",
        (
            (LN_PY, "float(rank) * math.log(kappa)", "float(rank - 1) * math.log(kappa)", 1),
            (LM_C, "(double)rank * log(kappa)", "(double)(rank - 1) * log(kappa)", 1),
        ),
    ),
    Mutant(
        "dt-slope-prior-degrees-of-freedom",
        "slopes under the slope prior use p degrees of freedom, d_m = δ -> δ + p "
        "[DT-SPEC §3.7]",
        f"{SLOPE}::test_slope_prior_predictive_is_the_conditional_student_t",
        (
            (LM_PY, "st.bb > 0.0 and cfg.kappa == 0.0:", "st.bb > 0.0:", 1),
            (LM_C, "st[DT_OFF_BB] > 0.0 && c->kappa == 0.0)", "st[DT_OFF_BB] > 0.0)", 1),
        ),
    ),
    Mutant(
        "dt-slope-prior-ridge",
        "posterior precision G + κ I -> G + 2κ I in the Cholesky loop [DT-SPEC §3.7]",
        f"{SLOPE}::test_slope_prior_predictive_is_the_conditional_student_t",
        (
            (LN_PY, "            s = s + kappa\n", "            s = s + 2.0 * kappa\n", 1),
            (LM_C, "if (c->kappa > 0.0) s = s + c->kappa;",
             "if (c->kappa > 0.0) s = s + 2.0 * c->kappa;", 1),
        ),
    ),
    Mutant(
        "dt-linear-location-sign",
        "linear predictive location μ0 + (z - x̄)'β -> μ0 - (z - x̄)'β [DT-SPEC §3.2]",
        f"{LINEAR}::test_linear_leaf_predictive_is_the_bayesian_regression_t",
        (
            (LM_PY, "        loc = mu0 + lin\n", "        loc = mu0 - lin\n", 1),
            (LM_C, "*loc = mu0 + lin;", "*loc = mu0 - lin;", 1),
        ),
    ),
    Mutant(
        "dt-linear-leverage",
        "predictive leverage h + u'G^-1 u -> h + 2 u'G^-1 u [DT-SPEC §3.2]",
        f"{LINEAR}::test_linear_leaf_predictive_is_the_bayesian_regression_t",
        (
            (LM_PY, "        h = h + quad\n", "        h = h + 2.0 * quad\n", 1),
            (LM_C, "        h = h + quad;", "        h = h + 2.0 * quad;", 1),
        ),
    ),
    Mutant(
        "dt-evidence-constant",
        "per-point constant log(2/π) -> log(2π) [DT-SPEC §3.1]",
        f"{LINEAR}::test_linear_leaf_evidence_is_the_integrated_likelihood",
        (
            (LM_PY, "LOG_2_OVER_PI = math.log(2.0 / PI)", "LOG_2_OVER_PI = math.log(2.0 * PI)", 1),
            (
                LM_C,
                "ell = -0.5 * (n - dm) * log(2.0 / DT_PI);",
                "ell = -0.5 * (n - dm) * log(2.0 * DT_PI);",
                1,
            ),
        ),
    ),
    Mutant(
        "dt-prior-df",
        "prior normaliser's degrees of freedom ν0 + ν -> ν0 + ν + 1 [DT-SPEC §3.1]",
        f"{LINEAR}::test_linear_leaf_evidence_is_the_integrated_likelihood",
        (
            (LM_PY, "prior_df = cfg.nu0 + st.nu\n", "prior_df = cfg.nu0 + st.nu + 1.0\n", 1),
            (
                LM_C,
                "prior_df = c->nu0 + st[DT_OFF_NU];",
                "prior_df = c->nu0 + st[DT_OFF_NU] + 1.0;",
                1,
            ),
        ),
    ),
    Mutant(
        "dt-prior-q-half",
        "prior normaliser (ν0+ν)/2 log(Q_p/2) -> (ν0+ν)/2 log(Q_p) [DT-SPEC §3.1]",
        f"{LINEAR}::test_linear_leaf_evidence_is_the_integrated_likelihood",
        (
            (LM_PY, "(0.5 * prior_df * math.log(qp / 2.0)", "(0.5 * prior_df * math.log(qp)", 1),
            (LM_C, "return qp == c->qp0 ? c->log_qp0 : log(qp / 2.0);", "return log(qp);", 1),
        ),
    ),
    Mutant(
        "dt-retired-square",
        "Q_p - (S^g_y)²/ν -> - (S^g_y)²/(ν + 1) [DT-SPEC §3.0]",
        f"{RETIRED}::test_retiring_with_lambda_one_leaves_the_predictive_unchanged",
        (
            (
                LM_PY,
                "qp = qp - st.syg * st.syg / st.nu",
                "qp = qp - st.syg * st.syg / (st.nu + 1.0)",
                1,
            ),
            (
                LM_C,
                "qq = qq - st[DT_OFF_SYG] * st[DT_OFF_SYG] / nu;",
                "qq = qq - st[DT_OFF_SYG] * st[DT_OFF_SYG] / (nu + 1.0);",
                1,
            ),
        ),
    ),
    Mutant(
        "dt-retired-cross-term",
        "cross term ν n/(ν + n) -> ν n/(ν + n + 1) [DT-SPEC §3.0]",
        f"{RETIRED}::test_retiring_with_lambda_one_leaves_the_predictive_unchanged",
        (
            (
                LM_PY,
                "qp = qp + st.nu * n / (st.nu + n) * dev * dev",
                "qp = qp + st.nu * n / (st.nu + n + 1.0) * dev * dev",
                1,
            ),
            (
                LM_C,
                "qq = qq + nu * n / (nu + n) * dev * dev;",
                "qq = qq + nu * n / (nu + n + 1.0) * dev * dev;",
                1,
            ),
        ),
    ),
    Mutant(
        "dt-pooled-mean",
        "pooled mean (S^g_y + S_y)/(ν + n) -> /(ν + n + 1) [DT-SPEC §3.0]",
        f"{RETIRED}::test_retiring_with_lambda_one_leaves_the_predictive_unchanged",
        (
            (LM_PY, "(st.syg + st.sy) / (st.nu + n)", "(st.syg + st.sy) / (st.nu + n + 1.0)", 1),
            (
                LM_C,
                "(st[DT_OFF_SYG] + st[DT_OFF_SY]) / (nu + n);",
                "(st[DT_OFF_SYG] + st[DT_OFF_SY]) / (nu + n + 1.0);",
                1,
            ),
        ),
    ),
    Mutant(
        "dt-retired-df",
        "df = ν0 + ν + n - d_m -> ν0 + n - d_m [DT-SPEC §3.0]",
        f"{RETIRED}::test_retiring_with_lambda_one_leaves_the_predictive_unchanged",
        (
            (LM_PY, "df = cfg.nu0 + st.nu + n - dm", "df = cfg.nu0 + n - dm", 1),
            (LM_C, "*df = c->nu0 + nu + n - *dm;", "*df = c->nu0 + n - *dm;", 1),
        ),
    ),
    Mutant(
        "dt-forget-mass",
        "ν <- λν + 1 -> ν + 1 [AG13, §5]",
        f"{RETIRED}::test_forgotten_prior_gives_the_weighted_likelihood_predictive",
        (
            (FG_PY, "st.nu = lam * st.nu + 1.0", "st.nu = st.nu + 1.0", 1),
            (
                FG_C,
                "st[DT_OFF_NU] = lam * st[DT_OFF_NU] + 1.0;",
                "st[DT_OFF_NU] = st[DT_OFF_NU] + 1.0;",
                1,
            ),
        ),
    ),
    Mutant(
        "dt-forget-sum",
        "S^g_y <- λ S^g_y + y -> S^g_y + y [AG13, §5]",
        f"{RETIRED}::test_forgotten_prior_gives_the_weighted_likelihood_predictive",
        (
            (FG_PY, "st.syg = lam * st.syg + y", "st.syg = st.syg + y", 1),
            (
                FG_C,
                "st[DT_OFF_SYG] = lam * st[DT_OFF_SYG] + y;",
                "st[DT_OFF_SYG] = st[DT_OFF_SYG] + y;",
                1,
            ),
        ),
    ),
    Mutant(
        "dt-forget-gram",
        "G^g <- λ G^g + z z' -> G^g + z z' [AG13, §5]",
        f"{RETIRED}::test_forgotten_prior_gives_the_weighted_likelihood_predictive",
        (
            (
                FG_PY,
                "st.Gg[j * p + k] = lam * st.Gg[j * p + k] + z[j] * z[k]",
                "st.Gg[j * p + k] = st.Gg[j * p + k] + z[j] * z[k]",
                1,
            ),
            (
                FG_C,
                "st[c->off_Gg + j * p + k] = lam * st[c->off_Gg + j * p + k] + z[j] * z[k];",
                "st[c->off_Gg + j * p + k] = st[c->off_Gg + j * p + k] + z[j] * z[k];",
                1,
            ),
        ),
    ),
    Mutant(
        "dt-forget-class-counts",
        "a_k <- λ a_k (+ e_y) -> a_k (+ e_y) [AG13, §5]",
        f"{RETIRED}::test_forgotten_class_prior_gives_weighted_counts",
        (
            (FG_PY, "st.gcounts[k] = lam * st.gcounts[k]", "st.gcounts[k] = st.gcounts[k]", 1),
            (
                FG_C,
                "st[c->off_gcounts + k] = lam * st[c->off_gcounts + k];",
                "st[c->off_gcounts + k] = st[c->off_gcounts + k];",
                1,
            ),
        ),
    ),
    Mutant(
        "dt-retired-share",
        "grow child's retired mass ρ ν -> ν [AG13, §3.2]",
        f"{RETIRED}::test_grow_and_prune_conserve_retired_information",
        (
            (LM_PY, "st.nu = rho * parent.nu", "st.nu = parent.nu", 1),
            (
                LM_C,
                "st[DT_OFF_NU] = rho * parent[DT_OFF_NU];",
                "st[DT_OFF_NU] = parent[DT_OFF_NU];",
                1,
            ),
        ),
    ),
    Mutant(
        "dt-split-prob-depth",
        "log p_split(d) = log α - β log(1 + d) -> - β log(2 + d) [AG13, §2.1]",
        f"{PRIOR}::test_tree_prior_of_every_small_shape_is_the_product_of_split_probabilities",
        (
            (
                "reference/dynatree/tree.py",
                "beta * math.log(1.0 + float(depth))",
                "beta * math.log(2.0 + float(depth))",
                1,
            ),
            (
                "csrc/dynatree/tree.c",
                "beta * log(1.0 + (double)depth)",
                "beta * log(2.0 + (double)depth)",
                1,
            ),
        ),
    ),
    Mutant(
        "dt-leaf-prob-depth",
        "log(1 - α(1 + d)^-β) -> log(1 - α(2 + d)^-β) [AG13, §2.1]",
        f"{PRIOR}::test_tree_prior_of_every_small_shape_is_the_product_of_split_probabilities",
        (
            (
                "reference/dynatree/tree.py",
                "math.pow(1.0 + float(depth), -beta)",
                "math.pow(2.0 + float(depth), -beta)",
                1,
            ),
            (
                "csrc/dynatree/tree.c",
                "pow(1.0 + (double)depth, -beta)",
                "pow(2.0 + (double)depth, -beta)",
                1,
            ),
        ),
    ),
    Mutant(
        "dt-grow-child-depth",
        "grown children scored at depth d + 1 -> d [DT-SPEC §4.1]",
        f"{PRIOR}::test_grow_score_is_the_score_of_the_grown_tree",
        (
            (
                "reference/dynatree/tree.py",
                "below = log_leaf_prob(node.depth + 1, alpha, beta)",
                "below = log_leaf_prob(node.depth, alpha, beta)",
                1,
            ),
            (
                "csrc/dynatree/tree.c",
                "below = dt_prior_leaf(m, nd[k].depth + 1);",
                "below = dt_prior_leaf(m, nd[k].depth);",
                2,    # dt_subtree_log_score and the stay/grow pair dt_subtree_log_scores
            ),
        ),
    ),
    Mutant(
        "dt-residual-probabilities",
        "residual draws from (N w - floor(N w))/R -> from w [DT-SPEC §5.2]",
        f"{PRIOR}::test_residual_resampling_has_the_expected_counts",
        (
            (
                "reference/dynatree/particles.py",
                "c = c + (expected[i] - float(counts[i])) / float(r)",
                "c = c + expected[i] / float(n)",
                1,
            ),
            (
                "csrc/dynatree/particles.c",
                "c = c + (expected[i] - (double)counts[i]) / (double)rest;",
                "c = c + expected[i] / (double)n;",
                1,
            ),
        ),
    ),
    Mutant(
        "dt-lpred-average",
        "lpred = log(Σ w) - log N -> log(Σ w) [DT-SPEC §5.2]",
        f"{PRIOR}::test_lpred_is_the_log_predictive_density_of_each_new_target",
        (
            (
                "reference/dynatree/particles.py",
                "lpred = log_or_neg_inf(total) - math.log(float(n))",
                "lpred = log_or_neg_inf(total)",
                1,
            ),
            (
                "csrc/dynatree/particles.c",
                "lpred = special_log_or_neg_inf(total) - log((double)n);",
                "lpred = special_log_or_neg_inf(total);",
                1,
            ),
        ),
    ),
    Mutant(
        "dt-entropy-term",
        "entropy -Σ p log p -> -Σ p² log p [DT-SPEC §7.5]",
        f"{DISCARD}::test_entropy_active_is_the_particle_average_of_leaf_entropies",
        (
            (DS_PY, "h = h - pk * math.log(pk)", "h = h - pk * pk * math.log(pk)", 1),
            (DS_C, "h = h - pk * log(pk);", "h = h - pk * pk * log(pk);", 1),
        ),
    ),
    Mutant(
        "dt-alc-df",
        "ALC denominator (df - 2)(1 + h) -> (df - 1)(1 + h) [DT-SPEC §7.1]",
        f"{DISCARD}::test_alc_is_the_integrated_variance_reduction_by_quadrature",
        (
            (DS_PY, "/ ((df - 2.0) * (1.0 + h))", "/ ((df - 1.0) * (1.0 + h))", 1),
            (DS_C, "/ ((prep[1] - 2.0) * (1.0 + h))", "/ ((prep[1] - 1.0) * (1.0 + h))", 1),
        ),
    ),
    Mutant(
        "dt-alc-second-moment",
        "∫ u² over [a, b] / (b - a) = (a² + ab + b²)/3 -> /4 [DT-SPEC §7.4]",
        f"{DISCARD}::test_alc_is_the_integrated_variance_reduction_by_quadrature",
        (
            (
                DS_PY,
                "m2 = (a[i] * a[i] + a[i] * b[i] + b[i] * b[i]) / 3.0",
                "m2 = (a[i] * a[i] + a[i] * b[i] + b[i] * b[i]) / 4.0",
                1,
            ),
            (
                DS_C,
                "m2 = (a[i] * a[i] + a[i] * b[i] + b[i] * b[i]) / 3.0;",
                "m2 = (a[i] * a[i] + a[i] * b[i] + b[i] * b[i]) / 4.0;",
                1,
            ),
        ),
    ),
    Mutant(
        "dt-alc-cross-moment",
        "cross moment (a_i + b_i)(a_j + b_j)/2 -> /4 [DT-SPEC §7.4]",
        f"{DISCARD}::test_alc_is_the_integrated_variance_reduction_by_quadrature",
        (
            (
                DS_PY,
                "t = t + v[i] * v[j] * (m1 * (a[j] + b[j])) / 2.0",
                "t = t + v[i] * v[j] * (m1 * (a[j] + b[j])) / 4.0",
                1,
            ),
            (
                DS_C,
                "t = t + v[i] * v[reg[j]] * (m1 * (a[reg[j]] + b[reg[j]])) / 2.0;",
                "t = t + v[i] * v[reg[j]] * (m1 * (a[reg[j]] + b[reg[j]])) / 4.0;",
                1,
            ),
        ),
    ),
]
