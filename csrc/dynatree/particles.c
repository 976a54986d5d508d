/*
 * dynatree/particles.c -- particle learning [AG13, §2.3]; mirrors reference/dynatree/particles.py.
 *
 * One PL step ([DT-SPEC §5]): weights w_i = p(y_t | x_t, T_i) from each particle's leaf,
 * lpred_t = log(sum w) - log N, residual resampling when the weights differ, then
 * dt_propagate on every particle in index order. Resampling moves particles by struct
 * copy: the first copy of a surviving particle keeps its buffers; each further copy is
 * a memcpy of the node arena into a spare arena, sharing the leaves' point sets
 * copy-on-write (so the cost is proportional to the number of duplicates and their tree
 * sizes, not to N or the data size). The dead particle's arena joins the spare pool when
 * the row's transaction commits (dynatree/txn.c), so a rollback finds it intact.
 * Random draws ([DT-SPEC §0] item 6): (a) one uniform() per residual draw, only if
 * resampling, then the step key, all from the model's generator; (b) each slot's
 * propagation from its own generator (dt_pl_step).
 */
#include <math.h>
#include <string.h>
#include "dynatree/dynatree.h"

/* the slot of an integer df in a per-df cache of cfg.lg_len doubles (NaN until filled),
 * or NULL when df is not such an integer (the caller then computes directly) */
static double *df_slot(const dt_model *m, double *cache, double df)
{
    if (!(df >= 1.0 && df < (double)m->cfg.lg_len && df == (double)(int64_t)df)) return NULL;
    return &cache[(int64_t)df];
}

/* special_student_t_logpdf(x, df), its log-beta term cached per integer df (the cache
 * holds the double special_log_beta returns for the same arguments, so the same value) */
static double weight_logpdf(dt_model *m, double x, double df)
{
    double *slot = df_slot(m, m->buf.t_lbeta, df);
    if (slot == NULL) return special_student_t_logpdf(x, df);
    if (isnan(*slot)) *slot = special_log_beta(0.5 * df, 0.5);
    return special_student_t_logpdf_lb(x, df, *slot);
}

/* the weight of particle t whose leaf of x is `leaf` (the body of particle_weight) */
static int leaf_weight(dt_model *m, const dt_particle *t, int32_t leaf, const double *x,
                       double y, double *w)
{
    const double *st = dt_leaf_stats(m, t, leaf);
    double loc, scale, df;
    if (m->cfg.kind == DT_CLASS) {
        *w = dt_class_probability(st, &m->cfg, (int)y);
        return 1;
    }
    if (!dt_regression_predictive(st, &m->cfg, x, &loc, &scale, &df, m->buf.work)) {
        *w = 0.0;
        return 0;
    }
    *w = exp(weight_logpdf(m, (y - loc) / scale, df)) / scale;
    return 1;
}

/* leaf_weight of the i-th particle at the leaf cached by dt_find_leaves, memoised in the
 * leaf's point set for this transaction: the weight is a function of the set's statistics,
 * x and y alone, and particles duplicated by resampling share most of their sets (about
 * 60 distinct sets among the 1,000 leaves of x_t on Friedman-1), so the others read the
 * double the first one computed. Nothing changes a set while the weights are taken. */
static int memo_leaf_weight(dt_model *m, int32_t i, const double *x, double y, double *w)
{
    const dt_particle *t = &m->pf.parts[i];
    dt_pointset *ps;
    int ok;
    if (!m->txn.in_txn) return leaf_weight(m, t, m->pf.leafc[i], x, y, w);
    ps = &m->pool.sets[t->nodes[m->pf.leafc[i]].set];
    if (ps->w_txn == m->txn.txn_id) {
        *w = ps->w_val;
        return ps->w_ok;
    }
    ok = leaf_weight(m, t, m->pf.leafc[i], x, y, w);
    ps->w_txn = m->txn.txn_id;
    ps->w_ok = ok;
    ps->w_val = *w;
    return ok;
}

/* mirrors particle_weight; returns 1 if the leaf predictive is proper */
int dt_particle_weight(dt_model *m, const dt_particle *t, const double *x, double y,
                       double *w, int32_t *leaf)
{
    *leaf = dt_find_leaf(t, x);
    return leaf_weight(m, t, *leaf, x, y, w);
}

/* [DT-SPEC §5.2] item 4 mirrors residual_resample; returns the number of indices (n) */
int32_t dt_residual_resample(const double *weights, int32_t n, rng_state *r, int32_t *out,
                             double *expected, double *cumulative, int32_t *counts)
{
    int32_t i, k, count = 0, rest, lo, hi, mid;
    double c = 0.0, u;
    /* expected >= 0 (normalised weights): truncation is floor, without the libm call */
    for (i = 0; i < n; i++) {
        expected[i] = (double)n * weights[i];
        counts[i] = (int32_t)expected[i];
    }
    for (i = 0; i < n; i++)
        for (k = 0; k < counts[i]; k++) out[count++] = i;
    rest = n - count;
    if (rest <= 0) return count;
    for (i = 0; i < n; i++) {
        c = c + (expected[i] - (double)counts[i]) / (double)rest;
        cumulative[i] = c;
    }
    cumulative[n - 1] = 1.0;
    /* the first i with u < cumulative[i]: the predicate is monotone (partial sums of
     * non-negative terms, then 1.0 > u), so this branch-free halving search (the answer
     * stays in [lo, lo + hi]) finds the same index as bisection; the draws are as
     * unpredictable as its branches were */
    for (k = 0; k < rest; k++) {
        u = rng_uniform(r);
        lo = 0;
        hi = n;
        while (hi > 1) {
            mid = hi / 2;
            lo = u < cumulative[lo + mid - 1] ? lo : lo + mid;
            hi -= mid;
        }
        lo += !(u < cumulative[lo]);
        out[count++] = lo;
    }
    return count;
}

/* ---- the threaded step ([DT-SPEC §8.5]) ----
 * Stream rule 2 gives each slot its own generator, so the slots of a step are independent
 * but for the state they share, which the workers handle as follows (each worker w runs on
 * a copy of the model, dt_model.wk set, whose scratch, undo log and memos are its own):
 *   - point sets: a set with several references is never changed (copy on write). During
 *     a step the stored reference counts stay those it started with: each worker adds its
 *     changes to its own deltas (tree.c wk_note), and the merge phase at the end adds them
 *     up and frees the sets left without a reference (dt_refs_merge). A propagating slot
 *     treats its leaf's set as shared if the count is above 1 or its particle has another
 *     copy in the step (thr.multi); the copy a worker makes of a set (the row's point
 *     added) is published in the source set's share word and taken by every leaf that
 *     holds the source (dt_leaf_append_shared); new sets take ids from the worker's own
 *     stack, filled before the propagations (dt_workers_balance);
 *   - memos: those a serial step keeps in shared sets (the weights', the prune's, the
 *     shared copy's) are the worker's own tables (dt_worker); the others are kept in sets
 *     the worker alone references (the leaf that received the point);
 *   - the undo log and the record of released sets: the worker's own; commit and
 *     rollback take them with the model's (dynatree/txn.c).
 * Four phases per step, each a parallel_run with a barrier: the weights (leaves found,
 * weights taken), the copies of resampling (dt_particle_replace into arenas taken in slot
 * order beforehand), the propagations, the merge of the reference counts. The slots are
 * grouped by the worker that last ran their particle (thr.home), and blocks of DT_BLOCK
 * slots are claimed by the workers as they go (which worker runs a slot changes no
 * number: a memo holds the doubles a miss computes). The sums over particles, the draws
 * of resampling and the step key stay on the calling thread, in slot order. */
enum { DT_SLOTS_PER_THREAD = 32, DT_BLOCK = 64 };
enum { DT_PHASE_WEIGHTS = 0, DT_PHASE_COPIES = 1, DT_PHASE_PROPAGATE = 2, DT_PHASE_MERGE = 3 };

static void worker_free(dt_worker *wk)
{
    alloc_free(wk->buf.ibuf);
    alloc_free(wk->buf.ibuf2);
    alloc_free(wk->buf.stack);
    alloc_free(wk->buf.vbuf);
    alloc_free(wk->buf.sbuf);
    alloc_free(wk->buf.work);
    alloc_free(wk->buf.t05);
    alloc_free(wk->buf.t_lbeta);
    alloc_free(wk->log);
    alloc_free(wk->grow_memo);
    alloc_free(wk->wmemo);
    alloc_free(wk->pmemo);
    alloc_free(wk->kmemo);
    alloc_free(wk->refd);
    alloc_free(wk->touched);
    alloc_free(wk->freed);
    alloc_free(wk->free_ids);
    memset(wk, 0, sizeof(*wk));
}

void dt_threads_free(dt_model *m)
{
    int32_t w, n_threads = m->thr.n_threads;
    for (w = 0; w < m->thr.n_wk; w++) worker_free(&m->thr.wk[w]);
    alloc_free(m->thr.wk);
    alloc_free(m->thr.wms);
    alloc_free(m->thr.claim);
    alloc_free(m->thr.home);
    alloc_free(m->thr.order);
    alloc_free(m->thr.start);
    alloc_free((void *)m->thr.gone);
    alloc_free(m->thr.gone_n);
    alloc_free(m->thr.multi);
    memset(&m->thr, 0, sizeof(m->thr));
    m->thr.n_threads = n_threads;
}

/* n_jobs resolved (>= 1): the threads of every later learning step */
int dt_model_set_threads(dt_model *m, int32_t n_threads)
{
    if (n_threads < 1) return ST_EINVAL;
    m->thr.n_threads = n_threads;
    return ST_OK;
}

/* the workers of a step: min(n_threads, N / DT_SLOTS_PER_THREAD), at least 1 (fewer
 * slots per thread cost more to hand out than they take) */
int32_t dt_step_threads(const dt_model *m)
{
    int32_t nw = m->thr.n_threads, most = m->par.n_particles / DT_SLOTS_PER_THREAD;
    if (m->wk != NULL) return 1;
    if (nw > most) nw = most;
    return nw < 1 ? 1 : nw;
}

/* the free point-set ids learning thread w holds (a test hook), -1 if there is no such
 * thread */
int32_t dt_threads_held_ids(const dt_model *m, int32_t w)
{
    return w >= 0 && w < m->thr.n_wk ? m->thr.wk[w].n_free : -1;
}

/* point-set ids the workers of a step hold beyond those it uses (dt_sets_reserve): each
 * worker's stack of free ids is brought to at least 3 N before a propagation
 * (dt_workers_balance) */
int64_t dt_threads_extra_sets(const dt_model *m)
{
    int32_t nw = dt_step_threads(m);
    return nw > 1 ? (int64_t)nw * 3 * m->par.n_particles : 0;
}

/* *p reallocated to n ints (contents kept); ST_ENOMEM leaves *p as it was */
static int grow_ints(int32_t **p, int32_t n)
{
    int32_t *q = alloc_realloc(*p, sizeof(int32_t) * (size_t)n);
    if (!q) return ST_ENOMEM;
    *p = q;
    return ST_OK;
}

/* a worker's scratch at the model's capacities (the sizes of the model's own) */
static int worker_scratch(dt_model *m, dt_worker *wk)
{
    size_t cap = (size_t)m->store.cap, p = (size_t)m->cfg.p, lg = (size_t)m->cfg.lg_len, k;
    dt_scratch *b = &wk->buf;
    b->ibuf = alloc_realloc(b->ibuf, sizeof(int32_t) * (cap + 1));
    if (!b->ibuf) return ST_ENOMEM;
    b->ibuf2 = alloc_realloc(b->ibuf2, sizeof(int32_t) * 3 * (cap + 1));
    if (!b->ibuf2) return ST_ENOMEM;
    b->stack = alloc_realloc(b->stack, sizeof(int32_t) * 2 * (size_t)m->pf.cap_nodes);
    if (!b->stack) return ST_ENOMEM;
    b->vbuf = alloc_realloc(b->vbuf, sizeof(double) * (cap + 2 * (size_t)m->par.minp + 1));
    if (!b->vbuf) return ST_ENOMEM;
    b->t05 = alloc_realloc(b->t05, sizeof(double) * (lg + 1));
    if (!b->t05) return ST_ENOMEM;
    b->t_lbeta = alloc_realloc(b->t_lbeta, sizeof(double) * (lg + 1));
    if (!b->t_lbeta) return ST_ENOMEM;
    for (k = 0; k <= lg; k++) b->t05[k] = b->t_lbeta[k] = NAN;
    b->sbuf = alloc_realloc(b->sbuf, sizeof(double) * 3 * (size_t)m->cfg.sw);
    if (!b->sbuf) return ST_ENOMEM;
    b->work = alloc_realloc(b->work, sizeof(double) * (2 * p * p + 2 * p + 8));
    if (wk->grow_memo == NULL) wk->grow_memo = alloc_calloc(DT_GROW_MEMO, sizeof(dt_grow_memo));
    if (wk->wmemo == NULL) wk->wmemo = alloc_calloc(DT_WK_MEMO, sizeof(dt_wk_weight));
    if (wk->pmemo == NULL) wk->pmemo = alloc_calloc(DT_WK_MEMO, sizeof(dt_wk_prune));
    if (wk->kmemo == NULL) wk->kmemo = alloc_calloc(DT_WK_MEMO, sizeof(dt_wk_kth));
    if (!b->sbuf || !b->work || !wk->grow_memo || !wk->wmemo || !wk->pmemo || !wk->kmemo)
        return ST_ENOMEM;
    if (wk->delta_cap < m->pool.cap_sets) { /* refd all 0 between steps */
        size_t more = (size_t)(m->pool.cap_sets - wk->delta_cap);
        dt_wk_ref *refd = alloc_realloc(wk->refd, sizeof(dt_wk_ref) * (size_t)m->pool.cap_sets);
        if (!refd) return ST_ENOMEM;
        memset(refd + wk->delta_cap, 0, sizeof(dt_wk_ref) * more);
        wk->refd = refd;
        if (grow_ints(&wk->touched, m->pool.cap_sets) != ST_OK ||
            grow_ints(&wk->freed, m->pool.cap_sets) != ST_OK ||
            grow_ints(&wk->free_ids, m->pool.cap_sets) != ST_OK)
            return ST_ENOMEM;
        wk->freed_cap = m->pool.cap_sets;
        wk->delta_cap = m->pool.cap_sets;
    }
    return ST_OK;
}

/* nw workers at the model's capacities and room for the copies' records; ST_ENOMEM: the
 * step runs serially (nothing of the model changed) */
static int threads_reserve(dt_model *m, int32_t nw)
{
    int32_t w, n = m->par.n_particles;
    int resize = m->thr.wk_cap != m->store.cap || m->thr.wk_nodes != m->pf.cap_nodes ||
                 m->thr.wk_lg != m->cfg.lg_len || m->thr.wk_sw != m->cfg.sw ||
                 (m->thr.n_wk > 0 && m->thr.wk[0].delta_cap < m->pool.cap_sets);
    if (m->thr.n_gone < n) {
        const dt_node **g = alloc_realloc((void *)m->thr.gone, sizeof(dt_node *) * (size_t)n);
        if (!g) return ST_ENOMEM;
        m->thr.gone = g;
        if (grow_ints(&m->thr.gone_n, n) != ST_OK || grow_ints(&m->thr.home, n) != ST_OK ||
            grow_ints(&m->thr.order, n) != ST_OK || grow_ints(&m->thr.multi, n) != ST_OK)
            return ST_ENOMEM;
        m->thr.home_nw = 0; /* homes made afresh */
        m->thr.n_gone = n;
    }

    if (m->thr.n_wk < nw) {
        dt_worker *wk = alloc_realloc(m->thr.wk, sizeof(dt_worker) * (size_t)nw);
        void *wms;
        if (!wk) return ST_ENOMEM;
        memset(wk + m->thr.n_wk, 0, sizeof(dt_worker) * (size_t)(nw - m->thr.n_wk));
        m->thr.wk = wk;
        wms = alloc_realloc(m->thr.wms, sizeof(dt_model) * (size_t)nw);
        if (!wms) return ST_ENOMEM;
        m->thr.wms = wms;
        wms = alloc_realloc(m->thr.claim, sizeof(dt_claim) * (size_t)nw);
        if (!wms) return ST_ENOMEM;
        m->thr.claim = wms;
        if (grow_ints(&m->thr.start, nw + 1) != ST_OK) return ST_ENOMEM;
        for (w = m->thr.n_wk; w < nw; w++) {
            m->thr.n_wk = w + 1; /* freed with the model even if incomplete */
            if (worker_scratch(m, &wk[w]) != ST_OK) return ST_ENOMEM;
        }
    }
    for (w = 0; resize && w < m->thr.n_wk; w++) {
        m->thr.wk_cap = -1; /* sizes unknown until every worker is resized */
        if (worker_scratch(m, &m->thr.wk[w]) != ST_OK) return ST_ENOMEM;
    }
    m->thr.wk_cap = m->store.cap;
    m->thr.wk_nodes = m->pf.cap_nodes;
    m->thr.wk_lg = m->cfg.lg_len;
    m->thr.wk_sw = m->cfg.sw; /* a class added in place widens the blocks */
    if (m->thr.home_nw != nw) { /* contiguous ranges to start with */
        for (w = 0; w < n; w++) m->thr.home[w] = (int32_t)((int64_t)w * nw / n);
        m->thr.home_nw = nw;
        m->thr.grouped = 0;
    }
    return ST_OK;
}

/* room for bytes more records in the log of each of the nw workers */
static int workers_log_room(dt_model *m, int64_t bytes, int32_t nw)
{
    int32_t w;
    dt_model *wm = m->thr.wms;
    for (w = 0; w < nw; w++) {
        wm[w] = *m;
        wm[w].txn.log = m->thr.wk[w].log;
        wm[w].txn.log_len = m->thr.wk[w].log_len;
        wm[w].txn.log_cap = m->thr.wk[w].log_cap;
        if (dt_log_room(&wm[w], bytes) != ST_OK) return ST_ENOMEM;
        m->thr.wk[w].log = wm[w].txn.log;
        m->thr.wk[w].log_cap = wm[w].txn.log_cap;
    }
    return ST_OK;
}

/* the weight of particle i (leaf leafc[i]) in a worker: memo_leaf_weight with the
 * worker's memo (the sets are shared between workers) */
static int worker_leaf_weight(dt_model *m, int32_t i, const double *x, double y, double *w)
{
    const dt_particle *t = &m->pf.parts[i];
    int32_t set = t->nodes[m->pf.leafc[i]].set, ok;
    uint32_t h = (uint32_t)set * 2654435761u;
    dt_wk_weight *e = &m->wk->wmemo[(h ^ (h >> 15)) & (DT_WK_MEMO - 1)];
    if (e->txn == m->txn.txn_id && e->set == set) {
        *w = e->val;
        return e->ok;
    }
    ok = leaf_weight(m, t, m->pf.leafc[i], x, y, w);
    e->txn = m->txn.txn_id;
    e->set = set;
    e->ok = ok;
    e->val = *w;
    return ok;
}

typedef struct {
    dt_model *m;        /* the model (read by the workers through their copies) */
    int32_t phase;      /* DT_PHASE_* */
    int32_t index;      /* propagate: the store row of the point */
    int32_t leafc_ok;   /* propagate: leafc holds the slots' leaves of x */
    int32_t block;      /* items per block */
    int32_t nw;         /* workers */
    const double *x;    /* weights: x_t, y_t */
    double y;
    uint64_t key;       /* propagate: the step key */
} step_job;

/* the slots slots[lo..hi) of one phase, on worker w's copy wm of the model (w becomes
 * their home) */
static void phase_block(dt_model *wm, step_job *job, const int32_t *slots, int32_t lo,
                        int32_t hi, int32_t w)
{
    int32_t a, i;
    rng_state r;
    for (a = lo; a < hi; a++) wm->thr.home[slots[a]] = w;
    if (job->phase == DT_PHASE_WEIGHTS) {
        dt_find_leaves_at(wm, job->x, slots, lo, hi, wm->pf.leafc);
        for (a = lo; a < hi; a++)
            wm->wk->any_proper |= worker_leaf_weight(wm, slots[a], job->x, job->y,
                                                     &wm->pf.w[slots[a]]);
        return;
    }
    if (job->phase == DT_PHASE_COPIES) {
        for (a = lo; a < hi; a++) {
            i = slots[a];
            if (wm->thr.gone[i] != NULL)
                dt_particle_replace(wm, &wm->pf.tmp[i], wm->thr.gone[i], wm->thr.gone_n[i],
                                    &wm->pf.parts[wm->pf.chosen[i]]);
        }
        return;
    }
    for (a = lo; a < hi && !wm->txn.broken; a++) {
        i = slots[a];
        if (dt_log_room(wm, dt_log_bound(wm, &wm->pf.parts[i], 0)) != ST_OK) {
            wm->txn.broken = 1;
            break;
        }
        rng_seed(&r, rng_stream_seed(job->key, (uint64_t)i));
        wm->wk->shared = wm->thr.resampled && wm->thr.multi[i];
        dt_propagate(wm, &wm->pf.parts[i], job->index, job->leafc_ok ? wm->pf.leafc[i] : -1, &r);
    }
}

/* worker w's copy of the model, made on its own thread (the model is only read during a
 * phase, so the copy reads lines its core already holds), with its own scratch, log and
 * memos */
static void worker_enter(dt_model *wm, const dt_model *m, dt_worker *wk)
{
    *wm = *m;
    wm->buf = wk->buf;
    wm->txn.log = wk->log;
    wm->txn.log_len = wk->log_len;
    wm->txn.log_cap = wk->log_cap;
    wm->txn.freed = wk->freed;
    wm->txn.n_freed = wk->n_freed;
    wm->txn.freed_cap = wk->freed_cap;
    wm->txn.broken = 0;
    wm->pool.grow_memo = wk->grow_memo;
    wm->wk = wk;
    wk->any_proper = 0;
}

/* the worker's log back in its record (it may have grown); failures for the caller */
static void worker_leave(dt_model *wm, dt_worker *wk)
{
    wk->log = wm->txn.log;
    wk->log_len = wm->txn.log_len;
    wk->log_cap = wm->txn.log_cap;
    wk->n_freed = wm->txn.n_freed;
    wk->broken = wm->txn.broken;
    wk->lost = wm->txn.lost;
}

/* worker w's part of a phase. The slots are grouped by home worker (order, start: the
 * worker whose core last processed the slot's particle, or its source's before a
 * resampling copy, so that its tree and point sets are in that core's cache); a worker
 * claims blocks of its own group, then of the others' (load balance), until none is left
 * or an allocation failed. A group's counter has a cache line of its own */
static void phase_part(void *arg, int w)
{
    step_job *job = arg;
    const dt_threads *thr = &job->m->thr;
    dt_model *wm = (dt_model *)thr->wms + w;
    int32_t size = job->block, nw = job->nw, k, r, b, lo, hi, at;
    worker_enter(wm, job->m, &thr->wk[w]);
    if (job->phase == DT_PHASE_MERGE) { /* the point-set ids cut into nw ranges */
        dt_refs_merge(wm, thr->wk, nw, (int32_t)((int64_t)job->m->pool.n_sets * w / nw),
                      (int32_t)((int64_t)job->m->pool.n_sets * (w + 1) / nw));
        worker_leave(wm, &thr->wk[w]);
        return;
    }
    for (k = 0; k < nw && !wm->txn.broken; k++) {
        r = (w + k) % nw;
        lo = thr->start[r];
        hi = thr->start[r + 1];
        while (!wm->txn.broken) {
            b = par_add(&thr->claim[r].next, 1) - 1;
            at = lo + b * size;
            if ((int64_t)lo + (int64_t)b * size >= hi) break;
            phase_block(wm, job, thr->order, at, at + size < hi ? at + size : hi, w);
        }
    }
    worker_leave(wm, &thr->wk[w]);
}

/* the particles items[0..n) (NULL: 0..n-1) grouped by home worker into thr.order, group
 * w from thr.start[w] (a counting sort, item order within a group) */
static void group_by_home(dt_model *m, const int32_t *items, int32_t n, int32_t nw)
{
    int32_t k, w, i, *start = m->thr.start;
    for (w = 0; w <= nw; w++) start[w] = 0;
    for (k = 0; k < n; k++) start[m->thr.home[items != NULL ? items[k] : k] + 1]++;
    for (w = 0; w < nw; w++) start[w + 1] += start[w];
    for (k = 0; k < n; k++) {
        i = items != NULL ? items[k] : k;
        m->thr.order[start[m->thr.home[i]]++] = i;
    }
    for (w = nw; w > 0; w--) start[w] = start[w - 1];
    start[0] = 0;
}

/* one phase on nw workers (each makes its copy of the model: worker_enter); their
 * failures are taken back after. Returns the weights' any_proper (other phases: 0) */
static int run_phase(dt_model *m, int32_t phase, const double *x, double y, int32_t index,
                     uint64_t key, int32_t nw)
{
    step_job job = {m, phase, index, m->pf.leafc_ok, DT_BLOCK, nw,
                    x, y, key};
    dt_worker *wk;
    int32_t w;
    int any = 0;
    for (w = 0; w < nw; w++) m->thr.claim[w].next = 0;
    if (phase != DT_PHASE_MERGE && !m->thr.grouped) { /* homes moved with resampling */
        group_by_home(m, NULL, m->par.n_particles, nw);
        m->thr.grouped = 1;
    }
    parallel_run(nw, phase_part, &job);
    for (w = 0; phase == DT_PHASE_MERGE && w < nw; w++) m->thr.wk[w].n_touched = 0;
    for (w = 0; w < nw; w++) {
        wk = &m->thr.wk[w];
        m->txn.broken |= wk->broken;
        m->txn.lost |= wk->lost;
        any |= wk->any_proper;
    }
    return any;
}

/* the weights of the step's particles (w) and their leaves of x (leafc), on nw workers
 * when nw > 1; returns 1 if some leaf predictive is proper */
static int step_weights(dt_model *m, const double *x, double y, int32_t nw)
{
    int32_t i;
    int any_proper = 0;
    if (nw > 1) return run_phase(m, DT_PHASE_WEIGHTS, x, y, 0, 0, nw);
    dt_find_leaves(m, x, m->pf.leafc); /* the leaves of dt_particle_weight, all at once */
    for (i = 0; i < m->par.n_particles; i++) any_proper |= memo_leaf_weight(m, i, x, y, &m->pf.w[i]);
    return any_proper;
}

/* the dead particles grouped by home (group_by_home), a cursor per group in
 * thr.claim[w].next (run_phase makes order, start and the cursors afresh after) */
static void group_dead(dt_model *m, const int32_t *dead, int32_t n_dead, int32_t nw)
{
    int32_t w;
    group_by_home(m, dead, n_dead, nw);
    m->thr.grouped = 0; /* order and start are the dead particles' now */
    for (w = 0; w < nw; w++) m->thr.claim[w].next = m->thr.start[w];
}

/* the dead particle a further copy of a particle of home h replaces: one of home h while
 * any is left (its arena is in the cache of the core that makes the copy), else one of
 * the next home that has one. Which dead particle a copy replaces changes no number: the
 * copy overwrites its header and nodes (the serial step takes them in index order) */
static int32_t take_dead(dt_model *m, int32_t h, int32_t nw)
{
    int32_t k, w;
    for (k = 0; k < nw; k++) {
        w = (h + k) % nw;
        if (m->thr.claim[w].next < m->thr.start[w + 1]) return m->thr.order[m->thr.claim[w].next++];
    }
    return -1; /* not reached: one dead particle per further copy */
}

/* resampling's moves: slot j takes particle chosen[j]; the first copy of a particle keeps
 * its buffers, each further one replaces a dead particle (dead[0..]) in a spare arena
 * (dt_particle_replace: on nw workers when nw > 1, the arenas taken here, in slot order) */
static void place_copies(dt_model *m, const int32_t *dead, int32_t n_dead_all, int32_t nw)
{
    int32_t n = m->par.n_particles, i, j, n_dead = 0, *placed = m->pf.flags;
    const dt_node *gone;
    if (nw > 1) group_dead(m, dead, n_dead_all, nw);
    for (i = 0; i < n; i++) placed[i] = 0;
    for (j = 0; j < n; j++) {
        i = m->pf.chosen[j];
        if (nw > 1) m->thr.gone[j] = NULL;
        if (!placed[i]) {
            placed[i] = 1;
            m->pf.tmp[j] = m->pf.parts[i];
            continue;
        }
        m->pf.tmp[j] = m->pf.parts[nw > 1 ? take_dead(m, m->thr.home[i], nw) : dead[n_dead++]];
        gone = m->pf.tmp[j].nodes;
        m->pf.tmp[j].nodes = dt_spare_take(m, m->pf.tmp[j].nodes);
        if (nw > 1) {
            m->thr.gone[j] = gone;
            m->thr.gone_n[j] = m->pf.tmp[j].n_nodes;
        } else {
            dt_particle_replace(m, &m->pf.tmp[j], gone, m->pf.tmp[j].n_nodes, &m->pf.parts[i]);
        }
    }
    if (nw > 1) { /* the copies (their reference counts are merged after the propagation) */
        for (j = 0; j < n; j++) placed[j] = m->thr.home[m->pf.chosen[j]]; /* homes follow */
        memcpy(m->thr.home, placed, sizeof(int32_t) * (size_t)n);
        m->thr.grouped = 0;
        m->thr.dirty = 1;
        run_phase(m, DT_PHASE_COPIES, NULL, 0.0, 0, 0, nw);
    }
}

/* [DT-SPEC §5.2] resample on nw workers (1: this thread); returns lpred */
static double resample_on(dt_model *m, const double *x, double y, int32_t nw)
{
    int32_t n = m->par.n_particles, i, j, n_dead = 0;
    int any_proper, equal = 1;
    double *w = m->pf.w, *wn = m->pf.w + n, *expected = m->pf.w + 2 * n, *cum = m->pf.w + 3 * n;
    double total = 0.0, lpred, s2 = 0.0, inv_n;
    int32_t *counts = m->pf.flags, *dead = m->pf.flags + n;
    m->pf.leafc_ok = 0;
    if (n == 1) return 0.0;
    any_proper = step_weights(m, x, y, nw);
    m->pf.leafc_ok = 1;
    if (!any_proper) return 0.0;
    for (i = 0; i < n; i++) total = total + w[i];
    lpred = special_log_or_neg_inf(total) - log((double)n);
    if (!(total > 0.0 && isfinite(total))) return lpred;
    for (i = 0; i < n; i++) {
        if (w[i] != w[0]) {
            equal = 0;
            break;
        }
    }
    if (equal) return lpred;
    for (i = 0; i < n; i++) wn[i] = w[i] / total;
    for (i = 0; i < n; i++) s2 = s2 + wn[i] * wn[i];
    inv_n = 1.0 / (double)n;
    if (!(s2 * inv_n - inv_n * inv_n > 0.0)) return lpred;
    dt_residual_resample(wn, n, &m->rng, m->pf.chosen, expected, cum, counts);
    /* counts[i] := number of copies of i; dead := particles with no copy */
    for (i = 0; i < n; i++) counts[i] = 0;
    for (j = 0; j < n; j++) counts[m->pf.chosen[j]]++;
    for (i = 0; i < n; i++)
        if (counts[i] == 0) dead[n_dead++] = i;
    if (nw > 1) { /* a slot whose particle has several copies holds shared sets */
        for (j = 0; j < n; j++) m->thr.multi[j] = counts[m->pf.chosen[j]] > 1;
        m->thr.resampled = 1;
    }
    /* undo-log room for the sets the dead particles release, and one spare arena per
     * copy: a dead particle's arena is kept intact until the row commits (dynatree/txn.c) */
    {
        int64_t room = 0;
        for (j = 0; j < n_dead; j++) room += dt_log_bound(m, &m->pf.parts[dead[j]], 0);
        if (dt_log_room(m, room) != ST_OK || dt_spare_reserve(m, n_dead) != ST_OK ||
            (nw > 1 && workers_log_room(m, room, nw) != ST_OK)) {
            m->txn.broken = 1;
            return lpred;
        }
    }
    place_copies(m, dead, n_dead, nw);
    if (m->txn.broken) return lpred;
    memcpy(m->pf.parts, m->pf.tmp, sizeof(dt_particle) * (size_t)n);
    /* copies keep arena indices, so the cached leaves follow their particles */
    for (j = 0; j < n; j++) m->pf.leafc[n + j] = m->pf.leafc[m->pf.chosen[j]];
    memcpy(m->pf.leafc, m->pf.leafc + n, sizeof(int32_t) * (size_t)n);
    return lpred;
}

/* [DT-SPEC §5.2] mirrors resample; returns lpred */
double dt_resample(dt_model *m, const double *x, double y)
{
    return resample_on(m, x, y, 1);
}

/* [DT-SPEC §5] mirrors pl_step: resampling from the model's generator, then the step key
 * (one rng_next_u64), then slot k propagated with its own generator seeded by
 * rng_stream_seed(key, k) ([DT-SPEC §0] item 6, stream rule 2). With n_jobs threads
 * (dt_model_set_threads) the weights, the copies and the propagations run on workers
 * (dt_step_threads): the same draws and operations per slot, so the same result */
double dt_pl_step(dt_model *m, int32_t index)
{
    int32_t i, used, nw = dt_step_threads(m);
    uint64_t key;
    rng_state r;
    double lpred;
    if (!m->txn.in_txn) nw = 1; /* the workers' records join the row's transaction */
    if (nw > 1 && threads_reserve(m, nw) != ST_OK) nw = 1; /* serially: the same result */
    used = nw > 1 ? nw : 0;
    if (m->thr.n_wk > used) /* the ids of the workers this step leaves idle */
        dt_workers_balance(m, m->thr.wk + used, m->thr.n_wk - used, 0);
    if (nw > 1) m->thr.resampled = 0;
    lpred = resample_on(m, m->store.X + (int64_t)index * m->par.d, m->store.y[index], nw);
    if (nw > 1) { /* each worker holds ids for every set it could create (3 per slot) */
        if (!m->txn.broken) {
            key = rng_next_u64(&m->rng);
            if (dt_workers_balance(m, m->thr.wk, nw, 3 * m->par.n_particles) != ST_OK)
                m->txn.broken = 1;
            else
                m->thr.dirty = 1;
            if (!m->txn.broken) run_phase(m, DT_PHASE_PROPAGATE, NULL, 0.0, index, key, nw);
        }
        if (m->thr.dirty) run_phase(m, DT_PHASE_MERGE, NULL, 0.0, 0, 0, nw); /* even broken */
        m->thr.dirty = 0;
        return lpred;
    }
    if (m->txn.broken) return lpred;
    key = rng_next_u64(&m->rng);
    for (i = 0; i < m->par.n_particles && !m->txn.broken; i++) {
        if (dt_log_room(m, dt_log_bound(m, &m->pf.parts[i], 0)) != ST_OK) {
            m->txn.broken = 1;
            break;
        }
        rng_seed(&r, rng_stream_seed(key, (uint64_t)i));
        dt_propagate(m, &m->pf.parts[i], index, m->pf.leafc_ok ? m->pf.leafc[i] : -1, &r);
    }
    return lpred;
}

/* special_student_t_ppf(0.05, df), cached per integer df (the cache returns the double the
 * call returned: the same value, without its root search on every particle) */
static double student_t05(dt_model *m, double df)
{
    double *slot = df_slot(m, m->buf.t05, df);
    if (slot == NULL) return special_student_t_ppf(0.05, df);
    if (isnan(*slot)) *slot = special_student_t_ppf(0.05, df);
    return *slot;
}

/* [DT-SPEC §8.1] mirrors regression_summaries; out = (mean, var, q05, q95, df) */
void dt_regression_summaries(dt_model *m, const double *x, double *out)
{
    double n = (double)m->par.n_particles, s_mu = 0.0, s_mu2 = 0.0, s_var = 0.0, s_q1 = 0.0;
    double s_q2 = 0.0, s_df = 0.0, loc, scale, df, t05, mean, vmean;
    const double *st;
    int32_t i;
    for (i = 0; i < m->par.n_particles; i++) {
        st = dt_leaf_stats(m, &m->pf.parts[i], dt_find_leaf(&m->pf.parts[i], x));
        if (dt_regression_predictive(st, &m->cfg, x, &loc, &scale, &df, m->buf.work)) {
            s_mu = s_mu + loc;
            s_mu2 = s_mu2 + loc * loc;
            s_df = s_df + df;
            if (df > 2.0)
                s_var = s_var + scale * scale * df / (df - 2.0);
            else
                s_var = INFINITY;
            t05 = student_t05(m, df);
            s_q1 = s_q1 + (loc + scale * t05);
            s_q2 = s_q2 + (loc - scale * t05);
        } else {
            s_mu = s_mu + loc;
            s_mu2 = s_mu2 + loc * loc;
            s_df = s_df + df;
            s_var = INFINITY;
            s_q1 = -INFINITY;
            s_q2 = INFINITY;
        }
    }
    mean = s_mu / n;
    vmean = s_mu2 / n - mean * mean;
    if (vmean < 0.0) vmean = 0.0;
    out[0] = mean;
    out[1] = s_var / n + vmean;
    out[2] = s_q1 / n;
    out[3] = s_q2 / n;
    out[4] = s_df / n;
}

/* [DT-SPEC §8.1] mirrors regression_mean: out[0] of dt_regression_summaries alone, the
 * same sum of the particles' locations in the same order (so the same bits), without the
 * per-particle Student-t quantile that dominates the summaries' cost */
double dt_regression_mean(dt_model *m, const double *x)
{
    double s_mu = 0.0, loc, scale, df;
    int32_t i;
    for (i = 0; i < m->par.n_particles; i++) {
        const double *st = dt_leaf_stats(m, &m->pf.parts[i], dt_find_leaf(&m->pf.parts[i], x));
        dt_regression_predictive(st, &m->cfg, x, &loc, &scale, &df, m->buf.work);
        s_mu = s_mu + loc;
    }
    return s_mu / (double)m->par.n_particles;
}

/* [DT-SPEC §8.2] mirrors class_summaries */
void dt_class_summaries(dt_model *m, const double *x, double *probs, double *entropy)
{
    double n = (double)m->par.n_particles, ent = 0.0, h, pk;
    const double *st;
    int32_t i;
    int k;
    for (k = 0; k < m->cfg.n_classes; k++) probs[k] = 0.0;
    for (i = 0; i < m->par.n_particles; i++) {
        st = dt_leaf_stats(m, &m->pf.parts[i], dt_find_leaf(&m->pf.parts[i], x));
        h = 0.0;
        for (k = 0; k < m->cfg.n_classes; k++) {
            pk = dt_class_probability(st, &m->cfg, k);
            probs[k] = probs[k] + pk;
            h = h - pk * log(pk);
        }
        ent = ent + h;
    }
    for (k = 0; k < m->cfg.n_classes; k++) probs[k] = probs[k] / n;
    *entropy = ent / n;
}

/* ---- batch predictions by per-set records ([DT-SPEC §8.4]) ----
 * Every leaf holding a point set has the same statistics, so the row-independent part of
 * its predictive is one record per set, computed once (dt_model_predict_prepare) and read
 * by every row and every particle whose leaf holds the set; the rows descend the forest of
 * dt_forest_build (equal subtrees of the particles' trees stored once, in cache for the
 * whole call), each node resolved once per row. Each row's sums run over the particles in
 * index order: the same operations, in the same order, on the same doubles as
 * dt_regression_summaries, dt_regression_mean and dt_class_summaries.
 * Regression record (DT_PR_W doubles): [0] mu0, [1] Q, [2] df, [3] h0 = delta/(n + nu),
 * [4] T^-1_df(0.05) (proper leaves), [5] flags (DT_PR_*), then the particle's terms of the
 * summaries (summary_terms) when they do not depend on the row (no linear terms).
 * Class record (C + 1 doubles): p(k) for each class, then the leaf entropy. */
enum { DT_PR_PROPER = 1, DT_PR_LINEAR = 2, DT_PR_SLOPE = 4 };
enum { DT_PR_W = 12, DT_PR_TERMS = 6 };

/* the particle's terms of the summaries from its location loc and leverage h:
 * terms = (loc, var term, q05 term, q95 term, df, kind); kind 0 adds every term, kind 1
 * (df <= 2) makes the variance infinite, kind 2 (improper) the variance and quantiles */
static void summary_terms(const double *rec, double loc, double h, double *terms)
{
    double q = rec[1], df = rec[2], scale;
    terms[0] = loc;
    terms[4] = df;
    if (!((int)rec[5] & DT_PR_PROPER)) {
        terms[5] = 2.0;
        return;
    }
    scale = sqrt(q * (1.0 + h) / df);
    terms[5] = df > 2.0 ? 0.0 : 1.0;
    if (df > 2.0) terms[1] = scale * scale * df / (df - 2.0);
    terms[2] = loc + scale * rec[4];
    terms[3] = loc - scale * rec[4];
}

/* the sums of dt_regression_summaries: acc = (s_mu, s_mu2, s_var, s_q1, s_q2, s_df) */
static void add_terms(double *acc, const double *terms)
{
    double loc = terms[0];
    acc[0] = acc[0] + loc;
    acc[1] = acc[1] + loc * loc;
    acc[5] = acc[5] + terms[4];
    if (terms[5] == 2.0) {
        acc[2] = INFINITY;
        acc[3] = -INFINITY;
        acc[4] = INFINITY;
        return;
    }
    if (terms[5] == 0.0)
        acc[2] = acc[2] + terms[1];
    else
        acc[2] = INFINITY;
    acc[3] = acc[3] + terms[2];
    acc[4] = acc[4] + terms[3];
}

/* the record of a regression leaf with statistics st (see above) */
static void regression_record(dt_model *m, const double *st, double *rec)
{
    double mu0, q, qp, df, dm, tot = st[DT_OFF_N] + st[DT_OFF_NU], h = 0.0;
    int flags = 0;
    dt_regression_summary(st, &m->cfg, &mu0, &q, &qp, &df, &dm);
    if (m->cfg.delta == 1 && tot > 0.0) h = 1.0 / tot;
    if (dt_linear_in_use(st, &m->cfg)) {
        flags |= DT_PR_LINEAR;
        if (st[DT_OFF_BB] > 0.0) flags |= DT_PR_SLOPE;
    }
    rec[4] = 0.0;
    if (q > 0.0 && df > 0.0) {
        flags |= DT_PR_PROPER;
        rec[4] = student_t05(m, df);
    }
    rec[0] = mu0;
    rec[1] = q;
    rec[2] = df;
    rec[3] = h;
    rec[5] = (double)flags;
    if (!(flags & DT_PR_LINEAR)) summary_terms(rec, mu0, h, rec + DT_PR_W - DT_PR_TERMS);
}

/* room for the records of n sets */
static int reserve_records(dt_model *m, int32_t n, int w)
{
    int64_t need = (int64_t)w * (n > 0 ? n : 1);
    double *t;
    if (need <= m->pred.cap) return ST_OK;
    t = alloc_realloc(m->pred.tab, sizeof(double) * (size_t)need);
    if (!t) return ST_ENOMEM;
    m->pred.tab = t;
    t = alloc_realloc(m->pred.loc, sizeof(double) * (size_t)(n > 0 ? n : 1));
    if (!t) return ST_ENOMEM;
    m->pred.loc = t;
    m->pred.cap = need;
    return ST_OK;
}

int dt_model_predict_prepare(dt_model *m)
{
    int32_t s, n = m->pool.n_sets;
    int k, w = m->cfg.kind == DT_CLASS ? m->cfg.n_classes + 1 : DT_PR_W;
    double *rec;
    const double *st;
    if (m->txn.lost) return ST_ESTATE;
    if (m->pred.ok) return ST_OK;
    if (reserve_records(m, n, w) != ST_OK || dt_forest_build(m, &m->pred.f, NULL, NULL, 0) != ST_OK)
        return ST_ENOMEM;
    for (s = 0; s < n; s++) {
        if (m->pool.refs[s] <= 0) continue; /* a free slot: no leaf holds it */
        st = m->pool.set_stats + (int64_t)s * m->cfg.sw;
        rec = m->pred.tab + (int64_t)s * w;
        if (m->cfg.kind != DT_CLASS) {
            regression_record(m, st, rec);
            m->pred.loc[s] = rec[0];
            continue;
        }
        rec[m->cfg.n_classes] = dt_leaf_entropy(st, &m->cfg);
        for (k = 0; k < m->cfg.n_classes; k++) rec[k] = dt_class_probability(st, &m->cfg, k);
    }
    m->pred.width = w;
    m->pred.n_sets = n;
    m->pred.ok = 1;
    return ST_OK;
}

/* the scratch of one *_rows call (its own: calls on disjoint rows may run at once):
 * the stamps and sets of the forest's nodes for the current row (dt_forest_set), a path,
 * and per set a stamp and the row's values that depend on the row (linear leaves) */
typedef struct {
    int32_t *stamp, *memo, *path, *sstamp;
    double *sval, *work;
} rows_scratch;

static void scratch_free(rows_scratch *w)
{
    alloc_free(w->stamp);
    alloc_free(w->memo);
    alloc_free(w->path);
    alloc_free(w->sstamp);
    alloc_free(w->sval);
    alloc_free(w->work);
}

/* ST_OK, or ST_ESTATE if the records are not current for a prediction of this kind
 * (class or not), or ST_ENOMEM if the scratch cannot be allocated */
static int scratch_new(const dt_model *m, int want_class, rows_scratch *w)
{
    int32_t k, nd = m->pred.f.n_dag > 0 ? m->pred.f.n_dag : 1;
    int32_t ns = m->pred.n_sets > 0 ? m->pred.n_sets : 1;
    *w = (rows_scratch){NULL, NULL, NULL, NULL, NULL, NULL};
    if (m->txn.lost || (m->cfg.kind == DT_CLASS) != want_class || !m->pred.ok)
        return ST_ESTATE;
    w->stamp = alloc_malloc(sizeof(int32_t) * (size_t)nd);
    w->memo = alloc_malloc(sizeof(int32_t) * (size_t)nd);
    w->path = alloc_malloc(sizeof(int32_t) * (size_t)(m->pred.f.max_depth + 1));
    w->sstamp = alloc_malloc(sizeof(int32_t) * (size_t)ns);
    w->sval = alloc_malloc(sizeof(double) * DT_PR_TERMS * (size_t)ns);
    w->work = alloc_malloc(sizeof(double) * (size_t)(2 * m->cfg.p + 2));
    if (!w->stamp || !w->memo || !w->path || !w->sstamp || !w->sval || !w->work) {
        scratch_free(w);
        return ST_ENOMEM;
    }
    for (k = 0; k < nd; k++) w->stamp[k] = -1;
    for (k = 0; k < ns; k++) w->sstamp[k] = -1;
    return ST_OK;
}

/* the stamp of row r: distinct for 2^30 rows, then every stamp is cleared */
static int32_t row_tag(const dt_model *m, rows_scratch *w, int64_t r)
{
    int32_t k, tag = (int32_t)(r % 1073741824);
    if (tag == 0 && r > 0) {
        for (k = 0; k < m->pred.f.n_dag; k++) w->stamp[k] = -1;
        for (k = 0; k < m->pred.n_sets; k++) w->sstamp[k] = -1;
    }
    return tag;
}

/* the point set of the leaf of x in particle i */
static int32_t leaf_set(const dt_model *m, int32_t i, const double *x, int32_t tag,
                        rows_scratch *w)
{
    return dt_forest_set(m->pred.f.dag, m->pred.f.roots[i], x, tag, w->stamp, w->memo, w->path);
}

/* the location of the leaf holding set at x (that of dt_regression_predictive), computed
 * once per row and set */
static double set_loc(const dt_model *m, int32_t set, const double *x, int32_t tag,
                      rows_scratch *w)
{
    const double *rec = m->pred.tab + (int64_t)set * DT_PR_W;
    if (!((int)rec[5] & DT_PR_SLOPE)) return rec[0];
    if (w->sstamp[set] != tag) {
        w->sval[set] = rec[0] + dt_linear_slope_term(
            m->pool.set_stats + (int64_t)set * m->cfg.sw, &m->cfg, x);
        w->sstamp[set] = tag;
    }
    return w->sval[set];
}

int dt_model_means_rows(const dt_model *m, const double *X, int64_t n, double *out)
{
    int32_t N = m->par.n_particles, d = m->par.d, i, tag;
    int64_t r;
    double acc;
    const double *x;
    rows_scratch w;
    int rc = scratch_new(m, 0, &w);
    if (rc != ST_OK) return rc;
    for (r = 0; r < n; r++) {
        x = X + r * d;
        tag = row_tag(m, &w, r);
        acc = 0.0;
        if (m->cfg.kind == DT_CONSTANT)
            for (i = 0; i < N; i++) acc = acc + m->pred.loc[leaf_set(m, i, x, tag, &w)];
        else
            for (i = 0; i < N; i++) acc = acc + set_loc(m, leaf_set(m, i, x, tag, &w), x, tag, &w);
        out[r] = acc / (double)N;
    }
    scratch_free(&w);
    return ST_OK;
}

/* the terms of the summaries of the leaf holding set at row x: from its record, or (linear
 * terms in use) computed once per row and set */
static const double *row_terms(const dt_model *m, int32_t set, const double *x, int32_t tag,
                               rows_scratch *w)
{
    const double *rec = m->pred.tab + (int64_t)set * DT_PR_W, *st;
    double *terms = w->sval + (int64_t)set * DT_PR_TERMS, quad, lin, loc;
    if (!((int)rec[5] & DT_PR_LINEAR)) return rec + DT_PR_W - DT_PR_TERMS;
    if (w->sstamp[set] == tag) return terms;
    st = m->pool.set_stats + (int64_t)set * m->cfg.sw;
    dt_linear_terms(st, &m->cfg, x, &quad, &lin, w->work);
    loc = (int)rec[5] & DT_PR_SLOPE ? rec[0] + lin : rec[0];
    summary_terms(rec, loc, rec[3] + quad, terms);
    w->sstamp[set] = tag;
    return terms;
}

int dt_model_summaries_rows(const dt_model *m, const double *X, int64_t n, double *out)
{
    int32_t N = m->par.n_particles, d = m->par.d, i, tag;
    int64_t r;
    double acc[6], nn = (double)N, mean, vmean;
    const double *x;
    rows_scratch w;
    int k, rc = scratch_new(m, 0, &w);
    if (rc != ST_OK) return rc;
    for (r = 0; r < n; r++) {
        x = X + r * d;
        tag = row_tag(m, &w, r);
        for (k = 0; k < 6; k++) acc[k] = 0.0;
        for (i = 0; i < N; i++)
            add_terms(acc, row_terms(m, leaf_set(m, i, x, tag, &w), x, tag, &w));
        mean = acc[0] / nn;
        vmean = acc[1] / nn - mean * mean;
        if (vmean < 0.0) vmean = 0.0;
        out[5 * r] = mean;
        out[5 * r + 1] = acc[2] / nn + vmean;
        out[5 * r + 2] = acc[3] / nn;
        out[5 * r + 3] = acc[4] / nn;
        out[5 * r + 4] = acc[5] / nn;
    }
    scratch_free(&w);
    return ST_OK;
}

int dt_model_classes_rows(const dt_model *m, const double *X, int64_t n, double *probs,
                          double *entropy)
{
    int32_t N = m->par.n_particles, d = m->par.d, i, tag;
    int C = m->cfg.n_classes, k;
    int64_t r;
    const double *rec, *x;
    double *acc;
    rows_scratch w;
    int rc = scratch_new(m, 1, &w);
    if (rc != ST_OK) return rc;
    acc = alloc_malloc(sizeof(double) * (size_t)(C + 1));
    if (!acc) {
        scratch_free(&w);
        return ST_ENOMEM;
    }
    for (r = 0; r < n; r++) {
        x = X + r * d;
        tag = row_tag(m, &w, r);
        for (k = 0; k <= C; k++) acc[k] = 0.0;
        for (i = 0; i < N; i++) {
            rec = m->pred.tab + (int64_t)leaf_set(m, i, x, tag, &w) * (C + 1);
            for (k = 0; k <= C; k++) acc[k] = acc[k] + rec[k];
        }
        for (k = 0; k < C; k++) probs[r * C + k] = acc[k] / (double)N;
        entropy[r] = acc[C] / (double)N;
    }
    alloc_free(acc);
    scratch_free(&w);
    return ST_OK;
}
