/* rules/stack4.c: the stack4 engine (not built yet: its issue is open). */
#include "engine.h"

const rules__engine rules__stack4_engine = {.id = "stack4", .min_players = 1, .max_players = 6};
