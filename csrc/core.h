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
 *   status codes | rng | special | running | dynamic trees (dt_) | SGT (sgt_) | ABACOC (ab_)
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

/* ---- running: Welford moments (mirrors reference/running.py) ---- */

/* ---- dynamic trees (dt_*, mirrors reference/dynatree/) ---- */

/* ---- stochastic gradient trees (sgt_*, mirrors reference/sgt/) ---- */

/* ---- ABACOC (ab_*, mirrors reference/abacoc/) ---- */

#endif
