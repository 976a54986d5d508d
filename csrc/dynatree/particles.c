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
 * Random draws ([DT-SPEC §0] item 6 (a)): one uniform() per residual draw, only if resampling.
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

/* [DT-SPEC §5.2] mirrors resample; returns lpred */
double dt_resample(dt_model *m, const double *x, double y)
{
    int32_t n = m->par.n_particles, i, j, n_dead = 0;
    int any_proper = 0, equal = 1;
    double *w = m->pf.w, *wn = m->pf.w + n, *expected = m->pf.w + 2 * n, *cum = m->pf.w + 3 * n;
    double total = 0.0, lpred, s2 = 0.0, inv_n;
    int32_t *counts = m->pf.flags, *dead = m->pf.flags + n;
    m->pf.leafc_ok = 0;
    if (n == 1) return 0.0;
    dt_find_leaves(m, x, m->pf.leafc); /* the leaves of dt_particle_weight, all at once */
    for (i = 0; i < n; i++) any_proper |= memo_leaf_weight(m, i, x, y, &w[i]);
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
    /* undo-log room for the sets the dead particles release, and one spare arena per
     * copy: a dead particle's arena is kept intact until the row commits (dynatree/txn.c) */
    {
        int64_t room = 0;
        for (j = 0; j < n_dead; j++) room += dt_log_bound(m, &m->pf.parts[dead[j]], 0);
        if (dt_log_room(m, room) != ST_OK || dt_spare_reserve(m, n_dead) != ST_OK) {
            m->txn.broken = 1;
            return lpred;
        }
    }
    for (i = 0; i < n; i++) counts[i] = 0; /* now: first copy placed? */
    n_dead = 0;
    for (j = 0; j < n; j++) {
        i = m->pf.chosen[j];
        if (!counts[i]) {
            counts[i] = 1;
            m->pf.tmp[j] = m->pf.parts[i];
        } else {
            const dt_node *gone;
            m->pf.tmp[j] = m->pf.parts[dead[n_dead++]];
            gone = m->pf.tmp[j].nodes;
            m->pf.tmp[j].nodes = dt_spare_take(m, m->pf.tmp[j].nodes);
            dt_particle_replace(m, &m->pf.tmp[j], gone, m->pf.tmp[j].n_nodes, &m->pf.parts[i]);
        }
    }
    memcpy(m->pf.parts, m->pf.tmp, sizeof(dt_particle) * (size_t)n);
    /* copies keep arena indices, so the cached leaves follow their particles */
    for (j = 0; j < n; j++) m->pf.leafc[n + j] = m->pf.leafc[m->pf.chosen[j]];
    memcpy(m->pf.leafc, m->pf.leafc + n, sizeof(int32_t) * (size_t)n);
    return lpred;
}

/* [DT-SPEC §5] mirrors pl_step */
double dt_pl_step(dt_model *m, int32_t index)
{
    int32_t i;
    double lpred = dt_resample(m, m->store.X + (int64_t)index * m->par.d, m->store.y[index]);
    for (i = 0; i < m->par.n_particles && !m->txn.broken; i++) {
        if (dt_log_room(m, dt_log_bound(m, &m->pf.parts[i], 0)) != ST_OK) {
            m->txn.broken = 1;
            break;
        }
        dt_propagate(m, &m->pf.parts[i], index, m->pf.leafc_ok ? m->pf.leafc[i] : -1);
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
