/* vision/cards_grid.c: the grid the cards lie on, and each card's own
 * outline (see cardsInt.h).
 *
 * Rotation: the angle at which the silhouette's outline, projected on
 * both axes, piles up in the fewest bins.  Phase: the best offset of a
 * comb of the pitch over a profile of the outline plus the seams inside
 * the silhouette (thin lines darker than the paper on both sides: cards
 * that touch merge in the mask, but not without a seam); which axis holds
 * the short side: the assignment whose combs capture the larger share of
 * the edges (when about equal, the one whose cells the silhouette fills
 * whole or not at all).  The next read starts from the angle of a sure
 * reading only (no hand, a face-up card read surely).  Each card's centre
 * is then moved onto its own outline (cd__refine), so that no corner
 * index is cut off. */
#include "cardsInt.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* ---- cutting cards out of the view ----
 *
 * Every card is cut out upright twice or more (its outline's search, its
 * patch, again round its print): an affine map of the view, bilinear.
 * OpenCV's warpPerspective did it at some 90 instructions a pixel, most of
 * them its general remap; this is the same computation written for this
 * one case, pixel for pixel the same bytes (its fixed point: the sample's
 * position in 1/32 pixel from the same doubles, the same 15-bit weights,
 * rounding and border), so that no reading moves. */

/* The 15-bit bilinear weights of each 1/32-pixel fraction (fy * 32 + fx),
 * made as OpenCV makes them (float products rounded, a sum off by one
 * put on the largest or smallest; its search for those reads four
 * entries from the next fraction's, hence the table's slack). */
static void cd__warp_table(short *itab)
{
    float tab1[64];
    for (int i = 0; i < 32; i++) {
        float x = i * (1.f / 32);
        tab1[2 * i] = 1.f - x;
        tab1[2 * i + 1] = x;
    }
    memset(itab, 0, sizeof *itab * (32 * 32 * 4 + 4));
    for (int i = 0; i < 32; i++)
        for (int j = 0; j < 32; j++, itab += 4) {
            int isum = 0;
            for (int k1 = 0; k1 < 2; k1++) {
                float vy = tab1[i * 2 + k1];
                for (int k2 = 0; k2 < 2; k2++) {
                    float v = vy * tab1[j * 2 + k2];
                    float f = v * 32768;
                    /* (round half to even, as cvRound) */
                    float r = rintf(f);
                    int q = (int)r;
                    q = q < -32768 ? -32768 : q > 32767 ? 32767 : q;
                    isum += itab[k1 * 2 + k2] = (short)q;
                }
            }
            if (isum != 32768) {
                int diff = isum - 32768, Mk1 = 1, Mk2 = 1, mk1 = 1, mk2 = 1;
                for (int k1 = 1; k1 < 3; k1++)
                    for (int k2 = 1; k2 < 3; k2++) {
                        if (itab[k1 * 2 + k2] < itab[mk1 * 2 + mk2])
                            mk1 = k1, mk2 = k2;
                        else if (itab[k1 * 2 + k2] > itab[Mk1 * 2 + Mk2])
                            Mk1 = k1, Mk2 = k2;
                    }
                if (diff < 0)
                    itab[Mk1 * 2 + Mk2] = (short)(itab[Mk1 * 2 + Mk2] - diff);
                else
                    itab[mk1 * 2 + mk2] = (short)(itab[mk1 * 2 + mk2] - diff);
            }
        }
}

/* Round half to even of |v| < 2^51 (the default rounding of an add). */
static inline int cd__rint(double v)
{
    const double magic = 6755399441055744.0; /* 1.5 * 2^52 */
    return (int)((v + magic) - magic);
}

#ifdef __SSE2__
/* One pixel of cd__warp: the 2 x 2 samples from p (and the row below,
 * stride on) weighed by w8 (a wtab8 entry), rounded, as 32-bit lanes
 * blue, green, red (the fourth unused). */
static inline __m128i cd__bilin(const unsigned char *p, size_t stride, const short *w8)
{
    const __m128i z = _mm_setzero_si128();
    __m128i pv = _mm_unpacklo_epi8(_mm_loadl_epi64((const __m128i *)p), z);
    __m128i qv = _mm_unpacklo_epi8(_mm_loadl_epi64((const __m128i *)(p + stride)), z);
    /* b0 qb0 g0 qg0 r0 qr0 b1 qb1 | g1 qg1 r1 qr1 ... */
    __m128i lo = _mm_unpacklo_epi16(pv, qv), hi = _mm_unpackhi_epi16(pv, qv);
    __m128i wv = _mm_loadu_si128((const __m128i *)w8);
    __m128i s1 = _mm_madd_epi16(lo, wv);
    /* (the right pair b f for the last two channels) */
    __m128i s2 = _mm_madd_epi16(hi, _mm_shuffle_epi32(wv, 0xff));
    /* left pairs + right pairs, channel by channel */
    __m128i sum =
        _mm_add_epi32(s1, _mm_or_si128(_mm_srli_si128(s1, 12), _mm_slli_si128(s2, 4)));
    return _mm_srli_epi32(_mm_add_epi32(sum, _mm_set1_epi32(1 << 14)), 15);
}
#endif

/* A pixel of cd__warp stored at d, white-balanced through lut when given
 * (its bytes by value, stored once: through d, each store would be read
 * back for the lut, the compiler not knowing lut and d apart). */
static inline void cd__put(unsigned char *d, unsigned v0, unsigned v1, unsigned v2,
                           unsigned char lut[3][256])
{
    if (lut) {
        v0 = lut[0][v0];
        v1 = lut[1][v1];
        v2 = lut[2][v2];
    }
    d[0] = (unsigned char)v0;
    d[1] = (unsigned char)v1;
    d[2] = (unsigned char)v2;
}

/* dst (3 channels) over the rectangle [x0, x1) x [y0, y1) of it = the
 * view sampled bilinearly through the inverse of hinv (view pixel -> dst
 * pixel), outside the view black, then white-balanced through lut when
 * given.  What vis_warp_perspective(src, hinv, ..., VIS_INTER_LINEAR,
 * black) gives there, byte for byte, for an affine hinv; false for
 * another (the caller falls back to it). */
static bool cd__warp(const vis_cards *c, const vis_image *src, vis_homography hinv, vis_image *dst,
                     int x0, int y0, int x1, int y1, unsigned char lut[3][256])
{
    const double *S = hinv.m;
    /* OpenCV's inverse of a 3 x 3 (its own formula: the same doubles) */
    double det = S[0] * (S[4] * S[8] - S[5] * S[7]) - S[1] * (S[3] * S[8] - S[5] * S[6]) +
                 S[2] * (S[3] * S[7] - S[4] * S[6]);
    if (det == 0 || src->channels != 3 || dst->channels != 3)
        return false;
    double id = 1. / det, M[9];
    M[0] = (S[4] * S[8] - S[5] * S[7]) * id;
    M[1] = (S[2] * S[7] - S[1] * S[8]) * id;
    M[2] = (S[1] * S[5] - S[2] * S[4]) * id;
    M[3] = (S[5] * S[6] - S[3] * S[8]) * id;
    M[4] = (S[0] * S[8] - S[2] * S[6]) * id;
    M[5] = (S[2] * S[3] - S[0] * S[5]) * id;
    M[6] = (S[3] * S[7] - S[4] * S[6]) * id;
    M[7] = (S[1] * S[6] - S[0] * S[7]) * id;
    M[8] = (S[0] * S[4] - S[1] * S[3]) * id;
    if (M[6] != 0 || M[7] != 0 || M[8] == 0)
        return false;
    /* the sample's position in 1/32 pixel: (X0 + M0 x1) 32 / M8 per pixel,
     * X0 at the start of each block of the row, as OpenCV's blocks compute
     * it; clamped to ints, as it clamps (two pixels at a time where no
     * clamp can act) */
    const double W = 32.0 / M[8];
    const int sw = src->width, sh = src->height;
    const size_t sstride = (size_t)src->stride;
    const unsigned char *sd = src->data;
#ifdef __SSE2__
    const unsigned char *send = sd + sstride * (size_t)(sh - 1) + 3 * (size_t)sw;
#endif
    const unsigned w1 = (unsigned)(sw > 1 ? sw - 1 : 0), h1 = (unsigned)(sh > 1 ? sh - 1 : 0);
    x0 = x0 < 0 ? 0 : x0;
    y0 = y0 < 0 ? 0 : y0;
    x1 = x1 > dst->width ? dst->width : x1;
    y1 = y1 > dst->height ? dst->height : y1;
    typedef double cd__v2d __attribute__((vector_size(16)));
    typedef int cd__v2i __attribute__((vector_size(8)));
    const double magic = 6755399441055744.0; /* 1.5 * 2^52: see cd__rint */
    /* OpenCV's block width: 1024 pixels a block, 16 rows high (fewer in a
     * shorter image) */
    const int bh0 = dst->height < 16 ? dst->height : 16;
    const int bw0 = 1024 / bh0 < dst->width ? 1024 / bh0 : dst->width;
    int *XY = malloc(sizeof *XY * 2 * (size_t)bw0);
    if (!XY)
        return false;
    for (int y = y0; y < y1; y++) {
        unsigned char *d = dst->data + (size_t)y * dst->stride + 3 * (size_t)x0;
        for (int xs = x0; xs < x1;) {
            /* the span of a 64-pixel block: its positions first */
            const int xb = xs / bw0 * bw0, xe = xb + bw0 < x1 ? xb + bw0 : x1, n = xe - xs;
            const double X0 = M[0] * xb + M[1] * y + M[2], Y0 = M[3] * xb + M[4] * y + M[5];
            /* (both ends within 2^20 / 32 pixels: no clamp can act in
             * between, the positions being monotonic along the row) */
            double ea = (X0 + M[0] * (xs - xb)) * W, eb = (X0 + M[0] * (xe - 1 - xb)) * W;
            double fa = (Y0 + M[3] * (xs - xb)) * W, fb = (Y0 + M[3] * (xe - 1 - xb)) * W;
            const double lim = 1048576.0;
            const bool safe = fabs(ea) < lim && fabs(eb) < lim && fabs(fa) < lim && fabs(fb) < lim;
            if (safe) {
                const cd__v2d vX0 = {X0, X0}, vY0 = {Y0, Y0}, vM0 = {M[0], M[0]},
                              vM3 = {M[3], M[3]}, vW = {W, W}, vmg = {magic, magic};
#ifdef __SSE2__
                /* A block whose samples all lie inside the view (their
                 * positions are monotonic along the row: its ends tell)
                 * goes two pixels at a time, their positions made as they
                 * are used, with no test per pixel: most blocks. */
                const int xa = cd__rint(ea) >> 5, xz = cd__rint(eb) >> 5;
                const int ya = cd__rint(fa) >> 5, yz = cd__rint(fb) >> 5;
                const int xl = xa < xz ? xa : xz, xh = xa < xz ? xz : xa;
                const int yl = ya < yz ? ya : yz, yh = ya < yz ? yz : ya;
                if (n > 0 && xl >= 0 && yl >= 0 && (unsigned)xh < w1 && (unsigned)yh < h1 &&
                    sd + (size_t)(yh + 1) * sstride + 3 * (size_t)xh + 8 <= send) {
                    unsigned char *const dn = d + 3 * (size_t)n;
                    const cd__v2d two = {2, 2};
                    cd__v2d xi = {(double)(xs - xb), (double)(xs - xb + 1)};
                    for (int k = 0; k < n; k += 2, d += 6, xi += two) {
                        cd__v2d fX = (vX0 + vM0 * xi) * vW, fY = (vY0 + vM3 * xi) * vW;
                        fX = (fX + vmg) - vmg;
                        fY = (fY + vmg) - vmg;
                        cd__v2i iX = __builtin_convertvector(fX, cd__v2i);
                        cd__v2i iY = __builtin_convertvector(fY, cd__v2i);
                        /* (an odd block's last pixel twice: stored once) */
                        const bool pair = k + 1 < n;
                        const int XA = iX[0], YA = iY[0];
                        const int XB = pair ? iX[1] : XA, YB = pair ? iY[1] : YA;
                        const size_t oa = (size_t)(YA >> 5) * sstride + 3 * (size_t)(XA >> 5);
                        const size_t ob = (size_t)(YB >> 5) * sstride + 3 * (size_t)(XB >> 5);
                        __m128i sa = cd__bilin(sd + oa, sstride,
                                               c->wtab8 + 8 * ((YA & 31) * 32 + (XA & 31)));
                        __m128i sb = cd__bilin(sd + ob, sstride,
                                               c->wtab8 + 8 * ((YB & 31) * 32 + (XB & 31)));
                        __m128i pk = _mm_packs_epi32(sa, sb);
                        pk = _mm_packus_epi16(pk, pk);
                        uint32_t va = (uint32_t)_mm_cvtsi128_si32(pk);
                        uint32_t vb = (uint32_t)_mm_cvtsi128_si32(_mm_srli_si128(pk, 4));
                        cd__put(d, va & 255, va >> 8 & 255, va >> 16 & 255, lut);
                        if (!pair)
                            break;
                        cd__put(d + 3, vb & 255, vb >> 8 & 255, vb >> 16 & 255, lut);
                    }
                    d = dn;
                    xs = xe;
                    continue;
                }
#endif
                int k = 0;
                for (; k + 2 <= n; k += 2) {
                    const cd__v2d xi = {(double)(xs - xb + k), (double)(xs - xb + k + 1)};
                    cd__v2d fX = (vX0 + vM0 * xi) * vW, fY = (vY0 + vM3 * xi) * vW;
                    fX = (fX + vmg) - vmg;
                    fY = (fY + vmg) - vmg;
                    cd__v2i iX = __builtin_convertvector(fX, cd__v2i);
                    cd__v2i iY = __builtin_convertvector(fY, cd__v2i);
                    XY[2 * k] = iX[0];
                    XY[2 * k + 1] = iY[0];
                    XY[2 * k + 2] = iX[1];
                    XY[2 * k + 3] = iY[1];
                }
                for (; k < n; k++) {
                    int xi = xs - xb + k;
                    XY[2 * k] = cd__rint((X0 + M[0] * xi) * W);
                    XY[2 * k + 1] = cd__rint((Y0 + M[3] * xi) * W);
                }
            } else {
                for (int k = 0; k < n; k++) {
                    int xi = xs - xb + k;
                    double fX = (X0 + M[0] * xi) * W, fY = (Y0 + M[3] * xi) * W;
                    fX = fX < -2147483648.0 ? -2147483648.0 : fX > 2147483647.0 ? 2147483647.0 : fX;
                    fY = fY < -2147483648.0 ? -2147483648.0 : fY > 2147483647.0 ? 2147483647.0 : fY;
                    XY[2 * k] = cd__rint(fX);
                    XY[2 * k + 1] = cd__rint(fY);
                }
            }
            for (int k = 0; k < n; k++, d += 3) {
                const int X = XY[2 * k], Y = XY[2 * k + 1];
                int sx = X >> 5, sy = Y >> 5;
                if (!safe) {
                    sx = sx < -32768 ? -32768 : sx > 32767 ? 32767 : sx;
                    sy = sy < -32768 ? -32768 : sy > 32767 ? 32767 : sy;
                }
                const short *wt = c->wtab + 4 * ((Y & 31) * 32 + (X & 31));
                unsigned v0, v1, v2;
                if ((unsigned)sx < w1 && (unsigned)sy < h1) {
                    const unsigned char *p = sd + (size_t)sy * sstride + 3 * (size_t)sx;
                    const unsigned char *q = p + sstride;
#ifdef __SSE2__
                    /* (eight bytes read from each row: not past the view's
                     * last byte) */
                    if (q + 8 <= send) {
                        __m128i sum = cd__bilin(p, sstride,
                                                c->wtab8 + 8 * ((Y & 31) * 32 + (X & 31)));
                        sum = _mm_packs_epi32(sum, sum);
                        uint32_t v = (uint32_t)_mm_cvtsi128_si32(_mm_packus_epi16(sum, sum));
                        cd__put(d, v & 255, v >> 8 & 255, v >> 16 & 255, lut);
                        continue;
                    }
#endif
                    /* blue and red in the two halves of one 64-bit sum (each
                     * below 2^24: the weights are whole and 2^15 in all) */
                    const uint64_t wa = (uint16_t)wt[0], wb = (uint16_t)wt[1],
                                   we = (uint16_t)wt[2], wf = (uint16_t)wt[3];
                    uint64_t br = ((uint64_t)p[0] | (uint64_t)p[2] << 32) * wa +
                                  ((uint64_t)p[3] | (uint64_t)p[5] << 32) * wb +
                                  ((uint64_t)q[0] | (uint64_t)q[2] << 32) * we +
                                  ((uint64_t)q[3] | (uint64_t)q[5] << 32) * wf +
                                  ((uint64_t)1 << 14 | (uint64_t)1 << 46);
                    uint32_t g = (uint32_t)(p[1] * wa + p[4] * wb + q[1] * we + q[4] * wf + (1 << 14));
                    v0 = (unsigned char)(br >> 15);
                    v1 = (unsigned char)(g >> 15);
                    v2 = (unsigned char)(br >> 47);
                } else if (sx >= sw || sx + 1 < 0 || sy >= sh || sy + 1 < 0) {
                    v0 = v1 = v2 = 0;
                } else {
                    /* on the view's border: what lies outside is black */
                    bool in[4] = {sx >= 0 && sy >= 0, sx + 1 < sw && sy >= 0,
                                  sx >= 0 && sy + 1 < sh, sx + 1 < sw && sy + 1 < sh};
                    unsigned o[3];
                    for (int ch = 0; ch < 3; ch++) {
                        int v[4];
                        for (int t = 0; t < 4; t++)
                            v[t] = in[t] ? sd[(size_t)(sy + (t >> 1)) * sstride +
                                              3 * (size_t)(sx + (t & 1)) + ch]
                                         : 0;
                        int r = (v[0] * wt[0] + v[1] * wt[1] + v[2] * wt[2] + v[3] * wt[3] +
                                 (1 << 14)) >> 15;
                        o[ch] = (unsigned char)(r < 0 ? 0 : r > 255 ? 255 : r);
                    }
                    v0 = o[0];
                    v1 = o[1];
                    v2 = o[2];
                }
                cd__put(d, v0, v1, v2, lut);
            }
            xs = xe;
        }
    }
    free(XY);
    return true;
}


/* Fills c's bilinear weight tables (see struct vis_cards). */
void cd__warp_init(vis_cards *c)
{
    cd__warp_table(c->wtab);
    /* (a e a e a e b f: the top row's left weight beside the bottom
     * row's, three channels, then the right pair) */
    for (int i = 0; i < 32 * 32; i++) {
        const short *w = c->wtab + 4 * i;
        short *o = c->wtab8 + 8 * i;
        for (int k = 0; k < 3; k++) {
            o[2 * k] = w[0];
            o[2 * k + 1] = w[2];
        }
        o[6] = w[1];
        o[7] = w[3];
    }
}

/* ---- the grid ---- */


static double cd__wrap(double a, double p) { return a - p * floor(a / p); }

/* floor(z) as an int, for |z| < 2^31: the truncation, less one below a
 * negative fraction (fewer instructions than floor's own, in the loops
 * over every pixel of the view) */
static inline int cd__ifloor(double z)
{
    int i = (int)z;
    return i - (z < (double)i);
}

/* The grid's rotation modulo 90 degrees: the angle at which the
 * silhouette's outline pixels (or its steps, cd__angle_point), projected
 * on the two axes, pile up in the fewest bins (straight card edges on the
 * grid's lines).  Pixel-level
 * edge directions would not do: a binary staircase votes for the pixel
 * axes. */
static double cd__proj_score(const double *px, const double *py, int n, double ang, int *hist,
                             int nb, double lo, const float box[4])
{
    double ca = cos(ang), sa = sin(ang), s = 0;
    /* The bins the points can reach: those of the points' box's corners
     * (rounding is monotonic, so no point projects past the extreme
     * corner), a bin of slack each way; only they are cleared and summed
     * (the empty ones add 0; the view's diagonal is far longer than the
     * board). */
    int ra[2] = {nb, nb}, rb[2] = {-1, -1};
    for (int k = 0; k < 4; k++) {
        double x = box[k & 1 ? 2 : 0], y = box[k & 2 ? 3 : 1];
        int iu = (int)floor(x * ca + y * sa - lo), iv = (int)floor(-x * sa + y * ca - lo);
        ra[0] = iu - 1 < ra[0] ? iu - 1 : ra[0];
        rb[0] = iu + 1 > rb[0] ? iu + 1 : rb[0];
        ra[1] = iv - 1 < ra[1] ? iv - 1 : ra[1];
        rb[1] = iv + 1 > rb[1] ? iv + 1 : rb[1];
    }
    bool inside = ra[0] >= 0 && ra[1] >= 0 && rb[0] < nb && rb[1] < nb;
    for (int k = 0; k < 2; k++) {
        ra[k] = ra[k] < 0 ? 0 : ra[k];
        rb[k] = rb[k] > nb - 1 ? nb - 1 : rb[k];
        if (ra[k] <= rb[k])
            memset(hist + k * nb + ra[k], 0, sizeof *hist * (size_t)(rb[k] - ra[k] + 1));
    }
    /* (whole counts: outline points come in runs on one bin, and an
     * integer add waits less on the last one than a float add; no bounds
     * to test when the reachable bins lie in the histogram, as they do
     * for the view's own points) */
    if (inside) {
        int *hv = hist + nb;
        for (int i = 0; i < n; i++) {
            double u = px[i] * ca + py[i] * sa - lo, v = -px[i] * sa + py[i] * ca - lo;
            hist[(int)u]++;
            hv[(int)v]++;
        }
    } else {
        for (int i = 0; i < n; i++) {
            double u = px[i] * ca + py[i] * sa - lo, v = -px[i] * sa + py[i] * ca - lo;
            int iu = (int)u, iv = (int)v;
            if (iu >= 0 && iu < nb)
                hist[iu]++;
            if (iv >= 0 && iv < nb)
                hist[nb + iv]++;
        }
    }
    for (int k = 0; k < 2; k++)
        for (int i = k * nb + ra[k]; i <= k * nb + rb[k]; i++)
            s += (double)hist[i] * hist[i];
    return s;
}

/* Whether print (d->ink) lies in pixel i's 3 x 3 neighbourhood (i not on
 * the view's border). */
static inline bool cd__print_beside(const cd__det *d, int i)
{
    const int w = d->w;
    for (int j = i - w; j <= i + w; j += w)
        if (d->ink[j - 1] || d->ink[j] || d->ink[j + 1])
            return true;
    return false;
}

/* Whether pixel i of the mask (not on the view's border) is one of
 * cd__angle's points: on the outline, or where the outline is glare's
 * (d->soft) a sharp step inside it with no print beside it (the cards'
 * edges and seams pile up on the grid's lines; their print does not add
 * to every angle alike: a pip card's pips lie on a lattice, whose
 * diagonals won over a lone card's faint outline, sim seed 1400004 frame
 * 6's 8H: 40 degrees off). */
static inline bool cd__angle_point(const cd__det *d, const unsigned char *m, int i)
{
    if (!d->soft)
        return cd__on_outline(m, d->w);
    return m[0] && d->edge[i] && !cd__print_beside(d, i);
}

static double cd__angle(const cd__det *d)
{
    int w = d->w, h = d->h, n = 0, cap = 0;
    /* (outline points lie between a row's first and last mask pixels) */
    for (int y = 1, xl, xr; y < h - 1; y++) {
        if (!cd__row_ends(d->mask + y * w, w, &xl, &xr))
            continue;
        for (int x = xl > 1 ? xl : 1; x < w - 1 && x <= xr; x++)
            cap += cd__angle_point(d, d->mask + y * w + x, y * w + x);
    }
    if (cap < 8)
        return 0;
    /* (the points' floats held as doubles: the same values, converted once) */
    double *px = malloc(sizeof *px * (size_t)cap), *py = malloc(sizeof *py * (size_t)cap);
    double diag = sqrt((double)w * w + (double)h * h) / d->ppm;
    int nb = (int)(2 * diag) + 4;
    int *hist = malloc(sizeof *hist * (size_t)nb * 2);
    if (!px || !py || !hist) {
        free(px);
        free(py);
        free(hist);
        return 0;
    }
    float box[4] = {1e30f, 1e30f, -1e30f, -1e30f}; /* the points' x0 y0 x1 y1 */
    for (int y = 1, xl, xr; y < h - 1; y++) {
        if (!cd__row_ends(d->mask + y * w, w, &xl, &xr))
            continue;
        for (int x = xl > 1 ? xl : 1; x < w - 1 && x <= xr; x++) {
            if (cd__angle_point(d, d->mask + y * w + x, y * w + x)) {
                float fx = (float)((x + 0.5) / d->ppm), fy = (float)((y + 0.5) / d->ppm);
                px[n] = fx;
                py[n] = fy;
                box[0] = fx < box[0] ? fx : box[0];
                box[1] = fy < box[1] ? fy : box[1];
                box[2] = fx > box[2] ? fx : box[2];
                box[3] = fy > box[3] ? fy : box[3];
                n++;
            }
        }
    }
    double best = 0, bs = -1, lo = -diag - 2;
    for (int k = 0; k < 180; k++) {
        double a = k * 0.5 * CD__PI / 180, sc = cd__proj_score(px, py, n, a, hist, nb, lo, box);
        if (sc > bs) {
            bs = sc;
            best = a;
        }
    }
    for (double step = 0.1; step > 0.02; step /= 2) {
        double b0 = best;
        for (int k = -3; k <= 3; k++) {
            double a = b0 + k * step * CD__PI / 180, sc = cd__proj_score(px, py, n, a, hist, nb, lo, box);
            if (sc > bs) {
                bs = sc;
                best = a;
            }
        }
    }
    free(px);
    free(py);
    free(hist);
    return cd__wrap(best, CD__PI / 2);
}

/* Best phase of a comb of pitch p (mm) over an edge profile e (1 mm bins
 * starting at lo); returns the contrast (peak minus mean, over the total)
 * and the phase. */
static double cd__comb(const double *e, int n, double lo, double p, double *phase)
{
    int np = (int)ceil(p);
    double best = -1, sum = 0;
    *phase = lo;
    for (int k = 0; k < np; k++) {
        double s = 0;
        for (double t = k; t < n; t += p) {
            int i = (int)(t + 0.5);
            /* teeth 5 mm wide: blur grows a bright card's silhouette by a
             * millimetre or two each way */
            for (int j = i - 2; j <= i + 2; j++)
                if (j >= 0 && j < n)
                    s += e[j] * (j == i ? 1 : abs(j - i) == 1 ? 0.6 : 0.3);
        }
        sum += s;
        if (s > best) {
            best = s;
            *phase = lo + k;
        }
    }
    /* as a share of all the edge mass: a longer pitch has fewer teeth and
     * would otherwise lose to a shorter one on a small board */
    double total = 0;
    for (int i = 0; i < n; i++)
        total += e[i];
    return total > 0 ? (best - sum / np) / total : 0;
}

/* How far the silhouette is from filling the cells of a grid (pitch pu
 * along u, pv along v, phases phu, phv) whole or not at all: the part of
 * each cell's mask pixels or of its free pixels, whichever is less,
 * summed over the cells, over all mask pixels. */
static double cd__fill_ambiguity(const cd__det *d, double ca, double sa, double pu, double pv,
                                 double phu, double phv)
{
    enum { N = 24 };
    double in[N][N] = {{0}}, step = 1 / d->ppm, tot = 0, amb = 0;
    int k0u = 1 << 30, k0v = 1 << 30;
    /* each pixel's cell, from the first pass (the divisions were most of
     * the cost; without room, the second pass divides again) */
    int cap = d->nmask > 0 ? d->nmask : 0, np = 0;
    int *kk = malloc(sizeof *kk * 2 * ((size_t)cap + 1));
    /* the first pass finds the cells' origin, the second counts */
    for (int pass = 0; pass < 2; pass++, np = 0)
        for (int y = 0, xl = 0, xr = -1; y < d->h; y++)
            for (int x = cd__row_ends(d->mask + y * d->w, d->w, &xl, &xr) ? xl : d->w;
                 x < d->w && x <= xr; x++) {
                if (!d->mask[y * d->w + x])
                    continue;
                int ku, kv;
                if (pass == 1 && kk && np < cap) {
                    ku = kk[2 * np];
                    kv = kk[2 * np + 1];
                } else {
                    double tx = d->x0 + (x + 0.5) * step, ty = d->y0 + (y + 0.5) * step;
                    ku = cd__ifloor((tx * ca + ty * sa - phu) / pu);
                    kv = cd__ifloor((-tx * sa + ty * ca - phv) / pv);
                }
                if (pass == 0 && kk && np < cap) {
                    kk[2 * np] = ku;
                    kk[2 * np + 1] = kv;
                }
                np++;
                if (pass == 0) {
                    k0u = ku < k0u ? ku : k0u;
                    k0v = kv < k0v ? kv : k0v;
                } else if (ku - k0u < N && kv - k0v < N) {
                    in[kv - k0v][ku - k0u] += 1;
                    tot += 1;
                }
            }
    free(kk);
    double area = pu * pv * d->ppm * d->ppm;
    for (int j = 0; j < N; j++)
        for (int i = 0; i < N; i++)
            if (in[j][i] > 0)
                amb += fmin(in[j][i], fmax(0, area - in[j][i]));
    return tot > 0 ? amb / tot : 1;
}

/* force: the angle of the grid's u axis (the short side) when not NaN
 * (else the silhouette's, turned the nearest way to the last reading's) */
/* A small board's cell phase along an axis: the combs' (*ph), unless it
 * lies more than 4 mm (cd__refine's search) off the silhouette's (at,
 * pitch p). */
static void cd__span_phase(double *ph, double at, double p)
{
    if (fabs(remainder(*ph - at, p)) > 4)
        *ph = at;
}

void cd__grid_fit(vis_cards *c, const cd__det *d, cd__grid *g, double force)
{
    double ang = isnan(force) ? cd__angle(d) : force, ca, sa;
    double umin = 1e9, umax = -1e9, vmin = 1e9, vmax = -1e9;
    memset(g, 0, sizeof *g);
    /* keep the axes of the last reading: u the same way as before */
    if (c->have_angle && isnan(force)) {
        double best = ang, bd = 1e9;
        for (int k = -2; k <= 2; k++) {
            double a = ang + k * CD__PI / 2, dd = fabs(remainder(a - c->last_angle, 2 * CD__PI));
            if (dd < bd) {
                bd = dd;
                best = a;
            }
        }
        ang = best;
    }
    ca = cos(ang);
    sa = sin(ang);
    for (int y = 0, xe[2]; y < d->h; y++)
        if (cd__row_ends(d->mask + y * d->w, d->w, &xe[0], &xe[1]))
            for (int k = 0; k < 2; k++) {
                double tx = d->tx[xe[k]], ty = d->ty[y];
                double u = tx * ca + ty * sa, v = -tx * sa + ty * ca;
                umin = u < umin ? u : umin;
                umax = u > umax ? u : umax;
                vmin = v < vmin ? v : vmin;
                vmax = v > vmax ? v : vmax;
            }
    if (umax < umin)
        return;
    umin -= 4;
    vmin -= 4;
    int nu = (int)(umax - umin) + 6, nv = (int)(vmax - vmin) + 6;
    double *pu = calloc((size_t)nu, sizeof *pu), *pv = calloc((size_t)nv, sizeof *pv);
    double *eu = calloc((size_t)nu, sizeof *eu), *ev = calloc((size_t)nv, sizeof *ev);
    if (!pu || !pv || !eu || !ev)
        goto done;
    /* Edge profiles: the silhouette's outline along u projected on u, and
     * so for v; plus, inside the silhouette, thin dark lines across u: the
     * seams where cards touch (they merge in the mask, but a seam is a line
     * darker than the paper on both sides).  A ridge measure, not the
     * gradient: JPEG's 8x8 blocks make steps all over a pale card, and pip
     * and glyph sides are steps too.  Both are clamped, so that a long
     * faint seam counts per row as much as an outer edge. */
    {
        const double cap = 90;
        /* the ridge's neighbours two pixels either side along u and v:
         * whole-pixel offsets, the same for every pixel */
        const double st = 2;
        const int oxa = (int)lround(st * ca), oya = (int)lround(st * sa);
        const int oxb = (int)lround(-st * ca), oyb = (int)lround(-st * sa);
        const int oxc = (int)lround(-st * sa), oyc = (int)lround(st * ca);
        const int oxd = (int)lround(st * sa), oyd = (int)lround(-st * ca);
        /* (d->soft: three pixels along u and along v, as offsets) */
        const int lau = (int)lround(3 * ca) + d->w * (int)lround(3 * sa);
        const int lav = (int)lround(-3 * sa) + d->w * (int)lround(3 * ca);
        for (int y = 1; y < d->h - 1; y++)
            for (int x = 1; x < d->w - 1; x++) {
                const unsigned char *m = d->mask + y * d->w + x;
                /* (eight pixels at a time where none of them nor their
                 * neighbours is in the mask: most of the view) */
                if (x + 8 < d->w) {
                    uint64_t q0, q1, q2, q3;
                    memcpy(&q0, m - 1, 8);
                    memcpy(&q1, m + 1, 8);
                    memcpy(&q2, m - d->w, 8);
                    memcpy(&q3, m + d->w, 8);
                    if (!(q0 | q1 | q2 | q3)) {
                        x += 7;
                        continue;
                    }
                }
                int gx = m[1] - m[-1], gy = m[d->w] - m[-d->w];
                /* Where the outline is glare's (d->soft): only the parts
                 * of it on a sharp step (a card reaching out of the
                 * glare), and thin straight steps inside it, across u or
                 * across v (the cards' edges and seams; pips and glyphs
                 * are blobs, steps both ways) */
                double lu = 0, lv = 0;
                if (d->soft) {
                    if ((gx || gy) && !cd__near_step(d, x, y))
                        gx = gy = 0;
                    if (m[0] && d->edge[y * d->w + x] && x >= 3 && y >= 3 && x < d->w - 3 &&
                        y < d->h - 3) {
                        const unsigned char *e = d->edge + y * d->w + x;
                        if (e[lav] && e[-lav] && !e[lau] && !e[-lau])
                            lu = cap;
                        if (e[lau] && e[-lau] && !e[lav] && !e[-lav])
                            lv = cap;
                    }
                }
                /* (off the outline and outside the silhouette a pixel
                 * adds nothing: most of the view) */
                if (!m[0] && !gx && !gy)
                    continue;
                double tx = d->tx[x], ty = d->ty[y];
                double u = tx * ca + ty * sa - umin, v = -tx * sa + ty * ca - vmin;
                int iu = (int)u, iv = (int)v;
                double ou = fabs(gx * ca + gy * sa), ov = fabs(-gx * sa + gy * ca);
                double ru = 0, rv = 0;
                if (m[0]) {
                    /* brightness two pixels either side along u, and v */
                    int xa = x + oxa, ya = y + oya, xb = x + oxb, yb = y + oyb;
                    int xc = x + oxc, yc = y + oyc, xd = x + oxd, yd = y + oyd;
                    /* (the offsets are at most 2 pixels: 2 pixels in from
                     * the view's border, all four lie in it) */
                    bool in2 = x >= 2 && y >= 2 && x < d->w - 2 && y < d->h - 2;
                    if ((in2 || (xa >= 0 && xb >= 0 && xc >= 0 && xd >= 0 && ya >= 0 && yb >= 0 &&
                                 yc >= 0 && yd >= 0 && xa < d->w && xb < d->w && xc < d->w &&
                                 xd < d->w && ya < d->h && yb < d->h && yc < d->h && yd < d->h)) &&
                        d->mask[ya * d->w + xa] && d->mask[yb * d->w + xb] &&
                        d->mask[yc * d->w + xc] && d->mask[yd * d->w + xd]) {
#define CD__BR(xx, yy) (d->rgb[((size_t)(yy) * d->w + (xx)) * 3] + d->rgb[((size_t)(yy) * d->w + (xx)) * 3 + 1] + d->rgb[((size_t)(yy) * d->w + (xx)) * 3 + 2])
                        int c0 = CD__BR(x, y);
                        int a = CD__BR(xa, ya), b = CD__BR(xb, yb);
                        int cc = CD__BR(xc, yc), dd = CD__BR(xd, yd);
#undef CD__BR
                        /* (whole numbers: fmin's library call not needed) */
                        ru = (a < b ? a : b) - c0;
                        rv = (cc < dd ? cc : dd) - c0;
                    }
                }
                ru = ru > 12 ? (ru < cap ? ru : cap) : 0;
                rv = rv > 12 ? (rv < cap ? rv : cap) : 0;
                /* (inside glare's outline, a ridge beside print is the
                 * print's: the index's small symbols and letters, in
                 * columns a few millimetres in from the cards' edges,
                 * set sim seed 1100001 frame 54's columns 21 mm off) */
                if (d->soft && (ru > 0 || rv > 0) && cd__print_beside(d, y * d->w + x))
                    ru = rv = 0;
                /* (adding 0 to the non-negative sums changes nothing) */
                if (!gx && !gy && ru == 0 && rv == 0 && lu == 0 && lv == 0)
                    continue;
                if (iu >= 0 && iu < nu)
                    eu[iu] += cap * ou + ru + lu;
                if (iv >= 0 && iv < nv)
                    ev[iv] += cap * ov + rv + lv;
            }
    }
    {
        /* (a forced angle is the short side's: the other way round, and
         * the fill test that chooses between the two, would go unused) */
        const bool forced = !isnan(force);
        double phu_a, phv_a, phu_b = 0, phv_b = 0;
        double sa_ = cd__comb(eu, nu, umin, c->cw, &phu_a) + cd__comb(ev, nv, vmin, c->ch, &phv_a);
        double sb_ = forced ? 0
                            : cd__comb(eu, nu, umin, c->ch, &phu_b) +
                                  cd__comb(ev, nv, vmin, c->cw, &phv_b);
        /* The combs alone cannot tell which way a small board lies (two
         * cards side by side: 126 x 88 mm): then the way that fills its
         * cells cleanly, whole or empty, wins.  A silhouette of glare
         * (d->soft) fills no cells cleanly: the way of the last sure
         * reading wins (cards on the table do not turn by 90 degrees). */
        if (!forced && fabs(sa_ - sb_) < 0.25 * fmax(sa_, sb_)) {
            if (!d->soft) {
                double fa = cd__fill_ambiguity(d, ca, sa, c->cw, c->ch, phu_a, phv_a);
                double fb = cd__fill_ambiguity(d, ca, sa, c->ch, c->cw, phu_b, phv_b);
                sa_ = fa <= fb ? 1 : 0;
                sb_ = fa <= fb ? 0 : 1;
            } else if (c->angle_sure) {
                bool wa = fabs(remainder(ang - c->last_angle, CD__PI)) <=
                          fabs(remainder(ang + CD__PI / 2 - c->last_angle, CD__PI));
                sa_ = wa;
                sb_ = !wa;
            }
        }
        /* One card alone: its silhouette's extent says which way it lies
         * (on a pale mat its outline may be too broken for the combs; a
         * silhouette of glare's extent says nothing) */
        const double eu_ = umax - umin - 4, ev_ = vmax - vmin - 4, tol = 10;
        bool lone_a = eu_ < c->cw + tol && ev_ < c->ch + tol && ev_ > c->ch - 1.5 * tol;
        bool lone_b = ev_ < c->cw + tol && eu_ < c->ch + tol && eu_ > c->ch - 1.5 * tol;
        if (lone_a != lone_b && !d->soft) {
            sa_ = lone_a;
            sb_ = lone_b;
        }
        /* and where, along an axis the silhouette spans one or two
         * cards whole: when the combs put its cells more than the
         * outline's search (cd__refine) can mend off the silhouette's
         * middle (they follow what outline there is) */
        {
            const bool a_ = sa_ >= sb_ || forced;
            const double mu = 0.5 * (umin + 4 + umax), mv = 0.5 * (vmin + 4 + vmax);
            const double pu_ = a_ ? c->cw : c->ch, pv_ = a_ ? c->ch : c->cw;
            const long nu_ = lround(eu_ / pu_), nv_ = lround(ev_ / pv_);
            /* (a silhouette that fills its box: cards alone.  A patch
             * of a granite mat's specks run into them (a card's size,
             * ragged, full of holes) would pull the cells onto itself;
             * a pale mat's broken outline fills little, and it is what
             * this is for; glare's (d->soft) is not the cards' extent) */
            const bool full = !d->soft &&
                              (d->pale || d->nmask >= 0.85 * eu_ * ev_ * d->ppm * d->ppm);
            if (full && nu_ >= 1 && nu_ <= 2 && fabs(eu_ - nu_ * pu_) < tol)
                cd__span_phase(a_ ? &phu_a : &phu_b, mu - 0.5 * nu_ * pu_, pu_);
            if (full && nv_ >= 1 && nv_ <= 2 && fabs(ev_ - nv_ * pv_) < tol)
                cd__span_phase(a_ ? &phv_a : &phv_b, mv - 0.5 * nv_ * pv_, pv_);
        }
        /* a forced angle is the short side's */
        if (forced) {
            sa_ = 1;
            sb_ = 0;
        }
        if (sa_ >= sb_) {
            g->ang = ang;
            g->pu = c->cw;
            g->pv = c->ch;
            g->phu = phu_a;
            g->phv = phv_a;
        } else {
            /* the short side runs along v: turn the axes by 90 degrees */
            g->ang = ang + CD__PI / 2;
            g->pu = c->cw;
            g->pv = c->ch;
            g->phu = phv_b;
            g->phv = -(phu_b + c->ch); /* v' = -u */
        }
        g->ang = remainder(g->ang, 2 * CD__PI);
        g->ok = true;
    }
done:
    free(pu);
    free(pv);
    free(eu);
    free(ev);
}


static int cd__cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Moves the card's centre (cx, cy) onto its own outline: the grid's
 * phase comes from a 1 px/mm view and may be off by a millimetre or two,
 * enough to cut a corner index in half.  The card and a margin are cut out
 * upright at 2 px/mm; along each side the line of the strongest brightness
 * change across it (an outer edge or the seam with a neighbour) within
 * win mm (4 for every card) of where it should be is found, from the
 * middle half of the side only (the indices and pips lie elsewhere); the
 * centre moves to the middle between opposite sides when they lie a card
 * apart.  Returns the axes so found: bit 0 along the short side, bit 1
 * along the long one.  contrast (when not NULL, set to 0 by the caller):
 * raised to the largest, over those axes, of the weaker side's step
 * against the median step along the cut (the table's or the face's own
 * texture). */
int cd__refine(const vis_cards *c, const vis_image *top, const vis_view *vw, double *cx,
                      double *cy, double ang, double win, double *contrast)
{
    const double P = 2, M = win + 1;
    int found = 0;
    double x0, y0, ca = cos(ang), sa = sin(ang), k = vw->px_per_mm, s = 1 / P;
    int w = (int)((c->cw + 2 * M) * P), h = (int)((c->ch + 2 * M) * P);
    vis_homography a, inv;
    vis_image *img = NULL;
    cd__origin(vw, &x0, &y0);
    double ox = -0.5 * (c->cw + 2 * M) + 0.5 * s, oy = -0.5 * (c->ch + 2 * M) + 0.5 * s;
    a.m[0] = k * s * ca;
    a.m[1] = -k * s * sa;
    a.m[2] = k * (*cx + ox * ca - oy * sa - x0) - 0.5;
    a.m[3] = k * s * sa;
    a.m[4] = k * s * ca;
    a.m[5] = k * (*cy + ox * sa + oy * ca - y0) - 0.5;
    a.m[6] = 0;
    a.m[7] = 0;
    a.m[8] = 1;
    int ya = (int)((M + 0.25 * c->ch) * P), yb = (int)((M + 0.75 * c->ch) * P);
    int xa = (int)((M + 0.25 * c->cw) * P), xb = (int)((M + 0.75 * c->cw) * P);
    if (vis_homography_invert(a, &inv, NULL) != 0)
        return 0;
    /* Only the middle half of each side is looked at: the rows ya..yb
     * across, the columns xa..xb down (and their neighbours), a third of
     * the cut less. */
    if (vis_image_new(w, h, 3, &img, NULL) != 0)
        return 0;
    if (!cd__warp(c, top, inv, img, 0, ya, w, yb + 1, NULL) ||
        !cd__warp(c, top, inv, img, xa, 0, xb + 1, ya, NULL) ||
        !cd__warp(c, top, inv, img, xa, yb + 1, xb + 1, h, NULL)) {
        vis_image_free(img);
        img = NULL;
        if (vis_warp_perspective(top, inv, w, h, VIS_INTER_LINEAR, vis_grey(0), &img, NULL) != 0)
            return 0;
    }
    double *col = calloc((size_t)w + (size_t)h, sizeof *col), *row = col + w;
    if (!col) {
        vis_image_free(img);
        return 0;
    }
#define CD__G(xx, yy) (img->data[(size_t)(yy) * img->stride + 3 * (size_t)(xx)] + img->data[(size_t)(yy) * img->stride + 3 * (size_t)(xx) + 1] + img->data[(size_t)(yy) * img->stride + 3 * (size_t)(xx) + 2])
    for (int y = ya; y <= yb; y++)
        for (int x = 1; x < w - 1; x++)
            col[x] += abs(CD__G(x + 1, y) - CD__G(x - 1, y));
    for (int y = 1; y < h - 1; y++)
        for (int x = xa; x <= xb; x++)
            row[y] += abs(CD__G(x, y + 1) - CD__G(x, y - 1));
#undef CD__G
    double shift[2] = {0, 0};
    for (int axis = 0; axis < 2; axis++) {
        const double *pr = axis == 0 ? col : row;
        double len = axis == 0 ? c->cw : c->ch;
        int n = axis == 0 ? w : h, best[2] = {-1, -1};
        for (int side = 0; side < 2; side++) {
            double at = (M + side * len) * P;
            int lo = (int)(at - win * P), hi = (int)(at + win * P);
            for (int i = lo < 1 ? 1 : lo; i <= hi && i < n - 1; i++)
                if (best[side] < 0 || pr[i] > pr[best[side]])
                    best[side] = i;
        }
        if (best[0] < 0 || best[1] < 0 || fabs(best[1] - best[0] - len * P) > 2.5 * P)
            continue;
        if (contrast) {
            /* the weaker side's step against the profile's median (the
             * texture's own steps) */
            double srt[1024];
            int m = n < 1024 ? n : 1024;
            memcpy(srt, pr, sizeof *srt * (size_t)m);
            qsort(srt, (size_t)m, sizeof *srt, cd__cmpd);
            double med = srt[m / 2] > 1 ? srt[m / 2] : 1;
            double cst = fmin(pr[best[0]], pr[best[1]]) / med;
            *contrast = fmax(*contrast, cst);
        }
        shift[axis] = (0.5 * (best[0] + best[1]) - (M + 0.5 * len) * P) / P;
        found |= 1 << axis;
    }
    *cx += shift[0] * ca - shift[1] * sa;
    *cy += shift[0] * sa + shift[1] * ca;
    free(col);
    vis_image_free(img);
    return found;
}

