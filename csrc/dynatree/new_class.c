/*
 * dynatree/new_class.c -- a label never seen before joins the class leaves in place
 * [DT-SPEC §12.2]; mirrors reference/dynatree/new_class.py (add_class / drop_class, the
 * leaves' side: grow_leaves / shrink_leaves).
 *
 * Every point set (the statistics block of the leaves that share it) gets a zero count
 * and a zero retired count for class C, the prior becomes Dirichlet(1/(C+1)) and each
 * live set's cached ell is recomputed by dt_refresh, the same double as a fresh
 * class_log_evidence of the C + 1-class leaf (the path through the state,
 * with_new_class). The class slots of a block have a capacity, (sw - DT_OFF_VEC) / 2:
 * counts at DT_OFF_VEC, retired counts at off_gcounts = DT_OFF_VEC + capacity, the slots
 * past C zero. A new class within the capacity writes one zero pair per set; a full
 * capacity doubles (relayout: every block copied once into a new pool array), so over C
 * labels the blocks are copied O(log C) times: amortised constant work per slot. The
 * C-only caches that depend on C (the table lgamma(k + 1/C), C lgamma(1/C), the sets'
 * entropies and ALC values, the batch-prediction records) are recomputed or dropped.
 *
 * Atomic: the only allocations (the relaid-out pool and the scratch blocks) happen before
 * any change; ST_ENOMEM leaves the model as it was.
 */
#include <string.h>
#include "dynatree/dynatree.h"

/* class slots per statistics block */
static int class_capacity(const dt_leaf_config *c)
{
    return (c->sw - DT_OFF_VEC) / 2;
}

/* the pool's statistics blocks (and the scratch blocks) relaid out with cap class slots
 * per block, the slots past C zero; ST_ENOMEM with nothing changed */
static int relayout(dt_model *m, int cap)
{
    dt_leaf_config *c = &m->cfg;
    int sw = DT_OFF_VEC + 2 * cap, k, nc = c->n_classes;
    int64_t s, n = m->pool.cap_sets;
    double *st, *sb, *dst;
    const double *src;
    st = alloc_malloc(sizeof(double) * (size_t)(n > 0 ? n : 1) * (size_t)sw);
    sb = alloc_calloc(3 * (size_t)sw, sizeof(double));
    if (!st || !sb) {
        alloc_free(st);
        alloc_free(sb);
        return ST_ENOMEM;
    }
    for (s = 0; s < n; s++) {
        src = m->pool.set_stats + s * c->sw;
        dst = st + s * sw;
        memcpy(dst, src, sizeof(double) * (size_t)(DT_OFF_VEC + nc)); /* header, counts */
        memcpy(dst + DT_OFF_VEC + cap, src + c->off_gcounts, sizeof(double) * (size_t)nc);
        for (k = nc; k < cap; k++) {
            dst[DT_OFF_VEC + k] = 0.0;
            dst[DT_OFF_VEC + cap + k] = 0.0;
        }
    }
    alloc_free(m->pool.set_stats);
    m->pool.set_stats = st;
    alloc_free(m->buf.sbuf);
    m->buf.sbuf = sb;
    c->off_gcounts = DT_OFF_VEC + cap;
    c->sw = sw;
    return ST_OK;
}

/* C := n_classes: the caches of the prior (the same expressions as dt_leaf_config_init
 * and the lgamma table of dynatree/model.c, so the same doubles), then every live set's
 * ell; the caches derived from the statistics are dropped */
static void set_classes(dt_model *m, int n_classes)
{
    dt_leaf_config *c = &m->cfg;
    double inv_c = 1.0 / (double)n_classes;
    int64_t k;
    int32_t s;
    c->n_classes = n_classes;
    c->lg_prior = (double)n_classes * special_lgamma(1.0 / (double)n_classes);
    for (k = 0; k < c->lg_len / 2; k++) m->buf.lg_frac[k] = special_lgamma((double)k + inv_c);
    for (s = 0; s < m->pool.n_sets; s++) {
        if (m->pool.refs[s] <= 0) continue; /* a free slot: no leaf holds it */
        dt_refresh(m->pool.set_stats + (int64_t)s * c->sw, c);
        m->pool.sets[s].ent_ok = 0;
        m->pool.sets[s].alc_ok = 0;
        m->pool.sets[s].ver++;
    }
    m->pred.ok = 0;
    m->alcc.ok = 0;
}

/* [DT-SPEC §12.2] mirrors add_class (grow_leaves): class C joins every leaf */
int32_t dt_model_add_class(dt_model *m)
{
    int nc = m->cfg.n_classes, cap = class_capacity(&m->cfg);
    int32_t s;
    double *st;
    if (m->cfg.kind != DT_CLASS) return ST_EINVAL;
    if (m->txn.lost || m->txn.in_txn) return ST_ESTATE;
    if (nc >= 1 << 24) return ST_ERANGE; /* far beyond any label set; keeps 2 cap an int */
    if (nc + 1 > cap && relayout(m, 2 * cap) != ST_OK) return ST_ENOMEM;
    for (s = 0; s < m->pool.n_sets; s++) {
        st = m->pool.set_stats + (int64_t)s * m->cfg.sw;
        st[m->cfg.off_counts + nc] = 0.0;
        st[m->cfg.off_gcounts + nc] = 0.0;
    }
    set_classes(m, nc + 1);
    return ST_OK;
}

/* mirrors drop_class (shrink_leaves): undo dt_model_add_class (the capacity is kept);
 * ST_EINVAL, nothing changed, if class C - 1 has a count or a retired count in a leaf */
int32_t dt_model_drop_class(dt_model *m)
{
    int last = m->cfg.n_classes - 1;
    int32_t s;
    const double *st;
    if (m->cfg.kind != DT_CLASS || m->cfg.n_classes < 3) return ST_EINVAL;
    if (m->txn.lost || m->txn.in_txn) return ST_ESTATE;
    for (s = 0; s < m->pool.n_sets; s++) {
        if (m->pool.refs[s] <= 0) continue;
        st = m->pool.set_stats + (int64_t)s * m->cfg.sw;
        if (st[m->cfg.off_counts + last] != 0.0 || st[m->cfg.off_gcounts + last] != 0.0)
            return ST_EINVAL;
    }
    set_classes(m, last);
    return ST_OK;
}
