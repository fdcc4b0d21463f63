/* vision/cards.c: the playing-card recogniser (see cards.h), its reading
 * stage; the files around vision/cardsInt.h do the rest.
 *
 * 1. Where the cards are (cards_find.c): on a copy of the view shrunk to
 *    about a pixel a millimetre, the mat's model (colour and brightness,
 *    learnt by the survey of the whole view and kept in the handle), the
 *    mask of card stock and print, glare taken out, the silhouette opened
 *    and closed.
 * 2. The grid (cards_grid.c): its rotation from the silhouette's outline,
 *    its phase from the outline and the seams between touching cards,
 *    which axis holds the short side.
 * 3. The cells (here): a cell the silhouette fills is looked at, and its
 *    card's centre moved onto the card's own outline (cards_grid.c's
 *    cd__refine).
 * 4. What each card is, learned: the card is cut twice, once each way up,
 *    into the patch of its two top corners (cards_patch.c), from the
 *    camera's own frame when the view has it (one resampling, as the
 *    network was trained), and the classifier (classify.h; the shipped
 *    model is models/cards.onnx, trained on many decks by
 *    models/train_cards.py) says for each patch the rank, the suit, and
 *    whether it shows a face, a back or the table.  The two patches'
 *    log-probabilities are averaged; a cell read as the table is not
 *    reported, one read as a back is a face-down card.  Every reading
 *    carries the runner-up rank and suit and their probabilities, for a
 *    referee that weighs them against the rules.
 * 5. Across the view: one deck, so two cards read the same are both
 *    flagged, and the less sure takes its runner-up when that is free.
 * 6. Across frames: an unsure rank or suit takes what the frames before
 *    read at the card's place more surely (cards lie still; see
 *    cd__remember). */
#include "cardsInt.h"
#include "light.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The heads of a cards model, in the order of its manifest. */
#define CD__NRANK 13 /* A 2 .. 10 J Q K */
#define CD__NSUIT 4  /* spades hearts diamonds clubs: rules/' order */
#define CD__NFACE 3  /* up, down, table */
enum { CD__FACE_UP, CD__FACE_DOWN, CD__FACE_TABLE };
/* a face-up card read at this conf or more is sure: its grid's angle is
 * kept for the next frame (on decks the model never saw, 95 % of its
 * patches read at 0.9 or more are right, 60 % of those at 0.5-0.9: a
 * blank sheet may read as a card at 0.6) */
#define CD__SURE 0.9f

/* Checks that m is a cards model: heads rank, suit and face of 13, 4 and
 * 3 values, patches of VIS_CARDS_PATCH pixels. */
static int cd__model_ok(const vis_classifier *m, const char *what, base_err *err)
{
    static const char *const heads[3] = {"rank", "suit", "face"};
    static const int sizes[3] = {CD__NRANK, CD__NSUIT, CD__NFACE};
    if (vis_classifier_patch_size(m) != VIS_CARDS_PATCH)
        return base_err_set(err, BASE_EINVAL, "%s: patches of %d pixels, not %d: not a cards model",
                            what, vis_classifier_patch_size(m), VIS_CARDS_PATCH);
    if (vis_classifier_nheads(m) != 3)
        return base_err_set(err, BASE_EINVAL, "%s: %d heads, not rank, suit and face: not a "
                            "cards model", what, vis_classifier_nheads(m));
    for (int h = 0; h < 3; h++)
        if (strcmp(vis_classifier_head_name(m, h), heads[h]) != 0 ||
            vis_classifier_head_size(m, h) != sizes[h])
            return base_err_set(err, BASE_EINVAL,
                                "%s: head %d is '%s' of %d values, not '%s' of %d: not a cards "
                                "model",
                                what, h + 1, vis_classifier_head_name(m, h),
                                vis_classifier_head_size(m, h), heads[h], sizes[h]);
    return 0;
}

/* Makes m c's model (taking it): c's buffers sized for it. */
static int cd__take_model(vis_cards *c, vis_classifier *m, base_err *err)
{
    float *probs = malloc(sizeof *probs * 2 * VIS_CARDS_MAX * (size_t)vis_classifier_nvalues(m));
    if (!probs) {
        vis_classifier_free(m);
        return base_err_set(err, BASE_ENOMEM, "vis_cards: out of memory");
    }
    vis_classifier_free(c->model);
    free(c->probs);
    c->model = m;
    c->probs = probs;
    /* what was remembered was read by the other model */
    c->nmem = 0;
    return 0;
}

int vis_cards_new(double card_w_mm, double card_h_mm, vis_cards **out, base_err *err)
{
    vis_cards *c;
    vis_classifier *m = NULL;
    int rc;
    if (!out)
        return base_err_set(err, BASE_EINVAL, "vis_cards_new: out is NULL");
    *out = NULL;
    if (card_w_mm == 0 && card_h_mm == 0) {
        card_w_mm = 63;
        card_h_mm = 88;
    }
    if (!(card_w_mm >= 40 && card_w_mm <= 200 && card_h_mm >= 70 && card_h_mm <= 200))
        return base_err_set(err, BASE_EINVAL,
                            "vis_cards_new: card size %.1f x %.1f mm is outside 40..200 x "
                            "70..200 mm (the corner indices need 36 x 66 mm)",
                            card_w_mm, card_h_mm);
    if (!(c = calloc(1, sizeof *c)))
        return base_err_set(err, BASE_ENOMEM, "vis_cards_new: out of memory");
    c->cw = card_w_mm < card_h_mm ? card_w_mm : card_h_mm;
    c->ch = card_w_mm < card_h_mm ? card_h_mm : card_w_mm;
    cd__warp_init(c);
    if ((rc = vis_classifier_builtin("cards", &m, err)) == 0 &&
        (rc = cd__model_ok(m, "the built-in cards model", err)) != 0)
        vis_classifier_free(m);
    if (rc == 0)
        rc = cd__take_model(c, m, err); /* (which frees m when it fails) */
    if (rc != 0) {
        vis_cards_free(c);
        return rc;
    }
    *out = c;
    return 0;
}

void vis_cards_free(vis_cards *c)
{
    if (!c)
        return;
    free(c->glare);
    vis_classifier_free(c->model);
    free(c->probs);
    free(c);
}

int vis_cards_use_model(vis_cards *c, const char *onnx_path, base_err *err)
{
    vis_classifier *m = NULL;
    int rc;
    if (!c || !onnx_path)
        return base_err_set(err, BASE_EINVAL, "vis_cards_use_model: NULL argument");
    if ((rc = vis_classifier_new(onnx_path, &m, err)) != 0)
        return rc;
    if ((rc = cd__model_ok(m, onnx_path, err)) != 0) {
        vis_classifier_free(m);
        return rc;
    }
    return cd__take_model(c, m, err);
}

const vis_classifier *vis_cards_model(const vis_cards *c) { return c ? c->model : NULL; }

static bool cd__reads(const vis_cards_reading *out, int rank, int suit)
{
    for (int i = 0; i < out->ncards; i++)
        if (!out->cards[i].face_down && out->cards[i].rank == rank && out->cards[i].suit == suit)
            return true;
    return false;
}

/* One deck (the game's rule): two face-up cards read the same means one
 * of them is misread.  Both are flagged as duplicates, and the less sure
 * one takes its runner-up reading of its less sure part (rank or suit)
 * when no card in the view reads that, with at most a runner-up's
 * confidence (0.5); its first reading becomes its runner-up. */
static void cd__one_deck(vis_cards_reading *out)
{
    for (int i = 0; i < out->ncards; i++)
        for (int j = i + 1; j < out->ncards; j++) {
            vis_card *a = &out->cards[i], *b = &out->cards[j];
            if (a->face_down || b->face_down || a->rank <= 0 || a->suit < 0 ||
                a->rank != b->rank || a->suit != b->suit)
                continue;
            vis_card *k = b->conf < a->conf ? b : a;
            a->duplicate = b->duplicate = true;
            int alt[2][2] = {{k->rank2, k->suit}, {k->rank, k->suit2}};
            int first = k->rank_conf <= k->suit_conf ? 0 : 1;
            for (int t = 0; t < 2; t++) {
                int q = t == 0 ? first : 1 - first, r = alt[q][0], s = alt[q][1];
                if (r <= 0 || s < 0 || cd__reads(out, r, s))
                    continue;
                if (q == 0) {
                    k->rank2 = k->rank;
                    k->rank = r;
                    k->rank_p2 = 0;
                    k->rank_conf = (float)fmin(k->rank_conf, 0.5);
                } else {
                    k->suit2 = k->suit;
                    k->suit = s;
                    k->suit_p2 = 0;
                    k->suit_conf = (float)fmin(k->suit_conf, 0.5);
                }
                k->conf = k->rank_conf < k->suit_conf ? k->rank_conf : k->suit_conf;
                break;
            }
        }
}

/* ---- reading the cells ----
 *
 * The tuning of the reading, each value with its reason. */
static const struct {
    double inset_mm;  /* a cell's fill is measured this far in from its edges: a neighbour's
                         outline and a grid off by a few mm stay out */
    double fill;      /* a cell is looked at when the silhouette fills this share of its
                         inside (a card fills it whole; a corner of one, less) */
    double fill_pale; /* on a pale mat, where card stock is found by its outline and print
                         alone (a lone ace's few strokes) and a washed-out side leaves the
                         silhouette open: this share, some of it at all */
    double sure_pale; /* and such an open cell is kept only when the classifier is this sure
                         that it shows a card (a pale patch of mat is the table) */
    double on_view;   /* a cell is looked at when this share of its inside lies on the view */
    double nudge_mm;  /* the centre moves to the silhouette's centroid in the cell when that
                         lies this near (a cell half on a card) */
    double win_mm;    /* each side's outline is looked for this far either way (the grid's
                         phase comes from a 1 px/mm view) */
    double floor_p;   /* probabilities are floored at this before logs (a patch's 0 is the
                         softmax's underflow, not certainty) */
} cd__rd = {6, 0.6, 0.02, 0.8, 0.5, 4, 4, 1e-6};

/* A cell to read: its place on the grid and its card's centre. */
typedef struct cd__cell {
    int ku, kv;
    double x, y;
    bool open; /* on a pale mat, not filled by the silhouette */
} cd__cell;

/* The silhouette's cells of grid g: those it fills (see cd__rd), with
 * each card's centre moved onto its outline. */
static int cd__cells(const vis_cards *c, const vis_image *top, const vis_view *vw,
                     const cd__det *d, const cd__grid *g, cd__cell *cells, base_err *err)
{
    const double ca = cos(g->ang), sa = sin(g->ang), step = 1 / d->ppm;
    const double ipu = 1 / g->pu, ipv = 1 / g->pv, in = cd__rd.inset_mm;
    int kumin = INT_MAX, kumax = INT_MIN, kvmin = INT_MAX, kvmax = INT_MIN, n = 0;
    for (int y = 0; y < d->h; y++)
        for (int x = 0; x < d->w; x++) {
            if (!d->mask[(size_t)y * d->w + x])
                continue;
            double tx = d->x0 + (x + 0.5) * step, ty = d->y0 + (y + 0.5) * step;
            int ku = (int)floor((tx * ca + ty * sa - g->phu) * ipu);
            int kv = (int)floor((-tx * sa + ty * ca - g->phv) * ipv);
            kumin = ku < kumin ? ku : kumin;
            kumax = ku > kumax ? ku : kumax;
            kvmin = kv < kvmin ? kv : kvmin;
            kvmax = kv > kvmax ? kv : kvmax;
        }
    if (kumin > kumax)
        return 0;
    const int nu = kumax - kumin + 1, nv = kvmax - kvmin + 1;
    if (nu > VIS_CARDS_MAX || nv > VIS_CARDS_MAX)
        return 0; /* no layout of one deck is so wide: a grid gone wrong */
    /* per cell: inside pixels, inside mask pixels, mask pixels, their u and v sums */
    double *acc = calloc((size_t)nu * (size_t)nv * 5, sizeof *acc);
    if (!acc)
        return base_err_set(err, BASE_ENOMEM, "vis_cards_read: out of memory");
    for (int y = 0; y < d->h; y++)
        for (int x = 0; x < d->w; x++) {
            double tx = d->x0 + (x + 0.5) * step, ty = d->y0 + (y + 0.5) * step;
            double u = tx * ca + ty * sa - g->phu, v = -tx * sa + ty * ca - g->phv;
            int ku = (int)floor(u * ipu), kv = (int)floor(v * ipv);
            if (ku < kumin || ku > kumax || kv < kvmin || kv > kvmax)
                continue;
            double fu = u - ku * g->pu, fv = v - kv * g->pv;
            double *a = acc + 5 * ((size_t)(kv - kvmin) * nu + (size_t)(ku - kumin));
            bool m = d->mask[(size_t)y * d->w + x];
            if (fu > in && fu < g->pu - in && fv > in && fv < g->pv - in) {
                a[0] += 1;
                a[1] += m;
            }
            if (m) {
                a[2] += 1;
                a[3] += fu;
                a[4] += fv;
            }
        }
    const double inside = (g->pu - 2 * in) * (g->pv - 2 * in) * d->ppm * d->ppm;
    for (int kv = kvmin; kv <= kvmax; kv++)
        for (int ku = kumin; ku <= kumax && n < VIS_CARDS_MAX; ku++) {
            const double *a = acc + 5 * ((size_t)(kv - kvmin) * nu + (size_t)(ku - kumin));
            bool open = false;
            if (a[0] < cd__rd.on_view * inside)
                continue;
            if (a[1] < cd__rd.fill * a[0]) {
                if (!d->pale || a[1] < cd__rd.fill_pale * a[0])
                    continue;
                open = true;
            }
            double cu = 0.5 * g->pu, cv = 0.5 * g->pv;
            if (a[2] > 0) {
                double mu = a[3] / a[2], mv = a[4] / a[2];
                cu = fabs(mu - cu) < cd__rd.nudge_mm ? mu : cu;
                cv = fabs(mv - cv) < cd__rd.nudge_mm ? mv : cv;
            }
            double u = g->phu + ku * g->pu + cu, v = g->phv + kv * g->pv + cv;
            cd__cell *k = &cells[n++];
            k->ku = ku;
            k->kv = kv;
            k->x = u * ca - v * sa;
            k->y = u * sa + v * ca;
            k->open = open;
            cd__refine(c, top, vw, &k->x, &k->y, g->ang, cd__rd.win_mm, NULL);
        }
    free(acc);
    return n;
}

/* The most probable and the runner-up of p[0..n) into *best, *second,
 * and the best's probability. */
static float cd__top2(const double *p, int n, int *best, int *second)
{
    int b = 0, s = -1;
    for (int i = 1; i < n; i++)
        if (p[i] > p[b])
            b = i;
    for (int i = 0; i < n; i++)
        if (i != b && (s < 0 || p[i] > p[s]))
            s = i;
    *best = b;
    *second = s;
    return (float)p[b];
}

/* One head's probabilities from the card's two patches (pa, pb: the card
 * one way up and the other): a card shows its index to one of them or to
 * both alike, so their log-probabilities are averaged (a geometric mean,
 * renormalised) and neither view's certainty is counted twice. */
static void cd__combine(const float *pa, const float *pb, int n, double *q)
{
    double sum = 0, mx = -HUGE_VAL;
    for (int i = 0; i < n; i++) {
        q[i] = 0.5 * (log(fmax(pa[i], cd__rd.floor_p)) + log(fmax(pb[i], cd__rd.floor_p)));
        mx = fmax(mx, q[i]);
    }
    for (int i = 0; i < n; i++)
        sum += (q[i] = exp(q[i] - mx));
    for (int i = 0; i < n; i++)
        q[i] /= sum;
}

/* Cuts cells[0..n) both ways up and classifies them in one pass into
 * c->probs; idx[0..*ncut) gets the cells cut (one the camera sees
 * edge-on is not). */
static int cd__classify(vis_cards *c, const vis_image *top, const vis_view *vw, double deg,
                        const cd__cell *cells, int n, int *idx, int *ncut, base_err *err)
{
    const vis_image *src = vw->frame ? vw->frame : top;
    const vis_homography hm = vw->frame ? vw->frame_h : vis_cards_view_map(vw);
    int rc = 0, m = 0;
    for (int k = 0; k < n && rc == 0; k++) {
        rc = vis_cards_corners(src, hm, cells[k].x, cells[k].y, deg, c->cw, c->ch,
                               &c->patch[2 * m], err);
        if (rc == 0 && (rc = vis_cards_corners(src, hm, cells[k].x, cells[k].y, deg + 180, c->cw,
                                               c->ch, &c->patch[2 * m + 1], err)) != 0) {
            vis_image_free(c->patch[2 * m]);
            c->patch[2 * m] = NULL;
        }
        if (rc == BASE_ERANGE) {
            rc = 0; /* a cell the camera sees edge-on: not read */
            continue;
        }
        if (rc == 0)
            idx[m++] = k;
    }
    if (rc == 0 && m > 0)
        rc = vis_classifier_run(c->model, (const vis_image *const *)c->patch, 2 * m, c->probs,
                                err);
    for (int i = 0; i < 2 * m; i++) {
        vis_image_free(c->patch[i]);
        c->patch[i] = NULL;
    }
    *ncut = m;
    return rc;
}

/* The card at cell k from its two patches' probabilities pa, pb into o;
 * false when the cell shows the table (or, open, no sure card). */
static bool cd__judge(const cd__cell *k, const float *pa, const float *pb, vis_card *o)
{
    double qr[CD__NRANK], qs[CD__NSUIT], qf[CD__NFACE];
    int r1, r2, s1, s2, f1, f2;
    cd__combine(pa, pb, CD__NRANK, qr);
    cd__combine(pa + CD__NRANK, pb + CD__NRANK, CD__NSUIT, qs);
    cd__combine(pa + CD__NRANK + CD__NSUIT, pb + CD__NRANK + CD__NSUIT, CD__NFACE, qf);
    float fc = cd__top2(qf, CD__NFACE, &f1, &f2);
    if (f1 == CD__FACE_TABLE || (k->open && fc < cd__rd.sure_pale))
        return false;
    memset(o, 0, sizeof *o);
    o->gx = k->ku;
    o->gy = k->kv;
    o->x_mm = k->x;
    o->y_mm = k->y;
    o->rank2 = o->suit2 = -1;
    if (f1 == CD__FACE_DOWN) {
        o->face_down = true;
        o->suit = -1;
        o->conf = fc;
        return true;
    }
    o->rank_conf = cd__top2(qr, CD__NRANK, &r1, &r2);
    o->suit_conf = cd__top2(qs, CD__NSUIT, &s1, &s2);
    o->rank_p2 = (float)qr[r2];
    o->suit_p2 = (float)qs[s2];
    o->rank = r1 + 1;
    o->rank2 = r2 + 1;
    o->suit = s1;
    o->suit2 = s2;
    o->conf = fminf(fc, fminf(o->rank_conf, o->suit_conf));
    return true;
}

/* Reads the cells of grid g over the view (its det d) into out: every
 * filled cell's two patches classified in one pass, the table left out. */
static int cd__read_cells(vis_cards *c, const vis_image *top, const vis_view *vw,
                          const cd__det *d, const cd__grid *g, vis_cards_reading *out,
                          base_err *err)
{
    cd__cell cells[VIS_CARDS_MAX];
    const double deg = g->ang * 180 / CD__PI;
    const int nval = vis_classifier_nvalues(c->model);
    int n, rc, ncut = 0, idx[VIS_CARDS_MAX];
    out->grid_angle_deg = deg;
    out->phase_x_mm = g->phu;
    out->phase_y_mm = g->phv;
    n = cd__cells(c, top, vw, d, g, cells, err);
    if (n <= 0)
        return n;
    if ((rc = cd__classify(c, top, vw, deg, cells, n, idx, &ncut, err)) != 0)
        return rc;
    for (int j = 0; j < ncut; j++) {
        const float *pa = c->probs + (size_t)(2 * j) * nval;
        if (cd__judge(&cells[idx[j]], pa, pa + nval, &out->cards[out->ncards]))
            out->ncards++;
    }
    cd__one_deck(out);
    for (int i = 0; i < out->ncards; i++)
        for (int j = i + 1; j < out->ncards; j++) {
            vis_card *a = &out->cards[i], *b = &out->cards[j];
            if (!a->face_down && !b->face_down && a->rank == b->rank && a->suit == b->suit)
                a->duplicate = b->duplicate = true;
        }
    for (int i = 0; i < out->ncards; i++)
        out->nduplicates += out->cards[i].duplicate;
    return 0;
}

/* Face-up cards read surely (conf CD__SURE or more). */
static int cd__nsure(const vis_cards_reading *out)
{
    int n = 0;
    for (int i = 0; i < out->ncards; i++)
        n += !out->cards[i].face_down && out->cards[i].conf >= CD__SURE;
    return n;
}

/* Face-up cards. */
static int cd__nup(const vis_cards_reading *out)
{
    int n = 0;
    for (int i = 0; i < out->ncards; i++)
        n += !out->cards[i].face_down;
    return n;
}

/* The grid on the last sure reading's angle, for a view with a face-up
 * card read unsure on a grid over a degree off it: glare run into the
 * cards' silhouette, or a lone card's few outline pixels, turn the fitted
 * angle by a few degrees off the cards', and the corner cuts then miss
 * part of an index.  The cells are read again on that angle, and the
 * reading kept when it has more sure cards and no fewer cards, its grid
 * in *g.  (Angles tried at random turns were kept for the wrong reason
 * as often as for the right one: a misread card read surely.) */
static int cd__reread(vis_cards *c, const vis_image *top, const vis_view *vw, const cd__det *d,
                      cd__grid *g, vis_cards_reading *out, base_err *err)
{
    vis_cards_reading *o2;
    cd__grid g2;
    int rc;
    if (!c->angle_sure || !(fabs(remainder(g->ang - c->last_angle, CD__PI / 2)) > CD__PI / 180))
        return 0;
    cd__grid_fit(c, d, &g2, c->last_angle);
    if (!g2.ok)
        return 0;
    if (!(o2 = calloc(1, sizeof *o2)))
        return base_err_set(err, BASE_ENOMEM, "vis_cards_read: out of memory");
    o2->hand = out->hand;
    o2->pitch_x_mm = out->pitch_x_mm;
    o2->pitch_y_mm = out->pitch_y_mm;
    rc = cd__read_cells(c, top, vw, d, &g2, o2, err);
    if (rc == 0 && o2->ncards >= out->ncards && cd__nsure(o2) > cd__nsure(out)) {
        memcpy(out, o2, sizeof *out);
        *g = g2;
    }
    free(o2);
    return rc;
}

static int cd__read_view(vis_cards *c, const vis_image *top, const vis_view *vw,
                         vis_cards_reading *out, base_err *err)
{
    cd__det d;
    cd__grid g;
    double box[4];
    int rc;
    if (!c || !out)
        return base_err_set(err, BASE_EINVAL, "vis_cards_read: NULL handle or output");
    if ((rc = cd__check(top, vw, "vis_cards_read", err)) != 0)
        return rc;
    if (vw->frame && vw->frame->channels != 3)
        return base_err_set(err, BASE_EINVAL, "vis_cards_read: the view's frame is not colour");
    memset(out, 0, sizeof *out);
    /* (a hand the survey saw over the cards is this view's) */
    out->hand = c->survey_hand;
    c->survey_hand = false;
    out->pitch_x_mm = c->cw;
    out->pitch_y_mm = c->ch;
    if ((rc = cd__det_make(top, vw, &d, err)) != 0)
        return rc;
    cd__mask(c, &d, vw, false);
    cd__glare_apply(c, &d);
    cd__open(&d, true);
    /* (only the read fits a grid, so only it asks whose outline it is) */
    d.soft = cd__soft(&d);
    if (!cd__some_cards(c, &d, box)) {
        cd__det_free(&d);
        return 0;
    }
    cd__grid_fit(c, &d, &g, NAN);
    if (g.ok)
        rc = cd__read_cells(c, top, vw, &d, &g, out, err);
    if (rc == 0 && g.ok && !out->hand && cd__nsure(out) < cd__nup(out))
        rc = cd__reread(c, top, vw, &d, &g, out, err);
    cd__det_free(&d);
    if (rc != 0 || !g.ok)
        return rc;
    /* The grid's axes are kept for the next reading from a reading to
     * trust: no hand over the cards, and a face-up card read surely.  A
     * hand, or a view of junk (a blank sheet, glare), may turn the grid by
     * 90 degrees; kept, it would turn every later grid by 180 (the next
     * fit takes the nearest of the four ways to it).  Until a reading is
     * sure, one without a hand is kept all the same. */
    bool sure = cd__nsure(out) > 0;
    if (!out->hand && (sure || !c->angle_sure)) {
        c->have_angle = true;
        c->angle_sure = sure;
        c->last_angle = g.ang;
    }
    return 0;
}

/* ---- memory: the same card in frame after frame ----
 *
 * The cards of a table stay where they are laid, and the camera sees each
 * of them in frame after frame: where one frame's close call goes wrong
 * (a spade's and a club's index symbols blurred alike, a crown's gold
 * under the sensor's noise), other frames read the same card right, and
 * more surely.  Each card read is remembered by where its centre lies on
 * the table, with each rank's and each suit's weight of evidence: the
 * log-odds of the confs the part was read with (a part read at 0.5 or
 * less is no evidence for it), the older ones fading by CD__MEM_FADE a
 * frame.  A part (the rank or the suit) read less surely than
 * CD__MEM_SURE takes another value when the remembered evidence for it is
 * at least CD__MEM_MIN (a read at 0.69 or more, or several weaker ones)
 * and beats the evidence for the frame's own call plus the frame's vote,
 * and no other card in the view reads what it would become (one deck);
 * its conf is then no more than the frame's doubt in its own call
 * (1 - conf) nor the evidence's odds, and the frame's call is the
 * runner-up.  A part the frame could not read at all is taken from the
 * memory alike.  Only one part moves: a card read with both its rank and
 * its suit other than the remembered ones is another card (a Cube was
 * taken and its gap filled) and starts afresh, as does a face-down one.
 * What the frame itself read is what is remembered (the memory's choice
 * would vote for itself), and nothing while a hand is over the cards; a
 * remembered card the frame does not read (with no hand) is forgotten.
 * The same scheme as the Qwirkle reader's (qw__remember). */
#define CD__MEM_FADE 0.8
#define CD__MEM_SURE 0.9
#define CD__MEM_MIN 0.8

/* The value in lo..hi-1 whose evidence w beats own's plus its vote v by
 * the memory's rule, the strongest; -1 when none (own < 0: a part the
 * frame did not read). */
static int cd__recall(const double *w, int lo, int hi, int own, double v)
{
    int best = -1;
    for (int i = lo; i < hi; i++)
        if (i != own && w[i] >= CD__MEM_MIN && (own < 0 || w[i] > w[own] + v) &&
            (best < 0 || w[i] > w[best]))
            best = i;
    return best;
}

/* Card k of the frame's reading out, against and into the memory. */
static void cd__remember(vis_cards *c, vis_cards_reading *out, vis_card *k)
{
    double wr[14], ws[4];
    int at = vis__recall_near(c->mem, c->nmem, sizeof *c->mem, k->x_mm, k->y_mm, 0.3 * c->cw);
    cd__mem *m = at >= 0 ? &c->mem[at] : NULL;
    if (!m) {
        if (c->nmem >= VIS_CARDS_MAX)
            return;
        m = &c->mem[c->nmem++];
        memset(m, 0, sizeof *m);
    }
    m->at.x = k->x_mm;
    m->at.y = k->y_mm;
    m->at.seen = true;
    int br = 1, bs = 0;
    for (int r = 0; r < 14; r++)
        wr[r] = CD__MEM_FADE * m->wr[r];
    for (int s = 0; s < 4; s++)
        ws[s] = CD__MEM_FADE * m->ws[s];
    for (int r = 1; r < 14; r++)
        br = wr[r] > wr[br] ? r : br;
    for (int s = 0; s < 4; s++)
        bs = ws[s] > ws[bs] ? s : bs;
    if (k->face_down || (k->rank > 0 && k->suit >= 0 && wr[br] > 0 && br != k->rank &&
                         ws[bs] > 0 && bs != k->suit)) {
        /* another card: afresh */
        memset(wr, 0, sizeof wr);
        memset(ws, 0, sizeof ws);
    }
    const int rank = k->rank, suit = k->suit;
    const double vr = rank > 0 ? vis__vote(k->rank_conf) : 0;
    const double vs = suit >= 0 ? vis__vote(k->suit_conf) : 0;
    if (!out->hand) {
        for (int r = 0; r < 14; r++)
            m->wr[r] = (float)wr[r];
        for (int s = 0; s < 4; s++)
            m->ws[s] = (float)ws[s];
        if (rank > 0)
            m->wr[rank] += (float)vr;
        if (suit >= 0)
            m->ws[suit] += (float)vs;
    }
    if (k->face_down || (rank <= 0 && suit < 0))
        return;
    int nr = rank > 0 && k->rank_conf >= CD__MEM_SURE ? -1 : cd__recall(wr, 1, 14, rank, vr);
    int ns = suit >= 0 && k->suit_conf >= CD__MEM_SURE ? -1 : cd__recall(ws, 0, 4, suit, vs);
    if (nr > 0 && suit >= 0 && !cd__reads(out, nr, suit)) {
        k->rank_conf = (float)vis__recall_conf(rank > 0, k->rank_conf,
                                               wr[nr] - (rank > 0 ? wr[rank] + vr : 0));
        k->rank2 = rank > 0 ? rank : k->rank2;
        k->rank = nr;
        k->rank_p2 = 0;
    } else if (ns >= 0 && k->rank > 0 && !cd__reads(out, k->rank, ns)) {
        k->suit_conf = (float)vis__recall_conf(suit >= 0, k->suit_conf,
                                               ws[ns] - (suit >= 0 ? ws[suit] + vs : 0));
        k->suit2 = suit >= 0 ? suit : k->suit2;
        k->suit = ns;
        k->suit_p2 = 0;
    } else {
        return;
    }
    k->conf = k->rank_conf < k->suit_conf ? k->rank_conf : k->suit_conf;
}

int vis_cards_read(vis_cards *c, const vis_image *top, const vis_view *vw, vis_cards_reading *out,
                   base_err *err)
{
    int rc = cd__read_view(c, top, vw, out, err);
    if (rc != 0)
        return rc;
    /* Cells are numbered in the mat's frame (FORMATS.md 1 and 4): the
     * grid's x axis runs the way of the mat's x (toward marker 1), within
     * a quarter turn, not against it.  A card's outline is the same turned
     * half round, so the fit may take either way; the one against is
     * turned here, cell k becoming -k - 1 with the corner's phase negated
     * (the fit keeps its own way for the next frame). */
    if (fabs(remainder(out->grid_angle_deg, 360.0)) > 90.0) {
        for (int i = 0; i < out->ncards; i++) {
            out->cards[i].gx = -out->cards[i].gx - 1;
            out->cards[i].gy = -out->cards[i].gy - 1;
        }
        out->grid_angle_deg = remainder(out->grid_angle_deg + 180.0, 360.0);
        out->phase_x_mm = -out->phase_x_mm;
        out->phase_y_mm = -out->phase_y_mm;
    }
    for (int i = 0; i < out->ncards; i++)
        cd__remember(c, out, &out->cards[i]);
    c->nmem = vis__forget(c->mem, c->nmem, sizeof *c->mem, out->hand);
    return 0;
}

/* Whether pixel p (B G R) is the mat m (its model's colour there, as
 * bright as p) under a sheen: a light's reflection on a glossy mat
 * replaces part of its colour with white (p = a m + b, a well below 1,
 * b > 0).  A lamp's reflection spread over a corner of a vinyl mat read
 * as another hue, and a still table as a hand for a whole match (sim
 * seed 801: a = 0.5).  Skin on a green or blue mat is not on that line
 * (red well above it), nor a dark sleeve; skin on a wooden mat is, but
 * as the wood's colour almost whole (a near 1). */
static bool cd__mat_lit(const unsigned char *p, const double *m)
{
    double a, b;
    return vis__light_fit(p, m, -1e9, &a, &b) < 12 && a >= 0.35 && a <= 0.85 && b > 0;
}

/* A hand or arm over the table: a region of the silhouettes that crosses
 * the play area's edge (players reach in from outside) and holds more
 * than a card and a half of pixels that are not card stock (skin, a
 * sleeve: another hue than the mat or darker, and not bright near-neutral
 * paper) nor the mat lit or shaded (cd__mat_lit).  Cards at the edge
 * are mostly paper; one face-down card's back is less than that area. */
static void cd__hand(const vis_cards *c, cd__det *d, const vis_view *vw, vis_survey *out)
{
    int w = d->w, h = d->h, nr = 0;
    int *stack = malloc(sizeof *stack * (2 * (size_t)w * h + 4));
    cd__run *runs = malloc(sizeof *runs * ((size_t)h * (w + 1) / 2 + 1));
    unsigned char *seen = calloc((size_t)w * h, 1);
    double px2 = 1 / (d->ppm * d->ppm), min_mm2 = 1.5 * c->cw * c->ch;
    if (!stack || !runs || !seen) {
        free(stack);
        free(runs);
        free(seen);
        return;
    }
    for (int i0 = 0; i0 < w * h; i0++) {
        if (cd__zero8(d->mask, i0, w * h)) {
            i0 += 7;
            continue;
        }
        if (!d->mask[i0] || seen[i0])
            continue;
        int nforeign = 0;
        bool edge = false;
        nr = 0;
        cd__region(d->mask, 1, w, h, i0, seen, 1, stack, runs, &nr);
        for (int r = 0; r < nr; r++) {
            int y = runs[r].y;
            double ty = d->ty[y];
            for (int x = runs[r].x0; x <= runs[r].x1; x++) {
                int k = y * w + x;
                double tx = d->tx[x];
                if (tx < 2 || ty < 2 || tx > vw->mat_w - 2 || ty > vw->mat_h - 2)
                    edge = true;
                if (d->ink[k] && d->ex) {
                    /* paper is "ink" on a coloured mat (another hue): bright
                     * and near-neutral pixels are card stock, not foreign */
                    const unsigned char *p = d->rgb + (size_t)k * 3;
                    double br = p[0] + p[1] + p[2], inv = 1 / (br > 30 ? br : 30);
                    double neu = fabs(p[0] * inv - 1.0 / 3) + fabs(p[1] * inv - 1.0 / 3) +
                                 fabs(p[2] * inv - 1.0 / 3);
                    if (d->ex[k] > d->tb && neu * 765 < 70)
                        continue;
                    /* the mat's colour where its model is that bright
                     * (the model's brightness follows a broad sheen) */
                    double model = br - d->ex[k], sc = model / c->mat.c0;
                    double m[3] = {c->mat.rgb[0] * sc, c->mat.rgb[1] * sc, c->mat.rgb[2] * sc};
                    /* (on the line from it to white the mat is lit,
                     * however much brighter than its model: a lamp's
                     * glare on wood, a third brighter, was counted by its
                     * brightness alone and read as a hand, sim seed
                     * 1100011; skin is off the line, or on wood near its
                     * end, a = 1: see cd__mat_lit.  Much darker than the
                     * model it is a hand's shadow or a dark sleeve, and
                     * counts, on the line or not: sim seed 930501.) */
                    nforeign += br < 0.85 * model || !cd__mat_lit(p, m);
                }
            }
        }
        if (!edge)
            continue;
        if (nforeign * px2 > out->hand_mm2)
            out->hand_mm2 = nforeign * px2;
        if (nforeign * px2 > min_mm2)
            out->hand = true;
    }
    free(stack);
    free(runs);
    free(seen);
}

int vis_cards_survey(vis_cards *c, const vis_image *top, const vis_view *vw, vis_survey *out,
                     base_err *err)
{
    cd__det d;
    int rc;
    if (!c || !out)
        return base_err_set(err, BASE_EINVAL, "vis_cards_survey: NULL handle or output");
    if ((rc = cd__check(top, vw, "vis_cards_survey", err)) != 0)
        return rc;
    memset(out, 0, sizeof *out);
    if ((rc = cd__det_make(top, vw, &d, err)) != 0)
        return rc;
    cd__mask(c, &d, vw, true);
    /* (the box of the cards needs no filled holes) */
    cd__open(&d, false);
    double box[4];
    bool some = cd__some_cards(c, &d, box);
    cd__hand(c, &d, vw, out);
    c->survey_hand = out->hand;
    free(c->glare);
    c->glare = d.glared;
    d.glared = NULL;
    c->glare_w = d.w;
    c->glare_h = d.h;
    c->glare_x0 = d.x0;
    c->glare_y0 = d.y0;
    c->glare_ppm = d.ppm;
    if (some) {
        out->ncandidates = (int)(d.nmask / (c->cw * c->ch * d.ppm * d.ppm) + 0.5);
        if (out->ncandidates < 1)
            out->ncandidates = 1;
        out->x0_mm = box[0];
        out->y0_mm = box[1];
        out->x1_mm = box[2];
        out->y1_mm = box[3];
    }
    cd__det_free(&d);
    return 0;
}

