/* vision/capture.h: cameras, behind one interface.
 *
 * A capture delivers frames with a timestamp.  vis_capture_open() knows
 * the backends of the vision module by the prefix of SPEC:
 *   file:IMG          one image (then end of stream)
 *   dir:FOLDER        the .png/.jpg files of a folder in name order
 *   video:FILE        a video file (or an image sequence pattern)
 *   v4l2:/dev/videoN  a USB webcam through V4L2
 *   libcamera:N       a libcamera camera (Raspberry Pi)
 * Other modules provide more backends through vis_capture_wrap(): the
 * simulator's `sim:` camera is one.  Files and folders are timed at a
 * fixed frame rate (spec option `:fps=N`, default 30); live cameras by the
 * clock.  A live camera is asked for a size (option `:size=WxH`; by
 * default VIS_CAPTURE_WIDTH x VIS_CAPTURE_HEIGHT for V4L2, whose webcams
 * start at 640x480, where Qwirkle symbols are 5-8 pixels across, and
 * 1280x960 for libcamera, whose 4:3 sensors crop for 16:9) and gives its
 * nearest. */
#ifndef TABLECAM_VISION_CAPTURE_H
#define TABLECAM_VISION_CAPTURE_H

#include <stdbool.h>

#include "base.h"
#include "cv.h"

#define VIS_CAPTURE_WIDTH 1920
#define VIS_CAPTURE_HEIGHT 1080

typedef struct vis_capture vis_capture;

/* Opens a camera; BASE_EINVAL for an unknown prefix (err lists the known
 * ones), BASE_ENOTFOUND / BASE_ENODEV naming the file or device. */
int vis_capture_open(const char *spec, vis_capture **out, base_err *err);

/* A backend from elsewhere: read() returns a new frame and its time in
 * seconds (BASE_EEOF at the end), close() frees self. */
typedef struct vis_capture_ops {
    int (*read)(void *self, vis_image **frame, double *t, base_err *err);
    void (*close)(void *self);
    bool live; /* frames come at the camera's pace, not as fast as read */
} vis_capture_ops;

int vis_capture_wrap(const vis_capture_ops *ops, void *self, const char *name,
                     vis_capture **out);

/* The next frame (free it with vis_image_free) and its time in seconds
 * from the start of the stream.  BASE_EEOF at the end of a file stream. */
int vis_capture_read(vis_capture *c, vis_image **frame, double *t, base_err *err);

/* The spec it was opened with ("dir:frames"). */
const char *vis_capture_name(const vis_capture *c);
bool vis_capture_live(const vis_capture *c);

void vis_capture_free(vis_capture *c);

#endif
