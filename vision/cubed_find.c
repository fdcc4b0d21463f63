/* vision/cubed_find.c: the lattice of CUBED's tiles (vision/cubed.h). */
#include "cubed.h"
#include "view.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CB_PI 3.14159265358979323846
#define CB_SQ3 1.7320508075688772

/* The tuning values, each with its reason. */
static const struct {
    double edge_min;      /* levels a pixel: an edge weaker than this is sensor noise or a
                             mat's grain, not a tile's side or a rhombus's */
    double marker_margin; /* a marker's white margin and some, in marker sides: its square
                             edges would vote for a turn of their own */
    int min_edges;        /* fewer edge pixels than this: nothing on the mat to fit */
    double family_deg;    /* an edge belongs to the lines across a direction when its
                             gradient lies within this of it: half the 30 degrees to the
                             next family's bisector */
    double chroma_dist;   /* levels (the largest channel's, each less the pixel's mean) from
                             the mat's chroma beyond which a pixel is a tile's: light
                             glaring off the mat adds to every channel alike and a shadow
                             halves a mat's chroma, the six inks leave it */
    double dark_dist;     /* ... or darker than the mat by this many levels of its mean: a
                             black face (a white one on a pale mat is the mat's, but a tile
                             has at most one) */
    double sample_share;  /* a cell is sampled within this share of its inner radius: a
                             jittered tile (1.5 mm, 4 degrees) still fills it there */
    double tile_cover;    /* a cell whose samples are this much unlike the mat may hold a
                             tile: a white face and a pale one may both be the mat's; the
                             learned stage decides (a cell of glare or of a shadow's edge
                             is a candidate too) */
    double min_margin;    /* the chosen centres must fit at least this much better than
                             the next choice, or the layout is not told (a lone tile) */
    double min_turn_share;/* the edges' direction must be this much the lattice's: a
                             bare mat's noise points anywhere */
    double edge_share;    /* a cell holding a tile has at least this share of edge pixels
                             within its outline (its sides' gaps alone give about 10 %):
                             light glaring off the mat is unlike it, yet smooth */
    double edge_reach;    /* ... counted within this share of the cell's inner radius: the
                             sides, jittered, included */
    double mask_mm;       /* the layout's region is found on a grid of squares this wide:
                             a tenth of a tile, finer than its outline's jitter */
    double mask_share;    /* a square is the layout's when this share of its pixels is unlike
                             the mat: a quarter of a face on it */
    double line_near_mm;  /* an edge belongs to a lattice line within this distance in the
                             least-squares fit: the gap's width and the view's blur */
    int fit_rounds;       /* rounds of the least-squares fit (it starts within a degree and
                             a millimetre or two) */
} cb__par = {
    .edge_min = 14,
    .marker_margin = 0.45,
    .min_edges = 200,
    .family_deg = 15,
    .chroma_dist = 30,
    .dark_dist = 70,
    .sample_share = 0.75,
    .tile_cover = 0.3,
    .min_margin = 1.3,
    .min_turn_share = 0.05,
    .edge_share = 0.04,
    .edge_reach = 0.97,
    .mask_mm = 4,
    .mask_share = 0.25,
    .line_near_mm = 1.5,
    .fit_rounds = 3,
};

/* The markers' squares (with marker_margin) in a view's pixels: pixel (u,
 * v) lies on marker k when u0 < u < u1 and v0 < v < v1 (its centre inside
 * the square in mm, vis_view_on_marker's test). */
typedef struct cb__marks {
    double box[4][4];
} cb__marks;

static void cb__marks_of(const vis_view *vw, cb__marks *m)
{
    double r = vw->marker_mm * (0.5 + cb__par.marker_margin), x0, y0, u, v;
    vis_view_pixel_mm(vw, 0, 0, &x0, &y0); /* pixel 0's centre */
    for (int k = 0; k < 4; k++) {
        double cx = (k & 1) ? vw->mat_w : 0, cy = (k & 2) ? vw->mat_h : 0;
        u = (cx - x0) * vw->px_per_mm;
        v = (cy - y0) * vw->px_per_mm;
        m->box[k][0] = u - r * vw->px_per_mm;
        m->box[k][1] = u + r * vw->px_per_mm;
        m->box[k][2] = v - r * vw->px_per_mm;
        m->box[k][3] = v + r * vw->px_per_mm;
    }
}

static bool cb__on_marks(const cb__marks *m, int u, int v)
{
    for (int k = 0; k < 4; k++)
        if (u > m->box[k][0] && u < m->box[k][1] && v > m->box[k][2] && v < m->box[k][3])
            return true;
    return false;
}

typedef struct cb__edge {
    float x, y;   /* table mm */
    float gx, gy; /* the gradient */
} cb__edge;

/* The edge pixels of the view inside the layout's region (mask: gw
 * squares a row, cp pixels a side, cb__mask) into *out, flagged in map. */
static int cb__edges(const vis_image *view, const vis_view *vw, const unsigned char *mask, int gw,
                     int cp, cb__edge **out, int *n, unsigned char *map)
{
    const int w = view->width, h = view->height, ch = view->channels;
    cb__edge *e = malloc(sizeof *e * (size_t)(w > 2 && h > 2 ? (w - 2) * (h - 2) : 1));
    int k = 0;
    cb__marks mk;
    if (!e)
        return BASE_ENOMEM;
    cb__marks_of(vw, &mk);
    for (int v = 1; v < h - 1; v++) {
        const unsigned char *row = view->data + (size_t)v * (size_t)view->stride;
        const unsigned char *up = row - view->stride, *dn = row + view->stride;
        const unsigned char *mrow = mask + (size_t)(v / cp) * (size_t)gw;
        for (int u = 1; u < w - 1; u++) {
            float bx = 0, by = 0, bm = 0;
            double x, y;
            if (!mrow[u / cp])
                continue;
            for (int c = 0; c < ch; c++) {
                float gx = (float)row[(u + 1) * ch + c] - (float)row[(u - 1) * ch + c];
                float gy = (float)dn[u * ch + c] - (float)up[u * ch + c];
                float m = gx * gx + gy * gy;
                if (m > bm) {
                    bm = m;
                    bx = gx;
                    by = gy;
                }
            }
            if (bm < cb__par.edge_min * cb__par.edge_min || cb__on_marks(&mk, u, v))
                continue;
            vis_view_pixel_mm(vw, u, v, &x, &y);
            e[k].x = (float)x;
            e[k].y = (float)y;
            e[k].gx = bx;
            e[k].gy = by;
            map[(size_t)v * (size_t)w + (size_t)u] = 1;
            k++;
        }
    }
    *out = e;
    *n = k;
    return 0;
}

/* The mat's colour: each channel's median over the view off the markers
 * (the layout covers a small part of the mat). */
static void cb__mat_colour(const vis_image *view, const vis_view *vw, double mat[3])
{
    long hist[3][256] = {{0}}, n = 0;
    cb__marks mk;
    cb__marks_of(vw, &mk);
    for (int v = 0; v < view->height; v += 2)
        for (int u = 0; u < view->width; u += 2) {
            const unsigned char *px =
                view->data + (size_t)v * (size_t)view->stride + (size_t)u * view->channels;
            if (cb__on_marks(&mk, u, v))
                continue;
            for (int c = 0; c < 3; c++)
                hist[c][px[view->channels == 3 ? c : 0]]++;
            n++;
        }
    for (int c = 0; c < 3; c++) {
        long acc = 0;
        mat[c] = 0;
        for (int b = 0; b < 256; b++) {
            acc += hist[c][b];
            if (acc > n / 2) {
                mat[c] = b;
                break;
            }
        }
    }
}

/* Whether a pixel's colour is unlike the mat's (a tile's): its chroma
 * differs, or it is much darker. */
static bool cb__unlike(const double col[3], const double mat[3])
{
    /* three times each channel less the mean, so that no division rounds */
    double sc = col[0] + col[1] + col[2], sm = mat[0] + mat[1] + mat[2], d = 0;
    for (int c = 0; c < 3; c++)
        d = fmax(d, fabs(3 * (col[c] - mat[c]) - (sc - sm)));
    return d > 3 * cb__par.chroma_dist || sm - sc > 3 * cb__par.dark_dist;
}

#define CB__NSAMPLES 13

/* Where a cell is sampled, mm from its centre, for a lattice turned
 * theta: the centre, and rings at half and all of the sampled radius,
 * turned by half a step between them. */
static void cb__samples(double theta, double pitch, double off[CB__NSAMPLES][2])
{
    static const double ring[7][2] = {{0, 0},       {1, 0},        {0.5, 0.866},  {-0.5, 0.866},
                                      {-1, 0},      {-0.5, -0.866}, {0.5, -0.866}};
    const double rin = pitch / 2 * cb__par.sample_share;
    int n = 0;
    for (int ri = 0; ri < 2; ri++)
        for (int k = ri ? 1 : 0; k < 7; k++, n++) {
            double sc = ri ? rin : rin * 0.5, a = theta + (ri ? CB_PI / 6 : 0);
            double lx = ring[k][0] * sc, ly = ring[k][1] * sc;
            off[n][0] = lx * cos(a) - ly * sin(a);
            off[n][1] = lx * sin(a) + ly * cos(a);
        }
}

/* The share of cell-centre (x, y)'s samples (off, cb__samples) unlike the
 * mat (-1: the cell leaves the view or touches a marker). */
static double cb__cover(const vis_image *view, const vis_view *vw, const double mat[3],
                        const double off[CB__NSAMPLES][2], double x, double y)
{
    int unlike = 0;
    for (int k = 0; k < CB__NSAMPLES; k++) {
        double px = x + off[k][0], py = y + off[k][1];
        int u, v;
        double col[3] = {0, 0, 0};
        if (vis_view_on_marker(vw, px, py, cb__par.marker_margin) ||
            !vis_view_mm_pixel(vw, view, px, py, &u, &v))
            return -1;
        for (int c = 0; c < 3; c++) {
            for (int dv = -1; dv <= 1; dv++)
                for (int du = -1; du <= 1; du++)
                    col[c] += view->data[(size_t)(v + dv) * (size_t)view->stride +
                                         (size_t)(u + du) * view->channels +
                                         (size_t)(view->channels == 3 ? c : 0)];
            col[c] /= 9;
        }
        unlike += cb__unlike(col, mat);
    }
    return (double)unlike / CB__NSAMPLES;
}

/* The share of the pixels within edge_reach of cell-centre (x, y)'s inner
 * radius that are edges. */
static double cb__edge_share(const vis_image *view, const vis_view *vw, const unsigned char *map,
                             double pitch, double x, double y)
{
    const double rad = pitch / 2 * cb__par.edge_reach * vw->px_per_mm;
    int u0, v0, n = 0, hit = 0;
    if (!vis_view_mm_pixel(vw, view, x, y, &u0, &v0))
        return 0;
    for (int dv = -(int)rad; dv <= (int)rad; dv++)
        for (int du = -(int)rad; du <= (int)rad; du++) {
            int u = u0 + du, v = v0 + dv;
            if (du * du + dv * dv > rad * rad || u < 0 || v < 0 || u >= view->width ||
                v >= view->height)
                continue;
            n++;
            hit += map[(size_t)v * (size_t)view->width + (size_t)u];
        }
    return n ? (double)hit / n : 0;
}

void vis_cubed_cell_mm(const vis_cb_layout *l, int q, int r, double *x_mm, double *y_mm)
{
    double t = l->angle_deg * CB_PI / 180, a = (q + r / 2.0) * l->pitch_mm,
           b = r * l->pitch_mm * CB_SQ3 / 2;
    *x_mm = l->x0_mm + a * cos(t) - b * sin(t);
    *y_mm = l->y0_mm + a * sin(t) + b * cos(t);
}

/* The cells of the lattice (theta, pitch, origin (ox, oy)) in the view
 * and how much of each is tile: misfit is the cells' sum of f (1 - f)
 * over their sum of f (0: every cell all tile or all mat).  Tiles into
 * out when not NULL. */
static double cb__fit(const vis_image *view, const vis_view *vw, const double mat[3],
                      const unsigned char *map, double theta, double pitch, double ox, double oy,
                      vis_cb_layout *out)
{
    vis_cb_layout l;
    double mis = 0, sum = 0, off[CB__NSAMPLES][2];
    int lim = (int)ceil(fmax(vw->mat_w, vw->mat_h) * 1.3 / pitch) + 2;
    cb__samples(theta, pitch, off);
    memset(&l, 0, sizeof l);
    l.pitch_mm = pitch;
    l.angle_deg = theta * 180 / CB_PI;
    l.x0_mm = ox;
    l.y0_mm = oy;
    for (int r = -lim; r <= lim; r++)
        for (int q = -lim - lim / 2; q <= lim + lim / 2; q++) {
            double x, y, f, edges;
            vis_cubed_cell_mm(&l, q, r, &x, &y);
            if (x < -pitch || y < -pitch || x > vw->mat_w + pitch || y > vw->mat_h + pitch)
                continue;
            if ((f = cb__cover(view, vw, mat, off, x, y)) < 0)
                continue;
            mis += f * (1 - f);
            sum += f;
            if (!out || f < cb__par.tile_cover)
                continue;
            edges = cb__edge_share(view, vw, map, pitch, x, y);
            BASE_DEBUG("cubed", "cell %d,%d at %.1f,%.1f: %.2f unlike the mat, %.3f edges", q, r,
                       x, y, f, edges);
            if (l.ntiles < VIS_CB_MAX_TILES && edges >= cb__par.edge_share) {
                vis_cb_tile *t = &l.tiles[l.ntiles++];
                t->q = q;
                t->r = r;
                t->x_mm = x;
                t->y_mm = y;
                t->cover = (float)f;
            }
        }
    if (out) {
        /* every tile but the first touches another (GAMES.md): a tile too
         * pale to stand out from the mat lies beside a candidate, so the
         * candidates' neighbours are candidates too, for the learned stage
         * to read */
        static const int dq[6] = {1, 1, 0, -1, -1, 0}, dr[6] = {-1, 0, 1, 1, 0, -1};
        int nseen = l.ntiles;
        for (int i = 0; i < nseen; i++)
            for (int k = 0; k < 6 && l.ntiles < VIS_CB_MAX_TILES; k++) {
                int q = l.tiles[i].q + dq[k], r = l.tiles[i].r + dr[k];
                bool have = false;
                double x, y, f;
                for (int j = 0; j < l.ntiles && !have; j++)
                    have = l.tiles[j].q == q && l.tiles[j].r == r;
                if (have)
                    continue;
                vis_cubed_cell_mm(&l, q, r, &x, &y);
                if ((f = cb__cover(view, vw, mat, off, x, y)) < 0)
                    continue;
                l.tiles[l.ntiles].q = q;
                l.tiles[l.ntiles].r = r;
                l.tiles[l.ntiles].x_mm = x;
                l.tiles[l.ntiles].y_mm = y;
                l.tiles[l.ntiles].cover = (float)f;
                l.ntiles++;
            }
        l.nstrong = nseen;
        *out = l;
    }
    return sum > 0 ? mis / sum : INFINITY;
}

/* The layout's region: squares of mask_mm whose pixels are mask_share
 * unlike the mat, grown by one square; *gw x *gh flags over the view. */
static unsigned char *cb__mask(const vis_image *view, const vis_view *vw, const double mat[3],
                               int *gw, int *gh, int *cellpx)
{
    int cp = (int)ceil(cb__par.mask_mm * vw->px_per_mm), w, h;
    unsigned char *m, *grown;
    cb__marks mk;
    const int sm = (int)(mat[0] + mat[1] + mat[2]), lim = (int)floor(3 * cb__par.chroma_dist),
              dark = (int)floor(3 * cb__par.dark_dist);
    const int m3[3] = {3 * (int)mat[0] - sm, 3 * (int)mat[1] - sm, 3 * (int)mat[2] - sm};
    cb__marks_of(vw, &mk);
    cp = cp < 1 ? 1 : cp;
    w = (view->width + cp - 1) / cp;
    h = (view->height + cp - 1) / cp;
    m = calloc((size_t)w * (size_t)h, 1);
    grown = calloc((size_t)w * (size_t)h, 1);
    if (!m || !grown) {
        free(m);
        free(grown);
        return NULL;
    }
    for (int j = 0; j < h; j++)
        for (int i = 0; i < w; i++) {
            int n = 0, un = 0;
            for (int v = j * cp; v < (j + 1) * cp && v < view->height; v++)
                for (int u = i * cp; u < (i + 1) * cp && u < view->width; u++) {
                    const unsigned char *px = view->data + (size_t)v * (size_t)view->stride +
                                              (size_t)u * view->channels;
                    int c0 = px[0], c1 = px[view->channels == 3 ? 1 : 0],
                        c2 = px[view->channels == 3 ? 2 : 0], sc = c0 + c1 + c2;
                    if (cb__on_marks(&mk, u, v))
                        continue;
                    n++;
                    /* cb__unlike in integers (the mat's colour is a median level) */
                    un += abs(3 * c0 - sc - m3[0]) > lim || abs(3 * c1 - sc - m3[1]) > lim ||
                          abs(3 * c2 - sc - m3[2]) > lim || sm - sc > dark;
                }
            m[(size_t)j * w + i] = n > 0 && un >= cb__par.mask_share * n;
        }
    for (int j = 0; j < h; j++)
        for (int i = 0; i < w; i++)
            for (int dj = -1; dj <= 1; dj++)
                for (int di = -1; di <= 1; di++) {
                    int a = i + di, b = j + dj;
                    if (a >= 0 && b >= 0 && a < w && b < h && m[(size_t)b * w + a])
                        grown[(size_t)j * w + i] = 1;
                }
    free(m);
    *gw = w;
    *gh = h;
    *cellpx = cp;
    return grown;
}

/* The lattice (theta, origin) fitted to the edges of its lines by least
 * squares: each edge of a family within line_near_mm of one of its lines
 * (n_k . (p - o) a multiple of half a pitch) pulls the turn and the
 * origin toward it. */
static void cb__lines_fit(const cb__edge *e, int n, double pitch, double *theta, double *ox,
                          double *oy)
{
    const double period = pitch / 2, tol = sin(cb__par.family_deg * CB_PI / 180);
    for (int round = 0; round < cb__par.fit_rounds; round++) {
        double A[3][3] = {{0}}, b[3] = {0}, det, fam[3][2];
        int used = 0;
        for (int k = 0; k < 3; k++) {
            fam[k][0] = cos(*theta + k * CB_PI / 3);
            fam[k][1] = sin(*theta + k * CB_PI / 3);
        }
        for (int i = 0; i < n; i++) {
            double g = hypot(e[i].gx, e[i].gy);
            for (int k = 0; k < 3; k++) {
                double nx = fam[k][0], ny = fam[k][1];
                double px = e[i].x - *ox, py = e[i].y - *oy, d, r, J[3];
                if (fabs((e[i].gx * ny - e[i].gy * nx) / g) > tol)
                    continue;
                d = px * nx + py * ny;
                r = d - period * floor(d / period + 0.5);
                if (fabs(r) > cb__par.line_near_mm)
                    continue;
                J[0] = -px * ny + py * nx; /* d r / d theta */
                J[1] = -nx;                /* d r / d ox */
                J[2] = -ny;
                for (int p = 0; p < 3; p++) {
                    b[p] -= J[p] * r;
                    for (int q = 0; q < 3; q++)
                        A[p][q] += J[p] * J[q];
                }
                used++;
            }
        }
        if (used < cb__par.min_edges)
            return;
        det = A[0][0] * (A[1][1] * A[2][2] - A[1][2] * A[2][1]) -
              A[0][1] * (A[1][0] * A[2][2] - A[1][2] * A[2][0]) +
              A[0][2] * (A[1][0] * A[2][1] - A[1][1] * A[2][0]);
        if (fabs(det) < 1e-12)
            return;
        {
            /* Cramer's rule */
            double x[3];
            for (int c = 0; c < 3; c++) {
                double M[3][3];
                memcpy(M, A, sizeof M);
                for (int r = 0; r < 3; r++)
                    M[r][c] = b[r];
                x[c] = (M[0][0] * (M[1][1] * M[2][2] - M[1][2] * M[2][1]) -
                        M[0][1] * (M[1][0] * M[2][2] - M[1][2] * M[2][0]) +
                        M[0][2] * (M[1][0] * M[2][1] - M[1][1] * M[2][0])) /
                       det;
            }
            *theta += x[0];
            *ox += x[1];
            *oy += x[2];
        }
    }
}

/* vis_cubed_find, with the mat's colour given (mat_given, BGR) or
 * measured on the view (NULL). */
static int cb__find(const vis_image *view, const vis_view *vw, double pitch_mm,
                    const double *mat_given, vis_cb_layout *out, base_err *err)
{
    cb__edge *e = NULL;
    unsigned char *map = NULL;
    int n = 0, rc;
    double zr = 0, zi = 0, wsum = 0, theta, phase[2], mat[3] = {0, 0, 0}, best = INFINITY,
           second = INFINITY, ox, oy;
    double pitch = pitch_mm > 0 ? pitch_mm : 40, period;
    int bc = 0;
    if (!view || !vw || !out || vw->px_per_mm <= 0)
        return base_err_set(err, BASE_EINVAL, "vis_cubed_find: NULL argument or no scale");
    memset(out, 0, sizeof *out);
    out->pitch_mm = pitch;
    if (!(map = calloc((size_t)view->width * (size_t)view->height, 1)))
        return base_err_set(err, BASE_ENOMEM, "vis_cubed_find: out of memory");
    /* 0. only the layout's edges: a table's planks or a cloth's weave
     * have directions of their own */
    if (mat_given)
        memcpy(mat, mat_given, sizeof mat);
    else
        cb__mat_colour(view, vw, mat);
    memcpy(out->mat_bgr, mat, sizeof mat);
    {
        int gw, gh, cp;
        unsigned char *mask = cb__mask(view, vw, mat, &gw, &gh, &cp);
        if (!mask) {
            free(map);
            return base_err_set(err, BASE_ENOMEM, "vis_cubed_find: out of memory");
        }
        rc = cb__edges(view, vw, mask, gw, cp, &e, &n, map);
        free(mask);
        if (rc != 0) {
            free(map);
            return base_err_set(err, rc, "vis_cubed_find: out of memory");
        }
    }
    if (n < cb__par.min_edges) {
        free(e);
        free(map);
        return 0;
    }
    /* 1. the turn: gradients' angles times six */
    for (int i = 0; i < n; i++) {
        /* (g / |g|)^6: the unit phasor of six times the gradient's angle */
        double gx = e[i].gx, gy = e[i].gy, m2 = gx * gx + gy * gy;
        double ar = gx * gx - gy * gy, ai = 2 * gx * gy; /* g^2 */
        double br = ar * ar - ai * ai, bi = 2 * ar * ai;  /* g^4 */
        zr += (br * ar - bi * ai) / (m2 * m2 * m2);
        zi += (br * ai + bi * ar) / (m2 * m2 * m2);
        wsum += 1;
    }
    theta = atan2(zi, zr) / 6; /* (-30, 30] degrees */
    if (theta >= CB_PI / 6)
        theta -= CB_PI / 3;
    out->angle_deg = theta * 180 / CB_PI;
    out->turn_share = (float)(hypot(zr, zi) / wsum);
    /* 2. the phases across two of the three directions, period half a
     * pitch: lines of sides and of rhombi alike */
    period = pitch / 2;
    for (int k = 0; k < 2; k++) {
        double nx = cos(theta + k * CB_PI / 3), ny = sin(theta + k * CB_PI / 3), pr = 0, pi = 0;
        const double tol = sin(cb__par.family_deg * CB_PI / 180);
        for (int i = 0; i < n; i++) {
            double g = hypot(e[i].gx, e[i].gy), cr = (e[i].gx * ny - e[i].gy * nx) / g;
            double a;
            if (fabs(cr) > tol)
                continue;
            a = 2 * CB_PI * (e[i].x * nx + e[i].y * ny) / period;
            pr += cos(a);
            pi += sin(a);
        }
        phase[k] = atan2(pi, pr) / (2 * CB_PI) * period;
    }
    {
        /* the point whose projections are the two phases */
        double n0x = cos(theta), n0y = sin(theta), n1x = cos(theta + CB_PI / 3),
               n1y = sin(theta + CB_PI / 3), det = n0x * n1y - n0y * n1x;
        ox = (phase[0] * n1y - phase[1] * n0y) / det;
        oy = (n0x * phase[1] - n1x * phase[0]) / det;
    }
    /* 3. centres, or the corners south or north of them */
    for (int c = 0; c < 3; c++) {
        double s = c == 0 ? 0 : c == 1 ? 1 : -1, d = s * pitch / CB_SQ3;
        double m = cb__fit(view, vw, mat, map, theta, pitch, ox - d * sin(theta),
                           oy + d * cos(theta), NULL);
        if (m < best) {
            second = best;
            best = m;
            bc = c;
        } else if (m < second) {
            second = m;
        }
    }
    {
        /* 4. the chosen centres' lattice fitted to its lines */
        double s = bc == 0 ? 0 : bc == 1 ? 1 : -1, d = s * pitch / CB_SQ3;
        float share = out->turn_share;
        ox -= d * sin(theta);
        oy += d * cos(theta);
        cb__lines_fit(e, n, pitch, &theta, &ox, &oy);
        theta = fmod(theta + 7 * CB_PI / 6, CB_PI / 3) - CB_PI / 6; /* [-30, 30) degrees */
        cb__fit(view, vw, mat, map, theta, pitch, ox, oy, out);
        out->turn_share = share;
    }
    free(e);
    free(map);
    memcpy(out->mat_bgr, mat, sizeof mat); /* cb__fit wrote the layout over it */
    out->coset_margin = (float)(best > 0 ? second / best : second > 0 ? 1e6 : 1);
    out->found = out->ntiles > 0 && out->coset_margin >= cb__par.min_margin &&
                 out->turn_share >= cb__par.min_turn_share;
    return 0;
}

int vis_cubed_find(const vis_image *view, const vis_view *vw, double pitch_mm, vis_cb_layout *out,
                   base_err *err)
{
    return cb__find(view, vw, pitch_mm, NULL, out, err);
}

int vis_cubed_track(const vis_image *view, const vis_view *vw, const vis_cb_layout *prior,
                    vis_cb_layout *out, base_err *err)
{
    if (!prior || !prior->found)
        return base_err_set(err, BASE_EINVAL, "vis_cubed_track: no layout to track");
    return cb__find(view, vw, prior->pitch_mm, prior->mat_bgr, out, err);
}

void vis_cubed_bounds(const vis_cb_layout *l, double margin_mm, double box[4])
{
    box[0] = box[1] = INFINITY;
    box[2] = box[3] = -INFINITY;
    for (int i = 0; i < l->nstrong; i++) {
        box[0] = fmin(box[0], l->tiles[i].x_mm - margin_mm);
        box[1] = fmin(box[1], l->tiles[i].y_mm - margin_mm);
        box[2] = fmax(box[2], l->tiles[i].x_mm + margin_mm);
        box[3] = fmax(box[3], l->tiles[i].y_mm + margin_mm);
    }
    if (l->nstrong == 0)
        box[0] = box[1] = box[2] = box[3] = 0;
}
