/* rules/cubed.c: the cubed engine (not built yet: its issue is open). */
#include "engine.h"

const rules__engine rules__cubed_engine = {.id = "cubed", .min_players = 1, .max_players = 6};
