/* sim/cards_decks.c: the decks of playing cards the simulator shows (game
 * "cards"): an ordered table of designs, each with a stable id, and the
 * rendering of one card's face or back into a texture (SIM__CD_TEX_W x
 * SIM__CD_TEX_H pixels, 3 channels, BGR), which cards_pieces.c samples.
 *
 * Three kinds of deck (docs/sim.md, "Decks of cards"):
 * - drawn: the first three designs, drawn through the OpenCV shim (Hershey
 *   font indices, vector suits), as the simulator always drew them; their
 *   backs are patterns painted here.
 * - kde: the French-suited SVG decks of Debian's kdegames-card-data-kf5
 *   (/usr/share/carddecks/svg-<name>/<file>.svgz), one document per deck
 *   with an element a card ("1_club".."10_club", "jack_club", "queen_club",
 *   "king_club", "back"); parsed once a stream (sim__cd_deck_open), each
 *   card rendered with librsvg when it first shows.
 * - svg: decks the simulator writes itself as SVG text, a document a card,
 *   rendered with librsvg so that real system fonts (fontconfig names)
 *   print the indices; the style of each is a row of the table below.
 *
 * The table only grows at its end: a design's number and id are what
 * recorded streams and models refer to. */
#define _POSIX_C_SOURCE 200809L
#include "sim_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cairo.h>
#include <librsvg/rsvg.h>

#define SIM__CD_KDE_DIR "/usr/share/carddecks"

/* ---- the table ---- */

enum { SIM__CD_DRAWN, SIM__CD_KDE, SIM__CD_SVG };
enum { SIM__CD_SUITS_CLASSIC, SIM__CD_SUITS_GEOMETRIC };
enum { SIM__CD_COURT_LETTER, SIM__CD_COURT_FIGURE };
enum { SIM__CD_BACK_STRIPES, SIM__CD_BACK_CHECKS, SIM__CD_BACK_LATTICE, SIM__CD_BACK_DOTS,
       SIM__CD_BACK_SOLID };

/* The style of a deck the simulator writes (kind svg); colours 0xRRGGBB. */
typedef struct sim__cd_style {
    const char *font;  /* fontconfig family of the indices and court letters */
    bool bold;
    int suits;         /* SIM__CD_SUITS_*: the outlines of the suit symbols */
    bool four_colour;  /* spades black, hearts red, diamonds blue, clubs green */
    bool large_index;
    bool four_corners; /* an index in every corner, not two */
    int court;         /* SIM__CD_COURT_*: a big letter or a simple figure */
    bool frame;        /* a thin line around the face */
    uint32_t court_fill, court_line;
} sim__cd_style;

typedef struct sim__cd_def {
    const char *id;
    int kind;           /* SIM__CD_DRAWN, _KDE or _SVG */
    int drawn;          /* drawn: which of the three */
    const char *path;   /* kde: the document */
    uint32_t paper;     /* the card stock under the print */
    int back;           /* drawn and svg: SIM__CD_BACK_* */
    uint32_t back_ink;  /* drawn and svg: the back's colour; kde: about that of its back */
    sim__cd_style s;
} sim__cd_def;

#define SIM__KDE(NAME, FILE, UNDER)                                                          \
    {                                                                                       \
        .id = "kde-" NAME, .kind = SIM__CD_KDE, .path = SIM__CD_KDE_DIR "/svg-" NAME "/" FILE, \
        .paper = 0xffffff, .back_ink = UNDER                                                \
    }

/* Left out of the KDE decks: xskat-german (German suits: acorns, leaves,
 * hearts, bells), and future, whose cards are landscape memory chips
 * (logical rects 195 x 143) with their ranks in binary and no suit pips or
 * corner indices: nothing a reader of ordinary cards could learn from. */
static const sim__cd_def sim__cd_defs[SIM__CD_NDECKS] = {
    {.id = "drawn-classic", .kind = SIM__CD_DRAWN, .drawn = 0, .paper = 0xf4f4f0,
     .back = SIM__CD_BACK_LATTICE, .back_ink = 0x991a1a},
    {.id = "drawn-four-colour", .kind = SIM__CD_DRAWN, .drawn = 1, .paper = 0xf4f4f0,
     .back = SIM__CD_BACK_STRIPES, .back_ink = 0x1a3399},
    {.id = "drawn-cream", .kind = SIM__CD_DRAWN, .drawn = 2, .paper = 0xeee6cd,
     .back = SIM__CD_BACK_CHECKS, .back_ink = 0x1a5926},
    SIM__KDE("ancient-egyptians", "Ancient_Egyptians.svgz", 0xc8a860),
    SIM__KDE("dondorf", "dondorf.svgz", 0x4f7f80),
    SIM__KDE("gm-paris", "paris.svgz", 0x1c2a6e),
    SIM__KDE("jolly-royal", "jolly-royal.svgz", 0x8a1420),
    SIM__KDE("konqi-modern", "konqi.svgz", 0xd8cfb8),
    SIM__KDE("nicu-ornamental", "ornamental.svgz", 0xb01818),
    SIM__KDE("nicu-white", "white.svgz", 0x1a3fa8),
    SIM__KDE("oxygen", "oxygen.svgz", 0x1d7a20),
    SIM__KDE("oxygen-air", "oxygen-air.svgz", 0x303030),
    SIM__KDE("oxygen-white", "oxygen-white.svgz", 0x10206a),
    SIM__KDE("penguins", "penguins.svgz", 0x3cc0c8),
    SIM__KDE("standard", "standard.svgz", 0x1c2a8a),
    SIM__KDE("tigullio-international", "tigullio-international.svgz", 0x202020),
    SIM__KDE("xskat-french", "french.svgz", 0xd0b888),
    {.id = "svg-bookman-2c-large", .kind = SIM__CD_SVG, .paper = 0xffffff,
     .back = SIM__CD_BACK_LATTICE, .back_ink = 0xb01c2a,
     .s = {.font = "URW Bookman", .suits = SIM__CD_SUITS_CLASSIC, .large_index = true,
           .court = SIM__CD_COURT_LETTER, .court_fill = 0xf6e7b8, .court_line = 0x20306a}},
    {.id = "svg-nimbus-sans-bold-4c-small", .kind = SIM__CD_SVG, .paper = 0xfbfbf7,
     .back = SIM__CD_BACK_STRIPES, .back_ink = 0x1f4aa8,
     .s = {.font = "Nimbus Sans", .bold = true, .suits = SIM__CD_SUITS_GEOMETRIC,
           .four_colour = true, .court = SIM__CD_COURT_FIGURE, .court_fill = 0xdde8f7,
           .court_line = 0x1d3c8a}},
    {.id = "svg-nimbus-roman-2c-small-4corner", .kind = SIM__CD_SVG, .paper = 0xf3ecd8,
     .back = SIM__CD_BACK_CHECKS, .back_ink = 0x1d6b35,
     .s = {.font = "Nimbus Roman", .suits = SIM__CD_SUITS_CLASSIC, .four_corners = true,
           .court = SIM__CD_COURT_FIGURE, .frame = true, .court_fill = 0xf3d9a0,
           .court_line = 0x7a1c1c}},
    {.id = "svg-c059-bold-4c-large", .kind = SIM__CD_SVG, .paper = 0xfffdf5,
     .back = SIM__CD_BACK_DOTS, .back_ink = 0x1b2a5c,
     .s = {.font = "C059", .bold = true, .suits = SIM__CD_SUITS_CLASSIC, .four_colour = true,
           .large_index = true, .court = SIM__CD_COURT_LETTER, .court_fill = 0xe9f2e4,
           .court_line = 0x2c5d2c}},
    {.id = "svg-p052-2c-large", .kind = SIM__CD_SVG, .paper = 0xf6efdc,
     .back = SIM__CD_BACK_SOLID, .back_ink = 0x7a1428,
     .s = {.font = "P052", .suits = SIM__CD_SUITS_GEOMETRIC, .large_index = true,
           .court = SIM__CD_COURT_FIGURE, .frame = true, .court_fill = 0xf5d0c8,
           .court_line = 0x6a1a20}},
    {.id = "svg-nimbus-mono-bold-4c-small", .kind = SIM__CD_SVG, .paper = 0xffffff,
     .back = SIM__CD_BACK_STRIPES, .back_ink = 0x202020,
     .s = {.font = "Nimbus Mono PS", .bold = true, .suits = SIM__CD_SUITS_GEOMETRIC,
           .four_colour = true, .court = SIM__CD_COURT_LETTER, .court_fill = 0xececec,
           .court_line = 0x333333}},
    {.id = "svg-urw-gothic-bold-2c-large", .kind = SIM__CD_SVG, .paper = 0xfffaf0,
     .back = SIM__CD_BACK_CHECKS, .back_ink = 0xb3202a,
     .s = {.font = "URW Gothic", .bold = true, .suits = SIM__CD_SUITS_GEOMETRIC,
           .large_index = true, .court = SIM__CD_COURT_LETTER, .court_fill = 0xfbe9a7,
           .court_line = 0x8a5a00}},
    {.id = "svg-nimbus-sans-narrow-bold-4c-large-4corner", .kind = SIM__CD_SVG,
     .paper = 0xffffff, .back = SIM__CD_BACK_LATTICE, .back_ink = 0x0f6b70,
     .s = {.font = "Nimbus Sans Narrow", .bold = true, .suits = SIM__CD_SUITS_CLASSIC,
           .four_colour = true, .large_index = true, .four_corners = true,
           .court = SIM__CD_COURT_FIGURE, .court_fill = 0xd9eef0, .court_line = 0x0e5f66}},
    {.id = "svg-dejavu-sans-2c-small", .kind = SIM__CD_SVG, .paper = 0xfdfdfd,
     .back = SIM__CD_BACK_DOTS, .back_ink = 0x5a2a86,
     .s = {.font = "DejaVu Sans", .suits = SIM__CD_SUITS_CLASSIC,
           .court = SIM__CD_COURT_LETTER, .court_fill = 0xe8e0f3, .court_line = 0x4b2a7a}},
    {.id = "svg-dejavu-serif-bold-4c-large", .kind = SIM__CD_SVG, .paper = 0xefe6cc,
     .back = SIM__CD_BACK_SOLID, .back_ink = 0x1c2f6e,
     .s = {.font = "DejaVu Serif", .bold = true, .suits = SIM__CD_SUITS_GEOMETRIC,
           .four_colour = true, .large_index = true, .court = SIM__CD_COURT_FIGURE,
           .court_fill = 0xf7e3c4, .court_line = 0x5a3a10}},
    {.id = "svg-liberation-sans-bold-2c-large", .kind = SIM__CD_SVG, .paper = 0xffffff,
     .back = SIM__CD_BACK_STRIPES, .back_ink = 0x17703a,
     .s = {.font = "Liberation Sans", .bold = true, .suits = SIM__CD_SUITS_CLASSIC,
           .large_index = true, .court = SIM__CD_COURT_FIGURE, .court_fill = 0xfde4e4,
           .court_line = 0x8a1a1a}},
    {.id = "svg-liberation-serif-4c-small", .kind = SIM__CD_SVG, .paper = 0xf8f3e6,
     .back = SIM__CD_BACK_LATTICE, .back_ink = 0x203a8c,
     .s = {.font = "Liberation Serif", .suits = SIM__CD_SUITS_GEOMETRIC, .four_colour = true,
           .court = SIM__CD_COURT_LETTER, .frame = true, .court_fill = 0xe4ecf8,
           .court_line = 0x203a8c}},
    {.id = "svg-freeserif-2c-large", .kind = SIM__CD_SVG, .paper = 0xfffef8,
     .back = SIM__CD_BACK_DOTS, .back_ink = 0x9a1b1b,
     .s = {.font = "FreeSerif", .suits = SIM__CD_SUITS_CLASSIC, .large_index = true,
           .court = SIM__CD_COURT_FIGURE, .court_fill = 0xf2e2b0, .court_line = 0x3a2a10}},
    {.id = "svg-freesans-bold-2c-small", .kind = SIM__CD_SVG, .paper = 0xf1ead2,
     .back = SIM__CD_BACK_SOLID, .back_ink = 0x145a32,
     .s = {.font = "FreeSans", .bold = true, .suits = SIM__CD_SUITS_GEOMETRIC,
           .court = SIM__CD_COURT_LETTER, .court_fill = 0xdff0df, .court_line = 0x145a32}},
};

_Static_assert(sizeof sim__cd_defs / sizeof sim__cd_defs[0] == SIM__CD_NDECKS,
               "SIM__CD_NDECKS is the length of the deck table");

const char *sim__cd_deck_id(int design)
{
    return design >= 0 && design < SIM__CD_NDECKS ? sim__cd_defs[design].id : NULL;
}

void sim__cd_deck_underside(int design, float rgb[3])
{
    /* the drawn decks' undersides as they always were */
    static const float drawn[3][3] = {{0.6f, 0.1f, 0.1f}, {0.1f, 0.2f, 0.6f}, {0.1f, 0.35f, 0.15f}};
    uint32_t c = design >= 0 && design < SIM__CD_NDECKS ? sim__cd_defs[design].back_ink : 0;
    if (design >= 0 && design < SIM__CD_NDECKS && sim__cd_defs[design].kind == SIM__CD_DRAWN) {
        memcpy(rgb, drawn[sim__cd_defs[design].drawn], sizeof drawn[0]);
        return;
    }
    rgb[0] = (float)((c >> 16) & 255) / 255.0f;
    rgb[1] = (float)((c >> 8) & 255) / 255.0f;
    rgb[2] = (float)(c & 255) / 255.0f;
}

static vis_color sim__cd_hex(uint32_t c)
{
    return vis_rgb((unsigned char)(c >> 16), (unsigned char)(c >> 8), (unsigned char)c);
}

/* ---- drawn decks: faces through the OpenCV shim ---- */

#define CD_PX SIM__CD_PX

typedef struct sim__cd_design {
    vis_color bg, suit[4], court, court_line;
    double index_scale;
    int index_thick;
    bool frame;
} sim__cd_design;

static void sim__cd_polygon(vis_image *img, const double *xy, int n, double cx, double cy,
                            double size, bool flip, vis_color c)
{
    vis_point pts[64];
    for (int i = 0; i < n && i < 64; i++) {
        double x = xy[2 * i], y = xy[2 * i + 1];
        if (flip) {
            x = -x;
            y = -y;
        }
        pts[i].x = cx + x * size;
        pts[i].y = cy + y * size;
    }
    vis_draw_polygon(img, pts, n < 64 ? n : 64, c, VIS_FILLED, 1, VIS_DRAW_AA, NULL);
}

static void sim__cd_circle(vis_image *img, double x, double y, double r, double cx, double cy,
                           double size, bool flip, vis_color c)
{
    vis_point p = {cx + (flip ? -x : x) * size, cy + (flip ? -y : y) * size};
    vis_draw_circle(img, p, r * size, c, VIS_FILLED, VIS_DRAW_AA, NULL);
}

/* A suit symbol of half-height size px centred at (cx, cy), drawn as
 * vector shapes; flip turns it upside down. */
static void sim__cd_suit(vis_image *img, int suit, double cx, double cy, double size, bool flip,
                         vis_color c)
{
    double xy[2 * 48];
    int n = 0;
    switch (suit) {
    case RULES_HEARTS:
    case RULES_SPADES: {
        /* the classic heart curve; a spade is one upside down with a stem */
        double s = suit == RULES_SPADES ? -1 : 1;
        for (int i = 0; i < 48; i++) {
            double t = 2 * SIM__PI * i / 48, st = sin(t);
            xy[2 * i] = 16 * st * st * st / 17.0;
            xy[2 * i + 1] = s * (-(13 * cos(t) - 5 * cos(2 * t) - 2 * cos(3 * t) - cos(4 * t)) / 17.0 - 0.12);
        }
        n = 48;
        if (suit == RULES_SPADES) {
            for (int i = 0; i < n; i++)
                xy[2 * i + 1] -= 0.15;
            sim__cd_polygon(img, xy, n, cx, cy, size, flip, c);
            double stem[6] = {0, 0.3, -0.32, 1.0, 0.32, 1.0};
            sim__cd_polygon(img, stem, 3, cx, cy, size, flip, c);
            return;
        }
        sim__cd_polygon(img, xy, n, cx, cy, size, flip, c);
        return;
    }
    case RULES_DIAMONDS: {
        double d[8] = {0, -1, 0.72, 0, 0, 1, -0.72, 0};
        sim__cd_polygon(img, d, 4, cx, cy, size, flip, c);
        return;
    }
    default: { /* clubs: three leaves and a stem */
        double stem[6] = {0, 0.1, -0.32, 1.0, 0.32, 1.0};
        sim__cd_circle(img, 0, -0.45, 0.34, cx, cy, size, flip, c);
        sim__cd_circle(img, -0.44, 0.12, 0.34, cx, cy, size, flip, c);
        sim__cd_circle(img, 0.44, 0.12, 0.34, cx, cy, size, flip, c);
        sim__cd_circle(img, 0, 0, 0.2, cx, cy, size, flip, c);
        sim__cd_polygon(img, stem, 3, cx, cy, size, flip, c);
        return;
    }
    }
}

/* Copies the rectangle (x, y, w, h) of img turned by 180 degrees about the
 * image centre: a card is point-symmetric. */
static void sim__cd_rot180(vis_image *img, int x, int y, int w, int h)
{
    for (int j = y; j < y + h; j++)
        for (int i = x; i < x + w; i++) {
            int ti = img->width - 1 - i, tj = img->height - 1 - j;
            memcpy(img->data + (size_t)tj * (size_t)img->stride + (size_t)ti * 3,
                   img->data + (size_t)j * (size_t)img->stride + (size_t)i * 3, 3);
        }
}

#define SIM__PIP_TURN 0.01 /* a pip below the middle row is turned (the middle row is 0) */

/* pip positions of 2..10 in units of the pip area (x: -1 0 1, y: -1..1) */
static const double sim__cd_pips[11][10][2] = {
    {{0}}, {{0}},
    {{0, -1}, {0, 1}},
    {{0, -1}, {0, 0}, {0, 1}},
    {{-1, -1}, {1, -1}, {-1, 1}, {1, 1}},
    {{-1, -1}, {1, -1}, {0, 0}, {-1, 1}, {1, 1}},
    {{-1, -1}, {1, -1}, {-1, 0}, {1, 0}, {-1, 1}, {1, 1}},
    {{-1, -1}, {1, -1}, {0, -0.5}, {-1, 0}, {1, 0}, {-1, 1}, {1, 1}},
    {{-1, -1}, {1, -1}, {0, -0.5}, {-1, 0}, {1, 0}, {0, 0.5}, {-1, 1}, {1, 1}},
    {{-1, -1}, {1, -1}, {-1, -1.0 / 3}, {1, -1.0 / 3}, {0, 0}, {-1, 1.0 / 3}, {1, 1.0 / 3},
     {-1, 1}, {1, 1}},
    {{-1, -1}, {1, -1}, {0, -2.0 / 3}, {-1, -1.0 / 3}, {1, -1.0 / 3}, {-1, 1.0 / 3},
     {1, 1.0 / 3}, {0, 2.0 / 3}, {-1, 1}, {1, 1}},
};

static const char *const sim__cd_rank_names[14] = {"", "A", "2", "3", "4", "5", "6", "7",
                                                   "8", "9", "10", "J", "Q", "K"};

static int sim__cd_draw(const sim__cd_design *d, int rank, int suit, vis_image **out)
{
    const char *const *names = sim__cd_rank_names;
    int w = SIM__CD_TEX_W, h = SIM__CD_TEX_H, rc;
    vis_image *img = NULL;
    vis_color ink = d->suit[suit];
    double mm = CD_PX;
    if ((rc = vis_image_new(w, h, 3, &img, NULL)) != 0)
        return rc;
    vis_image_fill(img, d->bg, NULL);
    if (d->frame)
        vis_draw_rect(img, (int)(2.2 * mm), (int)(2.2 * mm), w - 1 - (int)(2.2 * mm),
                      h - 1 - (int)(2.2 * mm), d->court_line, 2, NULL);

    /* the centre */
    if (rank == 1) {
        sim__cd_suit(img, suit, w / 2.0, h / 2.0, (suit == RULES_SPADES ? 11 : 8) * mm, false, ink);
    } else if (rank <= 10) {
        for (int i = 0; i < rank; i++) {
            double px = sim__cd_pips[rank][i][0], py = sim__cd_pips[rank][i][1];
            sim__cd_suit(img, suit, w / 2.0 + px * 11.5 * mm, h / 2.0 + py * 26 * mm, 4.8 * mm,
                         py > SIM__PIP_TURN, ink);
        }
    } else {
        /* a framed figure: head, headgear by rank, robe, the pip beside it;
         * the top half drawn, the bottom half its turned copy */
        int fx0 = (int)(12 * mm), fy0 = (int)(12 * mm), fx1 = w - 1 - fx0, fy1 = h - 1 - fy0;
        double cx = w / 2.0, hy = fy0 + 14 * mm;
        vis_point robe[4] = {{cx - 14 * mm, h / 2.0}, {cx - 6 * mm, hy + 6 * mm},
                             {cx + 6 * mm, hy + 6 * mm}, {cx + 14 * mm, h / 2.0}};
        vis_draw_rect(img, fx0, fy0, fx1, fy1, d->court, VIS_FILLED, NULL);
        vis_draw_polygon(img, robe, 4, ink, VIS_FILLED, 1, VIS_DRAW_AA, NULL);
        vis_draw_circle(img, (vis_point){cx, hy}, 6 * mm, vis_rgb(240, 205, 170), VIS_FILLED,
                        VIS_DRAW_AA, NULL);
        if (rank == 13) {
            vis_point crown[7] = {{cx - 6 * mm, hy - 5 * mm}, {cx - 6 * mm, hy - 11 * mm},
                                  {cx - 3 * mm, hy - 8 * mm}, {cx, hy - 12 * mm},
                                  {cx + 3 * mm, hy - 8 * mm}, {cx + 6 * mm, hy - 11 * mm},
                                  {cx + 6 * mm, hy - 5 * mm}};
            vis_draw_polygon(img, crown, 7, vis_rgb(230, 180, 30), VIS_FILLED, 1, VIS_DRAW_AA,
                             NULL);
        } else if (rank == 12) {
            for (int k = -2; k <= 2; k++)
                vis_draw_circle(img, (vis_point){cx + k * 2.6 * mm, hy - 6.5 * mm}, 1.3 * mm,
                                vis_rgb(230, 180, 30), VIS_FILLED, VIS_DRAW_AA, NULL);
        } else {
            vis_draw_rect(img, (int)(cx - 6 * mm), (int)(hy - 9 * mm), (int)(cx + 6 * mm),
                          (int)(hy - 4 * mm), d->court_line, VIS_FILLED, NULL);
        }
        sim__cd_suit(img, suit, fx0 + 6 * mm, fy0 + 6 * mm, 3.5 * mm, false, ink);
        vis_draw_text(img, names[rank], (vis_point){fx1 - 9 * mm, fy0 + 9 * mm}, 1.0, ink, 2,
                      VIS_DRAW_AA, NULL);
        sim__cd_rot180(img, fx0, fy0, fx1 - fx0 + 1, (fy1 - fy0 + 1) / 2);
        vis_draw_rect(img, fx0, fy0, fx1, fy1, d->court_line, 2, NULL);
    }

    /* the index, top-left, then turned into the bottom-right corner */
    {
        double s = d->index_scale, x = 2.0 * mm, base = 3.2 * mm + 22 * s;
        if (rank == 10)
            s *= 0.68; /* two digits in the same width */
        vis_draw_text(img, names[rank], (vis_point){x, base}, s, ink, d->index_thick, VIS_DRAW_AA,
                      NULL);
        sim__cd_suit(img, suit, x + 4.5 * mm, base + 6.5 * mm, 3.3 * mm * d->index_scale, false,
                     ink);
        sim__cd_rot180(img, 0, 0, (int)(12.5 * mm), (int)(base + 11 * mm));
    }
    *out = img;
    return 0;
}

/* The three drawn designs, as the simulator drew them before decks were
 * a table (their faces are byte for byte those). */
static void sim__cd_drawn_design(int k, sim__cd_design *d)
{
    vis_color black = vis_rgb(15, 15, 18), red = vis_rgb(200, 20, 30);
    memset(d, 0, sizeof *d);
    d->bg = vis_rgb(244, 244, 240);
    d->suit[RULES_SPADES] = black;
    d->suit[RULES_CLUBS] = black;
    d->suit[RULES_HEARTS] = red;
    d->suit[RULES_DIAMONDS] = red;
    d->court = vis_rgb(250, 235, 190);
    d->court_line = vis_rgb(30, 60, 150);
    d->index_scale = 1.05;
    d->index_thick = 2;
    if (k == 1) { /* four-colour deck */
        d->suit[RULES_DIAMONDS] = vis_rgb(20, 70, 200);
        d->suit[RULES_CLUBS] = vis_rgb(20, 130, 45);
        d->court = vis_rgb(225, 235, 250);
    } else if (k == 2) { /* cream, framed, large indices */
        d->bg = vis_rgb(238, 230, 205);
        d->frame = true;
        d->index_scale = 1.35;
        d->index_thick = 3;
        d->court = vis_rgb(245, 215, 160);
        d->court_line = vis_rgb(120, 30, 30);
    }
}

/* ---- backs painted pixel by pixel (drawn and svg decks) ---- */

#define SIM__BACK_BORDER 3.5 /* mm of plain card stock around the pattern, as on most backs */
#define SIM__BACK_RADIUS 2.0 /* mm, the pattern's rounded corners */
#define SIM__BACK_CELL 3.0   /* mm, the period of stripes, checks and dots */
#define SIM__BACK_LATTICE 4.0 /* mm between the lattice's lines */
#define SIM__BACK_LINE 0.35  /* mm, half the width of a lattice line */
#define SIM__BACK_DOT 0.75   /* mm, the dots' radius */
#define SIM__BACK_INSET 1.5  /* mm, where a solid back's inner line runs inside the pattern */
#define SIM__BACK_STRIPE 0.5 /* of a stripe's period in ink: even stripes */
#define SIM__BACK_SS 3       /* sub-samples a pixel side: smooth edges at 4 px/mm */

/* True when (x, y) mm (from the card's top-left) shows the back's ink. */
static bool sim__cd_back_ink(int pattern, double x, double y)
{
    double x0 = SIM__BACK_BORDER, y0 = SIM__BACK_BORDER, x1 = SIM__CD_W - SIM__BACK_BORDER,
           y1 = SIM__CD_H - SIM__BACK_BORDER, r = SIM__BACK_RADIUS;
    double ex = fmax(fmax(x0 + r - x, x - (x1 - r)), 0), ey = fmax(fmax(y0 + r - y, y - (y1 - r)), 0);
    /* the pattern is laid from the card's centre, so that it is point-symmetric */
    double u = x - SIM__CD_W / 2, v = y - SIM__CD_H / 2, c = SIM__BACK_CELL;
    if (x < x0 || x > x1 || y < y0 || y > y1 || ex * ex + ey * ey > r * r)
        return false;
    switch (pattern) {
    case SIM__CD_BACK_STRIPES: {
        double t = (u + v) / c;
        return t - floor(t) < SIM__BACK_STRIPE;
    }
    case SIM__CD_BACK_CHECKS:
        return ((long)floor(u / c) + (long)floor(v / c)) % 2 == 0;
    case SIM__CD_BACK_LATTICE: {
        double a = (u + v) / SIM__BACK_LATTICE, b = (u - v) / SIM__BACK_LATTICE;
        double da = fabs(a - floor(a + 0.5)) * SIM__BACK_LATTICE / sqrt(2.0);
        double db = fabs(b - floor(b + 0.5)) * SIM__BACK_LATTICE / sqrt(2.0);
        return da > SIM__BACK_LINE && db > SIM__BACK_LINE;
    }
    case SIM__CD_BACK_DOTS: {
        double du = u - c * floor(u / c + 0.5), dv = v - c * floor(v / c + 0.5);
        return du * du + dv * dv > SIM__BACK_DOT * SIM__BACK_DOT;
    }
    default: { /* solid, with a thin line of card stock inside its edge */
        double in = fmin(fmin(x - x0, x1 - x), fmin(y - y0, y1 - y));
        return fabs(in - SIM__BACK_INSET) > SIM__BACK_LINE;
    }
    }
}

static int sim__cd_paint_back(const sim__cd_def *def, vis_image **out, base_err *err)
{
    vis_image *img = NULL;
    vis_color ink = sim__cd_hex(def->back_ink), paper = sim__cd_hex(def->paper);
    int rc, n = SIM__BACK_SS * SIM__BACK_SS;
    if ((rc = vis_image_new(SIM__CD_TEX_W, SIM__CD_TEX_H, 3, &img, err)) != 0)
        return rc;
    for (int j = 0; j < img->height; j++)
        for (int i = 0; i < img->width; i++) {
            unsigned char *p = img->data + (size_t)j * (size_t)img->stride + (size_t)i * 3;
            int k = 0;
            for (int sj = 0; sj < SIM__BACK_SS; sj++)
                for (int si = 0; si < SIM__BACK_SS; si++)
                    k += sim__cd_back_ink(def->back, (i + (si + 0.5) / SIM__BACK_SS) / CD_PX,
                                          (j + (sj + 0.5) / SIM__BACK_SS) / CD_PX);
            p[0] = (unsigned char)((ink.b * k + paper.b * (n - k) + n / 2) / n);
            p[1] = (unsigned char)((ink.g * k + paper.g * (n - k) + n / 2) / n);
            p[2] = (unsigned char)((ink.r * k + paper.r * (n - k) + n / 2) / n);
        }
    *out = img;
    return 0;
}

/* ---- librsvg: a cairo surface to a texture ---- */

struct sim__cd_deck {
    int design;
    char *path;           /* kde: the document */
    RsvgHandle *h;        /* kde: the document parsed */
    double doc_w, doc_h;  /* its size in pixels */
};

/* A rect librsvg gave back is usable: finite and not empty. */
#define SIM__CD_MIN_RECT 1e-3 /* px; below this an element has no extent to scale up */

static bool sim__cd_rect_ok(const RsvgRectangle *r)
{
    return isfinite(r->x) && isfinite(r->y) && isfinite(r->width) && isfinite(r->height) &&
           r->width > SIM__CD_MIN_RECT && r->height > SIM__CD_MIN_RECT;
}

/* The premultiplied ARGB32 surface over the paper colour, into a BGR
 * texture; BASE_EIO when nothing was printed at all. */
static int sim__cd_composite(cairo_surface_t *su, uint32_t paper_hex, const char *what,
                             vis_image **out, base_err *err)
{
    const unsigned char *src;
    vis_color paper = sim__cd_hex(paper_hex);
    vis_image *img = NULL;
    long inked = 0;
    int stride, rc;
    cairo_surface_flush(su);
    src = cairo_image_surface_get_data(su);
    stride = cairo_image_surface_get_stride(su);
    if (!src)
        return base_err_set(err, BASE_EIO, "sim: %s: no image from cairo", what);
    if ((rc = vis_image_new(SIM__CD_TEX_W, SIM__CD_TEX_H, 3, &img, err)) != 0)
        return rc;
    for (int j = 0; j < img->height; j++)
        for (int i = 0; i < img->width; i++) {
            uint32_t px;
            unsigned char *p = img->data + (size_t)j * (size_t)img->stride + (size_t)i * 3;
            unsigned a, left;
            memcpy(&px, src + (size_t)j * (size_t)stride + (size_t)i * 4, 4);
            a = px >> 24;
            left = 255 - a;
            inked += a > 0;
            p[0] = (unsigned char)((px & 255) + (left * paper.b + 127) / 255);
            p[1] = (unsigned char)(((px >> 8) & 255) + (left * paper.g + 127) / 255);
            p[2] = (unsigned char)(((px >> 16) & 255) + (left * paper.r + 127) / 255);
        }
    if (inked == 0) {
        vis_image_free(img);
        return base_err_set(err, BASE_EIO, "sim: %s rendered nothing", what);
    }
    *out = img;
    return 0;
}

static cairo_surface_t *sim__cd_surface(void)
{
    cairo_surface_t *su =
        cairo_image_surface_create(CAIRO_FORMAT_ARGB32, SIM__CD_TEX_W, SIM__CD_TEX_H);
    if (cairo_surface_status(su) != CAIRO_STATUS_SUCCESS) {
        cairo_surface_destroy(su);
        return NULL;
    }
    return su;
}

/* ---- kde decks ---- */

static void sim__cd_kde_element(int card, char id[32])
{
    static const char *const suits[4] = {"spade", "heart", "diamond", "club"};
    static const char *const courts[3] = {"jack", "queen", "king"};
    int rank = card % 13 + 1, suit = card / 13;
    if (card == SIM__CD_BACK)
        snprintf(id, 32, "#back");
    else if (rank > 10)
        snprintf(id, 32, "#%s_%s", courts[rank - 11], suits[suit]);
    else
        snprintf(id, 32, "#%d_%s", rank, suits[suit]);
}

static int sim__cd_kde_open(sim__cd_deck *d, const sim__cd_def *def, base_err *err)
{
    struct stat st;
    GError *ge = NULL;
    gdouble w = 0, h = 0;
    if (stat(d->path, &st) != 0 || !S_ISREG(st.st_mode))
        return base_err_set(err, BASE_ENOTFOUND,
                            "sim: deck %s: no file %s (Debian's kdegames-card-data-kf5)", def->id,
                            d->path);
    d->h = rsvg_handle_new_from_file(d->path, &ge);
    if (!d->h) {
        base_err_set(err, BASE_EIO, "sim: deck %s: cannot read %s: %s", def->id, d->path,
                     ge ? ge->message : "librsvg failed");
        g_clear_error(&ge);
        return BASE_EIO;
    }
    if (!rsvg_handle_get_intrinsic_size_in_pixels(d->h, &w, &h) || !(w > SIM__CD_MIN_RECT) ||
        !(h > SIM__CD_MIN_RECT) || !isfinite(w) || !isfinite(h))
        return base_err_set(err, BASE_EIO, "sim: deck %s: %s has no size in pixels", def->id,
                            d->path);
    d->doc_w = w;
    d->doc_h = h;
    return 0;
}

/* One element of a KDE document: its logical rect (the card's outline; the
 * ink rects are garbage in several decks) stretched over the texture.  An
 * element that lies in <defs> and shows only through <use>
 * (tigullio-international) has no place in the document, so its layer
 * rect is empty: it is then rendered on its own, its logical rect (given
 * relative to its ink rect) mapped onto the texture. */
static int sim__cd_kde_card(sim__cd_deck *d, const sim__cd_def *def, int card, vis_image **out,
                            base_err *err)
{
    char id[32], what[160];
    RsvgRectangle vp = {0, 0, d->doc_w, d->doc_h}, ink, logical;
    GError *ge = NULL;
    cairo_surface_t *su;
    cairo_t *cr = NULL;
    double tw = SIM__CD_TEX_W, th = SIM__CD_TEX_H;
    bool ok = false;
    int rc;
    sim__cd_kde_element(card, id);
    snprintf(what, sizeof what, "deck %s: %s in %s", def->id, id + 1, d->path);
    if (!(su = sim__cd_surface()))
        return base_err_set(err, BASE_ENOMEM, "sim: %s: no cairo surface", what);
    if (rsvg_handle_get_geometry_for_layer(d->h, id, &vp, &ink, &logical, &ge) &&
        sim__cd_rect_ok(&logical)) {
        /* a fresh cairo_t a card: cairo's errors stick to it */
        cr = cairo_create(su);
        cairo_scale(cr, tw / logical.width, th / logical.height);
        cairo_translate(cr, -logical.x, -logical.y);
        ok = cairo_status(cr) == CAIRO_STATUS_SUCCESS && rsvg_handle_render_layer(d->h, cr, id, &vp, &ge);
    } else {
        g_clear_error(&ge);
        if (rsvg_handle_get_geometry_for_element(d->h, id, &ink, &logical, &ge) &&
            sim__cd_rect_ok(&ink) && sim__cd_rect_ok(&logical)) {
            double sx = tw / logical.width, sy = th / logical.height;
            RsvgRectangle ev = {-logical.x * sx, -logical.y * sy, ink.width * sx, ink.height * sy};
            cr = cairo_create(su);
            ok = cairo_status(cr) == CAIRO_STATUS_SUCCESS &&
                 rsvg_handle_render_element(d->h, cr, id, &ev, &ge);
        }
    }
    if (cr) {
        ok = ok && cairo_status(cr) == CAIRO_STATUS_SUCCESS;
        cairo_destroy(cr);
    }
    if (!ok) {
        rc = base_err_set(err, ge ? BASE_EIO : BASE_ENOTFOUND, "sim: %s: %s", what,
                          ge ? ge->message : "no such card, or it has no size");
        g_clear_error(&ge);
        cairo_surface_destroy(su);
        return rc;
    }
    rc = sim__cd_composite(su, def->paper, what, out, err);
    cairo_surface_destroy(su);
    return rc;
}

/* ---- svg decks: the simulator's own documents ---- */

/* A growing string; a failed allocation sticks. */
typedef struct sim__sb {
    char *p;
    size_t n, cap;
    bool failed;
} sim__sb;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void sim__sb_printf(sim__sb *b, const char *fmt, ...)
{
    va_list ap;
    int k;
    if (b->failed)
        return;
    for (;;) {
        size_t room = b->cap - b->n;
        va_start(ap, fmt);
        k = vsnprintf(b->p ? b->p + b->n : NULL, b->p ? room : 0, fmt, ap);
        va_end(ap);
        if (k < 0) {
            b->failed = true;
            return;
        }
        if (b->p && (size_t)k < room) {
            b->n += (size_t)k;
            return;
        }
        {
            size_t cap = b->cap ? b->cap : 4096;
            char *q;
            while (cap < b->n + (size_t)k + 1)
                cap *= 2;
            if (!(q = realloc(b->p, cap))) {
                b->failed = true;
                return;
            }
            b->p = q;
            b->cap = cap;
        }
    }
}

/* The documents are in hundredths of a millimetre with integer
 * coordinates (viewBox 0 0 6300 8800), so that no printf locale can put a
 * comma where SVG wants a point. */
#define SIM__U(mm) (lround((mm) * 100.0))

/* A suit symbol's outline: moves, lines, cubic curves and closes in units
 * of its half-height (y down, centred on 0), and whole circles. */
typedef struct sim__cd_op {
    char op; /* 'M' x y, 'L' x y, 'C' x1 y1 x2 y2 x y, 'Z', 'O' cx cy r; 0 ends */
    float v[6];
} sim__cd_op;

static const sim__cd_op sim__cd_heart_classic[] = {
    {'M', {0, -0.55f}},
    {'C', {0.12f, -1.0f, 0.9f, -1.05f, 0.9f, -0.36f}},
    {'C', {0.9f, 0.12f, 0.32f, 0.5f, 0, 1.0f}},
    {'C', {-0.32f, 0.5f, -0.9f, 0.12f, -0.9f, -0.36f}},
    {'C', {-0.9f, -1.05f, -0.12f, -1.0f, 0, -0.55f}},
    {'Z', {0}},
    {0, {0}},
};
static const sim__cd_op sim__cd_spade_classic[] = {
    {'M', {0, -1.0f}},
    {'C', {-0.3f, -0.55f, -0.92f, -0.25f, -0.92f, 0.2f}},
    {'C', {-0.92f, 0.55f, -0.6f, 0.72f, -0.38f, 0.72f}},
    {'C', {-0.2f, 0.72f, -0.08f, 0.62f, -0.05f, 0.5f}},
    {'C', {-0.08f, 0.78f, -0.22f, 0.92f, -0.42f, 1.0f}},
    {'L', {0.42f, 1.0f}},
    {'C', {0.22f, 0.92f, 0.08f, 0.78f, 0.05f, 0.5f}},
    {'C', {0.08f, 0.62f, 0.2f, 0.72f, 0.38f, 0.72f}},
    {'C', {0.6f, 0.72f, 0.92f, 0.55f, 0.92f, 0.2f}},
    {'C', {0.92f, -0.25f, 0.3f, -0.55f, 0, -1.0f}},
    {'Z', {0}},
    {0, {0}},
};
static const sim__cd_op sim__cd_diamond_classic[] = {
    {'M', {0, -1.0f}},
    {'C', {0.2f, -0.65f, 0.45f, -0.3f, 0.72f, 0}},
    {'C', {0.45f, 0.3f, 0.2f, 0.65f, 0, 1.0f}},
    {'C', {-0.2f, 0.65f, -0.45f, 0.3f, -0.72f, 0}},
    {'C', {-0.45f, -0.3f, -0.2f, -0.65f, 0, -1.0f}},
    {'Z', {0}},
    {0, {0}},
};
static const sim__cd_op sim__cd_club_classic[] = {
    {'O', {0, -0.52f, 0.38f}},
    {'O', {-0.5f, 0.1f, 0.38f}},
    {'O', {0.5f, 0.1f, 0.38f}},
    {'O', {0, 0.02f, 0.24f}},
    {'M', {-0.07f, 0.05f}},
    {'C', {-0.07f, 0.55f, -0.2f, 0.88f, -0.42f, 1.0f}},
    {'L', {0.42f, 1.0f}},
    {'C', {0.2f, 0.88f, 0.07f, 0.55f, 0.07f, 0.05f}},
    {'Z', {0}},
    {0, {0}},
};
/* geometric: circles and straight lines, fatter */
static const sim__cd_op sim__cd_heart_geometric[] = {
    {'O', {-0.46f, -0.46f, 0.5f}},
    {'O', {0.46f, -0.46f, 0.5f}},
    {'M', {-0.94f, -0.3f}},
    {'L', {0, 1.0f}},
    {'L', {0.94f, -0.3f}},
    {'Z', {0}},
    {0, {0}},
};
static const sim__cd_op sim__cd_spade_geometric[] = {
    {'O', {-0.46f, 0.26f, 0.48f}},
    {'O', {0.46f, 0.26f, 0.48f}},
    {'M', {-0.92f, 0.12f}},
    {'L', {0, -1.0f}},
    {'L', {0.92f, 0.12f}},
    {'Z', {0}},
    {'M', {-0.11f, 0.4f}},
    {'L', {0.11f, 0.4f}},
    {'L', {0.36f, 1.0f}},
    {'L', {-0.36f, 1.0f}},
    {'Z', {0}},
    {0, {0}},
};
static const sim__cd_op sim__cd_diamond_geometric[] = {
    {'M', {0, -1.0f}}, {'L', {0.8f, 0}}, {'L', {0, 1.0f}}, {'L', {-0.8f, 0}}, {'Z', {0}},
    {0, {0}},
};
static const sim__cd_op sim__cd_club_geometric[] = {
    {'O', {0, -0.5f, 0.44f}},
    {'O', {-0.5f, 0.16f, 0.44f}},
    {'O', {0.5f, 0.16f, 0.44f}},
    {'O', {0, 0.05f, 0.3f}},
    {'M', {-0.12f, 0.1f}},
    {'L', {0.12f, 0.1f}},
    {'L', {0.36f, 1.0f}},
    {'L', {-0.36f, 1.0f}},
    {'Z', {0}},
    {0, {0}},
};

static const sim__cd_op *const sim__cd_outlines[2][4] = {
    /* by RULES_SPADES, _HEARTS, _DIAMONDS, _CLUBS */
    {sim__cd_spade_classic, sim__cd_heart_classic, sim__cd_diamond_classic, sim__cd_club_classic},
    {sim__cd_spade_geometric, sim__cd_heart_geometric, sim__cd_diamond_geometric,
     sim__cd_club_geometric},
};

static uint32_t sim__cd_ink(const sim__cd_style *s, int suit)
{
    static const uint32_t two[4] = {0x141418, 0xc8141e, 0xc8141e, 0x141418};
    static const uint32_t four[4] = {0x141418, 0xc8141e, 0x1a4fc0, 0x138a2e};
    return s->four_colour ? four[suit] : two[suit];
}

/* A suit symbol of half-height size mm centred at (cx, cy) mm, upside down
 * when flip. */
static void sim__cd_svg_suit(sim__sb *b, const sim__cd_style *s, int suit, double cx, double cy,
                             double size, bool flip, uint32_t fill)
{
    const sim__cd_op *op = sim__cd_outlines[s->suits][suit];
    double f = flip ? -size : size;
    bool open = false;
    sim__sb_printf(b, "<g fill=\"#%06x\">", (unsigned)fill);
    for (; op->op; op++) {
        switch (op->op) {
        case 'O':
            sim__sb_printf(b, "<circle cx=\"%ld\" cy=\"%ld\" r=\"%ld\"/>", SIM__U(cx + f * op->v[0]),
                           SIM__U(cy + f * op->v[1]), SIM__U(size * op->v[2]));
            break;
        case 'M':
            sim__sb_printf(b, "<path d=\"M%ld %ld", SIM__U(cx + f * op->v[0]),
                           SIM__U(cy + f * op->v[1]));
            open = true;
            break;
        case 'L':
            sim__sb_printf(b, "L%ld %ld", SIM__U(cx + f * op->v[0]), SIM__U(cy + f * op->v[1]));
            break;
        case 'C':
            sim__sb_printf(b, "C%ld %ld %ld %ld %ld %ld", SIM__U(cx + f * op->v[0]),
                           SIM__U(cy + f * op->v[1]), SIM__U(cx + f * op->v[2]),
                           SIM__U(cy + f * op->v[3]), SIM__U(cx + f * op->v[4]),
                           SIM__U(cy + f * op->v[5]));
            break;
        default: /* 'Z' */
            if (open)
                sim__sb_printf(b, "Z\"/>");
            open = false;
            break;
        }
    }
    sim__sb_printf(b, "</g>");
}

/* Text centred on x mm with its baseline at y mm; squeeze narrows it (the
 * two digits of 10 in the width of one). */
static void sim__cd_svg_text(sim__sb *b, const sim__cd_style *s, const char *text, double x,
                             double y, double size, double squeeze, uint32_t fill)
{
    long q = lround(squeeze * 1000);
    sim__sb_printf(b,
                   "<g transform=\"translate(%ld %ld) scale(%ld.%03ld 1)\"><text x=\"0\" y=\"0\" "
                   "font-family=\"%s\" font-weight=\"%s\" font-size=\"%ld\" "
                   "text-anchor=\"middle\" fill=\"#%06x\">%s</text></g>",
                   SIM__U(x), SIM__U(y), q / 1000, q % 1000, s->font, s->bold ? "bold" : "normal",
                   SIM__U(size), (unsigned)fill, text);
}

/* The corner index, its column centred on x mm: the rank above the suit,
 * within the usual corner (docs/sim.md: rank and suit within about 16 mm
 * of the long edge and 30 mm of the short one). */
#define SIM__IDX_LARGE_X 6.0     /* mm from the long edge to the index's middle */
#define SIM__IDX_LARGE_FONT 9.6  /* mm, the rank's em size (caps about 7 mm tall) */
#define SIM__IDX_LARGE_BASE 10.4 /* mm from the short edge to the rank's baseline */
#define SIM__IDX_LARGE_SUIT 2.9  /* mm, the suit's half-height under it */
#define SIM__IDX_SMALL_X 5.0
#define SIM__IDX_SMALL_FONT 7.0  /* caps about 5 mm tall */
#define SIM__IDX_SMALL_BASE 8.2
#define SIM__IDX_SMALL_SUIT 2.2
#define SIM__IDX_TEN 0.72        /* the squeeze of "10" */

static void sim__cd_svg_index(sim__sb *b, const sim__cd_style *s, int rank, int suit, double x)
{
    uint32_t ink = sim__cd_ink(s, suit);
    double font = s->large_index ? SIM__IDX_LARGE_FONT : SIM__IDX_SMALL_FONT;
    double base = s->large_index ? SIM__IDX_LARGE_BASE : SIM__IDX_SMALL_BASE;
    double half = s->large_index ? SIM__IDX_LARGE_SUIT : SIM__IDX_SMALL_SUIT;
    sim__cd_svg_text(b, s, sim__cd_rank_names[rank], x, base, font, rank == 10 ? SIM__IDX_TEN : 1,
                     ink);
    sim__cd_svg_suit(b, s, suit, x, base + half + 0.13 * font, half, false, ink);
}

/* The court panel (mm) and the figure's parts in its top half. */
#define SIM__CT_X0 12.0
#define SIM__CT_Y0 10.0
#define SIM__CT_X1 51.0
#define SIM__CT_Y1 78.0

static void sim__cd_svg_figure(sim__sb *b, const sim__cd_style *s, int rank, int suit)
{
    uint32_t ink = sim__cd_ink(s, suit), line = s->court_line;
    const double cx = SIM__CD_W / 2, hy = 24.5;
    /* the robe, the collar */
    sim__sb_printf(b,
                   "<path d=\"M%ld %ldL%ld %ldL%ld %ldL%ld %ldZ\" fill=\"#%06x\" stroke=\"#%06x\" "
                   "stroke-width=\"40\"/>",
                   SIM__U(cx - 12.5), SIM__U(44.5), SIM__U(cx - 6.5), SIM__U(31), SIM__U(cx + 6.5),
                   SIM__U(31), SIM__U(cx + 12.5), SIM__U(44.5), (unsigned)ink, (unsigned)line);
    sim__sb_printf(b, "<path d=\"M%ld %ldL%ld %ldL%ld %ldZ\" fill=\"#e0b020\"/>", SIM__U(cx - 4),
                   SIM__U(31), SIM__U(cx), SIM__U(36), SIM__U(cx + 4), SIM__U(31));
    if (rank == 12) /* hair behind the head */
        sim__sb_printf(b, "<ellipse cx=\"%ld\" cy=\"%ld\" rx=\"%ld\" ry=\"%ld\" fill=\"#6b3a1e\"/>",
                       SIM__U(cx), SIM__U(hy + 1.5), SIM__U(5.8), SIM__U(6.5));
    sim__sb_printf(b,
                   "<circle cx=\"%ld\" cy=\"%ld\" r=\"%ld\" fill=\"#f0cda9\" stroke=\"#%06x\" "
                   "stroke-width=\"30\"/>",
                   SIM__U(cx), SIM__U(hy), SIM__U(4.6), (unsigned)line);
    if (rank == 13) { /* a crown and a sceptre */
        sim__sb_printf(b,
                       "<path d=\"M%ld %ldL%ld %ldL%ld %ldL%ld %ldL%ld %ldL%ld %ldL%ld %ldZ\" "
                       "fill=\"#e0b020\" stroke=\"#%06x\" stroke-width=\"25\"/>",
                       SIM__U(cx - 5), SIM__U(hy - 2.5), SIM__U(cx - 5), SIM__U(hy - 9),
                       SIM__U(cx - 2.5), SIM__U(hy - 6), SIM__U(cx), SIM__U(hy - 10.5),
                       SIM__U(cx + 2.5), SIM__U(hy - 6), SIM__U(cx + 5), SIM__U(hy - 9),
                       SIM__U(cx + 5), SIM__U(hy - 2.5), (unsigned)line);
        sim__sb_printf(b, "<rect x=\"%ld\" y=\"%ld\" width=\"%ld\" height=\"%ld\" fill=\"#e0b020\"/>",
                       SIM__U(cx + 9), SIM__U(22), SIM__U(1.2), SIM__U(22.5));
        sim__sb_printf(b, "<circle cx=\"%ld\" cy=\"%ld\" r=\"%ld\" fill=\"#e0b020\"/>",
                       SIM__U(cx + 9.6), SIM__U(21.5), SIM__U(1.8));
    } else if (rank == 12) { /* a tiara and a flower */
        for (int k = -2; k <= 2; k++)
            sim__sb_printf(b, "<circle cx=\"%ld\" cy=\"%ld\" r=\"%ld\" fill=\"#e0b020\"/>",
                           SIM__U(cx + 2.1 * k), SIM__U(hy - 5.2 + 0.25 * k * k), SIM__U(1.0));
        sim__sb_printf(b, "<rect x=\"%ld\" y=\"%ld\" width=\"%ld\" height=\"%ld\" fill=\"#2a7a2a\"/>",
                       SIM__U(cx - 10.4), SIM__U(24), SIM__U(0.8), SIM__U(18));
        sim__sb_printf(b, "<circle cx=\"%ld\" cy=\"%ld\" r=\"%ld\" fill=\"#d02040\"/>",
                       SIM__U(cx - 10), SIM__U(23), SIM__U(2.2));
    } else { /* a cap with a feather, a halberd */
        sim__sb_printf(b, "<rect x=\"%ld\" y=\"%ld\" width=\"%ld\" height=\"%ld\" fill=\"#%06x\"/>",
                       SIM__U(cx - 5.2), SIM__U(hy - 7.5), SIM__U(10.4), SIM__U(4), (unsigned)line);
        sim__sb_printf(b,
                       "<path d=\"M%ld %ldC%ld %ld %ld %ld %ld %ldZ\" fill=\"#d02040\"/>",
                       SIM__U(cx + 3), SIM__U(hy - 7), SIM__U(cx + 6), SIM__U(hy - 14),
                       SIM__U(cx + 10), SIM__U(hy - 12), SIM__U(cx + 5), SIM__U(hy - 6));
        sim__sb_printf(b, "<rect x=\"%ld\" y=\"%ld\" width=\"%ld\" height=\"%ld\" fill=\"#8a6a3a\"/>",
                       SIM__U(cx - 10.2), SIM__U(16), SIM__U(1), SIM__U(28));
        sim__sb_printf(b, "<path d=\"M%ld %ldL%ld %ldL%ld %ldZ\" fill=\"#a0a0a8\"/>",
                       SIM__U(cx - 9.7), SIM__U(13.5), SIM__U(cx - 12.5), SIM__U(18.5),
                       SIM__U(cx - 7), SIM__U(18.5));
    }
    /* the suit beside the head */
    sim__cd_svg_suit(b, s, suit, SIM__CT_X1 - 5.5, SIM__CT_Y0 + 6, 3.0, false, ink);
}

static void sim__cd_svg_court(sim__sb *b, const sim__cd_style *s, int rank, int suit)
{
    static const char *const letters[3] = {"J", "Q", "K"};
    uint32_t ink = sim__cd_ink(s, suit);
    sim__sb_printf(b,
                   "<rect x=\"%ld\" y=\"%ld\" width=\"%ld\" height=\"%ld\" rx=\"120\" "
                   "fill=\"#%06x\" stroke=\"#%06x\" stroke-width=\"60\"/>",
                   SIM__U(SIM__CT_X0), SIM__U(SIM__CT_Y0), SIM__U(SIM__CT_X1 - SIM__CT_X0),
                   SIM__U(SIM__CT_Y1 - SIM__CT_Y0), (unsigned)s->court_fill,
                   (unsigned)s->court_line);
    if (s->court == SIM__CD_COURT_FIGURE) {
        /* the top half drawn, the bottom half its turned copy */
        sim__sb_printf(b,
                       "<defs><clipPath id=\"top\"><rect x=\"%ld\" y=\"%ld\" width=\"%ld\" "
                       "height=\"%ld\"/></clipPath><g id=\"fig\" clip-path=\"url(#top)\">",
                       SIM__U(SIM__CT_X0), SIM__U(SIM__CT_Y0), SIM__U(SIM__CT_X1 - SIM__CT_X0),
                       SIM__U(SIM__CD_H / 2 - SIM__CT_Y0));
        sim__cd_svg_figure(b, s, rank, suit);
        sim__sb_printf(b,
                       "</g></defs><use xlink:href=\"#fig\"/><use xlink:href=\"#fig\" "
                       "transform=\"rotate(180 %ld %ld)\"/>",
                       SIM__U(SIM__CD_W / 2), SIM__U(SIM__CD_H / 2));
        sim__sb_printf(b,
                       "<path d=\"M%ld %ldL%ld %ld\" stroke=\"#%06x\" stroke-width=\"50\"/>",
                       SIM__U(SIM__CT_X0), SIM__U(SIM__CD_H / 2), SIM__U(SIM__CT_X1),
                       SIM__U(SIM__CD_H / 2), (unsigned)s->court_line);
    } else {
        /* a big letter between two pips, the lower one turned */
        sim__cd_svg_text(b, s, letters[rank - 11], SIM__CD_W / 2, SIM__CD_H / 2 + 11, 31, 1, ink);
        sim__cd_svg_suit(b, s, suit, SIM__CT_X0 + 5, SIM__CT_Y0 + 6, 3.2, false, ink);
        sim__cd_svg_suit(b, s, suit, SIM__CT_X1 - 5, SIM__CT_Y1 - 6, 3.2, true, ink);
    }
}

/* The pips: columns this far from the middle, rows spread this far. */
#define SIM__PIP_DX 12.5   /* mm, clear of the indices */
#define SIM__PIP_DY 27.0   /* mm, from the middle to the outer rows */
#define SIM__PIP_HALF 4.6  /* mm, a pip's half-height */
#define SIM__ACE_HALF 12.0 /* mm, the ace's pip (a spade's a little larger) */
#define SIM__ACE_SPADE 13.5

static int sim__cd_svg_card(const sim__cd_def *def, int card, vis_image **out, base_err *err)
{
    const sim__cd_style *s = &def->s;
    int rank = card % 13 + 1, suit = card / 13, rc;
    uint32_t ink = sim__cd_ink(s, suit);
    double ix = s->large_index ? SIM__IDX_LARGE_X : SIM__IDX_SMALL_X;
    sim__sb b = {0};
    char what[96];
    GError *ge = NULL;
    RsvgHandle *h;
    cairo_surface_t *su;
    cairo_t *cr;
    RsvgRectangle vp = {0, 0, SIM__CD_TEX_W, SIM__CD_TEX_H};
    bool ok;

    snprintf(what, sizeof what, "deck %s: card %s%c", def->id, sim__cd_rank_names[rank],
             "SHDC"[suit]);
    sim__sb_printf(&b,
                   "<svg xmlns=\"http://www.w3.org/2000/svg\" "
                   "xmlns:xlink=\"http://www.w3.org/1999/xlink\" width=\"%d\" height=\"%d\" "
                   "viewBox=\"0 0 %ld %ld\"><rect width=\"%ld\" height=\"%ld\" rx=\"300\" "
                   "fill=\"#%06x\"/>",
                   SIM__CD_TEX_W, SIM__CD_TEX_H, SIM__U(SIM__CD_W), SIM__U(SIM__CD_H),
                   SIM__U(SIM__CD_W), SIM__U(SIM__CD_H), (unsigned)def->paper);
    if (s->frame)
        sim__sb_printf(&b,
                       "<rect x=\"200\" y=\"200\" width=\"%ld\" height=\"%ld\" rx=\"150\" "
                       "fill=\"none\" stroke=\"#%06x\" stroke-width=\"35\"/>",
                       SIM__U(SIM__CD_W - 4), SIM__U(SIM__CD_H - 4), (unsigned)s->court_line);
    if (rank == 1) {
        sim__cd_svg_suit(&b, s, suit, SIM__CD_W / 2, SIM__CD_H / 2,
                         suit == RULES_SPADES ? SIM__ACE_SPADE : SIM__ACE_HALF, false, ink);
    } else if (rank <= 10) {
        for (int i = 0; i < rank; i++) {
            double px = sim__cd_pips[rank][i][0], py = sim__cd_pips[rank][i][1];
            sim__cd_svg_suit(&b, s, suit, SIM__CD_W / 2 + px * SIM__PIP_DX,
                             SIM__CD_H / 2 + py * SIM__PIP_DY, SIM__PIP_HALF, py > SIM__PIP_TURN,
                             ink);
        }
    } else {
        sim__cd_svg_court(&b, s, rank, suit);
    }
    /* the indices: top-left (and top-right), turned into the opposite corners */
    sim__sb_printf(&b, "<g id=\"idx\">");
    sim__cd_svg_index(&b, s, rank, suit, ix);
    if (s->four_corners)
        sim__cd_svg_index(&b, s, rank, suit, SIM__CD_W - ix);
    sim__sb_printf(&b, "</g><use xlink:href=\"#idx\" transform=\"rotate(180 %ld %ld)\"/></svg>",
                   SIM__U(SIM__CD_W / 2), SIM__U(SIM__CD_H / 2));
    if (b.failed) {
        free(b.p);
        return base_err_set(err, BASE_ENOMEM, "sim: %s: out of memory", what);
    }

    h = rsvg_handle_new_from_data((const guint8 *)b.p, b.n, &ge);
    free(b.p);
    if (!h) {
        base_err_set(err, BASE_EIO, "sim: %s: librsvg: %s", what, ge ? ge->message : "failed");
        g_clear_error(&ge);
        return BASE_EIO;
    }
    if (!(su = sim__cd_surface())) {
        g_object_unref(h);
        return base_err_set(err, BASE_ENOMEM, "sim: %s: no cairo surface", what);
    }
    cr = cairo_create(su);
    ok = cairo_status(cr) == CAIRO_STATUS_SUCCESS && rsvg_handle_render_document(h, cr, &vp, &ge) &&
         cairo_status(cr) == CAIRO_STATUS_SUCCESS;
    cairo_destroy(cr);
    g_object_unref(h);
    if (!ok) {
        base_err_set(err, BASE_EIO, "sim: %s: librsvg: %s", what, ge ? ge->message : "failed");
        g_clear_error(&ge);
        cairo_surface_destroy(su);
        return BASE_EIO;
    }
    rc = sim__cd_composite(su, def->paper, what, out, err);
    cairo_surface_destroy(su);
    return rc;
}

/* ---- an open deck ---- */

int sim__cd_deck_open_at(int design, const char *path, sim__cd_deck **out, base_err *err)
{
    sim__cd_deck *d;
    int rc = 0;
    *out = NULL;
    if (design < 0 || design >= SIM__CD_NDECKS)
        return base_err_set(err, BASE_EINVAL, "sim: deck design %d is outside 0..%d", design,
                            SIM__CD_NDECKS - 1);
    if (path && sim__cd_defs[design].kind != SIM__CD_KDE)
        return base_err_set(err, BASE_EINVAL, "sim: deck %s is not read from a file",
                            sim__cd_defs[design].id);
    if (!(d = calloc(1, sizeof *d)))
        return base_err_set(err, BASE_ENOMEM, "sim: out of memory");
    d->design = design;
    if (sim__cd_defs[design].kind == SIM__CD_KDE) {
        if (!(d->path = strdup(path ? path : sim__cd_defs[design].path))) {
            free(d);
            return base_err_set(err, BASE_ENOMEM, "sim: out of memory");
        }
        rc = sim__cd_kde_open(d, &sim__cd_defs[design], err);
    }
    if (rc) {
        sim__cd_deck_close(d);
        return rc;
    }
    *out = d;
    return 0;
}

int sim__cd_deck_render(sim__cd_deck *d, int card, vis_image **out, base_err *err)
{
    const sim__cd_def *def;
    *out = NULL;
    if (!d || card < 0 || card > SIM__CD_BACK)
        return base_err_set(err, BASE_EINVAL, "sim: no card %d to render", card);
    def = &sim__cd_defs[d->design];
    if (def->kind == SIM__CD_KDE)
        return sim__cd_kde_card(d, def, card, out, err);
    if (card == SIM__CD_BACK)
        return sim__cd_paint_back(def, out, err);
    if (def->kind == SIM__CD_SVG)
        return sim__cd_svg_card(def, card, out, err);
    {
        sim__cd_design dd;
        int rc;
        sim__cd_drawn_design(def->drawn, &dd);
        if ((rc = sim__cd_draw(&dd, card % 13 + 1, card / 13, out)) != 0)
            return base_err_set(err, rc, "sim: deck %s: cannot draw card %d", def->id, card);
        return 0;
    }
}

int sim__cd_deck_open(int design, sim__cd_deck **out, base_err *err)
{
    return sim__cd_deck_open_at(design, NULL, out, err);
}

void sim__cd_deck_close(sim__cd_deck *d)
{
    if (!d)
        return;
    if (d->h)
        g_object_unref(d->h);
    free(d->path);
    free(d);
}
