/*
 * dynatree/retirement.c -- data retirement into conjugate leaf priors [AG13, §3]; [DT-SPEC §6];
 * mirrors reference/dynatree/retirement.py.
 *
 * The store holds only the active pool, in arrival order. Retiring position r: in every
 * particle (index order) the leaf holding x_r gives up the point (its point set, shared
 * copy-on-write between particles, is updated once: the set's mark records that it
 * already was, and the update is a deterministic function of the set); a leaf left with
 * n + nu < minp is collapsed in that particle; then the store closes up and every stored
 * position above r is decremented.
 */
#include <stdlib.h>
#include <string.h>
#include "dynatree/dynatree.h"

/* mirrors recompute_linear_totals (lam < 1) */
void dt_recompute_linear_totals(double *st, const dt_leaf_config *c, const int32_t *points,
                                int32_t n, const double *X, const double *y, int32_t d,
                                double *work)
{
    int p = c->p, j, k;
    int32_t a;
    double *G = st + c->off_G, *b = st + c->off_b, *z = work + 2 * p * p + p, yi;
    const double *x;
    for (k = 0; k < p * p; k++) G[k] = 0.0;
    for (k = 0; k < p; k++) b[k] = 0.0;
    for (a = 0; a < n; a++) {
        x = X + (int64_t)points[a] * d;
        yi = y[points[a]];
        if (c->augmented) {
            z[0] = 1.0;
            for (j = 1; j < p; j++) z[j] = x[j - 1];
        } else {
            for (j = 0; j < p; j++) z[j] = x[j];
        }
        for (j = 0; j < p; j++) {
            b[j] = b[j] + z[j] * yi;
            for (k = j; k < p; k++) {
                G[j * p + k] = G[j * p + k] + z[j] * z[k];
                G[k * p + j] = G[j * p + k];
            }
        }
    }
    for (k = 0; k < p * p; k++) G[k] = G[k] + st[c->off_Gg + k];
    for (k = 0; k < p; k++) b[k] = b[k] + st[c->off_bg + k];
    dt_calculate_linear(st, c, work);
}

/* mirrors retire_from_leaf, on a point set */
void dt_retire_from_set(dt_model *m, int32_t set, int32_t index, double lam)
{
    const dt_leaf_config *c = &m->cfg;
    dt_pointset *ps = &m->pool.sets[set];
    double *st = m->pool.set_stats + (int64_t)set * c->sw, yi = m->store.y[index];
    int32_t a, pos = -1;
    for (a = 0; a < ps->n; a++)
        if (ps->pts[a] == index) {
            pos = a;
            break;
        }
    if (pos < 0) return; /* not reached: the leaf of x_r holds r */
    dt_log_set(m, set);    /* size, mark and statistics change below */
    dt_log_points(m, set); /* and the list closes up */
    for (a = pos; a + 1 < ps->n; a++) ps->pts[a] = ps->pts[a + 1];
    ps->n--;
    dt_set_changed(ps);
    st[DT_OFF_N] -= 1.0;
    if (c->kind == DT_CLASS) {
        st[c->off_counts + (int)yi] -= 1.0;
    } else if (st[DT_OFF_N] == 0.0) {
        st[DT_OFF_SY] = 0.0;
        st[DT_OFF_SYY] = 0.0;
    } else {
        if (c->kind == DT_CONSTANT) st[DT_OFF_SY] = st[DT_OFF_SY] - yi;
        st[DT_OFF_SYY] = st[DT_OFF_SYY] - yi * yi;
    }
    dt_absorb_retired(st, c, m->store.X + (int64_t)index * m->par.d, yi, lam,
                      m->buf.work + 2 * c->p * c->p + c->p);
    if (c->kind == DT_LINEAR && lam < 1.0)
        dt_recompute_linear_totals(st, c, ps->pts, ps->n, m->store.X, m->store.y, m->par.d, m->buf.work);
    dt_refresh(st, c);
}

/* mirrors retire_point */
void dt_retire_point(dt_model *m, int32_t index, double lam)
{
    int32_t i, leaf, set;
    const double *x = m->store.X + (int64_t)index * m->par.d;
    double *st;
    dt_particle *t;
    m->ret.stamp = m->ret.stamp == 2147483647 ? 1 : m->ret.stamp + 1;
    for (i = 0; i < m->par.n_particles; i++) {
        t = &m->pf.parts[i];
        if (dt_log_room(m, dt_log_bound(m, t, 1)) != ST_OK) {
            m->txn.broken = 1;
            return;
        }
        leaf = dt_find_leaf(t, x);
        set = t->nodes[leaf].set;
        if (m->pool.sets[set].mark != m->ret.stamp) {
            dt_retire_from_set(m, set, index, lam);
            m->pool.sets[set].mark = m->ret.stamp;
        }
        st = dt_leaf_stats(m, t, leaf);
        if (st[DT_OFF_N] + st[DT_OFF_NU] < (double)m->par.minp) dt_collapse(m, t, leaf);
        if (m->txn.broken) return;
    }
}

/* mirrors renumber: every live point set (each once) */
void dt_renumber(dt_model *m, int32_t index)
{
    int32_t s, a;
    dt_pointset *ps;
    for (s = 0; s < m->pool.n_sets; s++) {
        ps = &m->pool.sets[s];
        if (m->pool.refs[s] <= 0) continue;
        for (a = 0; a < ps->n; a++)
            if (ps->pts[a] > index) ps->pts[a]--;
    }
}

/* mirrors choose_retiree (the scores of ALC / entropy are computed here) */
int32_t dt_choose_retiree(dt_model *m)
{
    int32_t n = (int32_t)m->store.n, best = 0, i;
    if (m->ret.rule == DT_RETIRE_RANDOM) return (int32_t)rng_below(&m->rng, (uint64_t)n);
    if (m->ret.rule == DT_RETIRE_HISTORICAL) return 0;
    if (m->ret.rule == DT_RETIRE_ALC) {
        double *box = m->ret.abuf + 12 * (m->par.d + 2); /* after the 11 (d + 1) used by ALC */
        if (m->ret.rect != NULL) {
            for (i = 0; i < 2 * m->par.d; i++) box[i] = m->ret.rect[i];
        } else {
            dt_data_box(m, m->store.X, m->store.n, box);
        }
        dt_alc_active(m, box, m->ret.scores);
    } else {
        dt_entropy_active(m, m->ret.scores);
    }
    for (i = 1; i < n; i++)
        if (m->ret.scores[i] < m->ret.scores[best]) best = i;
    return best;
}

/* room for one retirement: a collapse re-inserts fewer than minp points per particle,
 * each possibly copying a shared point set */
int dt_model_reserve_retire(dt_model *m)
{
    return dt_sets_reserve(m, (int64_t)m->par.n_particles * (int64_t)m->par.minp);
}

/* retire store position index (ReferenceEngine._engine_retire for one position) */
int dt_retire_one(dt_model *m, int32_t index, double lam)
{
    if (dt_model_reserve_retire(m) != ST_OK ||
        dt_log_room(m, 8 * ((int64_t)m->par.d + 1) + 64) != ST_OK) {
        m->txn.broken = 1;
        return ST_ENOMEM;
    }
    dt_retire_point(m, index, lam);
    if (m->txn.broken) return ST_ENOMEM;
    dt_log_store(m, index);
    if (index + 1 < m->store.n) {
        memmove(m->store.X + (int64_t)index * m->par.d, m->store.X + (int64_t)(index + 1) * m->par.d,
                sizeof(double) * (size_t)((m->store.n - index - 1) * m->par.d));
        memmove(m->store.y + index, m->store.y + index + 1, sizeof(double) * (size_t)(m->store.n - index - 1));
    }
    m->store.n--;
    if (dt_log_renumber(m, index) != ST_OK) {
        m->txn.broken = 1;
        return ST_ENOMEM;
    }
    dt_renumber(m, index);
    return ST_OK;
}

int dt_model_set_retirement(dt_model *m, int32_t active_size, int rule, double lam,
                            int approx, const double *rect)
{
    int32_t j;
    double *r;
    if (m->txn.lost) return ST_ESTATE;
    if (active_size < 0 || rule < DT_RETIRE_RANDOM || rule > DT_RETIRE_ENTROPY ||
        !(lam > 0.0 && lam <= 1.0))
        return ST_EINVAL;
    if (rect != NULL) {
        r = alloc_realloc(m->ret.rect, sizeof(double) * 2 * (size_t)m->par.d);
        if (!r) return ST_ENOMEM;
        for (j = 0; j < 2 * m->par.d; j++) r[j] = rect[j];
        m->ret.rect = r;
    }
    m->ret.active_size = active_size;
    m->ret.rule = rule;
    m->ret.lam = lam;
    m->ret.approx = approx;
    return ST_OK;
}

/* manual retirement: positions already shifted (positions_in_order) and validated */
int dt_model_retire(dt_model *m, const int32_t *positions, int32_t n, double lam)
{
    int32_t a;
    if (m->txn.lost) return ST_ESTATE;
    if (!(lam > 0.0 && lam <= 1.0)) return ST_EINVAL;
    if ((int64_t)n >= m->store.n) return ST_EINVAL;
    for (a = 0; a < n; a++)
        if (positions[a] < 0 || (int64_t)positions[a] >= m->store.n - a) return ST_ERANGE;
    if (m->cfg.kind == DT_LINEAR && m->cfg.delta == 1) return ST_EINVAL;
    /* one transaction (dynatree/txn.c): all positions are retired, or none */
    dt_txn_begin(m);
    for (a = 0; a < n && !m->txn.broken; a++) dt_retire_one(m, positions[a], lam);
    if (m->txn.broken) {
        if (!m->txn.lost) dt_txn_rollback(m);
        return ST_ENOMEM;
    }
    dt_txn_commit(m);
    return ST_OK;
}

/* per particle: total retired mass sum of nu over the leaves (leaves in preorder) */
int dt_model_retired(const dt_model *m, double *out)
{
    if (m->txn.lost) return ST_ESTATE;
    dt_model *mm = (dt_model *)m;
    int32_t i, a, n_leaves;
    int32_t *lv = mm->buf.stack + mm->pf.cap_nodes;
    const dt_particle *t;
    double nu;
    for (i = 0; i < m->par.n_particles; i++) {
        t = &m->pf.parts[i];
        n_leaves = dt_collect_leaves(mm, t, t->root, lv);
        nu = 0.0;
        for (a = 0; a < n_leaves; a++) nu = nu + dt_leaf_stats(m, t, lv[a])[DT_OFF_NU];
        out[i] = nu;
    }
    return ST_OK;
}
