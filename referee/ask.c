/* referee/ask.c: a doubtful reading is a question, never an accusation.
 *
 * Before an illegal move is announced the referee asks whether the
 * verdict rests on doubt (ref__doubtful): a new piece read below
 * REF__ACCUSE, or another reading of one of them, with real odds, that
 * makes the move legal.  Then the players are asked about that piece
 * (ref__ask: "Is this cube at (13,13) a purple clover or a purple
 * diamond?") with one-tap answers; an answer (ref_answer) is stored as a
 * correction and the still table judged again with the piece as
 * answered.  When nobody answers and play goes on, the table is
 * explained from the last committed position (ref__moved_on): the
 * likeliest reading of the piece asked about, across the still tables
 * that showed it, with which it and what was laid since are legal moves
 * in turn, is recorded; the same rejected reading never makes a second
 * verdict. */
#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void ref__with(const ref_referee *r, int k, const rules_piece *p, rules_move *out);

/* ---- the alert's view ---- */

void ref__alert_free(ref_referee *r)
{
    free(r->av.pieces);
    free(r->av.conf);
    free(r->av.alt);
    free(r->av.x_mm);
    free(r->av.y_mm);
    memset(&r->av, 0, sizeof r->av);
    r->av.idx = -1;
}

void ref__viewbuf_free(struct ref__viewbuf *buf)
{
    free(buf->pieces);
    free(buf->conf);
    free(buf->alt);
    free(buf->x_mm);
    free(buf->y_mm);
    memset(buf, 0, sizeof *buf);
}

/* *out = a copy of v without its piece skip (-1: all of it), in buf's
 * arrays (ref__viewbuf_free): confidences 1 where v has none, no other
 * readings where v has none, places where v has them. */
int ref__view_copy(const ref_view *v, int skip, ref_view *out, struct ref__viewbuf *buf)
{
    size_t n = (size_t)(v->n > 1 ? v->n : 1);
    bool xy = v->x_mm && v->y_mm;
    int j = 0;
    memset(buf, 0, sizeof *buf);
    *out = *v;
    buf->pieces = malloc(sizeof *buf->pieces * n);
    buf->conf = malloc(sizeof *buf->conf * n);
    buf->alt = calloc(n, sizeof *buf->alt);
    if (xy) {
        buf->x_mm = malloc(sizeof *buf->x_mm * n);
        buf->y_mm = malloc(sizeof *buf->y_mm * n);
    }
    if (!buf->pieces || !buf->conf || !buf->alt || (xy && (!buf->x_mm || !buf->y_mm))) {
        ref__viewbuf_free(buf);
        return BASE_ENOMEM;
    }
    for (int i = 0; i < v->n; i++) {
        if (i == skip)
            continue;
        buf->pieces[j] = v->pieces[i];
        buf->conf[j] = v->conf ? v->conf[i] : 1.0f;
        if (v->alt)
            buf->alt[j] = v->alt[i];
        if (xy) {
            buf->x_mm[j] = v->x_mm[i];
            buf->y_mm[j] = v->y_mm[i];
        }
        j++;
    }
    out->pieces = buf->pieces;
    out->conf = buf->conf;
    out->alt = buf->alt;
    out->x_mm = buf->x_mm;
    out->y_mm = buf->y_mm;
    out->n = j;
    return 0;
}

/* Keeps the still table seen[0..ns) (engine cells; v's confidences,
 * other readings and places, index for index) as the alert's view; idx
 * is the piece asked about (-1: none). */
int ref__keep_view(ref_referee *r, const rules_piece *seen, int ns, const ref_view *v, int idx)
{
    ref_view in = *v, copy;
    struct ref__viewbuf buf;
    int rc;
    ref__alert_free(r);
    in.pieces = seen;
    in.n = ns;
    if ((rc = ref__view_copy(&in, -1, &copy, &buf)) != 0)
        return rc;
    r->av.pieces = buf.pieces;
    r->av.conf = buf.conf;
    r->av.alt = buf.alt;
    r->av.x_mm = buf.x_mm;
    r->av.y_mm = buf.y_mm;
    r->av.n = ns;
    r->av.mover = v->mover;
    r->av.idx = idx;
    r->av.dx = r->dx;
    r->av.dy = r->dy;
    r->av.told = false;
    return 0;
}

/* ---- asking ---- */

void ref__question_clear(ref_referee *r) { r->q.id = 0; }

/* What a piece is, without where: "a purple clover", "the QH". */
static void ref__what(const char *game, const rules_piece *p, char *buf, size_t n)
{
    char *at;
    rules_piece_text(game, p, buf, n);
    if ((at = strstr(buf, " at (")) != NULL)
        *at = '\0';
}

/* ... and without its article, for a button: "purple clover", "QH". */
static void ref__label(const char *game, const rules_piece *p, char *buf, size_t n)
{
    char what[160];
    const char *s = what;
    ref__what(game, p, what, sizeof what);
    if (!strncmp(s, "a ", 2))
        s += 2;
    else if (!strncmp(s, "an ", 3))
        s += 3;
    else if (!strncmp(s, "the ", 4))
        s += 4;
    snprintf(buf, n, "%s", s);
}

static const char *ref__noun(const char *game)
{
    return !strcmp(game, "qwirkle") ? "cube" : !strcmp(game, "cards") ? "card" : "piece";
}

/* Asks about piece i of the still table seen[0..ns) (engine cells; v's
 * index for index): its reading and the likeliest others the classifier
 * gives it (REF_MAX_ANSWERS in all), and "no piece there" when none.
 * have[0..nh) is the committed position (to put back); after, when not
 * NULL, is said after the question.  The table is kept as the alert's
 * view and remembered as the reading alerted about. */
static int ref__ask_about(ref_referee *r, const rules_piece *read, const ref_alts *alt,
                          const ref_view *v, int i, const rules_piece *seen, int ns,
                          const rules_piece *have, int nh, bool none, const char *after);

int ref__ask(ref_referee *r, const ref_view *v, int i, const rules_piece *seen, int ns,
             const rules_piece *have, int nh, bool none, const char *after)
{
    r->qdoubt = -1;
    return ref__ask_about(r, &seen[i], v->alt ? &v->alt[i] : NULL, v, i, seen, ns, have, nh, none,
                          after);
}

/* ref__ask about piece *read (at seen[i]'s cell), its other readings alt
 * (NULL: none). */
static int ref__ask_about(ref_referee *r, const rules_piece *read, const ref_alts *alt,
                          const ref_view *v, int i, const rules_piece *seen, int ns,
                          const rules_piece *have, int nh, bool none, const char *after)
{
    ref_question *q = &r->q;
    ref_event ev;
    float w[REF_MAX_ANSWERS], sum = 1;
    char what[REF_MAX_ANSWERS][160];
    size_t len;
    int rc;
    memset(q, 0, sizeof *q);
    q->read = *read;
    q->answer[0] = *read;
    w[0] = 1;
    q->nanswers = 1;
    /* the others, likeliest first */
    for (int a = 0; alt && a < alt->n; a++) {
        int k = q->nanswers;
        rules_piece p = alt->p[a];
        p.x = read->x;
        p.y = read->y;
        if (k == REF_MAX_ANSWERS) {
            if (alt->w[a] <= w[k - 1])
                continue;
            k--;
        } else {
            q->nanswers++;
        }
        while (k > 1 && w[k - 1] < alt->w[a]) {
            q->answer[k] = q->answer[k - 1];
            w[k] = w[k - 1];
            k--;
        }
        q->answer[k] = p;
        w[k] = alt->w[a];
    }
    for (int k = 1; k < q->nanswers; k++)
        sum += w[k];
    for (int k = 0; k < q->nanswers; k++) {
        q->p[k] = w[k] / sum;
        ref__label(r->game, &q->answer[k], q->label[k], sizeof q->label[k]);
        ref__what(r->game, &q->answer[k], what[k], sizeof what[k]);
    }
    q->none = none;
    if (v->x_mm && v->y_mm) {
        q->has_xy = true;
        q->x_mm = v->x_mm[i];
        q->y_mm = v->y_mm[i];
    }
    len = (size_t)snprintf(q->text, sizeof q->text, "Is this %s at (%d,%d) ", ref__noun(r->game),
                           read->x, read->y);
    for (int k = 0; k < q->nanswers && len < sizeof q->text; k++)
        len += (size_t)snprintf(q->text + len, sizeof q->text - len, "%s%s",
                                k == 0                               ? ""
                                : k + 1 == q->nanswers && !none ? " or "
                                                                     : ", ",
                                what[k]);
    if (len < sizeof q->text)
        snprintf(q->text + len, sizeof q->text - len, "%s?",
                 none ? (q->nanswers > 1 ? ", or is nothing there" : ", or is nothing there")
                      : "");
    if ((rc = ref__remember(r, seen, ns)) != 0 || (rc = ref__keep_view(r, seen, ns, v, i)) != 0)
        return rc;
    q->id = ++r->nquestions;
    r->state = REF__CONFIRM;
    memset(&ev, 0, sizeof ev);
    ev.kind = REF_EV_CONFIRM;
    ev.player = -1;
    ev.restore = have;
    ev.nrestore = nh;
    ev.question = q;
    snprintf(ev.text, sizeof ev.text, "%s%s%s", q->text, after ? " " : "", after ? after : "");
    if (r->on_event)
        r->on_event(r->ctx, &ev);
    return 0;
}

bool ref_question_open(const ref_referee *r, ref_question *out)
{
    if (!r || r->q.id == 0)
        return false;
    if (out)
        *out = r->q;
    return true;
}

int ref_answer(ref_referee *r, int id, int answer, base_err *err)
{
    ref_question q = r->q;
    ref_view av, v;
    struct ref__viewbuf buf = {0};
    char field[64], before[160], after[160], note[96];
    int rc, last = r->last_seq, idx = r->av.idx, qdoubt = r->qdoubt, seq_k = 0;
    if (q.id == 0 || id != q.id)
        return q.id ? base_err_set(err, BASE_ESTATE,
                                   "question %d is not open (question %d is: %s)", id, q.id, q.text)
                    : base_err_set(err, BASE_ESTATE, "question %d is not open (none is)", id);
    if (answer == REF_ANSWER_NONE ? !q.none : answer < 0 || answer >= q.nanswers)
        return base_err_set(err, BASE_ERANGE,
                            "question %d has answers 0 to %d%s, not %d", id, q.nanswers - 1,
                            q.none ? " and -1 (nothing there)" : "", answer);
    if (idx < 0 || idx >= r->av.n)
        return base_err_set(err, BASE_ESTATE, "question %d: its table was not kept", id);
    /* the table as it was, back in the reading's cells, the piece as
     * answered (sure now: the players said so) or gone */
    memset(&av, 0, sizeof av);
    av.pieces = r->av.pieces;
    av.conf = r->av.conf;
    av.alt = r->av.alt;
    av.x_mm = r->av.x_mm;
    av.y_mm = r->av.y_mm;
    av.n = r->av.n;
    if ((rc = ref__view_copy(&av, answer == REF_ANSWER_NONE ? idx : -1, &v, &buf)) != 0) {
        rc = base_err_set(err, rc, "out of memory");
        goto done;
    }
    if (answer != REF_ANSWER_NONE) {
        buf.pieces[idx] = q.answer[answer];
        buf.conf[idx] = 1.0f;
        buf.alt[idx].n = 0;
    }
    for (int i = 0; i < v.n; i++) {
        buf.pieces[i].x = (int16_t)(buf.pieces[i].x - r->av.dx);
        buf.pieces[i].y = (int16_t)(buf.pieces[i].y - r->av.dy);
    }
    /* (the hand's side voted for the stretch before the question, whose
     * other pieces may have been recorded since: an answer says what a
     * piece is, not whose turn it was) */
    v.mover = -1;
    ref__question_clear(r);
    r->qdoubt = -1;
    if (qdoubt >= 0) {
        /* a piece recorded earlier: its move corrected first */
        seq_k = r->qd.k > 0 && r->qd.k < r->nhist ? r->hist_seq[r->qd.k] : 0;
        if ((rc = ref__settle_committed(r, &q.answer[answer], q.id, err)) != 0)
            goto done;
    }
    r->state = REF__OK; /* judged afresh, not as the reading alerted about */
    r->has_pending = false;
    r->unsure = r->unplaced = false;
    if ((rc = ref__observe(r, &v, err)) != 0)
        goto done;
    /* the answer is kept beside the event it settled */
    snprintf(field, sizeof field, "piece (%d,%d)", q.read.x, q.read.y);
    ref__label(r->game, &q.read, before, sizeof before);
    snprintf(before + strlen(before), sizeof before - strlen(before), " (read at %.2f)",
             (double)q.p[0]);
    if (answer == REF_ANSWER_NONE)
        snprintf(after, sizeof after, "nothing there");
    else
        ref__label(r->game, &q.answer[answer], after, sizeof after);
    snprintf(note, sizeof note, "answer to question %d", q.id);
    if (r->store && qdoubt >= 0 && answer == 0 && seq_k > 0)
        rc = db_correction_add(r->store, r->match_id, seq_k, field, before, after, note, err);
    else if (r->store && qdoubt < 0 && r->last_seq > last)
        rc = db_correction_add(r->store, r->match_id, r->last_seq, field, before, after, note,
                               err);
done:
    ref__viewbuf_free(&buf);
    return rc;
}

/* ---- doubt ---- */

/* Whether an illegal verdict on the change from have to seen would rest
 * on doubt: a new piece read below REF__ACCUSE, or another reading of one
 * new piece that the classifier gives REF__ODDS_REAL or more against the
 * reading and with which the change is legal.  *ask: the piece to ask
 * about (the one whose other reading is legal, the likeliest such; else
 * the least sure). */
bool ref__doubtful(ref_referee *r, const rules_piece *have, int nh, const rules_piece *seen,
                   int ns, const ref_view *v, int *ask)
{
    rules_piece *trial;
    rules_move *m;
    float best_w = 0, least = 2;
    int least_i = -1, player;
    *ask = -1;
    if (!v->conf)
        return false;
    trial = malloc(sizeof *trial * (size_t)(ns > 0 ? ns : 1));
    m = malloc(sizeof *m);
    if (!trial || !m) {
        free(trial);
        free(m);
        return false; /* (judged as read: no worse than before) */
    }
    memcpy(trial, seen, sizeof *trial * (size_t)ns);
    for (int i = 0; i < ns; i++) {
        if (ref__known(have, nh, &seen[i]))
            continue;
        if (v->conf[i] < least) {
            least = v->conf[i];
            least_i = i;
        }
        for (int a = 0; v->alt && a < v->alt[i].n; a++) {
            if (v->alt[i].w[a] < REF__ODDS_REAL || v->alt[i].w[a] <= best_w)
                continue;
            ref__pick(&trial[i], &seen[i], &v->alt[i], a + 1);
            if (ref__legal_change(r, have, nh, trial, ns, m, &player)) {
                best_w = v->alt[i].w[a];
                *ask = i;
            }
            trial[i] = seen[i];
        }
    }
    if (*ask < 0 && least < REF__ACCUSE)
        *ask = least_i;
    free(trial);
    free(m);
    return *ask >= 0;
}

/* ---- the table moved on ---- */

/* How likely reading p of a cell was in a still table that read it as
 * read (conf) with other readings alt: the classifier's odds, a reading
 * it did not offer REF__ODDS_NONE. */
static double ref__chance(const rules_piece *p, const rules_piece *read, float conf,
                          const ref_alts *alt)
{
    double c = fmax(conf, REF__ODDS_NONE);
    if (ref__same_piece(p, read))
        return c;
    for (int a = 0; alt && a < alt->n; a++)
        if (ref__same_piece(p, &alt->p[a]))
            return fmax(c * alt->w[a], REF__ODDS_NONE);
    return REF__ODDS_NONE;
}

/* The likeliest reading of the alert's new pieces A (r->av) with which,
 * in game g (position have[0..nh)), A is a legal move of the player to
 * move and the table seen after it a legal move of the next: into *ma,
 * true when it is REF__MOVED_LEAD times likelier than the next such.
 * Each reading of A is weighed across the two still tables (each cell's
 * chances then and now multiplied; the REF__MOVED_OPTIONS likeliest
 * readings of each cell are tried).  False too when A is not all on the
 * table or nothing more is (*applies false). */
static bool ref__moved_on_in(ref_referee *r, const rules_game *g, const rules_piece *have, int nh,
                             const rules_piece *seen, int ns, const ref_view *v, rules_move *ma,
                             bool *applies)
{
    int cell[RULES_MAX_MOVE_PIECES], at[RULES_MAX_MOVE_PIECES], na = 0, nopt[RULES_MAX_MOVE_PIECES];
    rules_piece opt[RULES_MAX_MOVE_PIECES][REF__MOVED_OPTIONS];
    double like[RULES_MAX_MOVE_PIECES][REF__MOVED_OPTIONS], l1 = 0, l2 = 0;
    long ncombo = 1, best = -1;
    bool more = false;
    rules_piece *pos, *rest;
    rules_status st;
    *applies = false;
    /* A: the alert's new pieces (at cells the position leaves empty),
     * each still on the table */
    for (int i = 0; i < r->av.n; i++) {
        int j;
        bool filled = false;
        for (j = 0; j < nh && !filled; j++)
            filled = ref__same_place(&have[j], &r->av.pieces[i]);
        if (filled)
            continue;
        if (na == RULES_MAX_MOVE_PIECES)
            return false;
        for (j = 0; j < ns && !ref__same_place(&seen[j], &r->av.pieces[i]); j++)
            ;
        if (j == ns)
            return false; /* taken away: not moved on */
        cell[na] = i;
        at[na++] = j;
    }
    for (int j = 0; j < ns && !more; j++) {
        bool in_a = false;
        for (int k = 0; k < na && !in_a; k++)
            in_a = at[k] == j;
        more = !in_a && !ref__known(have, nh, &seen[j]);
        for (int i = 0; more && i < nh; i++)
            more = !ref__same_place(&have[i], &seen[j]);
    }
    if (na == 0 || !more)
        return false;
    *applies = true;
    /* each cell's readings, then and now, likeliest first */
    for (int k = 0; k < na; k++) {
        const int i = cell[k], j = at[k];
        rules_piece cands[2 + 2 * REF_MAX_ALT];
        int nc = 0;
        cands[nc++] = r->av.pieces[i];
        for (int a = 0; a < r->av.alt[i].n; a++)
            cands[nc++] = r->av.alt[i].p[a];
        cands[nc++] = seen[j];
        for (int a = 0; v->alt && a < v->alt[j].n; a++)
            cands[nc++] = v->alt[j].p[a];
        nopt[k] = 0;
        for (int c = 0; c < nc; c++) {
            rules_piece p = cands[c];
            double l;
            int t = 0;
            bool dup = false;
            p.x = seen[j].x;
            p.y = seen[j].y;
            for (t = 0; t < nopt[k] && !dup; t++)
                dup = ref__same_piece(&opt[k][t], &p);
            if (dup)
                continue;
            l = ref__chance(&p, &r->av.pieces[i], r->av.conf[i], &r->av.alt[i]) *
                ref__chance(&p, &seen[j], v->conf ? v->conf[j] : 1.0f, v->alt ? &v->alt[j] : NULL);
            /* insert, likeliest first, the REF__MOVED_OPTIONS likeliest kept */
            if (nopt[k] < REF__MOVED_OPTIONS)
                t = nopt[k]++;
            else if (like[k][REF__MOVED_OPTIONS - 1] < l)
                t = REF__MOVED_OPTIONS - 1;
            else
                continue;
            for (; t > 0 && like[k][t - 1] < l; t--) {
                opt[k][t] = opt[k][t - 1];
                like[k][t] = like[k][t - 1];
            }
            opt[k][t] = p;
            like[k][t] = l;
        }
        ncombo *= nopt[k];
    }
    pos = malloc(sizeof *pos * REF__MAX_PIECES);
    rest = malloc(sizeof *rest * (size_t)ns);
    if (!pos || !rest) {
        free(pos);
        free(rest);
        return false;
    }
    rules_game_status(g, &st);
    for (long c = 0; c < ncombo; c++) {
        double l = 1;
        long d = c;
        rules_game *ga = NULL;
        rules_verdict va;
        rules_move m, mb;
        int player;
        rules_move_init(&m, RULES_MOVE_PLACE);
        for (int k = 0; k < na; k++) {
            int o = (int)(d % nopt[k]);
            d /= nopt[k];
            l *= like[k][o];
            m.pieces[m.npieces++] = opt[k][o];
        }
        if (l <= l2)
            continue;
        if (rules_game_clone(g, &ga) != 0)
            break;
        rules_apply(ga, st.to_move, &m, &va);
        /* the rest, as read, after A: a legal move of the next player */
        if (va.legal) {
            int nafter = ref__position(ga, pos);
            memcpy(rest, seen, sizeof *rest * (size_t)ns);
            for (int k = 0; k < na; k++)
                rest[at[k]] = m.pieces[k];
            if (ref__legal_change_in(r, ga, pos, nafter, rest, ns, &mb, &player)) {
                if (l > l1) {
                    l2 = l1;
                    l1 = l;
                    best = c;
                    *ma = m;
                } else {
                    l2 = l;
                }
            }
        }
        rules_game_free(ga);
    }
    free(pos);
    free(rest);
    return best >= 0 && l1 >= REF__MOVED_LEAD * l2;
}

/* After a question or an illegal verdict about the new pieces A of the
 * alert's view, the table has moved on: it shows A's cells and more new
 * pieces (B).  The likeliest reading of A with which A and then B are
 * legal moves in turn (ref__moved_on_in) is recorded, and the caller
 * judges B as usual.  When the open question is about a piece recorded
 * earlier (read unsurely then) and no reading of A fits as things stand,
 * each of that piece's other readings with real odds is tried in its
 * place (the moves since replayed): the one with which the table is
 * explained, clearly, settles the question (its move corrected) and then
 * A is recorded.  True when A was recorded (*rc: an error). */
bool ref__moved_on(ref_referee *r, const rules_piece *have, int nh, const rules_piece *seen,
                   int ns, const ref_view *v, int *rc, base_err *err)
{
    rules_move ma;
    rules_status st;
    rules_verdict va;
    bool applies, found;
    *rc = 0;
    if (!r->fixed || r->state == REF__OK || r->av.n == 0 || !r->av.pieces)
        return false;
    found = ref__moved_on_in(r, ref__game(r), have, nh, seen, ns, v, &ma, &applies);
    if (!found && applies && r->q.id && r->qdoubt >= 0) {
        const struct ref__doubt d = r->qd;
        int hit = -1, nhit = 0, qid = r->q.id;
        rules_move mh;
        for (int a = 0; a < d.alt.n; a++) {
            int k = d.k, n = r->nhist - k, nh2;
            rules_game **chain = NULL;
            rules_verdict *vv = NULL;
            rules_piece *have2, *seen2;
            bool ok;
            if (d.alt.w[a] < REF__ODDS_REAL || k <= 0 || k >= r->nhist)
                continue;
            chain = calloc((size_t)n, sizeof *chain);
            vv = calloc((size_t)n + 1, sizeof *vv);
            have2 = malloc(sizeof *have2 * REF__MAX_PIECES);
            seen2 = malloc(sizeof *seen2 * (size_t)ns);
            ok = chain && vv && have2 && seen2;
            if (ok) {
                rules_move mk;
                ref__with(r, k, &d.alt.p[a], &mk);
                ok = ref__replay_from(r, k, &mk, chain, vv);
            }
            if (ok) {
                bool ap;
                memcpy(seen2, seen, sizeof *seen2 * (size_t)ns);
                for (int i = 0; i < ns; i++)
                    if (ref__same_place(&seen2[i], &d.alt.p[a]))
                        seen2[i] = d.alt.p[a];
                nh2 = ref__position(chain[n - 1], have2);
                if (ref__moved_on_in(r, chain[n - 1], have2, nh2, seen2, ns, v, &mh, &ap)) {
                    nhit++;
                    if (hit < 0)
                        hit = a;
                }
                for (int j = 0; j < n; j++)
                    rules_game_free(chain[j]);
            }
            free(chain);
            free(vv);
            free(have2);
            free(seen2);
        }
        if (nhit == 1) {
            /* the play that followed answered the question */
            rules_piece *have3 = malloc(sizeof *have3 * REF__MAX_PIECES);
            rules_piece *seen3 = malloc(sizeof *seen3 * (size_t)ns);
            int nh3;
            if (!have3 || !seen3) {
                free(have3);
                free(seen3);
                *rc = base_err_set(err, BASE_ENOMEM, "out of memory");
                return true;
            }
            ref__question_clear(r);
            r->qdoubt = -1;
            if ((*rc = ref__settle_committed(r, &d.alt.p[hit], qid, err)) != 0) {
                free(have3);
                free(seen3);
                return true;
            }
            memcpy(seen3, seen, sizeof *seen3 * (size_t)ns);
            for (int i = 0; i < ns; i++)
                if (ref__same_place(&seen3[i], &d.alt.p[hit]))
                    seen3[i] = d.alt.p[hit];
            nh3 = ref__position(ref__game(r), have3);
            found = ref__moved_on_in(r, ref__game(r), have3, nh3, seen3, ns, v, &ma, &applies);
            free(have3);
            free(seen3);
        }
    }
    if (!found)
        return false;
    ref__question_clear(r);
    r->state = REF__OK;
    r->has_pending = false;
    rules_game_status(ref__game(r), &st);
    *rc = ref__play(r, st.to_move, &ma, v->jpeg, v->jpeg_len, DB_SRC_CAMERA, &va, err);
    if (*rc == 0 && va.legal)
        ref__note_unsure(r, &ma, v);
    return true;
}

/* Whether an illegal verdict on the change from have to seen would be a
 * second one on the move already announced illegal: all of that move's
 * pieces are still on the table as read then, with more.  The players are
 * told once that it is still there (a verdict again would accuse the next
 * player of the first one's move); true when so. */
bool ref__still_illegal(ref_referee *r, const rules_piece *have, int nh, const rules_piece *seen,
                        int ns)
{
    int na = 0;
    if (r->state != REF__ILLEGAL || !r->av.pieces)
        return false;
    for (int i = 0; i < r->av.n; i++) {
        if (ref__known(have, nh, &r->av.pieces[i]))
            continue;
        if (!ref__known(seen, ns, &r->av.pieces[i]))
            return false;
        na++;
    }
    if (na == 0)
        return false;
    if (!r->av.told)
        ref__emit(r, REF_EV_CONFIRM, 0, -1, NULL, NULL, have, nh,
                  "The illegal move announced is still on the table, and more was laid: put the "
                  "table back as it was before it, or correct the reading.");
    r->av.told = true;
    return true;
}

/* ---- pieces recorded unsurely ---- */

/* Notes the pieces of legal move m (just recorded, the last of the
 * history) that the camera read short of REF__ACCUSE in v: what each was
 * recorded as, how sure, and its other readings with their odds against
 * it. */
void ref__note_unsure(ref_referee *r, const rules_move *m, const ref_view *v)
{
    if (!v->conf)
        return;
    for (int i = 0; i < m->npieces; i++) {
        struct ref__doubt d;
        const rules_piece *p = &m->pieces[i];
        float wc = -1;
        int j;
        for (j = 0; j < v->n; j++)
            if (v->pieces[j].x + r->dx == p->x && v->pieces[j].y + r->dy == p->y)
                break;
        if (j == v->n)
            continue;
        /* the reading and its others, against the piece recorded */
        {
            rules_piece c[1 + REF_MAX_ALT];
            float w[1 + REF_MAX_ALT];
            int nc = 0;
            c[nc] = v->pieces[j];
            w[nc++] = 1;
            for (int a = 0; v->alt && a < v->alt[j].n; a++) {
                c[nc] = v->alt[j].p[a];
                w[nc++] = v->alt[j].w[a];
            }
            for (int t = 0; t < nc; t++)
                if (ref__same_piece(&c[t], p))
                    wc = w[t];
            if (wc <= 0 || v->conf[j] * wc >= REF__ACCUSE)
                continue;
            memset(&d, 0, sizeof d);
            d.k = r->nhist - 1;
            d.p = *p;
            d.conf = fminf(1.0f, v->conf[j] * wc);
            for (int t = 0; t < nc && d.alt.n < REF_MAX_ALT; t++)
                if (!ref__same_piece(&c[t], p)) {
                    d.alt.p[d.alt.n] = c[t];
                    d.alt.p[d.alt.n].x = p->x;
                    d.alt.p[d.alt.n].y = p->y;
                    d.alt.w[d.alt.n++] = w[t] / wc;
                }
        }
        if (r->ndoubt == REF__DOUBTS)
            memmove(r->doubt, r->doubt + 1, sizeof *r->doubt * (size_t)--r->ndoubt);
        r->doubt[r->ndoubt++] = d;
    }
}

/* Forgets the doubts about move k and those after it (taken back, or
 * corrected: the players said what it was). */
void ref__forget_doubts(ref_referee *r, int k)
{
    int n = 0;
    for (int i = 0; i < r->ndoubt; i++)
        if (r->doubt[i].k < k)
            r->doubt[n++] = r->doubt[i];
    r->ndoubt = n;
}

/* Move k with its piece at p's cell replaced by p. */
static void ref__with(const ref_referee *r, int k, const rules_piece *p, rules_move *out)
{
    *out = r->hist_move[k];
    for (int i = 0; i < out->npieces; i++)
        if (ref__same_place(&out->pieces[i], p))
            out->pieces[i] = *p;
}

/* Whether, with piece p (an other reading of a recorded piece, laid in
 * move k) in its place, the moves since stay legal and the table seen is
 * a legal move.  *chain_out (when not NULL) receives the replayed games
 * and *v_out their verdicts, the caller's to free; otherwise freed. */
static bool ref__fits_instead(ref_referee *r, int k, const rules_piece *p, const rules_piece *seen,
                              int ns, rules_game ***chain_out, rules_verdict **v_out)
{
    int n = r->nhist - k, nh2, player;
    rules_game **chain = calloc((size_t)n, sizeof *chain);
    rules_verdict *v = calloc((size_t)n + 1, sizeof *v);
    rules_piece *have2 = malloc(sizeof *have2 * REF__MAX_PIECES);
    rules_piece *seen2 = malloc(sizeof *seen2 * (size_t)(ns > 0 ? ns : 1));
    rules_move mk, m;
    bool ok = false, replayed = false;
    if (chain && v && have2 && seen2) {
        ref__with(r, k, p, &mk);
        replayed = ok = ref__replay_from(r, k, &mk, chain, v);
        if (ok) {
            memcpy(seen2, seen, sizeof *seen2 * (size_t)ns);
            for (int i = 0; i < ns; i++)
                if (ref__same_place(&seen2[i], p))
                    seen2[i] = *p;
            nh2 = ref__position(chain[n - 1], have2);
            ok = ref__legal_change_in(r, chain[n - 1], have2, nh2, seen2, ns, &m, &player);
        }
    }
    free(have2);
    free(seen2);
    if (ok && chain_out) {
        *chain_out = chain;
        *v_out = v;
        return true;
    }
    for (int j = 0; replayed && j < n; j++)
        rules_game_free(chain[j]);
    free(chain);
    free(v);
    return ok;
}

/* The recorded piece, read unsurely when it was laid, one of whose other
 * readings with real odds makes the table seen a legal move (the moves
 * since staying legal): an illegal verdict would rest on it.  Its index
 * in r->doubt (the likeliest such), or -1. */
int ref__committed_doubt(ref_referee *r, const rules_piece *seen, int ns)
{
    int best = -1;
    float best_w = 0;
    int own = r->ndoubt;
    if (!r->fixed) {
        /* cards: the guesses too (cards laid and taken unseen, or read
         * short of certain), still on the table, their other cards as
         * the doubt's other readings, for this table only */
        for (int gi = 0; gi < r->nguess && r->ndoubt < REF__DOUBTS; gi++) {
            const struct ref__guess *g = &r->guess[gi];
            struct ref__doubt d;
            if (g->k <= 0 || g->k >= r->nhist || r->hist_move[g->k].npieces != 1 ||
                !ref__known(seen, ns, &r->hist_move[g->k].pieces[0]))
                continue;
            memset(&d, 0, sizeof d);
            d.k = g->k;
            d.p = r->hist_move[g->k].pieces[0];
            d.conf = 0;
            for (int c = 0; c < g->n && d.alt.n < REF_MAX_ALT; c++) {
                d.alt.p[d.alt.n] = g->cand[c];
                d.alt.p[d.alt.n].x = d.p.x;
                d.alt.p[d.alt.n].y = d.p.y;
                d.alt.w[d.alt.n++] = g->vote[c] > 0 && g->vote_was > 0
                                         ? fmaxf(REF__ODDS_REAL, g->vote[c] / g->vote_was)
                                         : REF__GUESS_ODDS;
            }
            r->doubt[r->ndoubt++] = d;
        }
    }
    for (int i = 0; i < r->ndoubt; i++) {
        const struct ref__doubt *d = &r->doubt[i];
        if (d->k <= 0 || d->k >= r->nhist)
            continue;
        for (int a = 0; a < d->alt.n; a++)
            if (d->alt.w[a] >= REF__ODDS_REAL && d->alt.w[a] > best_w &&
                ref__fits_instead(r, d->k, &d->alt.p[a], seen, ns, NULL, NULL)) {
                best_w = d->alt.w[a];
                best = i;
            }
    }
    if (best >= own) {
        /* (a guess: moved within the list's own part, asked about now) */
        struct ref__doubt d = r->doubt[best];
        r->ndoubt = own;
        if (r->ndoubt == REF__DOUBTS)
            memmove(r->doubt, r->doubt + 1, sizeof *r->doubt * (size_t)--r->ndoubt);
        r->doubt[r->ndoubt] = d;
        best = r->ndoubt++;
    } else {
        r->ndoubt = own;
    }
    return best;
}

/* Asks about recorded piece r->doubt[d], on the table seen (v's). */
int ref__ask_committed(ref_referee *r, int d, const ref_view *v, const rules_piece *seen, int ns,
                       const rules_piece *have, int nh)
{
    int j;
    for (j = 0; j < ns && !ref__same_place(&seen[j], &r->doubt[d].p); j++)
        ;
    if (j == ns)
        return 0;
    r->qd = r->doubt[d];
    r->qdoubt = d;
    return ref__ask_about(r, &r->qd.p, &r->qd.alt, v, j, seen, ns, have, nh, false,
                          "It was recorded with an earlier move, read unsurely then.");
}

/* The players answered a question about a recorded piece (r->qd) with
 * piece p: when it is another, the move that laid it and those since are
 * corrected in the store (all or none) and the players told.  The doubt
 * is settled either way.  BASE_EINVAL when the moves since would not be
 * legal with it. */
int ref__settle_committed(ref_referee *r, const rules_piece *p, int qid, base_err *err)
{
    const struct ref__doubt d = r->qd;
    int k = d.k, n = r->nhist - k, rc = 0;
    rules_game **chain = NULL;
    rules_verdict *v = NULL;
    rules_move mk;
    char was[160], now[160], note[64];
    for (int i = 0; i < r->ndoubt; i++)
        if (r->doubt[i].k == d.k && ref__same_place(&r->doubt[i].p, &d.p)) {
            memmove(r->doubt + i, r->doubt + i + 1, sizeof *r->doubt * (size_t)(r->ndoubt - i - 1));
            r->ndoubt--;
            break;
        }
    for (int i = 0; i < r->nguess; i++)
        if (r->guess[i].k == d.k) { /* (cards: the players said what it is) */
            memmove(r->guess + i, r->guess + i + 1, sizeof *r->guess * (size_t)(r->nguess - i - 1));
            r->nguess--;
            break;
        }
    if (ref__same_piece(p, &d.p) || k <= 0 || k >= r->nhist)
        return 0;
    ref__with(r, k, p, &mk);
    chain = calloc((size_t)n, sizeof *chain);
    v = calloc((size_t)n + 1, sizeof *v);
    if (!chain || !v) {
        free(chain);
        free(v);
        return base_err_set(err, BASE_ENOMEM, "out of memory");
    }
    if (!ref__replay_from(r, k, &mk, chain, v)) {
        free(chain);
        free(v);
        return base_err_set(err, BASE_EINVAL,
                            "with that piece the moves since it would not be legal: correct them "
                            "one by one instead");
    }
    snprintf(note, sizeof note, "answer to question %d", qid);
    if ((rc = ref__store_chain(r, k, &mk, note, chain, v, err)) != 0) {
        for (int j = 0; j < n; j++)
            rules_game_free(chain[j]);
        free(chain);
        free(v);
        return rc;
    }
    for (int j = 0; j < n; j++) {
        rules_game_free(r->hist[k + j]);
        r->hist[k + j] = chain[j];
    }
    r->hist_move[k] = mk;
    ref__label(r->game, &d.p, was, sizeof was);
    ref__label(r->game, p, now, sizeof now);
    memcpy(v[0].scores, v[n - 1].scores, sizeof v[0].scores);
    ref__emit(r, REF_EV_CORRECTED, r->hist_seq[k], r->hist_player[k], &mk, &v[0], NULL, 0,
              "the %s recorded at (%d,%d) was a %s; that move now scores %d, and the scores are "
              "corrected.",
              was, p->x, p->y, now, v[0].points);
    free(chain);
    free(v);
    return 0;
}
