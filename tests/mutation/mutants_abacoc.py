"""Mutants of the ABACOC [DOC15] formulas (see :mod:`tests.mutation.mutant`)."""

from __future__ import annotations

from tests.mutation.mutant import Mutant

ABACOC = "tests/abacoc/test_oracle_rules.py"
COVER = "tests/abacoc/test_oracle_cover.py"
SE_PY, SE_C = "reference/abacoc/search.py", "csrc/abacoc/search.c"
KD_PY = "reference/abacoc/kdtree.py"
VA_PY, VA_C = "reference/abacoc/variants.py", "csrc/abacoc/variants.c"
DISTANCE = f"{COVER}::test_distance_is_the_minkowski_distance"
NEAREST = f"{COVER}::test_nearest_ball_is_the_brute_force_nearest_centre"
BASE = f"{COVER}::test_base_radius_and_dimension_follow_algorithm_2"

ABACOC_MUTANTS: list[Mutant] = [
    Mutant(
        "ab-centre-step",
        "ADJ centre step (x - c)/u -> (x - c)/(u + 1) [DOC15, Alg. 4]",
        f"{ABACOC}::test_auto_adj_balls_follow_algorithm_4_by_hand",
        (
            (
                "reference/abacoc/balls.py",
                "center[j] + (x[j] - center[j]) / u",
                "center[j] + (x[j] - center[j]) / (u + 1.0)",
                1,
            ),
            (
                "csrc/abacoc/balls.c",
                "c[j] + (x[j] - c[j]) / u;",
                "c[j] + (x[j] - c[j]) / (u + 1.0);",
                1,
            ),
        ),
    ),
    Mutant(
        "ab-radius-exponent",
        "radius law m^(-1/(2+d)) -> m^(-1/(1+d)) [DOC15, Alg. 4]",
        f"{ABACOC}::test_auto_adj_balls_follow_algorithm_4_by_hand",
        (
            (
                "reference/abacoc/balls.py",
                "exponent = -1.0 / (2.0 + d)",
                "exponent = -1.0 / (1.0 + d)",
                1,
            ),
            ("csrc/abacoc/balls.c", "exponent = -1.0 / (2.0 + d);",
             "exponent = -1.0 / (1.0 + d);", 1),
        ),
    ),
    Mutant(
        "ab-band-width",
        "band half-width 1/(2 sqrt(n + 2)) -> 1/(2 sqrt(n + 1)) [DOC15, Alg. 2]",
        f"{ABACOC}::test_randomized_base_probability_is_algorithm_2",
        (
            (
                "reference/abacoc/balls.py",
                "gamma = 1.0 / (2.0 * math.sqrt(float(n + 2)))",
                "gamma = 1.0 / (2.0 * math.sqrt(float(n + 1)))",
                1,
            ),
            (
                "csrc/abacoc/balls.c",
                "double gamma = 1.0 / (2.0 * sqrt((double)(n + 2)));",
                "double gamma = 1.0 / (2.0 * sqrt((double)(n + 1)));",
                1,
            ),
        ),
    ),
    Mutant(
        "ab-laplace",
        "Laplace estimate (n1 + 1)/(n + 2) -> (n1 + 1)/(n + 3) [DOC15, Alg. 2]",
        f"{ABACOC}::test_randomized_base_probability_is_algorithm_2",
        (
            (
                "reference/abacoc/balls.py",
                "q = float(n1 + 1) / float(n + 2)",
                "q = float(n1 + 1) / float(n + 3)",
                1,
            ),
            (
                "csrc/abacoc/balls.c",
                "double q = (double)(n1 + 1) / (double)(n + 2);",
                "double q = (double)(n1 + 1) / (double)(n + 3);",
                1,
            ),
        ),
    ),
    Mutant(
        "ab-minkowski-root",
        "Minkowski ρ = raw^(1/p) -> raw^(1/(p + 1)) [DOC15, §III]",
        DISTANCE,
        (
            (
                SE_PY,
                "return pow_or_inf(raw, 1.0 / p)",
                "return pow_or_inf(raw, 1.0 / (p + 1.0))",
                1,
            ),
            (
                SE_C,
                "return ab_pow_or_inf(raw, 1.0 / p);",
                "return ab_pow_or_inf(raw, 1.0 / (p + 1.0));",
                1,
            ),
        ),
    ),
    Mutant(
        "ab-euclidean-root",
        "Euclidean ρ = √raw -> raw [DOC15, §VI]",
        DISTANCE,
        (
            (SE_PY, "        return math.sqrt(raw)\n", "        return raw\n", 1),
            (
                SE_C,
                "if (metric == AB_METRIC_EUCLIDEAN) return sqrt(raw);",
                "if (metric == AB_METRIC_EUCLIDEAN) return raw;",
                1,
            ),
        ),
    ),
    Mutant(
        "ab-manhattan-term",
        "Manhattan term |d| -> 2|d| [DOC15, §III]",
        DISTANCE,
        (
            (SE_PY, "        return abs(diff)\n", "        return 2.0 * abs(diff)\n", 1),
            (
                SE_C,
                "if (metric == AB_METRIC_MANHATTAN) return fabs(diff);",
                "if (metric == AB_METRIC_MANHATTAN) return 2.0 * fabs(diff);",
                1,
            ),
        ),
    ),
    Mutant(
        "ab-search-lower-bound",
        "k-d tree box lower bound doubled (prunes boxes that may hold the nearest centre)",
        NEAREST,
        (
            (
                KD_PY,
                "total += distance_term(lo[j] - x[j], self.metric, self.p)",
                "total += 2.0 * distance_term(lo[j] - x[j], self.metric, self.p)",
                1,
            ),
            (
                KD_PY,
                "total += distance_term(x[j] - hi[j], self.metric, self.p)",
                "total += 2.0 * distance_term(x[j] - hi[j], self.metric, self.p)",
                1,
            ),
            (
                SE_C,
                "if (x[j] < lo[j]) total += ab_distance_term(lo[j] - x[j], t->metric, t->p);",
                "if (x[j] < lo[j]) total += 2.0 * ab_distance_term(lo[j] - x[j], t->metric, t->p);",
                1,
            ),
            (
                SE_C,
                "else if (x[j] > hi[j]) total += ab_distance_term(x[j] - hi[j], t->metric, t->p);",
                "else if (x[j] > hi[j]) total += 2.0 * "
                "ab_distance_term(x[j] - hi[j], t->metric, t->p);",
                1,
            ),
            (
                SE_C,
                "        total += gap * gap;\n        if (total > bound) return total;",
                "        total += 2.0 * gap * gap;\n        if (total > bound) return total;",
                1,
            ),
        ),
    ),
    Mutant(
        "ab-class-distribution",
        "ball's class distribution n(k)/n -> (n(k) + 1)/(n + 2) [DOC15, Alg. 1]",
        NEAREST,
        (
            (
                VA_PY,
                "[float(count_of(ball, k)) / n for k in range(state.n_classes)]",
                "[(float(count_of(ball, k)) + 1.0) / (n + 2.0) for k in range(state.n_classes)]",
                1,
            ),
            (
                VA_C,
                "out[k] = (double)ab_count_of(m, slot, k) / n;",
                "out[k] = ((double)ab_count_of(m, slot, k) + 1.0) / (n + 2.0);",
                1,
            ),
        ),
    ),
    Mutant(
        "ab-budget-weight",
        "deletion weight m_i + 1 -> m_i + 2 [DOC15, Eq. 1]",
        f"{COVER}::test_budget_rule_deletes_in_proportion_to_mistakes_plus_one",
        (
            (VA_PY, "weight_total += ball.m + 1", "weight_total += ball.m + 2", 1),
            (VA_PY, "running += state.balls[slot].m + 1", "running += state.balls[slot].m + 2", 1),
            (
                VA_C,
                "weight_total += (uint64_t)(m->balls.m[slot] + 1);",
                "weight_total += (uint64_t)(m->balls.m[slot] + 2);",
                1,
            ),
            (VA_C, "running += m->balls.m[slot] + 1;", "running += m->balls.m[slot] + 2;", 1),
        ),
    ),
    Mutant(
        "ab-base-radius",
        "BASE radius t^(-1/(2 + d)) -> t^(-1/(1 + d)) [DOC15, Alg. 2]",
        BASE,
        (
            (VA_PY, "-1.0 / (2.0 + state.phase_dim)", "-1.0 / (1.0 + state.phase_dim)", 1),
            (VA_C, "-1.0 / (2.0 + m->vs.phase_dim)", "-1.0 / (1.0 + m->vs.phase_dim)", 1),
        ),
    ),
    Mutant(
        "ab-base-dimension",
        "dimension estimate log((|S|+1)/C)/log(2/ε) -> /log(4/ε) [DOC15, Alg. 2]",
        BASE,
        (
            (VA_PY, "math.log(2.0 / state.radius)", "math.log(4.0 / state.radius)", 1),
            (VA_C, "log(2.0 / m->vs.radius)", "log(4.0 / m->vs.radius)", 1),
        ),
    ),
]
