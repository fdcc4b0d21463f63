/* ui/watch.c: the live referee on the terminal and in the web app. */
#define _POSIX_C_SOURCE 200809L
#include "watch.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gpio.h"
#include "referee.h"
#include "sim.h"
#include "watch_int.h"
#include "web.h"

typedef struct ui__watch {
    const ui_watch_opts *o;
    const char *names[RULES_MAX_PLAYERS];
    int nplayers;
    ref_referee *ref;
    ref_loop *loop;
    ui_web *web;
    ui_gpio *gpio;
    bool names_owned; /* names[] were copied from the store (resume) */
    int moves, illegal, confirms, takebacks;
    char keybuf[1024];
    size_t keylen;
    bool keys_done;   /* standard input ended */
    char advice[REF_ADVICE_MAX]; /* the camera advice last shown ("" none) */
    /* The referee's question the players see, copied from its event: set
     * on the loop's thread, read by the web app's answer hook too. */
    pthread_mutex_t qmu;
    ref_question q;
    bool q_open;
    bool q_answered; /* an answer to it is on its way to the referee */
} ui__watch;

static atomic_int ui__signalled;

static void ui__on_signal(int sig)
{
    (void)sig;
    atomic_store(&ui__signalled, 1);
}

static const char *ui__name(const ui__watch *w, int p)
{
    return p >= 0 && p < w->nplayers ? w->names[p] : "nobody";
}

static void ui__publish_live(ui__watch *w)
{
    char *live;
    if (!w->web)
        return;
    live = ui_web_live_json(ref_game(w->ref), w->names, w->nplayers, ref_match_id(w->ref));
    if (live)
        ui_web_set_live(w->web, live);
    free(live);
}

/* The question the players see now (q; NULL: none), on the terminal's
 * keys and in the web app. */
static void ui__set_question(ui__watch *w, const ref_question *q)
{
    pthread_mutex_lock(&w->qmu);
    w->q_open = q != NULL;
    w->q_answered = false;
    if (q)
        w->q = *q;
    pthread_mutex_unlock(&w->qmu);
    if (w->web) {
        char *json = q ? ui_web_question_json(w->o->game, q) : NULL;
        ui_web_set_question(w->web, json);
        free(json);
    }
}

static void ui__on_event(void *ctx, const ref_event *ev)
{
    ui__watch *w = ctx;
    const ref_question *q = ev->kind == REF_EV_CONFIRM ? ev->question : NULL;
    char *json = ui_web_event_json(w->o->game, ev);
    switch (ev->kind) {
    case REF_EV_MOVE:
        w->moves++;
        break;
    case REF_EV_ILLEGAL:
        w->illegal++;
        break;
    case REF_EV_CONFIRM:
        w->confirms++;
        break;
    case REF_EV_TAKEBACK:
        w->takebacks++;
        break;
    }
    if (w->o->json) {
        if (json)
            printf("%s\n", json);
    } else {
        rules_status st;
        rules_game_status(ref_game(w->ref), &st);
        printf("[%s%s%.0d] %s%s%s", ref_event_name(ev->kind), ev->seq ? " " : "", ev->seq,
               ev->player >= 0 ? ui__name(w, ev->player) : "", ev->player >= 0 ? ": " : "",
               ev->text);
        if (ev->kind == REF_EV_MOVE || ev->kind == REF_EV_TAKEBACK ||
            ev->kind == REF_EV_CORRECTED) {
            printf("  (scores");
            for (int i = 0; i < st.nplayers; i++)
                printf(" %s %d", ui__name(w, i), st.scores[i]);
            printf("; %s to move)", ui__name(w, st.to_move));
        }
        if (ev->kind == REF_EV_ILLEGAL && ev->verdict)
            printf("  [rule %s; put the table back as it was]", ev->verdict->rule);
        printf("\n");
        if (q) {
            char line[512];
            printf("%s\n", ui__watch_answers_line(w->o->game, q, line, sizeof line));
        }
    }
    fflush(stdout);
    /* Whatever follows a question settles it; a new one replaces it.  Set
     * before the event goes out, so that no page sees the one without the
     * other. */
    ui__set_question(w, q);
    if (w->web && json)
        ui_web_publish(w->web, json);
    free(json);
    ui__publish_live(w);
}

static void ui__on_frame(void *ctx, const unsigned char *jpeg, size_t len)
{
    ui__watch *w = ctx;
    if (w->web)
        ui_web_set_frame(w->web, jpeg, len);
}

/* ---- turn signals: keys on the terminal and taps in the web app ---- */

static int ui__move_type(const char *word)
{
    if (!strcmp(word, "p") || !strcmp(word, "pass"))
        return RULES_MOVE_PASS;
    if (!strcmp(word, "r") || !strcmp(word, "reroll"))
        return RULES_MOVE_REROLL;
    if (!strcmp(word, "d") || !strcmp(word, "draw"))
        return RULES_MOVE_DRAW;
    return -1;
}

/* One action ("r" / "reroll", "p", "d", "u" / "undo") by player (0-based),
 * or by the player to move when player is -1.  False when the word is not
 * an action of this game. */
static bool ui__action(ui__watch *w, const char *word, int player)
{
    rules_status st;
    rules_move m;
    int type;
    if (!strcmp(word, "u") || !strcmp(word, "undo")) {
        ref_loop_post_undo(w->loop);
        return true;
    }
    if ((type = ui__move_type(word)) < 0 || !(ui_web_signal_types(w->o->game) & (1u << type)))
        return false;
    rules_game_status(ref_game(w->ref), &st);
    rules_move_init(&m, type);
    ref_loop_post_signal(w->loop, player >= 0 ? player : st.to_move, &m);
    return true;
}

/* An answer to question id, from a key or a tap: checked against the
 * question open (BASE_ESTATE, BASE_ERANGE; keys: numbered as typed) and
 * queued for the referee. */
static int ui__answer(ui__watch *w, int id, int answer, bool keys, base_err *err)
{
    int rc;
    pthread_mutex_lock(&w->qmu);
    if (w->q_open && w->q_answered && id == w->q.id)
        rc = base_err_set(err, BASE_ESTATE, "question %d is answered already", id);
    else if ((rc = ui__watch_check_answer(w->q_open ? &w->q : NULL, id, answer, keys, err)) == 0 &&
             ref_loop_post_answer(w->loop, id, answer) != 0)
        rc = base_err_set(err, BASE_EBUSY, "too many actions waiting");
    if (rc == 0)
        w->q_answered = true;
    pthread_mutex_unlock(&w->qmu);
    return rc;
}

/* One line typed: "r" for the player to move, "r 2" for player 2, "c
 * MOVE" to correct the last move (MOVE as in a game record), or a number
 * answering the referee's question (1.. its answers, 0 no piece there). */
static void ui__key_line(ui__watch *w, const char *line)
{
    ui__key k;
    ref_question q;
    bool open;
    base_err e;
    pthread_mutex_lock(&w->qmu);
    open = w->q_open;
    q = w->q;
    pthread_mutex_unlock(&w->qmu);
    ui__watch_parse_key(line, open ? &q : NULL, &k);
    switch (k.kind) {
    case UI__KEY_EMPTY:
        return;
    case UI__KEY_REFUSED:
        fprintf(stderr, "tablecam watch: %s\n", k.msg);
        return;
    case UI__KEY_ANSWER:
        if (ui__answer(w, k.question, k.answer, true, &e) != 0)
            fprintf(stderr, "tablecam watch: %s\n", e.msg);
        else
            fprintf(stderr, "tablecam watch: question %d: answered %.*s\n", k.question,
                    (int)sizeof q.label[0],
                    k.answer == REF_ANSWER_NONE ? "no piece there" : q.label[k.answer]);
        return;
    case UI__KEY_CORRECT: {
        rules_move m;
        cJSON *j = k.move_json ? cJSON_Parse(k.move_json) : NULL;
        if (!j)
            fprintf(stderr, "tablecam watch: c MOVE, e.g. c {\"type\":\"place\",\"pieces\":[...]}\n");
        else if (rules_move_from_json(w->o->game, j, &m, &e) != 0)
            fprintf(stderr, "tablecam watch: the correction: %s\n", e.msg);
        else
            ref_loop_post_correct(w->loop, &m);
        cJSON_Delete(j);
        return;
    }
    default:
        if (!ui__action(w, k.word, k.player))
            fprintf(stderr, "tablecam watch: keys: p (pass), r (reroll), d (draw), u (undo), "
                            "optionally followed by a player number; c MOVE corrects the last "
                            "move; 1-%d (or 0: no piece there) answers the referee's question\n",
                    REF_MAX_ANSWERS);
    }
}

static void ui__on_button(void *ctx, const char *action)
{
    ui__watch *w = ctx;
    if (!ui__action(w, action, -1))
        fprintf(stderr, "tablecam watch: a '%s' button means nothing in %s\n", action, w->o->game);
}

/* Tells the players, once each time it changes, when the camera sees the
 * pieces too coarsely or blurred to read their shapes reliably. */
static void ui__camera_advice(ui__watch *w)
{
    ref_loop_stats ls;
    ref_loop_stats_get(w->loop, &ls);
    if (strcmp(ls.advice, w->advice) == 0)
        return;
    if (ls.advice[0])
        fprintf(stderr, "tablecam watch: camera: %s\n", ls.advice);
    else
        fprintf(stderr, "tablecam watch: camera: the pieces are seen clearly enough now\n");
    memcpy(w->advice, ls.advice, sizeof w->advice);
    if (w->web)
        ui_web_set_notice(w->web, ls.advice[0] ? ls.advice : NULL);
}

/* The referee may settle its question without a word (an answer whose
 * table, judged again, shows no change): the players stop seeing it then,
 * rather than at the next event. */
static void ui__sync_question(ui__watch *w)
{
    ref_question q;
    bool open = ref_question_open(w->ref, &q), same;
    pthread_mutex_lock(&w->qmu);
    same = open == w->q_open && (!open || q.id == w->q.id);
    pthread_mutex_unlock(&w->qmu);
    if (!same)
        ui__set_question(w, open ? &q : NULL);
}

static void ui__on_tick(void *ctx)
{
    ui__watch *w = ctx;
    struct pollfd p = {0, POLLIN, 0};
    if (atomic_load(&ui__signalled))
        ref_loop_stop(w->loop);
    ui_gpio_poll(w->gpio, ui__on_button, w);
    ui__camera_advice(w);
    ui__sync_question(w);
    if (!w->o->keys || w->keys_done)
        return;
    while (poll(&p, 1, 0) == 1 && (p.revents & POLLIN)) {
        ssize_t got = read(0, w->keybuf + w->keylen, sizeof w->keybuf - 1 - w->keylen);
        char *nl;
        if (got <= 0) {
            w->keys_done = true; /* end of input: no more keys */
            return;
        }
        w->keylen += (size_t)got;
        w->keybuf[w->keylen] = '\0';
        while ((nl = strchr(w->keybuf, '\n')) != NULL) {
            *nl = '\0';
            ui__key_line(w, w->keybuf);
            memmove(w->keybuf, nl + 1, w->keylen - (size_t)(nl + 1 - w->keybuf) + 1);
            w->keylen -= (size_t)(nl + 1 - w->keybuf);
        }
        if (w->keylen == sizeof w->keybuf - 1)
            w->keylen = 0; /* a line too long to be a key: drop it */
    }
}

static int ui__hook_signal(void *ctx, int player, int type, base_err *err)
{
    ui__watch *w = ctx;
    rules_move m;
    if (player < 0 || player >= w->nplayers)
        return base_err_set(err, BASE_EINVAL, "player %d is not at this table", player);
    rules_move_init(&m, type);
    return ref_loop_post_signal(w->loop, player, &m) == 0
               ? 0
               : base_err_set(err, BASE_EBUSY, "too many actions waiting");
}

static int ui__hook_undo(void *ctx, base_err *err)
{
    ui__watch *w = ctx;
    return ref_loop_post_undo(w->loop) == 0 ? 0
                                             : base_err_set(err, BASE_EBUSY, "too many actions waiting");
}

static int ui__hook_correct(void *ctx, const char *move_json, base_err *err)
{
    ui__watch *w = ctx;
    rules_move m;
    cJSON *j = cJSON_Parse(move_json);
    int rc = rules_move_from_json(w->o->game, j, &m, err);
    cJSON_Delete(j);
    if (rc != 0)
        return rc;
    return ref_loop_post_correct(w->loop, &m) == 0
               ? 0
               : base_err_set(err, BASE_EBUSY, "too many actions waiting");
}

static int ui__hook_answer(void *ctx, int question, int answer, base_err *err)
{
    return ui__answer(ctx, question, answer, false, err);
}

/* ---- setting up ---- */

static int ui__newest_live(void *ctx, const db_match_info *m)
{
    int64_t *id = ctx;
    if (*id == 0)
        *id = m->id;
    return 1; /* newest first: the first is the one */
}

/* The cards' starting card, at the grid's origin (the referee reads the
 * table up to a translation). */
static void ui__set_start(cJSON *h, const char *card)
{
    cJSON *st = cJSON_AddObjectToObject(h, "start");
    cJSON_AddNumberToObject(st, "x", 0);
    cJSON_AddNumberToObject(st, "y", 0);
    cJSON_AddStringToObject(st, "card", card);
}

static cJSON *ui__header(const ui_watch_opts *o, const char **names, int *n, base_err *err)
{
    cJSON *h = cJSON_CreateObject(), *pl, *opts = NULL;
    char buf[512], *save = NULL;
    cJSON_AddStringToObject(h, "game", o->game);
    pl = cJSON_AddArrayToObject(h, "players");
    snprintf(buf, sizeof buf, "%s", o->players ? o->players : "Player 1,Player 2");
    *n = 0;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save))
        if (*n < RULES_MAX_PLAYERS)
            cJSON_AddItemToArray(pl, cJSON_CreateString(t)), (*n)++;
    for (int i = 0; i < *n; i++)
        names[i] = cJSON_GetArrayItem(pl, i)->valuestring;
    if (o->options && !(opts = cJSON_Parse(o->options))) {
        cJSON_Delete(h);
        base_err_set(err, BASE_EPARSE, "--options is not a JSON object");
        return NULL;
    }
    cJSON_AddItemToObject(h, "options", opts ? opts : cJSON_CreateObject());
    if (o->start)
        ui__set_start(h, o->start);
    return h;
}

/* A cards match starts from one face-up card on the table.  Without
 * --start it is read off the table before the match is made: the first
 * still reading must show that one card, face up and surely read (a wrong
 * start would put every later verdict wrong).  Returns an exit status,
 * having said what to do when the table does not show it. */
#define UI__START_WAIT_S 30.0
static int ui__start_from_table(const ui_command *cmd, vis_capture *cam, ref_reader *reader,
                                cJSON *header)
{
    static const char *give = "lay out just the face-up starting card, or name it with --start "
                              "CARD (e.g. --start KD)";
    ref_loop_config lc;
    ref_loop *l = NULL;
    ref_reading *rd = malloc(sizeof *rd);
    base_err err;
    char name[4] = "?", list[160] = "";
    int rc, status = UI_EXIT_OK;
    memset(&lc, 0, sizeof lc);
    lc.camera = cam;
    lc.reader = reader;
    if (!rd || ref_loop_new(&lc, &l, &err) != 0) {
        free(rd);
        return ui_fail(cmd, UI_EXIT_FAIL, "out of memory");
    }
    fprintf(stderr, "tablecam %s: reading the starting card off the table\n", cmd->name);
    rc = ref_loop_read_table(l, UI__START_WAIT_S, rd, &err);
    ref_loop_free(l);
    if (rc != 0) {
        status = ui_fail(cmd, UI_EXIT_FAIL, "the starting card: %s; %s", err.msg, give);
        goto out;
    }
    for (int i = 0; i < rd->n; i++) {
        size_t k = strlen(list);
        rules_card_name(rd->pieces[i].a, rd->pieces[i].b, name);
        snprintf(list + k, sizeof list - k, "%s%s", k ? ", " : "",
                 rd->pieces[i].c ? "one face down" : name);
    }
    if (rd->n == 0)
        status = ui_fail(cmd, UI_EXIT_FAIL, "no card on the table; %s", give);
    else if (rd->n > 1)
        status = ui_fail(cmd, UI_EXIT_FAIL,
                         "the table shows %d cards (%s), but a new match starts from one; %s, or "
                         "continue an unfinished match with --resume",
                         rd->n, list, give);
    else if (rd->pieces[0].c)
        status = ui_fail(cmd, UI_EXIT_FAIL, "the card on the table is face down; %s", give);
    else if (rd->conf[0] < 0.5f)
        status = ui_fail(cmd, UI_EXIT_FAIL,
                         "the starting card reads as %s, but not surely (%.2f); if it is, give "
                         "--start %s",
                         list, rd->conf[0], list);
    if (status == UI_EXIT_OK) {
        ui__set_start(header, list);
        fprintf(stderr, "tablecam %s: the starting card is the %s (--start names another)\n",
                cmd->name, list);
    }
out:
    free(rd);
    return status;
}

int ui_watch_run(const ui_command *cmd, const ui_watch_opts *o)
{
    ui__watch w;
    cJSON *header = NULL;
    db *store = NULL;
    vis_capture *cam = NULL;
    ref_reader *reader = NULL;
    ref_referee *ref = NULL;
    ref_loop *loop = NULL;
    base_err err;
    vis_camera lens;
    vis_qwirkle_profile prof;
    vis_pieceset *set = NULL;
    int status = UI_EXIT_OK, rc;
    int64_t match = 0;
    struct sigaction sa;

    memset(&w, 0, sizeof w);
    w.o = o;
    if (!rules_game_available(o->game))
        return ui_fail(cmd, UI_EXIT_USAGE, "unknown game '%s'", o->game ? o->game : "");
    if (!ref_reader_supported(o->game))
        return ui_fail(cmd, UI_EXIT_USAGE, "the camera cannot read %s yet (only qwirkle, cards and cube2)",
                       o->game);
    if (strcmp(o->game, "cubed") == 0) /* recognize reads it; draws, passes and reveals do not */
        return ui_fail(cmd, UI_EXIT_USAGE,
                       "the live referee cannot follow cubed yet (its draws, passes and reveals); "
                       "`tablecam recognize --game cubed` reads a photo");
    if (o->start && (strcmp(o->game, "cards") != 0 || o->resume))
        return ui_fail(cmd, UI_EXIT_USAGE,
                       o->resume ? "--start with --resume: the match keeps its starting card"
                                 : "--start is for cards (the starting card)");
    if (o->start) {
        int rank, suit;
        if (rules_card_from_name(o->start, &rank, &suit) != 0)
            return ui_fail(cmd, UI_EXIT_USAGE, "--start: '%s' is not a card (e.g. KD, 10H, AS)",
                           o->start);
    }
    if (!(header = ui__header(o, w.names, &w.nplayers, &err)))
        return ui_fail(cmd, UI_EXIT_USAGE, "%s", err.msg);
    pthread_mutex_init(&w.qmu, NULL); /* from here on every way out is through done */
    /* The calibration next: a profile that cannot be used must not leave
     * an empty match either. */
    if (o->lens && ui_lens_load(o->lens, o->db_path, &lens, &err) != 0) {
        status = ui_fail(cmd, UI_EXIT_USAGE, "--lens: %s", err.msg);
        goto done;
    }
    if (o->profile && ui_colors_load(o->profile, o->db_path, o->game, &prof, &err) != 0) {
        status = ui_fail(cmd, UI_EXIT_USAGE, "--profile: %s", err.msg);
        goto done;
    }
    if (o->pieces && ui_pieces_load(o->pieces, o->db_path, o->game, &set, &err) != 0) {
        status = ui_fail(cmd, UI_EXIT_USAGE, "--pieces: %s", err.msg);
        goto done;
    }
    /* The camera first: a wrong camera must not leave an empty match. */
    rc = strncmp(o->camera, "sim:", 4) == 0 ? sim_capture_open(o->camera, &cam, &err)
                                             : vis_capture_open(o->camera, &cam, &err);
    if (rc != 0) {
        status = ui_fail(cmd, rc == BASE_EINVAL ? UI_EXIT_USAGE : UI_EXIT_FAIL, "%s", err.msg);
        goto done;
    }
    {
        ref_reader_config rcfg = {o->game, o->mat, o->lens ? &lens : NULL, 0};
        if (ref_reader_new(&rcfg, &reader, &err) != 0) {
            status = ui_fail(cmd, UI_EXIT_USAGE, "%s", err.msg);
            goto done;
        }
        if (o->profile)
            ref_reader_set_profile(reader, &prof);
        if (set && ref_reader_use_pieces(reader, set, &err) != 0) {
            status = ui_fail(cmd, UI_EXIT_USAGE, "--pieces %s: %s", o->pieces, err.msg);
            goto done;
        }
        set = NULL; /* the reader's now */
    }
    if (o->gpio && ui_gpio_open(o->gpio, &w.gpio, &err) != 0) {
        status = ui_fail(cmd, UI_EXIT_USAGE, "%s", err.msg);
        goto done;
    }
    if (!o->resume && !strcmp(o->game, "cards") && !o->start &&
        (status = ui__start_from_table(cmd, cam, reader, header)) != UI_EXIT_OK)
        goto done;
    if (db_open(o->db_path, DB_OPEN_CREATE, &err, &store) != 0) {
        status = ui_fail(cmd, UI_EXIT_FAIL, "%s", err.msg);
        goto done;
    }
    if (o->resume) {
        db_filter f = {o->game, NULL, DB_LIVE};
        db_matches_list(store, &f, ui__newest_live, &match, &err);
        if (match == 0) {
            status = ui_fail(cmd, UI_EXIT_FAIL, "no unfinished %s match in %s to resume", o->game,
                             o->db_path);
            goto done;
        }
        /* The stored header (players, options) is the match's, not the
         * command line's. */
        db_match *dm = NULL;
        cJSON *stored = NULL;
        if (db_match_load(store, match, &dm, &err) != 0 || !(stored = cJSON_Parse(dm->info.header))) {
            status = ui_fail(cmd, UI_EXIT_FAIL, "match %lld: %s", (long long)match,
                             dm ? "the stored header is not JSON" : err.msg);
            db_match_free(dm);
            goto done;
        }
        cJSON_Delete(header);
        header = stored;
        w.nplayers = dm->info.nseats;
        for (int i = 0; i < w.nplayers && i < RULES_MAX_PLAYERS; i++)
            w.names[i] = strdup(dm->info.seats[i].name);
        w.names_owned = true;
        db_match_free(dm);
    }
    {
        ref_config rc_ = {o->game, header, store, match, 0.5f, ui__on_event, &w};
        if (ref_new(&rc_, &err, &ref) != 0) {
            status = ui_fail(cmd, UI_EXIT_FAIL, "%s", err.msg);
            goto done;
        }
        w.ref = ref;
    }
    {
        ref_loop_config lc;
        memset(&lc, 0, sizeof lc);
        lc.camera = cam;
        lc.reader = reader;
        lc.referee = ref;
        lc.realtime = o->realtime;
        lc.overlay_every_s = o->http ? 0.2 : 0;
        lc.on_frame = ui__on_frame;
        lc.on_tick = ui__on_tick;
        lc.ctx = &w;
        if (ref_loop_new(&lc, &loop, &err) != 0) {
            status = ui_fail(cmd, UI_EXIT_FAIL, "%s", err.msg);
            goto done;
        }
        w.loop = loop;
    }
    if (o->http) {
        ui_web_hooks hooks = {&w, ui__hook_signal, ui__hook_undo, ui__hook_correct,
                              ui__hook_answer};
        ui_web_config wc = {o->http, o->token, o->db_path, &hooks, 0};
        if (ui_web_new(&wc, &w.web, &err) != 0) {
            status = ui_fail(cmd, UI_EXIT_USAGE, "--http %s: %s", o->http, err.msg);
            goto done;
        }
        {
            char url[256];
            fprintf(stderr, "tablecam %s: the web app is at %s\n", cmd->name,
                    ui_web_url(w.web, url, sizeof url));
        }
        ui__publish_live(&w);
    }
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = ui__on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    fprintf(stderr, "tablecam %s: match %lld, %s, camera %s%s%s%s%s%s%s", cmd->name,
            (long long)ref_match_id(ref), o->game, o->camera, o->lens ? ", lens " : "",
            o->lens ? o->lens : "", o->profile ? ", colours " : "", o->profile ? o->profile : "",
            o->pieces ? ", set " : "", o->pieces ? o->pieces : "");
    if (o->keys)
        fprintf(stderr, "; keys: p pass, r reroll, d draw, u undo, c MOVE correct, 1-%d or 0 "
                        "answer a question",
                REF_MAX_ANSWERS);
    fprintf(stderr, "\n");
    if (ref_loop_run(loop, &err) != 0)
        status = ui_fail(cmd, UI_EXIT_FAIL, "camera %s: %s", o->camera, err.msg);
    if (o->summary) {
        rules_status st;
        ref_loop_stats ls;
        ref_loop_stats_get(loop, &ls);
        rules_game_status(ref_game(ref), &st);
        printf("summary: match %lld, %d frames, %d still tables read, %d moves, %d illegal, "
               "%d take-backs, %d asked to confirm\n",
               (long long)ref_match_id(ref), ls.frames, ls.readings, w.moves, w.illegal,
               w.takebacks, w.confirms);
        printf("summary: scores");
        for (int i = 0; i < st.nplayers; i++)
            printf(" %s %d", ui__name(&w, i), st.scores[i]);
        printf("%s\n", st.over ? " (game over)" : " (unfinished: tablecam watch --resume continues it)");
        printf("summary: review it with: tablecam serve --db %s (or tablecam show --db %s %lld)\n",
               o->db_path, o->db_path, (long long)ref_match_id(ref));
        fflush(stdout);
    }
    if (o->hold && w.web) {
        fprintf(stderr, "tablecam %s: the match is over; the web app stays up for review "
                        "until Ctrl-C\n", cmd->name);
        while (!atomic_load(&ui__signalled)) {
            struct timespec ts = {0, 100 * 1000 * 1000};
            nanosleep(&ts, NULL);
        }
    }
done:
    ui_gpio_free(w.gpio);
    ui_web_free(w.web);
    ref_loop_free(loop);
    ref_reader_free(reader);
    vis_pieceset_free(set);
    vis_capture_free(cam);
    ref_free(ref);
    db_close(store);
    cJSON_Delete(header);
    if (w.names_owned)
        for (int i = 0; i < w.nplayers && i < RULES_MAX_PLAYERS; i++)
            free((char *)w.names[i]);
    pthread_mutex_destroy(&w.qmu);
    return status;
}
