/* models/patches.h: what the programs that cut training patches share
 * (qwirkle_patches.c, cards_patches.c, cube2_patches.c, cubed_patches.c):
 * the jitter's random stream, a label byte, their --designs / --seeds
 * spans and --skip lists.  Each program has one
 * stream (a static in each that includes this), reseeded per design and
 * seed, so that the patches follow from the seeds alone. */
#ifndef TABLECAM_MODELS_PATCHES_H
#define TABLECAM_MODELS_PATCHES_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long long rng_state = 88172645463325252ull;

/* xorshift64: a uniform double in [0, 1). */
static double unit(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) / 9007199254740992.0;
}

static double range(double a, double b) { return a + (b - a) * unit(); }

/* v rounded into a label byte, 0..255. */
static unsigned char byte(double v) { return (unsigned char)(v > 255 ? 255 : v < 0 ? 0 : v + 0.5); }

/* "A-B" or "A" into lo..hi; -1 when s is neither. */
static int parse_span(const char *s, int *lo, int *hi)
{
    char tail;
    if (sscanf(s, "%d-%d%c", lo, hi, &tail) == 2 && *lo <= *hi)
        return 0;
    if (sscanf(s, "%d%c", lo, &tail) == 1) {
        *hi = *lo;
        return 0;
    }
    return -1;
}

/* Whether design d is in list ("3,10,17"; NULL: none).  Needs
 * _POSIX_C_SOURCE for strtok_r, as its users define. */
static inline bool skipped(const char *list, int d)
{
    char buf[256], *tok, *save = NULL;
    if (!list)
        return false;
    snprintf(buf, sizeof buf, "%s", list);
    for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
        if (atoi(tok) == d)
            return true;
    return false;
}

#endif
