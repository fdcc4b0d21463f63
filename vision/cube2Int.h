/* vision/cube2Int.h: what the files of the cube² reader share (as
 * qwirkleInt.h does for Qwirkle): the tuning values and the handle.
 *   cube2.c       life cycle, the model, patches, reading the squares
 *   cube2_find.c  the board: its turn, its lines' phase, its place
 *   cube2_enrol.c enrolling a set from its photo (FORMATS.md 7)
 * Nothing here is part of the vision library's interface (cube2.h). */
#ifndef TABLECAM_VISION_CUBE2_INT_H
#define TABLECAM_VISION_CUBE2_INT_H

#include "cube2.h"
#include "patch.h"
#include "pieceset.h"

/* The tuning values, each with its reason. */
typedef struct vis__c2_param_table {
    double edge_min;        /* levels a pixel: an edge weaker than this is sensor noise or
                               the grain of a plain board, not a line */
    double marker_margin;   /* a marker's white margin and some, in marker sides: its edges
                               are strong and square and are not the board's */
    int min_edges;          /* fewer edge pixels than this: nothing on the mat to fit */
    double max_turn_deg;    /* FORMATS.md 4: the board lies turned up to 20 degrees; 1 more
                               for the fit's own slack */
    double coarse_step_deg; /* the first search's step: a 180 mm line turned by half a
                               degree moves 1.6 mm at its ends, a small share of a pitch */
    int coarse_stride;      /* the first search uses every this-th edge (speed) */
    double fine_step_deg;   /* the refined turn's step before its parabola */
    double tile_pitches;    /* the turn is scored over tiles this many pitches wide: half a
                               board, so that a tile holds lines both ways */
    double axis_dominance;  /* an edge votes for a line across x when its gradient along x
                               is this many times that along y (within 27 degrees) */
    double line_near_mm;    /* an edge belongs to a line segment within this distance: a
                               line's width and the print's blur */
    int fit_rounds;         /* least-squares rounds of the lines' fit */
    double fit_narrow;      /* after the first round an edge counts within this share of
                               line_near_mm: the fit has come to the lines */
    double long_mm;         /* an edge is a line's when its line runs this far on both
                               sides: beyond half a piece (22 mm), within a square */
    double return_deg;      /* the lines' own turn is looked for this far from the first:
                               the line filter keeps lines within 3 degrees */
    double pair_mm;         /* a line's two sides lie within this: the widest line (2.4
                               mm) and the blur of a far camera */
    double refine_margin_mm;/* the second fit looks this far round the board for its lines */
    double min_contrast;    /* the board's segments over the ring's, at the least: a table's
                               grain or a paper's writing scores near 1 */
    double ring_floor;      /* the ring's evidence counts at least this share of a whole
                               line's: an empty table round the board is no infinite contrast */
    double min_line_share;  /* the board's segments show at least this share of a whole
                               line's edges on average (pieces and hands cover some) */
    double track_turn_deg;  /* a board fitted in the last frame is looked for again within
                               this turn of it: a nudge between two frames turns it less;
                               more, and the whole search runs */
    double track_move_squares; /* ... and kept when its corner lies within this share of a
                               square of the last one: a window a square off, or a board
                               moved, is the whole search's to judge */
    float covered_min;      /* a square whose "covered" probability is above this is hidden:
                               a hand is over it */
    float enrol_sure;       /* an enrolment photo's square read this surely as something
                               other than what the layout puts there is a mistake in the
                               layout, not the classifier's doubt about a new set */
    int enrol_disagree;     /* this many such squares refuse the photo: one or two are the
                               new set's look, which is what enrolment is for */
} vis__c2_param_table;

extern const vis__c2_param_table vis__c2_params;

struct vis_cube2 {
    int cols, rows;
    double pitch_mm;
    vis_classifier *model;  /* NULL: no model built in */
    int size;               /* the model's patch side, px */
    const vis_pieceset *pieces; /* the enrolled set read with (the caller's), or NULL */
};

/* The colour head's values: "empty", the six colours, "covered". */
#define VIS__C2_NCOLOR 8
#define VIS__C2_EMPTY 0
#define VIS__C2_COVERED 7

/* Cuts every square's patch of board b and runs the model: probs (cols *
 * rows * the model's values) and, when feats is not NULL, the features
 * (cols * rows * F); no enrolled set applied. */
int vis__c2_classify(vis_cube2 *c, const vis_image *frame, vis_homography top_to_img,
                     const vis_c2_board *b, float *probs, float *feats, base_err *err);

#endif
