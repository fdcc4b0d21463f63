/* bench/bench_recognize_cube2.c: cube² recognition measured on simulated
 * frames of designs the model never saw.
 *
 *   bench_recognize_cube2 [MATCHES] [WIDTH HEIGHT] [--moves M] [--seed N]
 *                         [--model PATH] [--designs A,B,..] [--enrol
 * same|other] [-v]
 *
 * By default the reader uses models/cube2-held.onnx, the model `make
 * models` trains without some designs (its manifest's trained_on), and
 * the matches show those designs only, in turn (seed SEED0 + match, the
 * camera set-ups in the users' mix): the figures are for sets the model
 * has never seen.  Each match is the setup and M - 24 moves (default 34
 * events) at one frame a second; every still frame is read by ref_reader,
 * the path of `tablecam recognize` and of the live referee, and compared
 * square by square with the truth (FORMATS.md 4: cube2 positions are in
 * the board's own squares, nothing is translated).
 *
 * Prints per design and in all: still frames, the share whose board was
 * found where the truth has it, the share read whole and exact (no square
 * wrong, no hand reported), the per-square and per-piece error, and CPU
 * milliseconds a frame, next to the targets (issue: 99 % exact, per-piece
 * error under 0.1 %, 20 ms a frame on one core).  --enrol reads with the
 * set enrolled (FORMATS.md 7) from the simulator's photo of it, as
 * `tablecam calibrate pieces --game cube2` would: `other` with another
 * camera and light than the matches' (once a design), `same` with each
 * match's own.  -v names every miss. */
#define _XOPEN_SOURCE 700
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "calib.h"
#include "enrol.h"
#include "held.h"
#include "referee.h"
#include "rules.h"
#include "sim.h"

#define SEED0 920000
#define MAX_DESIGNS 64
#define SIDE 6

typedef struct tally {
    long frames, found, exact, squares, square_wrong, pieces, piece_wrong, hand;
    double ms;
} tally;

static double cpu_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* Square contents: -1 empty, else colour * 2 + shape. */
static void truth_squares(const cJSON *t, int sq[SIDE][SIDE])
{
    const cJSON *it;
    for (int r = 0; r < SIDE; r++)
        for (int c = 0; c < SIDE; c++)
            sq[r][c] = -1;
    cJSON_ArrayForEach(it, cJSON_GetObjectItem(cJSON_GetObjectItem(t, "position"), "pieces"))
    {
        rules_piece p;
        if (rules_piece_from_json("cube2", it, &p, NULL) == 0 && p.x >= 0 && p.x < SIDE &&
            p.y >= 0 && p.y < SIDE)
            sq[p.y][p.x] = p.a * 2 + p.b;
    }
}

static void print_row(const char *name, const tally *t)
{
    printf("%-10s %7ld %7.1f %8.1f %9.3f %9.3f %7.1f %7.1f\n", name, t->frames,
           t->frames ? 100.0 * t->found / t->frames : 0, t->frames ? 100.0 * t->exact / t->frames : 0,
           t->squares ? 100.0 * t->square_wrong / t->squares : 0,
           t->pieces ? 100.0 * t->piece_wrong / t->pieces : 0,
           t->frames ? 100.0 * t->hand / t->frames : 0, t->frames ? t->ms / t->frames : 0);
}

int main(int argc, char **argv)
{
    int matches = 12, width = 1280, height = 960, moves = 34, npos = 0, designs[MAX_DESIGNS];
    int ndesigns = 0;
    unsigned long long seed0 = SEED0;
    const char *model = TABLECAM_SOURCE_DIR "/models/cube2-held.onnx", *dlist = NULL;
    bool verbose = false;
    int enrol = 0; /* 0 none, 1 another camera (--enrol other), 2 the match's (same) */
    char *enrolled[MAX_DESIGNS] = {NULL};
    int enrol_failed = 0, retakes = 0;
    tally per[MAX_DESIGNS], all;
    ref_reader *rd = NULL;
    ref_reading *reading = malloc(sizeof *reading);
    ref_reader_config cfg = {"cube2", NULL, NULL, 0};
    base_err err;

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--moves") == 0 && i + 1 < argc)
            moves = atoi(argv[++i]);
        else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
            seed0 = strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--model") == 0 && i + 1 < argc)
            model = argv[++i];
        else if (strcmp(argv[i], "--designs") == 0 && i + 1 < argc)
            dlist = argv[++i];
        else if (strcmp(argv[i], "--enrol") == 0 && i + 1 < argc) {
            i++;
            enrol = strcmp(argv[i], "other") == 0 ? 1 : strcmp(argv[i], "same") == 0 ? 2 : -1;
            if (enrol < 0) {
                fprintf(stderr, "bench_recognize_cube2: --enrol wants same or other\n");
                return 2;
            }
        } else if (strcmp(argv[i], "-v") == 0)
            verbose = true;
        else if (argv[i][0] != '-' && npos < 3) {
            int v = atoi(argv[i]);
            if (npos == 0)
                matches = v;
            else if (npos == 1)
                width = v;
            else
                height = v;
            npos++;
        } else {
            fprintf(stderr, "usage: bench_recognize_cube2 [MATCHES] [WIDTH HEIGHT] [--moves M] "
                            "[--seed N] [--model PATH] [--designs A,B,..] [--enrol same|other] "
                            "[-v]\n");
            return 2;
        }
    }
    if (!reading || matches < 1 || width < 64 || height < 48)
        return 2;
    if (dlist) {
        char buf[256], *tok, *save = NULL;
        snprintf(buf, sizeof buf, "%s", dlist);
        for (tok = strtok_r(buf, ",", &save); tok && ndesigns < MAX_DESIGNS;
             tok = strtok_r(NULL, ",", &save))
            designs[ndesigns++] = atoi(tok);
    } else if (!bench_held_designs("cube2", model, MAX_DESIGNS, designs, &ndesigns, &err)) {
        fprintf(stderr, "bench_recognize_cube2: %s\n", err.msg);
        return 1;
    }
    if (ndesigns == 0) { /* a model that saw every design: measure them all */
        for (int d = 0; d < sim_designs("cube2") && d < MAX_DESIGNS; d++)
            designs[ndesigns++] = d;
    }
    if (ref_reader_new(&cfg, &rd, &err) != 0 || ref_reader_use_model(rd, model, &err) != 0) {
        fprintf(stderr, "bench_recognize_cube2: %s\n", err.msg);
        return 1;
    }
    ref_reader_free(rd); /* a reader per match: each match is a table of its own */
    rd = NULL;
    memset(per, 0, sizeof per);
    memset(&all, 0, sizeof all);
    printf("cube2 recognition: %d matches of %d events at %dx%d, model %s\n", matches, moves,
           width, height, model);
    printf("designs measured (not trained on):");
    for (int i = 0; i < ndesigns; i++)
        printf(" %d", designs[i]);
    printf("\n");
    for (int i = 0; enrol == 1 && i < ndesigns; i++)
        if (designs[i] < 0 || designs[i] >= MAX_DESIGNS ||
            bench_enrol_design("cube2", model, designs[i], width, height,
                               BENCH_ENROL_SEED0 + 100 * (uint64_t)designs[i], SIM_SETUP_GOOD,
                               BENCH_ENROL_TAKES, &enrolled[designs[i]], &retakes, &err) != 0) {
            /* a set that cannot be enrolled is read without: counted */
            printf("design %d: enrolment failed: %s\n", designs[i], err.msg);
            enrol_failed++;
        }
    for (int m = 0; m < matches; m++) {
        int d = designs[m % ndesigns];
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
        o.design = d;
        o.setup = SIM_SETUP_MIXED;
        if (enrol == 2 && d >= 0 && d < MAX_DESIGNS) {
            /* the set enrolled at this table: the match's own camera and light */
            free(enrolled[d]);
            enrolled[d] = NULL;
            if (bench_enrol_design("cube2", model, d, width, height, seed, o.setup, 1, &enrolled[d],
                                   &retakes, &err) != 0) {
                printf("seed %llu: enrolment failed: %s\n", seed, err.msg);
                enrol_failed++;
            }
        }
        if (bench_new_reader("cube2", model, d >= 0 && d < MAX_DESIGNS ? enrolled[d] : NULL, &rd,
                             &err) != 0 ||
            sim_stream_new("cube2", seed, &o, &s, &err) != 0) {
            fprintf(stderr, "bench_recognize_cube2: %s\n", err.msg);
            return 1;
        }
        while (sim_stream_next(s, &img, &tj, &err) == 0) {
            cJSON *t = cJSON_Parse(tj);
            if (cJSON_IsTrue(cJSON_GetObjectItem(t, "stable"))) {
                int want[SIDE][SIDE], got[SIDE][SIDE], wrong = 0;
                const cJSON *bo = cJSON_GetObjectItem(t, "board");
                const cJSON *org = cJSON_GetObjectItem(bo, "origin_mm");
                tally *pt = &per[m % ndesigns];
                double t0 = cpu_ms(), ms;
                int rc = ref_reader_read(rd, img, reading, &err);
                ms = cpu_ms() - t0;
                truth_squares(t, want);
                for (int r = 0; r < SIDE; r++)
                    for (int c = 0; c < SIDE; c++)
                        got[r][c] = -1;
                for (int i = 0; rc == 0 && i < reading->n; i++) {
                    const rules_piece *p = &reading->pieces[i];
                    if (p->x >= 0 && p->x < SIDE && p->y >= 0 && p->y < SIDE)
                        got[p->y][p->x] = p->a * 2 + p->b;
                }
                for (tally *tt = pt; tt; tt = tt == pt ? &all : NULL) {
                    tt->frames++;
                    tt->ms += ms;
                    tt->hand += rc == 0 && reading->hand;
                }
                /* the board where the truth has it: square (0, 0) within
                 * half a square and the turn within two degrees */
                bool found = rc == 0 && !reading->hand &&
                             fabs(reading->grid_angle_deg -
                                  cJSON_GetNumberValue(cJSON_GetObjectItem(bo, "rotation_deg"))) < 2;
                (void)org;
                for (int r = 0; r < SIDE; r++)
                    for (int c = 0; c < SIDE; c++) {
                        bool bad = rc != 0 || got[r][c] != want[r][c];
                        wrong += bad;
                        pt->squares++;
                        all.squares++;
                        pt->square_wrong += bad;
                        all.square_wrong += bad;
                        if (want[r][c] >= 0) {
                            pt->pieces++;
                            all.pieces++;
                            pt->piece_wrong += bad;
                            all.piece_wrong += bad;
                        }
                        if (bad && verbose)
                            printf("  design %d seed %llu frame %d: square (%d,%d) is %d, "
                                   "read %d%s\n",
                                   d, seed,
                                   (int)cJSON_GetNumberValue(cJSON_GetObjectItem(t, "frame")), c, r,
                                   want[r][c], rc == 0 ? got[r][c] : -9,
                                   rc == 0 && reading->hand ? " (hand)" : "");
                    }
                pt->found += found;
                all.found += found;
                pt->exact += wrong == 0 && rc == 0 && !reading->hand;
                all.exact += wrong == 0 && rc == 0 && !reading->hand;
            }
            cJSON_Delete(t);
            vis_image_free(img);
            free(tj);
        }
        sim_stream_free(s);
        ref_reader_free(rd);
        rd = NULL;
        fprintf(stderr, "match %d (design %d): %ld still frames so far\n", m + 1, d, all.frames);
    }
    printf("\n%-10s %7s %7s %8s %9s %9s %7s %7s\n", "design", "frames", "found%", "exact%",
           "square%err", "piece%err", "hand%", "ms");
    for (int i = 0; i < ndesigns && i < matches; i++) {
        char name[16];
        snprintf(name, sizeof name, "%d", designs[i]);
        print_row(name, &per[i]);
    }
    print_row("all", &all);
    if (enrol)
        printf("\neach %s's set enrolled with %s camera (%d enrolments failed, %d "
               "photos taken "
               "again)\n",
               enrol == 1 ? "design" : "match", enrol == 1 ? "another" : "its own", enrol_failed,
               retakes);
    printf("\ntargets: exact boards >= 99%%: %.1f%% %s; per-piece error < 0.1%%: "
           "%.3f%% %s; "
           "<= 20 ms a frame: %.1f ms %s\n",
           all.frames ? 100.0 * all.exact / all.frames : 0,
           all.frames && all.exact >= 0.99 * all.frames ? "met" : "MISSED",
           all.pieces ? 100.0 * all.piece_wrong / all.pieces : 0,
           all.pieces && all.piece_wrong < 0.001 * all.pieces ? "met" : "MISSED",
           all.frames ? all.ms / all.frames : 0,
           all.frames && all.ms / all.frames <= 20 ? "met" : "MISSED");
    for (int i = 0; i < MAX_DESIGNS; i++)
        free(enrolled[i]);
    free(reading);
    return 0;
}
