/* rules/cubed.c: the cubed engine, CUBED's hexagonal pieces (GAMES.md
 * "cubed", docs/rules-cubed.md).
 *
 * The table is a pointy-top hex grid in axial coordinates; a piece is three
 * rhombi, each covering two neighbouring edges of its cell.  The referee
 * does not see hands: it counts them (deal, draws, plays) and knows which
 * piece kinds are still unseen (the catalogue minus the table), which is
 * enough to tell a real piece from a mirrored one, to find the end of a
 * round and to check the hands revealed when it ends.
 *
 * The whole state is one flat struct (no pointers), so clone is a memcpy. */
#include "engine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CUBED_MAX_PIECES 128 /* pieces in a catalogue */
#define CUBED_HASH 1024      /* cell table slots: pieces plus dead cells, load <= 0.63 */
#define CUBED_NCOL 8         /* RULES_NCOLORS */

enum cubed_class { CUBED_SINGLE, CUBED_DOUBLE, CUBED_TRIPLE, CUBED_BLOCKING, CUBED_WILD };
static const int cubed__class_points[] = {1, 2, 3, 5, 10};

enum cubed_phase { CUBED_PLAY, CUBED_REVEAL, CUBED_OVER };

/* Edge e of a cell faces the neighbour at (q,r) + d[e]. */
static const int cubed__dq[6] = {1, 1, 0, -1, -1, 0};
static const int cubed__dr[6] = {-1, 0, 1, 1, 0, -1};
static const char *const cubed__edge_names[6] = {"NE", "E", "SE", "SW", "W", "NW"};

/* Deal per player count (index 1..6; 1 is solo). */
static const int cubed__deal[RULES_MAX_PLAYERS + 1] = {0, 25, 25, 18, 13, 11, 9};

typedef struct cubed_kind {
    uint8_t f[3]; /* the faces, in their smallest rotation */
    uint8_t cls;  /* enum cubed_class */
    uint8_t count; /* copies in the catalogue */
} cubed_kind;

typedef struct cubed_cell {
    int32_t key;
    int16_t piece;   /* index in pos[], -1 when empty */
    int16_t dead_by; /* the blocking piece whose black side faces it, or -1 */
    uint8_t used;
} cubed_cell;

typedef struct cubed_state {
    int nplayers;
    /* options */
    bool bridge, fill_void, draw3, solo;
    int rounds;
    /* catalogue */
    int nkinds, total;
    cubed_kind kinds[CUBED_MAX_PIECES];
    int16_t kind_of[CUBED_NCOL * CUBED_NCOL * CUBED_NCOL]; /* canonical faces -> kind */
    /* the game */
    int round, phase, to_move, moves;
    int scores[RULES_MAX_PLAYERS], round_scores[RULES_MAX_PLAYERS];
    bool over;
    unsigned winners;
    /* the round */
    int hand[RULES_MAX_PLAYERS], bag;
    uint8_t left[CUBED_MAX_PIECES]; /* copies of each kind not on the table nor revealed */
    int npos, parity;
    rules_piece pos[CUBED_MAX_PIECES];
    int16_t pos_kind[CUBED_MAX_PIECES];
    cubed_cell cells[CUBED_HASH];
    /* the turn */
    int draws;       /* draws so far this turn */
    bool placed;     /* a piece was played this turn */
    bool bonus;      /* bridge: the player may play a second piece now */
    bool bonus_used; /* one bonus piece a turn */
    int idle;        /* turns in a row without a piece played */
    /* the end of a round */
    int emptier;          /* the player who emptied their hand, or -1 */
    unsigned must_reveal; /* bit i: player i still shows their hand */
    int revealed[RULES_MAX_PLAYERS];
} cubed_state;

/* ---- pieces and the catalogue ---- */

static int cubed__rhombus(int parity, int e) { return parity ? e / 2 : ((e + 1) % 6) / 2; }

static int cubed__face(const rules_piece *p, int i) { return i == 0 ? p->a : i == 1 ? p->b : p->c; }

static int cubed__edge_color(const rules_piece *p, int e)
{
    return cubed__face(p, cubed__rhombus(p->parity, e));
}

static int cubed__index(const uint8_t f[3])
{
    return (f[0] * CUBED_NCOL + f[1]) * CUBED_NCOL + f[2];
}

/* The smallest of the three rotations: turned pieces compare equal. */
static void cubed__canonical(int a, int b, int c, uint8_t out[3])
{
    uint8_t r[3][3] = {{(uint8_t)a, (uint8_t)b, (uint8_t)c},
                       {(uint8_t)b, (uint8_t)c, (uint8_t)a},
                       {(uint8_t)c, (uint8_t)a, (uint8_t)b}};
    int best = 0;
    for (int i = 1; i < 3; i++)
        if (memcmp(r[i], r[best], 3) < 0)
            best = i;
    memcpy(out, r[best], 3);
}

/* The class of a colour triple, or -1 when no CUBED piece looks like it. */
static int cubed__classify(int a, int b, int c)
{
    int f[3] = {a, b, c}, white = 0, black = 0;
    for (int i = 0; i < 3; i++) {
        if (f[i] < 0 || f[i] >= CUBED_NCOL)
            return -1;
        white += f[i] == RULES_WHITE;
        black += f[i] == RULES_BLACK;
    }
    if (white == 1 && black == 0)
        return CUBED_WILD;
    if (black == 2 && white == 0)
        return CUBED_BLOCKING;
    if (white || black)
        return -1;
    if (a == b && b == c)
        return CUBED_TRIPLE;
    if (a == b || b == c || a == c)
        return CUBED_DOUBLE;
    return CUBED_SINGLE;
}

/* The kind index of faces (any rotation), or -1. */
static int cubed__kind(const cubed_state *s, int a, int b, int c)
{
    uint8_t f[3];
    if (a >= CUBED_NCOL || b >= CUBED_NCOL || c >= CUBED_NCOL)
        return -1;
    cubed__canonical(a, b, c, f);
    return s->kind_of[cubed__index(f)];
}

static int cubed__add_kind(cubed_state *s, int a, int b, int c, base_err *err, int item)
{
    uint8_t f[3];
    int cls = cubed__classify(a, b, c), k;
    if (cls < 0)
        return base_err_set(err, BASE_EPARSE,
                            "\"catalogue\" item %d (%s, %s, %s) is not a CUBED piece: black "
                            "comes only as 2 black + 1 colour, white only as 1 white + 2 "
                            "colours",
                            item, rules_color_name(a), rules_color_name(b), rules_color_name(c));
    if (s->total >= CUBED_MAX_PIECES)
        return base_err_set(err, BASE_ERANGE, "\"catalogue\" holds more than %d pieces",
                            CUBED_MAX_PIECES);
    cubed__canonical(a, b, c, f);
    k = s->kind_of[cubed__index(f)];
    if (k < 0) {
        k = s->nkinds++;
        memcpy(s->kinds[k].f, f, 3);
        s->kinds[k].cls = (uint8_t)cls;
        s->kind_of[cubed__index(f)] = (int16_t)k;
    }
    s->kinds[k].count++;
    s->total++;
    return 0;
}

/* GAMES.md's 77 pieces: 6 triples, 30 doubles, 20 singles, 6 blocking and
 * 15 wild, over the six colours red..purple. */
static void cubed__default_catalogue(cubed_state *s)
{
    for (int a = 0; a < 6; a++)
        cubed__add_kind(s, a, a, a, NULL, 0);
    for (int a = 0; a < 6; a++)
        for (int b = 0; b < 6; b++)
            if (a != b)
                cubed__add_kind(s, a, a, b, NULL, 0);
    for (int a = 0; a < 6; a++)
        for (int b = a + 1; b < 6; b++)
            for (int c = b + 1; c < 6; c++)
                cubed__add_kind(s, a, b, c, NULL, 0);
    for (int a = 0; a < 6; a++)
        cubed__add_kind(s, RULES_BLACK, RULES_BLACK, a, NULL, 0);
    for (int a = 0; a < 6; a++)
        for (int b = a + 1; b < 6; b++)
            cubed__add_kind(s, a, b, RULES_WHITE, NULL, 0);
}

static void cubed__piece_name(int a, int b, int c, char *buf, size_t cap)
{
    const char *n[3] = {rules_color_name(a), rules_color_name(b), rules_color_name(c)};
    snprintf(buf, cap, "%s-%s-%s", n[0] ? n[0] : "?", n[1] ? n[1] : "?", n[2] ? n[2] : "?");
}

/* ---- the cell table ---- */

static int32_t cubed__key(int q, int r)
{
    return (int32_t)((uint32_t)(uint16_t)q << 16 | (uint16_t)r);
}

static unsigned cubed__slot(int32_t key)
{
    return ((uint32_t)key * 2654435761u) >> 22; /* 10 bits: CUBED_HASH */
}

static const cubed_cell *cubed__cell(const cubed_state *s, int q, int r)
{
    int32_t key = cubed__key(q, r);
    for (unsigned i = cubed__slot(key);; i = (i + 1) & (CUBED_HASH - 1)) {
        const cubed_cell *c = &s->cells[i];
        if (!c->used)
            return NULL;
        if (c->key == key)
            return c;
    }
}

static cubed_cell *cubed__cell_add(cubed_state *s, int q, int r)
{
    int32_t key = cubed__key(q, r);
    for (unsigned i = cubed__slot(key);; i = (i + 1) & (CUBED_HASH - 1)) {
        cubed_cell *c = &s->cells[i];
        if (!c->used) {
            c->used = 1;
            c->key = key;
            c->piece = -1;
            c->dead_by = -1;
            return c;
        }
        if (c->key == key)
            return c;
    }
}

/* The piece at (q,r), or -1. */
static int cubed__at(const cubed_state *s, int q, int r)
{
    const cubed_cell *c = cubed__cell(s, q, r);
    return c ? c->piece : -1;
}

/* ---- rounds ---- */

static void cubed__start_round(cubed_state *s, int starter)
{
    int deal = cubed__deal[s->nplayers];
    s->phase = CUBED_PLAY;
    s->to_move = starter;
    s->bag = s->total - deal * s->nplayers;
    for (int i = 0; i < s->nplayers; i++) {
        s->hand[i] = deal;
        s->round_scores[i] = 0;
        s->revealed[i] = 0;
    }
    for (int k = 0; k < s->nkinds; k++)
        s->left[k] = s->kinds[k].count;
    s->npos = 0;
    s->parity = 0;
    memset(s->cells, 0, sizeof s->cells);
    s->draws = 0;
    s->placed = s->bonus = s->bonus_used = false;
    s->idle = 0;
    s->emptier = -1;
    s->must_reveal = 0;
}

static int cubed__bool_option(const cJSON *it, bool *out, base_err *err)
{
    if (!cJSON_IsBool(it))
        return base_err_set(err, BASE_EPARSE, "cubed option \"%s\" must be true or false",
                            it->string);
    *out = cJSON_IsTrue(it);
    return 0;
}

static int cubed__read_header(cubed_state *s, const cJSON *header, int nplayers, base_err *err)
{
    const cJSON *opts = header ? cJSON_GetObjectItemCaseSensitive(header, "options") : NULL;
    const cJSON *it, *cat;
    bool rounds_set = false;
    int round = 1, rc;

    s->solo = nplayers == 1;
    s->rounds = 3;
    if (opts && !cJSON_IsObject(opts))
        return base_err_set(err, BASE_EPARSE, "\"options\" must be a JSON object");
    cJSON_ArrayForEach(it, opts) {
        rc = 0;
        if (strcmp(it->string, "bridge") == 0) {
            rc = cubed__bool_option(it, &s->bridge, err);
        } else if (strcmp(it->string, "void") == 0) {
            rc = cubed__bool_option(it, &s->fill_void, err);
        } else if (strcmp(it->string, "draw3") == 0) {
            rc = cubed__bool_option(it, &s->draw3, err);
        } else if (strcmp(it->string, "solo") == 0) {
            rc = cubed__bool_option(it, &s->solo, err);
        } else if (strcmp(it->string, "rounds") == 0) {
            if (!cJSON_IsNumber(it) || (it->valuedouble != 1 && it->valuedouble != 3))
                return base_err_set(err, BASE_EPARSE, "cubed option \"rounds\" must be 1 or 3");
            s->rounds = (int)it->valuedouble;
            rounds_set = true;
        } else {
            return base_err_set(err, BASE_EINVAL,
                                "unknown cubed option \"%s\" (known: rounds, bridge, void, "
                                "draw3, solo)",
                                it->string);
        }
        if (rc != 0)
            return rc;
    }
    if (s->solo && nplayers != 1)
        return base_err_set(err, BASE_EINVAL,
                            "cubed option \"solo\" is the one-player game, but the header names "
                            "%d players",
                            nplayers);
    if (!s->solo && nplayers == 1)
        return base_err_set(err, BASE_EINVAL,
                            "a one-player cubed game follows the solo rules: option \"solo\" "
                            "cannot be false");
    if (s->solo) {
        if (rounds_set && s->rounds != 1)
            return base_err_set(err, BASE_EINVAL,
                                "a solo cubed game is one round: option \"rounds\" must be 1");
        s->rounds = 1;
    }

    if (header && cJSON_GetObjectItemCaseSensitive(header, "round")) {
        if ((rc = rules__json_int(header, "round", &round, err)) != 0)
            return rc;
        if (round < 1 || round > s->rounds)
            return base_err_set(err, BASE_ERANGE, "\"round\" must be 1..%d, not %d", s->rounds,
                                round);
    }
    s->round = round;

    it = header ? cJSON_GetObjectItemCaseSensitive(header, "scores") : NULL;
    if (it) {
        if (!cJSON_IsArray(it) || cJSON_GetArraySize(it) != nplayers)
            return base_err_set(err, BASE_EPARSE,
                                "\"scores\" must be an array of %d totals (one a player)",
                                nplayers);
        for (int i = 0; i < nplayers; i++) {
            const cJSON *v = cJSON_GetArrayItem(it, i);
            if (!cJSON_IsNumber(v) || v->valuedouble != (double)(int)v->valuedouble ||
                v->valuedouble < 0)
                return base_err_set(err, BASE_EPARSE,
                                    "\"scores\" item %d must be a whole number >= 0", i + 1);
            s->scores[i] = (int)v->valuedouble;
        }
    }

    cat = header ? cJSON_GetObjectItemCaseSensitive(header, "catalogue") : NULL;
    if (cat) {
        int n, i = 0;
        if (!cJSON_IsArray(cat) || (n = cJSON_GetArraySize(cat)) == 0)
            return base_err_set(err, BASE_EPARSE,
                                "\"catalogue\" must be a non-empty array of colour triples");
        cJSON_ArrayForEach(it, cat) {
            rules_piece p;
            memset(&p, 0, sizeof p);
            i++;
            if ((rc = rules__cubed_hand_from_json(it, &p, err)) != 0) {
                base_err_prefix(err, "\"catalogue\" item %d: ", i);
                return rc;
            }
            if ((rc = cubed__add_kind(s, p.a, p.b, p.c, err, i)) != 0)
                return rc;
        }
    } else {
        cubed__default_catalogue(s);
    }
    if (s->total < cubed__deal[nplayers] * nplayers + (s->solo ? 1 : 0))
        return base_err_set(err, BASE_ERANGE,
                            "the catalogue holds %d pieces, too few to deal %d to each of %d "
                            "players",
                            s->total, cubed__deal[nplayers], nplayers);
    return 0;
}

static int cubed__create(const cJSON *header, int nplayers, base_err *err, void **state)
{
    cubed_state *s = calloc(1, sizeof *s);
    int rc;
    *state = NULL;
    if (!s)
        return base_err_set(err, BASE_ENOMEM, "out of memory");
    s->nplayers = nplayers;
    for (size_t i = 0; i < sizeof s->kind_of / sizeof s->kind_of[0]; i++)
        s->kind_of[i] = -1;
    if ((rc = cubed__read_header(s, header, nplayers, err)) != 0) {
        free(s);
        return rc;
    }
    cubed__start_round(s, 0);
    *state = s;
    return 0;
}

static int cubed__clone(const void *state, void **out)
{
    return rules__clone_block(state, sizeof(cubed_state), out);
}

static void cubed__status(const void *state, rules_status *out)
{
    const cubed_state *s = state;
    out->to_move = s->to_move;
    for (int i = 0; i < s->nplayers; i++) {
        out->scores[i] = s->scores[i];
        out->hand[i] = s->hand[i];
    }
    out->bag = s->bag;
    out->moves = s->moves;
    out->round = s->round;
    out->over = s->over;
    out->winners = s->winners;
}

/* ---- where a piece fits ---- */

/* NULL when p (cell, parity, faces; cls its class) may be placed on the
 * table as it is; otherwise the rule it breaks, with the reason in v when v
 * is not NULL.  Says nothing of hands and turns. */
static const char *cubed__fit(const cubed_state *s, const rules_piece *p, int cls,
                              rules_verdict *v)
{
    const cubed_cell *cell = cubed__cell(s, p->x, p->y);
    int nb[6], touch = 0;

#define CUBED__NO(rule, ...)                                                                   \
    do {                                                                                       \
        if (v)                                                                                 \
            rules__illegal(v, rule, __VA_ARGS__);                                              \
        return rule;                                                                           \
    } while (0)

    if (cell && cell->piece >= 0)
        CUBED__NO("cell-occupied", "cell (%d,%d) already holds a piece", p->x, p->y);
    if (s->npos > 0 && p->parity != s->parity)
        CUBED__NO("heights",
                  "the heights at (%d,%d) do not align: every piece must lie like the first one "
                  "(parity %d), this one has parity %d",
                  p->x, p->y, s->parity, p->parity);
    if (cell && cell->dead_by >= 0) {
        const rules_piece *b = &s->pos[cell->dead_by];
        CUBED__NO("cell-dead",
                  "cell (%d,%d) is beside a black side of the blocking piece at (%d,%d): no piece "
                  "may go there",
                  p->x, p->y, b->x, b->y);
    }
    if (cls == CUBED_BLOCKING && s->npos < 3)
        CUBED__NO("blocking-early",
                  "a blocking piece may only be played once 3 pieces are on the table (there %s "
                  "%d)",
                  s->npos == 1 ? "is" : "are", s->npos);
    for (int e = 0; e < 6; e++) {
        nb[e] = cubed__at(s, p->x + cubed__dq[e], p->y + cubed__dr[e]);
        touch += nb[e] >= 0;
    }
    if (cls == CUBED_BLOCKING) {
        int colored = 0;
        for (int e = 0; e < 6; e++) {
            int mine = cubed__edge_color(p, e);
            if (mine == RULES_BLACK && nb[e] >= 0)
                CUBED__NO("block-black-edge",
                          "the black side of the blocking piece at (%d,%d) would touch the piece "
                          "at (%d,%d) (edge %s): black sides touch nothing",
                          p->x, p->y, s->pos[nb[e]].x, s->pos[nb[e]].y, cubed__edge_names[e]);
            if (mine != RULES_BLACK && nb[e] >= 0)
                colored++;
        }
        if (colored < 2)
            CUBED__NO("block-colour",
                      "the %s diamond of the blocking piece at (%d,%d) must touch 2 pieces of "
                      "its colour, it touches %d",
                      rules_color_name(p->a == RULES_BLACK
                                           ? (p->b == RULES_BLACK ? p->c : p->b)
                                           : p->a),
                      p->x, p->y, colored);
    } else if (s->npos == 1 && touch < 1) {
        CUBED__NO("not-touching", "the second piece must touch the first one; (%d,%d) does not",
                  p->x, p->y);
    } else if (s->npos >= 2 && touch < 2) {
        CUBED__NO("touch-two",
                  "from the third piece on, a piece must touch at least 2 pieces; at (%d,%d) it "
                  "touches %d",
                  p->x, p->y, touch);
    }
    for (int e = 0; e < 6; e++) {
        const rules_piece *o;
        int mine, theirs, o_cls;
        if (nb[e] < 0)
            continue;
        o = &s->pos[nb[e]];
        o_cls = s->kinds[s->pos_kind[nb[e]]].cls;
        mine = cubed__edge_color(p, e);
        theirs = cubed__edge_color(o, (e + 3) % 6);
        if (theirs == RULES_BLACK)
            CUBED__NO("block-black-edge",
                      "cell (%d,%d) touches the black side of the blocking piece at (%d,%d)", p->x,
                      p->y, o->x, o->y);
        if ((cls == CUBED_BLOCKING || o_cls == CUBED_BLOCKING) &&
            (mine == RULES_WHITE || theirs == RULES_WHITE))
            CUBED__NO("white-blocking",
                      "the %s side of the piece at (%d,%d) (edge %s) meets the %s side of the "
                      "piece at (%d,%d): a white diamond never touches a blocking piece",
                      rules_color_name(mine), p->x, p->y, cubed__edge_names[e],
                      rules_color_name(theirs), o->x, o->y);
        if (mine != theirs && mine != RULES_WHITE && theirs != RULES_WHITE)
            CUBED__NO("colour-mismatch",
                      "the %s side of the piece at (%d,%d) (edge %s) meets the %s side of the "
                      "piece at (%d,%d): touching sides must match",
                      rules_color_name(mine), p->x, p->y, cubed__edge_names[e],
                      rules_color_name(theirs), o->x, o->y);
    }
#undef CUBED__NO
    return NULL;
}

/* Bits of the occupied neighbours of (q,r), edge e at bit e. */
static unsigned cubed__around(const cubed_state *s, int q, int r)
{
    unsigned m = 0;
    for (int e = 0; e < 6; e++)
        if (cubed__at(s, q + cubed__dq[e], r + cubed__dr[e]) >= 0)
            m |= 1u << e;
    return m;
}

/* The occupied neighbours form 2 or more separate arcs (option bridge). */
static bool cubed__bridges(unsigned around)
{
    int arcs = 0;
    for (int e = 0; e < 6; e++)
        arcs += (around >> e & 1) && !(around >> ((e + 5) % 6) & 1);
    return arcs >= 2;
}

typedef int (*cubed_cell_fn)(const cubed_state *s, int q, int r, void *ctx);

/* Calls fn once for every empty, live cell next to the table that touches
 * enough pieces (1 while one piece is down, else 2); stops when fn returns
 * non-zero and returns that value. */
static int cubed__each_cell(const cubed_state *s, cubed_cell_fn fn, void *ctx)
{
    int need = s->npos == 1 ? 1 : 2;
    for (int i = 0; i < s->npos; i++)
        for (int e = 0; e < 6; e++) {
            int q = s->pos[i].x + cubed__dq[e], r = s->pos[i].y + cubed__dr[e];
            const cubed_cell *c = cubed__cell(s, q, r);
            int touch = 0, first = i, rc;
            if (c && (c->piece >= 0 || c->dead_by >= 0))
                continue;
            /* Visit a cell from its lowest-numbered neighbour only. */
            for (int f = 0; f < 6; f++) {
                int j = cubed__at(s, q + cubed__dq[f], r + cubed__dr[f]);
                if (j >= 0) {
                    touch++;
                    if (j < first)
                        first = j;
                }
            }
            if (first != i || touch < need)
                continue;
            if ((rc = fn(s, q, r, ctx)) != 0)
                return rc;
        }
    return 0;
}

/* The distinct rotations of kind k: faces into rot[][3], returns 1..3. */
static int cubed__rotations(const cubed_state *s, int k, uint8_t rot[3][3])
{
    const uint8_t *f = s->kinds[k].f;
    int n = 0;
    for (int r = 0; r < 3; r++) {
        uint8_t t[3] = {f[r], f[(r + 1) % 3], f[(r + 2) % 3]};
        bool dup = false;
        for (int j = 0; j < n && !dup; j++)
            dup = memcmp(rot[j], t, 3) == 0;
        if (!dup)
            memcpy(rot[n++], t, 3);
    }
    return n;
}

typedef struct cubed_gen {
    const bool *kinds; /* which kinds to try */
    rules_move_fn fn;
    void *ctx;
    int count;
    bool stop_at_first;
} cubed_gen;

static int cubed__try_cell(const cubed_state *s, int q, int r, int parity, cubed_gen *g)
{
    for (int k = 0; k < s->nkinds; k++) {
        uint8_t rot[3][3];
        int n;
        if (!g->kinds[k])
            continue;
        n = cubed__rotations(s, k, rot);
        for (int i = 0; i < n; i++) {
            rules_piece p;
            memset(&p, 0, sizeof p);
            p.x = (int16_t)q;
            p.y = (int16_t)r;
            p.parity = (uint8_t)parity;
            p.a = rot[i][0];
            p.b = rot[i][1];
            p.c = rot[i][2];
            p.owner = -1;
            if (cubed__fit(s, &p, s->kinds[k].cls, NULL))
                continue;
            g->count++;
            if (g->stop_at_first)
                return 1;
            if (g->fn) {
                rules_move m;
                rules_move_init(&m, RULES_MOVE_PLACE);
                m.npieces = 1;
                m.pieces[0] = p;
                if (g->fn(g->ctx, &m) != 0)
                    return 1;
            }
        }
    }
    return 0;
}

static int cubed__gen_cell(const cubed_state *s, int q, int r, void *ctx)
{
    return cubed__try_cell(s, q, r, s->parity, ctx);
}

/* Every placement of the given kinds; on an empty table, at (0,0) in both
 * parities (positions are equal up to translation). */
static int cubed__placements(const cubed_state *s, cubed_gen *g)
{
    if (s->npos == 0) {
        for (int par = 0; par < 2; par++)
            if (cubed__try_cell(s, 0, 0, par, g))
                break;
        return g->count;
    }
    cubed__each_cell(s, cubed__gen_cell, g);
    return g->count;
}

/* A cell where some piece not yet seen still fits. */
static bool cubed__playable(const cubed_state *s)
{
    bool kinds[CUBED_MAX_PIECES];
    cubed_gen g = {kinds, NULL, NULL, 0, true};
    for (int k = 0; k < s->nkinds; k++)
        kinds[k] = s->left[k] > 0;
    return cubed__placements(s, &g) > 0;
}

/* ---- checking a move ---- */

static void cubed__players_text(unsigned set, int nplayers, char *buf, size_t cap)
{
    size_t len = 0;
    int n = 0;
    buf[0] = '\0';
    for (int i = 0; i < nplayers; i++)
        if (set >> i & 1) {
            len += (size_t)snprintf(buf + len, cap - len, "%s%d", n++ ? ", " : "", i + 1);
            if (len >= cap)
                return;
        }
}

/* A known hand: its size must be the referee's count and its pieces must
 * be pieces still unseen. */
static bool cubed__check_hand(const cubed_state *s, int player, const rules_move *m,
                              rules_verdict *v)
{
    uint8_t used[CUBED_MAX_PIECES] = {0};
    if (m->nhand < 0)
        return true;
    if (m->nhand != s->hand[player]) {
        rules__illegal(v, "hand-count",
                       "player %d holds %d pieces by the referee's count, but the hand shown "
                       "has %d",
                       player + 1, s->hand[player], m->nhand);
        return false;
    }
    for (int i = 0; i < m->nhand; i++) {
        const rules_piece *h = &m->hand[i];
        int k = cubed__kind(s, h->a, h->b, h->c);
        char name[64];
        cubed__piece_name(h->a, h->b, h->c, name, sizeof name);
        if (k < 0) {
            rules__illegal(v, "hand-invalid", "hand piece %d (%s) is not a piece of this game",
                           i + 1, name);
            return false;
        }
        if (++used[k] > s->left[k]) {
            rules__illegal(v, "hand-invalid",
                           "hand piece %d (%s) cannot be in the hand: every such piece is on "
                           "the table or already in the hand",
                           i + 1, name);
            return false;
        }
    }
    return true;
}

/* The kind of a piece to be played; illegal when no such piece is left. */
static int cubed__check_piece(const cubed_state *s, int a, int b, int c, const char *rule_prefix,
                              int item, rules_verdict *v)
{
    char name[80], rule[40];
    int k = cubed__kind(s, a, b, c), n = 0;
    if (k >= 0 && s->left[k] > 0)
        return k;
    if (item > 0) /* a revealed piece: say which */
        n = snprintf(name, sizeof name, "revealed piece %d, ", item);
    cubed__piece_name(a, b, c, name + n, sizeof name - (size_t)n);
    if (k < 0) {
        if (cubed__kind(s, a, c, b) >= 0) {
            snprintf(rule, sizeof rule, "%sflipped", rule_prefix);
            rules__illegal(v, rule,
                           "%s is the mirror image of a piece of this game: a piece may be turned "
                           "but never flipped",
                           name);
        } else {
            snprintf(rule, sizeof rule, "%sunknown", rule_prefix);
            rules__illegal(v, rule, "%s is not a piece of this game", name);
        }
        return -1;
    }
    snprintf(rule, sizeof rule, "%staken", rule_prefix);
    rules__illegal(v, rule, "%s is already %s", name,
                   s->phase == CUBED_REVEAL ? "on the table or revealed" : "on the table");
    return -1;
}

static bool cubed__in_hand(const rules_move *m, int k, const cubed_state *s)
{
    for (int i = 0; i < m->nhand; i++)
        if (cubed__kind(s, m->hand[i].a, m->hand[i].b, m->hand[i].c) == k)
            return true;
    return false;
}

static int cubed__max_draws(const cubed_state *s) { return s->solo ? 2 : 1; }

static void cubed__check_place(const cubed_state *s, int player, const rules_move *m,
                               rules_verdict *v)
{
    const rules_piece *p = &m->pieces[0];
    bool from_bag = s->solo && s->npos == 0 && s->round == 1;
    int k;
    char name[64];

    if (m->npieces != 1) {
        rules__illegal(v, "place-one",
                       "a place move lays exactly one piece, this one has %d (a second piece "
                       "after a bridge is its own event)",
                       m->npieces);
        return;
    }
    if ((k = cubed__check_piece(s, p->a, p->b, p->c, "piece-", 0, v)) < 0)
        return;
    if (!from_bag && m->nhand >= 0 && !cubed__in_hand(m, k, s)) {
        cubed__piece_name(p->a, p->b, p->c, name, sizeof name);
        rules__illegal(v, "piece-not-in-hand", "the hand player %d shows holds no %s piece",
                       player + 1, name);
        return;
    }
    if (cubed__fit(s, p, s->kinds[k].cls, v))
        return;
    if (m->give >= 0) {
        unsigned around = cubed__around(s, p->x, p->y);
        if (!s->fill_void)
            rules__illegal(v, "void-off", "giving a piece away needs option \"void\"");
        else if (around != 0x3f)
            rules__illegal(v, "void-not-filled",
                           "a piece may be given away only after filling a cell surrounded on "
                           "all 6 sides; (%d,%d) is not",
                           p->x, p->y);
        else if (m->give == player || m->give >= s->nplayers)
            rules__illegal(v, "give-seat",
                           "the gift must go to another player of this game, not to seat %d",
                           m->give);
        else if (s->hand[player] - 1 < 1)
            rules__illegal(v, "give-empty",
                           "player %d has no piece left to give after this one", player + 1);
    }
}

static void cubed__check_reveal(const cubed_state *s, int player, const rules_move *m,
                                rules_verdict *v)
{
    uint8_t used[CUBED_MAX_PIECES] = {0};
    int left, expect;
    if (!(s->must_reveal >> player & 1)) {
        if (player == s->emptier)
            rules__illegal(v, "reveal-not-needed",
                           "player %d emptied their hand: there is nothing to reveal",
                           player + 1);
        else
            rules__illegal(v, "reveal-not-needed", "player %d has already revealed their hand",
                           player + 1);
        return;
    }
    left = s->hand[player] - s->revealed[player];
    expect = left < RULES_MAX_MOVE_PIECES ? left : RULES_MAX_MOVE_PIECES;
    if (m->npieces != expect) {
        if (left > RULES_MAX_MOVE_PIECES)
            rules__illegal(v, "reveal-count",
                           "player %d has %d pieces left to show: a reveal shows %d of them at "
                           "a time, this one shows %d",
                           player + 1, left, RULES_MAX_MOVE_PIECES, m->npieces);
        else
            rules__illegal(v, "reveal-count",
                           "player %d holds %d pieces%s, but reveals %d", player + 1, left,
                           s->revealed[player] ? " still unshown" : "", m->npieces);
        return;
    }
    for (int i = 0; i < m->npieces; i++) {
        const rules_piece *p = &m->pieces[i];
        int k = cubed__check_piece(s, p->a, p->b, p->c, "reveal-", i + 1, v);
        if (k < 0)
            return;
        if (++used[k] > s->left[k]) {
            char name[64];
            cubed__piece_name(p->a, p->b, p->c, name, sizeof name);
            rules__illegal(v, "reveal-taken",
                           "revealed piece %d: the %s piece is shown more often than there are "
                           "such pieces left",
                           i + 1, name);
            return;
        }
    }
}

static void cubed__check(const void *state, int player, const rules_move *m, rules_verdict *v)
{
    const cubed_state *s = state;
    char who[64];

    v->round = s->round;
    if (s->phase == CUBED_REVEAL) {
        if (m->type != RULES_MOVE_REVEAL) {
            cubed__players_text(s->must_reveal, s->nplayers, who, sizeof who);
            rules__illegal(v, "reveal-pending",
                           "round %d is over: player%s %s must reveal their hand%s first",
                           s->round, __builtin_popcount(s->must_reveal) > 1 ? "s" : "", who,
                           __builtin_popcount(s->must_reveal) > 1 ? "s" : "");
            return;
        }
        cubed__check_reveal(s, player, m, v);
        return;
    }
    if (m->type == RULES_MOVE_REVEAL) {
        rules__illegal(v, "reveal-not-now", "hands are revealed only when a round ends");
        return;
    }
    if (!cubed__check_hand(s, player, m, v))
        return;
    switch (m->type) {
    case RULES_MOVE_PLACE:
        cubed__check_place(s, player, m, v);
        return;
    case RULES_MOVE_DRAW:
        if (m->count > 0) {
            if (!s->draw3)
                rules__illegal(v, "draw3-off",
                               "drawing %d pieces at once needs option \"draw3\"", m->count);
            else if (s->draws > 0 || s->bonus || s->placed)
                rules__illegal(v, "draw3-late",
                               "\"draw 3, keep 1\" replaces the whole turn: it must be the "
                               "turn's first action");
            else if (s->bag < m->count)
                rules__illegal(v, "bag-short", "the bag holds only %d piece%s, not %d", s->bag,
                               s->bag == 1 ? "" : "s", m->count);
            return;
        }
        if (s->bonus)
            rules__illegal(v, "draw-bonus",
                           "after a bridging piece the turn ends with a second piece or a pass, "
                           "not a draw");
        else if (s->draws >= cubed__max_draws(s))
            rules__illegal(v, "draw-twice", "player %d has already drawn %s this turn",
                           player + 1, s->solo ? "twice" : "once");
        else if (s->bag == 0)
            rules__illegal(v, "bag-empty", "the bag is empty: there is nothing to draw");
        return;
    case RULES_MOVE_PASS:
        if (!s->bonus && s->bag > 0 && s->draws < cubed__max_draws(s))
            rules__illegal(v, "pass-without-draw",
                           s->solo ? "a solo player who cannot play draws twice before giving "
                                     "up (the bag still holds %d)"
                                   : "a player who does not play must draw first (the bag "
                                     "still holds %d)",
                           s->bag);
        return;
    default:
        rules__illegal(v, "bad-move", "cubed has no %s move", rules__move_type_name(m->type));
        return;
    }
}

/* ---- applying a move ---- */

static void cubed__game_over(cubed_state *s)
{
    int best = -1;
    s->phase = CUBED_OVER;
    s->over = true;
    s->winners = 0;
    for (int i = 0; i < s->nplayers; i++)
        if (best < 0 || s->scores[i] < best)
            best = s->scores[i];
    for (int i = 0; i < s->nplayers; i++)
        if (s->scores[i] == best)
            s->winners |= 1u << i;
}

/* Play stops; everyone with pieces left reveals them. */
static void cubed__end_play(cubed_state *s, const char *why, rules_verdict *v)
{
    char who[64];
    s->phase = CUBED_REVEAL;
    s->bonus = false;
    if (s->solo) {
        /* Solo: emptying the hand wins, being stuck loses; the score is the
         * pieces left. */
        s->scores[0] += s->hand[0];
        s->phase = CUBED_OVER;
        s->over = true;
        s->winners = s->hand[0] == 0 ? 1u : 0u;
        snprintf(v->note, sizeof v->note, "the solo game ends: %s; %s", why,
                 s->winners ? "the player wins" : "the player loses");
        return;
    }
    s->must_reveal = 0;
    for (int i = 0; i < s->nplayers; i++)
        if (s->hand[i] > 0)
            s->must_reveal |= 1u << i;
    for (int i = 0; i < s->nplayers; i++)
        if (s->must_reveal >> i & 1) {
            s->to_move = i;
            break;
        }
    cubed__players_text(s->must_reveal, s->nplayers, who, sizeof who);
    snprintf(v->note, sizeof v->note, "round %d ends: %s; player%s %s reveal%s", s->round, why,
             __builtin_popcount(s->must_reveal) > 1 ? "s" : "", who,
             __builtin_popcount(s->must_reveal) > 1 ? "" : "s");
}

/* The last hand is shown: the round is scored, and the next one starts
 * with the round winner, or the game is over. */
static void cubed__finish_round(cubed_state *s, rules_verdict *v)
{
    unsigned w = 0;
    int best = -1, starter = 0;
    char who[64];
    if (s->emptier >= 0) {
        w = 1u << s->emptier;
    } else {
        for (int i = 0; i < s->nplayers; i++)
            if (best < 0 || s->round_scores[i] < best)
                best = s->round_scores[i];
        for (int i = 0; i < s->nplayers; i++)
            if (s->round_scores[i] == best)
                w |= 1u << i;
    }
    while (!(w >> starter & 1))
        starter++;
    v->over = true;
    v->winners = w;
    cubed__players_text(w, s->nplayers, who, sizeof who);
    if (s->round >= s->rounds) {
        cubed__game_over(s);
        snprintf(v->note, sizeof v->note, "round %d won by player%s %s; the game is over",
                 s->round, __builtin_popcount(w) > 1 ? "s" : "", who);
        return;
    }
    snprintf(v->note, sizeof v->note, "round %d won by player%s %s; player %d starts round %d",
             s->round, __builtin_popcount(w) > 1 ? "s" : "", who, starter + 1, s->round + 1);
    s->round++;
    cubed__start_round(s, starter);
}

static void cubed__end_turn(cubed_state *s, int player, rules_verdict *v)
{
    if (!s->placed)
        s->idle++;
    s->to_move = (player + 1) % s->nplayers;
    s->draws = 0;
    s->placed = s->bonus = s->bonus_used = false;
    if (!s->solo && s->idle >= s->nplayers) {
        char why[96];
        snprintf(why, sizeof why, "%d turns in a row without a piece played", s->idle);
        cubed__end_play(s, why, v);
    }
}

static void cubed__apply_place(cubed_state *s, int player, const rules_move *m, rules_verdict *v)
{
    const rules_piece *p = &m->pieces[0];
    int k = cubed__kind(s, p->a, p->b, p->c), idx = s->npos;
    unsigned around = cubed__around(s, p->x, p->y);
    cubed_cell *c;

    if (s->solo && s->npos == 0 && s->round == 1)
        s->bag--; /* the solo start piece comes from the bag */
    else
        s->hand[player]--;
    s->pos[idx] = *p;
    s->pos[idx].owner = -1;
    s->pos_kind[idx] = (int16_t)k;
    s->npos++;
    s->left[k]--;
    if (idx == 0)
        s->parity = p->parity;
    c = cubed__cell_add(s, p->x, p->y);
    c->piece = (int16_t)idx;
    if (s->kinds[k].cls == CUBED_BLOCKING)
        for (int e = 0; e < 6; e++)
            if (cubed__edge_color(p, e) == RULES_BLACK) {
                cubed_cell *d = cubed__cell_add(s, p->x + cubed__dq[e], p->y + cubed__dr[e]);
                if (d->dead_by < 0)
                    d->dead_by = (int16_t)idx;
            }
    s->placed = true;
    s->idle = 0;
    if (m->give >= 0) {
        s->hand[player]--;
        s->hand[m->give]++;
    }
    if (s->hand[player] == 0) {
        char why[64];
        snprintf(why, sizeof why, "player %d emptied their hand", player + 1);
        s->emptier = player;
        cubed__end_play(s, why, v);
        return;
    }
    if (!cubed__playable(s)) {
        cubed__end_play(s, "no playable cell is left", v);
        return;
    }
    if (m->give >= 0)
        snprintf(v->note, sizeof v->note, "player %d fills a void and gives a piece to player %d",
                 player + 1, m->give + 1);
    if (s->bridge && !s->bonus_used && cubed__bridges(around)) {
        s->bonus = s->bonus_used = true;
        snprintf(v->note, sizeof v->note,
                 "the piece bridges a gap: player %d may play a second piece (or pass)",
                 player + 1);
        return;
    }
    s->bonus = false;
    cubed__end_turn(s, player, v);
}

static void cubed__apply(void *state, int player, const rules_move *m, rules_verdict *v)
{
    cubed_state *s = state;
    s->moves++;
    switch (m->type) {
    case RULES_MOVE_PLACE:
        cubed__apply_place(s, player, m, v);
        return;
    case RULES_MOVE_DRAW:
        s->hand[player]++;
        s->bag--;
        if (m->count > 0) {
            snprintf(v->note, sizeof v->note,
                     "player %d draws %d, keeps 1 and puts the others back", player + 1,
                     m->count);
            cubed__end_turn(s, player, v);
        } else {
            s->draws++;
        }
        return;
    case RULES_MOVE_PASS:
        if (s->solo && !s->bonus) {
            cubed__end_play(s, "the player is stuck", v);
            return;
        }
        cubed__end_turn(s, player, v);
        return;
    case RULES_MOVE_REVEAL: {
        int pts = 0;
        for (int i = 0; i < m->npieces; i++) {
            int k = cubed__kind(s, m->pieces[i].a, m->pieces[i].b, m->pieces[i].c);
            pts += cubed__class_points[s->kinds[k].cls];
            s->left[k]--;
        }
        v->points = pts;
        s->scores[player] += pts;
        s->round_scores[player] += pts;
        s->revealed[player] += m->npieces;
        if (s->revealed[player] >= s->hand[player])
            s->must_reveal &= ~(1u << player);
        if (s->must_reveal == 0) {
            cubed__finish_round(s, v);
            return;
        }
        for (int i = 0; i < s->nplayers; i++)
            if (s->must_reveal >> i & 1) {
                s->to_move = i;
                break;
            }
        return;
    }
    default:
        return;
    }
}

static int cubed__position(const void *state, rules_piece *out, int cap)
{
    const cubed_state *s = state;
    for (int i = 0; i < s->npos && i < cap; i++)
        out[i] = s->pos[i];
    return s->npos;
}

static int cubed__generate(const void *state, int player, const rules_piece *hand, int nhand,
                           rules_move_fn fn, void *ctx)
{
    const cubed_state *s = state;
    bool kinds[CUBED_MAX_PIECES] = {false};
    cubed_gen g = {kinds, fn, ctx, 0, false};
    bool from_bag = s->solo && s->npos == 0 && s->round == 1;

    if (s->phase != CUBED_PLAY || player != s->to_move)
        return 0;
    for (int k = 0; k < s->nkinds; k++)
        kinds[k] = s->left[k] > 0 && (nhand < 0 || from_bag);
    for (int i = 0; !from_bag && i < nhand; i++) {
        int k = cubed__kind(s, hand[i].a, hand[i].b, hand[i].c);
        if (k >= 0 && s->left[k] > 0)
            kinds[k] = true;
    }
    return cubed__placements(s, &g);
}

const rules__engine rules__cubed_engine = {
    .id = "cubed",
    .min_players = 1,
    .max_players = 6,
    .create = cubed__create,
    .destroy = free, /* one block, nothing inside it owned */
    .clone = cubed__clone,
    .status = cubed__status,
    .check = cubed__check,
    .apply = cubed__apply,
    .position = cubed__position,
    .generate = cubed__generate,
    .piece_from_json = rules__cubed_piece_from_json,
    .piece_to_json = rules__cubed_piece_to_json,
    .move_from_json = rules__cubed_move_from_json,
    .move_to_json = rules__cubed_move_to_json,
    .hand_from_json = rules__cubed_hand_from_json,
    .hand_to_json = rules__cubed_hand_to_json,
    .verdict_extras = rules__cubed_verdict_extras,
};
