/* sim/cubed_pieces.c: CUBED for the simulator (GAMES.md "cubed").
 *
 * The look: hexagonal tiles 40 mm across the flats (pointy-top on the
 * grid), 3 to 8 mm thick, whose top shows three rhombi meeting at the
 * centre like an isometric cube, each in one of eight colours (the six of
 * qwirkle, black, white).  Designs differ in the print's hues and
 * brightness, a line between the rhombi (none, dark, light), a bevel
 * round the top, a rim of the body's colour, the body (black, white,
 * wood, grey), thickness, gloss, and a mild isometric shading that makes
 * the upper rhombus lighter and the lower left darker, as some sets
 * print it.
 *
 * The player: the engine counts hands and the bag and knows which kinds
 * are unseen, so this file keeps the pieces themselves (the 77 of the
 * DEFAULT catalogue, dealt at random), plays one of the engine's
 * placements for its hand (the costly kinds more often, as players like
 * to be rid of them), else draws once, else passes; when the round ends
 * it reveals its hand.  Matches are one round long (option "rounds": 1):
 * the table is cleared between rounds, which the stream does not show. */
#include "sim_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CB_PITCH 40.0   /* FORMATS.md 5: a hexagon 40 mm across the flats */
#define CB_NDESIGNS 24
#define CB_NCAT 77      /* the DEFAULT catalogue */
#define CB_MAXHAND 77
#define CB_SQ3 1.7320508075688772

/* ---- the designs ---- */

typedef struct sim__cb_design {
    uint32_t seed;
    float ink[RULES_NCOLORS][3]; /* the print, linear 0..1 */
    float body[3];               /* the tile's sides and rim */
    float line[3];
    double line_mm;              /* the line between the rhombi (0: none) */
    double rim_mm;               /* body colour round the print */
    double bevel_mm;             /* a rounded edge round the top */
    float bevel_lift;            /* the bevel's albedo over the face's (it faces the light
                                    more, or is worn darker) */
    double iso;                  /* isometric shading of the rhombi, 0..0.15 */
    double thick;                /* mm */
    double gap;                  /* mm less than the pitch across the flats */
    float gloss, body_gloss;
    bool wood;                   /* a wooden body: grain on the sides */
} sim__cb_design;

/* The inks of a print, rules_color order. */
static const float sim__cb_inks[RULES_NCOLORS][3] = {
    {0.74f, 0.07f, 0.06f}, {0.92f, 0.36f, 0.04f}, {0.92f, 0.80f, 0.08f},
    {0.07f, 0.48f, 0.14f}, {0.05f, 0.22f, 0.74f}, {0.38f, 0.10f, 0.52f},
    {0.025f, 0.025f, 0.028f}, {0.86f, 0.86f, 0.84f},
};

/* The ranges a design is drawn from, with why. */
static const struct {
    double thick[2];   /* the issue: tiles 3 to 8 mm thick */
    double gap[2];     /* tiles laid by hand touch loosely */
    double line_mm[2]; /* a hairline to a bold printed rule */
    double line_share; /* of the designs with a line */
    double rim_mm[2];
    double bevel_mm[2];
    double iso[2];
    double hue_mix;    /* how far a channel may move, times the ink */
    double desat[2];   /* grey mixed into the inks */
    double bright[2];
    double gloss[2];   /* matte card to glossy plastic */
} sim__cb_ranges = {
    .thick = {3, 8}, .gap = {0.6, 1.6}, .line_mm = {0.4, 1.6}, .line_share = 0.6,
    .rim_mm = {0, 2.0}, .bevel_mm = {0, 2.5}, .iso = {0, 0.15}, .hue_mix = 0.15,
    .desat = {0, 0.18}, .bright = {0.82, 1.12}, .gloss = {0.05, 0.7},
};

static double sim__cb_draw(sim__rng *r, const double lim[2])
{
    return sim__rng_range(r, lim[0], lim[1]);
}

static void sim__cb_make_design(int d, sim__cb_design *o)
{
    static const float bodies[4][3] = {{0.03f, 0.03f, 0.035f}, {0.82f, 0.82f, 0.80f},
                                       {0.55f, 0.38f, 0.22f}, {0.30f, 0.30f, 0.32f}};
    sim__rng r;
    double desat, bright;
    int body;
    sim__rng_seed(&r, 0xCBEDu + (uint64_t)d, 11);
    memset(o, 0, sizeof *o);
    o->seed = (uint32_t)sim__rng_u64(&r);
    desat = sim__cb_draw(&r, sim__cb_ranges.desat);
    bright = sim__cb_draw(&r, sim__cb_ranges.bright);
    for (int c = 0; c < RULES_NCOLORS; c++)
        for (int k = 0; k < 3; k++) {
            const float *in = sim__cb_inks[c];
            double grey = (in[0] + in[1] + in[2]) / 3;
            double v = in[k] * (1 + sim__rng_range(&r, -1, 1) * sim__cb_ranges.hue_mix);
            v = ((1 - desat) * v + desat * grey) * bright;
            o->ink[c][k] = (float)(v > 1 ? 1 : v < 0 ? 0 : v);
        }
    body = sim__rng_int(&r, 4);
    for (int k = 0; k < 3; k++)
        o->body[k] = (float)(bodies[body][k] * sim__rng_range(&r, 0.9, 1.1));
    o->wood = body == 2;
    if (sim__rng_unit(&r) < sim__cb_ranges.line_share) {
        double v = sim__rng_unit(&r) < 0.6 ? sim__rng_range(&r, 0.02, 0.1)
                                           : sim__rng_range(&r, 0.7, 0.9);
        o->line_mm = sim__cb_draw(&r, sim__cb_ranges.line_mm);
        for (int k = 0; k < 3; k++)
            o->line[k] = (float)(v * sim__rng_range(&r, 0.95, 1.05));
    }
    o->rim_mm = sim__rng_unit(&r) < 0.5 ? 0 : sim__cb_draw(&r, sim__cb_ranges.rim_mm);
    o->bevel_mm = sim__cb_draw(&r, sim__cb_ranges.bevel_mm);
    o->bevel_lift = (float)sim__rng_range(&r, 0.75, 1.3);
    o->iso = sim__rng_unit(&r) < 0.5 ? 0 : sim__cb_draw(&r, sim__cb_ranges.iso);
    o->thick = sim__cb_draw(&r, sim__cb_ranges.thick);
    o->gap = sim__cb_draw(&r, sim__cb_ranges.gap);
    o->gloss = (float)sim__cb_draw(&r, sim__cb_ranges.gloss);
    o->body_gloss = (float)(o->gloss * sim__rng_range(&r, 0.5, 1));
}

/* The rhombus of a tile of parity p under top point (u, v) (u toward the
 * tile's east, v toward its south, the flats at u = +-1): rhombus k
 * covers the directions within 60 degrees of 90 - 60 p - 120 k (math
 * angles, north up), the corner between its two edges (GAMES.md: parity
 * 0 covers edges {5,0} {1,2} {3,4}, parity 1 {0,1} {2,3} {4,5}). */
static int sim__cb_rhombus(int parity, double u, double v)
{
    double a = atan2(-v, u) * 180 / SIM__PI;
    for (int k = 0; k < 3; k++) {
        double c = 90 - 60 * parity - 120 * k, dd = fmod(a - c + 540, 360) - 180;
        if (fabs(dd) <= 60)
            return k;
    }
    return 0;
}

/* How far (u, v) lies from the nearest of the three lines between the
 * rhombi of parity p, in face units: the lines run from the centre to
 * the corners at 90 - 60 p - 120 k + 60 degrees. */
static double sim__cb_line_dist(int parity, double u, double v)
{
    double best = INFINITY;
    for (int k = 0; k < 3; k++) {
        double a = (90 - 60 * parity - 120 * k + 60) * SIM__PI / 180;
        double dx = cos(a), dy = -sin(a), along = u * dx + v * dy;
        if (along < 0)
            continue;
        best = fmin(best, fabs(u * dy - v * dx));
    }
    return best;
}

/* The distance of (u, v) from the hexagon's outline, in face units. */
static double sim__cb_edge_dist(double u, double v)
{
    double d = 1 - fabs(u);
    d = fmin(d, 1 - fabs(0.5 * u + 0.8660254 * v));
    d = fmin(d, 1 - fabs(0.5 * u - 0.8660254 * v));
    return d;
}

static void sim__cb_shade(const sim__obj *o, int face, double u, double v, float rgb[3],
                          float *gloss)
{
    const sim__cb_design *d = o->style;
    const double mm = o->sx / 2; /* mm a face unit */
    if (face == 0) {
        int k = sim__cb_rhombus(o->piece.parity, u, v);
        uint8_t col = k == 0 ? o->piece.a : k == 1 ? o->piece.b : o->piece.c;
        double edge = sim__cb_edge_dist(u, v) * mm, lift = 1;
        const float *src = d->ink[col < RULES_NCOLORS ? col : 0];
        /* isometric shading, by the rhombus's direction on the tile */
        double dir = (90 - 60 * o->piece.parity - 120 * k) * SIM__PI / 180;
        lift += d->iso * sin(dir) - d->iso * 0.5 * (cos(dir) < 0 ? 1 : 0);
        if (edge < d->rim_mm) {
            src = d->body;
        } else if (d->line_mm > 0 && sim__cb_line_dist(o->piece.parity, u, v) * mm < d->line_mm / 2) {
            src = d->line;
            lift = 1;
        }
        if (edge < d->bevel_mm)
            lift *= d->bevel_lift;
        for (int c = 0; c < 3; c++) {
            double a = src[c] * lift;
            rgb[c] = (float)(a > 1 ? 1 : a < 0 ? 0 : a);
        }
        *gloss = d->gloss;
        return;
    }
    {
        double grain = d->wood ? 0.15 * (sim__fbm2(d->seed + (uint32_t)(o->piece.x * 131 +
                                                                          o->piece.y * 7),
                                                   u * 2 + face, v * 0.3, 2) -
                                         0.5)
                               : 0;
        for (int c = 0; c < 3; c++) {
            double a = d->body[c] * (1 + grain) * (face == 5 ? 0.8 : 1);
            rgb[c] = (float)(a > 1 ? 1 : a < 0 ? 0 : a);
        }
        *gloss = d->body_gloss;
    }
}

static void sim__cb_decorate(void *dstate, sim__obj *o, sim__rng *r);

static const sim__piece_kind sim__cb_kind = {
    .game = "cubed",
    .pitch_x = CB_PITCH,
    .pitch_y = CB_PITCH * CB_SQ3 / 2,
    .hex = true,
    .sx = CB_PITCH,              /* the largest tile: what has to fit on the mat */
    .sy = CB_PITCH * 2 / CB_SQ3, /* corner to corner */
    .sz = 8,
    .decorate = sim__cb_decorate,
    .shade = sim__cb_shade,
};

/* ---- the player ---- */

typedef struct sim__cb_tile {
    uint8_t f[3];
} sim__cb_tile;

typedef struct sim__cb {
    sim__cb_design design;
    int nplayers;
    sim__cb_tile bag[CB_NCAT];
    int nbag;
    sim__cb_tile hand[RULES_MAX_PLAYERS][CB_MAXHAND];
    int nhand[RULES_MAX_PLAYERS];
    int shown[RULES_MAX_PLAYERS]; /* revealed at the round's end (still counted in the hand) */
    bool drew; /* the mover has drawn this turn */
} sim__cb;

static void sim__cb_decorate(void *dstate, sim__obj *o, sim__rng *r)
{
    const sim__cb *q = dstate;
    const sim__cb_design *d = &q->design;
    o->kind = SIM__HEX;
    o->style = d;
    o->sx = CB_PITCH - d->gap + sim__rng_range(r, -0.15, 0.15);
    o->sy = o->sx * 2 / CB_SQ3;
    o->sz = d->thick;
}

/* The DEFAULT catalogue (GAMES.md): 6 triples, 30 doubles, 20 singles, 6
 * blocking, 15 wild. */
static int sim__cb_catalogue(sim__cb_tile *out)
{
    int n = 0;
    for (int a = 0; a < 6; a++)
        out[n++] = (sim__cb_tile){{(uint8_t)a, (uint8_t)a, (uint8_t)a}};
    for (int a = 0; a < 6; a++)
        for (int b = 0; b < 6; b++)
            if (a != b)
                out[n++] = (sim__cb_tile){{(uint8_t)a, (uint8_t)a, (uint8_t)b}};
    for (int a = 0; a < 6; a++)
        for (int b = a + 1; b < 6; b++)
            for (int c = b + 1; c < 6; c++)
                out[n++] = (sim__cb_tile){{(uint8_t)a, (uint8_t)b, (uint8_t)c}};
    for (int a = 0; a < 6; a++)
        out[n++] = (sim__cb_tile){{RULES_BLACK, RULES_BLACK, (uint8_t)a}};
    for (int a = 0; a < 6; a++)
        for (int b = a + 1; b < 6; b++)
            out[n++] = (sim__cb_tile){{(uint8_t)a, (uint8_t)b, RULES_WHITE}};
    return n;
}

static sim__cb_tile sim__cb_take(sim__cb *q, sim__rng *r)
{
    int k = sim__rng_int(r, q->nbag);
    sim__cb_tile t = q->bag[k];
    q->bag[k] = q->bag[--q->nbag];
    return t;
}

/* The same tile turned: b's faces a cyclic turn of a's (never flipped). */
static bool sim__cb_same(const uint8_t *a, const uint8_t *b)
{
    for (int s = 0; s < 3; s++)
        if (a[0] == b[s] && a[1] == b[(s + 1) % 3] && a[2] == b[(s + 2) % 3])
            return true;
    return false;
}

/* What the engine would say a tile scores in a hand at the round's end. */
static int sim__cb_points(const uint8_t *f)
{
    int black = (f[0] == RULES_BLACK) + (f[1] == RULES_BLACK) + (f[2] == RULES_BLACK);
    int white = (f[0] == RULES_WHITE) + (f[1] == RULES_WHITE) + (f[2] == RULES_WHITE);
    if (white)
        return 10;
    if (black)
        return 5;
    if (f[0] == f[1] && f[1] == f[2])
        return 3;
    if (f[0] == f[1] || f[1] == f[2] || f[0] == f[2])
        return 2;
    return 1;
}

static int sim__cb_create(cJSON *header, int nplayers, sim__rng *r, void **state)
{
    static const int deal[RULES_MAX_PLAYERS + 1] = {0, 25, 25, 18, 13, 11, 9};
    sim__cb *q = calloc(1, sizeof *q);
    cJSON *opt;
    if (!q)
        return BASE_ENOMEM;
    if (nplayers < 1 || nplayers > RULES_MAX_PLAYERS) {
        free(q);
        return BASE_EINVAL;
    }
    q->nplayers = nplayers;
    q->nbag = sim__cb_catalogue(q->bag);
    for (int p = 0; p < nplayers; p++)
        for (int i = 0; i < deal[nplayers]; i++)
            q->hand[p][q->nhand[p]++] = sim__cb_take(q, r);
    opt = cJSON_AddObjectToObject(header, "options");
    if (opt)
        cJSON_AddNumberToObject(opt, "rounds", 1);
    sim__cb_make_design(0, &q->design);
    *state = q;
    return 0;
}

static int sim__cb_sync(void *state, const rules_game *g)
{
    const sim__cb *q = state;
    rules_status st;
    rules_game_status(g, &st);
    if (st.bag != q->nbag)
        return BASE_ESTATE;
    for (int p = 0; p < q->nplayers; p++)
        if (st.hand[p] != q->nhand[p])
            return BASE_ESTATE;
    return 0;
}

static void sim__cb_destroy(void *state) { free(state); }

static void sim__cb_set_design(void *state, int design)
{
    sim__cb *q = state;
    sim__cb_make_design(design >= 0 && design < CB_NDESIGNS ? design : 0, &q->design);
}

typedef struct sim__cb_pick {
    sim__reservoir rv;
    sim__fits_fn fits;
    void *ctx;
} sim__cb_pick;

static int sim__cb_consider(void *ctx, const rules_move *m)
{
    sim__cb_pick *pk = ctx;
    const uint8_t f[3] = {m->pieces[0].a, m->pieces[0].b, m->pieces[0].c};
    /* the costly kinds played more often */
    if (sim__move_fits(m, pk->fits, pk->ctx))
        sim__reservoir_offer(&pk->rv, m, sim__cb_points(f));
    return 0;
}

/* The hand as the engine reads pieces, from piece `from` on (at most
 * RULES_MAX_HAND). */
static int sim__cb_hand(const sim__cb *q, int player, int from, rules_piece *out)
{
    int n = q->nhand[player] - from < RULES_MAX_HAND ? q->nhand[player] - from : RULES_MAX_HAND;
    for (int i = 0; i < n; i++) {
        memset(&out[i], 0, sizeof out[i]);
        out[i].a = q->hand[player][from + i].f[0];
        out[i].b = q->hand[player][from + i].f[1];
        out[i].c = q->hand[player][from + i].f[2];
        out[i].owner = -1;
    }
    return n > 0 ? n : 0;
}

static bool sim__cb_legal(const rules_game *g, int player, const rules_move *m)
{
    rules_verdict v;
    return rules_check(g, player, m, &v) == 0 && v.legal;
}

static int sim__cb_choose(void *state, const rules_game *g, int player, sim__rng *r,
                          sim__fits_fn fits, void *ctx, rules_move *m)
{
    sim__cb *q = state;
    sim__cb_pick pk = {{r, m, 0, 0}, fits, ctx};
    rules_piece hand[RULES_MAX_HAND];
    rules_status st;
    int nh = sim__cb_hand(q, player, 0, hand), rc;
    rules_game_status(g, &st);
    if (st.over)
        return BASE_ENOTFOUND;
    /* the hand the engine is told must hold it all, else it is unknown */
    rc = rules_generate(g, player, hand, q->nhand[player] <= RULES_MAX_HAND ? nh : -1,
                        sim__cb_consider, &pk);
    if (rc < 0)
        return rc;
    if (pk.rv.count > 0) {
        bool held = false;
        for (int i = 0; i < q->nhand[player] && !held; i++)
            held = sim__cb_same(q->hand[player][i].f,
                                (const uint8_t[]){m->pieces[0].a, m->pieces[0].b, m->pieces[0].c});
        if (held) {
            m->nhand = -1;
            return 0;
        }
    }
    /* the round is over: show the hand, up to a move's worth at a time */
    rules_move_init(m, RULES_MOVE_REVEAL);
    m->npieces = sim__cb_hand(q, player, q->shown[player], m->pieces);
    if (m->npieces > RULES_MAX_MOVE_PIECES)
        m->npieces = RULES_MAX_MOVE_PIECES;
    if (m->npieces > 0 && sim__cb_legal(g, player, m))
        return 0;
    rules_move_init(m, RULES_MOVE_DRAW); /* one piece (count 0) */
    if (!q->drew && q->nbag > 0 && sim__cb_legal(g, player, m))
        return 0;
    rules_move_init(m, RULES_MOVE_PASS);
    if (sim__cb_legal(g, player, m))
        return 0;
    return BASE_ENOTFOUND;
}

static int sim__cb_choose_illegal(void *state, const rules_game *g, int player, sim__rng *r,
                                  sim__fits_fn fits, void *ctx, rules_move *m)
{
    const sim__cb *q = state;
    rules_piece hand[RULES_MAX_HAND];
    int nh = sim__cb_hand(q, player, 0, hand), rc;
    rules_status st;
    rules_game_status(g, &st);
    if (st.over || rules_position(g, NULL, 0) == 0)
        return BASE_ENOTFOUND;
    for (int i = 0; i < nh; i++) /* turned and laid any way */
        hand[i].parity = (uint8_t)sim__rng_int(r, 2);
    rc = sim__illegal_single(g, player, hand, nh, 2, r, fits, ctx, m);
    if (rc == 0)
        m->nhand = -1;
    return rc;
}

static int sim__cb_applied(void *state, const rules_game *g, int player, const rules_move *m,
                           sim__rng *r)
{
    sim__cb *q = state;
    sim__cb_tile *h = q->hand[player];
    int *nh = &q->nhand[player];
    switch (m->type) {
    case RULES_MOVE_REVEAL: /* shown, still counted in the hand */
        q->shown[player] += m->npieces;
        break;
    case RULES_MOVE_PLACE:
        for (int i = 0; i < m->npieces; i++) {
            const uint8_t f[3] = {m->pieces[i].a, m->pieces[i].b, m->pieces[i].c};
            for (int j = 0; j < *nh; j++)
                if (sim__cb_same(h[j].f, f)) {
                    h[j] = h[--*nh];
                    break;
                }
        }
        q->drew = false;
        break;
    case RULES_MOVE_DRAW:
        for (int i = 0; i < (m->count > 0 ? m->count : 1) && q->nbag > 0 && *nh < CB_MAXHAND; i++)
            h[(*nh)++] = sim__cb_take(q, r);
        q->drew = true;
        break;
    default:
        q->drew = false;
        break;
    }
    return sim__cb_sync(q, g);
}

const sim__driver sim__cubed_driver = {
    .game = "cubed",
    .kind = &sim__cb_kind,
    .create = sim__cb_create,
    .sync = sim__cb_sync,
    .destroy = sim__cb_destroy,
    .choose = sim__cb_choose,
    .choose_illegal = sim__cb_choose_illegal,
    .applied = sim__cb_applied,
    .ndesigns = CB_NDESIGNS,
    .set_design = sim__cb_set_design,
    .layout_turn_deg = 180,
};
