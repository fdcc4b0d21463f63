/* tests/test_vision_cards.c: the playing-card recogniser (vision/cards.h)
 * on synthetic top-down views built from real decks' faces and backs (the
 * simulator's textures, sim__cd_deck_render, warped onto a mat here).
 * Simulated camera frames: tests/test_vision_cards_sim.c.
 *
 * Identity, read by the learned classifier (models/cards.onnx):
 *   one card; eight cards of each of six decks (drawn-classic,
 *   drawn-four-colour, kde-standard, kde-dondorf, svg-bookman-2c-large,
 *   svg-nimbus-roman-2c-small-4corner); a 7 and a 9 turned upside down
 *   read the same (the decks with the rank at the top right, kde-oxygen
 *   and its kin, misread: docs/vision-cards.md, Known weaknesses); a face-down card (the
 *   back of three decks) is face down, not the table; the same card twice
 *   (both flagged, the less sure moved to its runner-up); card-sized
 *   patches of a pale mat, brighter or darker, are the table; so are an
 *   empty cell enclosed by cards, granite's specks and a warm glow.
 * Models: vis_cards_use_model with a model that is not a cards model
 *   (BASE_EINVAL, the handle still reads), with a missing file
 *   (BASE_ENOTFOUND), with the shipped file itself (reads the same).
 * Detection and geometry (counts, cells, positions, the grid's angle):
 *   an empty view, a block of four touching cards, a rotated board, a pale
 *   mat beside glare, a pair on a pale mat with no seam, a black mat, lit
 *   felt, a speckled granite table, a warm glow, a glow on a black mat, a
 *   column on a white mat seen by its long sides, a hand reaching in (and
 *   cards at the edge that are none).
 * Across frames: the grid's axes kept only from a reading to trust; the
 *   memory of the cards read at a place (cd__remember).
 * Bad input: NULL arguments, a grey view or frame, a bad px_per_mm or mat,
 *   a card size out of range, a card smaller than its corners.
 *
 * Every identity check wants conf over SURE: the cards are clean renders
 * at 3 px/mm, sharper and plainer than the camera frames the model was
 * trained on (models/train_cards.py). */
#define _XOPEN_SOURCE 700
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cards.h"
#include "sim.h"
#include "sim_internal.h" /* the decks' textures (sim/cards_decks.c) */
#include "harness.h"

#define PPM 3.0 /* the view's pixels a mm: the reader is best at 2..3 */
#define X0 100.0
#define Y0 100.0
#define VIEW_MM 300.0
#define CW SIM__CD_W /* a poker card, 63 x 88 mm: the grid's pitch too */
#define CH SIM__CD_H
/* a card is found within this of where it was laid: the reader moves its
 * cell's centre onto the card's outline, seen at a pixel a mm */
#define POS_MM 4.0
/* how sure a clean card is read (cards.c's CD__SURE: a reading to trust) */
#define SURE 0.5f
/* the blur of a sharp camera, px (the old drawn views' too) */
#define SHARP 1.2

enum { SP, HE, DI, CL }; /* rules/' suit order */
#define BACK 0           /* rank 0: the card lies face down */

static const char *const rank_name[14] = {"?", "A", "2", "3", "4",  "5", "6",
                                          "7", "8", "9", "10", "J", "Q", "K"};
static const char suit_name[] = "SHDC";

/* ---- real decks on a synthetic mat ---- */

static sim__cd_deck *decks[SIM__CD_NDECKS];

/* The design number of the deck id ("kde-standard"). */
static int design(const char *id)
{
    for (int d = 0; d < sim_designs("cards"); d++)
        if (strcmp(sim_design_name("cards", d), id) == 0)
            return d;
    fail_msg("no deck %s", id);
    return -1;
}

/* The texture of rank (1..13) of suit of deck d, or its back (BACK):
 * SIM__CD_TEX_W x SIM__CD_TEX_H, SIM__CD_PX pixels a mm, its top row the
 * card's top edge. */
static vis_image *texture(int d, int rank, int suit)
{
    vis_image *t = NULL;
    base_err e;
    if (!decks[d] && sim__cd_deck_open(d, &decks[d], &e) != 0)
        fail_msg("%s", e.msg);
    if (sim__cd_deck_render(decks[d], rank == BACK ? SIM__CD_BACK : suit * 13 + rank - 1, &t, &e))
        fail_msg("%s", e.msg);
    return t;
}

static int close_decks(void **state)
{
    (void)state;
    for (int d = 0; d < SIM__CD_NDECKS; d++) {
        sim__cd_deck_close(decks[d]);
        decks[d] = NULL;
    }
    return 0;
}

static vis_point to_px(double x, double y)
{
    return (vis_point){(x - X0) * PPM - 0.5, (y - Y0) * PPM - 0.5};
}

static vis_view view_of(void)
{
    vis_view v;
    memset(&v, 0, sizeof v);
    v.px_per_mm = PPM;
    v.mat_w = v.mat_h = 500;
    v.marker_mm = 40;
    v.gain[0] = v.gain[1] = v.gain[2] = 1;
    v.roi = true;
    v.x0_mm = X0;
    v.y0_mm = Y0;
    return v;
}

static vis_image *new_view_of(vis_color mat)
{
    vis_image *img = NULL;
    assert_int_equal(vis_image_new((int)(VIEW_MM * PPM), (int)(VIEW_MM * PPM), 3, &img, NULL), 0);
    vis_image_fill(img, mat, NULL);
    return img;
}

static vis_image *new_view(void) { return new_view_of(vis_rgb(50, 110, 60)); /* green felt */ }

/* Lays texture t on the view, the card's centre at (cx, cy) table mm, its
 * short side (the texture's x) ang_deg from the table's x toward its y. */
static void put_texture(vis_image *img, const vis_image *t, double cx, double cy, double ang_deg)
{
    const double a = ang_deg * M_PI / 180, ca = cos(a), sa = sin(a), k = PPM / SIM__CD_PX;
    /* texture pixel (i, j) lies (i + 0.5) / SIM__CD_PX mm from the card's left edge */
    const double u0 = 0.5 / SIM__CD_PX - CW / 2, v0 = 0.5 / SIM__CD_PX - CH / 2;
    vis_homography h = {{k * ca, -k * sa, PPM * (cx - X0 + ca * u0 - sa * v0) - 0.5, k * sa,
                         k * ca, PPM * (cy - Y0 + sa * u0 + ca * v0) - 0.5, 0, 0, 1}};
    assert_int_equal(vis_warp_perspective_onto(t, h, img, VIS_INTER_LINEAR, NULL), 0);
}

/* Lays rank of suit of deck d (or its back) on the view. */
static void put_card(vis_image *img, int d, int rank, int suit, double cx, double cy,
                     double ang_deg)
{
    vis_image *t = texture(d, rank, suit);
    put_texture(img, t, cx, cy, ang_deg);
    vis_image_free(t);
}

/* Reads the view blurred by sigma_px (a camera's blur) with a fresh
 * handle; surveyed first, as the referee does, when sv is not NULL. */
static vis_cards_reading *survey_and_read(const vis_image *img, double sigma_px, vis_survey *sv)
{
    vis_image *soft = NULL;
    vis_cards *c = NULL;
    vis_view v = view_of();
    vis_cards_reading *r = malloc(sizeof *r);
    base_err e;
    assert_non_null(r);
    assert_int_equal(vis_gaussian_blur(img, 0, sigma_px, &soft, NULL), 0);
    assert_int_equal(vis_cards_new(0, 0, &c, &e), 0);
    if (sv)
        assert_int_equal(vis_cards_survey(c, soft, &v, sv, &e), 0);
    assert_int_equal(vis_cards_read(c, soft, &v, r, &e), 0);
    vis_cards_free(c);
    vis_image_free(soft);
    return r;
}

static vis_cards_reading *read_view_blur(const vis_image *img, double sigma_px)
{
    return survey_and_read(img, sigma_px, NULL);
}

static vis_cards_reading *read_view(const vis_image *img) { return read_view_blur(img, SHARP); }

/* The same with handle c, which remembers the frames before. */
static void read_with(vis_cards *c, const vis_image *img, vis_cards_reading *r)
{
    vis_image *soft = NULL;
    vis_view v = view_of();
    base_err e;
    assert_int_equal(vis_gaussian_blur(img, 0, SHARP, &soft, NULL), 0);
    assert_int_equal(vis_cards_read(c, soft, &v, r, &e), 0);
    vis_image_free(soft);
}

static const vis_card *card_near(const vis_cards_reading *r, double x, double y, double tol)
{
    for (int i = 0; i < r->ncards; i++)
        if (hypot(r->cards[i].x_mm - x, r->cards[i].y_mm - y) < tol)
            return &r->cards[i];
    return NULL;
}

/* Whether the card read within tol of (x, y) is rank of suit, face up,
 * read surely; if not, says what was read (what names the deck or the
 * case).  *out: the card, or NULL when none is there. */
static bool card_ok(const vis_cards_reading *r, const char *what, double x, double y, double tol,
                    int rank, int suit, const vis_card **out)
{
    const vis_card *k = card_near(r, x, y, tol);
    *out = k;
    if (!k) {
        print_error("%s: no card at %.0f, %.0f mm (%d read)\n", what, x, y, r->ncards);
        return false;
    }
    if (k->face_down || k->rank != rank || k->suit != suit || !(k->conf > SURE)) {
        print_error("%s: the %s%c read as %s%c%s, conf %.2f (rank %.2f, suit %.2f; runner-up "
                    "%s%c)\n",
                    what, rank_name[rank], suit_name[suit],
                    rank_name[k->rank >= 0 && k->rank <= 13 ? k->rank : 0],
                    k->suit >= 0 && k->suit < 4 ? suit_name[k->suit] : '?',
                    k->face_down ? " face down" : "", (double)k->conf, (double)k->rank_conf,
                    (double)k->suit_conf,
                    rank_name[k->rank2 >= 0 && k->rank2 <= 13 ? k->rank2 : 0],
                    k->suit2 >= 0 && k->suit2 < 4 ? suit_name[k->suit2] : '?');
        return false;
    }
    return true;
}

/* The card read within tol of (x, y), which must be rank of suit, face
 * up, read surely. */
static const vis_card *expect_card_tol(const vis_cards_reading *r, const char *what, double x,
                                       double y, double tol, int rank, int suit)
{
    const vis_card *k;
    if (!card_ok(r, what, x, y, tol, rank, suit, &k))
        fail();
    return k;
}

static const vis_card *expect_card(const vis_cards_reading *r, const char *what, double x,
                                   double y, int rank, int suit)
{
    return expect_card_tol(r, what, x, y, POS_MM, rank, suit);
}

/* The card at (x, y) is face down, and reported as such. */
static const vis_card *expect_back(const vis_cards_reading *r, const char *what, double x,
                                   double y)
{
    const vis_card *k = card_near(r, x, y, POS_MM);
    if (!k)
        fail_msg("%s: the back at %.0f, %.0f mm not reported (%d read)", what, x, y, r->ncards);
    if (!k->face_down)
        fail_msg("%s: the back read face up as %s%c, conf %.2f", what,
                 rank_name[k->rank >= 0 && k->rank <= 13 ? k->rank : 0],
                 k->suit >= 0 && k->suit < 4 ? suit_name[k->suit] : '?', (double)k->conf);
    assert_int_equal(k->rank, 0);
    assert_int_equal(k->suit, -1);
    assert_false(k->duplicate);
    return k;
}

/* ---- identity ---- */

static void test_empty(void **state)
{
    (void)state;
    vis_image *img = new_view();
    vis_cards_reading *r = read_view(img);
    assert_int_equal(r->ncards, 0);
    assert_false(r->hand);
    free(r);
    vis_image_free(img);
}

static void test_one_card(void **state)
{
    (void)state;
    vis_image *img = new_view();
    put_card(img, design("drawn-classic"), 5, DI, 250, 240, 0);
    vis_cards_reading *r = read_view(img);
    assert_int_equal(r->ncards, 1);
    const vis_card *k = expect_card(r, "drawn-classic", 250, 240, 5, DI);
    assert_false(k->duplicate);
    assert_int_equal(r->nduplicates, 0);
    assert_false(r->hand);
    /* the runner-ups: another rank, another suit; the whole no surer
     * than its parts */
    assert_true(k->rank2 >= 1 && k->rank2 <= 13 && k->rank2 != 5);
    assert_true(k->suit2 >= 0 && k->suit2 <= 3 && k->suit2 != DI);
    assert_true(k->conf <= k->rank_conf && k->conf <= k->suit_conf);
    free(r);
    vis_image_free(img);
}

/* Eight cards of each deck, two rows of four touching: every suit twice,
 * an ace, a 10 and the three courts among them; the four-corner deck has
 * an index in every corner. */
static void test_decks(void **state)
{
    (void)state;
    static const char *const ids[] = {"drawn-classic", "drawn-four-colour", "kde-standard",
                                      "kde-dondorf", "svg-bookman-2c-large",
                                      "svg-nimbus-roman-2c-small-4corner"};
    static const int cards[2][4][2] = {{{1, SP}, {10, HE}, {12, DI}, {7, CL}},
                                       {{13, HE}, {2, DI}, {11, CL}, {9, SP}}};
    int nbad = 0;
    for (size_t k = 0; k < sizeof ids / sizeof ids[0]; k++) {
        vis_image *img = new_view();
        for (int j = 0; j < 2; j++)
            for (int i = 0; i < 4; i++)
                put_card(img, design(ids[k]), cards[j][i][0], cards[j][i][1], 155 + CW * i,
                         180 + CH * j, 0);
        vis_cards_reading *r = read_view(img);
        const vis_card *c;
        for (int j = 0; j < 2; j++)
            for (int i = 0; i < 4; i++)
                nbad += !card_ok(r, ids[k], 155 + CW * i, 180 + CH * j, POS_MM, cards[j][i][0],
                                 cards[j][i][1], &c);
        if (r->ncards != 8) {
            print_error("%s: %d cards read, not 8\n", ids[k], r->ncards);
            nbad++;
        }
        free(r);
        vis_image_free(img);
    }
    /* (every deck tried before failing: the list says which misread) */
    assert_int_equal(nbad, 0);
}

/* A card lies either way up: the 6 and the 9 (each the other turned, but
 * for where their index stands) turned by 180 degrees read the same, and
 * their cells are numbered the same (in the mat's frame). */
static void test_upside_down(void **state)
{
    (void)state;
    static const char *const ids[] = {"drawn-classic", "kde-dondorf"};
    int nbad = 0;
    for (size_t k = 0; k < sizeof ids / sizeof ids[0]; k++) {
        int gx[2][2], gy[2][2];
        for (int turned = 0; turned < 2; turned++) {
            vis_image *img = new_view();
            /* 3 degrees off the table's axes, as a card is laid by hand */
            double ang = 3 + 180 * turned;
            put_card(img, design(ids[k]), 7, HE, 200, 230, ang);
            put_card(img, design(ids[k]), 9, CL, 200 + CW * cos(ang * M_PI / 180),
                     230 + CW * sin(ang * M_PI / 180), ang);
            vis_cards_reading *r = read_view(img);
            char what[64];
            snprintf(what, sizeof what, "%s turned by %.0f degrees", ids[k], ang);
            const vis_card *six, *nine;
            assert_int_equal(r->ncards, 2);
            nbad += !card_ok(r, what, 200, 230, POS_MM, 7, HE, &six);
            nbad += !card_ok(r, what, 200 + CW * cos(ang * M_PI / 180),
                             230 + CW * sin(ang * M_PI / 180), POS_MM, 9, CL, &nine);
            assert_non_null(six);
            assert_non_null(nine);
            /* the grid's angle within a degree and a half of the cards'
             * (its fit is on a pixel-a-mm view), one of the two ways */
            assert_true(fabs(remainder(r->grid_angle_deg - 3, 180)) < 1.5);
            gx[turned][0] = six->gx;
            gy[turned][0] = six->gy;
            gx[turned][1] = nine->gx;
            gy[turned][1] = nine->gy;
            free(r);
            vis_image_free(img);
        }
        /* turned, the 9 lies left of the 6 */
        assert_int_equal(gx[0][1] - gx[0][0], 1);
        assert_int_equal(gx[1][1] - gx[1][0], -1);
        assert_int_equal(gy[0][1], gy[0][0]);
        assert_int_equal(gy[1][1], gy[1][0]);
    }
    assert_int_equal(nbad, 0);
}

static void test_face_down(void **state)
{
    (void)state;
    const int d = design("drawn-classic");
    vis_image *img = new_view();
    put_card(img, d, 4, DI, 200, 220, 0);
    put_card(img, d, BACK, 0, 263, 220, 0);
    vis_cards_reading *r = read_view(img);
    assert_int_equal(r->ncards, 2);
    expect_card(r, "drawn-classic", 200, 220, 4, DI);
    const vis_card *down = expect_back(r, "drawn-classic", 263, 220);
    assert_int_equal(down->rank2, -1);
    assert_int_equal(r->nduplicates, 0);
    free(r);
    vis_image_free(img);
}

/* A back alone, two cells from a face (no outline shared): a region of
 * its own colour, not the table nor a granite mat's flecks (see
 * cd__flecks), for two more decks' backs (a KDE deck's picture, an svg
 * deck's lattice with a paper border). */
static void test_backs_of_decks(void **state)
{
    (void)state;
    static const char *const ids[] = {"kde-standard", "svg-bookman-2c-large"};
    for (size_t k = 0; k < sizeof ids / sizeof ids[0]; k++) {
        vis_image *img = new_view();
        put_card(img, design(ids[k]), 8, SP, 150, 220, 0);
        put_card(img, design(ids[k]), BACK, 0, 150 + 2 * CW, 220, 0);
        vis_cards_reading *r = read_view(img);
        expect_card(r, ids[k], 150, 220, 8, SP);
        expect_back(r, ids[k], 150 + 2 * CW, 220);
        if (r->ncards != 2)
            fail_msg("%s: %d cards read, not 2", ids[k], r->ncards);
        free(r);
        vis_image_free(img);
    }
}

/* The same card twice (one deck: one of them is misread): both flagged;
 * the less sure takes the runner-up of its less sure part (no card in view
 * reads it), with a runner-up's conf (at most 0.5, cd__one_deck), its
 * first reading now its runner-up. */
static void test_duplicate(void **state)
{
    (void)state;
    const int d = design("kde-standard");
    vis_image *img = new_view();
    put_card(img, d, 3, DI, 200, 220, 0);
    put_card(img, d, 6, HE, 263, 220, 0);
    put_card(img, d, 3, DI, 263, 308, 0);
    vis_cards_reading *r = read_view(img);
    assert_int_equal(r->ncards, 3);
    const vis_card *a = card_near(r, 200, 220, POS_MM), *c = card_near(r, 263, 308, POS_MM);
    const vis_card *b = expect_card(r, "kde-standard", 263, 220, 6, HE);
    assert_non_null(a);
    assert_non_null(c);
    assert_true(a->duplicate);
    assert_true(c->duplicate);
    assert_false(b->duplicate);
    assert_int_equal(r->nduplicates, 2);
    bool a_kept = a->rank == 3 && a->suit == DI, c_kept = c->rank == 3 && c->suit == DI;
    assert_true(a_kept != c_kept);
    const vis_card *kept = a_kept ? a : c, *moved = a_kept ? c : a;
    assert_true(kept->conf > SURE);
    if (moved->rank != 3) {
        assert_int_equal(moved->suit, DI);
        assert_int_equal(moved->rank2, 3);
    } else {
        assert_int_not_equal(moved->suit, DI);
        assert_int_equal(moved->suit2, DI);
    }
    assert_true(moved->conf <= 0.5f + 1e-6f);
    free(r);
    vis_image_free(img);
}

/* A lamp's light on a mat of colour base: brighter by amp levels at table
 * (cx, cy) mm, falling off as exp(-(r^2 / 2 s^2)^p) (p = 1: a Gaussian;
 * 2: a flatter top, steeper sides), capped at 255. */
static void light_mat(vis_image *img, vis_color base, double cx, double cy, double amp, double s,
                      int p)
{
    for (int y = 0; y < img->height; y++)
        for (int x = 0; x < img->width; x++) {
            double mx = X0 + (x + 0.5) / PPM, my = Y0 + (y + 0.5) / PPM;
            double t = ((mx - cx) * (mx - cx) + (my - cy) * (my - cy)) / (2 * s * s);
            double g = amp * exp(-(p == 2 ? t * t : t));
            unsigned char *q = img->data + (size_t)y * img->stride + 3 * (size_t)x;
            q[0] = (unsigned char)fmin(255, base.b + g);
            q[1] = (unsigned char)fmin(255, base.g + g);
            q[2] = (unsigned char)fmin(255, base.r + g);
        }
}

/* The outline of a card-sized rectangle centred at (cx, cy), 1 px wide. */
static void outline(vis_image *img, double cx, double cy, vis_color col)
{
    vis_point q[4] = {to_px(cx - CW / 2, cy - CH / 2), to_px(cx + CW / 2, cy - CH / 2),
                      to_px(cx + CW / 2, cy + CH / 2), to_px(cx - CW / 2, cy + CH / 2)};
    vis_draw_polygon(img, q, 4, col, 1, 1, VIS_DRAW_AA, NULL);
}

/* A cell that shows the mat is the table, whatever its outline: on a pale
 * mat, where cards are found by their outlines alone, a card-sized patch
 * of the mat 20 levels brighter with sharp edges (light through a
 * window), or 20 darker (a stain), on the grid beside a card.  Detection
 * takes either cell for a card's (its size, its straight edges); the
 * classifier calls it the table, and it is not reported. */
static void test_bare_patch_not_card(void **state)
{
    (void)state;
    const int d = design("drawn-classic");
    for (int dark = 0; dark < 2; dark++) {
        const char *what = dark ? "a darker patch" : "a brighter patch";
        const unsigned char v = dark ? 176 : 216;
        vis_image *img = new_view_of(vis_rgb(196, 196, 190));
        vis_point q[4] = {to_px(263 - CW / 2, 220 - CH / 2), to_px(263 + CW / 2, 220 - CH / 2),
                          to_px(263 + CW / 2, 220 + CH / 2), to_px(263 - CW / 2, 220 + CH / 2)};
        vis_draw_polygon(img, q, 4, vis_rgb(v, v, v - 6), VIS_FILLED, 1, VIS_DRAW_AA, NULL);
        put_card(img, d, 7, HE, 200, 220, 0);
        vis_cards_reading *r = read_view(img);
        expect_card(r, what, 200, 220, 7, HE);
        const vis_card *k = card_near(r, 263, 220, CW / 2);
        if (k)
            fail_msg("%s: read as a card (face down: %d, %s%c, conf %.2f)", what, k->face_down,
                     rank_name[k->rank > 0 ? k->rank : 0], k->suit >= 0 ? suit_name[k->suit] : '?',
                     (double)k->conf);
        assert_int_equal(r->ncards, 1);
        free(r);
        vis_image_free(img);
    }
}

/* An empty cell with cards laid on all four sides (a gap left by a
 * capture, sim seed 7 at 178 s): the felt it shows is enclosed by the
 * silhouette and filled as print like a pip's hole; its cell is the
 * table, not a back. */
static void test_gap_not_back(void **state)
{
    (void)state;
    static const int cards[3][3][2] = {{{2, SP}, {5, HE}, {3, CL}},
                                       {{7, DI}, {0, 0}, {4, SP}},
                                       {{9, HE}, {10, CL}, {8, DI}}};
    const int d = design("drawn-classic");
    vis_image *img = new_view();
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 3; i++)
            if (cards[j][i][0])
                put_card(img, d, cards[j][i][0], cards[j][i][1], 170 + CW * i, 160 + CH * j, 0);
    vis_cards_reading *r = read_view(img);
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 3; i++) {
            if (cards[j][i][0]) {
                /* the gap's edges pull the outline fit of the cards beside
                 * it along their long side, by up to 5 mm */
                expect_card_tol(r, "around a gap", 170 + CW * i, 160 + CH * j, 6,
                                cards[j][i][0], cards[j][i][1]);
                continue;
            }
            const vis_card *k = card_near(r, 170 + CW * i, 160 + CH * j, CW / 2);
            if (k)
                fail_msg("a card (face down: %d) read in the empty cell", k->face_down);
        }
    assert_int_equal(r->ncards, 8);
    free(r);
    vis_image_free(img);
}

/* ---- models ---- */

/* A view with one card, the 9 of diamonds of kde-standard at (200, 220). */
static vis_image *one_card_view(void)
{
    vis_image *img = new_view();
    put_card(img, design("kde-standard"), 9, DI, 200, 220, 0);
    return img;
}

/* A model that is not a cards model (the Qwirkle-style test model: heads
 * shape and colour, 24-pixel patches) is refused, naming the file, and
 * the handle reads on with the model it had. */
static void test_use_model_not_cards(void **state)
{
    (void)state;
    vis_cards *c = NULL;
    vis_cards_reading *r = malloc(sizeof *r);
    vis_image *img = one_card_view();
    base_err e;
    assert_non_null(r);
    assert_int_equal(vis_cards_new(0, 0, &c, &e), 0);
    const vis_classifier *m = vis_cards_model(c);
    assert_non_null(m);
    assert_int_equal(vis_cards_use_model(c, TABLECAM_TEST_DATA "/classify-test.onnx", &e),
                     BASE_EINVAL);
    assert_non_null(strstr(e.msg, "not a cards model"));
    assert_non_null(strstr(e.msg, "classify-test.onnx"));
    assert_ptr_equal(vis_cards_model(c), m);
    read_with(c, img, r);
    assert_int_equal(r->ncards, 1);
    expect_card(r, "after a refused model", 200, 220, 9, DI);
    vis_cards_free(c);
    vis_image_free(img);
    free(r);
}

/* A missing file: BASE_ENOTFOUND, the model kept; the shipped model's own
 * file (models/cards.onnx, the built-in model) is taken and reads alike. */
static void test_use_model_file(void **state)
{
    (void)state;
    vis_cards *c = NULL;
    vis_cards_reading *r = malloc(sizeof *r);
    vis_image *img = one_card_view();
    base_err e;
    assert_non_null(r);
    assert_int_equal(vis_cards_new(0, 0, &c, &e), 0);
    const vis_classifier *m = vis_cards_model(c);
    assert_int_equal(vis_cards_use_model(c, TABLECAM_TEST_DATA "/no-such-model.onnx", &e),
                     BASE_ENOTFOUND);
    assert_non_null(strstr(e.msg, "no-such-model"));
    assert_ptr_equal(vis_cards_model(c), m);
    assert_int_equal(vis_cards_use_model(c, TABLECAM_SOURCE_DIR "/models/cards.onnx", &e), 0);
    m = vis_cards_model(c);
    assert_non_null(m);
    assert_int_equal(vis_classifier_patch_size(m), VIS_CARDS_PATCH);
    assert_int_equal(vis_classifier_nheads(m), 3);
    assert_string_equal(vis_classifier_head_name(m, 2), "face");
    read_with(c, img, r);
    assert_int_equal(r->ncards, 1);
    expect_card(r, "models/cards.onnx", 200, 220, 9, DI);
    vis_cards_free(c);
    vis_image_free(img);
    free(r);
}

/* ---- detection and geometry ---- */

/* Four touching cards (edge to edge on the 63 x 88 grid: no seam but
 * their outlines): four cells, neighbours on the grid. */
static void test_block_of_four(void **state)
{
    (void)state;
    static const int cards[4][2] = {{2, SP}, {3, HE}, {7, DI}, {13, CL}};
    const int d = design("kde-standard");
    vis_image *img = new_view();
    for (int j = 0; j < 2; j++)
        for (int i = 0; i < 2; i++)
            put_card(img, d, cards[2 * j + i][0], cards[2 * j + i][1], 200 + CW * i,
                     200 + CH * j, 0);
    vis_cards_reading *r = read_view(img);
    assert_int_equal(r->ncards, 4);
    const vis_card *k0 = card_near(r, 200, 200, POS_MM);
    assert_non_null(k0);
    for (int j = 0; j < 2; j++)
        for (int i = 0; i < 2; i++) {
            const vis_card *k = expect_card(r, "block", 200 + CW * i, 200 + CH * j,
                                            cards[2 * j + i][0], cards[2 * j + i][1]);
            assert_int_equal(k->gx - k0->gx, i);
            assert_int_equal(k->gy - k0->gy, j);
        }
    /* the cards lie square to the table: the grid within a degree */
    assert_true(fabs(remainder(r->grid_angle_deg, 180)) < 1.0);
    assert_true(fabs(r->pitch_x_mm - CW) < 1e-9 && fabs(r->pitch_y_mm - CH) < 1e-9);
    free(r);
    vis_image_free(img);
}

/* Three cards in an L on a grid turned by 20 degrees. */
static void test_rotated_board(void **state)
{
    (void)state;
    static const int cards[3][2] = {{2, CL}, {5, HE}, {12, SP}};
    const int d = design("svg-bookman-2c-large");
    vis_image *img = new_view();
    const double ang = 20 * M_PI / 180, ca = cos(ang), sa = sin(ang);
    double cx[3], cy[3];
    for (int i = 0; i < 3; i++) {
        /* an L: (0,0) (1,0) (0,1) on the turned grid */
        double u = i == 1 ? CW : 0, v = i == 2 ? CH : 0;
        cx[i] = 220 + u * ca - v * sa;
        cy[i] = 200 + u * sa + v * ca;
        put_card(img, d, cards[i][0], cards[i][1], cx[i], cy[i], 20);
    }
    vis_cards_reading *r = read_view(img);
    assert_int_equal(r->ncards, 3);
    /* the grid's axes: the short side at 20 degrees (within 1.5: see
     * test_upside_down) */
    assert_true(fabs(remainder(r->grid_angle_deg - 20, 180)) < 1.5);
    const vis_card *k[3];
    for (int i = 0; i < 3; i++)
        k[i] = expect_card(r, "rotated", cx[i], cy[i], cards[i][0], cards[i][1]);
    assert_int_equal(k[1]->gx - k[0]->gx, 1);
    assert_int_equal(k[1]->gy, k[0]->gy);
    assert_int_equal(k[2]->gx, k[0]->gx);
    assert_int_equal(k[2]->gy - k[0]->gy, 1);
    free(r);
    vis_image_free(img);
}

/* Two cards touching on a pale grey mat (little contrast) lit with a
 * bright hotspot beside them, a faint grey seam round each: the survey
 * learns the mat, the read finds the two cards, not the glare. */
static void test_pale_mat_glare(void **state)
{
    (void)state;
    const int d = design("drawn-classic");
    vis_image *img = new_view();
    /* the hotspot: a broad bump 60 levels high centred at (330, 330) mm */
    light_mat(img, vis_rgb(198, 196, 190), 330, 330, 60, 40, 1);
    put_card(img, d, 3, SP, 180, 200, 0);
    put_card(img, d, 5, HE, 180 + CW, 200, 0);
    for (int i = 0; i < 2; i++)
        outline(img, 180 + CW * i, 200, vis_rgb(200, 200, 200));
    vis_survey sv;
    vis_cards_reading *r = survey_and_read(img, SHARP, &sv);
    assert_true(sv.ncandidates >= 1);
    assert_int_equal(r->ncards, 2);
    const vis_card *a = expect_card(r, "pale mat", 180, 200, 3, SP);
    const vis_card *b = expect_card(r, "pale mat", 180 + CW, 200, 5, HE);
    assert_int_equal(b->gx - a->gx, 1);
    assert_int_equal(b->gy, a->gy);
    free(r);
    vis_image_free(img);
}

/* Two cards side by side (126 x 88 mm together) on a pale mat with no
 * seam to see: the grid has the short sides along x, one card a cell.
 * (When the outline fits the grid either way round about as well, the way
 * whose cells the pair fills whole wins: sim seed 910015's frames.) */
static void test_pair_which_way(void **state)
{
    (void)state;
    const int d = design("drawn-classic");
    vis_image *img = new_view_of(vis_grey(200));
    put_card(img, d, 8, CL, 200, 220, 0);
    put_card(img, d, 9, CL, 200 + CW, 220, 0);
    vis_cards_reading *r = read_view(img);
    assert_int_equal(r->ncards, 2);
    assert_true(fabs(remainder(r->grid_angle_deg, 180)) < 1.5);
    const vis_card *a = expect_card(r, "pair", 200, 220, 8, CL);
    const vis_card *b = expect_card(r, "pair", 200 + CW, 220, 9, CL);
    assert_int_equal(b->gx - a->gx, 1);
    assert_int_equal(b->gy, a->gy);
    free(r);
    vis_image_free(img);
}

/* White cards with black spades on a black mat, touching: the pips are
 * mat-coloured, and blurred as at a pixel a millimetre they leave no
 * holes in the silhouette; the cards are still found (their print: dark
 * spots inside it) and read. */
static void test_black_mat(void **state)
{
    (void)state;
    const int d = design("drawn-classic");
    vis_image *img = new_view_of(vis_grey(18));
    put_card(img, d, 4, SP, 200, 220, 0);
    put_card(img, d, 9, SP, 200 + CW, 220, 0);
    /* the blur of a camera seeing a pixel a millimetre: 1 mm */
    vis_cards_reading *r = read_view_blur(img, 3.0);
    assert_int_equal(r->ncards, 2);
    expect_card(r, "black mat", 200, 220, 4, SP);
    expect_card(r, "black mat", 200 + CW, 220, 9, SP);
    free(r);
    vis_image_free(img);
}

/* A lamp's pool on green felt beside a lone card: the felt lit is its own
 * green with white added, off the felt's chromaticity by more than the
 * ink bound, and was read as four to eight backs; it is the mat, lit. */
static void test_lit_felt(void **state)
{
    (void)state;
    vis_image *img = new_view();
    light_mat(img, vis_rgb(50, 110, 60), 290, 300, 120, 60, 1);
    put_card(img, design("drawn-classic"), 7, DI, 190, 240, 3.4);
    vis_cards_reading *r = read_view(img);
    assert_int_equal(r->ncards, 1);
    expect_card(r, "lit felt", 190, 240, 7, DI);
    free(r);
    vis_image_free(img);
}

/* A granite-like table: black with light speckles, which the silhouette's
 * closing runs together into card-sized patches (the dense one a cell the
 * reader looks at); the classifier calls them the table, and the face-up
 * card and a real back beside it are read. */
static void test_speckled_table(void **state)
{
    (void)state;
    const int d = design("drawn-classic");
    vis_image *img = new_view_of(vis_rgb(22, 22, 24));
    unsigned int rs = 12345;
    /* sparse speckles all over, a denser patch on the cell above the cards */
    for (int k = 0; k < 3250; k++) {
        bool dense = k >= 3000; /* the last 250 */
        rs = rs * 1103515245u + 12345u;
        double x = dense ? 170 + (rs >> 8) % 600 / 10.0 : X0 + (rs >> 8) % 3000 / 10.0;
        rs = rs * 1103515245u + 12345u;
        double y = dense ? 90 + (rs >> 8) % 840 / 10.0 : Y0 + (rs >> 8) % 3000 / 10.0;
        double rad = 0.5 + (rs >> 20) % 8 / 10.0;
        vis_draw_circle(img, to_px(x, y), rad * PPM, vis_rgb(225, 225, 220), VIS_FILLED,
                        VIS_DRAW_AA, NULL);
    }
    put_card(img, d, 4, CL, 200, 220, 0);
    put_card(img, d, BACK, 0, 200 + CW, 220, 0);
    vis_cards_reading *r = read_view(img);
    const vis_card *up = expect_card(r, "granite", 200, 220, 4, CL);
    const vis_card *down = expect_back(r, "granite", 200 + CW, 220);
    for (int i = 0; i < r->ncards; i++)
        if (&r->cards[i] != up && &r->cards[i] != down)
            fail_msg("a card reported at %.0f, %.0f mm (face down: %d) on the bare table",
                     r->cards[i].x_mm, r->cards[i].y_mm, r->cards[i].face_down);
    free(r);
    vis_image_free(img);
}

/* A warm patch of light on a dark table beside a card (a hotspot on
 * wood): of another hue than the table over whole cells, which the reader
 * looks at; it read as backs, and is the table. */
static void test_glow_not_back(void **state)
{
    (void)state;
    vis_image *img = new_view();
    for (int y = 0; y < img->height; y++)
        for (int x = 0; x < img->width; x++) {
            double mx = X0 + (x + 0.5) / PPM, my = Y0 + (y + 0.5) / PPM;
            double g = exp(-((mx - 300) * (mx - 300) + (my - 220) * (my - 220)) / (2 * 45 * 45));
            unsigned char *q = img->data + (size_t)y * img->stride + 3 * (size_t)x;
            q[0] = (unsigned char)(30 + 40 * g);  /* B */
            q[1] = (unsigned char)(40 + 90 * g);  /* G */
            q[2] = (unsigned char)(70 + 150 * g); /* R */
        }
    put_card(img, design("drawn-classic"), 4, HE, 200, 220, 0);
    vis_cards_reading *r = read_view(img);
    const vis_card *up = expect_card(r, "glow", 200, 220, 4, HE);
    for (int i = 0; i < r->ncards; i++)
        if (&r->cards[i] != up)
            fail_msg("a card reported at %.0f, %.0f mm (face down: %d) in the light",
                     r->cards[i].x_mm, r->cards[i].y_mm, r->cards[i].face_down);
    free(r);
    vis_image_free(img);
}

/* A lamp's glow on a black mat beside a lone card (sim seed 950313): the
 * glow is brighter than the mat by enough to count as cream stock, over
 * two cards' area, but its bright tenth is less than the mat's own
 * brightness above it: glare.  The survey's box is the card's alone, and
 * the read finds the one card. */
static void test_glow_on_black_mat(void **state)
{
    (void)state;
    vis_image *img = new_view();
    light_mat(img, vis_grey(20), 320, 170, 17, 70 / sqrt(2), 2);
    put_card(img, design("drawn-classic"), 9, CL, 190, 290, 0);
    vis_survey sv;
    vis_cards_reading *r = survey_and_read(img, 3.0, &sv);
    assert_int_equal(sv.ncandidates, 1);
    /* the box: the card's 63 x 88 mm and the blur's few mm round it */
    assert_true(sv.x0_mm > 150 && sv.x1_mm < 230 && sv.y0_mm > 235 && sv.y1_mm < 345);
    assert_int_equal(r->ncards, 1);
    expect_card(r, "glow on black", 190, 290, 9, CL);
    free(r);
    vis_image_free(img);
}

/* Two cards in a column on a white mat, seen only by their print and
 * their long sides (a grey line each side, as a far camera sees a pale
 * deck on a pale mat: sim seed 930503's 8H and 10H): the grid's phase
 * along the column comes from the silhouette, which spans two cards. */
static void test_column_by_long_sides(void **state)
{
    (void)state;
    const int d = design("drawn-classic");
    vis_image *img = new_view_of(vis_rgb(236, 236, 232));
    put_card(img, d, 10, HE, 200, 160, 0);
    put_card(img, d, 8, HE, 200, 160 + CH, 0);
    for (int sx = -1; sx <= 1; sx += 2) {
        vis_point a = to_px(200 + sx * CW / 2, 116), b = to_px(200 + sx * CW / 2, 292);
        vis_draw_line(img, a, b, vis_rgb(190, 190, 190), 2, VIS_DRAW_AA, NULL);
    }
    vis_cards_reading *r = read_view(img);
    assert_int_equal(r->ncards, 2);
    const vis_card *a = expect_card(r, "white mat", 200, 160, 10, HE);
    const vis_card *b = expect_card(r, "white mat", 200, 160 + CH, 8, HE);
    assert_int_equal(b->gy - a->gy, 1);
    free(r);
    vis_image_free(img);
}

/* Hands: the survey of a view holding the play area's left edge (x = 0)
 * reports an arm that reaches in from outside over the cards, and no hand
 * for cards alone, even a face-up and a face-down card at the edge.  The
 * read after the survey reports the survey's hand. */
static bool survey_hand(const vis_image *img, double *hand_mm2, int *ncards)
{
    vis_image *soft = NULL;
    vis_cards *c = NULL;
    vis_view v = view_of();
    vis_survey sv;
    base_err e;
    v.x0_mm = -50;
    v.y0_mm = 100;
    assert_int_equal(vis_gaussian_blur(img, 0, SHARP, &soft, NULL), 0);
    assert_int_equal(vis_cards_new(0, 0, &c, &e), 0);
    assert_int_equal(vis_cards_survey(c, soft, &v, &sv, &e), 0);
    vis_cards_reading *r = malloc(sizeof *r);
    assert_non_null(r);
    assert_int_equal(vis_cards_read(c, soft, &v, r, &e), 0);
    assert_int_equal(r->hand, sv.hand);
    *ncards = r->ncards;
    free(r);
    vis_cards_free(c);
    vis_image_free(soft);
    *hand_mm2 = sv.hand_mm2;
    return sv.hand;
}

static void test_hand(void **state)
{
    (void)state;
    /* to_px maps from (X0, Y0) = (100, 100); this view starts at (-50, 100) */
    const double dx = X0 + 50;
    const int d = design("drawn-classic");
    vis_image *img = new_view();
    double mm2;
    int n;
    put_card(img, d, 5, SP, 120 + dx, 200, 0);
    put_card(img, d, 7, HE, 120 + CW + dx, 200, 0);
    /* a face-up card at the edge, and a face-down one below it */
    put_card(img, d, 3, CL, 32 + dx, 200, 0);
    put_card(img, d, BACK, 0, 32 + dx, 200 + CH, 0);
    assert_false(survey_hand(img, &mm2, &n));
    assert_int_equal(n, 4);
    /* an arm from outside the play area to over the first card: skin */
    vis_point arm[4] = {to_px(-50 + dx, 320), to_px(-50 + dx, 380), to_px(140 + dx, 250),
                        to_px(120 + dx, 215)};
    vis_draw_polygon(img, arm, 4, vis_rgb(205, 150, 120), VIS_FILLED, 1, VIS_DRAW_AA, NULL);
    assert_true(survey_hand(img, &mm2, &n));
    assert_true(mm2 > CW * CH); /* more than a card's worth of skin */
    vis_image_free(img);
}

/* ---- across frames ---- */

/* The grid's axes carry over from a reading to the next only from a
 * reading to trust: one handle reads a board, then a view of junk (a
 * blank sheet lying the other way: no card surely read) whose grid is
 * turned by 90 degrees, then the board again, whose cells must be
 * numbered as the first time (kept, the junk's axes turned the board's
 * grid by 180 degrees).  (A reading with a hand is not trusted either:
 * test_hand's reading reports the survey's hand.) */
static void test_axes_kept_from_sure(void **state)
{
    (void)state;
    const int d = design("drawn-classic");
    vis_image *board = new_view(), *junk = new_view();
    vis_cards *c = NULL;
    base_err e;
    vis_cards_reading *r0 = malloc(sizeof *r0), *r1 = malloc(sizeof *r1), *r2 = malloc(sizeof *r2);
    assert_non_null(r0);
    assert_non_null(r1);
    assert_non_null(r2);
    put_card(board, d, 5, DI, 220, 220, 0);
    put_card(board, d, 3, DI, 220 + CW, 220, 0);
    /* a blank card-sized sheet, its long side along x */
    vis_point q[4] = {to_px(206, 219), to_px(294, 219), to_px(294, 281), to_px(206, 281)};
    vis_draw_polygon(junk, q, 4, vis_rgb(244, 244, 240), VIS_FILLED, 1, VIS_DRAW_AA, NULL);
    assert_int_equal(vis_cards_new(0, 0, &c, &e), 0);
    read_with(c, board, r0);
    assert_int_equal(r0->ncards, 2);
    expect_card(r0, "board", 220, 220, 5, DI);
    read_with(c, junk, r1);
    /* (the junk's grid is turned: else the test proves nothing) */
    assert_true(fabs(remainder(r1->grid_angle_deg - r0->grid_angle_deg, 180)) > 45);
    read_with(c, board, r2);
    assert_int_equal(r2->ncards, 2);
    assert_true(fabs(remainder(r2->grid_angle_deg - r0->grid_angle_deg, 360)) < 1.5);
    for (int i = 0; i < 2; i++) {
        const vis_card *a = &r0->cards[i], *b = card_near(r2, a->x_mm, a->y_mm, 3);
        assert_non_null(b);
        assert_int_equal(b->gx, a->gx);
        assert_int_equal(b->gy, a->gy);
    }
    vis_cards_free(c);
    free(r0);
    free(r1);
    free(r2);
    vis_image_free(board);
    vis_image_free(junk);
}

/* Paints the paper over texture t's pixels x0..x1, y0..y1 and over the
 * same box turned half round (the opposite corner's). */
static void paint_out(vis_image *t, int x0, int y0, int x1, int y1)
{
    const unsigned char *paper = t->data + 4 * (size_t)t->stride + 3 * (size_t)(t->width / 2);
    unsigned char p[3] = {paper[0], paper[1], paper[2]};
    for (int y = y0; y <= y1; y++)
        for (int x = x0; x <= x1; x++) {
            memcpy(t->data + (size_t)y * t->stride + 3 * (size_t)x, p, 3);
            memcpy(t->data + (size_t)(t->height - 1 - y) * t->stride +
                       3 * (size_t)(t->width - 1 - x),
                   p, 3);
        }
}

/* The memory of the last frames (cd__remember): a card lies still, so an
 * unsure part of a frame's reading takes what the frames before read at
 * its place more surely.  An ace of drawn-classic whose index symbols are
 * painted out (a red A, no suit: hearts or diamonds, unsure) reads as the
 * red ace that the two frames before read surely there, its own call the
 * runner-up.  A view with no card forgets it; so does a new model.  A
 * card read surely is itself, whatever was remembered; one read with
 * another rank and another suit is another card, and the memory starts
 * afresh. */
static void test_memory(void **state)
{
    (void)state;
    const int d = design("drawn-classic");
    vis_image *t = texture(d, 1, HE);
    /* the index's heart: 3..12 mm across, 11..22 mm down the card (the A above it) */
    paint_out(t, 2, 44, 50, 88);
    vis_image *blank = new_view(), *none = new_view();
    put_texture(blank, t, 200, 220, 1);
    vis_image_free(t);
    vis_cards_reading *r = malloc(sizeof *r);
    vis_cards *c = NULL;
    base_err e;
    assert_non_null(r);
    /* alone: an ace of some suit, unsure (else the memory has nothing to
     * mend: cd__remember's CD__MEM_SURE is 0.9) */
    assert_int_equal(vis_cards_new(0, 0, &c, &e), 0);
    read_with(c, blank, r);
    assert_int_equal(r->ncards, 1);
    assert_int_equal(r->cards[0].rank, 1);
    const int own = r->cards[0].suit, other = own == HE ? DI : HE;
    const float alone = r->cards[0].suit_conf;
    if (!(alone < 0.9f))
        fail_msg("the ace without its suit read as the A%c at %.2f", suit_name[own],
                 (double)alone);
    vis_cards_free(c);
    vis_image *ace = new_view(), *ace_own = new_view(), *five = new_view();
    put_card(ace, d, 1, other, 200, 220, 1);
    put_card(ace_own, d, 1, own, 200, 220, 1);
    put_card(five, d, 5, CL, 200, 220, 1);
    /* after two sure aces of the other red suit: that one */
    assert_int_equal(vis_cards_new(0, 0, &c, &e), 0);
    for (int k = 0; k < 2; k++) {
        read_with(c, ace, r);
        expect_card(r, "the full ace", 200, 220, 1, other);
    }
    read_with(c, blank, r);
    assert_int_equal(r->ncards, 1);
    assert_int_equal(r->cards[0].rank, 1);
    assert_int_equal(r->cards[0].suit, other);
    assert_int_equal(r->cards[0].suit2, own);
    /* its conf no more than the frame's doubt in its own call (its cut may
     * lie a fraction of a mm otherwise than alone: 0.05 of slack) */
    assert_true(r->cards[0].suit_conf <= 1 - alone + 0.05f);
    /* gone, then the blank ace again: its own reading */
    read_with(c, none, r);
    assert_int_equal(r->ncards, 0);
    read_with(c, blank, r);
    assert_int_equal(r->cards[0].suit, own);
    /* remembered, then a new model: forgotten */
    for (int k = 0; k < 2; k++)
        read_with(c, ace, r);
    assert_int_equal(vis_cards_use_model(c, TABLECAM_SOURCE_DIR "/models/cards.onnx", &e), 0);
    read_with(c, blank, r);
    assert_int_equal(r->cards[0].suit, own);
    /* remembered, then the ace of its own suit read surely: itself */
    for (int k = 0; k < 2; k++)
        read_with(c, ace, r);
    read_with(c, ace_own, r);
    expect_card(r, "a sure ace", 200, 220, 1, own);
    if (r->cards[0].suit_conf < 0.9f)
        fail_msg("the full A%c read at %.2f, not surely", suit_name[own],
                 (double)r->cards[0].suit_conf);
    /* remembered, then a five of clubs: another card, and the blank ace
     * after it its own reading */
    for (int k = 0; k < 2; k++)
        read_with(c, ace, r);
    read_with(c, five, r);
    expect_card(r, "the five", 200, 220, 5, CL);
    read_with(c, blank, r);
    assert_int_equal(r->cards[0].rank, 1);
    assert_int_equal(r->cards[0].suit, own);
    vis_cards_free(c);
    free(r);
    vis_image_free(blank);
    vis_image_free(none);
    vis_image_free(ace);
    vis_image_free(ace_own);
    vis_image_free(five);
}

/* ---- bad input ---- */

static void test_bad_input(void **state)
{
    (void)state;
    vis_cards *c = NULL;
    vis_image *grey = NULL, *img = new_view(), *patch = NULL;
    vis_view v = view_of();
    vis_survey sv;
    vis_cards_reading *r = malloc(sizeof *r);
    base_err e;
    assert_non_null(r);
    assert_int_equal(vis_cards_new(10, 300, &c, &e), BASE_EINVAL);
    assert_non_null(strstr(e.msg, "card size"));
    assert_null(c);
    assert_int_equal(vis_cards_new(0, 0, NULL, &e), BASE_EINVAL);
    assert_int_equal(vis_cards_new(0, 0, &c, &e), 0);
    assert_int_equal(vis_cards_read(NULL, img, &v, r, &e), BASE_EINVAL);
    assert_int_equal(vis_cards_read(c, img, &v, NULL, &e), BASE_EINVAL);
    assert_int_equal(vis_cards_survey(NULL, img, &v, &sv, &e), BASE_EINVAL);
    assert_int_equal(vis_cards_read(c, NULL, &v, r, &e), BASE_EINVAL);
    assert_int_equal(vis_image_new(100, 100, 1, &grey, NULL), 0);
    assert_int_equal(vis_cards_read(c, grey, &v, r, &e), BASE_EINVAL);
    assert_non_null(strstr(e.msg, "colour view"));
    assert_int_equal(vis_cards_survey(c, grey, &v, &sv, &e), BASE_EINVAL);
    assert_non_null(strstr(e.msg, "colour view"));
    /* a grey camera frame behind a colour view */
    v.frame = grey;
    assert_int_equal(vis_cards_read(c, img, &v, r, &e), BASE_EINVAL);
    assert_non_null(strstr(e.msg, "frame"));
    v = view_of();
    v.px_per_mm = 0;
    assert_int_equal(vis_cards_read(c, img, &v, r, &e), BASE_EINVAL);
    assert_non_null(strstr(e.msg, "px_per_mm"));
    v.px_per_mm = NAN;
    assert_int_equal(vis_cards_survey(c, img, &v, &sv, &e), BASE_EINVAL);
    assert_non_null(strstr(e.msg, "px_per_mm"));
    v = view_of();
    v.mat_w = 0;
    assert_int_equal(vis_cards_read(c, img, &v, r, &e), BASE_EINVAL);
    assert_non_null(strstr(e.msg, "mat size"));
    /* models */
    assert_int_equal(vis_cards_use_model(NULL, TABLECAM_TEST_DATA "/classify-test.onnx", &e),
                     BASE_EINVAL);
    assert_int_equal(vis_cards_use_model(c, NULL, &e), BASE_EINVAL);
    assert_null(vis_cards_model(NULL));
    /* the corners' cut */
    vis_homography hm = vis_cards_view_map(&v);
    assert_int_equal(vis_cards_corners(NULL, hm, 200, 220, 0, CW, CH, &patch, &e), BASE_EINVAL);
    assert_int_equal(vis_cards_corners(grey, hm, 200, 220, 0, CW, CH, &patch, &e), BASE_EINVAL);
    assert_int_equal(vis_cards_corners(img, hm, 200, 220, 0, 30, 60, &patch, &e), BASE_EINVAL);
    assert_non_null(strstr(e.msg, "smaller than its corners"));
    assert_null(patch);
    assert_int_equal(vis_cards_corners(img, hm, 200, 220, 0, CW, CH, &patch, &e), 0);
    assert_int_equal(patch->width, VIS_CARDS_PATCH);
    assert_int_equal(patch->height, VIS_CARDS_PATCH);
    vis_image_free(patch);
    vis_image_free(grey);
    vis_image_free(img);
    vis_cards_free(c);
    vis_cards_free(NULL);
    free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_one_card),
        cmocka_unit_test(test_decks),
        cmocka_unit_test(test_upside_down),
        cmocka_unit_test(test_face_down),
        cmocka_unit_test(test_backs_of_decks),
        cmocka_unit_test(test_duplicate),
        cmocka_unit_test(test_bare_patch_not_card),
        cmocka_unit_test(test_gap_not_back),
        cmocka_unit_test(test_use_model_not_cards),
        cmocka_unit_test(test_use_model_file),
        cmocka_unit_test(test_block_of_four),
        cmocka_unit_test(test_rotated_board),
        cmocka_unit_test(test_pale_mat_glare),
        cmocka_unit_test(test_pair_which_way),
        cmocka_unit_test(test_black_mat),
        cmocka_unit_test(test_lit_felt),
        cmocka_unit_test(test_speckled_table),
        cmocka_unit_test(test_glow_not_back),
        cmocka_unit_test(test_glow_on_black_mat),
        cmocka_unit_test(test_column_by_long_sides),
        cmocka_unit_test(test_hand),
        cmocka_unit_test(test_axes_kept_from_sure),
        cmocka_unit_test(test_memory),
        cmocka_unit_test(test_bad_input),
    };
    th_case_filter();
    return cmocka_run_group_tests(tests, NULL, close_decks);
}
