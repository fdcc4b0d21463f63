/* tests/test_ui_watch.c: `tablecam watch` and `tablecam demo` through the
 * real binary: wrong cameras and flags fail clearly before anything is
 * stored; a simulated match runs through the whole pipeline; what was
 * announced is what was stored; --resume continues the same match. */
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

#include "harness.h"

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
    /* no libcamera camera on this machine */
    assert_int_equal(th_tablecam(&r, NULL, (const char *[]){"watch", "--game", "qwirkle", "--camera",
                                                            "libcamera:0", "--players", "A,B", "--db",
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

/* Keys on standard input: a re-roll for the player to move, an undo, and
 * a correction that is refused because there is no move left to correct. */
static void test_keys(void **state)
{
    char *dir = th_tmpdir(), *db = th_path(dir, "t.db");
    th_run r;
    int seqs[16];
    (void)state;
    assert_int_equal(th_tablecam(&r, "r\nu\nx\n",
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
    th_run_free(&r);
    th_rmtree(dir);
    free(db);
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
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_setups_store_nothing),
        cmocka_unit_test(test_simulated_match_is_stored_as_announced),
        cmocka_unit_test(test_keys),
        cmocka_unit_test(test_demo_flags),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
