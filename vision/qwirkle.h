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
#include "pieceset.h"

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
    /* Optional, zero when unknown:
     * roi: the view shows only part of the table; pixel (u, v) shows table
     *   point (x0_mm + (u + 0.5) / px_per_mm, y0_mm + ...) and margin_mm is
     *   ignored (calib's cal_rectify_roi).
     * cam_mm: the camera centre in table mm (z up; calib's cal_mat_camera)
     *   so that side faces of cubes seen at a slant are told from tops.
     * cam_px_per_mm: how finely the camera itself sees the board, which
     *   sets how blurred the symbols are expected to be.
     * dark: the brightness (0..255) below which a pixel is cube body, as a
     *   survey of the whole view found it.
     * white: the brightness (B + G + R) of the mat's white paper round its
     *   markers, as the view shows it: what white card stock is about in
     *   this light. */
    bool roi;
    double x0_mm, y0_mm;
    bool has_cam;
    double cam_mm[3];
    double cam_px_per_mm;
    int dark;
    double white;
    /* frame: the camera frame the view was rectified from, as the camera
     *   delivered it (no lens correction, not cropped: JPEG's 8x8 blocks
     *   start at its pixel (0, 0)), and frame_h the map from table mm on
     *   the plane of the top faces to its pixels (pixel centres at whole
     *   numbers).  With them, a coarse camera's close calls between two
     *   shapes are judged in the camera's own pixels, through the frame's
     *   JPEG quantisation (see vis_qwirkle_read).  NULL: not done. */
    const vis_image *frame;
    vis_homography frame_h;
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
    int color2, shape2;  /* the runners-up: what it is if not color/shape (-1 none) */
    float color_p2, shape_p2; /* their own probabilities (0: not known) */
    float hue, sat;      /* the symbol's mean colour (OpenCV hue 0..179, 0..255) */
} vis_piece;

typedef struct vis_reading {
    int npieces;
    vis_piece pieces[VIS_MAX_PIECES];
    bool hand;           /* a hand or arm is over the play area */
    double grid_angle_deg; /* grid x axis against the table's x axis */
    double pitch_mm;
    double phase_x_mm, phase_y_mm;
    double blur_mm;      /* the symbols' blur on the table (Gaussian sigma)
                          * the reading fitted, 0 with no cube: above about
                          * 1.7 mm shapes are often misread */
} vis_reading;

/* Colour prototypes: the mean hue (OpenCV degrees / 2, 0..179) and
 * saturation of each colour's symbols under this camera and light.  A
 * profile learnt from a frame replaces the defaults.  Without one the
 * classifier reads each cube's colour from its patch; with one, the
 * nearest learnt hue names the colour and the classifier's probability of
 * it is the colour's confidence. */
typedef struct vis_qwirkle_profile {
    float hue[6];
    float sat[6];
} vis_qwirkle_profile;

vis_qwirkle_profile vis_qwirkle_default_profile(void);

typedef struct vis_qwirkle vis_qwirkle;

/* Replaces the colour profile of q (for the next readings). */
void vis_qwirkle_set_profile(vis_qwirkle *q, const vis_qwirkle_profile *profile);

/* cube_mm: the cubes' side (20). profile may be NULL for the defaults.
 * The faces are read by the built-in model (models/qwirkle.onnx, see
 * vision/classify.h). */
int vis_qwirkle_new(double cube_mm, const vis_qwirkle_profile *profile, vis_qwirkle **out,
                    base_err *err);

/* Reads the faces with the model onnx_path (and its manifest beside it)
 * instead: one retrained, or trained without some designs for a bench.
 * On error q keeps its model; errors as vis_classifier_new's, and
 * BASE_EPARSE for a model whose heads are not qwirkle's shape and color. */
int vis_qwirkle_use_model(vis_qwirkle *q, const char *onnx_path, base_err *err);
void vis_qwirkle_free(vis_qwirkle *q);

/* The model q reads faces with (to make an enrolled set for it,
 * vis_pieceset_new).  A new model (vis_qwirkle_use_model) drops the set in
 * use, whose features were the old model's. */
const vis_classifier *vis_qwirkle_model(const vis_qwirkle *q);

/* From the next reading on, each face is judged by the enrolled set too
 * (vision/pieceset.h; made by vis_qwirkle_enrol); NULL stops.  The set is
 * borrowed: it must outlive its use.  BASE_EINVAL (err says what) when it
 * was enrolled with another model. */
int vis_qwirkle_use_pieces(vis_qwirkle *q, const vis_pieceset *set, base_err *err);

/* Enrolment photo `shape` (0..5, the rules' order circle square diamond
 * clover star4 star8; FORMATS.md 7): the view shows six cubes of that
 * shape, one of each colour, laid in the order red orange yellow green
 * blue purple, row by row as seen from the mat's top edge (rows top to
 * bottom, each left to right).  Their features, with those values, are
 * added to set (not finished: vis_pieceset_finish after the sixth
 * photo).  The photo is read as a board of its own: the reader's memory
 * of earlier boards is cleared.  BASE_ENOTFOUND when the view does not
 * show exactly six cubes (or a hand is over them), BASE_EINVAL when
 * several cubes read surely as another colour than their place says (the
 * order is wrong) or set belongs to another model; err says which and
 * where. */
int vis_qwirkle_enrol(vis_qwirkle *q, const vis_image *top, const vis_view *view, int shape,
                      vis_pieceset *set, base_err *err);

/* What a coarse look at the whole play area finds: where the cubes are
 * (so that only that part need be rectified finely), how dark their
 * bodies are, and whether a hand is in the way. */
typedef struct vis_survey {
    int ncandidates;        /* symbol-like blobs on dark bodies */
    double x0_mm, y0_mm, x1_mm, y1_mm; /* their bounding box, table mm */
    int dark;               /* body threshold for vis_view.dark */
    bool hand;
    double hand_mm2;        /* the largest foreign region crossing the edge */
} vis_survey;

/* Surveys a full view of the play area (not a roi), best at about one
 * pixel a millimetre. */
int vis_qwirkle_survey(vis_qwirkle *q, const vis_image *top, const vis_view *view,
                       vis_survey *out, base_err *err);

/* Reads the view.  The handle remembers the last grid rotation so that
 * successive readings of one board keep their axes. */
int vis_qwirkle_read(vis_qwirkle *q, const vis_image *top, const vis_view *view,
                     vis_reading *out, base_err *err);

/* Learns a profile from a view whose cubes show all six colours (one cube
 * of each laid in a row, or any board with all colours): the symbols'
 * hues are clustered into six, starting from the current profile, and the
 * clusters keep the colours' order around the hue circle.  BASE_ENOTFOUND
 * when fewer than six cubes, or fewer than six distinct colours, are
 * seen. */
int vis_qwirkle_learn(vis_qwirkle *q, const vis_image *top, const vis_view *view,
                      vis_qwirkle_profile *out, base_err *err);

#endif
