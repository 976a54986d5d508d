/*
 * dynatree/discard_stats.c -- active-discarding statistics [AG13, §4]; [DT-SPEC §7]; mirrors
 * reference/dynatree/discard_stats.py. Each leaf's value is computed once per call and
 * added to the running sums of its points (particles in index order, leaves in preorder).
 */
#include <math.h>
#include <stdlib.h>
#include "dynatree/dynatree.h"

/* mirrors leaf_entropy (§7.5) */
double dt_leaf_entropy(const double *st, const dt_leaf_config *c)
{
    double h = 0.0, pk;
    int k;
    for (k = 0; k < c->n_classes; k++) {
        pk = dt_class_probability(st, c, k);
        h = h - pk * log(pk);
    }
    return h;
}

/* mirrors entropy_active; out has m->store.n doubles. With use_cache, a set's leaf entropy is
 * kept in the set (ent, ent_ok) and reused until the set's stats change: the same double as
 * a recomputation (same function, same inputs), added in the same order [AG13, §4.4] */
static void entropy_active(dt_model *m, double *out, int use_cache)
{
    int32_t i, a, b, n_leaves;
    int32_t *lv = m->buf.stack + m->pf.cap_nodes;
    const dt_particle *t;
    dt_pointset *ps;
    double h;
    for (i = 0; i < (int32_t)m->store.n; i++) out[i] = 0.0;
    for (i = 0; i < m->par.n_particles; i++) {
        t = &m->pf.parts[i];
        n_leaves = dt_collect_leaves(m, t, t->root, lv);
        for (a = 0; a < n_leaves; a++) {
            ps = &m->pool.sets[t->nodes[lv[a]].set];
            if (ps->n == 0) continue;
            if (use_cache && ps->ent_ok) {
                h = ps->ent;
            } else {
                h = dt_leaf_entropy(dt_leaf_stats(m, t, lv[a]), &m->cfg);
                if (use_cache) {
                    ps->ent = h;
                    ps->ent_ok = 1;
                }
            }
            for (b = 0; b < ps->n; b++) out[ps->pts[b]] = out[ps->pts[b]] + h;
        }
    }
    for (i = 0; i < (int32_t)m->store.n; i++) out[i] = out[i] / (double)m->par.n_particles;
}

void dt_entropy_active(dt_model *m, double *out)
{
    entropy_active(m, out, 1);
}

int dt_model_entropy_active(dt_model *m, double *out)
{
    if (m->txn.lost) return ST_ESTATE;
    if (m->cfg.kind != DT_CLASS) return ST_ESTATE;
    dt_entropy_active(m, out);
    return ST_OK;
}

/* every leaf recomputed, the cache neither read nor written (for tests) */
int dt_model_entropy_active_uncached(dt_model *m, double *out)
{
    if (m->txn.lost) return ST_ESTATE;
    if (m->cfg.kind != DT_CLASS) return ST_ESTATE;
    entropy_active(m, out, 0);
    return ST_OK;
}

/* ---- ALC ([DT-SPEC §7.1]-[DT-SPEC §7.4]), mirrors the second half of discard_stats.py ---- */

#define DT_EPS 2.220446049250313e-16

/* number of integrated columns: d inputs (constant), p regressors (linear) */
int dt_alc_columns(const dt_model *m)
{
    return m->cfg.kind == DT_LINEAR ? m->cfg.p : m->par.d;
}

/* mirrors integrated_box: ibox = ([1, 1] if augmented) + box, as (lo, hi) pairs */
void dt_integrated_box(const dt_model *m, const double *box, double *ibox)
{
    int j, s = m->cfg.augmented ? 1 : 0;
    if (s) {
        ibox[0] = 1.0;
        ibox[1] = 1.0;
    }
    for (j = 0; j < 2 * m->par.d; j++) ibox[2 * s + j] = box[j];
}

/* mirrors leaf_rectangle: walking up, the deepest split on a side wins (same values as
 * substituting from the root down); done is scratch for 2 mcols flags */
void dt_leaf_rectangle(const dt_model *m, const dt_particle *t, int32_t leaf,
                       const double *ibox, double *lo, double *hi, double *done)
{
    int j, mc = dt_alc_columns(m), s = m->cfg.augmented ? 1 : 0;
    int32_t k = leaf, par;
    for (j = 0; j < mc; j++) {
        lo[j] = ibox[2 * j];
        hi[j] = ibox[2 * j + 1];
        done[2 * j] = 0.0;
        done[2 * j + 1] = 0.0;
    }
    while ((par = t->nodes[k].parent) >= 0) {
        j = t->nodes[par].var + s;
        if (t->nodes[par].left == k) {
            if (done[2 * j + 1] == 0.0) {
                hi[j] = t->nodes[par].value;
                done[2 * j + 1] = 1.0;
            }
        } else if (done[2 * j] == 0.0) {
            lo[j] = t->nodes[par].value;
            done[2 * j] = 1.0;
        }
        k = par;
    }
}

/* mirrors leaf_alc, split in a per-leaf part (dt_leaf_alc_prep) and a per-point part
 * (dt_leaf_alc_point) so that a leaf's points share the leaf's work; every value is
 * computed by the same operations in the same order as leaf_alc.
 * prep layout (doubles): [0] q, [1] df, [2] tot, [3] c, [4] area (regular widths, or
 * n + nu with approx), [5] number of regular columns (-1 = the leaf contributes 0),
 * then a[mc], b[mc] (shifted bounds); reg: the regular columns in increasing order. */
void dt_leaf_alc_prep(const double *st, const dt_leaf_config *c, const double *lo,
                      const double *hi, int mcols, int approx, double *prep, int32_t *reg)
{
    double mu0, q, qp, df, dm, tot, cc = 0.0, area = 1.0, w;
    double *a = prep + 6, *b = prep + 6 + mcols;
    int linear = c->kind == DT_LINEAR, i, nreg = 0;
    dt_regression_summary(st, c, &mu0, &q, &qp, &df, &dm);
    prep[5] = -1.0;
    if (!(q > 0.0 && df > 2.0)) return;
    tot = st[DT_OFF_N] + st[DT_OFF_NU];
    if (c->delta == 1 && tot > 0.0) cc = 1.0 / tot;
    for (i = 0; i < mcols; i++) {
        a[i] = lo[i];
        b[i] = hi[i];
        if (linear) {
            a[i] = a[i] - st[c->off_xbar + i];
            b[i] = b[i] - st[c->off_xbar + i];
        }
    }
    for (i = 0; i < mcols; i++) {
        w = b[i] - a[i];
        if (w <= DT_EPS) {
            if (!linear) area = 0.0;
        } else {
            reg[nreg++] = i;
            area = area * w;
        }
    }
    if (approx) area = tot;
    prep[0] = q;
    prep[1] = df;
    prep[2] = tot;
    prep[3] = cc;
    prep[4] = area;
    prep[5] = (double)nreg;
}

/* buf: 3 mcols doubles */
double dt_leaf_alc_point(const double *st, const dt_leaf_config *c, const double *prep,
                         const int32_t *reg, int mcols, const double *x, double *buf)
{
    const double *a = prep + 6, *b = prep + 6 + mcols;
    double *v = buf, *u = buf + mcols, *z = buf + 2 * mcols;
    double cc = prep[3], h, cp, s, t, m1, m2;
    int linear = c->kind == DT_LINEAR, i, j, k, p = c->p, nreg = (int)prep[5];
    if (nreg < 0) return 0.0;
    h = cc;
    cp = cc;
    if (linear) {
        if (c->augmented) {
            z[0] = 1.0;
            for (j = 1; j < p; j++) z[j] = x[j - 1];
        } else {
            for (j = 0; j < p; j++) z[j] = x[j];
        }
        for (j = 0; j < p; j++) u[j] = z[j] - st[c->off_xbar + j];
        for (i = 0; i < p; i++) {
            t = 0.0;
            for (j = 0; j < p; j++) t = t + st[c->off_ginv + i * p + j] * u[j];
            v[i] = t;
            h = h + u[i] * t;
        }
        /* degenerate sides in increasing column order (the complement of reg) */
        k = 0;
        for (i = 0; i < mcols; i++) {
            if (k < nreg && reg[k] == i) {
                k++;
                continue;
            }
            cp = cp + v[i] * b[i];
        }
    } else {
        for (i = 0; i < mcols; i++) v[i] = 0.0;
    }
    s = cp * cp;
    for (k = 0; k < nreg; k++) {
        i = reg[k];
        m1 = a[i] + b[i];
        m2 = (a[i] * a[i] + a[i] * b[i] + b[i] * b[i]) / 3.0;
        t = cp * v[i] * m1 + v[i] * v[i] * m2;
        for (j = 0; j < k; j++)
            t = t + v[i] * v[reg[j]] * (m1 * (a[reg[j]] + b[reg[j]])) / 2.0;
        s = s + t;
    }
    return prep[0] * (prep[4] * s) / ((prep[1] - 2.0) * (1.0 + h));
}

/* mirrors leaf_alc; buf: 5 mcols + 6 doubles, reg: mcols ints */
double dt_leaf_alc(const double *st, const dt_leaf_config *c, const double *lo,
                   const double *hi, int mcols, const double *x, int approx, double *buf,
                   int32_t *reg)
{
    dt_leaf_alc_prep(st, c, lo, hi, mcols, approx, buf, reg);
    return dt_leaf_alc_point(st, c, buf, reg, mcols, x, buf + 6 + 2 * mcols);
}

/* mirrors box_area */
double dt_box_area(const double *ibox, int mcols, int approx, int64_t n_total)
{
    double area = 1.0;
    int j;
    if (approx) return (double)n_total;
    for (j = 0; j < mcols; j++)
        if (ibox[2 * j + 1] - ibox[2 * j] >= DT_EPS)
            area = area * (ibox[2 * j + 1] - ibox[2 * j]);
    return area;
}

/* mirrors data_box: per-column (min, max) of n_rows rows (n_rows >= 1) */
void dt_data_box(const dt_model *m, const double *rows, int64_t n_rows, double *box)
{
    int64_t r;
    int32_t j, d = m->par.d;
    double lo, hi, v;
    for (j = 0; j < d; j++) {
        lo = rows[j];
        hi = rows[j];
        for (r = 0; r < n_rows; r++) {
            v = rows[r * d + j];
            if (v < lo) lo = v;
            if (v > hi) hi = v;
        }
        box[2 * j] = lo;
        box[2 * j + 1] = hi;
    }
}

/* the set's cached values if they were computed for this rectangle, else NULL */
static const double *cached_alc(const dt_pointset *ps, const double *lo, const double *hi,
                                int mc)
{
    int j;
    if (!ps->alc_ok) return NULL;
    for (j = 0; j < mc; j++)
        if (ps->alc[j] != lo[j] || ps->alc[mc + j] != hi[j]) return NULL;
    return ps->alc + 2 * mc;
}

/* room for the rectangle and n values; 0 if the allocation failed. The cache is
 * optional by design: without it the caller computes the same values directly, so an
 * allocation failure here is not an error (tests/dynatree/test_atomic_updates.py relies on it) */
static int reserve_alc(dt_pointset *ps, int need)
{
    int cap = ps->alc_cap < 16 ? 16 : ps->alc_cap;
    double *na;
    if (need <= ps->alc_cap) return 1;
    while (cap < need) cap = 2 * cap;
    na = alloc_realloc(ps->alc, sizeof(double) * (size_t)cap);
    if (!na) return 0;
    ps->alc = na;
    ps->alc_cap = cap;
    return 1;
}

/* the ALC values of one leaf (rectangle lo, hi) added to the running sums out of its points:
 * from the set's cache when it holds them for this rectangle, else computed (and cached
 * when room allows) */
static void add_leaf_alc(dt_model *m, const dt_particle *t, int32_t leaf, const double *lo,
                         const double *hi, double *buf, double *out)
{
    int mc = dt_alc_columns(m);
    dt_pointset *ps = &m->pool.sets[t->nodes[leaf].set];
    const double *st = dt_leaf_stats(m, t, leaf), *vals = cached_alc(ps, lo, hi, mc);
    int32_t b, pt;
    if (vals == NULL) {
        dt_leaf_alc_prep(st, &m->cfg, lo, hi, mc, m->ret.approx, buf, m->ret.areg);
        if (reserve_alc(ps, 2 * mc + ps->n)) {
            for (b = 0; b < mc; b++) {
                ps->alc[b] = lo[b];
                ps->alc[mc + b] = hi[b];
            }
            for (b = 0; b < ps->n; b++)
                ps->alc[2 * mc + b] = dt_leaf_alc_point(
                    st, &m->cfg, buf, m->ret.areg, mc, m->store.X + (int64_t)ps->pts[b] * m->par.d,
                    buf + 6 + 2 * mc);
            ps->alc_ok = 1;
            vals = ps->alc + 2 * mc;
        }
    }
    if (vals != NULL) {
        for (b = 0; b < ps->n; b++) out[ps->pts[b]] = out[ps->pts[b]] + vals[b];
    } else {
        for (b = 0; b < ps->n; b++) {
            pt = ps->pts[b];
            out[pt] = out[pt] + dt_leaf_alc_point(st, &m->cfg, buf, m->ret.areg, mc,
                                                  m->store.X + (int64_t)pt * m->par.d,
                                                  buf + 6 + 2 * mc);
        }
    }
}

/* a bound's value: the split value of node src, or the box's (src < 0) */
static double bound_of(const dt_particle *t, double src, double box)
{
    return src >= 0.0 ? t->nodes[(int32_t)src].value : box;
}

/* add_leaf_alc on every non-empty leaf of particle t, in preorder (the order of
 * dt_collect_leaves), with each leaf's rectangle built from the root down as leaf_rectangle
 * defines it ([DT-SPEC §7.3]: a split on j at xi sets hi_j = xi on the left and lo_j = xi
 * on the right, the deepest winning), so the same bounds as dt_leaf_rectangle's walk up,
 * at one substitution per split rather than one walk per leaf. The node that set each
 * bound (-1 = the box) is kept in src (2 mc doubles: src[2 j] for lo_j, src[2 j + 1] for
 * hi_j), so that the stack holds ints: pairs (right child, hi_j's source before the left
 * subtree) and (-(j + 1), lo_j's source before the right subtree), one pair per split on
 * the path, within the 2 cap_nodes ints of buf.stack */
static void alc_particle(dt_model *m, const dt_particle *t, const double *ibox, double *lo,
                         double *hi, double *src, double *buf, double *out)
{
    const dt_node *nd = t->nodes;
    int32_t *stack = m->buf.stack, sp = 0, k = t->root, c, p, tag;
    int j, mc = dt_alc_columns(m), s = m->cfg.augmented ? 1 : 0;
    for (j = 0; j < mc; j++) {
        lo[j] = ibox[2 * j];
        hi[j] = ibox[2 * j + 1];
        src[2 * j] = -1.0;
        src[2 * j + 1] = -1.0;
    }
    for (;;) {
        while (nd[k].var >= 0) { /* down the left side: hi_j = xi */
            j = nd[k].var + s;
            stack[sp++] = nd[k].right;
            stack[sp++] = (int32_t)src[2 * j + 1];
            hi[j] = nd[k].value;
            src[2 * j + 1] = (double)k;
            k = nd[k].left;
        }
        if (m->pool.sets[nd[k].set].n > 0) add_leaf_alc(m, t, k, lo, hi, buf, out);
        for (;;) {
            if (sp == 0) return;
            sp -= 2;
            tag = stack[sp];
            if (tag < 0) { /* the right subtree is done: lo_j as before it */
                j = -tag - 1;
                src[2 * j] = (double)stack[sp + 1];
                lo[j] = bound_of(t, src[2 * j], ibox[2 * j]);
                continue;
            }
            /* the left subtree is done: hi_j as before it, then lo_j = xi on the right */
            c = tag;
            p = nd[c].parent;
            j = nd[p].var + s;
            src[2 * j + 1] = (double)stack[sp + 1];
            hi[j] = bound_of(t, src[2 * j + 1], ibox[2 * j + 1]);
            stack[sp++] = -(j + 1);
            stack[sp++] = (int32_t)src[2 * j];
            lo[j] = nd[p].value;
            src[2 * j] = (double)p;
            k = c;
            break;
        }
    }
}

/* mirrors alc_active; out has m->store.n doubles. Leaf values are cached per point set (the
 * same doubles as a recomputation: same function, same inputs). The next particle's node
 * arena is requested ahead while one is walked (a hint: no effect on values) */
void dt_alc_active(dt_model *m, const double *box, double *out)
{
    int mc = dt_alc_columns(m);
    double *ibox = m->ret.abuf, *lo = ibox + 2 * mc, *hi = lo + mc, *src = hi + mc;
    double *buf = src + 2 * mc, denom;
    int32_t i;
    dt_integrated_box(m, box, ibox);
    for (i = 0; i < (int32_t)m->store.n; i++) out[i] = 0.0;
    for (i = 0; i < m->par.n_particles; i++) {
#if defined(__GNUC__)
        if (i + 1 < m->par.n_particles) {
            const char *next = (const char *)m->pf.parts[i + 1].nodes;
            int64_t off, bytes = (int64_t)sizeof(dt_node) * m->pf.parts[i + 1].n_nodes;
            for (off = 0; off < bytes; off += 64) __builtin_prefetch(next + off);
        }
#endif
        alc_particle(m, &m->pf.parts[i], ibox, lo, hi, src, buf, out);
    }
    denom = (double)m->par.n_particles * dt_box_area(ibox, mc, m->ret.approx, m->store.n_total);
    for (i = 0; i < (int32_t)m->store.n; i++) out[i] = out[i] / denom;
}

/* mirrors alc_points */
void dt_alc_points(dt_model *m, const double *rows, int64_t n_rows, const double *box,
                   double *out)
{
    int mc = dt_alc_columns(m);
    double *ibox = m->ret.abuf, *lo = ibox + 2 * mc, *hi = lo + mc, *done = hi + mc;
    double *buf = done + 2 * mc, denom;
    int32_t i, leaf;
    int64_t k;
    const dt_particle *t;
    const double *x;
    dt_integrated_box(m, box, ibox);
    for (k = 0; k < n_rows; k++) out[k] = 0.0;
    for (i = 0; i < m->par.n_particles; i++) {
        t = &m->pf.parts[i];
        for (k = 0; k < n_rows; k++) {
            x = rows + k * m->par.d;
            leaf = dt_find_leaf(t, x);
            dt_leaf_rectangle(m, t, leaf, ibox, lo, hi, done);
            out[k] = out[k] + dt_leaf_alc(dt_leaf_stats(m, t, leaf), &m->cfg, lo, hi, mc, x,
                                          m->ret.approx, buf, m->ret.areg);
        }
    }
    denom = (double)m->par.n_particles * dt_box_area(ibox, mc, m->ret.approx, m->store.n_total);
    for (k = 0; k < n_rows; k++) out[k] = out[k] / denom;
}

int dt_model_alc_active(dt_model *m, const double *box, double *out)
{
    if (m->txn.lost) return ST_ESTATE;
    if (m->cfg.kind == DT_CLASS) return ST_ESTATE;
    dt_alc_active(m, box, out);
    return ST_OK;
}

int dt_model_alc(dt_model *m, const double *rows, int64_t n_rows, const double *box,
                 double *out)
{
    int64_t r;
    if (m->txn.lost) return ST_ESTATE;
    if (m->cfg.kind == DT_CLASS) return ST_ESTATE;
    for (r = 0; r < n_rows * m->par.d; r++)
        if (!isfinite(rows[r])) return ST_EINVAL;
    dt_alc_points(m, rows, n_rows, box, out);
    return ST_OK;
}
