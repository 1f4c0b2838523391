/* cpu_pool.c — workers and the worker pool; printf output of a launch in block order (the CPU backend's grid
 * execution: see cpu_exec.h). */
#include "cpu_exec.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ------------------------------------------------ workers ------------------------------------------------ */

/* a worker for blocks of up to `cap` threads (a multiple of 32: warp code addresses all lanes of a warp) */
static worker *worker_new(unsigned index, uint32_t cap) {
    worker *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->index = index;
    w->fib = aligned_alloc(64, cap * sizeof(fiber));
    w->tids = malloc(cap * sizeof *w->tids);
    w->arr_gen = calloc(cap, sizeof *w->arr_gen);
    if (!w->fib || !w->tids || !w->arr_gen) {
        free(w->fib);
        free(w->tids);
        free(w->arr_gen);
        free(w);
        return NULL;
    }
    memset(w->fib, 0, cap * sizeof(fiber));
    for (uint32_t t = 0; t < cap; t++) {
        w->fib[t].w = w;
        w->fib[t].index = t;
        w->fib[t].lane = t & 31;
    }
    return w;
}

static void worker_delete(worker *w) {
    if (!w)
        return;
    for (uint32_t i = 0; i < w->nfree; i++)
        cpu_stack_free(w->free_stacks[i]);
    free(w->free_stacks);
    free(w->fib);
    free(w->tids);
    free(w->arr_gen);
    free(w->smem);
    free(w->frames);
    free(w->out.data);
    free(w->chunks);
    free(w->altstack);
    free(w);
}

/* per-launch preparation of a worker; false when out of memory (launch already failed) */
static bool worker_prepare(worker *w, launch *L) {
    w->L = L;
    w->out.len = 0;
    w->nchunks = 0;
    if (w->stack_size < L->stack_size) {
        for (uint32_t i = 0; i < w->nfree; i++)
            cpu_stack_free(w->free_stacks[i]);
        w->nfree = 0;
        w->stack_size = L->stack_size;
    }
    size_t need = L->smem_size ? L->smem_size : 16;
    if (w->smem_cap < need) {
        free(w->smem);
        size_t cap = (need + 4095) & ~(size_t)4095;
        w->smem = aligned_alloc(4096, cap);
        w->smem_cap = w->smem ? cap : 0;
        if (!w->smem) {
            cpu_launch_fail(L, CPU_ERR_OUT_OF_RESOURCES, cpu_fmt("kernel '%s': out of memory for shared memory", L->kd->name));
            return false;
        }
    }
    uint32_t t = 0;
    for (uint32_t z = 0; z < L->block[2]; z++)
        for (uint32_t y = 0; y < L->block[1]; y++)
            for (uint32_t x = 0; x < L->block[0]; x++, t++) {
                w->tids[t][0] = (uint16_t)x;
                w->tids[t][1] = (uint16_t)y;
                w->tids[t][2] = (uint16_t)z;
            }
    memset(&w->tmpl, 0, sizeof w->tmpl);
    for (int i = 0; i < 3; i++) {
        w->tmpl.ntid[i] = L->block[i];
        w->tmpl.nctaid[i] = L->grid[i];
    }
    w->tmpl.nwarpid = L->nwarps;
    w->tmpl.dynamic_smem_size = L->dyn;
    w->tmpl.smem = w->smem;
    w->tmpl.smem_size = L->smem_size;
    w->tmpl.yield_budget = L->budget;
    w->tmpl.rt = &p2n_cpu_rt_table;
    w->tmpl.launch_flags = L->launch_flags;
    w->tmpl.grid_workspace = L->cooperative ? L->grid_ws : NULL;
    for (uint32_t i = 0; i < L->nthreads; i++) {
        fiber *f = &w->fib[i];
        f->ctx = w->tmpl;
        f->ctx.tid[0] = w->tids[i][0];
        f->ctx.tid[1] = w->tids[i][1];
        f->ctx.tid[2] = w->tids[i][2];
        f->ctx.laneid = i & 31;
        f->ctx.warpid = i >> 5;
        f->ctx.priv = f;
    }
    return true;
}

static void worker_run_blocks(worker *w, launch *L);
static void worker_run(worker *w, launch *L) {
    bool alt = cpu_fault_scope_enter(w);
    worker_run_blocks(w, L);
    cpu_fault_scope_leave(w, alt);
}

static void worker_run_blocks(worker *w, launch *L) {
    if (!worker_prepare(w, L))
        return;
    /* blocks are taken in chunks of consecutive indices: each worker streams through contiguous data */
    for (;;) {
        if (atomic_load_explicit(&L->abort, memory_order_relaxed))
            break;
        uint64_t first = atomic_fetch_add_explicit(&L->next_block, L->chunk, memory_order_relaxed);
        if (first >= L->nblocks)
            break;
        uint64_t end = first + L->chunk < L->nblocks ? first + L->chunk : L->nblocks;
        for (uint64_t bid = first; bid < end; bid++) {
            if (bid > first && atomic_load_explicit(&L->abort, memory_order_relaxed))
                break;
            cpu_run_block(w, bid);
        }
    }
}

static struct {
    pthread_mutex_t launch_lock; /* one launch at a time */
    pthread_mutex_t m;
    pthread_cond_t cv_start, cv_done;
    unsigned n;          /* workers, including the launching thread */
    worker **w;
    uint64_t job;
    unsigned running;
    launch *L;
    bool shutdown;
    unsigned requested;  /* p2n_cpu_set_threads */
    unsigned in_use;
} g_pool = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER,
            0, NULL, 0, 0, NULL, false, 0, 0};

static void *pool_thread(void *arg) {
    worker *w = arg;
    pthread_mutex_lock(&g_pool.m);
    uint64_t seen = w->seen_job; /* the job counter when the thread was created */
    for (;;) {
        while (g_pool.job == seen && !g_pool.shutdown)
            pthread_cond_wait(&g_pool.cv_start, &g_pool.m);
        if (g_pool.shutdown)
            break;
        seen = g_pool.job;
        launch *L = g_pool.L;
        pthread_mutex_unlock(&g_pool.m);
        worker_run(w, L);
        pthread_mutex_lock(&g_pool.m);
        if (--g_pool.running == 0)
            pthread_cond_signal(&g_pool.cv_done);
    }
    pthread_mutex_unlock(&g_pool.m);
    return NULL;
}

static unsigned default_threads(void) {
    const char *e = getenv("P2N_CPU_THREADS");
    if (e && *e) {
        long v = strtol(e, NULL, 10);
        if (v >= 1 && v <= 1024)
            return (unsigned)v;
    }
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return (unsigned)CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1;
}

static void pool_stop(void) {
    if (!g_pool.w)
        return;
    pthread_mutex_lock(&g_pool.m);
    g_pool.shutdown = true;
    pthread_cond_broadcast(&g_pool.cv_start);
    pthread_mutex_unlock(&g_pool.m);
    for (unsigned i = 1; i < g_pool.n; i++)
        pthread_join(g_pool.w[i]->thread, NULL);
    for (unsigned i = 0; i < g_pool.n; i++)
        worker_delete(g_pool.w[i]);
    free(g_pool.w);
    g_pool.w = NULL;
    g_pool.n = 0;
    g_pool.shutdown = false;
}

/* with launch_lock held */
static bool pool_ensure(void) {
    unsigned want = g_pool.requested ? g_pool.requested : default_threads();
    if (g_pool.w && g_pool.n == want)
        return true;
    pool_stop();
    g_pool.w = calloc(want, sizeof *g_pool.w);
    if (!g_pool.w)
        return false;
    g_pool.n = 0;
    for (unsigned i = 0; i < want; i++) {
        worker *w = worker_new(i, MAX_THREADS);
        if (!w)
            break;
        g_pool.w[i] = w;
        g_pool.n = i + 1;
        if (i > 0) {
            w->seen_job = g_pool.job;
            pthread_attr_t attr;
            pthread_attr_init(&attr);
            pthread_attr_setstacksize(&attr, 1u << 20);
            int rc = pthread_create(&w->thread, &attr, pool_thread, w);
            pthread_attr_destroy(&attr);
            if (rc != 0) {
                worker_delete(w);
                g_pool.w[i] = NULL;
                g_pool.n = i;
                break;
            }
        }
    }
    return g_pool.n > 0;
}

void p2n_cpu_set_threads(unsigned n) {
    pthread_mutex_lock(&g_pool.launch_lock);
    g_pool.requested = n;
    pthread_mutex_unlock(&g_pool.launch_lock);
}

unsigned p2n_cpu_threads_in_use(void) { return g_pool.in_use; }

__attribute__((destructor)) static void pool_fini(void) {
    if (pthread_mutex_trylock(&g_pool.launch_lock) == 0) {
        pool_stop();
        pthread_mutex_unlock(&g_pool.launch_lock);
    }
}

static int chunk_cmp(const void *a, const void *b) {
    const chunk *x = *(const chunk *const *)a, *y = *(const chunk *const *)b;
    return x->block < y->block ? -1 : x->block > y->block;
}

/* the printf output of workers ws[0..n) (the pool's, then a cooperative launch's temporary ones), in block order */
static void flush_printf(const cpu_launch *cl, worker *const *ws, unsigned n) {
    size_t total = 0;
    for (unsigned i = 0; i < n; i++)
        total += ws[i]->nchunks;
    if (!total)
        return;
    chunk **all = malloc(total * sizeof *all);
    if (!all)
        return;
    size_t k = 0;
    for (unsigned i = 0; i < n; i++)
        for (size_t j = 0; j < ws[i]->nchunks; j++)
            all[k++] = &ws[i]->chunks[j];
    qsort(all, total, sizeof *all, chunk_cmp);
    for (size_t j = 0; j < total; j++) {
        /* find the worker owning the chunk */
        const char *text = NULL;
        for (unsigned i = 0; i < n && !text; i++) {
            worker *w = ws[i];
            if (all[j] >= w->chunks && all[j] < w->chunks + w->nchunks)
                text = w->out.data + all[j]->off;
        }
        if (!text)
            continue;
        if (cl->printf_sink)
            cl->printf_sink(cl->printf_user, text, all[j]->len);
        else
            fwrite(text, 1, all[j]->len, stdout);
    }
    if (!cl->printf_sink)
        fflush(stdout);
    free(all);
}

/* ---------------------------------- a cooperative launch's extra workers ---------------------------------- */

/* A cooperative grid has more blocks than the pool has workers: the rest run on temporary threads, one worker
 * each, so that every block runs at once (cpu_exec.h). They live for this launch only: such grids are bounded by
 * the occupancy limit and rare enough that keeping hundreds of idle threads is not worth it. */
typedef struct extra_workers {
    worker **w;
    unsigned n;     /* workers created (each with a running thread) */
    unsigned want;
} extra_workers;

static void *extra_thread(void *arg) {
    worker *w = arg;
    worker_run(w, w->L);
    return NULL;
}

/* starts `want` extra workers on L (they run blocks at once); a worker or thread that cannot be created fails
 * the launch (the blocks already running see the abort at their next yield) */
static void extra_start(extra_workers *x, launch *L, unsigned first_index, unsigned want) {
    x->w = want ? calloc(want, sizeof *x->w) : NULL;
    x->n = 0;
    x->want = want;
    if (want && !x->w) {
        cpu_launch_fail(L, CPU_ERR_OUT_OF_RESOURCES,
                        cpu_fmt("kernel '%s': cooperative launch: out of memory for %u more workers", L->kd->name,
                                want));
        return;
    }
    for (unsigned i = 0; i < want; i++) {
        /* sized for this launch's blocks only: such grids may have thousands of blocks on a large machine */
        worker *w = worker_new(first_index + i, (L->nthreads + 31) & ~31u);
        int rc = -1;
        if (w) {
            w->L = L;
            pthread_attr_t attr;
            pthread_attr_init(&attr);
            pthread_attr_setstacksize(&attr, 1u << 20);
            rc = pthread_create(&w->thread, &attr, extra_thread, w);
            pthread_attr_destroy(&attr);
        }
        if (rc != 0) {
            worker_delete(w);
            cpu_launch_fail(L, CPU_ERR_OUT_OF_RESOURCES,
                            cpu_fmt("kernel '%s': cooperative launch: cannot start a thread for each of its blocks "
                                    "(%u of %u extra threads started)", L->kd->name, i, want));
            return;
        }
        x->w[x->n++] = w;
    }
}

static void extra_join(extra_workers *x) {
    for (unsigned i = 0; i < x->n; i++)
        pthread_join(x->w[i]->thread, NULL);
}

static void extra_free(extra_workers *x) {
    for (unsigned i = 0; i < x->n; i++)
        worker_delete(x->w[i]);
    free(x->w);
    x->w = NULL;
    x->n = 0;
}

bool cpu_pool_run(launch *L, const cpu_launch *cl) {
    pthread_mutex_lock(&g_pool.launch_lock);
    if (!pool_ensure()) {
        pthread_mutex_unlock(&g_pool.launch_lock);
        return false;
    }
    unsigned nw = g_pool.n;
    if ((uint64_t)nw > L->nblocks)
        nw = (unsigned)L->nblocks;
    /* a cooperative grid: a worker per block (the driver bounds the grid), one block at a time */
    unsigned extra = L->cooperative && L->nblocks > nw ? (unsigned)(L->nblocks - nw) : 0;
    g_pool.in_use = nw + extra;
    L->chunk = L->nblocks / ((uint64_t)nw * 16);
    L->chunk = L->cooperative || L->chunk < 1 ? 1 : L->chunk > 64 ? 64 : L->chunk;
    /* workers that take no part still must not print stale output */
    for (unsigned i = nw; i < g_pool.n; i++)
        g_pool.w[i]->nchunks = 0, g_pool.w[i]->out.len = 0;
    if (nw > 1) {
        pthread_mutex_lock(&g_pool.m);
        g_pool.L = L;
        g_pool.running = g_pool.n - 1;
        g_pool.job++;
        pthread_cond_broadcast(&g_pool.cv_start);
        pthread_mutex_unlock(&g_pool.m);
    }
    cpu_faults_install();
    extra_workers x;
    extra_start(&x, L, g_pool.n, extra);
    worker_run(g_pool.w[0], L);
    if (nw > 1) {
        pthread_mutex_lock(&g_pool.m);
        while (g_pool.running)
            pthread_cond_wait(&g_pool.cv_done, &g_pool.m);
        pthread_mutex_unlock(&g_pool.m);
    }
    extra_join(&x);
    cpu_faults_remove();
    worker **ws = x.n ? malloc((g_pool.n + x.n) * sizeof *ws) : NULL;
    if (ws) { /* one block order over the pool's and the extra workers' output */
        memcpy(ws, g_pool.w, g_pool.n * sizeof *ws);
        memcpy(ws + g_pool.n, x.w, x.n * sizeof *ws);
        flush_printf(cl, ws, g_pool.n + x.n);
        free(ws);
    } else {
        flush_printf(cl, g_pool.w, g_pool.n);
        flush_printf(cl, x.w, x.n);
    }
    extra_free(&x);
    for (unsigned i = 0; i < g_pool.n; i++)
        g_pool.w[i]->L = NULL;
    pthread_mutex_unlock(&g_pool.launch_lock);
    return true;
}
