/*
 * sgt/splits.c -- candidate updates, their scores and the t-test [GPF19, §3.1-3.3].
 *
 * Mirrors reference/sgt/splits.py. Candidates: the null candidate (Δ_0 of the leaf
 * total, no γ), every binary split k = 0..B-2 of each numeric feature (left = prefix
 * merge of bins 0..k in ascending order, right = suffix merge of bins k+1..B-1 in
 * descending order, no subtraction) and one multiway split per nominal feature not
 * used on the path. Pooled moments: m = Σ n_j m_j / n,
 * s² = [Σ (n_j-1) s_j² + Σ n_j (m_j - m)²] / (n-1) over non-empty children ([SGT-SPEC §7.3]);
 * penalty γ|Q|/n ([SGT-SPEC §7.4]); smallest penalised mean wins, first on ties (strict <).
 * The best candidate is applied iff m~ < 0 and p < δ, p = I_{ν/(ν+F)}(ν/2, 1/2),
 * F = n m~² / s², ν = n - 1 (two-sided t-test, [SGT-SPEC §8]); optionally the one-sided
 * p = P(T <= t) = p_two / 2 for m~ < 0.
 */
#include <float.h>
#include <math.h>
#include <string.h>
#include "sgt/sgt.h"

/* sgt_delta_prediction followed by sgt_loss_change_moments, with each mean, variance
 * and covariance of the cell divided out once (the same values, fewer divisions) */
static void child_moments(const sgt_stats *s, double lam, double *delta_out, double *mean,
                          double *variance)
{
    double mean_g = sgt_stats_mean_g(s), mean_h = sgt_stats_mean_h(s);
    double delta = -mean_g / (mean_h + lam + DBL_MIN);
    double delta2 = delta * delta, v;
    *delta_out = delta;
    *mean = delta * mean_g + 0.5 * mean_h * delta * delta;
    v = delta2 * sgt_stats_var_g(s)
        + 0.25 * delta2 * delta2 * sgt_stats_var_h(s)
        + delta2 * delta * sgt_stats_cov_gh(s);
    if (!(v > 0.0))
        v = 0.0;
    *variance = v;
}

void sgt_pool_children(const sgt_stats *children, int32_t k, double lam, double *deltas,
                       double *moment_mean, double *moment_var, double *mean, double *variance)
{
    int32_t j;
    int64_t n = 0;
    double total = 0.0, mu, within = 0.0, between = 0.0;
    for (j = 0; j < k; j++) {
        child_moments(&children[j], lam, &deltas[j], &moment_mean[j], &moment_var[j]);
        if (children[j].n > 0) {
            n += children[j].n;
            total += (double)children[j].n * moment_mean[j];
        }
    }
    mu = total / (double)n;
    for (j = 0; j < k; j++) {
        if (children[j].n > 0) {
            double count = (double)children[j].n;
            double diff = moment_mean[j] - mu;
            within += (count - 1.0) * moment_var[j];
            between += count * (diff * diff);
        }
    }
    *mean = mu;
    *variance = n >= 2 ? (within + between) / ((double)n - 1.0) : 0.0;
}

void sgt_null_candidate(const sgt_stats *total, double lam, sgt_candidate *out)
{
    double delta = sgt_delta_prediction(total, lam);
    out->feature = -1;
    out->threshold = -1;
    out->n_children = 1;
    out->deltas[0] = delta;
    sgt_loss_change_moments(total, delta, &out->mean, &out->variance);
}

double sgt_penalty(double gamma, int32_t n_children, int64_t n_leaf)
{
    /* [GPF19, Eq. 5] γ|Q_u|, per instance */
    return gamma * (double)n_children / (double)n_leaf;
}

static void copy_candidate(sgt_candidate *dst, const sgt_candidate *src)
{
    dst->feature = src->feature;
    dst->threshold = src->threshold;
    dst->n_children = src->n_children;
    dst->mean = src->mean;
    dst->variance = src->variance;
    memcpy(dst->deltas, src->deltas, (size_t)src->n_children * sizeof(double));
}

void sgt_numeric_candidate(const sgt_stats *cells, int32_t bins, int32_t feature, double lam,
                           double gamma, int64_t n_leaf, sgt_scratch *s, sgt_candidate *out)
{
    int32_t k;
    double cost, mean, variance;
    sgt_stats *prefix = s->prefix, *suffix = s->suffix;
    sgt_candidate *pool = &s->pool;
    prefix[0] = cells[0];
    for (k = 1; k < bins - 1; k++)
        sgt_merge(&prefix[k - 1], &cells[k], &prefix[k]);
    suffix[bins - 1] = cells[bins - 1];
    for (k = bins - 2; k > 0; k--)
        sgt_merge(&cells[k], &suffix[k + 1], &suffix[k]);
    cost = sgt_penalty(gamma, 2, n_leaf);
    for (k = 0; k < bins - 1; k++) {
        double score;
        if (k > 0 && cells[k].n == 0)
            continue;   /* same children as threshold k-1: cannot win (strict <) */
        s->pair[0] = prefix[k];
        s->pair[1] = suffix[k + 1];
        sgt_pool_children(s->pair, 2, lam, pool->deltas, s->moment_mean, s->moment_var,
                          &mean, &variance);
        score = mean + cost;
        if (k == 0 || score < out->mean) {
            out->feature = feature;
            out->threshold = k;
            out->n_children = 2;
            out->mean = score;
            out->variance = variance;
            out->deltas[0] = pool->deltas[0];
            out->deltas[1] = pool->deltas[1];
        }
    }
}

void sgt_nominal_candidate(const sgt_stats *cells, int32_t k, int32_t feature, double lam,
                           double gamma, int64_t n_leaf, sgt_scratch *s, sgt_candidate *out)
{
    double mean, variance;
    sgt_pool_children(cells, k, lam, out->deltas, s->moment_mean, s->moment_var, &mean,
                      &variance);
    out->feature = feature;
    out->threshold = -1;
    out->n_children = k;
    out->mean = mean + sgt_penalty(gamma, k, n_leaf);
    out->variance = variance;
}

void sgt_best_candidate(const sgt_stats *cells, const sgt_quantizer *q, const uint8_t *used,
                        int32_t may_split, double lam, double gamma, sgt_scratch *s)
{
    int32_t a;
    int64_t n_leaf = cells[0].n;
    sgt_null_candidate(&cells[0], lam, &s->best);
    if (!may_split)
        return;
    for (a = 0; a < q->d; a++) {
        const sgt_stats *start = cells + q->offsets[a];
        if (q->kinds[a]) {
            if (used[a])
                continue;
            sgt_nominal_candidate(start, q->kinds[a], a, lam, gamma, n_leaf, s, &s->cand);
        } else {
            sgt_numeric_candidate(start, q->bins, a, lam, gamma, n_leaf, s, &s->cand);
        }
        if (s->cand.mean < s->best.mean)
            copy_candidate(&s->best, &s->cand);
    }
}

double sgt_t_test_p_value(double mean, double variance, int64_t n)
{
    double f_stat, nu;
    if (n < 2 || !isfinite(mean) || !isfinite(variance))
        return 1.0;
    if (variance == 0.0)
        return mean < 0.0 ? 0.0 : 1.0;
    f_stat = (double)n * mean * mean / variance;
    nu = (double)n - 1.0;
    /* [GPF19, Eq. 16] two-sided p of t = m √n / s via the incomplete beta */
    return special_betainc(0.5 * nu, 0.5, nu / (nu + f_stat));
}

double sgt_one_sided_p_value(double mean, double variance, int64_t n)
{
    double p = sgt_t_test_p_value(mean, variance, n);
    return mean < 0.0 ? 0.5 * p : 1.0 - 0.5 * p;
}

int32_t sgt_passes_test(const sgt_candidate *c, int64_t n, double delta, int32_t one_sided)
{
    if (!(c->mean < 0.0))
        return 0;
    if (one_sided)
        return sgt_one_sided_p_value(c->mean, c->variance, n) < delta;
    return sgt_t_test_p_value(c->mean, c->variance, n) < delta;
}
