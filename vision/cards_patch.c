/* vision/cards_patch.c: the patch a card is read from (cards.h,
 * vis_cards_corners).
 *
 * Every deck prints its index (the rank above a small suit symbol) near
 * two opposite corners, most at the top-left and turned at the
 * bottom-right, some at the top-right and bottom-left, some at all four.
 * A card on the table lies either way up.  So a card is read from two
 * patches, one for each way up; each patch holds the card's two top
 * corners side by side, cut on the plane of the cards at one scale, so
 * that whichever corner carries the index, the classifier sees it
 * upright.  The same cut serves training (models/cards_patches.c) and
 * reading (cards.c): what the network learnt is what it is shown. */
#include "cards.h"
#include "patch.h"

#include <math.h>
#include <string.h>

#define VIS__CP_PI 3.14159265358979323846

/* The corner cut: the index of every deck we know of lies within 16 mm
 * of the long edge and 30 mm of the short one, and the reader's cell
 * errs by a millimetre or so. */
static const struct {
    double w_mm;      /* across the card: the index's 16 mm and slack outside the edge */
    double h_mm;      /* down the card: the rank and suit, 30 mm, and slack */
    double outside_mm; /* how far the cut starts outside the card's edge (a cell off by
                          that still shows the whole index) */
} vis__cp = {18, 33, 1.5};

vis_homography vis_cards_view_map(const vis_view *vw)
{
    vis_homography hm = vis_homography_identity();
    double x0 = vw->roi ? vw->x0_mm : -vw->margin_mm, y0 = vw->roi ? vw->y0_mm : -vw->margin_mm;
    hm.m[0] = vw->px_per_mm;
    hm.m[2] = -x0 * vw->px_per_mm - 0.5;
    hm.m[4] = vw->px_per_mm;
    hm.m[5] = -y0 * vw->px_per_mm - 0.5;
    return hm;
}

int vis_cards_corners(const vis_image *src, vis_homography plane_to_img, double x_mm,
                      double y_mm, double rot_deg, double card_w_mm, double card_h_mm,
                      vis_image **out, base_err *err)
{
    const int half = VIS_CARDS_PATCH / 2;
    double a = rot_deg * VIS__CP_PI / 180, c = cos(a), s = sin(a);
    vis_image *img = NULL, *part = NULL;
    int rc;

    if (!src || !out)
        return base_err_set(err, BASE_EINVAL, "vis_cards_corners: NULL argument");
    *out = NULL;
    if (src->channels != 3)
        return base_err_set(err, BASE_EINVAL,
                            "vis_cards_corners: the image has %d channels, not 3", src->channels);
    if (!(card_w_mm > 2 * vis__cp.w_mm) || !(card_h_mm > 2 * vis__cp.h_mm))
        return base_err_set(err, BASE_EINVAL,
                            "vis_cards_corners: a %g x %g mm card is smaller than its corners",
                            card_w_mm, card_h_mm);
    if ((rc = vis_image_new(VIS_CARDS_PATCH, VIS_CARDS_PATCH, 3, &img, err)) != 0)
        return rc;
    for (int k = 0; k < 2 && rc == 0; k++) {
        /* the corner's centre in the card's frame (x across, y down the
         * card: row 0 of the patch is the card's top edge) */
        double sx = k == 0 ? -1 : 1;
        double u = sx * (card_w_mm / 2 + vis__cp.outside_mm - vis__cp.w_mm / 2);
        double v = -(card_h_mm / 2 + vis__cp.outside_mm - vis__cp.h_mm / 2);
        vis_patch_at at = {x_mm + u * c - v * s, y_mm + u * s + v * c, rot_deg, vis__cp.w_mm,
                           vis__cp.h_mm};
        if ((rc = vis_patch_cut_wh(src, plane_to_img, &at, half, VIS_CARDS_PATCH, &part, err)) !=
            0)
            break;
        for (int y = 0; y < VIS_CARDS_PATCH; y++)
            memcpy(img->data + (size_t)y * (size_t)img->stride + (size_t)(k * half) * 3,
                   part->data + (size_t)y * (size_t)part->stride, (size_t)half * 3);
        vis_image_free(part);
        part = NULL;
    }
    if (rc != 0) {
        vis_image_free(img);
        return rc;
    }
    *out = img;
    return 0;
}
