/* bench/bench_referee_loop.c: the live loop at 1280x960.  Simulated frames
 * (30 per second, hands and all) are rendered first and kept in memory, so
 * that the loop alone is timed.  Prints the frames per second the loop
 * sustains (target: 30, the camera's rate) and the time from the hand
 * leaving the table to the announcement (target under 300 ms at 30 fps),
 * on a clock that runs as a real camera's would (see mem below).
 *
 *   bench_referee_loop [FRAMES] [--seed N]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "referee.h"
#include "sim.h"

/* The camera runs in real time while the loop may fall behind: a virtual
 * clock starts each frame's processing at the later of its arrival and the
 * end of the previous frame's, and advances by the wall time the loop
 * really spends on it.  An announcement's time is that clock's reading
 * at the moment it is made, so reading time and any backlog count. */
typedef struct mem {
    vis_image **frames;
    double *t;
    bool *away;     /* the hand has gone: nothing moves in view (truth) */
    int n, next;
    double vstart;  /* virtual time the current frame's processing began */
    double wstart;  /* wall time it began */
} mem;

static double mem_vnow(const mem *m) { return m->vstart + (base_now() - m->wstart); }

static int mem_read(void *self, vis_image **frame, double *t, base_err *err)
{
    mem *m = self;
    double vend = m->next > 0 ? mem_vnow(m) : 0;
    if (m->next >= m->n)
        return base_err_set(err, BASE_EEOF, "end");
    vis_image_clone(m->frames[m->next], frame, NULL);
    *t = m->t[m->next];
    m->vstart = vend > *t ? vend : *t;
    m->next++;
    m->wstart = base_now();
    return 0;
}

static void mem_close(void *self) { (void)self; }

typedef struct lat {
    mem *m;
    double sum, max;
    int n, events;
    int last_k; /* the hand's leaving already timed */
} lat;

static void on_event(void *ctx, const ref_event *ev)
{
    lat *l = ctx;
    mem *m = l->m;
    int k = m->next - 1;
    l->events++;
    /* what a hand's visit leads to: a move, an illegal move, a take-back
     * or a question (the first of them counts) */
    if (ev->kind != REF_EV_MOVE && ev->kind != REF_EV_ILLEGAL && ev->kind != REF_EV_TAKEBACK &&
        ev->kind != REF_EV_CONFIRM)
        return;
    /* back to when the hand left */
    while (k > 0 && m->away[k - 1])
        k--;
    if (!m->away[k] || k == l->last_k)
        return;
    l->last_k = k;
    {
        double ms = (mem_vnow(m) - m->t[k]) * 1000;
        if (getenv("BENCH_VERBOSE"))
            printf("  event %d: hand gone at frame %d, announced while on frame %d, %.0f ms "
                   "(%.0f ms behind that frame)\n",
                   ev->kind, k, m->next - 1, ms, (mem_vnow(m) - m->t[m->next - 1]) * 1000);
        l->sum += ms;
        l->n++;
        if (ms > l->max)
            l->max = ms;
    }
}

int main(int argc, char **argv)
{
    int want = 600;
    unsigned long long seed = 4242;
    mem m = {0};
    lat la = {0};
    la.last_k = -1;
    sim_options o;
    sim_stream *s = NULL;
    base_err e;

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 10);
        else
            want = atoi(argv[i]);
    }
    if (getenv("TABLECAM_LOG") && base_log_parse_level(getenv("TABLECAM_LOG")) >= 0)
        base_log_set_level(base_log_parse_level(getenv("TABLECAM_LOG")));
    sim_options_default(&o);
    o.width = 1280;
    o.height = 960;
    o.fps = 30;
    o.max_frames = want;
    if (sim_stream_new("qwirkle", seed, &o, &s, &e) != 0) {
        fprintf(stderr, "bench_referee_loop: %s\n", e.msg);
        return 1;
    }
    m.frames = calloc((size_t)want, sizeof *m.frames);
    m.t = calloc((size_t)want, sizeof *m.t);
    m.away = calloc((size_t)want, sizeof *m.away);
    fprintf(stderr, "rendering %d frames...\n", want);
    while (m.n < want) {
        char *tj;
        if (sim_stream_next(s, &m.frames[m.n], &tj, &e) != 0)
            break;
        cJSON *t = cJSON_Parse(tj);
        m.t[m.n] = m.n / o.fps;
        /* the hand has left: nothing moves in the frame any more */
        m.away[m.n] = cJSON_IsTrue(cJSON_GetObjectItem(t, "stable"));
        cJSON_Delete(t);
        free(tj);
        m.n++;
    }
    sim_stream_free(s);
    {
        static const vis_capture_ops ops = {mem_read, mem_close, false};
        vis_capture *cam = NULL;
        ref_reader *rd = NULL;
        ref_referee *ref = NULL;
        ref_loop *loop = NULL;
        ref_loop_stats st;
        ref_reader_config rc = {"qwirkle", NULL, NULL, 0};
        cJSON *h = cJSON_Parse("{\"game\":\"qwirkle\",\"players\":[\"A\",\"B\"]}");
        ref_config cfg = {"qwirkle", h, NULL, 0, 0.5f, on_event, &la};
        ref_loop_config lc;
        double t0, wall;
        la.m = &m;
        vis_capture_wrap(&ops, &m, "memory", &cam);
        if (ref_reader_new(&rc, &rd, &e) != 0 || ref_new(&cfg, &e, &ref) != 0) {
            fprintf(stderr, "bench_referee_loop: %s\n", e.msg);
            return 1;
        }
        memset(&lc, 0, sizeof lc);
        lc.camera = cam;
        lc.reader = rd;
        lc.referee = ref;
        ref_loop_new(&lc, &loop, &e);
        t0 = base_now();
        ref_loop_run(loop, &e);
        wall = base_now() - t0;
        ref_loop_stats_get(loop, &st);
        printf("referee loop, qwirkle, %d frames 1280x960 at 30 fps (sim seed %llu)\n", m.n, seed);
        printf("loop: %.1f frames/s sustained (target >= 30) %s; %d still tables read, "
               "reading %.1f ms max\n",
               m.n / wall, m.n / wall >= 30 ? "PASS" : "MISS", st.readings, st.max_latency_ms);
        if (la.n)
            printf("hand gone -> announcement: mean %.0f ms, max %.0f ms over %d announcements "
                   "(target < 300 ms) %s\n",
                   la.sum / la.n, la.max, la.n, la.max < 300 ? "PASS" : "MISS");
        else
            printf("hand gone -> announcement: no announcement was made\n");
        ref_loop_free(loop);
        ref_free(ref);
        ref_reader_free(rd);
        vis_capture_free(cam);
        cJSON_Delete(h);
    }
    for (int i = 0; i < m.n; i++)
        vis_image_free(m.frames[i]);
    free(m.frames);
    free(m.t);
    free(m.away);
    return 0;
}
