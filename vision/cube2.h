/* vision/cube2.h: reading a cube² board off the table.
 *
 * Two stages.  vis_cube2_find fits the board in a top-down view of the
 * plane of its top (calib's cal_rectify at about the board's thickness):
 * its lines, 30 mm apart, give the board's turn and phase, and which six
 * squares by six they bound gives its place; the board's own outline and
 * print, not markers of its own.  vis_cube2_read then cuts one patch per
 * square on the plane of the pieces' tops, from the camera frame itself,
 * and asks the learned classifier (models/cube2.onnx, vision/classify.h)
 * what stands there: nothing, or a cube or a cylinder of one of six
 * colours, or something that covers it (a hand).  A piece seen at a slant
 * shows its side toward the camera; the patch is wide enough to hold it,
 * and the classifier has learnt from many designs which part is the
 * square's own piece.
 *
 * Coordinates: table millimetres (FORMATS.md 5); columns along the
 * board's x axis, which is within 45 degrees of the table's x (toward
 * marker 1), rows along its y (toward marker 3). */
#ifndef TABLECAM_VISION_CUBE2_H
#define TABLECAM_VISION_CUBE2_H

#include <stdbool.h>

#include "base.h"
#include "classify.h"
#include "cv.h"
#include "pieceset.h"
#include "qwirkle.h" /* vis_view */

#define VIS_C2_MAX_SIDE 12 /* squares a side the reader accepts */

/* Nominal heights, mm above the table: the board's top (boards are 2-12
 * mm thick) and the pieces' tops (pieces about 22 mm tall on it).  The
 * views are cut at these; what a real set differs by, the fit's phase
 * and the classifier's wide patch absorb. */
#define VIS_C2_BOARD_Z_MM 5.0
#define VIS_C2_TOP_Z_MM 27.0

/* Where the board lies. */
typedef struct vis_c2_board {
    bool found;
    int cols, rows;
    double pitch_mm;
    double x0_mm, y0_mm; /* the outer corner of square (0, 0), on the table */
    double angle_deg;    /* the board's x axis against the table's x axis */
    float contrast;      /* the lines' evidence inside the board over that
                            just outside it (found: at least the minimum) */
    float line_share;    /* of a whole line's edges, what the board's segments
                            show on average */
} vis_c2_board;

/* What one square shows. color: rules' order (red .. purple), or -1 for
 * an empty square; shape RULES_C2_CUBE or _CYLINDER (-1 when empty). */
typedef struct vis_c2_square {
    int col, row;
    int color, shape;
    bool covered;        /* a hand or something else hides it: not read */
    float conf;          /* 0..1: how sure the whole reading is */
    float color_conf, shape_conf;
    int color2, shape2;  /* runners-up (-1: empty, or none) */
    float color_p2, shape_p2;
    double x_mm, y_mm;   /* its centre on the table */
} vis_c2_square;

typedef struct vis_c2_reading {
    vis_c2_board board;
    int nsquares;        /* cols * rows when the board was found, else 0 */
    vis_c2_square squares[VIS_C2_MAX_SIDE * VIS_C2_MAX_SIDE];
    bool hand;           /* some square is covered */
} vis_c2_reading;

typedef struct vis_cube2 vis_cube2;

/* A reader of a cols x rows board of pitch_mm squares (6, 6, 30 by
 * default: 0 for each), reading with the built-in model. */
int vis_cube2_new(int cols, int rows, double pitch_mm, vis_cube2 **out, base_err *err);
/* Reads with the model onnx_path instead (a bench's model trained without
 * some designs); BASE_EPARSE when its heads are not cube2's. */
int vis_cube2_use_model(vis_cube2 *c, const char *onnx_path, base_err *err);
void vis_cube2_free(vis_cube2 *c);

/* Fits the board in view (the plane VIS_C2_BOARD_Z_MM above the table,
 * described by vw: px_per_mm, margin_mm or roi, the mat).  out->found is
 * false when no board of the reader's size shows (not an error). */
int vis_cube2_find(vis_cube2 *c, const vis_image *view, const vis_view *vw, vis_c2_board *out,
                   base_err *err);

/* The board near prior, as an earlier frame found it (table mm do not
 * change when the camera moves): only its lines, near its turn and
 * phase, in view (which may show only the part of the table round it,
 * vis_view's roi; vis_cube2_bounds).  out->found is false when the board
 * is not there (moved, covered): then vis_cube2_find searches the whole
 * mat. */
int vis_cube2_track(vis_cube2 *c, const vis_image *view, const vis_view *vw,
                    const vis_c2_board *prior, vis_c2_board *out, base_err *err);

/* The table box (x0, y0, x1, y1 mm) round board b, margin_mm wider on
 * every side. */
void vis_cube2_bounds(const vis_c2_board *b, double margin_mm, double box[4]);

/* The centre of square (col, row) of board b, table mm. */
void vis_cube2_square_mm(const vis_c2_board *b, int col, int row, double *x_mm, double *y_mm);

/* The patch the classifier reads for square (col, row): cut from frame
 * through top_to_img (table mm on the plane VIS_C2_TOP_Z_MM -> frame
 * pixels, calib's cal_mat_plane), upright in the board's frame, size x
 * size pixels (the model's input) over VIS_C2_PATCH_MM. */
#define VIS_C2_PATCH_MM 42.0
int vis_cube2_patch(const vis_image *frame, vis_homography top_to_img, const vis_c2_board *b,
                    int col, int row, int size, vis_image **out, base_err *err);

/* Reads with the enrolled set (FORMATS.md 7; the caller keeps it, NULL:
 * none); BASE_EINVAL when it was enrolled with another model.  A new
 * model (vis_cube2_use_model) drops the set. */
int vis_cube2_use_pieces(vis_cube2 *c, const vis_pieceset *set, base_err *err);

/* Enrolment (FORMATS.md 7): one photo of the board, empty but for the
 * set's twelve pieces, a cube then a cylinder of each colour (red orange
 * yellow green blue purple), laid on its two middle rows (rows 3 and 4
 * of six) as seen from the mat's top edge, each left to right.  The
 * empty squares teach the set the board's own look.  vis_cube2_enrol_begin
 * makes the set for the reader's model (its colour head judges "empty"
 * and the six colours, never "covered"); vis_cube2_enrol adds the photo's
 * squares, read on board b (found, vis_cube2_find) through top_to_img as
 * vis_cube2_read does, with no set applied.  BASE_ENOTFOUND when a hand
 * hides a square or a layout square reads empty, BASE_EINVAL when the
 * photo surely shows another layout, each naming the square. */
#define VIS_C2_ENROL_PIECES 12
int vis_cube2_enrol_begin(vis_cube2 *c, vis_pieceset **out, base_err *err);
int vis_cube2_enrol(vis_cube2 *c, const vis_image *frame, vis_homography top_to_img,
                    const vis_c2_board *b, vis_pieceset *set, base_err *err);

/* Reads every square of board b (found) in frame. */
int vis_cube2_read(vis_cube2 *c, const vis_image *frame, vis_homography top_to_img,
                   const vis_c2_board *b, vis_c2_reading *out, base_err *err);

#endif
