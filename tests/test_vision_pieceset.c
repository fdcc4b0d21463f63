/* tests/test_vision_pieceset.c: an enrolled set's prototypes
 * (vision/pieceset.h) on made-up features of the shipped model's size:
 * a set the classifier confuses is put right, a set it reads already gets
 * no weight, the JSON keeps what the set does, and what is wrong (too few
 * pieces, another model, a broken document) is refused, naming it; a
 * value left out of an enrolment keeps the classifier's probability.  Also
 * the classifier's features themselves (vis_classifier_run_features). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classify.h"
#include "harness.h"
#include "pieceset.h"

#define NF 64
#define NV 12

/* The model's spread of one feature across cameras (its manifest's), as a
 * standard deviation: the made-up features are measured in it. */
static double unit = 1;

static vis_classifier *builtin(void)
{
    vis_classifier *c = NULL;
    base_err e;
    if (vis_classifier_builtin("qwirkle", &c, &e) != 0)
        fail_msg("%s", e.msg);
    assert_int_equal(vis_classifier_nfeatures(c), NF);
    if (vis_classifier_feature_spread(c, 0) > 0)
        unit = sqrt(vis_classifier_feature_spread(c, 0));
    return c;
}

/* A small deterministic noise in [-1, 1). */
static double noise(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return ((*s >> 8) & 0xffff) / 32768.0 - 1;
}

/* Features of a piece of shape sh and colour co: each value has a
 * direction of its own, 4 spreads long, plus noise of the given size (in
 * spreads). */
static void features(int sh, int co, double amount, unsigned *s, float *f)
{
    for (int k = 0; k < NF; k++)
        f[k] = (float)(amount * unit * noise(s));
    f[sh] += (float)(4 * unit);
    f[10 + co] += (float)(4 * unit);
}

/* The classifier's opinion: colours right and sure; shapes right too,
 * except that when confuse is set every clover is read as a diamond. */
static void opinion(int sh, int co, bool confuse, float *p)
{
    int said = confuse && sh == 3 ? 2 : sh;
    for (int v = 0; v < 6; v++) {
        p[v] = v == said ? 0.9f : 0.02f;
        p[6 + v] = v == co ? 0.95f : 0.01f;
    }
}

/* A set of the six shapes x six colours, as six enrolment photos give. */
static vis_pieceset *enrol(vis_classifier *c, bool confuse, unsigned seed)
{
    vis_pieceset *s = NULL;
    base_err e;
    float f[NF], p[NV];
    assert_int_equal(vis_pieceset_new(c, &s, &e), 0);
    for (int sh = 0; sh < 6; sh++)
        for (int co = 0; co < 6; co++) {
            int values[2] = {sh, co};
            features(sh, co, 0.3, &seed, f);
            opinion(sh, co, confuse, p);
            assert_int_equal(vis_pieceset_add(s, f, p, values, &e), 0);
        }
    if (vis_pieceset_finish(s, &e) != 0)
        fail_msg("%s", e.msg);
    return s;
}

/* The classifier reads every clover of this set as a diamond; the set's
 * own pieces say otherwise, so the enrolment weighs them and a new
 * clover is read as one, surely.  Colours it already read keep theirs. */
static void test_confused_set_is_put_right(void **state)
{
    vis_classifier *c = builtin();
    vis_pieceset *s = enrol(c, true, 7);
    unsigned seed = 99;
    float f[NF], p[NV];
    (void)state;
    /* the shipped model measured its spread: the likelihood is Gaussian
     * (weight 1) with it, not fitted to the photos */
    assert_true(vis_classifier_feature_spread(c, 0) > 0);
    assert_true(vis_pieceset_weight(s, 0) == 1);
    assert_int_equal(vis_pieceset_count(s, 0, 3), 6);
    assert_int_equal(vis_pieceset_count(s, 1, 5), 6);
    for (int i = 0; i < 6; i++) {
        features(3, i, 0.3, &seed, f);
        opinion(3, i, true, p);
        vis_pieceset_apply(s, f, p);
        assert_true(p[3] > 0.9f);
        assert_true(p[6 + i] > 0.9f);
        float sum = 0;
        for (int v = 0; v < 6; v++)
            sum += p[v];
        assert_float_equal(sum, 1, 1e-4);
    }
    /* a diamond stays a diamond */
    features(2, 0, 0.3, &seed, f);
    opinion(2, 0, true, p);
    vis_pieceset_apply(s, f, p);
    assert_true(p[2] > 0.9f);
    vis_pieceset_free(s);
    vis_classifier_free(c);
}

/* A set the classifier reads right, whose features say nothing (pure
 * noise): the enrolment finds no gain and adds nothing. */
static void test_uninformative_set_adds_nothing(void **state)
{
    vis_classifier *c = builtin();
    vis_pieceset *s = NULL;
    base_err e;
    unsigned seed = 3;
    float f[NF], p[NV], q[NV];
    (void)state;
    assert_int_equal(vis_pieceset_new(c, &s, &e), 0);
    for (int sh = 0; sh < 6; sh++)
        for (int co = 0; co < 6; co++) {
            int values[2] = {sh, co};
            for (int k = 0; k < NF; k++)
                f[k] = (float)(unit * noise(&seed));
            opinion(sh, co, false, p);
            assert_int_equal(vis_pieceset_add(s, f, p, values, &e), 0);
        }
    assert_int_equal(vis_pieceset_finish(s, &e), 0);
    assert_true(vis_pieceset_weight(s, 0) == 0);
    assert_true(vis_pieceset_weight(s, 1) == 0);
    opinion(4, 1, false, p);
    memcpy(q, p, sizeof q);
    vis_pieceset_apply(s, f, p);
    assert_memory_equal(p, q, sizeof q);
    vis_pieceset_free(s);
    vis_classifier_free(c);
}

/* Saved and read back, a set judges as before; the game comes back. */
static void test_json_round_trip(void **state)
{
    vis_classifier *c = builtin();
    vis_pieceset *s = enrol(c, true, 11), *t = NULL;
    char *json = NULL, game[16];
    base_err e;
    unsigned seed = 5;
    float f[NF], a[NV], b[NV];
    (void)state;
    assert_int_equal(vis_pieceset_to_json(s, "qwirkle", &json, &e), 0);
    assert_non_null(strstr(json, "\"kind\":\"pieces\""));
    if (vis_pieceset_from_json(json, &t, game, sizeof game, &e) != 0)
        fail_msg("%s", e.msg);
    assert_string_equal(game, "qwirkle");
    assert_int_equal(vis_pieceset_check(t, c, &e), 0);
    assert_float_equal(vis_pieceset_weight(t, 0), vis_pieceset_weight(s, 0), 1e-6);
    for (int i = 0; i < 6; i++) {
        features(3, i, 0.3, &seed, f);
        opinion(3, i, true, a);
        memcpy(b, a, sizeof b);
        vis_pieceset_apply(s, f, a);
        vis_pieceset_apply(t, f, b);
        for (int v = 0; v < NV; v++)
            assert_float_equal(a[v], b[v], 1e-4);
    }
    free(json);
    vis_pieceset_free(s);
    vis_pieceset_free(t);
    vis_classifier_free(c);
}

/* Too few pieces of a value: refused, naming it; values out of range and
 * pieces after the finish likewise. */
static void test_too_few_and_bad_values(void **state)
{
    vis_classifier *c = builtin();
    vis_pieceset *s = NULL;
    base_err e;
    unsigned seed = 1;
    float f[NF], p[NV];
    int bad[2] = {6, 0}, values[2];
    (void)state;
    assert_int_equal(vis_pieceset_new(c, &s, &e), 0);
    features(0, 0, 0.3, &seed, f);
    opinion(0, 0, false, p);
    assert_int_equal(vis_pieceset_add(s, f, p, bad, &e), BASE_EINVAL);
    assert_non_null(strstr(e.msg, "shape"));
    /* every shape but star8 twice, in red and orange */
    for (int sh = 0; sh < 5; sh++)
        for (int co = 0; co < 2; co++) {
            values[0] = sh;
            values[1] = co;
            assert_int_equal(vis_pieceset_add(s, f, p, values, &e), 0);
        }
    assert_int_equal(vis_pieceset_finish(s, &e), BASE_ENOTFOUND);
    assert_non_null(strstr(e.msg, "star8"));
    vis_pieceset_free(s);

    s = enrol(c, false, 2);
    values[0] = values[1] = 0;
    assert_int_equal(vis_pieceset_add(s, f, p, values, &e), BASE_EINVAL);
    assert_non_null(strstr(e.msg, "finished"));
    vis_pieceset_free(s);
    vis_classifier_free(c);
}

/* A set enrolled with one model is refused by another; a model without
 * features cannot enrol at all. */
static void test_other_model_refused(void **state)
{
    vis_classifier *c = builtin(), *held = NULL, *tiny = NULL;
    vis_pieceset *s = enrol(c, false, 4), *t = NULL;
    base_err e;
    (void)state;
    if (vis_classifier_new(TABLECAM_SOURCE_DIR "/models/qwirkle-held.onnx", &held, &e) != 0)
        fail_msg("%s", e.msg);
    assert_int_equal(vis_pieceset_check(s, held, &e), BASE_EINVAL);
    assert_non_null(strstr(e.msg, "another model"));
    if (vis_classifier_new(TABLECAM_TEST_DATA "/classify-test.onnx", &tiny, &e) != 0)
        fail_msg("%s", e.msg);
    assert_int_equal(vis_classifier_nfeatures(tiny), 0);
    assert_int_equal(vis_pieceset_new(tiny, &t, &e), BASE_EUNSUPPORTED);
    assert_null(t);
    vis_pieceset_free(s);
    vis_classifier_free(held);
    vis_classifier_free(tiny);
    vis_classifier_free(c);
}

/* Broken documents name what is wrong. */
static void test_bad_json(void **state)
{
    vis_classifier *c = builtin();
    vis_pieceset *s = enrol(c, false, 8), *t = NULL;
    char *json = NULL, *bad;
    base_err e;
    (void)state;
    assert_int_equal(vis_pieceset_to_json(s, "qwirkle", &json, &e), 0);
    assert_int_equal(vis_pieceset_from_json("{", &t, NULL, 0, &e), BASE_EPARSE);
    assert_int_equal(vis_pieceset_from_json("{\"kind\":\"colors\"}", &t, NULL, 0, &e),
                     BASE_EPARSE);
    assert_non_null(strstr(e.msg, "kind"));
    /* a mean one number short */
    bad = malloc(strlen(json) + 1);
    strcpy(bad, json);
    {
        char *m = strstr(bad, "\"mean\":[");
        char *comma = strchr(m, ',');
        memmove(m + 8, comma + 1, strlen(comma + 1) + 1);
    }
    assert_int_equal(vis_pieceset_from_json(bad, &t, NULL, 0, &e), BASE_EPARSE);
    assert_non_null(strstr(e.msg, "mean"));
    assert_null(t);
    free(bad);
    free(json);
    vis_pieceset_free(s);
    vis_classifier_free(c);
}

/* The features come with the same probabilities as vis_classifier_run,
 * one batch as patch by patch, and are the ReLU embedding (never
 * negative, not all zero). */
static void test_run_features(void **state)
{
    vis_classifier *c = builtin(), *tiny = NULL;
    vis_image *p[3] = {NULL};
    float pr[3 * NV], pf[3 * NV], f[3 * NF], one[NF], p1[NV];
    base_err e;
    (void)state;
    for (int i = 0; i < 3; i++) {
        assert_int_equal(vis_image_new(32, 32, 3, &p[i], &e), 0);
        for (int y = 0; y < 32; y++)
            for (int x = 0; x < 96; x++)
                p[i]->data[(size_t)y * p[i]->stride + x] = (unsigned char)(x * (3 + i) + y * 7);
    }
    assert_int_equal(vis_classifier_run(c, (const vis_image *const *)p, 3, pr, &e), 0);
    assert_int_equal(vis_classifier_run_features(c, (const vis_image *const *)p, 3, pf, f, &e), 0);
    for (int v = 0; v < 3 * NV; v++)
        assert_float_equal(pr[v], pf[v], 1e-6);
    for (int i = 0; i < 3; i++) {
        double sum = 0;
        assert_int_equal(
            vis_classifier_run_features(c, (const vis_image *const *)&p[i], 1, p1, one, &e), 0);
        for (int k = 0; k < NF; k++) {
            assert_true(one[k] >= 0);
            assert_float_equal(one[k], f[i * NF + k], 1e-4);
            sum += one[k];
        }
        assert_true(sum > 0);
    }
    {
        /* the digest is the shipped file's, as its manifest says */
        char *m = th_read_file(TABLECAM_SOURCE_DIR "/models/qwirkle.json", NULL);
        char want[80];
        const char *at = m ? strstr(m, "\"sha256\": \"") : NULL;
        assert_non_null(at);
        snprintf(want, sizeof want, "%.64s", at + 11);
        assert_string_equal(vis_classifier_digest(c), want);
        free(m);
    }
    if (vis_classifier_new(TABLECAM_TEST_DATA "/classify-test.onnx", &tiny, &e) != 0)
        fail_msg("%s", e.msg);
    assert_int_equal(
        vis_classifier_run_features(tiny, (const vis_image *const *)p, 1, pf, f, &e),
        BASE_EUNSUPPORTED);
    for (int i = 0; i < 3; i++)
        vis_image_free(p[i]);
    vis_classifier_free(tiny);
    vis_classifier_free(c);
}

/* A set that never shows star8s (as cube2's never shows a covered
 * square): the value is left out, the shape head still finishes, a patch
 * keeps the classifier's probability of star8 while the set puts the
 * clover right among the rest, and the JSON keeps it so. */
static void test_left_value_is_not_judged(void **state)
{
    vis_classifier *c = builtin();
    vis_pieceset *s = NULL, *back = NULL;
    base_err e;
    unsigned seed = 5;
    float f[NF], p[NV], q[NV];
    int values[2];
    char *json = NULL;
    (void)state;
    assert_int_equal(vis_pieceset_new(c, &s, &e), 0);
    assert_int_equal(vis_pieceset_leave(s, 0, 5, &e), 0);
    for (int sh = 0; sh < 5; sh++)
        for (int co = 0; co < 6; co++) {
            values[0] = sh;
            values[1] = co;
            features(sh, co, 0.3, &seed, f);
            opinion(sh, co, true, p);
            assert_int_equal(vis_pieceset_add(s, f, p, values, &e), 0);
        }
    values[0] = 5;
    assert_int_equal(vis_pieceset_add(s, f, p, values, &e), BASE_EINVAL);
    assert_non_null(strstr(e.msg, "star8"));
    values[0] = 0;
    assert_int_equal(vis_pieceset_leave(s, 0, 0, &e), BASE_EINVAL); /* it has pieces */
    assert_int_equal(vis_pieceset_finish(s, &e), 0);
    assert_true(vis_pieceset_weight(s, 0) > 0);
    features(3, 1, 0.3, &seed, f);
    for (int v = 0; v < NV; v++)
        p[v] = 0.02f;
    p[2] = 0.5f;  /* diamond, as the classifier confuses it */
    p[3] = 0.12f; /* clover */
    p[4] = 0.04f;
    p[5] = 0.3f; /* star8: left out (the shapes sum to 1) */
    p[7] = 0.86f;
    memcpy(q, p, sizeof q);
    vis_pieceset_apply(s, f, p);
    assert_float_equal(p[5], 0.3f, 1e-4);
    assert_true(p[3] > 0.6f);
    {
        float sum = 0;
        for (int v = 0; v < 6; v++)
            sum += p[v];
        assert_float_equal(sum, 1, 1e-4);
    }
    assert_int_equal(vis_pieceset_to_json(s, "qwirkle", &json, &e), 0);
    assert_non_null(strstr(json, "\"left\":true"));
    assert_int_equal(vis_pieceset_from_json(json, &back, NULL, 0, &e), 0);
    vis_pieceset_apply(back, f, q);
    for (int v = 0; v < NV; v++)
        assert_float_equal(q[v], p[v], 1e-4);
    assert_int_equal(vis_pieceset_leave(back, 0, 4, &e), BASE_EINVAL); /* finished */
    vis_pieceset_free(back);
    free(json);
    vis_pieceset_free(s);

    /* a head cannot be left with fewer than two values to judge */
    assert_int_equal(vis_pieceset_new(c, &s, &e), 0);
    for (int v = 0; v < 4; v++)
        assert_int_equal(vis_pieceset_leave(s, 0, v, &e), 0);
    assert_int_equal(vis_pieceset_leave(s, 0, 4, &e), BASE_EINVAL);
    assert_non_null(strstr(e.msg, "fewer than 2"));
    vis_pieceset_free(s);
    vis_classifier_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_confused_set_is_put_right),
        cmocka_unit_test(test_uninformative_set_adds_nothing),
        cmocka_unit_test(test_json_round_trip),
        cmocka_unit_test(test_left_value_is_not_judged),
        cmocka_unit_test(test_too_few_and_bad_values),
        cmocka_unit_test(test_other_model_refused),
        cmocka_unit_test(test_bad_json),
        cmocka_unit_test(test_run_features),
    };
    th_case_filter();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
