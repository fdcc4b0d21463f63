/* rules/stack4_solve.c: the stack4 solver behind `referee --solve`.
 *
 * Negamax with alpha-beta over the values loss -1, draw 0, win +1 (draws
 * only exist with option all-placed=draw), and a transposition table.  A
 * position is keyed by the occupancy board and the two sets of remaining
 * pieces, the mover's first: who owns which cube never changes what can be
 * placed later, and the game is the same for both colours, so one key
 * serves every transposition, whichever colour is to move.
 *
 * Before searching any child the solver looks for a placement after which
 * the opponent is stuck (one cheap "can move" scan per child): a won
 * position is usually won that way, and it is found without recursion. */
#include "stack4_internal.h"

#include <stdlib.h>
#include <string.h>

enum { STACK4__EMPTY, STACK4__EXACT, STACK4__LOWER, STACK4__UPPER };

typedef struct stack4_tt {
    uint64_t occ;
    uint16_t left; /* mover's kinds | opponent's kinds << 8 */
    int8_t value;
    uint8_t flag;
} stack4_tt;

/* A child of a node: its placement and the opponent's replies to it. */
typedef struct stack4_child {
    int16_t place;
    int16_t replies;
} stack4_child;

typedef struct stack4_solver {
    const stack4_tables *t;
    int entry, full;
    stack4_tt *tt;
    size_t tt_mask;
    long long nodes;
    double deadline;
    int stop;
    int depth;          /* plies below the root */
    stack4_child *kids; /* each depth's children: depth * nplace + i */
} stack4_solver;

static size_t stack4__hash(uint64_t occ, unsigned left)
{
    uint64_t h = occ ^ ((uint64_t)left * 0x9e3779b97f4a7c15ull);
    h ^= h >> 31;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 29;
    return (size_t)h;
}

/* The value with no legal placement: a loss, unless the board is full and
 * the game calls that a draw. */
static int stack4__stuck_value(const stack4_solver *S, unsigned me)
{
    return me == 0 && S->full == STACK4_FULL_DRAW ? 0 : -1;
}

/* Above this many pieces left in all, children are searched in the order
 * of the opponent's number of replies, fewest first: a position where the
 * opponent is cramped is more often won, and a won child found early cuts
 * the rest.  Near the leaves counting costs more than it saves. */
#define STACK4__ORDER_MIN 7 /* measured best of 5, 7, 9, 11 from 6 plies in */

/* The number of legal placements of the kinds in left. */
static int stack4__count(const stack4_tables *t, uint64_t occ, unsigned left, int entry)
{
    int n = 0;
    for (int k = 0; k < STACK4_KINDS; k++) {
        if (!(left >> k & 1))
            continue;
        for (int i = t->first[k]; i < t->first[k + 1]; i++)
            n += stack4__legal(&t->place[i], occ, entry);
    }
    return n;
}

static int stack4__child_cmp(const void *a, const void *b)
{
    const stack4_child *p = a, *q = b;
    if (p->replies != q->replies)
        return p->replies - q->replies;
    return p->place - q->place;
}

/* The mover holds kinds `me`, the opponent `opp`; returns the value for the
 * mover (fail-soft alpha-beta: an upper bound when <= alpha, a lower bound
 * when >= beta).  S->stop set means the time ran out and the value means
 * nothing. */
static int stack4__search(stack4_solver *S, uint64_t occ, unsigned me, unsigned opp, int alpha,
                          int beta)
{
    const stack4_tables *t = S->t;
    unsigned key = me | opp << 8;
    stack4_tt *e = &S->tt[stack4__hash(occ, key) & S->tt_mask];
    int n = 0, best = -2, a0 = alpha;
    int order = __builtin_popcount(key) >= STACK4__ORDER_MIN;
    stack4_child *kids;

    /* An ordered node costs a scan per child: look at the clock there
     * every time, elsewhere every 4096 nodes. */
    if (((++S->nodes & 4095) == 0 || order) && base_now() > S->deadline)
        S->stop = 1;
    if (S->stop)
        return 0;
    if (e->flag != STACK4__EMPTY && e->occ == occ && e->left == key) {
        if (e->flag == STACK4__EXACT)
            return e->value;
        if (e->flag == STACK4__LOWER && e->value >= beta)
            return e->value;
        if (e->flag == STACK4__UPPER && e->value <= alpha)
            return e->value;
    }
    kids = S->kids + S->depth * S->t->nplace;
    /* Pass 1: list the placements; one that leaves the opponent stuck wins
     * outright (or draws, on a full board under all-placed=draw). */
    for (int k = 0; k < STACK4_KINDS; k++) {
        if (!(me >> k & 1))
            continue;
        for (int i = t->first[k]; i < t->first[k + 1]; i++) {
            const stack4_place *p = &t->place[i];
            int replies;
            if (!stack4__legal(p, occ, S->entry))
                continue;
            replies = order ? stack4__count(t, occ | p->mask, opp, S->entry)
                            : rules__stack4_can_move(t, occ | p->mask, opp, S->entry);
            if (!replies) {
                int v = -stack4__stuck_value(S, opp);
                if (v > best)
                    best = v;
                if (best == 1)
                    goto store;
                continue;
            }
            kids[n].place = (int16_t)i;
            kids[n].replies = (int16_t)replies;
            n++;
        }
    }
    if (n == 0 && best == -2) {
        best = stack4__stuck_value(S, me);
        goto store;
    }
    if (best > alpha)
        alpha = best;
    if (alpha >= beta)
        goto store;
    if (order)
        qsort(kids, (size_t)n, sizeof *kids, stack4__child_cmp);
    /* Pass 2: the rest, searched. */
    S->depth++;
    for (int c = 0; c < n; c++) {
        const stack4_place *p = &t->place[kids[c].place];
        int v = -stack4__search(S, occ | p->mask, opp, me & ~(1u << p->kind), -beta, -alpha);
        if (S->stop) {
            S->depth--;
            return 0;
        }
        if (v > best)
            best = v;
        if (v > alpha)
            alpha = v;
        if (alpha >= beta)
            break;
    }
    S->depth--;
store:
    e->occ = occ;
    e->left = (uint16_t)key;
    e->value = (int8_t)best;
    e->flag = best <= a0 ? STACK4__UPPER : best >= beta ? STACK4__LOWER : STACK4__EXACT;
    return best;
}

int rules_stack4_solve(const rules_game *g, double seconds, rules_stack4_solution *out)
{
    const stack4_state *s = rules__stack4_state(g);
    stack4_solver S;
    double start = base_now();
    size_t n = 1u << 16;
    unsigned me, opp;
    int best = -2, best_i = -1, alpha = -1;

    memset(out, 0, sizeof *out);
    out->result = RULES_SOLVE_UNKNOWN;
    if (!s)
        return BASE_EINVAL;
    out->player = s->to_move;
    if (s->over) {
        /* The player to move is stuck: the game has already decided. */
        out->result = (s->winners >> s->to_move & 1) ? RULES_SOLVE_WIN
                      : s->winners                  ? RULES_SOLVE_LOSS
                                                    : RULES_SOLVE_DRAW;
        return 0;
    }
    /* About a second's worth of nodes per 2^20 entries, at most 64 MB; and
     * small for small endgames, which visit few positions. */
    {
        int left = __builtin_popcount(s->left[0]) + __builtin_popcount(s->left[1]);
        size_t cap = (size_t)1 << (8 + 2 * left < 22 ? 8 + 2 * left : 22);
        while (n < cap && (double)n < seconds * (1 << 20))
            n <<= 1;
    }
    memset(&S, 0, sizeof S);
    S.t = s->t;
    S.entry = s->entry;
    S.full = s->full;
    S.deadline = start + seconds;
    S.tt_mask = n - 1;
    S.tt = calloc(n, sizeof *S.tt);
    /* A game lasts at most 16 plies; the root's children are depth 0. */
    S.kids = malloc(sizeof *S.kids * (size_t)S.t->nplace * (2 * STACK4_KINDS + 1));
    if (!S.tt || !S.kids) {
        free(S.tt);
        free(S.kids);
        return BASE_ENOMEM;
    }
    me = s->left[s->to_move];
    opp = s->left[1 - s->to_move];
    for (int k = 0; k < STACK4_KINDS && best < 1 && !S.stop; k++) {
        if (!(me >> k & 1))
            continue;
        for (int i = S.t->first[k]; i < S.t->first[k + 1]; i++) {
            const stack4_place *p = &S.t->place[i];
            int v;
            if (!stack4__legal(p, s->occ, S.entry))
                continue;
            v = -stack4__search(&S, s->occ | p->mask, opp, me & ~(1u << k), -1, -alpha);
            if (S.stop)
                break;
            if (v > best) {
                best = v;
                best_i = i;
            }
            if (v > alpha)
                alpha = v;
            if (best == 1)
                break;
        }
    }
    out->nodes = S.nodes;
    if (!S.stop) {
        out->result = best == 1 ? RULES_SOLVE_WIN : best == 0 ? RULES_SOLVE_DRAW : RULES_SOLVE_LOSS;
        if (best >= 0 && best_i >= 0) {
            out->has_move = true;
            rules__stack4_move_of(S.t, best_i, s->to_move, &out->move);
        }
    }
    out->seconds = base_now() - start;
    free(S.tt);
    free(S.kids);
    return 0;
}
