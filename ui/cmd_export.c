/* ui/cmd_export.c: `tablecam export [--db FILE] MATCH`: writes a stored
 * match as a game record (FORMATS.md 2) on stdout: its header line, then
 * one line per event in play order, illegal ones included, so that
 * `tablecam referee` on the output gives the verdicts that were stored.
 * Moves the players took back (stored, marked REF_RULE_TAKEN_BACK) are
 * left out: in the game they never happened. */
#include "ui.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "db.h"
#include "referee.h"

int ui_cmd_export(int argc, char **argv)
{
    const ui_command *self = ui_command_find("export");
    const char *dbpath = "tablecam.db", *pos[1];
    ui_opt opts[] = {{"--db", UI_OPT_VALUE, &dbpath, NULL}};
    int npos, rc, status = UI_EXIT_OK;
    long long id;
    char *end;
    db *d = NULL;
    db_match *m = NULL;
    base_err err;

    if ((rc = ui_parse_args(self, argc, argv, opts, 1, pos, 1, &npos)) != 0)
        return rc;
    if (npos != 1) {
        ui_usage(self, stderr);
        return UI_EXIT_USAGE;
    }
    errno = 0;
    id = strtoll(pos[0], &end, 10);
    if (errno || end == pos[0] || *end || id < 0) {
        ui_fail(self, UI_EXIT_USAGE, "MATCH must be a match id (a whole number), not '%s'",
                pos[0]);
        ui_usage(self, stderr);
        return UI_EXIT_USAGE;
    }
    if (db_open(dbpath, DB_OPEN_READONLY, &err, &d) != 0)
        return ui_fail(self, UI_EXIT_FAIL, "%s", err.msg);
    if (db_match_load(d, id, &m, &err) != 0) {
        status = ui_fail(self, UI_EXIT_FAIL, "%s", err.msg);
        goto done;
    }
    /* The header is kept as the record had it; the events are rebuilt
     * from the stored moves (which carry the mover's hand when known). */
    {
        cJSON *h = cJSON_Parse(m->info.header);
        if (!h) {
            status = ui_fail(self, UI_EXIT_FAIL, "match %lld: the stored header is not JSON", id);
            goto done;
        }
        ui_print_json_line(h);
        cJSON_Delete(h);
    }
    for (int i = 0; i < m->nevents; i++) {
        const char *rule = m->events[i].rule;
        if (!m->events[i].legal && rule && strcmp(rule, REF_RULE_TAKEN_BACK) == 0)
            continue;
        cJSON *o = cJSON_CreateObject(), *mv = cJSON_Parse(m->events[i].move);
        if (!mv) {
            cJSON_Delete(o);
            status = ui_fail(self, UI_EXIT_FAIL, "match %lld event %d: the stored move is not JSON",
                             id, m->events[i].seq);
            goto done;
        }
        cJSON_AddNumberToObject(o, "player", m->events[i].seat);
        cJSON_AddItemToObject(o, "move", mv);
        ui_print_json_line(o);
        cJSON_Delete(o);
    }
done:
    db_match_free(m);
    db_close(d);
    fflush(stdout);
    return status;
}
