/* tests/test_referee.c: the live referee's decisions, fed still-table
 * readings directly (no camera): legal and illegal moves, translations of
 * the reading, take-backs, unexplained changes, unsure readings, moves out
 * of turn, signals, corrections, recording and resuming; and the
 * stillness detector. */
#define _XOPEN_SOURCE 700
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "referee.h"

#define MAXEV 64

typedef struct log_ {
    int n;
    int kind[MAXEV];
    int seq[MAXEV];
    int player[MAXEV];
    int points[MAXEV];
    char rule[MAXEV][40];
    int nrestore[MAXEV];
    char text[MAXEV][512];
    int qid[MAXEV], qn[MAXEV]; /* the event's question: its id (0: none), answers */
    bool qnone[MAXEV];
    char qlabel[MAXEV][REF_MAX_ANSWERS][48];
} log_;

static void on_event(void *ctx, const ref_event *ev)
{
    log_ *l = ctx;
    if (l->n >= MAXEV)
        return;
    l->kind[l->n] = ev->kind;
    l->seq[l->n] = ev->seq;
    l->player[l->n] = ev->player;
    l->points[l->n] = ev->verdict ? ev->verdict->points : -1;
    snprintf(l->rule[l->n], sizeof l->rule[0], "%s", ev->verdict ? ev->verdict->rule : "");
    l->nrestore[l->n] = ev->nrestore;
    snprintf(l->text[l->n], sizeof l->text[0], "%s", ev->text);
    l->qid[l->n] = ev->question ? ev->question->id : 0;
    l->qn[l->n] = ev->question ? ev->question->nanswers : 0;
    l->qnone[l->n] = ev->question && ev->question->none;
    for (int k = 0; k < l->qn[l->n]; k++)
        snprintf(l->qlabel[l->n][k], sizeof l->qlabel[0][0], "%s", ev->question->label[k]);
    l->n++;
}

/* A growing Qwirkle table in the recogniser's frame. */
typedef struct table {
    rules_piece p[64];
    float conf[64];
    ref_alts alt[64];
    int n;
} table;

static void put(table *t, int x, int y, const char *color, const char *shape)
{
    rules_piece *p = &t->p[t->n];
    memset(p, 0, sizeof *p);
    p->owner = -1;
    p->x = (int16_t)x;
    p->y = (int16_t)y;
    p->a = (uint8_t)rules_color_from_name(color);
    p->b = (uint8_t)rules_shape_from_name(shape);
    t->conf[t->n] = 0.95f;
    t->n++;
}

static void shift(table *t, int dx, int dy)
{
    for (int i = 0; i < t->n; i++) {
        t->p[i].x = (int16_t)(t->p[i].x + dx);
        t->p[i].y = (int16_t)(t->p[i].y + dy);
    }
}

static int see(ref_referee *r, const table *t, int mover)
{
    ref_view v = {t->p, t->conf, t->n, mover, NULL, 0, t->alt, NULL, NULL};
    return ref_observe(r, &v, NULL);
}

static cJSON *header2(void)
{
    return cJSON_Parse("{\"game\":\"qwirkle\",\"players\":[\"Ann\",\"Bob\"],\"options\":{}}");
}

static ref_referee *make(log_ *l, db *store, int64_t match)
{
    cJSON *h = header2();
    ref_config cfg = {"qwirkle", h, store, match, 0.5f, on_event, l};
    ref_referee *r = NULL;
    base_err e;
    int rc = ref_new(&cfg, &e, &r);
    if (rc)
        print_message("ref_new: %s\n", e.msg);
    assert_int_equal(rc, 0);
    cJSON_Delete(h);
    return r;
}

static void test_moves_and_translation(void **state)
{
    log_ l = {0};
    table t = {0};
    rules_status st;
    (void)state;
    ref_referee *r = make(&l, NULL, 0);

    /* Empty table, nothing to say. */
    assert_int_equal(see(r, &t, -1), 0);
    assert_int_equal(l.n, 0);
    /* Ann lays two red cubes: 2 points. */
    put(&t, 3, 3, "red", "circle");
    put(&t, 4, 3, "red", "square");
    assert_int_equal(see(r, &t, -1), 0);
    assert_int_equal(l.n, 1);
    assert_int_equal(l.kind[0], REF_EV_MOVE);
    assert_int_equal(l.player[0], 0);
    assert_int_equal(l.points[0], 2);
    /* Seeing it again changes nothing. */
    assert_int_equal(see(r, &t, -1), 0);
    assert_int_equal(l.n, 1);
    /* The recogniser's grid origin moves (the board is read from another
     * corner): Bob's cube under the circle is still one move of 2 points. */
    shift(&t, -7, 2);
    put(&t, 3 - 7, 4 + 2, "red", "diamond");
    assert_int_equal(see(r, &t, -1), 0);
    assert_int_equal(l.n, 2);
    assert_int_equal(l.kind[1], REF_EV_MOVE);
    assert_int_equal(l.player[1], 1);
    assert_int_equal(l.points[1], 2);
    rules_game_status(ref_game(r), &st);
    assert_int_equal(st.scores[0], 2);
    assert_int_equal(st.scores[1], 2);
    assert_int_equal(st.to_move, 0);
    ref_free(r);
}

static void test_illegal_then_restored(void **state)
{
    log_ l = {0};
    table t = {0};
    (void)state;
    ref_referee *r = make(&l, NULL, 0);

    put(&t, 0, 0, "red", "circle");
    put(&t, 1, 0, "red", "square");
    see(r, &t, -1);
    /* Bob adds a second red circle to the row: illegal. */
    put(&t, 2, 0, "red", "circle");
    assert_int_equal(see(r, &t, -1), 0);
    assert_int_equal(l.n, 2);
    assert_int_equal(l.kind[1], REF_EV_ILLEGAL);
    assert_int_equal(l.player[1], 1);
    assert_string_equal(l.rule[1], "line-duplicate");
    assert_int_equal(l.nrestore[1], 2); /* the two cubes before it */
    /* Seen again: not announced twice. */
    see(r, &t, -1);
    assert_int_equal(l.n, 2);
    /* Bob takes it back: the table is right again. */
    t.n--;
    see(r, &t, -1);
    assert_int_equal(l.n, 3);
    assert_int_equal(l.kind[2], REF_EV_RESTORED);
    /* Bob plays legally: still his turn. */
    put(&t, 2, 0, "red", "star8");
    see(r, &t, -1);
    assert_int_equal(l.n, 4);
    assert_int_equal(l.kind[3], REF_EV_MOVE);
    assert_int_equal(l.player[3], 1);
    assert_int_equal(l.points[3], 3);
    ref_free(r);
}

static void test_illegal_replaced_by_legal(void **state)
{
    log_ l = {0};
    table t = {0};
    (void)state;
    ref_referee *r = make(&l, NULL, 0);
    put(&t, 0, 0, "blue", "clover");
    put(&t, 0, 1, "blue", "star4");
    see(r, &t, -1);
    put(&t, 0, 2, "blue", "clover"); /* duplicate in the column */
    see(r, &t, -1);
    assert_int_equal(l.kind[1], REF_EV_ILLEGAL);
    /* Bob swaps the cube's shape straight away: a legal move, announced. */
    t.p[2].b = (uint8_t)rules_shape_from_name("square");
    see(r, &t, -1);
    assert_int_equal(l.n, 3);
    assert_int_equal(l.kind[2], REF_EV_MOVE);
    assert_int_equal(l.player[2], 1);
    ref_free(r);
}

static void test_takeback(void **state)
{
    log_ l = {0};
    table t = {0};
    rules_status st;
    (void)state;
    ref_referee *r = make(&l, NULL, 0);
    put(&t, 0, 0, "green", "circle");
    put(&t, 1, 0, "green", "square");
    see(r, &t, -1);
    put(&t, 2, 0, "green", "diamond");
    see(r, &t, -1);
    assert_int_equal(l.kind[1], REF_EV_MOVE);
    /* Bob lifts his cube off again: the move is undone. */
    t.n--;
    see(r, &t, -1);
    assert_int_equal(l.n, 3);
    assert_int_equal(l.kind[2], REF_EV_TAKEBACK);
    assert_int_equal(l.player[2], 1);
    rules_game_status(ref_game(r), &st);
    assert_int_equal(st.to_move, 1);
    assert_int_equal(st.scores[1], 0);
    ref_free(r);
}

static void test_unexplained_and_unsure(void **state)
{
    log_ l = {0};
    table t = {0};
    (void)state;
    ref_referee *r = make(&l, NULL, 0);
    put(&t, 0, 0, "yellow", "circle");
    put(&t, 1, 0, "yellow", "square");
    put(&t, 2, 0, "yellow", "star4");
    see(r, &t, -1);
    assert_int_equal(l.n, 1);
    /* A placed cube never changes: read as another shape, it is the
     * committed cube misread, and nothing is announced. */
    t.p[0].b = (uint8_t)rules_shape_from_name("clover");
    see(r, &t, -1);
    assert_int_equal(l.n, 1);
    t.p[0].b = (uint8_t)rules_shape_from_name("circle");
    /* A cube gone (not a take-back of a whole move): no move explains it. */
    t.n = 2;
    t.p[1] = t.p[2];
    see(r, &t, -1);
    assert_int_equal(l.n, 2);
    assert_int_equal(l.kind[1], REF_EV_CONFIRM);
    assert_int_equal(l.nrestore[1], 3);
    see(r, &t, -1);
    assert_int_equal(l.n, 2);
    t.n = 0;
    put(&t, 0, 0, "yellow", "circle");
    put(&t, 1, 0, "yellow", "square");
    put(&t, 2, 0, "yellow", "star4");
    see(r, &t, -1);
    assert_int_equal(l.kind[2], REF_EV_RESTORED);
    /* A new cube read with little confidence is not guessed at. */
    put(&t, 3, 0, "yellow", "star8");
    t.conf[3] = 0.2f;
    see(r, &t, -1);
    assert_int_equal(l.n, 4);
    assert_int_equal(l.kind[3], REF_EV_CONFIRM);
    assert_non_null(strstr(l.text[3], "Is this cube at (3,0) a yellow star8?"));
    assert_int_equal(l.qn[3], 1); /* (no other reading offered) */
    assert_true(l.qid[3] > 0);
    /* Read again, clearly: Bob's move. */
    t.conf[3] = 0.9f;
    see(r, &t, -1);
    assert_int_equal(l.n, 5);
    assert_int_equal(l.kind[4], REF_EV_MOVE);
    assert_int_equal(l.player[4], 1);
    ref_free(r);
}

/* A piece read below certainty that no reading makes legal (the table
 * showing in a hole of the board, read as a cube) is asked about, not
 * announced as an illegal move; a move made while it is still read is
 * judged without it.  A sure illegal piece is still illegal. */
static void test_unplaceable_unsure_piece(void **state)
{
    log_ l = {0};
    table t = {0};
    rules_status st;
    (void)state;
    ref_referee *r = make(&l, NULL, 0);
    put(&t, 0, 0, "red", "circle");
    put(&t, 1, 0, "red", "square");
    put(&t, 2, 0, "red", "diamond");
    see(r, &t, -1);
    put(&t, 0, 1, "blue", "circle");
    see(r, &t, -1);
    assert_int_equal(l.n, 2);
    assert_int_equal(l.kind[1], REF_EV_MOVE);
    /* Something at (1,1) read as a yellow star8, or a yellow square or a
     * green star8: beside a red square and a blue circle none can lie. */
    put(&t, 1, 1, "yellow", "star8");
    t.conf[4] = 0.67f;
    t.alt[4].n = 2;
    t.alt[4].p[0] = t.p[4];
    t.alt[4].p[0].b = (uint8_t)rules_shape_from_name("square");
    t.alt[4].w[0] = 0.2f;
    t.alt[4].p[1] = t.p[4];
    t.alt[4].p[1].a = (uint8_t)rules_color_from_name("green");
    t.alt[4].w[1] = 0.1f;
    see(r, &t, -1);
    assert_int_equal(l.n, 3);
    assert_int_equal(l.kind[2], REF_EV_CONFIRM);
    assert_non_null(strstr(l.text[2], "fits the rules in no reading"));
    assert_non_null(strstr(l.text[2], "Is this cube at (1,1) a yellow star8, a yellow square, a "
                                      "green star8, or is nothing there?"));
    assert_true(l.qnone[2]);
    assert_int_equal(l.qn[2], 3);
    assert_string_equal(l.qlabel[2][1], "yellow square");
    see(r, &t, -1); /* the same reading: nothing said again */
    assert_int_equal(l.n, 3);
    /* Ann extends the row while it is still read: her move, 4 points;
     * then the piece is asked about again. */
    put(&t, 3, 0, "red", "clover");
    see(r, &t, -1);
    assert_int_equal(l.n, 5);
    assert_int_equal(l.kind[3], REF_EV_MOVE);
    assert_int_equal(l.player[3], 0);
    assert_int_equal(l.points[3], 4);
    assert_int_equal(l.kind[4], REF_EV_CONFIRM);
    assert_non_null(strstr(l.text[4], "fits the rules in no reading"));
    rules_game_status(ref_game(r), &st);
    assert_int_equal(st.to_move, 1);
    assert_int_equal(st.scores[0], 3 + 4);
    /* Read surely, the same piece is an illegal move of Bob's. */
    t.conf[4] = 0.95f;
    t.alt[4].n = 0;
    see(r, &t, -1);
    assert_int_equal(l.n, 6);
    assert_int_equal(l.kind[5], REF_EV_ILLEGAL);
    assert_int_equal(l.player[5], 1);
    /* Gone: the table is back.  Bob lays a cube apart from the board:
     * illegal; read again beside the hole's unsure piece, it is not
     * announced a second time. */
    t.p[4] = t.p[5];
    t.conf[4] = t.conf[5];
    t.n = 5;
    see(r, &t, -1);
    assert_int_equal(l.n, 7);
    assert_int_equal(l.kind[6], REF_EV_RESTORED);
    put(&t, 6, 6, "blue", "square");
    see(r, &t, -1);
    assert_int_equal(l.n, 8);
    assert_int_equal(l.kind[7], REF_EV_ILLEGAL);
    put(&t, 1, 1, "yellow", "star8");
    t.conf[6] = 0.67f;
    t.alt[6] = t.alt[5] = (ref_alts){0};
    see(r, &t, -1);
    assert_int_equal(l.n, 8);
    /* He takes his cube back while the hole is still read: asked about;
     * then it is no longer read: the table is back. */
    t.p[5] = t.p[6];
    t.n = 6;
    t.conf[5] = 0.67f;
    see(r, &t, -1);
    assert_int_equal(l.n, 9);
    assert_int_equal(l.kind[8], REF_EV_CONFIRM);
    assert_non_null(strstr(l.text[8], "fits the rules in no reading"));
    t.n = 5;
    see(r, &t, -1);
    assert_int_equal(l.n, 10);
    assert_int_equal(l.kind[9], REF_EV_RESTORED);
    rules_game_status(ref_game(r), &st);
    assert_int_equal(st.to_move, 1);
    /* A sure cube apart from the board with the hole read very unsure
     * (no row or column shared, so no move holds both): the cube's illegal
     * move is announced, naming it alone, and nothing is asked. */
    put(&t, 6, 6, "blue", "square");
    put(&t, 1, 1, "yellow", "circle");
    t.conf[6] = 0.26f;
    t.alt[6] = (ref_alts){0};
    see(r, &t, -1);
    assert_int_equal(l.n, 11);
    assert_int_equal(l.kind[10], REF_EV_ILLEGAL);
    assert_int_equal(l.player[10], 1);
    assert_non_null(strstr(l.text[10], "(6,6)"));
    assert_null(strstr(l.text[10], "(1,1)"));
    ref_free(r);
}

/* A piece left out of a move because no reading of it fitted (asked
 * about), then read again as something that fits: it was part of that
 * move, which is corrected, not the next player's move (sim seed 707: a
 * blue star8 read as a star4, then read right as Bob's hand came over the
 * table, put every later turn out of step). */
static void test_late_piece_joins_its_move(void **state)
{
    log_ l = {0};
    table t = {0};
    rules_status st;
    (void)state;
    ref_referee *r = make(&l, NULL, 0);
    put(&t, 0, 0, "red", "circle");
    put(&t, 0, 1, "red", "square");
    put(&t, 0, 2, "blue", "star8"); /* a red diamond, misread */
    t.conf[2] = 0.4f;
    t.alt[2].n = 1;
    t.alt[2].p[0] = t.p[2];
    t.alt[2].p[0].b = (uint8_t)rules_shape_from_name("clover");
    t.alt[2].w[0] = 0.3f;
    see(r, &t, -1);
    assert_int_equal(l.n, 2);
    assert_int_equal(l.kind[0], REF_EV_MOVE);
    assert_int_equal(l.points[0], 2);
    assert_int_equal(l.kind[1], REF_EV_CONFIRM);
    assert_non_null(strstr(l.text[1], "fits the rules in no reading"));
    /* Read right now, with Bob's hand over the table: Ann's move holds
     * it, 3 points, and it is still Bob's turn. */
    t.n = 2;
    put(&t, 0, 2, "red", "diamond");
    t.conf[2] = 0.45f; /* below the referee's min_conf: still a reading */
    t.alt[2].n = 0;
    see(r, &t, 1);
    assert_int_equal(l.n, 3);
    assert_int_equal(l.kind[2], REF_EV_CORRECTED);
    assert_int_equal(l.player[2], 0);
    assert_int_equal(l.points[2], 3);
    assert_non_null(strstr(l.text[2], "a red diamond at (0,2), read late"));
    rules_game_status(ref_game(r), &st);
    assert_int_equal(st.to_move, 1);
    assert_int_equal(st.scores[0], 3);
    /* Bob's own move follows as his. */
    put(&t, 1, 0, "blue", "circle");
    t.conf[3] = 0.95f;
    see(r, &t, 1);
    assert_int_equal(l.n, 4);
    assert_int_equal(l.kind[3], REF_EV_MOVE);
    assert_int_equal(l.player[3], 1);
    assert_int_equal(l.points[3], 2);
    ref_free(r);

    /* Once another move is recorded the chance is over (with no store
     * every move's seq is 0, so the moves are told apart by count): Ann's
     * piece is left out and no longer read, Bob extends her column, then
     * the piece is read again: Ann's new move, not a part of Bob's. */
    memset(&l, 0, sizeof l);
    memset(&t, 0, sizeof t);
    r = make(&l, NULL, 0);
    put(&t, 0, 0, "red", "circle");
    put(&t, 0, 1, "red", "square");
    put(&t, 0, 2, "blue", "star8");
    t.conf[2] = 0.4f;
    see(r, &t, -1);
    assert_int_equal(l.n, 2);
    assert_int_equal(l.kind[1], REF_EV_CONFIRM);
    t.n = 2;
    see(r, &t, -1);
    assert_int_equal(l.kind[2], REF_EV_RESTORED);
    put(&t, 0, -1, "red", "star4");
    see(r, &t, 1);
    assert_int_equal(l.kind[3], REF_EV_MOVE);
    assert_int_equal(l.player[3], 1);
    put(&t, 0, 2, "red", "diamond");
    see(r, &t, 0);
    assert_int_equal(l.n, 5);
    assert_int_equal(l.kind[4], REF_EV_MOVE);
    assert_int_equal(l.player[4], 0);
    assert_int_equal(l.points[4], 4);
    ref_free(r);
}

/* An unsure reading nobody corrects stands once play goes on over it. */
static void test_unsure_stands_when_play_goes_on(void **state)
{
    log_ l = {0};
    table t = {0};
    rules_status st;
    (void)state;
    ref_referee *r = make(&l, NULL, 0);
    put(&t, 0, 0, "blue", "star8");
    put(&t, 1, 0, "blue", "circle");
    t.conf[1] = 0.3f;
    see(r, &t, -1);
    assert_int_equal(l.n, 1);
    assert_int_equal(l.kind[0], REF_EV_CONFIRM);
    assert_non_null(strstr(l.text[0], "stands when play goes on"));
    /* Bob plays on: Ann's move stands, then Bob's is judged. */
    put(&t, 0, 1, "blue", "square");
    see(r, &t, -1);
    assert_int_equal(l.n, 3);
    assert_int_equal(l.kind[1], REF_EV_MOVE);
    assert_int_equal(l.player[1], 0);
    assert_int_equal(l.points[1], 2);
    assert_int_equal(l.kind[2], REF_EV_MOVE);
    assert_int_equal(l.player[2], 1);
    assert_int_equal(l.points[2], 2);
    rules_game_status(ref_game(r), &st);
    assert_int_equal(st.scores[0], 2);
    assert_int_equal(st.scores[1], 2);
    ref_free(r);

    /* But an unsure reading whose pieces are gone is forgotten. */
    memset(&l, 0, sizeof l);
    memset(&t, 0, sizeof t);
    r = make(&l, NULL, 0);
    put(&t, 0, 0, "red", "star8");
    put(&t, 1, 0, "red", "circle");
    t.conf[1] = 0.3f;
    see(r, &t, -1);
    t.n = 0;
    put(&t, 0, 0, "red", "star8");
    put(&t, 0, 1, "red", "square");
    see(r, &t, -1);
    assert_int_equal(l.kind[l.n - 1], REF_EV_MOVE);
    assert_int_equal(l.player[l.n - 1], 0);
    rules_game_status(ref_game(r), &st);
    assert_int_equal(st.scores[0], 2);
    assert_int_equal(st.to_move, 1);
    ref_free(r);
}

static void alt(table *t, int i, const char *color, const char *shape, float w)
{
    ref_alts *a = &t->alt[i];
    a->p[a->n] = t->p[i];
    a->p[a->n].a = (uint8_t)rules_color_from_name(color);
    a->p[a->n].b = (uint8_t)rules_shape_from_name(shape);
    a->w[a->n++] = w;
}

/* The rules settle what an unsure cube is when only one reading of it is
 * legal and likely; a sure reading is never second-guessed. */
static void test_alternatives(void **state)
{
    log_ l = {0};
    table t = {0};
    (void)state;
    ref_referee *r = make(&l, NULL, 0);
    put(&t, 0, 0, "green", "circle");
    put(&t, 1, 0, "blue", "circle");
    see(r, &t, -1);
    assert_int_equal(l.n, 1);
    /* Bob: read orange star8 (unsure), which breaks the circle line; its
     * runner-up, orange circle, is legal: that is the move. */
    put(&t, 2, 0, "orange", "star8");
    t.conf[2] = 0.4f;
    alt(&t, 2, "orange", "circle", 0.8f);
    alt(&t, 2, "red", "star8", 0.3f);
    see(r, &t, -1);
    assert_int_equal(l.n, 2);
    assert_int_equal(l.kind[1], REF_EV_MOVE);
    assert_int_equal(l.player[1], 1);
    assert_int_equal(l.points[1], 3);
    {
        rules_piece pos[8];
        int n = ref_expected(r, pos, 8);
        bool found = false;
        for (int i = 0; i < n; i++)
            found = found || (pos[i].a == RULES_ORANGE && pos[i].b == RULES_CIRCLE);
        assert_true(found);
    }
    /* From then on the cell is the orange circle, however it reads. */
    see(r, &t, -1);
    assert_int_equal(l.n, 2);

    /* Ann: unsure purple circle, legal; its runner-up (purple clover,
     * illegal there) does not make it doubtful: it stands at once. */
    put(&t, 3, 0, "purple", "circle");
    t.conf[3] = 0.3f;
    alt(&t, 3, "purple", "clover", 0.9f);
    see(r, &t, -1);
    assert_int_equal(l.n, 3);
    assert_int_equal(l.kind[2], REF_EV_MOVE);
    assert_int_equal(l.player[2], 0);

    /* Bob: unsure, and two legal readings nearly as likely: asked. */
    put(&t, 0, 1, "green", "square");
    t.conf[4] = 0.35f;
    alt(&t, 4, "green", "diamond", 0.9f);
    see(r, &t, -1);
    assert_int_equal(l.n, 4);
    assert_int_equal(l.kind[3], REF_EV_CONFIRM);
    t.n = 4;
    see(r, &t, -1);
    assert_int_equal(l.kind[l.n - 1], REF_EV_RESTORED);

    /* Bob: a sure reading that breaks the rules, with a legal runner-up
     * the classifier gives real odds (0.04): a question, not an
     * accusation.  Bob answers that it is the blue star4: now it is
     * announced illegal. */
    put(&t, 0, 1, "blue", "star4");
    t.conf[4] = 0.95f;
    t.alt[4].n = 0;
    alt(&t, 4, "green", "star4", 0.04f);
    see(r, &t, -1);
    assert_int_equal(l.kind[l.n - 1], REF_EV_CONFIRM);
    assert_int_equal(l.qn[l.n - 1], 2);
    assert_string_equal(l.qlabel[l.n - 1][0], "blue star4");
    assert_string_equal(l.qlabel[l.n - 1][1], "green star4");
    {
        ref_question q;
        base_err e;
        int id = l.qid[l.n - 1];
        assert_true(ref_question_open(r, &q));
        assert_int_equal(q.id, id);
        assert_int_equal(ref_answer(r, id + 1, 0, &e), BASE_ESTATE);
        assert_int_equal(ref_answer(r, id, 2, &e), BASE_ERANGE);
        assert_int_equal(ref_answer(r, id, REF_ANSWER_NONE, &e), BASE_ERANGE);
        assert_int_equal(ref_answer(r, id, 0, &e), 0);
        assert_false(ref_question_open(r, NULL));
        assert_int_equal(ref_answer(r, id, 0, &e), BASE_ESTATE); /* answered */
    }
    assert_int_equal(l.kind[l.n - 1], REF_EV_ILLEGAL);
    t.n = 4;
    see(r, &t, -1);
    assert_int_equal(l.kind[l.n - 1], REF_EV_RESTORED);
    /* ... with odds below a real chance (0.01), it is announced at once */
    put(&t, 0, 1, "blue", "star4");
    t.conf[4] = 0.95f;
    t.alt[4].n = 0;
    alt(&t, 4, "green", "star4", 0.01f);
    see(r, &t, -1);
    assert_int_equal(l.kind[l.n - 1], REF_EV_ILLEGAL);
    ref_free(r);
}

static void test_out_of_turn_and_signals(void **state)
{
    log_ l = {0};
    table t = {0};
    rules_move m;
    (void)state;
    ref_referee *r = make(&l, NULL, 0);
    put(&t, 0, 0, "purple", "circle");
    put(&t, 0, 1, "purple", "square");
    see(r, &t, 0);
    assert_int_equal(l.kind[0], REF_EV_MOVE);
    /* The next cubes come from Ann's side, but it is Bob's turn. */
    put(&t, 0, 2, "purple", "diamond");
    see(r, &t, 0);
    assert_int_equal(l.n, 2);
    assert_int_equal(l.kind[1], REF_EV_ILLEGAL);
    assert_string_equal(l.rule[1], "out-of-turn");
    /* the players are named from the header; the mover, whose event it
     * is, is named beside the text by every front end, not in it */
    assert_string_equal(l.text[1],
                        "out of turn: it is Bob's turn, but the move came from Ann's side.");
    assert_string_equal(l.text[0], "2 points.");
    t.n--;
    see(r, &t, -1);
    assert_int_equal(l.kind[2], REF_EV_RESTORED);
    /* Bob re-rolls (a tap): a move the camera cannot see. */
    rules_move_init(&m, RULES_MOVE_REROLL);
    assert_int_equal(ref_signal(r, 1, &m, NULL), 0);
    assert_int_equal(l.kind[3], REF_EV_MOVE);
    assert_int_equal(l.player[3], 1);
    /* Bob taps again, out of turn: flagged, not credited. */
    assert_int_equal(ref_signal(r, 1, &m, NULL), 0);
    assert_int_equal(l.kind[4], REF_EV_ILLEGAL);
    assert_string_equal(l.rule[4], "out-of-turn");
    ref_free(r);
}

/* cube2 from the camera: the setup puts pieces down one at a time, each a
 * place move of the player whose turn it is. */
static void test_cube2_setup_from_readings(void **state)
{
    log_ l = {0};
    rules_piece p[2];
    float conf[2] = {0.9f, 0.9f};
    cJSON *h = cJSON_Parse("{\"game\":\"cube2\",\"players\":[\"A\",\"B\"]}");
    ref_config cfg = {"cube2", h, NULL, 0, 0.5f, on_event, &l};
    ref_referee *r = NULL;
    base_err e;
    (void)state;
    assert_int_equal(ref_new(&cfg, &e, &r), 0);
    memset(p, 0, sizeof p);
    p[0].owner = p[1].owner = -1;
    p[0].x = 0, p[0].y = 1, p[0].a = RULES_RED, p[0].b = RULES_C2_CUBE;
    p[1].x = 4, p[1].y = 2, p[1].a = RULES_BLUE, p[1].b = RULES_C2_CYLINDER;
    ref_view v = {p, conf, 1, -1, NULL, 0, NULL, NULL, NULL};
    assert_int_equal(ref_observe(r, &v, &e), 0);
    assert_int_equal(l.n, 1);
    assert_int_equal(l.kind[0], REF_EV_MOVE);
    assert_int_equal(l.player[0], 0);
    v.n = 2;
    assert_int_equal(ref_observe(r, &v, &e), 0);
    assert_int_equal(l.n, 2);
    assert_int_equal(l.kind[1], REF_EV_MOVE);
    assert_int_equal(l.player[1], 1);
    ref_free(r);
    cJSON_Delete(h);
}

/* A card at (x, y) of the recogniser's frame, read with conf 0.95. */
static void put_card(table *t, int x, int y, const char *name)
{
    rules_piece *p = &t->p[t->n];
    int rank, suit;
    assert_int_equal(rules_card_from_name(name, &rank, &suit), 0);
    memset(p, 0, sizeof *p);
    p->owner = -1;
    p->x = (int16_t)x;
    p->y = (int16_t)y;
    p->a = (uint8_t)rank;
    p->b = (uint8_t)suit;
    t->conf[t->n] = 0.95f;
    t->alt[t->n].n = 0;
    t->n++;
}

/* Sets card i of t read at conf c, the card named alt the other reading,
 * odds w against it. */
static void card_unsure(table *t, int i, float c, const char *alt, float w)
{
    int rank, suit;
    assert_int_equal(rules_card_from_name(alt, &rank, &suit), 0);
    t->conf[i] = c;
    t->alt[i].n = 1;
    t->alt[i].p[0] = t->p[i];
    t->alt[i].p[0].a = (uint8_t)rank;
    t->alt[i].p[0].b = (uint8_t)suit;
    t->alt[i].w[0] = w;
}

/* A two-player cards referee (A, B) whose starting card, the 5H, lies at
 * (3,3) of the recogniser's frame: *t is that table, seen once.  match:
 * a stored match to resume (0 a new one; t is then left alone). */
static ref_referee *cards_ref(log_ *l, db *store, int64_t match, table *t)
{
    cJSON *h = cJSON_Parse("{\"game\":\"cards\",\"players\":[\"A\",\"B\"],"
                           "\"start\":{\"x\":0,\"y\":0,\"card\":\"5H\"}}");
    ref_config cfg = {"cards", h, store, match, 0.5f, on_event, l};
    ref_referee *r = NULL;
    base_err e;
    assert_int_equal(ref_new(&cfg, &e, &r), 0);
    cJSON_Delete(h);
    if (!match) {
        t->n = 0;
        put_card(t, 3, 3, "5H"); /* the recogniser's grid has another origin */
        assert_int_equal(see(r, t, -1), 0);
    }
    return r;
}

/* cards_ref, then A's 6H at (4,3) and B's 5S at (3,4), read surely: the
 * square (3,3)-(4,4) lacks one card. */
static ref_referee *cards_corner(log_ *l, table *t)
{
    ref_referee *r = cards_ref(l, NULL, 0, t);
    put_card(t, 4, 3, "6H");
    see(r, t, -1);
    put_card(t, 3, 4, "5S");
    see(r, t, -1);
    assert_int_equal(l->n, 2);
    return r;
}

/* Cards: a committed card misread stays what it was (a card leaves only
 * when captured), and a card laid and taken with the square it completed
 * before any still table showed it is still a move: the one that leaves
 * the table seen, recorded with the players told what else it could have
 * been. */
static void test_cards_misread_and_laid_and_taken(void **state)
{
    log_ l = {0};
    table t = {0};
    ref_referee *r = cards_ref(&l, NULL, 0, &t);
    rules_status st;
    (void)state;
    assert_int_equal(l.n, 0);
    put_card(&t, 4, 3, "6H");
    assert_int_equal(see(r, &t, -1), 0);
    assert_int_equal(l.n, 1);
    assert_int_equal(l.kind[0], REF_EV_MOVE);
    /* the 6H read as the 6D beside B's 5S: the 6H stands, the 5S is B's */
    {
        int rank, suit;
        rules_card_from_name("6D", &rank, &suit);
        t.p[1].b = (uint8_t)suit;
    }
    put_card(&t, 3, 4, "5S");
    assert_int_equal(see(r, &t, -1), 0);
    assert_int_equal(l.n, 2);
    assert_int_equal(l.kind[1], REF_EV_MOVE);
    assert_int_equal(l.player[1], 1);
    /* A lays a card at (4,4), completing the square, and takes it at once:
     * the table is empty; 5 + 6 + 5 and the card laid are A's */
    t.n = 0;
    assert_int_equal(see(r, &t, -1), 0);
    assert_int_equal(l.n, 4);
    assert_int_equal(l.kind[2], REF_EV_MOVE);
    assert_int_equal(l.player[2], 0);
    assert_true(l.points[2] > 16 && l.points[2] <= 16 + 13);
    assert_int_equal(l.kind[3], REF_EV_CONFIRM);
    assert_non_null(strstr(l.text[3], "taken with its square before the camera saw it"));
    assert_non_null(strstr(l.text[3], "could also have been"));
    rules_game_status(ref_game(r), &st);
    assert_int_equal(st.scores[0], l.points[2]);
    assert_int_equal(st.to_move, 1);
    assert_int_equal(rules_position(ref_game(r), NULL, 0), 0);
    ref_free(r);
}

/* A card the referee recorded for one laid and taken unseen (the first
 * of several that fitted), or read short of certain, is later laid for
 * real: that guess was wrong.  The next card that fitted replaces it, the moves since are replayed on
 * it, the store is corrected, and the card now laid is a legal move, not
 * `card-seen`.  A move that no replacement makes legal is still illegal. */
static void test_cards_guess_revised(void **state)
{
    char *dir = th_tmpdir(), *path = th_path(dir, "t.db");
    log_ l = {0};
    table t = {0};
    db *store = NULL;
    ref_referee *r;
    rules_status st;
    base_err e;
    (void)state;
    assert_int_equal(db_open(path, DB_OPEN_CREATE, &e, &store), 0);
    r = cards_ref(&l, store, 0, &t);
    put_card(&t, 4, 3, "6H");
    see(r, &t, -1);
    put_card(&t, 3, 4, "5S");
    see(r, &t, -1);
    /* A completes the square at (4,4) and takes it at once: beside the 6H
     * and the 5S fit 4H, 5D, 5C, 6S, 6D, 6C and 7S; the 4H is recorded */
    t.n = 0;
    see(r, &t, -1);
    assert_int_equal(l.n, 4);
    assert_int_equal(l.kind[2], REF_EV_MOVE);
    assert_int_equal(l.points[2], 5 + 6 + 5 + 4);
    assert_non_null(strstr(l.text[3], "recorded as the 4H at (1,1)"));
    /* B lays the 3H on the empty table; A lays the 4H where it cannot go */
    put_card(&t, 8, 8, "3H");
    see(r, &t, -1);
    assert_int_equal(l.kind[4], REF_EV_MOVE);
    put_card(&t, 12, 12, "4H");
    see(r, &t, -1);
    assert_int_equal(l.n, 6);
    assert_int_equal(l.kind[5], REF_EV_ILLEGAL);
    t.n--;
    see(r, &t, -1);
    assert_int_equal(l.kind[6], REF_EV_RESTORED);
    /* ... then beside the 3H: the card taken unseen was the 5D */
    put_card(&t, 9, 8, "4H");
    see(r, &t, -1);
    assert_int_equal(l.n, 9);
    assert_int_equal(l.kind[7], REF_EV_CORRECTED);
    assert_int_equal(l.seq[7], 3);
    assert_int_equal(l.player[7], 0);
    assert_int_equal(l.points[7], 5 + 6 + 5 + 5);
    assert_non_null(strstr(l.text[7], "recorded as 4H was 5D"));
    assert_int_equal(l.kind[8], REF_EV_MOVE);
    assert_int_equal(l.seq[8], 6);
    assert_int_equal(l.player[8], 0);
    rules_game_status(ref_game(r), &st);
    assert_int_equal(st.scores[0], 21);
    assert_int_equal(st.to_move, 1);
    ref_free(r);
    {
        db_match *m = NULL;
        assert_int_equal(db_match_load(store, 1, &m, &e), 0);
        assert_int_equal(m->nevents, 6);
        assert_non_null(strstr(m->events[2].move, "5D"));
        assert_non_null(m->events[2].extra); /* what it captured, the 5D with it */
        assert_non_null(strstr(m->events[2].extra, "\"captured\""));
        assert_non_null(strstr(m->events[2].extra, "5D"));
        assert_null(strstr(m->events[2].extra, "4H"));
        assert_int_equal(m->events[2].points, 21);
        assert_string_equal(m->events[2].scores, "[21,0]");
        assert_string_equal(m->events[3].scores, "[21,0]"); /* B's 3H, after it */
        assert_false(m->events[4].legal);
        assert_true(m->events[5].legal);
        db_match_free(m);
    }
    /* resumed from the store: the corrected record replays */
    memset(&l, 0, sizeof l);
    r = cards_ref(&l, store, 1, NULL);
    rules_game_status(ref_game(r), &st);
    assert_int_equal(st.scores[0], 21);
    ref_free(r);
    db_close(store);

    /* A card read short of certain, with another reading likely enough,
     * is a guess too: the 6H read at 0.7 (or the 6D, 0.5 as likely), then
     * a 6H laid for sure: the first was the 6D */
    memset(&l, 0, sizeof l);
    r = cards_ref(&l, NULL, 0, &t);
    put_card(&t, 4, 3, "6H");
    card_unsure(&t, 1, 0.7f, "6D", 0.5f);
    see(r, &t, -1);
    assert_int_equal(l.n, 1);
    assert_int_equal(l.kind[0], REF_EV_MOVE);
    put_card(&t, 3, 4, "6H");
    see(r, &t, -1);
    assert_int_equal(l.n, 3);
    assert_int_equal(l.kind[1], REF_EV_CORRECTED);
    assert_non_null(strstr(l.text[1], "recorded as 6H was 6D"));
    assert_int_equal(l.kind[2], REF_EV_MOVE);
    assert_int_equal(l.player[2], 1);
    ref_free(r);
    th_rmtree(dir);
    free(path);
    free(dir);
}

/* Cards: a card read unsure that stands once play goes on, then a square
 * the next player completes and takes at once: the card stood, and the
 * capture is the next player's move, whether the card went with the
 * square (before, it was dropped as gone and nothing explained the
 * change) or stayed (before, play had not gone on over it, and the
 * capture was the unsure card's player's, out of turn). */
static void test_cards_pending_taken(void **state)
{
    log_ l = {0};
    table t = {0};
    ref_referee *r = cards_ref(&l, NULL, 0, &t);
    rules_status st;
    (void)state;
    put_card(&t, 4, 3, "6H");
    see(r, &t, -1);
    assert_int_equal(l.n, 1);
    put_card(&t, 3, 4, "5S");
    t.conf[2] = 0.4f;
    see(r, &t, -1);
    assert_int_equal(l.n, 2);
    assert_int_equal(l.kind[1], REF_EV_CONFIRM);
    assert_non_null(strstr(l.text[1], "stands when play goes on"));
    /* A completes the square at (4,4) and takes it, the 5S with it */
    t.n = 0;
    see(r, &t, -1);
    assert_true(l.n >= 4);
    assert_int_equal(l.kind[2], REF_EV_MOVE);
    assert_int_equal(l.player[2], 1);
    assert_int_equal(l.points[2], 0);
    assert_int_equal(l.kind[3], REF_EV_MOVE);
    assert_int_equal(l.player[3], 0);
    assert_true(l.points[3] > 16 && l.points[3] <= 16 + 13);
    rules_game_status(ref_game(r), &st);
    assert_int_equal(st.to_move, 1);
    assert_int_equal(st.scores[0], l.points[3]);
    ref_free(r);

    /* ... and when the capture leaves it on the table (sim seed 7: a KH
     * read at 0.41 beside a square taken for 34 points): the cards gone
     * are play going on over it */
    memset(&l, 0, sizeof l);
    r = cards_corner(&l, &t);
    put_card(&t, 2, 3, "4H"); /* A's, unsure */
    t.conf[3] = 0.4f;
    see(r, &t, -1);
    assert_int_equal(l.n, 3);
    assert_int_equal(l.kind[2], REF_EV_CONFIRM);
    /* B completes the square at (4,4) and takes it: the 4H is left */
    t.p[0] = t.p[3];
    t.conf[0] = t.conf[3];
    t.n = 1;
    see(r, &t, -1);
    assert_true(l.n >= 5);
    assert_int_equal(l.kind[3], REF_EV_MOVE);
    assert_int_equal(l.player[3], 0);
    assert_int_equal(l.kind[4], REF_EV_MOVE);
    assert_int_equal(l.player[4], 1);
    assert_int_equal(l.points[4], 5 + 6 + 5 + 5); /* the 4H is on the table: a 5D */
    rules_game_status(ref_game(r), &st);
    assert_int_equal(st.to_move, 0);
    assert_int_equal(st.scores[1], 21);
    assert_int_equal(rules_position(ref_game(r), NULL, 0), 1);
    ref_free(r);
}

/* Cards: a card read unsure (0.4; or the 6D, half as likely) that stood
 * once play went on over it is a guess too: the 6H laid for sure later
 * shows it was the 6D (sim seed 803: a QH that stood at 0.45, and the
 * real QH called card-seen). */
static void test_cards_stood_then_laid(void **state)
{
    log_ l = {0};
    table t = {0};
    ref_referee *r = cards_ref(&l, NULL, 0, &t);
    (void)state;
    put_card(&t, 4, 3, "6H");
    card_unsure(&t, 1, 0.4f, "6D", 0.5f);
    see(r, &t, -1);
    assert_int_equal(l.n, 1);
    assert_int_equal(l.kind[0], REF_EV_CONFIRM);
    put_card(&t, 5, 3, "7D"); /* B plays on */
    see(r, &t, -1);
    assert_int_equal(l.n, 3);
    assert_int_equal(l.kind[1], REF_EV_MOVE);
    assert_int_equal(l.kind[2], REF_EV_MOVE);
    put_card(&t, 3, 4, "6H");
    see(r, &t, -1);
    assert_int_equal(l.n, 5);
    assert_int_equal(l.kind[3], REF_EV_CORRECTED);
    assert_non_null(strstr(l.text[3], "recorded as 6H was 6D"));
    assert_int_equal(l.kind[4], REF_EV_MOVE);
    assert_int_equal(l.player[4], 0);
    ref_free(r);
}

/* Cards: a card recorded short of certain (a JH read as the QH at 0.51,
 * sim seed 7) that the still tables since read as another card more than
 * as itself is revised, when every move since stays legal with it; one
 * reading the other way is not enough, and a card the moves since rule
 * out is not taken. */
static void test_cards_reread(void **state)
{
    log_ l = {0};
    table t = {0};
    ref_referee *r = cards_ref(&l, NULL, 0, &t);
    rules_piece pos[8];
    char name[4];
    (void)state;
    put_card(&t, 4, 3, "QH");
    card_unsure(&t, 1, 0.51f, "JH", 0.8f);
    see(r, &t, -1);
    assert_int_equal(l.n, 1);
    assert_int_equal(l.kind[0], REF_EV_MOVE);
    /* B plays on; the QH now reads as the JH */
    put_card(&t, 3, 4, "5S");
    t.p[1].a = 11;
    card_unsure(&t, 1, 0.65f, "QH", 0.4f);
    see(r, &t, -1);
    assert_int_equal(l.n, 2);
    assert_int_equal(l.kind[1], REF_EV_MOVE);
    see(r, &t, -1); /* still JH: one more table, not yet */
    assert_int_equal(l.n, 2);
    see(r, &t, -1);
    assert_int_equal(l.n, 3);
    assert_int_equal(l.kind[2], REF_EV_CORRECTED);
    assert_non_null(strstr(l.text[2], "recorded as QH was JH"));
    assert_int_equal(rules_position(ref_game(r), pos, 8), 3);
    for (int i = 0; i < 3; i++)
        if (pos[i].x == 1 && pos[i].y == 0)
            assert_string_equal(rules_card_name(pos[i].a, pos[i].b, name), "JH");
    see(r, &t, -1); /* settled: nothing more */
    assert_int_equal(l.n, 3);
    ref_free(r);

    /* the KS laid beside it since goes with the QH, not with a JH */
    memset(&l, 0, sizeof l);
    r = cards_ref(&l, NULL, 0, &t);
    put_card(&t, 4, 3, "QH");
    card_unsure(&t, 1, 0.51f, "JH", 0.8f);
    see(r, &t, -1);
    put_card(&t, 5, 3, "KS");
    see(r, &t, -1);
    assert_int_equal(l.n, 2);
    assert_int_equal(l.kind[1], REF_EV_MOVE);
    t.p[1].a = 11;
    card_unsure(&t, 1, 0.65f, "QH", 0.4f);
    for (int i = 0; i < 6; i++)
        see(r, &t, -1);
    assert_int_equal(l.n, 2);
    ref_free(r);
}

/* Cards: a card read so that no reading of it is clearly legal is asked
 * about; nobody answers and the next player lays a card: the two new
 * cards are two moves in turn, the first as it reads now (sim seed 8: a
 * JD read as the QD at 0.30 beside the 10H, then as the JD at 0.42 with
 * the 3H laid beside; every later table held two new cards and the match
 * was lost).  Not when the second hand came from the same seat. */
static void test_cards_two_moves(void **state)
{
    for (int same_seat = 0; same_seat <= 1; same_seat++) {
        log_ l = {0};
        table t = {0};
        ref_referee *r = cards_ref(&l, NULL, 0, &t);
        rules_status st;
        (void)state;
        put_card(&t, 4, 3, "QS"); /* A's 6H, misread: no reading clearly legal */
        card_unsure(&t, 1, 0.3f, "6H", 0.5f);
        t.alt[1].n = 2;
        t.alt[1].p[1] = t.alt[1].p[0];
        t.alt[1].p[1].a = 4; /* or the 4H, as likely */
        t.alt[1].w[1] = 0.5f;
        see(r, &t, -1);
        assert_int_equal(l.n, 1);
        assert_int_equal(l.kind[0], REF_EV_CONFIRM);
        assert_null(strstr(l.text[0], "it stands"));
        /* nobody answers; B lays the 5S, and the 6H reads right now */
        t.p[1].a = 6;
        t.p[1].b = t.alt[1].p[0].b;
        card_unsure(&t, 1, 0.45f, "8H", 0.3f);
        put_card(&t, 3, 4, "5S");
        see(r, &t, same_seat ? 0 : 1);
        rules_game_status(ref_game(r), &st);
        if (same_seat) {
            assert_int_equal(st.scores[0] + st.scores[1], 0);
            for (int i = 1; i < l.n; i++)
                assert_int_not_equal(l.kind[i], REF_EV_MOVE);
        } else {
            assert_int_equal(l.n, 3);
            assert_int_equal(l.kind[1], REF_EV_MOVE);
            assert_int_equal(l.player[1], 0);
            assert_int_equal(l.kind[2], REF_EV_MOVE);
            assert_int_equal(l.player[2], 1);
            assert_int_equal(st.to_move, 0);
            assert_int_equal(rules_position(ref_game(r), NULL, 0), 3);
            see(r, &t, -1); /* the same table: nothing more */
            assert_int_equal(l.n, 3);
        }
        ref_free(r);
    }
}

/* Cards: a player lays the card that completes a square and takes the
 * square after a pause: the still table in between shows the card laid
 * and the square still there.  That is the move, with its captures (before:
 * "I cannot explain the change", and the card then guessed among all that
 * fitted once the square was gone); the square seen again before it is
 * gathered is no new card; once gathered, a card in its gap is a move.  The
 * captured cards put back and the card laid taken away are a take-back. */
static void test_cards_square_seen_before_gathered(void **state)
{
    log_ l = {0};
    table t = {0};
    ref_referee *r = cards_corner(&l, &t);
    rules_status st;
    (void)state;
    put_card(&t, 4, 4, "5D"); /* A completes the square: 5 + 6 + 5 + 5 */
    assert_int_equal(see(r, &t, -1), 0);
    assert_int_equal(l.n, 3);
    assert_int_equal(l.kind[2], REF_EV_MOVE);
    assert_int_equal(l.player[2], 0);
    assert_int_equal(l.points[2], 21);
    rules_game_status(ref_game(r), &st);
    assert_int_equal(st.scores[0], 21);
    assert_int_equal(st.to_move, 1);
    assert_int_equal(rules_position(ref_game(r), NULL, 0), 0);
    /* still there on the next still table (read a little differently) */
    t.conf[3] = 0.6f;
    assert_int_equal(see(r, &t, -1), 0);
    assert_int_equal(l.n, 3);
    /* gathered, two cards first */
    t.n = 2;
    assert_int_equal(see(r, &t, -1), 0);
    t.n = 0;
    assert_int_equal(see(r, &t, -1), 0);
    assert_int_equal(l.n, 3);
    /* B lays the 9C where the 6H was: a move on the empty table */
    put_card(&t, 4, 3, "9C");
    assert_int_equal(see(r, &t, -1), 0);
    assert_int_equal(l.n, 4);
    assert_int_equal(l.kind[3], REF_EV_MOVE);
    assert_int_equal(l.player[3], 1);
    ref_free(r);

    /* the same square, then the card laid taken back: a take-back */
    memset(&l, 0, sizeof l);
    r = cards_corner(&l, &t);
    put_card(&t, 4, 4, "5D");
    see(r, &t, -1);
    assert_int_equal(l.n, 3);
    assert_int_equal(l.points[2], 21);
    t.n = 3;
    assert_int_equal(see(r, &t, -1), 0);
    assert_int_equal(l.n, 4);
    assert_int_equal(l.kind[3], REF_EV_TAKEBACK);
    rules_game_status(ref_game(r), &st);
    assert_int_equal(st.scores[0], 0);
    assert_int_equal(st.to_move, 0);
    assert_int_equal(rules_position(ref_game(r), NULL, 0), 3);
    ref_free(r);
}

/* Cards: a card laid and taken with its square before any still table
 * showed it, but glimpsed on the moving table while the hand was away
 * (ref_glimpse): the card glimpsed, not the first that fits, and no
 * question.  A glimpse half as sure as another card's is no proof: the
 * players are asked as before. */
static void test_cards_glimpsed(void **state)
{
    log_ l = {0};
    table t = {0}, g;
    ref_referee *r = cards_corner(&l, &t);
    ref_view v;
    (void)state;
    /* the 5D glimpsed at (4,4), in a reading numbered from another origin */
    g = t;
    put_card(&g, 4, 4, "5D");
    g.conf[3] = 0.7f;
    for (int i = 0; i < g.n; i++) {
        g.p[i].x = (int16_t)(g.p[i].x - 2);
        g.p[i].y = (int16_t)(g.p[i].y + 1);
    }
    v = (ref_view){g.p, g.conf, g.n, -1, NULL, 0, g.alt, NULL, NULL};
    ref_glimpse(r, &v);
    t.n = 0;
    assert_int_equal(see(r, &t, -1), 0);
    assert_int_equal(l.n, 3);
    assert_int_equal(l.kind[2], REF_EV_MOVE);
    assert_int_equal(l.points[2], 5 + 6 + 5 + 5);
    ref_free(r);

    /* the 5D at 0.4 and, as its other reading, the 6D at 0.4 * 0.8 */
    memset(&l, 0, sizeof l);
    r = cards_corner(&l, &t);
    g = t;
    put_card(&g, 4, 4, "5D");
    g.conf[3] = 0.4f;
    g.alt[3].n = 1;
    g.alt[3].p[0] = g.p[3];
    g.alt[3].p[0].a = 6;
    g.alt[3].w[0] = 0.8f;
    v = (ref_view){g.p, g.conf, g.n, -1, NULL, 0, g.alt, NULL, NULL};
    ref_glimpse(r, &v);
    t.n = 0;
    assert_int_equal(see(r, &t, -1), 0);
    assert_int_equal(l.n, 2 + 2);
    assert_int_equal(l.points[2], 21); /* the likelier still first */
    assert_int_equal(l.kind[3], REF_EV_CONFIRM);
    assert_non_null(strstr(l.text[3], "recorded as the 5D at (1,1)"));
    ref_free(r);
}

/* Readings turned a quarter or a half round are turned back to the axes
 * asked for, their cells and alternatives with them. */
static void test_reading_turn_to(void **state)
{
    ref_reading *rd = calloc(1, sizeof *rd);
    (void)state;
    rd->n = 2;
    rd->pieces[0].x = 1, rd->pieces[0].y = 0;
    rd->pieces[1].x = 0, rd->pieces[1].y = 2;
    rd->alt[0].n = 1;
    rd->alt[0].p[0] = rd->pieces[0];
    rd->grid_angle_deg = 185;
    ref_reading_turn_to(rd, 5);
    assert_int_equal(rd->pieces[0].x, -1);
    assert_int_equal(rd->pieces[0].y, 0);
    assert_int_equal(rd->pieces[1].x, 0);
    assert_int_equal(rd->pieces[1].y, -2);
    assert_int_equal(rd->alt[0].p[0].x, -1);
    assert_true(fabs(rd->grid_angle_deg - 5) < 1e-9);
    /* a quarter on: one step along the turned x axis is one along y */
    rd->grid_angle_deg = 95;
    ref_reading_turn_to(rd, 5);
    assert_int_equal(rd->pieces[0].x, 0);
    assert_int_equal(rd->pieces[0].y, -1);
    assert_int_equal(rd->pieces[1].x, 2);
    assert_int_equal(rd->pieces[1].y, 0);
    /* within 45 degrees: left as it is */
    rd->grid_angle_deg = -35;
    ref_reading_turn_to(rd, 5);
    assert_int_equal(rd->pieces[1].x, 2);
    assert_true(fabs(rd->grid_angle_deg + 35) < 1e-9);
    free(rd);
}

/* A hexagonal reading turned a sixth or a third round is numbered back in
 * the axes asked for: cells, parities and faces (a third cycles them). */
static void test_reading_turn_hex(void **state)
{
    ref_reading *rd = calloc(1, sizeof *rd);
    rules_piece *p = &rd->pieces[0];
    (void)state;
    rd->n = 1;
    p->x = 1, p->y = 0, p->parity = 0;
    p->a = RULES_RED, p->b = RULES_GREEN, p->c = RULES_BLUE;
    rd->alt[0].n = 1;
    rd->alt[0].p[0] = *p;
    rd->grid_angle_deg = 65;
    ref_reading_turn_hex(rd, 5);
    /* east is south-east in axes 60 degrees back; red stays over the
     * edges it covered, now numbered 0 and 1 */
    assert_int_equal(p->x, 0);
    assert_int_equal(p->y, 1);
    assert_int_equal(p->parity, 1);
    assert_int_equal(p->a, RULES_RED);
    assert_int_equal(p->b, RULES_GREEN);
    assert_int_equal(p->c, RULES_BLUE);
    assert_int_equal(rd->alt[0].p[0].y, 1);
    assert_true(fabs(rd->grid_angle_deg - 5) < 1e-9);
    rd->grid_angle_deg = 125;
    ref_reading_turn_hex(rd, 5);
    assert_int_equal(p->x, -1);
    assert_int_equal(p->y, 0);
    assert_int_equal(p->parity, 1);
    assert_int_equal(p->a, RULES_BLUE);
    assert_int_equal(p->b, RULES_RED);
    assert_int_equal(p->c, RULES_GREEN);
    /* a sixth the other way, and within 30 degrees: as it is */
    rd->grid_angle_deg = -55;
    ref_reading_turn_hex(rd, 5);
    assert_true(fabs(rd->grid_angle_deg - 5) < 1e-9);
    assert_int_equal(p->x, -1); /* (-1, 0) a sixth on is (-1, 1) */
    assert_int_equal(p->y, 1);
    rd->grid_angle_deg = -20;
    ref_reading_turn_hex(rd, 5);
    assert_true(fabs(rd->grid_angle_deg + 20) < 1e-9);
    /* six sixths are the tile itself */
    {
        rules_piece was = *p;
        for (int i = 0; i < 6; i++) {
            rd->grid_angle_deg = 65;
            ref_reading_turn_hex(rd, 5);
        }
        assert_memory_equal(p, &was, sizeof was);
    }
    free(rd);
}

/* A card of a cards reading at (x, y): rank r, suit s, conf c. */
static void agree_card(ref_reading *rd, int x, int y, int r, int s, float c)
{
    rules_piece *p = &rd->pieces[rd->n];
    memset(p, 0, sizeof *p);
    p->owner = -1;
    p->x = (int16_t)x, p->y = (int16_t)y;
    p->a = (uint8_t)r, p->b = (uint8_t)s;
    rd->conf[rd->n] = c;
    rd->alt[rd->n].n = 0;
    rd->n++;
}

static void agree_alt(ref_reading *rd, int i, int r, int s, float w)
{
    ref_alts *a = &rd->alt[i];
    a->p[a->n] = rd->pieces[i];
    a->p[a->n].a = (uint8_t)r, a->p[a->n].b = (uint8_t)s;
    a->w[a->n++] = w;
}

/* A cards reading: a sure 5S at (0,0) and beside it a KC read
 * at conf kc that might be the KS (weight ks). */
static void agree_case(ref_reading *rd, float kc, float ks)
{
    rd->n = 0;
    agree_card(rd, 0, 0, 5, RULES_SPADES, 0.95f);
    agree_card(rd, 1, 0, 13, RULES_CLUBS, kc);
    agree_alt(rd, 1, 13, RULES_SPADES, ks);
}

/* The neighbours' word on unsure cards: a KC that does not go with the 5S
 * beside it is the KS it might be (and keeps the KC to try, at most half
 * sure); not when it was read surely, when the KS is too unlikely for the
 * referee to take or lies elsewhere on the table, nor when the KS would
 * break as many sides as it mends; the likelier of two that mend alike. */
static void test_reading_agree(void **state)
{
    ref_reading *rd = calloc(1, sizeof *rd);
    const int S = RULES_SPADES, H = RULES_HEARTS, C = RULES_CLUBS;
    (void)state;
    agree_case(rd, 0.6f, 0.4f);
    agree_alt(rd, 1, 12, C, 0.1f);
    ref_reading_agree(rd, "cards");
    assert_int_equal(rd->pieces[1].a, 13);
    assert_int_equal(rd->pieces[1].b, S);
    assert_true(rd->conf[1] <= 0.5f);
    assert_int_equal(rd->alt[1].n, 2);
    assert_int_equal(rd->alt[1].p[0].b, C); /* the first reading, to try */
    assert_true(fabsf(rd->alt[1].w[0] - 0.4f) < 1e-6f);
    assert_int_equal(rd->pieces[0].b, S);   /* the sure 5S is not touched */
    assert_int_equal(rd->pieces[1].x, 1);

    /* read surely: an illegal placement stands as read */
    agree_case(rd, 0.92f, 0.4f);
    ref_reading_agree(rd, "cards");
    assert_int_equal(rd->pieces[1].b, C);
    assert_true(fabsf(rd->conf[1] - 0.92f) < 1e-6f);

    /* too unlikely for the referee */
    agree_case(rd, 0.6f, 0.15f);
    ref_reading_agree(rd, "cards");
    assert_int_equal(rd->pieces[1].b, C);

    /* the KS is read elsewhere (one deck) */
    agree_case(rd, 0.6f, 0.4f);
    agree_card(rd, 5, 5, 13, S, 0.95f);
    ref_reading_agree(rd, "cards");
    assert_int_equal(rd->pieces[1].b, C);

    /* mends the 5S's side, breaks the 5C's */
    agree_case(rd, 0.6f, 0.4f);
    agree_card(rd, 2, 0, 5, C, 0.95f);
    ref_reading_agree(rd, "cards");
    assert_int_equal(rd->pieces[1].b, C);
    assert_true(fabsf(rd->conf[1] - 0.6f) < 1e-6f);

    /* two that mend alike: the likelier */
    rd->n = 0;
    agree_card(rd, 0, 0, 5, S, 0.95f);
    agree_card(rd, 0, 1, 9, H, 0.4f);
    agree_alt(rd, 1, 6, H, 0.3f);
    agree_alt(rd, 1, 9, S, 0.5f);
    ref_reading_agree(rd, "cards");
    assert_int_equal(rd->pieces[1].a, 9);
    assert_int_equal(rd->pieces[1].b, S);

    /* a game with no rule on pairs: nothing turns */
    agree_case(rd, 0.6f, 0.4f);
    ref_reading_agree(rd, "qwirkle");
    assert_int_equal(rd->pieces[1].b, C);
    free(rd);
}

/* ref_camera_advice's input with only the pixels a millimetre and the blur
 * known. */
static ref_camera_seen seen_of(double ppm, double blur)
{
    ref_camera_seen s = {ppm, blur, 0, 0, 0};
    return s;
}

/* The camera advice follows the limits bench_recognize and
 * bench_recognize_cards measured: too few pixels a millimetre first, then
 * too much blur; nothing for games whose limits are unmeasured, or before
 * anything was measured. */
static void test_camera_advice(void **state)
{
    char buf[REF_ADVICE_MAX];
    (void)state;
    assert_false(ref_camera_advice("qwirkle", seen_of(1.0, 0.9), buf, sizeof buf));
    assert_false(ref_camera_advice("qwirkle", seen_of(0.62, 1.4), buf, sizeof buf));
    assert_true(ref_camera_advice("qwirkle", seen_of(1.1, 1.7), buf, sizeof buf));
    assert_false(ref_camera_advice("qwirkle", seen_of(0, 0), buf, sizeof buf));
    assert_true(ref_camera_advice("qwirkle", seen_of(0.45, 1.4), buf, sizeof buf));
    assert_non_null(strstr(buf, "0.45 pixels a millimetre"));
    assert_non_null(strstr(buf, "size=1920x1080"));
    assert_true(ref_camera_advice("qwirkle", seen_of(0.45, 2.4), buf, sizeof buf));
    assert_non_null(strstr(buf, "0.45 pixels")); /* the cause to fix first */
    assert_true(ref_camera_advice("qwirkle", seen_of(1.1, 2.0), buf, sizeof buf));
    assert_non_null(strstr(buf, "blurred by 2.0 mm"));
    assert_non_null(strstr(buf, "focus the camera"));
    /* cards: by the pixels a millimetre alone (no blur is fitted) */
    assert_false(ref_camera_advice("cards", seen_of(1.2, 0), buf, sizeof buf));
    assert_false(ref_camera_advice("cards", seen_of(0, 0), buf, sizeof buf));
    assert_true(ref_camera_advice("cards", seen_of(0.85, 0), buf, sizeof buf));
    assert_non_null(strstr(buf, "0.85 pixels a millimetre"));
    assert_non_null(strstr(buf, "spade and a club"));
    assert_false(ref_camera_advice("stack4", seen_of(0.3, 0), buf, sizeof buf));
    assert_false(ref_camera_advice(NULL, seen_of(0.3, 2.8), buf, sizeof buf));
}

/* What to do depends on the camera: a frame already 1920x1080 is not asked
 * to grow, a mat turned in the picture asks for the camera to be turned
 * (with what it costs), and bringing it closer is always said. */
static void test_camera_advice_fixes(void **state)
{
    char buf[REF_ADVICE_MAX];
    ref_camera_seen s = {0.85, 0, 1280, 960, 3};
    (void)state;
    assert_true(ref_camera_advice("cards", s, buf, sizeof buf));
    assert_non_null(strstr(buf, "size=1920x1080"));
    assert_null(strstr(buf, "turn it"));
    assert_non_null(strstr(buf, " or bring it closer"));
    s.frame_w = 1920;
    s.frame_h = 1080;
    assert_true(ref_camera_advice("cards", s, buf, sizeof buf));
    assert_null(strstr(buf, "frame size"));
    assert_non_null(strstr(buf, "needed): bring it closer"));
    s.mat_turn_deg = 45;
    assert_true(ref_camera_advice("cards", s, buf, sizeof buf));
    assert_non_null(strstr(buf, "turn it so that the mat's edges run along the picture's"));
    assert_non_null(strstr(buf, "45 degrees off"));
    assert_non_null(strstr(buf, "71 % of the size"));
    assert_non_null(strstr(buf, ") or bring it closer"));
    s.frame_w = 640;
    s.frame_h = 480;
    s.mat_turn_deg = 20;
    assert_true(ref_camera_advice("cards", s, buf, sizeof buf));
    assert_non_null(strstr(buf, "size=1920x1080), turn it"));
    assert_non_null(strstr(buf, "20 degrees off"));
    /* the blur's advice names the same fixes after focusing */
    s.px_per_mm = 1.1;
    s.blur_mm = 2.0;
    assert_true(ref_camera_advice("qwirkle", s, buf, sizeof buf));
    assert_non_null(strstr(buf, "focus the camera, give it a larger frame size"));
    assert_non_null(strstr(buf, "turn it"));
}

static void test_still_detector(void **state)
{
    ref_still s;
    ref_still_config c = {0.3, 0.01};
    int fired = 0;
    (void)state;
    ref_still_init(&s, &c);
    /* 30 fps: motion for a second, then still. */
    for (int i = 0; i < 30; i++)
        fired += ref_still_feed(&s, i / 30.0, 0.2, false);
    assert_int_equal(fired, 0);
    for (int i = 30; i < 60; i++) {
        bool f = ref_still_feed(&s, i / 30.0, 0.001, false);
        if (f) {
            fired++;
            /* reported once the window has passed, not before */
            assert_true(i / 30.0 - 1.0 >= 0.3 - 1e-9);
            assert_true(i / 30.0 - 1.0 < 0.3 + 2.0 / 30);
        }
    }
    assert_int_equal(fired, 1);
    /* A hand over the board starts a new period even without motion. */
    assert_false(ref_still_feed(&s, 2.0, 0.0, true));
    for (int i = 0; i < 20; i++)
        fired += ref_still_feed(&s, 2.0 + i / 30.0, 0.0, false);
    assert_int_equal(fired, 2);
    ref_still_init(&s, NULL);
    assert_true(s.cfg.window_s > 0 && s.cfg.motion > 0);
}

static void test_recorded_and_resumed(void **state)
{
    char *dir = th_tmpdir(), *path = th_path(dir, "t.db");
    log_ l = {0};
    table t = {0};
    db *store = NULL;
    int64_t id;
    rules_status st;
    base_err e;
    (void)state;
    assert_int_equal(db_open(path, DB_OPEN_CREATE, &e, &store), 0);
    ref_referee *r = make(&l, store, 0);
    id = ref_match_id(r);
    assert_true(id > 0);
    put(&t, 0, 0, "orange", "circle");
    put(&t, 1, 0, "orange", "square");
    see(r, &t, -1);
    put(&t, 1, 0 + 1, "orange", "circle"); /* illegal? no: column (1,0)-(1,1) square+circle ok */
    see(r, &t, -1);
    put(&t, 2, 0, "orange", "circle");     /* row: circle, square, circle: illegal */
    see(r, &t, -1);
    assert_int_equal(l.kind[2], REF_EV_ILLEGAL);
    assert_int_equal(l.seq[2], 3);          /* the illegal attempt is recorded too */
    ref_free(r);

    /* The stored match: 3 events, the third illegal with its rule. */
    {
        db_match *m = NULL;
        assert_int_equal(db_match_load(store, id, &m, &e), 0);
        assert_int_equal(m->nevents, 3);
        assert_true(m->events[0].legal && m->events[1].legal);
        assert_false(m->events[2].legal);
        assert_string_equal(m->events[2].rule, "line-duplicate");
        assert_int_equal(m->events[1].points, 2);
        db_match_free(m);
    }
    /* Resumed: the same scores, Ann to move, the next event is seq 4. */
    memset(&l, 0, sizeof l);
    r = make(&l, store, id);
    rules_game_status(ref_game(r), &st);
    assert_int_equal(st.scores[0], 2);
    assert_int_equal(st.scores[1], 2);
    assert_int_equal(st.to_move, 0);
    t.n--; /* the illegal cube is gone */
    put(&t, 1, 2, "orange", "diamond");
    see(r, &t, -1);
    assert_int_equal(l.kind[0], REF_EV_MOVE);
    assert_int_equal(l.seq[0], 4);
    assert_int_equal(l.points[0], 3);
    /* A take-back is kept as a marked event, never deleted. */
    t.n--;
    see(r, &t, -1);
    assert_int_equal(l.kind[1], REF_EV_TAKEBACK);
    {
        db_match *m = NULL;
        assert_int_equal(db_match_load(store, id, &m, &e), 0);
        assert_int_equal(m->nevents, 4);
        assert_false(m->events[3].legal);
        assert_string_equal(m->events[3].rule, "taken-back");
        db_match_free(m);
    }
    ref_free(r);
    db_close(store);
    /* The export leaves the taken-back move out, so refereeing it again
     * gives the stored verdicts: two legal moves, then the illegal one. */
    {
        char idtext[32];
        th_run ex, rf;
        snprintf(idtext, sizeof idtext, "%lld", (long long)id);
        assert_int_equal(th_tablecam(&ex, NULL, (const char *[]){"export", "--db", path, idtext, NULL}), 0);
        assert_int_equal(ex.status, 0);
        assert_int_equal(th_count_lines(ex.out), 4);
        assert_int_equal(th_tablecam(&rf, ex.out, (const char *[]){"referee", "--game", "qwirkle", "-", NULL}), 0);
        assert_int_equal(rf.status, 0);
        assert_int_equal(th_count_lines(rf.out), 4);
        assert_non_null(strstr(rf.out, "\"seq\":3,\"player\":0,\"legal\":false,\"rule\":\"line-duplicate\""));
        assert_non_null(strstr(rf.out, "\"final\":true,\"over\":false,\"scores\":[2,2]"));
        th_run_free(&ex);
        th_run_free(&rf);
    }
    th_rmtree(dir);
    free(path);
    free(dir);
}

static void test_correction(void **state)
{
    log_ l = {0};
    table t = {0};
    rules_move m;
    rules_status st;
    base_err e;
    (void)state;
    ref_referee *r = make(&l, NULL, 0);
    put(&t, 0, 0, "red", "circle");
    put(&t, 1, 0, "red", "square");
    see(r, &t, -1);
    put(&t, 0, 1, "blue", "circle");
    see(r, &t, -1);
    assert_int_equal(l.kind[1], REF_EV_MOVE);
    /* It was really a blue circle at (0,1) and another at... no: a red
     * diamond under the circle, making a red column: 2 points either way;
     * correct to a move that scores differently: red diamond at (2,0). */
    rules_move_init(&m, RULES_MOVE_PLACE);
    m.npieces = 1;
    m.pieces[0] = t.p[0];
    m.pieces[0].x = 2;
    m.pieces[0].b = (uint8_t)rules_shape_from_name("diamond");
    assert_int_equal(ref_correct_last(r, &m, &e), 0);
    assert_int_equal(l.kind[2], REF_EV_CORRECTED);
    assert_int_equal(l.points[2], 3);
    rules_game_status(ref_game(r), &st);
    assert_int_equal(st.scores[1], 3);
    /* An illegal correction is refused and changes nothing. */
    m.pieces[0].b = (uint8_t)rules_shape_from_name("circle");
    m.pieces[0].x = 3;
    assert_int_equal(ref_correct_last(r, &m, &e), BASE_EINVAL);
    rules_game_status(ref_game(r), &st);
    assert_int_equal(st.scores[1], 3);
    ref_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_still_detector),
        cmocka_unit_test(test_camera_advice),
        cmocka_unit_test(test_camera_advice_fixes),
        cmocka_unit_test(test_moves_and_translation),
        cmocka_unit_test(test_illegal_then_restored),
        cmocka_unit_test(test_illegal_replaced_by_legal),
        cmocka_unit_test(test_takeback),
        cmocka_unit_test(test_unexplained_and_unsure),
        cmocka_unit_test(test_unsure_stands_when_play_goes_on),
        cmocka_unit_test(test_unplaceable_unsure_piece),
        cmocka_unit_test(test_late_piece_joins_its_move),
        cmocka_unit_test(test_alternatives),
        cmocka_unit_test(test_out_of_turn_and_signals),
        cmocka_unit_test(test_recorded_and_resumed),
        cmocka_unit_test(test_correction),
        cmocka_unit_test(test_cube2_setup_from_readings),
        cmocka_unit_test(test_cards_misread_and_laid_and_taken),
        cmocka_unit_test(test_cards_guess_revised),
        cmocka_unit_test(test_cards_pending_taken),
        cmocka_unit_test(test_cards_stood_then_laid),
        cmocka_unit_test(test_cards_reread),
        cmocka_unit_test(test_cards_two_moves),
        cmocka_unit_test(test_cards_square_seen_before_gathered),
        cmocka_unit_test(test_cards_glimpsed),
        cmocka_unit_test(test_reading_turn_to),
        cmocka_unit_test(test_reading_turn_hex),
        cmocka_unit_test(test_reading_agree),
    };
    th_case_filter();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
