/* vision/qwirkle_symbols.c: the six symbols drawn at the reader's scale
 * and blurred as a camera blurs them, and the correlation of a face's luma
 * with them.  The reader no longer reads shapes with them (the learned
 * stage does, vision/qwirkle.c); they measure how soft the camera is (the
 * referee's camera advice) and tell a symbol of the table's own colour
 * from the table (vis__qw_table_symbols). */
#include "qwirkleInt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const double vis__qw_sigmas[QW__NSIG] = {0.5, 0.7, 0.9, 1.15, 1.4, 1.7, 2.0, 2.4, 2.8};

/* ---- the canonical symbols ---- */

bool vis__qw_in_star(double u, double v, int n, double ro, double ri)
{
    double rho = sqrt(u * u + v * v), sector = 2 * QW__PI / n, th, phi;
    if (rho > ro)
        return false;
    if (rho < ri)
        return true;
    th = atan2(v, u);
    phi = fabs(th - sector * floor(th / sector + 0.5));
    {
        double px = rho * cos(phi), py = rho * sin(phi);
        double vx = ri * cos(sector / 2), vy = ri * sin(sector / 2);
        /* inside when on the centre's side of the edge from the spike tip
         * (ro, 0) to the valley (vx, vy) */
        double cp = (vx - ro) * py - vy * (px - ro);
        double co = (vx - ro) * 0 - vy * (0 - ro);
        return (cp >= 0) == (co >= 0);
    }
}

/* u, v in symbol units: the face half-width over 1.05. */
bool vis__qw_in_shape(int shape, double u, double v)
{
    double au = fabs(u), av = fabs(v);
    switch (shape) {
    case 0:
        return u * u + v * v < 0.56 * 0.56;
    case 1:
        return au < 0.48 && av < 0.48;
    case 2:
        return au + av < 0.68;
    case 3: {
        const double c = 0.3, r = 0.26;
        return (au - c) * (au - c) + v * v < r * r || u * u + (av - c) * (av - c) < r * r ||
               u * u + v * v < 0.22 * 0.22;
    }
    case 4:
        return vis__qw_in_star(u, v, 4, 0.72, 0.22);
    default:
        return vis__qw_in_star(u, v, 8, 0.70, 0.38);
    }
}

void vis__qw_blur1d(float *buf, int side, double sigma_px, float *tmp)
{
    int r = (int)ceil(3 * sigma_px);
    float k[97];
    double ks = 0;
    if (r < 1 || sigma_px <= 0.05)
        return;
    if (r > 48)
        r = 48;
    for (int i = -r; i <= r; i++)
        ks += k[i + r] = (float)exp(-0.5 * i * i / (sigma_px * sigma_px));
    for (int i = 0; i <= 2 * r; i++)
        k[i] = (float)(k[i] / ks);
    /* the edges clamp; inside, the same sums without the clamping (the
     * templates are made per reader, and this was a tenth of a frame's
     * time on the bench, which starts a reader every 10 frames) */
    for (int y = 0; y < side; y++) /* rows */
        for (int x = 0; x < side; x++) {
            float s = 0;
            if (x >= r && x < side - r) {
                const float *b = buf + y * side + x - r;
                for (int i = 0; i <= 2 * r; i++)
                    s += k[i] * b[i];
            } else {
                for (int i = -r; i <= r; i++) {
                    int xx = x + i < 0 ? 0 : x + i >= side ? side - 1 : x + i;
                    s += k[i + r] * buf[y * side + xx];
                }
            }
            tmp[y * side + x] = s;
        }
    for (int y = 0; y < side; y++) /* columns */
        for (int x = 0; x < side; x++) {
            float s = 0;
            if (y >= r && y < side - r) {
                const float *b = tmp + (y - r) * side + x;
                for (int i = 0; i <= 2 * r; i++)
                    s += k[i] * b[i * side];
            } else {
                for (int i = -r; i <= r; i++) {
                    int yy = y + i < 0 ? 0 : y + i >= side ? side - 1 : y + i;
                    s += k[i + r] * tmp[yy * side + x];
                }
            }
            buf[y * side + x] = s;
        }
}

/* The six symbols' coverage at QW__TRES px/mm, blurred by each of
 * vis__qw_sigmas, stored interleaved (the six shapes of one pixel side by
 * side, so that one pass over a patch scores all six): made once per
 * handle.  Each blur is made from the previous one by the difference
 * (gaussians add in quadrature), so every kernel stays short. */
int vis__qw_templates(vis_qwirkle *q)
{
    const int side = QW__TSIDE, ss = QW__TSIDE * QW__TSIDE;
    const double unit = 0.4875 * q->cube_mm / 1.05; /* mm per symbol unit */
    float *cur, *tmp;
    if (q->tmpl)
        return 0;
    if (!(q->tmpl = malloc(sizeof *q->tmpl * QW__NSIG * 6 * ss)))
        return BASE_ENOMEM;
    cur = malloc(sizeof *cur * 2 * ss);
    if (!cur) {
        free(q->tmpl);
        q->tmpl = NULL;
        return BASE_ENOMEM;
    }
    tmp = cur + ss;
    for (int s = 0; s < 6; s++) {
        double prev = 0;
        for (int y = 0; y < side; y++)
            for (int x = 0; x < side; x++) {
                int in = 0;
                for (int j = 0; j < 4; j++)
                    for (int i = 0; i < 4; i++) {
                        double u = ((x + 0.125 + 0.25 * i) / QW__TRES - QW__THALF) / unit;
                        double v = ((y + 0.125 + 0.25 * j) / QW__TRES - QW__THALF) / unit;
                        in += vis__qw_in_shape(s, u, v);
                    }
                cur[y * side + x] = in / 16.f;
            }
        for (int k = 0; k < QW__NSIG; k++) {
            float *t = q->tmpl + (size_t)k * 6 * ss;
            vis__qw_blur1d(cur, side, sqrt(vis__qw_sigmas[k] * vis__qw_sigmas[k] - prev * prev) * QW__TRES,
                       tmp);
            prev = vis__qw_sigmas[k];
            for (int i = 0; i < ss; i++)
                t[6 * i + s] = cur[i];
        }
    }
    free(cur);
    return 0;
}

/* A tilted camera blurs the table anisotropically: its blur is round in
 * the image, and the image squashes the table along the camera's viewing
 * direction by cos(theta) (theta: the ray's angle from the vertical), so
 * in table millimetres the blur is 1 / cos(theta) longer along that
 * direction than across it.  Makes q->cur the templates blurred so: each
 * of q->tmpl (round blur sigma, across) blurred again along the direction
 * dir (radians, in the templates' axes) by sigma sqrt(ratio^2 - 1).  The
 * set is kept for the next reading of the same camera (ratio in steps of
 * 0.05, the direction, a line, in steps of 7.5 degrees). */
int vis__qw_aniso(vis_qwirkle *q, double ratio, double dir)
{
    const int side = QW__TSIDE, ss = QW__TSIDE * QW__TSIDE;
    const double step = 7.5 * QW__PI / 180;
    int ri = (int)floor((ratio - 1) / 0.05 + 0.5), di;
    double d = dir - QW__PI * floor(dir / QW__PI);
    di = (int)floor(d / step + 0.5) % 24;
    if (ri <= 0) {
        q->cur = q->tmpl;
        q->aratio = 1;
        q->adir = 0;
        return 0;
    }
    ri = ri > 12 ? 12 : ri;
    q->aratio = 1 + 0.05 * ri;
    q->adir = di * step;
    if (q->atmpl && q->akey == ri * 32 + di) {
        q->cur = q->atmpl;
        return 0;
    }
    if (!q->atmpl && !(q->atmpl = malloc(sizeof *q->atmpl * QW__NSIG * 6 * ss)))
        return BASE_ENOMEM;
    {
        const double cd = cos(q->adir), sd = sin(q->adir);
        for (int k = 0; k < QW__NSIG; k++) {
            const float *src = q->tmpl + (size_t)k * 6 * ss;
            float *dst = q->atmpl + (size_t)k * 6 * ss, g[193];
            /* taps half the round blur apart: finer adds nothing to a
             * template already that smooth */
            double se = vis__qw_sigmas[k] * sqrt(q->aratio * q->aratio - 1) * QW__TRES, gs = 0;
            double hs = fmax(1.0, 0.5 * vis__qw_sigmas[k] * QW__TRES);
            int r = (int)ceil(3 * se / hs);
            r = r < 1 ? 1 : r > 96 ? 96 : r;
            for (int i = -r; i <= r; i++)
                gs += g[i + r] = (float)exp(-0.5 * (i * hs) * (i * hs) / (se * se));
            for (int i = 0; i <= 2 * r; i++)
                g[i] = (float)(g[i] / gs);
            for (int y = 0; y < side; y++)
                for (int x = 0; x < side; x++) {
                    float acc[6] = {0};
                    for (int i = -r; i <= r; i++) {
                        double u = x + i * hs * cd, v = y + i * hs * sd;
                        int iu, iv;
                        float fu, fv;
                        const float *p0, *p1;
                        if (u < 0 || v < 0)
                            continue; /* the templates are 0 out there */
                        iu = (int)u; /* floor: not negative (a libm call saved) */
                        iv = (int)v;
                        if (iu >= side - 1 || iv >= side - 1)
                            continue;
                        fu = (float)(u - iu);
                        fv = (float)(v - iv);
                        p0 = src + 6 * ((size_t)iv * side + iu);
                        p1 = p0 + 6 * side;
                        for (int s2 = 0; s2 < 6; s2++)
                            acc[s2] += g[i + r] *
                                       ((1 - fu) * (1 - fv) * p0[s2] + fu * (1 - fv) * p0[6 + s2] +
                                        (1 - fu) * fv * p1[s2] + fu * fv * p1[6 + s2]);
                    }
                    for (int s2 = 0; s2 < 6; s2++)
                        dst[6 * ((size_t)y * side + x) + s2] = acc[s2];
                }
        }
    }
    q->akey = ri * 32 + di;
    q->cur = q->atmpl;
    return 0;
}

/* ---- shape ---- */

void vis__qw_patch_of(const vis_qwirkle *q, const vis_view *vw, int w, int h,
                         const vis__qw_blob *b, double radius, vis__qw_patch *p)
{
    const double px = 1.0 / vw->px_per_mm, rad = radius * q->cube_mm;
    double x0, y0;
    int xa, xb, ya, yb;
    vis__qw_origin(vw, &x0, &y0);
    xa = (int)floor((b->x - rad - x0) / px);
    xb = (int)ceil((b->x + rad - x0) / px);
    ya = (int)floor((b->y - rad - y0) / px);
    yb = (int)ceil((b->y + rad - y0) / px);
    p->n = 0;
    p->s = p->ss = 0;
    for (int y = ya < 0 ? 0 : ya; y <= yb && y < h; y++)
        for (int x = xa < 0 ? 0 : xa; x <= xb && x < w && p->n < QW__PATCHMAX; x++) {
            double ox = (x + 0.5) * px + x0 - b->x, oy = (y + 0.5) * px + y0 - b->y;
            if (ox * ox + oy * oy > rad * rad)
                continue;
            p->u[p->n] = (float)ox;
            p->v[p->n] = (float)oy;
            {
                /* Luma, not the symbol's own channel: a camera (Bayer
                 * demosaicing, JPEG's halved chroma) resolves brightness
                 * finer than colour, and the shape is in the fine detail. */
                const float *c = q->rgb + 3 * ((size_t)y * w + x);
                p->val[p->n] = 0.114f * c[0] + 0.587f * c[1] + 0.299f * c[2];
            }
            p->s += p->val[p->n];
            p->ss += (double)p->val[p->n] * p->val[p->n];
            p->n++;
        }
}

/* Normalised correlation of the patch with the six templates t (one
 * blur, interleaved) turned by angle a and moved by (du, dv) mm; shapes
 * whose bit is clear in mask are skipped (-2).  One pass serves all six:
 * the sampling position and weights are the costly part. */
void vis__qw_ncc6(const vis__qw_patch *p, const float *t, double a, double du, double dv,
                     unsigned mask, double out[6])
{
    const int side = QW__TSIDE;
    const double ca = cos(a), sa = sin(a), c = QW__THALF * QW__TRES - 0.5;
    double st[6] = {0}, stt[6] = {0}, spt[6] = {0}, vp;
    for (int i = 0; i < p->n; i++) {
        double ox = p->u[i] - du, oy = p->v[i] - dv;
        double u = (ox * ca + oy * sa) * QW__TRES + c, v = (-ox * sa + oy * ca) * QW__TRES + c;
        int iu = (int)u, iv = (int)v;
        if (u < 0 || v < 0 || iu >= side - 1 || iv >= side - 1)
            continue; /* the templates are 0 out there */
        {
            const float fu = (float)(u - iu), fv = (float)(v - iv), pv = p->val[i];
            const float w00 = (1 - fu) * (1 - fv), w01 = fu * (1 - fv), w10 = (1 - fu) * fv,
                        w11 = fu * fv;
            const float *r0 = t + 6 * ((size_t)iv * side + iu), *r1 = r0 + 6 * side;
            for (int s = 0; s < 6; s++) {
                float tv = w00 * r0[s] + w01 * r0[6 + s] + w10 * r1[s] + w11 * r1[6 + s];
                st[s] += tv;
                stt[s] += tv * tv;
                spt[s] += pv * tv;
            }
        }
    }
    vp = p->ss - p->s * p->s / p->n;
    for (int s = 0; s < 6; s++) {
        double vt = stt[s] - st[s] * st[s] / p->n;
        out[s] = !(mask >> s & 1) || vp <= 1e-6 || vt <= 1e-9
                     ? -2
                     : (spt[s] - p->s * st[s] / p->n) / sqrt(vp * vt);
    }
}

/* Best correlation of each shape at blur k: over small rotations, then
 * small shifts at each shape's best rotation, for the shapes in the mask
 * `shifts` (bit s: shape s; the others keep their best rotation's). */
void vis__qw_match(const vis_qwirkle *q, const vis__qw_patch *p, int k, double angle,
                      unsigned shifts, double best[6])
{
    const float *t = q->cur + (size_t)k * 6 * QW__TSIDE * QW__TSIDE;
    double ba[6], c[6];
    for (int s = 0; s < 6; s++) {
        best[s] = -2;
        ba[s] = angle;
    }
    for (int r = 0; r < QW__NROT; r++) {
        double a = angle + (r - QW__NROT / 2) * 3.0 * QW__PI / 180;
        vis__qw_ncc6(p, t, a, 0, 0, 0x3f, c);
        for (int s = 0; s < 6; s++)
            if (c[s] > best[s]) {
                best[s] = c[s];
                ba[s] = a;
            }
    }
    for (int s0 = 0; s0 < 6; s0++) {
        unsigned mask = 0;
        bool first = true;
        if (!(shifts >> s0 & 1))
            continue;
        for (int s = 0; s < s0; s++)
            first &= !(shifts >> s & 1) || ba[s] != ba[s0];
        if (!first)
            continue; /* done with an earlier shape's rotation */
        for (int s = s0; s < 6; s++)
            if ((shifts >> s & 1) && ba[s] == ba[s0])
                mask |= 1u << s;
        for (int j = -1; j <= 1; j++)
            for (int i = -1; i <= 1; i++) {
                if (!i && !j)
                    continue;
                vis__qw_ncc6(p, t, ba[s0], 0.4 * i, 0.4 * j, mask, c);
                for (int s = 0; s < 6; s++)
                    if (c[s] > best[s])
                        best[s] = c[s];
            }
    }
}

