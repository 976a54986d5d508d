/*
 * special.c -- special functions; mirrors reference/special.py operation by operation.
 *
 * One algorithm per function, fixed tolerances and caps (see the Python docstrings):
 *   special_lgamma          Lanczos, g = 7, Godfrey's nine coefficients; x < 0.5 by recurrence
 *   special_log_sum_exp     max-shifted sum in index order
 *   special_student_t_*     log-density; CDF through the incomplete beta; quantile by
 *                           bracketed Newton
 *   special_betainc         modified Lentz continued fraction with the symmetry swap
 * Guards give the C outcome where Python would raise: special_exp_or_inf,
 * special_log_or_neg_inf. Compiled with -ffp-contract=off: no fused multiply-adds, so
 * each expression rounds exactly as its Python twin.
 */
#include <math.h>
#include "common/common.h"

static const double LANCZOS_G = 7.0;
static const double LANCZOS_COEF[9] = {
    0.99999999999980993,
    676.5203681218851,
    -1259.1392167224028,
    771.32342877765313,
    -176.61502916214059,
    12.507343278686905,
    -0.13857109526572012,
    9.9843695780195716e-6,
    1.5056327351493116e-7,
};
static const double HALF_LOG_2PI = 0.91893853320467274178;
static const double BETAINC_EPS = 1e-15;
static const int BETAINC_MAXIT = 10000;
static const double BETAINC_TINY = 1e-300;
static const int PPF_MAXIT = 200;
static const double PPF_RTOL = 1e-15;

double special_exp_or_inf(double x) { return exp(x); }

double special_log_or_neg_inf(double x)
{
    if (x == 0.0) return -INFINITY;
    if (x < 0.0) return NAN;
    return log(x);
}

double special_lgamma(double x)
{
    double z, a, t, shift = 0.0;
    int k;
    if (x != x) return NAN;
    if (x <= 0.0) return INFINITY;
    if (x == INFINITY) return INFINITY;
    if (x < 0.5) {  /* log Gamma(x) = log Gamma(x + 1) - log x */
        shift = log(x);
        x = x + 1.0;
    }
    z = x - 1.0;
    a = LANCZOS_COEF[0];
    for (k = 1; k < 9; k++) a += LANCZOS_COEF[k] / (z + (double)k);
    t = z + LANCZOS_G + 0.5;
    return HALF_LOG_2PI + (z + 0.5) * log(t) - t + log(a) - shift;
}

/* delta(x) = lgamma(x) - Stirling main part, x >= 30; mirrors _stirling_correction */
static double stirling_correction(double x)
{
    double ix = 1.0 / x, ix2 = ix * ix;
    return ix * (1.0 / 12.0 - ix2 * (1.0 / 360.0 - ix2 * (1.0 / 1260.0 - ix2 / 1680.0)));
}

double special_log_beta(double a, double b)
{
    double s = a < b ? a : b, g = a < b ? b : a, gs, corr;
    if (g < 30.0) return special_lgamma(a) + special_lgamma(b) - special_lgamma(a + b);
    gs = g + s;
    corr = stirling_correction(g) - stirling_correction(gs);
    return special_lgamma(s) + (-(g - 0.5) * log1p(s / g) - s * log(gs) + s + corr);
}

double special_log_sum_exp(const double *v, size_t n)
{
    double m = -INFINITY, s = 0.0;
    size_t i;
    for (i = 0; i < n; i++) {
        if (v[i] != v[i]) return NAN;
        if (v[i] > m) m = v[i];
    }
    if (m == -INFINITY || m == INFINITY) return m;
    for (i = 0; i < n; i++) s += exp(v[i] - m);
    return m + log(s);
}

/* the Student-t log density given lb = special_log_beta(0.5 df, 0.5) (C only: a caller that
 * caches lb per df gets the double special_student_t_logpdf returns) */
double special_student_t_logpdf_lb(double x, double df, double lb)
{
    return -lb - 0.5 * log(df) - 0.5 * (df + 1.0) * log1p(x * x / df);
}

double special_student_t_logpdf(double x, double df)
{
    return special_student_t_logpdf_lb(x, df, special_log_beta(0.5 * df, 0.5));
}

/* continued fraction of I_x(a, b), modified Lentz; mirrors _betacf */
static double betacf(double a, double b, double x)
{
    double qab = a + b, qap = a + 1.0, qam = a - 1.0;
    double c = 1.0, d = 1.0 - qab * x / qap, h, fm, m2, aa, delta;
    int m;
    if (fabs(d) < BETAINC_TINY) d = BETAINC_TINY;
    d = 1.0 / d;
    h = d;
    for (m = 1; m <= BETAINC_MAXIT; m++) {
        fm = (double)m;
        m2 = 2.0 * fm;
        aa = fm * (b - fm) * x / ((qam + m2) * (a + m2));
        d = 1.0 + aa * d;
        if (fabs(d) < BETAINC_TINY) d = BETAINC_TINY;
        c = 1.0 + aa / c;
        if (fabs(c) < BETAINC_TINY) c = BETAINC_TINY;
        d = 1.0 / d;
        h *= d * c;
        aa = -(a + fm) * (qab + fm) * x / ((a + m2) * (qap + m2));
        d = 1.0 + aa * d;
        if (fabs(d) < BETAINC_TINY) d = BETAINC_TINY;
        c = 1.0 + aa / c;
        if (fabs(c) < BETAINC_TINY) c = BETAINC_TINY;
        d = 1.0 / d;
        delta = d * c;
        h *= delta;
        if (fabs(delta - 1.0) < BETAINC_EPS) break;
    }
    return h;
}

double special_betainc_xy(double a, double b, double x, double y)
{
    double log_x, log_y, log_front, front;
    if (a != a || b != b || x != x || y != y || a <= 0.0 || b <= 0.0) return NAN;
    if (x <= 0.0) return 0.0;
    if (y <= 0.0) return 1.0;
    log_x = y < 0.5 ? log1p(-y) : log(x);
    log_y = x < 0.5 ? log1p(-x) : log(y);
    log_front = a * log_x + b * log_y - special_log_beta(a, b);
    front = exp(log_front);
    if (x < (a + 1.0) / (a + b + 2.0)) return front * betacf(a, b, x) / a;
    return 1.0 - front * betacf(b, a, y) / b;
}

double special_betainc(double a, double b, double x)
{
    return special_betainc_xy(a, b, x, 1.0 - x);
}

double special_student_t_cdf(double x, double df)
{
    double x2, den, tail;
    if (x != x || df != df || df <= 0.0) return NAN;
    if (x == INFINITY) return 1.0;
    if (x == -INFINITY) return 0.0;
    x2 = x * x;
    den = df + x2;
    tail = 0.5 * special_betainc_xy(0.5 * df, 0.5, df / den, x2 / den);
    return x < 0.0 ? tail : 1.0 - tail;
}

/* rough z with Phi(-z) = q, 0 < q <= 1/2 [AS72, 26.2.23] (Abramowitz and Stegun 1972, formula 26.2.23); mirrors _normal_tail_guess */
static double normal_tail_guess(double q)
{
    double t = sqrt(-2.0 * log(q));
    double num = 2.515517 + t * (0.802853 + t * 0.010328);
    double den = 1.0 + t * (1.432788 + t * (0.189269 + t * 0.001308));
    return t - num / den;
}

double special_student_t_ppf(double p, double df)
{
    double q, z, x, lo, hi, f, density, x_new;
    int it;
    if (p != p || df != df || df <= 0.0 || p < 0.0 || p > 1.0) return NAN;
    if (p == 0.0) return -INFINITY;
    if (p == 1.0) return INFINITY;
    if (p == 0.5) return 0.0;
    q = p < 0.5 ? p : 1.0 - p;
    z = normal_tail_guess(q);
    x = -(z + (z * z * z + z) / (4.0 * df));
    if (!(x < -1e-3)) x = -1e-3;
    lo = x;
    while (special_student_t_cdf(lo, df) > q) lo = 2.0 * lo;
    hi = x;
    while (special_student_t_cdf(hi, df) < q) hi = 0.5 * hi;
    for (it = 0; it < PPF_MAXIT; it++) {
        f = special_student_t_cdf(x, df) - q;
        if (f == 0.0) break;
        if (f < 0.0) lo = x;
        else hi = x;
        density = exp(special_student_t_logpdf(x, df));
        x_new = density > 0.0 ? x - f / density : 0.5 * (lo + hi);
        if (!(lo < x_new && x_new < hi)) x_new = 0.5 * (lo + hi);
        if (fabs(x_new - x) <= PPF_RTOL * fabs(x_new)) {
            x = x_new;
            break;
        }
        x = x_new;
    }
    return p < 0.5 ? x : -x;
}
