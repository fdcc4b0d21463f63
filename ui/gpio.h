/* ui/gpio.h: push buttons on GPIO pins as turn signals, the way tournament
 * Scrabble scorers use a chess clock: one press says "the player to move
 * re-rolled" (or passed, or drew).  Through libgpiod; a tablecam built
 * without it says so. */
#ifndef TABLECAM_UI_GPIO_H
#define TABLECAM_UI_GPIO_H

#include "base.h"

typedef struct ui_gpio ui_gpio;

/* spec: "CHIP:LINE=ACTION[,CHIP:LINE=ACTION...]", e.g.
 * "gpiochip0:17=reroll,gpiochip0:27=draw"; ACTION is a move type name
 * (pass, reroll, draw) or "undo".  err names the part that is wrong or the
 * chip that cannot be opened. */
int ui_gpio_open(const char *spec, ui_gpio **out, base_err *err);
void ui_gpio_free(ui_gpio *g);

/* Calls fn once for each button pressed since the last call (presses
 * closer than 200 ms to the previous one on the same line are bounces).
 * Never blocks. */
typedef void (*ui_gpio_fn)(void *ctx, const char *action);
void ui_gpio_poll(ui_gpio *g, ui_gpio_fn fn, void *ctx);

#endif
