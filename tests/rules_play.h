/* tests/rules_play.h: what the rules engines' tests and benches share to
 * play random games: a growing list of generated moves, a random pick
 * among them, a random game played out with the generator, and the JSON
 * Lines record of a game (a header line, then one {"player","move"} line an
 * event, as `tablecam referee` reads it).  All randomness comes from the
 * caller's base_rng, so a seed gives the same game every time.
 *
 * No cmocka here (the benches use it too): failures come back as codes and
 * the tests assert on them. */
#ifndef TABLECAM_TEST_RULES_PLAY_H
#define TABLECAM_TEST_RULES_PLAY_H

#include <stddef.h>

#include "base.h"
#include "rules.h"

/* Every move rules_generate() lists, in order.  Start from {0}; set n to 0
 * to reuse; rp_moves_free() when done. */
typedef struct rp_moves {
    int n, cap;
    rules_move *m; /* NULL after a failed allocation */
} rp_moves;

/* rules_generate() callback (ctx: rp_moves *): appends the move; returns 1
 * (stop) when out of memory, leaving m NULL. */
int rp_collect(void *ctx, const rules_move *m);
void rp_moves_free(rp_moves *l);

/* rules_generate() callback (ctx: long *): counts the moves. */
int rp_count(void *ctx, const rules_move *m);

/* rules_generate() callback (ctx: rp_pick *): keeps one of the listed
 * moves, each with the same chance (reservoir sampling, one
 * base_rng_below() a move).  Start with {.r = &rng}; n counts the moves. */
typedef struct rp_pick {
    base_rng *r;
    int n;
    rules_move m;
} rp_pick;
int rp_pick_one(void *ctx, const rules_move *m);

/* Plays up to nmoves generated moves (unknown hands), each picked by
 * rp_pick_one for the player to move; stops early when the game is over,
 * nothing is generated or a generated move is refused.  Returns the moves
 * played. */
int rp_play_random(rules_game *g, base_rng *r, int nmoves);

/* A game's record as it grows: text is NUL-terminated, every line ends in
 * a newline.  Start from {0}; free(text) when done. */
typedef struct rp_record {
    char *text;
    size_t len, cap;
} rp_record;

/* Appends line and a newline.  BASE_ENOMEM when out of memory. */
int rp_record_line(rp_record *rec, const char *line);

/* One event as a JSON line without the newline, {"player":P,"move":...}
 * (free() it); NULL when the move has no JSON form in game. */
char *rp_event_line(const char *game, int player, const rules_move *m);

/* Appends rp_event_line(); BASE_EINVAL when the move has no JSON form. */
int rp_record_event(rp_record *rec, const char *game, int player, const rules_move *m);

#endif
