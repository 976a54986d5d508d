"""Mutants of the ABACOC [DOC15] formulas (see :mod:`tests.mutation.mutant`)."""

from __future__ import annotations

from tests.mutation.mutant import Mutant

ABACOC = "tests/test_oracle_abacoc_rules.py"

ABACOC_MUTANTS: list[Mutant] = [
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
]
