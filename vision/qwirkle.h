/* vision/qwirkle.h: reading Qwirkle Cubes off the table.
 *
 * Input is the rectified top-down view of the plane of the cubes' top
 * faces (calib's cal_rectify at the cube height), so a top face is an
 * upright square of the cube's size wherever the camera stands.  The
 * recogniser finds the cubes (black, with a coloured symbol on top), fits
 * the grid they lie on (pitch, rotation, phase), reads each top face's
 * colour and shape with a confidence, ignores what is not a cube, and says
 * when a hand or arm is over the board instead of guessing. */
#ifndef TABLECAM_VISION_QWIRKLE_H
#define TABLECAM_VISION_QWIRKLE_H

#include <stdbool.h>

#include "base.h"
#include "cv.h"

#define VIS_MAX_PIECES 160

/* What the rectified view shows: px_per_mm pixels a millimetre; pixel
 * (u, v) shows table point ((u + 0.5) / px_per_mm - margin_mm, ...); the
 * play area is [0, mat_w] x [0, mat_h] mm with a marker of side marker_mm
 * centred on each corner (those squares are not the board). */
typedef struct vis_view {
    double px_per_mm;
    double margin_mm;
    double mat_w, mat_h, marker_mm;
    float gain[3]; /* white balance gains for B, G, R (1 = none) */
} vis_view;

/* One piece read. color and shape follow rules/' order (red orange yellow
 * green blue purple; circle square diamond clover star4 star8); -1 when
 * unreadable. */
typedef struct vis_piece {
    int gx, gy;          /* grid cell, in the grid fitted to this view */
    int color, shape;
    double x_mm, y_mm;   /* the top face's centre on the table */
    float conf;          /* 0..1: how sure the whole reading of it is */
    float color_conf, shape_conf;
} vis_piece;

typedef struct vis_reading {
    int npieces;
    vis_piece pieces[VIS_MAX_PIECES];
    bool hand;           /* a hand or arm is over the play area */
    double grid_angle_deg; /* grid x axis against the table's x axis */
    double pitch_mm;
    double phase_x_mm, phase_y_mm;
} vis_reading;

/* Colour prototypes: the mean hue (OpenCV degrees / 2, 0..179) and
 * saturation of each colour's symbols under this camera and light.  A
 * profile learnt from a frame replaces the defaults. */
typedef struct vis_qwirkle_profile {
    float hue[6];
    float sat[6];
} vis_qwirkle_profile;

vis_qwirkle_profile vis_qwirkle_default_profile(void);

typedef struct vis_qwirkle vis_qwirkle;

/* cube_mm: the cubes' side (20). profile may be NULL for the defaults. */
int vis_qwirkle_new(double cube_mm, const vis_qwirkle_profile *profile, vis_qwirkle **out,
                    base_err *err);
void vis_qwirkle_free(vis_qwirkle *q);

/* Reads the view.  The handle remembers the last grid rotation so that
 * successive readings of one board keep their axes. */
int vis_qwirkle_read(vis_qwirkle *q, const vis_image *top, const vis_view *view,
                     vis_reading *out, base_err *err);

/* Learns a profile from a view whose cubes show all six colours (one cube
 * of each laid in a row, or any board with all colours): the symbols are
 * clustered into six hues.  BASE_ENOTFOUND when fewer than six colours
 * are seen. */
int vis_qwirkle_learn(vis_qwirkle *q, const vis_image *top, const vis_view *view,
                      vis_qwirkle_profile *out, base_err *err);

#endif
