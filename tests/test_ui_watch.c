/* tests/test_ui_watch.c: `tablecam watch` and `tablecam demo` through the
 * real binary: wrong cameras and flags fail clearly before anything is
 * stored; a simulated match runs through the whole pipeline; what was
 * announced is what was stored; --resume continues the same match; lens
 * and colour profiles reach the live reader; and, unit by unit, the keys
 * typed (ui/watch_int.h): actions, corrections, and the answers to the
 * referee's question. */
#define _XOPEN_SOURCE 700
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "calib.h"
#include "harness.h"
#include "watch_int.h"

static void test_bad_setups_store_nothing(void **state)
{
    char *dir = th_tmpdir(), *db = th_path(dir, "t.db");
    th_run r;
    (void)state;
    /* no players */
    assert_int_equal(th_tablecam(&r, NULL, (const char *[]){"watch", "--game", "qwirkle", "--camera",
                                                            "sim:qwirkle", "--db", db, NULL}), 0);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "usage: tablecam watch"));
    th_run_free(&r);
    /* an unknown kind of camera */
    assert_int_equal(th_tablecam(&r, NULL, (const char *[]){"watch", "--game", "qwirkle", "--camera",
                                                            "webcam", "--players", "A,B", "--db", db,
                                                            NULL}), 0);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "unknown kind"));
    th_run_free(&r);
    /* a libcamera camera the machine does not have (no machine has a
     * 9000th, so this holds where cameras are plugged in too) */
    assert_int_equal(th_tablecam(&r, NULL, (const char *[]){"watch", "--game", "qwirkle", "--camera",
                                                            "libcamera:8999", "--players", "A,B", "--db",
                                                            db, NULL}), 0);
    assert_true(r.status == 1 || r.status == 2);
    assert_non_null(strstr(r.err, "libcamera"));
    th_run_free(&r);
    /* a button on a chip that does not exist */
    assert_int_equal(th_tablecam(&r, NULL, (const char *[]){"watch", "--game", "qwirkle", "--camera",
                                                            "sim:qwirkle", "--players", "A,B", "--db",
                                                            db, "--gpio", "nochip:4=reroll", NULL}),
                     0);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "--gpio"));
    th_run_free(&r);
    /* a game the camera cannot read yet */
    assert_int_equal(th_tablecam(&r, NULL, (const char *[]){"watch", "--game", "stack4", "--camera",
                                                            "sim:qwirkle", "--players", "A,B", "--db",
                                                            db, NULL}), 0);
    assert_int_equal(r.status, 2);
    th_run_free(&r);
    /* a game the camera reads but the live referee does not follow yet */
    assert_int_equal(th_tablecam(&r, NULL, (const char *[]){"watch", "--game", "cubed", "--camera",
                                                            "sim:cubed", "--players", "A,B", "--db",
                                                            db, NULL}), 0);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "cannot follow cubed"));
    th_run_free(&r);
    /* nothing was stored by any of them */
    assert_int_not_equal(access(db, F_OK), 0);
    /* resuming with nothing to resume */
    assert_int_equal(th_tablecam(&r, NULL, (const char *[]){"watch", "--game", "qwirkle", "--camera",
                                                            "sim:qwirkle", "--resume", "--db", db,
                                                            NULL}), 0);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.err, "no unfinished qwirkle match"));
    th_run_free(&r);
    th_rmtree(dir);
    free(db);
    free(dir);
}

/* A cards match starts from the face-up card on the table: watch reads it
 * off the table (or takes --start), and refuses a table that does not
 * show one card, before anything is stored. */
static void test_cards_start(void **state)
{
    char *dir = th_tmpdir(), *db = th_path(dir, "t.db"), *sim = th_path(dir, "sim");
    char *two = th_path(dir, "two"), spec[512];
    th_run r, s;
    (void)state;
    /* the simulator's match: its start card and its first two moves */
    assert_int_equal(th_tablecam(&r, NULL,
                                 (const char *[]){"sim", "--game", "cards", "--seed", "5",
                                                  "--width", "1280", "--height", "960", "--fps",
                                                  "2", "--out", sim, "--moves", "2", NULL}),
                     0);
    assert_int_equal(r.status, 0);
    th_run_free(&r);
    /* a named card that is none, and --start for another game */
    assert_int_equal(th_tablecam(&r, NULL, (const char *[]){"watch", "--game", "cards", "--camera",
                                                            "sim:cards", "--players", "A,B",
                                                            "--start", "1Z", "--db", db, NULL}),
                     0);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "--start: '1Z' is not a card"));
    th_run_free(&r);
    assert_int_equal(th_tablecam(&r, NULL, (const char *[]){"watch", "--game", "qwirkle", "--camera",
                                                            "sim:qwirkle", "--players", "A,B",
                                                            "--start", "KD", "--db", db, NULL}),
                     0);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "--start is for cards"));
    th_run_free(&r);
    /* the still frames after the first move (3.5-5 s) show two cards: no
     * start to read */
    {
        char cmd[1024];
        snprintf(cmd, sizeof cmd, "mkdir -p '%s' && cp '%s'/frame-0000[789].png '%s'/frame-00010.png '%s'/",
                 two, sim, sim, two);
        assert_int_equal(system(cmd), 0);
    }
    snprintf(spec, sizeof spec, "dir:%s:fps=2", two);
    assert_int_equal(th_tablecam(&r, NULL, (const char *[]){"watch", "--game", "cards", "--camera",
                                                            spec, "--players", "A,B", "--db", db,
                                                            NULL}),
                     0);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.err, "the table shows 2 cards ("));
    assert_non_null(strstr(r.err, "--start CARD"));
    th_run_free(&r);
    assert_int_not_equal(access(db, F_OK), 0);

    /* the live match: the start read off the table, the moves as played */
    assert_int_equal(th_tablecam(&r, NULL,
                                 (const char *[]){"watch", "--game", "cards", "--camera",
                                                  "sim:cards:seed=5:1280x960:moves=2", "--players",
                                                  "A,B", "--db", db, "--no-keys", NULL}),
                     0);
    assert_int_equal(r.status, 0);
    assert_int_equal(th_tablecam(&s, NULL, (const char *[]){"export", "--db", db, "1", NULL}), 0);
    assert_int_equal(s.status, 0);
    {
        char *tpath = th_path(sim, "truth.jsonl"), *truth = th_read_file(tpath, NULL);
        char *l0 = th_line(truth, 0), *lh = th_line(s.out, 0), want[64];
        cJSON *t0 = cJSON_Parse(l0), *h = cJSON_Parse(lh);
        const cJSON *pieces = cJSON_GetObjectItem(cJSON_GetObjectItem(t0, "position"), "pieces");
        const char *card = cJSON_GetObjectItem(cJSON_GetArrayItem(pieces, 0), "card")->valuestring;
        assert_int_equal(cJSON_GetArraySize(pieces), 1);
        snprintf(want, sizeof want, "the starting card is the %s", card);
        assert_non_null(strstr(r.err, want));
        assert_string_equal(
            cJSON_GetObjectItem(cJSON_GetObjectItem(h, "start"), "card")->valuestring, card);
        assert_int_equal(th_count_lines(s.out), 3); /* the header and the two moves */
        cJSON_Delete(t0);
        cJSON_Delete(h);
        free(l0);
        free(lh);
        free(truth);
        free(tpath);
    }
    th_run_free(&s);
    th_run_free(&r);
    th_rmtree(dir);
    free(two);
    free(sim);
    free(db);
    free(dir);
}

/* Counts the JSON announcements of a kind in --json output. */
static int count_kind(const char *out, const char *kind, int *seqs, int cap)
{
    int n = 0, lines = th_count_lines(out);
    for (int i = 0; i < lines; i++) {
        char *l = th_line(out, i);
        cJSON *j = cJSON_Parse(l);
        const cJSON *k = j ? cJSON_GetObjectItem(j, "kind") : NULL;
        if (cJSON_IsString(k) && strcmp(k->valuestring, kind) == 0) {
            const cJSON *s = cJSON_GetObjectItem(j, "seq");
            if (n < cap)
                seqs[n] = cJSON_IsNumber(s) ? s->valueint : 0;
            n++;
        }
        cJSON_Delete(j);
        free(l);
    }
    return n;
}

static void test_simulated_match_is_stored_as_announced(void **state)
{
    char *dir = th_tmpdir(), *db = th_path(dir, "t.db");
    th_run r, s;
    int seqs[256], nmove, nillegal;
    (void)state;
    assert_int_equal(th_tablecam(&r, NULL,
                                 (const char *[]){"watch", "--game", "qwirkle", "--camera",
                                                  "sim:qwirkle:seed=11:640x480:fps=5:moves=3",
                                                  "--players", "Ann,Bob", "--db", db, "--json",
                                                  "--no-keys", NULL}),
                     0);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "summary: match 1,"));
    assert_non_null(strstr(r.err, "match 1, qwirkle, camera sim:qwirkle"));
    /* 640x480 from this camera is about 0.3 px/mm at the board: the
     * players are told, once, to give the camera more pixels. */
    {
        const char *a = strstr(r.err, "camera: the camera sees the board at 0.");
        assert_non_null(a);
        assert_non_null(strstr(a, "size=1920x1080"));
        assert_null(strstr(a + 1, "camera: the camera sees"));
    }
    nmove = count_kind(r.out, "move", seqs, 256);
    nillegal = count_kind(r.out, "illegal", seqs + nmove, 256 - nmove);
    /* Every announced move and illegal move is in the store with its seq. */
    assert_int_equal(th_tablecam(&s, NULL, (const char *[]){"show", "--db", db, "1", "--json", NULL}),
                     0);
    assert_int_equal(s.status, 0);
    for (int i = 0; i < nmove + nillegal && i < 256; i++) {
        char want[32];
        if (seqs[i] == 0)
            continue; /* an out-of-turn flag is not stored */
        snprintf(want, sizeof want, "\"seq\":%d", seqs[i]);
        assert_non_null(strstr(s.out, want));
    }
    th_run_free(&s);
    th_run_free(&r);

    /* --resume continues match 1: no second match appears. */
    assert_int_equal(th_tablecam(&r, NULL,
                                 (const char *[]){"watch", "--game", "qwirkle", "--camera",
                                                  "sim:qwirkle:seed=12:640x480:fps=5:moves=1",
                                                  "--resume", "--db", db, "--no-keys", NULL}),
                     0);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.err, "match 1,"));
    th_run_free(&r);
    assert_int_equal(th_tablecam(&s, NULL, (const char *[]){"matches", "--db", db, "--json", NULL}),
                     0);
    assert_int_equal(s.status, 0);
    assert_int_equal(th_count_lines(s.out), 1);
    th_run_free(&s);
    th_rmtree(dir);
    free(db);
    free(dir);
}

/* A cube2 match from the camera: the setup's 24 placements and the moves
 * after it stored as the simulator played them, in order, by the right
 * players (the simulator's match does not depend on the frame size, so
 * its truth comes from a stamp-sized run of the same seed). */
static void test_cube2_match_as_played(void **state)
{
    char *dir = th_tmpdir(), *db = th_path(dir, "t.db"), *sim = th_path(dir, "sim");
    char *tpath = th_path(sim, "truth.jsonl"), *truth;
    th_run r, s;
    int k = 0, n = 0;
    (void)state;
    assert_int_equal(th_tablecam(&r, NULL,
                                 (const char *[]){"sim", "--game", "cube2", "--seed", "5",
                                                  "--design", "17", "--fps", "4", "--moves", "26",
                                                  "--width", "64", "--height", "48", "--out", sim,
                                                  NULL}),
                     0);
    assert_int_equal(r.status, 0);
    th_run_free(&r);
    assert_int_equal(th_tablecam(&r, NULL,
                                 (const char *[]){"watch", "--game", "cube2", "--camera",
                                                  "sim:cube2:seed=5:design=17:960x720:fps=4:moves=26",
                                                  "--players", "Ann,Bob", "--db", db, "--no-keys",
                                                  NULL}),
                     0);
    if (r.status != 0)
        fail_msg("watch: %s", r.err);
    assert_int_equal(th_tablecam(&s, NULL, (const char *[]){"export", "--db", db, "1", NULL}), 0);
    assert_int_equal(s.status, 0);
    truth = th_read_file(tpath, NULL);
    assert_non_null(truth);
    for (int i = 0; i < th_count_lines(truth); i++) {
        char *line = th_line(truth, i), *got;
        cJSON *t = cJSON_Parse(line), *want, *have;
        const cJSON *mv = cJSON_GetObjectItem(t, "move");
        free(line);
        if (!mv) {
            cJSON_Delete(t);
            continue;
        }
        n++;
        got = th_line(s.out, ++k); /* line 0 is the header */
        assert_non_null(got);
        want = cJSON_GetObjectItem(mv, "event");
        have = cJSON_Parse(got);
        if (!cJSON_Compare(cJSON_GetObjectItem(want, "move"), cJSON_GetObjectItem(have, "move"),
                           true) ||
            cJSON_GetObjectItem(want, "player")->valueint !=
                cJSON_GetObjectItem(have, "player")->valueint)
            fail_msg("event %d: the simulator played %s, the store has %s", n,
                     cJSON_PrintUnformatted(want), got);
        cJSON_Delete(have);
        cJSON_Delete(t);
        free(got);
    }
    assert_int_equal(n, 26);
    assert_int_equal(th_count_lines(s.out), 27);
    free(truth);
    th_run_free(&s);
    th_run_free(&r);
    th_rmtree(dir);
    free(tpath);
    free(sim);
    free(db);
    free(dir);
}

/* ---- the keys, unit by unit ---- */

/* Question 3: two answers and "no piece there". */
static ref_question two_answers(void)
{
    ref_question q;
    memset(&q, 0, sizeof q);
    q.id = 3;
    q.nanswers = 2;
    q.p[0] = 0.55f;
    q.p[1] = 0.30f;
    snprintf(q.label[0], sizeof q.label[0], "purple clover");
    snprintf(q.label[1], sizeof q.label[1], "purple diamond");
    q.none = true;
    snprintf(q.text, sizeof q.text, "Is this cube at (13,13) a purple clover or a purple diamond?");
    return q;
}

static void test_key_actions(void **state)
{
    const char *line = "c {\"type\":\"reroll\"}";
    ui__key k;
    (void)state;
    ui__watch_parse_key("", NULL, &k);
    assert_int_equal(k.kind, UI__KEY_EMPTY);
    ui__watch_parse_key("   ", NULL, &k);
    assert_int_equal(k.kind, UI__KEY_EMPTY);
    ui__watch_parse_key("r", NULL, &k);
    assert_int_equal(k.kind, UI__KEY_ACTION);
    assert_string_equal(k.word, "r");
    assert_int_equal(k.player, -1);
    ui__watch_parse_key("pass 2", NULL, &k);
    assert_int_equal(k.kind, UI__KEY_ACTION);
    assert_string_equal(k.word, "pass");
    assert_int_equal(k.player, 1);
    ui__watch_parse_key("x", NULL, &k); /* watch.c tells that x is no key */
    assert_int_equal(k.kind, UI__KEY_ACTION);
    assert_string_equal(k.word, "x");
    ui__watch_parse_key(line, NULL, &k);
    assert_int_equal(k.kind, UI__KEY_CORRECT);
    assert_ptr_equal(k.move_json, line + 2);
    ui__watch_parse_key("correct", NULL, &k);
    assert_int_equal(k.kind, UI__KEY_CORRECT);
    assert_null(k.move_json);
}

static void test_key_answers(void **state)
{
    ref_question q = two_answers();
    ui__key k;
    (void)state;
    /* No question open: a number posts nothing. */
    ui__watch_parse_key("1", NULL, &k);
    assert_int_equal(k.kind, UI__KEY_REFUSED);
    assert_string_equal(k.msg, "no question is open");
    ui__watch_parse_key("0", NULL, &k);
    assert_int_equal(k.kind, UI__KEY_REFUSED);
    assert_string_equal(k.msg, "no question is open");

    /* 1 and 2 pick answers[0] and [1], 0 "no piece there". */
    ui__watch_parse_key("1", &q, &k);
    assert_int_equal(k.kind, UI__KEY_ANSWER);
    assert_int_equal(k.question, 3);
    assert_int_equal(k.answer, 0);
    ui__watch_parse_key(" 2 ", &q, &k);
    assert_int_equal(k.kind, UI__KEY_ANSWER);
    assert_int_equal(k.answer, 1);
    ui__watch_parse_key("0", &q, &k);
    assert_int_equal(k.kind, UI__KEY_ANSWER);
    assert_int_equal(k.answer, REF_ANSWER_NONE);

    /* What it does not offer. */
    ui__watch_parse_key("3", &q, &k);
    assert_int_equal(k.kind, UI__KEY_REFUSED);
    assert_string_equal(k.msg, "question 3 has answers 1-2 and 0");
    ui__watch_parse_key("12", &q, &k);
    assert_string_equal(k.msg, "question 3 has answers 1-2 and 0");
    ui__watch_parse_key("1234567890123", &q, &k);
    assert_int_equal(k.kind, UI__KEY_REFUSED);
    assert_string_equal(k.msg, "question 3 has answers 1-2 and 0");
    q.none = false;
    ui__watch_parse_key("0", &q, &k);
    assert_int_equal(k.kind, UI__KEY_REFUSED);
    assert_string_equal(k.msg, "question 3 has answers 1-2");
    q.none = true;
    q.nanswers = 1;
    ui__watch_parse_key("2", &q, &k);
    assert_string_equal(k.msg, "question 3 has answer 1 and 0");
}

/* The check behind the web app's answers: numbered as the API numbers them. */
static void test_check_answer(void **state)
{
    ref_question q = two_answers();
    base_err err;
    (void)state;
    assert_int_equal(ui__watch_check_answer(&q, 3, 0, false, &err), 0);
    assert_int_equal(ui__watch_check_answer(&q, 3, 1, false, &err), 0);
    assert_int_equal(ui__watch_check_answer(&q, 3, REF_ANSWER_NONE, false, &err), 0);
    assert_int_equal(ui__watch_check_answer(&q, 4, 0, false, &err), BASE_ESTATE);
    assert_string_equal(err.msg, "question 4 is not open (question 3 is)");
    assert_int_equal(ui__watch_check_answer(NULL, 4, 0, false, &err), BASE_ESTATE);
    assert_string_equal(err.msg, "question 4 is not open (no question is)");
    assert_int_equal(ui__watch_check_answer(&q, 3, 2, false, &err), BASE_ERANGE);
    assert_string_equal(err.msg, "question 3 has answers 0-1 and -1 (no piece there)");
    q.none = false;
    assert_int_equal(ui__watch_check_answer(&q, 3, REF_ANSWER_NONE, false, &err), BASE_ERANGE);
    assert_string_equal(err.msg, "question 3 has answers 0-1");
}

/* The line after a question's event line. */
static void test_answers_line(void **state)
{
    ref_question q = two_answers();
    char buf[256];
    (void)state;
    assert_string_equal(ui__watch_answers_line("qwirkle", &q, buf, sizeof buf),
                        "  answer: 1 purple clover (55 %)  2 purple diamond (30 %)  0 no cube there");
    q.none = false;
    snprintf(q.label[0], sizeof q.label[0], "QH");
    snprintf(q.label[1], sizeof q.label[1], "QD");
    q.p[0] = 0.604f;
    q.p[1] = 0.257f; /* rounded to the nearest per cent */
    assert_string_equal(ui__watch_answers_line("cards", &q, buf, sizeof buf),
                        "  answer: 1 QH (60 %)  2 QD (26 %)");
    q.none = true;
    assert_string_equal(ui__watch_answers_line("cards", &q, buf, sizeof buf),
                        "  answer: 1 QH (60 %)  2 QD (26 %)  0 no card there");
}

/* Keys on standard input: a re-roll for the player to move, an undo, and
 * a correction that is refused because there is no move left to correct;
 * an answer with no question open posts nothing. */
static void test_keys(void **state)
{
    char *dir = th_tmpdir(), *db = th_path(dir, "t.db");
    th_run r;
    int seqs[16];
    (void)state;
    assert_int_equal(th_tablecam(&r, "r\nu\nx\n1\n",
                                 (const char *[]){"watch", "--game", "qwirkle", "--camera",
                                                  "sim:qwirkle:seed=3:320x240:moves=1", "--players",
                                                  "Ann,Bob", "--db", db, "--json", NULL}),
                     0);
    assert_int_equal(r.status, 0);
    assert_true(count_kind(r.out, "move", seqs, 16) >= 1);
    assert_int_equal(seqs[0], 1);
    assert_non_null(strstr(r.out, "\"reroll\""));
    assert_int_equal(count_kind(r.out, "takeback", seqs, 16), 1);
    assert_non_null(strstr(r.err, "keys: p (pass)")); /* "x" is no key */
    assert_non_null(strstr(r.err, "tablecam watch: no question is open\n"));
    th_run_free(&r);
    th_rmtree(dir);
    free(db);
    free(dir);
}

/* The pieces of every announcement with a move in --json output, as one
 * string ("x,y,color,shape;..." per line), for comparing two runs. */
static char *announced_pieces(const char *out)
{
    size_t cap = strlen(out) + 1, n = 0;
    char *s = calloc(1, cap);
    int lines = th_count_lines(out);
    for (int i = 0; s && i < lines; i++) {
        char *l = th_line(out, i);
        cJSON *j = cJSON_Parse(l), *p;
        const cJSON *pieces = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "move"), "pieces");
        cJSON_ArrayForEach(p, pieces)
        {
            const cJSON *c = cJSON_GetObjectItem(p, "color"), *h = cJSON_GetObjectItem(p, "shape");
            n += (size_t)snprintf(s + n, cap - n, "%d,%d,%s,%s;",
                                  cJSON_GetObjectItem(p, "x")->valueint,
                                  cJSON_GetObjectItem(p, "y")->valueint,
                                  cJSON_IsString(c) ? c->valuestring : "?",
                                  cJSON_IsString(h) ? h->valuestring : "?");
        }
        if (cJSON_IsArray(pieces) && n + 1 < cap)
            s[n++] = '\n';
        cJSON_Delete(j);
        free(l);
    }
    return s;
}

/* Runs watch on the simulated camera with extra flags; returns its status
 * and the pieces it announced.  (960x720: at 640x480 this camera sees the
 * board at about 0.35 px/mm, and the referee rightly asks about every cube
 * instead of announcing moves.) */
static int watch_pieces(const char *db, const char *a1, const char *v1, const char *a2,
                        const char *v2, char **pieces, char **err)
{
    th_run r;
    const char *argv[] = {"watch", "--game", "qwirkle", "--camera",
                          "sim:qwirkle:seed=12:960x720:fps=5:moves=1", "--players", "Ann,Bob",
                          "--db", db, "--json", "--no-keys", a1, v1, a2, v2, NULL};
    assert_int_equal(th_tablecam(&r, NULL, argv), 0);
    *pieces = announced_pieces(r.out);
    *err = strdup(r.err);
    int status = r.status;
    th_run_free(&r);
    unlink(db);
    return status;
}

/* The calibration reaches the live reader: the colour profile passed
 * explicitly reads as the defaults do, one with the colours' prototypes
 * rotated by one reads other colours at the same cells, and the camera's
 * true lens (from the simulator's truth) still reads the match.  A bad
 * profile fails before anything is stored. */
static void test_calibration_profiles(void **state)
{
    char *dir = th_tmpdir(), *db = th_path(dir, "t.db"), *truth_dir = th_path(dir, "sim");
    char *lensf = th_path(dir, "lens.json"), *deff = th_path(dir, "default.json");
    char *rotf = th_path(dir, "rotated.json"), *truthf = th_path(truth_dir, "truth.jsonl");
    char *json = NULL, *base = NULL, *got = NULL, *err = NULL, *line;
    vis_qwirkle_profile prof = vis_qwirkle_default_profile(), rot;
    base_err e;
    th_run r;
    (void)state;

    assert_int_equal(cal_colors_to_json(&prof, &json, &e), 0);
    assert_int_equal(th_write_file(deff, json), 0);
    free(json);
    for (int k = 0; k < 6; k++) {
        rot.hue[k] = prof.hue[(k + 1) % 6];
        rot.sat[k] = prof.sat[(k + 1) % 6];
    }
    assert_int_equal(cal_colors_to_json(&rot, &json, &e), 0);
    assert_int_equal(th_write_file(rotf, json), 0);
    free(json);
    /* the simulated camera's own intrinsics and distortion, as a lens
     * profile */
    assert_int_equal(th_tablecam(&r, NULL, (const char *[]){"sim", "--game", "qwirkle", "--seed",
                                                            "12", "--width", "960", "--height",
                                                            "720", "--fps", "5", "--frames", "1",
                                                            "--out", truth_dir, NULL}),
                     0);
    assert_int_equal(r.status, 0);
    th_run_free(&r);
    line = th_read_file(truthf, NULL);
    assert_non_null(line);
    {
        cJSON *t = cJSON_Parse(line), *cam = cJSON_GetObjectItem(t, "camera");
        const cJSON *d = cJSON_GetObjectItem(cam, "dist");
        vis_camera lens = {cJSON_GetObjectItem(cam, "fx")->valuedouble,
                           cJSON_GetObjectItem(cam, "fy")->valuedouble,
                           cJSON_GetObjectItem(cam, "cx")->valuedouble,
                           cJSON_GetObjectItem(cam, "cy")->valuedouble,
                           {0}};
        assert_int_equal(cJSON_GetArraySize(d), 5);
        for (int i = 0; i < 5; i++)
            lens.dist[i] = cJSON_GetArrayItem(d, i)->valuedouble;
        assert_int_equal(cal_camera_to_json(&lens, 960, 720, 0.1, &json, &e), 0);
        assert_int_equal(th_write_file(lensf, json), 0);
        free(json);
        cJSON_Delete(t);
    }
    free(line);

    assert_int_equal(watch_pieces(db, NULL, NULL, NULL, NULL, &base, &err), 0);
    free(err);
    assert_true(strlen(base) > 0);
    /* the defaults, passed as a profile: the same readings */
    assert_int_equal(watch_pieces(db, "--profile", deff, NULL, NULL, &got, &err), 0);
    assert_non_null(strstr(err, ", colours "));
    assert_string_equal(got, base);
    free(got);
    free(err);
    /* rotated prototypes: the same cells and shapes, other colours (the
     * learnt hues name the colours) */
    assert_int_equal(watch_pieces(db, "--profile", rotf, NULL, NULL, &got, &err), 0);
    assert_string_not_equal(got, base);
    {
        const char *a = base, *b = got;
        int x0, y0, x1, y1, n0, n1, other = 0;
        char c0[16], s0[16], c1[16], s1[16];
        while (sscanf(a, "%d,%d,%15[^,],%15[^;];%n", &x0, &y0, c0, s0, &n0) == 4) {
            assert_int_equal(sscanf(b, "%d,%d,%15[^,],%15[^;];%n", &x1, &y1, c1, s1, &n1), 4);
            assert_int_equal(x1, x0);
            assert_int_equal(y1, y0);
            assert_string_equal(s1, s0);
            other += strcmp(c1, c0) != 0;
            a += n0;
            b += n1;
        }
        assert_true(other > 0);
    }
    free(got);
    free(err);
    /* the true lens: the match is read and the lens named */
    assert_int_equal(watch_pieces(db, "--lens", lensf, "--profile", deff, &got, &err), 0);
    assert_non_null(strstr(err, ", lens "));
    assert_true(strlen(got) > 0);
    free(got);
    free(err);
    /* a colour profile given as the lens: refused, nothing stored */
    assert_int_equal(watch_pieces(db, "--lens", deff, NULL, NULL, &got, &err), 2);
    assert_non_null(strstr(err, "--lens"));
    assert_non_null(strstr(err, "not a camera profile"));
    assert_int_not_equal(access(db, F_OK), 0);
    free(got);
    free(err);
    /* a colour profile for a game that has none */
    assert_int_equal(th_tablecam(&r, NULL, (const char *[]){"watch", "--game", "cards", "--camera",
                                                            "sim:cards", "--players", "A,B",
                                                            "--profile", deff, "--db", db, NULL}),
                     0);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "colour profiles are for qwirkle"));
    th_run_free(&r);
    assert_int_not_equal(access(db, F_OK), 0);

    free(base);
    th_rmtree(dir);
    free(db);
    free(truth_dir);
    free(lensf);
    free(deff);
    free(rotf);
    free(truthf);
    free(dir);
}

/* `tablecam recognize` notes a camera too coarse for the shapes (the same
 * advice as watch's), and says nothing of one that sees them well; the
 * same for cards. */
static void test_recognize_camera_note(void **state)
{
    char *dir = th_tmpdir(), *small = th_path(dir, "small"), *large = th_path(dir, "large");
    char *f1 = th_path(small, "frame-00014.png"), *f2 = th_path(large, "frame-00014.png");
    th_run r;
    (void)state;
    assert_int_equal(th_tablecam(&r, NULL,
                                 (const char *[]){"sim", "--game", "qwirkle", "--seed", "7",
                                                  "--out", small, "--fps", "2", "--frames", "15",
                                                  "--moves", "1", NULL}),
                     0);
    assert_int_equal(r.status, 0);
    th_run_free(&r);
    assert_int_equal(th_tablecam(&r, NULL,
                                 (const char *[]){"sim", "--game", "qwirkle", "--seed", "7",
                                                  "--width", "1280", "--height", "960", "--fps",
                                                  "2", "--out", large, "--frames", "15", "--moves",
                                                  "1", NULL}),
                     0);
    assert_int_equal(r.status, 0);
    th_run_free(&r);
    /* 640x480: about 0.5 px/mm at the board */
    assert_int_equal(th_tablecam(&r, NULL, (const char *[]){"recognize", "--game", "qwirkle", f1,
                                                            NULL}),
                     0);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.err, "note: the camera sees the board at 0."));
    assert_non_null(strstr(r.out, "\"pieces\":["));
    th_run_free(&r);
    /* 1280x960: about 1 px/mm, the two cubes of the first move read */
    assert_int_equal(th_tablecam(&r, NULL, (const char *[]){"recognize", "--game", "qwirkle", f2,
                                                            NULL}),
                     0);
    assert_int_equal(r.status, 0);
    assert_null(strstr(r.err, "note:"));
    assert_non_null(strstr(r.out, "\"color\":\"purple\",\"shape\":\"square\""));
    th_run_free(&r);
    /* cards at 640x480, the first card on the table: too coarse for them */
    th_rmtree(small);
    assert_int_equal(th_tablecam(&r, NULL,
                                 (const char *[]){"sim", "--game", "cards", "--seed", "5",
                                                  "--out", small, "--frames", "2", NULL}),
                     0);
    assert_int_equal(r.status, 0);
    th_run_free(&r);
    free(f1);
    f1 = th_path(small, "frame-00001.png");
    assert_int_equal(th_tablecam(&r, NULL, (const char *[]){"recognize", "--game", "cards", f1,
                                                            NULL}),
                     0);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.err, "note: the camera sees the cards at 0."));
    assert_non_null(strstr(r.out, "\"card\":"));
    th_run_free(&r);
    th_rmtree(dir);
    free(f1);
    free(f2);
    free(small);
    free(large);
    free(dir);
}

static void test_demo_flags(void **state)
{
    th_run r;
    (void)state;
    assert_int_equal(th_tablecam(&r, NULL, (const char *[]){"demo", "--seed", "x", NULL}), 0);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "--seed"));
    th_run_free(&r);
    assert_int_equal(th_tablecam(&r, NULL, (const char *[]){"demo", "--bogus", NULL}), 0);
    assert_int_equal(r.status, 2);
    th_run_free(&r);
    /* a game the demo does not play, named */
    assert_int_equal(th_tablecam(&r, NULL, (const char *[]){"demo", "--game", "stack4", NULL}), 0);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "--game 'stack4'"));
    th_run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_key_actions),
        cmocka_unit_test(test_key_answers),
        cmocka_unit_test(test_check_answer),
        cmocka_unit_test(test_answers_line),
        cmocka_unit_test(test_bad_setups_store_nothing),
        cmocka_unit_test(test_simulated_match_is_stored_as_announced),
        cmocka_unit_test(test_cube2_match_as_played),
        cmocka_unit_test(test_keys),
        cmocka_unit_test(test_demo_flags),
        cmocka_unit_test(test_cards_start),
        cmocka_unit_test(test_recognize_camera_note),
        cmocka_unit_test(test_calibration_profiles),
    };
    th_case_filter();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
