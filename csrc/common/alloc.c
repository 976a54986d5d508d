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

static int inject_failure(void)
{
    if (fail_countdown < 0)
        return 0;
    if (fail_countdown > 0) {
        fail_countdown--;
        return 0;
    }
    fail_countdown = -1;
    fail_count++;
    return 1;
}

void alloc_fail_after(int64_t n)
{
    fail_countdown = n < 0 ? -1 : n;
}

int64_t alloc_failures(void)
{
    return fail_count;
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
