/* tests/rules_play.c: random games and their records for the rules
 * engines' tests and benches (see rules_play.h). */
#include "rules_play.h"

#include <stdlib.h>
#include <string.h>

int rp_collect(void *ctx, const rules_move *m)
{
    rp_moves *l = ctx;
    if (l->n == l->cap) {
        int cap = l->cap ? l->cap * 2 : 64;
        rules_move *nm = realloc(l->m, sizeof *nm * (size_t)cap);
        if (!nm) {
            free(l->m);
            l->m = NULL;
            l->n = l->cap = 0;
            return 1;
        }
        l->m = nm;
        l->cap = cap;
    }
    l->m[l->n++] = *m;
    return 0;
}

void rp_moves_free(rp_moves *l)
{
    free(l->m);
    l->m = NULL;
    l->n = l->cap = 0;
}

int rp_count(void *ctx, const rules_move *m)
{
    (void)m;
    ++*(long *)ctx;
    return 0;
}

int rp_pick_one(void *ctx, const rules_move *m)
{
    rp_pick *p = ctx;
    if (base_rng_below(p->r, ++p->n) == 0)
        p->m = *m;
    return 0;
}

int rp_play_random(rules_game *g, base_rng *r, int nmoves)
{
    int played = 0;
    while (played < nmoves) {
        rules_status st;
        rules_verdict v;
        rp_pick p = {.r = r};
        rules_game_status(g, &st);
        if (st.over)
            break;
        rules_generate(g, st.to_move, NULL, -1, rp_pick_one, &p);
        if (p.n == 0 || rules_apply(g, st.to_move, &p.m, &v) != 0 || !v.legal)
            break;
        played++;
    }
    return played;
}

int rp_record_line(rp_record *rec, const char *line)
{
    size_t n = strlen(line);
    if (rec->len + n + 2 > rec->cap) {
        size_t cap = (rec->len + n + 2) * 2;
        char *nt = realloc(rec->text, cap);
        if (!nt)
            return BASE_ENOMEM;
        rec->text = nt;
        rec->cap = cap;
    }
    memcpy(rec->text + rec->len, line, n);
    rec->len += n;
    rec->text[rec->len++] = '\n';
    rec->text[rec->len] = '\0';
    return 0;
}

char *rp_event_line(const char *game, int player, const rules_move *m)
{
    cJSON *ev, *mv = rules_move_to_json(game, m);
    char *text;
    if (!mv)
        return NULL;
    ev = cJSON_CreateObject();
    cJSON_AddNumberToObject(ev, "player", player);
    cJSON_AddItemToObject(ev, "move", mv);
    text = cJSON_PrintUnformatted(ev);
    cJSON_Delete(ev);
    return text;
}

int rp_record_event(rp_record *rec, const char *game, int player, const rules_move *m)
{
    char *line = rp_event_line(game, player, m);
    int rc;
    if (!line)
        return BASE_EINVAL;
    rc = rp_record_line(rec, line);
    free(line);
    return rc;
}
