/*
 * abacoc/model.c -- the ABACOC handle: allocation, capacity, checked entry points and the
 * loops that run in C (partial_fit, predict, predict_proba, the sub-sampled
 * prequential protocol of [DOC15, Alg. 5]). Mirrors reference/abacoc/model.py and the
 * facade hooks of reference/abacoc/inputs.py; the mathematics is in abacoc/variants.c.
 * Every entry point checks its arguments and secures memory for one more ball before
 * any state changes, and returns a status code (ST_*); nothing here aborts.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "abacoc/abacoc.h"

/* the constructor (convention of common/common.h): ST_EINVAL for invalid parameters,
 * ST_ENOMEM when the allocation fails; *out is NULL unless ST_OK */
int32_t ab_model_new(int32_t variant, int32_t randomized, int32_t metric, double p, double d,
                     double C, int64_t budget, int32_t search, int64_t search_threshold,
                     int64_t leaf_size, uint64_t seed, ab_model **out)
{
    ab_model *m;
    *out = NULL;
    if (variant < AB_BASE || variant > AB_AUTO_ADJ || leaf_size < 2 || search_threshold < 1
        || budget < 0 || !(d > 0.0) || !(C > 0.0) || !(p >= 1.0))
        return ST_EINVAL;
    m = (ab_model *)alloc_calloc(1, sizeof(ab_model));
    if (m == NULL) return ST_ENOMEM;
    m->par.variant = variant;
    m->par.randomized = randomized ? 1 : 0;
    m->par.metric = metric;
    m->par.p = p;
    m->par.d = d;
    m->par.C = C;
    m->par.budget = budget;
    m->par.search = search;
    m->par.search_threshold = search_threshold;
    m->par.leaf_size = leaf_size;
    m->n_classes = m->par.randomized ? 2 : 0;
    m->class_cap = 4;
    m->vs.phase = 1;
    m->vs.phase_dim = 1.0;
    m->vs.radius = 1.0;
    m->vs.first_label = -1;
    rng_seed(&m->rng, seed);
    *out = m;
    return ST_OK;
}

void ab_model_free(ab_model *m)
{
    if (m == NULL) return;
    alloc_free(m->balls.id);
    alloc_free(m->balls.center);
    alloc_free(m->balls.counts);
    alloc_free(m->balls.u);
    alloc_free(m->balls.R);
    alloc_free(m->balls.eps);
    alloc_free(m->balls.m);
    ab_tree_free(m->tree);
    alloc_free(m);
}

static int grow(void **ptr, size_t elem, int64_t count)
{
    void *q = alloc_realloc(*ptr, elem * (size_t)(count > 0 ? count : 1));
    if (q == NULL) return ST_ENOMEM;
    *ptr = q;
    return ST_OK;
}

int ab_model_reserve(ab_model *m, int64_t n_balls)
{
    int64_t cap;
    if (m == NULL || n_balls < 0) return ST_EINVAL;
    if (n_balls <= m->balls.ball_cap) return ST_OK;
    cap = m->balls.ball_cap * 2;
    if (cap < n_balls) cap = n_balls;
    if (cap < 16) cap = 16;
    if (grow((void **)&m->balls.id, sizeof(int64_t), cap)
        || grow((void **)&m->balls.center, sizeof(double) * (size_t)(m->n_features > 0 ? m->n_features : 1), cap)
        || grow((void **)&m->balls.counts, sizeof(int64_t) * (size_t)m->class_cap, cap)
        || grow((void **)&m->balls.u, sizeof(int64_t), cap)
        || grow((void **)&m->balls.R, sizeof(double), cap)
        || grow((void **)&m->balls.eps, sizeof(double), cap)
        || grow((void **)&m->balls.m, sizeof(int64_t), cap))
        return ST_ENOMEM;
    m->balls.ball_cap = cap;
    return ST_OK;
}

int ab_model_set_dim(ab_model *m, int64_t n_features)
{
    if (m == NULL || n_features < 1) return ST_EINVAL;
    if (m->n_features == n_features) return ST_OK;
    if (m->n_features != 0) return ST_EDIM;
    if (m->balls.ball_cap > 0 && grow((void **)&m->balls.center, sizeof(double) * (size_t)n_features,
                                m->balls.ball_cap))
        return ST_ENOMEM;
    m->n_features = n_features;
    return ST_OK;
}

int ab_model_add_class(ab_model *m)
{
    int64_t cap, s, k;
    int64_t *counts;
    if (m == NULL) return ST_EINVAL;
    if (m->n_classes < m->class_cap) {
        for (s = 0; s < m->balls.ball_cap; s++) m->balls.counts[s * m->class_cap + m->n_classes] = 0;
        m->n_classes += 1;
        return ST_OK;
    }
    cap = 2 * m->class_cap;
    counts = (int64_t *)alloc_calloc((size_t)(m->balls.ball_cap > 0 ? m->balls.ball_cap : 1) * (size_t)cap,
                               sizeof(int64_t));
    if (counts == NULL) return ST_ENOMEM;
    for (s = 0; s < m->balls.n_balls; s++)
        for (k = 0; k < m->n_classes; k++) counts[s * cap + k] = m->balls.counts[s * m->class_cap + k];
    alloc_free(m->balls.counts);
    m->balls.counts = counts;
    m->class_cap = cap;
    m->n_classes += 1;
    return ST_OK;
}

/* Undo ab_model_set_dim / ab_model_add_class made by a facade call that then failed
 * (MemoryError) before learning any row: the width goes back to 0 only while no ball
 * exists, and the classes added by the call (they hold no counts yet) are dropped. */
int ab_model_rollback(ab_model *m, int64_t n_features, int64_t n_classes)
{
    if (m == NULL || n_features < 0 || n_classes < 0) return ST_EINVAL;
    if (n_features == 0 && m->balls.n_balls == 0) m->n_features = 0;
    if (n_classes < m->n_classes) m->n_classes = n_classes;
    return ST_OK;
}

int ab_model_restored(ab_model *m)
{
    if (m == NULL) return ST_EINVAL;
    ab_index_cleared(m);
    if (m->n_features > 0) ab_index_maintain(m);
    return ST_OK;
}

static int check_rows(const ab_model *m, const double *X, const int64_t *ks, int64_t n)
{
    int64_t i, j, D = m->n_features;
    if (D < 1) return ST_ESTATE;
    for (i = 0; i < n; i++) {
        if (ks != NULL && (ks[i] < 0 || ks[i] >= m->n_classes)) return ST_ERANGE;
        for (j = 0; j < D; j++)
            if (!isfinite(X[i * D + j])) return ST_EINVAL;
    }
    return ST_OK;
}

int ab_model_learn_one(ab_model *m, const double *x, int64_t k)
{
    return ab_model_partial_fit(m, x, &k, 1);
}

int ab_model_learn_row(ab_model *m, const double *x, int64_t n_values, int64_t k)
{
    if (m == NULL || x == NULL) return ST_EINVAL;
    if (n_values != m->n_features) return ST_EDIM;
    return ab_model_partial_fit(m, x, &k, 1);
}

int ab_model_predict_row(ab_model *m, const double *x, int64_t n_values, int64_t *out)
{
    if (m == NULL || x == NULL) return ST_EINVAL;
    if (n_values != m->n_features) return ST_EDIM;
    return ab_model_predict(m, x, 1, out);
}

int ab_model_proba_row(ab_model *m, const double *x, int64_t n_values, double *out)
{
    if (m == NULL || x == NULL) return ST_EINVAL;
    if (n_values != m->n_features) return ST_EDIM;
    return ab_model_predict_proba(m, x, 1, out);
}

int ab_model_partial_fit(ab_model *m, const double *X, const int64_t *ks, int64_t n)
{
    int64_t i, D;
    int rc;
    if (m == NULL || X == NULL || ks == NULL || n < 0) return ST_EINVAL;
    rc = check_rows(m, X, ks, n);
    if (rc != ST_OK) return rc;
    D = m->n_features;
    for (i = 0; i < n; i++) {
        rc = ab_model_reserve(m, m->balls.n_balls + 1);
        if (rc != ST_OK) return rc;
        ab_learn(m, X + i * D, ks[i], NULL);
    }
    return ST_OK;
}

int ab_model_predict(ab_model *m, const double *X, int64_t n, int64_t *out)
{
    int64_t i;
    if (m == NULL || X == NULL || out == NULL || n < 0) return ST_EINVAL;
    if (m->n_features > 0 && check_rows(m, X, NULL, n) != ST_OK) return ST_EINVAL;
    for (i = 0; i < n; i++) out[i] = ab_predict_index(m, X + i * m->n_features, NULL);
    return ST_OK;
}

int ab_model_predict_proba(ab_model *m, const double *X, int64_t n, double *out)
{
    int64_t i;
    if (m == NULL || X == NULL || out == NULL || n < 0) return ST_EINVAL;
    if (m->n_features > 0 && check_rows(m, X, NULL, n) != ST_OK) return ST_EINVAL;
    for (i = 0; i < n; i++)
        ab_class_distribution(m, X + i * m->n_features, out + i * m->n_classes);
    return ST_OK;
}

/* a read-only search's scratch for m (its tree's stack size), or ST_ENOMEM */
static int search_new(const ab_model *m, ab_search *s)
{
    int64_t cap = m->tree != NULL ? m->tree->buf.stack_cap : 0;
    *s = (ab_search){NULL, NULL, 0, 0};
    if (cap == 0) return ST_OK;
    s->stack = alloc_malloc(sizeof(int64_t) * (size_t)cap);
    s->bounds = alloc_malloc(sizeof(double) * (size_t)cap);
    if (s->stack != NULL && s->bounds != NULL) return ST_OK;
    alloc_free(s->stack);
    alloc_free(s->bounds);
    return ST_ENOMEM;
}

int ab_model_predict_proba_rows(const ab_model *m, const double *X, int64_t n, double *out,
                                int64_t *work)
{
    int64_t i;
    ab_search s;
    if (m == NULL || X == NULL || out == NULL || work == NULL || n < 0) return ST_EINVAL;
    if (m->n_features > 0 && check_rows(m, X, NULL, n) != ST_OK) return ST_EINVAL;
    if (search_new(m, &s) != ST_OK) return ST_ENOMEM;
    for (i = 0; i < n; i++)
        ab_class_distribution_with(m, &s, X + i * m->n_features, out + i * m->n_classes);
    work[0] += s.queries;
    work[1] += s.visited;
    alloc_free(s.stack);
    alloc_free(s.bounds);
    return ST_OK;
}

int ab_model_predict_rows(const ab_model *m, const double *X, int64_t n, int64_t *out,
                          int64_t *work)
{
    int64_t i;
    ab_search s;
    if (m == NULL || X == NULL || out == NULL || work == NULL || n < 0) return ST_EINVAL;
    if (m->par.randomized) return ST_ESTATE;
    if (m->n_features > 0 && check_rows(m, X, NULL, n) != ST_OK) return ST_EINVAL;
    if (search_new(m, &s) != ST_OK) return ST_ENOMEM;
    for (i = 0; i < n; i++) out[i] = ab_predict_index_with(m, &s, X + i * m->n_features);
    work[0] += s.queries;
    work[1] += s.visited;
    alloc_free(s.stack);
    alloc_free(s.bounds);
    return ST_OK;
}

int ab_model_add_search_work(ab_model *m, const int64_t *work)
{
    if (m == NULL || work == NULL) return ST_EINVAL;
    if (m->tree != NULL) {
        m->tree->queries += work[0];
        m->tree->visited += work[1];
    }
    return ST_OK;
}

int ab_model_nearest(ab_model *m, const double *X, int64_t n, int32_t use_tree, int64_t *out)
{
    /* Testing aid: nearest slots by the scan, or by a tree freshly built over the table. */
    int64_t i;
    double raw;
    ab_tree *t = NULL;
    if (m == NULL || X == NULL || out == NULL || n < 0) return ST_EINVAL;
    if (m->n_features < 1) return ST_ESTATE;
    if (use_tree) {
        if (ab_tree_new(m->n_features, m->par.leaf_size, m->par.metric, m->par.p, &t) != ST_OK
            || ab_tree_build(t, m) != ST_OK) {
            ab_tree_free(t);
            return ST_ENOMEM;
        }
    }
    for (i = 0; i < n; i++) {
        if (t != NULL) out[i] = ab_tree_nearest(t, m, X + i * m->n_features, &raw);
        else out[i] = ab_scan_nearest(m, X + i * m->n_features, &raw);
    }
    ab_tree_free(t);
    return ST_OK;
}

int ab_model_prequential(ab_model *m, const double *X, const int64_t *labels, int64_t n,
                         double rate, rng_state *protocol_rng, int64_t *remap,
                         int64_t *pred_out, int64_t *stats_out)
{
    /* [DOC15, Alg. 5] predict, score, then learn with probability rate.
     * labels[t] indexes remap, which maps a label to its model class index (-1 until the
     * label is first learned; then it is registered as the next class).
     * stats_out: [0] correct predictions, [1] examples learned, [2] largest |S| seen.
     * Random draws: one rng_uniform(protocol_rng) per example iff rate < 1. */
    int64_t t, k, correct = 0, learned = 0, max_balls;
    int64_t D;
    int rc, learn;
    const double *x;
    ab_found found;
    if (m == NULL || X == NULL || labels == NULL || remap == NULL || pred_out == NULL
        || stats_out == NULL || protocol_rng == NULL || n < 0 || !(rate > 0.0 && rate <= 1.0))
        return ST_EINVAL;
    rc = check_rows(m, X, NULL, n);
    if (rc != ST_OK) return rc;
    D = m->n_features;
    max_balls = m->balls.n_balls;
    for (t = 0; t < n; t++) {
        x = X + t * D;
        found.slot = ab_nearest_ball(m, x, &found.delta); /* one search: predict and learn */
        pred_out[t] = ab_predict_index(m, x, &found);
        k = remap[labels[t]];
        if (pred_out[t] >= 0 && pred_out[t] == k) correct += 1;
        learn = rate >= 1.0 || rng_uniform(protocol_rng) < rate;
        if (!learn) continue;
        if (k < 0) {
            rc = ab_model_add_class(m);
            if (rc != ST_OK) return rc;
            k = m->n_classes - 1;
            remap[labels[t]] = k;
        }
        rc = ab_model_reserve(m, m->balls.n_balls + 1);
        if (rc != ST_OK) return rc;
        ab_learn(m, x, k, &found);
        learned += 1;
        if (m->balls.n_balls > max_balls) max_balls = m->balls.n_balls;
    }
    stats_out[0] = correct;
    stats_out[1] = learned;
    stats_out[2] = max_balls;
    return ST_OK;
}
