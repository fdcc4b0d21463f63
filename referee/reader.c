/* referee/reader.c: one camera frame to a reading of the pieces. */
#include "internal.h"

#include "cube2.h"
#include "cubed.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REF__PI 3.14159265358979323846
#define REF__QW_CUBE_MM 20.0
#define REF__CARD_Z_MM 0.35 /* a card's face above the table */
#define REF__MARGIN_MM 10.0
/* The coarse survey of the whole play area, px/mm: symbols stay a few
 * pixels wide, the view stays small. */
#define REF__SURVEY_PPM 0.7
/* While the markers look as they did, the fit is kept; the markers are
 * looked for again at least this often anyway. */
#define REF__REDETECT_FRAMES 150
#define REF__PROBE 6 /* probe points a side of each marker */
/* Beyond the play area by this much (mm), a moving pixel is on a side: the
 * markers' margins are not, the far room is not. */
#define REF__SIDE_MIN_MM 40.0
#define REF__SIDE_MAX_MM 600.0
/* cube2's board is fitted in a view this fine, px/mm: its lines (down to
 * 0.6 mm) still show, the view stays small (models/cube2_patches.c cuts
 * its training patches through the same fit). */
#define REF__C2_FIND_PPM 1.5
/* the view a board is tracked in reaches this far round where it lay: the
 * ring of a square round it that its fit weighs, and a nudge */
#define REF__C2_TRACK_MARGIN_MM 45.0
/* CUBED's lattice is fitted in a view this fine, px/mm: the lines between
 * rhombi and the gaps between tiles (about a millimetre) still show
 * (models/cubed_patches.c cuts its training patches through the same
 * fit). */
#define REF__CB_FIND_PPM 1.5
/* A layout found is looked for again in the table this far round its
 * tiles' centres: a tile laid beside one (a pitch off) and the ring of
 * cells round it, with the tile's own half width to spare. */
#define REF__CB_TRACK_MARGIN_MM 90.0
/* ... and over the whole mat at least this often, in frames: a tile laid
 * away from the layout (against the rules) is seen within a second or two. */
#define REF__CB_FULL_FRAMES 8

struct ref_reader {
    char game[16];
    cal_mat mat;
    bool has_lens;
    vis_camera lens;
    double ppm;
    vis_aruco *det;
    vis_qwirkle *qw;
    vis_cards *cards;        /* the cards game's recogniser (else NULL) */
    vis_cards_reading *cr;
    bool has_fit;
    cal_mat_fit fit;
    vis_reading *vr;
    int since_detect;
    unsigned char probe[4][REF__PROBE * REF__PROBE];
    bool fixed_ppm;
    bool has_axes;     /* axes_deg holds the grid's axes of the first reading */
    double axes_deg;
    vis_pieceset *pieces; /* the enrolled set in use (owned), or NULL */
    vis_cube2 *c2;        /* cube2's recogniser (else NULL) */
    vis_c2_reading *c2r;
    vis_c2_board c2_last; /* the board of the last frame it was found in (found: false
                             when none), where the next frame looks first */
    vis_cubed *cb;        /* CUBED's recogniser (else NULL) */
    vis_cb_reading *cbr;
    vis_cb_layout *cbl;
    vis_cb_layout *cb_last; /* the layout of the last frame it was found in (found: false
                               when none), where the next frame looks first */
    int cb_since_full;      /* frames since the whole mat was searched */
};

/* Each game's limits: below min_ppm px/mm at the board (the camera's own),
 * what cannot be told apart; at max_blur mm or more of fitted blur (0: no
 * blur is fitted), shapes misread.
 * Qwirkle Cubes, from bench_recognize's split of whole-board exactness
 * (three sets of 1280x960 frames, 900 in all; 640x480 for the coarsest):
 * below 0.6 px/mm at the board 58 % of the boards read exactly (100
 * frames), 77-100 % above; with the symbols' fitted blur below 1.55 mm
 * 99.4 % (636 of 640), at 1.7 mm 77 % (58 of 75), at 2.0 mm or more 51 %
 * (55 of 107).
 * Cards, from bench_recognize_cards's split (twelve sets of 1280x960
 * frames, 1290 in all): at 1.0 px/mm or more at the board 99.5 % of the
 * boards read exactly (181 of 182), at 0.8-1.0 94.3 % (595 of 631), at
 * 0.6-0.8 91.6 % (425 of 464): below it a court's letter and a black
 * suit's shape come down to a few pixels. */
static const struct ref__limits {
    const char *game, *sees, *tell;
    double min_ppm, max_blur;
} ref__limits[] = {
    {"qwirkle", "the board", "the symbols' shapes apart", 0.6, 1.55},
    {"cards", "the cards", "a jack, a queen and a king, or a spade and a club, apart every time",
     1.0, 0},
};

ref_camera_seen ref_reading_seen(const ref_reading *rd)
{
    ref_camera_seen s = {rd->cam_px_per_mm, rd->blur_mm, rd->frame_w, rd->frame_h,
                         rd->mat_turn_deg};
    return s;
}

/* What would let this camera see finer, as one clause: a larger frame
 * only when it is under 1920x1080 (or not known: the text used to ask a
 * camera already at 1920x1080 for it), turning it when the mat lies 15
 * degrees or more turned in the picture (a square turned t fits at 1 /
 * (cos t + sin t) of its size: 0.71 at 45 degrees, which is how most of
 * the simulator's far cameras stand), and always bringing it closer. */
static void ref__camera_fixes(ref_camera_seen s, char *buf, size_t cap)
{
    char part[3][160];
    int n = 0, len = 0;
    if (s.frame_w <= 0 || (long)s.frame_w * s.frame_h < 1920L * 1080)
        snprintf(part[n++], sizeof part[0],
                 "give it a larger frame size (v4l2:/dev/videoN:size=1920x1080)");
    if (s.mat_turn_deg >= 15) {
        double t = s.mat_turn_deg * REF__PI / 180;
        snprintf(part[n++], sizeof part[0],
                 "turn it so that the mat's edges run along the picture's (they are "
                 "%.0f "
                 "degrees off, which leaves the mat %.0f %% of the size it could have)",
                 s.mat_turn_deg, 100 / (cos(t) + sin(t)));
    }
    snprintf(part[n++], sizeof part[0], "bring it closer");
    buf[0] = '\0';
    for (int i = 0; i < n && len >= 0 && (size_t)len < cap; i++)
        len += snprintf(buf + len, cap - (size_t)len, "%s%s",
                        i == 0 ? "" : i == n - 1 ? " or " : ", ", part[i]);
}

bool ref_camera_advice(const char *game, ref_camera_seen seen, char *buf, size_t cap)
{
    const struct ref__limits *lm = NULL;
    char fix[REF_ADVICE_MAX];
    for (size_t i = 0; game && i < sizeof ref__limits / sizeof *ref__limits; i++)
        if (strcmp(game, ref__limits[i].game) == 0)
            lm = &ref__limits[i];
    if (!lm)
        return false;
    ref__camera_fixes(seen, fix, sizeof fix);
    if (seen.px_per_mm > 0 && seen.px_per_mm < lm->min_ppm) {
        snprintf(buf, cap,
                 "the camera sees %s at %.2f pixels a millimetre, too few to tell "
                 "%s (%.1f are "
                 "needed): %s",
                 lm->sees, seen.px_per_mm, lm->tell, lm->min_ppm, fix);
        return true;
    }
    if (lm->max_blur > 0 && seen.blur_mm >= lm->max_blur) {
        snprintf(buf, cap,
                 "the symbols look blurred by %.1f mm, so shapes may be misread and "
                 "asked about: focus the camera, %s",
                 seen.blur_mm, fix);
        return true;
    }
    return false;
}

bool ref_reader_supported(const char *game)
{
    return game && (strcmp(game, "qwirkle") == 0 || strcmp(game, "cards") == 0 ||
                    strcmp(game, "cube2") == 0 || strcmp(game, "cubed") == 0);
}

static bool ref__is_cards(const ref_reader *r) { return r->cards != NULL; }

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
    r->ppm = cfg->px_per_mm > 0 ? cfg->px_per_mm : 0;
    r->fixed_ppm = cfg->px_per_mm > 0;
    if (cfg->lens) {
        r->has_lens = true;
        r->lens = *cfg->lens;
    }
    if ((cfg->mat && (rc = cal_mat_parse(cfg->mat, &r->mat, err)) != 0) ||
        (rc = vis_aruco_new(VIS_ARUCO_4X4_50, &r->det, err)) != 0 ||
        (rc = vis_qwirkle_new(REF__QW_CUBE_MM, NULL, &r->qw, err)) != 0 ||
        (strcmp(cfg->game, "cards") == 0 && (rc = vis_cards_new(0, 0, &r->cards, err)) != 0) ||
        (strcmp(cfg->game, "cube2") == 0 && (rc = vis_cube2_new(0, 0, 0, &r->c2, err)) != 0) ||
        (strcmp(cfg->game, "cubed") == 0 && (rc = vis_cubed_new(0, &r->cb, err)) != 0)) {
        ref_reader_free(r);
        return rc;
    }
    if (!(r->vr = malloc(sizeof *r->vr)) || (r->cards && !(r->cr = malloc(sizeof *r->cr))) ||
        (r->c2 && !(r->c2r = malloc(sizeof *r->c2r))) ||
        (r->cb && (!(r->cbr = malloc(sizeof *r->cbr)) || !(r->cbl = malloc(sizeof *r->cbl)) ||
                   !(r->cb_last = calloc(1, sizeof *r->cb_last))))) {
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
    vis_pieceset_free(r->pieces);
    vis_cards_free(r->cards);
    vis_cube2_free(r->c2);
    free(r->c2r);
    vis_cubed_free(r->cb);
    free(r->cbr);
    free(r->cbl);
    free(r->cb_last);
    free(r->vr);
    free(r->cr);
    free(r);
}

bool ref_reader_fit(const ref_reader *r, cal_mat_fit *fit)
{
    if (r->has_fit && fit)
        *fit = r->fit;
    return r->has_fit;
}

int ref_reader_side(const ref_reader *r, double x_px, double y_px)
{
    vis_point t;
    double out[4];
    int best = -1;
    if (!r->has_fit)
        return -1;
    t = vis_homography_apply(r->fit.img_to_table, (vis_point){x_px, y_px});
    /* how far beyond each edge: bottom (y = h), top (y = 0), left, right */
    out[0] = t.y - r->mat.h;
    out[1] = -t.y;
    out[2] = -t.x;
    out[3] = t.x - r->mat.w;
    for (int k = 0; k < 4; k++)
        if (out[k] > REF__SIDE_MIN_MM && out[k] < REF__SIDE_MAX_MM &&
            (best < 0 || out[k] > out[best]))
            best = k;
    return best;
}

/* White balance from the mat's white paper: the ring between each found
 * marker's black square and the edge of its white margin; and *white,
 * that paper's brightness (B + G + R; left as it is when fewer than four
 * samples are in the frame). */
static void ref__white(const ref_reader *r, const vis_image *img, float gain[3], double *white)
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
    *white = (sum[0] + sum[1] + sum[2]) / n;
    {
        double grey = (sum[0] + sum[1] + sum[2]) / 3;
        for (int ch = 0; ch < 3; ch++)
            if (sum[ch] > 0) {
                double g = grey / sum[ch];
                gain[ch] = (float)(g < 0.5 ? 0.5 : g > 2 ? 2 : g);
            }
    }
}

/* Grey samples across each found marker, to tell cheaply whether the
 * camera and the markers are where they were. */
static void ref__probe(const cal_mat_fit *fit, cal_mat m, const vis_image *img, int id,
                       unsigned char out[REF__PROBE * REF__PROBE])
{
    vis_point c[4];
    cal_mat_marker_corners(m, id, c);
    for (int j = 0; j < REF__PROBE; j++)
        for (int i = 0; i < REF__PROBE; i++) {
            vis_point t = {c[0].x + (i + 0.5) / REF__PROBE * (c[1].x - c[0].x),
                           c[0].y + (j + 0.5) / REF__PROBE * (c[3].y - c[0].y)};
            vis_point p = vis_homography_apply(fit->table_to_img, t);
            int x = (int)(p.x + 0.5), y = (int)(p.y + 0.5), v = 0;
            if (x >= 0 && y >= 0 && x < img->width && y < img->height) {
                const unsigned char *px = img->data + (size_t)y * img->stride +
                                          (size_t)x * img->channels;
                v = img->channels == 3 ? (px[0] + 2 * px[1] + px[2]) / 4 : px[0];
            }
            out[j * REF__PROBE + i] = (unsigned char)v;
        }
}

static bool ref__markers_unchanged(ref_reader *r, const vis_image *img)
{
    if (!r->has_fit || r->fit.width != img->width || r->fit.height != img->height ||
        r->since_detect >= REF__REDETECT_FRAMES)
        return false;
    for (int id = 0; id < 4; id++) {
        unsigned char now[REF__PROBE * REF__PROBE];
        int diff = 0;
        if (!(r->fit.found & (1u << id)))
            continue;
        ref__probe(&r->fit, r->mat, img, id, now);
        for (int k = 0; k < REF__PROBE * REF__PROBE; k++)
            diff += abs(now[k] - r->probe[id][k]);
        if (diff > 22 * REF__PROBE * REF__PROBE)
            return false;
    }
    return true;
}

/* How far the mat's edges lie turned from the picture's axes, 0-45
 * degrees: the mean over its four edges as the camera sees them (a tilted
 * camera's perspective turns them unequally). */
static double ref__mat_turn(const cal_mat_fit *fit, cal_mat m)
{
    const double x[4] = {0, m.w, m.w, 0}, y[4] = {0, 0, m.h, m.h};
    vis_point c[4];
    double sum = 0;
    for (int i = 0; i < 4; i++)
        c[i] = vis_homography_apply(fit->table_to_img, (vis_point){x[i], y[i]});
    for (int i = 0; i < 4; i++) {
        vis_point a = c[i], b = c[(i + 1) % 4];
        double t = fmod(atan2(b.y - a.y, b.x - a.x) * 180 / REF__PI + 360, 90);
        sum += t < 45 ? t : 90 - t;
    }
    return sum / 4;
}

/* The mat in frame: the fit kept while the markers look as they did, else
 * found again (the last one kept when markers are covered); out's mat
 * fields and frame size are set. */
static int ref__locate(ref_reader *r, const vis_image *frame, ref_reading *out, base_err *err)
{
    const vis_camera *lens = r->has_lens ? &r->lens : NULL;
    cal_mat_fit fit;
    base_err local;
    int rc;
    memset(out, 0, sizeof *out);
    if (!frame || frame->channels != 3)
        return base_err_set(err, BASE_EINVAL, "ref_reader_read: expected a colour frame");
    if (ref__markers_unchanged(r, frame)) {
        r->since_detect++;
        out->mat_found = r->fit.found;
    } else {
        /* Shrunk first (several times faster), the full frame when that
         * misses a marker (small markers in a large frame). */
        rc = vis_aruco_set_decimate(r->det, 2, err);
        if (rc == 0)
            rc = cal_mat_locate(r->det, frame, r->mat, lens, &fit, err ? err : &local);
        if (rc != 0 || fit.nfound < 4) {
            cal_mat_fit full;
            int rc2 = vis_aruco_set_decimate(r->det, 1, err);
            if (rc2 == 0)
                rc2 = cal_mat_locate(r->det, frame, r->mat, lens, &full, err ? err : &local);
            if (rc2 == 0 && (rc != 0 || full.nfound > fit.nfound))
                fit = full;
            if (rc != 0)
                rc = rc2;
        }
        if (rc == 0) {
            r->fit = fit;
            r->has_fit = true;
            r->since_detect = 0;
            out->mat_found = fit.found;
            for (int id = 0; id < 4; id++)
                if (fit.found & (1u << id))
                    ref__probe(&r->fit, r->mat, frame, id, r->probe[id]);
        } else if (rc == BASE_ENOTFOUND && r->has_fit && r->fit.width == frame->width &&
                   r->fit.height == frame->height) {
            /* Markers covered (a hand, a cup): the camera has not moved. */
            out->mat_found = fit.found;
            out->mat_reused = true;
        } else {
            return rc;
        }
    }
    out->frame_w = frame->width;
    out->frame_h = frame->height;
    out->mat_turn_deg = ref__mat_turn(&r->fit, r->mat);
    return 0;
}

/* Finds the mat, surveys the play area and rectifies the cubes' part of
 * it finely: *top (NULL when no cube is in view) and *view for the
 * recogniser; out gets the mat and hand fields. */
static int ref__prepare(ref_reader *r, const vis_image *frame, ref_reading *out, vis_image **top_out,
                        vis_view *view_out, base_err *err)
{
    vis_image *top = NULL;
    vis_view view;
    vis_survey sv;
    const vis_camera *lens = r->has_lens ? &r->lens : NULL;
    double cx, cy, cam_ppm, ppm;
    /* Per game: the plane of the pieces' faces, the survey's resolution,
     * the least fine one, and the margin around the pieces. */
    const double height = ref__is_cards(r) ? REF__CARD_Z_MM : REF__QW_CUBE_MM;
    const double survey_ppm = ref__is_cards(r) ? 1.0 : REF__SURVEY_PPM;
    const double min_ppm = ref__is_cards(r) ? 1.5 : 1.2;
    const double grow = ref__is_cards(r) ? 20 : 2 * REF__QW_CUBE_MM;
    int rc;

    if ((rc = ref__locate(r, frame, out, err)) != 0)
        return rc;
    memset(&view, 0, sizeof view);
    view.mat_w = r->mat.w;
    view.mat_h = r->mat.h;
    view.marker_mm = r->mat.s;
    ref__white(r, frame, view.gain, &view.white);
    if (!ref__is_cards(r) && cal_mat_camera(&r->fit, lens, view.cam_mm, NULL) == 0 &&
        view.cam_mm[2] > 0)
        view.has_cam = true; /* the cubes' side faces are told by it */

    /* 1. A coarse look at the whole play area: where the pieces are (the
     * cubes: how dark they are), and hands. */
    cam_ppm = cal_mat_px_per_mm(&r->fit, 0.5 * r->mat.w, 0.5 * r->mat.h);
    view.px_per_mm = cam_ppm < survey_ppm && !ref__is_cards(r) ? cam_ppm : survey_ppm;
    view.margin_mm = REF__MARGIN_MM;
    view.cam_px_per_mm = cam_ppm;
    if ((rc = cal_rectify(frame, &r->fit, r->mat, lens, height, view.px_per_mm, REF__MARGIN_MM,
                          &top, err)) != 0)
        return rc;
    rc = ref__is_cards(r) ? vis_cards_survey(r->cards, top, &view, &sv, err)
                          : vis_qwirkle_survey(r->qw, top, &view, &sv, err);
    vis_image_free(top);
    top = NULL;
    if (rc != 0)
        return rc;
    out->hand = sv.hand;
    *top_out = NULL;
    if (sv.ncandidates == 0) {
        out->pitch_mm = ref__is_cards(r) ? 63 : REF__QW_CUBE_MM;
        return 0;
    }

    /* 2. The pieces' part of the table, as finely as the camera sees it
     * (finer would only interpolate). */
    cx = 0.5 * (sv.x0_mm + sv.x1_mm);
    cy = 0.5 * (sv.y0_mm + sv.y1_mm);
    cam_ppm = cal_mat_px_per_mm(&r->fit, cx, cy);
    ppm = r->fixed_ppm ? r->ppm : 1.5 * cam_ppm;
    ppm = ppm < min_ppm ? min_ppm : ppm > 3.0 ? 3.0 : ppm;
    view.roi = true;
    view.x0_mm = sv.x0_mm - grow;
    view.y0_mm = sv.y0_mm - grow;
    view.px_per_mm = ppm;
    view.cam_px_per_mm = cam_ppm;
    out->cam_px_per_mm = cam_ppm;
    view.dark = sv.dark;
    if ((rc = cal_rectify_roi(frame, &r->fit, lens, height, ppm, view.x0_mm, view.y0_mm,
                              sv.x1_mm - sv.x0_mm + 2 * grow, sv.y1_mm - sv.y0_mm + 2 * grow, &top,
                              err)) != 0)
        return rc;
    *top_out = top;
    *view_out = view;
    return 0;
}

/* The other readings of a piece read as (a, b): its runner-up for a, for
 * b, or both (a2, b2 < 0: none), each weighed against the reading itself
 * (w 1: as likely).  The classifier's heads give each value its
 * probability (pa, pa2 for a; pb, pb2 for b) and are taken as
 * independent, so a reading is as likely as the product of its values'
 * and (a2, b) weighs pa2 / pa against (a, b): the referee's odds are the
 * classifier's own.  When a runner-up's probability is not known (0: the
 * memory across frames or the one-deck rule swapped the reading with it),
 * the reading's doubt (1 - conf) is shared between them by how close each
 * runner-up came (the top values ca, cb in 0..1). */
static void ref__alts(const rules_piece *p, double conf, int a2, double ca, double pa2, int b2,
                      double cb, double pb2, ref_alts *out)
{
    double c = conf > 0.02 ? conf : 0.02, doubt = 1 - c;
    double da = 1 - fmin(1, fmax(0, ca)), db = 1 - fmin(1, fmax(0, cb));
    double wa = a2 >= 0 ? da : 0, wb = b2 >= 0 ? db : 0;
    double wab = a2 >= 0 && b2 >= 0 ? da * db : 0, sum = wa + wb + wab;
    bool odds = (a2 < 0 || (pa2 > 0 && ca > 0)) && (b2 < 0 || (pb2 > 0 && cb > 0));
    out->n = 0;
    if (odds) {
        wa = a2 >= 0 ? pa2 / ca : 0;
        wb = b2 >= 0 ? pb2 / cb : 0;
        wab = wa * wb;
    } else if (sum > 1e-9) {
        wa *= doubt / sum / c;
        wb *= doubt / sum / c;
        wab *= doubt / sum / c;
    } else {
        return;
    }
    if (wb > 0) {
        out->p[out->n] = *p;
        out->p[out->n].b = (uint8_t)b2;
        out->w[out->n++] = (float)wb;
    }
    if (wa > 0) {
        out->p[out->n] = *p;
        out->p[out->n].a = (uint8_t)a2;
        out->w[out->n++] = (float)wa;
    }
    if (wab > 0) {
        out->p[out->n] = *p;
        out->p[out->n].a = (uint8_t)a2;
        out->p[out->n].b = (uint8_t)b2;
        out->w[out->n++] = (float)wab;
    }
}

/* ref_reading_agree's count: p's neighbours in rd that p does not go with. */
static int ref__breaks(const char *game, const ref_reading *rd, int i, const rules_piece *p)
{
    int n = 0;
    for (int j = 0; j < rd->n; j++)
        n += j != i && abs(rd->pieces[j].x - p->x) + abs(rd->pieces[j].y - p->y) == 1 &&
             !rules_side_by_side(game, p, &rd->pieces[j]);
    return n;
}

static bool ref__read_elsewhere(const ref_reading *rd, int i, const rules_piece *p)
{
    for (int j = 0; j < rd->n; j++)
        if (j != i && ref__same_piece(&rd->pieces[j], p))
            return true;
    return false;
}

/* The alternatives taken are those the referee would take for a reading
 * against the rules (REF__ALT_FLOOR), the one that mends the most sides
 * first, the likelier when two mend alike; each turn mends more sides than
 * it breaks, so the turns end. */
void ref_reading_agree(ref_reading *rd, const char *game)
{
    for (;;) {
        int bi = -1, bd = -1, bmend = 0;
        float bw = 0;
        for (int i = 0; i < rd->n; i++) {
            int now;
            if (rd->conf[i] >= REF__CERTAIN ||
                (now = ref__breaks(game, rd, i, &rd->pieces[i])) == 0)
                continue;
            for (int d = 0; d < rd->alt[i].n; d++) {
                const rules_piece *q = &rd->alt[i].p[d];
                float w = rd->alt[i].w[d];
                int mend;
                if (w < REF__ALT_FLOOR || ref__read_elsewhere(rd, i, q))
                    continue;
                mend = now - ref__breaks(game, rd, i, q);
                if (mend > bmend || (mend == bmend && mend > 0 && w > bw)) {
                    bi = i;
                    bd = d;
                    bmend = mend;
                    bw = w;
                }
            }
        }
        if (bi < 0)
            return;
        rules_piece was = rd->pieces[bi];
        rd->pieces[bi] = rd->alt[bi].p[bd];
        rd->alt[bi].p[bd] = was;
        rd->conf[bi] = fminf(rd->conf[bi], 0.5f);
    }
}

void ref_reading_turn_to(ref_reading *rd, double axes_deg)
{
    double d = remainder(rd->grid_angle_deg - axes_deg, 360.0);
    int k = ((int)lround(d / 90) % 4 + 4) % 4; /* quarter turns from those axes */
    /* axes turned a quarter further (u = (cos a, sin a), v = (-sin a, cos
     * a)) number the cell (x, y) of the first axes as (y, -x) */
    for (int i = 0; k && i < rd->n; i++)
        for (int q = 0; q < k; q++) {
            rules_piece *p = &rd->pieces[i];
            int16_t x = p->x;
            p->x = (int16_t)-p->y;
            p->y = x;
            for (int a = 0; a < rd->alt[i].n; a++) {
                rd->alt[i].p[a].x = p->x;
                rd->alt[i].p[a].y = p->y;
            }
        }
    rd->grid_angle_deg -= 90.0 * k;
}

/* Tile p (cubed) numbered in axes turned 60 degrees back. */
static void ref__hex_back(rules_piece *p)
{
    int q = p->x, r = p->y, parity, f[3];
    vis_cubed_turn(p->parity, (const int[3]){p->a, p->b, p->c}, -1, &parity, f);
    p->x = (int16_t)-r;
    p->y = (int16_t)(q + r);
    p->parity = (uint8_t)parity;
    p->a = (uint8_t)f[0];
    p->b = (uint8_t)f[1];
    p->c = (uint8_t)f[2];
}

void ref_reading_turn_hex(ref_reading *rd, double axes_deg)
{
    double d = remainder(rd->grid_angle_deg - axes_deg, 360.0);
    long turns = lround(d / 60);
    int k = ((int)turns % 6 + 6) % 6; /* sixths from those axes */
    for (int i = 0; k && i < rd->n; i++)
        for (int s = 0; s < k; s++) {
            ref__hex_back(&rd->pieces[i]);
            for (int a = 0; a < rd->alt[i].n; a++)
                ref__hex_back(&rd->alt[i].p[a]);
        }
    rd->grid_angle_deg -= 60.0 * (double)turns;
}

/* Keeps the grid's axes one way round from reading to reading (see
 * ref_reading_turn_to): those of the first reading with pieces and no
 * hand.  The board lies still on the table and the angle is on the
 * table's axes, so they hold when the camera is bumped. */
static void ref__orient(ref_reader *r, ref_reading *out)
{
    if (out->n == 0 || out->hand)
        return;
    if (!r->has_axes) {
        /* the first axes are the mat's (FORMATS.md 1 and 4): of the ways
         * the grid can be numbered (a quarter turn for cubes, a half for
         * cards, whose cells are not square), the one whose x axis runs
         * nearest the mat's x, toward marker 1 */
        double step = ref__is_cards(r) ? 180.0 : r->cb ? 60.0 : 90.0;
        r->has_axes = true;
        r->axes_deg = out->grid_angle_deg - step * round(out->grid_angle_deg / step);
    }
    if (r->cb)
        ref_reading_turn_hex(out, r->axes_deg);
    else
        ref_reading_turn_to(out, r->axes_deg);
}

/* cube2: the board fitted in the view of its top's plane, then every
 * square read from the frame on the plane of the pieces' tops.  A square
 * a hand covers is not read (the reading says hand); a board not found
 * reads as no pieces with the hand flag up, for it is not known to be
 * empty.  With a lens profile the planes' maps leave the lens out (the
 * patches are cut from the frame as the camera gave it, as the classifier
 * was trained). */
/* The cube2 board in frame: the mat located (out), the board fitted on
 * the plane of its top (*b), and the plane of the pieces' tops (*top). */
static int ref__c2_board(ref_reader *r, const vis_image *frame, ref_reading *out, vis_c2_board *b,
                         vis_homography *top, base_err *err)
{
    const vis_camera *lens = r->has_lens ? &r->lens : NULL;
    vis_image *view = NULL;
    vis_view vw;
    int rc;
    if ((rc = ref__locate(r, frame, out, err)) != 0)
        return rc;
    memset(&vw, 0, sizeof vw);
    vw.px_per_mm = REF__C2_FIND_PPM;
    vw.mat_w = r->mat.w;
    vw.mat_h = r->mat.h;
    vw.marker_mm = r->mat.s;
    b->found = false;
    if (r->c2_last.found) {
        /* where the board lay: only the table round it */
        double box[4];
        vis_cube2_bounds(&r->c2_last, REF__C2_TRACK_MARGIN_MM, box);
        vw.roi = true;
        vw.x0_mm = box[0];
        vw.y0_mm = box[1];
        if ((rc = cal_rectify_roi(frame, &r->fit, lens, VIS_C2_BOARD_Z_MM, vw.px_per_mm, box[0],
                                  box[1], box[2] - box[0], box[3] - box[1], &view, err)) != 0)
            return rc;
        rc = vis_cube2_track(r->c2, view, &vw, &r->c2_last, b, err);
        vis_image_free(view);
        view = NULL;
        vw.roi = false;
        if (rc != 0)
            return rc;
    }
    if (!b->found) {
        if ((rc = cal_rectify(frame, &r->fit, r->mat, lens, VIS_C2_BOARD_Z_MM, vw.px_per_mm, 0,
                              &view, err)) != 0)
            return rc;
        rc = vis_cube2_find(r->c2, view, &vw, b, err);
        vis_image_free(view);
    }
    if (rc == 0 && b->found)
        r->c2_last = *b;
    if (rc == 0)
        rc = cal_mat_plane(&r->fit, NULL, VIS_C2_TOP_Z_MM, top, err);
    return rc;
}

static int ref__read_cube2(ref_reader *r, const vis_image *frame, ref_reading *out, base_err *err)
{
    vis_c2_board b;
    vis_homography top;
    int rc = ref__c2_board(r, frame, out, &b, &top, err);
    if (rc == 0)
        rc = vis_cube2_read(r->c2, frame, top, &b, r->c2r, err);
    if (rc != 0)
        return rc;
    out->pitch_mm = b.pitch_mm;
    out->grid_angle_deg = b.angle_deg;
    out->cam_px_per_mm = cal_mat_px_per_mm(&r->fit, b.x0_mm, b.y0_mm);
    out->hand = !b.found || r->c2r->hand;
    BASE_DEBUG("reader", "cube2 board %s (contrast %.1f) at %.1f,%.1f turned %.1f%s",
               b.found ? "found" : "not found", b.contrast, b.x0_mm, b.y0_mm, b.angle_deg,
               r->c2r->hand ? ", a hand" : "");
    for (int i = 0; i < r->c2r->nsquares && out->n < REF_MAX_READ; i++) {
        const vis_c2_square *q = &r->c2r->squares[i];
        rules_piece *p = &out->pieces[out->n];
        if (q->covered || q->color < 0)
            continue;
        memset(p, 0, sizeof *p);
        p->owner = -1;
        p->x = (int16_t)q->col;
        p->y = (int16_t)q->row;
        p->a = (uint8_t)q->color;
        p->b = (uint8_t)q->shape;
        out->conf[out->n] = q->conf;
        ref__alts(p, q->conf, q->color2, q->color_conf, q->color_p2, q->shape2, q->shape_conf,
                  q->shape_p2, &out->alt[out->n]);
        out->x_mm[out->n] = q->x_mm;
        out->y_mm[out->n] = q->y_mm;
        out->n++;
    }
    return 0;
}

/* CUBED: the lattice fitted in the view of the tiles' plane, then every
 * candidate cell read from the frame on that plane.  A layout not found
 * among things on the mat reads as no tiles with the hand flag up (not
 * known to be empty); a bare mat reads as empty.  A tile's other
 * readings: each face's runner-up, the likeliest first. */
static int ref__read_cubed(ref_reader *r, const vis_image *frame, ref_reading *out, base_err *err)
{
    const vis_camera *lens = r->has_lens ? &r->lens : NULL;
    vis_image *view = NULL;
    vis_homography top;
    vis_view vw;
    vis_cb_layout *l = r->cbl;
    int rc;
    if ((rc = ref__locate(r, frame, out, err)) != 0)
        return rc;
    memset(&vw, 0, sizeof vw);
    vw.px_per_mm = REF__CB_FIND_PPM;
    vw.mat_w = r->mat.w;
    vw.mat_h = r->mat.h;
    vw.marker_mm = r->mat.s;
    l->found = false;
    if (r->cb_last->found && r->cb_since_full < REF__CB_FULL_FRAMES) {
        /* where the layout lay: only the table round it */
        double box[4];
        vis_cubed_bounds(r->cb_last, REF__CB_TRACK_MARGIN_MM, box);
        vw.roi = true;
        vw.x0_mm = box[0];
        vw.y0_mm = box[1];
        if ((rc = cal_rectify_roi(frame, &r->fit, lens, VIS_CB_TOP_Z_MM, vw.px_per_mm, box[0],
                                  box[1], box[2] - box[0], box[3] - box[1], &view, err)) != 0)
            return rc;
        rc = vis_cubed_track(view, &vw, r->cb_last, l, err);
        vis_image_free(view);
        view = NULL;
        vw.roi = false;
        if (rc != 0)
            return rc;
        r->cb_since_full++;
    }
    if (!l->found) {
        if ((rc = cal_rectify(frame, &r->fit, r->mat, lens, VIS_CB_TOP_Z_MM, vw.px_per_mm, 0,
                              &view, err)) != 0)
            return rc;
        rc = vis_cubed_find(view, &vw, vis_cubed_pitch(r->cb), l, err);
        vis_image_free(view);
        r->cb_since_full = 0;
    }
    if (rc == 0 && l->found)
        memcpy(r->cb_last, l, sizeof *l);
    else if (rc == 0 && l->ntiles == 0)
        r->cb_last->found = false; /* a bare mat: the round is over */
    if (rc == 0)
        rc = cal_mat_plane(&r->fit, NULL, VIS_CB_TOP_Z_MM, &top, err);
    if (rc == 0)
        rc = vis_cubed_read(r->cb, frame, top, l, r->cbr, err);
    if (rc != 0)
        return rc;
    out->pitch_mm = l->pitch_mm;
    out->grid_angle_deg = l->angle_deg;
    out->cam_px_per_mm = cal_mat_px_per_mm(&r->fit, 0.5 * r->mat.w, 0.5 * r->mat.h);
    out->hand = (!l->found && l->ntiles > 0) || r->cbr->hand;
    BASE_DEBUG("reader", "cubed lattice %s (%d candidates) turned %.1f, %d tiles%s",
               l->found ? "found" : "not found", l->ntiles, l->angle_deg, r->cbr->n,
               out->hand ? ", a hand" : "");
    for (int i = 0; i < r->cbr->n && out->n < REF_MAX_READ; i++) {
        const vis_cb_read *t = &r->cbr->tiles[i];
        rules_piece *p = &out->pieces[out->n];
        ref_alts *alt = &out->alt[out->n];
        if (t->covered)
            continue;
        memset(p, 0, sizeof *p);
        p->owner = -1;
        p->x = (int16_t)t->q;
        p->y = (int16_t)t->r;
        p->parity = (uint8_t)t->parity;
        p->a = (uint8_t)t->faces[0];
        p->b = (uint8_t)t->faces[1];
        p->c = (uint8_t)t->faces[2];
        out->conf[out->n] = t->conf;
        alt->n = 0;
        for (int j = 0; j < 3; j++) {
            /* odds against the reading: the runner-up's over the face's */
            float w = t->face2[j] >= 0 && t->face_conf[j] > 0 ? t->face_p2[j] / t->face_conf[j]
                                                               : 0;
            int k = alt->n;
            if (w <= 0)
                continue;
            if (k == REF_MAX_ALT) {
                int lo = 0;
                for (int m = 1; m < k; m++)
                    lo = alt->w[m] < alt->w[lo] ? m : lo;
                if (alt->w[lo] >= w)
                    continue;
                k = lo;
            } else {
                alt->n++;
            }
            alt->p[k] = *p;
            if (j == 0)
                alt->p[k].a = (uint8_t)t->face2[j];
            else if (j == 1)
                alt->p[k].b = (uint8_t)t->face2[j];
            else
                alt->p[k].c = (uint8_t)t->face2[j];
            alt->w[k] = w;
        }
        out->x_mm[out->n] = t->x_mm;
        out->y_mm[out->n] = t->y_mm;
        out->n++;
    }
    return 0;
}

static int ref__read(ref_reader *r, const vis_image *frame, ref_reading *out, base_err *err)
{
    vis_image *top = NULL;
    vis_view view;
    int rc;
    if (r->c2)
        return ref__read_cube2(r, frame, out, err);
    if (r->cb)
        return ref__read_cubed(r, frame, out, err);
    if ((rc = ref__prepare(r, frame, out, &top, &view, err)) != 0 || !top)
        return rc;
    /* The frame itself, which the classifiers were trained on (one
     * resampling; for Qwirkle also a coarse camera's close calls: JPEG's
     * blocks lie on its pixels); with a lens profile the view is
     * undistorted and the plane's map is not the frame's, so not then. */
    if (!r->has_lens &&
        cal_mat_plane(&r->fit, NULL, ref__is_cards(r) ? REF__CARD_Z_MM : REF__QW_CUBE_MM,
                      &view.frame_h, NULL) == 0)
        view.frame = frame;
    if (ref__is_cards(r)) {
        rc = vis_cards_read(r->cards, top, &view, r->cr, err);
        vis_image_free(top);
        if (rc != 0)
            return rc;
        out->hand = out->hand || r->cr->hand;
        out->grid_angle_deg = r->cr->grid_angle_deg;
        BASE_DEBUG("reader", "%d cards, grid at %.1f degrees%s", r->cr->ncards,
                   r->cr->grid_angle_deg, out->hand ? ", a hand" : "");
        out->pitch_mm = r->cr->pitch_x_mm;
        for (int i = 0; i < r->cr->ncards && out->n < REF_MAX_READ; i++) {
            const vis_card *vc = &r->cr->cards[i];
            rules_piece *p = &out->pieces[out->n];
            int rank = vc->rank, suit = vc->suit, rank2 = vc->rank2, suit2 = vc->suit2;
            float conf = vc->conf;
            if (!vc->face_down && (rank <= 0 || suit < 0)) {
                /* found, half read: its runner-up, if any, as an unsure
                 * reading (a card left out would look taken away) */
                rank = rank > 0 ? rank : rank2;
                suit = suit >= 0 ? suit : suit2;
                if (rank <= 0 || suit < 0)
                    continue;
                rank2 = suit2 = -1;
                conf = 0;
            }
            memset(p, 0, sizeof *p);
            p->owner = -1;
            p->x = (int16_t)vc->gx;
            p->y = (int16_t)vc->gy;
            p->a = (uint8_t)(vc->face_down ? 0 : rank);
            p->b = (uint8_t)(vc->face_down ? 0 : suit);
            p->c = vc->face_down;
            out->conf[out->n] = conf;
            out->duplicate[out->n] = vc->duplicate;
            if (vc->face_down)
                out->alt[out->n].n = 0;
            else
                ref__alts(p, conf, rank2 > 0 ? rank2 : -1, vc->rank_conf,
                          rank2 == vc->rank2 ? vc->rank_p2 : 0, suit2, vc->suit_conf,
                          suit2 == vc->suit2 ? vc->suit_p2 : 0,
                          &out->alt[out->n]);
            out->x_mm[out->n] = vc->x_mm;
            out->y_mm[out->n] = vc->y_mm;
            out->n++;
        }
        ref_reading_agree(out, r->game);
        return 0;
    }
    rc = vis_qwirkle_read(r->qw, top, &view, r->vr, err);
    vis_image_free(top);
    if (rc != 0)
        return rc;
    out->grid_angle_deg = r->vr->grid_angle_deg;
    out->pitch_mm = r->vr->pitch_mm;
    out->blur_mm = r->vr->blur_mm;
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
        out->duplicate[out->n] = false; /* cubes repeat: three of each */
        ref__alts(p, vp->conf, vp->color2, vp->color_conf, vp->color_p2, vp->shape2,
                  vp->shape_conf, vp->shape_p2,
                  &out->alt[out->n]);
        out->x_mm[out->n] = vp->x_mm;
        out->y_mm[out->n] = vp->y_mm;
        out->n++;
    }
    return 0;
}

int ref_reader_read(ref_reader *r, const vis_image *frame, ref_reading *out, base_err *err)
{
    int rc = ref__read(r, frame, out, err);
    if (rc == 0)
        ref__orient(r, out);
    return rc;
}

/* The rectified view of the cubes in frame (ref__prepare, its reading
 * discarded) for the calls that read it once: *top NULL when no cube is
 * seen. */
static int ref__top(ref_reader *r, const vis_image *frame, vis_image **top, vis_view *view,
                    base_err *err)
{
    ref_reading *rd = malloc(sizeof *rd);
    int rc;
    *top = NULL;
    if (!rd)
        return base_err_set(err, BASE_ENOMEM, "out of memory");
    rc = ref__prepare(r, frame, rd, top, view, err);
    free(rd);
    return rc;
}

int ref_reader_learn(ref_reader *r, const vis_image *frame, vis_qwirkle_profile *profile,
                     base_err *err)
{
    vis_image *top = NULL;
    vis_view view;
    int rc;
    if ((rc = ref__top(r, frame, &top, &view, err)) != 0)
        return rc;
    if (!top)
        return base_err_set(err, BASE_ENOTFOUND,
                            "learning colours needs cubes of all six colours in view; none seen");
    rc = vis_qwirkle_learn(r->qw, top, &view, profile, err);
    vis_image_free(top);
    if (rc == 0)
        vis_qwirkle_set_profile(r->qw, profile);
    return rc;
}

void ref_reader_set_profile(ref_reader *r, const vis_qwirkle_profile *profile)
{
    vis_qwirkle_set_profile(r->qw, profile);
}

int ref_reader_use_model(ref_reader *r, const char *onnx_path, base_err *err)
{
    int rc;
    if (!r)
        return base_err_set(err, BASE_EINVAL, "ref_reader_use_model: NULL reader");
    if (ref__is_cards(r))
        return vis_cards_use_model(r->cards, onnx_path, err);
    if (r->c2)
        return vis_cube2_use_model(r->c2, onnx_path, err);
    if (r->cb)
        return vis_cubed_use_model(r->cb, onnx_path, err);
    if ((rc = vis_qwirkle_use_model(r->qw, onnx_path, err)) == 0) {
        /* the set was enrolled with the old model's features */
        vis_pieceset_free(r->pieces);
        r->pieces = NULL;
    }
    return rc;
}

/* ---- enrolled sets ---- */

int ref_reader_enrol_images(const char *game)
{
    if (game && strcmp(game, "cube2") == 0)
        return 1;
    return game && strcmp(game, "qwirkle") == 0 ? 6 : 0;
}

const char *ref_reader_enrol_what(const char *game, int image)
{
    static const char *const shapes[6] = {"circles", "squares", "diamonds",
                                          "clovers", "star4s",  "star8s"};
    if (image < 0 || image >= ref_reader_enrol_images(game))
        return NULL;
    if (strcmp(game, "cube2") == 0)
        return "board with a cube and a cylinder of each colour on rows 3 and 4";
    return shapes[image];
}

int ref_reader_enrol_begin(ref_reader *r, vis_pieceset **out, base_err *err)
{
    if (!r || !out)
        return base_err_set(err, BASE_EINVAL, "ref_reader_enrol_begin: NULL argument");
    if (ref_reader_enrol_images(r->game) == 0)
        return base_err_set(err, BASE_EUNSUPPORTED,
                            "enrolling a set is built for qwirkle and cube2 only (the %s reader "
                            "has no learned stage yet)",
                            r->game);
    if (r->c2)
        return vis_cube2_enrol_begin(r->c2, out, err);
    return vis_pieceset_new(vis_qwirkle_model(r->qw), out, err);
}

int ref_reader_enrol(ref_reader *r, const vis_image *frame, int image, vis_pieceset *set,
                     base_err *err)
{
    vis_image *top = NULL;
    vis_view view;
    int rc;
    if (!r || !frame || !set)
        return base_err_set(err, BASE_EINVAL, "ref_reader_enrol: NULL argument");
    if (image < 0 || image >= ref_reader_enrol_images(r->game))
        return base_err_set(err, BASE_EINVAL, "ref_reader_enrol: photo %d of a %s set", image,
                            r->game);
    if (r->c2) {
        vis_c2_board b;
        vis_homography plane;
        ref_reading *where = malloc(sizeof *where);
        if (!where)
            return base_err_set(err, BASE_ENOMEM, "out of memory");
        memset(where, 0, sizeof *where);
        r->c2_last.found = false; /* a scene of its own */
        rc = ref__c2_board(r, frame, where, &b, &plane, err);
        free(where);
        if (rc == 0)
            rc = vis_cube2_enrol(r->c2, frame, plane, &b, set, err);
        r->has_fit = false;
        r->has_axes = false;
        return rc;
    }
    if ((rc = ref__top(r, frame, &top, &view, err)) != 0)
        return rc;
    if (!top)
        return base_err_set(err, BASE_ENOTFOUND, "the photo of the %s shows no cubes",
                            ref_reader_enrol_what(r->game, image));
    rc = vis_qwirkle_enrol(r->qw, top, &view, image, set, err);
    vis_image_free(top);
    /* the next photo is a scene of its own: find the mat afresh */
    r->has_fit = false;
    r->has_axes = false;
    return rc;
}

int ref_reader_use_pieces(ref_reader *r, vis_pieceset *set, base_err *err)
{
    int rc;
    if (!r)
        return base_err_set(err, BASE_EINVAL, "ref_reader_use_pieces: NULL reader");
    if (set && ref_reader_enrol_images(r->game) == 0)
        return base_err_set(err, BASE_EUNSUPPORTED,
                            "enrolled sets are built for qwirkle and cube2 only (the %s reader "
                            "has no learned stage yet)",
                            r->game);
    if (r->c2)
        rc = vis_cube2_use_pieces(r->c2, set, err);
    else
        rc = ref__is_cards(r) ? 0 : vis_qwirkle_use_pieces(r->qw, set, err);
    if (rc != 0)
        return rc;
    vis_pieceset_free(r->pieces);
    r->pieces = set;
    return 0;
}
