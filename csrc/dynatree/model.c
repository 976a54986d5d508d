/*
 * dynatree/model.c -- the dynamic-tree model: store, particle cloud and the streaming loop;
 * mirrors the ReferenceEngine of reference/dynatree/model.py.
 *
 * dt_model_learn runs the whole partial_fit loop: append the row to the store; the first
 * nstart rows go into the root leaf of every particle (no draws, lpred 0); later rows
 * run one PL step (dt_pl_step). lml accumulates lpred. Capacities (store rows, node
 * arenas, the point-set pool, scratch) are reserved before a row changes any state; the
 * rest of the row (retirement, resampling, propagation, which may grow point lists) is
 * one transaction of the undo log (dynatree/txn.c). Either way an allocation failure leaves
 * the model exactly as it was before that row and returns ST_ENOMEM; rows before it in
 * the same call stay learned.
 * Export/import walk each tree in preorder: per node (depth, var, n) as ints and
 * (value, stats block) as doubles, points of the leaves concatenated.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "dynatree/dynatree.h"

static void free_scratch(dt_model *m)
{
    alloc_free(m->pf.w);
    alloc_free(m->pf.chosen);
    alloc_free(m->pf.flags);
    alloc_free(m->pf.leafc);
    alloc_free(m->buf.ibuf);
    alloc_free(m->buf.ibuf2);
    alloc_free(m->buf.stack);
    alloc_free(m->buf.vbuf);
    alloc_free(m->buf.sbuf);
    alloc_free(m->buf.work);
    alloc_free(m->buf.lg_half);
    alloc_free(m->buf.t05);
    alloc_free(m->buf.t_lbeta);
    alloc_free(m->buf.lg_frac);
    alloc_free(m->ret.scores);
    alloc_free(m->ret.rect);
    alloc_free(m->ret.abuf);
    alloc_free(m->ret.areg);
    alloc_free(m->pred.tab);
    alloc_free(m->pred.loc);
    dt_forest_free(&m->pred.f);
    alloc_free(m->alcc.preps);
    alloc_free(m->alcc.regs);
    alloc_free(m->alcc.sets);
    alloc_free(m->alcc.vals);
    alloc_free(m->alcc.box);
    alloc_free(m->alcc.keys);
    alloc_free(m->alcc.off);
    dt_forest_free(&m->alcc.f);
    dt_threads_free(m);
}

void dt_model_free(dt_model *m)
{
    int32_t i;
    if (m == NULL) return;
    if (m->pool.sets != NULL)
        for (i = 0; i < m->pool.cap_sets; i++) { /* slots above n_sets may keep buffers */
            alloc_free(m->pool.sets[i].pts);
            alloc_free(m->pool.sets[i].alc);
        }
    alloc_free(m->pool.sets);
    alloc_free(m->pool.set_stats);
    alloc_free(m->pool.set_kth);
    alloc_free(m->pool.refs);
    alloc_free(m->pool.grow_memo);
    if (m->pf.parts != NULL)
        for (i = 0; i < m->par.n_particles; i++) dt_particle_free(&m->pf.parts[i]);
    alloc_free(m->pf.parts);
    alloc_free(m->pf.tmp);
    alloc_free(m->txn.txn_parts);
    if (m->txn.spare != NULL)
        for (i = 0; i < m->txn.n_spare; i++) alloc_free(m->txn.spare[i]);
    alloc_free(m->txn.spare);
    alloc_free(m->txn.taken);
    alloc_free(m->txn.log);
    alloc_free(m->txn.freed);
    alloc_free(m->store.X);
    alloc_free(m->store.y);
    free_scratch(m);
    alloc_free(m);
}

/* lgamma(k/2) and lgamma(k + 1/C) with the same special_lgamma and the same arguments as
 * the direct calls, so that cached and computed values are the same doubles; and room for
 * the Student-t quantiles of dt_regression_summaries and the log-beta terms of the
 * particle weights, computed on first use */
static int fill_lgamma_cache(dt_model *m, int64_t len)
{
    double *h = alloc_realloc(m->buf.lg_half, sizeof(double) * (size_t)len), *f, *q;
    double inv_c = m->cfg.n_classes > 0 ? 1.0 / (double)m->cfg.n_classes : 1.0;
    int64_t k, old = m->cfg.lg_len;
    if (!h) return ST_ENOMEM;
    m->buf.lg_half = h;
    f = alloc_realloc(m->buf.lg_frac, sizeof(double) * (size_t)(len / 2));
    if (!f) return ST_ENOMEM;
    m->buf.lg_frac = f;
    q = alloc_realloc(m->buf.t05, sizeof(double) * (size_t)len);
    if (!q) return ST_ENOMEM;
    m->buf.t05 = q;
    for (k = old < 0 ? 0 : old; k < len; k++) q[k] = NAN;
    q = alloc_realloc(m->buf.t_lbeta, sizeof(double) * (size_t)len);
    if (!q) return ST_ENOMEM;
    m->buf.t_lbeta = q;
    for (k = old < 0 ? 0 : old; k < len; k++) q[k] = NAN;
    if (old < 1) h[0] = NAN;
    for (k = old < 1 ? 1 : old; k < len; k++) h[k] = special_lgamma((double)k / 2.0);
    for (k = old / 2; k < len / 2; k++) f[k] = special_lgamma((double)k + inv_c);
    m->cfg.lg_half = h;
    m->cfg.lg_frac = f;
    m->cfg.lg_len = len;
    return ST_OK;
}

static int reserve_store(dt_model *m, int64_t need)
{
    int64_t cap = m->store.cap;
    double *nx, *ny, *nv;
    int32_t *b1, *b2;
    if (need <= cap) return ST_OK;
    while (cap < need) cap = cap < 16 ? 16 : 2 * cap;
    nx = alloc_realloc(m->store.X, sizeof(double) * (size_t)(cap * m->par.d));
    if (!nx) return ST_ENOMEM;
    m->store.X = nx;
    ny = alloc_realloc(m->store.y, sizeof(double) * (size_t)cap);
    if (!ny) return ST_ENOMEM;
    m->store.y = ny;
    b1 = alloc_realloc(m->buf.ibuf, sizeof(int32_t) * (size_t)cap);
    if (!b1) return ST_ENOMEM;
    m->buf.ibuf = b1;
    b2 = alloc_realloc(m->buf.ibuf2, sizeof(int32_t) * 3 * (size_t)cap);
    if (!b2) return ST_ENOMEM;
    m->buf.ibuf2 = b2;
    nv = alloc_realloc(m->buf.vbuf, sizeof(double) * (size_t)(cap + 2 * m->par.minp));
    if (!nv) return ST_ENOMEM;
    m->buf.vbuf = nv;
    nv = alloc_realloc(m->ret.scores, sizeof(double) * (size_t)cap);
    if (!nv) return ST_ENOMEM;
    m->ret.scores = nv;
    if (fill_lgamma_cache(m, 2 * cap + 16) != ST_OK) return ST_ENOMEM;
    m->store.cap = cap;
    return ST_OK;
}

static int reserve_nodes(dt_model *m, int32_t cap)
{
    int32_t i, *ns;
    if (cap <= m->pf.cap_nodes) return ST_OK;
    for (i = 0; i < m->par.n_particles; i++)
        if (dt_particle_reserve_nodes(&m->pf.parts[i], cap) != ST_OK) return ST_ENOMEM;
    for (i = 0; i < m->txn.n_spare; i++) {
        dt_node *nn = alloc_realloc(m->txn.spare[i], sizeof(dt_node) * (size_t)cap);
        if (!nn) return ST_ENOMEM;
        m->txn.spare[i] = nn;
    }
    ns = alloc_realloc(m->buf.stack, sizeof(int32_t) * 2 * (size_t)cap);
    if (!ns) return ST_ENOMEM;
    m->buf.stack = ns;
    m->pf.cap_nodes = cap;
    return ST_OK;
}

/* every particle must have room for the two children of a grow */
static int reserve_grow(dt_model *m)
{
    int32_t i, need = 0;
    dt_particle *t;
    for (i = 0; i < m->par.n_particles; i++) {
        t = &m->pf.parts[i];
        if (t->n_free < 2 && t->n_nodes + 2 > need) need = t->n_nodes + 2;
    }
    if (need <= m->pf.cap_nodes) return ST_OK;
    return reserve_nodes(m, need < 2 * m->pf.cap_nodes ? 2 * m->pf.cap_nodes : need);
}

static void reset_particle(dt_model *m, dt_particle *t)
{
    int32_t root;
    t->n_nodes = 0;
    t->free_head = -1;
    t->n_free = 0;
    root = dt_node_alloc(m, t);
    t->root = root;
    t->nodes[root].set = dt_set_new(m, NULL, 0);
    dt_stats_clear(dt_leaf_stats(m, t, root), &m->cfg);
    dt_refresh(dt_leaf_stats(m, t, root), &m->cfg);
}

/* the per-particle and scratch buffers of a new model (sizes from its parameters) */
static int alloc_buffers(dt_model *m, int p)
{
    size_t n = (size_t)m->par.n_particles, d = (size_t)m->par.d, sw = (size_t)m->cfg.sw;
    m->pf.parts = alloc_calloc(n, sizeof(dt_particle));
    m->pf.tmp = alloc_calloc(n, sizeof(dt_particle));
    m->txn.txn_parts = alloc_calloc(n, sizeof(dt_particle));
    m->txn.spare = alloc_calloc(n, sizeof(dt_node *));
    m->txn.taken = alloc_calloc(n, sizeof(dt_node *));
    m->pf.w = alloc_malloc(sizeof(double) * 4 * n);
    m->pf.chosen = alloc_malloc(sizeof(int32_t) * n);
    m->pf.flags = alloc_malloc(sizeof(int32_t) * 2 * n);
    m->pf.leafc = alloc_malloc(sizeof(int32_t) * 2 * n);
    m->buf.stack = alloc_malloc(sizeof(int32_t) * 2 * (size_t)m->pf.cap_nodes);
    m->buf.sbuf = alloc_malloc(sizeof(double) * 3 * sw);
    m->buf.work = alloc_malloc(sizeof(double) * (size_t)(2 * p * p + 2 * p + 8));
    m->buf.vbuf = alloc_malloc(sizeof(double) * (size_t)(2 * m->par.minp + 1));
    m->ret.abuf = alloc_malloc(sizeof(double) * 14 * (d + 2));
    m->ret.areg = alloc_malloc(sizeof(int32_t) * (d + 2));
    if (!m->pf.parts || !m->pf.tmp || !m->txn.txn_parts || !m->txn.spare || !m->txn.taken ||
        !m->pf.w || !m->pf.chosen || !m->pf.flags || !m->pf.leafc || !m->buf.stack ||
        !m->buf.sbuf || !m->buf.work || !m->buf.vbuf || !m->ret.abuf || !m->ret.areg)
        return ST_ENOMEM;
    return ST_OK;
}

/* the constructor (convention of common/common.h): ST_EINVAL for invalid sizes, ST_ENOMEM
 * when an allocation fails; *out is NULL unless ST_OK */
int32_t dt_model_new(int kind, int p, int augmented, int delta, int n_classes, double nu0,
                     double s20, int32_t d, int32_t minp, int32_t nstart,
                     int32_t n_particles, double alpha, double beta, uint64_t seed,
                     dt_model **out)
{
    dt_model *m;
    int32_t i;
    *out = NULL;
    if (d < 1 || minp < 1 || nstart < 1 || n_particles < 1) return ST_EINVAL;
    if (kind == DT_CLASS && n_classes < 1) return ST_EINVAL;
    m = alloc_calloc(1, sizeof(dt_model));
    if (!m) return ST_ENOMEM;
    dt_leaf_config_init(&m->cfg, kind, p, augmented, delta, n_classes, nu0, s20);
    m->par.d = d;
    m->par.minp = minp;
    m->par.nstart = nstart;
    m->par.n_particles = n_particles;
    m->thr.n_threads = 1;
    m->par.alpha = alpha;
    m->par.beta = beta;
    m->lml = 0.0;
    m->store.n = 0;
    m->store.cap = 0;
    m->pf.cap_nodes = 16;
    m->pool.free_set = -1;
    rng_seed(&m->rng, seed);
    for (i = 0; i < 64; i++) {
        m->par.prior_split[i] = dt_log_split_prob(i, alpha, beta);
        m->par.prior_leaf[i] = dt_log_leaf_prob(i, alpha, beta);
    }
    if (alloc_buffers(m, p) != ST_OK || dt_sets_reserve(m, 0) != ST_OK) {
        dt_model_free(m);
        return ST_ENOMEM;
    }
    for (i = 0; i < n_particles; i++) {
        if (dt_particle_init(&m->pf.parts[i], m->pf.cap_nodes) != ST_OK) {
            dt_model_free(m);
            return ST_ENOMEM;
        }
        reset_particle(m, &m->pf.parts[i]);
    }
    *out = m;
    return ST_OK;
}

rng_state *dt_model_rng(dt_model *m) { return &m->rng; }

int dt_model_set_slope_prior(dt_model *m, double kappa)
{
    if (!(kappa >= 0.0 && kappa < INFINITY)) return ST_EINVAL;
    if (m->store.n > 0) return ST_ESTATE;
    m->cfg.kappa = kappa; /* the empty roots' cached evidence does not depend on kappa */
    return ST_OK;
}

/* room in the undo log for one particle's share of a row (dynatree/txn.c) */
static int log_room_particle(dt_model *m, const dt_particle *t, int with_points)
{
    if (dt_log_room(m, dt_log_bound(m, t, with_points)) != ST_OK) {
        m->txn.broken = 1;
        return 0;
    }
    return 1;
}

/* one row: retirement, store, then the root phase or one PL step; runs inside a
 * transaction, stops at the first allocation failure (m->txn.broken) */
static double learn_row(dt_model *m, const double *x, double yr)
{
    int32_t i, index, leaf, n_points;
    double lp = 0.0;
    dt_particle *t;
    if (m->ret.active_size > 0 && m->store.n >= m->ret.active_size) {
        /* retire one point before the PL step ([DT-SPEC §0] item 5) */
        if (dt_retire_one(m, dt_choose_retiree(m), m->ret.lam) != ST_OK) return 0.0;
    }
    index = (int32_t)m->store.n;
    memcpy(m->store.X + (int64_t)index * m->par.d, x, sizeof(double) * (size_t)m->par.d);
    m->store.y[index] = yr;
    m->store.n++;
    m->store.n_total++;
    if (m->store.n_total <= m->par.nstart) {
        for (i = 0; i < m->par.n_particles; i++) {
            t = &m->pf.parts[i];
            if (!log_room_particle(m, t, 0)) return 0.0;
            leaf = t->root;
            if (dt_leaf_append_shared(m, t, leaf, index)) continue; /* stats hold the point */
            if (m->txn.broken) return 0.0;
            n_points = 0;
            if (m->cfg.kind == DT_LINEAR && m->cfg.delta == 1)
                n_points = dt_gather_points(m, t, leaf, m->buf.ibuf);
            dt_add_point(dt_leaf_stats(m, t, leaf), &m->cfg, m->buf.ibuf, n_points,
                         index, m->store.X, m->store.y, m->par.d, m->buf.work);
        }
    } else {
        lp = dt_pl_step(m, index);
    }
    return lp;
}

/* mirrors ReferenceEngine._engine_learn */
int dt_model_learn(dt_model *m, const double *X, const double *y, int64_t n, double *lpred)
{
    int64_t r;
    double lp;
    if (m->txn.lost) return ST_ESTATE;
    if (n < 0) return ST_EINVAL;
    /* validate the whole batch before any state change (the facade also does) */
    for (r = 0; r < n * m->par.d; r++)
        if (!(fabs(X[r]) <= DT_MAX_MAGNITUDE)) return ST_EINVAL;   /* also NaN */
    for (r = 0; r < n; r++) {
        if (!(fabs(y[r]) <= DT_MAX_MAGNITUDE)) return ST_EINVAL;
        if (m->cfg.kind == DT_CLASS &&
            (y[r] < 0.0 || y[r] >= (double)m->cfg.n_classes || y[r] != floor(y[r])))
            return ST_ERANGE;
    }
    for (r = 0; r < n; r++) {
        if (m->store.n >= 2147483600) return ST_ERANGE;
        /* capacities first: a failure here changes nothing */
        if (reserve_store(m, m->store.n + 1) != ST_OK) return ST_ENOMEM;
        if (reserve_grow(m) != ST_OK) return ST_ENOMEM;
        if (dt_sets_reserve(m, dt_threads_extra_sets(m)) != ST_OK) return ST_ENOMEM;
        if (m->ret.active_size > 0 && m->store.n >= m->ret.active_size) {
            if (dt_model_reserve_retire(m) != ST_OK) return ST_ENOMEM;
            /* the retiree's re-inserted points, then the step's sets (as above) */
            if (dt_sets_reserve(m, (int64_t)m->par.n_particles * (int64_t)m->par.minp +
                                       dt_threads_extra_sets(m)) != ST_OK)
                return ST_ENOMEM;
        }
        dt_txn_begin(m);
        lp = learn_row(m, X + r * m->par.d, y[r]);
        if (m->txn.broken) {
            if (m->txn.lost) return ST_ENOMEM; /* the log itself failed: no way back */
            dt_txn_rollback(m);
            return ST_ENOMEM;
        }
        m->lml = m->lml + lp;
        dt_txn_commit(m);
        if (lpred != NULL) lpred[r] = lp;
    }
    return ST_OK;
}

int dt_model_regression(const dt_model *m, const double *x, double *out)
{
    return dt_model_summaries(m, x, 1, out);
}

/* batches of at least DT_RECORD_ROWS rows (or any batch once the records are built) use
 * the per-set records of dt_model_predict_prepare ([DT-SPEC §8.4]); shorter ones, such as
 * the one-row calls between learned rows, take the per-particle path, whose cost does not
 * grow with the number of sets. Both give the same doubles; a failed allocation of the
 * records falls back to the per-particle path. */
enum { DT_RECORD_ROWS = 16 };

static int use_records(const dt_model *m, int64_t n)
{
    dt_model *mm = (dt_model *)m;
    if (!m->pred.ok && n < DT_RECORD_ROWS) return 0;
    return dt_model_predict_prepare(mm) == ST_OK;
}

int dt_model_means(const dt_model *m, const double *X, int64_t n, double *out)
{
    int64_t r;
    if (m->txn.lost) return ST_ESTATE;
    if (m->cfg.kind == DT_CLASS) return ST_ESTATE;
    if (use_records(m, n) && dt_model_means_rows(m, X, n, out) == ST_OK) return ST_OK;
    for (r = 0; r < n; r++)
        out[r] = dt_regression_mean((dt_model *)m, X + r * m->par.d);
    return ST_OK;
}

int dt_model_class(const dt_model *m, const double *x, double *probs, double *entropy)
{
    return dt_model_classes(m, x, 1, probs, entropy);
}

/* the batch predictions (DynamicTreeEngine.summaries / classify_rows): one call for n rows;
 * the one-row calls above are these with n = 1 */
int dt_model_summaries(const dt_model *m, const double *X, int64_t n, double *out)
{
    int64_t r;
    if (m->txn.lost) return ST_ESTATE;
    if (m->cfg.kind == DT_CLASS) return ST_ESTATE;
    if (use_records(m, n) && dt_model_summaries_rows(m, X, n, out) == ST_OK) return ST_OK;
    for (r = 0; r < n; r++)
        dt_regression_summaries((dt_model *)m, X + r * m->par.d, out + 5 * r);
    return ST_OK;
}

int dt_model_classes(const dt_model *m, const double *X, int64_t n, double *probs,
                     double *entropy)
{
    int64_t r;
    if (m->txn.lost) return ST_ESTATE;
    if (m->cfg.kind != DT_CLASS) return ST_ESTATE;
    if (use_records(m, n) && dt_model_classes_rows(m, X, n, probs, entropy) == ST_OK)
        return ST_OK;
    for (r = 0; r < n; r++)
        dt_class_summaries((dt_model *)m, X + r * m->par.d, probs + r * m->cfg.n_classes,
                           entropy + r);
    return ST_OK;
}

/* the one-row calls of the facade: width and finiteness checked here */
static int check_row(const dt_model *m, const double *x, int64_t n_values)
{
    int64_t a;
    if (n_values != m->par.d) return ST_EDIM;
    for (a = 0; a < n_values; a++)
        if (!(fabs(x[a]) <= DT_MAX_MAGNITUDE)) return ST_EINVAL;   /* also NaN, inf */
    return ST_OK;
}

int dt_model_learn_row(dt_model *m, const double *x, int64_t n_values, double y, double *lpred)
{
    int rc = check_row(m, x, n_values);
    if (rc != ST_OK) return rc;
    return dt_model_learn(m, x, &y, 1, lpred);
}

int dt_model_regression_row(const dt_model *m, const double *x, int64_t n_values, double *out)
{
    int rc = check_row(m, x, n_values);
    if (rc != ST_OK) return rc;
    return dt_model_regression(m, x, out);
}

int dt_model_mean_row(const dt_model *m, const double *x, int64_t n_values, double *out)
{
    int rc = check_row(m, x, n_values);
    if (rc != ST_OK) return rc;
    return dt_model_means(m, x, 1, out);
}

int dt_model_class_row(const dt_model *m, const double *x, int64_t n_values, double *probs,
                       double *entropy)
{
    int rc = check_row(m, x, n_values);
    if (rc != ST_OK) return rc;
    return dt_model_class(m, x, probs, entropy);
}

/* the facade's predict_one of a classifier: the first class of largest probability */
int dt_model_label_row(const dt_model *m, const double *x, int64_t n_values, double *probs,
                       int32_t *label)
{
    int32_t k, best = 0;
    double entropy;
    int rc = dt_model_class_row(m, x, n_values, probs, &entropy);
    if (rc != ST_OK) return rc;
    for (k = 1; k < m->cfg.n_classes; k++)
        if (probs[k] > probs[best]) best = k;
    *label = best;
    return ST_OK;
}

/* per particle: (height, leaves, active points) */
int dt_model_trees(const dt_model *m, int32_t *out)
{
    dt_model *mm = (dt_model *)m;
    int32_t i, a, n_leaves, count;
    int32_t *lv = mm->buf.stack + mm->pf.cap_nodes;
    const dt_particle *t;
    if (m->txn.lost) return ST_ESTATE;
    for (i = 0; i < m->par.n_particles; i++) {
        t = &m->pf.parts[i];
        out[3 * i] = dt_height(mm, t);
        n_leaves = dt_collect_leaves(mm, t, t->root, lv);
        count = 0;
        for (a = 0; a < n_leaves; a++)
            count += (int32_t)dt_leaf_stats(m, t, lv[a])[DT_OFF_N];
        out[3 * i + 1] = n_leaves;
        out[3 * i + 2] = count;
    }
    return ST_OK;
}

int dt_model_particle_size(const dt_model *m, int32_t i, int32_t *n_nodes, int32_t *n_points)
{
    const dt_particle *t;
    if (m->txn.lost) return ST_ESTATE;
    if (i < 0 || i >= m->par.n_particles) return ST_ERANGE;
    t = &m->pf.parts[i];
    *n_nodes = t->n_nodes - t->n_free;
    *n_points = (int32_t)m->store.n;
    return ST_OK;
}

int dt_model_export_particle(const dt_model *m, int32_t i, int32_t *ints, double *dbls,
                             int32_t *points)
{
    dt_model *mm = (dt_model *)m;
    const dt_particle *t;
    int32_t *stack = mm->buf.stack, sp = 0, k, a = 0, np = 0, cnt;
    int sw = m->cfg.sw, s;
    if (m->txn.lost) return ST_ESTATE;
    if (i < 0 || i >= m->par.n_particles) return ST_ERANGE;
    t = &m->pf.parts[i];
    stack[sp++] = t->root;
    while (sp > 0) {
        k = stack[--sp];
        ints[3 * a] = t->nodes[k].depth;
        ints[3 * a + 1] = t->nodes[k].var;
        dbls[(int64_t)a * (sw + 1)] = t->nodes[k].value;
        if (t->nodes[k].var >= 0) {
            ints[3 * a + 2] = 0;
            for (s = 0; s < sw; s++) dbls[(int64_t)a * (sw + 1) + 1 + s] = 0.0;
            stack[sp++] = t->nodes[k].right;
            stack[sp++] = t->nodes[k].left;
        } else {
            cnt = dt_gather_points(m, t, k, points + np);
            np += cnt;
            ints[3 * a + 2] = cnt;
            for (s = 0; s < sw; s++)
                dbls[(int64_t)a * (sw + 1) + 1 + s] = dt_leaf_stats(m, t, k)[s];
        }
        a++;
    }
    return ST_OK;
}

/* rebuild the store and every particle from exported records (pickling) */
int dt_model_import(dt_model *m, const double *X, const double *y, int64_t n, double lml,
                    const int32_t *sizes, const int32_t *ints, const double *dbls,
                    const int32_t *points)
{
    int32_t i, a, k, sp, par, maxn = 0, cnt, b;
    int64_t node_off = 0, pt_off = 0;
    int sw = m->cfg.sw;
    dt_particle *t;
    for (i = 0; i < m->par.n_particles; i++)
        if (sizes[i] > maxn) maxn = sizes[i];
    if (reserve_store(m, n) != ST_OK) return ST_ENOMEM;
    if (reserve_nodes(m, maxn + 2) != ST_OK) return ST_ENOMEM;
    if (n > 0) {
        memcpy(m->store.X, X, sizeof(double) * (size_t)(n * m->par.d));
        memcpy(m->store.y, y, sizeof(double) * (size_t)n);
    }
    m->store.n = n;
    m->lml = lml;
    m->pred.ok = 0;
    m->alcc.ok = 0;
    for (i = 0; i < m->par.n_particles; i++) {
        t = &m->pf.parts[i];
        dt_particle_release_sets(m, t);
        t->n_nodes = 0;
        t->free_head = -1;
        t->n_free = 0;
        sp = 0;
        if (dt_sets_reserve(m, sizes[i]) != ST_OK) return ST_ENOMEM;
        for (a = 0; a < sizes[i]; a++) {
            k = dt_node_alloc(m, t);
            t->nodes[k].depth = ints[3 * (node_off + a)];
            t->nodes[k].var = ints[3 * (node_off + a) + 1];
            t->nodes[k].value = dbls[(node_off + a) * (sw + 1)];
            if (sp == 0) {
                t->root = k;
            } else {
                par = m->buf.stack[sp - 1];
                t->nodes[k].parent = par;
                if (t->nodes[par].left < 0) {
                    t->nodes[par].left = k;
                } else {
                    t->nodes[par].right = k;
                    sp--;
                }
            }
            if (t->nodes[k].var >= 0) {
                m->buf.stack[sp++] = k;
            } else {
                cnt = ints[3 * (node_off + a) + 2];
                for (b = 0; b < cnt; b++)
                    if (points[pt_off + b] < 0 || points[pt_off + b] >= n) return ST_EINVAL;
                t->nodes[k].set = dt_set_new(m, points + pt_off, cnt);
                if (m->txn.broken) return ST_ENOMEM; /* the point list could not be stored */
                memcpy(dt_leaf_stats(m, t, k), dbls + (node_off + a) * (sw + 1) + 1,
                       sizeof(double) * (size_t)sw);
                pt_off += cnt;
            }
        }
        node_off += sizes[i];
    }
    return ST_OK;
}
