/* calib/mat.c: finding the table mat and the planes above it. */
#include "calib.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An uncalibrated webcam is assumed to see about 65 degrees across. */
#define CAL__DEFAULT_HFOV_DEG 65.0
#define CAL__MIN_MARKERS 3
/* A marker found by its pattern (vis_aruco_align): how far from where the
 * others put it it may be (cells), how well it must correlate, and by how
 * much better than any other marker. */
#define CAL__ALIGN_SEARCH 2.5
#define CAL__ALIGN_SCORE 0.7
#define CAL__ALIGN_SEP 0.02
/* a marker looked for from one other: the window's margin, as a share of
 * the distance between them */
#define CAL__ONE_REACH 0.2

cal_mat cal_mat_default(void) { return (cal_mat){500.0, 500.0, 40.0}; }

int cal_mat_parse(const char *text, cal_mat *out, base_err *err)
{
    double w, h, s;
    char tail;
    if (!text || sscanf(text, "%lfx%lf:%lf%c", &w, &h, &s, &tail) != 3)
        return base_err_set(err, BASE_EPARSE,
                            "mat '%s' is not WxH:S in millimetres (e.g. 500x500:40)",
                            text ? text : "");
    if (!(w > 0 && h > 0 && s > 0) || w > 10000 || h > 10000)
        return base_err_set(err, BASE_ERANGE, "mat '%s': sizes must be positive and at most 10 m",
                            text);
    if (s >= w || s >= h)
        return base_err_set(err, BASE_ERANGE,
                            "mat '%s': markers of %g mm do not fit %g x %g mm apart", text, s, w, h);
    *out = (cal_mat){w, h, s};
    return 0;
}

void cal_mat_marker_corners(cal_mat m, int id, vis_point out[4])
{
    static const double off[4][2] = {{-0.5, -0.5}, {0.5, -0.5}, {0.5, 0.5}, {-0.5, 0.5}};
    const double cx = (id == 1 || id == 2) ? m.w : 0.0;
    const double cy = (id == 2 || id == 3) ? m.h : 0.0;
    for (int k = 0; k < 4; k++)
        out[k] = (vis_point){cx + off[k][0] * m.s, cy + off[k][1] * m.s};
}

static double cal__default_focal(int width)
{
    return 0.5 * width / tan(CAL__DEFAULT_HFOV_DEG * 3.14159265358979323846 / 360.0);
}

/* Focal length from the table homography (table -> image, principal point
 * at the origin): the images of the table's x and y axes must be
 * orthogonal and of equal length.  Returns 0 when the view is too close to
 * straight down for either constraint to tell. */
static double cal__focal_from_h(const double *h)
{
    double h11 = h[0], h12 = h[1], h21 = h[3], h22 = h[4], h31 = h[6], h32 = h[7];
    double num_a = -(h11 * h12 + h21 * h22), den_a = h31 * h32;
    double num_b = h12 * h12 + h22 * h22 - h11 * h11 - h21 * h21, den_b = h31 * h31 - h32 * h32;
    /* Weight each estimate of f^2 by how well it is conditioned. */
    double f2 = 0, wsum = 0;
    double scale = fabs(h11) + fabs(h12) + fabs(h21) + fabs(h22);
    double eps = 1e-9 * scale * scale;
    if (fabs(den_a) > 1e-12 && num_a / den_a > 0 && fabs(num_a) > eps) {
        double w = fabs(den_a);
        f2 += w * (num_a / den_a);
        wsum += w;
    }
    if (fabs(den_b) > 1e-12 && num_b / den_b > 0 && fabs(num_b) > eps) {
        double w = fabs(den_b);
        f2 += w * (num_b / den_b);
        wsum += w;
    }
    if (wsum <= 0)
        return 0;
    return sqrt(f2 / wsum);
}

/* The corners of the mat's markers among markers (ids 0-3, the first copy
 * of each; others are ignored) in img, and where they are on the table in
 * tab: *np points.  Returns the ids seen, bit per id. */
static unsigned cal__corners(const vis_marker *markers, int n, cal_mat m, vis_point img[16],
                             vis_point tab[16], int *np)
{
    unsigned found = 0;
    *np = 0;
    for (int i = 0; i < n; i++) {
        int id = markers[i].id;
        if (id < 0 || id > 3 || (found & (1u << id)))
            continue;
        found |= 1u << id;
        cal_mat_marker_corners(m, id, &tab[*np]);
        memcpy(&img[*np], markers[i].corners, sizeof markers[i].corners);
        *np += 4;
    }
    return found;
}

int cal_mat_fit_markers(const vis_marker *markers, int n, cal_mat m, int width, int height,
                        const vis_camera *lens, cal_mat_fit *out, base_err *err)
{
    vis_point img[16], tab[16];
    int np, rc;
    unsigned found = cal__corners(markers, n, m, img, tab, &np);
    cal_mat_fit fit;

    memset(&fit, 0, sizeof fit);
    fit.found = found;
    for (int i = 0; i < 4; i++)
        fit.nfound += (found >> i) & 1;
    if (fit.nfound < CAL__MIN_MARKERS) {
        char seen[32] = "";
        for (int i = 0; i < 4; i++)
            if (found & (1u << i)) {
                size_t len = strlen(seen);
                snprintf(seen + len, sizeof seen - len, "%s%d", len ? ", " : "", i);
            }
        /* ("seen: 3" read as a count of three) */
        return base_err_set(err, BASE_ENOTFOUND,
                            "the table mat needs at least %d of its markers 0-3 in view; "
                            "seen: %s%s",
                            CAL__MIN_MARKERS, fit.nfound == 1 ? "only marker " : "",
                            fit.nfound ? seen : "none");
    }
    if (lens && (rc = vis_undistort_points(*lens, img, img, np, err)) != 0)
        return rc;
    if ((rc = vis_find_homography(img, tab, np, VIS_HOMOGRAPHY_LSQ, 0, NULL, &fit.img_to_table,
                                  err)) != 0)
        return rc;
    if ((rc = vis_homography_invert(fit.img_to_table, &fit.table_to_img, err)) != 0)
        return rc;
    {
        double ss = 0;
        for (int i = 0; i < np; i++) {
            vis_point p = vis_homography_apply(fit.img_to_table, img[i]);
            ss += (p.x - tab[i].x) * (p.x - tab[i].x) + (p.y - tab[i].y) * (p.y - tab[i].y);
        }
        fit.rms_mm = sqrt(ss / np);
    }
    fit.width = width;
    fit.height = height;
    *out = fit;
    return 0;
}

/* The affine map from n points tab to img (least squares), as a
 * homography; BASE_ENOTFOUND when tab's points lie on a line. */
static int cal__affine(const vis_point *tab, const vis_point *img, int n, vis_homography *out)
{
    double mx = 0, my = 0, ix = 0, iy = 0, sxx = 0, sxy = 0, syy = 0, a[2][2] = {{0}};
    for (int k = 0; k < n; k++) {
        mx += tab[k].x / n;
        my += tab[k].y / n;
        ix += img[k].x / n;
        iy += img[k].y / n;
    }
    for (int k = 0; k < n; k++) {
        double dx = tab[k].x - mx, dy = tab[k].y - my;
        double u = img[k].x - ix, v = img[k].y - iy;
        sxx += dx * dx;
        sxy += dx * dy;
        syy += dy * dy;
        a[0][0] += u * dx;
        a[0][1] += u * dy;
        a[1][0] += v * dx;
        a[1][1] += v * dy;
    }
    double det = sxx * syy - sxy * sxy;
    if (!(fabs(det) > 1e-9))
        return BASE_ENOTFOUND;
    double *h = out->m;
    for (int r = 0; r < 2; r++) {
        h[3 * r] = (a[r][0] * syy - a[r][1] * sxy) / det;
        h[3 * r + 1] = (a[r][1] * sxx - a[r][0] * sxy) / det;
        h[3 * r + 2] = (r ? iy : ix) - h[3 * r] * mx - h[3 * r + 1] * my;
    }
    h[6] = h[7] = 0;
    h[8] = 1;
    return 0;
}

/* The table -> image homography from the mat's markers in mk and *found,
 * the ids among them; BASE_ENOTFOUND with none.  One marker's four
 * corners say roughly where to look for the others (a far camera's
 * blurred frame may decode only the one: sim seed 980009), two markers'
 * eight better; neither is enough to measure the table. */
static int cal__rough_fit(const vis_marker *mk, int n, cal_mat m, unsigned *found,
                          vis_homography *table_to_img)
{
    vis_point img[16], tab[16];
    int np;
    *found = cal__corners(mk, n, m, img, tab, &np);
    if (np < 4)
        return BASE_ENOTFOUND;
    /* One marker: an affine map (the perspective from a corner's pixel
     * of error over a marker's side sends the far markers off the frame) */
    if (np == 4)
        return cal__affine(tab, img, np, table_to_img);
    return vis_find_homography(tab, img, np, VIS_HOMOGRAPHY_LSQ, 0, NULL, table_to_img, NULL);
}

/* Looks for marker id where t2i (table -> image, from the other markers)
 * puts it: decoded in that part of the frame enlarged, else by its
 * pattern.  one: t2i is from one marker alone, *one its centre in the
 * image (NULL: from more).  0 and *out when found. */
static int cal__find_one(vis_aruco *det, const vis_image *img, cal_mat m, int id,
                         vis_homography t2i, const vis_point *one, vis_marker *out)
{
    vis_point c[4], p[4];
    vis_marker got[8];
    int ng = 0;
    double x0 = 1e9, y0 = 1e9, x1 = -1e9, y1 = -1e9, side = 0, margin, score, sep, moved = 0,
           side2 = 0;

    cal_mat_marker_corners(m, id, c);
    for (int k = 0; k < 4; k++) {
        p[k] = vis_homography_apply(t2i, c[k]);
        x0 = fmin(x0, p[k].x);
        y0 = fmin(y0, p[k].y);
        x1 = fmax(x1, p[k].x);
        y1 = fmax(y1, p[k].y);
    }
    for (int k = 0; k < 4; k++)
        side = fmax(side, hypot(p[(k + 1) % 4].x - p[k].x, p[(k + 1) % 4].y - p[k].y));
    if (!(side > 4 && side < 0.5 * img->width))
        return BASE_ENOTFOUND; /* the rough fit is wild there */
    /* Two markers along one edge say little about the far edge's
     * perspective: a wide window, enlarged so the marker is ~90 px. */
    margin = fmax(1.5 * side, 24);
    /* (one marker's map, its corners each a pixel or so off and no
     * perspective, puts a marker ten sides away tens of pixels off) */
    if (one)
        margin = fmax(margin, CAL__ONE_REACH * hypot(0.5 * (x0 + x1) - one->x,
                                                     0.5 * (y0 + y1) - one->y));
    if (vis_aruco_detect_roi(det, img, (int)floor(x0 - margin), (int)floor(y0 - margin),
                             (int)ceil(x1 - x0 + 2 * margin), (int)ceil(y1 - y0 + 2 * margin),
                             fmin(6, fmax(1, 90 / side)), got, 8, &ng, NULL) == 0)
        for (int i = 0; i < ng && i < 8; i++)
            if (got[i].id == id) {
                *out = got[i];
                return 0;
            }
    if (vis_aruco_align(det, img, id, p, CAL__ALIGN_SEARCH, out, &score, &sep, NULL) != 0)
        return BASE_ENOTFOUND;
    for (int k = 0; k < 4; k++) {
        moved = fmax(moved, hypot(out->corners[k].x - p[k].x, out->corners[k].y - p[k].y));
        side2 = fmax(side2, hypot(out->corners[(k + 1) % 4].x - out->corners[k].x,
                                  out->corners[(k + 1) % 4].y - out->corners[k].y));
    }
    /* Its own pattern clearly, near where the others put it, about the
     * size they say. */
    if (score >= CAL__ALIGN_SCORE && sep >= CAL__ALIGN_SEP &&
        moved <= (CAL__ALIGN_SEARCH + 1) / 6.0 * side && side2 > 0.6 * side && side2 < 1.6 * side)
        return 0;
    return BASE_ENOTFOUND;
}

/* Markers the whole frame's search missed (small, blurred, seen at a
 * slant), found where the others say they are; each one found sharpens
 * where the rest are.  Appends to mk (*n grows, up to cap). */
static void cal__recover(vis_aruco *det, const vis_image *img, cal_mat m, vis_marker *mk, int *n,
                         int cap)
{
    unsigned found, tried = 0;
    for (;;) {
        vis_homography t2i;
        int hit = 0;
        if (*n >= cap || cal__rough_fit(mk, *n, m, &found, &t2i) != 0 || found == 0xf)
            return;
        /* (the centre of the one marker, when there is one) */
        vis_point one = {0, 0};
        for (int i = 0; i < *n; i++)
            if (mk[i].id >= 0 && mk[i].id < 4 && (found & (1u << mk[i].id))) {
                for (int k = 0; k < 4; k++) {
                    one.x += 0.25 * mk[i].corners[k].x;
                    one.y += 0.25 * mk[i].corners[k].y;
                }
                break;
            }
        for (int id = 0; id < 4 && !hit; id++) {
            if ((found | tried) & (1u << id))
                continue;
            tried |= 1u << id;
            if (cal__find_one(det, img, m, id, t2i, (found & (found - 1)) ? NULL : &one,
                              &mk[*n]) == 0) {
                (*n)++;
                tried = 0; /* a better fit: the misses may be found now */
                hit = 1;
            }
        }
        if (!hit)
            return;
    }
}

int cal_mat_locate(vis_aruco *det, const vis_image *img, cal_mat m, const vis_camera *lens,
                   cal_mat_fit *out, base_err *err)
{
    vis_marker mk[32];
    int n = 0, rc;
    if (!det || !img || !out)
        return base_err_set(err, BASE_EINVAL, "cal_mat_locate: NULL argument");
    if ((rc = vis_aruco_detect(det, img, mk, 28, &n, err)) != 0)
        return rc;
    if (n > 28)
        n = 28;
    cal__recover(det, img, m, mk, &n, 32);
    return cal_mat_fit_markers(mk, n, m, img->width, img->height, lens, out, err);
}

/* The camera pose from the table homography: r1, r2, r3 (the table's x,
 * y and z = x cross y axes in camera coordinates; z points into the table),
 * t (the table origin in camera coordinates), and the focal length and
 * principal point used.  A point h above table point (x, y) is at
 * x r1 + y r2 - h r3 + t in the camera. */
typedef struct cal__pose {
    double r1[3], r2[3], r3[3], t[3], f, cx, cy;
} cal__pose;

static int cal__pose_of(const cal_mat_fit *fit, const vis_camera *lens, cal__pose *P,
                        base_err *err)
{
    double h[9], lam, n1, n2;
    const double *H = fit->table_to_img.m;

    P->cx = lens ? lens->cx : 0.5 * (fit->width - 1);
    P->cy = lens ? lens->cy : 0.5 * (fit->height - 1);
    /* Move the principal point to the origin: h = T * H. */
    for (int c = 0; c < 3; c++) {
        h[0 + c] = H[0 + c] - P->cx * H[6 + c];
        h[3 + c] = H[3 + c] - P->cy * H[6 + c];
        h[6 + c] = H[6 + c];
    }
    if (lens) {
        P->f = 0.5 * (lens->fx + lens->fy);
    } else {
        P->f = cal__focal_from_h(h);
        /* Trust the homography only for plausible lenses. */
        if (!(P->f > 0.3 * fit->width && P->f < 5.0 * fit->width))
            P->f = cal__default_focal(fit->width);
    }
    /* K^-1 h with K = diag(f, f, 1); columns are r1, r2, t up to scale. */
    for (int i = 0; i < 3; i++) {
        double s = i < 2 ? 1.0 / P->f : 1.0;
        P->r1[i] = h[i * 3 + 0] * s;
        P->r2[i] = h[i * 3 + 1] * s;
        P->t[i] = h[i * 3 + 2] * s;
    }
    n1 = sqrt(P->r1[0] * P->r1[0] + P->r1[1] * P->r1[1] + P->r1[2] * P->r1[2]);
    n2 = sqrt(P->r2[0] * P->r2[0] + P->r2[1] * P->r2[1] + P->r2[2] * P->r2[2]);
    if (n1 <= 0 || n2 <= 0)
        return base_err_set(err, BASE_ERANGE, "the table homography is degenerate");
    lam = 2.0 / (n1 + n2);
    if (P->t[2] * lam < 0) /* the table is in front of the camera */
        lam = -lam;
    for (int i = 0; i < 3; i++) {
        P->r1[i] *= lam;
        P->r2[i] *= lam;
        P->t[i] *= lam;
    }
    /* The table's z = x cross y points away from the camera: up is -r3. */
    P->r3[0] = P->r1[1] * P->r2[2] - P->r1[2] * P->r2[1];
    P->r3[1] = P->r1[2] * P->r2[0] - P->r1[0] * P->r2[2];
    P->r3[2] = P->r1[0] * P->r2[1] - P->r1[1] * P->r2[0];
    {
        double n3 = sqrt(P->r3[0] * P->r3[0] + P->r3[1] * P->r3[1] + P->r3[2] * P->r3[2]);
        for (int i = 0; i < 3; i++)
            P->r3[i] /= n3;
    }
    return 0;
}

int cal_mat_plane(const cal_mat_fit *fit, const vis_camera *lens, double height_mm,
                  vis_homography *table_to_img, base_err *err)
{
    cal__pose P;
    int rc;

    if (height_mm == 0) {
        *table_to_img = fit->table_to_img;
        return 0;
    }
    if ((rc = cal__pose_of(fit, lens, &P, err)) != 0)
        return rc;
    {
        double c3[3], out[9];
        for (int i = 0; i < 3; i++)
            c3[i] = P.t[i] - height_mm * P.r3[i];
        /* Back to pixels: K then T^-1. */
        for (int i = 0; i < 3; i++) {
            double s = i < 2 ? P.f : 1.0;
            out[i * 3 + 0] = P.r1[i] * s;
            out[i * 3 + 1] = P.r2[i] * s;
            out[i * 3 + 2] = c3[i] * s;
        }
        for (int c = 0; c < 3; c++) {
            out[0 + c] += P.cx * out[6 + c];
            out[3 + c] += P.cy * out[6 + c];
        }
        memcpy(table_to_img->m, out, sizeof out);
    }
    return 0;
}

int cal_mat_camera(const cal_mat_fit *fit, const vis_camera *lens, double xyz_mm[3],
                   base_err *err)
{
    cal__pose P;
    int rc;
    if (!fit || !xyz_mm)
        return base_err_set(err, BASE_EINVAL, "cal_mat_camera: NULL argument");
    if ((rc = cal__pose_of(fit, lens, &P, err)) != 0)
        return rc;
    /* Camera point X_c = R X + t with R = [r1 r2 r3]; the centre is
     * X = -R^T t, and the table's up is -r3, so height = +r3 . t. */
    xyz_mm[0] = -(P.r1[0] * P.t[0] + P.r1[1] * P.t[1] + P.r1[2] * P.t[2]);
    xyz_mm[1] = -(P.r2[0] * P.t[0] + P.r2[1] * P.t[1] + P.r2[2] * P.t[2]);
    xyz_mm[2] = P.r3[0] * P.t[0] + P.r3[1] * P.t[1] + P.r3[2] * P.t[2];
    return 0;
}

double cal_mat_px_per_mm(const cal_mat_fit *fit, double x_mm, double y_mm)
{
    vis_point a = vis_homography_apply(fit->table_to_img, (vis_point){x_mm - 5, y_mm});
    vis_point b = vis_homography_apply(fit->table_to_img, (vis_point){x_mm + 5, y_mm});
    vis_point c = vis_homography_apply(fit->table_to_img, (vis_point){x_mm, y_mm - 5});
    vis_point d = vis_homography_apply(fit->table_to_img, (vis_point){x_mm, y_mm + 5});
    double ux = (b.x - a.x) / 10, uy = (b.y - a.y) / 10, vx = (d.x - c.x) / 10,
           vy = (d.y - c.y) / 10;
    return sqrt(fabs(ux * vy - uy * vx));
}

/* The lens model of OpenCV: ideal normalised -> distorted pixel. */
static void cal__distort(const vis_camera *c, double u, double v, float *du, float *dv)
{
    const double *k = c->dist;
    double x = (u - c->cx) / c->fx, y = (v - c->cy) / c->fy;
    double r2 = x * x + y * y, r4 = r2 * r2, r6 = r4 * r2;
    double rad = (1 + k[0] * r2 + k[1] * r4 + k[4] * r6) / (1 + k[5] * r2 + k[6] * r4 + k[7] * r6);
    double xd = x * rad + 2 * k[2] * x * y + k[3] * (r2 + 2 * x * x);
    double yd = y * rad + k[2] * (r2 + 2 * y * y) + 2 * k[3] * x * y;
    *du = (float)(c->fx * xd + c->cx);
    *dv = (float)(c->fy * yd + c->cy);
}

int cal_rectify_roi(const vis_image *img, const cal_mat_fit *fit, const vis_camera *lens,
                    double height_mm, double px_per_mm, double x0_mm, double y0_mm,
                    double w_mm, double h_mm, vis_image **out, base_err *err)
{
    vis_homography plane, to_img;
    int w, h, rc;

    if (!img || !fit || !out || !(px_per_mm > 0) || !(w_mm > 0) || !(h_mm > 0))
        return base_err_set(err, BASE_EINVAL, "cal_rectify: bad argument");
    w = (int)ceil(w_mm * px_per_mm);
    h = (int)ceil(h_mm * px_per_mm);
    if (w <= 0 || h <= 0 || w > VIS_IMAGE_MAX_SIDE || h > VIS_IMAGE_MAX_SIDE)
        return base_err_set(err, BASE_ERANGE, "cal_rectify: a %d x %d view is too large", w, h);
    if ((rc = cal_mat_plane(fit, lens, height_mm, &plane, err)) != 0)
        return rc;
    {
        /* rectified pixel -> table mm -> image pixel */
        const double s = 1.0 / px_per_mm;
        vis_homography px_to_table = {{s, 0, 0.5 * s + x0_mm, 0, s, 0.5 * s + y0_mm, 0, 0, 1}};
        to_img = vis_homography_mul(plane, px_to_table);
    }
    if (!lens) {
        vis_homography inv;
        if ((rc = vis_homography_invert(to_img, &inv, err)) != 0)
            return rc;
        return vis_warp_perspective(img, inv, w, h, VIS_INTER_LINEAR, vis_grey(0), out, err);
    }
    {
        float *mx = malloc(sizeof *mx * (size_t)w * (size_t)h);
        float *my = malloc(sizeof *my * (size_t)w * (size_t)h);
        if (!mx || !my) {
            free(mx);
            free(my);
            return base_err_set(err, BASE_ENOMEM, "cal_rectify: out of memory");
        }
        for (int v = 0; v < h; v++)
            for (int u = 0; u < w; u++) {
                vis_point p = vis_homography_apply(to_img, (vis_point){u, v});
                cal__distort(lens, p.x, p.y, &mx[(size_t)v * w + u], &my[(size_t)v * w + u]);
            }
        rc = vis_remap(img, mx, my, w, h, VIS_INTER_LINEAR, vis_grey(0), out, err);
        free(mx);
        free(my);
        return rc;
    }
}

int cal_rectify(const vis_image *img, const cal_mat_fit *fit, cal_mat m, const vis_camera *lens,
                double height_mm, double px_per_mm, double margin_mm, vis_image **out,
                base_err *err)
{
    if (!(margin_mm >= 0))
        return base_err_set(err, BASE_EINVAL, "cal_rectify: bad argument");
    return cal_rectify_roi(img, fit, lens, height_mm, px_per_mm, -margin_mm, -margin_mm,
                           m.w + 2 * margin_mm, m.h + 2 * margin_mm, out, err);
}
