/* ui/cmd_matches.c: `tablecam matches [--db FILE] [--game G] [--player NAME]
 * [--state S] [--json]`: the stored matches, newest first, as a table (id,
 * game, players, date, state, scores, winners) or one JSON object a line. */
#include "ui.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "db.h"

typedef struct ui__list {
    bool json;
    int n;
} ui__list;

/* The scores to show: final ones when the match has them, else the
 * running scores after its last event (NULL when it has no event). */
static cJSON *ui__scores(const db_match_info *m)
{
    bool final = m->nseats > 0;
    for (int i = 0; i < m->nseats; i++)
        final = final && m->seats[i].has_score;
    if (final) {
        int s[DB_MAX_SEATS];
        for (int i = 0; i < m->nseats; i++)
            s[i] = m->seats[i].score;
        return cJSON_CreateIntArray(s, m->nseats);
    }
    return m->last_scores ? cJSON_Parse(m->last_scores) : NULL;
}

static int ui__row(void *ctx, const db_match_info *m)
{
    ui__list *l = ctx;
    cJSON *scores = ui__scores(m);
    l->n++;
    if (l->json) {
        cJSON *o = cJSON_CreateObject(), *players, *w;
        cJSON_AddNumberToObject(o, "id", (double)m->id);
        cJSON_AddStringToObject(o, "game", m->game);
        players = cJSON_AddArrayToObject(o, "players");
        for (int i = 0; i < m->nseats; i++)
            cJSON_AddItemToArray(players, cJSON_CreateString(m->seats[i].name));
        cJSON_AddStringToObject(o, "started", m->started);
        if (m->ended[0])
            cJSON_AddStringToObject(o, "ended", m->ended);
        else
            cJSON_AddNullToObject(o, "ended");
        cJSON_AddStringToObject(o, "state", db_state_name(m->state));
        cJSON_AddNumberToObject(o, "events", m->nevents);
        if (scores)
            cJSON_AddItemToObject(o, "scores", scores);
        else
            cJSON_AddNullToObject(o, "scores");
        scores = NULL;
        w = cJSON_AddArrayToObject(o, "winners");
        for (int i = 0; i < m->nseats; i++)
            if (m->seats[i].winner)
                cJSON_AddItemToArray(w, cJSON_CreateNumber(i));
        ui_print_json_line(o);
        cJSON_Delete(o);
        return 0;
    }
    {
        char players[256] = "", sc[128] = "", win[256] = "", date[20];
        const cJSON *it;
        for (int i = 0; i < m->nseats; i++) {
            size_t n = strlen(players);
            snprintf(players + n, sizeof players - n, "%s%s", i ? ", " : "", m->seats[i].name);
            if (m->seats[i].winner) {
                n = strlen(win);
                snprintf(win + n, sizeof win - n, "%s%s", n ? ", " : "", m->seats[i].name);
            }
        }
        cJSON_ArrayForEach(it, scores)
        {
            size_t n = strlen(sc);
            snprintf(sc + n, sizeof sc - n, "%s%d", n ? "-" : "", it->valueint);
        }
        /* 2026-11-21T23:40:24.123Z -> 2026-11-21 23:40 */
        snprintf(date, sizeof date, "%.16s", m->started);
        if (strlen(date) > 10)
            date[10] = ' ';
        printf("%5lld  %-8s %-24s %-16s  %-9s  %-12s %s\n", (long long)m->id, m->game, players,
               date, db_state_name(m->state), sc[0] ? sc : "-", win[0] ? win : "-");
    }
    cJSON_Delete(scores);
    return 0;
}

int ui_cmd_matches(int argc, char **argv)
{
    const ui_command *self = ui_command_find("matches");
    const char *dbpath = "tablecam.db", *game = NULL, *player = NULL, *state = NULL;
    bool json = false;
    ui_opt opts[] = {{"--db", UI_OPT_VALUE, &dbpath, NULL},
                     {"--game", UI_OPT_VALUE, &game, NULL},
                     {"--player", UI_OPT_VALUE, &player, NULL},
                     {"--state", UI_OPT_VALUE, &state, NULL},
                     {"--json", UI_OPT_FLAG, NULL, &json}};
    db_filter f = {.game = NULL, .player = NULL, .state = -1};
    ui__list l = {0};
    const char *pos[1];
    int npos, rc;
    db *d = NULL;
    base_err err;

    if ((rc = ui_parse_args(self, argc, argv, opts, 5, pos, 0, &npos)) != 0)
        return rc;
    if (state) {
        for (int s = DB_LIVE; s <= DB_ABANDONED; s++)
            if (strcmp(state, db_state_name(s)) == 0)
                f.state = s;
        if (f.state < 0) {
            ui_fail(self, UI_EXIT_USAGE, "unknown state '%s' (live, finished or abandoned)",
                    state);
            ui_usage(self, stderr);
            return UI_EXIT_USAGE;
        }
    }
    f.game = game;
    f.player = player;
    l.json = json;
    if (db_open(dbpath, DB_OPEN_READONLY, &err, &d) != 0)
        return ui_fail(self, UI_EXIT_FAIL, "%s", err.msg);
    if (!json)
        printf("%5s  %-8s %-24s %-16s  %-9s  %-12s %s\n", "ID", "GAME", "PLAYERS", "DATE (UTC)",
               "STATE", "SCORES", "WINNERS");
    rc = db_matches_list(d, &f, ui__row, &l, &err);
    db_close(d);
    if (rc != 0)
        return ui_fail(self, UI_EXIT_FAIL, "%s", err.msg);
    if (!json && l.n == 0)
        printf("(no matches)\n");
    fflush(stdout);
    return UI_EXIT_OK;
}
