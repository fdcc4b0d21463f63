/* ui/cmd_stats.c: `tablecam stats [--db FILE] [--player NAME] [--game G]
 * [--json]`: per player, finished games, wins (a shared win counts) and
 * the average final score, plus matches still live. */
#include "ui.h"

#include <string.h>

#include <cjson/cJSON.h>

#include "db.h"

typedef struct ui__stats {
    bool json;
    int n;
} ui__stats;

static int ui__stat_row(void *ctx, const db_player_stats *s)
{
    ui__stats *k = ctx;
    k->n++;
    if (k->json) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "player", s->name);
        cJSON_AddNumberToObject(o, "games", s->games);
        cJSON_AddNumberToObject(o, "wins", s->wins);
        cJSON_AddNumberToObject(o, "average", s->average);
        cJSON_AddNumberToObject(o, "live", s->live);
        ui_print_json_line(o);
        cJSON_Delete(o);
    } else {
        printf("%-20s %6d %6d %9.1f %6d\n", s->name, s->games, s->wins, s->average, s->live);
    }
    return 0;
}

int ui_cmd_stats(int argc, char **argv)
{
    const ui_command *self = ui_command_find("stats");
    const char *dbpath = "tablecam.db", *player = NULL, *game = NULL, *pos[1];
    bool json = false;
    ui_opt opts[] = {{"--db", UI_OPT_VALUE, &dbpath, NULL},
                     {"--player", UI_OPT_VALUE, &player, NULL},
                     {"--game", UI_OPT_VALUE, &game, NULL},
                     {"--json", UI_OPT_FLAG, NULL, &json}};
    ui__stats k = {.json = json, .n = 0};
    int npos, rc;
    db *d = NULL;
    base_err err;

    if ((rc = ui_parse_args(self, argc, argv, opts, 4, pos, 0, &npos)) != 0)
        return rc;
    k.json = json;
    if (db_open(dbpath, DB_OPEN_READONLY, &err, &d) != 0)
        return ui_fail(self, UI_EXIT_FAIL, "%s", err.msg);
    if (!json)
        printf("%-20s %6s %6s %9s %6s\n", "PLAYER", "GAMES", "WINS", "AVERAGE", "LIVE");
    rc = db_stats(d, player, game, ui__stat_row, &k, &err);
    db_close(d);
    if (rc != 0)
        return ui_fail(self, UI_EXIT_FAIL, "%s", err.msg);
    if (k.n == 0 && player)
        return ui_fail(self, UI_EXIT_FAIL, "no matches for player '%s'", player);
    if (!json && k.n == 0)
        printf("(no matches)\n");
    fflush(stdout);
    return UI_EXIT_OK;
}
