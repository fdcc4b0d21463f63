/* base: error codes, the logger, the clock and the seeded generator. */
#define _POSIX_C_SOURCE 200809L
#include "base.h"

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

const char *base_strerror(int code)
{
    switch (code) {
#define BASE__CASE(name, value, msg) \
    case value:                      \
        return msg;
        BASE_ERRORS(BASE__CASE)
#undef BASE__CASE
    }
    return "unknown error";
}

int base_err_set(base_err *err, int code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        err->code = code;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return code;
}

void base_err_prefix(base_err *err, const char *fmt, ...)
{
    char head[256];
    size_t hn, on;
    va_list ap;
    if (!err)
        return;
    va_start(ap, fmt);
    vsnprintf(head, sizeof head, fmt, ap);
    va_end(ap);
    hn = strlen(head);
    on = strlen(err->msg);
    if (hn + on + 1 > sizeof err->msg)
        on = sizeof err->msg - hn - 1; /* keep the head, cut the old tail */
    memmove(err->msg + hn, err->msg, on);
    memcpy(err->msg, head, hn);
    err->msg[hn + on] = '\0';
}

void base_err_clear(base_err *err)
{
    if (err) {
        err->code = BASE_OK;
        err->msg[0] = '\0';
    }
}

static atomic_int base__level = BASE_LOG_WARN;

void base_log_set_level(int level)
{
    if (level < BASE_LOG_DEBUG)
        level = BASE_LOG_DEBUG;
    if (level > BASE_LOG_OFF)
        level = BASE_LOG_OFF;
    atomic_store(&base__level, level);
}

int base_log_level(void) { return atomic_load(&base__level); }

int base_log_parse_level(const char *name)
{
    static const char *const names[] = {"debug", "info", "warn", "error", "off"};
    for (int i = 0; i < 5; i++)
        if (name && strcmp(name, names[i]) == 0)
            return i;
    return -1;
}

void base_log(int level, const char *module, const char *fmt, ...)
{
    static const char *const tags[] = {"debug", "info", "warn", "error"};
    char line[1024];
    int n;
    va_list ap;
    if (level < atomic_load(&base__level) || level >= BASE_LOG_OFF)
        return;
    n = snprintf(line, sizeof line, "tablecam %s %s: ", tags[level], module ? module : "-");
    va_start(ap, fmt);
    vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    va_end(ap);
    /* One fputs per line so that lines from threads do not interleave. */
    strncat(line, "\n", sizeof line - strlen(line) - 1);
    fputs(line, stderr);
}

double base_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

uint64_t base_rng_next(base_rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

int base_rng_below(base_rng *r, int n)
{
    return (int)(base_rng_next(r) % (uint64_t)n);
}

double base_rng_unit(base_rng *r)
{
    return (double)(base_rng_next(r) >> 11) * 0x1.0p-53;
}

double base_cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
