/* vision/patch.h: patches cut on the pieces' plane.
 *
 * The stage between finding a piece and classifying it: the square of the
 * plane a piece's printed face lies on (a cube's top, 19.5 mm above the
 * table; a card, on it), centred on the piece and turned with it, sampled
 * as an upright S x S image.  However the camera looks at the table, a
 * symbol then comes out at one scale and one orientation, which is what
 * lets one small classifier (classify.h) read every camera. */
#ifndef TABLECAM_VISION_PATCH_H
#define TABLECAM_VISION_PATCH_H

#include "cv.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where a patch lies on the plane: its centre in table millimetres, its
 * turn (degrees, counter-clockwise from the table's x axis: the piece's
 * own x axis), and its side in millimetres: side_mm along its x, side_y_mm
 * along its y (0: a square, side_mm both ways). */
typedef struct vis_patch_at {
    double x_mm, y_mm;
    double rot_deg;
    double side_mm;
    double side_y_mm;
} vis_patch_at;

/* Cuts the patch at `at` out of frame (1 or 3 channels) as a new size x
 * size image of the same channels.  plane_to_img maps plane millimetres
 * (the plane's own x, y: the table's, lifted) to frame pixels, e.g. from
 * cal_mat_plane.  Row 0 of the patch is the piece's -y side, column 0 its
 * -x side.  Where the camera sees the plane finer than the patch samples
 * it, the patch is cut finer and averaged down, so fine print does not
 * alias.  Parts of the square outside the frame are black.  Errors:
 * BASE_EINVAL (size outside 4..1024, side_mm not positive, NULL
 * arguments), BASE_ERANGE (the square does not map into the image: the
 * plane seen edge-on or behind the camera). */
int vis_patch_cut(const vis_image *frame, vis_homography plane_to_img, const vis_patch_at *at,
                  int size, vis_image **out, base_err *err);

/* As vis_patch_cut, into a w x h image (each 4..1024): the rectangle
 * side_mm x side_y_mm (a card's corner, taller than wide) sampled w pixels
 * across and h down. */
int vis_patch_cut_wh(const vis_image *frame, vis_homography plane_to_img, const vis_patch_at *at,
                     int w, int h, vis_image **out, base_err *err);

#ifdef __cplusplus
}
#endif

#endif
