/*
 * sgt/quantizer.c -- equal-width binning with warm-up range estimation [GPF19, §3.2].
 *
 * Mirrors reference/sgt/quantizer.py. bin = floor(B (x - min) / (max - min)) clipped
 * to [0, B-1]; a degenerate range gives bin 0 ([SGT-SPEC §5.6]). Ranges start at the first
 * observed value of each feature and freeze after the warm-up. The cell layout of a
 * leaf is: cell 0 = leaf total, then B cells per numeric feature or K per nominal
 * feature, features in index order.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sgt/sgt.h"

int32_t sgt_bin_index(double x, double lo, double hi, int32_t bins)
{
    double position;
    if (!(hi > lo))
        return 0;
    position = (double)bins * (x - lo) / (hi - lo);
    if (position >= (double)bins)
        return bins - 1;
    if (!(position >= 0.0))   /* negative, or NaN from inf / inf */
        return 0;
    return (int32_t)position;
}

/* upper edge of bin `threshold` of [lo, hi]: lo + (hi - lo) (k + 1) / B (split_edge) */
double sgt_split_edge(double lo, double hi, int32_t threshold, int32_t bins)
{
    return lo + (hi - lo) * (double)(threshold + 1) / (double)bins;
}

void sgt_quantizer_free(sgt_quantizer *q)
{
    if (!q)
        return;
    alloc_free(q->kinds);
    alloc_free(q->offsets);
    alloc_free(q->lo);
    alloc_free(q->hi);
    alloc_free(q->fixed);
    alloc_free(q->seen);
    memset(q, 0, sizeof *q);
}

int sgt_quantizer_init(sgt_quantizer *q, int32_t d, const int32_t *kinds, int32_t bins,
                       const double *lo, const double *hi, const uint8_t *fixed)
{
    int32_t a, offset = 1, frozen = 1;
    memset(q, 0, sizeof *q);
    if (d < 1 || bins < 2)
        return ST_EINVAL;
    q->d = d;
    q->bins = bins;
    q->kinds = alloc_malloc((size_t)d * sizeof *q->kinds);
    q->offsets = alloc_malloc((size_t)d * sizeof *q->offsets);
    q->lo = alloc_calloc((size_t)d, sizeof *q->lo);
    q->hi = alloc_calloc((size_t)d, sizeof *q->hi);
    q->fixed = alloc_calloc((size_t)d, 1);
    q->seen = alloc_calloc((size_t)d, 1);
    if (!q->kinds || !q->offsets || !q->lo || !q->hi || !q->fixed || !q->seen) {
        sgt_quantizer_free(q);
        return ST_ENOMEM;
    }
    for (a = 0; a < d; a++) {
        if (kinds[a] < 0 || (kinds[a] == 1)) {
            sgt_quantizer_free(q);
            return ST_EINVAL;
        }
        q->kinds[a] = kinds[a];
        if (fixed[a] && kinds[a] == 0) {
            q->lo[a] = lo[a];
            q->hi[a] = hi[a];
            q->fixed[a] = 1;
        }
        if (!q->fixed[a] && !q->kinds[a])
            frozen = 0;
        q->offsets[a] = offset;
        if ((int64_t)offset + (kinds[a] ? kinds[a] : bins) > INT32_MAX / 64) {
            sgt_quantizer_free(q);   /* a leaf would need over 2^31 / 64 cells */
            return ST_ENOMEM;
        }
        offset += kinds[a] ? kinds[a] : bins;
    }
    q->n_cells = offset;
    q->frozen = frozen;
    return ST_OK;
}

void sgt_quantizer_observe(sgt_quantizer *q, const double *x)
{
    int32_t a;
    for (a = 0; a < q->d; a++) {
        double v = x[a];
        if (q->kinds[a] || q->fixed[a])
            continue;
        if (!q->seen[a]) {
            q->lo[a] = v;
            q->hi[a] = v;
            q->seen[a] = 1;
        } else if (v < q->lo[a]) {
            q->lo[a] = v;
        } else if (v > q->hi[a]) {
            q->hi[a] = v;
        }
    }
}

int32_t sgt_quantizer_code(const sgt_quantizer *q, const double *x, int32_t a)
{
    if (q->kinds[a])
        return (int32_t)x[a];
    return sgt_bin_index(x[a], q->lo[a], q->hi[a], q->bins);
}

void sgt_quantizer_codes(const sgt_quantizer *q, const double *x, int32_t *codes)
{
    int32_t a;
    for (a = 0; a < q->d; a++)
        codes[a] = sgt_quantizer_code(q, x, a);
}

/* ST_EINVAL unless every value is finite and every nominal value an integer in [0, K) */
int sgt_quantizer_check_row(const sgt_quantizer *q, const double *x)
{
    int32_t a;
    for (a = 0; a < q->d; a++) {
        double v = x[a];
        if (!isfinite(v))
            return ST_EINVAL;
        if (q->kinds[a] && !(v == floor(v) && v >= 0.0 && v < (double)q->kinds[a]))
            return ST_EINVAL;
    }
    return ST_OK;
}
