/*
 * core.h -- THE header of the driftwood C library.
 *
 * Written in the subset of C that cffi's cdef parser reads: the cffi builder
 * (fast/_ffibuild.py) drops every line starting with '#' and feeds the rest to
 * ffibuilder.cdef(), so this file is the single source of truth for the binding.
 * Rules: plain structs (typedef struct {...} name;), constants as enum members,
 * no function-like macros, no static inline, no #define that the cdef needs.
 *
 * Sections (one per concept; each owner edits only its own section):
 *   status codes | alloc | rng | special | dynamic trees (dt_, with the undo log of
 *   dt_txn.c) | SGT (sgt_) | ABACOC (ab_)
 */
#ifndef DRIFTWOOD_CORE_H
#define DRIFTWOOD_CORE_H
#include <stdint.h>
#include <stddef.h>

/* ---- status codes: every public function returns one; fast/_ffi.py maps them ---- */
enum {
    ST_OK = 0,       /* success */
    ST_EINVAL = 1,   /* invalid argument or data value     -> ValueError  */
    ST_ENOMEM = 2,   /* allocation failed                  -> MemoryError */
    ST_EDIM = 3,     /* wrong input dimension              -> ValueError  */
    ST_ESTATE = 4,   /* operation invalid in current state -> RuntimeError */
    ST_ERANGE = 5    /* index or class out of range        -> IndexError  */
};

/* ---- alloc: every allocation of the library goes through these (csrc/alloc.c) ---- */
/* Drop-in replacements of malloc/calloc/realloc/free. alloc_fail_after(n) is a test hook:
 * the n-th next allocation (0 = the very next) returns NULL once, then the hook disarms;
 * n < 0 disarms it. alloc_failures() counts the failures injected so far. The hook is
 * the library's only global mutable state and is meant for single-threaded tests. */
void *alloc_malloc(size_t size);
void *alloc_calloc(size_t count, size_t size);
void *alloc_realloc(void *ptr, size_t size);
void alloc_free(void *ptr);
void alloc_fail_after(int64_t n);
int64_t alloc_failures(void);

/* ---- rng: xoshiro256** seeded by splitmix64 (mirrors reference/rng.py) ---- */
typedef struct {
    uint64_t s[4];   /* the four xoshiro256** state words s0..s3 [BV21] */
} rng_state;

void rng_seed(rng_state *r, uint64_t seed);
uint64_t rng_next_u64(rng_state *r);
double rng_uniform(rng_state *r);
uint64_t rng_below(rng_state *r, uint64_t n);
/* fill out[0..n-1] with uniform() draws (bulk path for benchmarks and tests) */
int rng_fill_uniform(rng_state *r, double *out, size_t n);

/* ---- special: special functions (mirrors reference/special.py) ---- */
double special_exp_or_inf(double x);                 /* exp, inf on overflow */
double special_log_or_neg_inf(double x);             /* log, -inf at 0, NaN below */
double special_lgamma(double x);                     /* log Gamma(x), x > 0 (Lanczos) */
double special_log_beta(double a, double b);          /* log B(a, b) */
double special_log_sum_exp(const double *v, size_t n);
double special_student_t_logpdf(double x, double df);
double special_student_t_cdf(double x, double df);
double special_student_t_ppf(double p, double df);
double special_betainc(double a, double b, double x); /* I_x(a, b), regularised */
double special_betainc_xy(double a, double b, double x, double y); /* same, y = 1 - x given */

/* ---- dynamic trees (dt_*, mirrors reference/dynatree/) ---- */
/* Dynamic trees with particle learning [AG13; TGP11]. Trees are node arenas with int32
 * indices; the payload of a leaf (its point list and its statistics, a flat block of sw
 * doubles laid out as below, mirroring reference/dynatree/leaf_models.py) is a point set
 * in a model-wide pool, shared copy-on-write between particles. */
enum { DT_CONSTANT = 0, DT_LINEAR = 1, DT_CLASS = 2 };
enum { DT_STAY = 0, DT_PRUNE = 1, DT_GROW = 2 };
enum {
    DT_OFF_N = 0,      /* n, active points (integer-valued double) */
    DT_OFF_NU = 1,     /* nu, retired mass [AG13, §3.2] */
    DT_OFF_SY = 2,     /* S_y */
    DT_OFF_SYY = 3,    /* S_yy */
    DT_OFF_SYG = 4,    /* S^g_y, retired */
    DT_OFF_SYYG = 5,   /* S^g_yy, retired */
    DT_OFF_BB = 6,     /* bb = beta' G beta */
    DT_OFF_LOGDET = 7, /* log |G^-1| */
    DT_OFF_ELL = 8,    /* cached leaf log evidence ell_eta */
    DT_OFF_VEC = 9     /* first vector field (counts or xbar) */
};

typedef struct {
    int kind;          /* DT_CONSTANT, DT_LINEAR or DT_CLASS */
    int p;             /* bmax, regressors of a linear leaf */
    int augmented;     /* 1 if the regressors are (1, x) */
    int delta;         /* 1 for an implicit intercept */
    int n_classes;     /* C */
    double nu0;        /* nu0, prior df of sigma^2 */
    double s20;        /* s0^2, prior scale of sigma^2 */
    int off_counts;    /* class counts c_k (C doubles) */
    int off_gcounts;   /* retired class counts a_k (C doubles) */
    int off_xbar;      /* xbar (p) */
    int off_G;         /* G (p*p, row-major) */
    int off_b;         /* b (p) */
    int off_Gg;        /* retired G^g (p*p) */
    int off_bg;        /* retired b^g (p) */
    int off_ginv;      /* G^-1 (p*p) */
    int off_beta;      /* beta-hat (p) */
    int sw;            /* doubles per stats block */
    const double *lg_half; /* C-only cache: lgamma(k/2) for 1 <= k < lg_len (same values) */
    const double *lg_frac; /* C-only cache: lgamma(k + 1/C) for 0 <= k < lg_len / 2 */
    int64_t lg_len;    /* cache length (0 = no cache) */
} dt_leaf_config;

typedef struct {
    int32_t left;      /* left child (x[var] <= value), -1 for a leaf; free-list link */
    int32_t right;     /* right child, -1 for a leaf */
    int32_t parent;    /* parent, -1 for the root */
    int32_t depth;     /* d, root 0 [AG13, §2.1] */
    int32_t var;       /* split column j, -1 for a leaf */
    int32_t set;       /* point set (points + stats) of a leaf, shared copy-on-write; -1 if internal */
    int32_t pad;       /* unused */
    int32_t pad2;      /* unused */
    double value;      /* split value xi */
} dt_node;

typedef struct {
    int32_t *pts;      /* active points of the leaves sharing this set, arrival order */
    int32_t n;         /* number of points */
    int32_t cap;       /* capacity of pts */
    int32_t refs;      /* leaves (over all particles) referencing the set; 0 = free */
    int32_t next_free; /* free-list link, -1 = end */
    int32_t mark;      /* retirement stamp: set already updated for the current retiree */
    int32_t alc_ok;    /* 1 if alc holds valid ALC values of the points for its rectangle */
    int32_t alc_cap;   /* capacity of alc (doubles) */
    int32_t ent_ok;    /* 1 if ent holds the leaf entropy of the set's current stats */
    int32_t txn_st;    /* C-only undo log (dt_txn.c): n, mark and stats saved in txn txn_st */
    int32_t txn_pts;   /* C-only undo log: point list saved (or set created) in txn txn_pts */
    int32_t pad;       /* unused */
    double ent;        /* C-only entropy cache [AG13, §4.4]: dt_leaf_entropy of the set's
                        * stats, invalidated with alc_ok whenever the stats change */
    double *alc;       /* C-only ALC cache: leaf rectangle (lo[mc], hi[mc]), then one value
                        * per point; invalidated whenever the set's points or stats change,
                        * and keyed by the rectangle [AG13, §4.4; [DT-SPEC §7.6] REC] */
} dt_pointset;

typedef struct {
    dt_node *nodes;    /* node arena */
    int32_t root;      /* root node index */
    int32_t n_nodes;   /* arena high-water mark */
    int32_t free_head; /* free-list head (linked through left), -1 if empty */
    int32_t n_free;    /* length of the free list */
} dt_particle;

typedef struct {
    dt_leaf_config cfg;   /* leaf model */
    int32_t d;            /* input columns */
    int32_t minp;         /* minimum active points per leaf */
    int32_t nstart;       /* points placed in the root before PL */
    int32_t n_particles;  /* N */
    double alpha;         /* alpha of p_split */
    double beta;          /* beta of p_split */
    double lml;           /* running sum of lpred [AG13, §2.3] */
    int64_t n;            /* points in the store */
    int64_t cap;          /* store capacity (rows) */
    double *X;            /* store inputs, n x d row-major */
    double *y;            /* store targets (class index for DT_CLASS) */
    int32_t cap_nodes;    /* arena capacity of every particle */
    int32_t broken;       /* 1 after an allocation failure in the current transaction */
    dt_particle *parts;   /* the N particles */
    dt_particle *tmp;     /* scratch particle array for resampling */
    dt_pointset *sets;    /* pool of leaf point sets, shared by the particles */
    double *set_stats;    /* the stats block of each point set (sw doubles per set) */
    int32_t n_sets;       /* high-water mark of the pool */
    int32_t cap_sets;     /* capacity of the pool */
    int32_t free_set;     /* free-list head of the pool, -1 if empty */
    int32_t pad_sets;     /* unused */
    rng_state rng;        /* the model's generator */
    double *w;            /* N weights */
    int32_t *chosen;      /* N resampled indices */
    int32_t *flags;       /* 2N flags / dead list */
    int32_t *leafc;       /* 2N: leaf of x_t in each particle, cached by the weights */
    int32_t leafc_ok;     /* 1 if leafc holds the leaves of the current step */
    int32_t *ibuf;        /* cap point indices (scratch) */
    int32_t *ibuf2;       /* 3 cap point indices (scratch: left | right children | merge) */
    int32_t *stack;       /* cap_nodes node indices (scratch) */
    double *vbuf;         /* cap values (scratch) */
    double *sbuf;         /* 3 scratch stats blocks */
    double *work;         /* linear-algebra scratch */
    double *lg_half;      /* owner of cfg.lg_half */
    double *lg_frac;      /* owner of cfg.lg_frac */
    double prior_split[64]; /* log p_split(d) for d < 64 [AG13, §2.1] */
    double prior_leaf[64];  /* log(1 - p_split(d)) for d < 64 */
    int64_t n_total;      /* points learned so far (the store holds only the active pool) */
    int32_t active_size;  /* w, active pool size; 0 = no automatic retirement */
    int32_t rule;         /* DT_RETIRE_* rule of automatic retirement */
    double lam;           /* forgetting factor of automatic retirements [AG13, §5] */
    int32_t stamp;        /* retirement stamp (see dt_pointset.mark) */
    int32_t approx;       /* ALC: counts as a proxy for areas ([DT-SPEC §7.4]) */
    double *scores;       /* cap doubles: discarding statistic of every active point */
    double *rect;         /* 2 d doubles: user ALC rectangle (low, high per column), or NULL */
    double *abuf;         /* ALC scratch: 14 (d + 2) doubles */
    int32_t *areg;        /* ALC scratch: d + 2 column indices */
    /* C-only undo log (dt_txn.c): one row of learn (or one manual retire) is a
     * transaction; an allocation failure inside it rolls the model back */
    int32_t in_txn;       /* 1 while a transaction is open */
    int32_t txn_id;       /* id of the open (or last) transaction, never 0 */
    int32_t lost;         /* 1 if the log itself could not grow: no rollback possible */
    int32_t txn_n_sets;   /* saved pool high-water mark */
    rng_state txn_rng;    /* saved generator */
    int64_t txn_n;        /* saved store size */
    int64_t txn_n_total;  /* saved points learned */
    double txn_lml;       /* saved running lpred sum */
    int32_t txn_stamp;    /* saved retirement stamp */
    int32_t txn_pad;      /* unused */
    dt_particle *txn_parts; /* saved particle headers (N) */
    dt_node **spare;      /* N slots: node arenas not owned by a particle (resampling copies
                           * into these, so a dead particle's arena survives to the commit) */
    dt_node **taken;      /* N: arenas taken from spare in the open transaction */
    int32_t n_spare;      /* arenas in spare */
    int32_t n_taken;      /* entries in taken */
    int32_t txn_n_spare;  /* n_spare before the first take of the open transaction */
    int32_t spare_pad;    /* unused */
    unsigned char *log;   /* undo records, each payload then trailer (dt_txn.c) */
    int64_t log_len;      /* bytes used */
    int64_t log_cap;      /* bytes allocated */
} dt_model;

enum { DT_RETIRE_RANDOM = 0, DT_RETIRE_HISTORICAL = 1, DT_RETIRE_ALC = 2, DT_RETIRE_ENTROPY = 3 };

/* leaf models (csrc/dt_leaf_models.c) */
void dt_leaf_config_init(dt_leaf_config *c, int kind, int p, int augmented, int delta,
                         int n_classes, double nu0, double s20);
void dt_stats_clear(double *st, const dt_leaf_config *c);
void dt_calculate_linear(double *st, const dt_leaf_config *c, double *work);
void dt_linear_implicit_from_points(double *st, const dt_leaf_config *c, const int32_t *points,
                                    int32_t n, const double *X, const double *y, int32_t d,
                                    double *work);
void dt_add_point(double *st, const dt_leaf_config *c, const int32_t *points, int32_t n_points,
                  int32_t index, const double *X, const double *y, int32_t d, double *work);
void dt_stats_from_points(double *st, const dt_leaf_config *c, const int32_t *points,
                          int32_t n, const double *X, const double *y, int32_t d,
                          const double *parent, double *work);
void dt_stats_accumulate(double *st, const dt_leaf_config *c, int32_t point, const double *X,
                         const double *y, int32_t d, double *work);
void dt_stats_finish(double *st, const dt_leaf_config *c, const double *parent, double *work);
void dt_regression_summary(const double *st, const dt_leaf_config *c, double *mu0, double *q,
                           double *qp, double *df, double *dm);
double dt_regression_log_evidence(const double *st, const dt_leaf_config *c);
double dt_class_log_evidence(const double *st, const dt_leaf_config *c);
void dt_refresh(double *st, const dt_leaf_config *c);
int dt_regression_predictive(const double *st, const dt_leaf_config *c, const double *x,
                             double *loc, double *scale, double *df, double *work);
double dt_class_probability(const double *st, const dt_leaf_config *c, int k);
void dt_merge_stats(double *st, const dt_leaf_config *c, const double *blocks,
                    const int32_t *leaves, int32_t n_leaves, const int32_t *points, int32_t n_points, const double *X,
                    const double *y, int32_t d, double *work);
/* trees and prior (csrc/dt_tree.c) */
double dt_log_split_prob(int32_t depth, double alpha, double beta);
double dt_log_leaf_prob(int32_t depth, double alpha, double beta);
int32_t dt_find_leaf(const dt_particle *t, const double *x);
double dt_prior_split(const dt_model *m, int32_t depth);
double dt_prior_leaf(const dt_model *m, int32_t depth);
int dt_particle_init(dt_particle *t, int32_t cap_nodes);
void dt_particle_free(dt_particle *t);
int dt_particle_reserve_nodes(dt_particle *t, int32_t cap_nodes);
double *dt_leaf_stats(const dt_model *m, const dt_particle *t, int32_t leaf);
int32_t dt_node_alloc(dt_model *m, dt_particle *t);
void dt_node_release(dt_model *m, dt_particle *t, int32_t k);
void dt_copy_particle(dt_model *m, dt_particle *dst, const dt_particle *src);
int32_t dt_set_new(dt_model *m, const int32_t *pts, int32_t n);
void dt_set_release(dt_model *m, int32_t id);
void dt_leaf_append(dt_model *m, dt_particle *t, int32_t leaf, int32_t point);
void dt_particle_release_sets(dt_model *m, dt_particle *t);
double dt_subtree_log_score(dt_model *m, const dt_particle *t, int32_t top, int32_t grown,
                            double ell_left, double ell_right);
int32_t dt_collect_leaves(dt_model *m, const dt_particle *t, int32_t top, int32_t *out);
int32_t dt_gather_points(const dt_model *m, const dt_particle *t, int32_t leaf, int32_t *out);
int32_t dt_height(dt_model *m, const dt_particle *t);
/* moves (csrc/dt_moves.c) */
int dt_grow_candidate(dt_model *m, const int32_t *points, int32_t n, int32_t *var,
                      double *value);
int dt_choose_move(double l_stay, double l_prune, double l_grow, rng_state *r);
void dt_propagate(dt_model *m, dt_particle *t, int32_t index, int32_t leaf);
/* particle learning (csrc/dt_particles.c) */
int dt_particle_weight(dt_model *m, const dt_particle *t, const double *x, double y,
                       double *w, int32_t *leaf);
int32_t dt_residual_resample(const double *weights, int32_t n, rng_state *r, int32_t *out,
                             double *expected, double *cumulative, int32_t *counts);
double dt_resample(dt_model *m, const double *x, double y);
double dt_pl_step(dt_model *m, int32_t index);
void dt_regression_summaries(dt_model *m, const double *x, double *out);
void dt_class_summaries(dt_model *m, const double *x, double *probs, double *entropy);
/* the model (csrc/dt_model.c) */
dt_model *dt_model_new(int kind, int p, int augmented, int delta, int n_classes, double nu0,
                       double s20, int32_t d, int32_t minp, int32_t nstart,
                       int32_t n_particles, double alpha, double beta, uint64_t seed);
void dt_model_free(dt_model *m);
rng_state *dt_model_rng(dt_model *m);
int dt_model_learn(dt_model *m, const double *X, const double *y, int64_t n, double *lpred);
int dt_model_regression(const dt_model *m, const double *x, double *out);
int dt_model_class(const dt_model *m, const double *x, double *probs, double *entropy);
/* the one-row calls of the facade: x holds n_values finite numbers (ST_EDIM unless
 * n_values = d, ST_EINVAL for NaN or infinity), then as the calls above */
int dt_model_learn_row(dt_model *m, const double *x, int64_t n_values, double y, double *lpred);
int dt_model_regression_row(const dt_model *m, const double *x, int64_t n_values, double *out);
int dt_model_class_row(const dt_model *m, const double *x, int64_t n_values, double *probs,
                       double *entropy);
int dt_model_trees(const dt_model *m, int32_t *out);
int dt_model_particle_size(const dt_model *m, int32_t i, int32_t *n_nodes, int32_t *n_points);
int dt_model_export_particle(const dt_model *m, int32_t i, int32_t *ints, double *dbls,
                             int32_t *points);
int dt_model_import(dt_model *m, const double *X, const double *y, int64_t n, double lml,
                    const int32_t *sizes, const int32_t *ints, const double *dbls,
                    const int32_t *points);
int dt_model_reserve_retire(dt_model *m);
/* forgetting (csrc/dt_forgetting.c) */
void dt_absorb_retired(double *st, const dt_leaf_config *c, const double *x, double y,
                       double lam, double *z);
void dt_insert_sorted(dt_model *m, dt_particle *t, int32_t leaf, int32_t point);
void dt_collapse(dt_model *m, dt_particle *t, int32_t leaf);
/* retirement (csrc/dt_retirement.c) */
void dt_recompute_linear_totals(double *st, const dt_leaf_config *c, const int32_t *points,
                                int32_t n, const double *X, const double *y, int32_t d,
                                double *work);
void dt_retire_from_set(dt_model *m, int32_t set, int32_t index, double lam);
void dt_retire_point(dt_model *m, int32_t index, double lam);
void dt_renumber(dt_model *m, int32_t index);
int32_t dt_choose_retiree(dt_model *m);
int dt_retire_one(dt_model *m, int32_t index, double lam);
int dt_model_set_retirement(dt_model *m, int32_t active_size, int rule, double lam,
                            int approx, const double *rect);
int dt_model_retire(dt_model *m, const int32_t *positions, int32_t n, double lam);
int dt_model_retired(const dt_model *m, double *out);
/* undo log: one learned row or one manual retirement is atomic (csrc/dt_txn.c, C-only) */
int dt_log_room(dt_model *m, int64_t bytes);
int64_t dt_log_bound(const dt_model *m, const dt_particle *t, int with_points);
void dt_txn_begin(dt_model *m);
void dt_txn_commit(dt_model *m);
void dt_txn_rollback(dt_model *m);
void dt_log_node(dt_model *m, dt_node *nd);
void dt_log_set(dt_model *m, int32_t id);
void dt_log_points(dt_model *m, int32_t id);
void dt_log_created(dt_model *m, int32_t id);
void dt_log_freed(dt_model *m, int32_t id);
void dt_log_store(dt_model *m, int32_t index);
int dt_log_renumber(dt_model *m, int32_t index);
int dt_spare_reserve(dt_model *m, int32_t count);
dt_node *dt_spare_take(dt_model *m, dt_node *dead);
/* active-discarding statistics (csrc/dt_discard_stats.c) */
double dt_leaf_entropy(const double *st, const dt_leaf_config *c);
void dt_entropy_active(dt_model *m, double *out);
int dt_model_entropy_active(dt_model *m, double *out);
int dt_model_entropy_active_uncached(dt_model *m, double *out);
int dt_alc_columns(const dt_model *m);
void dt_integrated_box(const dt_model *m, const double *box, double *ibox);
void dt_leaf_rectangle(const dt_model *m, const dt_particle *t, int32_t leaf,
                       const double *ibox, double *lo, double *hi, double *done);
void dt_leaf_alc_prep(const double *st, const dt_leaf_config *c, const double *lo,
                      const double *hi, int mcols, int approx, double *prep, int32_t *reg);
double dt_leaf_alc_point(const double *st, const dt_leaf_config *c, const double *prep,
                         const int32_t *reg, int mcols, const double *x, double *buf);
double dt_leaf_alc(const double *st, const dt_leaf_config *c, const double *lo,
                   const double *hi, int mcols, const double *x, int approx, double *buf,
                   int32_t *reg);
double dt_box_area(const double *ibox, int mcols, int approx, int64_t n_total);
void dt_data_box(const dt_model *m, const double *rows, int64_t n_rows, double *box);
void dt_alc_active(dt_model *m, const double *box, double *out);
void dt_alc_points(dt_model *m, const double *rows, int64_t n_rows, const double *box,
                   double *out);
int dt_model_alc_active(dt_model *m, const double *box, double *out);
int dt_model_alc(dt_model *m, const double *rows, int64_t n_rows, const double *box,
                 double *out);

/* ---- stochastic gradient trees (sgt_*, mirrors reference/sgt/) ---- */
enum {
    SGT_LOSS_SQUARED = 0,    /* squared error, target y [GPF19, Eq. 23] */
    SGT_LOSS_LOGISTIC = 1,   /* BCE with one sigmoid, target in {0,1} [GPF19, Eq. 27] */
    SGT_LOSS_SOFTMAX = 2,    /* committee of k-1 trees, target = class index [GPF19, Eq. 19] */
    SGT_LOSS_BAG = 3,        /* multi-instance bags, target in {0,1} [GPF19, Eq. 26] */
    SGT_LOSS_CUSTOM = 4      /* gradients supplied by the caller (sgt_model_train_gh) */
};

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
    double *warm_g;       /* per tree Σg of the warm-up step */
    double *warm_h;       /* per tree Σh of the warm-up step */
    int64_t row_cap;      /* capacity of raws/grads/hess/zeros */
} sgt_scratch;

typedef struct {
    sgt_params p;         /* hyper-parameters */
    int32_t loss_kind;    /* SGT_LOSS_* */
    int32_t n_trees;      /* 1, or k-1 for the softmax committee */
    sgt_quantizer q;      /* ranges and cell layout */
    sgt_tree *trees;      /* n_trees trees */
    int64_t warm_rows;    /* rows seen during the warm-up */
    double *buf_x;        /* buffered warm-up rows, row-major */
    int64_t buf_rows;     /* rows in buf_x */
    int64_t buf_rows_cap; /* capacity of buf_x in rows */
    double *buf_target;   /* target of each buffered item */
    int32_t *buf_len;     /* rows of each buffered item */
    int64_t buf_items;    /* buffered items */
    int64_t buf_items_cap;/* capacity of buf_target / buf_len */
    int64_t done;         /* items learned by the last *_many / learn_bags call (each item
                           * is atomic: after an error, the items before it stay learned) */
    sgt_scratch s;        /* work space */
} sgt_model;

/* sgt_grad_hess.c (reference/sgt/grad_hess.py) */
void sgt_stats_add(sgt_stats *s, double g, double h);
double sgt_stats_mean_g(const sgt_stats *s);
double sgt_stats_mean_h(const sgt_stats *s);
double sgt_stats_var_g(const sgt_stats *s);
double sgt_stats_var_h(const sgt_stats *s);
double sgt_stats_cov_gh(const sgt_stats *s);
void sgt_merge(const sgt_stats *a, const sgt_stats *b, sgt_stats *out);
double sgt_delta_prediction(const sgt_stats *s, double lam);
void sgt_loss_change_moments(const sgt_stats *s, double delta, double *mean, double *variance);
/* sgt_losses.c (reference/sgt/losses.py) */
double sgt_sigmoid(double raw);
void sgt_squared_error_gh(double y, double raw, double *g, double *h);
void sgt_binary_cross_entropy_gh(double y, double raw, double *g, double *h);
void sgt_softmax(const double *raws, int32_t n_raws, double *probs);
void sgt_softmax_gradients(const double *raws, int32_t n_raws, int32_t label, double *probs,
                           double *grads, double *hess);
void sgt_bag_gradients(const double *raws, int32_t n, double label, double *grads, double *hess);
void sgt_predict_labels(const double *raws, int64_t n, int32_t n_trees, double *probs,
                        int32_t *out);
/* sgt_quantizer.c (reference/sgt/quantizer.py) */
int32_t sgt_bin_index(double x, double lo, double hi, int32_t bins);
int sgt_quantizer_init(sgt_quantizer *q, int32_t d, const int32_t *kinds, int32_t bins,
                       const double *lo, const double *hi, const uint8_t *fixed);
void sgt_quantizer_free(sgt_quantizer *q);
void sgt_quantizer_observe(sgt_quantizer *q, const double *x);
int32_t sgt_quantizer_code(const sgt_quantizer *q, const double *x, int32_t a);
void sgt_quantizer_codes(const sgt_quantizer *q, const double *x, int32_t *codes);
int sgt_quantizer_check_row(const sgt_quantizer *q, const double *x);
/* sgt_splits.c (reference/sgt/splits.py) */
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
/* sgt_tree.c (reference/sgt/tree.py) */
int sgt_tree_init(sgt_tree *t, const sgt_quantizer *q);
void sgt_tree_free(sgt_tree *t);
int32_t sgt_tree_leaf_of(const sgt_tree *t, const sgt_quantizer *q, const double *x);
int32_t sgt_tree_leaf_of_codes(const sgt_tree *t, const int32_t *codes);
double sgt_tree_raw(const sgt_tree *t, const sgt_quantizer *q, const double *x);
int sgt_tree_learn(sgt_tree *t, const sgt_quantizer *q, const sgt_params *p,
                   const int32_t *codes, double g, double h, sgt_scratch *s);
int sgt_tree_attempt(sgt_tree *t, int32_t leaf, const sgt_quantizer *q, const sgt_params *p,
                     sgt_scratch *s);
int sgt_tree_apply(sgt_tree *t, int32_t leaf, const sgt_quantizer *q, const sgt_candidate *best);
int sgt_tree_restore(sgt_tree *t, const sgt_quantizer *q, int32_t n_nodes, const uint8_t *is_leaf);
/* C only (hardening): secure node slots and leaf buffers for `splits` coming splits */
int sgt_tree_reserve(sgt_tree *t, const sgt_quantizer *q, int64_t splits);
/* sgt_model.c (reference/sgt/core.py) */
int sgt_model_new(const sgt_params *p, int32_t d, const int32_t *kinds, const double *lo,
                  const double *hi, const uint8_t *fixed, int32_t loss_kind, int32_t n_trees,
                  sgt_model **out);
void sgt_model_free(sgt_model *m);
int sgt_model_raws(sgt_model *m, const double *x, double *out);
int sgt_model_raws_many(sgt_model *m, const double *X, int64_t n, double *out);
int sgt_model_warmup_push(sgt_model *m, const double *rows, int32_t n_rows, double target,
                          int32_t *ended);
void sgt_model_clear_buffer(sgt_model *m);
int sgt_model_learn(sgt_model *m, const double *rows, int32_t n_rows, double target);
/* C only (hardening): every tree secures memory for `splits` coming splits; and, when
 * pushing n_rows more warm-up rows would end the warm-up, for training the buffer */
int sgt_model_reserve(sgt_model *m, int64_t splits);
int sgt_model_reserve_warmup_end(sgt_model *m, int64_t n_rows);
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
    AB_REBUILD_MIN_OPS = 256   /* rebuild when ops > max(256, 2|S|) (spec 13) */
};

typedef struct {
    int64_t n_features;   /* D */
    int64_t leaf_size;    /* L, bucket size of a leaf */
    int32_t metric;       /* AB_METRIC_* */
    double p;             /* Minkowski exponent */
    int64_t n_nodes;      /* nodes in the arena; node 0 is the root */
    int64_t node_cap;     /* allocated nodes */
    int64_t *split_dim;   /* split coordinate, -1 for a leaf */
    double *split_value;  /* split value (guides descent only) */
    int64_t *left;        /* left child or -1 */
    int64_t *right;       /* right child or -1 */
    int64_t *parent;      /* parent or -1 */
    double *lo;           /* box lower corners, node_cap x D */
    double *hi;           /* box upper corners, node_cap x D */
    int64_t *bucket;      /* leaf buckets, node_cap x (L + 1) slots */
    int64_t *bucket_len;  /* slots in each bucket */
    int64_t slot_cap;     /* allocated entries of slot_leaf / slot_pos */
    int64_t *slot_leaf;   /* leaf holding each slot, -1 if none */
    int64_t *slot_pos;    /* position of each slot in its leaf bucket */
    int64_t ops;          /* inserts + deletes + moves since the last build */
    int64_t *work;        /* scratch: slots being partitioned */
    int64_t work_cap;     /* allocated entries of work */
    int64_t *stack;       /* scratch: traversal stack */
    double *stack_bound;  /* scratch: lower bound of each stacked node */
    int64_t stack_cap;    /* allocated entries of stack and stack_bound */
} ab_tree;

typedef struct {
    int64_t slot;             /* slot of the nearest ball, -1 if S is empty */
    double delta;             /* delta = rho(x, c_slot) */
} ab_found;

typedef struct {
    int32_t variant;          /* AB_BASE .. AB_AUTO_ADJ */
    int32_t randomized;       /* 1: BASE randomized binary rule [DOC15, Alg. 2] */
    int32_t metric;           /* AB_METRIC_* */
    double p;                 /* Minkowski exponent */
    double d;                 /* d, AUTO shrink exponent -1/(2+d) [DOC15, Alg. 4] */
    double C;                 /* C, covering constant [DOC15, Alg. 2] */
    int64_t budget;           /* B of AUTO-ADJ-FIX [DOC15, Eq. 1]; 0 = no budget */
    int32_t search;           /* AB_SEARCH_* */
    int64_t search_threshold; /* kd-tree from this many balls on (AB_SEARCH_AUTO) */
    int64_t leaf_size;        /* kd-tree bucket size L */
    int64_t n_features;       /* D (0 until the first learned row) */
    int64_t n_classes;        /* K, size of the class registry Y */
    int64_t class_cap;        /* row stride of counts */
    int64_t n_seen;           /* training steps */
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
    int64_t phase;            /* BASE phase index i */
    int64_t phase_steps;      /* t_i, training steps in the phase */
    double phase_dim;         /* d_i, metric-dimension estimate */
    double radius;            /* eps, the global BASE radius */
    int32_t init_done;        /* AUTO initialisation finished */
    int64_t first_label;      /* y_1 of the AUTO initialisation, -1 before */
    rng_state rng;            /* model generator (randomized BASE, FIX) */
    ab_tree *tree;            /* loose kd-tree, NULL while the scan is used */
} ab_model;

/* ab_balls.c (mirrors reference/abacoc/balls.py) */
void ab_ball_write(ab_model *m, int64_t slot, int64_t id, const double *x, int64_t k, double radius);
void ab_add_count(ab_model *m, int64_t slot, int64_t k);
int64_t ab_count_of(const ab_model *m, int64_t slot, int64_t k);
int64_t ab_total_count(const ab_model *m, int64_t slot);
int64_t ab_majority(const ab_model *m, int64_t slot);
void ab_move_center(ab_model *m, int64_t slot, const double *x);
void ab_shrink_radius(ab_model *m, int64_t slot, double d);
double ab_randomized_probability(int64_t n1, int64_t n);
/* ab_search.c (mirrors reference/abacoc/search.py) */
double ab_pow_or_inf(double base, double exponent);
double ab_distance_term(double diff, int32_t metric, double p);
double ab_raw_distance(const double *x, const double *c, int64_t n_features, int32_t metric, double p);
double ab_rho(double raw, int32_t metric, double p);
int64_t ab_scan_nearest(const ab_model *m, const double *x, double *raw_out);
ab_tree *ab_tree_new(int64_t n_features, int64_t leaf_size, int32_t metric, double p);
void ab_tree_free(ab_tree *t);
int ab_tree_build(ab_tree *t, const ab_model *m);
int ab_tree_insert(ab_tree *t, const ab_model *m, int64_t slot);
void ab_tree_delete(ab_tree *t, int64_t slot);
void ab_tree_move(ab_tree *t, const ab_model *m, int64_t slot);
double ab_tree_lower_bound(const ab_tree *t, int64_t node, const double *x);
int64_t ab_tree_nearest(ab_tree *t, const ab_model *m, const double *x, double *raw_out);
int64_t ab_index_nearest(ab_model *m, const double *x, double *raw_out);
void ab_index_inserted(ab_model *m, int64_t slot);
void ab_index_deleted(ab_model *m, int64_t slot);
void ab_index_moved(ab_model *m, int64_t slot);
void ab_index_cleared(ab_model *m);
void ab_index_maintain(ab_model *m);
/* ab_variants.c (mirrors reference/abacoc/variants.py) */
int64_t ab_nearest_ball(ab_model *m, const double *x, double *delta_out);
int64_t ab_fix_victim(ab_model *m);
void ab_base_add_ball(ab_model *m, const double *x, int64_t k);
void ab_base_learn(ab_model *m, const double *x, int64_t k, const ab_found *found);
void ab_auto_add_ball(ab_model *m, const double *x, int64_t k, double delta);
void ab_auto_learn(ab_model *m, const double *x, int64_t k, const ab_found *found);
void ab_learn(ab_model *m, const double *x, int64_t k, const ab_found *found);
int64_t ab_predict_index(ab_model *m, const double *x, const ab_found *found);
void ab_class_distribution(ab_model *m, const double *x, double *out);
/* ab_model.c (mirrors reference/abacoc/model.py): the handle and its checked entry points */
ab_model *ab_model_new(int32_t variant, int32_t randomized, int32_t metric, double p, double d, double C, int64_t budget, int32_t search, int64_t search_threshold, int64_t leaf_size, uint64_t seed);
void ab_model_free(ab_model *m);
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
