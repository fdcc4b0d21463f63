/* referee: the live referee.  It turns what the camera reads off a still
 * table into refereed, recorded, announced moves.
 *
 * Two layers, each usable and testable alone:
 * - ref_still: per frame, a motion measure and "is a hand over the play
 *   area" in; out, the moment the table has been still for a short window
 *   (the only time recognition is worth running).
 * - ref_referee: per still table, the recogniser's pieces in; out, events.
 *   It aligns the reading with the last committed position (grid games
 *   are read up to a translation), asks the engine which move explains the
 *   change, validates it, commits it to the store (durable before it is
 *   announced) and announces it: a legal move with its points, an illegal
 *   move with the rule, the reason and the position to restore, a
 *   take-back, game over, or a change nothing explains (never guessed: the
 *   players are asked to restore or correct, and watching goes on).
 * Turns the camera cannot see (a pass, a re-roll, a draw) come in as
 * signals; corrections of a misread as corrections. */
#ifndef TABLECAM_REFEREE_H
#define TABLECAM_REFEREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base.h"
#include "db.h"
#include "rules.h"
#include "calib.h"
#include "qwirkle.h"
#include "cards.h"
#include "capture.h"

/* ---- stillness ---- */

typedef struct ref_still_config {
    double window_s;  /* how long the table must stay still (default 0.16 s:
                         five frame intervals at 30 fps) */
    double motion;    /* a frame moves when its motion measure exceeds this
                         (a fraction of play-area pixels; default 0.002) */
} ref_still_config;

typedef struct ref_still {
    ref_still_config cfg;
    double still_since; /* time of the first still frame of this run, < 0 none */
    bool fired;         /* this still period was already reported */
} ref_still;

void ref_still_init(ref_still *s, const ref_still_config *cfg); /* cfg may be NULL */
/* Feeds one frame at time t (seconds): returns true once, on the frame on
 * which the table has been still (no hand, motion below threshold) for the
 * window; false otherwise.  Any motion or hand starts a new period. */
bool ref_still_feed(ref_still *s, double t, double motion, bool hand);

/* ---- the referee ---- */

typedef struct ref_referee ref_referee;

/* The rule id a stored move gets when the players take it back: the event
 * stays in the store (nothing recorded is ever deleted), marked. */
#define REF_RULE_TAKEN_BACK "taken-back"

enum ref_event_kind {
    REF_EV_MOVE = 1,  /* a legal move, committed; verdict holds its points */
    REF_EV_ILLEGAL,   /* an illegal move (recorded, not applied); restore */
    REF_EV_RESTORED,  /* after ILLEGAL or CONFIRM: the table is right again */
    REF_EV_TAKEBACK,  /* the last move was taken back and undone */
    REF_EV_CONFIRM,   /* a change nothing explains: restore or correct */
    REF_EV_GAME_OVER, /* follows the MOVE that ended the game */
    REF_EV_CORRECTED  /* a correction was applied; play goes on from it */
};

const char *ref_event_name(int kind); /* "move", "illegal", ... */

/* A question to the players about one piece the camera could not read
 * surely enough to judge (a CONFIRM with answers).  The referee never
 * announces an illegal move that rests on such a piece, or one that a
 * likely other reading of it would make legal: it asks.  The players
 * answer with one tap (ref_answer): answer k says the piece is answer[k];
 * REF_ANSWER_NONE (offered when none is true) says no piece lies there.
 * The answer is stored as a correction and the table judged again. */
#define REF_MAX_ANSWERS 4
#define REF_ANSWER_NONE (-1)
typedef struct ref_question {
    int id;                 /* 1, 2, ... within one referee; 0: none open */
    rules_piece read;       /* the piece as read, in the engine's cells */
    int nanswers;           /* answer[0] is the reading, then the likeliest others */
    rules_piece answer[REF_MAX_ANSWERS];
    float p[REF_MAX_ANSWERS]; /* how likely the camera found each (their sum <= 1) */
    char label[REF_MAX_ANSWERS][48]; /* each answer for a button: "purple clover", "QH" */
    bool none;              /* "no piece there" is an answer too */
    bool has_xy;            /* where it lies on the mat is known: */
    double x_mm, y_mm;      /* the mat's frame (FORMATS.md 4), for outlining it */
    char text[256];         /* "Is this cube at (13,13) a purple clover or a purple diamond?" */
} ref_question;

typedef struct ref_event {
    int kind;
    int seq;                      /* the match event it concerns (1-based), 0 none */
    int player;                   /* mover, -1 when none */
    const rules_move *move;       /* MOVE, ILLEGAL, TAKEBACK, CORRECTED */
    const rules_verdict *verdict; /* MOVE, ILLEGAL, GAME_OVER, CORRECTED */
    const rules_piece *restore;   /* ILLEGAL, CONFIRM: the position to put back */
    int nrestore;
    char text[512];               /* one sentence for the players */
    const ref_question *question; /* CONFIRM: a question with one-tap answers;
                                     NULL: "put it back or correct it" */
} ref_event;

typedef void (*ref_event_fn)(void *ctx, const ref_event *ev);

typedef struct ref_config {
    const char *game;     /* game id */
    const cJSON *header;  /* the record header: "players", "options", ... */
    db *store;            /* NULL: nothing is recorded */
    int64_t match_id;     /* with store: a live match to continue (0: a new one) */
    float min_conf;       /* a piece read below this is unsure (default 0.5) */
    ref_event_fn on_event;
    void *ctx;
} ref_config;

/* Starts refereeing.  With a store and match_id 0 a new match is created;
 * with a match_id the match's stored events are replayed first (resuming
 * an unfinished match).  err says what is wrong. */
int ref_new(const ref_config *cfg, base_err *err, ref_referee **out);
void ref_free(ref_referee *r);

/* What else a piece read may be: other identities at the same place, with
 * how likely each is against the reading itself (w 1: as likely). */
#define REF_MAX_ALT 3
typedef struct ref_alts {
    int n;
    rules_piece p[REF_MAX_ALT];
    float w[REF_MAX_ALT];
} ref_alts;

/* One still table, as read.  pieces are in the recogniser's grid (any
 * origin); conf[i] may be NULL (all sure); alt[i] may be NULL (no
 * alternatives): the referee tries them when the reading as it is breaks
 * the rules or is unsure, and takes the one legal explanation that is
 * clearly the likeliest.  mover is the seat whose side the hand came from,
 * -1 when unknown.  jpeg is the key frame to keep with a move, may be
 * NULL. */
typedef struct ref_view {
    const rules_piece *pieces;
    const float *conf;
    int n;
    int mover;
    const void *jpeg;
    size_t jpeg_len;
    const ref_alts *alt;
    const double *x_mm, *y_mm; /* where each piece lies on the mat (may be NULL) */
} ref_view;

int ref_observe(ref_referee *r, const ref_view *v, base_err *err);

/* A reading of a frame of a moving table whose hand is not over the
 * pieces (it has gone to fetch something, or reaches in elsewhere).  Not
 * judged: kept until the next ref_observe as what the camera glimpsed of
 * cells the committed position leaves empty.  Cards: a card laid and taken
 * again with its square before any still table showed it is then the card
 * glimpsed there, rather than the first of those that fit.  Other games
 * ignore it. */
void ref_glimpse(ref_referee *r, const ref_view *v);

/* A turn the camera cannot see (pass, reroll, draw) by player, from a tap,
 * a key or a button.  Announced like any move (illegal if out of turn). */
int ref_signal(ref_referee *r, int player, const rules_move *m, base_err *err);

/* The players correct a misread: the last move was really m (by the same
 * player).  The stored event is corrected and play continues from the
 * corrected position.  BASE_ESTATE when there is no move to correct. */
int ref_correct_last(ref_referee *r, const rules_move *m, base_err *err);

/* The question open now (*out, true), or false when none is. */
bool ref_question_open(const ref_referee *r, ref_question *out);

/* The players answer question id (ref_question.id): answer k of its
 * answers, or REF_ANSWER_NONE when it offered "no piece there".  The
 * answer is stored as a correction of the reading and the still table
 * that raised the question is judged again with the piece as answered
 * (a legal move is recorded; an illegal one is now announced, the
 * players having said what the piece is).  BASE_ESTATE when that
 * question is no longer open (answered, or settled by the table since),
 * BASE_ERANGE for an answer it did not offer. */
int ref_answer(ref_referee *r, int id, int answer, base_err *err);

/* Undoes the last legal move (a take-back by command, not by the table). */
int ref_undo(ref_referee *r, base_err *err);

const rules_game *ref_game(const ref_referee *r);
int64_t ref_match_id(const ref_referee *r);
/* The position the table should show now, in the recogniser's frame of
 * the latest reading. */
int ref_expected(const ref_referee *r, rules_piece *out, int cap);


/* ---- reading a frame ---- */

/* The frame-level part of the loop: find the mat, rectify the plane of the
 * pieces' tops, run the game's recogniser, and give the pieces in rules'
 * terms.  One reader per camera; it keeps the last mat fit so that a frame
 * whose markers are covered is still read (until the camera moves). */
typedef struct ref_reader ref_reader;

typedef struct ref_reader_config {
    const char *game;      /* "qwirkle" (the games with a recogniser) */
    const char *mat;       /* "WxH:S", NULL for the default */
    const vis_camera *lens; /* NULL: uncalibrated */
    double px_per_mm;      /* rectified resolution, 0: as fine as the camera sees */
} ref_reader_config;

#define REF_MAX_READ 160

typedef struct ref_reading {
    int n;
    rules_piece pieces[REF_MAX_READ];
    float conf[REF_MAX_READ];
    ref_alts alt[REF_MAX_READ]; /* other readings of each piece */
    bool duplicate[REF_MAX_READ]; /* cards: another card in view reads the same */
    double x_mm[REF_MAX_READ], y_mm[REF_MAX_READ]; /* where each piece is on the table */
    bool hand;            /* a hand or arm over the play area: do not trust */
    unsigned mat_found;   /* bit i: marker i seen in this frame */
    bool mat_reused;      /* markers covered: the last fit was used */
    double grid_angle_deg, pitch_mm;
    /* How well this camera sees the pieces (0 when not measured): its own
     * pixels a millimetre at the board, and (Qwirkle) the symbols' blur on
     * the table, Gaussian sigma in mm, as the reading fitted it. */
    double cam_px_per_mm, blur_mm;
    /* How the mat lies in the frame, for the camera advice: the frame's
     * size, and how far the mat's edges are turned from the picture's
     * (0-45 degrees; 0 when not measured). */
    int frame_w, frame_h;
    double mat_turn_deg;
} ref_reading;

/* Turns a reading's grid by quarter turns so that its axes lie within 45
 * degrees of axes_deg (its pieces' cells with it).  A grid looks the same
 * turned a quarter (cubes) or half (cards) round, so a recogniser may
 * number it from another corner from one frame to the next: a hand over
 * the cards gave their recogniser another direction, and the readings
 * after it came turned 180 degrees (sim seed 8), which no translation
 * lines up with the last.  The reader turns every reading to the axes of
 * its first one. */
void ref_reading_turn_to(ref_reading *rd, double axes_deg);

/* The same for a hexagonal lattice (cubed): by sixths of a turn, so that
 * the lattice's axes lie within 30 degrees of axes_deg.  Numbered in axes
 * turned 60 degrees back, cell (q, r) is (-r, q + r) and edge e is edge
 * e + 1, so each tile's parity flips and its faces are renumbered
 * (rules-cubed.md); its alternatives with it. */
void ref_reading_turn_hex(ref_reading *rd, double axes_deg);

/* The game's rule on neighbours as a prior (rules_side_by_side; cards: a
 * card goes with each card it shares a side with).  Boards are legal far
 * more often than a far camera tells a spade from a club or a king from a
 * queen, so a piece read below certainty (conf under 0.9) that does not
 * go with some of its neighbours takes the alternative that goes with
 * more of them, when that is likely enough for the referee to take and no
 * other piece reads it (cards: one deck; games without a rule on pairs
 * turn nothing).  The two readings swap likelihoods and the piece is at
 * most half sure, so the referee still checks it and still has its first
 * reading to try; a piece read surely is never turned.  The reader does
 * this for every cards reading. */
void ref_reading_agree(ref_reading *rd, const char *game);

/* How a camera sees the table, from its readings (ref_reading's fields of
 * the same names; for px_per_mm and blur_mm a median over several
 * readings is steadier).  0: not measured. */
typedef struct ref_camera_seen {
    double px_per_mm, blur_mm;
    int frame_w, frame_h;
    double mat_turn_deg;
} ref_camera_seen;

/* The seen fields of one reading. */
ref_camera_seen ref_reading_seen(const ref_reading *rd);

/* Room enough for ref_camera_advice's text. */
#define REF_ADVICE_MAX 512

/* Whether the camera sees well enough to read game's pieces (too few
 * pixels a millimetre at the board, or, Qwirkle, too much blur): when
 * not, writes into buf what to do about it for this camera - a larger
 * frame size only when the frame is under 1920x1080, turning the camera
 * when the mat lies turned in the picture (a square turned 45 degrees
 * fits in the frame at 0.71 of the size), and bringing it closer - and
 * returns true.  False when not measured (0), and for games whose limits
 * have not been measured (all but Qwirkle Cubes and cards). */
bool ref_camera_advice(const char *game, ref_camera_seen seen, char *buf, size_t cap);

/* True when the game has a recogniser. */
bool ref_reader_supported(const char *game);

int ref_reader_new(const ref_reader_config *cfg, ref_reader **out, base_err *err);
void ref_reader_free(ref_reader *r);

/* Reads one frame.  BASE_ENOTFOUND (err naming the markers seen) when the
 * mat cannot be found and no earlier fit exists. */
int ref_reader_read(ref_reader *r, const vis_image *frame, ref_reading *out, base_err *err);

/* The last mat fit (for overlays); false when there is none. */
bool ref_reader_fit(const ref_reader *r, cal_mat_fit *fit);

/* Which side of the play area a frame pixel lies beyond, as seats sit:
 * 0 the bottom edge (markers 3 and 2), 1 the top (markers 0 and 1), 2 the
 * left (0 and 3), 3 the right (1 and 2); -1 over the play area, too far
 * out, or before the mat was found. */
int ref_reader_side(const ref_reader *r, double x_px, double y_px);

/* Uses learnt colours (calib's colour profiles) from the next frame on;
 * NULL goes back to the defaults. */
void ref_reader_set_profile(ref_reader *r, const vis_qwirkle_profile *profile);

/* Reads the pieces with the model onnx_path instead of the built-in one:
 * Qwirkle's cube faces (vis_qwirkle_use_model, which drops an enrolled
 * set) or the cards (vis_cards_use_model); BASE_EUNSUPPORTED for other
 * games. */
int ref_reader_use_model(ref_reader *r, const char *onnx_path, base_err *err);

/* Enrolling one physical set (FORMATS.md 7, vision/pieceset.h).  The
 * number of photos an enrolment of game takes (qwirkle 6; 0: the game's
 * reader has no learned stage to enrol into yet), and what photo image
 * shows ("circles"; NULL out of range). */
int ref_reader_enrol_images(const char *game);
const char *ref_reader_enrol_what(const char *game, int image);

/* An empty set for the reader's model; BASE_EUNSUPPORTED for a game
 * without enrolment. */
int ref_reader_enrol_begin(ref_reader *r, vis_pieceset **out, base_err *err);

/* Adds enrolment photo image (0-based, in FORMATS.md 7's order) taken
 * with this camera to set; vis_pieceset_finish after the last.  Errors
 * as ref_reader_read's and vis_qwirkle_enrol's: err names what is wrong
 * with the photo.  Each photo is a scene of its own (the mat is found
 * afresh). */
int ref_reader_enrol(ref_reader *r, const vis_image *frame, int image, vis_pieceset *set,
                     base_err *err);

/* Reads the pieces with the finished set from the next frame on, and
 * takes ownership of it (NULL: back to the built-in knowledge alone).  On
 * error (BASE_EINVAL: enrolled with another model; BASE_EUNSUPPORTED: a
 * game without enrolment) the set stays the caller's. */
int ref_reader_use_pieces(ref_reader *r, vis_pieceset *set, base_err *err);

/* Learns the colours from a frame showing cubes of all six colours (one of
 * each in a row is enough) and uses them from then on; *profile receives
 * them (calib's cal_colors_to_json stores them).  BASE_ENOTFOUND (err says
 * what was missing) when the frame does not show all six. */
int ref_reader_learn(ref_reader *r, const vis_image *frame, vis_qwirkle_profile *profile,
                     base_err *err);

/* ---- the live loop ---- */

/* Camera -> stillness -> reading -> referee, frame after frame.  The loop
 * owns nothing it is given.  Actions from other threads (a tap in the web
 * app) are posted and carried out between frames, on the loop's thread. */
typedef struct ref_loop ref_loop;

typedef struct ref_loop_stats {
    int frames;         /* frames read from the camera */
    int readings;       /* still tables read */
    int hands;          /* readings refused because a hand was over the board */
    int mat_missing;    /* readings that found no mat */
    double last_latency_ms; /* from the table going still to the reading's events */
    double max_latency_ms;
    /* How well the camera sees the pieces: medians of the last readings
     * that measured it (ref_reading), 0 before any; advice is
     * ref_camera_advice()'s text for them, "" when all is well. */
    double cam_px_per_mm, blur_mm;
    char advice[REF_ADVICE_MAX];
} ref_loop_stats;

typedef struct ref_loop_config {
    vis_capture *camera;     /* borrowed */
    ref_reader *reader;      /* borrowed */
    ref_referee *referee;    /* borrowed; NULL only for ref_loop_read_table */
    ref_still_config still;  /* zeros: defaults */
    bool realtime;           /* pace file and sim cameras at their frame times */
    double overlay_every_s;  /* how often on_frame gets an annotated frame; 0 never */
    void (*on_frame)(void *ctx, const unsigned char *jpeg, size_t len);
    void (*on_tick)(void *ctx); /* once a frame, on the loop's thread */
    void *ctx;
} ref_loop_config;

int ref_loop_new(const ref_loop_config *cfg, ref_loop **out, base_err *err);
void ref_loop_free(ref_loop *l);

/* Runs until the camera's stream ends (0), ref_loop_stop() (0), or an
 * error of the camera (its code; err says what).  BASE_EINVAL without a
 * referee. */
int ref_loop_run(ref_loop *l, base_err *err);

/* Reads the table once before a match starts, with no referee yet (the
 * cards' starting card is taken from it): waits for the table to be
 * still, with the mat in view and no hand, and gives the readings of that
 * still period fused as the loop fuses them.  BASE_ETIMEOUT after max_s
 * of the camera's time, BASE_EEOF when its stream ends first. */
int ref_loop_read_table(ref_loop *l, double max_s, ref_reading *out, base_err *err);

/* Thread-safe. */
void ref_loop_stop(ref_loop *l);

/* Thread-safe: queue a turn signal (a move the camera cannot see, by
 * player), an undo of the last move, or a correction of the last move. */
int ref_loop_post_signal(ref_loop *l, int player, const rules_move *m);
int ref_loop_post_undo(ref_loop *l);
int ref_loop_post_correct(ref_loop *l, const rules_move *m);
/* ... or an answer to question id (ref_answer). */
int ref_loop_post_answer(ref_loop *l, int id, int answer);

void ref_loop_stats_get(ref_loop *l, ref_loop_stats *out);

#endif
