/* vision/view.h: what the finders of every game share about a top-down
 * view of the table (vis_view, vision/qwirkle.h): which table point a
 * pixel shows, which pixel shows a table point, and whether a point lies
 * on one of the mat's markers. */
#ifndef TABLECAM_VISION_VIEW_H
#define TABLECAM_VISION_VIEW_H

#include <stdbool.h>

#include "cv.h"
#include "qwirkle.h" /* vis_view */

/* Table millimetres of the centre of view pixel (u, v). */
void vis_view_pixel_mm(const vis_view *vw, double u, double v, double *x_mm, double *y_mm);

/* The pixel of view that shows table point (x, y); false when it lies
 * within a pixel of the view's border or beyond. */
bool vis_view_mm_pixel(const vis_view *vw, const vis_image *view, double x_mm, double y_mm,
                       int *u, int *v);

/* Inside a marker's square and `margin` marker sides round it (its white
 * margin, whose strong square edges are no piece's). */
bool vis_view_on_marker(const vis_view *vw, double x_mm, double y_mm, double margin);

#endif
