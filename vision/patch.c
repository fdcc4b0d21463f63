/* vision/patch.c: patches cut on the pieces' plane (patch.h). */
#include "patch.h"

#include <math.h>
#include <stddef.h>

/* Tuning of the cut. */
static const struct {
    double max_fine;   /* finest cut, as a multiple of the patch: bounds the work on a
                          close-up camera (4: a 32 px patch of a face seen 128 px wide) */
    double alias_step; /* frame pixels per patch pixel above which the patch is cut
                          finer and averaged down (1.25: linear sampling skips pixels) */
} vis__patch = {4, 1.25};

#define VIS__PATCH_PI 3.14159265358979323846

/* Patch pixel (u, v) of a w x h patch -> plane mm. */
static vis_homography vis__patch_to_plane(const vis_patch_at *at, int w, int h)
{
    double a = at->rot_deg * VIS__PATCH_PI / 180, c = cos(a), s = sin(a);
    double sy = at->side_y_mm > 0 ? at->side_y_mm : at->side_mm;
    double kx = at->side_mm / w, ky = sy / h;
    /* pixel centres: u + 0.5 - w/2 patch pixels from the centre */
    double ou = (0.5 - w / 2.0) * kx, ov = (0.5 - h / 2.0) * ky;
    vis_homography m = {{c * kx, -s * ky, at->x_mm + c * ou - s * ov,
                         s * kx, c * ky, at->y_mm + s * ou + c * ov,
                         0, 0, 1}};
    return m;
}

int vis_patch_cut(const vis_image *frame, vis_homography plane_to_img, const vis_patch_at *at,
                  int size, vis_image **out, base_err *err)
{
    if (size < 4 || size > 1024) {
        if (out)
            *out = NULL;
        return base_err_set(err, BASE_EINVAL, "vis_patch_cut: size %d is outside 4..1024", size);
    }
    return vis_patch_cut_wh(frame, plane_to_img, at, size, size, out, err);
}

int vis_patch_cut_wh(const vis_image *frame, vis_homography plane_to_img, const vis_patch_at *at,
                     int w, int h, vis_image **out, base_err *err)
{
    vis_homography to_img, to_patch;
    vis_point corner[4], px[4];
    double span = 0;
    int fine, rc;

    if (!frame || !at || !out)
        return base_err_set(err, BASE_EINVAL, "vis_patch_cut: NULL argument");
    *out = NULL;
    if (w < 4 || w > 1024 || h < 4 || h > 1024)
        return base_err_set(err, BASE_EINVAL, "vis_patch_cut: size %dx%d is outside 4..1024", w, h);
    if (!(at->side_mm > 0) || at->side_y_mm < 0 || !(at->side_y_mm >= 0))
        return base_err_set(err, BASE_EINVAL, "vis_patch_cut: side %g x %g mm is not positive",
                            at->side_mm, at->side_y_mm);
    /* How many frame pixels one patch pixel spans (the square's sides as
     * seen, their longest): the finer cut that keeps every frame pixel. */
    to_img = vis_homography_mul(plane_to_img, vis__patch_to_plane(at, w, h));
    corner[0] = (vis_point){0, 0};
    corner[1] = (vis_point){w, 0};
    corner[2] = (vis_point){w, h};
    corner[3] = (vis_point){0, h};
    /* The square must lie wholly on the camera's side of the horizon: the
     * homogeneous w of its corners and centre of one sign, none zero. */
    {
        const vis_point centre = {w / 2.0, h / 2.0};
        int sign = 0;
        for (int i = 0; i < 5; i++) {
            const vis_point q = i < 4 ? corner[i] : centre;
            double w = to_img.m[6] * q.x + to_img.m[7] * q.y + to_img.m[8];
            int sg = w > 0 ? 1 : w < 0 ? -1 : 0;
            if (sg == 0 || (sign != 0 && sg != sign))
                return base_err_set(err, BASE_ERANGE,
                                    "vis_patch_cut: the patch at (%.1f, %.1f) mm does not map "
                                    "into the image (the plane is seen edge-on there)",
                                    at->x_mm, at->y_mm);
            sign = sg;
        }
    }
    if ((rc = vis_perspective_transform(to_img, corner, px, 4, err)) != 0)
        return base_err_set(err, BASE_ERANGE,
                            "vis_patch_cut: the patch at (%.1f, %.1f) mm does not map into the image",
                            at->x_mm, at->y_mm);
    for (int i = 0; i < 4; i++) {
        double d = hypot(px[(i + 1) % 4].x - px[i].x, px[(i + 1) % 4].y - px[i].y);
        if (!isfinite(d))
            return base_err_set(err, BASE_ERANGE,
                                "vis_patch_cut: the patch at (%.1f, %.1f) mm does not map into "
                                "the image",
                                at->x_mm, at->y_mm);
        span = fmax(span, d / (i % 2 == 0 ? w : h));
    }
    fine = span > vis__patch.alias_step ? (int)ceil(fmin(span, vis__patch.max_fine)) : 1;
    to_img = vis_homography_mul(plane_to_img, vis__patch_to_plane(at, w * fine, h * fine));
    if ((rc = vis_homography_invert(to_img, &to_patch, err)) != 0)
        return rc;
    if (fine == 1)
        return vis_warp_perspective(frame, to_patch, w, h, VIS_INTER_LINEAR, vis_grey(0), out,
                                    err);
    {
        vis_image *big = NULL;
        rc = vis_warp_perspective(frame, to_patch, w * fine, h * fine, VIS_INTER_LINEAR,
                                  vis_grey(0), &big, err);
        if (rc == 0)
            rc = vis_resize(big, w, h, VIS_INTER_AREA, out, err);
        vis_image_free(big);
        return rc;
    }
}
