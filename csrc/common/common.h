/*
 * common/common.h -- the part of the driftwood C library shared by every family:
 * status codes and the one constructor/destructor/error convention, allocation,
 * the random number generator and the special functions.
 *
 * Header rules (they hold for every header under csrc/): written in the subset of C that
 * cffi's cdef parser reads. The cffi builder (fast/_ffibuild.py) reads the headers in the
 * order common/common.h, dynatree/dynatree.h, sgt/sgt.h, abacoc/abacoc.h, drops every line
 * starting with '#' and feeds the rest to ffibuilder.cdef(), so the headers are the single
 * source of truth for the binding. Hence: plain structs (typedef struct {...} name;),
 * constants as enum members, no function-like macros, no static inline, no #define that
 * the cdef needs. A family header includes only this header; this header includes only
 * system headers (tests/common/test_c_layout.py checks there is no include cycle).
 *
 * The convention of every family (dt_, sgt_, ab_):
 *   - a constructor `int32_t X_new(..., X **out)` allocates and initialises a handle,
 *     stores it in *out and returns ST_OK; on failure it returns a status code below,
 *     stores NULL in *out and leaves nothing allocated;
 *   - a destructor `void X_free(X *h)` releases the handle and everything it owns and
 *     accepts NULL (no-op);
 *   - every other entry point that can fail returns a status code (ST_OK on success);
 *     st_message(code) names a code in words (the Python side maps the codes to
 *     exceptions in fast/_ffi.py and uses the message in the exception text).
 * Internal helpers that initialise a struct in place follow the same pattern with `_init`
 * (status code) and `_free` (accepts a zeroed or NULL-pointer struct).
 */
#ifndef DRIFTWOOD_COMMON_H
#define DRIFTWOOD_COMMON_H
#include <stdint.h>
#include <stddef.h>

/* ---- status codes: every public function that can fail returns one (common/status.c) ---- */
enum {
    ST_OK = 0,       /* success */
    ST_EINVAL = 1,   /* invalid argument or data value     -> ValueError  */
    ST_ENOMEM = 2,   /* allocation failed                  -> MemoryError */
    ST_EDIM = 3,     /* wrong input dimension              -> ValueError  */
    ST_ESTATE = 4,   /* operation invalid in current state -> RuntimeError */
    ST_ERANGE = 5    /* index or class out of range        -> IndexError  */
};

/* the status code in words (a static string; "unknown status" for a code not above) */
const char *st_message(int32_t code);

/* ---- alloc: every allocation of the library goes through these (common/alloc.c) ---- */
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

/* ---- rng: xoshiro256** seeded by splitmix64 (common/rng.c, mirrors reference/rng.py) ---- */
typedef struct {
    uint64_t s[4];   /* the four xoshiro256** state words s0..s3 [BV21] */
} rng_state;

void rng_seed(rng_state *r, uint64_t seed);
uint64_t rng_next_u64(rng_state *r);
uint64_t rng_stream_seed(uint64_t key, uint64_t slot);

/* ---- worker threads (common/parallel.c, the C side of reference/parallel.py) ----
 * parallel_run(n, fn, arg): fn(arg, w) for w = 0..n-1, part 0 on the calling thread, the
 * others on a pool of threads that lives as long as the process; returns when every part
 * has returned. par_add, par_load: an int32 counter shared by threads, changed and read
 * atomically (acquire-release order); par_load64, par_cas64: an int64 word read, and
 * replaced if it still holds `expected` (returns 1 then), the same way; par_lock_spin /
 * par_unlock_spin: a short lock */
typedef void (*parallel_fn)(void *arg, int part);
int parallel_run(int n, parallel_fn fn, void *arg);
int32_t par_add(int32_t *p, int32_t v);
int32_t par_load(const int32_t *p);
int64_t par_load64(const int64_t *p);
int par_cas64(int64_t *p, int64_t expected, int64_t desired);
void par_lock_spin(int32_t *flag);
void par_unlock_spin(int32_t *flag);
double rng_uniform(rng_state *r);
uint64_t rng_below(rng_state *r, uint64_t n);
/* fill out[0..n-1] with uniform() draws (bulk path for benchmarks and tests) */
int rng_fill_uniform(rng_state *r, double *out, size_t n);

/* ---- special: special functions (common/special.c, mirrors reference/special.py) ---- */
double special_exp_or_inf(double x);                 /* exp, inf on overflow */
double special_log_or_neg_inf(double x);             /* log, -inf at 0, NaN below */
double special_lgamma(double x);                     /* log Gamma(x), x > 0 (Lanczos) */
double special_log_beta(double a, double b);          /* log B(a, b) */
double special_log_sum_exp(const double *v, size_t n);
double special_student_t_logpdf(double x, double df);
/* C only: the same, given lb = special_log_beta(0.5 df, 0.5) */
double special_student_t_logpdf_lb(double x, double df, double lb);
double special_student_t_cdf(double x, double df);
double special_student_t_ppf(double p, double df);
double special_betainc(double a, double b, double x); /* I_x(a, b), regularised */
double special_betainc_xy(double a, double b, double x, double y); /* same, y = 1 - x given */

#endif
