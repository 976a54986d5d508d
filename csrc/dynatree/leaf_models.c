/*
 * dynatree/leaf_models.c -- conjugate leaf models of dynamic trees [AG13, Eq. 1]; mirrors
 * reference/dynatree/leaf_models.py function by function, operation by operation.
 *
 * A leaf's sufficient statistics are one flat block of doubles (layout in dynatree/dynatree.h, offsets
 * in dt_leaf_config). Equations ([DT-SPEC §3]):
 *   §3.0 regression core  Q, Q_p, df, mu0          dt_regression_summary
 *   §3.1/3.2 evidence     ell_eta with log(2/pi)   dt_regression_log_evidence
 *   §3.2 derived linear   Cholesky, G^-1, beta, bb dt_calculate_linear
 *   §3.3 multinomial      Dirichlet(1/C) evidence  dt_class_log_evidence
 * Invariants: the block's ELL field always equals the evidence of its statistics
 * (dt_refresh after every change); the stored G is never overwritten by a failed
 * Cholesky (fall-back only in G^-1, beta, bb, log|G^-1|).
 */
#include <math.h>
#include <string.h>
#include "dynatree/dynatree.h"

static const double DT_PI = 3.141592653589793;

void dt_leaf_config_init(dt_leaf_config *c, int kind, int p, int augmented, int delta,
                         int n_classes, double nu0, double s20)
{
    int base = DT_OFF_VEC, k;
    c->kind = kind;
    c->p = p;
    c->augmented = augmented;
    c->delta = delta;
    c->n_classes = n_classes;
    c->nu0 = nu0;
    c->s20 = s20;
    c->kappa = 0.0; /* the flat slope prior; dt_model_set_slope_prior sets another */
    c->off_counts = base;
    c->off_gcounts = base + n_classes;
    c->off_xbar = base;
    c->off_G = base + p;
    c->off_b = c->off_G + p * p;
    c->off_Gg = c->off_b + p;
    c->off_bg = c->off_Gg + p * p;
    c->off_ginv = c->off_bg + p;
    c->off_beta = c->off_ginv + p * p;
    if (kind == DT_CLASS)
        c->sw = base + 2 * n_classes;
    else if (kind == DT_LINEAR)
        c->sw = c->off_beta + p;
    else
        c->sw = base;
    c->lg_half = NULL;
    c->lg_frac = NULL;
    c->lg_len = 0;
    /* the constant term of dt_class_log_evidence, computed once as it would be per call */
    c->lg_prior = kind == DT_CLASS ? (double)n_classes * special_lgamma(1.0 / (double)n_classes)
                                   : 0.0;
    /* the evidence's logs of a leaf without retired data, computed once as per call */
    c->qp0 = nu0 * s20 + 0.0;
    c->log_qp0 = log(c->qp0 / 2.0);
    c->log_int[0] = -INFINITY;
    for (k = 1; k < DT_LOG_INT; k++) c->log_int[k] = log((double)k);
}

/* log(x) from the table when x is a tabulated integer (the same double), else computed */
static double log_count(const dt_leaf_config *c, double x)
{
    if (x >= 1.0 && x < (double)DT_LOG_INT && x == (double)(int32_t)x) return c->log_int[(int32_t)x];
    return log(x);
}

/* log(qp / 2) of the evidence: cached for the prior Q of a leaf without retired data */
static double log_half_qp(const dt_leaf_config *c, double qp)
{
    return qp == c->qp0 ? c->log_qp0 : log(qp / 2.0);
}

/* lgamma(x2 / 2) from the cache when x2 is a cached integer, else computed: the cache
 * holds special_lgamma of exactly the same arguments, so results are identical */
static double lgamma_half(const dt_leaf_config *c, double x2)
{
    /* in [1, lg_len), truncation is floor: an integer x2 converts back to itself */
    if (x2 >= 1.0 && x2 < (double)c->lg_len && x2 == (double)(int64_t)x2)
        return c->lg_half[(int64_t)x2];
    return special_lgamma(x2 / 2.0);
}

void dt_stats_clear(double *st, const dt_leaf_config *c)
{
    int k;
    for (k = 0; k < c->sw; k++) st[k] = 0.0;
}

/* regressors z: (1, x) if augmented, else x; mirrors regressors */
static void regressors(const double *x, const dt_leaf_config *c, double *z)
{
    int j;
    if (c->augmented) {
        z[0] = 1.0;
        for (j = 1; j < c->p; j++) z[j] = x[j - 1];
    } else {
        for (j = 0; j < c->p; j++) z[j] = x[j];
    }
}

static void linear_fallback(double *st, const dt_leaf_config *c)
{
    int k, p = c->p;
    for (k = 0; k < p * p; k++) st[c->off_ginv + k] = 0.0;
    for (k = 0; k < p; k++) st[c->off_beta + k] = 0.0;
    st[DT_OFF_BB] = 0.0;
    st[DT_OFF_LOGDET] = 0.0;
}

/* [DT-SPEC §3.2] step 2 mirrors _cholesky_dropping: the lower factor of the kept columns
 * in low (p*p, zeroed here); column j is dropped (zero diagonal and column below it) when
 * its pivot is not above DT_PIVOT_TOL times G_jj + n xbar_j^2 (+ kappa); returns the
 * number of kept columns, 0 on a non-finite pivot */
static int cholesky_dropping(const double *st, const dt_leaf_config *c, double *low)
{
    int p = c->p, i, j, k, rank = 0;
    const double *G = st + c->off_G, *xbar = st + c->off_xbar;
    double s, t, scale, n = st[DT_OFF_N];
    for (k = 0; k < p * p; k++) low[k] = 0.0;
    for (j = 0; j < p; j++) {
        s = G[j * p + j];
        if (c->kappa > 0.0) s = s + c->kappa;
        scale = s + n * xbar[j] * xbar[j];
        for (k = 0; k < j; k++) s = s - low[j * p + k] * low[j * p + k];
        if (!(s < INFINITY) || !(scale < INFINITY)) return 0;
        if (!(s > DT_PIVOT_TOL * scale)) continue;
        rank++;
        low[j * p + j] = sqrt(s);
        for (i = j + 1; i < p; i++) {
            t = G[i * p + j];
            for (k = 0; k < j; k++) t = t - low[i * p + k] * low[j * p + k];
            low[i * p + j] = t / low[j * p + j];
        }
    }
    return rank;
}

/* G^-1 = M' M with M = L^-1 over the kept columns, 0 in the dropped ones; mirrors
 * _ginv_from_factor. The (j, i) entry is the same sum of the same products in the same
 * order as (i, j), so it is computed once and mirrored (bit-identical) */
static void ginv_from_factor(double *ginv, int p, const double *low, double *inv)
{
    int i, j, k;
    double t;
    for (k = 0; k < p * p; k++) inv[k] = 0.0;
    for (j = 0; j < p; j++) {
        if (!(low[j * p + j] > 0.0)) continue;
        inv[j * p + j] = 1.0 / low[j * p + j];
        for (i = j + 1; i < p; i++) {
            if (!(low[i * p + i] > 0.0)) continue;
            t = 0.0;
            for (k = j; k < i; k++) t = t + low[i * p + k] * inv[k * p + j];
            inv[i * p + j] = -t / low[i * p + i];
        }
    }
    for (i = 0; i < p; i++) {
        for (j = 0; j <= i; j++) {
            t = 0.0;
            for (k = i; k < p; k++) t = t + inv[k * p + i] * inv[k * p + j];
            ginv[i * p + j] = t;
            ginv[j * p + i] = t;
        }
    }
}

/* [DT-SPEC §3.2] steps 1-4 mirrors calculate_linear; work >= 2 p^2 doubles. Regressors
 * that are (up to rounding) combinations of earlier ones are dropped (cholesky_dropping):
 * the leaf is the linear leaf on the kept columns. With the slope prior ([DT-SPEC §3.7],
 * kappa > 0) the factorised matrix is G + kappa I (kappa added to each diagonal entry as
 * it is read), bb = beta' (G + kappa I) beta, log|G^-1| holds log|kappa (G + kappa I)^-1|
 * over the r kept columns, and the leaf falls back only when no column is kept, on a
 * non-finite bb or G^-1[0] <= 0 (overflowing sums), so that ginv[0] > 0 marks the linear
 * terms as in use */
void dt_calculate_linear(double *st, const dt_leaf_config *c, double *work)
{
    int p = c->p, i, j, rank;
    const double *G = st + c->off_G;
    double *ginv = st + c->off_ginv, *beta = st + c->off_beta, *b = st + c->off_b;
    double *low = work, *inv = work + p * p;
    double s, t, bb, kappa = c->kappa;
    int ridge = kappa > 0.0;
    rank = cholesky_dropping(st, c, low);
    if (rank == 0) {
        linear_fallback(st, c);
        return;
    }
    ginv_from_factor(ginv, p, low, inv);
    s = 0.0;
    for (j = 0; j < p; j++)
        if (low[j * p + j] > 0.0) s = s + log(low[j * p + j]);
    st[DT_OFF_LOGDET] = -2.0 * s;
    if (ridge) st[DT_OFF_LOGDET] = st[DT_OFF_LOGDET] + (double)rank * log(kappa);
    for (i = 0; i < p; i++) {
        t = 0.0;
        for (j = 0; j < p; j++) t = t + ginv[i * p + j] * b[j];
        beta[i] = t;
    }
    bb = 0.0;
    for (i = 0; i < p; i++) {
        t = 0.0;
        for (j = 0; j < p; j++) t = t + G[i * p + j] * beta[j];
        if (ridge) t = t + kappa * beta[i];
        bb = bb + beta[i] * t;
    }
    st[DT_OFF_BB] = bb;
    if (ridge) {
        /* G + kappa I is positive definite: only overflowing sums end here */
        if (!(bb >= 0.0 && bb < INFINITY && ginv[0] > 0.0)) linear_fallback(st, c);
    } else if (!(bb > 0.0)) {
        linear_fallback(st, c);
    }
}

/* G += z z' (upper triangle, mirrored), b += z y; mirrors _add_outer */
static void add_outer(double *G, double *b, const double *z, double y, int p)
{
    int j, k;
    for (j = 0; j < p; j++) {
        b[j] = b[j] + z[j] * y;
        for (k = j; k < p; k++) {
            G[j * p + k] = G[j * p + k] + z[j] * z[k];
            G[k * p + j] = G[j * p + k];
        }
    }
}

/* [DT-SPEC §3.2] item 1 mirrors linear_implicit_from_points; work >= 2 p^2 + p doubles */
void dt_linear_implicit_from_points(double *st, const dt_leaf_config *c, const int32_t *points,
                                    int32_t n, const double *X, const double *y, int32_t d,
                                    double *work)
{
    int p = c->p, j;
    int32_t a;
    double sy = 0.0, syy = 0.0, yi, ybar = 0.0;
    double *xbar = st + c->off_xbar, *G = st + c->off_G, *b = st + c->off_b;
    double *dx = work + 2 * p * p;
    const double *xi;
    for (j = 0; j < p; j++) xbar[j] = 0.0;
    for (a = 0; a < n; a++) {
        yi = y[points[a]];
        sy = sy + yi;
        syy = syy + yi * yi;
        xi = X + (int64_t)points[a] * d;
        for (j = 0; j < p; j++) xbar[j] = xbar[j] + xi[j];
    }
    if (n > 0) {
        for (j = 0; j < p; j++) xbar[j] = xbar[j] / (double)n;
        ybar = sy / (double)n;
    }
    for (j = 0; j < p * p; j++) G[j] = 0.0;
    for (j = 0; j < p; j++) b[j] = 0.0;
    for (a = 0; a < n; a++) {
        xi = X + (int64_t)points[a] * d;
        for (j = 0; j < p; j++) dx[j] = xi[j] - xbar[j];
        add_outer(G, b, dx, y[points[a]] - ybar, p);
    }
    st[DT_OFF_N] = (double)n;
    st[DT_OFF_SY] = sy;
    st[DT_OFF_SYY] = syy;
    dt_calculate_linear(st, c, work);
}

/* [DT-SPEC §4.1] step 1 mirrors add_point; points = the leaf's points incl. index */
void dt_add_point(double *st, const dt_leaf_config *c, const int32_t *points, int32_t n_points,
                  int32_t index, const double *X, const double *y, int32_t d, double *work)
{
    double yi = y[index];
    double *z = work + 2 * c->p * c->p + c->p;
    if (c->kind == DT_CONSTANT) {
        st[DT_OFF_N] += 1.0;
        st[DT_OFF_SY] = st[DT_OFF_SY] + yi;
        st[DT_OFF_SYY] = st[DT_OFF_SYY] + yi * yi;
    } else if (c->kind == DT_CLASS) {
        st[DT_OFF_N] += 1.0;
        st[c->off_counts + (int)yi] += 1.0;
    } else if (c->delta == 1) {
        dt_linear_implicit_from_points(st, c, points, n_points, X, y, d, work);
    } else {
        st[DT_OFF_N] += 1.0;
        st[DT_OFF_SYY] = st[DT_OFF_SYY] + yi * yi;
        regressors(X + (int64_t)index * d, c, z);
        add_outer(st + c->off_G, st + c->off_b, z, yi, c->p);
        dt_calculate_linear(st, c, work);
    }
    dt_refresh(st, c);
}

/* [AG13, §3.2] proportional share of retired statistics; mirrors _receive_retired_share */
static void receive_retired_share(double *st, const dt_leaf_config *c, const double *parent,
                                  double rho)
{
    int k, p = c->p;
    st[DT_OFF_NU] = rho * parent[DT_OFF_NU];
    st[DT_OFF_SYG] = rho * parent[DT_OFF_SYG];
    st[DT_OFF_SYYG] = rho * parent[DT_OFF_SYYG];
    for (k = 0; k < c->n_classes; k++)
        st[c->off_gcounts + k] = rho * parent[c->off_gcounts + k];
    for (k = 0; k < p * p; k++) {
        st[c->off_Gg + k] = rho * parent[c->off_Gg + k];
        st[c->off_G + k] = st[c->off_G + k] + st[c->off_Gg + k];
    }
    for (k = 0; k < p; k++) {
        st[c->off_bg + k] = rho * parent[c->off_bg + k];
        st[c->off_b + k] = st[c->off_b + k] + st[c->off_bg + k];
    }
}

/* [DT-SPEC §4.5], [DT-SPEC §6.4] mirrors stats_from_points; parent may be NULL */
void dt_stats_from_points(double *st, const dt_leaf_config *c, const int32_t *points,
                          int32_t n, const double *X, const double *y, int32_t d,
                          const double *parent, double *work)
{
    int32_t a;
    double yi;
    double *z = work + 2 * c->p * c->p + c->p;
    dt_stats_clear(st, c);
    if (c->kind == DT_LINEAR && c->delta == 1) {
        dt_linear_implicit_from_points(st, c, points, n, X, y, d, work);
        dt_refresh(st, c);
        return;
    }
    for (a = 0; a < n; a++) {
        yi = y[points[a]];
        st[DT_OFF_N] += 1.0;
        if (c->kind == DT_CONSTANT) {
            st[DT_OFF_SY] = st[DT_OFF_SY] + yi;
            st[DT_OFF_SYY] = st[DT_OFF_SYY] + yi * yi;
        } else if (c->kind == DT_CLASS) {
            st[c->off_counts + (int)yi] += 1.0;
        } else {
            st[DT_OFF_SYY] = st[DT_OFF_SYY] + yi * yi;
            regressors(X + (int64_t)points[a] * d, c, z);
            add_outer(st + c->off_G, st + c->off_b, z, yi, c->p);
        }
    }
    dt_stats_finish(st, c, parent, work);
}

/* the body of the loop of dt_stats_from_points for one point (not for the implicit
 * linear leaf), so that a caller can fill two children in one pass with exactly the same
 * operations per child (dt_propagate) */
void dt_stats_accumulate(double *st, const dt_leaf_config *c, int32_t point, const double *X,
                         const double *y, int32_t d, double *work)
{
    double yi = y[point];
    double *z = work + 2 * c->p * c->p + c->p;
    st[DT_OFF_N] += 1.0;
    if (c->kind == DT_CONSTANT) {
        st[DT_OFF_SY] = st[DT_OFF_SY] + yi;
        st[DT_OFF_SYY] = st[DT_OFF_SYY] + yi * yi;
    } else if (c->kind == DT_CLASS) {
        st[c->off_counts + (int)yi] += 1.0;
    } else {
        st[DT_OFF_SYY] = st[DT_OFF_SYY] + yi * yi;
        regressors(X + (int64_t)point * d, c, z);
        add_outer(st + c->off_G, st + c->off_b, z, yi, c->p);
    }
}

/* the tail of dt_stats_from_points: retired share, derived linear quantities, evidence */
void dt_stats_finish(double *st, const dt_leaf_config *c, const double *parent, double *work)
{
    if (parent != NULL && parent[DT_OFF_NU] != 0.0)
        receive_retired_share(st, c, parent, st[DT_OFF_N] / parent[DT_OFF_N]);
    if (c->kind == DT_LINEAR) dt_calculate_linear(st, c, work);
    dt_refresh(st, c);
}

/* [DT-SPEC §3.0] mirrors regression_summary */
void dt_regression_summary(const double *st, const dt_leaf_config *c, double *mu0, double *q,
                           double *qp, double *df, double *dm)
{
    double n = st[DT_OFF_N], nu = st[DT_OFF_NU];
    /* slopes under the proper prior of [DT-SPEC §3.7] use no degrees of freedom */
    int plin = 0, j;
    double ybar = st[DT_OFF_N] > 0.0 ? st[DT_OFF_SY] / n : 0.0;
    double s2y = st[DT_OFF_SYY] - n * ybar * ybar;
    double qq = c->nu0 * c->s20 + st[DT_OFF_SYYG], dev;
    /* one degree of freedom per kept regressor (positive diagonal of G^-1, [DT-SPEC §3.2]) */
    if (c->kind == DT_LINEAR && st[DT_OFF_BB] > 0.0 && c->kappa == 0.0)
        for (j = 0; j < c->p; j++)
            if (st[c->off_ginv + j * c->p + j] > 0.0) plin++;
    *dm = (double)(c->delta + plin);
    if (nu > 0.0) {
        qq = qq - st[DT_OFF_SYG] * st[DT_OFF_SYG] / nu;
        if (st[DT_OFF_N] > 0.0) {
            dev = ybar - st[DT_OFF_SYG] / nu;
            qq = qq + nu * n / (nu + n) * dev * dev;
        }
    }
    *df = c->nu0 + nu + n - *dm;
    *q = s2y - st[DT_OFF_BB] + qq;
    *qp = qq;
    *mu0 = nu == 0.0 ? ybar : (st[DT_OFF_SYG] + st[DT_OFF_SY]) / (nu + n);
}

/* [DT-SPEC §3.1], [DT-SPEC §3.2] mirrors regression_log_evidence */
double dt_regression_log_evidence(const double *st, const dt_leaf_config *c)
{
    double mu0, q, qp, df, dm, n = st[DT_OFF_N], ell, prior_df;
    dt_regression_summary(st, c, &mu0, &q, &qp, &df, &dm);
    if (!(q > 0.0) || !(df > 0.0)) return -INFINITY;
    ell = -0.5 * (n - dm) * log(2.0 / DT_PI);
    if (c->delta == 1) {
        if (st[DT_OFF_N] > 0.0) ell = ell - 0.5 * log_count(c, n);
        if (st[DT_OFF_NU] > 0.0) ell = ell + 0.5 * log(st[DT_OFF_NU]);
    }
    ell = ell - 0.5 * df * log(q / 2.0) + lgamma_half(c, df);
    prior_df = c->nu0 + st[DT_OFF_NU];
    if (prior_df > 0.0 && qp > 0.0)
        ell = ell + (0.5 * prior_df * log_half_qp(c, qp) - lgamma_half(c, prior_df));
    if (c->kind == DT_LINEAR) ell = ell + 0.5 * st[DT_OFF_LOGDET];
    return ell;
}

/* [DT-SPEC §3.3] mirrors class_log_evidence */
double dt_class_log_evidence(const double *st, const dt_leaf_config *c)
{
    double inv_c = 1.0 / (double)c->n_classes, a;
    double ell, cnt;
    int k;
    a = st[DT_OFF_N] + st[DT_OFF_NU] + 1.0;
    ell = -lgamma_half(c, 2.0 * a); /* 2a is exact, so the cache key is exact */
    for (k = 0; k < c->n_classes; k++) {
        cnt = st[c->off_counts + k];
        if (st[c->off_gcounts + k] == 0.0 && c->lg_frac != NULL && cnt < (double)(c->lg_len / 2))
            ell = ell + c->lg_frac[(int64_t)cnt]; /* = lgamma(cnt + 0.0 + inv_c) */
        else
            ell = ell + special_lgamma(cnt + st[c->off_gcounts + k] + inv_c);
    }
    return ell - c->lg_prior; /* = C * lgamma(inv_c), cached by dt_leaf_config_init */
}

void dt_refresh(double *st, const dt_leaf_config *c)
{
    if (c->kind == DT_CLASS)
        st[DT_OFF_ELL] = dt_class_log_evidence(st, c);
    else
        st[DT_OFF_ELL] = dt_regression_log_evidence(st, c);
}

/* 1 if the linear terms of regression_predictive are in use: with the flat prior the
 * leaf fitted slopes (bb > 0), with the slope prior its G^-1 is live (ginv[0] > 0) */
int dt_linear_in_use(const double *st, const dt_leaf_config *c)
{
    return c->kind == DT_LINEAR &&
           (c->kappa == 0.0 ? st[DT_OFF_BB] > 0.0 : st[c->off_ginv] > 0.0);
}

/* the linear terms of regression_predictive at x: quad = dx' G^-1 dx and lin = dx' beta,
 * dx = z(x) - xbar (the loop of the reference, in its order); work >= 2p doubles */
void dt_linear_terms(const double *st, const dt_leaf_config *c, const double *x, double *quad,
                     double *lin, double *work)
{
    int p = c->p, i, j;
    double *z = work, *dx = work + p, t, qd = 0.0, ln = 0.0;
    regressors(x, c, z);
    for (j = 0; j < p; j++) dx[j] = z[j] - st[c->off_xbar + j];
    for (i = 0; i < p; i++) {
        t = 0.0;
        for (j = 0; j < p; j++) t = t + st[c->off_ginv + i * p + j] * dx[j];
        qd = qd + dx[i] * t;
        ln = ln + dx[i] * st[c->off_beta + i];
    }
    /* G^-1 is positive semi-definite: only rounding makes quad < 0 ([DT-SPEC §3.2]) */
    *quad = qd < 0.0 ? 0.0 : qd;
    *lin = ln;
}

/* lin of dt_linear_terms alone (the same sum in the same order, so the same double): what
 * the predictive location needs, without the quadratic form of the scale */
double dt_linear_slope_term(const double *st, const dt_leaf_config *c, const double *x)
{
    int p = c->p, i;
    double ln = 0.0, zi;
    for (i = 0; i < p; i++) {
        zi = c->augmented ? (i == 0 ? 1.0 : x[i - 1]) : x[i];
        ln = ln + (zi - st[c->off_xbar + i]) * st[c->off_beta + i];
    }
    return ln;
}

/* [DT-SPEC §3.1]-[DT-SPEC §3.2] mirrors regression_predictive; returns 1 if proper; work >= 2p doubles */
int dt_regression_predictive(const double *st, const dt_leaf_config *c, const double *x,
                             double *loc, double *scale, double *df, double *work)
{
    double mu0, q, qp, dm, tot = st[DT_OFF_N] + st[DT_OFF_NU], h = 0.0, quad, lin;
    dt_regression_summary(st, c, &mu0, &q, &qp, df, &dm);
    if (c->delta == 1 && tot > 0.0) h = 1.0 / tot;
    *loc = mu0;
    if (dt_linear_in_use(st, c)) {
        dt_linear_terms(st, c, x, &quad, &lin, work);
        h = h + quad;
        /* else beta = 0 (slope prior, b = 0): mu0 even if x - xbar overflows */
        if (st[DT_OFF_BB] > 0.0) *loc = mu0 + lin;
    }
    if (!(q > 0.0) || !(*df > 0.0)) {
        *scale = INFINITY;
        return 0;
    }
    *scale = sqrt(q * (1.0 + h) / *df);
    return 1;
}

/* [DT-SPEC §3.3] mirrors class_probability */
double dt_class_probability(const double *st, const dt_leaf_config *c, int k)
{
    double inv_c = 1.0 / (double)c->n_classes;
    return (st[c->off_counts + k] + st[c->off_gcounts + k] + inv_c) /
           (st[DT_OFF_N] + st[DT_OFF_NU] + 1.0);
}

/* [DT-SPEC §4.1] step 5, §6.4 mirrors merge_stats: additive over leaves in preorder; the
 * implicit linear leaf is recomputed from the union of points (arrival order) */
void dt_merge_stats(double *st, const dt_leaf_config *c, const double *blocks,
                    const int32_t *leaves, int32_t n_leaves, const int32_t *points, int32_t n_points, const double *X,
                    const double *y, int32_t d, double *work)
{
    int32_t a;
    int k, p = c->p;
    const double *lf;
    dt_stats_clear(st, c);
    for (a = 0; a < n_leaves; a++) {
        lf = blocks + (int64_t)leaves[a] * c->sw;
        st[DT_OFF_NU] = st[DT_OFF_NU] + lf[DT_OFF_NU];
        st[DT_OFF_SYG] = st[DT_OFF_SYG] + lf[DT_OFF_SYG];
        st[DT_OFF_SYYG] = st[DT_OFF_SYYG] + lf[DT_OFF_SYYG];
        for (k = 0; k < c->n_classes; k++)
            st[c->off_gcounts + k] = st[c->off_gcounts + k] + lf[c->off_gcounts + k];
        for (k = 0; k < p * p; k++) st[c->off_Gg + k] = st[c->off_Gg + k] + lf[c->off_Gg + k];
        for (k = 0; k < p; k++) st[c->off_bg + k] = st[c->off_bg + k] + lf[c->off_bg + k];
    }
    if (c->kind == DT_LINEAR && c->delta == 1) {
        dt_linear_implicit_from_points(st, c, points, n_points, X, y, d, work);
        dt_refresh(st, c);
        return;
    }
    for (a = 0; a < n_leaves; a++) {
        lf = blocks + (int64_t)leaves[a] * c->sw;
        st[DT_OFF_N] += lf[DT_OFF_N];
        st[DT_OFF_SY] = st[DT_OFF_SY] + lf[DT_OFF_SY];
        st[DT_OFF_SYY] = st[DT_OFF_SYY] + lf[DT_OFF_SYY];
        for (k = 0; k < c->n_classes; k++) st[c->off_counts + k] += lf[c->off_counts + k];
        for (k = 0; k < p * p; k++) st[c->off_G + k] = st[c->off_G + k] + lf[c->off_G + k];
        for (k = 0; k < p; k++) st[c->off_b + k] = st[c->off_b + k] + lf[c->off_b + k];
    }
    if (c->kind == DT_LINEAR) dt_calculate_linear(st, c, work);
    dt_refresh(st, c);
}
