/* tests/test_rules_cubed.c: the cubed engine (docs/rules-cubed.md): every
 * rule by its id, the options, round ends, scoring and winners, the codec,
 * the move generator against brute force, and random full games whose
 * records are replayed through the real `tablecam referee`. */
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

enum { R = RULES_RED, O = RULES_ORANGE, Y = RULES_YELLOW, G = RULES_GREEN, B = RULES_BLUE,
       P = RULES_PURPLE, K = RULES_BLACK, W = RULES_WHITE };

static const int dq[6] = {1, 1, 0, -1, -1, 0};
static const int dr[6] = {-1, 0, 1, 1, 0, -1};

/* ---- helpers ---- */

static rules_game *mk(const char *header)
{
    cJSON *h = header ? cJSON_Parse(header) : NULL;
    rules_game *g = NULL;
    base_err err;
    int rc;
    if (header)
        assert_non_null(h);
    rc = rules_game_new("cubed", h, &err, &g);
    if (rc != 0)
        fail_msg("rules_game_new: %s", err.msg);
    cJSON_Delete(h);
    return g;
}

/* The error message of a header that must be refused. */
static void header_error(const char *header, const char *needle)
{
    cJSON *h = cJSON_Parse(header);
    rules_game *g = NULL;
    base_err err;
    assert_non_null(h);
    assert_int_not_equal(rules_game_new("cubed", h, &err, &g), 0);
    assert_null(g);
    if (!strstr(err.msg, needle))
        fail_msg("header %s: error \"%s\" does not name \"%s\"", header, err.msg, needle);
    cJSON_Delete(h);
}

static rules_piece pc(int q, int r, int par, int a, int b, int c)
{
    rules_piece p;
    memset(&p, 0, sizeof p);
    p.x = (int16_t)q;
    p.y = (int16_t)r;
    p.parity = (uint8_t)par;
    p.a = (uint8_t)a;
    p.b = (uint8_t)b;
    p.c = (uint8_t)c;
    p.owner = -1;
    return p;
}

static int to_move(const rules_game *g)
{
    rules_status st;
    rules_game_status(g, &st);
    return st.to_move;
}

static void place_move(rules_move *m, rules_piece p)
{
    rules_move_init(m, RULES_MOVE_PLACE);
    m->npieces = 1;
    m->pieces[0] = p;
}

/* Applies m by whoever is to move and requires it to be legal. */
static rules_verdict ok_move(rules_game *g, const rules_move *m)
{
    rules_verdict v;
    int player = to_move(g);
    assert_int_equal(rules_apply(g, player, m, &v), 0);
    if (!v.legal)
        fail_msg("expected legal, got %s: %s", v.rule, v.reason);
    return v;
}

static rules_verdict ok_place(rules_game *g, rules_piece p)
{
    rules_move m;
    place_move(&m, p);
    return ok_move(g, &m);
}

static rules_verdict ok_type(rules_game *g, int type)
{
    rules_move m;
    rules_move_init(&m, type);
    return ok_move(g, &m);
}

/* Checks m by whoever is to move and requires rule; the game must not
 * change. */
static void bad_move(rules_game *g, const rules_move *m, const char *rule)
{
    rules_verdict v;
    rules_status before, after;
    int player = to_move(g);
    rules_game_status(g, &before);
    assert_int_equal(rules_apply(g, player, m, &v), 0);
    if (v.legal)
        fail_msg("expected %s, got a legal verdict", rule);
    if (strcmp(v.rule, rule) != 0)
        fail_msg("expected %s, got %s: %s", rule, v.rule, v.reason);
    assert_true(strlen(v.reason) > 10);
    rules_game_status(g, &after);
    assert_int_equal(before.moves, after.moves);
    assert_int_equal(before.to_move, after.to_move);
}

static void bad_place(rules_game *g, rules_piece p, const char *rule)
{
    rules_move m;
    place_move(&m, p);
    bad_move(g, &m, rule);
}

static void bad_type(rules_game *g, int type, const char *rule)
{
    rules_move m;
    rules_move_init(&m, type);
    bad_move(g, &m, rule);
}

/* The test's own reading of the point chart. */
static int points_of(int a, int b, int c)
{
    int f[3] = {a, b, c}, white = 0, black = 0;
    for (int i = 0; i < 3; i++) {
        white += f[i] == W;
        black += f[i] == K;
    }
    if (white)
        return 10;
    if (black == 2)
        return 5;
    if (a == b && b == c)
        return 3;
    if (a == b || b == c || a == c)
        return 2;
    return 1;
}

/* ---- placement rules ---- */

static void test_second_piece_matches(void **state)
{
    rules_game *g = mk("{\"game\":\"cubed\",\"players\":[\"A\",\"B\"]}");
    rules_status st;
    (void)state;
    /* (0,0) parity 0: NE,NW red; E,SE green; SW,W blue.  Red-blue-green
     * would be its mirror image: no such piece. */
    bad_place(g, pc(0, 0, 0, R, B, G), "piece-flipped");
    ok_place(g, pc(0, 0, 0, R, G, B));
    bad_place(g, pc(3, 3, 0, B, B, B), "not-touching");
    bad_place(g, pc(1, 0, 1, B, B, B), "heights");
    bad_place(g, pc(0, 0, 0, R, R, R), "cell-occupied");
    /* East of it the new piece's W edge (third face) meets green. */
    bad_place(g, pc(1, 0, 0, R, R, R), "colour-mismatch");
    bad_place(g, pc(1, 0, 0, Y, Y, O), "colour-mismatch");
    bad_place(g, pc(1, 0, 0, O, R, W), "piece-flipped");
    ok_place(g, pc(1, 0, 0, R, O, W)); /* white matches green */
    rules_game_status(g, &st);
    assert_int_equal(st.hand[0], 24);
    assert_int_equal(st.hand[1], 24);
    assert_int_equal(st.bag, 77 - 50);
    assert_int_equal(st.to_move, 0);
    /* From the third piece on: 2 touches.  (2,0) touches only (1,0). */
    bad_place(g, pc(2, 0, 0, G, G, R), "touch-two");
    bad_place(g, pc(6, 0, 0, G, G, R), "touch-two");
    /* (1,-1): its SW edge meets (0,0)'s NE (red), its SE edge (1,0)'s NW
     * (red): faces [?, red, red] in parity 0. */
    bad_place(g, pc(1, -1, 0, O, O, R), "colour-mismatch");
    bad_place(g, pc(1, -1, 0, W, R, R), "piece-unknown");
    ok_place(g, pc(1, -1, 0, O, R, R)); /* red-red-orange, turned */
    rules_game_free(g);
}

static void test_piece_identity(void **state)
{
    rules_game *g = mk("{\"game\":\"cubed\",\"players\":[\"A\",\"B\"]}");
    rules_move m;
    (void)state;
    bad_place(g, pc(0, 0, 0, K, K, K), "piece-unknown");
    bad_place(g, pc(0, 0, 0, W, W, R), "piece-unknown");
    bad_place(g, pc(0, 0, 0, R, Y, O), "piece-flipped"); /* mirror of red-orange-yellow */
    bad_place(g, pc(0, 0, 0, O, R, W), "piece-flipped"); /* mirror of red-orange-white */
    ok_place(g, pc(0, 0, 0, Y, R, O));                   /* red-orange-yellow, turned */
    bad_place(g, pc(1, 0, 0, O, Y, R), "piece-taken");
    /* A hand shown must be the referee's count of unseen pieces. */
    place_move(&m, pc(1, 0, 0, R, R, R));
    m.nhand = 2;
    m.hand[0] = pc(0, 0, 0, O, O, O);
    m.hand[1] = pc(0, 0, 0, B, B, B);
    bad_move(g, &m, "hand-count");
    m.nhand = 25;
    for (int i = 0; i < 25; i++)
        m.hand[i] = pc(0, 0, 0, i % 6, i % 6, (i + 1 + i / 6) % 6);
    m.hand[0] = pc(0, 0, 0, B, B, B);
    bad_move(g, &m, "piece-not-in-hand");
    m.hand[0] = pc(0, 0, 0, R, O, Y); /* on the table */
    bad_move(g, &m, "hand-invalid");
    m.hand[0] = pc(0, 0, 0, R, R, R);
    ok_move(g, &m);
    rules_game_free(g);
}

/* (0,0) red triple, (0,1) turned red-red-orange, (-1,1) turned
 * red-orange-white whose white diamond faces NE and NW. */
static rules_game *blocking_table(void)
{
    rules_game *g = mk("{\"game\":\"cubed\",\"players\":[\"A\",\"B\"]}");
    bad_place(g, pc(0, 0, 0, K, K, R), "blocking-early");
    ok_place(g, pc(0, 0, 0, R, R, R));
    bad_place(g, pc(1, 0, 0, K, K, R), "blocking-early");
    ok_place(g, pc(0, 1, 0, R, O, R));
    bad_place(g, pc(1, 0, 0, K, K, R), "blocking-early");
    ok_place(g, pc(-1, 1, 0, W, R, O));
    return g;
}

static void test_blocking(void **state)
{
    rules_game *g = blocking_table();
    rules_verdict v;
    (void)state;
    /* At (1,0) the third diamond (SW, W) meets red twice; the black ones
     * face four empty cells. */
    bad_place(g, pc(1, 0, 0, K, K, O), "colour-mismatch");
    bad_place(g, pc(1, 0, 0, R, K, K), "block-black-edge");
    bad_place(g, pc(-2, 2, 0, R, K, K), "block-colour"); /* touches one piece */
    bad_place(g, pc(-1, 0, 0, K, R, K), "white-blocking");
    /* Legal; then the four cells beside its black sides are dead, for
     * every piece, blocking ones included. */
    v = ok_place(g, pc(1, 0, 0, K, K, R));
    assert_true(v.legal);
    assert_int_equal(rules_position(g, NULL, 0), 4);
    bad_place(g, pc(1, 1, 0, O, O, O), "cell-dead");
    bad_place(g, pc(2, 0, 0, O, O, O), "cell-dead");
    bad_place(g, pc(2, -1, 0, O, O, O), "cell-dead");
    bad_place(g, pc(1, -1, 0, G, G, G), "cell-dead");
    bad_place(g, pc(1, -1, 0, K, K, O), "cell-dead");
    rules_game_free(g);
}

static void test_white_never_touches_blocking(void **state)
{
    /* The wild's white diamond is at (-1,1)'s NE/NW: a blocking piece whose
     * coloured diamond meets it is refused; white against a colour is fine. */
    rules_game *g = blocking_table();
    (void)state;
    bad_place(g, pc(-1, 0, 0, K, R, K), "white-blocking");
    ok_place(g, pc(-1, 0, 0, G, R, R)); /* red-red-green turned: E red, SE red */
    rules_game_free(g);
}

/* ---- turns ---- */

static void test_turns_draw_pass(void **state)
{
    rules_game *g = mk("{\"game\":\"cubed\",\"players\":[\"A\",\"B\",\"C\"]}");
    rules_status st;
    rules_move m;
    (void)state;
    rules_game_status(g, &st);
    assert_int_equal(st.hand[0], 18);
    assert_int_equal(st.bag, 77 - 54);
    assert_int_equal(st.round, 1);
    bad_type(g, RULES_MOVE_PASS, "pass-without-draw");
    bad_type(g, RULES_MOVE_REVEAL, "reveal-not-now");
    rules_move_init(&m, RULES_MOVE_PLACE);
    bad_move(g, &m, "place-one");
    rules_move_init(&m, RULES_MOVE_DRAW);
    m.count = 2;
    bad_move(g, &m, "draw3-off");
    ok_type(g, RULES_MOVE_DRAW);
    bad_type(g, RULES_MOVE_DRAW, "draw-twice");
    assert_int_equal(to_move(g), 0);
    ok_place(g, pc(0, 0, 0, B, B, B)); /* draw, then play */
    rules_game_status(g, &st);
    assert_int_equal(st.hand[0], 18);
    assert_int_equal(st.bag, 77 - 54 - 1);
    assert_int_equal(st.to_move, 1);
    ok_type(g, RULES_MOVE_DRAW);
    ok_type(g, RULES_MOVE_PASS); /* draw, then pass */
    rules_game_status(g, &st);
    assert_int_equal(st.hand[1], 19);
    assert_int_equal(st.to_move, 2);
    assert_int_equal(st.moves, 4);
    rules_game_free(g);
}

/* A two-player header whose catalogue is n red triples: every piece
 * matches every other, so only geometry matters. */
static const char *triples_header_for(const char *players, int n, const char *options)
{
    static char header[8192];
    size_t len = (size_t)snprintf(header, sizeof header,
                                  "{\"game\":\"cubed\",\"players\":[%s],\"options\":%s,"
                                  "\"catalogue\":[",
                                  players, options);
    for (int i = 0; i < n; i++)
        len += (size_t)snprintf(header + len, sizeof header - len, "%s[\"red\",\"red\",\"red\"]",
                                i ? "," : "");
    snprintf(header + len, sizeof header - len, "]}");
    return header;
}

static const char *triples_header(int n, const char *options)
{
    return triples_header_for("\"A\",\"B\"", n, options);
}

static void test_bag_empty(void **state)
{
    /* A catalogue of exactly the deal: the bag starts empty, so passing
     * without drawing is allowed and drawing is not. */
    char header[4096];
    size_t n = (size_t)snprintf(header, sizeof header,
                                "{\"game\":\"cubed\",\"players\":[\"A\",\"B\"],\"catalogue\":[");
    rules_game *g;
    rules_status st;
    rules_move m;
    (void)state;
    for (int i = 0; i < 50; i++)
        n += (size_t)snprintf(header + n, sizeof header - n, "%s[\"blue\",\"blue\",\"blue\"]",
                              i ? "," : "");
    snprintf(header + n, sizeof header - n, "]}");
    g = mk(header);
    rules_game_status(g, &st);
    assert_int_equal(st.bag, 0);
    bad_type(g, RULES_MOVE_DRAW, "bag-empty");
    ok_type(g, RULES_MOVE_PASS);
    assert_int_equal(to_move(g), 1);
    rules_game_free(g);
    /* draw3 asks for more than the bag holds */
    g = mk(triples_header(52, "{\"draw3\":true}"));
    rules_game_status(g, &st);
    assert_int_equal(st.bag, 2);
    rules_move_init(&m, RULES_MOVE_DRAW);
    m.count = 3;
    bad_move(g, &m, "bag-short");
    m.count = 2;
    ok_move(g, &m); /* keeps one, the turn ends */
    rules_game_status(g, &st);
    assert_int_equal(st.bag, 1);
    assert_int_equal(st.hand[0], 26);
    assert_int_equal(st.to_move, 1);
    ok_type(g, RULES_MOVE_DRAW);
    m.count = 1;
    bad_move(g, &m, "draw3-late");
    rules_game_free(g);
}

/* ---- round ends, reveals, scores ---- */

/* Fills m with a reveal of n pieces of the default catalogue, skipping the
 * first `skip` of the list and pieces in `avoid` (canonical or not). */
static const int catalogue_list[][3] = {
    {R, R, R}, {O, O, O}, {Y, Y, Y}, {G, G, G}, {B, B, B}, {P, P, P},
    {R, R, O}, {R, R, Y}, {R, R, G}, {R, R, B}, {R, R, P}, {O, O, R}, {O, O, Y}, {O, O, G},
    {O, O, B}, {O, O, P}, {Y, Y, R}, {Y, Y, O}, {Y, Y, G}, {Y, Y, B}, {Y, Y, P}, {G, G, R},
    {G, G, O}, {G, G, Y}, {G, G, B}, {G, G, P}, {B, B, R}, {B, B, O}, {B, B, Y}, {B, B, G},
    {B, B, P}, {P, P, R}, {P, P, O}, {P, P, Y}, {P, P, G}, {P, P, B},
    {R, O, Y}, {R, O, G}, {R, O, B}, {R, O, P}, {R, Y, G}, {R, Y, B}, {R, Y, P}, {R, G, B},
    {R, G, P}, {R, B, P}, {O, Y, G}, {O, Y, B}, {O, Y, P}, {O, G, B}, {O, G, P}, {O, B, P},
    {Y, G, B}, {Y, G, P}, {Y, B, P}, {G, B, P},
    {K, K, R}, {K, K, O}, {K, K, Y}, {K, K, G}, {K, K, B}, {K, K, P},
    {R, O, W}, {R, Y, W}, {R, G, W}, {R, B, W}, {R, P, W}, {O, Y, W}, {O, G, W}, {O, B, W},
    {O, P, W}, {Y, G, W}, {Y, B, W}, {Y, P, W}, {G, B, W}, {G, P, W}, {B, P, W},
};
#define NCATALOGUE ((int)(sizeof catalogue_list / sizeof catalogue_list[0]))

static int reveal_range(rules_move *m, int from, int n)
{
    int pts = 0;
    rules_move_init(m, RULES_MOVE_REVEAL);
    for (int i = 0; i < n; i++) {
        const int *f = catalogue_list[from + i];
        m->pieces[i] = pc(0, 0, 0, f[0], f[1], f[2]);
        pts += points_of(f[0], f[1], f[2]);
    }
    m->npieces = n;
    return pts;
}

static void test_round_end_stalled_and_reveals(void **state)
{
    rules_game *g = mk("{\"game\":\"cubed\",\"players\":[\"A\",\"B\"]}");
    rules_verdict v;
    rules_status st;
    rules_move m;
    int p0, p1;
    (void)state;
    assert_int_equal(NCATALOGUE, 77);
    /* Both draw and pass: 2 turns in a row without a piece ends the round. */
    ok_type(g, RULES_MOVE_DRAW);
    v = ok_type(g, RULES_MOVE_PASS);
    assert_false(v.over);
    ok_type(g, RULES_MOVE_DRAW);
    v = ok_type(g, RULES_MOVE_PASS);
    assert_false(v.over);
    assert_non_null(strstr(v.note, "reveal"));
    bad_type(g, RULES_MOVE_DRAW, "reveal-pending");
    rules_move_init(&m, RULES_MOVE_PLACE);
    m.npieces = 1;
    m.pieces[0] = pc(0, 0, 0, R, R, R);
    bad_move(g, &m, "reveal-pending");
    /* Each holds 26 now. */
    reveal_range(&m, 0, 25);
    bad_move(g, &m, "reveal-count");
    p1 = reveal_range(&m, 40, 26); /* singles, blocking and wild */
    assert_int_equal(rules_apply(g, 1, &m, &v), 0);
    assert_true(v.legal);
    assert_int_equal(v.points, p1);
    assert_false(v.over);
    assert_int_equal(rules_apply(g, 1, &m, &v), 0);
    assert_string_equal(v.rule, "reveal-not-needed");
    /* Player 0 may not show pieces player 1 showed. */
    reveal_range(&m, 40, 26);
    assert_int_equal(rules_apply(g, 0, &m, &v), 0);
    assert_string_equal(v.rule, "reveal-taken");
    p0 = reveal_range(&m, 0, 26); /* triples and doubles: fewer points */
    m.pieces[5] = pc(0, 0, 0, K, K, K);
    assert_int_equal(rules_apply(g, 0, &m, &v), 0);
    assert_string_equal(v.rule, "reveal-unknown");
    reveal_range(&m, 0, 26);
    m.pieces[3] = pc(0, 0, 0, R, Y, O);
    assert_int_equal(rules_apply(g, 0, &m, &v), 0);
    assert_string_equal(v.rule, "reveal-flipped");
    assert_non_null(strstr(v.reason, "revealed piece 4"));
    reveal_range(&m, 0, 26);
    assert_int_equal(rules_apply(g, 0, &m, &v), 0);
    assert_true(v.legal);
    assert_int_equal(v.points, p0);
    assert_true(p0 < p1);
    /* The round is scored: player 0 won it and starts round 2. */
    assert_true(v.over);
    assert_int_equal(v.winners, 1u);
    assert_int_equal(v.round, 1);
    rules_game_status(g, &st);
    assert_false(st.over);
    assert_int_equal(st.round, 2);
    assert_int_equal(st.to_move, 0);
    assert_int_equal(st.scores[0], p0);
    assert_int_equal(st.scores[1], p1);
    assert_int_equal(st.hand[0], 25);
    assert_int_equal(st.bag, 27);
    assert_int_equal(rules_position(g, NULL, 0), 0);
    rules_game_free(g);
}

/* Two catalogue copies of "blue triple" and one red triple: once the red
 * one is down no blue piece can touch it, so no playable cell is left. */
static void test_round_end_blocked_and_game_over(void **state)
{
    char header[4096];
    size_t n = (size_t)snprintf(header, sizeof header,
                                "{\"game\":\"cubed\",\"players\":[\"A\",\"B\"],\"options\":"
                                "{\"rounds\":1},\"catalogue\":[[\"red\",\"red\",\"red\"]");
    rules_game *g;
    rules_verdict v;
    rules_status st;
    rules_move m;
    (void)state;
    for (int i = 0; i < 50; i++)
        n += (size_t)snprintf(header + n, sizeof header - n, ",[\"blue\",\"blue\",\"blue\"]");
    snprintf(header + n, sizeof header - n, "]}");
    g = mk(header);
    v = ok_place(g, pc(0, 0, 1, R, R, R));
    assert_non_null(strstr(v.note, "no playable cell"));
    rules_move_init(&m, RULES_MOVE_REVEAL);
    for (int i = 0; i < 25; i++)
        m.pieces[i] = pc(0, 0, 0, B, B, B);
    m.npieces = 25;
    assert_int_equal(rules_apply(g, 1, &m, &v), 0);
    assert_true(v.legal);
    assert_int_equal(v.points, 75);
    m.npieces = 24;
    assert_int_equal(rules_apply(g, 0, &m, &v), 0);
    assert_true(v.legal);
    assert_int_equal(v.points, 72);
    /* One round: the game is over, lowest total wins. */
    assert_true(v.over);
    assert_int_equal(v.winners, 1u);
    rules_game_status(g, &st);
    assert_true(st.over);
    assert_int_equal(st.winners, 1u);
    bad_type(g, RULES_MOVE_PASS, "game-over");
    rules_game_free(g);
}

static int first_move_cb(void *ctx, const rules_move *m)
{
    *(rules_piece *)ctx = m->pieces[0];
    return 1;
}

/* Six players, 9 pieces each, all red triples: player 1 empties their
 * hand on the 49th placement and wins the round with 0. */
static void test_round_end_empty_hand(void **state)
{
    char header[8192];
    size_t n = (size_t)snprintf(header, sizeof header,
                                "{\"game\":\"cubed\",\"players\":[\"A\",\"B\",\"C\",\"D\",\"E\","
                                "\"F\"],\"round\":2,\"scores\":[1,2,3,4,5,6],\"catalogue\":[");
    rules_game *g;
    rules_verdict v;
    rules_status st;
    rules_move m;
    (void)state;
    for (int i = 0; i < 60; i++)
        n += (size_t)snprintf(header + n, sizeof header - n, "%s[\"red\",\"red\",\"red\"]",
                              i ? "," : "");
    snprintf(header + n, sizeof header - n, "]}");
    g = mk(header);
    for (int i = 0; i < 49; i++) {
        rules_piece p;
        assert_int_equal(rules_generate(g, to_move(g), NULL, -1, first_move_cb, &p), 1);
        v = ok_place(g, p);
    }
    assert_non_null(strstr(v.note, "player 1 emptied"));
    rules_game_status(g, &st);
    assert_int_equal(st.hand[0], 0);
    assert_int_equal(st.hand[1], 1);
    rules_move_init(&m, RULES_MOVE_REVEAL);
    assert_int_equal(rules_apply(g, 0, &m, &v), 0);
    assert_string_equal(v.rule, "reveal-not-needed");
    m.npieces = 1;
    m.pieces[0] = pc(0, 0, 0, R, R, R);
    for (int p = 1; p < 6; p++) {
        assert_int_equal(rules_apply(g, p, &m, &v), 0);
        assert_true(v.legal);
        assert_int_equal(v.points, 3);
    }
    assert_true(v.over);
    assert_int_equal(v.winners, 1u);
    assert_int_equal(v.round, 2);
    rules_game_status(g, &st);
    assert_int_equal(st.round, 3);
    assert_int_equal(st.to_move, 0);
    assert_int_equal(st.scores[0], 1);
    assert_int_equal(st.scores[5], 9);
    assert_false(st.over);
    rules_game_free(g);
}

/* A hand too big for one event is shown in parts of 32. */
static void test_reveal_in_parts(void **state)
{
    rules_game *g = mk(triples_header(100, "{}"));
    rules_status st;
    rules_verdict v;
    rules_move m;
    (void)state;
    for (int i = 0; i < 8; i++) {
        rules_piece p;
        ok_type(g, RULES_MOVE_DRAW);
        ok_type(g, RULES_MOVE_PASS);
        assert_int_equal(rules_generate(g, 1, NULL, -1, first_move_cb, &p), 1);
        ok_place(g, p);
    }
    ok_type(g, RULES_MOVE_DRAW);
    ok_type(g, RULES_MOVE_PASS);
    ok_type(g, RULES_MOVE_DRAW);
    ok_type(g, RULES_MOVE_PASS);
    rules_game_status(g, &st);
    assert_int_equal(st.hand[0], 34);
    assert_int_equal(st.hand[1], 18);
    assert_int_equal(st.bag, 50 - 10);
    rules_move_init(&m, RULES_MOVE_REVEAL);
    for (int i = 0; i < 32; i++)
        m.pieces[i] = pc(0, 0, 0, R, R, R);
    m.npieces = 31;
    assert_int_equal(rules_apply(g, 0, &m, &v), 0);
    assert_string_equal(v.rule, "reveal-count");
    m.npieces = 32;
    assert_int_equal(rules_apply(g, 0, &m, &v), 0);
    assert_true(v.legal);
    assert_int_equal(v.points, 96);
    m.npieces = 3;
    assert_int_equal(rules_apply(g, 0, &m, &v), 0);
    assert_string_equal(v.rule, "reveal-count");
    m.npieces = 2;
    assert_int_equal(rules_apply(g, 0, &m, &v), 0);
    assert_true(v.legal);
    assert_false(v.over);
    m.npieces = 18;
    assert_int_equal(rules_apply(g, 1, &m, &v), 0);
    assert_true(v.legal);
    assert_true(v.over);
    assert_int_equal(v.winners, 2u);
    rules_game_status(g, &st);
    assert_int_equal(st.scores[0], 102);
    assert_int_equal(st.scores[1], 54);
    assert_int_equal(st.to_move, 1);
    rules_game_free(g);
}

/* ---- options ---- */

static void test_header_options(void **state)
{
    rules_game *g;
    rules_status st;
    (void)state;
    header_error("{\"game\":\"cubed\",\"players\":[\"A\",\"B\"],\"options\":{\"bridges\":true}}",
                 "\"bridges\"");
    header_error("{\"game\":\"cubed\",\"players\":[\"A\",\"B\"],\"options\":{\"void\":1}}",
                 "\"void\"");
    header_error("{\"game\":\"cubed\",\"players\":[\"A\",\"B\"],\"options\":{\"rounds\":2}}",
                 "\"rounds\"");
    header_error("{\"game\":\"cubed\",\"players\":[\"A\",\"B\"],\"options\":{\"solo\":true}}",
                 "\"solo\"");
    header_error("{\"game\":\"cubed\",\"players\":[\"A\"],\"options\":{\"solo\":false}}",
                 "\"solo\"");
    header_error("{\"game\":\"cubed\",\"players\":[\"A\"],\"options\":{\"rounds\":3}}",
                 "\"rounds\"");
    header_error("{\"game\":\"cubed\",\"players\":[\"A\",\"B\"],\"round\":4}", "\"round\"");
    header_error("{\"game\":\"cubed\",\"players\":[\"A\",\"B\"],\"catalogue\":[[\"red\",\"white\","
                 "\"white\"]]}",
                 "\"catalogue\" item 1");
    header_error("{\"game\":\"cubed\",\"players\":[\"A\",\"B\"],\"catalogue\":[[\"red\",\"pink\","
                 "\"blue\"]]}",
                 "pink");
    header_error("{\"game\":\"cubed\",\"players\":[\"A\",\"B\"],\"catalogue\":[[\"red\",\"red\","
                 "\"blue\"]]}",
                 "too few");
    header_error("{\"game\":\"cubed\",\"players\":[\"A\",\"B\",\"C\",\"D\",\"E\",\"F\",\"G\"]}",
                 "1 to 6");
    g = mk("{\"game\":\"cubed\",\"players\":[\"A\",\"B\",\"C\",\"D\",\"E\",\"F\"],\"options\":"
           "{\"bridge\":true,\"void\":true,\"draw3\":true,\"rounds\":3},\"round\":3}");
    rules_game_status(g, &st);
    assert_int_equal(st.hand[5], 9);
    assert_int_equal(st.bag, 77 - 54);
    assert_int_equal(st.round, 3);
    rules_game_free(g);
    for (int n = 1; n <= 5; n++) {
        static const int deal[] = {0, 25, 25, 18, 13, 11};
        char h[128];
        snprintf(h, sizeof h, "{\"game\":\"cubed\",\"players\":[%s]}",
                 n == 1   ? "\"A\""
                 : n == 2 ? "\"A\",\"B\""
                 : n == 3 ? "\"A\",\"B\",\"C\""
                 : n == 4 ? "\"A\",\"B\",\"C\",\"D\""
                          : "\"A\",\"B\",\"C\",\"D\",\"E\"");
        g = mk(h);
        rules_game_status(g, &st);
        assert_int_equal(st.hand[n - 1], deal[n]);
        assert_int_equal(st.bag, 77 - n * deal[n]);
        rules_game_free(g);
    }
}

/* Occupied-neighbour bits of (q,r) in a position. */
static unsigned around(const rules_piece *pos, int n, int q, int r)
{
    unsigned m = 0;
    for (int i = 0; i < n; i++)
        for (int e = 0; e < 6; e++)
            if (pos[i].x == q + dq[e] && pos[i].y == r + dr[e])
                m |= 1u << e;
    return m;
}

static int arcs(unsigned m)
{
    int n = 0;
    for (int e = 0; e < 6; e++)
        n += (m >> e & 1) && !(m >> ((e + 5) % 6) & 1);
    return n;
}

typedef struct collect {
    rules_piece *p;
    int n, cap;
} collect;

static int collect_cb(void *ctx, const rules_move *m)
{
    collect *c = ctx;
    if (c->n == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 256;
        c->p = realloc(c->p, sizeof *c->p * (size_t)c->cap);
        assert_non_null(c->p);
    }
    assert_int_equal(m->type, RULES_MOVE_PLACE);
    assert_int_equal(m->npieces, 1);
    c->p[c->n++] = m->pieces[0];
    return 0;
}

/* Lays red triples on the ring around (0,0) except (0,-1), each touching
 * 2 pieces: then (0,-1) bridges two arcs and (0,0) fills a void. */
static void build_ring(rules_game *g)
{
    static const int cells[][2] = {{1, -1}, {1, 0},  {2, -1}, {2, 0},  {1, 1},  {0, 1},
                                   {0, 2},  {-1, 2}, {-1, 1}, {-2, 2}, {-2, 1}, {-1, 0}};
    for (size_t i = 0; i < sizeof cells / sizeof cells[0]; i++)
        ok_place(g, pc(cells[i][0], cells[i][1], 0, R, R, R));
}

static void test_option_bridge(void **state)
{
    rules_game *g = mk(triples_header(100, "{\"bridge\":true}"));
    rules_piece p;
    rules_verdict v;
    int who;
    (void)state;
    build_ring(g);
    {
        rules_piece pos[128];
        int n = rules_position(g, pos, 128);
        assert_int_equal(arcs(around(pos, n, 0, -1)), 2);
    }
    p = pc(0, -1, 0, R, R, R);
    who = to_move(g);
    v = ok_place(g, p);
    assert_non_null(strstr(v.note, "second piece"));
    assert_int_equal(to_move(g), who);
    bad_type(g, RULES_MOVE_DRAW, "draw-bonus");
    ok_type(g, RULES_MOVE_PASS); /* declining the bonus needs no draw */
    assert_int_equal(to_move(g), 1 - who);
    rules_game_free(g);
    /* Without the option the turn ends. */
    g = mk(triples_header(100, "{}"));
    build_ring(g);
    who = to_move(g);
    v = ok_place(g, p);
    assert_int_equal(to_move(g), 1 - who);
    rules_game_free(g);
}

static void test_option_void(void **state)
{
    rules_game *g = mk(triples_header(100, "{\"void\":true}"));
    rules_piece p;
    rules_status before, after;
    rules_move m;
    int who;
    (void)state;
    build_ring(g);
    ok_place(g, pc(0, -1, 0, R, R, R));
    p = pc(0, 0, 0, R, R, R);
    who = to_move(g);
    place_move(&m, p);
    m.give = (int8_t)who;
    bad_move(g, &m, "give-seat");
    m.give = (int8_t)(1 - who);
    rules_game_status(g, &before);
    ok_move(g, &m);
    rules_game_status(g, &after);
    assert_int_equal(after.hand[who], before.hand[who] - 2);
    assert_int_equal(after.hand[1 - who], before.hand[1 - who] + 1);
    /* A gift needs a void filled. */
    {
        collect c = {0};
        rules_generate(g, to_move(g), NULL, -1, collect_cb, &c);
        rules_piece pos[128];
        int n = rules_position(g, pos, 128), i;
        for (i = 0; i < c.n && around(pos, n, c.p[i].x, c.p[i].y) == 0x3f; i++)
            ;
        assert_true(i < c.n);
        place_move(&m, c.p[i]);
        m.give = (int8_t)who;
        bad_move(g, &m, "void-not-filled");
        free(c.p);
    }
    rules_game_free(g);
    g = mk(triples_header(100, "{}"));
    build_ring(g);
    ok_place(g, pc(0, -1, 0, R, R, R));
    place_move(&m, pc(0, 0, 0, R, R, R));
    m.give = (int8_t)(1 - to_move(g));
    bad_move(g, &m, "void-off");
    rules_game_free(g);
    /* Six players, 9 pieces each: player 1 fills the void with their last
     * piece, so there is nothing left to give. */
    g = mk(triples_header_for("\"A\",\"B\",\"C\",\"D\",\"E\",\"F\"", 60, "{\"void\":true}"));
    build_ring(g);
    ok_place(g, pc(0, -1, 0, R, R, R));
    for (int i = 13; i < 48; i++) {
        collect c = {0};
        int j = 0;
        rules_generate(g, to_move(g), NULL, -1, collect_cb, &c);
        while (j < c.n && c.p[j].x == 0 && c.p[j].y == 0)
            j++;
        assert_true(j < c.n);
        ok_place(g, c.p[j]);
        free(c.p);
    }
    rules_game_status(g, &before);
    assert_int_equal(before.to_move, 0);
    assert_int_equal(before.hand[0], 1);
    place_move(&m, pc(0, 0, 0, R, R, R));
    m.give = 3;
    bad_move(g, &m, "give-empty");
    rules_game_free(g);
}

static void test_option_solo(void **state)
{
    rules_game *g = mk("{\"game\":\"cubed\",\"players\":[\"Solo\"]}");
    rules_status st;
    rules_verdict v;
    (void)state;
    bad_place(g, pc(0, 0, 0, K, K, B), "blocking-early");
    ok_place(g, pc(0, 0, 0, B, B, B)); /* the start piece comes from the bag */
    rules_game_status(g, &st);
    assert_int_equal(st.hand[0], 25);
    assert_int_equal(st.bag, 77 - 25 - 1);
    assert_int_equal(st.to_move, 0);
    bad_type(g, RULES_MOVE_PASS, "pass-without-draw");
    ok_type(g, RULES_MOVE_DRAW);
    bad_type(g, RULES_MOVE_PASS, "pass-without-draw"); /* solo: two draws */
    ok_type(g, RULES_MOVE_DRAW);
    bad_type(g, RULES_MOVE_DRAW, "draw-twice");
    v = ok_type(g, RULES_MOVE_PASS); /* still stuck: the game is lost */
    assert_true(v.over);
    assert_int_equal(v.winners, 0u);
    rules_game_status(g, &st);
    assert_true(st.over);
    assert_int_equal(st.scores[0], 27);
    rules_game_free(g);
}

/* ---- generator ---- */

/* Every distinct (cell, parity, faces) a brute-force scan finds legal with
 * rules_check must be what rules_generate lists, and the reverse. */
static void check_generator(rules_game *g, const rules_piece *hand, int nhand)
{
    rules_piece pos[128];
    int n = rules_position(g, pos, 128), qlo = 1000, qhi = -1000, rlo = 1000, rhi = -1000;
    int legal = 0, player = to_move(g);
    collect c = {0};
    rules_status st;

    rules_game_status(g, &st);
    rules_generate(g, player, hand, nhand, collect_cb, &c);
    for (int i = 0; i < c.n; i++) {
        rules_move m;
        rules_verdict v;
        place_move(&m, c.p[i]);
        assert_int_equal(rules_check(g, player, &m, &v), 0);
        if (!v.legal)
            fail_msg("generated move is illegal: %s: %s", v.rule, v.reason);
        for (int j = 0; j < i; j++)
            assert_false(memcmp(&c.p[i], &c.p[j], sizeof c.p[i]) == 0);
    }
    if (n == 0) {
        free(c.p);
        return;
    }
    for (int i = 0; i < n; i++) {
        qlo = pos[i].x < qlo ? pos[i].x : qlo;
        qhi = pos[i].x > qhi ? pos[i].x : qhi;
        rlo = pos[i].y < rlo ? pos[i].y : rlo;
        rhi = pos[i].y > rhi ? pos[i].y : rhi;
    }
    for (int q = qlo - 1; q <= qhi + 1; q++)
        for (int r = rlo - 1; r <= rhi + 1; r++)
            for (int h = 0; h < nhand; h++) {
                const rules_piece *f = &hand[h];
                int rot[3][3] = {{f->a, f->b, f->c}, {f->b, f->c, f->a}, {f->c, f->a, f->b}};
                bool dup = false;
                /* each distinct piece of the hand once */
                for (int j = 0; j < h && !dup; j++)
                    for (int k = 0; k < 3 && !dup; k++)
                        dup = hand[j].a == rot[k][0] && hand[j].b == rot[k][1] &&
                              hand[j].c == rot[k][2];
                for (int k = 0; k < 3 && !dup; k++) {
                    rules_move m;
                    rules_verdict v;
                    bool same = false;
                    for (int j = 0; j < k; j++)
                        same |= rot[j][0] == rot[k][0] && rot[j][1] == rot[k][1] &&
                                rot[j][2] == rot[k][2];
                    if (same)
                        continue;
                    place_move(&m, pc(q, r, pos[0].parity, rot[k][0], rot[k][1], rot[k][2]));
                    rules_check(g, player, &m, &v);
                    legal += v.legal;
                }
            }
    assert_int_equal(legal, c.n);
    free(c.p);
}

/* ---- random full games ---- */

typedef struct sim {
    base_rng rng;
    int n;
    bool bridge, fill_void, draw3, solo;
    int rounds;
    rules_piece bag[128];
    int nbag;
    rules_piece hand[RULES_MAX_PLAYERS][128];
    int nhand[RULES_MAX_PLAYERS];
    int expect[RULES_MAX_PLAYERS];
    int round_pts[RULES_MAX_PLAYERS];
    rules_game *g;
    rp_record rec;
    int events, checks;
    int ends_empty, ends_other;
} sim;

static bool same_piece(const rules_piece *h, const rules_piece *p)
{
    int f[3] = {h->a, h->b, h->c};
    for (int r = 0; r < 3; r++)
        if (f[r] == p->a && f[(r + 1) % 3] == p->b && f[(r + 2) % 3] == p->c)
            return true;
    return false;
}

static void sim_take(rules_piece *arr, int *n, int i)
{
    arr[i] = arr[--*n];
}

static rules_verdict sim_event(sim *s, int player, rules_move *m)
{
    rules_verdict v;
    if (m->type != RULES_MOVE_REVEAL && s->nhand[player] <= RULES_MAX_HAND &&
        base_rng_below(&s->rng, 2)) {
        m->nhand = s->nhand[player];
        memcpy(m->hand, s->hand[player], sizeof m->hand[0] * (size_t)m->nhand);
    }
    assert_int_equal(rules_apply(s->g, player, m, &v), 0);
    if (!v.legal)
        fail_msg("event %d by player %d is illegal: %s: %s", s->events + 1, player, v.rule,
                 v.reason);
    assert_int_equal(rp_record_event(&s->rec, "cubed", player, m), 0);
    s->events++;
    return v;
}

static void sim_deal(sim *s)
{
    s->nbag = 0;
    for (int i = 0; i < NCATALOGUE; i++)
        s->bag[s->nbag++] = pc(0, 0, 0, catalogue_list[i][0], catalogue_list[i][1],
                               catalogue_list[i][2]);
    for (int p = 0; p < s->n; p++) {
        static const int deal[] = {0, 25, 25, 18, 13, 11, 9};
        s->nhand[p] = 0;
        s->round_pts[p] = 0;
        for (int i = 0; i < deal[s->n]; i++) {
            int k = base_rng_below(&s->rng, s->nbag);
            s->hand[p][s->nhand[p]++] = s->bag[k];
            sim_take(s->bag, &s->nbag, k);
        }
    }
}

static void sim_draw(sim *s, int player)
{
    rules_move m;
    int k = base_rng_below(&s->rng, s->nbag);
    rules_move_init(&m, RULES_MOVE_DRAW);
    sim_event(s, player, &m);
    s->hand[player][s->nhand[player]++] = s->bag[k];
    sim_take(s->bag, &s->nbag, k);
}

static bool sim_reveal_phase(sim *s)
{
    rules_move m;
    rules_verdict v;
    rules_move_init(&m, RULES_MOVE_PASS);
    rules_check(s->g, to_move(s->g), &m, &v);
    return !v.legal && strcmp(v.rule, "reveal-pending") == 0;
}

static void sim_check_counts(sim *s)
{
    rules_status st;
    rules_game_status(s->g, &st);
    if (st.over)
        return;
    assert_int_equal(st.bag, s->nbag);
    for (int p = 0; p < s->n; p++)
        assert_int_equal(st.hand[p], s->nhand[p]);
}

/* Places one of the generated moves; true when the bridge bonus applies. */
static bool sim_place(sim *s, int player, collect *c)
{
    rules_piece pos[128], p = c->p[base_rng_below(&s->rng, c->n)];
    int n = rules_position(s->g, pos, 128), h;
    unsigned nb;
    /* Voids are rare in random play: fill one whenever the option pays. */
    for (int i = 0; s->fill_void && i < c->n; i++)
        if (around(pos, n, c->p[i].x, c->p[i].y) == 0x3f) {
            p = c->p[i];
            break;
        }
    nb = around(pos, n, p.x, p.y);
    rules_move m;
    place_move(&m, p);
    for (h = 0; h < s->nhand[player] && !same_piece(&s->hand[player][h], &p); h++)
        ;
    assert_true(h < s->nhand[player]);
    sim_take(s->hand[player], &s->nhand[player], h);
    if (s->fill_void && nb == 0x3f && s->nhand[player] >= 1 && s->n > 1) {
        int to = (player + 1 + base_rng_below(&s->rng, s->n - 1)) % s->n;
        int k = base_rng_below(&s->rng, s->nhand[player]);
        m.give = (int8_t)to;
        /* the hand shown is the one before the move */
        s->hand[player][s->nhand[player]++] = p;
        sim_event(s, player, &m);
        sim_take(s->hand[player], &s->nhand[player], s->nhand[player] - 1);
        s->hand[to][s->nhand[to]++] = s->hand[player][k];
        sim_take(s->hand[player], &s->nhand[player], k);
    } else {
        s->hand[player][s->nhand[player]++] = p;
        sim_event(s, player, &m);
        s->nhand[player]--;
    }
    return s->bridge && arcs(nb) >= 2;
}

static void sim_moves(sim *s, int player, collect *c)
{
    c->n = 0;
    rules_generate(s->g, player, s->hand[player], s->nhand[player], collect_cb, c);
}

static void sim_turn(sim *s)
{
    int player = to_move(s->g), draws = 0, maxdraws = s->solo ? 2 : 1;
    collect c = {0};
    rules_move m;

    if (s->solo && rules_position(s->g, NULL, 0) == 0) {
        /* The solo start piece comes from the bag: never a blocking one. */
        rules_piece start;
        int k;
        do
            k = base_rng_below(&s->rng, s->nbag);
        while (s->bag[k].a == K || s->bag[k].b == K || s->bag[k].c == K);
        start = s->bag[k];
        start.parity = (uint8_t)base_rng_below(&s->rng, 2);
        sim_take(s->bag, &s->nbag, k);
        place_move(&m, start);
        sim_event(s, player, &m);
        return;
    }
    if (s->draw3 && s->nbag > 0 && base_rng_below(&s->rng, 8) == 0) {
        int cnt = 1 + base_rng_below(&s->rng, 3), k;
        if (cnt > s->nbag)
            cnt = s->nbag;
        rules_move_init(&m, RULES_MOVE_DRAW);
        m.count = (int8_t)cnt;
        sim_event(s, player, &m);
        k = base_rng_below(&s->rng, s->nbag); /* the one kept */
        s->hand[player][s->nhand[player]++] = s->bag[k];
        sim_take(s->bag, &s->nbag, k);
        return;
    }
    sim_moves(s, player, &c);
    if (s->checks < 3 && base_rng_below(&s->rng, 16) == 0) {
        check_generator(s->g, s->hand[player], s->nhand[player]);
        s->checks++;
    }
    while ((c.n == 0 || base_rng_below(&s->rng, 12) == 0) && draws < maxdraws && s->nbag > 0) {
        sim_draw(s, player);
        draws++;
        sim_moves(s, player, &c);
    }
    if (c.n == 0) {
        rules_move_init(&m, RULES_MOVE_PASS);
        sim_event(s, player, &m);
        free(c.p);
        return;
    }
    if (sim_place(s, player, &c) && s->nhand[player] > 0 && !sim_reveal_phase(s)) {
        rules_status st;
        rules_game_status(s->g, &st);
        assert_int_equal(st.to_move, player); /* the bonus piece */
        sim_moves(s, player, &c);
        if (c.n > 0 && base_rng_below(&s->rng, 4) != 0) {
            sim_place(s, player, &c);
        } else {
            rules_move_init(&m, RULES_MOVE_PASS);
            sim_event(s, player, &m);
        }
    }
    free(c.p);
}

/* Everyone with pieces shows them (in parts of RULES_MAX_MOVE_PIECES). */
static void sim_reveals(sim *s)
{
    int lowest = -1, winner = -1, emptier = -1;
    rules_verdict v;
    rules_status st;
    for (int p = 0; p < s->n; p++)
        if (s->nhand[p] == 0)
            emptier = p;
    for (int p = s->n - 1; p >= 0; p--) { /* any order: the last seat first */
        int done = 0;
        while (done < s->nhand[p]) {
            rules_move m;
            int k = s->nhand[p] - done < RULES_MAX_MOVE_PIECES ? s->nhand[p] - done
                                                               : RULES_MAX_MOVE_PIECES;
            rules_move_init(&m, RULES_MOVE_REVEAL);
            for (int i = 0; i < k; i++) {
                rules_piece *h = &s->hand[p][done + i];
                m.pieces[i] = *h;
                s->round_pts[p] += points_of(h->a, h->b, h->c);
                s->expect[p] += points_of(h->a, h->b, h->c);
            }
            m.npieces = k;
            v = sim_event(s, p, &m);
            done += k;
        }
    }
    if (emptier >= 0) {
        winner = emptier;
        s->ends_empty++;
    } else {
        for (int p = 0; p < s->n; p++)
            if (lowest < 0 || s->round_pts[p] < lowest) {
                lowest = s->round_pts[p];
                winner = p;
            }
        s->ends_other++;
    }
    assert_true(v.over);
    rules_game_status(s->g, &st);
    if (!st.over) { /* else v.winners are the game's */
        assert_true(v.winners >> winner & 1);
        assert_int_equal(st.to_move, winner);
        sim_deal(s);
    }
}

static void sim_game(uint64_t seed, int nplayers, const char *options, int *ends_empty,
                     int *ends_other)
{
    static const char *const names[] = {"\"A\"", "\"B\"", "\"C\"", "\"D\"", "\"E\"", "\"F\""};
    sim *s = calloc(1, sizeof *s);
    char header[512], *dir, *path;
    size_t hn;
    cJSON *h;
    base_err err;
    rules_status st;
    th_run run;
    int best = -1;
    unsigned winners = 0;

    assert_non_null(s);
    s->rng.s = seed;
    s->n = nplayers;
    s->bridge = strstr(options, "bridge") != NULL;
    s->fill_void = strstr(options, "void") != NULL;
    s->draw3 = strstr(options, "draw3") != NULL;
    s->solo = nplayers == 1;
    hn = (size_t)snprintf(header, sizeof header, "{\"game\":\"cubed\",\"players\":[");
    for (int i = 0; i < nplayers; i++)
        hn += (size_t)snprintf(header + hn, sizeof header - hn, "%s%s", i ? "," : "", names[i]);
    snprintf(header + hn, sizeof header - hn, "],\"options\":%s}", options);
    assert_int_equal(rp_record_line(&s->rec, header), 0);
    h = cJSON_Parse(header);
    assert_non_null(h);
    if (rules_game_new("cubed", h, &err, &s->g) != 0)
        fail_msg("%s: %s", header, err.msg);
    cJSON_Delete(h);
    sim_deal(s);

    for (int guard = 0;; guard++) {
        assert_true(guard < 20000);
        rules_game_status(s->g, &st);
        if (st.over)
            break;
        if (sim_reveal_phase(s))
            sim_reveals(s);
        else
            sim_turn(s);
        sim_check_counts(s);
    }
    if (!s->solo) {
        for (int p = 0; p < nplayers; p++) {
            assert_int_equal(st.scores[p], s->expect[p]);
            if (best < 0 || s->expect[p] < best)
                best = s->expect[p];
        }
        for (int p = 0; p < nplayers; p++)
            if (s->expect[p] == best)
                winners |= 1u << p;
        assert_int_equal(st.winners, winners);
    } else {
        assert_int_equal(st.scores[0], s->nhand[0]);
        assert_int_equal(st.winners, s->nhand[0] == 0 ? 1u : 0u);
    }

    /* Replay the record through the real binary. */
    dir = th_tmpdir();
    path = th_path(dir, "game.jsonl");
    assert_int_equal(th_write_file(path, s->rec.text), 0);
    assert_int_equal(th_tablecam(&run, NULL, (const char *[]){"referee", "--game", "cubed", path,
                                                             NULL}),
                     0);
    if (run.status != 0)
        fail_msg("referee exit %d: %s", run.status, run.err);
    assert_int_equal(th_count_lines(run.out), s->events + 1);
    for (int i = 0; i <= s->events; i++) {
        char *line = th_line(run.out, i);
        cJSON *o = cJSON_Parse(line), *sc;
        assert_non_null(o);
        if (i < s->events) {
            if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "legal")))
                fail_msg("seed %llu verdict %d: %s", (unsigned long long)seed, i + 1, line);
        } else {
            cJSON *w = cJSON_GetObjectItemCaseSensitive(o, "winners"), *it;
            unsigned got = 0;
            assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "final")));
            assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "over")));
            cJSON_ArrayForEach(it, w) got |= 1u << (int)it->valuedouble;
            assert_int_equal(got, st.winners);
        }
        if (i >= s->events - 1) {
            sc = cJSON_GetObjectItemCaseSensitive(o, "scores");
            assert_int_equal(cJSON_GetArraySize(sc), nplayers);
            for (int p = 0; p < nplayers; p++)
                assert_int_equal((int)cJSON_GetArrayItem(sc, p)->valuedouble, st.scores[p]);
        }
        cJSON_Delete(o);
        free(line);
    }
    th_run_free(&run);
    th_rmtree(dir);
    free(path);
    free(dir);
    *ends_empty += s->ends_empty;
    *ends_other += s->ends_other;
    rules_game_free(s->g);
    free(s->rec.text);
    free(s);
}

static void test_random_games(void **state)
{
    static const struct {
        int n;
        const char *options;
    } cfg[] = {
        {2, "{}"},
        {2, "{\"rounds\":1}"},
        {3, "{}"},
        {4, "{\"bridge\":true}"},
        {5, "{\"void\":true,\"rounds\":1}"},
        {6, "{\"draw3\":true}"},
        {2, "{\"bridge\":true,\"void\":true,\"draw3\":true}"},
        {3, "{\"bridge\":true,\"void\":true,\"draw3\":true,\"rounds\":1}"},
        {1, "{}"},
        {1, "{\"bridge\":true,\"draw3\":true}"},
    };
    int ends_empty = 0, ends_other = 0;
    (void)state;
    for (int round = 0; round < 2; round++)
        for (size_t i = 0; i < sizeof cfg / sizeof cfg[0]; i++)
            sim_game(0xc0bed000u + (uint64_t)round * 100 + i, cfg[i].n, cfg[i].options,
                     &ends_empty, &ends_other);
    /* The games reach both kinds of round end. */
    assert_true(ends_empty > 0);
    assert_true(ends_other > 0);
}

static void test_generator_matches_brute_force(void **state)
{
    rules_game *g = mk("{\"game\":\"cubed\",\"players\":[\"A\",\"B\"]}");
    rules_piece all[77];
    base_rng rng = {42};
    (void)state;
    for (int i = 0; i < NCATALOGUE; i++)
        all[i] = pc(0, 0, 0, catalogue_list[i][0], catalogue_list[i][1], catalogue_list[i][2]);
    /* Empty table: one cell, both parities, every rotation of non-blocking
     * pieces. */
    {
        collect c = {0};
        int n = rules_generate(g, 0, NULL, -1, collect_cb, &c);
        assert_int_equal(n, c.n);
        assert_int_equal(n, 2 * (6 * 1 + 30 * 3 + 20 * 3 + 15 * 3));
        free(c.p);
        c = (collect){0};
        assert_int_equal(rules_generate(g, 1, NULL, -1, collect_cb, &c), 0); /* not its turn */
        free(c.p);
    }
    for (int turn = 0; turn < 30; turn++) {
        collect c = {0};
        rules_piece left[77];
        int nleft = 0;
        rules_piece pos[128];
        int n = rules_position(g, pos, 128);
        for (int i = 0; i < NCATALOGUE; i++) {
            bool on = false;
            for (int j = 0; j < n && !on; j++)
                on = same_piece(&all[i], &pos[j]);
            if (!on)
                left[nleft++] = all[i];
        }
        check_generator(g, left, nleft);
        rules_generate(g, to_move(g), NULL, -1, collect_cb, &c);
        if (c.n == 0) {
            free(c.p);
            break;
        }
        ok_place(g, c.p[base_rng_below(&rng, c.n)]);
        free(c.p);
        if (sim_reveal_phase(&(sim){.g = g}))
            break;
    }
    rules_game_free(g);
}

/* ---- clone ---- */

static void test_clone_is_deep(void **state)
{
    rules_game *g = mk("{\"game\":\"cubed\",\"players\":[\"A\",\"B\"]}"), *c;
    rules_status sg, sc;
    (void)state;
    ok_place(g, pc(0, 0, 0, R, R, R));
    assert_int_equal(rules_game_clone(g, &c), 0);
    ok_place(c, pc(1, 0, 0, O, R, R));
    assert_int_equal(rules_position(g, NULL, 0), 1);
    assert_int_equal(rules_position(c, NULL, 0), 2);
    rules_game_status(g, &sg);
    rules_game_status(c, &sc);
    assert_int_equal(sg.to_move, 1);
    assert_int_equal(sc.to_move, 0);
    /* The original still accepts the same piece the clone used. */
    ok_place(g, pc(1, 0, 0, O, R, R));
    rules_game_free(c);
    rules_game_free(g);
}

/* ---- codec ---- */

static void move_error(const char *json, const char *needle)
{
    cJSON *o = cJSON_Parse(json);
    rules_move m;
    base_err err;
    assert_non_null(o);
    assert_int_not_equal(rules_move_from_json("cubed", o, &m, &err), 0);
    if (!strstr(err.msg, needle))
        fail_msg("%s: error \"%s\" does not name \"%s\"", json, err.msg, needle);
    cJSON_Delete(o);
}

static void round_trip(const char *json)
{
    cJSON *o = cJSON_Parse(json), *back;
    rules_move m;
    base_err err;
    assert_non_null(o);
    if (rules_move_from_json("cubed", o, &m, &err) != 0)
        fail_msg("%s: %s", json, err.msg);
    back = rules_move_to_json("cubed", &m);
    assert_non_null(back);
    if (!cJSON_Compare(o, back, true)) {
        char *t = cJSON_PrintUnformatted(back);
        fail_msg("round trip of %s gave %s", json, t);
    }
    cJSON_Delete(o);
    cJSON_Delete(back);
}

static void test_codec(void **state)
{
    cJSON *o;
    rules_piece p;
    base_err err;
    char *t;
    (void)state;
    o = cJSON_Parse("{\"q\":-3,\"r\":2,\"parity\":1,\"faces\":[\"red\",\"blue\",\"white\"]}");
    assert_int_equal(rules_piece_from_json("cubed", o, &p, &err), 0);
    assert_int_equal(p.x, -3);
    assert_int_equal(p.y, 2);
    assert_int_equal(p.parity, 1);
    assert_int_equal(p.a, R);
    assert_int_equal(p.b, B);
    assert_int_equal(p.c, W);
    cJSON_Delete(o);
    o = rules_piece_to_json("cubed", &p);
    t = cJSON_PrintUnformatted(o);
    assert_string_equal(t,
                        "{\"q\":-3,\"r\":2,\"parity\":1,\"faces\":[\"red\",\"blue\",\"white\"]}");
    free(t);
    cJSON_Delete(o);

    round_trip("{\"type\":\"place\",\"pieces\":[{\"q\":1,\"r\":-1,\"parity\":0,\"faces\":"
               "[\"green\",\"green\",\"purple\"]}]}");
    round_trip("{\"type\":\"place\",\"pieces\":[{\"q\":1,\"r\":-1,\"parity\":0,\"faces\":"
               "[\"black\",\"black\",\"purple\"]}],\"give\":2}");
    round_trip("{\"type\":\"draw\"}");
    round_trip("{\"type\":\"draw\",\"count\":3}");
    round_trip("{\"type\":\"pass\",\"hand\":[[\"red\",\"red\",\"red\"],[\"blue\",\"yellow\","
               "\"white\"]]}");
    round_trip("{\"type\":\"reveal\",\"pieces\":[[\"red\",\"orange\",\"yellow\"],[\"black\","
               "\"black\",\"blue\"]]}");

    move_error("{\"type\":\"place\",\"pieces\":[{\"r\":0,\"parity\":0,\"faces\":[\"red\","
               "\"red\",\"red\"]}]}",
               "\"q\"");
    move_error("{\"type\":\"place\",\"pieces\":[{\"q\":0,\"r\":0,\"parity\":2,\"faces\":[\"red\","
               "\"red\",\"red\"]}]}",
               "\"parity\"");
    move_error("{\"type\":\"place\",\"pieces\":[{\"q\":0,\"r\":0,\"parity\":0}]}", "\"faces\"");
    move_error("{\"type\":\"place\",\"pieces\":[{\"q\":0,\"r\":0,\"parity\":0,\"faces\":[\"red\","
               "\"red\"]}]}",
               "\"faces\"");
    move_error("{\"type\":\"place\",\"pieces\":[{\"q\":0,\"r\":0,\"parity\":0,\"faces\":[\"red\","
               "\"pink\",\"red\"]}]}",
               "pink");
    move_error("{\"type\":\"place\",\"pieces\":[{\"q\":99999,\"r\":0,\"parity\":0,\"faces\":"
               "[\"red\",\"red\",\"red\"]}]}",
               "\"q\"");
    move_error("{\"type\":\"place\"}", "\"pieces\"");
    move_error("{\"type\":\"place\",\"pieces\":[],\"give\":-1}", "\"give\"");
    move_error("{\"type\":\"draw\",\"count\":4}", "\"count\"");
    move_error("{\"type\":\"draw\",\"count\":\"two\"}", "\"count\"");
    move_error("{\"type\":\"reveal\"}", "\"pieces\"");
    move_error("{\"type\":\"reveal\",\"pieces\":[[\"red\",\"red\"]]}", "\"pieces\" item 1");
    move_error("{\"type\":\"reroll\"}", "reroll");
    move_error("{\"type\":\"pass\",\"hand\":[[\"red\",\"red\",\"teal\"]]}", "hand item 1");
}

/* ---- the binary ---- */

static void test_referee_binary(void **state)
{
    const char *rec =
        "{\"game\":\"cubed\",\"players\":[\"Ann\",\"Bob\"],\"options\":{\"rounds\":1}}\n"
        "{\"player\":0,\"move\":{\"type\":\"place\",\"pieces\":[{\"q\":0,\"r\":0,\"parity\":0,"
        "\"faces\":[\"red\",\"green\",\"blue\"]}]}}\n"
        "{\"player\":1,\"move\":{\"type\":\"place\",\"pieces\":[{\"q\":1,\"r\":0,\"parity\":0,"
        "\"faces\":[\"red\",\"red\",\"red\"]}]}}\n"
        "{\"player\":1,\"move\":{\"type\":\"pass\"}}\n";
    th_run r;
    char *line;
    (void)state;
    assert_int_equal(th_tablecam(&r, rec, (const char *[]){"referee", "--game", "cubed", "-",
                                                           NULL}),
                     0);
    assert_int_equal(r.status, 0);
    assert_int_equal(th_count_lines(r.out), 4);
    line = th_line(r.out, 1);
    assert_non_null(strstr(line, "\"rule\":\"colour-mismatch\""));
    assert_non_null(strstr(line, "(0,0)"));
    free(line);
    line = th_line(r.out, 2);
    assert_non_null(strstr(line, "\"rule\":\"pass-without-draw\""));
    free(line);
    th_run_free(&r);
    /* A bad option is a header error naming it: exit 2. */
    assert_int_equal(th_tablecam(&r,
                                 "{\"game\":\"cubed\",\"players\":[\"A\",\"B\"],\"options\":"
                                 "{\"drawthree\":true}}\n",
                                 (const char *[]){"referee", "--game", "cubed", "-", NULL}),
                     0);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "drawthree"));
    assert_non_null(strstr(r.err, "line 1"));
    th_run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_second_piece_matches),
        cmocka_unit_test(test_piece_identity),
        cmocka_unit_test(test_blocking),
        cmocka_unit_test(test_white_never_touches_blocking),
        cmocka_unit_test(test_turns_draw_pass),
        cmocka_unit_test(test_bag_empty),
        cmocka_unit_test(test_round_end_stalled_and_reveals),
        cmocka_unit_test(test_round_end_blocked_and_game_over),
        cmocka_unit_test(test_round_end_empty_hand),
        cmocka_unit_test(test_reveal_in_parts),
        cmocka_unit_test(test_header_options),
        cmocka_unit_test(test_option_bridge),
        cmocka_unit_test(test_option_void),
        cmocka_unit_test(test_option_solo),
        cmocka_unit_test(test_generator_matches_brute_force),
        cmocka_unit_test(test_clone_is_deep),
        cmocka_unit_test(test_codec),
        cmocka_unit_test(test_referee_binary),
        cmocka_unit_test(test_random_games),
    };
    th_case_filter();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
