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

/* Albedo of the six colours (rules_color order), linear 0..1. */
static const float sim__qw_rgb[6][3] = {
    {0.80f, 0.08f, 0.08f}, {0.95f, 0.42f, 0.05f}, {0.93f, 0.84f, 0.10f},
    {0.10f, 0.58f, 0.18f}, {0.08f, 0.28f, 0.82f}, {0.45f, 0.13f, 0.62f},
};

/* Inside an n-pointed star of outer radius ro and inner radius ri with a
 * spike along +u. */
static bool sim__in_star(double u, double v, int n, double ro, double ri)
{
    double rho = sqrt(u * u + v * v), sector = 2 * SIM__PI / n;
    double th = atan2(v, u), phi;
    if (rho > ro)
        return false;
    if (rho < ri)
        return true;
    phi = fabs(th - sector * floor(th / sector + 0.5));
    {
        double px = rho * cos(phi), py = rho * sin(phi);
        double tx = ro, ty = 0, vx = ri * cos(sector / 2), vy = ri * sin(sector / 2);
        double cp = (vx - tx) * (py - ty) - (vy - ty) * (px - tx);
        double co = (vx - tx) * (0 - ty) - (vy - ty) * (0 - tx);
        return (cp >= 0) == (co >= 0);
    }
}

static bool sim__in_shape(int shape, double u, double v)
{
    double au = fabs(u), av = fabs(v);
    switch (shape) {
    case RULES_CIRCLE:
        return u * u + v * v < 0.56 * 0.56;
    case RULES_SQUARE:
        return au < 0.48 && av < 0.48;
    case RULES_DIAMOND:
        return au + av < 0.68;
    case RULES_CLOVER: {
        const double c = 0.3, r = 0.26;
        return (au - c) * (au - c) + v * v < r * r || u * u + (av - c) * (av - c) < r * r ||
               u * u + v * v < 0.22 * 0.22;
    }
    case RULES_STAR4:
        return sim__in_star(u, v, 4, 0.72, 0.22);
    default: /* star8: the eight-point starburst */
        return sim__in_star(u, v, 8, 0.70, 0.38);
    }
}

static void sim__qw_decorate(void *dstate, sim__obj *o, sim__rng *r)
{
    (void)dstate;
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
}

static void sim__qw_shade(const sim__obj *o, int face, double u, double v, float rgb[3],
                          float *gloss)
{
    int colour = o->piece.a < 6 ? o->piece.a : 0;
    /* Slightly rounded edges catch a little more light. */
    double edge = fmax(fabs(u), fabs(v));
    float body = edge > 0.93 ? 0.09f : 0.045f;
    if (face >= 0 && face < 6 && sim__in_shape(o->faces[face], u * 1.05, v * 1.05)) {
        memcpy(rgb, sim__qw_rgb[colour], 3 * sizeof *rgb);
        *gloss = 0.2f;
        return;
    }
    rgb[0] = rgb[1] = body;
    rgb[2] = body * 1.1f;
    *gloss = 0.5f;
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

typedef struct sim__qw {
    int nplayers;
    rules_piece hand[RULES_MAX_PLAYERS][QW_HAND];
    int nhand[RULES_MAX_PLAYERS];
    int bag[6];
    int nbag;
} sim__qw;

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
    sim__rng *r;
    sim__fits_fn fits;
    void *ctx;
    rules_move *best;
    double key;
    int count;
} sim__qw_pick;

static int sim__qw_consider(void *ctx, const rules_move *m)
{
    sim__qw_pick *pk = ctx;
    double w, key;
    for (int i = 0; i < m->npieces; i++)
        if (!pk->fits(pk->ctx, m->pieces[i].x, m->pieces[i].y))
            return 0;
    /* Weighted reservoir sampling (Efraimidis-Spirakis): one pass, any
     * number of moves, weight growing with the cubes placed. */
    w = (double)(m->npieces * m->npieces);
    key = log(sim__rng_unit(pk->r) + 1e-300) / w;
    if (pk->count++ == 0 || key > pk->key) {
        pk->key = key;
        *pk->best = *m;
    }
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
    sim__qw_pick pk = {r, fits, ctx, m, 0, 0};
    rules_status st;
    int rc;
    rules_game_status(g, &st);
    if (st.over)
        return BASE_ENOTFOUND;
    rc = rules_generate(g, player, q->hand[player], q->nhand[player], sim__qw_consider, &pk);
    if (rc < 0)
        return rc;
    if (pk.count > 0) {
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
};
