/* bench/bench_recognize.c: Qwirkle Cubes recognition measured on simulated
 * frames (seeds the tests never use) of designs of the set the model never
 * saw.  Prints piece precision and recall, the per-piece error, the colour
 * and shape confusion tables, how often a piece read at a confidence is
 * right, the share of frames whose whole board is read exactly, hand
 * detection, milliseconds per frame and per classified cube, next to the
 * targets (99% exact boards on frames the referee reads without camera
 * advice, per-piece error under 0.1 %, at most 20 ms per 1280x960 frame
 * and 0.1 ms a cube).
 *
 *   bench_recognize [FRAMES] [WIDTH HEIGHT] [--clean] [--dump DIR]
 *                   [--cache DIR] [--seed N] [--model PATH]
 *                   [--designs all|D,D,...] [--setup mixed|any|good]
 *                   [--enrol same|other] [-v]
 *
 * By default the reader uses models/qwirkle-held.onnx, the model `make
 * models` trains without some designs (its manifest's trained_on), and
 * the streams are drawn in the designs it left out (stream seed s takes
 * the (s mod n)-th), with the users' mix of camera set-ups: the figures
 * are for cubes the model has never seen.  --model reads with another
 * model (the designs it left out, or all when it saw them all); --designs
 * draws the streams from those designs instead.  --enrol reads the frames
 * with the set enrolled (FORMATS.md 7) from six photos the simulator
 * renders of it (sim_options.enrol), as `tablecam calibrate pieces`
 * would: `same` with each stream's own camera and light (a user enrols
 * at the table, then plays), `other` once a design with a camera and
 * light of their own.  Run with and without to see the gain.
 *
 * --dump writes every missed frame and its rectified view as PNG; --cache
 * keeps the frames the bench uses in DIR (rendered on the first run, read
 * back on the next ones, which then skip the simulator: delete DIR after
 * the simulator changes; a cache read back starts at its own first seed,
 * and a --seed that differs is refused); --seed starts at another sim
 * seed (a second sample, to check that a change is not tuned to the
 * first); -v names
 * every missed frame and what was wrong in it. */
#define _XOPEN_SOURCE 700
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "band.h"
#include "enrol.h"
#include "held.h"
#include "calib.h"
#include "classify.h"
#include "referee.h"
#include "sim.h"

#define SEED0 900000
#define MAX_DESIGNS 64
/* CPU seconds of the whole process (all threads). */
static double proc_cpu(void) { return (double)clock() / CLOCKS_PER_SEC; }

typedef struct cmp {
    int tp, fp, fn;
    int color_conf[6][7]; /* truth x read (6 = missing) */
    int shape_conf[6][7];
    int conf_right[10], conf_wrong[10]; /* confidence deciles of right / wrong reads */
    int turned; /* boards read turned by a multiple of 90 degrees */
} cmp;

/* Best match of the reading to the truth over the four grid rotations and
 * every translation; fills the counts and returns whether it is exact.
 * FORMATS.md section 4 compares positions up to a translation only (the
 * cells are in the mat's frame), so a board read turned is never exact
 * (and counted in c->turned); its pieces are still matched turned, so
 * that the tables say what was read. */
static bool compare(const rules_piece *truth, int nt, const ref_reading *rd, cmp *c, bool verbose)
{
    int best = -1, bk = 0, bdx = 0, bdy = 0;
    for (int k = 0; k < 4; k++)
        for (int i = 0; i < nt; i++)
            for (int j = 0; j < rd->n; j++) {
                int rx = rd->pieces[j].x, ry = rd->pieces[j].y, qx, qy;
                for (int r = 0; r < k; r++) {
                    int t = rx;
                    rx = -ry;
                    ry = t;
                }
                qx = truth[i].x - rx;
                qy = truth[i].y - ry;
                int votes = 0;
                for (int a = 0; a < nt; a++)
                    for (int b = 0; b < rd->n; b++) {
                        int sx = rd->pieces[b].x, sy = rd->pieces[b].y;
                        for (int r = 0; r < k; r++) {
                            int t = sx;
                            sx = -sy;
                            sy = t;
                        }
                        if (sx + qx == truth[a].x && sy + qy == truth[a].y) {
                            votes++;
                            break;
                        }
                    }
                if (votes > best) {
                    best = votes;
                    bk = k;
                    bdx = qx;
                    bdy = qy;
                }
            }
    bool exact = bk == 0 || nt == 0;
    unsigned char used[REF_MAX_READ] = {0};
    if (!exact) {
        c->turned++;
        if (verbose)
            printf("  read turned by %d degrees\n", 90 * bk);
    }
    for (int a = 0; a < nt; a++) {
        int hit = -1;
        for (int b = 0; b < rd->n && hit < 0; b++) {
            int sx = rd->pieces[b].x, sy = rd->pieces[b].y;
            for (int r = 0; r < bk; r++) {
                int t = sx;
                sx = -sy;
                sy = t;
            }
            if (!used[b] && sx + bdx == truth[a].x && sy + bdy == truth[a].y)
                hit = b;
        }
        if (hit < 0) {
            if (verbose)
                printf("  missed %s %s at (%d,%d)\n", rules_color_name(truth[a].a),
                       rules_shape_name(truth[a].b), truth[a].x, truth[a].y);
            c->fn++;
            c->color_conf[truth[a].a][6]++;
            c->shape_conf[truth[a].b][6]++;
            exact = false;
            continue;
        }
        used[hit] = 1;
        c->color_conf[truth[a].a][rd->pieces[hit].a]++;
        c->shape_conf[truth[a].b][rd->pieces[hit].b]++;
        {
            int d = (int)(rd->conf[hit] * 10);
            d = d < 0 ? 0 : d > 9 ? 9 : d;
            if (rd->pieces[hit].a == truth[a].a && rd->pieces[hit].b == truth[a].b) {
                c->tp++;
                c->conf_right[d]++;
            } else {
                if (verbose)
                    printf("  misread %s %s as %s %s at (%d,%d) conf %.2f (read at "
                           "%.0f,%.0f mm)\n",
                           rules_color_name(truth[a].a), rules_shape_name(truth[a].b),
                           rules_color_name(rd->pieces[hit].a), rules_shape_name(rd->pieces[hit].b),
                           truth[a].x, truth[a].y, rd->conf[hit], rd->x_mm[hit], rd->y_mm[hit]);
                c->conf_wrong[d]++;
                exact = false;
            }
        }
    }
    for (int b = 0; b < rd->n; b++)
        if (!used[b]) {
            int d = (int)(rd->conf[b] * 10);
            c->conf_wrong[d < 0 ? 0 : d > 9 ? 9 : d]++;
            if (verbose)
                printf("  extra %s %s at %.0f,%.0f mm conf %.2f\n", rules_color_name(rd->pieces[b].a),
                       rules_shape_name(rd->pieces[b].b), rd->x_mm[b], rd->y_mm[b], rd->conf[b]);
            c->fp++;
            exact = false;
        }
    return exact;
}

static void table(const char *title, int m[6][7], const char *(*name)(int))
{
    printf("%s (rows: truth, columns: read; '-' missed)\n%8s", title, "");
    for (int j = 0; j < 6; j++)
        printf(" %7.7s", name(j));
    printf(" %7s\n", "-");
    for (int i = 0; i < 6; i++) {
        printf("%8.8s", name(i));
        for (int j = 0; j < 7; j++)
            printf(" %7d", m[i][j]);
        printf("\n");
    }
}

int main(int argc, char **argv)
{
    int want = 300, width = 1280, height = 960, frames = 0, exact = 0, hands = 0, hand_ok = 0;
    int hand_frames = 0, errors = 0;
    /* frames whose hand covers a cube's top: reported, or read anyway and
     * then with the board exact (the covered cube seen after all) or not
     * (a guess: what the referee must never be given) */
    int covered = 0, covered_ok = 0, covered_exact = 0;
    unsigned long long seed0 = SEED0;
    bool clean = false, verbose = false, cache_write = false, seed_given = false;
    int enrol = 0; /* 0 none, 1 another camera (--enrol other), 2 the stream's (same) */
    char *enrolled[MAX_DESIGNS] = {NULL};
    int enrol_failed = 0, retakes = 0;
    const char *dump = NULL, *cache = NULL, *designs_s = NULL;
    const char *model = TABLECAM_SOURCE_DIR "/models/qwirkle-held.onnx";
    int designs[MAX_DESIGNS], ndesigns = 0, setup = SIM_SETUP_MIXED;
    int truth_pieces = 0, read_sure = 0, right_sure = 0;
    FILE *idx = NULL;
    double ms = 0;
    cmp c;
    /* the blur steps the reader can fit (0.5 0.7 0.9 1.15 1.4 1.7 2.0 2.4
     * 2.8 mm), one to a band */
    band by_blur = {"mm", 8, {0.6, 0.8, 1.0, 1.3, 1.55, 1.85, 2.2, 2.6}, {0}, {0}};
    band by_ppm = {"px/mm", 5, {0.6, 0.8, 1.0, 1.25, 1.5}, {0}, {0}};
    advised by_advice = {{0}, {0}};
    ref_reader *rd = NULL;
    ref_reading *reading = malloc(sizeof *reading);
    rules_piece *truth = malloc(sizeof *truth * 200);
    base_err e;
    ref_reader_config cfg = {"qwirkle", NULL, NULL, 0};

    memset(&c, 0, sizeof c);
    /* the targets are one core's time: OpenCV's pool would add its
     * threads' overhead to the process's CPU time */
    vis_cv_set_threads(1);
    int pos[3], npos = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--clean") == 0)
            clean = true;
        else if (strcmp(argv[i], "--dump") == 0 && i + 1 < argc)
            dump = argv[++i];
        else if (strcmp(argv[i], "--cache") == 0 && i + 1 < argc)
            cache = argv[++i];
        else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
        {
            seed0 = strtoull(argv[++i], NULL, 10);
            seed_given = true;
        }
        else if (strcmp(argv[i], "--model") == 0 && i + 1 < argc)
            model = argv[++i];
        else if (strcmp(argv[i], "--designs") == 0 && i + 1 < argc)
            designs_s = argv[++i];
        else if (strcmp(argv[i], "--setup") == 0 && i + 1 < argc) {
            if (!sim_setup_from_name(argv[++i], &setup)) {
                fprintf(stderr, "bench_recognize: --setup wants mixed, any or good\n");
                return 2;
            }
        }
        else if (strcmp(argv[i], "--enrol") == 0 && i + 1 < argc) {
            i++;
            if (strcmp(argv[i], "other") == 0)
                enrol = 1;
            else if (strcmp(argv[i], "same") == 0)
                enrol = 2;
            else {
                fprintf(stderr, "bench_recognize: --enrol wants same or other\n");
                return 2;
            }
        }
        else if (strcmp(argv[i], "-v") == 0)
            verbose = true;
        else if (atoi(argv[i]) > 0 && npos < 3)
            pos[npos++] = atoi(argv[i]);
        else {
            fprintf(stderr, "bench_recognize: unknown argument '%s'\n", argv[i]);
            return 2;
        }
    }
    bench_sizes(pos, npos, &want, &width, &height);
    if (ref_reader_new(&cfg, &rd, &e) != 0 || ref_reader_use_model(rd, model, &e) != 0) {
        fprintf(stderr, "bench_recognize: %s\n", e.msg);
        return 1;
    }
    if (designs_s && strcmp(designs_s, "all") != 0) {
        for (const char *p = designs_s; *p && ndesigns < MAX_DESIGNS;) {
            char *end;
            long d = strtol(p, &end, 10);
            if (end == p || d < 0 || d >= sim_designs("qwirkle") || (*end && *end != ',')) {
                fprintf(stderr, "bench_recognize: --designs wants all or a list like 4,7 of "
                                "designs 0..%d, not '%s'\n", sim_designs("qwirkle") - 1, designs_s);
                return 2;
            }
            designs[ndesigns++] = (int)d;
            p = *end ? end + 1 : end;
        }
    } else if (!designs_s &&
               !bench_held_designs("qwirkle", model, MAX_DESIGNS, designs, &ndesigns, &e)) {
        fprintf(stderr, "bench_recognize: the manifest of %s: %s\n", model, e.msg);
        return 1;
    }
    if (ndesigns == 0)
        for (int d = 0; d < sim_designs("qwirkle"); d++)
            designs[ndesigns++] = d;
    for (int i = 0; enrol == 1 && i < ndesigns; i++)
        if (bench_enrol_design("qwirkle", model, designs[i], width, height,
                               BENCH_ENROL_SEED0 + 100 * (uint64_t)designs[i], SIM_SETUP_GOOD,
                               BENCH_ENROL_TAKES, &enrolled[designs[i]], &retakes, &e) != 0) {
            /* a set that cannot be enrolled is read without: counted */
            printf("design %d: enrolment failed: %s\n", designs[i], e.msg);
            enrol_failed++;
        }
    if (cache) {
        char path[600], what[512] = "", had[512] = "";
        FILE *f;
        int at = snprintf(what, sizeof what, "%dx%d%s setup %d designs", width, height,
                          clean ? " clean" : "", setup);
        for (int i = 0; i < ndesigns && at < (int)sizeof what - 8; i++)
            at += snprintf(what + at, sizeof what - (size_t)at, " %d", designs[i]);
        /* the frames a cache holds follow from these: another frame size,
         * set-up or design list would be read as the wrong frames */
        snprintf(path, sizeof path, "%s/options.txt", cache);
        if ((f = fopen(path, "r")) != NULL) {
            if (!fgets(had, sizeof had, f))
                had[0] = 0;
            had[strcspn(had, "\n")] = 0;
            fclose(f);
            if (strcmp(had, what) != 0) {
                fprintf(stderr, "bench_recognize: %s holds frames of '%s', not '%s'\n", cache,
                        had, what);
                return 2;
            }
        } else if ((f = fopen(path, "w")) != NULL) {
            fprintf(f, "%s\n", what);
            fclose(f);
        }
        snprintf(path, sizeof path, "%s/frames.jsonl", cache);
        idx = fopen(path, "r");
        cache_write = idx == NULL;
        if (cache_write && !(idx = fopen(path, "w"))) {
            fprintf(stderr, "bench_recognize: cannot write %s\n", path);
            return 1;
        }
        if (!cache_write) {
            /* The cache holds the frames of the seeds it was made from: a
             * run starting at another seed would look for frames it never
             * finds, seed after seed, for ever (this was the "hang" of
             * --seed with --cache).  Without --seed the cache's own first
             * seed is used. */
            char line[64];
            unsigned long long first;
            if (!fgets(line, sizeof line, idx) || sscanf(line, "%llu", &first) != 1) {
                fprintf(stderr, "bench_recognize: %s is empty or not a frame index\n", path);
                return 1;
            }
            rewind(idx);
            if (seed_given && first != seed0) {
                fprintf(stderr, "bench_recognize: %s starts at seed %llu, not %llu (--seed)\n",
                        path, first, seed0);
                return 2;
            }
            seed0 = first;
        }
    }
    for (uint64_t seed = seed0; frames < want; seed++) {
        sim_options o;
        sim_stream *s = NULL;
        vis_image *img;
        char *tj;
        sim_options_default(&o);
        o.width = width;
        o.height = height;
        o.clean = clean;
        o.max_moves = 2 + (int)(seed % 12) * 3;
        o.design = designs[seed % (uint64_t)ndesigns];
        o.setup = setup;
        if ((!cache || cache_write) && sim_stream_new("qwirkle", seed, &o, &s, &e) != 0) {
            fprintf(stderr, "bench_recognize: %s\n", e.msg);
            return 1;
        }
        /* Each seed: a fresh camera and board; read every frame, compare
         * the stable ones (and check hands on the others). */
        ref_reader_free(rd);
        rd = NULL;
        if (enrol == 2) {
            /* the set enrolled at this table: the stream's own camera and
             * light (sim: the same seed) */
            free(enrolled[o.design]);
            enrolled[o.design] = NULL;
            if (bench_enrol_design("qwirkle", model, o.design, width, height, seed, setup, 1,
                                   &enrolled[o.design], &retakes, &e) != 0) {
                if (verbose)
                    printf("seed %llu: enrolment failed: %s\n", (unsigned long long)seed, e.msg);
                enrol_failed++;
            }
        }
        if (bench_new_reader("qwirkle", model, enrolled[o.design], &rd, &e) != 0) {
            fprintf(stderr, "bench_recognize: %s\n", e.msg);
            return 1;
        }
        int k = 0, nstable = 0, nhand = 0;
        for (;;) {
            bool more = frames < want && (nstable < 10 || (cache && !cache_write));
            if (more && cache && !cache_write) {
                /* the next cached frame of this seed, if any */
                long pos = ftell(idx);
                unsigned long long fseed;
                char line[65536], file[600];
                more = fgets(line, sizeof line, idx) != NULL &&
                       sscanf(line, "%llu %d", &fseed, &k) == 2 && fseed == seed;
                if (!more) {
                    fseek(idx, pos, SEEK_SET);
                    if (feof(idx) || fgets(line, sizeof line, idx) == NULL)
                        want = frames; /* the cache is used up */
                    fseek(idx, pos, SEEK_SET);
                    break;
                }
                tj = strdup(strchr(strchr(line, ' ') + 1, ' ') + 1);
                snprintf(file, sizeof file, "%s/f-%llu-%d.png", cache, fseed, k);
                if (vis_image_read(file, 3, &img, &e) != 0) {
                    fprintf(stderr, "bench_recognize: %s\n", e.msg);
                    return 1;
                }
            } else if (!more || sim_stream_next(s, &img, &tj, &e) != 0) {
                break;
            } else {
                k++;
            }
            cJSON *t = cJSON_Parse(tj);
            bool stable = cJSON_IsTrue(cJSON_GetObjectItem(t, "stable"));
            bool hand = cJSON_IsTrue(cJSON_GetObjectItem(t, "hand_in_view"));
            bool use = (stable && k % 6 == 0 && nstable < 10) || (hand && k % 5 == 0 && nhand < 6);
            nstable += use && stable;
            nhand += use && !stable && hand;
            if (!use) {
                cJSON_Delete(t);
                free(tj);
                vis_image_free(img);
                continue;
            }
            if (cache_write) {
                char file[600];
                snprintf(file, sizeof file, "%s/f-%llu-%d.png", cache, (unsigned long long)seed, k);
                vis_image_write(file, img, 0, NULL);
                fprintf(idx, "%llu %d %s\n", (unsigned long long)seed, k, tj);
            }
            /* CPU time of the process, every thread of OpenCV's pool
             * counted: the machine may be busy with other work, and the
             * target is one core's time. */
            double t0 = proc_cpu();
            int rc = ref_reader_read(rd, img, reading, &e);
            double dt = (proc_cpu() - t0) * 1000;
            if (verbose && dt > 20)
                printf("slow: seed %llu frame %d: %.1f ms\n", (unsigned long long)seed, k, dt);
            const cJSON *ps = cJSON_GetObjectItem(cJSON_GetObjectItem(t, "position"), "pieces");
            int nt = 0;
            for (const cJSON *p = ps ? ps->child : NULL; p && nt < 200; p = p->next)
                if (rules_piece_from_json("qwirkle", p, &truth[nt], NULL) == 0)
                    nt++;
            if (stable) {
                frames++;
                ms += dt;
                if (rc != 0) {
                    if (verbose)
                        printf("miss: seed %llu frame %d: %s\n", (unsigned long long)seed, k, e.msg);
                    errors++;
                    c.fn += nt;
                } else {
                    bool ok = compare(truth, nt, reading, &c, false);
                    truth_pieces += nt;
                    exact += ok && !reading->hand;
                    band_add(&by_blur, reading->blur_mm, ok && !reading->hand);
                    band_add(&by_ppm, reading->cam_px_per_mm, ok && !reading->hand);
                    advised_add(&by_advice, "qwirkle", reading, ok && !reading->hand);
                    if (verbose && (!ok || reading->hand)) {
                        cmp scratch;
                        printf("miss: seed %llu frame %d (%d pieces, read %d%s; blur %.2f mm, "
                               "camera %.2f px/mm)\n",
                               (unsigned long long)seed, k, nt, reading->n,
                               reading->hand ? ", hand" : "", reading->blur_mm,
                               reading->cam_px_per_mm);
                        compare(truth, nt, reading, &scratch, true);
                    }
                    if ((!ok || reading->hand) && dump) {
                        char path[512];
                        snprintf(path, sizeof path, "%s/miss-%llu-%d.png", dump,
                                 (unsigned long long)seed, k);
                        vis_image_write(path, img, 0, NULL);
                        cal_mat_fit fit;
                        vis_image *top = NULL;
                        if (ref_reader_fit(rd, &fit) &&
                            cal_rectify(img, &fit, cal_mat_default(), NULL, 20, 3.0, 10, &top,
                                        NULL) == 0) {
                            snprintf(path, sizeof path, "%s/miss-%llu-%d-top.png", dump,
                                     (unsigned long long)seed, k);
                            vis_image_write(path, top, 0, NULL);
                            vis_image_free(top);
                        }
                    }
                }
                hands += rc == 0 && reading->hand; /* false alarms */
            } else if (hand) {
                const cJSON *pl = cJSON_GetObjectItem(t, "placement");
                bool hid = false;
                hand_frames++;
                hand_ok += rc == 0 && reading->hand;
                for (const cJSON *p = pl ? pl->child : NULL; p; p = p->next)
                    hid = hid || cJSON_IsTrue(cJSON_GetObjectItem(p, "hidden"));
                if (hid && rc == 0) {
                    cmp scratch;
                    memset(&scratch, 0, sizeof scratch);
                    covered++;
                    covered_ok += reading->hand;
                    covered_exact += !reading->hand && compare(truth, nt, reading, &scratch, false);
                    if (verbose && !reading->hand)
                        printf("hand over a cube not reported: seed %llu frame %d\n",
                               (unsigned long long)seed, k);
                }
            }
            cJSON_Delete(t);
            free(tj);
            vis_image_free(img);
        }
        sim_stream_free(s);
        if (cache && !cache_write && frames >= want)
            break;
    }
    if (idx)
        fclose(idx);
    printf("qwirkle recognition: %d stable frames %dx%d%s (sim seeds from %llu), "
           "model %s\n",
           frames, width, height, clean ? " clean" : "", seed0, model);
    printf("designs drawn:");
    for (int i = 0; i < ndesigns; i++)
        printf(" %d", designs[i]);
    printf("; camera set-ups %s", sim_setup_name(setup));
    if (enrol == 1)
        printf("; each design's set enrolled with another camera (%d of %d enrolments "
               "failed, %d photos taken again)",
               enrol_failed, ndesigns, retakes);
    if (enrol == 2)
        printf("; each stream's set enrolled with its own camera (%d enrolments "
               "failed: "
               "read without)",
               enrol_failed);
    printf("\n");
    printf("pieces: precision %.4f recall %.4f (tp %d, fp %d, fn %d)\n",
           c.tp + c.fp ? (double)c.tp / (c.tp + c.fp) : 0, c.tp + c.fn ? (double)c.tp / (c.tp + c.fn) : 0,
           c.tp, c.fp, c.fn);
    table("colour", c.color_conf, rules_color_name);
    table("shape", c.shape_conf, rules_shape_name);
    printf("confidence of the pieces read (deciles 0.0-0.1 ... 0.9-1.0)\n  right:");
    for (int d = 0; d < 10; d++)
        printf(" %5d", c.conf_right[d]);
    printf("\n  wrong:");
    for (int d = 0; d < 10; d++)
        printf(" %5d", c.conf_wrong[d]);
    printf("   (wrong: misread or not there)\n");
    /* the top decile: conf 0.9 or more, what the referee takes as read */
    read_sure = c.conf_right[9] + c.conf_wrong[9];
    right_sure = c.conf_right[9];
    printf("read at conf 0.9 or more: %d pieces, %.2f%% right (target 90%%) %s\n", read_sure,
           read_sure ? 100.0 * right_sure / read_sure : 0,
           right_sure >= 0.9 * read_sure ? "PASS" : "MISS");
    {
        /* misread, missed or not there, against the pieces on the boards */
        int wrong = truth_pieces - c.tp + c.fp;
        double pe = truth_pieces ? (double)wrong / truth_pieces : 1;
        printf("per-piece error: %.3f%% (%d of %d; target under 0.1%%) %s\n", 100 * pe, wrong,
               truth_pieces, pe < 0.001 ? "PASS" : "MISS");
    }
    band_print("whole board exact by the symbols' blur the reader fitted (mm)", &by_blur);
    band_print("whole board exact by the camera's px/mm at the board", &by_ppm);
    advised_print(&by_advice);
    printf("boards read turned in the mat's frame: %d frames\n", c.turned);
    printf("mat not found: %d frames\n", errors);
    printf("hand reported on a still board: %d frames (false alarms)\n", hands);
    printf("hand seen when one is in view: %d of %d frames\n", hand_ok, hand_frames);
    printf("hand covering a cube: reported on %d of %d frames; of the %d read, "
           "%d exact, %d "
           "guessed\n",
           covered_ok, covered, covered - covered_ok, covered_exact,
           covered - covered_ok - covered_exact);
    printf("whole board exact: %.2f%% of all frames\n", 100.0 * exact / frames);
    printf("whole board exact without camera advice: %.2f%% (target 99%%) %s\n",
           by_advice.n[0] ? 100.0 * by_advice.ok[0] / by_advice.n[0] : 0,
           by_advice.ok[0] >= 0.99 * by_advice.n[0] ? "PASS" : "MISS");
    printf("time: %.2f ms CPU per frame (target at most 20 ms) %s\n", ms / frames,
           ms / frames <= 20 ? "PASS" : "MISS");
    {
        /* the classifier alone, a frame's worth of cubes in one pass */
        vis_classifier *cl = NULL;
        if (vis_classifier_new(model, &cl, &e) == 0) {
            const int n = 64, reps = 50, sz = vis_classifier_patch_size(cl);
            vis_image *p[64];
            float *pr = malloc(sizeof *pr * (size_t)n * (size_t)vis_classifier_nvalues(cl));
            double t0;
            for (int i = 0; i < n; i++) {
                vis_image_new(sz, sz, 3, &p[i], NULL);
                for (int y = 0; y < sz; y++)
                    for (int x = 0; x < sz * 3; x++)
                        p[i]->data[(size_t)y * p[i]->stride + x] = (unsigned char)(x * 5 + y * i);
            }
            t0 = proc_cpu();
            for (int r = 0; r < reps; r++)
                vis_classifier_run(cl, (const vis_image *const *)p, n, pr, NULL);
            t0 = (proc_cpu() - t0) * 1000 / (n * reps);
            printf("classifier: %.3f ms CPU a cube, %d a pass (target at most 0.1 "
                   "ms) %s\n",
                   t0, n, t0 <= 0.1 ? "PASS" : "MISS");
            for (int i = 0; i < n; i++)
                vis_image_free(p[i]);
            free(pr);
            vis_classifier_free(cl);
        }
    }
    ref_reader_free(rd);
    for (int d = 0; d < MAX_DESIGNS; d++)
        free(enrolled[d]);
    free(reading);
    free(truth);
    return 0;
}
