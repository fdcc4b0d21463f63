/* tests/test_ui_enrol.c: enrolling a Qwirkle set (FORMATS.md 7) as a user
 * does it: six photos rendered by `tablecam sim --enrol K`, `tablecam
 * calibrate pieces` storing the set, `calibrate list` showing it,
 * `recognize --pieces` reading with it by name and by file; and every way
 * a user can get it wrong refused with a message naming what and where,
 * before anything is recorded. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* The set of the sim's design 2, photographed six times by one camera
 * under one light (one sim seed; photo k is --enrol k). */
#define DESIGN "2"
#define SEED "4104"

typedef struct fixture {
    char *dir, *db, *file;
    char *photo[6];
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    th_run r;
    f->dir = th_tmpdir();
    f->db = th_path(f->dir, "t.db");
    f->file = th_path(f->dir, "set.json");
    for (int k = 0; k < 6; k++) {
        char sub[16], kk[4];
        char *out;
        snprintf(sub, sizeof sub, "p%d", k);
        snprintf(kk, sizeof kk, "%d", k);
        out = th_path(f->dir, sub);
        if (th_tablecam(&r, NULL,
                        (const char *[]){"sim", "--game", "qwirkle", "--design", DESIGN, "--enrol",
                                         kk, "--seed", SEED, "--width", "1280", "--height", "960",
                                         "--setup", "good", "--out", out, NULL}) != 0 ||
            r.status != 0) {
            fprintf(stderr, "sim --enrol %d: %s\n", k, r.err);
            return -1;
        }
        th_run_free(&r);
        f->photo[k] = th_path(out, "frame-00000.png");
        free(out);
    }
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    th_rmtree(f->dir);
    free(f->dir);
    free(f->db);
    free(f->file);
    for (int k = 0; k < 6; k++)
        free(f->photo[k]);
    free(f);
    return 0;
}

/* `calibrate pieces --game qwirkle ARGS... photos[0..n)` into r. */
static void enrol(th_run *r, const fixture *f, const char *const *extra, int n,
                  const char *const *photos)
{
    const char *args[32] = {"calibrate", "pieces", "--game", "qwirkle"};
    int a = 4;
    for (int i = 0; extra && extra[i]; i++)
        args[a++] = extra[i];
    for (int k = 0; k < n; k++)
        args[a++] = photos[k];
    args[a] = NULL;
    (void)f;
    assert_int_equal(th_tablecam(r, NULL, args), 0);
}

/* Enrolled, stored, listed, written, and read with, by name and by
 * file. */
static void test_enrol_store_and_read(void **state)
{
    fixture *f = *state;
    th_run r;
    enrol(&r, f, (const char *[]){"--name", "mine", "--db", f->db, "--out", f->file, NULL}, 6,
          (const char *const *)f->photo);
    if (r.status != 0)
        fail_msg("calibrate pieces: %s", r.err);
    assert_non_null(strstr(r.out, "\"kind\":\"pieces\""));
    assert_non_null(strstr(r.out, "\"game\":\"qwirkle\""));
    assert_non_null(strstr(r.err, "36 pieces enrolled"));
    assert_int_equal(th_count_lines(r.out), 1);
    th_run_free(&r);

    assert_int_equal(th_tablecam(&r, NULL, (const char *[]){"calibrate", "list", "--db", f->db,
                                                             NULL}),
                     0);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "mine\tpieces\t"));
    th_run_free(&r);

    {
        /* by name and by file the same set: the same reading, six cubes in
         * the colours' order (how well shapes read is bench_recognize's) */
        char *seen[2];
        for (int by = 0; by < 2; by++) {
            const char *colors[6] = {"red", "orange", "yellow", "green", "blue", "purple"};
            const char *at;
            assert_int_equal(th_tablecam(&r, NULL,
                                         (const char *[]){"recognize", "--game", "qwirkle",
                                                          "--pieces", by ? f->file : "mine",
                                                          "--db", f->db, f->photo[5], NULL}),
                             0);
            if (r.status != 0)
                fail_msg("recognize --pieces: %s", r.err);
            for (int c = 0; c < 6; c++) {
                char want[64];
                snprintf(want, sizeof want, "{\"x\":%d,\"y\":0,\"color\":\"%s\"", c,
                         colors[c]);
                if (!(at = strstr(r.out, want)))
                    fail_msg("no %s in %s", want, r.out);
            }
            seen[by] = r.out;
            r.out = NULL;
            th_run_free(&r);
        }
        assert_string_equal(seen[0], seen[1]);
        free(seen[0]);
        free(seen[1]);
    }
}

/* Too few photos, a game without enrolment, an unreadable image, a photo
 * without the cubes: each refused (exit 2) naming it, nothing stored. */
static void test_enrol_refusals(void **state)
{
    fixture *f = *state;
    char *bad = th_path(f->dir, "bad.png"), *db = th_path(f->dir, "refused.db");
    const char *photos[6];
    th_run r;
    th_write_file(bad, "not a picture\n");
    enrol(&r, f, (const char *[]){"--name", "x", "--db", db, NULL}, 5,
          (const char *const *)f->photo);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "6 photos (circles squares diamonds clovers star4s star8s)"));
    th_run_free(&r);

    assert_int_equal(th_tablecam(&r, NULL,
                                 (const char *[]){"calibrate", "pieces", "--game", "cards",
                                                  f->photo[0], NULL}),
                     0);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "qwirkle and cube2 only"));
    th_run_free(&r);

    for (int k = 0; k < 6; k++)
        photos[k] = f->photo[k];
    photos[3] = bad;
    enrol(&r, f, (const char *[]){"--name", "x", "--db", db, NULL}, 6, photos);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "bad.png"));
    th_run_free(&r);

    /* a photo without the six cubes (an empty table, a match's first
     * frame) given as the squares' */
    {
        char *empty = th_path(f->dir, "empty");
        char *frame = th_path(empty, "frame-00000.png");
        assert_int_equal(th_tablecam(&r, NULL,
                                     (const char *[]){"sim", "--game", "qwirkle", "--seed", "5",
                                                      "--frames", "1", "--width", "1280",
                                                      "--height", "960", "--setup", "good",
                                                      "--out", empty, NULL}),
                         0);
        assert_int_equal(r.status, 0);
        th_run_free(&r);
        photos[3] = f->photo[3];
        photos[1] = frame;
        enrol(&r, f, (const char *[]){"--name", "x", "--db", db, NULL}, 6, photos);
        assert_int_equal(r.status, 2);
        assert_non_null(strstr(r.err, "photo 2, the squares"));
        assert_non_null(strstr(r.err, "frame-00000.png"));
        th_run_free(&r);
        free(frame);
        free(empty);
    }
    /* nothing was stored */
    assert_int_equal(th_tablecam(&r, NULL, (const char *[]){"calibrate", "list", "--db", db,
                                                             NULL}),
                     0);
    assert_null(strstr(r.out, "\tpieces\t"));
    th_run_free(&r);
    free(bad);
    free(db);
}

/* --pieces that cannot be used: an unknown name, a profile of another
 * kind, a set enrolled with another model; and watch refuses it before a
 * match is recorded. */
static void test_bad_pieces_option(void **state)
{
    fixture *f = *state;
    char *colors = th_path(f->dir, "colors.json"), *other = th_path(f->dir, "other.json");
    char *db = th_path(f->dir, "watch.db");
    char *text;
    th_run r;
    /* the set of the first test, or enrol it here when run alone */
    if (!(text = th_read_file(f->file, NULL))) {
        enrol(&r, f, (const char *[]){"--out", f->file, NULL}, 6, (const char *const *)f->photo);
        assert_int_equal(r.status, 0);
        th_run_free(&r);
        text = th_read_file(f->file, NULL);
    }
    assert_non_null(text);
    {
        char *m = strstr(text, "\"model\":\"");
        assert_non_null(m);
        memset(m + 9, '0', 64);
        th_write_file(other, text);
    }
    th_write_file(colors, "{\"kind\":\"colors\",\"hue\":[0,10,25,60,105,140],"
                          "\"sat\":[200,200,200,200,200,200]}\n");
    assert_int_equal(th_tablecam(&r, NULL,
                                 (const char *[]){"recognize", "--game", "qwirkle", "--pieces",
                                                  "nosuch", "--db", f->db, f->photo[0], NULL}),
                     0);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "nosuch"));
    th_run_free(&r);
    assert_int_equal(th_tablecam(&r, NULL,
                                 (const char *[]){"recognize", "--game", "qwirkle", "--pieces",
                                                  colors, f->photo[0], NULL}),
                     0);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "not a pieces profile"));
    th_run_free(&r);
    assert_int_equal(th_tablecam(&r, NULL,
                                 (const char *[]){"recognize", "--game", "qwirkle", "--pieces",
                                                  other, f->photo[0], NULL}),
                     0);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "another model"));
    th_run_free(&r);
    assert_int_equal(th_tablecam(&r, NULL,
                                 (const char *[]){"watch", "--game", "qwirkle", "--camera",
                                                  "sim:qwirkle:seed=3", "--players", "A,B",
                                                  "--pieces", other, "--db", db, "--no-keys",
                                                  NULL}),
                     0);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "another model"));
    th_run_free(&r);
    assert_int_equal(th_tablecam(&r, NULL, (const char *[]){"matches", "--db", db, NULL}), 0);
    assert_null(strstr(r.out, "qwirkle"));
    th_run_free(&r);
    free(text);
    free(colors);
    free(other);
    free(db);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_enrol_store_and_read),
        cmocka_unit_test(test_enrol_refusals),
        cmocka_unit_test(test_bad_pieces_option),
    };
    th_case_filter();
    return cmocka_run_group_tests(tests, setup, teardown);
}
