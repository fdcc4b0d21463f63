/* tests/test_ui_web.c: the web app's server, in-process on 127.0.0.1 with
 * a free port, spoken to over plain sockets: the JSON API over a store the
 * test fills, the live state and its push streams, the referee's questions
 * (their JSON, the open one in the live state, the answers posted), the
 * page's actions through hooks, the token rule, and bad requests (each
 * answered with the right status while the server keeps answering). */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "db.h"
#include "harness.h"
#include "rules.h"
#include "web.h"

/* ---- a tiny HTTP client ---- */

typedef struct resp {
    int status;
    char *head; /* status line and headers */
    char *body;
    size_t len;
} resp;

static void resp_free(resp *r)
{
    free(r->head);
    free(r->body);
    memset(r, 0, sizeof *r);
}

static int connect_port(int port)
{
    struct sockaddr_in a = {0};
    struct timeval tv = {10, 0};
    int s = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(s >= 0);
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    if (connect(s, (struct sockaddr *)&a, sizeof a) != 0)
        fail_msg("cannot connect to port %d", port);
    return s;
}

static void send_all(int s, const char *data, size_t n)
{
    while (n) {
        ssize_t k = send(s, data, n, MSG_NOSIGNAL);
        if (k <= 0)
            return; /* the server may close early (413): the reply still counts */
        data += k;
        n -= (size_t)k;
    }
}

/* Sends raw bytes and reads the whole reply (the server closes after it). */
static resp http_raw(int port, const char *req, size_t reqlen)
{
    resp r = {0};
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap + 1), *sep;
    int s = connect_port(port);
    ssize_t k;
    send_all(s, req, reqlen);
    while ((k = recv(s, buf + n, cap - n, 0)) > 0) {
        n += (size_t)k;
        if (n == cap)
            buf = realloc(buf, (cap *= 2) + 1);
    }
    close(s);
    buf[n] = '\0';
    sep = strstr(buf, "\r\n\r\n");
    if (!sep || sscanf(buf, "HTTP/1.%*d %d", &r.status) != 1)
        fail_msg("not an HTTP reply: '%.200s'", buf);
    r.head = strndup(buf, (size_t)(sep - buf) + 2);
    r.len = n - (size_t)(sep + 4 - buf);
    r.body = malloc(r.len + 1);
    memcpy(r.body, sep + 4, r.len);
    r.body[r.len] = '\0';
    free(buf);
    return r;
}

/* method path [extra headers] [JSON body] */
static resp http(int port, const char *method, const char *path, const char *headers,
                 const char *body)
{
    char *req;
    size_t n;
    resp r;
    FILE *f = open_memstream(&req, &n);
    fprintf(f, "%s %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nConnection: close\r\n%s", method, path,
            port, headers ? headers : "");
    if (body)
        fprintf(f, "Content-Type: application/json\r\nContent-Length: %zu\r\n\r\n%s", strlen(body),
                body);
    else
        fprintf(f, "\r\n");
    fclose(f);
    r = http_raw(port, req, n);
    free(req);
    return r;
}

static cJSON *json_of(const resp *r)
{
    cJSON *j = cJSON_Parse(r->body);
    if (!j)
        fail_msg("reply is not JSON (status %d): '%.200s'", r->status, r->body);
    return j;
}

/* The "error" of a JSON error reply; checks the shape. */
static void assert_json_error(const resp *r, int status)
{
    cJSON *j;
    const cJSON *e;
    if (r->status != status)
        fail_msg("expected status %d, got %d: %s", status, r->status, r->body);
    j = json_of(r);
    e = cJSON_GetObjectItemCaseSensitive(j, "error");
    assert_true(cJSON_IsString(e));
    assert_true(strlen(e->valuestring) > 5);
    cJSON_Delete(j);
}

/* Header names are case-insensitive; these tests spell them as the server does. */
static bool has_header(const resp *r, const char *line)
{
    return strstr(r->head, line) != NULL;
}

/* ---- the fixture: a store and a server ---- */

typedef struct hooked {
    int signals, undos, corrects, answers;
    int last_player, last_type;
    char last_move[512];
    int last_question, last_answer;
    int answer; /* what the hooks return */
} hooked;

static int hook_signal(void *ctx, int player, int type, base_err *err)
{
    hooked *h = ctx;
    h->signals++;
    h->last_player = player;
    h->last_type = type;
    return h->answer ? base_err_set(err, h->answer, "not now: a move is being read") : 0;
}

static int hook_undo(void *ctx, base_err *err)
{
    hooked *h = ctx;
    h->undos++;
    return h->answer ? base_err_set(err, h->answer, "nothing to undo") : 0;
}

static int hook_correct(void *ctx, const char *move, base_err *err)
{
    hooked *h = ctx;
    h->corrects++;
    snprintf(h->last_move, sizeof h->last_move, "%s", move);
    return h->answer ? base_err_set(err, h->answer, "no move to correct") : 0;
}

static int hook_answer(void *ctx, int question, int answer, base_err *err)
{
    hooked *h = ctx;
    h->answers++;
    h->last_question = question;
    h->last_answer = answer;
    if (h->answer == BASE_ESTATE)
        return base_err_set(err, h->answer, "question %d is not open (question 4 is)", question);
    return h->answer ? base_err_set(err, h->answer, "question %d has answers 0-1", question) : 0;
}

typedef struct fixture {
    char *dir, *db;
    int64_t m1, m2;
    ui_web *w;
    int port;
    hooked h;
    ui_web_hooks hooks;
} fixture;

static const unsigned char jpeg_a[] = {0xFF, 0xD8, 0xFF, 0xE0, 1, 2, 3, 4, 0xFF, 0xD9};
static const unsigned char jpeg_b[] = {0xFF, 0xD8, 0xFF, 0xE1, 9, 8, 7, 0xFF, 0xD9};

/* Plays a qwirkle record through the real engine into match id. */
static void play(db *d, int64_t id, const char *const *events, int n)
{
    rules_game *g;
    base_err err;
    cJSON *h = cJSON_Parse("{\"players\":[\"Ann\",\"Bob\"]}");
    assert_int_equal(rules_game_new("qwirkle", h, &err, &g), 0);
    cJSON_Delete(h);
    for (int i = 0; i < n; i++) {
        cJSON *ev = cJSON_Parse(events[i]), *t;
        rules_move m;
        rules_verdict v;
        int player;
        db_event e = {0};
        char *mj, *sc, *pos;
        assert_non_null(ev);
        assert_int_equal(rules_event_from_json("qwirkle", ev, &player, &m, &err), 0);
        assert_int_equal(rules_apply(g, player, &m, &v), 0);
        t = rules_move_to_json("qwirkle", &m);
        mj = cJSON_PrintUnformatted(t);
        cJSON_Delete(t);
        t = cJSON_CreateIntArray(v.scores, v.nplayers);
        sc = cJSON_PrintUnformatted(t);
        cJSON_Delete(t);
        t = rules_position_to_json(g);
        pos = cJSON_PrintUnformatted(t);
        cJSON_Delete(t);
        e.seat = player;
        e.move = mj;
        e.legal = v.legal;
        e.rule = v.legal ? NULL : v.rule;
        e.reason = v.legal ? NULL : v.reason;
        e.points = v.points;
        e.scores = sc;
        e.position = pos;
        e.source = DB_SRC_CAMERA;
        assert_int_equal(db_event_append(d, id, &e, NULL, &err), 0);
        cJSON_free(mj);
        cJSON_free(sc);
        cJSON_free(pos);
        cJSON_Delete(ev);
    }
    rules_game_free(g);
}

static const char *const q_events[] = {
    "{\"player\":0,\"move\":{\"type\":\"place\",\"pieces\":[{\"x\":0,\"y\":0,\"color\":\"red\","
    "\"shape\":\"circle\"},{\"x\":1,\"y\":0,\"color\":\"red\",\"shape\":\"square\"}]}}",
    "{\"player\":1,\"move\":{\"type\":\"place\",\"pieces\":[{\"x\":0,\"y\":1,\"color\":\"blue\","
    "\"shape\":\"circle\"}]}}",
    /* illegal: a second red circle in row 0 */
    "{\"player\":0,\"move\":{\"type\":\"place\",\"pieces\":[{\"x\":2,\"y\":0,\"color\":\"red\","
    "\"shape\":\"circle\"}]}}",
    "{\"player\":0,\"move\":{\"type\":\"reroll\"}}",
};

static int start(fixture *f, const char *token, bool hooks)
{
    ui_web_config cfg = {0};
    base_err err;
    cfg.listen = "127.0.0.1:0";
    cfg.token = token;
    cfg.db_path = f->db;
    cfg.keep_events = 8;
    if (hooks) {
        f->hooks.ctx = &f->h;
        f->hooks.signal = hook_signal;
        f->hooks.undo = hook_undo;
        f->hooks.correct_last = hook_correct;
        f->hooks.answer = hook_answer;
        cfg.hooks = &f->hooks;
    }
    if (ui_web_new(&cfg, &f->w, &err) != 0) {
        print_error("ui_web_new: %s\n", err.msg);
        return -1;
    }
    f->port = ui_web_port(f->w);
    return f->port > 0 ? 0 : -1;
}

static int setup_common(void **state, const char *token, bool hooks)
{
    fixture *f = calloc(1, sizeof *f);
    db *d;
    base_err err;
    const char *p1[] = {"Ann", "Bob"}, *p2[] = {"Cy", "Dee"};
    int fin[2] = {2, 1};
    f->dir = th_tmpdir();
    f->db = th_path(f->dir, "web.db");
    if (db_open(f->db, DB_OPEN_CREATE, &err, &d) != 0) {
        print_error("%s\n", err.msg);
        return -1;
    }
    if (db_match_new(d, "qwirkle", "{}", NULL, p1, 2, "2026-02-01T10:00:00.000Z", &f->m1, &err) ||
        db_match_new(d, "qwirkle", "{}", NULL, p2, 2, "2026-02-02T10:00:00.000Z", &f->m2, &err)) {
        print_error("%s\n", err.msg);
        return -1;
    }
    play(d, f->m1, q_events, 4);
    play(d, f->m2, q_events, 1);
    assert_int_equal(db_snapshot_put(d, f->m1, 2, jpeg_a, sizeof jpeg_a, &err), 0);
    assert_int_equal(db_match_finish(d, f->m2, fin, 2, 1u, &err), 0);
    db_close(d);
    *state = f;
    return start(f, token, hooks);
}

static int setup(void **state) { return setup_common(state, NULL, true); }
static int setup_token(void **state) { return setup_common(state, "s3cret-token_1", false); }

static int teardown(void **state)
{
    fixture *f = *state;
    ui_web_free(f->w);
    th_rmtree(f->dir);
    free(f->dir);
    free(f->db);
    free(f);
    return 0;
}

/* ---- the history API ---- */

static void test_matches_list(void **state)
{
    fixture *f = *state;
    resp r = http(f->port, "GET", "/api/matches", NULL, NULL);
    cJSON *j, *list, *m;
    assert_int_equal(r.status, 200);
    assert_true(has_header(&r, "Content-Type: application/json"));
    j = json_of(&r);
    list = cJSON_GetObjectItemCaseSensitive(j, "matches");
    assert_int_equal(cJSON_GetArraySize(list), 2);
    /* newest first: m2, finished 2-1, Cy won */
    m = cJSON_GetArrayItem(list, 0);
    assert_int_equal((int)cJSON_GetObjectItem(m, "id")->valuedouble, (int)f->m2);
    assert_string_equal(cJSON_GetObjectItem(m, "state")->valuestring, "finished");
    assert_string_equal(cJSON_GetArrayItem(cJSON_GetObjectItem(m, "players"), 0)->valuestring, "Cy");
    assert_int_equal(cJSON_GetArrayItem(cJSON_GetObjectItem(m, "scores"), 0)->valueint, 2);
    assert_int_equal(cJSON_GetArrayItem(cJSON_GetObjectItem(m, "winners"), 0)->valueint, 0);
    m = cJSON_GetArrayItem(list, 1);
    assert_string_equal(cJSON_GetObjectItem(m, "state")->valuestring, "live");
    assert_int_equal(cJSON_GetObjectItem(m, "events")->valueint, 4);
    cJSON_Delete(j);
    resp_free(&r);

    r = http(f->port, "GET", "/api/matches?player=Ann&game=qwirkle", NULL, NULL);
    j = json_of(&r);
    list = cJSON_GetObjectItemCaseSensitive(j, "matches");
    assert_int_equal(cJSON_GetArraySize(list), 1);
    assert_int_equal((int)cJSON_GetObjectItem(cJSON_GetArrayItem(list, 0), "id")->valuedouble,
                     (int)f->m1);
    cJSON_Delete(j);
    resp_free(&r);

    r = http(f->port, "GET", "/api/matches?game=cards", NULL, NULL);
    j = json_of(&r);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(j, "matches")), 0);
    cJSON_Delete(j);
    resp_free(&r);

    r = http(f->port, "GET", "/api/matches?state=finished", NULL, NULL);
    j = json_of(&r);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(j, "matches")), 1);
    cJSON_Delete(j);
    resp_free(&r);

    r = http(f->port, "GET", "/api/matches?game=chess", NULL, NULL);
    assert_json_error(&r, 400);
    assert_non_null(strstr(r.body, "chess"));
    resp_free(&r);
    r = http(f->port, "GET", "/api/matches?state=paused", NULL, NULL);
    assert_json_error(&r, 400);
    resp_free(&r);
}

static void test_match_detail(void **state)
{
    fixture *f = *state;
    char path[96];
    resp r;
    cJSON *j, *ev, *e;
    snprintf(path, sizeof path, "/api/matches/%lld", (long long)f->m1);
    r = http(f->port, "GET", path, NULL, NULL);
    assert_int_equal(r.status, 200);
    j = json_of(&r);
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "match"), "game")->valuestring,
                        "qwirkle");
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "match"), "board_svg")));
    ev = cJSON_GetObjectItem(j, "events");
    assert_int_equal(cJSON_GetArraySize(ev), 4);
    e = cJSON_GetArrayItem(ev, 0);
    assert_int_equal(cJSON_GetObjectItem(e, "seq")->valueint, 1);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(e, "legal")));
    assert_int_equal(cJSON_GetObjectItem(e, "points")->valueint, 2);
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(e, "move"), "type")->valuestring,
                        "place");
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(cJSON_GetObjectItem(e, "position"),
                                                            "pieces")),
                     2);
    e = cJSON_GetArrayItem(ev, 2);
    assert_true(cJSON_IsFalse(cJSON_GetObjectItem(e, "legal")));
    assert_true(strlen(cJSON_GetObjectItem(e, "rule")->valuestring) > 0);
    assert_true(strlen(cJSON_GetObjectItem(e, "reason")->valuestring) > 0);
    e = cJSON_GetArrayItem(ev, 3);
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(e, "move"), "type")->valuestring,
                        "reroll");
    assert_true(cJSON_IsArray(cJSON_GetObjectItem(j, "corrections")));
    cJSON_Delete(j);
    resp_free(&r);

    r = http(f->port, "GET", "/api/matches/999", NULL, NULL);
    assert_json_error(&r, 404);
    assert_non_null(strstr(r.body, "999"));
    resp_free(&r);
    r = http(f->port, "GET", "/api/matches/abc", NULL, NULL);
    assert_json_error(&r, 404);
    resp_free(&r);
    r = http(f->port, "GET", "/api/matches/99999999999999999999999", NULL, NULL);
    assert_json_error(&r, 404);
    resp_free(&r);
}

static void test_board_and_snapshot(void **state)
{
    fixture *f = *state;
    char path[96];
    resp r;
    snprintf(path, sizeof path, "/api/matches/%lld/board/2.svg", (long long)f->m1);
    r = http(f->port, "GET", path, NULL, NULL);
    assert_int_equal(r.status, 200);
    assert_true(has_header(&r, "Content-Type: image/svg+xml"));
    assert_non_null(strstr(r.body, "<svg"));
    assert_non_null(strstr(r.body, "3 cubes")); /* after move 2: three cubes */
    resp_free(&r);
    snprintf(path, sizeof path, "/api/matches/%lld/board/0.svg", (long long)f->m1);
    r = http(f->port, "GET", path, NULL, NULL);
    assert_int_equal(r.status, 200);
    assert_non_null(strstr(r.body, "0 cubes"));
    resp_free(&r);
    snprintf(path, sizeof path, "/api/matches/%lld/board/5.svg", (long long)f->m1);
    r = http(f->port, "GET", path, NULL, NULL);
    assert_json_error(&r, 404);
    resp_free(&r);
    snprintf(path, sizeof path, "/api/matches/%lld/board/2.png", (long long)f->m1);
    r = http(f->port, "GET", path, NULL, NULL);
    assert_json_error(&r, 404);
    resp_free(&r);

    snprintf(path, sizeof path, "/api/matches/%lld/snapshots/2.jpg", (long long)f->m1);
    r = http(f->port, "GET", path, NULL, NULL);
    assert_int_equal(r.status, 200);
    assert_true(has_header(&r, "Content-Type: image/jpeg"));
    assert_int_equal(r.len, sizeof jpeg_a);
    assert_memory_equal(r.body, jpeg_a, sizeof jpeg_a);
    resp_free(&r);
    snprintf(path, sizeof path, "/api/matches/%lld/snapshots/1.jpg", (long long)f->m1);
    r = http(f->port, "GET", path, NULL, NULL);
    assert_json_error(&r, 404);
    resp_free(&r);
    r = http(f->port, "GET", "/api/matches/424242/snapshots/1.jpg", NULL, NULL);
    assert_json_error(&r, 404);
    resp_free(&r);
}

/* ---- static files ---- */

static void test_static(void **state)
{
    fixture *f = *state;
    resp r = http(f->port, "GET", "/", NULL, NULL);
    assert_int_equal(r.status, 200);
    assert_true(has_header(&r, "Content-Type: text/html"));
    assert_true(has_header(&r, "Content-Security-Policy:"));
    assert_non_null(strstr(r.body, "<title>tablecam"));
    assert_non_null(strstr(r.body, "app.js"));
    resp_free(&r);
    r = http(f->port, "GET", "/app.js", NULL, NULL);
    assert_int_equal(r.status, 200);
    assert_true(has_header(&r, "Content-Type: text/javascript"));
    assert_true(r.len > 1000);
    resp_free(&r);
    r = http(f->port, "GET", "/style.css", NULL, NULL);
    assert_int_equal(r.status, 200);
    assert_true(has_header(&r, "Content-Type: text/css"));
    resp_free(&r);
    r = http(f->port, "HEAD", "/", NULL, NULL);
    assert_int_equal(r.status, 200);
    assert_int_equal(r.len, 0);
    assert_true(has_header(&r, "Content-Length:"));
    resp_free(&r);
    r = http(f->port, "GET", "/nothing.html", NULL, NULL);
    assert_json_error(&r, 404);
    resp_free(&r);
}

/* ---- live state and the push streams ---- */

static void test_live_state(void **state)
{
    fixture *f = *state;
    resp r = http(f->port, "GET", "/api/live", NULL, NULL);
    cJSON *j, *h = cJSON_Parse("{\"players\":[\"Ann\",\"Bob\"]}");
    rules_game *g;
    base_err err;
    const char *names[] = {"Ann", "Bob"};
    char *live;
    assert_int_equal(r.status, 200);
    j = json_of(&r);
    assert_true(cJSON_IsFalse(cJSON_GetObjectItem(j, "live")));
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(j, "controls")));
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(j, "events")), 0);
    cJSON_Delete(j);
    resp_free(&r);

    assert_int_equal(rules_game_new("qwirkle", h, &err, &g), 0);
    cJSON_Delete(h);
    live = ui_web_live_json(g, names, 2, 7);
    assert_non_null(live);
    assert_int_equal(ui_web_set_live(f->w, live), 0);
    free(live);
    rules_game_free(g);
    assert_int_equal(ui_web_set_live(f->w, "[1,2]"), BASE_EPARSE);
    assert_int_equal(ui_web_set_live(f->w, "{oops"), BASE_EPARSE);
    assert_int_equal(ui_web_publish(f->w, "{\"kind\":\"illegal\",\"seq\":3,\"player\":0,"
                                          "\"text\":\"Ann: two red circles in a row\"}"),
                     0);
    assert_int_equal(ui_web_publish(f->w, "not json"), BASE_EPARSE);

    r = http(f->port, "GET", "/api/live", NULL, NULL);
    j = json_of(&r);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(j, "live")));
    assert_string_equal(cJSON_GetObjectItem(j, "game")->valuestring, "qwirkle");
    assert_int_equal(cJSON_GetObjectItem(j, "match")->valueint, 7);
    assert_string_equal(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "players"), 1)->valuestring, "Bob");
    assert_int_equal(cJSON_GetObjectItem(j, "to_move")->valueint, 0);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(j, "signals")), 2);
    assert_int_equal(cJSON_GetObjectItem(j, "last_id")->valueint, 1);
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "alert"), "kind")->valuestring,
                        "illegal");
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(j, "events")), 1);
    cJSON_Delete(j);
    resp_free(&r);

    /* The next event of another kind clears the alert. */
    assert_int_equal(ui_web_publish(f->w, "{\"kind\":\"restored\",\"text\":\"ok\"}"), 0);
    r = http(f->port, "GET", "/api/live", NULL, NULL);
    j = json_of(&r);
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(j, "alert")));
    assert_int_equal(cJSON_GetObjectItem(j, "last_id")->valueint, 2);

    /* A notice stands beside the events until it is replaced or cleared. */
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(j, "notice")));
    cJSON_Delete(j);
    resp_free(&r);
    assert_int_equal(ui_web_set_notice(f->w, "focus the camera"), 0);
    r = http(f->port, "GET", "/api/live", NULL, NULL);
    j = json_of(&r);
    assert_string_equal(cJSON_GetObjectItem(j, "notice")->valuestring, "focus the camera");
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(j, "alert")));
    cJSON_Delete(j);
    resp_free(&r);
    assert_int_equal(ui_web_set_notice(f->w, NULL), 0);
    r = http(f->port, "GET", "/api/live", NULL, NULL);
    j = json_of(&r);
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(j, "notice")));
    cJSON_Delete(j);
    resp_free(&r);

    /* Only the last keep_events (8) are kept. */
    for (int i = 0; i < 10; i++)
        assert_int_equal(ui_web_publish(f->w, "{\"kind\":\"move\",\"text\":\"m\"}"), 0);
    r = http(f->port, "GET", "/api/live", NULL, NULL);
    j = json_of(&r);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(j, "events")), 8);
    assert_int_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "events"), 0),
                                         "id")->valueint,
                     5);
    cJSON_Delete(j);
    resp_free(&r);
}

/* Reads from s until text appears (or 10 s pass); returns what was read. */
static char *read_until(int s, const char *text)
{
    size_t cap = 8192, n = 0;
    char *buf = malloc(cap + 1);
    buf[0] = '\0';
    while (!strstr(buf, text)) {
        ssize_t k;
        if (n == cap)
            buf = realloc(buf, (cap *= 2) + 1);
        k = recv(s, buf + n, cap - n, 0);
        if (k <= 0)
            fail_msg("stream ended before '%s'; got: '%.300s'", text, buf);
        n += (size_t)k;
        buf[n] = '\0';
    }
    return buf;
}

static int open_stream(int port, const char *path, const char *headers)
{
    char req[512];
    int s = connect_port(port);
    snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n%s\r\n", path, port,
             headers ? headers : "");
    send_all(s, req, strlen(req));
    return s;
}

static void test_events_stream(void **state)
{
    fixture *f = *state;
    int s;
    char *got;
    assert_int_equal(ui_web_publish(f->w, "{\"kind\":\"move\",\"seq\":1,\"text\":\"first\"}"), 0);
    assert_int_equal(ui_web_publish(f->w, "{\"kind\":\"move\",\"seq\":2,\"text\":\"second\"}"), 0);

    /* A late joiner gets the kept events. */
    s = open_stream(f->port, "/api/events", NULL);
    got = read_until(s, "\"second\"");
    assert_non_null(strstr(got, "Content-Type: text/event-stream"));
    assert_non_null(strstr(got, "id: 1\nevent: event\ndata: {\"kind\":\"move\",\"seq\":1"));
    free(got);
    /* Then new ones as they come, each once. */
    assert_int_equal(ui_web_publish(f->w, "{\"kind\":\"illegal\",\"seq\":3,\"text\":\"third\"}"),
                     0);
    /* ... followed by the live state with the alert it raised. */
    got = read_until(s, "\"alert\":{\"kind\":\"illegal\"");
    assert_non_null(strstr(got, "id: 3\n"));
    assert_non_null(strstr(got, "\"third\""));
    assert_true(strstr(got, "\"third\"") < strstr(got, "event: live"));
    assert_null(strstr(got, "\"second\""));
    free(got);
    close(s);

    /* ?since and Last-Event-ID skip what the page has. */
    s = open_stream(f->port, "/api/events?since=2", NULL);
    got = read_until(s, "\"third\"");
    assert_null(strstr(got, "\"first\""));
    assert_null(strstr(got, "\"second\""));
    free(got);
    close(s);
    s = open_stream(f->port, "/api/events", "Last-Event-ID: 1\r\n");
    got = read_until(s, "\"third\"");
    assert_null(strstr(got, "\"first\""));
    assert_non_null(strstr(got, "\"second\""));
    free(got);
    close(s);

    {
        resp r = http(f->port, "GET", "/api/events?since=abc", NULL, NULL);
        assert_json_error(&r, 400);
        resp_free(&r);
    }
}

static void test_frames(void **state)
{
    fixture *f = *state;
    resp r = http(f->port, "GET", "/api/frame.jpg", NULL, NULL);
    int s;
    char *got;
    assert_json_error(&r, 404);
    resp_free(&r);
    r = http(f->port, "GET", "/api/frame.mjpg", NULL, NULL);
    assert_json_error(&r, 404);
    resp_free(&r);
    r = http(f->port, "GET", "/api/live", NULL, NULL);
    assert_non_null(strstr(r.body, "\"camera\":false"));
    resp_free(&r);
    assert_int_equal(ui_web_set_frame(f->w, (const unsigned char *)"GIF89a", 6), BASE_EINVAL);
    assert_int_equal(ui_web_set_frame(f->w, jpeg_a, sizeof jpeg_a), 0);
    r = http(f->port, "GET", "/api/live", NULL, NULL);
    assert_non_null(strstr(r.body, "\"camera\":true"));
    resp_free(&r);
    r = http(f->port, "GET", "/api/frame.jpg", NULL, NULL);
    assert_int_equal(r.status, 200);
    assert_int_equal(r.len, sizeof jpeg_a);
    assert_memory_equal(r.body, jpeg_a, sizeof jpeg_a);
    resp_free(&r);

    /* Each frame, then the next part's boundary and headers. */
    s = open_stream(f->port, "/api/frame.mjpg", NULL);
    got = read_until(s, "\x04\xff\xd9\r\n--tablecamframe\r\nContent-Type: image/jpeg\r\n\r\n");
    assert_non_null(strstr(got, "multipart/x-mixed-replace; boundary=tablecamframe"));
    assert_non_null(strstr(got, "\xff\xd8\xff\xe0\x01\x02\x03\x04"));
    free(got);
    assert_int_equal(ui_web_set_frame(f->w, jpeg_b, sizeof jpeg_b), 0);
    got = read_until(s, "\x07\xff\xd9\r\n--tablecamframe\r\n");
    free(got);
    close(s);
}

/* ---- the page's actions ---- */

static void test_actions(void **state)
{
    fixture *f = *state;
    resp r;
    cJSON *h = cJSON_Parse("{\"players\":[\"Ann\",\"Bob\"]}");
    rules_game *g;
    base_err err;
    char *live;

    r = http(f->port, "POST", "/api/signal", NULL, "{\"player\":1,\"type\":\"reroll\"}");
    assert_int_equal(r.status, 200);
    assert_int_equal(f->h.signals, 1);
    assert_int_equal(f->h.last_player, 1);
    assert_int_equal(f->h.last_type, RULES_MOVE_REROLL);
    resp_free(&r);

    /* With a live qwirkle game, only its signals and seats get through. */
    assert_int_equal(rules_game_new("qwirkle", h, &err, &g), 0);
    cJSON_Delete(h);
    live = ui_web_live_json(g, NULL, 0, 0);
    assert_int_equal(ui_web_set_live(f->w, live), 0);
    free(live);
    rules_game_free(g);
    r = http(f->port, "POST", "/api/signal", NULL, "{\"player\":0,\"type\":\"pass\"}");
    assert_json_error(&r, 400);
    assert_non_null(strstr(r.body, "pass"));
    resp_free(&r);
    r = http(f->port, "POST", "/api/signal", NULL, "{\"player\":2,\"type\":\"draw\"}");
    assert_json_error(&r, 400);
    resp_free(&r);
    r = http(f->port, "POST", "/api/signal", NULL, "{\"player\":\"Ann\",\"type\":\"draw\"}");
    assert_json_error(&r, 400);
    resp_free(&r);
    assert_int_equal(f->h.signals, 1);

    r = http(f->port, "POST", "/api/undo", NULL, NULL);
    assert_int_equal(r.status, 200);
    assert_int_equal(f->h.undos, 1);
    resp_free(&r);

    r = http(f->port, "POST", "/api/correct", NULL,
             "{\"move\":{\"type\":\"place\",\"pieces\":[{\"x\":0,\"y\":0,\"color\":\"red\","
             "\"shape\":\"star8\"}]}}");
    assert_int_equal(r.status, 200);
    assert_int_equal(f->h.corrects, 1);
    assert_non_null(strstr(f->h.last_move, "\"star8\""));
    resp_free(&r);
    r = http(f->port, "POST", "/api/correct", NULL,
             "{\"move\":{\"type\":\"place\",\"pieces\":[{\"x\":0,\"y\":0,\"color\":\"pink\","
             "\"shape\":\"star8\"}]}}");
    assert_json_error(&r, 400);
    assert_non_null(strstr(r.body, "pink"));
    resp_free(&r);
    r = http(f->port, "POST", "/api/correct", NULL, "{\"mv\":{}}");
    assert_json_error(&r, 400);
    resp_free(&r);
    assert_int_equal(f->h.corrects, 1);

    /* What a hook refuses is passed on. */
    f->h.answer = BASE_ESTATE;
    r = http(f->port, "POST", "/api/undo", NULL, "{}");
    assert_json_error(&r, 409);
    assert_non_null(strstr(r.body, "nothing to undo"));
    resp_free(&r);
    f->h.answer = 0;

    /* Another site's page may not act. */
    r = http(f->port, "POST", "/api/undo", "Origin: http://evil.example\r\n", "{}");
    assert_json_error(&r, 403);
    resp_free(&r);
    assert_int_equal(f->h.undos, 2);
    r = http(f->port, "GET", "/api/undo", NULL, NULL);
    assert_json_error(&r, 405);
    assert_true(has_header(&r, "Allow: POST"));
    resp_free(&r);
}

/* ---- the referee's questions ---- */

/* A qwirkle cube from its JSON. */
static rules_piece cube_at(int x, int y, const char *color, const char *shape)
{
    char json[128];
    cJSON *j;
    rules_piece p;
    base_err err;
    snprintf(json, sizeof json, "{\"x\":%d,\"y\":%d,\"color\":\"%s\",\"shape\":\"%s\"}", x, y, color,
             shape);
    j = cJSON_Parse(json);
    assert_int_equal(rules_piece_from_json("qwirkle", j, &p, &err), 0);
    cJSON_Delete(j);
    return p;
}

/* Question 3: "purple clover" (0.55) or "purple diamond" (0.30), or no
 * cube there, at (120.54, 80.0) mm on the mat. */
static ref_question clover_question(void)
{
    ref_question q;
    memset(&q, 0, sizeof q);
    q.id = 3;
    q.read = cube_at(13, 13, "purple", "clover");
    q.nanswers = 2;
    q.answer[0] = q.read;
    q.answer[1] = cube_at(13, 13, "purple", "diamond");
    q.p[0] = 0.55f;
    q.p[1] = 0.30f;
    snprintf(q.label[0], sizeof q.label[0], "purple clover");
    snprintf(q.label[1], sizeof q.label[1], "purple diamond");
    q.none = true;
    q.has_xy = true;
    q.x_mm = 120.54;
    q.y_mm = 80.0;
    snprintf(q.text, sizeof q.text, "Is this cube at (13,13) a purple clover or a purple diamond?");
    return q;
}

#define CLOVER_QUESTION_JSON                                                                       \
    "{\"id\":3,\"text\":\"Is this cube at (13,13) a purple clover or a purple diamond?\","         \
    "\"answers\":[{\"label\":\"purple clover\",\"p\":0.55,\"piece\":{\"x\":13,\"y\":13,"          \
    "\"color\":\"purple\",\"shape\":\"clover\"}},{\"label\":\"purple diamond\",\"p\":0.3,"         \
    "\"piece\":{\"x\":13,\"y\":13,\"color\":\"purple\",\"shape\":\"diamond\"}}],\"none\":true,"     \
    "\"x_mm\":120.5,\"y_mm\":80}"

/* The printed "question" of an event's JSON, or NULL when it has none. */
static char *question_of(const char *event_json)
{
    cJSON *j = cJSON_Parse(event_json);
    const cJSON *q = cJSON_GetObjectItemCaseSensitive(j, "question");
    char *s = q ? cJSON_PrintUnformatted(q) : NULL;
    assert_non_null(j);
    cJSON_Delete(j);
    return s;
}

static void test_question_json(void **state)
{
    ref_question q = clover_question();
    ref_event ev;
    char *json, *got;
    (void)state;
    memset(&ev, 0, sizeof ev);
    ev.kind = REF_EV_CONFIRM;
    ev.player = -1;
    snprintf(ev.text, sizeof ev.text, "%s", q.text);
    ev.question = &q;

    json = ui_web_event_json("qwirkle", &ev);
    assert_non_null(json);
    assert_non_null(strstr(json, "\"kind\":\"confirm\""));
    got = question_of(json);
    assert_non_null(got);
    assert_string_equal(got, CLOVER_QUESTION_JSON);
    cJSON_free(got);
    free(json);
    json = ui_web_question_json("qwirkle", &q);
    assert_string_equal(json, CLOVER_QUESTION_JSON);
    free(json);

    /* Where it lies unknown, and no "no cube there": neither key. */
    q.has_xy = false;
    q.none = false;
    q.nanswers = 1;
    json = ui_web_question_json("qwirkle", &q);
    assert_string_equal(json,
                        "{\"id\":3,\"text\":\"Is this cube at (13,13) a purple clover or a purple "
                        "diamond?\",\"answers\":[{\"label\":\"purple clover\",\"p\":0.55,\"piece\":"
                        "{\"x\":13,\"y\":13,\"color\":\"purple\",\"shape\":\"clover\"}}],"
                        "\"none\":false}");
    free(json);

    /* Only a confirm carries one; a confirm without one has no key. */
    ev.kind = REF_EV_RESTORED;
    json = ui_web_event_json("qwirkle", &ev);
    assert_null(strstr(json, "\"question\""));
    free(json);
    ev.kind = REF_EV_CONFIRM;
    ev.question = NULL;
    json = ui_web_event_json("qwirkle", &ev);
    assert_string_equal(json, "{\"kind\":\"confirm\",\"text\":\"Is this cube at (13,13) a purple "
                              "clover or a purple diamond?\"}");
    free(json);
}

/* The open question is in the live state (and pushed to the pages) until
 * it is cleared. */
static void test_question_live(void **state)
{
    fixture *f = *state;
    ref_question q = clover_question();
    char *json = ui_web_question_json("qwirkle", &q), *got;
    resp r;
    cJSON *j;
    int s;
    r = http(f->port, "GET", "/api/live", NULL, NULL);
    j = json_of(&r);
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(j, "question")));
    cJSON_Delete(j);
    resp_free(&r);

    s = open_stream(f->port, "/api/events", NULL);
    got = read_until(s, "event: live\ndata: ");
    assert_null(strstr(got, "\"question\":{"));
    free(got);
    assert_int_equal(ui_web_set_question(f->w, json), 0);
    got = read_until(s, "\"question\":" CLOVER_QUESTION_JSON);
    free(got);
    close(s);

    r = http(f->port, "GET", "/api/live", NULL, NULL);
    j = json_of(&r);
    got = cJSON_PrintUnformatted(cJSON_GetObjectItem(j, "question"));
    assert_string_equal(got, CLOVER_QUESTION_JSON);
    cJSON_free(got);
    cJSON_Delete(j);
    resp_free(&r);

    assert_int_equal(ui_web_set_question(f->w, "[3]"), BASE_EPARSE);
    assert_int_equal(ui_web_set_question(f->w, "{oops"), BASE_EPARSE);
    assert_int_equal(ui_web_set_question(f->w, NULL), 0);
    r = http(f->port, "GET", "/api/live", NULL, NULL);
    j = json_of(&r);
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(j, "question")));
    cJSON_Delete(j);
    resp_free(&r);
    free(json);
}

static void test_answer(void **state)
{
    fixture *f = *state;
    static const struct {
        const char *body, *field;
    } bad[] = {
        {"{\"answer\":1}", "\"question\""},
        {"{\"question\":\"3\",\"answer\":1}", "\"question\""},
        {"{\"question\":0,\"answer\":1}", "\"question\""},
        {"{\"question\":2.5,\"answer\":1}", "\"question\""},
        {"{\"question\":3}", "\"answer\""},
        {"{\"question\":3,\"answer\":\"purple clover\"}", "\"answer\""},
        {"{\"question\":3,\"answer\":1.5}", "\"answer\""},
        {"{\"question\":3,\"answer\":4}", "\"answer\""},
        {"{\"question\":3,\"answer\":-2}", "\"answer\""},
        {"{\"question\":3,", "the body is not valid JSON"},
        {"[3,1]", "the body must be a JSON object"},
    };
    resp r;
    cJSON *j;

    r = http(f->port, "POST", "/api/answer", NULL, "{\"question\":3,\"answer\":1}");
    assert_int_equal(r.status, 200);
    assert_string_equal(r.body, "{\"ok\":true}");
    assert_int_equal(f->h.answers, 1);
    assert_int_equal(f->h.last_question, 3);
    assert_int_equal(f->h.last_answer, 1);
    resp_free(&r);
    r = http(f->port, "POST", "/api/answer", NULL, "{\"question\":3,\"answer\":-1}");
    assert_int_equal(r.status, 200);
    assert_int_equal(f->h.answers, 2);
    assert_int_equal(f->h.last_answer, REF_ANSWER_NONE);
    resp_free(&r);

    /* Malformed bodies: 400 naming the field, and the hook is not called. */
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *e;
        r = http(f->port, "POST", "/api/answer", NULL, bad[i].body);
        assert_json_error(&r, 400);
        j = json_of(&r);
        e = cJSON_GetObjectItem(j, "error")->valuestring;
        if (strncmp(e, bad[i].field, strlen(bad[i].field)) != 0)
            fail_msg("%s: the error does not start with %s: %s", bad[i].body, bad[i].field, e);
        cJSON_Delete(j);
        resp_free(&r);
    }
    assert_int_equal(f->h.answers, 2);

    /* The hook's refusals: not open (409) and not offered (400), with its words. */
    f->h.answer = BASE_ESTATE;
    r = http(f->port, "POST", "/api/answer", NULL, "{\"question\":3,\"answer\":0}");
    assert_json_error(&r, 409);
    j = json_of(&r);
    assert_string_equal(cJSON_GetObjectItem(j, "error")->valuestring,
                        "question 3 is not open (question 4 is)");
    cJSON_Delete(j);
    resp_free(&r);
    f->h.answer = BASE_ERANGE;
    r = http(f->port, "POST", "/api/answer", NULL, "{\"question\":3,\"answer\":3}");
    assert_json_error(&r, 400);
    assert_non_null(strstr(r.body, "question 3 has answers 0-1"));
    resp_free(&r);
    f->h.answer = BASE_EBUSY;
    r = http(f->port, "POST", "/api/answer", NULL, "{\"question\":3,\"answer\":0}");
    assert_json_error(&r, 503);
    resp_free(&r);
    f->h.answer = 0;
    assert_int_equal(f->h.answers, 5);

    /* Like every action: POST only, and only from the page itself. */
    r = http(f->port, "GET", "/api/answer", NULL, NULL);
    assert_json_error(&r, 405);
    assert_true(has_header(&r, "Allow: POST"));
    resp_free(&r);
    r = http(f->port, "POST", "/api/answer", "Origin: http://evil.example\r\n",
             "{\"question\":3,\"answer\":0}");
    assert_json_error(&r, 403);
    resp_free(&r);
    assert_int_equal(f->h.answers, 5);
}

static void test_no_referee(void **state)
{
    fixture *f = *state;
    resp r;
    ui_web_free(f->w);
    f->w = NULL;
    assert_int_equal(start(f, NULL, false), 0);
    r = http(f->port, "POST", "/api/signal", NULL, "{\"player\":0,\"type\":\"draw\"}");
    assert_json_error(&r, 503);
    resp_free(&r);
    r = http(f->port, "POST", "/api/undo", NULL, NULL);
    assert_json_error(&r, 503);
    resp_free(&r);
    r = http(f->port, "POST", "/api/correct", NULL, "{\"move\":{\"type\":\"reroll\"}}");
    assert_json_error(&r, 503);
    resp_free(&r);
    r = http(f->port, "POST", "/api/answer", NULL, "{\"question\":1,\"answer\":0}");
    assert_json_error(&r, 503);
    assert_non_null(strstr(r.body, "no live referee"));
    resp_free(&r);
    r = http(f->port, "GET", "/api/live", NULL, NULL);
    assert_non_null(strstr(r.body, "\"controls\":false"));
    resp_free(&r);
}

/* ---- bad requests: the right status, and the server keeps answering ---- */

static void assert_still_answers(int port)
{
    resp r = http(port, "GET", "/api/live", NULL, NULL);
    assert_int_equal(r.status, 200);
    resp_free(&r);
}

static void test_bad_requests(void **state)
{
    fixture *f = *state;
    static const char *const climbs[] = {
        "/../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/api/../../etc/passwd",
        "/%2E%2E%2Fetc%2Fpasswd", "/..%5c..%5cetc%5cpasswd", "/api/matches/1/board/..%2f..%2f1.svg",
    };
    static const char *const garbage[] = {
        "GARBAGE\r\n\r\n",
        "GET\r\n\r\n",
        "GET / HTTP/9.9\r\n\r\n",
        "\x01\x02\x03\xff\xfe\r\n\r\n",
        "GET /api/live HTTP/1.1\r\nHost 127.0.0.1\r\n\r\n",
    };
    char *big;
    resp r;

    for (size_t i = 0; i < sizeof climbs / sizeof climbs[0]; i++) {
        char req[256];
        int n = snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", climbs[i]);
        r = http_raw(f->port, req, (size_t)n);
        if (r.status != 400 && r.status != 404)
            fail_msg("%s: status %d", climbs[i], r.status);
        assert_null(strstr(r.body, "root:"));
        resp_free(&r);
    }
    for (size_t i = 0; i < sizeof garbage / sizeof garbage[0]; i++) {
        r = http_raw(f->port, garbage[i], strlen(garbage[i]));
        if (r.status < 400 || r.status > 505)
            fail_msg("garbage %zu: status %d", i, r.status);
        resp_free(&r);
        assert_still_answers(f->port);
    }
    r = http(f->port, "POST", "/api/signal", NULL, "{\"player\":0,");
    assert_json_error(&r, 400);
    resp_free(&r);
    r = http(f->port, "POST", "/api/signal", NULL, "[1,2]");
    assert_json_error(&r, 400);
    resp_free(&r);
    r = http(f->port, "POST", "/api/signal", "Content-Type: text/plain\r\n", NULL);
    resp_free(&r);
    {
        const char req[] = "POST /api/undo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\n"
                           "Content-Length: 2\r\n\r\nhi";
        r = http_raw(f->port, req, sizeof req - 1);
        assert_json_error(&r, 415);
        resp_free(&r);
    }
    /* A declared huge body is refused before it is read. */
    {
        const char req[] = "POST /api/correct HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                           "application/json\r\nContent-Length: 999999999\r\n\r\n{";
        r = http_raw(f->port, req, sizeof req - 1);
        assert_json_error(&r, 413);
        resp_free(&r);
    }
    /* And one sent whole. */
    big = malloc(200001);
    memset(big, ' ', 200000);
    big[0] = '{';
    big[199999] = '}';
    big[200000] = '\0';
    r = http(f->port, "POST", "/api/correct", NULL, big);
    assert_json_error(&r, 413);
    resp_free(&r);
    free(big);
    /* Chunked, with no length given. */
    {
        const char req[] = "POST /api/undo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                           "application/json\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n";
        r = http_raw(f->port, req, sizeof req - 1);
        assert_int_equal(r.status, 200);
        resp_free(&r);
    }
    r = http(f->port, "DELETE", "/api/matches", NULL, NULL);
    assert_json_error(&r, 405);
    resp_free(&r);
    r = http(f->port, "PUT", "/", NULL, "{}");
    assert_json_error(&r, 405);
    resp_free(&r);
    r = http(f->port, "GET", "/api/nothing", NULL, NULL);
    assert_json_error(&r, 404);
    resp_free(&r);
    /* Without a token, only requests that name this machine. */
    {
        const char req[] = "GET /api/live HTTP/1.1\r\nHost: rebound.example:8080\r\n\r\n";
        r = http_raw(f->port, req, sizeof req - 1);
        assert_json_error(&r, 403);
        resp_free(&r);
    }
    {
        const char req[] = "GET /api/live HTTP/1.1\r\nHost: localhost\r\n\r\n";
        r = http_raw(f->port, req, sizeof req - 1);
        assert_int_equal(r.status, 200);
        resp_free(&r);
    }
    assert_still_answers(f->port);
}

/* ---- the token rule ---- */

static void test_token(void **state)
{
    fixture *f = *state;
    resp r = http(f->port, "GET", "/api/matches", NULL, NULL);
    assert_json_error(&r, 401);
    assert_true(has_header(&r, "WWW-Authenticate: Bearer"));
    resp_free(&r);
    r = http(f->port, "GET", "/", NULL, NULL);
    assert_json_error(&r, 401);
    resp_free(&r);
    r = http(f->port, "GET", "/api/matches", "Authorization: Bearer wrong-token-x\r\n", NULL);
    assert_json_error(&r, 401);
    resp_free(&r);
    r = http(f->port, "GET", "/api/matches", "Authorization: Bearer s3cret-token_\r\n", NULL);
    assert_json_error(&r, 401);
    resp_free(&r);
    r = http(f->port, "GET", "/api/matches", "Authorization: Bearer s3cret-token_1\r\n", NULL);
    assert_int_equal(r.status, 200);
    resp_free(&r);
    r = http(f->port, "GET", "/?token=s3cret-token_1", NULL, NULL);
    assert_int_equal(r.status, 200);
    assert_true(has_header(&r, "Set-Cookie: tablecam_token=s3cret-token_1; Path=/; HttpOnly"));
    resp_free(&r);
    r = http(f->port, "GET", "/app.js", "Cookie: tablecam_token=s3cret-token_1\r\n", NULL);
    assert_int_equal(r.status, 200);
    resp_free(&r);
    r = http(f->port, "GET", "/api/events?token=nope", NULL, NULL);
    assert_json_error(&r, 401);
    resp_free(&r);
    /* With a token, the Host rule gives way: other machines may ask. */
    {
        const char req[] = "GET /api/live?token=s3cret-token_1 HTTP/1.1\r\nHost: table.local\r\n\r\n";
        r = http_raw(f->port, req, sizeof req - 1);
        assert_int_equal(r.status, 200);
        resp_free(&r);
    }
}

static void test_config_errors(void **state)
{
    fixture *f = *state;
    ui_web *w = NULL;
    ui_web_config cfg = {0};
    base_err err;
    char addr[32];
    (void)state;
    cfg.listen = "0.0.0.0:0";
    assert_int_equal(ui_web_new(&cfg, &w, &err), BASE_EINVAL);
    assert_null(w);
    assert_non_null(strstr(err.msg, "token"));
    cfg.token = "short";
    assert_int_equal(ui_web_new(&cfg, &w, &err), BASE_EINVAL);
    cfg.token = "has spaces in it";
    assert_int_equal(ui_web_new(&cfg, &w, &err), BASE_EINVAL);
    cfg.token = NULL;
    cfg.listen = "127.0.0.1:99999";
    assert_int_equal(ui_web_new(&cfg, &w, &err), BASE_EINVAL);
    cfg.listen = "[::1]:8080";
    assert_int_equal(ui_web_new(&cfg, &w, &err), BASE_EINVAL);
    cfg.listen = "tablehost:8080";
    assert_int_equal(ui_web_new(&cfg, &w, &err), BASE_EINVAL);
    /* The port the fixture's server holds is taken. */
    snprintf(addr, sizeof addr, "127.0.0.1:%d", f->port);
    cfg.listen = addr;
    assert_int_equal(ui_web_new(&cfg, &w, &err), BASE_EIO);
    assert_null(w);
    assert_non_null(strstr(err.msg, addr));
}

/* Stopping the server ends open streams instead of waiting on them. */
static void test_stop_with_open_streams(void **state)
{
    fixture *f = *state;
    int s1, s2;
    char *got;
    double t0;
    assert_int_equal(ui_web_set_frame(f->w, jpeg_a, sizeof jpeg_a), 0);
    s1 = open_stream(f->port, "/api/events", NULL);
    s2 = open_stream(f->port, "/api/frame.mjpg", NULL);
    got = read_until(s1, "retry:");
    free(got);
    got = read_until(s2, "--tablecamframe\r\n");
    free(got);
    t0 = base_now();
    ui_web_free(f->w);
    f->w = NULL;
    assert_true(base_now() - t0 < 5.0);
    close(s1);
    close(s2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_matches_list, setup, teardown),
        cmocka_unit_test_setup_teardown(test_match_detail, setup, teardown),
        cmocka_unit_test_setup_teardown(test_board_and_snapshot, setup, teardown),
        cmocka_unit_test_setup_teardown(test_static, setup, teardown),
        cmocka_unit_test_setup_teardown(test_live_state, setup, teardown),
        cmocka_unit_test_setup_teardown(test_events_stream, setup, teardown),
        cmocka_unit_test_setup_teardown(test_frames, setup, teardown),
        cmocka_unit_test_setup_teardown(test_actions, setup, teardown),
        cmocka_unit_test(test_question_json),
        cmocka_unit_test_setup_teardown(test_question_live, setup, teardown),
        cmocka_unit_test_setup_teardown(test_answer, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_referee, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_requests, setup, teardown),
        cmocka_unit_test_setup_teardown(test_token, setup_token, teardown),
        cmocka_unit_test_setup_teardown(test_config_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stop_with_open_streams, setup, teardown),
    };
    th_case_filter();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
