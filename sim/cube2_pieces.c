/* sim/cube2_pieces.c: cube² for the simulator.
 *
 * The look: a 6x6 board of 30 mm squares with a border, the two home
 * squares marked with a star, lying on the mat as a slab of its own; on it
 * cubes and cylinders of about 22 mm in the six colours.  A design is one
 * set: the board (wood with burned lines, a printed card, a cloth), how
 * its star is drawn, and the pieces' paint, hues and size.  Designs are
 * drawn from the ranges below, each from its own seed, the board's kind
 * taking turns so that every kind is in every third of the designs.
 *
 * The player: the engine generates every placement of the setup and every
 * move; this file picks among them, exits and moves toward the mover's
 * home square more often (people play to win), and keeps the pieces each
 * player has taken off, which lie in a row on their side of the table. */
#include "sim_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define C2_PITCH 30.0   /* a square, mm (FORMATS.md 5) */
#define C2_N 6          /* squares a side, the default board */
#define C2_NDESIGNS 24
#define C2_HALF (C2_N * C2_PITCH / 2)

enum { C2_WOOD, C2_CARD, C2_CLOTH, C2_NKINDS };

typedef struct sim__c2_design {
    int board;              /* C2_WOOD, C2_CARD, C2_CLOTH */
    float base[3], grain[3];/* board albedo and its grain, weave or print tone */
    double grain_mm;        /* period of the grain or weave, mm */
    float line[3];          /* the lines between squares */
    double line_w;          /* their width, mm */
    double line_soft;       /* how blurred their edges are, mm (cloth prints bleed) */
    double border;          /* board beyond the squares, mm */
    float border_rgb[3];
    bool checker;           /* card: alternate squares printed in alt */
    float alt[3];
    double thick;           /* mm */
    float edge[3];          /* the board's sides */
    int star_n;             /* points of the home squares' star: 5, 6 or 8 */
    double star_ro, star_ri;/* outer and inner radius, shares of the half square */
    double star_turn;       /* radians */
    bool star_ring;         /* a ring round the star */
    bool star_fill;         /* the home square printed in star_bg */
    float star_rgb[3], star_bg[3];
    float board_gloss;
    double size;            /* cube side and cylinder diameter, mm */
    double cyl_h;           /* cylinder height over its diameter */
    double corner;          /* a cube's rounded corners in plan, mm */
    float ink[6][3];        /* the six colours as painted */
    bool wood;              /* painted wood: the grain shows through */
    float piece_gloss;
    uint32_t seed;
} sim__c2_design;

/* The six colours (rules_color order) as a toy maker paints them,
 * linear 0..1; each design moves them within what a person still calls
 * that colour. */
static const float sim__c2_inks[6][3] = {
    {0.72f, 0.06f, 0.05f}, {0.90f, 0.33f, 0.04f}, {0.90f, 0.76f, 0.08f},
    {0.08f, 0.45f, 0.12f}, {0.05f, 0.20f, 0.70f}, {0.36f, 0.09f, 0.50f},
};

/* The ranges a design is drawn from, with why. */
typedef struct sim__c2_range {
    double border[2];     /* a thin frame to a wide one */
    double thick[2];      /* card on board (2 mm) to a wooden plank (12 mm) */
    double line_w[2];     /* hairline print to a burned groove */
    double star_ro[2], star_ri[2];
    double size[2];       /* "about 22 mm" */
    double cyl_h[2];      /* squat to tall cylinders */
    double corner[2];     /* sharp to rounded cubes */
    double hue_mix;       /* how far a channel may move, times the ink */
    double desat[2];      /* share of grey mixed into the inks */
    double bright[2];
} sim__c2_range;

static const sim__c2_range sim__c2_ranges = {
    .border = {6, 24}, .thick = {2, 12}, .line_w = {0.6, 2.4},
    .star_ro = {0.55, 0.85}, .star_ri = {0.2, 0.5},
    .size = {20.5, 23.5}, .cyl_h = {0.85, 1.1}, .corner = {0, 2.5},
    .hue_mix = 0.15, .desat = {0, 0.18}, .bright = {0.82, 1.12},
};

static double sim__c2_draw(sim__rng *r, const double lim[2])
{
    return sim__rng_range(r, lim[0], lim[1]);
}

static void sim__c2_rgb(float out[3], sim__rng *r, double lo, double hi)
{
    for (int k = 0; k < 3; k++)
        out[k] = (float)sim__rng_range(r, lo, hi);
}

static void sim__c2_tint(float out[3], const float base[3], sim__rng *r, double lo, double hi)
{
    double f = sim__rng_range(r, lo, hi);
    for (int k = 0; k < 3; k++)
        out[k] = (float)fmin(1, base[k] * f * sim__rng_range(r, 0.94, 1.06));
}

static void sim__c2_make_design(int d, sim__c2_design *o)
{
    const sim__c2_range *g = &sim__c2_ranges;
    sim__rng r;
    double desat, bright;
    static const float woods[4][3] = {{0.55f, 0.36f, 0.20f}, {0.70f, 0.52f, 0.32f},
                                      {0.38f, 0.22f, 0.12f}, {0.78f, 0.64f, 0.44f}};
    sim__rng_seed(&r, 0xC2B0A4Du + (uint64_t)d, 9);
    memset(o, 0, sizeof *o);
    o->seed = (uint32_t)sim__rng_u64(&r);
    o->board = d % C2_NKINDS;
    o->border = sim__c2_draw(&r, g->border);
    o->line_w = sim__c2_draw(&r, g->line_w);
    switch (o->board) {
    case C2_WOOD: /* burned lines and star in a plank of wood */
        sim__c2_tint(o->base, woods[sim__rng_int(&r, 4)], &r, 0.85, 1.1);
        sim__c2_tint(o->grain, o->base, &r, 0.6, 0.8);
        o->grain_mm = sim__rng_range(&r, 2.5, 7);
        sim__c2_tint(o->line, o->base, &r, 0.15, 0.3);
        o->line_soft = sim__rng_range(&r, 0.2, 0.6);
        memcpy(o->border_rgb, o->base, sizeof o->border_rgb);
        memcpy(o->star_rgb, o->line, sizeof o->star_rgb);
        o->thick = sim__rng_range(&r, 6, g->thick[1]);
        sim__c2_tint(o->edge, o->base, &r, 0.7, 0.9);
        o->board_gloss = (float)sim__rng_range(&r, 0.05, 0.35);
        break;
    case C2_CARD: /* a printed board, often with coloured squares */
        sim__c2_rgb(o->base, &r, 0.55, 0.9);
        memcpy(o->grain, o->base, sizeof o->grain);
        o->grain_mm = 1;
        sim__c2_rgb(o->line, &r, 0.02, 0.2);
        o->line_soft = 0.1;
        o->checker = sim__rng_unit(&r) < 0.5;
        sim__c2_tint(o->alt, o->base, &r, 0.55, 0.8);
        sim__c2_rgb(o->border_rgb, &r, 0.05, 0.7);
        sim__c2_rgb(o->star_rgb, &r, 0.05, 0.8);
        o->star_fill = sim__rng_unit(&r) < 0.5;
        sim__c2_rgb(o->star_bg, &r, 0.3, 0.9);
        o->thick = sim__rng_range(&r, g->thick[0], 4);
        sim__c2_rgb(o->edge, &r, 0.05, 0.4);
        o->board_gloss = (float)sim__rng_range(&r, 0.1, 0.5);
        break;
    default: /* a cloth with printed lines, lying flat */
        sim__c2_rgb(o->base, &r, 0.15, 0.7);
        sim__c2_tint(o->grain, o->base, &r, 0.75, 0.9);
        o->grain_mm = sim__rng_range(&r, 0.8, 1.6);
        sim__c2_rgb(o->line, &r, 0.6, 0.95);
        if (sim__rng_unit(&r) < 0.5)
            sim__c2_rgb(o->line, &r, 0.0, 0.1);
        o->line_soft = sim__rng_range(&r, 0.4, 1.0);
        sim__c2_tint(o->border_rgb, o->base, &r, 0.8, 1.0);
        memcpy(o->star_rgb, o->line, sizeof o->star_rgb);
        o->thick = sim__rng_range(&r, 1.0, 2.5);
        memcpy(o->edge, o->base, sizeof o->edge);
        o->board_gloss = 0;
        break;
    }
    o->star_n = (int[]){5, 6, 8}[sim__rng_int(&r, 3)];
    o->star_ro = sim__c2_draw(&r, g->star_ro);
    o->star_ri = o->star_ro * sim__c2_draw(&r, g->star_ri);
    o->star_turn = sim__rng_range(&r, 0, 2 * SIM__PI);
    o->star_ring = sim__rng_unit(&r) < 0.35;
    o->size = sim__c2_draw(&r, g->size);
    o->cyl_h = sim__c2_draw(&r, g->cyl_h);
    o->corner = sim__c2_draw(&r, g->corner);
    o->wood = sim__rng_unit(&r) < 0.5;
    o->piece_gloss = (float)sim__rng_range(&r, o->wood ? 0.05 : 0.3, o->wood ? 0.35 : 0.8);
    desat = sim__c2_draw(&r, g->desat);
    bright = sim__c2_draw(&r, g->bright);
    for (int c = 0; c < 6; c++) {
        const float *ink = sim__c2_inks[c];
        float grey = (ink[0] + ink[1] + ink[2]) / 3;
        for (int k = 0; k < 3; k++) {
            double v = ink[k] * (1 + sim__rng_range(&r, -g->hue_mix, g->hue_mix));
            v = bright * ((1 - desat) * v + desat * grey);
            o->ink[c][k] = (float)(v < 0 ? 0 : v > 1 ? 1 : v);
        }
    }
}

/* ---- the board ---- */

/* Squares of the default board's home squares, as GAMES.md has them:
 * player 1 (record player 0) at (3,5), player 2 at (2,0). */
static const int sim__c2_homes[2][2] = {{3, 5}, {2, 0}};

static double sim__c2_smooth(double d, double half, double soft)
{
    /* 1 inside a line of half width `half`, 0 outside, soft at its edge */
    double t = (half - d) / (soft > 0.05 ? soft : 0.05) + 0.5;
    return t <= 0 ? 0 : t >= 1 ? 1 : t;
}

static void sim__c2_mix(float out[3], const float a[3], const float b[3], double t)
{
    for (int k = 0; k < 3; k++)
        out[k] = (float)(a[k] + (b[k] - a[k]) * t);
}

static void sim__c2_board_shade(const sim__obj *o, int face, double u, double v, float rgb[3],
                                float *gloss)
{
    const sim__c2_design *d = o->style;
    double X = u * o->sx / 2, Y = v * o->sy / 2; /* mm from the centre, along cols and rows */
    float surf[3];
    double g;
    if (face != 0) {
        memcpy(rgb, d->edge, 3 * sizeof *rgb);
        *gloss = d->board_gloss;
        return;
    }
    /* the material: wood grain along x, a weave, or flat card */
    if (d->board == C2_WOOD)
        g = sim__fbm2(d->seed, X / (d->grain_mm * 8), Y / d->grain_mm, 3);
    else if (d->board == C2_CLOTH)
        g = 0.5 + 0.5 * sin(X * 2 * SIM__PI / d->grain_mm) * sin(Y * 2 * SIM__PI / d->grain_mm) *
                      (0.6 + 0.4 * sim__noise2(d->seed, X / 9, Y / 9));
    else
        g = 0.5 + 0.1 * sim__noise2(d->seed, X / 3, Y / 3);
    sim__c2_mix(surf, d->base, d->grain, g);
    if (fabs(X) > C2_HALF + d->line_w || fabs(Y) > C2_HALF + d->line_w) {
        if (d->board == C2_CARD)
            memcpy(surf, d->border_rgb, sizeof surf);
        else if (d->board == C2_CLOTH)
            sim__c2_mix(surf, d->border_rgb, d->grain, 0.3 * g);
    } else {
        double fx = (X + C2_HALF) / C2_PITCH, fy = (Y + C2_HALF) / C2_PITCH;
        int col = (int)floor(fx), row = (int)floor(fy);
        double dx = fabs(fx - floor(fx + 0.5)) * C2_PITCH, dy = fabs(fy - floor(fy + 0.5)) * C2_PITCH;
        double soft = d->line_soft;
        /* a burned line wanders a little */
        if (d->board == C2_WOOD)
            soft += 0.4 * sim__noise2(d->seed + 7, X / 2, Y / 2);
        if (d->checker && ((col + row) & 1) && col >= 0 && row >= 0 && col < C2_N && row < C2_N)
            sim__c2_mix(surf, surf, d->alt, 0.85);
        for (int h = 0; h < 2; h++)
            if (col == sim__c2_homes[h][0] && row == sim__c2_homes[h][1]) {
                double cu = fx - col - 0.5, cv = fy - row - 0.5, rr = hypot(cu, cv) * 2;
                double su = 2 * (cu * cos(d->star_turn) + cv * sin(d->star_turn));
                double sv = 2 * (-cu * sin(d->star_turn) + cv * cos(d->star_turn));
                if (d->star_fill)
                    memcpy(surf, d->star_bg, sizeof surf);
                if (sim__in_star(su, sv, d->star_n, d->star_ro, d->star_ri) ||
                    (d->star_ring && fabs(rr - (d->star_ro + 0.08)) < 0.04))
                    memcpy(surf, d->star_rgb, sizeof surf);
            }
        {
            double t = fmax(sim__c2_smooth(dx, d->line_w / 2, soft),
                            sim__c2_smooth(dy, d->line_w / 2, soft));
            sim__c2_mix(surf, surf, d->line, t);
        }
    }
    memcpy(rgb, surf, sizeof surf);
    *gloss = d->board_gloss;
}

static void sim__c2_board_decorate(void *dstate, sim__obj *o, sim__rng *r)
{
    (void)dstate;
    (void)o;
    (void)r;
}

static const sim__piece_kind sim__c2_board_kind = {
    .game = "cube2",
    .pitch_x = C2_PITCH,
    .pitch_y = C2_PITCH,
    .decorate = sim__c2_board_decorate,
    .shade = sim__c2_board_shade,
};

/* ---- the pieces ---- */

static void sim__c2_shade(const sim__obj *o, int face, double u, double v, float rgb[3],
                          float *gloss)
{
    const sim__c2_design *d = o->style;
    int c = o->piece.a < 6 ? o->piece.a : 0;
    double lift = 1, grain = 0;
    if (o->kind == SIM__BOX) {
        /* the rounded edges of a cube face the light more */
        double e = fmax(fabs(u), fabs(v));
        lift = e > 0.92 ? 1.25 : 1;
    } else if (face == 0 && u * u + v * v > 0.85) {
        lift = 1.2; /* a cylinder's rounded rim */
    }
    if (d->wood)
        grain = 0.12 * (sim__fbm2(d->seed + (uint32_t)o->piece.x * 31 + (uint32_t)o->piece.y,
                                  u * 3, v * 0.6 + face, 2) - 0.5);
    for (int k = 0; k < 3; k++) {
        double a = d->ink[c][k] * lift * (1 + grain);
        rgb[k] = (float)(a > 1 ? 1 : a < 0 ? 0 : a);
    }
    *gloss = d->piece_gloss;
}

static void sim__c2_decorate(void *dstate, sim__obj *o, sim__rng *r);

static const sim__piece_kind sim__c2_kind = {
    .game = "cube2",
    .pitch_x = C2_PITCH,
    .pitch_y = C2_PITCH,
    .sx = 24, /* the largest piece: what has to fit on the mat */
    .sy = 24,
    .sz = 26,
    .decorate = sim__c2_decorate,
    .shade = sim__c2_shade,
};

/* ---- the player ---- */

typedef struct sim__c2 {
    sim__c2_design design;
    int nplayers;
    rules_piece taken[2][12];
    int ntaken[2];
    rules_piece moving; /* the piece of the last chosen move */
} sim__c2;

static void sim__c2_decorate(void *dstate, sim__obj *o, sim__rng *r)
{
    const sim__c2 *q = dstate;
    const sim__c2_design *d = &q->design;
    double size = d->size + sim__rng_range(r, -0.3, 0.3);
    o->style = d;
    o->z0 = d->thick;
    o->shaded = true;
    if (o->piece.b == RULES_C2_CYLINDER) {
        o->kind = SIM__CYL;
        o->sx = size / 2;
        o->sy = size / 2;
        o->sz = size * d->cyl_h;
    } else {
        o->kind = SIM__BOX;
        o->sx = o->sy = o->sz = size;
        o->corner_r = d->corner;
    }
}

static int sim__c2_create(cJSON *header, int nplayers, sim__rng *r, void **state)
{
    sim__c2 *q;
    (void)header;
    (void)r;
    if (nplayers != 2)
        return BASE_EINVAL;
    if (!(q = calloc(1, sizeof *q)))
        return BASE_ENOMEM;
    q->nplayers = nplayers;
    sim__c2_make_design(0, &q->design);
    *state = q;
    return 0;
}

static int sim__c2_sync(void *state, const rules_game *g)
{
    const sim__c2 *q = state;
    rules_status st;
    rules_game_status(g, &st);
    for (int p = 0; p < 2; p++)
        if (st.scores[p] != q->ntaken[p])
            return BASE_EINVAL;
    return 0;
}

static void sim__c2_destroy(void *state) { free(state); }

static void sim__c2_set_design(void *state, int design)
{
    sim__c2_make_design(design, &((sim__c2 *)state)->design);
}

typedef struct sim__c2_pick {
    const sim__c2 *q;
    const rules_piece *board;
    int nboard, player;
    sim__reservoir rv;
    sim__fits_fn fits;
    void *ctx;
} sim__c2_pick;

static const rules_piece *sim__c2_at(const rules_piece *b, int n, int x, int y)
{
    for (int i = 0; i < n; i++)
        if (b[i].x == x && b[i].y == y)
            return &b[i];
    return NULL;
}

static bool sim__c2_needs(const sim__c2 *q, int player, const rules_piece *p)
{
    for (int i = 0; i < q->ntaken[player]; i++)
        if (q->taken[player][i].a == p->a && q->taken[player][i].b == p->b)
            return false;
    return true;
}

/* Weights of a move in the players' choice: an exit is what wins, a
 * needed piece brought nearer its home square is a step toward one. */
#define C2_W_EXIT 40.0
#define C2_W_NEARER 4.0

static int sim__c2_consider(void *ctx, const rules_move *m)
{
    sim__c2_pick *pk = ctx;
    double w = 1;
    if (m->type == RULES_MOVE_SWAP || (m->type == RULES_MOVE_PASS && pk->rv.count > 0))
        return 0;
    if (m->type == RULES_MOVE_PLACE && !pk->fits(pk->ctx, m->pieces[0].x, m->pieces[0].y))
        return 0;
    if (m->type == RULES_MOVE_MOVE) {
        const rules_piece *p = sim__c2_at(pk->board, pk->nboard, m->from[0], m->from[1]);
        const int *home = sim__c2_homes[pk->player];
        if (!m->to_off && !pk->fits(pk->ctx, m->to[0], m->to[1]))
            return 0;
        if (m->to_off)
            w = C2_W_EXIT;
        else if (p && sim__c2_needs(pk->q, pk->player, p) &&
                 abs(m->to[0] - home[0]) + abs(m->to[1] - home[1]) <
                     abs(m->from[0] - home[0]) + abs(m->from[1] - home[1]))
            w = C2_W_NEARER;
    }
    if (pk->rv.count > 0 && pk->rv.best->type == RULES_MOVE_PASS)
        pk->rv.count = 0; /* a pass, offered first, gives way to any move */
    sim__reservoir_offer(&pk->rv, m, w);
    return 0;
}

static int sim__c2_board(const rules_game *g, rules_piece **out)
{
    int n = rules_position(g, NULL, 0);
    if (!(*out = malloc((size_t)(n > 0 ? n : 1) * sizeof **out)))
        return BASE_ENOMEM;
    return rules_position(g, *out, n);
}

static int sim__c2_choose(void *state, const rules_game *g, int player, sim__rng *r,
                          sim__fits_fn fits, void *ctx, rules_move *m)
{
    sim__c2 *q = state;
    sim__c2_pick pk = {q, NULL, 0, player, {r, m, 0, 0}, fits, ctx};
    rules_status st;
    int rc;
    rules_game_status(g, &st);
    if (st.over)
        return BASE_ENOTFOUND;
    if ((pk.nboard = sim__c2_board(g, (rules_piece **)&pk.board)) < 0)
        return pk.nboard;
    rc = rules_generate(g, player, NULL, 0, sim__c2_consider, &pk);
    if (rc >= 0 && pk.rv.count == 0)
        rc = BASE_ENOTFOUND;
    if (rc >= 0 && m->type == RULES_MOVE_MOVE) {
        const rules_piece *p = sim__c2_at(pk.board, pk.nboard, m->from[0], m->from[1]);
        if (p)
            q->moving = *p;
    }
    free((void *)pk.board);
    return rc < 0 ? rc : 0;
}

/* An illegal move a player might make: in the setup a piece put on a home
 * square; in play a piece moved to a free square up to four steps away
 * that the engine refuses (too far, blocked, a restriction). */
static int sim__c2_choose_illegal(void *state, const rules_game *g, int player, sim__rng *r,
                                  sim__fits_fn fits, void *ctx, rules_move *m)
{
    rules_piece *b = NULL;
    rules_verdict v;
    rules_status st;
    int n, rc = BASE_ENOTFOUND;
    (void)fits;
    (void)ctx;
    rules_game_status(g, &st);
    if (st.over || (n = sim__c2_board(g, &b)) < 0)
        return st.over ? BASE_ENOTFOUND : BASE_ENOMEM;
    if (n < 24) {
        const int *h = sim__c2_homes[sim__rng_int(r, 2)];
        /* a legal placement's piece, put on a home square instead */
        if (sim__c2_choose(state, g, player, r, fits, ctx, m) == 0 &&
            m->type == RULES_MOVE_PLACE) {
            m->pieces[0].x = (int16_t)h[0];
            m->pieces[0].y = (int16_t)h[1];
            rc = rules_check(g, player, m, &v) == 0 && !v.legal ? 0 : BASE_ENOTFOUND;
        }
        free(b);
        return rc;
    }
    for (int tries = 0; tries < 400 && n > 0 && rc != 0; tries++) {
        const rules_piece *p = &b[sim__rng_int(r, n)];
        int tx = p->x + sim__rng_int(r, 9) - 4, ty = p->y + sim__rng_int(r, 9) - 4;
        if (tx < 0 || ty < 0 || tx >= C2_N || ty >= C2_N || sim__c2_at(b, n, tx, ty))
            continue;
        rules_move_init(m, RULES_MOVE_MOVE);
        m->from[0] = p->x;
        m->from[1] = p->y;
        m->to[0] = (int16_t)tx;
        m->to[1] = (int16_t)ty;
        if (rules_check(g, player, m, &v) == 0 && !v.legal)
            rc = 0;
    }
    free(b);
    return rc;
}

static int sim__c2_applied(void *state, const rules_game *g, int player, const rules_move *m,
                           sim__rng *r)
{
    sim__c2 *q = state;
    (void)r;
    if (m->type == RULES_MOVE_MOVE && m->to_off && player >= 0 && player < 2 &&
        q->ntaken[player] < 12)
        q->taken[player][q->ntaken[player]++] = q->moving;
    return sim__c2_sync(q, g);
}

static int sim__c2_held(void *state, int player, rules_piece *out, int cap)
{
    const sim__c2 *q = state;
    int n = player < 0 || player > 1 ? 0 : q->ntaken[player] < cap ? q->ntaken[player] : cap;
    if (n > 0)
        memcpy(out, q->taken[player], sizeof *out * (size_t)n);
    return n;
}

/* The board as a slab centred at (0, 0), unturned: the stream puts it. */
static void sim__c2_make_board(void *state, sim__obj *o)
{
    const sim__c2 *q = state;
    memset(o, 0, sizeof *o);
    o->kind = SIM__BOX;
    o->look = SIM__LOOK_PIECE;
    o->pk = &sim__c2_board_kind;
    o->style = &q->design;
    o->sx = o->sy = 2 * (C2_HALF + q->design.border);
    o->sz = q->design.thick;
    o->shadow = true;
    o->shaded = true;
    o->corner_r = q->design.board == C2_CLOTH ? 0 : 2;
}

/* Enrolment (FORMATS.md 7): one photo of the board with a cube then a
 * cylinder of each colour, red to purple, read from the mat's top edge:
 * rows 2 and 3 of the board, left to right. */
static int sim__c2_enrol(int image, rules_piece *out, int cap)
{
    int n = 0;
    if (image != 0 || cap < 0)
        return BASE_EINVAL;
    for (int c = RULES_RED; c <= RULES_PURPLE; c++)
        for (int s = RULES_C2_CUBE; s <= RULES_C2_CYLINDER && n < cap; s++, n++) {
            memset(&out[n], 0, sizeof out[n]);
            out[n].x = (int16_t)(n % C2_N);
            out[n].y = (int16_t)(2 + n / C2_N);
            out[n].a = (uint8_t)c;
            out[n].b = (uint8_t)s;
            out[n].owner = -1;
        }
    return n;
}

const sim__driver sim__cube2_driver = {
    .game = "cube2",
    .kind = &sim__c2_kind,
    .create = sim__c2_create,
    .sync = sim__c2_sync,
    .destroy = sim__c2_destroy,
    .choose = sim__c2_choose,
    .choose_illegal = sim__c2_choose_illegal,
    .applied = sim__c2_applied,
    .held = sim__c2_held,
    .ndesigns = C2_NDESIGNS,
    .set_design = sim__c2_set_design,
    .nenrol = 1,
    .enrol = sim__c2_enrol,
    .board = sim__c2_make_board,
    .board_cols = C2_N,
    .board_rows = C2_N,
    .board_turn_deg = 20,
};
