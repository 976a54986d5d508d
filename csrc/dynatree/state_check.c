/* The structural checks of a restored dynamic-tree state, in one pass over the flat node
 * arrays of every particle (the twin of the tree walk of reference/dynatree/state_check.py,
 * which the fast backend runs here before a state reaches dt_model_import).
 *
 * Each particle's records are a complete binary tree in preorder (left before right):
 * depth of the root 0, of a child its parent's plus one; a split variable below d (or -1
 * for a leaf) and a finite split value; each leaf holds exactly the rows of the store that
 * the splits above it route to it (x[var] <= value goes left), in store order. The rows
 * are routed by a stable partition of an index array, as in the Python walk. */
#include <math.h>

#include "dynatree.h"

/* route idx[s .. s+len) by x[var] <= value: the left rows first, each side in order;
 * returns the number of left rows (tmp holds len spare slots) */
static int64_t partition_rows(int32_t *idx, int32_t *tmp, int64_t s, int64_t len,
                              const double *X, int32_t d, int32_t var, double value)
{
    int64_t r, nl = 0, nr = 0;
    for (r = 0; r < len; r++) {
        int32_t row = idx[s + r];
        if (X[(int64_t)row * d + var] <= value) idx[s + nl++] = row;
        else tmp[nr++] = row;
    }
    for (r = 0; r < nr; r++) idx[s + nl + r] = tmp[r];
    return nl;
}

/* one leaf's points against the rows routed to it; 0 or a DT_CHECK_* code */
static int check_leaf_points(const int32_t *points, int64_t count, const int32_t *routed,
                             int64_t len, int64_t n)
{
    int64_t j;
    for (j = 0; j < count; j++)
        if (points[j] < 0 || points[j] >= n) return DT_CHECK_POINT_RANGE;
    if (count != len) return DT_CHECK_POINTS;
    for (j = 0; j < count; j++)
        if (points[j] != routed[j]) return DT_CHECK_POINTS;
    return 0;
}

/* the sums of a leaf's targets (y, |y|, y^2) into sums[3 * leaf ..], or its class counts
 * into counts[n_classes * leaf ..], each when asked for (not NULL) */
static void leaf_totals(const dt_check_trees_args *a, int64_t leaf, const int32_t *points,
                        int64_t count)
{
    int64_t j;
    double v, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    if (a->sums != NULL) {
        for (j = 0; j < count; j++) {
            v = a->y[points[j]];
            s1 += v;
            s2 += fabs(v);
            s3 += v * v;
        }
        a->sums[3 * leaf] = s1;
        a->sums[3 * leaf + 1] = s2;
        a->sums[3 * leaf + 2] = s3;
    }
    if (a->counts != NULL)
        for (j = 0; j < count; j++)
            a->counts[a->n_classes * leaf + (int64_t)a->y[points[j]]] += 1.0;
}

/* the walk of one particle: nodes[0 .. size), leaves from *leaf, points from *pt */
static int check_particle(const dt_check_trees_args *a, int64_t first, int32_t size,
                          int64_t *leaf, int64_t *pt, int64_t *stack, int64_t *pos)
{
    int64_t sp = 0, s, len, depth, nl;
    int32_t k, i;
    int code;
    for (i = 0; i < a->n; i++) a->idx[i] = i;
    stack[sp++] = 0; stack[sp++] = 0; stack[sp++] = a->n;   /* depth, start, length */
    for (k = 0; sp > 0; k++) {
        len = stack[--sp]; s = stack[--sp]; depth = stack[--sp];
        *pos = k;
        if (k >= size) return DT_CHECK_OPEN;
        if (a->depth[first + k] != depth) return DT_CHECK_DEPTH;
        if (a->var[first + k] < -1 || a->var[first + k] >= a->d) return DT_CHECK_VAR;
        if (a->var[first + k] >= 0) {
            if (!isfinite(a->value[first + k])) return DT_CHECK_VALUE;
            nl = partition_rows(a->idx, a->tmp, s, len, a->X, a->d, a->var[first + k],
                                a->value[first + k]);
            stack[sp++] = depth + 1; stack[sp++] = s + nl; stack[sp++] = len - nl;
            stack[sp++] = depth + 1; stack[sp++] = s; stack[sp++] = nl;
            continue;
        }
        if (*leaf >= a->n_leaves || *pt + a->npoints[*leaf] > a->n_points ||
            a->npoints[*leaf] < 0)
            return DT_CHECK_LEAVES;
        code = check_leaf_points(a->points + *pt, a->npoints[*leaf], a->idx + s, len, a->n);
        if (code) return code;
        leaf_totals(a, *leaf, a->points + *pt, a->npoints[*leaf]);
        *pt += a->npoints[*leaf];
        (*leaf)++;
    }
    *pos = k;
    return k != size ? DT_CHECK_TRAILING : 0;
}

int dt_check_trees(const dt_check_trees_args *a, int64_t *stack, int64_t *where)
{
    int64_t first = 0, leaf = 0, pt = 0, pos = 0;
    int32_t i;
    int code;
    for (i = 0; i < a->n_particles; i++) {
        if (a->sizes[i] < 0 || first + a->sizes[i] > a->n_nodes) {
            where[0] = i; where[1] = 0; where[2] = DT_CHECK_LEAVES;
            return ST_EINVAL;
        }
        code = check_particle(a, first, a->sizes[i], &leaf, &pt, stack, &pos);
        if (code) {
            where[0] = i; where[1] = pos; where[2] = code;
            return ST_EINVAL;
        }
        first += a->sizes[i];
    }
    where[0] = -1; where[1] = leaf; where[2] = pt;
    return ST_OK;
}
