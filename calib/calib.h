/* calib: where the table is, as the camera sees it.
 *
 * The table mat (docs/FORMATS.md section 5): four ArUco DICT_4X4_50
 * markers, ids 0 1 2 3 at the corners top-left, top-right, bottom-right,
 * bottom-left of the play area; their centres form a W x H mm rectangle and
 * each black square is S mm a side.  The table frame has its origin at
 * marker 0's centre, x toward marker 1, y toward marker 3, millimetres.
 * cal_mat_locate() finds the mat in a frame (any 3 of the 4 markers) and
 * gives the homographies between image pixels and table millimetres, on
 * the table and on any plane above it (the top faces of pieces). */
#ifndef TABLECAM_CALIB_H
#define TABLECAM_CALIB_H

#include <stddef.h>

#include "base.h"
#include "cv.h"
#include "qwirkle.h"

/* The mat's size, mm: marker centres w x h apart, marker side s. */
typedef struct cal_mat {
    double w, h, s;
} cal_mat;

/* 500 x 500 mm, 40 mm markers. */
cal_mat cal_mat_default(void);

/* Parses "WxH:S" ("500x500:40"); err names what is wrong. */
int cal_mat_parse(const char *text, cal_mat *out, base_err *err);

/* Table coordinates (mm) of the four corners of marker id (0..3), in the
 * detector's order (the printed marker's top-left, top-right,
 * bottom-right, bottom-left; printed upright, its top toward -y). */
void cal_mat_marker_corners(cal_mat m, int id, vis_point out[4]);

/* Where the mat is in one frame. */
typedef struct cal_mat_fit {
    vis_homography img_to_table; /* image pixel -> table mm (z = 0) */
    vis_homography table_to_img; /* and back */
    unsigned found;              /* bit i set: marker i was seen */
    int nfound;
    double rms_mm;    /* residual of the marker corners on the table, mm */
    double focal_px;  /* the focal length the plane maps assume */
    int width, height; /* the frame's size */
} cal_mat_fit;

/* Looks for the mat's markers in img and fits the homography from every
 * corner of every marker found.  lens may be NULL (an uncalibrated
 * camera); with it, corners are undistorted first and the homographies
 * are those of the ideal pinhole image.  BASE_ENOTFOUND (err says which
 * markers were seen) when fewer than 3 of the 4 markers are visible. */
int cal_mat_locate(vis_aruco *det, const vis_image *img, cal_mat m,
                   const vis_camera *lens, cal_mat_fit *out, base_err *err);

/* The same fit from markers already detected (for tests and for callers
 * that detect once for several purposes). */
int cal_mat_fit_markers(const vis_marker *markers, int n, cal_mat m,
                        int width, int height, const vis_camera *lens,
                        cal_mat_fit *out, base_err *err);

/* The homography from table mm on the plane height_mm above the table (the
 * top faces of 20 mm cubes: 20) to image pixels.  The camera pose comes
 * from the table homography; its focal length from lens when given, else
 * from the homography itself when the view is tilted enough to tell, else
 * from a typical webcam's field of view (fit->focal_px says which was
 * used).  height_mm 0 gives fit->table_to_img. */
int cal_mat_plane(const cal_mat_fit *fit, const vis_camera *lens,
                  double height_mm, vis_homography *table_to_img,
                  base_err *err);

/* Where the camera is: its centre in table millimetres (z up, above the
 * table), from the same pose as cal_mat_plane (lens as there, may be
 * NULL).  Recognisers use it to tell which side faces of a piece the camera
 * sees. */
int cal_mat_camera(const cal_mat_fit *fit, const vis_camera *lens, double xyz_mm[3],
                   base_err *err);

/* The scale of the camera's view of the table near table point (x_mm,
 * y_mm): image pixels per millimetre (the square root of the area ratio),
 * so that a view need not be rectified much finer than the camera sees. */
double cal_mat_px_per_mm(const cal_mat_fit *fit, double x_mm, double y_mm);

/* Like cal_rectify, for the rectangle x0_mm, y0_mm, w_mm x h_mm of the
 * table only: pixel (u, v) of the result shows table point
 * (x0_mm + (u + 0.5) / px_per_mm, y0_mm + (v + 0.5) / px_per_mm) on the
 * plane height_mm above the table. */
int cal_rectify_roi(const vis_image *img, const cal_mat_fit *fit, const vis_camera *lens,
                    double height_mm, double px_per_mm, double x0_mm, double y0_mm,
                    double w_mm, double h_mm, vis_image **out, base_err *err);

/* A top-down view of the table: px_per_mm pixels a millimetre, margin_mm
 * around the markers' centre rectangle.  Pixel (u, v) of the result shows
 * table point ((u + 0.5) / px_per_mm - margin_mm, ...) on the plane
 * height_mm above the table.  lens may be NULL. */
int cal_rectify(const vis_image *img, const cal_mat_fit *fit, cal_mat m,
                const vis_camera *lens, double height_mm, double px_per_mm,
                double margin_mm, vis_image **out, base_err *err);

/* ---- calibration profiles ----
 *
 * What a camera and its light have taught tablecam, as small JSON
 * documents that live in a file or in the database (db_profile_put/get,
 * under their "kind"):
 *   {"kind":"colors","game":"qwirkle","hue":{"red":0,...},"sat":{...}}
 *       the six colours' hue (OpenCV 0..179) and saturation (0..255) as
 *       this camera sees them under this light (vis_qwirkle_learn);
 *   {"kind":"camera","width":W,"height":H,"fx":..,"fy":..,"cx":..,"cy":..,
 *    "dist":[k1,k2,p1,p2,k3,k4,k5,k6],"rms_px":..}
 *       a lens from a ChArUco calibration (vis_calibrate_charuco).
 * The *_to_json calls return a malloc'ed string (free() it); *_from_json
 * errors name the key that is wrong. */
#define CAL_KIND_COLORS "colors"
#define CAL_KIND_CAMERA "camera"
#define CAL_KIND_PIECES "pieces" /* an enrolled set: vision/pieceset.h */

int cal_colors_to_json(const vis_qwirkle_profile *p, char **json, base_err *err);
int cal_colors_from_json(const char *json, vis_qwirkle_profile *out, base_err *err);
int cal_camera_to_json(const vis_camera *c, int width, int height, double rms_px, char **json,
                       base_err *err);
/* width, height (may be NULL) receive the frame size it was made for (0
 * when not recorded). */
int cal_camera_from_json(const char *json, vis_camera *out, int *width, int *height,
                         base_err *err);
/* The "kind" of a profile document. */
int cal_profile_kind(const char *json, char *kind, size_t cap, base_err *err);
/* A profile file: the whole file as a malloc'ed string; and writing one. */
int cal_profile_read(const char *path, char **json, base_err *err);
int cal_profile_write(const char *path, const char *json, base_err *err);

#endif
