/* models/qwirkle_patches.c: training patches of Qwirkle cubes from the
 * simulator, cut as the reader cuts them.
 *
 *   build/models/qwirkle_patches --out DIR --designs 0-9 --seeds 1-4
 *       [--width W --height H] [--moves M] [--size S] [--side MM]
 *
 * For each design and seed, renders a match (one frame a second, so that
 * consecutive still frames differ by more than noise) and, on every still
 * frame, finds the mat as the reader does (cal_mat_locate, no lens
 * profile), lifts it to the cubes' top faces (cal_mat_plane) and cuts one
 * upright patch per visible cube (vis_patch_cut) at the cube's true place
 * and turn, jittered by what the reader's own placing errs by.  The
 * cubes' symbols look the same turned by a quarter, so each patch is also
 * turned by a random multiple of 90 degrees.
 *
 * Writes DIR/patches.bin (records of 8 label bytes - shape, colour,
 * design, the camera's pixels per mm at the cube x 40, its focus blur
 * (sigma) in mm at the cube x 40, the frame's camera shake in px x 10,
 * 1 when the stream's camera has the good set-up (sim_options.setup; the
 * streams draw the users' mix), a zero; each at most 255 - then S*S*3 bytes BGR, row by row) and
 * DIR/patches.json
 * (the sizes, the label names, the count, what made them). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "calib.h"
#include "patches.h"
#include "patch.h"
#include "rules.h"
#include "sim.h"

/* How far the reader's placing of a cube errs, for the jitter. */
static const struct {
    double top_mm;    /* the top face's height: the sim's cube, 19.5 mm */
    double shift_mm;  /* centre off by up to this in x and y (a cube's cell fit) */
    double turn_deg;  /* and turned by up to this (the grid's angle fit) */
    double scale;     /* and the side off by this fraction (the focal guess) */
} jit = {19.5, 1.5, 6, 0.06};

static void usage(void)
{
    fprintf(stderr, "usage: qwirkle_patches --out DIR --designs A-B --seeds A-B [--width W "
                    "--height H] [--moves M] [--size S] [--side MM]\n");
}

int main(int argc, char **argv)
{
    const char *out = NULL;
    int d0 = 0, d1 = 0, s0 = 1, s1 = 1, w = 960, h = 720, moves = 10, size = 32;
    double side = 24;
    long count = 0, frames = 0, lost = 0;
    char path[4096];
    FILE *bin;
    vis_aruco *det = NULL;
    base_err e;

    for (int i = 1; i < argc; i += 2) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int bad = !v;
        if (!bad && strcmp(a, "--out") == 0)
            out = v;
        else if (!bad && strcmp(a, "--designs") == 0)
            bad = parse_span(v, &d0, &d1);
        else if (!bad && strcmp(a, "--seeds") == 0)
            bad = parse_span(v, &s0, &s1);
        else if (!bad && strcmp(a, "--width") == 0)
            w = atoi(v);
        else if (!bad && strcmp(a, "--height") == 0)
            h = atoi(v);
        else if (!bad && strcmp(a, "--moves") == 0)
            moves = atoi(v);
        else if (!bad && strcmp(a, "--size") == 0)
            size = atoi(v);
        else if (!bad && strcmp(a, "--side") == 0)
            side = atof(v);
        else
            bad = 1;
        if (bad) {
            fprintf(stderr, "qwirkle_patches: bad argument '%s'\n", a);
            usage();
            return 2;
        }
    }
    if (!out || d0 < 0 || d1 >= sim_designs("qwirkle") || size < 8 || side <= 0) {
        usage();
        return 2;
    }
    if (mkdir(out, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "qwirkle_patches: cannot make %s: %s\n", out, strerror(errno));
        return 1;
    }
    snprintf(path, sizeof path, "%s/patches.bin", out);
    if (!(bin = fopen(path, "wb"))) {
        fprintf(stderr, "qwirkle_patches: cannot write %s: %s\n", path, strerror(errno));
        return 1;
    }
    if (vis_aruco_new(VIS_ARUCO_4X4_50, &det, &e) != 0) {
        fprintf(stderr, "qwirkle_patches: %s\n", e.msg);
        return 1;
    }
    for (int d = d0; d <= d1; d++)
        for (int seed = s0; seed <= s1; seed++) {
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
            o.setup = SIM_SETUP_MIXED; /* the users' mix of camera set-ups */
            rng_state ^= (unsigned long long)(d * 1000 + seed) * 0x9E3779B97F4A7C15ull;
            /* seeds apart from the tests' and benches' own */
            if (sim_stream_new("qwirkle", 5000000 + (uint64_t)d * 10000 + (uint64_t)seed, &o, &s,
                               &e) != 0) {
                fprintf(stderr, "qwirkle_patches: %s\n", e.msg);
                return 1;
            }
            while (sim_stream_next(s, &img, &tj, &e) == 0) {
                cJSON *t = cJSON_Parse(tj);
                const cJSON *ps = cJSON_GetObjectItem(cJSON_GetObjectItem(t, "position"), "pieces");
                const cJSON *pl = cJSON_GetObjectItem(t, "placement");
                const cJSON *lt = cJSON_GetObjectItem(t, "lighting");
                double blur_px = cJSON_GetNumberValue(cJSON_GetObjectItem(lt, "blur"));
                double shake_px = cJSON_GetNumberValue(cJSON_GetObjectItem(lt, "motion_blur_px"));
                const char *setup = cJSON_GetStringValue(
                    cJSON_GetObjectItem(cJSON_GetObjectItem(t, "camera"), "setup"));
                cal_mat_fit fit;
                vis_homography top;
                if (cJSON_IsTrue(cJSON_GetObjectItem(t, "stable")) &&
                    cal_mat_locate(det, img, cal_mat_default(), NULL, &fit, &e) == 0 &&
                    cal_mat_plane(&fit, NULL, jit.top_mm, &top, &e) == 0) {
                    frames++;
                    for (int i = 0; i < cJSON_GetArraySize(ps); i++) {
                        const cJSON *p = cJSON_GetArrayItem(pl, i);
                        const cJSON *mm = cJSON_GetObjectItem(p, "mm");
                        rules_piece piece;
                        vis_patch_at at = {0, 0, 0, 0, 0};
                        vis_image *patch = NULL;
                        unsigned char lab[8] = {0};
                        if (cJSON_IsTrue(cJSON_GetObjectItem(p, "hidden")) ||
                            rules_piece_from_json("qwirkle", cJSON_GetArrayItem(ps, i), &piece,
                                                  NULL) != 0)
                            continue;
                        at.x_mm = cJSON_GetArrayItem(mm, 0)->valuedouble +
                                  range(-jit.shift_mm, jit.shift_mm);
                        at.y_mm = cJSON_GetArrayItem(mm, 1)->valuedouble +
                                  range(-jit.shift_mm, jit.shift_mm);
                        at.rot_deg = cJSON_GetObjectItem(p, "rot_deg")->valuedouble +
                                     range(-jit.turn_deg, jit.turn_deg) +
                                     90 * (int)(unit() * 4);
                        at.side_mm = side * (1 + range(-jit.scale, jit.scale));
                        if (vis_patch_cut(img, top, &at, size, &patch, &e) != 0) {
                            lost++;
                            continue;
                        }
                        lab[0] = piece.b; /* shape */
                        lab[1] = piece.a; /* colour */
                        lab[2] = (unsigned char)d;
                        {
                            /* below 0.6 px/mm, or at 1.55 mm of blur or more, the
                             * referee asks for a better camera */
                            double ppm = cal_mat_px_per_mm(&fit, at.x_mm, at.y_mm);
                            lab[3] = byte(ppm * 40);
                            lab[4] = byte(ppm > 0 ? blur_px / ppm * 40 : 255);
                            lab[5] = byte(shake_px * 10);
                            lab[6] = setup && strcmp(setup, "good") == 0;
                        }
                        fwrite(lab, 1, sizeof lab, bin);
                        for (int y = 0; y < size; y++)
                            fwrite(patch->data + (size_t)y * patch->stride, 1, (size_t)size * 3,
                                   bin);
                        vis_image_free(patch);
                        count++;
                    }
                }
                cJSON_Delete(t);
                vis_image_free(img);
                free(tj);
            }
            sim_stream_free(s);
            fprintf(stderr, "design %d seed %d: %ld patches from %ld frames so far\n", d, seed,
                    count, frames);
        }
    vis_aruco_free(det);
    if (fclose(bin) != 0) {
        fprintf(stderr, "qwirkle_patches: cannot write %s\n", path);
        return 1;
    }
    snprintf(path, sizeof path, "%s/patches.json", out);
    {
        FILE *f = fopen(path, "w");
        if (!f)
            return 1;
        fprintf(f,
                "{\"size\": %d, \"side_mm\": %g, \"count\": %ld, \"record_bytes\": %d, "
                "\"labels\": [\"shape\", \"color\", \"design\", \"px_per_mm_x40\", "
                "\"blur_mm_x40\", \"shake_px_x10\", \"setup_good\", \"zero\"], "
                "\"designs\": [%d, %d], \"seeds\": [%d, %d], \"frame\": [%d, %d], "
                "\"moves\": %d, \"frames\": %ld, \"not_cut\": %ld}\n",
                size, side, count, 8 + size * size * 3, d0, d1, s0, s1, w, h, moves, frames,
                lost);
        fclose(f);
    }
    return 0;
}
