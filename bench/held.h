/* bench/held.h: what the recognition benchmarks share about a model's
 * manifest: the designs it was not trained on, which they measure. */
#ifndef TABLECAM_BENCH_HELD_H
#define TABLECAM_BENCH_HELD_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "calib.h"
#include "sim.h"

/* The designs of game's set that the model at path (a .onnx file) was not
 * trained on (its manifest's trained_on.designs against every design sim
 * can draw, below max): *n of them into out; false with err set when the
 * manifest cannot be read. */
static inline bool bench_held_designs(const char *game, const char *path, int max, int *out,
                                      int *n, base_err *err)
{
    char json[1024], *text = NULL;
    cJSON *m, *tr;
    bool *seen = calloc((size_t)max, sizeof *seen);
    if (!seen) {
        base_err_set(err, BASE_ENOMEM, "out of memory");
        return false;
    }
    snprintf(json, sizeof json, "%.*s.json", (int)strlen(path) - 5, path);
    if (cal_profile_read(json, &text, err) != 0) {
        free(seen);
        return false;
    }
    m = cJSON_Parse(text);
    free(text);
    tr = cJSON_GetObjectItem(cJSON_GetObjectItem(m, "trained_on"), "designs");
    if (!cJSON_IsArray(tr)) {
        cJSON_Delete(m);
        free(seen);
        base_err_set(err, BASE_EPARSE, "%s: no trained_on.designs", json);
        return false;
    }
    for (const cJSON *d = tr->child; d; d = d->next)
        if (cJSON_IsNumber(d) && d->valueint >= 0 && d->valueint < max)
            seen[d->valueint] = true;
    cJSON_Delete(m);
    *n = 0;
    for (int d = 0; d < sim_designs(game) && d < max; d++)
        if (!seen[d])
            out[(*n)++] = d;
    free(seen);
    return true;
}

#endif
