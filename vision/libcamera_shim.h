/* vision/libcamera_shim.h: the libcamera capture backend (internal to
 * vision/).  Its C++ stays in libcamera_shim.cpp; built without libcamera
 * it answers BASE_EUNSUPPORTED. */
#ifndef TABLECAM_VISION_LIBCAMERA_SHIM_H
#define TABLECAM_VISION_LIBCAMERA_SHIM_H

#include "capture.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Opens camera number index, BGR at the size nearest width x height
 * (0, 0: 1280x960, the sensors' own 4:3 uncropped); auto exposure and white balance run for the first 30 frames,
 * then are held.  BASE_ENODEV when there is no such camera (err says how
 * many libcamera sees). */
int vis__libcamera_open(int index, int width, int height, vis_capture_ops *ops, void **self,
                        base_err *err);

#ifdef __cplusplus
}
#endif

#endif
