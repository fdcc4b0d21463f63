/* ui/cmd_demo.c: `tablecam demo [--game G]`: a simulated match (Qwirkle
 * Cubes by default; cards, cube2) refereed live through the whole
 * pipeline (simulated camera, mat, recognition, rules, store,
 * announcements) with the web app up. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "watch.h"

int ui_cmd_demo(int argc, char **argv)
{
    const ui_command *self = ui_command_find("demo");
    const char *seed = "7", *moves = "40", *http = "127.0.0.1:8080", *db = NULL, *size = "1280x960";
    const char *game = "qwirkle";
    static const struct {
        const char *game, *title;
    } games[] = {{"qwirkle", "Qwirkle Cubes"}, {"cards", "Cubes the card game"}, {"cube2", "cube\xc2\xb2"}};
    const char *title = NULL;
    const char *pos[1];
    bool fast = false, noweb = false, json = false, hold = false;
    ui_opt opts[] = {
        {"--game", UI_OPT_VALUE, &game, NULL},
        {"--seed", UI_OPT_VALUE, &seed, NULL},
        {"--moves", UI_OPT_VALUE, &moves, NULL},
        {"--http", UI_OPT_VALUE, &http, NULL},
        {"--db", UI_OPT_VALUE, &db, NULL},
        {"--size", UI_OPT_VALUE, &size, NULL},
        {"--fast", UI_OPT_FLAG, NULL, &fast},
        {"--no-web", UI_OPT_FLAG, NULL, &noweb},
        {"--json", UI_OPT_FLAG, NULL, &json},
        {"--hold", UI_OPT_FLAG, NULL, &hold},
    };
    char camera[256];
    ui_watch_opts o = {0};
    int npos, rc;
    char *end;

    if ((rc = ui_parse_args(self, argc, argv, opts, (int)(sizeof opts / sizeof opts[0]), pos, 0,
                            &npos)) != 0)
        return rc;
    if (strtoull(seed, &end, 10), *end || !*seed)
        return ui_fail(self, UI_EXIT_USAGE, "--seed '%s': a whole number", seed);
    if (strtol(moves, &end, 10) < 0 || *end || !*moves)
        return ui_fail(self, UI_EXIT_USAGE, "--moves '%s': a whole number", moves);
    for (size_t i = 0; i < sizeof games / sizeof games[0]; i++)
        if (strcmp(game, games[i].game) == 0)
            title = games[i].title;
    if (!title)
        return ui_fail(self, UI_EXIT_USAGE, "--game '%s': the demo plays qwirkle, cards or cube2",
                       game);
    snprintf(camera, sizeof camera, "sim:%s:seed=%s:fps=10:%s:moves=%s:illegal=0.15", game, seed,
             size, moves);
    o.game = game;
    o.camera = camera;
    o.players = "Ann,Bob";
    o.db_path = db ? db : "tablecam-demo.db";
    o.http = noweb ? NULL : http;
    o.json = json;
    o.realtime = !fast;
    o.keys = false;
    o.summary = true;
    o.hold = hold;
    printf("tablecam demo: a simulated %s match between Ann and Bob, refereed live "
           "from the camera (seed %s, store %s)\n",
           title, seed, o.db_path);
    fflush(stdout);
    return ui_watch_run(self, &o);
}
