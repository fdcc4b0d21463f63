/* ui/web_int.h: what the two halves of the web app's server share.
 * ui/web.c is the server itself: routing, the security rules, requests
 * and responses, the JSON API over the match store, starting and
 * stopping.  ui/web_live.c is the live side: what the caller sets
 * (events, live state, notice, question, frame), its push streams, the
 * page's actions through the hooks, and the JSON made from the referee's
 * values.  Nothing here is seen outside ui/web*.c. */
#ifndef TABLECAM_UI_WEB_INT_H
#define TABLECAM_UI_WEB_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include <civetweb.h>
#include <cjson/cJSON.h>

#include "web.h"

enum {
    UI__MAX_BODY = 64 * 1024,  /* a POST body; a move is far smaller */
    UI__MAX_STREAMS = 48,      /* open SSE + MJPEG connections */
    UI__THREADS = 64,          /* civetweb workers: streams hold one each */
    UI__KEEPALIVE_S = 15,      /* SSE comment / MJPEG repeat when idle */
    UI__DEFAULT_KEEP = 200
};

/* A frame shared by the streams that send it: freed by the last user. */
typedef struct ui__frame {
    int refs;
    size_t len;
    unsigned char data[];
} ui__frame;

struct ui_web {
    struct mg_context *ctx;
    int port;
    bool has_token;
    char token[129];
    char host[64]; /* the bound IPv4 address, for the Host check */
    char *db_path;
    bool has_hooks;
    ui_web_hooks hooks;

    pthread_mutex_t mu;
    pthread_cond_t ev_cond, frame_cond;
    bool stopping;
    int nstreams;
    /* Published events: ring[id % keep] holds event id for the last keep ids. */
    char **ring;
    int keep;
    long long last_id;
    char *alert;          /* the event that raised the alert, or NULL */
    char *notice;         /* ui_web_set_notice()'s text, or NULL */
    char *question;       /* ui_web_set_question()'s object, or NULL */
    char *live;           /* the caller's live state, or NULL */
    long long live_ver;   /* bumped by every change of what the live document shows */
    char live_game[32];   /* from the live state: checks the POSTs */
    int live_nplayers;
    ui__frame *frame;
    long long frame_ver;
};

/* One request being answered. */
typedef struct ui__req {
    ui_web *w;
    struct mg_connection *c;
    const struct mg_request_info *ri;
    const char *path;
    bool head;
    bool set_cookie; /* the token came in the query: keep it in a cookie */
} ui__req;

/* ---- helpers of web.c ---- */

/* Sent with every answer. */
extern const char ui__web_sec_headers[];

char *ui__web_strdup(const char *s);
/* Drops one reference to f (NULL: nothing); the caller holds w->mu. */
void ui__web_frame_unref(ui__frame *f);

/* Answers with body; returns status.  extra: more header lines or NULL. */
int ui__web_send(ui__req *r, int status, const char *type, const void *body, size_t len,
                 const char *extra);
/* Answers with doc as JSON (and frees it). */
int ui__web_send_json(ui__req *r, int status, cJSON *doc, const char *extra);
/* {"error":"..."}: every error the server makes looks like this. */
int ui__web_error(ui__req *r, int status, const char *extra, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
/* Parses a POST body as a JSON object (an empty body is {}).  Returns 0
 * with *out set, or the HTTP status of the error already sent. */
int ui__web_json_body(ui__req *r, cJSON **out);
/* Reads query parameter name into buf: 1 present, 0 absent, -1 too long
 * (a 400 was sent). */
int ui__web_query(ui__req *r, const char *name, char *buf, size_t cap);
/* A decimal id of 1..18 digits; -1 otherwise. */
long long ui__web_parse_id(const char *s, size_t n);
/* s parsed as JSON, or a JSON null when s is NULL or not JSON. */
cJSON *ui__web_parse_or_null(const char *s);

/* ---- the live side's answers (web_live.c), routed by web.c ---- */

int ui__web_api_live(ui__req *r);   /* GET /api/live */
int ui__web_api_events(ui__req *r); /* GET /api/events */
int ui__web_api_frame(ui__req *r);  /* GET /api/frame.jpg */
int ui__web_api_mjpeg(ui__req *r);  /* GET /api/frame.mjpg */
int ui__web_api_signal(ui__req *r); /* POST /api/signal */
int ui__web_api_undo(ui__req *r);   /* POST /api/undo */
int ui__web_api_correct(ui__req *r); /* POST /api/correct */
int ui__web_api_answer(ui__req *r); /* POST /api/answer */

#endif
