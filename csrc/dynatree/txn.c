/*
 * dynatree/txn.c -- the undo log that makes one row of dt_model_learn (and one call of
 * dt_model_retire) atomic under allocation failure. C-only machinery, like the
 * copy-on-write point sets: it has no twin in reference/ because the Python backend
 * cannot fail half-way through a step.
 *
 * A transaction saves the scalars (generator, store size, points learned, lml,
 * retirement stamp, pool high-water mark) and the N particle headers, then every
 * in-place change of state that existed before it is preceded by a record of the old
 * bytes:
 *   NODE     one tree node (before any write to it);
 *   SET      a point set's size, retirement mark and statistics block (first change in
 *            the transaction only: later changes need no record);
 *   PTS      a point set's point list (first in-place reordering or removal only);
 *   FREED    a point set whose last reference went: it joins the free list at commit,
 *            not before, so no set of the old state is reused inside the transaction;
 *   STORE    a row removed from the store (retirement);
 *   RENUMBER the sets whose point indices were decremented above a retired position.
 * Resampling copies particles into spare arenas (dt_spare_take), so the arenas of the
 * particles that die stay intact and join the spare pool only at commit. Point sets
 * created inside the transaction carry its id in txn_st / txn_pts and are never logged. Rollback replays the records newest first, restores the saved
 * headers and scalars, recomputes every set's reference count from the restored trees
 * and rebuilds the free list; it allocates nothing. Set ids may differ afterwards, which
 * nothing observes (snapshots walk the trees).
 *
 * Every operation that can log reserves room first (dt_log_room with a bound from
 * dt_log_bound), before it changes anything: so an allocation failure happens before a
 * change or inside set_reserve (which changes nothing), sets m->txn.broken, and the caller
 * stops and rolls back. Should the log still overflow its bound and fail to grow,
 * m->txn.lost is set and the model refuses further work (ST_ESTATE): a safety net, not a
 * path any known input takes.
 * Record layout: payload (padded to 8 bytes) followed by a trailer, so the log can be
 * walked backwards from its end.
 * The sets released in a transaction are recorded apart from the log (txn.freed): commit
 * puts exactly those on the free list, without walking the log.
 * The threaded step (dynatree/particles.c) gives each worker a log and a record of
 * released sets of its own, written through the worker's copy of the model (the same
 * functions, m->txn.log and m->txn.freed being the worker's). The workers change disjoint
 * nodes and sets (a particle belongs to one worker; a set changed in place has one
 * reference), and their records come after the model's own in the step, so commit frees
 * every worker's released sets (to the worker's own stack of free ids) and rollback undoes
 * the workers' logs first, then the model's.
 */
#include <stdint.h>
#include <string.h>
#include "dynatree/dynatree.h"

enum { LOG_NODE = 1, LOG_SET, LOG_PTS, LOG_STORE, LOG_RENUMBER };

typedef struct {
    int32_t type;
    int32_t id;     /* set id, store position or retired position */
    int64_t size;   /* payload bytes (multiple of 8) */
    void *addr;     /* node address (NODE) */
    int64_t aux;    /* count (NODE: 1, PTS, RENUMBER), store size before removal (STORE) */
} dt_log_trailer;

#define TRAILER ((int64_t)sizeof(dt_log_trailer))
#define PAD8(b) (((b) + 7) & ~(int64_t)7)

/* a set's points or statistics changed (or its slot was reused): every memo of the set
 * is dropped and its version moves on (C only; here, below tree.c, because
 * the rollback restores sets and recounts live leaves too) */
void dt_set_changed(dt_pointset *ps)
{
    ps->alc_ok = 0;
    ps->ent_ok = 0;
    ps->w_txn = 0;
    ps->kth_txn = 0;
    ps->prune_txn = 0;
    ps->ver++;
}

/* 1 if an arena slot is a live leaf (a split has var >= 0, a free slot depth -1), as 0 or
 * 1 without a branch: whether a slot is a live leaf is as unpredictable as a coin */
int32_t dt_live_leaf(const dt_node *nd)
{
    return (int32_t)(((uint32_t)nd->var >> 31) & ~((uint32_t)nd->depth >> 31));
}

int dt_log_room(dt_model *m, int64_t bytes)
{
    int64_t cap = m->txn.log_cap < 4096 ? 4096 : m->txn.log_cap;
    unsigned char *nl;
    if (m->txn.log_len + bytes <= m->txn.log_cap) return ST_OK;
    while (cap < m->txn.log_len + bytes) cap = 2 * cap;
    nl = alloc_realloc(m->txn.log, (size_t)cap);
    if (!nl) return ST_ENOMEM;
    m->txn.log = nl;
    m->txn.log_cap = cap;
    return ST_OK;
}

/* room for one record; NULL (and the model lost) if the log cannot grow */
static unsigned char *push(dt_model *m, int type, int32_t id, void *addr, int64_t aux,
                           int64_t payload)
{
    int64_t size = PAD8(payload);
    unsigned char *p;
    dt_log_trailer *tr;
    if (dt_log_room(m, size + TRAILER) != ST_OK) {
        m->txn.lost = 1;
        m->txn.broken = 1;
        return NULL;
    }
    p = m->txn.log + m->txn.log_len;
    tr = (dt_log_trailer *)(p + size);
    tr->type = type;
    tr->id = id;
    tr->size = size;
    tr->addr = addr;
    tr->aux = aux;
    m->txn.log_len += size + TRAILER;
    return p;
}

/* bytes that the changes of one particle may log: its nodes (each written, released or
 * reused once or more), the sets of its leaves, and with_points: point lists and one
 * node per re-inserted point (retirement, collapse) */
int64_t dt_log_bound(const dt_model *m, const dt_particle *t, int with_points)
{
    int64_t nodes = (int64_t)t->n_nodes + 4, sets = (int64_t)t->n_nodes + 2, b;
    if (with_points) nodes += m->store.n;
    b = nodes * (PAD8((int64_t)sizeof(dt_node)) + 2 * TRAILER);
    b += sets * (8 + 8 * (int64_t)m->cfg.sw + TRAILER);
    if (with_points) b += 4 * m->store.n + sets * (8 + TRAILER);
    return b;
}

/* the workers' memos forgotten (their transaction stamps wrap with the model's) */
static void forget_worker_memos(dt_model *m)
{
    int32_t w, s;
    dt_worker *wk;
    for (w = 0; w < m->thr.n_wk; w++) {
        wk = &m->thr.wk[w];
        for (s = 0; s < DT_GROW_MEMO && wk->grow_memo != NULL; s++) wk->grow_memo[s].txn = 0;
        for (s = 0; s < DT_WK_MEMO && wk->wmemo != NULL; s++) wk->wmemo[s].txn = 0;
        for (s = 0; s < DT_WK_MEMO && wk->pmemo != NULL; s++) wk->pmemo[s].txn = 0;
        for (s = 0; s < DT_WK_MEMO && wk->kmemo != NULL; s++) wk->kmemo[s].txn = 0;
    }
}

void dt_txn_begin(dt_model *m)
{
    int32_t s;
    m->pred.ok = 0; /* the transaction may change any set: the cached records go stale */
    m->alcc.ok = 0;
    if (m->txn.txn_id >= 2147483600) { /* stamps wrap: forget the old ones */
        for (s = 0; s < m->pool.cap_sets; s++) {
            m->pool.sets[s].txn_st = 0;
            m->pool.sets[s].txn_pts = 0;
            m->pool.sets[s].memo_txn = 0;
            m->pool.sets[s].w_txn = 0;
            m->pool.sets[s].kth_txn = 0;
            m->pool.sets[s].prune_txn = 0;
            m->pool.sets[s].share = 0;
        }
        for (s = 0; s < DT_GROW_MEMO && m->pool.grow_memo != NULL; s++)
            m->pool.grow_memo[s].txn = 0;
        forget_worker_memos(m);
        m->txn.txn_id = 0;
    }
    m->txn.txn_id++;
    m->txn.in_txn = 1;
    m->txn.broken = 0;
    m->txn.log_len = 0;
    m->txn.n_freed = 0;
    for (s = 0; s < m->thr.n_wk; s++) m->thr.wk[s].log_len = m->thr.wk[s].n_freed = 0;
    m->txn.txn_rng = m->rng;
    m->txn.txn_n = m->store.n;
    m->txn.txn_n_total = m->store.n_total;
    m->txn.txn_lml = m->lml;
    m->txn.txn_stamp = m->ret.stamp;
    m->txn.txn_n_sets = m->pool.n_sets;
    m->txn.txn_n_spare = m->txn.n_spare;
    m->txn.n_taken = 0;
    memcpy(m->txn.txn_parts, m->pf.parts, sizeof(dt_particle) * (size_t)m->par.n_particles);
}

void dt_log_node(dt_model *m, dt_node *nd)
{
    unsigned char *p;
    if (!m->txn.in_txn) return;
    p = push(m, LOG_NODE, 0, nd, 1, (int64_t)sizeof(dt_node));
    if (p) memcpy(p, nd, sizeof(dt_node));
}

void dt_log_set(dt_model *m, int32_t id)
{
    dt_pointset *ps = &m->pool.sets[id];
    int sw = m->cfg.sw;
    unsigned char *p;
    int32_t head[2];
    if (!m->txn.in_txn || ps->txn_st == m->txn.txn_id) return;
    p = push(m, LOG_SET, id, NULL, 0, 8 + 8 * (int64_t)sw);
    if (!p) return;
    head[0] = ps->n;
    head[1] = ps->mark;
    memcpy(p, head, 8);
    memcpy(p + 8, m->pool.set_stats + (int64_t)id * sw, sizeof(double) * (size_t)sw);
    ps->txn_st = m->txn.txn_id;
}

void dt_log_points(dt_model *m, int32_t id)
{
    dt_pointset *ps = &m->pool.sets[id];
    unsigned char *p;
    if (!m->txn.in_txn || ps->txn_pts == m->txn.txn_id) return;
    p = push(m, LOG_PTS, id, NULL, ps->n, 4 * (int64_t)ps->n);
    if (!p) return;
    if (ps->n > 0) memcpy(p, ps->pts, sizeof(int32_t) * (size_t)ps->n);
    ps->txn_pts = m->txn.txn_id;
}

/* a set created in the open transaction: never logged */
void dt_log_created(dt_model *m, int32_t id)
{
    m->pool.sets[id].txn_st = m->txn.txn_id;
    m->pool.sets[id].txn_pts = m->txn.txn_id;
}

/* a set released in the open transaction: recorded (not in the undo log: a rollback
 * recounts the references) so that the commit frees exactly these */
void dt_log_freed(dt_model *m, int32_t id)
{
    if (m->txn.n_freed >= m->txn.freed_cap) { /* cannot happen: freed_cap >= cap_sets */
        m->txn.lost = 1;
        m->txn.broken = 1;
        return;
    }
    m->txn.freed[m->txn.n_freed++] = id;
}

void dt_log_store(dt_model *m, int32_t index)
{
    unsigned char *p;
    if (!m->txn.in_txn) return;
    p = push(m, LOG_STORE, index, NULL, m->store.n, 8 * ((int64_t)m->par.d + 1));
    if (!p) return;
    memcpy(p, m->store.X + (int64_t)index * m->par.d, sizeof(double) * (size_t)m->par.d);
    memcpy(p + 8 * (size_t)m->par.d, m->store.y + index, sizeof(double));
}

/* log the live sets that dt_renumber(index) is about to decrement; ST_ENOMEM (nothing
 * changed) if there is no room */
int dt_log_renumber(dt_model *m, int32_t index)
{
    int32_t s, count = 0, *ids;
    unsigned char *p;
    if (!m->txn.in_txn) return ST_OK;
    for (s = 0; s < m->pool.n_sets; s++)
        if (m->pool.refs[s] > 0) count++;
    if (dt_log_room(m, 4 * (int64_t)count + 8 + TRAILER) != ST_OK) return ST_ENOMEM;
    p = push(m, LOG_RENUMBER, index, NULL, count, 4 * (int64_t)count);
    if (!p) return ST_ENOMEM;
    ids = (int32_t *)p;
    count = 0;
    for (s = 0; s < m->pool.n_sets; s++)
        if (m->pool.refs[s] > 0) ids[count++] = s;
    return ST_OK;
}

/* at least count arenas in the spare pool (new ones of cap_nodes nodes); a failure
 * changes nothing that matters (the pool only grows) */
int dt_spare_reserve(dt_model *m, int32_t count)
{
    dt_node *nd;
    while (m->txn.n_spare < count) {
        nd = alloc_malloc(sizeof(dt_node) * (size_t)m->pf.cap_nodes);
        if (!nd) return ST_ENOMEM;
        m->txn.spare[m->txn.n_spare++] = nd;
        if (m->txn.in_txn) m->txn.txn_n_spare++; /* grown before any take: kept by a rollback */
    }
    return ST_OK;
}

/* a spare arena for a copy; the dead particle's arena takes its slot, and becomes a
 * spare at commit (a rollback puts the taken arena back) */
dt_node *dt_spare_take(dt_model *m, dt_node *dead)
{
    int32_t s = --m->txn.n_spare;
    dt_node *nd = m->txn.spare[s];
    m->txn.taken[m->txn.n_taken++] = nd;
    m->txn.spare[s] = dead;
    return nd;
}

/* the n sets released ids[0..n) join the model's free list, the last released first (so
 * the first released is the next one taken) */
static void free_released(dt_model *m, const int32_t *ids, int32_t n)
{
    int32_t a, id;
    for (a = n - 1; a >= 0; a--) {
        id = ids[a];
        if (m->pool.refs[id] == 0) {
            m->pool.sets[id].next_free = m->pool.free_set;
            m->pool.free_set = id;
        }
    }
}

void dt_txn_commit(dt_model *m)
{
    int32_t w, a;
    dt_worker *wk;
    /* the sets released in the transaction join the free list now */
    free_released(m, m->txn.freed, m->txn.n_freed);
    m->txn.n_freed = 0;
    for (w = 0; w < m->thr.n_wk; w++) { /* a worker's to its own stack (dt_worker) */
        wk = &m->thr.wk[w];
        for (a = wk->n_freed - 1; a >= 0; a--)
            if (m->pool.refs[wk->freed[a]] == 0) wk->free_ids[wk->n_free++] = wk->freed[a];
        wk->n_freed = 0;
        wk->log_len = 0;
    }
    m->txn.n_spare += m->txn.n_taken; /* the dead particles' arenas, in the taken slots */
    m->txn.n_taken = 0;
    m->txn.log_len = 0;
    m->txn.in_txn = 0;
}

static void undo(dt_model *m, const dt_log_trailer *tr, unsigned char *p)
{
    dt_pointset *ps;
    int32_t head[2], a, b, *ids, index = tr->id;
    int64_t n_before;
    int sw = m->cfg.sw;
    switch (tr->type) {
    case LOG_NODE:
        memcpy(tr->addr, p, sizeof(dt_node) * (size_t)tr->aux);
        break;
    case LOG_SET:
        ps = &m->pool.sets[tr->id];
        memcpy(head, p, 8);
        ps->n = head[0];
        ps->mark = head[1];
        memcpy(m->pool.set_stats + (int64_t)tr->id * sw, p + 8, sizeof(double) * (size_t)sw);
        dt_set_changed(ps);
        break;
    case LOG_PTS:
        ps = &m->pool.sets[tr->id];
        if (tr->aux > 0) memcpy(ps->pts, p, sizeof(int32_t) * (size_t)tr->aux);
        dt_set_changed(ps);
        break;
    case LOG_STORE:
        n_before = tr->aux; /* rows index+1 .. n_before-1 moved down by one: move back */
        if (index + 1 < n_before) {
            memmove(m->store.X + (int64_t)(index + 1) * m->par.d, m->store.X + (int64_t)index * m->par.d,
                    sizeof(double) * (size_t)((n_before - index - 1) * m->par.d));
            memmove(m->store.y + index + 1, m->store.y + index,
                    sizeof(double) * (size_t)(n_before - index - 1));
        }
        memcpy(m->store.X + (int64_t)index * m->par.d, p, sizeof(double) * (size_t)m->par.d);
        memcpy(m->store.y + index, p + 8 * (size_t)m->par.d, sizeof(double));
        break;
    case LOG_RENUMBER:
        ids = (int32_t *)p;
        for (a = 0; a < (int32_t)tr->aux; a++) {
            ps = &m->pool.sets[ids[a]];
            for (b = 0; b < ps->n; b++)
                if (ps->pts[b] >= index) ps->pts[b]++;
        }
        break;
    default:
        break;
    }
}

/* the records of a log (log_len bytes) undone, newest first */
static void undo_log(dt_model *m, unsigned char *log, int64_t log_len)
{
    int64_t pos = log_len;
    dt_log_trailer *tr;
    while (pos > 0) {
        tr = (dt_log_trailer *)(log + pos - TRAILER);
        pos -= TRAILER + tr->size;
        undo(m, tr, log + pos);
    }
}

void dt_txn_rollback(dt_model *m)
{
    int32_t i, k, s;
    dt_particle *t;
    for (i = m->thr.n_wk - 1; i >= 0; i--) {
        undo_log(m, m->thr.wk[i].log, m->thr.wk[i].log_len);
        m->thr.wk[i].log_len = 0;
        m->thr.wk[i].n_freed = 0;
        m->thr.wk[i].n_free = 0; /* the one free list is rebuilt below */
    }
    undo_log(m, m->txn.log, m->txn.log_len);
    m->txn.n_freed = 0;
    memcpy(m->pf.parts, m->txn.txn_parts, sizeof(dt_particle) * (size_t)m->par.n_particles);
    for (i = 0; i < m->txn.n_taken; i++) m->txn.spare[m->txn.txn_n_spare - 1 - i] = m->txn.taken[i];
    m->txn.n_spare = m->txn.txn_n_spare;
    m->txn.n_taken = 0;
    m->rng = m->txn.txn_rng;
    m->store.n = m->txn.txn_n;
    m->store.n_total = m->txn.txn_n_total;
    m->lml = m->txn.txn_lml;
    m->ret.stamp = m->txn.txn_stamp;
    m->pool.n_sets = m->txn.txn_n_sets; /* later slots keep their buffers for reuse */
    for (s = 0; s < m->pool.n_sets; s++) m->pool.refs[s] = 0;
    for (i = 0; i < m->par.n_particles; i++) {
        t = &m->pf.parts[i];
        for (k = 0; k < t->n_nodes; k++)
            if (dt_live_leaf(&t->nodes[k])) m->pool.refs[t->nodes[k].set]++;
    }
    m->pool.free_set = -1;
    for (s = m->pool.n_sets - 1; s >= 0; s--)
        if (m->pool.refs[s] == 0) {
            m->pool.sets[s].next_free = m->pool.free_set;
            m->pool.free_set = s;
        }
    m->txn.log_len = 0;
    m->txn.in_txn = 0;
    m->txn.broken = 0;
}
