/* tests/test_vision_cv.c: the OpenCV shim (vision/cv.h): images, files,
 * colour, geometry, lens, ArUco and ChArUco, drawing, analysis, video, and
 * the errors each gives for bad input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cv.h"
#include "harness.h"

#define PI 3.14159265358979323846

/* ---- helpers ---- */

static unsigned char *px(const vis_image *img, int x, int y)
{
    return img->data + (size_t)y * img->stride + (size_t)x * img->channels;
}

static vis_image *new_image(int w, int h, int ch, unsigned char fill)
{
    vis_image *img = NULL;
    base_err e;
    assert_int_equal(vis_image_new(w, h, ch, &img, &e), 0);
    assert_int_equal(vis_image_fill(img, vis_grey(fill), &e), 0);
    return img;
}

/* Smooth colour gradients under a grey checker: compresses like a photo
 * (JPEG's chroma subsampling would smear sharp colour edges). */
static vis_image *pattern_image(int w, int h)
{
    vis_image *img = new_image(w, h, 3, 0);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            unsigned char *p = px(img, x, y);
            int c = ((x / 16 + y / 16) % 2) ? 60 : 0;
            p[0] = (unsigned char)(x * 180 / (w - 1) + c);
            p[1] = (unsigned char)(y * 180 / (h - 1) + c);
            p[2] = (unsigned char)((x + y) * 180 / (w + h - 2) + c);
        }
    return img;
}

static int images_equal(const vis_image *a, const vis_image *b)
{
    if (a->width != b->width || a->height != b->height ||
        a->channels != b->channels)
        return 0;
    for (int y = 0; y < a->height; y++)
        if (memcmp(px(a, 0, y), px(b, 0, y),
                   (size_t)a->width * a->channels) != 0)
            return 0;
    return 1;
}

static double mean_abs_diff(const vis_image *a, const vis_image *b)
{
    double s = 0;
    assert_int_equal(a->width, b->width);
    assert_int_equal(a->height, b->height);
    assert_int_equal(a->channels, b->channels);
    for (int y = 0; y < a->height; y++)
        for (int x = 0; x < a->width * a->channels; x++)
            s += abs((int)px(a, 0, y)[x] - (int)px(b, 0, y)[x]);
    return s / ((double)a->width * a->height * a->channels);
}

static int count_value(const vis_image *img, unsigned char v)
{
    int n = 0;
    for (int y = 0; y < img->height; y++)
        for (int x = 0; x < img->width; x++)
            if (px(img, x, y)[0] == v)
                n++;
    return n;
}

/* Copies the 1-channel src into the 1-channel dst at (x0, y0). */
static void paste(vis_image *dst, const vis_image *src, int x0, int y0)
{
    for (int y = 0; y < src->height; y++)
        memcpy(px(dst, x0, y0 + y), px(src, 0, y), (size_t)src->width);
}

static double dist2d(vis_point a, vis_point b)
{
    return hypot(a.x - b.x, a.y - b.y);
}

/* ---- images ---- */

static void test_image_new_clone_crop(void **state)
{
    vis_image *img = NULL, *c = NULL, *r = NULL;
    base_err e;
    (void)state;
    assert_int_equal(vis_image_new(37, 11, 3, &img, &e), 0);
    assert_int_equal(img->width, 37);
    assert_int_equal(img->height, 11);
    assert_int_equal(img->channels, 3);
    assert_true(img->stride >= 37 * 3);
    assert_int_equal(img->stride % 16, 0);
    for (int y = 0; y < 11; y++)
        for (int x = 0; x < 37 * 3; x++)
            assert_int_equal(px(img, 0, y)[x], 0);
    for (int y = 0; y < 11; y++)
        for (int x = 0; x < 37; x++) {
            px(img, x, y)[0] = (unsigned char)x;
            px(img, x, y)[1] = (unsigned char)y;
            px(img, x, y)[2] = (unsigned char)(x + y);
        }
    assert_int_equal(vis_image_clone(img, &c, &e), 0);
    assert_true(images_equal(img, c));
    assert_ptr_not_equal(img->data, c->data);
    assert_int_equal(vis_image_crop(img, 5, 3, 10, 4, &r, &e), 0);
    assert_int_equal(r->width, 10);
    assert_int_equal(r->height, 4);
    assert_int_equal(px(r, 0, 0)[0], 5);
    assert_int_equal(px(r, 0, 0)[1], 3);
    assert_int_equal(px(r, 9, 3)[2], 14 + 6);
    vis_image_free(r);
    r = NULL;
    /* Out of range and degenerate rectangles. */
    assert_int_equal(vis_image_crop(img, 30, 0, 10, 4, &r, &e), BASE_ERANGE);
    assert_non_null(strstr(e.msg, "30,0 10x4"));
    assert_int_equal(vis_image_crop(img, -1, 0, 5, 5, &r, &e), BASE_ERANGE);
    assert_int_equal(vis_image_crop(img, 0, 0, 0, 5, &r, &e), BASE_ERANGE);
    assert_null(r);
    vis_image_free(c);
    vis_image_free(img);
    vis_image_free(NULL);
}

static void test_image_bad_arguments(void **state)
{
    vis_image *img = NULL;
    base_err e;
    (void)state;
    assert_int_equal(vis_image_new(0, 10, 1, &img, &e), BASE_EINVAL);
    assert_non_null(strstr(e.msg, "0x10"));
    assert_int_equal(vis_image_new(10, -3, 1, &img, &e), BASE_EINVAL);
    assert_int_equal(vis_image_new(10, 10, 2, &img, &e), BASE_EINVAL);
    assert_non_null(strstr(e.msg, "2 channels"));
    assert_int_equal(vis_image_new(VIS_IMAGE_MAX_SIDE + 1, 1, 1, &img, &e),
                     BASE_EINVAL);
    assert_int_equal(vis_image_new(10, 10, 1, NULL, &e), BASE_EINVAL);
    assert_null(img);
    /* NULL image and malformed caller-made structs. */
    assert_int_equal(vis_image_clone(NULL, &img, &e), BASE_EINVAL);
    assert_non_null(strstr(e.msg, "src is NULL"));
    unsigned char buf[64];
    vis_image fake = {4, 4, 4, 3, buf}; /* stride too small */
    assert_int_equal(vis_image_clone(&fake, &img, &e), BASE_EINVAL);
    assert_non_null(strstr(e.msg, "stride"));
    fake.stride = 12;
    fake.data = NULL;
    assert_int_equal(vis_image_clone(&fake, &img, &e), BASE_EINVAL);
    /* A caller-made view over its own buffer is a valid input. */
    fake.data = buf;
    for (int i = 0; i < 48; i++)
        buf[i] = (unsigned char)i;
    assert_int_equal(vis_image_clone(&fake, &img, NULL), 0);
    assert_int_equal(px(img, 3, 3)[2], 47);
    vis_image_free(img);
}

/* ---- files and memory ---- */

static void test_png_jpeg_files(void **state)
{
    char *dir = th_tmpdir();
    char *png = th_path(dir, "a.png"), *jpg = th_path(dir, "a.JPG");
    vis_image *img = pattern_image(160, 120), *back = NULL, *grey = NULL;
    base_err e;
    (void)state;
    assert_int_equal(vis_image_write(png, img, 0, &e), 0);
    assert_int_equal(vis_image_read(png, 0, &back, &e), 0);
    assert_true(images_equal(img, back)); /* PNG is lossless */
    vis_image_free(back);
    back = NULL;
    assert_int_equal(vis_image_write(jpg, img, 90, &e), 0);
    assert_int_equal(vis_image_read(jpg, 3, &back, &e), 0);
    assert_int_equal(back->channels, 3);
    double d = mean_abs_diff(img, back);
    assert_true(d > 0.0); /* lossy ... */
    assert_true(d < 4.0); /* ... but close */
    vis_image_free(back);
    back = NULL;
    /* Reading a colour file as grey, and a grey file as it is. */
    assert_int_equal(vis_image_read(png, 1, &grey, &e), 0);
    assert_int_equal(grey->channels, 1);
    char *gpng = th_path(dir, "g.png");
    assert_int_equal(vis_image_write(gpng, grey, 0, &e), 0);
    assert_int_equal(vis_image_read(gpng, 0, &back, &e), 0);
    assert_int_equal(back->channels, 1);
    assert_true(images_equal(grey, back));
    vis_image_free(back);
    vis_image_free(grey);
    vis_image_free(img);
    th_rmtree(dir);
    free(gpng);
    free(png);
    free(jpg);
    free(dir);
}

static void test_file_errors(void **state)
{
    char *dir = th_tmpdir();
    char *missing = th_path(dir, "missing.png");
    char *text = th_path(dir, "notes.png");
    char *bad_ext = th_path(dir, "a.bmpx");
    char *no_dir = th_path(dir, "nodir/a.png");
    vis_image *img = NULL, *src = pattern_image(8, 8);
    base_err e;
    (void)state;
    assert_int_equal(vis_image_read(missing, 0, &img, &e), BASE_ENOTFOUND);
    assert_non_null(strstr(e.msg, missing));
    assert_non_null(strstr(e.msg, "No such file"));
    assert_int_equal(th_write_file(text, "this is not an image\n"), 0);
    assert_int_equal(vis_image_read(text, 0, &img, &e), BASE_EPARSE);
    assert_non_null(strstr(e.msg, text));
    assert_int_equal(th_write_file(text, ""), 0);
    assert_int_equal(vis_image_read(text, 0, &img, &e), BASE_EPARSE);
    assert_non_null(strstr(e.msg, "empty"));
    assert_int_equal(vis_image_read(dir, 0, &img, &e), BASE_EIO);
    assert_non_null(strstr(e.msg, dir));
    assert_int_equal(vis_image_read(text, 2, &img, &e), BASE_EINVAL);
    assert_int_equal(vis_image_read(NULL, 0, &img, &e), BASE_EINVAL);
    assert_int_equal(vis_image_read("", 0, &img, &e), BASE_EINVAL);
    assert_null(img);
    assert_int_equal(vis_image_write(bad_ext, src, 0, &e), BASE_EINVAL);
    assert_non_null(strstr(e.msg, bad_ext));
    assert_int_equal(vis_image_write(no_dir, src, 0, &e), BASE_EIO);
    assert_non_null(strstr(e.msg, no_dir));
    assert_int_equal(vis_image_write(missing, NULL, 0, &e), BASE_EINVAL);
    char *jpg = th_path(dir, "q.jpg");
    assert_int_equal(vis_image_write(jpg, src, 101, &e), BASE_EINVAL);
    assert_non_null(strstr(e.msg, "quality"));
    vis_image_free(src);
    th_rmtree(dir);
    free(jpg);
    free(missing);
    free(text);
    free(bad_ext);
    free(no_dir);
    free(dir);
}

static void test_memory_codec(void **state)
{
    vis_image *img = pattern_image(96, 64), *back = NULL;
    unsigned char *buf = NULL;
    size_t len = 0;
    base_err e;
    (void)state;
    assert_int_equal(vis_image_encode(img, VIS_FORMAT_PNG, 0, &buf, &len, &e),
                     0);
    assert_true(len > 8);
    assert_memory_equal(buf, "\x89PNG", 4);
    assert_int_equal(vis_image_decode(buf, len, 0, &back, &e), 0);
    assert_true(images_equal(img, back));
    vis_image_free(back);
    back = NULL;
    vis_buffer_free(buf);
    /* JPEG: close, and smaller at lower quality. */
    size_t len_hi, len_lo;
    assert_int_equal(vis_image_encode(img, VIS_FORMAT_JPEG, 95, &buf, &len_hi,
                                      &e), 0);
    assert_int_equal(buf[0], 0xFF);
    assert_int_equal(buf[1], 0xD8);
    assert_int_equal(vis_image_decode(buf, len_hi, 3, &back, &e), 0);
    assert_true(mean_abs_diff(img, back) < 4.0);
    vis_image_free(back);
    back = NULL;
    /* A truncated JPEG is still partly decodable by libjpeg; garbage is
     * not. */
    memset(buf, 0x5A, len_hi);
    assert_int_equal(vis_image_decode(buf, len_hi, 0, &back, &e),
                     BASE_EPARSE);
    assert_non_null(strstr(e.msg, "buffer"));
    vis_buffer_free(buf);
    assert_int_equal(vis_image_encode(img, VIS_FORMAT_JPEG, 20, &buf, &len_lo,
                                      &e), 0);
    assert_true(len_lo < len_hi);
    vis_buffer_free(buf);
    assert_int_equal(vis_image_decode(NULL, 0, 0, &back, &e), BASE_EPARSE);
    assert_int_equal(vis_image_decode(NULL, 10, 0, &back, &e), BASE_EINVAL);
    assert_int_equal(vis_image_encode(img, 7, 0, &buf, &len, &e), BASE_EINVAL);
    assert_int_equal(vis_image_encode(img, VIS_FORMAT_PNG, 0, NULL, &len, &e),
                     BASE_EINVAL);
    assert_null(back);
    vis_buffer_free(NULL);
    vis_image_free(img);
}

/* ---- colour, resize, blur ---- */

static void test_convert(void **state)
{
    vis_image *img = new_image(4, 1, 3, 0), *g = NULL, *hsv = NULL,
              *lab = NULL, *back = NULL;
    base_err e;
    (void)state;
    /* B, G, R, white */
    unsigned char cols[4][3] = {
        {255, 0, 0}, {0, 255, 0}, {0, 0, 255}, {255, 255, 255}};
    for (int i = 0; i < 4; i++)
        memcpy(px(img, i, 0), cols[i], 3);
    assert_int_equal(vis_convert(img, VIS_BGR2GRAY, &g, &e), 0);
    assert_int_equal(g->channels, 1);
    assert_int_equal(px(g, 0, 0)[0], 29);  /* 0.114 * 255 */
    assert_int_equal(px(g, 1, 0)[0], 150); /* 0.587 * 255 */
    assert_int_equal(px(g, 2, 0)[0], 76);  /* 0.299 * 255 */
    assert_int_equal(px(g, 3, 0)[0], 255);
    assert_int_equal(vis_convert(img, VIS_BGR2HSV, &hsv, &e), 0);
    assert_int_equal(px(hsv, 0, 0)[0], 120); /* blue: 240 degrees / 2 */
    assert_int_equal(px(hsv, 1, 0)[0], 60);
    assert_int_equal(px(hsv, 2, 0)[0], 0);
    assert_int_equal(px(hsv, 2, 0)[1], 255);
    assert_int_equal(px(hsv, 3, 0)[1], 0); /* white: no saturation */
    assert_int_equal(px(hsv, 3, 0)[2], 255);
    assert_int_equal(vis_convert(hsv, VIS_HSV2BGR, &back, &e), 0);
    assert_true(images_equal(img, back));
    vis_image_free(back);
    back = NULL;
    assert_int_equal(vis_convert(img, VIS_BGR2LAB, &lab, &e), 0);
    assert_int_equal(px(lab, 3, 0)[0], 255); /* white: L = 100 */
    assert_int_equal(px(lab, 3, 0)[1], 128);
    assert_int_equal(px(lab, 3, 0)[2], 128);
    assert_true(px(lab, 2, 0)[1] > 128 + 60); /* red: a* strongly positive */
    assert_true(px(lab, 0, 0)[2] < 128 - 60); /* blue: b* strongly negative */
    assert_int_equal(vis_convert(lab, VIS_LAB2BGR, &back, &e), 0);
    assert_true(mean_abs_diff(img, back) < 2.0);
    vis_image_free(back);
    back = NULL;
    assert_int_equal(vis_convert(g, VIS_GRAY2BGR, &back, &e), 0);
    assert_int_equal(back->channels, 3);
    assert_int_equal(px(back, 2, 0)[0], 76);
    assert_int_equal(px(back, 2, 0)[2], 76);
    vis_image_free(back);
    back = NULL;
    /* Wrong channel counts and codes. */
    assert_int_equal(vis_convert(g, VIS_BGR2HSV, &back, &e), BASE_EINVAL);
    assert_non_null(strstr(e.msg, "channels"));
    assert_int_equal(vis_convert(img, VIS_GRAY2BGR, &back, &e), BASE_EINVAL);
    assert_int_equal(vis_convert(img, 99, &back, &e), BASE_EINVAL);
    assert_null(back);
    vis_image_free(g);
    vis_image_free(hsv);
    vis_image_free(lab);
    vis_image_free(img);
}

static void test_resize_blur(void **state)
{
    vis_image *img = new_image(2, 2, 1, 0), *big = NULL, *small = NULL,
              *dot = new_image(21, 21, 1, 0), *blur = NULL;
    base_err e;
    (void)state;
    px(img, 0, 0)[0] = 10;
    px(img, 1, 0)[0] = 20;
    px(img, 0, 1)[0] = 30;
    px(img, 1, 1)[0] = 40;
    assert_int_equal(vis_resize(img, 4, 4, VIS_INTER_NEAREST, &big, &e), 0);
    assert_int_equal(px(big, 0, 0)[0], 10);
    assert_int_equal(px(big, 1, 1)[0], 10);
    assert_int_equal(px(big, 3, 0)[0], 20);
    assert_int_equal(px(big, 2, 3)[0], 40);
    assert_int_equal(vis_resize(big, 1, 1, VIS_INTER_AREA, &small, &e), 0);
    assert_int_equal(px(small, 0, 0)[0], 25); /* the average */
    assert_int_equal(vis_resize(img, 0, 4, VIS_INTER_LINEAR, &small, &e),
                     BASE_EINVAL);
    assert_int_equal(vis_resize(img, 4, 4, 42, &small, &e), BASE_EINVAL);
    /* Blur spreads a dot symmetrically and keeps its brightness sum. */
    px(dot, 10, 10)[0] = 255;
    assert_int_equal(vis_gaussian_blur(dot, 0, 1.5, &blur, &e), 0);
    int sum = 0;
    for (int y = 0; y < 21; y++)
        for (int x = 0; x < 21; x++)
            sum += px(blur, x, y)[0];
    assert_true(px(blur, 10, 10)[0] < 255);
    assert_true(px(blur, 10, 10)[0] > px(blur, 11, 10)[0]);
    assert_int_equal(px(blur, 9, 10)[0], px(blur, 11, 10)[0]);
    assert_int_equal(px(blur, 10, 9)[0], px(blur, 10, 11)[0]);
    assert_int_equal(px(blur, 0, 0)[0], 0);
    assert_true(abs(sum - 255) < 20);
    assert_int_equal(vis_gaussian_blur(dot, 4, 1.0, &small, &e), BASE_EINVAL);
    assert_int_equal(vis_gaussian_blur(dot, 0, 0, &small, &e), BASE_EINVAL);
    vis_image_free(blur);
    vis_image_free(dot);
    vis_image_free(small);
    vis_image_free(big);
    vis_image_free(img);
}

/* ---- geometry ---- */

/* A perspective map with rotation, scale, translation and tilt. */
static vis_homography test_homography(void)
{
    double a = 20 * PI / 180, s = 0.85;
    vis_homography rs = {{s * cos(a), -s * sin(a), 0, s * sin(a), s * cos(a),
                          0, 0, 0, 1}};
    vis_homography tilt = {{1, 0, 0, 0, 1, 0, 1.5e-4, -1.0e-4, 1}};
    vis_homography tr = {{1, 0, 260, 0, 1, 80, 0, 0, 1}};
    return vis_homography_mul(tr, vis_homography_mul(tilt, rs));
}

static void test_homography_math(void **state)
{
    vis_homography h = test_homography(), inv, id;
    base_err e;
    (void)state;
    assert_int_equal(vis_homography_invert(h, &inv, &e), 0);
    id = vis_homography_mul(h, inv);
    for (int i = 0; i < 9; i++)
        assert_true(fabs(id.m[i] / id.m[8] -
                         vis_homography_identity().m[i]) < 1e-12);
    vis_point p = {123.5, -40.25};
    vis_point q = vis_homography_apply(inv, vis_homography_apply(h, p));
    assert_true(dist2d(p, q) < 1e-9);
    vis_homography sing = {{1, 2, 3, 2, 4, 6, 0, 0, 1}};
    assert_int_equal(vis_homography_invert(sing, &inv, &e), BASE_ERANGE);
    /* Points mapped to infinity. */
    vis_homography proj = {{1, 0, 0, 0, 1, 0, 1, 0, 0}};
    vis_point in[2] = {{1, 1}, {0, 5}}, out[2];
    assert_int_equal(vis_perspective_transform(proj, in, out, 2, &e),
                     BASE_ERANGE);
    assert_non_null(strstr(e.msg, "point 1"));
    assert_true(isinf(vis_homography_apply(proj, in[1]).x));
    /* In place is allowed. */
    assert_int_equal(vis_perspective_transform(h, in, in, 1, &e), 0);
    assert_true(dist2d(in[0], vis_homography_apply(h, (vis_point){1, 1})) <
                1e-12);
}

static void test_find_homography(void **state)
{
    vis_homography h = test_homography(), got;
    vis_point src[12], dst[12], chk[12];
    unsigned char mask[12];
    base_err e;
    (void)state;
    for (int i = 0; i < 12; i++) {
        src[i].x = 37.0 * (i % 4) + 11.0 * (i / 4) + 5;
        src[i].y = 29.0 * (i / 4) - 7.0 * (i % 3) + 3;
    }
    assert_int_equal(vis_perspective_transform(h, src, dst, 12, &e), 0);
    assert_int_equal(vis_find_homography(src, dst, 12, VIS_HOMOGRAPHY_LSQ, 0,
                                         mask, &got, &e), 0);
    assert_int_equal(vis_perspective_transform(got, src, chk, 12, &e), 0);
    for (int i = 0; i < 12; i++) {
        /* OpenCV solves in single precision. */
        assert_true(dist2d(chk[i], dst[i]) < 1e-3);
        assert_int_equal(mask[i], 1);
    }
    /* Exactly four points (no three collinear) determine it. */
    vis_point s4[4] = {src[0], src[3], src[8], src[11]};
    vis_point d4[4] = {dst[0], dst[3], dst[8], dst[11]};
    assert_int_equal(vis_find_homography(s4, d4, 4, VIS_HOMOGRAPHY_LSQ, 0,
                                         NULL, &got, &e), 0);
    assert_int_equal(vis_perspective_transform(got, src, chk, 12, &e), 0);
    for (int i = 0; i < 12; i++)
        assert_true(dist2d(chk[i], dst[i]) < 1e-3);
    /* RANSAC finds and ignores two gross outliers. */
    dst[3].x += 40;
    dst[8].y -= 55;
    assert_int_equal(vis_find_homography(src, dst, 12, VIS_HOMOGRAPHY_RANSAC,
                                         2.0, mask, &got, &e), 0);
    for (int i = 0; i < 12; i++)
        assert_int_equal(mask[i], (i == 3 || i == 8) ? 0 : 1);
    assert_int_equal(vis_perspective_transform(got, src, chk, 12, &e), 0);
    assert_true(dist2d(chk[0], dst[0]) < 1e-3);
    /* Bad input. */
    assert_int_equal(vis_find_homography(src, dst, 3, VIS_HOMOGRAPHY_LSQ, 0,
                                         NULL, &got, &e), BASE_EINVAL);
    assert_non_null(strstr(e.msg, "at least 4"));
    assert_int_equal(vis_find_homography(NULL, dst, 5, VIS_HOMOGRAPHY_LSQ, 0,
                                         NULL, &got, &e), BASE_EINVAL);
    assert_int_equal(vis_find_homography(src, dst, 5, 9, 0, NULL, &got, &e),
                     BASE_EINVAL);
    vis_point nan_pt[4] = {{0, 0}, {1, 0}, {NAN, 1}, {0, 1}};
    assert_int_equal(vis_find_homography(nan_pt, dst, 4, VIS_HOMOGRAPHY_LSQ, 0,
                                         NULL, &got, &e), BASE_EINVAL);
    assert_non_null(strstr(e.msg, "src[2]"));
    vis_point line[5] = {{0, 0}, {1, 1}, {2, 2}, {3, 3}, {4, 4}};
    int rc = vis_find_homography(line, line, 5, VIS_HOMOGRAPHY_LSQ, 0, NULL,
                                 &got, &e);
    assert_int_equal(rc, BASE_ERANGE);
}

static void test_warp(void **state)
{
    vis_image *src = new_image(40, 30, 1, 0), *w = NULL, *back = NULL;
    vis_homography shift = {{1, 0, 5, 0, 1, 7, 0, 0, 1}};
    base_err e;
    (void)state;
    px(src, 3, 4)[0] = 200;
    assert_int_equal(vis_warp_perspective(src, shift, 50, 40,
                                          VIS_INTER_NEAREST, vis_grey(9), &w,
                                          &e), 0);
    assert_int_equal(w->width, 50);
    assert_int_equal(px(w, 8, 11)[0], 200);
    assert_int_equal(px(w, 0, 0)[0], 9);   /* border */
    assert_int_equal(px(w, 49, 39)[0], 9); /* border */
    assert_int_equal(px(w, 10, 10)[0], 0);
    /* Onto: only covered pixels change. */
    back = new_image(50, 40, 1, 77);
    assert_int_equal(vis_warp_perspective_onto(src, shift, back,
                                               VIS_INTER_NEAREST, &e), 0);
    assert_int_equal(px(back, 8, 11)[0], 200);
    assert_int_equal(px(back, 6, 8)[0], 0); /* covered by src */
    assert_int_equal(px(back, 2, 2)[0], 77);
    assert_int_equal(px(back, 48, 38)[0], 77);
    vis_homography sing = {{0}};
    assert_int_equal(vis_warp_perspective(src, sing, 10, 10, VIS_INTER_LINEAR,
                                          vis_grey(0), &w, &e), BASE_EINVAL);
    assert_int_equal(vis_warp_perspective(src, shift, 10, 10, VIS_INTER_AREA,
                                          vis_grey(0), &w, &e), BASE_EINVAL);
    assert_int_equal(vis_warp_perspective_onto(src, shift, src,
                                               VIS_INTER_LINEAR, &e),
                     BASE_EINVAL);
    vis_image *col = new_image(5, 5, 3, 0);
    assert_int_equal(vis_warp_perspective_onto(col, shift, back,
                                               VIS_INTER_LINEAR, &e),
                     BASE_EINVAL);
    vis_image_free(col);
    vis_image_free(back);
    vis_image_free(w);
    vis_image_free(src);
}

/* ---- lens ---- */

static vis_camera test_camera(void)
{
    vis_camera c;
    memset(&c, 0, sizeof c);
    c.fx = 600;
    c.fy = 610;
    c.cx = 322;
    c.cy = 236;
    c.dist[0] = -0.25; /* barrel, like a cheap wide webcam */
    c.dist[1] = 0.08;
    c.dist[2] = 0.001;
    c.dist[3] = -0.0015;
    return c;
}

static void test_lens_points(void **state)
{
    vis_camera c = test_camera();
    vis_point ideal[6] = {{322, 236}, {10, 10},   {630, 470},
                          {100, 400}, {600, 50}, {322, 5}};
    vis_point d[6], back[6];
    base_err e;
    (void)state;
    assert_int_equal(vis_distort_points(c, ideal, d, 6, &e), 0);
    /* The principal point stays; barrel pulls corners inwards. */
    assert_true(dist2d(d[0], ideal[0]) < 1e-9);
    assert_true(dist2d(d[1], (vis_point){c.cx, c.cy}) <
                dist2d(ideal[1], (vis_point){c.cx, c.cy}));
    assert_int_equal(vis_undistort_points(c, d, back, 6, &e), 0);
    for (int i = 0; i < 6; i++)
        assert_true(dist2d(back[i], ideal[i]) < 1e-3);
    /* Without distortion both are the identity. */
    vis_camera pin = c;
    memset(pin.dist, 0, sizeof pin.dist);
    assert_int_equal(vis_undistort_points(pin, ideal, back, 6, &e), 0);
    for (int i = 0; i < 6; i++)
        assert_true(dist2d(back[i], ideal[i]) < 1e-9);
    pin.fx = 0;
    assert_int_equal(vis_distort_points(pin, ideal, d, 6, &e), BASE_EINVAL);
    assert_int_equal(vis_undistort_points(c, NULL, d, 6, &e), BASE_EINVAL);
}

static void test_lens_images(void **state)
{
    vis_camera c = test_camera();
    int w = 640, h = 480;
    vis_image *img = pattern_image(w, h), *und = NULL, *rem = NULL,
              *ident = NULL;
    float *mx = malloc(sizeof(float) * (size_t)w * h);
    float *my = malloc(sizeof(float) * (size_t)w * h);
    base_err e;
    (void)state;
    assert_int_equal(vis_undistort_image(img, c, &und, &e), 0);
    assert_int_equal(vis_undistort_maps(c, w, h, mx, my, &e), 0);
    assert_int_equal(vis_remap(img, mx, my, w, h, VIS_INTER_LINEAR,
                               vis_grey(0), &rem, &e), 0);
    assert_true(mean_abs_diff(und, rem) < 1.0);
    assert_false(images_equal(und, img));
    /* The map at the ideal position of a distorted point points back at
     * it. */
    vis_point ideal = {100.0, 80.0}, dist;
    assert_int_equal(vis_distort_points(c, &ideal, &dist, 1, &e), 0);
    assert_true(fabs(mx[80 * w + 100] - dist.x) < 0.05);
    assert_true(fabs(my[80 * w + 100] - dist.y) < 0.05);
    /* An identity map copies, a map outside gives the border. */
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            mx[y * w + x] = (float)x;
            my[y * w + x] = (float)y;
        }
    mx[0] = -100;
    assert_int_equal(vis_remap(img, mx, my, w, h, VIS_INTER_NEAREST,
                               vis_rgb(1, 2, 3), &ident, &e), 0);
    assert_int_equal(px(ident, 0, 0)[0], 3);
    assert_int_equal(px(ident, 0, 0)[2], 1);
    px(ident, 0, 0)[0] = px(img, 0, 0)[0];
    px(ident, 0, 0)[1] = px(img, 0, 0)[1];
    px(ident, 0, 0)[2] = px(img, 0, 0)[2];
    assert_true(images_equal(ident, img));
    assert_int_equal(vis_remap(img, NULL, my, w, h, VIS_INTER_LINEAR,
                               vis_grey(0), &ident, &e), BASE_EINVAL);
    free(mx);
    free(my);
    vis_image_free(ident);
    vis_image_free(rem);
    vis_image_free(und);
    vis_image_free(img);
}

/* ---- ArUco ---- */

static void test_marker_bits_and_cells(void **state)
{
    vis_image *m = NULL;
    unsigned char cells[16];
    base_err e;
    (void)state;
    for (int id = 0; id < 50; id += 7) {
        assert_int_equal(vis_aruco_marker_bits(id, 60, &m, &e), 0);
        assert_int_equal(m->width, 60);
        assert_int_equal(m->channels, 1);
        assert_int_equal(vis_aruco_marker_cells(id, cells, &e), 0);
        for (int r = 0; r < 6; r++)
            for (int c = 0; c < 6; c++) {
                int v = px(m, c * 10 + 5, r * 10 + 5)[0];
                int border = r == 0 || c == 0 || r == 5 || c == 5;
                int want = border ? 0 : cells[(r - 1) * 4 + (c - 1)] * 255;
                assert_int_equal(v, want);
            }
        vis_image_free(m);
        m = NULL;
    }
    /* Different ids differ. */
    unsigned char c0[16], c1[16];
    assert_int_equal(vis_aruco_marker_cells(0, c0, &e), 0);
    assert_int_equal(vis_aruco_marker_cells(1, c1, &e), 0);
    assert_memory_not_equal(c0, c1, 16);
    /* Out-of-range ids and sizes. */
    assert_int_equal(vis_aruco_marker_bits(50, 60, &m, &e), BASE_ERANGE);
    assert_non_null(strstr(e.msg, "50"));
    assert_int_equal(vis_aruco_marker_bits(-1, 60, &m, &e), BASE_ERANGE);
    assert_int_equal(vis_aruco_marker_bits(3, 5, &m, &e), BASE_EINVAL);
    assert_int_equal(vis_aruco_marker_cells(50, cells, &e), BASE_ERANGE);
    assert_null(m);
}

/* The scene: markers 0..3 of side S at known places on white. */
#define SCENE_W 800
#define SCENE_H 640
#define S 120
static const int marker_xy[4][2] = {{60, 50}, {600, 70}, {580, 450}, {90, 470}};

static vis_image *marker_scene(vis_point truth[4][4])
{
    vis_image *scene = new_image(SCENE_W, SCENE_H, 1, 255), *m = NULL;
    base_err e;
    for (int id = 0; id < 4; id++) {
        int x0 = marker_xy[id][0], y0 = marker_xy[id][1];
        assert_int_equal(vis_aruco_marker_bits(id, S, &m, &e), 0);
        paste(scene, m, x0, y0);
        vis_image_free(m);
        m = NULL;
        /* Pixel centres are at integers, so the outer edge of pixels
         * x0 .. x0+S-1 lies at x0 - 0.5 and x0 + S - 0.5. */
        truth[id][0] = (vis_point){x0 - 0.5, y0 - 0.5};
        truth[id][1] = (vis_point){x0 + S - 0.5, y0 - 0.5};
        truth[id][2] = (vis_point){x0 + S - 0.5, y0 + S - 0.5};
        truth[id][3] = (vis_point){x0 - 0.5, y0 + S - 0.5};
    }
    return scene;
}

static void check_markers(const vis_marker *got, int n, vis_point truth[4][4],
                          double tol)
{
    assert_int_equal(n, 4);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(got[i].id, i);
        for (int k = 0; k < 4; k++) {
            double d = dist2d(got[i].corners[k], truth[i][k]);
            if (d > tol)
                fail_msg("marker %d corner %d: (%.2f, %.2f) vs (%.2f, %.2f)",
                         i, k, got[i].corners[k].x, got[i].corners[k].y,
                         truth[i][k].x, truth[i][k].y);
        }
    }
}

static void test_aruco_detect_flat(void **state)
{
    vis_point truth[4][4];
    vis_image *scene = marker_scene(truth), *colour = NULL;
    vis_aruco *a = NULL;
    vis_marker got[8];
    int n = -1;
    base_err e;
    (void)state;
    assert_int_equal(vis_aruco_new(VIS_ARUCO_4X4_50, &a, &e), 0);
    assert_int_equal(vis_aruco_detect(a, scene, got, 8, &n, &e), 0);
    check_markers(got, n, truth, 0.5);
    /* A colour image works as well; repeated detection on one handle. */
    assert_int_equal(vis_convert(scene, VIS_GRAY2BGR, &colour, &e), 0);
    assert_int_equal(vis_aruco_detect(a, colour, got, 8, &n, &e), 0);
    check_markers(got, n, truth, 0.5);
    /* cap smaller than the count: the first cap by id, n says all. */
    memset(got, 0, sizeof got);
    assert_int_equal(vis_aruco_detect(a, scene, got, 2, &n, &e), 0);
    assert_int_equal(n, 4);
    assert_int_equal(got[0].id, 0);
    assert_int_equal(got[1].id, 1);
    assert_int_equal(got[2].id, 0); /* untouched */
    assert_int_equal(got[2].corners[0].x, 0);
    assert_int_equal(vis_aruco_detect(a, scene, NULL, 0, &n, &e), 0);
    assert_int_equal(n, 4);
    /* A blank image has none; the 5x5 dictionary sees none of these. */
    vis_image *blank = new_image(200, 100, 1, 255);
    assert_int_equal(vis_aruco_detect(a, blank, got, 8, &n, &e), 0);
    assert_int_equal(n, 0);
    vis_aruco *a5 = NULL;
    assert_int_equal(vis_aruco_new(VIS_ARUCO_5X5_100, &a5, &e), 0);
    assert_int_equal(vis_aruco_detect(a5, scene, got, 8, &n, &e), 0);
    assert_int_equal(n, 0);
    vis_aruco_free(a5);
    /* Bad arguments. */
    assert_int_equal(vis_aruco_detect(NULL, scene, got, 8, &n, &e),
                     BASE_EINVAL);
    assert_int_equal(vis_aruco_detect(a, NULL, got, 8, &n, &e), BASE_EINVAL);
    assert_int_equal(vis_aruco_detect(a, scene, NULL, 8, &n, &e), BASE_EINVAL);
    assert_int_equal(vis_aruco_detect(a, scene, got, 8, NULL, &e),
                     BASE_EINVAL);
    assert_int_equal(vis_aruco_new(17, &a5, &e), BASE_EINVAL);
    assert_non_null(strstr(e.msg, "dictionary"));
    vis_image_free(blank);
    vis_image_free(colour);
    vis_image_free(scene);
    vis_aruco_free(a);
    vis_aruco_free(NULL);
}

static void test_aruco_detect_warped(void **state)
{
    vis_point truth[4][4], wt[4][4];
    vis_image *scene = marker_scene(truth), *warped = NULL, *blurred = NULL;
    vis_homography h = test_homography();
    vis_aruco *a = NULL;
    vis_marker got[8];
    int n = 0;
    base_err e;
    (void)state;
    for (int i = 0; i < 4; i++)
        assert_int_equal(vis_perspective_transform(h, truth[i], wt[i], 4, &e),
                         0);
    /* The scene must land inside the output for the test to mean much. */
    for (int i = 0; i < 4; i++)
        for (int k = 0; k < 4; k++) {
            assert_true(wt[i][k].x > 5 && wt[i][k].x < 1195);
            assert_true(wt[i][k].y > 5 && wt[i][k].y < 955);
        }
    assert_int_equal(vis_warp_perspective(scene, h, 1200, 960,
                                          VIS_INTER_LINEAR, vis_grey(255),
                                          &warped, &e), 0);
    assert_int_equal(vis_aruco_new(VIS_ARUCO_4X4_50, &a, &e), 0);
    assert_int_equal(vis_aruco_detect(a, warped, got, 8, &n, &e), 0);
    check_markers(got, n, wt, 1.0);
    /* A camera-like blur still gives corners within 1.5 px. */
    assert_int_equal(vis_gaussian_blur(warped, 0, 1.2, &blurred, &e), 0);
    assert_int_equal(vis_aruco_detect(a, blurred, got, 8, &n, &e), 0);
    check_markers(got, n, wt, 1.5);
    /* The corners recover the homography. */
    vis_point src[16], dst[16];
    for (int i = 0; i < 4; i++)
        for (int k = 0; k < 4; k++) {
            src[i * 4 + k] = truth[i][k];
            dst[i * 4 + k] = got[i].corners[k];
        }
    vis_homography est;
    assert_int_equal(vis_find_homography(src, dst, 16, VIS_HOMOGRAPHY_LSQ, 0,
                                         NULL, &est, &e), 0);
    vis_point centre = {400, 320};
    assert_true(dist2d(vis_homography_apply(est, centre),
                       vis_homography_apply(h, centre)) < 1.0);
    /* Decimated search, full-resolution refinement: as accurate, on grey
     * and on colour. */
    vis_image *colour = NULL;
    assert_int_equal(vis_convert(warped, VIS_GRAY2BGR, &colour, &e), 0);
    assert_int_equal(vis_aruco_set_decimate(a, 2, &e), 0);
    assert_int_equal(vis_aruco_detect(a, warped, got, 8, &n, &e), 0);
    check_markers(got, n, wt, 1.0);
    assert_int_equal(vis_aruco_detect(a, colour, got, 8, &n, &e), 0);
    check_markers(got, n, wt, 1.0);
    assert_int_equal(vis_aruco_set_decimate(a, 3, &e), 0);
    assert_int_equal(vis_aruco_detect(a, blurred, got, 8, &n, &e), 0);
    check_markers(got, n, wt, 1.5);
    assert_int_equal(vis_aruco_set_decimate(a, 0, &e), BASE_EINVAL);
    assert_int_equal(vis_aruco_set_decimate(a, 5, &e), BASE_EINVAL);
    assert_int_equal(vis_aruco_set_decimate(NULL, 2, &e), BASE_EINVAL);
    vis_image_free(colour);
    vis_image_free(blurred);
    vis_image_free(warped);
    vis_image_free(scene);
    vis_aruco_free(a);
}

/* ---- ChArUco ---- */

static void test_charuco_calibration(void **state)
{
    vis_charuco_spec spec = {7, 5, 30.0, 22.0};
    const int bw = 7 * 60, bh = 5 * 60; /* 60 px a square: 0.5 mm a px */
    const int w = 640, h = 480;
    vis_image *board = NULL;
    vis_camera truth = test_camera();
    base_err e;
    (void)state;
    assert_int_equal(vis_charuco_board_render(spec, bw, bh, 0, &board, &e), 0);
    assert_int_equal(board->channels, 1);
    int black = count_value(board, 0), white = count_value(board, 255);
    assert_true(black > bw * bh / 4 && white > bw * bh / 4);
    /* The board's own markers are found with the 5x5 dictionary. */
    vis_aruco *a5 = NULL;
    vis_marker ms[32];
    int n = 0;
    vis_image *framed = new_image(bw + 40, bh + 40, 1, 255);
    paste(framed, board, 20, 20);
    assert_int_equal(vis_aruco_new(VIS_ARUCO_5X5_100, &a5, &e), 0);
    assert_int_equal(vis_aruco_detect(a5, framed, ms, 32, &n, &e), 0);
    assert_int_equal(n, 17); /* 7 x 5 / 2 white squares */
    vis_aruco_free(a5);
    vis_image_free(framed);

    /* Views of the board through the test camera: board pixel -> board mm
     * -> camera (rotation, translation) -> ideal pixel -> distorted pixel;
     * each view is one remap from the board image. */
    enum { VIEWS = 12 };
    const double rx[VIEWS] = {0, 25, -25, 0, 0, 20, -20, 15, -15, 30, -10, 10};
    const double ry[VIEWS] = {0, 0, 0, 25, -25, 20, -20, -15, 15, 0, 30, -30};
    const double rz[VIEWS] = {0, 10, -5, 15, -20, 30, 0, -30, 45, 5, -10, 90};
    vis_image *views[VIEWS];
    float *mx = malloc(sizeof(float) * (size_t)w * h);
    float *my = malloc(sizeof(float) * (size_t)w * h);
    vis_point *grid = malloc(sizeof(vis_point) * (size_t)w * h);
    for (int i = 0; i < w * h; i++)
        grid[i] = (vis_point){i % w, i / w};
    assert_int_equal(vis_undistort_points(truth, grid, grid, w * h, &e), 0);
    for (int v = 0; v < VIEWS; v++) {
        double ax = rx[v] * PI / 180, ay = ry[v] * PI / 180,
               az = rz[v] * PI / 180;
        /* R = Rz * Ry * Rx */
        double cx = cos(ax), sx = sin(ax), cy = cos(ay), sy = sin(ay),
               cz = cos(az), sz = sin(az);
        double R[9] = {cz * cy, cz * sy * sx - sz * cx, cz * sy * cx + sz * sx,
                       sz * cy, sz * sy * sx + cz * cx, sz * sy * cx - cz * sx,
                       -sy,     cy * sx,                cy * cx};
        double mm = 0.5, X0 = bw * mm / 2, Y0 = bh * mm / 2;
        double tz = 330 + 15 * (v % 3);
        /* Views spread over the frame, into its corners, where the
         * distortion is strongest and best measured. */
        double t[3] = {-R[0] * X0 - R[1] * Y0 + (v % 4 - 1.5) * 60,
                       -R[3] * X0 - R[4] * Y0 + (v % 3 - 1) * 60,
                       -R[6] * X0 - R[7] * Y0 + tz};
        /* board px -> camera: [r1*mm r2*mm t] */
        vis_homography P = {{R[0] * mm, R[1] * mm, t[0], R[3] * mm, R[4] * mm,
                             t[1], R[6] * mm, R[7] * mm, t[2]}};
        vis_homography K = {{truth.fx, 0, truth.cx, 0, truth.fy, truth.cy, 0,
                             0, 1}};
        vis_homography H = vis_homography_mul(K, P), Hinv;
        assert_int_equal(vis_homography_invert(H, &Hinv, &e), 0);
        for (int i = 0; i < w * h; i++) {
            vis_point b = vis_homography_apply(Hinv, grid[i]);
            mx[i] = (float)b.x;
            my[i] = (float)b.y;
        }
        views[v] = NULL;
        assert_int_equal(vis_remap(board, mx, my, w, h, VIS_INTER_LINEAR,
                                   vis_grey(255), &views[v], &e), 0);
    }
    free(grid);
    free(mx);
    free(my);

    vis_camera got;
    double rms = -1;
    int used = 0;
    int rc = vis_calibrate_charuco((const vis_image *const *)views, VIEWS,
                                   spec, &got, &rms, &used, &e);
    if (rc)
        fail_msg("calibration failed: %s", e.msg);
    assert_true(used >= 10);
    /* OpenCV 4.6 ChArUco corners on these synthetic views are good to
     * about half a pixel. */
    assert_true(rms > 0 && rms < 1.0);
    assert_true(fabs(got.fx - truth.fx) / truth.fx < 0.02);
    assert_true(fabs(got.fy - truth.fy) / truth.fy < 0.02);
    assert_true(fabs(got.cx - truth.cx) < 8);
    assert_true(fabs(got.cy - truth.cy) < 8);
    assert_true(fabs(got.dist[0] - truth.dist[0]) < 0.05);
    /* The recovered model undistorts a corner point like the truth does. */
    vis_point corner = {20, 20}, u_truth, u_got;
    assert_int_equal(vis_undistort_points(truth, &corner, &u_truth, 1, &e), 0);
    assert_int_equal(vis_undistort_points(got, &corner, &u_got, 1, &e), 0);
    assert_true(dist2d(u_truth, u_got) < 3.0);

    /* Too few views of the board. */
    vis_image *blank = new_image(w, h, 1, 255);
    const vis_image *blanks[3] = {blank, blank, views[0]};
    assert_int_equal(vis_calibrate_charuco(blanks, 3, spec, &got, &rms, NULL,
                                           &e), BASE_ENOTFOUND);
    assert_non_null(strstr(e.msg, "1 of 3"));
    /* Mixed sizes, bad specs. */
    const vis_image *mixed[2] = {views[0], board};
    assert_int_equal(vis_calibrate_charuco(mixed, 2, spec, &got, &rms, NULL,
                                           &e), BASE_EINVAL);
    assert_non_null(strstr(e.msg, "images[1]"));
    vis_charuco_spec bad = {7, 5, 20.0, 22.0};
    assert_int_equal(vis_charuco_board_render(bad, 100, 100, 0, &blank, &e),
                     BASE_EINVAL);
    /* A board too small to draw makes OpenCV throw: the exception comes
     * back as BASE_ECV with OpenCV's reason, and nothing leaks. */
    vis_image *tiny = NULL;
    assert_int_equal(vis_charuco_board_render(spec, 20, 20, 0, &tiny, &e),
                     BASE_ECV);
    assert_non_null(strstr(e.msg, "OpenCV"));
    assert_non_null(strstr(e.msg, "vis_charuco_board_render"));
    assert_null(tiny);
    vis_charuco_spec huge = {20, 20, 30.0, 22.0};
    assert_int_equal(vis_charuco_board_render(huge, 100, 100, 0, &blank, &e),
                     BASE_EINVAL);
    vis_image_free(blank);
    for (int v = 0; v < VIEWS; v++)
        vis_image_free(views[v]);
    vis_image_free(board);
}

/* ---- drawing ---- */

static void test_draw_basic(void **state)
{
    vis_image *img = new_image(100, 80, 3, 0);
    vis_color red = vis_rgb(255, 0, 0);
    base_err e;
    (void)state;
    assert_int_equal(red.r, 255);
    assert_int_equal(red.b, 0);
    /* A horizontal line. */
    assert_int_equal(vis_draw_line(img, (vis_point){10, 5}, (vis_point){50, 5},
                                   red, 1, 0, &e), 0);
    for (int x = 10; x <= 50; x++) {
        assert_int_equal(px(img, x, 5)[2], 255);
        assert_int_equal(px(img, x, 5)[0], 0);
    }
    assert_int_equal(px(img, 9, 5)[2], 0);
    assert_int_equal(px(img, 30, 6)[2], 0);
    /* A filled circle has about pi r^2 pixels, an outline far fewer. */
    vis_image *g = new_image(100, 100, 1, 0);
    assert_int_equal(vis_draw_circle(g, (vis_point){50, 50}, 20, vis_grey(255),
                                     VIS_FILLED, 0, &e), 0);
    /* OpenCV includes the boundary pixels: about pi (r + 1/2)^2. */
    int filled = count_value(g, 255);
    assert_true(fabs(filled - PI * 20.5 * 20.5) < 0.03 * PI * 20.5 * 20.5);
    assert_int_equal(px(g, 50, 50)[0], 255);
    assert_int_equal(px(g, 50, 75)[0], 0);
    assert_int_equal(vis_image_fill(g, vis_grey(0), &e), 0);
    assert_int_equal(vis_draw_circle(g, (vis_point){50, 50}, 20, vis_grey(255),
                                     2, 0, &e), 0);
    assert_true(count_value(g, 255) < filled / 3);
    assert_int_equal(px(g, 50, 50)[0], 0);
    /* A colour on a grey image draws its luma. */
    assert_int_equal(vis_draw_rect(g, 0, 0, 9, 9, red, VIS_FILLED, &e), 0);
    assert_int_equal(px(g, 5, 5)[0], 76);
    assert_int_equal(px(g, 10, 10)[0], 0);
    /* Rectangle outline: edges set, inside untouched. */
    assert_int_equal(vis_draw_rect(img, 60, 40, 90, 70, vis_grey(200), 1, &e),
                     0);
    assert_int_equal(px(img, 60, 55)[1], 200);
    assert_int_equal(px(img, 90, 70)[1], 200);
    assert_int_equal(px(img, 75, 55)[1], 0);
    /* Anti-aliasing makes intermediate values along a slanted edge. */
    assert_int_equal(vis_image_fill(g, vis_grey(0), &e), 0);
    assert_int_equal(vis_draw_line(g, (vis_point){5, 5}, (vis_point){90, 40},
                                   vis_grey(255), 1, VIS_DRAW_AA, &e), 0);
    int mid = 0;
    for (int y = 0; y < 100; y++)
        for (int x = 0; x < 100; x++)
            if (px(g, x, y)[0] > 0 && px(g, x, y)[0] < 255)
                mid++;
    assert_true(mid > 20);
    /* Text lands near its origin. */
    vis_image *t = new_image(200, 60, 1, 0);
    assert_int_equal(vis_draw_text(t, "tablecam", (vis_point){10, 40}, 1.0,
                                   vis_grey(255), 1, 0, &e), 0);
    int lit = count_value(t, 255), above = 0;
    for (int y = 0; y < 10; y++)
        for (int x = 0; x < 200; x++)
            above += px(t, x, y)[0] != 0;
    assert_true(lit > 100);
    assert_int_equal(above, 0);
    /* Bad arguments. */
    assert_int_equal(vis_draw_line(img, (vis_point){0, 0}, (vis_point){NAN, 1},
                                   red, 1, 0, &e), BASE_EINVAL);
    assert_int_equal(vis_draw_line(img, (vis_point){0, 0}, (vis_point){1, 1},
                                   red, 0, 0, &e), BASE_EINVAL);
    assert_non_null(strstr(e.msg, "thickness"));
    assert_int_equal(vis_draw_line(img, (vis_point){0, 0}, (vis_point){1, 1},
                                   red, 1, 8, &e), BASE_EINVAL);
    assert_int_equal(vis_draw_circle(img, (vis_point){0, 0}, -1, red, 1, 0,
                                     &e), BASE_EINVAL);
    assert_int_equal(vis_draw_text(img, NULL, (vis_point){0, 0}, 1, red, 1, 0,
                                   &e), BASE_EINVAL);
    assert_int_equal(vis_draw_line(NULL, (vis_point){0, 0}, (vis_point){1, 1},
                                   red, 1, 0, &e), BASE_EINVAL);
    vis_image_free(t);
    vis_image_free(g);
    vis_image_free(img);
}

static void test_draw_polygons(void **state)
{
    vis_image *g = new_image(100, 100, 1, 0);
    base_err e;
    (void)state;
    /* A non-convex L: the arms filled, the notch not. */
    vis_point l[6] = {{10, 10}, {30, 10}, {30, 70}, {80, 70}, {80, 90},
                      {10, 90}};
    assert_int_equal(vis_draw_polygon(g, l, 6, vis_grey(255), VIS_FILLED, 1, 0,
                                      &e), 0);
    assert_int_equal(px(g, 20, 50)[0], 255);
    assert_int_equal(px(g, 60, 80)[0], 255);
    assert_int_equal(px(g, 60, 40)[0], 0); /* the notch */
    assert_int_equal(px(g, 5, 5)[0], 0);
    int area = count_value(g, 255);
    /* 20 x 80 + 50 x 20 = 2600, give or take the edges. */
    assert_true(abs(area - 2600) < 200);
    /* A five-pointed star drawn as one self-intersecting path: even-odd
     * leaves the centre pentagon empty, the points filled. */
    vis_image_fill(g, vis_grey(0), &e);
    vis_point star[5];
    for (int i = 0; i < 5; i++) {
        double a = -PI / 2 + i * 4 * PI / 5;
        star[i] = (vis_point){50 + 40 * cos(a), 50 + 40 * sin(a)};
    }
    assert_int_equal(vis_draw_polygon(g, star, 5, vis_grey(255), VIS_FILLED, 1,
                                      0, &e), 0);
    assert_int_equal(px(g, 50, 50)[0], 0);
    assert_int_equal(px(g, 50, 15)[0], 255); /* top point */
    /* Outline only: open vs closed differ by the closing edge. */
    vis_image_fill(g, vis_grey(0), &e);
    vis_point tri[3] = {{10, 10}, {90, 10}, {10, 90}};
    assert_int_equal(vis_draw_polygon(g, tri, 3, vis_grey(255), 1, 0, 0, &e),
                     0);
    assert_int_equal(px(g, 10, 50)[0], 0); /* the closing edge is missing */
    assert_int_equal(px(g, 50, 10)[0], 255);
    assert_int_equal(px(g, 50, 50)[0], 255); /* the hypotenuse */
    assert_int_equal(px(g, 30, 30)[0], 0);   /* inside stays empty */
    assert_int_equal(vis_draw_polygon(g, tri, 3, vis_grey(255), 1, 1, 0, &e),
                     0);
    assert_int_equal(px(g, 10, 50)[0], 255);
    /* Sub-pixel coordinates move a filled edge. */
    vis_image *a = new_image(20, 20, 1, 0), *b = new_image(20, 20, 1, 0);
    vis_point sq1[4] = {{2, 2}, {12, 2}, {12, 12}, {2, 12}};
    vis_point sq2[4] = {{2, 2}, {12.6, 2}, {12.6, 12}, {2, 12}};
    assert_int_equal(vis_draw_polygon(a, sq1, 4, vis_grey(255), VIS_FILLED, 1,
                                      VIS_DRAW_AA, &e), 0);
    assert_int_equal(vis_draw_polygon(b, sq2, 4, vis_grey(255), VIS_FILLED, 1,
                                      VIS_DRAW_AA, &e), 0);
    assert_true(px(b, 13, 7)[0] > px(a, 13, 7)[0]);
    vis_image_free(a);
    vis_image_free(b);
    /* Bad input. */
    assert_int_equal(vis_draw_polygon(g, tri, 2, vis_grey(255), VIS_FILLED, 1,
                                      0, &e), BASE_EINVAL);
    assert_int_equal(vis_draw_polygon(g, NULL, 3, vis_grey(255), 1, 1, 0, &e),
                     BASE_EINVAL);
    vis_image_free(g);
}

static void test_blend_polygon(void **state)
{
    vis_image *img = new_image(60, 60, 3, 255);
    vis_point sq[4] = {{10, 10}, {40, 10}, {40, 40}, {10, 40}};
    base_err e;
    (void)state;
    assert_int_equal(vis_blend_polygon(img, sq, 4, vis_rgb(255, 0, 0), 0.5, 0,
                                       &e), 0);
    unsigned char *in = px(img, 25, 25), *out = px(img, 50, 50);
    assert_int_equal(in[2], 255);
    assert_true(abs(in[1] - 128) <= 1);
    assert_true(abs(in[0] - 128) <= 1);
    assert_int_equal(out[0], 255);
    assert_int_equal(out[1], 255);
    /* Blending twice moves further towards the colour. */
    assert_int_equal(vis_blend_polygon(img, sq, 4, vis_rgb(255, 0, 0), 0.5, 0,
                                       &e), 0);
    assert_true(abs(px(img, 25, 25)[1] - 64) <= 1);
    /* alpha 0 changes nothing, 1 paints; a polygon partly outside is
     * clipped, one fully outside is a no-op. */
    vis_image *before = NULL;
    assert_int_equal(vis_image_clone(img, &before, &e), 0);
    assert_int_equal(vis_blend_polygon(img, sq, 4, vis_rgb(0, 0, 255), 0.0, 0,
                                       &e), 0);
    assert_true(images_equal(img, before));
    vis_point off[4] = {{-50, -50}, {-10, -50}, {-10, -10}, {-50, -10}};
    assert_int_equal(vis_blend_polygon(img, off, 4, vis_rgb(0, 0, 255), 1.0, 0,
                                       &e), 0);
    assert_true(images_equal(img, before));
    vis_point edge[4] = {{50, 50}, {80, 50}, {80, 80}, {50, 80}};
    assert_int_equal(vis_blend_polygon(img, edge, 4, vis_rgb(0, 0, 255), 1.0,
                                       VIS_DRAW_AA, &e), 0);
    assert_int_equal(px(img, 55, 55)[0], 255);
    assert_int_equal(px(img, 55, 55)[2], 0);
    assert_int_equal(vis_blend_polygon(img, sq, 4, vis_rgb(0, 0, 255), 1.5, 0,
                                       &e), BASE_EINVAL);
    assert_non_null(strstr(e.msg, "alpha"));
    vis_image_free(before);
    vis_image_free(img);
}

/* ---- analysis ---- */

static void test_absdiff_and_stats(void **state)
{
    vis_image *a = new_image(30, 20, 3, 100), *b = new_image(30, 20, 3, 100),
              *d = NULL;
    base_err e;
    (void)state;
    px(b, 4, 5)[1] = 130;
    px(a, 7, 8)[2] = 60;
    assert_int_equal(vis_absdiff(a, b, &d, &e), 0);
    assert_int_equal(px(d, 4, 5)[1], 30);
    assert_int_equal(px(d, 7, 8)[2], 40);
    assert_int_equal(px(d, 0, 0)[0], 0);
    vis_image *small = new_image(10, 10, 3, 0);
    vis_image_free(d);
    d = NULL;
    assert_int_equal(vis_absdiff(a, small, &d, &e), BASE_EINVAL);
    assert_null(d);
    /* Stats: left half 50, right half 150 in channel 0. */
    for (int y = 0; y < 20; y++)
        for (int x = 0; x < 30; x++)
            px(a, x, y)[0] = x < 15 ? 50 : 150;
    double mean[3], sd[3];
    int count = 0;
    vis_point left[4] = {{0, 0}, {14, 0}, {14, 19}, {0, 19}};
    assert_int_equal(vis_polygon_stats(a, left, 4, mean, sd, &count, &e), 0);
    assert_true(fabs(mean[0] - 50) < 1e-9);
    assert_true(fabs(sd[0]) < 1e-9);
    assert_int_equal(count, 15 * 20);
    vis_point all[4] = {{0, 0}, {29, 0}, {29, 19}, {0, 19}};
    assert_int_equal(vis_polygon_stats(a, all, 4, mean, sd, &count, &e), 0);
    assert_true(fabs(mean[0] - 100) < 1e-9);
    assert_true(fabs(sd[0] - 50) < 1e-9);
    assert_true(fabs(mean[1] - 100) < 1);
    vis_point outside[3] = {{100, 100}, {120, 100}, {110, 120}};
    assert_int_equal(vis_polygon_stats(a, outside, 3, mean, sd, NULL, &e),
                     BASE_ERANGE);
    /* Grey image: channels 1 and 2 are 0. */
    vis_image *g = new_image(10, 10, 1, 42);
    assert_int_equal(vis_polygon_stats(g, all, 4, mean, sd, NULL, &e), 0);
    assert_true(fabs(mean[0] - 42) < 1e-9);
    assert_true(mean[1] == 0 && mean[2] == 0);
    vis_image_free(g);
    vis_image_free(small);
    vis_image_free(a);
    vis_image_free(b);
}

/* ---- video ---- */

static void test_video_round_trip(void **state)
{
    char *dir = th_tmpdir();
    char *path = th_path(dir, "clip.avi");
    char *missing = th_path(dir, "none.avi");
    vis_video_writer *w = NULL;
    vis_video *v = NULL;
    vis_image *frame = pattern_image(160, 120), *got = NULL;
    base_err e;
    (void)state;
    assert_int_equal(vis_video_writer_new(path, 160, 120, 10.0, &w, &e), 0);
    for (int i = 0; i < 5; i++) {
        px(frame, 0, 0)[0] = (unsigned char)i;
        assert_int_equal(vis_video_writer_write(w, frame, &e), 0);
    }
    vis_image *wrong = new_image(80, 60, 3, 0);
    assert_int_equal(vis_video_writer_write(w, wrong, &e), BASE_EINVAL);
    assert_non_null(strstr(e.msg, "160x120"));
    vis_image_free(wrong);
    vis_video_writer_free(w);
    assert_int_equal(vis_video_open_file(path, &v, &e), 0);
    int frames = 0, rc;
    while ((rc = vis_video_read(v, &got, &e)) == 0) {
        assert_int_equal(got->width, 160);
        assert_int_equal(got->channels, 3);
        assert_true(mean_abs_diff(got, frame) < 5.0);
        vis_image_free(got);
        got = NULL;
        frames++;
    }
    assert_int_equal(rc, BASE_EEOF);
    assert_int_equal(frames, 5);
    vis_video_free(v);
    v = NULL;
    assert_int_equal(vis_video_open_file(missing, &v, &e), BASE_ENOTFOUND);
    assert_non_null(strstr(e.msg, missing));
    assert_int_equal(vis_video_open_file(dir, &v, &e), BASE_EIO);
    assert_non_null(strstr(e.msg, dir));
    /* An image sequence reads as a video. */
    for (int i = 0; i < 3; i++) {
        char name[32];
        snprintf(name, sizeof name, "f%03d.png", i);
        char *fp = th_path(dir, name);
        px(frame, 0, 0)[1] = (unsigned char)(100 + i);
        assert_int_equal(vis_image_write(fp, frame, 0, &e), 0);
        free(fp);
    }
    char *pattern = th_path(dir, "f%03d.png");
    assert_int_equal(vis_video_open_file(pattern, &v, &e), 0);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(vis_video_read(v, &got, &e), 0);
        assert_int_equal(px(got, 0, 0)[1], 100 + i); /* PNG: exact */
        vis_image_free(got);
        got = NULL;
    }
    assert_int_equal(vis_video_read(v, &got, &e), BASE_EEOF);
    vis_video_free(v);
    v = NULL;
    free(pattern);
    pattern = th_path(dir, "g%03d.png");
    assert_int_equal(vis_video_open_file(pattern, &v, &e), BASE_ENOTFOUND);
    assert_non_null(strstr(e.msg, "g001.png"));
    free(pattern);
    pattern = th_path(dir, "f%s.png");
    assert_int_equal(vis_video_open_file(pattern, &v, &e), BASE_EINVAL);
    free(pattern);
    assert_int_equal(vis_video_writer_new(missing, 0, 120, 10, &w, &e),
                     BASE_EINVAL);
    char *mp4 = th_path(dir, "clip.mp4");
    assert_int_equal(vis_video_writer_new(mp4, 160, 120, 10, &w, &e),
                     BASE_EINVAL);
    assert_null(v);
    vis_video_free(NULL);
    vis_video_writer_free(NULL);
    vis_image_free(frame);
    th_rmtree(dir);
    free(mp4);
    free(path);
    free(missing);
    free(dir);
}

/* The benches run OpenCV on one thread to measure one core's time; the
 * setting holds, and a count below 1 means 1. */
static void test_threads(void **state)
{
    (void)state;
    int before = vis_cv_threads();
    vis_image *img = NULL, *out = NULL;
    vis_cv_set_threads(1);
    assert_int_equal(vis_cv_threads(), 1);
    assert_int_equal(vis_image_new(64, 48, 3, &img, NULL), 0);
    assert_int_equal(vis_gaussian_blur(img, 0, 2.0, &out, NULL), 0);
    vis_cv_set_threads(0);
    assert_int_equal(vis_cv_threads(), 1);
    vis_cv_set_threads(before);
    assert_int_equal(vis_cv_threads(), before);
    vis_image_free(img);
    vis_image_free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_image_new_clone_crop),
        cmocka_unit_test(test_image_bad_arguments),
        cmocka_unit_test(test_png_jpeg_files),
        cmocka_unit_test(test_file_errors),
        cmocka_unit_test(test_memory_codec),
        cmocka_unit_test(test_convert),
        cmocka_unit_test(test_resize_blur),
        cmocka_unit_test(test_homography_math),
        cmocka_unit_test(test_find_homography),
        cmocka_unit_test(test_warp),
        cmocka_unit_test(test_lens_points),
        cmocka_unit_test(test_lens_images),
        cmocka_unit_test(test_marker_bits_and_cells),
        cmocka_unit_test(test_aruco_detect_flat),
        cmocka_unit_test(test_aruco_detect_warped),
        cmocka_unit_test(test_charuco_calibration),
        cmocka_unit_test(test_draw_basic),
        cmocka_unit_test(test_draw_polygons),
        cmocka_unit_test(test_blend_polygon),
        cmocka_unit_test(test_absdiff_and_stats),
        cmocka_unit_test(test_video_round_trip),
        cmocka_unit_test(test_threads),
    };
    th_case_filter();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
