/* tests/web/live_driver.c: a live game for the browser test, without a
 * camera.  It runs the real web server (ui_web) and the real referee
 * (ref_referee, recording into --db) the way the `watch` loop does:
 * referee events are published to the pages, the live state follows every
 * change, and the page's buttons come back through hooks that queue their
 * action for this thread.  The still-table readings come from standard
 * input, one JSON command a line:
 *   {"table":[qwirkle pieces...]}   a still table, as the camera read it
 *   {"frame":"BASE64 JPEG"}         the camera picture
 *   {"notice":"TEXT"|null}          the camera's advice, as watch sets it
 *   {"ask":{question}}              the referee asks a question (a confirm
 *                                   event carrying it; the object as
 *                                   ui_web_question_json() makes it)
 *   {"expect_answer":[ID,K]}        "ok" when the last answer tapped was
 *                                   answer K to question ID
 *   {"quit":true}
 * Each command is answered with one line on stdout: "ok" or "error: ...".
 * The first stdout line is the page's address. */
#define _POSIX_C_SOURCE 200809L
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "db.h"
#include "referee.h"
#include "rules.h"
#include "web.h"

enum { ACT_SIGNAL, ACT_UNDO, ACT_CORRECT, ACT_ANSWER };

typedef struct action {
    int kind, player, type; /* ACT_ANSWER: player is the question, type the answer */
    char *move;
} action;

typedef struct driver {
    ui_web *web;
    ref_referee *ref;
    pthread_mutex_t mu; /* guards the queue and the question: hooks run on server threads */
    action queue[64];
    int nqueue;
    ref_question q; /* the question open, as watch keeps it */
    bool q_open;
    int last_question, last_answer; /* the last answer tapped (0, 0: none) */
} driver;

static const char *const names[] = {"Ann", "Bob"};

static int enqueue(driver *d, action a, base_err *err)
{
    int rc = 0;
    pthread_mutex_lock(&d->mu);
    if (d->nqueue < 64)
        d->queue[d->nqueue++] = a;
    else
        rc = base_err_set(err, BASE_EBUSY, "too many actions waiting");
    pthread_mutex_unlock(&d->mu);
    if (rc)
        free(a.move);
    return rc;
}

static int hook_signal(void *ctx, int player, int type, base_err *err)
{
    action a = {ACT_SIGNAL, player, type, NULL};
    return enqueue(ctx, a, err);
}

static int hook_undo(void *ctx, base_err *err)
{
    action a = {ACT_UNDO, 0, 0, NULL};
    return enqueue(ctx, a, err);
}

static int hook_correct(void *ctx, const char *move, base_err *err)
{
    action a = {ACT_CORRECT, 0, 0, strdup(move)};
    return enqueue(ctx, a, err);
}

/* What watch's answer hook does: only the open question's answers. */
static int hook_answer(void *ctx, int question, int answer, base_err *err)
{
    driver *d = ctx;
    action a = {ACT_ANSWER, question, answer, NULL};
    int rc = 0;
    pthread_mutex_lock(&d->mu);
    if (!d->q_open || d->q.id != question)
        rc = base_err_set(err, BASE_ESTATE, "question %d is not open", question);
    else if (!(answer == REF_ANSWER_NONE && d->q.none) && !(answer >= 0 && answer < d->q.nanswers))
        rc = base_err_set(err, BASE_ERANGE, "question %d has no answer %d", question, answer);
    else {
        d->last_question = question;
        d->last_answer = answer;
    }
    pthread_mutex_unlock(&d->mu);
    return rc ? rc : enqueue(d, a, err);
}

static void publish_live(driver *d)
{
    char *live = ui_web_live_json(ref_game(d->ref), names, 2, ref_match_id(d->ref));
    if (live)
        ui_web_set_live(d->web, live);
    free(live);
}

static void on_event(void *ctx, const ref_event *ev)
{
    driver *d = ctx;
    const ref_question *q = ev->kind == REF_EV_CONFIRM ? ev->question : NULL;
    char *s = ui_web_event_json("qwirkle", ev), *qs = q ? ui_web_question_json("qwirkle", q) : NULL;
    /* Whatever follows a question settles it; a new one replaces it (set
     * before the event goes out, as watch does). */
    pthread_mutex_lock(&d->mu);
    d->q_open = q != NULL;
    if (q)
        d->q = *q;
    pthread_mutex_unlock(&d->mu);
    ui_web_set_question(d->web, qs);
    free(qs);
    if (s)
        ui_web_publish(d->web, s);
    free(s);
}

/* A question as the pages get it, back into the referee's terms. */
static int question_from_json(const cJSON *j, ref_question *q, char *msg, size_t cap)
{
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(j, "id");
    const cJSON *text = cJSON_GetObjectItemCaseSensitive(j, "text");
    const cJSON *answers = cJSON_GetObjectItemCaseSensitive(j, "answers"), *a;
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(j, "x_mm");
    const cJSON *y = cJSON_GetObjectItemCaseSensitive(j, "y_mm");
    base_err err;
    memset(q, 0, sizeof *q);
    if (!cJSON_IsNumber(id) || !cJSON_IsString(text) || !cJSON_IsArray(answers)) {
        snprintf(msg, cap, "ask: needs \"id\", \"text\" and \"answers\"");
        return -1;
    }
    q->id = id->valueint;
    snprintf(q->text, sizeof q->text, "%s", text->valuestring);
    q->none = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "none"));
    q->has_xy = cJSON_IsNumber(x) && cJSON_IsNumber(y);
    q->x_mm = q->has_xy ? x->valuedouble : 0;
    q->y_mm = q->has_xy ? y->valuedouble : 0;
    cJSON_ArrayForEach(a, answers)
    {
        const cJSON *label = cJSON_GetObjectItemCaseSensitive(a, "label");
        const cJSON *p = cJSON_GetObjectItemCaseSensitive(a, "p");
        int k = q->nanswers;
        if (k == REF_MAX_ANSWERS || !cJSON_IsString(label) || !cJSON_IsNumber(p) ||
            rules_piece_from_json("qwirkle", cJSON_GetObjectItemCaseSensitive(a, "piece"),
                                  &q->answer[k], &err) != 0) {
            snprintf(msg, cap, "ask: answer %d needs \"label\", \"p\" and a qwirkle \"piece\"", k);
            return -1;
        }
        snprintf(q->label[k], sizeof q->label[k], "%s", label->valuestring);
        q->p[k] = (float)p->valuedouble;
        q->nanswers++;
    }
    q->read = q->answer[0];
    return 0;
}

static void run_actions(driver *d)
{
    for (;;) {
        action a;
        base_err err;
        rules_move m;
        int rc = 0;
        pthread_mutex_lock(&d->mu);
        if (d->nqueue == 0) {
            pthread_mutex_unlock(&d->mu);
            return;
        }
        a = d->queue[0];
        memmove(d->queue, d->queue + 1, (size_t)(--d->nqueue) * sizeof a);
        pthread_mutex_unlock(&d->mu);
        if (a.kind == ACT_SIGNAL) {
            rules_move_init(&m, a.type);
            rc = ref_signal(d->ref, a.player, &m, &err);
        } else if (a.kind == ACT_UNDO) {
            rc = ref_undo(d->ref, &err);
        } else if (a.kind == ACT_ANSWER) {
            rc = ref_answer(d->ref, a.player, a.type, &err);
        } else {
            cJSON *j = cJSON_Parse(a.move);
            rc = rules_move_from_json("qwirkle", j, &m, &err);
            if (rc == 0)
                rc = ref_correct_last(d->ref, &m, &err);
            cJSON_Delete(j);
        }
        if (rc != 0)
            fprintf(stderr, "live_driver: action %d refused: %s\n", a.kind, err.msg);
        free(a.move);
        publish_live(d);
    }
}

static int b64val(int c)
{
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

static int command(driver *d, const char *line, char *msg, size_t cap)
{
    cJSON *j = cJSON_Parse(line);
    const cJSON *table = cJSON_GetObjectItemCaseSensitive(j, "table");
    const cJSON *frame = cJSON_GetObjectItemCaseSensitive(j, "frame");
    const cJSON *notice = cJSON_GetObjectItemCaseSensitive(j, "notice");
    const cJSON *ask = cJSON_GetObjectItemCaseSensitive(j, "ask");
    const cJSON *expect = cJSON_GetObjectItemCaseSensitive(j, "expect_answer");
    base_err err;
    int rc = 0;
    if (!j) {
        snprintf(msg, cap, "not JSON");
        return -1;
    }
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "quit"))) {
        cJSON_Delete(j);
        return 1;
    }
    if (notice) { /* what watch does with the camera's advice */
        ui_web_set_notice(d->web, cJSON_IsString(notice) ? notice->valuestring : NULL);
    } else if (cJSON_IsObject(ask)) {
        /* The referee's confirm with a question, as ref_observe would announce it. */
        ref_question q;
        if ((rc = question_from_json(ask, &q, msg, cap)) == 0) {
            ref_event ev;
            memset(&ev, 0, sizeof ev);
            ev.kind = REF_EV_CONFIRM;
            ev.player = -1;
            snprintf(ev.text, sizeof ev.text, "%s", q.text);
            ev.question = &q;
            on_event(d, &ev);
        }
    } else if (cJSON_IsArray(expect) && cJSON_GetArraySize(expect) == 2) {
        int id = cJSON_GetArrayItem(expect, 0)->valueint, k = cJSON_GetArrayItem(expect, 1)->valueint;
        pthread_mutex_lock(&d->mu);
        if (d->last_question != id || d->last_answer != k) {
            snprintf(msg, cap, "the last answer was %d to question %d, not %d to %d", d->last_answer,
                     d->last_question, k, id);
            rc = -1;
        }
        pthread_mutex_unlock(&d->mu);
    } else if (cJSON_IsArray(table)) {
        rules_piece p[128];
        int n = 0;
        const cJSON *it;
        ref_view v = {0};
        cJSON_ArrayForEach(it, table)
        {
            if (n == 128 || rules_piece_from_json("qwirkle", it, &p[n], &err) != 0) {
                snprintf(msg, cap, "piece %d: %s", n, err.msg);
                rc = -1;
                break;
            }
            n++;
        }
        v.pieces = p;
        v.n = n;
        v.mover = -1;
        if (rc == 0 && (rc = ref_observe(d->ref, &v, &err)) != 0)
            snprintf(msg, cap, "observe: %s", err.msg);
        publish_live(d);
    } else if (cJSON_IsString(frame)) {
        const char *s = frame->valuestring;
        size_t n = strlen(s), k = 0;
        unsigned char *buf = malloc(n);
        unsigned acc = 0;
        int bits = 0;
        for (size_t i = 0; i < n; i++) {
            int v = b64val((unsigned char)s[i]);
            if (v < 0)
                continue;
            acc = (acc << 6) | (unsigned)v;
            bits += 6;
            if (bits >= 8) {
                bits -= 8;
                buf[k++] = (unsigned char)(acc >> bits);
            }
        }
        if ((rc = ui_web_set_frame(d->web, buf, k)) != 0)
            snprintf(msg, cap, "the frame is not a JPEG");
        free(buf);
    } else {
        snprintf(msg, cap, "unknown command");
        rc = -1;
    }
    cJSON_Delete(j);
    return rc < 0 ? -1 : 0;
}

int main(int argc, char **argv)
{
    const char *dbpath = argc == 3 && strcmp(argv[1], "--db") == 0 ? argv[2] : NULL;
    driver d;
    ui_web_hooks hooks;
    ui_web_config cfg = {0};
    ref_config rc = {0};
    base_err err;
    db *store;
    cJSON *header;
    char *line = NULL;
    size_t cap = 0;
    int status = 0;

    if (!dbpath) {
        fprintf(stderr, "usage: live_driver --db FILE\n");
        return 2;
    }
    memset(&d, 0, sizeof d);
    pthread_mutex_init(&d.mu, NULL);
    if (db_open(dbpath, DB_OPEN_CREATE, &err, &store) != 0) {
        fprintf(stderr, "live_driver: %s\n", err.msg);
        return 1;
    }
    hooks.ctx = &d;
    hooks.signal = hook_signal;
    hooks.undo = hook_undo;
    hooks.correct_last = hook_correct;
    hooks.answer = hook_answer;
    cfg.listen = "127.0.0.1:0";
    cfg.db_path = dbpath;
    cfg.hooks = &hooks;
    if (ui_web_new(&cfg, &d.web, &err) != 0) {
        fprintf(stderr, "live_driver: %s\n", err.msg);
        return 1;
    }
    header = cJSON_Parse("{\"game\":\"qwirkle\",\"players\":[\"Ann\",\"Bob\"],\"options\":{}}");
    rc.game = "qwirkle";
    rc.header = header;
    rc.store = store;
    rc.min_conf = 0.5f;
    rc.on_event = on_event;
    rc.ctx = &d;
    if (ref_new(&rc, &err, &d.ref) != 0) {
        fprintf(stderr, "live_driver: ref_new: %s\n", err.msg);
        return 1;
    }
    publish_live(&d);
    printf("http://127.0.0.1:%d/\n", ui_web_port(d.web));
    fflush(stdout);

    for (;;) {
        struct pollfd pfd = {0, POLLIN, 0};
        int ready = poll(&pfd, 1, 50);
        run_actions(&d);
        if (ready <= 0)
            continue;
        if (getline(&line, &cap, stdin) < 0)
            break;
        {
            char msg[600] = "";
            int r = command(&d, line, msg, sizeof msg);
            run_actions(&d);
            if (r > 0)
                break;
            if (r < 0)
                printf("error: %s\n", msg);
            else
                printf("ok\n");
            fflush(stdout);
        }
    }
    free(line);
    ui_web_free(d.web);
    ref_free(d.ref);
    cJSON_Delete(header);
    db_close(store);
    pthread_mutex_destroy(&d.mu);
    return status;
}
