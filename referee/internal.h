/* referee/internal.h: what the referee's own files share and nobody else
 * needs. */
#ifndef TABLECAM_REFEREE_INTERNAL_H
#define TABLECAM_REFEREE_INTERNAL_H

#include "referee.h"

#define REF__CERTAIN 0.9f  /* pieces read at least this sure are not second-guessed */
#define REF__ALT_FLOOR 0.2 /* an alternative reading this unlikely is not taken */

#define REF__MAX_PIECES 256
#define REF__MAX_TRY 6     /* at most this many pieces' alternatives are combined */
#define REF__GUESSES 52   /* guesses remembered (the newest): a deck's worth */
#define REF__GUESS_MAX 15 /* other cards remembered for each */
#define REF__GATHER 25    /* captured cards not yet gathered (a 5x5 union at most) */
#define REF__GLIMPSES 64  /* cards glimpsed at empty cells, kept */
#define REF__GLIMPSE_MIN 0.3f /* a card glimpsed this likely decides ... */
#define REF__GLIMPSE_LEAD 2.0f /* ... when this many times likelier than the next */
#define REF__REREAD_LEAD 1.0f /* still tables' votes by which another card must lead */
#define REF__UNSEEN_MAX 16   /* cards laid and taken unseen: candidates kept */
/* An illegal move is announced only when each of its new pieces is read
 * at least this sure: below it the classifier is wrong too often on sets
 * it never saw (cards: 94.5 % right at 0.9 or more, bench_recognize_cards)
 * for a player to be accused on its word. */
#define REF__ACCUSE 0.9f
/* ... and when no other reading of one of them that the classifier gives
 * at least these odds against the reading makes the move legal: one
 * chance in fifty is a real chance, and a question costs a tap where a
 * false accusation costs the match. */
#define REF__ODDS_REAL 0.02f
/* A reading the classifier did not offer for a cell still has this chance
 * when the readings of two still tables are multiplied (a zero would let
 * one frame's omission overrule every other). */
#define REF__ODDS_NONE 0.01f
/* The table moved on after a question or a verdict: the likeliest
 * explanation is taken when it is this many times likelier than the
 * next (ref__moved_on). */
#define REF__MOVED_LEAD 2.0f
#define REF__MOVED_OPTIONS 4 /* readings of each asked cell tried (the likeliest) */
#define REF__DOUBTS 32 /* committed pieces read short of REF__ACCUSE, the newest kept */
/* the odds given a guessed card's other candidates when no reading voted
 * for them (laid and taken unseen: each fitted the rules and the table) */
#define REF__GUESS_ODDS 0.25f

enum ref__state {
    REF__OK,      /* the table shows the committed position */
    REF__ILLEGAL, /* an illegal move is on the table */
    REF__CONFIRM  /* an unexplained change is on the table */
};

struct ref_referee {
    char game[16];
    bool translate;          /* positions are equal up to a translation */
    bool fixed;              /* a piece once placed never changes or leaves */
    bool keep;               /* a piece on the table never changes (cards may leave) */
    rules_game **hist;       /* hist[k]: the game after k legal moves */
    int *hist_seq;           /* hist_seq[k]: db seq of legal move k (k >= 1) */
    int *hist_player;
    rules_move *hist_move;   /* hist_move[k]: legal move k */
    int nhist, caphist;
    int nevents;             /* events recorded (legal or not) */
    db *store;
    int64_t match_id;
    float min_conf;
    ref_event_fn on_event;
    void *ctx;
    int dx, dy;              /* engine cell = reading cell + (dx, dy) */
    int state;
    bool unsure;             /* the CONFIRM was for a piece read unsure */
    bool unplaced;           /* ... or for one that fits no reading (REF__DROP) */
    bool has_pending;        /* that unsure reading was a legal move: it */
    int pending_player;      /* stands if play goes on uncorrected */
    rules_move pending;
    float pending_conf[RULES_MAX_MOVE_PIECES]; /* how sure each of its pieces was */
    ref_alts pending_alt[RULES_MAX_MOVE_PIECES]; /* ... and what else each may be */
    rules_piece *last_seen;  /* the reading that caused ILLEGAL/CONFIRM */
    int nlast_seen;
    rules_piece scratch[REF__MAX_PIECES];
    char names[RULES_MAX_PLAYERS][40]; /* the header's players ("player N" when unnamed) */
    /* A piece left out of the last move (REF__DROP) and asked about: read
     * later at its place, before anything else is recorded, it was part
     * of that move (ref__late_piece). */
    rules_piece late;
    int late_at;             /* r->nevents when it was left out; 0: none */
    /* Cards recorded as one of several they could have been: laid and
     * taken unseen, the first of several that fitted
     * (ref__laid_and_taken), or read short of certain.  Which legal move
     * k each was and the other cards it could have been, oldest first.
     * The recorded card seen laid later was a wrong guess
     * (ref__revise_guess); so was one that the still tables since read
     * as another card more than as itself (ref__reread): each reading's
     * likelihoods of the cards at its cell are summed, vote_was for the
     * recorded card, vote[i] for cand[i]. */
    struct ref__guess {
        int k, n;
        rules_piece cand[REF__GUESS_MAX];
        float vote[REF__GUESS_MAX], vote_was;
    } guess[REF__GUESSES];
    int nguess;
    /* Cards a move captured that were still on the table when it was
     * judged (the player laid the card and then took the square), in the
     * engine's cells: seen again, they are not new cards
     * (ref__drop_ungathered). */
    rules_piece gather[REF__GATHER];
    int ngather;
    /* What readings of the moving table since the last still one saw at
     * cells the committed position leaves empty (ref_glimpse): each card
     * at each cell once, with the most any reading gave it. */
    struct ref__glimpse {
        rules_piece p;
        float w;
    } glimpse[REF__GLIMPSES];
    int nglimpse;
    /* The question open (q.id 0: none; ask.c), and the alert's view: the
     * still table that raised the open question or the last illegal
     * verdict, in the engine's cells, with each piece's confidence and
     * other readings, to judge again with an answer (ref_answer) and to
     * weigh against the tables after it (ref__moved_on). */
    ref_question q;
    int nquestions;
    struct ref__alert_view {
        rules_piece *pieces;
        float *conf;
        ref_alts *alt;
        double *x_mm, *y_mm; /* NULL when the view had none */
        int n, mover, idx;   /* idx: the piece asked about, -1 none */
        int dx, dy;          /* the reading's translation then (ref__to_engine) */
        bool told;           /* "still on the table" said (ref__moved_on) */
    } av;
    int last_seq; /* the seq of the event last recorded (0: none, or no store) */
    /* Pieces recorded (placed pieces never change: Qwirkle) though read
     * short of REF__ACCUSE: an illegal verdict that one of their other
     * readings would undo rests on doubt too (ref__committed_doubt). */
    struct ref__doubt {
        int k;         /* the legal move that laid it */
        rules_piece p; /* as recorded, in the engine's cells */
        float conf;    /* how sure the camera was of it then */
        ref_alts alt;  /* what else it may have been: odds against p */
    } doubt[REF__DOUBTS];
    int ndoubt;
    int qdoubt;          /* the open question is about doubt[qdoubt]; -1: a new piece */
    struct ref__doubt qd; /* (its copy: the list may change while it is open) */
};

/* The same piece (kind, owner, shape), wherever it lies. */
bool ref__same_piece(const rules_piece *a, const rules_piece *b);

/* ask.c: questions (see ask.c for what each does) */
void ref__question_clear(ref_referee *r);
int ref__keep_view(ref_referee *r, const rules_piece *seen, int ns, const ref_view *v, int idx);
int ref__ask(ref_referee *r, const ref_view *v, int i, const rules_piece *seen, int ns,
             const rules_piece *have, int nh, bool none, const char *after);
bool ref__doubtful(ref_referee *r, const rules_piece *have, int nh, const rules_piece *seen,
                   int ns, const ref_view *v, int *ask);
bool ref__moved_on(ref_referee *r, const rules_piece *have, int nh, const rules_piece *seen,
                   int ns, const ref_view *v, int *rc, base_err *err);
bool ref__still_illegal(ref_referee *r, const rules_piece *have, int nh, const rules_piece *seen,
                        int ns);
void ref__alert_free(ref_referee *r);
void ref__note_unsure(ref_referee *r, const rules_move *m, const ref_view *v);
void ref__forget_doubts(ref_referee *r, int k);
int ref__settle_committed(ref_referee *r, const rules_piece *p, int qid, base_err *err);
int ref__committed_doubt(ref_referee *r, const rules_piece *seen, int ns);
int ref__ask_committed(ref_referee *r, int d, const ref_view *v, const rules_piece *seen, int ns,
                       const rules_piece *have, int nh);
bool ref__replay_from(const ref_referee *r, int k, const rules_move *mk, rules_game **chain,
                      rules_verdict *v);
int ref__store_chain(ref_referee *r, int k, const rules_move *mk, const char *note,
                     rules_game *const *chain, const rules_verdict *v, base_err *err);
struct ref__viewbuf {
    rules_piece *pieces;
    float *conf;
    ref_alts *alt;
    double *x_mm, *y_mm;
};
int ref__view_copy(const ref_view *v, int skip, ref_view *out, struct ref__viewbuf *buf);
void ref__viewbuf_free(struct ref__viewbuf *buf);

/* shared by referee.c, cards_explain.c and ask.c (see each for what it does) */
int ref__remember(ref_referee *r, const rules_piece *seen, int ns);
bool ref__legal_change(ref_referee *r, const rules_piece *have, int nh, const rules_piece *seen,
                       int ns, rules_move *m, int *player);
int ref__observe(ref_referee *r, const ref_view *v, base_err *err);
void ref__emit(ref_referee *r, int kind, int seq, int player, const rules_move *m,
               const rules_verdict *v, const rules_piece *restore, int nrestore, const char *fmt,
               ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 9, 10)))
#endif
    ;
rules_game *ref__game(const ref_referee *r);
bool ref__known(const rules_piece *have, int nh, const rules_piece *p);
bool ref__legal_change_in(const ref_referee *r, const rules_game *g, const rules_piece *have,
                          int nh, const rules_piece *seen, int ns, rules_move *m, int *player);
void ref__pick(rules_piece *out, const rules_piece *as_read, const ref_alts *a, int d);
int ref__play(ref_referee *r, int player, const rules_move *m, const void *jpeg, size_t jpeg_len,
              int source, rules_verdict *v, base_err *err);
int ref__position(const rules_game *g, rules_piece *out);
bool ref__same_place(const rules_piece *a, const rules_piece *b);
bool ref__same_position(const rules_piece *a, int na, const rules_piece *b, int nb);
int ref__shift(const ref_referee *r, const rules_piece *want, int nw, const rules_piece *seen,
               int ns, int *odx, int *ody);
int ref__store_correction(ref_referee *r, int seq, int player, const rules_move *m,
                          const rules_verdict *v, const rules_game *g, int source, const char *note,
                          base_err *err);
void ref__to_engine(const ref_referee *r, const rules_piece *in, rules_piece *out, int n);
const ref_view *ref__drop_ungathered(ref_referee *r, const ref_view *v, ref_view *vf,
                                     rules_piece *pieces, float *conf, ref_alts *alt);
float ref__glimpsed(const ref_referee *r, const rules_piece *p);
int ref__laid_and_taken(const ref_referee *r, const rules_game *g, const rules_piece *have, int nh,
                        const rules_piece *seen, int ns, int player, rules_move *m, int cap);
bool ref__pending_taken(const ref_referee *r, const rules_piece *seen, int ns);
void ref__remember_guess(ref_referee *r, const rules_move *cand, int nc);
void ref__remember_read(ref_referee *r, const rules_move *m, const rules_piece *read,
                        const ref_view *v);
bool ref__reread(ref_referee *r, const rules_piece *have, int nh, const rules_piece *seen, int ns,
                 const ref_view *v, int *rc, base_err *err);
bool ref__revise_guess(ref_referee *r, int player, const rules_move *m, int *rc, base_err *err);
bool ref__revise_for_signal(ref_referee *r, int player, const rules_move *m, int *rc,
                            base_err *err);
bool ref__two_moves(ref_referee *r, const rules_piece *have, int nh, const rules_piece *seen,
                    int ns, const ref_view *v, int *rc, base_err *err);
bool ref__ungathered(ref_referee *r, const rules_piece *have, int nh, const rules_move *m,
                     const rules_piece *after, int na, const rules_piece *seen, int ns);

#endif
