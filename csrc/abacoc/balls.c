/*
 * abacoc/balls.c -- the ABACOC ball record and its local update rules [DOC15, Alg. 2-4].
 *
 * Mirrors reference/abacoc/balls.py function by function. A ball is a slot of the
 * model's contiguous table: id, centre c (D doubles), class counts n(k) (a row of
 * class_cap int64), update counter u, initial radius R, radius eps, mistakes m.
 *   ab_add_count            n(k) <- n(k) + 1                       [DOC15, Alg. 2]
 *   ab_majority             maj(s), ties to the smallest class index (tie rule T2 [ABACOC-SPEC T2]: equal counts go to the
 *                           class registered first)
 *   ab_move_center          u <- u + 1; c <- c + (x - c)/u         [DOC15, Alg. 3-4 ADJ]
 *   ab_shrink_radius        m <- m + 1; eps <- R m^(-1/(2+d))      [DOC15, Alg. 4]
 *   ab_randomized_probability  Laplace estimate and FMG band (steps P1-P3 of the spec: Laplace
 *                              estimate, band half-width, clip) [DOC15, Alg. 2] [ABACOC-SPEC §4]
 * Invariants: every ball holds >= 1 count; R never changes once set; eps <= R.
 */
#include <math.h>
#include "abacoc/abacoc.h"

void ab_ball_write(ab_model *m, int64_t slot, int64_t id, const double *x, int64_t k,
                   double radius)
{
    int64_t j;
    int64_t D = m->n_features;
    int64_t *row = m->balls.counts + slot * m->class_cap;
    m->balls.id[slot] = id;
    for (j = 0; j < D; j++) m->balls.center[slot * D + j] = x[j];
    for (j = 0; j < m->class_cap; j++) row[j] = 0;
    ab_add_count(m, slot, k);
    m->balls.u[slot] = 1;
    m->balls.R[slot] = radius;
    m->balls.eps[slot] = radius;
    m->balls.m[slot] = 0;
}

void ab_add_count(ab_model *m, int64_t slot, int64_t k)
{
    m->balls.counts[slot * m->class_cap + k] += 1;
}

int64_t ab_count_of(const ab_model *m, int64_t slot, int64_t k)
{
    if (k < m->n_classes) return m->balls.counts[slot * m->class_cap + k];
    return 0;
}

int64_t ab_total_count(const ab_model *m, int64_t slot)
{
    int64_t k, n = 0;
    const int64_t *row = m->balls.counts + slot * m->class_cap;
    for (k = 0; k < m->n_classes; k++) n += row[k];
    return n;
}

int64_t ab_majority(const ab_model *m, int64_t slot)
{
    int64_t k, best = 0, best_count = -1;
    const int64_t *row = m->balls.counts + slot * m->class_cap;
    for (k = 0; k < m->n_classes; k++) {
        if (row[k] > best_count) {   /* strict: ties keep the smaller index (tie rule T2, [ABACOC-SPEC T2]) */
            best = k;
            best_count = row[k];
        }
    }
    return best;
}

void ab_move_center(ab_model *m, int64_t slot, const double *x)
{
    /* [DOC15, Alg. 3-4 ADJ] online K-means step with the counter u */
    int64_t j;
    int64_t D = m->n_features;
    double *c = m->balls.center + slot * D;
    double u;
    m->balls.u[slot] += 1;
    u = (double)m->balls.u[slot];
    for (j = 0; j < D; j++) c[j] = c[j] + (x[j] - c[j]) / u;
}

void ab_shrink_radius(ab_model *m, int64_t slot, double d)
{
    /* [DOC15, Alg. 4 UpdateRadius] eps = R m^(-1/(2+d)); ambiguity A12 [ABACOC-SPEC A12] (m_s = 0 makes
     * the formula undefined): eps = R until a mistake */
    double exponent;
    m->balls.m[slot] += 1;
    exponent = -1.0 / (2.0 + d);
    m->balls.eps[slot] = m->balls.R[slot] * pow((double)m->balls.m[slot], exponent);
}

double ab_randomized_probability(int64_t n1, int64_t n)
{
    /* [DOC15, Alg. 2 lines 5-8] steps P1 Laplace, P2 band half-width, P3 clip
     * [ABACOC-SPEC §4] */
    double q = (double)(n1 + 1) / (double)(n + 2);
    double gamma = 1.0 / (2.0 * sqrt((double)(n + 2)));
    double p = 0.5 + (q - 0.5) / (2.0 * gamma);
    if (p < 0.0) return 0.0;
    if (p > 1.0) return 1.0;
    return p;
}
