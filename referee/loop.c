/* referee/loop.c: the live loop (see referee.h). */
#define _POSIX_C_SOURCE 200809L
#include "referee.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define REF__MOTION_W 160
#define REF__MOTION_H 120
#define REF__MOTION_DIFF 14 /* grey levels that count as a change */
#define REF__MAXQ 32

enum { REF__CMD_SIGNAL, REF__CMD_UNDO, REF__CMD_CORRECT };

typedef struct ref__cmd {
    int kind, player;
    rules_move move;
} ref__cmd;

struct ref_loop {
    ref_loop_config cfg;
    ref_still still;
    atomic_bool stop;
    pthread_mutex_t mu;
    ref__cmd *queue;
    int nq;
    ref_loop_stats stats;
    ref_reading *reading;
    vis_image *prev;     /* the last frame, small and grey */
    double last_overlay;
};

int ref_loop_new(const ref_loop_config *cfg, ref_loop **out, base_err *err)
{
    ref_loop *l;
    *out = NULL;
    if (!cfg || !cfg->camera || !cfg->reader || !cfg->referee)
        return base_err_set(err, BASE_EINVAL, "ref_loop_new: camera, reader and referee needed");
    if (!(l = calloc(1, sizeof *l)))
        return base_err_set(err, BASE_ENOMEM, "out of memory");
    l->cfg = *cfg;
    ref_still_init(&l->still, &cfg->still);
    l->queue = malloc(sizeof *l->queue * REF__MAXQ);
    l->reading = malloc(sizeof *l->reading);
    if (!l->queue || !l->reading) {
        free(l->queue);
        free(l->reading);
        free(l);
        return base_err_set(err, BASE_ENOMEM, "out of memory");
    }
    pthread_mutex_init(&l->mu, NULL);
    atomic_init(&l->stop, false);
    l->last_overlay = -1e9;
    *out = l;
    return 0;
}

void ref_loop_free(ref_loop *l)
{
    if (!l)
        return;
    pthread_mutex_destroy(&l->mu);
    vis_image_free(l->prev);
    free(l->queue);
    free(l->reading);
    free(l);
}

void ref_loop_stop(ref_loop *l) { atomic_store(&l->stop, true); }

static int ref__post(ref_loop *l, int kind, int player, const rules_move *m)
{
    int rc = 0;
    pthread_mutex_lock(&l->mu);
    if (l->nq == REF__MAXQ) {
        rc = BASE_EBUSY;
    } else {
        ref__cmd *c = &l->queue[l->nq++];
        c->kind = kind;
        c->player = player;
        if (m)
            c->move = *m;
    }
    pthread_mutex_unlock(&l->mu);
    return rc;
}

int ref_loop_post_signal(ref_loop *l, int player, const rules_move *m)
{
    return ref__post(l, REF__CMD_SIGNAL, player, m);
}
int ref_loop_post_undo(ref_loop *l) { return ref__post(l, REF__CMD_UNDO, -1, NULL); }
int ref_loop_post_correct(ref_loop *l, const rules_move *m)
{
    return ref__post(l, REF__CMD_CORRECT, -1, m);
}

void ref_loop_stats_get(ref_loop *l, ref_loop_stats *out)
{
    pthread_mutex_lock(&l->mu);
    *out = l->stats;
    pthread_mutex_unlock(&l->mu);
}

/* Carries out the queued actions; their outcomes reach the players as the
 * referee's events (an illegal signal is announced as such). */
static void ref__drain(ref_loop *l)
{
    ref__cmd cmd;
    for (;;) {
        base_err e;
        pthread_mutex_lock(&l->mu);
        if (l->nq == 0) {
            pthread_mutex_unlock(&l->mu);
            return;
        }
        cmd = l->queue[0];
        memmove(l->queue, l->queue + 1, sizeof *l->queue * (size_t)--l->nq);
        pthread_mutex_unlock(&l->mu);
        if (cmd.kind == REF__CMD_SIGNAL)
            ref_signal(l->cfg.referee, cmd.player, &cmd.move, &e);
        else if (cmd.kind == REF__CMD_UNDO)
            ref_undo(l->cfg.referee, &e);
        else
            ref_correct_last(l->cfg.referee, &cmd.move, &e);
    }
}

/* The share of a small grey copy of the frame that changed since the last
 * frame: cheap enough for every frame. */
static double ref__motion(ref_loop *l, const vis_image *frame)
{
    vis_image *small = NULL, *grey = NULL;
    double m = 1.0;
    if (vis_resize(frame, REF__MOTION_W, REF__MOTION_H, VIS_INTER_AREA, &small, NULL) != 0 ||
        vis_convert(small, VIS_BGR2GRAY, &grey, NULL) != 0) {
        vis_image_free(small);
        return 1.0;
    }
    vis_image_free(small);
    if (l->prev) {
        int changed = 0;
        for (int y = 0; y < REF__MOTION_H; y++)
            for (int x = 0; x < REF__MOTION_W; x++) {
                int a = grey->data[y * grey->stride + x], b = l->prev->data[y * l->prev->stride + x];
                changed += abs(a - b) > REF__MOTION_DIFF;
            }
        m = (double)changed / (REF__MOTION_W * REF__MOTION_H);
    }
    vis_image_free(l->prev);
    l->prev = grey;
    return m;
}

/* The frame with the pieces read drawn over it, as JPEG, for the web
 * app's live view. */
static void ref__overlay(ref_loop *l, const vis_image *frame, const ref_reading *rd)
{
    vis_image *img = NULL;
    cal_mat_fit fit;
    unsigned char *jpeg = NULL;
    size_t len = 0;
    if (!l->cfg.on_frame || vis_image_clone(frame, &img, NULL) != 0)
        return;
    if (rd && ref_reader_fit(l->cfg.reader, &fit)) {
        vis_homography top;
        if (cal_mat_plane(&fit, NULL, 20, &top, NULL) == 0)
            for (int i = 0; i < rd->n; i++) {
                vis_point c = vis_homography_apply(top, (vis_point){rd->x_mm[i], rd->y_mm[i]});
                vis_color col = rd->conf[i] >= 0.5f ? vis_rgb(40, 220, 80) : vis_rgb(240, 180, 0);
                vis_draw_circle(img, c, 0.012 * img->width, col, 2, VIS_DRAW_AA, NULL);
            }
    }
    if (rd && rd->hand)
        vis_draw_text(img, "hand over the board", (vis_point){10, 30}, 0.8, vis_rgb(255, 60, 60),
                      2, VIS_DRAW_AA, NULL);
    if (vis_image_encode(img, VIS_FORMAT_JPEG, 75, &jpeg, &len, NULL) == 0)
        l->cfg.on_frame(l->cfg.ctx, jpeg, len);
    vis_buffer_free(jpeg);
    vis_image_free(img);
}

static void ref__sleep_until(double t)
{
    double d = t - base_now();
    if (d > 0) {
        struct timespec ts = {(time_t)d, (long)((d - (time_t)d) * 1e9)};
        nanosleep(&ts, NULL);
    }
}

/* A still table: read it and let the referee judge the change. */
static void ref__read(ref_loop *l, const vis_image *frame, double t)
{
    ref_reading *rd = l->reading;
    unsigned char *jpeg = NULL;
    size_t len = 0;
    base_err e;
    double t0 = base_now();
    int rc = ref_reader_read(l->cfg.reader, frame, rd, &e);
    (void)t;
    pthread_mutex_lock(&l->mu);
    l->stats.readings++;
    if (rc != 0)
        l->stats.mat_missing++;
    else if (rd->hand)
        l->stats.hands++;
    pthread_mutex_unlock(&l->mu);
    if (rc == 0 && !rd->hand) {
        ref_view v;
        vis_image_encode(frame, VIS_FORMAT_JPEG, 80, &jpeg, &len, NULL);
        v.pieces = rd->pieces;
        v.conf = rd->conf;
        v.n = rd->n;
        v.mover = -1;
        v.jpeg = jpeg;
        v.jpeg_len = len;
        ref_observe(l->cfg.referee, &v, &e);
        vis_buffer_free(jpeg);
    }
    {
        double ms = (base_now() - t0) * 1000;
        pthread_mutex_lock(&l->mu);
        l->stats.last_latency_ms = ms;
        if (ms > l->stats.max_latency_ms)
            l->stats.max_latency_ms = ms;
        pthread_mutex_unlock(&l->mu);
    }
    ref__overlay(l, frame, rc == 0 ? rd : NULL);
    l->last_overlay = base_now();
}

int ref_loop_run(ref_loop *l, base_err *err)
{
    double start = base_now();
    vis_image *last = NULL;
    double last_t = 0;
    bool pending = false; /* the last frames were still but not yet read */
    int rc = 0;

    while (!atomic_load(&l->stop)) {
        vis_image *frame = NULL;
        double t = 0, motion;
        ref__drain(l);
        if (l->cfg.on_tick)
            l->cfg.on_tick(l->cfg.ctx);
        rc = vis_capture_read(l->cfg.camera, &frame, &t, err);
        if (rc == BASE_EEOF) {
            rc = 0;
            /* A file ends on a still table: read what it shows. */
            if (pending && last)
                ref__read(l, last, last_t);
            break;
        }
        if (rc != 0)
            break;
        if (l->cfg.realtime && !vis_capture_live(l->cfg.camera))
            ref__sleep_until(start + t);
        pthread_mutex_lock(&l->mu);
        l->stats.frames++;
        pthread_mutex_unlock(&l->mu);
        motion = ref__motion(l, frame);
        BASE_DEBUG("referee", "frame %d t=%.3f motion=%.4f", l->stats.frames, t, motion);
        if (ref_still_feed(&l->still, t, motion, false)) {
            ref__read(l, frame, t);
            pending = false;
        } else {
            pending = l->still.still_since >= 0 && !l->still.fired;
            if (l->cfg.overlay_every_s > 0 && base_now() - l->last_overlay >= l->cfg.overlay_every_s) {
                ref__overlay(l, frame, NULL);
                l->last_overlay = base_now();
            }
        }
        vis_image_free(last);
        last = frame;
        last_t = t;
    }
    ref__drain(l);
    vis_image_free(last);
    return rc;
}
