/* ui/web.h: the local web app.  Players look at a screen or their phones
 * beside the table (the live page: camera view, scoreboard, whose turn,
 * moves with their verdicts, an illegal-move alert, turn signals and
 * corrections); organisers review past games (the history: matches, a
 * move-by-move replay with the board, the key frames and a score chart).
 *
 * One embedded HTTP server (civetweb) serves the single-page app (built
 * into the binary, nothing fetched from elsewhere) and a JSON API over the
 * match store, opened read-only per request (the referee writes through
 * its own connection).  Live data comes from the caller (the `watch` and
 * `demo` loops): ui_web_publish() pushes each referee event to every open
 * page as server-sent events, ui_web_set_live() sets the state a page
 * loads first, ui_web_set_question() the referee's open question,
 * ui_web_set_frame() the latest annotated camera frame.  The pages'
 * actions (turn signals, undo, corrections, answers to a question) come
 * back through hooks.  See docs/web.md for the API and the pages.
 *
 * Security: the server binds 127.0.0.1 unless told otherwise; any other
 * address needs a token that every request then carries. */
#ifndef TABLECAM_UI_WEB_H
#define TABLECAM_UI_WEB_H

#include <stddef.h>
#include <stdint.h>

#include "base.h"
#include "referee.h"
#include "rules.h"

typedef struct ui_web ui_web;

/* What the live page's buttons do.  Each hook is called from a server
 * thread while the request waits, so it must only queue the action for the
 * thread that owns the referee and return at once: 0 when queued, or a
 * BASE_E* code with err set (BASE_EINVAL / BASE_EPARSE / BASE_ERANGE: the
 * request was wrong, 400; BASE_ESTATE: not now, 409; BASE_EBUSY: too many
 * waiting, 503; anything else 500), err's message becoming the answer's
 * "error".  What the action leads to reaches the pages as published
 * events.  A NULL hook answers 503 like a server without hooks. */
typedef struct ui_web_hooks {
    void *ctx;
    /* A turn the camera cannot see: type is RULES_MOVE_PASS, _REROLL or
     * _DRAW (only the game's own types get through). */
    int (*signal)(void *ctx, int player, int type, base_err *err);
    /* Undo the last legal move. */
    int (*undo)(void *ctx, base_err *err);
    /* The last move was really this one: a FORMATS.md 2 move object, as
     * compact JSON text (already checked with the live game's codec when
     * the live state names the game). */
    int (*correct_last)(void *ctx, const char *move_json, base_err *err);
    /* The players' answer to the referee's question id: answer is an
     * index into its answers (0-based), or REF_ANSWER_NONE for "no piece
     * there" (the server has checked only that it lies in -1 ..
     * REF_MAX_ANSWERS - 1).  BASE_ESTATE when that question is not open,
     * BASE_ERANGE for an answer it does not offer. */
    int (*answer)(void *ctx, int question, int answer, base_err *err);
} ui_web_hooks;

typedef struct ui_web_config {
    /* "IP:PORT" or "PORT" (IPv4; "localhost" means 127.0.0.1); NULL for
     * "127.0.0.1:8080".  Port 0 takes any free port (see ui_web_port()). */
    const char *listen;
    /* The access token, 8 to 128 characters of A-Z a-z 0-9 . _ ~ -; NULL
     * for none, which is allowed only on a loopback address. */
    const char *token;
    /* The match store for the history pages; NULL: those answer 503. */
    const char *db_path;
    /* The live referee's actions; NULL (serve mode): they answer 503. */
    const ui_web_hooks *hooks;
    /* Events kept for late joiners and GET /api/live (0: 200). */
    int keep_events;
} ui_web_config;

/* Starts the server; it runs on its own threads until ui_web_free().
 * Errors: BASE_EINVAL for a bad address or token, or a non-loopback
 * address without a token (err says which); BASE_EIO when the address
 * cannot be bound (in use, not this machine's).  On failure *out is NULL. */
int ui_web_new(const ui_web_config *cfg, ui_web **out, base_err *err);

/* Stops the server: open pages are disconnected, and once it returns no
 * hook is running or will be called.  Accepts NULL. */
void ui_web_free(ui_web *w);

/* The port the server listens on (useful with port 0). */
int ui_web_port(const ui_web *w);

/* The address to open the app at from this machine, token included
 * ("http://127.0.0.1:8080/"); written into buf, which is returned. */
const char *ui_web_url(const ui_web *w, char *buf, size_t n);

/* Pushes one event (a JSON object; ui_web_event_json() makes the one the
 * pages understand) to every open page and keeps it for late joiners.  The
 * server adds an "id" (1, 2, ...).  An event of kind "illegal" or
 * "confirm" raises the page's alert until the next event of another kind.
 * BASE_EPARSE when event_json is not a JSON object.  Thread-safe. */
int ui_web_publish(ui_web *w, const char *event_json);

/* Sets the live state returned by GET /api/live and pushed to open pages
 * (a JSON object; ui_web_live_json() makes it); NULL: no live game.
 * BASE_EPARSE when not a JSON object.  Thread-safe. */
int ui_web_set_live(ui_web *w, const char *live_json);

/* Sets the standing notice of the live page (how to fix the camera, say),
 * shown until replaced; NULL clears it.  In GET /api/live as "notice".
 * Thread-safe. */
int ui_web_set_notice(ui_web *w, const char *text);

/* Sets the question the referee has open (a JSON object;
 * ui_web_question_json() makes it), shown on the page with one button an
 * answer until replaced; NULL: none is open.  In GET /api/live as
 * "question".  BASE_EPARSE when not a JSON object.  Thread-safe. */
int ui_web_set_question(ui_web *w, const char *question_json);

/* Sets the latest camera frame (JPEG bytes, copied), served as a stream on
 * GET /api/frame.mjpg and as a still on GET /api/frame.jpg.  BASE_EINVAL
 * when the bytes do not start like a JPEG (FF D8 FF).  Thread-safe. */
int ui_web_set_frame(ui_web *w, const unsigned char *jpeg, size_t len);

/* ---- the JSON the pages expect, made from the referee's values ---- */

/* A referee event as published: {"kind":"move","seq":3,"player":0,
 * "text":"...","move":{...},"legal":true,"points":5,"scores":[...],
 * "rule":...,"reason":...,"restore":{position},"question":{...}}: the keys
 * that apply to the kind ("question", ui_web_question_json()'s object, on
 * a confirm that asks one).  game is the game id.  Returns malloc'ed text
 * (free()) or NULL when out of memory. */
char *ui_web_event_json(const char *game, const ref_event *ev);

/* A question of the referee as the pages show it: {"id":3,"text":"...",
 * "answers":[{"label":"purple clover","p":0.55,"piece":{...}},...],
 * "none":true,"x_mm":120.5,"y_mm":80} (x_mm and y_mm only when known;
 * "piece" is rules_piece_to_json()'s; p to 4 decimals, millimetres to
 * 0.1).  Returns malloc'ed text (free()) or NULL when out of memory. */
char *ui_web_question_json(const char *game, const ref_question *q);

/* The live state of a game: {"game":G,"match":ID,"players":[names],
 * "scores":[...],"to_move":P,"over":false,"winners":[...],"round":R,
 * "bag":N,"position":{...},"signals":["reroll","draw"]}.  players may be
 * NULL (then "Player 1", ...); match_id 0 leaves "match" out.  Returns
 * malloc'ed text (free()) or NULL when out of memory. */
char *ui_web_live_json(const rules_game *g, const char *const *players, int nplayers,
                       int64_t match_id);

/* The move types a game's players signal by hand (the turns a camera
 * cannot see), as a bit set of (1 << RULES_MOVE_*); 0 for an unknown game. */
unsigned ui_web_signal_types(const char *game);

#endif
