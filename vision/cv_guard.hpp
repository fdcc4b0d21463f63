// vision/cv_guard.hpp: the one place where the C++ shims (cv.cpp,
// classify_dnn.cpp) turn exceptions into error codes.  Internal: C++ only,
// never included by a C file.
#ifndef TABLECAM_VISION_CV_GUARD_HPP
#define TABLECAM_VISION_CV_GUARD_HPP

#include "base.h"

#include <opencv2/core.hpp>

#include <exception>
#include <new>

// Runs f, which returns 0 or a BASE_E* code, and turns any exception into
// a code; fn names the public call in the message.
template <class F> int vis__cv_guard(base_err *err, const char *fn, F &&f)
{
    try {
        return f();
    } catch (const cv::Exception &e) {
        if (e.code == cv::Error::StsNoMem)
            return base_err_set(err, BASE_ENOMEM, "%s: out of memory (%s)",
                                fn, e.err.c_str());
        return base_err_set(err, BASE_ECV, "%s: OpenCV %s: %s", fn,
                            e.func.empty() ? "error" : e.func.c_str(),
                            e.err.c_str());
    } catch (const std::bad_alloc &) {
        return base_err_set(err, BASE_ENOMEM, "%s: out of memory", fn);
    } catch (const std::exception &e) {
        return base_err_set(err, BASE_ECV, "%s: %s", fn, e.what());
    } catch (...) {
        return base_err_set(err, BASE_ECV, "%s: unknown C++ exception", fn);
    }
}

#endif
