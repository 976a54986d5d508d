/*
 * parallel.c -- the worker threads of the C library; the C side of reference/parallel.py.
 *
 * parallel_run(n, fn, arg) calls fn(arg, w) once for each w in 0..n-1 and returns when all
 * calls have returned: w = 0 on the calling thread, the others on a pool of threads that
 * is started on first use and lives as long as the process (a barrier per call: the
 * caller waits until every part is done). The parts must be independent; which thread runs
 * a part never changes what it computes, so a caller's results are the same for any n.
 * One call at a time uses the pool: a call made while another is running (another model,
 * another Python thread) runs its parts one after the other on its own thread, as does a
 * call whose threads could not be started. After fork() the child starts a new pool.
 * POSIX threads, or the Windows API under _WIN32 (no OpenMP).
 */
#if !defined(_WIN32) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L /* sched_yield under -std=c99 */
#endif
#include "common/common.h"

#ifdef _WIN32
#include <windows.h>
typedef SRWLOCK par_lock;
typedef CONDITION_VARIABLE par_cond;
#define PAR_LOCK_INIT SRWLOCK_INIT
#define PAR_COND_INIT CONDITION_VARIABLE_INIT
#define par_lock_take(l) AcquireSRWLockExclusive(l)
#define par_lock_try(l) (TryAcquireSRWLockExclusive(l) != 0)
#define par_lock_give(l) ReleaseSRWLockExclusive(l)
#define par_wait(c, l) SleepConditionVariableSRW(c, l, INFINITE, 0)
#define par_wake_all(c) WakeAllConditionVariable(c)
#else
#include <pthread.h>
#include <sched.h>
typedef pthread_mutex_t par_lock;
typedef pthread_cond_t par_cond;
#define PAR_LOCK_INIT PTHREAD_MUTEX_INITIALIZER
#define PAR_COND_INIT PTHREAD_COND_INITIALIZER
#define par_lock_take(l) pthread_mutex_lock(l)
#define par_lock_try(l) (pthread_mutex_trylock(l) == 0)
#define par_lock_give(l) pthread_mutex_unlock(l)
#define par_wait(c, l) pthread_cond_wait(c, l)
#define par_wake_all(c) pthread_cond_broadcast(c)
#endif

enum { PAR_MAX_THREADS = 256 };

static par_lock busy = PAR_LOCK_INIT;   /* held by the call that uses the pool */
static par_lock mu = PAR_LOCK_INIT;     /* guards the fields below */
static par_cond go = PAR_COND_INIT;     /* a new job (gen changed) */
static par_cond done = PAR_COND_INIT;   /* pending reached 0 */
static int n_started;                   /* pool threads running: ids 1..n_started */
static int32_t gen;                     /* job counter (changed under mu, par_add; read
                                         * without it by a spinning thread, par_load) */
static int job_n;                       /* parts of the job */
static int32_t pending;                 /* pool parts not yet done (as gen) */
static parallel_fn job_fn;
static void *job_arg;
#ifndef _WIN32
static int atfork_set;

/* in a child of fork() the pool threads do not exist: start afresh */
static void after_fork_child(void)
{
    pthread_mutex_t m0 = PTHREAD_MUTEX_INITIALIZER;
    pthread_cond_t c0 = PTHREAD_COND_INITIALIZER;
    busy = m0;
    mu = m0;
    go = c0;
    done = c0;
    n_started = 0;
    pending = 0;
}
#endif

/* a pause in a spin-wait (the processor's hint where it has one); every 64th pause gives
 * the core to another runnable thread, so that a spinning thread does not hold up the one
 * it waits for when there are more threads than free cores */
static void cpu_relax(int spins)
{
    if ((spins & 63) == 63) {
#ifdef _WIN32
        SwitchToThread();
#else
        sched_yield();
#endif
        return;
    }
#if defined(_MSC_VER) && !defined(__clang__)
    YieldProcessor();
#elif defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* Spin-waits before sleeping: a thread that has finished its part watches the counter it
 * waits on for PAR_SPINS pauses (about half a millisecond on x86) before it sleeps on the
 * condition variable, so that the phases of a learning step, which follow each other
 * within microseconds, do not each pay for waking a sleeping thread (measured: 400
 * pauses made a 2-thread step 1.4x slower than 50,000) */
enum { PAR_SPINS = 50000 };

/* a pool thread: waits for a job, runs its part (its id), counts it done */
static void worker_loop(int id)
{
    int32_t seen = 0; /* created inside parallel_run, before gen moves to its job */
    int spins;
    for (;;) {
        for (spins = 0; spins < PAR_SPINS && par_load(&gen) == seen; spins++) cpu_relax(spins);
        par_lock_take(&mu);
        while (gen == seen) par_wait(&go, &mu);
        seen = gen;
        if (id < job_n) {
            parallel_fn fn = job_fn;
            void *arg = job_arg;
            par_lock_give(&mu);
            fn(arg, id);
            par_lock_take(&mu);
            if (par_add(&pending, -1) == 0) par_wake_all(&done);
        }
        par_lock_give(&mu);
    }
}

#ifdef _WIN32
static DWORD WINAPI worker_main(LPVOID p)
{
    worker_loop((int)(intptr_t)p);
    return 0;
}

static int start_thread(int id)
{
    HANDLE h = CreateThread(NULL, 0, worker_main, (LPVOID)(intptr_t)id, 0, NULL);
    if (h == NULL) return 0;
    CloseHandle(h);
    return 1;
}
#else
static void *worker_main(void *p)
{
    worker_loop((int)(intptr_t)p);
    return NULL;
}

static int start_thread(int id)
{
    pthread_t th;
    pthread_attr_t attr;
    int ok;
    if (!atfork_set) {
        if (pthread_atfork(NULL, NULL, after_fork_child) != 0) return 0;
        atfork_set = 1;
    }
    if (pthread_attr_init(&attr) != 0) return 0;
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    ok = pthread_create(&th, &attr, worker_main, (void *)(intptr_t)id) == 0;
    pthread_attr_destroy(&attr);
    return ok;
}
#endif

/* mirrors run_chunks: fn(arg, w) for w = 0..n-1, w = 0 here, the others on the pool */
int parallel_run(int n, parallel_fn fn, void *arg)
{
    int w, k, spins;
    if (fn == NULL || n < 1) return ST_EINVAL;
    if (n > PAR_MAX_THREADS) n = PAR_MAX_THREADS;
    if (n == 1 || !par_lock_try(&busy)) {
        for (w = 0; w < n; w++) fn(arg, w);
        return ST_OK;
    }
    par_lock_take(&mu);
    while (n_started < n - 1 && start_thread(n_started + 1)) n_started++;
    k = n_started + 1 < n ? n_started + 1 : n;  /* parts the pool takes: 1..k-1 */
    job_fn = fn;
    job_arg = arg;
    job_n = k;
    par_add(&pending, k - 1 - pending);
    par_add(&gen, 1);
    par_wake_all(&go);
    par_lock_give(&mu);
    fn(arg, 0);
    for (w = k; w < n; w++) fn(arg, w);          /* threads that could not start */
    for (spins = 0; spins < PAR_SPINS && par_load(&pending) > 0; spins++) cpu_relax(spins);
    par_lock_take(&mu);
    while (pending > 0) par_wait(&done, &mu);
    par_lock_give(&mu);
    par_lock_give(&busy);
    return ST_OK;
}

/* ---- atomic words: the threaded learning step's claim counters and the share words of
 * its point sets (dynatree/particles.c, tree.c), the pool's own counters, the allocation
 * hook's lock ---- */
#if defined(_MSC_VER) && !defined(__clang__)
#include <intrin.h>
int32_t par_add(int32_t *p, int32_t v)
{
    return (int32_t)_InterlockedExchangeAdd((volatile long *)p, (long)v) + v;
}

int32_t par_load(const int32_t *p)
{
    return (int32_t)_InterlockedOr((volatile long *)p, 0); /* a full barrier */
}

int64_t par_load64(const int64_t *p)
{
    return (int64_t)_InterlockedCompareExchange64((volatile __int64 *)p, 0, 0);
}

int par_cas64(int64_t *p, int64_t expected, int64_t desired)
{
    return _InterlockedCompareExchange64((volatile __int64 *)p, desired, expected) == expected;
}

void par_lock_spin(int32_t *flag)
{
    while (_InterlockedExchange((volatile long *)flag, 1) != 0) {
    }
}

void par_unlock_spin(int32_t *flag)
{
    _InterlockedExchange((volatile long *)flag, 0);
}
#else
int32_t par_add(int32_t *p, int32_t v)
{
    return __atomic_add_fetch(p, v, __ATOMIC_ACQ_REL);
}

int32_t par_load(const int32_t *p)
{
    return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

int64_t par_load64(const int64_t *p)
{
    return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

int par_cas64(int64_t *p, int64_t expected, int64_t desired)
{
    return __atomic_compare_exchange_n(p, &expected, desired, 0, __ATOMIC_ACQ_REL,
                                       __ATOMIC_ACQUIRE);
}

void par_lock_spin(int32_t *flag)
{
    while (__atomic_exchange_n(flag, 1, __ATOMIC_ACQUIRE) != 0) {
    }
}

void par_unlock_spin(int32_t *flag)
{
    __atomic_store_n(flag, 0, __ATOMIC_RELEASE);
}
#endif
