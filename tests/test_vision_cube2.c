/* tests/test_vision_cube2.c: the cube² reader (vision/cube2.h) on
 * simulated frames with fixed seeds.  A regression check of the path,
 * not a measure of accuracy (bench_recognize_cube2 measures that):
 *
 *   the board fitted where the truth lays it on each kind of board (wood
 *     with burned lines, a printed card, a cloth), in an enrolment photo
 *     and in a match's still frames, whichever way the camera looks;
 *   a board found again from the last frame's fit, and a fit that is off
 *     not confirmed;
 *   no board on a mat without one (a Qwirkle table);
 *   the squares of an enrolment photo read as the truth's, through the
 *     referee's reader and `tablecam recognize`;
 *   a set enrolled from that photo by `tablecam calibrate pieces` (the
 *     layout's pieces and empty squares, "covered" left out) and read
 *     with; a photo of an empty board refused, naming the square;
 *   bad sizes and a model of another game refused, naming what. */
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

#include "calib.h"
#include "cube2.h"
#include "harness.h"
#include "referee.h"
#include "rules.h"
#include "sim.h"

/* every square's centre within this of the truth's (mm): well inside the
 * 42 mm patch the classifier reads round a 22 mm piece */
#define POS_MM 6.0

typedef struct frame {
    vis_image *img;
    cJSON *truth;
} frame;

/* Frame `at` of game's stream (skipped to, one render). */
static void frame_get(const char *game, uint64_t seed, const sim_options *o, int at, frame *f)
{
    sim_stream *s = NULL;
    char *tj = NULL;
    base_err err;
    if (sim_stream_new(game, seed, o, &s, &err) != 0)
        fail_msg("sim_stream_new: %s", err.msg);
    if (at > 0 && sim_stream_skip(s, at, &err) != 0)
        fail_msg("sim_stream_skip: %s", err.msg);
    if (sim_stream_next(s, &f->img, &tj, &err) != 0)
        fail_msg("sim_stream_next: %s", err.msg);
    f->truth = cJSON_Parse(tj);
    free(tj);
    sim_stream_free(s);
}

static void frame_free(frame *f)
{
    vis_image_free(f->img);
    cJSON_Delete(f->truth);
}

/* The board fitted in f as the reader fits it: the whole search, or
 * (prior not NULL) tracked from prior. */
static void fit_near(const frame *f, const vis_c2_board *prior, vis_c2_board *b)
{
    vis_aruco *det = NULL;
    cal_mat_fit fit;
    vis_image *view = NULL;
    vis_view vw;
    vis_cube2 *c = NULL;
    base_err err;
    assert_int_equal(vis_aruco_new(VIS_ARUCO_4X4_50, &det, &err), 0);
    assert_int_equal(cal_mat_locate(det, f->img, cal_mat_default(), NULL, &fit, &err), 0);
    assert_int_equal(cal_rectify(f->img, &fit, cal_mat_default(), NULL, VIS_C2_BOARD_Z_MM, 1.5, 0,
                                 &view, &err),
                     0);
    memset(&vw, 0, sizeof vw);
    vw.px_per_mm = 1.5;
    vw.mat_w = vw.mat_h = 500;
    vw.marker_mm = 40;
    assert_int_equal(vis_cube2_new(0, 0, 0, &c, &err), 0);
    if (prior)
        assert_int_equal(vis_cube2_track(c, view, &vw, prior, b, &err), 0);
    else
        assert_int_equal(vis_cube2_find(c, view, &vw, b, &err), 0);
    vis_cube2_free(c);
    vis_image_free(view);
    vis_aruco_free(det);
}

static void fit_board(const frame *f, vis_c2_board *b) { fit_near(f, NULL, b); }

/* Every square's centre within POS_MM of the truth's (the corners' are
 * the farthest off when the turn errs). */
static void check_board(const frame *f, const vis_c2_board *b, const char *what)
{
    const cJSON *bo = cJSON_GetObjectItem(f->truth, "board");
    const cJSON *org = cJSON_GetObjectItem(bo, "origin_mm");
    double tx = cJSON_GetArrayItem(org, 0)->valuedouble, ty = cJSON_GetArrayItem(org, 1)->valuedouble;
    double rot = cJSON_GetNumberValue(cJSON_GetObjectItem(bo, "rotation_deg")) * M_PI / 180;
    if (!b->found)
        fail_msg("%s: no board found (contrast %.2f, lines %.2f)", what, b->contrast, b->line_share);
    for (int k = 0; k < 4; k++) {
        int c = (k & 1) ? 5 : 0, r = (k & 2) ? 5 : 0;
        double x, y, wx = tx + 30 * c * cos(rot) - 30 * r * sin(rot),
                     wy = ty + 30 * c * sin(rot) + 30 * r * cos(rot);
        vis_cube2_square_mm(b, c, r, &x, &y);
        if (hypot(x - wx, y - wy) > POS_MM)
            fail_msg("%s: square (%d,%d) at %.1f,%.1f, the truth's %.1f,%.1f (turned %.2f, the "
                     "truth %.2f)",
                     what, c, r, x, y, wx, wy, b->angle_deg, rot * 180 / M_PI);
    }
}

static sim_options options(int w, int h)
{
    sim_options o;
    sim_options_default(&o);
    o.width = w;
    o.height = h;
    return o;
}

static void test_board_on_every_kind(void **state)
{
    (void)state;
    for (int d = 0; d < 3; d++) { /* designs 0, 1, 2: wood, card, cloth */
        sim_options o = options(960, 720);
        frame f;
        vis_c2_board b;
        char what[64];
        o.enrol = 0;
        o.max_frames = 1;
        o.design = d;
        o.setup = SIM_SETUP_GOOD;
        frame_get("cube2", 40 + (uint64_t)d, &o, 0, &f);
        fit_board(&f, &b);
        snprintf(what, sizeof what, "design %d enrolment photo", d);
        check_board(&f, &b, what);
        frame_free(&f);
    }
}

/* Still frames of matches, any camera: empty boards at the start, full
 * ones after the setup (frame 120 at one frame a second). */
static void test_board_in_matches(void **state)
{
    static const struct {
        uint64_t seed;
        int design, at;
    } cases[] = {{51, 4, 0}, {52, 7, 121}, {53, 11, 130}, {54, 20, 125}};
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sim_options o = options(1280, 960);
        frame f;
        vis_c2_board b;
        char what[96];
        o.fps = 1;
        o.max_moves = 30;
        o.design = cases[i].design;
        frame_get("cube2", cases[i].seed, &o, cases[i].at, &f);
        if (!cJSON_IsTrue(cJSON_GetObjectItem(f.truth, "stable")))
            fail_msg("seed %llu frame %d is not a still frame", (unsigned long long)cases[i].seed,
                     cases[i].at);
        fit_board(&f, &b);
        snprintf(what, sizeof what, "seed %llu design %d frame %d",
                 (unsigned long long)cases[i].seed, cases[i].design, cases[i].at);
        check_board(&f, &b, what);
        frame_free(&f);
    }
}

/* A board found in one frame is found again from there (the next frame's
 * fast path); a prior that is a few millimetres or a whole square off, or
 * turned, is not confirmed, so the whole search runs. */
static void test_board_tracked(void **state)
{
    sim_options o = options(1280, 960);
    frame f;
    vis_c2_board b, t, off;
    double th;
    (void)state;
    o.fps = 1;
    o.max_moves = 30;
    o.design = 7;
    frame_get("cube2", 52, &o, 121, &f);
    fit_board(&f, &b);
    check_board(&f, &b, "the whole search");
    fit_near(&f, &b, &t);
    check_board(&f, &t, "tracked");
    assert_true(fabs(t.angle_deg - b.angle_deg) < 0.2);
    assert_true(hypot(t.x0_mm - b.x0_mm, t.y0_mm - b.y0_mm) < 1.0);
    th = b.angle_deg * M_PI / 180;
    off = b;
    off.x0_mm += 12 * cos(th); /* between two lines */
    off.y0_mm += 12 * sin(th);
    fit_near(&f, &off, &t);
    assert_false(t.found);
    off = b;
    off.x0_mm += 30 * cos(th); /* a square along */
    off.y0_mm += 30 * sin(th);
    fit_near(&f, &off, &t);
    assert_false(t.found);
    off = b;
    off.angle_deg += 4;
    fit_near(&f, &off, &t);
    assert_false(t.found);
    off.found = false; /* no prior: nothing tracked */
    fit_near(&f, &off, &t);
    assert_false(t.found);
    frame_free(&f);
}

static void test_no_board_on_a_qwirkle_table(void **state)
{
    sim_options o = options(960, 720);
    frame f;
    vis_c2_board b;
    (void)state;
    o.max_moves = 3;
    o.fps = 1;
    frame_get("qwirkle", 5, &o, 12, &f);
    fit_board(&f, &b);
    if (b.found)
        fail_msg("a board found on a Qwirkle table (contrast %.2f)", b.contrast);
    frame_free(&f);
}

/* The enrolment photo of design 0 through ref_reader: its twelve pieces,
 * nothing else, no hand; and `tablecam recognize` prints the same. */
static void test_reader_reads_the_photo(void **state)
{
    sim_options o = options(1280, 960);
    frame f;
    ref_reader_config cfg = {"cube2", NULL, NULL, 0};
    ref_reader *rd = NULL;
    ref_reading *r = malloc(sizeof *r);
    base_err err;
    const cJSON *ps = NULL, *it;
    int n = 0;
    (void)state;
    o.enrol = 0;
    o.max_frames = 1;
    o.setup = SIM_SETUP_GOOD;
    frame_get("cube2", 60, &o, 0, &f);
    assert_int_equal(ref_reader_new(&cfg, &rd, &err), 0);
    if (ref_reader_read(rd, f.img, r, &err) != 0)
        fail_msg("ref_reader_read: %s", err.msg);
    assert_false(r->hand);
    ps = cJSON_GetObjectItem(cJSON_GetObjectItem(f.truth, "position"), "pieces");
    assert_int_equal(r->n, cJSON_GetArraySize(ps));
    cJSON_ArrayForEach(it, ps)
    {
        rules_piece p;
        bool seen = false;
        assert_int_equal(rules_piece_from_json("cube2", it, &p, NULL), 0);
        for (int i = 0; i < r->n; i++)
            seen |= r->pieces[i].x == p.x && r->pieces[i].y == p.y &&
                    r->pieces[i].a == p.a && r->pieces[i].b == p.b;
        if (!seen)
            fail_msg("the %s %s at (%d,%d) was not read", rules_color_name(p.a),
                     p.b ? "cylinder" : "cube", p.x, p.y);
        n++;
    }
    assert_int_equal(n, 12);
    {
        char *dir = th_tmpdir(), *path = th_path(dir, "photo.png");
        th_run run;
        assert_int_equal(vis_image_write(path, f.img, 0, &err), 0);
        assert_int_equal(th_tablecam(&run, NULL,
                                     (const char *const[]){"recognize", "--game", "cube2", path,
                                                           NULL}),
                         0);
        if (run.status != 0)
            fail_msg("tablecam recognize: %s", run.err);
        assert_non_null(strstr(run.out, "\"game\":\"cube2\""));
        assert_int_equal(th_count_lines(run.out), 1);
        {
            cJSON *j = cJSON_Parse(run.out);
            assert_non_null(j);
            assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(j, "pieces")), 12);
            cJSON_Delete(j);
        }
        th_run_free(&run);
        th_rmtree(dir);
        free(path);
        free(dir);
    }
    ref_reader_free(rd);
    free(r);
    frame_free(&f);
}

/* The value named name of head h of an enrolled set's JSON. */
static const cJSON *set_value(const cJSON *set, int h, const char *name)
{
    const cJSON *it;
    cJSON_ArrayForEach(it, cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(set, "heads"),
                                                                  h),
                                               "values"))
    {
        if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(it, "name")), name) == 0)
            return it;
    }
    fail_msg("the set has no value %s in head %d", name, h);
    return NULL;
}

static void test_enrol_a_set(void **state)
{
    static const char *const colors[] = {"red", "orange", "yellow", "green", "blue", "purple"};
    sim_options o = options(1280, 960);
    frame f, empty;
    char *dir = th_tmpdir(), *photo = th_path(dir, "photo.png"), *bare = th_path(dir, "bare.png");
    char *setf = th_path(dir, "set.json");
    th_run run;
    base_err err;
    cJSON *set;
    (void)state;
    o.enrol = 0;
    o.max_frames = 1;
    o.setup = SIM_SETUP_GOOD;
    frame_get("cube2", 60, &o, 0, &f);
    o.enrol = -1;
    frame_get("cube2", 61, &o, 0, &empty); /* a match's first frame: the board bare */
    assert_int_equal(vis_image_write(photo, f.img, 0, &err), 0);
    assert_int_equal(vis_image_write(bare, empty.img, 0, &err), 0);

    assert_int_equal(th_tablecam(&run, NULL,
                                 (const char *const[]){"calibrate", "pieces", "--game", "cube2",
                                                       "--out", setf, photo, NULL}),
                     0);
    if (run.status != 0)
        fail_msg("tablecam calibrate pieces: %s", run.err);
    assert_non_null(strstr(run.err, "36 squares enrolled"));
    th_run_free(&run);
    {
        char *text = th_read_file(setf, NULL);
        assert_non_null(text);
        set = cJSON_Parse(text);
        free(text);
    }
    assert_non_null(set);
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(set, "game")), "cube2");
    assert_int_equal(cJSON_GetNumberValue(cJSON_GetObjectItem(set_value(set, 0, "empty"), "n")),
                     24);
    for (int c = 0; c < 6; c++)
        assert_int_equal(cJSON_GetNumberValue(cJSON_GetObjectItem(set_value(set, 0, colors[c]),
                                                                  "n")),
                         2);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(set_value(set, 0, "covered"), "left")));
    assert_int_equal(cJSON_GetNumberValue(cJSON_GetObjectItem(set_value(set, 1, "cube"), "n")), 6);
    assert_int_equal(cJSON_GetNumberValue(cJSON_GetObjectItem(set_value(set, 1, "cylinder"), "n")),
                     6);
    cJSON_Delete(set);

    /* read with it: the photo's twelve pieces still */
    assert_int_equal(th_tablecam(&run, NULL,
                                 (const char *const[]){"recognize", "--game", "cube2", "--pieces",
                                                       setf, photo, NULL}),
                     0);
    if (run.status != 0)
        fail_msg("tablecam recognize --pieces: %s", run.err);
    {
        cJSON *j = cJSON_Parse(run.out);
        assert_non_null(j);
        assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(j, "pieces")), 12);
        cJSON_Delete(j);
    }
    th_run_free(&run);
    /* a set of one game is refused by another's reader */
    assert_int_equal(th_tablecam(&run, NULL,
                                 (const char *const[]){"recognize", "--game", "qwirkle",
                                                       "--pieces", setf, photo, NULL}),
                     0);
    assert_int_equal(run.status, 2);
    assert_non_null(strstr(run.err, "cube2 set"));
    th_run_free(&run);

    /* a bare board is no enrolment: the first square named */
    assert_int_equal(th_tablecam(&run, NULL,
                                 (const char *const[]){"calibrate", "pieces", "--game", "cube2",
                                                       "--out", setf, bare, NULL}),
                     0);
    assert_int_equal(run.status, 2);
    if (!strstr(run.err, "square 1,3 reads empty: the red cube belongs there"))
        fail_msg("tablecam calibrate pieces on a bare board said: %s", run.err);
    th_run_free(&run);
    /* one photo, not two */
    assert_int_equal(th_tablecam(&run, NULL,
                                 (const char *const[]){"calibrate", "pieces", "--game", "cube2",
                                                       photo, photo, NULL}),
                     0);
    assert_int_equal(run.status, 2);
    assert_non_null(strstr(run.err, "from 1 photo (board with"));
    th_run_free(&run);

    frame_free(&f);
    frame_free(&empty);
    th_rmtree(dir);
    free(photo);
    free(bare);
    free(setf);
    free(dir);
}

static void test_bad_arguments_are_named(void **state)
{
    vis_cube2 *c = NULL;
    base_err err;
    (void)state;
    assert_int_equal(vis_cube2_new(1, 6, 30, &c, &err), BASE_ERANGE);
    assert_non_null(strstr(err.msg, "1x6"));
    assert_int_equal(vis_cube2_new(6, 6, 300, &c, &err), BASE_ERANGE);
    assert_int_equal(vis_cube2_new(0, 0, 0, &c, &err), 0);
    assert_int_equal(vis_cube2_use_model(c, TABLECAM_SOURCE_DIR "/models/qwirkle.onnx", &err),
                     BASE_EPARSE);
    assert_non_null(strstr(err.msg, "qwirkle.onnx"));
    vis_cube2_free(c);
}

int main(void)
{
    th_case_filter();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_arguments_are_named),
        cmocka_unit_test(test_board_on_every_kind),
        cmocka_unit_test(test_enrol_a_set),
        cmocka_unit_test(test_board_in_matches),
        cmocka_unit_test(test_board_tracked),
        cmocka_unit_test(test_no_board_on_a_qwirkle_table),
        cmocka_unit_test(test_reader_reads_the_photo),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
