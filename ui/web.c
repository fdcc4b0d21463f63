/* ui/web.c: the local web app's server (civetweb): routing, the security
 * rules, requests and responses, the JSON API over the match store, the
 * embedded static files, starting and stopping.  The live side (state,
 * push streams, the page's actions) is ui/web_live.c, round ui/web_int.h.
 * See web.h for the model and docs/web.md for the API. */
#define _POSIX_C_SOURCE 200809L
#include "web_int.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdatomic.h>
#include <sys/socket.h>
#include <unistd.h>
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "board.h"
#include "db.h"

/* The files of ui/web_assets/, embedded by ui/embed_assets.cmake. */
struct ui__web_asset {
    const char *name;
    const char *type;
    const unsigned char *data;
    size_t len;
};
extern const struct ui__web_asset ui__web_assets[];

/* ---- small helpers ---- */

char *ui__web_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

void ui__web_frame_unref(ui__frame *f)
{
    if (f && --f->refs == 0)
        free(f);
}

static bool ui__token_char(int c)
{
    return isalnum(c) || c == '.' || c == '_' || c == '~' || c == '-';
}

/* Compares without an early exit, so timing does not leak the token. */
static bool ui__token_equal(const ui_web *w, const char *s, size_t n)
{
    size_t tn = strlen(w->token);
    unsigned diff = (unsigned)(tn ^ n);
    for (size_t i = 0; i < tn; i++)
        diff |= (unsigned char)w->token[i] ^ (unsigned char)(i < n ? s[i] : 0);
    return diff == 0;
}

/* ---- responses ---- */

/* Sent with everything: the page is only ever its own frame and script. */
const char ui__web_sec_headers[] =
    "X-Content-Type-Options: nosniff\r\n"
    "X-Frame-Options: DENY\r\n"
    "Referrer-Policy: no-referrer\r\n"
    "Cache-Control: no-store\r\n"
    "Connection: close\r\n";
static const char ui__csp_page[] =
    "Content-Security-Policy: default-src 'none'; script-src 'self'; style-src 'self'; "
    "img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; "
    "form-action 'none'\r\n";
/* Board drawings may style themselves, but never run anything. */
static const char ui__csp_svg[] =
    "Content-Security-Policy: default-src 'none'; style-src 'unsafe-inline'\r\n";

int ui__web_send(ui__req *r, int status, const char *type, const void *body, size_t len,
                 const char *extra)
{
    mg_printf(r->c,
              "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%s%s",
              status, mg_get_response_code_text(r->c, status), type, len, ui__web_sec_headers,
              extra ? extra : "");
    if (r->set_cookie)
        mg_printf(r->c, "Set-Cookie: tablecam_token=%s; Path=/; HttpOnly; SameSite=Strict\r\n",
                  r->w->token);
    mg_printf(r->c, "\r\n");
    if (!r->head && len)
        mg_write(r->c, body, len);
    return status;
}

int ui__web_send_json(ui__req *r, int status, cJSON *doc, const char *extra)
{
    char *s = doc ? cJSON_PrintUnformatted(doc) : NULL;
    int rc;
    cJSON_Delete(doc);
    if (!s)
        return ui__web_send(r, 500, "application/json", "{\"error\":\"out of memory\"}", 25, NULL);
    rc = ui__web_send(r, status, "application/json", s, strlen(s), extra);
    cJSON_free(s);
    return rc;
}

int ui__web_error(ui__req *r, int status, const char *extra, const char *fmt, ...)
{
    char msg[600];
    va_list ap;
    cJSON *o = cJSON_CreateObject();
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    cJSON_AddStringToObject(o, "error", msg);
    return ui__web_send_json(r, status, o, extra);
}

/* ---- request checks ---- */

/* Without a token the server trusts the machine it runs on, so a request
 * must also name it: a web page elsewhere cannot reach it by rebinding
 * its own host name to 127.0.0.1. */
static bool ui__host_ok(const ui_web *w, const char *host)
{
    static const char *const names[] = {"127.0.0.1", "localhost", "[::1]"};
    size_t n;
    if (!host)
        return true; /* HTTP/1.0 */
    n = strcspn(host, ":");
    if (host[0] == '[')
        n = strcspn(host, "]") + 1;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strlen(names[i]) == n && strncasecmp(host, names[i], n) == 0)
            return true;
    return strlen(w->host) == n && strncmp(host, w->host, n) == 0;
}

static bool ui__authorized(ui__req *r)
{
    const char *auth, *cookie;
    char buf[160];
    if (!r->w->has_token)
        return true;
    auth = mg_get_header(r->c, "Authorization");
    if (auth && strncasecmp(auth, "Bearer ", 7) == 0) {
        const char *t = auth + 7;
        while (*t == ' ')
            t++;
        if (ui__token_equal(r->w, t, strlen(t)))
            return true;
    }
    if (r->ri->query_string &&
        mg_get_var(r->ri->query_string, strlen(r->ri->query_string), "token", buf, sizeof buf) >= 0 &&
        ui__token_equal(r->w, buf, strlen(buf))) {
        r->set_cookie = true;
        return true;
    }
    cookie = mg_get_header(r->c, "Cookie");
    if (cookie && mg_get_cookie(cookie, "tablecam_token", buf, sizeof buf) >= 0 &&
        ui__token_equal(r->w, buf, strlen(buf)))
        return true;
    return false;
}

/* A browser sends Origin with every cross-site POST: only the page's own
 * origin may act on the referee. */
static bool ui__origin_ok(ui__req *r)
{
    const char *origin = mg_get_header(r->c, "Origin"), *host = mg_get_header(r->c, "Host");
    if (!origin)
        return true;
    if (!host || strncmp(origin, "http://", 7) != 0)
        return false;
    return strcmp(origin + 7, host) == 0;
}

/* Reads a request body of at most UI__MAX_BODY bytes.  Returns 0, or the
 * HTTP status of the error already sent. */
static int ui__read_body(ui__req *r, char **out, size_t *len)
{
    long long cl = r->ri->content_length;
    size_t cap = UI__MAX_BODY + 1, n = 0;
    char *buf;
    *out = NULL;
    *len = 0;
    if (cl > UI__MAX_BODY)
        return ui__web_error(r, 413, NULL, "the request body has %lld bytes; at most %d are accepted",
                             cl, UI__MAX_BODY);
    if (!(buf = malloc(cap + 1)))
        return ui__web_error(r, 500, NULL, "out of memory");
    for (;;) {
        int k = mg_read(r->c, buf + n, cap - n);
        if (k <= 0)
            break;
        n += (size_t)k;
        if (n >= cap) {
            free(buf);
            return ui__web_error(r, 413, NULL, "the request body is over %d bytes", UI__MAX_BODY);
        }
    }
    buf[n] = '\0';
    *out = buf;
    *len = n;
    return 0;
}

/* Parses a POST body as a JSON object (an empty body is {}). */
int ui__web_json_body(ui__req *r, cJSON **out)
{
    char *body;
    size_t len;
    int rc;
    const char *type = mg_get_header(r->c, "Content-Type");
    *out = NULL;
    if ((rc = ui__read_body(r, &body, &len)) != 0)
        return rc;
    if (len && type && strncasecmp(type, "application/json", 16) != 0) {
        free(body);
        return ui__web_error(r, 415, NULL, "the body must be JSON (Content-Type: application/json), not %s",
                             type);
    }
    *out = len ? cJSON_ParseWithOpts(body, NULL, true) : cJSON_CreateObject();
    if (!cJSON_IsObject(*out)) {
        bool parsed = *out != NULL;
        cJSON_Delete(*out);
        *out = NULL;
        free(body);
        if (!parsed)
            return ui__web_error(r, 400, NULL, "the body is not valid JSON");
        return ui__web_error(r, 400, NULL, "the body must be a JSON object");
    }
    free(body);
    return 0;
}

/* Reads query parameter name into buf.  Returns 1 when present, 0 when
 * absent, -1 when too long (a 400 was sent). */
int ui__web_query(ui__req *r, const char *name, char *buf, size_t cap)
{
    const char *q = r->ri->query_string;
    int n;
    if (!q)
        return 0;
    n = mg_get_var(q, strlen(q), name, buf, cap);
    if (n == -1)
        return 0;
    if (n < 0) {
        ui__web_error(r, 400, NULL, "the query parameter '%s' is too long (at most %zu bytes)", name,
                      cap - 1);
        return -1;
    }
    return 1;
}

/* A decimal id of 1..18 digits; -1 otherwise. */
long long ui__web_parse_id(const char *s, size_t n)
{
    long long v = 0;
    if (n == 0 || n > 18)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (!isdigit((unsigned char)s[i]))
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

/* ---- the match store ---- */

static int ui__open_db(ui__req *r, db **d)
{
    base_err err;
    *d = NULL;
    if (!r->w->db_path)
        return ui__web_error(r, 503, NULL, "this server has no match store");
    if (db_open(r->w->db_path, DB_OPEN_READONLY, &err, d) != 0)
        return ui__web_error(r, 503, NULL, "the match store cannot be read: %s", err.msg);
    return 0;
}

cJSON *ui__web_parse_or_null(const char *s)
{
    cJSON *v = s ? cJSON_Parse(s) : NULL;
    return v ? v : cJSON_CreateNull();
}

static cJSON *ui__info_json(const db_match_info *m, bool full)
{
    cJSON *o = cJSON_CreateObject(), *players = cJSON_CreateArray(), *winners = cJSON_CreateArray();
    bool final = m->nseats > 0 && m->seats[0].has_score;
    cJSON_AddNumberToObject(o, "id", (double)m->id);
    cJSON_AddStringToObject(o, "game", m->game);
    cJSON_AddStringToObject(o, "state", db_state_name(m->state) ? db_state_name(m->state) : "?");
    cJSON_AddStringToObject(o, "started", m->started);
    if (m->ended[0])
        cJSON_AddStringToObject(o, "ended", m->ended);
    else
        cJSON_AddNullToObject(o, "ended");
    for (int i = 0; i < m->nseats; i++) {
        cJSON_AddItemToArray(players, cJSON_CreateString(m->seats[i].name));
        if (m->seats[i].winner)
            cJSON_AddItemToArray(winners, cJSON_CreateNumber(i));
    }
    cJSON_AddItemToObject(o, "players", players);
    if (final) {
        cJSON *s = cJSON_CreateArray();
        for (int i = 0; i < m->nseats; i++)
            cJSON_AddItemToArray(s, cJSON_CreateNumber(m->seats[i].score));
        cJSON_AddItemToObject(o, "scores", s);
    } else {
        cJSON_AddItemToObject(o, "scores", ui__web_parse_or_null(m->last_scores));
    }
    cJSON_AddItemToObject(o, "winners", winners);
    cJSON_AddNumberToObject(o, "events", m->nevents);
    if (full) {
        cJSON_AddItemToObject(o, "options", ui__web_parse_or_null(m->options));
        cJSON_AddItemToObject(o, "header", ui__web_parse_or_null(m->header));
        cJSON_AddBoolToObject(o, "board_svg", ui_board_has_svg(m->game));
    }
    return o;
}

static int ui__list_add(void *ctx, const db_match_info *m)
{
    cJSON_AddItemToArray(ctx, ui__info_json(m, false));
    return 0;
}

static int ui__api_matches(ui__req *r)
{
    char game[64] = "", player[DB_NAME_MAX] = "", state[32] = "";
    int hg, hp, hs, rc;
    db_filter f = {NULL, NULL, -1};
    db *d;
    base_err err;
    cJSON *doc, *list;

    if ((hg = ui__web_query(r, "game", game, sizeof game)) < 0 ||
        (hp = ui__web_query(r, "player", player, sizeof player)) < 0 ||
        (hs = ui__web_query(r, "state", state, sizeof state)) < 0)
        return 400;
    if (hg && game[0]) {
        const char *const *ids;
        int n = rules_games(&ids), k = 0;
        while (k < n && strcmp(ids[k], game) != 0)
            k++;
        if (k == n)
            return ui__web_error(r, 400, NULL,
                                 "unknown game '%s' (games: qwirkle, cards, cube2, stack4, cubed)", game);
        f.game = game;
    }
    if (hp && player[0])
        f.player = player;
    if (hs && state[0]) {
        for (int s = DB_LIVE; s <= DB_ABANDONED; s++)
            if (strcmp(state, db_state_name(s)) == 0)
                f.state = s;
        if (f.state < 0)
            return ui__web_error(r, 400, NULL,
                                 "unknown state '%s' (states: live, finished, abandoned)", state);
    }
    if ((rc = ui__open_db(r, &d)) != 0)
        return rc;
    doc = cJSON_CreateObject();
    list = cJSON_AddArrayToObject(doc, "matches");
    rc = db_matches_list(d, &f, ui__list_add, list, &err);
    db_close(d);
    if (rc != 0) {
        cJSON_Delete(doc);
        return ui__web_error(r, 500, NULL, "listing the matches failed: %s", err.msg);
    }
    return ui__web_send_json(r, 200, doc, NULL);
}

static int ui__correction_add(void *ctx, const db_correction *c)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "seq", c->seq);
    cJSON_AddStringToObject(o, "field", c->field ? c->field : "");
    cJSON_AddStringToObject(o, "before", c->before ? c->before : "");
    cJSON_AddStringToObject(o, "after", c->after ? c->after : "");
    cJSON_AddStringToObject(o, "time", c->time ? c->time : "");
    cJSON_AddStringToObject(o, "note", c->note ? c->note : "");
    cJSON_AddItemToArray(ctx, o);
    return 0;
}

static cJSON *ui__stored_event_json(const db_event *e)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "seq", e->seq);
    cJSON_AddNumberToObject(o, "player", e->seat);
    cJSON_AddItemToObject(o, "move", ui__web_parse_or_null(e->move));
    cJSON_AddBoolToObject(o, "legal", e->legal);
    cJSON_AddNumberToObject(o, "points", e->points);
    if (!e->legal) {
        cJSON_AddStringToObject(o, "rule", e->rule ? e->rule : "");
        cJSON_AddStringToObject(o, "reason", e->reason ? e->reason : "");
    }
    cJSON_AddItemToObject(o, "scores", ui__web_parse_or_null(e->scores));
    cJSON_AddItemToObject(o, "position", ui__web_parse_or_null(e->position));
    cJSON_AddItemToObject(o, "extra", ui__web_parse_or_null(e->extra));
    cJSON_AddStringToObject(o, "time", e->time ? e->time : "");
    cJSON_AddStringToObject(o, "source", db_source_name(e->source) ? db_source_name(e->source) : "?");
    return o;
}

/* Loads match id, answering 404 when there is none.  Returns 0 with *d and
 * *m set, or the status sent. */
static int ui__load_match(ui__req *r, long long id, db **d, db_match **m)
{
    base_err err;
    int rc;
    *m = NULL;
    if ((rc = ui__open_db(r, d)) != 0)
        return rc;
    rc = db_match_load(*d, id, m, &err);
    if (rc == BASE_ENOTFOUND) {
        db_close(*d);
        return ui__web_error(r, 404, NULL, "no match %lld", id);
    }
    if (rc != 0) {
        db_close(*d);
        return ui__web_error(r, 500, NULL, "loading match %lld failed: %s", id, err.msg);
    }
    return 0;
}

static int ui__api_match(ui__req *r, long long id)
{
    db *d;
    db_match *m;
    base_err err;
    cJSON *doc, *events, *corr;
    int rc;
    if ((rc = ui__load_match(r, id, &d, &m)) != 0)
        return rc;
    doc = cJSON_CreateObject();
    cJSON_AddItemToObject(doc, "match", ui__info_json(&m->info, true));
    events = cJSON_AddArrayToObject(doc, "events");
    for (int i = 0; i < m->nevents; i++)
        cJSON_AddItemToArray(events, ui__stored_event_json(&m->events[i]));
    corr = cJSON_AddArrayToObject(doc, "corrections");
    rc = db_corrections_list(d, id, ui__correction_add, corr, &err);
    db_match_free(m);
    db_close(d);
    if (rc != 0) {
        cJSON_Delete(doc);
        return ui__web_error(r, 500, NULL, "reading the corrections of match %lld failed: %s", id,
                             err.msg);
    }
    return ui__web_send_json(r, 200, doc, NULL);
}

/* The position before any move: the game's own start (a cards start card,
 * the cube2 setup) where the engine is built, else an empty table. */
static char *ui__start_position(const db_match *m)
{
    rules_game *g = NULL;
    cJSON *header = m->info.header ? cJSON_Parse(m->info.header) : NULL, *pos = NULL;
    char *s = NULL;
    if (rules_game_new(m->info.game, header, NULL, &g) == 0 && (pos = rules_position_to_json(g)))
        s = cJSON_PrintUnformatted(pos);
    if (!s) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "game", m->info.game);
        cJSON_AddArrayToObject(o, "pieces");
        s = cJSON_PrintUnformatted(o);
        cJSON_Delete(o);
    }
    cJSON_Delete(pos);
    cJSON_Delete(header);
    rules_game_free(g);
    return s;
}

static int ui__api_board(ui__req *r, long long id, long long seq)
{
    db *d;
    db_match *m;
    base_err err;
    char *start = NULL, *svg = NULL;
    const char *pos;
    size_t len = 0;
    FILE *f;
    int rc;
    if ((rc = ui__load_match(r, id, &d, &m)) != 0)
        return rc;
    db_close(d);
    if (seq > m->nevents) {
        rc = ui__web_error(r, 404, NULL, "match %lld has %d moves, not %lld", id, m->nevents, seq);
        goto out;
    }
    if (!ui_board_has_svg(m->info.game)) {
        rc = ui__web_error(r, 404, NULL, "there is no board drawing for %s yet", m->info.game);
        goto out;
    }
    pos = seq == 0 ? (start = ui__start_position(m)) : m->events[seq - 1].position;
    if (!pos) {
        rc = ui__web_error(r, 404, NULL, "move %lld of match %lld has no stored position", seq, id);
        goto out;
    }
    if (!(f = open_memstream(&svg, &len))) {
        rc = ui__web_error(r, 500, NULL, "out of memory");
        goto out;
    }
    rc = ui_board_svg(f, m->info.game, pos, &err);
    fclose(f);
    if (rc != 0)
        rc = ui__web_error(r, 500, NULL, "drawing move %lld of match %lld failed: %s", seq, id,
                           err.msg);
    else
        rc = ui__web_send(r, 200, "image/svg+xml; charset=utf-8", svg, len, ui__csp_svg);
out:
    free(svg);
    free(start);
    db_match_free(m);
    return rc;
}

static int ui__api_snapshot(ui__req *r, long long id, long long seq)
{
    db *d;
    base_err err;
    void *jpeg = NULL;
    size_t len = 0;
    int rc;
    db_match *m;
    if ((rc = ui__load_match(r, id, &d, &m)) != 0)
        return rc;
    db_match_free(m);
    rc = db_snapshot_get(d, id, (int)seq, &jpeg, &len, &err);
    db_close(d);
    if (rc == BASE_ENOTFOUND)
        return ui__web_error(r, 404, NULL, "match %lld has no photo of move %lld", id, seq);
    if (rc != 0)
        return ui__web_error(r, 500, NULL, "reading the photo failed: %s", err.msg);
    rc = ui__web_send(r, 200, "image/jpeg", jpeg, len, NULL);
    free(jpeg);
    return rc;
}

/* /api/matches/ID, /api/matches/ID/board/SEQ.svg, .../snapshots/SEQ.jpg */
static int ui__route_match(ui__req *r, const char *rest)
{
    size_t n = strcspn(rest, "/");
    long long id = ui__web_parse_id(rest, n), seq;
    const char *sub = rest + n, *num, *ext;
    if (id < 0)
        return ui__web_error(r, 404, NULL, "no match '%.*s' (a match id is a number)", (int)(n > 40 ? 40 : n), rest);
    if (!*sub)
        return ui__api_match(r, id);
    if (strncmp(sub, "/board/", 7) == 0)
        num = sub + 7, ext = ".svg";
    else if (strncmp(sub, "/snapshots/", 11) == 0)
        num = sub + 11, ext = ".jpg";
    else
        return ui__web_error(r, 404, NULL, "no such resource: %s", r->path);
    n = strcspn(num, ".");
    seq = ui__web_parse_id(num, n);
    if (seq < 0 || strcmp(num + n, ext) != 0 || seq > 1000000)
        return ui__web_error(r, 404, NULL, "no such resource: %s (expected a move number then %s)",
                             r->path, ext);
    return ext[1] == 's' ? ui__api_board(r, id, seq) : ui__api_snapshot(r, id, seq);
}

/* ---- routing ---- */

static const struct ui__web_asset *ui__asset(const char *path)
{
    if (strcmp(path, "/") == 0)
        path = "/index.html";
    for (const struct ui__web_asset *a = ui__web_assets; a->name; a++)
        if (path[0] == '/' && strcmp(path + 1, a->name) == 0)
            return a;
    return NULL;
}

/* True when a path segment is "..": a request that tries to climb out of
 * the app (the path is already percent-decoded, so %2e%2e counts too). */
static bool ui__climbs(const char *p)
{
    for (const char *s = p; (s = strstr(s, "..")); s += 2)
        if ((s == p || s[-1] == '/' || s[-1] == '\\') && (s[2] == '\0' || s[2] == '/' || s[2] == '\\'))
            return true;
    return strchr(p, '\\') != NULL;
}

static int ui__method(ui__req *r, const char *allowed)
{
    char allow[64];
    snprintf(allow, sizeof allow, "Allow: %s\r\n", allowed);
    return ui__web_error(r, 405, allow, "%s %s is not allowed (allowed: %s)", r->ri->request_method,
                         r->path, allowed);
}

/* The page's actions: POST only, and only from the page itself. */
static const struct {
    const char *path;
    int (*run)(ui__req *r);
} ui__actions[] = {
    {"/api/signal", ui__web_api_signal},
    {"/api/undo", ui__web_api_undo},
    {"/api/correct", ui__web_api_correct},
    {"/api/answer", ui__web_api_answer},
};

static int ui__route(ui__req *r)
{
    const char *m = r->ri->request_method, *p = r->path;
    bool get = strcmp(m, "GET") == 0 || strcmp(m, "HEAD") == 0, post = strcmp(m, "POST") == 0;
    const struct ui__web_asset *a;

    r->head = strcmp(m, "HEAD") == 0;
    for (size_t i = 0; i < sizeof ui__actions / sizeof ui__actions[0]; i++) {
        if (strcmp(p, ui__actions[i].path) != 0)
            continue;
        if (!post)
            return ui__method(r, "POST");
        if (!ui__origin_ok(r))
            return ui__web_error(r, 403, NULL, "this action may only come from the tablecam page itself");
        return ui__actions[i].run(r);
    }
    if (strncmp(p, "/api/", 5) == 0 || strcmp(p, "/api") == 0) {
        bool known = strcmp(p, "/api/live") == 0 || strcmp(p, "/api/events") == 0 ||
                     strcmp(p, "/api/frame.jpg") == 0 || strcmp(p, "/api/frame.mjpg") == 0 ||
                     strcmp(p, "/api/matches") == 0 || strncmp(p, "/api/matches/", 13) == 0;
        if (!known)
            return ui__web_error(r, 404, NULL, "no such resource: %s", p);
        if (!get)
            return ui__method(r, "GET, HEAD");
        if (strcmp(p, "/api/live") == 0)
            return ui__web_api_live(r);
        if (strcmp(p, "/api/events") == 0)
            return ui__web_api_events(r);
        if (strcmp(p, "/api/frame.jpg") == 0)
            return ui__web_api_frame(r);
        if (strcmp(p, "/api/frame.mjpg") == 0)
            return ui__web_api_mjpeg(r);
        if (strcmp(p, "/api/matches") == 0)
            return ui__api_matches(r);
        return ui__route_match(r, p + 13);
    }
    if (!(a = ui__asset(p)))
        return ui__web_error(r, 404, NULL, "no such page or file: %s", p);
    if (!get)
        return ui__method(r, "GET, HEAD");
    return ui__web_send(r, 200, a->type, a->data, a->len,
                        strncmp(a->type, "text/html", 9) == 0 ? ui__csp_page : NULL);
}

static int ui__begin_request(struct mg_connection *c)
{
    const struct mg_request_info *ri = mg_get_request_info(c);
    ui__req r = {0};
    r.w = ri->user_data;
    r.c = c;
    r.ri = ri;
    r.path = ri->local_uri_raw ? ri->local_uri_raw : ri->local_uri;
    r.head = ri->request_method && strcmp(ri->request_method, "HEAD") == 0;
    if (!r.path || r.path[0] != '/' || !ri->request_method)
        return ui__web_error(&r, 400, NULL, "the request names no path on this server");
    if (ui__climbs(r.path))
        return ui__web_error(&r, 400, NULL, "the path leaves the web app ('..' or '\\'): refused");
    if (!r.w->has_token && !ui__host_ok(r.w, mg_get_header(c, "Host")))
        return ui__web_error(&r, 403, NULL,
                             "this server answers only to its own address (Host: %s); "
                             "start it with --token to share it",
                             mg_get_header(c, "Host"));
    if (!ui__authorized(&r))
        return ui__web_error(&r, 401, "WWW-Authenticate: Bearer realm=\"tablecam\"\r\n",
                             "this server needs its access token: open the page with ?token=T, "
                             "or send the header 'Authorization: Bearer T'");
    return ui__route(&r);
}

/* Errors civetweb makes itself (a malformed request line, headers too
 * large): the same JSON shape as ours. */
static int ui__http_error(struct mg_connection *c, int status, const char *msg)
{
    cJSON *o = cJSON_CreateObject();
    char *s;
    char text[256];
    snprintf(text, sizeof text, "%s", msg && *msg ? msg : mg_get_response_code_text(c, status));
    text[strcspn(text, "\r\n")] = '\0';
    cJSON_AddStringToObject(o, "error", text);
    s = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    if (!s)
        return 1;
    mg_printf(c, "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nContent-Length: %zu\r\n%s\r\n%s",
              status, mg_get_response_code_text(c, status), strlen(s), ui__web_sec_headers, s);
    cJSON_free(s);
    return 0;
}

/* civetweb's own log lines go to the debug log: library code never prints. */
static int ui__log_message(const struct mg_connection *c, const char *msg)
{
    (void)c;
    BASE_DEBUG("web", "%s", msg);
    return 1;
}

/* ---- the server ---- */

/* "PORT" or "HOST:PORT" into an IPv4 address and a port. */
static int ui__parse_listen(const char *listen, char *ip, size_t ipcap, int *port, base_err *err)
{
    const char *colon = strrchr(listen, ':'), *ps = colon ? colon + 1 : listen;
    size_t hn = colon ? (size_t)(colon - listen) : 0;
    char host[64];
    struct in_addr a;
    long p;
    char *end;
    if (!*ps)
        return base_err_set(err, BASE_EINVAL, "listen address '%s' has no port", listen);
    errno = 0;
    p = strtol(ps, &end, 10);
    if (errno || *end || p < 0 || p > 65535 || !isdigit((unsigned char)*ps))
        return base_err_set(err, BASE_EINVAL, "listen address '%s': the port must be 0 to 65535",
                            listen);
    if (hn >= sizeof host || listen[0] == '[')
        return base_err_set(err, BASE_EINVAL,
                            "listen address '%s': give an IPv4 address and a port (127.0.0.1:8080)",
                            listen);
    memcpy(host, listen, hn);
    host[hn] = '\0';
    if (hn == 0 || strcmp(host, "localhost") == 0)
        snprintf(host, sizeof host, "127.0.0.1");
    if (inet_pton(AF_INET, host, &a) != 1)
        return base_err_set(err, BASE_EINVAL,
                            "listen address '%s': '%s' is not an IPv4 address (127.0.0.1, 0.0.0.0, ...)",
                            listen, host);
    snprintf(ip, ipcap, "%s", host);
    *port = (int)p;
    return 0;
}

int ui_web_new(const ui_web_config *cfg, ui_web **out, base_err *err)
{
    const char *listen = cfg && cfg->listen ? cfg->listen : "127.0.0.1:8080";
    char ip[64], ports[96], threads[16], emsg[256] = "";
    int port = 0, rc;
    unsigned ecode = 0;
    ui_web *w;
    pthread_condattr_t ca;
    struct mg_callbacks cb;
    struct mg_error_data e = {&ecode, emsg, sizeof emsg};
    struct mg_init_data init;
    struct mg_server_port sp[2];

    *out = NULL;
    if ((rc = ui__parse_listen(listen, ip, sizeof ip, &port, err)) != 0)
        return rc;
    if (cfg && cfg->token) {
        size_t n = strlen(cfg->token);
        if (n < 8 || n > 128)
            return base_err_set(err, BASE_EINVAL, "the token must have 8 to 128 characters, not %zu",
                                n);
        for (size_t i = 0; i < n; i++)
            if (!ui__token_char((unsigned char)cfg->token[i]))
                return base_err_set(err, BASE_EINVAL,
                                    "the token may hold only A-Z a-z 0-9 . _ ~ - (character %zu is not)",
                                    i + 1);
    } else if (strncmp(ip, "127.", 4) != 0) {
        return base_err_set(err, BASE_EINVAL,
                            "listening on %s lets other machines in: give a token (--token T) "
                            "that every request must carry, or listen on 127.0.0.1",
                            ip);
    }
    if (!(w = calloc(1, sizeof *w)))
        return base_err_set(err, BASE_ENOMEM, "out of memory");
    w->keep = cfg && cfg->keep_events > 0 ? cfg->keep_events : UI__DEFAULT_KEEP;
    if (!(w->ring = calloc((size_t)w->keep, sizeof *w->ring)) ||
        (cfg && cfg->db_path && !(w->db_path = ui__web_strdup(cfg->db_path)))) {
        free(w->ring);
        free(w);
        return base_err_set(err, BASE_ENOMEM, "out of memory");
    }
    if (cfg && cfg->token) {
        w->has_token = true;
        snprintf(w->token, sizeof w->token, "%s", cfg->token);
    }
    if (cfg && cfg->hooks) {
        w->has_hooks = true;
        w->hooks = *cfg->hooks;
    }
    snprintf(w->host, sizeof w->host, "%s", ip);
    pthread_mutex_init(&w->mu, NULL);
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&w->ev_cond, &ca);
    pthread_cond_init(&w->frame_cond, &ca);
    pthread_condattr_destroy(&ca);

    snprintf(ports, sizeof ports, "%s:%d", ip, port);
    snprintf(threads, sizeof threads, "%d", UI__THREADS);
    {
        /* No document_root: civetweb never touches the file system; every
         * answer comes from ui__begin_request. */
        const char *opts[] = {"listening_ports", ports,
                              "num_threads", threads,
                              "request_timeout_ms", "10000",
                              "enable_keep_alive", "no",
                              "access_control_allow_origin", "",
                              "enable_directory_listing", "no",
                              NULL};
        memset(&cb, 0, sizeof cb);
        cb.begin_request = ui__begin_request;
        cb.http_error = ui__http_error;
        cb.log_message = ui__log_message;
        init.callbacks = &cb;
        init.user_data = w;
        init.configuration_options = opts;
        mg_init_library(0);
        w->ctx = mg_start2(&init, &e);
    }
    if (!w->ctx) {
        base_err_set(err, BASE_EIO, "cannot listen on %s: %s", ports,
                     emsg[0] ? emsg : "the address is in use or not this machine's");
        mg_exit_library();
        w->ctx = NULL;
        ui_web_free(w);
        return BASE_EIO;
    }
    if (mg_get_server_ports(w->ctx, 2, sp) < 1) {
        base_err_set(err, BASE_EIO, "the server on %s reports no port", ports);
        ui_web_free(w);
        return BASE_EIO;
    }
    w->port = sp[0].port;
    *out = w;
    return 0;
}

/* civetweb's listener polls for 2 s before it sees the stop flag; a
 * connection to it ends the wait at once.  This thread knocks until
 * mg_stop() has returned. */
typedef struct ui__waker {
    int port;
    atomic_bool done;
} ui__waker;

static void *ui__wake(void *arg)
{
    ui__waker *k = arg;
    struct timespec pause = {0, 50 * 1000 * 1000};
    while (!atomic_load(&k->done)) {
        struct sockaddr_in a;
        int s = socket(AF_INET, SOCK_STREAM, 0);
        memset(&a, 0, sizeof a);
        a.sin_family = AF_INET;
        a.sin_port = htons((uint16_t)k->port);
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (s >= 0) {
            connect(s, (struct sockaddr *)&a, sizeof a);
            close(s);
        }
        nanosleep(&pause, NULL);
    }
    return NULL;
}

void ui_web_free(ui_web *w)
{
    if (!w)
        return;
    if (w->ctx) {
        pthread_mutex_lock(&w->mu);
        w->stopping = true;
        pthread_cond_broadcast(&w->ev_cond);
        pthread_cond_broadcast(&w->frame_cond);
        pthread_mutex_unlock(&w->mu);
        ui__waker k;
        pthread_t t;
        bool knocking;
        k.port = w->port;
        atomic_init(&k.done, false);
        /* Only a loopback or any-address listener can be knocked on. */
        knocking = w->port > 0 && (strncmp(w->host, "127.", 4) == 0 || strcmp(w->host, "0.0.0.0") == 0) &&
                   pthread_create(&t, NULL, ui__wake, &k) == 0;
        /* Waits for every request, streams included, to return. */
        mg_stop(w->ctx);
        if (knocking) {
            atomic_store(&k.done, true);
            pthread_join(t, NULL);
        }
        mg_exit_library();
    }
    for (int i = 0; i < w->keep; i++)
        free(w->ring[i]);
    free(w->ring);
    free(w->alert);
    free(w->notice);
    free(w->question);
    free(w->live);
    ui__web_frame_unref(w->frame);
    free(w->db_path);
    pthread_cond_destroy(&w->ev_cond);
    pthread_cond_destroy(&w->frame_cond);
    pthread_mutex_destroy(&w->mu);
    free(w);
}

int ui_web_port(const ui_web *w) { return w ? w->port : 0; }

const char *ui_web_url(const ui_web *w, char *buf, size_t n)
{
    /* An any-address server is opened here through the loopback. */
    const char *host = !w->host[0] || strcmp(w->host, "0.0.0.0") == 0 ? "127.0.0.1" : w->host;
    snprintf(buf, n, "http://%s:%d/%s%s", host, w->port, w->has_token ? "?token=" : "",
             w->has_token ? w->token : "");
    return buf;
}
