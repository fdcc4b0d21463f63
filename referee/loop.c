/* referee/loop.c: the live loop (see referee.h). */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define REF__MOTION_W 160
#define REF__MOTION_H 120
#define REF__MOTION_DIFF 14 /* grey levels that count as a change */
#define REF__MAXQ 32
#define REF__FUSE 3 /* still frames read and combined per still period */
#define REF__SEEN 9  /* readings whose camera measures give the advice (3 still periods) */
/* the ring round a piece asked about: its radius, a share of the frame's
 * width (38 px at 1280, two cubes across at 0.8 px/mm) */
#define REF__ASK_RING 0.03
/* A side names the mover when it holds this many moving pixels (of the
 * 160x120 motion image, over the stretch) and this share of all beyond the
 * play area. */
#define REF__MOVER_VOTES 40
#define REF__MOVER_SHARE 0.7
/* Cards: a moving table is read at most this often (camera seconds) for
 * the referee's glimpses (ref_glimpse). */
#define REF__GLIMPSE_EVERY 0.1

enum { REF__CMD_SIGNAL, REF__CMD_UNDO, REF__CMD_CORRECT, REF__CMD_ANSWER };

typedef struct ref__cmd {
    int kind, player; /* ANSWER: player is the question's id, */
    int answer;       /* ... this the answer */
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
    ref_reading *reading;       /* the combined reading */
    ref_reading *acc;           /* REF__FUSE readings of one still period */
    int nacc;
    ref_reading *glimpse;       /* a reading of the moving table */
    double last_glimpse;        /* its camera time */
    bool gave_up;        /* this still period showed a hand or no mat: read no more */
    long side_votes[4];  /* moving pixels beyond each side since the last judgement */
    vis_image *prev;     /* the last frame, small and grey */
    double last_overlay;
    /* the last REF__SEEN readings' measures of how well the camera sees
     * (the blur from those that fitted one: not the cards') */
    double seen_ppm[REF__SEEN], seen_blur[REF__SEEN];
    int nseen, nblur;
};

int ref_loop_new(const ref_loop_config *cfg, ref_loop **out, base_err *err)
{
    ref_loop *l;
    *out = NULL;
    if (!cfg || !cfg->camera || !cfg->reader)
        return base_err_set(err, BASE_EINVAL, "ref_loop_new: camera and reader needed");
    if (!(l = calloc(1, sizeof *l)))
        return base_err_set(err, BASE_ENOMEM, "out of memory");
    l->cfg = *cfg;
    ref_still_init(&l->still, &cfg->still);
    l->queue = malloc(sizeof *l->queue * REF__MAXQ);
    l->reading = malloc(sizeof *l->reading);
    l->acc = malloc(sizeof *l->acc * REF__FUSE);
    l->glimpse = malloc(sizeof *l->glimpse);
    if (!l->queue || !l->reading || !l->acc || !l->glimpse) {
        free(l->queue);
        free(l->reading);
        free(l->acc);
        free(l->glimpse);
        free(l);
        return base_err_set(err, BASE_ENOMEM, "out of memory");
    }
    pthread_mutex_init(&l->mu, NULL);
    atomic_init(&l->stop, false);
    l->last_overlay = -1e9;
    l->last_glimpse = -1e9;
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
    free(l->acc);
    free(l->glimpse);
    free(l);
}

void ref_loop_stop(ref_loop *l) { atomic_store(&l->stop, true); }

static int ref__post(ref_loop *l, int kind, int player, const rules_move *m, int answer)
{
    int rc = 0;
    pthread_mutex_lock(&l->mu);
    if (l->nq == REF__MAXQ) {
        rc = BASE_EBUSY;
    } else {
        ref__cmd *c = &l->queue[l->nq++];
        c->kind = kind;
        c->player = player;
        c->answer = answer;
        if (m)
            c->move = *m;
    }
    pthread_mutex_unlock(&l->mu);
    return rc;
}

int ref_loop_post_signal(ref_loop *l, int player, const rules_move *m)
{
    return ref__post(l, REF__CMD_SIGNAL, player, m, 0);
}
int ref_loop_post_undo(ref_loop *l) { return ref__post(l, REF__CMD_UNDO, -1, NULL, 0); }
int ref_loop_post_correct(ref_loop *l, const rules_move *m)
{
    return ref__post(l, REF__CMD_CORRECT, -1, m, 0);
}
int ref_loop_post_answer(ref_loop *l, int id, int answer)
{
    return ref__post(l, REF__CMD_ANSWER, id, NULL, answer);
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
        else if (cmd.kind == REF__CMD_ANSWER) {
            if (ref_answer(l->cfg.referee, cmd.player, cmd.answer, &e) != 0)
                BASE_WARN("referee", "answer %d to question %d: %s", cmd.answer, cmd.player,
                          e.msg);
        } else
            ref_correct_last(l->cfg.referee, &cmd.move, &e);
    }
}

/* Whose hand it is: the arm reaches over the table from the player's
 * side, so the moving pixels beyond the play area vote for the side they
 * lie on (ref_reader_side), over the whole stretch of motion before a
 * still table. */
static void ref__vote_sides(ref_loop *l, const vis_image *grey, int fw, int fh)
{
    for (int y = 0; y < REF__MOTION_H; y++)
        for (int x = 0; x < REF__MOTION_W; x++) {
            int a = grey->data[y * grey->stride + x], b = l->prev->data[y * l->prev->stride + x];
            int side;
            if (abs(a - b) <= REF__MOTION_DIFF)
                continue;
            side = ref_reader_side(l->cfg.reader, (x + 0.5) * fw / REF__MOTION_W,
                                   (y + 0.5) * fh / REF__MOTION_H);
            if (side >= 0)
                l->side_votes[side]++;
        }
}

/* The seat the votes point to: one side clearly ahead, with a player on
 * it (seat k sits on side k); -1 when nobody can tell. */
static int ref__mover(const ref_loop *l)
{
    rules_status st;
    long total = 0;
    int best = 0;
    rules_game_status(ref_game(l->cfg.referee), &st);
    for (int k = 0; k < 4; k++) {
        total += l->side_votes[k];
        if (l->side_votes[k] > l->side_votes[best])
            best = k;
    }
    if (total < REF__MOVER_VOTES || l->side_votes[best] < REF__MOVER_SHARE * total ||
        best >= st.nplayers)
        return -1;
    return best;
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
        if (m > l->still.cfg.motion)
            ref__vote_sides(l, grey, frame->width, frame->height);
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
    ref_question q;
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
    if (l->cfg.referee && ref_question_open(l->cfg.referee, &q) && q.has_xy &&
        ref_reader_fit(l->cfg.reader, &fit)) {
        /* the piece the players are asked about, ringed and marked */
        vis_homography top;
        if (cal_mat_plane(&fit, NULL, 20, &top, NULL) == 0) {
            vis_point c = vis_homography_apply(top, (vis_point){q.x_mm, q.y_mm});
            double rad = REF__ASK_RING * img->width;
            vis_draw_circle(img, c, rad, vis_rgb(255, 40, 200), 4, VIS_DRAW_AA, NULL);
            vis_draw_text(img, "?", (vis_point){c.x + rad, c.y - rad}, 1.2, vis_rgb(255, 40, 200),
                          3, VIS_DRAW_AA, NULL);
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

/* ---- reading a still table, over a few frames ---- */

/* The same board read on REF__FUSE successive still frames: noise and
 * flicker differ from frame to frame, so a piece counts when most
 * readings see it.  Each reading of a piece is a small distribution over
 * what it is (the reading itself with its confidence, its alternatives
 * with theirs); the distributions are averaged over the frames, so a cell
 * seen by 2 of 3 keeps at most 2/3 of the confidence, and the likeliest
 * identity wins with the others kept as alternatives. */
typedef struct ref__cand {
    rules_piece p;
    float w;
} ref__cand;

static void ref__cand_add(ref__cand *c, int *n, int cap, const rules_piece *p, float w)
{
    for (int i = 0; i < *n; i++)
        if (ref__same_piece(&c[i].p, p)) {
            c[i].w += w;
            return;
        }
    if (*n < cap) {
        c[*n].p = *p;
        c[*n].w = w;
        (*n)++;
    }
}

static void ref__fuse(ref_loop *l, ref_reading *out)
{
    const ref_reading *r0 = &l->acc[0];
    int dx[REF__FUSE] = {0}, dy[REF__FUSE] = {0};
    *out = *r0;
    out->n = 0;
    /* align each reading to the first by the translation most pieces agree on */
    for (int k = 1; k < l->nacc; k++) {
        const ref_reading *rk = &l->acc[k];
        int best = -1;
        for (int i = 0; i < r0->n; i++)
            for (int j = 0; j < rk->n; j++) {
                int tx = r0->pieces[i].x - rk->pieces[j].x, ty = r0->pieces[i].y - rk->pieces[j].y;
                int votes = 0;
                if (tx == dx[k] && ty == dy[k] && best >= 0)
                    continue;
                for (int a = 0; a < r0->n; a++)
                    for (int b = 0; b < rk->n; b++)
                        if (rk->pieces[b].x + tx == r0->pieces[a].x &&
                            rk->pieces[b].y + ty == r0->pieces[a].y) {
                            votes++;
                            break;
                        }
                if (votes > best || (votes == best && tx == 0 && ty == 0)) {
                    best = votes;
                    dx[k] = tx;
                    dy[k] = ty;
                }
            }
    }
    /* every cell any reading saw, once */
    for (int k = 0; k < l->nacc; k++)
        for (int j = 0; j < l->acc[k].n; j++) {
            const rules_piece *p = &l->acc[k].pieces[j];
            int x = p->x + dx[k], y = p->y + dy[k], seen = 0, nc = 0, best = 0;
            ref__cand cand[REF__FUSE * (1 + REF_MAX_ALT)];
            ref_alts *alt = &out->alt[out->n];
            bool done = false;
            for (int i = 0; i < out->n && !done; i++)
                done = out->pieces[i].x == x && out->pieces[i].y == y;
            if (done || out->n >= REF_MAX_READ)
                continue;
            for (int q = 0; q < l->nacc; q++)
                for (int m = 0; m < l->acc[q].n; m++) {
                    const rules_piece *o = &l->acc[q].pieces[m];
                    const ref_alts *oa = &l->acc[q].alt[m];
                    float c = l->acc[q].conf[m] > 0.02f ? l->acc[q].conf[m] : 0.02f;
                    if (o->x + dx[q] != x || o->y + dy[q] != y)
                        continue;
                    seen++;
                    ref__cand_add(cand, &nc, (int)(sizeof cand / sizeof cand[0]), o, c);
                    for (int a = 0; a < oa->n; a++)
                        ref__cand_add(cand, &nc, (int)(sizeof cand / sizeof cand[0]), &oa->p[a],
                                      c * oa->w[a]);
                    break;
                }
            if (2 * seen <= l->nacc || nc == 0)
                continue; /* a minority saw it */
            for (int c = 1; c < nc; c++)
                if (cand[c].w > cand[best].w)
                    best = c;
            out->pieces[out->n] = cand[best].p;
            out->pieces[out->n].x = (int16_t)x;
            out->pieces[out->n].y = (int16_t)y;
            out->conf[out->n] = cand[best].w / (float)l->nacc;
            alt->n = 0;
            /* the runners-up, likeliest first */
            while (alt->n < REF_MAX_ALT) {
                int nx = -1;
                for (int c = 0; c < nc; c++)
                    if (c != best && cand[c].w > 0 && (nx < 0 || cand[c].w > cand[nx].w))
                        nx = c;
                if (nx < 0)
                    break;
                alt->p[alt->n] = cand[nx].p;
                alt->p[alt->n].x = (int16_t)x;
                alt->p[alt->n].y = (int16_t)y;
                alt->w[alt->n++] = cand[nx].w / cand[best].w;
                cand[nx].w = 0;
            }
            out->duplicate[out->n] = l->acc[k].duplicate[j];
            out->x_mm[out->n] = l->acc[k].x_mm[j];
            out->y_mm[out->n] = l->acc[k].y_mm[j];
            out->n++;
        }
}

/* Cards: the moving table read now and then; what it shows while the
 * hand is away from the cards (a player lays a card, reaches back, then
 * takes the square it completed) tells the referee which card it was
 * when no still table shows it. */
static void ref__glimpse(ref_loop *l, const vis_image *frame, double t)
{
    ref_reading *rd = l->glimpse;
    ref_view v;
    if (strcmp(rules_game_id(ref_game(l->cfg.referee)), "cards") != 0 ||
        t - l->last_glimpse < REF__GLIMPSE_EVERY)
        return;
    l->last_glimpse = t;
    if (ref_reader_read(l->cfg.reader, frame, rd, NULL) != 0 || rd->hand || rd->n == 0)
        return;
    memset(&v, 0, sizeof v);
    v.pieces = rd->pieces;
    v.conf = rd->conf;
    v.alt = rd->alt;
    v.n = rd->n;
    v.mover = -1;
    ref_glimpse(l->cfg.referee, &v);
}

/* The fused reading goes to the referee. */
static void ref__judge(ref_loop *l, const vis_image *frame, double t0)
{
    ref_reading *rd = l->reading;
    unsigned char *jpeg = NULL;
    size_t len = 0;
    ref_view v;
    base_err e;
    ref__fuse(l, rd);
    vis_image_encode(frame, VIS_FORMAT_JPEG, 80, &jpeg, &len, NULL);
    v.pieces = rd->pieces;
    v.conf = rd->conf;
    v.alt = rd->alt;
    v.n = rd->n;
    v.mover = ref__mover(l);
    memset(l->side_votes, 0, sizeof l->side_votes);
    v.jpeg = jpeg;
    v.jpeg_len = len;
    v.x_mm = rd->x_mm;
    v.y_mm = rd->y_mm;
    ref_observe(l->cfg.referee, &v, &e);
    vis_buffer_free(jpeg);
    {
        double ms = (base_now() - t0) * 1000;
        pthread_mutex_lock(&l->mu);
        l->stats.last_latency_ms = ms;
        if (ms > l->stats.max_latency_ms)
            l->stats.max_latency_ms = ms;
        pthread_mutex_unlock(&l->mu);
    }
    ref__overlay(l, frame, rd);
    l->last_overlay = base_now();
    l->nacc = 0;
}

static double ref__median(const double *v, int n)
{
    double s[REF__SEEN];
    memcpy(s, v, sizeof *s * (size_t)n);
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && s[j - 1] > s[j]; j--) {
            double t = s[j];
            s[j] = s[j - 1];
            s[j - 1] = t;
        }
    return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

/* Keeps how well the camera sees (the blur is fitted per reading and
 * varies a step either way, so the advice follows the median of the last
 * few) for the stats and their advice. */
static void ref__seen(ref_loop *l, const ref_reading *rd)
{
    int n, nb;
    double ppm, blur;
    if (!(rd->cam_px_per_mm > 0))
        return;
    l->seen_ppm[l->nseen % REF__SEEN] = rd->cam_px_per_mm;
    l->nseen++;
    if (rd->blur_mm > 0)
        l->seen_blur[l->nblur++ % REF__SEEN] = rd->blur_mm;
    n = l->nseen < REF__SEEN ? l->nseen : REF__SEEN;
    nb = l->nblur < REF__SEEN ? l->nblur : REF__SEEN;
    ppm = ref__median(l->seen_ppm, n);
    blur = nb > 0 ? ref__median(l->seen_blur, nb) : 0;
    pthread_mutex_lock(&l->mu);
    l->stats.cam_px_per_mm = ppm;
    l->stats.blur_mm = blur;
    ref_camera_seen seen = ref_reading_seen(rd);
    seen.px_per_mm = ppm;
    seen.blur_mm = blur;
    if (n < 3 || !l->cfg.referee ||
        !ref_camera_advice(rules_game_id(ref_game(l->cfg.referee)), seen, l->stats.advice,
                           sizeof l->stats.advice))
        l->stats.advice[0] = '\0';
    pthread_mutex_unlock(&l->mu);
}

/* One still frame read into the next slot.  A hand over the board or no
 * mat ends this still period's reading. */
static bool ref__read(ref_loop *l, const vis_image *frame)
{
    ref_reading *rd = &l->acc[l->nacc];
    base_err e;
    int rc = ref_reader_read(l->cfg.reader, frame, rd, &e);
    pthread_mutex_lock(&l->mu);
    l->stats.readings++;
    if (rc != 0)
        l->stats.mat_missing++;
    else if (rd->hand)
        l->stats.hands++;
    pthread_mutex_unlock(&l->mu);
    if (rc == 0 && !rd->hand)
        ref__seen(l, rd);
    if (rc != 0 || rd->hand) {
        ref__overlay(l, frame, rc == 0 ? rd : NULL);
        l->last_overlay = base_now();
        l->nacc = 0;
        l->gave_up = true;
        return false;
    }
    l->nacc++;
    return true;
}

int ref_loop_read_table(ref_loop *l, double max_s, ref_reading *out, base_err *err)
{
    double t0 = -1;
    int rc;
    for (;;) {
        vis_image *frame = NULL;
        double t = 0;
        if (atomic_load(&l->stop))
            return base_err_set(err, BASE_ESTATE, "stopped before the table was read");
        rc = vis_capture_read(l->cfg.camera, &frame, &t, err);
        if (rc == BASE_EEOF)
            return base_err_set(err, BASE_EEOF,
                                "the camera's stream ended before the table was still and read");
        if (rc != 0)
            return rc;
        if (t0 < 0)
            t0 = t;
        pthread_mutex_lock(&l->mu);
        l->stats.frames++;
        pthread_mutex_unlock(&l->mu);
        ref_still_feed(&l->still, t, ref__motion(l, frame), false);
        if (l->still.still_since < 0) {
            l->nacc = 0; /* it moved: those readings are stale */
            l->gave_up = false;
        } else if (!l->gave_up && l->nacc < REF__FUSE) {
            /* as the loop does: read from the first still frame on; the
             * window only confirms that the hand has gone */
            ref__read(l, frame);
        }
        vis_image_free(frame);
        if (l->nacc == REF__FUSE && l->still.fired) {
            ref__fuse(l, out);
            l->nacc = 0;
            return 0;
        }
        if (t - t0 > max_s)
            return base_err_set(err, BASE_ETIMEOUT,
                                "the table was not still and readable (mat in view, no hand) "
                                "within %.0f s",
                                max_s);
    }
}

int ref_loop_run(ref_loop *l, base_err *err)
{
    double start = base_now(), t_still = 0;
    vis_image *last = NULL;
    int rc = 0;

    if (!l->cfg.referee)
        return base_err_set(err, BASE_EINVAL, "ref_loop_run: no referee");

    while (!atomic_load(&l->stop)) {
        vis_image *frame = NULL;
        double t = 0, motion;
        ref__drain(l);
        if (l->cfg.on_tick)
            l->cfg.on_tick(l->cfg.ctx);
        rc = vis_capture_read(l->cfg.camera, &frame, &t, err);
        if (rc == BASE_EEOF) {
            rc = 0;
            /* A file ends on a still table: judge what was read, or read
             * the last frame if the window had not passed yet. */
            if (last && l->nacc == 0 && l->still.still_since >= 0 && !l->still.fired &&
                !l->gave_up) {
                t_still = base_now();
                ref__read(l, last);
            }
            if (last && l->nacc > 0)
                ref__judge(l, last, t_still);
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
        /* The frames are read as soon as the table stops moving, so that
         * the judgement is ready the moment it has stayed still for the
         * window; the window only confirms that the hand has gone rather
         * than paused. */
        if (ref_still_feed(&l->still, t, motion, false)) {
            /* still for the whole window: judge, reading on if need be */
            if (l->nacc < REF__FUSE && !l->gave_up) {
                if (l->nacc == 0)
                    t_still = base_now();
                ref__read(l, frame);
            }
            if (l->nacc == REF__FUSE)
                ref__judge(l, frame, t_still);
        } else if (l->still.still_since >= 0 && !l->gave_up &&
                   (!l->still.fired ? l->nacc < REF__FUSE : l->nacc > 0)) {
            /* still, within the window (or after it, short of readings) */
            if (l->nacc == 0)
                t_still = base_now();
            if (ref__read(l, frame) && l->still.fired && l->nacc == REF__FUSE)
                ref__judge(l, frame, t_still);
        } else if (l->still.still_since < 0) {
            l->nacc = 0; /* it moved: those readings are stale */
            l->gave_up = false;
            ref__glimpse(l, frame, t);
            if (l->cfg.overlay_every_s > 0 && base_now() - l->last_overlay >= l->cfg.overlay_every_s) {
                ref__overlay(l, frame, NULL);
                l->last_overlay = base_now();
            }
        } else if (l->cfg.overlay_every_s > 0 &&
                   base_now() - l->last_overlay >= l->cfg.overlay_every_s) {
            ref__overlay(l, frame, NULL); /* a still table, already judged */
            l->last_overlay = base_now();
        }
        vis_image_free(last);
        last = frame;
    }
    ref__drain(l);
    vis_image_free(last);
    return rc;
}
