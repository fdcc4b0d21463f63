/* referee/referee.c: from a still table's reading to announced moves. */
#include "internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Event texts leave out the player the event is about (every front end
 * shows whose it is beside the text) and name the others. */
static const char *ref__who(const ref_referee *r, int p)
{
    return p >= 0 && p < RULES_MAX_PLAYERS ? r->names[p] : "nobody";
}

const char *ref_event_name(int kind)
{
    static const char *const names[] = {"?",       "move",    "illegal",   "restored",
                                        "takeback", "confirm", "game-over", "corrected"};
    return kind >= 1 && kind <= REF_EV_CORRECTED ? names[kind] : "?";
}

rules_game *ref__game(const ref_referee *r) { return r->hist[r->nhist - 1]; }
const rules_game *ref_game(const ref_referee *r) { return ref__game(r); }
int64_t ref_match_id(const ref_referee *r) { return r->match_id; }

/* ---- positions ---- */

bool ref__same_piece(const rules_piece *a, const rules_piece *b)
{
    if (a->a != b->a || a->b != b->b || a->c != b->c || a->owner != b->owner ||
        a->parity != b->parity || a->ncells != b->ncells)
        return false;
    return a->ncells == 0 || memcmp(a->cells, b->cells, sizeof a->cells) == 0;
}

bool ref__same_place(const rules_piece *a, const rules_piece *b)
{
    return a->ncells ? memcmp(a->cells, b->cells, sizeof a->cells) == 0
                     : a->x == b->x && a->y == b->y;
}

/* The translation that makes the most pieces of `seen` coincide with
 * `want` (ties keep the current one) into *odx, *ody; returns how many
 * coincide then (-1: none can). */
int ref__shift(const ref_referee *r, const rules_piece *want, int nw,
                      const rules_piece *seen, int ns, int *odx, int *ody)
{
    int best = -1, bdx = r->dx, bdy = r->dy;
    for (int i = 0; i < nw; i++)
        for (int j = 0; j < ns; j++) {
            int dx = want[i].x - seen[j].x, dy = want[i].y - seen[j].y, votes = 0;
            if (!ref__same_piece(&want[i], &seen[j]))
                continue;
            for (int a = 0; a < nw; a++)
                for (int b = 0; b < ns; b++)
                    if (want[a].x == seen[b].x + dx && want[a].y == seen[b].y + dy &&
                        ref__same_piece(&want[a], &seen[b])) {
                        votes++;
                        break;
                    }
            if (votes > best || (votes == best && dx == r->dx && dy == r->dy)) {
                best = votes;
                bdx = dx;
                bdy = dy;
            }
        }
    *odx = bdx;
    *ody = bdy;
    return best;
}

/* ... kept as the reading's translation (only for translation-invariant
 * games). */
static void ref__align(ref_referee *r, const rules_piece *want, int nw, const rules_piece *seen,
                       int ns)
{
    if (r->translate && nw > 0 && ns > 0)
        ref__shift(r, want, nw, seen, ns, &r->dx, &r->dy);
}

void ref__to_engine(const ref_referee *r, const rules_piece *in, rules_piece *out, int n)
{
    for (int i = 0; i < n; i++) {
        out[i] = in[i];
        if (r->translate) {
            out[i].x = (int16_t)(in[i].x + r->dx);
            out[i].y = (int16_t)(in[i].y + r->dy);
        }
    }
}

/* Same multiset of pieces in the same places. */
bool ref__same_position(const rules_piece *a, int na, const rules_piece *b, int nb)
{
    unsigned char used[REF__MAX_PIECES] = {0};
    if (na != nb || na > REF__MAX_PIECES)
        return false;
    for (int i = 0; i < na; i++) {
        int k = -1;
        for (int j = 0; j < nb && k < 0; j++)
            if (!used[j] && ref__same_place(&a[i], &b[j]) && ref__same_piece(&a[i], &b[j]))
                k = j;
        if (k < 0)
            return false;
        used[k] = 1;
    }
    return true;
}

int ref__position(const rules_game *g, rules_piece *out)
{
    int n = rules_position(g, out, REF__MAX_PIECES);
    return n > REF__MAX_PIECES ? REF__MAX_PIECES : n;
}

/* ---- recording and announcing ---- */

void ref__emit(ref_referee *r, int kind, int seq, int player, const rules_move *m,
                      const rules_verdict *v, const rules_piece *restore, int nrestore,
                      const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 9, 10)))
#endif
    ;

void ref__emit(ref_referee *r, int kind, int seq, int player, const rules_move *m,
                      const rules_verdict *v, const rules_piece *restore, int nrestore,
                      const char *fmt, ...)
{
    ref_event ev;
    va_list ap;
    ref__question_clear(r); /* whatever happens next settles it (ref__ask asks anew) */
    memset(&ev, 0, sizeof ev);
    ev.kind = kind;
    ev.seq = seq;
    ev.player = player;
    ev.move = m;
    ev.verdict = v;
    ev.restore = restore;
    ev.nrestore = nrestore;
    va_start(ap, fmt);
    vsnprintf(ev.text, sizeof ev.text, fmt, ap);
    va_end(ap);
    if (r->on_event)
        r->on_event(r->ctx, &ev);
}

static char *ref__json_text(cJSON *obj)
{
    char *s = obj ? cJSON_PrintUnformatted(obj) : NULL;
    cJSON_Delete(obj);
    return s;
}

/* The verdict's game-specific keys ("captured", "note", ...) as stored
 * in an event's extra, NULL when there are none. */
static char *ref__extra(const rules_game *after, int player, const rules_verdict *v)
{
    static const char *const plain[] = {"seq",    "player", "legal", "points", "rule",
                                        "reason", "scores", "over",  "winners"};
    cJSON *vj = rules_verdict_to_json(after, 0, player, v);
    if (!vj)
        return NULL;
    for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++)
        cJSON_DeleteItemFromObjectCaseSensitive(vj, plain[i]);
    if (!cJSON_GetArraySize(vj)) {
        cJSON_Delete(vj);
        return NULL;
    }
    return ref__json_text(vj);
}

/* Stores one event (legal or not) and its key frame; returns its seq in
 * *seq (0 without a store).  Durable before it returns. */
static int ref__record(ref_referee *r, const rules_game *after, int player, const rules_move *m,
                       const rules_verdict *v, const void *jpeg, size_t jpeg_len, int source,
                       int *seq, base_err *err)
{
    db_event ev;
    char *move = NULL, *scores = NULL, *pos = NULL, *extra = NULL;
    int rc = 0;

    *seq = 0;
    r->nevents++;
    if (!r->store)
        return 0;
    memset(&ev, 0, sizeof ev);
    move = ref__json_text(rules_move_to_json(r->game, m));
    scores = ref__json_text(cJSON_CreateIntArray(v->scores, v->nplayers));
    pos = ref__json_text(rules_position_to_json(after));
    extra = ref__extra(after, player, v);
    ev.seat = player;
    ev.move = move;
    ev.legal = v->legal;
    ev.rule = v->legal ? NULL : v->rule;
    ev.reason = v->legal ? NULL : v->reason;
    ev.points = v->legal ? v->points : 0;
    ev.scores = scores;
    ev.position = pos;
    ev.extra = extra;
    ev.source = source;
    if (!move || !scores || !pos)
        rc = base_err_set(err, BASE_ENOMEM, "out of memory");
    if (rc == 0)
        rc = db_event_append(r->store, r->match_id, &ev, seq, err);
    if (rc == 0)
        r->last_seq = *seq;
    if (rc == 0 && jpeg && jpeg_len)
        rc = db_snapshot_put(r->store, r->match_id, *seq, jpeg, jpeg_len, err);
    cJSON_free(move);
    cJSON_free(scores);
    cJSON_free(pos);
    cJSON_free(extra);
    return rc;
}

static int ref__push(ref_referee *r, rules_game *g, int seq, int player, const rules_move *m)
{
    if (r->nhist == r->caphist) {
        int cap = r->caphist * 2;
        rules_game **h = realloc(r->hist, sizeof *h * (size_t)cap);
        if (h)
            r->hist = h;
        int *s = realloc(r->hist_seq, sizeof *s * (size_t)cap);
        if (s)
            r->hist_seq = s;
        int *p = realloc(r->hist_player, sizeof *p * (size_t)cap);
        if (p)
            r->hist_player = p;
        rules_move *mv = realloc(r->hist_move, sizeof *mv * (size_t)cap);
        if (mv)
            r->hist_move = mv;
        if (!h || !s || !p || !mv)
            return BASE_ENOMEM;
        r->caphist = cap;
    }
    r->hist[r->nhist] = g;
    r->hist_seq[r->nhist] = seq;
    r->hist_player[r->nhist] = player;
    if (m)
        r->hist_move[r->nhist] = *m;
    else
        rules_move_init(&r->hist_move[r->nhist], RULES_MOVE_NONE);
    r->nhist++;
    return 0;
}

static void ref__finish_if_over(ref_referee *r, const rules_verdict *v, base_err *err)
{
    char who[128] = "";
    int nwin = 0;
    if (!v->over)
        return;
    for (int i = 0; i < v->nplayers; i++)
        if (v->winners & (1u << i)) {
            size_t len = strlen(who);
            snprintf(who + len, sizeof who - len, "%s%s", nwin++ ? " and " : "", ref__who(r, i));
        }
    if (r->store)
        db_match_finish(r->store, r->match_id, v->scores, v->nplayers, v->winners, err);
    ref__emit(r, REF_EV_GAME_OVER, 0, -1, NULL, v, NULL, 0, "Game over: %s %s.",
              nwin ? who : "nobody", nwin > 1 ? "win" : "wins");
}

/* Checks and plays m for player on a copy of the current game; commits and
 * announces a legal move; records and announces an illegal one. */
int ref__play(ref_referee *r, int player, const rules_move *m, const void *jpeg,
                     size_t jpeg_len, int source, rules_verdict *v, base_err *err)
{
    rules_game *next = NULL;
    int rc, seq;

    if ((rc = rules_game_clone(ref__game(r), &next)) != 0)
        return base_err_set(err, rc, "out of memory");
    if ((rc = rules_apply(next, player, m, v)) != 0) {
        rules_game_free(next);
        return base_err_set(err, rc, "player %d is not a seat of this match", player + 1);
    }
    if (!v->legal) {
        rules_game_free(next);
        rc = ref__record(r, ref__game(r), player, m, v, jpeg, jpeg_len, source, &seq, err);
        if (rc == 0) {
            rules_piece *pos = r->scratch;
            int n = ref__position(ref__game(r), pos);
            ref__emit(r, REF_EV_ILLEGAL, seq, player, m, v, pos, n, "%s.", v->reason);
        }
        return rc;
    }
    if ((rc = ref__record(r, next, player, m, v, jpeg, jpeg_len, source, &seq, err)) != 0 ||
        (rc = ref__push(r, next, seq, player, m)) != 0) {
        rules_game_free(next);
        return rc;
    }
    if (m->type == RULES_MOVE_REROLL || m->type == RULES_MOVE_DRAW || m->type == RULES_MOVE_PASS)
        /* a signalled turn scores nothing: say what it was */
        ref__emit(r, REF_EV_MOVE, seq, player, m, v, NULL, 0, "%s.",
                  m->type == RULES_MOVE_REROLL ? "re-rolls"
                  : m->type == RULES_MOVE_DRAW ? "draws"
                                               : "passes");
    else
        ref__emit(r, REF_EV_MOVE, seq, player, m, v, NULL, 0, "%d point%s.", v->points,
                  v->points == 1 ? "" : "s");
    ref__finish_if_over(r, v, err);
    return 0;
}

/* ---- explaining a change ---- */

/* The move that turns position `have` into `seen` for this game, from the
 * difference: pieces added (and, for cards, captured ones gone), or one
 * piece moved (cube2).  Returns false when no single move can. */
static bool ref__diff_move(const ref_referee *r, const rules_piece *have, int nh,
                           const rules_piece *seen, int ns, rules_move *m, int *nremoved)
{
    unsigned char kept_h[REF__MAX_PIECES] = {0}, kept_s[REF__MAX_PIECES] = {0};
    int added = 0, removed = 0, last_removed = -1;

    for (int i = 0; i < nh; i++)
        for (int j = 0; j < ns; j++)
            if (!kept_s[j] && ref__same_place(&have[i], &seen[j]) &&
                ref__same_piece(&have[i], &seen[j])) {
                kept_h[i] = kept_s[j] = 1;
                break;
            }
    rules_move_init(m, RULES_MOVE_PLACE);
    for (int j = 0; j < ns; j++)
        if (!kept_s[j]) {
            if (added == RULES_MAX_MOVE_PIECES)
                return false;
            m->pieces[added++] = seen[j];
        }
    for (int i = 0; i < nh; i++)
        if (!kept_h[i]) {
            removed++;
            last_removed = i;
        }
    m->npieces = added;
    *nremoved = removed;
    if (strcmp(r->game, "cube2") == 0) {
        /* During the setup one piece is put down (a place move); after it,
         * one piece moved, or one left the board. */
        if (removed == 0 && added == 1)
            return true;
        if (removed != 1 || added > 1)
            return false;
        rules_move_init(m, RULES_MOVE_MOVE);
        m->from[0] = have[last_removed].x;
        m->from[1] = have[last_removed].y;
        if (added == 0) {
            m->to_off = true;
        } else {
            m->to[0] = seen[0].x; /* replaced below */
            for (int j = 0; j < ns; j++)
                if (!kept_s[j]) {
                    m->to[0] = seen[j].x;
                    m->to[1] = seen[j].y;
                }
        }
        return true;
    }
    if (strcmp(r->game, "cards") == 0)
        return added == 1; /* captured cards may have gone */
    return added > 0 && removed == 0;
}

int ref__remember(ref_referee *r, const rules_piece *seen, int ns)
{
    if (r->q.id == 0)
        ref__alert_free(r); /* (a new alert: ref__keep_view keeps its view) */
    rules_piece *copy = malloc(sizeof *copy * (size_t)(ns ? ns : 1));
    if (!copy)
        return BASE_ENOMEM;
    memcpy(copy, seen, sizeof *copy * (size_t)ns);
    free(r->last_seen);
    r->last_seen = copy;
    r->nlast_seen = ns;
    return 0;
}

/* Whether player may make m now. */
static bool ref__move_legal(const ref_referee *r, int player, const rules_move *m)
{
    rules_game *trial = NULL;
    rules_verdict v;
    if (rules_game_clone(ref__game(r), &trial) != 0)
        return false;
    rules_apply(trial, player, m, &v);
    rules_game_free(trial);
    return v.legal;
}

/* Whether the change from have (game g's position) to seen is one legal
 * move of the player to move in g that explains all of it; the move and
 * player go to *m and *player. */
bool ref__legal_change_in(const ref_referee *r, const rules_game *g,
                                 const rules_piece *have, int nh, const rules_piece *seen, int ns,
                                 rules_move *m, int *player)
{
    rules_status st;
    rules_verdict v;
    rules_game *trial = NULL;
    bool ok = false;
    int nremoved;
    if (!ref__diff_move(r, have, nh, seen, ns, m, &nremoved))
        return false;
    rules_game_status(g, &st);
    *player = st.to_move;
    if (rules_game_clone(g, &trial) != 0)
        return false;
    rules_apply(trial, st.to_move, m, &v);
    if (v.legal) {
        rules_piece *after = malloc(sizeof *after * REF__MAX_PIECES);
        ok = after && ref__same_position(after, ref__position(trial, after), seen, ns);
        free(after);
    }
    rules_game_free(trial);
    return ok;
}

/* ... in the current game. */
bool ref__legal_change(ref_referee *r, const rules_piece *have, int nh,
                              const rules_piece *seen, int ns, rules_move *m, int *player)
{
    return ref__legal_change_in(r, ref__game(r), have, nh, seen, ns, m, player);
}

/* Whether seen piece p is one of have, at its place. */
bool ref__known(const rules_piece *have, int nh, const rules_piece *p)
{
    for (int j = 0; j < nh; j++)
        if (ref__same_place(&have[j], p) && ref__same_piece(&have[j], p))
            return true;
    return false;
}

/* In games where a placed piece never changes, a committed cell read as
 * something else is the committed piece misread (light, glare, a cube
 * knocked askew, a card's index in shade): what was settled when it was
 * placed stands.  Cards too: a card leaves the table only when captured,
 * and a new one may then fill its cell, but none is laid on another. */
static void ref__keep_committed(const ref_referee *r, const rules_piece *have, int nh,
                                rules_piece *seen, int ns)
{
    for (int i = 0; r->keep && i < ns; i++)
        for (int j = 0; j < nh; j++)
            if (ref__same_place(&have[j], &seen[i])) {
                int16_t x = seen[i].x, y = seen[i].y;
                seen[i] = have[j];
                seen[i].x = x;
                seen[i].y = y;
                break;
            }
}

enum ref__resolution {
    REF__AS_READ, /* judge the reading as it is */
    REF__CHOSEN,  /* seen now holds the one likely legal reading */
    REF__ASK,     /* unsure, and the rules do not settle it */
    REF__DROP,    /* one unsure piece fits no reading: judge the rest */
    REF__SAME,    /* ... and the rest is what was last alerted about */
    REF__DOUBT    /* illegal as read, legal in a reading with real odds: ask */
};

/* what is said of a piece that fits no reading (see ref__resolve) */
#define REF__UNPLACED                                                                              \
    "It fits the rules in no reading: if a piece is there, straighten it or answer; if not, "    \
    "carry on."

/* Digit t of combination c in the mixed radix of the pieces' choices. */
static int ref__digit(long c, const int *radix, int t)
{
    for (int k = 0; k < t; k++)
        c /= radix[k];
    return (int)(c % radix[t]);
}

/* *out = choice d of a piece read as *as_read (0: as read, k: its k-th
 * alternative), where it lies. */
void ref__pick(rules_piece *out, const rules_piece *as_read, const ref_alts *a, int d)
{
    int16_t x = as_read->x, y = as_read->y;
    *out = d > 0 ? a->p[d - 1] : *as_read;
    out->x = x;
    out->y = y;
}

/* Whether new piece i shares a row or a column with another new piece,
 * or is the only one (a move of its own). */
static bool ref__in_line(const rules_piece *have, int nh, const rules_piece *seen, int ns, int i)
{
    bool alone = true;
    for (int j = 0; j < ns; j++)
        if (j != i && !ref__known(have, nh, &seen[j])) {
            if (seen[j].x == seen[i].x || seen[j].y == seen[i].y)
                return true;
            alone = false;
        }
    return alone;
}

/* Remembers the reading seen[0..ns) (v's, index for index) and, when
 * ask, asks about seen[k], which fits the rules in no reading
 * (REF__UNPLACED): what it is, or whether anything is there; have[0..nh)
 * is the position to put back. */
static int ref__unplaced(ref_referee *r, const ref_view *v, const rules_piece *seen, int ns,
                         int k, const rules_piece *have, int nh, bool ask)
{
    int rc;
    if (!ask)
        return ref__remember(r, seen, ns);
    rc = ref__ask(r, v, k, seen, ns, have, nh, true, REF__UNPLACED);
    r->unplaced = true;
    r->has_pending = false;
    return rc;
}

/* The new piece, read below certainty, without which the change is a
 * legal move or no change at all, when no reading of it is legal (the
 * caller has tried them): something that is no cube, most likely (the
 * table showing in a hole of the board between the cubes' side faces);
 * or one in no row or column with the other new pieces, which no move
 * can hold together with them: the rest is then judged on its own, legal
 * or not.  The least sure such piece, or -1.  *nothing: without it the
 * table is as it was (1), or as it was when the last alert was said (2:
 * nothing new).  Only where placed pieces never change or leave and a
 * move lies in one line (the change is then additions only). */
static int ref__drop_unsure(ref_referee *r, const rules_piece *have, int nh,
                            const rules_piece *seen, int ns, const ref_view *v,
                            rules_piece *trial, rules_move *m, int *nothing)
{
    int best = -1, player;
    *nothing = 0;
    for (int i = 0; r->fixed && i < ns; i++) {
        int none;
        if (v->conf[i] >= REF__CERTAIN || ref__known(have, nh, &seen[i]) ||
            (best >= 0 && v->conf[i] >= v->conf[best]))
            continue;
        memcpy(trial, seen, sizeof *trial * (size_t)i);
        memcpy(trial + i, seen + i + 1, sizeof *trial * (size_t)(ns - i - 1));
        none = ref__same_position(have, nh, trial, ns - 1) ? 1
               : r->state != REF__OK &&
                       ref__same_position(r->last_seen, r->nlast_seen, trial, ns - 1)
                   ? 2
                   : 0;
        if (none || !ref__in_line(have, nh, seen, ns, i) ||
            ref__legal_change(r, have, nh, trial, ns - 1, m, &player)) {
            best = i;
            *nothing = none;
        }
    }
    return best;
}

/* The new piece of m whose verdict says a misread rather than a broken
 * rule: a second copy of a card ("card-seen") cannot be laid from one
 * deck, so one of the two readings is wrong and the players are asked
 * rather than told (the simulator, like the rulebook, never plays it).
 * Its index in seen, or -1. */
static int ref__impossible(const ref_referee *r, int player, const rules_verdict *v,
                           const rules_move *m, const rules_piece *seen, int ns)
{
    bool fits = false;
    if (strcmp(v->rule, "card-seen") != 0 || m->npieces != 1)
        return -1;
    /* only where some card would be legal: a card laid where none may
     * go breaks a rule whatever it is */
    for (int rank = 1; rank <= 13 && !fits; rank++)
        for (int suit = 0; suit < 4 && !fits; suit++) {
            rules_move t = *m;
            rules_verdict tv;
            t.pieces[0].a = (uint8_t)rank;
            t.pieces[0].b = (uint8_t)suit;
            fits = rules_check(ref__game(r), player, &t, &tv) == 0 && tv.legal;
        }
    for (int i = 0; fits && i < ns; i++)
        if (ref__same_place(&seen[i], &m->pieces[0]))
            return i;
    return -1;
}

/* Which reading of the new pieces explains the change.  A reading that is
 * sure and legal stands.  Otherwise the alternatives of the new pieces
 * that are not certain are combined (each combination as likely as the
 * product of its pieces' weights) and each is tried against the rules:
 * - an unsure reading that is legal stands when no other legal reading is
 *   even half as likely (and every unsure piece has alternatives to try);
 * - a reading that breaks the rules gives way to a legal one that is
 *   likely enough and clearly the likeliest (a misread is likelier than a
 *   move against the rules that happens to look like a legal one);
 * - a reading no alternative of which is legal, but which one new piece
 *   read below certainty makes illegal (the rest is a legal move, or
 *   nothing) or which lies in no line with the other new pieces, is
 *   judged without that piece, which is asked about (*ask; REF__DROP, or
 *   REF__ASK when nothing else changed, REF__SAME when the rest is the
 *   reading last alerted about): an illegal move announced for what may
 *   be no cube at all derails the match;
 * - a reading that breaks the rules, legal in another reading with real
 *   odds (REF__ODDS_REAL) but not clearly the likeliest: the least sure
 *   piece that reading changes is asked about (REF__DOUBT, *ask);
 * - otherwise a sure reading is judged as read, an unsure one is asked
 *   about (*ask: the piece, or -1 for any read below r->min_conf). */
static int ref__resolve(ref_referee *r, const rules_piece *have, int nh, rules_piece *seen,
                        int ns, const ref_view *v, int *ask)
{
    int idx[REF__MAX_TRY], ntry = 0, player, best_combo = -1, radix[REF__MAX_TRY];
    bool unsure = false, blind = false, primary_legal;
    double l1 = 0, l2 = 0;
    long ncombo = 1;
    rules_move *m = malloc(sizeof *m);
    rules_piece *trial = malloc(sizeof *trial * REF__MAX_PIECES);
    int res = REF__AS_READ, drop, nothing;

    *ask = -1;
    if (!m || !trial || !v->conf)
        goto done;
    for (int i = 0; i < ns; i++) {
        if (ref__known(have, nh, &seen[i]))
            continue;
        unsure = unsure || v->conf[i] < r->min_conf;
        blind = blind || (v->conf[i] < r->min_conf && !(v->alt && v->alt[i].n > 0));
        if (v->alt && v->alt[i].n > 0 && v->conf[i] < REF__CERTAIN) {
            /* keep the least sure */
            int k = ntry < REF__MAX_TRY ? ntry++ : -1;
            if (k < 0) {
                k = 0;
                for (int t = 1; t < ntry; t++)
                    if (v->conf[idx[t]] > v->conf[idx[k]])
                        k = t;
                if (v->conf[idx[k]] <= v->conf[i])
                    continue;
            }
            idx[k] = i;
        }
    }
    primary_legal = ref__legal_change(r, have, nh, seen, ns, m, &player);
    if (primary_legal && !unsure)
        goto done;
    for (int t = 0; t < ntry; t++) {
        radix[t] = 1 + v->alt[idx[t]].n;
        ncombo *= radix[t];
    }
    /* combination c: digit t picks piece idx[t]'s reading (0: as read) */
    memcpy(trial, seen, sizeof *trial * (size_t)ns);
    for (long c = 1; c < ncombo; c++) {
        double like = 1;
        for (int t = 0; t < ntry; t++) {
            int d = ref__digit(c, radix, t);
            if (d > 0)
                like *= v->alt[idx[t]].w[d - 1];
        }
        if (like < 0.5 * REF__ALT_FLOOR && like < 0.5 * l1)
            continue; /* cannot matter */
        for (int t = 0; t < ntry; t++)
            ref__pick(&trial[idx[t]], &seen[idx[t]], &v->alt[idx[t]], ref__digit(c, radix, t));
        if (!ref__legal_change(r, have, nh, trial, ns, m, &player))
            continue;
        if (like > l1) {
            l2 = l1;
            l1 = like;
            best_combo = (int)c;
        } else if (like > l2) {
            l2 = like;
        }
    }
    if (primary_legal) {
        /* an unsure piece with no alternatives could be anything */
        res = l1 < 0.5 && !blind ? REF__AS_READ : REF__ASK;
    } else if (best_combo > 0 && l1 >= REF__ALT_FLOOR && l1 >= 2 * l2) {
        for (int t = 0; t < ntry; t++)
            ref__pick(&seen[idx[t]], &seen[idx[t]], &v->alt[idx[t]],
                      ref__digit(best_combo, radix, t));
        res = REF__CHOSEN;
    } else if (best_combo > 0 && l1 >= REF__ODDS_REAL) {
        /* a legal reading with real odds, not clearly the one: the least
         * sure piece it reads otherwise is asked about (leaving a piece
         * out would commit a guess; the next move may settle it) */
        for (int t = 0; t < ntry; t++)
            if (ref__digit(best_combo, radix, t) > 0 &&
                (*ask < 0 || v->conf[idx[t]] < v->conf[*ask]))
                *ask = idx[t];
        res = REF__DOUBT;
    } else if ((drop = ref__drop_unsure(r, have, nh, seen, ns, v, trial, m, &nothing)) >= 0) {
        *ask = drop;
        res = nothing == 2 ? REF__SAME : nothing ? REF__ASK : REF__DROP;
    } else {
        res = unsure ? REF__ASK : REF__AS_READ;
    }
done:
    free(m);
    free(trial);
    return res;
}

/* Rewrites stored event seq as legal move m by player, with verdict v and
 * the game g after it. */
int ref__store_correction(ref_referee *r, int seq, int player, const rules_move *m,
                                 const rules_verdict *v, const rules_game *g, int source,
                                 const char *note, base_err *err)
{
    db_event ev;
    char *move, *scores, *pos, *extra;
    int rc;
    if (!r->store || seq <= 0)
        return 0;
    move = ref__json_text(rules_move_to_json(r->game, m));
    scores = ref__json_text(cJSON_CreateIntArray(v->scores, v->nplayers));
    pos = ref__json_text(rules_position_to_json(g));
    extra = ref__extra(g, player, v);
    memset(&ev, 0, sizeof ev);
    ev.seat = player;
    ev.move = move;
    ev.legal = true;
    ev.points = v->points;
    ev.scores = scores;
    ev.position = pos;
    ev.extra = extra;
    ev.source = source;
    rc = move && scores && pos ? db_event_correct(r->store, r->match_id, seq, &ev, note, err)
                               : base_err_set(err, BASE_ENOMEM, "out of memory");
    cJSON_free(move);
    cJSON_free(scores);
    cJSON_free(pos);
    cJSON_free(extra);
    return rc < 0 ? rc : 0;
}

/* Forgets the guesses about move k and those after it (taken back, or
 * settled by the players). */
static void ref__forget_guesses(ref_referee *r, int k)
{
    while (r->nguess > 0 && r->guess[r->nguess - 1].k >= k)
        r->nguess--;
}

/* The last move was really m (by the same player): the stored event is
 * corrected (note says why) and play continues from m's position.  late,
 * when not NULL, is the piece the camera read late that m now holds. */
static int ref__correct(ref_referee *r, const rules_move *m, const char *note,
                        const rules_piece *late, base_err *err)
{
    rules_game *g = NULL;
    rules_verdict v;
    int seq, player, rc;
    if (r->nhist <= 1)
        return base_err_set(err, BASE_ESTATE, "there is no move to correct");
    seq = r->hist_seq[r->nhist - 1];
    player = r->hist_player[r->nhist - 1];
    if ((rc = rules_game_clone(r->hist[r->nhist - 2], &g)) != 0)
        return rc;
    rules_apply(g, player, m, &v);
    if (!v.legal) {
        rules_game_free(g);
        return base_err_set(err, BASE_EINVAL, "the corrected move is illegal: %s (%s)", v.reason,
                            v.rule);
    }
    if ((rc = ref__store_correction(r, seq, player, m, &v, g,
                                    late ? DB_SRC_CAMERA : DB_SRC_CORRECTION, note, err)) != 0) {
        rules_game_free(g);
        return rc;
    }
    rules_game_free(r->hist[r->nhist - 1]);
    r->hist[r->nhist - 1] = g;
    r->hist_move[r->nhist - 1] = *m;
    r->state = REF__OK;
    r->late_at = 0;
    if (late) {
        char what[160];
        rules_piece_text(r->game, late, what, sizeof what);
        ref__emit(r, REF_EV_CORRECTED, seq, player, m, &v, NULL, 0,
                  "%s, read late, was part of the last move; it now scores %d.", what, v.points);
    } else {
        ref__forget_guesses(r, r->nhist - 1); /* the players said what it was */
        ref__forget_doubts(r, r->nhist - 1);
        ref__emit(r, REF_EV_CORRECTED, seq, player, m, &v, NULL, 0,
                  "the last move was corrected; it now scores %d.", v.points);
    }
    return 0;
}

/* The piece left out of the last move and asked about (REF__DROP), read
 * again at its place: it was part of that move all along (read unsure,
 * or misread, then), so when it, or one of its other readings likely
 * enough, makes that move legal, the move is corrected to hold it rather
 * than the piece being taken as the next player's move, which would put
 * every later turn out of step.  Whoever's hand is over the table now:
 * the piece was already there when the last move was judged.  Any other
 * new pieces are then judged as usual.  True when corrected. */
static bool ref__late_piece(ref_referee *r, const rules_piece *have, int nh,
                            const rules_piece *seen, int ns, const ref_view *v, int *rc,
                            base_err *err)
{
    int k = -1, player;
    rules_move m;
    /* an event recorded since (a move, an illegal one) ends its chance; a
     * take-back or a correction clears it */
    if (!r->late_at || r->late_at != r->nevents || r->nhist <= 1)
        return false;
    player = r->hist_player[r->nhist - 1];
    for (int i = 0; i < ns && k < 0; i++)
        if (ref__same_place(&seen[i], &r->late) && !ref__known(have, nh, &seen[i]) &&
            (!v->conf || v->conf[i] >= REF__ALT_FLOOR))
            k = i;
    m = r->hist_move[r->nhist - 1];
    if (k < 0 || m.type != RULES_MOVE_PLACE || m.npieces >= RULES_MAX_MOVE_PIECES)
        return false;
    m.npieces++;
    /* as read, then its other readings (likeliest first) while likely enough */
    for (int d = 0; d <= (v->alt ? v->alt[k].n : 0); d++) {
        rules_game *g = NULL;
        rules_verdict vd;
        if (d > 0 && v->alt[k].w[d - 1] < REF__ALT_FLOOR)
            break;
        ref__pick(&m.pieces[m.npieces - 1], &seen[k], v->alt ? &v->alt[k] : NULL, d);
        if (rules_game_clone(r->hist[r->nhist - 2], &g) != 0)
            return false;
        rules_apply(g, player, &m, &vd); /* where the last move was played */
        rules_game_free(g);
        if (vd.legal) {
            *rc = ref__correct(r, &m, "a piece the camera read late", &m.pieces[m.npieces - 1],
                               err);
            return true;
        }
    }
    return false;
}

int ref__observe(ref_referee *r, const ref_view *v, base_err *err)
{
    rules_piece *have = malloc(sizeof *have * REF__MAX_PIECES);
    rules_piece *seen = malloc(sizeof *seen * REF__MAX_PIECES);
    rules_move *m = malloc(sizeof *m);
    rules_piece *full = NULL; /* REF__DROP: the reading with piece ask */
    rules_verdict verdict;
    rules_status st;
    int nh, ns = v->n, nremoved, rc = 0, res, ask, nhist0 = r->nhist, ngather = 0, doubt;
    const ref_view *vs = v; /* v, index for index with seen */
    ref_view vdrop;
    struct ref__viewbuf vbuf = {0};

    if (!have || !seen || !m) {
        rc = base_err_set(err, BASE_ENOMEM, "out of memory");
        goto done;
    }
    if (ns > REF__MAX_PIECES) {
        rc = base_err_set(err, BASE_ERANGE, "the reading holds %d pieces, at most %d are allowed",
                          ns, REF__MAX_PIECES);
        goto done;
    }
    nh = ref__position(ref__game(r), have);
    /* Lined up with the table last alerted about when there is one: it
     * holds the committed pieces and the ones in question, more to line
     * up by (with nothing committed yet, the first move asked about is
     * all there is, and the recogniser's grid origin moves). */
    if (r->state != REF__OK && r->last_seen && r->nlast_seen > nh)
        ref__align(r, r->last_seen, r->nlast_seen, v->pieces, ns);
    else
        ref__align(r, have, nh, v->pieces, ns);
    ref__to_engine(r, v->pieces, seen, ns);
    if (base_log_level() >= BASE_LOG_DEBUG)
        for (int i = 0; i < ns; i++) {
            char what[160], was[160] = "";
            rules_piece_text(r->game, &seen[i], what, sizeof what);
            for (int j = 0; r->keep && j < nh; j++)
                if (ref__same_place(&have[j], &seen[i]) && !ref__same_piece(&have[j], &seen[i])) {
                    char rec[140];
                    rules_piece_text(r->game, &have[j], rec, sizeof rec);
                    snprintf(was, sizeof was, " (recorded: %s)", rec);
                }
            BASE_DEBUG("referee", "seen %s conf %.2f, %d alternatives%s%s", what,
                       v->conf ? (double)v->conf[i] : 1.0, v->alt ? v->alt[i].n : 0, was,
                       i + 1 == ns ? " (end)" : "");
        }
    /* (a card recorded short of certain, read as another since) */
    if (ref__reread(r, have, nh, seen, ns, v, &rc, err)) {
        if (rc != 0)
            goto done;
        nh = ref__position(ref__game(r), have);
    }
    ref__keep_committed(r, have, nh, seen, ns);

    /* Unchanged: nothing to say, unless it ends an alert. */
    if (ref__same_position(have, nh, seen, ns)) {
        if (r->state != REF__OK) {
            r->state = REF__OK;
            ref__emit(r, REF_EV_RESTORED, 0, -1, NULL, NULL, NULL, 0,
                      "The table is back to the last position.");
        }
        goto done;
    }
    /* The same reading as the one already announced: say nothing again
     * (unless it was unsure and is now read with confidence). */
    if (r->state != REF__OK && ref__same_position(r->last_seen, r->nlast_seen, seen, ns)) {
        bool sure = true;
        for (int i = 0; v->conf && i < ns; i++)
            sure = sure && v->conf[i] >= (r->unplaced ? REF__CERTAIN : r->min_conf);
        if (!((r->unsure || r->unplaced) && sure))
            goto done;
    }
    r->unsure = r->unplaced = false;

    /* An unsure reading that nobody corrected stands once play goes on
     * over it: its cells are still filled and more have come.  A cell
     * read more surely now than then takes the surer reading, if the move
     * stays legal with it. */
    if (r->has_pending) {
        bool kept = true, played_on = false;
        r->has_pending = false;
        for (int i = 0; i < r->pending.npieces && kept; i++) {
            int found = -1;
            for (int j = 0; j < ns && found < 0; j++)
                if (ref__same_place(&r->pending.pieces[i], &seen[j]))
                    found = j;
            kept = found >= 0;
            if (kept && v->conf && v->conf[found] > r->pending_conf[i] &&
                !ref__same_piece(&r->pending.pieces[i], &seen[found])) {
                rules_piece was = r->pending.pieces[i];
                r->pending.pieces[i] = seen[found];
                if (!ref__move_legal(r, r->pending_player, &r->pending)) {
                    r->pending.pieces[i] = was;
                } else {
                    r->pending_conf[i] = v->conf[found];
                    r->pending_alt[i].n = 0;
                    if (v->alt)
                        r->pending_alt[i] = v->alt[found];
                }
            }
        }
        for (int j = 0; j < ns && !played_on; j++) {
            bool before = false;
            for (int i = 0; i < r->nlast_seen && !before; i++)
                before = ref__same_place(&r->last_seen[i], &seen[j]);
            played_on = !before;
        }
        /* cards: a capture is play going on too (the cards it took gone) */
        for (int i = 0; i < nh && !played_on && !strcmp(r->game, "cards"); i++)
            played_on = !ref__known(seen, ns, &have[i]);
        if (!kept && ref__pending_taken(r, seen, ns))
            kept = played_on = true;
        if (kept && played_on) {
            rules_verdict pv;
            if ((rc = ref__play(r, r->pending_player, &r->pending, NULL, 0, DB_SRC_CAMERA, &pv,
                                err)) != 0)
                goto done;
            if (!strcmp(r->game, "cards")) {
                /* a card that stood unsure may prove another later */
                ref_view pw;
                memset(&pw, 0, sizeof pw);
                pw.pieces = r->pending.pieces;
                pw.conf = r->pending_conf;
                pw.alt = r->pending_alt;
                pw.n = r->pending.npieces;
                ref__remember_read(r, &r->pending, r->pending.pieces, &pw);
            }
            r->state = REF__OK;
            nh = ref__position(ref__game(r), have);
            ref__keep_committed(r, have, nh, seen, ns);
            if (ref__same_position(have, nh, seen, ns))
                goto done;
        }
    }

    /* Back to the position before the last move: a take-back. */
    if (r->nhist > 1) {
        rules_piece *prev = r->scratch;
        int np = ref__position(r->hist[r->nhist - 2], prev);
        if (ref__same_position(prev, np, seen, ns)) {
            rc = ref_undo(r, err);
            r->state = REF__OK;
            goto done;
        }
    }

    if (ref__late_piece(r, have, nh, seen, ns, v, &rc, err)) {
        if (rc != 0)
            goto done;
        nh = ref__position(ref__game(r), have);
        ref__keep_committed(r, have, nh, seen, ns); /* the piece as it was taken */
        if (ref__same_position(have, nh, seen, ns))
            goto done; /* nothing else is new */
    }

    /* after a question or a verdict, the table moved on by legal moves */
    if (ref__moved_on(r, have, nh, seen, ns, v, &rc, err)) {
        if (rc != 0 || r->state != REF__OK)
            goto done;
        nh = ref__position(ref__game(r), have);
        ref__keep_committed(r, have, nh, seen, ns);
        if (ref__same_position(have, nh, seen, ns))
            goto done;
    }

    if (ref__two_moves(r, have, nh, seen, ns, v, &rc, err))
        goto done;

    /* Pieces read without confidence are not guessed at: the rules may
     * settle what they are, or the players are asked. */
    res = ref__resolve(r, have, nh, seen, ns, v, &ask);
    if (res == REF__DOUBT) {
        rc = ref__ask(r, v, ask, seen, ns, have, nh, false, NULL);
        r->has_pending = false;
        goto done;
    }
    if (res == REF__SAME || (res == REF__ASK && ask >= 0)) {
        /* a piece no reading fits, beside nothing new (SAME: what was
         * last alerted about, nothing more to say until the table
         * changes) */
        rc = ref__unplaced(r, v, seen, ns, ask, have, nh, res == REF__ASK);
        goto done;
    }
    if (res == REF__DROP) {
        /* judged without it; asked about once the rest is settled */
        if (!(full = malloc(sizeof *full * (size_t)ns))) {
            rc = base_err_set(err, BASE_ENOMEM, "out of memory");
            goto done;
        }
        memcpy(full, seen, sizeof *full * (size_t)ns);
        memmove(seen + ask, seen + ask + 1, sizeof *seen * (size_t)(ns - ask - 1));
        ns--;
        /* the view without it too, index for index with seen */
        if ((rc = ref__view_copy(v, ask, &vdrop, &vbuf)) != 0) {
            rc = base_err_set(err, rc, "out of memory");
            goto done;
        }
        vs = &vdrop;
    }
    for (int i = 0; res == REF__ASK && i < ns; i++) {
        if (!ref__known(have, nh, &seen[i]) && vs->conf[i] < r->min_conf) {
            bool pending = ref__legal_change(r, have, nh, seen, ns, &r->pending,
                                             &r->pending_player);
            for (int k = 0; pending && k < r->pending.npieces; k++)
                for (int j = 0; j < ns; j++)
                    if (ref__same_place(&r->pending.pieces[k], &seen[j])) {
                        r->pending_conf[k] = vs->conf[j];
                        r->pending_alt[k].n = 0;
                        if (vs->alt)
                            r->pending_alt[k] = vs->alt[j];
                    }
            rc = ref__ask(r, vs, i, seen, ns, have, nh, false,
                          pending ? "If nobody answers, the first reading stands when play goes on."
                                  : NULL);
            r->unsure = true;
            r->has_pending = pending;
            goto done;
        }
    }

    rules_game_status(ref__game(r), &st);
    if (ref__diff_move(r, have, nh, seen, ns, m, &nremoved)) {
        int player = st.to_move;
        if (v->mover >= 0 && v->mover != st.to_move &&
            ref__doubtful(r, have, nh, seen, ns, vs, &doubt)) {
            /* out of turn, but which pieces it laid is in doubt: asked
             * first (an accusation rests on every reading being sure) */
            rc = ref__ask(r, vs, doubt, seen, ns, have, nh, false, NULL);
            r->has_pending = false;
            goto done;
        }
        if (v->mover >= 0 && v->mover != st.to_move) {
            /* The hand came from another seat: flag it, credit nobody. */
            memset(&verdict, 0, sizeof verdict);
            verdict.nplayers = st.nplayers;
            memcpy(verdict.scores, st.scores, sizeof verdict.scores);
            snprintf(verdict.rule, sizeof verdict.rule, "out-of-turn");
            snprintf(verdict.reason, sizeof verdict.reason,
                     "it is %s's turn, but the move came from %s's side",
                     ref__who(r, st.to_move), ref__who(r, v->mover));
            r->state = REF__ILLEGAL;
            ref__alert_free(r); /* (no view: nothing read is in question) */
            if ((rc = ref__remember(r, seen, ns)) == 0)
                ref__emit(r, REF_EV_ILLEGAL, 0, v->mover, m, &verdict, have, nh,
                          "out of turn: %s.", verdict.reason);
            goto done;
        }
        rules_game *trial = NULL;
        if ((rc = rules_game_clone(ref__game(r), &trial)) != 0)
            goto done;
        rules_apply(trial, player, m, &verdict);
        if (verdict.legal) {
            /* The move must explain the whole change (cards: the captures). */
            rules_piece *after = r->scratch;
            int na = ref__position(trial, after);
            bool whole = ref__same_position(after, na, seen, ns);
            rules_game_free(trial);
            if (!whole && ref__ungathered(r, have, nh, m, after, na, seen, ns)) {
                /* seen before its square was taken: the move all the same */
                whole = true;
                ngather = r->ngather;
                r->ngather = 0; /* (until it is recorded) */
            }
            if (whole) {
                r->state = REF__OK;
                rc = ref__play(r, player, m, v->jpeg, v->jpeg_len, DB_SRC_CAMERA, &verdict, err);
                if (rc == 0)
                    r->ngather = ngather;
                if (rc == 0)
                    ref__note_unsure(r, m, v);
                if (rc == 0 && !strcmp(r->game, "cards"))
                    ref__remember_read(r, m, full ? full : seen, v); /* full: REF__DROP's */
                goto done;
            }
        } else {
            rules_game_free(trial);
            if (ref__revise_guess(r, player, m, &rc, err)) {
                if (rc == 0) {
                    r->state = REF__OK;
                    rc = ref__play(r, player, m, v->jpeg, v->jpeg_len, DB_SRC_CAMERA, &verdict,
                                   err);
                }
                goto done;
            }
            if (ref__still_illegal(r, have, nh, seen, ns))
                goto done; /* (never a second verdict on the same move) */
            if (ref__doubtful(r, have, nh, seen, ns, vs, &doubt) ||
                (doubt = ref__impossible(r, player, &verdict, m, seen, ns)) >= 0) {
                /* the verdict would rest on a doubtful reading: a
                 * question, not an accusation (asked once: the same
                 * reading says nothing again) */
                rc = ref__ask(r, vs, doubt, seen, ns, have, nh, false, NULL);
                r->has_pending = false;
                goto done;
            }
            if ((doubt = ref__committed_doubt(r, seen, ns)) >= 0) {
                /* ... or on a piece recorded earlier, read unsurely then */
                rc = ref__ask_committed(r, doubt, vs, seen, ns, have, nh);
                r->has_pending = false;
                goto done;
            }
            r->state = REF__ILLEGAL;
            if ((rc = ref__remember(r, seen, ns)) == 0 &&
                (rc = ref__keep_view(r, seen, ns, vs, -1)) == 0)
                rc = ref__play(r, player, m, v->jpeg, v->jpeg_len, DB_SRC_CAMERA, &verdict, err);
            goto done;
        }
    }
    if (!strcmp(r->game, "cards") && (v->mover < 0 || v->mover == st.to_move)) {
        rules_move *cand = malloc(sizeof *cand * REF__UNSEEN_MAX);
        int nc = cand ? ref__laid_and_taken(r, ref__game(r), have, nh, seen, ns, st.to_move,
                                            cand, REF__UNSEEN_MAX)
                      : 0;
        if (nc > 0) {
            char what[160], others[320] = "";
            /* glimpsed while the hand was away, clearly the likeliest:
             * seen, no question (still revised if the card turns up) */
            float w0 = ref__glimpsed(r, &cand[0].pieces[0]), w1 = 0;
            bool glimpsed;
            for (int c = 1; c < nc; c++)
                w1 = fmaxf(w1, ref__glimpsed(r, &cand[c].pieces[0]));
            glimpsed = w0 >= REF__GLIMPSE_MIN && w0 >= REF__GLIMPSE_LEAD * w1;
            rules_piece_text(r->game, &cand[0].pieces[0], what, sizeof what);
            for (int c = 1; c < nc && c < 6; c++) {
                char w[32];
                size_t len = strlen(others);
                rules_card_name(cand[c].pieces[0].a, cand[c].pieces[0].b, w);
                snprintf(others + len, sizeof others - len, "%s%s", c > 1 ? ", " : "", w);
            }
            r->state = REF__OK;
            rc = ref__play(r, st.to_move, &cand[0], v->jpeg, v->jpeg_len, DB_SRC_CAMERA,
                           &verdict, err);
            if (rc == 0 && nc > 1)
                ref__remember_guess(r, cand, nc);
            /* the one card that fits is no guess; among several, the
             * players are told which was recorded */
            if (rc == 0 && nc > 1 && !glimpsed)
                ref__emit(r, REF_EV_CONFIRM, 0, -1, NULL, NULL, NULL, 0,
                          "The card laid was taken with its square before the camera saw it: "
                          "recorded as %s; it could also have been %s%s: correct the move if "
                          "it was.",
                          what, others, nc > 6 ? " or another" : "");
            free(cand);
            goto done;
        }
        free(cand);
    }
    /* Nothing explains it. */
    r->state = REF__CONFIRM;
    if ((rc = ref__remember(r, seen, ns)) == 0)
        ref__emit(r, REF_EV_CONFIRM, 0, -1, NULL, NULL, have, nh,
                  "I cannot explain the change on the table (%d piece%s now, %d before): put it "
                  "back as it was, or correct the reading.",
                  ns, ns == 1 ? "" : "s", nh);
done:
    if (full && rc == 0) {
        /* The rest was judged; now the piece left out, unless the rest
         * raised an alert of its own.  The whole reading is remembered,
         * so that seeing it again says nothing again. */
        nh = ref__position(ref__game(r), have);
        if (r->state == REF__OK && r->nhist > nhist0) {
            /* the rest was a move: the piece may yet prove part of it */
            r->late = full[ask];
            r->late_at = r->nevents;
        }
        rc = ref__unplaced(r, v, full, v->n, ask, have, nh, r->state == REF__OK);
    }
    free(full);
    ref__viewbuf_free(&vbuf);
    free(have);
    free(seen);
    free(m);
    return rc;
}

int ref_observe(ref_referee *r, const ref_view *v, base_err *err)
{
    rules_piece *have, *pieces;
    float *conf;
    ref_alts *alt;
    ref_view vf;
    int rc, nh;
    /* (the moving table's glimpses end with the still table judged) */
    if (r->ngather == 0 || v->n > REF__MAX_PIECES) {
        rc = ref__observe(r, v, err);
        r->nglimpse = 0;
        return rc;
    }
    have = malloc(sizeof *have * REF__MAX_PIECES);
    pieces = malloc(sizeof *pieces * (size_t)(v->n + 1));
    conf = malloc(sizeof *conf * (size_t)(v->n + 1));
    alt = malloc(sizeof *alt * (size_t)(v->n + 1));
    if (!have || !pieces || !conf || !alt) {
        rc = base_err_set(err, BASE_ENOMEM, "out of memory");
    } else {
        /* (aligned first: the cells to leave out are the engine's) */
        nh = ref__position(ref__game(r), have);
        ref__align(r, have, nh, v->pieces, v->n);
        rc = ref__observe(r, ref__drop_ungathered(r, v, &vf, pieces, conf, alt), err);
    }
    r->nglimpse = 0;
    free(have);
    free(pieces);
    free(conf);
    free(alt);
    return rc;
}

int ref_signal(ref_referee *r, int player, const rules_move *m, base_err *err)
{
    rules_verdict v;
    rules_status st;
    int rc = 0;
    rules_game_status(ref__game(r), &st);
    /* A signal in turn is certain, the cards on the table are not: a pass
     * the position forbids (a card in hand would fit) says a card
     * recorded short of certain was another, when one of the others it
     * could have been allows the pass. */
    if (player == st.to_move && rules_check(ref__game(r), player, m, &v) == 0 && !v.legal &&
        ref__revise_for_signal(r, player, m, &rc, err) && rc != 0)
        return rc;
    return ref__play(r, player, m, NULL, 0, DB_SRC_TYPED, &v, err);
}

int ref_undo(ref_referee *r, base_err *err)
{
    int seq, player, rc = 0;
    rules_move m;
    if (r->nhist <= 1)
        return base_err_set(err, BASE_ESTATE, "there is no move to take back");
    seq = r->hist_seq[r->nhist - 1];
    player = r->hist_player[r->nhist - 1];
    m = r->hist_move[r->nhist - 1];
    if (r->store && seq > 0) {
        /* The stored event stays, marked as taken back (never deleted). */
        db_match *dm = NULL;
        if ((rc = db_match_load(r->store, r->match_id, &dm, err)) != 0)
            return rc;
        if (seq <= dm->nevents) {
            db_event ev = dm->events[seq - 1];
            ev.legal = false;
            ev.rule = REF_RULE_TAKEN_BACK;
            ev.reason = "the players took this move back";
            ev.points = 0;
            rc = db_event_correct(r->store, r->match_id, seq, &ev, "take-back", err);
        }
        db_match_free(dm);
        if (rc < 0)
            return rc;
        rc = 0;
    }
    rules_game_free(r->hist[--r->nhist]);
    r->late_at = 0;
    r->ngather = 0;
    ref__forget_guesses(r, r->nhist);
    ref__forget_doubts(r, r->nhist);
    ref__emit(r, REF_EV_TAKEBACK, seq, player, &m, NULL, NULL, 0,
              "the last move was taken back.");
    return rc;
}

int ref_correct_last(ref_referee *r, const rules_move *m, base_err *err)
{
    return ref__correct(r, m, "misread corrected", NULL, err);
}

int ref_expected(const ref_referee *r, rules_piece *out, int cap)
{
    int n = rules_position(ref__game(r), out, cap);
    for (int i = 0; r->translate && i < n && i < cap; i++) {
        out[i].x = (int16_t)(out[i].x - r->dx);
        out[i].y = (int16_t)(out[i].y - r->dy);
    }
    return n;
}

/* ---- life cycle ---- */

static int ref__resume(ref_referee *r, base_err *err)
{
    db_match *dm = NULL;
    rules_move *m = malloc(sizeof *m);
    int rc;
    if (!m)
        return BASE_ENOMEM;
    if ((rc = db_match_load(r->store, r->match_id, &dm, err)) != 0) {
        free(m);
        return rc;
    }
    if (dm->info.state != DB_LIVE)
        rc = base_err_set(err, BASE_ESTATE, "match %lld is %s, not live: nothing to resume",
                          (long long)r->match_id, db_state_name(dm->info.state));
    if (strcmp(dm->info.game, r->game) != 0)
        rc = base_err_set(err, BASE_EINVAL, "match %lld is a %s match, not %s",
                          (long long)r->match_id, dm->info.game, r->game);
    for (int i = 0; rc == 0 && i < dm->nevents; i++) {
        const db_event *ev = &dm->events[i];
        cJSON *mj;
        rules_verdict v;
        rules_game *next = NULL;
        r->nevents++;
        if (!ev->legal)
            continue;
        mj = cJSON_Parse(ev->move);
        rc = rules_move_from_json(r->game, mj, m, err);
        cJSON_Delete(mj);
        if (rc == 0)
            rc = rules_game_clone(ref__game(r), &next);
        if (rc == 0 && (rc = rules_apply(next, ev->seat, m, &v)) == 0 && !v.legal)
            rc = base_err_set(err, BASE_EPARSE,
                              "match %lld event %d was stored as legal but is not: %s",
                              (long long)r->match_id, ev->seq, v.reason);
        if (rc == 0)
            rc = ref__push(r, next, ev->seq, ev->seat, m);
        else
            rules_game_free(next);
    }
    db_match_free(dm);
    free(m);
    return rc;
}

int ref_new(const ref_config *cfg, base_err *err, ref_referee **out)
{
    ref_referee *r;
    rules_game *g = NULL;
    int rc;

    *out = NULL;
    if (!cfg || !cfg->game)
        return base_err_set(err, BASE_EINVAL, "ref_new: no game");
    if ((rc = rules_game_new(cfg->game, cfg->header, err, &g)) != 0)
        return rc;
    if (!(r = calloc(1, sizeof *r))) {
        rules_game_free(g);
        return base_err_set(err, BASE_ENOMEM, "out of memory");
    }
    r->av.idx = -1;
    r->qdoubt = -1;
    snprintf(r->game, sizeof r->game, "%s", cfg->game);
    for (int i = 0; i < RULES_MAX_PLAYERS; i++) {
        const cJSON *name =
            cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(cfg->header, "players"), i);
        if (cJSON_IsString(name) && name->valuestring[0])
            snprintf(r->names[i], sizeof r->names[i], "%s", name->valuestring);
        else
            snprintf(r->names[i], sizeof r->names[i], "player %d", i + 1);
    }
    r->translate = strcmp(cfg->game, "qwirkle") == 0 || strcmp(cfg->game, "cards") == 0 ||
                   strcmp(cfg->game, "cubed") == 0;
    r->fixed = strcmp(cfg->game, "qwirkle") == 0 || strcmp(cfg->game, "cubed") == 0;
    r->keep = r->fixed || strcmp(cfg->game, "cards") == 0;
    r->store = cfg->store;
    r->match_id = cfg->match_id;
    r->min_conf = cfg->min_conf > 0 ? cfg->min_conf : 0.5f;
    r->on_event = cfg->on_event;
    r->ctx = cfg->ctx;
    r->caphist = 64;
    r->hist = malloc(sizeof *r->hist * 64);
    r->hist_seq = malloc(sizeof *r->hist_seq * 64);
    r->hist_player = malloc(sizeof *r->hist_player * 64);
    r->hist_move = malloc(sizeof *r->hist_move * 64);
    if (!r->hist || !r->hist_seq || !r->hist_player || !r->hist_move) {
        rules_game_free(g);
        ref_free(r);
        return base_err_set(err, BASE_ENOMEM, "out of memory");
    }
    ref__push(r, g, 0, -1, NULL);
    if (r->store && r->match_id > 0) {
        rc = ref__resume(r, err);
    } else if (r->store) {
        const cJSON *players = cJSON_GetObjectItemCaseSensitive(cfg->header, "players");
        const cJSON *opts = cJSON_GetObjectItemCaseSensitive(cfg->header, "options");
        const char *names[RULES_MAX_PLAYERS];
        char *hj = cfg->header ? cJSON_PrintUnformatted(cfg->header) : NULL;
        char *oj = opts ? cJSON_PrintUnformatted(opts) : NULL;
        int n = cJSON_GetArraySize(players);
        for (int i = 0; i < n && i < RULES_MAX_PLAYERS; i++)
            names[i] = cJSON_GetArrayItem(players, i)->valuestring;
        rc = n > 0 ? db_match_new(r->store, cfg->game, oj, hj, names, n, NULL, &r->match_id, err)
                   : base_err_set(err, BASE_EINVAL, "the header names no players");
        cJSON_free(hj);
        cJSON_free(oj);
    }
    if (rc != 0) {
        ref_free(r);
        return rc;
    }
    *out = r;
    return 0;
}

void ref_free(ref_referee *r)
{
    if (!r)
        return;
    for (int i = 0; i < r->nhist; i++)
        rules_game_free(r->hist[i]);
    free(r->hist);
    free(r->hist_seq);
    free(r->hist_player);
    free(r->hist_move);
    free(r->last_seen);
    ref__alert_free(r);
    free(r);
}
