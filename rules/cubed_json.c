/* rules/cubed_json.c: the cubed codec (FORMATS.md 1-2, docs/rules-cubed.md).
 *
 * A placed piece is {"q":0,"r":0,"parity":0,"faces":[c0,c1,c2]}; a piece
 * in a hand or a reveal is the bare colour triple [c0,c1,c2].  Moves are
 * `place` (one piece, optional "give": seat for option void), `draw`
 * (optional "count": 1..3 for option draw3), `pass` and `reveal`
 * ("pieces": colour triples).  Every error names the key at fault. */
#include "engine.h"

#include <stdio.h>
#include <string.h>

/* Coordinates far beyond any table keep the int16 fields and the engine's
 * arithmetic safe. */
#define CUBED__COORD_MAX 10000

static int cubed__color(const cJSON *it, const char *what, int i, uint8_t *out, base_err *err)
{
    int c;
    if (!cJSON_IsString(it))
        return base_err_set(err, BASE_EPARSE, "%s item %d must be a colour name", what, i + 1);
    c = rules_color_from_name(it->valuestring);
    if (c < 0)
        return base_err_set(err, BASE_EPARSE,
                            "%s item %d: unknown colour '%s' (known: red, orange, yellow, "
                            "green, blue, purple, black, white)",
                            what, i + 1, it->valuestring);
    *out = (uint8_t)c;
    return 0;
}

/* Three colour names into a, b, c. */
static int cubed__triple(const cJSON *arr, const char *what, rules_piece *out, base_err *err)
{
    uint8_t f[3];
    int rc;
    if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) != 3)
        return base_err_set(err, BASE_EPARSE,
                            "%s must be an array of 3 colour names (the three faces)", what);
    for (int i = 0; i < 3; i++)
        if ((rc = cubed__color(cJSON_GetArrayItem(arr, i), what, i, &f[i], err)) != 0)
            return rc;
    out->a = f[0];
    out->b = f[1];
    out->c = f[2];
    return 0;
}

static cJSON *cubed__triple_json(const rules_piece *p)
{
    const char *names[3] = {rules_color_name(p->a), rules_color_name(p->b),
                            rules_color_name(p->c)};
    cJSON *arr = cJSON_CreateArray();
    for (int i = 0; i < 3; i++)
        cJSON_AddItemToArray(arr, cJSON_CreateString(names[i] ? names[i] : "?"));
    return arr;
}

static int cubed__coord(const cJSON *obj, const char *key, int16_t *out, base_err *err)
{
    int v, rc;
    if ((rc = rules__json_int(obj, key, &v, err)) != 0)
        return rc;
    if (v < -CUBED__COORD_MAX || v > CUBED__COORD_MAX)
        return base_err_set(err, BASE_ERANGE, "\"%s\" is %d, outside -%d..%d", key, v,
                            CUBED__COORD_MAX, CUBED__COORD_MAX);
    *out = (int16_t)v;
    return 0;
}

int rules__cubed_piece_from_json(const cJSON *obj, rules_piece *out, base_err *err)
{
    int parity, rc;
    if ((rc = cubed__coord(obj, "q", &out->x, err)) != 0 ||
        (rc = cubed__coord(obj, "r", &out->y, err)) != 0 ||
        (rc = rules__json_int(obj, "parity", &parity, err)) != 0)
        return rc;
    if (parity != 0 && parity != 1)
        return base_err_set(err, BASE_EPARSE, "\"parity\" must be 0 or 1, not %d", parity);
    out->parity = (uint8_t)parity;
    if (!cJSON_GetObjectItemCaseSensitive(obj, "faces"))
        return base_err_set(err, BASE_EPARSE, "missing \"faces\"");
    return cubed__triple(cJSON_GetObjectItemCaseSensitive(obj, "faces"), "\"faces\"", out, err);
}

cJSON *rules__cubed_piece_to_json(const rules_piece *p)
{
    cJSON *obj = cJSON_CreateObject();
    cJSON_AddNumberToObject(obj, "q", p->x);
    cJSON_AddNumberToObject(obj, "r", p->y);
    cJSON_AddNumberToObject(obj, "parity", p->parity);
    cJSON_AddItemToObject(obj, "faces", cubed__triple_json(p));
    return obj;
}

int rules__cubed_hand_from_json(const cJSON *item, rules_piece *out, base_err *err)
{
    return cubed__triple(item, "a cubed hand piece", out, err);
}

cJSON *rules__cubed_hand_to_json(const rules_piece *p) { return cubed__triple_json(p); }

int rules__cubed_move_from_json(const cJSON *obj, rules_move *out, base_err *err)
{
    unsigned allowed = 1u << RULES_MOVE_PLACE | 1u << RULES_MOVE_DRAW | 1u << RULES_MOVE_PASS |
                       1u << RULES_MOVE_REVEAL;
    const cJSON *it;
    int rc, v;

    if ((rc = rules__json_move_type(obj, allowed, &out->type, err)) != 0)
        return rc;
    switch (out->type) {
    case RULES_MOVE_PLACE:
        if ((rc = rules__json_pieces(&rules__cubed_engine, obj, out, err)) != 0)
            return rc;
        if (cJSON_GetObjectItemCaseSensitive(obj, "give")) {
            if ((rc = rules__json_int(obj, "give", &v, err)) != 0)
                return rc;
            if (v < 0 || v >= RULES_MAX_PLAYERS)
                return base_err_set(err, BASE_EPARSE,
                                    "\"give\" must be a seat number 0..%d, not %d",
                                    RULES_MAX_PLAYERS - 1, v);
            out->give = (int8_t)v;
        }
        break;
    case RULES_MOVE_DRAW:
        if (cJSON_GetObjectItemCaseSensitive(obj, "count")) {
            if ((rc = rules__json_int(obj, "count", &v, err)) != 0)
                return rc;
            if (v < 1 || v > 3)
                return base_err_set(err, BASE_EPARSE, "\"count\" must be 1, 2 or 3, not %d",
                                    v);
            out->count = (int8_t)v;
        }
        break;
    case RULES_MOVE_REVEAL:
        it = cJSON_GetObjectItemCaseSensitive(obj, "pieces");
        if (!cJSON_IsArray(it))
            return base_err_set(err, BASE_EPARSE,
                                "a \"reveal\" move needs \"pieces\": an array of colour triples");
        out->npieces = cJSON_GetArraySize(it);
        if (out->npieces > RULES_MAX_MOVE_PIECES)
            return base_err_set(err, BASE_ERANGE,
                                "the reveal holds %d pieces, at most %d fit in one event "
                                "(reveal a larger hand in parts)",
                                out->npieces, RULES_MAX_MOVE_PIECES);
        for (int i = 0; i < out->npieces; i++) {
            rules_piece *p = &out->pieces[i];
            memset(p, 0, sizeof *p);
            p->owner = -1;
            if ((rc = cubed__triple(cJSON_GetArrayItem(it, i), "a revealed piece", p, err)) !=
                0) {
                base_err_prefix(err, "\"pieces\" item %d: ", i + 1);
                return rc;
            }
        }
        break;
    default: /* pass: nothing more */
        break;
    }
    return 0;
}

cJSON *rules__cubed_move_to_json(const rules_move *m)
{
    cJSON *obj = cJSON_CreateObject(), *arr;
    cJSON_AddStringToObject(obj, "type", rules__move_type_name(m->type));
    switch (m->type) {
    case RULES_MOVE_PLACE:
        arr = cJSON_AddArrayToObject(obj, "pieces");
        for (int i = 0; i < m->npieces; i++)
            cJSON_AddItemToArray(arr, rules__cubed_piece_to_json(&m->pieces[i]));
        if (m->give >= 0)
            cJSON_AddNumberToObject(obj, "give", m->give);
        break;
    case RULES_MOVE_DRAW:
        if (m->count > 0)
            cJSON_AddNumberToObject(obj, "count", m->count);
        break;
    case RULES_MOVE_REVEAL:
        arr = cJSON_AddArrayToObject(obj, "pieces");
        for (int i = 0; i < m->npieces; i++)
            cJSON_AddItemToArray(arr, cubed__triple_json(&m->pieces[i]));
        break;
    default:
        break;
    }
    return obj;
}

void rules__cubed_verdict_extras(const rules_verdict *v, cJSON *obj)
{
    if (v->round > 0)
        cJSON_AddNumberToObject(obj, "round", v->round);
    /* A legal verdict with "over" ends a round; the final line (and the
     * status) say whether the whole game is over. */
    if (v->legal && v->over)
        cJSON_AddBoolToObject(obj, "round_over", true);
}
