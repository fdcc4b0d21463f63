/* bench/bench_rules_cubed.c: speed of the cubed engine on one core.
 *
 * Figures, each next to its target (the referee's bar shared with the other
 * engines):
 *   validations/s   rules_check() of placements, half generated (legal),
 *                   half random pieces at random cells beside the table
 *                   (mostly illegal), on mid-game positions  >= 2,000,000/s
 *   generation      every legal (piece, cell, rotation) over all unseen
 *                   piece kinds (unknown hand), mean and worst  < 1 ms
 *   generation      a shown hand of 25 pieces                    < 1 ms
 *   clone           a deep copy of a game (info)
 *   whole rounds    a round played out with the generator (info)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "rules.h"
#include "rules_play.h"

#define NPOS 64
#define NCAND 64

static const int dq[6] = {1, 1, 0, -1, -1, 0};
static const int dr[6] = {-1, 0, 1, 1, 0, -1};

static rules_game *new_game(int nplayers)
{
    static const char *const heads[] = {
        "", "", "{\"game\":\"cubed\",\"players\":[\"a\",\"b\"]}",
        "{\"game\":\"cubed\",\"players\":[\"a\",\"b\",\"c\"]}",
        "{\"game\":\"cubed\",\"players\":[\"a\",\"b\",\"c\",\"d\"]}"};
    cJSON *h = cJSON_Parse(heads[nplayers]);
    rules_game *g = NULL;
    base_err err;
    if (rules_game_new("cubed", h, &err, &g) != 0) {
        fprintf(stderr, "bench_rules_cubed: %s\n", err.msg);
        exit(1);
    }
    cJSON_Delete(h);
    return g;
}

/* True once the round is over (hands are being revealed) or the game. */
static bool round_over(const rules_game *g)
{
    rules_status st;
    rules_verdict v;
    rules_move m;
    rules_game_status(g, &st);
    if (st.over)
        return true;
    rules_move_init(&m, RULES_MOVE_PASS);
    rules_check(g, st.to_move, &m, &v);
    return !v.legal && strcmp(v.rule, "reveal-pending") == 0;
}

/* One turn with unknown hands: a random placement, else draw (and try
 * again), else pass.  Returns the events applied. */
static int turn(rules_game *g, base_rng *r)
{
    rules_status st;
    rules_verdict v;
    rp_pick p = {.r = r};
    int events = 0;
    rules_game_status(g, &st);
    rules_generate(g, st.to_move, NULL, -1, rp_pick_one, &p);
    if (p.n == 0 && st.bag > 0) {
        rules_move m;
        rules_move_init(&m, RULES_MOVE_DRAW);
        rules_apply(g, st.to_move, &m, &v);
        events++;
        rules_generate(g, st.to_move, NULL, -1, rp_pick_one, &p);
    }
    if (p.n == 0)
        rules_move_init(&p.m, RULES_MOVE_PASS);
    rules_apply(g, st.to_move, &p.m, &v);
    return events + 1;
}

int main(void)
{
    base_rng r = {77};
    rules_game *pos[NPOS];
    rules_move *cand;
    int ncand = NPOS * NCAND, legal = 0, ntable = 0, mover[NPOS];
    long iters = 0, gen_moves = 0, gen_iters = 0, rounds = 0, events = 0;
    double t0, t, vps, gen_unknown, gen_worst = 0, gen_hand, clone_us, per_round;

    /* Mid-game positions: 15 to 40 events into random 2-4 player games. */
    for (int i = 0; i < NPOS; i++) {
        int want = 15 + base_rng_below(&r, 26);
        pos[i] = new_game(2 + base_rng_below(&r, 3));
        for (int e = 0; e < want && !round_over(pos[i]);)
            e += turn(pos[i], &r);
        if (round_over(pos[i])) { /* rare: start again */
            rules_game_free(pos[i]);
            i--;
            continue;
        }
        ntable += rules_position(pos[i], NULL, 0);
    }
    for (int i = 0; i < NPOS; i++) {
        rules_status st;
        rules_game_status(pos[i], &st);
        mover[i] = st.to_move;
    }

    /* Candidates: half generated, half random pieces beside the table. */
    cand = calloc((size_t)ncand, sizeof *cand);
    for (int i = 0; i < ncand; i++) {
        rules_game *g = pos[i % NPOS];
        rules_piece tab[128];
        int n = rules_position(g, tab, 128);
        if (i % 2 == 0) {
            rp_pick p = {.r = &r};
            rules_generate(g, mover[i % NPOS], NULL, -1, rp_pick_one, &p);
            cand[i] = p.m;
        } else {
            const rules_piece *near = &tab[base_rng_below(&r, n)];
            int e = base_rng_below(&r, 6), f[3];
            rules_move_init(&cand[i], RULES_MOVE_PLACE);
            cand[i].npieces = 1;
            cand[i].pieces[0] = *near;
            cand[i].pieces[0].x = (int16_t)(near->x + dq[e]);
            cand[i].pieces[0].y = (int16_t)(near->y + dr[e]);
            if (base_rng_below(&r, 10) == 0)
                cand[i].pieces[0].parity ^= 1;
            /* a random real piece: two to three random colours */
            f[0] = base_rng_below(&r, 6);
            f[1] = base_rng_below(&r, 3) ? base_rng_below(&r, 6) : f[0];
            f[2] = base_rng_below(&r, 8) == 0 ? RULES_WHITE : base_rng_below(&r, 6);
            cand[i].pieces[0].a = (uint8_t)f[0];
            cand[i].pieces[0].b = (uint8_t)f[1];
            cand[i].pieces[0].c = (uint8_t)f[2];
        }
    }

    iters = 0;
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
    {
        double frac = (double)legal / (double)iters;
        legal = (int)(frac * 100.0 + 0.5);
    }

    /* The worst position by its mean time: single calls on a shared machine
     * are at the mercy of the scheduler. */
    {
        double spent[NPOS] = {0};
        long reps = 0;
        iters = 0;
        t0 = base_now();
        do {
            for (int i = 0; i < NPOS; i++) {
                double s = base_now();
                rules_generate(pos[i], mover[i], NULL, -1, rp_count, &gen_moves);
                spent[i] += base_now() - s;
            }
            iters += NPOS;
            reps++;
        } while ((t = base_now() - t0) < 0.5);
        gen_unknown = t / (double)iters * 1e3;
        gen_iters = iters;
        for (int i = 0; i < NPOS; i++)
            if (spent[i] / (double)reps > gen_worst)
                gen_worst = spent[i] / (double)reps;
        gen_worst *= 1e3;
    }

    {
        rules_piece hand[25];
        long n = 0;
        for (int i = 0; i < 25; i++) {
            memset(&hand[i], 0, sizeof hand[i]);
            hand[i].a = (uint8_t)base_rng_below(&r, 6);
            hand[i].b = (uint8_t)(base_rng_below(&r, 2) ? base_rng_below(&r, 6) : hand[i].a);
            hand[i].c = (uint8_t)(base_rng_below(&r, 6) == 0 ? RULES_WHITE : base_rng_below(&r, 6));
        }
        iters = 0;
        t0 = base_now();
        do {
            for (int i = 0; i < NPOS; i++)
                rules_generate(pos[i], mover[i], hand, 25, rp_count, &n);
            iters += NPOS;
        } while ((t = base_now() - t0) < 0.5);
        gen_hand = t / (double)iters * 1e3;
    }

    iters = 0;
    t0 = base_now();
    do {
        for (int i = 0; i < NPOS; i++) {
            rules_game *c;
            if (rules_game_clone(pos[i], &c) == 0)
                rules_game_free(c);
        }
        iters += NPOS;
    } while ((t = base_now() - t0) < 0.3);
    clone_us = t / (double)iters * 1e6;

    t0 = base_now();
    do {
        rules_game *g = new_game(2 + base_rng_below(&r, 3));
        while (!round_over(g))
            events += turn(g, &r);
        rounds++;
        rules_game_free(g);
    } while ((t = base_now() - t0) < 0.5);
    per_round = t / (double)rounds * 1e3;

    printf("cubed: mid-game positions: %d, %.1f pieces on the table on average\n", NPOS,
           (double)ntable / NPOS);
    printf("validations/s            %12.0f    target >= 2000000  %s  (%d%% of them legal)\n",
           vps, vps >= 2e6 ? "PASS" : "MISS", legal);
    printf("generate, unknown hand   %12.4f ms target < 1 ms     %s  (worst %.4f ms, %.0f moves "
           "a position)\n",
           gen_unknown, gen_unknown < 1.0 && gen_worst < 1.0 ? "PASS" : "MISS", gen_worst,
           (double)gen_moves / (double)gen_iters);
    printf("generate, hand of 25     %12.4f ms target < 1 ms     %s\n", gen_hand,
           gen_hand < 1.0 ? "PASS" : "MISS");
    printf("clone                    %12.2f us (info)\n", clone_us);
    printf("whole random rounds      %12.3f ms a round, %.1f events a round (info)\n", per_round,
           (double)events / (double)rounds);

    for (int i = 0; i < NPOS; i++)
        rules_game_free(pos[i]);
    free(cand);
    return 0;
}
