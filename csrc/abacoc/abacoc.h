/*
 * abacoc/abacoc.h -- the ABACOC family (ab_*), twin of reference/abacoc/.
 *
 * Read by the cffi builder like every header (see common/common.h for the rules and the
 * constructor/destructor/error convention).
 */
#ifndef DRIFTWOOD_ABACOC_H
#define DRIFTWOOD_ABACOC_H
#include "common/common.h"

/* ---- ABACOC (ab_*, mirrors reference/abacoc/) ---- */
enum {
    AB_BASE = 0,               /* variant BASE [DOC15, Alg. 2] */
    AB_BASE_ADJ = 1,           /* variant BASE-ADJ [DOC15, Alg. 3] */
    AB_AUTO = 2,               /* variant AUTO [DOC15, Alg. 4] */
    AB_AUTO_ADJ = 3,           /* variant AUTO-ADJ [DOC15, Alg. 4] */
    AB_METRIC_EUCLIDEAN = 0,   /* raw = sum d*d, rho = sqrt(raw) */
    AB_METRIC_MANHATTAN = 1,   /* raw = sum |d|, rho = raw */
    AB_METRIC_MINKOWSKI = 2,   /* raw = sum |d|^p, rho = raw^(1/p) */
    AB_SEARCH_AUTO = 0,        /* scan below the threshold, loose kd-tree from it on */
    AB_SEARCH_SCAN = 1,        /* always the exhaustive scan */
    AB_SEARCH_KDTREE = 2,      /* always the loose kd-tree */
    AB_ABSTAIN = -1,           /* predicted class index when there is no ball */
    AB_REBUILD_MIN_OPS = 256,  /* rebuild when ops > max(256, 2|S|) [ABACOC-SPEC §13] */
    AB_PROBE_QUERIES = 128     /* search "auto": judge a tree after this many queries */
};

/* the node arena of the kd-tree; node 0 is the root */
typedef struct {
    int64_t n_nodes;      /* nodes in the arena; node 0 is the root */
    int64_t node_cap;     /* allocated nodes */
    int64_t *split_dim;   /* split coordinate, -1 for a leaf */
    double *split_value;  /* split value (guides descent only) */
    int64_t *left;        /* left child or -1 */
    int64_t *right;       /* right child or -1 */
    int64_t *parent;      /* parent or -1 */
    double *lo;           /* box lower corners, node_cap x D */
    double *hi;           /* box upper corners, node_cap x D */
} ab_kd_nodes;

/* the leaf buckets and where each ball slot sits in them */
typedef struct {
    int64_t *bucket;      /* leaf buckets, node_cap x (L + 1) slots */
    int64_t *bucket_len;  /* slots in each bucket */
    int64_t slot_cap;     /* allocated entries of slot_leaf / slot_pos */
    int64_t *slot_leaf;   /* leaf holding each slot, -1 if none */
    int64_t *slot_pos;    /* position of each slot in its leaf bucket */
} ab_kd_buckets;

/* scratch of the partition and of the traversal */
typedef struct {
    int64_t *work;        /* scratch: slots being partitioned */
    int64_t work_cap;     /* allocated entries of work */
    int64_t *stack;       /* scratch: traversal stack */
    double *stack_bound;  /* scratch: lower bound of each stacked node */
    int64_t stack_cap;    /* allocated entries of stack and stack_bound */
} ab_kd_scratch;

/* the loose kd-tree over the ball centres (abacoc/search.c) */
typedef struct {
    int64_t n_features;   /* D */
    int64_t leaf_size;    /* L, bucket size of a leaf */
    int32_t metric;       /* AB_METRIC_* */
    double p;             /* Minkowski exponent */
    int64_t ops;          /* inserts + deletes + moves since the last build */
    int64_t queries;      /* nearest-centre queries since the last build */
    int64_t visited;      /* balls whose distance those queries computed */
    int64_t finite;       /* 0 once a centre with a non-finite coordinate entered the tree:
                           * its boxes no longer bound distances, the index scans instead */
    ab_kd_nodes nodes;    /* node arena */
    ab_kd_buckets leaves; /* leaf buckets, slot positions */
    ab_kd_scratch buf;    /* scratch */
} ab_tree;

typedef struct {
    int64_t slot;             /* slot of the nearest ball, -1 if S is empty */
    double delta;             /* delta = rho(x, c_slot) */
} ab_found;

/* hyper-parameters [DOC15, Alg. 2-4] and the search settings */
typedef struct {
    int32_t variant;          /* AB_BASE .. AB_AUTO_ADJ */
    int32_t randomized;       /* 1: BASE randomized binary rule [DOC15, Alg. 2] */
    int32_t metric;           /* AB_METRIC_* */
    double p;                 /* Minkowski exponent */
    double d;                 /* d, AUTO shrink exponent -1/(2+d) [DOC15, Alg. 4] */
    double C;                 /* C, covering constant [DOC15, Alg. 2] */
    int64_t budget;           /* B of AUTO-ADJ-FIX [DOC15, Eq. 1]; 0 = no budget (the facade's
                               * default "auto" passes 10,000 [ABACOC-SPEC §19]) */
    int32_t search;           /* AB_SEARCH_* */
    int64_t search_threshold; /* kd-tree from this many balls on (AB_SEARCH_AUTO) */
    int64_t leaf_size;        /* kd-tree bucket size L */
} ab_params;

/* the ball set S in slot order: centres, counts, radii and counters */
typedef struct {
    int64_t n_balls;          /* |S| */
    int64_t ball_cap;         /* allocated slots */
    int64_t next_id;          /* creation counter */
    int64_t *id;              /* ball ids, slot order */
    double *center;           /* c_s, ball_cap x D */
    int64_t *counts;          /* n_s(k), ball_cap x class_cap */
    int64_t *u;               /* centre-update counters u_s */
    double *R;                /* initial radii R_s (AUTO family) */
    double *eps;              /* current radii eps_s (AUTO family) */
    int64_t *m;               /* mistake counters m_s */
} ab_ball_set;

/* the state of the variants: BASE phases [DOC15, Alg. 2], AUTO initialisation [DOC15, Alg. 4] */
typedef struct {
    int64_t phase;            /* BASE phase index i */
    int64_t phase_steps;      /* t_i, training steps in the phase */
    double phase_dim;         /* d_i, metric-dimension estimate */
    double radius;            /* eps, the global BASE radius */
    int32_t init_done;        /* AUTO initialisation finished */
    int64_t first_label;      /* y_1 of the AUTO initialisation, -1 before */
} ab_variant_state;

/* the model: one handle of the family (ab_model_new / ab_model_free) */
typedef struct {
    int64_t n_features;       /* D (0 until the first learned row) */
    int64_t n_classes;        /* K, size of the class registry Y */
    int64_t class_cap;        /* row stride of counts */
    int64_t n_seen;           /* training steps */
    rng_state rng;            /* model generator (randomized BASE, FIX) */
    ab_tree *tree;            /* loose kd-tree, NULL while the scan is used */
    int64_t tree_retry_at;    /* search "auto": cover size from which a dropped tree is
                               * tried again */
    ab_params par;            /* hyper-parameters and search settings */
    ab_ball_set balls;        /* the ball set S */
    ab_variant_state vs;      /* BASE phases, AUTO initialisation */
} ab_model;

/* abacoc/balls.c (mirrors reference/abacoc/balls.py) */
void ab_ball_write(ab_model *m, int64_t slot, int64_t id, const double *x, int64_t k, double radius);
void ab_add_count(ab_model *m, int64_t slot, int64_t k);
int64_t ab_count_of(const ab_model *m, int64_t slot, int64_t k);
int64_t ab_total_count(const ab_model *m, int64_t slot);
int64_t ab_majority(const ab_model *m, int64_t slot);
void ab_move_center(ab_model *m, int64_t slot, const double *x);
void ab_shrink_radius(ab_model *m, int64_t slot, double d);
double ab_randomized_probability(int64_t n1, int64_t n);
/* abacoc/search.c (mirrors reference/abacoc/search.py) */
double ab_pow_or_inf(double base, double exponent);
double ab_distance_term(double diff, int32_t metric, double p);
double ab_raw_distance(const double *x, const double *c, int64_t n_features, int32_t metric, double p);
double ab_rho(double raw, int32_t metric, double p);
int64_t ab_scan_nearest(const ab_model *m, const double *x, double *raw_out);
int32_t ab_tree_new(int64_t n_features, int64_t leaf_size, int32_t metric, double p,
                    ab_tree **out);
void ab_tree_free(ab_tree *t);   /* accepts NULL */
int ab_tree_build(ab_tree *t, const ab_model *m);
int ab_tree_insert(ab_tree *t, const ab_model *m, int64_t slot);
void ab_tree_delete(ab_tree *t, int64_t slot);
void ab_tree_move(ab_tree *t, const ab_model *m, int64_t slot);
double ab_tree_lower_bound(const ab_tree *t, int64_t node, const double *x);
int64_t ab_tree_nearest(ab_tree *t, const ab_model *m, const double *x, double *raw_out);
int64_t ab_index_nearest(ab_model *m, const double *x, double *raw_out);
/* C only: the scratch of a search that reads the model only (batch predictions over
 * threads): the tree's stack and bounds (tree->buf.stack_cap entries each, or NULL without
 * a tree) and the work it counts, added to the tree's counters afterwards
 * (ab_model_add_search_work): sums, so the same totals in any order */
typedef struct {
    int64_t *stack;
    double *bounds;
    int64_t queries;
    int64_t visited;
} ab_search;
int64_t ab_search_nearest(const ab_model *m, ab_search *s, const double *x, double *raw_out);
void ab_index_inserted(ab_model *m, int64_t slot);
void ab_index_deleted(ab_model *m, int64_t slot);
void ab_index_moved(ab_model *m, int64_t slot);
void ab_index_cleared(ab_model *m);
void ab_index_maintain(ab_model *m);
/* abacoc/variants.c (mirrors reference/abacoc/variants.py) */
int64_t ab_nearest_ball(ab_model *m, const double *x, double *delta_out);
int64_t ab_fix_victim(ab_model *m);
void ab_base_add_ball(ab_model *m, const double *x, int64_t k);
void ab_base_learn(ab_model *m, const double *x, int64_t k, const ab_found *found);
void ab_auto_add_ball(ab_model *m, const double *x, int64_t k, double delta);
void ab_auto_learn(ab_model *m, const double *x, int64_t k, const ab_found *found);
void ab_learn(ab_model *m, const double *x, int64_t k, const ab_found *found);
int64_t ab_predict_index(ab_model *m, const double *x, const ab_found *found);
void ab_class_distribution(ab_model *m, const double *x, double *out);
void ab_class_distribution_with(const ab_model *m, ab_search *s, const double *x, double *out);
int64_t ab_predict_index_with(const ab_model *m, ab_search *s, const double *x);
/* abacoc/model.c (mirrors reference/abacoc/model.py): the handle and its checked entry points */
/* batch predictions that read the model only (from several threads at once, on disjoint
 * rows): as ab_model_predict_proba and ab_model_predict (deterministic modes only: ST_ESTATE
 * for randomized BASE, whose labels draw from the model's generator), the search work
 * added to work[0] (queries) and work[1] (visited); then ab_model_add_search_work once */
int ab_model_predict_proba_rows(const ab_model *m, const double *X, int64_t n, double *out,
                                int64_t *work);
int ab_model_predict_rows(const ab_model *m, const double *X, int64_t n, int64_t *out,
                          int64_t *work);
int ab_model_add_search_work(ab_model *m, const int64_t *work);
int32_t ab_model_new(int32_t variant, int32_t randomized, int32_t metric, double p, double d,
                     double C, int64_t budget, int32_t search, int64_t search_threshold,
                     int64_t leaf_size, uint64_t seed, ab_model **out);
void ab_model_free(ab_model *m);   /* accepts NULL */
int ab_model_set_dim(ab_model *m, int64_t n_features);
int ab_model_add_class(ab_model *m);
/* undo set_dim/add_class of a call that failed before it learned a row (hardening) */
int ab_model_rollback(ab_model *m, int64_t n_features, int64_t n_classes);
int ab_model_reserve(ab_model *m, int64_t n_balls);
int ab_model_restored(ab_model *m);
int ab_model_learn_one(ab_model *m, const double *x, int64_t k);
/* the one-row calls of the facade: x holds n_values numbers (ST_EDIM unless n_values = D),
 * then as ab_model_learn_one, ab_model_predict and ab_model_predict_proba for one row */
int ab_model_learn_row(ab_model *m, const double *x, int64_t n_values, int64_t k);
int ab_model_predict_row(ab_model *m, const double *x, int64_t n_values, int64_t *out);
int ab_model_proba_row(ab_model *m, const double *x, int64_t n_values, double *out);
int ab_model_partial_fit(ab_model *m, const double *X, const int64_t *ks, int64_t n);
int ab_model_predict(ab_model *m, const double *X, int64_t n, int64_t *out);
int ab_model_predict_proba(ab_model *m, const double *X, int64_t n, double *out);
int ab_model_nearest(ab_model *m, const double *X, int64_t n, int32_t use_tree, int64_t *out);
int ab_model_prequential(ab_model *m, const double *X, const int64_t *labels, int64_t n, double rate, rng_state *protocol_rng, int64_t *remap, int64_t *pred_out, int64_t *stats_out);

#endif
