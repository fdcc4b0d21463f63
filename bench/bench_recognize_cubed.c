/* bench/bench_recognize_cubed.c: CUBED recognition measured on simulated
 * frames of designs the model never saw (vision/cubed.h).
 *
 *   bench_recognize_cubed [MATCHES] [WIDTH HEIGHT] [--moves M] [--seed N]
 *                         [--model PATH] [--designs A,B,..] [-v]
 *
 * By default the classifier is models/cubed-held.onnx, the model `make
 * models-cubed` trains without some designs (its manifest's trained_on),
 * and the matches show those designs only, in turn (seed SEED0 + match,
 * the camera set-ups in the users' mix).  Each match is played for M
 * events (default 40) at one frame a second; every still frame with tiles
 * is read as referee/reader.c reads it (the mat located, the tiles'
 * plane rectified, the lattice fitted, every candidate cell classified)
 * and compared tile by tile with the truth, where they lie on the table
 * (FORMATS.md 4: up to a translation and a turn by 60 degrees; each
 * tile's parity and faces turned into the lattice's frame).  Nothing here
 * is learned or tuned on these seeds.
 *
 * Prints in all and per design: still frames, the share whose lattice is
 * right (found, the turn within 2 degrees modulo 60 of the tiles' mean
 * turn, every tile's centre within 8 mm of a candidate cell), the share
 * read whole and exact (every tile right, nothing else read as a tile, no
 * hand), the per-tile error,
 * and CPU milliseconds a frame, next to the targets (99 % exact,
 * per-tile error under 0.1 %, 20 ms a frame on one core).  With no model
 * file, the lattice alone.  --track looks for each layout first round
 * the last one found, as the live reader does (the still frames here
 * stand for every frame it sees).  -v names every miss. */
#define _XOPEN_SOURCE 700
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "calib.h"
#include "cubed.h"
#include "held.h"
#include "rules.h"
#include "sim.h"

#define SEED0 930000
#define TURN_DEG 2.0
#define POS_MM 8.0
#define MAX_DESIGNS 64
#define NBANDS 5 /* the camera's px/mm bands the figures are split by */

typedef struct tally {
    long frames, right, exact, tiles, wrong, extra, missed, hand;
} tally;

static double cpu_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* Truth tile p, whose layout is turned rot degrees, as it reads in a
 * lattice turned angle_deg: its parity and faces in that frame. */
static void in_frame(const rules_piece *p, double rot, double angle_deg, int *parity, int faces[3])
{
    vis_cubed_turn(p->parity, (const int[3]){p->a, p->b, p->c},
                   (int)lround((angle_deg - rot) / 60.0), parity, faces);
}

/* The layout in img as referee/reader.c finds it: near prior (found;
 * NULL: never) in a view of the table round it, else, and every
 * REF__CB_FULL_FRAMES-th frame, over the whole mat (the reader's rule,
 * over the still frames here).  Times the view (part[1]) and the lattice
 * (part[2]) from *t0. */
#define TRACK_MARGIN_MM 90.0 /* referee/reader.c's REF__CB_TRACK_MARGIN_MM */
#define FULL_FRAMES 8        /* ... and REF__CB_FULL_FRAMES */
static int layout_of(const vis_image *img, const cal_mat_fit *fit, vis_view *vw,
                     const vis_cb_layout *prior, int *since_full, vis_image **view,
                     vis_cb_layout *l, double part[4], double *t0, base_err *err)
{
    int rc = 0;
    l->found = false;
    if (prior && prior->found && *since_full < FULL_FRAMES) {
        double box[4];
        vis_cubed_bounds(prior, TRACK_MARGIN_MM, box);
        vw->roi = true;
        vw->x0_mm = box[0];
        vw->y0_mm = box[1];
        rc = cal_rectify_roi(img, fit, NULL, VIS_CB_TOP_Z_MM, 1.5, box[0], box[1], box[2] - box[0],
                             box[3] - box[1], view, err);
        part[1] += cpu_ms() - *t0;
        *t0 = cpu_ms();
        if (rc == 0)
            rc = vis_cubed_track(*view, vw, prior, l, err);
        part[2] += cpu_ms() - *t0;
        *t0 = cpu_ms();
        vis_image_free(*view);
        *view = NULL;
        vw->roi = false;
        (*since_full)++;
        if (rc != 0)
            return rc;
    }
    if (!l->found) {
        rc = cal_rectify(img, fit, cal_mat_default(), NULL, VIS_CB_TOP_Z_MM, 1.5, 0, view, err);
        part[1] += cpu_ms() - *t0;
        *t0 = cpu_ms();
        if (rc == 0)
            rc = vis_cubed_find(*view, vw, 0, l, err);
        part[2] += cpu_ms() - *t0;
        *t0 = cpu_ms();
        *since_full = 0;
    }
    return rc;
}

static void print_tally(const char *name, const tally *t)
{
    printf("%-8s %7ld %8.1f %8.1f %9.2f %8.2f %7.2f %6.1f\n", name, t->frames,
           t->frames ? 100.0 * t->right / t->frames : 0,
           t->frames ? 100.0 * t->exact / t->frames : 0,
           t->tiles ? 100.0 * (t->wrong + t->extra + t->missed) / t->tiles : 0,
           t->tiles ? 100.0 * t->missed / t->tiles : 0,
           t->tiles ? 100.0 * t->extra / t->tiles : 0,
           t->frames ? 100.0 * t->hand / t->frames : 0);
}


int main(int argc, char **argv)
{
    int matches = 12, width = 1280, height = 960, moves = 40, npos = 0, designs[MAX_DESIGNS];
    int ndesigns = 0, since_full = 0;
    unsigned long long seed0 = SEED0;
    const char *model = TABLECAM_SOURCE_DIR "/models/cubed-held.onnx", *dlist = NULL;
    bool verbose = false, reading = true, track = false;
    long cands = 0, strong = 0, not_found = 0, turn_off = 0, lattice_missed = 0;
    double ms = 0, part[4] = {0, 0, 0, 0}; /* mat, view, lattice, reading */
    tally all, per[MAX_DESIGNS], band[NBANDS];
    static const double bands[NBANDS] = {0, 0.6, 0.8, 1.0, 1.3};
    vis_aruco *det = NULL;
    vis_cubed *cb = NULL;
    vis_cb_reading *rd = malloc(sizeof *rd);
    vis_cb_layout *prior = calloc(1, sizeof *prior);
    FILE *probe;
    base_err err;
    memset(&all, 0, sizeof all);
    memset(per, 0, sizeof per);
    memset(band, 0, sizeof band);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--moves") == 0 && i + 1 < argc)
            moves = atoi(argv[++i]);
        else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
            seed0 = strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--model") == 0 && i + 1 < argc)
            model = argv[++i];
        else if (strcmp(argv[i], "--designs") == 0 && i + 1 < argc)
            dlist = argv[++i];
        else if (strcmp(argv[i], "-v") == 0)
            verbose = true;
        else if (strcmp(argv[i], "--track") == 0)
            track = true;
        else if (argv[i][0] != '-' && npos < 3) {
            int v = atoi(argv[i]);
            *(npos == 0 ? &matches : npos == 1 ? &width : &height) = v;
            npos++;
        } else {
            fprintf(stderr, "usage: bench_recognize_cubed [MATCHES] [WIDTH HEIGHT] [--moves M] "
                            "[--seed N] [--model PATH] [--designs A,B,..] [--track] [-v]\n");
            return 2;
        }
    }
    if (!rd || !prior || matches < 1 || width < 64 || height < 48 ||
        vis_aruco_new(VIS_ARUCO_4X4_50, &det, &err) || vis_cubed_new(0, &cb, &err))
        return 2;
    if ((probe = fopen(model, "rb")) != NULL)
        fclose(probe);
    else
        reading = false;
    if (reading && vis_cubed_use_model(cb, model, &err) != 0) {
        fprintf(stderr, "bench_recognize_cubed: %s\n", err.msg);
        return 1;
    }
    if (dlist) {
        char buf[256], *tok, *save = NULL;
        snprintf(buf, sizeof buf, "%s", dlist);
        for (tok = strtok_r(buf, ",", &save); tok && ndesigns < MAX_DESIGNS;
             tok = strtok_r(NULL, ",", &save))
            if (atoi(tok) >= 0 && atoi(tok) < sim_designs("cubed"))
                designs[ndesigns++] = atoi(tok);
    } else if (reading && !bench_held_designs("cubed", model, MAX_DESIGNS, designs, &ndesigns,
                                              &err)) {
        fprintf(stderr, "bench_recognize_cubed: %s\n", err.msg);
        return 1;
    }
    if (ndesigns == 0) /* a model that saw every design, or none: every design in turn */
        for (int d = 0; d < sim_designs("cubed") && d < MAX_DESIGNS; d++)
            designs[ndesigns++] = d;
    printf("cubed tiles: %d matches of %d events at %dx%d; %s\n", matches, moves, width, height,
           reading ? model : "no model file: the lattice alone");
    printf("designs measured%s:", reading ? " (not trained on)" : "");
    for (int i = 0; i < ndesigns; i++)
        printf(" %d", designs[i]);
    printf("\n");
    for (int m = 0; m < matches; m++) {
        unsigned long long seed = seed0 + (unsigned long long)m;
        int d = designs[m % ndesigns];
        sim_options o;
        sim_stream *s = NULL;
        vis_image *img = NULL;
        char *tj = NULL;
        sim_options_default(&o);
        o.width = width;
        o.height = height;
        o.fps = 1;
        o.max_moves = moves;
        o.design = d;
        o.setup = SIM_SETUP_MIXED;
        prior->found = false; /* a new table */
        since_full = 0;
        if (sim_stream_new("cubed", seed, &o, &s, &err) != 0) {
            fprintf(stderr, "bench_recognize_cubed: %s\n", err.msg);
            return 1;
        }
        while (sim_stream_next(s, &img, &tj, &err) == 0) {
            cJSON *t = cJSON_Parse(tj);
            const cJSON *pl = cJSON_GetObjectItem(t, "placement"), *it;
            const cJSON *ps = cJSON_GetObjectItem(cJSON_GetObjectItem(t, "position"), "pieces");
            if (cJSON_IsTrue(cJSON_GetObjectItem(t, "stable")) && cJSON_GetArraySize(pl) > 0) {
                cal_mat_fit fit;
                vis_image *view = NULL;
                vis_homography top;
                vis_view vw;
                vis_cb_layout l;
                tally *pt = &per[d];
                double t_start = cpu_ms(), t0 = t_start, rot, dt;
                int miss = 0, wrong = 0, extra = 0, k = 0, rc = -1, ntruth;
                bool used[VIS_CB_MAX_TILES] = {false};
                memset(&l, 0, sizeof l);
                memset(&vw, 0, sizeof vw);
                rd->n = 0;
                rd->hand = false;
                vw.px_per_mm = 1.5; /* referee/reader.c's REF__CB_FIND_PPM */
                vw.mat_w = vw.mat_h = 500;
                vw.marker_mm = 40;
                if (cal_mat_locate(det, img, cal_mat_default(), NULL, &fit, &err) == 0 &&
                    (part[0] += cpu_ms() - t0, t0 = cpu_ms(),
                     layout_of(img, &fit, &vw, track ? prior : NULL, &since_full, &view, &l,
                               part, &t0, &err) == 0) &&
                    (part[2] += cpu_ms() - t0, t0 = cpu_ms(),
                     cal_mat_plane(&fit, NULL, VIS_CB_TOP_Z_MM, &top, &err) == 0)) {
                    rc = reading ? vis_cubed_read(cb, img, top, &l, rd, &err) : 0;
                    part[3] += cpu_ms() - t0;
                    if (l.found)
                        *prior = l;
                }
                vis_image_free(view);
                ms += cpu_ms() - t_start;
                rot = cJSON_GetNumberValue(
                    cJSON_GetObjectItem(cJSON_GetObjectItem(t, "board"), "rotation_deg"));
                {
                    /* the tiles' own mean turn, modulo 60: each lies a few degrees
                     * off the layout's, and a lone tile's lattice is its own */
                    double zr = 0, zi = 0, mean;
                    cJSON_ArrayForEach(it, pl)
                    {
                        double a = cJSON_GetNumberValue(cJSON_GetObjectItem(it, "rot_deg")) *
                                   6 * 3.14159265358979323846 / 180;
                        zr += cos(a);
                        zi += sin(a);
                    }
                    mean = atan2(zi, zr) * 180 / 3.14159265358979323846 / 6;
                    dt = fmod(l.angle_deg - mean + 3600 + 30, 60) - 30;
                }
                ntruth = cJSON_GetArraySize(pl);
                cJSON_ArrayForEach(it, pl)
                {
                    const cJSON *mm = cJSON_GetObjectItem(it, "mm");
                    double x = cJSON_GetArrayItem(mm, 0)->valuedouble,
                           y = cJSON_GetArrayItem(mm, 1)->valuedouble, near = INFINITY;
                    rules_piece p;
                    int at = -1, parity, faces[3];
                    for (int i = 0; i < l.ntiles; i++)
                        near = fmin(near, hypot(l.tiles[i].x_mm - x, l.tiles[i].y_mm - y));
                    miss += near > POS_MM;
                    for (int i = 0; i < rd->n; i++)
                        if (hypot(rd->tiles[i].x_mm - x, rd->tiles[i].y_mm - y) <= POS_MM)
                            at = i;
                    if (rules_piece_from_json("cubed", cJSON_GetArrayItem(ps, k++), &p, NULL) !=
                        0) {
                        fprintf(stderr, "bench_recognize_cubed: a truth tile unread\n");
                        return 1;
                    }
                    if (!reading)
                        continue;
                    in_frame(&p, rot, l.angle_deg, &parity, faces);
                    if (at < 0) {
                        pt->missed++;
                        all.missed++;
                        if (verbose)
                            printf("  seed %llu design %d: tile at %.0f,%.0f not read\n", seed,
                                   d, x, y);
                        continue;
                    }
                    used[at] = true;
                    if (rd->tiles[at].covered || rd->tiles[at].parity != parity ||
                        rd->tiles[at].faces[0] != faces[0] || rd->tiles[at].faces[1] != faces[1] ||
                        rd->tiles[at].faces[2] != faces[2]) {
                        const vis_cb_read *r = &rd->tiles[at];
                        wrong++;
                        if (verbose)
                            printf("  seed %llu design %d: tile at %.0f,%.0f is %d %s %s %s, "
                                   "read %d %s %s %s%s (conf %.2f, parity %.2f)\n",
                                   seed, d, x, y, parity, rules_color_name(faces[0]),
                                   rules_color_name(faces[1]), rules_color_name(faces[2]),
                                   r->parity, rules_color_name(r->faces[0]),
                                   rules_color_name(r->faces[1]), rules_color_name(r->faces[2]),
                                   r->covered ? " covered" : "", r->conf, r->parity_conf);
                    }
                }
                for (int i = 0; reading && i < rd->n; i++)
                    if (!used[i]) {
                        extra++;
                        if (verbose)
                            printf("  seed %llu design %d: a tile read at %.0f,%.0f where none "
                                   "is\n",
                                   seed, d, rd->tiles[i].x_mm, rd->tiles[i].y_mm);
                    }
                lattice_missed += miss;
                cands += l.ntiles;
                strong += l.nstrong;
                not_found += !l.found;
                turn_off += l.found && fabs(dt) > TURN_DEG;
                {
                    /* the camera's own resolution at the layout's middle */
                    double cx = 0, cy = 0, ppm;
                    int b = 0;
                    cJSON_ArrayForEach(it, pl)
                    {
                        cx += cJSON_GetArrayItem(cJSON_GetObjectItem(it, "mm"), 0)->valuedouble;
                        cy += cJSON_GetArrayItem(cJSON_GetObjectItem(it, "mm"), 1)->valuedouble;
                    }
                    ppm = rc == 0 ? cal_mat_px_per_mm(&fit, cx / ntruth, cy / ntruth) : 0;
                    while (b + 1 < NBANDS && ppm >= bands[b + 1])
                        b++;
                    band[b].frames++;
                    band[b].right += l.found && fabs(dt) <= TURN_DEG && miss == 0;
                    band[b].tiles += ntruth;
                    band[b].wrong += wrong;
                    band[b].extra += extra;
                    band[b].hand += rd->hand;
                    band[b].exact += reading && rc == 0 && wrong == 0 && extra == 0 &&
                                     !rd->hand && rd->n == ntruth;
                }
                for (int z = 0; z < 2; z++) {
                    tally *u = z ? pt : &all;
                    bool right = l.found && fabs(dt) <= TURN_DEG && miss == 0;
                    u->frames++;
                    u->tiles += ntruth;
                    u->right += right;
                    u->wrong += wrong;
                    u->extra += extra;
                    u->hand += rd->hand;
                    u->exact += reading && rc == 0 && wrong == 0 && extra == 0 &&
                                !rd->hand && rd->n == ntruth;
                }
                if (verbose && !(l.found && fabs(dt) <= TURN_DEG && miss == 0))
                    printf("  seed %llu design %d frame %d: lattice %s, turn %.1f off, %d of %d "
                           "tiles without a candidate, margin %.2f\n",
                           seed, d, (int)cJSON_GetNumberValue(cJSON_GetObjectItem(t, "frame")),
                           l.found ? "found" : "not found", dt, miss, ntruth, l.coset_margin);
            }
            cJSON_Delete(t);
            vis_image_free(img);
            free(tj);
        }
        sim_stream_free(s);
        fprintf(stderr, "match %d (design %d): %ld still frames so far\n", m + 1, d, all.frames);
    }
    printf("\n%-8s %7s %8s %8s %9s %8s %7s %6s\n", "design", "frames", "lattice%", "exact%",
           "tile err%", "missed%", "extra%", "hand%");
    for (int i = 0; i < ndesigns; i++) {
        char name[16];
        bool dup = false;
        for (int j = 0; j < i; j++)
            dup |= designs[j] == designs[i];
        if (dup || !per[designs[i]].frames)
            continue;
        snprintf(name, sizeof name, "%d", designs[i]);
        print_tally(name, &per[designs[i]]);
    }
    print_tally("all", &all);
    printf("\nby the camera's px/mm at the layout (mat located):\n");
    for (int b = 0; b < NBANDS; b++) {
        char name[16];
        if (!band[b].frames)
            continue;
        if (b + 1 < NBANDS)
            snprintf(name, sizeof name, "%.1f-%.1f", bands[b], bands[b + 1]);
        else
            snprintf(name, sizeof name, "%.1f+", bands[b]);
        print_tally(name, &band[b]);
    }
    printf("\nlattice: not found %.1f %%, turned wrong %.1f %%, tiles without a candidate %.2f %% "
           "of %ld; candidates a tile %.2f (standing out from the mat %.2f)\n",
           all.frames ? 100.0 * not_found / all.frames : 0,
           all.frames ? 100.0 * turn_off / all.frames : 0,
           all.tiles ? 100.0 * lattice_missed / all.tiles : 0, all.tiles,
           all.tiles ? (double)cands / all.tiles : 0, all.tiles ? (double)strong / all.tiles : 0);
    if (reading)
        printf("targets: exact boards >= 99%%: %.1f%% %s; per-tile error < 0.1%%: %.2f%% %s; "
               "CPU a frame <= 20 ms: %.1f ms %s\n",
               all.frames ? 100.0 * all.exact / all.frames : 0,
               all.frames && all.exact >= 0.99 * all.frames ? "met" : "MISSED",
               all.tiles ? 100.0 * (all.wrong + all.extra + all.missed) / all.tiles : 0,
               all.tiles && (all.wrong + all.extra + all.missed) * 1000 < all.tiles ? "met"
                                                                                      : "MISSED",
               all.frames ? ms / all.frames : 0,
               all.frames && ms / all.frames <= 20 ? "met" : "MISSED");
    if (all.frames)
        printf("CPU a frame by stage: mat %.1f ms, view %.1f, lattice %.1f, reading %.1f\n",
               part[0] / all.frames, part[1] / all.frames, part[2] / all.frames,
               part[3] / all.frames);
    else
        printf("CPU %.1f ms a frame (mat, view, lattice)\n", all.frames ? ms / all.frames : 0);
    vis_cubed_free(cb);
    vis_aruco_free(det);
    free(rd);
    free(prior);
    return 0;
}
