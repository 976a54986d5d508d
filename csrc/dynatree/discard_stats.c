/*
 * dynatree/discard_stats.c -- active-discarding statistics [AG13, §4]; [DT-SPEC §7]; mirrors
 * reference/dynatree/discard_stats.py. Each leaf's value is computed once per call and
 * added to the running sums of its points (particles in index order, leaves in preorder).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
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

/* visit(m, t, leaf, lo, hi, ctx) on every leaf of particle t, in preorder (the order of
 * dt_collect_leaves), with each leaf's rectangle built from the root down as leaf_rectangle
 * defines it ([DT-SPEC §7.3]: a split on j at xi sets hi_j = xi on the left and lo_j = xi
 * on the right, the deepest winning), so the same bounds as dt_leaf_rectangle's walk up,
 * at one substitution per split rather than one walk per leaf. The node that set each
 * bound (-1 = the box) is kept in src (2 mc doubles: src[2 j] for lo_j, src[2 j + 1] for
 * hi_j), so that the stack holds ints: pairs (right child, hi_j's source before the left
 * subtree) and (-(j + 1), lo_j's source before the right subtree), one pair per split on
 * the path, within the 2 cap_nodes ints of buf.stack */
typedef void (*leaf_visit)(dt_model *m, const dt_particle *t, int32_t leaf, const double *lo,
                           const double *hi, void *ctx);

static void alc_particle(dt_model *m, const dt_particle *t, const double *ibox, double *lo,
                         double *hi, double *src, leaf_visit visit, void *ctx)
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
        visit(m, t, k, lo, hi, ctx);
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

/* the leaf visit of alc_active: add_leaf_alc on a non-empty leaf */
typedef struct {
    double *buf, *out;
} active_ctx;

static void active_leaf(dt_model *m, const dt_particle *t, int32_t leaf, const double *lo,
                        const double *hi, void *ctx)
{
    active_ctx *c = ctx;
    if (m->pool.sets[t->nodes[leaf].set].n > 0) add_leaf_alc(m, t, leaf, lo, hi, c->buf, c->out);
}

/* mirrors alc_active; out has m->store.n doubles. Leaf values are cached per point set (the
 * same doubles as a recomputation: same function, same inputs). The next particle's node
 * arena is requested ahead while one is walked (a hint: no effect on values) */
void dt_alc_active(dt_model *m, const double *box, double *out)
{
    int mc = dt_alc_columns(m);
    double *ibox = m->ret.abuf, *lo = ibox + 2 * mc, *hi = lo + mc, *src = hi + mc;
    double *buf = src + 2 * mc, denom;
    active_ctx ctx = {buf, out};
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
        alc_particle(m, &m->pf.parts[i], ibox, lo, hi, src, active_leaf, &ctx);
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
        if (!(fabs(rows[r]) <= DT_MAX_MAGNITUDE)) return ST_EINVAL;
    /* many rows (or a cache built for this box): the per-leaf preps; the same doubles */
    if ((n_rows >= 16 || m->alcc.ok) && dt_model_alc_prepare(m, box) == ST_OK &&
        dt_model_alc_rows(m, rows, n_rows, box, out) == ST_OK)
        return ST_OK;
    dt_alc_points(m, rows, n_rows, box, out);
    return ST_OK;
}

/* ---- ALC at candidate rows by per-leaf preps ([DT-SPEC §8.4]) ----
 * A leaf's ALC at x is dt_leaf_alc_point of its statistics and of its prep (the part that
 * depends on the rectangle alone), so every distinct (statistics, rectangle) pair is one
 * prep, computed once by dt_model_alc_prepare; for a leaf without linear terms the value
 * does not depend on x and is kept with the prep. The candidate rows then descend the forest
 * whose leaves are preps, as the batch predictions do (dynatree/particles.c). Prep layout
 * (pw = 7 + 4 mc doubles): the dt_leaf_alc_prep block (6 + 2 mc), the row-free value, the
 * rectangle lo[mc], hi[mc] (the key). */

/* the hash of a prep key: canonical set and rectangle bits */
static uint32_t prep_hash(int32_t set, const double *lo, const double *hi, int mc)
{
    uint64_t bits, h = 0x9E3779B97F4A7C15ull * (uint64_t)(uint32_t)(set + 1);
    int j;
    for (j = 0; j < mc; j++) {
        memcpy(&bits, &lo[j], sizeof bits);
        h = (h ^ bits) * 0x100000001B3ull;
        memcpy(&bits, &hi[j], sizeof bits);
        h = (h ^ bits) * 0x100000001B3ull;
        h ^= h >> 29;
    }
    return (uint32_t)(h ^ (h >> 32));
}

/* room for cap preps (the distinct pairs are few: a few thousand among 100,000 leaves) */
static int reserve_preps(dt_model *m, int64_t cap, int mc)
{
    dt_alc_cache *a = &m->alcc;
    void *q;
    if (cap <= a->cap_preps) return ST_OK;
    if (cap > 200000000) return ST_ENOMEM;
    if (!(q = alloc_realloc(a->preps, sizeof(double) * (size_t)((7 + 4 * mc) * cap))))
        return ST_ENOMEM;
    a->preps = q;
    if (!(q = alloc_realloc(a->regs, sizeof(int32_t) * (size_t)(mc * cap)))) return ST_ENOMEM;
    a->regs = q;
    if (!(q = alloc_realloc(a->sets, sizeof(int32_t) * (size_t)cap))) return ST_ENOMEM;
    a->sets = q;
    if (!(q = alloc_realloc(a->vals, sizeof(double) * (size_t)cap))) return ST_ENOMEM;
    a->vals = q;
    a->cap_preps = (int32_t)cap;
    return ST_OK;
}

/* room for the keys of every arena node (total) and for a first batch of preps */
static int reserve_alc_cache(dt_model *m, int64_t total, int mc)
{
    dt_alc_cache *a = &m->alcc;
    void *q;
    if (a->off == NULL) a->off = alloc_malloc(sizeof(int64_t) * (size_t)(m->par.n_particles + 1));
    if (a->box == NULL) a->box = alloc_malloc(sizeof(double) * 2 * (size_t)m->par.d);
    if (a->off == NULL || a->box == NULL) return ST_ENOMEM;
    if (reserve_preps(m, total < 1024 ? total : 1024, mc) != ST_OK) return ST_ENOMEM;
    if (total <= a->cap_keys) return ST_OK;
    if (total > 200000000) return ST_ENOMEM;
    if (!(q = alloc_realloc(a->keys, sizeof(int32_t) * (size_t)total))) return ST_ENOMEM;
    a->keys = q;
    a->cap_keys = total;
    return ST_OK;
}

/* the state of dt_model_alc_prepare's walk over one particle */
typedef struct {
    const int32_t *canon; /* canonical set of each set (dt_canonical_sets) */
    int32_t *table;       /* open addressing over preps, mask + 1 slots, at most half full */
    uint32_t mask;
    int32_t failed;       /* 1 if the table could not grow (the prepare then fails) */
    int32_t *keys;        /* the particle's keys (arena index -> prep) */
    double *buf;          /* 3 mc doubles */
} prep_ctx;

/* double the prep table and re-insert every prep */
static void grow_preps(const dt_model *m, prep_ctx *c)
{
    const dt_alc_cache *a = &m->alcc;
    int mc = dt_alc_columns(m);
    uint32_t cap = 2 * (c->mask + 1), h;
    int32_t k, *table = alloc_malloc(sizeof(int32_t) * (size_t)cap);
    const double *p;
    if (!table) {
        c->failed = 1;
        return;
    }
    for (h = 0; h < cap; h++) table[h] = -1;
    for (k = 0; k < a->n_preps; k++) {
        p = a->preps + (int64_t)k * a->pw + 7 + 2 * mc;
        h = prep_hash(a->sets[k], p, p + mc, mc) & (cap - 1);
        while (table[h] >= 0) h = (h + 1) & (cap - 1);
        table[h] = k;
    }
    alloc_free(c->table);
    c->table = table;
    c->mask = cap - 1;
}

/* the prep of a leaf (rectangle lo, hi), found or added */
static void prep_leaf(dt_model *m, const dt_particle *t, int32_t leaf, const double *lo,
                      const double *hi, void *ctx)
{
    prep_ctx *c = ctx;
    dt_alc_cache *a = &m->alcc;
    int mc = dt_alc_columns(m), pw = a->pw;
    int32_t cs = c->canon[t->nodes[leaf].set], k;
    uint32_t h = prep_hash(cs, lo, hi, mc) & c->mask;
    double *p;
    const double *st = m->pool.set_stats + (int64_t)cs * m->cfg.sw;
    if (c->failed) {
        c->keys[leaf] = 0;
        return;
    }
    while ((k = c->table[h]) >= 0) {
        p = a->preps + (int64_t)k * pw + 7 + 2 * mc;
        if (a->sets[k] == cs && memcmp(p, lo, sizeof(double) * (size_t)mc) == 0 &&
            memcmp(p + mc, hi, sizeof(double) * (size_t)mc) == 0)
            break;
        h = (h + 1) & c->mask;
    }
    if (k < 0) {
        if (a->n_preps == a->cap_preps &&
            reserve_preps(m, 2 * (int64_t)a->cap_preps, mc) != ST_OK) {
            c->failed = 1;
            c->keys[leaf] = 0;
            return;
        }
        k = c->table[h] = a->n_preps++;
        a->sets[k] = cs;
        p = a->preps + (int64_t)k * pw;
        dt_leaf_alc_prep(st, &m->cfg, lo, hi, mc, m->ret.approx, p, a->regs + (int64_t)k * mc);
        p[6 + 2 * mc] = m->cfg.kind == DT_LINEAR ? 0.0
                        : dt_leaf_alc_point(st, &m->cfg, p, a->regs + (int64_t)k * mc, mc, lo,
                                            c->buf);
        a->vals[k] = p[6 + 2 * mc];
        memcpy(p + 7 + 2 * mc, lo, sizeof(double) * (size_t)mc);
        memcpy(p + 7 + 3 * mc, hi, sizeof(double) * (size_t)mc);
        if ((uint32_t)a->n_preps > c->mask / 2) grow_preps(m, c);
    }
    c->keys[leaf] = k;
}

int dt_model_alc_prepare(dt_model *m, const double *box)
{
    dt_alc_cache *a = &m->alcc;
    int mc = dt_alc_columns(m);
    int32_t i, N = m->par.n_particles, *canon = NULL, *table = NULL;
    int64_t total = 0, hcap = 16, k;
    double *ibox = m->ret.abuf, *lo = ibox + 2 * mc, *hi = lo + mc, *src = hi + mc;
    prep_ctx ctx;
    int rc;
    if (m->txn.lost || m->cfg.kind == DT_CLASS) return ST_ESTATE;
    if (a->ok && memcmp(a->box, box, sizeof(double) * 2 * (size_t)m->par.d) == 0) return ST_OK;
    a->ok = 0;
    for (i = 0; i < N; i++) total += m->pf.parts[i].n_nodes;
    hcap = 1024;
    while (hcap < 4 * (int64_t)a->n_preps && hcap < 2 * total) hcap *= 2; /* the last size */
    rc = reserve_alc_cache(m, total, mc);
    canon = alloc_malloc(sizeof(int32_t) * (size_t)(m->pool.n_sets > 0 ? m->pool.n_sets : 1));
    table = alloc_malloc(sizeof(int32_t) * (size_t)hcap);
    if (rc == ST_OK && (!canon || !table)) rc = ST_ENOMEM;
    if (rc == ST_OK) rc = dt_canonical_sets(m, canon);
    if (rc == ST_OK) {
        for (k = 0; k < hcap; k++) table[k] = -1;
        a->pw = 7 + 4 * mc;
        a->n_preps = 0;
        ctx = (prep_ctx){canon, table, (uint32_t)(hcap - 1), 0, NULL, src + 2 * mc};
        dt_integrated_box(m, box, ibox);
        a->off[0] = 0;
        for (i = 0; i < N; i++) {
            ctx.keys = a->keys + a->off[i];
            dt_prefetch_particle(m, i + 1);
            alc_particle(m, &m->pf.parts[i], ibox, lo, hi, src, prep_leaf, &ctx);
            a->off[i + 1] = a->off[i] + m->pf.parts[i].n_nodes;
        }
        table = ctx.table; /* grown, perhaps */
        rc = ctx.failed ? ST_ENOMEM : dt_forest_build(m, &a->f, a->keys, a->off, a->n_preps);
        a->denom = (double)N * dt_box_area(ibox, mc, m->ret.approx, m->store.n_total);
    }
    if (rc != ST_OK) a->n_preps = 0;
    alloc_free(canon);
    alloc_free(table);
    if (rc != ST_OK) return rc;
    memcpy(a->box, box, sizeof(double) * 2 * (size_t)m->par.d);
    a->ok = 1;
    return ST_OK;
}

/* the ALC of prep k at x: its row-free value, or (linear leaf) computed once per row */
static double prep_value(const dt_model *m, int32_t k, const double *x, int32_t tag,
                         int32_t *pstamp, double *pval, double *buf)
{
    const dt_alc_cache *a = &m->alcc;
    int mc = dt_alc_columns(m);
    const double *p;
    if (m->cfg.kind != DT_LINEAR) return a->vals[k];
    p = a->preps + (int64_t)k * a->pw;
    if (pstamp[k] != tag) {
        pval[k] = dt_leaf_alc_point(m->pool.set_stats + (int64_t)a->sets[k] * m->cfg.sw,
                                    &m->cfg, p, a->regs + (int64_t)k * mc, mc, x, buf);
        pstamp[k] = tag;
    }
    return pval[k];
}

int dt_model_alc_rows(const dt_model *m, const double *rows, int64_t n_rows, const double *box,
                      double *out)
{
    const dt_alc_cache *a = &m->alcc;
    int32_t nd = a->f.n_dag > 0 ? a->f.n_dag : 1, np = a->n_preps > 0 ? a->n_preps : 1;
    int32_t *stamp, *memo, *path, *pstamp, i, k, tag;
    double *pval, *buf, acc;
    const double *x;
    int64_t r;
    int rc = ST_OK;
    if (m->txn.lost || m->cfg.kind == DT_CLASS || !a->ok ||
        memcmp(a->box, box, sizeof(double) * 2 * (size_t)m->par.d) != 0)
        return ST_ESTATE;
    stamp = alloc_malloc(sizeof(int32_t) * (size_t)nd);
    memo = alloc_malloc(sizeof(int32_t) * (size_t)nd);
    path = alloc_malloc(sizeof(int32_t) * (size_t)(a->f.max_depth + 1));
    pstamp = alloc_malloc(sizeof(int32_t) * (size_t)np);
    pval = alloc_malloc(sizeof(double) * (size_t)np);
    buf = alloc_malloc(sizeof(double) * 3 * (size_t)(dt_alc_columns(m) + 1));
    if (!stamp || !memo || !path || !pstamp || !pval || !buf) rc = ST_ENOMEM;
    for (r = 0; r < n_rows && rc == ST_OK; r++) {
        x = rows + r * m->par.d;
        tag = (int32_t)(r % 1073741824);
        if (tag == 0) {
            for (k = 0; k < nd; k++) stamp[k] = -1;
            for (k = 0; k < np; k++) pstamp[k] = -1;
        }
        acc = 0.0;
        for (i = 0; i < m->par.n_particles; i++) {
            k = dt_forest_set(a->f.dag, a->f.roots[i], x, tag, stamp, memo, path);
            acc = acc + prep_value(m, k, x, tag, pstamp, pval, buf);
        }
        out[r] = acc / a->denom;
    }
    alloc_free(stamp);
    alloc_free(memo);
    alloc_free(path);
    alloc_free(pstamp);
    alloc_free(pval);
    alloc_free(buf);
    return rc;
}
