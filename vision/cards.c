/* vision/cards.c: the playing-card recogniser (see cards.h).
 *
 * 1. Where the cards are.  On a copy of the view shrunk to about a pixel a
 *    millimetre.  The mat's model (its colour: the mode of the view; its
 *    brightness: a quadratic surface fitted robustly, with a narrower band
 *    above it than below, as cards are brighter) is learnt by the survey of
 *    the whole view, where the mat dominates, and kept in the handle: a
 *    roi round the cards may be mostly card.  "Ink": another hue than the
 *    mat (in absolute terms too: chromaticity is noise on dark pixels), or
 *    much darker.  "Card": ink, or brighter than the surface and
 *    near-neutral (a bright plank of a wooden table is not), or far
 *    brighter; but a coloured mat lit (its colour with some white added:
 *    a lamp's pool, a sheen) is the mat.  Large bright regions whose rim
 *    is a slow ramp are glare and lose their bright pixels.  On a pale
 *    neutral mat, where colour cannot tell card stock from mat, sharp
 *    brightness steps (outlines) are added.  Then opening, closing, hole
 *    filling (a pip-sized hole is print: black pips on a black mat),
 *    opening.
 * 2. The grid.  Rotation: the angle at which the silhouette's outline,
 *    projected on both axes, piles up in the fewest bins.  Phase: the best
 *    offset of a comb of the pitch over a profile of the outline plus the
 *    seams inside the silhouette (thin lines darker than the paper on both
 *    sides: cards that touch merge in the mask, but not without a seam);
 *    which axis holds the short side: the assignment whose combs capture
 *    the larger share of the edges (when about equal, the one whose cells
 *    the silhouette fills whole or not at all).  A cell is a card when the
 *    mask fills 60% of its inside and there is print on it (ink, or dark
 *    spots: black pips on a black mat).  Each card's centre is then moved
 *    onto its own outline (the strongest lines across its sides within
 *    4 mm, in a 2 px/mm cut), and after a first reading onto the centre of
 *    its print (pips and court pictures are centred on every deck), so
 *    that no index or pip column is cut off.  When a card reads unsure
 *    (pips in no card's layout: a cut across two cards), the cells are
 *    read again on the last sure reading's angle, else on angles up to
 *    6 degrees either way: glare run into the silhouette turns its
 *    outline's angle (cards read at 0.8 or more are kept as read).  The
 *    next read starts from the angle of a sure reading only (no hand, a
 *    face-up card read surely).
 * 3. Each card is cut from the full-resolution view into an upright patch
 *    at 3 px/mm and read there: paper (the bright end of its histogram),
 *    ink strength per pixel (darker than paper or of another hue), ink
 *    blobs; the outermost 1.5 mm and long thin lines (a frame round the
 *    face or the court picture, the card's edge) are not print, lest they
 *    join the index glyphs.
 *    - Face down: no paper-like face, or no ink at all; and a back of
 *      its own (most of the cell of another hue than the mat, or darker),
 *      else the cell is the table and is not reported.
 *    - Court: the centre is mostly ink, or one big blob with more around it;
 *      J Q K from the index letter: coarse stroke layouts (generic letter
 *      skeletons written below, not pictures of any deck) plus features
 *      that survive 5-8 pixels a letter: Q's hole or empty middle, J's hook
 *      at the bottom left, K's strokes meeting in the middle and its stem
 *      at the left edge.  A letter too faint to be ink (a four-colour
 *      deck's pale print) is looked for above the suit symbol on its own
 *      contrast.
 *    - Otherwise the pips are counted (a blob twice the median pip area is
 *      two pips that ran together); one pip is an ace.
 *    - Suit colour from each symbol's core: which channels the ink darkens
 *      against the paper (black all alike, red green and blue more than
 *      red, and so on), robust to faint and blurred print.  Shape within
 *      the colour, each symbol turned upright, on its core: a heart is
 *      wide on top, widest high, about as wide as tall; a diamond pointed,
 *      widest in the middle, taller than wide; a spade pointed on top and
 *      widest low, its mass skewed low under the point; a club round on
 *      top.  Pips, both index symbols and a
 *      court picture's own symbol vote.
 * 4. Across the view: black cards whose mean spade/club votes fall into two
 *    groups with a clear gap are split by it (one deck, one light, one
 *    blur); cards read the same are flagged as duplicates, and the less
 *    sure of two takes its runner-up reading when that is free (one
 *    deck).
 * 5. Across frames: an unsure rank or suit takes what the frames before
 *    read at the card's place more surely (cards lie still; see
 *    cd__remember). */
#include "cards.h"
#include "light.h"
#include "recall.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define CD__PI 3.14159265358979323846
#define CD__SPPM 1.0   /* the detection view, px/mm */
#define CD__PPM 3.0    /* card patches, px/mm */
#define CD__MAXBLOB 512
/* the least share of a face-down card's cell that is its back (see
 * vis_cards_read) */
#define CD__FD_COVER 0.5
#define CD__BLOCK 40.0 /* mm: blocks for the mat colour */
/* the weight of a symbol's skewness in the spade/club vote (of the
 * widest row's: 1; see cd__shape_vote) */
#define CD__SKW 2.0
#define CD__MAXBSH 64 /* black symbols a card's suit vote weighs */
/* mm2: a hole in the silhouette at most this large is print (a pip, a
 * letter's bowl); larger, the mat between cards (cd__open) */
#define CD__PRINT_HOLE_MAX 1000.0
/* a face-down card's outline: its weaker side's step at least this many
 * times the median step across the cut (see cd__refine) */
#define CD__FD_OUTLINE 3.0
/* a faint index letter's peak against its strip's median (see
 * cd__faint_letter) */
#define CD__FAINT_BG 3.0
/* mm2: a region of the mask this small on a mat that is not pale is a
 * speck of the mat, not card stock (see cd__open) */
#define CD__SPECK_MAX 300.0
/* a region of the mask on a pale mat with fewer sharp steps in it than
 * this share of its rim's length is blank: no card (see cd__open) */
#define CD__BLANK_STEPS 0.05
/* a region of the read's mask on a mat that is not pale with fewer of
 * its pixels than this share solidly bright is flecks (see cd__flecks) */
#define CD__FLECK_SOLID 0.45
/* a silhouette on a pale mat with fewer of its outline's pixels near a
 * sharp step than this share is glare round the cards (see cd__soft) */
#define CD__SOFT_SHARP 0.25
/* suits in rules/' order (vision does not depend on rules/) */
enum { CD__S, CD__H, CD__D, CD__C };

/* One card as read over the last frames (see cd__remember): where its
 * centre lies on the table, and each rank's (1..13) and suit's weight of
 * evidence. */
typedef struct cd__mem {
    vis__place at; /* first: see vision/recall.h */
    float wr[14], ws[4];
} cd__mem;

/* The mat's model: its colour, and its brightness as a quadratic surface
 * over the table (light falls off toward the edges). */
typedef struct cd__mat {
    double rgb[3];
    double c0;      /* rgb[0] + rgb[1] + rgb[2] */
    double coef[6]; /* over X = x / mat_w - 0.5, Y = y / mat_h - 0.5 */
    double mad;     /* the brightness noise about the surface */
    double cmad;    /* the chromaticity noise (wood grain, felt nap) */
} cd__mat;

struct vis_cards {
    double cw, ch;
    bool have_angle;
    double last_angle;
    bool angle_sure; /* last_angle came from a sure reading */
    int nno_layout;  /* cards of the last cd__read_cells in no layout */
    /* the last survey saw a hand over the cards (for the next read) */
    bool survey_hand;
    bool have_mat; /* the mat's model, from the last survey */
    cd__mat mat;
    /* the glare the last survey took out of its mask (NULL: none), on
     * its view's pixels, for the next read (see cd__glare_apply) */
    unsigned char *glare;
    int glare_w, glare_h;
    double glare_x0, glare_y0, glare_ppm;
    /* bilinear weights by the sample's fraction (32 x 32 steps), plus the
     * slack their making reads past the end (see cd__warp_table); and
     * each fraction's weights laid out for cd__warp's SSE2 sums */
    short wtab[32 * 32 * 4 + 4];
    short wtab8[32 * 32 * 8];
    /* the cards read in the last frames (see cd__remember) */
    int nmem;
    cd__mem mem[VIS_CARDS_MAX];
};

typedef struct cd__blob {
    int n;
    int x0, y0, x1, y1;
    double sx, sy;
    double sb, sg, sr;
    int first; /* first pixel in the pixel list (the labelling order) */
} cd__blob;

/* A card cut out upright. */
typedef struct cd__patch {
    vis_image *img;
    int w, h;
    unsigned char *ink; /* 0 paper, 1 ink, 2 other non-paper */
    unsigned char *sc;  /* how unlike paper, 0..255 (ink strength) */
    int *lab;
    int *pix;
    cd__blob blobs[CD__MAXBLOB];
    int nblobs;
    int npix; /* pixels listed in pix (the blobs' lists) */
    double paper[3];
    double cam_ppm; /* how finely the camera sees the table (0: not known) */
} cd__patch;

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

int vis_cards_new(double card_w_mm, double card_h_mm, vis_cards **out, base_err *err)
{
    vis_cards *c;
    if (!out)
        return base_err_set(err, BASE_EINVAL, "vis_cards_new: out is NULL");
    *out = NULL;
    if (card_w_mm == 0 && card_h_mm == 0) {
        card_w_mm = 63;
        card_h_mm = 88;
    }
    if (!(card_w_mm >= 20 && card_w_mm <= 200 && card_h_mm >= 20 && card_h_mm <= 200))
        return base_err_set(err, BASE_EINVAL,
                            "vis_cards_new: card size %.1f x %.1f mm is outside 20..200 mm",
                            card_w_mm, card_h_mm);
    if (!(c = calloc(1, sizeof *c)))
        return base_err_set(err, BASE_ENOMEM, "vis_cards_new: out of memory");
    c->cw = card_w_mm < card_h_mm ? card_w_mm : card_h_mm;
    c->ch = card_w_mm < card_h_mm ? card_h_mm : card_w_mm;
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
    *out = c;
    return 0;
}

void vis_cards_free(vis_cards *c)
{
    if (c)
        free(c->glare);
    free(c);
}

/* ---- the view ---- */

static int cd__check(const vis_image *top, const vis_view *vw, const char *fn, base_err *err)
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
static void cd__origin(const vis_view *vw, double *x0, double *y0)
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

/* The detection view: the view shrunk to CD__SPPM, white-balanced, with
 * a mask of pixels on the mat. */
typedef struct cd__det {
    int w, h;
    double ppm, x0, y0;   /* px/mm, table mm of pixel (0,0)'s corner */
    unsigned char *rgb;   /* w*h*3, B G R */
    unsigned char *onmat;
    unsigned char *mask;  /* 1: unlike the mat */
    unsigned char *edge;  /* 1: a sharp brightness step (a card's outline) */
    unsigned char *ink;   /* 1: of another hue than the mat, or dark: print, backs */
    float *ex;            /* brightness above the mat's model */
    /* table mm of each column's and each row's pixel centres (per pixel,
     * the divisions were much of the cost of the loops over the view) */
    double *tx, *ty;
    double tb;            /* brightness above the model that is "card" */
    double glare_min;     /* pixels: a region this large may be glare */
    int nmask;
    bool pale;            /* a pale near-neutral mat: card stock found by its outline */
    double mat_c0;        /* the mat's brightness (B + G + R) */
    double white;         /* the mat's white paper's (vis_view's), 0: unknown */
    unsigned char *glared; /* 1: taken out of the mask as glare (NULL: none) */
    bool soft;            /* the outline is glare's, the cards inside (cd__soft) */
} cd__det;

static void cd__det_free(cd__det *d)
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

static int cd__det_make(const vis_image *top, const vis_view *vw, cd__det *d, base_err *err)
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
static void cd__mask(vis_cards *c, cd__det *d, const vis_view *vw, bool learn)
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
static inline bool cd__zero8(const unsigned char *m, int i, int n)
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
static bool cd__row_ends(const unsigned char *m, int n, int *xl, int *xr)
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

/* One step of a 4-way flood fill over a w x h grid: pushes onto stack
 * (ns entries so far) each neighbour of (x, y) not yet marked and, when
 * open is given, whose open flag is want; marks it v.  Returns the new ns. */
static int cd__push4(int x, int y, int w, int h, const unsigned char *open, int want,
                     unsigned char *mark, unsigned char v, int *stack, int ns)
{
    static const int nb[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
    for (int q = 0; q < 4; q++) {
        int xx = x + nb[q][0], yy = y + nb[q][1], j;
        if (xx < 0 || yy < 0 || xx >= w || yy >= h)
            continue;
        j = yy * w + xx;
        if (!mark[j] && (!open || (open[j] != 0) == want)) {
            mark[j] = v;
            stack[ns++] = j;
        }
    }
    return ns;
}

/* A run of pixels x0..x1 of row y. */
typedef struct cd__run {
    int y, x0, x1;
} cd__run;

/* The 4-connected region of unmarked pixels whose open flag is want
 * ((open[j] != 0) == want) that holds pixel i0 (such a pixel): marks them
 * v (not 0) in mark, appends its runs to runs (when not NULL; a w x h grid
 * has at most h (w + 1) / 2) and returns its pixel count.  A run of a row
 * at a time (a fill pixel by pixel pushes, pops and divides for every
 * pixel of the large regions).  stack: room for 2 w h + 4 entries. */
static int cd__region(const unsigned char *open, int want, int w, int h, int i0,
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
static void cd__glare_apply(vis_cards *c, cd__det *d)
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
static bool cd__some_cards(const vis_cards *c, const cd__det *d, double box[4])
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
static inline bool cd__on_outline(const unsigned char *m, int w)
{
    return m[0] && (!m[1] || !m[-1] || !m[w] || !m[-w]);
}

/* Whether a sharp step (d->edge) lies within 2 pixels of (x, y): the mask's
 * outline and the steps it grew from may be a pixel or two apart. */
static bool cd__near_step(const cd__det *d, int x, int y)
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
static bool cd__soft(const cd__det *d)
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
static void cd__open(cd__det *d, bool holes)
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

/* ---- the grid ---- */

typedef struct cd__grid {
    double ang;        /* radians: the u axis (short side) against table x */
    double pu, pv;     /* pitch along u, v */
    double phu, phv;   /* a cell corner's u, v */
    bool ok;
} cd__grid;

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

static void cd__grid_fit(vis_cards *c, const cd__det *d, cd__grid *g, double force)
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

/* ---- reading one card ---- */

static void cd__patch_free(cd__patch *p)
{
    vis_image_free(p->img);
    free(p->ink);
    free(p->sc);
    free(p->lab);
    free(p->pix);
    memset(p, 0, sizeof *p);
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
static int cd__refine(const vis_cards *c, const vis_image *top, const vis_view *vw, double *cx,
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

/* Cuts the card centred at table (cx, cy) with its short side along
 * angle ang out of the view, upright, CD__PPM px/mm. */
static int cd__cut(const vis_cards *c, const vis_image *top, const vis_view *vw, double cx,
                   double cy, double ang, cd__patch *p, base_err *err)
{
    double x0, y0, ca = cos(ang), sa = sin(ang), k = vw->px_per_mm;
    vis_homography a, inv;
    int rc;
    cd__origin(vw, &x0, &y0);
    p->cam_ppm = vw->cam_px_per_mm;
    p->w = (int)(c->cw * CD__PPM);
    p->h = (int)(c->ch * CD__PPM);
    /* patch pixel (i, j) -> card mm (i + .5) / P - w / 2 -> table -> view px */
    double s = 1 / CD__PPM;
    double ox = -0.5 * c->cw + 0.5 * s, oy = -0.5 * c->ch + 0.5 * s;
    /* table x = cx + a ca - b sa, y = cy + a sa + b ca (a, b card mm) */
    a.m[0] = k * s * ca;
    a.m[1] = -k * s * sa;
    a.m[2] = k * (cx + ox * ca - oy * sa - x0) - 0.5;
    a.m[3] = k * s * sa;
    a.m[4] = k * s * ca;
    a.m[5] = k * (cy + ox * sa + oy * ca - y0) - 0.5;
    a.m[6] = 0;
    a.m[7] = 0;
    a.m[8] = 1;
    if ((rc = vis_homography_invert(a, &inv, err)) != 0)
        return rc;
    /* white-balanced as it is cut */
    unsigned char lut[3][256];
    cd__gain_lut(vw, lut);
    if ((rc = vis_image_new(p->w, p->h, 3, &p->img, err)) != 0)
        return rc;
    if (!cd__warp(c, top, inv, p->img, 0, 0, p->w, p->h, lut)) {
        vis_image_free(p->img);
        p->img = NULL;
        if ((rc = vis_warp_perspective(top, inv, p->w, p->h, VIS_INTER_LINEAR, vis_grey(0),
                                       &p->img, err)) != 0)
            return rc;
        for (int y = 0; y < p->h; y++) {
            unsigned char *r = p->img->data + (size_t)y * p->img->stride;
            for (int x = 0; x < p->w; x++) {
                r[3 * x] = lut[0][r[3 * x]];
                r[3 * x + 1] = lut[1][r[3 * x + 1]];
                r[3 * x + 2] = lut[2][r[3 * x + 2]];
            }
        }
    }
    size_t n = (size_t)p->w * p->h;
    /* (cd__ink writes every pixel of both) */
    p->ink = malloc(n);
    p->sc = malloc(n);
    p->lab = malloc(n * sizeof *p->lab);
    p->pix = malloc(n * sizeof *p->pix);
    if (!p->ink || !p->sc || !p->lab || !p->pix)
        return base_err_set(err, BASE_ENOMEM, "vis_cards: out of memory");
    return 0;
}

static const unsigned char *cd__px(const cd__patch *p, int x, int y)
{
    return p->img->data + (size_t)y * p->img->stride + 3 * (size_t)x;
}

/* Paper: the mean of the brightest fifth of the face (inside a 4 mm
 * border); ink: pixels much darker than it, or of another hue.  (Every
 * pass goes row by row: this runs on every pixel of every card.) */
static void cd__ink(cd__patch *p, double *paper_frac, double *paper_sat)
{
    int hist[766] = {0}, n = 0, b = (int)(4 * CD__PPM), w = p->w, h = p->h;
    /* each brightness's pixels counted and their channels summed in one
     * pass: the brightest fifth's sums are then those of the top levels
     * (whole numbers: exact, as the doubles were) */
    int lsum[766][3];
    memset(lsum, 0, sizeof lsum);
    for (int y = b; y < h - b; y++) {
        const unsigned char *r = cd__px(p, 0, y);
        for (int x = b; x < w - b; x++) {
            const unsigned char *q = r + 3 * x;
            int v = q[0] + q[1] + q[2];
            hist[v]++;
            lsum[v][0] += q[0];
            lsum[v][1] += q[1];
            lsum[v][2] += q[2];
        }
        n += w - 2 * b > 0 ? w - 2 * b : 0;
    }
    int want = n / 5, acc = 0, thr = 765;
    while (thr > 0 && acc + hist[thr] < want)
        acc += hist[thr--];
    int64_t s[3] = {0, 0, 0};
    int m = 0;
    for (int v = thr; v < 766; v++) {
        s[0] += lsum[v][0];
        s[1] += lsum[v][1];
        s[2] += lsum[v][2];
        m += hist[v];
    }
    for (int k = 0; k < 3; k++)
        p->paper[k] = m ? (double)s[k] / m : 0;
    double pmax = fmax(p->paper[0], fmax(p->paper[1], p->paper[2]));
    double pmin = fmin(p->paper[0], fmin(p->paper[1], p->paper[2]));
    *paper_sat = pmax > 0 ? (pmax - pmin) / pmax : 1;
    double pb = p->paper[0] + p->paper[1] + p->paper[2];
    int npaper = 0, edge = (int)(1.5 * CD__PPM);
    /* (in float, the divisions by the brightness from a table) */
    float scale[766], ipb = pb > 0 ? (float)(1 / pb) : 0, fpb = (float)pb;
    float pp[3] = {(float)p->paper[0], (float)p->paper[1], (float)p->paper[2]};
    for (int v = 0; v < 766; v++)
        scale[v] = v > 30 ? (float)(pb / v) : 1;
    /* per column: in the outermost 1.5 mm; inside the 4 mm border
     * (branch-free below: ink and paper alternate unpredictably) */
    unsigned char *colf = malloc((size_t)w * 2);
    *paper_frac = 0;
    if (!colf)
        return;
    for (int x = 0; x < w; x++) {
        colf[x] = x < edge || x >= w - edge;
        colf[w + x] = x >= b && x < w - b;
    }
#ifdef __SSE2__
    __m128i np4 = _mm_setzero_si128(); /* npaper, lane by lane */
#endif
    for (int y = 0; y < h; y++) {
        const unsigned char *r = cd__px(p, 0, y);
        unsigned char *ink = p->ink + (size_t)y * w, *scr = p->sc + (size_t)y * w;
        int erow = y < edge || y >= h - edge, brow = y >= b && y < h - b;
        int x = 0;
#ifdef __SSE2__
        /* four pixels at a time: the same float operations lane by lane
         * (the same values) */
        for (; x + 4 <= w; x += 4) {
            const unsigned char *q = r + 3 * x;
            int i0 = q[0] + q[1] + q[2], i1 = q[3] + q[4] + q[5];
            int i2 = q[6] + q[7] + q[8], i3 = q[9] + q[10] + q[11];
            __m128 f = _mm_set_ps(scale[i3], scale[i2], scale[i1], scale[i0]);
            __m128 q0 = _mm_cvtepi32_ps(_mm_set_epi32(q[9], q[6], q[3], q[0]));
            __m128 q1 = _mm_cvtepi32_ps(_mm_set_epi32(q[10], q[7], q[4], q[1]));
            __m128 q2 = _mm_cvtepi32_ps(_mm_set_epi32(q[11], q[8], q[5], q[2]));
            __m128 fbr = _mm_cvtepi32_ps(_mm_set_epi32(i3, i2, i1, i0));
            const __m128 sign = _mm_set1_ps(-0.f);
            __m128 dc = _mm_add_ps(
                _mm_add_ps(_mm_andnot_ps(sign, _mm_sub_ps(_mm_mul_ps(q0, f), _mm_set1_ps(pp[0]))),
                           _mm_andnot_ps(sign, _mm_sub_ps(_mm_mul_ps(q1, f), _mm_set1_ps(pp[1])))),
                _mm_andnot_ps(sign, _mm_sub_ps(_mm_mul_ps(q2, f), _mm_set1_ps(pp[2]))));
            __m128 vipb = _mm_set1_ps(ipb);
            __m128 dk = _mm_mul_ps(_mm_sub_ps(_mm_set1_ps(fpb), fbr), vipb);
            __m128 sc = _mm_max_ps(dk, _mm_mul_ps(dc, vipb));
            /* 1 above 0.25, 2 above 0.15, else 0 (above 0.25 is above 0.15) */
            __m128i v4 = _mm_sub_epi32(
                _mm_and_si128(_mm_castps_si128(_mm_cmpgt_ps(sc, _mm_set1_ps(0.15f))),
                              _mm_set1_epi32(2)),
                _mm_and_si128(_mm_castps_si128(_mm_cmpgt_ps(sc, _mm_set1_ps(0.25f))),
                              _mm_set1_epi32(1)));
            __m128 cl = _mm_min_ps(_mm_max_ps(sc, _mm_setzero_ps()), _mm_set1_ps(1.f));
            __m128i s4 = _mm_cvttps_epi32(_mm_mul_ps(cl, _mm_set1_ps(255.f)));
            /* the columns' flags as lanes */
            uint32_t c1, c2;
            memcpy(&c1, colf + x, 4);
            memcpy(&c2, colf + w + x, 4);
            const __m128i z = _mm_setzero_si128(), one = _mm_set1_epi32(1);
            __m128i e4 = _mm_unpacklo_epi16(_mm_unpacklo_epi8(_mm_cvtsi32_si128((int)c1), z), z);
            __m128i b4 = _mm_unpacklo_epi16(_mm_unpacklo_epi8(_mm_cvtsi32_si128((int)c2), z), z);
            e4 = _mm_or_si128(e4, _mm_set1_epi32(erow));
            v4 = _mm_add_epi32(v4, _mm_and_si128(_mm_cmpeq_epi32(v4, one), e4));
            np4 = _mm_add_epi32(np4, _mm_and_si128(_mm_and_si128(_mm_cmpeq_epi32(v4, z), b4),
                                                   _mm_set1_epi32(brow)));
            __m128i v8 = _mm_packs_epi32(v4, s4);
            v8 = _mm_packus_epi16(v8, v8);
            int32_t vi = _mm_cvtsi128_si32(v8), si = _mm_cvtsi128_si32(_mm_srli_si128(v8, 4));
            memcpy(ink + x, &vi, 4);
            memcpy(scr + x, &si, 4);
        }
#endif
        for (; x < w; x++) {
            const unsigned char *q = r + 3 * x;
            int ibr = q[0] + q[1] + q[2];
            /* colour distance after scaling to the paper's brightness:
             * hue, not shading */
            float f = scale[ibr];
            float dc = fabsf(q[0] * f - pp[0]) + fabsf(q[1] * f - pp[1]) + fabsf(q[2] * f - pp[2]);
            /* how far from paper: darker, or another hue */
            float dk = (fpb - (float)ibr) * ipb, sc = dc * ipb;
            sc = dk > sc ? dk : sc;
            /* 1 above 0.25, 2 above 0.15, else 0 */
            int v = (sc > 0.15f) * (2 - (sc > 0.25f));
            float cl = sc > 0.f ? sc : 0.f;
            scr[x] = (unsigned char)((cl < 1.f ? cl : 1.f) * 255);
            /* the outermost 1.5 mm: the card's edge, the seam, the mat;
             * never print (indices start further in), and it would join
             * an index glyph to the outline */
            v += (v == 1) & (erow | colf[x]);
            ink[x] = (unsigned char)v;
            npaper += brow & colf[w + x] & (v == 0);
        }
    }
    free(colf);
#ifdef __SSE2__
    {
        int t[4];
        _mm_storeu_si128((__m128i *)t, np4);
        npaper += t[0] + t[1] + t[2] + t[3];
    }
#endif
    *paper_frac = n ? (double)npaper / n : 0;
    /* The card's edge seen through the blur: a ramp of "ink" falling off
     * inward from the patch's border (the mat, a neighbour's edge, a card
     * cut a little off).  It would join an index glyph that comes near it
     * (a stem at the glyph's left edge reads as K) or be taken for one (a
     * sliver along the side).  From each side, up to the first valley of
     * ink strength (at most 3 mm in) is not print: the first rise is the
     * print's own edge. */
    int ramp = (int)(3 * CD__PPM);
    for (int y = 0; y < h && w > 2 * ramp + 2; y++) {
        const unsigned char *scr = p->sc + (size_t)y * w;
        unsigned char *ink = p->ink + (size_t)y * w;
        int x = 0;
        while (x < ramp && scr[x + 1] <= scr[x])
            x++;
        memset(ink, 0, (size_t)x);
        for (x = w - 1; x > w - 1 - ramp && scr[x - 1] <= scr[x];)
            x--;
        memset(ink + x + 1, 0, (size_t)(w - 1 - x));
    }
    for (int x = 0; x < w && h > 2 * ramp + 2; x++) {
        const unsigned char *scc = p->sc + x;
        unsigned char *ink = p->ink + x;
        int y = 0;
        while (y < ramp && scc[(size_t)(y + 1) * w] <= scc[(size_t)y * w])
            ink[(size_t)y++ * w] = 0;
        for (y = h - 1; y > h - 1 - ramp && scc[(size_t)(y - 1) * w] <= scc[(size_t)y * w];)
            ink[(size_t)y-- * w] = 0;
    }
    /* Lines along the card's sides, within 5 mm of them: a frame printed
     * round the face, the card's own edge or a neighbour's seen past a
     * small misplacement.  A column (row) there that is ink over 40% of
     * its length is a line, not an index (an index spans a fifth of a
     * side); its ink would join the index glyphs.  Columns first, then
     * rows (counted after the columns' change). */
    int band = (int)(5 * CD__PPM);
    int *cnt = calloc((size_t)(w > h ? w : h), sizeof *cnt);
    unsigned char *mark = calloc((size_t)w * h, 1);
    if (!cnt || !mark) {
        free(cnt);
        free(mark);
        return;
    }
    {
        unsigned char *pink = p->ink;
        int *restrict cn = cnt;
        /* (only the side columns are counted: the test is theirs) */
        const int xl = band < w ? band : w, xr = w - band > xl ? w - band : xl;
        for (int y = 0; y < h; y++) {
            const unsigned char *restrict ink = pink + (size_t)y * w;
            for (int x = 0; x < xl; x++)
                cn[x] += ink[x] == 1;
            for (int x = xr; x < w; x++)
                cn[x] += ink[x] == 1;
        }
        /* (the test is per column: only the side columns that are lines
         * are walked down) */
        for (int x = 0; x < w; x++)
            if ((x < band || x >= w - band) && cnt[x] > 0.4 * h)
                for (int y = 0; y < h; y++)
                    if (pink[(size_t)y * w + x] == 1)
                        pink[(size_t)y * w + x] = 2;
    }
    for (int y = 0; y < h; y++) {
        if (y >= band && y < h - band)
            continue;
        unsigned char *ink = p->ink + (size_t)y * w;
        int c = 0;
        for (int x = 0; x < w; x++)
            c += ink[x] == 1;
        if (c > 0.4 * w)
            for (int x = 0; x < w; x++)
                if (ink[x] == 1)
                    ink[x] = 2;
    }
    /* Long thin lines anywhere: the frame round a court picture passes a
     * millimetre from the indices and joins them when blurred.  A run of
     * ink 15 mm long along a column (row) whose pixels are at most 2 mm
     * thick across it is a line; pips and glyphs are shorter, a picture's
     * shapes thicker.  (The runs down the columns are followed row by
     * row, a start per column.) */
    int minrun = (int)(15 * CD__PPM), thick = (int)(2 * CD__PPM);
    const unsigned char *ink = p->ink;
    /* act: 1 where a column's run is open, so that a row of eight pixels
     * that neither starts nor ends a run is passed over at once (ink is
     * 0, 1 or 2: bit 0 is "ink == 1") */
    unsigned char *act = calloc((size_t)w + 8, 1);
    /* per row (the columns' runs), then per column (the rows' runs): a
     * span of ink known to be thicker than a line across them, from l to
     * r: a pixel of ink in it or next to it is in a thick run at once (a
     * thick shape's columns come one after another) */
    int *spl = malloc(sizeof *spl * 2 * ((size_t)w + h)), *spr = spl + w + h;
    if (!act || !spl) {
        free(act);
        free(spl);
        free(cnt);
        free(mark);
        return;
    }
    for (int i = 0; i < w + h; i++) {
        spl[i] = 1 << 30;
        spr[i] = -(1 << 30);
    }
    for (int x = 0; x < w; x++)
        cnt[x] = -1;
    const uint64_t ones = 0x0101010101010101u;
    for (int y = 0; y <= h; y++)
        for (int x = 0; x < w; x++) {
            if (y < h && (x & 7) == 0 && x + 8 <= w) {
                uint64_t u, a;
                memcpy(&u, ink + (size_t)y * w + x, 8);
                memcpy(&a, act + x, 8);
                if ((u & ones) == a) {
                    x += 7;
                    continue;
                }
            }
            bool on = y < h && ink[y * w + x] == 1;
            if (on && cnt[x] < 0) {
                cnt[x] = y;
                act[x] = 1;
            }
            if (on || cnt[x] < 0)
                continue;
            int j0 = cnt[x];
            cnt[x] = -1;
            act[x] = 0;
            if (y - j0 < minrun)
                continue;
            for (int t = j0; t < y; t++) {
                /* thickness across the run at row t (the walk stops once
                 * it is over thick: a thick shape's rows are long) */
                const unsigned char *r = ink + (size_t)t * w;
                if (spl[t] <= x && x <= spr[t] + 1) {
                    spr[t] = x > spr[t] ? x : spr[t];
                    continue;
                }
                int a = x, e = x;
                while (a > 0 && r[a - 1] == 1 && x - a <= thick)
                    a--;
                if (x - a + 1 > thick) {
                    spl[t] = a;
                    spr[t] = x;
                    continue;
                }
                while (e < w - 1 && r[e + 1] == 1 && e - a + 1 <= thick)
                    e++;
                if (e - a + 1 <= thick)
                    memset(mark + (size_t)t * w + a, 1, (size_t)(e - a + 1));
                else {
                    spl[t] = a;
                    spr[t] = e;
                }
            }
        }
    for (int y = 0; y < h; y++) {
        const unsigned char *r = ink + (size_t)y * w;
        int x = 0;
        while (x < w) {
            if (r[x] != 1) {
                uint64_t u;
                /* (eight pixels at a time where none is 1) */
                if (x + 8 <= w && (memcpy(&u, r + x, 8), (u & ones) == 0))
                    x += 8;
                else
                    x++;
                continue;
            }
            int x0 = x;
            while (x < w && r[x] == 1)
                x++;
            if (x - x0 < minrun)
                continue;
            for (int t = x0; t < x; t++) {
                /* thickness across the run at column t (as above) */
                int *cl = spl + h + t, *cr = spr + h + t;
                if (*cl <= y && y <= *cr + 1) {
                    *cr = y > *cr ? y : *cr;
                    continue;
                }
                int a = y, e = y;
                while (a > 0 && ink[(a - 1) * w + t] == 1 && y - a <= thick)
                    a--;
                if (y - a + 1 > thick) {
                    *cl = a;
                    *cr = y;
                    continue;
                }
                while (e < h - 1 && ink[(e + 1) * w + t] == 1 && e - a + 1 <= thick)
                    e++;
                if (e - a + 1 <= thick)
                    for (int q = a; q <= e; q++)
                        mark[q * w + t] = 1;
                else {
                    *cl = a;
                    *cr = e;
                }
            }
        }
    }
    unsigned char *pink = p->ink;
    for (int i = 0; i < w * h; i++) {
        if (cd__zero8(mark, i, w * h)) {
            i += 7;
            continue;
        }
        if (mark[i])
            pink[i] = 2;
    }
    free(spl);
    free(act);
    free(mark);
    free(cnt);
}

/* Connected ink blobs (8-neighbours).  (The patch's fields and a blob's
 * sums are kept in locals, the sums whole: every store through p would
 * otherwise reload them per pixel.) */
static void cd__blobs(cd__patch *p)
{
    const int w = p->w, h = p->h, n = w * h;
    const unsigned char *ink = p->ink, *img = p->img->data;
    const size_t stride = (size_t)p->img->stride;
    int *lab = p->lab, *pix = p->pix, np = 0, nblobs = 0;
    const int off[9] = {-w - 1, -w, -w + 1, -1, 0, 1, w - 1, w, w + 1};
    memset(lab, 0xff, sizeof *lab * (size_t)n); /* -1 */
    for (int i = 0; i < n; i++) {
        if (cd__zero8(ink, i, n)) {
            i += 7;
            continue;
        }
        if (ink[i] != 1 || lab[i] >= 0 || nblobs >= CD__MAXBLOB)
            continue;
        cd__blob *bl = &p->blobs[nblobs];
        int id = nblobs++, head = np;
        int cnt = 0, x0 = 1 << 30, y0 = 1 << 30, x1 = -1, y1 = -1;
        int64_t sx = 0, sy = 0, sb = 0, sg = 0, sr = 0;
        memset(bl, 0, sizeof *bl);
        bl->first = np;
        pix[np++] = i;
        lab[i] = id;
        while (head < np) {
            int k = pix[head++], y = k / w, x = k - y * w;
            const unsigned char *q = img + (size_t)y * stride + 3 * (size_t)x;
            cnt++;
            sx += x;
            sy += y;
            sb += q[0];
            sg += q[1];
            sr += q[2];
            x0 = x < x0 ? x : x0;
            x1 = x > x1 ? x : x1;
            y0 = y < y0 ? y : y0;
            y1 = y > y1 ? y : y1;
            /* weak ink joins a blob it touches: blurred symbols keep
             * their size (the neighbours row by row; off the patch's
             * border without bounds checks) */
            bool strong = ink[k] == 1;
            if (x > 0 && y > 0 && x < w - 1 && y < h - 1) {
                for (int t = 0; t < 9; t++) {
                    int j = k + off[t];
                    /* (the label first: inside a blob most neighbours
                     * are labelled already) */
                    if (lab[j] < 0 && ink[j] >= 1 && (ink[j] == 1 || strong)) {
                        lab[j] = id;
                        pix[np++] = j;
                    }
                }
                continue;
            }
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    int xx = x + dx, yy = y + dy;
                    if (xx < 0 || yy < 0 || xx >= w || yy >= h)
                        continue;
                    int j = yy * w + xx;
                    if (ink[j] >= 1 && lab[j] < 0 && (ink[j] == 1 || strong)) {
                        lab[j] = id;
                        pix[np++] = j;
                    }
                }
        }
        bl->n = cnt;
        bl->x0 = x0;
        bl->y0 = y0;
        bl->x1 = x1;
        bl->y1 = y1;
        bl->sx = (double)sx;
        bl->sy = (double)sy;
        bl->sb = (double)sb;
        bl->sg = (double)sg;
        bl->sr = (double)sr;
    }
    p->nblobs = nblobs;
    p->npix = np;
}

/* Blobs touching the patch's edge are the mat or a neighbour seen past
 * the card's own edge, not print: dropped (their pixels unlabelled).
 * Returns the pixels of strong ink left in blobs. */
static int cd__drop_edge_blobs(cd__patch *p)
{
    int keep = 0, nink = 0, map[CD__MAXBLOB];
    for (int i = 0; i < p->nblobs; i++) {
        const cd__blob *b = &p->blobs[i];
        bool edge = b->x0 <= 1 || b->y0 <= 1 || b->x1 >= p->w - 2 || b->y1 >= p->h - 2;
        map[i] = edge ? -1 : keep;
        if (!edge)
            p->blobs[keep++] = *b;
    }
    int *lab = p->lab;
    unsigned char *ink = p->ink;
    /* (every labelled pixel is in the blobs' lists, once: those, not the
     * whole patch) */
    for (int t = 0; t < p->npix; t++) {
        int i = p->pix[t];
        lab[i] = map[lab[i]];
        if (lab[i] < 0)
            ink[i] = 2;
        else
            nink += ink[i] == 1;
    }
    p->nblobs = keep;
    return nink;
}

/* Ink colour class of a blob: 0 black, 1 red, 2 blue, 3 green. */
static int cd__color(const cd__patch *p, const cd__blob *b, double *strength, int *lean)
{
    /* The core of the blob: its darkest 40%.  The rim is blurred into the
     * paper and, on a dim picture, would wash a red pip out to grey. */
    int hist[766] = {0}, want = (int)(0.4 * b->n) + 1, acc = 0, thr = 0;
    for (int i = 0; i < b->n; i++) {
        int k = p->pix[b->first + i];
        const unsigned char *q = p->img->data + (size_t)(k / p->w) * p->img->stride + 3 * (size_t)(k % p->w);
        hist[q[0] + q[1] + q[2]]++;
    }
    while (thr < 765 && acc + hist[thr] < want)
        acc += hist[thr++];
    double sb = 0, sg = 0, sr = 0;
    int m = 0;
    for (int i = 0; i < b->n; i++) {
        int k = p->pix[b->first + i];
        const unsigned char *q = p->img->data + (size_t)(k / p->w) * p->img->stride + 3 * (size_t)(k % p->w);
        if (q[0] + q[1] + q[2] <= thr) {
            sb += q[0];
            sg += q[1];
            sr += q[2];
            m++;
        }
    }
    if (m == 0)
        m = 1;
    /* How much each channel is darkened against the paper (a cream card's
     * black ink is not "yellow"): black ink darkens all three alike, red
     * ink green and blue far more than red, and so on, however faint or
     * blurred the symbol is. */
    double dr = 1 - sr / m / fmax(p->paper[2], 1), dg = 1 - sg / m / fmax(p->paper[1], 1),
           db = 1 - sb / m / fmax(p->paper[0], 1);
    double dm = fmax(dr, fmax(dg, db));
    *lean = 0;
    if (dm < 0.05) {
        *strength = 0;
        return 0;
    }
    double red = ((dg + db) / 2 - dr) / dm, blue = ((dr + dg) / 2 - db) / dm,
           green = ((dr + db) / 2 - dg) / dm;
    double best = fmax(red, fmax(blue, green));
    *strength = best;
    *lean = red >= best ? 1 : blue >= best ? 2 : 3;
    if (best < 0.35)
        return 0;
    return red >= best ? 1 : blue >= best ? 2 : 3;
}

/* Shape of a suit symbol, turned upright when flip.  Measured on the
 * symbol's core (ink at least a third as strong as its strongest): the blob
 * itself is grown by the blur into a rounder shape. */
typedef struct cd__shape {
    double top;    /* mean width of the top quarter / max width */
    double peak;   /* where the widest row is, 0 top .. 1 bottom */
    double tip;    /* width at 12% from the top / max */
    double aspect; /* height / width */
    double skew;   /* of the core's rows (upright): < 0 when the tail is on top */
    bool ok;
} cd__shape;

static void cd__shape_of(const cd__patch *p, const cd__blob *b, int id, bool flip, cd__shape *s)
{
    int hist[256] = {0};
    memset(s, 0, sizeof *s);
    for (int y = b->y0; y <= b->y1; y++)
        for (int x = b->x0; x <= b->x1; x++)
            if (p->lab[y * p->w + x] == id)
                hist[p->sc[y * p->w + x]]++;
    int want = b->n / 5, acc = 0, core = 255;
    while (core > 0 && acc + hist[core] < want)
        acc += hist[core--];
    int thr = (int)(0.35 * core);
    int x0 = 1 << 30, x1 = -1, y0 = 1 << 30, y1 = -1;
    for (int y = b->y0; y <= b->y1; y++)
        for (int x = b->x0; x <= b->x1; x++)
            if (p->lab[y * p->w + x] == id && p->sc[y * p->w + x] >= thr) {
                x0 = x < x0 ? x : x0;
                x1 = x > x1 ? x : x1;
                y0 = y < y0 ? y : y0;
                y1 = y > y1 ? y : y1;
            }
    int h = y1 - y0 + 1, wmax = 0, imax = 0;
    int wrow[256];
    if (y1 < 0 || h > 256 || h < 3)
        return;
    for (int j = 0; j < h; j++) {
        int y = flip ? y1 - j : y0 + j, cnt = 0;
        for (int x = x0; x <= x1; x++)
            cnt += p->lab[y * p->w + x] == id && p->sc[y * p->w + x] >= thr;
        wrow[j] = cnt;
        if (cnt > wmax) {
            wmax = cnt;
            imax = j;
        }
    }
    if (wmax == 0)
        return;
    double t = 0;
    int nq = h / 4 > 0 ? h / 4 : 1;
    for (int j = 0; j < nq; j++)
        t += wrow[j];
    s->top = t / nq / wmax;
    /* the widest rows' centre */
    double sj = 0, sw = 0;
    for (int j = 0; j < h; j++)
        if (wrow[j] >= 0.92 * wmax) {
            sj += j;
            sw += 1;
        }
    s->peak = sw > 0 ? (sj / sw) / (h - 1) : (double)imax / (h - 1);
    s->tip = (double)wrow[(int)(0.12 * (h - 1) + 0.5)] / wmax;
    s->aspect = (double)h / (x1 - x0 + 1);
    /* the skewness of the core's mass along the height: a spade's mass
     * sits in its lobes, low, under a thin point (a long tail upward: < 0);
     * a club's round top lobe leaves no such tail.  Moments survive the
     * blur that rounds the point itself off. */
    double m1 = 0, m2 = 0, m3 = 0, mw = 0;
    for (int j = 0; j < h; j++) {
        m1 += (double)j * wrow[j];
        mw += wrow[j];
    }
    m1 /= mw;
    for (int j = 0; j < h; j++) {
        double d = j - m1;
        m2 += d * d * wrow[j];
        m3 += d * d * d * wrow[j];
    }
    m2 /= mw;
    m3 /= mw;
    s->skew = m2 > 0 ? m3 / (m2 * sqrt(m2)) : 0;
    s->ok = true;
}

/* A symbol's colour vote (weight w) from cd__color's class col, the hue
 * it leans to and its strength st.  Black ink darkens the three channels
 * alike (st under 0.1); a red or blue symbol a far camera blurs, small
 * (an index symbol at 0.6-0.8 px/mm), has its rim mixed with the paper
 * and reads at 0.3 or so, under the colour's threshold: its vote is
 * shared between black and its hue by how far it lies from 0.27 to 0.35
 * (voting black whole, two such index symbols outvoted a 2H's two red
 * pips).  From 0.2 instead, some black symbols of a cream deck's courts
 * leaned red enough to vote so (940709's QC read QH). */
static void cd__vote_color(double *votes, int col, int lean, double st, double w)
{
    if (col == 0 && lean > 0 && st > 0.27) {
        double f = (st - 0.27) / 0.08;
        votes[lean] += w * f;
        votes[0] += w * (1 - f);
    } else
        votes[col] += w;
}

/* The symbols of a card that voted black (in whole or in part) while
 * leaning to a hue at 0.1 or more, the black part of their vote, and
 * which hues some symbol of the card showed plainly (0.35 or more). */
typedef struct cd__leans {
    int n;
    int lean[CD__MAXBSH];
    double black[CD__MAXBSH];
    bool strong[4];
} cd__leans;

static void cd__lean_note(cd__leans *l, int col, int lean, double st, double w)
{
    if (col > 0)
        l->strong[col] = true;
    else if (lean > 0 && st >= 0.1 && l->n < CD__MAXBSH) {
        l->lean[l->n] = lean;
        l->black[l->n++] = st > 0.27 ? w * (1 - (st - 0.27) / 0.08) : w;
    }
}

/* Shape votes within a colour: red -> heart or diamond, black -> spade or
 * club.  Returns a signed score: > 0 for the first.  blur 0..1: how round
 * the card's black pips are (see cd__read_card); court: a court's
 * symbols (its index's and its picture's), which have a boundary of their
 * own if black, a weight of their own if red (below). */
static double cd__clamp2(double v) { return v < -2 ? -2 : v > 2 ? 2 : v; }

static double cd__shape_vote(const cd__shape *s, bool red, double blur, bool court)
{
    if (!s->ok)
        return 0;
    /* Heart: two lobes make its top wide, it is widest high and about as
     * wide as tall; a diamond is pointed at the top, widest in the middle
     * and taller than wide (in every deck).  A court's symbols (3-3.5 mm,
     * 2-4 camera pixels on a table seen whole) come out of the blur with
     * lobes and points rounded alike: their height against their width
     * counts three times (of 2077 such symbols of eleven frame sets,
     * labelled by the truth, 176 voted wrong at once, 117 at three times;
     * 108 -> 70 and 68 -> 47 on the two halves of the sets alike).  A
     * number card's pips are many and its suit rarely wrong: weighted so,
     * its pips turned 5D and 8D to hearts on a frame. */
    if (red)
        return cd__clamp2((s->tip - 0.73) / 0.15) + cd__clamp2((s->top - 0.63) / 0.13) +
               cd__clamp2((0.42 - s->peak) / 0.08) +
               (court ? 3 : 1) * cd__clamp2((1.04 - s->aspect) / 0.2);
    /* Spade: widest low (its two lobes under the point); club: widest at
     * the middle (the side lobes).  Of the shape measures this is the one
     * the blur leaves: pointed top against round lobe (tip, top) tells
     * them apart barely better than chance at ten pixels a pip, so it only
     * breaks ties.  Proportions differ between decks, so not the aspect.
     * A court's symbols, 3-3.5 mm against a pip's 5 and at 2-4 camera
     * pixels on a table seen whole, come out of the blur with their
     * widest row lower and their rows' skewness more negative, clubs as
     * spades: 611 of them on six frame sets (labelled by the truth) split
     * best at peak 0.542 and skewness -0.056, the same on each half of
     * the sets (0.542 and -0.045 on the other half).  The court boundary
     * lies half way there (0.53, -0.04): the whole way, a fresh set's
     * KS read as the KC on four frames, with no board more right on the
     * six. */
    double sc = 0.03 * (1 - 0.7 * blur), p0 = court ? 0.53 : 0.52, k0 = court ? -0.04 : -0.02;
    return cd__clamp2((s->peak - p0 + 0.01 * blur) / sc) +
           CD__SKW * cd__clamp2((k0 + 0.01 * blur - s->skew) / sc) +
           0.05 * cd__clamp2((0.52 - s->tip) / 0.1);
}

/* Index letters as 5x7 stroke layouts of a plain sans letter. */
static const char *const cd__letters[4][7] = {
    {"..#..", ".#.#.", "#...#", "#...#", "#####", "#...#", "#...#"}, /* A */
    {"..###", "...#.", "...#.", "...#.", "...#.", "#..#.", ".##.."}, /* J */
    {".###.", "#...#", "#...#", "#...#", "#.#.#", "#..#.", ".##.#"}, /* Q */
    {"#...#", "#..#.", "#.#..", "##...", "#.#..", "#..#.", "#...#"}, /* K */
};
static const int cd__letter_rank[4] = {1, 11, 12, 13};

/* Normalised correlation of the glyph (pixels of the blobs in ids, box
 * x0..x1, y0..y1, flip for the turned corner) with each letter. */
static void cd__letter(const cd__patch *p, const int *ids, int nids, int x0, int y0, int x1,
                       int y1, bool flip, double score[4])
{
    double grid[7][5] = {{0}}, cnt[7][5] = {{0}};
    int bw = x1 - x0 + 1, bh = y1 - y0 + 1;
    for (int y = y0; y <= y1; y++)
        for (int x = x0; x <= x1; x++) {
            int l = p->lab[y * p->w + x], on = 0;
            for (int k = 0; k < nids; k++)
                on |= l == ids[k];
            int gx = (x - x0) * 5 / bw, gy = (y - y0) * 7 / bh;
            if (flip) {
                gx = 4 - gx;
                gy = 6 - gy;
            }
            grid[gy][gx] += on;
            cnt[gy][gx] += 1;
        }
    double m = 0;
    for (int j = 0; j < 7; j++)
        for (int i = 0; i < 5; i++) {
            grid[j][i] = cnt[j][i] > 0 ? grid[j][i] / cnt[j][i] : 0;
            m += grid[j][i] / 35;
        }
    for (int l = 0; l < 4; l++) {
        double t[7][5], tm = 0, sxy = 0, sxx = 0, syy = 0;
        /* the skeleton blurred a little: strokes as seen at this size */
        for (int j = 0; j < 7; j++)
            for (int i = 0; i < 5; i++) {
                double v = 0, wsum = 0;
                for (int dj = -1; dj <= 1; dj++)
                    for (int di = -1; di <= 1; di++) {
                        int jj = j + dj, ii = i + di;
                        if (jj < 0 || ii < 0 || jj > 6 || ii > 4)
                            continue;
                        double w = (dj == 0 && di == 0) ? 1 : (dj == 0 || di == 0) ? 0.3 : 0.1;
                        v += w * (cd__letters[l][jj][ii] == '#');
                        wsum += w;
                    }
                t[j][i] = v / wsum;
                tm += t[j][i] / 35;
            }
        for (int j = 0; j < 7; j++)
            for (int i = 0; i < 5; i++) {
                double a = grid[j][i] - m, b = t[j][i] - tm;
                sxy += a * b;
                sxx += a * a;
                syy += b * b;
            }
        score[l] = sxx > 0 && syy > 0 ? sxy / sqrt(sxx * syy) : 0;
    }
}

/* Stroke features of an index glyph (the blobs ids, box x0..x1, y0..y1,
 * turned upright when flip) that hold across fonts: holes (Q has one, J and
 * K none) and where the ink sits (J's hook low on the left, K's three
 * strokes meeting in the middle where Q is empty).  On the glyph's core
 * (ink at least half its strongest). */
typedef struct cd__glyph {
    int holes;
    double bl;  /* ink share in the bottom-left quarter (J's hook) */
    double mid; /* ink share in the middle ninth (K's junction; Q's hole) */
    double stem; /* where the column of the most ink lies, 0 left .. 1 right */
} cd__glyph;

static void cd__glyph_of(const cd__patch *p, const int *ids, int nids, int x0, int y0, int x1,
                         int y1, bool flip, cd__glyph *g)
{
    int hist[256] = {0}, n = 0;
    memset(g, 0, sizeof *g);
    int bw = x1 - x0 + 1, bh = y1 - y0 + 1;
    if (bw < 2 || bh < 3 || bw > 200 || bh > 200)
        return;
    unsigned char *on = calloc((size_t)(bw + 2) * (bh + 2), 1);
    double col[200] = {0};
    if (!on)
        return;
    for (int y = y0; y <= y1; y++)
        for (int x = x0; x <= x1; x++) {
            int l = p->lab[y * p->w + x];
            for (int k = 0; k < nids; k++)
                if (l == ids[k]) {
                    hist[p->sc[y * p->w + x]]++;
                    col[flip ? x1 - x : x - x0] += p->sc[y * p->w + x];
                    n++;
                }
        }
    /* The letter's main vertical stroke: the column of the most ink (its
     * strength, not the thresholded core: a blurred stroke keeps its sum).
     * K's stem is its left edge; J's stroke lies right of the middle, Q's
     * bowl puts ink on both sides. */
    int best = 0;
    for (int u = 1; u < bw; u++)
        if (col[u] > col[best])
            best = u;
    g->stem = (best + 0.5) / bw;
    int want = n / 5, acc = 0, core = 255;
    while (core > 0 && acc + hist[core] < want)
        acc += hist[core--];
    int thr = core / 2, W = bw + 2, cnt = 0;
    double sbl = 0, smid = 0;
    for (int y = y0; y <= y1; y++)
        for (int x = x0; x <= x1; x++) {
            int l = p->lab[y * p->w + x], in = 0;
            for (int k = 0; k < nids; k++)
                in |= l == ids[k];
            if (!in || p->sc[y * p->w + x] < thr)
                continue;
            int u = flip ? x1 - x : x - x0, v = flip ? y1 - y : y - y0;
            on[(v + 1) * W + u + 1] = 1;
            cnt++;
            if (u < bw / 2.0 && v >= bh / 2.0)
                sbl += 1;
            if (u >= bw / 3.0 && u < 2 * bw / 3.0 && v >= bh / 3.0 && v < 2 * bh / 3.0)
                smid += 1;
        }
    if (cnt > 0) {
        g->bl = sbl / cnt;
        g->mid = smid / cnt;
    }
    /* holes: background the frame round the box cannot reach (4-way) */
    int *stack = malloc(sizeof *stack * (size_t)W * (bh + 2)), ns = 0;
    if (stack) {
        unsigned char *seen = on; /* 1 ink, 2 reached background */
        for (int v = 0; v < bh + 2; v++)
            for (int u = 0; u < W; u++)
                if ((u == 0 || v == 0 || u == W - 1 || v == bh + 1) && !seen[v * W + u]) {
                    seen[v * W + u] = 2;
                    stack[ns++] = v * W + u;
                }
        for (int pass = 0; pass < 2; pass++) {
            /* pass 0: the outside; pass 1: each enclosed region */
            while (ns > 0) {
                int k = stack[--ns], u = k % W, v = k / W;
                ns = cd__push4(u, v, W, bh + 2, NULL, 0, seen, 2, stack, ns);
            }
            if (pass == 1)
                break;
            for (int k = 0; k < W * (bh + 2); k++)
                if (!seen[k]) {
                    /* an enclosed region: count it if it has some size */
                    int size = 0;
                    seen[k] = 2;
                    stack[ns++] = k;
                    while (ns > 0) {
                        int k2 = stack[--ns], u = k2 % W, v = k2 / W;
                        size++;
                        ns = cd__push4(u, v, W, bh + 2, NULL, 0, seen, 2, stack, ns);
                    }
                    if (size >= 2)
                        g->holes++;
                }
        }
        free(stack);
    }
    free(on);
}

/* An index letter too faint to be ink: a pale print (the light blue or
 * green letter of a four-colour deck), or a letter the blur spread thin.
 * Every deck prints the rank at the top of the index and the suit symbol
 * under it, so when the first blob of the index starts low (top, upright
 * pixels from the card's edge) nothing was found where the letter is: the
 * strip above it is searched on its own contrast.  The card's edge, blurred
 * into a ramp of "ink" falling off inward, is cut off at each row's and
 * column's first valley; the rest is split at half its strongest pixel,
 * and the 8-connected piece with the most ink strength becomes a blob (a
 * new label in the patch).  Returns its id, or -1. */
static int cd__faint_letter(cd__patch *p, int corner, int top)
{
    const double P = CD__PPM;
    enum { ZW = 40, ZH = 40 };
    int u0 = (int)(1.5 * P), zw = (int)(13 * P), zh = top - 1;
    unsigned char sc[ZH][ZW];
    signed char keep[ZH][ZW];
    if (zh > ZH)
        zh = ZH;
    if (zw > ZW)
        zw = ZW;
    if (zh < 3 * P || p->nblobs >= CD__MAXBLOB || p->npix + zw * zh > p->w * p->h)
        return -1;
    for (int v = 0; v < zh; v++)
        for (int u = 0; u < zw; u++) {
            int x = corner == 1 ? p->w - 1 - u : u, y = corner == 1 ? p->h - 1 - v : v;
            sc[v][u] = p->sc[y * p->w + x];
            keep[v][u] = u >= u0 && v >= u0;
        }
    /* the edges' ramps: up to the first valley, at most 4 mm in */
    for (int v = 0; v < zh; v++)
        for (int u = 1; u < (int)(4 * P) && u + 1 < zw; u++) {
            keep[v][u - 1] = 0;
            if (sc[v][u + 1] >= sc[v][u])
                break;
        }
    for (int u = 0; u < zw; u++)
        for (int v = 1; v < (int)(4 * P) && v + 1 < zh; v++) {
            keep[v - 1][u] = 0;
            if (sc[v + 1][u] >= sc[v][u])
                break;
        }
    int peak = 0;
    for (int v = 0; v < zh; v++)
        for (int u = 0; u < zw; u++)
            if (keep[v][u] && sc[v][u] > peak)
                peak = sc[v][u];
    /* the strip must be paper with a print on it: its typical pixel
     * (the median) well below the print's peak (a strip of mat, of a
     * blurred edge's shadow, of a smear is not); 0.08: paper's own noise
     * and JPEG ringing stay below it */
    int hist[256] = {0}, nk = 0, med = 0;
    for (int v = 0; v < zh; v++)
        for (int u = 0; u < zw; u++)
            if (keep[v][u]) {
                hist[sc[v][u]]++;
                nk++;
            }
    for (int acc = 0; med < 255 && (acc += hist[med]) < nk / 2;)
        med++;
    if (peak < 0.08 * 255 || peak < CD__FAINT_BG * med + 0.04 * 255)
        return -1;
    int thr = peak / 2;
    /* pieces: 8-connected, their ink strength summed */
    int lab[ZH][ZW], stack[ZH * ZW], best = -1, nl = 0;
    double bestm = 0;
    for (int v = 0; v < zh; v++)
        for (int u = 0; u < zw; u++)
            lab[v][u] = -1;
    for (int v = 0; v < zh; v++)
        for (int u = 0; u < zw; u++) {
            if (!keep[v][u] || sc[v][u] < thr || lab[v][u] >= 0)
                continue;
            int ns = 0;
            double m = 0;
            lab[v][u] = nl;
            stack[ns++] = v * ZW + u;
            while (ns > 0) {
                int k = stack[--ns], kv = k / ZW, ku = k % ZW;
                m += sc[kv][ku];
                for (int dv = -1; dv <= 1; dv++)
                    for (int du = -1; du <= 1; du++) {
                        int a = kv + dv, b = ku + du;
                        if (a >= 0 && b >= 0 && a < zh && b < zw && keep[a][b] &&
                            sc[a][b] >= thr && lab[a][b] < 0) {
                            lab[a][b] = nl;
                            stack[ns++] = a * ZW + b;
                        }
                    }
            }
            if (m > bestm) {
                bestm = m;
                best = nl;
            }
            nl++;
        }
    int n = 0, v0 = ZH, v1 = -1;
    for (int v = 0; v < zh; v++)
        for (int u = 0; u < zw; u++)
            if (best >= 0 && lab[v][u] == best) {
                n++;
                v0 = v < v0 ? v : v0;
                v1 = v;
            }
    /* of a letter's size, as for the index's blobs */
    if (n < 2 * P * P || v1 - v0 + 1 < 2.5 * P)
        return -1;
    int id = p->nblobs++;
    cd__blob *bl = &p->blobs[id];
    memset(bl, 0, sizeof *bl);
    bl->first = p->npix;
    bl->x0 = bl->y0 = 1 << 30;
    bl->x1 = bl->y1 = -1;
    for (int v = 0; v < zh; v++)
        for (int u = 0; u < zw; u++) {
            if (lab[v][u] != best)
                continue;
            int x = corner == 1 ? p->w - 1 - u : u, y = corner == 1 ? p->h - 1 - v : v;
            const unsigned char *q = cd__px(p, x, y);
            p->pix[p->npix++] = y * p->w + x;
            p->lab[y * p->w + x] = id;
            bl->n++;
            bl->sx += x;
            bl->sy += y;
            bl->sb += q[0];
            bl->sg += q[1];
            bl->sr += q[2];
            bl->x0 = x < bl->x0 ? x : bl->x0;
            bl->x1 = x > bl->x1 ? x : bl->x1;
            bl->y0 = y < bl->y0 ? y : bl->y0;
            bl->y1 = y > bl->y1 ? y : bl->y1;
        }
    return id;
}

/* The letter's part of an index glyph (the blob id, box *x0..*y1) that
 * holds the letter and the suit symbol under it: the rows above the one
 * with the least ink strength (the blob's pixels summed) from 5 mm down to
 * 0.7 of the glyph's height, upright (corner 1 is turned); the box shrinks
 * to the blob's pixels there. */
static void cd__letter_above_symbol(const cd__patch *p, int id, int corner, int *x0, int *y0,
                                    int *x1, int *y1)
{
    const double P = CD__PPM;
    int bh = *y1 - *y0 + 1, lo = (int)(5 * P), hi = (int)(0.7 * bh), best = -1;
    long bsum = 0;
    for (int v = lo; v < hi; v++) {
        int y = corner == 1 ? *y1 - v : *y0 + v;
        long sum = 0;
        for (int x = *x0; x <= *x1; x++)
            if (p->lab[y * p->w + x] == id)
                sum += p->sc[y * p->w + x];
        if (best < 0 || sum < bsum) {
            best = v;
            bsum = sum;
        }
    }
    if (best <= 0)
        return;
    /* the rows 0 .. best - 1 (upright) */
    int ya = corner == 1 ? *y1 - best + 1 : *y0, yb = corner == 1 ? *y1 : *y0 + best - 1;
    int nx0 = 1 << 30, ny0 = 1 << 30, nx1 = -1, ny1 = -1;
    for (int y = ya; y <= yb; y++)
        for (int x = *x0; x <= *x1; x++)
            if (p->lab[y * p->w + x] == id) {
                nx0 = x < nx0 ? x : nx0;
                nx1 = x > nx1 ? x : nx1;
                ny0 = y < ny0 ? y : ny0;
                ny1 = y > ny1 ? y : ny1;
            }
    if (nx1 < 0)
        return;
    *x0 = nx0;
    *y0 = ny0;
    *x1 = nx1;
    *y1 = ny1;
}

/* Reads the index in one corner: the letter scores and the suit symbol
 * (its blob id, -1 when none).  corner 0: top-left, 1: bottom-right
 * (turned by 180 degrees). */
static void cd__index(cd__patch *p, int corner, double letter[4], int *suit_blob,
                      bool *have_letter, bool *have_glyph)
{
    const double P = CD__PPM;
    int zx0 = 0, zy0 = 0, zx1 = (int)(13 * P), zy1 = (int)(34 * P);
    int ids[16], nid = 0, sym = -1;
    if (corner == 1) {
        int t0 = p->w - 1 - zx1, t1 = p->h - 1 - zy1;
        zx0 = t0;
        zy0 = t1;
        zx1 = p->w - 1;
        zy1 = p->h - 1;
    }
    *suit_blob = -1;
    *have_letter = *have_glyph = false;
    for (int l = 0; l < 4; l++)
        letter[l] = 0;
    /* blobs inside the zone, in reading order (top first, after the turn) */
    int cand[32], nc = 0;
    for (int i = 0; i < p->nblobs && nc < 32; i++) {
        const cd__blob *b = &p->blobs[i];
        double cx = b->sx / b->n, cy = b->sy / b->n;
        if (b->n < 2 * P * P || b->y1 - b->y0 + 1 < 2.5 * P || cx < zx0 || cx > zx1 ||
            cy < zy0 || cy > zy1)
            continue;
        /* not touching the card's centre area */
        if ((corner == 0 && (b->x1 > 15 * P || b->y1 > 36 * P)) ||
            (corner == 1 && (b->x0 < p->w - 1 - 15 * P || b->y0 < p->h - 1 - 36 * P)))
            continue;
        cand[nc++] = i;
    }
    if (nc == 0)
        return;
    /* sort by distance from the corner along the card's long side */
    for (int i = 1; i < nc; i++)
        for (int j = i; j > 0; j--) {
            const cd__blob *a = &p->blobs[cand[j - 1]], *b = &p->blobs[cand[j]];
            double ya = a->sy / a->n, yb = b->sy / b->n;
            if (corner == 1) {
                ya = -ya;
                yb = -yb;
            }
            if (ya > yb) {
                int t = cand[j];
                cand[j] = cand[j - 1];
                cand[j - 1] = t;
            }
        }
    /* nothing where the rank is printed: a faint letter above the first
     * blob (9 mm down or more: letters start 1-7 mm down, symbols 10-15) */
    {
        const cd__blob *f = &p->blobs[cand[0]];
        int top = corner == 1 ? p->h - 1 - f->y1 : f->y0, id;
        if (top >= 9 * P && nc < 32 && (id = cd__faint_letter(p, corner, top)) >= 0) {
            memmove(cand + 1, cand, sizeof *cand * (size_t)nc);
            cand[0] = id;
            nc++;
        }
    }
    /* the glyph: the first blob and any beside it (the "10"); the suit
     * symbol: the next one below */
    const cd__blob *g0 = &p->blobs[cand[0]];
    int gx0 = g0->x0, gy0 = g0->y0, gx1 = g0->x1, gy1 = g0->y1;
    ids[nid++] = cand[0];
    for (int i = 1; i < nc; i++) {
        const cd__blob *b = &p->blobs[cand[i]];
        int ov = (b->y0 <= gy1 && b->y1 >= gy0);
        double ovl = ov ? (fmin(b->y1, gy1) - fmax(b->y0, gy0)) / (double)(b->y1 - b->y0 + 1) : 0;
        if (ovl > 0.5 && nid < 16) {
            ids[nid++] = cand[i];
            gx0 = b->x0 < gx0 ? b->x0 : gx0;
            gx1 = b->x1 > gx1 ? b->x1 : gx1;
            gy0 = b->y0 < gy0 ? b->y0 : gy0;
            gy1 = b->y1 > gy1 ? b->y1 : gy1;
        } else if (sym < 0) {
            /* a suit symbol is 3 mm or more each way and not a sliver */
            int bw = b->x1 - b->x0 + 1, bh = b->y1 - b->y0 + 1;
            if (bw >= 2.5 * P && bh >= 3 * P && bh < 1.9 * bw && bw < 1.7 * bh)
                sym = cand[i];
        }
    }
    /* A glyph taller than any index letter (15 mm) is the letter and the
     * suit symbol under it run together by the blur (large indices, the
     * symbol close under the letter): the
     * letter is what lies above the faintest row (the least ink summed
     * across the glyph) between 5 mm down and 0.7 of its height, its box
     * the glyph's pixels there.  Read whole, the symbol under a Q or a K
     * was taken for the letter's lower half. */
    if (nid == 1 && gy1 - gy0 + 1 > 15 * P)
        cd__letter_above_symbol(p, ids[0], corner, &gx0, &gy0, &gx1, &gy1);
    if (gy1 - gy0 >= 4 && gx1 - gx0 >= 1) {
        cd__letter(p, ids, nid, gx0, gy0, gx1, gy1, corner == 1, letter);
        /* the stroke layouts alone tell J Q K apart poorly at 5-8 pixels a
         * letter; what survives the blur: Q's hole (or at least its empty
         * middle), J's hook at the bottom left, K's junction of three
         * strokes in the middle and its stem at the left edge (the column
         * of the most ink: J's stroke lies right of the middle) */
        cd__glyph gg;
        cd__glyph_of(p, ids, nid, gx0, gy0, gx1, gy1, corner == 1, &gg);
        letter[1] += 12 * (gg.bl - 0.3);
        letter[2] += 2 * (gg.holes > 0) + 4 * (0.11 - gg.mid);
        letter[3] += 4 * (gg.mid - 0.11) + 2 * (0.3 - gg.stem);
        *have_letter = nid == 1; /* "10" is two blobs: no letter */
        *have_glyph = true;
    }
    *suit_blob = sym;
}

typedef struct cd__card {
    int rank, suit;
    int rank2, suit2; /* the runner-up readings, 0 / -1 when none */
    double black_vote; /* black by colour: the mean spade-vs-club vote of its symbols */
    int black_n;       /* black by colour: how many symbols voted (0: not black) */
    bool face_down, court;
    int pips;
    float rank_conf, suit_conf;
    /* a court with no letter in either corner: the rank its figure's
     * headgear shows plainly, else (its index glyphs in two pieces side by
     * side, read as a "10") the letter the pieces together look most like;
     * 0 when none */
    int rank_guess;
    bool no_layout; /* pips in no card's layout (see cd__pip_layout) */
    bool off_card;  /* the table 10 mm deep along a side: a cut off the card (cd__along_side) */
} cd__card;

/* The conf of a pip count whose pips are in no card's layout. */
#define CD__LAYOUT_CONF 0.45

/* Whether the centre pips (the blobs ids, median area med) lie as a
 * rank's do on every deck: their centres span at least a third of the
 * card's height, and each pip has its mirror image about the middle of
 * their box within 4 mm (a 7's odd pip excepted). */
static bool cd__pip_layout(const cd__patch *p, const int *ids, int n, double med, int rank)
{
    double x0 = 1e9, x1 = -1e9, y0 = 1e9, y1 = -1e9;
    const double P = CD__PPM, tol = 4 * P;
    if (n < 2)
        return true;
    for (int i = 0; i < n; i++) {
        const cd__blob *b = &p->blobs[ids[i]];
        double cx = b->sx / b->n, cy = b->sy / b->n;
        x0 = fmin(x0, cx);
        x1 = fmax(x1, cx);
        y0 = fmin(y0, cy);
        y1 = fmax(y1, cy);
    }
    if (y1 - y0 < p->h / 3.0)
        return false;
    int unmatched = 0;
    for (int i = 0; i < n; i++) {
        const cd__blob *b = &p->blobs[ids[i]];
        double mx = x0 + x1 - b->sx / b->n, my = y0 + y1 - b->sy / b->n, bd = 1e9;
        for (int j = 0; j < n; j++) {
            const cd__blob *q = &p->blobs[ids[j]];
            bd = fmin(bd, hypot(q->sx / q->n - mx, q->sy / q->n - my));
        }
        if (bd > tol)
            unmatched += med > 0 && b->n > 1.5 * med ? 2 : 1;
    }
    return unmatched <= (rank == 7 ? 1 : 0);
}

/* Whether blob b is the table (or a neighbour) seen along a side of the
 * cut, past a cut that lies off the card: within 7 mm of one side over
 * more than 30 mm of its length, and joined to the patch's border there by
 * non-paper all the way (the ramp and line tests take its outermost
 * columns, so it no longer touches the border itself).  Print never is:
 * every deck leaves a margin of paper round its face, a frame printed
 * round it included, and frames its court figure inside the index
 * columns.  2 when it reaches 10 mm or more in from that side on average
 * (the cut lies far off the card), 1 when it is thinner, 0 when it is not
 * such a region. */
static int cd__along_side(const cd__patch *p, const cd__blob *b)
{
    const double P = CD__PPM;
    int band = (int)(7 * P), len = (int)(30 * P), w = p->w, h = p->h;
    /* (only a blob whose box lies along a side, longer than that: not an
     * index glyph, nor a pip) */
    bool lr = (b->x0 < band || b->x1 >= w - band) && b->y1 - b->y0 >= len;
    bool tb = (b->y0 < band || b->y1 >= h - band) && b->x1 - b->x0 >= len;
    if (b->n < len || (!lr && !tb))
        return 0;
    /* per row (the left and right sides) and column (top, bottom): how
     * near the side the blob comes and how far in it reaches */
    int nl = 2 * h + 2 * w;
    int *near = malloc(sizeof *near * (size_t)nl * 2), *far = near + nl;
    if (!near)
        return 0;
    for (int k = 0; k < nl; k++) {
        near[k] = 1 << 30;
        far[k] = 0;
    }
    for (int k = 0; k < b->n; k++) {
        int i = p->pix[b->first + k], y = i / w, x = i - y * w;
        int d[4] = {x, w - 1 - x, y, h - 1 - y}, at[4] = {y, h + y, 2 * h + x, 2 * h + w + x};
        for (int s = 0; s < 4; s++) {
            near[at[s]] = d[s] < near[at[s]] ? d[s] : near[at[s]];
            far[at[s]] = d[s] > far[at[s]] ? d[s] : far[at[s]];
        }
    }
    int r = 0;
    for (int s = 0; s < 4; s++) {
        int k0 = s < 2 ? s * h : 2 * h + (s - 2) * w, n = s < 2 ? h : w, cnt = 0;
        long depth = 0;
        for (int j = 0; j < n; j++) {
            int k = k0 + j;
            if (near[k] >= band)
                continue;
            /* paper between the blob and the border: a margin, print */
            int paper = 0;
            for (int t = 0; t < near[k] && paper <= 2; t++) {
                int x = s == 0 ? t : s == 1 ? w - 1 - t : j;
                int y = s == 2 ? t : s == 3 ? h - 1 - t : j;
                paper += p->sc[y * w + x] <= 38; /* the weak-ink threshold, 0.15 */
            }
            if (paper > 2)
                continue;
            cnt++;
            depth += far[k];
        }
        if (cnt > len) {
            int t = depth >= 10 * P * cnt ? 2 : 1;
            r = t > r ? t : r;
        }
    }
    free(near);
    return r;
}

/* Pixel q's colour balanced on paper (pb, pg, pr) as *b, *g, *r; returns
 * its yellow: the lesser of red and green above blue. */
static inline double cd__yellow(const unsigned char *q, double pb, double pg, double pr, double *b,
                                double *g, double *r)
{
    *b = q[0] / pb;
    *g = q[1] / pg;
    *r = q[2] / pr;
    return fmin(*r, *g) - *b;
}

/* The court figure's headgear, the picture's cross-check of the index
 * letter, which is 4-7 camera pixels tall on a table seen whole and often
 * a blob that reads as any of J Q K.  The figure wears, above its head
 * (13.5-23 mm down from the card's top edge, the middle 16 mm; the turned
 * half alike from the bottom edge): the king a tall crown, the queen a
 * low coronet, the jack a dark cap.  What survives any blur is the mass
 * of each: gold (cd__yellow, on paper-balanced colour) over the
 * picture's own ground or the face's colour, whichever is yellower, and
 * dark (the brightest channel below the ground's), summed in mm2.  A
 * bright patch of light or a shadow over one half makes a dark mass there
 * alone: the dark mass is the lesser half's, twice.  Returns 11, 12 or 13
 * when the headgear is one of the three plainly, 0 when the picture shows
 * none of them (a design that dresses its figures otherwise: the index
 * decides alone).  plain: against a letter that is fairly sure, only
 * masses well clear of the other ranks' count (a cut 10 mm off the card
 * puts the frame's edge in one half's dark; a queen's coronet in a
 * bright light reaches 33-36 mm2 of gold).
 *
 * A face yellower than the ground (a four-colour deck's pale blue ground)
 * lifts the gold's baseline above what surrounds the headgear: the
 * blurred skirt of a crown, which fades into the ground, falls under it
 * and is lost, so the same crown weighs less, the more so the wider the
 * blur.  The bounds come down by 36 mm2 times that lift (the face's
 * yellowness over the ground's, the mean of the halves: 0.14-0.29 on a
 * four-colour deck, none on the warm grounds of the others) times the
 * camera's pixel on the table in mm (its blur's least width; at most 1.5,
 * none when the camera is not known).  On the development sets kings of
 * four-colour decks weighed 35-45 (queens 9-16), against 48-55 (23-30)
 * on a warm ground, and at 0.57-0.85 px/mm ten kings at 22-32 read as
 * queens (sim seeds 970011, 990008, 960010, 930506). */
static int cd__headgear(const cd__patch *p, bool plain)
{
    const double P = CD__PPM;
    double pb = fmax(p->paper[0], 1), pg = fmax(p->paper[1], 1), pr = fmax(p->paper[2], 1);
    double gold = 0, dark[2], lift = 0;
    for (int half = 0; half < 2; half++) {
        /* rows 13.5-23 mm down; the ground from the picture's width
         * there (15-48 mm across), the masses over the middle 16 mm */
        int y0 = (int)(13.5 * P), y1 = (int)(23 * P), fy = (int)(26 * P);
        int bx0 = (int)(15 * P), bx1 = (int)(48 * P);
        int x0 = (int)(p->w / 2.0 - 8 * P), x1 = (int)(p->w / 2.0 + 8 * P);
        if (bx1 >= p->w || y1 >= p->h / 2)
            return 0;
        if (half == 1) {
            int t = p->h - 1 - y1;
            y1 = p->h - 1 - y0;
            y0 = t;
            fy = p->h - 1 - fy;
        }
        /* medians by histogram: gold -1..1 and brightest 0..2, 1/128 */
        int hg[256] = {0}, hm[256] = {0}, n = 0;
        for (int y = y0; y <= y1; y++)
            for (int x = bx0; x <= bx1; x++) {
                double b, g, r, yl = cd__yellow(cd__px(p, x, y), pb, pg, pr, &b, &g, &r);
                int kg = (int)((yl + 1) * 128), km = (int)(fmax(r, fmax(g, b)) * 128);
                hg[kg < 0 ? 0 : kg > 255 ? 255 : kg]++;
                hm[km < 0 ? 0 : km > 255 ? 255 : km]++;
                n++;
            }
        int kg = 0, km = 0;
        for (int acc = hg[0]; acc * 2 < n; acc += hg[++kg])
            ;
        for (int acc = hm[0]; acc * 2 < n; acc += hm[++km])
            ;
        double gb = kg / 128.0 - 1, mb = km / 128.0, fs = 0;
        int nf = 0;
        /* the face, 4 mm square at its centre (26 mm down) */
        for (int y = fy - (int)(2 * P); y <= fy + (int)(2 * P); y++)
            for (int x = (int)(p->w / 2.0 - 2 * P); x <= (int)(p->w / 2.0 + 2 * P); x++) {
                double b, g, r;
                fs += cd__yellow(cd__px(p, x, y), pb, pg, pr, &b, &g, &r);
                nf++;
            }
        if (nf && fs / nf > gb) {
            lift += (fs / nf - gb) / 2;
            gb = fs / nf;
        }
        double sg = 0, sd = 0;
        for (int y = y0; y <= y1; y++)
            for (int x = x0; x <= x1; x++) {
                double b, g, r, gv = cd__yellow(cd__px(p, x, y), pb, pg, pr, &b, &g, &r) - gb;
                double mv = mb - fmax(r, fmax(g, b));
                sg += gv > 0 ? gv : 0;
                sd += mv > 0 ? mv : 0;
            }
        gold += sg / (P * P);
        dark[half] = sd / (P * P);
    }
    /* (masses of the sim's three deck designs, sharp to blurred at 0.6
     * px/mm: jack's gold 0-3 and dark 15-33 a half, queen's gold 7-17,
     * king's 20-28) */
    if (2 * fmin(dark[0], dark[1]) > (plain ? 20 : 12) && gold < 8)
        return 11;
    double fp = p->cam_ppm > 0 ? fmin(1.5, 1 / p->cam_ppm) : 0;
    double k = 33 - 36 * lift * fp;
    if (plain)
        return gold > k + 5 ? 13 : gold > 12 && gold <= k - 2 ? 12 : 0;
    return gold > k ? 13 : gold > 8 ? 12 : 0;
}

static void cd__read_card(cd__patch *p, cd__card *out)
{
    const double P = CD__PPM;
    double pfrac, psat;
    memset(out, 0, sizeof *out);
    out->suit = out->suit2 = -1;
    cd__ink(p, &pfrac, &psat);
    double pbright = (p->paper[0] + p->paper[1] + p->paper[2]) / 3;
    cd__blobs(p);
    int ninkpx = cd__drop_edge_blobs(p);
    /* Face down: the face is not paper-like (a coloured or patterned back),
     * or a plain face with no ink on it. */
    if (pfrac < 0.2 || psat > 0.35 || pbright < 60 || ninkpx < 4 * P * P) {
        out->face_down = true;
        out->rank_conf = out->suit_conf =
            (float)fmin(1, fmax(0.3, (0.3 - pfrac) * 4 + (psat - 0.25) * 3));
        if (ninkpx < 4 * P * P && pfrac >= 0.2)
            out->rank_conf = out->suit_conf = 0.6f;
        return;
    }
    /* the centre zone: between the index columns */
    int cx0 = (int)(13.5 * P), cx1 = p->w - 1 - (int)(13.5 * P);
    int cy0 = (int)(5 * P), cy1 = p->h - 1 - (int)(5 * P);
    /* ink that runs along a side of the cut is not the card's (see
     * cd__along_side): a cut off the card would read as a court */
    int side_blob[CD__MAXBLOB], any_side = 0;
    for (int i = 0; i < p->nblobs; i++) {
        side_blob[i] = cd__along_side(p, &p->blobs[i]);
        any_side = side_blob[i] > any_side ? side_blob[i] : any_side;
    }
    int nonpaper = 0, ncz = 0;
    for (int y = cy0; y <= cy1; y++)
        for (int x = cx0; x <= cx1; x++) {
            int i = y * p->w + x;
            nonpaper += p->ink[i] == 1 && !(any_side && p->lab[i] >= 0 && side_blob[p->lab[i]]);
            ncz++;
        }
    double npf = ncz ? (double)nonpaper / ncz : 0;
    out->off_card = any_side == 2;
    out->court = npf > 0.38;
    {
        /* a picture: one large blob in the centre with more ink around
         * it (an ace's large pip stands alone) */
        int big = -1, small = 0;
        for (int i = 0; i < p->nblobs; i++) {
            const cd__blob *b = &p->blobs[i];
            double cx = b->sx / b->n, cy = b->sy / b->n;
            if (cx < cx0 || cx > cx1 || cy < cy0 || cy > cy1 || side_blob[i])
                continue;
            if (b->n > 150 * P * P && (big < 0 || b->n > p->blobs[big].n))
                big = i;
        }
        for (int i = 0; big >= 0 && i < p->nblobs; i++) {
            const cd__blob *b = &p->blobs[i];
            double cx = b->sx / b->n, cy = b->sy / b->n;
            if (i != big && b->n > 3 * P * P && cx > cx0 && cx < cx1 && cy > cy0 && cy < cy1 &&
                !side_blob[i])
                small++;
        }
        if (big >= 0 && small >= 2)
            out->court = true;
    }

    /* suit votes: colour and shape */
    double col_votes[4] = {0}, shape_red = 0, shape_black = 0;
    /* symbols of a plain hue (see cd__lean_note) */
    cd__leans lns;
    memset(&lns, 0, sizeof lns);
    int nshape = 0;
    double wblack = 0;
    /* the black symbols' shapes, voted on once the card's blur is known */
    cd__shape bsh[CD__MAXBSH];
    double bsw[CD__MAXBSH];
    int nbsh = 0;
    double black_scale = 1;
    /* pips */
    int pip_ids[64], npip = 0;
    for (int i = 0; i < p->nblobs; i++) {
        const cd__blob *b = &p->blobs[i];
        double cx = b->sx / b->n, cy = b->sy / b->n;
        if (b->n < 6 * P * P || cx < cx0 || cx > cx1 || cy < cy0 || cy > cy1)
            continue;
        if (b->x0 < cx0 - 2 * P || b->x1 > cx1 + 2 * P)
            continue;
        if (npip < 64)
            pip_ids[npip++] = i;
    }
    int rank = 0;
    float rconf = 0;
    double pip_med = 0; /* the median pip's area (0: none) */
    bool small_ace = false; /* an ace read from a pip of a pip's size */
    if (!out->court) {
        /* merged pips: areas in units of the median */
        int areas[64];
        for (int i = 0; i < npip; i++)
            areas[i] = p->blobs[pip_ids[i]].n;
        for (int i = 1; i < npip; i++)
            for (int j = i; j > 0 && areas[j - 1] > areas[j]; j--) {
                int t = areas[j];
                areas[j] = areas[j - 1];
                areas[j - 1] = t;
            }
        double med = npip ? areas[npip / 2] : 0, frac_err = 0;
        pip_med = med;
        int count = 0;
        for (int i = 0; i < npip; i++) {
            double r = p->blobs[pip_ids[i]].n / med;
            int k = r < 1 ? 1 : (int)(r + 0.5);
            frac_err = fmax(frac_err, fabs(r - k) / (r < 1 ? 1 : r));
            count += k;
        }
        out->pips = count;
        /* Pips are 25 mm2 and more on a poker-sized card (the smallest
         * median pip of 1377 pip cards read in five frame sets); specks of
         * a granite table's texture, 7-9 mm2, in a cell that looks like
         * card stock are not (scaled with the card's area) */
        double wr = p->w / (63 * P);
        if (med < 10 * P * P * wr * wr)
            count = 0;
        if (count >= 2 && count <= 10) {
            rank = count;
            rconf = (float)fmax(0.2, 1 - 2 * frac_err);
            /* Every deck lays the pips of 2..10 out point-symmetric (but
             * for a 7's odd pip) from the top row to the bottom one: a cut
             * across two cards (a grid turned by glare beside them) shows
             * pips of both, in no card's layout.  Then the count is no
             * surer than a guess. */
            if (!cd__pip_layout(p, pip_ids, npip, med, rank)) {
                rconf = (float)fmin(rconf, CD__LAYOUT_CONF);
                out->no_layout = true;
            }
        } else if (count == 1 && med >= 20 * P * P) {
            /* an ace: its one pip is the largest print of any pip card
             * (a speck of the mat's texture in a cell of glare is not) */
            rank = 1;
            /* (every deck prints an ace's pip larger than the pips of
             * the other ranks, 150-210 mm2 against 48-61 in the sim's: a
             * lone pip of a pip's size is as likely a pip of a card cut
             * off) */
            rconf = 0.8f;
            small_ace = med < 100 * P * P * wr * wr;
        } else {
            rank = 0;
        }
        for (int i = 0; i < npip; i++) {
            const cd__blob *b = &p->blobs[pip_ids[i]];
            double st;
            int lean, col = cd__color(p, b, &st, &lean);
            cd__vote_color(col_votes, col, lean, st, 1);
            cd__lean_note(&lns, col, lean, st, 1);
            /* merged pips say nothing of shape */
            if (med > 0 && b->n > 1.5 * med)
                continue;
            cd__shape sh;
            bool flip = b->sy / b->n > p->h / 2.0 + 2 * P;
            cd__shape_of(p, b, pip_ids[i], flip, &sh);
            if (npip == 1) {
                /* An ace's one pip: the card may lie either way round and
                 * its indices look the same both ways (the layout is
                 * point-symmetric but for this pip), so which way up the
                 * pip is is not known; upside down, a heart looks like a
                 * diamond and a spade like a club.  A heart is a heart
                 * one way up, a diamond is alike both ways: the likelier
                 * heart of the two.  A spade is widest well off its
                 * middle (its lobes, under the point) whichever way up;
                 * a club's side leaves keep its widest row in the
                 * middle. */
                cd__shape sq;
                cd__shape_of(p, b, pip_ids[i], !flip, &sq);
                if (col == 1)
                    shape_red += fmax(cd__shape_vote(&sh, true, 0, false), cd__shape_vote(&sq, true, 0, false));
                else if (col == 0 && sh.ok) {
                    shape_black += (1 + CD__SKW) * cd__clamp2((fabs(sh.peak - 0.5) - 0.03) / 0.01);
                    wblack += 1;
                }
                nshape++;
                continue;
            }
            if (col == 1)
                shape_red += cd__shape_vote(&sh, true, 0, false);
            else if (col == 0) {
                if (nbsh < CD__MAXBSH) {
                    bsh[nbsh] = sh;
                    bsw[nbsh++] = 1;
                }
                wblack += 1;
            }
            nshape++;
        }
    }
    /* the corner indices */
    double letter[4] = {0}, l1[4], pieces[4] = {0};
    int nletter = 0, npieces = 0;
    for (int corner = 0; corner < 2; corner++) {
        int sb;
        bool hl, hg;
        cd__index(p, corner, l1, &sb, &hl, &hg);
        if (hl) {
            for (int l = 0; l < 4; l++)
                letter[l] += l1[l];
            nletter++;
        }
        if (hg && !hl) {
            for (int l = 0; l < 4; l++)
                pieces[l] += l1[l];
            npieces++;
        }
        if (sb >= 0) {
            const cd__blob *b = &p->blobs[sb];
            double st;
            int lean, col = cd__color(p, b, &st, &lean);
            cd__vote_color(col_votes, col, lean, st, 1.5);
            cd__lean_note(&lns, col, lean, st, 1.5);
            /* An index symbol larger than the card's pips by a quarter
             * is not a symbol alone (every deck prints it smaller): the
             * blur has run the rank into it.  Its colour holds, its
             * shape is the two's. */
            if (pip_med > 0 && b->n > 1.25 * pip_med)
                continue;
            cd__shape sh;
            cd__shape_of(p, b, sb, corner == 1, &sh);
            if (col == 1)
                shape_red += 0.7 * cd__shape_vote(&sh, true, 0, out->court);
            else if (col == 0) {
                if (nbsh < CD__MAXBSH) {
                    bsh[nbsh] = sh;
                    bsw[nbsh++] = 0.7;
                }
                wblack += 0.7;
            }
            nshape++;
        }
    }
    if (out->court) {
        /* The picture's own suit symbol: court designs set one beside the
         * figure, inside the frame's corner (and turned, in the opposite
         * one); a symbol-sized blob there votes like an index symbol. */
        for (int i = 0; i < p->nblobs; i++) {
            const cd__blob *b = &p->blobs[i];
            double cx = b->sx / b->n / P, cy = b->sy / b->n / P;
            int bw = b->x1 - b->x0 + 1, bh = b->y1 - b->y0 + 1;
            bool turned = cy > p->h / P / 2;
            double ux = turned ? p->w / P - cx : cx, uy = turned ? p->h / P - cy : cy;
            if (ux < 13 || ux > 28 || uy < 11 || uy > 30 || bw < 3 * P || bh < 3 * P ||
                bw > 9 * P || bh > 9 * P || bh > 1.9 * bw || bw > 1.7 * bh)
                continue;
            double st;
            int lean, col = cd__color(p, b, &st, &lean);
            cd__shape sh;
            cd__vote_color(col_votes, col, lean, st, 0.7);
            cd__lean_note(&lns, col, lean, st, 0.7);
            cd__shape_of(p, b, i, turned, &sh);
            if (col == 1)
                shape_red += 0.7 * cd__shape_vote(&sh, true, 0, out->court);
            else if (col == 0) {
                if (nbsh < CD__MAXBSH) {
                    bsh[nbsh] = sh;
                    bsw[nbsh++] = 0.7;
                }
                wblack += 0.7;
            }
            nshape++;
        }
        /* J Q K by the index letter */
        int best = -1;
        double bs = -2, second = -2;
        for (int l = 1; l < 4; l++) {
            double s = nletter ? letter[l] / nletter : 0;
            if (s > bs) {
                second = bs;
                bs = s;
                best = l;
            } else if (s > second)
                second = s;
        }
        rank = nletter ? cd__letter_rank[best] : 0;
        if (!nletter && npieces) {
            int bp = 1;
            for (int l = 2; l < 4; l++)
                if (pieces[l] > pieces[bp])
                    bp = l;
            out->rank_guess = cd__letter_rank[bp];
        }
        /* (no letter at all: the headgear, which names the rank more often
         * than the letter does, see below; sim seed 1100000 frame 30, a KH
         * with both its letters blurred into their symbols, was not
         * reported, and looked taken away) */
        int hg_alone = nletter ? 0 : cd__headgear(p, true);
        if (hg_alone)
            out->rank_guess = hg_alone;
        for (int l = 1; l < 4 && nletter; l++)
            if (l != best && fabs(letter[l] / nletter - second) < 1e-9)
                out->rank2 = cd__letter_rank[l];
        /* the index letter is 5-8 pixels tall in a camera's view of the
         * whole table: never quite sure */
        rconf = nletter ? (float)fmin(0.9, fmax(0.1, 0.2 + 0.3 * (bs - second))) : 0;
        /* An unsure letter gives way to the figure's headgear where it
         * shows one plainly; agreeing, it is surer.  Over 796 court reads
         * of nine frame sets the headgear named the rank right more often
         * than the letter (720 against 609; wrong 32 against 176), and
         * letters read 0.5-0.7 sure as J for a far camera's queens (sim
         * seed 980004); from 0.5 the headgear must be plainer. */
        int hg = nletter && rconf < 0.7 ? cd__headgear(p, rconf >= 0.5) : 0;
        if (hg && hg == rank)
            rconf = (float)fmax(rconf, fmin(0.6, rconf + 0.2));
        else if (hg) {
            out->rank2 = rank;
            rank = hg;
            rconf = 0.35f;
        }
        /* the court picture's ink colour when the index gave none */
        if (col_votes[0] + col_votes[1] + col_votes[2] + col_votes[3] == 0)
            for (int i = 0; i < p->nblobs; i++) {
                const cd__blob *b = &p->blobs[i];
                double st;
                int lean;
                if (b->n >= 6 * P * P)
                    col_votes[cd__color(p, b, &st, &lean)] += 0.2;
            }
    } else if (rank == 1 && nletter) {
        /* cross-check the ace: the letter should look like an A */
        double a = letter[0] / nletter, other = fmax(letter[1], fmax(letter[2], letter[3])) / nletter;
        rconf = (float)fmin(1, fmax(0.2, 0.6 + (a - other)));
    }
    if (small_ace)
        rconf = (float)fmin(rconf, CD__LAYOUT_CONF);
    if (nbsh > 0) {
        /* The blur rounds both black shapes alike: a spade's point and a
         * club's top lobe fill out, the widest row moves to the middle
         * and the skewness toward 0 for both.  How far, the symbols' tops
         * say (the width 12% down, against the widest: 0.3-0.45 sharp,
         * 0.6-0.75 when blurred round): the spade/club boundary moves
         * with it and narrows.  The mean over the card's pips (they share
         * its blur); a court's or a pipless card's symbols keep the sharp
         * boundary (the index symbols are smaller, round at any blur:
         * courts lost suits when they set it). */
        double st = 0, sn = 0;
        for (int i = 0; i < nbsh; i++)
            if (bsh[i].ok && bsw[i] == 1) {
                st += bsh[i].tip;
                sn++;
            }
        double blur = sn > 0 ? fmin(1, fmax(0, (st / sn - 0.45) / 0.2)) : 0;
        for (int i = 0; i < nbsh; i++)
            shape_black += bsw[i] * cd__shape_vote(&bsh[i], false, blur, out->court);
        /* the narrower boundary decides, but the confidence and the split
         * across the view stay on the sharp symbols' scale: a blurred
         * symbol is no surer for it */
        black_scale = 1 - 0.7 * blur;
    }
    out->rank = rank;
    out->rank_conf = rconf;
    if (!out->court && rank >= 1)
        /* a pip missed (hidden by blur or a merge) is likelier than one
         * too many; an ace's alternative is a two */
        out->rank2 = rank == 1 ? 2 : rank < 10 ? rank + 1 : 9;
    /* A faint symbol leaning to the hue another of the card's symbols
     * shows plainly is of that hue: black ink leans nowhere (under 0.05),
     * and a far camera's blur washes a small blue or red index symbol out
     * to 0.1-0.3 while the card's large pip keeps its hue (sim seed 801's
     * AD: its pip blue at 0.55, its index symbols leaning blue at 0.11 and
     * 0.16 outvoted it as black).  Their black votes go to the hue. */
    for (int i = 0; i < lns.n; i++)
        if (lns.strong[lns.lean[i]]) {
            col_votes[0] -= lns.black[i];
            col_votes[lns.lean[i]] += lns.black[i];
        }
    /* the suit */
    int col = 0;
    double tot = 0;
    for (int k = 0; k < 4; k++) {
        tot += col_votes[k];
        if (col_votes[k] > col_votes[col])
            col = k;
    }
    if (tot <= 0) {
        out->suit = -1;
        out->suit_conf = 0;
        return;
    }
    double cconf = col_votes[col] / tot, ns = nshape > 0 ? nshape : 1;
    /* the confidence in the shape from the mean vote per symbol: the
     * symbols of one card share its blur, so many weak votes are not many
     * independent ones */
    if (col == 2) {
        out->suit = CD__D;
        out->suit2 = CD__H;
        out->suit_conf = (float)cconf;
    } else if (col == 3) {
        out->suit = CD__C;
        out->suit2 = CD__S;
        out->suit_conf = (float)cconf;
    } else if (col == 1) {
        out->suit = shape_red >= 0 ? CD__H : CD__D;
        out->suit2 = shape_red >= 0 ? CD__D : CD__H;
        out->suit_conf = (float)(cconf * (0.5 + 0.5 * tanh(fabs(shape_red) / ns / 2)));
    } else {
        out->suit = shape_black >= 0 ? CD__S : CD__C;
        out->suit2 = shape_black >= 0 ? CD__C : CD__S;
        if (wblack > 0) {
            /* on the scale of the peak's vote alone (+-2.1), which the
             * split across the view was set for */
            out->black_vote = shape_black * black_scale / wblack * 2.1 / (2.1 + 2 * CD__SKW);
            out->black_n = (int)(wblack + 0.5);
        }
        /* (the vote on the scale of the widest row's alone, as for the
         * red suits: the skewness adds evidence, not certainty) */
        double sb = fabs(shape_black) * black_scale * 2.1 / (2.1 + 2 * CD__SKW);
        out->suit_conf = (float)(cconf * (0.5 + 0.5 * tanh(sb / ns / 2)));
    }
}

/* Where the card's own centre lies in the patch, from its print: every
 * deck centres the pips of 2..10 (the layouts are symmetric about the
 * card's centre both ways: the box of the pip centres is centred), an
 * ace's pip and a court picture.  The grid and the outline (cd__refine)
 * place a card within a few mm, but a cream card on a pale mat or a frame
 * printed 2 mm in from the edge can fool the outline by 3-5 mm, enough to
 * push a pip column or an index out of its zone.  du, dv: the centre's
 * offset from the patch's centre in mm (along the short, long side); false
 * when the print gives no sure centre. */
static bool cd__print_centre(const cd__patch *p, const cd__card *cr, double *du, double *dv)
{
    const double P = CD__PPM, W = p->w / P, H = p->h / P;
    *du = *dv = 0;
    if (cr->face_down)
        return false;
    if (cr->court) {
        /* the picture: its largest blob, point-symmetric about the centre */
        int big = -1;
        for (int i = 0; i < p->nblobs; i++)
            if (p->blobs[i].n > 150 * P * P && (big < 0 || p->blobs[i].n > p->blobs[big].n))
                big = i;
        if (big < 0)
            return false;
        const cd__blob *b = &p->blobs[big];
        *du = (b->x0 + b->x1 + 1) / 2.0 / P - W / 2;
        *dv = (b->y0 + b->y1 + 1) / 2.0 / P - H / 2;
        return fabs(*du) < 7 && fabs(*dv) < 7;
    }
    /* pips: blobs of a pip's size away from the index corners */
    int ids[64], n = 0, areas[64];
    for (int i = 0; i < p->nblobs && n < 64; i++) {
        const cd__blob *b = &p->blobs[i];
        double cx = b->sx / b->n / P, cy = b->sy / b->n / P;
        if (b->n < 6 * P * P || cx < 9 || cx > W - 9 || cy < 4 || cy > H - 4)
            continue;
        if ((cx < 14 && cy < 28) || (cx > W - 14 && cy > H - 28))
            continue;
        areas[n] = b->n;
        ids[n++] = i;
    }
    if (n == 0)
        return false;
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && areas[j - 1] > areas[j]; j--) {
            int t = areas[j];
            areas[j] = areas[j - 1];
            areas[j - 1] = t;
        }
    double med = areas[n / 2], x0 = 1e9, x1 = -1e9, y0 = 1e9, y1 = -1e9, sx = 0;
    int m = 0;
    for (int i = 0; i < n; i++) {
        const cd__blob *b = &p->blobs[ids[i]];
        if (b->n < 0.5 * med || b->n > 2.5 * med)
            continue;
        double cx = b->sx / b->n / P, cy = b->sy / b->n / P;
        x0 = fmin(x0, cx);
        x1 = fmax(x1, cx);
        y0 = fmin(y0, cy);
        y1 = fmax(y1, cy);
        sx += cx;
        m++;
    }
    if (m == 0 || (m == 1 && med < 40 * P * P))
        return false; /* one small blob: not an ace's pip */
    /* one column (2, 3, an ace): its mean; else the box of both */
    *du = (x1 - x0 < 5 ? sx / m : (x0 + x1) / 2) - W / 2;
    *dv = (y0 + y1) / 2 - H / 2;
    return fabs(*du) < 7 && fabs(*dv) < 7;
}

/* ---- the whole view ---- */

/* Spade or club, across the view.  At a few pixels a millimetre the two
 * black shapes differ little, and a card's symbols share its blur, so its
 * own vote may lean the wrong way; but the cards of one view share the
 * deck's design, the light and the blur.  When the black cards' mean votes
 * fall into two groups with a clear gap between them, the upper group is
 * the spades and the lower the clubs.  An ace is left out: its one large
 * pip is not at the others' scale, and reads surely where their small
 * ones lean (sim seed 1400006: the AS at 2.1 above a 6S and a 10S at 0.1
 * made them the clubs). */
static void cd__black_split(vis_cards_reading *out, const double *bvote, const int *bn)
{
    int idx[VIS_CARDS_MAX], n = 0;
    for (int i = 0; i < out->ncards; i++)
        if (bn[i] >= 2 && out->cards[i].rank != 1 &&
            (out->cards[i].suit == CD__S || out->cards[i].suit == CD__C))
            idx[n++] = i;
    if (n < 2)
        return;
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && bvote[idx[j - 1]] > bvote[idx[j]]; j--) {
            int t = idx[j];
            idx[j] = idx[j - 1];
            idx[j - 1] = t;
        }
    int cut = -1;
    double gap = 0;
    for (int i = 0; i + 1 < n; i++)
        if (bvote[idx[i + 1]] - bvote[idx[i]] > gap) {
            gap = bvote[idx[i + 1]] - bvote[idx[i]];
            cut = i;
        }
    if (gap < 1.8)
        return;
    for (int i = 0; i < n; i++) {
        vis_card *k = &out->cards[idx[i]];
        int suit = i <= cut ? CD__C : CD__S;
        if (k->suit != suit) {
            k->suit2 = k->suit;
            k->suit = suit;
        }
        /* the split is evidence of its own */
        k->suit_conf = (float)fmax(k->suit_conf, fmin(0.9, 0.4 + 0.15 * gap));
        k->conf = k->rank_conf < k->suit_conf ? k->rank_conf : k->suit_conf;
    }
}

static bool cd__reads(const vis_cards_reading *out, int rank, int suit)
{
    for (int i = 0; i < out->ncards; i++)
        if (!out->cards[i].face_down && out->cards[i].rank == rank && out->cards[i].suit == suit)
            return true;
    return false;
}

/* One deck (the game's rule): two face-up cards read the same means one
 * of them is misread.  Both are flagged as duplicates, and the less sure
 * one takes its runner-up reading of its less sure part (rank or suit)
 * when no card in the view reads that, with at most a runner-up's
 * confidence (0.5); its first reading becomes its runner-up. */
static void cd__one_deck(vis_cards_reading *out)
{
    for (int i = 0; i < out->ncards; i++)
        for (int j = i + 1; j < out->ncards; j++) {
            vis_card *a = &out->cards[i], *b = &out->cards[j];
            if (a->face_down || b->face_down || a->rank <= 0 || a->suit < 0 ||
                a->rank != b->rank || a->suit != b->suit)
                continue;
            vis_card *k = b->conf < a->conf ? b : a;
            a->duplicate = b->duplicate = true;
            int alt[2][2] = {{k->rank2, k->suit}, {k->rank, k->suit2}};
            int first = k->rank_conf <= k->suit_conf ? 0 : 1;
            for (int t = 0; t < 2; t++) {
                int q = t == 0 ? first : 1 - first, r = alt[q][0], s = alt[q][1];
                if (r <= 0 || s < 0 || cd__reads(out, r, s))
                    continue;
                if (q == 0) {
                    k->rank2 = k->rank;
                    k->rank = r;
                    k->rank_conf = (float)fmin(k->rank_conf, 0.5);
                } else {
                    k->suit2 = k->suit;
                    k->suit = s;
                    k->suit_conf = (float)fmin(k->suit_conf, 0.5);
                }
                k->conf = k->rank_conf < k->suit_conf ? k->rank_conf : k->suit_conf;
                break;
            }
        }
}

/* A pixel of the silhouette darker than the silhouette 3 px away on some
 * side by a quarter: print seen at a pixel a millimetre, whatever the mat. */
static bool cd__dark_spot(const cd__det *d, int x, int y)
{
    const int r = 3, w = d->w;
    if (!d->mask[y * w + x] || x < r || y < r || x >= w - r || y >= d->h - r)
        return false;
    const unsigned char *p = d->rgb + ((size_t)y * w + x) * 3;
    int br = p[0] + p[1] + p[2], best = 0;
    const int off[4] = {-r, r, -r * w, r * w};
    for (int k = 0; k < 4; k++) {
        int j = y * w + x + off[k];
        const unsigned char *q = d->rgb + (size_t)j * 3;
        int b = q[0] + q[1] + q[2];
        if (d->mask[j] && b > best)
            best = b;
    }
    return 4 * br < 3 * best;
}

/* A card its cell's cut read as nothing (no rank or no suit), or as pips
 * in no card's layout (a cut across two cards): the grid's
 * phase comes from the silhouette's outline and seams, which a textured
 * table (the light speckles of a granite table run into the silhouette)
 * can pull 20-40 mm off a lone card, beyond the outline's 4 mm search.
 * The outline is then looked for within 31 mm (less than half a card: a
 * neighbour's seam a card away is out of reach); when both pairs of sides
 * are found a card apart and more than 5 mm away, the card is cut there
 * (and again round its print's centre, as in the first read) and the new
 * reading replaces the old when it reads a card, surer by 0.1.  Only for
 * cards read as nothing: the wider outline search, tried on every card,
 * took courts' frames and pip columns for sides. */
static void cd__read_wide(const vis_cards *c, const vis_image *top, const vis_view *vw,
                          double ang, double *tx, double *ty, cd__patch *p, cd__card *cr)
{
    double tx2 = *tx, ty2 = *ty, ca = cos(ang), sa = sin(ang), du, dv;
    cd__patch p2, p3;
    cd__card c2, c3;
    if (cd__refine(c, top, vw, &tx2, &ty2, ang, 31, NULL) != 3 || hypot(tx2 - *tx, ty2 - *ty) <= 5)
        return;
    memset(&p2, 0, sizeof p2);
    memset(&p3, 0, sizeof p3);
    if (cd__cut(c, top, vw, tx2, ty2, ang, &p2, NULL) != 0) {
        cd__patch_free(&p2);
        return;
    }
    cd__read_card(&p2, &c2);
    if (cd__print_centre(&p2, &c2, &du, &dv) && hypot(du, dv) > 0.8) {
        double tx3 = tx2 + du * ca - dv * sa, ty3 = ty2 + du * sa + dv * ca;
        if (cd__cut(c, top, vw, tx3, ty3, ang, &p3, NULL) == 0) {
            cd__read_card(&p3, &c3);
            if (c3.rank > 0 && c3.suit >= 0) {
                cd__patch_free(&p2);
                p2 = p3;
                memset(&p3, 0, sizeof p3);
                c2 = c3;
                tx2 = tx3;
                ty2 = ty3;
            }
        }
        cd__patch_free(&p3);
    }
    float q1 = cr->rank <= 0 || cr->suit < 0 ? 0 : fminf(cr->rank_conf, cr->suit_conf);
    float q2 = c2.rank <= 0 || c2.suit < 0 ? 0 : fminf(c2.rank_conf, c2.suit_conf);
    if (c2.face_down || q2 <= q1 + 0.1f) {
        cd__patch_free(&p2);
        return;
    }
    cd__patch_free(p);
    *p = p2;
    *cr = c2;
    *tx = tx2;
    *ty = ty2;
}

/* A reading to beat (see cd__read_cells): it is beaten by one with more
 * than nsure sure face-up cards, or (tie_ok, nsure > 0) as many with a
 * higher conf sum than csum. */
typedef struct cd__beat {
    int nsure;
    double csum;
    bool tie_ok; /* as many sure cards with a higher conf sum also beats */
} cd__beat;

/* A re-read takes the first reading's cards of this conf or more as read
 * (see cd__read_cells): at 0.5 a wrong reading of 0.64 on a grid turned
 * by glare (sim seed 805) was kept where a turn read it right. */
#define CD__KEEP_CONF 0.8f

/* cd__read_cells stopped: the reading could no longer beat its target */
#define CD__BEATEN 1

/* What cd__read_cells knows of its reading's cards beyond the reading:
 * their black votes, bvote and bn (the mean and the count: for the split
 * across the view), and which lie in no layout (bit i for card i). */
typedef struct cd__aside {
    double bvote[VIS_CARDS_MAX];
    int bn[VIS_CARDS_MAX];
    uint64_t no_layout; /* (VIS_CARDS_MAX <= 64) */
} cd__aside;

/* A reading of the same view on another grid: its cards read at
 * CD__KEEP_CONF or more, and face down, are taken as they are (see
 * cd__read_cells). */
typedef struct cd__prior {
    const vis_cards_reading *rd;
    const cd__aside *as;
} cd__prior;

/* Adds a face-up card read with conf and rank_conf to the bounds on a
 * reading (see cd__read_cells): a black card whose rank is sure may
 * become sure once the split across the view raises its suit's conf. */
static void cd__bound_add(float conf, float rank_conf, bool black, int *nsure, double *csum)
{
    *nsure += conf >= 0.5f || (black && rank_conf >= 0.5f);
    *csum += black ? fmax(conf, rank_conf) : conf;
}

/* A cell's six sums (see cd__read_cells), held in locals while a row
 * stays in the cell, written back to it. */
static inline void cd__sums_put(double *cell, double a0, double a1, double a2, double a3,
                                double a4, double a5)
{
    cell[0] = a0;
    cell[1] = a1;
    cell[2] = a2;
    cell[3] = a3;
    cell[4] = a4;
    cell[5] = a5;
}

/* Reads the cells of grid g over the view (its det d): the cards, their
 * duplicates, the grid's angle and phase into out, what else is known of
 * its cards into as (not prior's).  With beat, a reading that can no
 * longer beat it is stopped (returns CD__BEATEN, out is partial): every
 * cell still to read counted as a sure card of conf 1, and a black card
 * whose rank is sure counted sure (the split across the view may raise
 * its suit's conf), it would still fall short.  The re-reads on other
 * angles are most of a frame's time when they mend nothing. */
static int cd__read_cells(vis_cards *c, const vis_image *top, const vis_view *vw,
                          const cd__det *dp, cd__grid g, vis_cards_reading *out,
                          const cd__beat *beat, const cd__prior *prior, cd__aside *as,
                          base_err *err)
{
    cd__det d = *dp;
    int rc = 0;
    memset(as, 0, sizeof *as);
    c->nno_layout = 0;
    out->grid_angle_deg = g.ang * 180 / CD__PI;
    out->phase_x_mm = g.phu;
    out->phase_y_mm = g.phv;
    /* cell occupancy: the mask inside each cell, 6 mm in from its edges */
    double ca = cos(g.ang), sa = sin(g.ang);
    int kumin = 1 << 30, kumax = -(1 << 30), kvmin = 1 << 30, kvmax = -(1 << 30);
    /* (u, v of pixel (x, y) grow by ca, -sa per pixel along a row) */
    double ipu = 1 / g.pu, ipv = 1 / g.pv, step = 1 / d.ppm;
    for (int y = 0, xe[2]; y < d.h; y++)
        if (cd__row_ends(d.mask + y * d.w, d.w, &xe[0], &xe[1]))
            for (int k = 0; k < 2; k++) {
                const int x = xe[k];
                double tx = d.x0 + (x + 0.5) * step, ty = d.y0 + (y + 0.5) * step;
                int ku = cd__ifloor((tx * ca + ty * sa - g.phu) * ipu);
                int kv = cd__ifloor((-tx * sa + ty * ca - g.phv) * ipv);
                kumin = ku < kumin ? ku : kumin;
                kumax = ku > kumax ? ku : kumax;
                kvmin = kv < kvmin ? kv : kvmin;
                kvmax = kv > kvmax ? kv : kvmax;
            }
    int nu = kumax - kumin + 1, nv = kvmax - kvmin + 1;
    if (nu <= 0 || nv <= 0 || nu > 64 || nv > 64)
        return 0;
    double *acc = calloc((size_t)nu * nv * 6, sizeof *acc);
    /* (the black votes straight into as, cleared above) */
    double *bvote = as->bvote;
    int *bn = as->bn;
    if (!acc)
        return base_err_set(err, BASE_ENOMEM, "vis_cards_read: out of memory");
    const double inset = 6;
    /* a cell's print is only compared with this: counting stops there (the
     * dark spots' test is most of the loop's cost) */
    const double print_min = 40 * d.ppm * d.ppm;
    for (int y = 0; y < d.h; y++) {
        double ty = d.y0 + (y + 0.5) * step, tx0 = d.x0 + 0.5 * step;
        double u = tx0 * ca + ty * sa - g.phu, v = -tx0 * sa + ty * ca - g.phv;
        double du = ca * step, dv = -sa * step;
        /* (ku and kv are monotonic along the row: its pixels in the cells
         * are one run.  Up to 2 pixels before where it starts by the
         * straight line, u and v are only stepped, as the loop steps
         * them; the row ends with the run.) */
        int x = 0;
        {
            double xs = 0;
            if (fabs(du) > 1e-6)
                xs = fmax(xs, ((du > 0 ? kumin : kumax + 1) * g.pu - u) / du);
            if (fabs(dv) > 1e-6)
                xs = fmax(xs, ((dv > 0 ? kvmin : kvmax + 1) * g.pv - v) / dv);
            for (int xe = xs - 2 < d.w ? (int)(xs - 2) : d.w; x < xe; x++, u += du, v += dv)
                ;
        }
        /* (the sums of the cell the row is in held in locals, written
         * back when it leaves the cell: the same additions in the same
         * order, without each pixel's waiting for the last one's stores) */
        double *cell = NULL, a0 = 0, a1 = 0, a2 = 0, a3 = 0, a4 = 0, a5 = 0;
        for (bool run = false; x < d.w; x++, u += du, v += dv) {
            int ku = cd__ifloor(u * ipu), kv = cd__ifloor(v * ipv);
            if (ku < kumin || ku > kumax || kv < kvmin || kv > kvmax) {
                if (run)
                    break;
                continue;
            }
            run = true;
            double fu = u - ku * g.pu, fv = v - kv * g.pv;
            double *a = acc + 6 * ((kv - kvmin) * nu + (ku - kumin));
            if (a != cell) {
                if (cell)
                    cd__sums_put(cell, a0, a1, a2, a3, a4, a5);
                cell = a;
                a0 = a[0];
                a1 = a[1];
                a2 = a[2];
                a3 = a[3];
                a4 = a[4];
                a5 = a[5];
            }
            /* print: ink, or a dark spot in the silhouette (black pips on
             * a black mat are blurred to a grey brighter than the mat at
             * this resolution, and too small to leave holes) */
            if (a4 < print_min && fu > 2 && fu < g.pu - 2 && fv > 2 && fv < g.pv - 2)
                a4 += d.ink[y * d.w + x] || cd__dark_spot(&d, x, y);
            if (fu > inset && fu < g.pu - inset && fv > inset && fv < g.pv - inset) {
                a0 += 1;
                a1 += d.mask[y * d.w + x];
                /* of another hue than the mat, or darker: a back */
                a5 += d.ink[y * d.w + x];
            }
            if (d.mask[y * d.w + x] && fu > 1 && fu < g.pu - 1 && fv > 1 && fv < g.pv - 1) {
                a2 += fu;
                a3 += fv;
            }
        }
        if (cell)
            cd__sums_put(cell, a0, a1, a2, a3, a4, a5);
    }
    /* the cells still to read, and the bounds on the reading (see beat) */
    int rem = 0, ns_ub = 0;
    double cs_ub = 0;
    uint64_t prior_used = 0; /* (VIS_CARDS_MAX <= 64) */
    for (int i = 0; beat && i < nu * nv; i++) {
        const double *a = acc + 6 * i;
        bool open = d.pale && a[1] < 0.6 * a[0];
        rem += !(a[0] < 0.5 * (g.pu - 2 * inset) * (g.pv - 2 * inset) * d.ppm * d.ppm ||
                 (a[1] < 0.6 * a[0] && !open) || a[4] < print_min);
    }
    for (int kv = kvmin; kv <= kvmax && rc == 0; kv++)
        for (int ku = kumin; ku <= kumax && rc == 0; ku++) {
            double *a = acc + 6 * ((kv - kvmin) * nu + (ku - kumin));
            if (beat) {
                int ns_max = ns_ub + rem;
                double cs_max = cs_ub + rem;
                if (ns_max < beat->nsure ||
                    (ns_max == beat->nsure &&
                     (!beat->tie_ok || beat->nsure == 0 || cs_max < beat->csum - 1e-6))) {
                    rc = CD__BEATEN;
                    break;
                }
            }
            /* a card is filled and has print (or a coloured back) on it: a
             * bright patch of glare on a pale mat has none */
            /* On a pale mat a card is found by its outline alone; where a
             * side of it fades out (glare, a shadowless light), the
             * silhouette stays open and unfilled.  Such a cell with print
             * on it is read all the same, and kept only when it reads as
             * a sure face-up card near the cell's centre whose print is
             * centred in the cut (half a card, the rest washed out, reads
             * as a sure card of fewer pips). */
            bool open = d.pale && a[1] < 0.6 * a[0];
            if (a[0] < 0.5 * (g.pu - 2 * inset) * (g.pv - 2 * inset) * d.ppm * d.ppm ||
                (a[1] < 0.6 * a[0] && !open) || a[4] < print_min)
                continue;
            rem--;
            if (out->ncards >= VIS_CARDS_MAX)
                continue;
            /* the card's centre: the cell centre, nudged toward the
             * silhouette's centroid in the cell */
            double cu = 0.5 * g.pu, cv = 0.5 * g.pv;
            double cnt = 0;
            /* a[2], a[3] are sums over mask pixels; their count is close
             * to the cell's mask pixels */
            cnt = a[1] * (g.pu - 2) * (g.pv - 2) / ((g.pu - 2 * inset) * (g.pv - 2 * inset));
            if (cnt > 0) {
                double mu = a[2] / cnt, mv = a[3] / cnt;
                if (fabs(mu - cu) < 4)
                    cu = mu;
                if (fabs(mv - cv) < 4)
                    cv = mv;
            }
            double u = g.phu + ku * g.pu + cu, v = g.phv + kv * g.pv + cv;
            double tx = u * ca - v * sa, ty = u * sa + v * ca;
            /* A card the other grid read at CD__KEEP_CONF or more (or
             * face down) within 10 mm of this cell's centre (cards lie
             * 63 mm apart; a grid turned by a few degrees moves its
             * cells' centres by some millimetres) is taken as it was: the
             * re-reads are for the unsure cards, and reading the sure
             * ones again on a turned cut costs as much. */
            int pk = -1;
            for (int i = 0; prior && i < prior->rd->ncards && pk < 0; i++) {
                const vis_card *q = &prior->rd->cards[i];
                bool sure = q->face_down || (q->rank > 0 && q->suit >= 0 && q->conf >= CD__KEEP_CONF);
                if (sure && !(prior_used >> i & 1) && hypot(q->x_mm - tx, q->y_mm - ty) < 10)
                    pk = i;
            }
            if (pk >= 0) {
                vis_card *o = &out->cards[out->ncards++];
                *o = prior->rd->cards[pk];
                o->gx = ku;
                o->gy = kv;
                o->duplicate = false;
                bvote[out->ncards - 1] = prior->as->bvote[pk];
                bn[out->ncards - 1] = prior->as->bn[pk];
                prior_used |= (uint64_t)1 << pk;
                if (!o->face_down)
                    cd__bound_add(o->conf, o->rank_conf,
                                  prior->as->bn[pk] >= 2 && (o->suit == CD__S || o->suit == CD__C),
                                  &ns_ub, &cs_ub);
                continue;
            }
            cd__patch p;
            cd__card cr;
            memset(&p, 0, sizeof p);
            double outline = 0;
            cd__refine(c, top, vw, &tx, &ty, g.ang, 4, &outline);
            rc = cd__cut(c, top, vw, tx, ty, g.ang, &p, err);
            if (rc == 0) {
                double du, dv;
                cd__read_card(&p, &cr);
                /* (a reading of conf 0.5 or more of a card at most 2 mm off
                 * is kept: a second read costs as much as the first, and on
                 * both frame sets the re-read changed none of those) */
                float c1 = cr.rank_conf < cr.suit_conf ? cr.rank_conf : cr.suit_conf;
                if (cd__print_centre(&p, &cr, &du, &dv) && hypot(du, dv) > 0.8 &&
                    (hypot(du, dv) > 2 || c1 < 0.5f)) {
                    /* cut again round the print's centre and read that,
                     * unless it reads nothing where the first cut read
                     * a card (the print's centre was a wrong guess) */
                    cd__card first = cr;
                    double tx1 = tx, ty1 = ty;
                    tx += du * ca - dv * sa;
                    ty += du * sa + dv * ca;
                    cd__patch_free(&p);
                    rc = cd__cut(c, top, vw, tx, ty, g.ang, &p, err);
                    if (rc == 0)
                        cd__read_card(&p, &cr);
                    if (rc == 0 && !cr.face_down && (cr.rank <= 0 || cr.suit < 0) &&
                        first.rank > 0 && first.suit >= 0) {
                        cr = first;
                        tx = tx1;
                        ty = ty1;
                    }
                }
                /* a card read as nothing: its cell may lie far off it */
                if (rc == 0 && !cr.face_down && (cr.rank <= 0 || cr.suit < 0 || cr.no_layout))
                    cd__read_wide(c, top, vw, g.ang, &tx, &ty, &p, &cr);
                /* a pip card still cut off the card after that: its count
                 * is of the pips the cut happens to hold */
                if (rc == 0 && !cr.face_down && !cr.court && cr.off_card)
                    cr.rank = cr.rank2 = 0;
                if (rc == 0 && !cr.face_down && cr.no_layout)
                    c->nno_layout++;
                /* a court read as no letter on every cut: its headgear or
                 * its glyph's pieces together, barely sure (left out, it
                 * would look taken away) */
                if (rc == 0 && cr.court && cr.rank <= 0 && cr.rank_guess > 0) {
                    cr.rank = cr.rank_guess;
                    cr.rank_conf = 0.1f;
                }
            }
            /* A face-down card shows its back: of another hue than the
             * mat (or darker) over most of the cell, at a pixel a
             * millimetre.  A cell the silhouette filled with no face and
             * no such back is the table itself (the light speckles of a
             * granite table run together by the closing, a pale patch):
             * it is not reported.  Nor is one without an outline, a pair
             * of sides a card apart with steps well above the rest: a
             * patch of light on wood is of another hue than the table
             * over whole cells, but fades out with no edge. */
            if (rc == 0 && cr.face_down && (a[5] < CD__FD_COVER * a[0] || outline < CD__FD_OUTLINE)) {
                cd__patch_free(&p);
                continue;
            }
            double pdu = 0, pdv = 0;
            if (rc == 0 && open &&
                (cr.face_down || cr.rank <= 0 || cr.suit < 0 ||
                 fmin(cr.rank_conf, cr.suit_conf) < 0.5f ||
                 hypot(tx - (u * ca - v * sa), ty - (u * sa + v * ca)) > 10 ||
                 !cd__print_centre(&p, &cr, &pdu, &pdv) || hypot(pdu, pdv) > 2.5)) {
                cd__patch_free(&p);
                continue;
            }
            if (rc == 0) {
                vis_card *o = &out->cards[out->ncards++];
                memset(o, 0, sizeof *o);
                o->gx = ku;
                o->gy = kv;
                o->x_mm = tx;
                o->y_mm = ty;
                o->face_down = cr.face_down;
                o->rank = cr.face_down ? 0 : cr.rank;
                o->suit = cr.face_down ? -1 : cr.suit;
                o->rank2 = cr.face_down || cr.rank2 <= 0 ? -1 : cr.rank2;
                bvote[out->ncards - 1] = cr.black_vote;
                bn[out->ncards - 1] = cr.face_down ? 0 : cr.black_n;
                o->suit2 = cr.face_down ? -1 : cr.suit2;
                o->rank_conf = cr.rank_conf;
                o->suit_conf = cr.suit_conf;
                o->pips = cr.pips;
                o->court = cr.court;
                if (!cr.face_down && cr.no_layout)
                    as->no_layout |= (uint64_t)1 << (out->ncards - 1);
                o->conf = cr.rank_conf < cr.suit_conf ? cr.rank_conf : cr.suit_conf;
                if (!cr.face_down && (o->rank == 0 || o->suit < 0))
                    o->conf = 0;
                if (!o->face_down && o->rank > 0 && o->suit >= 0)
                    cd__bound_add(o->conf, o->rank_conf,
                                  cr.black_n >= 2 && (o->suit == CD__S || o->suit == CD__C),
                                  &ns_ub, &cs_ub);
            }
            cd__patch_free(&p);
        }
    free(acc);
    if (rc == CD__BEATEN)
        return rc;
    if (rc == 0)
        cd__black_split(out, bvote, bn);
    if (rc != 0)
        return rc;
    cd__one_deck(out);
    /* duplicates */
    for (int i = 0; i < out->ncards; i++)
        for (int j = i + 1; j < out->ncards; j++) {
            vis_card *a = &out->cards[i], *b = &out->cards[j];
            if (!a->face_down && !b->face_down && a->rank > 0 && a->suit >= 0 &&
                a->rank == b->rank && a->suit == b->suit) {
                a->duplicate = b->duplicate = true;
            }
        }
    for (int i = 0; i < out->ncards; i++)
        out->nduplicates += out->cards[i].duplicate;
    return 0;
}

/* Face-up cards that a better grid may read surely: those read as a
 * rank, and those whose print lay in no layout (a card the grid cut).  A
 * face-up cell read as nothing at all, in a layout of nothing, is not
 * counted: a lamp's pool on a speckled mat makes a dozen of them (sim seed
 * 1400010), and the re-reads on other angles, made until every counted
 * card reads surely, ran to their end for them at 100-140 ms a frame. */
static int cd__nup(const vis_cards_reading *out, const cd__aside *as)
{
    int n = 0;
    for (int i = 0; i < out->ncards; i++)
        n += !out->cards[i].face_down && (out->cards[i].rank > 0 || (as->no_layout >> i & 1));
    return n;
}

/* The face-up cards' confs summed. */
static double cd__confsum(const vis_cards_reading *out)
{
    double t = 0;
    for (int i = 0; i < out->ncards; i++)
        t += out->cards[i].face_down ? 0 : out->cards[i].conf;
    return t;
}

/* Face-up cards read surely (conf 0.5 or more). */
static int cd__nsure(const vis_cards_reading *out)
{
    int n = 0;
    for (int i = 0; i < out->ncards; i++)
        n += !out->cards[i].face_down && out->cards[i].rank > 0 && out->cards[i].suit >= 0 &&
             out->cards[i].conf >= 0.5f;
    return n;
}

static int cd__read_view(vis_cards *c, const vis_image *top, const vis_view *vw,
                         vis_cards_reading *out, base_err *err)
{
    cd__det d;
    cd__grid g;
    int rc;
    if (!c || !out)
        return base_err_set(err, BASE_EINVAL, "vis_cards_read: NULL handle or output");
    if ((rc = cd__check(top, vw, "vis_cards_read", err)) != 0)
        return rc;
    memset(out, 0, sizeof *out);
    /* (a hand the survey saw over the cards is this view's) */
    out->hand = c->survey_hand;
    c->survey_hand = false;
    out->pitch_x_mm = c->cw;
    out->pitch_y_mm = c->ch;
    if ((rc = cd__det_make(top, vw, &d, err)) != 0)
        return rc;
    cd__mask(c, &d, vw, false);
    cd__glare_apply(c, &d);
    cd__open(&d, true);
    /* (only the read fits a grid, so only it asks whose outline it is) */
    d.soft = cd__soft(&d);
    double box[4];
    if (!cd__some_cards(c, &d, box)) {
        cd__det_free(&d);
        return 0;
    }
    cd__grid_fit(c, &d, &g, NAN);
    if (!g.ok) {
        cd__det_free(&d);
        return 0;
    }
    /* what is known beside the reading in out, and beside a re-read */
    cd__aside as, as2;
    rc = cd__read_cells(c, top, vw, &d, g, out, NULL, NULL, &as, err);
    /* A silhouette may hold more than cards (glare beside them on a pale
     * mat, run together with them) and its outline turn the grid off the
     * cards' own axes by a few degrees: the cuts then straddle two cards
     * and read as none (see cd__pip_layout).  When a face-up card reads
     * unsure on a grid turned more than a degree off the last sure
     * reading's, the cells are read again on that reading's angle (its
     * short side too); the reading with more sure cards is kept. */
    if (rc == 0 && c->angle_sure && !out->hand && cd__nsure(out) < cd__nup(out, &as) &&
        fabs(remainder(g.ang - c->last_angle, CD__PI / 2)) > 1.0 * CD__PI / 180) {
        vis_cards_reading *o2 = malloc(sizeof *o2);
        cd__grid g2;
        if (o2) {
            memset(o2, 0, sizeof *o2);
            o2->hand = out->hand;
            o2->pitch_x_mm = out->pitch_x_mm;
            o2->pitch_y_mm = out->pitch_y_mm;
            cd__grid_fit(c, &d, &g2, c->last_angle);
            cd__beat bt = {cd__nsure(out), 0, false};
            cd__prior pr = {out, &as};
            if (g2.ok &&
                (rc = cd__read_cells(c, top, vw, &d, g2, o2, &bt, &pr, &as2, err)) == 0 &&
                cd__nsure(o2) > cd__nsure(out)) {
                memcpy(out, o2, sizeof *out);
                as = as2;
                g = g2;
            }
            if (rc == CD__BEATEN)
                rc = 0;
            free(o2);
        }
    }
    /* Cards in no layout and no sure angle to turn to: the grid is read
     * again turned by 2, 4, 6 degrees either way (the outline of glare
     * run into the cards' silhouette turns it by so much). */
    if (rc == 0 && !out->hand && c->nno_layout > 0) {
        vis_cards_reading *o2 = malloc(sizeof *o2);
        cd__grid g2, gb = g;
        int best = cd__nsure(out);
        if (o2) {
            /* both ways at each turn, nearest first, until every
             * face-up card worth it (cd__nup) reads surely; of two
             * readings with as many sure cards, the surer in all (a grid
             * turned the wrong way cuts pips off and reads fewer, less
             * surely) */
            double bsum = cd__confsum(out);
            for (int i = 0; i < 6 && rc == 0; i++) {
                int k = (i / 2 + 1) * (i % 2 ? -1 : 1);
                if (i % 2 == 0 && best >= cd__nup(out, &as))
                    break;
                memset(o2, 0, sizeof *o2);
                o2->hand = out->hand;
                o2->pitch_x_mm = out->pitch_x_mm;
                o2->pitch_y_mm = out->pitch_y_mm;
                cd__grid_fit(c, &d, &g2, g.ang + k * 2.0 * CD__PI / 180);
                cd__beat bt = {best, bsum, true};
                cd__prior pr = {out, &as};
                if (g2.ok &&
                    (rc = cd__read_cells(c, top, vw, &d, g2, o2, &bt, &pr, &as2, err)) == 0 &&
                    (cd__nsure(o2) > best ||
                     (cd__nsure(o2) == best && best > 0 && cd__confsum(o2) > bsum))) {
                    best = cd__nsure(o2);
                    bsum = cd__confsum(o2);
                    memcpy(out, o2, sizeof *out);
                    as = as2;
                    gb = g2;
                }
                if (rc == CD__BEATEN)
                    rc = 0;
            }
            g = gb;
            free(o2);
        }
    }
    cd__det_free(&d);
    if (rc != 0)
        return rc;
    /* The grid's axes are kept for the next reading from a reading to
     * trust: no hand over the cards, and a face-up card read surely.  A
     * hand, or a view of junk (a blank sheet, glare), may turn the grid by
     * 90 degrees; kept, it would turn every later grid by 180 (the next
     * fit takes the nearest of the four ways to it).  Until a reading is
     * sure, one without a hand is kept all the same (on a pale mat the
     * first cards may read unsure, and the fit of the next frame is the
     * steadier for the last one's way round). */
    bool sure = cd__nsure(out) > 0;
    if (!out->hand && (sure || !c->angle_sure)) {
        c->have_angle = true;
        c->angle_sure = sure;
        c->last_angle = g.ang;
    }
    return 0;
}

/* ---- memory: the same card in frame after frame ----
 *
 * The cards of a table stay where they are laid, and the camera sees each
 * of them in frame after frame: where one frame's close call goes wrong
 * (a spade's and a club's index symbols blurred alike, a crown's gold
 * under the sensor's noise), other frames read the same card right, and
 * more surely.  Each card read is remembered by where its centre lies on
 * the table, with each rank's and each suit's weight of evidence: the
 * log-odds of the confs the part was read with (a part read at 0.5 or
 * less is no evidence for it), the older ones fading by CD__MEM_FADE a
 * frame.  A part (the rank or the suit) read less surely than
 * CD__MEM_SURE takes another value when the remembered evidence for it is
 * at least CD__MEM_MIN (a read at 0.69 or more, or several weaker ones)
 * and beats the evidence for the frame's own call plus the frame's vote,
 * and no other card in the view reads what it would become (one deck);
 * its conf is then no more than the frame's doubt in its own call
 * (1 - conf) nor the evidence's odds, and the frame's call is the
 * runner-up.  A part the frame could not read at all is taken from the
 * memory alike.  Only one part moves: a card read with both its rank and
 * its suit other than the remembered ones is another card (a Cube was
 * taken and its gap filled) and starts afresh, as does a face-down one.
 * What the frame itself read is what is remembered (the memory's choice
 * would vote for itself), and nothing while a hand is over the cards; a
 * remembered card the frame does not read (with no hand) is forgotten.
 * The same scheme as the Qwirkle reader's (qw__remember). */
#define CD__MEM_FADE 0.8
#define CD__MEM_SURE 0.9
#define CD__MEM_MIN 0.8

/* The value in lo..hi-1 whose evidence w beats own's plus its vote v by
 * the memory's rule, the strongest; -1 when none (own < 0: a part the
 * frame did not read). */
static int cd__recall(const double *w, int lo, int hi, int own, double v)
{
    int best = -1;
    for (int i = lo; i < hi; i++)
        if (i != own && w[i] >= CD__MEM_MIN && (own < 0 || w[i] > w[own] + v) &&
            (best < 0 || w[i] > w[best]))
            best = i;
    return best;
}

/* Card k of the frame's reading out, against and into the memory. */
static void cd__remember(vis_cards *c, vis_cards_reading *out, vis_card *k)
{
    double wr[14], ws[4];
    int at = vis__recall_near(c->mem, c->nmem, sizeof *c->mem, k->x_mm, k->y_mm, 0.3 * c->cw);
    cd__mem *m = at >= 0 ? &c->mem[at] : NULL;
    if (!m) {
        if (c->nmem >= VIS_CARDS_MAX)
            return;
        m = &c->mem[c->nmem++];
        memset(m, 0, sizeof *m);
    }
    m->at.x = k->x_mm;
    m->at.y = k->y_mm;
    m->at.seen = true;
    int br = 1, bs = 0;
    for (int r = 0; r < 14; r++)
        wr[r] = CD__MEM_FADE * m->wr[r];
    for (int s = 0; s < 4; s++)
        ws[s] = CD__MEM_FADE * m->ws[s];
    for (int r = 1; r < 14; r++)
        br = wr[r] > wr[br] ? r : br;
    for (int s = 0; s < 4; s++)
        bs = ws[s] > ws[bs] ? s : bs;
    if (k->face_down || (k->rank > 0 && k->suit >= 0 && wr[br] > 0 && br != k->rank &&
                         ws[bs] > 0 && bs != k->suit)) {
        /* another card: afresh */
        memset(wr, 0, sizeof wr);
        memset(ws, 0, sizeof ws);
    }
    const int rank = k->rank, suit = k->suit;
    const double vr = rank > 0 ? vis__vote(k->rank_conf) : 0;
    const double vs = suit >= 0 ? vis__vote(k->suit_conf) : 0;
    if (!out->hand) {
        for (int r = 0; r < 14; r++)
            m->wr[r] = (float)wr[r];
        for (int s = 0; s < 4; s++)
            m->ws[s] = (float)ws[s];
        if (rank > 0)
            m->wr[rank] += (float)vr;
        if (suit >= 0)
            m->ws[suit] += (float)vs;
    }
    if (k->face_down || (rank <= 0 && suit < 0))
        return;
    int nr = rank > 0 && k->rank_conf >= CD__MEM_SURE ? -1 : cd__recall(wr, 1, 14, rank, vr);
    int ns = suit >= 0 && k->suit_conf >= CD__MEM_SURE ? -1 : cd__recall(ws, 0, 4, suit, vs);
    if (nr > 0 && suit >= 0 && !cd__reads(out, nr, suit)) {
        k->rank_conf = (float)vis__recall_conf(rank > 0, k->rank_conf,
                                               wr[nr] - (rank > 0 ? wr[rank] + vr : 0));
        k->rank2 = rank > 0 ? rank : k->rank2;
        k->rank = nr;
    } else if (ns >= 0 && k->rank > 0 && !cd__reads(out, k->rank, ns)) {
        k->suit_conf = (float)vis__recall_conf(suit >= 0, k->suit_conf,
                                               ws[ns] - (suit >= 0 ? ws[suit] + vs : 0));
        k->suit2 = suit >= 0 ? suit : k->suit2;
        k->suit = ns;
    } else {
        return;
    }
    k->conf = k->rank_conf < k->suit_conf ? k->rank_conf : k->suit_conf;
}

int vis_cards_read(vis_cards *c, const vis_image *top, const vis_view *vw, vis_cards_reading *out,
                   base_err *err)
{
    int rc = cd__read_view(c, top, vw, out, err);
    if (rc != 0)
        return rc;
    /* Cells are numbered in the mat's frame (FORMATS.md 1 and 4): the
     * grid's x axis runs the way of the mat's x (toward marker 1), within
     * a quarter turn, not against it.  A card's outline is the same turned
     * half round, so the fit may take either way; the one against is
     * turned here, cell k becoming -k - 1 with the corner's phase negated
     * (the fit keeps its own way for the next frame). */
    if (fabs(remainder(out->grid_angle_deg, 360.0)) > 90.0) {
        for (int i = 0; i < out->ncards; i++) {
            out->cards[i].gx = -out->cards[i].gx - 1;
            out->cards[i].gy = -out->cards[i].gy - 1;
        }
        out->grid_angle_deg = remainder(out->grid_angle_deg + 180.0, 360.0);
        out->phase_x_mm = -out->phase_x_mm;
        out->phase_y_mm = -out->phase_y_mm;
    }
    for (int i = 0; i < out->ncards; i++)
        cd__remember(c, out, &out->cards[i]);
    c->nmem = vis__forget(c->mem, c->nmem, sizeof *c->mem, out->hand);
    return 0;
}

/* Whether pixel p (B G R) is the mat m (its model's colour there, as
 * bright as p) under a sheen: a light's reflection on a glossy mat
 * replaces part of its colour with white (p = a m + b, a well below 1,
 * b > 0).  A lamp's reflection spread over a corner of a vinyl mat read
 * as another hue, and a still table as a hand for a whole match (sim
 * seed 801: a = 0.5).  Skin on a green or blue mat is not on that line
 * (red well above it), nor a dark sleeve; skin on a wooden mat is, but
 * as the wood's colour almost whole (a near 1). */
static bool cd__mat_lit(const unsigned char *p, const double *m)
{
    double a, b;
    return vis__light_fit(p, m, -1e9, &a, &b) < 12 && a >= 0.35 && a <= 0.85 && b > 0;
}

/* A hand or arm over the table: a region of the silhouettes that crosses
 * the play area's edge (players reach in from outside) and holds more
 * than a card and a half of pixels that are not card stock (skin, a
 * sleeve: another hue than the mat or darker, and not bright near-neutral
 * paper) nor the mat lit or shaded (cd__mat_lit).  Cards at the edge
 * are mostly paper; one face-down card's back is less than that area. */
static void cd__hand(const vis_cards *c, cd__det *d, const vis_view *vw, vis_survey *out)
{
    int w = d->w, h = d->h, nr = 0;
    int *stack = malloc(sizeof *stack * (2 * (size_t)w * h + 4));
    cd__run *runs = malloc(sizeof *runs * ((size_t)h * (w + 1) / 2 + 1));
    unsigned char *seen = calloc((size_t)w * h, 1);
    double px2 = 1 / (d->ppm * d->ppm), min_mm2 = 1.5 * c->cw * c->ch;
    if (!stack || !runs || !seen) {
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
        int nforeign = 0;
        bool edge = false;
        nr = 0;
        cd__region(d->mask, 1, w, h, i0, seen, 1, stack, runs, &nr);
        for (int r = 0; r < nr; r++) {
            int y = runs[r].y;
            double ty = d->ty[y];
            for (int x = runs[r].x0; x <= runs[r].x1; x++) {
                int k = y * w + x;
                double tx = d->tx[x];
                if (tx < 2 || ty < 2 || tx > vw->mat_w - 2 || ty > vw->mat_h - 2)
                    edge = true;
                if (d->ink[k] && d->ex) {
                    /* paper is "ink" on a coloured mat (another hue): bright
                     * and near-neutral pixels are card stock, not foreign */
                    const unsigned char *p = d->rgb + (size_t)k * 3;
                    double br = p[0] + p[1] + p[2], inv = 1 / (br > 30 ? br : 30);
                    double neu = fabs(p[0] * inv - 1.0 / 3) + fabs(p[1] * inv - 1.0 / 3) +
                                 fabs(p[2] * inv - 1.0 / 3);
                    if (d->ex[k] > d->tb && neu * 765 < 70)
                        continue;
                    /* the mat's colour where its model is that bright
                     * (the model's brightness follows a broad sheen) */
                    double model = br - d->ex[k], sc = model / c->mat.c0;
                    double m[3] = {c->mat.rgb[0] * sc, c->mat.rgb[1] * sc, c->mat.rgb[2] * sc};
                    /* (on the line from it to white the mat is lit,
                     * however much brighter than its model: a lamp's
                     * glare on wood, a third brighter, was counted by its
                     * brightness alone and read as a hand, sim seed
                     * 1100011; skin is off the line, or on wood near its
                     * end, a = 1: see cd__mat_lit.  Much darker than the
                     * model it is a hand's shadow or a dark sleeve, and
                     * counts, on the line or not: sim seed 930501.) */
                    nforeign += br < 0.85 * model || !cd__mat_lit(p, m);
                }
            }
        }
        if (!edge)
            continue;
        if (nforeign * px2 > out->hand_mm2)
            out->hand_mm2 = nforeign * px2;
        if (nforeign * px2 > min_mm2)
            out->hand = true;
    }
    free(stack);
    free(runs);
    free(seen);
}

int vis_cards_survey(vis_cards *c, const vis_image *top, const vis_view *vw, vis_survey *out,
                     base_err *err)
{
    cd__det d;
    int rc;
    if (!c || !out)
        return base_err_set(err, BASE_EINVAL, "vis_cards_survey: NULL handle or output");
    if ((rc = cd__check(top, vw, "vis_cards_survey", err)) != 0)
        return rc;
    memset(out, 0, sizeof *out);
    if ((rc = cd__det_make(top, vw, &d, err)) != 0)
        return rc;
    cd__mask(c, &d, vw, true);
    /* (the box of the cards needs no filled holes) */
    cd__open(&d, false);
    double box[4];
    bool some = cd__some_cards(c, &d, box);
    cd__hand(c, &d, vw, out);
    c->survey_hand = out->hand;
    free(c->glare);
    c->glare = d.glared;
    d.glared = NULL;
    c->glare_w = d.w;
    c->glare_h = d.h;
    c->glare_x0 = d.x0;
    c->glare_y0 = d.y0;
    c->glare_ppm = d.ppm;
    if (some) {
        out->ncandidates = (int)(d.nmask / (c->cw * c->ch * d.ppm * d.ppm) + 0.5);
        if (out->ncandidates < 1)
            out->ncandidates = 1;
        out->x0_mm = box[0];
        out->y0_mm = box[1];
        out->x1_mm = box[2];
        out->y1_mm = box[3];
    }
    cd__det_free(&d);
    return 0;
}
