/* ui/watch.h: what `tablecam watch` and `tablecam demo` share: a camera,
 * a reader, a referee over the match store, the live loop, announcements
 * on the terminal and, with an address, the web app. */
#ifndef TABLECAM_UI_WATCH_H
#define TABLECAM_UI_WATCH_H

#include <stdbool.h>

#include "ui.h"

typedef struct ui_watch_opts {
    const char *game;
    const char *camera;   /* capture spec: file:, dir:, video:, v4l2:, libcamera:, sim: */
    const char *mat;      /* "WxH:S" or NULL */
    const char *lens;     /* lens profile, file or stored name (`calibrate camera`), or NULL */
    const char *profile;  /* colour profile, likewise (`calibrate colors`; qwirkle), or NULL */
    const char *pieces;   /* an enrolled set, likewise (`calibrate pieces`), or NULL */
    const char *players;  /* "Ann,Bob" */
    const char *options;  /* JSON object of game options, or NULL */
    const char *start;    /* cards: the starting card ("KD"), NULL to read it off the table */
    const char *db_path;  /* default ./tablecam.db */
    const char *http;     /* web app address, or NULL for none */
    const char *token;
    const char *gpio;     /* push buttons: "CHIP:LINE=ACTION,...", or NULL */
    bool json;            /* announcements as JSON lines */
    bool resume;          /* continue the newest live match of this game */
    bool realtime;        /* pace recorded and simulated cameras */
    bool keys;            /* read turn signals from standard input */
    bool summary;         /* print a summary at the end */
    bool hold;            /* keep the web app up after the stream ends, until a signal */
} ui_watch_opts;

/* Runs until the camera's stream ends or SIGINT/SIGTERM; returns an exit
 * status, having printed what went wrong. */
int ui_watch_run(const ui_command *cmd, const ui_watch_opts *o);

#endif
