/* rules/cards_json.c: the cards codec (FORMATS.md 1-3): a card on the table
 * {"x":0,"y":0,"card":"10H"}, a move {"type":"place","pieces":[card]} or
 * {"type":"pass"}, a hand ["7H",...], and the verdict's "captured" list.
 * The engine's rules are in cards.c; this file only translates. */
#include "engine.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int cards__json_card(const char *name, const char *what, rules_piece *out, base_err *err)
{
    int rank, suit;
    if (rules_card_from_name(name, &rank, &suit) != 0)
        return base_err_set(err, BASE_EPARSE,
                            "%s \"%s\" is not a card: a rank A 2..10 J Q K then a suit S H D C, "
                            "e.g. \"10H\"",
                            what, name);
    out->a = (uint8_t)rank;
    out->b = (uint8_t)suit;
    return 0;
}

int rules__cards_piece_from_json(const cJSON *obj, rules_piece *out, base_err *err)
{
    const cJSON *down = cJSON_GetObjectItemCaseSensitive(obj, "face_down");
    const char *name;
    int rc;
    if ((rc = rules__json_coord(obj, "x", &out->x, err)) != 0 ||
        (rc = rules__json_coord(obj, "y", &out->y, err)) != 0)
        return rc;
    if (down && !cJSON_IsBool(down))
        return base_err_set(err, BASE_EPARSE, "\"face_down\" must be true or false");
    out->c = cJSON_IsTrue(down) ? 1 : 0;
    /* Vision may see a card lying face down: it has a cell but no face. */
    if (out->c && !cJSON_GetObjectItemCaseSensitive(obj, "card")) {
        out->a = out->b = 0;
        return 0;
    }
    if ((rc = rules__json_str(obj, "card", &name, err)) != 0)
        return rc;
    return cards__json_card(name, "\"card\"", out, err);
}

cJSON *rules__cards_piece_to_json(const rules_piece *p)
{
    cJSON *obj = cJSON_CreateObject();
    char buf[4];
    cJSON_AddNumberToObject(obj, "x", p->x);
    cJSON_AddNumberToObject(obj, "y", p->y);
    if (rules_card_name(p->a, p->b, buf))
        cJSON_AddStringToObject(obj, "card", buf);
    if (p->c)
        cJSON_AddBoolToObject(obj, "face_down", true);
    return obj;
}

void rules__cards_piece_text(const rules_piece *p, char *buf, size_t n)
{
    char name[4];
    if (p->c)
        snprintf(buf, n, "a face-down card at (%d,%d)", p->x, p->y);
    else if (rules_card_name(p->a, p->b, name))
        snprintf(buf, n, "the %s at (%d,%d)", name, p->x, p->y);
    else
        snprintf(buf, n, "an unknown card at (%d,%d)", p->x, p->y);
}

static int cards__json_square(const cJSON *sq, rules_move *out, base_err *err)
{
    int16_t x, y, size;
    int rc;
    if (!cJSON_IsObject(sq))
        return base_err_set(err, BASE_EPARSE,
                            "\"square\" must be an object {\"x\":..,\"y\":..,\"size\":2|3}");
    if ((rc = rules__json_coord(sq, "x", &x, err)) != 0 ||
        (rc = rules__json_coord(sq, "y", &y, err)) != 0 ||
        (rc = rules__json_coord(sq, "size", &size, err)) != 0) {
        base_err_prefix(err, "\"square\": ");
        return rc;
    }
    if (size != 2 && size != 3)
        return base_err_set(err, BASE_EPARSE, "\"square\": \"size\" must be 2 or 3, not %d", size);
    out->square[0] = x;
    out->square[1] = y;
    out->square[2] = size;
    return 0;
}

int rules__cards_move_from_json(const cJSON *obj, rules_move *out, base_err *err)
{
    const cJSON *sq;
    int type, rc;
    if ((rc = rules__json_move_type(obj, (1u << RULES_MOVE_PLACE) | (1u << RULES_MOVE_PASS), &type,
                                    err)) != 0)
        return rc;
    out->type = type;
    if (type == RULES_MOVE_PASS)
        return 0; /* a pass places nothing: any "pieces" are ignored */
    if ((rc = rules__json_pieces(&rules__cards_engine, obj, out, err)) != 0)
        return rc;
    sq = cJSON_GetObjectItemCaseSensitive(obj, "square");
    if (sq && (rc = cards__json_square(sq, out, err)) != 0)
        return rc;
    return 0;
}

cJSON *rules__cards_move_to_json(const rules_move *m)
{
    cJSON *obj = cJSON_CreateObject();
    cJSON_AddStringToObject(obj, "type", rules__move_type_name(m->type));
    if (m->type == RULES_MOVE_PLACE) {
        cJSON *arr = cJSON_AddArrayToObject(obj, "pieces");
        for (int i = 0; i < m->npieces; i++)
            cJSON_AddItemToArray(arr, rules__cards_piece_to_json(&m->pieces[i]));
        if (m->square[2] > 0) {
            cJSON *sq = cJSON_AddObjectToObject(obj, "square");
            cJSON_AddNumberToObject(sq, "x", m->square[0]);
            cJSON_AddNumberToObject(sq, "y", m->square[1]);
            cJSON_AddNumberToObject(sq, "size", m->square[2]);
        }
    }
    return obj;
}

int rules__cards_hand_from_json(const cJSON *item, rules_piece *out, base_err *err)
{
    if (!cJSON_IsString(item))
        return base_err_set(err, BASE_EPARSE, "a card in \"hand\" must be a name such as \"7H\"");
    return cards__json_card(item->valuestring, "card", out, err);
}

cJSON *rules__cards_hand_to_json(const rules_piece *p)
{
    char buf[4];
    const char *name = rules_card_name(p->a, p->b, buf);
    return name ? cJSON_CreateString(name) : cJSON_CreateNull();
}

void rules__cards_verdict_extras(const rules_verdict *v, cJSON *obj)
{
    cJSON *arr;
    char buf[4];
    if (!v->legal || v->nextra <= 0)
        return;
    arr = cJSON_AddArrayToObject(obj, "captured");
    for (int i = 0; i < v->nextra; i++) {
        const char *name = rules_card_name(v->extra[i].a, v->extra[i].b, buf);
        cJSON_AddItemToArray(arr, name ? cJSON_CreateString(name) : cJSON_CreateNull());
    }
}
