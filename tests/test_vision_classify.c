/* tests/test_vision_classify.c: the patch classifier (vision/classify.h)
 * on the tiny random model of models/make_test_model.py: its manifest, its
 * probabilities against torch's, batches against single patches, and the
 * errors for bad files and bad patches.  Also the SHA-256 behind the
 * manifest check (vision/sha256.h, Nettle's), on the FIPS 180-4 examples. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classify.h"
#include "harness.h"
#include "rules.h"
#include "sha256.h"

#define MODEL TABLECAM_TEST_DATA "/classify-test.onnx"
#define MANIFEST TABLECAM_TEST_DATA "/classify-test.json"
#define S 24
#define NV 12 /* 6 shapes + 6 colours */

/* ---- helpers ---- */

static vis_classifier *load(void)
{
    vis_classifier *c = NULL;
    base_err e;
    int rc = vis_classifier_new(MODEL, &c, &e);
    if (rc)
        fail_msg("%s", e.msg);
    assert_non_null(c);
    return c;
}

static cJSON *read_manifest(void)
{
    char *text = th_read_file(MANIFEST, NULL);
    assert_non_null(text);
    cJSON *j = cJSON_Parse(text);
    free(text);
    assert_non_null(j);
    return j;
}

/* A new S x S BGR patch, pixel (x, y) channel c = f(x, y, c, k). */
static vis_image *make_patch(int k)
{
    vis_image *p = NULL;
    base_err e;
    assert_int_equal(vis_image_new(S, S, 3, &p, &e), 0);
    for (int y = 0; y < S; y++)
        for (int x = 0; x < S; x++)
            for (int c = 0; c < 3; c++)
                p->data[y * p->stride + x * 3 + c] =
                    (unsigned char)((x * (5 + k) + y * (11 + 3 * k) +
                                     c * (40 + 17 * k) + 31 * k * (x > y)) %
                                    256);
    return p;
}

static void write_bytes(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

/* Writes model bytes and the manifest j (sha256 replaced by the digest of
 * the bytes when fix_sha) as dir/m.onnx and dir/m.json; returns the .onnx
 * path (free it). */
static char *write_model(const char *dir, const void *onnx, size_t n,
                         cJSON *j, int fix_sha)
{
    char *op = th_path(dir, "m.onnx"), *jp = th_path(dir, "m.json");
    write_bytes(op, onnx, n);
    if (fix_sha) {
        char hex[65];
        vis__sha256_hex(onnx, n, hex);
        cJSON_ReplaceItemInObjectCaseSensitive(j, "sha256",
                                               cJSON_CreateString(hex));
    }
    char *text = cJSON_Print(j);
    assert_int_equal(th_write_file(jp, text), 0);
    free(text);
    free(jp);
    return op;
}

static int expect_load_error(const char *path, int code, const char *needle)
{
    vis_classifier *c = (vis_classifier *)0x1;
    base_err e;
    base_err_clear(&e);
    int rc = vis_classifier_new(path, &c, &e);
    if (rc != code || !strstr(e.msg, needle) || c != (vis_classifier *)0x1)
        fail_msg("load %s: rc %d (want %d), message \"%s\" (want \"%s\")",
                 path, rc, code, e.msg, needle);
    return rc;
}

/* ---- SHA-256 ---- */

static void test_sha256_vectors(void **state)
{
    char hex[65];
    (void)state;
    vis__sha256_hex("", 0, hex);
    assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb924"
                             "27ae41e4649b934ca495991b7852b855");
    vis__sha256_hex("abc", 3, hex);
    assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223"
                             "b00361a396177a9cb410ff61f20015ad");
    const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    vis__sha256_hex(m, strlen(m), hex);
    assert_string_equal(hex, "248d6a61d20638b8e5c026930c3e6039"
                             "a33ce45964ff2167f6ecedd419db06c1");
    /* a million 'a' */
    char *a = malloc(1000000);
    assert_non_null(a);
    memset(a, 'a', 1000000);
    vis__sha256_hex(a, 1000000, hex);
    assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67"
                             "f1809a48a497200e046d39ccc7112cd0");
    free(a);
}

/* ---- the model ---- */

static void test_load_and_names(void **state)
{
    (void)state;
    vis_classifier *c = load();
    assert_int_equal(vis_classifier_patch_size(c), S);
    assert_int_equal(vis_classifier_nheads(c), 2);
    assert_int_equal(vis_classifier_nvalues(c), NV);
    assert_string_equal(vis_classifier_head_name(c, 0), "shape");
    assert_string_equal(vis_classifier_head_name(c, 1), "color");
    assert_int_equal(vis_classifier_head_size(c, 0), RULES_NSHAPES);
    assert_int_equal(vis_classifier_head_size(c, 1), 6);
    /* The project's own names and order (rules/rules.h). */
    for (int v = 0; v < 6; v++) {
        assert_string_equal(vis_classifier_value_name(c, 0, v),
                            rules_shape_name(v));
        assert_string_equal(vis_classifier_value_name(c, 1, v),
                            rules_color_name(v));
    }
    assert_null(vis_classifier_head_name(c, 2));
    assert_null(vis_classifier_head_name(c, -1));
    assert_int_equal(vis_classifier_head_size(c, 2), 0);
    assert_null(vis_classifier_value_name(c, 0, 6));
    assert_null(vis_classifier_value_name(c, 1, -1));
    assert_int_equal(vis_classifier_patch_size(NULL), 0);
    assert_int_equal(vis_classifier_nheads(NULL), 0);
    vis_classifier_free(c);
    vis_classifier_free(NULL);
}

/* The manifest's check patch gives the probabilities torch gave it. */
static void test_matches_torch(void **state)
{
    (void)state;
    cJSON *j = read_manifest();
    const cJSON *check = cJSON_GetObjectItem(j, "check");
    const cJSON *pixels = cJSON_GetObjectItem(check, "pixels");
    const cJSON *want = cJSON_GetObjectItem(check, "probs");
    assert_int_equal(cJSON_GetArraySize(pixels), S * S * 3);
    assert_int_equal(cJSON_GetArraySize(want), NV);

    /* A caller's own buffer, rows packed (stride 72, not the shim's 80). */
    unsigned char buf[S * S * 3];
    int i = 0;
    for (const cJSON *p = pixels->child; p; p = p->next, i++) {
        int y = i / (S * 3), x = i / 3 % S, ch = i % 3;
        assert_int_equal(p->valueint, (x * 7 + y * 13 + ch * 29) % 256);
        buf[i] = (unsigned char)p->valueint;
    }
    vis_image patch = {S, S, S * 3, 3, buf};
    const vis_image *patches[1] = {&patch};

    vis_classifier *c = load();
    float probs[NV];
    base_err e;
    assert_int_equal(vis_classifier_run(c, patches, 1, probs, &e), 0);
    double far = 0;
    i = 0;
    for (const cJSON *p = want->child; p; p = p->next, i++) {
        if (fabs(probs[i] - p->valuedouble) > 1e-4)
            fail_msg("value %d: %.6f, torch %.6f", i, probs[i],
                     p->valuedouble);
        far = fmax(far, fabs(probs[i] - 1.0 / 6));
    }
    /* Not a near-uniform answer that any shim would match. */
    assert_true(far > 0.01);
    vis_classifier_free(c);
    cJSON_Delete(j);
}

/* A batch gives each patch what it gets alone; each head sums to 1. */
static void test_batch_equals_singles(void **state)
{
    (void)state;
    vis_classifier *c = load();
    vis_image *p[3] = {make_patch(0), make_patch(1), make_patch(2)};
    float batch[3 * NV], one[NV];
    base_err e;
    assert_int_equal(
        vis_classifier_run(c, (const vis_image *const *)p, 3, batch, &e), 0);
    double spread = 0;
    for (int i = 0; i < 3; i++) {
        assert_int_equal(vis_classifier_run(c, (const vis_image *const *)&p[i],
                                            1, one, &e),
                         0);
        for (int v = 0; v < NV; v++) {
            if (fabs(batch[i * NV + v] - one[v]) > 1e-5)
                fail_msg("patch %d value %d: batch %.7f, alone %.7f", i, v,
                         batch[i * NV + v], one[v]);
            if (i > 0)
                spread = fmax(spread, fabs(batch[i * NV + v] - batch[v]));
        }
        for (int h = 0; h < 2; h++) {
            double sum = 0;
            for (int v = 0; v < 6; v++) {
                float q = batch[i * NV + h * 6 + v];
                assert_true(q >= 0 && q <= 1);
                sum += q;
            }
            assert_true(fabs(sum - 1) < 1e-5);
        }
    }
    /* The three patches are told apart: the batch is not one answer. */
    assert_true(spread > 0.01);
    for (int i = 0; i < 3; i++)
        vis_image_free(p[i]);
    vis_classifier_free(c);
}

/* ---- errors ---- */

static void test_file_errors(void **state)
{
    (void)state;
    char *dir = th_tmpdir();
    size_t n = 0;
    char *onnx = th_read_file(MODEL, &n);
    assert_non_null(onnx);
    assert_true(n > 1000);

    /* No .onnx; an .onnx without its .json; not an .onnx name. */
    char *missing = th_path(dir, "none.onnx");
    expect_load_error(missing, BASE_ENOTFOUND, missing);
    char *lone = th_path(dir, "lone.onnx");
    write_bytes(lone, onnx, n);
    char *lone_json = th_path(dir, "lone.json");
    expect_load_error(lone, BASE_ENOTFOUND, lone_json);
    expect_load_error(MANIFEST, BASE_EINVAL, "does not end in .onnx");
    vis_classifier *c = NULL;
    assert_int_equal(vis_classifier_new(NULL, &c, NULL), BASE_EINVAL);
    assert_int_equal(vis_classifier_new(MODEL, NULL, NULL), BASE_EINVAL);

    /* A manifest that is not JSON. */
    char *bad = th_path(dir, "bad.onnx"), *bad_json = th_path(dir, "bad.json");
    write_bytes(bad, onnx, n);
    assert_int_equal(
        th_write_file(bad_json, "{\n\"input\": {\"size\": 24,\n"), 0);
    expect_load_error(bad, BASE_EPARSE, "is not valid JSON");

    /* A missing field, a field of the wrong kind, 1 channel. */
    cJSON *j = read_manifest();
    cJSON_DeleteItemFromObject(j, "heads");
    char *m = write_model(dir, onnx, n, j, 0);
    expect_load_error(m, BASE_EPARSE, "\"heads\" is missing");
    cJSON_Delete(j);
    free(m);
    j = read_manifest();
    cJSON *input = cJSON_GetObjectItem(j, "input");
    cJSON_ReplaceItemInObject(input, "std", cJSON_CreateString("0.2"));
    m = write_model(dir, onnx, n, j, 0);
    expect_load_error(m, BASE_EPARSE, "\"input\".\"std\" is not an array");
    cJSON_ReplaceItemInObject(input, "channels", cJSON_CreateNumber(1));
    free(m);
    m = write_model(dir, onnx, n, j, 0);
    expect_load_error(m, BASE_EUNSUPPORTED, "\"channels\" is 1");
    cJSON_Delete(j);
    free(m);

    /* The manifest's digest is another file's. */
    j = read_manifest();
    cJSON_ReplaceItemInObject(
        j, "sha256",
        cJSON_CreateString("0123456789abcdef0123456789abcdef"
                           "0123456789abcdef0123456789abcdef"));
    m = write_model(dir, onnx, n, j, 0);
    expect_load_error(m, BASE_EPARSE, "does not match its manifest");
    expect_load_error(m, BASE_EPARSE, m);
    cJSON_Delete(j);
    free(m);

    /* Corrupt ONNX whose digest is right: OpenCV's reader refuses it. */
    j = read_manifest();
    m = write_model(dir, onnx, n / 2, j, 1);
    expect_load_error(m, BASE_ECV, "OpenCV cannot read model");
    free(m);
    const char junk[] = "this is not an ONNX model at all\n";
    m = write_model(dir, junk, sizeof junk - 1, j, 1);
    expect_load_error(m, BASE_ECV, m);
    free(m);

    /* The heads do not add up to the network's output: 6 + 5. */
    cJSON *vals = cJSON_GetObjectItem(
        cJSON_GetArrayItem(cJSON_GetObjectItem(j, "heads"), 1), "values");
    cJSON_DeleteItemFromArray(vals, 5);
    m = write_model(dir, onnx, n, j, 1);
    expect_load_error(m, BASE_ECV, "expected 1x11");
    free(m);
    /* A patch size the network cannot take. */
    cJSON_InsertItemInArray(vals, 5, cJSON_CreateString("purple"));
    cJSON_ReplaceItemInObject(cJSON_GetObjectItem(j, "input"), "size",
                              cJSON_CreateNumber(32));
    m = write_model(dir, onnx, n, j, 1);
    expect_load_error(m, BASE_ECV, m);
    free(m);
    /* Back to the original: loads from the copy. */
    cJSON_ReplaceItemInObject(cJSON_GetObjectItem(j, "input"), "size",
                              cJSON_CreateNumber(S));
    m = write_model(dir, onnx, n, j, 1);
    base_err e;
    assert_int_equal(vis_classifier_new(m, &c, &e), 0);
    vis_classifier_free(c);
    free(m);
    cJSON_Delete(j);

    th_rmtree(dir);
    free(bad);
    free(bad_json);
    free(lone);
    free(lone_json);
    free(missing);
    free(onnx);
    free(dir);
}

static void test_patch_errors(void **state)
{
    (void)state;
    vis_classifier *c = load();
    vis_image *good = make_patch(0), *small = NULL, *grey = NULL;
    base_err e;
    assert_int_equal(vis_image_new(S - 1, S, 3, &small, &e), 0);
    assert_int_equal(vis_image_new(S, S, 1, &grey, &e), 0);
    float probs[3 * NV];
    for (int i = 0; i < 3 * NV; i++)
        probs[i] = -1;

    const vis_image *wrong_size[3] = {good, small, good};
    assert_int_equal(vis_classifier_run(c, wrong_size, 3, probs, &e),
                     BASE_EINVAL);
    assert_non_null(strstr(e.msg, "patch 1 is 23x24"));
    const vis_image *wrong_channels[2] = {good, grey};
    assert_int_equal(vis_classifier_run(c, wrong_channels, 2, probs, &e),
                     BASE_EINVAL);
    assert_non_null(strstr(e.msg, "patch 1 is 24x24 with 1 channels"));
    const vis_image *null_patch[2] = {NULL, good};
    assert_int_equal(vis_classifier_run(c, null_patch, 2, probs, &e),
                     BASE_EINVAL);
    assert_non_null(strstr(e.msg, "patch 0 is NULL"));
    const vis_image *one[1] = {good};
    assert_int_equal(vis_classifier_run(c, one, 0, probs, &e), BASE_EINVAL);
    assert_non_null(strstr(e.msg, "n is 0"));
    assert_int_equal(vis_classifier_run(c, one, -1, probs, NULL), BASE_EINVAL);
    assert_int_equal(vis_classifier_run(NULL, one, 1, probs, NULL),
                     BASE_EINVAL);
    assert_int_equal(vis_classifier_run(c, NULL, 1, probs, NULL), BASE_EINVAL);
    assert_int_equal(vis_classifier_run(c, one, 1, NULL, NULL), BASE_EINVAL);
    /* Nothing written on error. */
    for (int i = 0; i < 3 * NV; i++)
        assert_true(probs[i] == -1);
    /* And the handle still works. */
    assert_int_equal(vis_classifier_run(c, one, 1, probs, &e), 0);

    vis_image_free(good);
    vis_image_free(small);
    vis_image_free(grey);
    vis_classifier_free(c);
}

/* The shipped Qwirkle model (models/qwirkle.onnx, made by make models)
 * loads against its manifest and names the rules' shapes and colours in
 * the rules' order. */
static void test_shipped_qwirkle_model(void **state)
{
    vis_classifier *c = NULL;
    base_err e;
    (void)state;
    if (vis_classifier_new(TABLECAM_SOURCE_DIR "/models/qwirkle.onnx", &c, &e) != 0)
        fail_msg("models/qwirkle.onnx: %s", e.msg);
    assert_int_equal(vis_classifier_patch_size(c), 32);
    assert_int_equal(vis_classifier_nheads(c), 2);
    assert_string_equal(vis_classifier_head_name(c, 0), "shape");
    assert_string_equal(vis_classifier_head_name(c, 1), "color");
    for (int v = 0; v < 6; v++) {
        assert_string_equal(vis_classifier_value_name(c, 0, v), rules_shape_name(v));
        assert_string_equal(vis_classifier_value_name(c, 1, v), rules_color_name(v));
    }
    vis_classifier_free(c);
}

/* The built-in copy is the file's: the same probabilities for the same
 * patch; an unknown name is an error naming it. */
static void test_builtin_is_the_file(void **state)
{
    vis_classifier *file = NULL, *mem = NULL;
    vis_image *p = NULL;
    float a[12], b[12];
    base_err e;
    (void)state;
    assert_int_equal(vis_classifier_new(TABLECAM_SOURCE_DIR "/models/qwirkle.onnx", &file, &e), 0);
    if (vis_classifier_builtin("qwirkle", &mem, &e) != 0)
        fail_msg("built-in qwirkle: %s", e.msg);
    assert_int_equal(vis_classifier_nvalues(mem), 12);
    assert_int_equal(vis_image_new(32, 32, 3, &p, &e), 0);
    for (int y = 0; y < 32; y++)
        for (int x = 0; x < 32 * 3; x++)
            p->data[(size_t)y * p->stride + x] = (unsigned char)((x * 7 + y * 13) & 255);
    assert_int_equal(vis_classifier_run(file, (const vis_image *const *)&p, 1, a, &e), 0);
    assert_int_equal(vis_classifier_run(mem, (const vis_image *const *)&p, 1, b, &e), 0);
    assert_memory_equal(a, b, sizeof a);
    vis_classifier_free(mem);
    mem = NULL;
    assert_int_equal(vis_classifier_builtin("chess", &mem, &e), BASE_ENOTFOUND);
    assert_null(mem);
    assert_non_null(strstr(e.msg, "'chess'"));
    vis_image_free(p);
    vis_classifier_free(file);
}

/* The best value of a head and its runner-up; ties go to the lower
 * index; one value has no runner-up. */
static void test_best(void **state)
{
    static const float p[5] = {0.1f, 0.4f, 0.05f, 0.4f, 0.05f}, one[1] = {1};
    int b, s;
    (void)state;
    vis_classifier_best(p, 5, &b, &s);
    assert_int_equal(b, 1);
    assert_int_equal(s, 3);
    vis_classifier_best(p, 3, &b, &s);
    assert_int_equal(b, 1);
    assert_int_equal(s, 0);
    vis_classifier_best(one, 1, &b, &s);
    assert_int_equal(b, 0);
    assert_int_equal(s, -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sha256_vectors),
        cmocka_unit_test(test_load_and_names),
        cmocka_unit_test(test_matches_torch),
        cmocka_unit_test(test_batch_equals_singles),
        cmocka_unit_test(test_file_errors),
        cmocka_unit_test(test_patch_errors),
        cmocka_unit_test(test_shipped_qwirkle_model),
        cmocka_unit_test(test_builtin_is_the_file),
        cmocka_unit_test(test_best),
    };
    th_case_filter();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
