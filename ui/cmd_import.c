/* ui/cmd_import.c: `tablecam import --game G [--db FILE] [--json] FILE|-`.
 * Reads a game record (FORMATS.md 2), referees every event with the rules
 * engine while storing it (illegal events with their rule and reason,
 * source "imported"), and prints the new match id.  The whole import is
 * one transaction: a record that cannot be read stores nothing (exit 2,
 * with the line number). */
#define _POSIX_C_SOURCE 200809L
#include "ui.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "rules.h"

static bool ui__blank(const char *s)
{
    while (*s && isspace((unsigned char)*s))
        s++;
    return *s == '\0';
}

/* The verdict's keys that the events table has no column for. */
static char *ui__verdict_extra(const rules_game *g, int seq, int player, const rules_verdict *v)
{
    static const char *const known[] = {"seq",    "player", "legal", "points",
                                        "rule",   "reason", "scores"};
    cJSON *obj = rules_verdict_to_json(g, seq, player, v);
    char *s = NULL;
    if (!obj)
        return NULL;
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        cJSON_DeleteItemFromObjectCaseSensitive(obj, known[i]);
    if (obj->child)
        s = cJSON_PrintUnformatted(obj);
    cJSON_Delete(obj);
    return s;
}

typedef struct ui__import {
    const ui_command *self;
    const char *file;
    const char *game;
    rules_game *g;
    db *d;
    int64_t match;
    int nevents, nillegal;
} ui__import;

/* Starts the match from the header line (already parsed). */
static int ui__header(ui__import *im, const cJSON *obj, long lineno)
{
    const cJSON *hg = cJSON_GetObjectItemCaseSensitive(obj, "game");
    const cJSON *players, *opts;
    const char *names[DB_MAX_SEATS];
    char *header = NULL, *options = NULL;
    base_err err;
    int n, rc;

    if (!cJSON_IsString(hg))
        return ui_fail(im->self, UI_EXIT_USAGE,
                       "%s line %ld: the header needs \"game\" (the game id)", im->file, lineno);
    if (strcmp(hg->valuestring, im->game) != 0)
        return ui_fail(im->self, UI_EXIT_USAGE,
                       "%s line %ld: the record is a %s game, but --game says %s", im->file,
                       lineno, hg->valuestring, im->game);
    if (rules_game_new(im->game, obj, &err, &im->g) != 0)
        return ui_fail(im->self, UI_EXIT_USAGE, "%s line %ld: %s", im->file, lineno, err.msg);
    players = cJSON_GetObjectItemCaseSensitive(obj, "players");
    n = cJSON_GetArraySize(players);
    if (n > DB_MAX_SEATS)
        return ui_fail(im->self, UI_EXIT_USAGE, "%s line %ld: at most %d players can be stored",
                       im->file, lineno, DB_MAX_SEATS);
    for (int i = 0; i < n; i++)
        names[i] = cJSON_GetArrayItem(players, i)->valuestring;
    opts = cJSON_GetObjectItemCaseSensitive(obj, "options");
    header = cJSON_PrintUnformatted(obj);
    options = opts ? cJSON_PrintUnformatted(opts) : NULL;
    rc = db_match_new(im->d, im->game, options, header, names, n, NULL, &im->match, &err);
    cJSON_free(header);
    cJSON_free(options);
    if (rc == BASE_EINVAL || rc == BASE_ERANGE)
        return ui_fail(im->self, UI_EXIT_USAGE, "%s line %ld: %s", im->file, lineno, err.msg);
    if (rc != 0)
        return ui_fail(im->self, UI_EXIT_FAIL, "%s", err.msg);
    return UI_EXIT_OK;
}

/* Referees and stores one event line. */
static int ui__event(ui__import *im, const cJSON *obj, long lineno, rules_move *move)
{
    rules_verdict v;
    base_err err;
    int player, rc;
    char *mj, *scores, *position, *extra;
    cJSON *tmp;
    db_event ev = {0};

    if (rules_event_from_json(im->game, obj, &player, move, &err) != 0)
        return ui_fail(im->self, UI_EXIT_USAGE, "%s line %ld: %s", im->file, lineno, err.msg);
    if (rules_apply(im->g, player, move, &v) != 0) {
        rules_status st;
        rules_game_status(im->g, &st);
        return ui_fail(im->self, UI_EXIT_USAGE,
                       "%s line %ld: \"player\" %d is not a seat (the header names %d)",
                       im->file, lineno, player, st.nplayers);
    }
    im->nevents++;
    im->nillegal += !v.legal;
    tmp = rules_move_to_json(im->game, move);
    mj = tmp ? cJSON_PrintUnformatted(tmp) : NULL;
    cJSON_Delete(tmp);
    tmp = cJSON_CreateIntArray(v.scores, v.nplayers);
    scores = tmp ? cJSON_PrintUnformatted(tmp) : NULL;
    cJSON_Delete(tmp);
    tmp = rules_position_to_json(im->g);
    position = tmp ? cJSON_PrintUnformatted(tmp) : NULL;
    cJSON_Delete(tmp);
    extra = ui__verdict_extra(im->g, im->nevents, player, &v);
    ev.seat = player;
    ev.move = mj;
    ev.legal = v.legal;
    ev.rule = v.rule;
    ev.reason = v.reason;
    ev.points = v.points;
    ev.scores = scores;
    ev.position = position;
    ev.extra = extra;
    ev.source = DB_SRC_IMPORTED;
    if (!mj || !scores)
        rc = base_err_set(&err, BASE_ENOMEM, "out of memory");
    else
        rc = db_event_append(im->d, im->match, &ev, NULL, &err);
    cJSON_free(mj);
    cJSON_free(scores);
    cJSON_free(position);
    cJSON_free(extra);
    if (rc != 0)
        return ui_fail(im->self, UI_EXIT_FAIL, "%s line %ld: %s", im->file, lineno, err.msg);
    return UI_EXIT_OK;
}

/* Finished when the rules say so; a record that stops before the end is
 * kept as abandoned, with its running scores. */
static int ui__end(ui__import *im, int *state)
{
    rules_status st;
    base_err err;
    int rc;
    rules_game_status(im->g, &st);
    if (st.over) {
        rc = db_match_finish(im->d, im->match, st.scores, st.nplayers, st.winners, &err);
        *state = DB_FINISHED;
    } else {
        rc = db_match_abandon(im->d, im->match, &err);
        *state = DB_ABANDONED;
    }
    if (rc != 0)
        return ui_fail(im->self, UI_EXIT_FAIL, "%s", err.msg);
    return UI_EXIT_OK;
}

int ui_cmd_import(int argc, char **argv)
{
    const ui_command *self = ui_command_find("import");
    const char *game = NULL, *dbpath = "tablecam.db", *pos[1];
    bool json = false;
    ui_opt opts[] = {{"--game", UI_OPT_VALUE, &game, NULL},
                     {"--db", UI_OPT_VALUE, &dbpath, NULL},
                     {"--json", UI_OPT_FLAG, NULL, &json}};
    ui__import im = {0};
    int npos, rc, status = UI_EXIT_OK, state = DB_LIVE;
    FILE *in = NULL;
    char *line = NULL;
    size_t cap = 0;
    long lineno = 0;
    rules_move *move = NULL;
    base_err err;

    if ((rc = ui_parse_args(self, argc, argv, opts, 3, pos, 1, &npos)) != 0)
        return rc;
    if (!game || npos != 1) {
        ui_usage(self, stderr);
        return UI_EXIT_USAGE;
    }
    if (!rules_game_available(game)) {
        rules_game *g = NULL;
        rules_game_new(game, NULL, &err, &g);
        return ui_fail(self, UI_EXIT_USAGE, "%s", err.msg);
    }
    im.self = self;
    im.game = game;
    im.file = strcmp(pos[0], "-") == 0 ? "(stdin)" : pos[0];
    if (strcmp(pos[0], "-") == 0)
        in = stdin;
    else if (!(in = fopen(pos[0], "r")))
        return ui_fail(self, UI_EXIT_USAGE, "cannot open %s: %s", pos[0], strerror(errno));
    if (!(move = malloc(sizeof *move))) {
        status = ui_fail(self, UI_EXIT_FAIL, "out of memory");
        goto done;
    }
    if (db_open(dbpath, DB_OPEN_CREATE, &err, &im.d) != 0) {
        status = ui_fail(self, UI_EXIT_FAIL, "%s", err.msg);
        goto done;
    }
    if (db_begin(im.d, &err) != 0) {
        status = ui_fail(self, UI_EXIT_FAIL, "%s", err.msg);
        goto done;
    }
    while (status == UI_EXIT_OK && getline(&line, &cap, in) >= 0) {
        cJSON *obj;
        lineno++;
        if (ui__blank(line))
            continue;
        if (!(obj = cJSON_Parse(line))) {
            status = ui_fail(self, UI_EXIT_USAGE, "%s line %ld: not valid JSON", im.file, lineno);
            break;
        }
        status = im.g ? ui__event(&im, obj, lineno, move) : ui__header(&im, obj, lineno);
        cJSON_Delete(obj);
    }
    if (status == UI_EXIT_OK && ferror(in))
        status = ui_fail(self, UI_EXIT_USAGE, "%s line %ld: read error", im.file, lineno + 1);
    if (status == UI_EXIT_OK && !im.g)
        status = ui_fail(self, UI_EXIT_USAGE,
                         "%s: the record is empty (line 1 must be the header)", im.file);
    if (status == UI_EXIT_OK)
        status = ui__end(&im, &state);
    if (status == UI_EXIT_OK && db_commit(im.d, &err) != 0)
        status = ui_fail(self, UI_EXIT_FAIL, "%s", err.msg);
    if (status != UI_EXIT_OK) {
        db_rollback(im.d);
        goto done;
    }
    if (json) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "match", (double)im.match);
        cJSON_AddStringToObject(o, "game", game);
        cJSON_AddNumberToObject(o, "events", im.nevents);
        cJSON_AddNumberToObject(o, "illegal", im.nillegal);
        cJSON_AddStringToObject(o, "state", db_state_name(state));
        ui_print_json_line(o);
        cJSON_Delete(o);
    } else {
        printf("%lld\n", (long long)im.match);
    }
done:
    db_close(im.d);
    free(line);
    free(move);
    rules_game_free(im.g);
    if (in && in != stdin)
        fclose(in);
    fflush(stdout);
    return status;
}
