/* ui/gpio.c: push buttons through libgpiod (v1 API). */
#define _POSIX_C_SOURCE 200809L
#include "gpio.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef TABLECAM_HAVE_GPIOD
#include <gpiod.h>
#include <poll.h>

#define UI__MAXBUTTONS 8

typedef struct ui__button {
    struct gpiod_chip *chip;
    struct gpiod_line *line;
    char action[16];
    double last;
} ui__button;

struct ui_gpio {
    ui__button b[UI__MAXBUTTONS];
    int n;
};

void ui_gpio_free(ui_gpio *g)
{
    if (!g)
        return;
    for (int i = 0; i < g->n; i++) {
        if (g->b[i].line)
            gpiod_line_release(g->b[i].line);
        if (g->b[i].chip)
            gpiod_chip_close(g->b[i].chip);
    }
    free(g);
}

int ui_gpio_open(const char *spec, ui_gpio **out, base_err *err)
{
    char buf[512], *save = NULL;
    ui_gpio *g;
    *out = NULL;
    if (!spec || strlen(spec) >= sizeof buf)
        return base_err_set(err, BASE_EINVAL, "--gpio: expected CHIP:LINE=ACTION[,...]");
    if (!(g = calloc(1, sizeof *g)))
        return base_err_set(err, BASE_ENOMEM, "out of memory");
    snprintf(buf, sizeof buf, "%s", spec);
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        char chip[64], action[16];
        unsigned line;
        ui__button *b;
        if (g->n == UI__MAXBUTTONS) {
            ui_gpio_free(g);
            return base_err_set(err, BASE_ERANGE, "--gpio: at most %d buttons", UI__MAXBUTTONS);
        }
        if (sscanf(t, "%63[^:]:%u=%15s", chip, &line, action) != 3 ||
            (strcmp(action, "pass") && strcmp(action, "reroll") && strcmp(action, "draw") &&
             strcmp(action, "undo"))) {
            ui_gpio_free(g);
            return base_err_set(err, BASE_EINVAL,
                                "--gpio '%s': expected CHIP:LINE=ACTION with ACTION pass, reroll, "
                                "draw or undo",
                                t);
        }
        b = &g->b[g->n++];
        snprintf(b->action, sizeof b->action, "%s", action);
        b->last = -1;
        if (!(b->chip = gpiod_chip_open_lookup(chip))) {
            ui_gpio_free(g);
            return base_err_set(err, BASE_ENODEV, "--gpio: no GPIO chip '%s'", chip);
        }
        if (!(b->line = gpiod_chip_get_line(b->chip, line)) ||
            gpiod_line_request_falling_edge_events(b->line, "tablecam") != 0) {
            b->line = NULL;
            ui_gpio_free(g);
            return base_err_set(err, BASE_ENODEV, "--gpio: cannot use line %u of '%s'", line, chip);
        }
    }
    *out = g;
    return 0;
}

void ui_gpio_poll(ui_gpio *g, ui_gpio_fn fn, void *ctx)
{
    for (int i = 0; g && i < g->n; i++) {
        struct pollfd p = {gpiod_line_event_get_fd(g->b[i].line), POLLIN, 0};
        while (poll(&p, 1, 0) == 1 && (p.revents & POLLIN)) {
            struct gpiod_line_event ev;
            double now = base_now();
            if (gpiod_line_event_read(g->b[i].line, &ev) != 0)
                break;
            if (g->b[i].last >= 0 && now - g->b[i].last < 0.2)
                continue; /* a bounce */
            g->b[i].last = now;
            fn(ctx, g->b[i].action);
        }
    }
}

#else

struct ui_gpio {
    int unused;
};

int ui_gpio_open(const char *spec, ui_gpio **out, base_err *err)
{
    (void)spec;
    *out = NULL;
    return base_err_set(err, BASE_EUNSUPPORTED, "--gpio: this tablecam was built without libgpiod");
}

void ui_gpio_free(ui_gpio *g) { free(g); }

void ui_gpio_poll(ui_gpio *g, ui_gpio_fn fn, void *ctx)
{
    (void)g;
    (void)fn;
    (void)ctx;
}

#endif
