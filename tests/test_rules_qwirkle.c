/* tests/test_rules_qwirkle.c: the Qwirkle Cubes engine (rules/qwirkle.c)
 * and its codec (rules/qwirkle_json.c), through the public rules.h:
 * every placement rule with its rule id, scoring (the kinds of example of
 * the tile game's manual, rebuilt with cubes), bag and hand counts, the end
 * bonus, the deadlock end, the first-turn rule, options, the codec, and
 * random games played with the move generator, cross-checked against the
 * checker and replayed through the real `tablecam referee`. */
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

/* "x,y colour shape; ..." (cells) or "colour shape; ..." (a hand). */
static int parse_cubes(const char *spec, rules_piece *out, bool cells)
{
    const char *p = spec;
    int n = 0;
    while (*p) {
        char c[16], s[16];
        int x = 0, y = 0, used = 0;
        while (*p == ' ' || *p == ';')
            p++;
        if (!*p)
            break;
        if (cells)
            assert_int_equal(sscanf(p, "%d,%d %15[a-z] %15[a-z0-9]%n", &x, &y, c, s, &used), 4);
        else
            assert_int_equal(sscanf(p, "%15[a-z] %15[a-z0-9]%n", c, s, &used), 2);
        memset(&out[n], 0, sizeof out[n]);
        out[n].x = (int16_t)x;
        out[n].y = (int16_t)y;
        assert_true(rules_color_from_name(c) >= 0);
        assert_true(rules_shape_from_name(s) >= 0);
        out[n].a = (uint8_t)rules_color_from_name(c);
        out[n].b = (uint8_t)rules_shape_from_name(s);
        out[n].owner = -1;
        n++;
        p += used;
    }
    return n;
}

static void set_place(rules_move *m, const char *cells, const char *hand)
{
    rules_move_init(m, RULES_MOVE_PLACE);
    m->npieces = parse_cubes(cells, m->pieces, true);
    if (hand)
        m->nhand = parse_cubes(hand, m->hand, false);
}

static rules_game *new_game(const char *header)
{
    cJSON *h = header ? cJSON_Parse(header) : NULL;
    rules_game *g = NULL;
    base_err err;
    if (header)
        assert_non_null(h);
    if (rules_game_new("qwirkle", h, &err, &g) != 0)
        fail_msg("rules_game_new: %s", err.msg);
    cJSON_Delete(h);
    return g;
}

static void play_at(int line, rules_game *g, int player, const char *cells, const char *hand,
                    int points)
{
    rules_move m;
    rules_verdict v;
    set_place(&m, cells, hand);
    assert_int_equal(rules_apply(g, player, &m, &v), 0);
    if (!v.legal)
        fail_msg("line %d: expected legal, got %s: %s", line, v.rule, v.reason);
    if (v.points != points)
        fail_msg("line %d: expected %d points, got %d", line, points, v.points);
}
#define PLAY(g, p, cells, hand, pts) play_at(__LINE__, g, p, cells, hand, pts)

/* Checks that the placement is illegal with rule id and a reason holding
 * each of the NULL-terminated fragments; the game must not change. */
static void illegal_at(int line, rules_game *g, int player, const rules_move *m, const char *rule,
                       const char *const *frags)
{
    rules_verdict v;
    rules_status before, after;
    int nb = rules_position(g, NULL, 0);
    rules_game_status(g, &before);
    assert_int_equal(rules_apply(g, player, m, &v), 0);
    if (v.legal)
        fail_msg("line %d: expected %s, the move was legal", line, rule);
    if (strcmp(v.rule, rule) != 0)
        fail_msg("line %d: expected %s, got %s: %s", line, rule, v.rule, v.reason);
    for (int i = 0; frags && frags[i]; i++)
        if (!strstr(v.reason, frags[i]))
            fail_msg("line %d: reason \"%s\" lacks \"%s\"", line, v.reason, frags[i]);
    rules_game_status(g, &after);
    assert_int_equal(rules_position(g, NULL, 0), nb);
    assert_memory_equal(&before, &after, sizeof before);
}
/* ILLEGAL(g, player, cells, hand, rule, reason fragments...) */
#define ILLEGAL(g, p, cells, hand, ...)                                                        \
    do {                                                                                   \
        rules_move m_;                                                                     \
        const char *const a_[] = {__VA_ARGS__, NULL};                                      \
        set_place(&m_, cells, hand);                                                       \
        illegal_at(__LINE__, g, p, &m_, a_[0], a_ + 1);                                    \
    } while (0)

static void simple_move(rules_game *g, int player, int type, rules_verdict *v)
{
    rules_move m;
    rules_move_init(&m, type);
    assert_int_equal(rules_apply(g, player, &m, v), 0);
}

/* ---- a simulated table: real bag and hands, moves from the generator ---- */

typedef struct sim {
    rules_game *g;
    int nplayers;
    int bag[6]; /* cubes of each colour left in the bag */
    int nbag;
    rules_piece hand[RULES_MAX_PLAYERS][6];
    int nh[RULES_MAX_PLAYERS];
    base_rng r;
    bool greedy;
    FILE *rec;                 /* the record, when written */
    int nevents;
    int (*scores)[RULES_MAX_PLAYERS]; /* scores after each event */
    int cap;
} sim;

static void sim_roll(sim *s, rules_piece *p) { p->b = (uint8_t)base_rng_below(&s->r, 6); }

static void sim_draw1(sim *s, int player)
{
    int k = base_rng_below(&s->r, s->nbag), c = 0;
    rules_piece *p = &s->hand[player][s->nh[player]++];
    while (k >= s->bag[c])
        k -= s->bag[c++];
    s->bag[c]--;
    s->nbag--;
    memset(p, 0, sizeof *p);
    p->a = (uint8_t)c;
    p->owner = -1;
    sim_roll(s, p);
}

static void sim_start(sim *s, const char *header, int nplayers, uint64_t seed, FILE *rec)
{
    memset(s, 0, sizeof *s);
    s->r.s = seed;
    s->g = new_game(header);
    s->nplayers = nplayers;
    for (int c = 0; c < 6; c++)
        s->bag[c] = 15;
    s->nbag = 90;
    for (int p = 0; p < nplayers; p++)
        for (int i = 0; i < 6; i++)
            sim_draw1(s, p);
    s->greedy = base_rng_below(&s->r, 2) == 0;
    s->rec = rec;
    if (rec)
        fprintf(rec, "%s\n", header);
}

static void sim_free(sim *s)
{
    rules_game_free(s->g);
    free(s->scores);
}

typedef struct pick {
    const rules_game *g;
    int player;
    base_rng *r;
    int count, best, ties;
    bool greedy;
    rules_move chosen;
} pick;

/* Every generated move must pass the checker; keep the best (greedy) or a
 * random one. */
static int pick_fn(void *ctx, const rules_move *m)
{
    pick *pk = ctx;
    rules_verdict v;
    assert_int_equal(rules_check(pk->g, pk->player, m, &v), 0);
    if (!v.legal)
        fail_msg("generated move illegal: %s: %s", v.rule, v.reason);
    pk->count++;
    if (pk->greedy) {
        if (pk->count == 1 || v.points > pk->best) {
            pk->best = v.points;
            pk->ties = 1;
            pk->chosen = *m;
        } else if (v.points == pk->best && base_rng_below(pk->r, ++pk->ties) == 0) {
            pk->chosen = *m;
        }
    } else if (base_rng_below(pk->r, pk->count) == 0) {
        pk->chosen = *m;
    }
    return 0;
}

static void sim_record(sim *s, int player, const rules_move *m, const rules_verdict *v)
{
    if (s->nevents == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 64;
        s->scores = realloc(s->scores, sizeof *s->scores * (size_t)s->cap);
        assert_non_null(s->scores);
    }
    memcpy(s->scores[s->nevents++], v->scores, sizeof v->scores);
    if (s->rec) {
        char *text = rp_event_line("qwirkle", player, m);
        assert_non_null(text);
        fprintf(s->rec, "%s\n", text);
        free(text);
    }
}

/* One turn of the player to move; returns the verdict. */
static void sim_turn(sim *s, rules_verdict *v)
{
    rules_status st;
    pick pk;
    rules_move m;
    int p;

    rules_game_status(s->g, &st);
    p = st.to_move;
    assert_int_equal(st.hand[p], s->nh[p]);
    assert_int_equal(st.bag, s->nbag);
    memset(&pk, 0, sizeof pk);
    pk.g = s->g;
    pk.player = p;
    pk.r = &s->r;
    pk.greedy = s->greedy;
    {
        int n = rules_generate(s->g, p, s->hand[p], s->nh[p], pick_fn, &pk);
        assert_int_equal(n, pk.count);
    }
    if (pk.count > 0) {
        m = pk.chosen;
        assert_int_equal(m.nhand, s->nh[p]);
        assert_int_equal(rules_apply(s->g, p, &m, v), 0);
        if (!v->legal)
            fail_msg("generated move refused: %s: %s", v->rule, v->reason);
        /* Take the placed cubes out of the hand, then refill. */
        for (int i = 0; i < m.npieces; i++)
            for (int j = 0; j < s->nh[p]; j++)
                if (s->hand[p][j].a == m.pieces[i].a && s->hand[p][j].b == m.pieces[i].b) {
                    s->hand[p][j] = s->hand[p][--s->nh[p]];
                    break;
                }
        for (int i = 0; i < m.npieces && s->nbag > 0; i++)
            sim_draw1(s, p);
    } else if (s->nh[p] < 6 && s->nbag > 0 && base_rng_below(&s->r, 2) == 0) {
        rules_move_init(&m, RULES_MOVE_DRAW);
        assert_int_equal(rules_apply(s->g, p, &m, v), 0);
        assert_true(v->legal);
        while (s->nh[p] < 6 && s->nbag > 0)
            sim_draw1(s, p);
    } else {
        rules_move_init(&m, RULES_MOVE_REROLL);
        assert_int_equal(rules_apply(s->g, p, &m, v), 0);
        assert_true(v->legal);
        for (int j = 0; j < s->nh[p]; j++)
            sim_roll(s, &s->hand[p][j]);
    }
    sim_record(s, p, &m, v);
}

/* Plays until the game is over (or until stop says so); returns turns. */
static int sim_play(sim *s, bool (*stop)(const sim *s))
{
    rules_status st;
    int turns = 0;
    for (;;) {
        rules_verdict v;
        rules_game_status(s->g, &st);
        if (st.over || (stop && stop(s)))
            return turns;
        assert_true(turns < 2000);
        sim_turn(s, &v);
        turns++;
    }
}

/* ---- scoring ---- */

static void test_lone_first_cube(void **state)
{
    rules_game *g = new_game(NULL);
    rules_status st;
    (void)state;
    PLAY(g, 0, "0,0 red circle", NULL, 1);
    rules_game_status(g, &st);
    assert_int_equal(st.scores[0], 1);
    assert_int_equal(st.hand[0], 6);
    assert_int_equal(st.bag, 90 - 12 - 1);
    assert_int_equal(st.to_move, 1);
    assert_int_equal(st.moves, 1);
    rules_game_free(g);
}

/* The manual of the tile game explains scoring with a dozen numbered plays
 * in one growing layout.  The same kinds of play, rebuilt with cubes: a new
 * line, extending by one and by two, a cube in two lines, a Qwirkle, a line
 * with a crossing line, filling a hole between lines, cubes on both sides of
 * a cube on the table, several crossing lines, a Qwirkle in a column and a
 * Qwirkle with crossing lines.  Points worked out by hand from the rules.
 *
 *   y\x  0  1  2  3  4  5
 *   -1            Gcl
 *    0  Rci Rsq Rdi Rcl Rs4 Rs8
 *    1  Bci Bsq Bdi Bcl
 *    2  Gci Gsq Gdi
 *    3  Yci Ysq Ydi
 *    4  Oci Osq
 *    5  Pci Psq                                                    */
static void test_manual_scoring_examples(void **state)
{
    rules_game *g = new_game("{\"game\":\"qwirkle\",\"players\":[\"Ann\",\"Bob\"]}");
    rules_status st;
    (void)state;
    /* 1: a new line of three */
    PLAY(g, 0, "0,0 red circle; 1,0 red square; 2,0 red diamond", NULL, 3);
    /* 2: one cube extends it to four */
    PLAY(g, 1, "3,0 red clover", NULL, 4);
    /* 3: one cube starts a column through a cube on the table */
    PLAY(g, 0, "0,1 blue circle", NULL, 2);
    /* 4: two cubes extend that column to four */
    PLAY(g, 1, "0,2 green circle; 0,3 yellow circle", NULL, 4);
    /* 5: one cube in two lines scores both (2 + 2) */
    PLAY(g, 0, "1,1 blue square", NULL, 4);
    /* 6: a Qwirkle: the red row of six, 6 + 6 */
    PLAY(g, 1, "4,0 red star4; 5,0 red star8", NULL, 12);
    /* 7: a new green row of three, and the square column it makes (3 + 3) */
    PLAY(g, 0, "1,2 green square; 2,2 green diamond", NULL, 6);
    /* 8: one cube fills a hole: the blue row and the diamond column (3 + 3) */
    PLAY(g, 1, "2,1 blue diamond", NULL, 6);
    /* 9: cubes on both sides of a cube on the table: the clover column
     * (3) and the blue row the lower one extends (4) */
    PLAY(g, 0, "3,-1 green clover; 3,1 blue clover", NULL, 7);
    /* 10: a row of three whose cubes each extend a column of four */
    PLAY(g, 1, "1,3 yellow square; 2,3 yellow diamond", NULL, 11);
    /* 11: a Qwirkle in a column: six circles */
    PLAY(g, 0, "0,4 orange circle; 0,5 purple circle", NULL, 12);
    /* 12: a Qwirkle of squares plus two rows of two (12 + 2 + 2) */
    PLAY(g, 1, "1,4 orange square; 1,5 purple square", NULL, 16);
    rules_game_status(g, &st);
    assert_int_equal(st.scores[0], 3 + 2 + 4 + 6 + 7 + 12);
    assert_int_equal(st.scores[1], 4 + 4 + 12 + 6 + 11 + 16);
    assert_int_equal(st.bag, 78 - 21);
    assert_int_equal(rules_position(g, NULL, 0), 21);
    assert_false(st.over);
    rules_game_free(g);
}

static void test_double_qwirkle(void **state)
{
    rules_game *g = new_game(NULL);
    rules_verdict v;
    rules_move m;
    (void)state;
    PLAY(g, 0, "0,0 red circle; 1,0 red square; 2,0 red diamond; 3,0 red clover; 4,0 red star4",
         NULL, 5);
    PLAY(g, 1, "4,1 orange star4", NULL, 2);
    PLAY(g, 0, "5,1 orange star8", NULL, 2);
    PLAY(g, 1, "5,2 yellow star8; 5,3 green star8; 5,4 blue star8; 5,5 purple star8", NULL, 5);
    /* One cube completes a row and a column of six: 12 + 12, and a note. */
    set_place(&m, "5,0 red star8", NULL);
    assert_int_equal(rules_apply(g, 0, &m, &v), 0);
    assert_true(v.legal);
    assert_int_equal(v.points, 24);
    assert_non_null(strstr(v.note, "Qwirkle"));
    rules_game_free(g);
}

static void test_qwirkle_bonus_option(void **state)
{
    const char *six = "0,0 red circle; 1,0 red square; 2,0 red diamond; 3,0 red clover; "
                      "4,0 red star4; 5,0 red star8";
    rules_game *g = new_game(NULL);
    (void)state;
    PLAY(g, 0, six, NULL, 12);
    rules_game_free(g);
    g = new_game("{\"players\":[\"a\",\"b\"],\"options\":{\"qwirkle_bonus\":0}}");
    PLAY(g, 0, six, NULL, 6);
    rules_game_free(g);
}

/* ---- placement rules ---- */

static void test_placement_rules(void **state)
{
    rules_game *g = new_game(NULL);
    rules_move m;
    rules_verdict v;
    (void)state;

    /* On the empty table. */
    ILLEGAL(g, 0, "", NULL, "no-cubes", "at least one cube");
    ILLEGAL(g, 0, "0,0 red circle; 0,0 red square", NULL, "duplicate-cell", "(0,0)");
    ILLEGAL(g, 0, "0,0 red circle; 1,1 red square", NULL, "not-in-line", "(0,0)", "(1,1)");
    ILLEGAL(g, 0, "0,0 red circle; 1,0 red square; 2,1 red diamond", NULL, "not-in-line",
            "(2,1)", "y=0");
    ILLEGAL(g, 0, "0,0 red circle; 2,0 red square", NULL, "gap", "(1,0)");
    ILLEGAL(g, 0, "0,0 red circle; 1,0 blue square", NULL, "line-mixed", "the row at y=0",
            "a red circle", "a blue square");
    ILLEGAL(g, 0, "0,0 orange circle; 1,0 blue square", NULL, "line-mixed",
            "hold an orange circle and a blue square");
    ILLEGAL(g, 0, "0,0 red circle; 1,0 red circle", NULL, "line-duplicate",
            "the row at y=0 would hold two red circles");
    ILLEGAL(g, 0, "0,0 red circle; 0,1 blue circle; 0,2 blue circle", NULL, "line-duplicate",
            "the column at x=0 would hold two blue circles");
    ILLEGAL(g, 0,
            "0,0 red circle; 1,0 red square; 2,0 red diamond; 3,0 red clover; 4,0 red star4; "
            "5,0 red star8; 6,0 red circle",
            NULL, "too-many-cubes", "holds 6 cubes", "places 7");
    rules_move_init(&m, RULES_MOVE_PLACE);
    m.npieces = 1;
    m.pieces[0].a = RULES_BLACK;
    illegal_at(__LINE__, g, 0, &m, "bad-piece", (const char *const[]){"(0,0)", NULL});
    /* A count beyond the move's array is refused before it is read. */
    rules_move_init(&m, RULES_MOVE_PLACE);
    m.npieces = RULES_MAX_MOVE_PIECES + 8;
    illegal_at(__LINE__, g, 0, &m, "too-many-cubes", (const char *const[]){"places 40", NULL});
    /* Moves that are not this game's. */
    rules_move_init(&m, RULES_MOVE_PASS);
    illegal_at(__LINE__, g, 0, &m, "unknown-move", (const char *const[]){"pass", NULL});
    ILLEGAL(g, 1, "0,0 red circle", NULL, "out-of-turn", "player 1");

    PLAY(g, 0, "0,0 red circle; 1,0 red square; 2,0 red diamond", NULL, 3);
    ILLEGAL(g, 1, "1,0 red clover", NULL, "cell-taken", "(1,0)", "holds a red square");
    ILLEGAL(g, 1, "5,5 red clover", NULL, "not-touching", "(5,5)");
    ILLEGAL(g, 1, "1,1 red clover; 1,2 red square", NULL, "line-duplicate",
            "the column at x=1 would hold two red squares");
    /* A diagonal contact does not count. */
    ILLEGAL(g, 1, "3,1 red clover", NULL, "not-touching");
    /* Extending the row with a cube that fits it but not its column. */
    PLAY(g, 1, "0,1 blue circle", NULL, 2);
    ILLEGAL(g, 0, "1,1 green square", NULL, "line-mixed", "the row at y=1", "blue circle",
            "green square");
    ILLEGAL(g, 0, "1,1 blue circle", NULL, "line-duplicate", "two blue circles");
    ILLEGAL(g, 0, "-1,0 red square", NULL, "line-duplicate", "two red squares");
    ILLEGAL(g, 0, "3,0 blue clover", NULL, "line-mixed", "the row at y=0");
    /* A placement across a cube on the table joins it; with a hole, a gap. */
    ILLEGAL(g, 0, "-1,0 red clover; 4,0 red star4", NULL, "gap", "(3,0)");
    ILLEGAL(g, 0, "-3,0 red clover; -1,0 red star4", NULL, "gap", "the row at y=0", "(-2,0)");
    PLAY(g, 0, "-1,0 red clover; 3,0 red star4", NULL, 5);
    /* A seventh cube in a line is one too many. */
    PLAY(g, 1, "-1,-1 green clover; -1,-2 yellow clover", NULL, 3);
    ILLEGAL(g, 0, "4,0 red star8; 5,0 red circle", NULL, "line-too-long",
            "the row at y=0 would be 7 cubes long");
    ILLEGAL(g, 0, "0,2 red circle", NULL, "line-duplicate",
            "the column at x=0 would hold two red circles");
    /* The game did not move on: still player 1's turn (index 0). */
    simple_move(g, 1, RULES_MOVE_REROLL, &v);
    assert_false(v.legal);
    assert_string_equal(v.rule, "out-of-turn");
    rules_game_free(g);
}

/* ---- the hand ---- */

static void test_hand_rules(void **state)
{
    const char *hand = "red circle; red square; blue star8; red circle; green clover; purple "
                       "diamond";
    rules_game *g = new_game("{\"players\":[\"a\",\"b\"],\"options\":{\"first_turn_max\":false}}");
    (void)state;
    ILLEGAL(g, 0, "0,0 red circle", "red circle; red square", "hand-count", "shows 2",
            "holds 6");
    ILLEGAL(g, 0, "0,0 red diamond; 1,0 red square", hand, "not-in-hand", "no red diamond",
            "(0,0)");
    ILLEGAL(g, 0, "0,0 blue star8; 0,1 blue star8", hand, "not-in-hand", "holds 1 blue star8");
    PLAY(g, 0, "0,0 red circle; 1,0 red square", hand, 2);
    PLAY(g, 1, "2,0 red diamond", NULL, 3);
    /* The placed cubes may come from duplicate hand cubes. */
    PLAY(g, 0, "0,1 green circle", "red circle; red circle; red circle; green circle; blue star8; "
                                   "red star8",
         2);
    rules_game_free(g);
}

static void test_first_turn(void **state)
{
    /* Three reds (circle, square, diamond) make the longest line. */
    const char *hand = "red circle; red square; red diamond; blue circle; green star4; yellow "
                       "clover";
    rules_game *g = new_game(NULL);
    (void)state;
    ILLEGAL(g, 0, "0,0 red circle; 1,0 red square", hand, "first-turn-max", "3", "red", "not 2");
    ILLEGAL(g, 0, "0,0 red circle; 0,1 blue circle", hand, "first-turn-max", "3");
    ILLEGAL(g, 0, "0,0 yellow clover", hand, "first-turn-max");
    PLAY(g, 0, "0,0 red circle; 1,0 red square; 2,0 red diamond", hand, 3);
    /* The rule is for the first placement only. */
    PLAY(g, 1, "0,1 blue circle", "blue circle; blue square; blue diamond; orange circle; "
                                  "orange square; yellow star8",
         2);
    rules_game_free(g);

    /* No two cubes of this hand share a line: the player must re-roll. */
    g = new_game(NULL);
    ILLEGAL(g, 0, "0,0 red circle",
            "red circle; red circle; blue square; blue square; green diamond; green diamond",
            "first-turn-min", "re-roll");
    /* The hand unknown: a lone first cube stands. */
    PLAY(g, 0, "0,0 red circle", NULL, 1);
    rules_game_free(g);

    /* A house rule may drop the most-cubes rule. */
    g = new_game("{\"players\":[\"a\",\"b\"],\"options\":{\"first_turn_max\":false}}");
    PLAY(g, 0, "0,0 red circle; 1,0 red square", hand, 2);
    rules_game_free(g);
}

/* The generator on an empty table lists the largest lines only. */
typedef struct collect {
    const rules_game *g;
    int player;
    int count, legal, maxk, mink;
} collect;

static int collect_fn(void *ctx, const rules_move *m)
{
    collect *c = ctx;
    rules_verdict v;
    assert_int_equal(rules_check(c->g, c->player, m, &v), 0);
    c->count++;
    c->legal += v.legal;
    if (m->npieces > c->maxk)
        c->maxk = m->npieces;
    if (c->count == 1 || m->npieces < c->mink)
        c->mink = m->npieces;
    return 0;
}

static void test_generator_first_turn(void **state)
{
    rules_piece hand[6];
    rules_game *g = new_game(NULL);
    collect c = {0};
    int n;
    (void)state;
    c.g = g;
    n = parse_cubes("red circle; red square; red diamond; blue circle; green star4; yellow clover",
                    hand, false);
    /* 3! orders of the three reds, in a row and in a column. */
    assert_int_equal(rules_generate(g, 0, hand, n, collect_fn, &c), 12);
    assert_int_equal(c.count, 12);
    assert_int_equal(c.legal, 12);
    assert_int_equal(c.mink, 3);
    assert_int_equal(c.maxk, 3);
    /* Duplicates are listed once: two red circles and a red square. */
    n = parse_cubes("red circle; red circle; red square; orange star8; orange star8; orange star8",
                    hand, false);
    memset(&c, 0, sizeof c);
    c.g = g;
    assert_int_equal(rules_generate(g, 0, hand, n, collect_fn, &c), 4);
    assert_int_equal(c.legal, 4);
    /* Nothing when no two cubes share a line. */
    n = parse_cubes("red circle; red circle; red circle; red circle; red circle; red circle",
                    hand, false);
    assert_int_equal(rules_generate(g, 0, hand, n, collect_fn, &c), 0);
    rules_game_free(g);

    /* Without the first-turn rule every size is listed: 6 singles, and
     * lines of 2 and 3 of the reds (6 + 6 ordered pairs... counted). */
    g = new_game("{\"players\":[\"a\",\"b\"],\"options\":{\"first_turn_max\":false}}");
    n = parse_cubes("red circle; red square; red diamond; blue circle; green star4; yellow clover",
                    hand, false);
    memset(&c, 0, sizeof c);
    c.g = g;
    /* singles 6; pairs: reds 3*2 ordered + circles (red, blue) 2 = 8, times
     * 2 axes = 16; triples: 6 orders * 2 axes = 12. */
    assert_int_equal(rules_generate(g, 0, hand, n, collect_fn, &c), 6 + 16 + 12);
    assert_int_equal(c.legal, 34);
    assert_int_equal(c.mink, 1);
    rules_game_free(g);
}

/* The first-turn rule agrees with the generator: for random hands, the
 * longest placement the generator finds (rule off) is the size the rule
 * demands (rule on), and every generated placement of another size is
 * refused by it. */
typedef struct sizes {
    const rules_game *strict;
    int maxk, refused, accepted;
} sizes;

static int sizes_fn(void *ctx, const rules_move *m)
{
    sizes *z = ctx;
    if (m->npieces > z->maxk)
        z->maxk = m->npieces;
    return 0;
}

static int judge_fn(void *ctx, const rules_move *m)
{
    sizes *z = ctx;
    rules_verdict v;
    assert_int_equal(rules_check(z->strict, 0, m, &v), 0);
    if (m->npieces == z->maxk && z->maxk >= 2) {
        if (!v.legal)
            fail_msg("a largest first placement refused: %s: %s", v.rule, v.reason);
        z->accepted++;
    } else {
        assert_false(v.legal);
        assert_string_equal(v.rule, z->maxk >= 2 ? "first-turn-max" : "first-turn-min");
        z->refused++;
    }
    return 0;
}

static void test_first_turn_matches_generator(void **state)
{
    rules_game *loose = new_game("{\"players\":[\"a\",\"b\"],\"options\":"
                                 "{\"first_turn_max\":false}}");
    rules_game *strict = new_game(NULL);
    base_rng r = {77};
    int mins = 0;
    (void)state;
    for (int trial = 0; trial < 300; trial++) {
        rules_piece hand[6];
        sizes z = {strict, 0, 0, 0};
        int strict_count;
        for (int i = 0; i < 6; i++) {
            memset(&hand[i], 0, sizeof hand[i]);
            /* Few colours and shapes, so that short maxima occur too. */
            hand[i].a = (uint8_t)base_rng_below(&r, 1 + trial % 6);
            hand[i].b = (uint8_t)base_rng_below(&r, 1 + (trial / 6) % 6);
            hand[i].owner = -1;
        }
        assert_true(rules_generate(loose, 0, hand, 6, sizes_fn, &z) > 0);
        assert_true(rules_generate(loose, 0, hand, 6, judge_fn, &z) > 0);
        strict_count = rules_generate(strict, 0, hand, 6, sizes_fn, &z);
        assert_int_equal(strict_count, z.maxk >= 2 ? z.accepted : 0);
        mins += z.maxk < 2;
    }
    assert_true(mins > 0);
    rules_game_free(loose);
    rules_game_free(strict);
}

static int stop_after_one(void *ctx, const rules_move *m)
{
    (void)m;
    ++*(int *)ctx;
    return 1;
}

static void test_generator_args(void **state)
{
    rules_piece hand[6];
    rules_game *g = new_game(NULL);
    int n, calls = 0;
    (void)state;
    n = parse_cubes("red circle; red square; red diamond; blue circle; green star4; yellow clover",
                    hand, false);
    /* The hand must be known, and agree with the count. */
    assert_int_equal(rules_generate(g, 0, NULL, -1, stop_after_one, &calls), BASE_EINVAL);
    assert_int_equal(rules_generate(g, 0, hand, 5, stop_after_one, &calls), BASE_EINVAL);
    assert_int_equal(rules_generate(g, 7, hand, n, stop_after_one, &calls), BASE_EINVAL);
    assert_int_equal(calls, 0);
    /* The callback stops the listing. */
    assert_int_equal(rules_generate(g, 0, hand, n, stop_after_one, &calls), 1);
    assert_int_equal(calls, 1);
    rules_game_free(g);
}

/* ---- bag, hands and the end ---- */

static void test_bag_and_hand_counts(void **state)
{
    rules_game *g = new_game("{\"players\":[\"a\",\"b\",\"c\",\"d\"]}");
    rules_status st;
    rules_verdict v;
    (void)state;
    rules_game_status(g, &st);
    assert_int_equal(st.nplayers, 4);
    assert_int_equal(st.bag, 90 - 24);
    for (int i = 0; i < 4; i++)
        assert_int_equal(st.hand[i], 6);
    PLAY(g, 0, "0,0 red circle; 1,0 red square; 2,0 red diamond", NULL, 3);
    rules_game_status(g, &st);
    assert_int_equal(st.bag, 66 - 3);
    assert_int_equal(st.hand[0], 6);
    /* A draw with a full hand is illegal; a re-roll always stands. */
    simple_move(g, 1, RULES_MOVE_DRAW, &v);
    assert_false(v.legal);
    assert_string_equal(v.rule, "hand-full");
    assert_non_null(strstr(v.reason, "player 2"));
    simple_move(g, 1, RULES_MOVE_REROLL, &v);
    assert_true(v.legal);
    assert_int_equal(v.points, 0);
    rules_game_status(g, &st);
    assert_int_equal(st.bag, 63);
    assert_int_equal(st.to_move, 2);
    assert_int_equal(st.moves, 2);
    rules_game_free(g);
    /* Players: 2 to 4. */
    {
        cJSON *h = cJSON_Parse("{\"players\":[\"a\",\"b\",\"c\",\"d\",\"e\"]}");
        base_err err;
        assert_int_not_equal(rules_game_new("qwirkle", h, &err, &g), 0);
        assert_null(g);
        assert_non_null(strstr(err.msg, "2 to 4"));
        cJSON_Delete(h);
    }
}

static bool bag_empty(const sim *s) { return s->nbag == 0; }

/* Once the bag is empty nobody refills; draws are refused; too many cubes
 * are refused. */
static void test_empty_bag(void **state)
{
    sim s;
    rules_status st;
    rules_verdict v;
    rules_move m;
    int p;
    (void)state;
    sim_start(&s, "{\"players\":[\"a\",\"b\"]}", 2, 7, NULL);
    sim_play(&s, bag_empty);
    rules_game_status(s.g, &st);
    assert_false(st.over);
    assert_int_equal(st.bag, 0);
    p = st.to_move;
    rules_move_init(&m, RULES_MOVE_DRAW);
    assert_int_equal(rules_check(s.g, p, &m, &v), 0);
    assert_false(v.legal);
    assert_string_equal(v.rule, st.hand[p] == 6 ? "hand-full" : "bag-empty");
    /* Place from the hand: the count goes down, the bag stays empty. */
    for (int turn = 0; turn < 20 && !st.over; turn++) {
        int before;
        rules_game_status(s.g, &st);
        p = st.to_move;
        before = st.hand[p];
        /* More cubes than the hand holds. */
        set_place(&m, "-100,-100 red circle; -99,-100 red square; -98,-100 red diamond; "
                      "-97,-100 red clover; -96,-100 red star4; -95,-100 red star8; "
                      "-94,-100 orange circle",
                  NULL);
        assert_int_equal(rules_check(s.g, p, &m, &v), 0);
        assert_false(v.legal);
        assert_string_equal(v.rule, "too-many-cubes");
        sim_turn(&s, &v);
        rules_game_status(s.g, &st);
        assert_int_equal(st.bag, 0);
        if (v.legal && s.nevents > 0)
            assert_true(st.hand[p] <= before);
    }
    sim_free(&s);
}

static bool never(const sim *s)
{
    (void)s;
    return false;
}

static void test_end_bonus(void **state)
{
    bool seen = false;
    (void)state;
    /* Play seeded games to their end; the ones that end by an empty hand
     * show the bonus on the last move. */
    for (uint64_t seed = 1; seed < 40 && !seen; seed++) {
        sim s;
        rules_status st;
        rules_verdict v;
        rules_game *before = NULL;
        sim_start(&s, "{\"players\":[\"a\",\"b\"]}", 2, seed, NULL);
        for (;;) {
            rules_game_status(s.g, &st);
            if (st.over)
                break;
            rules_game_free(before);
            assert_int_equal(rules_game_clone(s.g, &before), 0);
            sim_turn(&s, &v);
        }
        if (s.nh[0] == 0 || s.nh[1] == 0) {
            int p = s.nh[0] == 0 ? 0 : 1, best;
            rules_status pre;
            rules_game_status(before, &pre);
            assert_int_equal(pre.to_move, p);
            assert_int_equal(pre.bag, 0);
            assert_true(v.legal);
            assert_true(v.over);
            assert_non_null(strstr(v.note, "+6"));
            rules_game_status(s.g, &st);
            assert_true(st.over);
            assert_int_equal(st.hand[p], 0);
            assert_int_equal(st.scores[p] - pre.scores[p], v.points);
            best = st.scores[0] > st.scores[1] ? st.scores[0] : st.scores[1];
            for (int i = 0; i < 2; i++)
                assert_int_equal(!!(st.winners & (1u << i)), st.scores[i] == best);
            seen = true;
        }
        rules_game_free(before);
        sim_free(&s);
    }
    assert_true(seen);
}

/* A generated move that places the whole hand, if any. */
typedef struct whole {
    int nh, count;
    rules_move m;
} whole;

static int whole_fn(void *ctx, const rules_move *m)
{
    whole *w = ctx;
    if (m->npieces == w->nh) {
        w->m = *m;
        w->count++;
        return 1;
    }
    return 0;
}

/* The end bonus is in the move's points: the same move checked (which does
 * not add it) and applied (which does), and with option end_bonus 0. */
static void test_end_bonus_exact(void **state)
{
    bool done = false;
    (void)state;
    for (uint64_t seed = 100; seed < 300 && !done; seed++) {
        sim s;
        sim_start(&s, "{\"players\":[\"a\",\"b\"]}", 2, seed, NULL);
        sim_play(&s, bag_empty);
        for (int turn = 0; turn < 60 && !done; turn++) {
            rules_status st;
            rules_verdict v, chk, app;
            whole w = {0};
            int p;
            rules_game_status(s.g, &st);
            if (st.over)
                break;
            p = st.to_move;
            w.nh = s.nh[p];
            rules_generate(s.g, p, s.hand[p], s.nh[p], whole_fn, &w);
            if (w.count > 0) {
                rules_game *c;
                assert_int_equal(rules_check(s.g, p, &w.m, &chk), 0);
                assert_true(chk.legal);
                assert_false(chk.over);
                assert_int_equal(rules_game_clone(s.g, &c), 0);
                assert_int_equal(rules_apply(c, p, &w.m, &app), 0);
                assert_true(app.legal);
                assert_true(app.over);
                assert_int_equal(app.points, chk.points + 6);
                assert_int_equal(app.scores[p], st.scores[p] + chk.points + 6);
                rules_game_free(c);
                done = true;
                break;
            }
            sim_turn(&s, &v);
        }
        sim_free(&s);
    }
    assert_true(done);
}

/* With the bag empty, as many turns in a row without placing as there are
 * players end the game (no bonus); a placement starts the count again. */
static void test_deadlock_end(void **state)
{
    rules_verdict v;
    bool ended = false, reset_seen = false;
    (void)state;
    for (uint64_t seed = 11; seed < 40 && !(ended && reset_seen); seed++) {
        sim s;
        int idle = 0;
        sim_start(&s, "{\"players\":[\"a\",\"b\",\"c\"]}", 3, seed, NULL);
        sim_play(&s, bag_empty);
        for (int turn = 0; turn < 200; turn++) {
            rules_status st;
            whole w = {0};
            int p;
            rules_game_status(s.g, &st);
            if (st.over)
                break;
            p = st.to_move;
            /* Place (any generated move) with one chance in three. */
            w.nh = 1;
            if (base_rng_below(&s.r, 3) == 0 &&
                rules_generate(s.g, p, s.hand[p], s.nh[p], whole_fn, &w) >= 0 && w.count > 0) {
                sim_turn(&s, &v); /* the sim places when it can */
                assert_true(v.legal);
                if (idle > 0 && !v.over)
                    reset_seen = true;
                idle = 0;
            } else {
                simple_move(s.g, p, RULES_MOVE_REROLL, &v);
                assert_true(v.legal);
                assert_int_equal(v.points, 0);
                idle++;
                assert_int_equal(v.over, idle == 3);
                if (v.over) {
                    int best;
                    rules_status end;
                    rules_game_status(s.g, &end);
                    assert_true(end.over);
                    assert_int_equal(memcmp(end.scores, st.scores, sizeof end.scores), 0);
                    best = end.scores[0];
                    for (int i = 1; i < 3; i++)
                        if (end.scores[i] > best)
                            best = end.scores[i];
                    for (int i = 0; i < 3; i++)
                        assert_int_equal(!!(end.winners & (1u << i)), end.scores[i] == best);
                    assert_non_null(strstr(v.note, "without placing"));
                    ended = true;
                    /* After the end nothing is legal. */
                    simple_move(s.g, end.to_move, RULES_MOVE_REROLL, &v);
                    assert_false(v.legal);
                    assert_string_equal(v.rule, "game-over");
                    break;
                }
            }
        }
        sim_free(&s);
    }
    assert_true(ended);
    assert_true(reset_seen);

    /* With deadlock_end off the game goes on. */
    {
        sim s;
        sim_start(&s, "{\"players\":[\"a\",\"b\",\"c\"],\"options\":{\"deadlock_end\":false}}",
                  3, 11, NULL);
        sim_play(&s, bag_empty);
        for (int i = 0; i < 9; i++) {
            rules_status st;
            rules_game_status(s.g, &st);
            simple_move(s.g, st.to_move, RULES_MOVE_REROLL, &v);
            assert_true(v.legal);
            assert_false(v.over);
        }
        sim_free(&s);
    }

    /* Re-rolls while the bag still has cubes do not count. */
    {
        rules_game *g = new_game(NULL);
        for (int i = 0; i < 6; i++) {
            simple_move(g, i % 2, RULES_MOVE_REROLL, &v);
            assert_true(v.legal);
            assert_false(v.over);
        }
        rules_game_free(g);
    }
}

/* Ties share the win.  A played game is replayed with the end bonus set so
 * that the player who ends it lands exactly on the other's score. */
static void test_ties_share(void **state)
{
    bool done = false;
    (void)state;
    for (uint64_t seed = 1; seed < 60 && !done; seed++) {
        sim s;
        FILE *rec = tmpfile();
        rules_status st;
        char *line = NULL, header[128];
        size_t cap = 0;
        int ender, other, bonus;
        rules_game *g;
        assert_non_null(rec);
        sim_start(&s, "{\"game\":\"qwirkle\",\"players\":[\"a\",\"b\"]}", 2, seed, rec);
        sim_play(&s, never);
        rules_game_status(s.g, &st);
        ender = s.nh[0] == 0 ? 0 : s.nh[1] == 0 ? 1 : -1;
        other = 1 - ender;
        bonus = ender < 0 ? -1 : 6 + st.scores[other] - st.scores[ender];
        if (bonus < 0 || bonus > 100) {
            fclose(rec);
            sim_free(&s);
            continue;
        }
        snprintf(header, sizeof header,
                 "{\"players\":[\"a\",\"b\"],\"options\":{\"end_bonus\":%d}}", bonus);
        g = new_game(header);
        rewind(rec);
        assert_true(getline(&line, &cap, rec) > 0); /* the header */
        while (getline(&line, &cap, rec) > 0) {
            cJSON *ev = cJSON_Parse(line);
            rules_move m;
            rules_verdict v;
            int player;
            base_err err;
            assert_non_null(ev);
            assert_int_equal(rules_event_from_json("qwirkle", ev, &player, &m, &err), 0);
            assert_int_equal(rules_apply(g, player, &m, &v), 0);
            assert_true(v.legal);
            cJSON_Delete(ev);
        }
        rules_game_status(g, &st);
        assert_true(st.over);
        assert_int_equal(st.scores[0], st.scores[1]);
        assert_int_equal(st.winners, 3u);
        free(line);
        rules_game_free(g);
        fclose(rec);
        sim_free(&s);
        done = true;
    }
    assert_true(done);
}

/* ---- options, header ---- */

static void expect_header_error(const char *header, const char *frag)
{
    cJSON *h = cJSON_Parse(header);
    rules_game *g = (rules_game *)1;
    base_err err;
    assert_non_null(h);
    assert_int_not_equal(rules_game_new("qwirkle", h, &err, &g), 0);
    assert_null(g);
    if (!strstr(err.msg, frag))
        fail_msg("error \"%s\" lacks \"%s\"", err.msg, frag);
    cJSON_Delete(h);
}

static void test_options(void **state)
{
    rules_game *g;
    (void)state;
    expect_header_error("{\"players\":[\"a\",\"b\"],\"options\":{\"foo\":1}}", "\"foo\"");
    expect_header_error("{\"players\":[\"a\",\"b\"],\"options\":{\"deadlock_end\":1}}",
                        "\"deadlock_end\" in \"options\" must be true or false");
    expect_header_error("{\"players\":[\"a\",\"b\"],\"options\":{\"end_bonus\":\"six\"}}",
                        "\"end_bonus\"");
    expect_header_error("{\"players\":[\"a\",\"b\"],\"options\":{\"qwirkle_bonus\":-1}}",
                        "\"qwirkle_bonus\"");
    expect_header_error("{\"players\":[\"a\",\"b\"],\"options\":[]}", "\"options\"");
    expect_header_error("{\"players\":[\"a\"]}", "2 to 4");
    /* A seed is accepted (and ignored); so are known options. */
    g = new_game("{\"game\":\"qwirkle\",\"players\":[\"a\",\"b\"],\"seed\":42,\"options\":"
                 "{\"deadlock_end\":true,\"first_turn_max\":true,\"end_bonus\":6,"
                 "\"qwirkle_bonus\":6}}");
    rules_game_free(g);
}

/* ---- clone, position, coordinates ---- */

static void test_clone_and_position(void **state)
{
    rules_game *g = new_game(NULL), *c;
    rules_piece pos[8];
    rules_status a, b;
    (void)state;
    /* Far from the origin, and drifting into negative coordinates. */
    PLAY(g, 0, "30000,-30000 red circle; 30001,-30000 red square", NULL, 2);
    PLAY(g, 1, "29999,-30000 red diamond", NULL, 3);
    assert_int_equal(rules_game_clone(g, &c), 0);
    PLAY(c, 0, "29999,-29999 blue diamond", NULL, 2);
    rules_game_status(g, &a);
    rules_game_status(c, &b);
    assert_int_equal(rules_position(g, pos, 8), 3);
    assert_int_equal(rules_position(c, pos, 8), 4);
    assert_int_equal(a.scores[0], 2);
    assert_int_equal(b.scores[0], 4);
    assert_int_equal(a.to_move, 0);
    /* The original still accepts the same move independently. */
    PLAY(g, 0, "29999,-29999 blue diamond", NULL, 2);
    assert_int_equal(rules_position(g, pos, 2), 4);
    assert_int_equal(pos[0].x, 30000);
    assert_int_equal(pos[0].y, -30000);
    assert_int_equal(pos[2].x, 29999);
    assert_int_equal(pos[2].a, RULES_RED);
    assert_int_equal(pos[2].b, RULES_DIAMOND);
    {
        cJSON *j = rules_position_to_json(g);
        char *text = cJSON_PrintUnformatted(j);
        assert_non_null(strstr(text, "\"game\":\"qwirkle\""));
        assert_non_null(strstr(text, "{\"x\":29999,\"y\":-29999,\"color\":\"blue\","
                                     "\"shape\":\"diamond\"}"));
        free(text);
        cJSON_Delete(j);
    }
    rules_game_free(c);
    rules_game_free(g);
}

/* ---- codec ---- */

static void expect_move_error(const char *json, const char *frag)
{
    cJSON *obj = cJSON_Parse(json);
    rules_move m;
    int player;
    base_err err;
    assert_non_null(obj);
    assert_int_not_equal(rules_event_from_json("qwirkle", obj, &player, &m, &err), 0);
    if (!strstr(err.msg, frag))
        fail_msg("error \"%s\" lacks \"%s\"", err.msg, frag);
    cJSON_Delete(obj);
}

static void test_codec(void **state)
{
    rules_move m, back;
    cJSON *j, *ev;
    char *text;
    int player;
    base_err err;
    char words[64];
    rules_piece bad = {0};
    (void)state;

    /* A piece in words, for the referee's questions. */
    set_place(&m, "-3,7 orange star8", "orange star8");
    assert_string_equal(rules_piece_text("qwirkle", &m.pieces[0], words, sizeof words),
                        "an orange star8 at (-3,7)");
    bad.a = 9;
    assert_string_equal(rules_piece_text("qwirkle", &bad, words, sizeof words),
                        "an unknown cube at (0,0)");

    set_place(&m, "-3,7 purple star8; -2,7 purple clover", "purple star8; purple clover; red "
                                                         "circle; red circle; green square; "
                                                         "blue star4");
    j = rules_move_to_json("qwirkle", &m);
    text = cJSON_PrintUnformatted(j);
    assert_string_equal(
        text, "{\"type\":\"place\",\"pieces\":[{\"x\":-3,\"y\":7,\"color\":\"purple\",\"shape\":"
              "\"star8\"},{\"x\":-2,\"y\":7,\"color\":\"purple\",\"shape\":\"clover\"}],\"hand\":"
              "[{\"color\":\"purple\",\"shape\":\"star8\"},{\"color\":\"purple\",\"shape\":"
              "\"clover\"},{\"color\":\"red\",\"shape\":\"circle\"},{\"color\":\"red\",\"shape\":"
              "\"circle\"},{\"color\":\"green\",\"shape\":\"square\"},{\"color\":\"blue\","
              "\"shape\":\"star4\"}]}");
    assert_int_equal(rules_move_from_json("qwirkle", j, &back, &err), 0);
    assert_int_equal(back.type, RULES_MOVE_PLACE);
    assert_int_equal(back.npieces, 2);
    assert_int_equal(back.nhand, 6);
    assert_memory_equal(back.pieces, m.pieces, sizeof m.pieces[0] * 2);
    assert_memory_equal(back.hand, m.hand, sizeof m.hand[0] * 6);
    free(text);
    cJSON_Delete(j);

    /* Other moves; "hand" beside the move. */
    ev = cJSON_Parse("{\"player\":1,\"move\":{\"type\":\"reroll\"},\"hand\":[{\"color\":\"red\","
                     "\"shape\":\"circle\"}]}");
    assert_int_equal(rules_event_from_json("qwirkle", ev, &player, &back, &err), 0);
    assert_int_equal(player, 1);
    assert_int_equal(back.type, RULES_MOVE_REROLL);
    assert_int_equal(back.nhand, 1);
    cJSON_Delete(ev);
    rules_move_init(&m, RULES_MOVE_DRAW);
    j = rules_move_to_json("qwirkle", &m);
    text = cJSON_PrintUnformatted(j);
    assert_string_equal(text, "{\"type\":\"draw\"}");
    free(text);
    cJSON_Delete(j);

    /* Pieces on their own. */
    j = cJSON_Parse("{\"x\":2,\"y\":-1,\"color\":\"orange\",\"shape\":\"star4\"}");
    {
        rules_piece p;
        cJSON *out;
        assert_int_equal(rules_piece_from_json("qwirkle", j, &p, &err), 0);
        assert_int_equal(p.x, 2);
        assert_int_equal(p.y, -1);
        assert_int_equal(p.a, RULES_ORANGE);
        assert_int_equal(p.b, RULES_STAR4);
        out = rules_piece_to_json("qwirkle", &p);
        text = cJSON_PrintUnformatted(out);
        assert_string_equal(text, "{\"x\":2,\"y\":-1,\"color\":\"orange\",\"shape\":\"star4\"}");
        free(text);
        cJSON_Delete(out);
    }
    cJSON_Delete(j);

    /* Bad input names the key. */
    expect_move_error("{\"move\":{\"type\":\"reroll\"}}", "\"player\"");
    expect_move_error("{\"player\":0}", "\"move\"");
    expect_move_error("{\"player\":0,\"move\":{}}", "\"type\"");
    expect_move_error("{\"player\":0,\"move\":{\"type\":\"pass\"}}", "unknown move type \"pass\"");
    expect_move_error("{\"player\":0,\"move\":{\"type\":\"place\"}}", "\"pieces\"");
    expect_move_error("{\"player\":0,\"move\":{\"type\":\"place\",\"pieces\":[{\"x\":0,\"y\":0,"
                      "\"color\":\"pink\",\"shape\":\"circle\"}]}}",
                      "piece 1: unknown colour \"pink\" in \"color\"");
    expect_move_error("{\"player\":0,\"move\":{\"type\":\"place\",\"pieces\":[{\"x\":0,\"y\":0,"
                      "\"color\":\"black\",\"shape\":\"circle\"}]}}",
                      "unknown colour \"black\"");
    expect_move_error("{\"player\":0,\"move\":{\"type\":\"place\",\"pieces\":[{\"x\":0,\"y\":0,"
                      "\"color\":\"red\",\"shape\":\"circle\"},{\"x\":1,\"y\":0,\"color\":"
                      "\"red\"}]}}",
                      "piece 2: missing \"shape\"");
    expect_move_error("{\"player\":0,\"move\":{\"type\":\"place\",\"pieces\":[{\"x\":0,\"y\":0,"
                      "\"color\":\"red\",\"shape\":\"hexagon\"}]}}",
                      "unknown shape \"hexagon\" in \"shape\"");
    expect_move_error("{\"player\":0,\"move\":{\"type\":\"place\",\"pieces\":[{\"x\":0.5,\"y\":0,"
                      "\"color\":\"red\",\"shape\":\"circle\"}]}}",
                      "\"x\" must be a whole number");
    expect_move_error("{\"player\":0,\"move\":{\"type\":\"place\",\"pieces\":[{\"x\":1e10,\"y\":0,"
                      "\"color\":\"red\",\"shape\":\"circle\"}]}}",
                      "\"x\" must be a whole number");
    expect_move_error("{\"player\":0,\"move\":{\"type\":\"place\",\"pieces\":[{\"y\":0,"
                      "\"color\":\"red\",\"shape\":\"circle\"}]}}",
                      "missing \"x\"");
    expect_move_error("{\"player\":0,\"move\":{\"type\":\"place\",\"pieces\":[{\"x\":0,\"y\":40000,"
                      "\"color\":\"red\",\"shape\":\"circle\"}]}}",
                      "\"y\" 40000 is out of range");
    expect_move_error("{\"player\":0,\"move\":{\"type\":\"place\",\"pieces\":[{\"x\":0,\"y\":0,"
                      "\"color\":3,\"shape\":\"circle\"}]}}",
                      "\"color\" must be a string");
    expect_move_error("{\"player\":0,\"move\":{\"type\":\"reroll\",\"hand\":[{\"color\":"
                      "\"red\"}]}}",
                      "hand item 1: missing \"shape\"");
    expect_move_error("{\"player\":0,\"move\":{\"type\":\"reroll\",\"hand\":[\"red circle\"]}}",
                      "hand item 1");
    expect_move_error("{\"player\":0,\"move\":{\"type\":\"reroll\"},\"hand\":{}}", "\"hand\"");
    /* An empty placement is readable: the engine calls it illegal. */
    ev = cJSON_Parse("{\"player\":0,\"move\":{\"type\":\"place\",\"pieces\":[]}}");
    assert_int_equal(rules_event_from_json("qwirkle", ev, &player, &back, &err), 0);
    assert_int_equal(back.npieces, 0);
    cJSON_Delete(ev);
}

/* ---- the generator against the checker ---- */

typedef struct keyset {
    uint64_t *k;
    int n, cap;
} keyset;

/* A placement as a set: the hash of its sorted (cell, cube) triples. */
static uint64_t move_key(const rules_move *m)
{
    uint64_t t[RULES_MAX_MOVE_PIECES], h = UINT64_C(1469598103934665603);
    int n = m->npieces;
    for (int i = 0; i < n; i++)
        t[i] = (uint64_t)(uint16_t)m->pieces[i].x << 32 | (uint64_t)(uint16_t)m->pieces[i].y << 16 |
               (uint64_t)(m->pieces[i].a * 6 + m->pieces[i].b);
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && t[j - 1] > t[j]; j--) {
            uint64_t x = t[j];
            t[j] = t[j - 1];
            t[j - 1] = x;
        }
    for (int i = 0; i < n; i++) {
        h ^= t[i];
        h *= UINT64_C(1099511628211);
        h ^= h >> 29;
    }
    return h ^ (uint64_t)n;
}

static int keyset_add_fn(void *ctx, const rules_move *m)
{
    keyset *s = ctx;
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 1024;
        s->k = realloc(s->k, sizeof *s->k * (size_t)s->cap);
        assert_non_null(s->k);
    }
    s->k[s->n++] = move_key(m);
    return 0;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void keyset_sort(keyset *s)
{
    if (s->n > 0)
        qsort(s->k, (size_t)s->n, sizeof *s->k, cmp_u64);
}

static bool keyset_has(const keyset *s, uint64_t k)
{
    return s->n > 0 && bsearch(&k, s->k, (size_t)s->n, sizeof k, cmp_u64) != NULL;
}

/* Checks, on the current position of s, that the generator lists nothing
 * twice and that random candidate placements near the board that the
 * checker calls legal are all listed (the generator's own moves are checked
 * legal by pick_fn on every turn of every sim game). */
static void cross_check(sim *s)
{
    rules_status st;
    rules_piece pos[90];
    keyset gen = {0};
    int p, npos;
    rules_move m;
    rules_verdict v;

    rules_game_status(s->g, &st);
    p = st.to_move;
    npos = rules_position(s->g, pos, 90);
    assert_true(npos > 0);
    assert_true(rules_generate(s->g, p, s->hand[p], s->nh[p], keyset_add_fn, &gen) >= 0);
    keyset_sort(&gen);
    for (int i = 1; i < gen.n; i++)
        assert_true(gen.k[i] != gen.k[i - 1]); /* nothing listed twice */
    rules_move_init(&m, RULES_MOVE_PLACE);
    m.nhand = s->nh[p];
    memcpy(m.hand, s->hand[p], sizeof m.hand[0] * (size_t)s->nh[p]);
    /* Random larger candidates along lines near the board. */
    for (int trial = 0; trial < 400; trial++) {
        int k = 2 + base_rng_below(&s->r, s->nh[p] > 2 ? s->nh[p] - 1 : 1), axis = base_rng_below(&s->r, 2);
        int perm[6], x, y;
        const rules_piece *anchor = &pos[base_rng_below(&s->r, npos)];
        if (k > s->nh[p])
            continue;
        for (int i = 0; i < s->nh[p]; i++)
            perm[i] = i;
        for (int i = s->nh[p] - 1; i > 0; i--) {
            int j = base_rng_below(&s->r, i + 1), t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
        x = anchor->x + (axis == 0 ? -base_rng_below(&s->r, 7) : base_rng_below(&s->r, 3) - 1);
        y = anchor->y + (axis == 1 ? -base_rng_below(&s->r, 7) : base_rng_below(&s->r, 3) - 1);
        m.npieces = 0;
        for (int i = 0, u = 0; i < k && u < 12; u++) {
            int cx = axis == 0 ? x + u : x, cy = axis == 0 ? y : y + u;
            bool taken = false;
            for (int q = 0; q < npos; q++)
                if (pos[q].x == cx && pos[q].y == cy)
                    taken = true;
            if (taken)
                continue;
            m.pieces[i] = s->hand[p][perm[i]];
            m.pieces[i].x = (int16_t)cx;
            m.pieces[i].y = (int16_t)cy;
            m.npieces = ++i;
        }
        assert_int_equal(rules_check(s->g, p, &m, &v), 0);
        if (v.legal && !keyset_has(&gen, move_key(&m)))
            fail_msg("legal placement of %d cubes missing from the generator", m.npieces);
    }
    free(gen.k);
}

/* The generator's placements of one and two cubes, against an exhaustive
 * search: every cube of the hand on every cell near the board, and every
 * ordered pair of hand cubes in a row or column up to 6 apart; the two sets
 * must be equal. */
static int count_small_fn(void *ctx, const rules_move *m)
{
    keyset *s = ctx;
    if (m->npieces <= 2)
        return keyset_add_fn(s, m);
    return 0;
}

static void small_counts(rules_game *g, int p, const rules_piece *hand, int nh)
{
    rules_piece pos[90];
    keyset gen = {0}, found = {0};
    int npos, minx, maxx, miny, maxy, distinct = 0;
    rules_move m;
    rules_verdict v;

    npos = rules_position(g, pos, 90);
    assert_true(npos > 0);
    assert_true(rules_generate(g, p, hand, nh, count_small_fn, &gen) >= 0);
    minx = maxx = pos[0].x;
    miny = maxy = pos[0].y;
    for (int i = 1; i < npos; i++) {
        if (pos[i].x < minx) minx = pos[i].x;
        if (pos[i].x > maxx) maxx = pos[i].x;
        if (pos[i].y < miny) miny = pos[i].y;
        if (pos[i].y > maxy) maxy = pos[i].y;
    }
    rules_move_init(&m, RULES_MOVE_PLACE);
    m.nhand = nh;
    memcpy(m.hand, hand, sizeof m.hand[0] * (size_t)nh);
    for (int y = miny - 7; y <= maxy + 7; y++)
        for (int x = minx - 7; x <= maxx + 7; x++)
            for (int i = 0; i < nh; i++) {
                m.npieces = 1;
                m.pieces[0] = hand[i];
                m.pieces[0].x = (int16_t)x;
                m.pieces[0].y = (int16_t)y;
                rules_check(g, p, &m, &v);
                if (v.legal)
                    keyset_add_fn(&found, &m);
                for (int axis = 0; axis < 2; axis++)
                    for (int d = 1; d <= 6; d++)
                        for (int j = 0; j < nh; j++) {
                            if (j == i)
                                continue;
                            m.npieces = 2;
                            m.pieces[1] = hand[j];
                            m.pieces[1].x = (int16_t)(axis == 0 ? x + d : x);
                            m.pieces[1].y = (int16_t)(axis == 0 ? y : y + d);
                            rules_check(g, p, &m, &v);
                            if (v.legal)
                                keyset_add_fn(&found, &m);
                        }
            }
    keyset_sort(&found);
    keyset_sort(&gen);
    for (int i = 0; i < found.n; i++)
        if (i == 0 || found.k[i] != found.k[i - 1])
            distinct++;
    /* Exactly the same placements of one and two cubes. */
    assert_int_equal(gen.n, distinct);
    for (int i = 0; i < found.n; i++)
        assert_true(keyset_has(&gen, found.k[i]));
    free(gen.k);
    free(found.k);
}

static void cross_check_small_counts(sim *s)
{
    rules_status st;
    rules_game_status(s->g, &st);
    small_counts(s->g, st.to_move, s->hand[st.to_move], s->nh[st.to_move]);
}

typedef struct find {
    uint64_t key;
    int found;
} find;

static int find_fn(void *ctx, const rules_move *m)
{
    find *f = ctx;
    f->found += move_key(m) == f->key;
    return 0;
}

/* Placements that complete a Qwirkle from either end of a line of four, and
 * across it, on a small designed position. */
static void test_generator_small_position(void **state)
{
    const char *want[] = {
        "4,0 red star4; 5,0 red star8", "-1,0 red star4; 4,0 red star8",
        "-2,0 red star8; -1,0 red star4", "4,0 red star8", "1,1 blue square",
    };
    rules_game *g = new_game(NULL);
    rules_piece hand[6];
    int n;
    (void)state;
    PLAY(g, 0, "0,0 red circle; 1,0 red square; 2,0 red diamond; 3,0 red clover", NULL, 4);
    n = parse_cubes("red star4; red star8; blue circle; blue circle; blue square; yellow diamond",
                    hand, false);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        rules_move m;
        find f = {0, 0};
        set_place(&m, want[i], NULL);
        f.key = move_key(&m);
        rules_generate(g, 1, hand, n, find_fn, &f);
        if (f.found != 1)
            fail_msg("\"%s\" listed %d times", want[i], f.found);
    }
    small_counts(g, 1, hand, n);
    rules_game_free(g);
}

static void test_generator_matches_checker(void **state)
{
    (void)state;
    for (uint64_t seed = 21; seed < 25; seed++) {
        sim s;
        rules_status st;
        sim_start(&s, "{\"players\":[\"a\",\"b\"]}", 2, seed, NULL);
        for (int turn = 0; turn < 40; turn++) {
            rules_verdict v;
            rules_game_status(s.g, &st);
            if (st.over)
                break;
            if (rules_position(s.g, NULL, 0) > 0) {
                if (turn % 10 == 3)
                    cross_check_small_counts(&s);
                cross_check(&s);
            }
            sim_turn(&s, &v);
        }
        sim_free(&s);
    }
}

/* ---- random games replayed through the real binary ---- */

static void test_random_games_through_referee(void **state)
{
    char *dir = th_tmpdir();
    int games = 0, placed_total = 0;
    (void)state;
    assert_non_null(dir);
    for (uint64_t seed = 1000; seed < 1024; seed++) {
        int nplayers = 2 + (int)(seed % 3);
        char header[160], *path = th_path(dir, "game.jsonl");
        FILE *rec = fopen(path, "w");
        sim s;
        rules_status st;
        th_run r;
        int lines;
        assert_non_null(rec);
        snprintf(header, sizeof header,
                 "{\"game\":\"qwirkle\",\"players\":[%s],\"seed\":%d,\"options\":{}}",
                 nplayers == 2   ? "\"a\",\"b\""
                 : nplayers == 3 ? "\"a\",\"b\",\"c\""
                                 : "\"a\",\"b\",\"c\",\"d\"",
                 (int)seed);
        sim_start(&s, header, nplayers, seed, rec);
        sim_play(&s, never);
        fclose(rec);
        rules_game_status(s.g, &st);
        assert_true(st.over);
        placed_total += rules_position(s.g, NULL, 0);

        assert_int_equal(th_tablecam(&r, NULL,
                                     (const char *[]){"referee", "--game", "qwirkle", path, NULL}),
                         0);
        if (r.status != 0)
            fail_msg("seed %d: exit %d: %s", (int)seed, r.status, r.err);
        lines = th_count_lines(r.out);
        assert_int_equal(lines, s.nevents + 1);
        for (int i = 0; i < s.nevents; i++) {
            char *line = th_line(r.out, i);
            cJSON *obj = cJSON_Parse(line), *sc;
            assert_non_null(obj);
            if (!cJSON_IsTrue(cJSON_GetObjectItem(obj, "legal")))
                fail_msg("seed %d event %d: %s", (int)seed, i + 1, line);
            assert_int_equal(cJSON_GetObjectItem(obj, "seq")->valueint, i + 1);
            sc = cJSON_GetObjectItem(obj, "scores");
            assert_int_equal(cJSON_GetArraySize(sc), nplayers);
            for (int p = 0; p < nplayers; p++)
                assert_int_equal(cJSON_GetArrayItem(sc, p)->valueint, s.scores[i][p]);
            cJSON_Delete(obj);
            free(line);
        }
        {
            char *line = th_line(r.out, s.nevents);
            cJSON *obj = cJSON_Parse(line), *w;
            int n = 0;
            assert_non_null(obj);
            assert_true(cJSON_IsTrue(cJSON_GetObjectItem(obj, "final")));
            assert_true(cJSON_IsTrue(cJSON_GetObjectItem(obj, "over")));
            for (int p = 0; p < nplayers; p++)
                assert_int_equal(
                    cJSON_GetArrayItem(cJSON_GetObjectItem(obj, "scores"), p)->valueint,
                    st.scores[p]);
            w = cJSON_GetObjectItem(obj, "winners");
            for (int p = 0; p < nplayers; p++)
                if (st.winners & (1u << p))
                    assert_int_equal(cJSON_GetArrayItem(w, n++)->valueint, p);
            assert_int_equal(cJSON_GetArraySize(w), n);
            assert_true(n >= 1);
            cJSON_Delete(obj);
            free(line);
        }
        th_run_free(&r);
        sim_free(&s);
        remove(path);
        free(path);
        games++;
    }
    assert_int_equal(games, 24);
    /* Greedy and random players still put most of the 90 cubes down. */
    assert_true(placed_total > 24 * 40);
    th_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lone_first_cube),
        cmocka_unit_test(test_manual_scoring_examples),
        cmocka_unit_test(test_double_qwirkle),
        cmocka_unit_test(test_qwirkle_bonus_option),
        cmocka_unit_test(test_placement_rules),
        cmocka_unit_test(test_hand_rules),
        cmocka_unit_test(test_first_turn),
        cmocka_unit_test(test_generator_first_turn),
        cmocka_unit_test(test_generator_args),
        cmocka_unit_test(test_first_turn_matches_generator),
        cmocka_unit_test(test_bag_and_hand_counts),
        cmocka_unit_test(test_empty_bag),
        cmocka_unit_test(test_end_bonus),
        cmocka_unit_test(test_end_bonus_exact),
        cmocka_unit_test(test_deadlock_end),
        cmocka_unit_test(test_ties_share),
        cmocka_unit_test(test_options),
        cmocka_unit_test(test_clone_and_position),
        cmocka_unit_test(test_codec),
        cmocka_unit_test(test_generator_small_position),
        cmocka_unit_test(test_generator_matches_checker),
        cmocka_unit_test(test_random_games_through_referee),
    };
    th_case_filter();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
