/* bench/bench_rules_qwirkle.c: speed of the qwirkle engine, one core.
 *
 *   validations/s  rules_check() on mid-game positions (about 60 cubes
 *                  down), candidates half legal (from the generator) and
 *                  half random placements near the board (mostly illegal);
 *                  target >= 2,000,000/s
 *   generation     rules_generate() of every placement of a 6-cube hand on
 *                  a 60-cube board; target < 1 ms each (mean and worst)
 *
 * Positions come from seeded random games played with the generator, so
 * the work is reproducible.  Times are the thread's CPU time, so that other
 * processes on a shared machine do not count; the generation figure is
 * judged on its 99th percentile (the worst single run is printed too). */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base.h"
#include "rules.h"
#include "rules_play.h"

#define NPOS 16
#define NCAND 4096

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* A table with a real bag and hands. */
typedef struct table {
    rules_game *g;
    int bag[6], nbag;
    rules_piece hand[2][6];
    int nh[2];
    base_rng r;
} table;

static void draw1(table *t, int p)
{
    int k = base_rng_below(&t->r, t->nbag), c = 0;
    rules_piece *q = &t->hand[p][t->nh[p]++];
    while (k >= t->bag[c])
        k -= t->bag[c++];
    t->bag[c]--;
    t->nbag--;
    memset(q, 0, sizeof *q);
    q->a = (uint8_t)c;
    q->b = (uint8_t)base_rng_below(&t->r, 6);
    q->owner = -1;
}

/* Plays random generated moves until about `cubes` are down; returns the
 * number on the table. */
static int play_to(table *t, uint64_t seed, int cubes)
{
    base_err err;
    memset(t, 0, sizeof *t);
    t->r.s = seed;
    if (rules_game_new("qwirkle", NULL, &err, &t->g) != 0) {
        fprintf(stderr, "bench_rules_qwirkle: %s\n", err.msg);
        exit(1);
    }
    for (int c = 0; c < 6; c++)
        t->bag[c] = 15;
    t->nbag = 90;
    for (int p = 0; p < 2; p++)
        for (int i = 0; i < 6; i++)
            draw1(t, p);
    for (int turn = 0; turn < 1000 && rules_position(t->g, NULL, 0) < cubes; turn++) {
        rules_status st;
        rules_verdict v;
        rp_pick pk = {.r = &t->r};
        int p;
        rules_game_status(t->g, &st);
        if (st.over)
            break;
        p = st.to_move;
        rules_generate(t->g, p, t->hand[p], t->nh[p], rp_pick_one, &pk);
        if (pk.n > 0 && pk.m.npieces + rules_position(t->g, NULL, 0) <= cubes + 2) {
            rules_apply(t->g, p, &pk.m, &v);
            for (int i = 0; i < pk.m.npieces; i++)
                for (int j = 0; j < t->nh[p]; j++)
                    if (t->hand[p][j].a == pk.m.pieces[i].a &&
                        t->hand[p][j].b == pk.m.pieces[i].b) {
                        t->hand[p][j] = t->hand[p][--t->nh[p]];
                        break;
                    }
            for (int i = 0; i < pk.m.npieces && t->nbag > 0; i++)
                draw1(t, p);
        } else {
            rules_move m;
            rules_move_init(&m, RULES_MOVE_REROLL);
            rules_apply(t->g, p, &m, &v);
            for (int j = 0; j < t->nh[p]; j++)
                t->hand[p][j].b = (uint8_t)base_rng_below(&t->r, 6);
        }
    }
    return rules_position(t->g, NULL, 0);
}

/* A random placement of k hand cubes along a line near a cube on the
 * table: the kind of candidate a camera might propose. */
static void random_candidate(table *t, int p, rules_move *m)
{
    rules_piece pos[96];
    int npos = rules_position(t->g, pos, 96), k = 1 + base_rng_below(&t->r, t->nh[p]);
    int axis = base_rng_below(&t->r, 2), step = 1 + (base_rng_below(&t->r, 4) == 0);
    const rules_piece *a = &pos[base_rng_below(&t->r, npos)];
    int x = a->x + base_rng_below(&t->r, 5) - 2, y = a->y + base_rng_below(&t->r, 5) - 2;
    rules_move_init(m, RULES_MOVE_PLACE);
    for (int i = 0; i < k; i++) {
        m->pieces[i] = t->hand[p][i];
        m->pieces[i].x = (int16_t)(axis == 0 ? x + i * step : x);
        m->pieces[i].y = (int16_t)(axis == 0 ? y : y + i * step);
    }
    m->npieces = k;
}

int main(void)
{
    static table tables[NPOS];
    static rules_move cand[NPOS][NCAND];
    static double times[50 * NPOS];
    long legal = 0, total = 0, gens = 0, moves = 0;
    double t0, dt, rate, worst = 0, sum = 0;
    int cubes = 0;

    for (int i = 0; i < NPOS; i++) {
        table *t = &tables[i];
        rules_status st;
        rp_pick pk;
        int p;
        cubes += play_to(t, 1000 + (uint64_t)i, 60);
        rules_game_status(t->g, &st);
        p = st.to_move;
        /* Half legal (generator), half random; the hand is not shown, as
         * when the camera judges a move it sees. */
        for (int j = 0; j < NCAND; j++) {
            memset(&pk, 0, sizeof pk);
            pk.r = &t->r;
            if (j % 2 == 0 && rules_generate(t->g, p, t->hand[p], t->nh[p], rp_pick_one, &pk) > 0)
                cand[i][j] = pk.m;
            else
                random_candidate(t, p, &cand[i][j]);
            cand[i][j].nhand = -1;
        }
    }

    /* Validations. */
    t0 = base_cpu_now();
    for (int round = 0; round < 40; round++)
        for (int i = 0; i < NPOS; i++) {
            rules_status st;
            rules_game_status(tables[i].g, &st);
            for (int j = 0; j < NCAND; j++) {
                rules_verdict v;
                rules_check(tables[i].g, st.to_move, &cand[i][j], &v);
                legal += v.legal;
                total++;
            }
        }
    dt = base_cpu_now() - t0;
    rate = (double)total / dt;
    printf("qwirkle positions: %d, mean %.1f cubes on the table\n", NPOS, (double)cubes / NPOS);
    printf("validations/s: %.0f (%ld checks, %.0f%% legal)  target >= 2000000  %s\n", rate, total,
           100.0 * (double)legal / (double)total, rate >= 2e6 ? "PASS" : "MISS");

    /* Generation of every placement of a 6-cube hand. */
    for (int round = 0; round < 50; round++)
        for (int i = 0; i < NPOS; i++) {
            table *t = &tables[i];
            rules_status st;
            long c = 0;
            double one;
            int p;
            rules_game_status(t->g, &st);
            p = st.to_move;
            if (t->nh[p] != 6)
                continue;
            t0 = base_cpu_now();
            rules_generate(t->g, p, t->hand[p], 6, rp_count, &c);
            one = base_cpu_now() - t0;
            times[gens] = one;
            sum += one;
            if (one > worst)
                worst = one;
            gens++;
            moves += c;
        }
    if (gens > 0) {
        double p99;
        qsort(times, (size_t)gens, sizeof times[0], cmp_double);
        p99 = times[(gens * 99) / 100];
        printf("generation of all placements of a 6-cube hand on ~60 cubes: mean %.3f ms, p99 "
               "%.3f ms, worst %.3f ms (%ld runs, %.1f placements each)  target < 1 ms  %s\n",
               1e3 * sum / (double)gens, 1e3 * p99, 1e3 * worst, gens,
               (double)moves / (double)gens, p99 < 1e-3 ? "PASS" : "MISS");
    }
    /* A hard hand: six shapes of one colour, the most orders to try. */
    {
        double hsum = 0, hworst = 0;
        long hgens = 0, hmoves = 0;
        for (int round = 0; round < 20; round++)
            for (int i = 0; i < NPOS; i++) {
                table *t = &tables[i];
                rules_piece hand[6];
                rules_status st;
                long c = 0;
                double one;
                rules_game_status(t->g, &st);
                if (t->nh[st.to_move] != 6)
                    continue;
                for (int j = 0; j < 6; j++) {
                    memset(&hand[j], 0, sizeof hand[j]);
                    hand[j].a = (uint8_t)(i % 6);
                    hand[j].b = (uint8_t)j;
                    hand[j].owner = -1;
                }
                t0 = base_cpu_now();
                rules_generate(t->g, st.to_move, hand, 6, rp_count, &c);
                one = base_cpu_now() - t0;
                hsum += one;
                if (one > hworst)
                    hworst = one;
                hgens++;
                hmoves += c;
            }
        if (hgens > 0)
            printf("generation, hand of six shapes of one colour: mean %.3f ms, worst %.3f ms "
                   "(%.1f placements each)  target < 1 ms  %s\n",
                   1e3 * hsum / (double)hgens, 1e3 * hworst, (double)hmoves / (double)hgens,
                   hsum / (double)hgens < 1e-3 ? "PASS" : "MISS");
    }
    for (int i = 0; i < NPOS; i++)
        rules_game_free(tables[i].g);
    return 0;
}
