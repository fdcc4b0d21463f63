// vision/libcamera_shim.cpp: Raspberry Pi (and other libcamera) cameras.
// The only file that sees libcamera; every entry catches every exception.
#include "libcamera_shim.h"

#include <cstring>
#include <exception>
#include <new>

#ifdef TABLECAM_HAVE_LIBCAMERA
#include <sys/mman.h>

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

#include <libcamera/libcamera.h>

namespace {

struct Cam {
    std::unique_ptr<libcamera::CameraManager> cm;
    std::shared_ptr<libcamera::Camera> cam;
    std::unique_ptr<libcamera::CameraConfiguration> config;
    std::unique_ptr<libcamera::FrameBufferAllocator> alloc;
    std::vector<std::unique_ptr<libcamera::Request>> requests;
    libcamera::Stream *stream = nullptr;
    std::mutex mu;
    std::condition_variable cv;
    std::deque<libcamera::Request *> done;
    bool started = false, acquired = false;
    double t0 = -1;
    long frames = 0;
    unsigned width = 0, height = 0, stride = 0;

    void completed(libcamera::Request *r)
    {
        if (r->status() == libcamera::Request::RequestCancelled)
            return;
        std::lock_guard<std::mutex> lock(mu);
        done.push_back(r);
        cv.notify_one();
    }

    ~Cam()
    {
        if (started)
            cam->stop();
        requests.clear();
        alloc.reset();
        if (acquired)
            cam->release();
        cam.reset();
        if (cm)
            cm->stop();
    }
};

int cam_read(void *self, vis_image **frame, double *t, base_err *err)
{
    Cam *c = static_cast<Cam *>(self);
    try {
        libcamera::Request *r;
        {
            std::unique_lock<std::mutex> lock(c->mu);
            if (!c->cv.wait_for(lock, std::chrono::seconds(5), [c] { return !c->done.empty(); }))
                return base_err_set(err, BASE_ETIMEOUT, "libcamera: no frame for 5 s");
            r = c->done.front();
            c->done.pop_front();
        }
        libcamera::FrameBuffer *fb = r->buffers().begin()->second;
        const libcamera::FrameBuffer::Plane &pl = fb->planes()[0];
        void *map = mmap(nullptr, pl.length, PROT_READ, MAP_SHARED, pl.fd.get(), pl.offset);
        int rc = 0;
        if (map == MAP_FAILED) {
            rc = base_err_set(err, BASE_EIO, "libcamera: cannot map the frame buffer");
        } else {
            vis_image *img = nullptr;
            rc = vis_image_new((int)c->width, (int)c->height, 3, &img, err);
            for (unsigned y = 0; rc == 0 && y < c->height; y++)
                std::memcpy(img->data + (size_t)y * img->stride,
                            static_cast<unsigned char *>(map) + (size_t)y * c->stride,
                            (size_t)c->width * 3);
            munmap(map, pl.length);
            if (rc == 0) {
                double now = base_now();
                if (c->t0 < 0)
                    c->t0 = now;
                *t = now - c->t0;
                *frame = img;
            }
        }
        r->reuse(libcamera::Request::ReuseBuffers);
        /* After a second of auto exposure and white balance, hold them:
         * the recogniser wants the light to stay put. */
        if (++c->frames == 30) {
            r->controls().set(libcamera::controls::AeEnable, false);
            r->controls().set(libcamera::controls::AwbEnable, false);
        }
        c->cam->queueRequest(r);
        return rc;
    } catch (const std::bad_alloc &) {
        return base_err_set(err, BASE_ENOMEM, "libcamera: out of memory");
    } catch (const std::exception &e) {
        return base_err_set(err, BASE_EIO, "libcamera: %s", e.what());
    } catch (...) {
        return base_err_set(err, BASE_EIO, "libcamera: unknown failure");
    }
}

void cam_close(void *self)
{
    try {
        delete static_cast<Cam *>(self);
    } catch (...) {
    }
}

} // namespace

int vis__libcamera_open(int index, int width, int height, vis_capture_ops *ops, void **self,
                        base_err *err)
{
    using namespace libcamera;
    std::unique_ptr<Cam> c;
    try {
        c = std::make_unique<Cam>();
        // libcamera logs to stderr by itself; tablecam speaks through its
        // own logger (and says what failed), so libcamera stays quiet
        // unless debugging.
        if (base_log_level() > BASE_LOG_DEBUG)
            libcamera::logSetTarget(libcamera::LoggingTargetNone);
        c->cm = std::make_unique<CameraManager>();
        if (c->cm->start() != 0)
            return base_err_set(err, BASE_ENODEV, "libcamera: the camera manager cannot start");
        auto cams = c->cm->cameras();
        if (index < 0 || (size_t)index >= cams.size())
            return base_err_set(err, BASE_ENODEV, "libcamera:%d: no such camera (libcamera sees %zu)",
                                index, cams.size());
        c->cam = cams[(size_t)index];
        if (c->cam->acquire() != 0)
            return base_err_set(err, BASE_EBUSY, "libcamera:%d: the camera is in use", index);
        c->acquired = true;
        c->config = c->cam->generateConfiguration({StreamRole::Viewfinder});
        if (!c->config || c->config->size() == 0)
            return base_err_set(err, BASE_ENODEV, "libcamera:%d: no usable stream", index);
        StreamConfiguration &sc = c->config->at(0);
        sc.pixelFormat = formats::RGB888; // bytes B, G, R: OpenCV's order
        sc.size = width > 0 ? Size((unsigned)width, (unsigned)height) : Size(1280, 960);
        sc.bufferCount = 4;
        if (c->config->validate() == CameraConfiguration::Invalid ||
            sc.pixelFormat != formats::RGB888)
            return base_err_set(err, BASE_EUNSUPPORTED, "libcamera:%d: no 24-bit BGR format",
                                index);
        if (c->cam->configure(c->config.get()) != 0)
            return base_err_set(err, BASE_ENODEV, "libcamera:%d: configure failed", index);
        c->stream = sc.stream();
        c->width = sc.size.width;
        c->height = sc.size.height;
        c->stride = sc.stride;
        c->alloc = std::make_unique<FrameBufferAllocator>(c->cam);
        if (c->alloc->allocate(c->stream) < 0)
            return base_err_set(err, BASE_ENOMEM, "libcamera:%d: cannot allocate buffers", index);
        for (const auto &fb : c->alloc->buffers(c->stream)) {
            auto req = c->cam->createRequest();
            if (!req || req->addBuffer(c->stream, fb.get()) != 0)
                return base_err_set(err, BASE_ENOMEM, "libcamera:%d: cannot create requests",
                                    index);
            c->requests.push_back(std::move(req));
        }
        c->cam->requestCompleted.connect(c.get(), &Cam::completed);
        if (c->cam->start() != 0)
            return base_err_set(err, BASE_ENODEV, "libcamera:%d: cannot start", index);
        c->started = true;
        for (auto &req : c->requests)
            c->cam->queueRequest(req.get());
        ops->read = cam_read;
        ops->close = cam_close;
        ops->live = true;
        *self = c.release();
        return 0;
    } catch (const std::bad_alloc &) {
        return base_err_set(err, BASE_ENOMEM, "libcamera: out of memory");
    } catch (const std::exception &e) {
        return base_err_set(err, BASE_ENODEV, "libcamera: %s", e.what());
    } catch (...) {
        return base_err_set(err, BASE_ENODEV, "libcamera: unknown failure");
    }
}

#else

int vis__libcamera_open(int index, int width, int height, vis_capture_ops *ops, void **self,
                        base_err *err)
{
    (void)width;
    (void)height;
    (void)ops;
    (void)self;
    return base_err_set(err, BASE_EUNSUPPORTED,
                        "libcamera:%d: this tablecam was built without libcamera", index);
}

#endif
