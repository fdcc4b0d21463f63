/* ui/board.h: drawing a stored position for review, as text for a
 * terminal and as an SVG document for a browser.  One drawing per game:
 * qwirkle (coloured shapes on black cubes) as text and SVG; the other
 * games as SVG (cards, the cube2 board, stack4's four levels, cubed's
 * hexagons) and as a list of their pieces in text.
 *
 * A position is the JSON of FORMATS.md 1 ({"game":G,"pieces":[...]}), as
 * the match store keeps it after every event. */
#ifndef TABLECAM_UI_BOARD_H
#define TABLECAM_UI_BOARD_H

#include <stdbool.h>
#include <stdio.h>

#include "base.h"

/* Writes the position as a grid of text (qwirkle: two characters a cube,
 * colour letter then shape symbol, with row and column numbers and a
 * legend).  BASE_EPARSE when the JSON is not a position of that game. */
int ui_board_text(FILE *f, const char *game, const char *position_json, base_err *err);

/* True when ui_board_svg() can draw this game. */
bool ui_board_has_svg(const char *game);

/* Writes a standalone SVG document of the position.  BASE_EUNSUPPORTED
 * for a game without a drawing, BASE_EPARSE for a bad position. */
int ui_board_svg(FILE *f, const char *game, const char *position_json, base_err *err);

#endif
