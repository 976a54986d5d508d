/*
 * dynatree/tree.c -- the trees of the particles and the tree prior [AG13, §2.1]; mirrors
 * reference/dynatree/tree.py.
 *
 * A particle's tree is an arena of dt_node addressed by int32 indices (-1 = none). Freed
 * slots go to a free list linked through `left`. The payload of a leaf, its active points
 * (arrival order) and its statistics block (cfg.sw doubles), is a *point set* of the
 * model's pool, shared copy-on-write: a duplicated particle copies its node array and
 * only takes a reference on the point set of each live leaf; a set is copied when a
 * particle that shares it inserts a point (dt_leaf_append). Snapshots walk the tree in
 * preorder, so neither the arena layout nor the sharing shows. Prior: p_split(d) = alpha (1 + d)^-beta; every internal node adds
 * log p_split(d), every leaf log(1 - p_split(d)). Traversals are iterative (explicit
 * stack, right pushed before left = preorder).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "dynatree/dynatree.h"

/* [AG13, §2.1] mirrors log_split_prob */
static double log_split_prob(int32_t depth, double alpha, double beta)
{
    return log(alpha) - beta * log(1.0 + (double)depth);
}

/* [AG13, §2.1] mirrors log_leaf_prob */
static double log_leaf_prob(int32_t depth, double alpha, double beta)
{
    return log(1.0 - alpha * pow(1.0 + (double)depth, -beta));
}

double dt_log_split_prob(int32_t depth, double alpha, double beta)
{
    return log_split_prob(depth, alpha, beta);
}

double dt_log_leaf_prob(int32_t depth, double alpha, double beta)
{
    return log_leaf_prob(depth, alpha, beta);
}

/* tabulated for d < 64 (same values as the direct formula) */
double dt_prior_split(const dt_model *m, int32_t depth)
{
    if (depth < 64) return m->par.prior_split[depth];
    return log_split_prob(depth, m->par.alpha, m->par.beta);
}

double dt_prior_leaf(const dt_model *m, int32_t depth)
{
    if (depth < 64) return m->par.prior_leaf[depth];
    return log_leaf_prob(depth, m->par.alpha, m->par.beta);
}

/* mirrors find_leaf: left iff x[var] <= value */
int32_t dt_find_leaf(const dt_particle *t, const double *x)
{
    int32_t k = t->root;
    const dt_node *nd = t->nodes;
    while (nd[k].var >= 0) k = x[nd[k].var] <= nd[k].value ? nd[k].left : nd[k].right;
    return k;
}

/* ---- the forest of the batch predictions ([DT-SPEC §8.4]) ----
 * Resampling copies trees and a step changes one leaf of each, so the particles' trees
 * share most of their subtrees (on Friedman-1 with 1,000 particles, 136,000 nodes hold
 * about 10,000 distinct subtrees). dt_forest_build stores each distinct subtree once:
 * leaves are equal when they hold the same point set (hence the same statistics), splits
 * when their column, value (same bits) and children are equal. A row then descends each
 * particle's tree through the forest, and a node some earlier particle already resolved
 * for this row gives its leaf at once (dt_forest_set): the same leaf as dt_find_leaf. */

/* the hash of a split node (column, value bits, children) */
static uint32_t split_hash(int32_t var, double value, int32_t left, int32_t right)
{
    uint64_t bits, h;
    memcpy(&bits, &value, sizeof bits);
    h = bits * 0x9E3779B97F4A7C15ull;
    h ^= ((uint64_t)(uint32_t)var << 32 | (uint32_t)left) * 0xC2B2AE3D27D4EB4Full;
    h ^= (uint64_t)(uint32_t)right * 0x165667B19E3779F9ull;
    h ^= h >> 29;
    return (uint32_t)(h ^ (h >> 32));
}

/* the hash table of the forest's splits: open addressing over forest node ids, kept at
 * most half full by doubling (small: it stays in cache while the trees are interned);
 * failed is set if a doubling could not be allocated (the build then fails) */
typedef struct {
    int32_t *slot;
    uint32_t mask;
    int32_t failed;
} split_table;

/* insert forest split k (known to be absent) */
static void table_put(split_table *tab, const dt_dag_node *nd, int32_t k)
{
    uint32_t h = split_hash(nd->var, nd->value, nd->left, nd->right) & tab->mask;
    while (tab->slot[h] >= 0) h = (h + 1) & tab->mask;
    tab->slot[h] = k;
}

/* double the table and re-insert every split of f */
static void table_grow(split_table *tab, const dt_forest *f)
{
    uint32_t cap = 2 * (tab->mask + 1), h;
    int32_t k, *slot = alloc_malloc(sizeof(int32_t) * (size_t)cap);
    if (!slot) {
        tab->failed = 1;
        return;
    }
    alloc_free(tab->slot);
    tab->slot = slot;
    tab->mask = cap - 1;
    for (h = 0; h < cap; h++) slot[h] = -1;
    for (k = 0; k < f->n_dag; k++)
        if (f->dag[k].var >= 0) table_put(tab, &f->dag[k], k);
}

/* the forest node of a split, added if new */
static int32_t intern_split(dt_forest *f, split_table *tab, int32_t var, double value,
                            int32_t left, int32_t right)
{
    uint32_t h = split_hash(var, value, left, right) & tab->mask;
    int32_t k, hl, hr;
    dt_dag_node *nd;
    if (tab->failed) return left; /* the build fails: any node will do meanwhile */
    while ((k = tab->slot[h]) >= 0) {
        nd = &f->dag[k];
        if (nd->var == var && nd->left == left && nd->right == right &&
            memcmp(&nd->value, &value, sizeof value) == 0)
            return k;
        h = (h + 1) & tab->mask;
    }
    k = f->n_dag++;
    nd = &f->dag[k];
    nd->value = value;
    nd->var = var;
    nd->left = left;
    nd->right = right;
    hl = f->dag[left].pad;
    hr = f->dag[right].pad;
    nd->pad = 1 + (hl > hr ? hl : hr); /* splits on the longest path below */
    tab->slot[h] = k;
    if ((uint32_t)f->n_dag > tab->mask / 2) table_grow(tab, f);
    return k;
}

/* the forest node of particle t's root, its subtrees interned children first (an explicit
 * post-order: -(k + 1) on the stack marks a split whose children are done); cid: the
 * forest node of each arena node; key[k]: the key of arena leaf k; leafd: the forest leaf
 * of each key (-1: none yet) */
static int32_t forest_particle(dt_model *m, const dt_particle *t, dt_forest *f,
                               split_table *tab, const int32_t *key, int32_t *leafd,
                               int32_t *cid)
{
    const dt_node *nd = t->nodes;
    int32_t *stack = m->buf.stack, sp = 0, k, s;
    stack[sp++] = t->root;
    while (sp > 0) {
        k = stack[--sp];
        if (k < 0) {
            k = -k - 1;
            cid[k] = intern_split(f, tab, nd[k].var, nd[k].value, cid[nd[k].left],
                                  cid[nd[k].right]);
        } else if (nd[k].var >= 0) {
            stack[sp++] = -(k + 1);
            stack[sp++] = nd[k].right;
            stack[sp++] = nd[k].left;
        } else {
            s = key[k];
            if (leafd[s] < 0) {
                leafd[s] = f->n_dag++;
                f->dag[leafd[s]] = (dt_dag_node){0.0, -1, s, -1, 0};
            }
            cid[k] = leafd[s];
        }
    }
    return cid[t->root];
}

/* the hash of a statistics block of sw doubles (their bits) */
static uint32_t stats_hash(const double *st, int sw)
{
    uint64_t bits, h = 0x84222325CBF29CE4ull;
    int k;
    for (k = 0; k < sw; k++) {
        memcpy(&bits, &st[k], sizeof bits);
        h = (h ^ bits) * 0x100000001B3ull;
        h ^= h >> 31;
    }
    return (uint32_t)(h ^ (h >> 32));
}

/* canon[s] for every live point set s: the first live set whose statistics block has the
 * same bits (hence the same predictive and the same ALC on a rectangle: a leaf's
 * predictions read its statistics only); -1 for a free slot. The sets of a model restored
 * from a snapshot are not shared between particles, their statistics are. ST_ENOMEM if
 * the table cannot be allocated */
int dt_canonical_sets(const dt_model *m, int32_t *canon)
{
    int32_t n = m->pool.n_sets, s, k, *table;
    int sw = m->cfg.sw;
    int64_t hcap = 16, a;
    uint32_t h, mask;
    const double *st;
    while (hcap < 2 * (int64_t)n) hcap *= 2;
    table = alloc_malloc(sizeof(int32_t) * (size_t)hcap);
    if (!table) return ST_ENOMEM;
    for (a = 0; a < hcap; a++) table[a] = -1;
    mask = (uint32_t)(hcap - 1);
    for (s = 0; s < n; s++) {
        canon[s] = -1;
        if (m->pool.refs[s] <= 0) continue;
        st = m->pool.set_stats + (int64_t)s * sw;
        h = stats_hash(st, sw) & mask;
        while ((k = table[h]) >= 0 &&
               memcmp(m->pool.set_stats + (int64_t)k * sw, st, sizeof(double) * (size_t)sw) != 0)
            h = (h + 1) & mask;
        if (k < 0) table[h] = k = s;
        canon[s] = k;
    }
    alloc_free(table);
    return ST_OK;
}

void dt_forest_free(dt_forest *f)
{
    alloc_free(f->dag);
    alloc_free(f->roots);
}

/* room in f for total nodes and N roots, and a split table of hcap slots (-1) */
static int forest_reserve(dt_forest *f, int64_t total, int32_t N, int64_t hcap,
                          split_table *tab)
{
    dt_dag_node *nd;
    int64_t k;
    if (total > 1000000000) return ST_ENOMEM;
    if (total > f->cap_dag) {
        nd = alloc_realloc(f->dag, sizeof(dt_dag_node) * (size_t)total);
        if (!nd) return ST_ENOMEM;
        f->dag = nd;
        f->cap_dag = (int32_t)total;
    }
    if (f->roots == NULL) f->roots = alloc_malloc(sizeof(int32_t) * (size_t)N);
    tab->slot = alloc_malloc(sizeof(int32_t) * (size_t)hcap);
    tab->mask = (uint32_t)(hcap - 1);
    tab->failed = 0;
    if (f->roots == NULL || tab->slot == NULL) return ST_ENOMEM;
    for (k = 0; k < hcap; k++) tab->slot[k] = -1;
    return ST_OK;
}

/* a hint: the node arena of particle i requested ahead while another is walked (no
 * effect on values; the arenas of 1,000 particles do not fit in cache) */
void dt_prefetch_particle(const dt_model *m, int32_t i)
{
#if defined(__GNUC__)
    if (i < m->par.n_particles) {
        const char *next = (const char *)m->pf.parts[i].nodes;
        int64_t off, bytes = (int64_t)sizeof(dt_node) * m->pf.parts[i].n_nodes;
        for (off = 0; off < bytes; off += 64) __builtin_prefetch(next + off);
    }
#else
    (void)m;
    (void)i;
#endif
}

/* (re)build the forest f of the particles' trees: a leaf's key is keys[off[i] + k] for
 * leaf k of particle i (keys < n_keys), or with keys NULL the canonical point set of the
 * leaf's set (dt_canonical_sets); ST_ENOMEM leaves f unusable */
int dt_forest_build(dt_model *m, dt_forest *f, const int32_t *keys, const int64_t *off,
                    int32_t n_keys)
{
    int32_t N = m->par.n_particles, i, k, *canon = NULL, *leafd, *cid, *key;
    int64_t total = 0, hcap = 1024, ns = m->pool.n_sets > 0 ? m->pool.n_sets : 1;
    split_table tab = {NULL, 0, 0};
    int rc;
    for (i = 0; i < N; i++) total += m->pf.parts[i].n_nodes;
    while (hcap < 4 * (int64_t)f->n_dag && hcap < 2 * total) hcap *= 2; /* the last size */
    rc = forest_reserve(f, total, N, hcap, &tab);
    if (keys == NULL) n_keys = (int32_t)ns;
    leafd = alloc_malloc(sizeof(int32_t) * (size_t)(n_keys > 0 ? n_keys : 1));
    cid = alloc_malloc(sizeof(int32_t) * (size_t)m->pf.cap_nodes);
    key = keys == NULL ? alloc_malloc(sizeof(int32_t) * (size_t)m->pf.cap_nodes) : NULL;
    if (keys == NULL) canon = alloc_malloc(sizeof(int32_t) * (size_t)ns);
    if (rc == ST_OK && (!leafd || !cid || (keys == NULL && (!key || !canon))))
        rc = ST_ENOMEM;
    if (rc == ST_OK && keys == NULL) rc = dt_canonical_sets(m, canon);
    if (rc == ST_OK) {
        for (k = 0; k < n_keys; k++) leafd[k] = -1;
        f->n_dag = 0;
        f->max_depth = 0;
        for (i = 0; i < N; i++) {
            const dt_particle *t = &m->pf.parts[i];
            dt_prefetch_particle(m, i + 1);
            if (keys == NULL)
                for (k = 0; k < t->n_nodes; k++)
                    key[k] = t->nodes[k].var < 0 && t->nodes[k].set >= 0
                                 ? canon[t->nodes[k].set] : 0;
            f->roots[i] = forest_particle(m, t, f, &tab, keys == NULL ? key : keys + off[i],
                                          leafd, cid);
            if (f->dag[f->roots[i]].pad > f->max_depth) f->max_depth = f->dag[f->roots[i]].pad;
        }
        if (tab.failed) rc = ST_ENOMEM;
    }
    if (rc != ST_OK) f->n_dag = 0;
    alloc_free(tab.slot);
    alloc_free(canon);
    alloc_free(leafd);
    alloc_free(cid);
    alloc_free(key);
    return rc;
}

/* the point set of the leaf of x below forest node root: the descent of dt_find_leaf,
 * stopped at the first node that an earlier descent of the same row (tag) resolved
 * (stamp[k] == tag: memo[k] is its set); every node passed is then stamped with the set
 * found. path: max_depth ints of scratch */
int32_t dt_forest_set(const dt_dag_node *dag, int32_t root, const double *x, int32_t tag,
                      int32_t *stamp, int32_t *memo, int32_t *path)
{
    int32_t k = root, np = 0, s = -1;
    while (stamp[k] != tag) {
        if (dag[k].var < 0) {
            s = dag[k].left;
            break;
        }
        path[np++] = k;
        k = x[dag[k].var] <= dag[k].value ? dag[k].left : dag[k].right;
    }
    if (s < 0) s = memo[k];
    while (np > 0) {
        k = path[--np];
        stamp[k] = tag;
        memo[k] = s;
    }
    return s;
}

/* the leaf of x in every particle (out[i] = dt_find_leaf of particle i), descending
 * DT_LANES trees at once: each tree is its own arena, so one descent is a chain of
 * dependent cache misses; interleaving independent chains lets the misses overlap. The
 * statistics blocks of the leaves found are prefetched for the caller. Same leaves, no
 * arithmetic: results are unchanged. */
enum { DT_LANES = 8 };

void dt_find_leaves(const dt_model *m, const double *x, int32_t *out)
{
    dt_find_leaves_at(m, x, NULL, 0, m->par.n_particles, out);
}

/* dt_find_leaves of the particles slots[lo..hi) (slots NULL: lo..hi-1), out[i] for each
 * particle i */
void dt_find_leaves_at(const dt_model *m, const double *x, const int32_t *slots, int32_t lo,
                       int32_t hi, int32_t *out)
{
    int32_t n = hi, i, l, w, k[DT_LANES], p[DT_LANES], live;
    const dt_node *nd[DT_LANES], *q;
    for (i = lo; i < n; i += DT_LANES) {
        w = n - i < DT_LANES ? n - i : DT_LANES;
        for (l = 0; l < w; l++) {
            p[l] = slots != NULL ? slots[i + l] : i + l;
            nd[l] = m->pf.parts[p[l]].nodes;
            k[l] = m->pf.parts[p[l]].root;
        }
        do {
            live = 0;
            for (l = 0; l < w; l++) {
                q = &nd[l][k[l]];
                if (q->var >= 0) {
                    k[l] = x[q->var] <= q->value ? q->left : q->right;
                    live = 1;
                }
            }
        } while (live);
        for (l = 0; l < w; l++) {
            out[p[l]] = k[l];
#if defined(__GNUC__)
            __builtin_prefetch(m->pool.set_stats + (int64_t)nd[l][k[l]].set * m->cfg.sw);
            __builtin_prefetch(m->pool.sets + nd[l][k[l]].set);
#endif
        }
    }
}

int dt_particle_init(dt_particle *t, int32_t cap_nodes)
{
    t->nodes = alloc_malloc(sizeof(dt_node) * (size_t)cap_nodes);
    t->root = -1;
    t->n_nodes = 0;
    t->free_head = -1;
    t->n_free = 0;
    if (!t->nodes) return ST_ENOMEM;
    return ST_OK;
}

/* the statistics block of a leaf (in its point set) */
double *dt_leaf_stats(const dt_model *m, const dt_particle *t, int32_t leaf)
{
    return m->pool.set_stats + (int64_t)t->nodes[leaf].set * m->cfg.sw;
}

void dt_particle_free(dt_particle *t)
{
    if (t == NULL) return;
    alloc_free(t->nodes);
    t->nodes = NULL;
}

int dt_particle_reserve_nodes(dt_particle *t, int32_t cap_nodes)
{
    dt_node *nn = alloc_realloc(t->nodes, sizeof(dt_node) * (size_t)cap_nodes);
    if (!nn) return ST_ENOMEM;
    t->nodes = nn;
    return ST_OK;
}

/* a fresh leaf slot (capacity is reserved by the caller; a reused slot is logged) */
int32_t dt_node_alloc(dt_model *m, dt_particle *t)
{
    int32_t k;
    if (t->free_head >= 0) {
        k = t->free_head;
        dt_log_node(m, &t->nodes[k]);
        t->free_head = t->nodes[k].left;
        t->n_free--;
    } else {
        k = t->n_nodes++;
    }
    t->nodes[k].left = -1;
    t->nodes[k].right = -1;
    t->nodes[k].parent = -1;
    t->nodes[k].depth = 0;
    t->nodes[k].var = -1;
    t->nodes[k].set = -1;
    t->nodes[k].value = 0.0;
    return k;
}

void dt_node_release(dt_model *m, dt_particle *t, int32_t k)
{
    dt_log_node(m, &t->nodes[k]);
    t->nodes[k].left = t->free_head;
    t->nodes[k].var = -1;
    t->nodes[k].depth = -1; /* marks a free slot */
    t->free_head = k;
    t->n_free++;
}

/* a set whose last reference was dropped joins the free list (at commit inside a
 * transaction, so that its contents survive until then) */
static void set_freed(dt_model *m, int32_t id)
{
    if (m->txn.in_txn) {
        m->pool.sets[id].next_free = -1;
        dt_log_freed(m, id);
    } else {
        m->pool.sets[id].next_free = m->pool.free_set;
        m->pool.free_set = id;
    }
}

/* a worker's change d of set id's reference count, kept in its own delta during a phase
 * (dt_refs_merge adds them up after it), the id noted the first time it changes */
static void wk_note(dt_worker *wk, int32_t id, int32_t d)
{
    dt_wk_ref *r = &wk->refd[id];
    if (!r->noted) {
        r->noted = 1;
        wk->touched[wk->n_touched++] = id;
    }
    r->delta += d;
}

/* the reference of the live leaf in slot nd (if it is one) dropped without a branch: the
 * slot subtracts live (0 or 1) from its set's count if live, else from refs[0]
 * (subtracting 0); only a count that reaches 0 takes the branch to the freeing path */
static void release_slot(dt_model *m, const dt_node *nd)
{
    int32_t *refs = m->pool.refs, live = dt_live_leaf(nd), id = nd->set & -live;
    if (m->wk != NULL) { /* a worker: its own counts, merged after the phase */
        wk_note(m->wk, id, -live);
        return;
    }
    refs[id] -= live;
    if (live & (refs[id] == 0)) set_freed(m, id);
}

/* a reference taken by the live leaf in slot nd (if it is one), the same way: refs[0]
 * gains 0 for any other slot */
static void take_slot(const dt_model *m, int32_t *refs, const dt_node *nd)
{
    int32_t live = dt_live_leaf(nd);
    if (m->wk != NULL) {
        wk_note(m->wk, nd->set & -live, live);
        return;
    }
    refs[nd->set & -live] += live;
}

/* the merge phase at the end of a threaded step, one worker's part (m: its copy of the
 * model): each point set of id lo..hi-1 (the worker's range) that a worker's record
 * changed (in the copies of resampling or in the propagations) gains the sum of the nw
 * workers' changes (which go back to 0), and a set left without any reference is freed
 * (into this worker's record of released sets, whose ids join its stack of free ids at
 * commit: dynatree/txn.c). Each count and record entry has one writer; only the ids the
 * workers noted are visited. Until then the stored counts are those the step started with, and a worker
 * never reads a count another one changes. A set is changed in place only by its one
 * holder: a propagating slot reads its leaf's set as its own when the stored count is 1
 * and its particle has no other copy in the step (wk->shared: the copies add references
 * only to the sets of particles copied more than once; the other changes in the step only
 * drop references, or add them to the copies a worker publishes, which no leaf appends to
 * again: worker_append_shared). The counts end as the serial step leaves them */
void dt_refs_merge(dt_model *m, dt_worker *wks, int32_t nw, int32_t lo, int32_t hi)
{
    int32_t v, u, a, id, sum, n, *refs = m->pool.refs;
    const int32_t *ids;
    for (v = 0; v < nw; v++) {
        ids = wks[v].touched;
        n = wks[v].n_touched;
        for (a = 0; a < n; a++) {
            id = ids[a];
            if (id < lo || id >= hi) continue;
            sum = 0;
            for (u = 0; u < nw; u++) { /* a second visit of the id finds them all 0 */
                sum += wks[u].refd[id].delta;
                wks[u].refd[id].delta = 0;
                wks[u].refd[id].noted = 0;
            }
            if (sum == 0) continue;
            refs[id] += sum;
            if (refs[id] == 0) set_freed(m, id);
        }
    }
}

/* resampling's replacement of a dead particle by a copy of src (mirrors copy_tree): dst is
 * the dead particle with a spare arena of the same capacity in place of its own, whose
 * dead_n slots dead are kept intact for a rollback. The dead leaves' references are
 * dropped (dt_particle_release_sets) and src's leaves take one each (point sets are
 * shared, not copied), slot by slot in one pass. The counts end the same as releasing
 * first: a set src holds keeps src's reference, so only the sets held by the dead particle
 * alone reach 0, in the same (slot) order. */
void dt_particle_replace(dt_model *m, dt_particle *dst, const dt_node *dead, int32_t dead_n,
                         const dt_particle *src)
{
    int32_t k, n_nodes = src->n_nodes, both = dead_n < n_nodes ? dead_n : n_nodes;
    const dt_node *nd = src->nodes;
    int32_t *refs = m->pool.refs;
    memcpy(dst->nodes, nd, sizeof(dt_node) * (size_t)n_nodes);
    for (k = 0; k < both; k++) {
        /* a slot whose dead and copied nodes are leaves of one set leaves its count as it
         * was (src's own reference keeps it above 0): neither is counted. The particles
         * of a step descend from common ancestors, so most of their slots are such */
        if (dead[k].set == nd[k].set && dead[k].var == nd[k].var && dt_live_leaf(&nd[k]) &&
            dt_live_leaf(&dead[k]))
            continue;
        release_slot(m, &dead[k]);
        take_slot(m, refs, &nd[k]);
    }
    for (k = both; k < dead_n; k++) release_slot(m, &dead[k]);
    for (k = both; k < n_nodes; k++) take_slot(m, refs, &nd[k]);
    dst->root = src->root;
    dst->n_nodes = n_nodes;
    dst->free_head = src->free_head;
    dst->n_free = src->n_free;
}

/* [DT-SPEC §4.1] step 2 mirrors subtree_log_score; grown = -1 for none */
double dt_subtree_log_score(dt_model *m, const dt_particle *t, int32_t top, int32_t grown,
                            double ell_left, double ell_right)
{
    int32_t *stack = m->buf.stack, sp = 0, k;
    const dt_node *nd = t->nodes;
    double score = 0.0, below;
    stack[sp++] = top;
    while (sp > 0) {
        k = stack[--sp];
        if (k == grown) {
            score = score + dt_prior_split(m, nd[k].depth);
            below = dt_prior_leaf(m, nd[k].depth + 1);
            score = score + (below + ell_left);
            score = score + (below + ell_right);
        } else if (nd[k].var >= 0) {
            score = score + dt_prior_split(m, nd[k].depth);
        } else {
            score = score + (dt_prior_leaf(m, nd[k].depth) + dt_leaf_stats(m, t, k)[DT_OFF_ELL]);
        }
        if (nd[k].var >= 0 && k != grown) {
            stack[sp++] = nd[k].right;
            stack[sp++] = nd[k].left;
        }
    }
    return score;
}

/* dt_subtree_log_score of top as it is (*stay) and with the leaf `grown` split into
 * children of evidence ell_left, ell_right (*grow), in one traversal (C only): grown is a
 * leaf, so both visit the same nodes in the same order, and each sum takes the same terms
 * in the same order as its own call would */
void dt_subtree_log_scores(dt_model *m, const dt_particle *t, int32_t top, int32_t grown,
                           double ell_left, double ell_right, double *stay, double *grow)
{
    int32_t *stack = m->buf.stack, sp = 0, k;
    const dt_node *nd = t->nodes;
    double s_stay = 0.0, s_grow = 0.0, below, term;
    stack[sp++] = top;
    while (sp > 0) {
        k = stack[--sp];
        if (nd[k].var >= 0) {
            term = dt_prior_split(m, nd[k].depth);
            s_stay = s_stay + term;
            s_grow = s_grow + term;
            stack[sp++] = nd[k].right;
            stack[sp++] = nd[k].left;
            continue;
        }
        term = dt_prior_leaf(m, nd[k].depth) + dt_leaf_stats(m, t, k)[DT_OFF_ELL];
        s_stay = s_stay + term;
        if (k == grown) {
            s_grow = s_grow + dt_prior_split(m, nd[k].depth);
            below = dt_prior_leaf(m, nd[k].depth + 1);
            s_grow = s_grow + (below + ell_left);
            s_grow = s_grow + (below + ell_right);
        } else {
            s_grow = s_grow + term;
        }
    }
    *stay = s_stay;
    *grow = s_grow;
}

/* mirrors leaves: the leaves under top in preorder; returns their number */
int32_t dt_collect_leaves(dt_model *m, const dt_particle *t, int32_t top, int32_t *out)
{
    int32_t *stack = m->buf.stack, sp = 0, k, count = 0;
    const dt_node *nd = t->nodes;
    stack[sp++] = top;
    while (sp > 0) {
        k = stack[--sp];
        if (nd[k].var >= 0) {
            stack[sp++] = nd[k].right;
            stack[sp++] = nd[k].left;
        } else {
            out[count++] = k;
        }
    }
    return count;
}

/* the active points of a leaf in arrival order; returns their number */
int32_t dt_gather_points(const dt_model *m, const dt_particle *t, int32_t leaf, int32_t *out)
{
    const dt_pointset *ps = &m->pool.sets[t->nodes[leaf].set];
    if (ps->n > 0) memcpy(out, ps->pts, sizeof(int32_t) * (size_t)ps->n);
    return ps->n;
}

/* the transaction's record of released sets at the pool's capacity (each set is released
 * once at most in a transaction) */
static int reserve_freed(dt_model *m)
{
    int32_t *f;
    if (m->txn.freed_cap >= m->pool.cap_sets) return ST_OK;
    f = alloc_realloc(m->txn.freed, sizeof(int32_t) * (size_t)m->pool.cap_sets);
    if (!f) return ST_ENOMEM;
    m->txn.freed = f;
    m->txn.freed_cap = m->pool.cap_sets;
    return ST_OK;
}

/* room in the point-set pool for one step: per particle at most one copy-on-write
 * clone and two new sets (grow) or one (prune), plus `extra` more sets */
int dt_sets_reserve(dt_model *m, int64_t extra)
{
    int64_t need = (int64_t)m->pool.n_sets + 3 * (int64_t)m->par.n_particles + 4 + extra;
    int64_t cap = m->pool.cap_sets;
    dt_pointset *ns;
    double *nst;
    int32_t *nr;
    if (m->pool.grow_memo == NULL) {
        m->pool.grow_memo = alloc_calloc(DT_GROW_MEMO, sizeof(dt_grow_memo));
        if (m->pool.grow_memo == NULL) return ST_ENOMEM;
    }
    if (need <= cap) return reserve_freed(m);
    if (need > 2147483000) return ST_ENOMEM;
    while (cap < need) cap = cap < 64 ? 64 : 2 * cap;
    if (cap > 2147483000) cap = 2147483000;
    ns = alloc_realloc(m->pool.sets, sizeof(dt_pointset) * (size_t)cap);
    if (!ns) return ST_ENOMEM;
    /* new slots own no buffers yet (dt_set_new reuses a slot's buffers) */
    memset(ns + m->pool.cap_sets, 0, sizeof(dt_pointset) * (size_t)(cap - m->pool.cap_sets));
    m->pool.sets = ns; /* cap_sets is raised once set_stats has grown too */
    nst = alloc_realloc(m->pool.set_stats, sizeof(double) * (size_t)cap * (size_t)m->cfg.sw);
    if (!nst) return ST_ENOMEM;
    m->pool.set_stats = nst;
    nr = alloc_realloc(m->pool.refs, sizeof(int32_t) * (size_t)cap);
    if (!nr) return ST_ENOMEM;
    memset(nr + m->pool.cap_sets, 0, sizeof(int32_t) * (size_t)(cap - m->pool.cap_sets));
    m->pool.refs = nr;
    nst = alloc_realloc(m->pool.set_kth,
                        sizeof(double) * (size_t)cap * 2 * (size_t)DT_KTH_COLS(m->par.d));
    if (!nst) return ST_ENOMEM;
    m->pool.set_kth = nst;
    m->pool.cap_sets = (int32_t)cap;
    return reserve_freed(m);
}

/* ensure a set's capacity (contents kept); on allocation failure the model is marked
 * broken: inside a transaction the caller stops and rolls back (dynatree/txn.c), outside one
 * (restoring a pickle) the model is lost */
static int set_reserve(dt_model *m, int32_t id, int32_t need)
{
    dt_pointset *ps = &m->pool.sets[id];
    int32_t cap = ps->cap < 8 ? 8 : ps->cap;
    int32_t *np;
    if (need <= ps->cap) return 1;
    while (cap < need) cap = 2 * cap;
    np = alloc_realloc(ps->pts, sizeof(int32_t) * (size_t)cap);
    if (!np) {
        m->txn.broken = 1;
        if (!m->txn.in_txn) m->txn.lost = 1;
        return 0;
    }
    ps->pts = np;
    ps->cap = cap;
    return 1;
}

/* a new point set holding pts[0..n) with one reference (pool capacity reserved by the
 * caller; buffers of freed sets, and of pool slots above n_sets, are reused) */
/* a free id of the pool (the head of its free list, else the next above n_sets) */
static int32_t pool_take(dt_model *m)
{
    int32_t id;
    if (m->pool.free_set >= 0) {
        id = m->pool.free_set;
        m->pool.free_set = m->pool.sets[id].next_free;
    } else {
        id = m->pool.n_sets++;
    }
    return id;
}

/* a worker's next id: the top of its own stack, which dt_workers_balance filled before
 * the phase with more ids than its slots can use (so a worker never touches the model's
 * free list, nor any field of the model, during a phase) */
static int32_t worker_take(dt_model *m)
{
    return m->wk->free_ids[--m->wk->n_free];
}

/* before a threaded propagation: each of the nw workers' stacks brought to at least want
 * ids and at most 2 want (want = 0: emptied), the deficit of one filled from the others'
 * surplus first (no set is touched), then from the model's free list (or above n_sets;
 * the pool's capacity covers it: dt_threads_extra_sets), the excess above 2 want given to
 * the model's free list (the slack keeps the ids a step frees for the next one, without
 * touching the list's sets). ST_ENOMEM if the pool cannot (nothing lost: the ids stay
 * free) */
int dt_workers_balance(dt_model *m, dt_worker *wks, int32_t nw, int32_t want)
{
    int32_t a, b, id, most = 2 * want;
    for (a = 0; a < nw; a++)
        for (b = 0; b < nw && wks[a].n_free > want; b++)
            while (wks[b].n_free < want && wks[a].n_free > want)
                wks[b].free_ids[wks[b].n_free++] = wks[a].free_ids[--wks[a].n_free];
    for (a = 0; a < nw; a++) {
        while (wks[a].n_free > most) {
            id = wks[a].free_ids[--wks[a].n_free];
            m->pool.sets[id].next_free = m->pool.free_set;
            m->pool.free_set = id;
        }
        while (wks[a].n_free < want) {
            if (m->pool.free_set < 0 && m->pool.n_sets >= m->pool.cap_sets) return ST_ENOMEM;
            wks[a].free_ids[wks[a].n_free++] = pool_take(m);
        }
    }
    return ST_OK;
}

int32_t dt_set_new(dt_model *m, const int32_t *pts, int32_t n)
{
    int32_t id = m->wk != NULL ? worker_take(m) : pool_take(m);
    dt_log_created(m, id);
    m->pool.refs[id] = 1;
    m->pool.sets[id].n = 0;
    m->pool.sets[id].next_free = -1;
    m->pool.sets[id].mark = 0;
    m->pool.sets[id].memo_txn = 0;
    m->pool.sets[id].share = 0;
    dt_set_changed(&m->pool.sets[id]);
    if (n > 0 && set_reserve(m, id, n)) {
        memcpy(m->pool.sets[id].pts, pts, sizeof(int32_t) * (size_t)n);
        m->pool.sets[id].n = n;
    }
    return id;
}

/* drop one reference; a set left without any is freed (set_freed) */
void dt_set_release(dt_model *m, int32_t id)
{
    if (m->wk != NULL) { /* a worker: merged after the phase (dt_refs_merge) */
        wk_note(m->wk, id, -1);
        return;
    }
    if (--m->pool.refs[id] == 0) set_freed(m, id);
}

/* append a point to a leaf's set, copying the set first if another leaf shares it */
void dt_leaf_append(dt_model *m, dt_particle *t, int32_t leaf, int32_t point)
{
    int32_t id = t->nodes[leaf].set, fresh;
    /* a set with one reference is this leaf's alone; in a worker the count is the step's
     * first, and the set is shared too if the slot's particle was copied (dt_refs_merge) */
    if (m->pool.refs[id] > 1 || (m->wk != NULL && m->wk->shared)) {
        fresh = dt_set_new(m, NULL, 0);
        memcpy(m->pool.set_stats + (int64_t)fresh * m->cfg.sw, m->pool.set_stats + (int64_t)id * m->cfg.sw,
               sizeof(double) * (size_t)m->cfg.sw);
        if (!set_reserve(m, fresh, m->pool.sets[id].n + 1)) return;
        if (m->pool.sets[id].n > 0) /* an emptied set (all points retired) may have no buffer */
            memcpy(m->pool.sets[fresh].pts, m->pool.sets[id].pts,
                   sizeof(int32_t) * (size_t)m->pool.sets[id].n);
        m->pool.sets[fresh].n = m->pool.sets[id].n;
        dt_set_release(m, id);
        dt_log_node(m, &t->nodes[leaf]);
        t->nodes[leaf].set = fresh;
        id = fresh;
    }
    if (!set_reserve(m, id, m->pool.sets[id].n + 1)) return;
    dt_log_set(m, id); /* before the size and (by the caller) the statistics change */
    m->pool.sets[id].pts[m->pool.sets[id].n++] = point;
    dt_set_changed(&m->pool.sets[id]); /* the caller updates the statistics next */
}

/* dt_leaf_append_shared in a worker of the threaded step: the same sharing across
 * workers, through the source set's share word: a worker that copied the set publishes the
 * copy once it holds the point and its statistics (dt_share_publish, after dt_add_point),
 * and every leaf holding the source set takes it from then on. Two workers may copy one
 * set before either publishes (the second keeps its own copy: the same points and
 * statistics). A published copy is taken even if the leaves that held it released it
 * meanwhile (the serial step would make a copy of its own): the copy is not changed after
 * it is published and its id is not reused before the row commits, so it holds what a
 * new copy would; the counts are merged after the phase (dt_refs_merge) */
static int worker_append_shared(dt_model *m, dt_particle *t, int32_t leaf, int32_t point)
{
    int32_t id = t->nodes[leaf].set;
    int64_t w = par_load64(&m->pool.sets[id].share);
    if ((int32_t)(w >> 32) == m->txn.txn_id) {
        wk_note(m->wk, (int32_t)(w & 0xffffffff), 1);
        dt_set_release(m, id);
        dt_log_node(m, &t->nodes[leaf]);
        t->nodes[leaf].set = (int32_t)(w & 0xffffffff);
        return 1;
    }
    dt_leaf_append(m, t, leaf, point);
    return 0;
}

/* the copy `to` of set `from` (the row's point added, its statistics complete) offered to
 * the other leaves that hold `from` (worker_append_shared); the first copy published wins */
void dt_share_publish(dt_model *m, int32_t from, int32_t to)
{
    int64_t old = par_load64(&m->pool.sets[from].share);
    if ((int32_t)(old >> 32) == m->txn.txn_id) return;
    par_cas64(&m->pool.sets[from].share, old, ((int64_t)m->txn.txn_id << 32) | (int64_t)to);
}

/* dt_leaf_append for the new point of a learned row (the same point for every leaf of the
 * row, inside its transaction), followed by the caller's dt_add_point unless this returns
 * 1. Particles duplicated by resampling share their leaves' point sets, and each inserts
 * the row's point into the same set: the first makes the copy (dt_leaf_append) and
 * records it in the source set (memo_txn, memo_set); the others take a reference on that
 * copy instead of making their own. The copy holds exactly the points and statistics they
 * would compute (same set, same point, dt_add_point is a function of them), so results are
 * unchanged; returns 1 when the copy was shared (its statistics already hold the point).
 * A copy released meanwhile (its leaf was grown or pruned) is not revived. */
int dt_leaf_append_shared(dt_model *m, dt_particle *t, int32_t leaf, int32_t point)
{
    int32_t id = t->nodes[leaf].set, to;
    dt_pointset *ps = &m->pool.sets[id];
    if (m->wk != NULL) return worker_append_shared(m, t, leaf, point);
    if (m->txn.in_txn && ps->memo_txn == m->txn.txn_id) {
        to = ps->memo_set;
        if (m->pool.refs[to] > 0) {
            m->pool.refs[to]++;
            dt_set_release(m, id);
            dt_log_node(m, &t->nodes[leaf]);
            t->nodes[leaf].set = to;
            return 1;
        }
    }
    dt_leaf_append(m, t, leaf, point);
    if (m->txn.in_txn && !m->txn.broken && t->nodes[leaf].set != id) {
        m->pool.sets[id].memo_txn = m->txn.txn_id; /* id still has references: a copy */
        m->pool.sets[id].memo_set = t->nodes[leaf].set;
    }
    return 0;
}

/* drop the references of every live leaf of a particle (before its buffers are reused) */
void dt_particle_release_sets(dt_model *m, dt_particle *t)
{
    int32_t k, n_nodes = t->n_nodes; /* a local: the counts could alias it */
    for (k = 0; k < n_nodes; k++) release_slot(m, &t->nodes[k]);
}

/* mirrors height: number of levels (a lone root has height 1) */
int32_t dt_height(dt_model *m, const dt_particle *t)
{
    int32_t *stack = m->buf.stack, sp = 0, k, best = 0;
    const dt_node *nd = t->nodes;
    stack[sp++] = t->root;
    while (sp > 0) {
        k = stack[--sp];
        if (nd[k].depth + 1 > best) best = nd[k].depth + 1;
        if (nd[k].var >= 0) {
            stack[sp++] = nd[k].right;
            stack[sp++] = nd[k].left;
        }
    }
    return best;
}

/* the point-set pool checked against the trees (a test hook, between calls): 0 if every
 * set's reference count is the number of live leaves that hold it and every id below
 * n_sets without a reference is free exactly once (on the model's free list or a learning
 * thread's stack of free ids); 1 a count differs, 2 a free id is lost or listed twice, 3 a
 * listed id has references, -1 no memory for the check */
int dt_model_check_sets(const dt_model *m)
{
    int32_t n = m->pool.n_sets, i, k, s, id, steps, *count;
    const dt_particle *t;
    int rc = 0;
    count = alloc_calloc(n > 0 ? (size_t)n : 1, sizeof(int32_t));
    if (!count) return -1;
    for (i = 0; i < m->par.n_particles; i++) {
        t = &m->pf.parts[i];
        for (k = 0; k < t->n_nodes; k++)
            if (dt_live_leaf(&t->nodes[k]) && t->nodes[k].set >= 0 && t->nodes[k].set < n)
                count[t->nodes[k].set]++;
    }
    for (s = 0; s < n && rc == 0; s++)
        if (count[s] != m->pool.refs[s]) rc = 1;
    for (s = 0; s < n; s++) count[s] = 0; /* now: times listed as free */
    for (id = m->pool.free_set, steps = 0; rc == 0 && id >= 0 && steps <= n; steps++) {
        if (id >= n || count[id]++ > 0) rc = 2;
        else if (m->pool.refs[id] != 0) rc = 3;
        else id = m->pool.sets[id].next_free;
    }
    if (rc == 0 && steps > n) rc = 2; /* a cycle */
    for (i = 0; rc == 0 && i < m->thr.n_wk; i++)
        for (k = 0; rc == 0 && k < m->thr.wk[i].n_free; k++) {
            id = m->thr.wk[i].free_ids[k];
            if (id < 0 || id >= n || count[id]++ > 0) rc = 2;
            else if (m->pool.refs[id] != 0) rc = 3;
        }
    for (s = 0; s < n && rc == 0; s++)
        if (m->pool.refs[s] == 0 && count[s] != 1) rc = 2;
    alloc_free(count);
    return rc;
}
