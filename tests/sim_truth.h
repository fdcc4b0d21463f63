/* tests/sim_truth.h: what the simulator's tests share: running a stream
 * to its end, reading a truth line's numbers and camera, projecting a
 * table point with the documented camera model (docs/sim.md), written
 * here independently of sim's own, and naming the colour a frame shows
 * there.  Include it after cmocka.h (it asserts). */
#ifndef TABLECAM_TESTS_SIM_TRUTH_H
#define TABLECAM_TESTS_SIM_TRUTH_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "sim.h"

typedef struct frames {
    int n;
    vis_image *img[256];
    char *truth[256];
} frames;

static inline void frames_run(const char *game, uint64_t seed, const sim_options *o, frames *f)
{
    sim_stream *s = NULL;
    base_err err;
    int rc = sim_stream_new(game, seed, o, &s, &err);
    if (rc)
        fail_msg("sim_stream_new: %s", err.msg);
    memset(f, 0, sizeof *f);
    while (f->n < 256) {
        rc = sim_stream_next(s, &f->img[f->n], &f->truth[f->n], &err);
        if (rc == BASE_EEOF)
            break;
        if (rc)
            fail_msg("sim_stream_next: %s", err.msg);
        f->n++;
    }
    assert_int_equal(sim_stream_frames(s), f->n);
    sim_stream_free(s);
}

static inline void frames_free(frames *f)
{
    for (int i = 0; i < f->n; i++) {
        vis_image_free(f->img[i]);
        free(f->truth[i]);
    }
    f->n = 0;
}

static inline bool same_image(const vis_image *a, const vis_image *b)
{
    if (a->width != b->width || a->height != b->height || a->channels != b->channels)
        return false;
    for (int y = 0; y < a->height; y++)
        if (memcmp(a->data + (size_t)y * (size_t)a->stride, b->data + (size_t)y * (size_t)b->stride,
                   (size_t)a->width * (size_t)a->channels) != 0)
            return false;
    return true;
}

/* The last frame of game's stream and its truth line, rendering only it:
 * the stream is first run without drawing to learn its length. */
static inline void last_frame_of(const char *game, uint64_t seed, const sim_options *o,
                                 vis_image **img, char **truth)
{
    sim_stream *s = NULL;
    base_err err;
    int n = 0, rc;
    if (sim_stream_new(game, seed, o, &s, &err) != 0)
        fail_msg("sim_stream_new: %s", err.msg);
    while ((rc = sim_stream_skip(s, 1, &err)) == 0)
        n++;
    if (rc != BASE_EEOF || n == 0)
        fail_msg("sim_stream_skip: %s", rc == BASE_EEOF ? "an empty stream" : err.msg);
    sim_stream_free(s);
    if (sim_stream_new(game, seed, o, &s, &err) != 0 || sim_stream_skip(s, n - 1, &err) != 0 ||
        sim_stream_next(s, img, truth, &err) != 0)
        fail_msg("the last frame of %s seed %llu: %s", game, (unsigned long long)seed, err.msg);
    sim_stream_free(s);
}

static inline double num(const cJSON *obj, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    assert_true(cJSON_IsNumber(v));
    return v->valuedouble;
}

static inline void nums(const cJSON *arr, double *out, int n)
{
    assert_true(cJSON_IsArray(arr));
    assert_int_equal(cJSON_GetArraySize(arr), n);
    for (int i = 0; i < n; i++)
        out[i] = cJSON_GetArrayItem(arr, i)->valuedouble;
}

/* The camera of a truth line, and a projection written here from the
 * documented model (docs/sim.md), independent of sim's own. */
typedef struct truth_cam {
    double R[9], C[3];
    vis_camera k;
} truth_cam;

static inline void truth_cam_read(const cJSON *truth, truth_cam *c)
{
    const cJSON *cam = cJSON_GetObjectItemCaseSensitive(truth, "camera");
    double d[5];
    assert_non_null(cam);
    nums(cJSON_GetObjectItemCaseSensitive(cam, "R"), c->R, 9);
    nums(cJSON_GetObjectItemCaseSensitive(cam, "position_mm"), c->C, 3);
    nums(cJSON_GetObjectItemCaseSensitive(cam, "dist"), d, 5);
    memset(&c->k, 0, sizeof c->k);
    c->k.fx = num(cam, "fx");
    c->k.fy = num(cam, "fy");
    c->k.cx = num(cam, "cx");
    c->k.cy = num(cam, "cy");
    for (int i = 0; i < 5; i++)
        c->k.dist[i] = d[i];
}

static inline vis_point project(const truth_cam *c, double x, double y, double z)
{
    double p[3] = {x - c->C[0], y - c->C[1], z - c->C[2]}, q[3];
    vis_point ideal, out;
    for (int i = 0; i < 3; i++)
        q[i] = c->R[3 * i] * p[0] + c->R[3 * i + 1] * p[1] + c->R[3 * i + 2] * p[2];
    assert_true(q[2] > 0);
    ideal.x = c->k.fx * q[0] / q[2] + c->k.cx;
    ideal.y = c->k.fy * q[1] / q[2] + c->k.cy;
    assert_int_equal(vis_distort_points(c->k, &ideal, &out, 1, NULL), 0);
    return out;
}

static inline int nearest_colour(double r, double g, double b)
{
    static const double ref_rgb[6][3] = {{0.80, 0.08, 0.08}, {0.95, 0.42, 0.05}, {0.93, 0.84, 0.10},
                                         {0.10, 0.58, 0.18}, {0.08, 0.28, 0.82}, {0.45, 0.13, 0.62}};
    double s = r + g + b, best = INFINITY;
    int bi = -1;
    if (s <= 0)
        return -1;
    for (int c = 0; c < 6; c++) {
        double rs = ref_rgb[c][0] + ref_rgb[c][1] + ref_rgb[c][2];
        double d = pow(r / s - ref_rgb[c][0] / rs, 2) + pow(g / s - ref_rgb[c][1] / rs, 2) +
                   pow(b / s - ref_rgb[c][2] / rs, 2);
        if (d < best) {
            best = d;
            bi = c;
        }
    }
    return bi;
}

/* The colour nearest the 3x3 pixels round where table point (x, y, z)
 * projects (their BGR sums into sum, the pixel into *u, *v). */
static inline int top_colour(const vis_image *img, const truth_cam *cam, double x, double y, double z,
                      double sum[3], int *u, int *v)
{
    vis_point c = project(cam, x, y, z);
    *u = (int)lround(c.x);
    *v = (int)lround(c.y);
    assert_true(*u >= 1 && *v >= 1 && *u < img->width - 1 && *v < img->height - 1);
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++)
            for (int ch = 0; ch < 3; ch++)
                sum[ch] += img->data[(size_t)(*v + dy) * (size_t)img->stride +
                                     (size_t)(*u + dx) * 3 + (size_t)ch];
    return nearest_colour(sum[2], sum[1], sum[0]); /* BGR */
}

#endif
