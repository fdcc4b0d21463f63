/* sim/cards_pieces.c: playing cards for the simulator (game "cards").
 *
 * The look: a poker card (63 x 88 mm on a 63 x 88 grid, so that neighbours
 * touch edge to edge as on a real table) with rounded corners, printed
 * with a texture of its deck (cards_decks.c: the designs, one per stream,
 * set by set_design).  Each face is rendered once, when the card first
 * shows, and the renderer samples it; a card that lies face down (the
 * down option, decided once a card from its own seed stream) shows the
 * deck's back instead.
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

#define CD_DEAL 5

typedef struct sim__cd {
    int nplayers;
    int design;
    sim__cd_deck *deck; /* the design's deck, open for the stream */
    uint8_t deck_order[52]; /* undrawn, the top is deck_order[ndeck - 1]; card = suit * 13 + rank - 1 */
    int ndeck;
    rules_piece hand[RULES_MAX_PLAYERS][RULES_MAX_HAND];
    int nhand[RULES_MAX_PLAYERS];
    vis_image *tex[52];
    vis_image *back;
    bool down[52];      /* the card lies face down whenever it is on the table */
    int failed;         /* the first error rendering a card (err says it), or 0 */
    base_err err;
} sim__cd;

/* Remembers the first error the deck met: decorate cannot return one, the
 * stream asks for it after (sim__driver.failed). */
static void sim__cd_fail(sim__cd *c, int rc, const base_err *e)
{
    if (c->failed)
        return;
    c->failed = rc;
    c->err = *e;
}

/* The texture of card (or SIM__CD_BACK), rendered the first time it is
 * asked for; NULL after an error. */
static const vis_image *sim__cd_texture(sim__cd *c, int card)
{
    vis_image **slot = card == SIM__CD_BACK ? &c->back : &c->tex[card];
    base_err e;
    int rc;
    if (*slot || c->failed || !c->deck)
        return *slot;
    if ((rc = sim__cd_deck_render(c->deck, card, slot, &e)) != 0)
        sim__cd_fail(c, rc, &e);
    return *slot;
}

/* ---- the piece kind ---- */

static void sim__cd_decorate(void *dstate, sim__obj *o, sim__rng *r)
{
    sim__cd *c = dstate;
    int card = o->piece.b * 13 + o->piece.a - 1;
    (void)r;
    o->corner_r = 3;
    sim__cd_deck_underside(c->design, o->rgb);
    if (card < 0 || card >= 52)
        return;
    o->down = c->down[card];
    o->tex = sim__cd_texture(c, o->down ? SIM__CD_BACK : card);
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
    .sx = SIM__CD_W,
    .sy = SIM__CD_H,
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
    /* This draw once picked the deck design; the design now comes from
     * set_design, but the draw stays so that the shuffle and the deal of
     * every seed are what they were. */
    (void)sim__rng_int(r, 3);
    for (int i = 0; i < 52; i++)
        c->deck_order[i] = (uint8_t)i;
    for (int i = 51; i > 0; i--) {
        int j = sim__rng_int(r, i + 1);
        uint8_t t = c->deck_order[i];
        c->deck_order[i] = c->deck_order[j];
        c->deck_order[j] = t;
    }
    c->ndeck = 52;
    {
        rules_piece p = sim__cd_piece(c->deck_order[--c->ndeck]);
        start = cJSON_AddObjectToObject(header, "start");
        cJSON_AddNumberToObject(start, "x", 0);
        cJSON_AddNumberToObject(start, "y", 0);
        cJSON_AddStringToObject(start, "card", rules_card_name(p.a, p.b, name));
    }
    for (int p = 0; p < nplayers; p++)
        for (int i = 0; i < CD_DEAL; i++)
            c->hand[p][c->nhand[p]++] = sim__cd_piece(c->deck_order[--c->ndeck]);
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
    vis_image_free(c->back);
    sim__cd_deck_close(c->deck);
    free(c);
}

/* The stream's design: its deck is opened (a KDE document parsed) here,
 * once; an error waits for sim__cd_failed. */
static void sim__cd_set_design(void *state, int design)
{
    sim__cd *c = state;
    base_err e;
    int rc;
    c->design = design;
    sim__cd_deck_close(c->deck);
    c->deck = NULL;
    if ((rc = sim__cd_deck_open(design, &c->deck, &e)) != 0)
        sim__cd_fail(c, rc, &e);
}

static void sim__cd_set_down(void *state, double p, sim__rng *r)
{
    sim__cd *c = state;
    /* one draw a card, whatever p is: the same seed decides the same cards */
    for (int i = 0; i < 52; i++)
        c->down[i] = sim__rng_unit(r) < p;
}

static int sim__cd_failed(void *state, base_err *err)
{
    const sim__cd *c = state;
    if (!c->failed)
        return 0;
    if (err)
        *err = c->err;
    return c->failed;
}

/* The mover's cards for this turn: the hand and the card drawn first. */
static int sim__cd_held(const sim__cd *c, int player, rules_piece *held)
{
    int n = c->nhand[player];
    memcpy(held, c->hand[player], sizeof *held * (size_t)n);
    if (c->ndeck > 0 && n < RULES_MAX_HAND)
        held[n++] = sim__cd_piece(c->deck_order[c->ndeck - 1]);
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
        h[(*nh)++] = sim__cd_piece(c->deck_order[--c->ndeck]);
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
    .ndesigns = SIM__CD_NDECKS,
    .set_design = sim__cd_set_design,
    .design_name = sim__cd_deck_id,
    .set_down = sim__cd_set_down,
    .failed = sim__cd_failed,
};
