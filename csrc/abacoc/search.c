/*
 * abacoc/search.c -- nearest-ball search for ABACOC: the distance rho, the exhaustive scan
 * and the loose kd-tree of [ABACOC-SPEC §13]. Mirrors reference/abacoc/search.py.
 *
 * Both structures return the same slot: the smallest computed distance sum ("raw"),
 * ties to the smallest ball id (tie rule T1 [ABACOC-SPEC T1]: equal distances go to the smallest id). The kd-tree is exact in floating point:
 * subtraction rounds monotonically, so a box gap term never exceeds the term of any
 * centre inside the box, sums of non-negative terms are monotone, and a node is pruned
 * only when its lower bound is strictly greater than the best sum so far.
 * Invariants: every node's box contains the centres below it and lies inside its
 * parent's box; each slot knows its leaf and its position in the leaf bucket.
 * Operations: insert O(D depth), delete O(1) (swap with last, boxes stay loose), move
 * O(D) typical (enlarge boxes upwards until one contains the new centre), rebuild by
 * median splits when ops > max(256, 2|S|). With search "auto" the index also drops a tree
 * whose queries visit half of the balls or more (high intrinsic dimension), for the scan,
 * until the cover has doubled (ab_index_maintain). Allocation failure inside the tree drops the
 * tree (the scan gives the same answers), so the model itself is never left broken.
 * C-only shortcut: the scan and leaf loops stop summing a candidate's distance once the
 * partial sum exceeds the best sum; that candidate could not win (sums are monotone),
 * so the answer is unchanged.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "abacoc/abacoc.h"

static const double MINKOWSKI_PRUNE_SLACK = 1.0 - 1e-12;

double ab_pow_or_inf(double base, double exponent)
{
    return pow(base, exponent); /* C's pow already returns inf on overflow */
}

double ab_distance_term(double diff, int32_t metric, double p)
{
    if (metric == AB_METRIC_EUCLIDEAN) return diff * diff;
    if (metric == AB_METRIC_MANHATTAN) return fabs(diff);
    return ab_pow_or_inf(fabs(diff), p);
}

double ab_raw_distance(const double *x, const double *c, int64_t n_features, int32_t metric,
                       double p)
{
    int64_t j;
    double total = 0.0;
    for (j = 0; j < n_features; j++) total += ab_distance_term(x[j] - c[j], metric, p);
    return total;
}

/* The same sum as ab_raw_distance, abandoned (returning a value > bound) once a partial
 * sum exceeds bound; the bound is tested every 4 coordinates. Exact: an abandoned
 * candidate could never win, and a completed sum is the same left-to-right sum. */
static inline double raw_distance_bounded(const double *x, const double *c, int64_t D,
                                          int32_t metric, double p, double bound)
{
    int64_t j;
    double total = 0.0, diff;
    if (metric == AB_METRIC_EUCLIDEAN) {
        for (j = 0; j < D; j++) {
            diff = x[j] - c[j];
            total += diff * diff;
            if ((j & 3) == 3 && total > bound) return total;
        }
        return total;
    }
    for (j = 0; j < D; j++) {
        total += ab_distance_term(x[j] - c[j], metric, p);
        if ((j & 3) == 3 && total > bound) return total;
    }
    return total;
}

double ab_rho(double raw, int32_t metric, double p)
{
    if (metric == AB_METRIC_EUCLIDEAN) return sqrt(raw);
    if (metric == AB_METRIC_MANHATTAN) return raw;
    return ab_pow_or_inf(raw, 1.0 / p);
}

/* Tie rule T1 [ABACOC-SPEC T1]: smaller sum wins, then the smaller ball id (best_id < 0: nothing yet). */
static int better(double raw, int64_t id, double best_raw, int64_t best_id)
{
    if (best_id < 0) return 1;
    return raw < best_raw || (raw == best_raw && id < best_id);
}

int64_t ab_scan_nearest(const ab_model *m, const double *x, double *raw_out)
{
    int64_t slot, j, best_slot = -1, best_id = -1;
    int64_t D = m->n_features, n = m->balls.n_balls;
    double raw, diff, best_raw = INFINITY;
    const double *c;
    if (m->par.metric == AB_METRIC_EUCLIDEAN && D == 2) {
        /* the planar case unrolled: (0 + d0*d0) + d1*d1 is d0*d0 + d1*d1 exactly */
        for (slot = 0, c = m->balls.center; slot < n; slot++, c += 2) {
            diff = x[0] - c[0];
            raw = diff * diff;
            diff = x[1] - c[1];
            raw += diff * diff;
            if (raw < best_raw || best_id < 0 || (raw == best_raw && m->balls.id[slot] < best_id)) {
                best_slot = slot;
                best_raw = raw;
                best_id = m->balls.id[slot];
            }
        }
        *raw_out = best_raw;
        return best_slot;
    }
    if (m->par.metric == AB_METRIC_EUCLIDEAN && D <= 4) {
        /* the common low-dimensional case: full sums, no early exit */
        for (slot = 0, c = m->balls.center; slot < n; slot++, c += D) {
            raw = 0.0;
            for (j = 0; j < D; j++) {
                diff = x[j] - c[j];
                raw += diff * diff;
            }
            if (raw < best_raw || best_id < 0 || (raw == best_raw && m->balls.id[slot] < best_id)) {
                best_slot = slot;
                best_raw = raw;
                best_id = m->balls.id[slot];
            }
        }
        *raw_out = best_raw;
        return best_slot;
    }
    for (slot = 0; slot < n; slot++) {
        raw = raw_distance_bounded(x, m->balls.center + slot * D, D, m->par.metric, m->par.p,
                                   best_id < 0 ? INFINITY : best_raw);
        if (better(raw, m->balls.id[slot], best_raw, best_id)) {
            best_slot = slot;
            best_raw = raw;
            best_id = m->balls.id[slot];
        }
    }
    *raw_out = best_raw;
    return best_slot;
}

/* ---- loose kd-tree ------------------------------------------------------------------ */

typedef struct {
    double key;    /* coordinate on the split dimension */
    int64_t slot;  /* ball slot (second sort key) */
} key_slot;

static int cmp_key_slot(const void *a, const void *b)
{
    const key_slot *u = (const key_slot *)a;
    const key_slot *v = (const key_slot *)b;
    if (u->key < v->key) return -1;
    if (u->key > v->key) return 1;
    if (u->slot < v->slot) return -1;
    if (u->slot > v->slot) return 1;
    return 0;
}

static int grow(void **ptr, size_t elem, int64_t count)
{
    void *q = alloc_realloc(*ptr, elem * (size_t)(count > 0 ? count : 1));
    if (q == NULL) return ST_ENOMEM;
    *ptr = q;
    return ST_OK;
}

static int ensure_nodes(ab_tree *t, int64_t need)
{
    int64_t cap;
    size_t D = (size_t)t->n_features, B = (size_t)(t->leaf_size + 1);
    if (need <= t->nodes.node_cap) return ST_OK;
    cap = t->nodes.node_cap * 2;
    if (cap < need) cap = need;
    if (cap < 16) cap = 16;
    if (grow((void **)&t->nodes.split_dim, sizeof(int64_t), cap)
        || grow((void **)&t->nodes.split_value, sizeof(double), cap)
        || grow((void **)&t->nodes.left, sizeof(int64_t), cap)
        || grow((void **)&t->nodes.right, sizeof(int64_t), cap)
        || grow((void **)&t->nodes.parent, sizeof(int64_t), cap)
        || grow((void **)&t->nodes.lo, sizeof(double) * D, cap)
        || grow((void **)&t->nodes.hi, sizeof(double) * D, cap)
        || grow((void **)&t->leaves.bucket, sizeof(int64_t) * B, cap)
        || grow((void **)&t->leaves.bucket_len, sizeof(int64_t), cap)
        || grow((void **)&t->buf.stack, sizeof(int64_t), 3 * cap + 8)
        || grow((void **)&t->buf.stack_bound, sizeof(double), 3 * cap + 8))
        return ST_ENOMEM;
    t->nodes.node_cap = cap;
    t->buf.stack_cap = 3 * cap + 8;
    return ST_OK;
}

static int ensure_slots(ab_tree *t, int64_t need)
{
    int64_t cap, i;
    if (need <= t->leaves.slot_cap) return ST_OK;
    cap = t->leaves.slot_cap * 2;
    if (cap < need) cap = need;
    if (cap < 16) cap = 16;
    if (grow((void **)&t->leaves.slot_leaf, sizeof(int64_t), cap)
        || grow((void **)&t->leaves.slot_pos, sizeof(int64_t), cap))
        return ST_ENOMEM;
    for (i = t->leaves.slot_cap; i < cap; i++) {
        t->leaves.slot_leaf[i] = -1;
        t->leaves.slot_pos[i] = -1;
    }
    t->leaves.slot_cap = cap;
    return ST_OK;
}

static int ensure_work(ab_tree *t, int64_t need)
{
    if (need <= t->buf.work_cap) return ST_OK;
    if (grow((void **)&t->buf.work, sizeof(int64_t), need)) return ST_ENOMEM;
    t->buf.work_cap = need;
    return ST_OK;
}

int32_t ab_tree_new(int64_t n_features, int64_t leaf_size, int32_t metric, double p,
                    ab_tree **out)
{
    ab_tree *t = (ab_tree *)alloc_calloc(1, sizeof(ab_tree));
    *out = t;
    if (t == NULL) return ST_ENOMEM;
    t->n_features = n_features;
    t->leaf_size = leaf_size;
    t->metric = metric;
    t->p = p;
    return ST_OK;
}

void ab_tree_free(ab_tree *t)
{
    if (t == NULL) return;
    alloc_free(t->nodes.split_dim);
    alloc_free(t->nodes.split_value);
    alloc_free(t->nodes.left);
    alloc_free(t->nodes.right);
    alloc_free(t->nodes.parent);
    alloc_free(t->nodes.lo);
    alloc_free(t->nodes.hi);
    alloc_free(t->leaves.bucket);
    alloc_free(t->leaves.bucket_len);
    alloc_free(t->leaves.slot_leaf);
    alloc_free(t->leaves.slot_pos);
    alloc_free(t->buf.work);
    alloc_free(t->buf.stack);
    alloc_free(t->buf.stack_bound);
    alloc_free(t);
}

/* Needs node capacity: the caller ensured it. */
static int64_t new_node(ab_tree *t, int64_t parent)
{
    int64_t j, node = t->nodes.n_nodes, D = t->n_features;
    t->nodes.n_nodes += 1;
    t->nodes.split_dim[node] = -1;
    t->nodes.split_value[node] = 0.0;
    t->nodes.left[node] = -1;
    t->nodes.right[node] = -1;
    t->nodes.parent[node] = parent;
    for (j = 0; j < D; j++) {
        t->nodes.lo[node * D + j] = INFINITY;
        t->nodes.hi[node * D + j] = -INFINITY;
    }
    t->leaves.bucket_len[node] = 0;
    return node;
}

/* Make node the root of a subtree over work[start .. start+count) by iterative median
 * splits on the widest coordinate: sort by (coordinate, slot), cut by position, so even
 * duplicate centres split. Mirrors LooseKDTree._partition. */
static int partition(ab_tree *t, const ab_model *m, int64_t node, int64_t start, int64_t count)
{
    int64_t D = t->n_features, L = t->leaf_size, B = L + 1;
    int64_t top = 0, cur, s0, n, i, j, slot, widest, mid, left, right;
    int64_t *stack;
    double *lo, *hi;
    const double *c;
    key_slot *pairs;
    if (ensure_nodes(t, t->nodes.n_nodes + 2 * count + 2)) return ST_ENOMEM;
    pairs = (key_slot *)alloc_malloc(sizeof(key_slot) * (size_t)(count > 0 ? count : 1));
    if (pairs == NULL) return ST_ENOMEM;
    stack = t->buf.stack;
    stack[top++] = node;
    stack[top++] = start;
    stack[top++] = count;
    while (top > 0) {
        n = stack[--top];
        s0 = stack[--top];
        cur = stack[--top];
        lo = t->nodes.lo + cur * D;
        hi = t->nodes.hi + cur * D;
        for (j = 0; j < D; j++) {
            lo[j] = INFINITY;
            hi[j] = -INFINITY;
        }
        for (i = 0; i < n; i++) {
            c = m->balls.center + t->buf.work[s0 + i] * D;
            for (j = 0; j < D; j++) {
                if (c[j] < lo[j]) lo[j] = c[j];
                if (c[j] > hi[j]) hi[j] = c[j];
            }
        }
        if (n <= L) {
            t->nodes.split_dim[cur] = -1;
            t->nodes.left[cur] = -1;
            t->nodes.right[cur] = -1;
            t->leaves.bucket_len[cur] = n;
            for (i = 0; i < n; i++) {
                slot = t->buf.work[s0 + i];
                t->leaves.bucket[cur * B + i] = slot;
                t->leaves.slot_leaf[slot] = cur;
                t->leaves.slot_pos[slot] = i;
            }
            continue;
        }
        widest = 0;
        for (j = 1; j < D; j++)
            if (hi[j] - lo[j] > hi[widest] - lo[widest]) widest = j;
        for (i = 0; i < n; i++) {
            slot = t->buf.work[s0 + i];
            pairs[i].key = m->balls.center[slot * D + widest];
            pairs[i].slot = slot;
        }
        qsort(pairs, (size_t)n, sizeof(key_slot), cmp_key_slot);
        for (i = 0; i < n; i++) t->buf.work[s0 + i] = pairs[i].slot;
        mid = n / 2;
        t->nodes.split_dim[cur] = widest;
        t->nodes.split_value[cur] = pairs[mid].key;
        t->leaves.bucket_len[cur] = 0;
        left = new_node(t, cur);
        right = new_node(t, cur);
        t->nodes.left[cur] = left;
        t->nodes.right[cur] = right;
        stack[top++] = right;
        stack[top++] = s0 + mid;
        stack[top++] = n - mid;
        stack[top++] = left;
        stack[top++] = s0;
        stack[top++] = mid;
    }
    alloc_free(pairs);
    return ST_OK;
}

/* 1 if every coordinate of the centre c is finite (mirrors _finite of kdtree.py) */
static int finite_center(const double *c, int64_t D)
{
    int64_t j;
    for (j = 0; j < D; j++)
        if (!isfinite(c[j])) return 0;
    return 1;
}

int ab_tree_build(ab_tree *t, const ab_model *m)
{
    int64_t i, root, n = m->balls.n_balls;
    if (ensure_nodes(t, 2 * n + 2) || ensure_slots(t, n + 1) || ensure_work(t, n + 1))
        return ST_ENOMEM;
    for (i = 0; i < t->leaves.slot_cap; i++) {
        t->leaves.slot_leaf[i] = -1;
        t->leaves.slot_pos[i] = -1;
    }
    t->nodes.n_nodes = 0;
    root = new_node(t, -1);
    for (i = 0; i < n; i++) t->buf.work[i] = i;
    if (partition(t, m, root, 0, n)) return ST_ENOMEM;
    t->ops = 0;
    t->queries = 0;
    t->visited = 0;
    t->finite = 1;
    for (i = 0; i < n && t->finite; i++)
        t->finite = finite_center(m->balls.center + i * t->n_features, t->n_features);
    return ST_OK;
}

static void enlarge(ab_tree *t, int64_t node, const double *c)
{
    int64_t j, D = t->n_features;
    double *lo = t->nodes.lo + node * D, *hi = t->nodes.hi + node * D;
    for (j = 0; j < D; j++) {
        if (c[j] < lo[j]) lo[j] = c[j];
        if (c[j] > hi[j]) hi[j] = c[j];
    }
}

static int contains(const ab_tree *t, int64_t node, const double *c)
{
    int64_t j, D = t->n_features;
    const double *lo = t->nodes.lo + node * D, *hi = t->nodes.hi + node * D;
    for (j = 0; j < D; j++)
        if (c[j] < lo[j] || c[j] > hi[j]) return 0;
    return 1;
}

int ab_tree_insert(ab_tree *t, const ab_model *m, int64_t slot)
{
    int64_t node = 0, len, i, L = t->leaf_size, B = L + 1, D = t->n_features;
    const double *c = m->balls.center + slot * D;
    if (ensure_slots(t, slot + 1) || ensure_work(t, B)
        || ensure_nodes(t, t->nodes.n_nodes + 2 * B + 2))
        return ST_ENOMEM;
    t->finite = t->finite && finite_center(c, D);
    for (;;) {
        enlarge(t, node, c);
        if (t->nodes.left[node] < 0) break;
        if (c[t->nodes.split_dim[node]] < t->nodes.split_value[node]) node = t->nodes.left[node];
        else node = t->nodes.right[node];
    }
    len = t->leaves.bucket_len[node];
    t->leaves.bucket[node * B + len] = slot;
    t->leaves.slot_leaf[slot] = node;
    t->leaves.slot_pos[slot] = len;
    t->leaves.bucket_len[node] = len + 1;
    if (len + 1 > L) {
        for (i = 0; i < len + 1; i++) t->buf.work[i] = t->leaves.bucket[node * B + i];
        if (partition(t, m, node, 0, len + 1)) return ST_ENOMEM;
    }
    t->ops += 1;
    return ST_OK;
}

void ab_tree_delete(ab_tree *t, int64_t slot)
{
    int64_t B = t->leaf_size + 1;
    int64_t leaf = t->leaves.slot_leaf[slot], pos = t->leaves.slot_pos[slot];
    int64_t len = t->leaves.bucket_len[leaf];
    int64_t last = t->leaves.bucket[leaf * B + len - 1];
    t->leaves.bucket[leaf * B + pos] = last;
    t->leaves.slot_pos[last] = pos;
    t->leaves.bucket_len[leaf] = len - 1;
    t->leaves.slot_leaf[slot] = -1;
    t->leaves.slot_pos[slot] = -1;
    t->ops += 1;
}

void ab_tree_move(ab_tree *t, const ab_model *m, int64_t slot)
{
    const double *c = m->balls.center + slot * t->n_features;
    int64_t node = t->leaves.slot_leaf[slot];
    t->finite = t->finite && finite_center(c, t->n_features);
    while (node >= 0 && !contains(t, node, c)) {
        enlarge(t, node, c);
        node = t->nodes.parent[node];
    }
    t->ops += 1;
}

double ab_tree_lower_bound(const ab_tree *t, int64_t node, const double *x)
{
    int64_t j, D = t->n_features;
    const double *lo = t->nodes.lo + node * D, *hi = t->nodes.hi + node * D;
    double total = 0.0;
    for (j = 0; j < D; j++) {
        if (x[j] < lo[j]) total += ab_distance_term(lo[j] - x[j], t->metric, t->p);
        else if (x[j] > hi[j]) total += ab_distance_term(x[j] - hi[j], t->metric, t->p);
    }
    if (t->metric != AB_METRIC_EUCLIDEAN && t->metric != AB_METRIC_MANHATTAN)
        total = total * MINKOWSKI_PRUNE_SLACK;
    return total;
}

/* Lower bound of a node, abandoned (returning a value > bound) once the partial sum
 * exceeds bound: such a node is pruned either way, so the decision is unchanged. */
static inline double lower_bound_until(const ab_tree *t, int64_t node, const double *x,
                                       double bound)
{
    int64_t j, D = t->n_features;
    const double *lo = t->nodes.lo + node * D, *hi = t->nodes.hi + node * D;
    double total = 0.0, gap;
    if (t->metric != AB_METRIC_EUCLIDEAN) return ab_tree_lower_bound(t, node, x);
    for (j = 0; j < D; j++) {
        if (x[j] < lo[j]) gap = lo[j] - x[j];
        else if (x[j] > hi[j]) gap = x[j] - hi[j];
        else continue;
        total += gap * gap;
        if (total > bound) return total;
    }
    return total;
}

/* Depth-first search, the traversal of LooseKDTree.nearest: the children's lower bounds
 * are computed when a node is expanded, the child with the smaller bound is visited first
 * (ties: the side of the split plane), and a child whose bound already exceeds the best
 * sum is not pushed. The bounds abandoned early (lower_bound_until) only ever exceed the
 * best sum, so the nodes pushed, their order and the balls visited are those of the
 * Python search; queries and visited count the work for ab_index_maintain. */
static int64_t tree_search(const ab_tree *t, const ab_model *m, const double *x,
                           int64_t *stack, double *bounds, int64_t *visited, double *raw_out)
{
    int64_t top = 0, node, i, slot, len, near, far, B = t->leaf_size + 1, D = t->n_features;
    int64_t best_slot = -1, best_id = -1;
    double raw, lb, lb_near, lb_far, best_raw = INFINITY;
    stack[top] = 0;
    bounds[top] = 0.0;
    top++;
    while (top > 0) {
        top--;
        node = stack[top];
        lb = bounds[top];
        if (best_id >= 0 && lb > best_raw) continue;
        if (t->nodes.left[node] < 0) {
            len = t->leaves.bucket_len[node];
            *visited += len;
            for (i = 0; i < len; i++) {
                slot = t->leaves.bucket[node * B + i];
                raw = raw_distance_bounded(x, m->balls.center + slot * D, D, t->metric, t->p,
                                           best_id < 0 ? INFINITY : best_raw);
                if (better(raw, m->balls.id[slot], best_raw, best_id)) {
                    best_slot = slot;
                    best_raw = raw;
                    best_id = m->balls.id[slot];
                }
            }
            continue;
        }
        if (x[t->nodes.split_dim[node]] < t->nodes.split_value[node]) {
            near = t->nodes.left[node];
            far = t->nodes.right[node];
        } else {
            near = t->nodes.right[node];
            far = t->nodes.left[node];
        }
        lb_near = lower_bound_until(t, near, x, best_id < 0 ? INFINITY : best_raw);
        lb_far = lower_bound_until(t, far, x, best_id < 0 ? INFINITY : best_raw);
        if (lb_far < lb_near) {
            i = near;
            near = far;
            far = i;
            lb = lb_near;
            lb_near = lb_far;
            lb_far = lb;
        }
        if (best_id < 0 || !(lb_far > best_raw)) {
            stack[top] = far;
            bounds[top] = lb_far;
            top++;
        }
        if (best_id < 0 || !(lb_near > best_raw)) {
            stack[top] = near;
            bounds[top] = lb_near;
            top++;
        }
    }
    *raw_out = best_raw;
    return best_slot;
}

int64_t ab_tree_nearest(ab_tree *t, const ab_model *m, const double *x, double *raw_out)
{
    t->queries += 1;
    return tree_search(t, m, x, t->buf.stack, t->buf.stack_bound, &t->visited, raw_out);
}

/* ab_index_nearest with the caller's scratch, the model read only */
int64_t ab_search_nearest(const ab_model *m, ab_search *s, const double *x, double *raw_out)
{
    if (m->tree != NULL && m->tree->finite) {
        s->queries += 1;
        return tree_search(m->tree, m, x, s->stack, s->bounds, &s->visited, raw_out);
    }
    return ab_scan_nearest(m, x, raw_out);
}

/* ---- the model's index: scan or tree ----------------------------------------------- */

static void drop_tree(ab_model *m)
{
    ab_tree_free(m->tree);
    m->tree = NULL;
}

int64_t ab_index_nearest(ab_model *m, const double *x, double *raw_out)
{
    if (m->tree != NULL && m->tree->finite) return ab_tree_nearest(m->tree, m, x, raw_out);
    return ab_scan_nearest(m, x, raw_out);
}

void ab_index_inserted(ab_model *m, int64_t slot)
{
    if (m->tree != NULL && ab_tree_insert(m->tree, m, slot) != ST_OK) drop_tree(m);
}

void ab_index_deleted(ab_model *m, int64_t slot)
{
    if (m->tree != NULL) ab_tree_delete(m->tree, slot);
}

void ab_index_moved(ab_model *m, int64_t slot)
{
    if (m->tree != NULL) ab_tree_move(m->tree, m, slot);
}

void ab_index_cleared(ab_model *m)
{
    drop_tree(m);
    m->tree_retry_at = 0;
}

/* 0 once the tree's queries since its build (at least AB_PROBE_QUERIES) computed the
 * distance to half of the balls or more on average (search "auto" only); mirrors
 * BallIndex._tree_pays. */
static int tree_pays(const ab_model *m)
{
    const ab_tree *t = m->tree;
    if (m->par.search != AB_SEARCH_AUTO || t == NULL || t->queries < AB_PROBE_QUERIES) return 1;
    return 2 * t->visited < t->queries * m->balls.n_balls;
}

/* Speed only: every search gives the same answer. A tree that does not pay is dropped
 * and tried again once the cover holds twice as many balls. */
void ab_index_maintain(ab_model *m)
{
    int64_t limit, n = m->balls.n_balls;
    int wants;
    if (!tree_pays(m)) {
        drop_tree(m);
        m->tree_retry_at = 2 * n;
    }
    wants = m->par.search == AB_SEARCH_KDTREE
            || (m->par.search == AB_SEARCH_AUTO && n >= m->par.search_threshold
                && n >= m->tree_retry_at);
    if (!wants) {
        drop_tree(m);
        return;
    }
    if (m->tree == NULL) {
        if (ab_tree_new(m->n_features, m->par.leaf_size, m->par.metric, m->par.p, &m->tree)
            == ST_OK && ab_tree_build(m->tree, m) != ST_OK) drop_tree(m);
        return;
    }
    limit = 2 * m->balls.n_balls;
    if (limit < AB_REBUILD_MIN_OPS) limit = AB_REBUILD_MIN_OPS;
    if (m->tree->ops > limit && ab_tree_build(m->tree, m) != ST_OK) drop_tree(m);
}
