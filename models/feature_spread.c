/* models/feature_spread.c: how far the features of one value spread across
 * cameras and lights, for enrolled sets (vision/pieceset.h).
 *
 *   build/models/feature_spread --model M.onnx DIR[,DIR...]
 *
 * Runs the model over the patches of models/qwirkle_patches (or
 * cube2_patches: one label byte a head, 255 where the head has no value,
 * as a bare square's shape) in each DIR
 * that show a design the model was trained on (its manifest's
 * trained_on.designs) and prints, as one JSON line {"spread": [s0, s1,
 * ...], "patches": n}, for each head the variance of one feature round
 * the mean of its (design, value) group, pooled over the groups.  The
 * patches of one group come from several sim seeds (other cameras, other
 * light), so this is what a piece photographed at its enrolment and the
 * same piece seen later by another camera are expected to differ by -
 * what the enrolment photos, one camera and one light, cannot measure.
 * `make models` writes it into the manifest's "features" (the .onnx and
 * its sha256 stay as they are); render the patches with seeds the model
 * was not trained on. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "classify.h"

#define MAX_DESIGNS 256
#define BATCH 256

static cJSON *read_json(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    long n;
    cJSON *j;
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    rewind(f);
    if (n < 0 || !(buf = malloc((size_t)n + 1))) {
        fclose(f);
        return NULL;
    }
    if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        fclose(f);
        return NULL;
    }
    buf[n] = 0;
    fclose(f);
    j = cJSON_Parse(buf);
    free(buf);
    return j;
}

int main(int argc, char **argv)
{
    const char *model = NULL, *dirs = NULL;
    vis_classifier *c = NULL;
    base_err e;
    bool trained[MAX_DESIGNS] = {false};
    int nf, nh, nv, size;
    /* per head, per (design, value): count, feature sums; and the sum of
     * squares over all */
    double *sum, ss[VIS_CLASSIFIER_MAX_HEADS] = {0};
    long *cnt, total = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--model") == 0 && i + 1 < argc)
            model = argv[++i];
        else if (!dirs && argv[i][0] != '-')
            dirs = argv[i];
        else {
            fprintf(stderr, "usage: feature_spread --model M.onnx DIR[,DIR...]\n");
            return 2;
        }
    }
    if (!model || !dirs) {
        fprintf(stderr, "usage: feature_spread --model M.onnx DIR[,DIR...]\n");
        return 2;
    }
    if (vis_classifier_new(model, &c, &e) != 0) {
        fprintf(stderr, "feature_spread: %s\n", e.msg);
        return 1;
    }
    if ((nf = vis_classifier_nfeatures(c)) == 0) {
        fprintf(stderr, "feature_spread: %s names no features in its manifest\n", model);
        return 1;
    }
    {
        char path[1024];
        size_t len = strlen(model);
        cJSON *m, *d;
        snprintf(path, sizeof path, "%.*s.json", (int)(len - 5), model);
        m = read_json(path);
        d = cJSON_GetObjectItem(cJSON_GetObjectItem(m, "trained_on"), "designs");
        if (!cJSON_IsArray(d)) {
            fprintf(stderr, "feature_spread: %s has no trained_on.designs\n", path);
            return 1;
        }
        for (cJSON *x = d->child; x; x = x->next)
            if (cJSON_IsNumber(x) && x->valueint >= 0 && x->valueint < MAX_DESIGNS)
                trained[x->valueint] = true;
        cJSON_Delete(m);
    }
    nh = vis_classifier_nheads(c);
    nv = vis_classifier_nvalues(c);
    size = vis_classifier_patch_size(c);
    sum = calloc((size_t)MAX_DESIGNS * nv * nf, sizeof *sum);
    cnt = calloc((size_t)MAX_DESIGNS * nv, sizeof *cnt);
    if (!sum || !cnt)
        return 1;
    for (const char *p = dirs; *p;) {
        char dir[1024], path[1100];
        size_t n = strcspn(p, ",");
        cJSON *meta;
        FILE *f;
        int rec, s;
        snprintf(dir, sizeof dir, "%.*s", (int)n, p);
        p += n + (p[n] == ',');
        snprintf(path, sizeof path, "%s/patches.json", dir);
        meta = read_json(path);
        s = cJSON_GetObjectItem(meta, "size") ? cJSON_GetObjectItem(meta, "size")->valueint : 0;
        rec = cJSON_GetObjectItem(meta, "record_bytes")
                  ? cJSON_GetObjectItem(meta, "record_bytes")->valueint
                  : 0;
        cJSON_Delete(meta);
        if (s != size || rec != 8 + s * s * 3) {
            fprintf(stderr, "feature_spread: %s: patches of %d px, the model wants %d\n", path, s,
                    size);
            return 1;
        }
        snprintf(path, sizeof path, "%s/patches.bin", dir);
        if (!(f = fopen(path, "rb"))) {
            fprintf(stderr, "feature_spread: cannot open %s\n", path);
            return 1;
        }
        for (;;) {
            vis_image *img[BATCH];
            unsigned char lab[BATCH][8];
            float *probs = malloc(sizeof *probs * BATCH * (size_t)nv);
            float *feats = malloc(sizeof *feats * BATCH * (size_t)nf);
            int k = 0;
            while (k < BATCH) {
                if (fread(lab[k], 1, 8, f) != 8)
                    break;
                vis_image_new(s, s, 3, &img[k], NULL);
                for (int y = 0; y < s; y++)
                    if (fread(img[k]->data + (size_t)y * img[k]->stride, 1, (size_t)s * 3, f) !=
                        (size_t)s * 3)
                        break;
                if (!trained[lab[k][2]]) {
                    vis_image_free(img[k]);
                    continue;
                }
                k++;
            }
            if (k > 0 &&
                vis_classifier_run_features(c, (const vis_image *const *)img, k, probs, feats,
                                            &e) != 0) {
                fprintf(stderr, "feature_spread: %s\n", e.msg);
                return 1;
            }
            for (int i = 0; i < k; i++) {
                int off = 0;
                const float *fi = feats + (size_t)i * nf;
                for (int h = 0; h < nh; h++) {
                    /* label byte h is the value of head h (shape, colour) */
                    size_t g = ((size_t)lab[i][2] * nv + off + lab[i][h]);
                    if (lab[i][h] >= vis_classifier_head_size(c, h)) { /* none */
                        off += vis_classifier_head_size(c, h);
                        continue;
                    }
                    cnt[g]++;
                    for (int j = 0; j < nf; j++) {
                        sum[g * nf + j] += fi[j];
                        ss[h] += (double)fi[j] * fi[j];
                    }
                    off += vis_classifier_head_size(c, h);
                }
                vis_image_free(img[i]);
            }
            total += k;
            free(probs);
            free(feats);
            if (k < BATCH)
                break;
        }
        fclose(f);
    }
    printf("{\"spread\": [");
    for (int h = 0, off = 0; h < nh; off += vis_classifier_head_size(c, h), h++) {
        /* pooled: the sum of squares round each group's mean, over the
         * degrees of freedom left */
        double within = ss[h];
        long groups = 0, n = 0;
        for (int d = 0; d < MAX_DESIGNS; d++)
            for (int v = 0; v < vis_classifier_head_size(c, h); v++) {
                size_t g = (size_t)d * nv + off + v;
                double sq = 0;
                if (!cnt[g])
                    continue;
                for (int j = 0; j < nf; j++)
                    sq += sum[g * nf + j] * sum[g * nf + j];
                within -= sq / cnt[g];
                groups++;
                n += cnt[g];
            }
        printf("%s%.6g", h ? ", " : "", n > groups ? within / ((double)(n - groups) * nf) : 0);
    }
    printf("], \"patches\": %ld}\n", total);
    free(sum);
    free(cnt);
    vis_classifier_free(c);
    return 0;
}
