/* tests/test_referee_live.c: the live referee end to end against the
 * truth.  A simulated Qwirkle Cubes match (hands, white balance drifting
 * with the light, noise, blur, injected illegal placements that a hand
 * takes back) is rendered once; the loop referees it from the frames
 * (stillness, three-frame reading, move inference, rules, store) and the
 * stored match must equal what the simulator played: every legal move with
 * its player, cubes and points, every injected illegal placement caught,
 * no move that was not made.  Then the same frames are replayed with a
 * take-back (the table shown as it was before a move) and with the match
 * stopped halfway and resumed from the store, and with a turn signalled
 * so that the next cubes come from the wrong side of the table.
 *
 * The seed is one whose camera the recogniser reads right on every still
 * table (not all are: bench_referee_truth measures the share over other
 * seeds and bench_recognize the recogniser alone); what this test guards
 * is everything after the recogniser. */
#define _XOPEN_SOURCE 700
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "db.h"
#include "harness.h"
#include "referee.h"
#include "sim.h"

/* A short match, small enough for the sanitizer build (about 200 frames):
 * five events at five frames a second from an 800 x 600 camera, one in
 * three placements an illegal one; seed 709's holds four legal moves by
 * both players and an illegal placement taken back. */
#define SEED 709
#define MOVES 5
#define FPS 5.0
#define WIDTH 800
#define HEIGHT 600
#define ILLEGAL 0.3
#define MAXF 2000
#define MAXM 32

/* A move as compared: the mover, the cubes (colour * 8 + shape, sorted),
 * legal or not, and the points. */
typedef struct mv {
    int seat, n, points;
    bool legal;
    int attr[RULES_MAX_MOVE_PIECES];
} mv;

/* Frames are kept as PNG (lossless: the frames the simulator made): a
 * match's raw frames would take gigabytes. */
typedef struct clip {
    unsigned char *f[MAXF];
    size_t len[MAXF];
    bool stable[MAXF]; /* nothing moves in view (truth) */
    int n;
    mv truth[MAXM];
    int ntruth;
    int move_frame[MAXM]; /* the frame on which truth[k] was made */
    int unseen;           /* illegal placements only the hands would show */
} clip;

static int cmp_int(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

static void mv_set(mv *m, int seat, const rules_move *move, bool legal, int points)
{
    m->seat = seat;
    m->legal = legal;
    m->points = legal ? points : 0;
    m->n = move->npieces;
    for (int i = 0; i < move->npieces; i++)
        m->attr[i] = move->pieces[i].a * 8 + move->pieces[i].b;
    qsort(m->attr, (size_t)m->n, sizeof m->attr[0], cmp_int);
}

static bool mv_same(const mv *a, const mv *b)
{
    return a->seat == b->seat && a->legal == b->legal && a->points == b->points && a->n == b->n &&
           memcmp(a->attr, b->attr, sizeof a->attr[0] * (size_t)a->n) == 0;
}

static void mv_print(const char *what, const mv *m)
{
    printf("  %s: seat %d %s %d points, cubes", what, m->seat, m->legal ? "legal" : "ILLEGAL",
           m->points);
    for (int i = 0; i < m->n; i++)
        printf(" %d/%d", m->attr[i] / 8, m->attr[i] % 8);
    printf("\n");
}

static clip *g_clip;

static int render(void **state)
{
    sim_options o;
    sim_stream *s = NULL;
    base_err e;
    clip *c = calloc(1, sizeof *c);
    (void)state;
    sim_options_default(&o);
    o.width = WIDTH;
    o.height = HEIGHT;
    o.fps = FPS;
    o.max_moves = MOVES;
    o.illegal = ILLEGAL;
    if (!c || sim_stream_new("qwirkle", SEED, &o, &s, &e) != 0) {
        fprintf(stderr, "render: %s\n", e.msg);
        return -1;
    }
    while (c->n < MAXF) {
        char *tj = NULL;
        sim_truth tr;
        vis_image *img = NULL;
        int rc = sim_stream_next(s, &img, &tj, &e);
        if (rc == 0)
            rc = vis_image_encode(img, VIS_FORMAT_PNG, 0, &c->f[c->n], &c->len[c->n], &e);
        if (rc == 0 && (rc = sim_truth_read("qwirkle", tj, &tr, &e)) != 0)
            fprintf(stderr, "render: %s\n", e.msg);
        vis_image_free(img);
        free(tj);
        if (rc != 0)
            break;
        c->stable[c->n] = tr.stable;
        if (tr.has_move && tr.move.type == RULES_MOVE_PLACE && c->ntruth < MAXM) {
            /* the first-turn rules need the players' hands, which the
             * camera does not read: such a placement looks legal, and its
             * taking back is a take-back */
            if (!tr.legal && strncmp(tr.rule, "first-turn", 10) == 0) {
                c->unseen++;
            } else {
                c->move_frame[c->ntruth] = c->n;
                mv_set(&c->truth[c->ntruth++], tr.player, &tr.move, tr.legal, tr.points);
            }
        }
        c->n++;
    }
    sim_stream_free(s);
    g_clip = c;
    *state = c;
    return 0;
}

static int unrender(void **state)
{
    clip *c = g_clip;
    (void)state;
    for (int i = 0; c && i < c->n; i++)
        vis_buffer_free(c->f[i]);
    free(c);
    return 0;
}

/* A camera that shows the clip's frames in the order of a script. */
typedef struct player_ {
    const clip *c;
    const int *script;
    int n, next, t0;
    ref_referee *ref;
    int signal_at; /* before this script frame, the player to move re-rolls (-1 never) */
} player_;

static int play_read(void *self, vis_image **frame, double *t, base_err *err)
{
    player_ *p = self;
    if (p->next >= p->n)
        return base_err_set(err, BASE_EEOF, "end of the script");
    if (p->next == p->signal_at) {
        /* a tap in the web app: read on the loop's own thread, like a
         * posted action */
        rules_status st;
        rules_move m;
        rules_game_status(ref_game(p->ref), &st);
        rules_move_init(&m, RULES_MOVE_REROLL);
        assert_int_equal(ref_signal(p->ref, st.to_move, &m, err), 0);
    }
    *t = (p->t0 + p->next) / FPS;
    {
        int k = p->script[p->next++];
        return vis_image_decode(p->c->f[k], p->c->len[k], 3, frame, err);
    }
}

static void play_close(void *self) { (void)self; }

/* What was announced, for the tests that look at more than the store. */
typedef struct said {
    int n;
    int kind[64], player[64];
    char rule[64][40];
} said;

static void on_event(void *ctx, const ref_event *ev)
{
    said *s = ctx;
    BASE_DEBUG("test", "announced: %s", ev->text);
    if (s && s->n < 64) {
        s->kind[s->n] = ev->kind;
        s->player[s->n] = ev->player;
        snprintf(s->rule[s->n], sizeof s->rule[0], "%s", ev->verdict ? ev->verdict->rule : "");
        s->n++;
    }
}

/* Referees script[from..to) into the store (match 0: a new one), with a
 * re-roll signalled before script frame signal_at (-1: none); returns the
 * match id. */
static int64_t referee_frames_ex(db *store, int64_t match, const int *script, int from, int to,
                                 int signal_at, said *log)
{
    static const vis_capture_ops ops = {play_read, play_close, false};
    player_ p = {g_clip, script + from, to - from, 0, from, NULL, signal_at - from};
    cJSON *hdr = cJSON_Parse("{\"game\":\"qwirkle\",\"players\":[\"Ann\",\"Bob\"]}");
    ref_config cfg = {"qwirkle", hdr, store, match, 0.5f, on_event, log};
    ref_reader_config rc = {"qwirkle", NULL, NULL, 0};
    ref_loop_config lc;
    vis_capture *cam = NULL;
    ref_reader *rd = NULL;
    ref_referee *ref = NULL;
    ref_loop *loop = NULL;
    base_err e;
    int64_t id;
    assert_int_equal(ref_reader_new(&rc, &rd, &e), 0);
    assert_int_equal(ref_new(&cfg, &e, &ref), 0);
    p.ref = ref;
    assert_int_equal(vis_capture_wrap(&ops, &p, "script", &cam), 0);
    memset(&lc, 0, sizeof lc);
    lc.camera = cam;
    lc.reader = rd;
    lc.referee = ref;
    assert_int_equal(ref_loop_new(&lc, &loop, &e), 0);
    assert_int_equal(ref_loop_run(loop, &e), 0);
    id = ref_match_id(ref);
    ref_loop_free(loop);
    ref_free(ref);
    ref_reader_free(rd);
    vis_capture_free(cam);
    cJSON_Delete(hdr);
    return id;
}

static int64_t referee_frames(db *store, int64_t match, const int *script, int from, int to)
{
    return referee_frames_ex(store, match, script, from, to, -1, NULL);
}

/* The stored match's moves, taken-back ones left out. */
static int stored_moves(db *store, int64_t id, mv *out, int cap, int *taken_back)
{
    db_match *m = NULL;
    base_err e;
    int n = 0;
    *taken_back = 0;
    assert_int_equal(db_match_load(store, id, &m, &e), 0);
    for (int i = 0; i < m->nevents; i++) {
        const db_event *ev = &m->events[i];
        cJSON *j = cJSON_Parse(ev->move);
        rules_move move;
        assert_non_null(j);
        assert_int_equal(rules_move_from_json("qwirkle", j, &move, &e), 0);
        cJSON_Delete(j);
        if (ev->rule && strcmp(ev->rule, REF_RULE_TAKEN_BACK) == 0) {
            (*taken_back)++;
            continue;
        }
        if (move.type != RULES_MOVE_PLACE || n == cap)
            continue;
        mv_set(&out[n++], ev->seat, &move, ev->legal, ev->points);
    }
    db_match_free(m);
    return n;
}

static void assert_equals_truth(db *store, int64_t id, int want_taken_back)
{
    mv got[MAXM];
    int tb, n = stored_moves(store, id, got, MAXM, &tb);
    bool same = n == g_clip->ntruth;
    for (int i = 0; i < n && i < g_clip->ntruth; i++)
        same = same && mv_same(&got[i], &g_clip->truth[i]);
    if (!same) {
        printf("stored match %lld differs from the truth:\n", (long long)id);
        for (int i = 0; i < g_clip->ntruth; i++)
            mv_print("truth ", &g_clip->truth[i]);
        for (int i = 0; i < n; i++)
            mv_print("stored", &got[i]);
    }
    assert_true(same);
    /* a placement only the hands show to be illegal looks like a legal
     * move, and its taking back like a take-back */
    assert_int_equal(tb, want_taken_back + g_clip->unseen);
}

static db *open_store(char **dir)
{
    db *d = NULL;
    base_err e;
    char *path;
    *dir = th_tmpdir();
    path = th_path(*dir, "live.db");
    assert_int_equal(db_open(path, DB_OPEN_CREATE, &e, &d), 0);
    free(path);
    return d;
}

static void test_match_equals_truth(void **state)
{
    int *script = malloc(sizeof *script * (size_t)g_clip->n), legal = 0, illegal = 0;
    char *dir;
    db *d = open_store(&dir);
    (void)state;
    for (int i = 0; i < g_clip->n; i++)
        script[i] = i;
    for (int i = 0; i < g_clip->ntruth; i++)
        legal += g_clip->truth[i].legal, illegal += !g_clip->truth[i].legal;
    /* the clip must hold what the test is about */
    assert_true(legal >= 4);
    assert_true(illegal >= 1);
    assert_equals_truth(d, referee_frames(d, 0, script, 0, g_clip->n), 0);
    db_close(d);
    th_rmtree(dir);
    free(dir);
    free(script);
}

/* The players take the second legal move back (the table goes back to how
 * it was before it), put it down again, and the match is stopped after
 * that and resumed from the store. */
static void test_takeback_and_resume(void **state)
{
    int first = -1, second = -1, k = 0, n = 0, stop, end;
    int *script = malloc(sizeof *script * (size_t)(2 * g_clip->n + 64));
    char *dir;
    db *d = open_store(&dir);
    int64_t id;
    (void)state;
    for (int i = 0; i < g_clip->ntruth; i++)
        if (g_clip->truth[i].legal) {
            if (first < 0)
                first = g_clip->move_frame[i];
            else if (second < 0)
                second = g_clip->move_frame[i];
        }
    assert_true(first > 0 && second > first);
    /* the table a little after the first move, once the hand has gone */
    while (first < second && !g_clip->stable[first])
        first++;
    first += 3;
    assert_true(first < second && g_clip->stable[first]);
    /* up to a second after the hand has left from the second legal move:
     * it is judged ... */
    end = second;
    while (end < g_clip->n && !g_clip->stable[end])
        end++;
    end += (int)FPS;
    assert_true(end < g_clip->n);
    for (k = 0; k < end; k++)
        script[n++] = k;
    /* ... a hand comes in (frames of the second move being made) and the
     * table is as it was after the first, for two seconds: taken back ... */
    for (int j = second - 5; j < second; j++)
        script[n++] = j;
    for (int j = 0; j < 2 * (int)FPS; j++)
        script[n++] = first;
    /* ... then the rest as it was played */
    stop = n + (k - second) + (int)FPS;
    for (int j = second; j < g_clip->n; j++)
        script[n++] = j;
    id = referee_frames(d, 0, script, 0, stop);
    assert_int_equal(referee_frames(d, id, script, stop, n), id);
    assert_equals_truth(d, id, 1);
    db_close(d);
    th_rmtree(dir);
    free(dir);
    free(script);
}

/* Bob re-rolls (a tap) instead of moving, so it is Ann's turn, yet the
 * next cubes come from Bob's side of the table: flagged out of turn and
 * credited to nobody. */
static void test_out_of_turn_by_the_hand(void **state)
{
    int first = -1, second = -1, n = 0, seats[2] = {-1, -1}, flagged = -1;
    int *script = malloc(sizeof *script * (size_t)g_clip->n);
    said log = {0};
    char *dir;
    db *d = open_store(&dir);
    (void)state;
    for (int i = 0; i < g_clip->ntruth; i++)
        if (g_clip->truth[i].legal) {
            if (first < 0)
                first = g_clip->move_frame[i], seats[0] = g_clip->truth[i].seat;
            else if (second < 0)
                second = g_clip->move_frame[i], seats[1] = g_clip->truth[i].seat;
        }
    assert_true(first > 0 && second > first && seats[0] != seats[1]);
    /* the signal once the first move is judged, before the second starts */
    while (first < second && !g_clip->stable[first])
        first++;
    first += 5;
    assert_true(first < second && g_clip->stable[first]);
    while (second < g_clip->n && !g_clip->stable[second])
        second++;
    for (int k = 0; k < second + (int)FPS && k < g_clip->n; k++)
        script[n++] = k;
    referee_frames_ex(d, 0, script, 0, n, first, &log);
    for (int i = 0; i < log.n; i++) {
        /* no move of the second player's is credited */
        assert_false(log.kind[i] == REF_EV_MOVE && log.player[i] == seats[1] && i > 1);
        if (log.kind[i] == REF_EV_ILLEGAL && strcmp(log.rule[i], "out-of-turn") == 0)
            flagged = log.player[i];
    }
    assert_int_equal(flagged, seats[1]);
    db_close(d);
    th_rmtree(dir);
    free(dir);
    free(script);
}

int main(void)
{
    if (getenv("TABLECAM_LOG") && base_log_parse_level(getenv("TABLECAM_LOG")) >= 0)
        base_log_set_level(base_log_parse_level(getenv("TABLECAM_LOG")));
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_match_equals_truth),
        cmocka_unit_test(test_takeback_and_resume),
        cmocka_unit_test(test_out_of_turn_by_the_hand),
    };
    th_case_filter();
    return cmocka_run_group_tests(tests, render, unrender);
}
