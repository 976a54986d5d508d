"""Mutants of the dynamic trees [TGP11; AG13] formulas (see :mod:`tests.mutation.mutant`)."""

from __future__ import annotations

from tests.mutation.mutant import Mutant

EVIDENCE = "tests/test_oracle_leaf_evidence.py"

DYNATREE_MUTANTS: list[Mutant] = [
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
]
