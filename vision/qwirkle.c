/* vision/qwirkle.c: the Qwirkle Cubes recogniser (see qwirkle.h).
 *
 * Per pixel of the rectified top-face view: table, cube body (dark),
 * symbol (saturated colour) or foreign (neither, and unlike the table).
 * The grid's rotation comes from the orientation of the cube outlines
 * (a circular mean of 4x the gradient angle), its pitch and phase from
 * where those outlines fall (a circular mean of their positions modulo
 * the pitch).  A cell whose inner square is cube is a cube; its symbol's
 * hue gives the colour, its radial signature the shape. */
#include "qwirkle.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define QW__PI 3.14159265358979323846
#define QW__NBINS 36
#define QW__MAXCELLS 64 /* cells a side of the cell table */

enum { QW__OUT = 0, QW__TABLE, QW__DARK, QW__SYMBOL };

typedef struct qw__feat {
    float fill, a4s, a8;
} qw__feat;

struct vis_qwirkle {
    double cube_mm;
    vis_qwirkle_profile prof;
    bool have_angle;
    double last_angle; /* radians, in (-pi/4, pi/4] */
    qw__feat proto[6];
    unsigned char *cls;
    unsigned char *hue, *sat, *val;
    float *sil;
    size_t cap;
};

vis_qwirkle_profile vis_qwirkle_default_profile(void)
{
    /* Hues of typical printed/dyed colours on the cubes. */
    vis_qwirkle_profile p = {{0, 12, 27, 65, 112, 140}, {220, 230, 220, 200, 210, 180}};
    return p;
}

/* ---- the canonical symbols, for the shape prototypes ---- */

static bool qw__in_star(double u, double v, int n, double ro, double ri)
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

/* u, v in face half-widths (-1..1). */
static bool qw__in_shape(int shape, double u, double v)
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
        return qw__in_star(u, v, 4, 0.72, 0.22);
    default:
        return qw__in_star(u, v, 8, 0.70, 0.38);
    }
}

/* Shape features of a set of symbol pixels given as offsets (mm) from the
 * face centre in grid-aligned axes; half = the face's half-width, mm. */
typedef struct qw__acc {
    double rmax[QW__NBINS];
    double sx, sy;
    int n;
} qw__acc;

static qw__feat qw__features(const float *du, const float *dv, int n, double half, double px_mm)
{
    double cx = 0, cy = 0, rmax[QW__NBINS] = {0}, c0 = 0, c4r = 0, c4i = 0, c8r = 0, c8i = 0;
    double rpk = 0, area;
    qw__feat f = {0, 0, 0};
    if (n < 4)
        return f;
    for (int i = 0; i < n; i++) {
        cx += du[i];
        cy += dv[i];
    }
    cx /= n;
    cy /= n;
    for (int i = 0; i < n; i++) {
        double x = du[i] - cx, y = dv[i] - cy;
        /* the pixel's far edge, not its centre */
        double r = sqrt(x * x + y * y) + 0.5 * px_mm;
        int b = (int)floor((atan2(y, x) + QW__PI) / (2 * QW__PI) * QW__NBINS);
        if (b < 0)
            b = 0;
        if (b >= QW__NBINS)
            b = QW__NBINS - 1;
        if (r > rmax[b])
            rmax[b] = r;
    }
    for (int b = 0; b < QW__NBINS; b++) {
        double th = (b + 0.5) / QW__NBINS * 2 * QW__PI - QW__PI;
        c0 += rmax[b];
        c4r += rmax[b] * cos(4 * th);
        c4i += rmax[b] * sin(4 * th);
        c8r += rmax[b] * cos(8 * th);
        c8i += rmax[b] * sin(8 * th);
        if (rmax[b] > rpk)
            rpk = rmax[b];
    }
    if (c0 <= 0 || rpk <= 0)
        return f;
    area = n * px_mm * px_mm;
    f.fill = (float)(area / (QW__PI * rpk * rpk));
    f.a4s = (float)(sqrt(c4r * c4r + c4i * c4i) / c0 * (c4r >= 0 ? 1 : -1));
    f.a8 = (float)(sqrt(c8r * c8r + c8i * c8i) / c0);
    (void)half;
    return f;
}

static void qw__prototypes(vis_qwirkle *q)
{
    const int res = 96;
    const double half = q->cube_mm / 2, px = q->cube_mm / res;
    float *du = malloc(sizeof *du * res * res), *dv = malloc(sizeof *dv * res * res);
    for (int s = 0; s < 6; s++) {
        int n = 0;
        for (int y = 0; y < res && du; y++)
            for (int x = 0; x < res; x++) {
                double u = ((x + 0.5) / res) * 2 - 1, v = ((y + 0.5) / res) * 2 - 1;
                if (qw__in_shape(s, u, v)) {
                    du[n] = (float)(u * half);
                    dv[n] = (float)(v * half);
                    n++;
                }
            }
        q->proto[s] = du ? qw__features(du, dv, n, half, px) : (qw__feat){0, 0, 0};
    }
    free(du);
    free(dv);
}

/* ---- life cycle ---- */

int vis_qwirkle_new(double cube_mm, const vis_qwirkle_profile *profile, vis_qwirkle **out,
                    base_err *err)
{
    vis_qwirkle *q;
    if (!(cube_mm >= 5 && cube_mm <= 100))
        return base_err_set(err, BASE_ERANGE, "cube size %g mm: expected 5 to 100", cube_mm);
    if (!(q = calloc(1, sizeof *q)))
        return base_err_set(err, BASE_ENOMEM, "out of memory");
    q->cube_mm = cube_mm;
    q->prof = profile ? *profile : vis_qwirkle_default_profile();
    qw__prototypes(q);
    *out = q;
    return 0;
}

void vis_qwirkle_free(vis_qwirkle *q)
{
    if (!q)
        return;
    free(q->cls);
    free(q->hue);
    free(q->sat);
    free(q->val);
    free(q->sil);
    free(q);
}

static int qw__reserve(vis_qwirkle *q, size_t n)
{
    if (n <= q->cap)
        return 0;
    free(q->cls);
    free(q->hue);
    free(q->sat);
    free(q->val);
    free(q->sil);
    q->cls = malloc(n);
    q->hue = malloc(n);
    q->sat = malloc(n);
    q->val = malloc(n);
    q->sil = malloc(sizeof *q->sil * n);
    q->cap = n;
    if (!q->cls || !q->hue || !q->sat || !q->val || !q->sil) {
        q->cap = 0;
        return BASE_ENOMEM;
    }
    return 0;
}

/* ---- per pixel ---- */

static void qw__hsv(float b, float g, float r, unsigned char *h, unsigned char *s,
                    unsigned char *v)
{
    float mx = fmaxf(r, fmaxf(g, b)), mn = fminf(r, fminf(g, b)), d = mx - mn, hh;
    if (mx > 255)
        mx = 255;
    *v = (unsigned char)mx;
    *s = mx > 0 ? (unsigned char)fminf(255.f, 255.f * d / mx) : 0;
    if (d <= 0) {
        *h = 0;
        return;
    }
    if (mx == r)
        hh = 60.f * (g - b) / d;
    else if (mx == g)
        hh = 60.f * (2.f + (b - r) / d);
    else
        hh = 60.f * (4.f + (r - g) / d);
    if (hh < 0)
        hh += 360.f;
    *h = (unsigned char)(hh / 2.f) % 180;
}

static bool qw__in_marker(const vis_view *vw, double x, double y)
{
    double m = 0.5 * vw->marker_mm + vw->marker_mm / 6 + 2; /* the white margin too */
    double cx = x < 0.5 * vw->mat_w ? 0 : vw->mat_w, cy = y < 0.5 * vw->mat_h ? 0 : vw->mat_h;
    return fabs(x - cx) < m && fabs(y - cy) < m;
}

static double qw__hue_dist(double a, double b)
{
    double d = fabs(a - b);
    return d > 90 ? 180 - d : d;
}

/* ---- the reading ---- */

typedef struct qw__cell {
    int all, sil;        /* pixels of the inner square, and of them cube */
    int ring, ring_dark; /* pixels of the face's rim, and of them dark body */
    int sym;             /* symbol pixels within the face */
    double hx, hy;       /* hue as a vector */
    double ux, vy;       /* symbol centroid sums (mm, grid axes) */
} qw__cell;

/* Box sums over a w x h byte mask through an integral image. */
static void qw__integral(const unsigned char *m, int w, int h, unsigned *ii)
{
    for (int y = 0; y <= h; y++)
        for (int x = 0; x <= w; x++) {
            size_t i = (size_t)y * (w + 1) + x;
            if (x == 0 || y == 0) {
                ii[i] = 0;
                continue;
            }
            ii[i] = m[(size_t)(y - 1) * w + (x - 1)] + ii[i - 1] + ii[i - (w + 1)] -
                    ii[i - (w + 1) - 1];
        }
}

static unsigned qw__box(const unsigned *ii, int w, int h, int x, int y, int r)
{
    int x0 = x - r < 0 ? 0 : x - r, y0 = y - r < 0 ? 0 : y - r;
    int x1 = x + r + 1 > w ? w : x + r + 1, y1 = y + r + 1 > h ? h : y + r + 1;
    size_t W = (size_t)w + 1;
    return ii[(size_t)y1 * W + x1] - ii[(size_t)y0 * W + x1] - ii[(size_t)y1 * W + x0] +
           ii[(size_t)y0 * W + x0];
}

int vis_qwirkle_read(vis_qwirkle *q, const vis_image *top, const vis_view *vw, vis_reading *out,
                     base_err *err)
{
    const int w = top ? top->width : 0, h = top ? top->height : 0;
    const double ppm = vw ? vw->px_per_mm : 0, px = ppm > 0 ? 1.0 / ppm : 0;
    const double cube = q->cube_mm;
    size_t n = (size_t)w * (size_t)h;
    int hist[256] = {0}, nplay = 0, vdark, rc = 0;
    double angle = 0, pitch = cube, phu = 0, phv = 0;
    unsigned *ii = NULL;
    float *ex = NULL, *ey = NULL, *egx = NULL, *egy = NULL;
    float *fu = NULL, *fv = NULL;
    qw__cell *cells = NULL;
    int nedge = 0;

    if (!top || !vw || !out || top->channels != 3 || !(ppm > 0))
        return base_err_set(err, BASE_EINVAL, "vis_qwirkle_read: bad argument");
    memset(out, 0, sizeof *out);
    out->pitch_mm = cube;
    if (qw__reserve(q, n) != 0)
        return base_err_set(err, BASE_ENOMEM, "out of memory");

    /* 1. Classify: out of the play area, table, dark body, symbol. */
    for (int y = 0; y < h; y++) {
        const unsigned char *row = top->data + (size_t)y * top->stride;
        double ty = (y + 0.5) * px - vw->margin_mm;
        for (int x = 0; x < w; x++) {
            size_t i = (size_t)y * w + x;
            double tx = (x + 0.5) * px - vw->margin_mm;
            bool in = tx > -cube && ty > -cube && tx < vw->mat_w + cube && ty < vw->mat_h + cube &&
                      !qw__in_marker(vw, tx, ty);
            qw__hsv(row[3 * x] * vw->gain[0], row[3 * x + 1] * vw->gain[1],
                    row[3 * x + 2] * vw->gain[2], &q->hue[i], &q->sat[i], &q->val[i]);
            q->cls[i] = in ? QW__TABLE : QW__OUT;
            if (in) {
                hist[q->val[i]]++;
                nplay++;
            }
        }
    }
    if (nplay == 0)
        return base_err_set(err, BASE_ERANGE, "the view shows none of the play area");
    {
        /* Black cubes are far darker than any usable table: half the
         * median brightness, within sane bounds; a symbol is brighter than
         * the body by far. */
        int acc = 0, med = 0;
        while (med < 255 && acc + hist[med] < nplay / 2)
            acc += hist[med++];
        vdark = med / 2;
        vdark = vdark < 30 ? 30 : vdark > 90 ? 90 : vdark;
    }
    for (size_t i = 0; i < n; i++)
        if (q->cls[i] != QW__OUT && q->val[i] < vdark)
            q->cls[i] = QW__DARK;

    /* 2. The cube silhouette: the dark body closed over its symbols (a
     * dilation then an erosion by a square a bit larger than a symbol). */
    if (!(ii = malloc(sizeof *ii * (size_t)(w + 1) * (size_t)(h + 1)))) {
        rc = base_err_set(err, BASE_ENOMEM, "out of memory");
        goto done;
    }
    {
        unsigned char *m = (unsigned char *)q->sil; /* n bytes of scratch */
        const int r = (int)(0.36 * cube * ppm + 0.5);
        for (size_t i = 0; i < n; i++)
            m[i] = q->cls[i] == QW__DARK;
        qw__integral(m, w, h, ii);
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
                m[(size_t)y * w + x] = qw__box(ii, w, h, x, y, r) == 0; /* not dilated */
        qw__integral(m, w, h, ii);
        /* Closed: no undilated pixel within r.  Kept in bit 4 of cls. */
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                size_t i = (size_t)y * w + x;
                if (q->cls[i] != QW__OUT && qw__box(ii, w, h, x, y, r) == 0)
                    q->cls[i] |= 0x10;
            }
    }

    /* 3. Outline pixels of the silhouette and their gradients. */
    {
        size_t cap = n / 4 + 16;
        ex = malloc(sizeof *ex * cap);
        ey = malloc(sizeof *ey * cap);
        egx = malloc(sizeof *egx * cap);
        egy = malloc(sizeof *egy * cap);
        if (!ex || !ey || !egx || !egy) {
            rc = base_err_set(err, BASE_ENOMEM, "out of memory");
            goto done;
        }
        for (int y = 1; y < h - 1; y++)
            for (int x = 1; x < w - 1; x++) {
                size_t i = (size_t)y * w + x;
                /* Sobel on the silhouette bit */
#define QW__S(j) ((q->cls[(j)] & 0x10) ? 1.f : 0.f)
                float gx = QW__S(i - w + 1) + 2 * QW__S(i + 1) + QW__S(i + w + 1) - QW__S(i - w - 1) -
                           2 * QW__S(i - 1) - QW__S(i + w - 1);
                float gy = QW__S(i + w - 1) + 2 * QW__S(i + w) + QW__S(i + w + 1) - QW__S(i - w - 1) -
                           2 * QW__S(i - w) - QW__S(i - w + 1);
#undef QW__S
                if (gx == 0 && gy == 0)
                    continue;
                if ((size_t)nedge >= cap)
                    break;
                ex[nedge] = (float)((x + 0.5) * px - vw->margin_mm);
                ey[nedge] = (float)((y + 0.5) * px - vw->margin_mm);
                egx[nedge] = gx;
                egy[nedge] = gy;
                nedge++;
            }
    }
    if (nedge < 8) {
        out->grid_angle_deg = q->have_angle ? q->last_angle * 180 / QW__PI : 0;
        goto hand; /* an empty board */
    }

    /* 4. Rotation: circular mean of 4x the outline gradient angle. */
    {
        double sr = 0, si = 0;
        for (int k = 0; k < nedge; k++) {
            double m2 = egx[k] * egx[k] + egy[k] * egy[k], th = atan2(egy[k], egx[k]);
            sr += m2 * cos(4 * th);
            si += m2 * sin(4 * th);
        }
        angle = atan2(si, sr) / 4; /* (-pi/4, pi/4] */
        if (q->have_angle) {
            /* Keep the axes of the last reading. */
            while (angle - q->last_angle > QW__PI / 4)
                angle -= QW__PI / 2;
            while (angle - q->last_angle < -QW__PI / 4)
                angle += QW__PI / 2;
        }
        q->have_angle = true;
        q->last_angle = angle;
    }

    /* 5. Pitch and phase: where the outlines fall, modulo the pitch. */
    {
        const double ca = cos(angle), sa = sin(angle);
        double best = -1;
        for (double p = 0.98 * cube; p <= 1.10 * cube + 1e-9; p += 0.01 * cube) {
            double ur = 0, ui = 0, vr = 0, vi = 0, k2 = 2 * QW__PI / p;
            for (int k = 0; k < nedge; k++) {
                double u = ex[k] * ca + ey[k] * sa, v = -ex[k] * sa + ey[k] * ca;
                double gu = egx[k] * ca + egy[k] * sa, gv = -egx[k] * sa + egy[k] * ca;
                double wu = gu * gu, wv = gv * gv;
                ur += wu * cos(k2 * u);
                ui += wu * sin(k2 * u);
                vr += wv * cos(k2 * v);
                vi += wv * sin(k2 * v);
            }
            double score = sqrt(ur * ur + ui * ui) + sqrt(vr * vr + vi * vi);
            if (score > best) {
                best = score;
                pitch = p;
                phu = atan2(ui, ur) / (2 * QW__PI) * p;
                phv = atan2(vi, vr) / (2 * QW__PI) * p;
            }
        }
    }
    out->grid_angle_deg = angle * 180 / QW__PI;
    out->pitch_mm = pitch;
    out->phase_x_mm = phu;
    out->phase_y_mm = phv;

    /* 6. Cells: what each cell holds. */
    {
        const double ca = cos(angle), sa = sin(angle);
        const double inner = 0.30 * cube, face = 0.44 * cube, rim0 = 0.37 * cube;
        double ext = (w > h ? w : h) * px * 1.5 + 2 * vw->margin_mm;
        int side = (int)(2 * ext / pitch) + 4, kmin;
        if (side > 4 * QW__MAXCELLS)
            side = 4 * QW__MAXCELLS;
        kmin = -side / 2;
        if (!(cells = calloc((size_t)side * side, sizeof *cells))) {
            rc = base_err_set(err, BASE_ENOMEM, "out of memory");
            goto done;
        }
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                size_t i = (size_t)y * w + x;
                int c = q->cls[i];
                if (c == QW__OUT)
                    continue;
                double tx = (x + 0.5) * px - vw->margin_mm, ty = (y + 0.5) * px - vw->margin_mm;
                double u = tx * ca + ty * sa - phu, v = -tx * sa + ty * ca - phv;
                int ku = (int)floor(u / pitch), kv = (int)floor(v / pitch);
                double du = u - (ku + 0.5) * pitch, dv = v - (kv + 0.5) * pitch;
                double adu = fabs(du), adv = fabs(dv), am = adu > adv ? adu : adv;
                int iu = ku - kmin, iv = kv - kmin;
                if (iu < 0 || iv < 0 || iu >= side || iv >= side)
                    continue;
                qw__cell *cl = &cells[(size_t)iv * side + iu];
                if (am < inner) {
                    cl->all++;
                    cl->sil += (c & 0x10) != 0;
                }
                if (am >= rim0 && am < face) {
                    cl->ring++;
                    cl->ring_dark += (c & 0x0f) == QW__DARK;
                }
                if (am < face && (c & 0x0f) != QW__DARK && q->sat[i] > 90 &&
                    q->val[i] > 2 * vdark) {
                    double hr = q->hue[i] * 2 * QW__PI / 180;
                    cl->sym++;
                    cl->hx += cos(hr);
                    cl->hy += sin(hr);
                    cl->ux += du;
                    cl->vy += dv;
                }
            }

        /* 7. Read each cube. */
        fu = malloc(sizeof *fu * (size_t)(4 * cube * cube * ppm * ppm + 16));
        fv = malloc(sizeof *fv * (size_t)(4 * cube * cube * ppm * ppm + 16));
        if (!fu || !fv) {
            rc = base_err_set(err, BASE_ENOMEM, "out of memory");
            goto done;
        }
        for (int iv = 0; iv < side; iv++)
            for (int iu = 0; iu < side; iu++) {
                qw__cell *cl = &cells[(size_t)iv * side + iu];
                double occ, rimd, hue, cu, cv, tx, ty, d1 = 1e9, d2 = 1e9, s1 = 1e9, s2 = 1e9;
                int col = -1, shp = -1, nf = 0, ku = iu + kmin, kv = iv + kmin;
                vis_piece *pc;
                if (cl->all < 8 || cl->ring < 8)
                    continue;
                occ = (double)cl->sil / cl->all;
                rimd = (double)cl->ring_dark / cl->ring;
                if (occ < 0.9 || rimd < 0.55 || cl->sym < 4)
                    continue;
                cu = (ku + 0.5) * pitch + phu;
                cv = (kv + 0.5) * pitch + phv;
                tx = cu * ca - cv * sa;
                ty = cu * sa + cv * ca;
                if (tx < 0 || ty < 0 || tx > vw->mat_w || ty > vw->mat_h ||
                    qw__in_marker(vw, tx, ty))
                    continue;
                if (out->npieces >= VIS_MAX_PIECES)
                    continue;
                hue = atan2(cl->hy, cl->hx) * 180 / (2 * QW__PI);
                if (hue < 0)
                    hue += 180;
                for (int k = 0; k < 6; k++) {
                    double d = qw__hue_dist(hue, q->prof.hue[k]);
                    if (d < d1) {
                        d2 = d1;
                        d1 = d;
                        col = k;
                    } else if (d < d2) {
                        d2 = d;
                    }
                }
                {
                    const double r = 0.5 * cube;
                    int x0 = (int)floor((tx - r * 1.5 + vw->margin_mm) * ppm),
                        x1 = (int)ceil((tx + r * 1.5 + vw->margin_mm) * ppm);
                    int y0 = (int)floor((ty - r * 1.5 + vw->margin_mm) * ppm),
                        y1 = (int)ceil((ty + r * 1.5 + vw->margin_mm) * ppm);
                    for (int y = y0 < 0 ? 0 : y0; y <= y1 && y < h; y++)
                        for (int x = x0 < 0 ? 0 : x0; x <= x1 && x < w; x++) {
                            size_t i = (size_t)y * w + x;
                            if ((q->cls[i] & 0x0f) == QW__DARK || q->cls[i] == QW__OUT ||
                                q->sat[i] <= 90 || q->val[i] <= 2 * vdark)
                                continue;
                            double ox = (x + 0.5) * px - vw->margin_mm - tx,
                                   oy = (y + 0.5) * px - vw->margin_mm - ty;
                            double du = ox * ca + oy * sa, dv = -ox * sa + oy * ca;
                            if (fabs(du) < face && fabs(dv) < face) {
                                fu[nf] = (float)du;
                                fv[nf] = (float)dv;
                                nf++;
                            }
                        }
                }
                {
                    qw__feat f = qw__features(fu, fv, nf, 0.5 * cube, px);
                    for (int k = 0; k < 6; k++) {
                        const qw__feat *p = &q->proto[k];
                        double d = fabs(f.fill - p->fill) / 0.10 + fabs(f.a4s - p->a4s) / 0.04 +
                                   fabs(f.a8 - p->a8) / 0.03;
                        if (d < s1) {
                            s2 = s1;
                            s1 = d;
                            shp = k;
                        } else if (d < s2) {
                            s2 = d;
                        }
                    }
                }
                pc = &out->pieces[out->npieces++];
                pc->gx = ku;
                pc->gy = kv;
                pc->color = col;
                pc->shape = shp;
                pc->x_mm = tx;
                pc->y_mm = ty;
                pc->color_conf = (float)((d2 - d1) / (d2 + d1 + 1e-9));
                pc->shape_conf = (float)((s2 - s1) / (s2 + s1 + 1e-9));
                {
                    double ox = cl->ux / cl->sym, oy = cl->vy / cl->sym;
                    double centred = 1 - fmin(1, sqrt(ox * ox + oy * oy) / (0.25 * cube));
                    double c = fmin(pc->color_conf, pc->shape_conf);
                    pc->conf = (float)(c * (0.5 + 0.5 * centred));
                }
            }
    }

hand:
    /* 8. A hand or arm: a large region unlike the table and not cube that
     * reaches the edge of the play area. */
    {
        double mb = 0, mg = 0, mr = 0;
        int nt = 0, *stack;
        unsigned char *m = (unsigned char *)q->sil;
        for (int y = 0; y < h; y += 2)
            for (int x = 0; x < w; x += 2) {
                size_t i = (size_t)y * w + x;
                if (q->cls[i] != QW__TABLE)
                    continue;
                const unsigned char *p = top->data + (size_t)y * top->stride + 3 * x;
                mb += p[0];
                mg += p[1];
                mr += p[2];
                nt++;
            }
        if (nt > 0) {
            mb /= nt;
            mg /= nt;
            mr /= nt;
        }
        if (!(stack = malloc(sizeof *stack * n))) {
            rc = base_err_set(err, BASE_ENOMEM, "out of memory");
            goto done;
        }
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                size_t i = (size_t)y * w + x;
                const unsigned char *p = top->data + (size_t)y * top->stride + 3 * x;
                double d = fabs(p[0] - mb) + fabs(p[1] - mg) + fabs(p[2] - mr);
                m[i] = q->cls[i] == QW__TABLE && d > 150;
            }
        {
            const double min_area = 3.0 * cube * cube * ppm * ppm;
            for (size_t s = 0; s < n && !out->hand; s++) {
                int sp = 0, area = 0;
                bool edge = false;
                if (m[s] != 1)
                    continue;
                m[s] = 2;
                stack[sp++] = (int)s;
                while (sp > 0) {
                    int i = stack[--sp], x = i % w, y = i / w;
                    double tx = (x + 0.5) * px - vw->margin_mm, ty = (y + 0.5) * px - vw->margin_mm;
                    area++;
                    if (tx < 2 || ty < 2 || tx > vw->mat_w - 2 || ty > vw->mat_h - 2)
                        edge = true;
                    if (x > 0 && m[i - 1] == 1) {
                        m[i - 1] = 2;
                        stack[sp++] = i - 1;
                    }
                    if (x < w - 1 && m[i + 1] == 1) {
                        m[i + 1] = 2;
                        stack[sp++] = i + 1;
                    }
                    if (y > 0 && m[i - w] == 1) {
                        m[i - w] = 2;
                        stack[sp++] = i - w;
                    }
                    if (y < h - 1 && m[i + w] == 1) {
                        m[i + w] = 2;
                        stack[sp++] = i + w;
                    }
                }
                if (edge && area > min_area)
                    out->hand = true;
            }
        }
        free(stack);
    }
done:
    free(ii);
    free(ex);
    free(ey);
    free(egx);
    free(egy);
    free(fu);
    free(fv);
    free(cells);
    return rc;
}

int vis_qwirkle_learn(vis_qwirkle *q, const vis_image *top, const vis_view *view,
                      vis_qwirkle_profile *out, base_err *err)
{
    vis_reading *r = malloc(sizeof *r);
    int rc;
    if (!r)
        return base_err_set(err, BASE_ENOMEM, "out of memory");
    rc = vis_qwirkle_read(q, top, view, r, err);
    (void)out;
    free(r);
    if (rc)
        return rc;
    return base_err_set(err, BASE_EUNSUPPORTED, "learning a colour profile is not built yet");
}
