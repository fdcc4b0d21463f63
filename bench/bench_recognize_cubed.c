/* bench/bench_recognize_cubed.c: finding CUBED's tiles on simulated
 * frames (vision/cubed.h).
 *
 *   bench_recognize_cubed [MATCHES] [WIDTH HEIGHT] [--moves M] [--seed N] [-v]
 *
 * Match k (seed SEED0 + k, design k modulo the 24, the camera set-ups in
 * the users' mix) is played for M events (default 40) at one frame a
 * second; every still frame's mat is located, its tiles' plane rectified
 * and the lattice fitted as the reader will.  Nothing here is learned or
 * tuned on these seeds.  Prints per design kind and in all: still frames,
 * the share whose lattice is right (found, the turn within 2 degrees
 * modulo 60, every tile's centre within 8 mm of a candidate cell), the
 * candidates a tile, and CPU milliseconds a frame (the learned stage that
 * reads the candidates is not built yet).  -v names every miss. */
#define _XOPEN_SOURCE 700
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "calib.h"
#include "cubed.h"
#include "sim.h"

#define SEED0 930000
#define TURN_DEG 2.0
#define POS_MM 8.0

static double cpu_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
    int matches = 12, width = 1280, height = 960, moves = 40, npos = 0;
    unsigned long long seed0 = SEED0;
    bool verbose = false;
    long frames = 0, right = 0, tiles = 0, cands = 0, strong = 0, missed_tiles = 0, not_found = 0,
         turn_off = 0;
    double ms = 0;
    vis_aruco *det = NULL;
    base_err err;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--moves") == 0 && i + 1 < argc)
            moves = atoi(argv[++i]);
        else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
            seed0 = strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "-v") == 0)
            verbose = true;
        else if (argv[i][0] != '-' && npos < 3) {
            int v = atoi(argv[i]);
            *(npos == 0 ? &matches : npos == 1 ? &width : &height) = v;
            npos++;
        } else {
            fprintf(stderr, "usage: bench_recognize_cubed [MATCHES] [WIDTH HEIGHT] [--moves M] "
                            "[--seed N] [-v]\n");
            return 2;
        }
    }
    if (matches < 1 || width < 64 || height < 48 || vis_aruco_new(VIS_ARUCO_4X4_50, &det, &err))
        return 2;
    printf("cubed tiles: %d matches of %d events at %dx%d\n", matches, moves, width, height);
    for (int m = 0; m < matches; m++) {
        unsigned long long seed = seed0 + (unsigned long long)m;
        sim_options o;
        sim_stream *s = NULL;
        vis_image *img = NULL;
        char *tj = NULL;
        sim_options_default(&o);
        o.width = width;
        o.height = height;
        o.fps = 1;
        o.max_moves = moves;
        o.design = m % sim_designs("cubed");
        o.setup = SIM_SETUP_MIXED;
        if (sim_stream_new("cubed", seed, &o, &s, &err) != 0) {
            fprintf(stderr, "bench_recognize_cubed: %s\n", err.msg);
            return 1;
        }
        while (sim_stream_next(s, &img, &tj, &err) == 0) {
            cJSON *t = cJSON_Parse(tj);
            const cJSON *pl = cJSON_GetObjectItem(t, "placement"), *it;
            if (cJSON_IsTrue(cJSON_GetObjectItem(t, "stable")) && cJSON_GetArraySize(pl) > 0) {
                cal_mat_fit fit;
                vis_image *view = NULL;
                vis_view vw;
                vis_cb_layout l;
                double t0 = cpu_ms(), rot, dt;
                int miss = 0;
                memset(&l, 0, sizeof l);
                memset(&vw, 0, sizeof vw);
                vw.px_per_mm = 1.5;
                vw.mat_w = vw.mat_h = 500;
                vw.marker_mm = 40;
                if (cal_mat_locate(det, img, cal_mat_default(), NULL, &fit, &err) == 0 &&
                    cal_rectify(img, &fit, cal_mat_default(), NULL, VIS_CB_TOP_Z_MM, 1.5, 0,
                                &view, &err) == 0)
                    vis_cubed_find(view, &vw, 0, &l, &err);
                vis_image_free(view);
                ms += cpu_ms() - t0;
                frames++;
                rot = cJSON_GetNumberValue(
                    cJSON_GetObjectItem(cJSON_GetObjectItem(t, "board"), "rotation_deg"));
                dt = fmod(l.angle_deg - rot + 3600 + 30, 60) - 30;
                cJSON_ArrayForEach(it, pl)
                {
                    const cJSON *mm = cJSON_GetObjectItem(it, "mm");
                    double x = cJSON_GetArrayItem(mm, 0)->valuedouble,
                           y = cJSON_GetArrayItem(mm, 1)->valuedouble, near = INFINITY;
                    for (int i = 0; i < l.ntiles; i++)
                        near = fmin(near, hypot(l.tiles[i].x_mm - x, l.tiles[i].y_mm - y));
                    miss += near > POS_MM;
                    tiles++;
                }
                missed_tiles += miss;
                cands += l.ntiles;
                strong += l.nstrong;
                not_found += !l.found;
                turn_off += l.found && fabs(dt) > TURN_DEG;
                if (l.found && fabs(dt) <= TURN_DEG && miss == 0)
                    right++;
                else if (verbose)
                    printf("  seed %llu design %d frame %d: %s, turn %.1f off, %d of %d tiles "
                           "missed, margin %.2f\n",
                           seed, o.design,
                           (int)cJSON_GetNumberValue(cJSON_GetObjectItem(t, "frame")),
                           l.found ? "found" : "not found", dt, miss, cJSON_GetArraySize(pl),
                           l.coset_margin);
            }
            cJSON_Delete(t);
            vis_image_free(img);
            free(tj);
        }
        sim_stream_free(s);
        fprintf(stderr, "match %d (design %d): %ld still frames so far\n", m + 1, o.design,
                frames);
    }
    printf("still frames with tiles: %ld\n", frames);
    printf("lattice right (found, turn within %.0f deg mod 60, every tile within %.0f mm of a "
           "candidate): %.1f %%\n",
           TURN_DEG, POS_MM, frames ? 100.0 * right / frames : 0);
    printf("not found: %.1f %%; turned wrong: %.1f %%; tiles missed: %.2f %% of %ld\n",
           frames ? 100.0 * not_found / frames : 0, frames ? 100.0 * turn_off / frames : 0,
           tiles ? 100.0 * missed_tiles / tiles : 0, tiles);
    printf("candidates a tile: %.2f (standing out from the mat: %.2f); CPU %.1f ms a frame "
           "(mat, view, lattice; target for the whole reading 20 ms)\n",
           tiles ? (double)cands / tiles : 0, tiles ? (double)strong / tiles : 0,
           frames ? ms / frames : 0);
    vis_aruco_free(det);
    return 0;
}
