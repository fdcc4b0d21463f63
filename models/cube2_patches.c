/* models/cube2_patches.c: training patches of cube² squares from the
 * simulator, cut as the reader cuts them.
 *
 *   build/models/cube2_patches --out DIR --designs 0-23 [--skip 3,10,17]
 *       --seeds 1-3 [--width W --height H] [--moves M] [--empty P]
 *
 * For each design and seed, renders a match (the setup and M - 24 moves,
 * one frame a second) and on every frame finds the mat as the reader does
 * (cal_mat_locate, no lens profile), fits the board with the reader's own
 * vis_cube2_find on the view of the board's plane, and cuts every square's
 * patch with vis_cube2_patch from the frame through the plane of the
 * pieces' tops: the patches the reader will classify, with its own
 * errors of place.  A frame whose board fit is not the truth's (more than
 * half a square or two degrees off) gives no patches and is counted.
 * Empty squares are kept with probability P (default 0.35): they are
 * most squares of the setup.  Labels come from the truth: the colour head
 * (0 empty, 1-6 red..purple, 7 covered: a hand hides the square), the
 * shape (0 cube, 1 cylinder, 255 none).
 *
 * Writes DIR/patches.bin (records of 8 label bytes - colour, shape,
 * design, the camera's pixels per mm x 40, the frame's camera shake in px
 * x 10, 1 when the camera has the good set-up, 1 when the frame is
 * stable, a zero - then S*S*3 bytes BGR, row by row) and DIR/patches.json
 * (sizes, label names, counts, what made them). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "calib.h"
#include "cube2.h"
#include "patches.h"
#include "rules.h"
#include "sim.h"

#define FIND_PPM 1.5 /* the reader's view for the board fit (referee/reader.c) */

static void usage(void)
{
    fprintf(stderr, "usage: cube2_patches --out DIR --designs A-B [--skip D,D,...] --seeds A-B "
                    "[--width W --height H] [--moves M] [--empty P] [--size S] [--verbose 1]\n");
}

/* The truth's label of square (c, r): colour head value and shape. */
static void label(const cJSON *t, int c, int r, unsigned char *color, unsigned char *shape)
{
    const cJSON *ps = cJSON_GetObjectItem(cJSON_GetObjectItem(t, "position"), "pieces"), *it;
    const cJSON *cov = cJSON_GetObjectItem(cJSON_GetObjectItem(t, "board"), "covered");
    *color = 0;
    *shape = 255;
    cJSON_ArrayForEach(it, cov) if (cJSON_GetArrayItem(it, 0)->valueint == c &&
                                    cJSON_GetArrayItem(it, 1)->valueint == r)
    {
        *color = 7;
        return;
    }
    cJSON_ArrayForEach(it, ps)
    {
        rules_piece p;
        if (rules_piece_from_json("cube2", it, &p, NULL) == 0 && p.x == c && p.y == r) {
            *color = (unsigned char)(1 + p.a);
            *shape = p.b;
        }
    }
}

/* Whether the fitted board is the truth's: square (0, 0) within 15 mm,
 * the turn within 2 degrees. */
static bool board_right(const cJSON *t, const vis_c2_board *b)
{
    const cJSON *bo = cJSON_GetObjectItem(t, "board");
    const cJSON *org = cJSON_GetObjectItem(bo, "origin_mm");
    double x, y, tx = cJSON_GetArrayItem(org, 0)->valuedouble,
                 ty = cJSON_GetArrayItem(org, 1)->valuedouble;
    double rot = cJSON_GetNumberValue(cJSON_GetObjectItem(bo, "rotation_deg"));
    if (!b->found)
        return false;
    vis_cube2_square_mm(b, 0, 0, &x, &y);
    return hypot(x - tx, y - ty) < 15 && fabs(b->angle_deg - rot) < 2;
}

int main(int argc, char **argv)
{
    const char *out = NULL, *skip = NULL;
    int d0 = 0, d1 = 0, s0 = 1, s1 = 1, w = 960, h = 720, moves = 34, size = 32;
    double empty_keep = 0.35;
    int verbose = 0;
    long count = 0, frames = 0, missed = 0, nomat = 0, lost = 0;
    char path[4096];
    FILE *bin;
    vis_aruco *det = NULL;
    vis_cube2 *c2 = NULL;
    base_err e;

    (void)range; /* patches.h's jitter: the reader's own fit errs enough */
    for (int i = 1; i < argc; i += 2) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int bad = !v;
        if (!bad && strcmp(a, "--out") == 0)
            out = v;
        else if (!bad && strcmp(a, "--designs") == 0)
            bad = parse_span(v, &d0, &d1);
        else if (!bad && strcmp(a, "--skip") == 0)
            skip = v;
        else if (!bad && strcmp(a, "--seeds") == 0)
            bad = parse_span(v, &s0, &s1);
        else if (!bad && strcmp(a, "--width") == 0)
            w = atoi(v);
        else if (!bad && strcmp(a, "--height") == 0)
            h = atoi(v);
        else if (!bad && strcmp(a, "--moves") == 0)
            moves = atoi(v);
        else if (!bad && strcmp(a, "--empty") == 0)
            empty_keep = atof(v);
        else if (!bad && strcmp(a, "--size") == 0)
            size = atoi(v);
        else if (!bad && strcmp(a, "--verbose") == 0)
            verbose = atoi(v);
        else
            bad = 1;
        if (bad) {
            fprintf(stderr, "cube2_patches: bad argument '%s'\n", a);
            usage();
            return 2;
        }
    }
    if (!out || d0 < 0 || d1 >= sim_designs("cube2") || size < 8) {
        usage();
        return 2;
    }
    if (mkdir(out, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "cube2_patches: cannot make %s: %s\n", out, strerror(errno));
        return 1;
    }
    snprintf(path, sizeof path, "%s/patches.bin", out);
    if (!(bin = fopen(path, "wb"))) {
        fprintf(stderr, "cube2_patches: cannot write %s: %s\n", path, strerror(errno));
        return 1;
    }
    if (vis_aruco_new(VIS_ARUCO_4X4_50, &det, &e) != 0 || vis_cube2_new(0, 0, 0, &c2, &e) != 0) {
        fprintf(stderr, "cube2_patches: %s\n", e.msg);
        return 1;
    }
    for (int d = d0; d <= d1; d++)
        for (int seed = s0; seed <= s1 && !skipped(skip, d); seed++) {
            sim_options o;
            sim_stream *s = NULL;
            vis_image *img = NULL;
            char *tj = NULL;
            sim_options_default(&o);
            o.width = w;
            o.height = h;
            o.fps = 1;
            o.max_moves = moves;
            o.design = d;
            o.setup = SIM_SETUP_MIXED;
            rng_state ^= (unsigned long long)(d * 1000 + seed) * 0x9E3779B97F4A7C15ull;
            /* seeds apart from the tests' and benches' own */
            if (sim_stream_new("cube2", 6000000 + (uint64_t)d * 10000 + (uint64_t)seed, &o, &s,
                               &e) != 0) {
                fprintf(stderr, "cube2_patches: %s\n", e.msg);
                return 1;
            }
            while (sim_stream_next(s, &img, &tj, &e) == 0) {
                cJSON *t = cJSON_Parse(tj);
                const char *setup = cJSON_GetStringValue(
                    cJSON_GetObjectItem(cJSON_GetObjectItem(t, "camera"), "setup"));
                double shake = cJSON_GetNumberValue(
                    cJSON_GetObjectItem(cJSON_GetObjectItem(t, "lighting"), "motion_blur_px"));
                cal_mat_fit fit;
                vis_homography top;
                vis_image *view = NULL;
                vis_view vw;
                vis_c2_board b;
                frames++;
                memset(&vw, 0, sizeof vw);
                vw.px_per_mm = FIND_PPM;
                vw.mat_w = cal_mat_default().w;
                vw.mat_h = cal_mat_default().h;
                vw.marker_mm = cal_mat_default().s;
                if (cal_mat_locate(det, img, cal_mat_default(), NULL, &fit, &e) != 0 ||
                    cal_rectify(img, &fit, cal_mat_default(), NULL, VIS_C2_BOARD_Z_MM, FIND_PPM, 0,
                                &view, &e) != 0 ||
                    cal_mat_plane(&fit, NULL, VIS_C2_TOP_Z_MM, &top, &e) != 0) {
                    nomat++;
                } else if (vis_cube2_find(c2, view, &vw, &b, &e) != 0 || !board_right(t, &b)) {
                    missed++;
                    if (verbose) {
                        const cJSON *bo = cJSON_GetObjectItem(t, "board");
                        const cJSON *org = cJSON_GetObjectItem(bo, "origin_mm");
                        double x, y;
                        vis_cube2_square_mm(&b, 0, 0, &x, &y);
                        fprintf(stderr,
                                "  frame %ld%s: board %s, contrast %.2f, square (0,0) at %.1f %.1f "
                                "turn %.2f; truth %.1f %.1f turn %.2f\n",
                                frames - 1, cJSON_IsTrue(cJSON_GetObjectItem(t, "stable")) ? " (stable)" : "", b.found ? "found" : "not found", b.contrast, x, y,
                                b.angle_deg, cJSON_GetArrayItem(org, 0)->valuedouble,
                                cJSON_GetArrayItem(org, 1)->valuedouble,
                                cJSON_GetNumberValue(cJSON_GetObjectItem(bo, "rotation_deg")));
                    }
                } else {
                    for (int r = 0; r < b.rows; r++)
                        for (int c = 0; c < b.cols; c++) {
                            unsigned char lab[8] = {0};
                            vis_image *patch = NULL;
                            double x, y;
                            label(t, c, r, &lab[0], &lab[1]);
                            if (lab[0] == 0 && unit() >= empty_keep)
                                continue;
                            if (vis_cube2_patch(img, top, &b, c, r, size, &patch, &e) != 0) {
                                lost++;
                                continue;
                            }
                            vis_cube2_square_mm(&b, c, r, &x, &y);
                            lab[2] = (unsigned char)d;
                            lab[3] = byte(cal_mat_px_per_mm(&fit, x, y) * 40);
                            lab[4] = byte(shake * 10);
                            lab[5] = setup && strcmp(setup, "good") == 0;
                            lab[6] = cJSON_IsTrue(cJSON_GetObjectItem(t, "stable"));
                            fwrite(lab, 1, sizeof lab, bin);
                            for (int yy = 0; yy < size; yy++)
                                fwrite(patch->data + (size_t)yy * patch->stride, 1,
                                       (size_t)size * 3, bin);
                            vis_image_free(patch);
                            count++;
                        }
                }
                vis_image_free(view);
                cJSON_Delete(t);
                vis_image_free(img);
                free(tj);
            }
            sim_stream_free(s);
            fprintf(stderr,
                    "design %d seed %d: %ld patches; %ld frames, board missed on %ld, mat on %ld\n",
                    d, seed, count, frames, missed, nomat);
        }
    vis_cube2_free(c2);
    vis_aruco_free(det);
    if (fclose(bin) != 0) {
        fprintf(stderr, "cube2_patches: cannot write %s\n", path);
        return 1;
    }
    snprintf(path, sizeof path, "%s/patches.json", out);
    {
        FILE *f = fopen(path, "w");
        if (!f)
            return 1;
        fprintf(f,
                "{\"size\": %d, \"side_mm\": %g, \"count\": %ld, \"record_bytes\": %d, "
                "\"labels\": [\"color\", \"shape\", \"design\", \"px_per_mm_x40\", "
                "\"shake_px_x10\", \"setup_good\", \"stable\", \"zero\"], "
                "\"designs\": [%d, %d], \"skip\": \"%s\", \"seeds\": [%d, %d], "
                "\"frame\": [%d, %d], \"moves\": %d, \"frames\": %ld, \"board_missed\": %ld, "
                "\"mat_missed\": %ld, \"not_cut\": %ld}\n",
                size, VIS_C2_PATCH_MM, count, 8 + size * size * 3, d0, d1, skip ? skip : "", s0,
                s1, w, h, moves, frames, missed, nomat, lost);
        fclose(f);
    }
    return 0;
}
