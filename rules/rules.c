/* rules: the game handle, the engine table and the shared codec parts. */
#include "engine.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rules_game {
    const rules__engine *e;
    void *state;
    int nplayers;
};

static const rules__engine *const rules__engines[] = {
    &rules__qwirkle_engine, &rules__cards_engine, &rules__cube2_engine,
    &rules__stack4_engine, &rules__cubed_engine,
};
#define RULES__NENGINES ((int)(sizeof rules__engines / sizeof rules__engines[0]))

static const char *const rules__ids[] = {"qwirkle", "cards", "cube2", "stack4", "cubed"};

int rules_games(const char *const **ids)
{
    *ids = rules__ids;
    return RULES__NENGINES;
}

static const rules__engine *rules__find(const char *game)
{
    for (int i = 0; game && i < RULES__NENGINES; i++)
        if (strcmp(rules__engines[i]->id, game) == 0)
            return rules__engines[i];
    return NULL;
}

bool rules_game_available(const char *game)
{
    const rules__engine *e = rules__find(game);
    return e && e->create;
}

static int rules__engine_for(const char *game, base_err *err, const rules__engine **out)
{
    const rules__engine *e = rules__find(game);
    *out = NULL;
    if (!e)
        return base_err_set(err, BASE_EINVAL,
                            "unknown game '%s' (known: qwirkle, cards, cube2, stack4, cubed)",
                            game ? game : "(none)");
    if (!e->create)
        return base_err_set(err, BASE_EUNSUPPORTED, "the %s engine is not built yet", game);
    *out = e;
    return 0;
}

void rules_move_init(rules_move *m, int type)
{
    memset(m, 0, sizeof *m);
    m->type = type;
    m->give = -1;
    m->nhand = -1;
}

int rules_game_new(const char *game, const cJSON *header, base_err *err, rules_game **out)
{
    const rules__engine *e;
    rules_game *g;
    int nplayers = 2, rc;

    *out = NULL;
    if ((rc = rules__engine_for(game, err, &e)) != 0)
        return rc;
    if (header) {
        const cJSON *players = cJSON_GetObjectItemCaseSensitive(header, "players");
        if (!cJSON_IsArray(players))
            return base_err_set(err, BASE_EPARSE,
                                "the header needs \"players\": an array of names");
        nplayers = cJSON_GetArraySize(players);
        for (int i = 0; i < nplayers; i++)
            if (!cJSON_IsString(cJSON_GetArrayItem(players, i)))
                return base_err_set(err, BASE_EPARSE, "player %d in \"players\" is not a name",
                                    i + 1);
    }
    if (nplayers < e->min_players || nplayers > e->max_players)
        return base_err_set(err, BASE_ERANGE, "%s takes %d to %d players, the header names %d",
                            game, e->min_players, e->max_players, nplayers);
    if (!(g = calloc(1, sizeof *g)))
        return base_err_set(err, BASE_ENOMEM, "out of memory");
    g->e = e;
    g->nplayers = nplayers;
    if ((rc = e->create(header, nplayers, err, &g->state)) != 0) {
        free(g);
        return rc;
    }
    *out = g;
    return 0;
}

void rules_game_free(rules_game *g)
{
    if (!g)
        return;
    g->e->destroy(g->state);
    free(g);
}

int rules_game_clone(const rules_game *g, rules_game **out)
{
    rules_game *c = calloc(1, sizeof *c);
    int rc;
    *out = NULL;
    if (!c)
        return BASE_ENOMEM;
    *c = *g;
    if ((rc = g->e->clone(g->state, &c->state)) != 0) {
        free(c);
        return rc;
    }
    *out = c;
    return 0;
}

const char *rules_game_id(const rules_game *g) { return g->e->id; }

const void *rules__game_state(const rules_game *g) { return g->state; }

void rules_game_status(const rules_game *g, rules_status *out)
{
    memset(out, 0, sizeof *out);
    out->nplayers = g->nplayers;
    out->bag = -1;
    out->round = 1;
    for (int i = 0; i < RULES_MAX_PLAYERS; i++)
        out->hand[i] = -1;
    g->e->status(g->state, out);
}

static void rules__verdict_start(const rules_game *g, rules_verdict *v, const rules_status *st)
{
    memset(v, 0, sizeof *v);
    v->legal = true;
    v->nplayers = g->nplayers;
    memcpy(v->scores, st->scores, sizeof v->scores);
    v->over = st->over;
    v->winners = st->winners;
}

int rules_check(const rules_game *g, int player, const rules_move *m, rules_verdict *v)
{
    rules_status st;
    if (player < 0 || player >= g->nplayers)
        return BASE_EINVAL;
    rules_game_status(g, &st);
    rules__verdict_start(g, v, &st);
    if (st.over) {
        rules__illegal(v, "game-over", "the game is already over");
        return 0;
    }
    /* A cubed reveal comes from every player at round end, not in turn. */
    if (player != st.to_move && m->type != RULES_MOVE_REVEAL) {
        rules__illegal(v, "out-of-turn", "it is player %d's turn, not player %d's",
                       st.to_move + 1, player + 1);
        return 0;
    }
    g->e->check(g->state, player, m, v);
    return 0;
}

int rules_apply(rules_game *g, int player, const rules_move *m, rules_verdict *v)
{
    rules_status st;
    int rc = rules_check(g, player, m, v);
    if (rc != 0 || !v->legal)
        return rc;
    g->e->apply(g->state, player, m, v);
    rules_game_status(g, &st);
    memcpy(v->scores, st.scores, sizeof v->scores);
    /* An engine may mark the end of a part of the game (a cubed round) with
     * its own winners while the game goes on. */
    if (st.over || !v->over) {
        v->over = st.over;
        v->winners = st.winners;
    }
    return 0;
}

int rules_position(const rules_game *g, rules_piece *out, int cap)
{
    return g->e->position(g->state, out, cap);
}

int rules_generate(const rules_game *g, int player, const rules_piece *hand, int nhand,
                   rules_move_fn fn, void *ctx)
{
    if (player < 0 || player >= g->nplayers)
        return BASE_EINVAL;
    if (!g->e->generate)
        return BASE_EUNSUPPORTED;
    return g->e->generate(g->state, player, hand, nhand, fn, ctx);
}

/* ---- codec ---- */

int rules_piece_from_json(const char *game, const cJSON *obj, rules_piece *out, base_err *err)
{
    const rules__engine *e;
    int rc;
    if ((rc = rules__engine_for(game, err, &e)) != 0)
        return rc;
    memset(out, 0, sizeof *out);
    out->owner = -1;
    if (!cJSON_IsObject(obj))
        return base_err_set(err, BASE_EPARSE, "a %s piece must be a JSON object", game);
    return e->piece_from_json(obj, out, err);
}

cJSON *rules_piece_to_json(const char *game, const rules_piece *p)
{
    const rules__engine *e = rules__find(game);
    return e && e->piece_to_json ? e->piece_to_json(p) : NULL;
}

bool rules_side_by_side(const char *game, const rules_piece *a, const rules_piece *b)
{
    const rules__engine *e = rules__find(game);
    return !e || !e->side_by_side || e->side_by_side(a, b);
}

const char *rules_piece_text(const char *game, const rules_piece *p, char *buf, size_t n)
{
    const rules__engine *e = rules__find(game);
    cJSON *j;
    char *s;
    if (e && e->piece_text) {
        e->piece_text(p, buf, n);
        return buf;
    }
    j = rules_piece_to_json(game, p);
    s = j ? cJSON_PrintUnformatted(j) : NULL;
    snprintf(buf, n, "%s", s ? s : "?");
    cJSON_free(s);
    cJSON_Delete(j);
    return buf;
}

cJSON *rules_pieces_to_json(const char *game, const rules_piece *p, int n)
{
    const rules__engine *e = rules__find(game);
    cJSON *pos, *arr;
    if (!e || !e->piece_to_json)
        return NULL;
    pos = cJSON_CreateObject();
    cJSON_AddStringToObject(pos, "game", game);
    arr = cJSON_AddArrayToObject(pos, "pieces");
    for (int i = 0; i < n; i++)
        cJSON_AddItemToArray(arr, e->piece_to_json(&p[i]));
    return pos;
}

cJSON *rules_position_to_json(const rules_game *g)
{
    int n = rules_position(g, NULL, 0);
    rules_piece *p = malloc(sizeof *p * (size_t)(n > 0 ? n : 1));
    cJSON *pos;
    if (!p)
        return NULL;
    n = rules_position(g, p, n);
    pos = rules_pieces_to_json(g->e->id, p, n);
    free(p);
    return pos;
}

static int rules__hand_from_json(const rules__engine *e, const cJSON *hand, rules_move *out,
                                 base_err *err)
{
    int n;
    if (!cJSON_IsArray(hand))
        return base_err_set(err, BASE_EPARSE, "\"hand\" must be an array");
    n = cJSON_GetArraySize(hand);
    if (n > RULES_MAX_HAND)
        return base_err_set(err, BASE_ERANGE, "\"hand\" holds %d pieces, at most %d are allowed",
                            n, RULES_MAX_HAND);
    for (int i = 0; i < n; i++) {
        rules_piece *p = &out->hand[i];
        int rc;
        memset(p, 0, sizeof *p);
        p->owner = -1;
        if ((rc = e->hand_from_json(cJSON_GetArrayItem(hand, i), p, err)) != 0) {
            base_err_prefix(err, "hand item %d: ", i + 1);
            return rc;
        }
    }
    out->nhand = n;
    return 0;
}

int rules_move_from_json(const char *game, const cJSON *obj, rules_move *out, base_err *err)
{
    const rules__engine *e;
    const cJSON *hand;
    int rc;
    if ((rc = rules__engine_for(game, err, &e)) != 0)
        return rc;
    rules_move_init(out, RULES_MOVE_NONE);
    if (!cJSON_IsObject(obj))
        return base_err_set(err, BASE_EPARSE, "\"move\" must be a JSON object");
    if ((rc = e->move_from_json(obj, out, err)) != 0)
        return rc;
    hand = cJSON_GetObjectItemCaseSensitive(obj, "hand");
    if (hand && (rc = rules__hand_from_json(e, hand, out, err)) != 0)
        return rc;
    return 0;
}

cJSON *rules_move_to_json(const char *game, const rules_move *m)
{
    const rules__engine *e = rules__find(game);
    cJSON *obj;
    if (!e || !e->move_to_json)
        return NULL;
    obj = e->move_to_json(m);
    if (obj && m->nhand >= 0) {
        cJSON *hand = cJSON_AddArrayToObject(obj, "hand");
        for (int i = 0; i < m->nhand; i++)
            cJSON_AddItemToArray(hand, e->hand_to_json(&m->hand[i]));
    }
    return obj;
}

int rules_event_from_json(const char *game, const cJSON *obj, int *player, rules_move *out,
                          base_err *err)
{
    const rules__engine *e;
    const cJSON *move, *hand;
    int rc;
    if ((rc = rules__engine_for(game, err, &e)) != 0)
        return rc;
    if (!cJSON_IsObject(obj))
        return base_err_set(err, BASE_EPARSE, "an event must be a JSON object");
    if ((rc = rules__json_int(obj, "player", player, err)) != 0)
        return rc;
    move = cJSON_GetObjectItemCaseSensitive(obj, "move");
    if (!move)
        return base_err_set(err, BASE_EPARSE, "the event has no \"move\"");
    if ((rc = rules_move_from_json(game, move, out, err)) != 0)
        return rc;
    hand = cJSON_GetObjectItemCaseSensitive(obj, "hand");
    if (hand && (rc = rules__hand_from_json(e, hand, out, err)) != 0)
        return rc;
    return 0;
}

cJSON *rules_verdict_to_json(const rules_game *g, int seq, int player, const rules_verdict *v)
{
    cJSON *obj = cJSON_CreateObject();
    cJSON_AddNumberToObject(obj, "seq", seq);
    cJSON_AddNumberToObject(obj, "player", player);
    cJSON_AddBoolToObject(obj, "legal", v->legal);
    if (v->legal) {
        cJSON_AddNumberToObject(obj, "points", v->points);
    } else {
        cJSON_AddStringToObject(obj, "rule", v->rule);
        cJSON_AddStringToObject(obj, "reason", v->reason);
    }
    cJSON_AddItemToObject(obj, "scores", cJSON_CreateIntArray(v->scores, v->nplayers));
    if (v->note[0])
        cJSON_AddStringToObject(obj, "note", v->note);
    if (v->legal && v->over) {
        cJSON *w = cJSON_AddArrayToObject(obj, "winners");
        cJSON_AddBoolToObject(obj, "over", true);
        for (int i = 0; i < v->nplayers; i++)
            if (v->winners & (1u << i))
                cJSON_AddItemToArray(w, cJSON_CreateNumber(i));
    }
    if (g->e->verdict_extras)
        g->e->verdict_extras(v, obj);
    return obj;
}

/* ---- shared codec helpers ---- */

int rules__clone_block(const void *state, size_t size, void **out)
{
    void *c = malloc(size);
    *out = NULL;
    if (!c)
        return BASE_ENOMEM;
    memcpy(c, state, size);
    *out = c;
    return 0;
}

int rules__json_int(const cJSON *obj, const char *key, int *out, base_err *err)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!it)
        return base_err_set(err, BASE_EPARSE, "missing \"%s\"", key);
    /* The range test first: casting an out-of-range double to int is
     * undefined behaviour ("x":1e10 in a record). */
    if (!cJSON_IsNumber(it) ||
        !(it->valuedouble >= -2147483648.0 && it->valuedouble <= 2147483647.0) ||
        it->valuedouble != (double)(int)it->valuedouble)
        return base_err_set(err, BASE_EPARSE, "\"%s\" must be a whole number", key);
    *out = (int)it->valuedouble;
    return 0;
}

int rules__json_coord(const cJSON *obj, const char *key, int16_t *out, base_err *err)
{
    int v = 0, rc; /* set: -O3 cannot see that a failed read returns */
    if ((rc = rules__json_int(obj, key, &v, err)) != 0)
        return rc;
    if (v < INT16_MIN || v > INT16_MAX)
        return base_err_set(err, BASE_ERANGE, "\"%s\" %d is out of range (%d..%d)", key, v,
                            INT16_MIN, INT16_MAX);
    *out = (int16_t)v;
    return 0;
}

int rules__json_str(const cJSON *obj, const char *key, const char **out, base_err *err)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!it)
        return base_err_set(err, BASE_EPARSE, "missing \"%s\"", key);
    if (!cJSON_IsString(it))
        return base_err_set(err, BASE_EPARSE, "\"%s\" must be a string", key);
    *out = it->valuestring;
    return 0;
}

static const char *const rules__type_names[] = {
    "none", "place", "pass", "reroll", "draw", "move", "reveal", "swap",
};

const char *rules__move_type_name(int type)
{
    if (type < 0 || type > RULES_MOVE_SWAP)
        return "?";
    return rules__type_names[type];
}

int rules__move_type_from_name(const char *name)
{
    for (int i = RULES_MOVE_PLACE; i <= RULES_MOVE_SWAP; i++)
        if (strcmp(rules__type_names[i], name) == 0)
            return i;
    return -1;
}

int rules__json_move_type(const cJSON *move, unsigned allowed, int *type, base_err *err)
{
    const char *name = NULL; /* set: -O3 cannot see that a failed read returns */
    int t, rc;
    if ((rc = rules__json_str(move, "type", &name, err)) != 0)
        return rc;
    t = rules__move_type_from_name(name);
    if (t < 0 || !(allowed & (1u << t))) {
        char list[128] = "";
        for (int i = RULES_MOVE_PLACE; i <= RULES_MOVE_SWAP; i++)
            if (allowed & (1u << i)) {
                if (list[0])
                    strcat(list, ", ");
                strcat(list, rules__type_names[i]);
            }
        return base_err_set(err, BASE_EPARSE, "unknown move type \"%s\" (this game has: %s)",
                            name, list);
    }
    *type = t;
    return 0;
}

int rules__json_pieces(const rules__engine *e, const cJSON *move, rules_move *out, base_err *err)
{
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(move, "pieces");
    int n;
    if (!cJSON_IsArray(arr))
        return base_err_set(err, BASE_EPARSE, "a \"%s\" move needs \"pieces\": an array",
                            rules__move_type_name(out->type));
    n = cJSON_GetArraySize(arr);
    if (n > RULES_MAX_MOVE_PIECES)
        return base_err_set(err, BASE_ERANGE, "the move holds %d pieces, at most %d are allowed",
                            n, RULES_MAX_MOVE_PIECES);
    for (int i = 0; i < n; i++) {
        rules_piece *p = &out->pieces[i];
        int rc;
        memset(p, 0, sizeof *p);
        p->owner = -1;
        if (!cJSON_IsObject(cJSON_GetArrayItem(arr, i)))
            return base_err_set(err, BASE_EPARSE, "piece %d: must be a JSON object", i + 1);
        if ((rc = e->piece_from_json(cJSON_GetArrayItem(arr, i), p, err)) != 0) {
            base_err_prefix(err, "piece %d: ", i + 1);
            return rc;
        }
    }
    out->npieces = n;
    return 0;
}

const char *rules__a(const char *word)
{
    return word && word[0] && strchr("aeiouAEIOU", word[0]) ? "an" : "a";
}

void rules__illegal(rules_verdict *v, const char *rule, const char *fmt, ...)
{
    va_list ap;
    v->legal = false;
    snprintf(v->rule, sizeof v->rule, "%s", rule);
    va_start(ap, fmt);
    vsnprintf(v->reason, sizeof v->reason, fmt, ap);
    va_end(ap);
}

/* ---- names ---- */

static const char *const rules__colors[RULES_NCOLORS] = {
    "red", "orange", "yellow", "green", "blue", "purple", "black", "white",
};
static const char *const rules__shapes[RULES_NSHAPES] = {
    "circle", "square", "diamond", "clover", "star4", "star8",
};

int rules_color_from_name(const char *name)
{
    for (int i = 0; name && i < RULES_NCOLORS; i++)
        if (strcmp(rules__colors[i], name) == 0)
            return i;
    return -1;
}

const char *rules_color_name(int color)
{
    return color >= 0 && color < RULES_NCOLORS ? rules__colors[color] : NULL;
}

int rules_shape_from_name(const char *name)
{
    for (int i = 0; name && i < RULES_NSHAPES; i++)
        if (strcmp(rules__shapes[i], name) == 0)
            return i;
    return -1;
}

const char *rules_shape_name(int shape)
{
    return shape >= 0 && shape < RULES_NSHAPES ? rules__shapes[shape] : NULL;
}

static const char rules__suits[] = "SHDC";
static const char *const rules__ranks[] = {"A", "2", "3", "4", "5", "6", "7",
                                           "8", "9", "10", "J", "Q", "K"};

int rules_card_from_name(const char *name, int *rank, int *suit)
{
    size_t len;
    const char *s;
    if (!name || (len = strlen(name)) < 2 || len > 3)
        return BASE_EPARSE;
    if (!(s = strchr(rules__suits, name[len - 1])) || !*s)
        return BASE_EPARSE;
    for (int r = 0; r < 13; r++)
        if (strlen(rules__ranks[r]) == len - 1 && strncmp(rules__ranks[r], name, len - 1) == 0) {
            *rank = r + 1;
            *suit = (int)(s - rules__suits);
            return 0;
        }
    return BASE_EPARSE;
}

const char *rules_card_name(int rank, int suit, char buf[4])
{
    if (rank < 1 || rank > 13 || suit < 0 || suit > 3)
        return NULL;
    snprintf(buf, 4, "%s%c", rules__ranks[rank - 1], rules__suits[suit]);
    return buf;
}
