/*
 * dynatree/forgetting.c -- the power-prior discount of retired information and the collapse of
 * improper leaves [AG13, §5]; [DT-SPEC §3.5], [DT-SPEC §6.3]; mirrors reference/dynatree/forgetting.py.
 *
 * absorb_retired: nu <- lam nu + 1 and every retired statistic <- lam * old + retiree.
 * collapse: a leaf with n + nu < minp gives its active points (arrival order, each put at
 * its arrival-order position) to the sibling subtree, which replaces the parent; the
 * promoted subtree's depths are decremented; a root leaf is left alone.
 */
#include <string.h>
#include "dynatree/dynatree.h"

/* mirrors absorb_retired; z is scratch for p doubles */
void dt_absorb_retired(double *st, const dt_leaf_config *c, const double *x, double y,
                       double lam, double *z)
{
    int j, k, p = c->p, yk;
    st[DT_OFF_NU] = lam * st[DT_OFF_NU] + 1.0;
    if (c->kind == DT_CLASS) {
        for (k = 0; k < c->n_classes; k++)
            st[c->off_gcounts + k] = lam * st[c->off_gcounts + k];
        yk = (int)y;
        st[c->off_gcounts + yk] = st[c->off_gcounts + yk] + 1.0;
        return;
    }
    st[DT_OFF_SYYG] = lam * st[DT_OFF_SYYG] + y * y;
    if (c->kind == DT_CONSTANT) {
        st[DT_OFF_SYG] = lam * st[DT_OFF_SYG] + y;
        return;
    }
    if (c->augmented) {
        z[0] = 1.0;
        for (j = 1; j < p; j++) z[j] = x[j - 1];
    } else {
        for (j = 0; j < p; j++) z[j] = x[j];
    }
    for (j = 0; j < p; j++) {
        st[c->off_bg + j] = lam * st[c->off_bg + j] + z[j] * y;
        for (k = 0; k < p; k++)
            st[c->off_Gg + j * p + k] = lam * st[c->off_Gg + j * p + k] + z[j] * z[k];
    }
}

/* mirrors insert_sorted: append (copy-on-write) then move back to arrival order */
void dt_insert_sorted(dt_model *m, dt_particle *t, int32_t leaf, int32_t point)
{
    dt_pointset *ps;
    int32_t pos;
    dt_leaf_append(m, t, leaf, point);
    if (m->txn.broken) return;
    dt_log_points(m, t->nodes[leaf].set); /* the order below changes in place */
    ps = &m->pool.sets[t->nodes[leaf].set];
    pos = ps->n - 1;
    while (pos > 0 && ps->pts[pos - 1] > point) {
        ps->pts[pos] = ps->pts[pos - 1];
        pos--;
    }
    ps->pts[pos] = point;
}

/* mirrors collapse ([DT-SPEC §6.3] [REC]: driftwood's choice where dynaTree is fragile, collapse
 * at or next to the root handled and depths recomputed) */
void dt_collapse(dt_model *m, dt_particle *t, int32_t leaf)
{
    dt_node *nd = t->nodes;
    int32_t parent = nd[leaf].parent, sibling, grand, n_pts, a, k, pt, *stack = m->buf.stack, sp = 0;
    const double *x;
    if (parent < 0) return;
    sibling = nd[parent].left == leaf ? nd[parent].right : nd[parent].left;
    n_pts = dt_gather_points(m, t, leaf, m->buf.ibuf2);
    for (a = 0; a < n_pts; a++) {
        pt = m->buf.ibuf2[a];
        x = m->store.X + (int64_t)pt * m->par.d;
        k = sibling;
        while (t->nodes[k].var >= 0)
            k = x[t->nodes[k].var] <= t->nodes[k].value ? t->nodes[k].left : t->nodes[k].right;
        dt_insert_sorted(m, t, k, pt);
        if (m->txn.broken) return;
        dt_add_point(dt_leaf_stats(m, t, k), &m->cfg, m->buf.ibuf, 0, pt, m->store.X, m->store.y, m->par.d,
                     m->buf.work);
    }
    nd = t->nodes;
    grand = nd[parent].parent;
    dt_log_node(m, &nd[sibling]);
    nd[sibling].parent = grand;
    stack[sp++] = sibling;
    while (sp > 0) {
        k = stack[--sp];
        dt_log_node(m, &nd[k]);
        nd[k].depth--;
        if (nd[k].var >= 0) {
            stack[sp++] = nd[k].right;
            stack[sp++] = nd[k].left;
        }
    }
    if (grand < 0) {
        t->root = sibling;
    } else if (nd[grand].left == parent) {
        dt_log_node(m, &nd[grand]);
        nd[grand].left = sibling;
    } else {
        dt_log_node(m, &nd[grand]);
        nd[grand].right = sibling;
    }
    dt_set_release(m, nd[leaf].set);
    dt_node_release(m, t, leaf);
    dt_node_release(m, t, parent);
}
