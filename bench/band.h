/* bench/band.h: whole-board exactness split by one figure of each frame
 * (the camera's px/mm at the board, the blur the reader fitted), shared by
 * the recognition benchmarks to show where the misses are. */
#ifndef TABLECAM_BENCH_BAND_H
#define TABLECAM_BENCH_BAND_H

#include <stdbool.h>
#include <stdio.h>

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

#endif
