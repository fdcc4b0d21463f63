/* rules: the referee's brain.  One interface, one engine per game.
 *
 * A rules_game is one match in progress: the position on the table, whose
 * turn it is, scores, bag and hand counts.  rules_check() says whether a
 * move is legal, and if not, which rule it breaks (a stable id) and why (a
 * sentence a player understands); rules_apply() plays a legal move and
 * reports its points; rules_generate() lists legal moves.  Games are
 * independent values: many matches may run at once, from many threads, as
 * long as one game is not touched by two threads at a time.
 *
 * Pure C11; the only dependency is cJSON, for each game's codec of pieces,
 * moves and positions (FORMATS.md sections 1-3, mirrored in docs/). */
#ifndef TABLECAM_RULES_H
#define TABLECAM_RULES_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "base.h"

#define RULES_MAX_PLAYERS 6
#define RULES_MAX_MOVE_PIECES 32 /* a cubed `reveal` holds a whole hand */
#define RULES_MAX_HAND 32

/* The six colours shared by qwirkle, cube2 and cubed, then cubed's two
 * extra ones.  Names: red orange yellow green blue purple black white. */
enum rules_color {
    RULES_RED, RULES_ORANGE, RULES_YELLOW, RULES_GREEN, RULES_BLUE,
    RULES_PURPLE, RULES_BLACK, RULES_WHITE, RULES_NCOLORS
};

/* Qwirkle shapes: circle square diamond clover star4 star8. */
enum rules_shape {
    RULES_CIRCLE, RULES_SQUARE, RULES_DIAMOND, RULES_CLOVER, RULES_STAR4,
    RULES_STAR8, RULES_NSHAPES
};

/* Card suits S H D C; ranks are 1 (A) to 13 (K). */
enum rules_suit { RULES_SPADES, RULES_HEARTS, RULES_DIAMONDS, RULES_CLUBS };

/* cube2 piece shapes. */
enum rules_c2shape { RULES_C2_CUBE, RULES_C2_CYLINDER };

/* One piece, as placed or as held in a hand.  A small value, meant to be
 * copied.  Which fields mean what depends on the game:
 *   qwirkle  x,y cell; a colour, b shape
 *   cards    x,y cell; a rank 1..13, b suit; c 1 when face down (vision)
 *   cube2    x,y = col,row; a colour, b rules_c2shape
 *   cubed    x,y = q,r; a,b,c the three face colours; parity 0/1
 *   stack4   a piece kind (index in the catalogue), owner 0 light 1 dark,
 *            ncells 4 and cells[][] = x,y,z
 * Fields a game does not use are zero (owner -1 where it has no owner). */
typedef struct rules_piece {
    int16_t x, y;
    uint8_t a, b, c;
    uint8_t parity;
    int8_t owner;
    uint8_t ncells;
    int8_t cells[4][3];
} rules_piece;

enum rules_move_type {
    RULES_MOVE_NONE = 0,
    RULES_MOVE_PLACE,  /* all games: pieces[] placed on the table */
    RULES_MOVE_PASS,   /* cards, cube2, cubed */
    RULES_MOVE_REROLL, /* qwirkle: re-roll cubes of the hand */
    RULES_MOVE_DRAW,   /* qwirkle, cubed */
    RULES_MOVE_MOVE,   /* cube2: from -> to, or off the board */
    RULES_MOVE_REVEAL, /* cubed: the hand shown at round end */
    RULES_MOVE_SWAP    /* cube2 option swap: player 2 takes player 1's first move */
};

/* One event's move.  nhand is -1 when the mover's hand is not known (it is
 * the hand before the move, where the referee can see it). */
typedef struct rules_move {
    int type;
    int npieces;
    rules_piece pieces[RULES_MAX_MOVE_PIECES];
    int16_t from[2], to[2];
    bool to_off;
    /* cards with option capture=choose: the square the placer takes, as
     * x, y of its top-left cell and its size 2 or 3; size 0 when none. */
    int16_t square[3];
    /* cubed: a `draw` under option draw3 takes count pieces at once (1..3;
     * 0 is an ordinary draw); a `place` under option void gives one piece
     * of the hand to seat give (-1: no gift). */
    int8_t count;
    int8_t give;
    int nhand;
    rules_piece hand[RULES_MAX_HAND];
} rules_move;

/* Sets *m to an empty move of the given type with an unknown hand. */
void rules_move_init(rules_move *m, int type);

/* What the referee says of one move. */
typedef struct rules_verdict {
    bool legal;
    char rule[40];    /* stable id when illegal ("line-duplicate") */
    char reason[256]; /* a sentence for the players when illegal */
    int points;       /* points the move scored (bonuses included) */
    int nplayers;
    int scores[RULES_MAX_PLAYERS]; /* after the move */
    bool over;                      /* the game (or cubed round) ended */
    unsigned winners;               /* bit i set: player i won (when over) */
    char note[256];   /* extra information for the players, may be "" */
    int nextra;       /* cards: the captured cards; cube2: the exited piece */
    rules_piece extra[RULES_MAX_MOVE_PIECES];
    int round;        /* cubed: the round the event belongs to; 0 elsewhere */
} rules_verdict;

/* Turn state. */
typedef struct rules_status {
    int nplayers;
    int to_move;     /* player whose turn it is */
    int scores[RULES_MAX_PLAYERS];
    int hand[RULES_MAX_PLAYERS]; /* pieces in each hand, -1 if not counted */
    int bag;         /* pieces left to draw, -1 where the game has none */
    int moves;       /* legal events applied so far */
    int round;       /* cubed: 1..3; else 1 */
    bool over;
    unsigned winners;
} rules_status;

typedef struct rules_game rules_game;

/* The game ids, in a fixed order: "qwirkle", "cards", "cube2", "stack4",
 * "cubed".  Returns the number of ids and stores a static array in *ids. */
int rules_games(const char *const **ids);

/* True when the game id is known and its engine is built in. */
bool rules_game_available(const char *game);

/* Starts a match.  header is the game record's first line (FORMATS.md 2):
 * "players" (2..max names) and the game's extras ("options", "start",
 * "board", "setup", "round", "seed"); NULL means two players and defaults.
 * On failure *out is NULL and err says what is wrong with the header. */
int rules_game_new(const char *game, const cJSON *header, base_err *err,
                   rules_game **out);
void rules_game_free(rules_game *g);

/* A deep copy: for take-backs and for search. */
int rules_game_clone(const rules_game *g, rules_game **out);

const char *rules_game_id(const rules_game *g);
void rules_game_status(const rules_game *g, rules_status *out);

/* Checks a move by player without changing the game.  Fills v (legal or
 * the rule and reason, and the scores as they are).  Returns 0, or
 * BASE_EINVAL when player is not a seat of this game. */
int rules_check(const rules_game *g, int player, const rules_move *m,
                rules_verdict *v);

/* Checks, then applies a legal move: v gets its points, the scores after
 * it, and game over.  An illegal move leaves g unchanged (the same player
 * moves again).  Returns 0 or BASE_EINVAL as rules_check(). */
int rules_apply(rules_game *g, int player, const rules_move *m,
                rules_verdict *v);

/* The pieces on the table; returns their count (which may exceed cap, in
 * which case only cap were written). */
int rules_position(const rules_game *g, rules_piece *out, int cap);

/* Calls fn for every legal move of player that uses only hand[] (for games
 * with hands; nhand -1 means the game's own notion of the hand: stack4's
 * remaining pieces, or any piece where hands are unknown).  fn returns 0 to
 * go on, non-zero to stop.  Returns the number of moves reported, or a
 * negative error. */
typedef int (*rules_move_fn)(void *ctx, const rules_move *m);
int rules_generate(const rules_game *g, int player, const rules_piece *hand,
                   int nhand, rules_move_fn fn, void *ctx);

/* Whether pieces a and b of game may lie side by side, as far as the pair
 * alone says (cards: same rank, same suit, or ranks one apart; a face-down
 * card says nothing).  True for games with no rule on a pair alone and for
 * unknown games.  A recogniser's prior: which reading of an unsure piece
 * its neighbours make likelier. */
bool rules_side_by_side(const char *game, const rules_piece *a, const rules_piece *b);

/* ---- stack4 solver (docs/rules-stack4.md) ---- */

enum rules_solve_result {
    RULES_SOLVE_LOSS = -1, RULES_SOLVE_DRAW = 0, RULES_SOLVE_WIN = 1,
    RULES_SOLVE_UNKNOWN = 2 /* the time ran out first */
};

typedef struct rules_stack4_solution {
    int result;      /* rules_solve_result, for the player to move */
    int player;      /* the player to move */
    bool has_move;   /* a win: a winning placement; a draw: a drawing one */
    rules_move move;
    long long nodes; /* positions searched */
    double seconds;  /* time taken */
} rules_stack4_solution;

/* Whether the player to move in stack4 game g can force a win from the
 * current position (exhaustive negamax search with alpha-beta and a
 * transposition table), giving up after about `seconds`.  Returns 0, or
 * BASE_EINVAL when g is not a stack4 game, BASE_ENOMEM. */
int rules_stack4_solve(const rules_game *g, double seconds, rules_stack4_solution *out);

/* ---- JSON codec (FORMATS.md 1-3) ---- */

int rules_piece_from_json(const char *game, const cJSON *obj, rules_piece *out,
                          base_err *err);
cJSON *rules_piece_to_json(const char *game, const rules_piece *p);
/* A piece in words for the players: "a blue star4 at (3,1)", "the 7H at
 * (2,0)"; its JSON for games without words of their own.  Returns buf. */
const char *rules_piece_text(const char *game, const rules_piece *p, char *buf, size_t n);

/* A position: {"game":G,"pieces":[...]}. */
cJSON *rules_pieces_to_json(const char *game, const rules_piece *p, int n);
cJSON *rules_position_to_json(const rules_game *g);

/* The "move" object of a record event, and one record event line
 * ({"player":P,"move":{...}} with the optional "hand" inside or beside the
 * move).  Errors say which key is wrong. */
int rules_move_from_json(const char *game, const cJSON *obj, rules_move *out,
                         base_err *err);
cJSON *rules_move_to_json(const char *game, const rules_move *m);
int rules_event_from_json(const char *game, const cJSON *obj, int *player,
                          rules_move *out, base_err *err);

/* The verdict line of FORMATS.md 3 for event seq (1-based), with the
 * game's extra keys ("captured", "exited", "note"). */
cJSON *rules_verdict_to_json(const rules_game *g, int seq, int player,
                             const rules_verdict *v);

/* Colour, shape and card names, shared by every codec and by vision:
 * return -1 for an unknown name, NULL for an out-of-range index. */
int rules_color_from_name(const char *name);
const char *rules_color_name(int color);
int rules_shape_from_name(const char *name);
const char *rules_shape_name(int shape);
/* "10H" <-> rank 10, suit hearts; buf needs 4 bytes. */
int rules_card_from_name(const char *name, int *rank, int *suit);
const char *rules_card_name(int rank, int suit, char buf[4]);

#endif
