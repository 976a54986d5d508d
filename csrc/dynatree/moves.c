/*
 * dynatree/moves.c -- stay / grow / prune moves of one particle [AG13, Eq. 2, §2.2]; mirrors
 * reference/dynatree/moves.py.
 *
 * dt_propagate inserts the new point into its leaf eta, scores the subtree under eta's
 * parent Pi as it is (stay), with eta split at one luvar candidate (grow) and with the
 * whole subtree under Pi merged into one leaf (prune), and samples the move with
 * log-sum-exp weights. Scratch stats blocks: sbuf[0], sbuf[1] = grow children,
 * sbuf[2] = merged leaf. Node capacity for the two children is reserved by the caller.
 * Random draws ([DT-SPEC §0] item 6 (b)), all from the slot's generator r: below(d) and
 * uniform() for the candidate (when feasible), then one uniform() for the move when grow
 * or prune is finite.
 * Every write to a node or set that existed before the row is logged first (dynatree/txn.c).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "dynatree/dynatree.h"

/* v into the sorted buffer buf[0..a] at or below slot a, by insertion (largest = 1:
 * descending order); buf[a] is dropped */
static void insert_sorted(double *buf, int32_t a, double v, int largest)
{
    if (largest) {
        while (a > 0 && buf[a - 1] < v) {
            buf[a] = buf[a - 1];
            a--;
        }
    } else {
        while (a > 0 && buf[a - 1] > v) {
            buf[a] = buf[a - 1];
            a--;
        }
    }
    buf[a] = v;
}

/* the k-th smallest (*lo) and k-th largest (*hi) of vals[0..n), n >= k >= 1, by insertion
 * into the sorted buffers small[0..k) and large[0..k): a value enters when fewer than k
 * are kept or it is strictly beyond the k-th kept one (held in a register) */
static void kth_values(const double *vals, int32_t n, int32_t k, double *small, double *large,
                       double *lo, double *hi)
{
    int32_t b;
    double v, e_small = 0.0, e_large = 0.0;
    for (b = 0; b < k; b++) {
        insert_sorted(small, b, vals[b], 0);
        insert_sorted(large, b, vals[b], 1);
    }
    e_small = small[k - 1];
    e_large = large[k - 1];
    for (b = k; b < n; b++) {
        v = vals[b];
        if (v < e_small) {
            insert_sorted(small, k - 1, v, 0);
            e_small = small[k - 1];
        }
        if (v > e_large) {
            insert_sorted(large, k - 1, v, 1);
            e_large = large[k - 1];
        }
    }
    *lo = e_small;
    *hi = e_large;
}

/* lo = the minp-th smallest, hi = the minp-th largest value of column col (stride d) over
 * the points (= sorted order) */
static void column_kth(dt_model *m, const double *col, const int32_t *points, int32_t n,
                       double *lo, double *hi)
{
    int32_t minp = m->par.minp, b, d = m->par.d;
    double *vals = m->buf.vbuf + 2 * minp;
    if (minp == 1) { /* kth_values with k = 1 (the first minimum and maximum), fused */
        double l, h;
        l = h = col[(int64_t)points[0] * d];
        for (b = 1; b < n; b++) {
            double v = col[(int64_t)points[b] * d];
            if (v < l) l = v;
            if (v > h) h = v;
        }
        *lo = l;
        *hi = h;
        return;
    }
    /* gathered first (one pass of independent loads) for the insertion passes */
    for (b = 0; b < n; b++) vals[b] = col[(int64_t)points[b] * d];
    kth_values(vals, n, minp, m->buf.vbuf, m->buf.vbuf + minp, lo, hi);
}

/* column_kth of column j over the points of set `set`, memoised in the set for the open
 * transaction: a set that received the row's point no longer changes in it, and the
 * particles duplicated by resampling share it (dt_leaf_append_shared), so each column's
 * pair is found once per set rather than once per particle. The memo holds the two
 * doubles column_kth returned; set = -1 (or no transaction, or j >= 32) computes */
static void memo_column_kth(dt_model *m, int32_t set, int32_t j, const int32_t *points,
                            int32_t n, double *lo, double *hi)
{
    dt_pointset *ps = set >= 0 ? &m->pool.sets[set] : NULL;
    double *pair;
    if (ps == NULL || !m->txn.in_txn || j >= 32) {
        column_kth(m, m->store.X + j, points, n, lo, hi);
        return;
    }
    if (m->wk != NULL) { /* the set may be shared with other workers: the worker's memo */
        uint32_t h = ((uint32_t)set * 2654435761u) ^ ((uint32_t)j * 40503u);
        dt_wk_kth *e = &m->wk->kmemo[(h ^ (h >> 15)) & (DT_WK_MEMO - 1)];
        if (!(e->txn == m->txn.txn_id && e->set == set && e->ver == ps->ver && e->j == j)) {
            column_kth(m, m->store.X + j, points, n, &e->lo, &e->hi);
            e->txn = m->txn.txn_id;
            e->set = set;
            e->ver = ps->ver;
            e->j = j;
        }
        *lo = e->lo;
        *hi = e->hi;
        return;
    }
    pair = m->pool.set_kth + ((int64_t)set * DT_KTH_COLS(m->par.d) + j) * 2;
    if (ps->kth_txn != m->txn.txn_id) {
        ps->kth_txn = m->txn.txn_id;
        ps->kth_mask = 0;
    }
    if (!((ps->kth_mask >> j) & 1u)) {
        column_kth(m, m->store.X + j, points, n, &pair[0], &pair[1]);
        ps->kth_mask |= 1u << j;
    }
    *lo = pair[0];
    *hi = pair[1];
}

/* [DT-SPEC §4.2] mirrors grow_candidate; points = the leaf's points (arrival order), those
 * of point set `set` (-1 if they are not a set's). The split of the candidate
 * (split_points) reads column j of the points from the store */
int dt_grow_candidate(dt_model *m, const int32_t *points, int32_t n, int32_t set, int32_t *var,
                      double *value, rng_state *r)
{
    int32_t minp = m->par.minp, j;
    double lo, hi, u;
    if (!(m->par.alpha > 0.0) || n < 2 * minp) return 0;
    j = (int32_t)rng_below(r, (uint64_t)m->par.d);
    memo_column_kth(m, set, j, points, n, &lo, &hi);
    if (!(lo < hi)) return 0;
    u = rng_uniform(r);
    *var = j;
    *value = lo + u * (hi - lo);
    return 1;
}

/* [DT-SPEC §0] item 6, §4.4 REC (REC = driftwood's own choice where dynaTree is buggy or
 * silent: log-sum-exp with the maximum subtracted) mirrors choose_move */
int dt_choose_move(double l_stay, double l_prune, double l_grow, rng_state *r)
{
    double l_max = -INFINITY, w_stay, w_prune, w_grow, z, u;
    if (!isfinite(l_grow) && !isfinite(l_prune)) return DT_STAY;
    if (isfinite(l_stay) && l_stay > l_max) l_max = l_stay;
    if (isfinite(l_prune) && l_prune > l_max) l_max = l_prune;
    if (isfinite(l_grow) && l_grow > l_max) l_max = l_grow;
    /* the maximum's weight is exp(0.0) = 1.0 exactly, without the call */
    w_stay = isfinite(l_stay) ? (l_stay == l_max ? 1.0 : exp(l_stay - l_max)) : 0.0;
    w_prune = isfinite(l_prune) ? (l_prune == l_max ? 1.0 : exp(l_prune - l_max)) : 0.0;
    w_grow = isfinite(l_grow) ? (l_grow == l_max ? 1.0 : exp(l_grow - l_max)) : 0.0;
    z = (w_stay + w_prune) + w_grow;
    u = rng_uniform(r);
    if (u < w_stay / z) return DT_STAY;
    if (u < (w_stay + w_prune) / z) return DT_PRUNE;
    return DT_GROW;
}

/* the union of the points under the leaves (sorted = arrival order) into out */
static int32_t union_points(dt_model *m, const dt_particle *t, const int32_t *lv,
                            int32_t n_leaves, int32_t *out)
{
    /* each leaf's list is sorted: merge them one by one (tmp = third part of ibuf2, so
     * that the grow children lists in its first two parts survive) */
    int32_t a, count = 0, i, j, k, nb;
    const dt_pointset *ps;
    int32_t *tmp = m->buf.ibuf2 + 2 * m->store.cap;
    for (a = 0; a < n_leaves; a++) {
        ps = &m->pool.sets[t->nodes[lv[a]].set];
        nb = ps->n;
        i = 0;
        j = 0;
        k = 0;
        while (i < count && j < nb) tmp[k++] = out[i] < ps->pts[j] ? out[i++] : ps->pts[j++];
        while (i < count) tmp[k++] = out[i++];
        while (j < nb) tmp[k++] = ps->pts[j++];
        if (k > 0) memcpy(out, tmp, sizeof(int32_t) * (size_t)k);
        count = k;
    }
    return count;
}

/* the branch-free partition of pts (column col, stride d, of the store) at xi: each point
 * is written to
 * both lists and only the count of its side advances (a later point or nothing reads the
 * other slot), since the side of a point is as unpredictable as a coin; side[a] = 1 for
 * the right. With y (two classes), counts only, no lists nor flags: ones[0] = points of
 * class 1 and ones[1] = those on the right. Returns the number of right points */
static int32_t partition(const int32_t *pts, const double *col, int32_t d, int32_t n, double xi,
                         int32_t *left, int32_t *right, unsigned char *side, const double *y,
                         int32_t *ones)
{
    int32_t a, nl = 0, nr = 0, one = 0, one_r = 0;
    if (y != NULL) { /* counts only: the lists are built if the grow is taken */
        for (a = 0; a < n; a++) {
            int32_t r = !(col[(int64_t)pts[a] * d] <= xi), lab = (int32_t)y[pts[a]];
            nr += r;
            one += lab;
            one_r += lab & r;
        }
        ones[0] = one;
        ones[1] = one_r;
        return nr;
    }
    for (a = 0; a < n; a++) {
        int32_t pt = pts[a], r = !(col[(int64_t)pt * d] <= xi);
        left[nl] = pt;
        right[nr] = pt;
        nl += 1 - r;
        nr += r;
        side[a] = (unsigned char)r;
    }
    return nr;
}

/* the split of a constant leaf in one pass: the points to the left / right lists of ibuf2
 * and S_y, S_yy of each child accumulated in sbuf[0], sbuf[1] (the inlined
 * dt_stats_accumulate of the constant leaf, same operations in the same order per child;
 * n is set by the caller). Returns the number of right points */
static int32_t split_constant(dt_model *m, const int32_t *pts, const double *col, int32_t n,
                              double xi)
{
    int32_t a, nl = 0, nr = 0;
    double *sb = m->buf.sbuf;
    for (a = 0; a < n; a++) {
        int32_t pt = pts[a];
        double *ch = sb, yi = m->store.y[pt];
        if (col[(int64_t)pt * m->par.d] <= xi) {
            m->buf.ibuf2[nl++] = pt;
        } else {
            m->buf.ibuf2[m->store.cap + nr++] = pt;
            ch = sb + m->cfg.sw;
        }
        ch[DT_OFF_SY] = ch[DT_OFF_SY] + yi;
        ch[DT_OFF_SYY] = ch[DT_OFF_SYY] + yi * yi;
    }
    return nr;
}

/* the class counts of the two grow children (n = nl + nr points, class of point pt =
 * (int)y[pt]): every partial sum of n and of the class counts in dt_stats_accumulate
 * starts at 0.0 and gains 1.0 per point, so it is an exact integer (below 2^53); counted
 * here in integers and converted once, they are the same doubles. Two classes: from the
 * register sums of partition (ones) by exact integer subtraction; more: one counter per
 * side and class (side flags of partition) */
static void class_counts(dt_model *m, const int32_t *pts, int32_t n, int32_t nr,
                         const unsigned char *right, const int32_t *ones, double *left_st,
                         double *right_st)
{
    const dt_leaf_config *c = &m->cfg;
    int32_t a, cnt[2][16];
    int k;
    if (c->n_classes == 2) {
        left_st[c->off_counts] = (double)((n - nr) - (ones[0] - ones[1]));
        left_st[c->off_counts + 1] = (double)(ones[0] - ones[1]);
        right_st[c->off_counts] = (double)(nr - ones[1]);
        right_st[c->off_counts + 1] = (double)ones[1];
        return;
    }
    for (k = 0; k < 16; k++) cnt[0][k] = cnt[1][k] = 0;
    for (a = 0; a < n; a++) cnt[right[a]][(int)m->store.y[pts[a]]]++;
    for (k = 0; k < c->n_classes; k++) {
        left_st[c->off_counts + k] = (double)cnt[0][k];
        right_st[c->off_counts + k] = (double)cnt[1][k];
    }
}

/* the grow children of one split (xi on column j of dt_grow_candidate), built
 * from the leaf's points (pts, arrival order): left points in ibuf2, right points in
 * ibuf2 + cap (partition), and, except for the implicit linear leaf (fused = 0), the
 * children's statistics in sbuf[0] and sbuf[1] with the same operations, per child, as
 * dt_stats_from_points (n and class counts: exact integers, class_counts). Returns 0
 * if the lists are left to the caller (two classes: partition counts only) */
static int split_points(dt_model *m, const int32_t *pts, int32_t n_points, int32_t j, double xi,
                        int fused, int32_t *n_left, int32_t *n_right)
{
    const dt_leaf_config *c = &m->cfg;
    int sw = c->sw;
    int32_t a, nr, ones[2] = {0, 0};
    unsigned char *side = (unsigned char *)(m->buf.ibuf2 + 2 * m->store.cap);
    const double *col = m->store.X + j; /* x_j of the store's rows */
    int int_counts = c->kind == DT_CLASS && c->n_classes <= 16;
    if (fused) {
        dt_stats_clear(m->buf.sbuf, c);
        dt_stats_clear(m->buf.sbuf + sw, c);
    }
    if (c->kind == DT_CONSTANT)
        nr = split_constant(m, pts, col, n_points, xi);
    else
        nr = partition(pts, col, m->par.d, n_points, xi, m->buf.ibuf2, m->buf.ibuf2 + m->store.cap, side,
                       c->kind == DT_CLASS && c->n_classes == 2 ? m->store.y : NULL, ones);
    for (a = 0; a < n_points && !int_counts && fused && c->kind != DT_CONSTANT; a++) {
        int32_t pt = pts[a];
        double *ch = m->buf.sbuf + (side[a] ? sw : 0);
        if (c->kind == DT_CLASS) {
            /* inlined dt_stats_accumulate of the class leaf (same operations) */
            ch[c->off_counts + (int)m->store.y[pt]] += 1.0;
        } else {
            dt_stats_accumulate(ch, c, pt, m->store.X, m->store.y, m->par.d, m->buf.work);
        }
    }
    if (c->kind == DT_CLASS || c->kind == DT_CONSTANT) {
        m->buf.sbuf[DT_OFF_N] = (double)(n_points - nr);
        m->buf.sbuf[sw + DT_OFF_N] = (double)nr;
    }
    if (int_counts) class_counts(m, pts, n_points, nr, side, ones, m->buf.sbuf, m->buf.sbuf + sw);
    *n_left = n_points - nr;
    *n_right = nr;
    return !(c->kind == DT_CLASS && c->n_classes == 2); /* lists built */
}

/* the grow children of the candidate (j, xi) of the leaf (statistics st, points pts):
 * split_points, then their statistics in sbuf[0], sbuf[1] if both keep minp points;
 * returns 0 if not (-1 if the lists are left to grow_lists, else 1) */
static int build_children(dt_model *m, const double *st, const int32_t *pts, int32_t n_points,
                          int32_t j, double xi, int32_t *nl, int32_t *nr)
{
    const dt_leaf_config *c = &m->cfg;
    int sw = c->sw, fused = !(c->kind == DT_LINEAR && c->delta == 1);
    int lists = split_points(m, pts, n_points, j, xi, fused, nl, nr);
    if (*nl < m->par.minp || *nr < m->par.minp) return 0;
    if (fused) {
        dt_stats_finish(m->buf.sbuf, c, st, m->buf.work);
        dt_stats_finish(m->buf.sbuf + sw, c, st, m->buf.work);
    } else {
        dt_stats_from_points(m->buf.sbuf, c, m->buf.ibuf2, *nl, m->store.X, m->store.y, m->par.d, st, m->buf.work);
        dt_stats_from_points(m->buf.sbuf + sw, c, m->buf.ibuf2 + m->store.cap, *nr, m->store.X, m->store.y, m->par.d, st,
                             m->buf.work);
    }
    return lists ? 1 : -1;
}

/* the entry of the grow memo for splitting set `set` on column j with nl points left
 * (NULL outside a transaction); *hit = 1 if it holds that split's evidences */
static dt_grow_memo *grow_memo_entry(dt_model *m, int32_t set, int32_t j, int32_t nl, int *hit)
{
    dt_grow_memo *e;
    uint32_t h;
    *hit = 0;
    if (!m->txn.in_txn || m->pool.grow_memo == NULL) return NULL;
    h = ((uint32_t)set * 2654435761u) ^ ((uint32_t)nl * 40503u) ^ ((uint32_t)j * 2246822519u);
    e = &m->pool.grow_memo[(h ^ (h >> 15)) & (DT_GROW_MEMO - 1)];
    *hit = e->txn == m->txn.txn_id && e->set == set && e->ver == m->pool.sets[set].ver &&
           e->j == j && e->nl == nl;
    return e;
}

/* the grow step of propagate: draw a candidate split of the leaf (points pts, read in
 * place in the leaf's own point set) and, if both children keep minp points, return the
 * subtree score with the leaf grown (else -inf); *grown says whether the children are
 * ready: 1 with their point lists and statistics in sbuf[0], sbuf[1], 2 with their
 * statistics only (the lists are built by grow_lists if the grow is taken), 3 with
 * neither (build_children makes them if the grow is taken), and *l_stay is then the stay
 * score (from the same traversal; else NaN, left to the caller). The children's
 * evidences are a function of the leaf's point set, the column and the points left of the
 * threshold, whose count fixes which they are: for regression leaves they are memoised
 * for the transaction, so that the particles duplicated by resampling, which share the
 * set and often draw the same split, count the left points instead of building the
 * children (class children are cheaper to build than to count and look up) */
static double grow_score(dt_model *m, const dt_particle *t, int32_t leaf, int32_t top,
                         const double *st, const int32_t *pts, int32_t n_points, int32_t *j,
                         double *xi, int32_t *nl, int32_t *nr, int *grown, double *l_stay,
                         rng_state *r)
{
    int sw = m->cfg.sw, hit, built;
    int32_t a, left = 0, set = t->nodes[leaf].set;
    const double *col;
    double l_grow, ell_l, ell_r;
    dt_grow_memo *e;
    *grown = 0;
    *l_stay = NAN; /* not computed */
    if (!dt_grow_candidate(m, pts, n_points, set, j, xi, r)) return -INFINITY;
    e = NULL;
    hit = 0;
    if (m->cfg.kind != DT_CLASS) { /* the class evidence costs less than the count */
        col = m->store.X + *j;
        for (a = 0; a < n_points; a++) left += col[(int64_t)pts[a] * m->par.d] <= *xi;
        /* the split's left count (x_j <= xi, as partition counts it) fixes whether both
         * children keep minp points: a split that cannot is not built */
        if (left < m->par.minp || n_points - left < m->par.minp) return -INFINITY;
        e = grow_memo_entry(m, set, *j, left, &hit);
    }
    if (hit) {
        *nl = left;
        *nr = n_points - left;
        ell_l = e->ell[0];
        ell_r = e->ell[1];
        *grown = 3;
    } else {
        built = build_children(m, st, pts, n_points, *j, *xi, nl, nr);
        if (!built) return -INFINITY;
        ell_l = m->buf.sbuf[DT_OFF_ELL];
        ell_r = m->buf.sbuf[sw + DT_OFF_ELL];
        if (e != NULL) {
            e->txn = m->txn.txn_id;
            e->set = set;
            e->ver = m->pool.sets[set].ver;
            e->j = *j;
            e->nl = *nl;
            e->ell[0] = ell_l;
            e->ell[1] = ell_r;
        }
        *grown = built > 0 ? 1 : 2;
    }
    /* the stay score too, in the same traversal */
    dt_subtree_log_scores(m, t, top, leaf, ell_l, ell_r, l_stay, &l_grow);
    return l_grow;
}

/* the statistics of the leaves lv[0..n_leaves) under parent merged into sbuf[2]
 * (dt_merge_stats; the implicit linear leaf from the union of their points) */
static void merge_leaves(dt_model *m, const dt_particle *t, const int32_t *lv, int32_t n_leaves)
{
    const dt_leaf_config *c = &m->cfg;
    int32_t a, n_points = 0;
    if (c->kind == DT_LINEAR && c->delta == 1)
        n_points = union_points(m, t, lv, n_leaves, m->buf.ibuf);
    for (a = 0; a < n_leaves; a++) m->buf.stack[a] = t->nodes[lv[a]].set;
    dt_merge_stats(m->buf.sbuf + 2 * c->sw, c, m->pool.set_stats, m->buf.stack, n_leaves,
                   m->buf.ibuf, n_points, m->store.X, m->store.y, m->par.d, m->buf.work);
}

/* prune_score of a parent whose two children are leaves lv[0], lv[1], in a worker of the
 * threaded step: the memo is the worker's own (pmemo, keyed by both sets and their
 * versions), since the sets may be shared with other workers' particles */
static double worker_prune_score(dt_model *m, const dt_particle *t, int32_t parent,
                                 const int32_t *lv, int *merged)
{
    int32_t ls = t->nodes[lv[0]].set, rs = t->nodes[lv[1]].set;
    uint32_t lver = m->pool.sets[ls].ver, rver = m->pool.sets[rs].ver;
    uint32_t h = ((uint32_t)ls * 2654435761u) ^ ((uint32_t)rs * 40503u);
    dt_wk_prune *e = &m->wk->pmemo[(h ^ (h >> 15)) & (DT_WK_MEMO - 1)];
    if (e->txn == m->txn.txn_id && e->left == ls && e->right == rs && e->lver == lver &&
        e->rver == rver) {
        *merged = 2;
        return dt_prior_leaf(m, t->nodes[parent].depth) + e->ell;
    }
    merge_leaves(m, t, lv, 2);
    e->txn = m->txn.txn_id;
    e->left = ls;
    e->right = rs;
    e->lver = lver;
    e->rver = rver;
    e->ell = m->buf.sbuf[2 * m->cfg.sw + DT_OFF_ELL];
    *merged = 1;
    return dt_prior_leaf(m, t->nodes[parent].depth) + e->ell;
}

/* the prune step of propagate: if the leaves under parent hold 2 minp points, the score of
 * parent as one leaf (else -inf), from their merged statistics. When parent's two children
 * are leaves, the merged evidence is a function of their two point sets alone: it is
 * memoised in the left set for the open transaction (keyed by the right set and its
 * version), and particles duplicated by resampling, which share both sets, read the double
 * the first one computed. *merged = 1 if sbuf[2] holds the merged statistics, 2 if they
 * were not needed (apply_prune then merges them first, with the same operations) */
static double prune_score(dt_model *m, const dt_particle *t, int32_t parent, int *merged)
{
    int sw = m->cfg.sw;
    int32_t a, count = 0, *lv = m->buf.stack + m->pf.cap_nodes;
    int32_t n_leaves = dt_collect_leaves(m, t, parent, lv);
    dt_pointset *left = NULL, *right = NULL;
    *merged = 0;
    for (a = 0; a < n_leaves; a++)
        count += (int32_t)dt_leaf_stats(m, t, lv[a])[DT_OFF_N];
    if (count < 2 * m->par.minp) return -INFINITY;
    if (n_leaves == 2 && m->wk != NULL) return worker_prune_score(m, t, parent, lv, merged);
    if (n_leaves == 2 && m->txn.in_txn) {
        left = &m->pool.sets[t->nodes[lv[0]].set];
        right = &m->pool.sets[t->nodes[lv[1]].set];
        if (left->prune_txn == m->txn.txn_id && left->prune_right == t->nodes[lv[1]].set &&
            left->prune_ver == right->ver) {
            *merged = 2;
            return dt_prior_leaf(m, t->nodes[parent].depth) + left->prune_ell;
        }
    }
    merge_leaves(m, t, lv, n_leaves);
    if (left != NULL) {
        left->prune_txn = m->txn.txn_id;
        left->prune_right = t->nodes[lv[1]].set;
        left->prune_ver = right->ver;
        left->prune_ell = m->buf.sbuf[2 * sw + DT_OFF_ELL];
    }
    *merged = 1;
    return dt_prior_leaf(m, t->nodes[parent].depth) + m->buf.sbuf[2 * sw + DT_OFF_ELL];
}

/* the children's point lists of a grow whose statistics were built without them (grown
 * = 2 in grow_score): the partition of the leaf's points pts at xi on column j */
static void grow_lists(dt_model *m, const int32_t *pts, int32_t n_points, int32_t j, double xi)
{
    partition(pts, m->store.X + j, m->par.d, n_points, xi, m->buf.ibuf2,
              m->buf.ibuf2 + m->store.cap, (unsigned char *)(m->buf.ibuf2 + 2 * m->store.cap),
              NULL, NULL);
}

/* apply a grow: two children of leaf (points in ibuf2, stats in sbuf[0], sbuf[1]) */
static void apply_grow(dt_model *m, dt_particle *t, int32_t leaf, int32_t j, double xi,
                       int32_t nl, int32_t nr)
{
    int sw = m->cfg.sw;
    int32_t a, kids[2];
    for (a = 0; a < 2; a++) {
        kids[a] = dt_node_alloc(m, t);
        t->nodes[kids[a]].depth = t->nodes[leaf].depth + 1;
        t->nodes[kids[a]].parent = leaf;
        t->nodes[kids[a]].set = dt_set_new(m, m->buf.ibuf2 + (a == 0 ? 0 : m->store.cap),
                                           a == 0 ? nl : nr);
        memcpy(dt_leaf_stats(m, t, kids[a]), m->buf.sbuf + a * sw, sizeof(double) * (size_t)sw);
    }
    dt_set_release(m, t->nodes[leaf].set);
    dt_log_node(m, &t->nodes[leaf]);
    t->nodes[leaf].var = j;
    t->nodes[leaf].value = xi;
    t->nodes[leaf].left = kids[0];
    t->nodes[leaf].right = kids[1];
    t->nodes[leaf].set = -1;
}

/* apply a prune: parent becomes one leaf holding the union of the points below it (stats
 * from sbuf[2]); every node strictly below parent is released */
static void apply_prune(dt_model *m, dt_particle *t, int32_t parent)
{
    int sw = m->cfg.sw;
    int32_t a, *lv = m->buf.stack + m->pf.cap_nodes, *stack = m->buf.stack, sp = 0, k;
    int32_t n_leaves = dt_collect_leaves(m, t, parent, lv);
    int32_t n_points = union_points(m, t, lv, n_leaves, m->buf.ibuf);
    for (a = 0; a < n_leaves; a++) dt_set_release(m, t->nodes[lv[a]].set);
    stack[sp++] = t->nodes[parent].left;
    stack[sp++] = t->nodes[parent].right;
    while (sp > 0) {
        k = stack[--sp];
        if (t->nodes[k].var >= 0) {
            stack[sp++] = t->nodes[k].right;
            stack[sp++] = t->nodes[k].left;
        }
        dt_node_release(m, t, k);
    }
    dt_log_node(m, &t->nodes[parent]);
    t->nodes[parent].var = -1;
    t->nodes[parent].left = -1;
    t->nodes[parent].right = -1;
    t->nodes[parent].set = dt_set_new(m, m->buf.ibuf, n_points);
    memcpy(dt_leaf_stats(m, t, parent), m->buf.sbuf + 2 * sw, sizeof(double) * (size_t)sw);
}

/* [DT-SPEC §4.1] mirrors propagate; leaf = the leaf of x (from the weights) or -1, r = the
 * slot's generator (dt_pl_step). The
 * steps: insert the point, score stay, grow (grow_score) and prune (prune_score), draw
 * the move, apply it (apply_grow, apply_prune) */
void dt_propagate(dt_model *m, dt_particle *t, int32_t index, int32_t leaf, rng_state *r)
{
    const dt_leaf_config *c = &m->cfg;
    const double *x = m->store.X + (int64_t)index * m->par.d;
    int32_t parent, top, j = 0, nl = 0, nr = 0, n_points = 0, from;
    const int32_t *pts = NULL;
    double *st, xi = 0.0, l_stay, l_grow, l_prune = -INFINITY;
    int have_children = 0, have_merged = 0, move, added;

    if (leaf < 0) leaf = dt_find_leaf(t, x);
    from = t->nodes[leaf].set;
    /* may copy a shared point set, or share a copy made by a duplicate of this particle
     * (added = 1: the statistics already hold the point); stats pointer after */
    added = dt_leaf_append_shared(m, t, leaf, index);
    if (m->txn.broken) return;             /* allocation failure: the row is rolled back */
    st = dt_leaf_stats(m, t, leaf);
    /* the leaf's points are needed by the implicit linear leaf and by a grow candidate:
     * read in place (after the append the set is this leaf's own, and nothing below
     * changes it before apply_grow / apply_prune, which no longer read it) */
    if ((c->kind == DT_LINEAR && c->delta == 1) ||
        (m->par.alpha > 0.0 && st[DT_OFF_N] + 1.0 >= 2.0 * (double)m->par.minp)) {
        pts = m->pool.sets[t->nodes[leaf].set].pts;
        n_points = m->pool.sets[t->nodes[leaf].set].n;
    }
    if (!added)
        dt_add_point(st, c, pts, n_points, index, m->store.X, m->store.y, m->par.d, m->buf.work);
    if (m->wk != NULL && !added && t->nodes[leaf].set != from) /* a copy, now complete */
        dt_share_publish(m, from, t->nodes[leaf].set);
    parent = t->nodes[leaf].parent;
    top = parent >= 0 ? parent : leaf;
    /* scores have no side effects: stay is scored with grow when the children exist */
    l_grow = grow_score(m, t, leaf, top, st, pts, n_points, &j, &xi, &nl, &nr, &have_children,
                        &l_stay, r);
    if (!have_children) l_stay = dt_subtree_log_score(m, t, top, -1, 0.0, 0.0);
    if (parent >= 0) l_prune = prune_score(m, t, parent, &have_merged);

    move = dt_choose_move(l_stay, l_prune, l_grow, r);
    if (move == DT_GROW && have_children) {
        if (have_children == 3) /* memoised score: the children now */
            have_children = build_children(m, st, pts, n_points, j, xi, &nl, &nr) > 0 ? 1 : 2;
        if (have_children == 2) grow_lists(m, pts, n_points, j, xi);
        apply_grow(m, t, leaf, j, xi, nl, nr);
    }
    else if (move == DT_PRUNE && have_merged) {
        if (have_merged == 2) { /* the memoised score: merge the statistics now */
            int32_t *lv = m->buf.stack + m->pf.cap_nodes;
            merge_leaves(m, t, lv, dt_collect_leaves(m, t, parent, lv));
        }
        apply_prune(m, t, parent);
    }
}
