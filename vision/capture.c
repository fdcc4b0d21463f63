/* vision/capture.c: the capture backends that need only the OpenCV shim. */
#define _XOPEN_SOURCE 700
#include "capture.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libcamera_shim.h"

struct vis_capture {
    vis_capture_ops ops;
    void *self;
    char name[256];
};

/* ---- file: and dir: ---- */

typedef struct vis__files {
    char **paths;
    int n, next;
    double fps;
} vis__files;

static int vis__files_read(void *self, vis_image **frame, double *t, base_err *err)
{
    vis__files *f = self;
    if (f->next >= f->n)
        return base_err_set(err, BASE_EEOF, "end of stream");
    *t = f->next / f->fps;
    return vis_image_read(f->paths[f->next++], 3, frame, err);
}

static void vis__files_close(void *self)
{
    vis__files *f = self;
    for (int i = 0; i < f->n; i++)
        free(f->paths[i]);
    free(f->paths);
    free(f);
}

static int vis__cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool vis__is_image(const char *name)
{
    const char *dot = strrchr(name, '.');
    static const char *const ext[] = {".png", ".jpg", ".jpeg", ".PNG", ".JPG", ".JPEG"};
    for (size_t i = 0; dot && i < sizeof ext / sizeof ext[0]; i++)
        if (strcmp(dot, ext[i]) == 0)
            return true;
    return false;
}

static int vis__open_files(const char *path, bool folder, double fps, vis__files **out,
                           base_err *err)
{
    vis__files *f = calloc(1, sizeof *f);
    if (!f)
        return base_err_set(err, BASE_ENOMEM, "out of memory");
    f->fps = fps;
    if (!folder) {
        FILE *test = fopen(path, "rb");
        if (!test) {
            free(f);
            return base_err_set(err, BASE_ENOTFOUND, "file:%s: %s", path, strerror(errno));
        }
        fclose(test);
        f->paths = malloc(sizeof *f->paths);
        f->paths[0] = strdup(path);
        f->n = 1;
    } else {
        DIR *d = opendir(path);
        struct dirent *e;
        int cap = 0;
        if (!d) {
            free(f);
            return base_err_set(err, BASE_ENOTFOUND, "dir:%s: %s", path, strerror(errno));
        }
        while ((e = readdir(d)) != NULL) {
            size_t len;
            if (e->d_name[0] == '.' || !vis__is_image(e->d_name))
                continue;
            if (f->n == cap) {
                cap = cap ? cap * 2 : 64;
                char **p = realloc(f->paths, sizeof *p * (size_t)cap);
                if (!p)
                    break;
                f->paths = p;
            }
            len = strlen(path) + strlen(e->d_name) + 2;
            f->paths[f->n] = malloc(len);
            snprintf(f->paths[f->n], len, "%s/%s", path, e->d_name);
            f->n++;
        }
        closedir(d);
        if (f->n == 0) {
            vis__files_close(f);
            return base_err_set(err, BASE_ENOTFOUND, "dir:%s holds no .png or .jpg frames", path);
        }
        qsort(f->paths, (size_t)f->n, sizeof *f->paths, vis__cmp);
    }
    *out = f;
    return 0;
}

/* ---- video: and v4l2: ---- */

#define VIS__SETTLE_FRAMES 30

typedef struct vis__video {
    vis_video *v;
    double fps;
    long frame;
    bool live;
    double t0;
} vis__video;

static int vis__video_read(void *self, vis_image **frame, double *t, base_err *err)
{
    vis__video *v = self;
    int rc = vis_video_read(v->v, frame, err);
    if (rc == 0) {
        if (v->live) {
            double now = base_now();
            if (v->frame == 0)
                v->t0 = now;
            *t = now - v->t0;
            /* Let auto exposure settle for a second, then hold it. */
            if (v->frame == (long)VIS__SETTLE_FRAMES)
                vis_video_lock_exposure(v->v, NULL);
        } else {
            *t = v->frame / v->fps;
        }
        v->frame++;
    }
    return rc;
}

static void vis__video_close(void *self)
{
    vis__video *v = self;
    vis_video_free(v->v);
    free(v);
}

/* ---- the front ---- */

int vis_capture_wrap(const vis_capture_ops *ops, void *self, const char *name, vis_capture **out)
{
    vis_capture *c = calloc(1, sizeof *c);
    if (!c) {
        ops->close(self);
        return BASE_ENOMEM;
    }
    c->ops = *ops;
    c->self = self;
    snprintf(c->name, sizeof c->name, "%s", name ? name : "?");
    *out = c;
    return 0;
}

/* The options after a camera's path: ":fps=F" (files: the frame rate they
 * are timed at) and ":size=WxH" (live cameras: the frame size to ask for;
 * the driver gives its nearest).  rest is the spec after the kind. */
typedef struct vis__opts {
    double fps;
    int width, height;
} vis__opts;

static int vis__options(const char *spec, const char *rest, bool live, char *path, size_t cap,
                        vis__opts *o, base_err *err)
{
    /* A file's path may hold a ':'; a camera's name does not. */
    const char *f = strstr(rest, ":fps="), *z = strstr(rest, ":size=");
    const char *opt = live ? strchr(rest, ':') : f && (!z || f < z) ? f : z;
    size_t len = opt ? (size_t)(opt - rest) : strlen(rest);
    if (len == 0 || len >= cap)
        return base_err_set(err, BASE_EINVAL, "camera '%s': a path is needed", spec);
    memcpy(path, rest, len);
    path[len] = '\0';
    while (opt && *opt) {
        char *end;
        if (strncmp(opt, ":fps=", 5) == 0) {
            if (live)
                return base_err_set(err, BASE_EINVAL,
                                    "camera '%s': fps= is for files (a live camera runs at its own pace)",
                                    spec);
            o->fps = strtod(opt + 5, &end);
            if ((*end && *end != ':') || !(o->fps > 0 && o->fps <= 1000))
                return base_err_set(err, BASE_EINVAL, "camera '%s': fps must be a number from 0 to 1000",
                                    spec);
        } else if (strncmp(opt, ":size=", 6) == 0) {
            long w, h = 0;
            if (!live)
                return base_err_set(err, BASE_EINVAL,
                                    "camera '%s': size= is for live cameras (a file has its own size)",
                                    spec);
            w = strtol(opt + 6, &end, 10);
            if (*end == 'x')
                h = strtol(end + 1, &end, 10);
            if ((*end && *end != ':') || w < 160 || h < 120 || w > 8192 || h > 8192)
                return base_err_set(err, BASE_EINVAL,
                                    "camera '%s': size must be WIDTHxHEIGHT, 160x120 to 8192x8192",
                                    spec);
            o->width = (int)w;
            o->height = (int)h;
        } else {
            return base_err_set(err, BASE_EINVAL, "camera '%s': unknown option '%s' (known: %s)",
                                spec, opt + 1, live ? "size=WxH" : "fps=N");
        }
        opt = end;
    }
    return 0;
}

int vis_capture_open(const char *spec, vis_capture **out, base_err *err)
{
    char path[4096];
    vis__opts o = {30, 0, 0};
    int rc;

    *out = NULL;
    if (!spec)
        return base_err_set(err, BASE_EINVAL, "no camera given");
    if (strncmp(spec, "file:", 5) == 0 || strncmp(spec, "dir:", 4) == 0) {
        static const vis_capture_ops ops = {vis__files_read, vis__files_close, false};
        bool folder = spec[0] == 'd';
        vis__files *f = NULL;
        if ((rc = vis__options(spec, spec + (folder ? 4 : 5), false, path, sizeof path, &o, err)) !=
                0 ||
            (rc = vis__open_files(path, folder, o.fps, &f, err)) != 0)
            return rc;
        return vis_capture_wrap(&ops, f, spec, out);
    }
    if (strncmp(spec, "video:", 6) == 0 || strncmp(spec, "v4l2:", 5) == 0) {
        static const vis_capture_ops file_ops = {vis__video_read, vis__video_close, false};
        static const vis_capture_ops live_ops = {vis__video_read, vis__video_close, true};
        bool live = spec[1] == '4';
        vis__video *v;
        if ((rc = vis__options(spec, spec + (live ? 5 : 6), live, path, sizeof path, &o, err)) != 0)
            return rc;
        if (!(v = calloc(1, sizeof *v)))
            return base_err_set(err, BASE_ENOMEM, "out of memory");
        v->fps = o.fps;
        v->live = live;
        if (live) {
            int index = -1;
            char tail;
            if (sscanf(path, "/dev/video%d%c", &index, &tail) != 1 &&
                sscanf(path, "%d%c", &index, &tail) != 1)
                rc = base_err_set(err, BASE_EINVAL, "camera '%s': expected v4l2:/dev/videoN", spec);
            else if (o.width > 0)
                rc = vis_video_open_device(index, o.width, o.height, &v->v, err);
            else
                rc = vis_video_open_device(index, VIS_CAPTURE_WIDTH, VIS_CAPTURE_HEIGHT, &v->v, err);
        } else {
            rc = vis_video_open_file(path, &v->v, err);
        }
        if (rc != 0) {
            free(v);
            return rc;
        }
        return vis_capture_wrap(live ? &live_ops : &file_ops, v, spec, out);
    }
    if (strncmp(spec, "libcamera:", 10) == 0) {
        vis_capture_ops ops;
        void *self = NULL;
        int index;
        char tail;
        if ((rc = vis__options(spec, spec + 10, true, path, sizeof path, &o, err)) != 0)
            return rc;
        if (sscanf(path, "%d%c", &index, &tail) != 1 || index < 0)
            return base_err_set(err, BASE_EINVAL, "camera '%s': expected libcamera:N", spec);
        if ((rc = vis__libcamera_open(index, o.width, o.height, &ops, &self, err)) != 0)
            return rc;
        return vis_capture_wrap(&ops, self, spec, out);
    }
    return base_err_set(err, BASE_EINVAL,
                        "camera '%s': unknown kind (known: file:IMG, dir:FOLDER, video:FILE, "
                        "v4l2:/dev/videoN, libcamera:N, sim:GAME)",
                        spec);
}

int vis_capture_read(vis_capture *c, vis_image **frame, double *t, base_err *err)
{
    double dummy;
    return c->ops.read(c->self, frame, t ? t : &dummy, err);
}

const char *vis_capture_name(const vis_capture *c) { return c->name; }
bool vis_capture_live(const vis_capture *c) { return c->ops.live; }

void vis_capture_free(vis_capture *c)
{
    if (!c)
        return;
    c->ops.close(c->self);
    free(c);
}
