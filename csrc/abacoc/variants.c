/*
 * abacoc/variants.c -- the ABACOC variants: template [DOC15, Alg. 1], BASE and BASE-ADJ
 * (Alg. 2-3), AUTO and AUTO-ADJ (Alg. 4) and the FIX budget rule (Sec. VII, Eq. 1).
 * Mirrors reference/abacoc/variants.py function by function, same branches and draws.
 *   BASE:  inside the nearest ball (delta <= eps: tie rule T3 [ABACOC-SPEC T3], the
 *          boundary counts as inside) absorb the point (BASE-ADJ also
 *          moves the centre when maj(s) = y); outside add a ball after the dimension
 *          check |S|+1 > C 2^d_i eps^-d_i, which starts a new phase with S empty and
 *          d_{i+1} = log((|S|+1)/C)/log(2/eps). Then t_i += 1, eps = t_i^(-1/(2+d_i)).
 *   AUTO:  two-label start-up (steps I1-I3 of the spec: first ball, skip same-label or
 *          coincident points, second ball; tie rule T6 [ABACOC-SPEC T6]: a point at distance 0
 *          from ball 1 is dropped); inside: a mistake of maj(s) shrinks the [ABACOC-SPEC §6]
 *          radius, a correct prediction moves the centre (AUTO-ADJ); outside: a new
 *          ball of radius delta, replacing a drawn victim when the budget is full.
 * Random draws: one rng_uniform per randomized-BASE prediction; one rng_below(W) per
 * FIX deletion; nothing else.
 * The caller (abacoc/model.c) guarantees capacity for one more ball before a step.
 */
#include <math.h>
#include "abacoc/abacoc.h"

int64_t ab_nearest_ball(ab_model *m, const double *x, double *delta_out)
{
    double raw;
    int64_t slot = ab_index_nearest(m, x, &raw);
    *delta_out = ab_rho(raw, m->par.metric, m->par.p);
    return slot;
}

static int adjusts(const ab_model *m)
{
    return m->par.variant == AB_BASE_ADJ || m->par.variant == AB_AUTO_ADJ;
}

static int is_auto(const ab_model *m)
{
    return m->par.variant == AB_AUTO || m->par.variant == AB_AUTO_ADJ;
}

static void append_ball(ab_model *m, const double *x, int64_t k, double radius)
{
    int64_t slot = m->balls.n_balls;
    ab_ball_write(m, slot, m->balls.next_id, x, k, radius);
    m->balls.next_id += 1;
    m->balls.n_balls += 1;
    ab_index_inserted(m, slot);
}

/* ---- BASE and BASE-ADJ [DOC15, Alg. 2-3] ---- */

void ab_base_add_ball(ab_model *m, const double *x, int64_t k)
{
    /* [DOC15, Alg. 2 lines 15-18] dimension check (steps D1-D3 of the spec: a new phase
     * when |S| + 1 exceeds the packing bound), then insert (step D4) ([ABACOC-SPEC §4]) */
    double size = (double)(m->balls.n_balls + 1);
    double capacity = m->par.C * ab_pow_or_inf(2.0, m->vs.phase_dim);
    capacity = capacity * ab_pow_or_inf(m->vs.radius, -m->vs.phase_dim);
    if (size > capacity) {
        m->vs.phase_dim = log(size / m->par.C) / log(2.0 / m->vs.radius);
        m->balls.n_balls = 0;
        ab_index_cleared(m);
        m->vs.phase += 1;
        m->vs.phase_steps = 0;
    }
    append_ball(m, x, k, 0.0);
}

/* found: the nearest-ball search of x already made on this state, or NULL to search */
static int64_t nearest_or_found(ab_model *m, const double *x, const ab_found *found,
                                double *delta_out)
{
    if (found == NULL) return ab_nearest_ball(m, x, delta_out);
    *delta_out = found->delta;
    return found->slot;
}

void ab_base_learn(ab_model *m, const double *x, int64_t k, const ab_found *found)
{
    double delta;
    int64_t slot = nearest_or_found(m, x, found, &delta);
    if (slot >= 0 && delta <= m->vs.radius) {
        if (adjusts(m) && ab_majority(m, slot) == k) {
            ab_move_center(m, slot, x);
            ab_index_moved(m, slot);
        }
        ab_add_count(m, slot, k);
    } else {
        ab_base_add_ball(m, x, k);
    }
    /* [DOC15, Alg. 2 UpdateRadius] steps E1-E2 of the spec: t_i += 1, eps = t_i^(-1/(2+d_i)) [ABACOC-SPEC §4] */
    m->vs.phase_steps += 1;
    m->vs.radius = ab_pow_or_inf((double)m->vs.phase_steps, -1.0 / (2.0 + m->vs.phase_dim));
}

/* ---- AUTO, AUTO-ADJ and FIX [DOC15, Alg. 4, Eq. 1] ---- */

int64_t ab_fix_victim(ab_model *m)
{
    /* [DOC15, Eq. 1] P(v = i) = (m_i + 1)/(sum_j m_j + |S|), exact integer walk (tie rule T5, [ABACOC-SPEC T5]: the walk goes in slot order).
     * Random draws: one rng_below(W). */
    int64_t slot, running = 0;
    uint64_t weight_total = 0, r;
    for (slot = 0; slot < m->balls.n_balls; slot++) weight_total += (uint64_t)(m->balls.m[slot] + 1);
    r = rng_below(&m->rng, weight_total);
    for (slot = 0; slot < m->balls.n_balls; slot++) {
        running += m->balls.m[slot] + 1;
        if ((uint64_t)running > r) return slot;
    }
    return m->balls.n_balls - 1; /* unreachable: running reaches W > r */
}

void ab_auto_add_ball(ab_model *m, const double *x, int64_t k, double delta)
{
    /* [DOC15, Alg. 4 line 29] R = eps = delta; steps F1-F2 of the spec when the budget is full (evict a
     * victim drawn by ab_fix_victim, then insert) [ABACOC-SPEC §7] */
    int64_t victim;
    if (m->par.budget > 0 && m->balls.n_balls == m->par.budget) {
        victim = ab_fix_victim(m);
        ab_index_deleted(m, victim);
        ab_ball_write(m, victim, m->balls.next_id, x, k, delta);
        m->balls.next_id += 1;
        ab_index_inserted(m, victim);
        return;
    }
    append_ball(m, x, k, delta);
}

static void auto_initialise(ab_model *m, const double *x, int64_t k)
{
    /* [DOC15, Alg. 4 InitProcedure] steps I1-I3 of the spec (see the file comment), tie rule T6
     * [ABACOC-SPEC T6] (distance 0 to ball 1: dropped) [ABACOC-SPEC §6] */
    double r;
    if (m->balls.n_balls == 0) {
        append_ball(m, x, k, 0.0);
        m->vs.first_label = k;
        return;
    }
    r = ab_rho(ab_raw_distance(x, m->balls.center, m->n_features, m->par.metric, m->par.p), m->par.metric, m->par.p);
    if (k == m->vs.first_label || r == 0.0) return;
    m->balls.R[0] = r;
    m->balls.eps[0] = r;
    append_ball(m, x, k, r);
    m->vs.init_done = 1;
}

void ab_auto_learn(ab_model *m, const double *x, int64_t k, const ab_found *found)
{
    double delta;
    int64_t slot;
    if (!m->vs.init_done) {
        auto_initialise(m, x, k);
        return;
    }
    slot = nearest_or_found(m, x, found, &delta);
    if (delta <= m->balls.eps[slot]) {
        if (ab_majority(m, slot) != k) {
            ab_shrink_radius(m, slot, m->par.d);
        } else if (adjusts(m)) {
            ab_move_center(m, slot, x);
            ab_index_moved(m, slot);
        }
        ab_add_count(m, slot, k);
    } else {
        ab_auto_add_ball(m, x, k, delta);
    }
}

void ab_learn(ab_model *m, const double *x, int64_t k, const ab_found *found)
{
    if (k >= m->n_classes) m->n_classes = k + 1;
    if (is_auto(m)) ab_auto_learn(m, x, k, found);
    else ab_base_learn(m, x, k, found);
    ab_index_maintain(m);
    m->n_seen += 1;
}

/* ---- prediction [DOC15, Alg. 1 OutputPrediction] ---- */

static double randomized_p(ab_model *m, const double *x, const ab_found *found)
{
    double delta;
    int64_t slot = nearest_or_found(m, x, found, &delta);
    if (slot < 0) return ab_randomized_probability(0, 0);
    return ab_randomized_probability(ab_count_of(m, slot, 1), ab_total_count(m, slot));
}

int64_t ab_predict_index(ab_model *m, const double *x, const ab_found *found)
{
    /* Random draws: one rng_uniform for randomized BASE (step P4 of the spec: label_1 iff U < p;
     * tie rule T4 [ABACOC-SPEC T4]: p = 0 never, p = 1 always predicts label_1), none otherwise. [ABACOC-SPEC §4] */
    double probability, delta;
    int64_t slot;
    if (m->par.randomized) {
        probability = randomized_p(m, x, found);
        return rng_uniform(&m->rng) < probability ? 1 : 0;
    }
    if (m->balls.n_balls == 0) return AB_ABSTAIN;
    if (is_auto(m) && !m->vs.init_done) return m->vs.first_label;
    slot = nearest_or_found(m, x, found, &delta);
    return ab_majority(m, slot);
}

/* the nearest ball and its rho distance: the model's own search, or (s) a read-only one */
/* p_s(k) = n(k)/n of the ball in slot, over all K classes [DOC15, Alg. 1] */
static void slot_distribution(const ab_model *m, int64_t slot, double *out)
{
    double n = (double)ab_total_count(m, slot);
    int64_t k;
    for (k = 0; k < m->n_classes; k++) out[k] = (double)ab_count_of(m, slot, k) / n;
}

static int64_t nearest_with(const ab_model *m, ab_search *s, const double *x, double *delta)
{
    double raw;
    int64_t slot;
    if (s == NULL) return ab_nearest_ball((ab_model *)m, x, delta);
    slot = ab_search_nearest(m, s, x, &raw);
    *delta = ab_rho(raw, m->par.metric, m->par.p);
    return slot;
}

/* ab_class_distribution with a read-only search (s), or the model's own (s NULL) */
void ab_class_distribution_with(const ab_model *m, ab_search *s, const double *x, double *out)
{
    double probability, delta;
    int64_t k, slot;
    if (m->par.randomized) { /* randomized_p's value, the same search */
        slot = nearest_with(m, s, x, &delta);
        probability = slot < 0 ? ab_randomized_probability(0, 0)
                               : ab_randomized_probability(ab_count_of(m, slot, 1),
                                                           ab_total_count(m, slot));
        out[0] = 1.0 - probability;
        out[1] = probability;
        return;
    }
    for (k = 0; k < m->n_classes; k++) out[k] = 0.0;
    if (m->balls.n_balls == 0) return;
    if (is_auto(m) && !m->vs.init_done) slot = 0;
    else slot = nearest_with(m, s, x, &delta);
    slot_distribution(m, slot, out);
}

/* ab_predict_index of a deterministic mode (no draw) with a read-only search */
int64_t ab_predict_index_with(const ab_model *m, ab_search *s, const double *x)
{
    double delta;
    if (m->balls.n_balls == 0) return AB_ABSTAIN;
    if (is_auto(m) && !m->vs.init_done) return m->vs.first_label;
    return ab_majority(m, nearest_with(m, s, x, &delta));
}

void ab_class_distribution(ab_model *m, const double *x, double *out)
{
    /* p_s(k) = n(k)/n over all K classes; zeros with no ball; [1-p, p] randomized */
    double probability, delta;
    int64_t k, slot;
    if (m->par.randomized) {
        probability = randomized_p(m, x, NULL);
        out[0] = 1.0 - probability;
        out[1] = probability;
        return;
    }
    for (k = 0; k < m->n_classes; k++) out[k] = 0.0;
    if (m->balls.n_balls == 0) return;
    if (is_auto(m) && !m->vs.init_done) slot = 0;
    else slot = ab_nearest_ball(m, x, &delta);
    slot_distribution(m, slot, out);
}
