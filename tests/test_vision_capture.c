/* tests/test_vision_capture.c: the capture backends behind one interface:
 * file:, dir: (name order, frame times from :fps=), video:, the errors of
 * unknown kinds, missing files and cameras, and wrapped backends. */
#define _XOPEN_SOURCE 700
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "harness.h"

static void write_frame(const char *path, int shade)
{
    vis_image *img = NULL;
    assert_int_equal(vis_image_new(64, 48, 3, &img, NULL), 0);
    vis_image_fill(img, vis_grey((unsigned char)shade), NULL);
    assert_int_equal(vis_image_write(path, img, 0, NULL), 0);
    vis_image_free(img);
}

static void test_dir_in_name_order(void **state)
{
    char *dir = th_tmpdir(), spec[512];
    const char *names[] = {"frame-00002.png", "frame-00000.png", "frame-00001.png", "notes.txt"};
    vis_capture *c = NULL;
    base_err e;
    (void)state;
    for (int i = 0; i < 4; i++) {
        char *p = th_path(dir, names[i]);
        if (i < 3)
            write_frame(p, 10 + 100 * (names[i][10] - '0'));
        else
            th_write_file(p, "not a frame");
        free(p);
    }
    snprintf(spec, sizeof spec, "dir:%s:fps=4", dir);
    assert_int_equal(vis_capture_open(spec, &c, &e), 0);
    assert_string_equal(vis_capture_name(c), spec);
    assert_false(vis_capture_live(c));
    for (int k = 0; k < 3; k++) {
        vis_image *f = NULL;
        double t = -1;
        assert_int_equal(vis_capture_read(c, &f, &t, &e), 0);
        assert_int_equal(f->width, 64);
        /* frames 0, 1, 2 in order, a quarter second apart */
        assert_int_equal(f->data[0], 10 + 100 * k);
        assert_true(t > k * 0.25 - 1e-9 && t < k * 0.25 + 1e-9);
        vis_image_free(f);
    }
    {
        vis_image *f = NULL;
        assert_int_equal(vis_capture_read(c, &f, NULL, &e), BASE_EEOF);
        assert_null(f);
    }
    vis_capture_free(c);
    th_rmtree(dir);
    free(dir);
}

static void test_file_and_video(void **state)
{
    char *dir = th_tmpdir(), *png = th_path(dir, "one.png"), *avi = th_path(dir, "clip.avi");
    char spec[512];
    vis_capture *c = NULL;
    vis_image *f = NULL;
    vis_video_writer *vw = NULL;
    (void)state;
    write_frame(png, 77);
    snprintf(spec, sizeof spec, "file:%s", png);
    assert_int_equal(vis_capture_open(spec, &c, NULL), 0);
    assert_int_equal(vis_capture_read(c, &f, NULL, NULL), 0);
    assert_int_equal(f->data[0], 77);
    vis_image_free(f);
    assert_int_equal(vis_capture_read(c, &f, NULL, NULL), BASE_EEOF);
    vis_capture_free(c);

    /* A short video: every frame comes back, timed by :fps=. */
    assert_int_equal(vis_video_writer_new(avi, 64, 48, 10, &vw, NULL), 0);
    for (int i = 0; i < 5; i++) {
        vis_image *img = NULL;
        vis_image_new(64, 48, 3, &img, NULL);
        vis_image_fill(img, vis_grey((unsigned char)(40 * i)), NULL);
        assert_int_equal(vis_video_writer_write(vw, img, NULL), 0);
        vis_image_free(img);
    }
    vis_video_writer_free(vw);
    snprintf(spec, sizeof spec, "video:%s:fps=10", avi);
    assert_int_equal(vis_capture_open(spec, &c, NULL), 0);
    for (int i = 0; i < 5; i++) {
        double t;
        assert_int_equal(vis_capture_read(c, &f, &t, NULL), 0);
        assert_true(abs(f->data[0] - 40 * i) < 12); /* Motion-JPEG is lossy */
        assert_true(t > i * 0.1 - 1e-9 && t < i * 0.1 + 1e-9);
        vis_image_free(f);
    }
    assert_int_equal(vis_capture_read(c, &f, NULL, NULL), BASE_EEOF);
    vis_capture_free(c);
    th_rmtree(dir);
    free(png);
    free(avi);
    free(dir);
}

static void test_errors(void **state)
{
    vis_capture *c = NULL;
    base_err e;
    (void)state;
    assert_int_equal(vis_capture_open("webcam:0", &c, &e), BASE_EINVAL);
    assert_non_null(strstr(e.msg, "unknown kind"));
    assert_non_null(strstr(e.msg, "v4l2:/dev/videoN"));
    assert_int_equal(vis_capture_open("file:/nonexistent/frame.png", &c, &e), BASE_ENOTFOUND);
    assert_non_null(strstr(e.msg, "/nonexistent/frame.png"));
    assert_int_equal(vis_capture_open("dir:/nonexistent", &c, &e), BASE_ENOTFOUND);
    assert_int_equal(vis_capture_open("dir:/tmp:fps=-3", &c, &e), BASE_EINVAL);
    assert_non_null(strstr(e.msg, "fps"));
    assert_int_equal(vis_capture_open("v4l2:/dev/video97", &c, &e), BASE_ENODEV);
    assert_int_equal(vis_capture_open("v4l2:camera", &c, &e), BASE_EINVAL);
    /* size= is checked before the device is looked for, and only a live
     * camera takes it; fps= only a file. */
    assert_int_equal(vis_capture_open("v4l2:/dev/video97:size=1280x960", &c, &e), BASE_ENODEV);
    assert_non_null(strstr(e.msg, "/dev/video97"));
    assert_int_equal(vis_capture_open("v4l2:/dev/video97:size=1280", &c, &e), BASE_EINVAL);
    assert_non_null(strstr(e.msg, "WIDTHxHEIGHT"));
    assert_int_equal(vis_capture_open("v4l2:/dev/video97:size=20x10", &c, &e), BASE_EINVAL);
    assert_int_equal(vis_capture_open("v4l2:/dev/video97:size=1280x960x3", &c, &e), BASE_EINVAL);
    assert_int_equal(vis_capture_open("v4l2:/dev/video97:fps=5", &c, &e), BASE_EINVAL);
    assert_non_null(strstr(e.msg, "fps= is for files"));
    assert_int_equal(vis_capture_open("v4l2:/dev/video97:zoom=2", &c, &e), BASE_EINVAL);
    assert_non_null(strstr(e.msg, "unknown option 'zoom=2'"));
    assert_int_equal(vis_capture_open("v4l2:/dev/video9x", &c, &e), BASE_EINVAL);
    assert_int_equal(vis_capture_open("dir:/tmp:size=640x480", &c, &e), BASE_EINVAL);
    assert_non_null(strstr(e.msg, "size= is for live cameras"));
    assert_int_equal(vis_capture_open("dir:/tmp:fps=4:fps=x", &c, &e), BASE_EINVAL);
    assert_int_equal(vis_capture_open("libcamera:0:size=640", &c, &e), BASE_EINVAL);
    assert_non_null(strstr(e.msg, "WIDTHxHEIGHT"));
    assert_int_equal(vis_capture_open("libcamera:x", &c, &e), BASE_EINVAL);
    /* A camera the machine does not have (no machine has a 9000th; one
     * with cameras passes too): a clear error naming it, not a crash.
     * EUNSUPPORTED where tablecam was built without libcamera. */
    {
        int rc = vis_capture_open("libcamera:8999", &c, &e);
        assert_true(rc == BASE_ENODEV || rc == BASE_EUNSUPPORTED);
        assert_non_null(strstr(e.msg, "libcamera"));
        if (rc == BASE_ENODEV)
            assert_non_null(strstr(e.msg, "libcamera:8999: no such camera"));
        rc = vis_capture_open("libcamera:8999:size=1640x1232", &c, &e);
        assert_true(rc == BASE_ENODEV || rc == BASE_EUNSUPPORTED);
    }
    assert_null(c);
    {
        char *dir = th_tmpdir(), spec[512];
        snprintf(spec, sizeof spec, "dir:%s", dir);
        assert_int_equal(vis_capture_open(spec, &c, &e), BASE_ENOTFOUND);
        assert_non_null(strstr(e.msg, "no .png or .jpg"));
        th_rmtree(dir);
        free(dir);
    }
}

typedef struct counter {
    int n;
    int *closed;
} counter;

static int count_read(void *self, vis_image **frame, double *t, base_err *err)
{
    counter *c = self;
    if (c->n == 3)
        return base_err_set(err, BASE_EEOF, "end");
    *t = c->n++;
    return vis_image_new(8, 8, 3, frame, err);
}

static void count_close(void *self)
{
    counter *c = self;
    (*c->closed)++;
    free(c);
}

static void test_wrapped_backend(void **state)
{
    static const vis_capture_ops ops = {count_read, count_close, true};
    int closed = 0, frames = 0;
    counter *cnt = calloc(1, sizeof *cnt);
    vis_capture *c = NULL;
    vis_image *f;
    (void)state;
    cnt->closed = &closed;
    assert_int_equal(vis_capture_wrap(&ops, cnt, "test:", &c), 0);
    assert_true(vis_capture_live(c));
    while (vis_capture_read(c, &f, NULL, NULL) == 0) {
        frames++;
        vis_image_free(f);
    }
    assert_int_equal(frames, 3);
    vis_capture_free(c);
    assert_int_equal(closed, 1);
    vis_capture_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dir_in_name_order),
        cmocka_unit_test(test_file_and_video),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_wrapped_backend),
    };
    th_case_filter();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
