/*
 * dynatree/dynatree.h -- the dynamic-tree family (dt_*), twin of reference/dynatree/.
 *
 * Read by the cffi builder like every header (see common/common.h for the rules and the
 * constructor/destructor/error convention).
 */
#ifndef DRIFTWOOD_DYNATREE_H
#define DRIFTWOOD_DYNATREE_H
#include "common/common.h"

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

enum { DT_LOG_INT = 512 }; /* leaf sizes whose log the leaf configuration tabulates */
/* columns whose grow-candidate extremes a point set can memoise (kth_mask has 32 bits) */
/* [DT-SPEC §3.2] relative pivot at or below which a linear leaf drops a regressor */
#define DT_PIVOT_TOL 1e-9
/* largest magnitude of a feature value or target (reference/dynatree/inputs.py,
 * MAX_MAGNITUDE): squares and sums of values up to it stay finite */
#define DT_MAX_MAGNITUDE 1e150
#define DT_KTH_COLS(d) ((d) < 32 ? (d) : 32)

typedef struct {
    int kind;          /* DT_CONSTANT, DT_LINEAR or DT_CLASS */
    int p;             /* bmax, regressors of a linear leaf */
    int augmented;     /* 1 if the regressors are (1, x) */
    int delta;         /* 1 for an implicit intercept */
    int n_classes;     /* C */
    double nu0;        /* nu0, prior df of sigma^2 */
    double s20;        /* s0^2, prior scale of sigma^2 */
    double kappa;      /* slope-prior precision, beta ~ N(0, sigma^2/kappa I); 0 = flat */
    int off_counts;    /* class counts c_k (C doubles) */
    int off_gcounts;   /* retired class counts a_k (C doubles; DT_OFF_VEC + the class
                        * capacity, which dynatree/new_class.c doubles when a class joins a
                        * full block; the slots past C are zero) */
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
    double lg_prior;   /* C-only cache: C * lgamma(1/C) of the class evidence (same value) */
    double qp0;        /* C-only cache: nu0 s0^2 + 0.0, the evidence's prior Q without
                        * retired data, and log_qp0 = log(qp0 / 2) (the same double) */
    double log_qp0;
    double log_int[DT_LOG_INT]; /* C-only cache: log(k) for 0 < k < DT_LOG_INT (same values) */
} dt_leaf_config;

typedef struct {
    int32_t left;      /* left child (x[var] <= value), -1 for a leaf; free-list link */
    int32_t right;     /* right child, -1 for a leaf */
    int32_t parent;    /* parent, -1 for the root */
    int32_t depth;     /* d, root 0 [AG13, §2.1] */
    int32_t var;       /* split column j, -1 for a leaf */
    int32_t set;       /* point set (points + stats) of a leaf, shared copy-on-write; -1 if internal */
    double value;      /* split value xi (32-byte node: two per cache line) */
} dt_node;

typedef struct {
    int32_t *pts;      /* active points of the leaves sharing this set, arrival order */
    int32_t n;         /* number of points */
    int32_t cap;       /* capacity of pts */
    int32_t next_free; /* free-list link, -1 = end */
    int32_t mark;      /* retirement stamp: set already updated for the current retiree */
    int32_t alc_ok;    /* 1 if alc holds valid ALC values of the points for its rectangle */
    int32_t alc_cap;   /* capacity of alc (doubles) */
    int32_t ent_ok;    /* 1 if ent holds the leaf entropy of the set's current stats */
    int32_t txn_st;    /* C-only undo log (dynatree/txn.c): n, mark and stats saved in txn txn_st */
    int32_t txn_pts;   /* C-only undo log: point list saved (or set created) in txn txn_pts */
    int32_t memo_txn;  /* C-only: in transaction memo_txn (one learned row, one new point) */
    int32_t memo_set;  /* a leaf appended that point to a copy of this set: the copy's id */
    int32_t w_txn;     /* C-only weight memo: in transaction w_txn (one resampling step, one
                        * x_t, y_t), w_val is this set's particle weight (w_ok: proper) */
    int32_t w_ok;      /* the return value of the weight (1 = proper predictive) */
    double w_val;      /* the weight p(y_t | x_t, stats) of any leaf holding this set */
    int32_t kth_txn;   /* C-only grow-candidate memo: in transaction kth_txn, for each column
                        * j with bit j of kth_mask set, pool.set_kth holds the minp-th smallest
                        * and largest x_j of the set's points (the set no longer changes) */
    uint32_t kth_mask; /* columns j < 32 whose pair is held */
    uint32_t ver;      /* C-only: bumped whenever the set's points or statistics change (and
                        * when its slot is reused), so that a memo naming it can tell */
    int32_t prune_txn; /* C-only prune memo: in transaction prune_txn, a parent whose two
                        * children are leaves holding this set (left) and set prune_right at
                        * version prune_ver (right) merges into a leaf of evidence prune_ell */
    int32_t prune_right;
    uint32_t prune_ver;
    double prune_ell;
    int64_t share;     /* C-only, the threaded step: (txn << 32) | id of the copy of this
                        * set that received the row's point in transaction txn, published
                        * (atomically) once complete, taken by every worker's leaves that
                        * hold this set (dynatree/tree.c worker_append_shared) */
    double ent;        /* C-only entropy cache [AG13, §4.4]: dt_leaf_entropy of the set's
                        * stats, invalidated with alc_ok whenever the stats change */
    double *alc;       /* C-only ALC cache: leaf rectangle (lo[mc], hi[mc]), then one value
                        * per point; invalidated whenever the set's points or stats change,
                        * and keyed by the rectangle [AG13, §4.4; [DT-SPEC §7.6] REC,
                        * REC = driftwood's choice where dynaTree is silent] */
} dt_pointset;

typedef struct {
    dt_node *nodes;    /* node arena */
    int32_t root;      /* root node index */
    int32_t n_nodes;   /* arena high-water mark */
    int32_t free_head; /* free-list head (linked through left), -1 if empty */
    int32_t n_free;    /* length of the free list */
} dt_particle;

/* C-only memo of grow candidates (dynatree/moves.c): in transaction txn, splitting point
 * set `set` (at version ver) on column j with nl points on the left gives children of
 * evidence ell[0], ell[1] (the partition at a threshold is fixed by its left count) */
typedef struct {
    int32_t txn;
    int32_t set;
    uint32_t ver;
    int32_t j;
    int32_t nl;
    int32_t pad;
    double ell[2];
} dt_grow_memo;

enum { DT_GROW_MEMO = 4096 }; /* entries of the direct-mapped grow memo (a power of 2) */

/* hyper-parameters and the prior tables derived from them */
typedef struct {
    int32_t d;            /* input columns */
    int32_t minp;         /* minimum active points per leaf */
    int32_t nstart;       /* points placed in the root before PL */
    int32_t n_particles;  /* N */
    double alpha;         /* alpha of p_split */
    double beta;          /* beta of p_split */
    double prior_split[64]; /* log p_split(d) for d < 64 [AG13, §2.1] */
    double prior_leaf[64];  /* log(1 - p_split(d)) for d < 64 */
} dt_params;

/* the store: the active pool of points, in arrival order */
typedef struct {
    int64_t n;            /* points in the store */
    int64_t cap;          /* store capacity (rows) */
    double *X;            /* store inputs, n x d row-major */
    double *y;            /* store targets (class index for DT_CLASS) */
    int64_t n_total;      /* points learned so far (the store holds only the active pool) */
} dt_store;

/* the particle set and the per-particle buffers of particle learning */
typedef struct {
    dt_particle *parts;   /* the N particles */
    dt_particle *tmp;     /* scratch particle array for resampling */
    int32_t cap_nodes;    /* arena capacity of every particle */
    int32_t leafc_ok;     /* 1 if leafc holds the leaves of the current step */
    double *w;            /* N weights */
    int32_t *chosen;      /* N resampled indices */
    int32_t *flags;       /* 2N flags / dead list */
    int32_t *leafc;       /* 2N: leaf of x_t in each particle, cached by the weights */
} dt_particle_set;

/* the pool of leaf point sets, shared copy-on-write by the particles */
typedef struct {
    dt_pointset *sets;    /* pool of leaf point sets, shared by the particles */
    double *set_stats;    /* the stats block of each point set (sw doubles per set) */
    int32_t n_sets;       /* high-water mark of the pool */
    int32_t cap_sets;     /* capacity of the pool */
    int32_t free_set;     /* free-list head of the pool, -1 if empty */
    int32_t pad_sets;     /* unused */
    int32_t *refs;        /* leaves (over all particles) referencing each set; 0 = free (an
                           * array of its own: resampling updates thousands of counts a row) */
    dt_grow_memo *grow_memo; /* C-only: DT_GROW_MEMO entries (dynatree/moves.c) */
    double *set_kth;      /* C-only memo of the grow candidate: 2 DT_KTH_COLS(d) doubles per
                           * set (lo, hi of column j < 32 at 2 j, 2 j + 1), valid as kth_txn,
                           * kth_mask say */
} dt_pool;

/* retirement and forgetting [AG13, §3.2, §5]: the automatic rule and its scratch */
typedef struct {
    int32_t active_size;  /* w, active pool size; 0 = no automatic retirement */
    int32_t rule;         /* DT_RETIRE_* rule of automatic retirement */
    double lam;           /* forgetting factor of automatic retirements [AG13, §5] */
    int32_t stamp;        /* retirement stamp (see dt_pointset.mark) */
    int32_t approx;       /* ALC: counts as a proxy for areas ([DT-SPEC §7.4]) */
    double *scores;       /* cap doubles: discarding statistic of every active point */
    double *rect;         /* 2 d doubles: user ALC rectangle (low, high per column), or NULL */
    double *abuf;         /* ALC scratch: 14 (d + 2) doubles */
    int32_t *areg;        /* ALC scratch: d + 2 column indices */
} dt_retirement;

/* scratch buffers of one step, and the owners of the cfg caches */
typedef struct {
    int32_t *ibuf;        /* cap point indices (scratch) */
    int32_t *ibuf2;       /* 3 cap point indices (scratch: left | right children | merge) */
    int32_t *stack;       /* cap_nodes node indices (scratch) */
    double *vbuf;         /* cap values (scratch) */
    double *sbuf;         /* 3 scratch stats blocks */
    double *work;         /* linear-algebra scratch */
    double *lg_half;      /* owner of cfg.lg_half */
    double *lg_frac;      /* owner of cfg.lg_frac */
    double *t05;          /* C-only cache, cfg.lg_len entries: special_student_t_ppf(0.05, k)
                           * for integer df = k, filled on first use (NaN until then) */
    double *t_lbeta;      /* C-only cache, cfg.lg_len entries: special_log_beta(k / 2, 1/2)
                           * for integer df = k (the particle weight's Student-t density),
                           * filled on first use (NaN until then) */
} dt_scratch;

/* C-only undo log (dynatree/txn.c): one row of learn (or one manual retire) is a
 * transaction; an allocation failure inside it rolls the model back */
typedef struct {
    int32_t broken;       /* 1 after an allocation failure in the current transaction */
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
    unsigned char *log;   /* undo records, each payload then trailer (dynatree/txn.c) */
    int64_t log_len;      /* bytes used */
    int64_t log_cap;      /* bytes allocated */
    int32_t *freed;       /* the sets released in the open transaction (n_freed of them, in
                           * order), which join the free list at commit; freed_cap >=
                           * pool.cap_sets (dt_sets_reserve): a set is freed once at most */
    int32_t n_freed;
    int32_t freed_cap;
} dt_undo;

/* C-only: one node of the forest of dt_forest_build: the particles' trees with equal
 * subtrees stored once (a split is its column, value and children; a leaf its point set) */
typedef struct {
    double value;         /* split value (0 for a leaf) */
    int32_t var;          /* split column, -1 for a leaf */
    int32_t left;         /* left child (x[var] <= value); the point set of a leaf */
    int32_t right;        /* right child; -1 for a leaf */
    int32_t pad;          /* unused */
} dt_dag_node;

/* C-only: the forest of dt_forest_build (dynatree/tree.c): the particles' trees with
 * equal subtrees stored once, children before parents */
typedef struct {
    dt_dag_node *dag;     /* the forest's nodes */
    int32_t n_dag;        /* nodes in dag */
    int32_t cap_dag;      /* capacity of dag */
    int32_t max_depth;    /* splits on the longest root-to-leaf path of any particle */
    int32_t pad;          /* unused */
    int32_t *roots;       /* N: the forest node of each particle's root */
} dt_forest;

/* C-only cache of the batch predictions (dynatree/particles.c): the forest of the
 * particles' trees whose leaves are point sets of equal statistics, and one record per
 * point set of the row-independent part of its leaf predictive [DT-SPEC §8.4], built once
 * by dt_model_predict_prepare and dropped by every transaction (learning, retiring) and
 * by dt_model_import; while ok, the *_rows calls only read the model, so that several
 * threads may run them at once on disjoint rows */
typedef struct {
    double *tab;          /* width doubles per set (layout in dynatree/particles.c) */
    int64_t cap;          /* doubles allocated in tab */
    int32_t ok;           /* 1 while the cache describes the current model */
    int32_t width;        /* doubles per set */
    int32_t n_sets;       /* sets covered (pool.n_sets when built) */
    int32_t pad;          /* unused */
    double *loc;          /* n_sets: the location mu0 of each set (regression) */
    dt_forest f;          /* leaves: canonical point sets */
} dt_pred_cache;

/* C-only cache of ALC at candidate rows (dynatree/discard_stats.c), the same scheme for
 * [DT-SPEC §7.4]: a leaf's ALC depends on its statistics and its rectangle, so each
 * distinct (statistics, rectangle) pair is one "prep" (dt_leaf_alc_prep), and the forest's
 * leaves are preps; built by dt_model_alc_prepare for one box, dropped like pred */
typedef struct {
    int32_t ok;           /* 1 while the cache describes the current model and box */
    int32_t n_preps;      /* distinct preps */
    int32_t cap_preps;    /* capacity (preps) */
    int32_t pw;           /* doubles per prep: 6 + 2 mc, then its value (row-free leaves) */
    double *preps;        /* pw doubles per prep */
    int32_t *regs;        /* mc ints per prep: the regular columns */
    int32_t *sets;        /* per prep: its canonical point set */
    double *vals;         /* per prep: its row-free value (leaves without linear terms) */
    double *box;          /* 2 d doubles: the box the cache was built for */
    double denom;         /* N times the box's area */
    int32_t *keys;        /* the prep of each leaf: keys[off[i] + k], k an arena index */
    int64_t *off;         /* N + 1 offsets into keys */
    int64_t cap_keys;     /* capacity of keys */
    dt_forest f;          /* leaves: preps */
} dt_alc_cache;

/* C-only memos of one worker of the threaded step (dynatree/particles.c), in place of the
 * memos a serial step keeps in the point sets (w_*, prune_*, kth_*), which a worker must
 * not write: a set may be shared by particles of several workers. Direct-mapped, keyed by
 * the transaction and the sets; a miss computes (the memos hold the doubles computed) */
typedef struct {
    int32_t txn;
    int32_t set;
    int32_t ok;
    int32_t pad;
    double val;
} dt_wk_weight;

typedef struct {
    int32_t txn;
    int32_t left;
    int32_t right;
    uint32_t lver;
    uint32_t rver;
    int32_t pad;
    double ell;
} dt_wk_prune;

typedef struct {
    int32_t txn;
    int32_t set;
    uint32_t ver;
    int32_t j;
    double lo;
    double hi;
} dt_wk_kth;

enum { DT_WK_MEMO = 2048 };

/* C-only: a worker's change of one point set's reference count in a step (delta), and
 * whether its id is in the worker's touched list (noted); both 0 between steps */
typedef struct {
    int32_t delta;
    int32_t noted;
} dt_wk_ref;

/* C-only: one worker of the threaded step: its scratch, its undo log (records of the
 * changes it made in the open transaction: dynatree/txn.c walks them with the model's),
 * its memos, and point-set ids taken from the pool for the sets it creates */
typedef struct {
    dt_scratch buf;          /* ibuf, ibuf2, stack, vbuf, sbuf, work, t05, t_lbeta */
    unsigned char *log;      /* undo records (dynatree/txn.c layout) */
    int64_t log_len;
    int64_t log_cap;
    int32_t broken;          /* an allocation failed in this worker */
    int32_t lost;            /* its log could not grow */
    int32_t any_proper;      /* weights phase: a proper leaf predictive was found */
    int32_t n_free;          /* ids in free_ids */
    int32_t pad;
    dt_grow_memo *grow_memo; /* DT_GROW_MEMO entries */
    dt_wk_weight *wmemo;     /* DT_WK_MEMO entries each */
    dt_wk_prune *pmemo;
    dt_wk_kth *kmemo;
    dt_wk_ref *refd;         /* cap_sets: the worker's changes of the point sets' reference
                              * counts in a step, merged at its end (dt_refs_merge) */
    int32_t *touched;        /* the ids noted in refd this step (n_touched of them) */
    int32_t *freed;          /* as dt_undo.freed: the sets the worker released (n_freed),
                              * which join its free list at commit */
    int32_t n_freed;
    int32_t freed_cap;
    int32_t n_touched;
    int32_t delta_cap;
    int32_t shared;          /* propagation: the slot's particle has another copy in the
                              * step (its leaves' sets are shared: dt_leaf_append) */
    int32_t pad2;
    int32_t *free_ids;       /* cap_sets: the worker's free ids (a stack, n_free of them):
                              * the point sets its merges released, reused by it so that a
                              * set's slot stays in one core's cache, brought to 3 N before
                              * each propagation phase (dt_workers_balance) */
} dt_worker;

/* C-only: the claim counter of one range of a phase's items (a cache line of its own) */
typedef struct {
    int32_t next;            /* the next block of the range to claim (par_add) */
    int32_t pad[15];
} dt_claim;

/* C-only: the threads of the learning step (dynatree/particles.c) */
typedef struct {
    int32_t n_threads;       /* n_jobs resolved (dt_model_set_threads), 1 = serial */
    int32_t n_wk;            /* workers allocated */
    int64_t wk_cap;          /* the store capacity their scratch is sized for */
    int32_t wk_nodes;        /* the node capacity it is sized for */
    int32_t pad0;
    int64_t wk_lg;           /* the cache length (cfg.lg_len) it is sized for */
    dt_worker *wk;           /* n_wk workers */
    void *wms;               /* n_wk copies of the model (dt_model), one per worker */
    dt_claim *claim;         /* n_wk claim counters, one per worker's list */
    int32_t *home;           /* N: the worker whose cache holds slot k's particle (the last
                              * to process it); -1 = none yet */
    int32_t *order;          /* N: the slots grouped by home (start[w] .. start[w + 1]) */
    int32_t *start;          /* n_wk + 1 */
    int32_t home_nw;         /* the worker count home was made for */
    int32_t pad1;
    const dt_node **gone;    /* N: resampling, the dead arena a copy replaces (or NULL) */
    int32_t *gone_n;         /* N: its node count */
    int32_t *multi;          /* N: 1 if slot k's particle has another copy in the step */
    int32_t resampled;       /* the step resampled (multi is current) */
    int32_t dirty;           /* the workers hold reference-count changes not yet merged */
    int32_t grouped;         /* order and start group the slots by the current homes (but
                              * for the slots a worker took from another's group since) */
    int32_t n_gone;          /* capacity of gone, gone_n */
    int32_t wk_sw;           /* the statistics width (cfg.sw) their scratch is sized for */
} dt_threads;

/* the model: one handle of the family (dt_model_new / dt_model_free) */
typedef struct {
    dt_leaf_config cfg;   /* leaf model */
    dt_params par;        /* hyper-parameters */
    dt_store store;       /* the active points */
    dt_particle_set pf;   /* the N particles */
    dt_pool pool;         /* leaf point sets */
    dt_retirement ret;    /* retirement and forgetting */
    dt_scratch buf;       /* scratch buffers */
    dt_undo txn;          /* undo log */
    dt_pred_cache pred;   /* per-set predictive records of the batch predictions */
    dt_alc_cache alcc;    /* per-leaf ALC preps of the candidate rows */
    dt_threads thr;       /* the threads of the learning step */
    dt_worker *wk;        /* C-only: set in a worker's copy of the model, NULL otherwise */
    rng_state rng;        /* the model's generator */
    double lml;           /* running sum of lpred [AG13, §2.3] */
} dt_model;

enum { DT_RETIRE_RANDOM = 0, DT_RETIRE_HISTORICAL = 1, DT_RETIRE_ALC = 2, DT_RETIRE_ENTROPY = 3 };

/* leaf models (dynatree/leaf_models.c) */
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
int dt_linear_in_use(const double *st, const dt_leaf_config *c);
void dt_linear_terms(const double *st, const dt_leaf_config *c, const double *x, double *quad,
                     double *lin, double *work);
double dt_linear_slope_term(const double *st, const dt_leaf_config *c, const double *x);
double dt_class_probability(const double *st, const dt_leaf_config *c, int k);
void dt_merge_stats(double *st, const dt_leaf_config *c, const double *blocks,
                    const int32_t *leaves, int32_t n_leaves, const int32_t *points, int32_t n_points, const double *X,
                    const double *y, int32_t d, double *work);
/* trees and prior (dynatree/tree.c) */
double dt_log_split_prob(int32_t depth, double alpha, double beta);
double dt_log_leaf_prob(int32_t depth, double alpha, double beta);
int32_t dt_find_leaf(const dt_particle *t, const double *x);
/* C only: the forest of the batch predictions ([DT-SPEC §8.4]) and its descent */
int dt_canonical_sets(const dt_model *m, int32_t *canon);
int dt_forest_build(dt_model *m, dt_forest *f, const int32_t *keys, const int64_t *off,
                    int32_t n_keys);
int32_t dt_forest_set(const dt_dag_node *dag, int32_t root, const double *x, int32_t tag,
                      int32_t *stamp, int32_t *memo, int32_t *path);
void dt_forest_free(dt_forest *f);
void dt_prefetch_particle(const dt_model *m, int32_t i);
void dt_find_leaves(const dt_model *m, const double *x, int32_t *out); /* C only: all N */
void dt_find_leaves_at(const dt_model *m, const double *x, const int32_t *slots, int32_t lo,
                       int32_t hi, int32_t *out);
double dt_prior_split(const dt_model *m, int32_t depth);
double dt_prior_leaf(const dt_model *m, int32_t depth);
int dt_particle_init(dt_particle *t, int32_t cap_nodes);
void dt_particle_free(dt_particle *t);
int dt_particle_reserve_nodes(dt_particle *t, int32_t cap_nodes);
double *dt_leaf_stats(const dt_model *m, const dt_particle *t, int32_t leaf);
int32_t dt_node_alloc(dt_model *m, dt_particle *t);
void dt_node_release(dt_model *m, dt_particle *t, int32_t k);
void dt_particle_replace(dt_model *m, dt_particle *dst, const dt_node *dead, int32_t dead_n,
                         const dt_particle *src);
int32_t dt_set_new(dt_model *m, const int32_t *pts, int32_t n);
void dt_set_release(dt_model *m, int32_t id);
void dt_leaf_append(dt_model *m, dt_particle *t, int32_t leaf, int32_t point);
int dt_leaf_append_shared(dt_model *m, dt_particle *t, int32_t leaf, int32_t point);
void dt_particle_release_sets(dt_model *m, dt_particle *t);
double dt_subtree_log_score(dt_model *m, const dt_particle *t, int32_t top, int32_t grown,
                            double ell_left, double ell_right);
void dt_subtree_log_scores(dt_model *m, const dt_particle *t, int32_t top, int32_t grown,
                           double ell_left, double ell_right, double *stay, double *grow);
int32_t dt_collect_leaves(dt_model *m, const dt_particle *t, int32_t top, int32_t *out);
int32_t dt_gather_points(const dt_model *m, const dt_particle *t, int32_t leaf, int32_t *out);
int32_t dt_height(dt_model *m, const dt_particle *t);
/* room in the point-set pool for one step plus `extra` sets (C only, capacity) */
int dt_sets_reserve(dt_model *m, int64_t extra);
/* moves (dynatree/moves.c) */
int dt_grow_candidate(dt_model *m, const int32_t *points, int32_t n, int32_t set, int32_t *var,
                      double *value, rng_state *r);
int dt_choose_move(double l_stay, double l_prune, double l_grow, rng_state *r);
void dt_propagate(dt_model *m, dt_particle *t, int32_t index, int32_t leaf, rng_state *r);
/* particle learning (dynatree/particles.c) */
int dt_particle_weight(dt_model *m, const dt_particle *t, const double *x, double y,
                       double *w, int32_t *leaf);
int32_t dt_residual_resample(const double *weights, int32_t n, rng_state *r, int32_t *out,
                             double *expected, double *cumulative, int32_t *counts);
double dt_resample(dt_model *m, const double *x, double y);
double dt_pl_step(dt_model *m, int32_t index);
/* the threads of the learning step (dynatree/particles.c) */
int dt_model_set_threads(dt_model *m, int32_t n_threads);
int32_t dt_step_threads(const dt_model *m);
int32_t dt_threads_held_ids(const dt_model *m, int32_t w);
int dt_model_check_sets(const dt_model *m);
void dt_refs_merge(dt_model *m, dt_worker *wks, int32_t nw, int32_t lo, int32_t hi);
int dt_workers_balance(dt_model *m, dt_worker *wks, int32_t nw, int32_t want);
void dt_share_publish(dt_model *m, int32_t from, int32_t to);
int64_t dt_threads_extra_sets(const dt_model *m);
void dt_threads_free(dt_model *m);
void dt_regression_summaries(dt_model *m, const double *x, double *out);
double dt_regression_mean(dt_model *m, const double *x);
void dt_class_summaries(dt_model *m, const double *x, double *probs, double *entropy);
/* the batch predictions by per-set records ([DT-SPEC §8.4]): prepare once (ST_ENOMEM, or
 * ST_ESTATE for a broken model), then the *_rows calls on any rows, from any number of
 * threads at once (they read the model only; ST_ESTATE if the records are stale, ST_ENOMEM
 * if their scratch cannot be allocated); the same doubles as the per-row calls above */
int dt_model_predict_prepare(dt_model *m);
int dt_model_means_rows(const dt_model *m, const double *X, int64_t n, double *out);
int dt_model_summaries_rows(const dt_model *m, const double *X, int64_t n, double *out);
int dt_model_classes_rows(const dt_model *m, const double *X, int64_t n, double *probs,
                          double *entropy);
/* the model (dynatree/model.c) */
int32_t dt_model_new(int kind, int p, int augmented, int delta, int n_classes, double nu0,
                     double s20, int32_t d, int32_t minp, int32_t nstart,
                     int32_t n_particles, double alpha, double beta, uint64_t seed,
                     dt_model **out);
void dt_model_free(dt_model *m);   /* accepts NULL */
/* the slope prior of linear leaves ([DT-SPEC §3.7]): kappa > 0 finite, or 0 for the flat
 * prior; ST_EINVAL otherwise, ST_ESTATE once the model holds data */
int dt_model_set_slope_prior(dt_model *m, double kappa);
rng_state *dt_model_rng(dt_model *m);
int dt_model_learn(dt_model *m, const double *X, const double *y, int64_t n, double *lpred);
int dt_model_regression(const dt_model *m, const double *x, double *out);
/* the predictive means of n rows (out[0] of dt_model_regression, bit for bit) */
int dt_model_means(const dt_model *m, const double *X, int64_t n, double *out);
int dt_model_class(const dt_model *m, const double *x, double *probs, double *entropy);
/* the calls above for n rows X (row-major, n x d): out n x 5 summaries (mean, var, q05,
 * q95, df); probs n x n_classes and entropy n */
int dt_model_summaries(const dt_model *m, const double *X, int64_t n, double *out);
int dt_model_classes(const dt_model *m, const double *X, int64_t n, double *probs,
                     double *entropy);
/* the one-row calls of the facade: x holds n_values finite numbers (ST_EDIM unless
 * n_values = d, ST_EINVAL for NaN or infinity), then as the calls above */
int dt_model_learn_row(dt_model *m, const double *x, int64_t n_values, double y, double *lpred);
int dt_model_regression_row(const dt_model *m, const double *x, int64_t n_values, double *out);
int dt_model_mean_row(const dt_model *m, const double *x, int64_t n_values, double *out);
int dt_model_class_row(const dt_model *m, const double *x, int64_t n_values, double *probs,
                       double *entropy);
/* dt_model_class_row (entropy not returned), then *label = the first class of largest
 * probability */
int dt_model_label_row(const dt_model *m, const double *x, int64_t n_values, double *probs,
                       int32_t *label);
int dt_model_trees(const dt_model *m, int32_t *out);
int dt_model_particle_size(const dt_model *m, int32_t i, int32_t *n_nodes, int32_t *n_points);
int dt_model_export_particle(const dt_model *m, int32_t i, int32_t *ints, double *dbls,
                             int32_t *points);
int dt_model_import(dt_model *m, const double *X, const double *y, int64_t n, double lml,
                    const int32_t *sizes, const int32_t *ints, const double *dbls,
                    const int32_t *points);
/* structural checks of a state before dt_model_import (dynatree/state_check.c): the
 * flat node arrays of every particle (the columns of reference/dynatree/columns.py) */
enum {
    DT_CHECK_OPEN = 1,        /* the preorder records end with open children */
    DT_CHECK_DEPTH = 2,       /* a depth differs from its place in preorder */
    DT_CHECK_VAR = 3,         /* a split variable outside -1 .. d - 1 */
    DT_CHECK_VALUE = 4,       /* a split value that is not finite */
    DT_CHECK_POINT_RANGE = 5, /* a point index outside 0 .. n - 1 */
    DT_CHECK_POINTS = 6,      /* a leaf's points differ from the rows routed to it */
    DT_CHECK_TRAILING = 7,    /* records after the end of the tree */
    DT_CHECK_LEAVES = 8       /* more leaves or points than the columns hold */
};
typedef struct {
    int32_t n_particles;
    const int32_t *sizes;     /* records per particle */
    int64_t n_nodes;          /* records in all: depth, var, value hold n_nodes each */
    const int32_t *depth;
    const int32_t *var;
    const double *value;
    int64_t n_leaves;         /* npoints holds n_leaves counts */
    const int32_t *npoints;
    int64_t n_points;         /* points holds n_points row indices */
    const int32_t *points;
    const double *X;          /* the store, n x d row-major */
    int32_t n;
    int32_t d;
    int32_t *idx;             /* scratch of n slots each */
    int32_t *tmp;
    const double *y;          /* the store's n targets (class indices of a classifier) */
    double *sums;             /* NULL, or n_leaves x 3: each leaf's sums of y, |y|, y^2 */
    int32_t n_classes;
    double *counts;           /* NULL, or n_leaves x n_classes zeros: each leaf's counts */
} dt_check_trees_args;
/* ST_OK, where = {-1, leaves walked, points walked}; or ST_EINVAL, where = {particle,
 * record, DT_CHECK_* code}. stack: 3 * (largest particle size + 2) slots */
int dt_check_trees(const dt_check_trees_args *a, int64_t *stack, int64_t *where);
/* forgetting (dynatree/forgetting.c) */
void dt_absorb_retired(double *st, const dt_leaf_config *c, const double *x, double y,
                       double lam, double *z);
void dt_insert_sorted(dt_model *m, dt_particle *t, int32_t leaf, int32_t point);
void dt_collapse(dt_model *m, dt_particle *t, int32_t leaf);
/* retirement (dynatree/retirement.c) */
void dt_recompute_linear_totals(double *st, const dt_leaf_config *c, const int32_t *points,
                                int32_t n, const double *X, const double *y, int32_t d,
                                double *work);
void dt_retire_from_set(dt_model *m, int32_t set, int32_t index, double lam);
void dt_retire_point(dt_model *m, int32_t index, double lam);
void dt_renumber(dt_model *m, int32_t index);
int32_t dt_choose_retiree(dt_model *m);
int dt_model_reserve_retire(dt_model *m);
int dt_retire_one(dt_model *m, int32_t index, double lam);
int dt_model_set_retirement(dt_model *m, int32_t active_size, int rule, double lam,
                            int approx, const double *rect);
int dt_model_retire(dt_model *m, const int32_t *positions, int32_t n, double lam);
int dt_model_retired(const dt_model *m, double *out);
/* a new class in place (dynatree/new_class.c): class C joins every leaf (ST_ENOMEM leaves
 * the model unchanged); drop_class undoes it while class C - 1 has no count anywhere */
int32_t dt_model_add_class(dt_model *m);
int32_t dt_model_drop_class(dt_model *m);
/* undo log: one learned row or one manual retirement is atomic (dynatree/txn.c, C-only) */
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
void dt_set_changed(dt_pointset *ps);
int32_t dt_live_leaf(const dt_node *nd);
/* active-discarding statistics (dynatree/discard_stats.c) */
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
/* ALC at candidate rows by per-leaf preps ([DT-SPEC §8.4]): prepare for a box (ST_ENOMEM,
 * ST_ESTATE for a broken or class model), then dt_model_alc_rows on any rows, from any
 * number of threads at once (reads the model only; ST_ESTATE if the cache is stale or
 * for another box); the same doubles as dt_model_alc */
int dt_model_alc_prepare(dt_model *m, const double *box);
int dt_model_alc_rows(const dt_model *m, const double *rows, int64_t n_rows, const double *box,
                      double *out);

#endif
