/* sim/cards_pieces.c: playing cards for the simulator (game "cards").
 *
 * The look: a poker card (63 x 88 mm on a 63 x 88 grid, so that neighbours
 * touch edge to edge as on a real table) with rounded corners, the rank and suit
 * index in two opposite corners, the pips of 2-10 in the usual layout (the
 * lower ones upside down), a large pip for the ace and a framed figure for
 * J Q K.  Three deck designs (classic, four-colour, cream with a frame and
 * large indices); one per stream.  Each face is drawn once, when the card
 * first shows, into a texture through the OpenCV shim's drawing calls
 * (Hershey font for the indices, vector polygons for the suits), and the
 * renderer samples it.
 *
 * The player: the engine counts the deck, so this file shuffles and deals
 * it, draws for the mover before each turn (the "hand" of an event is the
 * hand after that draw, as the engine expects) and picks a placement from
 * the engine's generator. */
#include "sim_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CD_W 63.0
#define CD_H 88.0
#define CD_PX 4.0 /* texture pixels per mm */
#define CD_DEAL 5

typedef struct sim__cd_design {
    vis_color bg, suit[4], court, court_line;
    double index_scale;
    int index_thick;
    bool frame;
    float back[3];
} sim__cd_design;

typedef struct sim__cd {
    int nplayers;
    sim__cd_design d;
    uint8_t deck[52]; /* undrawn, the top is deck[ndeck - 1]; card = suit * 13 + rank - 1 */
    int ndeck;
    rules_piece hand[RULES_MAX_PLAYERS][RULES_MAX_HAND];
    int nhand[RULES_MAX_PLAYERS];
    vis_image *tex[52];
} sim__cd;

/* ---- drawing a face ---- */

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

static int sim__cd_draw(const sim__cd_design *d, int rank, int suit, vis_image **out)
{
    static const char *const names[14] = {"", "A", "2", "3", "4", "5", "6", "7",
                                          "8", "9", "10", "J", "Q", "K"};
    /* pip positions of 2..10 in units of the pip area (x: -1 0 1, y: -1..1) */
    static const double pips[11][10][2] = {
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
    int w = (int)(CD_W * CD_PX), h = (int)(CD_H * CD_PX), rc;
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
            double px = pips[rank][i][0], py = pips[rank][i][1];
            sim__cd_suit(img, suit, w / 2.0 + px * 11.5 * mm, h / 2.0 + py * 26 * mm, 4.8 * mm,
                         py > 0.01, ink);
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

static void sim__cd_design_pick(sim__cd_design *d, sim__rng *r)
{
    int k = sim__rng_int(r, 3);
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
    d->back[0] = 0.6f;
    d->back[1] = 0.1f;
    d->back[2] = 0.1f;
    if (k == 1) { /* four-colour deck */
        d->suit[RULES_DIAMONDS] = vis_rgb(20, 70, 200);
        d->suit[RULES_CLUBS] = vis_rgb(20, 130, 45);
        d->court = vis_rgb(225, 235, 250);
        d->back[0] = 0.1f;
        d->back[1] = 0.2f;
        d->back[2] = 0.6f;
    } else if (k == 2) { /* cream, framed, large indices */
        d->bg = vis_rgb(238, 230, 205);
        d->frame = true;
        d->index_scale = 1.35;
        d->index_thick = 3;
        d->court = vis_rgb(245, 215, 160);
        d->court_line = vis_rgb(120, 30, 30);
        d->back[0] = 0.1f;
        d->back[1] = 0.35f;
        d->back[2] = 0.15f;
    }
}

/* ---- the piece kind ---- */

static void sim__cd_decorate(void *dstate, sim__obj *o, sim__rng *r)
{
    sim__cd *c = dstate;
    int card = o->piece.b * 13 + o->piece.a - 1;
    (void)r;
    o->corner_r = 3;
    if (card < 0 || card >= 52)
        return;
    if (!c->tex[card])
        sim__cd_draw(&c->d, o->piece.a, o->piece.b, &c->tex[card]);
    o->tex = c->tex[card];
    memcpy(o->rgb, c->d.back, sizeof o->rgb);
}

static void sim__cd_shade(const sim__obj *o, int face, double u, double v, float rgb[3],
                          float *gloss)
{
    const vis_image *t = o->tex;
    *gloss = 0.25f;
    if (face == 5) {
        memcpy(rgb, o->rgb, 3 * sizeof *rgb);
        return;
    }
    if (face != 0 || !t) {
        rgb[0] = rgb[1] = rgb[2] = 0.8f;
        return;
    }
    {
        double x = (u + 1) / 2 * (t->width - 1), y = (v + 1) / 2 * (t->height - 1);
        int x0 = (int)floor(x), y0 = (int)floor(y);
        double fx = x - x0, fy = y - y0;
        if (x0 < 0)
            x0 = 0, fx = 0;
        if (y0 < 0)
            y0 = 0, fy = 0;
        if (x0 >= t->width - 1)
            x0 = t->width - 2, fx = 1;
        if (y0 >= t->height - 1)
            y0 = t->height - 2, fy = 1;
        const unsigned char *p = t->data + (size_t)y0 * (size_t)t->stride + (size_t)x0 * 3;
        for (int k = 0; k < 3; k++) {
            double a = p[2 - k] * (1 - fx) + p[3 + 2 - k] * fx;
            double b = p[t->stride + 2 - k] * (1 - fx) + p[t->stride + 3 + 2 - k] * fx;
            rgb[k] = (float)((a * (1 - fy) + b * fy) / 255.0);
        }
    }
}

static const sim__piece_kind sim__cd_kind = {
    .game = "cards",
    .pitch_x = 63,
    .pitch_y = 88,
    .sx = CD_W,
    .sy = CD_H,
    .sz = 0.35,
    .decorate = sim__cd_decorate,
    .shade = sim__cd_shade,
};

/* ---- the player ---- */

static rules_piece sim__cd_piece(int card)
{
    rules_piece p;
    memset(&p, 0, sizeof p);
    p.a = (uint8_t)(card % 13 + 1);
    p.b = (uint8_t)(card / 13);
    p.owner = -1;
    return p;
}

static int sim__cd_create(cJSON *header, int nplayers, sim__rng *r, void **state)
{
    sim__cd *c = calloc(1, sizeof *c);
    cJSON *start;
    char name[4];
    if (!c)
        return BASE_ENOMEM;
    c->nplayers = nplayers;
    sim__cd_design_pick(&c->d, r);
    for (int i = 0; i < 52; i++)
        c->deck[i] = (uint8_t)i;
    for (int i = 51; i > 0; i--) {
        int j = sim__rng_int(r, i + 1);
        uint8_t t = c->deck[i];
        c->deck[i] = c->deck[j];
        c->deck[j] = t;
    }
    c->ndeck = 52;
    {
        rules_piece p = sim__cd_piece(c->deck[--c->ndeck]);
        start = cJSON_AddObjectToObject(header, "start");
        cJSON_AddNumberToObject(start, "x", 0);
        cJSON_AddNumberToObject(start, "y", 0);
        cJSON_AddStringToObject(start, "card", rules_card_name(p.a, p.b, name));
    }
    for (int p = 0; p < nplayers; p++)
        for (int i = 0; i < CD_DEAL; i++)
            c->hand[p][c->nhand[p]++] = sim__cd_piece(c->deck[--c->ndeck]);
    *state = c;
    return 0;
}

static int sim__cd_sync(void *state, const rules_game *g)
{
    const sim__cd *c = state;
    rules_status st;
    rules_game_status(g, &st);
    if (st.bag >= 0 && st.bag != c->ndeck)
        return BASE_ESTATE;
    for (int p = 0; p < c->nplayers; p++)
        if (st.hand[p] >= 0 && st.hand[p] != c->nhand[p])
            return BASE_ESTATE;
    return 0;
}

static void sim__cd_destroy(void *state)
{
    sim__cd *c = state;
    if (!c)
        return;
    for (int i = 0; i < 52; i++)
        vis_image_free(c->tex[i]);
    free(c);
}

/* The mover's cards for this turn: the hand and the card drawn first. */
static int sim__cd_held(const sim__cd *c, int player, rules_piece *held)
{
    int n = c->nhand[player];
    memcpy(held, c->hand[player], sizeof *held * (size_t)n);
    if (c->ndeck > 0 && n < RULES_MAX_HAND)
        held[n++] = sim__cd_piece(c->deck[c->ndeck - 1]);
    return n;
}

typedef struct sim__cd_pick {
    sim__rng *r;
    sim__fits_fn fits;
    void *ctx;
    rules_move *best;
    int count;
    bool pass;
} sim__cd_pick;

static int sim__cd_consider(void *ctx, const rules_move *m)
{
    sim__cd_pick *pk = ctx;
    if (m->type != RULES_MOVE_PLACE) {
        pk->pass = true;
        return 0;
    }
    if (!pk->fits(pk->ctx, m->pieces[0].x, m->pieces[0].y))
        return 0;
    /* uniform reservoir sampling */
    if (sim__rng_int(pk->r, ++pk->count) == 0)
        *pk->best = *m;
    return 0;
}

static int sim__cd_choose(void *state, const rules_game *g, int player, sim__rng *r,
                          sim__fits_fn fits, void *ctx, rules_move *m)
{
    sim__cd *c = state;
    rules_piece held[RULES_MAX_HAND];
    int nheld = sim__cd_held(c, player, held), rc;
    sim__cd_pick pk = {r, fits, ctx, m, 0, false};
    rules_status st;
    rules_game_status(g, &st);
    if (st.over)
        return BASE_ENOTFOUND;
    if ((rc = rules_generate(g, player, held, nheld, sim__cd_consider, &pk)) < 0)
        return rc;
    if (pk.count > 0)
        return 0;
    rules_move_init(m, RULES_MOVE_PASS);
    if (pk.pass) { /* no placement at all: a pass with the hand shown */
        m->nhand = nheld;
        memcpy(m->hand, held, sizeof *held * (size_t)nheld);
    }
    /* else placements exist but none fits on the mat: the hand stays
     * unknown, so that the pass stands (docs/rules-cards.md) */
    return 0;
}

static int sim__cd_choose_illegal(void *state, const rules_game *g, int player, sim__rng *r,
                                  sim__fits_fn fits, void *ctx, rules_move *m)
{
    rules_piece held[RULES_MAX_HAND];
    int nheld = sim__cd_held(state, player, held);
    return sim__illegal_single(g, player, held, nheld, 2, r, fits, ctx, m);
}

static int sim__cd_applied(void *state, const rules_game *g, int player, const rules_move *m,
                           sim__rng *r)
{
    sim__cd *c = state;
    rules_piece *h = c->hand[player];
    int *nh = &c->nhand[player];
    (void)r;
    if (c->ndeck > 0 && *nh < RULES_MAX_HAND)
        h[(*nh)++] = sim__cd_piece(c->deck[--c->ndeck]);
    if (m->type == RULES_MOVE_PLACE)
        for (int j = 0; j < *nh; j++)
            if (h[j].a == m->pieces[0].a && h[j].b == m->pieces[0].b) {
                h[j] = h[--*nh];
                break;
            }
    return sim__cd_sync(c, g);
}

const sim__driver sim__cards_driver = {
    .game = "cards",
    .kind = &sim__cd_kind,
    .create = sim__cd_create,
    .sync = sim__cd_sync,
    .destroy = sim__cd_destroy,
    .choose = sim__cd_choose,
    .choose_illegal = sim__cd_choose_illegal,
    .applied = sim__cd_applied,
};
