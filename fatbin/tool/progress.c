/* progress.c — what `rewrite` shows while it works.
 *
 * On a terminal: one line updated in place. Otherwise (CI logs, operators' scripts), where carriage returns
 * make a mess: a full line every P2N_PROGRESS_INTERVAL seconds (default 5) from a ticker thread, so a long
 * compile still shows a heartbeat. P2N_PROGRESS_INTERVAL=0 prints a line after every file instead (what the
 * tests use: the counts are checked, never the timing). -q shows nothing. */
#include "progress.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void fmt_dur(double s, char *b, size_t n) {
    long t = (long)(s + 0.5);
    if (t >= 3600) snprintf(b, n, "%ldh%02ldm", t / 3600, t / 60 % 60);
    else if (t >= 60) snprintf(b, n, "%ldm%02lds", t / 60, t % 60);
    else snprintf(b, n, "%lds", t);
}

/* caller holds p->mu */
static void print_line(progress *p) {
    double el = now_s() - p->t0;
    char e[32], eta[48] = "";
    fmt_dur(el, e, sizeof e);
    /* by bytes: one large library takes longer than many small executables */
    if (p->bytes_done && p->bytes_total > p->bytes_done) {
        char d[32];
        fmt_dur(el * (double)(p->bytes_total - p->bytes_done) / (double)p->bytes_done, d, sizeof d);
        snprintf(eta, sizeof eta, ", ETA %s", d);
    }
    if (p->mode == PROGRESS_TTY)
        fprintf(stderr, "\r\033[K[%zu/%zu files, %zu modules] %s", p->files_done, p->files_total, p->modules_done,
                p->current ? p->current : "");
    else
        fprintf(stderr, "rewrite: %zu/%zu files, %zu modules, %s elapsed%s\n", p->files_done, p->files_total,
                p->modules_done, e, eta);
    fflush(stderr);
}

static void *ticker(void *arg) {
    progress *p = arg;
    pthread_mutex_lock(&p->mu);
    while (!p->stop) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        double at = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9 + p->interval;
        ts.tv_sec = (time_t)at;
        ts.tv_nsec = (long)((at - (double)ts.tv_sec) * 1e9);
        if (pthread_cond_timedwait(&p->cv, &p->mu, &ts) != 0 && !p->stop) print_line(p);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

void progress_start(progress *p, size_t files_total, uint64_t bytes_total, int quiet) {
    memset(p, 0, sizeof *p);
    p->files_total = files_total;
    p->bytes_total = bytes_total;
    p->t0 = now_s();
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    const char *iv = getenv("P2N_PROGRESS_INTERVAL");
    p->interval = iv && *iv ? strtod(iv, NULL) : 5.0;
    if (p->interval < 0) p->interval = 0;
    p->mode = quiet ? PROGRESS_OFF : isatty(2) ? PROGRESS_TTY : PROGRESS_LINES;
    if (p->mode == PROGRESS_LINES && p->interval > 0)
        p->has_thread = pthread_create(&p->thread, NULL, ticker, p) == 0;
}

void progress_file_start(progress *p, const char *name) {
    pthread_mutex_lock(&p->mu);
    p->current = name;
    if (p->mode == PROGRESS_TTY) print_line(p);
    pthread_mutex_unlock(&p->mu);
}

void progress_module_done(void *pv, size_t done, size_t total) {
    (void)done;
    (void)total;
    progress *p = pv;
    pthread_mutex_lock(&p->mu);
    p->modules_done++;
    if (p->mode == PROGRESS_TTY) print_line(p);
    pthread_mutex_unlock(&p->mu);
}

void progress_file_done(progress *p, uint64_t bytes) {
    pthread_mutex_lock(&p->mu);
    p->files_done++;
    p->bytes_done += bytes;
    p->current = NULL;
    if (p->mode == PROGRESS_TTY || (p->mode == PROGRESS_LINES && p->interval == 0)) print_line(p);
    pthread_mutex_unlock(&p->mu);
}

void progress_finish(progress *p) {
    pthread_mutex_lock(&p->mu);
    p->stop = 1;
    pthread_cond_signal(&p->cv);
    if (p->mode == PROGRESS_TTY && p->files_total) fputc('\n', stderr);
    pthread_mutex_unlock(&p->mu);
    if (p->has_thread) pthread_join(p->thread, NULL);
    pthread_cond_destroy(&p->cv);
    pthread_mutex_destroy(&p->mu);
}
