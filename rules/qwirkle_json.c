/* rules/qwirkle_json.c: the qwirkle codec (FORMATS.md 1-2): a cube on the
 * table {"x":0,"y":0,"color":"red","shape":"star8"}, a move
 * {"type":"place","pieces":[...]} / {"type":"reroll"} / {"type":"draw"},
 * and a hand item {"color":"red","shape":"circle"}.  The rules are in
 * qwirkle.c; this file only translates, and says which key is wrong. */
#include "engine.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define QWJ__KINDS 6 /* qwirkle uses the first six colours and all six shapes */

/* "color" and "shape" of a cube (on the table or in a hand). */
static int qwj__cube(const cJSON *obj, rules_piece *out, base_err *err)
{
    const char *name;
    int c, sh, rc;
    if ((rc = rules__json_str(obj, "color", &name, err)) != 0)
        return rc;
    c = rules_color_from_name(name);
    if (c < 0 || c >= QWJ__KINDS)
        return base_err_set(err, BASE_EPARSE,
                            "unknown colour \"%s\" in \"color\" (qwirkle has red, orange, "
                            "yellow, green, blue, purple)",
                            name);
    if ((rc = rules__json_str(obj, "shape", &name, err)) != 0)
        return rc;
    sh = rules_shape_from_name(name);
    if (sh < 0 || sh >= QWJ__KINDS)
        return base_err_set(err, BASE_EPARSE,
                            "unknown shape \"%s\" in \"shape\" (qwirkle has circle, square, "
                            "diamond, clover, star4, star8)",
                            name);
    out->a = (uint8_t)c;
    out->b = (uint8_t)sh;
    out->owner = -1;
    return 0;
}

int rules__qwirkle_piece_from_json(const cJSON *obj, rules_piece *out, base_err *err)
{
    int rc;
    if (!cJSON_IsObject(obj))
        return base_err_set(err, BASE_EPARSE, "a qwirkle cube must be a JSON object");
    if ((rc = rules__json_coord(obj, "x", &out->x, err)) != 0 ||
        (rc = rules__json_coord(obj, "y", &out->y, err)) != 0)
        return rc;
    return qwj__cube(obj, out, err);
}

static cJSON *qwj__cube_json(const rules_piece *p, bool cell)
{
    const char *c = p->a < QWJ__KINDS ? rules_color_name(p->a) : NULL;
    const char *sh = rules_shape_name(p->b);
    cJSON *obj;
    if (!c || !sh)
        return NULL;
    obj = cJSON_CreateObject();
    if (cell) {
        cJSON_AddNumberToObject(obj, "x", p->x);
        cJSON_AddNumberToObject(obj, "y", p->y);
    }
    cJSON_AddStringToObject(obj, "color", c);
    cJSON_AddStringToObject(obj, "shape", sh);
    return obj;
}

cJSON *rules__qwirkle_piece_to_json(const rules_piece *p) { return qwj__cube_json(p, true); }

void rules__qwirkle_piece_text(const rules_piece *p, char *buf, size_t n)
{
    const char *c = p->a < QWJ__KINDS ? rules_color_name(p->a) : NULL;
    const char *sh = rules_shape_name(p->b);
    if (c && sh)
        snprintf(buf, n, "%s %s %s at (%d,%d)", rules__a(c), c, sh, p->x, p->y);
    else
        snprintf(buf, n, "an unknown cube at (%d,%d)", p->x, p->y);
}

int rules__qwirkle_hand_from_json(const cJSON *item, rules_piece *out, base_err *err)
{
    if (!cJSON_IsObject(item))
        return base_err_set(err, BASE_EPARSE,
                            "a qwirkle hand item must be an object {\"color\":...,\"shape\":...}");
    return qwj__cube(item, out, err);
}

cJSON *rules__qwirkle_hand_to_json(const rules_piece *p) { return qwj__cube_json(p, false); }

int rules__qwirkle_move_from_json(const cJSON *obj, rules_move *out, base_err *err)
{
    unsigned allowed = 1u << RULES_MOVE_PLACE | 1u << RULES_MOVE_REROLL | 1u << RULES_MOVE_DRAW;
    int type, rc;
    if ((rc = rules__json_move_type(obj, allowed, &type, err)) != 0)
        return rc;
    out->type = type;
    if (type == RULES_MOVE_PLACE) {
        /* An empty "pieces" is readable: the engine calls it illegal. */
        if ((rc = rules__json_pieces(&rules__qwirkle_engine, obj, out, err)) != 0)
            return rc;
    }
    return 0;
}

cJSON *rules__qwirkle_move_to_json(const rules_move *m)
{
    cJSON *obj = cJSON_CreateObject();
    cJSON_AddStringToObject(obj, "type", rules__move_type_name(m->type));
    if (m->type == RULES_MOVE_PLACE) {
        cJSON *arr = cJSON_AddArrayToObject(obj, "pieces");
        for (int i = 0; i < m->npieces; i++) {
            cJSON *p = rules__qwirkle_piece_to_json(&m->pieces[i]);
            if (!p) {
                cJSON_Delete(obj);
                return NULL;
            }
            cJSON_AddItemToArray(arr, p);
        }
    }
    return obj;
}
