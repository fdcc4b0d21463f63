/* sim: renders a simulated table (camera pose, light, noise, hands) with
 * exact ground truth: the demo's camera, the tests' and benchmarks' data. */
#ifndef TABLECAM_SIM_H
#define TABLECAM_SIM_H

#include "base.h"

#endif
