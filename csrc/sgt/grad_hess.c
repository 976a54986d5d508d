/*
 * sgt/grad_hess.c -- gradient/Hessian statistics cells [GPF19, §3.3, Eq. 13, 17-18].
 *
 * Mirrors reference/sgt/grad_hess.py function by function (same operations, same
 * order). A cell holds n, Σg, Σh and the centred sums M_g, M_h, C. Invariants:
 * n >= 0; means are Σ/n (0 for an empty cell); M_g, M_h >= 0 up to rounding.
 *   add:    Welford co-moment update ([SGT-SPEC §4.2])
 *   merge:  Chan/Bennett merge ([SGT-SPEC §4.3]); an empty side copies the other side
 *   delta:  Δ = -ḡ / (h̄ + λ + ε)                            [GPF19, Eq. 13]
 *   moments: m = Δḡ + h̄Δ²/2, s² = max(0, Δ²s_g² + Δ⁴s_h²/4 + Δ³c_gh)  [GPF19, Eq. 18]
 */
#include <float.h>
#include "sgt/sgt.h"

double sgt_stats_mean_g(const sgt_stats *s)
{
    return s->n > 0 ? s->sum_g / (double)s->n : 0.0;
}

double sgt_stats_mean_h(const sgt_stats *s)
{
    return s->n > 0 ? s->sum_h / (double)s->n : 0.0;
}

double sgt_stats_var_g(const sgt_stats *s)
{
    return s->n >= 2 ? s->m_g / ((double)s->n - 1.0) : 0.0;
}

double sgt_stats_var_h(const sgt_stats *s)
{
    return s->n >= 2 ? s->m_h / ((double)s->n - 1.0) : 0.0;
}

double sgt_stats_cov_gh(const sgt_stats *s)
{
    return s->n >= 2 ? s->c / ((double)s->n - 1.0) : 0.0;
}

void sgt_stats_add(sgt_stats *s, double g, double h)
{
    double mean_g_old = sgt_stats_mean_g(s);
    double mean_h_old = sgt_stats_mean_h(s);
    double count, mean_g_new, mean_h_new;
    s->n += 1;
    s->sum_g += g;
    s->sum_h += h;
    count = (double)s->n;
    mean_g_new = s->sum_g / count;
    mean_h_new = s->sum_h / count;
    s->m_g += (g - mean_g_old) * (g - mean_g_new);
    s->m_h += (h - mean_h_old) * (h - mean_h_new);
    s->c += (g - mean_g_old) * (h - mean_h_new);
}

void sgt_merge(const sgt_stats *a, const sgt_stats *b, sgt_stats *out)
{
    double d_g, d_h, weight;
    sgt_stats r;
    if (a->n == 0) {
        *out = *b;
        return;
    }
    if (b->n == 0) {
        *out = *a;
        return;
    }
    r.n = a->n + b->n;
    r.sum_g = a->sum_g + b->sum_g;
    r.sum_h = a->sum_h + b->sum_h;
    d_g = sgt_stats_mean_g(b) - sgt_stats_mean_g(a);
    d_h = sgt_stats_mean_h(b) - sgt_stats_mean_h(a);
    weight = (double)a->n * (double)b->n / (double)r.n;
    r.m_g = a->m_g + b->m_g + d_g * d_g * weight;
    r.m_h = a->m_h + b->m_h + d_h * d_h * weight;
    r.c = a->c + b->c + d_g * d_h * weight;
    *out = r;
}

double sgt_delta_prediction(const sgt_stats *s, double lam)
{
    /* [GPF19, Eq. 13] Δ = -ḡ / (h̄ + λ), per instance */
    return -sgt_stats_mean_g(s) / (sgt_stats_mean_h(s) + lam + DBL_MIN);
}

void sgt_loss_change_moments(const sgt_stats *s, double delta, double *mean, double *variance)
{
    double delta2, v;
    /* [GPF19, Eq. 7] per-instance second-order loss change */
    *mean = delta * sgt_stats_mean_g(s) + 0.5 * sgt_stats_mean_h(s) * delta * delta;
    delta2 = delta * delta;
    /* [GPF19, Eq. 18] Var(L) = Δ² Var(G) + Δ⁴ Var(H) / 4 + Δ³ Cov(G, H) */
    v = delta2 * sgt_stats_var_g(s)
        + 0.25 * delta2 * delta2 * sgt_stats_var_h(s)
        + delta2 * delta * sgt_stats_cov_gh(s);
    if (!(v > 0.0))
        v = 0.0;
    *variance = v;
}
