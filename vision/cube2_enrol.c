/* vision/cube2_enrol.c: enrolling a cube² set from its photo
 * (vis_cube2_enrol, FORMATS.md 7). */
#include "cube2Int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const c2e__colors[6] = {"red", "orange", "yellow", "green", "blue", "purple"};
static const char *const c2e__shapes[2] = {"cube", "cylinder"};

/* The square of the layout's k-th piece: from the first square of the
 * row above the middle on, left to right, row after row. */
static int c2e__square(const vis_cube2 *c, int k) { return (c->rows / 2 - 1) * c->cols + k; }

int vis_cube2_enrol_begin(vis_cube2 *c, vis_pieceset **out, base_err *err)
{
    int rc;
    if (!c || !out)
        return base_err_set(err, BASE_EINVAL, "vis_cube2_enrol_begin: NULL argument");
    *out = NULL;
    if (!c->model)
        return base_err_set(err, BASE_EUNSUPPORTED,
                            "this build has no cube2 model (models/cube2.onnx) to enrol into");
    if (c2e__square(c, VIS_C2_ENROL_PIECES) > c->cols * c->rows)
        return base_err_set(err, BASE_EUNSUPPORTED,
                            "a %dx%d board has no room for the %d pieces of an enrolment on its "
                            "middle rows",
                            c->cols, c->rows, VIS_C2_ENROL_PIECES);
    if ((rc = vis_pieceset_new(c->model, out, err)) != 0)
        return rc;
    /* a hand is never part of the layout: the set judges what stands on a
     * square, the classifier alone whether it is seen */
    if ((rc = vis_pieceset_leave(*out, 0, VIS__C2_COVERED, err)) != 0) {
        vis_pieceset_free(*out);
        *out = NULL;
    }
    return rc;
}

int vis_cube2_enrol(vis_cube2 *c, const vis_image *frame, vis_homography top_to_img,
                    const vis_c2_board *b, vis_pieceset *set, base_err *err)
{
    const vis__c2_param_table *P = &vis__c2_params;
    float *probs = NULL, *feats = NULL;
    int n, nv, nf, rc, first, wrong = 0;
    char which[160] = "";
    if (!c || !frame || !b || !set)
        return base_err_set(err, BASE_EINVAL, "vis_cube2_enrol: NULL argument");
    if (!b->found)
        return base_err_set(err, BASE_ENOTFOUND,
                            "the photo shows no %dx%d board: lay it inside the markers, all of "
                            "it in view",
                            c->cols, c->rows);
    if (!c->model)
        return base_err_set(err, BASE_EUNSUPPORTED,
                            "this build has no cube2 model (models/cube2.onnx) to enrol into");
    if ((rc = vis_pieceset_check(set, c->model, err)) != 0)
        return rc;
    n = c->cols * c->rows;
    nv = vis_classifier_nvalues(c->model);
    nf = vis_classifier_nfeatures(c->model);
    first = c2e__square(c, 0);
    if (!(probs = malloc(sizeof *probs * (size_t)(n * nv))) ||
        !(feats = malloc(sizeof *feats * (size_t)(n * nf)))) {
        free(probs);
        return base_err_set(err, BASE_ENOMEM, "out of memory");
    }
    rc = vis__c2_classify(c, frame, top_to_img, b, probs, feats, err);
    /* a hand or a square the layout puts a piece on that reads empty:
     * the photo is to be taken again, whatever the set looks like */
    for (int i = 0; rc == 0 && i < n; i++) {
        const float *pc = probs + (size_t)i * (size_t)nv;
        int best, second, k = i - first;
        vis_classifier_best(pc, VIS__C2_NCOLOR, &best, &second);
        if (best == VIS__C2_COVERED || pc[VIS__C2_COVERED] > P->covered_min)
            rc = base_err_set(err, BASE_ENOTFOUND,
                              "a hand or something else covers square %d,%d (column, row from "
                              "the top left): take the photo again",
                              i % c->cols + 1, i / c->cols + 1);
        else if (k >= 0 && k < VIS_C2_ENROL_PIECES && best == VIS__C2_EMPTY &&
                 pc[best] >= P->enrol_sure)
            rc = base_err_set(err, BASE_ENOTFOUND,
                              "square %d,%d reads empty: the %s %s belongs there (a cube then "
                              "a cylinder of each colour, red to purple, on rows %d and %d)",
                              i % c->cols + 1, i / c->cols + 1, c2e__colors[k / 2],
                              c2e__shapes[k % 2], first / c->cols + 1, first / c->cols + 2);
    }
    /* what the classifier reads surely against the layout: a few such
     * squares are the new set's look, more a layout laid otherwise */
    for (int i = 0; rc == 0 && i < n; i++) {
        const float *pc = probs + (size_t)i * (size_t)nv;
        int best, second, k = i - first;
        int want = k >= 0 && k < VIS_C2_ENROL_PIECES ? 1 + k / 2 : VIS__C2_EMPTY;
        vis_classifier_best(pc, VIS__C2_NCOLOR, &best, &second);
        if (best != want && pc[best] >= P->enrol_sure) {
            size_t len = strlen(which);
            wrong++;
            snprintf(which + len, sizeof which - len, "%s%d,%d %s", len ? ", " : "",
                     i % c->cols + 1, i / c->cols + 1,
                     best == VIS__C2_EMPTY ? "empty" : c2e__colors[best - 1]);
        }
    }
    if (rc == 0 && wrong >= P->enrol_disagree)
        rc = base_err_set(err, BASE_EINVAL,
                          "the photo does not show the enrolment layout (read %s): a cube then "
                          "a cylinder of each colour, red orange yellow green blue purple, on "
                          "rows %d and %d, each left to right, every other square empty",
                          which, first / c->cols + 1, first / c->cols + 2);
    for (int i = 0; rc == 0 && i < n; i++) {
        int k = i - first, values[2] = {VIS__C2_EMPTY, -1};
        if (k >= 0 && k < VIS_C2_ENROL_PIECES) {
            values[0] = 1 + k / 2;
            values[1] = k % 2;
        }
        rc = vis_pieceset_add(set, feats + (size_t)i * (size_t)nf, probs + (size_t)i * (size_t)nv,
                              values, err);
    }
    free(probs);
    free(feats);
    return rc;
}
