/* calib: camera intrinsics, the table mat (ArUco homography from image to
 * table millimetres) and colour profiles; each saved and reloaded. */
#ifndef TABLECAM_CALIB_H
#define TABLECAM_CALIB_H

#include "base.h"

#endif
