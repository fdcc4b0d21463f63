/* ui/cmd_serve.c: `tablecam serve [--db FILE] [--http ADDR] [--token T]`.
 * The web app over a match store, without a camera: the history pages and
 * the API (the live page shows that no game is being refereed).  Prints
 * the page's address on stdout, then serves until SIGINT or SIGTERM. */
#define _POSIX_C_SOURCE 200809L
#include "ui.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "db.h"
#include "web.h"

int ui_cmd_serve(int argc, char **argv)
{
    const ui_command *self = ui_command_find("serve");
    const char *dbpath = "tablecam.db", *http = "127.0.0.1:8080", *token = NULL;
    ui_opt opts[] = {{"--db", UI_OPT_VALUE, &dbpath, NULL},
                     {"--http", UI_OPT_VALUE, &http, NULL},
                     {"--token", UI_OPT_VALUE, &token, NULL}};
    ui_web_config cfg = {0};
    ui_web *w;
    base_err err;
    sigset_t stop;
    db *d;
    int npos, rc, sig = 0;
    char host[256];

    if ((rc = ui_parse_args(self, argc, argv, opts, 3, NULL, 0, &npos)) != 0)
        return rc;
    /* A missing or unreadable store is worth saying now, but the server
     * still starts: the referee may create the file later. */
    if (db_open(dbpath, DB_OPEN_READONLY, &err, &d) == 0)
        db_close(d);
    else
        fprintf(stderr, "tablecam serve: warning: %s (the history pages report it until the file exists)\n",
                err.msg);
    /* Block the stop signals before the server's threads start, so that
     * they inherit the mask and only sigwait() below sees the signals. */
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop, NULL);

    cfg.listen = http;
    cfg.token = token;
    cfg.db_path = dbpath;
    if ((rc = ui_web_new(&cfg, &w, &err)) != 0)
        return ui_fail(self, rc == BASE_EINVAL ? UI_EXIT_USAGE : UI_EXIT_FAIL, "%s", err.msg);
    printf("%s\n", ui_web_url(w, host, sizeof host));
    fflush(stdout);
    fprintf(stderr, "tablecam serve: showing %s; Ctrl-C stops\n", dbpath);
    sigwait(&stop, &sig);
    ui_web_free(w);
    return UI_EXIT_OK;
}
