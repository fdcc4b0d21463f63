/* tests/test_rules_cube2.c: the cube2 engine: setup, movement, exits, the
 * consecutive-turn restrictions, passes, the swap option, the end, the
 * codec, and random games replayed through the real `tablecam referee`.
 *
 * Most positions use a 10x10 board (homes (5,9) for player 0 and (4,0) for
 * player 1, facing each other): the pieces a test is about stand in columns
 * 3..8 and the rest of the 24 fill columns 0, 1 and 9, far from the action. */
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

#define BIG_BOARD "{\"cols\":10,\"rows\":10,\"home\":[[5,9],[4,0]]}"
#define OFF -1

static const char *const shapes[2] = {"cube", "cylinder"};

/* ---- building games ---- */

/* spec: "red cube 5 8; blue cylinder 7 5"; the rest of the 24 pieces go on
 * filler squares (columns 0, 1, 9) when fill is set.  Returns the header. */
static cJSON *header(const char *board, const char *spec, bool fill, const char *options)
{
    cJSON *h = cJSON_CreateObject(), *setup, *players;
    int count[12] = {0};
    bool used[32][32] = {{false}};
    char buf[512], *save = NULL, *tok;

    cJSON_AddStringToObject(h, "game", "cube2");
    players = cJSON_AddArrayToObject(h, "players");
    cJSON_AddItemToArray(players, cJSON_CreateString("Ann"));
    cJSON_AddItemToArray(players, cJSON_CreateString("Bob"));
    if (board)
        cJSON_AddItemToObject(h, "board", cJSON_Parse(board));
    if (options)
        cJSON_AddItemToObject(h, "options", cJSON_Parse(options));
    setup = cJSON_AddArrayToObject(h, "setup");
    snprintf(buf, sizeof buf, "%s", spec ? spec : "");
    for (tok = strtok_r(buf, ";", &save); tok; tok = strtok_r(NULL, ";", &save)) {
        char color[16], shape[16];
        int c, r;
        cJSON *p;
        assert_int_equal(sscanf(tok, "%15s %15s %d %d", color, shape, &c, &r), 4);
        p = cJSON_CreateObject();
        cJSON_AddNumberToObject(p, "col", c);
        cJSON_AddNumberToObject(p, "row", r);
        cJSON_AddStringToObject(p, "color", color);
        cJSON_AddStringToObject(p, "shape", shape);
        cJSON_AddItemToArray(setup, p);
        if (rules_color_from_name(color) >= 0) /* tests of bad colours leave it out */
            count[rules_color_from_name(color) * 2 + (strcmp(shape, "cylinder") == 0)]++;
        if (c >= 0 && r >= 0 && c < 32 && r < 32)
            used[c][r] = true;
    }
    if (fill) {
        static const int cols[3] = {0, 1, 9};
        int k = 0;
        for (int t = 0; t < 12; t++)
            while (count[t] < 2) {
                int c, r;
                cJSON *p;
                do {
                    c = cols[k / 10];
                    r = k % 10;
                    k++;
                } while (used[c][r]);
                used[c][r] = true;
                p = cJSON_CreateObject();
                cJSON_AddNumberToObject(p, "col", c);
                cJSON_AddNumberToObject(p, "row", r);
                cJSON_AddStringToObject(p, "color", rules_color_name(t / 2));
                cJSON_AddStringToObject(p, "shape", shapes[t % 2]);
                cJSON_AddItemToArray(setup, p);
                count[t]++;
            }
    }
    return h;
}

static rules_game *game_from(cJSON *h)
{
    rules_game *g = NULL;
    base_err err;
    int rc = rules_game_new("cube2", h, &err, &g);
    if (rc != 0)
        fail_msg("rules_game_new: %s", err.msg);
    cJSON_Delete(h);
    return g;
}

/* A 10x10 game with the given pieces, the rest filled in. */
static rules_game *big(const char *spec, const char *options)
{
    return game_from(header(BIG_BOARD, spec, true, options));
}

static rules_move mk_move(int fc, int fr, int tc, int tr)
{
    rules_move m;
    rules_move_init(&m, RULES_MOVE_MOVE);
    m.from[0] = (int16_t)fc;
    m.from[1] = (int16_t)fr;
    if (tc == OFF) {
        m.to_off = true;
    } else {
        m.to[0] = (int16_t)tc;
        m.to[1] = (int16_t)tr;
    }
    return m;
}

/* Applies a move that must be legal. */
static rules_verdict play(rules_game *g, int pl, int fc, int fr, int tc, int tr)
{
    rules_move m = mk_move(fc, fr, tc, tr);
    rules_verdict v;
    assert_int_equal(rules_apply(g, pl, &m, &v), 0);
    if (!v.legal)
        fail_msg("(%d,%d)->(%d,%d) by %d: %s: %s", fc, fr, tc, tr, pl, v.rule, v.reason);
    return v;
}

/* Checks that a move is illegal with the given rule (and changes nothing). */
static void refuse(rules_game *g, int pl, int fc, int fr, int tc, int tr, const char *rule)
{
    rules_move m = mk_move(fc, fr, tc, tr);
    rules_verdict v;
    rules_status before, after;
    rules_game_status(g, &before);
    assert_int_equal(rules_apply(g, pl, &m, &v), 0);
    if (v.legal)
        fail_msg("(%d,%d)->(%d,%d) by %d was legal, expected %s", fc, fr, tc, tr, pl, rule);
    if (strcmp(v.rule, rule) != 0)
        fail_msg("(%d,%d)->(%d,%d): rule %s (%s), expected %s", fc, fr, tc, tr, v.rule, v.reason,
                 rule);
    assert_true(strlen(v.reason) > 10);
    rules_game_status(g, &after);
    assert_int_equal(before.moves, after.moves);
    assert_int_equal(before.to_move, after.to_move);
}

static void refuse_type(rules_game *g, int pl, int type, const char *rule)
{
    rules_move m;
    rules_verdict v;
    rules_move_init(&m, type);
    assert_int_equal(rules_apply(g, pl, &m, &v), 0);
    assert_false(v.legal);
    assert_string_equal(v.rule, rule);
}

static rules_verdict play_type(rules_game *g, int pl, int type)
{
    rules_move m;
    rules_verdict v;
    rules_move_init(&m, type);
    assert_int_equal(rules_apply(g, pl, &m, &v), 0);
    if (!v.legal)
        fail_msg("%s", v.reason);
    return v;
}

/* What stands on (c, r): colour*2+shape, or -1. */
static int at(const rules_game *g, int c, int r)
{
    rules_piece p[24];
    int n = rules_position(g, p, 24);
    for (int i = 0; i < n; i++)
        if (p[i].x == c && p[i].y == r)
            return p[i].a * 2 + p[i].b;
    return -1;
}

/* A quiet move for pl among the filler columns (0, 1, 2), so that tests can
 * hand the turn back. */
typedef struct idle_ctx {
    rules_move m;
    bool found;
} idle_ctx;

static int idle_fn(void *ctx, const rules_move *m)
{
    idle_ctx *c = ctx;
    if (m->type == RULES_MOVE_MOVE && !m->to_off && m->from[0] <= 1 && m->to[0] <= 2) {
        c->m = *m;
        c->found = true;
        return 1;
    }
    return 0;
}

static void idle(rules_game *g, int pl)
{
    idle_ctx c = {.found = false};
    rules_verdict v;
    rules_generate(g, pl, NULL, -1, idle_fn, &c);
    assert_true(c.found);
    assert_int_equal(rules_apply(g, pl, &c.m, &v), 0);
    assert_true(v.legal);
}

/* ---- setup ---- */

static void test_header_setup_default_board(void **state)
{
    rules_game *g;
    rules_status st;
    rules_piece p[30];
    cJSON *h;
    (void)state;
    /* 24 pieces on the default 6x6 board, rows 1..4, home squares free. */
    h = header(NULL, NULL, false, NULL);
    {
        cJSON *setup = cJSON_GetObjectItem(h, "setup");
        for (int i = 0; i < 24; i++) {
            cJSON *o = cJSON_CreateObject();
            cJSON_AddNumberToObject(o, "col", i % 6);
            cJSON_AddNumberToObject(o, "row", 1 + i / 6);
            cJSON_AddStringToObject(o, "color", rules_color_name(i / 4));
            cJSON_AddStringToObject(o, "shape", shapes[(i / 2) % 2]);
            cJSON_AddItemToArray(setup, o);
        }
    }
    g = game_from(h);
    rules_game_status(g, &st);
    assert_int_equal(st.nplayers, 2);
    assert_int_equal(st.to_move, 0);
    assert_int_equal(st.moves, 0);
    assert_false(st.over);
    assert_int_equal(rules_position(g, p, 30), 24);
    /* The default home of player 0 is (3,5): a piece at (3,4) can step there. */
    play(g, 0, 3, 4, 3, 5);
    rules_game_free(g);
}

static void test_header_errors(void **state)
{
    static const struct {
        const char *board, *spec, *options, *needle;
        bool fill;
    } bad[] = {
        {BIG_BOARD, "red cube 5 9", NULL, "home square", true},
        {BIG_BOARD, "red cube 4 4; blue cube 4 4", NULL, "(4,4)", true},
        {BIG_BOARD, "red cube 4 4; red cube 5 4; red cube 6 4", NULL, "both red cubes", false},
        {BIG_BOARD, "red cube 10 4", NULL, "not on the 10x10 board", false},
        {BIG_BOARD, "pink cube 4 4", NULL, "pink", false},
        {BIG_BOARD, NULL, "{\"sawp\":true}", "sawp", true},
        {BIG_BOARD, NULL, "{\"swap\":1}", "swap", true},
        {BIG_BOARD, NULL, "{\"draw_passes\":-1}", "draw_passes", true},
        {"{\"cols\":5,\"rows\":5,\"home\":[[0,0],[4,4]]}", NULL, NULL, "fewer than the 24", false},
        {"{\"cols\":8,\"rows\":8,\"home\":[[0,0],[8,4]]}", NULL, NULL, "(8,4) is not on", false},
        {"{\"cols\":8,\"rows\":8,\"home\":[[1,1],[1,1]]}", NULL, NULL, "both players", false},
        {"{\"cols\":8,\"rows\":8}", NULL, NULL, "needs \"home\"", false},
        {"{\"cols\":\"8\",\"rows\":8}", NULL, NULL, "\"cols\"", false},
        {"{\"cols\":8,\"rows\":8,\"home\":[[0,0],[7,6]]}", NULL, "{\"swap\":true}",
         "face each other", false},
    };
    (void)state;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cJSON *h = header(bad[i].board, bad[i].spec, bad[i].fill, bad[i].options);
        rules_game *g = NULL;
        base_err err;
        int rc = rules_game_new("cube2", h, &err, &g);
        cJSON_Delete(h);
        assert_int_not_equal(rc, 0);
        assert_null(g);
        if (!strstr(err.msg, bad[i].needle))
            fail_msg("case %zu: \"%s\" does not name %s", i, err.msg, bad[i].needle);
    }
    /* cube2 is a two-player game. */
    {
        cJSON *h = cJSON_Parse("{\"game\":\"cube2\",\"players\":[\"a\",\"b\",\"c\"]}");
        rules_game *g = NULL;
        base_err err;
        assert_int_not_equal(rules_game_new("cube2", h, &err, &g), 0);
        assert_non_null(strstr(err.msg, "2 to 2"));
        cJSON_Delete(h);
    }
}

static rules_verdict place(rules_game *g, int pl, const char *color, const char *shape, int c,
                           int r)
{
    rules_move m;
    rules_verdict v;
    rules_move_init(&m, RULES_MOVE_PLACE);
    m.npieces = 1;
    m.pieces[0].x = (int16_t)c;
    m.pieces[0].y = (int16_t)r;
    m.pieces[0].a = (uint8_t)rules_color_from_name(color);
    m.pieces[0].b = (uint8_t)(strcmp(shape, "cylinder") == 0);
    assert_int_equal(rules_apply(g, pl, &m, &v), 0);
    return v;
}

static void test_setup_by_place_events(void **state)
{
    rules_game *g = game_from(cJSON_Parse("{\"game\":\"cube2\",\"players\":[\"a\",\"b\"]}"));
    rules_verdict v;
    rules_status st;
    int n = 0;
    (void)state;
    /* Nothing moves before the setup is done. */
    refuse(g, 0, 0, 1, 0, 2, "setup-incomplete");
    refuse_type(g, 0, RULES_MOVE_PASS, "setup-incomplete");
    v = place(g, 0, "red", "cube", 3, 5);
    assert_string_equal(v.rule, "setup-home-square");
    v = place(g, 0, "red", "cube", 2, 0);
    assert_string_equal(v.rule, "setup-home-square");
    v = place(g, 0, "red", "cube", 6, 0);
    assert_string_equal(v.rule, "off-board");
    v = place(g, 0, "red", "cube", 0, 1);
    assert_true(v.legal);
    v = place(g, 0, "red", "cube", 1, 1);
    assert_string_equal(v.rule, "out-of-turn"); /* players alternate */
    v = place(g, 1, "blue", "cube", 0, 1);
    assert_string_equal(v.rule, "occupied");
    v = place(g, 1, "red", "cube", 1, 1);
    assert_true(v.legal);
    v = place(g, 0, "red", "cube", 2, 1);
    assert_string_equal(v.rule, "setup-pair-full");
    {
        rules_move m;
        rules_move_init(&m, RULES_MOVE_PLACE);
        m.npieces = 2;
        assert_int_equal(rules_apply(g, 0, &m, &v), 0);
        assert_string_equal(v.rule, "place-one-piece");
    }
    /* Fill the rest, alternating, rows 1..4. */
    n = 2;
    for (int t = 1; t < 12; t++)
        for (int k = 0; k < 2; k++, n++) {
            v = place(g, n % 2, rules_color_name(t / 2), shapes[t % 2], n % 6, 1 + n / 6);
            assert_true(v.legal);
        }
    assert_non_null(strstr(v.note, "player 1 moves first"));
    rules_game_status(g, &st);
    assert_int_equal(st.to_move, 0);
    assert_int_equal(st.moves, 24);
    v = place(g, 0, "red", "cube", 0, 5);
    assert_string_equal(v.rule, "setup-over");
    play(g, 0, 3, 4, 3, 5);
    rules_game_free(g);

    /* A header with part of the setup: the placements go on from there,
     * player 1 (record 1) after an odd count. */
    g = game_from(header(NULL, "red cube 0 1; red cube 1 1; blue cube 2 1", false, NULL));
    rules_game_status(g, &st);
    assert_int_equal(st.to_move, 1);
    assert_int_equal(st.moves, 0);
    v = place(g, 0, "blue", "cube", 3, 1);
    assert_string_equal(v.rule, "out-of-turn");
    v = place(g, 1, "blue", "cube", 3, 1);
    assert_true(v.legal);
    v = place(g, 0, "blue", "cube", 4, 1);
    assert_string_equal(v.rule, "setup-pair-full");
    refuse(g, 0, 0, 1, 0, 2, "setup-incomplete");
    rules_game_free(g);
}

/* The real binary: verdict lines for a short record, and a malformed line
 * is exit 2 naming the line and the key. */
static void test_referee_binary(void **state)
{
    char *dir = th_tmpdir(), *path = th_path(dir, "r.jsonl"), *text, *line;
    cJSON *h = header(BIG_BOARD, "red cube 5 8", true, NULL);
    char *hs = cJSON_PrintUnformatted(h);
    th_run r;
    size_t n;
    (void)state;
    cJSON_Delete(h);
    n = strlen(hs) + 512;
    text = malloc(n);
    snprintf(text, n,
             "%s\n"
             "{\"player\":0,\"move\":{\"type\":\"move\",\"from\":[5,8],\"to\":\"off\"}}\n"
             "{\"player\":1,\"move\":{\"type\":\"pass\"}}\n"
             "{\"player\":1,\"move\":{\"type\":\"move\",\"from\":[0,0],\"to\":[2,0]}}\n",
             hs);
    assert_int_equal(th_write_file(path, text), 0);
    assert_int_equal(
        th_tablecam(&r, NULL, (const char *[]){"referee", "--game", "cube2", path, NULL}), 0);
    assert_int_equal(r.status, 0);
    assert_int_equal(th_count_lines(r.out), 4);
    line = th_line(r.out, 0);
    assert_non_null(strstr(line, "\"exited\":{\"col\":5,\"row\":8,\"color\":\"red\",\"shape\":\"cube\"}"));
    assert_non_null(strstr(line, "\"scores\":[1,0]"));
    free(line);
    line = th_line(r.out, 1);
    assert_non_null(strstr(line, "\"rule\":\"pass-with-move\""));
    free(line);
    line = th_line(r.out, 3);
    assert_non_null(strstr(line, "\"final\":true"));
    assert_non_null(strstr(line, "\"over\":false"));
    free(line);
    th_run_free(&r);

    snprintf(text, n,
             "%s\n"
             "{\"player\":0,\"move\":{\"type\":\"move\",\"from\":[5,8],\"to\":\"away\"}}\n",
             hs);
    assert_int_equal(th_write_file(path, text), 0);
    assert_int_equal(
        th_tablecam(&r, NULL, (const char *[]){"referee", "--game", "cube2", path, NULL}), 0);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "line 2"));
    assert_non_null(strstr(r.err, "\"to\""));
    th_run_free(&r);
    free(hs);
    free(text);
    free(path);
    th_rmtree(dir);
    free(dir);
}

/* ---- movement ---- */

static void test_open_moves(void **state)
{
    rules_game *g = big("red cube 5 5; orange cube 6 5; orange cube 8 6; yellow cube 5 3", NULL);
    (void)state;
    /* Steps, two steps in a line, two steps round a corner. */
    refuse(g, 0, 5, 5, 5, 5, "same-square");
    refuse(g, 0, 5, 5, 6, 5, "occupied");
    refuse(g, 0, 7, 7, 7, 8, "no-piece");
    refuse(g, 0, 5, 5, 10, 5, "off-board");
    refuse(g, 0, 10, 5, 5, 5, "off-board");
    refuse(g, 0, 5, 5, 8, 8, "too-far");
    refuse(g, 0, 5, 5, 5, 0, "too-far");
    {
        rules_game *c;
        assert_int_equal(rules_game_clone(g, &c), 0);
        play(c, 0, 5, 5, 6, 6); /* a corner */
        assert_int_equal(at(c, 6, 6), 0);
        assert_int_equal(at(g, 6, 6), -1); /* the clone is a deep copy */
        assert_int_equal(at(g, 5, 5), 0);
        rules_game_free(c);
    }
    play(g, 0, 5, 5, 7, 5); /* a jump over (6,5) */
    rules_game_free(g);
}

static void test_jumps(void **state)
{
    rules_game *g = big("red cube 3 5; orange cube 4 5; orange cube 6 5; yellow cube 5 3", NULL);
    (void)state;
    play(g, 0, 3, 5, 7, 5); /* two jumps: four squares in one move */
    assert_int_equal(at(g, 7, 5), RULES_RED * 2);
    play(g, 1, 7, 5, 5, 4); /* a jump over (6,5), then a step up: a turn */
    play(g, 0, 5, 3, 5, 5); /* one jump over (5,4) */
    play(g, 1, 4, 5, 3, 4); /* a step to (3,5) and a step up */
    rules_game_free(g);
}

static void test_path_blocked(void **state)
{
    /* (5,5) boxed in: neighbours and the squares behind them all taken. */
    rules_game *g = big("red cube 5 5; orange cube 4 5; orange cube 6 5; yellow cube 5 4; "
                        "yellow cube 5 6; green cube 3 5; green cube 7 5; blue cube 5 3; "
                        "blue cube 5 7",
                        NULL);
    (void)state;
    refuse(g, 0, 5, 5, 6, 6, "path-blocked");
    refuse(g, 0, 5, 5, 4, 4, "path-blocked");
    refuse(g, 0, 5, 5, 8, 5, "path-blocked"); /* (7,5) taken: no second jump from it */
    refuse(g, 0, 5, 5, 3, 5, "occupied");
    rules_game_free(g);
}

/* Player 0 takes the red cube at (5,8) off through the home square (5,9):
 * the red cube at (7,5) is then closed. */
static rules_game *after_red_exit(const char *more)
{
    char spec[512];
    rules_game *g;
    rules_verdict v;
    snprintf(spec, sizeof spec, "red cube 5 8; red cube 7 5%s%s", more ? "; " : "",
             more ? more : "");
    g = big(spec, NULL);
    v = play(g, 0, 5, 8, OFF, 0);
    assert_int_equal(v.points, 1);
    assert_int_equal(v.nextra, 1);
    assert_int_equal(v.extra[0].a, RULES_RED);
    assert_int_equal(v.extra[0].b, RULES_C2_CUBE);
    assert_int_equal(v.scores[0], 1);
    assert_int_equal(v.scores[1], 0);
    return g;
}

static void test_closed_moves(void **state)
{
    rules_game *g = after_red_exit("orange cube 7 7");
    (void)state;
    idle(g, 1);
    refuse(g, 0, 7, 5, 7, 3, "closed-one-space"); /* two steps */
    refuse(g, 0, 7, 5, 8, 6, "closed-one-space"); /* a corner */
    refuse(g, 0, 7, 5, 4, 2, "too-far");
    play(g, 0, 7, 5, 7, 6); /* one step */
    idle(g, 1);
    /* Jumps are one space: over (7,7) to (7,8)... but player 0 does not need
     * the red cube any more and moved it last turn. */
    refuse(g, 0, 7, 6, 7, 8, "closed-two-turns");
    idle(g, 0);
    idle(g, 1);
    play(g, 0, 7, 6, 7, 8); /* the jump, a turn later */
    /* Player 1 still needs a red cube: no limit on consecutive turns. */
    play(g, 1, 7, 8, 7, 9);
    idle(g, 0);
    play(g, 1, 7, 9, 6, 9);
    idle(g, 0);
    play(g, 1, 6, 9, 6, 8);
    rules_game_free(g);
}

/* ---- exits ---- */

static void test_exit_rules(void **state)
{
    rules_game *g = after_red_exit("orange cube 5 6; red cylinder 4 9; blue cylinder 6 9; "
                                   "green cube 4 8; yellow cube 6 7; purple cube 5 7");
    rules_verdict v;
    (void)state;
    idle(g, 1);
    /* The other red cube: closed, and player 0 has a red cube. */
    refuse(g, 0, 7, 5, OFF, 0, "exit-not-needed");
    refuse(g, 0, 6, 9, OFF, 0, "exit-cylinder-before-cube");
    refuse(g, 0, 4, 8, OFF, 0, "exit-too-far"); /* a corner away from (5,9): 2 spaces + exit */
    refuse(g, 0, 5, 6, OFF, 0, "exit-too-far"); /* a jump lands on (5,8), not home */
    /* The red cylinder may go now that a red cube is home: step + exit. */
    v = play(g, 0, 4, 9, OFF, 0);
    assert_int_equal(v.extra[0].a, RULES_RED);
    assert_int_equal(v.extra[0].b, RULES_C2_CYLINDER);
    assert_int_equal(v.scores[0], 2);
    /* Player 1 (home (4,0)) cannot take pieces off through player 0's. */
    refuse(g, 1, 5, 6, OFF, 0, "exit-too-far");
    idle(g, 1);
    /* A jump onto the home square, then the exit. */
    play(g, 0, 6, 7, 5, 8);
    idle(g, 1);
    v = play(g, 0, 5, 7, OFF, 0);
    assert_int_equal(v.extra[0].a, RULES_PURPLE);
    assert_int_equal(v.scores[0], 3);
    rules_game_free(g);
}

static void test_exit_home_occupied(void **state)
{
    rules_game *g = big("green cube 6 9; yellow cube 5 8; orange cube 5 7; blue cube 5 6", NULL);
    (void)state;
    play(g, 0, 6, 9, 5, 9); /* onto the home square without leaving */
    idle(g, 1);
    refuse(g, 0, 5, 8, OFF, 0, "exit-jump-home");
    refuse(g, 0, 5, 7, OFF, 0, "exit-home-occupied");
    /* The piece on the home square leaves from it: one space. */
    play(g, 0, 5, 9, OFF, 0);
    idle(g, 1);
    /* Now (5,9) is free: the orange cube jumps over (5,8) onto it and exits. */
    play(g, 0, 5, 7, OFF, 0);
    rules_game_free(g);
}

static void test_closed_exit_from_home(void **state)
{
    /* Player 1 takes a purple cube off at (4,0); the other purple cube is
     * closed and player 0 still needs it. */
    rules_game *g = big("purple cube 4 1; purple cube 5 7; red cube 3 3", NULL);
    rules_verdict v;
    (void)state;
    idle(g, 0);
    v = play(g, 1, 4, 1, OFF, 0);
    assert_int_equal(v.scores[1], 1);
    refuse(g, 0, 5, 7, 5, 9, "closed-one-space");
    play(g, 0, 5, 7, 5, 8);
    idle(g, 1);
    refuse(g, 0, 5, 8, OFF, 0, "exit-not-on-home"); /* closed: must start on (5,9) */
    play(g, 0, 5, 8, 5, 9);                         /* needed: no two-turn limit */
    idle(g, 1);
    v = play(g, 0, 5, 9, OFF, 0);
    assert_int_equal(v.scores[0], 1);
    assert_int_equal(v.extra[0].a, RULES_PURPLE);
    rules_game_free(g);
}

/* ---- restrictions ---- */

static void test_open_three_turns(void **state)
{
    rules_game *g = big("red cube 5 5; blue cube 3 3", NULL);
    (void)state;
    play(g, 0, 5, 5, 5, 6);
    idle(g, 1);
    play(g, 0, 5, 6, 6, 6);
    idle(g, 1);
    refuse(g, 0, 6, 6, 6, 7, "open-three-turns");
    play(g, 0, 3, 3, 3, 4); /* another piece breaks the run */
    idle(g, 1);
    play(g, 0, 6, 6, 6, 7);
    /* Each player counts their own turns: both move the red cube. */
    play(g, 1, 6, 7, 7, 7);
    play(g, 0, 7, 7, 7, 6);
    play(g, 1, 7, 6, 7, 5);
    refuse(g, 0, 7, 5, 7, 4, "open-three-turns");
    play(g, 0, 3, 4, 3, 3);
    refuse(g, 1, 7, 5, 7, 4, "open-three-turns");
    rules_game_free(g);
}

static void test_opponent_home_three_turns(void **state)
{
    rules_game *g = big("red cube 4 2; orange cube 3 1; yellow cube 5 1; green cube 6 3", NULL);
    (void)state;
    play(g, 0, 4, 2, 4, 0); /* onto player 1's home */
    play(g, 1, 4, 0, OFF, 0);
    play(g, 0, 3, 1, 4, 0);
    play(g, 1, 4, 0, OFF, 0);
    refuse(g, 0, 5, 1, 4, 0, "opponent-home-three-turns");
    play(g, 0, 5, 1, 4, 1); /* not onto the home square: the run ends */
    idle(g, 1);
    play(g, 0, 4, 1, 4, 0);
    rules_game_free(g);
}

/* ---- passes, the draw, options ---- */

static void test_pass_rules(void **state)
{
    rules_game *g = big(NULL, NULL);
    rules_verdict v;
    rules_status st;
    (void)state;
    refuse_type(g, 0, RULES_MOVE_PASS, "pass-with-move");
    rules_game_free(g);

    /* free_pass: a pass is always allowed; two in a row draw. */
    g = big(NULL, "{\"free_pass\":true}");
    play_type(g, 0, RULES_MOVE_PASS);
    idle(g, 1);
    v = play_type(g, 0, RULES_MOVE_PASS);
    assert_false(v.over);
    v = play_type(g, 1, RULES_MOVE_PASS);
    assert_true(v.over);
    assert_int_equal(v.winners, 0u);
    assert_non_null(strstr(v.note, "draw"));
    rules_game_status(g, &st);
    assert_true(st.over);
    refuse(g, 0, 0, 0, 2, 0, "game-over");
    rules_game_free(g);

    g = big(NULL, "{\"free_pass\":true,\"draw_passes\":3}");
    play_type(g, 0, RULES_MOVE_PASS);
    v = play_type(g, 1, RULES_MOVE_PASS);
    assert_false(v.over);
    v = play_type(g, 0, RULES_MOVE_PASS);
    assert_true(v.over);
    rules_game_free(g);

    g = big(NULL, "{\"free_pass\":true,\"draw_passes\":0}");
    for (int i = 0; i < 10; i++)
        assert_false(play_type(g, i % 2, RULES_MOVE_PASS).over);
    rules_game_free(g);
}

static void test_swap(void **state)
{
    rules_game *g = big("red cube 5 8; blue cube 7 5", NULL);
    rules_verdict v;
    rules_status st;
    (void)state;
    play(g, 0, 5, 8, OFF, 0);
    refuse_type(g, 1, RULES_MOVE_SWAP, "swap-off");
    rules_game_free(g);

    g = big("red cube 5 8; blue cube 7 5", "{\"swap\":true}");
    refuse_type(g, 0, RULES_MOVE_SWAP, "swap-late"); /* before any move */
    v = play(g, 0, 5, 8, OFF, 0);
    assert_int_equal(v.scores[0], 1);
    v = play_type(g, 1, RULES_MOVE_SWAP);
    /* Player 1's first move (the red cube) is now player 2's. */
    assert_int_equal(v.scores[0], 0);
    assert_int_equal(v.scores[1], 1);
    assert_non_null(strstr(v.note, "turned"));
    /* The board turned half round: (7,5) -> (2,4). */
    assert_int_equal(at(g, 2, 4), RULES_BLUE * 2);
    assert_int_equal(at(g, 7, 5), -1);
    rules_game_status(g, &st);
    assert_int_equal(st.to_move, 0);
    refuse_type(g, 0, RULES_MOVE_SWAP, "swap-late");
    idle(g, 0);
    refuse_type(g, 1, RULES_MOVE_SWAP, "swap-late");
    rules_game_free(g);
}

/* ---- the end ---- */

/* ---- random games through the real binary ---- */

#define NGAMES 40

/* A 24x2 board where each player's twelve pieces wait in a line behind
 * their home square, each cube in front of its cylinder: player 0 on row 0
 * (home (0,0)), player 1 on row 1 (home (23,1)).  Both walk their pieces
 * home along their row; player 0 moves first and collects the twelve first. */
static bool end_try(rules_game *g, int pl, int fc, int fr, int tc, int tr, rules_verdict *v)
{
    rules_move m = mk_move(fc, fr, tc, tr);
    rules_check(g, pl, &m, v);
    if (!v->legal)
        return false;
    assert_int_equal(rules_apply(g, pl, &m, v), 0);
    return true;
}

static void test_end_and_winner(void **state)
{
    char spec[2048] = "";
    rules_game *g;
    rules_verdict v;
    unsigned have[2] = {0, 0};
    int turn;
    (void)state;
    for (int k = 0; k < 12; k++) {
        char one[96];
        int t = (k / 2) * 2 + k % 2;
        snprintf(one, sizeof one, "%s%s %s %d 0; %s %s %d 1", k ? "; " : "",
                 rules_color_name(t / 2), shapes[t % 2], 1 + k, rules_color_name(t / 2),
                 shapes[t % 2], 22 - k);
        strcat(spec, one);
    }
    g = game_from(header("{\"cols\":24,\"rows\":2,\"home\":[[0,0],[23,1]]}", spec, false, NULL));
    memset(&v, 0, sizeof v);
    for (turn = 0; turn < 400 && !v.over; turn++) {
        int pl = turn % 2, home = pl == 0 ? 0 : 23, dir = pl == 0 ? -1 : 1;
        bool done = false;
        /* Pieces of the player's row, nearest the home square first: exit
         * if allowed, else the longest legal stride toward home (never
         * onto the home square with a piece that cannot leave yet). */
        for (int d = 0; d < 24 && !done; d++) {
            int c = home - dir * d, t = at(g, c, pl);
            bool can_exit;
            if (t < 0)
                continue;
            can_exit = !(have[pl] & (1u << t)) &&
                       (t % 2 == 0 || (have[pl] & (1u << (t - 1))));
            if (can_exit && (done = end_try(g, pl, c, pl, OFF, 0, &v)))
                break;
            for (int step = 4; step >= 1 && !done; step--) {
                int to = c + dir * step;
                if (d - step < 0 || (to == home && !can_exit))
                    continue;
                done = end_try(g, pl, c, pl, to, pl, &v);
            }
        }
        if (!done) {
            /* The last piece may be held back by the open-piece rule: a
             * waiting move of another piece, off both rows' ends. */
            rp_moves *l = calloc(1, sizeof *l);
            assert_non_null(l);
            rules_generate(g, pl, NULL, -1, rp_collect, l);
            for (int i = 0; i < l->n && !done; i++)
                if (l->m[i].type == RULES_MOVE_MOVE && !l->m[i].to_off &&
                    l->m[i].to[1] != pl && l->m[i].to[0] > 0 && l->m[i].to[0] < 23)
                    done = end_try(g, pl, l->m[i].from[0], l->m[i].from[1], l->m[i].to[0],
                                   l->m[i].to[1], &v);
            rp_moves_free(l);
            free(l);
        }
        if (!done) {
            cJSON *pos = rules_position_to_json(g);
            char *txt = cJSON_PrintUnformatted(pos);
            fail_msg("turn %d player %d stuck: %s (%s)", turn, pl, txt, v.reason);
        }
        if (v.nextra)
            have[pl] |= 1u << (v.extra[0].a * 2 + v.extra[0].b);
        assert_int_equal(v.scores[0], __builtin_popcount(have[0]));
        assert_int_equal(v.scores[1], __builtin_popcount(have[1]));
    }
    assert_true(v.over);
    assert_int_equal(v.winners, 1u);
    assert_int_equal(v.scores[0], 12);
    assert_true(v.scores[1] < 12);
    refuse(g, 1, 23, 1, 22, 1, "game-over");
    rules_game_free(g);
}

/* Every (from, to) pair the board allows, and "off", is legal by
 * rules_check exactly when the generator lists it. */
static void check_generator_agrees(const rules_game *g, int pl, const rp_moves *l, int cols,
                                   int rows)
{
    int legal = 0;
    for (int fc = 0; fc < cols; fc++)
        for (int fr = 0; fr < rows; fr++) {
            if (at(g, fc, fr) < 0)
                continue;
            for (int k = -1; k < cols * rows; k++) {
                rules_move m = mk_move(fc, fr, k < 0 ? OFF : k % cols, k < 0 ? 0 : k / cols);
                rules_verdict v;
                bool listed = false;
                rules_check(g, pl, &m, &v);
                for (int i = 0; i < l->n && !listed; i++)
                    listed = l->m[i].type == RULES_MOVE_MOVE && l->m[i].from[0] == fc &&
                             l->m[i].from[1] == fr && l->m[i].to_off == m.to_off &&
                             (m.to_off || (l->m[i].to[0] == m.to[0] && l->m[i].to[1] == m.to[1]));
                if (v.legal != listed)
                    fail_msg("(%d,%d)->%d: check says %d (%s), generator %d", fc, fr, k, v.legal,
                             v.rule, listed);
                legal += v.legal;
            }
        }
    for (int i = 0; i < l->n; i++)
        legal -= l->m[i].type == RULES_MOVE_MOVE;
    assert_int_equal(legal, 0);
}

/* Picks a move: an exit when there is one, often the move that brings a
 * piece the player can take off closest to their home square, else any. */
static const rules_move *pick(base_rng *r, const rp_moves *l, const rules_game *g, int pl,
                              const int home[2], unsigned have)
{
    int best = -1, bestgain = 0;
    for (int i = 0; i < l->n; i++)
        if (l->m[i].type == RULES_MOVE_MOVE && l->m[i].to_off)
            return &l->m[i];
    if (base_rng_below(r, 10) < 7) {
        for (int i = 0; i < l->n; i++) {
            const rules_move *m = &l->m[i];
            int t, gain;
            if (m->type != RULES_MOVE_MOVE)
                continue;
            t = at(g, m->from[0], m->from[1]);
            if ((have & (1u << t)) || (t % 2 == 1 && !(have & (1u << (t - 1)))))
                continue;
            gain = abs(m->from[0] - home[0]) + abs(m->from[1] - home[1]) -
                   abs(m->to[0] - home[0]) - abs(m->to[1] - home[1]);
            if (gain > bestgain || (gain == bestgain && gain > 0 && base_rng_below(r, 2))) {
                best = i;
                bestgain = gain;
            }
        }
        if (best >= 0)
            return &l->m[best];
    }
    (void)pl;
    return &l->m[base_rng_below(r, l->n)];
}

static void test_random_games_replayed(void **state)
{
    char *dir = th_tmpdir();
    int finished = 0, swaps = 0;
    (void)state;
    for (int gi = 0; gi < NGAMES; gi++) {
        base_rng r = {.s = 0xc0be2ull + (uint64_t)gi * 7919u};
        /* Every third game sets up with "place" events, every fourth plays
         * with the swap option; every fifth moves at random throughout. */
        bool by_events = gi % 3 == 1, swap = gi % 4 == 2, aimless = gi % 5 == 4;
        cJSON *h = cJSON_CreateObject(), *setup = NULL, *pl_arr;
        rules_game *g = NULL;
        base_err err;
        const int home[2][2] = {{3, 5}, {2, 0}};
        int squares[36], nsq = 0, nevents = 0;
        unsigned have[2] = {0, 0};
        char *path, name[32];
        rp_record rec = {0};
        th_run run;
        rules_verdict last;
        rp_moves *l = calloc(1, sizeof *l);
        int *scores = malloc(sizeof(int) * 2 * 2000);
        assert_non_null(l);

        /* A random setup on the default board: a shuffle of the squares. */
        for (int sq = 0; sq < 36; sq++)
            if (sq != 5 * 6 + 3 && sq != 0 * 6 + 2)
                squares[nsq++] = sq;
        for (int i = nsq - 1; i > 0; i--) {
            int j = base_rng_below(&r, i + 1), t = squares[i];
            squares[i] = squares[j];
            squares[j] = t;
        }
        cJSON_AddStringToObject(h, "game", "cube2");
        pl_arr = cJSON_AddArrayToObject(h, "players");
        cJSON_AddItemToArray(pl_arr, cJSON_CreateString("Ann"));
        cJSON_AddItemToArray(pl_arr, cJSON_CreateString("Bob"));
        if (swap)
            cJSON_AddItemToObject(h, "options", cJSON_Parse("{\"swap\":true}"));
        if (!by_events) {
            setup = cJSON_AddArrayToObject(h, "setup");
            for (int i = 0; i < 24; i++) {
                rules_piece p = {.x = (int16_t)(squares[i] % 6), .y = (int16_t)(squares[i] / 6),
                                 .a = (uint8_t)(i / 4), .b = (uint8_t)((i / 2) % 2)};
                cJSON_AddItemToArray(setup, rules_piece_to_json("cube2", &p));
            }
        }
        assert_int_equal(rules_game_new("cube2", h, &err, &g), 0);
        {
            char *hs = cJSON_PrintUnformatted(h);
            assert_int_equal(rp_record_line(&rec, hs), 0);
            free(hs);
        }
        cJSON_Delete(h);
        memset(&last, 0, sizeof last);
        for (nevents = 0; nevents < (aimless ? 400 : 1500); nevents++) {
            rules_status st;
            const rules_move *m;
            rules_move chosen;
            rules_game_status(g, &st);
            if (st.over)
                break;
            l->n = 0;
            assert_true(rules_generate(g, st.to_move, NULL, -1, rp_collect, l) > 0);
            if (gi < 10 && nevents % 3 == 0)
                check_generator_agrees(g, st.to_move, l, 6, 6);
            m = NULL;
            for (int i = 0; swap && i < l->n; i++)
                if (l->m[i].type == RULES_MOVE_SWAP)
                    m = &l->m[i];
            if (!m)
                m = aimless ? &l->m[base_rng_below(&r, l->n)]
                            : pick(&r, l, g, st.to_move, home[st.to_move], have[st.to_move]);
            chosen = *m;
            if (chosen.type == RULES_MOVE_SWAP) {
                unsigned t = have[0];
                have[0] = have[1];
                have[1] = t;
                swaps++;
            }
            assert_int_equal(rules_apply(g, st.to_move, &chosen, &last), 0);
            if (!last.legal)
                fail_msg("game %d event %d: generated move illegal: %s", gi, nevents, last.reason);
            if (last.nextra)
                have[st.to_move] |= 1u << (last.extra[0].a * 2 + last.extra[0].b);
            scores[2 * nevents] = last.scores[0];
            scores[2 * nevents + 1] = last.scores[1];
            assert_int_equal(rp_record_event(&rec, "cube2", st.to_move, &chosen), 0);
        }
        if (!aimless && last.over && last.winners) {
            finished++;
            assert_true(last.scores[0] == 12 || last.scores[1] == 12);
        }
        snprintf(name, sizeof name, "game%d.jsonl", gi);
        path = th_path(dir, name);
        assert_int_equal(th_write_file(path, rec.text), 0);
        assert_int_equal(th_tablecam(&run, NULL,
                                     (const char *[]){"referee", "--game", "cube2", path, NULL}),
                         0);
        if (run.status != 0)
            fail_msg("game %d: exit %d: %s", gi, run.status, run.err);
        assert_int_equal(th_count_lines(run.out), nevents + 1);
        for (int k = 0; k <= nevents; k++) {
            char *line = th_line(run.out, k);
            cJSON *o = cJSON_Parse(line), *sc = cJSON_GetObjectItem(o, "scores");
            assert_non_null(o);
            if (k < nevents) {
                if (!cJSON_IsTrue(cJSON_GetObjectItem(o, "legal")))
                    fail_msg("game %d event %d: %s", gi, k + 1, line);
                assert_int_equal(cJSON_GetArrayItem(sc, 0)->valueint, scores[2 * k]);
                assert_int_equal(cJSON_GetArrayItem(sc, 1)->valueint, scores[2 * k + 1]);
                /* An exit, and only an exit, scores and names its piece. */
                assert_int_equal(cJSON_GetObjectItem(o, "exited") != NULL,
                                 cJSON_GetObjectItem(o, "points")->valueint == 1);
            } else {
                cJSON *w = cJSON_GetObjectItem(o, "winners");
                assert_true(cJSON_IsTrue(cJSON_GetObjectItem(o, "final")));
                assert_int_equal(cJSON_GetArrayItem(sc, 0)->valueint, last.scores[0]);
                assert_int_equal(cJSON_GetArrayItem(sc, 1)->valueint, last.scores[1]);
                assert_int_equal(cJSON_IsTrue(cJSON_GetObjectItem(o, "over")), last.over);
                assert_int_equal(cJSON_GetArraySize(w), last.over ? __builtin_popcount(last.winners) : 0);
            }
            cJSON_Delete(o);
            free(line);
        }
        th_run_free(&run);
        free(path);
        free(rec.text);
        rp_moves_free(l);
        free(l);
        free(scores);
        rules_game_free(g);
    }
    /* The greedy games reach their end (all of them, with these seeds). */
    assert_true(finished >= NGAMES * 4 / 5 * 9 / 10);
    assert_true(swaps >= 1);
    th_rmtree(dir);
    free(dir);
}

/* ---- codec ---- */

static void test_codec(void **state)
{
    static const char *const moves[] = {
        "{\"type\":\"move\",\"from\":[2,4],\"to\":[3,4]}",
        "{\"type\":\"move\",\"from\":[3,5],\"to\":\"off\"}",
        "{\"type\":\"pass\"}",
        "{\"type\":\"swap\"}",
        ("{\"type\":\"place\",\"pieces\":[{\"col\":2,\"row\":4,\"color\":\"blue\","
         "\"shape\":\"cylinder\"}]}"),
    };
    static const struct {
        const char *json, *needle;
    } bad[] = {
        {"{\"type\":\"move\",\"to\":[3,4]}", "\"from\""},
        {"{\"type\":\"move\",\"from\":[2],\"to\":[3,4]}", "\"from\""},
        {"{\"type\":\"move\",\"from\":[2,4]}", "\"to\""},
        {"{\"type\":\"move\",\"from\":[2,4],\"to\":\"away\"}", "\"to\""},
        {"{\"type\":\"move\",\"from\":[2,4],\"to\":[3,4.5]}", "\"to\""},
        {"{\"type\":\"reroll\"}", "reroll"},
        {"{\"from\":[2,4],\"to\":[3,4]}", "\"type\""},
        {"{\"type\":\"place\",\"pieces\":[{\"row\":4,\"color\":\"blue\",\"shape\":\"cube\"}]}",
         "\"col\""},
        {"{\"type\":\"place\",\"pieces\":[{\"col\":1,\"row\":4,\"color\":\"white\","
         "\"shape\":\"cube\"}]}",
         "white"},
        {"{\"type\":\"place\",\"pieces\":[{\"col\":1,\"row\":4,\"color\":\"red\","
         "\"shape\":\"sphere\"}]}",
         "sphere"},
        {"{\"type\":\"place\",\"pieces\":[{\"col\":1,\"row\":4,\"color\":\"red\"}]}", "\"shape\""},
    };
    (void)state;
    for (size_t i = 0; i < sizeof moves / sizeof moves[0]; i++) {
        cJSON *in = cJSON_Parse(moves[i]), *out;
        rules_move m;
        base_err err;
        assert_non_null(in);
        if (rules_move_from_json("cube2", in, &m, &err) != 0)
            fail_msg("%s: %s", moves[i], err.msg);
        out = rules_move_to_json("cube2", &m);
        assert_true(cJSON_Compare(in, out, true));
        cJSON_Delete(in);
        cJSON_Delete(out);
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cJSON *in = cJSON_Parse(bad[i].json);
        rules_move m;
        base_err err;
        assert_non_null(in);
        assert_int_not_equal(rules_move_from_json("cube2", in, &m, &err), 0);
        if (!strstr(err.msg, bad[i].needle))
            fail_msg("%s: \"%s\" does not name %s", bad[i].json, err.msg, bad[i].needle);
        cJSON_Delete(in);
    }
    /* Pieces and positions. */
    {
        cJSON *in = cJSON_Parse("{\"col\":2,\"row\":4,\"color\":\"blue\",\"shape\":\"cylinder\"}");
        rules_piece p;
        base_err err;
        cJSON *out;
        assert_int_equal(rules_piece_from_json("cube2", in, &p, &err), 0);
        assert_int_equal(p.x, 2);
        assert_int_equal(p.y, 4);
        assert_int_equal(p.a, RULES_BLUE);
        assert_int_equal(p.b, RULES_C2_CYLINDER);
        out = rules_piece_to_json("cube2", &p);
        assert_true(cJSON_Compare(in, out, true));
        cJSON_Delete(in);
        cJSON_Delete(out);
    }
    /* An event with a hand (ignored by the rules, but it must parse). */
    {
        cJSON *in = cJSON_Parse("{\"player\":1,\"move\":{\"type\":\"pass\"},\"hand\":[{\"color\":"
                                "\"red\",\"shape\":\"cube\"}]}");
        rules_move m;
        int pl;
        base_err err;
        assert_int_equal(rules_event_from_json("cube2", in, &pl, &m, &err), 0);
        assert_int_equal(pl, 1);
        assert_int_equal(m.type, RULES_MOVE_PASS);
        assert_int_equal(m.nhand, 1);
        cJSON_Delete(in);
    }
}

static void test_verdict_json(void **state)
{
    rules_game *g = big("red cube 5 8", NULL);
    rules_verdict v = play(g, 0, 5, 8, OFF, 0);
    cJSON *o = rules_verdict_to_json(g, 1, 0, &v), *ex;
    (void)state;
    ex = cJSON_GetObjectItem(o, "exited");
    assert_non_null(ex);
    assert_string_equal(cJSON_GetObjectItem(ex, "color")->valuestring, "red");
    assert_string_equal(cJSON_GetObjectItem(ex, "shape")->valuestring, "cube");
    assert_int_equal(cJSON_GetObjectItem(o, "points")->valueint, 1);
    cJSON_Delete(o);
    v = play(g, 1, 0, 0, 2, 0);
    o = rules_verdict_to_json(g, 2, 1, &v);
    assert_null(cJSON_GetObjectItem(o, "exited"));
    cJSON_Delete(o);
    rules_game_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_header_setup_default_board),
        cmocka_unit_test(test_header_errors),
        cmocka_unit_test(test_setup_by_place_events),
        cmocka_unit_test(test_open_moves),
        cmocka_unit_test(test_jumps),
        cmocka_unit_test(test_path_blocked),
        cmocka_unit_test(test_closed_moves),
        cmocka_unit_test(test_exit_rules),
        cmocka_unit_test(test_exit_home_occupied),
        cmocka_unit_test(test_closed_exit_from_home),
        cmocka_unit_test(test_open_three_turns),
        cmocka_unit_test(test_opponent_home_three_turns),
        cmocka_unit_test(test_pass_rules),
        cmocka_unit_test(test_swap),
        cmocka_unit_test(test_end_and_winner),
        cmocka_unit_test(test_referee_binary),
        cmocka_unit_test(test_random_games_replayed),
        cmocka_unit_test(test_codec),
        cmocka_unit_test(test_verdict_json),
    };
    th_case_filter();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
