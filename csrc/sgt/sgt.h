/*
 * sgt/sgt.h -- the stochastic-gradient-tree family (sgt_*), twin of reference/sgt/.
 *
 * Read by the cffi builder like every header (see common/common.h for the rules and the
 * constructor/destructor/error convention).
 */
#ifndef DRIFTWOOD_SGT_H
#define DRIFTWOOD_SGT_H
#include "common/common.h"

/* ---- stochastic gradient trees (sgt_*, mirrors reference/sgt/) ---- */
enum {
    SGT_LOSS_SQUARED = 0,    /* squared error, target y [GPF19, Eq. 23] */
    SGT_LOSS_LOGISTIC = 1,   /* BCE with one sigmoid, target in {0,1} [GPF19, Eq. 27] */
    SGT_LOSS_SOFTMAX = 2,    /* committee of k-1 trees, target = class index [GPF19, Eq. 19] */
    SGT_LOSS_BAG = 3,        /* multi-instance bags, target in {0,1} [GPF19, Eq. 26] */
    SGT_LOSS_CUSTOM = 4,     /* gradients supplied by the caller (sgt_model_train_gh) */
    SGT_LOSS_PSEUDO_HUBER = 5 /* pseudo-Huber, δ = 1, target y (docs/spec/sgt.md §3.5) */
};

/* largest gradient magnitude (and squared-error target) the split test carries: its
 * variance sums fourth powers of the gradients (reference/sgt/splits.py, GRADIENT_BOUND) */
#define SGT_GRADIENT_BOUND 1e70

typedef struct {
    int64_t n;          /* n, (g, h) pairs since the last reset */
    double sum_g;       /* Σg */
    double sum_h;       /* Σh */
    double m_g;         /* M_g = Σ(g - ḡ)² (Welford) [GPF19, §3.3] */
    double m_h;         /* M_h = Σ(h - h̄)² */
    double c;           /* C = Σ(g - ḡ)(h - h̄) */
} sgt_stats;

typedef struct {
    double delta;           /* δ, t-test significance [GPF19, §3.3] */
    double lam;             /* λ, per-instance shrinkage of Δ [GPF19, Eq. 13] */
    double gamma;           /* γ, cost per child leaf [GPF19, Eq. 5] */
    int32_t grace_period;   /* n_min, instances between split attempts */
    int32_t bins;           /* B, bins per numeric feature [GPF19, §3.2] */
    int32_t warmup;         /* W, rows used to estimate the ranges */
    int32_t max_depth;      /* depth limit (root = 0); -1 for none */
    int32_t warmup_trains;  /* 1: replay the warm-up buffer; 0: discard it */
    int32_t one_sided;      /* 1: one-sided p = P(T <= t); 0: two-sided + sign check */
    int32_t warmup_newton;  /* 1: during the warm-up predict one Newton step of each root
                             * over the buffer [SGT-SPEC §5.7]; 0: raw score 0 */
    int32_t per_leaf;       /* 1: quantization "leaf", per-leaf bin ranges [SGT-SPEC §5.8];
                             * 0: "global" */
} sgt_params;

typedef struct {
    int32_t d;          /* number of features */
    int32_t bins;       /* B */
    int32_t *kinds;     /* per feature: 0 numeric, K nominal categories */
    int32_t *offsets;   /* first cell of each feature in a leaf's cell array */
    int32_t n_cells;    /* 1 (leaf total) + Σ (B or K) */
    double *lo;         /* range minimum per feature */
    double *hi;         /* range maximum per feature */
    uint8_t *fixed;     /* 1: range given by the user */
    uint8_t *seen;      /* 1: range estimation has seen a value */
    int32_t frozen;     /* 1: ranges fixed (after the warm-up) */
    int32_t per_leaf;   /* 1: trees bin with per-leaf ranges, these only seed each root */
} sgt_quantizer;

typedef struct {
    int32_t feature;      /* split feature, -1 for a leaf */
    int32_t threshold;    /* numeric split bin k (left iff bin <= k); -1 nominal multiway */
    int32_t first_child;  /* index of the first child, -1 for a leaf */
    int32_t n_children;   /* |Q_u| of the applied split */
    int32_t depth;        /* depth, root = 0 */
    double value;         /* leaf value v (raw score) */
    sgt_stats *cells;     /* leaf only: n_cells statistics cells, else NULL */
    uint8_t *used;        /* leaf only: nominal features used on the path, else NULL */
    double *range;        /* per_leaf only (every node): 4 d doubles lo, hi, obs_lo, obs_hi
                           * [SGT-SPEC §5.8]; NULL with global quantization */
} sgt_node;

typedef struct {
    sgt_node *nodes;      /* arena in creation order; node 0 is the root */
    int32_t n_nodes;      /* nodes in use */
    int32_t cap;          /* allocated nodes */
    int64_t n_splits;     /* splits applied */
    int64_t n_updates;    /* null (value) updates applied */
    int32_t depth;        /* largest depth of a node */
    sgt_stats **spare_cells; /* C only: pre-allocated leaf cells for coming splits */
    uint8_t **spare_used;    /* C only: pre-allocated used-masks, same count */
    double **spare_range;    /* C only, per_leaf: pre-allocated node ranges, same count */
    int32_t n_spare;      /* spares ready */
    int32_t spare_cap;    /* length of the two spare arrays */
} sgt_tree;

typedef struct {
    int32_t feature;      /* -1 null candidate */
    int32_t threshold;    /* numeric bin k, -1 nominal/null */
    int32_t n_children;   /* number of deltas */
    double mean;          /* penalised mean loss change m~ [GPF19, Eq. 10] */
    double variance;      /* pooled variance s² [GPF19, Eq. 18] */
    double *deltas;       /* Δ_j per child (capacity: max children) */
} sgt_candidate;

typedef struct {
    sgt_stats *prefix;    /* B prefix merges */
    sgt_stats *suffix;    /* B suffix merges */
    sgt_stats *pair;      /* 2 cells: the children of one binary split */
    double *moment_mean;  /* m_j per child */
    double *moment_var;   /* s_j² per child */
    sgt_candidate best;   /* best so far at a split attempt */
    sgt_candidate cand;   /* candidate of one feature */
    sgt_candidate pool;   /* one threshold of a numeric feature */
    int32_t *codes;       /* d bins/categories of the current row */
    double *raws;         /* per tree (or per bag row) raw scores */
    double *grads;        /* per tree (or per bag row) gradients */
    double *hess;         /* per tree (or per bag row) hessians */
    double *probs;        /* k class probabilities */
    double *zeros;        /* raw scores 0, per tree or bag row (warm-up step) */
    double *warm_g;       /* per tree Σg of the warm-up step, over buffered items
                           * [0, warm_items) (a running sum: each prediction adds only the
                           * items buffered since the last, in buffer order, so the sums are
                           * the same floating-point operations as summing the buffer anew) */
    double *warm_h;       /* per tree Σh, likewise */
    int64_t warm_items;   /* buffered items already in warm_g/warm_h */
    int64_t warm_count;   /* rows counted in warm_g/warm_h */
    int64_t row_cap;      /* capacity of raws/grads/hess/zeros */
    double *undo_lo;      /* C only: the quantizer's lo, hi and seen and every root's
                           * range (per_leaf: 4 d doubles per tree) as they were before the
                           * push that ends the warm-up, so that a replay running out of
                           * memory puts the model back as it was (sgt_model_warmup_undo) */
    double *undo_hi;
    uint8_t *undo_seen;
    double *undo_range;
    double *own_rows;     /* C only: the caller's rows of the current call, copied before
                           * they are checked, so that what is checked is what is used even
                           * if another thread writes the caller's memory meanwhile */
    int64_t own_cap;      /* capacity of own_rows in rows */
    sgt_stats *plan;      /* C only: n_cells, a leaf's cells after the row (sgt_tree_plan) */
    int64_t tree_cap;     /* C only: trees probs / warm_g / warm_h / undo_range hold */
} sgt_scratch;

/* the warm-up: rows seen and the buffered items replayed when it ends */
typedef struct {
    int64_t warm_rows;    /* rows seen during the warm-up */
    double *buf_x;        /* buffered warm-up rows, row-major */
    int64_t buf_rows;     /* rows in buf_x */
    int64_t buf_rows_cap; /* capacity of buf_x in rows */
    double *buf_target;   /* target of each buffered item */
    int32_t *buf_len;     /* rows of each buffered item */
    int64_t buf_items;    /* buffered items */
    int64_t buf_items_cap;/* capacity of buf_target / buf_len */
} sgt_warmup;

/* the model: one handle of the family (sgt_model_new / sgt_model_free) */
typedef struct {
    sgt_params p;         /* hyper-parameters */
    int32_t loss_kind;    /* SGT_LOSS_* */
    int32_t n_trees;      /* 1, or k-1 for the softmax committee */
    sgt_quantizer q;      /* ranges and cell layout */
    sgt_tree *trees;      /* n_trees trees */
    int32_t trees_cap;    /* C only: allocated trees; a class joining the softmax committee
                           * doubles it when full (sgt_model_add_tree: amortised constant) */
    int64_t done;         /* items learned by the last *_many / learn_bags call (each item
                           * is atomic: after an error, the items before it stay learned) */
    sgt_warmup warm;      /* the warm-up: rows seen, buffered items */
    sgt_scratch s;        /* work space */
} sgt_model;

/* sgt/grad_hess.c (reference/sgt/grad_hess.py) */
void sgt_stats_add(sgt_stats *s, double g, double h);
double sgt_stats_mean_g(const sgt_stats *s);
double sgt_stats_mean_h(const sgt_stats *s);
double sgt_stats_var_g(const sgt_stats *s);
double sgt_stats_var_h(const sgt_stats *s);
double sgt_stats_cov_gh(const sgt_stats *s);
void sgt_merge(const sgt_stats *a, const sgt_stats *b, sgt_stats *out);
double sgt_delta_prediction(const sgt_stats *s, double lam);
void sgt_loss_change_moments(const sgt_stats *s, double delta, double *mean, double *variance);
/* sgt/losses.c (reference/sgt/losses.py) */
double sgt_sigmoid(double raw);
void sgt_squared_error_gh(double y, double raw, double *g, double *h);
void sgt_binary_cross_entropy_gh(double y, double raw, double *g, double *h);
void sgt_pseudo_huber_gh(double y, double raw, double *g, double *h);
void sgt_softmax(const double *raws, int32_t n_raws, double *probs);
void sgt_softmax_gradients(const double *raws, int32_t n_raws, int32_t label, double *probs,
                           double *grads, double *hess);
void sgt_bag_gradients(const double *raws, int32_t n, double label, double *grads, double *hess);
void sgt_predict_probas(const double *raws, int64_t n, int32_t n_trees, double *out);
void sgt_predict_labels(const double *raws, int64_t n, int32_t n_trees, double *probs,
                        int32_t *out);
/* sgt/quantizer.c (reference/sgt/quantizer.py) */
int32_t sgt_bin_index(double x, double lo, double hi, int32_t bins);
double sgt_split_edge(double lo, double hi, int32_t threshold, int32_t bins);
int sgt_quantizer_init(sgt_quantizer *q, int32_t d, const int32_t *kinds, int32_t bins,
                       const double *lo, const double *hi, const uint8_t *fixed);
void sgt_quantizer_free(sgt_quantizer *q);
void sgt_quantizer_observe(sgt_quantizer *q, const double *x);
int32_t sgt_quantizer_code(const sgt_quantizer *q, const double *x, int32_t a);
void sgt_quantizer_codes(const sgt_quantizer *q, const double *x, int32_t *codes);
int sgt_quantizer_check_row(const sgt_quantizer *q, const double *x);
/* sgt/splits.c (reference/sgt/splits.py) */
void sgt_pool_children(const sgt_stats *children, int32_t k, double lam, double *deltas,
                       double *moment_mean, double *moment_var, double *mean, double *variance);
void sgt_null_candidate(const sgt_stats *total, double lam, sgt_candidate *out);
double sgt_penalty(double gamma, int32_t n_children, int64_t n_leaf);
void sgt_numeric_candidate(const sgt_stats *cells, int32_t bins, int32_t feature, double lam,
                           double gamma, int64_t n_leaf, sgt_scratch *s, sgt_candidate *out);
void sgt_nominal_candidate(const sgt_stats *cells, int32_t k, int32_t feature, double lam,
                           double gamma, int64_t n_leaf, sgt_scratch *s, sgt_candidate *out);
void sgt_best_candidate(const sgt_stats *cells, const sgt_quantizer *q, const uint8_t *used,
                        int32_t may_split, double lam, double gamma, sgt_scratch *s);
double sgt_t_test_p_value(double mean, double variance, int64_t n);
double sgt_one_sided_p_value(double mean, double variance, int64_t n);
int32_t sgt_passes_test(const sgt_candidate *c, int64_t n, double delta, int32_t one_sided);
/* sgt/tree.c (reference/sgt/tree.py) */
int sgt_tree_init(sgt_tree *t, const sgt_quantizer *q);
void sgt_tree_free(sgt_tree *t);
int32_t sgt_tree_leaf_of(const sgt_tree *t, const sgt_quantizer *q, const double *x);
int32_t sgt_tree_leaf_of_codes(const sgt_tree *t, const int32_t *codes);
double sgt_tree_raw(const sgt_tree *t, const sgt_quantizer *q, const double *x);
int sgt_tree_learn(sgt_tree *t, const sgt_quantizer *q, const sgt_params *p,
                   const int32_t *codes, double g, double h, sgt_scratch *s);
int sgt_tree_learn_row(sgt_tree *t, const sgt_quantizer *q, const sgt_params *p,
                       const double *x, double g, double h, sgt_scratch *s);
void sgt_tree_seed_root(sgt_tree *t, const sgt_quantizer *q);
int sgt_tree_attempt(sgt_tree *t, int32_t leaf, const sgt_quantizer *q, const sgt_params *p,
                     sgt_scratch *s);
int sgt_tree_apply(sgt_tree *t, int32_t leaf, const sgt_quantizer *q, const sgt_candidate *best);
int sgt_tree_restore(sgt_tree *t, const sgt_quantizer *q, int32_t n_nodes, const uint8_t *is_leaf);
/* C only (hardening): secure node slots and leaf buffers for `splits` coming splits */
int sgt_tree_reserve(sgt_tree *t, const sgt_quantizer *q, int64_t splits);
int sgt_tree_reserve_leaves(sgt_tree *t, const sgt_quantizer *q, int64_t need_spare);
int32_t sgt_tree_plan(const sgt_tree *t, const sgt_quantizer *q, const sgt_params *p,
                      const double *x, const int32_t *codes, double g, double h,
                      sgt_scratch *s, sgt_stats *work);
int64_t sgt_tree_split_bound(const sgt_tree *t, int32_t grace_period, int64_t n_rows);
int64_t sgt_tree_release(sgt_tree *t, int64_t keep);
void sgt_tree_reset(sgt_tree *t, const sgt_quantizer *q, const double *root_range);
/* sgt/core.c (reference/sgt/core.py) */
int32_t sgt_model_new(const sgt_params *p, int32_t d, const int32_t *kinds, const double *lo,
                      const double *hi, const uint8_t *fixed, int32_t loss_kind,
                      int32_t n_trees, sgt_model **out);
void sgt_model_free(sgt_model *m);   /* accepts NULL */
int sgt_model_raws(sgt_model *m, const double *x, double *out);
int sgt_model_raws_many(sgt_model *m, const double *X, int64_t n, double *out);
int sgt_model_warmup_push(sgt_model *m, const double *rows, int32_t n_rows, double target,
                          int32_t *ended);
void sgt_model_clear_buffer(sgt_model *m);
int sgt_model_learn(sgt_model *m, const double *rows, int32_t n_rows, double target);
/* C only (hardening): every tree secures memory for `splits` coming splits, or for the
 * splits n_rows more rows of a trained model can trigger; release frees the unused ones */
int sgt_model_reserve(sgt_model *m, int64_t splits);
int sgt_model_add_tree(sgt_model *m);
int sgt_model_drop_tree(sgt_model *m);
int sgt_model_reserve_rows(sgt_model *m, int64_t n_rows);
void sgt_model_release(sgt_model *m);
void sgt_model_warmup_undo(sgt_model *m, int32_t n_rows);
int sgt_model_train(sgt_model *m, const double *rows, int32_t n_rows, double target);
int sgt_model_train_gh(sgt_model *m, const double *x, const double *grads, const double *hess);
int sgt_model_learn_many(sgt_model *m, const double *X, int64_t n, const double *targets);
int sgt_model_learn_bags(sgt_model *m, const double *X, const int32_t *sizes, int64_t n_bags,
                         const double *targets, int32_t epochs);
int sgt_model_buffer_restore(sgt_model *m, const double *rows, int32_t n_rows, double target);
int sgt_model_progressive_many(sgt_model *m, const double *X, int64_t n, const double *targets,
                               double *out_raws);
/* the one-row calls of the facade: x holds n_values numbers (ST_EDIM unless n_values = d),
 * checked as the other entry points check a row; probs gets 2 (one tree) or n_trees + 1
 * probabilities and label the most probable class (first on ties) */
int sgt_model_learn_row(sgt_model *m, const double *x, int64_t n_values, double target);
int sgt_model_raws_row(sgt_model *m, const double *x, int64_t n_values, double *out);
int sgt_model_proba_row(sgt_model *m, const double *x, int64_t n_values, double *probs,
                        int32_t *label);

#endif
