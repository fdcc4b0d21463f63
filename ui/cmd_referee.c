/* ui/cmd_referee.c: `tablecam referee --game G FILE|-` (FORMATS.md 3).
 * Reads a game record, prints one verdict line per event and a final line.
 * An illegal move is a verdict; a record that cannot be read is exit 2 with
 * the line number. */
#define _POSIX_C_SOURCE 200809L
#include "ui.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rules.h"

static bool ui__blank(const char *s)
{
    while (*s && isspace((unsigned char)*s))
        s++;
    return *s == '\0';
}

static cJSON *ui__final_json(const rules_game *g)
{
    rules_status st;
    cJSON *obj = cJSON_CreateObject(), *w;
    rules_game_status(g, &st);
    cJSON_AddBoolToObject(obj, "final", true);
    cJSON_AddBoolToObject(obj, "over", st.over);
    cJSON_AddItemToObject(obj, "scores", cJSON_CreateIntArray(st.scores, st.nplayers));
    w = cJSON_AddArrayToObject(obj, "winners");
    for (int i = 0; st.over && i < st.nplayers; i++)
        if (st.winners & (1u << i))
            cJSON_AddItemToArray(w, cJSON_CreateNumber(i));
    return obj;
}

/* `--solve` (stack4): the line after the final one, whether the player to
 * move can force a win (docs/rules-stack4.md). */
static cJSON *ui__solve_json(const rules_game *g, double seconds)
{
    static const char *const results[] = {"loss", "draw", "win", "unknown"};
    rules_stack4_solution *sol = malloc(sizeof *sol);
    cJSON *obj, *in;
    if (!sol || rules_stack4_solve(g, seconds, sol) != 0) {
        free(sol);
        return NULL;
    }
    obj = cJSON_CreateObject();
    in = cJSON_AddObjectToObject(obj, "solve");
    cJSON_AddStringToObject(in, "result", results[sol->result + 1]);
    cJSON_AddNumberToObject(in, "player", sol->player);
    if (sol->has_move)
        cJSON_AddItemToObject(in, "move", rules_move_to_json(rules_game_id(g), &sol->move));
    cJSON_AddNumberToObject(in, "nodes", (double)sol->nodes);
    cJSON_AddNumberToObject(in, "seconds", (double)(long long)(sol->seconds * 1000 + 0.5) / 1000);
    free(sol);
    return obj;
}

int ui_cmd_referee(int argc, char **argv)
{
    const ui_command *self = ui_command_find("referee");
    const char *game = NULL, *pos[1];
    const char *solve_time = NULL;
    bool solve = false;
    double solve_seconds = 10;
    ui_opt opts[] = {{"--game", UI_OPT_VALUE, &game, NULL},
                     {"--solve", UI_OPT_FLAG, NULL, &solve},
                     {"--solve-time", UI_OPT_VALUE, &solve_time, NULL}};
    int npos, rc, status = UI_EXIT_OK;
    FILE *in;
    char *line = NULL;
    size_t cap = 0;
    long lineno = 0;
    int seq = 0;
    rules_game *g = NULL;
    rules_move *move = NULL;
    base_err err;

    if ((rc = ui_parse_args(self, argc, argv, opts, 3, pos, 1, &npos)) != 0)
        return rc;
    if (!game || npos != 1) {
        ui_usage(self, stderr);
        return UI_EXIT_USAGE;
    }
    if ((solve || solve_time) && strcmp(game, "stack4") != 0)
        return ui_fail(self, UI_EXIT_USAGE, "--solve is only for --game stack4");
    if (solve_time) {
        char *end;
        solve_seconds = strtod(solve_time, &end);
        if (end == solve_time || *end || !isfinite(solve_seconds) || solve_seconds <= 0)
            return ui_fail(self, UI_EXIT_USAGE,
                           "--solve-time needs a number of seconds above 0, not '%s'",
                           solve_time);
    }
    if (!rules_game_available(game)) {
        rules_game_new(game, NULL, &err, &g);
        return ui_fail(self, UI_EXIT_USAGE, "%s", err.msg);
    }
    if (strcmp(pos[0], "-") == 0) {
        in = stdin;
    } else if (!(in = fopen(pos[0], "r"))) {
        return ui_fail(self, UI_EXIT_USAGE, "cannot open %s: %s", pos[0], strerror(errno));
    }
    if (!(move = malloc(sizeof *move))) {
        status = ui_fail(self, UI_EXIT_FAIL, "out of memory");
        goto done;
    }

    while (getline(&line, &cap, in) >= 0) {
        cJSON *obj, *out;
        rules_verdict v;
        int player;

        lineno++;
        if (ui__blank(line))
            continue;
        if (!(obj = cJSON_Parse(line))) {
            status = ui_fail(self, UI_EXIT_USAGE, "%s line %ld: not valid JSON", pos[0], lineno);
            goto done;
        }
        if (!g) {
            const cJSON *hg = cJSON_GetObjectItemCaseSensitive(obj, "game");
            if (!cJSON_IsString(hg)) {
                status = ui_fail(self, UI_EXIT_USAGE,
                                 "%s line %ld: the header needs \"game\" (the game id)", pos[0],
                                 lineno);
            } else if (strcmp(hg->valuestring, game) != 0) {
                status = ui_fail(self, UI_EXIT_USAGE,
                                 "%s line %ld: the record is a %s game, but --game says %s",
                                 pos[0], lineno, hg->valuestring, game);
            } else if (rules_game_new(game, obj, &err, &g) != 0) {
                status = ui_fail(self, UI_EXIT_USAGE, "%s line %ld: %s", pos[0], lineno, err.msg);
            }
            cJSON_Delete(obj);
            if (status != UI_EXIT_OK)
                goto done;
            continue;
        }
        rc = rules_event_from_json(game, obj, &player, move, &err);
        cJSON_Delete(obj);
        if (rc != 0) {
            status = ui_fail(self, UI_EXIT_USAGE, "%s line %ld: %s", pos[0], lineno, err.msg);
            goto done;
        }
        if (rules_apply(g, player, move, &v) != 0) {
            rules_status st;
            rules_game_status(g, &st);
            status = ui_fail(self, UI_EXIT_USAGE,
                             "%s line %ld: \"player\" %d is not a seat (the header names %d)",
                             pos[0], lineno, player, st.nplayers);
            goto done;
        }
        out = rules_verdict_to_json(g, ++seq, player, &v);
        ui_print_json_line(out);
        cJSON_Delete(out);
    }
    if (ferror(in)) {
        status = ui_fail(self, UI_EXIT_USAGE, "%s line %ld: read error", pos[0], lineno + 1);
        goto done;
    }
    if (!g) {
        status = ui_fail(self, UI_EXIT_USAGE, "%s: the record is empty (line 1 must be the header)",
                         pos[0]);
        goto done;
    }
    {
        cJSON *fin = ui__final_json(g);
        ui_print_json_line(fin);
        cJSON_Delete(fin);
    }
    if (solve) {
        cJSON *sol = ui__solve_json(g, solve_seconds);
        if (!sol) {
            status = ui_fail(self, UI_EXIT_FAIL, "the solver ran out of memory");
            goto done;
        }
        ui_print_json_line(sol);
        cJSON_Delete(sol);
    }
done:
    free(line);
    free(move);
    rules_game_free(g);
    if (in != stdin)
        fclose(in);
    fflush(stdout);
    return status;
}
