/* vision/qwirkle_enrol.c: enrolling a Qwirkle set from its six photos
 * (vis_qwirkle_enrol, FORMATS.md 7). */
#include "qwirkleInt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const qw__shape_names[6] = {"circle", "square", "diamond",
                                               "clover", "star4",  "star8"};
static const char *const qw__color_names[6] = {"red",  "orange", "yellow",
                                               "green", "blue",  "purple"};

/* Sorting the cubes of a photo by height on the mat, then within a row
 * from left to right. */
typedef struct qw__at {
    int i;
    double x, y;
    int row;
} qw__at;

static int qw__by_y(const void *a, const void *b)
{
    const qw__at *p = a, *q = b;
    return (p->y > q->y) - (p->y < q->y);
}

static int qw__by_row_x(const void *a, const void *b)
{
    const qw__at *p = a, *q = b;
    if (p->row != q->row)
        return p->row - q->row;
    return (p->x > q->x) - (p->x < q->x);
}

int vis_qwirkle_enrol(vis_qwirkle *q, const vis_image *top, const vis_view *view, int shape,
                      vis_pieceset *set, base_err *err)
{
    vis_reading *r;
    const vis_pieceset *keep;
    qw__at at[6];
    int rc, nf, wrong = 0;
    char which[96] = "";
    if (!q || !top || !view || !set || shape < 0 || shape > 5)
        return base_err_set(err, BASE_EINVAL, "vis_qwirkle_enrol: bad argument");
    if ((rc = vis_pieceset_check(set, q->model, err)) != 0)
        return rc;
    if (!(r = malloc(sizeof *r)))
        return base_err_set(err, BASE_ENOMEM, "out of memory");
    /* a photo of its own: no memory of boards before it, and the faces
     * read by the classifier alone (the set judges it from these) */
    keep = q->pieces;
    q->pieces = NULL;
    q->want_feats = true;
    q->nmem = 0;
    q->have_angle = false;
    rc = vis_qwirkle_read(q, top, view, r, err);
    q->pieces = keep;
    q->want_feats = false;
    q->nmem = 0;
    q->have_angle = false;
    if (rc == 0 && r->hand)
        rc = base_err_set(err, BASE_ENOTFOUND,
                          "the photo of the %ss has a hand over the mat: take it again",
                          qw__shape_names[shape]);
    else if (rc == 0 && r->npieces != 6)
        rc = base_err_set(err, BASE_ENOTFOUND,
                          "the photo of the %ss shows %d cube%s; it needs 6, one of each colour, "
                          "touching in a row like a line on the board (red orange yellow green "
                          "blue purple, rows from the mat's top edge, each left to right)",
                          qw__shape_names[shape], r->npieces, r->npieces == 1 ? "" : "s");
    if (rc != 0) {
        free(r);
        return rc;
    }
    /* rows: a jump in height of more than QW__ENROL_ROW_GAP cubes */
    for (int i = 0; i < 6; i++) {
        at[i].i = i;
        at[i].x = r->pieces[i].x_mm;
        at[i].y = r->pieces[i].y_mm;
    }
    qsort(at, 6, sizeof *at, qw__by_y);
    at[0].row = 0;
    for (int i = 1; i < 6; i++)
        at[i].row = at[i - 1].row + (at[i].y - at[i - 1].y > QW__ENROL_ROW_GAP * q->cube_mm);
    qsort(at, 6, sizeof *at, qw__by_row_x);
    for (int c = 0; c < 6; c++) {
        const float *pc = q->praw + (size_t)at[c].i * 12 + 6;
        int best, second;
        vis_classifier_best(pc, 6, &best, &second);
        if (best != c && pc[best] >= QW__LINE_CONF) {
            size_t len = strlen(which);
            wrong++;
            snprintf(which + len, sizeof which - len, "%s%s as %s", len ? ", " : "",
                     qw__color_names[c], qw__color_names[best]);
        }
    }
    if (wrong >= QW__ENROL_DISAGREE) {
        free(r);
        return base_err_set(err, BASE_EINVAL,
                            "the photo of the %ss does not show the colours in order (read %s): "
                            "lay them red orange yellow green blue purple, rows from the mat's "
                            "top edge, each left to right",
                            qw__shape_names[shape], which);
    }
    nf = vis_classifier_nfeatures(q->model);
    for (int c = 0; c < 6 && rc == 0; c++) {
        int values[2] = {shape, c};
        rc = vis_pieceset_add(set, q->pfeat + (size_t)at[c].i * (size_t)nf,
                              q->praw + (size_t)at[c].i * 12, values, err);
    }
    free(r);
    return rc;
}
