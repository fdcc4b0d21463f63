/* bench/bench_rules_cube2.c: speed of the cube2 engine on one core.
 *
 * Figures, each next to its target (the referee's bar shared with the grid
 * engines):
 *   validations/s   rules_check() of mixed legal and illegal (from, to)
 *                   moves on mid-game positions            >= 2,000,000/s
 *   generation      every legal move of the player to move,
 *                   mid-game (mean and worst)              < 1 ms
 *   whole games     random games played out with the generator (info only)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "rules.h"
#include "rules_play.h"

#define NPOS 128
#define NCAND 64

/* A two-player game on the default 6x6 board with a random setup. */
static rules_game *new_game(base_rng *r)
{
    cJSON *h = cJSON_CreateObject(), *players, *setup;
    int squares[36], n = 0;
    rules_game *g = NULL;
    base_err err;
    cJSON_AddStringToObject(h, "game", "cube2");
    players = cJSON_AddArrayToObject(h, "players");
    cJSON_AddItemToArray(players, cJSON_CreateString("a"));
    cJSON_AddItemToArray(players, cJSON_CreateString("b"));
    setup = cJSON_AddArrayToObject(h, "setup");
    for (int sq = 0; sq < 36; sq++)
        if (sq != 5 * 6 + 3 && sq != 2)
            squares[n++] = sq;
    for (int i = n - 1; i > 0; i--) {
        int j = base_rng_below(r, i + 1), t = squares[i];
        squares[i] = squares[j];
        squares[j] = t;
    }
    for (int i = 0; i < 24; i++) {
        rules_piece p = {.x = (int16_t)(squares[i] % 6), .y = (int16_t)(squares[i] / 6),
                         .a = (uint8_t)(i / 4), .b = (uint8_t)((i / 2) % 2)};
        cJSON_AddItemToArray(setup, rules_piece_to_json("cube2", &p));
    }
    if (rules_game_new("cube2", h, &err, &g) != 0) {
        fprintf(stderr, "bench_rules_cube2: %s\n", err.msg);
        exit(1);
    }
    cJSON_Delete(h);
    return g;
}

int main(void)
{
    base_rng r = {.s = 20240601};
    rules_game *pos[NPOS];
    rules_move *cand = malloc(sizeof *cand * NPOS * NCAND);
    int legal = 0;
    double t0, t1, worst = 0, sum = 0;
    long checks = 0, generated = 0, gens = 0;

    /* Mid-game positions: 10 to 60 random moves into random games. */
    for (int i = 0; i < NPOS; i++) {
        int k = 10 + base_rng_below(&r, 51);
        pos[i] = new_game(&r);
        rp_play_random(pos[i], &r, k);
    }
    /* Candidates: half generated (legal), half any (from, to) on the board
     * or "off" (mostly illegal, for every reason). */
    for (int i = 0; i < NPOS; i++) {
        rules_status st;
        rules_game_status(pos[i], &st);
        for (int c = 0; c < NCAND; c++) {
            rules_move *m = &cand[i * NCAND + c];
            if (c % 2 == 0) {
                rp_pick p = {.r = &r};
                rules_generate(pos[i], st.to_move, NULL, -1, rp_pick_one, &p);
                *m = p.m;
            } else {
                rules_move_init(m, RULES_MOVE_MOVE);
                m->from[0] = (int16_t)base_rng_below(&r, 6);
                m->from[1] = (int16_t)base_rng_below(&r, 6);
                if (base_rng_below(&r, 8) == 0) {
                    m->to_off = true;
                } else {
                    m->to[0] = (int16_t)base_rng_below(&r, 6);
                    m->to[1] = (int16_t)base_rng_below(&r, 6);
                }
            }
        }
    }

    t0 = base_now();
    do {
        for (int i = 0; i < NPOS; i++) {
            rules_status st;
            rules_game_status(pos[i], &st);
            for (int c = 0; c < NCAND; c++) {
                rules_verdict v;
                rules_check(pos[i], st.to_move, &cand[i * NCAND + c], &v);
                legal += v.legal;
                checks++;
            }
        }
        t1 = base_now();
    } while (t1 - t0 < 1.0);
    {
        double rate = (double)checks / (t1 - t0);
        printf("validations/s        %12.0f   target >= 2,000,000/s  %s  (%.0f%% legal)\n", rate,
               rate >= 2e6 ? "PASS" : "MISS", 100.0 * legal / (double)checks);
    }

    /* Each position's time is its best of 20 runs, so that another process
     * taking the core does not count against the engine. */
    for (int i = 0; i < NPOS; i++) {
        double best = 1e9;
        for (int k = 0; k < 20; k++) {
            rules_status st;
            double a = base_now(), b;
            long n = 0;
            rules_game_status(pos[i], &st);
            rules_generate(pos[i], st.to_move, NULL, -1, rp_count, &n);
            b = base_now();
            if (b - a < best)
                best = b - a;
        }
        if (best > worst)
            worst = best;
        sum += best;
        {
            rules_status st;
            rules_game_status(pos[i], &st);
            rules_generate(pos[i], st.to_move, NULL, -1, rp_count, &generated);
            gens++;
        }
    }
    {
        double mean = sum / (double)gens;
        printf("generation mean      %9.2f us   target < 1 ms          %s  (%.1f moves a "
               "position)\n",
               mean * 1e6, mean < 1e-3 ? "PASS" : "MISS", (double)generated / (double)gens);
        printf("generation worst     %9.2f us   target < 1 ms          %s\n", worst * 1e6,
               worst < 1e-3 ? "PASS" : "MISS");
    }

    {
        int games = 0, moves = 0;
        t0 = base_now();
        for (int i = 0; i < 50; i++) {
            rules_game *g = new_game(&r);
            moves += rp_play_random(g, &r, 2000);
            games++;
            rules_game_free(g);
        }
        t1 = base_now();
        printf("random games         %9.2f ms a game of up to 2000 moves (%d moves, info only)\n",
               (t1 - t0) * 1e3 / games, moves);
    }

    for (int i = 0; i < NPOS; i++)
        rules_game_free(pos[i]);
    free(cand);
    return 0;
}
