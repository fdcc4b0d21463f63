/* bench/enrol.h: what the recognition benchmarks share about enrolling
 * a set (FORMATS.md 7) from the simulator's photos of it, as `tablecam
 * calibrate pieces` does, and reading with it. */
#ifndef TABLECAM_BENCH_ENROL_H
#define TABLECAM_BENCH_ENROL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "referee.h"
#include "sim.h"

/* the enrolment photos' seed: BENCH_ENROL_SEED0 + 100 design (one camera
 * and light for a set's photos); a photo the reader refuses (a piece not
 * found) is taken again, as `calibrate pieces` asks a user to, with the
 * camera moved (seed + take), up to BENCH_ENROL_TAKES times */
#define BENCH_ENROL_SEED0 700000
#define BENCH_ENROL_TAKES 3

/* Enrols design d's set of game with model from the simulator's photos, as
 * `calibrate pieces` does; *json receives the finished set. */
static inline int bench_enrol_design(const char *game, const char *model, int d, int width,
                                     int height, uint64_t seed0, int setup, int takes, char **json,
                                     int *retakes, base_err *e)
{
    ref_reader_config cfg = {game, NULL, NULL, 0};
    ref_reader *rd = NULL;
    vis_pieceset *set = NULL;
    int rc = ref_reader_new(&cfg, &rd, e);
    if (rc == 0)
        rc = ref_reader_use_model(rd, model, e);
    if (rc == 0)
        rc = ref_reader_enrol_begin(rd, &set, e);
    for (int k = 0, take = 0; rc == 0 && k < ref_reader_enrol_images(game); k++, take = 0) {
    again:;
        sim_options o;
        sim_stream *s = NULL;
        vis_image *img = NULL;
        char *tj = NULL;
        sim_options_default(&o);
        o.width = width;
        o.height = height;
        o.design = d;
        o.setup = setup;
        o.enrol = k;
        o.max_frames = 1;
        rc = sim_stream_new(game, seed0 + (uint64_t)take, &o, &s, e);
        if (rc == 0)
            rc = sim_stream_next(s, &img, &tj, e);
        if (rc == 0 && (rc = ref_reader_enrol(rd, img, k, set, e)) != 0)
            base_err_prefix(e, "photo %d (%s): ", k + 1, ref_reader_enrol_what(game, k));
        vis_image_free(img);
        free(tj);
        sim_stream_free(s);
        if ((rc == BASE_ENOTFOUND || rc == BASE_EINVAL) && ++take < takes) {
            printf("design %d: %s; taken again\n", d, e->msg);
            (*retakes)++;
            rc = 0;
            goto again;
        }
    }
    if (rc == 0)
        rc = vis_pieceset_finish(set, e);
    if (rc == 0) {
        rc = vis_pieceset_to_json(set, game, json, e);
        if (takes > 1) /* (one a design: say so; one a stream would be too many lines) */
            printf("design %d enrolled: weight %.3g for %s, %.3g for %s\n", d,
                   vis_pieceset_weight(set, 0), vis_pieceset_head(set, 0),
                   vis_pieceset_weight(set, 1), vis_pieceset_head(set, 1));
    }
    vis_pieceset_free(set);
    ref_reader_free(rd);
    return rc;
}

/* A fresh reader with model and, when json is not NULL, that set. */
static inline int bench_new_reader(const char *game, const char *model, const char *json,
                                   ref_reader **out, base_err *e)
{
    ref_reader_config cfg = {game, NULL, NULL, 0};
    vis_pieceset *set = NULL;
    int rc = ref_reader_new(&cfg, out, e);
    if (rc == 0)
        rc = ref_reader_use_model(*out, model, e);
    if (rc == 0 && json && (rc = vis_pieceset_from_json(json, &set, NULL, 0, e)) == 0 &&
        (rc = ref_reader_use_pieces(*out, set, e)) != 0)
        vis_pieceset_free(set);
    return rc;
}

#endif
