/*
 * sgt/tree.c -- one stochastic gradient tree [GPF19, §3].
 *
 * Mirrors reference/sgt/tree.py. The tree is an arena of nodes in creation order
 * (root = 0; a split appends its children contiguously). Invariants: a node is a leaf
 * iff feature == -1; exactly the leaves own cells (n_cells) and a used-mask (d bytes);
 * children of node i are first_child .. first_child + n_children - 1 with depth + 1.
 * learn: add (g, h) to the leaf total and one cell per feature, attempt a split when
 * the leaf count is a multiple of the grace period ([SGT-SPEC §2], [SGT-SPEC §10]). apply: null update
 * v += Δ_0 and reset of all cells, or split into children with v + Δ_j ([SGT-SPEC §9]).
 * Allocation happens before any change, so ST_ENOMEM leaves the tree intact; callers
 * that learn a row first reserve its split's leaves (sgt_tree_plan decides the row's
 * attempt on a copy of the leaf's cells, then sgt_tree_reserve_leaves; a bag reserves
 * sgt_tree_reserve's bound), so the split itself (which follows the statistics update)
 * takes pre-allocated buffers and cannot fail.
 * Per-leaf quantization (q->per_leaf, [SGT-SPEC §5.8]): every node owns `range`, 4 d
 * doubles lo | hi | obs_lo | obs_hi (bin ranges, and a leaf's ranges observed since its
 * cells were last emptied, valid while its count is positive); a null update re-bins the
 * leaf to its observed ranges, a split gives each child the parent's observed ranges with
 * the split feature cut at the chosen bin's upper edge; internal nodes keep their range.
 */
#include <stdlib.h>
#include <string.h>
#include "sgt/sgt.h"

static void clear_node(sgt_node *node, int32_t depth, double value)
{
    node->feature = -1;
    node->threshold = -1;
    node->first_child = -1;
    node->n_children = 0;
    node->depth = depth;
    node->value = value;
    node->cells = NULL;
    node->used = NULL;
    node->range = NULL;
}

/* per_leaf: a node's bin ranges become lo/hi, its observed ranges 0 (Node.with_ranges) */
static void set_ranges(double *range, int32_t d, const double *lo, const double *hi)
{
    memcpy(range, lo, (size_t)d * sizeof(double));
    memcpy(range + d, hi, (size_t)d * sizeof(double));
    memset(range + 2 * d, 0, (size_t)(2 * d) * sizeof(double));
}

int sgt_tree_init(sgt_tree *t, const sgt_quantizer *q)
{
    memset(t, 0, sizeof *t);
    t->nodes = alloc_malloc(8 * sizeof *t->nodes);
    if (!t->nodes)
        return ST_ENOMEM;
    t->cap = 8;
    clear_node(&t->nodes[0], 0, 0.0);
    t->nodes[0].cells = alloc_calloc((size_t)q->n_cells, sizeof(sgt_stats));
    t->nodes[0].used = alloc_calloc((size_t)q->d, 1);
    if (q->per_leaf)
        t->nodes[0].range = alloc_malloc((size_t)(4 * q->d) * sizeof(double));
    if (!t->nodes[0].cells || !t->nodes[0].used || (q->per_leaf && !t->nodes[0].range)) {
        alloc_free(t->nodes[0].cells);
        alloc_free(t->nodes[0].used);
        alloc_free(t->nodes[0].range);
        alloc_free(t->nodes);
        t->nodes = NULL;
        return ST_ENOMEM;
    }
    if (q->per_leaf)
        set_ranges(t->nodes[0].range, q->d, q->lo, q->hi);
    t->n_nodes = 1;
    return ST_OK;
}

void sgt_tree_free(sgt_tree *t)
{
    int32_t i;
    if (!t || !t->nodes)
        return;
    for (i = 0; i < t->n_nodes; i++) {
        alloc_free(t->nodes[i].cells);
        alloc_free(t->nodes[i].used);
        alloc_free(t->nodes[i].range);
    }
    alloc_free(t->nodes);
    for (i = 0; i < t->n_spare; i++) {
        alloc_free(t->spare_cells[i]);
        alloc_free(t->spare_used[i]);
        if (t->spare_range)
            alloc_free(t->spare_range[i]);
    }
    alloc_free(t->spare_cells);
    alloc_free(t->spare_used);
    alloc_free(t->spare_range);
    memset(t, 0, sizeof *t);
}

void sgt_tree_seed_root(sgt_tree *t, const sgt_quantizer *q)
{
    if (q->per_leaf)
        set_ranges(t->nodes[0].range, q->d, q->lo, q->hi);
}

/* bin or category of feature a of x at a node: its own range when per_leaf (Tree.node_code) */
static int32_t node_code(const sgt_quantizer *q, const sgt_node *node, const double *x,
                         int32_t a)
{
    if (q->per_leaf && !q->kinds[a])
        return sgt_bin_index(x[a], node->range[a], node->range[q->d + a], q->bins);
    return sgt_quantizer_code(q, x, a);
}

int32_t sgt_tree_leaf_of(const sgt_tree *t, const sgt_quantizer *q, const double *x)
{
    int32_t i = 0;
    const sgt_node *node = &t->nodes[0];
    while (node->feature >= 0) {
        int32_t code = node_code(q, node, x, node->feature);
        if (node->threshold >= 0)
            i = code <= node->threshold ? node->first_child : node->first_child + 1;
        else
            i = node->first_child + code;
        node = &t->nodes[i];
    }
    return i;
}

int32_t sgt_tree_leaf_of_codes(const sgt_tree *t, const int32_t *codes)
{
    int32_t i = 0;
    const sgt_node *node = &t->nodes[0];
    while (node->feature >= 0) {
        int32_t code = codes[node->feature];
        if (node->threshold >= 0)
            i = code <= node->threshold ? node->first_child : node->first_child + 1;
        else
            i = node->first_child + code;
        node = &t->nodes[i];
    }
    return i;
}

double sgt_tree_raw(const sgt_tree *t, const sgt_quantizer *q, const double *x)
{
    return t->nodes[sgt_tree_leaf_of(t, q, x)].value;
}

int sgt_tree_learn(sgt_tree *t, const sgt_quantizer *q, const sgt_params *p,
                   const int32_t *codes, double g, double h, sgt_scratch *s)
{
    int32_t a, i = sgt_tree_leaf_of_codes(t, codes);
    sgt_stats *cells = t->nodes[i].cells;
    sgt_stats_add(&cells[0], g, h);
    for (a = 0; a < q->d; a++)
        sgt_stats_add(&cells[q->offsets[a] + codes[a]], g, h);
    if (cells[0].n % p->grace_period == 0)
        return sgt_tree_attempt(t, i, q, p, s);
    return ST_OK;
}

int sgt_tree_learn_row(sgt_tree *t, const sgt_quantizer *q, const sgt_params *p,
                       const double *x, double g, double h, sgt_scratch *s)
{
    int32_t a, d = q->d, i = sgt_tree_leaf_of(t, q, x);
    sgt_node *node = &t->nodes[i];
    sgt_stats *cells = node->cells;
    double *obs_lo = node->range + 2 * d, *obs_hi = node->range + 3 * d;
    int first = cells[0].n == 0;
    for (a = 0; a < d; a++) {
        double v = x[a];
        if (q->kinds[a])
            continue;
        if (first) {
            obs_lo[a] = v;
            obs_hi[a] = v;
        } else if (v < obs_lo[a]) {
            obs_lo[a] = v;
        } else if (v > obs_hi[a]) {
            obs_hi[a] = v;
        }
    }
    sgt_stats_add(&cells[0], g, h);
    for (a = 0; a < d; a++)
        sgt_stats_add(&cells[q->offsets[a] + node_code(q, node, x, a)], g, h);
    if (cells[0].n % p->grace_period == 0)
        return sgt_tree_attempt(t, i, q, p, s);
    return ST_OK;
}

int sgt_tree_attempt(sgt_tree *t, int32_t leaf, const sgt_quantizer *q, const sgt_params *p,
                     sgt_scratch *s)
{
    const sgt_node *node = &t->nodes[leaf];
    int32_t may_split = p->max_depth < 0 || node->depth < p->max_depth;
    sgt_best_candidate(node->cells, q, node->used, may_split, p->lam, p->gamma, s);
    if (sgt_passes_test(&s->best, node->cells[0].n, p->delta, p->one_sided))
        return sgt_tree_apply(t, leaf, q, &s->best);
    return ST_OK;
}

/* The most split attempts n_rows more rows can trigger in this tree: a leaf attempts when
 * its count reaches a multiple of grace_period, so each attempt takes grace_period rows of
 * one leaf, those it has counted since its last multiple included (a new child starts at 0):
 * at most (n_rows + sum over leaves of n mod grace_period) / grace_period, and at most one
 * per row */
int64_t sgt_tree_split_bound(const sgt_tree *t, int32_t grace_period, int64_t n_rows)
{
    int64_t pending = 0, bound;
    int32_t i;
    if (n_rows <= 1)
        return n_rows;
    for (i = 0; i < t->n_nodes; i++)
        if (t->nodes[i].first_child < 0)
            pending += t->nodes[i].cells[0].n % grace_period;
    bound = (n_rows + pending) / grace_period;
    return bound < n_rows ? bound : n_rows;
}

/* Free the spare leaves beyond keep (reserved for splits a call did not make); returns how
 * many were freed */
int64_t sgt_tree_release(sgt_tree *t, int64_t keep)
{
    int64_t freed = 0;
    while (t->n_spare > keep) {
        freed++;
        t->n_spare -= 1;
        alloc_free(t->spare_cells[t->n_spare]);
        alloc_free(t->spare_used[t->n_spare]);
        if (t->spare_range)
            alloc_free(t->spare_range[t->n_spare]);
    }
    return freed;
}

/* C only (hardening): make t a fresh tree again (one root leaf, value 0, empty cells, no
 * nominal feature used, no split or update counted) without allocating: the root takes the
 * buffers of a leaf (there is always one), every other node's are freed; root_range (4 d
 * doubles, per_leaf only) becomes the root's range. Spares are kept. */
void sgt_tree_reset(sgt_tree *t, const sgt_quantizer *q, const double *root_range)
{
    int32_t i, leaf = 0;
    sgt_stats *cells;
    uint8_t *used;
    double *range = t->nodes[0].range;
    while (t->nodes[leaf].first_child >= 0)
        leaf = t->nodes[leaf].first_child;
    cells = t->nodes[leaf].cells;
    used = t->nodes[leaf].used;
    for (i = 0; i < t->n_nodes; i++) {
        if (i != leaf) {
            alloc_free(t->nodes[i].cells);
            alloc_free(t->nodes[i].used);
        }
        if (i != 0)
            alloc_free(t->nodes[i].range);
    }
    clear_node(&t->nodes[0], 0, 0.0);
    memset(cells, 0, (size_t)q->n_cells * sizeof(sgt_stats));
    memset(used, 0, (size_t)q->d);
    t->nodes[0].cells = cells;
    t->nodes[0].used = used;
    t->nodes[0].range = range;
    if (q->per_leaf && root_range)
        memcpy(range, root_range, (size_t)(4 * q->d) * sizeof(double));
    t->n_nodes = 1;
    t->n_splits = 0;
    t->n_updates = 0;
    t->depth = 0;
}

/* largest number of children of a split: 2, or the most categories of a nominal feature */
static int32_t max_children(const sgt_quantizer *q)
{
    int32_t a, k = 2;
    for (a = 0; a < q->d; a++)
        if (q->kinds[a] > k)
            k = q->kinds[a];
    return k;
}

int sgt_tree_reserve(sgt_tree *t, const sgt_quantizer *q, int64_t splits)
{
    if (splits < 0 || splits > INT32_MAX)
        return splits < 0 ? ST_EINVAL : ST_ENOMEM;
    return sgt_tree_reserve_leaves(t, q, splits * (int64_t)max_children(q));
}

/* The leaves (node slots and spare leaf buffers) of a split with `children` children of the
 * row (codes, or x when per_leaf) with gradient pair (g, h) in this tree: 0 when the row's
 * leaf does not attempt at this row, or the attempt makes no split. The attempt is made on
 * a copy of the leaf's cells (`work`, n_cells) after the row's update, with the operations
 * of sgt_tree_learn / sgt_tree_learn_row and sgt_tree_attempt, so it decides as the real
 * attempt will; nothing in the tree changes. */
int32_t sgt_tree_plan(const sgt_tree *t, const sgt_quantizer *q, const sgt_params *p,
                      const double *x, const int32_t *codes, double g, double h,
                      sgt_scratch *s, sgt_stats *work)
{
    int32_t a, i = q->per_leaf ? sgt_tree_leaf_of(t, q, x) : sgt_tree_leaf_of_codes(t, codes);
    const sgt_node *node = &t->nodes[i];
    int32_t may_split = p->max_depth < 0 || node->depth < p->max_depth;
    if (!may_split || (node->cells[0].n + 1) % p->grace_period != 0)
        return 0;
    memcpy(work, node->cells, (size_t)q->n_cells * sizeof(sgt_stats));
    sgt_stats_add(&work[0], g, h);
    for (a = 0; a < q->d; a++)
        sgt_stats_add(&work[q->offsets[a] + (q->per_leaf ? node_code(q, node, x, a)
                                                          : codes[a])], g, h);
    sgt_best_candidate(work, q, node->used, may_split, p->lam, p->gamma, s);
    if (s->best.feature >= 0 && sgt_passes_test(&s->best, work[0].n, p->delta, p->one_sided))
        return s->best.n_children;
    return 0;
}

int sgt_tree_reserve_leaves(sgt_tree *t, const sgt_quantizer *q, int64_t need_spare)
{
    int64_t need_nodes;
    if (!t->nodes || need_spare < 0)
        return ST_EINVAL;
    need_nodes = (int64_t)t->n_nodes + need_spare;
    if (need_nodes > INT32_MAX)
        return ST_ENOMEM;
    if (need_nodes > t->cap) {
        int64_t cap = t->cap;
        sgt_node *grown;
        while (cap < need_nodes)
            cap = cap > INT32_MAX / 2 ? INT32_MAX : cap * 2;
        grown = alloc_realloc(t->nodes, (size_t)cap * sizeof *grown);
        if (!grown)
            return ST_ENOMEM;
        t->nodes = grown;
        t->cap = (int32_t)cap;
    }
    if (need_spare > t->spare_cap) {
        sgt_stats **cells = alloc_realloc(t->spare_cells, (size_t)need_spare * sizeof *cells);
        uint8_t **used;
        if (!cells)
            return ST_ENOMEM;
        t->spare_cells = cells;
        used = alloc_realloc(t->spare_used, (size_t)need_spare * sizeof *used);
        if (!used)
            return ST_ENOMEM;
        t->spare_used = used;
        if (q->per_leaf) {
            double **range = alloc_realloc(t->spare_range, (size_t)need_spare * sizeof *range);
            if (!range)
                return ST_ENOMEM;
            t->spare_range = range;
        }
        t->spare_cap = (int32_t)need_spare;
    }
    while (t->n_spare < need_spare) {
        sgt_stats *c = alloc_calloc((size_t)q->n_cells, sizeof(sgt_stats));
        uint8_t *u = alloc_malloc((size_t)q->d);
        double *r = q->per_leaf ? alloc_malloc((size_t)(4 * q->d) * sizeof(double)) : NULL;
        if (!c || !u || (q->per_leaf && !r)) {
            alloc_free(c);
            alloc_free(u);
            alloc_free(r);
            return ST_ENOMEM;
        }
        t->spare_cells[t->n_spare] = c;
        t->spare_used[t->n_spare] = u;
        if (q->per_leaf)
            t->spare_range[t->n_spare] = r;
        t->n_spare += 1;
    }
    return ST_OK;
}

/* per_leaf: ranges of child j of a split of `node` (Tree.child_ranges): the node's observed
 * ranges; on a numeric split feature the left child's upper end and the right child's lower
 * end become the chosen bin's upper edge when that narrows them */
static void child_ranges(const sgt_quantizer *q, const sgt_node *node,
                         const sgt_candidate *best, int32_t j, double *out)
{
    int32_t d = q->d, a = best->feature;
    const double *range = node->range;
    set_ranges(out, d, range + 2 * d, range + 3 * d);
    if (best->threshold >= 0) {
        double edge = sgt_split_edge(range[a], range[d + a], best->threshold, q->bins);
        if (j == 0 && edge < out[d + a])
            out[d + a] = edge;
        if (j == 1 && edge > out[a])
            out[a] = edge;
    }
}

int sgt_tree_apply(sgt_tree *t, int32_t leaf, const sgt_quantizer *q, const sgt_candidate *best)
{
    int32_t j, k = best->n_children, first = t->n_nodes;
    sgt_node *node;
    if (best->feature < 0) {
        node = &t->nodes[leaf];
        node->value = node->value + best->deltas[0];
        if (q->per_leaf)   /* re-bin to the values seen since the last reset */
            memcpy(node->range, node->range + 2 * q->d, (size_t)(2 * q->d) * sizeof(double));
        memset(node->cells, 0, (size_t)q->n_cells * sizeof(sgt_stats));
        t->n_updates += 1;
        return ST_OK;
    }
    if (t->n_nodes > INT32_MAX - k)
        return ST_ENOMEM;
    if (t->n_nodes + k > t->cap) {
        int32_t cap = t->cap;
        sgt_node *grown;
        while (cap < t->n_nodes + k)
            cap = cap > INT32_MAX / 2 ? INT32_MAX : cap * 2;
        grown = alloc_realloc(t->nodes, (size_t)cap * sizeof *grown);
        if (!grown)
            return ST_ENOMEM;
        t->nodes = grown;
        t->cap = cap;
    }
    node = &t->nodes[leaf];
    for (j = 0; j < k; j++) {
        sgt_node *child = &t->nodes[first + j];
        clear_node(child, node->depth + 1, node->value + best->deltas[j]);
        if (t->n_spare > 0) {   /* reserved by sgt_tree_reserve: zeroed, cannot fail */
            t->n_spare -= 1;
            child->cells = t->spare_cells[t->n_spare];
            child->used = t->spare_used[t->n_spare];
            if (q->per_leaf)
                child->range = t->spare_range[t->n_spare];
        } else {
            child->cells = alloc_calloc((size_t)q->n_cells, sizeof(sgt_stats));
            child->used = alloc_malloc((size_t)q->d);
            if (q->per_leaf)
                child->range = alloc_malloc((size_t)(4 * q->d) * sizeof(double));
        }
        if (!child->cells || !child->used || (q->per_leaf && !child->range)) {
            int32_t i;
            for (i = 0; i <= j; i++) {
                alloc_free(t->nodes[first + i].cells);
                alloc_free(t->nodes[first + i].used);
                alloc_free(t->nodes[first + i].range);
            }
            return ST_ENOMEM;
        }
        memcpy(child->used, node->used, (size_t)q->d);
        if (best->threshold < 0)
            child->used[best->feature] = 1;
        if (q->per_leaf)
            child_ranges(q, node, best, j, child->range);
    }
    node->feature = best->feature;
    node->threshold = best->threshold;
    node->first_child = first;
    node->n_children = k;
    alloc_free(node->cells);
    alloc_free(node->used);
    node->cells = NULL;
    node->used = NULL;
    t->n_nodes += k;
    t->n_splits += 1;
    if (node->depth + 1 > t->depth)
        t->depth = node->depth + 1;
    return ST_OK;
}

/* Replace the tree by n_nodes cleared nodes, allocating cells and mask for leaves
 * (is_leaf[i]); the caller then writes the fields (unpickling). */
int sgt_tree_restore(sgt_tree *t, const sgt_quantizer *q, int32_t n_nodes, const uint8_t *is_leaf)
{
    sgt_tree fresh;
    int32_t i;
    if (n_nodes < 1)
        return ST_EINVAL;
    memset(&fresh, 0, sizeof fresh);
    fresh.nodes = alloc_calloc((size_t)n_nodes, sizeof(sgt_node));
    if (!fresh.nodes)
        return ST_ENOMEM;
    fresh.cap = n_nodes;
    for (i = 0; i < n_nodes; i++) {
        clear_node(&fresh.nodes[i], 0, 0.0);
        fresh.n_nodes = i + 1;
        if (q->per_leaf) {
            fresh.nodes[i].range = alloc_calloc((size_t)(4 * q->d), sizeof(double));
            if (!fresh.nodes[i].range) {
                sgt_tree_free(&fresh);
                return ST_ENOMEM;
            }
        }
        if (is_leaf[i]) {
            fresh.nodes[i].cells = alloc_calloc((size_t)q->n_cells, sizeof(sgt_stats));
            fresh.nodes[i].used = alloc_calloc((size_t)q->d, 1);
            if (!fresh.nodes[i].cells || !fresh.nodes[i].used) {
                sgt_tree_free(&fresh);
                return ST_ENOMEM;
            }
        }
    }
    sgt_tree_free(t);
    *t = fresh;
    return ST_OK;
}
