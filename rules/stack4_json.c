/* rules/stack4_json.c: the stack4 codec (FORMATS.md 1-2).
 *
 * A piece: {"player":"light","piece":"T","cells":[[x,y,z],...]} with 4
 * cells; cells may lie outside the volume (the referee rejects them with a
 * rule, not the codec), but must be small whole numbers.  A move:
 * {"type":"place","pieces":[one piece]}; a hand: piece names ["T","I"]. */
#include "stack4_internal.h"

#include <string.h>

/* Cells further out than this are not a misplaced piece but garbage. */
#define STACK4__COORD_MAX 99

int rules__stack4_piece_from_json(const cJSON *obj, rules_piece *out, base_err *err)
{
    const char *who, *kind;
    const cJSON *cells, *c;
    int rc, n, i = 0;

    if ((rc = rules__json_str(obj, "player", &who, err)) != 0)
        return rc;
    if ((out->owner = (int8_t)rules__stack4_owner_from_name(who)) < 0)
        return base_err_set(err, BASE_EPARSE, "\"player\" must be \"light\" or \"dark\", not \"%s\"",
                            who);
    if ((rc = rules__json_str(obj, "piece", &kind, err)) != 0)
        return rc;
    if ((rc = rules__stack4_kind_from_name(kind)) < 0)
        return base_err_set(err, BASE_EPARSE,
                            "\"piece\" \"%s\" is not a stack4 piece (I O L T S SR SL Y)", kind);
    out->a = (uint8_t)rc;
    cells = cJSON_GetObjectItemCaseSensitive(obj, "cells");
    if (!cells)
        return base_err_set(err, BASE_EPARSE, "missing \"cells\"");
    if (!cJSON_IsArray(cells) || (n = cJSON_GetArraySize(cells)) != 4)
        return base_err_set(err, BASE_EPARSE,
                            "\"cells\" must be an array of the piece's 4 cells [x,y,z]");
    cJSON_ArrayForEach(c, cells) {
        const cJSON *v;
        int a = 0;
        if (!cJSON_IsArray(c) || cJSON_GetArraySize(c) != 3)
            return base_err_set(err, BASE_EPARSE, "\"cells\" item %d must be [x,y,z]", i + 1);
        cJSON_ArrayForEach(v, c) {
            double d = v->valuedouble;
            if (!cJSON_IsNumber(v) || !(d >= -STACK4__COORD_MAX && d <= STACK4__COORD_MAX) ||
                d != (double)(int)d)
                return base_err_set(err, BASE_EPARSE,
                                    "\"cells\" item %d: %c must be a whole number from %d to %d",
                                    i + 1, "xyz"[a], -STACK4__COORD_MAX, STACK4__COORD_MAX);
            out->cells[i][a++] = (int8_t)d;
        }
        i++;
    }
    out->ncells = 4;
    return 0;
}

cJSON *rules__stack4_piece_to_json(const rules_piece *p)
{
    cJSON *obj = cJSON_CreateObject(), *cells;
    const char *who = rules__stack4_owner_name(p->owner), *kind = rules__stack4_kind_name(p->a);
    cJSON_AddStringToObject(obj, "player", who ? who : "?");
    cJSON_AddStringToObject(obj, "piece", kind ? kind : "?");
    cells = cJSON_AddArrayToObject(obj, "cells");
    for (int i = 0; i < p->ncells && i < 4; i++) {
        int c[3] = {p->cells[i][0], p->cells[i][1], p->cells[i][2]};
        cJSON_AddItemToArray(cells, cJSON_CreateIntArray(c, 3));
    }
    return obj;
}

int rules__stack4_move_from_json(const cJSON *obj, rules_move *out, base_err *err)
{
    int rc;
    if ((rc = rules__json_move_type(obj, 1u << RULES_MOVE_PLACE, &out->type, err)) != 0)
        return rc;
    return rules__json_pieces(&rules__stack4_engine, obj, out, err);
}

cJSON *rules__stack4_move_to_json(const rules_move *m)
{
    cJSON *obj = cJSON_CreateObject(), *arr;
    cJSON_AddStringToObject(obj, "type", rules__move_type_name(m->type));
    arr = cJSON_AddArrayToObject(obj, "pieces");
    for (int i = 0; i < m->npieces; i++)
        cJSON_AddItemToArray(arr, rules__stack4_piece_to_json(&m->pieces[i]));
    return obj;
}

int rules__stack4_hand_from_json(const cJSON *item, rules_piece *out, base_err *err)
{
    int k;
    if (!cJSON_IsString(item))
        return base_err_set(err, BASE_EPARSE, "a stack4 hand item must be a piece name (\"T\")");
    if ((k = rules__stack4_kind_from_name(item->valuestring)) < 0)
        return base_err_set(err, BASE_EPARSE, "\"%s\" is not a stack4 piece (I O L T S SR SL Y)",
                            item->valuestring);
    out->a = (uint8_t)k;
    return 0;
}

cJSON *rules__stack4_hand_to_json(const rules_piece *p)
{
    const char *kind = rules__stack4_kind_name(p->a);
    return cJSON_CreateString(kind ? kind : "?");
}
