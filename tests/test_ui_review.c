/* tests/test_ui_review.c: the review commands end to end, through the real
 * `tablecam` binary: import, matches, show (moves, board as text and SVG),
 * export and stats.  The import/export round trip runs for every game whose
 * engine is built; the others are skipped with a message. */
#define _POSIX_C_SOURCE 200809L
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
#include "rules_play.h"
#include "rules.h"

typedef struct fixture {
    char *dir;
    char *db;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    f->dir = th_tmpdir();
    f->db = th_path(f->dir, "review.db");
    *state = f;
    return f->dir ? 0 : -1;
}

static int teardown(void **state)
{
    fixture *f = *state;
    th_rmtree(f->dir);
    free(f->dir);
    free(f->db);
    free(f);
    return 0;
}

#define RUN(r, in, ...) \
    assert_int_equal(th_tablecam((r), (in), (const char *const[]){__VA_ARGS__, NULL}), 0)

/* ---- a match made through the store's API (needs no engine) ---- */

static const char *const q_moves[] = {
    ("{\"type\":\"place\",\"pieces\":[{\"x\":0,\"y\":0,\"color\":\"red\",\"shape\":\"circle\"},"
    "{\"x\":1,\"y\":0,\"color\":\"red\",\"shape\":\"square\"}]}"),
    ("{\"type\":\"place\",\"pieces\":[{\"x\":2,\"y\":0,\"color\":\"red\",\"shape\":\"circle\"}]}"),
    ("{\"type\":\"place\",\"pieces\":[{\"x\":0,\"y\":1,\"color\":\"blue\",\"shape\":\"circle\"}]}"),
};
static const char *const q_positions[] = {
    ("{\"game\":\"qwirkle\",\"pieces\":[{\"x\":0,\"y\":0,\"color\":\"red\",\"shape\":\"circle\"},"
    "{\"x\":1,\"y\":0,\"color\":\"red\",\"shape\":\"square\"}]}"),
    ("{\"game\":\"qwirkle\",\"pieces\":[{\"x\":0,\"y\":0,\"color\":\"red\",\"shape\":\"circle\"},"
    "{\"x\":1,\"y\":0,\"color\":\"red\",\"shape\":\"square\"}]}"),
    ("{\"game\":\"qwirkle\",\"pieces\":[{\"x\":0,\"y\":0,\"color\":\"red\",\"shape\":\"circle\"},"
    "{\"x\":1,\"y\":0,\"color\":\"red\",\"shape\":\"square\"},{\"x\":0,\"y\":1,\"color\":"
    "\"blue\",\"shape\":\"circle\"}]}"),
};

/* Two qwirkle matches: 1 Ann v Bob finished (Ann won 12-7), with an
 * illegal move and a correction; 2 Bob v Cy, live.  Plus a cards match 3
 * Cy v Ann abandoned. */
static void make_store(const char *path)
{
    db *d;
    base_err err;
    int64_t m1, m2, m3;
    const char *p1[] = {"Ann", "Bob"}, *p2[] = {"Bob", "Cy"}, *p3[] = {"Cy", "Ann"};
    const char *scores[] = {"[2,0]", "[2,0]", "[2,2]"};
    int fin[2] = {12, 7};

    if (db_open(path, DB_OPEN_CREATE, &err, &d) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(db_match_new(d, "qwirkle", "{}", NULL, p1, 2, "2026-01-05T10:00:00.000Z",
                                  &m1, &err),
                     0);
    assert_int_equal(db_match_new(d, "qwirkle", "{}", NULL, p2, 2, "2026-01-06T10:00:00.000Z",
                                  &m2, &err),
                     0);
    assert_int_equal(db_match_new(d, "cards", "{}", NULL, p3, 2, "2026-01-07T10:00:00.000Z",
                                  &m3, &err),
                     0);
    for (int i = 0; i < 3; i++) {
        db_event ev = {.seat = i == 0 ? 0 : 1,
                       .move = q_moves[i],
                       .legal = i != 1,
                       .rule = "line-duplicate",
                       .reason = "the row at y=0 would hold two red circles",
                       .points = i == 1 ? 0 : 2,
                       .scores = scores[i],
                       .position = q_positions[i],
                       .source = DB_SRC_CAMERA};
        assert_int_equal(db_event_append(d, m1, &ev, NULL, &err), 0);
        if (i == 0)
            assert_int_equal(db_event_append(d, m2, &ev, NULL, &err), 0);
    }
    {
        db_event fix = {.seat = 1,
                        .move = q_moves[2],
                        .legal = true,
                        .points = 2,
                        .scores = "[2,2]",
                        .position = q_positions[2],
                        .source = DB_SRC_CAMERA};
        fix.scores = "[2,3]";
        fix.points = 3;
        assert_int_equal(db_event_correct(d, m1, 3, &fix, "recounted", &err), 2);
    }
    assert_int_equal(db_match_finish(d, m1, fin, 2, 1u, &err), 0);
    assert_int_equal(db_match_abandon(d, m3, &err), 0);
    db_close(d);
}

static void test_matches_table_and_json(void **state)
{
    fixture *f = *state;
    th_run r;
    make_store(f->db);

    RUN(&r, NULL, "matches", "--db", f->db);
    assert_int_equal(r.status, 0);
    assert_int_equal(th_count_lines(r.out), 4); /* header + 3 */
    {
        char *l1 = th_line(r.out, 1), *l3 = th_line(r.out, 3);
        assert_non_null(strstr(l1, "cards")); /* newest first */
        assert_non_null(strstr(l1, "abandoned"));
        assert_non_null(strstr(l3, "Ann, Bob"));
        assert_non_null(strstr(l3, "2026-01-05 10:00"));
        assert_non_null(strstr(l3, "finished"));
        assert_non_null(strstr(l3, "12-7"));
        assert_non_null(strstr(l3, "Ann"));
        free(l1);
        free(l3);
    }
    th_run_free(&r);

    RUN(&r, NULL, "matches", "--db", f->db, "--game", "qwirkle", "--player", "Cy", "--json");
    assert_int_equal(r.status, 0);
    assert_int_equal(th_count_lines(r.out), 1);
    {
        cJSON *o = cJSON_Parse(r.out);
        assert_non_null(o);
        assert_int_equal(cJSON_GetObjectItem(o, "id")->valueint, 2);
        assert_string_equal(cJSON_GetObjectItem(o, "state")->valuestring, "live");
        assert_string_equal(cJSON_GetArrayItem(cJSON_GetObjectItem(o, "players"), 1)->valuestring,
                            "Cy");
        /* A live match shows its running scores. */
        assert_int_equal(cJSON_GetArrayItem(cJSON_GetObjectItem(o, "scores"), 0)->valueint, 2);
        assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(o, "winners")), 0);
        cJSON_Delete(o);
    }
    th_run_free(&r);

    RUN(&r, NULL, "matches", "--db", f->db, "--state", "finished", "--json");
    assert_int_equal(th_count_lines(r.out), 1);
    assert_non_null(strstr(r.out, "\"winners\":[0]"));
    assert_non_null(strstr(r.out, "\"scores\":[12,7]"));
    th_run_free(&r);

    RUN(&r, NULL, "matches", "--db", f->db, "--state", "paused");
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "unknown state 'paused'"));
    th_run_free(&r);
}

static void test_show_moves(void **state)
{
    fixture *f = *state;
    th_run r;
    make_store(f->db);

    RUN(&r, NULL, "show", "--db", f->db, "1");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "match 1: qwirkle, Ann vs Bob"));
    assert_non_null(strstr(r.out, "place red circle@0,0 red square@1,0"));
    assert_non_null(strstr(r.out, "ILLEGAL line-duplicate: the row at y=0 would hold two red "
                                  "circles"));
    assert_non_null(strstr(r.out, "final: Ann 12, Bob 7; won by Ann"));
    assert_non_null(strstr(r.out, "corrections:"));
    assert_non_null(strstr(r.out, "move 3: points 2 -> 3"));
    assert_non_null(strstr(r.out, "recounted"));
    th_run_free(&r);

    RUN(&r, NULL, "show", "--db", f->db, "--json", "1");
    assert_int_equal(r.status, 0);
    /* match line, 3 events, 2 corrections */
    assert_int_equal(th_count_lines(r.out), 6);
    {
        char *l2 = th_line(r.out, 2), *l3 = th_line(r.out, 3);
        cJSON *e2 = cJSON_Parse(l2), *e3 = cJSON_Parse(l3);
        assert_false(cJSON_IsTrue(cJSON_GetObjectItem(e2, "legal")));
        assert_string_equal(cJSON_GetObjectItem(e2, "rule")->valuestring, "line-duplicate");
        assert_string_equal(cJSON_GetObjectItem(e2, "source")->valuestring, "camera");
        assert_int_equal(cJSON_GetObjectItem(e3, "points")->valueint, 3);
        assert_int_equal(cJSON_GetArrayItem(cJSON_GetObjectItem(e3, "scores"), 1)->valueint, 3);
        cJSON_Delete(e2);
        cJSON_Delete(e3);
        free(l2);
        free(l3);
    }
    th_run_free(&r);

    RUN(&r, NULL, "show", "--db", f->db, "42");
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.err, "no match 42"));
    th_run_free(&r);
}

static void test_show_board(void **state)
{
    fixture *f = *state;
    th_run r;
    make_store(f->db);

    RUN(&r, NULL, "show", "--db", f->db, "--at", "3", "1");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "after move 3 of 3, scores 2 3"));
    /* Row 0: red circle, red square; row 1: blue circle, then a gap. */
    assert_non_null(strstr(r.out, "   0 Ro Rs\n"));
    assert_non_null(strstr(r.out, "   1 Bo  .\n"));
    th_run_free(&r);

    RUN(&r, NULL, "show", "--db", f->db, "--at", "0", "1");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "empty"));
    th_run_free(&r);

    RUN(&r, NULL, "show", "--db", f->db, "--at", "2", "--svg", "1");
    assert_int_equal(r.status, 0);
    assert_true(strncmp(r.out, "<?xml", 5) == 0);
    assert_non_null(strstr(r.out, "<svg xmlns=\"http://www.w3.org/2000/svg\""));
    assert_non_null(strstr(r.out, "<title>red circle (0,0)</title>"));
    assert_non_null(strstr(r.out, "<title>red square (1,0)</title>"));
    assert_null(strstr(r.out, "blue")); /* not yet placed after move 2 */
    assert_non_null(strstr(r.out, "</svg>\n"));
    th_run_free(&r);

    RUN(&r, NULL, "show", "--db", f->db, "--at", "4", "1");
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "match 1 has 3 moves"));
    th_run_free(&r);
    RUN(&r, NULL, "show", "--db", f->db, "--svg", "1");
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "needs --at"));
    th_run_free(&r);
    RUN(&r, NULL, "show", "--db", f->db, "--at", "x", "1");
    assert_int_equal(r.status, 2);
    th_run_free(&r);
    RUN(&r, NULL, "show", "--db", f->db, "first");
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "match id"));
    th_run_free(&r);
}

static void test_export_stored(void **state)
{
    fixture *f = *state;
    th_run r;
    make_store(f->db);
    RUN(&r, NULL, "export", "--db", f->db, "1");
    assert_int_equal(r.status, 0);
    assert_int_equal(th_count_lines(r.out), 4);
    {
        char *h = th_line(r.out, 0), *e1 = th_line(r.out, 1), want[512];
        assert_string_equal(h, "{\"game\":\"qwirkle\",\"players\":[\"Ann\",\"Bob\"]}");
        snprintf(want, sizeof want, "{\"player\":0,\"move\":%s}", q_moves[0]);
        assert_string_equal(e1, want);
        free(h);
        free(e1);
    }
    th_run_free(&r);
    RUN(&r, NULL, "export", "--db", f->db, "9");
    assert_int_equal(r.status, 1);
    th_run_free(&r);
}

static void test_stats(void **state)
{
    fixture *f = *state;
    th_run r;
    make_store(f->db);
    RUN(&r, NULL, "stats", "--db", f->db, "--json");
    assert_int_equal(r.status, 0);
    assert_int_equal(th_count_lines(r.out), 3);
    {
        char *l0 = th_line(r.out, 0), *l1 = th_line(r.out, 1);
        cJSON *ann = cJSON_Parse(l0), *bob = cJSON_Parse(l1);
        assert_string_equal(cJSON_GetObjectItem(ann, "player")->valuestring, "Ann");
        assert_int_equal(cJSON_GetObjectItem(ann, "games")->valueint, 1);
        assert_int_equal(cJSON_GetObjectItem(ann, "wins")->valueint, 1);
        assert_true(cJSON_GetObjectItem(ann, "average")->valuedouble == 12.0);
        assert_string_equal(cJSON_GetObjectItem(bob, "player")->valuestring, "Bob");
        assert_int_equal(cJSON_GetObjectItem(bob, "wins")->valueint, 0);
        assert_int_equal(cJSON_GetObjectItem(bob, "live")->valueint, 1);
        assert_true(cJSON_GetObjectItem(bob, "average")->valuedouble == 7.0);
        cJSON_Delete(ann);
        cJSON_Delete(bob);
        free(l0);
        free(l1);
    }
    th_run_free(&r);
    RUN(&r, NULL, "stats", "--db", f->db, "--player", "Bob");
    assert_int_equal(r.status, 0);
    assert_int_equal(th_count_lines(r.out), 2);
    assert_non_null(strstr(r.out, "Bob"));
    assert_non_null(strstr(r.out, "7.0"));
    th_run_free(&r);
    RUN(&r, NULL, "stats", "--db", f->db, "--player", "Zed");
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.err, "Zed"));
    th_run_free(&r);
}

static void test_bad_flags_and_files(void **state)
{
    fixture *f = *state;
    th_run r;
    const char *const cmds[][4] = {
        {"matches", "--bogus", NULL},      {"show", NULL},
        {"show", "1", "2", NULL},          {"export", NULL},
        {"stats", "--player", NULL},       {"import", "x.jsonl", NULL},
        {"import", "--game", "qwirkle", NULL}, {"stats", "extra", NULL},
    };
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        assert_int_equal(th_tablecam(&r, NULL, cmds[i]), 0);
        if (r.status != 2)
            fail_msg("tablecam %s %s: exit %d, expected 2", cmds[i][0],
                     cmds[i][1] ? cmds[i][1] : "", r.status);
        assert_non_null(strstr(r.err, "usage: tablecam "));
        th_run_free(&r);
    }
    /* --db naming a text file: a clear error, and the file untouched. */
    {
        const char *text = "shopping: eggs, milk\n";
        char *notes = th_path(f->dir, "notes.txt"), *after;
        assert_int_equal(th_write_file(notes, text), 0);
        RUN(&r, NULL, "matches", "--db", notes);
        assert_int_equal(r.status, 1);
        assert_non_null(strstr(r.err, notes));
        assert_non_null(strstr(r.err, "not a SQLite file"));
        th_run_free(&r);
        RUN(&r, "{\"game\":\"qwirkle\",\"players\":[\"A\",\"B\"]}\n", "import", "--game",
            "qwirkle", "--db", notes, "-");
        assert_int_equal(r.status, 1);
        assert_non_null(strstr(r.err, "not a SQLite file"));
        th_run_free(&r);
        after = th_read_file(notes, NULL);
        assert_string_equal(after, text);
        free(after);
        free(notes);
    }
    /* A database that is not there. */
    {
        char *none = th_path(f->dir, "none.db");
        RUN(&r, NULL, "stats", "--db", none);
        assert_int_equal(r.status, 1);
        assert_non_null(strstr(r.err, "no database at"));
        th_run_free(&r);
        free(none);
    }
}

/* ---- import, with the real engines ---- */

static int gen_first(void *ctx, const rules_move *m)
{
    *(rules_move *)ctx = *m;
    return 1;
}

static const char *header_for(const char *game)
{
    if (strcmp(game, "cards") == 0)
        return "{\"game\":\"cards\",\"players\":[\"Ann\",\"Bob\"],\"start\":{\"x\":0,\"y\":0,"
               "\"card\":\"KD\"},\"seed\":11}";
    if (strcmp(game, "qwirkle") == 0)
        return "{\"game\":\"qwirkle\",\"players\":[\"Ann\",\"Bob\"],\"options\":{},\"seed\":11}";
    if (strcmp(game, "cubed") == 0)
        return "{\"game\":\"cubed\",\"players\":[\"Ann\",\"Bob\"],\"seed\":11}";
    if (strcmp(game, "cube2") == 0)
        return "{\"game\":\"cube2\",\"players\":[\"Ann\",\"Bob\"]}";
    return "{\"game\":\"stack4\",\"players\":[\"Ann\",\"Bob\"]}";
}

/* A record of up to 40 turns made with the engine's own move generator,
 * with an out-of-turn event every 7th line, so that it holds illegal
 * events too.  Qwirkle's generator needs a hand: a fixed rotation. */
static char *make_record(const char *game)
{
    cJSON *h = cJSON_Parse(header_for(game));
    rules_game *g;
    base_err err;
    rp_record rec = {0};
    rules_move *m = malloc(sizeof *m);
    assert_int_equal(rp_record_line(&rec, header_for(game)), 0);
    if (rules_game_new(game, h, &err, &g) != 0)
        fail_msg("%s: %s", game, err.msg);
    for (int i = 0; i < 40; i++) {
        rules_status st;
        rules_verdict v;
        int n;
        rules_game_status(g, &st);
        if (st.over)
            break;
        rules_move_init(m, RULES_MOVE_NONE);
        if (strcmp(game, "qwirkle") == 0) {
            rules_piece hand[RULES_MAX_HAND];
            int nh = st.hand[st.to_move] < 0 ? 6 : st.hand[st.to_move];
            memset(hand, 0, sizeof hand);
            for (int k = 0; k < nh && k < RULES_MAX_HAND; k++) {
                /* three of a colour, every shape different: lines exist */
                hand[k].a = (uint8_t)((i + k / 3) % 6);
                hand[k].b = (uint8_t)((i * 5 + k) % 6);
                hand[k].owner = -1;
            }
            n = rules_generate(g, st.to_move, hand, nh, gen_first, m);
            if (n <= 0)
                rules_move_init(m, RULES_MOVE_REROLL);
        } else {
            n = rules_generate(g, st.to_move, NULL, -1, gen_first, m);
            if (n <= 0)
                rules_move_init(m, RULES_MOVE_PASS);
        }
        if (i % 7 == 3) /* the other player jumps in: out of turn */
            assert_int_equal(rp_record_event(&rec, game, (st.to_move + 1) % st.nplayers, m), 0);
        assert_int_equal(rp_record_event(&rec, game, st.to_move, m), 0);
        assert_int_equal(rules_apply(g, st.to_move, m, &v), 0);
    }
    rules_game_free(g);
    cJSON_Delete(h);
    free(m);
    return rec.text;
}

/* Every verdict of `a` equals the one of `b` (FORMATS.md 3 lines). */
static void same_verdicts(const char *a, const char *b)
{
    int n = th_count_lines(a);
    assert_int_equal(n, th_count_lines(b));
    for (int i = 0; i < n; i++) {
        char *la = th_line(a, i), *lb = th_line(b, i);
        assert_string_equal(la, lb);
        free(la);
        free(lb);
    }
}

static void roundtrip(void **state, const char *game)
{
    fixture *f = *state;
    th_run ref, imp, exp, again, show, list;
    char *rec, *file, id[32];
    int illegal = 0;

    rec = make_record(game);
    file = th_path(f->dir, "record.jsonl");
    assert_int_equal(th_write_file(file, rec), 0);
    RUN(&ref, NULL, "referee", "--game", game, file);
    assert_int_equal(ref.status, 0);
    RUN(&imp, NULL, "import", "--game", game, "--db", f->db, file);
    if (imp.status != 0)
        fail_msg("import %s: %s", game, imp.err);
    snprintf(id, sizeof id, "%.*s", (int)strcspn(imp.out, "\n"), imp.out);
    assert_true(atoi(id) >= 1);

    /* export, then referee the exported record: the same verdicts. */
    RUN(&exp, NULL, "export", "--db", f->db, id);
    assert_int_equal(exp.status, 0);
    assert_int_equal(th_count_lines(exp.out), th_count_lines(rec));
    RUN(&again, exp.out, "referee", "--game", game, "-");
    assert_int_equal(again.status, 0);
    same_verdicts(ref.out, again.out);

    /* The stored verdicts are those the referee gives. */
    RUN(&show, NULL, "show", "--db", f->db, "--json", id);
    assert_int_equal(show.status, 0);
    for (int i = 0; i + 1 < th_count_lines(ref.out); i++) {
        char *lv = th_line(ref.out, i), *ls = th_line(show.out, i + 1);
        cJSON *v = cJSON_Parse(lv), *s = cJSON_Parse(ls);
        const char *keys[] = {"seq", "player", "legal", "points", "rule", "reason", "scores"};
        for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
            cJSON *a = cJSON_GetObjectItem(v, keys[k]), *b = cJSON_GetObjectItem(s, keys[k]);
            if ((a || b) && !cJSON_Compare(a, b, true))
                fail_msg("%s event %d: \"%s\" differs: referee %s, stored %s", game, i + 1,
                         keys[k], lv, ls);
        }
        illegal += !cJSON_IsTrue(cJSON_GetObjectItem(s, "legal"));
        assert_string_equal(cJSON_GetObjectItem(s, "source")->valuestring, "imported");
        cJSON_Delete(v);
        cJSON_Delete(s);
        free(lv);
        free(ls);
    }
    assert_true(illegal >= 1);

    /* finished when the record reached the end, else abandoned */
    RUN(&list, NULL, "matches", "--db", f->db, "--json");
    {
        char *fin = th_line(ref.out, th_count_lines(ref.out) - 1);
        bool over = strstr(fin, "\"over\":true") != NULL;
        assert_non_null(strstr(list.out, over ? "\"state\":\"finished\""
                                              : "\"state\":\"abandoned\""));
        free(fin);
    }
    /* Every game's board is drawn as SVG after the last move: a document
     * whose title counts the pieces the store holds for that position. */
    {
        th_run svg;
        char at[16], want[64];
        int last = th_count_lines(ref.out) - 1, npieces = 0;
        snprintf(at, sizeof at, "%d", last);
        RUN(&svg, NULL, "show", "--db", f->db, "--at", at, "--svg", id);
        if (svg.status != 0)
            fail_msg("show --svg %s: %s", game, svg.err);
        assert_memory_equal(svg.out, "<?xml", 5);
        assert_non_null(strstr(svg.out, "</svg>\n"));
        {
            /* the pieces on the table after the record, by the engine */
            rules_game *g = NULL;
            char *h = th_line(rec, 0);
            cJSON *hj = cJSON_Parse(h);
            assert_int_equal(rules_game_new(game, hj, NULL, &g), 0);
            for (int i = 1; i < th_count_lines(rec); i++) {
                char *l = th_line(rec, i);
                cJSON *ej = cJSON_Parse(l);
                rules_move mv;
                rules_verdict v;
                int pl;
                if (rules_event_from_json(game, ej, &pl, &mv, NULL) == 0)
                    rules_apply(g, pl, &mv, &v);
                cJSON_Delete(ej);
                free(l);
            }
            npieces = rules_position(g, NULL, 0);
            rules_game_free(g);
            cJSON_Delete(hj);
            free(h);
        }
        snprintf(want, sizeof want, "<title>%s position, %d ", game, npieces);
        if (!strstr(svg.out, want))
            fail_msg("%s: the SVG does not say %s...: %.200s", game, want, svg.out);
        th_run_free(&svg);
    }
    {
        int places = 0;
        for (const char *p = rec; (p = strstr(p, "\"type\":\"place\"")); p++)
            places++;
        print_message("%s: %d events (%d placements), %d illegal, round trip ok\n", game,
                      th_count_lines(rec) - 1, places, illegal);
    }
    th_run_free(&ref);
    th_run_free(&imp);
    th_run_free(&exp);
    th_run_free(&again);
    th_run_free(&show);
    th_run_free(&list);
    free(file);
    free(rec);
}

static void test_roundtrip_qwirkle(void **state) { roundtrip(state, "qwirkle"); }
static void test_roundtrip_cards(void **state) { roundtrip(state, "cards"); }
static void test_roundtrip_cube2(void **state) { roundtrip(state, "cube2"); }
static void test_roundtrip_stack4(void **state) { roundtrip(state, "stack4"); }
static void test_roundtrip_cubed(void **state) { roundtrip(state, "cubed"); }

/* A malformed record stores nothing, and says which line is wrong. */
static void test_import_malformed(void **state)
{
    fixture *f = *state;
    th_run r;
    char *rec, *cut, *bad;
    const char *game = "qwirkle";
    /* A first, good import, so that the store is not empty. */
    rec = make_record(game);
    RUN(&r, rec, "import", "--game", game, "--db", f->db, "-");
    assert_int_equal(r.status, 0);
    th_run_free(&r);

    /* Line 4 broken: not JSON. */
    cut = rec;
    for (int i = 0; i < 3; i++)
        cut = strchr(cut, '\n') + 1;
    bad = malloc(strlen(rec) + 1024);
    memcpy(bad, rec, (size_t)(cut - rec));
    strcpy(bad + (cut - rec), "{\"player\":0,\"move\":\n");
    strcat(bad, strchr(cut, '\n') + 1);
    RUN(&r, bad, "import", "--game", game, "--db", f->db, "-");
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "line 4"));
    th_run_free(&r);

    /* Line 3 with an unknown colour. */
    strcpy(bad, rec);
    cut = bad;
    for (int i = 0; i < 2; i++)
        cut = strchr(cut, '\n') + 1;
    strcpy(cut, "{\"player\":1,\"move\":{\"type\":\"place\",\"pieces\":[{\"x\":5,\"y\":5,"
                "\"color\":\"pink\",\"shape\":\"circle\"}]}}\n{\"player\":0,\"move\":{\"type\":"
                "\"reroll\"}}\n");
    RUN(&r, bad, "import", "--game", game, "--db", f->db, "-");
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "line 3"));
    assert_non_null(strstr(r.err, "pink"));
    th_run_free(&r);

    /* A seat that is not at the table, on the last line. */
    strcpy(bad, rec);
    strcat(bad, "{\"player\":5,\"move\":{\"type\":\"reroll\"}}\n");
    RUN(&r, bad, "import", "--game", game, "--db", f->db, "-");
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "not a seat"));
    th_run_free(&r);

    /* The wrong game and an empty record. */
    RUN(&r, rec, "import", "--game", "stack4", "--db", f->db, "-");
    assert_int_equal(r.status, 2);
    th_run_free(&r);
    RUN(&r, "\n\n", "import", "--game", game, "--db", f->db, "-");
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "empty"));
    th_run_free(&r);

    /* Only the good import is there, with all its events. */
    RUN(&r, NULL, "matches", "--db", f->db, "--json");
    assert_int_equal(r.status, 0);
    assert_int_equal(th_count_lines(r.out), 1);
    {
        char want[64];
        snprintf(want, sizeof want, "\"events\":%d", th_count_lines(rec) - 1);
        assert_non_null(strstr(r.out, want));
    }
    th_run_free(&r);
    RUN(&r, rec, "import", "--game", game, "--db", f->db, "--json", "-");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "\"match\":2"));
    th_run_free(&r);
    free(bad);
    free(rec);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_matches_table_and_json, setup, teardown),
        cmocka_unit_test_setup_teardown(test_show_moves, setup, teardown),
        cmocka_unit_test_setup_teardown(test_show_board, setup, teardown),
        cmocka_unit_test_setup_teardown(test_export_stored, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stats, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_flags_and_files, setup, teardown),
        cmocka_unit_test_setup_teardown(test_roundtrip_qwirkle, setup, teardown),
        cmocka_unit_test_setup_teardown(test_roundtrip_cards, setup, teardown),
        cmocka_unit_test_setup_teardown(test_roundtrip_cube2, setup, teardown),
        cmocka_unit_test_setup_teardown(test_roundtrip_stack4, setup, teardown),
        cmocka_unit_test_setup_teardown(test_roundtrip_cubed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_import_malformed, setup, teardown),
    };
    th_case_filter();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
