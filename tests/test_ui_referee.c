/* tests/test_ui_referee.c: `tablecam referee --game qwirkle FILE|-` end to
 * end (FORMATS.md 3), on hand-typed records in tests/data/qwirkle/: each
 * NAME.jsonl has NAME.expected.jsonl beside it, one object per output line
 * holding the keys that line must have (with their values); reasons are
 * checked by fragment below.  Then unreadable records: exit 2 and a message
 * with the line number. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "harness.h"

static char *data_path(const char *name)
{
    return th_path(TABLECAM_TEST_DATA "/qwirkle", name);
}

static void run_referee(th_run *r, const char *stdin_text, const char *file)
{
    assert_int_equal(th_tablecam(r, stdin_text,
                                 (const char *[]){"referee", "--game", "qwirkle", file, NULL}),
                     0);
}

/* Every key of each expected line is in the output line with that value;
 * the output has exactly as many lines. */
static void expect_lines(const char *out, const char *expected, const char *what)
{
    int n = th_count_lines(expected);
    if (th_count_lines(out) != n)
        fail_msg("%s: %d output lines, %d expected:\n%s", what, th_count_lines(out), n, out);
    for (int i = 0; i < n; i++) {
        char *el = th_line(expected, i), *ol = th_line(out, i);
        cJSON *e = cJSON_Parse(el), *o = cJSON_Parse(ol), *it;
        assert_non_null(e);
        if (!o)
            fail_msg("%s line %d is not JSON: %s", what, i + 1, ol);
        cJSON_ArrayForEach(it, e) {
            cJSON *got = cJSON_GetObjectItemCaseSensitive(o, it->string);
            if (!got || !cJSON_Compare(it, got, true))
                fail_msg("%s line %d: \"%s\" differs\n  expected %s\n  got      %s", what, i + 1,
                         it->string, el, ol);
        }
        /* A legal verdict has no rule; an illegal one has rule and reason. */
        if (cJSON_IsFalse(cJSON_GetObjectItem(o, "legal"))) {
            assert_non_null(cJSON_GetObjectItem(o, "reason"));
            assert_null(cJSON_GetObjectItem(o, "points"));
        } else if (cJSON_IsTrue(cJSON_GetObjectItem(o, "legal"))) {
            assert_null(cJSON_GetObjectItem(o, "rule"));
        }
        cJSON_Delete(e);
        cJSON_Delete(o);
        free(el);
        free(ol);
    }
}

static void check_record(const char *name, th_run *r)
{
    char file[64], expf[80];
    char *path, *epath, *expected;
    snprintf(file, sizeof file, "%s.jsonl", name);
    snprintf(expf, sizeof expf, "%s.expected.jsonl", name);
    path = data_path(file);
    epath = data_path(expf);
    expected = th_read_file(epath, NULL);
    assert_non_null(expected);
    run_referee(r, NULL, path);
    if (r->status != 0)
        fail_msg("%s: exit %d: %s", name, r->status, r->err);
    expect_lines(r->out, expected, name);
    free(expected);
    free(path);
    free(epath);
}

/* The reason of output line k (0-based) holds frag. */
static void expect_reason(const th_run *r, int k, const char *frag)
{
    char *l = th_line(r->out, k);
    cJSON *o = cJSON_Parse(l);
    const cJSON *reason = cJSON_GetObjectItem(o, "reason");
    if (!cJSON_IsString(reason) || !strstr(reason->valuestring, frag))
        fail_msg("line %d: no \"%s\" in the reason: %s", k + 1, frag, l);
    cJSON_Delete(o);
    free(l);
}

static void test_scoring_record(void **state)
{
    th_run r;
    (void)state;
    check_record("scoring", &r);
    expect_reason(&r, 1, "the row at y=0 would hold two red circles");
    expect_reason(&r, 2, "(3,1)");
    expect_reason(&r, 10, "gap at (2,2)");
    expect_reason(&r, 11, "green circle and a blue square");
    expect_reason(&r, 12, "7 cubes long");
    expect_reason(&r, 13, "(1,2)");
    expect_reason(&r, 14, "(2,3)");
    th_run_free(&r);
}

static void test_hands_record(void **state)
{
    th_run r;
    (void)state;
    check_record("hands", &r);
    expect_reason(&r, 0, "3 (the red ones), not 2");
    expect_reason(&r, 2, "shows 5 cubes");
    expect_reason(&r, 3, "no red clover");
    th_run_free(&r);
}

static void test_endgame_record(void **state)
{
    th_run r;
    (void)state;
    check_record("endgame", &r);
    expect_reason(&r, 17, "bag is empty");
    expect_reason(&r, 18, "holds 3 cubes");
    th_run_free(&r);
}

static void test_deadlock_record(void **state)
{
    th_run r;
    (void)state;
    check_record("deadlock", &r);
    th_run_free(&r);
}

/* The same record on standard input gives the same lines. */
static void test_stdin(void **state)
{
    th_run a, b;
    char *path = data_path("scoring.jsonl"), *text = th_read_file(path, NULL);
    (void)state;
    assert_non_null(text);
    run_referee(&a, NULL, path);
    run_referee(&b, text, "-");
    assert_int_equal(b.status, 0);
    assert_string_equal(a.out, b.out);
    th_run_free(&a);
    th_run_free(&b);
    free(text);
    free(path);
}

/* A record that cannot be read: exit 2, the line number and what is wrong
 * on stderr; the lines before it were already judged. */
static void expect_unreadable(const char *text, int verdicts, const char *line,
                              const char *frag)
{
    th_run r;
    run_referee(&r, text, "-");
    if (r.status != 2)
        fail_msg("exit %d, not 2, for:\n%s\nstderr: %s", r.status, text, r.err);
    if (!strstr(r.err, line) || !strstr(r.err, frag))
        fail_msg("stderr \"%s\" lacks \"%s\" or \"%s\"", r.err, line, frag);
    assert_int_equal(th_count_lines(r.out), verdicts);
    th_run_free(&r);
}

#define HDR "{\"game\":\"qwirkle\",\"players\":[\"Ann\",\"Bob\"]}\n"
#define GOOD                                                                                   \
    "{\"player\":0,\"move\":{\"type\":\"place\",\"pieces\":[{\"x\":0,\"y\":0,\"color\":\"red\"," \
    "\"shape\":\"circle\"},{\"x\":1,\"y\":0,\"color\":\"red\",\"shape\":\"square\"}]}}\n"

static void test_malformed_records(void **state)
{
    (void)state;
    expect_unreadable(HDR GOOD "{\"player\":1,\"move\":{\"type\":\"reroll\"\n", 1, "line 3",
                      "not valid JSON");
    expect_unreadable(HDR "{\"player\":0,\"move\":{\"type\":\"place\",\"pieces\":[{\"x\":0,"
                          "\"y\":0,\"color\":\"pink\",\"shape\":\"circle\"}]}}\n",
                      0, "line 2", "unknown colour \"pink\"");
    expect_unreadable(HDR GOOD "{\"player\":1,\"move\":{\"type\":\"place\",\"pieces\":[{\"x\":2,"
                               "\"y\":0,\"color\":\"red\"}]}}\n",
                      1, "line 3", "missing \"shape\"");
    expect_unreadable(HDR "{\"player\":0}\n", 0, "line 2", "\"move\"");
    expect_unreadable(HDR GOOD "{\"player\":1,\"move\":{\"type\":\"place\",\"pieces\":[{\"x\":"
                               "1e10,\"y\":0,\"color\":\"red\",\"shape\":\"clover\"}]}}\n",
                      1, "line 3", "piece 1: \"x\" must be a whole number");
    expect_unreadable(HDR "{\"player\":-1e300,\"move\":{\"type\":\"reroll\"}}\n", 0, "line 2",
                      "\"player\" must be a whole number");
    expect_unreadable(HDR "{\"move\":{\"type\":\"reroll\"}}\n", 0, "line 2", "\"player\"");
    expect_unreadable(HDR "{\"player\":0,\"move\":{\"type\":\"pass\"}}\n", 0, "line 2",
                      "unknown move type \"pass\"");
    expect_unreadable(HDR "{\"player\":5,\"move\":{\"type\":\"reroll\"}}\n", 0, "line 2",
                      "not a seat");
    expect_unreadable("{\"game\":\"qwirkle\",\"players\":[\"Ann\",\"Bob\"],\"options\":"
                      "{\"foo\":true}}\n",
                      0, "line 1", "unknown option \"foo\"");
    expect_unreadable("{\"game\":\"qwirkle\",\"players\":[\"Ann\"]}\n", 0, "line 1", "2 to 4");
    expect_unreadable("{\"game\":\"cards\",\"players\":[\"Ann\",\"Bob\"]}\n", 0, "line 1",
                      "cards");
    expect_unreadable("", 0, "empty", "header");
}

static void test_missing_file(void **state)
{
    th_run r;
    (void)state;
    run_referee(&r, NULL, "/nonexistent/qwirkle.jsonl");
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "/nonexistent/qwirkle.jsonl"));
    th_run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scoring_record),
        cmocka_unit_test(test_hands_record),
        cmocka_unit_test(test_endgame_record),
        cmocka_unit_test(test_deadlock_record),
        cmocka_unit_test(test_stdin),
        cmocka_unit_test(test_malformed_records),
        cmocka_unit_test(test_missing_file),
    };
    th_case_filter();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
