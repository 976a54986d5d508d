/*
 * driver.c -- plain C driver of every model's create / learn / predict / copy / free path,
 * for valgrind memcheck (tests/c/run_valgrind.sh) without Python in the process.
 *
 * Models: dynamic trees (constant, linear and class leaves, with and without an active
 * pool), SGT (squared, logistic, softmax committee, multi-instance bags, custom gradients,
 * nominal features), ABACOC (base, base_adj, auto, auto_adj with a budget, kd-tree search).
 * A "copy" rebuilds a second model from the first one's exported state, the same way the
 * Python wrappers unpickle, and checks that both then predict the same. An allocation
 * failure sweep (alloc_fail_after) runs each SGT/ABACOC path with every allocation failing
 * once, so valgrind also checks the error paths for leaks and invalid accesses.
 * Exit status: 0 if every check passed, 1 otherwise (valgrind adds its own error code).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/common.h"
#include "dynatree/dynatree.h"
#include "sgt/sgt.h"
#include "abacoc/abacoc.h"

#define D 3
#define N 400

static int failures = 0;

#define CHECK(cond, what)                                                          \
    do {                                                                           \
        if (!(cond)) {                                                             \
            fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, what);         \
            failures++;                                                            \
        }                                                                          \
    } while (0)

static double X[N * D], Y[N], YC[N];
static int64_t KS[N];

static void make_data(void)
{
    rng_state r;
    int i, j;
    rng_seed(&r, 12345);
    for (i = 0; i < N; i++) {
        for (j = 0; j < D; j++) X[i * D + j] = 2.0 * rng_uniform(&r) - 1.0;
        X[i * D + 2] = (double)rng_below(&r, 3);  /* nominal column for SGT */
        Y[i] = 2.0 * X[i * D] - X[i * D + 1] + 0.1 * rng_uniform(&r);
        KS[i] = (X[i * D] > 0.0) + (X[i * D + 1] > 0.5);
        YC[i] = (double)KS[i];
    }
}

/* ---- dynamic trees --------------------------------------------------------------------- */

static dt_model *dt_make(int kind, int p, int n_classes, int minp, int active)
{
    dt_model *m = NULL;
    int32_t rc = dt_model_new(kind, p, 0, 1, n_classes, 0.0, 0.0, D, minp, minp, 10, 0.95, 2.0,
                              7, &m);
    CHECK((rc == ST_OK) == (m != NULL), "dt_model_new: handle iff ST_OK");
    if (m != NULL && active > 0)
        CHECK(dt_model_set_retirement(m, active, DT_RETIRE_RANDOM, 1.0, 0, NULL) == ST_OK,
              "dt retirement");
    return m;
}

static dt_model *dt_copy(dt_model *src, int kind, int p, int n_classes, int minp, int active)
{
    dt_model *dst = dt_make(kind, p, n_classes, minp, active);
    int32_t i, nn, np, total = 0, npts = 0, sw = src->cfg.sw;
    int32_t *sizes = calloc((size_t)src->par.n_particles, sizeof(int32_t));
    int32_t *ints, *pts;
    double *dbls;
    int64_t off_n = 0, off_p = 0;
    for (i = 0; i < src->par.n_particles; i++) {
        dt_model_particle_size(src, i, &nn, &np);
        sizes[i] = nn;
        total += nn;
        npts += np;
    }
    ints = calloc((size_t)total * 3 + 1, sizeof(int32_t));
    dbls = calloc((size_t)total * (size_t)(sw + 1) + 1, sizeof(double));
    pts = calloc((size_t)npts + 1, sizeof(int32_t));
    for (i = 0; i < src->par.n_particles; i++) {
        int32_t a, used = 0;
        CHECK(dt_model_export_particle(src, i, ints + 3 * off_n, dbls + off_n * (sw + 1),
                                       pts + off_p) == ST_OK, "dt export");
        for (a = 0; a < sizes[i]; a++) used += ints[3 * (off_n + a) + 2];
        off_n += sizes[i];
        off_p += used;
    }
    CHECK(dt_model_import(dst, src->store.X, src->store.y, src->store.n, src->lml, sizes, ints, dbls, pts)
          == ST_OK, "dt import");
    *dt_model_rng(dst) = *dt_model_rng(src);
    dst->store.n_total = src->store.n_total;
    free(sizes);
    free(ints);
    free(dbls);
    free(pts);
    return dst;
}

/* the batch predictions give every row of 40 what the one-row calls give, bit for bit */
static void run_dt_batch(dt_model *m, int kind, int n_classes)
{
    double batch[5 * 40], probs[3 * 40], ent[40], one[5], pa[3], ea;
    int i, k, same = 1;
    if (kind == DT_CLASS) {
        CHECK(dt_model_classes(m, X + 120 * D, 40, probs, ent) == ST_OK, "dt classes");
        for (i = 0; i < 40; i++) {
            CHECK(dt_model_class(m, X + (120 + i) * D, pa, &ea) == ST_OK, "dt class");
            for (k = 0; k < n_classes; k++)
                same &= pa[k] == probs[i * n_classes + k];
            same &= ea == ent[i];
        }
    } else {
        CHECK(dt_model_summaries(m, X + 120 * D, 40, batch) == ST_OK, "dt summaries");
        for (i = 0; i < 40; i++) {
            CHECK(dt_model_regression(m, X + (120 + i) * D, one) == ST_OK, "dt regression");
            for (k = 0; k < 5; k++)
                same &= memcmp(&one[k], &batch[5 * i + k], sizeof(double)) == 0;
        }
    }
    CHECK(same, "dt batch predictions = one-row predictions");
}

static void run_dt(int kind, int p, int n_classes, int minp, int active)
{
    const double *ys = kind == DT_CLASS ? YC : Y;
    double lpred[40], out_a[5], out_b[5], pa[3], pb[3], ea, eb;
    dt_model *m = dt_make(kind, p, n_classes, minp, active), *c;
    int i;
    CHECK(m != NULL, "dt_model_new");
    if (m == NULL) return;
    for (i = 0; i < 120; i += 40)
        CHECK(dt_model_learn(m, X + i * D, ys + i, 40, lpred) == ST_OK, "dt learn");
    c = dt_copy(m, kind, p, n_classes, minp, active);
    for (i = 120; i < 160; i++) {
        if (kind == DT_CLASS) {
            CHECK(dt_model_class(m, X + i * D, pa, &ea) == ST_OK, "dt class");
            CHECK(dt_model_class(c, X + i * D, pb, &eb) == ST_OK, "dt class copy");
            CHECK(pa[0] == pb[0] && ea == eb, "dt copy predicts the same");
        } else {
            CHECK(dt_model_regression(m, X + i * D, out_a) == ST_OK, "dt regression");
            CHECK(dt_model_regression(c, X + i * D, out_b) == ST_OK, "dt regression copy");
            CHECK(out_a[0] == out_b[0], "dt copy predicts the same");
        }
        CHECK(dt_model_learn(m, X + i * D, ys + i, 1, lpred) == ST_OK, "dt learn more");
        CHECK(dt_model_learn(c, X + i * D, ys + i, 1, lpred) == ST_OK, "dt learn copy");
    }
    run_dt_batch(m, kind, n_classes);
    dt_model_free(m);
    dt_model_free(c);
}

/* ---- SGT -------------------------------------------------------------------------------- */

static sgt_params sgt_defaults(void)
{
    sgt_params p;
    p.delta = 0.3;
    p.lam = 0.1;
    p.gamma = 1.0;
    p.grace_period = 5;
    p.bins = 8;
    p.warmup = 20;
    p.max_depth = -1;
    p.warmup_trains = 1;
    p.one_sided = 0;
    p.warmup_newton = 1;
    p.per_leaf = 0;
    return p;
}

static int sgt_make(int32_t loss, int32_t n_trees, sgt_model **out)
{
    sgt_params p = sgt_defaults();
    int32_t kinds[D] = {0, 0, 3};
    double lo[D] = {0}, hi[D] = {0};
    uint8_t fixed[D] = {0};
    return sgt_model_new(&p, D, kinds, lo, hi, fixed, loss, n_trees, out);
}

/* rebuild b from a's state through the public restore functions (as fast/sgt unpickles) */
static int sgt_copy(const sgt_model *a, sgt_model *b)
{
    int64_t it, off = 0;
    int32_t c, i, j, a_feat;
    int rc;
    b->warm.warm_rows = a->warm.warm_rows;
    b->q.frozen = a->q.frozen;
    for (a_feat = 0; a_feat < D; a_feat++) {
        b->q.lo[a_feat] = a->q.lo[a_feat];
        b->q.hi[a_feat] = a->q.hi[a_feat];
        b->q.seen[a_feat] = a->q.seen[a_feat];
    }
    for (it = 0; it < a->warm.buf_items; it++) {
        rc = sgt_model_buffer_restore(b, a->warm.buf_x + off * D, a->warm.buf_len[it], a->warm.buf_target[it]);
        if (rc != ST_OK) return rc;
        off += a->warm.buf_len[it];
    }
    for (c = 0; c < a->n_trees; c++) {
        const sgt_tree *ta = &a->trees[c];
        sgt_tree *tb = &b->trees[c];
        uint8_t *leaf = malloc((size_t)ta->n_nodes);
        if (!leaf) return ST_ENOMEM;
        for (i = 0; i < ta->n_nodes; i++) leaf[i] = ta->nodes[i].feature < 0;
        rc = sgt_tree_restore(tb, &b->q, ta->n_nodes, leaf);
        free(leaf);
        if (rc != ST_OK) return rc;
        tb->n_splits = ta->n_splits;
        tb->n_updates = ta->n_updates;
        tb->depth = ta->depth;
        for (i = 0; i < ta->n_nodes; i++) {
            sgt_node *nb = &tb->nodes[i];
            const sgt_node *na = &ta->nodes[i];
            nb->feature = na->feature;
            nb->threshold = na->threshold;
            nb->first_child = na->first_child;
            nb->n_children = na->n_children;
            nb->depth = na->depth;
            nb->value = na->value;
            if (na->feature < 0) {
                memcpy(nb->cells, na->cells, (size_t)a->q.n_cells * sizeof(sgt_stats));
                for (j = 0; j < D; j++) nb->used[j] = na->used[j];
            }
        }
    }
    return ST_OK;
}

/* learn 200 items, copy, then both learn and predict the rest identically; returns a status */
static int sgt_path(int32_t loss, int32_t n_trees, int check_copy)
{
    sgt_model *m = NULL, *c = NULL;
    double ra[4], rb[4], g[4], h[4];
    const double *ys = loss == SGT_LOSS_SQUARED || loss == SGT_LOSS_CUSTOM ? Y : YC;
    int rc, i, t;
    double bin_target[N];
    for (i = 0; i < N; i++) bin_target[i] = loss == SGT_LOSS_LOGISTIC || loss == SGT_LOSS_BAG
                                            ? (double)(KS[i] > 0) : ys[i];
    rc = sgt_make(loss, n_trees, &m);
    if (rc != ST_OK) return rc;
    for (i = 0; i < 200 && rc == ST_OK; i++) {
        if (loss == SGT_LOSS_CUSTOM) {
            int32_t ended = 0;
            if (!m->q.frozen) {
                rc = sgt_model_warmup_push(m, X + i * D, 1, Y[i], &ended);
                if (rc == ST_OK && ended) {
                    int64_t it;
                    for (it = 0; it < m->warm.buf_items && rc == ST_OK; it++) {
                        rc = sgt_model_raws(m, m->warm.buf_x + it * D, ra);
                        g[0] = ra[0] - m->warm.buf_target[it];
                        h[0] = 1.0;
                        if (rc == ST_OK) rc = sgt_model_train_gh(m, m->warm.buf_x + it * D, g, h);
                    }
                    sgt_model_clear_buffer(m);
                }
            } else {
                rc = sgt_model_raws(m, X + i * D, ra);
                g[0] = ra[0] - Y[i];
                h[0] = 1.0;
                if (rc == ST_OK) rc = sgt_model_train_gh(m, X + i * D, g, h);
            }
        } else if (loss == SGT_LOSS_BAG) {
            int32_t size = 1 + i % 3;
            if (i + size > N) size = 1;
            rc = sgt_model_learn(m, X + i * D, size, bin_target[i]);
        } else {
            rc = sgt_model_learn(m, X + i * D, 1, bin_target[i]);
        }
    }
    if (rc == ST_OK) rc = sgt_make(loss, n_trees, &c);
    if (rc == ST_OK) rc = sgt_copy(m, c);
    for (i = 200; i < 260 && rc == ST_OK; i++) {
        rc = sgt_model_raws(m, X + i * D, ra);
        if (rc == ST_OK) rc = sgt_model_raws(c, X + i * D, rb);
        if (rc == ST_OK && check_copy)
            for (t = 0; t < n_trees; t++) CHECK(ra[t] == rb[t], "sgt copy predicts the same");
        if (loss == SGT_LOSS_CUSTOM) continue;
        if (rc == ST_OK) rc = sgt_model_learn(m, X + i * D, 1, bin_target[i]);
        if (rc == ST_OK) rc = sgt_model_learn(c, X + i * D, 1, bin_target[i]);
    }
    if (rc == ST_OK) {
        double *out = malloc(sizeof(double) * 40 * (size_t)n_trees);
        if (!out) rc = ST_ENOMEM;
        if (rc == ST_OK) rc = sgt_model_raws_many(m, X, 40, out);
        if (rc == ST_OK && loss != SGT_LOSS_CUSTOM && loss != SGT_LOSS_BAG)
            rc = sgt_model_learn_many(c, X + 260 * D, 40, bin_target + 260);
        free(out);
    }
    sgt_model_free(m);
    sgt_model_free(c);
    return rc;
}

/* ---- ABACOC ----------------------------------------------------------------------------- */

static ab_model *ab_make(int32_t variant, int64_t budget, int32_t search)
{
    ab_model *m = NULL;
    int32_t rc = ab_model_new(variant, 0, AB_METRIC_EUCLIDEAN, 2.0, 2.0, 1.0, budget, search, 8,
                              4, 99, &m);
    CHECK((rc == ST_OK) == (m != NULL), "ab_model_new: handle iff ST_OK");
    return m;
}

static int ab_copy(ab_model *a, ab_model **out, int32_t variant, int64_t budget, int32_t search)
{
    ab_model *b = ab_make(variant, budget, search);
    int64_t s, k, n = a->balls.n_balls, Df = a->n_features;
    int rc = ST_OK;
    *out = b;
    if (b == NULL) return ST_ENOMEM;
    if (Df) rc = ab_model_set_dim(b, Df);
    while (rc == ST_OK && b->n_classes < a->n_classes) rc = ab_model_add_class(b);
    if (rc == ST_OK) rc = ab_model_reserve(b, n);
    if (rc != ST_OK) return rc;
    for (s = 0; s < n; s++) {
        b->balls.id[s] = a->balls.id[s];
        memcpy(b->balls.center + s * Df, a->balls.center + s * Df, sizeof(double) * (size_t)Df);
        for (k = 0; k < a->n_classes; k++)
            b->balls.counts[s * b->class_cap + k] = a->balls.counts[s * a->class_cap + k];
        b->balls.u[s] = a->balls.u[s];
        b->balls.R[s] = a->balls.R[s];
        b->balls.eps[s] = a->balls.eps[s];
        b->balls.m[s] = a->balls.m[s];
    }
    b->balls.n_balls = n;
    b->n_seen = a->n_seen;
    b->balls.next_id = a->balls.next_id;
    b->vs.phase = a->vs.phase;
    b->vs.phase_steps = a->vs.phase_steps;
    b->vs.phase_dim = a->vs.phase_dim;
    b->vs.radius = a->vs.radius;
    b->vs.init_done = a->vs.init_done;
    b->vs.first_label = a->vs.first_label;
    b->rng = a->rng;
    return ab_model_restored(b);
}

static int ab_path(int32_t variant, int64_t budget, int32_t search, int check_copy)
{
    ab_model *m = ab_make(variant, budget, search), *c = NULL;
    int64_t pa[60], pb[60];
    double proba[60 * 3];
    int rc = m == NULL ? ST_ENOMEM : ab_model_set_dim(m, D);
    int i;
    while (rc == ST_OK && m->n_classes < 3) rc = ab_model_add_class(m);
    if (rc == ST_OK) rc = ab_model_partial_fit(m, X, KS, 150);
    for (i = 150; i < 200 && rc == ST_OK; i++) rc = ab_model_learn_one(m, X + i * D, KS[i]);
    if (rc == ST_OK) rc = ab_copy(m, &c, variant, budget, search);
    if (rc == ST_OK) rc = ab_model_predict(m, X + 200 * D, 60, pa);
    if (rc == ST_OK) rc = ab_model_predict(c, X + 200 * D, 60, pb);
    if (rc == ST_OK && check_copy)
        for (i = 0; i < 60; i++) CHECK(pa[i] == pb[i], "ab copy predicts the same");
    if (rc == ST_OK) rc = ab_model_predict_proba(m, X + 200 * D, 60, proba);
    if (rc == ST_OK) rc = ab_model_partial_fit(m, X + 260 * D, KS + 260, 140);
    if (rc == ST_OK) rc = ab_model_partial_fit(c, X + 260 * D, KS + 260, 140);
    if (rc == ST_OK && check_copy)
        CHECK(m->balls.n_balls == c->balls.n_balls && m->n_seen == c->n_seen,
              "ab copy learns the same");
    ab_model_free(m);
    ab_model_free(c);
    return rc;
}

/* every allocation of a path fails once in turn: ST_ENOMEM or success, never a crash/leak */
static void sweep(const char *name, int (*path)(int32_t, int64_t, int32_t, int),
                  int32_t a, int64_t b, int32_t c)
{
    int64_t n, before;
    int rc, injected = 0;
    for (n = 0; n < 100000; n++) {
        before = alloc_failures();
        alloc_fail_after(n);
        rc = path(a, b, c, 0);
        alloc_fail_after(-1);
        if (alloc_failures() == before) {
            CHECK(rc == ST_OK, name);
            break;
        }
        injected++;
        CHECK(rc == ST_OK || rc == ST_ENOMEM, name);
    }
    printf("  %-28s %d allocation failures injected\n", name, injected);
}

static int sgt_path_sweep(int32_t loss, int64_t n_trees, int32_t unused, int check)
{
    (void)unused;
    return sgt_path(loss, (int32_t)n_trees, check);
}

static int ab_path_sweep(int32_t variant, int64_t budget, int32_t search, int check)
{
    return ab_path(variant, budget, search, check);
}

int main(void)
{
    make_data();
    printf("dynamic trees\n");
    run_dt(DT_CONSTANT, 0, 0, 4, 0);
    run_dt(DT_LINEAR, 3, 0, 10, 0);
    run_dt(DT_CLASS, 0, 3, 1, 0);
    run_dt(DT_CONSTANT, 0, 0, 4, 60);
    printf("sgt\n");
    CHECK(sgt_path(SGT_LOSS_SQUARED, 1, 1) == ST_OK, "sgt squared");
    CHECK(sgt_path(SGT_LOSS_LOGISTIC, 1, 1) == ST_OK, "sgt logistic");
    CHECK(sgt_path(SGT_LOSS_SOFTMAX, 2, 1) == ST_OK, "sgt softmax");
    CHECK(sgt_path(SGT_LOSS_BAG, 1, 1) == ST_OK, "sgt bags");
    CHECK(sgt_path(SGT_LOSS_CUSTOM, 1, 1) == ST_OK, "sgt custom");
    printf("abacoc\n");
    CHECK(ab_path(AB_BASE, 0, 1, 1) == ST_OK, "ab base");
    CHECK(ab_path(AB_BASE_ADJ, 0, 2, 1) == ST_OK, "ab base_adj kdtree");
    CHECK(ab_path(AB_AUTO, 0, 0, 1) == ST_OK, "ab auto");
    CHECK(ab_path(AB_AUTO_ADJ, 20, 2, 1) == ST_OK, "ab auto_adj budget kdtree");
    printf("allocation-failure sweeps\n");
    sweep("sgt squared", sgt_path_sweep, SGT_LOSS_SQUARED, 1, 0);
    sweep("sgt softmax", sgt_path_sweep, SGT_LOSS_SOFTMAX, 2, 0);
    sweep("sgt bags", sgt_path_sweep, SGT_LOSS_BAG, 1, 0);
    sweep("sgt custom", sgt_path_sweep, SGT_LOSS_CUSTOM, 1, 0);
    sweep("ab auto_adj budget kdtree", ab_path_sweep, AB_AUTO_ADJ, 20, 2);
    sweep("ab base scan", ab_path_sweep, AB_BASE, 0, 1);
    printf(failures ? "driver: %d FAILURES\n" : "driver: all checks passed\n", failures);
    return failures ? 1 : 0;
}
