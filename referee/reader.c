/* referee/reader.c: one camera frame to a reading of the pieces. */
#include "referee.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REF__QW_CUBE_MM 20.0
#define REF__MARGIN_MM 10.0

struct ref_reader {
    char game[16];
    cal_mat mat;
    bool has_lens;
    vis_camera lens;
    double ppm;
    vis_aruco *det;
    vis_qwirkle *qw;
    bool has_fit;
    cal_mat_fit fit;
    vis_reading *vr;
};

bool ref_reader_supported(const char *game) { return game && strcmp(game, "qwirkle") == 0; }

int ref_reader_new(const ref_reader_config *cfg, ref_reader **out, base_err *err)
{
    ref_reader *r;
    int rc;
    *out = NULL;
    if (!cfg || !ref_reader_supported(cfg->game))
        return base_err_set(err, BASE_EUNSUPPORTED, "no recogniser for the game '%s' yet",
                            cfg && cfg->game ? cfg->game : "");
    if (!(r = calloc(1, sizeof *r)))
        return base_err_set(err, BASE_ENOMEM, "out of memory");
    snprintf(r->game, sizeof r->game, "%s", cfg->game);
    r->mat = cal_mat_default();
    r->ppm = cfg->px_per_mm > 0 ? cfg->px_per_mm : 1.6;
    if (cfg->lens) {
        r->has_lens = true;
        r->lens = *cfg->lens;
    }
    if ((cfg->mat && (rc = cal_mat_parse(cfg->mat, &r->mat, err)) != 0) ||
        (rc = vis_aruco_new(VIS_ARUCO_4X4_50, &r->det, err)) != 0 ||
        (rc = vis_qwirkle_new(REF__QW_CUBE_MM, NULL, &r->qw, err)) != 0) {
        ref_reader_free(r);
        return rc;
    }
    if (!(r->vr = malloc(sizeof *r->vr))) {
        ref_reader_free(r);
        return base_err_set(err, BASE_ENOMEM, "out of memory");
    }
    *out = r;
    return 0;
}

void ref_reader_free(ref_reader *r)
{
    if (!r)
        return;
    vis_aruco_free(r->det);
    vis_qwirkle_free(r->qw);
    free(r->vr);
    free(r);
}

bool ref_reader_fit(const ref_reader *r, cal_mat_fit *fit)
{
    if (r->has_fit && fit)
        *fit = r->fit;
    return r->has_fit;
}

/* White balance from the mat's white paper: the ring between each found
 * marker's black square and the edge of its white margin. */
static void ref__white(const ref_reader *r, const vis_image *img, float gain[3])
{
    double sum[3] = {0, 0, 0};
    int n = 0;
    gain[0] = gain[1] = gain[2] = 1.f;
    for (int id = 0; id < 4; id++) {
        vis_point c[4], p;
        if (!(r->fit.found & (1u << id)))
            continue;
        cal_mat_marker_corners(r->mat, id, c);
        for (int k = 0; k < 4; k++) {
            /* midpoints of the four sides, pushed out into the margin */
            double mx = 0.5 * (c[k].x + c[(k + 1) % 4].x), my = 0.5 * (c[k].y + c[(k + 1) % 4].y);
            double cx = 0.25 * (c[0].x + c[1].x + c[2].x + c[3].x),
                   cy = 0.25 * (c[0].y + c[1].y + c[2].y + c[3].y);
            double dx = mx - cx, dy = my - cy, len = r->mat.s / 2;
            p = vis_homography_apply(r->fit.table_to_img,
                                     (vis_point){mx + dx / len * r->mat.s / 12,
                                                 my + dy / len * r->mat.s / 12});
            int x = (int)(p.x + 0.5), y = (int)(p.y + 0.5);
            if (x < 0 || y < 0 || x >= img->width || y >= img->height)
                continue;
            const unsigned char *px = img->data + (size_t)y * img->stride + 3 * x;
            for (int ch = 0; ch < 3; ch++)
                sum[ch] += px[ch];
            n++;
        }
    }
    if (n < 4)
        return;
    {
        double grey = (sum[0] + sum[1] + sum[2]) / 3;
        for (int ch = 0; ch < 3; ch++)
            if (sum[ch] > 0) {
                double g = grey / sum[ch];
                gain[ch] = (float)(g < 0.5 ? 0.5 : g > 2 ? 2 : g);
            }
    }
}

int ref_reader_read(ref_reader *r, const vis_image *frame, ref_reading *out, base_err *err)
{
    cal_mat_fit fit;
    vis_image *top = NULL;
    vis_view view;
    base_err local;
    int rc;

    memset(out, 0, sizeof *out);
    rc = cal_mat_locate(r->det, frame, r->mat, r->has_lens ? &r->lens : NULL, &fit,
                        err ? err : &local);
    if (rc == 0) {
        r->fit = fit;
        r->has_fit = true;
        out->mat_found = fit.found;
    } else if (rc == BASE_ENOTFOUND && r->has_fit && r->fit.width == frame->width &&
               r->fit.height == frame->height) {
        /* Markers covered (a hand, a cup): the camera has not moved. */
        out->mat_found = fit.found;
        out->mat_reused = true;
    } else {
        return rc;
    }
    if ((rc = cal_rectify(frame, &r->fit, r->mat, r->has_lens ? &r->lens : NULL,
                          REF__QW_CUBE_MM, r->ppm, REF__MARGIN_MM, &top, err)) != 0)
        return rc;
    view.px_per_mm = r->ppm;
    view.margin_mm = REF__MARGIN_MM;
    view.mat_w = r->mat.w;
    view.mat_h = r->mat.h;
    view.marker_mm = r->mat.s;
    ref__white(r, frame, view.gain);
    rc = vis_qwirkle_read(r->qw, top, &view, r->vr, err);
    vis_image_free(top);
    if (rc != 0)
        return rc;
    out->hand = r->vr->hand;
    out->grid_angle_deg = r->vr->grid_angle_deg;
    out->pitch_mm = r->vr->pitch_mm;
    for (int i = 0; i < r->vr->npieces && out->n < REF_MAX_READ; i++) {
        const vis_piece *vp = &r->vr->pieces[i];
        rules_piece *p = &out->pieces[out->n];
        if (vp->color < 0 || vp->shape < 0)
            continue;
        memset(p, 0, sizeof *p);
        p->owner = -1;
        p->x = (int16_t)vp->gx;
        p->y = (int16_t)vp->gy;
        p->a = (uint8_t)vp->color;
        p->b = (uint8_t)vp->shape;
        out->conf[out->n] = vp->conf;
        out->x_mm[out->n] = vp->x_mm;
        out->y_mm[out->n] = vp->y_mm;
        out->n++;
    }
    return 0;
}
