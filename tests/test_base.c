/* tests/test_base.c: error codes, error details, the logger and the seeded
 * generator. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "base.h"
#include "harness.h"

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
    /* thread CPU time grows with work done */
    {
        volatile double x = 0;
        double c0 = base_cpu_now(), c1;
        for (int i = 0; i < 3000000; i++)
            x += i * 0.5;
        c1 = base_cpu_now();
        assert_true(x > 0);
        assert_true(c1 > c0);
        assert_true(c0 >= 0);
    }
}

/* splitmix64's published first outputs (the reference implementation's
 * test vector for seed 1234567, and seed 0). */
static void test_rng_known_outputs(void **state)
{
    static const uint64_t want[5] = {6457827717110365317ull, 3203168211198807973ull,
                                     9817491932198370423ull, 4593380528125082431ull,
                                     16408922859458223821ull};
    base_rng r = {1234567}, z = {0};
    (void)state;
    for (int i = 0; i < 5; i++)
        assert_true(base_rng_next(&r) == want[i]);
    assert_true(base_rng_next(&z) == 0xe220a8397b1dcdafull);
    assert_true(base_rng_next(&z) == 0x6e789e6aa1b965f4ull);
}

/* The state is the caller's word: equal seeds give equal sequences, and
 * below() is next() modulo n (the sequences the old copies gave). */
static void test_rng_reproducible(void **state)
{
    base_rng a = {2024}, b = {2024}, c = {2025};
    int differ = 0;
    (void)state;
    for (int i = 0; i < 100; i++) {
        uint64_t x = base_rng_next(&a), y = base_rng_next(&b);
        assert_true(x == y);
        differ += x != base_rng_next(&c);
    }
    assert_int_equal(differ, 100);
    for (int n = 1; n < 50; n++) {
        base_rng d = a;
        assert_int_equal(base_rng_below(&a, n), (int)(base_rng_next(&d) % (uint64_t)n));
        assert_true(a.s == d.s);
    }
}

static void test_rng_ranges(void **state)
{
    base_rng r = {7};
    int seen[7] = {0};
    double sum = 0, lo = 1, hi = 0;
    (void)state;
    for (int i = 0; i < 7000; i++) {
        int k = base_rng_below(&r, 7);
        assert_true(k >= 0 && k < 7);
        seen[k]++;
    }
    for (int k = 0; k < 7; k++) /* about 1000 each */
        assert_true(seen[k] > 800 && seen[k] < 1200);
    for (int i = 0; i < 100; i++)
        assert_int_equal(base_rng_below(&r, 1), 0);
    for (int i = 0; i < 10000; i++) {
        double u = base_rng_unit(&r);
        assert_true(u >= 0.0 && u < 1.0);
        sum += u;
        lo = u < lo ? u : lo;
        hi = u > hi ? u : hi;
    }
    assert_true(sum / 10000 > 0.48 && sum / 10000 < 0.52);
    assert_true(lo < 0.01 && hi > 0.99);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_strerror),
        cmocka_unit_test(test_err_set_and_prefix),
        cmocka_unit_test(test_log_levels),
        cmocka_unit_test(test_clock_monotonic),
        cmocka_unit_test(test_rng_known_outputs),
        cmocka_unit_test(test_rng_reproducible),
        cmocka_unit_test(test_rng_ranges),
    };
    th_case_filter();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
