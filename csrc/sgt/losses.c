/*
 * sgt/losses.c -- objectives: gradient, hessian, transfer [GPF19, §4, Eq. 19-29].
 *
 * Mirrors reference/sgt/losses.py. Squared error g = f - y, h = 1; BCE with a single
 * sigmoid g = σ(f) - y, h = σ(f)(1 - σ(f)); pseudo-Huber (δ = 1) g = r / √q,
 * h = 1 / (q √q) with r = f - y, q = 1 + r²; softmax committee with f_k = 0 (max
 * subtracted, normaliser summed in class order); multi-instance bags where only the
 * argmax row (first on ties) carries the BCE derivatives.
 */
#include <math.h>
#include "sgt/sgt.h"

double sgt_sigmoid(double raw)
{
    double e;
    if (raw >= 0.0)
        return 1.0 / (1.0 + exp(-raw));
    e = exp(raw);
    return e / (1.0 + e);
}

void sgt_squared_error_gh(double y, double raw, double *g, double *h)
{
    /* [GPF19, Eq. 24] g = ŷ - y */
    *g = raw - y;
    *h = 1.0;
}

void sgt_binary_cross_entropy_gh(double y, double raw, double *g, double *h)
{
    double p = sgt_sigmoid(raw);
    *g = p - y;
    *h = p * (1.0 - p);
}

/* the same correctly rounded steps as PseudoHuber.gradient_hessian: r, q, √q, g, h */
void sgt_pseudo_huber_gh(double y, double raw, double *g, double *h)
{
    double r = raw - y;
    double q = 1.0 + r * r;
    double root = sqrt(q);
    *g = r / root;
    *h = 1.0 / (q * root);
}

/* probs has n_raws + 1 entries; the last class has score 0 [GPF19, Eq. 19] */
void sgt_softmax(const double *raws, int32_t n_raws, double *probs)
{
    int32_t c, k = n_raws + 1;
    double top = n_raws > 0 ? raws[0] : 0.0, total = 0.0;
    for (c = 0; c < k; c++) {
        double s = c < n_raws ? raws[c] : 0.0;
        if (s > top)
            top = s;
    }
    for (c = 0; c < k; c++)
        probs[c] = exp((c < n_raws ? raws[c] : 0.0) - top);
    for (c = 0; c < k; c++)
        total += probs[c];
    for (c = 0; c < k; c++)
        probs[c] = probs[c] / total;
}

void sgt_softmax_gradients(const double *raws, int32_t n_raws, int32_t label, double *probs,
                           double *grads, double *hess)
{
    int32_t c;
    sgt_softmax(raws, n_raws, probs);
    for (c = 0; c < n_raws; c++) {
        double p = probs[c];
        /* [GPF19, Eq. 21] g_c = ŷ_c - y_c ; [GPF19, Eq. 22] h_c = ŷ_c (1 - ŷ_c) */
        grads[c] = p - (c == label ? 1.0 : 0.0);
        hess[c] = p * (1.0 - p);
    }
}

void sgt_bag_gradients(const double *raws, int32_t n, double label, double *grads, double *hess)
{
    int32_t i, best = 0;
    double p;
    for (i = 1; i < n; i++)
        if (raws[i] > raws[best])
            best = i;
    /* [GPF19, Eq. 26] ŷ = σ(max_x f(x)) */
    p = sgt_sigmoid(raws[best]);
    for (i = 0; i < n; i++) {
        grads[i] = 0.0;
        hess[i] = 0.0;
    }
    /* [GPF19, Eq. 28-29] only the argmax instance carries a gradient */
    grads[best] = p - label;
    hess[best] = p * (1.0 - p);
}

/* the class probabilities of one row of raw scores (k of them into probs) */
static void row_probas(const double *raws, int32_t n_trees, double *probs)
{
    if (n_trees == 1) {
        double p = sgt_sigmoid(raws[0]);
        probs[0] = 1.0 - p;
        probs[1] = p;
    } else {
        sgt_softmax(raws, n_trees, probs);
    }
}

/* class probabilities of each of n rows of raw scores (n_trees per row) into out (k per
 * row, k = 2 for one tree, else n_trees + 1), as SGTClassifier.predict_proba_one:
 * binary [1 - σ(f), σ(f)], else the softmax [GPF19, Eq. 19, 26] */
void sgt_predict_probas(const double *raws, int64_t n, int32_t n_trees, double *out)
{
    int64_t i;
    int32_t k = n_trees == 1 ? 2 : n_trees + 1;
    for (i = 0; i < n; i++)
        row_probas(raws + i * n_trees, n_trees, out + i * k);
}

/* most probable class of each of n rows of raw scores (n_trees per row), first on ties,
 * as SGTClassifier.predict_one: binary probs = [1 - σ(f), σ(f)], else the softmax */
void sgt_predict_labels(const double *raws, int64_t n, int32_t n_trees, double *probs,
                        int32_t *out)
{
    int64_t i;
    int32_t c, k = n_trees == 1 ? 2 : n_trees + 1;
    for (i = 0; i < n; i++) {
        int32_t best = 0;
        row_probas(raws + i * n_trees, n_trees, probs);
        for (c = 1; c < k; c++)
            if (probs[c] > probs[best])
                best = c;
        out[i] = best;
    }
}
