/*
 * rng.c -- xoshiro256** seeded by splitmix64; mirrors reference/rng.py.
 *
 * Invariant: the state is never all zero (splitmix64 outputs four words that are
 * never simultaneously zero, and the Python setter refuses (0,0,0,0)).
 * Derived draws ([DET-SPEC §1]):
 *   rng_uniform  = (next >> 11) * 2^-53, one output;
 *   rng_below(n) = bitmask rejection, one output per try, at least one.
 */
#include "common/common.h"

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

void rng_seed(rng_state *r, uint64_t seed)
{
    uint64_t x = seed;
    int i;
    for (i = 0; i < 4; i++) r->s[i] = splitmix64(&x);
}

/* [DET-SPEC §1] mirrors stream_seed: splitmix64(key ^ splitmix64(slot)), outputs only
 * (each a bijection: distinct slots, distinct seeds, scattered, so no two slots' seedings
 * are shifted copies of one splitmix64 sequence) */
uint64_t rng_stream_seed(uint64_t key, uint64_t slot)
{
    uint64_t x = slot, mixed = splitmix64(&x);
    x = key ^ mixed;
    return splitmix64(&x);
}

uint64_t rng_next_u64(rng_state *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double rng_uniform(rng_state *r)
{
    return (double)(rng_next_u64(r) >> 11) * (1.0 / 9007199254740992.0);
}

uint64_t rng_below(rng_state *r, uint64_t n)
{
    /* mask: smallest 2^k - 1 >= n - 1 (0 for n = 1); n = 0 is refused by callers */
    uint64_t mask = n - 1, v;
    mask |= mask >> 1;
    mask |= mask >> 2;
    mask |= mask >> 4;
    mask |= mask >> 8;
    mask |= mask >> 16;
    mask |= mask >> 32;
    do {
        v = rng_next_u64(r) & mask;
    } while (v >= n);
    return v;
}

int rng_fill_uniform(rng_state *r, double *out, size_t n)
{
    size_t i;
    if (r == NULL || (out == NULL && n > 0)) return ST_EINVAL;
    for (i = 0; i < n; i++) out[i] = rng_uniform(r);
    return ST_OK;
}
