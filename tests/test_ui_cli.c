/* tests/test_ui_cli.c: the `tablecam` command line, driven as a user would:
 * help, version, unknown commands and flags. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "base.h"
#include "harness.h"

static void test_version(void **state)
{
    th_run r;
    (void)state;
    assert_int_equal(th_tablecam(&r, NULL, (const char *[]){"--version", NULL}), 0);
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, "tablecam " TABLECAM_VERSION "\n");
    th_run_free(&r);
    assert_int_equal(th_tablecam(&r, NULL, (const char *[]){"version", NULL}), 0);
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, "tablecam " TABLECAM_VERSION "\n");
    th_run_free(&r);
}

static void test_help_lists_commands(void **state)
{
    th_run r;
    (void)state;
    assert_int_equal(th_tablecam(&r, NULL, (const char *[]){"help", NULL}), 0);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "referee"));
    assert_non_null(strstr(r.out, "usage: tablecam"));
    th_run_free(&r);
    assert_int_equal(th_tablecam(&r, NULL, (const char *[]){"help", "referee", NULL}), 0);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "usage: tablecam referee --game G FILE|-"));
    th_run_free(&r);
}

static void test_unknown_command_exits_2(void **state)
{
    th_run r;
    (void)state;
    assert_int_equal(th_tablecam(&r, NULL, (const char *[]){"frobnicate", NULL}), 0);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "unknown command 'frobnicate'"));
    assert_non_null(strstr(r.err, "usage:"));
    th_run_free(&r);
    assert_int_equal(th_tablecam(&r, NULL, NULL), 0);
    assert_int_equal(r.status, 2);
    th_run_free(&r);
}

static void test_bad_flag_exits_2(void **state)
{
    th_run r;
    (void)state;
    assert_int_equal(th_tablecam(&r, NULL, (const char *[]){"referee", "--gmae", "qwirkle", "-", NULL}), 0);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "unknown option '--gmae'"));
    assert_non_null(strstr(r.err, "usage: tablecam referee"));
    th_run_free(&r);
    assert_int_equal(th_tablecam(&r, NULL, (const char *[]){"referee", "--game", NULL}), 0);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "needs a value"));
    th_run_free(&r);
    assert_int_equal(th_tablecam(&r, NULL, (const char *[]){"--bogus", NULL}), 0);
    assert_int_equal(r.status, 2);
    th_run_free(&r);
    assert_int_equal(th_tablecam(&r, NULL, (const char *[]){"version", "extra", NULL}), 0);
    assert_int_equal(r.status, 2);
    th_run_free(&r);
}

static void test_referee_unknown_game(void **state)
{
    th_run r;
    (void)state;
    assert_int_equal(th_tablecam(&r, "", (const char *[]){"referee", "--game", "chess", "-", NULL}), 0);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "unknown game 'chess'"));
    th_run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_version),
        cmocka_unit_test(test_help_lists_commands),
        cmocka_unit_test(test_unknown_command_exits_2),
        cmocka_unit_test(test_bad_flag_exits_2),
        cmocka_unit_test(test_referee_unknown_game),
    };
    th_case_filter();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
