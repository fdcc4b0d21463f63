/* rules/cube2.c: the cube2 engine (not built yet: its issue is open). */
#include "engine.h"

const rules__engine rules__cube2_engine = {.id = "cube2", .min_players = 1, .max_players = 6};
