/* vision/cubed.h: reading CUBED's hexagonal tiles off the table.
 *
 * Two stages, as for cube2 (cube2.h).  vis_cubed_find fits the hexagonal lattice of the tiles in a top-down
 * view of the plane of their tops (calib's cal_rectify at about a tile's
 * thickness) and lists the cells that may hold a tile (the candidates a
 * learned stage reads: every tile's cell, and some of mat, glare or a
 * shadow's edge).  Every line a
 * layout shows, a tile's sides and the boundaries between its rhombi,
 * runs along one of three directions 60 degrees apart, so:
 *   - the lattice's turn is the mean direction of the edges' gradients
 *     modulo 60 degrees (each gradient's angle times six, as a phasor);
 *   - along each of the three directions the lines lie half a pitch
 *     apart: the edges' phasors of that period give two phases, which
 *     fix a point that is a cell's centre or one of its corners;
 *   - which of the three (centres, north corners, south corners): the
 *     lattice of cells that the tiles fill whole, where each cell is
 *     either all tile or all mat; a lattice shifted to the corners cuts
 *     the layout's outer tiles in thirds.
 * The rhombi make a layout look like a field of cubes from either of the
 * other two lattices too (the isometric illusion), which is why the
 * colours inside a cell cannot tell them apart and the outline must.
 *
 * Coordinates: table millimetres (FORMATS.md 5).  Lattice cells (q, r)
 * are GAMES.md's axial coordinates in the lattice's own frame, turned by
 * angle_deg from the table's, cell (0, 0) at (x0_mm, y0_mm): cell (q, r)
 * lies at (q + r / 2, r sqrt 3 / 2) pitches from it along the lattice's
 * x (east) and y (south).  A layout is read up to a translation and a
 * turn by 60 degrees (FORMATS.md 4): angle_deg is the one in [-30, 30). */
#ifndef TABLECAM_VISION_CUBED_H
#define TABLECAM_VISION_CUBED_H

#include <stdbool.h>

#include "base.h"
#include "classify.h"
#include "cv.h"
#include "qwirkle.h" /* vis_view */

#define VIS_CB_MAX_TILES 320
/* The plane of the tiles' tops, mm above the table: tiles are 3-8 mm
 * thick; what a set differs by, the lattice's phase absorbs. */
#define VIS_CB_TOP_Z_MM 5.5

typedef struct vis_cb_tile {
    int q, r;          /* the lattice cell */
    double x_mm, y_mm; /* its centre on the table */
    float cover;       /* share of the cell's samples unlike the mat (0..1) */
} vis_cb_tile;

typedef struct vis_cb_layout {
    bool found;
    double pitch_mm;
    double angle_deg;    /* the lattice's turn, [-30, 30) */
    double x0_mm, y0_mm; /* the centre of cell (0, 0) */
    float turn_share;    /* how much of the edges' direction the turn explains (0..1) */
    float coset_margin;  /* the next-best choice of centres' misfit over the chosen one's */
    int ntiles;          /* candidate cells: first the nstrong that stand out from the mat,
                            then their neighbours (a pale tile lies beside another) */
    int nstrong;
    double mat_bgr[3];   /* the mat's colour the cells were judged against */
    vis_cb_tile tiles[VIS_CB_MAX_TILES];
} vis_cb_layout;

/* Fits the lattice of tiles pitch_mm across the flats (0: 40) in view,
 * the plane VIS_CB_TOP_Z_MM above the table described by vw (px_per_mm,
 * margin_mm or roi, the mat).  out->found is false when no layout shows
 * (not an error). */
int vis_cubed_find(const vis_image *view, const vis_view *vw, double pitch_mm, vis_cb_layout *out,
                   base_err *err);

/* The layout near prior (found), as an earlier frame found it (table mm
 * do not change when the camera moves), in view, which may show only the
 * table round it (vis_view's roi, vis_cubed_bounds): the same fit, the
 * cells judged against the mat's colour prior measured on the whole mat
 * (a view of the layout alone is mostly tiles).  out->found is false when
 * it is not there (cleared, covered): then vis_cubed_find looks over the
 * whole mat.  A tile laid far from the layout is outside the view: the
 * caller looks over the whole mat now and then. */
int vis_cubed_track(const vis_image *view, const vis_view *vw, const vis_cb_layout *prior,
                    vis_cb_layout *out, base_err *err);

/* The table box (x0, y0, x1, y1 mm) round the tiles standing out of
 * layout l, margin_mm wider on every side (all 0 when none). */
void vis_cubed_bounds(const vis_cb_layout *l, double margin_mm, double box[4]);

/* The centre of cell (q, r) of layout l, table mm. */
void vis_cubed_cell_mm(const vis_cb_layout *l, int q, int r, double *x_mm, double *y_mm);

/* The learned stage.  vis_cubed_read cuts one patch per candidate cell
 * from the camera frame on the plane of the tiles' tops, upright in the
 * lattice's frame, and asks the classifier (models/cubed.onnx,
 * classify.h) what it shows: the mat, a tile, or something that covers
 * the cell (a hand); and, for a tile, the colour of each of its six
 * edges (the rhombus over it: edge e as rules-cubed numbers them, 0 NE
 * .. 5 NW, in the lattice's frame) and its parity (which edges pair under
 * one rhombus: the lines between them, when the colours do not tell, as
 * on a triple).  A tile's reading combines them: parity p has the
 * probability of its head times that of its pairs of edges being alike,
 * and face j of parity p the product of its two edges' probabilities.  A
 * triple (one colour three times) takes the parity of the layout's other
 * tiles when they tell one: a set without lines or shading between the
 * rhombi shows none on it, and the rules give every tile of a round one
 * parity (so the camera cannot catch a triple laid at the wrong one). */
#define VIS_CB_PATCH_MM 48.0 /* a tile across its corners (46.2 mm) and its jitter */

typedef struct vis_cb_read {
    int q, r;            /* the lattice cell */
    double x_mm, y_mm;   /* its centre on the table */
    bool covered;        /* a hand or something else hides it: not read */
    int parity;          /* 0 or 1 (rules-cubed.md), in the lattice's frame */
    int faces[3];        /* rules' colours (red .. purple, black, white) in parity order */
    float conf;          /* 0..1: how sure the whole reading is */
    float tile_conf;     /* that a tile lies there */
    float parity_conf;
    float face_conf[3];
    int face2[3];        /* each face's runner-up colour */
    float face_p2[3];
} vis_cb_read;

typedef struct vis_cb_reading {
    vis_cb_layout layout;
    int n;               /* the cells read as tiles (covered ones included) */
    vis_cb_read tiles[VIS_CB_MAX_TILES];
    bool hand;           /* some candidate cell is covered */
} vis_cb_reading;

typedef struct vis_cubed vis_cubed;

/* A reader of tiles pitch_mm across the flats (0: 40) with the built-in
 * model (none in the build: vis_cubed_read says so). */
int vis_cubed_new(double pitch_mm, vis_cubed **out, base_err *err);
/* Reads with the model onnx_path instead (a bench's model trained without
 * some designs); BASE_EPARSE when its heads are not cubed's. */
int vis_cubed_use_model(vis_cubed *c, const char *onnx_path, base_err *err);
void vis_cubed_free(vis_cubed *c);
double vis_cubed_pitch(const vis_cubed *c);

/* The patch the classifier reads for cell (q, r) of layout l: cut from
 * frame through top_to_img (table mm on the plane VIS_CB_TOP_Z_MM ->
 * frame pixels, calib's cal_mat_plane), upright in the lattice's frame
 * turned by sixths * 60 degrees (0 for reading; the training patches
 * take every turn), size x size pixels over VIS_CB_PATCH_MM (scaled with
 * the pitch). */
int vis_cubed_patch(const vis_image *frame, vis_homography top_to_img, const vis_cb_layout *l,
                    int q, int r, int sixths, int size, vis_image **out, base_err *err);

/* The colour over each of a tile's six edges (edge e, 0 NE .. 5 NW) for
 * its parity and faces (rules-cubed.md: parity 0 puts face j over edges
 * 2j - 1 and 2j, parity 1 over 2j and 2j + 1). */
void vis_cubed_edges(int parity, const int faces[3], int edge[6]);

/* A tile numbered in axes turned sixths * 60 degrees further (edge k there
 * is edge k + sixths here): its parity (flipped by an odd turn) and faces
 * there; faces_out may be faces. */
void vis_cubed_turn(int parity, const int faces[3], int sixths, int *parity_out, int faces_out[3]);

/* Reads every candidate cell of layout l (found) in frame. */
int vis_cubed_read(vis_cubed *c, const vis_image *frame, vis_homography top_to_img,
                   const vis_cb_layout *l, vis_cb_reading *out, base_err *err);

#endif
