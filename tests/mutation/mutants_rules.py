"""Mutants of the rules (tolerances, bounds, caps, edges) that lockstep alone guards.

Issue 47 item 8: each of these rules, changed alike in both backends, once broke no
test. Each mutant changes one rule (in the Python and its C twin, or in the Python that
both backends run: ``shared``) and names the test that pins the rule from both sides
(see :mod:`tests.mutation.mutant`).
"""

from __future__ import annotations

from tests.mutation.mutant import Mutant

RULES = "tests/dynatree/test_rule_boundaries.py"
SLOPE = "tests/dynatree/test_oracle_slope_prior.py"
PROBE = "tests/abacoc/test_search_probe_count.py"
DEPTH = "tests/common/test_loader_depth_cap.py"
LN_PY, LM_C = "reference/dynatree/linear_leaf.py", "csrc/dynatree/leaf_models.c"
LM_PY = "reference/dynatree/leaf_models.py"
SC_PY = "reference/dynatree/state_check.py"
IN_PY, DT_C = "reference/dynatree/inputs.py", "csrc/dynatree/model.c"
KD_PY, SE_C = "reference/abacoc/kdtree.py", "csrc/abacoc/search.c"
PERSIST = "reference/persist.py"
SGT_RULES = "tests/sgt/test_rule_boundaries.py"
CHUNKS = "tests/common/test_row_chunk_limits.py"
SM_PY, SC_C = "reference/sgt/model.py", "csrc/sgt/core.c"
SGT_CHECK = ("the SGT feature check (reference/sgt/params.py), which both backends run before "
             "a model is built")
PARALLEL = "the n_jobs chunking (reference/parallel.py), which the fast engines call"
LOADER = "the model-file loader (reference/persist.py), which fast.load calls"
CHECKS = ("the dynamic-tree state checks (reference/dynatree/state_check.py), which the "
          "fast models run before their state reaches C")

RULE_MUTANTS: list[Mutant] = [
    Mutant(
        "rule-pivot-scale-centred",
        "pivot tolerance relative to the raw sum of squares G_jj + n xbar_j^2 -> the "
        "centred G_jj [DT-SPEC §3.2]",
        f"{RULES}::test_pivot_tolerance_is_relative_to_the_raw_sum_of_squares",
        (
            (LN_PY, "scale = s + n * st.xbar[j] * st.xbar[j]",
             "scale = s + 0.0 * n * st.xbar[j] * st.xbar[j]", 1),
            (LM_C, "scale = s + n * xbar[j] * xbar[j];",
             "scale = s + 0.0 * n * xbar[j] * xbar[j];", 1),
        ),
    ),
    Mutant(
        "rule-ginv-psd-over-all-leaves",
        "G^-1 semi-definite within 1e-9 of each leaf's largest entry -> of the largest "
        "entry over all leaves (format 2's column check)",
        f"{RULES}::test_g_inverse_tolerance_is_taken_per_leaf",
        ((SC_PY, "np.abs(ginv).max(axis=(-2, -1))", "np.abs(ginv).max()", 1),),
        shared=CHECKS,
    ),
    Mutant(
        "rule-ginv-psd-tolerance",
        "G^-1 semi-definiteness tolerance 1e-9 -> 1e-8 of the leaf's largest entry",
        f"{RULES}::test_g_inverse_tolerance_scales_with_the_leaf",
        ((SC_PY, "lowest >= -1e-9 * np.abs", "lowest >= -1e-8 * np.abs", 1),),
        shared=CHECKS,
    ),
    Mutant(
        "rule-constant-sums-tolerance-format2",
        "format 2: a constant leaf's stored sums within 1e-6 -> 1e-5 of the scale",
        f"{RULES}::test_constant_leaf_sums_tolerance_is_one_in_a_million",
        ((SC_PY, "> 1e-6 * scale).any()", "> 1e-5 * scale).any()", 1),),
        shared=CHECKS,
    ),
    Mutant(
        "rule-constant-sums-tolerance-format1",
        "format 1: a constant leaf's stored sums within 1e-6 -> 1e-5 of the scale",
        f"{RULES}::test_constant_leaf_sums_tolerance_is_one_in_a_million",
        ((SC_PY, "- total) > 1e-6 * scale:", "- total) > 1e-5 * scale:", 1),),
        shared=CHECKS,
    ),
    Mutant(
        "rule-one-row-magnitude-at-bound",
        "one-row calls: magnitude at most 1e150 -> below 1e150 (the bound itself refused)",
        f"{RULES}::test_one_row_learning_accepts_the_bound_and_refuses_the_next_double",
        (
            (IN_PY, "if any(abs(v) > MAX_MAGNITUDE for v in values):",
             "if any(abs(v) >= MAX_MAGNITUDE for v in values):", 1),
            (IN_PY, "if abs(f) > MAX_MAGNITUDE:", "if abs(f) >= MAX_MAGNITUDE:", 1),
            (DT_C, "if (!(fabs(x[a]) <= DT_MAX_MAGNITUDE)) return ST_EINVAL;",
             "if (!(fabs(x[a]) < DT_MAX_MAGNITUDE)) return ST_EINVAL;", 1),
        ),
    ),
    Mutant(
        "rule-one-row-magnitude-past-bound",
        "one-row predictions: magnitude at most 1e150 -> at most 2e150",
        f"{RULES}::test_one_row_predictions_accept_the_bound_and_refuse_the_next_double",
        (
            (IN_PY, "if any(abs(v) > MAX_MAGNITUDE for v in values):",
             "if any(abs(v) > 2.0 * MAX_MAGNITUDE for v in values):", 1),
            (DT_C, "if (!(fabs(x[a]) <= DT_MAX_MAGNITUDE)) return ST_EINVAL;",
             "if (!(fabs(x[a]) <= 2.0 * DT_MAX_MAGNITUDE)) return ST_EINVAL;", 1),
        ),
    ),
    Mutant(
        "rule-slope-prior-b-zero-in-use",
        "slope prior: the linear terms in use while G^-1 is live -> only while bb > 0 "
        "(a leaf with b = 0 loses the slopes' share of the scale) [DT-SPEC §3.7]",
        f"{SLOPE}::test_slope_prior_predictive_on_a_leaf_with_b_zero",
        (
            (LM_PY, "(st.bb > 0.0 if cfg.kappa == 0.0 else st.ginv[0] > 0.0)",
             "st.bb > 0.0", 1),
            (LM_C, "(c->kappa == 0.0 ? st[DT_OFF_BB] > 0.0 : st[c->off_ginv] > 0.0)",
             "st[DT_OFF_BB] > 0.0", 1),
        ),
    ),
    Mutant(
        "rule-slope-prior-b-zero-fallback",
        "slope prior: bb = 0 is an ordinary leaf -> falls back to G^-1 = 0 [DT-SPEC §3.7]",
        f"{SLOPE}::test_slope_prior_predictive_on_a_leaf_with_b_zero",
        (
            (LN_PY, "if not (bb >= 0.0 and bb < math.inf", "if not (bb > 0.0 and bb < math.inf",
             1),
            (LM_C, "if (!(bb >= 0.0 && bb < INFINITY", "if (!(bb > 0.0 && bb < INFINITY", 1),
        ),
    ),
    Mutant(
        "rule-probe-after-129",
        "search auto: judge the tree at >= 128 queries -> > 128 [ABACOC-SPEC §13]",
        f"{PROBE}::test_auto_search_judges_the_tree_at_128_queries_and_half_the_balls",
        (
            (KD_PY, "tree.queries < PROBE_QUERIES:", "tree.queries <= PROBE_QUERIES:", 1),
            (SE_C, "t->queries < AB_PROBE_QUERIES)", "t->queries <= AB_PROBE_QUERIES)", 1),
        ),
    ),
    Mutant(
        "rule-probe-at-127",
        "search auto: judge the tree at >= 128 queries -> >= 127 [ABACOC-SPEC §13]",
        f"{PROBE}::test_auto_search_judges_the_tree_at_128_queries_and_half_the_balls",
        (
            (KD_PY, "tree.queries < PROBE_QUERIES:", "tree.queries < PROBE_QUERIES - 1:", 1),
            (SE_C, "t->queries < AB_PROBE_QUERIES)", "t->queries < AB_PROBE_QUERIES - 1)", 1),
        ),
    ),
    Mutant(
        "rule-probe-half-strict",
        "search auto: dropped at half the balls or more -> at more than half",
        f"{PROBE}::test_auto_search_judges_the_tree_at_128_queries_and_half_the_balls",
        (
            (KD_PY, "return 2 * tree.visited < tree.queries * n_balls",
             "return 2 * tree.visited <= tree.queries * n_balls", 1),
            (SE_C, "return 2 * t->visited < t->queries * m->balls.n_balls;",
             "return 2 * t->visited <= t->queries * m->balls.n_balls;", 1),
        ),
    ),
    Mutant(
        "rule-depth-cap-refuses-32",
        "loader: nested more than MAX_DEPTH refused -> MAX_DEPTH itself refused",
        f"{DEPTH}::test_a_document_exactly_max_depth_deep_passes_the_depth_check",
        ((PERSIST, "if depth > MAX_DEPTH:", "if depth >= MAX_DEPTH:", 1),),
        shared=LOADER,
    ),
    Mutant(
        "rule-depth-cap-accepts-33",
        "loader: nested more than MAX_DEPTH refused -> more than MAX_DEPTH + 1",
        f"{DEPTH}::test_a_document_one_level_past_max_depth_is_refused_for_its_nesting",
        ((PERSIST, "if depth > MAX_DEPTH:", "if depth > MAX_DEPTH + 1:", 1),),
        shared=LOADER,
    ),
    Mutant(
        "rule-batch-magnitude-past-bound",
        "batches: magnitude at most 1e150 -> at most 2e150 (array path and the C batch)",
        f"{RULES}::test_batches_accept_the_bound_and_refuse_the_next_double",
        (
            (IN_PY, "<= np.float64(MAX_MAGNITUDE)).all()",
             "<= np.float64(2.0 * MAX_MAGNITUDE)).all()", 1),
            (DT_C, "if (!(fabs(X[r]) <= DT_MAX_MAGNITUDE)) return ST_EINVAL;",
             "if (!(fabs(X[r]) <= 2.0 * DT_MAX_MAGNITUDE)) return ST_EINVAL;", 1),
            (DT_C, "if (!(fabs(y[r]) <= DT_MAX_MAGNITUDE)) return ST_EINVAL;",
             "if (!(fabs(y[r]) <= 2.0 * DT_MAX_MAGNITUDE)) return ST_EINVAL;", 1),
        ),
    ),
    Mutant(
        "rule-sgt-target-bound-strict",
        "SGT squared-error targets: magnitude at most 1e70 -> below 1e70",
        f"{SGT_RULES}::"
        "test_squared_error_targets_at_the_bound_learn_and_the_next_double_is_refused",
        (
            (SM_PY, "if abs(value) > GRADIENT_BOUND and", "if abs(value) >= GRADIENT_BOUND and",
             1),
            (SM_PY, "good = np.abs(y[start:stop]) <= bound",
             "good = np.abs(y[start:stop]) < bound", 1),
            (SC_C, "!(fabs(target) <= SGT_GRADIENT_BOUND))",
             "!(fabs(target) < SGT_GRADIENT_BOUND))", 1),
        ),
    ),
    Mutant(
        "rule-sgt-gradient-bound-strict",
        "SGT custom gradients: magnitude at most 1e70 -> below 1e70",
        f"{SGT_RULES}::test_custom_gradients_at_the_bound_learn_and_the_next_double_is_refused",
        (
            (SM_PY, "if abs(g) > GRADIENT_BOUND:", "if abs(g) >= GRADIENT_BOUND:", 1),
            (SC_C, "!(fabs(grads[c]) <= SGT_GRADIENT_BOUND)",
             "!(fabs(grads[c]) < SGT_GRADIENT_BOUND)", 1),
        ),
    ),
    Mutant(
        "rule-sgt-leaf-cells-at-limit",
        "SGT: more than MAX_LEAF_CELLS cells refused -> MAX_LEAF_CELLS itself refused",
        f"{SGT_RULES}::test_a_leaf_of_exactly_max_leaf_cells_is_accepted_and_one_more_refused",
        (("reference/sgt/params.py", "if cells > MAX_LEAF_CELLS:", "if cells >= MAX_LEAF_CELLS:",
          1),),
        shared=SGT_CHECK,
    ),
    Mutant(
        "rule-row-chunks-rounds",
        "n_jobs chunks of at most max_rows rows -> rounds rounded down (chunks past it)",
        f"{CHUNKS}::test_chunks_never_exceed_max_rows_at_and_past_the_limit",
        (("reference/parallel.py", "rounds = max(1, math.ceil(n / (jobs * max(1, max_rows))))",
          "rounds = max(1, math.floor(n / (jobs * max(1, max_rows))))", 1),),
        shared=PARALLEL,
    ),
    Mutant(
        "rule-nstart-split-format1",
        "format 1: splits only after more than nstart rows -> from nstart rows on",
        f"{RULES}::test_splits_are_allowed_only_after_more_rows_than_nstart",
        ((SC_PY, "grown = n_seen > params.resolved_nstart(d)",
          "grown = n_seen >= params.resolved_nstart(d)", 1),),
        shared=CHECKS,
    ),
    Mutant(
        "rule-nstart-split-format2",
        "format 2: splits only after more than nstart rows -> from nstart rows on",
        f"{RULES}::test_splits_are_allowed_only_after_more_rows_than_nstart",
        ((SC_PY, "if not n_seen > params.resolved_nstart(d):",
          "if not n_seen >= params.resolved_nstart(d):", 1),),
        shared=CHECKS,
    ),
    Mutant(
        "rule-stored-rows-at-most-learned",
        "loaded states store at most n_seen rows -> n_seen + 1 (both formats)",
        f"{RULES}::test_a_state_stores_at_most_the_rows_it_learned",
        ((SC_PY, "if n > n_seen:", "if n > n_seen + 1:", 2),),
        shared=CHECKS,
    ),
    Mutant(
        "rule-min-leaf-format1",
        "format 1: a leaf of a grown tree holds n + nu >= min_leaf -> > min_leaf",
        f"{RULES}::test_a_leaf_of_a_grown_tree_holds_at_least_min_leaf_points",
        ((SC_PY, "float(len(points)) + float(stats[0]) >= float(minp):",
          "float(len(points)) + float(stats[0]) > float(minp):", 1),),
        shared=CHECKS,
    ),
    Mutant(
        "rule-min-leaf-format2",
        "format 2: a leaf of a grown tree holds n + nu >= min_leaf -> > min_leaf",
        f"{RULES}::test_a_leaf_of_a_grown_tree_holds_at_least_min_leaf_points",
        ((SC_PY, "stats[:, 0] >= float(minp))", "stats[:, 0] > float(minp))", 1),),
        shared=CHECKS,
    ),
]
