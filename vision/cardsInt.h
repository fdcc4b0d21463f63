/* vision/cardsInt.h: what the files of the playing-card recogniser share
 * (cards.h is its public face).
 *
 *   cards_find.c   where the cards are: the mat's model, the mask of card
 *                  stock, glare, the silhouette (the detection view)
 *   cards_grid.c   the grid the cards lie on, each card's outline, and the
 *                  fast affine cut they use
 *   cards_patch.c  the corner patch a card is read from
 *   cards.c        reading: the cells, the learned classifier, one deck,
 *                  memory across frames; the survey
 */
#ifndef TABLECAM_VISION_CARDSINT_H
#define TABLECAM_VISION_CARDSINT_H

#include "cards.h"
#include "classify.h"
#include "recall.h"

#include <stdbool.h>
#include <stddef.h>

#define CD__PI 3.14159265358979323846
#define CD__SPPM 1.0   /* the detection view, px/mm */
/* mm2: a hole in the silhouette at most this large is print (a pip, a
 * letter's bowl); larger, the mat between cards (cd__open) */
#define CD__PRINT_HOLE_MAX 1000.0
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
    /* the learned stage: the classifier (vision/classify.h) and room for
     * the patches of one view, two a card, and their probabilities */
    vis_classifier *model;
    vis_image *patch[2 * VIS_CARDS_MAX];
    float *probs;
};

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

typedef struct cd__grid {
    double ang;        /* radians: the u axis (short side) against table x */
    double pu, pv;     /* pitch along u, v */
    double phu, phv;   /* a cell corner's u, v */
    bool ok;
} cd__grid;

/* A run of pixels x0..x1 of row y. */
typedef struct cd__run {
    int y, x0, x1;
} cd__run;

/* cards_find.c */
int cd__check(const vis_image *top, const vis_view *vw, const char *fn, base_err *err);
void cd__origin(const vis_view *vw, double *x0, double *y0);
void cd__det_free(cd__det *d);
int cd__det_make(const vis_image *top, const vis_view *vw, cd__det *d, base_err *err);
void cd__mask(vis_cards *c, cd__det *d, const vis_view *vw, bool learn);
bool cd__zero8(const unsigned char *m, int i, int n);
bool cd__row_ends(const unsigned char *m, int n, int *xl, int *xr);
int cd__region(const unsigned char *open, int want, int w, int h, int i0, unsigned char *mark, unsigned char v, int *stack, cd__run *runs, int *nruns);
void cd__glare_apply(vis_cards *c, cd__det *d);
bool cd__some_cards(const vis_cards *c, const cd__det *d, double box[4]);
bool cd__on_outline(const unsigned char *m, int w);
bool cd__near_step(const cd__det *d, int x, int y);
bool cd__soft(const cd__det *d);
void cd__open(cd__det *d, bool holes);
/* cards_grid.c */
void cd__warp_init(vis_cards *c);
void cd__grid_fit(vis_cards *c, const cd__det *d, cd__grid *g, double force);
int cd__refine(const vis_cards *c, const vis_image *top, const vis_view *vw, double *cx, double *cy, double ang, double win, double *contrast);

#endif
