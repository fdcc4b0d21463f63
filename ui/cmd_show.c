/* ui/cmd_show.c: `tablecam show [--db FILE] [--json] [--at N [--svg]] MATCH`.
 * Without --at: the match's moves with their verdicts and running scores
 * (and any corrections).  With --at N: the board after move N (0: before
 * the first), as text, or with --svg as an SVG document on stdout. */
#include "ui.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "board.h"
#include "db.h"

static int ui__parse_id(const char *s, long long max, long long *out)
{
    char *end;
    long long v;
    errno = 0;
    v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < 0 || v > max)
        return -1;
    *out = v;
    return 0;
}

static void ui__cat(char *buf, size_t cap, const char *s)
{
    size_t n = strlen(buf);
    snprintf(buf + n, cap - n, "%s", s);
}

/* One piece in a few words: its names, then where it lies. */
static void ui__piece_summary(const cJSON *p, char *buf, size_t cap)
{
    static const char *const coords[][2] = {{"x", "y"}, {"col", "row"}, {"q", "r"}};
    const cJSON *it;
    char w[96] = "";
    cJSON_ArrayForEach(it, p)
    {
        if (cJSON_IsString(it) && strcmp(it->string, "player") != 0) {
            if (w[0])
                ui__cat(w, sizeof w, " ");
            ui__cat(w, sizeof w, it->valuestring);
        } else if (cJSON_IsArray(it) && strcmp(it->string, "faces") == 0) {
            const cJSON *c;
            int k = 0;
            if (w[0])
                ui__cat(w, sizeof w, " ");
            cJSON_ArrayForEach(c, it)
            {
                ui__cat(w, sizeof w, k++ ? "/" : "");
                ui__cat(w, sizeof w, cJSON_IsString(c) ? c->valuestring : "?");
            }
        }
    }
    for (size_t i = 0; i < sizeof coords / sizeof coords[0]; i++) {
        const cJSON *a = cJSON_GetObjectItemCaseSensitive(p, coords[i][0]);
        const cJSON *b = cJSON_GetObjectItemCaseSensitive(p, coords[i][1]);
        if (cJSON_IsNumber(a) && cJSON_IsNumber(b)) {
            size_t n = strlen(w);
            snprintf(w + n, sizeof w - n, "@%d,%d", a->valueint, b->valueint);
        }
    }
    {
        const cJSON *cells = cJSON_GetObjectItemCaseSensitive(p, "cells"), *c0;
        if (cJSON_IsArray(cells) && (c0 = cJSON_GetArrayItem(cells, 0)) &&
            cJSON_GetArraySize(c0) == 3) {
            size_t n = strlen(w);
            snprintf(w + n, sizeof w - n, "@%d,%d,%d", cJSON_GetArrayItem(c0, 0)->valueint,
                     cJSON_GetArrayItem(c0, 1)->valueint, cJSON_GetArrayItem(c0, 2)->valueint);
        }
    }
    ui__cat(buf, cap, w);
}

/* A move in a line: "place red circle@0,0 red square@1,0", "move 2,4 -> off". */
static void ui__move_summary(const char *json, char *buf, size_t cap)
{
    cJSON *m = cJSON_Parse(json);
    const cJSON *type, *pieces, *from, *to, *p;
    buf[0] = '\0';
    if (!m) {
        snprintf(buf, cap, "?");
        return;
    }
    type = cJSON_GetObjectItemCaseSensitive(m, "type");
    ui__cat(buf, cap, cJSON_IsString(type) ? type->valuestring : "?");
    pieces = cJSON_GetObjectItemCaseSensitive(m, "pieces");
    cJSON_ArrayForEach(p, pieces)
    {
        ui__cat(buf, cap, " ");
        if (cJSON_IsObject(p)) {
            ui__piece_summary(p, buf, cap);
        } else {
            char *s = cJSON_PrintUnformatted(p);
            ui__cat(buf, cap, s ? s : "?");
            cJSON_free(s);
        }
    }
    from = cJSON_GetObjectItemCaseSensitive(m, "from");
    to = cJSON_GetObjectItemCaseSensitive(m, "to");
    if (cJSON_GetArraySize(from) == 2) {
        size_t n = strlen(buf);
        snprintf(buf + n, cap - n, " %d,%d ->", cJSON_GetArrayItem(from, 0)->valueint,
                 cJSON_GetArrayItem(from, 1)->valueint);
    }
    if (cJSON_IsString(to)) {
        ui__cat(buf, cap, " ");
        ui__cat(buf, cap, to->valuestring);
    } else if (cJSON_GetArraySize(to) == 2) {
        size_t n = strlen(buf);
        snprintf(buf + n, cap - n, " %d,%d", cJSON_GetArrayItem(to, 0)->valueint,
                 cJSON_GetArrayItem(to, 1)->valueint);
    }
    cJSON_Delete(m);
    if (strlen(buf) > 48)
        snprintf(buf + 45, cap - 45, "...");
}

static void ui__scores_text(const char *json, char *buf, size_t cap)
{
    cJSON *s = cJSON_Parse(json ? json : ""), *it;
    buf[0] = '\0';
    cJSON_ArrayForEach(it, s)
    {
        size_t n = strlen(buf);
        snprintf(buf + n, cap - n, "%s%d", n ? " " : "", it->valueint);
    }
    cJSON_Delete(s);
}

static cJSON *ui__event_json(const db_event *e)
{
    cJSON *o = cJSON_CreateObject(), *extra;
    cJSON_AddNumberToObject(o, "seq", e->seq);
    cJSON_AddNumberToObject(o, "player", e->seat);
    cJSON_AddBoolToObject(o, "legal", e->legal);
    if (e->legal) {
        cJSON_AddNumberToObject(o, "points", e->points);
    } else {
        cJSON_AddStringToObject(o, "rule", e->rule ? e->rule : "");
        cJSON_AddStringToObject(o, "reason", e->reason ? e->reason : "");
    }
    cJSON_AddItemToObject(o, "scores", cJSON_Parse(e->scores));
    if (e->extra && (extra = cJSON_Parse(e->extra))) {
        cJSON *it;
        while ((it = extra->child)) {
            cJSON_DetachItemViaPointer(extra, it);
            cJSON_AddItemToObject(o, it->string, it);
        }
        cJSON_Delete(extra);
    }
    cJSON_AddItemToObject(o, "move", cJSON_Parse(e->move));
    cJSON_AddStringToObject(o, "source", db_source_name(e->source) ? db_source_name(e->source)
                                                                   : "?");
    cJSON_AddStringToObject(o, "time", e->time ? e->time : "");
    return o;
}

typedef struct ui__corr {
    bool json;
    int n;
} ui__corr;

static int ui__correction(void *ctx, const db_correction *c)
{
    ui__corr *k = ctx;
    if (k->json) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddBoolToObject(o, "correction", true);
        cJSON_AddNumberToObject(o, "seq", c->seq);
        cJSON_AddStringToObject(o, "field", c->field);
        if (c->before)
            cJSON_AddStringToObject(o, "before", c->before);
        else
            cJSON_AddNullToObject(o, "before");
        if (c->after)
            cJSON_AddStringToObject(o, "after", c->after);
        else
            cJSON_AddNullToObject(o, "after");
        cJSON_AddStringToObject(o, "time", c->time ? c->time : "");
        if (c->note)
            cJSON_AddStringToObject(o, "note", c->note);
        ui_print_json_line(o);
        cJSON_Delete(o);
    } else {
        if (k->n == 0)
            printf("corrections:\n");
        printf("  move %d: %s %s -> %s (%.16s%s%s)\n", c->seq, c->field,
               c->before ? c->before : "(none)", c->after ? c->after : "(none)", c->time,
               c->note ? ", " : "", c->note ? c->note : "");
    }
    k->n++;
    return 0;
}

static void ui__print_table(const db_match *m)
{
    const db_match_info *in = &m->info;
    char date[20];
    snprintf(date, sizeof date, "%.16s", in->started);
    if (strlen(date) > 10)
        date[10] = ' ';
    printf("match %lld: %s, ", (long long)in->id, in->game);
    for (int i = 0; i < in->nseats; i++)
        printf("%s%s", i ? " vs " : "", in->seats[i].name);
    printf(", started %s UTC, %s\n", date, db_state_name(in->state));
    printf("%4s  %-12s %-48s  %-8s %s\n", "#", "PLAYER", "MOVE", "SCORES", "VERDICT");
    for (int i = 0; i < m->nevents; i++) {
        const db_event *e = &m->events[i];
        char mv[160], sc[64];
        ui__move_summary(e->move, mv, sizeof mv);
        ui__scores_text(e->scores, sc, sizeof sc);
        printf("%4d  %-12s %-48s  %-8s ", e->seq,
               e->seat < in->nseats ? in->seats[e->seat].name : "?", mv, sc);
        if (e->legal)
            printf("+%d\n", e->points);
        else
            printf("ILLEGAL %s: %s\n", e->rule ? e->rule : "?", e->reason ? e->reason : "");
    }
    if (in->state == DB_FINISHED) {
        printf("final:");
        for (int i = 0; i < in->nseats; i++)
            printf("%s %s %d", i ? "," : "", in->seats[i].name, in->seats[i].score);
        printf("; won by");
        for (int i = 0, k = 0; i < in->nseats; i++)
            if (in->seats[i].winner)
                printf("%s %s", k++ ? "," : "", in->seats[i].name);
        printf("\n");
    }
}

static int ui__show_at(const ui_command *self, const db_match *m, long long at, bool svg,
                       bool json)
{
    char empty[64];
    const char *pos;
    base_err err;
    int rc;
    if (at == 0) {
        snprintf(empty, sizeof empty, "{\"game\":\"%s\",\"pieces\":[]}", m->info.game);
        pos = empty;
    } else {
        pos = m->events[at - 1].position;
        if (!pos)
            return ui_fail(self, UI_EXIT_FAIL, "move %lld of match %lld has no stored position",
                           at, (long long)m->info.id);
    }
    if (svg) {
        rc = ui_board_svg(stdout, m->info.game, pos, &err);
    } else if (json) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "match", (double)m->info.id);
        cJSON_AddNumberToObject(o, "seq", (double)at);
        cJSON_AddItemToObject(o, "position", cJSON_Parse(pos));
        ui_print_json_line(o);
        cJSON_Delete(o);
        rc = 0;
    } else {
        printf("match %lld (%s) after move %lld of %d", (long long)m->info.id, m->info.game, at,
               m->nevents);
        if (at > 0) {
            char sc[64];
            ui__scores_text(m->events[at - 1].scores, sc, sizeof sc);
            printf(", scores %s", sc);
        }
        printf(":\n");
        rc = ui_board_text(stdout, m->info.game, pos, &err);
    }
    if (rc != 0)
        return ui_fail(self, UI_EXIT_FAIL, "match %lld move %lld: %s", (long long)m->info.id, at,
                       err.msg);
    return UI_EXIT_OK;
}

int ui_cmd_show(int argc, char **argv)
{
    const ui_command *self = ui_command_find("show");
    const char *dbpath = "tablecam.db", *at_s = NULL, *pos[1];
    bool json = false, svg = false;
    ui_opt opts[] = {{"--db", UI_OPT_VALUE, &dbpath, NULL},
                     {"--at", UI_OPT_VALUE, &at_s, NULL},
                     {"--svg", UI_OPT_FLAG, NULL, &svg},
                     {"--json", UI_OPT_FLAG, NULL, &json}};
    long long id, at = -1;
    int npos, rc, status = UI_EXIT_OK;
    db *d = NULL;
    db_match *m = NULL;
    base_err err;

    if ((rc = ui_parse_args(self, argc, argv, opts, 4, pos, 1, &npos)) != 0)
        return rc;
    if (npos != 1 || (svg && !at_s) || (svg && json)) {
        if (svg && !at_s)
            fprintf(stderr, "tablecam show: --svg draws a board: it needs --at N\n");
        ui_usage(self, stderr);
        return UI_EXIT_USAGE;
    }
    if (ui__parse_id(pos[0], INT64_MAX, &id) != 0) {
        ui_fail(self, UI_EXIT_USAGE, "MATCH must be a match id (a whole number), not '%s'",
                pos[0]);
        ui_usage(self, stderr);
        return UI_EXIT_USAGE;
    }
    if (at_s && ui__parse_id(at_s, 1000000000, &at) != 0) {
        ui_fail(self, UI_EXIT_USAGE, "--at needs a move number (0 or more), not '%s'", at_s);
        ui_usage(self, stderr);
        return UI_EXIT_USAGE;
    }
    if (db_open(dbpath, DB_OPEN_READONLY, &err, &d) != 0)
        return ui_fail(self, UI_EXIT_FAIL, "%s", err.msg);
    if (db_match_load(d, id, &m, &err) != 0) {
        status = ui_fail(self, UI_EXIT_FAIL, "%s", err.msg);
        goto done;
    }
    if (at > m->nevents) {
        status = ui_fail(self, UI_EXIT_USAGE, "--at %lld: match %lld has %d moves", at, id,
                         m->nevents);
        goto done;
    }
    if (at >= 0) {
        status = ui__show_at(self, m, at, svg, json);
        goto done;
    }
    if (json) {
        cJSON *o = cJSON_CreateObject(), *players, *w;
        cJSON_AddNumberToObject(o, "match", (double)id);
        cJSON_AddStringToObject(o, "game", m->info.game);
        players = cJSON_AddArrayToObject(o, "players");
        for (int i = 0; i < m->info.nseats; i++)
            cJSON_AddItemToArray(players, cJSON_CreateString(m->info.seats[i].name));
        cJSON_AddStringToObject(o, "state", db_state_name(m->info.state));
        cJSON_AddStringToObject(o, "started", m->info.started);
        cJSON_AddNumberToObject(o, "events", m->nevents);
        w = cJSON_AddArrayToObject(o, "winners");
        for (int i = 0; i < m->info.nseats; i++)
            if (m->info.seats[i].winner)
                cJSON_AddItemToArray(w, cJSON_CreateNumber(i));
        ui_print_json_line(o);
        cJSON_Delete(o);
        for (int i = 0; i < m->nevents; i++) {
            cJSON *e = ui__event_json(&m->events[i]);
            ui_print_json_line(e);
            cJSON_Delete(e);
        }
    } else {
        ui__print_table(m);
    }
    {
        ui__corr k = {.json = json, .n = 0};
        if (db_corrections_list(d, id, ui__correction, &k, &err) != 0)
            status = ui_fail(self, UI_EXIT_FAIL, "%s", err.msg);
    }
done:
    db_match_free(m);
    db_close(d);
    fflush(stdout);
    return status;
}
