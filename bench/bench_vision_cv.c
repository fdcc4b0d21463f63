/* bench/bench_vision_cv.c: the OpenCV shim's speed on a 1280x960 frame,
 * the size of a table camera:
 *   - ArUco detection of the four mat markers (grey and BGR frames, full
 *     resolution and decimated by 2, see vis_aruco_set_decimate);
 *   - rectifying the mat by a homography to 1000x700;
 *   - one frame's mat step, detect (decimated by 2) + homography + warp:
 *     target under 40 ms, so that the referee keeps up with 10 frames a
 *     second on a small machine with time to spare for the recognisers;
 *   - a JPEG key frame encoded and decoded (the match store's format).
 * Each figure is the median of REPS wall-clock runs; the last line gives
 * the loop's wall and CPU time, because on a busy machine the wall figures
 * grow while the CPU ones do not. */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base.h"
#include "cv.h"

#define W 1280
#define H 960
#define REPS 30
#define STEP_TARGET_MS 40.0

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return v[n / 2];
}

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int fail(const char *what, const base_err *e)
{
    fprintf(stderr, "bench_vision_cv: %s: %s\n", what, e->msg);
    return 1;
}

/* A BGR frame: a mottled table, the white mat with markers 0..3 at its
 * corners and some coloured squares on it, seen at an angle. */
static int make_frame(vis_image **out, vis_point mat_px[4], base_err *e)
{
    vis_image *mat = NULL, *m = NULL, *frame = NULL;
    int rc;
    const int mw = 1000, mh = 700, side = 90, margin = 15;
    if ((rc = vis_image_new(mw, mh, 3, &mat, e)) ||
        (rc = vis_image_fill(mat, vis_grey(235), e)))
        goto done;
    for (int id = 0; id < 4; id++) {
        int x0 = (id == 1 || id == 2) ? mw - margin - side : margin;
        int y0 = (id >= 2) ? mh - margin - side : margin;
        if ((rc = vis_aruco_marker_bits(id, side, &m, e)))
            goto done;
        for (int y = 0; y < side; y++)
            for (int x = 0; x < side; x++) {
                unsigned char v = m->data[y * m->stride + x];
                unsigned char *p = mat->data + (size_t)(y0 + y) * mat->stride +
                                   (size_t)(x0 + x) * 3;
                p[0] = p[1] = p[2] = v;
            }
        vis_image_free(m);
        m = NULL;
    }
    for (int k = 0; k < 40; k++) {
        vis_point sq[4];
        double cx = 150 + (k % 8) * 95, cy = 150 + (k / 8) * 90;
        sq[0] = (vis_point){cx - 20, cy - 20};
        sq[1] = (vis_point){cx + 20, cy - 20};
        sq[2] = (vis_point){cx + 20, cy + 20};
        sq[3] = (vis_point){cx - 20, cy + 20};
        vis_color c = vis_rgb((unsigned char)(40 * k), (unsigned char)(90 + 30 * k),
                              (unsigned char)(200 - 5 * k));
        if ((rc = vis_draw_polygon(mat, sq, 4, c, VIS_FILLED, 1, VIS_DRAW_AA, e)))
            goto done;
    }
    if ((rc = vis_image_new(W, H, 3, &frame, e)))
        goto done;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            unsigned char *p = frame->data + (size_t)y * frame->stride + (size_t)x * 3;
            unsigned v = (unsigned)(x / 40 + y / 30) % 2 * 20;
            p[0] = (unsigned char)(60 + v);
            p[1] = (unsigned char)(80 + v);
            p[2] = (unsigned char)(110 + v);
        }
    vis_point corners[4] = {{0, 0}, {mw, 0}, {mw, mh}, {0, mh}};
    mat_px[0] = (vis_point){230, 160};
    mat_px[1] = (vis_point){1090, 190};
    mat_px[2] = (vis_point){1200, 860};
    mat_px[3] = (vis_point){120, 820};
    vis_homography h;
    if ((rc = vis_find_homography(corners, mat_px, 4, VIS_HOMOGRAPHY_LSQ, 0, NULL, &h,
                                  e)) ||
        (rc = vis_warp_perspective_onto(mat, h, frame, VIS_INTER_LINEAR, e)))
        goto done;
    *out = frame;
    frame = NULL;
done:
    vis_image_free(frame);
    vis_image_free(m);
    vis_image_free(mat);
    return rc;
}

int main(void)
{
    base_err e;
    vis_image *frame = NULL, *grey = NULL, *rect = NULL, *dec = NULL;
    vis_aruco *a = NULL, *a2 = NULL;
    vis_marker ms[16];
    vis_point mat_px[4];
    int n = 0;
    /* wall and CPU milliseconds of each operation, each run */
    enum { GREY, BGR, GREY2, WARP, STEP, ENC, DEC, NOPS };
    static const char *const names[NOPS] = {
        "aruco detect 1280x960 grey",    "aruco detect 1280x960 BGR",
        "aruco detect grey, decimate 2", "warp to 1000x700",
        "mat step (detect+homogr.+warp)", "JPEG q90 encode 1280x960",
        "JPEG decode 1280x960"};
    double wall_ms[NOPS][REPS], cpu_ms[NOPS][REPS];
    size_t jpeg_len = 0;

    if (make_frame(&frame, mat_px, &e))
        return fail("making the frame", &e);
    if (vis_convert(frame, VIS_BGR2GRAY, &grey, &e))
        return fail("grey", &e);
    if (vis_aruco_new(VIS_ARUCO_4X4_50, &a, &e) ||
        vis_aruco_new(VIS_ARUCO_4X4_50, &a2, &e) || vis_aruco_set_decimate(a2, 2, &e))
        return fail("detector", &e);

    double wall0 = base_now(), cpu0 = cpu_now();
    for (int r = 0; r < REPS; r++) {
        double t0 = base_now(), c0 = cpu_now();
        if (vis_aruco_detect(a, grey, ms, 16, &n, &e))
            return fail("detect grey", &e);
        double t1 = base_now(), c1 = cpu_now();
        if (n != 4) {
            fprintf(stderr, "bench_vision_cv: found %d markers, expected 4\n", n);
            return 1;
        }
        if (vis_aruco_detect(a, frame, ms, 16, &n, &e))
            return fail("detect bgr", &e);
        double t1b = base_now(), c1b = cpu_now();
        if (vis_aruco_detect(a2, grey, ms, 16, &n, &e))
            return fail("detect grey decimated", &e);
        double t2 = base_now(), c2 = cpu_now();
        if (vis_aruco_detect(a2, frame, ms, 16, &n, &e))
            return fail("detect bgr decimated", &e);
        if (n != 4) {
            fprintf(stderr, "bench_vision_cv: decimated: %d markers, expected 4\n", n);
            return 1;
        }
        /* The mat step: markers -> homography (marker outer corners to mat
         * millimetres) -> rectified 1000x700 view. */
        vis_point img_pts[16], mat_pts[16];
        for (int i = 0; i < 4 && i < n; i++)
            for (int k = 0; k < 4; k++) {
                img_pts[i * 4 + k] = ms[i].corners[k];
                double x0 = (ms[i].id == 1 || ms[i].id == 2) ? 895 : 15;
                double y0 = ms[i].id >= 2 ? 595 : 15;
                mat_pts[i * 4 + k] = (vis_point){x0 + ((k == 1 || k == 2) ? 90 : 0),
                                                 y0 + (k >= 2 ? 90 : 0)};
            }
        vis_homography h;
        if (vis_find_homography(img_pts, mat_pts, 16, VIS_HOMOGRAPHY_RANSAC, 2.0, NULL,
                                &h, &e))
            return fail("homography", &e);
        double t3 = base_now(), c3 = cpu_now();
        if (vis_warp_perspective(frame, h, 1000, 700, VIS_INTER_LINEAR, vis_grey(0),
                                 &rect, &e))
            return fail("warp", &e);
        double t4 = base_now(), c4 = cpu_now();
        unsigned char *buf = NULL;
        if (vis_image_encode(frame, VIS_FORMAT_JPEG, 90, &buf, &jpeg_len, &e))
            return fail("encode", &e);
        double t5 = base_now(), c5 = cpu_now();
        if (vis_image_decode(buf, jpeg_len, 3, &dec, &e))
            return fail("decode", &e);
        double t6 = base_now(), c6 = cpu_now();
        vis_buffer_free(buf);
        vis_image_free(rect);
        vis_image_free(dec);
        rect = dec = NULL;
#define BENCH_OP(op, a, b)                                                       \
    (wall_ms[op][r] = (t##b - t##a) * 1e3, cpu_ms[op][r] = (c##b - c##a) * 1e3)
        BENCH_OP(GREY, 0, 1);
        BENCH_OP(BGR, 1, 1b);
        BENCH_OP(GREY2, 1b, 2);
        BENCH_OP(WARP, 3, 4);
        BENCH_OP(STEP, 2, 4);
        BENCH_OP(ENC, 4, 5);
        BENCH_OP(DEC, 5, 6);
#undef BENCH_OP
    }
    double wall = base_now() - wall0, cpu = cpu_now() - cpu0;
    char head[40];
    snprintf(head, sizeof head, "median of %d runs", REPS);
    printf("%-32s %9s %9s\n", head, "wall ms", "CPU ms");
    for (int op = 0; op < NOPS; op++)
        printf("%-32s %9.2f %9.2f\n", names[op], median(wall_ms[op], REPS),
               median(cpu_ms[op], REPS));
    double step = median(wall_ms[STEP], REPS);
    printf("mat step: %.2f ms wall, target < %.0f ms: %s\n", step, STEP_TARGET_MS,
           step < STEP_TARGET_MS ? "ok" : "MISSED");
    printf("(JPEG key frame: %zu bytes)\n", jpeg_len);
    printf("loop: %.2f s wall, %.2f s CPU (OpenCV may use several threads; CPU "
           "well below wall means a busy machine and inflated figures)\n",
           wall, cpu);
    vis_aruco_free(a);
    vis_aruco_free(a2);
    vis_image_free(grey);
    vis_image_free(frame);
    return 0;
}
