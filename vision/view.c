/* vision/view.c: a top-down view's pixels in table millimetres
 * (vision/view.h). */
#include "view.h"

#include <math.h>

void vis_view_pixel_mm(const vis_view *vw, double u, double v, double *x_mm, double *y_mm)
{
    double ox = vw->roi ? vw->x0_mm : -vw->margin_mm, oy = vw->roi ? vw->y0_mm : -vw->margin_mm;
    *x_mm = ox + (u + 0.5) / vw->px_per_mm;
    *y_mm = oy + (v + 0.5) / vw->px_per_mm;
}

bool vis_view_mm_pixel(const vis_view *vw, const vis_image *view, double x_mm, double y_mm,
                       int *u, int *v)
{
    double ox = vw->roi ? vw->x0_mm : -vw->margin_mm, oy = vw->roi ? vw->y0_mm : -vw->margin_mm;
    *u = (int)floor((x_mm - ox) * vw->px_per_mm);
    *v = (int)floor((y_mm - oy) * vw->px_per_mm);
    return *u >= 1 && *v >= 1 && *u < view->width - 1 && *v < view->height - 1;
}

bool vis_view_on_marker(const vis_view *vw, double x_mm, double y_mm, double margin)
{
    double r = vw->marker_mm * (0.5 + margin);
    for (int k = 0; k < 4; k++) {
        double cx = (k & 1) ? vw->mat_w : 0, cy = (k & 2) ? vw->mat_h : 0;
        if (fabs(x_mm - cx) < r && fabs(y_mm - cy) < r)
            return true;
    }
    return false;
}
