/* tests/test_referee_ask.c: a doubtful reading is a question, never an
 * accusation, and the match never derails.  A fixed short Qwirkle match,
 * fed to the referee as still-table readings (no camera), in which one
 * cube is made ambiguous: a purple clover read as a purple diamond,
 * which would break the row.  The referee asks instead of accusing, and
 * the match ends with the truth's record whether the players answer the
 * question or just play on; an illegal move read surely is announced
 * once, never again for the table that moved on over it. */
#define _XOPEN_SOURCE 700
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "referee.h"

#define MAXEV 32

typedef struct log_ {
    int n;
    int kind[MAXEV];
    int player[MAXEV];
    int points[MAXEV];
    char text[MAXEV][512];
    ref_question q[MAXEV]; /* the event's question (id 0: none) */
} log_;

static void on_event(void *ctx, const ref_event *ev)
{
    log_ *l = ctx;
    if (l->n >= MAXEV)
        return;
    l->kind[l->n] = ev->kind;
    l->player[l->n] = ev->player;
    l->points[l->n] = ev->verdict ? ev->verdict->points : -1;
    snprintf(l->text[l->n], sizeof l->text[0], "%s", ev->text);
    memset(&l->q[l->n], 0, sizeof l->q[0]);
    if (ev->question)
        l->q[l->n] = *ev->question;
    l->n++;
}

static int count(const log_ *l, int kind)
{
    int n = 0;
    for (int i = 0; i < l->n; i++)
        n += l->kind[i] == kind;
    return n;
}

/* The table as the camera reads it. */
typedef struct table {
    rules_piece p[32];
    float conf[32];
    ref_alts alt[32];
    double x[32], y[32];
    int n;
} table;

static rules_piece cube(int x, int y, const char *color, const char *shape)
{
    rules_piece p;
    memset(&p, 0, sizeof p);
    p.owner = -1;
    p.x = (int16_t)x;
    p.y = (int16_t)y;
    p.a = (uint8_t)rules_color_from_name(color);
    p.b = (uint8_t)rules_shape_from_name(shape);
    return p;
}

/* A cube read surely, 20 mm cells from (100, 100) mm on the mat. */
static void put(table *t, rules_piece p)
{
    t->p[t->n] = p;
    t->conf[t->n] = 0.97f;
    t->alt[t->n].n = 0;
    t->x[t->n] = 100 + 20 * p.x;
    t->y[t->n] = 100 + 20 * p.y;
    t->n++;
}

static void see(ref_referee *r, const table *t)
{
    ref_view v = {t->p, t->conf, t->n, -1, NULL, 0, t->alt, t->x, t->y};
    base_err e;
    assert_int_equal(ref_observe(r, &v, &e), 0);
}

/* The match as it was really played: Ann, Bob, Ann, Bob. */
#define NTRUE 4
static const struct {
    int player, n;
    struct {
        int x, y;
        const char *color, *shape;
    } c[2];
} truth[NTRUE] = {
    {0, 2, {{0, 0, "purple", "diamond"}, {1, 0, "purple", "circle"}}},
    {1, 1, {{2, 0, "purple", "clover"}}}, /* the cube read as a purple diamond */
    {0, 1, {{2, 1, "red", "clover"}}},
    {1, 1, {{2, 2, "green", "clover"}}},
};

static void lay(table *t, int k)
{
    for (int i = 0; i < truth[k].n; i++)
        put(t, cube(truth[k].c[i].x, truth[k].c[i].y, truth[k].c[i].color, truth[k].c[i].shape));
}

/* Move 2 as the camera reads it: a purple diamond (0.85), which would
 * repeat the purple diamond of the row, the clover its runner-up (at odds
 * too low for the rules to settle it alone). */
static void lay_misread(table *t)
{
    lay(t, 1);
    t->p[t->n - 1] = cube(2, 0, "purple", "diamond");
    t->conf[t->n - 1] = 0.85f;
    t->alt[t->n - 1].n = 1;
    t->alt[t->n - 1].p[0] = cube(2, 0, "purple", "clover");
    t->alt[t->n - 1].w[0] = 0.15f;
}

static cJSON *header(void)
{
    return cJSON_Parse("{\"game\":\"qwirkle\",\"players\":[\"Ann\",\"Bob\"],\"options\":{}}");
}

static ref_referee *make(log_ *l, db *store)
{
    cJSON *h = header();
    ref_config cfg = {"qwirkle", h, store, 0, 0.5f, on_event, l};
    ref_referee *r = NULL;
    base_err e;
    assert_int_equal(ref_new(&cfg, &e, &r), 0);
    cJSON_Delete(h);
    return r;
}

/* The stored match is the truth's: each move by its player with its
 * pieces and points, all legal, the final scores those of the rules
 * engine playing the true moves. */
static void assert_truth_record(db *store, int64_t match)
{
    db_match *m = NULL;
    rules_game *g = NULL;
    rules_status st;
    cJSON *h = header();
    base_err e;
    assert_int_equal(db_match_load(store, match, &m, &e), 0);
    assert_int_equal(rules_game_new("qwirkle", h, &e, &g), 0);
    cJSON_Delete(h);
    assert_int_equal(m->nevents, NTRUE);
    for (int k = 0; k < NTRUE; k++) {
        rules_move mv, got;
        rules_verdict v;
        cJSON *j = cJSON_Parse(m->events[k].move);
        rules_move_init(&mv, RULES_MOVE_PLACE);
        for (int i = 0; i < truth[k].n; i++)
            mv.pieces[mv.npieces++] = cube(truth[k].c[i].x, truth[k].c[i].y, truth[k].c[i].color,
                                           truth[k].c[i].shape);
        assert_int_equal(rules_apply(g, truth[k].player, &mv, &v), 0);
        assert_true(v.legal);
        assert_true(m->events[k].legal);
        assert_int_equal(m->events[k].seat, truth[k].player);
        assert_int_equal(m->events[k].points, v.points);
        assert_int_equal(rules_move_from_json("qwirkle", j, &got, &e), 0);
        cJSON_Delete(j);
        assert_int_equal(got.npieces, mv.npieces);
        for (int i = 0; i < mv.npieces; i++) {
            bool found = false;
            for (int t = 0; t < got.npieces; t++)
                found = found || (got.pieces[t].x == mv.pieces[i].x &&
                                  got.pieces[t].y == mv.pieces[i].y &&
                                  got.pieces[t].a == mv.pieces[i].a &&
                                  got.pieces[t].b == mv.pieces[i].b);
            assert_true(found);
        }
    }
    rules_game_status(g, &st);
    {
        char want[32];
        snprintf(want, sizeof want, "[%d,%d]", st.scores[0], st.scores[1]);
        assert_string_equal(m->events[NTRUE - 1].scores, want);
    }
    rules_game_free(g);
    db_match_free(m);
}

/* The question of move 2: "Is this cube at (2,0) a purple diamond or a
 * purple clover?", with both as answers, where it lies on the mat. */
static void assert_question(const log_ *l, int i)
{
    assert_int_equal(l->kind[i], REF_EV_CONFIRM);
    assert_true(l->q[i].id > 0);
    assert_string_equal(l->q[i].text, "Is this cube at (2,0) a purple diamond or a purple clover?");
    assert_int_equal(l->q[i].nanswers, 2);
    assert_string_equal(l->q[i].label[0], "purple diamond");
    assert_string_equal(l->q[i].label[1], "purple clover");
    assert_false(l->q[i].none);
    assert_true(l->q[i].p[0] > l->q[i].p[1]);
    assert_true(l->q[i].has_xy);
    assert_true(l->q[i].x_mm == 140 && l->q[i].y_mm == 100);
}

/* Nobody answers: the next move says what the cube was (with a diamond
 * there the red clover below it could not lie), and both are recorded. */
static void test_question_settled_by_play(void **state)
{
    char *dir = th_tmpdir(), *path = th_path(dir, "t.db");
    log_ l = {0};
    table t = {0};
    db *store = NULL;
    ref_referee *r;
    base_err e;
    (void)state;
    assert_int_equal(db_open(path, DB_OPEN_CREATE, &e, &store), 0);
    r = make(&l, store);
    lay(&t, 0);
    see(r, &t);
    assert_int_equal(l.kind[0], REF_EV_MOVE);
    lay_misread(&t);
    see(r, &t);
    assert_int_equal(l.n, 2);
    assert_question(&l, 1);
    assert_true(ref_question_open(r, NULL));
    see(r, &t); /* read the same again: asked once */
    assert_int_equal(l.n, 2);
    lay(&t, 2);
    see(r, &t);
    assert_int_equal(l.n, 4);
    assert_int_equal(l.kind[2], REF_EV_MOVE);
    assert_int_equal(l.player[2], 1);
    assert_int_equal(l.points[2], 3);
    assert_int_equal(l.kind[3], REF_EV_MOVE);
    assert_int_equal(l.player[3], 0);
    assert_false(ref_question_open(r, NULL));
    lay(&t, 3);
    see(r, &t);
    assert_int_equal(count(&l, REF_EV_ILLEGAL), 0);
    assert_int_equal(count(&l, REF_EV_CONFIRM), 1);
    assert_truth_record(store, ref_match_id(r));
    ref_free(r);
    db_close(store);
    th_rmtree(dir);
    free(path);
    free(dir);
}

typedef struct corr {
    int n, seq;
    char field[64], before[160], after[160], note[96];
} corr;

static int on_corr(void *ctx, const db_correction *c)
{
    corr *k = ctx;
    k->n++;
    k->seq = c->seq;
    snprintf(k->field, sizeof k->field, "%s", c->field);
    snprintf(k->before, sizeof k->before, "%s", c->before ? c->before : "");
    snprintf(k->after, sizeof k->after, "%s", c->after ? c->after : "");
    snprintf(k->note, sizeof k->note, "%s", c->note ? c->note : "");
    return 0;
}

/* Bob answers with one tap: the move is recorded as he says, the answer
 * kept as a correction of its event. */
static void test_question_answered(void **state)
{
    char *dir = th_tmpdir(), *path = th_path(dir, "t.db");
    log_ l = {0};
    table t = {0};
    db *store = NULL;
    ref_referee *r;
    ref_question q;
    corr k = {0};
    base_err e;
    (void)state;
    assert_int_equal(db_open(path, DB_OPEN_CREATE, &e, &store), 0);
    r = make(&l, store);
    lay(&t, 0);
    see(r, &t);
    lay_misread(&t);
    see(r, &t);
    assert_question(&l, 1);
    assert_true(ref_question_open(r, &q));
    assert_int_equal(ref_answer(r, q.id + 1, 1, &e), BASE_ESTATE);
    assert_int_equal(ref_answer(r, q.id, 2, &e), BASE_ERANGE);
    assert_int_equal(ref_answer(r, q.id, REF_ANSWER_NONE, &e), BASE_ERANGE);
    assert_int_equal(l.n, 2); /* (refused answers change nothing) */
    assert_int_equal(ref_answer(r, q.id, 1, &e), 0);
    assert_int_equal(l.n, 3);
    assert_int_equal(l.kind[2], REF_EV_MOVE);
    assert_int_equal(l.player[2], 1);
    assert_int_equal(l.points[2], 3);
    assert_false(ref_question_open(r, NULL));
    assert_int_equal(ref_answer(r, q.id, 1, &e), BASE_ESTATE);
    assert_int_equal(db_corrections_list(store, ref_match_id(r), on_corr, &k, &e), 0);
    assert_int_equal(k.n, 1);
    assert_int_equal(k.seq, 2);
    assert_string_equal(k.field, "piece (2,0)");
    assert_string_equal(k.before, "purple diamond (read at 0.87)");
    assert_string_equal(k.after, "purple clover");
    assert_string_equal(k.note, "answer to question 1");
    /* the camera still reads a diamond there: the answer stands */
    see(r, &t);
    assert_int_equal(l.n, 3);
    lay(&t, 2);
    see(r, &t);
    lay(&t, 3);
    see(r, &t);
    assert_int_equal(count(&l, REF_EV_ILLEGAL), 0);
    assert_truth_record(store, ref_match_id(r));
    ref_free(r);
    db_close(store);
    th_rmtree(dir);
    free(path);
    free(dir);
}

/* Bob really lays a second purple diamond, read surely: illegal, and
 * announced.  Ann plays on beside it without its being put right: the
 * table is not judged again (no second verdict, for Bob's move or
 * Ann's), and once put right the match goes on. */
static void test_sure_illegal_said_once(void **state)
{
    log_ l = {0};
    table t = {0}, before;
    ref_referee *r;
    (void)state;
    r = make(&l, NULL);
    lay(&t, 0);
    see(r, &t);
    before = t;
    put(&t, cube(2, 0, "purple", "diamond"));
    see(r, &t);
    assert_int_equal(l.n, 2);
    assert_int_equal(l.kind[1], REF_EV_ILLEGAL);
    assert_int_equal(l.player[1], 1);
    assert_int_equal(l.q[1].id, 0);
    put(&t, cube(0, 1, "orange", "diamond"));
    see(r, &t);
    assert_int_equal(l.n, 3);
    assert_int_equal(l.kind[2], REF_EV_CONFIRM);
    assert_non_null(strstr(l.text[2], "still on the table"));
    put(&t, cube(1, 1, "orange", "circle"));
    see(r, &t);
    assert_int_equal(l.n, 3); /* said once */
    t = before;
    see(r, &t);
    assert_int_equal(l.kind[l.n - 1], REF_EV_RESTORED);
    lay(&t, 1);
    see(r, &t);
    assert_int_equal(l.kind[l.n - 1], REF_EV_MOVE);
    assert_int_equal(l.player[l.n - 1], 1);
    assert_int_equal(count(&l, REF_EV_ILLEGAL), 1);
    ref_free(r);
}

/* A cube recorded unsurely: Bob's purple clover at (2,0) read as a purple
 * star4 at 0.6 (the clover its runner-up), legal either way, recorded as
 * the star4.  Ann lays a red clover below it, legal beside the clover
 * but not the star4: she is not accused; the cube is asked about.  Bob
 * plays on: with the clover the table is explained, so the earlier move
 * is corrected and both new moves are recorded. */
static void test_recorded_unsurely(void **state)
{
    char *dir = th_tmpdir(), *path = th_path(dir, "t.db");
    log_ l = {0};
    table t = {0};
    db *store = NULL;
    db_match *m = NULL;
    ref_referee *r;
    base_err e;
    int ask;
    (void)state;
    assert_int_equal(db_open(path, DB_OPEN_CREATE, &e, &store), 0);
    r = make(&l, store);
    put(&t, cube(0, 0, "purple", "diamond"));
    put(&t, cube(1, 0, "purple", "circle"));
    see(r, &t);
    put(&t, cube(2, 0, "purple", "star4"));
    t.conf[2] = 0.6f;
    t.alt[2].n = 1;
    t.alt[2].p[0] = cube(2, 0, "purple", "clover");
    t.alt[2].w[0] = 0.3f;
    see(r, &t);
    assert_int_equal(l.n, 2);
    assert_int_equal(l.kind[1], REF_EV_MOVE); /* (legal either way: it stands) */
    put(&t, cube(2, 1, "red", "clover"));
    see(r, &t);
    assert_int_equal(l.n, 3);
    ask = 2;
    assert_int_equal(l.kind[ask], REF_EV_CONFIRM);
    assert_string_equal(l.q[ask].text, "Is this cube at (2,0) a purple star4 or a purple clover?");
    assert_non_null(strstr(l.text[ask], "recorded with an earlier move"));
    put(&t, cube(3, 1, "red", "circle"));
    see(r, &t);
    assert_int_equal(count(&l, REF_EV_ILLEGAL), 0);
    assert_int_equal(l.kind[3], REF_EV_CORRECTED);
    assert_int_equal(l.kind[4], REF_EV_MOVE);
    assert_int_equal(l.player[4], 0);
    assert_int_equal(l.points[4], 2);
    assert_int_equal(l.kind[5], REF_EV_MOVE);
    assert_int_equal(l.player[5], 1);
    assert_int_equal(l.points[5], 2);
    assert_int_equal(l.n, 6);
    assert_int_equal(db_match_load(store, ref_match_id(r), &m, &e), 0);
    assert_int_equal(m->nevents, 4);
    assert_non_null(strstr(m->events[1].move, "clover"));
    assert_int_equal(m->events[1].points, 3);
    db_match_free(m);
    ref_free(r);
    db_close(store);
    th_rmtree(dir);
    free(path);
    free(dir);
}

static rules_piece card(int x, int y, const char *name)
{
    rules_piece p;
    int rank, suit;
    assert_int_equal(rules_card_from_name(name, &rank, &suit), 0);
    memset(&p, 0, sizeof p);
    p.owner = -1;
    p.x = (int16_t)x;
    p.y = (int16_t)y;
    p.a = (uint8_t)rank;
    p.b = (uint8_t)suit;
    return p;
}

/* Cards: a card read surely as one already on the table.  One deck holds
 * each card once, so one of the two readings is wrong: asked, not
 * "card-seen" announced.  A card laid where no card may go is still
 * announced, whatever it is read as. */
static void test_second_copy_asked(void **state)
{
    log_ l = {0};
    table t = {0};
    ref_referee *r;
    cJSON *h = cJSON_Parse("{\"game\":\"cards\",\"players\":[\"A\",\"B\"],"
                           "\"start\":{\"x\":0,\"y\":0,\"card\":\"5H\"}}");
    ref_config cfg = {"cards", h, NULL, 0, 0.5f, on_event, &l};
    base_err e;
    (void)state;
    assert_int_equal(ref_new(&cfg, &e, &r), 0);
    cJSON_Delete(h);
    put(&t, card(0, 0, "5H"));
    see(r, &t);
    put(&t, card(1, 0, "6H"));
    see(r, &t);
    assert_int_equal(l.kind[l.n - 1], REF_EV_MOVE);
    put(&t, card(0, 1, "6H")); /* (a 6S, say, read as the 6H) */
    see(r, &t);
    assert_int_equal(l.kind[l.n - 1], REF_EV_CONFIRM);
    assert_string_equal(l.q[l.n - 1].text, "Is this card at (0,1) the 6H?");
    t.n--;
    see(r, &t);
    assert_int_equal(l.kind[l.n - 1], REF_EV_RESTORED);
    put(&t, card(5, 5, "6H"));
    see(r, &t);
    assert_int_equal(l.kind[l.n - 1], REF_EV_ILLEGAL);
    assert_int_equal(count(&l, REF_EV_ILLEGAL), 1);
    ref_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_question_settled_by_play),
        cmocka_unit_test(test_question_answered),
        cmocka_unit_test(test_sure_illegal_said_once),
        cmocka_unit_test(test_recorded_unsurely),
        cmocka_unit_test(test_second_copy_asked),
    };
    th_case_filter();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
