/* vision/cv.h: the OpenCV shim, the only door from tablecam's C into OpenCV.
 *
 * Images, files, colour, geometry (homographies, lens distortion), ArUco
 * and ChArUco markers, drawing and a little analysis, each a plain C call.
 * Everything behind it is C++ (vision/cv.cpp); every entry point catches
 * every exception, so no C++ type or exception ever reaches the caller.
 *
 * Conventions for every call below:
 * - Returns 0, or a negative BASE_E* code: BASE_EINVAL for a bad argument
 *   (NULL, zero size, wrong channel count, ...), BASE_ENOMEM when memory ran
 *   out, BASE_EIO / BASE_EPARSE / BASE_ENOTFOUND for files, BASE_ECV when
 *   OpenCV itself failed.  `err` may be NULL; otherwise it receives a
 *   sentence naming the call, the argument or file, and why.
 * - Outputs are written only on success: `*out` and other results stay
 *   untouched on error (a caller-allocated array such as map_x may be
 *   partly written).
 * - Images made by the shim (`vis_image **out`) belong to the caller, who
 *   frees them with vis_image_free.  Input images may be anything that
 *   describes valid memory (see vis_image).
 * - Nothing here keeps global state; a handle (vis_aruco, vis_video,
 *   vis_video_writer) is used by one thread at a time, everything else is
 *   reentrant. */
#ifndef TABLECAM_VISION_CV_H
#define TABLECAM_VISION_CV_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#include "base.h" /* inside: base.h has no C++ guard of its own */

/* ------------------------------------------------------------------ */
/* Images                                                              */
/* ------------------------------------------------------------------ */

/* An 8-bit image that C reads and writes directly, like AprilTag's
 * image_u8.  Pixel (x, y), channel c is
 *     data[y * stride + x * channels + c]
 * channels is 1 (grey) or 3; a colour image is in OpenCV's B, G, R order
 * (c = 0 is blue).  After vis_convert to HSV or Lab the three channels are
 * H,S,V or L,a,b instead (see vis_convert).  stride is the number of bytes
 * from one row to the next and may exceed width * channels (the shim pads
 * rows to a multiple of 16 bytes): always index with stride.
 *
 * Images made by the shim (vis_image_new and every `vis_image **out`) own
 * their data and must be freed with vis_image_free; their fields must not
 * be changed, only their pixels.  A caller may also fill a vis_image of its
 * own around a buffer it owns (a capture buffer, a static test pattern) and
 * pass it as input, or as the target of drawing; such a struct must never
 * be given to vis_image_free. */
typedef struct vis_image {
    int width;
    int height;
    int stride;   /* bytes per row, >= width * channels */
    int channels; /* 1 or 3 */
    unsigned char *data;
} vis_image;

/* How many threads OpenCV's own pool runs (cv::setNumThreads): 1 runs
 * every OpenCV call on the caller's thread.  Process-wide, so the
 * library never calls it; a program that measures one core's time (the
 * benches) or must not spawn threads does, once, before its first frame. */
void vis_cv_set_threads(int n);

/* How many threads OpenCV's pool runs now (cv::getNumThreads). */
int vis_cv_threads(void);

/* Largest accepted width or height, so that sizes never overflow. */
#define VIS_IMAGE_MAX_SIDE 32768

/* A new image of width x height x channels (1 or 3), every byte zero
 * (black). */
int vis_image_new(int width, int height, int channels, vis_image **out,
                  base_err *err);

/* Frees an image made by the shim; NULL is fine. */
void vis_image_free(vis_image *img);

/* A deep copy of src. */
int vis_image_clone(const vis_image *src, vis_image **out, base_err *err);

/* A deep copy of the rectangle x, y, w, h of src, which must lie inside it
 * (BASE_ERANGE otherwise). */
int vis_image_crop(const vis_image *src, int x, int y, int w, int h,
                   vis_image **out, base_err *err);

/* A colour by value, in B, G, R order like the pixels.  On a 1-channel
 * image a colour is drawn as its grey value, round(0.299 r + 0.587 g +
 * 0.114 b), so a grey colour (r = g = b = v) draws v. */
typedef struct vis_color {
    unsigned char b, g, r;
} vis_color;

/* Convenience constructors. */
vis_color vis_rgb(unsigned char r, unsigned char g, unsigned char b);
vis_color vis_grey(unsigned char v);

/* Sets every pixel of img to c. */
int vis_image_fill(vis_image *img, vis_color c, base_err *err);

/* ------------------------------------------------------------------ */
/* Files and memory                                                    */
/* ------------------------------------------------------------------ */

/* Encoded formats. */
enum vis_format {
    VIS_FORMAT_PNG = 1,
    VIS_FORMAT_JPEG = 2
};

/* Reads a PNG or JPEG (anything OpenCV's imgcodecs knows) from path.
 * channels: 1 to get grey, 3 to get BGR, 0 to get whatever the file holds
 * (1 for a grey file, 3 otherwise; alpha is dropped, 16-bit is scaled to
 * 8).  BASE_ENOTFOUND when the file does not exist, BASE_EIO when it cannot
 * be read, BASE_EPARSE when it is not a decodable image; err names path. */
int vis_image_read(const char *path, int channels, vis_image **out,
                   base_err *err);

/* Writes img to path; the format comes from the extension (.png, .jpg,
 * .jpeg, any case; anything else is BASE_EINVAL).  jpeg_quality 1..100, or
 * 0 for the default (95); ignored for PNG.  BASE_EIO names the path when
 * the file cannot be written. */
int vis_image_write(const char *path, const vis_image *img, int jpeg_quality,
                    base_err *err);

/* Encodes img into a new buffer of *len bytes (format a vis_format;
 * jpeg_quality as for vis_image_write).  *buf is malloc'd: free it with
 * vis_buffer_free. */
int vis_image_encode(const vis_image *img, int format, int jpeg_quality,
                     unsigned char **buf, size_t *len, base_err *err);

/* Frees a buffer from vis_image_encode; NULL is fine. */
void vis_buffer_free(void *buf);

/* Decodes a PNG or JPEG held in memory; channels as for vis_image_read.
 * BASE_EPARSE when the bytes are not a decodable image. */
int vis_image_decode(const unsigned char *buf, size_t len, int channels,
                     vis_image **out, base_err *err);

/* ------------------------------------------------------------------ */
/* Colour, size, blur                                                  */
/* ------------------------------------------------------------------ */

/* Colour conversions (OpenCV's 8-bit conventions).
 * HSV: H = hue in degrees / 2 (0..179), S and V 0..255.
 * Lab: L = L* x 255 / 100, a = a* + 128, b = b* + 128 (D65, sRGB). */
enum vis_convert_code {
    VIS_BGR2GRAY = 1, /* 3 -> 1 channel */
    VIS_GRAY2BGR,     /* 1 -> 3 */
    VIS_BGR2HSV,      /* 3 -> 3 */
    VIS_HSV2BGR,      /* 3 -> 3 */
    VIS_BGR2LAB,      /* 3 -> 3 */
    VIS_LAB2BGR       /* 3 -> 3 */
};

/* A new image holding src converted by code; BASE_EINVAL when src has the
 * wrong number of channels for code. */
int vis_convert(const vis_image *src, int code, vis_image **out,
                base_err *err);

/* Interpolation for resize, warp and remap. */
enum vis_interp {
    VIS_INTER_NEAREST = 0,
    VIS_INTER_LINEAR = 1,
    VIS_INTER_CUBIC = 2,
    VIS_INTER_AREA = 3 /* resize only: best for shrinking */
};

/* A new image of width x height holding src resized. */
int vis_resize(const vis_image *src, int width, int height, int interp,
               vis_image **out, base_err *err);

/* A new image holding src blurred by a Gaussian.  ksize is the odd kernel
 * side, or 0 to derive it from sigma; sigma > 0, or 0 to derive it from
 * ksize (not both 0). */
int vis_gaussian_blur(const vis_image *src, int ksize, double sigma,
                      vis_image **out, base_err *err);

/* ------------------------------------------------------------------ */
/* Geometry: points, homographies, warps                               */
/* ------------------------------------------------------------------ */

/* A point in pixels (x to the right, y down; pixel centres at integers,
 * as in OpenCV) or in any other plane unit. */
typedef struct vis_point {
    double x, y;
} vis_point;

/* A plane-to-plane projective map, 3x3 row-major:
 *     (x', y', w') = m * (x, y, 1),  result (x'/w', y'/w'). */
typedef struct vis_homography {
    double m[9];
} vis_homography;

vis_homography vis_homography_identity(void);

/* a * b: the map that applies b first, then a. */
vis_homography vis_homography_mul(vis_homography a, vis_homography b);

/* The inverse map; BASE_ERANGE when h is singular. */
int vis_homography_invert(vis_homography h, vis_homography *out,
                          base_err *err);

/* Applies h to one point.  A point mapped to infinity (w' == 0) comes back
 * as (HUGE_VAL, HUGE_VAL); use vis_perspective_transform for checking. */
vis_point vis_homography_apply(vis_homography h, vis_point p);

/* Methods for vis_find_homography. */
enum vis_homography_method {
    VIS_HOMOGRAPHY_LSQ = 0,   /* least squares over all points */
    VIS_HOMOGRAPHY_RANSAC = 1 /* robust to outliers */
};

/* The homography mapping src[i] to dst[i], i < n (n >= 4).  For RANSAC,
 * ransac_px is the largest reprojection error (in dst units) of an inlier
 * (0 means 3).  inlier_mask (n bytes, may be NULL) receives 1 for each
 * inlier, 0 for each outlier (all 1 for LSQ).  BASE_ERANGE when no
 * homography can be found (degenerate points). */
int vis_find_homography(const vis_point *src, const vis_point *dst, int n,
                        int method, double ransac_px,
                        unsigned char *inlier_mask, vis_homography *h,
                        base_err *err);

/* out[i] = h applied to in[i], i < n (in and out may be the same array).
 * BASE_ERANGE when a point maps to infinity. */
int vis_perspective_transform(vis_homography h, const vis_point *in,
                              vis_point *out, int n, base_err *err);

/* A new out_w x out_h image: dst(x, y) = src(h^-1 (x, y)); h maps source
 * pixels to destination pixels.  Pixels from outside src get border. */
int vis_warp_perspective(const vis_image *src, vis_homography h, int out_w,
                         int out_h, int interp, vis_color border,
                         vis_image **out, base_err *err);

/* Like vis_warp_perspective, but paints the warped src onto the existing
 * dst (same channel count) and leaves every dst pixel that src does not
 * cover as it was: pasting a texture (a marker, a tile) into a scene. */
int vis_warp_perspective_onto(const vis_image *src, vis_homography h,
                              vis_image *dst, int interp, base_err *err);

/* ------------------------------------------------------------------ */
/* Lens: intrinsics, distortion, remap                                 */
/* ------------------------------------------------------------------ */

/* Pinhole intrinsics and distortion, by value.  dist is OpenCV's
 * (k1, k2, p1, p2, k3, k4, k5, k6); zeros for terms not used (k4..k6 = 0
 * is the usual 5-term model). */
typedef struct vis_camera {
    double fx, fy; /* focal lengths in pixels */
    double cx, cy; /* principal point in pixels */
    double dist[8];
} vis_camera;

/* Distorted (as the lens images it) pixel -> ideal pinhole pixel of the
 * same camera, out[i] for in[i], i < n (in and out may alias). */
int vis_undistort_points(vis_camera cam, const vis_point *in, vis_point *out,
                         int n, base_err *err);

/* The inverse: ideal pinhole pixel -> distorted pixel, out[i] for in[i]
 * (what a simulated lens does to ground-truth points). */
int vis_distort_points(vis_camera cam, const vis_point *in, vis_point *out,
                       int n, base_err *err);

/* A new image, same size, as a pinhole camera with the same fx, fy, cx, cy
 * would have seen it.  For many frames, build the maps once with
 * vis_undistort_maps and call vis_remap. */
int vis_undistort_image(const vis_image *src, vis_camera cam,
                        vis_image **out, base_err *err);

/* Fills map_x, map_y (caller-allocated, width * height floats each,
 * row-major) so that vis_remap(distorted, map_x, map_y, width, height)
 * equals vis_undistort_image. */
int vis_undistort_maps(vis_camera cam, int width, int height, float *map_x,
                       float *map_y, base_err *err);

/* A new out_w x out_h image: dst(x, y) = src(map_x[i], map_y[i]) with
 * i = y * out_w + x, sampled with interp (not AREA); pixels mapped outside
 * src get border.  The simulator builds lens distortion this way. */
int vis_remap(const vis_image *src, const float *map_x, const float *map_y,
              int out_w, int out_h, int interp, vis_color border,
              vis_image **out, base_err *err);

/* ------------------------------------------------------------------ */
/* ArUco markers                                                       */
/* ------------------------------------------------------------------ */

/* Dictionaries.  The table mat uses VIS_ARUCO_4X4_50; the ChArUco
 * calibration board uses VIS_ARUCO_5X5_100 so that its markers can never
 * be taken for the mat's. */
enum vis_aruco_dict {
    VIS_ARUCO_4X4_50 = 0,
    VIS_ARUCO_5X5_100 = 1
};

/* One detected marker.  corners are in image pixels, sub-pixel refined,
 * in the marker's own order: top-left, top-right, bottom-right,
 * bottom-left of the printed marker (clockwise in the image when the
 * marker is seen from the front), as OpenCV gives them. */
typedef struct vis_marker {
    int id;
    vis_point corners[4];
} vis_marker;

/* A detector: dictionary and parameters made once, so that repeated
 * detection costs only the detection. */
typedef struct vis_aruco vis_aruco;

/* dict is a vis_aruco_dict. */
int vis_aruco_new(int dict, vis_aruco **out, base_err *err);
void vis_aruco_free(vis_aruco *a);

/* Speed for accuracy: with factor 2 (or 3, 4) candidates are searched in
 * the image shrunk by factor, then every corner is refined to sub-pixel
 * precision in the full image.  Several times faster on a large frame;
 * markers narrower than about 20 x factor pixels may be missed.  1 (the
 * default) searches the full image. */
int vis_aruco_set_decimate(vis_aruco *a, int factor, base_err *err);

/* Detects markers in img (1 or 3 channels).  Writes up to cap markers to
 * out, sorted by id (then by position for repeated ids), and sets *n to the
 * number found, which may exceed cap (as snprintf does); out may be NULL
 * when cap is 0. */
int vis_aruco_detect(vis_aruco *a, const vis_image *img, vis_marker *out,
                     int cap, int *n, base_err *err);

/* Like vis_aruco_detect, inside the rectangle x0, y0, w x h of img only
 * (clipped to the image), enlarged scale times (1..8) first: a small or
 * blurred marker that the whole frame's search misses is often found so,
 * when another marker says where to look.  Corners are in img's pixels. */
int vis_aruco_detect_roi(vis_aruco *a, const vis_image *img, int x0, int y0,
                         int w, int h, double scale, vis_marker *out,
                         int cap, int *n, base_err *err);

/* Finds marker id where guess (its four corners, in the detector's order)
 * says it about is, by its known pattern rather than by decoding it: for a
 * marker too small or too blurred to decode.  The pattern is slid up to
 * search cells (0..6) from the guess, then its homography refined by
 * enhanced correlation.  out gets the corners; *score the correlation
 * (0..1) of the frame with the pattern; *margin how much better the
 * pattern fits than any other marker of the dictionary, any way round
 * (accept only a clear margin).  BASE_ENOTFOUND when it cannot be aligned. */
int vis_aruco_align(vis_aruco *a, const vis_image *img, int id,
                    const vis_point guess[4], double search, vis_marker *out,
                    double *score, double *margin, base_err *err);

/* Renders marker id of VIS_ARUCO_4X4_50 as a new 1-channel side_px x
 * side_px image: black (0) and white (255) cells, the one-cell black border
 * included (6 x 6 cells; side_px >= 6, best a multiple of 6).  No white
 * margin: leave one around it when placing it.  BASE_ERANGE for an id
 * outside 0..49. */
int vis_aruco_marker_bits(int id, int side_px, vis_image **out,
                          base_err *err);

/* The 4 x 4 inner cells of marker id of VIS_ARUCO_4X4_50, row by row from
 * the top-left: 1 white, 0 black (the border cells are all black).  For a
 * renderer that draws the cells itself. */
int vis_aruco_marker_cells(int id, unsigned char cells[16], base_err *err);

/* ------------------------------------------------------------------ */
/* ChArUco board: lens calibration                                     */
/* ------------------------------------------------------------------ */

/* A ChArUco board of squares_x x squares_y chessboard squares with
 * VIS_ARUCO_5X5_100 markers in the white ones; marker_len < square_len, in
 * any one unit (the ratio is what counts). */
typedef struct vis_charuco_spec {
    int squares_x, squares_y; /* >= 2 each; markers needed <= 100 */
    double square_len;
    double marker_len;
} vis_charuco_spec;

/* Renders the board as a new 1-channel image of width x height with a
 * white margin of margin_px around it (the board keeps its aspect ratio and
 * is centred). */
int vis_charuco_board_render(vis_charuco_spec spec, int width, int height,
                             int margin_px, vis_image **out, base_err *err);

/* Calibrates a camera from n images of the board (all the same size; at
 * least 3 in which the board is found, better 10-20 from varied angles).
 * Fills *cam (k1, k2, p1, p2; k3 is held at 0, which suits ordinary
 * webcam lenses and does not overfit; k4..k6 = 0) and *rms, the reprojection
 * error in pixels.  *used (may be NULL) receives how many images
 * contributed.  BASE_ENOTFOUND when too few images show the board. */
int vis_calibrate_charuco(const vis_image *const *images, int n,
                          vis_charuco_spec spec, vis_camera *cam,
                          double *rms, int *used, base_err *err);

/* ------------------------------------------------------------------ */
/* Drawing (overlays and the simulator), in place on img               */
/* ------------------------------------------------------------------ */

/* thickness in pixels (>= 1), or VIS_FILLED for circles, rectangles and
 * polygons.  Coordinates are vis_points with sub-pixel precision (1/256
 * px).  flags: VIS_DRAW_AA for anti-aliased edges. */
#define VIS_FILLED (-1)
#define VIS_DRAW_AA 1

int vis_draw_line(vis_image *img, vis_point a, vis_point b, vis_color c,
                  int thickness, int flags, base_err *err);

int vis_draw_circle(vis_image *img, vis_point centre, double radius,
                    vis_color c, int thickness, int flags, base_err *err);

/* Axis-aligned rectangle with corners (x0, y0) and (x1, y1) inclusive. */
int vis_draw_rect(vis_image *img, int x0, int y0, int x1, int y1,
                  vis_color c, int thickness, base_err *err);

/* The polygon pts[0..n-1] (n >= 2; >= 3 when filled), convex or not.
 * With thickness VIS_FILLED it is filled (a self-intersecting outline by
 * the even-odd rule, as OpenCV's fillPoly does); otherwise its outline is
 * drawn, closed back to pts[0] when closed is nonzero. */
int vis_draw_polygon(vis_image *img, const vis_point *pts, int n,
                     vis_color c, int thickness, int closed, int flags,
                     base_err *err);

/* Fills the polygon pts[0..n-1] (n >= 3) blending c over what is there:
 * new = alpha * c + (1 - alpha) * old, alpha in [0, 1].  For overlays
 * (a translucent highlight over a cell). */
int vis_blend_polygon(vis_image *img, const vis_point *pts, int n,
                      vis_color c, double alpha, int flags, base_err *err);

/* Draws text (ASCII; Hershey simplex font) with its baseline starting at
 * origin; scale 1.0 is about 22 px tall capitals. */
int vis_draw_text(vis_image *img, const char *text, vis_point origin,
                  double scale, vis_color c, int thickness, int flags,
                  base_err *err);

/* ------------------------------------------------------------------ */
/* Analysis helpers                                                    */
/* ------------------------------------------------------------------ */

/* A new image |a - b| per channel (same size and channels): motion and
 * stillness detection between frames. */
int vis_absdiff(const vis_image *a, const vis_image *b, vis_image **out,
                base_err *err);

/* Mean and standard deviation per channel of the pixels inside the
 * polygon pts[0..n-1] (n >= 3); channels beyond img->channels are set to 0.
 * *count (may be NULL) receives the number of pixels inside; BASE_ERANGE
 * when none is (polygon outside the image or empty). */
int vis_polygon_stats(const vis_image *img, const vis_point *pts, int n,
                      double mean[3], double stddev[3], int *count,
                      base_err *err);

/* ------------------------------------------------------------------ */
/* Video files and devices (OpenCV videoio)                            */
/* ------------------------------------------------------------------ */

typedef struct vis_video vis_video;

/* Opens a video file (what FFmpeg reads; .avi also with OpenCV's own
 * Motion-JPEG reader) or an image sequence: a pattern with one %d or
 * %0<n>d such as "frames/%04d.png", numbered from 0 or 1 and ending at the
 * first missing number.  BASE_ENOTFOUND / BASE_EIO name the file. */
int vis_video_open_file(const char *path, vis_video **out, base_err *err);

/* Opens camera number index (/dev/video<index>, through V4L2) at the
 * requested size (0, 0 for the device default).  BASE_ENODEV when it does
 * not exist or cannot be opened (OpenCV may then log a warning on stderr
 * itself: the one place where the shim cannot keep it quiet). */
int vis_video_open_device(int index, int width, int height, vis_video **out,
                          base_err *err);

/* The next frame as a new BGR image; BASE_EEOF at the end of a file. */
int vis_video_read(vis_video *v, vis_image **out, base_err *err);

/* Locks a camera's exposure and white balance where its driver allows, so
 * that the light the recogniser sees stays put (call it once auto exposure
 * has settled).  BASE_EUNSUPPORTED when the device controls neither. */
int vis_video_lock_exposure(vis_video *v, base_err *err);

void vis_video_free(vis_video *v);

/* Writes frames to a Motion-JPEG .avi at fps frames per second; every frame
 * must be width x height, 3 channels. */
typedef struct vis_video_writer vis_video_writer;

int vis_video_writer_new(const char *path, int width, int height, double fps,
                         vis_video_writer **out, base_err *err);
int vis_video_writer_write(vis_video_writer *w, const vis_image *frame,
                           base_err *err);
/* Finishes the file; NULL is fine. */
void vis_video_writer_free(vis_video_writer *w);

#ifdef __cplusplus
}
#endif

#endif
