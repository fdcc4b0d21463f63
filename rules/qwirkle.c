/* rules/qwirkle.c: the qwirkle engine (not built yet: its issue is open). */
#include "engine.h"

const rules__engine rules__qwirkle_engine = {.id = "qwirkle", .min_players = 1, .max_players = 6};
