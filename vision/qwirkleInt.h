/* vision/qwirkleInt.h: what the files of the Qwirkle reader share (SQLite's
 * whereInt.h way): the tuning values, the blob and face records, the
 * reader's handle, and the stages' internal functions.
 *   qwirkle.c          life cycle; the reading, stage after stage; the
 *                      learned stage's patches; memory; the line prior
 *   qwirkle_find.c     pixels, blobs, table colour, side faces, survey
 *   qwirkle_grid.c     the grid the cubes lie on
 *   qwirkle_symbols.c  drawn symbols: the blur, table-coloured symbols
 *   qwirkle_enrol.c    enrolling a set from its six photos
 * Nothing here is part of the vision library's interface (qwirkle.h). */
#ifndef TABLECAM_VISION_QWIRKLE_INT_H
#define TABLECAM_VISION_QWIRKLE_INT_H

#include "qwirkle.h"
#include "classify.h"
#include "light.h"
#include "patch.h"
#include "pieceset.h"
#include "recall.h"

#include <stdbool.h>

#define QW__PI 3.14159265358979323846
#define QW__TRES 4.0   /* template pixels a millimetre */
#define QW__THALF 9.0  /* templates cover +-9 mm */
#define QW__TSIDE ((int)(2 * QW__THALF * QW__TRES))
#define QW__MAXBLOBS 2048
#define QW__PATCHMAX 2560 /* pixels of one face patch (3 px/mm, radius 0.42 cube: 2000) */
#define QW__NROT 5
#define QW__DARK_MIN 28 /* the body threshold's floor (a black table) */
#define QW__LISTS 3 /* q->stack holds this many pixels a view pixel: nested pixel lists */
#define QW__NSIG 9
#define QW__TABSYM 32      /* table-coloured (and tinted) blobs kept for vis__qw_table_symbols */
#define QW__TABSYM_NCC 0.93 /* the printed shape's fit that makes one a symbol */
#define QW__GRID_AREA 0.2   /* a small symbol's blob, cube^2: the most a grid pair weighs */
/* The square cut round each face for the classifier, mm: the 19.5 mm face
 * and a rim of what is beside it, as the model was trained
 * (models/qwirkle_patches --side). */
#define QW__PATCH_MM 24.0
/* The line rule (vis__qw_lines) turns cubes read below QW__LINE_CONF only
 * (a sure reading is the referee's to judge), to a runner-up within
 * QW__LINE_GAP of the best probability: the nearest ties, what the
 * classifier could not tell apart, not a guess. */
#define QW__LINE_CONF 0.9
#define QW__LINE_GAP 0.03
/* Enrolment photos (vis_qwirkle_enrol): cubes in one row lie within a
 * cube's height of each other even when the row runs a little aslant,
 * so a gap of QW__ENROL_ROW_GAP cube sides between successive heights
 * starts a row; QW__ENROL_DISAGREE cubes that the classifier reads surely
 * (QW__LINE_CONF) as another colour than their place says mean the
 * cubes were not laid out in colour order. */
#define QW__ENROL_ROW_GAP 0.75
#define QW__ENROL_DISAGREE 3
/* Blur of the symbols as seen, mm: from a sharp close camera to a soft far
 * one; each frame picks the one its symbols match best. */
extern const double vis__qw_sigmas[QW__NSIG];

typedef struct vis__qw_blob {
    int n;                       /* pixels */
    double sx, sy, sxx, syy, sxy; /* moments, table mm */
    double sw, sb, sg, sr;       /* brightness-weighted colour sums */
    double x, y;                 /* centroid, table mm */
    double u, v;                 /* centroid in grid axes */
    int ku, kv;                  /* cell */
    double res;                  /* distance from the cell centre, mm */
    float darkfrac;              /* body around it */
    bool cand, fake;
    float ptop; /* how likely a top, not a side face, by the side test */
} vis__qw_blob;

/* Where a template is laid on a patch: turned by a, moved by (du, dv) mm. */
typedef struct vis__qw_pose {
    double a, du, dv;
} vis__qw_pose;

/* The brightness around a symbol: offsets (mm, table axes) and values. */
typedef struct vis__qw_patch {
    int n;
    float u[QW__PATCHMAX], v[QW__PATCHMAX], val[QW__PATCHMAX];
    double s, ss;
} vis__qw_patch;

/* One cube as read over the last frames (see vis__qw_remember): where its
 * face lies on the table, its colour, and each shape's weight of
 * evidence. */
#define QW__NMEM 256
typedef struct vis__qw_mem {
    vis__place at; /* first: see vision/recall.h */
    int color;
    float w[6];
} vis__qw_mem;

struct vis_qwirkle {
    double cube_mm;
    vis_qwirkle_profile prof;
    bool learnt; /* prof was learnt (calibrate colors): it names the colours */
    bool have_angle;
    double last_angle; /* radians, in (-pi/4, pi/4] relative to last */
    /* per-pixel scratch */
    unsigned char *val, *cls;
    float *rgb;
    int *lab;
    int *stack;
    size_t cap;
    vis__qw_blob *blobs;
    /* symbol templates, QW__NSIG blurs x 6 shapes */
    float *tmpl;
    /* the same blurred more along one direction (a tilted camera's
     * foreshortening, see vis__qw_aniso), made for the last (ratio, direction)
     * asked for; cur: the set this reading uses, with its stretch */
    float *atmpl;
    int akey;
    const float *cur;
    double aratio, adir;
    vis__qw_patch *patch;
    /* the cubes read in the last frames (see vis__qw_remember) */
    int nmem;
    vis__qw_mem mem[QW__NMEM];
    bool hand; /* the last survey saw a hand over the play area */
    double last_blur; /* the blur the last reading fitted, mm (0: none yet) */
    /* the learned stage: the model, and one frame's probabilities (shape
     * then colour, 12 a cube) */
    vis_classifier *model;
    float probs[VIS_MAX_PIECES * 12];
    /* an enrolled set the faces are also judged by (borrowed), and
     * whether the features are wanted without one (enrolling); feats:
     * one frame's features, patch by patch; pfeat and praw: the last
     * reading's, piece by piece, with the classifier's own
     * probabilities */
    const vis_pieceset *pieces;
    bool want_feats;
    float *feats, *pfeat;
    float praw[VIS_MAX_PIECES * 12];
};



/* QW__TINT: above the body threshold with some colour, not a symbol's
 * (see vis__qw_classify); the value 8 is the survey's foreign mark. */
enum { QW__OUT = 0, QW__TABLE = 1, QW__DARK = 2, QW__SYM = 4, QW__WEAK = 16, QW__TINT = 32 };

/* Pixels of candidate components, and what every blob must pass. */
typedef struct vis__qw_seg {
    const vis_view *vw;
    int w, h;
    double px, x0, y0, amin, amax;
    int fr, dark, nb, nextlab;
    float min_dark;
    double tval; /* the table's brightness (brightest channel; 0: unknown) */
    size_t cap; /* of q->stack, the pixel lists */
} vis__qw_seg;

/* qwirkle.c */
int vis__qw_reserve(vis_qwirkle *q, int w, int h);
/* The memory of the cubes read over the last frames: pc, read this frame
 * with the six shape probabilities all, may take the remembered shape. */
void vis__qw_remember(vis_qwirkle *q, vis_piece *pc, const double all[6]);
/* The line rule on the near ties of out's pieces; score[i]: piece i's six
 * shape probabilities. */
void vis__qw_lines(vis_reading *out, const double (*score)[6]);

/* qwirkle_symbols.c */

bool vis__qw_in_star(double u, double v, int n, double ro, double ri);

bool vis__qw_in_shape(int shape, double u, double v);

void vis__qw_blur1d(float *buf, int side, double sigma_px, float *tmp);

int vis__qw_templates(vis_qwirkle *q);

int vis__qw_aniso(vis_qwirkle *q, double ratio, double dir);

void vis__qw_patch_of(const vis_qwirkle *q, const vis_view *vw, int w, int h,
                         const vis__qw_blob *b, double radius, vis__qw_patch *p);

void vis__qw_ncc6(const vis__qw_patch *p, const float *t, double a, double du, double dv,
                     unsigned mask, double out[6]);

void vis__qw_match(const vis_qwirkle *q, const vis__qw_patch *p, int k, double angle,
                      unsigned shifts, double best[6]);

/* qwirkle_find.c */
/* What every reading of a view starts with: the scratch for its size, its
 * origin (x0, y0 mm at its pixel 0, 0) and every pixel classed (*dark: the
 * body threshold); BASE_ERANGE when it shows none of the play area. */
int vis__qw_begin(vis_qwirkle *q, const vis_image *top, const vis_view *vw, double *x0,
                  double *y0, int *dark, base_err *err);

void vis__qw_hsv(double b, double g, double r, double *h, double *s, double *v);

bool vis__qw_in_marker(const vis_view *vw, double x, double y);

double vis__qw_hue_dist(double a, double b);

int vis__qw_colour_of(const vis_qwirkle *q, const vis__qw_blob *b);

void vis__qw_origin(const vis_view *vw, double *x0, double *y0);

long vis__qw_classify(vis_qwirkle *q, const vis_image *top, const vis_view *vw, int *dark);

void vis__qw_accept(vis_qwirkle *q, vis__qw_seg *g, const int *pix, int n, int lab);

long vis__qw_flood(vis_qwirkle *q, const vis__qw_seg *g, int seed, int from, int mask, int lab,
                      int t, int *list, long m);

long vis__qw_parts(vis_qwirkle *q, vis__qw_seg *g, const int *pix, int n, int t, int *out);

bool vis__qw_neutral_table(const double med[3]);

void vis__qw_split(vis_qwirkle *q, vis__qw_seg *g, const int *pix, int n, int lab, int depth,
                      int *out);

void vis__qw_split_parts(vis_qwirkle *q, vis__qw_seg *g, int *out, long m, int depth, int *scratch);

double vis__qw_ring(const vis_qwirkle *q, const vis__qw_seg *g, const vis__qw_blob *b, double *lo_out);

void vis__qw_seg_init(vis__qw_seg *g, const vis_view *vw, int w, int h);

double vis__qw_ring_at(const vis_qwirkle *q, const vis_view *vw, int w, int h, const vis__qw_blob *b);

void vis__qw_dim_blobs(vis_qwirkle *q, vis__qw_seg *g);

int vis__qw_blobs(vis_qwirkle *q, const vis_view *vw, int w, int h, const int *dark,
                     float min_dark, vis__qw_blob *tint, int *ntint, int maxtint);

double vis__qw_dark_box(const vis_qwirkle *q, const vis_view *vw, int w, int h, double x,
                           double y, double nx, double ny, double s0, double s1, double t0,
                           double t1, int lim);

bool vis__qw_is_side(const vis_qwirkle *q, const vis_view *vw, int w, int h, const vis__qw_blob *b,
                        const vis__qw_blob *a, double ca, double sa, double cx, double cy, int nu,
                        int nv, int lim, double dw, double beyond_dark, bool beyond_known,
                        const vis__qw_blob *bl, int nb, double *margin);

double vis__qw_body_contrast(const vis_qwirkle *q, const vis_view *vw, int w, int h,
                                const vis__qw_blob *bl, int nb, int *lim);

void vis__qw_deciles(const int *hist, int nbin, long n, int out[3]);

bool vis__qw_table_colour(const vis_qwirkle *q, const vis_view *vw, int w, int h, double med[3],
                             double spread[3]);

bool vis__qw_table_shade(const vis__qw_blob *b, const double med[3], const double spread[3],
                            bool grained, double k);

int vis__qw_table_symbols(const vis_qwirkle *q, const vis_view *vw, int w, int h, vis__qw_blob *bl,
                             int nb, const vis__qw_blob *tab, int ntab, double angle, double pitch,
                             double phu, double phv);

bool vis__qw_lit_table(const unsigned char *p, const double med[3]);

/* qwirkle_grid.c */

double vis__qw_wrap(double a, double p);

void vis__qw_grid(vis_qwirkle *q, vis__qw_blob *bl, int nb, double ppm, double *angle,
                     double *pitch, double *phu, double *phv);

#endif
