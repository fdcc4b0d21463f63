/* sim/camera.c: the simulated camera.  A pinhole with OpenCV's 5-term lens
 * model, posed above the table so that the whole mat is in view.  The
 * focal length follows from the pose (the mat fills a share of what fits),
 * as a person would zoom or move the camera until the mat is in the
 * picture.  Two set-ups (sim_options.setup): a good one as the README asks
 * (camera square to the mat from one side, little tilt, the mat filling
 * most of the frame) and any pose (any yaw, steep tilt, the mat smaller). */
#include "sim_internal.h"

#include <math.h>
#include <stdlib.h>

sim__v3 sim__marker_corner(const sim__mat *m, int id, int k)
{
    static const double mx[4] = {0, 1, 1, 0}, my[4] = {0, 0, 1, 1};
    static const double kx[4] = {-1, 1, 1, -1}, ky[4] = {-1, -1, 1, 1};
    sim__v3 p;
    p.x = mx[id & 3] * m->w + kx[k & 3] * m->s / 2;
    p.y = my[id & 3] * m->h + ky[k & 3] * m->s / 2;
    p.z = 0;
    return p;
}

sim__v3 sim__to_camera(const sim__camera *cam, sim__v3 p)
{
    const double *R = cam->R;
    double x = p.x - cam->C.x, y = p.y - cam->C.y, z = p.z - cam->C.z;
    sim__v3 c = {R[0] * x + R[1] * y + R[2] * z, R[3] * x + R[4] * y + R[5] * z,
                 R[6] * x + R[7] * y + R[8] * z};
    return c;
}

void sim__distort(const double d[5], double x, double y, double *xd, double *yd)
{
    double r2 = x * x + y * y;
    double radial = 1 + r2 * (d[0] + r2 * (d[1] + r2 * d[4]));
    *xd = x * radial + 2 * d[2] * x * y + d[3] * (r2 + 2 * x * x);
    *yd = y * radial + d[2] * (r2 + 2 * y * y) + 2 * d[3] * x * y;
}

bool sim__project(const sim__camera *cam, sim__v3 p, double *u, double *v)
{
    sim__v3 c = sim__to_camera(cam, p);
    double xd, yd;
    if (c.z <= 1e-6)
        return false;
    sim__distort(cam->dist, c.x / c.z, c.y / c.z, &xd, &yd);
    *u = cam->fx * xd + cam->cx;
    *v = cam->fy * yd + cam->cy;
    return true;
}

/* Ideal normalised point whose distorted image is (xd, yd): fixed-point
 * iteration, which converges for the monotonic lenses sampled below. */
static void sim__undistort(const double d[5], double xd, double yd, double *x, double *y)
{
    double ux = xd, uy = yd;
    for (int i = 0; i < 40; i++) {
        double r2 = ux * ux + uy * uy;
        double radial = 1 + r2 * (d[0] + r2 * (d[1] + r2 * d[4]));
        double dx = 2 * d[2] * ux * uy + d[3] * (r2 + 2 * ux * ux);
        double dy = d[2] * (r2 + 2 * uy * uy) + 2 * d[3] * ux * uy;
        double nx = (xd - dx) / radial, ny = (yd - dy) / radial;
        double ch = fabs(nx - ux) + fabs(ny - uy);
        ux = nx;
        uy = ny;
        if (ch < 1e-12)
            break;
    }
    *x = ux;
    *y = uy;
}

int sim__ray_map(const sim__camera *cam, float **out)
{
    size_t n = (size_t)cam->width * (size_t)cam->height;
    float *m = malloc(n * 2 * sizeof *m);
    if (!m)
        return BASE_ENOMEM;
    for (int v = 0; v < cam->height; v++)
        for (int u = 0; u < cam->width; u++) {
            double x, y;
            sim__undistort(cam->dist, (u - cam->cx) / cam->fx, (v - cam->cy) / cam->fy, &x, &y);
            size_t i = ((size_t)v * (size_t)cam->width + (size_t)u) * 2;
            m[i] = (float)x;
            m[i + 1] = (float)y;
        }
    *out = m;
    return 0;
}

/* Rotation for a camera tilted by t from straight down toward -y, then
 * turned by yaw about z.  Rows are the camera's x (right), y (down) and z
 * (forward) axes in table coordinates. */
static void sim__pose(sim__camera *cam, double tilt, double yaw)
{
    double ct = cos(tilt), st = sin(tilt), cy = cos(yaw), sy = sin(yaw);
    sim__v3 ax = {1, 0, 0}, ay = {0, ct, -st}, az = {0, -st, -ct};
    sim__v3 rows[3] = {ax, ay, az};
    for (int i = 0; i < 3; i++) {
        sim__v3 a = rows[i];
        cam->R[i * 3 + 0] = cy * a.x - sy * a.y;
        cam->R[i * 3 + 1] = sy * a.x + cy * a.y;
        cam->R[i * 3 + 2] = a.z;
    }
}

static bool sim__lens_ok(const double d[5], double rmax)
{
    /* Radius mapping r -> r (1 + k1 r^2 + k2 r^4 + k3 r^6) must stay
     * increasing and reach rmax, or the image would fold over. */
    double prev = 0;
    for (int i = 1; i <= 200; i++) {
        double r = 2.0 * rmax * i / 200, r2 = r * r;
        double rd = r * (1 + r2 * (d[0] + r2 * (d[1] + r2 * d[4])));
        if (rd <= prev + 1e-9)
            return false;
        prev = rd;
    }
    return prev >= rmax * 1.05;
}

/* The ranges of each set-up, one row each. */
typedef struct sim__setup_range {
    double h_lo, h_hi;       /* camera height, mm: a stand or a shelf */
    double tilt_hi;          /* degrees from straight down */
    double yaw_off;          /* degrees off the nearest mat side; 180: any yaw */
    double fill_lo, fill_hi; /* share of the widest view that keeps the mat */
} sim__setup_range;

static const sim__setup_range sim__setups[] = {
    /* good: a person squares the mat to the picture and fills it */
    {400, 1000, 20, 12, 0.88, 0.97},
    /* any: a camera put down anyhow, the mat turned and smaller */
    {400, 1000, 40, 180, 0.70, 0.95},
};

int sim__camera_sample(sim__camera *cam, sim__rng *r, int width, int height,
                       const sim__mat *mat, bool clean, int setup, base_err *err)
{
    const sim__setup_range *sr = &sim__setups[setup == SIM_SETUP_GOOD ? 0 : 1];
    double ext = mat->s / 2 + mat->margin + 8; /* keep margins and a little table */
    sim__v3 fit[8];
    int nfit = 0;
    double xs[2] = {-ext, mat->w + ext}, ys[2] = {-ext, mat->h + ext};
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
            sim__v3 p = {xs[i], ys[j], 0};
            fit[nfit++] = p;
            /* Points halfway along the edges: distortion bends edges. */
            sim__v3 q = {xs[i], mat->h / 2, 0}, s = {mat->w / 2, ys[j], 0};
            if (j == 0)
                fit[nfit++] = q;
            if (i == 0)
                fit[nfit++] = s;
        }

    for (int attempt = 0; attempt < 500; attempt++) {
        double h = sim__rng_range(r, sr->h_lo, sr->h_hi);
        double tilt = sim__rng_range(r, 0, sr->tilt_hi) * SIM__PI / 180;
        double yaw = sr->yaw_off >= 180
                         ? sim__rng_range(r, 0, 2 * SIM__PI)
                         : (90 * sim__rng_int(r, 4) + sim__rng_range(r, -sr->yaw_off, sr->yaw_off)) *
                               SIM__PI / 180;
        sim__v3 target = {mat->w / 2 + sim__rng_range(r, -40, 40),
                          mat->h / 2 + sim__rng_range(r, -40, 40), 0};
        double fxmax = 1e12, margin = 0.04 * width;
        bool ok = true;

        cam->width = width;
        cam->height = height;
        cam->cx = width / 2.0 + sim__rng_range(r, -0.02, 0.02) * width;
        cam->cy = height / 2.0 + sim__rng_range(r, -0.02, 0.02) * height;
        sim__pose(cam, tilt, yaw);
        {
            /* Centre on the optical axis, h above the table. */
            sim__v3 f = {cam->R[6], cam->R[7], cam->R[8]};
            double s = h / -f.z;
            cam->C.x = target.x - s * f.x;
            cam->C.y = target.y - s * f.y;
            cam->C.z = h;
        }
        cam->elev = h;
        cam->tilt_deg = tilt * 180 / SIM__PI;
        cam->yaw_deg = yaw * 180 / SIM__PI;
        cam->width = width;
        for (int i = 0; i < nfit && ok; i++) {
            sim__v3 c = sim__to_camera(cam, fit[i]);
            double xn, yn, lim;
            if (c.z <= 1) {
                ok = false;
                break;
            }
            xn = c.x / c.z;
            yn = c.y / c.z;
            /* cx + fx xn inside [margin, width - 1 - margin], same for y
             * with fy ~ fx. */
            if (xn > 1e-9 && (lim = (width - 1 - margin - cam->cx) / xn) < fxmax)
                fxmax = lim;
            if (xn < -1e-9 && (lim = (cam->cx - margin) / -xn) < fxmax)
                fxmax = lim;
            if (yn > 1e-9 && (lim = (height - 1 - margin - cam->cy) / yn) < fxmax)
                fxmax = lim;
            if (yn < -1e-9 && (lim = (cam->cy - margin) / -yn) < fxmax)
                fxmax = lim;
        }
        if (!ok || fxmax <= 0)
            continue;
        cam->fx = fxmax * (clean && setup != SIM_SETUP_GOOD ? sim__rng_range(r, 0.85, 0.95)
                                                            : sim__rng_range(r, sr->fill_lo, sr->fill_hi));
        cam->fy = cam->fx * (1 + sim__rng_range(r, -0.003, 0.003));
        if (2 * atan(width / 2.0 / cam->fx) > 110 * SIM__PI / 180)
            continue;
        {
            double scale = clean ? 0.3 : 1.0;
            double rmax = hypot(width / 2.0 / cam->fx, height / 2.0 / cam->fy) * 1.1;
            /* Distortion grows with the field: a wide lens bends more. */
            double k = 1.0 / (rmax * rmax);
            cam->dist[0] = scale * sim__rng_range(r, -0.12, 0.05) * k;
            cam->dist[1] = scale * sim__rng_range(r, -0.02, 0.03) * k * k;
            cam->dist[2] = scale * sim__rng_range(r, -0.0015, 0.0015);
            cam->dist[3] = scale * sim__rng_range(r, -0.0015, 0.0015);
            cam->dist[4] = scale * sim__rng_range(r, -0.01, 0.01) * k * k * k;
            if (!sim__lens_ok(cam->dist, rmax))
                continue;
        }
        for (int i = 0; i < nfit && ok; i++) {
            double u, v;
            if (!sim__project(cam, fit[i], &u, &v) || u < 2 || v < 2 || u > width - 3 ||
                v > height - 3)
                ok = false;
        }
        if (ok)
            return 0;
    }
    return base_err_set(err, BASE_ERANGE,
                        "sim: no camera pose keeps the %gx%g mm mat in a %dx%d frame",
                        mat->w, mat->h, width, height);
}
