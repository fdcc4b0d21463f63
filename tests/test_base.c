/* tests/test_base.c: error codes, error details and the logger. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "base.h"

static void test_strerror(void **state)
{
    (void)state;
    assert_string_equal(base_strerror(BASE_OK), "ok");
    assert_string_equal(base_strerror(BASE_EPARSE), "malformed input");
    assert_string_equal(base_strerror(BASE_ENOMEM), "out of memory");
    assert_string_equal(base_strerror(-9999), "unknown error");
    assert_true(BASE_EEOF < 0);
}

static void test_err_set_and_prefix(void **state)
{
    base_err e;
    (void)state;
    base_err_clear(&e);
    assert_int_equal(e.code, 0);
    assert_int_equal(base_err_set(&e, BASE_EPARSE, "unknown colour '%s'", "pink"), BASE_EPARSE);
    assert_int_equal(e.code, BASE_EPARSE);
    base_err_prefix(&e, "line %d: ", 3);
    assert_string_equal(e.msg, "line 3: unknown colour 'pink'");
    /* NULL is allowed everywhere. */
    assert_int_equal(base_err_set(NULL, BASE_EIO, "x"), BASE_EIO);
    base_err_prefix(NULL, "y");
}

static void test_log_levels(void **state)
{
    (void)state;
    assert_int_equal(base_log_parse_level("debug"), BASE_LOG_DEBUG);
    assert_int_equal(base_log_parse_level("off"), BASE_LOG_OFF);
    assert_int_equal(base_log_parse_level("loud"), -1);
    assert_int_equal(base_log_parse_level(NULL), -1);
    base_log_set_level(BASE_LOG_ERROR);
    assert_int_equal(base_log_level(), BASE_LOG_ERROR);
    base_log_set_level(99);
    assert_int_equal(base_log_level(), BASE_LOG_OFF);
    BASE_ERROR("test", "not shown at level off");
    base_log_set_level(BASE_LOG_WARN);
}

static void test_clock_monotonic(void **state)
{
    (void)state;
    double a = base_now(), b = base_now();
    assert_true(b >= a);
    assert_true(a > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_strerror),
        cmocka_unit_test(test_err_set_and_prefix),
        cmocka_unit_test(test_log_levels),
        cmocka_unit_test(test_clock_monotonic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
