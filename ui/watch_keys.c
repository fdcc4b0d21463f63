/* ui/watch_keys.c: the lines typed into `watch` and the referee's
 * question on the terminal: what a line asks for, whether an answer fits
 * the question open, and the answers offered after the event line. */
#define _POSIX_C_SOURCE 200809L
#include "watch_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The answers of q in words, numbered as the terminal's keys (1.., and 0
 * for none) or as the web API (0.., and -1). */
static void ui__answers_range(const ref_question *q, bool keys, char *buf, size_t n)
{
    int first = keys ? 1 : 0, last = first + q->nanswers - 1;
    if (q->nanswers <= 0)
        snprintf(buf, n, "no answers");
    else if (q->nanswers == 1)
        snprintf(buf, n, "answer %d", first);
    else
        snprintf(buf, n, "answers %d-%d", first, last);
    if (q->none) {
        size_t k = strlen(buf);
        snprintf(buf + k, n - k, keys ? " and 0" : " and %d (no piece there)", REF_ANSWER_NONE);
    }
}

int ui__watch_check_answer(const ref_question *q, int id, int answer, bool keys, base_err *err)
{
    char range[64];
    if (!q)
        return base_err_set(err, BASE_ESTATE, keys ? "no question is open"
                                                   : "question %d is not open (no question is)",
                            id);
    if (id != q->id)
        return base_err_set(err, BASE_ESTATE, "question %d is not open (question %d is)", id,
                            q->id);
    if ((answer == REF_ANSWER_NONE && q->none) ||
        (answer >= 0 && answer < q->nanswers && answer < REF_MAX_ANSWERS))
        return 0;
    ui__answers_range(q, keys, range, sizeof range);
    return base_err_set(err, BASE_ERANGE, "question %d has %s", q->id, range);
}

void ui__watch_parse_key(const char *line, const ref_question *open, ui__key *out)
{
    char word[32] = "";
    int player = 0, n = sscanf(line, "%31s %d", word, &player);
    memset(out, 0, sizeof *out);
    out->player = -1;
    if (n < 1)
        return; /* UI__KEY_EMPTY */
    if (word[strspn(word, "0123456789")] == '\0') {
        /* A number: 1.. an answer, 0 none; more than two digits is no answer at all. */
        long k = strlen(word) <= 2 ? strtol(word, NULL, 10) : 100;
        base_err err;
        int answer = k == 0 ? REF_ANSWER_NONE : (int)k - 1;
        if (ui__watch_check_answer(open, open ? open->id : 0, answer, true, &err) != 0) {
            out->kind = UI__KEY_REFUSED;
            snprintf(out->msg, sizeof out->msg, "%s", err.msg);
            return;
        }
        out->kind = UI__KEY_ANSWER;
        out->question = open->id;
        out->answer = answer;
        return;
    }
    snprintf(out->word, sizeof out->word, "%s", word);
    if (!strcmp(word, "c") || !strcmp(word, "correct")) {
        out->kind = UI__KEY_CORRECT;
        out->move_json = strchr(line, '{');
        return;
    }
    out->kind = UI__KEY_ACTION;
    out->player = n == 2 ? player - 1 : -1;
}

const char *ui__watch_answers_line(const char *game, const ref_question *q, char *buf, size_t n)
{
    const char *noun = !game ? "piece" : !strcmp(game, "qwirkle") ? "cube"
                                     : !strcmp(game, "cards")     ? "card"
                                                                  : "piece";
    size_t k;
    snprintf(buf, n, "  answer:");
    for (int i = 0; i < q->nanswers && i < REF_MAX_ANSWERS; i++) {
        k = strlen(buf);
        snprintf(buf + k, n - k, " %s%d %.*s (%ld %%)", i ? " " : "", i + 1,
                 (int)sizeof q->label[i], q->label[i], lround(q->p[i] * 100.0));
    }
    if (q->none) {
        k = strlen(buf);
        snprintf(buf + k, n - k, "  0 no %s there", noun);
    }
    return buf;
}
