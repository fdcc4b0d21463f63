/* sim/qwirkle_pieces.c: Qwirkle Cubes for the simulator.
 *
 * The look: a black 20 mm cube with one of the six shapes on each face in
 * the cube's colour, drawn as vector shapes; the top face is the one that
 * counts, the sides show the other shapes (as on the real dice, so that a
 * recogniser that reads a side face is caught out).
 *
 * The player: the engine only counts hands and the bag, so this file keeps
 * them (90 cubes, 15 of each colour, a drawn cube rolled to a random shape)
 * and picks moves among the engine's generated ones, bigger placements
 * more often, as people like to score. */
#include "sim_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define QW_HAND 6

/* ---- the designs ----
 *
 * Sets differ in how the symbols are drawn, how big and in which inks
 * they are printed, and what the body is made of; each design stays
 * within what a person still calls the shape.  Face coordinates u, v run
 * over [-1, 1] across the top face; a symbol's sizes are in those units
 * before the design's zoom (which makes the whole print smaller or larger
 * on the face).  Design 0 is the classic set that the hand-written reader
 * was built on. */
typedef struct sim__qw_design {
    const char *name;
    double zoom;                 /* face units are multiplied by this: > 1 prints smaller */
    double circle_r, ring_in;    /* disc radius; a ring's inner radius (0: a disc) */
    double square_h, square_k;   /* half side, corner radius */
    double diamond_u, diamond_v; /* half diagonals across and up the face */
    double clover_c, clover_r, clover_core, clover_turn; /* lobe centres, radii, the middle disc, turn (rad) */
    double star4_ro, star4_ri, star4_turn;
    double star8_ro, star8_ri;
    int palette;                 /* sim__qw_palettes */
    float sat, val;              /* ink saturation and brightness factors */
    float body[3];               /* body albedo, linear RGB */
    double edge_w;               /* the rounded edge band, face units from the side */
    float edge_lift;             /* the band's albedo over the body's (it faces the light more) */
    float print_gloss, body_gloss;
} sim__qw_design;

/* Ink albedo of the six colours (rules_color order), linear 0..1, by
 * palette: the classic print, a bright toy print, a muted print, and a
 * print whose orange leans red, green teal and purple pink. */
static const float sim__qw_palettes[4][6][3] = {
    {{0.80f, 0.08f, 0.08f}, {0.95f, 0.42f, 0.05f}, {0.93f, 0.84f, 0.10f},
     {0.10f, 0.58f, 0.18f}, {0.08f, 0.28f, 0.82f}, {0.45f, 0.13f, 0.62f}},
    {{0.85f, 0.05f, 0.12f}, {1.00f, 0.50f, 0.00f}, {0.98f, 0.90f, 0.05f},
     {0.15f, 0.70f, 0.10f}, {0.05f, 0.40f, 0.90f}, {0.55f, 0.10f, 0.75f}},
    {{0.65f, 0.12f, 0.10f}, {0.85f, 0.38f, 0.10f}, {0.85f, 0.75f, 0.20f},
     {0.12f, 0.45f, 0.22f}, {0.10f, 0.25f, 0.60f}, {0.38f, 0.16f, 0.50f}},
    {{0.78f, 0.04f, 0.16f}, {0.92f, 0.30f, 0.04f}, {0.95f, 0.78f, 0.02f},
     {0.02f, 0.55f, 0.35f}, {0.12f, 0.35f, 0.88f}, {0.62f, 0.15f, 0.58f}},
};

#define QW_PI4 (SIM__PI / 4)

static const sim__qw_design sim__qw_designs[] = {
    /* name        zoom  circle     square      diamond     clover: c    r     core  turn    star4: ro   ri    turn    star8      pal sat    val    body                     edge  lift  gloss: print body */
    {"classic",    1.05, 0.56, 0,   0.48, 0,    0.68, 0.68, 0.30, 0.26, 0.22, 0,      0.72, 0.22, 0,      0.70, 0.38, 0, 1.0f, 1.0f, {0.045f, 0.045f, 0.0495f}, 0.07, 2.0f, 0.20f, 0.50f},
    {"bold",       0.95, 0.58, 0,   0.50, 0.08, 0.62, 0.74, 0.33, 0.30, 0.26, 0,      0.74, 0.30, 0,      0.72, 0.48, 1, 1.1f, 1.0f, {0.030f, 0.030f, 0.030f}, 0.10, 2.5f, 0.45f, 0.70f},
    {"small print",1.70, 0.56, 0,   0.46, 0.04, 0.64, 0.70, 0.30, 0.25, 0.20, 0,      0.74, 0.20, 0,      0.72, 0.36, 0, 0.9f, 0.95f,{0.060f, 0.058f, 0.055f}, 0.05, 1.6f, 0.15f, 0.30f},
    {"rings",      1.15, 0.56, 0.32,0.44, 0.14, 0.56, 0.72, 0.30, 0.27, 0.18, QW_PI4, 0.70, 0.26, 0,      0.70, 0.44, 2, 1.0f, 1.0f, {0.090f, 0.090f, 0.095f}, 0.08, 1.8f, 0.10f, 0.15f},
    {"pinched",    1.10, 0.54, 0,   0.48, 0.02, 0.58, 0.58, 0.36, 0.22, 0.12, 0,      0.76, 0.14, QW_PI4, 0.74, 0.30, 3, 1.0f, 1.05f,{0.040f, 0.036f, 0.034f}, 0.06, 2.2f, 0.35f, 0.60f},
    {"grey body",  1.25, 0.55, 0,   0.47, 0.20, 0.66, 0.66, 0.29, 0.27, 0.24, QW_PI4, 0.70, 0.28, 0,      0.68, 0.44, 1, 0.85f,0.9f, {0.120f, 0.120f, 0.125f}, 0.12, 1.5f, 0.05f, 0.10f},
    {"tall",       1.00, 0.52, 0,   0.45, 0.10, 0.48, 0.76, 0.31, 0.28, 0.20, 0,      0.78, 0.26, 0,      0.76, 0.42, 2, 1.15f,1.1f, {0.050f, 0.052f, 0.060f}, 0.09, 2.8f, 0.55f, 0.80f},
    {"large print",0.80, 0.56, 0,   0.48, 0.06, 0.68, 0.68, 0.31, 0.27, 0.22, 0,      0.72, 0.24, 0,      0.70, 0.40, 3, 0.95f,1.0f, {0.070f, 0.065f, 0.060f}, 0.04, 2.0f, 0.25f, 0.40f},
    {"blunt",      1.35, 0.57, 0.36,0.49, 0.24, 0.64, 0.64, 0.30, 0.29, 0.26, QW_PI4, 0.66, 0.34, QW_PI4, 0.66, 0.44, 0, 0.8f, 0.9f, {0.025f, 0.025f, 0.028f}, 0.11, 3.0f, 0.60f, 0.85f},
    {"sharp",      1.05, 0.55, 0,   0.48, 0.00, 0.60, 0.66, 0.33, 0.24, 0.16, 0,      0.78, 0.12, 0,      0.76, 0.26, 1, 1.0f, 0.95f,{0.100f, 0.095f, 0.090f}, 0.06, 1.7f, 0.12f, 0.25f},
};

#define QW_NMADE ((int)(sizeof sim__qw_designs / sizeof sim__qw_designs[0]))

/* Beyond the designs drawn by hand, QW_NDRAWN more drawn at random from
 * the ranges below (design d from its own seed): the learned reader sees
 * many sets, so that it learns what a shape is rather than one set's
 * drawing of it.  Each range spans the hand-made designs and a little
 * more, still within what a person calls the shape. */
#define QW_NDRAWN 30
#define QW_NDESIGNS (QW_NMADE + QW_NDRAWN)

typedef struct sim__qw_range {
    double zoom[2];              /* the print from large (0.8) to small (1.7) on the face */
    double circle_r[2], ring_share, ring_in[2];
    double square_h[2], square_k[2];
    double diamond[2], diamond_aspect[2]; /* half diagonal; tall over wide */
    double clover_c[2], clover_rc[2], clover_core[2]; /* lobe radius as a share of its spacing */
    double turned_share;         /* clovers and star4s turned to an x */
    double star4_ro[2], star4_ri[2];
    double star8_ro[2], star8_ratio[2]; /* inner radius over outer: sharp to blunt */
    double sat[2], val[2], body[2], edge_w[2], edge_lift[2], print_gloss[2], body_gloss[2];
} sim__qw_range;

static const sim__qw_range sim__qw_ranges = {
    .zoom = {0.8, 1.7},
    .circle_r = {0.50, 0.60}, .ring_share = 0.25, .ring_in = {0.28, 0.38},
    .square_h = {0.42, 0.52}, .square_k = {0, 0.25},
    .diamond = {0.56, 0.70}, .diamond_aspect = {0.85, 1.25},
    .clover_c = {0.24, 0.38}, .clover_rc = {0.6, 1.0}, .clover_core = {0, 0.24},
    .turned_share = 0.3,
    .star4_ro = {0.66, 0.80}, .star4_ri = {0.10, 0.30},
    .star8_ro = {0.64, 0.78}, .star8_ratio = {0.33, 0.65},
    .sat = {0.8, 1.15}, .val = {0.85, 1.1}, .body = {0.02, 0.13},
    .edge_w = {0.04, 0.12}, .edge_lift = {1.5, 3.0},
    .print_gloss = {0.05, 0.6}, .body_gloss = {0.1, 0.85},
};

static double sim__pick(sim__rng *r, const double lim[2]) { return sim__rng_range(r, lim[0], lim[1]); }

/* Design QW_NMADE + k, drawn from its own seed. */
static void sim__qw_draw_design(int k, sim__qw_design *d)
{
    const sim__qw_range *g = &sim__qw_ranges;
    sim__rng r;
    double body;
    sim__rng_seed(&r, 0x51A7u + (uint64_t)k, 7);
    memset(d, 0, sizeof *d);
    d->name = "drawn";
    d->zoom = sim__pick(&r, g->zoom);
    d->circle_r = sim__pick(&r, g->circle_r);
    d->ring_in = sim__rng_unit(&r) < g->ring_share ? sim__pick(&r, g->ring_in) : 0;
    d->square_h = sim__pick(&r, g->square_h);
    d->square_k = sim__pick(&r, g->square_k);
    d->diamond_u = sim__pick(&r, g->diamond);
    d->diamond_v = fmin(0.78, d->diamond_u * sim__pick(&r, g->diamond_aspect));
    d->clover_c = sim__pick(&r, g->clover_c);
    d->clover_r = d->clover_c * sim__pick(&r, g->clover_rc);
    d->clover_core = fmin(d->clover_c, sim__pick(&r, g->clover_core));
    d->clover_turn = sim__rng_unit(&r) < g->turned_share ? QW_PI4 : 0;
    d->star4_ro = sim__pick(&r, g->star4_ro);
    d->star4_ri = sim__pick(&r, g->star4_ri);
    d->star4_turn = sim__rng_unit(&r) < g->turned_share ? QW_PI4 : 0;
    d->star8_ro = sim__pick(&r, g->star8_ro);
    d->star8_ri = d->star8_ro * sim__pick(&r, g->star8_ratio);
    d->palette = sim__rng_int(&r, 4);
    d->sat = (float)sim__pick(&r, g->sat);
    d->val = (float)sim__pick(&r, g->val);
    body = sim__pick(&r, g->body);
    for (int c = 0; c < 3; c++)
        d->body[c] = (float)(body * sim__rng_range(&r, 0.92, 1.08));
    d->edge_w = sim__pick(&r, g->edge_w);
    d->edge_lift = (float)sim__pick(&r, g->edge_lift);
    d->print_gloss = (float)sim__pick(&r, g->print_gloss);
    d->body_gloss = (float)sim__pick(&r, g->body_gloss);
}

static void sim__turn(double *u, double *v, double a)
{
    double c = cos(a), s = sin(a), x = *u, y = *v;
    *u = c * x + s * y;
    *v = -s * x + c * y;
}

static bool sim__in_shape(const sim__qw_design *d, int shape, double u, double v)
{
    double au = fabs(u), av = fabs(v);
    switch (shape) {
    case RULES_CIRCLE: {
        double r2 = u * u + v * v;
        return r2 < d->circle_r * d->circle_r && r2 >= d->ring_in * d->ring_in;
    }
    case RULES_SQUARE: {
        double h = d->square_h, k = d->square_k;
        double qu = fmax(au - (h - k), 0), qv = fmax(av - (h - k), 0);
        return au < h && av < h && qu * qu + qv * qv <= k * k + (k == 0);
    }
    case RULES_DIAMOND:
        return au / d->diamond_u + av / d->diamond_v < 1;
    case RULES_CLOVER: {
        const double c = d->clover_c, r = d->clover_r;
        sim__turn(&u, &v, d->clover_turn);
        au = fabs(u);
        av = fabs(v);
        return (au - c) * (au - c) + v * v < r * r || u * u + (av - c) * (av - c) < r * r ||
               u * u + v * v < d->clover_core * d->clover_core;
    }
    case RULES_STAR4:
        sim__turn(&u, &v, d->star4_turn);
        return sim__in_star(u, v, 4, d->star4_ro, d->star4_ri);
    default: /* star8: the eight-point starburst */
        return sim__in_star(u, v, 8, d->star8_ro, d->star8_ri);
    }
}

/* The driver's state is read by decorate through dstate; the design it
 * holds is what every cube of the stream is printed with. */
typedef struct sim__qw sim__qw;
static const sim__qw_design *sim__qw_design_of(const void *dstate);

static void sim__qw_decorate(void *dstate, sim__obj *o, sim__rng *r)
{
    int others[5], n = 0;
    for (int s = 0; s < 6; s++)
        if (s != o->piece.b)
            others[n++] = s;
    for (int i = 4; i > 0; i--) { /* Fisher-Yates */
        int j = sim__rng_int(r, i + 1), t = others[i];
        others[i] = others[j];
        others[j] = t;
    }
    o->faces[0] = o->piece.b;
    for (int i = 0; i < 5; i++)
        o->faces[i + 1] = (uint8_t)others[i];
    o->style = sim__qw_design_of(dstate);
}

static void sim__qw_shade(const sim__obj *o, int face, double u, double v, float rgb[3],
                          float *gloss)
{
    const sim__qw_design *d = o->style ? o->style : &sim__qw_designs[0];
    int colour = o->piece.a < 6 ? o->piece.a : 0;
    /* The rounded edges face the light more than the flat face does. */
    double edge = fmax(fabs(u), fabs(v));
    float lift = edge > 1 - d->edge_w ? d->edge_lift : 1.0f;
    if (face >= 0 && face < 6 && sim__in_shape(d, o->faces[face], u * d->zoom, v * d->zoom)) {
        const float *ink = sim__qw_palettes[d->palette][colour];
        float grey = (ink[0] + ink[1] + ink[2]) / 3;
        if (d->sat == 1 && d->val == 1) { /* the palette as printed */
            memcpy(rgb, ink, 3 * sizeof *rgb);
            *gloss = d->print_gloss;
            return;
        }
        for (int k = 0; k < 3; k++) {
            float c = d->val * (grey + d->sat * (ink[k] - grey));
            rgb[k] = c < 0 ? 0 : c > 1 ? 1 : c;
        }
        *gloss = d->print_gloss;
        return;
    }
    for (int k = 0; k < 3; k++)
        rgb[k] = d->body[k] * lift;
    *gloss = d->body_gloss;
}

static const sim__piece_kind sim__qw_kind = {
    .game = "qwirkle",
    .pitch_x = 20,
    .pitch_y = 20,
    .sx = 19.5,
    .sy = 19.5,
    .sz = 19.5,
    .decorate = sim__qw_decorate,
    .shade = sim__qw_shade,
};

/* ---- the player ---- */

struct sim__qw {
    const sim__qw_design *design;
    sim__qw_design drawn; /* a drawn design, when design points here */
    int nplayers;
    rules_piece hand[RULES_MAX_PLAYERS][QW_HAND];
    int nhand[RULES_MAX_PLAYERS];
    int bag[6];
    int nbag;
};

static const sim__qw_design *sim__qw_design_of(const void *dstate)
{
    const sim__qw *q = dstate;
    return q && q->design ? q->design : &sim__qw_designs[0];
}

static void sim__qw_set_design(void *state, int design)
{
    sim__qw *q = state;
    if (design >= QW_NMADE && design < QW_NDESIGNS) {
        sim__qw_draw_design(design - QW_NMADE, &q->drawn);
        q->design = &q->drawn;
    } else {
        q->design = &sim__qw_designs[design >= 0 && design < QW_NMADE ? design : 0];
    }
}

static rules_piece sim__qw_draw(sim__qw *q, sim__rng *r)
{
    rules_piece p;
    int k = sim__rng_int(r, q->nbag), c = 0;
    while (k >= q->bag[c]) {
        k -= q->bag[c];
        c++;
    }
    q->bag[c]--;
    q->nbag--;
    memset(&p, 0, sizeof p);
    p.a = (uint8_t)c;
    p.b = (uint8_t)sim__rng_int(r, 6);
    p.owner = -1;
    return p;
}

static int sim__qw_sync(const sim__qw *q, const rules_game *g)
{
    rules_status st;
    rules_game_status(g, &st);
    if (st.bag != q->nbag)
        return BASE_ESTATE;
    for (int i = 0; i < q->nplayers; i++)
        if (st.hand[i] != q->nhand[i])
            return BASE_ESTATE;
    return 0;
}

static int sim__qw_create(cJSON *header, int nplayers, sim__rng *r, void **state)
{
    sim__qw *q = calloc(1, sizeof *q);
    (void)header;
    if (!q)
        return BASE_ENOMEM;
    q->nplayers = nplayers;
    for (int c = 0; c < 6; c++)
        q->bag[c] = 15;
    q->nbag = 90;
    for (int p = 0; p < q->nplayers; p++)
        for (int i = 0; i < QW_HAND; i++)
            q->hand[p][q->nhand[p]++] = sim__qw_draw(q, r);
    *state = q;
    return 0;
}

static int sim__qw_sync_state(void *state, const rules_game *g) { return sim__qw_sync(state, g); }

static void sim__qw_destroy(void *state) { free(state); }

typedef struct sim__qw_pick {
    sim__reservoir rv;
    sim__fits_fn fits;
    void *ctx;
} sim__qw_pick;

static int sim__qw_consider(void *ctx, const rules_move *m)
{
    sim__qw_pick *pk = ctx;
    /* the weight grows with the cubes placed */
    if (sim__move_fits(m, pk->fits, pk->ctx))
        sim__reservoir_offer(&pk->rv, m, (double)(m->npieces * m->npieces));
    return 0;
}

static void sim__qw_with_hand(const sim__qw *q, int player, rules_move *m)
{
    m->nhand = q->nhand[player];
    memcpy(m->hand, q->hand[player], sizeof(rules_piece) * (size_t)q->nhand[player]);
}

static int sim__qw_choose(void *state, const rules_game *g, int player, sim__rng *r,
                          sim__fits_fn fits, void *ctx, rules_move *m)
{
    sim__qw *q = state;
    sim__qw_pick pk = {{r, m, 0, 0}, fits, ctx};
    rules_status st;
    int rc;
    rules_game_status(g, &st);
    if (st.over)
        return BASE_ENOTFOUND;
    rc = rules_generate(g, player, q->hand[player], q->nhand[player], sim__qw_consider, &pk);
    if (rc < 0)
        return rc;
    if (pk.rv.count > 0) {
        sim__qw_with_hand(q, player, m);
        return 0;
    }
    rules_move_init(m, q->nhand[player] < QW_HAND && q->nbag > 0 ? RULES_MOVE_DRAW
                                                                  : RULES_MOVE_REROLL);
    sim__qw_with_hand(q, player, m);
    return 0;
}

static int sim__qw_choose_illegal(void *state, const rules_game *g, int player, sim__rng *r,
                                  sim__fits_fn fits, void *ctx, rules_move *m)
{
    const sim__qw *q = state;
    return sim__illegal_single(g, player, q->hand[player], q->nhand[player], 3, r, fits, ctx, m);
}

static int sim__qw_applied(void *state, const rules_game *g, int player, const rules_move *m,
                           sim__rng *r)
{
    sim__qw *q = state;
    rules_piece *h = q->hand[player];
    int *nh = &q->nhand[player];
    switch (m->type) {
    case RULES_MOVE_PLACE:
        for (int i = 0; i < m->npieces; i++)
            for (int j = 0; j < *nh; j++)
                if (h[j].a == m->pieces[i].a && h[j].b == m->pieces[i].b) {
                    h[j] = h[--*nh];
                    break;
                }
        for (int i = 0; i < m->npieces && q->nbag > 0; i++)
            h[(*nh)++] = sim__qw_draw(q, r);
        break;
    case RULES_MOVE_DRAW:
        while (*nh < QW_HAND && q->nbag > 0)
            h[(*nh)++] = sim__qw_draw(q, r);
        break;
    case RULES_MOVE_REROLL:
        for (int j = 0; j < *nh; j++)
            h[j].b = (uint8_t)sim__rng_int(r, 6);
        break;
    default:
        break;
    }
    return sim__qw_sync(q, g);
}

static int sim__qw_held(void *state, int player, rules_piece *out, int cap)
{
    const sim__qw *q = state;
    int n = q->nhand[player] < cap ? q->nhand[player] : cap;
    memcpy(out, q->hand[player], sizeof *out * (size_t)n);
    return n;
}

/* Enrolment (FORMATS.md 7): photo `image` shows the six cubes of shape
 * `image` (circle square diamond clover star4 star8), red to purple from
 * left to right as read from the mat's top edge (x toward marker 1), in
 * one row of touching cubes, the way a line lies on the board. */
static int sim__qw_enrol(int image, rules_piece *out, int cap)
{
    int n = 0;
    if (image < 0 || image >= RULES_NSHAPES || cap < 0)
        return BASE_EINVAL;
    for (int c = RULES_RED; c <= RULES_PURPLE && n < cap; c++, n++) {
        memset(&out[n], 0, sizeof out[n]);
        out[n].x = (int16_t)(c - RULES_RED - 3); /* -3 .. 2 */
        out[n].y = 0;
        out[n].a = (uint8_t)c;
        out[n].b = (uint8_t)image;
        out[n].owner = -1;
    }
    return n;
}

const sim__driver sim__qwirkle_driver = {
    .game = "qwirkle",
    .kind = &sim__qw_kind,
    .create = sim__qw_create,
    .sync = sim__qw_sync_state,
    .destroy = sim__qw_destroy,
    .choose = sim__qw_choose,
    .choose_illegal = sim__qw_choose_illegal,
    .applied = sim__qw_applied,
    .held = sim__qw_held,
    .ndesigns = QW_NDESIGNS,
    .set_design = sim__qw_set_design,
    .nenrol = RULES_NSHAPES,
    .enrol = sim__qw_enrol,
};
