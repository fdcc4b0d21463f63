/* vision/cube2.c: reading the squares of a cube² board (vision/cube2.h):
 * life cycle, the learned classifier, the patches. */
#include "cube2Int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const vis__c2_param_table vis__c2_params = {
    .edge_min = 8,
    .marker_margin = 0.45,
    .min_edges = 200,
    .max_turn_deg = 21,
    .coarse_step_deg = 0.5,
    .coarse_stride = 3,
    .fine_step_deg = 0.1,
    .tile_pitches = 3,
    .axis_dominance = 2.0,
    .line_near_mm = 2.0,
    .fit_rounds = 4,
    .fit_narrow = 0.6,
    .long_mm = 13,
    .pair_mm = 4,
    .return_deg = 2.5,
    .refine_margin_mm = 8,
    .min_contrast = 1.6,
    .ring_floor = 0.05,
    .min_line_share = 0.15,
    .track_turn_deg = 1.0,
    .track_move_squares = 0.5,
    .covered_min = 0.5f,
    .enrol_sure = 0.9f,
    .enrol_disagree = 3,
};

static const char *const vis__c2_colors[VIS__C2_NCOLOR] = {
    "empty", "red", "orange", "yellow", "green", "blue", "purple", "covered"};
static const char *const vis__c2_shapes[2] = {"cube", "cylinder"};

static int vis__c2_check_model(const vis_classifier *c, const char *name, base_err *err)
{
    static const char *const heads[2] = {"color", "shape"};
    static const int sizes[2] = {VIS__C2_NCOLOR, 2};
    if (vis_classifier_nheads(c) != 2)
        return base_err_set(err, BASE_EPARSE,
                            "model %s has %d heads (a cube2 model has 2: color and shape)", name,
                            vis_classifier_nheads(c));
    for (int h = 0; h < 2; h++) {
        if (strcmp(vis_classifier_head_name(c, h), heads[h]) != 0 ||
            vis_classifier_head_size(c, h) != sizes[h])
            return base_err_set(err, BASE_EPARSE,
                                "model %s: head %d is '%s' with %d values (expected '%s' with %d)",
                                name, h, vis_classifier_head_name(c, h),
                                vis_classifier_head_size(c, h), heads[h], sizes[h]);
        for (int v = 0; v < sizes[h]; v++) {
            const char *want = h == 0 ? vis__c2_colors[v] : vis__c2_shapes[v];
            if (strcmp(vis_classifier_value_name(c, h, v), want) != 0)
                return base_err_set(err, BASE_EPARSE,
                                    "model %s: %s value %d is '%s' (expected '%s')", name,
                                    heads[h], v, vis_classifier_value_name(c, h, v), want);
        }
    }
    return 0;
}

static int vis__c2_take_model(vis_cube2 *c, vis_classifier *m, const char *name, base_err *err)
{
    int rc = vis__c2_check_model(m, name, err);
    if (rc != 0) {
        vis_classifier_free(m);
        return rc;
    }
    vis_classifier_free(c->model);
    c->model = m;
    c->size = vis_classifier_patch_size(m);
    c->pieces = NULL; /* enrolled with the old model's features */
    return 0;
}

int vis_cube2_new(int cols, int rows, double pitch_mm, vis_cube2 **out, base_err *err)
{
    vis_cube2 *c;
    vis_classifier *m = NULL;
    int rc;
    *out = NULL;
    cols = cols ? cols : 6;
    rows = rows ? rows : 6;
    pitch_mm = pitch_mm > 0 ? pitch_mm : 30;
    if (cols < 2 || rows < 2 || cols > VIS_C2_MAX_SIDE || rows > VIS_C2_MAX_SIDE ||
        !(pitch_mm >= 10 && pitch_mm <= 100))
        return base_err_set(err, BASE_ERANGE,
                            "cube2 board %dx%d of %g mm squares: expected 2..%d squares a side "
                            "of 10 to 100 mm",
                            cols, rows, pitch_mm, VIS_C2_MAX_SIDE);
    if (!(c = calloc(1, sizeof *c)))
        return base_err_set(err, BASE_ENOMEM, "out of memory");
    c->cols = cols;
    c->rows = rows;
    c->pitch_mm = pitch_mm;
    rc = vis_classifier_builtin("cube2", &m, err);
    if (rc == 0)
        rc = vis__c2_take_model(c, m, "the built-in cube2 model", err);
    if (rc != 0 && rc != BASE_ENOTFOUND) {
        vis_cube2_free(c);
        return rc;
    }
    *out = c;
    return 0;
}

int vis_cube2_use_model(vis_cube2 *c, const char *onnx_path, base_err *err)
{
    vis_classifier *m = NULL;
    int rc;
    if (!c || !onnx_path)
        return base_err_set(err, BASE_EINVAL, "vis_cube2_use_model: bad argument");
    if ((rc = vis_classifier_new(onnx_path, &m, err)) != 0)
        return rc;
    return vis__c2_take_model(c, m, onnx_path, err);
}

void vis_cube2_free(vis_cube2 *c)
{
    if (!c)
        return;
    vis_classifier_free(c->model);
    free(c);
}

int vis_cube2_patch(const vis_image *frame, vis_homography top_to_img, const vis_c2_board *b,
                    int col, int row, int size, vis_image **out, base_err *err)
{
    vis_patch_at at;
    memset(&at, 0, sizeof at);
    vis_cube2_square_mm(b, col, row, &at.x_mm, &at.y_mm);
    at.rot_deg = b->angle_deg;
    at.side_mm = VIS_C2_PATCH_MM * b->pitch_mm / 30.0;
    return vis_patch_cut(frame, top_to_img, &at, size, out, err);
}

/* The best and the runner-up of probs[0..n-1]. */
static void vis__c2_top2(const float *p, int n, int *a, int *b)
{
    *a = 0;
    *b = -1;
    for (int i = 1; i < n; i++)
        if (p[i] > p[*a]) {
            *b = *a;
            *a = i;
        } else if (*b < 0 || p[i] > p[*b]) {
            *b = i;
        }
}

int vis__c2_classify(vis_cube2 *c, const vis_image *frame, vis_homography top_to_img,
                     const vis_c2_board *b, float *probs, float *feats, base_err *err)
{
    vis_image *patches[VIS_C2_MAX_SIDE * VIS_C2_MAX_SIDE] = {NULL};
    int n = 0, rc = 0;
    if (!c->model)
        return base_err_set(err, BASE_EUNSUPPORTED,
                            "vis_cube2_read: this build has no cube2 model (models/cube2.onnx)");
    if (b->cols != c->cols || b->rows != c->rows)
        return base_err_set(err, BASE_EINVAL,
                            "vis_cube2_read: a %dx%d board, the reader's is %dx%d", b->cols,
                            b->rows, c->cols, c->rows);
    for (int row = 0; row < b->rows && rc == 0; row++)
        for (int col = 0; col < b->cols && rc == 0; col++, n++)
            rc = vis_cube2_patch(frame, top_to_img, b, col, row, c->size, &patches[n], err);
    if (rc == 0 && feats)
        rc = vis_classifier_run_features(c->model, (const vis_image *const *)patches, n, probs,
                                         feats, err);
    else if (rc == 0)
        rc = vis_classifier_run(c->model, (const vis_image *const *)patches, n, probs, err);
    for (int i = 0; i < n; i++)
        vis_image_free(patches[i]);
    return rc;
}

int vis_cube2_use_pieces(vis_cube2 *c, const vis_pieceset *set, base_err *err)
{
    int rc;
    if (!c)
        return base_err_set(err, BASE_EINVAL, "vis_cube2_use_pieces: NULL reader");
    if (set && !c->model)
        return base_err_set(err, BASE_EUNSUPPORTED,
                            "this build has no cube2 model (models/cube2.onnx) to read a set with");
    if (set && (rc = vis_pieceset_check(set, c->model, err)) != 0)
        return rc;
    c->pieces = set;
    return 0;
}

int vis_cube2_read(vis_cube2 *c, const vis_image *frame, vis_homography top_to_img,
                   const vis_c2_board *b, vis_c2_reading *out, base_err *err)
{
    float *probs = NULL, *feats = NULL;
    int n, rc = 0, nv, nf = 0;
    if (!c || !frame || !b || !out)
        return base_err_set(err, BASE_EINVAL, "vis_cube2_read: NULL argument");
    memset(out, 0, sizeof *out);
    out->board = *b;
    if (!b->found)
        return 0;
    if (!c->model)
        return base_err_set(err, BASE_EUNSUPPORTED,
                            "vis_cube2_read: this build has no cube2 model (models/cube2.onnx)");
    n = b->cols * b->rows;
    nv = vis_classifier_nvalues(c->model);
    if (c->pieces)
        nf = vis_classifier_nfeatures(c->model);
    if (!(probs = malloc(sizeof *probs * (size_t)(n * nv))) ||
        (nf > 0 && !(feats = malloc(sizeof *feats * (size_t)(n * nf)))))
        rc = base_err_set(err, BASE_ENOMEM, "out of memory");
    if (rc == 0)
        rc = vis__c2_classify(c, frame, top_to_img, b, probs, feats, err);
    for (int i = 0; rc == 0 && feats && i < n; i++) /* the enrolled set's opinion */
        vis_pieceset_apply(c->pieces, feats + (size_t)i * (size_t)nf,
                           probs + (size_t)i * (size_t)nv);
    for (int i = 0; rc == 0 && i < n; i++) {
        vis_c2_square *q = &out->squares[i];
        const float *pc = probs + (size_t)i * (size_t)nv, *ps = pc + VIS__C2_NCOLOR;
        int c1, c2, s1, s2;
        q->col = i % b->cols;
        q->row = i / b->cols;
        vis_cube2_square_mm(b, q->col, q->row, &q->x_mm, &q->y_mm);
        vis__c2_top2(pc, VIS__C2_NCOLOR, &c1, &c2);
        vis__c2_top2(ps, 2, &s1, &s2);
        q->covered = pc[VIS__C2_COVERED] > vis__c2_params.covered_min ||
                     c1 == VIS__C2_COVERED;
        out->hand |= q->covered;
        if (c1 == VIS__C2_COVERED) { /* what it would be, were it seen */
            c1 = c2;
            c2 = -1;
        }
        q->color = c1 == VIS__C2_EMPTY ? -1 : c1 - 1;
        q->color2 = c2 <= VIS__C2_EMPTY || c2 == VIS__C2_COVERED ? -1 : c2 - 1;
        q->color_conf = pc[c1];
        q->color_p2 = c2 >= 0 ? pc[c2] : 0;
        if (q->color < 0) {
            q->shape = q->shape2 = -1;
            q->shape_conf = 1;
            q->conf = q->color_conf;
        } else {
            q->shape = s1;
            q->shape2 = s2;
            q->shape_conf = ps[s1];
            q->shape_p2 = ps[s2];
            q->conf = q->color_conf * q->shape_conf;
        }
        if (q->covered)
            q->conf = 0;
    }
    if (rc == 0)
        out->nsquares = n;
    free(probs);
    free(feats);
    return rc;
}
