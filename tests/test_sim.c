/* tests/test_sim.c: the simulated table (sim/).  Determinism, the truth
 * against the rules engine, the markers against the ArUco detector, the
 * pieces against their projected colours, the options and the command. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "harness.h"
#include "rules.h"
#include "sim.h"
#include "sim_internal.h" /* the card decks' renderer (cards_decks.c) */
#include "sim_truth.h"

/* ---- helpers ---- */


static bool visible(const cJSON *truth, int id)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(truth, "markers"), "visible"), *it;
    cJSON_ArrayForEach(it, v) if (it->valueint == id) return true;
    return false;
}

static sim_options small(int w, int h)
{
    sim_options o;
    sim_options_default(&o);
    o.width = w;
    o.height = h;
    return o;
}

/* ---- determinism ---- */

static void test_same_seed_same_bytes(void **state)
{
    (void)state;
    sim_options o = small(200, 150);
    frames a, b, c;
    o.max_frames = 14;
    o.fps = 3;
    frames_run("qwirkle", 7, &o, &a);
    frames_run("qwirkle", 7, &o, &b);
    frames_run("qwirkle", 8, &o, &c);
    assert_int_equal(a.n, 14);
    assert_int_equal(b.n, a.n);
    bool differs = false;
    for (int i = 0; i < a.n; i++) {
        assert_true(same_image(a.img[i], b.img[i]));
        assert_string_equal(a.truth[i], b.truth[i]);
        if (i < c.n && (!same_image(a.img[i], c.img[i]) || strcmp(a.truth[i], c.truth[i]) != 0))
            differs = true;
    }
    assert_true(differs);
    /* frames of one stream differ too (noise, a hand) */
    assert_false(same_image(a.img[0], a.img[a.n - 1]));
    frames_free(&a);
    frames_free(&b);
    frames_free(&c);
    /* cards too (textures drawn through cv.h, a shuffled deck) */
    o.mat_w = 700;
    o.max_frames = 8;
    frames_run("cards", 7, &o, &a);
    frames_run("cards", 7, &o, &b);
    assert_int_equal(a.n, b.n);
    for (int i = 0; i < a.n; i++) {
        assert_true(same_image(a.img[i], b.img[i]));
        assert_string_equal(a.truth[i], b.truth[i]);
    }
    frames_free(&a);
    frames_free(&b);
}

/* FNV-1a, 64 bits, over the truth lines of a stream (each followed by a
 * newline, as in truth.jsonl). */
static uint64_t truth_hash(const frames *f)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (int i = 0; i < f->n; i++)
        for (const char *c = f->truth[i];; c++) {
            h = (h ^ (unsigned char)(*c ? *c : '\n')) * 0x100000001b3ull;
            if (!*c)
                break;
        }
    return h;
}

/* Takes "design" and "deck" off a cards stream's truth lines: the lines
 * recorded before cards had a table of decks carried neither (the deck was
 * drawn from the seed then, and is design 0 now); all else is as it was. */
static void strip_deck(frames *f)
{
    for (int i = 0; i < f->n; i++) {
        cJSON *t = cJSON_Parse(f->truth[i]);
        assert_non_null(t);
        assert_true(cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(t, "design")));
        assert_true(cJSON_IsString(cJSON_GetObjectItemCaseSensitive(t, "deck")));
        cJSON_DeleteItemFromObjectCaseSensitive(t, "design");
        cJSON_DeleteItemFromObjectCaseSensitive(t, "deck");
        free(f->truth[i]);
        f->truth[i] = cJSON_PrintUnformatted(t);
        assert_non_null(f->truth[i]);
        cJSON_Delete(t);
    }
}

/* Ordinary streams stay what they were: truth lines recorded from the code
 * before enrolment streams existed (every seed stream shows in them: the
 * scene and camera, the look, the deal, the moves and their jitter, the
 * drawn design and set-up, the per-frame white balance and shake).  A
 * change here means every recorded data set and bench moves. */
static void test_ordinary_streams_unchanged(void **state)
{
    static const struct {
        const char *game;
        uint64_t seed;
        uint64_t hash;
    } want[] = {
        {"qwirkle", 7, 0x15bbf5d4c3efa158ull},
        {"cards", 7, 0xd3d71da8a34cc04full},
    };
    (void)state;
    for (int g = 0; g < 2; g++) {
        sim_options o = small(160, 120);
        frames f;
        uint64_t h;
        o.max_frames = 45;
        o.fps = 1; /* slow: several moves, legal and not, in 45 frames */
        o.illegal = 0.3;
        o.setup = SIM_SETUP_MIXED;
        if (strcmp(want[g].game, "qwirkle") == 0)
            o.design = -1;
        else
            o.mat_w = 700;
        frames_run(want[g].game, want[g].seed, &o, &f);
        assert_int_equal(f.n, 45);
        if (strcmp(want[g].game, "cards") == 0)
            strip_deck(&f);
        h = truth_hash(&f);
        if (h != want[g].hash)
            fail_msg("%s seed %llu: truth hash 0x%016llxull, recorded 0x%016llxull; frame 0: %s",
                     want[g].game, (unsigned long long)want[g].seed, (unsigned long long)h,
                     (unsigned long long)want[g].hash, f.truth[0]);
        frames_free(&f);
    }
}

/* Skipping frames draws nothing, yet the frame after them is the frame the
 * stream would have rendered there, picture and truth, byte for byte; and
 * the skip stops at the stream's end as sim_stream_next does. */
static void test_skip_is_rendering_unseen(void **state)
{
    static const char *games[] = {"qwirkle", "cards"};
    (void)state;
    for (int g = 0; g < 2; g++) {
        sim_options o = small(160, 120);
        frames a;
        sim_stream *s = NULL;
        vis_image *img = NULL;
        char *t = NULL;
        base_err err = {0};
        o.max_frames = 40;
        o.fps = 4;
        frames_run(games[g], 11, &o, &a);
        assert_int_equal(a.n, 40);
        assert_int_equal(sim_stream_new(games[g], 11, &o, &s, &err), 0);
        assert_int_equal(sim_stream_skip(s, 0, &err), 0);
        assert_int_equal(sim_stream_skip(s, 29, &err), 0);
        assert_int_equal(sim_stream_frames(s), 29);
        assert_int_equal(sim_stream_next(s, &img, &t, &err), 0);
        assert_true(same_image(img, a.img[29]));
        assert_string_equal(t, a.truth[29]);
        vis_image_free(img);
        free(t);
        assert_int_equal(sim_stream_skip(s, 5, &err), 0);
        assert_int_equal(sim_stream_next(s, &img, &t, &err), 0);
        assert_true(same_image(img, a.img[35]));
        assert_string_equal(t, a.truth[35]);
        vis_image_free(img);
        free(t);
        assert_int_equal(sim_stream_skip(s, -1, &err), BASE_EINVAL);
        assert_non_null(strstr(err.msg, "negative"));
        assert_int_equal(sim_stream_skip(s, 10, &err), BASE_EEOF);
        assert_int_equal(sim_stream_frames(s), 40);
        sim_stream_free(s);
        frames_free(&a);
    }
}

/* The camera's set-ups: a good one is square to a side of the mat, tilted
 * little, and sees the mat larger than any pose; mixed draws good on about
 * SIM_SETUP_GOOD_SHARE of seeds; the truth names the set-up. */
static void test_setups(void **state)
{
    (void)state;
    sim_options o = small(320, 240);
    int good = 0, n = 40;
    double fx_good = 0, fx_any = 0;
    base_err err = {0};
    sim_stream *s = NULL;
    o.max_frames = 1;
    for (int seed = 1; seed <= n; seed++) {
        frames f;
        cJSON *t, *cam;
        o.setup = SIM_SETUP_MIXED;
        frames_run("qwirkle", (uint64_t)seed, &o, &f);
        t = cJSON_Parse(f.truth[0]);
        cam = cJSON_GetObjectItem(t, "camera");
        const char *setup = cJSON_GetStringValue(cJSON_GetObjectItem(cam, "setup"));
        assert_non_null(setup);
        if (strcmp(setup, "good") == 0) {
            double yaw = cJSON_GetObjectItem(cam, "yaw_deg")->valuedouble;
            double off = fabs(yaw - 90 * floor(yaw / 90 + 0.5));
            good++;
            assert_true(off <= 12 + 1e-6);
            assert_true(cJSON_GetObjectItem(cam, "tilt_deg")->valuedouble <= 20 + 1e-6);
            fx_good += cJSON_GetObjectItem(cam, "fx")->valuedouble;
        } else {
            assert_string_equal(setup, "any");
            fx_any += cJSON_GetObjectItem(cam, "fx")->valuedouble;
        }
        cJSON_Delete(t);
        frames_free(&f);
    }
    /* 40 seeds at 0.85: 34 expected; the draw is fixed by the seeds */
    assert_in_range(good, 28, 39);
    /* the same heights, so a finer view means a longer focal length */
    assert_true(fx_good / good > fx_any / (n - good));
    o.setup = 2;
    assert_int_equal(sim_stream_new("qwirkle", 1, &o, &s, &err), BASE_EINVAL);
    assert_non_null(strstr(err.msg, "setup"));
    {
        int v = 7;
        assert_true(sim_setup_from_name("good", &v) && v == SIM_SETUP_GOOD);
        assert_true(sim_setup_from_name("any", &v) && v == SIM_SETUP_ANY);
        assert_true(sim_setup_from_name("mixed", &v) && v == SIM_SETUP_MIXED);
        assert_false(sim_setup_from_name("best", &v));
        for (int k = SIM_SETUP_MIXED; k <= SIM_SETUP_GOOD; k++)
            assert_true(sim_setup_from_name(sim_setup_name(k), &v) && v == k);
        assert_null(sim_setup_name(2));
    }
}

/* The set's designs: the same seed in another design plays the same match
 * (truth lines equal but for "design") in other pixels; -1 draws a design
 * from the seed; a design out of range is refused naming it. */
static void test_designs(void **state)
{
    (void)state;
    sim_options o = small(320, 240);
    frames a, b, c;
    sim_stream *s = NULL;
    base_err err = {0};
    int nd = sim_designs("qwirkle");
    assert_true(nd >= 8);
    assert_int_equal(sim_designs("cards"), SIM__CD_NDECKS);
    assert_int_equal(sim_designs("chess"), 0);
    o.max_frames = 30;
    o.fps = 2;
    o.clean = true;
    frames_run("qwirkle", 21, &o, &a);
    o.design = nd - 1;
    frames_run("qwirkle", 21, &o, &b);
    assert_int_equal(a.n, b.n);
    assert_non_null(strstr(a.truth[0], "\"design\":0,"));
    {
        char want[32];
        snprintf(want, sizeof want, "\"design\":%d,", nd - 1);
        assert_non_null(strstr(b.truth[0], want));
    }
    {
        int differ = 0;
        for (int i = 0; i < a.n; i++) {
            cJSON *ta = cJSON_Parse(a.truth[i]), *tb = cJSON_Parse(b.truth[i]);
            cJSON_DeleteItemFromObject(ta, "design");
            cJSON_DeleteItemFromObject(tb, "design");
            assert_true(cJSON_Compare(ta, tb, true));
            cJSON_Delete(ta);
            cJSON_Delete(tb);
            differ += !same_image(a.img[i], b.img[i]);
        }
        assert_int_equal(differ, a.n);
    }
    frames_free(&b);
    /* drawn from the seed: a design in range, the same every time */
    o.design = -1;
    o.max_frames = 1;
    frames_run("qwirkle", 21, &o, &b);
    frames_run("qwirkle", 21, &o, &c);
    assert_string_equal(b.truth[0], c.truth[0]);
    {
        const cJSON *d;
        cJSON *t = cJSON_Parse(b.truth[0]);
        d = cJSON_GetObjectItem(t, "design");
        assert_true(cJSON_IsNumber(d) && d->valueint >= 0 && d->valueint < nd);
        cJSON_Delete(t);
    }
    frames_free(&a);
    frames_free(&b);
    frames_free(&c);
    o.design = nd;
    assert_int_equal(sim_stream_new("qwirkle", 1, &o, &s, &err), BASE_EINVAL);
    assert_non_null(strstr(err.msg, "design"));
    o.design = -2;
    assert_int_equal(sim_stream_new("qwirkle", 1, &o, &s, &err), BASE_EINVAL);
    o.design = sim_designs("cards");
    assert_int_equal(sim_stream_new("cards", 1, &o, &s, &err), BASE_EINVAL);
    assert_non_null(strstr(err.msg, "design"));
    assert_null(s);
}

/* ---- card decks ---- */

/* The deck ids: one for each design, unique, and stable where recorded
 * streams and models refer to them; none for a game whose designs have no
 * names, or out of range. */
static void test_deck_names(void **state)
{
    int n = sim_designs("cards");
    (void)state;
    assert_true(n >= 20);
    assert_string_equal(sim_design_name("cards", 0), "drawn-classic");
    assert_string_equal(sim_design_name("cards", 1), "drawn-four-colour");
    assert_string_equal(sim_design_name("cards", 2), "drawn-cream");
    assert_string_equal(sim_design_name("cards", 14), "kde-standard");
    for (int d = 0; d < n; d++) {
        const char *a = sim_design_name("cards", d);
        assert_non_null(a);
        assert_true(strncmp(a, "drawn-", 6) == 0 || strncmp(a, "kde-", 4) == 0 ||
                    strncmp(a, "svg-", 4) == 0);
        for (int e = 0; e < d; e++)
            assert_string_not_equal(a, sim_design_name("cards", e));
    }
    assert_null(sim_design_name("cards", n));
    assert_null(sim_design_name("cards", -1));
    assert_null(sim_design_name("qwirkle", 0));
    assert_null(sim_design_name("chess", 0));
    assert_null(sim_design_name(NULL, 0));
}

/* Pixels of t more than DECK_INK (summed over B, G, R) away from its most
 * common colour, within the rectangle x0..x1, y0..y1 mm. */
#define DECK_INK 60
static long deck_inked(const vis_image *t, double x0, double y0, double x1, double y1)
{
    static unsigned counts[4096];
    unsigned best = 0;
    int bi = 0;
    long n = 0;
    unsigned char bg[3];
    memset(counts, 0, sizeof counts);
    for (int y = 0; y < t->height; y++)
        for (int x = 0; x < t->width; x++) {
            const unsigned char *p = t->data + (size_t)y * (size_t)t->stride + (size_t)x * 3;
            int k = (p[0] >> 4) << 8 | (p[1] >> 4) << 4 | p[2] >> 4;
            if (++counts[k] > best) {
                best = counts[k];
                bi = k;
            }
        }
    bg[0] = (unsigned char)(((bi >> 8) & 15) * 16 + 8);
    bg[1] = (unsigned char)(((bi >> 4) & 15) * 16 + 8);
    bg[2] = (unsigned char)((bi & 15) * 16 + 8);
    for (int y = (int)(y0 * SIM__CD_PX); y < (int)(y1 * SIM__CD_PX) && y < t->height; y++)
        for (int x = (int)(x0 * SIM__CD_PX); x < (int)(x1 * SIM__CD_PX) && x < t->width; x++) {
            const unsigned char *p = t->data + (size_t)y * (size_t)t->stride + (size_t)x * 3;
            n += abs(p[0] - bg[0]) + abs(p[1] - bg[1]) + abs(p[2] - bg[2]) > DECK_INK;
        }
    return n;
}

/* Every design renders its 52 faces and its back: each printed (at least
 * 1 % of it away from its card stock), the faces of a deck all different,
 * the back unlike any face.  The decks sim writes itself (drawn, svg) put
 * their index where commercial cards do: ink within 16 mm of the long edge
 * and 30 mm of the short one at the top-left, and the same turned at the
 * bottom-right (the KDE decks are what they are). */
static void test_every_deck_renders(void **state)
{
    (void)state;
    for (int d = 0; d < sim_designs("cards"); d++) {
        const char *id = sim_design_name("cards", d);
        bool own = strncmp(id, "kde-", 4) != 0;
        vis_image *t[SIM__CD_BACK + 1] = {0};
        sim__cd_deck *deck = NULL;
        base_err err = {0};
        if (sim__cd_deck_open(d, &deck, &err) != 0)
            fail_msg("deck %s: %s", id, err.msg);
        for (int c = 0; c <= SIM__CD_BACK; c++) {
            long all, need;
            if (sim__cd_deck_render(deck, c, &t[c], &err) != 0)
                fail_msg("deck %s card %d: %s", id, c, err.msg);
            assert_int_equal(t[c]->width, SIM__CD_TEX_W);
            assert_int_equal(t[c]->height, SIM__CD_TEX_H);
            assert_int_equal(t[c]->channels, 3);
            all = deck_inked(t[c], 0, 0, SIM__CD_W, SIM__CD_H);
            need = (long)SIM__CD_TEX_W * SIM__CD_TEX_H / 100;
            if (all < need)
                fail_msg("deck %s card %d: %ld pixels printed, want %ld", id, c, all, need);
            if (own && c != SIM__CD_BACK &&
                (deck_inked(t[c], 0, 0, 16, 30) == 0 ||
                 deck_inked(t[c], SIM__CD_W - 16, SIM__CD_H - 30, SIM__CD_W, SIM__CD_H) == 0))
                fail_msg("deck %s card %d: no index in the corners", id, c);
            for (int e = 0; e < c; e++)
                if (same_image(t[c], t[e]))
                    fail_msg("deck %s: cards %d and %d look the same", id, e, c);
        }
        for (int c = 0; c <= SIM__CD_BACK; c++)
            vis_image_free(t[c]);
        sim__cd_deck_close(deck);
    }
}

/* A deck that cannot be rendered is an error naming the file and the
 * card, never a crash: a missing document, one that is not SVG, a card
 * that is not there. */
static void test_deck_errors(void **state)
{
    char *dir = th_tmpdir(), *bad = th_path(dir, "bad.svgz"), *none = th_path(dir, "none.svgz");
    sim__cd_deck *deck = (sim__cd_deck *)1;
    vis_image *img = NULL;
    base_err err = {0};
    FILE *f;
    (void)state;
    assert_int_equal(sim__cd_deck_open_at(14, none, &deck, &err), BASE_ENOTFOUND);
    assert_null(deck);
    assert_non_null(strstr(err.msg, "none.svgz"));
    assert_non_null(strstr(err.msg, "kde-standard"));
    assert_non_null(f = fopen(bad, "wb"));
    fputs("this is no SVG", f);
    fclose(f);
    assert_int_equal(sim__cd_deck_open_at(14, bad, &deck, &err), BASE_EIO);
    assert_null(deck);
    assert_non_null(strstr(err.msg, "bad.svgz"));
    /* a document without the card ids: an SVG deck of the wrong kind */
    assert_non_null(f = fopen(bad, "wb"));
    fputs("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"100\" height=\"100\">"
          "<rect id=\"other\" width=\"10\" height=\"10\"/></svg>",
          f);
    fclose(f);
    assert_int_equal(sim__cd_deck_open_at(14, bad, &deck, &err), 0);
    assert_int_not_equal(sim__cd_deck_render(deck, 0, &img, &err), 0);
    assert_null(img);
    assert_non_null(strstr(err.msg, "1_spade"));
    assert_non_null(strstr(err.msg, "bad.svgz"));
    assert_int_equal(sim__cd_deck_render(deck, SIM__CD_BACK + 1, &img, &err), BASE_EINVAL);
    sim__cd_deck_close(deck);
    assert_int_equal(sim__cd_deck_open_at(0, bad, &deck, &err), BASE_EINVAL);
    assert_int_equal(sim__cd_deck_open(-1, &deck, &err), BASE_EINVAL);
    th_rmtree(dir);
    free(bad);
    free(none);
    free(dir);
}

/* The truth of a cards stream names its deck; with down=1 every card on
 * the table lies face down (and says so), and down changes nothing else:
 * down=0 is the default stream byte for byte, and down=0.5 plays the same
 * match with the same truth but for "down". */
static void test_cards_deck_and_down(void **state)
{
    sim_options o = small(240, 180);
    frames a, b, c;
    int down = 0, up = 0;
    sim_stream *s = NULL;
    base_err err = {0};
    (void)state;
    o.mat_w = 700;
    o.max_frames = 30;
    o.fps = 1;
    frames_run("cards", 12, &o, &a);
    o.down = 0;
    frames_run("cards", 12, &o, &b);
    assert_int_equal(a.n, b.n);
    for (int i = 0; i < a.n; i++) {
        assert_true(same_image(a.img[i], b.img[i]));
        assert_string_equal(a.truth[i], b.truth[i]);
        assert_non_null(strstr(a.truth[i], "\"design\":0,\"deck\":\"drawn-classic\""));
        assert_null(strstr(a.truth[i], "\"down\""));
    }
    frames_free(&b);
    o.down = 0.5;
    frames_run("cards", 12, &o, &b);
    assert_int_equal(a.n, b.n);
    {
        bool differ = false;
        for (int i = 0; i < a.n; i++) {
            cJSON *ta = cJSON_Parse(a.truth[i]), *tb = cJSON_Parse(b.truth[i]), *it;
            cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(tb, "placement")) {
                down += cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(it, "down"));
                up += !cJSON_GetObjectItemCaseSensitive(it, "down");
                cJSON_DeleteItemFromObjectCaseSensitive(it, "down");
            }
            assert_true(cJSON_Compare(ta, tb, true));
            differ |= !same_image(a.img[i], b.img[i]);
            cJSON_Delete(ta);
            cJSON_Delete(tb);
        }
        assert_true(differ);
        assert_true(down > 0 && up > 0);
    }
    frames_free(&b);
    /* all face down, in a KDE deck; the truth names the deck */
    o.down = 1;
    o.design = 14;
    frames_run("cards", 12, &o, &c);
    assert_int_equal(c.n, a.n);
    down = 0;
    for (int i = 0; i < c.n; i++) {
        cJSON *t = cJSON_Parse(c.truth[i]), *it;
        assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t, "deck")),
                            "kde-standard");
        assert_int_equal((int)num(t, "design"), 14);
        cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(t, "placement")) {
            assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(it, "down")));
            down++;
        }
        cJSON_Delete(t);
    }
    assert_true(down >= c.n);
    frames_free(&a);
    frames_free(&c);
    /* the sim: camera takes down=P */
    {
        vis_capture *cap = NULL;
        vis_image *img = NULL;
        double t = -1;
        assert_int_equal(sim_capture_open("sim:cards:seed=3:160x120:down=1", &cap, &err), 0);
        assert_int_equal(vis_capture_read(cap, &img, &t, &err), 0);
        assert_non_null(img);
        vis_image_free(img);
        vis_capture_free(cap);
        assert_int_equal(sim_capture_open("sim:cards:down=2", &cap, &err), BASE_EINVAL);
        assert_non_null(strstr(err.msg, "down"));
        assert_int_not_equal(sim_capture_open("sim:cards:down=x", &cap, &err), 0);
        assert_non_null(strstr(err.msg, "down=P"));
    }
    /* down is a probability, and only cards lie face down */
    o.down = 1.5;
    assert_int_equal(sim_stream_new("cards", 1, &o, &s, &err), BASE_EINVAL);
    assert_non_null(strstr(err.msg, "down"));
    o = small(240, 180);
    o.down = 0.5;
    assert_int_equal(sim_stream_new("qwirkle", 1, &o, &s, &err), BASE_EINVAL);
    assert_non_null(strstr(err.msg, "down"));
    assert_null(s);
}

/* ---- the truth against the engine ---- */

typedef struct cube {
    int x, y, a, b;
} cube;

static int cube_cmp(const void *p, const void *q)
{
    const cube *a = p, *b = q;
    if (a->x != b->x)
        return a->x - b->x;
    if (a->y != b->y)
        return a->y - b->y;
    if (a->a != b->a)
        return a->a - b->a;
    return a->b - b->b;
}

/* Replays the "move" events of a stream with the engine; returns how many
 * pieces left the table (captures) over the stream. */
static int replay(const char *game, uint64_t seed, const sim_options *o, int want_moves)
{
    frames f;
    rules_game *g = NULL;
    rules_piece *board = malloc(100 * sizeof *board);
    int moves = 0, injected = 0, legal = 0, stable = 0, unstable_with_hand = 0, left = 0;
    int prev_n = 0;
    cJSON *header = NULL;
    frames_run(game, seed, o, &f);
    for (int i = 0; i < f.n; i++) {
        cJSON *t = cJSON_Parse(f.truth[i]);
        const cJSON *pieces, *placement, *it;
        sim_truth tr;
        base_err err;
        cube truth_legal[100], engine[100];
        int nt = 0, ne, nill = 0;
        assert_non_null(t);
        assert_int_equal((int)num(t, "frame"), i);
        if (!g) {
            /* the match starts from what frame 0 shows (the cards' start
             * card) */
            const cJSON *p0 = cJSON_GetObjectItemCaseSensitive(
                cJSON_GetObjectItemCaseSensitive(t, "position"), "pieces");
            header = cJSON_Parse("{\"players\":[\"A\",\"B\"]}");
            if (cJSON_GetArraySize(p0) > 0)
                cJSON_AddItemToObject(header, "start",
                                      cJSON_Duplicate(cJSON_GetArrayItem(p0, 0), true));
            assert_int_equal(rules_game_new(game, header, NULL, &g), 0);
            cJSON_Delete(header);
        }
        assert_int_equal(sim_truth_read(game, f.truth[i], &tr, &err), 0);
        assert_int_equal(tr.stable, cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(t, "stable")));
        assert_int_equal(tr.has_move, cJSON_GetObjectItemCaseSensitive(t, "move") != NULL);
        if (tr.has_move) {
            rules_verdict v;
            const cJSON *inj = cJSON_GetObjectItemCaseSensitive(
                cJSON_GetObjectItemCaseSensitive(t, "move"), "injected");
            assert_int_equal(rules_apply(g, tr.player, &tr.move, &v), 0);
            assert_int_equal(v.legal, tr.legal);
            assert_int_equal(v.legal ? v.points : 0, tr.points);
            assert_string_equal(v.legal ? "" : v.rule, tr.rule);
            /* illegal exactly when injected */
            assert_int_equal(!v.legal, cJSON_IsTrue(inj));
            moves++;
            injected += !v.legal;
            legal += v.legal;
        }
        /* The pieces shown: the engine's position plus what an injected
         * move left (flagged illegal), once the frame is stable. */
        pieces = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(t, "position"), "pieces");
        placement = cJSON_GetObjectItemCaseSensitive(t, "placement");
        assert_int_equal(cJSON_GetArraySize(pieces), cJSON_GetArraySize(placement));
        int k = 0;
        cJSON_ArrayForEach(it, pieces) {
            rules_piece p;
            const cJSON *pl = cJSON_GetArrayItem(placement, k++);
            assert_int_equal(rules_piece_from_json(game, it, &p, NULL), 0);
            const cJSON *from = cJSON_GetObjectItemCaseSensitive(pl, "from");
            if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(pl, "illegal")) && from) {
                /* moved by an illegal move (cube2): the engine has it
                 * where it stood */
                nill++;
                truth_legal[nt++] = (cube){cJSON_GetArrayItem(from, 0)->valueint,
                                           cJSON_GetArrayItem(from, 1)->valueint, p.a, p.b};
            } else if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(pl, "illegal")))
                nill++;
            else
                truth_legal[nt++] = (cube){p.x, p.y, p.a, p.b};
        }
        if (cJSON_GetArraySize(pieces) < prev_n)
            left += prev_n - cJSON_GetArraySize(pieces);
        prev_n = cJSON_GetArraySize(pieces);
        if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(t, "stable"))) {
            stable++;
            ne = rules_position(g, board, 100);
            if (ne != nt)
                fail_msg("%s seed %llu frame %d: the engine has %d pieces, the truth %d",
                         game, (unsigned long long)seed, i, ne, nt);
            for (int j = 0; j < ne; j++)
                engine[j] = (cube){board[j].x, board[j].y, board[j].a, board[j].b};
            qsort(engine, (size_t)ne, sizeof *engine, cube_cmp);
            qsort(truth_legal, (size_t)nt, sizeof *truth_legal, cube_cmp);
            assert_memory_equal(engine, truth_legal, (size_t)ne * sizeof *engine);
            assert_false(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(t, "hand_in_view")));
        } else if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(t, "hand_in_view")))
            unstable_with_hand++;
        cJSON_Delete(t);
    }
    assert_int_equal(moves, want_moves);
    assert_true(injected >= 1);
    assert_true(legal >= 1);
    assert_true(stable >= 3);
    assert_true(unstable_with_hand >= 3);
    rules_game_free(g);
    frames_free(&f);
    free(board);
    return left;
}

static void test_truth_replays_with_the_engine(void **state)
{
    (void)state;
    sim_options o = small(160, 120);
    o.max_moves = 7;
    o.fps = 1.5;
    o.illegal = 0.4;
    o.clean = true;
    replay("qwirkle", 11, &o, 7);
}

/* cube2: the 24 placements of the setup, then moves and exits, with
 * illegal ones (a piece on a home square, a piece moved too far) that a
 * hand takes back to where it stood. */
static void test_cube2_truth_replays_with_the_engine(void **state)
{
    (void)state;
    sim_options o = small(160, 120);
    o.max_moves = 34;
    o.fps = 1;
    o.illegal = 0.25;
    o.clean = true;
    o.design = 5;
    replay("cube2", 7, &o, 34);
}

static void test_cards_truth_replays_with_the_engine(void **state)
{
    (void)state;
    sim_options o = small(160, 120);
    o.max_moves = 14;
    o.fps = 1;
    o.illegal = 0.25;
    o.clean = true;
    o.mat_w = 700;
    o.mat_h = 600;
    /* pieces leave the table: taken-back illegal cards at least */
    assert_true(replay("cards", 4, &o, 14) >= 1);
}

/* ---- markers ---- */

static void check_markers(uint64_t seed, bool clean, int *checked)
{
    sim_options o = small(800, 600);
    frames f;
    vis_aruco *det = NULL;
    o.max_frames = 2;
    o.clean = clean;
    frames_run("qwirkle", seed, &o, &f);
    assert_int_equal(vis_aruco_new(VIS_ARUCO_4X4_50, &det, NULL), 0);
    for (int i = 0; i < f.n; i++) {
        cJSON *t = cJSON_Parse(f.truth[i]);
        const cJSON *mat = cJSON_GetObjectItemCaseSensitive(t, "mat");
        const cJSON *corners = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(t, "markers"), "corners");
        double W = num(mat, "w"), H = num(mat, "h"), S = num(mat, "s");
        truth_cam cam;
        vis_marker found[16];
        int n = 0;
        truth_cam_read(t, &cam);
        assert_int_equal(vis_aruco_detect(det, f.img[i], found, 16, &n, NULL), 0);
        {
            /* the camera keeps the mat in view, and no hand is there yet */
            const cJSON *iv = cJSON_GetObjectItemCaseSensitive(
                cJSON_GetObjectItemCaseSensitive(t, "markers"), "in_view");
            assert_int_equal(cJSON_GetArraySize(iv), 4);
        }
        for (int id = 0; id < 4; id++) {
            static const double mx[4] = {0, 1, 1, 0}, my[4] = {0, 0, 1, 1};
            static const double kx[4] = {-1, 1, 1, -1}, ky[4] = {-1, -1, 1, 1};
            const vis_marker *d = NULL;
            for (int j = 0; j < n && j < 16; j++)
                if (found[j].id == id)
                    d = &found[j];
            if (!visible(t, id))
                continue;
            if (!d)
                fail_msg("seed %llu frame %d: marker %d visible but not detected",
                         (unsigned long long)seed, i, id);
            for (int k = 0; k < 4; k++) {
                vis_point p = project(&cam, mx[id] * W + kx[k] * S / 2, my[id] * H + ky[k] * S / 2, 0);
                double tc[2];
                nums(cJSON_GetArrayItem(cJSON_GetArrayItem(corners, id), k), tc, 2);
                /* the truth's corners are the documented projection */
                assert_true(fabs(tc[0] - p.x) < 0.01 && fabs(tc[1] - p.y) < 0.01);
                /* OpenCV puts pixel centres at integers and marker corners on
                 * the outer edge of the black border */
                double e = hypot(d->corners[k].x - p.x, d->corners[k].y - p.y);
                if (e > 2.5)
                    fail_msg("seed %llu frame %d marker %d corner %d: detected (%.2f, %.2f), "
                             "truth (%.2f, %.2f)",
                             (unsigned long long)seed, i, id, k, d->corners[k].x,
                             d->corners[k].y, p.x, p.y);
            }
            (*checked)++;
        }
        cJSON_Delete(t);
    }
    vis_aruco_free(det);
    frames_free(&f);
}

static void test_markers_found_where_the_truth_says(void **state)
{
    int checked = 0;
    (void)state;
    for (uint64_t seed = 1; seed <= 3; seed++)
        check_markers(seed, true, &checked);
    for (uint64_t seed = 21; seed <= 24; seed++)
        check_markers(seed, false, &checked);
    /* Markers too small to read at 800x600 are "in_view" but not
     * "visible" (docs/sim.md); a good part is readable. */
    assert_true(checked >= 16);
}

/* ---- pieces ---- */

static void test_pieces_project_where_the_truth_says(void **state)
{
    int checked = 0;
    (void)state;
    for (uint64_t seed = 3; seed <= 4; seed++) {
        sim_options o = small(640, 480);
        frames f;
        o.clean = true;
        o.max_moves = 3;
        o.fps = 1;
        frames_run("qwirkle", seed, &o, &f);
        for (int i = 0; i < f.n; i++) {
            cJSON *t = cJSON_Parse(f.truth[i]);
            const cJSON *pieces, *placement, *it;
            truth_cam cam;
            int k = 0;
            if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(t, "stable"))) {
                cJSON_Delete(t);
                continue;
            }
            truth_cam_read(t, &cam);
            pieces = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(t, "position"), "pieces");
            placement = cJSON_GetObjectItemCaseSensitive(t, "placement");
            cJSON_ArrayForEach(it, pieces) {
                double mm[2], sum[3] = {0, 0, 0};
                rules_piece p;
                const vis_image *img = f.img[i];
                assert_int_equal(rules_piece_from_json("qwirkle", it, &p, NULL), 0);
                nums(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(placement, k++), "mm"), mm, 2);
                /* the centre of the top face of a 19.5 mm cube */
                int u, v, got = top_colour(img, &cam, mm[0], mm[1], 19.5, sum, &u, &v);
                if (got != p.a)
                    fail_msg("seed %llu frame %d: cube at (%d,%d) is %s but its top centre "
                             "(%d,%d) looks %s (BGR %.0f %.0f %.0f)",
                             (unsigned long long)seed, i, p.x, p.y, rules_color_name(p.a), u, v,
                             got >= 0 ? rules_color_name(got) : "black", sum[0] / 9, sum[1] / 9,
                             sum[2] / 9);
                /* and 1.5 cube widths away along the table there is no such colour
                 * unless another cube is there: the black body is dark */
                checked++;
            }
            cJSON_Delete(t);
        }
        frames_free(&f);
    }
    assert_true(checked >= 6);
}

/* cube2's enrolment photo: every piece's top, at the height the truth
 * gives, shows its colour, in every kind of board. */
static void test_cube2_pieces_project_where_the_truth_says(void **state)
{
    int checked = 0;
    (void)state;
    for (int design = 0; design < 3; design++) {
        sim_options o = small(640, 480);
        frames f;
        o.clean = true;
        o.enrol = 0;
        o.max_frames = 1;
        o.design = design;
        o.setup = SIM_SETUP_GOOD;
        frames_run("cube2", 20 + (uint64_t)design, &o, &f);
        for (int i = 0; i < f.n; i++) {
            cJSON *t = cJSON_Parse(f.truth[i]);
            const cJSON *pieces, *placement, *it;
            truth_cam cam;
            int k = 0;
            truth_cam_read(t, &cam);
            pieces = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(t, "position"), "pieces");
            placement = cJSON_GetObjectItemCaseSensitive(t, "placement");
            assert_int_equal(cJSON_GetArraySize(pieces), 12);
            cJSON_ArrayForEach(it, pieces) {
                double mm[2], sum[3] = {0, 0, 0};
                const cJSON *pl = cJSON_GetArrayItem(placement, k++);
                rules_piece p;
                const vis_image *img = f.img[i];
                assert_int_equal(rules_piece_from_json("cube2", it, &p, NULL), 0);
                nums(cJSON_GetObjectItemCaseSensitive(pl, "mm"), mm, 2);
                int u, v, got = top_colour(img, &cam, mm[0], mm[1], num(pl, "top_mm"), sum, &u, &v);
                (void)u;
                (void)v;
                if (got != p.a)
                    fail_msg("design %d: the %s %s at (%d,%d) looks %s at its top (BGR %.0f "
                             "%.0f %.0f)",
                             design, rules_color_name(p.a), p.b ? "cylinder" : "cube", p.x, p.y,
                             got >= 0 ? rules_color_name(got) : "black", sum[0] / 9, sum[1] / 9,
                             sum[2] / 9);
                checked++;
            }
            cJSON_Delete(t);
        }
        frames_free(&f);
    }
    assert_int_equal(checked, 36);
}

static void test_cards_project_where_the_truth_says(void **state)
{
    int checked = 0;
    (void)state;
    sim_options o = small(640, 480);
    frames f;
    o.clean = true;
    o.max_moves = 3;
    o.fps = 1;
    o.mat_w = 700;
    o.mat_h = 600;
    frames_run("cards", 6, &o, &f);
    for (int i = 0; i < f.n; i++) {
        cJSON *t = cJSON_Parse(f.truth[i]);
        const cJSON *placement, *it;
        truth_cam cam;
        if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(t, "stable"))) {
            cJSON_Delete(t);
            continue;
        }
        truth_cam_read(t, &cam);
        placement = cJSON_GetObjectItemCaseSensitive(t, "placement");
        cJSON_ArrayForEach(it, placement) {
            double mm[2], rot = num(it, "rot_deg") * 3.14159265358979 / 180, lo = 255, hi = 0;
            const vis_image *img = f.img[i];
            nums(cJSON_GetObjectItemCaseSensitive(it, "mm"), mm, 2);
            /* 6 mm inside the card's top edge, between the indices: blank
             * card stock in every design, bright and nearly grey */
            double lx = 0, ly = -43 + 6;
            vis_point c = project(&cam, mm[0] + cos(rot) * lx - sin(rot) * ly,
                                  mm[1] + sin(rot) * lx + cos(rot) * ly, 0.4);
            int u = (int)lround(c.x), v = (int)lround(c.y);
            assert_true(u >= 0 && v >= 0 && u < img->width && v < img->height);
            for (int ch = 0; ch < 3; ch++) {
                double x = img->data[(size_t)v * (size_t)img->stride + (size_t)u * 3 + (size_t)ch];
                lo = x < lo ? x : lo;
                hi = x > hi ? x : hi;
            }
            if (lo < 110 || hi - lo > 70)
                fail_msg("frame %d: card stock at (%d,%d) looks BGR-range %.0f..%.0f", i, u, v,
                         lo, hi);
            checked++;
        }
        cJSON_Delete(t);
    }
    frames_free(&f);
    assert_true(checked >= 4);
}

/* ---- options, end of stream, the command ---- */

/* A truth line that is not one is an error that says so, and a frame
 * without an event has none. */
static void test_truth_read_rejects_bad_lines(void **state)
{
    sim_truth tr;
    base_err err;
    (void)state;
    assert_int_equal(sim_truth_read("qwirkle", "{\"frame\":3", &tr, &err), BASE_EPARSE);
    assert_non_null(strstr(err.msg, "truth line"));
    assert_int_equal(sim_truth_read("qwirkle", "{\"frame\":3,\"stable\":true}", &tr, &err), 0);
    assert_true(tr.stable);
    assert_false(tr.has_move);
    assert_int_not_equal(
        sim_truth_read("qwirkle",
                       "{\"move\":{\"event\":{\"player\":0,\"move\":{\"type\":\"fly\"}}}}",
                       &tr, &err),
        0);
    assert_false(tr.has_move);
}

static void test_bad_options_are_named(void **state)
{
    sim_options o;
    sim_stream *s = (sim_stream *)1;
    base_err err;
    (void)state;
    sim_options_default(&o);
    o.width = 10;
    assert_int_equal(sim_stream_new("qwirkle", 1, &o, &s, &err), BASE_EINVAL);
    assert_null(s);
    assert_non_null(strstr(err.msg, "frame size"));
    sim_options_default(&o);
    o.illegal = 2;
    assert_int_equal(sim_stream_new("qwirkle", 1, &o, &s, &err), BASE_EINVAL);
    assert_non_null(strstr(err.msg, "illegal"));
    sim_options_default(&o);
    o.mat_s = 300;
    assert_int_equal(sim_stream_new("qwirkle", 1, &o, &s, &err), BASE_EINVAL);
    assert_non_null(strstr(err.msg, "mat"));
    assert_int_equal(sim_stream_new("chess", 1, NULL, &s, &err), BASE_EUNSUPPORTED);
    assert_non_null(strstr(err.msg, "chess"));
    assert_true(sim_game_supported("qwirkle"));
    assert_true(sim_game_supported("cards"));
    assert_false(sim_game_supported("chess"));
}

static void test_stream_ends(void **state)
{
    sim_options o = small(96, 72);
    sim_stream *s = NULL;
    vis_image *img = NULL;
    char *t = NULL;
    int n = 0, moves = 0;
    (void)state;
    o.max_moves = 2;
    o.fps = 2;
    assert_int_equal(sim_stream_new("qwirkle", 5, &o, &s, NULL), 0);
    while (sim_stream_next(s, &img, &t, NULL) == 0) {
        moves += strstr(t, "\"move\":{") != NULL;
        vis_image_free(img);
        free(t);
        n++;
        assert_true(n < 500);
    }
    assert_int_equal(moves, 2);
    img = NULL;
    t = NULL;
    assert_int_equal(sim_stream_next(s, &img, &t, NULL), BASE_EEOF);
    assert_null(img);
    assert_null(t);
    sim_stream_free(s);
    sim_stream_free(NULL);
}

/* The cJSON object `key` of truth line `line`, printed: two lines agree
 * on it when the strings are equal. */
static char *truth_part(const char *line, const char *key)
{
    cJSON *t = cJSON_Parse(line);
    char *out;
    assert_non_null(t);
    out = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(t, key));
    assert_non_null(out);
    cJSON_Delete(t);
    return out;
}

/* Enrolment photos (FORMATS.md 7): photo k shows the six cubes of shape k,
 * red to purple from left to right, and nothing moves; the camera, look
 * and board are those of a match of the same seed; the range is checked
 * and a set without a layout is refused. */
static void test_enrol_photos(void **state)
{
    (void)state;
    sim_options o = small(320, 240);
    sim_stream *s = NULL;
    base_err err = {0};
    frames m;
    assert_int_equal(sim_enrol_images("qwirkle"), RULES_NSHAPES);
    assert_int_equal(sim_enrol_images("cards"), 0);
    assert_int_equal(sim_enrol_images("chess"), 0);
    assert_int_equal(sim_enrol_images(NULL), 0);
    o.design = 3;
    o.max_frames = 1;
    frames_run("qwirkle", 17, &o, &m); /* the match of that seed */
    for (int k = 0; k < sim_enrol_images("qwirkle"); k++) {
        frames f;
        cJSON *t, *pieces, *pl;
        rules_piece got[RULES_NCOLORS];
        double mmx[RULES_NCOLORS];
        char want[24];
        int n;
        o.enrol = k;
        o.max_frames = 2;
        frames_run("qwirkle", 17, &o, &f);
        assert_int_equal(f.n, 2);
        t = cJSON_Parse(f.truth[0]);
        assert_non_null(t);
        assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(t, "stable")));
        assert_false(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(t, "hand_in_view")));
        assert_null(cJSON_GetObjectItemCaseSensitive(t, "hand"));
        assert_null(cJSON_GetObjectItemCaseSensitive(t, "move"));
        assert_int_equal((int)num(t, "enrol"), k);
        assert_int_equal((int)num(t, "design"), 3);
        pieces = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(t, "position"), "pieces");
        pl = cJSON_GetObjectItemCaseSensitive(t, "placement");
        n = cJSON_GetArraySize(pieces);
        assert_int_equal(n, 6);
        assert_int_equal(cJSON_GetArraySize(pl), n);
        for (int i = 0; i < n; i++) {
            double mm[2];
            assert_int_equal(
                rules_piece_from_json("qwirkle", cJSON_GetArrayItem(pieces, i), &got[i], &err), 0);
            nums(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(pl, i), "mm"), mm, 2);
            mmx[i] = mm[0];
            assert_int_equal(got[i].b, k);
        }
        /* sorted by x in the table frame (toward marker 1): red..purple */
        for (int i = 0; i < n; i++)
            for (int j = i + 1; j < n; j++)
                if (mmx[j] < mmx[i]) {
                    double tx = mmx[i];
                    rules_piece tp = got[i];
                    mmx[i] = mmx[j];
                    mmx[j] = tx;
                    got[i] = got[j];
                    got[j] = tp;
                }
        for (int i = 0; i < n; i++) {
            assert_int_equal(got[i].a, RULES_RED + i);
            /* touching neighbours: a cell (about 20 mm) apart, give or take
             * the jitter and the board's turn */
            if (i > 0)
                assert_true(fabs(mmx[i] - mmx[i - 1] - 20) < 3);
        }
        snprintf(want, sizeof want, "\"enrol\":%d,", k);
        assert_non_null(strstr(f.truth[1], want));
        /* still: the second frame shows the same table */
        {
            char *p0 = truth_part(f.truth[0], "placement"), *p1 = truth_part(f.truth[1], "placement");
            assert_string_equal(p0, p1);
            free(p0);
            free(p1);
        }
        /* a stream of that seed otherwise */
        {
            static const char *keys[] = {"camera", "lighting", "board", "mat", "markers"};
            for (int i = 0; i < 5; i++) {
                char *a = truth_part(f.truth[0], keys[i]), *b = truth_part(m.truth[0], keys[i]);
                assert_string_equal(a, b);
                free(a);
                free(b);
            }
        }
        cJSON_Delete(t);
        frames_free(&f);
    }
    frames_free(&m);

    /* a camera on a tripod: max_frames 0 goes on */
    o.enrol = 0;
    o.max_frames = 0;
    assert_int_equal(sim_stream_new("qwirkle", 17, &o, &s, &err), 0);
    assert_int_equal(sim_stream_skip(s, 500, &err), 0);
    assert_int_equal(sim_stream_frames(s), 500);
    sim_stream_free(s);

    /* out of range, a set without a layout, a mat too small for the row */
    o.enrol = sim_enrol_images("qwirkle");
    s = (sim_stream *)1;
    assert_int_equal(sim_stream_new("qwirkle", 1, &o, &s, &err), BASE_EINVAL);
    assert_null(s);
    assert_non_null(strstr(err.msg, "enrol"));
    assert_non_null(strstr(err.msg, "-1..5"));
    o.enrol = -2;
    assert_int_equal(sim_stream_new("qwirkle", 1, &o, &s, &err), BASE_EINVAL);
    assert_non_null(strstr(err.msg, "enrol"));
    o = small(320, 240);
    o.enrol = 0;
    assert_int_equal(sim_stream_new("cards", 1, &o, &s, &err), BASE_EUNSUPPORTED);
    assert_non_null(strstr(err.msg, "cards"));
    assert_non_null(strstr(err.msg, "enrol"));
    o = small(320, 240);
    o.enrol = 0;
    o.mat_w = o.mat_h = 200;
    assert_int_equal(sim_stream_new("qwirkle", 1, &o, &s, &err), BASE_EINVAL);
    assert_null(s);
    assert_non_null(strstr(err.msg, "mat"));
}

/* `tablecam sim --enrol K`: one still frame by default; out of range exits
 * 2 naming the flag and the range. */
static void test_command_renders_enrolment(void **state)
{
    char *dir = th_tmpdir(), *d1 = th_path(dir, "e");
    th_run r;
    (void)state;
    const char *args[] = {"sim", "--game", "qwirkle", "--seed", "3", "--out", d1, "--enrol",
                          "5", "--width", "160", "--height", "120", NULL};
    assert_int_equal(th_tablecam(&r, NULL, args), 0);
    assert_int_equal(r.status, 0);
    th_run_free(&r);
    {
        char *tp = th_path(d1, "truth.jsonl");
        size_t len;
        char *a = th_read_file(tp, &len);
        assert_non_null(a);
        assert_int_equal(th_count_lines(a), 1);
        assert_non_null(strstr(a, "\"enrol\":5,"));
        assert_non_null(strstr(a, "\"shape\":\"star8\""));
        assert_null(strstr(a, "\"shape\":\"circle\""));
        free(a);
        free(tp);
    }
    const char *bad[] = {"sim", "--game", "qwirkle", "--seed", "3", "--out", d1, "--enrol",
                         "6", NULL};
    assert_int_equal(th_tablecam(&r, NULL, bad), 0);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "--enrol"));
    assert_non_null(strstr(r.err, "0..5"));
    th_run_free(&r);
    const char *cards[] = {"sim", "--game", "cards", "--seed", "3", "--out", d1, "--enrol",
                           "0", NULL};
    assert_int_equal(th_tablecam(&r, NULL, cards), 0);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "enrolment"));
    th_run_free(&r);
    th_rmtree(dir);
    free(d1);
    free(dir);
}

static void test_command_writes_frames_and_truth(void **state)
{
    char *dir = th_tmpdir(), *d1 = th_path(dir, "a"), *d2 = th_path(dir, "b");
    th_run r;
    (void)state;
    const char *args1[] = {"sim", "--game", "qwirkle", "--seed", "9", "--out", d1, "--frames",
                           "4", "--width", "160", "--height", "120", NULL};
    const char *args2[] = {"sim", "--game", "qwirkle", "--seed", "9", "--out", d2, "--frames",
                           "4", "--width", "160", "--height", "120", NULL};
    assert_int_equal(th_tablecam(&r, NULL, args1), 0);
    assert_int_equal(r.status, 0);
    assert_string_equal(r.err, ""); /* no progress bar: stderr is not a terminal */
    th_run_free(&r);
    assert_int_equal(th_tablecam(&r, NULL, args2), 0);
    assert_int_equal(r.status, 0);
    th_run_free(&r);
    {
        char *t1 = th_path(d1, "truth.jsonl"), *t2 = th_path(d2, "truth.jsonl");
        char *p1 = th_path(d1, "frame-00003.png"), *p2 = th_path(d2, "frame-00003.png");
        size_t l1, l2, pl1, pl2;
        char *a = th_read_file(t1, &l1), *b = th_read_file(t2, &l2);
        char *pa = th_read_file(p1, &pl1), *pb = th_read_file(p2, &pl2);
        assert_non_null(a);
        assert_non_null(pa);
        assert_int_equal(th_count_lines(a), 4);
        assert_int_equal(l1, l2);
        assert_memory_equal(a, b, l1);
        assert_int_equal(pl1, pl2);
        assert_memory_equal(pa, pb, pl1);
        char *line = th_line(a, 3);
        cJSON *t = cJSON_Parse(line);
        assert_non_null(t);
        assert_int_equal((int)num(t, "frame"), 3);
        assert_non_null(cJSON_GetObjectItemCaseSensitive(t, "position"));
        assert_non_null(cJSON_GetObjectItemCaseSensitive(t, "camera"));
        assert_non_null(cJSON_GetObjectItemCaseSensitive(t, "lighting"));
        cJSON_Delete(t);
        free(line);
        free(a);
        free(b);
        free(pa);
        free(pb);
        free(t1);
        free(t2);
        free(p1);
        free(p2);
    }
    /* bad input: exit 2 with a message naming it */
    const char *bad1[] = {"sim", "--game", "qwirkle", "--seed", "x", "--out", d1, NULL};
    assert_int_equal(th_tablecam(&r, NULL, bad1), 0);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "--seed"));
    th_run_free(&r);
    const char *bad2[] = {"sim", "--game", "chess", "--seed", "1", "--out", d1, NULL};
    assert_int_equal(th_tablecam(&r, NULL, bad2), 0);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "chess"));
    th_run_free(&r);
    const char *bad3[] = {"sim", "--game", "qwirkle", "--seed", "1", "--out", d1, "--mat",
                          "500x500", NULL};
    assert_int_equal(th_tablecam(&r, NULL, bad3), 0);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "--mat"));
    th_run_free(&r);
    th_rmtree(dir);
    free(d1);
    free(d2);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_truth_read_rejects_bad_lines),
        cmocka_unit_test(test_bad_options_are_named),
        cmocka_unit_test(test_stream_ends),
        cmocka_unit_test(test_same_seed_same_bytes),
        cmocka_unit_test(test_skip_is_rendering_unseen),
        cmocka_unit_test(test_ordinary_streams_unchanged),
        cmocka_unit_test(test_designs),
        cmocka_unit_test(test_deck_names),
        cmocka_unit_test(test_every_deck_renders),
        cmocka_unit_test(test_deck_errors),
        cmocka_unit_test(test_cards_deck_and_down),
        cmocka_unit_test(test_setups),
        cmocka_unit_test(test_truth_replays_with_the_engine),
        cmocka_unit_test(test_cards_truth_replays_with_the_engine),
        cmocka_unit_test(test_cube2_truth_replays_with_the_engine),
        cmocka_unit_test(test_markers_found_where_the_truth_says),
        cmocka_unit_test(test_pieces_project_where_the_truth_says),
        cmocka_unit_test(test_cards_project_where_the_truth_says),
        cmocka_unit_test(test_cube2_pieces_project_where_the_truth_says),
        cmocka_unit_test(test_enrol_photos),
        cmocka_unit_test(test_command_writes_frames_and_truth),
        cmocka_unit_test(test_command_renders_enrolment),
    };
    th_case_filter();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
