/* rules/engine.h: what a game engine implements (internal to rules/).
 *
 * rules.c owns the rules_game handle, the player bookkeeping and the parts
 * of the codec that every game shares; an engine owns its state (an opaque
 * pointer) and everything game-specific.  Adding a game is one engine file,
 * its codec file beside it, and one line in rules.c's table. */
#ifndef TABLECAM_RULES_ENGINE_H
#define TABLECAM_RULES_ENGINE_H

#include "rules.h"

typedef struct rules__engine {
    const char *id;
    int min_players, max_players;

    /* State.  create() reads the record header (players already counted:
     * nplayers) and returns a fresh state in *state. */
    int (*create)(const cJSON *header, int nplayers, base_err *err, void **state);
    void (*destroy)(void *state);
    int (*clone)(const void *state, void **out);
    void (*status)(const void *state, rules_status *out);

    /* check() fills v->legal, and v->rule / v->reason when illegal; it may
     * fill v->note.  apply() is called only after check() said legal, with
     * that verdict, and adds points, scores, over, winners and extras. */
    void (*check)(const void *state, int player, const rules_move *m, rules_verdict *v);
    void (*apply)(void *state, int player, const rules_move *m, rules_verdict *v);
    int (*position)(const void *state, rules_piece *out, int cap);
    int (*generate)(const void *state, int player, const rules_piece *hand, int nhand,
                    rules_move_fn fn, void *ctx);
    /* Whether two pieces may share a side, as far as the pair alone says
     * (see rules_side_by_side); NULL where the game has no such rule. */
    bool (*side_by_side)(const rules_piece *a, const rules_piece *b);

    /* Codec. */
    int (*piece_from_json)(const cJSON *obj, rules_piece *out, base_err *err);
    cJSON *(*piece_to_json)(const rules_piece *p);
    int (*move_from_json)(const cJSON *obj, rules_move *out, base_err *err);
    cJSON *(*move_to_json)(const rules_move *m);
    /* One item of an event's "hand" (the forms differ: qwirkle objects,
     * card names, cubed colour triples, stack4 piece names). */
    int (*hand_from_json)(const cJSON *item, rules_piece *out, base_err *err);
    cJSON *(*hand_to_json)(const rules_piece *p);
    /* Adds the game's extra verdict keys to obj; may be NULL. */
    void (*verdict_extras)(const rules_verdict *v, cJSON *obj);
    /* A piece in words for the players ("a blue star4 at (3,1)"); may be
     * NULL (then its JSON is used). */
    void (*piece_text)(const rules_piece *p, char *buf, size_t n);
} rules__engine;

extern const rules__engine rules__qwirkle_engine;
extern const rules__engine rules__cards_engine;
extern const rules__engine rules__cube2_engine;
extern const rules__engine rules__stack4_engine;
extern const rules__engine rules__cubed_engine;

/* The engine state behind a game handle, for engine-specific entry points
 * (stack4's solver); the caller checks rules_game_id() first. */
const void *rules__game_state(const rules_game *g);

/* ---- each game's codec: defined in <game>_json.c, used by the engine
 * table in <game>.c (stack4's are in stack4_internal.h) ---- */

int rules__qwirkle_piece_from_json(const cJSON *obj, rules_piece *out, base_err *err);
cJSON *rules__qwirkle_piece_to_json(const rules_piece *p);
void rules__qwirkle_piece_text(const rules_piece *p, char *buf, size_t n);
int rules__qwirkle_move_from_json(const cJSON *obj, rules_move *out, base_err *err);
cJSON *rules__qwirkle_move_to_json(const rules_move *m);
int rules__qwirkle_hand_from_json(const cJSON *item, rules_piece *out, base_err *err);
cJSON *rules__qwirkle_hand_to_json(const rules_piece *p);

int rules__cards_piece_from_json(const cJSON *obj, rules_piece *out, base_err *err);
cJSON *rules__cards_piece_to_json(const rules_piece *p);
void rules__cards_piece_text(const rules_piece *p, char *buf, size_t n);
int rules__cards_move_from_json(const cJSON *obj, rules_move *out, base_err *err);
cJSON *rules__cards_move_to_json(const rules_move *m);
int rules__cards_hand_from_json(const cJSON *item, rules_piece *out, base_err *err);
cJSON *rules__cards_hand_to_json(const rules_piece *p);
void rules__cards_verdict_extras(const rules_verdict *v, cJSON *obj);

int rules__cube2_piece_from_json(const cJSON *obj, rules_piece *out, base_err *err);
cJSON *rules__cube2_piece_to_json(const rules_piece *p);
int rules__cube2_move_from_json(const cJSON *obj, rules_move *out, base_err *err);
cJSON *rules__cube2_move_to_json(const rules_move *m);
int rules__cube2_hand_from_json(const cJSON *item, rules_piece *out, base_err *err);
cJSON *rules__cube2_hand_to_json(const rules_piece *p);
void rules__cube2_verdict_extras(const rules_verdict *v, cJSON *obj);

int rules__cubed_piece_from_json(const cJSON *obj, rules_piece *out, base_err *err);
cJSON *rules__cubed_piece_to_json(const rules_piece *p);
int rules__cubed_move_from_json(const cJSON *obj, rules_move *out, base_err *err);
cJSON *rules__cubed_move_to_json(const rules_move *m);
int rules__cubed_hand_from_json(const cJSON *item, rules_piece *out, base_err *err);
cJSON *rules__cubed_hand_to_json(const rules_piece *p);
void rules__cubed_verdict_extras(const rules_verdict *v, cJSON *obj);

/* clone() of an engine whose whole state is one malloc'd block that owns
 * nothing else (its destroy() is free): a byte copy into a new block;
 * BASE_ENOMEM with *out NULL when there is no memory. */
int rules__clone_block(const void *state, size_t size, void **out);

/* ---- helpers shared by the codecs ---- */

/* Reads an integer member; BASE_EPARSE naming key when missing or not an
 * integer. */
int rules__json_int(const cJSON *obj, const char *key, int *out, base_err *err);
/* Reads a cell coordinate (rules_piece.x, .y): a whole number that fits in
 * int16_t, else BASE_ERANGE naming key and the range (it would wrap). */
int rules__json_coord(const cJSON *obj, const char *key, int16_t *out, base_err *err);
/* Reads a string member; BASE_EPARSE naming key when missing or not text. */
int rules__json_str(const cJSON *obj, const char *key, const char **out, base_err *err);
/* The move's "type" as a rules_move_type, checked against the names the game
 * allows (allowed: bit (1 << type) set). */
int rules__json_move_type(const cJSON *move, unsigned allowed, int *type, base_err *err);
/* Parses the "pieces" array of a move with the engine's piece codec. */
int rules__json_pieces(const rules__engine *e, const cJSON *move, rules_move *out,
                       base_err *err);
/* Name of a move type ("place"). */
const char *rules__move_type_name(int type);
int rules__move_type_from_name(const char *name);
/* "an" before a word that starts with a vowel ("an orange star4"), else
 * "a": for the colour and shape names of the reasons. */
const char *rules__a(const char *word);
/* Sets an illegal verdict: rule id and printf-style reason. */
void rules__illegal(rules_verdict *v, const char *rule, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#endif
