/* rules/stack4_internal.h: what the stack4 engine (stack4.c), its codec
 * (stack4_json.c) and its solver (stack4_solve.c) share; internal to rules/.
 *
 * The 4x4x4 volume is one 64-bit board: cell (x,y,z) is bit x + 4y + 16z.
 * Every placement of every piece kind (rotation x translation inside the
 * volume) is computed once per game family from the catalogue and kept with
 * the masks that decide its legality, so "does any remaining piece fit" is a
 * scan of a few thousand AND operations. */
#ifndef TABLECAM_RULES_STACK4_INTERNAL_H
#define TABLECAM_RULES_STACK4_INTERNAL_H

#include <stdatomic.h>
#include <stdint.h>

#include "engine.h"

#define STACK4_N 4
#define STACK4_KINDS 8
#define STACK4_ALL_KINDS 0xffu
#define STACK4_MAX_ROT 24
#define STACK4_NDIRS 5 /* the slide directions: from above, from +x -x +y -y */

/* How a piece may get into its place (option "entry"). */
enum stack4_entry {
    STACK4_ENTRY_SLIDE, /* straight down from above or along x/y from a side */
    STACK4_ENTRY_DROP,  /* straight down from above only */
    STACK4_ENTRY_FREE   /* anywhere free and supported: no path is checked */
};

/* What happens when the board is full (option "all-placed"). */
enum stack4_full { STACK4_FULL_LOSE, STACK4_FULL_DRAW };

/* One placement: a piece kind at one rotation and translation. */
typedef struct stack4_place {
    uint64_t mask;                 /* its four cells */
    uint64_t below;                /* cells directly below it, not its own */
    uint64_t sweep[STACK4_NDIRS];  /* cells its slide from outside crosses */
    uint8_t kind;
    uint8_t on_base;               /* a cell at z = 0 */
} stack4_place;

/* The computed catalogue, shared read-only by a game and its clones. */
typedef struct stack4_tables {
    atomic_int refs;
    int nrot[STACK4_KINDS];
    int8_t rot[STACK4_KINDS][STACK4_MAX_ROT][4][3]; /* normalised, sorted */
    int first[STACK4_KINDS + 1]; /* placements of kind k: [first[k], first[k+1]) */
    int nplace;
    stack4_place *place;
} stack4_tables;

/* One match.  Light is player 0, dark player 1. */
typedef struct stack4_state {
    stack4_tables *t;
    int entry, full;           /* the options */
    uint64_t occ;              /* every occupied cell */
    uint64_t occ_by[2];        /* ... by each player */
    unsigned left[2];          /* bit k: the player still holds kind k */
    int to_move;
    int moves;
    int npos;
    rules_piece pos[2 * STACK4_KINDS]; /* placed pieces, in play order */
    int8_t owner_of[64];       /* index into pos[] of each cell, -1 free */
    int over;
    unsigned winners;
} stack4_state;

/* The catalogue names, "I" ... "Y"; -1 / NULL when unknown. */
int rules__stack4_kind_from_name(const char *name);
const char *rules__stack4_kind_name(int kind);
/* "light" / "dark"; -1 / NULL when unknown. */
int rules__stack4_owner_from_name(const char *name);
const char *rules__stack4_owner_name(int owner);

/* True when placement p is legal on board occ under the entry option. */
static inline int stack4__legal(const stack4_place *p, uint64_t occ, int entry)
{
    if (p->mask & occ)
        return 0;
    if (!p->on_base && !(p->below & occ))
        return 0;
    if (entry == STACK4_ENTRY_FREE)
        return 1;
    if (!(p->sweep[0] & occ))
        return 1;
    if (entry == STACK4_ENTRY_DROP)
        return 0;
    return !(p->sweep[1] & occ) || !(p->sweep[2] & occ) || !(p->sweep[3] & occ) ||
           !(p->sweep[4] & occ);
}

/* True when some kind in left has a legal placement on occ. */
int rules__stack4_can_move(const stack4_tables *t, uint64_t occ, unsigned left, int entry);

/* Fills a rules_move placing placement index i for player. */
void rules__stack4_move_of(const stack4_tables *t, int i, int player, rules_move *m);

/* The engine state behind a stack4 game handle. */
const stack4_state *rules__stack4_state(const rules_game *g);

/* The codec hooks (stack4_json.c). */
int rules__stack4_piece_from_json(const cJSON *obj, rules_piece *out, base_err *err);
cJSON *rules__stack4_piece_to_json(const rules_piece *p);
int rules__stack4_move_from_json(const cJSON *obj, rules_move *out, base_err *err);
cJSON *rules__stack4_move_to_json(const rules_move *m);
int rules__stack4_hand_from_json(const cJSON *item, rules_piece *out, base_err *err);
cJSON *rules__stack4_hand_to_json(const rules_piece *p);

#endif
