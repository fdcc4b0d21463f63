/* tests/test_calib.c: the table mat: parsing, fitting the homography from
 * markers, the planes above the table, and rectification. */
#define _XOPEN_SOURCE 700
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "calib.h"
#include "harness.h"
#include <stdlib.h>
#include <stdio.h>

/* A synthetic pinhole camera: K, rotation R (rows), translation t; table
 * point (x, y, z-up) -> pixel.  The table frame's z axis points into the
 * table (x right, y toward marker 3), so a point h above it is z = -h. */
typedef struct cam {
    double f, cx, cy, R[9], t[3];
} cam;

static cam make_cam(double tilt_deg, double yaw_deg, double height_mm, int w, int h, double f)
{
    cam c;
    double a = tilt_deg * M_PI / 180, b = yaw_deg * M_PI / 180;
    /* Looking straight down: camera x = table x, camera y = table y,
     * camera z = into the table.  Then yaw about the view axis and tilt
     * about the camera x axis. */
    double Rz[9] = {cos(b), -sin(b), 0, sin(b), cos(b), 0, 0, 0, 1};
    double Rx[9] = {1, 0, 0, 0, cos(a), -sin(a), 0, sin(a), cos(a)};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double s = 0;
            for (int k = 0; k < 3; k++)
                s += Rx[i * 3 + k] * Rz[k * 3 + j];
            c.R[i * 3 + j] = s;
        }
    c.f = f;
    c.cx = 0.5 * (w - 1);
    c.cy = 0.5 * (h - 1);
    /* Put the mat's centre (250, 250, 0) on the optical axis at distance
     * height / cos(tilt). */
    {
        double centre[3] = {250, 250, 0}, d = height_mm / cos(a);
        for (int i = 0; i < 3; i++) {
            double s = 0;
            for (int k = 0; k < 3; k++)
                s += c.R[i * 3 + k] * centre[k];
            c.t[i] = -s + (i == 2 ? d : 0);
        }
    }
    return c;
}

static vis_point project(const cam *c, double x, double y, double up)
{
    double X[3] = {x, y, -up}, p[3];
    for (int i = 0; i < 3; i++)
        p[i] = c->R[i * 3] * X[0] + c->R[i * 3 + 1] * X[1] + c->R[i * 3 + 2] * X[2] + c->t[i];
    return (vis_point){c->f * p[0] / p[2] + c->cx, c->f * p[1] / p[2] + c->cy};
}

static int markers_for(const cam *c, cal_mat m, vis_marker *mk, unsigned which)
{
    int n = 0;
    for (int id = 0; id < 4; id++) {
        vis_point t[4];
        if (!(which & (1u << id)))
            continue;
        cal_mat_marker_corners(m, id, t);
        mk[n].id = id;
        for (int k = 0; k < 4; k++)
            mk[n].corners[k] = project(c, t[k].x, t[k].y, 0);
        n++;
    }
    return n;
}

static void test_parse(void **state)
{
    cal_mat m;
    base_err e;
    (void)state;
    assert_int_equal(cal_mat_parse("500x400:35", &m, &e), 0);
    assert_true(m.w == 500 && m.h == 400 && m.s == 35);
    assert_int_equal(cal_mat_parse("500x500", &m, &e), BASE_EPARSE);
    assert_non_null(strstr(e.msg, "WxH:S"));
    assert_int_equal(cal_mat_parse("500x500:40mm", &m, &e), BASE_EPARSE);
    assert_int_equal(cal_mat_parse("-5x500:40", &m, &e), BASE_ERANGE);
    assert_int_equal(cal_mat_parse("30x500:40", &m, &e), BASE_ERANGE);
    m = cal_mat_default();
    assert_true(m.w == 500 && m.h == 500 && m.s == 40);
}

static void test_marker_corners(void **state)
{
    vis_point p[4];
    (void)state;
    cal_mat_marker_corners(cal_mat_default(), 2, p);
    assert_true(p[0].x == 480 && p[0].y == 480);
    assert_true(p[2].x == 520 && p[2].y == 520);
    cal_mat_marker_corners(cal_mat_default(), 3, p);
    assert_true(p[1].x == 20 && p[1].y == 480);
}

static void check_fit(double tilt, double yaw, unsigned which)
{
    cal_mat m = cal_mat_default();
    cam c = make_cam(tilt, yaw, 700, 1280, 960, 1000);
    vis_marker mk[4];
    cal_mat_fit fit;
    vis_homography top;
    base_err e;
    int n = markers_for(&c, m, mk, which);

    assert_int_equal(cal_mat_fit_markers(mk, n, m, 1280, 960, NULL, &fit, &e), 0);
    assert_true(fit.rms_mm < 1e-3);
    assert_int_equal(fit.found, which);
    /* Table points map both ways. */
    for (double x = -20; x <= 520; x += 90)
        for (double y = -20; y <= 520; y += 90) {
            vis_point p = project(&c, x, y, 0), q = vis_homography_apply(fit.img_to_table, p);
            assert_true(fabs(q.x - x) < 1e-3 && fabs(q.y - y) < 1e-3);
        }
    /* The plane of 20 mm cube tops: with the view tilted the focal length
     * is recovered from the homography, so the map is exact. */
    assert_int_equal(cal_mat_plane(&fit, NULL, 20, &top, &e), 0);
    for (double x = 0; x <= 500; x += 100)
        for (double y = 0; y <= 500; y += 100) {
            vis_point want = project(&c, x, y, 20), got = vis_homography_apply(top, (vis_point){x, y});
            if (tilt >= 10)
                assert_true(hypot(want.x - got.x, want.y - got.y) < 0.05);
            /* Straight down the focal length is a guess, but the error
             * stays small next to the 20 mm pitch (about 30 px here). */
            else
                assert_true(hypot(want.x - got.x, want.y - got.y) < 3.0);
        }
}

static void test_fit_tilted_views(void **state)
{
    (void)state;
    check_fit(30, 0, 0xF);
    check_fit(40, 125, 0xF);
    check_fit(20, -60, 0xF);
    check_fit(25, 200, 0xD); /* marker 1 covered: three are enough */
    check_fit(0, 45, 0xF);
}

static void test_plane_with_lens(void **state)
{
    cal_mat m = cal_mat_default();
    cam c = make_cam(0, 10, 600, 1280, 960, 1100);
    vis_camera lens = {1100, 1100, c.cx, c.cy, {0}};
    vis_marker mk[4];
    cal_mat_fit fit;
    vis_homography top;
    (void)state;
    int n = markers_for(&c, m, mk, 0xF);
    assert_int_equal(cal_mat_fit_markers(mk, n, m, 1280, 960, &lens, &fit, NULL), 0);
    assert_int_equal(cal_mat_plane(&fit, &lens, 20, &top, NULL), 0);
    for (double x = 0; x <= 500; x += 125) {
        vis_point want = project(&c, x, x, 20), got = vis_homography_apply(top, (vis_point){x, x});
        assert_true(hypot(want.x - got.x, want.y - got.y) < 0.05);
    }
}

/* The camera's centre from the fit: R^T (0 - t) of the synthetic camera,
 * with the table's z up. */
static void test_camera_position(void **state)
{
    cal_mat m = cal_mat_default();
    (void)state;
    for (int k = 0; k < 3; k++) {
        double tilt = (double[]){0, 20, 35}[k], yaw = (double[]){10, 70, -120}[k];
        cam c = make_cam(tilt, yaw, 700, 1280, 960, 1000);
        vis_camera lens = {1000, 1000, c.cx, c.cy, {0}};
        vis_marker mk[4];
        cal_mat_fit fit;
        double got[3], want[3];
        int n = markers_for(&c, m, mk, 0xF);
        assert_int_equal(cal_mat_fit_markers(mk, n, m, 1280, 960, &lens, &fit, NULL), 0);
        assert_int_equal(cal_mat_camera(&fit, &lens, got, NULL), 0);
        for (int i = 0; i < 3; i++)
            want[i] = -(c.R[0 * 3 + i] * c.t[0] + c.R[1 * 3 + i] * c.t[1] + c.R[2 * 3 + i] * c.t[2]);
        want[2] = -want[2]; /* the synthetic frame's z points into the table */
        for (int i = 0; i < 3; i++)
            assert_true(fabs(got[i] - want[i]) < 1.0);
        assert_true(fabs(got[2] - 700) < 1.0);
        /* and its scale: about f / distance pixels a millimetre */
        double ppm = cal_mat_px_per_mm(&fit, 250, 250);
        assert_true(ppm > 0.6 * 1000 / 700 * cos(tilt * M_PI / 180) && ppm < 1.5 * 1000 / 700);
    }
}

/* A part of the table rectified alone equals that part of the whole view. */
static void test_rectify_roi(void **state)
{
    cal_mat m = cal_mat_default();
    cam c = make_cam(25, 30, 700, 640, 480, 520);
    vis_marker mk[4];
    cal_mat_fit fit;
    vis_image *img = NULL, *all = NULL, *part = NULL;
    (void)state;
    int n = markers_for(&c, m, mk, 0xF);
    assert_int_equal(cal_mat_fit_markers(mk, n, m, 640, 480, NULL, &fit, NULL), 0);
    assert_int_equal(vis_image_new(640, 480, 3, &img, NULL), 0);
    for (int y = 0; y < 480; y++)
        for (int x = 0; x < 640; x++)
            for (int k = 0; k < 3; k++)
                img->data[(size_t)y * img->stride + 3 * x + k] = (unsigned char)((x * 3 + y * 5 + k * 40) & 255);
    assert_int_equal(cal_rectify(img, &fit, m, NULL, 20, 1.0, 10, &all, NULL), 0);
    assert_int_equal(cal_rectify_roi(img, &fit, NULL, 20, 1.0, 190, 90, 60, 40, &part, NULL), 0);
    assert_int_equal(part->width, 60);
    assert_int_equal(part->height, 40);
    for (int y = 0; y < 40; y++)
        for (int x = 0; x < 60; x++) {
            int a = all->data[(size_t)(y + 100) * all->stride + 3 * (x + 200)];
            int b = part->data[(size_t)y * part->stride + 3 * x];
            assert_true(abs(a - b) <= 1);
        }
    assert_int_equal(cal_rectify_roi(img, &fit, NULL, 20, 1.0, 0, 0, 0, 40, &part, NULL),
                     BASE_EINVAL);
    vis_image_free(img);
    vis_image_free(all);
    vis_image_free(part);
}

/* Colour and lens profiles survive JSON, and bad ones say which key. */
static void test_profiles_json(void **state)
{
    vis_qwirkle_profile p = vis_qwirkle_default_profile(), q;
    vis_camera cam = {900.5, 901.25, 640, 480, {-0.1, 0.02, 0.001, -0.002, 0, 0, 0, 0}}, c2;
    char *json = NULL, *dir, *path, *back = NULL, kind[16];
    int w = 0, h = 0;
    base_err e;
    (void)state;
    p.hue[2] = 31.5f;
    assert_int_equal(cal_colors_to_json(&p, &json, &e), 0);
    assert_int_equal(cal_profile_kind(json, kind, sizeof kind, &e), 0);
    assert_string_equal(kind, CAL_KIND_COLORS);
    assert_int_equal(cal_colors_from_json(json, &q, &e), 0);
    for (int k = 0; k < 6; k++)
        assert_true(fabs(q.hue[k] - p.hue[k]) < 0.01 && fabs(q.sat[k] - p.sat[k]) < 0.01);
    assert_int_equal(cal_camera_from_json(json, &c2, NULL, NULL, &e), BASE_EPARSE);
    assert_non_null(strstr(e.msg, "kind"));
    dir = th_tmpdir();
    path = th_path(dir, "colors.json");
    assert_int_equal(cal_profile_write(path, json, &e), 0);
    assert_int_equal(cal_profile_read(path, &back, &e), 0);
    assert_int_equal(cal_colors_from_json(back, &q, &e), 0);
    assert_true(fabs(q.hue[2] - 31.5) < 0.01);
    free(json);
    free(back);
    assert_int_equal(cal_colors_from_json("{\"kind\":\"colors\",\"hue\":{\"red\":400}}", &q, &e),
                     BASE_EPARSE);
    assert_non_null(strstr(e.msg, "red"));
    assert_int_equal(cal_camera_to_json(&cam, 1280, 960, 0.3, &json, &e), 0);
    assert_int_equal(cal_camera_from_json(json, &c2, &w, &h, &e), 0);
    assert_int_equal(w, 1280);
    assert_int_equal(h, 960);
    assert_true(fabs(c2.fy - 901.25) < 1e-9 && fabs(c2.dist[0] + 0.1) < 1e-12);
    free(json);
    assert_int_equal(cal_profile_read("/nonexistent/x.json", &back, &e), BASE_ENOTFOUND);
    th_rmtree(dir);
    free(dir);
    free(path);
}

static void test_too_few_markers(void **state)
{
    cal_mat m = cal_mat_default();
    cam c = make_cam(20, 0, 700, 1280, 960, 1000);
    vis_marker mk[4];
    cal_mat_fit fit;
    base_err e;
    (void)state;
    int n = markers_for(&c, m, mk, 0x5);
    assert_int_equal(cal_mat_fit_markers(mk, n, m, 1280, 960, NULL, &fit, &e), BASE_ENOTFOUND);
    assert_non_null(strstr(e.msg, "seen: 0, 2"));
    n = markers_for(&c, m, mk, 0x8);
    assert_int_equal(cal_mat_fit_markers(mk, n, m, 1280, 960, NULL, &fit, &e), BASE_ENOTFOUND);
    assert_non_null(strstr(e.msg, "seen: only marker 3"));
    /* Markers that are not the mat's are ignored. */
    mk[0].id = 7;
    mk[1].id = 9;
    assert_int_equal(cal_mat_fit_markers(mk, 2, m, 1280, 960, NULL, &fit, &e), BASE_ENOTFOUND);
    assert_non_null(strstr(e.msg, "seen: none"));
}

/* A frame of the mat seen by camera c: the markers of which (bit per id)
 * pasted onto a green table, each on white paper with a one-cell margin. */
static vis_image *mat_frame(const cam *c, cal_mat m, unsigned which)
{
    vis_image *frame = NULL;
    base_err e;
    assert_int_equal(vis_image_new(1280, 960, 3, &frame, &e), 0);
    assert_int_equal(vis_image_fill(frame, vis_rgb(40, 90, 50), &e), 0);
    for (int id = 0; id < 4; id++) {
        vis_image *bits = NULL, *paper = NULL;
        vis_point t[4], src[4], dst[4];
        vis_homography H;
        if (!(which & (1u << id)))
            continue;
        /* The marker (6 cells of 20 px) on white paper with a 1-cell margin. */
        assert_int_equal(vis_aruco_marker_bits(id, 120, &bits, &e), 0);
        assert_int_equal(vis_image_new(160, 160, 3, &paper, &e), 0);
        assert_int_equal(vis_image_fill(paper, vis_grey(255), &e), 0);
        for (int y = 0; y < 120; y++)
            for (int x = 0; x < 120; x++)
                for (int k = 0; k < 3; k++)
                    paper->data[(y + 20) * paper->stride + (x + 20) * 3 + k] =
                        bits->data[y * bits->stride + x];
        cal_mat_marker_corners(m, id, t);
        /* paper pixel (20,20)..(140,140) is the black square; map the
         * paper's corners (margin included) onto the table. */
        for (int k = 0; k < 4; k++) {
            double sx = (k == 1 || k == 2) ? 1 : 0, sy = (k >= 2) ? 1 : 0;
            src[k] = (vis_point){-0.5 + 160 * sx, -0.5 + 160 * sy};
            double tx = t[0].x - m.s / 6 + sx * (m.s * 8 / 6), ty = t[0].y - m.s / 6 + sy * (m.s * 8 / 6);
            dst[k] = project(c, tx, ty, 0);
        }
        assert_int_equal(vis_find_homography(src, dst, 4, VIS_HOMOGRAPHY_LSQ, 0, NULL, &H, &e), 0);
        assert_int_equal(vis_warp_perspective_onto(paper, H, frame, VIS_INTER_LINEAR, &e), 0);
        vis_image_free(bits);
        vis_image_free(paper);
    }
    return frame;
}

/* A real image: the four markers pasted into a tilted view, found by the
 * detector, then the view rectified back to top-down. */
static void test_locate_and_rectify_image(void **state)
{
    cal_mat m = cal_mat_default();
    cam c = make_cam(25, 15, 750, 1280, 960, 1000);
    vis_image *frame = mat_frame(&c, m, 0xf), *top = NULL;
    vis_aruco *det = NULL;
    cal_mat_fit fit;
    base_err e;
    (void)state;

    assert_int_equal(vis_aruco_new(VIS_ARUCO_4X4_50, &det, &e), 0);
    assert_int_equal(cal_mat_locate(det, frame, m, NULL, &fit, &e), 0);
    assert_int_equal(fit.nfound, 4);
    assert_true(fit.rms_mm < 1.0);
    /* Rectify at 1 px/mm with a 40 mm margin: marker 2's centre lands at
     * pixel (540, 540) give or take a pixel. */
    assert_int_equal(cal_rectify(frame, &fit, m, NULL, 0, 1.0, 40, &top, &e), 0);
    assert_int_equal(top->width, 580);
    assert_int_equal(top->height, 580);
    {
        vis_marker mk[8];
        int n = 0;
        assert_int_equal(vis_aruco_detect(det, top, mk, 8, &n, &e), 0);
        assert_int_equal(n, 4);
        for (int i = 0; i < 4; i++) {
            vis_point t[4];
            cal_mat_marker_corners(m, mk[i].id, t);
            for (int k = 0; k < 4; k++)
                assert_true(hypot(mk[i].corners[k].x + 0.5 - (t[k].x + 40),
                                  mk[i].corners[k].y + 0.5 - (t[k].y + 40)) < 1.5);
        }
    }
    vis_image_free(top);
    vis_image_free(frame);
    vis_aruco_free(det);
}

/* The frame with its far half (the lower rows) out of focus, as a camera
 * focused on the near edge of the table sees it. */
static vis_image *far_blurred(vis_image *sharp, double sigma)
{
    vis_image *out = NULL;
    base_err e;
    assert_int_equal(vis_gaussian_blur(sharp, 0, sigma, &out, &e), 0);
    for (int y = 0; y < sharp->height / 2; y++)
        memcpy(out->data + (size_t)y * out->stride, sharp->data + (size_t)y * sharp->stride,
               (size_t)sharp->width * 3);
    vis_image_free(sharp);
    return out;
}

/* fit puts the corners of each marker it found within tol pixels of
 * where camera c sees them. */
static void expect_fit_true(const cam *c, cal_mat m, const cal_mat_fit *fit, double tol)
{
    for (int id = 0; id < 4; id++) {
        vis_point t[4];
        if (!(fit->found & (1u << id)))
            continue;
        cal_mat_marker_corners(m, id, t);
        for (int k = 0; k < 4; k++) {
            vis_point want = project(c, t[k].x, t[k].y, 0);
            vis_point got = vis_homography_apply(fit->table_to_img, t[k]);
            assert_true(hypot(got.x - want.x, got.y - want.y) < tol);
        }
    }
}

/* A camera steeply tilted and out of focus: the far markers are too
 * small and blurred to decode.  The near two say where the far ones
 * are, and those are found by their pattern, at the right corners.  A
 * marker that is not there (covered) is not made up. */
static void test_locate_blurred_far_markers(void **state)
{
    cal_mat m = cal_mat_default();
    cam c = make_cam(50, 0, 700, 1280, 960, 1000);
    vis_image *frame = far_blurred(mat_frame(&c, m, 0xf), 1.6);
    vis_aruco *det = NULL;
    vis_marker mk[8];
    cal_mat_fit fit;
    base_err e;
    int n = 0;
    (void)state;

    assert_int_equal(vis_aruco_new(VIS_ARUCO_4X4_50, &det, &e), 0);
    /* The premise: the detector alone sees only the near markers. */
    assert_int_equal(vis_aruco_detect(det, frame, mk, 8, &n, &e), 0);
    assert_true(n >= 2 && n < 4);
    assert_int_equal(cal_mat_locate(det, frame, m, NULL, &fit, &e), 0);
    assert_int_equal(fit.nfound, 4);
    expect_fit_true(&c, m, &fit, 0.8);
    vis_image_free(frame);

    /* Marker 2 covered: the other far one is still found, 2 is not. */
    frame = far_blurred(mat_frame(&c, m, 0xb), 1.6);
    assert_int_equal(cal_mat_locate(det, frame, m, NULL, &fit, &e), 0);
    assert_int_equal(fit.found, 0xb);
    vis_image_free(frame);

    /* Both far ones covered: two markers do not make a mat. */
    frame = far_blurred(mat_frame(&c, m, 0x3), 1.6);
    assert_int_equal(cal_mat_locate(det, frame, m, NULL, &fit, &e), BASE_ENOTFOUND);
    vis_image_free(frame);
    vis_aruco_free(det);
}

/* A far camera out of focus but for one corner of the mat: the detector
 * decodes one marker alone (sim seed 980009's first frames, refused).
 * Its four corners say roughly where the other three are, and those are
 * found there; a mat with the one marker alone is not made up. */
static void test_locate_from_one_marker(void **state)
{
    cal_mat m = cal_mat_default();
    cam c = make_cam(30, 20, 1300, 1280, 960, 1000);
    vis_image *sharp = mat_frame(&c, m, 0xf), *frame = NULL;
    vis_aruco *det = NULL;
    vis_marker mk[8];
    cal_mat_fit fit;
    base_err e;
    int n = 0;
    vis_point t[4];
    (void)state;

    /* all blurred but a window round marker 0 (markers of about 27 px:
     * 4.5 px cells under a blur of 2.4 px; the detector decodes them up
     * to about 2.1) */
    assert_int_equal(vis_gaussian_blur(sharp, 0, 2.4, &frame, &e), 0);
    cal_mat_marker_corners(m, 0, t);
    vis_point a = project(&c, t[0].x - 20, t[0].y - 20, 0),
              b = project(&c, t[2].x + 20, t[2].y + 20, 0);
    for (int y = (int)fmin(a.y, b.y); y <= (int)fmax(a.y, b.y); y++)
        memcpy(frame->data + (size_t)y * frame->stride + 3 * (size_t)fmin(a.x, b.x),
               sharp->data + (size_t)y * sharp->stride + 3 * (size_t)fmin(a.x, b.x),
               3 * (size_t)fabs(b.x - a.x));
    vis_image_free(sharp);
    assert_int_equal(vis_aruco_new(VIS_ARUCO_4X4_50, &det, &e), 0);
    /* the premise: the detector alone sees marker 0 alone */
    assert_int_equal(vis_aruco_detect(det, frame, mk, 8, &n, &e), 0);
    assert_int_equal(n, 1);
    assert_int_equal(mk[0].id, 0);
    assert_int_equal(cal_mat_locate(det, frame, m, NULL, &fit, &e), 0);
    /* (marker 2, the farthest, may stay too blurred to tell) */
    assert_true(fit.nfound >= 3);
    assert_true(fit.found & 0x1);
    expect_fit_true(&c, m, &fit, 1.0);
    vis_image_free(frame);

    /* the one marker and no other: no mat */
    frame = mat_frame(&c, m, 0x1);
    assert_int_equal(cal_mat_locate(det, frame, m, NULL, &fit, &e), BASE_ENOTFOUND);
    assert_non_null(strstr(e.msg, "seen: only marker 0"));
    vis_image_free(frame);
    vis_aruco_free(det);
}

/* `tablecam mat`: the PNG holds the four markers, found by the detector
 * at true size for its dpi; the PDF is well formed with one page each. */
static void test_mat_command(void **state)
{
    char *dir = th_tmpdir(), *png = th_path(dir, "mat.png"), *pdf = th_path(dir, "mat.pdf");
    th_run r;
    vis_image *img = NULL;
    vis_aruco *det = NULL;
    vis_marker mk[8];
    int n = 0;
    (void)state;

    assert_int_equal(th_tablecam(&r, NULL, (const char *[]){"mat", "--out", png, "--mat", "300x200:30",
                                                            "--dpi", "100", NULL}), 0);
    assert_int_equal(r.status, 0);
    th_run_free(&r);
    assert_int_equal(vis_image_read(png, 3, &img, NULL), 0);
    assert_int_equal(vis_aruco_new(VIS_ARUCO_4X4_50, &det, NULL), 0);
    assert_int_equal(vis_aruco_detect(det, img, mk, 8, &n, NULL), 0);
    assert_int_equal(n, 4);
    {
        const double ppm = 100 / 25.4;
        vis_point c[4];
        for (int i = 0; i < 4; i++) {
            assert_int_equal(mk[i].id, i);
            c[i] = (vis_point){0, 0};
            for (int k = 0; k < 4; k++) {
                c[i].x += mk[i].corners[k].x / 4;
                c[i].y += mk[i].corners[k].y / 4;
            }
        }
        assert_true(fabs((c[1].x - c[0].x) / ppm - 300) < 1.0);
        assert_true(fabs((c[3].y - c[0].y) / ppm - 200) < 1.0);
        assert_true(fabs(hypot(mk[0].corners[1].x - mk[0].corners[0].x,
                               mk[0].corners[1].y - mk[0].corners[0].y) / ppm - 30) < 1.0);
    }
    vis_image_free(img);
    vis_aruco_free(det);

    assert_int_equal(th_tablecam(&r, NULL, (const char *[]){"mat", "--out", pdf, NULL}), 0);
    assert_int_equal(r.status, 0);
    th_run_free(&r);
    {
        size_t len;
        char *doc = th_read_file(pdf, &len), *xref, *p;
        long start;
        assert_non_null(doc);
        assert_memory_equal(doc, "%PDF-1.4", 8);
        assert_non_null(strstr(doc, "/Count 4"));
        /* Every xref entry points at its object. */
        p = strstr(doc, "startxref\n");
        assert_non_null(p);
        start = atol(p + 10);
        xref = doc + start;
        assert_memory_equal(xref, "xref", 4);
        p = strstr(xref, "65535 f \n") + 9;
        for (int obj = 1; obj <= 11; obj++, p += 20) {
            char want[16];
            snprintf(want, sizeof want, "%d 0 obj", obj);
            assert_memory_equal(doc + atol(p), want, strlen(want));
        }
        free(doc);
    }

    /* Bad arguments: exit 2 with a message naming the problem. */
    assert_int_equal(th_tablecam(&r, NULL, (const char *[]){"mat", "--out", "x.svg", NULL}), 0);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, ".pdf or .png"));
    th_run_free(&r);
    assert_int_equal(th_tablecam(&r, NULL, (const char *[]){"mat", "--out", pdf, "--mat", "50x50", NULL}), 0);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "WxH:S"));
    th_run_free(&r);
    th_rmtree(dir);
    free(png);
    free(pdf);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_marker_corners),
        cmocka_unit_test(test_fit_tilted_views),
        cmocka_unit_test(test_plane_with_lens),
        cmocka_unit_test(test_too_few_markers),
        cmocka_unit_test(test_locate_and_rectify_image),
        cmocka_unit_test(test_locate_blurred_far_markers),
        cmocka_unit_test(test_locate_from_one_marker),
        cmocka_unit_test(test_mat_command),
        cmocka_unit_test(test_camera_position),
        cmocka_unit_test(test_rectify_roi),
        cmocka_unit_test(test_profiles_json),
    };
    th_case_filter();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
