/* ui/watch_int.h: the parts of `watch` that are plain functions of what
 * they are given (a line typed, the question open), shared by watch.c and
 * watch_keys.c and tested alone by tests/test_ui_watch.c.  Nothing here
 * is seen outside ui/. */
#ifndef TABLECAM_UI_WATCH_INT_H
#define TABLECAM_UI_WATCH_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "base.h"
#include "referee.h"

/* What a line typed asks for. */
enum ui__key_kind {
    UI__KEY_EMPTY = 0, /* nothing typed */
    UI__KEY_ACTION,    /* a word: p, r, d, u, pass, ... (watch.c tells whether the game has it) */
    UI__KEY_CORRECT,   /* c MOVE / correct MOVE */
    UI__KEY_ANSWER,    /* a number answering the open question */
    UI__KEY_REFUSED    /* a number that answers nothing: msg says why */
};

typedef struct ui__key {
    int kind;
    char word[32];         /* ACTION: the word as typed */
    int player;            /* ACTION: 0-based seat ("r 2": 1), -1 the player to move */
    const char *move_json; /* CORRECT: the move's JSON inside the line, NULL when none */
    int question;          /* ANSWER: the question's id */
    int answer;            /* ANSWER: ref_answer()'s answer (0-based, or REF_ANSWER_NONE) */
    char msg[sizeof ((base_err *)0)->msg]; /* REFUSED: one line for the players */
} ui__key;

/* Parses one line typed on the terminal.  A number answers the question
 * open (open; NULL when none is): 1 .. nanswers pick answer[k-1], 0 "no
 * piece there" when the question offers it.  A number with no question
 * open, or one it does not offer, is REFUSED with msg ("no question is
 * open", "question 3 has answers 1-2 and 0").  line is not changed and
 * must outlive out (move_json points into it). */
void ui__watch_parse_key(const char *line, const ref_question *open, ui__key *out);

/* Whether answer (ref_answer()'s: 0-based, or REF_ANSWER_NONE) to
 * question id fits q, the question open (NULL: none): 0; BASE_ESTATE when
 * id is not open (err names the open one, or says none is); BASE_ERANGE
 * for an answer q does not offer (err lists those it does: as the
 * terminal's keys number them when keys, else as the web API does). */
int ui__watch_check_answer(const ref_question *q, int id, int answer, bool keys, base_err *err);

/* The answers of q as the terminal offers them, for the line after the
 * event's: "  answer: 1 purple clover (55 %)  2 purple diamond (30 %)  0
 * no cube there" (0 only when q->none; "cube" for qwirkle, "card" for
 * cards, "piece" otherwise).  Returns buf. */
const char *ui__watch_answers_line(const char *game, const ref_question *q, char *buf, size_t n);

#endif
