/* vision/cube2_find.c: where the cube² board lies (vis_cube2_find).
 *
 * A board is a square of lines a pitch apart.  In the top-down view each
 * strong edge pixel votes, by the direction of its gradient, for a line
 * across x or across y of a board turned by theta; summed as phasors of
 * period pitch (e^(2 pi i s / pitch), s the pixel's distance along the
 * axis) the votes of a board's lines add up, and those of a table's grain,
 * a sheet of paper or a mug do not.  The turn that makes them add best is
 * the board's turn, the phasors' angles are its lines' phase.  Which of
 * the lines are the board's follows from the line segments themselves:
 * the window of cols x rows squares whose sides show the most edge,
 * against the ring of segments just outside it. */
#include "cube2Int.h"
#include "view.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define C2F_PI 3.14159265358979323846
#define C2F_LUT 1024

typedef struct c2f_edge {
    int u, v;     /* view pixel */
    float x, y;   /* table mm */
    float gx, gy; /* gradient, levels a pixel */
    float m;
} c2f_edge;

static float c2f_cos[C2F_LUT], c2f_sin[C2F_LUT];

static void c2f_lut(void)
{
    if (c2f_cos[0] == 1.0f)
        return;
    for (int i = 0; i < C2F_LUT; i++) {
        c2f_cos[i] = (float)cos(2 * C2F_PI * i / C2F_LUT);
        c2f_sin[i] = (float)sin(2 * C2F_PI * i / C2F_LUT);
    }
}

/* The strong edges of view, strongest colour channel each. */
static int c2f_edges(const vis_image *view, const vis_view *vw, c2f_edge **out, int *n,
                     base_err *err)
{
    const int w = view->width, h = view->height, ch = view->channels;
    c2f_edge *e = malloc(sizeof *e * (size_t)(w > 2 && h > 2 ? (w - 2) * (h - 2) : 1));
    int k = 0;
    if (!e)
        return base_err_set(err, BASE_ENOMEM, "vis_cube2_find: out of memory");
    for (int v = 1; v < h - 1; v++) {
        const unsigned char *row = view->data + (size_t)v * (size_t)view->stride;
        const unsigned char *up = row - view->stride, *dn = row + view->stride;
        for (int u = 1; u < w - 1; u++) {
            float bx = 0, by = 0, bm = 0;
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
            if (bm < vis__c2_params.edge_min * vis__c2_params.edge_min)
                continue;
            double x, y;
            vis_view_pixel_mm(vw, u, v, &x, &y);
            if (vis_view_on_marker(vw, x, y, vis__c2_params.marker_margin))
                continue;
            e[k].u = u;
            e[k].v = v;
            e[k].x = (float)x;
            e[k].y = (float)y;
            e[k].gx = bx;
            e[k].gy = by;
            /* each edge pixel one vote: a board's strong outline (dark on a
             * white mat) must not outweigh its fainter lines */
            e[k].m = 1;
            k++;
        }
    }
    *out = e;
    *n = k;
    return 0;
}

/* The phasor sums of the lines across x (zx) and across y (zy) at turn
 * theta, from edges within box = [a0, a1] x [b0, b1] of the turned frame
 * (all when box is NULL); and the score of the turn: over tiles of the
 * table, the geometric mean of each tile's two sums.  A board has lines
 * both ways in the same place; a table's planks and grain, a sheet's
 * lines of writing run one way. */
typedef struct c2f_sum {
    double zx[2], zy[2];
    double score;
} c2f_sum;

#define C2F_TILES 16 /* tiles a side at the most */

static void c2f_turned(double c, double s, double x, double y, double *a, double *b)
{
    *a = x * c + y * s;
    *b = -x * s + y * c;
}

static c2f_sum c2f_phasors(const c2f_edge *e, int n, double theta, double pitch, const double *box,
                           int stride)
{
    c2f_sum r = {{0, 0}, {0, 0}, 0};
    double tz[C2F_TILES * C2F_TILES][4]; /* (on the stack: readers may run in threads) */
    const double c = cos(theta), s = sin(theta), k = C2F_LUT / pitch;
    const double dom = vis__c2_params.axis_dominance, tile = vis__c2_params.tile_pitches * pitch;
    memset(tz, 0, sizeof tz);
    for (int i = 0; i < n; i += stride) {
        double a, b, ga, gb;
        int idx, tx = (int)floor(e[i].x / tile) + 1, ty = (int)floor(e[i].y / tile) + 1;
        double *z;
        c2f_turned(c, s, e[i].x, e[i].y, &a, &b);
        if (box && (a < box[0] || a > box[1] || b < box[2] || b > box[3]))
            continue;
        tx = tx < 0 ? 0 : tx >= C2F_TILES ? C2F_TILES - 1 : tx;
        ty = ty < 0 ? 0 : ty >= C2F_TILES ? C2F_TILES - 1 : ty;
        z = tz[ty * C2F_TILES + tx];
        c2f_turned(c, s, e[i].gx, e[i].gy, &ga, &gb);
        if (fabs(ga) > dom * fabs(gb)) { /* a line across x: constant a */
            idx = (int)floor(a * k) & (C2F_LUT - 1);
            z[0] += e[i].m * c2f_cos[idx];
            z[1] += e[i].m * c2f_sin[idx];
        } else if (fabs(gb) > dom * fabs(ga)) {
            idx = (int)floor(b * k) & (C2F_LUT - 1);
            z[2] += e[i].m * c2f_cos[idx];
            z[3] += e[i].m * c2f_sin[idx];
        }
    }
    for (int t = 0; t < C2F_TILES * C2F_TILES; t++) {
        r.zx[0] += tz[t][0];
        r.zx[1] += tz[t][1];
        r.zy[0] += tz[t][2];
        r.zy[1] += tz[t][3];
        r.score += sqrt(hypot(tz[t][0], tz[t][1]) * hypot(tz[t][2], tz[t][3]));
    }
    return r;
}

static double c2f_score(const c2f_sum *s) { return s->score; }

/* The best turn over [lo, hi] by step, then a parabola through the best
 * and its neighbours. */
static double c2f_best_turn(const c2f_edge *e, int n, double pitch, const double *box, double lo,
                            double hi, double step, int stride)
{
    int steps = (int)floor((hi - lo) / step + 0.5) + 1, best = 0;
    double *sc = malloc(sizeof *sc * (size_t)steps), t;
    if (!sc)
        return 0.5 * (lo + hi);
    for (int i = 0; i < steps; i++) {
        c2f_sum s = c2f_phasors(e, n, lo + i * step, pitch, box, stride);
        sc[i] = c2f_score(&s);
        if (sc[i] > sc[best])
            best = i;
    }
    t = lo + best * step;
    if (best > 0 && best + 1 < steps) {
        double a = sc[best - 1], b = sc[best], c = sc[best + 1], d = a - 2 * b + c;
        if (d < 0)
            t += step * 0.5 * (a - c) / d;
    }
    free(sc);
    return t;
}

/* The edge evidence of each line segment: V[i][j] the line across x at
 * a = px + i * pitch between the lines across y j and j + 1; H[i][j] the
 * line across y at b = py + j * pitch between lines across x i and i + 1.
 * Indices offset by off so that they start at 0. */
typedef struct c2f_grid {
    int nx, ny, offx, offy;
    double *V, *H;
} c2f_grid;

static int c2f_segments(const c2f_edge *e, int n, double theta, double pitch, double px, double py,
                        c2f_grid *g)
{
    const double c = cos(theta), s = sin(theta), dom = vis__c2_params.axis_dominance;
    const double near = vis__c2_params.line_near_mm;
    double amin = INFINITY, amax = -INFINITY, bmin = INFINITY, bmax = -INFINITY;
    for (int i = 0; i < n; i++) {
        double a, b;
        c2f_turned(c, s, e[i].x, e[i].y, &a, &b);
        amin = fmin(amin, a);
        amax = fmax(amax, a);
        bmin = fmin(bmin, b);
        bmax = fmax(bmax, b);
    }
    g->offx = (int)floor((amin - px) / pitch) - 1;
    g->offy = (int)floor((bmin - py) / pitch) - 1;
    g->nx = (int)floor((amax - px) / pitch) - g->offx + 3;
    g->ny = (int)floor((bmax - py) / pitch) - g->offy + 3;
    g->V = calloc((size_t)g->nx * (size_t)g->ny, sizeof *g->V);
    g->H = calloc((size_t)g->nx * (size_t)g->ny, sizeof *g->H);
    if (!g->V || !g->H)
        return BASE_ENOMEM;
    for (int k = 0; k < n; k++) {
        double a, b, ga, gb, fa, fb;
        c2f_turned(c, s, e[k].x, e[k].y, &a, &b);
        c2f_turned(c, s, e[k].gx, e[k].gy, &ga, &gb);
        fa = (a - px) / pitch;
        fb = (b - py) / pitch;
        if (fabs(ga) > dom * fabs(gb) && fabs(fa - floor(fa + 0.5)) * pitch < near) {
            int i = (int)floor(fa + 0.5) - g->offx, j = (int)floor(fb) - g->offy;
            if (i >= 0 && i < g->nx && j >= 0 && j < g->ny)
                g->V[(size_t)i * (size_t)g->ny + (size_t)j] += e[k].m;
        } else if (fabs(gb) > dom * fabs(ga) && fabs(fb - floor(fb + 0.5)) * pitch < near) {
            int i = (int)floor(fa) - g->offx, j = (int)floor(fb + 0.5) - g->offy;
            if (i >= 0 && i < g->nx && j >= 0 && j < g->ny)
                g->H[(size_t)i * (size_t)g->ny + (size_t)j] += e[k].m;
        }
    }
    return 0;
}

static double c2f_at(const double *m, const c2f_grid *g, int i, int j)
{
    return i >= 0 && i < g->nx && j >= 0 && j < g->ny ? m[(size_t)i * (size_t)g->ny + (size_t)j]
                                                      : 0;
}

/* Sum and count of the window's segments (inside) and of the segments of
 * the ring one square outside it. */
static int c2f_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void c2f_window(const c2f_grid *g, int i0, int j0, int cols, int rows, double *in,
                       double *ring)
{
    /* inside: the median segment, for every segment of a board's lines
     * shows (but those a piece's side or a hand covers), while edges that
     * happen to line up (a row of pieces, their shadows) fill a few */
    double vin[2 * (VIS_C2_MAX_SIDE + 1) * VIS_C2_MAX_SIDE], sr = 0;
    int nin = 0, nring = 0;
    for (int f = 0; f < 2; f++)
        for (int i = i0 - 1; i <= i0 + cols + (f == 0); i++)
            for (int j = j0 - 1; j <= j0 + rows + (f == 1); j++) {
                /* V (f 0): lines i0..i0+cols between rows j0..j0+rows-1;
                 * H (f 1): lines j0..j0+rows between columns i0..i0+cols-1 */
                bool inside = f == 0 ? i >= i0 && i <= i0 + cols && j >= j0 && j < j0 + rows
                                     : i >= i0 && i < i0 + cols && j >= j0 && j <= j0 + rows;
                double v = c2f_at(f == 0 ? g->V : g->H, g, i, j);
                if (inside) {
                    vin[nin++] = v;
                } else {
                    sr += v;
                    nring++;
                }
            }
    qsort(vin, (size_t)nin, sizeof *vin, c2f_cmp);
    *in = nin ? vin[nin / 2] : 0;
    *ring = nring ? sr / nring : 0;
}

/* The board's lines fitted to the edges on them, by least squares: the
 * turn theta and the corner (a0, b0) of the turned frame move by a small
 * turn d and shifts (da, db).  An edge on line k across x, at (a, b),
 * lies where a + d (b - bc) = a0 + da + k pitch; on a line across y,
 * b - d (a - ac) = b0 + db + j pitch (bc, ac: the board's middle).  Only
 * edges near a line count, nearer each round: the pieces' edges, and at a
 * slant their sides, mostly lie between the lines. */
static void c2f_lines_fit(const c2f_edge *e, int n, int cols, int rows, double pitch,
                          double *theta, double *a0, double *b0)
{
    const vis__c2_param_table *P = &vis__c2_params;
    for (int round = 0; round < P->fit_rounds; round++) {
        const double c = cos(*theta), s = sin(*theta), dom = P->axis_dominance;
        const double near = P->line_near_mm * (round ? P->fit_narrow : 1);
        const double ac = *a0 + cols * pitch / 2, bc = *b0 + rows * pitch / 2;
        double A[3][3] = {{0}}, B[3] = {0}, det, x[3];
        int used = 0;
        for (int i = 0; i < n; i++) {
            double a, b, ga, gb, f, row[3], r;
            c2f_turned(c, s, e[i].x, e[i].y, &a, &b);
            if (a < *a0 - near || a > *a0 + cols * pitch + near || b < *b0 - near ||
                b > *b0 + rows * pitch + near)
                continue;
            c2f_turned(c, s, e[i].gx, e[i].gy, &ga, &gb);
            if (fabs(ga) > dom * fabs(gb)) {
                f = (a - *a0) / pitch;
                r = (f - floor(f + 0.5)) * pitch; /* a - line */
                /* r = da - d (b - bc) */
                row[0] = 1;
                row[1] = 0;
                row[2] = -(b - bc);
            } else if (fabs(gb) > dom * fabs(ga)) {
                f = (b - *b0) / pitch;
                r = (f - floor(f + 0.5)) * pitch;
                /* r = db + d (a - ac) */
                row[0] = 0;
                row[1] = 1;
                row[2] = a - ac;
            } else {
                continue;
            }
            if (fabs(r) > near)
                continue;
            for (int p = 0; p < 3; p++) {
                for (int q = 0; q < 3; q++)
                    A[p][q] += row[p] * row[q];
                B[p] += row[p] * r;
            }
            used++;
        }
        if (used < P->min_edges)
            return;
        det = A[0][0] * (A[1][1] * A[2][2] - A[1][2] * A[2][1]) -
              A[0][1] * (A[1][0] * A[2][2] - A[1][2] * A[2][0]) +
              A[0][2] * (A[1][0] * A[2][1] - A[1][1] * A[2][0]);
        if (fabs(det) < 1e-9)
            return;
        for (int k = 0; k < 3; k++) { /* Cramer */
            double M[3][3];
            memcpy(M, A, sizeof M);
            for (int p = 0; p < 3; p++)
                M[p][k] = B[p];
            x[k] = (M[0][0] * (M[1][1] * M[2][2] - M[1][2] * M[2][1]) -
                    M[0][1] * (M[1][0] * M[2][2] - M[1][2] * M[2][0]) +
                    M[0][2] * (M[1][0] * M[2][1] - M[1][1] * M[2][0])) /
                   det;
        }
        {
            /* the new frame turned by d: the corner, held in table mm,
             * re-expressed in it (the board's middle stays put) */
            double d = x[2];
            double mx = (ac + x[0]) * c - (bc + x[1]) * s, my = (ac + x[0]) * s + (bc + x[1]) * c;
            double t2 = *theta + d, c2 = cos(t2), s2 = sin(t2), ma, mb;
            c2f_turned(c2, s2, mx, my, &ma, &mb);
            *theta = t2;
            *a0 = ma - cols * pitch / 2;
            *b0 = mb - rows * pitch / 2;
        }
    }
}

/* The window of cols x rows squares on the lines of phase (*px, *py) at
 * turn theta whose segments show the most edge over the ring round it:
 * (*px, *py) become its corner, in and ring its segments' and the ring's
 * mean evidence. */
static int c2f_place(const c2f_edge *e, int n, double theta, double pitch, int cols, int rows,
                     double *px, double *py, double *in, double *ring)
{
    c2f_grid g = {0, 0, 0, 0, NULL, NULL};
    double best = -INFINITY;
    int bi = 0, bj = 0, rc = c2f_segments(e, n, theta, pitch, *px, *py, &g);
    for (int i = 0; rc == 0 && i + cols < g.nx; i++)
        for (int j = 0; j + rows < g.ny; j++) {
            double a, b;
            c2f_window(&g, i, j, cols, rows, &a, &b);
            if (a - b > best) {
                best = a - b;
                *in = a;
                *ring = b;
                bi = i;
                bj = j;
            }
        }
    *px += (bi + g.offx) * pitch;
    *py += (bj + g.offy) * pitch;
    free(g.V);
    free(g.H);
    return rc;
}

/* The turned frame's box round a board of corner (a0, b0), margin m. */
static void c2f_box(double a0, double b0, int cols, int rows, double pitch, double m, double *box)
{
    box[0] = a0 - m;
    box[1] = a0 + cols * pitch + m;
    box[2] = b0 - m;
    box[3] = b0 + rows * pitch + m;
}

/* The lines' phase candidates: the modes of the edges' places modulo a
 * pitch, each family on its own: a histogram of C2F_BINS bins round the
 * pitch, summed over a line's width, its C2F_PEAKS highest peaks at
 * least a line's width apart (the board's lines, or a board's outline and
 * its shadow, which are a thin dark line too).  ph[f][k]: family f's
 * phase k in [0, pitch). */
#define C2F_BINS 60
#define C2F_PEAKS 3
static int c2f_bin(double v, double pitch)
{
    double f = v / pitch - floor(v / pitch);
    int k = (int)(f * C2F_BINS);
    return k < 0 ? 0 : k >= C2F_BINS ? C2F_BINS - 1 : k;
}

static void c2f_mode_phases(const c2f_edge *e, int n, double theta, double pitch,
                            const double *box, double ph[2][C2F_PEAKS])
{
    const double c = cos(theta), s = sin(theta), dom = vis__c2_params.axis_dominance;
    const int half = (int)(vis__c2_params.line_near_mm / pitch * C2F_BINS * 0.75);
    double h[2][C2F_BINS] = {{0}};
    for (int i = 0; i < n; i++) {
        double a, b, ga, gb;
        c2f_turned(c, s, e[i].x, e[i].y, &a, &b);
        if (a < box[0] || a > box[1] || b < box[2] || b > box[3])
            continue;
        c2f_turned(c, s, e[i].gx, e[i].gy, &ga, &gb);
        if (fabs(ga) > dom * fabs(gb))
            h[0][c2f_bin(a, pitch)] += e[i].m;
        else if (fabs(gb) > dom * fabs(ga))
            h[1][c2f_bin(b, pitch)] += e[i].m;
    }
    for (int f = 0; f < 2; f++) {
        double v[C2F_BINS];
        bool taken[C2F_BINS] = {false};
        for (int k = 0; k < C2F_BINS; k++) {
            v[k] = 0;
            for (int d = -half; d <= half; d++)
                v[k] += h[f][((k + d) % C2F_BINS + C2F_BINS) % C2F_BINS];
        }
        for (int p = 0; p < C2F_PEAKS; p++) {
            int bk = -1;
            for (int k = 0; k < C2F_BINS; k++)
                if (!taken[k] && (bk < 0 || v[k] > v[bk]))
                    bk = k;
            ph[f][p] = (bk + 0.5) * pitch / C2F_BINS;
            for (int d = -2 * half; d <= 2 * half; d++)
                taken[((bk + d) % C2F_BINS + C2F_BINS) % C2F_BINS] = true;
        }
    }
}

/* The edges of a board's lines at turn theta: an edge of a line across x
 * (y) that has, within pair_mm along its gradient, an edge of the
 * opposite sign (the line's other side: a board's outline, a piece's
 * outline or a table's plank is one step, not a thin line), and whose
 * map has edges of its family long_mm away on both sides along the line,
 * within a pixel across it (a piece's outline is shorter than twice
 * that).  Copies them into a new array *out (count *nout). */
static int c2f_lines_only(const c2f_edge *e, int n, int w, int h, double ppm, double theta,
                          c2f_edge **out, int *nout)
{
    const double c = cos(theta), s = sin(theta), dom = vis__c2_params.axis_dominance;
    const double reach = vis__c2_params.long_mm * ppm;
    const int pair = (int)ceil(vis__c2_params.pair_mm * ppm);
    /* 1, 2: across x, gradient + or -; 3, 4: across y */
    unsigned char *map = calloc((size_t)w * (size_t)h, 1);
    c2f_edge *o = malloc(sizeof *o * (size_t)(n > 0 ? n : 1));
    int k = 0;
    if (!map || !o) {
        free(map);
        free(o);
        return BASE_ENOMEM;
    }
    for (int i = 0; i < n; i++) {
        double ga, gb;
        c2f_turned(c, s, e[i].gx, e[i].gy, &ga, &gb);
        map[(size_t)e[i].v * (size_t)w + (size_t)e[i].u] =
            fabs(ga) > dom * fabs(gb)   ? (ga > 0 ? 1 : 2)
            : fabs(gb) > dom * fabs(ga) ? (gb > 0 ? 3 : 4)
                                        : 0;
    }
#define C2F_AT(U, V) ((U) >= 0 && (V) >= 0 && (U) < w && (V) < h ? map[(size_t)(V) * (size_t)w + (size_t)(U)] : 0)
    for (int i = 0; i < n; i++) {
        int m = map[(size_t)e[i].v * (size_t)w + (size_t)e[i].u], fam = (m + 1) / 2, ok = 0;
        int other = m == 1 ? 2 : m == 2 ? 1 : m == 3 ? 4 : 3;
        bool paired = false;
        /* a line across x runs along (-s, c) and is crossed along (c, s) */
        double lx = fam == 1 ? -s : c, ly = fam == 1 ? c : s, nx = ly, ny = -lx;
        if (!m)
            continue;
        for (int d = 1; d <= pair && !paired; d++)
            for (int side = -1; side <= 1 && !paired; side += 2)
                paired = C2F_AT((int)lround(e[i].u + side * d * nx),
                                (int)lround(e[i].v + side * d * ny)) == other;
        if (!paired)
            continue;
        for (int side = -1; side <= 1; side += 2) {
            int hit = 0;
            for (int t = -1; t <= 1 && !hit; t++) {
                int u = (int)lround(e[i].u + side * reach * lx + t * nx);
                int v = (int)lround(e[i].v + side * reach * ly + t * ny);
                int q = C2F_AT(u, v);
                hit = q && (q + 1) / 2 == fam;
            }
            ok += hit;
        }
        if (ok == 2)
            o[k++] = e[i];
    }
#undef C2F_AT
    free(map);
    *out = o;
    *nout = k;
    return 0;
}

/* The lines at turn theta and corner (px, py) (the turned frame) fitted
 * by least squares, and the board's place and evidence into out. */
static void c2f_finish(const vis_cube2 *c, const vis_view *vw, const c2f_edge *e, int n,
                       double theta, double px, double py, double in, double ring,
                       vis_c2_board *out)
{
    const vis__c2_param_table *P = &vis__c2_params;
    /* a line seen whole gives both its sides' edges all along a segment:
     * the evidence is measured against that */
    const double full = 2 * c->pitch_mm * vw->px_per_mm;
    c2f_lines_fit(e, n, c->cols, c->rows, c->pitch_mm, &theta, &px, &py);
    BASE_DEBUG("cube2", "fitted turn %.2f, corner %.1f,%.1f", theta * 180 / C2F_PI, px, py);
    out->x0_mm = px * cos(theta) - py * sin(theta);
    out->y0_mm = px * sin(theta) + py * cos(theta);
    out->angle_deg = theta * 180 / C2F_PI;
    out->contrast = (float)(in / (ring + P->ring_floor * full));
    out->line_share = (float)(in / full);
    out->found = out->contrast >= P->min_contrast && out->line_share >= P->min_line_share;
}

int vis_cube2_find(vis_cube2 *c, const vis_image *view, const vis_view *vw, vis_c2_board *out,
                   base_err *err)
{
    const vis__c2_param_table *P = &vis__c2_params;
    c2f_edge *e = NULL, *el = NULL;
    c2f_sum s;
    int n = 0, nl = 0, rc;
    double theta, px, py, in = 0, ring = 0, box[4], lim = P->max_turn_deg * C2F_PI / 180;
    const double step = P->coarse_step_deg * C2F_PI / 180;
    double pitch;
    if (!c || !view || !vw || !out || vw->px_per_mm <= 0)
        return base_err_set(err, BASE_EINVAL, "vis_cube2_find: NULL argument or no scale");
    memset(out, 0, sizeof *out);
    pitch = c->pitch_mm;
    out->cols = c->cols;
    out->rows = c->rows;
    out->pitch_mm = pitch;
    c2f_lut();
    if ((rc = c2f_edges(view, vw, &e, &n, err)) != 0)
        return rc;
    if (n < P->min_edges) {
        free(e);
        return 0;
    }
    /* 1. the turn over all edges, coarse on a sample, then fine */
    theta = c2f_best_turn(e, n, pitch, NULL, -lim, lim, P->coarse_step_deg * C2F_PI / 180,
                          P->coarse_stride);
    theta = c2f_best_turn(e, n, pitch, NULL, theta - step, theta + step,
                          P->fine_step_deg * C2F_PI / 180, 1);
    /* 2. only the thin long lines from here on */
    if ((rc = c2f_lines_only(e, n, view->width, view->height, vw->px_per_mm, theta, &el, &nl)) != 0)
        goto done;
    if (nl < P->min_edges)
        goto done;
    free(e);
    e = el;
    n = nl;
    el = NULL;
    /* the turn again from the lines alone: the pieces' and shadows' edges
     * pulled the first one */
    theta = c2f_best_turn(e, n, pitch, NULL, theta - P->return_deg * C2F_PI / 180,
                          theta + P->return_deg * C2F_PI / 180, P->fine_step_deg * C2F_PI / 180, 1);
    /* 3. the lines' phase (the phasors' mean) and which lines: a first
     * window */
    s = c2f_phasors(e, n, theta, pitch, NULL, 1);
    px = atan2(s.zx[1], s.zx[0]) / (2 * C2F_PI) * pitch;
    py = atan2(s.zy[1], s.zy[0]) / (2 * C2F_PI) * pitch;
    if ((rc = c2f_place(e, n, theta, pitch, c->cols, c->rows, &px, &py, &in, &ring)) != 0)
        goto done;
    /* 4. again from the board alone, the table's edges left out: the turn,
     * the phase as the lines' mode (pieces' and grain's edges, which a
     * mean follows, lie anywhere), the window */
    BASE_DEBUG("cube2", "first turn %.2f, corner %.1f,%.1f (turned frame), %d edges",
               theta * 180 / C2F_PI, px, py, n);
    c2f_box(px, py, c->cols, c->rows, pitch, P->refine_margin_mm, box);
    theta = c2f_best_turn(e, n, pitch, box, theta - step, theta + step,
                          P->fine_step_deg * C2F_PI / 180, 1);
    {
        /* each pair of the phases' candidates placed; the best window wins */
        double ph[2][C2F_PEAKS], best = -INFINITY, bx = px, by = py, bin = in, bring = ring;
        c2f_mode_phases(e, n, theta, pitch, box, ph);
        for (int i = 0; i < C2F_PEAKS; i++)
            for (int j = 0; j < C2F_PEAKS; j++) {
                double qx = ph[0][i], qy = ph[1][j], a, b;
                if ((rc = c2f_place(e, n, theta, pitch, c->cols, c->rows, &qx, &qy, &a, &b)) != 0)
                    goto done;
                if (a - b > best) {
                    best = a - b;
                    bx = qx;
                    by = qy;
                    bin = a;
                    bring = b;
                }
            }
        px = bx;
        py = by;
        in = bin;
        ring = bring;
    }
    BASE_DEBUG("cube2", "turn %.2f, corner %.1f,%.1f (turned frame), window %.0f over ring %.0f",
               theta * 180 / C2F_PI, px, py, in, ring);
    c2f_finish(c, vw, e, n, theta, px, py, in, ring, out);
done:
    free(e);
    return rc ? base_err_set(err, rc, "vis_cube2_find: out of memory") : 0;
}

/* The board near prior, as it lay in an earlier frame: only the lines'
 * edges at its turn, the turn looked for within track_turn_deg of it and
 * the window placed from its phase.  out->found as vis_cube2_find's. */
static int c2f_track(vis_cube2 *c, const vis_image *view, const vis_view *vw,
                     const vis_c2_board *prior, vis_c2_board *out)
{
    const vis__c2_param_table *P = &vis__c2_params;
    c2f_edge *e = NULL, *el = NULL;
    int n = 0, nl = 0, rc;
    double theta = prior->angle_deg * C2F_PI / 180, box[4], px, py, in = 0, ring = 0;
    const double lim = P->track_turn_deg * C2F_PI / 180, pitch = c->pitch_mm;
    if ((rc = c2f_edges(view, vw, &e, &n, NULL)) != 0)
        return rc;
    if (n >= P->min_edges)
        rc = c2f_lines_only(e, n, view->width, view->height, vw->px_per_mm, theta, &el, &nl);
    free(e);
    if (rc != 0 || nl < P->min_edges) {
        free(el);
        return rc;
    }
    c2f_turned(cos(theta), sin(theta), prior->x0_mm, prior->y0_mm, &px, &py);
    c2f_box(px, py, c->cols, c->rows, pitch, P->refine_margin_mm, box);
    theta = c2f_best_turn(el, nl, pitch, box, theta - lim, theta + lim,
                          P->fine_step_deg * C2F_PI / 180, 1);
    c2f_turned(cos(theta), sin(theta), prior->x0_mm, prior->y0_mm, &px, &py);
    if ((rc = c2f_place(el, nl, theta, pitch, c->cols, c->rows, &px, &py, &in, &ring)) == 0)
        c2f_finish(c, vw, el, nl, theta, px, py, in, ring, out);
    free(el);
    return rc;
}

int vis_cube2_track(vis_cube2 *c, const vis_image *view, const vis_view *vw,
                    const vis_c2_board *prior, vis_c2_board *out, base_err *err)
{
    const vis__c2_param_table *P = &vis__c2_params;
    int rc;
    if (!c || !view || !vw || !out || !prior || vw->px_per_mm <= 0)
        return base_err_set(err, BASE_EINVAL, "vis_cube2_track: NULL argument or no scale");
    memset(out, 0, sizeof *out);
    out->cols = c->cols;
    out->rows = c->rows;
    out->pitch_mm = c->pitch_mm;
    if (!prior->found || prior->cols != c->cols || prior->rows != c->rows)
        return 0;
    c2f_lut();
    if ((rc = c2f_track(c, view, vw, prior, out)) != 0)
        return base_err_set(err, rc, "vis_cube2_track: out of memory");
    if (out->found && (fabs(out->angle_deg - prior->angle_deg) > P->track_turn_deg ||
                       hypot(out->x0_mm - prior->x0_mm, out->y0_mm - prior->y0_mm) >
                           P->track_move_squares * c->pitch_mm))
        out->found = false;
    BASE_DEBUG("cube2", "board %s the last frame's: turn %.2f, corner %.1f,%.1f",
               out->found ? "kept from" : "not where it lay in", out->angle_deg, out->x0_mm,
               out->y0_mm);
    return 0;
}

void vis_cube2_bounds(const vis_c2_board *b, double margin_mm, double box[4])
{
    box[0] = box[1] = INFINITY;
    box[2] = box[3] = -INFINITY;
    for (int k = 0; k < 4; k++) {
        double x, y, t = b->angle_deg * C2F_PI / 180;
        double a = (k & 1) ? b->cols * b->pitch_mm : 0, d = (k & 2) ? b->rows * b->pitch_mm : 0;
        x = b->x0_mm + a * cos(t) - d * sin(t);
        y = b->y0_mm + a * sin(t) + d * cos(t);
        box[0] = fmin(box[0], x - margin_mm);
        box[1] = fmin(box[1], y - margin_mm);
        box[2] = fmax(box[2], x + margin_mm);
        box[3] = fmax(box[3], y + margin_mm);
    }
}

void vis_cube2_square_mm(const vis_c2_board *b, int col, int row, double *x_mm, double *y_mm)
{
    double t = b->angle_deg * C2F_PI / 180, c = cos(t), s = sin(t);
    double a = (col + 0.5) * b->pitch_mm, d = (row + 0.5) * b->pitch_mm;
    *x_mm = b->x0_mm + a * c - d * s;
    *y_mm = b->y0_mm + a * s + d * c;
}
