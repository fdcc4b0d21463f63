/* base: the few things every tablecam module shares.
 *
 * Error codes: every function that can fail returns an int, 0 for success
 * and one of the negative BASE_E* codes below for failure; base_strerror()
 * names a code.  Where a caller needs more than the code (which file, which
 * line, what was expected) the function also takes a base_err, a small
 * caller-owned buffer that receives a sentence.
 *
 * Logger: levelled lines on stderr.  Library code logs only at debug level;
 * talking to the user is ui/'s job.
 *
 * Random numbers: base_rng, the one seeded generator (see below). */
#ifndef TABLECAM_BASE_H
#define TABLECAM_BASE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TABLECAM_VERSION "0.1.0"

/* X(name, value, message): the one list of error codes. */
#define BASE_ERRORS(X)                                                  \
    X(BASE_OK, 0, "ok")                                                 \
    X(BASE_ENOMEM, -1, "out of memory")                                 \
    X(BASE_EINVAL, -2, "invalid argument")                              \
    X(BASE_EIO, -3, "input/output error")                               \
    X(BASE_EPARSE, -4, "malformed input")                               \
    X(BASE_ENOTFOUND, -5, "not found")                                  \
    X(BASE_EUNSUPPORTED, -6, "not supported")                           \
    X(BASE_ERANGE, -7, "value out of range")                            \
    X(BASE_EDB, -8, "database error")                                   \
    X(BASE_EVERSION, -9, "incompatible version")                        \
    X(BASE_EBUSY, -10, "resource busy")                                 \
    X(BASE_ECV, -11, "image processing error")                          \
    X(BASE_ENODEV, -12, "no such device")                               \
    X(BASE_ESTATE, -13, "operation not valid in this state")            \
    X(BASE_ETIMEOUT, -14, "timed out")                                  \
    X(BASE_EEOF, -15, "end of stream")

enum base_code {
#define BASE__ENUM(name, value, msg) name = value,
    BASE_ERRORS(BASE__ENUM)
#undef BASE__ENUM
};

/* Name of an error code ("malformed input"); never NULL. */
const char *base_strerror(int code);

/* A caller-owned error detail.  Functions that take a `base_err *` accept
 * NULL when the caller only wants the code. */
typedef struct base_err {
    int code;
    char msg[512];
} base_err;

/* Records code and a printf-style sentence in err (if not NULL) and
 * returns code, so that `return base_err_set(err, BASE_EPARSE, ...)` reads
 * naturally. */
int base_err_set(base_err *err, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Prefixes the message already in err with a printf-style context
 * ("line 3: " + "unknown colour 'pink'").  No-op when err is NULL. */
void base_err_prefix(base_err *err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Clears err to BASE_OK with an empty message. */
void base_err_clear(base_err *err);

/* ---- logger ---- */

enum base_log_level {
    BASE_LOG_DEBUG = 0,
    BASE_LOG_INFO = 1,
    BASE_LOG_WARN = 2,
    BASE_LOG_ERROR = 3,
    BASE_LOG_OFF = 4
};

/* The process-wide threshold.  It is the one piece of process state in
 * tablecam: set once by ui/ at start (from --log or TABLECAM_LOG), read by
 * everyone; it is atomic, so it is safe from any thread. */
void base_log_set_level(int level);
int base_log_level(void);

/* Parses "debug", "info", "warn", "error" or "off"; -1 when unknown. */
int base_log_parse_level(const char *name);

/* Writes "tablecam LEVEL module: message" on stderr when level is at or
 * above the threshold. */
void base_log(int level, const char *module, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#define BASE_DEBUG(mod, ...) base_log(BASE_LOG_DEBUG, mod, __VA_ARGS__)
#define BASE_INFO(mod, ...) base_log(BASE_LOG_INFO, mod, __VA_ARGS__)
#define BASE_WARN(mod, ...) base_log(BASE_LOG_WARN, mod, __VA_ARGS__)
#define BASE_ERROR(mod, ...) base_log(BASE_LOG_ERROR, mod, __VA_ARGS__)

/* Monotonic clock in seconds, for timing and for stillness windows. */
double base_now(void);

/* CPU time of the calling thread in seconds: what benchmarks report, so
 * that a busy machine does not inflate the figures. */
double base_cpu_now(void);

/* ---- random numbers ---- */

/* The project's one seeded, reproducible generator: splitmix64 (Steele,
 * Lea and Flood), whose whole state is the caller's 64-bit word, so a seed
 * gives the same numbers on every machine and libc and there is no global
 * state (no rand(), no clock).  Seed it by value: `base_rng r = {seed};`.
 * For tests, benches and simulations, not for anything secret. */
typedef struct base_rng {
    uint64_t s;
} base_rng;

/* The next 64 random bits. */
uint64_t base_rng_next(base_rng *r);

/* A number in 0..n-1 (n > 0): base_rng_next() modulo n, so the same seed
 * gives the same picks as the copies it replaced. */
int base_rng_below(base_rng *r, int n);

/* A double in [0, 1), from the top 53 bits of one base_rng_next(). */
double base_rng_unit(base_rng *r);

#ifdef __cplusplus
}
#endif

#endif
