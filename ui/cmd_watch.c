/* ui/cmd_watch.c: `tablecam watch --game G --camera SPEC [--mat MAT]
 * [--lens NAME|FILE] [--profile NAME|FILE] [--pieces NAME|FILE] --players A,B [--db FILE]
 * [--start CARD] [--http ADDR] [--token T] [--gpio SPEC] [--json]
 * [--resume]` referees a live game, printing each announcement as a line. */
#include "watch.h"

int ui_cmd_watch(int argc, char **argv)
{
    const ui_command *self = ui_command_find("watch");
    ui_watch_opts o = {0};
    bool realtime = false, nokeys = false;
    const char *pos[1];
    ui_opt opts[] = {
        {"--game", UI_OPT_VALUE, &o.game, NULL},
        {"--camera", UI_OPT_VALUE, &o.camera, NULL},
        {"--mat", UI_OPT_VALUE, &o.mat, NULL},
        {"--lens", UI_OPT_VALUE, &o.lens, NULL},
        {"--profile", UI_OPT_VALUE, &o.profile, NULL},
        {"--pieces", UI_OPT_VALUE, &o.pieces, NULL},
        {"--players", UI_OPT_VALUE, &o.players, NULL},
        {"--options", UI_OPT_VALUE, &o.options, NULL},
        {"--start", UI_OPT_VALUE, &o.start, NULL},
        {"--db", UI_OPT_VALUE, &o.db_path, NULL},
        {"--http", UI_OPT_VALUE, &o.http, NULL},
        {"--token", UI_OPT_VALUE, &o.token, NULL},
        {"--gpio", UI_OPT_VALUE, &o.gpio, NULL},
        {"--json", UI_OPT_FLAG, NULL, &o.json},
        {"--resume", UI_OPT_FLAG, NULL, &o.resume},
        {"--realtime", UI_OPT_FLAG, NULL, &realtime},
        {"--no-keys", UI_OPT_FLAG, NULL, &nokeys},
    };
    int npos, rc;
    if ((rc = ui_parse_args(self, argc, argv, opts, (int)(sizeof opts / sizeof opts[0]), pos, 0,
                            &npos)) != 0)
        return rc;
    if (!o.game || !o.camera || (!o.players && !o.resume)) {
        ui_usage(self, stderr);
        return UI_EXIT_USAGE;
    }
    if (!o.db_path)
        o.db_path = "tablecam.db";
    o.realtime = realtime;
    o.keys = !nokeys; /* a terminal or a pipe: lines of keys */
    o.summary = true;
    return ui_watch_run(self, &o);
}
