/*
 * sgt/core.c -- the learning core of every SGT model: warm-up buffer and committee.
 *
 * Mirrors reference/sgt/core.py (class SGTCore). During the warm-up, items (one row,
 * or the rows of a bag) widen the ranges and are buffered; when `warmup` rows have
 * been seen the ranges freeze and the buffer is replayed in arrival order ([SGT-SPEC §5.6])
 * unless warmup_trains == 0. After that each item is routed, its gradients computed
 * from the raw scores as they stand (SE, BCE, softmax committee, bag), and each tree
 * learns its (g, h); bins are computed once per row for all trees. Custom losses
 * compute (g, h) in Python and call sgt_model_train_gh.
 * Invariants: buf_rows = Σ buf_len; trees share the quantizer q.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sgt/sgt.h"
#if defined(__GLIBC__)
#include <malloc.h>
#endif

static void scratch_free(sgt_scratch *s)
{
    alloc_free(s->prefix);
    alloc_free(s->suffix);
    alloc_free(s->pair);
    alloc_free(s->moment_mean);
    alloc_free(s->moment_var);
    alloc_free(s->best.deltas);
    alloc_free(s->cand.deltas);
    alloc_free(s->pool.deltas);
    alloc_free(s->codes);
    alloc_free(s->raws);
    alloc_free(s->grads);
    alloc_free(s->hess);
    alloc_free(s->probs);
    alloc_free(s->zeros);
    alloc_free(s->warm_g);
    alloc_free(s->warm_h);
    alloc_free(s->undo_lo);
    alloc_free(s->undo_hi);
    alloc_free(s->undo_seen);
    alloc_free(s->undo_range);
    alloc_free(s->own_rows);
    alloc_free(s->plan);
    memset(s, 0, sizeof *s);
}

static int scratch_init(sgt_scratch *s, const sgt_quantizer *q, int32_t n_trees)
{
    int32_t a, maxc = 2;
    size_t rows = (size_t)(n_trees > 1 ? n_trees : 1);
    memset(s, 0, sizeof *s);
    for (a = 0; a < q->d; a++)
        if (q->kinds[a] > maxc)
            maxc = q->kinds[a];
    s->prefix = alloc_malloc((size_t)q->bins * sizeof(sgt_stats));
    s->suffix = alloc_malloc((size_t)q->bins * sizeof(sgt_stats));
    s->pair = alloc_malloc(2 * sizeof(sgt_stats));
    s->moment_mean = alloc_malloc((size_t)maxc * sizeof(double));
    s->moment_var = alloc_malloc((size_t)maxc * sizeof(double));
    s->best.deltas = alloc_malloc((size_t)maxc * sizeof(double));
    s->cand.deltas = alloc_malloc((size_t)maxc * sizeof(double));
    s->pool.deltas = alloc_malloc((size_t)maxc * sizeof(double));
    s->codes = alloc_malloc((size_t)q->d * sizeof(int32_t));
    s->raws = alloc_malloc(rows * sizeof(double));
    s->grads = alloc_malloc(rows * sizeof(double));
    s->hess = alloc_malloc(rows * sizeof(double));
    s->probs = alloc_malloc((rows + 1) * sizeof(double));
    s->zeros = alloc_calloc(rows, sizeof(double));
    s->warm_g = alloc_malloc(rows * sizeof(double));
    s->warm_h = alloc_malloc(rows * sizeof(double));
    s->undo_lo = alloc_malloc((size_t)q->d * sizeof(double) + 1);
    s->undo_hi = alloc_malloc((size_t)q->d * sizeof(double) + 1);
    s->undo_seen = alloc_malloc((size_t)q->d + 1);
    if (q->per_leaf)
        s->undo_range = alloc_malloc(rows * (size_t)(4 * q->d) * sizeof(double) + 1);
    s->own_rows = alloc_malloc((size_t)q->d * sizeof(double));
    s->plan = alloc_malloc((size_t)q->n_cells * sizeof(sgt_stats));
    s->own_cap = 1;
    s->row_cap = (int64_t)rows;
    s->tree_cap = (int64_t)rows;
    if (!s->own_rows || !s->plan || !s->undo_lo || !s->undo_hi || !s->undo_seen || (q->per_leaf && !s->undo_range)) {
        scratch_free(s);
        return ST_ENOMEM;
    }
    if (!s->prefix || !s->suffix || !s->pair || !s->moment_mean || !s->moment_var
        || !s->best.deltas || !s->cand.deltas || !s->pool.deltas || !s->codes || !s->raws
        || !s->grads || !s->hess || !s->probs || !s->zeros || !s->warm_g || !s->warm_h) {
        scratch_free(s);
        return ST_ENOMEM;
    }
    return ST_OK;
}

/* make raws/grads/hess/zeros hold at least n entries (bags) */
static int scratch_rows(sgt_scratch *s, int64_t n)
{
    double *r, *g, *h, *z;
    if (n <= s->row_cap)
        return ST_OK;
    z = alloc_calloc((size_t)n, sizeof(double));
    if (!z)
        return ST_ENOMEM;
    alloc_free(s->zeros);
    s->zeros = z;
    r = alloc_realloc(s->raws, (size_t)n * sizeof(double));
    if (!r)
        return ST_ENOMEM;
    s->raws = r;
    g = alloc_realloc(s->grads, (size_t)n * sizeof(double));
    if (!g)
        return ST_ENOMEM;
    s->grads = g;
    h = alloc_realloc(s->hess, (size_t)n * sizeof(double));
    if (!h)
        return ST_ENOMEM;
    s->hess = h;
    s->row_cap = n;
    return ST_OK;
}

/* C only (hardening): copy the caller's n_rows rows into s->own_rows (grown as needed,
 * before any state changes) and check the copy (finite; nominal values integers in [0, K)):
 * the C reads the caller's memory once, so a value another thread writes meanwhile can
 * never reach a cell index unchecked. *out is the copy. */
static int own_rows(sgt_model *m, const double *rows, int32_t n_rows, const double **out)
{
    sgt_scratch *s = &m->s;
    int64_t d = m->q.d, i;
    if (n_rows < 1)
        return ST_EINVAL;
    if (n_rows > s->own_cap) {
        double *grown = alloc_realloc(s->own_rows, (size_t)(n_rows * d) * sizeof(double));
        if (!grown)
            return ST_ENOMEM;
        s->own_rows = grown;
        s->own_cap = n_rows;
    }
    memcpy(s->own_rows, rows, (size_t)(n_rows * d) * sizeof(double));
    for (i = 0; i < n_rows; i++)
        if (sgt_quantizer_check_row(&m->q, s->own_rows + i * d) != ST_OK)
            return ST_EINVAL;
    *out = s->own_rows;
    return ST_OK;
}

void sgt_model_free(sgt_model *m)
{
    int32_t c;
    if (!m)
        return;
    if (m->trees)
        for (c = 0; c < m->n_trees; c++)
            sgt_tree_free(&m->trees[c]);
    alloc_free(m->trees);
    alloc_free(m->warm.buf_x);
    alloc_free(m->warm.buf_target);
    alloc_free(m->warm.buf_len);
    scratch_free(&m->s);
    sgt_quantizer_free(&m->q);
    alloc_free(m);
}

int32_t sgt_model_new(const sgt_params *p, int32_t d, const int32_t *kinds, const double *lo,
                      const double *hi, const uint8_t *fixed, int32_t loss_kind,
                      int32_t n_trees, sgt_model **out)
{
    sgt_model *m;
    int32_t c;
    int rc;
    *out = NULL;
    if (p->grace_period < 1 || p->bins < 2 || p->warmup < 1 || n_trees < 1
        || loss_kind < SGT_LOSS_SQUARED || loss_kind > SGT_LOSS_PSEUDO_HUBER)
        return ST_EINVAL;
    m = alloc_calloc(1, sizeof *m);
    if (!m)
        return ST_ENOMEM;
    m->p = *p;
    m->loss_kind = loss_kind;
    rc = sgt_quantizer_init(&m->q, d, kinds, p->bins, lo, hi, fixed);
    m->q.per_leaf = p->per_leaf ? 1 : 0;
    if (rc == ST_OK)
        rc = scratch_init(&m->s, &m->q, n_trees);
    if (rc == ST_OK) {
        m->trees = alloc_calloc((size_t)n_trees, sizeof(sgt_tree));
        m->trees_cap = n_trees;
        rc = m->trees ? ST_OK : ST_ENOMEM;
    }
    for (c = 0; rc == ST_OK && c < n_trees; c++) {
        rc = sgt_tree_init(&m->trees[c], &m->q);
        if (rc == ST_OK)
            m->n_trees = c + 1;
    }
    if (rc != ST_OK) {
        sgt_model_free(m);
        return rc;
    }
    *out = m;
    return ST_OK;
}

/* True while predictions are the warm-up Newton step (SGTCore.predicts_warmup_step) */
static int predicts_warmup_step(const sgt_model *m)
{
    return !m->q.frozen && m->p.warmup_newton && m->loss_kind != SGT_LOSS_CUSTOM;
}

/* the per-row (g, h) of one buffered item at raw scores 0, added to warm_g/warm_h;
 * returns the rows counted (SGTCore._gradients_at_zero) */
static int64_t add_gradients_at_zero(sgt_model *m, int32_t n_rows, double target)
{
    sgt_scratch *s = &m->s;
    int32_t i, c;
    if (m->loss_kind == SGT_LOSS_BAG) {
        sgt_bag_gradients(s->zeros, n_rows, target, s->grads, s->hess);
        for (i = 0; i < n_rows; i++) {
            s->warm_g[0] += s->grads[i];
            s->warm_h[0] += s->hess[i];
        }
        return n_rows;
    }
    if (m->loss_kind == SGT_LOSS_SQUARED)
        sgt_squared_error_gh(target, 0.0, &s->grads[0], &s->hess[0]);
    else if (m->loss_kind == SGT_LOSS_LOGISTIC)
        sgt_binary_cross_entropy_gh(target, 0.0, &s->grads[0], &s->hess[0]);
    else if (m->loss_kind == SGT_LOSS_PSEUDO_HUBER)
        sgt_pseudo_huber_gh(target, 0.0, &s->grads[0], &s->hess[0]);
    else
        sgt_softmax_gradients(s->zeros, m->n_trees, (int32_t)target, s->probs, s->grads,
                              s->hess);
    for (c = 0; c < m->n_trees; c++) {
        s->warm_g[c] += s->grads[c];
        s->warm_h[c] += s->hess[c];
    }
    return 1;
}

/* One Newton step of every tree's root from raw score 0 over the buffered items
 * (SGTCore.warmup_raws): Δ_c = -ḡ_c / (h̄_c + λ + ε), 0 while the buffer is empty.
 * The sums Σg, Σh run over the buffer in order; they are kept between calls and only the
 * items buffered since the last call are added (the reference sums the whole buffer each
 * time: the same additions in the same order, so the same bits, in O(1) per prediction
 * instead of O(buffer)). sgt_model_clear_buffer resets them. */
static int warmup_raws(sgt_model *m, double *out)
{
    sgt_scratch *s = &m->s;
    int64_t item, longest = 1;
    int32_t c;
    double n;
    for (item = s->warm_items; item < m->warm.buf_items; item++)
        if (m->warm.buf_len[item] > longest)
            longest = m->warm.buf_len[item];
    if (scratch_rows(s, longest) != ST_OK)   /* a restored buffer may hold longer bags */
        return ST_ENOMEM;
    if (s->warm_items == 0)
        for (c = 0; c < m->n_trees; c++) {
            s->warm_g[c] = 0.0;
            s->warm_h[c] = 0.0;
        }
    for (item = s->warm_items; item < m->warm.buf_items; item++)
        s->warm_count += add_gradients_at_zero(m, m->warm.buf_len[item],
                                               m->warm.buf_target[item]);
    s->warm_items = m->warm.buf_items;
    for (c = 0; c < m->n_trees; c++) {
        if (s->warm_count == 0) {
            out[c] = 0.0;
            continue;
        }
        n = (double)s->warm_count;
        /* [GPF19, Eq. 13] Δ = -ḡ / (h̄ + λ), per instance, from raw score 0 */
        out[c] = -(s->warm_g[c] / n) / (s->warm_h[c] / n + m->p.lam + DBL_MIN);
    }
    return ST_OK;
}

int sgt_model_raws(sgt_model *m, const double *x, double *out)
{
    int32_t c;
    int rc = own_rows(m, x, 1, &x);
    if (rc != ST_OK)
        return rc;
    if (predicts_warmup_step(m))
        return warmup_raws(m, out);
    for (c = 0; c < m->n_trees; c++)
        out[c] = sgt_tree_raw(&m->trees[c], &m->q, x);
    return ST_OK;
}

int sgt_model_raws_many(sgt_model *m, const double *X, int64_t n, double *out)
{
    int64_t i;
    if (predicts_warmup_step(m) && n > 0) {   /* the same scores for every row */
        for (i = 0; i < n; i++)
            if (sgt_quantizer_check_row(&m->q, X + i * m->q.d) != ST_OK)
                return ST_EINVAL;
        if (warmup_raws(m, out) != ST_OK)
            return ST_ENOMEM;
        for (i = 1; i < n; i++)
            memcpy(out + i * m->n_trees, out, (size_t)m->n_trees * sizeof(double));
        return ST_OK;
    }
    for (i = 0; i < n; i++) {
        int rc = sgt_model_raws(m, X + i * m->q.d, out + i * m->n_trees);
        if (rc != ST_OK)
            return rc;
    }
    return ST_OK;
}

static int check_rows(const sgt_model *m, const double *rows, int32_t n_rows)
{
    int32_t i;
    if (n_rows < 1 || (n_rows > 1 && m->loss_kind != SGT_LOSS_BAG))
        return ST_EINVAL;
    for (i = 0; i < n_rows; i++)
        if (sgt_quantizer_check_row(&m->q, rows + (int64_t)i * m->q.d) != ST_OK)
            return ST_EINVAL;
    return ST_OK;
}

/* ST_EINVAL unless the target suits the loss: finite; at most SGT_GRADIENT_BOUND in
 * magnitude with squared error (its gradient); a class index for the committee */
static int check_target(const sgt_model *m, double target)
{
    if (!isfinite(target))
        return ST_EINVAL;
    if (m->loss_kind == SGT_LOSS_SQUARED && !(fabs(target) <= SGT_GRADIENT_BOUND))
        return ST_EINVAL;
    if (m->loss_kind == SGT_LOSS_SOFTMAX
        && !(target >= 0.0 && target <= (double)m->n_trees && target == floor(target)))
        return ST_EINVAL;
    return ST_OK;
}

/* append one item to the buffer without observing it (also used to unpickle) */
int sgt_model_buffer_restore(sgt_model *m, const double *rows, int32_t n_rows, double target)
{
    int64_t d = m->q.d;
    if (n_rows < 1)
        return ST_EINVAL;
    if (m->warm.buf_rows + n_rows > m->warm.buf_rows_cap) {
        int64_t cap = m->warm.buf_rows_cap ? m->warm.buf_rows_cap : 64;
        double *grown;
        while (cap < m->warm.buf_rows + n_rows)
            cap *= 2;
        grown = alloc_realloc(m->warm.buf_x, (size_t)(cap * d) * sizeof(double));
        if (!grown)
            return ST_ENOMEM;
        m->warm.buf_x = grown;
        m->warm.buf_rows_cap = cap;
    }
    if (m->warm.buf_items + 1 > m->warm.buf_items_cap) {
        int64_t cap = m->warm.buf_items_cap ? m->warm.buf_items_cap * 2 : 64;
        double *t = alloc_realloc(m->warm.buf_target, (size_t)cap * sizeof(double));
        int32_t *l;
        if (!t)
            return ST_ENOMEM;
        m->warm.buf_target = t;
        l = alloc_realloc(m->warm.buf_len, (size_t)cap * sizeof(int32_t));
        if (!l)
            return ST_ENOMEM;
        m->warm.buf_len = l;
        m->warm.buf_items_cap = cap;
    }
    memcpy(m->warm.buf_x + m->warm.buf_rows * d, rows, (size_t)(n_rows * d) * sizeof(double));
    m->warm.buf_target[m->warm.buf_items] = target;
    m->warm.buf_len[m->warm.buf_items] = n_rows;
    m->warm.buf_items += 1;
    m->warm.buf_rows += n_rows;
    return ST_OK;
}

/* C only (hardening): before the push that ends the warm-up, keep what it and the replay
 * change beyond the buffer (the quantizer's ranges, every root's range) */
static void save_warmup_state(sgt_model *m)
{
    sgt_scratch *s = &m->s;
    size_t d = (size_t)m->q.d;
    int32_t c;
    memcpy(s->undo_lo, m->q.lo, d * sizeof(double));
    memcpy(s->undo_hi, m->q.hi, d * sizeof(double));
    memcpy(s->undo_seen, m->q.seen, d);
    if (m->q.per_leaf)
        for (c = 0; c < m->n_trees; c++)
            memcpy(s->undo_range + (size_t)c * 4 * d, m->trees[c].nodes[0].range,
                   4 * d * sizeof(double));
}

/* C only (hardening): undo the push of the last item (n_rows rows) that ended the
 * warm-up, and whatever part of the replay ran: the ranges as before the push, the item out
 * of the buffer, fresh trees, spares released. Allocates nothing, so it cannot fail. */
void sgt_model_warmup_undo(sgt_model *m, int32_t n_rows)
{
    sgt_scratch *s = &m->s;
    size_t d = (size_t)m->q.d;
    int32_t c;
    memcpy(m->q.lo, s->undo_lo, d * sizeof(double));
    memcpy(m->q.hi, s->undo_hi, d * sizeof(double));
    memcpy(m->q.seen, s->undo_seen, d);
    m->q.frozen = 0;
    m->warm.warm_rows -= n_rows;
    m->warm.buf_items -= 1;
    m->warm.buf_rows -= n_rows;
    if (s->warm_items > m->warm.buf_items) {   /* the running warm-up sums start again */
        s->warm_items = 0;
        s->warm_count = 0;
    }
    for (c = 0; c < m->n_trees; c++)
        sgt_tree_reset(&m->trees[c], &m->q,
                       m->q.per_leaf ? s->undo_range + (size_t)c * 4 * d : NULL);
    sgt_model_release(m);
}

int sgt_model_warmup_push(sgt_model *m, const double *rows, int32_t n_rows, double target,
                          int32_t *ended)
{
    int32_t i;
    int rc = check_rows(m, rows, n_rows);
    *ended = 0;
    if (rc == ST_OK)
        rc = check_target(m, target);
    if (rc != ST_OK)
        return rc;
    if (m->q.frozen)
        return ST_ESTATE;
    rc = sgt_model_buffer_restore(m, rows, n_rows, target);
    if (rc != ST_OK)
        return rc;
    if (m->warm.warm_rows + n_rows >= m->p.warmup)
        save_warmup_state(m);
    for (i = 0; i < n_rows; i++)
        sgt_quantizer_observe(&m->q, rows + (int64_t)i * m->q.d);
    m->warm.warm_rows += n_rows;
    if (m->warm.warm_rows >= m->p.warmup) {
        int32_t c;
        m->q.frozen = 1;
        for (c = 0; c < m->n_trees; c++)
            sgt_tree_seed_root(&m->trees[c], &m->q);
        *ended = 1;
    }
    return ST_OK;
}

void sgt_model_clear_buffer(sgt_model *m)
{
    m->warm.buf_rows = 0;
    m->warm.buf_items = 0;
    m->s.warm_items = 0;    /* the running warm-up sums start again */
    m->s.warm_count = 0;
}

/* every tree learns at the row whose bins/categories are already in m->s.codes */
static int train_codes(sgt_model *m, const double *grads, const double *hess)
{
    int32_t c;
    for (c = 0; c < m->n_trees; c++) {
        int rc = sgt_tree_learn(&m->trees[c], &m->q, &m->p, m->s.codes, grads[c], hess[c],
                                &m->s);
        if (rc != ST_OK)
            return rc;
    }
    return ST_OK;
}

int sgt_model_reserve(sgt_model *m, int64_t splits)
{
    int32_t c;
    for (c = 0; c < m->n_trees; c++) {
        int rc = sgt_tree_reserve(&m->trees[c], &m->q, splits);
        if (rc != ST_OK)
            return rc;
    }
    return ST_OK;
}

/* Reserve, in every tree, the splits n_rows more rows of a trained model can trigger
 * (sgt_tree_split_bound: the rows / grace_period a split needs, not one per row) */
int sgt_model_reserve_rows(sgt_model *m, int64_t n_rows)
{
    int32_t c;
    for (c = 0; c < m->n_trees; c++) {
        int64_t splits = sgt_tree_split_bound(&m->trees[c], m->p.grace_period, n_rows);
        int rc = sgt_tree_reserve(&m->trees[c], &m->q, splits);
        if (rc != ST_OK)
            return rc;
    }
    return ST_OK;
}

/* Reserve, in every tree, the leaves of the split row x (its codes in m->s.codes unless
 * per_leaf) with gradients grads/hess will make (sgt_tree_plan): what the row uses, not
 * the largest split a row could make (a nominal feature of K categories would reserve K
 * leaves of every cell at each row) */
static int reserve_row(sgt_model *m, const double *x, const double *grads, const double *hess)
{
    int32_t c;
    for (c = 0; c < m->n_trees; c++) {
        int32_t k = sgt_tree_plan(&m->trees[c], &m->q, &m->p, x, m->s.codes, grads[c],
                                  hess[c], &m->s, m->s.plan);
        int rc = k > 0 ? sgt_tree_reserve_leaves(&m->trees[c], &m->q, k) : ST_OK;
        if (rc != ST_OK)
            return rc;
    }
    return ST_OK;
}

/* the per-tree scratch (probs, warm_g, warm_h, undo_range) and raws/grads/hess/zeros
 * made to hold n trees, growing by doubling; nothing else changes */
static int scratch_trees(sgt_scratch *s, const sgt_quantizer *q, int64_t n)
{
    int64_t cap = s->tree_cap;
    double *p, *g, *h;
    if (n <= cap)
        return ST_OK;
    while (cap < n)
        cap = cap * 2;
    if (scratch_rows(s, cap) != ST_OK)
        return ST_ENOMEM;
    p = alloc_realloc(s->probs, (size_t)(cap + 1) * sizeof(double));
    if (!p)
        return ST_ENOMEM;
    s->probs = p;
    g = alloc_realloc(s->warm_g, (size_t)cap * sizeof(double));
    if (!g)
        return ST_ENOMEM;
    s->warm_g = g;
    h = alloc_realloc(s->warm_h, (size_t)cap * sizeof(double));
    if (!h)
        return ST_ENOMEM;
    s->warm_h = h;
    if (q->per_leaf) {
        double *r = alloc_realloc(s->undo_range, (size_t)cap * (size_t)(4 * q->d)
                                  * sizeof(double) + 1);
        if (!r)
            return ST_ENOMEM;
        s->undo_range = r;
    }
    s->tree_cap = cap;
    return ST_OK;
}

/* A class joins the softmax committee in place [SGT-SPEC §16.2]: a fresh tree (one leaf
 * predicting 0, the quantizer's current ranges, seeded when frozen) appended after the
 * others (SGTCore.add_tree). The trees array and the per-tree scratch grow by doubling,
 * so a class costs amortised constant time; allocation comes first, so ST_ENOMEM leaves
 * the model as it was. The warm-up running sums start again (recomputed from the buffer
 * in the same order: the same numbers). */
int sgt_model_add_tree(sgt_model *m)
{
    sgt_tree fresh;
    if (m->loss_kind != SGT_LOSS_SOFTMAX || m->n_trees >= INT32_MAX / 2)
        return ST_ESTATE;
    if (m->n_trees == m->trees_cap) {
        int32_t cap = m->trees_cap * 2;
        sgt_tree *grown = alloc_realloc(m->trees, (size_t)cap * sizeof *grown);
        if (!grown)
            return ST_ENOMEM;
        m->trees = grown;
        m->trees_cap = cap;
    }
    if (scratch_trees(&m->s, &m->q, (int64_t)m->n_trees + 1) != ST_OK)
        return ST_ENOMEM;
    if (sgt_tree_init(&fresh, &m->q) != ST_OK)
        return ST_ENOMEM;
    if (m->q.frozen)
        sgt_tree_seed_root(&fresh, &m->q);
    m->trees[m->n_trees] = fresh;
    m->n_trees += 1;
    m->s.warm_items = 0;
    m->s.warm_count = 0;
    return ST_OK;
}

/* Undo sgt_model_add_tree (the adapter's row that brought the class was refused): the
 * last tree freed; its capacity kept. */
int sgt_model_drop_tree(sgt_model *m)
{
    if (m->loss_kind != SGT_LOSS_SOFTMAX || m->n_trees <= 2)
        return ST_ESTATE;
    m->n_trees -= 1;
    sgt_tree_free(&m->trees[m->n_trees]);
    m->s.warm_items = 0;
    m->s.warm_count = 0;
    return ST_OK;
}

/* After a call: free the reserved leaves no split used, beyond one binary split's worth,
 * so a large bag, a warm-up or a call that failed leaves no memory behind */
void sgt_model_release(sgt_model *m)
{
    int32_t c;
    int64_t freed = 0;
    for (c = 0; c < m->n_trees; c++)
        freed += sgt_tree_release(&m->trees[c], 2);
#if defined(__GLIBC__)
    if (freed >= 64)
        malloc_trim(0); /* hand many freed leaves back to the system (glibc keeps them) */
#else
    (void)freed;
#endif
}

static int train_gh(sgt_model *m, const double *x, const double *grads, const double *hess)
{
    if (m->q.per_leaf) {   /* each tree bins x at its own leaf [SGT-SPEC §5.8] */
        int32_t c;
        for (c = 0; c < m->n_trees; c++) {
            int rc = sgt_tree_learn_row(&m->trees[c], &m->q, &m->p, x, grads[c], hess[c],
                                        &m->s);
            if (rc != ST_OK)
                return rc;
        }
        return ST_OK;
    }
    sgt_quantizer_codes(&m->q, x, m->s.codes);
    return train_codes(m, grads, hess);
}

int sgt_model_train_gh(sgt_model *m, const double *x, const double *grads, const double *hess)
{
    int32_t c;
    int rc;
    if (!m->q.frozen)
        return ST_ESTATE;
    rc = own_rows(m, x, 1, &x);
    if (rc != ST_OK)
        return rc;
    for (c = 0; c < m->n_trees; c++)
        if (!(fabs(grads[c]) <= SGT_GRADIENT_BOUND) || !isfinite(hess[c]))
            return ST_EINVAL;
    if (!m->q.per_leaf)
        sgt_quantizer_codes(&m->q, x, m->s.codes);
    if (reserve_row(m, x, grads, hess) != ST_OK)
        return ST_ENOMEM;
    return train_gh(m, x, grads, hess);
}

/* gradients of a built-in loss at the current scores, then every tree learns */
int sgt_model_train(sgt_model *m, const double *rows, int32_t n_rows, double target)
{
    sgt_scratch *s = &m->s;
    int32_t i, c;
    int64_t d = m->q.d;
    if (m->loss_kind == SGT_LOSS_BAG) {
        int rc = scratch_rows(s, n_rows);
        if (rc != ST_OK)
            return rc;
        for (i = 0; i < n_rows; i++)
            s->raws[i] = sgt_tree_raw(&m->trees[0], &m->q, rows + i * d);
        sgt_bag_gradients(s->raws, n_rows, target, s->grads, s->hess);
        for (i = 0; i < n_rows; i++) {
            rc = train_gh(m, rows + i * d, &s->grads[i], &s->hess[i]);
            if (rc != ST_OK)
                return rc;
        }
        return ST_OK;
    }
    if (m->q.per_leaf) {
        for (c = 0; c < m->n_trees; c++)
            s->raws[c] = sgt_tree_raw(&m->trees[c], &m->q, rows);
    } else {
        /* bins once per row: routing by codes gives the leaf sgt_tree_raw would find */
        sgt_quantizer_codes(&m->q, rows, s->codes);
        for (c = 0; c < m->n_trees; c++)
            s->raws[c] = m->trees[c].nodes[sgt_tree_leaf_of_codes(&m->trees[c], s->codes)].value;
    }
    if (m->loss_kind == SGT_LOSS_SQUARED)
        sgt_squared_error_gh(target, s->raws[0], &s->grads[0], &s->hess[0]);
    else if (m->loss_kind == SGT_LOSS_LOGISTIC)
        sgt_binary_cross_entropy_gh(target, s->raws[0], &s->grads[0], &s->hess[0]);
    else if (m->loss_kind == SGT_LOSS_PSEUDO_HUBER)
        sgt_pseudo_huber_gh(target, s->raws[0], &s->grads[0], &s->hess[0]);
    else if (m->loss_kind == SGT_LOSS_SOFTMAX)
        sgt_softmax_gradients(s->raws, m->n_trees, (int32_t)target, s->probs, s->grads, s->hess);
    else
        return ST_ESTATE;
    if (reserve_row(m, rows, s->grads, s->hess) != ST_OK)
        return ST_ENOMEM;
    return m->q.per_leaf ? train_gh(m, rows, s->grads, s->hess)
                         : train_codes(m, s->grads, s->hess);
}

/* Train the buffered items in arrival order [SGT-SPEC §5.6], each after reserving the
 * splits it can make (sgt_model_reserve_rows), as a trained model learns: the memory held
 * at any time is the trees' plus one item's splits, not every split the buffer could make */
static int replay_buffer(sgt_model *m)
{
    int64_t item, offset = 0;
    for (item = 0; item < m->warm.buf_items; item++) {
        int32_t len = m->warm.buf_len[item];
        const double *rows = m->warm.buf_x + offset * m->q.d;
        int rc = check_rows(m, rows, len);   /* at the point of use: a restored buffer too */
        if (rc == ST_OK && m->loss_kind == SGT_LOSS_BAG)   /* a row reserves its own */
            rc = sgt_model_reserve_rows(m, len);
        if (rc == ST_OK)
            rc = sgt_model_train(m, rows, len, m->warm.buf_target[item]);
        if (rc != ST_OK)
            return rc;
        offset += len;
    }
    return ST_OK;
}

/* one item during the warm-up: buffered; when it ends the warm-up, the buffer is replayed
 * and on running out of memory half-way the model goes back to its state before the item
 * (sgt_model_warmup_undo), so the call is atomic */
static int learn_warmup(sgt_model *m, const double *rows, int32_t n_rows, double target)
{
    int32_t ended;
    int rc = sgt_model_warmup_push(m, rows, n_rows, target, &ended);
    if (rc != ST_OK || !ended)
        return rc;
    if (m->p.warmup_trains)
        rc = replay_buffer(m);
    if (rc != ST_OK) {
        sgt_model_warmup_undo(m, n_rows);
        return rc;
    }
    sgt_model_clear_buffer(m);
    sgt_model_release(m);
    return ST_OK;
}

int sgt_model_learn(sgt_model *m, const double *rows, int32_t n_rows, double target)
{
    int rc = n_rows > 1 && m->loss_kind != SGT_LOSS_BAG ? ST_EINVAL
                                                        : own_rows(m, rows, n_rows, &rows);
    if (rc == ST_OK)
        rc = check_target(m, target);
    if (rc != ST_OK)
        return rc;
    if (m->loss_kind == SGT_LOSS_CUSTOM)
        return ST_ESTATE;
    if (m->loss_kind == SGT_LOSS_BAG) {
        /* secure the per-row scratch for this bag and every buffered bag before any
         * state changes, so ST_ENOMEM leaves the model as it was */
        int64_t item, need = n_rows;
        for (item = 0; item < m->warm.buf_items; item++)
            if (m->warm.buf_len[item] > need)
                need = m->warm.buf_len[item];
        rc = scratch_rows(&m->s, need);
        if (rc != ST_OK)
            return rc;
    }
    if (!m->q.frozen)
        return learn_warmup(m, rows, n_rows, target);
    /* secure the memory of every split this call can make before any state changes: a
     * bag's rows attempt at most one split per tree each (sgt_model_reserve_rows); one
     * row reserves the split it makes, in sgt_model_train (reserve_row) */
    if (m->loss_kind == SGT_LOSS_BAG) {
        rc = sgt_model_reserve_rows(m, n_rows);
        if (rc != ST_OK)
            return rc;
    }
    rc = sgt_model_train(m, rows, n_rows, target);
    if (n_rows > 1 || rc != ST_OK)   /* a reservation that failed half-way is given back */
        sgt_model_release(m);
    return rc;
}

int sgt_model_learn_many(sgt_model *m, const double *X, int64_t n, const double *targets)
{
    int64_t i;
    m->done = 0;
    for (i = 0; i < n; i++) {
        int rc = sgt_model_learn(m, X + i * m->q.d, 1, targets[i]);
        if (rc != ST_OK)
            return rc;
        m->done++;
    }
    return ST_OK;
}

int sgt_model_learn_bags(sgt_model *m, const double *X, const int32_t *sizes, int64_t n_bags,
                         const double *targets, int32_t epochs)
{
    int32_t e;
    int64_t b;
    m->done = 0;
    for (e = 0; e < epochs; e++) {
        int64_t offset = 0;
        for (b = 0; b < n_bags; b++) {
            int rc = sgt_model_learn(m, X + offset * m->q.d, sizes[b], targets[b]);
            if (rc != ST_OK)
                return rc;
            m->done++;
            offset += sizes[b];
        }
    }
    return ST_OK;
}

/* test-then-train over n rows: out_raws[i * n_trees + c] = f_c(x_i) before learning x_i */
int sgt_model_progressive_many(sgt_model *m, const double *X, int64_t n, const double *targets,
                               double *out_raws)
{
    int64_t i;
    m->done = 0;
    for (i = 0; i < n; i++) {
        int rc = sgt_model_raws(m, X + i * m->q.d, out_raws + i * m->n_trees);
        if (rc == ST_OK)
            rc = sgt_model_learn(m, X + i * m->q.d, 1, targets[i]);
        if (rc != ST_OK)
            return rc;
        m->done++;
    }
    return ST_OK;
}

/* ---- the one-row calls of the facade (width checked here, the rest as above) ---- */

int sgt_model_learn_row(sgt_model *m, const double *x, int64_t n_values, double target)
{
    if (n_values != m->q.d)
        return ST_EDIM;
    return sgt_model_learn(m, x, 1, target);
}

int sgt_model_raws_row(sgt_model *m, const double *x, int64_t n_values, double *out)
{
    if (n_values != m->q.d)
        return ST_EDIM;
    return sgt_model_raws(m, x, out);
}

int sgt_model_proba_row(sgt_model *m, const double *x, int64_t n_values, double *probs,
                        int32_t *label)
{
    int rc = sgt_model_raws_row(m, x, n_values, m->s.raws);
    if (rc != ST_OK)
        return rc;
    sgt_predict_labels(m->s.raws, 1, m->n_trees, probs, label);
    return ST_OK;
}
