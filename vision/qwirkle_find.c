/* vision/qwirkle_find.c: finding the cubes in the rectified view of their
 * top faces: every pixel classed (out of the play area, table, dark body,
 * symbol colour), the symbols' blobs with dark body round them, the
 * table's own colour and its shade, side faces seen at a slant, and the
 * survey of a whole view (where the cubes are, whether a hand is over
 * them). */
#include "qwirkleInt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- per pixel ---- */

void vis__qw_hsv(double b, double g, double r, double *h, double *s, double *v)
{
    double mx = fmax(r, fmax(g, b)), mn = fmin(r, fmin(g, b)), d = mx - mn, hh;
    *v = mx;
    *s = mx > 0 ? 255.0 * d / mx : 0;
    if (d <= 0) {
        *h = 0;
        return;
    }
    if (mx == r)
        hh = 60.0 * (g - b) / d;
    else if (mx == g)
        hh = 60.0 * (2.0 + (b - r) / d);
    else
        hh = 60.0 * (4.0 + (r - g) / d);
    if (hh < 0)
        hh += 360.0;
    *h = fmod(hh / 2.0, 180.0);
}

bool vis__qw_in_marker(const vis_view *vw, double x, double y)
{
    double m = 0.5 * vw->marker_mm + vw->marker_mm / 6 + 2; /* the white margin too */
    double cx = x < 0.5 * vw->mat_w ? 0 : vw->mat_w, cy = y < 0.5 * vw->mat_h ? 0 : vw->mat_h;
    return fabs(x - cx) < m && fabs(y - cy) < m;
}

double vis__qw_hue_dist(double a, double b)
{
    double d = fabs(a - b);
    return d > 90 ? 180 - d : d;
}

/* The profile colour nearest blob b's hue. */
int vis__qw_colour_of(const vis_qwirkle *q, const vis__qw_blob *b)
{
    double hue, sat, val, d1 = 1e9;
    int col = 0;
    vis__qw_hsv(b->sb / b->sw, b->sg / b->sw, b->sr / b->sw, &hue, &sat, &val);
    for (int k = 0; k < 6; k++)
        if (vis__qw_hue_dist(hue, q->prof.hue[k]) < d1) {
            d1 = vis__qw_hue_dist(hue, q->prof.hue[k]);
            col = k;
        }
    return col;
}

void vis__qw_origin(const vis_view *vw, double *x0, double *y0)
{
    *x0 = vw->roi ? vw->x0_mm : -vw->margin_mm;
    *y0 = vw->roi ? vw->y0_mm : -vw->margin_mm;
}


/* Classifies every pixel: out of the play area, table, dark body, symbol
 * colour; fills val (brightness) and rgb (white-balanced colour).  Returns
 * the number of play-area pixels; *dark is the body threshold used. */
long vis__qw_classify(vis_qwirkle *q, const vis_image *top, const vis_view *vw, int *dark)
{
    const int w = top->width, h = top->height;
    const double px = 1.0 / vw->px_per_mm, cube = q->cube_mm;
    double x0, y0;
    int hist[256] = {0};
    long nplay = 0;
    vis__qw_origin(vw, &x0, &y0);
    for (int y = 0; y < h; y++) {
        const unsigned char *row = top->data + (size_t)y * top->stride;
        double ty = (y + 0.5) * px + y0;
        /* only rows through the markers need the test (a call a pixel was
         * a twentieth of the reading's time) */
        const double mk = 0.5 * vw->marker_mm + vw->marker_mm / 6 + 2;
        const bool mrow = fabs(ty) < mk || fabs(ty - vw->mat_h) < mk;
        for (int x = 0; x < w; x++) {
            size_t i = (size_t)y * w + x;
            double tx = (x + 0.5) * px + x0;
            bool in = tx > -cube && ty > -cube && tx < vw->mat_w + cube &&
                      ty < vw->mat_h + cube && !(mrow && vis__qw_in_marker(vw, tx, ty));
            float b = row[3 * x] * vw->gain[0], g = row[3 * x + 1] * vw->gain[1],
                  r = row[3 * x + 2] * vw->gain[2];
            float mx = b > g ? b : g;
            mx = mx > r ? mx : r; /* not fmaxf: a libm call per pixel */
            q->rgb[3 * i] = b;
            q->rgb[3 * i + 1] = g;
            q->rgb[3 * i + 2] = r;
            q->val[i] = (unsigned char)(mx > 255 ? 255 : mx);
            q->cls[i] = in ? QW__TABLE : QW__OUT;
            if (in) {
                hist[q->val[i]]++;
                nplay++;
            }
        }
    }
    if (vw->dark > 0) {
        *dark = vw->dark;
    } else {
        /* Black cubes are far darker than any usable table: half the
         * median brightness, within sane bounds. */
        long acc = 0;
        int med = 0;
        while (med < 255 && acc + hist[med] < nplay / 2)
            acc += hist[med++];
        *dark = med / 2 < QW__DARK_MIN ? QW__DARK_MIN : med / 2 > 150 ? 150 : med / 2;
    }

    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            size_t i = (size_t)y * w + x;
            float b, g, r, mx, mn;
            if (q->cls[i] == QW__OUT)
                continue;
            b = q->rgb[3 * i];
            g = q->rgb[3 * i + 1];
            r = q->rgb[3 * i + 2];
            mx = b > g ? b : g;
            mx = mx > r ? mx : r;
            mn = b < g ? b : g;
            mn = mn < r ? mn : r;
            if (q->val[i] < *dark) {
                q->cls[i] |= QW__DARK;
                if (mx - mn > 0.33f * mx && mx - mn > 16 && mx > 40)
                    q->cls[i] |= QW__WEAK;
                continue;
            }
            /* Saturated and clearly brighter than the body. */
            if (mx - mn > 0.33f * mx && mx - mn > 24 && mx > 40)
                q->cls[i] |= QW__SYM;
            /* Tinted: a thin symbol's colour greyed by a coarse camera's
             * JPEG, whose chroma blocks (16 px: 27 mm at 0.6 px/mm) mix a
             * saturated table of the opposite hue into it (sim seed
             * 600016: a purple star4 on green felt at 0.30 of its
             * brightness, the other purple symbols 0.68); 12 levels is
             * above a grey body's noise.  Such blobs are kept only by
             * their printed shape (vis__qw_table_symbols). */
            else if (mx - mn > 0.2f * mx && mx - mn > 12 && mx > 40)
                q->cls[i] |= QW__TINT;
        }
    return nplay;
}

int vis__qw_begin(vis_qwirkle *q, const vis_image *top, const vis_view *vw, double *x0,
                  double *y0, int *dark, base_err *err)
{
    if (vis__qw_reserve(q, top->width, top->height) != 0)
        return base_err_set(err, BASE_ENOMEM, "out of memory");
    vis__qw_origin(vw, x0, y0);
    if (vis__qw_classify(q, top, vw, dark) == 0)
        return base_err_set(err, BASE_ERANGE, "the view shows none of the play area");
    return 0;
}


double vis__qw_ring(const vis_qwirkle *q, const vis__qw_seg *g, const vis__qw_blob *b, double *lo);

/* The blob of pixels pix[0..n) (labelled lab): kept when it has a
 * symbol's size and dark body around it. */
void vis__qw_accept(vis_qwirkle *q, vis__qw_seg *g, const int *pix, int n, int lab)
{
    const int w = g->w, h = g->h;
    double area = n * g->px * g->px;
    int cx, cy, all = 0, dk = 0, lim;
    vis__qw_blob b;
    if (area < g->amin || area > g->amax || g->nb >= QW__MAXBLOBS)
        return;
    memset(&b, 0, sizeof b);
    for (int k = 0; k < n; k++) {
        int i = pix[k], x = i % w, y = i / w;
        double tx = (x + 0.5) * g->px + g->x0, ty = (y + 0.5) * g->px + g->y0;
        double wgt = q->val[i];
        b.n++;
        b.sx += tx;
        b.sy += ty;
        b.sxx += tx * tx;
        b.syy += ty * ty;
        b.sxy += tx * ty;
        b.sw += wgt;
        b.sb += wgt * q->rgb[3 * (size_t)i];
        b.sg += wgt * q->rgb[3 * (size_t)i + 1];
        b.sr += wgt * q->rgb[3 * (size_t)i + 2];
    }
    b.x = b.sx / b.n;
    b.y = b.sy / b.n;
    cx = (int)floor((b.x - g->x0) / g->px);
    cy = (int)floor((b.y - g->y0) / g->px);
    /* Body around it: the face box less the symbol, darker than the body
     * threshold or well below the symbol's brightness (a glossy top under
     * a bright lamp is grey, a symbol on a black table dim). */
    lim = (int)fmax(g->dark, 0.55 * b.sw / b.n);
    for (int y = cy - g->fr; y <= cy + g->fr; y++)
        for (int x = cx - g->fr; x <= cx + g->fr; x++) {
            size_t j;
            if (x < 0 || y < 0 || x >= w || y >= h)
                continue;
            j = (size_t)y * w + x;
            if (q->lab[j] == lab || q->cls[j] == QW__OUT)
                continue;
            all++;
            dk += q->val[j] < lim;
        }
    b.darkfrac = all > 0 ? (float)dk / (float)all : 0.f;
    if (b.darkfrac < g->min_dark) {
        /* A glossy body in a lamp's glare can be as bright as a dim
         * symbol's blurred mean (sim seed 900041: a green star4 at 86,
         * its body 45-55 on a table of 80).  It is still a body: darker
         * than the table all round the symbol, which a bright spot of
         * the table itself is not.  (A ring at 0.8 of the peak, as for
         * the dim symbols, let in more: the live referee test lost a
         * take-back.) */
        double lo = 255, ring = g->tval > 0 ? vis__qw_ring(q, g, &b, &lo) : 1;
        if (!(ring < 0.6 && lo < 0.75 * g->tval))
            return;
    }
    q->blobs[g->nb++] = b;
}

/* Grows the pixel list list[0..m) (8-neighbours) through pixels labelled
 * from (-1: unlabelled) of a class in mask (0: any) at least t bright,
 * labelling them lab; when seed >= 0 the list starts as that pixel alone.
 * Returns the new length. */
long vis__qw_flood(vis_qwirkle *q, const vis__qw_seg *g, int seed, int from, int mask, int lab,
                      int t, int *list, long m)
{
    const int w = g->w, h = g->h;
    long head = 0;
    if (seed >= 0) {
        q->lab[seed] = lab;
        list[m++] = seed;
    }
    /* the 8 neighbours in the order the edge's loop takes them (the
     * list's order, and so the blobs' sums, are the same either way) */
    const long off[8] = {-(long)w - 1, -(long)w, -(long)w + 1, -1, 1, w - 1, w, w + 1};
    while (head < m) {
        int i = list[head++], x = i % w, y = i / w;
        if (x > 0 && y > 0 && x < w - 1 && y < h - 1) {
            /* inside: no bounds to check (most pixels; the flood is a
             * fifth of the reading's time) */
            for (int k = 0; k < 8; k++) {
                const long j = i + off[k];
                if (q->lab[j] == from && (!mask || (q->cls[j] & mask)) && q->val[j] >= t) {
                    q->lab[j] = lab;
                    list[m++] = (int)j;
                }
            }
            continue;
        }
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                int xx = x + dx, yy = y + dy;
                size_t j;
                if (xx < 0 || yy < 0 || xx >= w || yy >= h)
                    continue;
                j = (size_t)yy * w + xx;
                if (q->lab[j] == from && (!mask || (q->cls[j] & mask)) && q->val[j] >= t) {
                    q->lab[j] = lab;
                    list[m++] = (int)j;
                }
            }
    }
    return m;
}

/* Connected parts (8-neighbours) of the pixels pix[0..n) that are at
 * least t bright, written one after the other to out; each gets a new
 * label.  Returns how many pixels were written, -1 when out has no room. */
long vis__qw_parts(vis_qwirkle *q, vis__qw_seg *g, const int *pix, int n, int t, int *out)
{
    const int mark = -2;
    long m = 0;
    if ((size_t)(out - q->stack) + (size_t)n > g->cap)
        return -1;
    for (int k = 0; k < n; k++)
        if (q->val[pix[k]] >= t)
            q->lab[pix[k]] = mark;
    for (int k = 0; k < n; k++)
        if (q->lab[pix[k]] == mark)
            m += vis__qw_flood(q, g, pix[k], mark, 0, g->nextlab++, 0, out + m, 0);
    return m;
}

void vis__qw_split_parts(vis_qwirkle *q, vis__qw_seg *g, int *out, long m, int depth, int *scratch);
bool vis__qw_table_colour(const vis_qwirkle *q, const vis_view *vw, int w, int h, double med[3],
                             double spread[3]);

/* Whether the table's colour med is grey enough that a dark saturated
 * patch on it is no table in shade (see vis__qw_dim_blobs). */
bool vis__qw_neutral_table(const double med[3])
{
    double mx = fmax(med[0], fmax(med[1], med[2])), mn = fmin(med[0], fmin(med[1], med[2]));
    return mx > 0 && mx - mn < 0.25 * mx;
}

/* A component too large for one symbol is several symbols, or symbols and
 * a saturated table, joined by blur through the dim body between them:
 * raising the brightness threshold splits it where the body dips.  The
 * parts go to q->stack from out on. */
void vis__qw_split(vis_qwirkle *q, vis__qw_seg *g, const int *pix, int n, int lab, int depth,
                      int *out)
{
    int vmin = 255, vmax = 0, t;
    long m;
    if (n * g->px * g->px <= g->amax) {
        vis__qw_accept(q, g, pix, n, lab);
        return;
    }
    if (depth >= 12)
        return;
    for (int k = 0; k < n; k++) {
        int v = q->val[pix[k]];
        vmin = v < vmin ? v : vmin;
        vmax = v > vmax ? v : vmax;
    }
    t = vmin + (vmax - vmin) / 10 > vmin + 6 ? vmin + (vmax - vmin) / 10 : vmin + 6;
    if (t >= vmax || (m = vis__qw_parts(q, g, pix, n, t, out)) <= 0)
        return;
    vis__qw_split_parts(q, g, out, m, depth + 1, out + m);
}

/* Each of the parts out[0..m) (as vis__qw_parts leaves them: contiguous, one
 * label each) of a symbol's size or more, split further. */
void vis__qw_split_parts(vis_qwirkle *q, vis__qw_seg *g, int *out, long m, int depth, int *scratch)
{
    for (long start = 0, end; start < m; start = end) {
        int plab = q->lab[out[start]];
        for (end = start + 1; end < m && q->lab[out[end]] == plab; end++)
            ;
        if ((end - start) * g->px * g->px >= g->amin)
            vis__qw_split(q, g, out + start, (int)(end - start), plab, depth, scratch);
    }
}

/* How clearly blob b is ringed by darker body: along each of 8 rays from
 * its centre out past a face's edge, the darkest point against the
 * blob's peak; returns the largest of those ratios (a top face's symbol
 * dips into its body every way, a patch of shade beside a cube only
 * toward the cube), and *lo_out gets that ray's darkest value. */
double vis__qw_ring(const vis_qwirkle *q, const vis__qw_seg *g, const vis__qw_blob *b, double *lo_out)
{
    const double ppm = 1.0 / g->px, cube = q->cube_mm;
    int peak = 0;
    double worst = 0;
    for (int d = 0; d < 8; d++) {
        double ca = cos(d * QW__PI / 4), sa = sin(d * QW__PI / 4);
        int lo = 255;
        for (double r = 0; r <= 0.56 * cube; r += 0.5 / ppm + 0.01) {
            int x = (int)floor((b->x + r * ca - g->x0) * ppm);
            int y = (int)floor((b->y + r * sa - g->y0) * ppm);
            int v;
            if (x < 0 || y < 0 || x >= g->w || y >= g->h)
                break;
            v = q->val[(size_t)y * g->w + x];
            if (r < 0.15 * cube)
                peak = v > peak ? v : peak;
            else
                lo = v < lo ? v : lo;
        }
        worst = fmax(worst, lo);
    }
    *lo_out = worst;
    return peak > 0 ? worst / peak : 1;
}

/* A segmentation's view: vw, w x h pixels, the rest zero. */
void vis__qw_seg_init(vis__qw_seg *g, const vis_view *vw, int w, int h)
{
    memset(g, 0, sizeof *g);
    g->vw = vw;
    g->w = w;
    g->h = h;
    g->px = 1.0 / vw->px_per_mm;
    vis__qw_origin(vw, &g->x0, &g->y0);
}

/* vis__qw_ring for blob b in the view vw (w x h) as read. */
double vis__qw_ring_at(const vis_qwirkle *q, const vis_view *vw, int w, int h, const vis__qw_blob *b)
{
    vis__qw_seg g;
    double lo;
    vis__qw_seg_init(&g, vw, w, h);
    return vis__qw_ring(q, &g, b, &lo);
}

/* Symbols wholly below the body threshold: on a bright table (half its
 * brightness is the threshold) a blurred green, blue or purple symbol,
 * a thin star4 above all, can peak below it (sim seed 700022, a pale
 * table: whole boards unseen; 900040 on lavender).  Such a symbol is
 * still a saturated patch, so connected dark saturated pixels not yet in
 * any blob are cut at half their peak and kept as symbols when
 * - they are no nearer than 0.85 cube to a blob found already (the dim
 *   rim of a bright symbol, or its side face), and
 * - the body rings them: every way out to past the face's edge the view
 *   dips to under 0.8 of their peak (a cube's shadow on a cream table,
 *   saturated by the ambient light's colour, dips only toward the cube).
 * Only on a grey table (vis__qw_neutral_table): on a coloured one (wood,
 * felt) its own shade is dark and saturated everywhere. */
void vis__qw_dim_blobs(vis_qwirkle *q, vis__qw_seg *g)
{
    const int w = g->w, h = g->h, nb0 = g->nb;
    int k = nb0;
    for (size_t s = 0; s < (size_t)w * h; s++) {
        int *list = q->stack, lab, peak = 0;
        long m, n2;
        if (!(q->cls[s] & QW__WEAK) || q->lab[s] != -1)
            continue;
        lab = g->nextlab++;
        m = vis__qw_flood(q, g, (int)s, -1, QW__SYM | QW__WEAK, lab, 0, list, 0);
        if (m * g->px * g->px < g->amin)
            continue;
        for (long j = 0; j < m; j++)
            peak = q->val[list[j]] > peak ? q->val[list[j]] : peak;
        n2 = vis__qw_parts(q, g, list, (int)m, peak / 2 > 40 ? peak / 2 : 40, list + m);
        if (n2 > 0)
            vis__qw_split_parts(q, g, list + m, n2, 0, list + m + n2);
    }
    for (int i = nb0; i < g->nb; i++) {
        const vis__qw_blob *b = &q->blobs[i];
        bool near = false;
        for (int j = 0; j < nb0 && !near; j++)
            near = hypot(b->x - q->blobs[j].x, b->y - q->blobs[j].y) < 0.85 * q->cube_mm;
        double lo;
        if (!near && vis__qw_ring(q, g, b, &lo) < 0.8)
            q->blobs[k++] = *b;
    }
    g->nb = k;
}

/* Connected symbol-coloured blobs (8-neighbours) with dark body around
 * them, of a symbol's size, and on a grey table the symbols below the
 * body threshold too (vis__qw_dim_blobs).  Returns how many are in q->blobs.
 * When tint is given, the blobs of tinted pixels (QW__TINT) that pass the
 * same tests go to tint[0..*ntint), at most maxtint of them.  A greyed
 * symbol is ringed by its black body, which ends its flood; a tinted
 * region too large for one symbol is a pale tinted table or wood's pale
 * grain, and is not split (splitting them all cost 0.7 ms a frame, +6 %,
 * and found nothing more on the bench). */
int vis__qw_blobs(vis_qwirkle *q, const vis_view *vw, int w, int h, const int *dark,
                     float min_dark, vis__qw_blob *tint, int *ntint, int maxtint)
{
    vis__qw_seg g;
    double med[3], spread[3];
    bool dim = false;
    const double cube = q->cube_mm;
    vis__qw_seg_init(&g, vw, w, h);
    g.amin = 0.025 * cube * cube;
    g.amax = 0.45 * cube * cube;
    g.fr = (int)(0.45 * cube * vw->px_per_mm + 0.5);
    g.dark = *dark;
    g.min_dark = min_dark;
    g.cap = q->cap * QW__LISTS;
    if (vis__qw_table_colour(q, vw, w, h, med, spread)) {
        g.tval = fmax(med[0], fmax(med[1], med[2]));
        dim = vis__qw_neutral_table(med);
    }
    for (size_t i = 0; i < (size_t)w * h; i++)
        q->lab[i] = -1;
    for (int sy = 0; sy < h; sy++)
        for (int sx = 0; sx < w; sx++) {
            size_t s = (size_t)sy * w + sx;
            int *list = q->stack, lab;
            long m;
            if (!(q->cls[s] & QW__SYM) || q->lab[s] != -1)
                continue;
            lab = g.nextlab++;
            m = vis__qw_flood(q, &g, (int)s, -1, QW__SYM, lab, 0, list, 0);
            if (m * g.px * g.px < g.amin && m * g.px * g.px >= 0.25 * g.amin) {
                /* Too small at the body threshold: a dim symbol (purple,
                 * blue) on a bright table, or a thin star blurred, may
                 * show only its peak above it.  Grown again from that
                 * peak down to half of it, through saturated pixels.  A
                 * peak smaller than a quarter of the least symbol is left
                 * alone: grown, such glints (on side faces in shade) made
                 * more false cubes than the dim symbols they found. */
                int peak = 0;
                for (long k = 0; k < m; k++)
                    peak = q->val[list[k]] > peak ? q->val[list[k]] : peak;
                m = vis__qw_flood(q, &g, -1, -1, QW__SYM | QW__WEAK, lab, peak / 2 > 40 ? peak / 2 : 40,
                              list, m);
            }
            if (m * g.px * g.px >= g.amin)
                vis__qw_split(q, &g, list, (int)m, lab, 0, list + m);
        }
    if (dim)
        vis__qw_dim_blobs(q, &g);
    if (tint) {
        const int nb0 = g.nb;
        for (size_t s = 0; s < (size_t)w * h; s++) {
            int *list = q->stack, lab;
            long m;
            if (!(q->cls[s] & QW__TINT) || q->lab[s] != -1)
                continue;
            lab = g.nextlab++;
            m = vis__qw_flood(q, &g, (int)s, -1, QW__TINT, lab, 0, list, 0);
            if (m * g.px * g.px >= g.amin && m * g.px * g.px <= g.amax)
                vis__qw_accept(q, &g, list, (int)m, lab);
        }
        *ntint = 0;
        for (int i = nb0; i < g.nb && *ntint < maxtint; i++)
            tint[(*ntint)++] = q->blobs[i];
        g.nb = nb0;
    }
    return g.nb;
}

/* ---- side faces ---- */

/* The fraction of pixels darker than lim over two boxes given in table mm
 * by a centre line from (x, y) along (nx, ny) for s0..s1 mm and, across
 * it, t0..t1 mm to either side: the lower of the two sides' fractions (a
 * cube's shadow may darken one), -1 when a box is too small or out of
 * view. */
double vis__qw_dark_box(const vis_qwirkle *q, const vis_view *vw, int w, int h, double x,
                           double y, double nx, double ny, double s0, double s1, double t0,
                           double t1, int lim)
{
    const double ppm = vw->px_per_mm, st = 1.0 / ppm;
    double x0, y0, lo = 1;
    if (s1 - s0 < 1.5)
        return -1;
    vis__qw_origin(vw, &x0, &y0);
    for (int side = -1; side <= 1; side += 2) {
        int cnt = 0, dk = 0;
        for (double s = s0; s <= s1; s += st)
            for (double t = t0; t <= t1; t += st) {
                double tx = x + s * nx - side * t * ny, ty = y + s * ny + side * t * nx;
                int px = (int)floor((tx - x0) * ppm), py = (int)floor((ty - y0) * ppm);
                if (px < 0 || py < 0 || px >= w || py >= h)
                    continue;
                cnt++;
                dk += q->val[(size_t)py * w + px] < lim;
            }
        if (cnt < 2)
            return -1;
        lo = fmin(lo, (double)dk / cnt);
    }
    return lo;
}

/* Whether blob b, in the cell next to the cube whose symbol is blob a, on
 * the camera's side of a, is better explained as a's side face than as a
 * top face.  n = (nu, nv) is the unit step from a's cell toward b's in grid
 * axes, (cx, cy) b's cell centre (table mm), lim the body's brightness
 * limit and dw how far darkness tells body from table (0..1).  The cues:
 * where b's centre falls (a side face projects toward the camera's foot
 * across n too), how elongated b is along the camera's
 * direction (all six symbols have isotropic second moments, so a top is
 * round in that sense), whether b's cell is body beyond where a side face
 * would end (a real top covers the whole cell), whether there is body
 * beyond b's cell (a real cube shows its own side there), and whether a
 * symbol shows where b's own side face would (bl[0..nb): all blobs),
 * whether b has a's colour and, if so, about its brightness (*margin
 * gets the top's score less the side's). */
bool vis__qw_is_side(const vis_qwirkle *q, const vis_view *vw, int w, int h, const vis__qw_blob *b,
                        const vis__qw_blob *a, double ca, double sa, double cx, double cy, int nu,
                        int nv, int lim, double dw, double beyond_dark, bool beyond_known,
                        const vis__qw_blob *bl, int nb, double *margin)
{
    const double half = 0.4875 * q->cube_mm, hgt = 0.975 * q->cube_mm;
    const double *C = vw->cam_mm;
    const double nx = nu * ca - nv * sa, ny = nu * sa + nv * ca;
    /* the face's centre line on a's side toward b, table coordinates */
    const double fx = a->x + half * nx, fy = a->y + half * ny;
    const double zt = q->cube_mm; /* the view's plane */
    double L, e, var_n, var_p, r, dpos, ds, dr, near, pt[3][2];
    double mx, my, cxx, cyy, cxy, score_side, score_real;
    if (!(C[2] > zt + 1))
        return false;
    /* camera on the outer side of the face's plane? */
    if ((C[0] - fx) * nx + (C[1] - fy) * ny <= 0)
        return false;
    /* A face point at height z projects onto the plane zt at
     * C + (P - C) (C_z - zt) / (C_z - z): the top edge, middle, bottom. */
    for (int k = 0; k < 3; k++) {
        double z = hgt * (1 - 0.5 * k), f = (C[2] - zt) / (C[2] - z);
        pt[k][0] = C[0] + (fx - C[0]) * f;
        pt[k][1] = C[1] + (fy - C[1]) * f;
    }
    L = fabs((pt[2][0] - pt[0][0]) * nx + (pt[2][1] - pt[0][1]) * ny);
    e = L / (2 * half);
    dpos = 1.6; /* mm: placement jitter of two cubes */
    ds = (b->x - pt[1][0]) * (b->x - pt[1][0]) + (b->y - pt[1][1]) * (b->y - pt[1][1]);
    dr = (b->x - cx) * (b->x - cx) + (b->y - cy) * (b->y - cy);
    mx = b->sx / b->n;
    my = b->sy / b->n;
    cxx = b->sxx / b->n - mx * mx;
    cyy = b->syy / b->n - my * my;
    cxy = b->sxy / b->n - mx * my;
    var_n = cxx * nx * nx + 2 * cxy * nx * ny + cyy * ny * ny;
    var_p = cxx * ny * ny - 2 * cxy * nx * ny + cyy * nx * nx;
    {
        /* the pixel's own spread, so that tiny blobs are not all round */
        double pv = 1.0 / (12 * vw->px_per_mm * vw->px_per_mm);
        r = sqrt((var_n + pv) / (var_p + pv));
    }
    {
        /* how far the elongation can be trusted: a symbol's blob is 80-170
         * mm^2, and a smaller one (a dim side face, a thin star cut at the
         * body threshold) is a few pixels across along n, its measured
         * elongation far from its shape's (sim seeds 700021, 900034:
         * 14-17 mm^2 blobs, a side measured 0.93 where 0.30 was due) */
        double area = b->n / (vw->px_per_mm * vw->px_per_mm), sr = 0.2 * fmax(1, sqrt(160 / area));
        /* A blurred side's blob is grown by the blur every way, which
         * rounds it: a symbol's own spread along an axis (about (0.15
         * cube)^2) squashed by e, plus the blur's (the last reading's: the
         * blur is fitted after this test, and a camera's changes little
         * from frame to frame).  Sim seed 700012: blur 2 mm, a side face
         * measured 1.13 where e was 0.40, read as a cube. */
        double sv = 0.0225 * q->cube_mm * q->cube_mm, bv = q->last_blur * q->last_blur;
        double es = sqrt((e * e * sv + bv) / (sv + bv));
        score_side = -ds / (2 * dpos * dpos) - (log(r) - log(es)) * (log(r) - log(es)) / (2 * sr * sr);
        score_real = -dr / (2 * dpos * dpos) - log(r) * log(r) / (2 * sr * sr);
    }
    /* The cell's corners beyond the side face's far edge, clear of any
     * symbol: a real top's body, the table when b is a side. */
    near = lim <= 0 || dw <= 0
               ? -1
               : vis__qw_dark_box(q, vw, w, h, pt[0][0], pt[0][1], nx, ny, L + 1.5, 2 * half - 1,
                                   0.36 * q->cube_mm, 0.46 * q->cube_mm, lim);
    if (near >= 0) {
        score_real += 4 * dw * (near - 0.5);
        score_side -= 4 * dw * (near - 0.5);
    }
    if (beyond_known && L > 4) {
        score_real += 3 * dw * (beyond_dark - 0.5);
        score_side -= 3 * dw * (beyond_dark - 0.5);
    }
    if (beyond_known && L > 6) {
        /* Qwirkle cubes are dice: a real cube at b shows a symbol on its own
         * side face too, where b's side would project.  Not found there is
         * weaker evidence (a side in shade may be too dim to be a blob). */
        double gx = cx + half * nx, gy = cy + half * ny, f = (C[2] - zt) / (C[2] - 0.5 * hgt);
        double px = C[0] + (gx - C[0]) * f, py = C[1] + (gy - C[1]) * f;
        bool own = false;
        for (int j = 0; j < nb && !own; j++)
            if (&bl[j] != b && &bl[j] != a &&
                (bl[j].x - px) * (bl[j].x - px) + (bl[j].y - py) * (bl[j].y - py) < 9)
                own = true;
        if (own)
            score_real += 3;
        else
            score_side += 3;
    }
    /* A side face is a's own, and a Qwirkle cube carries one colour on
     * all six faces: a symbol of another colour is no side of a (sim seed
     * 900019: a yellow star4 next to an orange cube, the other cues all
     * but tied, was dropped as its side).  Not a veto: a dim side in
     * shade can take a neighbouring hue (700012). */
    if (vis__qw_colour_of(q, a) != vis__qw_colour_of(q, b))
        score_real += 3;
    else if (fabs(log((b->sw / b->n) / (a->sw / a->n))) < log(1.25))
        /* of a's colour and about as bright as a's symbol: a top under the
         * same light (a side face faces the light otherwise, and is
         * mostly dimmer: sim seed 900008, a side half as bright) */
        score_real += 3 * (1 - fabs(log((b->sw / b->n) / (a->sw / a->n))) / log(1.25));
    else if (b->sw / b->n < 0.7 * (a->sw / a->n))
        /* far dimmer than a's symbol: turned away from the light, as a
         * side face is under a lamp above the table (sim seed 900034: a
         * side at 45 degrees, 0.58 of its top's brightness, read as a
         * yellow star4 at conf 1.0) */
        score_side += 3 * fmin(1, log(0.7 * (a->sw / a->n) / (b->sw / b->n)) / log(1.4));
    *margin = score_real - score_side;
    return score_side > score_real;
}

/* ---- the reading ---- */

/* How the table and the cubes' bodies differ in brightness: the table's
 * level is the median of a band along the view's edge (a roi view keeps
 * two cubes of table around the board), the bodies' the 20th percentile
 * of the squares around the symbols (a cube's face, symbol and body; the
 * 10th percentile of the whole play area was the cubes' shadows on a
 * small board).  *lim gets a threshold between the two and the return
 * value how far they are apart (0: a black table, darkness says nothing
 * about body; 1: clearly apart). */
double vis__qw_body_contrast(const vis_qwirkle *q, const vis_view *vw, int w, int h,
                                const vis__qw_blob *bl, int nb, int *lim)
{
    const int band = (int)(0.9 * q->cube_mm * vw->px_per_mm);
    const int hs = (int)(0.42 * q->cube_mm * vw->px_per_mm);
    int edge[256] = {0}, all[256] = {0};
    long ne = 0, na = 0, acc;
    int t = 0, b = 0;
    double x0, y0;
    vis__qw_origin(vw, &x0, &y0);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            size_t i = (size_t)y * w + x;
            if (q->cls[i] == QW__OUT)
                continue;
            if (x < band || y < band || x >= w - band || y >= h - band) {
                edge[q->val[i]]++;
                ne++;
            }
        }
    for (int k = 0; k < nb; k++) {
        int cx = (int)floor((bl[k].x - x0) * vw->px_per_mm);
        int cy = (int)floor((bl[k].y - y0) * vw->px_per_mm);
        for (int y = cy - hs; y <= cy + hs; y++)
            for (int x = cx - hs; x <= cx + hs; x++) {
                size_t i = (size_t)y * w + x;
                if (x < 0 || y < 0 || x >= w || y >= h || q->cls[i] == QW__OUT)
                    continue;
                all[q->val[i]]++;
                na++;
            }
    }
    if (ne < 10 || na < 10) {
        *lim = 0;
        return 0;
    }
    for (acc = 0; t < 255 && acc + edge[t] < ne / 2; t++)
        acc += edge[t];
    for (acc = 0; b < 255 && acc + all[b] < na / 5; b++)
        acc += all[b];
    b = b < 4 ? 4 : b;
    /* nearer the body than the table: a cube's shadow on the table is
     * often a third of the table's brightness, and is no body */
    *lim = (int)(b + 0.2 * (t - b));
    return fmin(1.0, fmax(0.0, ((double)t / b - 1.5) / 1.5));
}


/* The 10th, 50th and 90th percentile bins (out[0..2]) of a histogram of
 * nbin bins holding n samples. */
void vis__qw_deciles(const int *hist, int nbin, long n, int out[3])
{
    long acc = 0;
    out[0] = out[1] = out[2] = -1;
    for (int v = 0; v < nbin; v++) {
        acc += hist[v];
        if (out[0] < 0 && acc >= n / 10)
            out[0] = v;
        if (out[1] < 0 && acc >= n / 2)
            out[1] = v;
        if (out[2] < 0 && acc >= n - n / 10)
            out[2] = v;
    }
}

/* The table's colour (white-balanced B, G, R) and its spread: per channel,
 * the median and half the 10-90 % range of the pixels in the view's edge
 * band (a roi view keeps two cubes of table around the board) that are
 * neither out of the play area nor body.  False when too few. */
bool vis__qw_table_colour(const vis_qwirkle *q, const vis_view *vw, int w, int h, double med[3],
                             double spread[3])
{
    const int band = (int)(0.9 * q->cube_mm * vw->px_per_mm);
    static const int nbin = 256;
    int hist[3][256];
    long n = 0;
    memset(hist, 0, sizeof hist);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            size_t i = (size_t)y * w + x;
            if (q->cls[i] == QW__OUT || (q->cls[i] & QW__DARK) ||
                !(x < band || y < band || x >= w - band || y >= h - band))
                continue;
            for (int c = 0; c < 3; c++) {
                float v = q->rgb[3 * i + c];
                hist[c][v >= nbin - 1 ? nbin - 1 : (int)v]++;
            }
            n++;
        }
    if (n < 50)
        return false;
    for (int c = 0; c < 3; c++) {
        int d[3];
        vis__qw_deciles(hist[c], nbin, n, d);
        med[c] = d[1] + 0.5;
        spread[c] = 0.5 * (d[2] - d[0]);
    }
    return true;
}

/* Whether blob b's colour is the table's (med, with spread) under the same
 * or less light: a * med with 0.1 <= a <= 1.05, within a few levels.  On
 * a saturated table (blue or green felt) the table seen between cubes, or
 * in a cube's shade beside them, is a saturated patch with dark body
 * around it, like a symbol.  A symbol of another hue is off the table's
 * colour line, and one of the table's hue is printed brighter than the
 * felt; but a thin one (a star4) blurred by a soft camera can look as dim
 * as the felt in shade (sim seed 700010, green on green felt): such blobs
 * are judged again by their printed shape (vis__qw_table_symbols).  The
 * tolerance grows with the table's level, not the patch's, on a coloured
 * table: JPEG's halved chroma bleeds the
 * neighbouring symbols' colour into a patch in deep shade by a few levels
 * however dark it is (sim seed 900029, brown felt: the shade between
 * orange cubes, a = 0.46, 6 levels off, read as an orange star4 on 5
 * frames).  On a grey table a dim saturated patch is a dim symbol
 * (700022), so there it stays the patch's own level.
 * grained: the table is wood (its spread is wide), and its shade is near
 * a dim orange symbol's colour (900001), so the colour line is held to
 * within 8 % of the patch's level (holes in the board and the shade
 * between cubes were 0.1-6.2 % off it, the dim orange symbols on wood
 * 9.7-14 %), and a may reach 1.2 (a lamp lights the board's middle more
 * than the view's edge: holes in the board, sim seeds 900006, 900023).
 * k scales the colour line's tolerance (1: the test itself). */
bool vis__qw_table_shade(const vis__qw_blob *b, const double med[3], const double spread[3],
                            bool grained, double k)
{
    const double p[3] = {b->sb / b->sw, b->sg / b->sw, b->sr / b->sw};
    double pm = 0, mm = 0, res = 0, a, tol, lvl;
    for (int c = 0; c < 3; c++) {
        pm += p[c] * med[c];
        mm += med[c] * med[c];
    }
    if (mm < 1)
        return false;
    a = pm / mm;
    /* felt: up to 4 levels more light than the view's edge too (the
     * lens's vignette lights the middle: sim seed 900022, blue felt, the
     * table seen in a hole of the board 1.05x, read as a blue square) */
    if (grained ? a < 0.1 || a > 1.2 : a < 0.1 || a > 1.05 + 12 / (med[0] + med[1] + med[2])) {
        return false;
    }
    for (int c = 0; c < 3; c++)
        res += (p[c] - a * med[c]) * (p[c] - a * med[c]);
    lvl = (vis__qw_neutral_table(med) ? p[0] + p[1] + p[2] : med[0] + med[1] + med[2]) / 3;
    tol = grained ? 0.08 * (p[0] + p[1] + p[2]) / 3
                  : 3 + 0.06 * lvl + 0.5 * a * (spread[0] + spread[1] + spread[2]) / 3;
    return sqrt(res / 3) < k * tol;
}


/* Blobs of the table's colour that are symbols after all: a cube whose
 * colour is the table's (green on green felt) shows a symbol that
 * vis__qw_table_shade takes for the table in shade (sim seed 700010: a green
 * diamond and star4, a = 0.84-1.05 of the felt's colour, dropped on every
 * frame).  The colour cannot tell them apart, but the structure can: a
 * cube's top carries one of the six printed shapes, centred in its face
 * and ringed by its black body, and the table between or beside cubes
 * (a hole in the board, the shade beside a cube) has no such shape.  So
 * each such blob (tab[0..ntab)) that lies on a cell of the grid fitted
 * without them (within 0.3 cube of its centre; the table's patches are
 * kept out of the fit, where one could shift the whole grid) which no
 * cube holds is taken as a symbol when the luma around it (the disc the
 * reading uses) fits one of the six templates, at any of the blur steps,
 * by QW__TABSYM_NCC or better.  On the bench the green symbols fit by
 * 0.979-0.992 at their frame's blur, and none of the other 291 such
 * blobs on a free cell (five sets, 1250 frames: holes in boards, shade
 * beside cubes, side faces in shade) by more than 0.872.  A rescued blob
 * then faces the side-face test like any other.  A board of such cubes
 * alone (a first move, green on green felt) gives no grid and is still
 * unseen.  The tinted blobs (QW__TINT: a symbol whose colour a coarse
 * camera's JPEG has greyed) are judged the same way, after the table's.
 * Appended to bl[0..nb) as cells; returns the new count. */
int vis__qw_table_symbols(const vis_qwirkle *q, const vis_view *vw, int w, int h, vis__qw_blob *bl,
                             int nb, const vis__qw_blob *tab, int ntab, double angle, double pitch,
                             double phu, double phv)
{
    const double ca = cos(angle), sa = sin(angle), cube = q->cube_mm;
    for (int t = 0; t < ntab && nb < QW__MAXBLOBS; t++) {
        vis__qw_blob b = tab[t];
        double fu, fv, m = -2;
        bool held = false;
        b.u = b.x * ca + b.y * sa;
        b.v = -b.x * sa + b.y * ca;
        fu = (b.u - phu) / pitch - 0.5;
        fv = (b.v - phv) / pitch - 0.5;
        b.ku = (int)floor(fu + 0.5);
        b.kv = (int)floor(fv + 0.5);
        b.res = pitch * sqrt((fu - b.ku) * (fu - b.ku) + (fv - b.kv) * (fv - b.kv));
        if (b.res >= 0.3 * cube)
            continue;
        for (int j = 0; j < nb && !held; j++)
            held = bl[j].cand && bl[j].ku == b.ku && bl[j].kv == b.kv;
        if (held)
            continue;
        vis__qw_patch_of(q, vw, w, h, &b, 0.38, q->patch);
        if (q->patch->n < 12)
            continue;
        for (int k = 0; k < QW__NSIG && m < QW__TABSYM_NCC; k++) {
            double best[6];
            vis__qw_match(q, q->patch, k, angle, 0, best);
            for (int s = 0; s < 6; s++)
                m = fmax(m, best[s]);
        }
        if (m < QW__TABSYM_NCC)
            continue;
        b.cand = true;
        b.fake = false;
        b.ptop = 1;
        bl[nb++] = b;
    }
    return nb;
}

/* ---- survey ---- */

/* Whether colour p (B, G, R) is the table's colour med under more light:
 * a * med + b * white with a >= 0.9 (a lamp's hot spot) and b >= 0 (its
 * glare), within a few levels.  A lit patch of the table is no hand (a
 * hot spot on a dark table, sim seed 600015, was one on all 10 frames
 * while a < 0.9 was refused rather than fitted on the bound).  Within
 * QW__LIT_TOL levels (root mean square) or 2.5 % of the level: a pixel's
 * own noise (a few levels a channel) leaves that much of the fit
 * unexplained on a dark table, where 2.5 % is a level or two. */
/* 3 levels left 600015's hot spot (survey view's noise 1.6 levels a
 * channel) a hand on 3 frames; 3.5-5 none, with every hand the bench
 * sees still seen; 6 lost hands over cubes (the 300 set: 13 -> 12) */
#define QW__LIT_TOL 4.0
bool vis__qw_lit_table(const unsigned char *p, const double med[3])
{
    double a, b;
    return vis__light_fit(p, med, 0.9, &a, &b) <
           fmax(QW__LIT_TOL, 0.025 * (p[0] + p[1] + p[2]) / 3);
}

int vis_qwirkle_survey(vis_qwirkle *q, const vis_image *top, const vis_view *vw, vis_survey *out,
                       base_err *err)
{
    const int w = top ? top->width : 0, h = top ? top->height : 0;
    const double ppm = vw ? vw->px_per_mm : 0, px = ppm > 0 ? 1.0 / ppm : 0;
    double x0, y0;
    int dark, nb, rc;

    if (!q || !top || !vw || !out || top->channels != 3 || !(ppm > 0))
        return base_err_set(err, BASE_EINVAL, "vis_qwirkle_survey: bad argument");
    memset(out, 0, sizeof *out);
    q->hand = false;
    if ((rc = vis__qw_begin(q, top, vw, &x0, &y0, &dark, err)) != 0)
        return rc;
    out->dark = dark;
    /* lenient: a blob too many only widens the fine view */
    nb = vis__qw_blobs(q, vw, w, h, &dark, 0.25f, NULL, NULL, 0);
    out->x0_mm = out->y0_mm = 1e9;
    out->x1_mm = out->y1_mm = -1e9;
    {
        /* The board is one connected group of cubes: keep the largest group
         * of blobs linked by about a cube's pitch, so that a cube in a hand
         * or a colourful thing beside the board does not widen the view. */
        int *grp = q->lab; /* reused: blob -> group */
        int best = -1, bestn = 0;
        for (int i = 0; i < nb; i++) {
            const vis__qw_blob *b = &q->blobs[i];
            grp[i] = (b->x < -q->cube_mm || b->y < -q->cube_mm || b->x > vw->mat_w + q->cube_mm ||
                      b->y > vw->mat_h + q->cube_mm)
                         ? -2
                         : -1;
        }
        for (int i = 0; i < nb; i++) {
            int sp = 0, cnt = 0;
            if (grp[i] != -1)
                continue;
            grp[i] = i;
            q->stack[sp++] = i;
            while (sp > 0) {
                int a = q->stack[--sp];
                cnt++;
                for (int j = 0; j < nb; j++) {
                    double dx = q->blobs[j].x - q->blobs[a].x, dy = q->blobs[j].y - q->blobs[a].y;
                    if (grp[j] == -1 && dx * dx + dy * dy < 9 * q->cube_mm * q->cube_mm) {
                        grp[j] = i;
                        q->stack[sp++] = j;
                    }
                }
            }
            if (cnt > bestn) {
                bestn = cnt;
                best = i;
            }
        }
        for (int i = 0; i < nb; i++) {
            const vis__qw_blob *b = &q->blobs[i];
            if (grp[i] != best)
                continue;
            out->ncandidates++;
            out->x0_mm = fmin(out->x0_mm, b->x);
            out->y0_mm = fmin(out->y0_mm, b->y);
            out->x1_mm = fmax(out->x1_mm, b->x);
            out->y1_mm = fmax(out->y1_mm, b->y);
        }
        for (int i = 0; i < nb; i++)
            grp[i] = -1;
    }
    if (!out->ncandidates)
        out->x0_mm = out->y0_mm = out->x1_mm = out->y1_mm = 0;

    /* A hand or arm: a large region unlike the table, neither cube body
     * nor symbol, that crosses the edge of the play area.  The table is
     * modelled by the median and spread of each channel over the play
     * area's table pixels (a textured table has a wide spread). */
    {
        int hist[3][256];
        long nt = 0;
        double med[3], spread[3];
        unsigned char *m = q->cls; /* reused: bit 3 = foreign */
        const double min_area = 6.0 * q->cube_mm * q->cube_mm * ppm * ppm;
        long ndark = 0, nin = 0;
        bool dark_table;
        memset(hist, 0, sizeof hist);
        for (size_t i = 0; i < (size_t)w * h; i++) {
            nin += q->cls[i] != QW__OUT;
            ndark += (q->cls[i] & QW__DARK) != 0;
        }
        /* On a black table most of the play area is below the body
         * threshold: the table is what is dark there, and modelled from the
         * rest alone it would be the hand itself (sim seed 900009: a pale
         * hand over the board not reported). */
        dark_table = ndark > nin / 2;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                size_t i = (size_t)y * w + x;
                if (q->cls[i] == QW__OUT || ((q->cls[i] & QW__DARK) && !dark_table))
                    continue; /* a saturated table is table too */
                const unsigned char *p = top->data + (size_t)y * top->stride + 3 * x;
                for (int c = 0; c < 3; c++)
                    hist[c][p[c]]++;
                nt++;
            }
        if (nt < 100)
            return 0;
        for (int c = 0; c < 3; c++) {
            int d[3];
            vis__qw_deciles(hist[c], 256, nt, d);
            med[c] = d[1];
            spread[c] = fmax(12.0, 0.5 * (d[2] - d[0]));
        }
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                size_t i = (size_t)y * w + x;
                const unsigned char *p = top->data + (size_t)y * top->stride + 3 * x;
                double d = 0;
                if (q->cls[i] == QW__OUT)
                    continue;
                for (int c = 0; c < 3; c++)
                    d += fabs(p[c] - med[c]) / spread[c];
                if (d > 7.5 && !(q->cls[i] & QW__DARK) && !vis__qw_lit_table(p, med))
                    m[i] |= 8;
            }
        for (size_t s = 0; s < (size_t)w * h; s++) {
            int sp = 0;
            long area = 0;
            bool edge = false;
            if (!(m[s] & 8))
                continue;
            m[s] &= (unsigned char)~8;
            q->stack[sp++] = (int)s;
            while (sp > 0) {
                int i = q->stack[--sp], x = i % w, y = i / w;
                double tx = (x + 0.5) * px + x0, ty = (y + 0.5) * px + y0;
                area++;
                if (tx < 2 || ty < 2 || tx > vw->mat_w - 2 || ty > vw->mat_h - 2)
                    edge = true;
                for (int k = 0; k < 4; k++) {
                    int xx = x + (k == 0) - (k == 1), yy = y + (k == 2) - (k == 3);
                    if (xx < 0 || yy < 0 || xx >= w || yy >= h)
                        continue;
                    size_t j = (size_t)yy * w + xx;
                    if (m[j] & 8) {
                        m[j] &= (unsigned char)~8;
                        q->stack[sp++] = (int)j;
                    }
                }
            }
            if (edge && area * px * px > out->hand_mm2)
                out->hand_mm2 = area * px * px;
            if (edge && area > min_area)
                out->hand = true;
        }
    }
    q->hand = out->hand;
    return 0;
}

