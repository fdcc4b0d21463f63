/* bench/band.h: what the recognition benchmarks share: whole-board
 * exactness split by one figure of each frame (the camera's px/mm at the
 * board, the blur the reader fitted) or by the referee's camera advice, to
 * show where the misses are, and their FRAMES [WIDTH HEIGHT] arguments. */
#ifndef TABLECAM_BENCH_BAND_H
#define TABLECAM_BENCH_BAND_H

#include <stdbool.h>
#include <stdio.h>

#include "referee.h"

/* Whole-board exactness split by one figure of the frame, to show where
 * the misses are: edge[i] bounds the bands, a value <= 0 (not measured:
 * no cube in view) has a row of its own. */
typedef struct band {
    const char *unit;
    int nedge;
    double edge[8];
    int n[10], ok[10];
} band;

static inline void band_add(band *b, double v, bool ok)
{
    int i = 0;
    if (v <= 0) {
        i = b->nedge + 1;
    } else {
        while (i < b->nedge && v >= b->edge[i])
            i++;
    }
    b->n[i]++;
    b->ok[i] += ok;
}

static inline void band_print(const char *title, const band *b)
{
    printf("%s\n", title);
    for (int i = 0; i <= b->nedge + 1; i++) {
        char name[40];
        if (!b->n[i])
            continue;
        if (i == b->nedge + 1)
            snprintf(name, sizeof name, "not measured");
        else if (i == 0)
            snprintf(name, sizeof name, "< %.2f %s", b->edge[0], b->unit);
        else if (i == b->nedge)
            snprintf(name, sizeof name, ">= %.2f %s", b->edge[i - 1], b->unit);
        else
            snprintf(name, sizeof name, "%.2f-%.2f %s", b->edge[i - 1], b->edge[i], b->unit);
        printf("  %-18s %4d of %4d  %6.2f%%\n", name, b->ok[i], b->n[i], 100.0 * b->ok[i] / b->n[i]);
    }
}

/* Whole-board exactness split by whether the referee would ask for a
 * better camera on the frame's own figures (ref_camera_advice, the bound
 * `watch` prints its advice at): [0] frames it reads as they are, [1]
 * frames it would advise on.  What the product promises is [0]; the
 * target of the issues counts both. */
typedef struct advised {
    int n[2], ok[2];
} advised;

static inline void advised_add(advised *a, const char *game, const ref_reading *rd, bool ok)
{
    char why[REF_ADVICE_MAX];
    int i = ref_camera_advice(game, ref_reading_seen(rd), why, sizeof why) ? 1 : 0;
    a->n[i]++;
    a->ok[i] += ok;
}

static inline void advised_print(const advised *a)
{
    static const char *name[2] = {"no camera advice", "camera advised"};
    printf("whole board exact by the referee's camera advice (the frame's own figures)\n");
    for (int i = 0; i < 2; i++)
        if (a->n[i])
            printf("  %-18s %4d of %4d  %6.2f%%\n", name[i], a->ok[i], a->n[i],
                   100.0 * a->ok[i] / a->n[i]);
}

/* The positional arguments given, pos[0..npos): FRAMES, WIDTH HEIGHT, or
 * FRAMES WIDTH HEIGHT; what is not given keeps its default. */
static inline void bench_sizes(const int *pos, int npos, int *frames, int *width, int *height)
{
    if (npos == 1 || npos == 3)
        *frames = pos[0];
    if (npos >= 2) {
        *width = pos[npos - 2];
        *height = pos[npos - 1];
    }
}

#endif
