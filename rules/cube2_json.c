/* rules/cube2_json.c: the cube2 codec (FORMATS.md 1-3, docs/rules-cube2.md).
 *
 * Piece: {"col":2,"row":4,"color":"blue","shape":"cylinder"}.
 * Moves: {"type":"move","from":[c,r],"to":[c,r]} or "to":"off" (an exit),
 * {"type":"pass"}, {"type":"place","pieces":[one piece]} (a setup turn when
 * the header has no complete "setup"), {"type":"swap"} (option swap).
 * cube2 has no hands: an event's "hand", if any, lists colour and shape
 * objects and the engine does not use it.  An exit's verdict carries
 * "exited": the piece and the square it left from. */
#include "engine.h"

#include <string.h>

static const char *const c2j__shapes[2] = {"cube", "cylinder"};

/* "color" and "shape" of a piece object. */
static int c2j__kind(const cJSON *obj, rules_piece *out, base_err *err)
{
    const char *name;
    int rc, color;
    if ((rc = rules__json_str(obj, "color", &name, err)) != 0)
        return rc;
    color = rules_color_from_name(name);
    if (color < 0 || color > RULES_PURPLE)
        return base_err_set(err, BASE_EPARSE,
                            "unknown colour \"%s\" in \"color\" (cube2 has red, orange, yellow, "
                            "green, blue, purple)",
                            name);
    if ((rc = rules__json_str(obj, "shape", &name, err)) != 0)
        return rc;
    if (strcmp(name, "cube") == 0)
        out->b = RULES_C2_CUBE;
    else if (strcmp(name, "cylinder") == 0)
        out->b = RULES_C2_CYLINDER;
    else
        return base_err_set(err, BASE_EPARSE,
                            "unknown shape \"%s\" in \"shape\" (cube2 has cube, cylinder)", name);
    out->a = (uint8_t)color;
    return 0;
}

int rules__cube2_piece_from_json(const cJSON *obj, rules_piece *out, base_err *err)
{
    int rc, c, r;
    if (!cJSON_IsObject(obj))
        return base_err_set(err, BASE_EPARSE, "a cube2 piece must be a JSON object");
    if ((rc = rules__json_int(obj, "col", &c, err)) != 0 ||
        (rc = rules__json_int(obj, "row", &r, err)) != 0)
        return rc;
    if (c < -1000 || c > 1000 || r < -1000 || r > 1000)
        return base_err_set(err, BASE_ERANGE, "\"col\",\"row\" (%d,%d) is far off any board", c,
                            r);
    out->x = (int16_t)c;
    out->y = (int16_t)r;
    out->owner = -1;
    return c2j__kind(obj, out, err);
}

cJSON *rules__cube2_piece_to_json(const rules_piece *p)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "col", p->x);
    cJSON_AddNumberToObject(o, "row", p->y);
    cJSON_AddStringToObject(o, "color", rules_color_name(p->a) ? rules_color_name(p->a) : "?");
    cJSON_AddStringToObject(o, "shape", p->b < 2 ? c2j__shapes[p->b] : "?");
    return o;
}

/* A square [c,r] under key. */
static int c2j__square(const cJSON *move, const char *key, int16_t out[2], base_err *err)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(move, key);
    if (!it)
        return base_err_set(err, BASE_EPARSE, "a \"move\" needs \"%s\": [col,row]", key);
    if (!cJSON_IsArray(it) || cJSON_GetArraySize(it) != 2)
        return base_err_set(err, BASE_EPARSE, "\"%s\" must be [col,row]", key);
    for (int i = 0; i < 2; i++) {
        const cJSON *n = cJSON_GetArrayItem(it, i);
        if (!cJSON_IsNumber(n) || n->valuedouble != (double)(int)n->valuedouble ||
            n->valuedouble < -1000 || n->valuedouble > 1000)
            return base_err_set(err, BASE_EPARSE,
                                "\"%s\" must be [col,row] with two whole numbers", key);
        out[i] = (int16_t)n->valuedouble;
    }
    return 0;
}

int rules__cube2_move_from_json(const cJSON *obj, rules_move *out, base_err *err)
{
    unsigned allowed = 1u << RULES_MOVE_MOVE | 1u << RULES_MOVE_PASS | 1u << RULES_MOVE_PLACE |
                       1u << RULES_MOVE_SWAP;
    const cJSON *to;
    int rc, type;
    if ((rc = rules__json_move_type(obj, allowed, &type, err)) != 0)
        return rc;
    out->type = type;
    if (type == RULES_MOVE_PLACE)
        return rules__json_pieces(&rules__cube2_engine, obj, out, err);
    if (type != RULES_MOVE_MOVE)
        return 0;
    if ((rc = c2j__square(obj, "from", out->from, err)) != 0)
        return rc;
    to = cJSON_GetObjectItemCaseSensitive(obj, "to");
    if (cJSON_IsString(to)) {
        if (strcmp(to->valuestring, "off") != 0)
            return base_err_set(err, BASE_EPARSE,
                                "\"to\" must be [col,row] or \"off\", not \"%s\"",
                                to->valuestring);
        out->to_off = true;
        return 0;
    }
    return c2j__square(obj, "to", out->to, err);
}

cJSON *rules__cube2_move_to_json(const rules_move *m)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "type", rules__move_type_name(m->type));
    if (m->type == RULES_MOVE_PLACE) {
        cJSON *arr = cJSON_AddArrayToObject(o, "pieces");
        for (int i = 0; i < m->npieces; i++)
            cJSON_AddItemToArray(arr, rules__cube2_piece_to_json(&m->pieces[i]));
    } else if (m->type == RULES_MOVE_MOVE) {
        int from[2] = {m->from[0], m->from[1]}, to[2] = {m->to[0], m->to[1]};
        cJSON_AddItemToObject(o, "from", cJSON_CreateIntArray(from, 2));
        if (m->to_off)
            cJSON_AddStringToObject(o, "to", "off");
        else
            cJSON_AddItemToObject(o, "to", cJSON_CreateIntArray(to, 2));
    }
    return o;
}

int rules__cube2_hand_from_json(const cJSON *item, rules_piece *out, base_err *err)
{
    if (!cJSON_IsObject(item))
        return base_err_set(err, BASE_EPARSE,
                            "a cube2 hand item is a {\"color\",\"shape\"} object");
    return c2j__kind(item, out, err);
}

cJSON *rules__cube2_hand_to_json(const rules_piece *p)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "color", rules_color_name(p->a) ? rules_color_name(p->a) : "?");
    cJSON_AddStringToObject(o, "shape", p->b < 2 ? c2j__shapes[p->b] : "?");
    return o;
}

void rules__cube2_verdict_extras(const rules_verdict *v, cJSON *obj)
{
    if (v->legal && v->nextra > 0)
        cJSON_AddItemToObject(obj, "exited", rules__cube2_piece_to_json(&v->extra[0]));
}
