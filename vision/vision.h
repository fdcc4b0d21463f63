/* vision: frames in, observations out.
 *
 * Capture backends (file, image folder, video, V4L2, libcamera) deliver
 * frames; per-game recognisers turn a rectified frame into pieces.  All
 * OpenCV and libcamera C++ lives in small shims (vision/cv*.cpp) behind C
 * headers with opaque handles; no C++ type or exception crosses into C. */
#ifndef TABLECAM_VISION_H
#define TABLECAM_VISION_H

#include "base.h"
#include "cv.h" /* the OpenCV shim: images, geometry, markers, drawing */

#endif
