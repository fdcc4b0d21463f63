/* vision/cards_find.c: where the cards are (see cardsInt.h).
 *
 * On a copy of the view shrunk to about a pixel a millimetre.  The mat's
 * model (its colour: the mode of the view; its brightness: a quadratic
 * surface fitted robustly, with a narrower band above it than below, as
 * cards are brighter) is learnt by the survey of the whole view, where the
 * mat dominates, and kept in the handle: a roi round the cards may be
 * mostly card.  "Ink": another hue than the mat (in absolute terms too:
 * chromaticity is noise on dark pixels), or much darker.  "Card": ink, or
 * brighter than the surface and near-neutral (a bright plank of a wooden
 * table is not), or far brighter; but a coloured mat lit (its colour with
 * some white added: a lamp's pool, a sheen) is the mat.  Large bright
 * regions whose rim is a slow ramp are glare and lose their bright pixels.
 * On a pale neutral mat, where colour cannot tell card stock from mat,
 * sharp brightness steps (outlines) are added.  Then opening, closing,
 * hole filling (a pip-sized hole is print: black pips on a black mat),
 * opening. */
#include "cardsInt.h"
#include "light.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* ---- the view ---- */

int cd__check(const vis_image *top, const vis_view *vw, const char *fn, base_err *err)
{
    if (!top || !vw || !top->data || top->channels != 3 || top->width < 8 || top->height < 8)
        return base_err_set(err, BASE_EINVAL, "%s: expected a colour view of at least 8x8 pixels",
                            fn);
    if (!(vw->px_per_mm > 0.2 && vw->px_per_mm < 50))
        return base_err_set(err, BASE_EINVAL, "%s: view px_per_mm %.3f is outside 0.2..50", fn,
                            vw->px_per_mm);
    if (!(vw->mat_w > 0 && vw->mat_h > 0))
        return base_err_set(err, BASE_EINVAL, "%s: view mat size %.1f x %.1f mm is not positive",
                            fn, vw->mat_w, vw->mat_h);
    return 0;
}

/* Table mm of the top-left corner of view pixel (0, 0). */
void cd__origin(const vis_view *vw, double *x0, double *y0)
{
    if (vw->roi) {
        *x0 = vw->x0_mm;
        *y0 = vw->y0_mm;
    } else {
        *x0 = -vw->margin_mm;
        *y0 = -vw->margin_mm;
    }
}

/* Inside the play area and off the corner markers (and their white
 * margins, which look like card stock), at x on a row whose own tests are
 * done: row_out (the row lies off the play area), row_mk (it crosses the
 * markers' squares, m their size). */
static inline bool cd__on_mat_x(double x, double mat_w, double m, bool row_out, bool row_mk)
{
    if (row_out || x < -4 || x > mat_w + 4)
        return false;
    return !(row_mk && (fabs(x) < m || fabs(x - mat_w) < m));
}

static float cd__gain(const vis_view *vw, int ch)
{
    float g = vw->gain[ch];
    return g > 0.2f && g < 5.f ? g : 1.f;
}

/* The white balance as a table per channel (the same float product and
 * truncation as per pixel). */
static void cd__gain_lut(const vis_view *vw, unsigned char lut[3][256])
{
    for (int k = 0; k < 3; k++) {
        float g = cd__gain(vw, k);
        for (int v = 0; v < 256; v++) {
            float f = v * g;
            lut[k][v] = (unsigned char)(f > 255 ? 255 : f);
        }
    }
}

void cd__det_free(cd__det *d)
{
    free(d->rgb);
    free(d->onmat);
    free(d->mask);
    free(d->edge);
    free(d->ink);
    free(d->ex);
    free(d->tx);
    free(d->ty);
    free(d->glared);
}

int cd__det_make(const vis_image *top, const vis_view *vw, cd__det *d, base_err *err)
{
    vis_image *small = NULL;
    double f = CD__SPPM / vw->px_per_mm;
    int rc;
    memset(d, 0, sizeof *d);
    if (f > 1)
        f = 1;
    d->w = (int)(top->width * f + 0.5);
    d->h = (int)(top->height * f + 0.5);
    if (d->w < 4 || d->h < 4)
        return base_err_set(err, BASE_EINVAL, "vis_cards: view of %dx%d pixels is too small",
                            top->width, top->height);
    d->ppm = vw->px_per_mm * d->w / top->width;
    d->white = vw->white;
    cd__origin(vw, &d->x0, &d->y0);
    /* (a view already at the detection scale is used as it is: the
     * resize would only copy it) */
    const vis_image *src = top;
    if ((d->w != top->width || d->h != top->height) &&
        (rc = vis_resize(top, d->w, d->h, VIS_INTER_AREA, &small, err)) != 0)
        return rc;
    if (small)
        src = small;
    d->rgb = malloc((size_t)d->w * d->h * 3);
    d->onmat = malloc((size_t)d->w * d->h);
    d->mask = calloc((size_t)d->w * d->h, 1);
    d->edge = calloc((size_t)d->w * d->h, 1);
    d->ink = calloc((size_t)d->w * d->h, 1);
    d->tx = malloc(sizeof *d->tx * (size_t)d->w);
    d->ty = malloc(sizeof *d->ty * (size_t)d->h);
    if (!d->rgb || !d->onmat || !d->mask || !d->edge || !d->ink || !d->tx || !d->ty) {
        vis_image_free(small);
        cd__det_free(d);
        return base_err_set(err, BASE_ENOMEM, "vis_cards: out of memory");
    }
    unsigned char lut[3][256];
    cd__gain_lut(vw, lut);
    for (int x = 0; x < d->w; x++)
        d->tx[x] = d->x0 + (x + 0.5) / d->ppm;
    for (int y = 0; y < d->h; y++)
        d->ty[y] = d->y0 + (y + 0.5) / d->ppm;
    /* (sizes and planes in locals: the byte stores would otherwise make
     * the compiler reload them per pixel) */
    const int w = d->w, h = d->h;
    const double *txs = d->tx, mat_w = vw->mat_w;
    /* (tx grows with x: a clear row's clear pixels are one span xa..xb,
     * the same for every row; the exact test only outside it) */
    int xa0 = 0, xb0;
    while (xa0 < w && !(txs[xa0] > 1))
        xa0++;
    xb0 = xa0;
    while (xb0 < w && txs[xb0] < mat_w - 1)
        xb0++;
    for (int y = 0; y < h; y++) {
        const unsigned char *s = src->data + (size_t)y * src->stride;
        unsigned char *o = d->rgb + (size_t)y * w * 3, *om = d->onmat + (size_t)y * w;
        /* (not black: from the balanced values as they are made; the
         * exact test ANDs the rest in below) */
        for (int x = 0; x < w; x++) {
            const int b = lut[0][s[3 * x]], g = lut[1][s[3 * x + 1]], r = lut[2][s[3 * x + 2]];
            o[3 * x] = (unsigned char)b;
            o[3 * x + 1] = (unsigned char)g;
            o[3 * x + 2] = (unsigned char)r;
            om[x] = b + g + r > 12;
        }
        /* black: outside what the camera sees; the exact test only near the
         * play area's edges and its corner markers */
        double ty = d->ty[y], mk = vw->marker_mm > 0 ? vw->marker_mm : 0;
        bool row_clear = ty > mk + 1 && ty < vw->mat_h - mk - 1;
        int xa = row_clear ? xa0 : 0, xb = row_clear ? xb0 : 0;
        /* (the tests on y once per row: the rows of the margins and of
         * the markers' bands, tested pixel by pixel, are a fifth of the
         * survey's view) */
        bool row_out = ty < -4 || ty > vw->mat_h + 4;
        bool row_mk = fabs(ty) < mk || fabs(ty - vw->mat_h) < mk;
        for (int x = 0; x < xa; x++)
            om[x] = cd__on_mat_x(txs[x], mat_w, mk, row_out, row_mk) && om[x];
        for (int x = xb; x < w; x++)
            om[x] = cd__on_mat_x(txs[x], mat_w, mk, row_out, row_mk) && om[x];
    }
    vis_image_free(small);
    return 0;
}

/* The mode of a 16-level-per-channel histogram of the pixels of rect
 * (x0..x1, y0..y1) on the mat (every step-th each way: a bin of the mode
 * needs no more), refined to the mean of all the pixels near it; false
 * when too few pixels. */
static bool cd__mode(const cd__det *d, int x0, int y0, int x1, int y1, int step,
                     const double *near, double out[3], int *count)
{
    static const int L = 16;
    int *hist = calloc((size_t)L * L * L, sizeof *hist), best = -1, n = 0;
    /* (whole sums: exact, as the doubles they replace were) */
    int64_t s[3] = {0, 0, 0};
    int m = 0;
    const unsigned char *rgb = d->rgb, *onmat = d->onmat;
    if (!hist)
        return false;
    for (int y = y0; y < y1; y += step)
        for (int x = x0; x < x1; x += step) {
            const unsigned char *p = rgb + ((size_t)y * d->w + x) * 3;
            if (!onmat[y * d->w + x])
                continue;
            if (near && fabs(p[0] - near[0]) + fabs(p[1] - near[1]) + fabs(p[2] - near[2]) > 90)
                continue;
            hist[(p[0] >> 4) * L * L + (p[1] >> 4) * L + (p[2] >> 4)]++;
            n++;
        }
    for (int i = 0; i < L * L * L; i++)
        if (best < 0 || hist[i] > hist[best])
            best = i;
    free(hist);
    if (n * step * step < 20 || best < 0)
        return false;
    /* (the bin's centre is whole: integer distances, as exact) */
    int c[3] = {(best / (L * L)) * 16 + 8, ((best / L) % L) * 16 + 8, (best % L) * 16 + 8};
    /* each channel's distance to the centre from a table (this pass
     * reads every pixel) */
    int ad[3][256];
    for (int k = 0; k < 3; k++)
        for (int v = 0; v < 256; v++)
            ad[k][v] = abs(v - c[k]);
#ifdef __SSE2__
    /* (two pixels' distances at a time: each one's three bytes against
     * the centre's, the other bytes masked to 0 on both sides, summed by
     * one psadbw; the same whole numbers) */
    const unsigned char *rgb_end = rgb + (size_t)d->w * d->h * 3;
    const __m128i ctr = _mm_set_epi8(0, 0, 0, 0, 0, (char)c[2], (char)c[1], (char)c[0], 0, 0, 0, 0,
                                     0, (char)c[2], (char)c[1], (char)c[0]);
    const __m128i keep = _mm_set_epi8(0, 0, 0, 0, 0, -1, -1, -1, 0, 0, 0, 0, 0, -1, -1, -1);
#endif
    for (int y = y0; y < y1; y++) {
        const unsigned char *p = rgb + ((size_t)y * d->w + x0) * 3;
        const unsigned char *om = onmat + (size_t)y * d->w;
        int x = x0;
#ifdef __SSE2__
        for (; x + 2 <= x1 && p + 11 <= rgb_end; x += 2, p += 6) {
            uint64_t qa, qb;
            memcpy(&qa, p, 8);
            memcpy(&qb, p + 3, 8);
            __m128i sad = _mm_sad_epu8(
                _mm_and_si128(_mm_set_epi64x((long long)qb, (long long)qa), keep), ctr);
            if (om[x] && _mm_cvtsi128_si32(sad) < 36) {
                s[0] += p[0];
                s[1] += p[1];
                s[2] += p[2];
                m++;
            }
            if (om[x + 1] && _mm_cvtsi128_si32(_mm_srli_si128(sad, 8)) < 36) {
                s[0] += p[3];
                s[1] += p[4];
                s[2] += p[5];
                m++;
            }
        }
#endif
        for (; x < x1; x++, p += 3) {
            bool near_c = ad[0][p[0]] + ad[1][p[1]] + ad[2][p[2]] < 36;
            if (om[x] && near_c) {
                s[0] += p[0];
                s[1] += p[1];
                s[2] += p[2];
                m++;
            }
        }
    }
    if (m < 10)
        return false;
    for (int k = 0; k < 3; k++)
        out[k] = (double)s[k] / m;
    if (count)
        *count = m;
    return true;
}

/* Solves the n x n system m x = r (n <= 6) by Gaussian elimination. */
static bool cd__solve(double m[6][7], int n, double *x)
{
    for (int i = 0; i < n; i++) {
        int piv = i;
        for (int j = i + 1; j < n; j++)
            if (fabs(m[j][i]) > fabs(m[piv][i]))
                piv = j;
        if (fabs(m[piv][i]) < 1e-12)
            return false;
        for (int k = 0; k <= n; k++) {
            double t = m[i][k];
            m[i][k] = m[piv][k];
            m[piv][k] = t;
        }
        for (int j = 0; j < n; j++)
            if (j != i) {
                double f = m[j][i] / m[i][i];
                for (int k = i; k <= n; k++)
                    m[j][k] -= f * m[i][k];
            }
    }
    for (int i = 0; i < n; i++)
        x[i] = m[i][n] / m[i][i];
    return true;
}

/* Fits the mat's model to the view: the colour is the mode of the view's
 * colours, the brightness surface a robust fit to the pixels near it.
 * Card stock is brighter than the mat, so the band above the surface is
 * narrower than below it: cards must not pull the surface up. */
static bool cd__mat_fit(const cd__det *d, const vis_view *vw, cd__mat *mt)
{
    double glob[3];
    int w = d->w, h = d->h;
    if (!cd__mode(d, 0, 0, w, h, 2, NULL, glob, NULL))
        return false;
    double c0 = glob[0] + glob[1] + glob[2], coef[6] = {c0, 0, 0, 0, 0, 0}, band = 60;
    double mad = 8, cdev[64], cmad = 0;
    /* the samples (every second pixel each way, of the mat's hue: a card
     * of the mat's brightness but another colour is not mat) are gathered
     * once; the three fits go over them */
    const int ss = 2;
    int ns = 0, nrow = 0;
    size_t cap = (size_t)((w + ss - 1) / ss) * ((h + ss - 1) / ss);
    /* per sample X and brightness, and its pixel; per row of samples its
     * Y and where its samples end */
    double *sx = malloc(sizeof *sx * cap * 2), *rowy = malloc(sizeof *rowy * (size_t)h);
    int *sidx = malloc(sizeof *sidx * cap), *rowe = malloc(sizeof *rowe * (size_t)h);
    if (!sx || !sidx || !rowy || !rowe) {
        free(sx);
        free(sidx);
        free(rowy);
        free(rowe);
        return false;
    }
    for (int y = 0; y < h; y += ss) {
        double Y = (d->y0 + (y + 0.5) / d->ppm) / vw->mat_h - 0.5;
        int ns0 = ns;
        for (int x = 0; x < w; x += ss) {
            if (!d->onmat[y * w + x])
                continue;
            const unsigned char *p = d->rgb + ((size_t)y * w + x) * 3;
            double chroma = fabs((p[0] - p[2]) - (glob[0] - glob[2])) +
                            fabs((p[1] - p[2]) - (glob[1] - glob[2]));
            if (chroma > 40)
                continue;
            sx[2 * ns] = d->tx[x] / vw->mat_w - 0.5;
            sx[2 * ns + 1] = p[0] + p[1] + p[2];
            sidx[ns++] = y * w + x;
        }
        if (ns > ns0) {
            rowy[nrow] = Y;
            rowe[nrow++] = ns;
        }
    }
    for (int it = 0; it < 3; it++) {
        double m[6][7] = {{0}};
        double dev[64] = {0};
        int nd = 0, cnt = 0, c7 = 0;
        cmad = 0;
        /* The normal equations' entries are sums of X^a Y^b (a + b <= 4)
         * and of br X^a Y^b (a + b <= 2); the samples come row by row, Y
         * fixed, so per pixel only the powers of X are summed and a row's
         * sums are weighed by the powers of its Y once.  (The sums in the
         * samples' order: the same doubles as summed pixel by pixel.) */
        static const int pa[6] = {0, 1, 0, 2, 1, 0}, pb[6] = {0, 0, 1, 0, 1, 2};
        double mxy[5][5] = {{0}}, rxy[3][3] = {{0}};
        for (int r = 0, k = 0; r < nrow; r++) {
            const double Y = rowy[r];
            double sa0 = 0, sa1 = 0, sa2 = 0, sa3 = 0, sa4 = 0, ta0 = 0, ta1 = 0, ta2 = 0;
            for (; k < rowe[r]; k++) {
                double X = sx[2 * k], br = sx[2 * k + 1];
                double model = coef[0] + coef[1] * X + coef[2] * Y + coef[3] * X * X +
                               coef[4] * X * Y + coef[5] * Y * Y;
                if (br - model < -band || br - model > 0.5 * band)
                    continue;
                double X2 = X * X;
                sa0 += 1;
                sa1 += X;
                sa2 += X2;
                sa3 += X2 * X;
                sa4 += X2 * X2;
                ta0 += br;
                ta1 += br * X;
                ta2 += br * X2;
                /* every seventh sample kept, up to 64, for the deviations */
                bool take = c7 == 0;
                c7 = take ? 6 : c7 - 1;
                cnt++;
                if (take && nd < 64) {
                    const unsigned char *p = d->rgb + (size_t)sidx[k] * 3;
                    cdev[nd] = 0;
                    for (int q = 0; q < 3; q++)
                        cdev[nd] += fabs(p[q] / (br > 30 ? br : 30) - glob[q] / c0) * 765;
                    dev[nd++] = fabs(br - model);
                }
            }
            const double sa[5] = {sa0, sa1, sa2, sa3, sa4}, ta[3] = {ta0, ta1, ta2};
            double yp[5] = {1, Y, Y * Y, Y * Y * Y, 0};
            yp[4] = yp[2] * yp[2];
            for (int a = 0; a < 5; a++)
                for (int b = 0; a + b < 5; b++)
                    mxy[a][b] += sa[a] * yp[b];
            for (int a = 0; a < 3; a++)
                for (int b = 0; a + b < 3; b++)
                    rxy[a][b] += ta[a] * yp[b];
        }
        for (int i = 0; i < 6; i++) {
            for (int j = 0; j < 6; j++)
                m[i][j] = mxy[pa[i] + pa[j]][pb[i] + pb[j]];
            m[i][6] = rxy[pa[i]][pb[i]];
        }
        if (cnt < 50 || !cd__solve(m, 6, coef))
            break;
        /* median absolute deviation, from a sample */
        for (int i = 1; i < nd; i++)
            for (int j = i; j > 0 && dev[j - 1] > dev[j]; j--) {
                double t = dev[j];
                dev[j] = dev[j - 1];
                dev[j - 1] = t;
            }
        mad = nd ? fmax(2, dev[nd / 2]) : 8;
        for (int i = 1; i < nd; i++)
            for (int j = i; j > 0 && cdev[j - 1] > cdev[j]; j--) {
                double t = cdev[j];
                cdev[j] = cdev[j - 1];
                cdev[j - 1] = t;
            }
        cmad = nd ? cdev[nd / 2] : 0;
        band = fmax(10, 4 * mad);
    }
    free(sx);
    free(sidx);
    free(rowy);
    free(rowe);
    memcpy(mt->rgb, glob, sizeof glob);
    mt->c0 = c0;
    memcpy(mt->coef, coef, sizeof coef);
    mt->mad = mad;
    mt->cmad = cmad;
    return true;
}

/* Whether pixel p (B G R), brighter than the mat's model there and of
 * another chromaticity than the mat (ink by colour), is the mat itself
 * under more light (the mat's colour rgb times lv: at the model's
 * brightness there): at least half the mat's own colour, with no more
 * white added than twice its level, within CD__LIT_RES levels.  A
 * lamp's pool or a sheen moves a coloured mat's chromaticity toward white
 * as it brightens, past the ink
 * bound, and what is ink is never glare: on green felt (sim seed 970002
 * frame 144: the lit felt 125-155 off the felt's chromaticity against a
 * bound of 156) a pool of seven cards' area round a lone 10C took the
 * grid and the card was cut 41 mm off; a sheen by a marker turned a lone
 * KS's grid by 90 degrees on the live referee's seed 801.  White stock is
 * all added white (a near 0), print of another hue is off the line.  Only
 * on a mat of a strong colour (its chromaticity CD__LIT_MAT off grey, x
 * 765; the twelve frame sets' mats: greys and paper 0-60, a light wood
 * 131, the rest 200-600): on the light wood (sim seed 930508) a court
 * picture's warm ground is the wood's colour with white added, and its
 * kings were lost; the bound on the white keeps cream stock under a warm
 * light on a dark wood (950305, 244), which is mostly white. */
#define CD__LIT_RES 12.0
#define CD__LIT_MAT 200.0
static bool cd__lit_mat(const unsigned char *p, const float rgb[3], double lv)
{
    double a, b, m[3] = {rgb[0] * lv, rgb[1] * lv, rgb[2] * lv};
    return vis__light_fit(p, m, 0, &a, &b) < CD__LIT_RES && a >= 0.5 &&
           b <= 2 * a * (m[0] + m[1] + m[2]) / 3;
}

/* The mask of pixels unlike the mat: of another hue, or much darker
 * (backs, ink); and the edge map: sharp brightness steps.  White card
 * stock on a pale mat differs from it by little in colour and brightness,
 * and glare or a light's hotspot on the mat can be brighter than the card,
 * so brightness alone does not find such cards; their outline does (a
 * sharp step, where the hotspot is smooth), and cd__morph fills it.  The
 * survey's full view is mostly mat and teaches the handle the mat's model;
 * a roi around the cards may be mostly cards (their paper would be the
 * "mode"), so it uses the learnt model when there is one. */
void cd__mask(vis_cards *c, cd__det *d, const vis_view *vw, bool learn)
{
    cd__mat own, *mt = &own;
    int w = d->w, h = d->h;
    if (learn || !c->have_mat) {
        if (!cd__mat_fit(d, vw, &own))
            return;
        if (learn) {
            c->mat = own;
            c->have_mat = true;
        }
    } else {
        mt = &c->mat;
    }
    double c0 = mt->c0 > 1 ? mt->c0 : 1, m0[3], tb = fmax(12, 4.5 * mt->mad);
    double tc = fmax(45, 5 * mt->cmad);
    float *ex = d->ex = malloc(sizeof *ex * (size_t)w * h);
    double *fx = malloc(sizeof *fx * (size_t)w);
    if (!ex || !fx) {
        free(fx);
        return;
    }
    d->tb = tb;
    d->mat_c0 = mt->c0;
    d->glare_min = 3 * c->cw * c->ch * d->ppm * d->ppm;
    for (int k = 0; k < 3; k++)
        m0[k] = mt->rgb[k] / c0;
    for (int x = 0; x < w; x++)
        fx[x] = d->tx[x] / vw->mat_w - 0.5;
    /* Edges are needed only where colour cannot tell card stock from the
     * mat: a pale near-neutral mat.  On wood or felt they would add the
     * grain and the planks' gaps.  (Decided here: the loop below then
     * keeps the brightness for the Sobel.) */
    double neutral = fabs(m0[0] - 1.0 / 3) + fabs(m0[1] - 1.0 / 3) + fabs(m0[2] - 1.0 / 3);
    bool edges = !(neutral * 765 > 60 || mt->c0 < 400);
    unsigned short *gm = edges ? malloc(sizeof *gm * (size_t)w * h) : NULL;
    d->nmask = 0;
    d->pale = edges;
    /* per pixel in float, with 1 / brightness from a table: this runs on
     * every pixel of the play area twice a frame */
    float rinv[766], fm0[3] = {(float)m0[0], (float)m0[1], (float)m0[2]};
    float frgb[3] = {(float)mt->rgb[0], (float)mt->rgb[1], (float)mt->rgb[2]};
    for (int v = 0; v < 766; v++)
        rinv[v] = 1.f / (float)(v > 30 ? v : 30);
    const float third = 1.f / 3, ftc = (float)tc, ftb = (float)tb, fc0 = (float)(1 / c0);
    const bool lit_on = neutral * 765 > CD__LIT_MAT;
    /* (the planes in locals: stores to the byte planes would otherwise
     * make the compiler reload every pointer and the count per pixel) */
    const unsigned char *rgb = d->rgb, *onmat = d->onmat;
    unsigned char *inkp = d->ink, *maskp = d->mask;
    int nmask = 0;
    for (int y = 0; y < h; y++) {
        double Y = (d->y0 + (y + 0.5) / d->ppm) / vw->mat_h - 0.5;
        const double *cf = mt->coef;
        /* the surface along the row: a quadratic in X alone */
        double ra = cf[0] + cf[2] * Y + cf[5] * Y * Y, rb = cf[1] + cf[4] * Y, rc = cf[3];
        for (int x = 0, xe = 0; x < w; x = xe) {
            xe = x + 4 <= w ? x + 4 : w;
#ifdef __SSE2__
            /* Four pixels at a time, the same float operations lane by
             * lane (the same values); the chromaticity only when one of
             * them needs it.  The row's last pixels one by one below. */
            if (xe == x + 4) {
                const unsigned char *p = rgb + ((size_t)y * w + x) * 3;
                const int i = y * w + x;
                __m128d X01 = _mm_loadu_pd(fx + x), X23 = _mm_loadu_pd(fx + x + 2);
                __m128d vra = _mm_set1_pd(ra), vrb = _mm_set1_pd(rb), vrc = _mm_set1_pd(rc);
                __m128d m01 = _mm_add_pd(vra, _mm_mul_pd(_mm_add_pd(vrb, _mm_mul_pd(vrc, X01)), X01));
                __m128d m23 = _mm_add_pd(vra, _mm_mul_pd(_mm_add_pd(vrb, _mm_mul_pd(vrc, X23)), X23));
                __m128 model = _mm_movelh_ps(_mm_cvtpd_ps(m01), _mm_cvtpd_ps(m23));
                __m128i ib, ig, ir;
                if (i + 5 <= w * h) {
                    /* (each pixel's three bytes from one 32-bit load, the
                     * fourth masked off: not past the plane's end) */
                    uint32_t q[4];
                    for (int k = 0; k < 4; k++)
                        memcpy(&q[k], p + 3 * k, 4);
                    const __m128i v = _mm_set_epi32((int)q[3], (int)q[2], (int)q[1], (int)q[0]);
                    const __m128i ff = _mm_set1_epi32(255);
                    ib = _mm_and_si128(v, ff);
                    ig = _mm_and_si128(_mm_srli_epi32(v, 8), ff);
                    ir = _mm_and_si128(_mm_srli_epi32(v, 16), ff);
                } else {
                    ib = _mm_set_epi32(p[9], p[6], p[3], p[0]);
                    ig = _mm_set_epi32(p[10], p[7], p[4], p[1]);
                    ir = _mm_set_epi32(p[11], p[8], p[5], p[2]);
                }
                __m128i ibr = _mm_add_epi32(_mm_add_epi32(ib, ig), ir);
                __m128 br = _mm_cvtepi32_ps(ibr);
                __m128 exv = _mm_sub_ps(br, model);
                __m128 sc = _mm_mul_ps(model, _mm_set1_ps(fc0));
                const __m128 sign = _mm_set1_ps(-0.f);
                __m128 dist = _mm_add_ps(
                    _mm_add_ps(_mm_andnot_ps(sign, _mm_sub_ps(_mm_cvtepi32_ps(ib),
                                                              _mm_mul_ps(_mm_set1_ps(frgb[0]), sc))),
                               _mm_andnot_ps(sign, _mm_sub_ps(_mm_cvtepi32_ps(ig),
                                                              _mm_mul_ps(_mm_set1_ps(frgb[1]), sc)))),
                    _mm_andnot_ps(sign, _mm_sub_ps(_mm_cvtepi32_ps(ir),
                                                   _mm_mul_ps(_mm_set1_ps(frgb[2]), sc))));
                __m128 ink = _mm_and_ps(_mm_cmplt_ps(br, _mm_mul_ps(_mm_set1_ps(0.6f), model)),
                                        _mm_cmpgt_ps(_mm_sub_ps(model, br), _mm_set1_ps(40.f)));
                __m128 bright = _mm_cmpgt_ps(exv, _mm_set1_ps(ftb));
                __m128 far = _mm_cmpgt_ps(dist, _mm_set1_ps(60.f));
                __m128 slow = _mm_andnot_ps(ink, _mm_or_ps(far, bright));
                /* (onmat is 0 or 1 a byte: as lanes, and as four bits) */
                uint32_t o4;
                memcpy(&o4, onmat + i, 4);
                const __m128i z = _mm_setzero_si128();
                const __m128 omv = _mm_castsi128_ps(_mm_cmpgt_epi32(
                    _mm_unpacklo_epi16(_mm_unpacklo_epi8(_mm_cvtsi32_si128((int)o4), z), z), z));
                const int om4 = _mm_movemask_ps(omv);
                __m128 mkv;
                if (_mm_movemask_ps(slow) & om4) {
                    /* the chromaticity, for all four (the lanes that do
                     * not need it ignore it) */
                    int b0 = p[0] + p[1] + p[2], b1 = p[3] + p[4] + p[5];
                    int b2 = p[6] + p[7] + p[8], b3 = p[9] + p[10] + p[11];
                    __m128 inv = _mm_set_ps(rinv[b3], rinv[b2], rinv[b1], rinv[b0]);
                    __m128 c0p = _mm_mul_ps(_mm_cvtepi32_ps(ib), inv);
                    __m128 c1p = _mm_mul_ps(_mm_cvtepi32_ps(ig), inv);
                    __m128 c2p = _mm_mul_ps(_mm_cvtepi32_ps(ir), inv);
                    __m128 chroma = _mm_add_ps(
                        _mm_add_ps(_mm_andnot_ps(sign, _mm_sub_ps(c0p, _mm_set1_ps(fm0[0]))),
                                   _mm_andnot_ps(sign, _mm_sub_ps(c1p, _mm_set1_ps(fm0[1])))),
                        _mm_andnot_ps(sign, _mm_sub_ps(c2p, _mm_set1_ps(fm0[2]))));
                    __m128 ink1 = _mm_and_ps(
                        _mm_cmpgt_ps(_mm_mul_ps(chroma, _mm_set1_ps(765.f)), _mm_set1_ps(ftc)), far);
                    __m128 vthird = _mm_set1_ps(third);
                    __m128 neu = _mm_add_ps(
                        _mm_add_ps(_mm_andnot_ps(sign, _mm_sub_ps(c0p, vthird)),
                                   _mm_andnot_ps(sign, _mm_sub_ps(c1p, vthird))),
                        _mm_andnot_ps(sign, _mm_sub_ps(c2p, vthird)));
                    __m128 paper = _mm_or_ps(
                        _mm_cmplt_ps(_mm_mul_ps(neu, _mm_set1_ps(765.f)), _mm_set1_ps(70.f)),
                        _mm_cmpgt_ps(br, _mm_add_ps(_mm_mul_ps(_mm_set1_ps(1.35f), model),
                                                    _mm_set1_ps(ftb))));
                    /* slow lanes: ink by the chromaticity; else, when
                     * bright, card stock (mask, not ink) when near-neutral
                     * or far brighter */
                    __m128 inks = _mm_and_ps(slow, ink1);
                    /* (ink by colour alone, brighter than the mat: the mat
                     * lit, not ink, not stock; see cd__lit_mat) */
                    int il = lit_on ? _mm_movemask_ps(_mm_and_ps(
                                          _mm_and_ps(inks, omv), _mm_cmpgt_ps(exv, _mm_setzero_ps())))
                                    : 0;
                    if (il) {
                        float mv[4];
                        _mm_storeu_ps(mv, model);
                        uint32_t clr[4] = {0, 0, 0, 0};
                        for (int k = 0; k < 4; k++)
                            if ((il >> k & 1) && cd__lit_mat(p + 3 * k, frgb, mv[k] * fc0))
                                clr[k] = 0xffffffffu;
                        __m128 cm = _mm_castsi128_ps(_mm_loadu_si128((const __m128i *)clr));
                        inks = _mm_andnot_ps(cm, inks);
                        ink1 = _mm_andnot_ps(cm, ink1);
                        bright = _mm_andnot_ps(cm, bright);
                    }
                    __m128 stock = _mm_and_ps(_mm_andnot_ps(ink1, _mm_and_ps(slow, bright)), paper);
                    ink = _mm_or_ps(ink, inks);
                    mkv = _mm_and_ps(_mm_or_ps(ink, stock), omv);
                } else {
                    mkv = _mm_and_ps(ink, omv);
                }
                const __m128 inkv = _mm_and_ps(ink, omv);
                _mm_storeu_ps(ex + i, exv);
                if (gm) {
                    int t[4];
                    _mm_storeu_si128((__m128i *)t, ibr);
                    for (int k = 0; k < 4; k++)
                        gm[i + k] = (unsigned short)t[k];
                }
                /* the lanes' masks (all ones or zero) as bytes 0 or 1:
                 * ink in the low four, the mask in the next four */
                __m128i pk = _mm_packs_epi32(_mm_castps_si128(inkv), _mm_castps_si128(mkv));
                pk = _mm_and_si128(_mm_packs_epi16(pk, pk), _mm_set1_epi8(1));
                uint32_t b4 = (uint32_t)_mm_cvtsi128_si32(pk);
                uint32_t m4 = (uint32_t)_mm_cvtsi128_si32(_mm_srli_si128(pk, 4));
                memcpy(inkp + i, &b4, 4);
                memcpy(maskp + i, &m4, 4);
                nmask += (int)((m4 * 0x01010101u) >> 24);
                continue;
            }
#endif
            for (; x < xe; x++) {
                const unsigned char *p = rgb + ((size_t)y * w + x) * 3;
                int i = y * w + x;
                double X = fx[x];
                float model = (float)(ra + (rb + rc * X) * X);
                int ibr = p[0] + p[1] + p[2];
                float br = (float)ibr;
                ex[i] = br - model;
                if (gm)
                    gm[i] = (unsigned short)ibr;
                inkp[i] = maskp[i] = 0;
                if (!onmat[i])
                    continue;
                float sc = model * fc0;
                float dist = fabsf(p[0] - frgb[0] * sc) + fabsf(p[1] - frgb[1] * sc) +
                             fabsf(p[2] - frgb[2] * sc);
                /* chromaticity differences of 0.06 and more (or well above
                 * the mat's own grain): felt against card stock; a card's
                 * cream against a grey paper mat is less.  (Chromaticity is
                 * noise on dark pixels: the colour must differ in absolute
                 * terms too.  Most pixels are the mat's, near it in both:
                 * the chromaticity only when it decides.) */
                bool ink = br < 0.6f * model && model - br > 40;
                /* brighter than the mat and near-neutral, as card stock is
                 * (a bright plank of a wooden table is not), or far brighter
                 * (cream stock under warm light on a dark mat) */
                bool bright = br - model > ftb;
                if (!ink && (dist > 60 || bright)) {
                    float inv = rinv[ibr];
                    float c0p = p[0] * inv, c1p = p[1] * inv, c2p = p[2] * inv;
                    float chroma = fabsf(c0p - fm0[0]) + fabsf(c1p - fm0[1]) + fabsf(c2p - fm0[2]);
                    ink = chroma * 765 > ftc && dist > 60;
                    if (ink && lit_on && br > model && cd__lit_mat(p, frgb, model * fc0)) {
                        inkp[i] = maskp[i] = 0;
                        continue;
                    }
                    if (!ink && bright) {
                        float neu = fabsf(c0p - third) + fabsf(c1p - third) + fabsf(c2p - third);
                        inkp[i] = 0;
                        maskp[i] = neu * 765 < 70 || br > 1.35f * model + ftb;
                        nmask += maskp[i];
                        continue;
                    }
                }
                bool m = ink;
                inkp[i] = ink;
                maskp[i] = m;
                nmask += m;
            }
        }
    }
    d->nmask = nmask;
    free(fx);
    if (!gm)
        return;
    /* Sobel on the brightness (gm holds it, then the 3x3 sums on it) */
    int hist[256] = {0}, nh = 0;
    unsigned short *prev = malloc(sizeof *prev * 2 * (size_t)w), *cur = prev + w;
    if (!prev) {
        free(gm);
        return;
    }
    memcpy(prev, gm, sizeof *gm * (size_t)w);
    for (int y = 0; y < h; y++) {
        /* prev: the source row above (gm's row y-1 is overwritten by now) */
        memcpy(cur, gm + (size_t)y * w, sizeof *gm * (size_t)w);
        const unsigned short *up = prev, *mid = cur, *dn = gm + (size_t)(y + 1) * w;
        unsigned short *go = gm + (size_t)y * w;
        const unsigned char *om = onmat + (size_t)y * w, *mk = maskp + (size_t)y * w;
        /* (the border, 0, outside the loop) */
        go[0] = go[w - 1] = 0;
        if (y == 0 || y == h - 1)
            memset(go, 0, sizeof *go * (size_t)w);
        for (int x = 1; x < w - 1 && y > 0 && y < h - 1; x++) {
            int gx = up[x + 1] + 2 * mid[x + 1] + dn[x + 1] - up[x - 1] - 2 * mid[x - 1] -
                     dn[x - 1];
            int gy = dn[x - 1] + 2 * dn[x] + dn[x + 1] - up[x - 1] - 2 * up[x] - up[x + 1];
            int g = (abs(gx) + abs(gy)) / 8;
            go[x] = (unsigned short)(g > 65535 ? 65535 : g);
            if (om[x] && !mk[x]) {
                hist[g > 255 ? 255 : g]++;
                nh++;
            }
        }
        unsigned short *sw = prev;
        prev = cur;
        cur = sw;
    }
    free(prev < cur ? prev : cur);
    int med = 0;
    for (int acc = 0; med < 255 && acc + hist[med] < nh / 2; med++)
        acc += hist[med];
    int te = 3 * med > 8 ? 3 * med : 8;
    unsigned char *edge = d->edge;
    for (int i = 0; i < w * h; i++)
        edge[i] = onmat[i] && gm[i] > te;
    free(gm);
}

/* Whether the eight bytes of m from i (i + 8 <= n) are all 0: the loops
 * over the view's pixels that look for mask pass over the mat eight
 * pixels at a time. */
bool cd__zero8(const unsigned char *m, int i, int n)
{
    uint64_t q;
    if (i + 8 > n)
        return false;
    memcpy(&q, m + i, 8);
    return q == 0;
}

/* The first and last nonzero byte of a row of n (false: none), eight
 * at a time over the empty ends.  (A row's cell indices and u, v grow
 * monotonically along it, so their extremes over the row's mask pixels
 * are those of its first and last: the bounding loops need only those.) */
bool cd__row_ends(const unsigned char *m, int n, int *xl, int *xr)
{
    int a = 0, b = n;
    uint64_t q;
    while (a + 8 <= n && (memcpy(&q, m + a, 8), q == 0))
        a += 8;
    while (a < n && !m[a])
        a++;
    if (a == n)
        return false;
    while (b - 8 >= a && (memcpy(&q, m + b - 8, 8), q == 0))
        b -= 8;
    while (!m[b - 1])
        b--;
    *xl = a;
    *xr = b - 1;
    return true;
}

/* The sum of n bytes that are 0 or 1 (eight at a time: a word's bytes
 * summed by one multiply). */
static int cd__count01(const unsigned char *m, int n)
{
    int i = 0, c = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t q;
        memcpy(&q, m + i, 8);
        c += (int)((q * 0x0101010101010101u) >> 56);
    }
    for (; i < n; i++)
        c += m[i];
    return c;
}

/* One 3x3 erosion (erode) or dilation of the mask, as a row pass and a
 * column pass (outside the view counts as 0). */
/* o = a op b op c over n bytes, sixteen and then eight at a time (the
 * mask is 0/1 bytes, so whole words combine as well as single bytes do). */
static void cd__combine3(unsigned char *o, const unsigned char *a, const unsigned char *b,
                         const unsigned char *c, int n, bool and_op)
{
    int x = 0;
    /* (sixteen at a time in SSE2 registers, which every x86-64 has) */
    typedef unsigned char cd__v16 __attribute__((vector_size(16)));
    for (; x + 16 <= n; x += 16) {
        cd__v16 u, v, q;
        memcpy(&u, a + x, 16);
        memcpy(&v, b + x, 16);
        memcpy(&q, c + x, 16);
        u = and_op ? (u & v & q) : (u | v | q);
        memcpy(o + x, &u, 16);
    }
    for (; x + 8 <= n; x += 8) {
        uint64_t u, v, q;
        memcpy(&u, a + x, 8);
        memcpy(&v, b + x, 8);
        memcpy(&q, c + x, 8);
        u = and_op ? (u & v & q) : (u | v | q);
        memcpy(o + x, &u, 8);
    }
    for (; x < n; x++)
        o[x] = and_op ? (a[x] & b[x] & c[x]) : (a[x] | b[x] | c[x]);
}

/* The 4-connected region of unmarked pixels whose open flag is want
 * ((open[j] != 0) == want) that holds pixel i0 (such a pixel): marks them
 * v (not 0) in mark, appends its runs to runs (when not NULL; a w x h grid
 * has at most h (w + 1) / 2) and returns its pixel count.  A run of a row
 * at a time (a fill pixel by pixel pushes, pops and divides for every
 * pixel of the large regions).  stack: room for 2 w h + 4 entries. */
int cd__region(const unsigned char *open, int want, int w, int h, int i0,
                      unsigned char *mark, unsigned char v, int *stack, cd__run *runs, int *nruns)
{
    int ns = 0, count = 0;
    stack[ns++] = i0;
    while (ns > 0) {
        int k = stack[--ns], y = k / w, x = k - y * w;
        const unsigned char *o = open + (size_t)y * w;
        unsigned char *m = mark + (size_t)y * w;
        if (m[x])
            continue;
        int a = x, b = x;
        while (a > 0 && (o[a - 1] != 0) == want && !m[a - 1])
            a--;
        while (b < w - 1 && (o[b + 1] != 0) == want && !m[b + 1])
            b++;
        memset(m + a, v, (size_t)(b - a + 1));
        count += b - a + 1;
        if (runs)
            runs[(*nruns)++] = (cd__run){y, a, b};
        for (int dy = -1; dy <= 1; dy += 2) {
            int y2 = y + dy;
            if (y2 < 0 || y2 >= h)
                continue;
            const unsigned char *o2 = open + (size_t)y2 * w, *m2 = mark + (size_t)y2 * w;
            /* one seed per free stretch of the next row */
            for (int x2 = a; x2 <= b; x2++)
                if ((o2[x2] != 0) == want && !m2[x2] &&
                    (x2 == a || (o2[x2 - 1] != 0) != want || m2[x2 - 1]))
                    stack[ns++] = y2 * w + x2;
        }
    }
    return count;
}

static void cd__morph_buf(unsigned char *m, unsigned char *t, int w, int h, bool erode)
{
    /* row pass m -> t, column pass t -> m; outside the view counts as 0 */
    for (int y = 0; y < h; y++) {
        const unsigned char *r = m + (size_t)y * w;
        unsigned char *o = t + (size_t)y * w;
        cd__combine3(o + 1, r, r + 1, r + 2, w - 2, erode);
        o[0] = erode ? 0 : r[0] | r[1];
        o[w - 1] = erode ? 0 : r[w - 1] | r[w - 2];
    }
    for (int y = 0; y < h; y++) {
        const unsigned char *mid = t + (size_t)y * w;
        unsigned char *o = m + (size_t)y * w;
        if (y == 0 || y == h - 1) {
            const unsigned char *nb = t + (size_t)(y == 0 ? 1 : h - 2) * w;
            for (int x = 0; x < w; x++)
                o[x] = erode ? 0 : mid[x] | nb[x];
            continue;
        }
        cd__combine3(o, mid - w, mid, mid + w, w, erode);
    }
}

static void cd__morph1(cd__det *d, unsigned char *t, bool erode)
{
    cd__morph_buf(d->mask, t, d->w, d->h, erode);
}

/* The region's (runs, nr) pixels but its print out of the mask, marked
 * glared.  false when out of memory. */
static bool cd__take_glare(cd__det *d, const cd__run *runs, int nr)
{
    int w = d->w;
    if (!d->glared && !(d->glared = calloc((size_t)w * d->h, 1)))
        return false;
    for (int r = 0; r < nr; r++)
        for (int k = runs[r].y * w + runs[r].x0; k <= runs[r].y * w + runs[r].x1; k++)
            if (!d->ink[k]) {
                d->mask[k] = 0;
                d->glared[k] = 1;
                d->nmask--;
            }
    return true;
}

/* A glow on a dark mat run into cards (sim seed 960008: a lamp's glow
 * beside a column of cards on a black mat, up to three times the mat's
 * brightness above it where card stock is ten): one region with them,
 * whose bright tenth is the cards'.  Its pixels dimmer than thr above the
 * mat (a third of the region's brightest hundredth, the cards', or the
 * mat's own brightness: see cd__glare) that hold together over two
 * cards' area are the glow, out of the mask; the cards keep the rest
 * (their blurred rims but a pixel).  runs, nr: the region; stack: room
 * for 2 w h + 4; *buf: 2 w h bytes, made on first use.  false when out
 * of memory. */
static bool cd__dim_glow(cd__det *d, const cd__run *runs, int nr, double thr, int *stack,
                         unsigned char **buf)
{
    int w = d->w, h = d->h;
    if (!*buf && !(*buf = malloc(2 * (size_t)w * h)))
        return false;
    unsigned char *dim = *buf, *seen = *buf + (size_t)w * h;
    cd__run *r2 = malloc(sizeof *r2 * ((size_t)h * (w + 1) / 2 + 1));
    if (!r2)
        return false;
    memset(dim, 0, 2 * (size_t)w * h);
    for (int r = 0; r < nr; r++)
        for (int k = runs[r].y * w + runs[r].x0; k <= runs[r].y * w + runs[r].x1; k++)
            dim[k] = !d->ink[k] && d->ex[k] < thr;
    for (int r = 0; r < nr; r++)
        for (int k0 = runs[r].y * w + runs[r].x0; k0 <= runs[r].y * w + runs[r].x1; k0++) {
            if (!dim[k0] || seen[k0])
                continue;
            int n2 = 0, n = cd__region(dim, 1, w, h, k0, seen, 1, stack, r2, &n2);
            /* (its pixels are all but print: dim ones) */
            if (n >= 2.0 / 3 * d->glare_min && !cd__take_glare(d, r2, n2)) {
                free(r2);
                return false;
            }
        }
    free(r2);
    return true;
}

/* Whether pixel k's 3 x 3 neighbourhood (k not on the view's border) is
 * all in the mask; if so its dimmest brightness above the mat, and
 * whether all of it is ink. */
static inline bool cd__nb3(const cd__det *d, int k, float *dimmest, bool *ink)
{
    const int w = d->w;
    float mn = d->ex[k];
    bool all = true;
    for (int j = -w; j <= w; j += w)
        for (int i = -1; i <= 1; i++) {
            if (!d->mask[k + j + i])
                return false;
            mn = d->ex[k + j + i] < mn ? d->ex[k + j + i] : mn;
            all = all && d->ink[k + j + i];
        }
    *dimmest = mn;
    *ink = all;
    return true;
}

/* A region's (runs, nr) brightest hundredth of stock above the mat, its
 * print left out: each pixel as the dimmest of its 3 x 3 neighbourhood
 * (in the mask), since a granite mat's light flecks under a lamp are as
 * bright as white stock a pixel or two across (sim seed 1200002: its
 * pool's flecks made it too bright to be anything but cards, and it read
 * as court cards). */
static double cd__stock_top(const cd__det *d, const cd__run *runs, int nr)
{
    const int w = d->w, h = d->h;
    int hist[256] = {0}, n = 0;
    for (int r = 0; r < nr; r++) {
        const int y = runs[r].y;
        if (y < 1 || y >= h - 1)
            continue;
        for (int x = runs[r].x0 < 1 ? 1 : runs[r].x0; x <= runs[r].x1 && x < w - 1; x++) {
            const int k = y * w + x;
            float mn;
            bool ink;
            if (!d->ink[k] && cd__nb3(d, k, &mn, &ink)) {
                int b = (int)(mn / 4);
                hist[b < 0 ? 0 : b > 255 ? 255 : b]++;
                n++;
            }
        }
    }
    for (int b = 255, acc = 0; b >= 0; b--)
        if ((acc += hist[b]) >= n / 100 && acc > 0)
            return 4.0 * b;
    return 0;
}

/* Glare: light's hotspot on a glossy or pale mat is brighter than the
 * quadratic surface, but its rim is a slow ramp where a card's is a step:
 * three pixels in from the rim a card is as bright as it gets, glare barely
 * above the threshold.  A large region whose rim is that soft loses its
 * bright pixels (its print stays: a card
 * under the glare is then found by its outline). */
static void cd__glare(cd__det *d)
{
    int w = d->w, h = d->h, nr = 0;
    unsigned char *dim = NULL;
    int *stack = malloc(sizeof *stack * (2 * (size_t)w * h + 4));
    cd__run *runs = malloc(sizeof *runs * ((size_t)h * (w + 1) / 2 + 1));
    unsigned char *seen = calloc((size_t)w * h, 1), *e2 = NULL, *e3 = NULL, *tmp = NULL;
    const float *ex = d->ex;
    if (!stack || !runs || !seen || !ex) {
        free(stack);
        free(runs);
        free(seen);
        return;
    }
    for (int i0 = 0; i0 < w * h; i0++) {
        if (cd__zero8(d->mask, i0, w * h)) {
            i0 += 7;
            continue;
        }
        if (!d->mask[i0] || seen[i0])
            continue;
        int nring = 0, nbright = 0;
        double ering = 0;
        nr = 0;
        int ns = cd__region(d->mask, 1, w, h, i0, seen, 1, stack, runs, &nr);
        /* glare covers much of the mat; a few cards' worth of faint
         * paper is not glare (on a dark mat, a glow of two cards' worth
         * may be: see below) */
        const bool dark = d->mat_c0 < 250;
        if (ns < (dark ? 2.0 / 3 : 1) * d->glare_min)
            continue;
        /* the ring three pixels in: every pixel within 2 is in the
         * region, some within 3 is not (the mask eroded twice, not three
         * times: the erosions are made once, when a region is this large) */
        if (!e2) {
            e2 = malloc((size_t)w * h);
            e3 = malloc((size_t)w * h);
            tmp = malloc((size_t)w * h);
            if (!e2 || !e3 || !tmp)
                break;
            memcpy(e2, d->mask, (size_t)w * h);
            cd__morph_buf(e2, tmp, w, h, true);
            cd__morph_buf(e2, tmp, w, h, true);
            memcpy(e3, e2, (size_t)w * h);
            cd__morph_buf(e3, tmp, w, h, true);
        }
        for (int r = 0; r < nr; r++) {
            int y = runs[r].y;
            if (y < 3 || y >= h - 3)
                continue;
            for (int x = runs[r].x0 < 3 ? 3 : runs[r].x0; x <= runs[r].x1 && x < w - 3; x++) {
                int k = y * w + x;
                if (d->ink[k] || !e2[k] || e3[k])
                    continue;
                nring++;
                if (ex[k] > d->tb) {
                    nbright++;
                    ering += ex[k];
                }
            }
        }
        /* the region's bright tenth and brightest hundredth above the
         * mat (its print left out), for the tests below */
        double p90 = 0, p99 = 0;
        if (nbright > 0) {
            int hist[256] = {0}, nh = 0;
            for (int r = 0; r < nr; r++)
                for (int k = runs[r].y * w + runs[r].x0; k <= runs[r].y * w + runs[r].x1; k++)
                    if (!d->ink[k]) {
                        int b = (int)(ex[k] / 4);
                        hist[b < 0 ? 0 : b > 255 ? 255 : b]++;
                        nh++;
                    }
            for (int b = 255, acc = 0; b >= 0; b--) {
                acc += hist[b];
                if (p99 == 0 && acc >= nh / 100)
                    p99 = 4.0 * b;
                if (acc >= nh / 10) {
                    p90 = 4.0 * b;
                    break;
                }
            }
        }
        const bool ramp = ns >= d->glare_min && nbright > 0 && ering / nbright < 1.7 * d->tb;
        /* On a dark mat card stock is several times as bright as the mat;
         * a lamp's hot spot there is a glow: its bright tenth is less
         * than the mat's own brightness above the mat (its rim three
         * pixels in may be above 1.7 times the noise of a clean black
         * mat: sim seed 950313, whose lone 9C and hot spot made one grid,
         * turned by 90 degrees) */
        const bool glow = dark && p90 < d->mat_c0;
        /* A lamp's pool or glow too steep at its edge for the ramp above
         * (sim seeds 970013: a plateau a third of a grey mat's brightness
         * above it; 960007: a glow of three times a black mat's): its rim
         * three pixels in is well under its top (a card's is at its top),
         * and it is too dim for white stock: its brightest hundredth under
         * 0.6 of the mat's white paper round the markers (white stock is
         * about as bright), or under half the mat's brightness above a
         * mat that is not pale (white stock there is about the mat's
         * again above it); stock, not flecks (cd__stock_top; only when
         * it decides). */
        const bool lit = nring > 20 && nbright > nring / 2;
        bool pool = false;
        if (lit && !ramp && !glow && ering / nbright < 0.6 * p90) {
            const double top = cd__stock_top(d, runs, nr);
            pool = (d->white > 0 && top + d->mat_c0 < 0.6 * d->white) ||
                   (!d->pale && top < 0.5 * d->mat_c0);
        }
        /* (a region that is in the mask by its colour or its outline,
         * not by brightness, is not glare) */
        if (lit && (ramp || glow || pool)) {
            if (!cd__take_glare(d, runs, nr))
                break;
        } else if (dark && lit &&
                   /* (not glare as a whole: a glow run into cards?) */
                   !cd__dim_glow(d, runs, nr, fmax(d->mat_c0, p99 / 3), stack, &dim))
            break;
    }
    free(dim);
    free(e2);
    free(e3);
    free(tmp);
    free(stack);
    free(runs);
    free(seen);
}

/* Glare the survey found, out of a read's mask.  A lamp's hot spot on a
 * pale mat is brighter than the mat's model; the survey sees it whole and
 * takes it out as glare (a smooth rise, larger than a few cards), but a
 * read's view round the cards crops it below that size, and it would
 * read as card stock all round the cards.  Once: the survey's view is of
 * the frame the read is of. */
void cd__glare_apply(vis_cards *c, cd__det *d)
{
    if (!c->glare)
        return;
    for (int y = 0; y < d->h; y++) {
        int gy = (int)floor((d->ty[y] - c->glare_y0) * c->glare_ppm);
        if (gy < 0 || gy >= c->glare_h)
            continue;
        for (int x = 0; x < d->w; x++) {
            int gx = (int)floor((d->tx[x] - c->glare_x0) * c->glare_ppm), k = y * d->w + x;
            if (gx >= 0 && gx < c->glare_w && c->glare[gy * c->glare_w + gx] && !d->ink[k])
                d->mask[k] = 0;
        }
    }
    free(c->glare);
    c->glare = NULL;
}

/* Whether the mask may hold cards: at least 0.3 of a card's area; or less
 * when it spans most of a card each way (a lone card of white stock on a
 * pale mat shows by its print and a broken outline alone: an ace, a few
 * pips).  box: the mask's bounding box in table mm (x0, y0, x1, y1). */
bool cd__some_cards(const vis_cards *c, const cd__det *d, double box[4])
{
    double x0 = 1e9, y0 = 1e9, x1 = -1e9, y1 = -1e9;
    /* (tx and ty grow with x and y: a row's first and last pixels of the
     * mask hold its extremes) */
    for (int y = 0; y < d->h; y++) {
        int xa, xb;
        if (!cd__row_ends(d->mask + (size_t)y * d->w, d->w, &xa, &xb))
            continue;
        double ty = d->ty[y];
        x0 = d->tx[xa] < x0 ? d->tx[xa] : x0;
        x1 = d->tx[xb] > x1 ? d->tx[xb] : x1;
        y0 = ty < y0 ? ty : y0;
        y1 = ty > y1 ? ty : y1;
    }
    box[0] = x0;
    box[1] = y0;
    box[2] = x1;
    box[3] = y1;
    const double card = c->cw * c->ch * d->ppm * d->ppm, bw = x1 - x0, bh = y1 - y0;
    const bool spans = fmin(bw, bh) >= 0.7 * c->cw && fmax(bw, bh) >= 0.7 * c->ch;
    return d->nmask > 0.3 * card || (d->nmask > 0.1 * card && spans);
}

/* Whether mask pixel m (not on the view's border; w: the row's length) is
 * on the silhouette's outline: in it, with a 4-neighbour outside. */
bool cd__on_outline(const unsigned char *m, int w)
{
    return m[0] && (!m[1] || !m[-1] || !m[w] || !m[-w]);
}

/* Whether a sharp step (d->edge) lies within 2 pixels of (x, y): the mask's
 * outline and the steps it grew from may be a pixel or two apart. */
bool cd__near_step(const cd__det *d, int x, int y)
{
    for (int j = y < 2 ? 0 : y - 2; j <= y + 2 && j < d->h; j++)
        for (int i = x < 2 ? 0 : x - 2; i <= x + 2 && i < d->w; i++)
            if (d->edge[j * d->w + i])
                return true;
    return false;
}

/* Whether the silhouette's outline on a pale mat is glare's, not the
 * cards': a lamp's reflection on a pale mat is as white as card stock,
 * and with the cards inside its disc the silhouette is the disc (sim seed
 * 1100001: 0-16 % of its outline near a sharp step, against 20 % and up
 * for cards, over 90 % for most, on the development sets).  Its round
 * outline turned the grid by 10-45 degrees and put its cells half a card
 * off; the cards inside still show as steps (their edges, seams, print),
 * and the grid is fitted to those instead (cd__angle, cd__grid_fit). */
bool cd__soft(const cd__det *d)
{
    if (!d->pale)
        return false;
    int w = d->w, h = d->h, n = 0, nsharp = 0, ninside = 0;
    for (int y = 1, xl, xr; y < h - 1; y++) {
        if (!cd__row_ends(d->mask + y * w, w, &xl, &xr))
            continue;
        for (int x = xl > 1 ? xl : 1; x < w - 1 && x <= xr; x++) {
            const unsigned char *m = d->mask + y * w + x;
            if (!m[0])
                continue;
            ninside += d->edge[y * w + x];
            if (cd__on_outline(m, w)) {
                n++;
                nsharp += cd__near_step(d, x, y);
            }
        }
    }
    return n >= 8 && ninside >= 8 && nsharp < CD__SOFT_SHARP * n;
}

/* Whether a region (runs, nr) of the mask is a granite mat's flecks, not
 * card stock: fewer than CD__FLECK_SOLID of its pixels (those whose 3 x 3
 * neighbourhood is in the region) have all of that neighbourhood brighter
 * than card (d->tb above the mat), and fewer than half all ink (a card's
 * back is).  Stock is solidly bright but for its print and rim (cards
 * 0.53 and up on the development sets); a cluster of flecks run together
 * by the closing is bright only in specks (0.26-0.43; a lamp's pool with
 * dark flecks 0.30-0.41), and ink in a tenth or so.  Such a cluster
 * beside a lone card set the grid's angle to its own (sim seed 920010). */
static bool cd__flecks(const cd__det *d, const cd__run *runs, int nr, int area)
{
    const int w = d->w, h = d->h;
    int n = 0, nbright = 0, nink = 0;
    if (!d->ex)
        return false;
    for (int r = 0; r < nr; r++) {
        const int y = runs[r].y;
        if (y < 1 || y >= h - 1)
            continue;
        for (int x = runs[r].x0 < 1 ? 1 : runs[r].x0; x <= runs[r].x1 && x < w - 1; x++) {
            float mn;
            bool ink;
            if (cd__nb3(d, y * w + x, &mn, &ink)) {
                n++;
                nbright += mn > d->tb;
                nink += ink;
            }
        }
        /* (solid enough whatever the rest holds: most cards, read early) */
        if (nbright >= CD__FLECK_SOLID * area)
            return false;
    }
    return n > 0 && nbright < CD__FLECK_SOLID * n && nink < 0.5 * n;
}

/* The silhouettes: the colour mask opened (noise goes), the outlines
 * added and closed, holes filled (whatever the outside cannot reach is
 * card; only when holes: a survey wants the cards' box alone), then opened
 * again (outline pieces that closed nothing go). */
void cd__open(cd__det *d, bool holes)
{
    unsigned char *t = malloc((size_t)d->w * d->h);
    if (!t)
        return;
    cd__glare(d);
    cd__morph1(d, t, true);
    cd__morph1(d, t, false);
    /* (the planes in locals: a byte store through d would reload them) */
    unsigned char *mask = d->mask;
    const unsigned char *edge = d->edge;
    cd__combine3(mask, mask, mask, edge, d->w * d->h, false);
    cd__morph1(d, t, false);
    cd__morph1(d, t, true);
    /* Holes: the rim of a dark pip blurs through mat-like colours, so the
     * silhouette gets rings and holes; whatever the outside cannot reach
     * is card. */
    int w = d->w, h = d->h, nr = 0;
    /* (the fills' room: the holes', and the specks' below) */
    const bool fills = holes || !d->pale;
    int *stack = fills ? malloc(sizeof *stack * (2 * (size_t)w * h + 4)) : NULL;
    cd__run *runs = fills ? malloc(sizeof *runs * ((size_t)h * (w + 1) / 2 + 1)) : NULL;
    if (holes && stack && runs) {
        /* the outside: what the view's border reaches */
        memset(t, 0, (size_t)w * h);
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x += (y == 0 || y == h - 1) ? 1 : w - 1)
                if (!d->mask[y * w + x] && !t[y * w + x])
                    cd__region(d->mask, 0, w, h, y * w + x, t, 1, stack, NULL, NULL);
        /* A hole of a pip's size is print too (black pips on a black mat
         * are mat-like); specks in a noisy patch of mask are not, nor is
         * the mat showing through a gap that cards laid round an empty
         * cell enclose (card-sized: it would read as a face-down card's
         * back; the largest pips, an ace's, are 150-210 mm2). */
        int minhole = (int)(8 * d->ppm * d->ppm) + 1;
        int maxhole = (int)(CD__PRINT_HOLE_MAX * d->ppm * d->ppm);
        for (int i0 = 0; i0 < w * h; i0++) {
            /* (eight at a time where all are mask or outside) */
            if (i0 + 8 <= w * h) {
                uint64_t q, r;
                memcpy(&q, d->mask + i0, 8);
                memcpy(&r, t + i0, 8);
                q |= r;
                if (!((q - 0x0101010101010101u) & ~q & 0x8080808080808080u)) {
                    i0 += 7;
                    continue;
                }
            }
            if (d->mask[i0] || t[i0])
                continue;
            nr = 0;
            int area = cd__region(d->mask, 0, w, h, i0, t, 2, stack, runs, &nr);
            if (area >= minhole && area <= maxhole)
                for (int r = 0; r < nr; r++)
                    memset(d->ink + (size_t)runs[r].y * w + runs[r].x0, 1,
                           (size_t)(runs[r].x1 - runs[r].x0 + 1));
        }
        for (int i = 0; i < w * h; i++)
            mask[i] = t[i] != 1;
    }
    cd__morph1(d, t, true);
    cd__morph1(d, t, true);
    cd__morph1(d, t, false);
    cd__morph1(d, t, false);
    /* Specks: a granite mat's light flecks (sim seeds 970007, 920010)
     * outlast the opening, a few to a hundred pixels each, all over the
     * view: they set the survey's box to the whole mat, and the grid's
     * angle to theirs (none).  Card stock on a mat that is not pale is
     * one solid region of a card's area or more (a pale mat's lone card
     * may show by its print and a broken outline: not there).
     * Blank patches: on a pale mat, a region with fewer sharp steps in it
     * than a twentieth of its rim's length is none of the cards' (a
     * card's outline is a step wherever it shows, and its print is all
     * steps): the mat's model misfit at its far edges, a patch of shade
     * (sim seed 1100009: blocks of the corners under a camera tilted by
     * 37 degrees, with no step in 1400 rim pixels, set the grid's angle
     * and phase, and the lone card in the middle was read as none). */
    if (stack && runs) {
        int small = (int)(CD__SPECK_MAX * d->ppm * d->ppm);
        memset(t, 0, (size_t)w * h);
        for (int i0 = 0; i0 < w * h; i0++) {
            if (cd__zero8(mask, i0, w * h)) {
                i0 += 7;
                continue;
            }
            if (!mask[i0] || t[i0])
                continue;
            nr = 0;
            int area = cd__region(mask, 1, w, h, i0, t, 1, stack, runs, &nr), nrim = 0, nstep = 0;
            for (int r = 0; d->pale && r < nr; r++) {
                int y = runs[r].y;
                for (int x = runs[r].x0; x <= runs[r].x1; x++) {
                    int k = y * w + x;
                    nstep += edge[k];
                    nrim += x == 0 || y == 0 || x == w - 1 || y == h - 1 || !mask[k - 1] ||
                            !mask[k + 1] || !mask[k - w] || !mask[k + w];
                }
            }
            if (d->pale ? nstep <= CD__BLANK_STEPS * nrim
                        : area < small || (holes && cd__flecks(d, runs, nr, area)))
                for (int r = 0; r < nr; r++) {
                    size_t k = (size_t)runs[r].y * w + runs[r].x0;
                    size_t len = (size_t)(runs[r].x1 - runs[r].x0 + 1);
                    memset(mask + k, 0, len);
                    memset(d->ink + k, 0, len);
                }
        }
    }
    free(stack);
    free(runs);
    free(t);
    d->nmask = cd__count01(mask, w * h);
}

