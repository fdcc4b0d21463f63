/* bench/bench_recognize_cards.c: playing-card recognition (game "cards")
 * measured on simulated frames of decks the model never saw.
 *
 *   bench_recognize_cards [FRAMES] [WIDTH HEIGHT] [--clean] [--dump DIR]
 *                         [--cache DIR] [--seed N] [--hands] [-v]
 *                         [--readings FILE] [--model PATH] [--designs A,B,..]
 *
 * By default the reader uses models/cards-held.onnx, the model `make
 * models` trains without some decks (its manifest's trained_on), and the
 * frames show those decks only, seed after seed in turn: the figures are
 * for decks the model has never seen (leave decks out; the shipped
 * models/cards.onnx is trained on every deck).  --model reads with
 * another model (the decks it left out, or all when it saw them all);
 * --designs names the deck designs to draw (sim_design_name).
 *
 * Prints card precision and recall, per-card rank and suit accuracy and
 * their confusion tables, the confidence deciles of right and wrong reads,
 * per deck the share of frames whose whole board is read exactly and the
 * per-card error, and CPU milliseconds per frame next to the targets (99%
 * exact boards; under 15 ms per 1280x960 frame on one core).  Positions
 * are compared up to a translation only, in the mat's frame (FORMATS.md
 * 4): a board read turned is not exact.
 *
 * Frames are read by ref_reader, the path of `tablecam recognize` and of
 * the live referee.  --dump writes each missed frame; --cache keeps the
 * frames used in DIR (rendered on the first run, read back on later ones:
 * delete DIR after the simulator or the --designs change); -v names every
 * missed card; --seed N starts at seed N instead of 910000; --hands reads
 * every rendered frame (no cache), moving ones too, and counts how often a
 * hand in view is reported and a stable frame without one is not.
 * --readings writes every frame's reading in full to FILE (each piece's
 * cell, rank, suit, face, conf, runner-ups and place, floats in hex). */
#define _XOPEN_SOURCE 700
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "calib.h"
#include "cards.h"
#include "band.h"
#include "held.h"
#include "referee.h"
#include "rules.h"
#include "sim.h"

#define SEED0 910000
#define NSLOW 5 /* the slowest frames -v names */
#define MAX_DESIGNS 64

typedef struct slow {
    double ms;
    unsigned long long seed;
    int frame;
} slow;

/* Keeps the NSLOW slowest frames in sl, slowest first. */
static void slow_add(slow *sl, double ms, unsigned long long seed, int frame)
{
    int i = NSLOW - 1;
    if (ms <= sl[i].ms)
        return;
    for (; i > 0 && ms > sl[i - 1].ms; i--)
        sl[i] = sl[i - 1];
    sl[i] = (slow){ms, seed, frame};
}

typedef struct cmp {
    int matched, rank_ok, suit_ok, fp, fn;
    int right; /* matched cards read with rank and suit right */
    int rank_conf[13][14]; /* truth rank x read rank (13: none or face down) */
    int suit_conf[4][5];   /* truth suit x read suit (4: none or face down) */
    int conf_right[10], conf_wrong[10]; /* confidence deciles of right / wrong reads */
    int turned; /* boards read turned by a multiple of 90 degrees */
} cmp;

static const char *const rank_names[13] = {"A", "2", "3", "4", "5", "6", "7",
                                           "8", "9", "10", "J", "Q", "K"};

static int decile(float conf)
{
    int d = (int)(conf * 10);
    return d < 0 ? 0 : d > 9 ? 9 : d;
}

static void rot(int k, int *x, int *y)
{
    for (int r = 0; r < k; r++) {
        int t = *x;
        *x = -*y;
        *y = t;
    }
}

/* Best match over the four grid rotations and every translation.
 * FORMATS.md section 4 compares positions up to a translation only (the
 * cells are in the mat's frame), so a board read turned is never exact
 * (and counted in c->turned); its cards are still matched turned, so that
 * the counts say what was read. */
static bool compare(const rules_piece *truth, int nt, const vis_cards_reading *rd, cmp *c,
                    bool verbose, unsigned long long seed, int frame)
{
    int best = -1, bk = 0, bdx = 0, bdy = 0;
    for (int k = 0; k < 4; k++)
        for (int i = 0; i < nt; i++)
            for (int j = 0; j < rd->ncards; j++) {
                int rx = rd->cards[j].gx, ry = rd->cards[j].gy;
                rot(k, &rx, &ry);
                int qx = truth[i].x - rx, qy = truth[i].y - ry, votes = 0;
                for (int b = 0; b < rd->ncards; b++) {
                    int sx = rd->cards[b].gx, sy = rd->cards[b].gy;
                    rot(k, &sx, &sy);
                    for (int a = 0; a < nt; a++)
                        if (sx + qx == truth[a].x && sy + qy == truth[a].y) {
                            /* (suit too: two cards of one rank must not
                             * be matched crosswise) */
                            votes += 1 + (rd->cards[b].rank == truth[a].a) +
                                     (rd->cards[b].suit == truth[a].b);
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
    unsigned char used[VIS_CARDS_MAX] = {0};
    if (!exact) {
        c->turned++;
        if (verbose)
            printf("  seed %llu frame %d: read turned by %d degrees\n", seed, frame, 90 * bk);
    }
    char n1[4], n2[4];
    for (int a = 0; a < nt; a++) {
        int hit = -1;
        for (int b = 0; b < rd->ncards && hit < 0; b++) {
            int sx = rd->cards[b].gx, sy = rd->cards[b].gy;
            rot(bk, &sx, &sy);
            if (!used[b] && sx + bdx == truth[a].x && sy + bdy == truth[a].y)
                hit = b;
        }
        if (hit < 0) {
            c->fn++;
            exact = false;
            if (verbose)
                printf("  seed %llu frame %d: missed %s at %d,%d\n", seed, frame,
                       rules_card_name(truth[a].a, truth[a].b, n1), truth[a].x, truth[a].y);
            continue;
        }
        used[hit] = 1;
        const vis_card *v = &rd->cards[hit];
        c->matched++;
        c->rank_ok += v->rank == truth[a].a;
        c->suit_ok += v->suit == truth[a].b;
        if (truth[a].a >= 1 && truth[a].a <= 13 && truth[a].b < 4) {
            c->rank_conf[truth[a].a - 1][v->rank >= 1 && v->rank <= 13 ? v->rank - 1 : 13]++;
            c->suit_conf[truth[a].b][v->suit >= 0 && v->suit < 4 ? v->suit : 4]++;
        }
        if (v->rank == truth[a].a && v->suit == truth[a].b) {
            c->right++;
            c->conf_right[decile(v->conf)]++;
        }
        else
            c->conf_wrong[decile(v->conf)]++;
        if (v->rank != truth[a].a || v->suit != truth[a].b) {
            exact = false;
            if (verbose)
                /* (ref_reader carries the reading and its conf only) */
                printf("  seed %llu frame %d: %s read as %s (conf %.2f)\n", seed, frame,
                       rules_card_name(truth[a].a, truth[a].b, n1),
                       v->rank > 0 && v->suit >= 0 ? rules_card_name(v->rank, v->suit, n2) : "?",
                       v->conf);
        }
    }
    for (int b = 0; b < rd->ncards; b++)
        if (!used[b]) {
            c->fp++;
            c->conf_wrong[decile(rd->cards[b].conf)]++;
            exact = false;
            if (verbose)
                printf("  seed %llu frame %d: extra card at %d,%d\n", seed, frame, rd->cards[b].gx,
                       rd->cards[b].gy);
        }
    return exact;
}

/* A fresh reader with model. */
static int new_reader(const char *model, ref_reader **out, base_err *e)
{
    ref_reader_config rcfg = {"cards", NULL, NULL, 0};
    int rc = ref_reader_new(&rcfg, out, e);
    if (rc == 0 && (rc = ref_reader_use_model(*out, model, e)) != 0) {
        ref_reader_free(*out);
        *out = NULL;
    }
    return rc;
}

int main(int argc, char **argv)
{
    int want = 200, width = 1280, height = 960, frames = 0, exact = 0, errors = 0;
    bool clean = false, verbose = false, hands = false;
    int hand_true = 0, hand_found = 0, hand_free = 0, hand_false = 0, hand_over = 0,
        hand_over_found = 0;
    const char *dump = NULL, *cache = NULL;
    FILE *idx = NULL, *rdout = NULL;
    bool cache_write = false;
    unsigned long long seed0 = SEED0;
    const char *model = TABLECAM_SOURCE_DIR "/models/cards-held.onnx", *designs_s = NULL;
    int designs[MAX_DESIGNS], ndesigns = 0;
    int deck_n[MAX_DESIGNS] = {0}, deck_ok[MAX_DESIGNS] = {0}, deck_cards[MAX_DESIGNS] = {0},
        deck_wrong[MAX_DESIGNS] = {0};
    double ms = 0;
    band by_ppm = {"px/mm", 5, {0.6, 0.8, 1.0, 1.25, 1.5}, {0}, {0}};
    advised by_advice = {{0}, {0}};
    cmp c;
    slow sl[NSLOW] = {{0}};
    base_err e;
    ref_reader *reader = NULL;
    vis_cards_reading *rd = malloc(sizeof *rd);
    rules_piece truth[64];
    static ref_reading rr;

    memset(&c, 0, sizeof c);
    int pos[3], npos = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--clean") == 0)
            clean = true;
        else if (strcmp(argv[i], "--dump") == 0 && i + 1 < argc)
            dump = argv[++i];
        else if (strcmp(argv[i], "--cache") == 0 && i + 1 < argc)
            cache = argv[++i];
        else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
            seed0 = strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--readings") == 0 && i + 1 < argc) {
            if (!(rdout = fopen(argv[++i], "w"))) {
                fprintf(stderr, "bench_recognize_cards: cannot write %s\n", argv[i]);
                return 1;
            }
        } else if (strcmp(argv[i], "--hands") == 0)
            hands = true;
        else if (strcmp(argv[i], "-v") == 0)
            verbose = true;
        else if (strcmp(argv[i], "--model") == 0 && i + 1 < argc)
            model = argv[++i];
        else if (strcmp(argv[i], "--designs") == 0 && i + 1 < argc)
            designs_s = argv[++i];
        else if (atoi(argv[i]) > 0 && npos < 3)
            pos[npos++] = atoi(argv[i]);
        else {
            fprintf(stderr, "bench_recognize_cards: unknown argument '%s'\n", argv[i]);
            return 2;
        }
    }
    bench_sizes(pos, npos, &want, &width, &height);
    if (!rd) {
        fprintf(stderr, "bench_recognize_cards: out of memory\n");
        return 1;
    }
    if (designs_s) {
        for (const char *q = designs_s; *q && ndesigns < MAX_DESIGNS;) {
            char *end;
            long d = strtol(q, &end, 10);
            if (end == q || d < 0 || d >= sim_designs("cards")) {
                fprintf(stderr, "bench_recognize_cards: --designs %s: not designs 0..%d\n",
                        designs_s, sim_designs("cards") - 1);
                return 2;
            }
            designs[ndesigns++] = (int)d;
            q = *end == ',' ? end + 1 : end;
        }
    } else if (!bench_held_designs("cards", model, MAX_DESIGNS, designs, &ndesigns, &e)) {
        fprintf(stderr, "bench_recognize_cards: the manifest of %s: %s\n", model, e.msg);
        return 1;
    } else if (ndesigns == 0) {
        for (int d = 0; d < sim_designs("cards") && d < MAX_DESIGNS; d++)
            designs[ndesigns++] = d; /* it saw them all: every deck */
    }
    if (ndesigns == 0) {
        fprintf(stderr, "bench_recognize_cards: no deck designs to draw\n");
        return 2;
    }
    if (cache) {
        char path[600];
        snprintf(path, sizeof path, "%s/frames.jsonl", cache);
        idx = fopen(path, "r");
        cache_write = idx == NULL;
        if (cache_write && !(idx = fopen(path, "w"))) {
            fprintf(stderr, "bench_recognize_cards: cannot write %s\n", path);
            return 1;
        }
    }
    for (unsigned long long seed = seed0; frames < want; seed++) {
        sim_options o;
        sim_stream *s = NULL;
        vis_image *img;
        char *tj;
        sim_options_default(&o);
        o.width = width;
        o.height = height;
        o.clean = clean;
        o.max_moves = 2 + (int)(seed % 10) * 3;
        o.design = designs[seed % (uint64_t)ndesigns];
        o.setup = SIM_SETUP_MIXED; /* the users' mix of camera set-ups */
        if ((!cache || cache_write) && sim_stream_new("cards", seed, &o, &s, &e) != 0) {
            fprintf(stderr, "bench_recognize_cards: %s\n", e.msg);
            return 1;
        }
        /* a fresh reader per camera: no mat fit or axes carried over */
        ref_reader_free(reader);
        reader = NULL;
        int k = 0, nstable = 0;
        for (;;) {
            if (frames >= want || nstable >= 8)
                break;
            if (cache && !cache_write) {
                /* the next cached frame of this seed, if any */
                long pos = ftell(idx);
                unsigned long long fseed;
                static char line[1 << 16];
                char file[700];
                if (!fgets(line, sizeof line, idx)) {
                    want = frames; /* the cache is used up */
                    break;
                }
                if (sscanf(line, "%llu %d", &fseed, &k) != 2 || fseed != seed) {
                    fseek(idx, pos, SEEK_SET);
                    break;
                }
                tj = strdup(strchr(strchr(line, ' ') + 1, ' ') + 1);
                snprintf(file, sizeof file, "%s/f-%llu-%d.png", cache, fseed, k);
                if (vis_image_read(file, 3, &img, &e) != 0) {
                    fprintf(stderr, "bench_recognize_cards: %s\n", e.msg);
                    return 1;
                }
            } else if (sim_stream_next(s, &img, &tj, &e) != 0) {
                break;
            } else {
                k++;
            }
            cJSON *t = cJSON_Parse(tj);
            bool stable = cJSON_IsTrue(cJSON_GetObjectItem(t, "stable"));
            if (hands && !cache) {
                /* every frame: is a hand in view reported, and none on a
                 * stable frame without one? */
                bool in_view = cJSON_IsTrue(cJSON_GetObjectItem(t, "hand_in_view"));
                static ref_reading hr;
                if (!reader && new_reader(model, &reader, &e) != 0) {
                    fprintf(stderr, "bench_recognize_cards: %s\n", e.msg);
                    return 1;
                }
                if (ref_reader_read(reader, img, &hr, &e) == 0) {
                    if (in_view) {
                        /* the hand's point inside the play area's outline */
                        const cJSON *at = cJSON_GetObjectItem(cJSON_GetObjectItem(t, "hand"), "at_mm");
                        const cJSON *mat = cJSON_GetObjectItem(t, "mat");
                        double mw = cJSON_GetNumberValue(cJSON_GetObjectItem(mat, "w"));
                        double mh = cJSON_GetNumberValue(cJSON_GetObjectItem(mat, "h"));
                        double ax = cJSON_GetNumberValue(cJSON_GetArrayItem(at, 0));
                        double ay = cJSON_GetNumberValue(cJSON_GetArrayItem(at, 1));
                        bool over = at && mat && ax > 0 && ay > 0 && ax < mw && ay < mh;
                        hand_true++;
                        hand_found += hr.hand;
                        hand_over += over;
                        hand_over_found += over && hr.hand;
                        if (verbose && over && !hr.hand)
                            printf("  seed %llu frame %d: hand at %.0f,%.0f mm not reported\n",
                                   seed, k, ax, ay);
                        if (dump && over && !hr.hand) {
                            char path[600];
                            snprintf(path, sizeof path, "%s/hand-%llu-%d.png", dump, seed, k);
                            vis_image_write(path, img, 0, NULL);
                        }
                    } else if (stable) {
                        hand_free++;
                        hand_false += hr.hand;
                    }
                }
                if (stable)
                    nstable++;
                frames++;
                cJSON_Delete(t);
                free(tj);
                vis_image_free(img);
                continue;
            }
            if (!stable || k % 6 != 0) {
                cJSON_Delete(t);
                free(tj);
                vis_image_free(img);
                continue;
            }
            nstable++;
            if (cache_write) {
                char file[700];
                snprintf(file, sizeof file, "%s/f-%llu-%d.png", cache, seed, k);
                vis_image_write(file, img, 0, NULL);
                fprintf(idx, "%llu %d %s\n", seed, k, tj);
            }
            const cJSON *ps = cJSON_GetObjectItem(cJSON_GetObjectItem(t, "position"), "pieces");
            int nt = 0;
            for (const cJSON *p = ps ? ps->child : NULL; p && nt < 64; p = p->next)
                if (rules_piece_from_json("cards", p, &truth[nt], NULL) == 0)
                    nt++;
            double t0 = base_cpu_now(), ppm = 0;
            int rc;
            {
                /* the path the referee and `tablecam recognize` take */
                if (!reader && new_reader(model, &reader, &e) != 0) {
                    fprintf(stderr, "bench_recognize_cards: %s\n", e.msg);
                    return 1;
                }
                rc = ref_reader_read(reader, img, &rr, &e);
                hand_false += rc == 0 && rr.hand;
                ppm = rc == 0 ? rr.cam_px_per_mm : 0;
                memset(rd, 0, sizeof *rd);
                for (int i = 0; rc == 0 && i < rr.n && i < VIS_CARDS_MAX; i++) {
                    vis_card *vc = &rd->cards[rd->ncards++];
                    vc->gx = rr.pieces[i].x;
                    vc->gy = rr.pieces[i].y;
                    vc->face_down = rr.pieces[i].c;
                    vc->rank = vc->face_down ? 0 : rr.pieces[i].a;
                    vc->suit = vc->face_down ? -1 : rr.pieces[i].b;
                    vc->conf = rr.conf[i];
                }
            }
            double dt = (base_cpu_now() - t0) * 1000;
            if (rdout) {
                fprintf(rdout, "%llu %d rc %d n %d hand %d angle %a\n", seed, k, rc, rr.n,
                        rr.hand, rr.grid_angle_deg);
                for (int i = 0; rc == 0 && i < rr.n; i++) {
                    const rules_piece *pc = &rr.pieces[i];
                    fprintf(rdout, "  %d %d %d %d %d conf %a dup %d at %a %a alts %d", pc->x,
                            pc->y, pc->a, pc->b, pc->c, rr.conf[i], rr.duplicate[i], rr.x_mm[i],
                            rr.y_mm[i], rr.alt[i].n);
                    for (int j = 0; j < rr.alt[i].n; j++)
                        fprintf(rdout, " %d %d %a", rr.alt[i].p[j].a, rr.alt[i].p[j].b,
                                rr.alt[i].w[j]);
                    fputc('\n', rdout);
                }
            }
            frames++;
            ms += dt;
            slow_add(sl, dt, seed, k);
            if (rc != 0) {
                errors++;
                c.fn += nt;
                if (verbose)
                    printf("  seed %llu frame %d: %s\n", seed, k, e.msg);
            } else {
                const int d = o.design;
                const cmp before = c;
                bool ok = compare(truth, nt, rd, &c, verbose, seed, k);
                exact += ok;
                if (d >= 0 && d < MAX_DESIGNS) {
                    deck_n[d]++;
                    deck_ok[d] += ok;
                    deck_cards[d] += nt;
                    /* the truth's cards not read exactly, and extra ones */
                    deck_wrong[d] += (c.matched - before.matched) - (c.right - before.right) +
                                     (c.fn - before.fn) + (c.fp - before.fp);
                }
                band_add(&by_ppm, ppm, ok);
                advised_add(&by_advice, "cards", &rr, ok);
                if (!ok && verbose)
                    printf("  seed %llu frame %d: the camera at %.2f px/mm\n", seed, k, ppm);
                if (!ok && dump) {
                    char path[600];
                    snprintf(path, sizeof path, "%s/miss-%llu-%d.png", dump, seed, k);
                    vis_image_write(path, img, 0, NULL);
                }
            }
            cJSON_Delete(t);
            free(tj);
            vis_image_free(img);
        }
        sim_stream_free(s);
    }
    if (idx)
        fclose(idx);
    printf("cards recognition: %d stable frames %dx%d%s (sim seeds from %llu), model %s\n",
           frames, width, height, clean ? " clean" : "", seed0, model);
    printf("cards found: precision %.4f recall %.4f (matched %d, extra %d, missed %d)\n",
           c.matched + c.fp ? (double)c.matched / (c.matched + c.fp) : 0,
           c.matched + c.fn ? (double)c.matched / (c.matched + c.fn) : 0, c.matched, c.fp, c.fn);
    printf("per-card error: %.2f%% (%d of %d cards of the truth misread or missed, and extra "
           "cards)\n",
           c.matched + c.fn ? 100.0 * (c.matched - c.right + c.fn + c.fp) / (c.matched + c.fn) : 0,
           c.matched - c.right + c.fn + c.fp, c.matched + c.fn);
    printf("per card: rank %.4f  suit %.4f  (of the cards found)\n",
           c.matched ? (double)c.rank_ok / c.matched : 0, c.matched ? (double)c.suit_ok / c.matched : 0);
    printf("confidence of the cards read (deciles 0.0-0.1 ... 0.9-1.0)\n  right:");
    for (int d = 0; d < 10; d++)
        printf(" %5d", c.conf_right[d]);
    printf("\n  wrong:");
    for (int d = 0; d < 10; d++)
        printf(" %5d", c.conf_wrong[d]);
    printf("   (wrong: misread or not there)\n");
    if (hands) {
        printf("hands: %d of %d frames with a hand in view reported (%d of %d with the hand's "
               "point over the play area); %d of %d stable frames without one reported as a "
               "hand\n",
               hand_found, hand_true, hand_over_found, hand_over, hand_false, hand_free);
        ref_reader_free(reader);
        free(rd);
        return 0;
    }
    printf("rank confusion (rows the truth A..K, columns the reading A..K, none):\n");
    for (int r = 0; r < 13; r++) {
        printf("  %2s", rank_names[r]);
        for (int q = 0; q < 14; q++)
            printf(" %4d", c.rank_conf[r][q]);
        printf("\n");
    }
    printf("suit confusion (rows the truth S H D C, columns the reading S H D C, none):\n");
    for (int r = 0; r < 4; r++) {
        printf("  %c", "SHDC"[r]);
        for (int q = 0; q < 5; q++)
            printf(" %5d", c.suit_conf[r][q]);
        printf("\n");
    }
    printf("per deck (model %s):\n", model);
    for (int i = 0; i < ndesigns; i++) {
        int d = designs[i];
        if (deck_n[d] == 0)
            continue;
        printf("  %2d %-28s boards exact %6.2f%% (%d/%d)  card error %6.2f%% (%d/%d)\n", d,
               sim_design_name("cards", d), 100.0 * deck_ok[d] / deck_n[d], deck_ok[d],
               deck_n[d], deck_cards[d] ? 100.0 * deck_wrong[d] / deck_cards[d] : 0,
               deck_wrong[d], deck_cards[d]);
    }
    band_print("whole board exact by the camera's px/mm at the board", &by_ppm);
    advised_print(&by_advice);
    printf("stable frames reported as a hand over the cards: %d\n", hand_false);
    printf("boards read turned in the mat's frame: %d frames\n", c.turned);
    printf("mat not found / read failed: %d frames\n", errors);
    printf("whole board exact: %.2f%% (target 99%%) %s\n", frames ? 100.0 * exact / frames : 0,
           exact >= 0.99 * frames ? "PASS" : "MISS");
    printf("time: %.2f ms CPU per frame (target < 15 ms) %s\n", frames ? ms / frames : 0,
           frames && ms / frames < 15 ? "PASS" : "MISS");
    if (verbose) {
        printf("slowest frames:");
        for (int i = 0; i < NSLOW && sl[i].ms > 0; i++)
            printf("%s seed %llu frame %d %.1f ms", i ? "," : "", sl[i].seed, sl[i].frame,
                   sl[i].ms);
        printf("\n");
    }
    ref_reader_free(reader);
    free(rd);
    if (rdout)
        fclose(rdout);
    return 0;
}
