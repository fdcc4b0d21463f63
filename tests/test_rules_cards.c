/* tests/test_rules_cards.c: the cards engine (Cubes with a 52-card deck):
 * every rule id, the captures, the options, the end and winners, the codec,
 * the move generator against brute force, and random whole games replayed
 * through the real `tablecam referee --game cards`. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "rules.h"
#include "rules_play.h"

/* ---- helpers ---- */

/* Counts generated placements at (1,1). */
static int count_centre(void *ctx, const rules_move *m)
{
    if (m->type == RULES_MOVE_PLACE && m->pieces[0].x == 1 && m->pieces[0].y == 1)
        ++*(int *)ctx;
    return 0;
}

static rules_game *new_game(const char *header)
{
    cJSON *h = cJSON_Parse(header);
    rules_game *g = NULL;
    base_err err;
    assert_non_null(h);
    if (rules_game_new("cards", h, &err, &g) != 0)
        fail_msg("header refused: %s", err.msg);
    cJSON_Delete(h);
    return g;
}

/* Two players, the start card at (0,0), extra header text (options). */
static rules_game *game_with(const char *start, const char *extra)
{
    char buf[512];
    snprintf(buf, sizeof buf,
             "{\"game\":\"cards\",\"players\":[\"Ann\",\"Bob\"],\"start\":{\"x\":0,\"y\":0,"
             "\"card\":\"%s\"}%s}",
             start, extra ? extra : "");
    return new_game(buf);
}

static int header_error(const char *header, base_err *err)
{
    cJSON *h = cJSON_Parse(header);
    rules_game *g = NULL;
    int rc;
    assert_non_null(h);
    rc = rules_game_new("cards", h, err, &g);
    cJSON_Delete(h);
    assert_null(g);
    return rc;
}

static int to_move(const rules_game *g)
{
    rules_status st;
    rules_game_status(g, &st);
    return st.to_move;
}

static void card_piece(rules_piece *p, int x, int y, const char *card)
{
    int rank, suit;
    memset(p, 0, sizeof *p);
    p->owner = -1;
    p->x = (int16_t)x;
    p->y = (int16_t)y;
    assert_int_equal(rules_card_from_name(card, &rank, &suit), 0);
    p->a = (uint8_t)rank;
    p->b = (uint8_t)suit;
}

/* Sets m->hand from a space-separated list of card names. */
static void set_hand(rules_move *m, const char *cards)
{
    char buf[256], *tok, *save = NULL;
    snprintf(buf, sizeof buf, "%s", cards);
    m->nhand = 0;
    for (tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
        card_piece(&m->hand[m->nhand++], 0, 0, tok);
}

/* The player to move places card at (x,y); hand may be NULL (unknown). */
static void place_h(rules_game *g, int x, int y, const char *card, const char *hand,
                    rules_verdict *v)
{
    rules_move m;
    rules_move_init(&m, RULES_MOVE_PLACE);
    m.npieces = 1;
    card_piece(&m.pieces[0], x, y, card);
    if (hand)
        set_hand(&m, hand);
    assert_int_equal(rules_apply(g, to_move(g), &m, v), 0);
}

static void place(rules_game *g, int x, int y, const char *card, rules_verdict *v)
{
    place_h(g, x, y, card, NULL, v);
}

/* Places and insists the move is legal. */
static void ok(rules_game *g, int x, int y, const char *card)
{
    rules_verdict v;
    place(g, x, y, card, &v);
    if (!v.legal)
        fail_msg("%s at (%d,%d) refused: %s (%s)", card, x, y, v.rule, v.reason);
}

static void pass_h(rules_game *g, const char *hand, rules_verdict *v)
{
    rules_move m;
    rules_move_init(&m, RULES_MOVE_PASS);
    if (hand)
        set_hand(&m, hand);
    assert_int_equal(rules_apply(g, to_move(g), &m, v), 0);
}

static void assert_illegal(const rules_verdict *v, const char *rule)
{
    if (v->legal)
        fail_msg("expected %s, the move was legal", rule);
    assert_string_equal(v->rule, rule);
    assert_true(strlen(v->reason) > 10);
}

static bool has_card(const rules_game *g, int x, int y, const char *card)
{
    rules_piece p[64], want;
    int n = rules_position(g, p, 64);
    card_piece(&want, x, y, card);
    for (int i = 0; i < n; i++)
        if (p[i].x == x && p[i].y == y)
            return p[i].a == want.a && p[i].b == want.b;
    return false;
}

static int board_size(const rules_game *g) { return rules_position(g, NULL, 0); }

/* The verdict's captured list as "KH 2H ..." */
static void captured(const rules_verdict *v, char *out, size_t cap)
{
    char buf[4];
    out[0] = '\0';
    for (int i = 0; i < v->nextra; i++) {
        if (i)
            strncat(out, " ", cap - strlen(out) - 1);
        strncat(out, rules_card_name(v->extra[i].a, v->extra[i].b, buf), cap - strlen(out) - 1);
    }
}

static int card_value(const char *card)
{
    int rank, suit;
    assert_int_equal(rules_card_from_name(card, &rank, &suit), 0);
    return rank;
}

/* ---- header ---- */

static void test_header(void **state)
{
    base_err err;
    rules_game *g = NULL;
    rules_status st;
    (void)state;

    assert_int_not_equal(header_error("{\"game\":\"cards\",\"players\":[\"a\",\"b\"]}", &err), 0);
    assert_non_null(strstr(err.msg, "\"start\""));
    assert_int_not_equal(
        header_error("{\"players\":[\"a\",\"b\"],\"start\":{\"x\":0,\"y\":0,\"card\":\"ZZ\"}}",
                     &err),
        0);
    assert_non_null(strstr(err.msg, "\"start\""));
    assert_non_null(strstr(err.msg, "ZZ"));
    assert_int_not_equal(
        header_error("{\"players\":[\"a\",\"b\"],\"start\":{\"y\":0,\"card\":\"KD\"}}", &err), 0);
    assert_non_null(strstr(err.msg, "\"x\""));
    assert_int_not_equal(header_error("{\"players\":[\"a\",\"b\"],\"start\":\"KD\"}", &err), 0);
    assert_non_null(strstr(err.msg, "\"start\""));
    assert_int_not_equal(header_error("{\"players\":[\"a\",\"b\"],\"start\":{\"x\":0,\"y\":0,"
                                      "\"card\":\"KD\"},\"options\":{\"wrap\":true}}",
                                      &err),
                         0);
    assert_non_null(strstr(err.msg, "\"wrap\""));
    assert_int_not_equal(header_error("{\"players\":[\"a\",\"b\"],\"start\":{\"x\":0,\"y\":0,"
                                      "\"card\":\"KD\"},\"options\":{\"capture\":\"all\"}}",
                                      &err),
                         0);
    assert_non_null(strstr(err.msg, "\"capture\""));
    assert_int_not_equal(header_error("{\"players\":[\"a\",\"b\"],\"start\":{\"x\":0,\"y\":0,"
                                      "\"card\":\"KD\"},\"options\":{\"end\":1}}",
                                      &err),
                         0);
    assert_non_null(strstr(err.msg, "\"end\""));
    assert_int_not_equal(header_error("{\"players\":[\"a\",\"b\"],\"start\":{\"x\":0,\"y\":0,"
                                      "\"card\":\"KD\"},\"seed\":-4}",
                                      &err),
                         0);
    assert_non_null(strstr(err.msg, "\"seed\""));
    assert_int_equal(header_error("{\"players\":[\"a\",\"b\",\"c\",\"d\",\"e\"],\"start\":{\"x\":0,"
                                  "\"y\":0,\"card\":\"KD\"}}",
                                  &err),
                     BASE_ERANGE);
    assert_int_equal(
        header_error("{\"players\":[\"a\"],\"start\":{\"x\":0,\"y\":0,\"card\":\"KD\"}}", &err),
        BASE_ERANGE);
    assert_int_not_equal(rules_game_new("cards", NULL, &err, &g), 0);
    assert_null(g);
    assert_non_null(strstr(err.msg, "\"start\""));

    /* A good header: the start card is on the table, deck and hands are
     * counted (52 - 1 - 5 a player). */
    g = new_game("{\"game\":\"cards\",\"players\":[\"a\",\"b\",\"c\",\"d\"],\"seed\":7,"
                 "\"options\":{\"capture\":\"union\",\"end\":\"last-draw\"},"
                 "\"start\":{\"x\":3,\"y\":-2,\"card\":\"KD\"}}");
    rules_game_status(g, &st);
    assert_int_equal(st.nplayers, 4);
    assert_int_equal(st.bag, 52 - 1 - 20);
    for (int i = 0; i < 4; i++)
        assert_int_equal(st.hand[i], 5);
    assert_int_equal(st.to_move, 0);
    assert_false(st.over);
    assert_int_equal(board_size(g), 1);
    assert_true(has_card(g, 3, -2, "KD"));
    rules_game_free(g);
}

/* ---- placement ---- */

static void test_placement_rules(void **state)
{
    rules_game *g = game_with("KH", NULL);
    rules_verdict v;
    (void)state;

    place(g, 2, 0, "QH", &v);
    assert_illegal(&v, "no-neighbour");
    place(g, 1, 1, "QH", &v); /* a corner is no contact */
    assert_illegal(&v, "no-neighbour");
    assert_non_null(strstr(v.reason, "(1,1)"));
    place(g, 0, 0, "QS", &v);
    assert_illegal(&v, "cell-occupied");
    assert_non_null(strstr(v.reason, "KH"));
    place(g, 1, 0, "9S", &v);
    assert_illegal(&v, "neighbour-mismatch");
    assert_non_null(strstr(v.reason, "9S"));
    assert_non_null(strstr(v.reason, "KH at (0,0)"));
    place(g, 1, 0, "KH", &v);
    assert_illegal(&v, "card-seen");
    assert_non_null(strstr(v.reason, "on the table at (0,0)"));
    assert_int_equal(to_move(g), 0); /* illegal moves change nothing */
    assert_int_equal(board_size(g), 1);

    ok(g, 1, 0, "KS");  /* same rank */
    ok(g, 0, 1, "5H");  /* same suit */
    ok(g, -1, 0, "QC"); /* one apart */
    assert_int_equal(board_size(g), 4);
    /* (1,1) touches KS above and 5H to the left: it must go with both. */
    place(g, 1, 1, "9S", &v);
    assert_illegal(&v, "neighbour-mismatch");
    assert_non_null(strstr(v.reason, "5H at (0,1)"));
    /* Diagonal contact does not bind: JD at (-1,-1)... goes with QC below it
     * and ignores KH on its corner. */
    ok(g, -1, -1, "JD");
    rules_game_free(g);
}

static void test_no_wrap(void **state)
{
    rules_game *g = game_with("KH", NULL);
    rules_verdict v;
    (void)state;
    place(g, 1, 0, "AS", &v);
    assert_illegal(&v, "neighbour-mismatch");
    assert_non_null(strstr(v.reason, "do not wrap"));
    ok(g, 1, 0, "QS"); /* 12 and 13 */
    ok(g, 0, 1, "AH"); /* same suit, whatever the ranks */
    ok(g, 0, 2, "2S"); /* A and 2 are one apart */
    place(g, 0, 3, "KC", &v); /* 2 and K are not */
    assert_illegal(&v, "neighbour-mismatch");
    assert_null(strstr(v.reason, "wrap"));
    rules_game_free(g);
}

/* The pair rule alone, for a recogniser's prior: the same rule as a
 * placement's (same rank, same suit, ranks one apart, no wrap); a
 * face-down card says nothing, nor a game with no pair rule. */
static void test_side_by_side(void **state)
{
    rules_piece a = {0}, b = {0};
    (void)state;
    a.a = 13, a.b = RULES_SPADES;                      /* KS */
    b.a = 5, b.b = RULES_SPADES;                       /* 5S */
    assert_true(rules_side_by_side("cards", &a, &b));  /* same suit */
    b.b = RULES_CLUBS;                                 /* 5C */
    assert_false(rules_side_by_side("cards", &a, &b));
    assert_false(rules_side_by_side("cards", &b, &a));
    b.a = 13;                                          /* KC */
    assert_true(rules_side_by_side("cards", &a, &b));  /* same rank */
    b.a = 12;                                          /* QC */
    assert_true(rules_side_by_side("cards", &a, &b));  /* one apart */
    b.a = 1;                                           /* AC: K and A do not wrap */
    assert_false(rules_side_by_side("cards", &a, &b));
    b.c = 1;                                           /* face down */
    b.a = 0, b.b = 0;
    assert_true(rules_side_by_side("cards", &a, &b));
    b.c = 0, b.a = 1, b.b = RULES_CLUBS;
    assert_true(rules_side_by_side("qwirkle", &a, &b));
    assert_true(rules_side_by_side("no-such-game", &a, &b));
}

static void test_hand_rules(void **state)
{
    rules_game *g = game_with("KH", NULL);
    rules_verdict v;
    (void)state;
    /* The shown hand is what the mover chooses from: 5 + this turn's draw. */
    place_h(g, 1, 0, "QH", "2S 3S 4S 5S 6S 7S", &v);
    assert_illegal(&v, "card-not-in-hand");
    assert_non_null(strstr(v.reason, "QH"));
    place_h(g, 1, 0, "QH", "QH 3S 4S 5S 6S", &v);
    assert_illegal(&v, "hand-size");
    assert_non_null(strstr(v.reason, "6"));
    place_h(g, 1, 0, "QH", "QH 3S 4S 5S 6S 3S", &v);
    assert_illegal(&v, "hand-duplicate");
    assert_non_null(strstr(v.reason, "3S"));
    place_h(g, 1, 0, "QH", "QH 3S 4S 5S 6S KH", &v);
    assert_illegal(&v, "hand-card-seen");
    assert_non_null(strstr(v.reason, "KH"));
    pass_h(g, "QH 3S 4S 5S 6S 7S", &v);
    assert_illegal(&v, "pass-with-placement");
    assert_non_null(strstr(v.reason, "QH"));
    place_h(g, 1, 0, "QH", "QH 3S 4S 5S 6S 7S", &v);
    assert_true(v.legal);

    /* Nothing of 2C..7C goes with KH or QH: the pass is right. */
    pass_h(g, "2C 3C 4C 5C 6C 7C", &v);
    assert_true(v.legal);
    assert_non_null(strstr(v.note, "none of the 6 cards"));
    {
        rules_status st;
        rules_game_status(g, &st);
        assert_int_equal(st.hand[0], 5); /* drew one, placed one */
        assert_int_equal(st.hand[1], 6); /* drew one, kept it */
        assert_int_equal(st.bag, 41 - 2);
    }
    /* With the hand unknown the pass stands, and the note says honestly
     * that nobody can tell: 20 unseen cards go with KH or QH (the other
     * 11 hearts, KS KD KC, QS QD QC, JS JD JC; the shown clubs are not on
     * the table, so they count as unseen). */
    pass_h(g, NULL, &v);
    assert_true(v.legal);
    assert_non_null(strstr(v.note, "not knowable"));
    assert_non_null(strstr(v.note, "20 unseen cards"));
    rules_game_free(g);
}

static void test_bad_moves(void **state)
{
    rules_game *g = game_with("KH", NULL);
    rules_verdict v;
    rules_move m;
    (void)state;
    rules_move_init(&m, RULES_MOVE_PLACE);
    m.npieces = 2;
    card_piece(&m.pieces[0], 1, 0, "QH");
    card_piece(&m.pieces[1], 2, 0, "JH");
    assert_int_equal(rules_apply(g, 0, &m, &v), 0);
    assert_illegal(&v, "place-one-card");
    m.npieces = 1;
    m.pieces[0].c = 1;
    assert_int_equal(rules_apply(g, 0, &m, &v), 0);
    assert_illegal(&v, "card-face-down");
    m.pieces[0].c = 0;
    m.pieces[0].a = 14;
    assert_int_equal(rules_apply(g, 0, &m, &v), 0);
    assert_illegal(&v, "card-unknown");
    rules_move_init(&m, RULES_MOVE_DRAW);
    assert_int_equal(rules_apply(g, 0, &m, &v), 0);
    assert_illegal(&v, "move-type");
    rules_move_init(&m, RULES_MOVE_PASS);
    assert_int_equal(rules_apply(g, 1, &m, &v), 0);
    assert_illegal(&v, "out-of-turn");
    assert_int_equal(rules_apply(g, 2, &m, &v), BASE_EINVAL);
    rules_game_free(g);
}

/* ---- captures ---- */

static void test_capture_single(void **state)
{
    rules_game *g = game_with("KH", NULL);
    rules_verdict v;
    char buf[128];
    rules_status st;
    (void)state;
    ok(g, 1, 0, "QH");
    ok(g, 0, 1, "JH");
    place(g, 1, 1, "10H", &v); /* the first player completes the 2x2 */
    assert_true(v.legal);
    assert_int_equal(v.points, 13 + 12 + 11 + 10);
    captured(&v, buf, sizeof buf);
    assert_string_equal(buf, "KH QH JH 10H");
    assert_int_equal(v.scores[0], 46);
    assert_int_equal(v.scores[1], 0);
    assert_int_equal(board_size(g), 0);
    assert_non_null(strstr(v.note, "anywhere"));
    rules_game_status(g, &st);
    assert_int_equal(st.scores[0], 46);

    /* The table is empty: the next card may go anywhere. */
    ok(g, 50, -7, "2D");
    assert_true(has_card(g, 50, -7, "2D"));
    /* A captured card is in a pile and cannot come back. */
    place(g, 51, -7, "QH", &v);
    assert_illegal(&v, "card-seen");
    assert_non_null(strstr(v.reason, "player 1's score pile"));
    rules_game_free(g);
}

static void test_capture_several_squares(void **state)
{
    rules_game *g = game_with("KH", NULL);
    rules_verdict v;
    char buf[128];
    (void)state;
    /* Two 2x2 squares side by side, both waiting for (1,1). */
    ok(g, 1, 0, "2H");
    ok(g, 2, 0, "3H");
    ok(g, 0, 1, "4H");
    ok(g, 2, 1, "5H");
    assert_int_equal(board_size(g), 5);
    place(g, 1, 1, "6H", &v);
    assert_true(v.legal);
    captured(&v, buf, sizeof buf);
    assert_string_equal(buf, "KH 2H 3H 4H 6H 5H");
    assert_int_equal(v.points, 13 + 2 + 3 + 4 + 5 + 6);
    assert_int_equal(v.nextra, 6);
    assert_int_equal(board_size(g), 0);
    rules_game_free(g);
}

static void test_capture_3x3_by_centre(void **state)
{
    rules_game *g = game_with("KH", NULL);
    rules_verdict v;
    const char *ring[][3] = {{"1", "0", "2H"}, {"2", "0", "3H"}, {"2", "1", "4H"},
                             {"2", "2", "5H"}, {"1", "2", "6H"}, {"0", "2", "7H"},
                             {"0", "1", "8H"}};
    int sum = 13 + 9;
    (void)state;
    /* The ring of 8 completes no 2x2 (each holds the centre). */
    for (int i = 0; i < 7; i++) {
        ok(g, atoi(ring[i][0]), atoi(ring[i][1]), ring[i][2]);
        sum += card_value(ring[i][2]);
    }
    ok(g, 3, 1, "4S"); /* one more card outside the square stays put */
    assert_int_equal(board_size(g), 9);
    place(g, 1, 1, "9H", &v);
    assert_true(v.legal);
    assert_int_equal(v.nextra, 9);
    assert_int_equal(v.points, sum);
    assert_int_equal(board_size(g), 1);
    assert_true(has_card(g, 3, 1, "4S"));
    rules_game_free(g);
}

static void test_capture_refill_gap(void **state)
{
    rules_game *g = game_with("KH", NULL);
    rules_verdict v;
    (void)state;
    ok(g, 1, 0, "QH");
    ok(g, 2, 0, "JH");
    ok(g, 0, 1, "10H");
    place(g, 1, 1, "9H", &v);
    assert_int_equal(v.nextra, 4);
    assert_int_equal(board_size(g), 1);
    assert_true(has_card(g, 2, 0, "JH"));
    /* The gap at (1,0) touches JH: it can be refilled; (0,0) touches
     * nothing any more. */
    place(g, 0, 0, "JS", &v);
    assert_illegal(&v, "no-neighbour");
    ok(g, 1, 0, "JS");
    ok(g, 1, 1, "10S");
    place(g, 2, 1, "10D", &v); /* completes (1,0)-(2,1) again */
    assert_true(v.legal);
    assert_int_equal(v.nextra, 4);
    assert_int_equal(v.points, 11 + 11 + 10 + 10);
    rules_game_free(g);
}

static void test_capture_choose(void **state)
{
    rules_game *g = game_with("KH", ",\"options\":{\"capture\":\"choose\"}");
    rules_verdict v;
    rules_move m;
    char buf[128];
    (void)state;
    ok(g, 1, 0, "2H");
    ok(g, 2, 0, "3H");
    ok(g, 0, 1, "4H");
    ok(g, 2, 1, "5H");
    place(g, 1, 1, "6H", &v);
    assert_illegal(&v, "capture-square-missing");
    rules_move_init(&m, RULES_MOVE_PLACE);
    m.npieces = 1;
    card_piece(&m.pieces[0], 1, 1, "6H");
    m.square[0] = 1;
    m.square[1] = 1;
    m.square[2] = 2;
    assert_int_equal(rules_apply(g, to_move(g), &m, &v), 0);
    assert_illegal(&v, "capture-square-invalid");
    m.square[0] = 0;
    m.square[1] = 0;
    m.square[2] = 3;
    assert_int_equal(rules_apply(g, to_move(g), &m, &v), 0);
    assert_illegal(&v, "capture-square-invalid");
    m.square[2] = 2;
    assert_int_equal(rules_apply(g, to_move(g), &m, &v), 0);
    assert_true(v.legal);
    captured(&v, buf, sizeof buf);
    assert_string_equal(buf, "KH 2H 4H 6H");
    assert_int_equal(v.points, 13 + 2 + 4 + 6);
    assert_int_equal(board_size(g), 2);
    assert_true(has_card(g, 2, 0, "3H"));
    assert_true(has_card(g, 2, 1, "5H"));
    /* A square named where nothing is completed is refused too. */
    m.pieces[0].x = 3;
    m.pieces[0].y = 0;
    card_piece(&m.pieces[0], 3, 0, "7H");
    m.square[0] = 2;
    m.square[1] = 0;
    assert_int_equal(rules_apply(g, to_move(g), &m, &v), 0);
    assert_illegal(&v, "capture-square-invalid");
    rules_game_free(g);
}

/* With capture=choose a 3x3 is a choice of its own (under the default
 * union it is the union of the four 2x2 around its centre anyway). */
static void test_capture_choose_3x3(void **state)
{
    const char *ring[][3] = {{"1", "0", "2H"}, {"2", "0", "3H"}, {"2", "1", "4H"},
                             {"2", "2", "5H"}, {"1", "2", "6H"}, {"0", "2", "7H"},
                             {"0", "1", "8H"}};
    (void)state;
    for (int take3 = 0; take3 < 2; take3++) {
        rules_game *g = game_with("KH", ",\"options\":{\"capture\":\"choose\"}");
        rules_verdict v;
        rules_move m;
        int n = 0;
        for (int i = 0; i < 7; i++)
            ok(g, atoi(ring[i][0]), atoi(ring[i][1]), ring[i][2]);
        /* Four 2x2 and the 3x3: five choices for 9H at the centre. */
        {
            rules_piece hand[1];
            card_piece(&hand[0], 0, 0, "9H");
            assert_true(rules_generate(g, to_move(g), hand, 1, count_centre, &n) > 5);
            assert_int_equal(n, 5);
        }
        rules_move_init(&m, RULES_MOVE_PLACE);
        m.npieces = 1;
        card_piece(&m.pieces[0], 1, 1, "9H");
        m.square[0] = take3 ? 0 : 1;
        m.square[1] = take3 ? 0 : 1;
        m.square[2] = take3 ? 3 : 2;
        assert_int_equal(rules_apply(g, to_move(g), &m, &v), 0);
        assert_true(v.legal);
        assert_int_equal(v.nextra, take3 ? 9 : 4);
        assert_int_equal(board_size(g), take3 ? 0 : 5);
        assert_int_equal(v.points, take3 ? 13 + 2 + 3 + 4 + 5 + 6 + 7 + 8 + 9 : 9 + 4 + 5 + 6);
        rules_game_free(g);
    }
}

/* ---- end and winners ---- */

static void test_end_last_draw_and_tie(void **state)
{
    rules_game *g = game_with("KH", NULL);
    rules_verdict v;
    rules_status st;
    int moves = 0;
    (void)state;
    /* Player 0 takes 46 with hearts, player 1 takes 46 with spades. */
    ok(g, 1, 0, "QH");
    ok(g, 0, 1, "JH");
    ok(g, 1, 1, "10H"); /* player 0: 46 */
    ok(g, 0, 0, "KS");
    ok(g, 1, 0, "QS");
    ok(g, 0, 1, "JS");
    pass_h(g, NULL, &v);
    assert_true(v.legal);
    place(g, 1, 1, "10S", &v); /* player 1: 46 */
    assert_int_equal(v.points, 46);
    moves = 8;
    rules_game_status(g, &st);
    assert_int_equal(st.bag, 41 - 8);
    /* The deck runs out on the 41st turn: that verdict says the game is
     * over, and a tie shares the win. */
    while (moves < 41) {
        pass_h(g, NULL, &v);
        assert_true(v.legal);
        moves++;
        assert_int_equal(v.over, moves == 41);
    }
    assert_non_null(strstr(v.note, "last card"));
    assert_int_equal(v.winners, 3u);
    assert_int_equal(v.scores[0], 46);
    assert_int_equal(v.scores[1], 46);
    rules_game_status(g, &st);
    assert_true(st.over);
    assert_int_equal(st.bag, 0);
    pass_h(g, NULL, &v);
    assert_illegal(&v, "game-over");
    rules_game_free(g);
}

static void test_end_hands_out(void **state)
{
    rules_game *g = game_with("KH", ",\"options\":{\"end\":\"hands-out\"}");
    rules_verdict v;
    rules_status st;
    (void)state;
    ok(g, 1, 0, "QH");
    ok(g, 0, 1, "JH");
    ok(g, 1, 1, "10H"); /* player 0: 46 */
    for (int i = 3; i < 41; i++) {
        pass_h(g, NULL, &v);
        assert_false(v.over);
    }
    rules_game_status(g, &st);
    assert_int_equal(st.bag, 0);
    assert_false(st.over);
    /* No more draws: a hand shows exactly what is held. */
    assert_int_equal(st.to_move, 1);
    pass_h(g, "2C", &v);
    assert_illegal(&v, "hand-size");
    ok(g, 5, 5, "9C"); /* the table is empty after the capture */
    pass_h(g, NULL, &v); /* player 0 */
    assert_false(v.over);
    pass_h(g, NULL, &v); /* player 1: a full round of passes */
    assert_true(v.over);
    assert_non_null(strstr(v.note, "passed in a row"));
    assert_int_equal(v.winners, 1u);
    rules_game_free(g);
}

/* ---- codec ---- */

static void roundtrip_move(const char *json)
{
    cJSON *in = cJSON_Parse(json), *out;
    rules_move m;
    base_err err;
    assert_non_null(in);
    if (rules_move_from_json("cards", in, &m, &err) != 0)
        fail_msg("%s: %s", json, err.msg);
    out = rules_move_to_json("cards", &m);
    assert_non_null(out);
    if (!cJSON_Compare(in, out, true)) {
        char *s = cJSON_PrintUnformatted(out);
        fail_msg("%s came back as %s", json, s);
    }
    cJSON_Delete(in);
    cJSON_Delete(out);
}

static void bad_move(const char *json, const char *needle)
{
    cJSON *in = cJSON_Parse(json);
    rules_move m;
    base_err err;
    assert_non_null(in);
    assert_int_not_equal(rules_move_from_json("cards", in, &m, &err), 0);
    if (!strstr(err.msg, needle))
        fail_msg("%s: error \"%s\" does not name %s", json, err.msg, needle);
    cJSON_Delete(in);
}

static void test_codec(void **state)
{
    cJSON *in, *out;
    rules_piece p;
    base_err err;
    (void)state;

    in = cJSON_Parse("{\"x\":-3,\"y\":7,\"card\":\"10H\"}");
    assert_int_equal(rules_piece_from_json("cards", in, &p, &err), 0);
    assert_int_equal(p.a, 10);
    assert_int_equal(p.b, RULES_HEARTS);
    {
        char words[64];
        assert_string_equal(rules_piece_text("cards", &p, words, sizeof words),
                            "the 10H at (-3,7)");
        p.c = 1;
        assert_string_equal(rules_piece_text("cards", &p, words, sizeof words),
                            "a face-down card at (-3,7)");
        p.c = 0;
        assert_string_equal(rules_piece_text("chess", &p, words, sizeof words), "?");
    }
    assert_int_equal(p.x, -3);
    out = rules_piece_to_json("cards", &p);
    assert_true(cJSON_Compare(in, out, true));
    cJSON_Delete(in);
    cJSON_Delete(out);
    in = cJSON_Parse("{\"x\":1,\"y\":2,\"face_down\":true}");
    assert_int_equal(rules_piece_from_json("cards", in, &p, &err), 0);
    assert_int_equal(p.c, 1);
    out = rules_piece_to_json("cards", &p);
    assert_true(cJSON_Compare(in, out, true));
    cJSON_Delete(in);
    cJSON_Delete(out);

    roundtrip_move("{\"type\":\"place\",\"pieces\":[{\"x\":0,\"y\":1,\"card\":\"AS\"}]}");
    roundtrip_move("{\"type\":\"place\",\"pieces\":[{\"x\":0,\"y\":1,\"card\":\"QC\"}],"
                   "\"square\":{\"x\":-1,\"y\":0,\"size\":3}}");
    roundtrip_move("{\"type\":\"pass\"}");
    roundtrip_move("{\"type\":\"pass\",\"hand\":[\"7H\",\"10D\",\"KS\"]}");
    roundtrip_move("{\"type\":\"place\",\"pieces\":[{\"x\":5,\"y\":5,\"card\":\"JD\"}],"
                   "\"hand\":[\"JD\"]}");

    bad_move("{\"type\":\"place\",\"pieces\":[{\"x\":0,\"y\":1}]}", "\"card\"");
    bad_move("{\"type\":\"place\",\"pieces\":[{\"x\":0,\"y\":1,\"card\":\"1H\"}]}", "\"1H\"");
    bad_move("{\"type\":\"place\",\"pieces\":[{\"x\":\"a\",\"y\":1,\"card\":\"2H\"}]}", "\"x\"");
    bad_move("{\"type\":\"place\",\"pieces\":[{\"x\":0,\"y\":40000,\"card\":\"2H\"}]}", "\"y\"");
    bad_move("{\"type\":\"place\",\"pieces\":[{\"x\":0,\"y\":0,\"card\":\"2H\","
             "\"face_down\":1}]}",
             "\"face_down\"");
    bad_move("{\"type\":\"place\"}", "\"pieces\"");
    bad_move("{\"type\":\"draw\"}", "draw");
    bad_move("{\"pieces\":[]}", "\"type\"");
    bad_move("{\"type\":\"place\",\"pieces\":[{\"x\":0,\"y\":1,\"card\":\"2H\"}],"
             "\"square\":{\"x\":0,\"y\":0,\"size\":4}}",
             "\"size\"");
    bad_move("{\"type\":\"place\",\"pieces\":[{\"x\":0,\"y\":1,\"card\":\"2H\"}],"
             "\"square\":{\"x\":0,\"size\":2}}",
             "\"square\"");
    bad_move("{\"type\":\"pass\",\"hand\":[\"7H\",7]}", "hand item 2");
    bad_move("{\"type\":\"pass\",\"hand\":[\"7X\"]}", "\"7X\"");
}

static void test_verdict_json(void **state)
{
    rules_game *g = game_with("KH", NULL);
    rules_verdict v;
    cJSON *obj, *cap;
    (void)state;
    ok(g, 1, 0, "QH");
    ok(g, 0, 1, "JH");
    place(g, 1, 1, "10H", &v);
    obj = rules_verdict_to_json(g, 3, 0, &v);
    cap = cJSON_GetObjectItemCaseSensitive(obj, "captured");
    assert_true(cJSON_IsArray(cap));
    assert_int_equal(cJSON_GetArraySize(cap), 4);
    assert_string_equal(cJSON_GetArrayItem(cap, 3)->valuestring, "10H");
    assert_int_equal(cJSON_GetObjectItemCaseSensitive(obj, "points")->valueint, 46);
    cJSON_Delete(obj);
    ok(g, 0, 0, "2C");
    place(g, 1, 0, "3C", &v);
    obj = rules_verdict_to_json(g, 5, 1, &v);
    assert_null(cJSON_GetObjectItemCaseSensitive(obj, "captured"));
    cJSON_Delete(obj);
    rules_game_free(g);
}

static void test_clone(void **state)
{
    rules_game *g = game_with("KH", NULL), *c = NULL;
    rules_verdict v;
    rules_status a, b;
    (void)state;
    ok(g, 1, 0, "QH");
    assert_int_equal(rules_game_clone(g, &c), 0);
    ok(c, 0, 1, "JH");
    ok(c, 1, 1, "10H");
    rules_game_status(g, &a);
    rules_game_status(c, &b);
    assert_int_equal(a.moves, 1);
    assert_int_equal(b.moves, 3);
    assert_int_equal(b.scores[0], 46);
    assert_int_equal(a.scores[0], 0);
    assert_int_equal(board_size(g), 2);
    /* JH is seen in the clone only. */
    place(g, 0, 1, "JH", &v);
    assert_true(v.legal);
    rules_game_free(c);
    rules_game_free(g);
}

/* ---- random games (base_rng, tests/rules_play.h) ---- */

typedef struct deal {
    int deck[52], ndeck, top;
    int hand[4][52], nhand[4];
} deal;

static void to_piece(int card, rules_piece *p)
{
    memset(p, 0, sizeof *p);
    p->owner = -1;
    p->a = (uint8_t)(card % 13 + 1);
    p->b = (uint8_t)(card / 13);
}

/* Plays one random game with real hands, checking each move with the
 * engine, and returns its record; expected[k] gets the scores after event
 * k.  show: percent of events that carry the hand. */
static char *random_game(uint64_t seed, int nplayers, const char *options, int show,
                         int (*expected)[4], int *nevents, rules_status *final)
{
    base_rng r = {seed};
    deal d;
    rules_game *g;
    char header[512], name[4];
    rp_record rec = {0};
    rp_moves ms = {0};
    cJSON *h;
    base_err err;

    for (int i = 0; i < 52; i++)
        d.deck[i] = i;
    for (int i = 51; i > 0; i--) {
        int j = base_rng_below(&r, i + 1), t = d.deck[i];
        d.deck[i] = d.deck[j];
        d.deck[j] = t;
    }
    d.top = 1;
    for (int p = 0; p < nplayers; p++) {
        d.nhand[p] = 0;
        for (int k = 0; k < 5; k++)
            d.hand[p][d.nhand[p]++] = d.deck[d.top++];
    }
    {
        static const char *const lists[] = {"", "", "[\"a\",\"b\"]", "[\"a\",\"b\",\"c\"]",
                                            "[\"a\",\"b\",\"c\",\"d\"]"};
        snprintf(header, sizeof header,
                 "{\"game\":\"cards\",\"players\":%s,\"seed\":%llu,\"options\":%s,"
                 "\"start\":{\"x\":0,\"y\":0,\"card\":\"%s\"}}",
                 lists[nplayers], (unsigned long long)seed, options,
                 rules_card_name(d.deck[0] % 13 + 1, d.deck[0] / 13, name));
    }
    h = cJSON_Parse(header);
    assert_non_null(h);
    if (rules_game_new("cards", h, &err, &g) != 0)
        fail_msg("%s", err.msg);
    cJSON_Delete(h);
    assert_int_equal(rp_record_line(&rec, header), 0);
    *nevents = 0;

    for (;;) {
        rules_status st;
        rules_piece hand[RULES_MAX_HAND];
        rules_move m;
        rules_verdict v;
        int p, nh, pick, rc;

        rules_game_status(g, &st);
        if (st.over)
            break;
        assert_true(*nevents < 200);
        p = st.to_move;
        assert_int_equal(st.bag, 52 - d.top); /* the engine counts the deck */
        assert_int_equal(st.hand[p], d.nhand[p]);
        if (d.top < 52)
            d.hand[p][d.nhand[p]++] = d.deck[d.top++];
        nh = d.nhand[p] < RULES_MAX_HAND ? d.nhand[p] : RULES_MAX_HAND;
        for (int i = 0; i < nh; i++)
            to_piece(d.hand[p][i], &hand[i]);
        ms.n = 0;
        rc = rules_generate(g, p, hand, nh, rp_collect, &ms);
        assert_non_null(ms.m);
        assert_int_equal(rc, ms.n);
        assert_true(ms.n >= 1);
        pick = base_rng_below(&r, ms.n);
        m = ms.m[pick];
        if (d.nhand[p] > RULES_MAX_HAND || base_rng_below(&r, 100) >= show) {
            m.nhand = -1;
            /* Hidden hands may pass even when a card fits. */
            if (base_rng_below(&r, 10) == 0) {
                rules_move_init(&m, RULES_MOVE_PASS);
            }
        }
        assert_int_equal(rules_apply(g, p, &m, &v), 0);
        if (!v.legal)
            fail_msg("seed %llu event %d: %s: %s", (unsigned long long)seed, *nevents + 1, v.rule,
                     v.reason);
        if (m.type == RULES_MOVE_PLACE) {
            int card = m.pieces[0].b * 13 + m.pieces[0].a - 1, k = 0;
            while (d.hand[p][k] != card)
                k++;
            d.hand[p][k] = d.hand[p][--d.nhand[p]];
        }
        memcpy(expected[*nevents], v.scores, sizeof expected[0]);
        ++*nevents;
        assert_int_equal(rp_record_event(&rec, "cards", p, &m), 0);
    }
    rules_game_status(g, final);
    rp_moves_free(&ms);
    rules_game_free(g);
    return rec.text;
}

static void replay(const char *record, int (*expected)[4], int nevents, const rules_status *fin)
{
    th_run run;
    cJSON *last, *scores, *winners;
    int nw = 0;
    assert_int_equal(th_tablecam(&run, record, (const char *[]){"referee", "--game", "cards", "-",
                                                                 NULL}),
                     0);
    if (run.status != 0)
        fail_msg("referee exit %d: %s", run.status, run.err);
    assert_int_equal(th_count_lines(run.out), nevents + 1);
    for (int k = 0; k < nevents; k++) {
        char *line = th_line(run.out, k);
        cJSON *v = cJSON_Parse(line);
        assert_non_null(v);
        if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(v, "legal")))
            fail_msg("event %d judged illegal: %s", k + 1, line);
        scores = cJSON_GetObjectItemCaseSensitive(v, "scores");
        for (int i = 0; i < fin->nplayers; i++)
            assert_int_equal(cJSON_GetArrayItem(scores, i)->valueint, expected[k][i]);
        cJSON_Delete(v);
        free(line);
    }
    {
        char *line = th_line(run.out, nevents);
        last = cJSON_Parse(line);
        free(line);
    }
    assert_non_null(last);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(last, "final")));
    assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(last, "over")));
    scores = cJSON_GetObjectItemCaseSensitive(last, "scores");
    winners = cJSON_GetObjectItemCaseSensitive(last, "winners");
    for (int i = 0; i < fin->nplayers; i++)
        assert_int_equal(cJSON_GetArrayItem(scores, i)->valueint, fin->scores[i]);
    for (int i = 0; i < cJSON_GetArraySize(winners); i++) {
        int w = cJSON_GetArrayItem(winners, i)->valueint;
        assert_true(fin->winners & (1u << w));
        nw++;
    }
    assert_int_equal(nw, __builtin_popcount(fin->winners));
    cJSON_Delete(last);
    th_run_free(&run);
}

static void test_random_games_replayed(void **state)
{
    static const char *const options[] = {
        "{}", "{\"capture\":\"choose\"}", "{\"end\":\"hands-out\"}",
        "{\"capture\":\"choose\",\"end\":\"hands-out\"}"};
    int (*expected)[4] = malloc(sizeof *expected * 200);
    int captures = 0;
    (void)state;
    assert_non_null(expected);
    for (uint64_t seed = 1; seed <= 24; seed++) {
        rules_status fin;
        int nevents;
        int np = 2 + (int)(seed % 3);
        const char *opt = options[seed % 4];
        char *rec = random_game(seed, np, opt, (int)(seed * 37 % 101), expected, &nevents, &fin);
        assert_true(fin.over);
        for (int i = 0; i < np; i++)
            captures += fin.scores[i] > 0;
        replay(rec, expected, nevents, &fin);
        free(rec);
    }
    /* The random players do capture: the games exercise scoring. */
    assert_true(captures > 0);
    free(expected);
}

/* ---- generator against brute force ---- */

static int count_only(void *ctx, const rules_move *m)
{
    (void)m;
    ++*(int *)ctx;
    return 0;
}

static int stop_at_first(void *ctx, const rules_move *m)
{
    (void)m;
    ++*(int *)ctx;
    return 1;
}

static void test_generate_matches_check(void **state)
{
    base_rng r = {99};
    int checked = 0;
    (void)state;
    for (int game = 0; game < 6; game++) {
        rules_game *g = game_with("7D", NULL);
        bool seen[52] = {false};
        seen[6 + 13 * RULES_DIAMONDS] = true;
        for (int turn = 0; turn < 30; turn++) {
            rules_status st;
            rules_piece pos[64], hand[RULES_MAX_HAND];
            int n = rules_position(g, pos, 64), minx = 0, maxx = 0, miny = 0, maxy = 0;
            int nh = 0, gen = 0, brute = 0, p;
            bool used[52];
            rp_moves ms = {0};
            rules_move *play;
            rules_verdict v;

            rules_game_status(g, &st);
            if (st.over)
                break;
            p = st.to_move;
            memcpy(used, seen, sizeof used);
            for (int i = 0; i < n; i++) {
                if (i == 0 || pos[i].x < minx) minx = pos[i].x;
                if (i == 0 || pos[i].x > maxx) maxx = pos[i].x;
                if (i == 0 || pos[i].y < miny) miny = pos[i].y;
                if (i == 0 || pos[i].y > maxy) maxy = pos[i].y;
            }
            /* A hand of cards never seen on the table, as many as the
             * player holds after this turn's draw (passes make it grow). */
            assert_true(st.hand[p] + 1 <= RULES_MAX_HAND);
            while (nh < st.hand[p] + (st.bag > 0)) {
                int c = base_rng_below(&r, 52);
                if (used[c])
                    continue;
                used[c] = true;
                to_piece(c, &hand[nh++]);
            }
            gen = rules_generate(g, p, hand, nh, count_only, &gen) >= 0 ? gen : -1;
            if (n > 0) {
                for (int y = miny - 1; y <= maxy + 1; y++)
                    for (int x = minx - 1; x <= maxx + 1; x++)
                        for (int i = 0; i < nh; i++) {
                            rules_move m;
                            rules_move_init(&m, RULES_MOVE_PLACE);
                            m.npieces = 1;
                            m.pieces[0] = hand[i];
                            m.pieces[0].x = (int16_t)x;
                            m.pieces[0].y = (int16_t)y;
                            memcpy(m.hand, hand, sizeof hand[0] * (size_t)nh);
                            m.nhand = nh;
                            assert_int_equal(rules_check(g, p, &m, &v), 0);
                            brute += v.legal;
                        }
                if (brute == 0)
                    brute = 1; /* then the only move is the pass */
                assert_int_equal(gen, brute);
                checked++;
            }
            /* Every generated move is legal; play a random one. */
            rules_generate(g, p, hand, nh, rp_collect, &ms);
            assert_non_null(ms.m);
            for (int i = 0; i < ms.n; i++) {
                assert_int_equal(rules_check(g, p, &ms.m[i], &v), 0);
                if (!v.legal)
                    fail_msg("generated move refused: %s %s", v.rule, v.reason);
            }
            play = &ms.m[base_rng_below(&r, ms.n)];
            assert_int_equal(rules_apply(g, p, play, &v), 0);
            assert_true(v.legal);
            if (play->type == RULES_MOVE_PLACE)
                seen[play->pieces[0].b * 13 + play->pieces[0].a - 1] = true;
            rp_moves_free(&ms);
        }
        rules_game_free(g);
    }
    assert_true(checked > 50);

    /* Early stop, and the unknown hand (every unseen card). */
    {
        rules_game *g = game_with("KH", NULL);
        int n = 0, all = 0;
        assert_int_equal(rules_generate(g, 0, NULL, 0, count_only, &n), 1); /* the pass */
        n = 0;
        assert_int_equal(rules_generate(g, 0, NULL, -1, stop_at_first, &n), 1);
        assert_int_equal(n, 1);
        /* 18 cards go with KH (11 hearts... see test_hand_rules) on 4 cells. */
        assert_int_equal(rules_generate(g, 0, NULL, -1, count_only, &all), 18 * 4);
        rules_game_free(g);
    }
    /* On an empty table each card is listed once. */
    {
        rules_game *g = game_with("KH", NULL);
        rules_piece hand[3];
        int n = 0;
        ok(g, 1, 0, "QH");
        ok(g, 0, 1, "JH");
        ok(g, 1, 1, "10H");
        to_piece(0, &hand[0]);
        to_piece(20, &hand[1]);
        to_piece(40, &hand[2]);
        assert_int_equal(rules_generate(g, 1, hand, 3, count_only, &n), 3);
        rules_game_free(g);
    }
}

/* ---- the real binary on a typed record ---- */

static void test_referee_binary(void **state)
{
    static const char record[] =
        "{\"game\":\"cards\",\"players\":[\"Ann\",\"Bob\"],\"start\":{\"x\":0,\"y\":0,\"card\":\"KH\"}}\n"
        "{\"player\":0,\"move\":{\"type\":\"place\",\"pieces\":[{\"x\":1,\"y\":0,\"card\":\"QH\"}]},"
        "\"hand\":[\"QH\",\"2S\",\"3S\",\"4S\",\"5S\",\"6S\"]}\n"
        "{\"player\":1,\"move\":{\"type\":\"place\",\"pieces\":[{\"x\":0,\"y\":1,\"card\":\"AS\"}]}}\n"
        "{\"player\":1,\"move\":{\"type\":\"place\",\"pieces\":[{\"x\":0,\"y\":1,\"card\":\"JH\"}]}}\n"
        "{\"player\":0,\"move\":{\"type\":\"place\",\"pieces\":[{\"x\":1,\"y\":1,\"card\":\"10H\"}]}}\n"
        "{\"player\":1,\"move\":{\"type\":\"pass\"}}\n";
    th_run run;
    char *line;
    cJSON *v;
    (void)state;
    assert_int_equal(th_tablecam(&run, record, (const char *[]){"referee", "--game", "cards", "-",
                                                                 NULL}),
                     0);
    assert_int_equal(run.status, 0);
    assert_int_equal(th_count_lines(run.out), 6);
    line = th_line(run.out, 1);
    v = cJSON_Parse(line);
    assert_false(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(v, "legal")));
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(v, "rule")->valuestring,
                        "neighbour-mismatch");
    cJSON_Delete(v);
    free(line);
    line = th_line(run.out, 3);
    v = cJSON_Parse(line);
    assert_int_equal(cJSON_GetObjectItemCaseSensitive(v, "points")->valueint, 46);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(v, "captured")), 4);
    cJSON_Delete(v);
    free(line);
    line = th_line(run.out, 4);
    assert_non_null(strstr(line, "not knowable"));
    free(line);
    line = th_line(run.out, 5);
    assert_non_null(strstr(line, "\"final\":true"));
    assert_non_null(strstr(line, "\"scores\":[46,0]"));
    free(line);
    th_run_free(&run);

    /* A header without its start card, and a move with a bad card, are
     * records that cannot be read: exit 2 with the line. */
    assert_int_equal(th_tablecam(&run, "{\"game\":\"cards\",\"players\":[\"a\",\"b\"]}\n",
                                 (const char *[]){"referee", "--game", "cards", "-", NULL}),
                     0);
    assert_int_equal(run.status, 2);
    assert_non_null(strstr(run.err, "line 1"));
    assert_non_null(strstr(run.err, "\"start\""));
    th_run_free(&run);
    assert_int_equal(
        th_tablecam(&run,
                    "{\"game\":\"cards\",\"players\":[\"a\",\"b\"],\"start\":{\"x\":0,\"y\":0,"
                    "\"card\":\"KD\"}}\n{\"player\":0,\"move\":{\"type\":\"place\",\"pieces\":"
                    "[{\"x\":1,\"y\":0,\"card\":\"11D\"}]}}\n",
                    (const char *[]){"referee", "--game", "cards", "-", NULL}),
        0);
    assert_int_equal(run.status, 2);
    assert_non_null(strstr(run.err, "line 2"));
    assert_non_null(strstr(run.err, "\"11D\""));
    th_run_free(&run);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_header),
        cmocka_unit_test(test_placement_rules),
        cmocka_unit_test(test_no_wrap),
        cmocka_unit_test(test_side_by_side),
        cmocka_unit_test(test_hand_rules),
        cmocka_unit_test(test_bad_moves),
        cmocka_unit_test(test_capture_single),
        cmocka_unit_test(test_capture_several_squares),
        cmocka_unit_test(test_capture_3x3_by_centre),
        cmocka_unit_test(test_capture_refill_gap),
        cmocka_unit_test(test_capture_choose),
        cmocka_unit_test(test_capture_choose_3x3),
        cmocka_unit_test(test_end_last_draw_and_tie),
        cmocka_unit_test(test_end_hands_out),
        cmocka_unit_test(test_codec),
        cmocka_unit_test(test_verdict_json),
        cmocka_unit_test(test_clone),
        cmocka_unit_test(test_generate_matches_check),
        cmocka_unit_test(test_referee_binary),
        cmocka_unit_test(test_random_games_replayed),
    };
    th_case_filter();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
