/* tests/test_rules_stack4.c: the stack4 engine (rules/stack4*.c): every
 * rule with its id, the options, the end and the winner, the codec, the
 * move generator against an independent oracle, random full games replayed
 * through the real `tablecam referee`, and the solver against a plain
 * minimax on small endgames. */
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

static cJSON *parse(const char *text)
{
    cJSON *j = cJSON_Parse(text);
    assert_non_null(j);
    return j;
}

static rules_game *new_game(const char *header)
{
    rules_game *g = NULL;
    base_err err;
    cJSON *h = header ? parse(header) : NULL;
    int rc = rules_game_new("stack4", h, &err, &g);
    if (rc != 0)
        fail_msg("rules_game_new: %s", err.msg);
    cJSON_Delete(h);
    return g;
}

/* A move from its JSON text. */
static void move_of(const char *json, rules_move *m)
{
    base_err err;
    cJSON *j = parse(json);
    if (rules_move_from_json("stack4", j, m, &err) != 0)
        fail_msg("move %s: %s", json, err.msg);
    cJSON_Delete(j);
}

/* Places piece `kind` of the player to move at the cells, which must be
 * legal. */
static void play(rules_game *g, const char *kind, const char *cells)
{
    char buf[256];
    rules_status st;
    rules_move m;
    rules_verdict v;
    rules_game_status(g, &st);
    snprintf(buf, sizeof buf, "{\"type\":\"place\",\"pieces\":[{\"player\":\"%s\",\"piece\":\"%s\","
             "\"cells\":%s}]}", st.to_move ? "dark" : "light", kind, cells);
    move_of(buf, &m);
    assert_int_equal(rules_apply(g, st.to_move, &m, &v), 0);
    if (!v.legal)
        fail_msg("%s %s: %s: %s", kind, cells, v.rule, v.reason);
}

/* Checks a move for the player to move; returns the verdict. */
static rules_verdict check(rules_game *g, const char *who, const char *kind, const char *cells)
{
    char buf[256];
    rules_status st;
    rules_move m;
    rules_verdict v;
    rules_game_status(g, &st);
    snprintf(buf, sizeof buf, "{\"type\":\"place\",\"pieces\":[{\"player\":\"%s\",\"piece\":\"%s\","
             "\"cells\":%s}]}", who, kind, cells);
    move_of(buf, &m);
    assert_int_equal(rules_check(g, st.to_move, &m, &v), 0);
    return v;
}

static void assert_illegal(rules_verdict v, const char *rule, const char *in_reason)
{
    assert_false(v.legal);
    assert_string_equal(v.rule, rule);
    if (in_reason && !strstr(v.reason, in_reason))
        fail_msg("reason \"%s\" does not mention \"%s\"", v.reason, in_reason);
}

static int brute(const rules_game *g);

/* ---- an independent model of the rules, for the generator ---- */

static const int base_cells[8][4][3] = {
    {{0, 0, 0}, {1, 0, 0}, {2, 0, 0}, {3, 0, 0}}, {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}},
    {{0, 0, 0}, {1, 0, 0}, {2, 0, 0}, {2, 1, 0}}, {{0, 0, 0}, {1, 0, 0}, {2, 0, 0}, {1, 1, 0}},
    {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {2, 1, 0}}, {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {1, 1, 1}},
    {{0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {1, 1, 0}}, {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}},
};
static const char *const kind_names[8] = {"I", "O", "L", "T", "S", "SR", "SL", "Y"};

typedef struct shapes {
    int n[8];
    int c[8][24][4][3];
} shapes;

static int cell_cmp(const void *a, const void *b) { return memcmp(a, b, 3 * sizeof(int)); }

static void shape_norm(int c[4][3])
{
    for (int a = 0; a < 3; a++) {
        int lo = c[0][a];
        for (int i = 1; i < 4; i++)
            lo = c[i][a] < lo ? c[i][a] : lo;
        for (int i = 0; i < 4; i++)
            c[i][a] -= lo;
    }
    qsort(c, 4, sizeof c[0], cell_cmp);
}

/* The orientations as the closure of quarter turns about x and about y (a
 * different road from the engine's signed permutation matrices). */
static void shapes_build(shapes *S)
{
    memset(S, 0, sizeof *S);
    for (int k = 0; k < 8; k++) {
        memcpy(S->c[k][0], base_cells[k], sizeof S->c[k][0]);
        shape_norm(S->c[k][0]);
        S->n[k] = 1;
        for (int done = 0; done < S->n[k]; done++)
            for (int turn = 0; turn < 2; turn++) {
                int c[4][3], dup = 0;
                for (int i = 0; i < 4; i++) {
                    const int *p = S->c[k][done][i];
                    if (turn == 0) { c[i][0] = p[0]; c[i][1] = -p[2]; c[i][2] = p[1]; }
                    else { c[i][0] = p[2]; c[i][1] = p[1]; c[i][2] = -p[0]; }
                }
                shape_norm(c);
                for (int j = 0; j < S->n[k] && !dup; j++)
                    dup = memcmp(S->c[k][j], c, sizeof c) == 0;
                if (!dup) {
                    assert_true(S->n[k] < 24);
                    memcpy(S->c[k][S->n[k]++], c, sizeof c);
                }
            }
    }
}

/* occ[x][y][z] from the game's position. */
static void grid_of(const rules_game *g, bool occ[4][4][4])
{
    rules_piece p[16];
    int n = rules_position(g, p, 16);
    memset(occ, 0, 64 * sizeof(bool));
    assert_true(n <= 16);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < 4; j++)
            occ[p[i].cells[j][0]][p[i].cells[j][1]][p[i].cells[j][2]] = true;
}

static bool in_piece(int c[4][3], int x, int y, int z)
{
    for (int i = 0; i < 4; i++)
        if (c[i][0] == x && c[i][1] == y && c[i][2] == z)
            return true;
    return false;
}

/* The rules of GAMES.md, written as plainly as possible: entry 0 slide,
 * 1 drop only, 2 free. */
static bool oracle_legal(bool occ[4][4][4], int c[4][3], int entry)
{
    static const int d[5][3] = {{0, 0, 1}, {1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}};
    bool supported = false, reachable = false;
    for (int i = 0; i < 4; i++) {
        int x = c[i][0], y = c[i][1], z = c[i][2];
        if (x < 0 || x > 3 || y < 0 || y > 3 || z < 0 || z > 3 || occ[x][y][z])
            return false;
        if (z == 0 || (occ[x][y][z - 1] && !in_piece(c, x, y, z - 1)))
            supported = true;
    }
    if (!supported)
        return false;
    if (entry == 2)
        return true;
    for (int dir = 0; dir < (entry == 1 ? 1 : 5) && !reachable; dir++) {
        bool clear = true;
        for (int k = 1; k <= 4 && clear; k++)
            for (int i = 0; i < 4; i++) {
                int x = c[i][0] + k * d[dir][0], y = c[i][1] + k * d[dir][1],
                    z = c[i][2] + k * d[dir][2];
                if (x >= 0 && x <= 3 && y >= 0 && y <= 3 && z >= 0 && z <= 3 && occ[x][y][z])
                    clear = false;
            }
        reachable = clear;
    }
    return reachable;
}

static int count_cb(void *ctx, const rules_move *m)
{
    (void)m;
    (*(int *)ctx)++;
    return 0;
}

typedef struct pick {
    int want, seen;
    rules_move m;
} pick;

static int pick_cb(void *ctx, const rules_move *m)
{
    pick *p = ctx;
    if (p->seen++ == p->want) {
        p->m = *m;
        return 1;
    }
    return 0;
}

/* Every legal move of the player to move (rp_moves_free() it). */
static rp_moves legal_moves(const rules_game *g)
{
    rp_moves c = {0};
    rules_status st;
    rules_game_status(g, &st);
    assert_true(rules_generate(g, st.to_move, NULL, -1, rp_collect, &c) == c.n);
    assert_true(c.n == 0 || c.m != NULL);
    return c;
}

/* Every candidate placement of every remaining piece: the engine's check
 * must agree with the oracle on each, and the generator must list exactly
 * the legal ones. */
static void compare_with_oracle(const rules_game *g, const shapes *S, int entry)
{
    bool occ[4][4][4];
    rules_status st;
    rules_piece pos[16];
    int npos = rules_position(g, pos, 16), legal = 0, generated = 0, n;
    unsigned used = 0;

    rules_game_status(g, &st);
    if (st.over)
        return;
    grid_of(g, occ);
    for (int i = 0; i < npos; i++)
        if (pos[i].owner == st.to_move)
            used |= 1u << pos[i].a;
    for (int k = 0; k < 8; k++)
        for (int r = 0; r < S->n[k]; r++)
            for (int tz = 0; tz < 4; tz++)
                for (int ty = 0; ty < 4; ty++)
                    for (int tx = 0; tx < 4; tx++) {
                        int c[4][3];
                        bool fits = true, want;
                        rules_move m;
                        rules_verdict v;
                        for (int i = 0; i < 4; i++) {
                            c[i][0] = S->c[k][r][i][0] + tx;
                            c[i][1] = S->c[k][r][i][1] + ty;
                            c[i][2] = S->c[k][r][i][2] + tz;
                            fits = fits && c[i][0] < 4 && c[i][1] < 4 && c[i][2] < 4;
                        }
                        if (!fits)
                            continue;
                        rules_move_init(&m, RULES_MOVE_PLACE);
                        m.npieces = 1;
                        m.pieces[0].a = (uint8_t)k;
                        m.pieces[0].owner = (int8_t)st.to_move;
                        m.pieces[0].ncells = 4;
                        for (int i = 0; i < 4; i++)
                            for (int a = 0; a < 3; a++)
                                m.pieces[0].cells[i][a] = (int8_t)c[i][a];
                        want = !(used >> k & 1) && oracle_legal(occ, c, entry);
                        assert_int_equal(rules_check(g, st.to_move, &m, &v), 0);
                        if (v.legal != want)
                            fail_msg("%s at (%d,%d,%d)...: engine says %s (%s), oracle %d",
                                     kind_names[k], c[0][0], c[0][1], c[0][2],
                                     v.legal ? "legal" : v.rule, v.reason, want);
                        legal += want;
                    }
    n = rules_generate(g, st.to_move, NULL, -1, count_cb, &generated);
    assert_int_equal(n, generated);
    assert_int_equal(generated, legal);
}

/* One random move of the player to move; false when there is none. */
static bool random_move(const rules_game *g, base_rng *seed, rules_move *m)
{
    rules_status st;
    int n = 0;
    pick p;
    rules_game_status(g, &st);
    rules_generate(g, st.to_move, NULL, -1, count_cb, &n);
    if (n == 0)
        return false;
    p.want = base_rng_below(seed, n);
    p.seen = 0;
    rules_generate(g, st.to_move, NULL, -1, pick_cb, &p);
    *m = p.m;
    return true;
}

/* ---- the catalogue and the generator ---- */

static void test_orientations(void **state)
{
    shapes S;
    (void)state;
    shapes_build(&S);
    /* Tetracube symmetry: a straight line has 3 orientations, the square
     * 3, the tripod 8, the planar L 24, T and S 12, each screw 12. */
    assert_int_equal(S.n[0], 3);
    assert_int_equal(S.n[1], 3);
    assert_int_equal(S.n[2], 24);
    assert_int_equal(S.n[3], 12);
    assert_int_equal(S.n[4], 12);
    assert_int_equal(S.n[5], 12);
    assert_int_equal(S.n[6], 12);
    assert_int_equal(S.n[7], 8);
    /* SR and SL are mirror images: no rotation turns one into the other. */
    for (int a = 0; a < S.n[5]; a++)
        for (int b = 0; b < S.n[6]; b++)
            assert_true(memcmp(S.c[5][a], S.c[6][b], sizeof S.c[5][a]) != 0);
}

static void test_generator_matches_oracle(void **state)
{
    static const char *const headers[3] = {
        "{\"players\":[\"A\",\"B\"]}",
        "{\"players\":[\"A\",\"B\"],\"options\":{\"entry\":\"drop\"}}",
        "{\"players\":[\"A\",\"B\"],\"options\":{\"entry\":\"free\"}}",
    };
    shapes S;
    (void)state;
    shapes_build(&S);
    for (int entry = 0; entry < 3; entry++)
        for (int game = 0; game < 4; game++) {
            base_rng seed = {1000u * (unsigned)entry + (unsigned)game};
            rules_game *g = new_game(headers[entry]);
            rules_move m;
            rules_verdict v;
            rules_status st;
            for (;;) {
                compare_with_oracle(g, &S, entry);
                rules_game_status(g, &st);
                if (st.over || !random_move(g, &seed, &m))
                    break;
                assert_int_equal(rules_apply(g, st.to_move, &m, &v), 0);
                assert_true(v.legal);
            }
            rules_game_free(g);
        }
}

static void test_generate_hand(void **state)
{
    rules_game *g = new_game(NULL);
    rules_piece hand[2];
    int n_i = 0, n_o = 0, n_io = 0;
    (void)state;
    memset(hand, 0, sizeof hand);
    hand[0].a = 0; /* I */
    hand[1].a = 1; /* O */
    rules_generate(g, 0, hand, 1, count_cb, &n_i);
    rules_generate(g, 0, hand + 1, 1, count_cb, &n_o);
    rules_generate(g, 0, hand, 2, count_cb, &n_io);
    /* On the empty base: a flat I lies in 4 rows either way, a standing
     * one on any of 16 cells; a flat O at 9 spots, a standing one at 12 a
     * side. */
    assert_int_equal(n_i, 4 + 4 + 16);
    assert_int_equal(n_o, 9 + 12 + 12);
    assert_int_equal(n_io, n_i + n_o);
    play(g, "I", "[[0,0,0],[1,0,0],[2,0,0],[3,0,0]]");
    play(g, "I", "[[0,3,0],[1,3,0],[2,3,0],[3,3,0]]");
    n_i = 0;
    /* Light's I is placed: a hand naming it adds nothing. */
    assert_int_equal(rules_generate(g, 0, hand, 1, count_cb, &n_i), 0);
    rules_game_free(g);
}

/* ---- each rule ---- */

static void test_rule_bounds(void **state)
{
    rules_game *g = new_game(NULL);
    (void)state;
    assert_illegal(check(g, "light", "I", "[[1,0,0],[2,0,0],[3,0,0],[4,0,0]]"), "out-of-bounds",
                   "(4,0,0)");
    assert_illegal(check(g, "light", "I", "[[1,0,0],[2,0,0],[3,0,0],[4,0,0]]"), "out-of-bounds",
                   "overhangs");
    assert_illegal(check(g, "light", "I", "[[0,0,1],[0,0,2],[0,0,3],[0,0,4]]"), "out-of-bounds",
                   "more than 4 cubes above");
    assert_illegal(check(g, "light", "I", "[[0,-1,0],[0,0,0],[0,1,0],[0,2,0]]"), "out-of-bounds",
                   "(0,-1,0)");
    assert_illegal(check(g, "light", "O", "[[0,0,-1],[1,0,-1],[0,1,-1],[1,1,-1]]"),
                   "out-of-bounds", "below the base");
    assert_true(check(g, "light", "I", "[[0,0,0],[0,0,1],[0,0,2],[0,0,3]]").legal);
    rules_game_free(g);
}

static void test_rule_occupied_and_support(void **state)
{
    rules_game *g = new_game(NULL);
    (void)state;
    play(g, "I", "[[0,0,0],[1,0,0],[2,0,0],[3,0,0]]");
    assert_illegal(check(g, "dark", "O", "[[2,0,0],[3,0,0],[2,1,0],[3,1,0]]"), "cell-occupied",
                   "(2,0,0)");
    assert_illegal(check(g, "dark", "O", "[[2,0,0],[3,0,0],[2,1,0],[3,1,0]]"), "cell-occupied",
                   "light's I");
    /* Floating: nothing under any cell. */
    assert_illegal(check(g, "dark", "O", "[[1,1,1],[2,1,1],[1,2,1],[2,2,1]]"), "unsupported",
                   "(1,1,1)");
    /* Resting on the light I with one cell is enough. */
    assert_true(check(g, "dark", "O", "[[1,0,1],[2,0,1],[1,1,1],[2,1,1]]").legal);
    rules_game_free(g);
}

static void test_rule_support_own_cells(void **state)
{
    rules_game *g = new_game(NULL);
    rules_verdict v;
    (void)state;
    v = check(g, "light", "I", "[[1,1,1],[1,1,2],[1,1,3],[1,1,4]]");
    assert_illegal(v, "out-of-bounds", NULL);
    /* Its top cell rests on its own cell: that does not hold it up. */
    v = check(g, "light", "Y", "[[1,1,2],[2,1,2],[1,2,2],[1,1,3]]");
    assert_illegal(v, "unsupported", "(1,1,2)");
    rules_game_free(g);
}

/* The ring of the base walled off and a roof over the middle: a piece in
 * the middle can neither drop in nor slide in. */
static rules_game *walled_game(const char *header)
{
    rules_game *g = new_game(header);
    play(g, "I", "[[0,0,0],[1,0,0],[2,0,0],[3,0,0]]");
    play(g, "I", "[[0,3,0],[1,3,0],[2,3,0],[3,3,0]]");
    play(g, "O", "[[0,1,0],[0,2,0],[0,1,1],[0,2,1]]");
    play(g, "L", "[[3,1,0],[3,2,0],[3,2,1],[3,2,2]]");
    play(g, "L", "[[1,0,1],[2,0,1],[2,1,1],[2,2,1]]");
    return g;
}

static void test_rule_unreachable(void **state)
{
    rules_game *g = walled_game(NULL);
    rules_game *free_g = walled_game("{\"players\":[\"A\",\"B\"],\"options\":{\"entry\":\"free\"}}");
    (void)state;
    assert_illegal(check(g, "dark", "O", "[[1,1,0],[2,1,0],[1,2,0],[2,2,0]]"), "unreachable",
                   "(2,1,1)");
    assert_illegal(check(g, "dark", "O", "[[1,1,0],[2,1,0],[1,2,0],[2,2,0]]"), "unreachable",
                   "light's L");
    /* Without the slide rule the same placement is fine. */
    assert_true(check(free_g, "dark", "O", "[[1,1,0],[2,1,0],[1,2,0],[2,2,0]]").legal);
    rules_game_free(g);
    rules_game_free(free_g);
}

static void test_rule_slide_under_overhang(void **state)
{
    static const char *const setup[][2] = {
        {"I", "[[0,0,0],[1,0,0],[2,0,0],[3,0,0]]"},
        {"I", "[[0,3,0],[1,3,0],[2,3,0],[3,3,0]]"},
        {"L", "[[1,0,1],[2,0,1],[2,1,1],[2,2,1]]"},
    };
    const char *under = "[[2,1,0],[3,1,0],[2,2,0],[3,2,0]]";
    rules_game *slide = new_game(NULL);
    rules_game *drop = new_game("{\"players\":[\"A\",\"B\"],\"options\":{\"entry\":\"drop\"}}");
    (void)state;
    for (int i = 0; i < 3; i++) {
        play(slide, setup[i][0], setup[i][1]);
        play(drop, setup[i][0], setup[i][1]);
    }
    /* The light L overhangs (2,1,0) and (2,2,0): the dark O slides in from
     * the +x side. */
    assert_true(check(slide, "dark", "O", under).legal);
    assert_illegal(check(drop, "dark", "O", under), "unreachable", "only drops from above");
    play(slide, "O", under);
    rules_game_free(slide);
    rules_game_free(drop);
}

static void test_rule_pieces_and_players(void **state)
{
    rules_game *g = new_game(NULL);
    rules_move m;
    rules_verdict v;
    (void)state;
    assert_illegal(check(g, "dark", "I", "[[0,0,0],[1,0,0],[2,0,0],[3,0,0]]"), "wrong-player",
                   "dark");
    play(g, "I", "[[0,0,0],[1,0,0],[2,0,0],[3,0,0]]");
    play(g, "T", "[[0,1,0],[1,1,0],[2,1,0],[1,2,0]]");
    assert_illegal(check(g, "light", "I", "[[0,3,0],[1,3,0],[2,3,0],[3,3,0]]"), "piece-used",
                   "already placed its I");
    /* Out of turn and the shapes. */
    move_of("{\"type\":\"place\",\"pieces\":[{\"player\":\"dark\",\"piece\":\"O\","
            "\"cells\":[[2,2,0],[3,2,0],[2,3,0],[3,3,0]]}]}", &m);
    assert_int_equal(rules_check(g, 1, &m, &v), 0);
    assert_illegal(v, "out-of-turn", NULL);
    assert_illegal(check(g, "light", "L", "[[0,3,0],[1,3,0],[2,3,0],[1,2,0]]"), "wrong-shape",
                   "form a T, not an L");
    assert_illegal(check(g, "light", "L", "[[0,3,0],[1,3,0],[2,3,0],[1,2,1]]"), "wrong-shape",
                   "cell (1,2,1) does not fit");
    assert_illegal(check(g, "light", "SL", "[[2,2,0],[3,2,0],[3,3,0],[3,3,1]]"), "wrong-shape",
                   "mirror");
    assert_illegal(check(g, "light", "O", "[[0,3,0],[1,3,0],[0,2,0],[3,3,1]]"), "wrong-shape",
                   "(3,3,1)");
    assert_illegal(check(g, "light", "O", "[[0,3,0],[0,3,0],[1,3,0],[1,2,0]]"), "wrong-shape",
                   "listed twice: an O covers 4 cells");
    /* Two pieces in one turn. */
    move_of("{\"type\":\"place\",\"pieces\":[{\"player\":\"light\",\"piece\":\"O\","
            "\"cells\":[[2,2,0],[3,2,0],[2,3,0],[3,3,0]]},{\"player\":\"light\",\"piece\":\"S\","
            "\"cells\":[[0,2,1],[1,2,1],[1,3,1],[2,3,1]]}]}", &m);
    assert_int_equal(rules_check(g, 0, &m, &v), 0);
    assert_illegal(v, "one-piece", "2");
    /* A hand that does not hold the piece. */
    move_of("{\"type\":\"place\",\"hand\":[\"S\",\"Y\"],\"pieces\":[{\"player\":\"light\","
            "\"piece\":\"O\",\"cells\":[[2,2,0],[3,2,0],[2,3,0],[3,3,0]]}]}", &m);
    assert_int_equal(rules_check(g, 0, &m, &v), 0);
    assert_illegal(v, "not-in-hand", "O");
    m.hand[1].a = 1;
    assert_int_equal(rules_check(g, 0, &m, &v), 0);
    assert_true(v.legal);
    /* Moves the codec never makes, built by a caller. */
    m.nhand = -1;
    m.pieces[0].a = 8;
    assert_int_equal(rules_check(g, 0, &m, &v), 0);
    assert_illegal(v, "unknown-piece", "8");
    m.type = RULES_MOVE_PASS;
    assert_int_equal(rules_check(g, 0, &m, &v), 0);
    assert_illegal(v, "not-a-place", NULL);
    rules_game_free(g);
}

/* ---- options ---- */

static void test_options(void **state)
{
    static const char *const bad[][2] = {
        {"{\"players\":[\"A\",\"B\"],\"options\":{\"gravity\":\"off\"}}", "gravity"},
        {"{\"players\":[\"A\",\"B\"],\"options\":{\"entry\":\"teleport\"}}", "entry"},
        {"{\"players\":[\"A\",\"B\"],\"options\":{\"all-placed\":3}}", "all-placed"},
        {"{\"players\":[\"A\",\"B\"],\"options\":[]}", "options"},
        {"{\"players\":[\"A\",\"B\",\"C\"]}", "3"},
    };
    (void)state;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        rules_game *g = NULL;
        base_err err;
        cJSON *h = parse(bad[i][0]);
        assert_true(rules_game_new("stack4", h, &err, &g) < 0);
        assert_null(g);
        if (!strstr(err.msg, bad[i][1]))
            fail_msg("error \"%s\" does not name %s", err.msg, bad[i][1]);
        cJSON_Delete(h);
    }
}

/* ---- the end ---- */

/* Plays seeded random games until one ends with the loser still holding
 * pieces; checks the verdict of the last move and the status. */
static void test_stuck_player_loses(void **state)
{
    (void)state;
    for (uint64_t seed0 = 1; seed0 < 200; seed0++) {
        base_rng seed = {seed0};
        rules_game *g = new_game(NULL);
        rules_status st;
        rules_verdict v;
        rules_move m;
        int mover = -1, n = 0;
        memset(&v, 0, sizeof v);
        for (;;) {
            rules_game_status(g, &st);
            if (st.over)
                break;
            assert_true(random_move(g, &seed, &m)); /* not over: a move exists */
            mover = st.to_move;
            assert_int_equal(rules_apply(g, mover, &m, &v), 0);
            assert_true(v.legal);
        }
        rules_game_status(g, &st);
        assert_true(v.over);
        assert_int_equal(v.winners, 1u << mover);
        assert_int_equal(st.winners, 1u << mover);
        assert_int_equal(st.to_move, 1 - mover);
        assert_int_equal(rules_generate(g, st.to_move, NULL, -1, count_cb, &n), 0);
        /* After the end every move is refused. */
        assert_true(random_move(g, &seed, &m) == false);
        {
            rules_verdict after;
            assert_int_equal(rules_check(g, st.to_move, &m, &after), 0);
            assert_illegal(after, "game-over", NULL);
        }
        if (st.hand[st.to_move] > 0) {
            assert_non_null(strstr(v.note, "cannot place any of its"));
            assert_int_equal(st.scores[mover] + st.scores[1 - mover], st.moves);
            rules_game_free(g);
            return;
        }
        rules_game_free(g);
    }
    fail_msg("no random game ended with the loser holding pieces");
}

/* A move sequence that fills the volume: depth-first, always covering the
 * lowest free cell, alternating colours.  On success *gp is the full game. */
static bool fill_search(rules_game **gp, long *budget)
{
    rules_status st;
    rules_piece pos[16];
    bool occ[64] = {false};
    int npos = rules_position(*gp, pos, 16), low = 0;
    rp_moves c;
    bool found = false;

    rules_game_status(*gp, &st);
    if (npos == 16)
        return true;
    if (st.over || --*budget < 0)
        return false;
    for (int i = 0; i < npos; i++)
        for (int j = 0; j < 4; j++)
            occ[pos[i].cells[j][0] + 4 * pos[i].cells[j][1] + 16 * pos[i].cells[j][2]] = true;
    while (occ[low])
        low++;
    c = legal_moves(*gp);
    for (int i = 0; i < c.n && !found; i++) {
        const rules_piece *p = &c.m[i].pieces[0];
        rules_game *child;
        rules_verdict v;
        bool covers = false;
        for (int j = 0; j < 4; j++)
            covers |= p->cells[j][0] + 4 * p->cells[j][1] + 16 * p->cells[j][2] == low;
        if (!covers)
            continue;
        assert_int_equal(rules_game_clone(*gp, &child), 0);
        assert_int_equal(rules_apply(child, st.to_move, &c.m[i], &v), 0);
        assert_true(v.legal);
        if (fill_search(&child, budget)) {
            rules_game_free(*gp);
            *gp = child;
            found = true;
        } else {
            rules_game_free(child);
        }
    }
    rp_moves_free(&c);
    return found;
}

static void test_full_volume(void **state)
{
    const char *hdr[2] = {NULL, "{\"players\":[\"A\",\"B\"],\"options\":{\"all-placed\":\"draw\"}}"};
    (void)state;
    for (int opt = 0; opt < 2; opt++) {
        rules_game *g = new_game(hdr[opt]);
        rules_status st;
        long budget = 200000;
        if (!fill_search(&g, &budget))
            fail_msg("no legal sequence filling the volume found");
        rules_game_status(g, &st);
        assert_true(st.over);
        assert_int_equal(st.moves, 16);
        assert_int_equal(st.hand[0], 0);
        assert_int_equal(st.scores[0], 8);
        assert_int_equal(st.scores[1], 8);
        /* Light moves first, so light is the one left without a piece. */
        assert_int_equal(st.to_move, 0);
        assert_int_equal(st.winners, opt == 0 ? 2u : 0u);
        /* The solver near the full board agrees with plain minimax; one
         * ply from the end, dark's last piece fills the volume: a win for
         * dark by default, a draw with all-placed=draw. */
        for (int cut = 12; cut < 16; cut++) {
            rules_piece line[16];
            rules_game *h = new_game(hdr[opt]);
            rules_stack4_solution sol;
            assert_int_equal(rules_position(g, line, 16), 16);
            for (int i = 0; i < cut; i++) {
                rules_move m;
                rules_verdict v;
                rules_move_init(&m, RULES_MOVE_PLACE);
                m.npieces = 1;
                m.pieces[0] = line[i];
                assert_int_equal(rules_apply(h, i % 2, &m, &v), 0);
                assert_true(v.legal);
            }
            assert_int_equal(rules_stack4_solve(h, 60, &sol), 0);
            assert_int_equal(sol.result, brute(h));
            if (cut == 15) {
                assert_int_equal(sol.result, opt == 0 ? RULES_SOLVE_WIN : RULES_SOLVE_DRAW);
                assert_true(sol.has_move);
            }
            rules_game_free(h);
        }
        rules_game_free(g);
    }
}

/* ---- codec ---- */

static void test_codec_round_trip(void **state)
{
    const char *text = "{\"type\":\"place\",\"pieces\":[{\"player\":\"dark\",\"piece\":\"SL\","
                       "\"cells\":[[0,0,1],[1,0,1],[1,1,1],[1,1,0]]}],\"hand\":[\"SL\",\"Y\"]}";
    rules_move m, m2;
    base_err err;
    cJSON *j = parse(text), *out, *out2;
    rules_game *g = new_game(NULL);
    (void)state;
    assert_int_equal(rules_move_from_json("stack4", j, &m, &err), 0);
    assert_int_equal(m.npieces, 1);
    assert_int_equal(m.pieces[0].owner, 1);
    assert_int_equal(m.pieces[0].a, 6);
    assert_int_equal(m.pieces[0].ncells, 4);
    assert_int_equal(m.pieces[0].cells[3][2], 0);
    assert_int_equal(m.nhand, 2);
    out = rules_move_to_json("stack4", &m);
    assert_true(cJSON_Compare(out, j, true));
    assert_int_equal(rules_move_from_json("stack4", out, &m2, &err), 0);
    out2 = rules_move_to_json("stack4", &m2);
    assert_true(cJSON_Compare(out, out2, true));
    cJSON_Delete(out);
    cJSON_Delete(out2);
    cJSON_Delete(j);
    /* A position: the pieces as placed. */
    play(g, "T", "[[0,0,0],[1,0,0],[2,0,0],[1,1,0]]");
    out = rules_position_to_json(g);
    j = parse("{\"game\":\"stack4\",\"pieces\":[{\"player\":\"light\",\"piece\":\"T\","
              "\"cells\":[[0,0,0],[1,0,0],[2,0,0],[1,1,0]]}]}");
    assert_true(cJSON_Compare(out, j, true));
    cJSON_Delete(out);
    cJSON_Delete(j);
    rules_game_free(g);
}

static void test_codec_errors(void **state)
{
    static const char *const bad[][2] = {
        {"{\"type\":\"pass\"}", "type"},
        {"{\"type\":\"place\"}", "pieces"},
        {"{\"type\":\"place\",\"pieces\":[{\"piece\":\"T\",\"cells\":[]}]}", "\"player\""},
        {"{\"type\":\"place\",\"pieces\":[{\"player\":\"blue\",\"piece\":\"T\"}]}", "\"player\""},
        {"{\"type\":\"place\",\"pieces\":[{\"player\":\"light\",\"piece\":\"Z\"}]}", "\"piece\""},
        {"{\"type\":\"place\",\"pieces\":[{\"player\":\"light\",\"piece\":\"T\"}]}", "\"cells\""},
        {"{\"type\":\"place\",\"pieces\":[{\"player\":\"light\",\"piece\":\"T\",\"cells\":"
         "[[0,0,0],[1,0,0],[2,0,0]]}]}", "\"cells\""},
        {"{\"type\":\"place\",\"pieces\":[{\"player\":\"light\",\"piece\":\"T\",\"cells\":"
         "[[0,0,0],[1,0],[2,0,0],[1,1,0]]}]}", "item 2"},
        {"{\"type\":\"place\",\"pieces\":[{\"player\":\"light\",\"piece\":\"T\",\"cells\":"
         "[[0,0,0],[1,0,0],[2,0.5,0],[1,1,0]]}]}", "item 3: y"},
        {"{\"type\":\"place\",\"pieces\":[{\"player\":\"light\",\"piece\":\"T\",\"cells\":"
         "[[0,0,0],[1,0,0],[2,0,0],[1,1,1e9]]}]}", "item 4: z"},
        {"{\"type\":\"place\",\"hand\":[\"T\",\"Q\"],\"pieces\":[]}", "hand item 2"},
        {"{\"type\":\"place\",\"hand\":[\"T\",7],\"pieces\":[]}", "hand item 2"},
    };
    (void)state;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        rules_move m;
        base_err err;
        cJSON *j = parse(bad[i][0]);
        assert_true(rules_move_from_json("stack4", j, &m, &err) < 0);
        if (!strstr(err.msg, bad[i][1]))
            fail_msg("%s: error \"%s\" does not name %s", bad[i][0], err.msg, bad[i][1]);
        cJSON_Delete(j);
    }
}

/* ---- random games through the real binary ---- */

static void test_random_games_through_referee(void **state)
{
    char *dir = th_tmpdir();
    (void)state;
    assert_non_null(dir);
    for (uint64_t gi = 0; gi < 12; gi++) {
        base_rng seed = {77 + gi};
        const char *header = gi % 3 == 0   ? "{\"game\":\"stack4\",\"players\":[\"Ann\",\"Bob\"]}"
                             : gi % 3 == 1 ? "{\"game\":\"stack4\",\"players\":[\"Ann\",\"Bob\"],"
                                             "\"options\":{\"entry\":\"drop\"}}"
                                           : "{\"game\":\"stack4\",\"players\":[\"Ann\",\"Bob\"],"
                                             "\"options\":{\"entry\":\"free\"}}";
        cJSON *h = parse(header);
        rules_game *g = NULL;
        base_err err;
        char *path, name[32];
        rp_record rec = {0};
        int nev = 0, scores[16][2];
        rules_status st;
        th_run r;

        assert_int_equal(rules_game_new("stack4", h, &err, &g), 0);
        cJSON_Delete(h);
        assert_int_equal(rp_record_line(&rec, header), 0);
        for (;;) {
            rules_move m;
            rules_verdict v;
            rules_game_status(g, &st);
            if (st.over)
                break;
            assert_true(random_move(g, &seed, &m));
            assert_int_equal(rules_apply(g, st.to_move, &m, &v), 0);
            assert_true(v.legal);
            memcpy(scores[nev++], v.scores, sizeof scores[0]);
            assert_int_equal(rp_record_event(&rec, "stack4", st.to_move, &m), 0);
        }
        snprintf(name, sizeof name, "game%d.jsonl", (int)gi);
        path = th_path(dir, name);
        assert_int_equal(th_write_file(path, rec.text), 0);
        assert_int_equal(th_tablecam(&r, NULL, (const char *[]){"referee", "--game", "stack4",
                                                               path, NULL}), 0);
        assert_int_equal(r.status, 0);
        assert_int_equal(th_count_lines(r.out), nev + 1);
        for (int i = 0; i <= nev; i++) {
            char *l = th_line(r.out, i);
            cJSON *j = parse(l), *sc = cJSON_GetObjectItem(j, "scores");
            if (i < nev) {
                assert_true(cJSON_IsTrue(cJSON_GetObjectItem(j, "legal")));
                assert_int_equal(cJSON_GetArrayItem(sc, 0)->valueint, scores[i][0]);
                assert_int_equal(cJSON_GetArrayItem(sc, 1)->valueint, scores[i][1]);
                /* The verdict of the last move already says it is over. */
                assert_int_equal(cJSON_IsTrue(cJSON_GetObjectItem(j, "over")), i == nev - 1);
            } else {
                cJSON *w = cJSON_GetObjectItem(j, "winners");
                assert_true(cJSON_IsTrue(cJSON_GetObjectItem(j, "final")));
                assert_true(cJSON_IsTrue(cJSON_GetObjectItem(j, "over")));
                assert_int_equal(cJSON_GetArrayItem(sc, 0)->valueint, st.scores[0]);
                assert_int_equal(cJSON_GetArrayItem(sc, 1)->valueint, st.scores[1]);
                assert_int_equal(cJSON_GetArraySize(w), 1);
                assert_int_equal(cJSON_GetArrayItem(w, 0)->valueint, 1 - st.to_move);
            }
            cJSON_Delete(j);
            free(l);
        }
        th_run_free(&r);
        free(path);
        free(rec.text);
        rules_game_free(g);
    }
    th_rmtree(dir);
    free(dir);
}

static void test_referee_illegal_moves(void **state)
{
    const char *rec =
        "{\"game\":\"stack4\",\"players\":[\"Ann\",\"Bob\"]}\n"
        "{\"player\":0,\"move\":{\"type\":\"place\",\"pieces\":[{\"player\":\"light\",\"piece\":"
        "\"I\",\"cells\":[[1,0,0],[2,0,0],[3,0,0],[4,0,0]]}]}}\n"
        "{\"player\":0,\"move\":{\"type\":\"place\",\"pieces\":[{\"player\":\"light\",\"piece\":"
        "\"I\",\"cells\":[[0,0,0],[1,0,0],[2,0,0],[3,0,0]]}]}}\n"
        "{\"player\":1,\"move\":{\"type\":\"place\",\"pieces\":[{\"player\":\"dark\",\"piece\":"
        "\"O\",\"cells\":[[0,0,0],[1,0,0],[0,1,0],[1,1,0]]}]}}\n"
        "{\"player\":1,\"move\":{\"type\":\"place\",\"pieces\":[{\"player\":\"dark\",\"piece\":"
        "\"O\",\"cells\":[[0,1,1],[1,1,1],[0,2,1],[1,2,1]]}]}}\n"
        "{\"player\":1,\"hand\":[\"T\"],\"move\":{\"type\":\"place\",\"pieces\":[{\"player\":"
        "\"dark\",\"piece\":\"O\",\"cells\":[[0,1,0],[1,1,0],[0,2,0],[1,2,0]]}]}}\n";
    static const char *const rule[] = {"out-of-bounds", NULL, "cell-occupied", "unsupported",
                                       "not-in-hand"};
    th_run r;
    (void)state;
    assert_int_equal(th_tablecam(&r, rec, (const char *[]){"referee", "--game", "stack4", "-",
                                                          NULL}), 0);
    assert_int_equal(r.status, 0);
    assert_int_equal(th_count_lines(r.out), 6);
    for (int i = 0; i < 5; i++) {
        char *l = th_line(r.out, i);
        cJSON *j = parse(l);
        if (rule[i]) {
            assert_true(cJSON_IsFalse(cJSON_GetObjectItem(j, "legal")));
            assert_string_equal(cJSON_GetObjectItem(j, "rule")->valuestring, rule[i]);
            assert_non_null(cJSON_GetObjectItem(j, "reason"));
        } else {
            assert_true(cJSON_IsTrue(cJSON_GetObjectItem(j, "legal")));
        }
        cJSON_Delete(j);
        free(l);
    }
    th_run_free(&r);
    /* A piece the codec cannot read is a record error with its line. */
    assert_int_equal(
        th_tablecam(&r,
                    "{\"game\":\"stack4\",\"players\":[\"A\",\"B\"]}\n"
                    "{\"player\":0,\"move\":{\"type\":\"place\",\"pieces\":[{\"player\":\"light\","
                    "\"piece\":\"Q\",\"cells\":[[0,0,0],[1,0,0],[2,0,0],[3,0,0]]}]}}\n",
                    (const char *[]){"referee", "--game", "stack4", "-", NULL}),
        0);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "line 2"));
    assert_non_null(strstr(r.err, "\"piece\""));
    th_run_free(&r);
}

/* ---- the solver ---- */

/* Plain minimax through the public interface, no pruning beyond stopping
 * at the first winning move: +1 when the player to move wins. */
static int brute(const rules_game *g)
{
    rules_status st;
    rp_moves c;
    int best = -1;
    rules_game_status(g, &st);
    if (st.over)
        return (st.winners >> st.to_move & 1) ? 1 : st.winners ? -1 : 0;
    c = legal_moves(g);
    for (int i = 0; i < c.n && best < 1; i++) {
        rules_game *child;
        rules_verdict v;
        int val;
        assert_int_equal(rules_game_clone(g, &child), 0);
        assert_int_equal(rules_apply(child, st.to_move, &c.m[i], &v), 0);
        val = -brute(child);
        rules_game_free(child);
        if (val > best)
            best = val;
    }
    rp_moves_free(&c);
    return best;
}

static void test_solver_against_brute_force(void **state)
{
    int wins = 0, losses = 0;
    (void)state;
    for (uint64_t gi = 0; gi < 40; gi++) {
        base_rng seed = {500 + gi};
        rules_game *g = new_game(gi % 4 == 3   ? "{\"players\":[\"A\",\"B\"],\"options\":"
                                                 "{\"entry\":\"drop\"}}"
                                 : gi % 4 == 2 ? "{\"players\":[\"A\",\"B\"],\"options\":"
                                                 "{\"all-placed\":\"draw\"}}"
                                               : NULL);
        rules_stack4_solution sol;
        rules_status st;
        rules_move m;
        rules_verdict v;
        int want, stop = 10 + (int)(gi % 3);
        for (int ply = 0; ply < stop; ply++) {
            rules_game_status(g, &st);
            if (st.over || !random_move(g, &seed, &m))
                break;
            assert_int_equal(rules_apply(g, st.to_move, &m, &v), 0);
        }
        rules_game_status(g, &st);
        want = brute(g);
        assert_int_equal(rules_stack4_solve(g, 60, &sol), 0);
        assert_int_equal(sol.player, st.to_move);
        assert_int_equal(sol.result, want);
        if (want == 1 && !st.over) {
            /* The move it names wins: the opponent then loses. */
            rules_game *c;
            assert_true(sol.has_move);
            assert_int_equal(rules_game_clone(g, &c), 0);
            assert_int_equal(rules_apply(c, st.to_move, &sol.move, &v), 0);
            assert_true(v.legal);
            assert_int_equal(brute(c), -1);
            rules_game_free(c);
        }
        wins += want == 1;
        losses += want == -1;
        rules_game_free(g);
    }
    /* The sample holds both outcomes, or the comparison proves little. */
    assert_true(wins > 0);
    assert_true(losses > 0);
}

static void test_solver_unknown_and_cli(void **state)
{
    rules_game *g = new_game(NULL);
    rules_stack4_solution sol;
    const char *rec = "{\"game\":\"stack4\",\"players\":[\"A\",\"B\"]}\n";
    th_run r;
    cJSON *j, *s;
    char *l;
    (void)state;
    /* The empty volume cannot be solved in a millisecond. */
    assert_int_equal(rules_stack4_solve(g, 0.001, &sol), 0);
    assert_int_equal(sol.result, RULES_SOLVE_UNKNOWN);
    assert_false(sol.has_move);
    assert_true(sol.nodes > 0);
    rules_game_free(g);

    assert_int_equal(th_tablecam(&r, rec, (const char *[]){"referee", "--game", "stack4",
                                                          "--solve", "--solve-time", "0.05", "-",
                                                          NULL}), 0);
    assert_int_equal(r.status, 0);
    assert_int_equal(th_count_lines(r.out), 2);
    l = th_line(r.out, 1);
    j = parse(l);
    s = cJSON_GetObjectItem(j, "solve");
    assert_non_null(s);
    assert_string_equal(cJSON_GetObjectItem(s, "result")->valuestring, "unknown");
    assert_true(cJSON_IsNumber(cJSON_GetObjectItem(s, "nodes")));
    assert_true(cJSON_IsNumber(cJSON_GetObjectItem(s, "seconds")));
    cJSON_Delete(j);
    free(l);
    th_run_free(&r);

    assert_int_equal(th_tablecam(&r, rec, (const char *[]){"referee", "--game", "stack4",
                                                          "--solve-time", "soon", "-", NULL}), 0);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "soon"));
    th_run_free(&r);
    assert_int_equal(th_tablecam(&r, rec, (const char *[]){"referee", "--game", "qwirkle",
                                                          "--solve", "-", NULL}), 0);
    assert_int_equal(r.status, 2);
    th_run_free(&r);
}

/* A late position solved through the binary: the move it prints is legal
 * and, when it says win, leaves the opponent lost. */
static void test_solver_cli_endgame(void **state)
{
    (void)state;
    for (uint64_t seed0 = 900; seed0 < 960; seed0++) {
        base_rng seed = {seed0};
        rules_game *g = new_game(NULL);
        rp_record rec = {0};
        char *l;
        rules_status st;
        th_run r;
        cJSON *j, *s;
        assert_int_equal(
            rp_record_line(&rec, "{\"game\":\"stack4\",\"players\":[\"A\",\"B\"]}"), 0);
        for (int ply = 0; ply < 11; ply++) {
            rules_move m;
            rules_verdict v;
            rules_game_status(g, &st);
            if (st.over || !random_move(g, &seed, &m))
                break;
            rules_apply(g, st.to_move, &m, &v);
            assert_int_equal(rp_record_event(&rec, "stack4", st.to_move, &m), 0);
        }
        rules_game_status(g, &st);
        if (st.over || brute(g) != 1) {
            rules_game_free(g);
            free(rec.text);
            continue;
        }
        assert_int_equal(th_tablecam(&r, rec.text, (const char *[]){"referee", "--game", "stack4",
                                                                   "--solve", "-", NULL}), 0);
        assert_int_equal(r.status, 0);
        l = th_line(r.out, th_count_lines(r.out) - 1);
        j = parse(l);
        s = cJSON_GetObjectItem(j, "solve");
        assert_string_equal(cJSON_GetObjectItem(s, "result")->valuestring, "win");
        assert_int_equal(cJSON_GetObjectItem(s, "player")->valueint, st.to_move);
        {
            rules_move m;
            rules_verdict v;
            base_err err;
            rules_game *c;
            assert_int_equal(rules_move_from_json("stack4", cJSON_GetObjectItem(s, "move"), &m,
                                                  &err), 0);
            assert_int_equal(rules_game_clone(g, &c), 0);
            assert_int_equal(rules_apply(c, st.to_move, &m, &v), 0);
            assert_true(v.legal);
            assert_int_equal(brute(c), -1);
            rules_game_free(c);
        }
        cJSON_Delete(j);
        free(l);
        th_run_free(&r);
        free(rec.text);
        rules_game_free(g);
        return;
    }
    fail_msg("no won endgame found among the seeds");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_orientations),
        cmocka_unit_test(test_generator_matches_oracle),
        cmocka_unit_test(test_generate_hand),
        cmocka_unit_test(test_rule_bounds),
        cmocka_unit_test(test_rule_occupied_and_support),
        cmocka_unit_test(test_rule_support_own_cells),
        cmocka_unit_test(test_rule_unreachable),
        cmocka_unit_test(test_rule_slide_under_overhang),
        cmocka_unit_test(test_rule_pieces_and_players),
        cmocka_unit_test(test_options),
        cmocka_unit_test(test_stuck_player_loses),
        cmocka_unit_test(test_full_volume),
        cmocka_unit_test(test_codec_round_trip),
        cmocka_unit_test(test_codec_errors),
        cmocka_unit_test(test_random_games_through_referee),
        cmocka_unit_test(test_referee_illegal_moves),
        cmocka_unit_test(test_solver_against_brute_force),
        cmocka_unit_test(test_solver_unknown_and_cli),
        cmocka_unit_test(test_solver_cli_endgame),
    };
    th_case_filter();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
