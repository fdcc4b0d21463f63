/* ui/web_live.c: the web app's live side: what the referee's loop sets
 * (events, the live state, the notice, the open question, the camera
 * frame), the live document and its push streams (server-sent events,
 * MJPEG), the page's actions through the hooks, and the JSON the pages
 * expect made from the referee's values.  The server around it is
 * ui/web.c (ui/web_int.h). */
#define _POSIX_C_SOURCE 200809L
#include "web_int.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "board.h"

/* ---- the turns each game signals by hand ---- */

static const char *ui__move_type_name(int type)
{
    switch (type) {
    case RULES_MOVE_PASS: return "pass";
    case RULES_MOVE_REROLL: return "reroll";
    case RULES_MOVE_DRAW: return "draw";
    default: return NULL;
    }
}

unsigned ui_web_signal_types(const char *game)
{
    static const struct {
        const char *game;
        unsigned types;
    } table[] = {
        {"qwirkle", 1u << RULES_MOVE_REROLL | 1u << RULES_MOVE_DRAW},
        {"cards", 1u << RULES_MOVE_PASS},
        {"cube2", 1u << RULES_MOVE_PASS},
        {"stack4", 0},
        {"cubed", 1u << RULES_MOVE_DRAW | 1u << RULES_MOVE_PASS},
    };
    for (size_t i = 0; game && i < sizeof table / sizeof table[0]; i++)
        if (strcmp(game, table[i].game) == 0)
            return table[i].types;
    return 0;
}

static cJSON *ui__signals_json(const char *game)
{
    static const int order[] = {RULES_MOVE_PASS, RULES_MOVE_REROLL, RULES_MOVE_DRAW};
    unsigned t = ui_web_signal_types(game);
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; a && i < sizeof order / sizeof order[0]; i++)
        if (t & (1u << order[i]))
            cJSON_AddItemToArray(a, cJSON_CreateString(ui__move_type_name(order[i])));
    return a;
}

/* ---- what the caller sets ---- */

int ui_web_publish(ui_web *w, const char *event_json)
{
    cJSON *o = event_json ? cJSON_Parse(event_json) : NULL;
    const cJSON *kind;
    char *s;
    bool raise, clear;
    if (!cJSON_IsObject(o)) {
        cJSON_Delete(o);
        return BASE_EPARSE;
    }
    kind = cJSON_GetObjectItemCaseSensitive(o, "kind");
    raise = cJSON_IsString(kind) &&
            (strcmp(kind->valuestring, "illegal") == 0 || strcmp(kind->valuestring, "confirm") == 0);
    clear = !raise;
    pthread_mutex_lock(&w->mu);
    cJSON_DeleteItemFromObjectCaseSensitive(o, "id");
    cJSON_AddNumberToObject(o, "id", (double)(w->last_id + 1));
    if (!(s = cJSON_PrintUnformatted(o))) {
        pthread_mutex_unlock(&w->mu);
        cJSON_Delete(o);
        return BASE_ENOMEM;
    }
    cJSON_Delete(o);
    w->last_id++;
    free(w->ring[w->last_id % w->keep]);
    w->ring[w->last_id % w->keep] = s;
    if (raise || (clear && w->alert)) {
        free(w->alert);
        w->alert = raise ? ui__web_strdup(s) : NULL;
        w->live_ver++; /* the broadcast for the event wakes the streams */
    }
    pthread_cond_broadcast(&w->ev_cond);
    pthread_mutex_unlock(&w->mu);
    return 0;
}

/* The live state changed: bump its version and wake the event streams,
   which send it anew. The caller holds w->mu. */
static void ui__live_changed(ui_web *w)
{
    w->live_ver++;
    pthread_cond_broadcast(&w->ev_cond);
}

int ui_web_set_live(ui_web *w, const char *live_json)
{
    cJSON *o = NULL;
    char *s = NULL;
    const cJSON *game, *players;
    if (live_json) {
        o = cJSON_Parse(live_json);
        if (!cJSON_IsObject(o)) {
            cJSON_Delete(o);
            return BASE_EPARSE;
        }
        if (!(s = cJSON_PrintUnformatted(o))) {
            cJSON_Delete(o);
            return BASE_ENOMEM;
        }
    }
    game = cJSON_GetObjectItemCaseSensitive(o, "game");
    players = cJSON_GetObjectItemCaseSensitive(o, "players");
    pthread_mutex_lock(&w->mu);
    free(w->live);
    w->live = s;
    snprintf(w->live_game, sizeof w->live_game, "%s", cJSON_IsString(game) ? game->valuestring : "");
    w->live_nplayers = cJSON_IsArray(players) ? cJSON_GetArraySize(players) : 0;
    ui__live_changed(w);
    pthread_mutex_unlock(&w->mu);
    cJSON_Delete(o);
    return 0;
}

int ui_web_set_notice(ui_web *w, const char *text)
{
    char *s = NULL;
    if (text && !(s = ui__web_strdup(text)))
        return BASE_ENOMEM;
    pthread_mutex_lock(&w->mu);
    free(w->notice);
    w->notice = s;
    ui__live_changed(w);
    pthread_mutex_unlock(&w->mu);
    return 0;
}

int ui_web_set_question(ui_web *w, const char *question_json)
{
    char *s = NULL;
    if (question_json) {
        cJSON *o = cJSON_Parse(question_json);
        char *text;
        if (!cJSON_IsObject(o)) {
            cJSON_Delete(o);
            return BASE_EPARSE;
        }
        text = cJSON_PrintUnformatted(o);
        cJSON_Delete(o);
        s = text ? ui__web_strdup(text) : NULL;
        cJSON_free(text);
        if (!s)
            return BASE_ENOMEM;
    }
    pthread_mutex_lock(&w->mu);
    free(w->question);
    w->question = s;
    ui__live_changed(w);
    pthread_mutex_unlock(&w->mu);
    return 0;
}

int ui_web_set_frame(ui_web *w, const unsigned char *jpeg, size_t len)
{
    ui__frame *f;
    if (!jpeg || len < 3 || jpeg[0] != 0xFF || jpeg[1] != 0xD8 || jpeg[2] != 0xFF)
        return BASE_EINVAL;
    if (!(f = malloc(sizeof *f + len)))
        return BASE_ENOMEM;
    f->refs = 1;
    f->len = len;
    memcpy(f->data, jpeg, len);
    pthread_mutex_lock(&w->mu);
    if (!w->frame)
        ui__live_changed(w); /* the pages learn that there is a picture now */
    ui__web_frame_unref(w->frame);
    w->frame = f;
    w->frame_ver++;
    pthread_cond_broadcast(&w->frame_cond);
    pthread_mutex_unlock(&w->mu);
    return 0;
}

/* ---- live state ---- */

/* The live document: the caller's state, plus whether the page's controls
 * work, the current alert, the notice, the open question, and
 * (with_events) the kept events.  Called with the lock held.  Returns
 * NULL when out of memory. */
static cJSON *ui__live_doc(ui_web *w, bool with_events)
{
    cJSON *doc = w->live ? cJSON_Parse(w->live) : NULL;
    if (!doc) {
        doc = cJSON_CreateObject();
        cJSON_AddBoolToObject(doc, "live", false);
    } else if (!cJSON_HasObjectItem(doc, "live")) {
        cJSON_AddBoolToObject(doc, "live", true);
    }
    cJSON_DeleteItemFromObjectCaseSensitive(doc, "controls");
    cJSON_AddBoolToObject(doc, "controls", w->has_hooks);
    cJSON_DeleteItemFromObjectCaseSensitive(doc, "camera");
    cJSON_AddBoolToObject(doc, "camera", w->frame != NULL);
    if (!cJSON_HasObjectItem(doc, "alert"))
        cJSON_AddItemToObject(doc, "alert", ui__web_parse_or_null(w->alert));
    cJSON_DeleteItemFromObjectCaseSensitive(doc, "notice");
    cJSON_AddItemToObject(doc, "notice",
                          w->notice ? cJSON_CreateString(w->notice) : cJSON_CreateNull());
    cJSON_DeleteItemFromObjectCaseSensitive(doc, "question");
    cJSON_AddItemToObject(doc, "question", ui__web_parse_or_null(w->question));
    if (with_events) {
        cJSON *ev = cJSON_CreateArray();
        long long first = w->last_id - w->keep + 1;
        for (long long id = first < 1 ? 1 : first; id <= w->last_id; id++) {
            cJSON *e = cJSON_Parse(w->ring[id % w->keep]);
            if (e)
                cJSON_AddItemToArray(ev, e);
        }
        cJSON_DeleteItemFromObjectCaseSensitive(doc, "events");
        cJSON_AddItemToObject(doc, "events", ev);
        cJSON_DeleteItemFromObjectCaseSensitive(doc, "last_id");
        cJSON_AddNumberToObject(doc, "last_id", (double)w->last_id);
    }
    return doc;
}

int ui__web_api_live(ui__req *r)
{
    cJSON *doc;
    pthread_mutex_lock(&r->w->mu);
    doc = ui__live_doc(r->w, true);
    pthread_mutex_unlock(&r->w->mu);
    return ui__web_send_json(r, 200, doc, NULL);
}

static bool ui__stream_enter(ui_web *w)
{
    bool ok;
    pthread_mutex_lock(&w->mu);
    ok = !w->stopping && w->nstreams < UI__MAX_STREAMS;
    if (ok)
        w->nstreams++;
    pthread_mutex_unlock(&w->mu);
    return ok;
}

static void ui__stream_leave(ui_web *w)
{
    pthread_mutex_lock(&w->mu);
    w->nstreams--;
    pthread_mutex_unlock(&w->mu);
}

static void ui__deadline(struct timespec *ts, int seconds)
{
    clock_gettime(CLOCK_MONOTONIC, ts);
    ts->tv_sec += seconds;
}

/* A growing text buffer for one write of several SSE messages. */
typedef struct ui__buf {
    char *s;
    size_t len, cap;
    bool failed;
} ui__buf;

static void ui__buf_add(ui__buf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void ui__buf_add(ui__buf *b, const char *fmt, ...)
{
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || b->failed)
        return;
    if (b->len + (size_t)n + 1 > b->cap) {
        size_t cap = (b->len + (size_t)n + 1) * 2;
        char *s = realloc(b->s, cap);
        if (!s) {
            b->failed = true;
            return;
        }
        b->s = s;
        b->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

/* GET /api/events: server-sent events.  Sends the live state at once, the
 * kept events after `since` (the Last-Event-ID header of a reconnecting
 * page, or ?since=N; all kept events without either), then each new event
 * and live state as it comes, with a comment every UI__KEEPALIVE_S seconds
 * so a closed page is noticed. */
int ui__web_api_events(ui__req *r)
{
    ui_web *w = r->w;
    long long sent = 0, live_seen = -1;
    const char *lei = mg_get_header(r->c, "Last-Event-ID");
    char since[24];
    int hs = ui__web_query(r, "since", since, sizeof since);
    if (hs < 0)
        return 400;
    if (lei && ui__web_parse_id(lei, strlen(lei)) >= 0)
        sent = ui__web_parse_id(lei, strlen(lei));
    else if (hs && (sent = ui__web_parse_id(since, strlen(since))) < 0)
        return ui__web_error(r, 400, NULL, "'since' must be an event id (a number), not '%s'", since);
    if (!ui__stream_enter(w))
        return ui__web_error(r, 503, NULL, "too many open streams (at most %d)", UI__MAX_STREAMS);
    mg_printf(r->c,
              "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream; charset=utf-8\r\n"
              "X-Accel-Buffering: no\r\n%s\r\n",
              ui__web_sec_headers);
    if (!r->head && mg_printf(r->c, "retry: 2000\n\n") > 0) {
        pthread_mutex_lock(&w->mu);
        for (;;) {
            ui__buf b = {0};
            struct timespec until;
            int rc = 0, n;
            ui__deadline(&until, UI__KEEPALIVE_S);
            while (!w->stopping && sent >= w->last_id && live_seen == w->live_ver && rc == 0)
                rc = pthread_cond_timedwait(&w->ev_cond, &w->mu, &until);
            if (w->stopping)
                break;
            /* Events first, then the state they led to. */
            if (sent < w->last_id - w->keep)
                sent = w->last_id - w->keep; /* a slow page lost the oldest */
            if (sent > w->last_id)
                sent = w->last_id; /* a stale Last-Event-ID from another run */
            for (; sent < w->last_id; sent++)
                ui__buf_add(&b, "id: %lld\nevent: event\ndata: %s\n\n", sent + 1,
                            w->ring[(sent + 1) % w->keep]);
            if (live_seen != w->live_ver) {
                cJSON *doc = ui__live_doc(w, false);
                char *s = doc ? cJSON_PrintUnformatted(doc) : NULL;
                if (s)
                    ui__buf_add(&b, "event: live\ndata: %s\n\n", s);
                cJSON_free(s);
                cJSON_Delete(doc);
                live_seen = w->live_ver;
            }
            if (!b.len)
                ui__buf_add(&b, ": keep-alive\n\n");
            pthread_mutex_unlock(&w->mu);
            n = b.failed ? -1 : mg_write(r->c, b.s, b.len);
            free(b.s);
            pthread_mutex_lock(&w->mu);
            if (n <= 0)
                break;
        }
        pthread_mutex_unlock(&w->mu);
    }
    ui__stream_leave(w);
    return 200;
}

int ui__web_api_frame(ui__req *r)
{
    ui__frame *f;
    int rc;
    pthread_mutex_lock(&r->w->mu);
    if ((f = r->w->frame))
        f->refs++;
    pthread_mutex_unlock(&r->w->mu);
    if (!f)
        return ui__web_error(r, 404, NULL, "no camera frame yet");
    rc = ui__web_send(r, 200, "image/jpeg", f->data, f->len, NULL);
    pthread_mutex_lock(&r->w->mu);
    ui__web_frame_unref(f);
    pthread_mutex_unlock(&r->w->mu);
    return rc;
}

/* GET /api/frame.mjpg: each new frame as one part of a multipart stream
 * (the latest only: a slow page skips frames rather than lagging); the
 * same frame again every UI__KEEPALIVE_S seconds so a closed page is
 * noticed. */
int ui__web_api_mjpeg(ui__req *r)
{
    ui_web *w = r->w;
    long long seen = -1;
    bool any;
    /* Browsers give up on a multipart image that starts without a part:
     * before the first frame the page is told to come back later. */
    pthread_mutex_lock(&w->mu);
    any = w->frame != NULL;
    pthread_mutex_unlock(&w->mu);
    if (!any)
        return ui__web_error(r, 404, NULL, "no camera frame yet");
    if (!ui__stream_enter(w))
        return ui__web_error(r, 503, NULL, "too many open streams (at most %d)", UI__MAX_STREAMS);
    mg_printf(r->c,
              "HTTP/1.1 200 OK\r\nContent-Type: multipart/x-mixed-replace; boundary=tablecamframe\r\n"
              "%s\r\n--tablecamframe\r\nContent-Type: image/jpeg\r\n\r\n",
              ui__web_sec_headers);
    pthread_mutex_lock(&w->mu);
    while (!r->head) {
        struct timespec until;
        ui__frame *f;
        int rc = 0, ok;
        ui__deadline(&until, UI__KEEPALIVE_S);
        while (!w->stopping && (seen == w->frame_ver || !w->frame) && rc == 0)
            rc = pthread_cond_timedwait(&w->frame_cond, &w->mu, &until);
        if (w->stopping)
            break;
        if (!(f = w->frame))
            continue;
        f->refs++;
        seen = w->frame_ver;
        pthread_mutex_unlock(&w->mu);
        /* Each part is closed by the next boundary and that part's headers
         * at once: a browser shows a part only when the next one has
         * begun, so the parts carry no Content-Length (they are delimited
         * by the boundary alone). */
        ok = mg_write(r->c, f->data, f->len) > 0 &&
             mg_printf(r->c, "\r\n--tablecamframe\r\nContent-Type: image/jpeg\r\n\r\n") > 0;
        pthread_mutex_lock(&w->mu);
        ui__web_frame_unref(f);
        if (!ok)
            break;
    }
    pthread_mutex_unlock(&w->mu);
    ui__stream_leave(w);
    return 200;
}

/* ---- the page's actions ---- */

static int ui__hook_result(ui__req *r, int rc, const base_err *err, const char *what)
{
    cJSON *o;
    if (rc == 0) {
        o = cJSON_CreateObject();
        cJSON_AddBoolToObject(o, "ok", true);
        return ui__web_send_json(r, 200, o, NULL);
    }
    if (rc == BASE_EINVAL || rc == BASE_EPARSE || rc == BASE_ERANGE)
        return ui__web_error(r, 400, NULL, "%s", err->msg[0] ? err->msg : base_strerror(rc));
    if (rc == BASE_ESTATE)
        return ui__web_error(r, 409, NULL, "%s", err->msg[0] ? err->msg : base_strerror(rc));
    if (rc == BASE_EBUSY)
        return ui__web_error(r, 503, NULL, "%s", err->msg[0] ? err->msg : base_strerror(rc));
    return ui__web_error(r, 500, NULL, "%s failed: %s", what, err->msg[0] ? err->msg : base_strerror(rc));
}

static int ui__no_referee(ui__req *r)
{
    return ui__web_error(r, 503, NULL, "no live referee is attached (this server only shows the history)");
}

int ui__web_api_signal(ui__req *r)
{
    ui_web *w = r->w;
    cJSON *body;
    const cJSON *jp, *jt;
    char game[32];
    int nplayers, rc, type, player;
    base_err err;
    unsigned allowed;
    if ((rc = ui__web_json_body(r, &body)) != 0)
        return rc;
    jp = cJSON_GetObjectItemCaseSensitive(body, "player");
    jt = cJSON_GetObjectItemCaseSensitive(body, "type");
    if (!cJSON_IsNumber(jp) || jp->valuedouble != (double)jp->valueint) {
        cJSON_Delete(body);
        return ui__web_error(r, 400, NULL, "\"player\" must be a seat number (0 moves first)");
    }
    player = jp->valueint;
    type = !cJSON_IsString(jt)                    ? -1
           : strcmp(jt->valuestring, "pass") == 0   ? RULES_MOVE_PASS
           : strcmp(jt->valuestring, "reroll") == 0 ? RULES_MOVE_REROLL
           : strcmp(jt->valuestring, "draw") == 0   ? RULES_MOVE_DRAW
                                                    : -1;
    cJSON_Delete(body);
    if (type < 0)
        return ui__web_error(r, 400, NULL, "\"type\" must be \"pass\", \"reroll\" or \"draw\"");
    pthread_mutex_lock(&w->mu);
    snprintf(game, sizeof game, "%s", w->live_game);
    nplayers = w->live_nplayers;
    pthread_mutex_unlock(&w->mu);
    if (player < 0 || player >= (nplayers > 0 ? nplayers : RULES_MAX_PLAYERS))
        return ui__web_error(r, 400, NULL, "\"player\" %d is not a seat of this game (0 to %d)", player,
                             (nplayers > 0 ? nplayers : RULES_MAX_PLAYERS) - 1);
    allowed = game[0] ? ui_web_signal_types(game) : ~0u;
    if (!(allowed & (1u << type)))
        return ui__web_error(r, 400, NULL, "%s has no '%s' turn to signal", game,
                             ui__move_type_name(type));
    if (!w->has_hooks || !w->hooks.signal)
        return ui__no_referee(r);
    base_err_clear(&err);
    rc = w->hooks.signal(w->hooks.ctx, player, type, &err);
    return ui__hook_result(r, rc, &err, "the signal");
}

int ui__web_api_undo(ui__req *r)
{
    ui_web *w = r->w;
    cJSON *body;
    base_err err;
    int rc;
    if ((rc = ui__web_json_body(r, &body)) != 0)
        return rc;
    cJSON_Delete(body);
    if (!w->has_hooks || !w->hooks.undo)
        return ui__no_referee(r);
    base_err_clear(&err);
    rc = w->hooks.undo(w->hooks.ctx, &err);
    return ui__hook_result(r, rc, &err, "the undo");
}

int ui__web_api_correct(ui__req *r)
{
    ui_web *w = r->w;
    cJSON *body;
    const cJSON *move;
    char game[32], *text;
    base_err err;
    int rc;
    if ((rc = ui__web_json_body(r, &body)) != 0)
        return rc;
    move = cJSON_GetObjectItemCaseSensitive(body, "move");
    if (!cJSON_IsObject(move)) {
        cJSON_Delete(body);
        return ui__web_error(r, 400, NULL, "the body needs \"move\": the corrected move as an object");
    }
    pthread_mutex_lock(&w->mu);
    snprintf(game, sizeof game, "%s", w->live_game);
    pthread_mutex_unlock(&w->mu);
    if (game[0] && rules_game_available(game)) {
        rules_move *m = malloc(sizeof *m);
        if (!m) {
            cJSON_Delete(body);
            return ui__web_error(r, 500, NULL, "out of memory");
        }
        rc = rules_move_from_json(game, move, m, &err);
        free(m);
        if (rc != 0) {
            cJSON_Delete(body);
            return ui__web_error(r, 400, NULL, "\"move\" is not a %s move: %s", game, err.msg);
        }
    }
    text = cJSON_PrintUnformatted(move);
    cJSON_Delete(body);
    if (!text)
        return ui__web_error(r, 500, NULL, "out of memory");
    if (!w->has_hooks || !w->hooks.correct_last) {
        cJSON_free(text);
        return ui__no_referee(r);
    }
    base_err_clear(&err);
    rc = w->hooks.correct_last(w->hooks.ctx, text, &err);
    cJSON_free(text);
    return ui__hook_result(r, rc, &err, "the correction");
}
/* A JSON number that is a whole int. */
static bool ui__is_int(const cJSON *j)
{
    return cJSON_IsNumber(j) && j->valuedouble == (double)j->valueint;
}

int ui__web_api_answer(ui__req *r)
{
    ui_web *w = r->w;
    cJSON *body;
    const cJSON *jq, *ja;
    base_err err;
    int rc, question, answer;
    if ((rc = ui__web_json_body(r, &body)) != 0)
        return rc;
    jq = cJSON_GetObjectItemCaseSensitive(body, "question");
    ja = cJSON_GetObjectItemCaseSensitive(body, "answer");
    if (!ui__is_int(jq) || jq->valueint < 1) {
        cJSON_Delete(body);
        return ui__web_error(r, 400, NULL,
                             "\"question\" must be the id of the question asked (the \"id\" of "
                             "the live state's \"question\", from 1)");
    }
    if (!ui__is_int(ja) || ja->valueint < REF_ANSWER_NONE || ja->valueint >= REF_MAX_ANSWERS) {
        cJSON_Delete(body);
        return ui__web_error(r, 400, NULL,
                             "\"answer\" must be the index of one of the question's answers (0 "
                             "to %d), or %d for \"no piece there\"",
                             REF_MAX_ANSWERS - 1, REF_ANSWER_NONE);
    }
    question = jq->valueint;
    answer = ja->valueint;
    cJSON_Delete(body);
    if (!w->has_hooks || !w->hooks.answer)
        return ui__no_referee(r);
    base_err_clear(&err);
    rc = w->hooks.answer(w->hooks.ctx, question, answer, &err);
    return ui__hook_result(r, rc, &err, "the answer");
}

/* ---- JSON for the pages ---- */

static char *ui__print_free(cJSON *o)
{
    char *s = o ? cJSON_PrintUnformatted(o) : NULL, *copy;
    cJSON_Delete(o);
    if (!s)
        return NULL;
    copy = ui__web_strdup(s); /* plain malloc'ed, whatever cJSON's allocator */
    cJSON_free(s);
    return copy;
}

static cJSON *ui__winners_json(unsigned winners, int n)
{
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; i < n; i++)
        if (winners & (1u << i))
            cJSON_AddItemToArray(a, cJSON_CreateNumber(i));
    return a;
}

/* Likelihoods to 4 decimals (a percentage and a little more), places on
 * the mat to 0.1 mm (finer than any reading): short numbers for the
 * pages, not a float's 0.550000011920929. */
#define UI__P_SCALE 10000.0
#define UI__MM_SCALE 10.0

static double ui__rounded(double v, double scale)
{
    return round(v * scale) / scale;
}

static cJSON *ui__question_obj(const char *game, const ref_question *q)
{
    cJSON *o = cJSON_CreateObject(), *answers;
    int n = q->nanswers < 0 ? 0 : q->nanswers > REF_MAX_ANSWERS ? REF_MAX_ANSWERS : q->nanswers;
    char text[sizeof q->text + 1];
    if (!o)
        return NULL;
    snprintf(text, sizeof text, "%.*s", (int)sizeof q->text, q->text);
    cJSON_AddNumberToObject(o, "id", q->id);
    cJSON_AddStringToObject(o, "text", text);
    answers = cJSON_AddArrayToObject(o, "answers");
    for (int k = 0; answers && k < n; k++) {
        cJSON *a = cJSON_CreateObject(), *piece = rules_piece_to_json(game, &q->answer[k]);
        char label[sizeof q->label[k] + 1];
        snprintf(label, sizeof label, "%.*s", (int)sizeof q->label[k], q->label[k]);
        cJSON_AddStringToObject(a, "label", label);
        cJSON_AddNumberToObject(a, "p", ui__rounded(q->p[k], UI__P_SCALE));
        cJSON_AddItemToObject(a, "piece", piece ? piece : cJSON_CreateNull());
        cJSON_AddItemToArray(answers, a);
    }
    cJSON_AddBoolToObject(o, "none", q->none);
    if (q->has_xy) {
        cJSON_AddNumberToObject(o, "x_mm", ui__rounded(q->x_mm, UI__MM_SCALE));
        cJSON_AddNumberToObject(o, "y_mm", ui__rounded(q->y_mm, UI__MM_SCALE));
    }
    return o;
}

char *ui_web_question_json(const char *game, const ref_question *q)
{
    return ui__print_free(ui__question_obj(game, q));
}

char *ui_web_event_json(const char *game, const ref_event *ev)
{
    cJSON *o = cJSON_CreateObject();
    const rules_verdict *v = ev->verdict;
    if (!o)
        return NULL;
    cJSON_AddStringToObject(o, "kind", ref_event_name(ev->kind));
    if (ev->seq > 0)
        cJSON_AddNumberToObject(o, "seq", ev->seq);
    if (ev->player >= 0)
        cJSON_AddNumberToObject(o, "player", ev->player);
    cJSON_AddStringToObject(o, "text", ev->text);
    if (ev->move) {
        cJSON *m = rules_move_to_json(game, ev->move);
        if (m)
            cJSON_AddItemToObject(o, "move", m);
    }
    if (v) {
        cJSON_AddBoolToObject(o, "legal", v->legal);
        cJSON_AddNumberToObject(o, "points", v->points);
        cJSON_AddItemToObject(o, "scores", cJSON_CreateIntArray(v->scores, v->nplayers));
        if (!v->legal) {
            cJSON_AddStringToObject(o, "rule", v->rule);
            cJSON_AddStringToObject(o, "reason", v->reason);
        }
        if (v->note[0])
            cJSON_AddStringToObject(o, "note", v->note);
        if (v->over) {
            cJSON_AddBoolToObject(o, "over", true);
            cJSON_AddItemToObject(o, "winners", ui__winners_json(v->winners, v->nplayers));
        }
    }
    if (ev->restore) {
        cJSON *p = rules_pieces_to_json(game, ev->restore, ev->nrestore);
        if (p)
            cJSON_AddItemToObject(o, "restore", p);
    }
    if (ev->kind == REF_EV_CONFIRM && ev->question) {
        cJSON *q = ui__question_obj(game, ev->question);
        if (q)
            cJSON_AddItemToObject(o, "question", q);
    }
    return ui__print_free(o);
}

char *ui_web_live_json(const rules_game *g, const char *const *players, int nplayers,
                       int64_t match_id)
{
    rules_status st;
    cJSON *o = cJSON_CreateObject(), *names, *pos;
    const char *game = rules_game_id(g);
    if (!o)
        return NULL;
    rules_game_status(g, &st);
    cJSON_AddStringToObject(o, "game", game);
    if (match_id > 0)
        cJSON_AddNumberToObject(o, "match", (double)match_id);
    names = cJSON_AddArrayToObject(o, "players");
    for (int i = 0; i < st.nplayers; i++) {
        char buf[32];
        snprintf(buf, sizeof buf, "Player %d", i + 1);
        cJSON_AddItemToArray(names, cJSON_CreateString(players && i < nplayers && players[i]
                                                           ? players[i]
                                                           : buf));
    }
    cJSON_AddItemToObject(o, "scores", cJSON_CreateIntArray(st.scores, st.nplayers));
    cJSON_AddNumberToObject(o, "to_move", st.to_move);
    cJSON_AddBoolToObject(o, "over", st.over);
    cJSON_AddItemToObject(o, "winners", ui__winners_json(st.over ? st.winners : 0, st.nplayers));
    cJSON_AddNumberToObject(o, "moves", st.moves);
    cJSON_AddNumberToObject(o, "round", st.round);
    cJSON_AddNumberToObject(o, "bag", st.bag);
    cJSON_AddItemToObject(o, "hands", cJSON_CreateIntArray(st.hand, st.nplayers));
    if ((pos = rules_position_to_json(g)))
        cJSON_AddItemToObject(o, "position", pos);
    cJSON_AddBoolToObject(o, "board_svg", ui_board_has_svg(game));
    cJSON_AddItemToObject(o, "signals", ui__signals_json(game));
    return ui__print_free(o);
}
