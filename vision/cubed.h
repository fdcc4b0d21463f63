/* vision/cubed.h: finding CUBED's hexagonal tiles on the table.
 *
 * vis_cubed_find fits the hexagonal lattice of the tiles in a top-down
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
    vis_cb_tile tiles[VIS_CB_MAX_TILES];
} vis_cb_layout;

/* Fits the lattice of tiles pitch_mm across the flats (0: 40) in view,
 * the plane VIS_CB_TOP_Z_MM above the table described by vw (px_per_mm,
 * margin_mm or roi, the mat).  out->found is false when no layout shows
 * (not an error). */
int vis_cubed_find(const vis_image *view, const vis_view *vw, double pitch_mm, vis_cb_layout *out,
                   base_err *err);

/* The centre of cell (q, r) of layout l, table mm. */
void vis_cubed_cell_mm(const vis_cb_layout *l, int q, int r, double *x_mm, double *y_mm);

#endif
