/* tests/test_vision_cubed.c: finding CUBED's tiles (vision/cubed.h) on
 * simulated frames with fixed seeds, a regression check of the path:
 *
 *   the lattice's turn (modulo 60 degrees) and every tile's cell found
 *     where the truth lays it, over designs, cameras and layouts turned
 *     any way, among a bounded number of candidate cells;
 *   no layout on a bare mat;
 *   a layout tracked in a view of the table round it, none once cleared;
 *   the shipped model's reading of a whole layout through ref_reader and
 *   `tablecam recognize`, compared with the truth where the tiles lie
 *   (each truth tile's parity and faces turned into the lattice's frame);
 *   a model of another game refused, naming its heads. */
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
#include "cubed.h"
#include "harness.h"
#include "referee.h"
#include "rules.h"
#include "sim.h"
#include "sim_truth.h"

/* a tile's centre within this of the truth's (mm): a fifth of a pitch */
#define POS_MM 8.0
/* the lattice's turn within this of the truth's, modulo 60 (degrees) */
#define TURN_DEG 2.0

/* The last frame of a stream (a still one: the stream ends after a move
 * with its still frames) and its truth. */
static void last_frame(uint64_t seed, const sim_options *o, vis_image **img, cJSON **truth)
{
    char *tj = NULL;
    last_frame_of("cubed", seed, o, img, &tj);
    *truth = cJSON_Parse(tj);
    free(tj);
}

/* A round of moves events of design at 1280x960, one frame a second. */
static sim_options round_options(int design, int moves)
{
    sim_options o;
    sim_options_default(&o);
    o.width = 1280;
    o.height = 960;
    o.fps = 1;
    o.design = design;
    o.max_moves = moves;
    return o;
}

static void find_layout(const vis_image *img, vis_cb_layout *l)
{
    vis_aruco *det = NULL;
    cal_mat_fit fit;
    vis_image *view = NULL;
    vis_view vw;
    base_err err;
    assert_int_equal(vis_aruco_new(VIS_ARUCO_4X4_50, &det, &err), 0);
    assert_int_equal(cal_mat_locate(det, img, cal_mat_default(), NULL, &fit, &err), 0);
    assert_int_equal(
        cal_rectify(img, &fit, cal_mat_default(), NULL, VIS_CB_TOP_Z_MM, 1.5, 0, &view, &err), 0);
    memset(&vw, 0, sizeof vw);
    vw.px_per_mm = 1.5;
    vw.mat_w = vw.mat_h = 500;
    vw.marker_mm = 40;
    assert_int_equal(vis_cubed_find(view, &vw, 0, l, &err), 0);
    vis_image_free(view);
    vis_aruco_free(det);
}

static void check_layout(const cJSON *truth, const vis_cb_layout *l, const char *what)
{
    const cJSON *placement = cJSON_GetObjectItem(truth, "placement"), *it;
    double rot = cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetObjectItem(truth, "board"),
                                                          "rotation_deg"));
    double dt = fmod(l->angle_deg - rot + 3600 + 30, 60) - 30;
    int n = cJSON_GetArraySize(placement);
    if (!l->found)
        fail_msg("%s: no layout found (turn share %.2f, margin %.2f, %d tiles)", what,
                 l->turn_share, l->coset_margin, l->ntiles);
    if (fabs(dt) > TURN_DEG)
        fail_msg("%s: turned %.2f, the truth %.2f (mod 60: %.2f off)", what, l->angle_deg, rot, dt);
    cJSON_ArrayForEach(it, placement)
    {
        const cJSON *mm = cJSON_GetObjectItem(it, "mm");
        double x = cJSON_GetArrayItem(mm, 0)->valuedouble, y = cJSON_GetArrayItem(mm, 1)->valuedouble;
        double near = INFINITY;
        for (int i = 0; i < l->ntiles; i++)
            near = fmin(near, hypot(l->tiles[i].x_mm - x, l->tiles[i].y_mm - y));
        if (near > POS_MM)
            fail_msg("%s: the tile at %.1f,%.1f has no cell within %.0f mm (nearest %.1f mm; "
                     "%d cells for %d tiles, margin %.2f)",
                     what, x, y, POS_MM, near, l->ntiles, n, l->coset_margin);
    }
    /* the candidates: every tile's cell, and its neighbours */
    if (l->nstrong > n + 6 || l->ntiles > 4 * n + 12)
        fail_msg("%s: %d candidate cells (%d standing out) for %d tiles", what, l->ntiles,
                 l->nstrong, n);
}

static void test_layouts_found(void **state)
{
    static const struct {
        uint64_t seed;
        int design, moves;
        int setup;
    } cases[] = {{70, 0, 10, SIM_SETUP_GOOD}, {71, 5, 20, SIM_SETUP_GOOD},
                 {72, 9, 30, SIM_SETUP_ANY},  {73, 14, 15, SIM_SETUP_ANY},
                 {74, 18, 25, SIM_SETUP_GOOD}, {75, 23, 12, SIM_SETUP_ANY}};
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sim_options o;
        vis_image *img;
        cJSON *t;
        vis_cb_layout l;
        char what[96];
        o = round_options(cases[i].design, cases[i].moves);
        o.setup = cases[i].setup;
        last_frame(cases[i].seed, &o, &img, &t);
        find_layout(img, &l);
        snprintf(what, sizeof what, "seed %llu design %d after %d events",
                 (unsigned long long)cases[i].seed, cases[i].design, cases[i].moves);
        check_layout(t, &l, what);
        vis_image_free(img);
        cJSON_Delete(t);
    }
}

/* A layout found once is found again in a view of the table round it
 * alone, with the mat's colour of the first fit; a cleared table is not. */
static void test_layout_tracked(void **state)
{
    sim_options o;
    vis_image *img, *view = NULL;
    cJSON *t;
    vis_cb_layout *l = malloc(sizeof *l), *again = malloc(sizeof *again);
    vis_aruco *det = NULL;
    cal_mat_fit fit;
    vis_view vw;
    double box[4];
    base_err err;
    (void)state;
    o = round_options(9, 20);
    last_frame(78, &o, &img, &t);
    find_layout(img, l);
    check_layout(t, l, "seed 78, the whole mat");
    vis_cubed_bounds(l, 90, box);
    assert_true(box[2] - box[0] < 400 && box[3] - box[1] < 400);
    assert_int_equal(vis_aruco_new(VIS_ARUCO_4X4_50, &det, &err), 0);
    assert_int_equal(cal_mat_locate(det, img, cal_mat_default(), NULL, &fit, &err), 0);
    assert_int_equal(cal_rectify_roi(img, &fit, NULL, VIS_CB_TOP_Z_MM, 1.5, box[0], box[1],
                                     box[2] - box[0], box[3] - box[1], &view, &err),
                     0);
    memset(&vw, 0, sizeof vw);
    vw.px_per_mm = 1.5;
    vw.mat_w = vw.mat_h = 500;
    vw.marker_mm = 40;
    vw.roi = true;
    vw.x0_mm = box[0];
    vw.y0_mm = box[1];
    assert_int_equal(vis_cubed_track(view, &vw, l, again, &err), 0);
    check_layout(t, again, "seed 78, tracked");
    assert_int_equal(again->nstrong, l->nstrong);
    vis_image_free(view);
    vis_image_free(img);
    cJSON_Delete(t);
    /* the table cleared: nothing there to track */
    o.max_frames = 1;
    last_frame(76, &o, &img, &t);
    assert_int_equal(cal_mat_locate(det, img, cal_mat_default(), NULL, &fit, &err), 0);
    assert_int_equal(cal_rectify_roi(img, &fit, NULL, VIS_CB_TOP_Z_MM, 1.5, box[0], box[1],
                                     box[2] - box[0], box[3] - box[1], &view, &err),
                     0);
    assert_int_equal(vis_cubed_track(view, &vw, l, again, &err), 0);
    assert_false(again->found);
    again->found = false;
    assert_int_equal(vis_cubed_track(view, &vw, again, l, &err), BASE_EINVAL);
    vis_image_free(view);
    vis_image_free(img);
    cJSON_Delete(t);
    vis_aruco_free(det);
    free(l);
    free(again);
}

static void test_bare_mat(void **state)
{
    sim_options o;
    vis_image *img;
    cJSON *t;
    vis_cb_layout l;
    (void)state;
    sim_options_default(&o);
    o.width = 960;
    o.height = 720;
    o.max_frames = 1; /* the first frame: nothing laid yet */
    last_frame(76, &o, &img, &t);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(cJSON_GetObjectItem(t, "position"),
                                                            "pieces")),
                     0);
    find_layout(img, &l);
    if (l.found)
        fail_msg("a bare mat shows a layout of %d tiles (turn share %.2f, margin %.2f)", l.ntiles,
                 l.turn_share, l.coset_margin);
    vis_image_free(img);
    cJSON_Delete(t);
}

/* Truth tile p of a layout turned rot degrees as it reads in a lattice
 * turned angle_deg (vis_cubed_turn, whose numbers test_referee's
 * test_reading_turn_hex pins). */
static void in_frame(const rules_piece *p, double rot, double angle_deg, rules_piece *out)
{
    int parity, f[3];
    vis_cubed_turn(p->parity, (const int[3]){p->a, p->b, p->c},
                   (int)lround((angle_deg - rot) / 60.0), &parity, f);
    *out = *p;
    out->parity = (uint8_t)parity;
    out->a = (uint8_t)f[0];
    out->b = (uint8_t)f[1];
    out->c = (uint8_t)f[2];
}

static void test_reader_reads_a_layout(void **state)
{
    sim_options o;
    vis_image *img;
    cJSON *t;
    ref_reader_config cfg = {"cubed", NULL, NULL, 0};
    ref_reader *rd = NULL;
    ref_reading *r = malloc(sizeof *r);
    base_err err;
    const cJSON *ps, *pl;
    double rot;
    int n;
    (void)state;
    o = round_options(10, 16);
    o.setup = SIM_SETUP_GOOD;
    last_frame(77, &o, &img, &t);
    assert_int_equal(ref_reader_new(&cfg, &rd, &err), 0);
    if (ref_reader_read(rd, img, r, &err) != 0)
        fail_msg("ref_reader_read: %s", err.msg);
    assert_false(r->hand);
    ps = cJSON_GetObjectItem(cJSON_GetObjectItem(t, "position"), "pieces");
    pl = cJSON_GetObjectItem(t, "placement");
    rot = cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetObjectItem(t, "board"),
                                                   "rotation_deg"));
    n = cJSON_GetArraySize(ps);
    assert_true(n >= 8);
    assert_int_equal(r->n, n);
    for (int k = 0; k < n; k++) {
        const cJSON *mm = cJSON_GetObjectItem(cJSON_GetArrayItem(pl, k), "mm");
        double x = cJSON_GetArrayItem(mm, 0)->valuedouble, y = cJSON_GetArrayItem(mm, 1)->valuedouble;
        rules_piece p, want;
        int at = -1;
        assert_int_equal(rules_piece_from_json("cubed", cJSON_GetArrayItem(ps, k), &p, NULL), 0);
        in_frame(&p, rot, r->grid_angle_deg, &want);
        for (int i = 0; i < r->n; i++)
            if (hypot(r->x_mm[i] - x, r->y_mm[i] - y) < POS_MM)
                at = i;
        if (at < 0)
            fail_msg("the tile at %.0f,%.0f was not read", x, y);
        if (r->pieces[at].parity != want.parity || r->pieces[at].a != want.a ||
            r->pieces[at].b != want.b || r->pieces[at].c != want.c)
            fail_msg("the tile at %.0f,%.0f is parity %d %s %s %s, read parity %d %s %s %s", x, y,
                     want.parity, rules_color_name(want.a), rules_color_name(want.b),
                     rules_color_name(want.c), r->pieces[at].parity,
                     rules_color_name(r->pieces[at].a), rules_color_name(r->pieces[at].b),
                     rules_color_name(r->pieces[at].c));
    }
    {
        char *dir = th_tmpdir(), *path = th_path(dir, "photo.png");
        th_run run;
        cJSON *j;
        assert_int_equal(vis_image_write(path, img, 0, &err), 0);
        assert_int_equal(th_tablecam(&run, NULL,
                                     (const char *const[]){"recognize", "--game", "cubed", path,
                                                           NULL}),
                         0);
        if (run.status != 0)
            fail_msg("tablecam recognize: %s", run.err);
        assert_int_equal(th_count_lines(run.out), 1);
        j = cJSON_Parse(run.out);
        assert_non_null(j);
        assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(j, "game")), "cubed");
        assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(j, "pieces")), n);
        assert_non_null(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "pieces"), 0),
                                            "faces"));
        cJSON_Delete(j);
        th_run_free(&run);
        th_rmtree(dir);
        free(path);
        free(dir);
    }
    /* a bare mat reads as no tiles, no hand */
    vis_image_free(img);
    cJSON_Delete(t);
    o.max_frames = 1;
    last_frame(76, &o, &img, &t);
    if (ref_reader_read(rd, img, r, &err) != 0)
        fail_msg("ref_reader_read: %s", err.msg);
    assert_int_equal(r->n, 0);
    assert_false(r->hand);
    ref_reader_free(rd);
    free(r);
    vis_image_free(img);
    cJSON_Delete(t);
}

static void test_model_of_another_game(void **state)
{
    vis_cubed *c = NULL;
    base_err err;
    (void)state;
    assert_int_equal(vis_cubed_new(0, &c, &err), 0);
    assert_int_equal(vis_cubed_use_model(c, TABLECAM_SOURCE_DIR "/models/cube2.onnx", &err),
                     BASE_EPARSE);
    assert_non_null(strstr(err.msg, "cube2.onnx"));
    assert_non_null(strstr(err.msg, "a cubed model has 8"));
    assert_int_equal(vis_cubed_use_model(c, TABLECAM_SOURCE_DIR "/models/none.onnx", &err),
                     BASE_ENOTFOUND);
    vis_cubed_free(c);
    assert_int_equal(vis_cubed_new(5, &c, &err), BASE_ERANGE);
    assert_non_null(strstr(err.msg, "15 to 120 mm"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layouts_found),
        cmocka_unit_test(test_bare_mat),
        cmocka_unit_test(test_layout_tracked),
        cmocka_unit_test(test_reader_reads_a_layout),
        cmocka_unit_test(test_model_of_another_game),
    };
    th_case_filter();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
