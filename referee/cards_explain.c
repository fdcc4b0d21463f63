/* referee/cards_explain.c: what only cards need explained - a card laid
 * and taken with its square before any still table showed it, the cards
 * a capture took still lying on the table, cards recorded as one of
 * several they could have been (guesses) and revised when the table
 * proves them wrong, the cards glimpsed while a hand was away, and two
 * new cards after a question nobody answered. */
#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How likely the readings of the moving table made card p at its cell
 * (ref_glimpse): 0 when none saw it. */
float ref__glimpsed(const ref_referee *r, const rules_piece *p)
{
    for (int i = 0; i < r->nglimpse; i++)
        if (ref__same_place(&r->glimpse[i].p, p) && ref__same_piece(&r->glimpse[i].p, p))
            return r->glimpse[i].w;
    return 0;
}

/* Whether card c (at its cell), laid by player in g, leaves exactly the
 * table seen, the move into m; after: room for the position. */
static bool ref__fits_unseen(const rules_game *g, int player, const rules_piece *c,
                             const rules_piece *seen, int ns, rules_piece *after, rules_move *m)
{
    rules_game *trial = NULL;
    rules_verdict v;
    bool ok;
    rules_move_init(m, RULES_MOVE_PLACE);
    m->npieces = 1;
    m->pieces[0] = *c;
    if (rules_game_clone(g, &trial) != 0)
        return false;
    rules_apply(trial, player, m, &v);
    ok = v.legal && ref__same_position(after, ref__position(trial, after), seen, ns);
    rules_game_free(trial);
    return ok;
}

/* Cards: a card laid by player in game g and taken with the square it
 * completed in one go, so that no still table ever showed it: the table
 * lost three or more cards and gained none.  The cards the moving table
 * was glimpsed with at the cells near those gone (r's, likeliest first;
 * r may be NULL) are tried first, then each empty cell near them and each
 * card of the deck; those the rules allow there and that leave exactly
 * the table seen are the candidates (up to cap, in m[]).  Returns how
 * many there are. */
int ref__laid_and_taken(const ref_referee *r, const rules_game *g, const rules_piece *have,
                               int nh, const rules_piece *seen, int ns, int player, rules_move *m,
                               int cap)
{
    unsigned char gone[REF__MAX_PIECES] = {0}, used[REF__GLIMPSES] = {0};
    int ngone = 0, n = 0, ncells = 0;
    rules_piece *after = malloc(sizeof *after * REF__MAX_PIECES), cells[REF__MAX_PIECES];
    if (!after)
        return 0;
    for (int i = 0; i < nh; i++) {
        gone[i] = !ref__known(seen, ns, &have[i]);
        ngone += gone[i];
    }
    for (int j = 0; j < ns; j++)
        if (!ref__known(have, nh, &seen[j]))
            ngone = 0; /* something new is in view: not this */
    /* the cells a card may have been laid in: empty, near a card gone */
    for (int i = 0; ngone >= 3 && i < nh; i++)
        for (int dy = -2; gone[i] && dy <= 2; dy++)
            for (int dx = -2; dx <= 2 && ncells < REF__MAX_PIECES; dx++) {
                rules_piece cell;
                bool skip = false;
                memset(&cell, 0, sizeof cell);
                cell.owner = -1;
                cell.x = (int16_t)(have[i].x + dx);
                cell.y = (int16_t)(have[i].y + dy);
                for (int k = 0; k < nh && !skip; k++)
                    skip = ref__same_place(&have[k], &cell);
                for (int k = 0; k < ncells && !skip; k++)
                    skip = ref__same_place(&cells[k], &cell);
                if (!skip)
                    cells[ncells++] = cell;
            }
    /* glimpsed cards first, likeliest first */
    for (int round = 0; r && ncells > 0 && round < r->nglimpse && n < cap; round++) {
        int best = -1;
        bool near = false;
        for (int q = 0; q < r->nglimpse; q++)
            if (!used[q] && (best < 0 || r->glimpse[q].w > r->glimpse[best].w))
                best = q;
        used[best] = 1;
        for (int k = 0; k < ncells && !near; k++)
            near = ref__same_place(&cells[k], &r->glimpse[best].p);
        if (near && ref__fits_unseen(g, player, &r->glimpse[best].p, seen, ns, after, &m[n]))
            n++;
    }
    for (int k = 0; k < ncells && n < cap; k++)
        for (int rank = 1; rank <= 13 && n < cap; rank++)
            for (int suit = 0; suit < 4 && n < cap; suit++) {
                rules_piece c = cells[k];
                bool had = false;
                c.a = (uint8_t)rank;
                c.b = (uint8_t)suit;
                for (int q = 0; q < n && !had; q++)
                    had = ref__same_place(&m[q].pieces[0], &c) &&
                          ref__same_piece(&m[q].pieces[0], &c);
                if (!had && ref__fits_unseen(g, player, &c, seen, ns, after, &m[n]))
                    n++;
            }
    free(after);
    return n;
}

/* Cards: a move m that captured, judged while its square was still on
 * the table (a player lays the card, then takes the square: the camera
 * may see the table still in between).  True when seen is the position
 * after m (after) and the cards m captured, each at its place; those go
 * to r->gather, to be gathered. */
bool ref__ungathered(ref_referee *r, const rules_piece *have, int nh, const rules_move *m,
                            const rules_piece *after, int na, const rules_piece *seen, int ns)
{
    rules_piece got[REF__GATHER];
    int n = 0;
    if (strcmp(r->game, "cards") != 0 || m->type != RULES_MOVE_PLACE || m->npieces != 1)
        return false;
    for (int i = 0; i < na; i++)
        if (!ref__known(seen, ns, &after[i]))
            return false;
    for (int j = 0; j < ns; j++) {
        if (ref__known(after, na, &seen[j]))
            continue;
        if (n == REF__GATHER || !(ref__known(have, nh, &seen[j]) ||
                                  ref__known(m->pieces, 1, &seen[j])))
            return false;
        got[n++] = seen[j];
    }
    if (n == 0)
        return false;
    memcpy(r->gather, got, sizeof *got * (size_t)n);
    r->ngather = n;
    return true;
}

/* The reading v without the captured cards still waiting to be gathered
 * (r->gather), into vf (its arrays: room for v->n each); v itself when
 * there are none.  A cell of them seen empty has been gathered, and one
 * showing another card (in no reading the captured one) holds a new card:
 * either ends the wait for it.  A table back to the position before the
 * last move, the captured cards with it, is a take-back and keeps them. */
const ref_view *ref__drop_ungathered(ref_referee *r, const ref_view *v, ref_view *vf,
                                            rules_piece *pieces, float *conf, ref_alts *alt)
{
    unsigned char drop[REF__MAX_PIECES] = {0};
    rules_piece *prev = r->scratch;
    if (r->ngather == 0 || v->n > REF__MAX_PIECES)
        return v;
    if (r->nhist > 1) {
        int np = ref__position(r->hist[r->nhist - 2], prev);
        rules_piece *eng = malloc(sizeof *eng * (size_t)(v->n ? v->n : 1));
        bool back = false;
        if (eng) {
            ref__to_engine(r, v->pieces, eng, v->n);
            back = ref__same_position(prev, np, eng, v->n);
            free(eng);
        }
        if (back) {
            r->ngather = 0;
            return v;
        }
    }
    for (int g = 0; g < r->ngather;) {
        int k = -1;
        bool same = false;
        for (int i = 0; i < v->n && k < 0; i++) {
            rules_piece p;
            ref__to_engine(r, &v->pieces[i], &p, 1);
            if (ref__same_place(&p, &r->gather[g]))
                k = i;
        }
        for (int d = -1; k >= 0 && d < (v->alt ? v->alt[k].n : 0) && !same; d++) {
            rules_piece p = d < 0 ? v->pieces[k] : v->alt[k].p[d];
            p.x = r->gather[g].x;
            p.y = r->gather[g].y;
            same = ref__same_piece(&p, &r->gather[g]);
        }
        if (same) {
            drop[k] = 1;
            g++;
        } else {
            r->gather[g] = r->gather[--r->ngather]; /* gathered, or a new card there */
        }
    }
    *vf = *v;
    vf->n = 0;
    vf->pieces = pieces;
    vf->conf = v->conf ? conf : NULL;
    vf->alt = v->alt ? alt : NULL;
    for (int i = 0; i < v->n; i++) {
        if (drop[i])
            continue;
        pieces[vf->n] = v->pieces[i];
        if (v->conf)
            conf[vf->n] = v->conf[i];
        if (v->alt)
            alt[vf->n] = v->alt[i];
        vf->n++;
    }
    return vf;
}

/* Cards: an unsure card that stands once play goes on (r->pending) may be
 * gone already, taken with the square the next move completed (the card
 * laid with it gone too).  True when the pending move and then one legal
 * move of the next player, seen or laid and taken unseen, explain seen. */
bool ref__pending_taken(const ref_referee *r, const rules_piece *seen, int ns)
{
    rules_game *g = NULL;
    rules_piece *have = NULL;
    rules_verdict v;
    rules_status st;
    rules_move *m = NULL;
    int player, nh;
    bool ok = false;
    if (strcmp(r->game, "cards") != 0 || rules_game_clone(ref__game(r), &g) != 0)
        return false;
    rules_apply(g, r->pending_player, &r->pending, &v);
    rules_game_status(g, &st);
    have = malloc(sizeof *have * REF__MAX_PIECES);
    m = malloc(sizeof *m);
    if (v.legal && have && m) {
        nh = ref__position(g, have);
        ok = ref__legal_change_in(r, g, have, nh, seen, ns, m, &player) ||
             ref__laid_and_taken(r, g, have, nh, seen, ns, st.to_move, m, 1) > 0;
    }
    free(have);
    free(m);
    rules_game_free(g);
    return ok;
}

/* A new guess about the last legal move, with no other cards yet. */
static struct ref__guess *ref__new_guess(ref_referee *r)
{
    struct ref__guess *gs;
    if (r->nguess == REF__GUESSES) /* the oldest goes */
        memmove(r->guess, r->guess + 1, sizeof *r->guess * (REF__GUESSES - 1));
    else
        r->nguess++;
    gs = &r->guess[r->nguess - 1];
    gs->k = r->nhist - 1;
    gs->n = 0;
    gs->vote_was = 0;
    return gs;
}

/* Remembers the last legal move as the first of the nc cards laid and
 * taken unseen that fitted (cand[]), for ref__revise_guess. */
void ref__remember_guess(ref_referee *r, const rules_move *cand, int nc)
{
    struct ref__guess *gs = ref__new_guess(r);
    for (int c = 1; c < nc && gs->n < REF__GUESS_MAX; c++) {
        gs->vote[gs->n] = 0;
        gs->cand[gs->n++] = cand[c].pieces[0];
    }
}

/* Adds likelihood w of card p to guess gs's votes (a card not among its
 * candidates joins them when join). */
static void ref__vote(struct ref__guess *gs, const rules_piece *was, const rules_piece *p, float w,
                      bool join)
{
    if (p->c)
        return; /* (read face down: no card) */
    if (p->a == was->a && p->b == was->b) {
        gs->vote_was += w;
        return;
    }
    for (int i = 0; i < gs->n; i++)
        if (gs->cand[i].a == p->a && gs->cand[i].b == p->b) {
            gs->vote[i] += w;
            return;
        }
    if (join && gs->n < REF__GUESS_MAX) {
        gs->cand[gs->n] = *was;
        gs->cand[gs->n].a = p->a;
        gs->cand[gs->n].b = p->b;
        gs->vote[gs->n++] = w;
    }
}

/* Votes reading i of v (p as read, engine's cell) for guess gs: the card
 * as read with its confidence, each other reading with its share (the
 * likely enough join the candidates). */
static void ref__vote_reading(struct ref__guess *gs, const rules_piece *was, const rules_piece *p,
                              const ref_view *v, int i)
{
    float c = v->conf ? v->conf[i] : 1.0f;
    ref__vote(gs, was, p, c, c >= REF__ALT_FLOOR);
    for (int d = 0; v->alt && d < v->alt[i].n; d++)
        ref__vote(gs, was, &v->alt[i].p[d], v->alt[i].w[d] * c,
                  v->alt[i].w[d] >= REF__ALT_FLOOR);
}

/* Remembers the last legal move m, a card placed as read, when the card
 * was read short of certain: sim seed 7 read a card as the QC at
 * 0.50-0.75, recorded it, and called the real QC card-seen when it was
 * laid later; it read a JH as the QH at 0.51, and the still tables after
 * it as the JH.  Its other readings likely enough are the candidates,
 * and this reading's votes the first.  read: v's pieces in the engine's
 * cells, one for one. */
void ref__remember_read(ref_referee *r, const rules_move *m, const rules_piece *read,
                               const ref_view *v)
{
    for (int i = 0; i < v->n && v->conf && m->npieces == 1; i++) {
        if (!ref__same_place(&read[i], &m->pieces[0]))
            continue;
        if (v->conf[i] < REF__CERTAIN)
            ref__vote_reading(ref__new_guess(r), &m->pieces[0], &read[i], v, i);
        break;
    }
}

/* Replays the record's legal moves from k on, with move k replaced by
 * mk: chain[j] is the game after move k + j, v[j] its verdict.  False
 * (chain freed) when one of them is then illegal. */
bool ref__replay_from(const ref_referee *r, int k, const rules_move *mk, rules_game **chain,
                      rules_verdict *v)
{
    int n = r->nhist - k;
    bool ok = true;
    for (int j = 0; j < n; j++)
        chain[j] = NULL;
    for (int j = 0; ok && j < n; j++)
        ok = rules_game_clone(j ? chain[j - 1] : r->hist[k - 1], &chain[j]) == 0 &&
             rules_apply(chain[j], r->hist_player[k + j], j ? &r->hist_move[k + j] : mk,
                         &v[j]) == 0 &&
             v[j].legal;
    for (int j = 0; !ok && j < n; j++)
        rules_game_free(chain[j]);
    return ok;
}

/* Stores the replayed moves k.. (chain, v: ref__replay_from), move k now
 * mk (note: why), as corrections of their events, all or none. */
int ref__store_chain(ref_referee *r, int k, const rules_move *mk, const char *note,
                     rules_game *const *chain, const rules_verdict *v, base_err *err)
{
    int rc;
    if (!r->store)
        return 0;
    if ((rc = db_begin(r->store, err)) != 0)
        return rc;
    for (int j = 0; rc == 0 && k + j < r->nhist; j++)
        rc = ref__store_correction(
            r, r->hist_seq[k + j], r->hist_player[k + j], j ? &r->hist_move[k + j] : mk, &v[j],
            chain[j], j ? DB_SRC_CAMERA : DB_SRC_CORRECTION,
            j ? "a piece recorded earlier was revised" : note, err);
    if (rc == 0)
        return db_commit(r->store, err);
    db_rollback(r->store);
    return rc;
}

/* Guess gi's move with its card replaced by candidate c, every move
 * since replayed on it: when they all stay legal (and m, when not NULL,
 * is then legal for player), the record is corrected (note, for the
 * store), the guess forgotten and the players told (why: how it is
 * known).  True when so, or when *rc holds an error of the store. */
static bool ref__reguess(ref_referee *r, int gi, int c, int player, const rules_move *m,
                         const char *note, const char *why, int *rc, base_err *err)
{
    struct ref__guess *gs = &r->guess[gi];
    int k = gs->k, n = r->nhist - k;
    rules_move alt = r->hist_move[k];
    rules_game **chain;
    rules_verdict *v;
    bool replayed, fits;
    char from[8], to[8];
    if (n < 1)
        return false;
    chain = malloc(sizeof *chain * (size_t)n);
    v = malloc(sizeof *v * (size_t)(n + 1));
    alt.pieces[0].a = gs->cand[c].a;
    alt.pieces[0].b = gs->cand[c].b;
    fits = replayed = chain && v && ref__replay_from(r, k, &alt, chain, v);
    if (fits && m) {
        rules_game *trial = NULL;
        fits = rules_game_clone(chain[n - 1], &trial) == 0 &&
               rules_apply(trial, player, m, &v[n]) == 0 && v[n].legal;
        rules_game_free(trial);
    }
    if (fits)
        *rc = ref__store_chain(r, k, &alt, note, chain, v, err);
    if (!fits || *rc != 0) {
        for (int j = 0; replayed && j < n; j++)
            rules_game_free(chain[j]);
        free(chain);
        free(v);
        return *rc != 0;
    }
    for (int j = 0; j < n; j++) {
        rules_game_free(r->hist[k + j]);
        r->hist[k + j] = chain[j];
    }
    rules_card_name(r->hist_move[k].pieces[0].a, r->hist_move[k].pieces[0].b, from);
    rules_card_name(alt.pieces[0].a, alt.pieces[0].b, to);
    r->hist_move[k] = alt;
    memmove(gs, gs + 1, sizeof *gs * (size_t)(r->nguess - gi - 1));
    r->nguess--;
    /* the corrected move's points, the scores as they are now */
    memcpy(v[0].scores, v[n - 1].scores, sizeof v[0].scores);
    ref__emit(r, REF_EV_CORRECTED, r->hist_seq[k], r->hist_player[k], &alt, &v[0], NULL, 0,
              "the card recorded as %s was %s %s; it now scores %d, and the scores are "
              "corrected.",
              from, to, why, v[0].points);
    free(chain);
    free(v);
    return true;
}

/* Move m by player breaks the rules, and it lays a card recorded earlier
 * as one of several it could have been (r->guess: laid and taken unseen,
 * or read short of certain): a deck holds each card once, so that guess
 * was wrong.  Left alone it would call every later showing of the card
 * illegal (sim seed 7: the 3C recorded for a card taken at once, the real
 * 3C laid three moves later) and the match would be lost from there.  The
 * other cards it could have been are tried in its place, likeliest
 * first, with every move since replayed on it; the first with which they
 * all stay legal and m becomes legal replaces the guess: its stored event
 * and those after it (their scores and positions) are corrected in one
 * transaction and the players are told.  True when so (m is then for the
 * caller to play), or when *rc holds an error of the store. */
bool ref__revise_guess(ref_referee *r, int player, const rules_move *m, int *rc,
                              base_err *err)
{
    for (int gi = r->nguess - 1; gi >= 0; gi--) {
        const rules_piece *was = &r->hist_move[r->guess[gi].k].pieces[0];
        char from[8], why[40];
        bool laid = false;
        for (int i = 0; i < m->npieces && !laid; i++)
            laid = m->pieces[i].a == was->a && m->pieces[i].b == was->b;
        if (!laid)
            continue;
        snprintf(why, sizeof why, "(the %s is being laid now)",
                 rules_card_name(was->a, was->b, from));
        for (int c = 0; c < r->guess[gi].n; c++)
            if (ref__reguess(r, gi, c, player, m,
                             "the card recorded was another: the one recorded was laid later", why,
                             rc, err))
                return true;
        if (*rc != 0)
            return true;
    }
    return false;
}

/* A signal by the player to move (a pass) that the position forbids: the
 * cards recorded short of certain are tried, newest first, each of the
 * others it could have been in its place (the moves since replayed): the
 * first with which they stay legal and the signal is legal replaces it,
 * as ref__revise_guess.  True when so, or when *rc holds an error. */
bool ref__revise_for_signal(ref_referee *r, int player, const rules_move *m, int *rc,
                            base_err *err)
{
    for (int gi = r->nguess - 1; gi >= 0; gi--) {
        for (int c = 0; c < r->guess[gi].n; c++)
            if (ref__reguess(r, gi, c, player, m,
                             "the card recorded was another: a signal in turn showed it",
                             "(the signal in turn allows only that)", rc, err))
                return true;
        if (*rc != 0)
            return true;
    }
    return false;
}

/* Cards recorded short of certain and still on the table, read again on
 * this still table (seen: as read, the engine's cells): each guess's
 * votes take this reading's; when the card they favour most leads the
 * recorded one by REF__REREAD_LEAD, the move is revised to it, provided
 * every move since stays legal with it.  (Sim seed 7 recorded a KS as
 * the QS at 0.5 and read it as the KS on the five still tables after,
 * each time with the QS a close second: short of that lead.)  Only the
 * favourite: when the moves since rule it out (seed 7: the QH read at a
 * cell where the QH was recorded, wrongly, at another), the runner-up
 * is no better a guess than the card recorded.  True when a move was
 * revised, or when *rc holds an error of the store. */
bool ref__reread(ref_referee *r, const rules_piece *have, int nh, const rules_piece *seen,
                        int ns, const ref_view *v, int *rc, base_err *err)
{
    bool revised = false;
    for (int gi = r->nguess - 1; gi >= 0 && *rc == 0; gi--) {
        struct ref__guess *gs = &r->guess[gi];
        const rules_piece *was = &r->hist_move[gs->k].pieces[0];
        int j = -1, best = -1;
        if (r->hist_move[gs->k].type != RULES_MOVE_PLACE || !ref__known(have, nh, was))
            continue; /* (captured since: nothing to read) */
        for (int i = 0; i < ns && j < 0; i++)
            if (ref__same_place(&seen[i], was))
                j = i;
        if (j < 0)
            continue;
        ref__vote_reading(gs, was, &seen[j], v, j);
        for (int c = 0; c < gs->n; c++)
            if (best < 0 || gs->vote[c] > gs->vote[best])
                best = c;
        if (best >= 0 && gs->vote[best] >= gs->vote_was + REF__REREAD_LEAD &&
            ref__reguess(r, gi, best, -1, NULL, "the still tables since read the card as another",
                         "(read so on the table since)", rc, err))
            revised = true;
    }
    return revised;
}

/* Cards: two new cards after a question nobody answered.  A card read
 * unsure, or so that no reading of it was legal, was asked about; nobody
 * answered, and the next player laid a card of their own: from then on
 * every still table holds two new cards, which no one move explains, and
 * the match was lost (sim seed 8: a JD read as the QD at 0.30 beside the
 * 10H, the 3H laid next).  When one of the two (a) was on the table
 * asked about and the other (b) is new since, read surely, and not laid
 * from the seat to move: a, as read now or as its likeliest other reading
 * (0.2 of its own or more), is the move of the player to move and b the
 * next player's, when both are legal and leave the table seen (captures
 * and all), and no other reading of a that does is half as likely.  a
 * is then recorded as a guess like any card read short of certain.  True
 * when so (the moves played), or when *rc holds an error. */
bool ref__two_moves(ref_referee *r, const rules_piece *have, int nh, const rules_piece *seen,
                           int ns, const ref_view *v, int *rc, base_err *err)
{
    int ia = -1, ib = -1, nnew = 0, best = -1;
    float wbest = 0, wnext = 0;
    rules_status st;
    rules_move ma, mb;
    rules_piece *want; /* the table seen, with a as the reading tried */
    if (strcmp(r->game, "cards") != 0 || r->state == REF__OK || !v->conf)
        return false;
    for (int j = 0; j < ns; j++) {
        bool before = false;
        if (ref__known(have, nh, &seen[j]))
            continue;
        nnew++;
        for (int i = 0; i < r->nlast_seen && !before; i++)
            before = ref__same_place(&r->last_seen[i], &seen[j]) &&
                     !ref__known(have, nh, &r->last_seen[i]);
        if (before)
            ia = j;
        else
            ib = j;
    }
    if (nnew != 2 || ia < 0 || ib < 0 || seen[ib].c || v->conf[ib] < r->min_conf)
        return false;
    rules_game_status(ref__game(r), &st);
    if (v->mover >= 0 && v->mover == st.to_move)
        return false; /* the hand came from the same seat: not the next turn */
    if (!(want = malloc(sizeof *want * (size_t)ns)))
        return false;
    memcpy(want, seen, sizeof *want * (size_t)ns);
    rules_move_init(&mb, RULES_MOVE_PLACE);
    mb.npieces = 1;
    mb.pieces[0] = seen[ib];
    /* a as read, then its other readings likely enough */
    for (int d = 0; d <= (v->alt ? v->alt[ia].n : 0); d++) {
        float w = d ? v->alt[ia].w[d - 1] : 1;
        rules_game *g = NULL;
        rules_verdict va, vb;
        rules_status st1;
        rules_move m1;
        bool ok;
        if (w < REF__ALT_FLOOR)
            continue;
        rules_move_init(&m1, RULES_MOVE_PLACE);
        m1.npieces = 1;
        ref__pick(&m1.pieces[0], &seen[ia], v->alt ? &v->alt[ia] : NULL, d);
        if (m1.pieces[0].c || rules_game_clone(ref__game(r), &g) != 0)
            continue;
        ok = rules_apply(g, st.to_move, &m1, &va) == 0 && va.legal;
        if (ok) {
            rules_game_status(g, &st1);
            ok = rules_apply(g, st1.to_move, &mb, &vb) == 0 && vb.legal;
        }
        if (ok) {
            want[ia] = m1.pieces[0];
            ok = ref__same_position(r->scratch, ref__position(g, r->scratch), want, ns);
        }
        rules_game_free(g);
        if (!ok)
            continue;
        if (best < 0 || w > wbest) {
            wnext = best < 0 ? wnext : fmaxf(wnext, wbest);
            best = d;
            wbest = w;
            ma = m1;
        } else {
            wnext = fmaxf(wnext, w);
        }
    }
    free(want);
    if (best < 0 || wnext * 2 > wbest)
        return false;
    {
        rules_verdict va, vb;
        rules_status st1;
        if ((*rc = ref__play(r, st.to_move, &ma, NULL, 0, DB_SRC_CAMERA, &va, err)) != 0)
            return true;
        if (v->conf[ia] < REF__CERTAIN || best > 0) {
            /* a guess: what else it may be, for ref__revise_guess */
            struct ref__guess *gs = ref__new_guess(r);
            ref__vote_reading(gs, &ma.pieces[0], &seen[ia], v, ia);
        }
        rules_game_status(ref__game(r), &st1);
        r->state = REF__OK;
        r->has_pending = false;
        *rc = ref__play(r, st1.to_move, &mb, v->jpeg, v->jpeg_len, DB_SRC_CAMERA, &vb, err);
    }
    return true;
}

/* Keeps card p (engine cell) glimpsed with likelihood w: the most any
 * glimpse gave it; when full, in place of the least likely. */
static void ref__glimpse_add(ref_referee *r, const rules_piece *p, float w)
{
    int low = 0;
    for (int i = 0; i < r->nglimpse; i++) {
        if (ref__same_place(&r->glimpse[i].p, p) && ref__same_piece(&r->glimpse[i].p, p)) {
            r->glimpse[i].w = fmaxf(r->glimpse[i].w, w);
            return;
        }
        if (r->glimpse[i].w < r->glimpse[low].w)
            low = i;
    }
    if (r->nglimpse < REF__GLIMPSES)
        low = r->nglimpse++;
    else if (r->glimpse[low].w >= w)
        return;
    r->glimpse[low].p = *p;
    r->glimpse[low].w = w;
}

void ref_glimpse(ref_referee *r, const ref_view *v)
{
    rules_piece *have;
    int nh, dx = r->dx, dy = r->dy;
    if (strcmp(r->game, "cards") != 0 || !v || v->n <= 0 || v->n > REF__MAX_PIECES ||
        !(have = malloc(sizeof *have * REF__MAX_PIECES)))
        return;
    nh = ref__position(ref__game(r), have);
    /* lined up by the committed cards it shows, most of them: a reading
     * off by a cell would teach the wrong cells */
    if (nh > 0 && 2 * ref__shift(r, have, nh, v->pieces, v->n, &dx, &dy) < nh) {
        free(have);
        return;
    }
    for (int i = 0; i < v->n; i++) {
        rules_piece p = v->pieces[i];
        float c = v->conf ? fmaxf(v->conf[i], 0.02f) : 1.0f;
        bool filled = false;
        p.x = (int16_t)(p.x + dx);
        p.y = (int16_t)(p.y + dy);
        for (int j = 0; j < nh && !filled; j++)
            filled = ref__same_place(&have[j], &p);
        if (filled || p.c) /* (a card back says nothing of the card) */
            continue;
        ref__glimpse_add(r, &p, c);
        for (int a = 0; v->alt && a < v->alt[i].n; a++) {
            rules_piece q = v->alt[i].p[a];
            q.x = p.x;
            q.y = p.y;
            ref__glimpse_add(r, &q, c * v->alt[i].w[a]);
        }
    }
    free(have);
}

