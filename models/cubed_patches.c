/* models/cubed_patches.c: training patches of CUBED's cells from the
 * simulator, cut as the reader cuts them.
 *
 *   build/models/cubed_patches --out DIR --designs 0-23 [--skip 3,10,17]
 *       --seeds 1-3 [--width W --height H] [--moves M] [--empty P]
 *
 * For each design and seed, renders a round of M events (one frame a
 * second) and on every frame finds the mat as the reader does
 * (cal_mat_locate, no lens profile), fits the lattice with the reader's
 * own vis_cubed_find on the view of the tiles' plane, and cuts the patch
 * of every candidate cell with vis_cubed_patch from the frame through the
 * plane of the tiles' tops: the patches the reader will classify, with
 * its own errors of place.  A frame whose lattice is not the truth's
 * (not found, or turned more than two degrees off modulo 60) gives no
 * patches and is counted.  Each patch is cut upright in the lattice's
 * frame turned by a random sixth of a turn, its labels turned with it, so
 * that the classifier learns every edge alike.  Labels from the truth: a
 * cell within a third of a pitch of a tile's centre is that tile (covered
 * when the truth says a hand hides its top), else empty (kept with
 * probability P, default 0.6, and only on frames without a hand: a hand
 * may hide the mat there); a tile's parity and its six edges' colours in
 * the patch's frame.
 *
 * Writes DIR/patches.bin (records of 16 label bytes - cell (0 empty, 1
 * tile, 2 covered), parity (255 none), the colours of edges 0-5 (rules'
 * colours, 255 none), design, the camera's pixels per mm x 40, the
 * frame's camera shake in px x 10, 1 when the camera has the good set-up,
 * 1 when the frame is stable, the sixths the patch is turned, two zeros -
 * then S*S*3 bytes BGR, row by row) and DIR/patches.json (sizes, label
 * names, counts, what made them). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "calib.h"
#include "cubed.h"
#include "patches.h"
#include "rules.h"
#include "sim.h"

#define FIND_PPM 1.5  /* the reader's view for the lattice fit (referee/reader.c) */
#define TURN_DEG 2.0  /* a lattice turned further off than this is not the truth's */
#define NEAR_SHARE 0.33 /* a cell holds a tile whose centre lies within this share of a pitch */
#define LABEL_BYTES 16

static void usage(void)
{
    fprintf(stderr, "usage: cubed_patches --out DIR --designs A-B [--skip D,D,...] --seeds A-B "
                    "[--width W --height H] [--moves M] [--empty P] [--size S]\n");
}

/* The labels of the cell at (x, y) mm in a patch cut at angle a_deg: the
 * truth's tile there (lab[0..7]); false when the cell is empty. */
static bool label(const cJSON *t, double x, double y, double pitch, double a_deg,
                  unsigned char lab[8])
{
    const cJSON *ps = cJSON_GetObjectItem(cJSON_GetObjectItem(t, "position"), "pieces");
    const cJSON *pl = cJSON_GetObjectItem(t, "placement");
    double rot = cJSON_GetNumberValue(
        cJSON_GetObjectItem(cJSON_GetObjectItem(t, "board"), "rotation_deg"));
    int n = cJSON_GetArraySize(pl);
    memset(lab, 255, 8);
    lab[0] = 0;
    for (int i = 0; i < n; i++) {
        const cJSON *e = cJSON_GetArrayItem(pl, i), *mm = cJSON_GetObjectItem(e, "mm");
        rules_piece p;
        int m, edge[6];
        if (hypot(cJSON_GetArrayItem(mm, 0)->valuedouble - x,
                  cJSON_GetArrayItem(mm, 1)->valuedouble - y) > NEAR_SHARE * pitch)
            continue;
        if (rules_piece_from_json("cubed", cJSON_GetArrayItem(ps, i), &p, NULL) != 0)
            return false;
        if (cJSON_IsTrue(cJSON_GetObjectItem(e, "hidden"))) {
            lab[0] = 2;
            return true;
        }
        /* edge e of the truth's frame faces 60 (e - 1) + rot degrees on
         * the table, the patch's edge k 60 (k - 1) + a_deg: the patch's
         * edge k is the truth's k + m */
        m = (int)lround((a_deg - rot) / 60.0);
        m = ((m % 6) + 6) % 6;
        vis_cubed_edges(p.parity, (const int[3]){p.a, p.b, p.c}, edge);
        lab[0] = 1;
        lab[1] = (unsigned char)(p.parity ^ (m & 1));
        for (int k = 0; k < 6; k++)
            lab[2 + k] = (unsigned char)edge[(k + m) % 6];
        return true;
    }
    return false;
}

int main(int argc, char **argv)
{
    const char *out = NULL, *skip = NULL;
    int d0 = 0, d1 = 0, s0 = 1, s1 = 1, w = 960, h = 720, moves = 40, size = 32;
    double empty_keep = 0.6;
    long count = 0, tiles = 0, frames = 0, missed = 0, nomat = 0, lost = 0;
    char path[4096];
    FILE *bin;
    vis_aruco *det = NULL;
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
        else
            bad = 1;
        if (bad) {
            fprintf(stderr, "cubed_patches: bad argument '%s'\n", a);
            usage();
            return 2;
        }
    }
    if (!out || d0 < 0 || d1 >= sim_designs("cubed") || size < 8) {
        usage();
        return 2;
    }
    if (mkdir(out, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "cubed_patches: cannot make %s: %s\n", out, strerror(errno));
        return 1;
    }
    snprintf(path, sizeof path, "%s/patches.bin", out);
    if (!(bin = fopen(path, "wb"))) {
        fprintf(stderr, "cubed_patches: cannot write %s: %s\n", path, strerror(errno));
        return 1;
    }
    if (vis_aruco_new(VIS_ARUCO_4X4_50, &det, &e) != 0) {
        fprintf(stderr, "cubed_patches: %s\n", e.msg);
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
            if (sim_stream_new("cubed", 7000000 + (uint64_t)d * 10000 + (uint64_t)seed, &o, &s,
                               &e) != 0) {
                fprintf(stderr, "cubed_patches: %s\n", e.msg);
                return 1;
            }
            while (sim_stream_next(s, &img, &tj, &e) == 0) {
                cJSON *t = cJSON_Parse(tj);
                const char *setup = cJSON_GetStringValue(
                    cJSON_GetObjectItem(cJSON_GetObjectItem(t, "camera"), "setup"));
                double shake = cJSON_GetNumberValue(
                    cJSON_GetObjectItem(cJSON_GetObjectItem(t, "lighting"), "motion_blur_px"));
                double rot = cJSON_GetNumberValue(
                    cJSON_GetObjectItem(cJSON_GetObjectItem(t, "board"), "rotation_deg"));
                bool hand = cJSON_IsTrue(cJSON_GetObjectItem(t, "hand_in_view"));
                cal_mat_fit fit;
                vis_homography top;
                vis_image *view = NULL;
                vis_view vw;
                vis_cb_layout l;
                frames++;
                memset(&vw, 0, sizeof vw);
                memset(&l, 0, sizeof l);
                vw.px_per_mm = FIND_PPM;
                vw.mat_w = cal_mat_default().w;
                vw.mat_h = cal_mat_default().h;
                vw.marker_mm = cal_mat_default().s;
                if (cal_mat_locate(det, img, cal_mat_default(), NULL, &fit, &e) != 0 ||
                    cal_rectify(img, &fit, cal_mat_default(), NULL, VIS_CB_TOP_Z_MM, FIND_PPM, 0,
                                &view, &e) != 0 ||
                    cal_mat_plane(&fit, NULL, VIS_CB_TOP_Z_MM, &top, &e) != 0) {
                    nomat++;
                } else if (vis_cubed_find(view, &vw, 0, &l, &e) != 0 || !l.found ||
                           fabs(fmod(l.angle_deg - rot + 3600 + 30, 60) - 30) > TURN_DEG) {
                    missed += cJSON_GetArraySize(cJSON_GetObjectItem(t, "placement")) > 0;
                } else {
                    for (int i = 0; i < l.ntiles; i++) {
                        unsigned char lab[LABEL_BYTES] = {0};
                        vis_image *patch = NULL;
                        int sixths = (int)(unit() * 6) % 6;
                        const vis_cb_tile *c = &l.tiles[i];
                        if (!label(t, c->x_mm, c->y_mm, l.pitch_mm, l.angle_deg + 60.0 * sixths,
                                   lab) &&
                            (hand || unit() >= empty_keep))
                            continue;
                        if (vis_cubed_patch(img, top, &l, c->q, c->r, sixths, size, &patch,
                                            &e) != 0) {
                            lost++;
                            continue;
                        }
                        lab[8] = (unsigned char)d;
                        lab[9] = byte(cal_mat_px_per_mm(&fit, c->x_mm, c->y_mm) * 40);
                        lab[10] = byte(shake * 10);
                        lab[11] = setup && strcmp(setup, "good") == 0;
                        lab[12] = cJSON_IsTrue(cJSON_GetObjectItem(t, "stable"));
                        lab[13] = (unsigned char)sixths;
                        fwrite(lab, 1, sizeof lab, bin);
                        for (int yy = 0; yy < size; yy++)
                            fwrite(patch->data + (size_t)yy * patch->stride, 1, (size_t)size * 3,
                                   bin);
                        vis_image_free(patch);
                        count++;
                        tiles += lab[0] != 0;
                    }
                }
                vis_image_free(view);
                cJSON_Delete(t);
                vis_image_free(img);
                free(tj);
            }
            sim_stream_free(s);
            fprintf(stderr,
                    "design %d seed %d: %ld patches (%ld tiles); %ld frames, lattice missed on "
                    "%ld with tiles, mat on %ld\n",
                    d, seed, count, tiles, frames, missed, nomat);
        }
    vis_aruco_free(det);
    if (fclose(bin) != 0) {
        fprintf(stderr, "cubed_patches: cannot write %s\n", path);
        return 1;
    }
    snprintf(path, sizeof path, "%s/patches.json", out);
    {
        FILE *f = fopen(path, "w");
        if (!f)
            return 1;
        fprintf(f,
                "{\"size\": %d, \"side_mm\": %g, \"count\": %ld, \"tiles\": %ld, "
                "\"label_bytes\": %d, \"record_bytes\": %d, "
                "\"labels\": [\"cell\", \"parity\", \"edge0\", \"edge1\", \"edge2\", \"edge3\", "
                "\"edge4\", \"edge5\", \"design\", \"px_per_mm_x40\", \"shake_px_x10\", "
                "\"setup_good\", \"stable\", \"sixths\", \"zero\", \"zero\"], "
                "\"designs\": [%d, %d], \"skip\": \"%s\", \"seeds\": [%d, %d], "
                "\"frame\": [%d, %d], \"moves\": %d, \"frames\": %ld, \"lattice_missed\": %ld, "
                "\"mat_missed\": %ld, \"not_cut\": %ld}\n",
                size, VIS_CB_PATCH_MM, count, tiles, LABEL_BYTES, LABEL_BYTES + size * size * 3,
                d0, d1, skip ? skip : "", s0, s1, w, h, moves, frames, missed, nomat, lost);
        fclose(f);
    }
    return 0;
}
