/* rules/cards.c: the cards engine -- Cubes (Starcap Games) played with one
 * 52-card deck, as GAMES.md "cards" and docs/rules-cards.md read it.
 *
 * The state is a plain value (no pointers inside), so a clone is a copy.
 * The referee never sees the deck: it counts it.  Every card seen on the
 * table (the start card, each placement) is remembered with where it went
 * (table or a score pile), because a 52-card deck holds each card once: a
 * second 7H is a misread or a foreign card, and is refused as such. */
#include "engine.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CARDS__DECK 52
#define CARDS__DEAL 5
#define CARDS__MAX_PLAYERS 4
#define CARDS__UNSEEN (-2) /* where[]: never on the table */
#define CARDS__TABLE (-1)  /* where[]: on the table; >= 0: that player's pile */
/* Complete squares that can hold one cell: four 2x2 and nine 3x3. */
#define CARDS__MAX_SQUARES 13
/* Free cells next to at most 52 cards. */
#define CARDS__MAX_CANDS (4 * CARDS__DECK)

enum { CARDS__CAPTURE_UNION, CARDS__CAPTURE_CHOOSE };
enum { CARDS__END_LAST_DRAW, CARDS__END_HANDS_OUT };

typedef struct cards__slot {
    int16_t x, y;
    uint8_t card; /* suit * 13 + rank - 1 */
} cards__slot;

typedef struct cards__state {
    int nplayers;
    int capture, end; /* options */
    bool has_seed;
    double seed;      /* accepted for the recording tools, see create() */
    int deck;         /* cards left to draw */
    int hand[CARDS__MAX_PLAYERS];   /* counted, before the mover's draw */
    int scores[CARDS__MAX_PLAYERS];
    int to_move, moves;
    int dry_passes;   /* passes in a row made without a draw */
    bool over;
    unsigned winners;
    int nboard;
    cards__slot board[CARDS__DECK];
    int8_t where[CARDS__DECK];
    int16_t last_x, last_y; /* the last card placed: where the empty board restarts */
} cards__state;

typedef struct cards__square {
    int x, y, size; /* top-left cell */
} cards__square;

/* A free cell next to the board, with the cards it touches. */
typedef struct cards__cand {
    int x, y;
    int nn;
    uint8_t nb[4];
} cards__cand;

/* ---- cards and cells ---- */

static int cards__rank(int card) { return card % 13 + 1; }
static int cards__suit(int card) { return card / 13; }

static bool cards__valid(const rules_piece *p)
{
    return !p->c && p->a >= 1 && p->a <= 13 && p->b <= 3;
}

static int cards__index(const rules_piece *p) { return p->b * 13 + p->a - 1; }

static const char *cards__name(int card, char buf[4])
{
    return rules_card_name(cards__rank(card), cards__suit(card), buf);
}

static int cards__at(const cards__state *s, int x, int y)
{
    for (int i = 0; i < s->nboard; i++)
        if (s->board[i].x == x && s->board[i].y == y)
            return s->board[i].card;
    return -1;
}

static bool cards__in_range(int x, int y)
{
    return x >= INT16_MIN && x <= INT16_MAX && y >= INT16_MIN && y <= INT16_MAX;
}

/* Two orthogonal neighbours agree: same rank, same suit, or ranks one apart
 * (A=1 .. K=13, so K and A are 12 apart: no wrap). */
static bool cards__match(int a, int b)
{
    int ra = cards__rank(a), rb = cards__rank(b);
    return ra == rb || cards__suit(a) == cards__suit(b) || abs(ra - rb) == 1;
}

static bool cards__side_by_side(const rules_piece *a, const rules_piece *b)
{
    return !cards__valid(a) || !cards__valid(b) || cards__match(cards__index(a), cards__index(b));
}

static const int cards__dx[4] = {1, -1, 0, 0}, cards__dy[4] = {0, 0, 1, -1};

/* The complete squares containing (x,y) once a card lies there (the cell is
 * counted as filled whether or not it is yet). */
static int cards__squares(const cards__state *s, int x, int y, cards__square *out)
{
    int n = 0;
    for (int size = 2; size <= 3; size++)
        for (int oy = 0; oy < size; oy++)
            for (int ox = 0; ox < size; ox++) {
                int x0 = x - ox, y0 = y - oy;
                bool full = true;
                for (int j = 0; full && j < size; j++)
                    for (int i = 0; full && i < size; i++)
                        if ((x0 + i != x || y0 + j != y) && cards__at(s, x0 + i, y0 + j) < 0)
                            full = false;
                if (full)
                    out[n++] = (cards__square){x0, y0, size};
            }
    return n;
}

static bool cards__square_holds(const cards__square *q, int x, int y)
{
    return x >= q->x && x < q->x + q->size && y >= q->y && y < q->y + q->size;
}

/* The free cells a card may go to, with their neighbours.  On an empty
 * board a card may go anywhere; positions are equal under translation
 * (FORMATS.md 1), so one cell stands for all: where the last card was. */
static int cards__candidates(const cards__state *s, cards__cand *out)
{
    int n = 0;
    if (s->nboard == 0) {
        out[0] = (cards__cand){.x = s->last_x, .y = s->last_y};
        return 1;
    }
    for (int i = 0; i < s->nboard; i++)
        for (int d = 0; d < 4; d++) {
            int x = s->board[i].x + cards__dx[d], y = s->board[i].y + cards__dy[d];
            bool dup = false;
            if (!cards__in_range(x, y) || cards__at(s, x, y) >= 0)
                continue;
            for (int k = 0; k < n && !dup; k++)
                dup = out[k].x == x && out[k].y == y;
            if (dup)
                continue;
            out[n] = (cards__cand){.x = x, .y = y};
            for (int e = 0; e < 4; e++) {
                int c = cards__at(s, x + cards__dx[e], y + cards__dy[e]);
                if (c >= 0)
                    out[n].nb[out[n].nn++] = (uint8_t)c;
            }
            n++;
        }
    return n;
}

static bool cards__fits_cand(const cards__state *s, int card, const cards__cand *c)
{
    if (s->nboard == 0)
        return true;
    for (int i = 0; i < c->nn; i++)
        if (!cards__match(card, c->nb[i]))
            return false;
    return c->nn > 0;
}

/* The cards a player may be holding: the shown hand without repeats, or,
 * when the hand is not shown, every card not yet seen on the table. */
static int cards__pool(const cards__state *s, const rules_piece *hand, int nhand, uint8_t *out)
{
    bool want[CARDS__DECK] = {false};
    int n = 0;
    if (nhand < 0) {
        for (int c = 0; c < CARDS__DECK; c++)
            want[c] = true;
    } else {
        for (int i = 0; i < nhand; i++)
            if (cards__valid(&hand[i]))
                want[cards__index(&hand[i])] = true;
    }
    for (int c = 0; c < CARDS__DECK; c++)
        if (want[c] && s->where[c] == CARDS__UNSEEN)
            out[n++] = (uint8_t)c;
    return n;
}

/* Finds one placement among the pool (for a pass's verdict and note);
 * counts the pool cards that fit somewhere in *nfit when not NULL. */
static bool cards__some_fit(const cards__state *s, const uint8_t *pool, int npool, int *card,
                            int *x, int *y, int *nfit)
{
    cards__cand cand[CARDS__MAX_CANDS];
    int nc = cards__candidates(s, cand);
    bool found = false;
    if (nfit)
        *nfit = 0;
    for (int i = 0; i < npool; i++)
        for (int k = 0; k < nc; k++)
            if (cards__fits_cand(s, pool[i], &cand[k])) {
                if (!found) {
                    *card = pool[i];
                    *x = cand[k].x;
                    *y = cand[k].y;
                    found = true;
                }
                if (!nfit)
                    return true;
                ++*nfit;
                break;
            }
    return found;
}

static void cards__note(rules_verdict *v, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Appends a sentence to the verdict's note. */
static void cards__note(rules_verdict *v, const char *fmt, ...)
{
    size_t len = strlen(v->note);
    va_list ap;
    if (len > 0 && len + 2 < sizeof v->note) {
        strcpy(v->note + len, "; ");
        len += 2;
    }
    va_start(ap, fmt);
    vsnprintf(v->note + len, sizeof v->note - len, fmt, ap);
    va_end(ap);
}

/* ---- state ---- */

static int cards__options(const cJSON *opts, cards__state *s, base_err *err)
{
    const cJSON *it;
    if (!opts || cJSON_IsNull(opts))
        return 0;
    if (!cJSON_IsObject(opts))
        return base_err_set(err, BASE_EPARSE, "\"options\" must be an object");
    cJSON_ArrayForEach(it, opts) {
        const char *v = cJSON_IsString(it) ? it->valuestring : NULL;
        if (strcmp(it->string, "capture") == 0) {
            if (v && strcmp(v, "union") == 0)
                s->capture = CARDS__CAPTURE_UNION;
            else if (v && strcmp(v, "choose") == 0)
                s->capture = CARDS__CAPTURE_CHOOSE;
            else
                return base_err_set(err, BASE_EPARSE,
                                    "option \"capture\" must be \"union\" or \"choose\"");
        } else if (strcmp(it->string, "end") == 0) {
            if (v && strcmp(v, "last-draw") == 0)
                s->end = CARDS__END_LAST_DRAW;
            else if (v && strcmp(v, "hands-out") == 0)
                s->end = CARDS__END_HANDS_OUT;
            else
                return base_err_set(err, BASE_EPARSE,
                                    "option \"end\" must be \"last-draw\" or \"hands-out\"");
        } else {
            return base_err_set(err, BASE_EPARSE,
                                "unknown option \"%s\" (cards has: capture, end)", it->string);
        }
    }
    return 0;
}

static int cards__create(const cJSON *header, int nplayers, base_err *err, void **state)
{
    const cJSON *start, *seed;
    rules_piece p;
    cards__state *s;
    int rc;

    *state = NULL;
    if (!header)
        return base_err_set(err, BASE_EINVAL,
                            "a cards game needs a header with \"start\", the face-up starting "
                            "card, e.g. {\"x\":0,\"y\":0,\"card\":\"KD\"}");
    start = cJSON_GetObjectItemCaseSensitive(header, "start");
    if (!start)
        return base_err_set(err, BASE_EPARSE,
                            "the header needs \"start\": the face-up starting card, e.g. "
                            "{\"x\":0,\"y\":0,\"card\":\"KD\"}");
    if (!cJSON_IsObject(start))
        return base_err_set(err, BASE_EPARSE,
                            "\"start\" must be an object such as {\"x\":0,\"y\":0,\"card\":\"KD\"}");
    memset(&p, 0, sizeof p);
    if ((rc = rules__cards_piece_from_json(start, &p, err)) != 0) {
        base_err_prefix(err, "\"start\": ");
        return rc;
    }
    if (!cards__valid(&p))
        return base_err_set(err, BASE_EPARSE, "\"start\": the starting card must lie face up");
    seed = cJSON_GetObjectItemCaseSensitive(header, "seed");
    /* 2^53: beyond it a JSON number no longer holds every whole number. */
    if (seed && (!cJSON_IsNumber(seed) || seed->valuedouble < 0 ||
                 seed->valuedouble > 9007199254740992.0 ||
                 seed->valuedouble != (double)(long long)seed->valuedouble))
        return base_err_set(err, BASE_EPARSE, "\"seed\" must be a whole number from 0 to 2^53");
    if (!(s = calloc(1, sizeof *s)))
        return base_err_set(err, BASE_ENOMEM, "out of memory");
    if ((rc = cards__options(cJSON_GetObjectItemCaseSensitive(header, "options"), s, err)) != 0) {
        free(s);
        return rc;
    }
    /* The referee does not deal (the deck is shuffled at the table); the
     * seed is kept so that a record made by a tool stays reproducible. */
    s->has_seed = seed != NULL;
    s->seed = seed ? seed->valuedouble : 0;
    s->nplayers = nplayers;
    s->deck = CARDS__DECK - 1 - CARDS__DEAL * nplayers;
    for (int i = 0; i < nplayers; i++)
        s->hand[i] = CARDS__DEAL;
    for (int c = 0; c < CARDS__DECK; c++)
        s->where[c] = CARDS__UNSEEN;
    s->board[0] = (cards__slot){p.x, p.y, (uint8_t)cards__index(&p)};
    s->nboard = 1;
    s->where[cards__index(&p)] = CARDS__TABLE;
    s->last_x = p.x;
    s->last_y = p.y;
    *state = s;
    return 0;
}

static int cards__clone(const void *state, void **out)
{
    return rules__clone_block(state, sizeof(cards__state), out);
}

static void cards__status(const void *state, rules_status *out)
{
    const cards__state *s = state;
    out->nplayers = s->nplayers;
    out->to_move = s->to_move;
    for (int i = 0; i < s->nplayers; i++) {
        out->scores[i] = s->scores[i];
        out->hand[i] = s->hand[i];
    }
    out->bag = s->deck;
    out->moves = s->moves;
    out->round = 1;
    out->over = s->over;
    out->winners = s->winners;
}

/* ---- check ---- */

static const char *cards__where_text(const cards__state *s, int card, char *buf, size_t cap)
{
    buf[0] = '\0';
    if (s->where[card] == CARDS__TABLE) {
        for (int i = 0; i < s->nboard; i++)
            if (s->board[i].card == card)
                snprintf(buf, cap, "on the table at (%d,%d)", s->board[i].x, s->board[i].y);
    } else {
        snprintf(buf, cap, "in player %d's score pile", s->where[card] + 1);
    }
    return buf;
}

/* The shown hand (the cards the mover chooses from, after this turn's
 * draw) must be a possible hand: no repeats, nothing already seen, as many
 * cards as the count says. */
static bool cards__check_hand(const cards__state *s, int player, const rules_move *m, int held,
                              rules_verdict *v)
{
    bool shown[CARDS__DECK] = {false};
    char name[4], where[64];
    for (int i = 0; i < m->nhand; i++) {
        int c;
        if (!cards__valid(&m->hand[i])) {
            rules__illegal(v, "hand-card-unknown", "hand item %d is not a readable face-up card",
                           i + 1);
            return false;
        }
        c = cards__index(&m->hand[i]);
        if (shown[c]) {
            rules__illegal(v, "hand-duplicate",
                           "the hand shows %s twice, but the deck holds each card once",
                           cards__name(c, name));
            return false;
        }
        shown[c] = true;
        if (s->where[c] != CARDS__UNSEEN) {
            rules__illegal(v, "hand-card-seen", "the hand shows %s, which is already %s",
                           cards__name(c, name), cards__where_text(s, c, where, sizeof where));
            return false;
        }
    }
    if (m->nhand != held) {
        rules__illegal(v, "hand-size",
                       "player %d holds %d card%s %s, but the hand shows %d", player + 1, held,
                       held == 1 ? "" : "s", s->deck > 0 ? "after the draw" : "(the deck is empty)",
                       m->nhand);
        return false;
    }
    return true;
}

static void cards__check_pass(const cards__state *s, int player, const rules_move *m, int held,
                              rules_verdict *v)
{
    uint8_t pool[CARDS__DECK];
    int npool, card, x, y, nfit;
    char name[4];

    if (m->nhand >= 0) {
        npool = cards__pool(s, m->hand, m->nhand, pool);
        if (cards__some_fit(s, pool, npool, &card, &x, &y, NULL)) {
            rules__illegal(v, "pass-with-placement",
                           "player %d could place %s at (%d,%d): a pass is allowed only when no "
                           "card in hand fits",
                           player + 1, cards__name(card, name), x, y);
            return;
        }
        if (m->nhand > 0)
            cards__note(v, "none of the %d cards in hand fits on the board", m->nhand);
        return;
    }
    if (held == 0) {
        cards__note(v, "player %d has no card left", player + 1);
        return;
    }
    npool = cards__pool(s, NULL, -1, pool);
    if (!cards__some_fit(s, pool, npool, &card, &x, &y, &nfit))
        cards__note(v, "no card still unseen fits anywhere on the board, so the pass was forced");
    else
        cards__note(v,
                    "the hand was not shown: %d unseen card%s would fit on the board, so whether "
                    "player %d could place is not knowable",
                    nfit, nfit == 1 ? "" : "s", player + 1);
}

static void cards__check_place(const cards__state *s, int player, const rules_move *m, int held,
                               rules_verdict *v)
{
    const rules_piece *p = &m->pieces[0];
    char name[4], other[4], where[64];
    cards__square sq[CARDS__MAX_SQUARES];
    int card, nn = 0, nsq;

    if (m->npieces != 1) {
        rules__illegal(v, "place-one-card", "a turn places exactly one card, this move has %d",
                       m->npieces);
        return;
    }
    if (p->c) {
        rules__illegal(v, "card-face-down",
                       "the card at (%d,%d) lies face down: turn it face up so it can be read",
                       p->x, p->y);
        return;
    }
    if (!cards__valid(p)) {
        rules__illegal(v, "card-unknown", "the card at (%d,%d) is not a card of the deck", p->x,
                       p->y);
        return;
    }
    card = cards__index(p);
    cards__name(card, name);
    if (s->where[card] != CARDS__UNSEEN) {
        rules__illegal(v, "card-seen",
                       "%s is already %s: a 52-card deck holds each card once", name,
                       cards__where_text(s, card, where, sizeof where));
        return;
    }
    if (m->nhand >= 0) {
        bool in = false;
        for (int i = 0; i < m->nhand && !in; i++)
            in = cards__index(&m->hand[i]) == card;
        if (!in) {
            rules__illegal(v, "card-not-in-hand", "%s is not in the hand player %d showed",
                           name, player + 1);
            return;
        }
    }
    if (held == 0) {
        rules__illegal(v, "hand-empty", "player %d has no card left to place", player + 1);
        return;
    }
    if (cards__at(s, p->x, p->y) >= 0) {
        rules__illegal(v, "cell-occupied", "(%d,%d) already holds %s", p->x, p->y,
                       cards__name(cards__at(s, p->x, p->y), other));
        return;
    }
    if (s->nboard > 0) {
        for (int d = 0; d < 4; d++) {
            int x = p->x + cards__dx[d], y = p->y + cards__dy[d];
            int c = cards__at(s, x, y);
            if (c < 0)
                continue;
            nn++;
            if (!cards__match(card, c)) {
                int ra = cards__rank(card), rb = cards__rank(c);
                bool wrap = (ra == 1 && rb == 13) || (ra == 13 && rb == 1);
                rules__illegal(v, "neighbour-mismatch",
                               "%s at (%d,%d) does not go with %s at (%d,%d): no same rank, no "
                               "same suit, ranks not one apart%s",
                               name, p->x, p->y, cards__name(c, other), x, y,
                               wrap ? " (K and A do not wrap)" : "");
                return;
            }
        }
        if (nn == 0) {
            rules__illegal(v, "no-neighbour",
                           "%s at (%d,%d) touches no card: a card must share a side with one "
                           "on the table (corners do not count)",
                           name, p->x, p->y);
            return;
        }
    }
    if (s->capture != CARDS__CAPTURE_CHOOSE)
        return;
    nsq = cards__squares(s, p->x, p->y, sq);
    if (m->square[2] == 0) {
        if (nsq > 0)
            rules__illegal(v, "capture-square-missing",
                           "%s at (%d,%d) completes %d square%s: the move must say which one "
                           "it takes (\"square\")",
                           name, p->x, p->y, nsq, nsq == 1 ? "" : "s");
        return;
    }
    for (int i = 0; i < nsq; i++)
        if (sq[i].x == m->square[0] && sq[i].y == m->square[1] && sq[i].size == m->square[2])
            return;
    rules__illegal(v, "capture-square-invalid",
                   "the %dx%d square at (%d,%d) is not completed by %s at (%d,%d)",
                   m->square[2], m->square[2], m->square[0], m->square[1], name, p->x, p->y);
}

static void cards__check(const void *state, int player, const rules_move *m, rules_verdict *v)
{
    const cards__state *s = state;
    int held = s->hand[player] + (s->deck > 0 ? 1 : 0);

    if (m->type != RULES_MOVE_PLACE && m->type != RULES_MOVE_PASS) {
        rules__illegal(v, "move-type", "a cards turn is a place or a pass, not a %s",
                       rules__move_type_name(m->type));
        return;
    }
    if (m->nhand >= 0 && !cards__check_hand(s, player, m, held, v))
        return;
    if (m->type == RULES_MOVE_PASS)
        cards__check_pass(s, player, m, held, v);
    else
        cards__check_place(s, player, m, held, v);
}

/* ---- apply ---- */

static unsigned cards__best(const cards__state *s)
{
    unsigned w = 0;
    int best = -1;
    for (int i = 0; i < s->nplayers; i++)
        if (s->scores[i] > best) {
            best = s->scores[i];
            w = 1u << i;
        } else if (s->scores[i] == best) {
            w |= 1u << i;
        }
    return w;
}

/* Takes the captured cards off the table into player's pile, in reading
 * order (row by row), and lists them in the verdict. */
static void cards__capture(cards__state *s, int player, const cards__square *sq, int nsq,
                           rules_verdict *v)
{
    bool take[CARDS__DECK] = {false};
    int keep = 0;
    for (int i = 0; i < s->nboard; i++)
        for (int k = 0; k < nsq; k++)
            if (cards__square_holds(&sq[k], s->board[i].x, s->board[i].y))
                take[i] = true;
    /* Reading order for the verdict: sort the taken slots by (y, x). */
    for (;;) {
        int pick = -1;
        for (int i = 0; i < s->nboard; i++)
            if (take[i] && (pick < 0 || s->board[i].y < s->board[pick].y ||
                            (s->board[i].y == s->board[pick].y && s->board[i].x < s->board[pick].x)))
                pick = i;
        if (pick < 0)
            break;
        take[pick] = false;
        if (v->nextra < RULES_MAX_MOVE_PIECES) {
            rules_piece *e = &v->extra[v->nextra++];
            memset(e, 0, sizeof *e);
            e->x = s->board[pick].x;
            e->y = s->board[pick].y;
            e->a = (uint8_t)cards__rank(s->board[pick].card);
            e->b = (uint8_t)cards__suit(s->board[pick].card);
            e->owner = (int8_t)player;
        }
        s->where[s->board[pick].card] = (int8_t)player;
        s->scores[player] += cards__rank(s->board[pick].card);
        v->points += cards__rank(s->board[pick].card);
        s->board[pick].card = 0xff; /* marks the slot for removal below */
    }
    for (int i = 0; i < s->nboard; i++)
        if (s->board[i].card != 0xff)
            s->board[keep++] = s->board[i];
    s->nboard = keep;
}

static void cards__apply(void *state, int player, const rules_move *m, rules_verdict *v)
{
    cards__state *s = state;
    bool drew = s->deck > 0;

    if (drew) {
        s->deck--;
        s->hand[player]++;
    }
    if (m->type == RULES_MOVE_PLACE) {
        const rules_piece *p = &m->pieces[0];
        int card = cards__index(p);
        cards__square sq[CARDS__MAX_SQUARES];
        int nsq;
        s->hand[player]--;
        s->board[s->nboard++] = (cards__slot){p->x, p->y, (uint8_t)card};
        s->where[card] = CARDS__TABLE;
        s->last_x = p->x;
        s->last_y = p->y;
        nsq = cards__squares(s, p->x, p->y, sq);
        if (s->capture == CARDS__CAPTURE_CHOOSE && nsq > 0) {
            sq[0] = (cards__square){m->square[0], m->square[1], m->square[2]};
            nsq = 1;
        }
        if (nsq > 0) {
            cards__capture(s, player, sq, nsq, v);
            if (s->nboard == 0)
                cards__note(v, "the table is empty: the next card may go anywhere");
        }
        s->dry_passes = 0;
    } else {
        s->dry_passes = drew ? 0 : s->dry_passes + 1;
    }
    s->moves++;
    s->to_move = (player + 1) % s->nplayers;

    if (s->end == CARDS__END_LAST_DRAW) {
        if (drew && s->deck == 0) {
            s->over = true;
            cards__note(v, "the last card was drawn: the game is over");
        }
    } else if (s->deck == 0) {
        bool empty = true;
        for (int i = 0; i < s->nplayers; i++)
            empty = empty && s->hand[i] == 0;
        if (empty) {
            s->over = true;
            cards__note(v, "every hand is empty: the game is over");
        } else if (s->dry_passes >= s->nplayers) {
            s->over = true;
            cards__note(v, "every player passed in a row with the deck empty: the game is over");
        }
    }
    if (s->over)
        s->winners = cards__best(s);
}

/* ---- position and generator ---- */

static int cards__position(const void *state, rules_piece *out, int cap)
{
    const cards__state *s = state;
    for (int i = 0; i < s->nboard && i < cap; i++) {
        memset(&out[i], 0, sizeof out[i]);
        out[i].x = s->board[i].x;
        out[i].y = s->board[i].y;
        out[i].a = (uint8_t)cards__rank(s->board[i].card);
        out[i].b = (uint8_t)cards__suit(s->board[i].card);
        out[i].owner = -1;
    }
    return s->nboard;
}

/* Every legal placement of the pool's cards (with capture=choose one move
 * per square the placement may take), or, when there is none, the pass.
 * Moves carry the hand they were generated from, so that rules_check()
 * judges them alike. */
static int cards__generate(const void *state, int player, const rules_piece *hand, int nhand,
                           rules_move_fn fn, void *ctx)
{
    const cards__state *s = state;
    cards__cand cand[CARDS__MAX_CANDS];
    uint8_t pool[CARDS__DECK];
    rules_move m;
    int nc, npool, count = 0, held;

    if (s->over)
        return 0;
    if (nhand > RULES_MAX_HAND)
        return BASE_ERANGE;
    held = s->hand[player] + (s->deck > 0 ? 1 : 0);
    rules_move_init(&m, RULES_MOVE_PLACE);
    if (nhand > 0)
        memcpy(m.hand, hand, sizeof *hand * (size_t)nhand);
    if (nhand >= 0)
        m.nhand = nhand;
    npool = held > 0 || nhand >= 0 ? cards__pool(s, hand, nhand, pool) : 0;
    nc = cards__candidates(s, cand);
    m.npieces = 1;
    for (int i = 0; i < npool; i++)
        for (int k = 0; k < nc; k++) {
            cards__square sq[CARDS__MAX_SQUARES];
            int nsq = 0;
            if (!cards__fits_cand(s, pool[i], &cand[k]))
                continue;
            memset(&m.pieces[0], 0, sizeof m.pieces[0]);
            m.pieces[0].x = (int16_t)cand[k].x;
            m.pieces[0].y = (int16_t)cand[k].y;
            m.pieces[0].a = (uint8_t)cards__rank(pool[i]);
            m.pieces[0].b = (uint8_t)cards__suit(pool[i]);
            m.pieces[0].owner = -1;
            if (s->capture == CARDS__CAPTURE_CHOOSE)
                nsq = cards__squares(s, cand[k].x, cand[k].y, sq);
            for (int q = 0; q < (nsq > 0 ? nsq : 1); q++) {
                if (nsq > 0) {
                    m.square[0] = (int16_t)sq[q].x;
                    m.square[1] = (int16_t)sq[q].y;
                    m.square[2] = (int16_t)sq[q].size;
                } else {
                    m.square[0] = m.square[1] = m.square[2] = 0;
                }
                count++;
                if (fn(ctx, &m) != 0)
                    return count;
            }
        }
    if (count == 0) {
        m.type = RULES_MOVE_PASS;
        m.npieces = 0;
        m.square[0] = m.square[1] = m.square[2] = 0;
        count++;
        fn(ctx, &m);
    }
    return count;
}

const rules__engine rules__cards_engine = {
    .id = "cards",
    .min_players = 2,
    .max_players = CARDS__MAX_PLAYERS,
    .create = cards__create,
    .destroy = free, /* one block, nothing inside it owned */
    .clone = cards__clone,
    .status = cards__status,
    .check = cards__check,
    .apply = cards__apply,
    .position = cards__position,
    .generate = cards__generate,
    .side_by_side = cards__side_by_side,
    .piece_from_json = rules__cards_piece_from_json,
    .piece_to_json = rules__cards_piece_to_json,
    .move_from_json = rules__cards_move_from_json,
    .move_to_json = rules__cards_move_to_json,
    .hand_from_json = rules__cards_hand_from_json,
    .hand_to_json = rules__cards_hand_to_json,
    .verdict_extras = rules__cards_verdict_extras,
    .piece_text = rules__cards_piece_text,
};
