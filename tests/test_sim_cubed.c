/* tests/test_sim_cubed.c: CUBED on the simulated table (sim/cubed_pieces.c):
 *
 *   a whole round played by the engine's rules: placements, draws,
 *     passes, the reveals that end it, every event legal and the truth's
 *     position the engine's;
 *   each tile's top shows its three faces where GAMES.md puts them (the
 *     rhombus over edge e of the cell in the colour that covers e, parity
 *     by parity), projected through the truth's camera;
 *   the layout lies turned any way on the mat, and the designs differ;
 *   injected illegal placements refused by the engine with a rule. */
#define _XOPEN_SOURCE 700
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
#include "sim_truth.h"

static sim_options options(int w, int h)
{
    sim_options o;
    sim_options_default(&o);
    o.width = w;
    o.height = h;
    o.fps = 1;
    return o;
}

/* Runs a stream to its end without keeping frames: the events' move
 * types counted, their legality, the last truth line. */
typedef struct round_run {
    int place, draw, pass, reveal, illegal, events, frames;
    bool over;
    cJSON *last;
} round_run;

static void run_round(uint64_t seed, const sim_options *o, round_run *r)
{
    sim_stream *s = NULL;
    base_err err;
    vis_image *img;
    char *tj;
    int rc;
    memset(r, 0, sizeof *r);
    if (sim_stream_new("cubed", seed, o, &s, &err) != 0)
        fail_msg("sim_stream_new: %s", err.msg);
    while ((rc = sim_stream_next(s, &img, &tj, &err)) == 0) {
        cJSON *t = cJSON_Parse(tj), *done = cJSON_GetObjectItem(t, "move");
        assert_non_null(t);
        if (done) {
            const char *type = cJSON_GetStringValue(cJSON_GetObjectItem(
                cJSON_GetObjectItem(cJSON_GetObjectItem(done, "event"), "move"), "type"));
            assert_non_null(type);
            r->events++;
            r->place += strcmp(type, "place") == 0;
            r->draw += strcmp(type, "draw") == 0;
            r->pass += strcmp(type, "pass") == 0;
            r->reveal += strcmp(type, "reveal") == 0;
            if (!cJSON_IsTrue(cJSON_GetObjectItem(done, "legal"))) {
                r->illegal++;
                assert_non_null(cJSON_GetStringValue(cJSON_GetObjectItem(done, "rule")));
            }
            r->over |= cJSON_IsTrue(cJSON_GetObjectItem(done, "over"));
        }
        cJSON_Delete(r->last);
        r->last = t;
        r->frames++;
        vis_image_free(img);
        free(tj);
    }
    if (rc != BASE_EEOF)
        fail_msg("sim_stream_next: %s", err.msg);
    sim_stream_free(s);
}

static void test_a_round_to_its_end(void **state)
{
    sim_options o = options(160, 120);
    round_run r;
    const cJSON *pos;
    (void)state;
    o.hands = false;
    run_round(7, &o, &r);
    if (!r.over || r.place < 20 || r.draw < 1 || r.pass < 1 || r.reveal < 1 || r.illegal)
        fail_msg("seed 7: %d events (%d placed, %d draws, %d passes, %d reveals, %d illegal), "
                 "over %d",
                 r.events, r.place, r.draw, r.pass, r.reveal, r.illegal, r.over);
    /* the table holds what was placed, as the engine has it */
    pos = cJSON_GetObjectItem(cJSON_GetObjectItem(r.last, "position"), "pieces");
    assert_int_equal(cJSON_GetArraySize(pos), r.place);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(r.last, "placement")), r.place);
    cJSON_Delete(r.last);
}

static void test_illegal_placements_refused(void **state)
{
    sim_options o = options(160, 120);
    round_run r;
    (void)state;
    o.hands = false;
    o.illegal = 0.3;
    run_round(8, &o, &r);
    if (r.illegal < 3 || !r.over)
        fail_msg("seed 8: %d illegal of %d events, over %d", r.illegal, r.events, r.over);
    cJSON_Delete(r.last);
}

/* The colour a frame shows at a table point: white and black by
 * brightness and saturation, else the nearest of the six hues. */
static int colour_at(const vis_image *img, const truth_cam *cam, double x, double y, double z)
{
    double sum[3] = {0, 0, 0}, mx, mn;
    int u, v, c = top_colour(img, cam, x, y, z, sum, &u, &v);
    mx = fmax(sum[0], fmax(sum[1], sum[2])) / 9;
    mn = fmin(sum[0], fmin(sum[1], sum[2])) / 9;
    if (mx < 45)
        return RULES_BLACK;
    if (mn > 0.7 * mx)
        return RULES_WHITE;
    return c;
}

/* Edge e of a cell faces (q, r) + d[e]; its outward normal in the table
 * frame (x east, y south) points 60 - 60 e degrees from east, north up. */
static void edge_normal(int e, double rot, double *nx, double *ny)
{
    double a = (60 - 60 * e) * M_PI / 180;
    double x = cos(a), y = -sin(a);
    *nx = x * cos(rot) - y * sin(rot);
    *ny = x * sin(rot) + y * cos(rot);
}

static void test_tiles_show_their_faces(void **state)
{
    static const char *const names[RULES_NCOLORS] = {"red",  "orange", "yellow", "green",
                                                     "blue", "purple", "black",  "white"};
    int checked = 0, wrong = 0;
    char first[200] = "";
    (void)state;
    for (int design = 0; design < 3; design++) {
        sim_options o = options(1280, 960);
        vis_image *img = NULL;
        char *tj = NULL;
        o.clean = true;
        o.hands = false;
        o.setup = SIM_SETUP_GOOD;
        o.design = design * 7;
        o.max_moves = 12;
        last_frame_of("cubed", 30 + (uint64_t)design, &o, &img, &tj);
        {
            cJSON *t = cJSON_Parse(tj);
            const cJSON *pieces = cJSON_GetObjectItem(cJSON_GetObjectItem(t, "position"), "pieces");
            const cJSON *placement = cJSON_GetObjectItem(t, "placement");
            truth_cam cam;
            truth_cam_read(t, &cam);
            assert_true(cJSON_GetArraySize(pieces) >= 8);
            for (int i = 0; i < cJSON_GetArraySize(pieces); i++) {
                const cJSON *pl = cJSON_GetArrayItem(placement, i);
                rules_piece p;
                double mm[2], rot = num(pl, "rot_deg") * M_PI / 180, top = num(pl, "top_mm");
                assert_int_equal(rules_piece_from_json("cubed", cJSON_GetArrayItem(pieces, i), &p,
                                                       NULL),
                                 0);
                nums(cJSON_GetObjectItem(pl, "mm"), mm, 2);
                for (int e = 0; e < 6; e++) {
                    /* parity 0: faces over edges {5,0} {1,2} {3,4}; parity 1:
                     * {0,1} {2,3} {4,5} (GAMES.md) */
                    int k = p.parity ? e / 2 : (e + 1) % 6 / 2, want, got;
                    double nx, ny;
                    want = k == 0 ? p.a : k == 1 ? p.b : p.c;
                    edge_normal(e, rot, &nx, &ny);
                    got = colour_at(img, &cam, mm[0] + 11 * nx, mm[1] + 11 * ny, top);
                    checked++;
                    if (got != want && wrong++ == 0)
                        snprintf(first, sizeof first,
                                 "design %d: tile (%d,%d) parity %d edge %d shows %s, not %s",
                                 o.design, p.x, p.y, p.parity, e, got >= 0 ? names[got] : "?",
                                 names[want]);
                }
            }
            cJSON_Delete(t);
        }
        vis_image_free(img);
        free(tj);
    }
    /* every rhombus where it belongs; a sample on a printed line or a
     * shadow's edge may read another colour */
    if (wrong * 50 > checked)
        fail_msg("%d of %d edges show another colour; the first: %s", wrong, checked, first);
}

static void test_turned_any_way_and_designs_differ(void **state)
{
    double lo = 0, hi = 0;
    (void)state;
    assert_true(sim_game_supported("cubed"));
    assert_int_equal(sim_designs("cubed"), 24);
    for (uint64_t seed = 40; seed < 52; seed++) {
        sim_options o = options(160, 120);
        frames f;
        cJSON *t;
        double rot;
        o.max_frames = 1;
        frames_run("cubed", seed, &o, &f);
        t = cJSON_Parse(f.truth[0]);
        rot = num(cJSON_GetObjectItem(t, "board"), "rotation_deg");
        lo = fmin(lo, rot);
        hi = fmax(hi, rot);
        cJSON_Delete(t);
        frames_free(&f);
    }
    if (lo > -45 || hi < 45)
        fail_msg("12 layouts turned only from %.1f to %.1f degrees", lo, hi);
    {
        sim_options o = options(320, 240);
        frames a, b;
        o.clean = true;
        o.max_moves = 4;
        o.design = 1;
        frames_run("cubed", 60, &o, &a);
        o.design = 2;
        frames_run("cubed", 60, &o, &b);
        assert_int_equal(a.n, b.n);
        assert_false(same_image(a.img[a.n - 1], b.img[b.n - 1]));
        frames_free(&a);
        frames_free(&b);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_round_to_its_end),
        cmocka_unit_test(test_illegal_placements_refused),
        cmocka_unit_test(test_tiles_show_their_faces),
        cmocka_unit_test(test_turned_any_way_and_designs_differ),
    };
    th_case_filter();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
