/* rules/cards.c: the cards engine (not built yet: its issue is open). */
#include "engine.h"

const rules__engine rules__cards_engine = {.id = "cards", .min_players = 1, .max_players = 6};
