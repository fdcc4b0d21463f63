// vision/cv.cpp: the OpenCV shim behind vision/cv.h.
//
// Every extern "C" entry point validates its arguments, then runs its body
// inside vis__cv_guard (cv_guard.hpp), which turns every C++ exception into
// a BASE_E* code and a sentence in the caller's base_err: no exception and
// no C++ type leaves this file.  Files are read and written with stdio
// rather than cv::imread/imwrite so that errors name the path and errno,
// and so that OpenCV's own logger never prints on the user's terminal.

#include "cv.h"
#include "cv_guard.hpp"

#include <opencv2/aruco.hpp>
#include <opencv2/aruco/charuco.hpp>
#include <opencv2/calib3d.hpp>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/video/tracking.hpp>
#include <opencv2/videoio.hpp>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <sys/stat.h>
#include <vector>

// ---------------------------------------------------------------------
// Internals
// ---------------------------------------------------------------------

static int cv__image_new(int width, int height, int channels, bool zero,
                         vis_image **out, base_err *err);

namespace {

// Checks that img describes a usable image; what names it in the message.
int cv__check_image(const vis_image *img, const char *fn, const char *what,
                    base_err *err)
{
    if (!img)
        return base_err_set(err, BASE_EINVAL, "%s: %s is NULL", fn, what);
    if (img->width <= 0 || img->height <= 0 ||
        img->width > VIS_IMAGE_MAX_SIDE || img->height > VIS_IMAGE_MAX_SIDE)
        return base_err_set(err, BASE_EINVAL,
                            "%s: %s has size %dx%d (expected 1..%d each)", fn,
                            what, img->width, img->height,
                            VIS_IMAGE_MAX_SIDE);
    if (img->channels != 1 && img->channels != 3)
        return base_err_set(err, BASE_EINVAL,
                            "%s: %s has %d channels (expected 1 or 3)", fn,
                            what, img->channels);
    if (img->stride < img->width * img->channels)
        return base_err_set(err, BASE_EINVAL,
                            "%s: %s has stride %d < width %d x channels %d",
                            fn, what, img->stride, img->width,
                            img->channels);
    if (!img->data)
        return base_err_set(err, BASE_EINVAL, "%s: %s has no pixel data", fn,
                            what);
    return 0;
}

int cv__check_size(int w, int h, const char *fn, base_err *err)
{
    if (w <= 0 || h <= 0 || w > VIS_IMAGE_MAX_SIDE || h > VIS_IMAGE_MAX_SIDE)
        return base_err_set(err, BASE_EINVAL,
                            "%s: size %dx%d (expected 1..%d each)", fn, w, h,
                            VIS_IMAGE_MAX_SIDE);
    return 0;
}

// A cv::Mat header over an image's pixels (no copy).
cv::Mat cv__wrap(const vis_image *img)
{
    return cv::Mat(img->height, img->width, CV_8UC(img->channels),
                   static_cast<void *>(img->data),
                   static_cast<size_t>(img->stride));
}

// Owns a vis_image until release(), so that an exception frees it.
struct cv__owned {
    vis_image *p = nullptr;
    cv__owned() = default;
    cv__owned(const cv__owned &) = delete;
    cv__owned &operator=(const cv__owned &) = delete;
    ~cv__owned() { vis_image_free(p); }
    vis_image *release()
    {
        vis_image *r = p;
        p = nullptr;
        return r;
    }
};

int cv__alloc(int w, int h, int channels, cv__owned &o, base_err *err)
{
    return vis_image_new(w, h, channels, &o.p, err);
}

// For an OpenCV call that writes every pixel of its output (a warp, a
// remap, a resize): the pixels are not zeroed first (the rectified views
// are a megabyte or two a frame), only the rows' padding.
int cv__alloc_dst(int w, int h, int channels, cv__owned &o, base_err *err)
{
    return cv__image_new(w, h, channels, false, &o.p, err);
}

// Copies m (8-bit, 1 or 3 channels; 4 is reduced to 3) into a new image.
int cv__from_mat(const cv::Mat &m, vis_image **out, const char *fn,
                 base_err *err)
{
    cv::Mat src = m;
    if (src.depth() != CV_8U)
        return base_err_set(err, BASE_ECV, "%s: unexpected depth %d", fn,
                            src.depth());
    if (src.channels() == 4)
        cv::cvtColor(m, src, cv::COLOR_BGRA2BGR);
    else if (src.channels() == 2)
        return base_err_set(err, BASE_ECV, "%s: unexpected 2-channel image",
                            fn);
    cv__owned o;
    int rc = cv__alloc(src.cols, src.rows, src.channels(), o, err);
    if (rc)
        return rc;
    cv::Mat dst = cv__wrap(o.p);
    src.copyTo(dst);
    *out = o.release();
    return 0;
}

// After an OpenCV call wrote into d (a wrapper of img), makes sure the
// pixels ended in img even if OpenCV chose to reallocate d.
void cv__settle(cv::Mat &d, vis_image *img)
{
    if (d.data != img->data) {
        cv::Mat w = cv__wrap(img);
        d.copyTo(w);
    }
}

int cv__luma(vis_color c)
{
    return static_cast<int>(std::lround(0.299 * c.r + 0.587 * c.g +
                                        0.114 * c.b));
}

cv::Scalar cv__scalar(vis_color c, int channels)
{
    if (channels == 1)
        return cv::Scalar(cv__luma(c));
    return cv::Scalar(c.b, c.g, c.r);
}

int cv__interp(int interp, bool allow_area, const char *fn, base_err *err,
               int *out)
{
    switch (interp) {
    case VIS_INTER_NEAREST: *out = cv::INTER_NEAREST; return 0;
    case VIS_INTER_LINEAR: *out = cv::INTER_LINEAR; return 0;
    case VIS_INTER_CUBIC: *out = cv::INTER_CUBIC; return 0;
    case VIS_INTER_AREA:
        if (allow_area) {
            *out = cv::INTER_AREA;
            return 0;
        }
        break;
    default: break;
    }
    return base_err_set(err, BASE_EINVAL, "%s: interpolation %d not valid here",
                        fn, interp);
}

bool cv__finite(vis_point p) { return std::isfinite(p.x) && std::isfinite(p.y); }

int cv__check_points(const vis_point *pts, int n, int min_n, const char *fn,
                     const char *what, base_err *err)
{
    if (!pts && n > 0)
        return base_err_set(err, BASE_EINVAL, "%s: %s is NULL", fn, what);
    if (n < min_n)
        return base_err_set(err, BASE_EINVAL,
                            "%s: %d points in %s (need at least %d)", fn, n,
                            what, min_n);
    for (int i = 0; i < n; i++)
        if (!cv__finite(pts[i]))
            return base_err_set(err, BASE_EINVAL,
                                "%s: %s[%d] is not a finite number", fn, what,
                                i);
    return 0;
}

// True when the points do not span the plane (all on one line or one
// point): the smaller eigenvalue of their scatter matrix vanishes.
bool cv__collinear(const vis_point *p, int n)
{
    double mx = 0, my = 0;
    for (int i = 0; i < n; i++) {
        mx += p[i].x;
        my += p[i].y;
    }
    mx /= n;
    my /= n;
    double sxx = 0, syy = 0, sxy = 0;
    for (int i = 0; i < n; i++) {
        double dx = p[i].x - mx, dy = p[i].y - my;
        sxx += dx * dx;
        syy += dy * dy;
        sxy += dx * dy;
    }
    double tr = sxx + syy, det = sxx * syy - sxy * sxy;
    double disc = std::sqrt(std::max(0.0, tr * tr / 4 - det));
    double lmax = tr / 2 + disc, lmin = tr / 2 - disc;
    return lmax <= 0 || lmin <= 1e-10 * lmax;
}

// Drawing coordinates carry 8 fractional bits (1/256 px).
const int cv__shift = 8;
const double cv__scale = 256.0;
// Beyond this OpenCV's fixed-point drawing would overflow.
const double cv__max_coord = 1e6;

int cv__draw_point(vis_point p, const char *fn, base_err *err, cv::Point *out)
{
    if (!cv__finite(p) || std::fabs(p.x) > cv__max_coord ||
        std::fabs(p.y) > cv__max_coord)
        return base_err_set(err, BASE_EINVAL,
                            "%s: point (%g, %g) out of the drawable range", fn,
                            p.x, p.y);
    out->x = static_cast<int>(std::lround(p.x * cv__scale));
    out->y = static_cast<int>(std::lround(p.y * cv__scale));
    return 0;
}

int cv__draw_points(const vis_point *pts, int n, const char *fn,
                    base_err *err, std::vector<cv::Point> &out)
{
    out.resize(static_cast<size_t>(n));
    for (int i = 0; i < n; i++) {
        int rc = cv__draw_point(pts[i], fn, err, &out[static_cast<size_t>(i)]);
        if (rc)
            return rc;
    }
    return 0;
}

int cv__line_type(int flags, const char *fn, base_err *err, int *out)
{
    if (flags & ~VIS_DRAW_AA)
        return base_err_set(err, BASE_EINVAL, "%s: unknown flags 0x%x", fn,
                            static_cast<unsigned>(flags));
    *out = (flags & VIS_DRAW_AA) ? cv::LINE_AA : cv::LINE_8;
    return 0;
}

int cv__thickness(int t, bool fill_ok, const char *fn, base_err *err)
{
    if (t == VIS_FILLED && fill_ok)
        return 0;
    if (t < 1 || t > 1000)
        return base_err_set(err, BASE_EINVAL,
                            "%s: thickness %d (expected 1..1000%s)", fn, t,
                            fill_ok ? " or VIS_FILLED" : "");
    return 0;
}

cv::Matx33d cv__matx(vis_homography h)
{
    return cv::Matx33d(h.m);
}

vis_homography cv__from_matx(const cv::Mat &m)
{
    vis_homography h;
    cv::Mat d;
    m.convertTo(d, CV_64F);
    for (int i = 0; i < 9; i++)
        h.m[i] = d.at<double>(i / 3, i % 3);
    return h;
}

bool cv__homography_finite(vis_homography h)
{
    for (double v : h.m)
        if (!std::isfinite(v))
            return false;
    return true;
}

cv::Matx33d cv__camera_matrix(const vis_camera &c)
{
    return cv::Matx33d(c.fx, 0, c.cx, 0, c.fy, c.cy, 0, 0, 1);
}

cv::Mat cv__dist(const vis_camera &c)
{
    cv::Mat d(1, 8, CV_64F);
    for (int i = 0; i < 8; i++)
        d.at<double>(0, i) = c.dist[i];
    return d;
}

int cv__check_camera(const vis_camera &c, const char *fn, base_err *err)
{
    bool ok = std::isfinite(c.fx) && std::isfinite(c.fy) &&
              std::isfinite(c.cx) && std::isfinite(c.cy) && c.fx > 0 &&
              c.fy > 0;
    for (double v : c.dist)
        ok = ok && std::isfinite(v);
    if (!ok)
        return base_err_set(err, BASE_EINVAL,
                            "%s: camera needs fx, fy > 0 and finite values",
                            fn);
    return 0;
}

int cv__dict_name(int dict, const char *fn, base_err *err, int *out)
{
    switch (dict) {
    case VIS_ARUCO_4X4_50: *out = cv::aruco::DICT_4X4_50; return 0;
    case VIS_ARUCO_5X5_100: *out = cv::aruco::DICT_5X5_100; return 0;
    default:
        return base_err_set(err, BASE_EINVAL, "%s: unknown dictionary %d", fn,
                            dict);
    }
}

cv::Ptr<cv::aruco::DetectorParameters> cv__detector_params()
{
    cv::Ptr<cv::aruco::DetectorParameters> p =
        cv::aruco::DetectorParameters::create();
    // Sub-pixel corners: the mat homography is only as good as they are.
    p->cornerRefinementMethod = cv::aruco::CORNER_REFINE_SUBPIX;
    p->cornerRefinementMaxIterations = 50;
    p->cornerRefinementMinAccuracy = 0.01;
    // The refinement window must stay inside one marker cell: the default
    // (5, an 11 px window) pulls the corners of markers under ~60 px wide
    // toward the inner cells by several pixels.
    p->cornerRefinementWinSize = 3;
    return p;
}

// Reads a whole file; sets a message naming path on failure.
int cv__read_file(const char *path, const char *fn, std::vector<uchar> &buf,
                  base_err *err)
{
    FILE *f = std::fopen(path, "rb");
    if (!f) {
        int e = errno;
        return base_err_set(err, e == ENOENT ? BASE_ENOTFOUND : BASE_EIO,
                            "%s: cannot open '%s': %s", fn, path,
                            std::strerror(e));
    }
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        std::fclose(f);
        return base_err_set(err, BASE_EIO, "%s: '%s' is not a regular file",
                            fn, path);
    }
    buf.resize(static_cast<size_t>(st.st_size));
    size_t got = buf.empty() ? 0 : std::fread(buf.data(), 1, buf.size(), f);
    int bad = std::ferror(f);
    std::fclose(f);
    if (bad || got != buf.size())
        return base_err_set(err, BASE_EIO, "%s: error reading '%s'", fn,
                            path);
    return 0;
}

int cv__imread_flags(int channels, const char *fn, base_err *err, int *out)
{
    switch (channels) {
    case 0: *out = cv::IMREAD_ANYCOLOR; return 0;
    case 1: *out = cv::IMREAD_GRAYSCALE; return 0;
    case 3: *out = cv::IMREAD_COLOR; return 0;
    default:
        return base_err_set(err, BASE_EINVAL,
                            "%s: channels %d (expected 0, 1 or 3)", fn,
                            channels);
    }
}

// Decodes bytes; what names the source ("'x.png'" or "buffer").
int cv__decode(const uchar *buf, size_t len, int channels, const char *fn,
               const char *what, vis_image **out, base_err *err)
{
    int flags = 0;
    int rc = cv__imread_flags(channels, fn, err, &flags);
    if (rc)
        return rc;
    if (len == 0)
        return base_err_set(err, BASE_EPARSE, "%s: %s is empty", fn, what);
    if (len > static_cast<size_t>(INT32_MAX))
        return base_err_set(err, BASE_EPARSE, "%s: %s is too large", fn,
                            what);
    cv::Mat in(1, static_cast<int>(len), CV_8UC1,
               const_cast<uchar *>(buf));
    cv::Mat m = cv::imdecode(in, flags);
    if (m.empty())
        return base_err_set(err, BASE_EPARSE,
                            "%s: %s is not a PNG, JPEG or other readable image",
                            fn, what);
    if (m.depth() != CV_8U) {
        cv::Mat t;
        m.convertTo(t, CV_8U, m.depth() == CV_16U ? 1.0 / 257.0 : 1.0);
        m = t;
    }
    return cv__from_mat(m, out, fn, err);
}

int cv__encode(const vis_image *img, int format, int quality, const char *fn,
               std::vector<uchar> &buf, base_err *err)
{
    std::vector<int> params;
    const char *ext;
    if (format == VIS_FORMAT_PNG) {
        ext = ".png";
        params = {cv::IMWRITE_PNG_COMPRESSION, 3};
    } else if (format == VIS_FORMAT_JPEG) {
        if (quality == 0)
            quality = 95;
        if (quality < 1 || quality > 100)
            return base_err_set(err, BASE_EINVAL,
                                "%s: JPEG quality %d (expected 1..100 or 0)",
                                fn, quality);
        ext = ".jpg";
        params = {cv::IMWRITE_JPEG_QUALITY, quality};
    } else {
        return base_err_set(err, BASE_EINVAL, "%s: unknown format %d", fn,
                            format);
    }
    cv::Mat m = cv__wrap(img);
    if (!cv::imencode(ext, m, buf, params) || buf.empty())
        return base_err_set(err, BASE_ECV, "%s: encoding failed", fn);
    return 0;
}

bool cv__ends_with(const std::string &s, const char *suffix)
{
    size_t n = std::strlen(suffix);
    if (s.size() < n)
        return false;
    for (size_t i = 0; i < n; i++)
        if (std::tolower(static_cast<unsigned char>(s[s.size() - n + i])) !=
            suffix[i])
            return false;
    return true;
}

// Even-odd filled polygon mask of pts over the rectangle roi of an image;
// returns false when the polygon misses the image.
bool cv__polygon_mask(const std::vector<cv::Point> &fixed, cv::Size size,
                      int line_type, cv::Rect *roi, cv::Mat *mask)
{
    int minx = INT32_MAX, miny = INT32_MAX, maxx = INT32_MIN,
        maxy = INT32_MIN;
    for (const cv::Point &p : fixed) {
        minx = std::min(minx, p.x);
        miny = std::min(miny, p.y);
        maxx = std::max(maxx, p.x);
        maxy = std::max(maxy, p.y);
    }
    // Fixed point to pixels, one pixel of slack for anti-aliasing.
    int x0 = (minx >> cv__shift) - 1, y0 = (miny >> cv__shift) - 1;
    int x1 = (maxx >> cv__shift) + 2, y1 = (maxy >> cv__shift) + 2;
    cv::Rect r = cv::Rect(x0, y0, x1 - x0 + 1, y1 - y0 + 1) &
                 cv::Rect(0, 0, size.width, size.height);
    if (r.empty())
        return false;
    std::vector<cv::Point> local(fixed.size());
    for (size_t i = 0; i < fixed.size(); i++)
        local[i] = fixed[i] - cv::Point(r.x << cv__shift, r.y << cv__shift);
    *mask = cv::Mat::zeros(r.size(), CV_8UC1);
    const cv::Point *pp = local.data();
    int np = static_cast<int>(local.size());
    cv::fillPoly(*mask, &pp, &np, 1, cv::Scalar(255), line_type, cv__shift);
    *roi = r;
    return true;
}

} // namespace

// ---------------------------------------------------------------------
// Opaque handles (C sees only their names)
// ---------------------------------------------------------------------

struct vis_aruco {
    cv::Ptr<cv::aruco::Dictionary> dict;
    cv::Ptr<cv::aruco::DetectorParameters> params;
    // Kept between calls so that repeated detection reuses the memory.
    std::vector<std::vector<cv::Point2f>> corners, rejected;
    std::vector<int> ids;
    cv::Mat grey, small;
    int decimate = 1;
    // vis_aruco_align's patterns, made on first use: id * 4 + quarter turns.
    std::vector<cv::Mat> patterns;
};

struct vis_video {
    cv::VideoCapture cap;
    std::string name;
    cv::Mat frame;
    // An image sequence is read here rather than by OpenCV's CAP_IMAGES,
    // which prints a warning when the sequence ends.
    bool sequence = false;
    std::string prefix, suffix; // around the number
    int digits = 0;             // zero-padded width, 0 for plain %d
    long next = 0;
};

namespace {

// Splits "dir/f%04d.png" into prefix, width and suffix; false unless the
// pattern holds exactly one %d or %0<n>d (and %% for a literal %).
bool cv__parse_pattern(const std::string &p, vis_video *v)
{
    std::string pre, suf;
    int found = 0;
    for (size_t i = 0; i < p.size(); i++) {
        std::string &dst = found ? suf : pre;
        if (p[i] != '%') {
            dst += p[i];
            continue;
        }
        if (i + 1 < p.size() && p[i + 1] == '%') {
            dst += '%';
            i++;
            continue;
        }
        size_t j = i + 1;
        int width = 0;
        if (j < p.size() && p[j] == '0') {
            j++;
            while (j < p.size() && std::isdigit(static_cast<unsigned char>(p[j])) &&
                   width < 100)
                width = width * 10 + (p[j++] - '0');
            if (width == 0 || width > 12)
                return false;
        }
        if (j >= p.size() || p[j] != 'd' || found)
            return false;
        found = 1;
        v->digits = width;
        i = j;
    }
    if (!found)
        return false;
    v->prefix = pre;
    v->suffix = suf;
    return true;
}

std::string cv__sequence_path(const vis_video *v, long k)
{
    char num[32];
    std::snprintf(num, sizeof num, "%0*ld", v->digits, k);
    return v->prefix + num + v->suffix;
}

bool cv__exists(const std::string &path)
{
    struct stat st;
    return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

} // namespace

struct vis_video_writer {
    cv::VideoWriter w;
    std::string path;
    int width, height;
};

// ---------------------------------------------------------------------
// Images
// ---------------------------------------------------------------------

// zero: the pixels too (else only each row's padding: for an image an
// OpenCV call writes whole, see cv__alloc_dst).
static int cv__image_new(int width, int height, int channels, bool zero,
                         vis_image **out, base_err *err)
{
    const char *fn = "vis_image_new";
    if (!out)
        return base_err_set(err, BASE_EINVAL, "%s: out is NULL", fn);
    int rc = cv__check_size(width, height, fn, err);
    if (rc)
        return rc;
    if (channels != 1 && channels != 3)
        return base_err_set(err, BASE_EINVAL,
                            "%s: %d channels (expected 1 or 3)", fn, channels);
    // Rows padded to 16 bytes: aligned for SIMD, and a caller who forgets
    // stride finds out at once.
    size_t stride = (static_cast<size_t>(width) * channels + 15) & ~size_t(15);
    vis_image *img = static_cast<vis_image *>(std::malloc(sizeof *img));
    if (!img)
        return base_err_set(err, BASE_ENOMEM, "%s: out of memory", fn);
    img->data = static_cast<unsigned char *>(
        zero ? std::calloc(static_cast<size_t>(height), stride)
             : std::malloc(static_cast<size_t>(height) * stride));
    if (!img->data) {
        std::free(img);
        return base_err_set(err, BASE_ENOMEM,
                            "%s: out of memory for %dx%dx%d", fn, width,
                            height, channels);
    }
    size_t row = static_cast<size_t>(width) * channels;
    for (int y = 0; !zero && row < stride && y < height; y++)
        std::memset(img->data + y * stride + row, 0, stride - row);
    img->width = width;
    img->height = height;
    img->channels = channels;
    img->stride = static_cast<int>(stride);
    *out = img;
    return 0;
}

extern "C" void vis_cv_set_threads(int n)
{
    try {
        cv::setNumThreads(n < 1 ? 1 : n);
    } catch (...) {
    }
}

extern "C" int vis_cv_threads(void)
{
    try {
        return cv::getNumThreads();
    } catch (...) {
        return 1;
    }
}

extern "C" int vis_image_new(int width, int height, int channels,
                             vis_image **out, base_err *err)
{
    return cv__image_new(width, height, channels, true, out, err);
}

extern "C" void vis_image_free(vis_image *img)
{
    if (!img)
        return;
    std::free(img->data);
    std::free(img);
}

extern "C" int vis_image_clone(const vis_image *src, vis_image **out,
                               base_err *err)
{
    const char *fn = "vis_image_clone";
    int rc = cv__check_image(src, fn, "src", err);
    if (rc)
        return rc;
    if (!out)
        return base_err_set(err, BASE_EINVAL, "%s: out is NULL", fn);
    vis_image *img;
    rc = vis_image_new(src->width, src->height, src->channels, &img, err);
    if (rc)
        return rc;
    size_t row = static_cast<size_t>(src->width) * src->channels;
    for (int y = 0; y < src->height; y++)
        std::memcpy(img->data + static_cast<size_t>(y) * img->stride,
                    src->data + static_cast<size_t>(y) * src->stride, row);
    *out = img;
    return 0;
}

extern "C" int vis_image_crop(const vis_image *src, int x, int y, int w, int h,
                              vis_image **out, base_err *err)
{
    const char *fn = "vis_image_crop";
    int rc = cv__check_image(src, fn, "src", err);
    if (rc)
        return rc;
    if (!out)
        return base_err_set(err, BASE_EINVAL, "%s: out is NULL", fn);
    if (x < 0 || y < 0 || w <= 0 || h <= 0 ||
        static_cast<long long>(x) + w > src->width ||
        static_cast<long long>(y) + h > src->height)
        return base_err_set(err, BASE_ERANGE,
                            "%s: rectangle %d,%d %dx%d is not inside the "
                            "%dx%d image",
                            fn, x, y, w, h, src->width, src->height);
    vis_image *img;
    rc = vis_image_new(w, h, src->channels, &img, err);
    if (rc)
        return rc;
    size_t row = static_cast<size_t>(w) * src->channels;
    for (int r = 0; r < h; r++)
        std::memcpy(img->data + static_cast<size_t>(r) * img->stride,
                    src->data + static_cast<size_t>(y + r) * src->stride +
                        static_cast<size_t>(x) * src->channels,
                    row);
    *out = img;
    return 0;
}

extern "C" vis_color vis_rgb(unsigned char r, unsigned char g, unsigned char b)
{
    vis_color c;
    c.b = b;
    c.g = g;
    c.r = r;
    return c;
}

extern "C" vis_color vis_grey(unsigned char v) { return vis_rgb(v, v, v); }

extern "C" int vis_image_fill(vis_image *img, vis_color c, base_err *err)
{
    const char *fn = "vis_image_fill";
    int rc = cv__check_image(img, fn, "img", err);
    if (rc)
        return rc;
    return vis__cv_guard(err, fn, [&] {
        cv::Mat m = cv__wrap(img);
        m.setTo(cv__scalar(c, img->channels));
        return 0;
    });
}

// ---------------------------------------------------------------------
// Files and memory
// ---------------------------------------------------------------------

extern "C" int vis_image_read(const char *path, int channels, vis_image **out,
                              base_err *err)
{
    const char *fn = "vis_image_read";
    if (!path || !*path)
        return base_err_set(err, BASE_EINVAL, "%s: path is NULL or empty",
                            fn);
    if (!out)
        return base_err_set(err, BASE_EINVAL, "%s: out is NULL", fn);
    int flags = 0;
    int rc = cv__imread_flags(channels, fn, err, &flags);
    if (rc)
        return rc;
    return vis__cv_guard(err, fn, [&] {
        std::vector<uchar> buf;
        int r = cv__read_file(path, fn, buf, err);
        if (r)
            return r;
        std::string what = std::string("'") + path + "'";
        return cv__decode(buf.data(), buf.size(), channels, fn, what.c_str(),
                          out, err);
    });
}

extern "C" int vis_image_write(const char *path, const vis_image *img,
                               int jpeg_quality, base_err *err)
{
    const char *fn = "vis_image_write";
    if (!path || !*path)
        return base_err_set(err, BASE_EINVAL, "%s: path is NULL or empty",
                            fn);
    int rc = cv__check_image(img, fn, "img", err);
    if (rc)
        return rc;
    return vis__cv_guard(err, fn, [&] {
        std::string p(path);
        int format;
        if (cv__ends_with(p, ".png"))
            format = VIS_FORMAT_PNG;
        else if (cv__ends_with(p, ".jpg") || cv__ends_with(p, ".jpeg"))
            format = VIS_FORMAT_JPEG;
        else
            return base_err_set(err, BASE_EINVAL,
                                "%s: '%s': unknown extension (expected .png, "
                                ".jpg or .jpeg)",
                                fn, path);
        std::vector<uchar> buf;
        int r = cv__encode(img, format, jpeg_quality, fn, buf, err);
        if (r)
            return r;
        FILE *f = std::fopen(path, "wb");
        if (!f)
            return base_err_set(err, BASE_EIO, "%s: cannot create '%s': %s",
                                fn, path, std::strerror(errno));
        size_t put = std::fwrite(buf.data(), 1, buf.size(), f);
        int bad = std::ferror(f);
        int closed = std::fclose(f);
        if (put != buf.size() || bad || closed != 0)
            return base_err_set(err, BASE_EIO, "%s: error writing '%s'", fn,
                                path);
        return 0;
    });
}

extern "C" int vis_image_encode(const vis_image *img, int format,
                                int jpeg_quality, unsigned char **buf,
                                size_t *len, base_err *err)
{
    const char *fn = "vis_image_encode";
    int rc = cv__check_image(img, fn, "img", err);
    if (rc)
        return rc;
    if (!buf || !len)
        return base_err_set(err, BASE_EINVAL, "%s: buf or len is NULL", fn);
    return vis__cv_guard(err, fn, [&] {
        std::vector<uchar> v;
        int r = cv__encode(img, format, jpeg_quality, fn, v, err);
        if (r)
            return r;
        unsigned char *b = static_cast<unsigned char *>(std::malloc(v.size()));
        if (!b)
            return base_err_set(err, BASE_ENOMEM, "%s: out of memory", fn);
        std::memcpy(b, v.data(), v.size());
        *buf = b;
        *len = v.size();
        return 0;
    });
}

extern "C" void vis_buffer_free(void *buf) { std::free(buf); }

extern "C" int vis_image_decode(const unsigned char *buf, size_t len,
                                int channels, vis_image **out, base_err *err)
{
    const char *fn = "vis_image_decode";
    if (!buf && len > 0)
        return base_err_set(err, BASE_EINVAL, "%s: buf is NULL", fn);
    if (!out)
        return base_err_set(err, BASE_EINVAL, "%s: out is NULL", fn);
    return vis__cv_guard(err, fn, [&] {
        return cv__decode(buf, len, channels, fn, "the buffer", out, err);
    });
}

// ---------------------------------------------------------------------
// Colour, size, blur
// ---------------------------------------------------------------------

extern "C" int vis_convert(const vis_image *src, int code, vis_image **out,
                           base_err *err)
{
    const char *fn = "vis_convert";
    int rc = cv__check_image(src, fn, "src", err);
    if (rc)
        return rc;
    if (!out)
        return base_err_set(err, BASE_EINVAL, "%s: out is NULL", fn);
    int cvcode, in_ch, out_ch;
    switch (code) {
    case VIS_BGR2GRAY: cvcode = cv::COLOR_BGR2GRAY; in_ch = 3; out_ch = 1; break;
    case VIS_GRAY2BGR: cvcode = cv::COLOR_GRAY2BGR; in_ch = 1; out_ch = 3; break;
    case VIS_BGR2HSV: cvcode = cv::COLOR_BGR2HSV; in_ch = 3; out_ch = 3; break;
    case VIS_HSV2BGR: cvcode = cv::COLOR_HSV2BGR; in_ch = 3; out_ch = 3; break;
    case VIS_BGR2LAB: cvcode = cv::COLOR_BGR2Lab; in_ch = 3; out_ch = 3; break;
    case VIS_LAB2BGR: cvcode = cv::COLOR_Lab2BGR; in_ch = 3; out_ch = 3; break;
    default:
        return base_err_set(err, BASE_EINVAL, "%s: unknown conversion %d", fn,
                            code);
    }
    if (src->channels != in_ch)
        return base_err_set(err, BASE_EINVAL,
                            "%s: conversion %d needs %d channels, src has %d",
                            fn, code, in_ch, src->channels);
    return vis__cv_guard(err, fn, [&] {
        cv__owned o;
        int r = cv__alloc(src->width, src->height, out_ch, o, err);
        if (r)
            return r;
        cv::Mat d = cv__wrap(o.p);
        cv::cvtColor(cv__wrap(src), d, cvcode);
        cv__settle(d, o.p);
        *out = o.release();
        return 0;
    });
}

extern "C" int vis_resize(const vis_image *src, int width, int height,
                          int interp, vis_image **out, base_err *err)
{
    const char *fn = "vis_resize";
    int rc = cv__check_image(src, fn, "src", err);
    if (rc)
        return rc;
    if ((rc = cv__check_size(width, height, fn, err)))
        return rc;
    if (!out)
        return base_err_set(err, BASE_EINVAL, "%s: out is NULL", fn);
    int cvi = 0;
    if ((rc = cv__interp(interp, true, fn, err, &cvi)))
        return rc;
    return vis__cv_guard(err, fn, [&] {
        cv__owned o;
        int r = cv__alloc_dst(width, height, src->channels, o, err);
        if (r)
            return r;
        cv::Mat d = cv__wrap(o.p);
        cv::resize(cv__wrap(src), d, cv::Size(width, height), 0, 0, cvi);
        cv__settle(d, o.p);
        *out = o.release();
        return 0;
    });
}

extern "C" int vis_gaussian_blur(const vis_image *src, int ksize, double sigma,
                                 vis_image **out, base_err *err)
{
    const char *fn = "vis_gaussian_blur";
    int rc = cv__check_image(src, fn, "src", err);
    if (rc)
        return rc;
    if (!out)
        return base_err_set(err, BASE_EINVAL, "%s: out is NULL", fn);
    if (ksize < 0 || (ksize > 0 && ksize % 2 == 0) || ksize > 1001)
        return base_err_set(err, BASE_EINVAL,
                            "%s: ksize %d (expected 0 or odd 1..1001)", fn,
                            ksize);
    if (!std::isfinite(sigma) || sigma < 0 || sigma > 1000)
        return base_err_set(err, BASE_EINVAL,
                            "%s: sigma %g (expected 0..1000)", fn, sigma);
    if (ksize == 0 && sigma == 0)
        return base_err_set(err, BASE_EINVAL,
                            "%s: ksize and sigma are both 0", fn);
    return vis__cv_guard(err, fn, [&] {
        cv__owned o;
        int r = cv__alloc(src->width, src->height, src->channels, o, err);
        if (r)
            return r;
        cv::Mat d = cv__wrap(o.p);
        cv::GaussianBlur(cv__wrap(src), d, cv::Size(ksize, ksize), sigma,
                         sigma, cv::BORDER_REPLICATE);
        cv__settle(d, o.p);
        *out = o.release();
        return 0;
    });
}

// ---------------------------------------------------------------------
// Geometry
// ---------------------------------------------------------------------

extern "C" vis_homography vis_homography_identity(void)
{
    vis_homography h = {{1, 0, 0, 0, 1, 0, 0, 0, 1}};
    return h;
}

extern "C" vis_homography vis_homography_mul(vis_homography a,
                                             vis_homography b)
{
    vis_homography r;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double s = 0;
            for (int k = 0; k < 3; k++)
                s += a.m[i * 3 + k] * b.m[k * 3 + j];
            r.m[i * 3 + j] = s;
        }
    return r;
}

extern "C" int vis_homography_invert(vis_homography h, vis_homography *out,
                                     base_err *err)
{
    const char *fn = "vis_homography_invert";
    if (!out)
        return base_err_set(err, BASE_EINVAL, "%s: out is NULL", fn);
    if (!cv__homography_finite(h))
        return base_err_set(err, BASE_EINVAL, "%s: h has non-finite entries",
                            fn);
    const double *m = h.m;
    double c00 = m[4] * m[8] - m[5] * m[7];
    double c01 = m[5] * m[6] - m[3] * m[8];
    double c02 = m[3] * m[7] - m[4] * m[6];
    double det = m[0] * c00 + m[1] * c01 + m[2] * c02;
    double norm = 0;
    for (double v : h.m)
        norm = std::max(norm, std::fabs(v));
    // Relative test: a homography is defined up to scale.
    if (norm == 0 || std::fabs(det) <= 1e-14 * norm * norm * norm)
        return base_err_set(err, BASE_ERANGE, "%s: h is singular", fn);
    vis_homography r;
    r.m[0] = c00 / det;
    r.m[1] = (m[2] * m[7] - m[1] * m[8]) / det;
    r.m[2] = (m[1] * m[5] - m[2] * m[4]) / det;
    r.m[3] = c01 / det;
    r.m[4] = (m[0] * m[8] - m[2] * m[6]) / det;
    r.m[5] = (m[2] * m[3] - m[0] * m[5]) / det;
    r.m[6] = c02 / det;
    r.m[7] = (m[1] * m[6] - m[0] * m[7]) / det;
    r.m[8] = (m[0] * m[4] - m[1] * m[3]) / det;
    *out = r;
    return 0;
}

extern "C" vis_point vis_homography_apply(vis_homography h, vis_point p)
{
    const double *m = h.m;
    double w = m[6] * p.x + m[7] * p.y + m[8];
    vis_point r;
    if (w == 0) {
        r.x = HUGE_VAL;
        r.y = HUGE_VAL;
        return r;
    }
    r.x = (m[0] * p.x + m[1] * p.y + m[2]) / w;
    r.y = (m[3] * p.x + m[4] * p.y + m[5]) / w;
    return r;
}

extern "C" int vis_find_homography(const vis_point *src, const vis_point *dst,
                                   int n, int method, double ransac_px,
                                   unsigned char *inlier_mask,
                                   vis_homography *h, base_err *err)
{
    const char *fn = "vis_find_homography";
    int rc;
    if ((rc = cv__check_points(src, n, 4, fn, "src", err)) ||
        (rc = cv__check_points(dst, n, 4, fn, "dst", err)))
        return rc;
    if (!h)
        return base_err_set(err, BASE_EINVAL, "%s: h is NULL", fn);
    if (method != VIS_HOMOGRAPHY_LSQ && method != VIS_HOMOGRAPHY_RANSAC)
        return base_err_set(err, BASE_EINVAL, "%s: unknown method %d", fn,
                            method);
    if (!std::isfinite(ransac_px) || ransac_px < 0)
        return base_err_set(err, BASE_EINVAL, "%s: ransac_px %g", fn,
                            ransac_px);
    if (ransac_px == 0)
        ransac_px = 3;
    // OpenCV returns an arbitrary answer for collinear points; refuse them.
    if (cv__collinear(src, n) || cv__collinear(dst, n))
        return base_err_set(err, BASE_ERANGE,
                            "%s: the %d %s points are collinear or repeated",
                            fn, n, cv__collinear(src, n) ? "src" : "dst");
    return vis__cv_guard(err, fn, [&] {
        std::vector<cv::Point2d> s(static_cast<size_t>(n)),
            d(static_cast<size_t>(n));
        for (int i = 0; i < n; i++) {
            s[static_cast<size_t>(i)] = cv::Point2d(src[i].x, src[i].y);
            d[static_cast<size_t>(i)] = cv::Point2d(dst[i].x, dst[i].y);
        }
        std::vector<uchar> mask;
        cv::Mat H = cv::findHomography(
            s, d, method == VIS_HOMOGRAPHY_RANSAC ? cv::RANSAC : 0, ransac_px,
            mask, 2000, 0.999);
        if (H.empty())
            return base_err_set(err, BASE_ERANGE,
                                "%s: no homography fits the %d point pairs "
                                "(collinear or repeated points?)",
                                fn, n);
        vis_homography r = cv__from_matx(H);
        if (!cv__homography_finite(r))
            return base_err_set(err, BASE_ERANGE,
                                "%s: the fit is degenerate", fn);
        if (inlier_mask) {
            for (int i = 0; i < n; i++)
                inlier_mask[i] = mask.size() == static_cast<size_t>(n)
                                     ? (mask[static_cast<size_t>(i)] ? 1 : 0)
                                     : 1;
        }
        *h = r;
        return 0;
    });
}

extern "C" int vis_perspective_transform(vis_homography h, const vis_point *in,
                                         vis_point *out, int n, base_err *err)
{
    const char *fn = "vis_perspective_transform";
    if (n < 0 || (n > 0 && (!in || !out)))
        return base_err_set(err, BASE_EINVAL,
                            "%s: in or out is NULL, or n < 0", fn);
    if (!cv__homography_finite(h))
        return base_err_set(err, BASE_EINVAL, "%s: h has non-finite entries",
                            fn);
    return vis__cv_guard(err, fn, [&] {
        std::vector<vis_point> tmp(static_cast<size_t>(n));
        const double *m = h.m;
        for (int i = 0; i < n; i++) {
            double w = m[6] * in[i].x + m[7] * in[i].y + m[8];
            if (!std::isfinite(w) || std::fabs(w) < 1e-12)
                return base_err_set(err, BASE_ERANGE,
                                    "%s: point %d (%g, %g) maps to infinity",
                                    fn, i, in[i].x, in[i].y);
            tmp[static_cast<size_t>(i)].x =
                (m[0] * in[i].x + m[1] * in[i].y + m[2]) / w;
            tmp[static_cast<size_t>(i)].y =
                (m[3] * in[i].x + m[4] * in[i].y + m[5]) / w;
        }
        std::copy(tmp.begin(), tmp.end(), out);
        return 0;
    });
}

// The interpolation and the homography of a warp: h must be finite and
// invertible (OpenCV would warp with its inverse).
static int cv__warp_args(vis_homography h, int interp, const char *fn,
                         base_err *err, int *cvi)
{
    int rc;
    if ((rc = cv__interp(interp, false, fn, err, cvi)))
        return rc;
    vis_homography inv;
    if (!cv__homography_finite(h) || vis_homography_invert(h, &inv, nullptr))
        return base_err_set(err, BASE_EINVAL,
                            "%s: h is singular or not finite", fn);
    return 0;
}

extern "C" int vis_warp_perspective(const vis_image *src, vis_homography h,
                                    int out_w, int out_h, int interp,
                                    vis_color border, vis_image **out,
                                    base_err *err)
{
    const char *fn = "vis_warp_perspective";
    int rc = cv__check_image(src, fn, "src", err);
    if (rc)
        return rc;
    if ((rc = cv__check_size(out_w, out_h, fn, err)))
        return rc;
    if (!out)
        return base_err_set(err, BASE_EINVAL, "%s: out is NULL", fn);
    int cvi = 0;
    if ((rc = cv__warp_args(h, interp, fn, err, &cvi)))
        return rc;
    return vis__cv_guard(err, fn, [&] {
        cv__owned o;
        int r = cv__alloc_dst(out_w, out_h, src->channels, o, err);
        if (r)
            return r;
        cv::Mat d = cv__wrap(o.p);
        cv::warpPerspective(cv__wrap(src), d, cv::Mat(cv__matx(h)),
                            cv::Size(out_w, out_h), cvi, cv::BORDER_CONSTANT,
                            cv__scalar(border, src->channels));
        cv__settle(d, o.p);
        *out = o.release();
        return 0;
    });
}

extern "C" int vis_warp_perspective_onto(const vis_image *src,
                                         vis_homography h, vis_image *dst,
                                         int interp, base_err *err)
{
    const char *fn = "vis_warp_perspective_onto";
    int rc;
    if ((rc = cv__check_image(src, fn, "src", err)) ||
        (rc = cv__check_image(dst, fn, "dst", err)))
        return rc;
    if (src->channels != dst->channels)
        return base_err_set(err, BASE_EINVAL,
                            "%s: src has %d channels, dst %d", fn,
                            src->channels, dst->channels);
    if (src->data == dst->data)
        return base_err_set(err, BASE_EINVAL,
                            "%s: src and dst share their pixels", fn);
    int cvi = 0;
    if ((rc = cv__warp_args(h, interp, fn, err, &cvi)))
        return rc;
    return vis__cv_guard(err, fn, [&] {
        cv::Mat d = cv__wrap(dst);
        cv::warpPerspective(cv__wrap(src), d, cv::Mat(cv__matx(h)), d.size(),
                            cvi, cv::BORDER_TRANSPARENT);
        cv__settle(d, dst);
        return 0;
    });
}

// ---------------------------------------------------------------------
// Lens
// ---------------------------------------------------------------------

// The arguments of a map of n points through the lens model.
static int cv__check_point_map(const vis_camera &cam, const vis_point *in,
                               const vis_point *out, int n, const char *fn,
                               base_err *err)
{
    int rc = cv__check_camera(cam, fn, err);
    if (rc)
        return rc;
    if (n < 0 || (n > 0 && !out))
        return base_err_set(err, BASE_EINVAL, "%s: out is NULL or n < 0", fn);
    return cv__check_points(in, n, 0, fn, "in", err);
}

extern "C" int vis_undistort_points(vis_camera cam, const vis_point *in,
                                    vis_point *out, int n, base_err *err)
{
    const char *fn = "vis_undistort_points";
    int rc = cv__check_point_map(cam, in, out, n, fn, err);
    if (rc)
        return rc;
    if (n == 0)
        return 0;
    return vis__cv_guard(err, fn, [&] {
        std::vector<cv::Point2d> s(static_cast<size_t>(n)), d;
        for (int i = 0; i < n; i++)
            s[static_cast<size_t>(i)] = cv::Point2d(in[i].x, in[i].y);
        cv::Matx33d K = cv__camera_matrix(cam);
        // More iterations than the default 5: wide lenses need them.
        cv::undistortPoints(s, d, K, cv__dist(cam), cv::noArray(), K,
                            cv::TermCriteria(cv::TermCriteria::COUNT |
                                                 cv::TermCriteria::EPS,
                                             100, 1e-12));
        for (int i = 0; i < n; i++) {
            out[i].x = d[static_cast<size_t>(i)].x;
            out[i].y = d[static_cast<size_t>(i)].y;
        }
        return 0;
    });
}

extern "C" int vis_distort_points(vis_camera cam, const vis_point *in,
                                  vis_point *out, int n, base_err *err)
{
    const char *fn = "vis_distort_points";
    int rc = cv__check_point_map(cam, in, out, n, fn, err);
    if (rc)
        return rc;
    // OpenCV's projection model (calib3d), without the thin-prism and tilt
    // terms, written out because it is a few lines.
    const double *k = cam.dist;
    for (int i = 0; i < n; i++) {
        double x = (in[i].x - cam.cx) / cam.fx;
        double y = (in[i].y - cam.cy) / cam.fy;
        double r2 = x * x + y * y, r4 = r2 * r2, r6 = r4 * r2;
        double num = 1 + k[0] * r2 + k[1] * r4 + k[4] * r6;
        double den = 1 + k[5] * r2 + k[6] * r4 + k[7] * r6;
        double radial = num / den;
        double xd = x * radial + 2 * k[2] * x * y + k[3] * (r2 + 2 * x * x);
        double yd = y * radial + k[2] * (r2 + 2 * y * y) + 2 * k[3] * x * y;
        out[i].x = cam.fx * xd + cam.cx;
        out[i].y = cam.fy * yd + cam.cy;
    }
    return 0;
}

extern "C" int vis_undistort_image(const vis_image *src, vis_camera cam,
                                   vis_image **out, base_err *err)
{
    const char *fn = "vis_undistort_image";
    int rc = cv__check_image(src, fn, "src", err);
    if (rc)
        return rc;
    if ((rc = cv__check_camera(cam, fn, err)))
        return rc;
    if (!out)
        return base_err_set(err, BASE_EINVAL, "%s: out is NULL", fn);
    return vis__cv_guard(err, fn, [&] {
        cv__owned o;
        int r = cv__alloc(src->width, src->height, src->channels, o, err);
        if (r)
            return r;
        cv::Mat d = cv__wrap(o.p);
        cv::Matx33d K = cv__camera_matrix(cam);
        cv::undistort(cv__wrap(src), d, K, cv__dist(cam), K);
        cv__settle(d, o.p);
        *out = o.release();
        return 0;
    });
}

extern "C" int vis_undistort_maps(vis_camera cam, int width, int height,
                                  float *map_x, float *map_y, base_err *err)
{
    const char *fn = "vis_undistort_maps";
    int rc = cv__check_camera(cam, fn, err);
    if (rc)
        return rc;
    if ((rc = cv__check_size(width, height, fn, err)))
        return rc;
    if (!map_x || !map_y)
        return base_err_set(err, BASE_EINVAL, "%s: map_x or map_y is NULL",
                            fn);
    return vis__cv_guard(err, fn, [&] {
        cv::Mat mx(height, width, CV_32FC1, map_x);
        cv::Mat my(height, width, CV_32FC1, map_y);
        cv::Mat mx0 = mx, my0 = my;
        cv::Matx33d K = cv__camera_matrix(cam);
        cv::initUndistortRectifyMap(K, cv__dist(cam), cv::noArray(), K,
                                    cv::Size(width, height), CV_32FC1, mx,
                                    my);
        if (mx.data != mx0.data)
            mx.copyTo(mx0);
        if (my.data != my0.data)
            my.copyTo(my0);
        return 0;
    });
}

extern "C" int vis_remap(const vis_image *src, const float *map_x,
                         const float *map_y, int out_w, int out_h, int interp,
                         vis_color border, vis_image **out, base_err *err)
{
    const char *fn = "vis_remap";
    int rc = cv__check_image(src, fn, "src", err);
    if (rc)
        return rc;
    if ((rc = cv__check_size(out_w, out_h, fn, err)))
        return rc;
    if (!map_x || !map_y || !out)
        return base_err_set(err, BASE_EINVAL,
                            "%s: map_x, map_y or out is NULL", fn);
    int cvi = 0;
    if ((rc = cv__interp(interp, false, fn, err, &cvi)))
        return rc;
    return vis__cv_guard(err, fn, [&] {
        cv::Mat mx(out_h, out_w, CV_32FC1, const_cast<float *>(map_x));
        cv::Mat my(out_h, out_w, CV_32FC1, const_cast<float *>(map_y));
        cv__owned o;
        int r = cv__alloc_dst(out_w, out_h, src->channels, o, err);
        if (r)
            return r;
        cv::Mat d = cv__wrap(o.p);
        cv::remap(cv__wrap(src), d, mx, my, cvi, cv::BORDER_CONSTANT,
                  cv__scalar(border, src->channels));
        cv__settle(d, o.p);
        *out = o.release();
        return 0;
    });
}

// ---------------------------------------------------------------------
// ArUco
// ---------------------------------------------------------------------

extern "C" int vis_aruco_new(int dict, vis_aruco **out, base_err *err)
{
    const char *fn = "vis_aruco_new";
    if (!out)
        return base_err_set(err, BASE_EINVAL, "%s: out is NULL", fn);
    int name = 0;
    int rc = cv__dict_name(dict, fn, err, &name);
    if (rc)
        return rc;
    return vis__cv_guard(err, fn, [&] {
        vis_aruco *a = new vis_aruco;
        try {
            a->dict = cv::aruco::getPredefinedDictionary(name);
            a->params = cv__detector_params();
        } catch (...) {
            delete a;
            throw;
        }
        *out = a;
        return 0;
    });
}

extern "C" void vis_aruco_free(vis_aruco *a) { delete a; }

extern "C" int vis_aruco_set_decimate(vis_aruco *a, int factor,
                                      base_err *err)
{
    const char *fn = "vis_aruco_set_decimate";
    if (!a)
        return base_err_set(err, BASE_EINVAL, "%s: detector is NULL", fn);
    if (factor < 1 || factor > 4)
        return base_err_set(err, BASE_EINVAL,
                            "%s: factor %d (expected 1..4)", fn, factor);
    a->decimate = factor;
    return 0;
}

// The markers of the last detection (a->ids, a->corners, found in an image
// enlarged by scale whose origin is (x0, y0) of the caller's) to out,
// sorted by id, then by position.
static void cv__markers_out(const vis_aruco *a, double scale, int x0, int y0,
                            vis_marker *out, int cap, int *n)
{
    std::vector<vis_marker> found(a->ids.size());
    for (size_t i = 0; i < a->ids.size(); i++) {
        found[i].id = a->ids[i];
        for (int k = 0; k < 4; k++) {
            const cv::Point2f &c = a->corners[i][static_cast<size_t>(k)];
            // Pixel centres: enlarged u covers (u + 0.5) / scale - 0.5.
            found[i].corners[k].x = (c.x + 0.5) / scale - 0.5 + x0;
            found[i].corners[k].y = (c.y + 0.5) / scale - 0.5 + y0;
        }
    }
    std::sort(found.begin(), found.end(),
              [](const vis_marker &p, const vis_marker &q) {
                  if (p.id != q.id)
                      return p.id < q.id;
                  if (p.corners[0].y != q.corners[0].y)
                      return p.corners[0].y < q.corners[0].y;
                  return p.corners[0].x < q.corners[0].x;
              });
    size_t k = std::min(found.size(), static_cast<size_t>(cap));
    std::copy(found.begin(), found.begin() + static_cast<long>(k), out);
    *n = static_cast<int>(found.size());
}

// The arguments both detectors take; on success a's last results are
// cleared for the new search.
static int cv__check_detect(vis_aruco *a, const vis_image *img,
                            const vis_marker *out, int cap, const int *n,
                            const char *fn, base_err *err)
{
    if (!a)
        return base_err_set(err, BASE_EINVAL, "%s: detector is NULL", fn);
    int rc = cv__check_image(img, fn, "img", err);
    if (rc)
        return rc;
    if (!n || cap < 0 || (cap > 0 && !out))
        return base_err_set(err, BASE_EINVAL,
                            "%s: n is NULL, cap < 0 or out is NULL", fn);
    a->corners.clear();
    a->rejected.clear();
    a->ids.clear();
    return 0;
}

extern "C" int vis_aruco_detect(vis_aruco *a, const vis_image *img,
                                vis_marker *out, int cap, int *n,
                                base_err *err)
{
    const char *fn = "vis_aruco_detect";
    int rc = cv__check_detect(a, img, out, cap, n, fn, err);
    if (rc)
        return rc;
    return vis__cv_guard(err, fn, [&] {
        cv::Mat in = cv__wrap(img);
        if (a->decimate == 1) {
            cv::aruco::detectMarkers(in, a->dict, a->corners, a->ids,
                                     a->params, a->rejected);
        } else {
            if (img->channels == 3)
                cv::cvtColor(in, a->grey, cv::COLOR_BGR2GRAY);
            else
                a->grey = in;
            double f = a->decimate;
            cv::resize(a->grey, a->small, cv::Size(), 1.0 / f, 1.0 / f,
                       cv::INTER_AREA);
            // Refining in the small image would be wasted: the corners are
            // refined once, in the full one.
            cv::Ptr<cv::aruco::DetectorParameters> p =
                cv::makePtr<cv::aruco::DetectorParameters>(*a->params);
            p->cornerRefinementMethod = cv::aruco::CORNER_REFINE_NONE;
            cv::aruco::detectMarkers(a->small, a->dict, a->corners, a->ids, p,
                                     a->rejected);
            std::vector<cv::Point2f> all;
            for (const std::vector<cv::Point2f> &q : a->corners)
                for (const cv::Point2f &c : q)
                    // Pixel centres: small (u) covers full f*u .. f*u+f-1.
                    all.push_back(cv::Point2f(
                        static_cast<float>((c.x + 0.5) * f - 0.5),
                        static_cast<float>((c.y + 0.5) * f - 0.5)));
            if (!all.empty()) {
                int win = std::max(a->params->cornerRefinementWinSize,
                                   a->decimate + 2);
                cv::cornerSubPix(
                    a->grey, all, cv::Size(win, win), cv::Size(-1, -1),
                    cv::TermCriteria(cv::TermCriteria::MAX_ITER |
                                         cv::TermCriteria::EPS,
                                     a->params->cornerRefinementMaxIterations,
                                     a->params->cornerRefinementMinAccuracy));
                for (size_t i = 0; i < a->corners.size(); i++)
                    for (size_t k = 0; k < 4; k++)
                        a->corners[i][k] = all[i * 4 + k];
            }
        }
        cv__markers_out(a, 1.0, 0, 0, out, cap, n);
        return 0;
    });
}

extern "C" int vis_aruco_detect_roi(vis_aruco *a, const vis_image *img,
                                    int x0, int y0, int w, int h,
                                    double scale, vis_marker *out, int cap,
                                    int *n, base_err *err)
{
    const char *fn = "vis_aruco_detect_roi";
    int rc = cv__check_detect(a, img, out, cap, n, fn, err);
    if (rc)
        return rc;
    if (!(scale >= 1 && scale <= 8))
        return base_err_set(err, BASE_EINVAL,
                            "%s: scale %g (expected 1..8)", fn, scale);
    return vis__cv_guard(err, fn, [&] {
        *n = 0;
        cv::Rect r = cv::Rect(x0, y0, w, h) &
                     cv::Rect(0, 0, img->width, img->height);
        if (r.width < 8 || r.height < 8)
            return 0; // nothing of it in view
        cv::Mat in = cv__wrap(img)(r);
        if (img->channels == 3)
            cv::cvtColor(in, a->grey, cv::COLOR_BGR2GRAY);
        else
            in.copyTo(a->grey);
        if (scale > 1)
            cv::resize(a->grey, a->small, cv::Size(), scale, scale,
                       cv::INTER_CUBIC);
        else
            a->small = a->grey;
        cv::aruco::detectMarkers(a->small, a->dict, a->corners, a->ids,
                                 a->params, a->rejected);
        cv__markers_out(a, scale, r.x, r.y, out, cap, n);
        return 0;
    });
}

// A marker of the detector's dictionary drawn upright, black on white, with
// a white margin of cv__ALIGN_MARGIN cells, cv__ALIGN_PX pixels a cell,
// turned rot quarter turns.
static const int cv__ALIGN_PX = 8;
static const double cv__ALIGN_MARGIN = 0.75;

static cv::Mat cv__align_draw(const vis_aruco *a, int id, int rot)
{
    const int cells = a->dict->markerSize + 2;
    const int side = cells * cv__ALIGN_PX;
    const int m = static_cast<int>(cv__ALIGN_MARGIN * cv__ALIGN_PX);
    cv::Mat bits, t(side + 2 * m, side + 2 * m, CV_32F, cv::Scalar(255));
    cv::aruco::drawMarker(a->dict, id, side, bits, 1);
    for (int r = 0; r < rot; r++)
        cv::rotate(bits, bits, cv::ROTATE_90_CLOCKWISE);
    bits.convertTo(t(cv::Rect(m, m, side, side)), CV_32F);
    return t;
}

static const cv::Mat &cv__align_template(vis_aruco *a, int id, int rot)
{
    if (a->patterns.empty()) {
        a->patterns.resize(static_cast<size_t>(a->dict->bytesList.rows) * 4);
        for (int j = 0; j < a->dict->bytesList.rows; j++)
            for (int r = 0; r < 4; r++)
                a->patterns[static_cast<size_t>(j * 4 + r)] = cv__align_draw(a, j, r);
    }
    return a->patterns[static_cast<size_t>(id * 4 + rot)];
}

// Zero-mean normalised correlation of two images of one size.
static double cv__ncc(const cv::Mat &x, const cv::Mat &y)
{
    cv::Scalar mx, sx, my, sy;
    cv::meanStdDev(x, mx, sx);
    cv::meanStdDev(y, my, sy);
    if (sx[0] <= 1e-6 || sy[0] <= 1e-6)
        return 0;
    cv::Mat dx = x - mx[0], dy = y - my[0];
    return dx.dot(dy) / (sx[0] * sy[0] * static_cast<double>(x.total()));
}

extern "C" int vis_aruco_align(vis_aruco *a, const vis_image *img, int id,
                               const vis_point guess[4], double search,
                               vis_marker *out, double *score,
                               double *margin, base_err *err)
{
    const char *fn = "vis_aruco_align";
    if (!a || !guess || !out || !score || !margin)
        return base_err_set(err, BASE_EINVAL, "%s: NULL argument", fn);
    int rc = cv__check_image(img, fn, "img", err);
    if (rc)
        return rc;
    if (id < 0 || id >= a->dict->bytesList.rows)
        return base_err_set(err, BASE_ERANGE,
                            "%s: id %d is not in the dictionary", fn, id);
    if (!(search >= 0 && search <= 6))
        return base_err_set(err, BASE_EINVAL,
                            "%s: search %g cells (expected 0..6)", fn, search);
    return vis__cv_guard(err, fn, [&]() -> int {
        const int P = cv__ALIGN_PX, cells = a->dict->markerSize + 2;
        const double m = cv__ALIGN_MARGIN * P;
        const cv::Mat &tmpl = cv__align_template(a, id, 0);
        const int S = tmpl.cols;
        // Template pixel -> image pixel, from the guessed corners.
        std::vector<cv::Point2f> tc = {
            {static_cast<float>(m), static_cast<float>(m)},
            {static_cast<float>(m + cells * P), static_cast<float>(m)},
            {static_cast<float>(m + cells * P), static_cast<float>(m + cells * P)},
            {static_cast<float>(m), static_cast<float>(m + cells * P)}};
        std::vector<cv::Point2f> ic(4);
        for (int k = 0; k < 4; k++)
            ic[k] = cv::Point2f(static_cast<float>(guess[k].x),
                                static_cast<float>(guess[k].y));
        cv::Mat H = cv::getPerspectiveTransform(tc, ic);
        // The part of the frame the search can reach, in grey float.
        const double reach = search * P;
        std::vector<cv::Point2f> wc = {
            {static_cast<float>(-reach), static_cast<float>(-reach)},
            {static_cast<float>(S + reach), static_cast<float>(-reach)},
            {static_cast<float>(S + reach), static_cast<float>(S + reach)},
            {static_cast<float>(-reach), static_cast<float>(S + reach)}},
                                 wi;
        cv::perspectiveTransform(wc, wi, H);
        cv::Rect box = cv::boundingRect(wi);
        box.x -= 4;
        box.y -= 4;
        box.width += 8;
        box.height += 8;
        box &= cv::Rect(0, 0, img->width, img->height);
        if (box.width < 8 || box.height < 8)
            return base_err_set(err, BASE_ENOTFOUND,
                                "%s: marker %d would be outside the frame", fn, id);
        cv::Mat crop = cv__wrap(img)(box), grey;
        if (img->channels == 3)
            cv::cvtColor(crop, grey, cv::COLOR_BGR2GRAY);
        else
            grey = crop;
        grey.convertTo(grey, CV_32F);
        cv::Mat shift = (cv::Mat_<double>(3, 3) << 1, 0, -box.x, 0, 1, -box.y, 0, 0, 1);
        H = shift * H; // template -> crop
        // 1. Where it is: the template slid over the frame drawn as the
        // guess says the marker lies.
        cv::Mat Tw = (cv::Mat_<double>(3, 3) << 1, 0, -reach, 0, 1, -reach, 0, 0, 1);
        cv::Mat win, res;
        const int W = S + 2 * static_cast<int>(reach);
        cv::warpPerspective(grey, win, H * Tw, cv::Size(W, W),
                            cv::INTER_LINEAR | cv::WARP_INVERSE_MAP,
                            cv::BORDER_REPLICATE);
        cv::matchTemplate(win, tmpl, res, cv::TM_CCOEFF_NORMED);
        cv::Point best;
        cv::minMaxLoc(res, nullptr, nullptr, nullptr, &best);
        cv::Mat Tb = (cv::Mat_<double>(3, 3) << 1, 0, best.x - reach, 0, 1,
                      best.y - reach, 0, 0, 1);
        cv::Mat warp = H * Tb;
        warp.convertTo(warp, CV_32F);
        // 2. Exactly where: the template's homography refined by
        // enhanced correlation (insensitive to contrast and brightness).
        double rho;
        try {
            rho = cv::findTransformECC(
                tmpl, grey, warp, cv::MOTION_HOMOGRAPHY,
                cv::TermCriteria(cv::TermCriteria::COUNT | cv::TermCriteria::EPS,
                                 60, 1e-5),
                cv::noArray(), 5);
        } catch (const cv::Exception &) {
            return base_err_set(err, BASE_ENOTFOUND,
                                "%s: marker %d: the alignment did not converge", fn, id);
        }
        // 3. Is it that marker?  The frame drawn by the found homography
        // against every marker of the dictionary, every way round.
        cv::Mat seen;
        cv::warpPerspective(grey, seen, warp, tmpl.size(),
                            cv::INTER_LINEAR | cv::WARP_INVERSE_MAP,
                            cv::BORDER_REPLICATE);
        double self = cv__ncc(seen, tmpl), other = -1;
        for (int j = 0; j < a->dict->bytesList.rows; j++)
            for (int r = 0; r < 4; r++)
                if (j != id || r != 0)
                    other = std::max(other, cv__ncc(seen, cv__align_template(a, j, r)));
        cv::Mat wd;
        warp.convertTo(wd, CV_64F);
        std::vector<cv::Point2f> oc;
        cv::perspectiveTransform(tc, oc, wd);
        out->id = id;
        for (int k = 0; k < 4; k++) {
            out->corners[k].x = oc[static_cast<size_t>(k)].x + box.x;
            out->corners[k].y = oc[static_cast<size_t>(k)].y + box.y;
        }
        *score = std::min(rho, self);
        *margin = self - other;
        return 0;
    });
}

extern "C" int vis_aruco_marker_bits(int id, int side_px, vis_image **out,
                                     base_err *err)
{
    const char *fn = "vis_aruco_marker_bits";
    if (!out)
        return base_err_set(err, BASE_EINVAL, "%s: out is NULL", fn);
    if (id < 0 || id >= 50)
        return base_err_set(err, BASE_ERANGE,
                            "%s: marker id %d (DICT_4X4_50 has 0..49)", fn,
                            id);
    if (side_px < 6 || side_px > VIS_IMAGE_MAX_SIDE)
        return base_err_set(err, BASE_EINVAL,
                            "%s: side_px %d (expected 6..%d)", fn, side_px,
                            VIS_IMAGE_MAX_SIDE);
    return vis__cv_guard(err, fn, [&] {
        cv::Ptr<cv::aruco::Dictionary> d =
            cv::aruco::getPredefinedDictionary(cv::aruco::DICT_4X4_50);
        cv::Mat m;
        cv::aruco::drawMarker(d, id, side_px, m, 1);
        return cv__from_mat(m, out, fn, err);
    });
}

extern "C" int vis_aruco_marker_cells(int id, unsigned char cells[16],
                                      base_err *err)
{
    const char *fn = "vis_aruco_marker_cells";
    if (!cells)
        return base_err_set(err, BASE_EINVAL, "%s: cells is NULL", fn);
    if (id < 0 || id >= 50)
        return base_err_set(err, BASE_ERANGE,
                            "%s: marker id %d (DICT_4X4_50 has 0..49)", fn,
                            id);
    return vis__cv_guard(err, fn, [&] {
        cv::Ptr<cv::aruco::Dictionary> d =
            cv::aruco::getPredefinedDictionary(cv::aruco::DICT_4X4_50);
        cv::Mat bits = cv::aruco::Dictionary::getBitsFromByteList(
            d->bytesList.rowRange(id, id + 1), d->markerSize);
        if (bits.rows != 4 || bits.cols != 4 || bits.type() != CV_8UC1)
            return base_err_set(err, BASE_ECV,
                                "%s: unexpected bit matrix from OpenCV", fn);
        for (int r = 0; r < 4; r++)
            for (int c = 0; c < 4; c++)
                cells[r * 4 + c] = bits.at<uchar>(r, c) ? 1 : 0;
        return 0;
    });
}

// ---------------------------------------------------------------------
// ChArUco
// ---------------------------------------------------------------------

namespace {

int cv__check_charuco(const vis_charuco_spec &s, const char *fn,
                      base_err *err)
{
    if (s.squares_x < 2 || s.squares_y < 2 || s.squares_x > 100 ||
        s.squares_y > 100)
        return base_err_set(err, BASE_EINVAL,
                            "%s: board of %dx%d squares (expected 2..100 "
                            "each)",
                            fn, s.squares_x, s.squares_y);
    if (s.squares_x * s.squares_y / 2 > 100)
        return base_err_set(err, BASE_EINVAL,
                            "%s: board of %dx%d squares needs %d markers; "
                            "DICT_5X5_100 has 100",
                            fn, s.squares_x, s.squares_y,
                            s.squares_x * s.squares_y / 2);
    if (!std::isfinite(s.square_len) || !std::isfinite(s.marker_len) ||
        s.marker_len <= 0 || s.square_len <= s.marker_len)
        return base_err_set(err, BASE_EINVAL,
                            "%s: need 0 < marker_len (%g) < square_len (%g)",
                            fn, s.marker_len, s.square_len);
    return 0;
}

cv::Ptr<cv::aruco::CharucoBoard> cv__board(const vis_charuco_spec &s)
{
    return cv::aruco::CharucoBoard::create(
        s.squares_x, s.squares_y, static_cast<float>(s.square_len),
        static_cast<float>(s.marker_len),
        cv::aruco::getPredefinedDictionary(cv::aruco::DICT_5X5_100));
}

} // namespace

extern "C" int vis_charuco_board_render(vis_charuco_spec spec, int width,
                                        int height, int margin_px,
                                        vis_image **out, base_err *err)
{
    const char *fn = "vis_charuco_board_render";
    int rc = cv__check_charuco(spec, fn, err);
    if (rc)
        return rc;
    if ((rc = cv__check_size(width, height, fn, err)))
        return rc;
    if (!out)
        return base_err_set(err, BASE_EINVAL, "%s: out is NULL", fn);
    if (margin_px < 0 || 2 * margin_px >= std::min(width, height))
        return base_err_set(err, BASE_EINVAL,
                            "%s: margin %d leaves no room in %dx%d", fn,
                            margin_px, width, height);
    return vis__cv_guard(err, fn, [&] {
        cv::Mat m;
        cv__board(spec)->draw(cv::Size(width, height), m, margin_px, 1);
        return cv__from_mat(m, out, fn, err);
    });
}

extern "C" int vis_calibrate_charuco(const vis_image *const *images, int n,
                                     vis_charuco_spec spec, vis_camera *cam,
                                     double *rms, int *used, base_err *err)
{
    const char *fn = "vis_calibrate_charuco";
    int rc = cv__check_charuco(spec, fn, err);
    if (rc)
        return rc;
    if (!images || n <= 0 || !cam || !rms)
        return base_err_set(err, BASE_EINVAL,
                            "%s: images, cam or rms is NULL, or n <= 0", fn);
    for (int i = 0; i < n; i++) {
        char what[32];
        std::snprintf(what, sizeof what, "images[%d]", i);
        if ((rc = cv__check_image(images[i], fn, what, err)))
            return rc;
        if (images[i]->width != images[0]->width ||
            images[i]->height != images[0]->height)
            return base_err_set(err, BASE_EINVAL,
                                "%s: images[%d] is %dx%d, images[0] %dx%d",
                                fn, i, images[i]->width, images[i]->height,
                                images[0]->width, images[0]->height);
    }
    return vis__cv_guard(err, fn, [&] {
        cv::Ptr<cv::aruco::CharucoBoard> board = cv__board(spec);
        cv::Ptr<cv::aruco::DetectorParameters> params = cv__detector_params();
        std::vector<cv::Mat> all_corners, all_ids;
        for (int i = 0; i < n; i++) {
            cv::Mat img = cv__wrap(images[i]);
            std::vector<std::vector<cv::Point2f>> corners, rejected;
            std::vector<int> ids;
            cv::aruco::detectMarkers(img, board->dictionary, corners, ids,
                                     params, rejected);
            if (ids.size() < 2)
                continue;
            cv::Mat ch_corners, ch_ids;
            int k = cv::aruco::interpolateCornersCharuco(
                corners, ids, img, board, ch_corners, ch_ids);
            // Fewer corners cannot constrain a pose, and collinear ones
            // make the solver fail.
            if (k < 6 ||
                cv::aruco::testCharucoCornersCollinear(board, ch_ids))
                continue;
            all_corners.push_back(ch_corners);
            all_ids.push_back(ch_ids);
        }
        int u = static_cast<int>(all_corners.size());
        if (u < 3)
            return base_err_set(err, BASE_ENOTFOUND,
                                "%s: the %dx%d board was found in %d of %d "
                                "images (need at least 3)",
                                fn, spec.squares_x, spec.squares_y, u, n);
        cv::Mat K, dist;
        double e = cv::aruco::calibrateCameraCharuco(
            all_corners, all_ids, board,
            cv::Size(images[0]->width, images[0]->height), K, dist,
            // k3 stays 0: with table-top views that rarely fill the frame
            // corners it trades off against k2 and overfits wildly.
            cv::noArray(), cv::noArray(), cv::CALIB_FIX_K3,
            cv::TermCriteria(cv::TermCriteria::COUNT | cv::TermCriteria::EPS,
                             100, 1e-9));
        if (K.empty() || !std::isfinite(e))
            return base_err_set(err, BASE_ECV, "%s: calibration failed", fn);
        cv::Mat Kd, dd;
        K.convertTo(Kd, CV_64F);
        dist.convertTo(dd, CV_64F);
        vis_camera c;
        std::memset(&c, 0, sizeof c);
        c.fx = Kd.at<double>(0, 0);
        c.fy = Kd.at<double>(1, 1);
        c.cx = Kd.at<double>(0, 2);
        c.cy = Kd.at<double>(1, 2);
        size_t nd = std::min<size_t>(dd.total(), 8);
        for (size_t i = 0; i < nd; i++)
            c.dist[i] = dd.ptr<double>()[i];
        *cam = c;
        *rms = e;
        if (used)
            *used = u;
        return 0;
    });
}

// ---------------------------------------------------------------------
// Drawing
// ---------------------------------------------------------------------

extern "C" int vis_draw_line(vis_image *img, vis_point a, vis_point b,
                             vis_color c, int thickness, int flags,
                             base_err *err)
{
    const char *fn = "vis_draw_line";
    int rc, lt = 0;
    cv::Point pa, pb;
    if ((rc = cv__check_image(img, fn, "img", err)) ||
        (rc = cv__thickness(thickness, false, fn, err)) ||
        (rc = cv__line_type(flags, fn, err, &lt)) ||
        (rc = cv__draw_point(a, fn, err, &pa)) ||
        (rc = cv__draw_point(b, fn, err, &pb)))
        return rc;
    return vis__cv_guard(err, fn, [&] {
        cv::Mat m = cv__wrap(img);
        cv::line(m, pa, pb, cv__scalar(c, img->channels), thickness, lt,
                 cv__shift);
        return 0;
    });
}

extern "C" int vis_draw_circle(vis_image *img, vis_point centre, double radius,
                               vis_color c, int thickness, int flags,
                               base_err *err)
{
    const char *fn = "vis_draw_circle";
    int rc, lt = 0;
    cv::Point pc;
    if ((rc = cv__check_image(img, fn, "img", err)) ||
        (rc = cv__thickness(thickness, true, fn, err)) ||
        (rc = cv__line_type(flags, fn, err, &lt)) ||
        (rc = cv__draw_point(centre, fn, err, &pc)))
        return rc;
    if (!std::isfinite(radius) || radius < 0 || radius > cv__max_coord)
        return base_err_set(err, BASE_EINVAL, "%s: radius %g", fn, radius);
    return vis__cv_guard(err, fn, [&] {
        cv::Mat m = cv__wrap(img);
        cv::circle(m, pc, static_cast<int>(std::lround(radius * cv__scale)),
                   cv__scalar(c, img->channels), thickness, lt, cv__shift);
        return 0;
    });
}

extern "C" int vis_draw_rect(vis_image *img, int x0, int y0, int x1, int y1,
                             vis_color c, int thickness, base_err *err)
{
    const char *fn = "vis_draw_rect";
    int rc;
    if ((rc = cv__check_image(img, fn, "img", err)) ||
        (rc = cv__thickness(thickness, true, fn, err)))
        return rc;
    const int lim = static_cast<int>(cv__max_coord);
    if (std::abs(x0) > lim || std::abs(y0) > lim || std::abs(x1) > lim ||
        std::abs(y1) > lim)
        return base_err_set(err, BASE_EINVAL,
                            "%s: corner beyond +-%d px", fn, lim);
    return vis__cv_guard(err, fn, [&] {
        cv::Mat m = cv__wrap(img);
        cv::rectangle(m, cv::Point(x0, y0), cv::Point(x1, y1),
                      cv__scalar(c, img->channels), thickness, cv::LINE_8);
        return 0;
    });
}

extern "C" int vis_draw_polygon(vis_image *img, const vis_point *pts, int n,
                                vis_color c, int thickness, int closed,
                                int flags, base_err *err)
{
    const char *fn = "vis_draw_polygon";
    int rc, lt = 0;
    if ((rc = cv__check_image(img, fn, "img", err)) ||
        (rc = cv__thickness(thickness, true, fn, err)) ||
        (rc = cv__line_type(flags, fn, err, &lt)) ||
        (rc = cv__check_points(pts, n, thickness == VIS_FILLED ? 3 : 2, fn,
                               "pts", err)))
        return rc;
    return vis__cv_guard(err, fn, [&] {
        std::vector<cv::Point> p;
        int r = cv__draw_points(pts, n, fn, err, p);
        if (r)
            return r;
        cv::Mat m = cv__wrap(img);
        const cv::Point *pp = p.data();
        if (thickness == VIS_FILLED)
            cv::fillPoly(m, &pp, &n, 1, cv__scalar(c, img->channels), lt,
                         cv__shift);
        else
            cv::polylines(m, &pp, &n, 1, closed != 0,
                          cv__scalar(c, img->channels), thickness, lt,
                          cv__shift);
        return 0;
    });
}

extern "C" int vis_blend_polygon(vis_image *img, const vis_point *pts, int n,
                                 vis_color c, double alpha, int flags,
                                 base_err *err)
{
    const char *fn = "vis_blend_polygon";
    int rc, lt = 0;
    if ((rc = cv__check_image(img, fn, "img", err)) ||
        (rc = cv__line_type(flags, fn, err, &lt)) ||
        (rc = cv__check_points(pts, n, 3, fn, "pts", err)))
        return rc;
    if (!std::isfinite(alpha) || alpha < 0 || alpha > 1)
        return base_err_set(err, BASE_EINVAL,
                            "%s: alpha %g (expected 0..1)", fn, alpha);
    return vis__cv_guard(err, fn, [&] {
        std::vector<cv::Point> p;
        int r = cv__draw_points(pts, n, fn, err, p);
        if (r)
            return r;
        cv::Rect roi;
        cv::Mat mask;
        if (!cv__polygon_mask(p, cv::Size(img->width, img->height), lt, &roi,
                              &mask))
            return 0;
        int ch = img->channels;
        double col[3] = {static_cast<double>(c.b), static_cast<double>(c.g),
                         static_cast<double>(c.r)};
        if (ch == 1)
            col[0] = cv__luma(c);
        for (int y = 0; y < roi.height; y++) {
            unsigned char *row =
                img->data + static_cast<size_t>(roi.y + y) * img->stride +
                static_cast<size_t>(roi.x) * ch;
            const uchar *mr = mask.ptr<uchar>(y);
            for (int x = 0; x < roi.width; x++) {
                if (!mr[x])
                    continue;
                double a = alpha * mr[x] / 255.0;
                for (int k = 0; k < ch; k++) {
                    unsigned char &v = row[x * ch + k];
                    v = cv::saturate_cast<uchar>(a * col[k] + (1 - a) * v);
                }
            }
        }
        return 0;
    });
}

extern "C" int vis_draw_text(vis_image *img, const char *text,
                             vis_point origin, double scale, vis_color c,
                             int thickness, int flags, base_err *err)
{
    const char *fn = "vis_draw_text";
    int rc, lt = 0;
    cv::Point po;
    if ((rc = cv__check_image(img, fn, "img", err)) ||
        (rc = cv__thickness(thickness, false, fn, err)) ||
        (rc = cv__line_type(flags, fn, err, &lt)) ||
        (rc = cv__draw_point(origin, fn, err, &po)))
        return rc;
    if (!text)
        return base_err_set(err, BASE_EINVAL, "%s: text is NULL", fn);
    if (!std::isfinite(scale) || scale <= 0 || scale > 100)
        return base_err_set(err, BASE_EINVAL,
                            "%s: scale %g (expected > 0, <= 100)", fn, scale);
    return vis__cv_guard(err, fn, [&] {
        cv::Mat m = cv__wrap(img);
        cv::putText(m, text,
                    cv::Point(static_cast<int>(std::lround(origin.x)),
                              static_cast<int>(std::lround(origin.y))),
                    cv::FONT_HERSHEY_SIMPLEX, scale,
                    cv__scalar(c, img->channels), thickness, lt);
        return 0;
    });
}

// ---------------------------------------------------------------------
// Analysis
// ---------------------------------------------------------------------

extern "C" int vis_absdiff(const vis_image *a, const vis_image *b,
                           vis_image **out, base_err *err)
{
    const char *fn = "vis_absdiff";
    int rc;
    if ((rc = cv__check_image(a, fn, "a", err)) ||
        (rc = cv__check_image(b, fn, "b", err)))
        return rc;
    if (a->width != b->width || a->height != b->height ||
        a->channels != b->channels)
        return base_err_set(err, BASE_EINVAL,
                            "%s: a is %dx%dx%d, b is %dx%dx%d", fn, a->width,
                            a->height, a->channels, b->width, b->height,
                            b->channels);
    if (!out)
        return base_err_set(err, BASE_EINVAL, "%s: out is NULL", fn);
    return vis__cv_guard(err, fn, [&] {
        cv__owned o;
        int r = cv__alloc(a->width, a->height, a->channels, o, err);
        if (r)
            return r;
        cv::Mat d = cv__wrap(o.p);
        cv::absdiff(cv__wrap(a), cv__wrap(b), d);
        cv__settle(d, o.p);
        *out = o.release();
        return 0;
    });
}

extern "C" int vis_polygon_stats(const vis_image *img, const vis_point *pts,
                                 int n, double mean[3], double stddev[3],
                                 int *count, base_err *err)
{
    const char *fn = "vis_polygon_stats";
    int rc;
    if ((rc = cv__check_image(img, fn, "img", err)) ||
        (rc = cv__check_points(pts, n, 3, fn, "pts", err)))
        return rc;
    if (!mean || !stddev)
        return base_err_set(err, BASE_EINVAL, "%s: mean or stddev is NULL",
                            fn);
    return vis__cv_guard(err, fn, [&] {
        std::vector<cv::Point> p;
        int r = cv__draw_points(pts, n, fn, err, p);
        if (r)
            return r;
        cv::Rect roi;
        cv::Mat mask;
        int inside = 0;
        if (cv__polygon_mask(p, cv::Size(img->width, img->height), cv::LINE_8,
                             &roi, &mask))
            inside = cv::countNonZero(mask);
        if (inside == 0)
            return base_err_set(err, BASE_ERANGE,
                                "%s: no pixel of the image lies inside the "
                                "polygon",
                                fn);
        cv::Scalar mu, sd;
        cv::meanStdDev(cv__wrap(img)(roi), mu, sd, mask);
        for (int k = 0; k < 3; k++) {
            mean[k] = k < img->channels ? mu[k] : 0;
            stddev[k] = k < img->channels ? sd[k] : 0;
        }
        if (count)
            *count = inside;
        return 0;
    });
}

// ---------------------------------------------------------------------
// Video
// ---------------------------------------------------------------------

extern "C" int vis_video_open_file(const char *path, vis_video **out,
                                   base_err *err)
{
    const char *fn = "vis_video_open_file";
    if (!path || !*path || !out)
        return base_err_set(err, BASE_EINVAL, "%s: path or out is NULL", fn);
    // An image sequence pattern names no file of its own.
    bool pattern = std::strchr(path, '%') != nullptr;
    if (!pattern) {
        struct stat st;
        if (stat(path, &st) != 0) {
            int e = errno;
            return base_err_set(err, e == ENOENT ? BASE_ENOTFOUND : BASE_EIO,
                                "%s: cannot open '%s': %s", fn, path,
                                std::strerror(e));
        }
        if (!S_ISREG(st.st_mode))
            return base_err_set(err, BASE_EIO,
                                "%s: '%s' is not a regular file", fn, path);
    }
    return vis__cv_guard(err, fn, [&] {
        vis_video *v = new vis_video;
        try {
            v->name = path;
            // Named backends, not CAP_ANY: CAP_ANY tries each in turn and
            // the failures print on stderr.  OpenCV's own MJPEG reader
            // first for .avi (what vis_video_writer makes), then FFmpeg.
            bool ok;
            if (pattern) {
                if (!cv__parse_pattern(path, v)) {
                    delete v;
                    return base_err_set(err, BASE_EINVAL,
                                        "%s: '%s': a sequence pattern needs "
                                        "one %%d or %%0<n>d",
                                        fn, path);
                }
                // Numbering starts at 0 or 1.
                v->sequence = true;
                v->next = cv__exists(cv__sequence_path(v, 0)) ? 0 : 1;
                if (!cv__exists(cv__sequence_path(v, v->next))) {
                    std::string first = cv__sequence_path(v, 1);
                    delete v;
                    return base_err_set(err, BASE_ENOTFOUND,
                                        "%s: '%s': no first image ('%s')", fn,
                                        path, first.c_str());
                }
                ok = true;
            } else if (cv__ends_with(path, ".avi"))
                ok = v->cap.open(path, cv::CAP_OPENCV_MJPEG) ||
                     v->cap.open(path, cv::CAP_FFMPEG);
            else
                ok = v->cap.open(path, cv::CAP_FFMPEG);
            if (!ok) {
                delete v;
                return base_err_set(err, BASE_EIO,
                                    "%s: '%s' is not a video OpenCV can read",
                                    fn, path);
            }
        } catch (...) {
            delete v;
            throw;
        }
        *out = v;
        return 0;
    });
}

extern "C" int vis_video_open_device(int index, int width, int height,
                                     vis_video **out, base_err *err)
{
    const char *fn = "vis_video_open_device";
    if (!out || index < 0 || width < 0 || height < 0)
        return base_err_set(err, BASE_EINVAL,
                            "%s: out is NULL or index/size negative", fn);
    // Checked first: OpenCV would print a warning for a missing device.
    char dev[32];
    std::snprintf(dev, sizeof dev, "/dev/video%d", index);
    struct stat st;
    if (stat(dev, &st) != 0)
        return base_err_set(err, BASE_ENODEV, "%s: no camera %s: %s", fn, dev,
                            std::strerror(errno));
    return vis__cv_guard(err, fn, [&] {
        vis_video *v = new vis_video;
        try {
            v->name = dev;
            if (!v->cap.open(index, cv::CAP_V4L2)) {
                int r = base_err_set(err, BASE_ENODEV,
                                     "%s: cannot open camera %s", fn,
                                     v->name.c_str());
                delete v;
                return r;
            }
            if (width > 0 && height > 0) {
                // Motion JPEG first: over USB 2 the raw formats of large
                // sizes run at a few frames a second (a driver without it
                // keeps its own format).
                v->cap.set(cv::CAP_PROP_FOURCC, cv::VideoWriter::fourcc('M', 'J', 'P', 'G'));
                v->cap.set(cv::CAP_PROP_FRAME_WIDTH, width);
                v->cap.set(cv::CAP_PROP_FRAME_HEIGHT, height);
                BASE_INFO("vision", "%s: asked for %dx%d, got %.0fx%.0f", dev, width, height,
                          v->cap.get(cv::CAP_PROP_FRAME_WIDTH),
                          v->cap.get(cv::CAP_PROP_FRAME_HEIGHT));
            }
        } catch (...) {
            delete v;
            throw;
        }
        *out = v;
        return 0;
    });
}

extern "C" int vis_video_read(vis_video *v, vis_image **out, base_err *err)
{
    const char *fn = "vis_video_read";
    if (!v || !out)
        return base_err_set(err, BASE_EINVAL, "%s: video or out is NULL", fn);
    if (v->sequence) {
        std::string p = cv__sequence_path(v, v->next);
        if (!cv__exists(p))
            return base_err_set(err, BASE_EEOF, "%s: no more frames in %s",
                                fn, v->name.c_str());
        int rc = vis_image_read(p.c_str(), 3, out, err);
        if (rc == 0)
            v->next++;
        return rc;
    }
    return vis__cv_guard(err, fn, [&] {
        if (!v->cap.read(v->frame) || v->frame.empty())
            return base_err_set(err, BASE_EEOF, "%s: no more frames in %s",
                                fn, v->name.c_str());
        cv::Mat f = v->frame;
        if (f.depth() != CV_8U)
            return base_err_set(err, BASE_ECV,
                                "%s: %s gave a frame of depth %d", fn,
                                v->name.c_str(), f.depth());
        if (f.channels() == 1) {
            cv::Mat c;
            cv::cvtColor(f, c, cv::COLOR_GRAY2BGR);
            f = c;
        }
        return cv__from_mat(f, out, fn, err);
    });
}

extern "C" int vis_video_lock_exposure(vis_video *v, base_err *err)
{
    const char *fn = "vis_video_lock_exposure";
    if (!v)
        return base_err_set(err, BASE_EINVAL, "%s: NULL video", fn);
    return vis__cv_guard(err, fn, [&] {
        // V4L2: auto exposure 1 is manual (3 aperture priority); a driver
        // without the control just refuses, which is not an error here.
        bool e = v->cap.set(cv::CAP_PROP_AUTO_EXPOSURE, 1);
        bool w = v->cap.set(cv::CAP_PROP_AUTO_WB, 0);
        return e || w ? 0 : BASE_EUNSUPPORTED;
    });
}

extern "C" void vis_video_free(vis_video *v)
{
    try {
        delete v;
    } catch (...) {
        // Nothing to report to: a failing release leaves nothing to do.
    }
}

extern "C" int vis_video_writer_new(const char *path, int width, int height,
                                    double fps, vis_video_writer **out,
                                    base_err *err)
{
    const char *fn = "vis_video_writer_new";
    if (!path || !*path || !out)
        return base_err_set(err, BASE_EINVAL, "%s: path or out is NULL", fn);
    int rc = cv__check_size(width, height, fn, err);
    if (rc)
        return rc;
    if (!std::isfinite(fps) || fps <= 0 || fps > 1000)
        return base_err_set(err, BASE_EINVAL, "%s: fps %g", fn, fps);
    if (!cv__ends_with(path, ".avi"))
        return base_err_set(err, BASE_EINVAL,
                            "%s: '%s': Motion-JPEG needs an .avi name", fn,
                            path);
    return vis__cv_guard(err, fn, [&] {
        vis_video_writer *w = new vis_video_writer;
        try {
            w->path = path;
            w->width = width;
            w->height = height;
            if (!w->w.open(path, cv::CAP_OPENCV_MJPEG,
                           cv::VideoWriter::fourcc('M', 'J', 'P', 'G'), fps,
                           cv::Size(width, height), true)) {
                delete w;
                return base_err_set(err, BASE_EIO,
                                    "%s: cannot create video '%s'", fn, path);
            }
        } catch (...) {
            delete w;
            throw;
        }
        *out = w;
        return 0;
    });
}

extern "C" int vis_video_writer_write(vis_video_writer *w,
                                      const vis_image *frame, base_err *err)
{
    const char *fn = "vis_video_writer_write";
    if (!w)
        return base_err_set(err, BASE_EINVAL, "%s: writer is NULL", fn);
    int rc = cv__check_image(frame, fn, "frame", err);
    if (rc)
        return rc;
    if (frame->width != w->width || frame->height != w->height ||
        frame->channels != 3)
        return base_err_set(err, BASE_EINVAL,
                            "%s: frame is %dx%dx%d, '%s' takes %dx%dx3", fn,
                            frame->width, frame->height, frame->channels,
                            w->path.c_str(), w->width, w->height);
    return vis__cv_guard(err, fn, [&] {
        w->w.write(cv__wrap(frame));
        return 0;
    });
}

extern "C" void vis_video_writer_free(vis_video_writer *w)
{
    try {
        delete w;
    } catch (...) {
        // The destructor finishes the file; nowhere to report a failure.
    }
}
