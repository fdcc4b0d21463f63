/* bench/bench_rules_cards.c: speed of the cards engine on one core.
 *
 * Figures, each next to its target (the referee's bar shared with the other
 * grid engines):
 *   validations/s   rules_check() of mixed legal and illegal placements on
 *                   mid-game positions                       >= 2,000,000/s
 *   generation      every legal (card, cell) for an unknown hand (all the
 *                   unseen cards), mid-game                  < 1 ms
 *   generation      a shown hand of 6 cards                  < 1 ms
 *   whole games     random games played out with the generator (info only)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "rules.h"
#include "rules_play.h"

#define NPOS 64

static rules_game *new_game(int card)
{
    char name[4], text[160];
    cJSON *h;
    rules_game *g = NULL;
    base_err err;
    snprintf(text, sizeof text,
             "{\"game\":\"cards\",\"players\":[\"a\",\"b\"],\"start\":{\"x\":0,\"y\":0,"
             "\"card\":\"%s\"}}",
             rules_card_name(card % 13 + 1, card / 13, name));
    h = cJSON_Parse(text);
    if (rules_game_new("cards", h, &err, &g) != 0) {
        fprintf(stderr, "bench_rules_cards: %s\n", err.msg);
        exit(1);
    }
    cJSON_Delete(h);
    return g;
}

int main(void)
{
    base_rng r = {2024};
    rules_game *pos[NPOS];
    rules_move *cand;
    int ncand = 4096, legal = 0, nboard = 0, mover[NPOS];
    long iters = 0, checks = 0, gen_moves = 0, gen_iters = 0, games = 0, events = 0;
    double t0, t, vps, gen_unknown, gen_hand, per_game;

    /* Mid-game positions: 20 moves into random games. */
    for (int i = 0; i < NPOS; i++) {
        pos[i] = new_game(base_rng_below(&r, 52));
        rp_play_random(pos[i], &r, 20);
        nboard += rules_position(pos[i], NULL, 0);
    }
    for (int i = 0; i < NPOS; i++) {
        rules_status st;
        rules_game_status(pos[i], &st);
        mover[i] = st.to_move;
    }

    /* Candidates: random cards at random cells around the board. */
    cand = calloc((size_t)ncand, sizeof *cand);
    for (int i = 0; i < ncand; i++) {
        rules_game *g = pos[i % NPOS];
        rules_piece p[64];
        int n = rules_position(g, p, 64), k = n > 0 ? base_rng_below(&r, n) : 0;
        rules_move_init(&cand[i], RULES_MOVE_PLACE);
        cand[i].npieces = 1;
        cand[i].pieces[0].x = (int16_t)((n ? p[k].x : 0) + base_rng_below(&r, 3) - 1);
        cand[i].pieces[0].y = (int16_t)((n ? p[k].y : 0) + base_rng_below(&r, 3) - 1);
        cand[i].pieces[0].a = (uint8_t)(1 + base_rng_below(&r, 13));
        cand[i].pieces[0].b = (uint8_t)base_rng_below(&r, 4);
        cand[i].pieces[0].owner = -1;
    }

    t0 = base_now();
    do {
        for (int i = 0; i < ncand; i++) {
            rules_verdict v;
            rules_check(pos[i % NPOS], mover[i % NPOS], &cand[i], &v);
            legal += v.legal;
        }
        iters += ncand;
    } while ((t = base_now() - t0) < 1.0);
    vps = (double)iters / t;
    checks = iters;

    iters = 0;
    t0 = base_now();
    do {
        for (int i = 0; i < NPOS; i++) {
            rules_status st;
            rules_game_status(pos[i], &st);
            rules_generate(pos[i], st.to_move, NULL, -1, rp_count, &gen_moves);
        }
        iters += NPOS;
    } while ((t = base_now() - t0) < 0.5);
    gen_unknown = t / (double)iters * 1e3;
    gen_iters = iters;

    {
        rules_piece hand[6];
        long n = 0;
        for (int i = 0; i < 6; i++) {
            memset(&hand[i], 0, sizeof hand[i]);
            hand[i].a = (uint8_t)(1 + base_rng_below(&r, 13));
            hand[i].b = (uint8_t)base_rng_below(&r, 4);
        }
        iters = 0;
        t0 = base_now();
        do {
            for (int i = 0; i < NPOS; i++) {
                rules_status st;
                rules_game_status(pos[i], &st);
                rules_generate(pos[i], st.to_move, hand, 6, rp_count, &n);
            }
            iters += NPOS;
        } while ((t = base_now() - t0) < 0.5);
        gen_hand = t / (double)iters * 1e3;
    }

    t0 = base_now();
    do {
        rules_game *g = new_game(base_rng_below(&r, 52));
        rules_status st;
        rp_play_random(g, &r, 1000);
        rules_game_status(g, &st);
        events += st.moves;
        games++;
        rules_game_free(g);
    } while ((t = base_now() - t0) < 0.5);
    per_game = t / (double)games * 1e3;

    printf("cards: mid-game positions: %d, %.1f cards on the table on average\n", NPOS,
           (double)nboard / NPOS);
    printf("validations/s            %12.0f    target >= 2000000  %s  (%.0f%% of them legal)\n",
           vps, vps >= 2e6 ? "PASS" : "MISS", 100.0 * legal / (double)checks);
    printf("generate, unknown hand   %12.4f ms target < 1 ms     %s  (%.0f moves a position)\n",
           gen_unknown, gen_unknown < 1.0 ? "PASS" : "MISS", (double)gen_moves / (double)gen_iters);
    printf("generate, hand of 6      %12.4f ms target < 1 ms     %s\n", gen_hand,
           gen_hand < 1.0 ? "PASS" : "MISS");
    printf("whole random games       %12.3f ms a game, %.1f events a game (info)\n", per_game,
           (double)events / (double)games);

    for (int i = 0; i < NPOS; i++)
        rules_game_free(pos[i]);
    free(cand);
    return 0;
}
