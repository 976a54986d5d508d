/*
 * alloc.c -- the allocation wrappers of the library (see common/common.h, section "alloc").
 *
 * Every allocation in csrc/ goes through alloc_malloc / alloc_calloc / alloc_realloc /
 * alloc_free, so a test can make any single allocation fail (alloc_fail_after) and check
 * that every caller returns ST_ENOMEM and leaves its model unchanged or freed cleanly.
 * With the hook disarmed (the default) they are the C library functions.
 */
#include <stdlib.h>

#include "common/common.h"

static int64_t fail_countdown = -1;   /* test hook: < 0 disarmed */
static int64_t fail_count = 0;        /* failures injected so far */
static int32_t armed = 0;             /* 1 while fail_countdown >= 0 (read atomically) */
static int32_t hook_lock = 0;         /* the hook's state is shared by the threads of a
                                       * threaded learning step (common/parallel.c) */

static int inject_failure(void)
{
    int hit = 0;
    if (par_load(&armed) == 0)
        return 0;
    par_lock_spin(&hook_lock);
    if (fail_countdown > 0) {
        fail_countdown--;
    } else if (fail_countdown == 0) {
        fail_countdown = -1;
        par_add(&armed, -1);
        fail_count++;
        hit = 1;
    }
    par_unlock_spin(&hook_lock);
    return hit;
}

void alloc_fail_after(int64_t n)
{
    par_lock_spin(&hook_lock);
    if ((fail_countdown >= 0) != (n >= 0)) par_add(&armed, n >= 0 ? 1 : -1);
    fail_countdown = n < 0 ? -1 : n;
    par_unlock_spin(&hook_lock);
}

int64_t alloc_failures(void)
{
    int64_t n;
    par_lock_spin(&hook_lock);
    n = fail_count;
    par_unlock_spin(&hook_lock);
    return n;
}

void *alloc_malloc(size_t size)
{
    if (inject_failure())
        return NULL;
    return malloc(size);
}

void *alloc_calloc(size_t count, size_t size)
{
    if (inject_failure())
        return NULL;
    return calloc(count, size);
}

void *alloc_realloc(void *ptr, size_t size)
{
    if (inject_failure())
        return NULL;
    return realloc(ptr, size);
}

void alloc_free(void *ptr)
{
    free(ptr);
}
