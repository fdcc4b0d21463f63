/* tests/test_vision_cubed.c: finding CUBED's tiles (vision/cubed.h) on
 * simulated frames with fixed seeds, a regression check of the path:
 *
 *   the lattice's turn (modulo 60 degrees) and every tile's cell found
 *     where the truth lays it, over designs, cameras and layouts turned
 *     any way, among a bounded number of candidate cells;
 *   no layout on a bare mat. */
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
        sim_options_default(&o);
        o.width = 1280;
        o.height = 960;
        o.fps = 1;
        o.design = cases[i].design;
        o.max_moves = cases[i].moves;
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layouts_found),
        cmocka_unit_test(test_bare_mat),
    };
    th_case_filter();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
