/* tests/test_vision_patch.c: patches cut on the pieces' plane
 * (vision/patch.h).  A frame is drawn from a plane through a known
 * homography (tilted, 4 px/mm at the patch: the finer cut averaged down);
 * the patch must show the plane's mark where the piece's own axes put it,
 * turned with the piece. */
#define _XOPEN_SOURCE 700
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "cards.h"
#include "patch.h"

/* plane mm -> frame px: 4 px/mm around (100, 80) mm, with some perspective */
static vis_homography plane_to_img(void)
{
    vis_homography h = {{4, 0.3, -80, 0.1, 3.8, -60, 0.0002, 0.0001, 1}};
    return h;
}

/* A frame of the plane: grey, with a white 8 x 8 mm square whose corner
 * is at the piece's centre (100, 80), on the piece's +x, -y side. */
static vis_image *frame(void)
{
    vis_image *img = NULL;
    vis_homography h = plane_to_img();
    vis_point sq[4] = {{100, 72}, {108, 72}, {108, 80}, {100, 80}};
    assert_int_equal(vis_image_new(640, 480, 3, &img, NULL), 0);
    assert_int_equal(vis_image_fill(img, vis_grey(60), NULL), 0);
    for (int i = 0; i < 4; i++)
        sq[i] = vis_homography_apply(h, sq[i]);
    assert_int_equal(vis_draw_polygon(img, sq, 4, vis_grey(250), VIS_FILLED, 1, 0, NULL), 0);
    return img;
}

/* Mean of channel 0 over the quadrant (qx, qy) of patch p (0: the low
 * half of columns or rows). */
static double quadrant(const vis_image *p, int qx, int qy)
{
    double sum = 0;
    int n = 0, h = p->width / 2;
    for (int y = qy * h + 2; y < qy * h + h - 2; y++)
        for (int x = qx * h + 2; x < qx * h + h - 2; x++, n++)
            sum += p->data[y * p->stride + x * p->channels];
    return sum / n;
}

static void test_mark_where_the_axes_put_it(void **state)
{
    vis_image *img = frame(), *p = NULL;
    vis_patch_at at = {100, 80, 0, 16, 0};
    (void)state;
    assert_int_equal(vis_patch_cut(img, plane_to_img(), &at, 32, &p, NULL), 0);
    assert_int_equal(p->width, 32);
    assert_int_equal(p->height, 32);
    assert_int_equal(p->channels, 3);
    /* the square is on the piece's +x (right columns), -y (top rows) side */
    assert_true(quadrant(p, 1, 0) > 240);
    assert_true(quadrant(p, 0, 0) < 70);
    assert_true(quadrant(p, 0, 1) < 70);
    assert_true(quadrant(p, 1, 1) < 70);
    vis_image_free(p);
    /* the piece turned by 90 degrees: its +x axis is the table's +y, so
     * the mark (table +x, -y) is on its -x, -y side */
    at.rot_deg = 90;
    assert_int_equal(vis_patch_cut(img, plane_to_img(), &at, 32, &p, NULL), 0);
    assert_true(quadrant(p, 0, 0) > 240);
    assert_true(quadrant(p, 1, 0) < 70);
    assert_true(quadrant(p, 1, 1) < 70);
    vis_image_free(p);
    vis_image_free(img);
}

/* The mark's edge comes out at the patch's middle however finely the
 * camera sees the plane: a close camera (4 px/mm here) averaged down, not
 * sampled every few pixels. */
static void test_fine_view_averaged(void **state)
{
    vis_image *img = NULL, *p = NULL;
    vis_homography h = plane_to_img();
    vis_patch_at at = {100, 80, 0, 16, 0};
    (void)state;
    /* stripes one frame pixel wide: sampled, they alias; averaged, grey */
    assert_int_equal(vis_image_new(640, 480, 1, &img, NULL), 0);
    for (int y = 0; y < 480; y++)
        for (int x = 0; x < 640; x++)
            img->data[y * img->stride + x] = (unsigned char)(x % 2 ? 200 : 0);
    assert_int_equal(vis_patch_cut(img, h, &at, 16, &p, NULL), 0);
    assert_int_equal(p->channels, 1);
    for (int y = 1; y < 15; y++)
        for (int x = 1; x < 15; x++) {
            int v = p->data[y * p->stride + x];
            assert_true(v > 70 && v < 130);
        }
    vis_image_free(p);
    vis_image_free(img);
}

static void test_bad_cuts(void **state)
{
    vis_image *img = frame(), *p = NULL;
    vis_patch_at at = {100, 80, 0, 16, 0};
    vis_homography flat = {{1, 0, 0, 0, 1, 0, 0.01, 0, -1}};
    base_err e;
    (void)state;
    assert_int_equal(vis_patch_cut(img, plane_to_img(), &at, 3, &p, &e), BASE_EINVAL);
    assert_non_null(strstr(e.msg, "size 3"));
    at.side_mm = 0;
    assert_int_equal(vis_patch_cut(img, plane_to_img(), &at, 32, &p, &e), BASE_EINVAL);
    assert_non_null(strstr(e.msg, "side"));
    at.side_mm = 16;
    assert_int_equal(vis_patch_cut(NULL, plane_to_img(), &at, 32, &p, &e), BASE_EINVAL);
    /* the plane seen edge-on at the piece: w = 0.01 * 100 - 1 = 0 */
    assert_int_equal(vis_patch_cut(img, flat, &at, 32, &p, &e), BASE_ERANGE);
    assert_non_null(strstr(e.msg, "(100.0, 80.0) mm"));
    assert_null(p);
    vis_image_free(img);
}

/* A rectangle side_mm x side_y_mm comes out w x h, the mark (the
 * square's corner at the centre, on the +x, -y side) in its quadrant: the
 * top-right, however tall the cut. */
static void test_rectangle(void **state)
{
    vis_image *img = frame(), *p = NULL;
    vis_patch_at at = {100, 80, 0, 16, 32};
    (void)state;
    assert_int_equal(vis_patch_cut_wh(img, plane_to_img(), &at, 16, 32, &p, NULL), 0);
    assert_int_equal(p->width, 16);
    assert_int_equal(p->height, 32);
    /* rows 8..15 of 32 span y 72..80 (1 mm a pixel), columns 8..15 x 100..108 */
    double in = 0, out = 0;
    for (int y = 10; y < 15; y++)
        for (int x = 10; x < 15; x++) {
            in += p->data[y * p->stride + x * 3];
            out += p->data[(y + 12) * p->stride + (x - 8) * 3];
        }
    assert_true(in / 25 > 200);
    assert_true(out / 25 < 100);
    vis_image_free(p);
    /* a bad height is refused, naming the size */
    base_err e;
    assert_int_equal(vis_patch_cut_wh(img, plane_to_img(), &at, 16, 2, &p, &e), BASE_EINVAL);
    assert_non_null(strstr(e.msg, "16x2"));
    at.side_y_mm = -1;
    assert_int_equal(vis_patch_cut_wh(img, plane_to_img(), &at, 16, 32, &p, &e), BASE_EINVAL);
    vis_image_free(img);
}

/* A card's patch: its two top corners side by side, upright whichever way
 * the card is turned.  A 63 x 88 card at (200, 150) turned 30 degrees, on
 * a 2 px/mm view, with a dark mark in its top-left corner only (its index):
 * the patch turned 30 shows the mark in the left half, the one turned 210
 * (the card the other way up) in neither; a mark in the bottom-right too
 * shows in the left half of both. */
static void test_card_corners(void **state)
{
    const double ppm = 2, ang = 30 * 3.14159265358979323846 / 180;
    vis_homography h = {{ppm, 0, -0.5, 0, ppm, -0.5, 0, 0, 1}};
    (void)state;
    for (int both = 0; both < 2; both++) {
        vis_image *img = NULL, *p[2] = {NULL, NULL};
        assert_int_equal(vis_image_new(800, 600, 3, &img, NULL), 0);
        assert_int_equal(vis_image_fill(img, vis_grey(40), NULL), 0);
        /* the card, and the mark 3..11 mm in from its top-left corner's
         * sides, 4..24 mm down (card frame: x across, y down the card) */
        double card[4][2] = {{-31.5, -44}, {31.5, -44}, {31.5, 44}, {-31.5, 44}};
        double mark[4][2] = {{-28.5, -40}, {-20.5, -40}, {-20.5, -20}, {-28.5, -20}};
        for (int k = 0; k < 2 + both; k++) {
            vis_point q[4];
            for (int i = 0; i < 4; i++) {
                double u = k == 0 ? card[i][0] : mark[i][0], v = k == 0 ? card[i][1] : mark[i][1];
                if (k == 2)
                    u = -u, v = -v; /* the turned index, bottom-right */
                q[i] = (vis_point){(200 + u * cos(ang) - v * sin(ang)) * ppm,
                                   (150 + u * sin(ang) + v * cos(ang)) * ppm};
            }
            assert_int_equal(vis_draw_polygon(img, q, 4, vis_grey(k == 0 ? 240 : 20), VIS_FILLED,
                                              1, 0, NULL),
                             0);
        }
        for (int t = 0; t < 2; t++) {
            assert_int_equal(vis_cards_corners(img, h, 200, 150, 30 + 180 * t, 63, 88, &p[t],
                                               NULL),
                             0);
            assert_int_equal(p[t]->width, VIS_CARDS_PATCH);
            assert_int_equal(p[t]->height, VIS_CARDS_PATCH);
            /* the darkest pixel of each half, below the 1.5 mm outside */
            int dark[2] = {255, 255};
            for (int y = 8; y < VIS_CARDS_PATCH; y++)
                for (int x = 4; x < VIS_CARDS_PATCH - 4; x++) {
                    int v = p[t]->data[y * p[t]->stride + x * 3], hx = x < VIS_CARDS_PATCH / 2 ? 0 : 1;
                    if ((hx == 0 && x > 6) || (hx == 1 && x < VIS_CARDS_PATCH - 6))
                        dark[hx] = v < dark[hx] ? v : dark[hx];
                }
            assert_true(dark[1] > 150); /* the top-right corner: paper */
            if (t == 0 || both)
                assert_true(dark[0] < 80);
            else
                assert_true(dark[0] > 150);
            vis_image_free(p[t]);
        }
        vis_image_free(img);
    }
    base_err e;
    vis_image *img = NULL, *p = NULL;
    assert_int_equal(vis_image_new(64, 64, 1, &img, NULL), 0);
    assert_int_equal(vis_cards_corners(img, h, 20, 20, 0, 63, 88, &p, &e), BASE_EINVAL);
    assert_non_null(strstr(e.msg, "channels"));
    vis_image_free(img);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mark_where_the_axes_put_it),
        cmocka_unit_test(test_fine_view_averaged),
        cmocka_unit_test(test_bad_cuts),
        cmocka_unit_test(test_rectangle),
        cmocka_unit_test(test_card_corners),
    };
    th_case_filter();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
