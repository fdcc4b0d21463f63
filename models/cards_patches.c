/* models/cards_patches.c: training patches of playing cards from the
 * simulator, cut as the reader cuts them (vis_cards_corners).
 *
 *   build/models/cards_patches --out DIR --designs 0-9 --seeds 1-4
 *       [--width W --height H] [--moves M] [--down P]
 *
 * For each deck design and seed, renders a match (one frame a second)
 * with a share P of the cards lying face down (sim_options.down), and on
 * every still frame finds the mat as the reader does (cal_mat_locate, no
 * lens profile), lifts it to the cards' faces (cal_mat_plane) and cuts
 * each visible card's patch at its true place and turn, jittered by what
 * the reader's own placing errs by, and either way up (a card lies either
 * way; the label does not change).  Beside the cards, cells of the card
 * grid that hold no card are cut too, as the table: what the reader must
 * not report.
 *
 * Writes DIR/patches.bin (records of 8 label bytes - rank 1..13 (0: none),
 * suit 0..3 (S H D C; 255: none), face (0 face up, 1 face down, 2 the
 * table), design, the camera's pixels per mm at the card x 40, its focus
 * blur (sigma) in mm x 40, the frame's camera shake in px x 10, 1 when the
 * stream's camera has the good set-up; each at most 255 - then S*S*3 bytes
 * BGR, row by row, S = VIS_CARDS_PATCH) and DIR/patches.json (the sizes,
 * the label names, the count, what made them, and "decks": every deck
 * design's id by its number). */
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
#include "cards.h"
#include "rules.h"
#include "sim.h"

#define CP_PI 3.14159265358979323846

/* How far the reader's placing of a card errs, for the jitter. */
static const struct {
    double face_mm;  /* the face's height above the table (the reader's plane) */
    double shift_mm; /* centre off by up to this in x and y (the outline fit) */
    double turn_deg; /* and turned by up to this (the grid's angle fit) */
    double scale;    /* and the card's size off by this fraction (the focal guess) */
    double table_share; /* empty cells cut, per card cut: enough tables to learn "no card" */
    double apart_mm; /* an empty cell's centre at least this far from every card's */
} jit = {0.35, 1.5, 3, 0.04, 0.3, 50};

static void usage(void)
{
    fprintf(stderr, "usage: cards_patches --out DIR --designs A-B --seeds A-B [--width W "
                    "--height H] [--moves M] [--down P]\n");
}

typedef struct frame_info {
    cal_mat_fit fit;
    vis_homography plane;
    double blur_px, shake_px;
    bool good;
    int design;
} frame_info;

/* Cuts one patch at (x, y) turned rot and writes it with its labels. */
static int put(FILE *bin, const vis_image *img, const frame_info *fi, double x, double y,
               double rot, int rank, int suit, int face, long *lost)
{
    vis_image *patch = NULL;
    unsigned char lab[8] = {0};
    double k = 1 + range(-jit.scale, jit.scale);
    base_err e;
    x += range(-jit.shift_mm, jit.shift_mm);
    y += range(-jit.shift_mm, jit.shift_mm);
    rot += range(-jit.turn_deg, jit.turn_deg) + (unit() < 0.5 ? 180 : 0);
    if (vis_cards_corners(img, fi->plane, x, y, rot, 63 * k, 88 * k, &patch, &e) != 0) {
        ++*lost;
        return 0;
    }
    lab[0] = (unsigned char)rank;
    lab[1] = (unsigned char)(suit < 0 ? 255 : suit);
    lab[2] = (unsigned char)face;
    lab[3] = (unsigned char)fi->design;
    {
        /* below 0.6 px/mm, or at 1.55 mm of blur or more, the referee asks
         * for a better camera */
        double ppm = cal_mat_px_per_mm(&fi->fit, x, y);
        lab[4] = byte(ppm * 40);
        lab[5] = byte(ppm > 0 ? fi->blur_px / ppm * 40 : 255);
        lab[6] = byte(fi->shake_px * 10);
        lab[7] = fi->good;
    }
    fwrite(lab, 1, sizeof lab, bin);
    for (int r = 0; r < VIS_CARDS_PATCH; r++)
        fwrite(patch->data + (size_t)r * patch->stride, 1, (size_t)VIS_CARDS_PATCH * 3, bin);
    vis_image_free(patch);
    return 1;
}

int main(int argc, char **argv)
{
    const char *out = NULL;
    int d0 = 0, d1 = 0, s0 = 1, s1 = 1, w = 1280, h = 960, moves = 12;
    double down = 0.15;
    long count = 0, tables = 0, frames = 0, lost = 0;
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
        else if (!bad && strcmp(a, "--down") == 0)
            down = atof(v);
        else
            bad = 1;
        if (bad) {
            fprintf(stderr, "cards_patches: bad argument '%s'\n", a);
            usage();
            return 2;
        }
    }
    if (!out || d0 < 0 || d1 >= sim_designs("cards") || !(down >= 0 && down <= 1)) {
        usage();
        return 2;
    }
    if (mkdir(out, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "cards_patches: cannot make %s: %s\n", out, strerror(errno));
        return 1;
    }
    snprintf(path, sizeof path, "%s/patches.bin", out);
    if (!(bin = fopen(path, "wb"))) {
        fprintf(stderr, "cards_patches: cannot write %s: %s\n", path, strerror(errno));
        return 1;
    }
    if (vis_aruco_new(VIS_ARUCO_4X4_50, &det, &e) != 0) {
        fprintf(stderr, "cards_patches: %s\n", e.msg);
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
            o.down = down;
            o.setup = SIM_SETUP_MIXED; /* the users' mix of camera set-ups */
            rng_state ^= (unsigned long long)(d * 1000 + seed) * 0x9E3779B97F4A7C15ull;
            /* seeds apart from the tests' and benches' own */
            if (sim_stream_new("cards", 6000000 + (uint64_t)d * 10000 + (uint64_t)seed, &o, &s,
                               &e) != 0) {
                fprintf(stderr, "cards_patches: %s\n", e.msg);
                return 1;
            }
            while (sim_stream_next(s, &img, &tj, &e) == 0) {
                cJSON *t = cJSON_Parse(tj);
                const cJSON *ps = cJSON_GetObjectItem(cJSON_GetObjectItem(t, "position"), "pieces");
                const cJSON *pl = cJSON_GetObjectItem(t, "placement");
                const cJSON *lt = cJSON_GetObjectItem(t, "lighting");
                const cJSON *bd = cJSON_GetObjectItem(t, "board");
                const char *setup = cJSON_GetStringValue(
                    cJSON_GetObjectItem(cJSON_GetObjectItem(t, "camera"), "setup"));
                frame_info fi;
                memset(&fi, 0, sizeof fi);
                fi.blur_px = cJSON_GetNumberValue(cJSON_GetObjectItem(lt, "blur"));
                fi.shake_px = cJSON_GetNumberValue(cJSON_GetObjectItem(lt, "motion_blur_px"));
                fi.good = setup && strcmp(setup, "good") == 0;
                fi.design = d;
                if (cJSON_IsTrue(cJSON_GetObjectItem(t, "stable")) &&
                    !cJSON_IsTrue(cJSON_GetObjectItem(t, "hand_in_view")) &&
                    cal_mat_locate(det, img, cal_mat_default(), NULL, &fi.fit, &e) == 0 &&
                    cal_mat_plane(&fi.fit, NULL, jit.face_mm, &fi.plane, &e) == 0) {
                    int n = cJSON_GetArraySize(ps);
                    double bang = cJSON_GetNumberValue(cJSON_GetObjectItem(bd, "rotation_deg"));
                    frames++;
                    for (int i = 0; i < n; i++) {
                        const cJSON *p = cJSON_GetArrayItem(pl, i), *q = cJSON_GetArrayItem(ps, i);
                        const cJSON *mm = cJSON_GetObjectItem(p, "mm");
                        rules_piece piece;
                        bool dn = cJSON_IsTrue(cJSON_GetObjectItem(p, "down")) ||
                                  cJSON_IsTrue(cJSON_GetObjectItem(q, "down"));
                        double x, y, rot;
                        if (cJSON_IsTrue(cJSON_GetObjectItem(p, "hidden")) ||
                            rules_piece_from_json("cards", q, &piece, NULL) != 0)
                            continue;
                        x = cJSON_GetArrayItem(mm, 0)->valuedouble;
                        y = cJSON_GetArrayItem(mm, 1)->valuedouble;
                        rot = cJSON_GetObjectItem(p, "rot_deg")->valuedouble;
                        count += put(bin, img, &fi, x, y, rot, dn ? 0 : piece.a, dn ? -1 : piece.b,
                                     dn ? 1 : 0, &lost);
                        /* an empty neighbouring cell of the grid, now and then */
                        if (unit() < jit.table_share) {
                            double a = bang * CP_PI / 180, c = cos(a), sn = sin(a);
                            int k = (int)(unit() * 4);
                            double du = k == 0 ? 63 : k == 1 ? -63 : 0;
                            double dv = k == 2 ? 88 : k == 3 ? -88 : 0;
                            double ex = x + du * c - dv * sn, ey = y + du * sn + dv * c;
                            bool free_cell = ex > 40 && ey > 50 && ex < 460 && ey < 450;
                            for (int j = 0; j < n && free_cell; j++) {
                                const cJSON *mj =
                                    cJSON_GetObjectItem(cJSON_GetArrayItem(pl, j), "mm");
                                free_cell = hypot(cJSON_GetArrayItem(mj, 0)->valuedouble - ex,
                                                  cJSON_GetArrayItem(mj, 1)->valuedouble - ey) >=
                                            jit.apart_mm;
                            }
                            if (free_cell) {
                                int got = put(bin, img, &fi, ex, ey, bang, 0, -1, 2, &lost);
                                count += got;
                                tables += got;
                            }
                        }
                    }
                }
                cJSON_Delete(t);
                vis_image_free(img);
                free(tj);
            }
            sim_stream_free(s);
            fprintf(stderr, "design %d seed %d: %ld patches (%ld tables) from %ld frames so far\n",
                    d, seed, count, tables, frames);
        }
    vis_aruco_free(det);
    if (fclose(bin) != 0) {
        fprintf(stderr, "cards_patches: cannot write %s\n", path);
        return 1;
    }
    snprintf(path, sizeof path, "%s/patches.json", out);
    {
        FILE *f = fopen(path, "w");
        if (!f)
            return 1;
        fprintf(f,
                "{\"size\": %d, \"count\": %ld, \"record_bytes\": %d, "
                "\"labels\": [\"rank\", \"suit\", \"face\", \"design\", \"px_per_mm_x40\", "
                "\"blur_mm_x40\", \"shake_px_x10\", \"setup_good\"], "
                "\"designs\": [%d, %d], \"seeds\": [%d, %d], \"frame\": [%d, %d], "
                "\"moves\": %d, \"down\": %g, \"frames\": %ld, \"tables\": %ld, \"not_cut\": %ld, "
                "\"decks\": [",
                VIS_CARDS_PATCH, count, 8 + VIS_CARDS_PATCH * VIS_CARDS_PATCH * 3, d0, d1, s0, s1,
                w, h, moves, down, frames, tables, lost);
        /* every design's id, by design number (the labels' "design") */
        for (int d = 0; d < sim_designs("cards"); d++)
            fprintf(f, "%s\"%s\"", d ? ", " : "", sim_design_name("cards", d));
        fprintf(f, "]}\n");
        fclose(f);
    }
    return 0;
}
