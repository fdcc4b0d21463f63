/* bench/bench_rules_stack4.c: stack4 engine speed, each figure next to its
 * target: move validations per second, move generation time, the "does any
 * remaining piece fit" question (target: under 20 us on any position, one
 * core) and the solver's node rate.  Positions come from seeded random
 * games, so runs are comparable. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "rules.h"
#include "rules_play.h"
#include "stack4_internal.h"

#define BENCH_GAMES 300

/* One recorded position: the game (a clone) and a legal and a mangled
 * move of the player to move. */
typedef struct sample {
    rules_game *g;
    rules_move legal, illegal;
} sample;

int main(void)
{
    sample *S = calloc(16 * BENCH_GAMES, sizeof *S);
    rp_moves c = {0};
    int ns = 0, reps;
    double t0, t, worst = 0, sum = 0;
    long checks = 0, gens = 0, nmoves = 0, sink = 0;
    base_rng seed = {42};

    if (!S)
        return 1;
    /* Positions: every position of BENCH_GAMES random games, including
     * the final ones where nothing fits (the longest scan). */
    for (int gi = 0; gi < BENCH_GAMES; gi++) {
        rules_game *g;
        base_err err;
        if (rules_game_new("stack4", NULL, &err, &g) != 0) {
            fprintf(stderr, "bench_rules_stack4: %s\n", err.msg);
            return 1;
        }
        for (;;) {
            rules_status st;
            rules_verdict v;
            rules_game_status(g, &st);
            c.n = 0;
            if (!st.over)
                rules_generate(g, st.to_move, NULL, -1, rp_collect, &c);
            rules_game_clone(g, &S[ns].g);
            if (c.n > 0) {
                S[ns].legal = c.m[base_rng_below(&seed, c.n)];
                S[ns].illegal = S[ns].legal;
                S[ns].illegal.pieces[0].cells[0][2] += 1; /* a broken shape */
            }
            ns++;
            if (st.over || c.n == 0)
                break;
            rules_apply(g, st.to_move, &S[ns - 1].legal, &v);
        }
        rules_game_free(g);
    }

    /* 1. Validations. */
    t0 = base_now();
    for (reps = 0; base_now() - t0 < 1.0; reps++)
        for (int i = 0; i < ns; i++) {
            rules_status st;
            rules_verdict v;
            rules_game_status(S[i].g, &st);
            if (st.over)
                continue;
            rules_check(S[i].g, st.to_move, &S[i].legal, &v);
            rules_check(S[i].g, st.to_move, &S[i].illegal, &v);
            sink += v.legal;
            checks += 2;
        }
    t = base_now() - t0;
    printf("stack4 validations: %.0f moves/s (half legal, half illegal)   target: >= 100000/s\n",
           checks / t);

    /* 2. Generation of every legal move of the player to move. */
    t0 = base_now();
    for (reps = 0; base_now() - t0 < 1.0; reps++)
        for (int i = 0; i < ns; i++) {
            rules_status st;
            rules_game_status(S[i].g, &st);
            rules_generate(S[i].g, st.to_move, NULL, -1, rp_count, &nmoves);
            gens++;
        }
    t = base_now() - t0;
    printf("stack4 generation: %.2f us per position (%.0f moves on average)   target: < 1000 us\n",
           1e6 * t / gens, (double)nmoves / gens);

    /* 3. Can the player to move place anything?  Timed per position, many
     * repetitions each, best of 3 runs (so that another process taking the
     * core does not count); the worst position counts. */
    for (int i = 0; i < ns; i++) {
        const stack4_state *s = rules__stack4_state(S[i].g);
        double dt = 1e9;
        for (int run = 0; run < 3; run++) {
            double d;
            t0 = base_now();
            for (int r = 0; r < 1000; r++)
                sink += rules__stack4_can_move(s->t, s->occ, s->left[s->to_move], s->entry);
            d = (base_now() - t0) / 1000;
            if (d < dt)
                dt = d;
        }
        sum += dt;
        if (dt > worst)
            worst = dt;
    }
    printf("stack4 can-move: %.3f us worst, %.3f us mean over %d positions   target: < 20 us\n",
           1e6 * worst, 1e6 * sum / ns, ns);
    /* The bound for any position: a scan that never stops early, over the
     * placements of all 8 kinds (can-move never does more).  The board is
     * varied a little per repetition so that the compiler cannot hoist the
     * scan out of the loop. */
    worst = 0;
    for (int i = 0; i < ns; i++) {
        const stack4_state *s = rules__stack4_state(S[i].g);
        double dt = 1e9;
        for (int run = 0; run < 3; run++) {
            double d;
            t0 = base_now();
            for (int r = 0; r < 200; r++)
                for (int k = 0; k < s->t->nplace; k++)
                    sink += stack4__legal(&s->t->place[k], s->occ ^ (uint64_t)r, s->entry);
            d = (base_now() - t0) / 200;
            if (d < dt)
                dt = d;
        }
        if (dt > worst)
            worst = dt;
    }
    printf("stack4 can-move bound: %.3f us for a full scan of all %d placements (worst "
           "position)   target: < 20 us\n",
           1e6 * worst, rules__stack4_state(S[0].g)->t->nplace);

    /* 4. Solver node rate from positions six plies in. */
    {
        long long nodes = 0;
        double secs = 0;
        int solved = 0;
        for (int i = 0; i < ns && secs < 3.0; i++) {
            rules_status st;
            rules_stack4_solution sol;
            rules_game_status(S[i].g, &st);
            if (st.moves != 6)
                continue;
            if (rules_stack4_solve(S[i].g, 1.0, &sol) != 0)
                continue;
            nodes += sol.nodes;
            secs += sol.seconds;
            solved += sol.result != RULES_SOLVE_UNKNOWN;
        }
        printf("stack4 solver: %.0f nodes/s; %d positions after 6 plies solved within 1 s "
               "each   target: informative\n",
               secs > 0 ? nodes / secs : 0, solved);
    }

    for (int i = 0; i < ns; i++)
        rules_game_free(S[i].g);
    free(S);
    rp_moves_free(&c);
    return sink == -1;
}
