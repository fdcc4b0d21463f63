/* rules/cube2.c: the cube2 engine (cube², GAMES.md "cube2", docs/rules-cube2.md).
 *
 * Two players share 24 neutral pieces on a small board.  A turn moves one
 * piece one or two "spaces" (a step to a free neighbour or a jump over one
 * neighbour); pieces leave the board from the mover's home square onto
 * that player's home spots, and the first player to collect one cube and
 * one cylinder of each colour wins.
 *
 * The camera sees only where a piece was and where it is now, so a move is
 * (from, to) and the engine searches the short paths between them.  The
 * movement restrictions speak of "the same piece", so every physical piece
 * keeps an id from its setup square on (pc[], cell[]). */
#include "engine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define C2__NPIECES 24
#define C2__NTYPES 12 /* colour * 2 + shape */
#define C2__NCOLORS 6
#define C2__MAXDIM 32
#define C2__ALL ((1u << C2__NTYPES) - 1u)

typedef struct c2__pc {
    uint8_t color, shape;
    int16_t col, row;
    bool on; /* on the board (else taken off, or not placed yet) */
} c2__pc;

typedef struct cube2 {
    int cols, rows;
    int home[2][2]; /* home square of record player 0, 1 */
    bool opt_swap, opt_free_pass;
    int opt_draw_passes; /* passes in a row that draw; 0: never */

    int nplaced;                    /* pieces put down so far: ids 0..nplaced-1 */
    c2__pc pc[C2__NPIECES];
    int8_t cell[C2__MAXDIM * C2__MAXDIM]; /* piece id or -1 */
    uint8_t onboard[C2__NTYPES];    /* pieces of each type on the board */
    uint8_t placed[C2__NTYPES];     /* pieces of each type put down in setup */
    unsigned collected[2];          /* bit t: the player has taken off type t */

    int to_move;
    int moves;           /* legal events applied */
    int turns[2];        /* play turns (move, pass, swap) taken */
    int last[2][2];      /* piece moved on the player's last two turns, [0] the
                          * latest; -1 for a pass or no turn */
    int opp_home_run[2]; /* turns in a row ending on the opponent's home square */
    int passes;          /* passes in a row */
    bool over;
    unsigned winners;
} cube2;

/* ---- small helpers ---- */

static const char *const c2__shape_names[2] = {"cube", "cylinder"};

static int c2__type(int color, int shape) { return color * 2 + shape; }

static bool c2__inside(const cube2 *s, int c, int r)
{
    return c >= 0 && r >= 0 && c < s->cols && r < s->rows;
}

static int c2__idx(const cube2 *s, int c, int r) { return r * s->cols + c; }

static bool c2__is_home(const cube2 *s, int c, int r, int player)
{
    return s->home[player][0] == c && s->home[player][1] == r;
}

static bool c2__setup_done(const cube2 *s) { return s->nplaced == C2__NPIECES; }

static bool c2__open(const cube2 *s, int id)
{
    return s->onboard[c2__type(s->pc[id].color, s->pc[id].shape)] == 2;
}

static bool c2__needs(const cube2 *s, int player, int type)
{
    return !(s->collected[player] & (1u << type));
}

static int c2__popcount(unsigned x)
{
    int n = 0;
    for (; x; x &= x - 1)
        n++;
    return n;
}

/* "the red cube" */
static const char *c2__name(const cube2 *s, int id, char buf[32])
{
    snprintf(buf, 32, "%s %s", rules_color_name(s->pc[id].color),
             c2__shape_names[s->pc[id].shape]);
    return buf;
}

/* ---- paths ---- */

static const int c2__dirs[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};

/* The squares one space away from (c, r): steps to free neighbours and jumps
 * over an occupied neighbour to the free square behind it.  `start` is the
 * cell the moving piece left, which counts as free.  Returns the count;
 * out holds cell indices. */
static int c2__spaces(const cube2 *s, int c, int r, int start, int out[8])
{
    int n = 0;
    for (int d = 0; d < 4; d++) {
        int c1 = c + c2__dirs[d][0], r1 = r + c2__dirs[d][1], i1;
        if (!c2__inside(s, c1, r1))
            continue;
        i1 = c2__idx(s, c1, r1);
        if (s->cell[i1] < 0 || i1 == start) {
            out[n++] = i1;
        } else {
            int c2 = c1 + c2__dirs[d][0], r2 = r1 + c2__dirs[d][1], i2;
            if (!c2__inside(s, c2, r2))
                continue;
            i2 = c2__idx(s, c2, r2);
            if (s->cell[i2] < 0 || i2 == start)
                out[n++] = i2;
        }
    }
    return n;
}

/* Every square the piece at `from` may end on with `allow` spaces (1 or 2),
 * without duplicates and without `from` itself.  out needs 72 entries. */
static int c2__reach(const cube2 *s, int from, int allow, int out[72])
{
    int first[8], n1, n = 0;
    int fc = from % s->cols, fr = from / s->cols;
    n1 = c2__spaces(s, fc, fr, from, first);
    for (int i = 0; i < n1; i++)
        out[n++] = first[i];
    if (allow < 2)
        return n;
    for (int i = 0; i < n1; i++) {
        int second[8], n2 = c2__spaces(s, first[i] % s->cols, first[i] / s->cols, from, second);
        for (int j = 0; j < n2; j++) {
            int k, dst = second[j];
            if (dst == from)
                continue;
            for (k = 0; k < n && out[k] != dst; k++)
                ;
            if (k == n)
                out[n++] = dst;
        }
    }
    return n;
}

/* Whether the piece at `from` can end on dst with `allow` spaces: the same
 * paths as c2__reach, stopping at the first that arrives. */
static bool c2__reaches(const cube2 *s, int from, int allow, int dst)
{
    int first[8], n1 = c2__spaces(s, from % s->cols, from / s->cols, from, first);
    for (int i = 0; i < n1; i++)
        if (first[i] == dst)
            return true;
    if (allow < 2 || dst == from)
        return false;
    for (int i = 0; i < n1; i++) {
        int second[8], n2 = c2__spaces(s, first[i] % s->cols, first[i] / s->cols, from, second);
        for (int j = 0; j < n2; j++)
            if (second[j] == dst)
                return true;
    }
    return false;
}

/* Fewest spaces an offset needs on a board arranged just right: 1 for a
 * step or jump offset, 2 for two of those, 3 for anything farther. */
static int c2__geometry(int dx, int dy)
{
    static const int off[8][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1},
                                  {2, 0}, {-2, 0}, {0, 2}, {0, -2}};
    for (int i = 0; i < 8; i++)
        if (off[i][0] == dx && off[i][1] == dy)
            return 1;
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 8; j++)
            if (off[i][0] + off[j][0] == dx && off[i][1] + off[j][1] == dy)
                return 2;
    return 3;
}

/* ---- the movement restrictions (shared by check and generate) ---- */

/* Checks the three consecutive-turn restrictions for player moving piece
 * id to cell dst (-1 for an exit).  Returns true when allowed, else fills
 * v (when not NULL). */
static bool c2__restrictions(const cube2 *s, int player, int id, int dst, rules_verdict *v)
{
    char nm[32];
    int t = c2__type(s->pc[id].color, s->pc[id].shape);
    if (c2__open(s, id) && s->last[player][0] == id && s->last[player][1] == id) {
        if (v)
            rules__illegal(v, "open-three-turns",
                           "the %s at (%d,%d) is open and you moved it on your last two turns: "
                           "nobody moves the same open piece on 3 turns in a row",
                           c2__name(s, id, nm), s->pc[id].col, s->pc[id].row);
        return false;
    }
    if (!c2__open(s, id) && !c2__needs(s, player, t) && s->last[player][0] == id) {
        if (v)
            rules__illegal(v, "closed-two-turns",
                           "the %s at (%d,%d) is closed, you do not need it (you have one on "
                           "your home spots) and you moved it on your last turn: it may not "
                           "move on 2 of your turns in a row",
                           c2__name(s, id, nm), s->pc[id].col, s->pc[id].row);
        return false;
    }
    if (dst >= 0) {
        int opp = 1 - player;
        int hc = s->home[opp][0], hr = s->home[opp][1];
        if (dst == c2__idx(s, hc, hr) && s->opp_home_run[player] >= 2) {
            if (v)
                rules__illegal(v, "opponent-home-three-turns",
                               "(%d,%d) is player %d's home square and your last two moves "
                               "ended there: nobody moves onto the opponent's home square on "
                               "3 turns in a row",
                               hc, hr, opp + 1);
            return false;
        }
    }
    return true;
}

/* Whether player may take piece id off the board (the exit rules, the
 * path to the home square, then the restrictions).  Fills v when not NULL. */
static bool c2__check_exit(const cube2 *s, int player, int id, rules_verdict *v)
{
    const c2__pc *p = &s->pc[id];
    int t = c2__type(p->color, p->shape);
    int hc = s->home[player][0], hr = s->home[player][1], home = c2__idx(s, hc, hr);
    int from = c2__idx(s, p->col, p->row);
    char nm[32];

    if (!c2__needs(s, player, t)) {
        if (v)
            rules__illegal(v, "exit-not-needed",
                           "you already have %s %s on your home spots: a player takes off only "
                           "pieces they still need (the %s at (%d,%d))",
                           rules__a(c2__name(s, id, nm)), nm, nm, p->col, p->row);
        return false;
    }
    if (p->shape == RULES_C2_CYLINDER && c2__needs(s, player, c2__type(p->color, RULES_C2_CUBE))) {
        if (v)
            rules__illegal(v, "exit-cylinder-before-cube",
                           "the %s at (%d,%d) may leave only after %s %s cube is on your home "
                           "spots",
                           c2__name(s, id, nm), p->col, p->row, rules__a(rules_color_name(p->color)),
                           rules_color_name(p->color));
        return false;
    }
    if (from != home) {
        int sp[8], n, i;
        if (!c2__open(s, id)) {
            if (v)
                rules__illegal(v, "exit-not-on-home",
                               "the %s at (%d,%d) is closed (its mate is off the board) and "
                               "moves one space, and exiting costs that space: it must start "
                               "the turn on your home square (%d,%d)",
                               c2__name(s, id, nm), p->col, p->row, hc, hr);
            return false;
        }
        n = c2__spaces(s, p->col, p->row, from, sp);
        for (i = 0; i < n && sp[i] != home; i++)
            ;
        if (i == n) {
            int hp = s->cell[home];
            int adj = abs(p->col - hc) + abs(p->row - hr) == 1;
            if (!v)
                return false;
            if (hp >= 0 && adj)
                rules__illegal(v, "exit-jump-home",
                               "the %s at (%d,%d) may not jump over the %s standing on your "
                               "home square (%d,%d) to exit: it must land on the free home "
                               "square",
                               c2__name(s, id, nm), p->col, p->row,
                               c2__name(s, hp, (char[32]){0}), hc, hr);
            else if (hp >= 0)
                rules__illegal(v, "exit-home-occupied",
                               "the %s at (%d,%d) cannot exit: the %s stands on your home "
                               "square (%d,%d), so nothing can land there",
                               c2__name(s, id, nm), p->col, p->row,
                               c2__name(s, hp, (char[32]){0}), hc, hr);
            else
                rules__illegal(v, "exit-too-far",
                               "the %s at (%d,%d) cannot reach your home square (%d,%d) with "
                               "one space, and exiting costs the second space",
                               c2__name(s, id, nm), p->col, p->row, hc, hr);
            return false;
        }
    }
    return c2__restrictions(s, player, id, -1, v);
}

/* Whether player may move piece id to cell dst (on the board, free, not its
 * own square).  Fills v when not NULL. */
static bool c2__check_dest(const cube2 *s, int player, int id, int dst, rules_verdict *v)
{
    const c2__pc *p = &s->pc[id];
    int from = c2__idx(s, p->col, p->row);
    int tc = dst % s->cols, tr = dst / s->cols;
    bool open = c2__open(s, id);
    char nm[32];

    if (!c2__reaches(s, from, open ? 2 : 1, dst)) {
        int g = c2__geometry(tc - p->col, tr - p->row);
        if (!v)
            return false;
        if (g > 2)
            rules__illegal(v, "too-far",
                           "(%d,%d) is too far from (%d,%d): a piece moves at most two spaces "
                           "(each a step to a neighbour or a jump over one piece)",
                           tc, tr, p->col, p->row);
        else if (!open)
            rules__illegal(v, "closed-one-space",
                           "the %s at (%d,%d) is closed (its mate is off the board) and moves "
                           "only one space, which does not reach (%d,%d)",
                           c2__name(s, id, nm), p->col, p->row, tc, tr);
        else
            rules__illegal(v, "path-blocked",
                           "no two spaces lead the %s from (%d,%d) to (%d,%d): a step needs a "
                           "free square and a jump one piece with a free square behind it",
                           c2__name(s, id, nm), p->col, p->row, tc, tr);
        return false;
    }
    return c2__restrictions(s, player, id, dst, v);
}

/* ---- generation ---- */

/* Reports every legal move of player (not pass or swap) to fn; stops when
 * fn returns non-zero.  *stopped tells the caller.  Returns the count. */
static int c2__gen_moves(const cube2 *s, int player, rules_move_fn fn, void *ctx, bool *stopped)
{
    rules_move m;
    int count = 0;
    *stopped = false;
    rules_move_init(&m, RULES_MOVE_MOVE);
    for (int cell = 0; cell < s->cols * s->rows; cell++) {
        int id = s->cell[cell], reach[72], n;
        if (id < 0)
            continue;
        m.from[0] = (int16_t)s->pc[id].col;
        m.from[1] = (int16_t)s->pc[id].row;
        n = c2__reach(s, cell, c2__open(s, id) ? 2 : 1, reach);
        m.to_off = false;
        for (int i = 0; i < n; i++) {
            if (!c2__restrictions(s, player, id, reach[i], NULL))
                continue;
            m.to[0] = (int16_t)(reach[i] % s->cols);
            m.to[1] = (int16_t)(reach[i] / s->cols);
            count++;
            if (fn && fn(ctx, &m)) {
                *stopped = true;
                return count;
            }
        }
        if (c2__check_exit(s, player, id, NULL)) {
            m.to_off = true;
            m.to[0] = m.to[1] = 0;
            count++;
            if (fn && fn(ctx, &m)) {
                *stopped = true;
                return count;
            }
        }
    }
    return count;
}

static int c2__first(void *ctx, const rules_move *m)
{
    *(rules_move *)ctx = *m;
    return 1;
}

static bool c2__swap_allowed(const cube2 *s, int player)
{
    return s->opt_swap && c2__setup_done(s) && player == 1 && s->turns[1] == 0 &&
           s->turns[0] == 1;
}

static int c2__generate(const void *state, int player, const rules_piece *hand, int nhand,
                        rules_move_fn fn, void *ctx)
{
    const cube2 *s = state;
    rules_move m;
    int count = 0;
    bool stopped;
    (void)hand;
    (void)nhand;
    if (s->over)
        return 0;
    if (!c2__setup_done(s)) {
        rules_move_init(&m, RULES_MOVE_PLACE);
        m.npieces = 1;
        for (int t = 0; t < C2__NTYPES; t++) {
            if (s->placed[t] >= 2)
                continue;
            for (int cell = 0; cell < s->cols * s->rows; cell++) {
                int c = cell % s->cols, r = cell / s->cols;
                if (s->cell[cell] >= 0 || c2__is_home(s, c, r, 0) || c2__is_home(s, c, r, 1))
                    continue;
                memset(&m.pieces[0], 0, sizeof m.pieces[0]);
                m.pieces[0].x = (int16_t)c;
                m.pieces[0].y = (int16_t)r;
                m.pieces[0].a = (uint8_t)(t / 2);
                m.pieces[0].b = (uint8_t)(t % 2);
                m.pieces[0].owner = -1;
                count++;
                if (fn && fn(ctx, &m))
                    return count;
            }
        }
        return count;
    }
    count = c2__gen_moves(s, player, fn, ctx, &stopped);
    if (stopped)
        return count;
    if (count == 0 || s->opt_free_pass) {
        rules_move_init(&m, RULES_MOVE_PASS);
        count++;
        if (fn && fn(ctx, &m))
            return count;
    }
    if (c2__swap_allowed(s, player)) {
        rules_move_init(&m, RULES_MOVE_SWAP);
        count++;
        if (fn)
            fn(ctx, &m);
    }
    return count;
}

/* ---- check ---- */

static void c2__check_place(const cube2 *s, const rules_move *m, rules_verdict *v)
{
    const rules_piece *p = &m->pieces[0];
    int t;
    if (c2__setup_done(s)) {
        rules__illegal(v, "setup-over",
                       "all 24 pieces are on the board: the setup is over, a turn now moves "
                       "a piece");
        return;
    }
    if (m->npieces != 1) {
        rules__illegal(v, "place-one-piece",
                       "a setup turn puts down exactly one piece, this one holds %d",
                       m->npieces);
        return;
    }
    if (!c2__inside(s, p->x, p->y)) {
        rules__illegal(v, "off-board", "(%d,%d) is not on the %dx%d board", p->x, p->y,
                       s->cols, s->rows);
        return;
    }
    if (c2__is_home(s, p->x, p->y, 0) || c2__is_home(s, p->x, p->y, 1)) {
        rules__illegal(v, "setup-home-square",
                       "(%d,%d) is player %d's home square: no piece is put down on a home "
                       "square",
                       p->x, p->y, c2__is_home(s, p->x, p->y, 0) ? 1 : 2);
        return;
    }
    if (s->cell[c2__idx(s, p->x, p->y)] >= 0) {
        char nm[32];
        rules__illegal(v, "occupied", "(%d,%d) already holds the %s", p->x, p->y,
                       c2__name(s, s->cell[c2__idx(s, p->x, p->y)], nm));
        return;
    }
    if (p->a >= C2__NCOLORS || p->b > RULES_C2_CYLINDER) {
        rules__illegal(v, "bad-piece",
                       "the piece for (%d,%d) is not one of cube2's: colours red to purple, "
                       "a cube or a cylinder",
                       p->x, p->y);
        return;
    }
    t = c2__type(p->a, p->b);
    if (s->placed[t] >= 2)
        rules__illegal(v, "setup-pair-full",
                       "both %s %ss are already on the board: there are two of each",
                       rules_color_name(p->a), c2__shape_names[p->b]);
}

static void c2__check_move(const cube2 *s, int player, const rules_move *m, rules_verdict *v)
{
    int fc = m->from[0], fr = m->from[1], id;
    if (!c2__inside(s, fc, fr)) {
        rules__illegal(v, "off-board", "(%d,%d) is not on the %dx%d board", fc, fr, s->cols,
                       s->rows);
        return;
    }
    id = s->cell[c2__idx(s, fc, fr)];
    if (id < 0) {
        rules__illegal(v, "no-piece", "there is no piece at (%d,%d) to move", fc, fr);
        return;
    }
    if (m->to_off) {
        c2__check_exit(s, player, id, v);
        return;
    }
    if (!c2__inside(s, m->to[0], m->to[1])) {
        rules__illegal(v, "off-board",
                       "(%d,%d) is not on the %dx%d board (a piece leaves the board only "
                       "with \"to\":\"off\" from your home square)",
                       m->to[0], m->to[1], s->cols, s->rows);
        return;
    }
    if (m->to[0] == fc && m->to[1] == fr) {
        rules__illegal(v, "same-square", "a move may not end where it began, at (%d,%d)", fc,
                       fr);
        return;
    }
    {
        int occ = s->cell[c2__idx(s, m->to[0], m->to[1])];
        char nm[32];
        if (occ >= 0) {
            rules__illegal(v, "occupied", "(%d,%d) is taken by the %s", m->to[0], m->to[1],
                           c2__name(s, occ, nm));
            return;
        }
    }
    c2__check_dest(s, player, id, c2__idx(s, m->to[0], m->to[1]), v);
}

static void c2__check(const void *state, int player, const rules_move *m, rules_verdict *v)
{
    const cube2 *s = state;
    if (player > 1) {
        rules__illegal(v, "no-seat", "cube2 is played by two players");
        return;
    }
    switch (m->type) {
    case RULES_MOVE_PLACE:
        c2__check_place(s, m, v);
        return;
    case RULES_MOVE_MOVE:
    case RULES_MOVE_PASS:
    case RULES_MOVE_SWAP:
        if (!c2__setup_done(s)) {
            rules__illegal(v, "setup-incomplete",
                           "%d of the 24 pieces are down: the setup goes on with \"place\" "
                           "turns before any piece moves",
                           s->nplaced);
            return;
        }
        break;
    default:
        rules__illegal(v, "move-type", "cube2 has no \"%s\" move",
                       rules__move_type_name(m->type));
        return;
    }
    if (m->type == RULES_MOVE_MOVE) {
        c2__check_move(s, player, m, v);
    } else if (m->type == RULES_MOVE_PASS) {
        rules_move first;
        bool stopped;
        if (!s->opt_free_pass && c2__gen_moves(s, player, c2__first, &first, &stopped) > 0) {
            char nm[32], to[24] = "off the board";
            c2__name(s, s->cell[c2__idx(s, first.from[0], first.from[1])], nm);
            if (!first.to_off)
                snprintf(to, sizeof to, "to (%d,%d)", first.to[0], first.to[1]);
            rules__illegal(v, "pass-with-move",
                           "a player passes only with no legal move, and the %s at (%d,%d) can "
                           "move %s",
                           nm, first.from[0], first.from[1], to);
        }
    } else if (!s->opt_swap) {
        rules__illegal(v, "swap-off",
                       "the optional first-move rule is not in play (header option \"swap\")");
    } else if (!c2__swap_allowed(s, player)) {
        rules__illegal(v, "swap-late",
                       "only player 2, on their first turn right after player 1's first turn, "
                       "may turn the board and take that move");
    }
}

/* ---- apply ---- */

static void c2__end_turn(cube2 *s, int player, int moved)
{
    s->last[player][1] = s->last[player][0];
    s->last[player][0] = moved;
    s->turns[player]++;
    s->to_move = 1 - player;
}

/* The pie rule: the board turns half round, so every piece lands on the
 * mirrored square (the home squares map onto each other, checked when the
 * header asked for the option) and player 1's first move becomes player
 * 2's.  Player 1 (now second) moves next. */
static void c2__swap(cube2 *s)
{
    int tmp[2];
    unsigned col;
    memset(s->cell, -1, sizeof s->cell);
    for (int id = 0; id < s->nplaced; id++) {
        c2__pc *p = &s->pc[id];
        if (!p->on)
            continue;
        p->col = (int16_t)(s->cols - 1 - p->col);
        p->row = (int16_t)(s->rows - 1 - p->row);
        s->cell[c2__idx(s, p->col, p->row)] = (int8_t)id;
    }
    col = s->collected[0];
    s->collected[0] = s->collected[1];
    s->collected[1] = col;
    memcpy(tmp, s->last[0], sizeof tmp);
    memcpy(s->last[0], s->last[1], sizeof tmp);
    memcpy(s->last[1], tmp, sizeof tmp);
    tmp[0] = s->opp_home_run[0];
    s->opp_home_run[0] = s->opp_home_run[1];
    s->opp_home_run[1] = tmp[0];
    s->turns[0] = 0;
    s->turns[1] = 1;
    s->passes = 0;
    s->to_move = 0;
}

static void c2__apply(void *state, int player, const rules_move *m, rules_verdict *v)
{
    cube2 *s = state;
    s->moves++;
    v->points = 0;
    if (m->type == RULES_MOVE_PLACE) {
        const rules_piece *p = &m->pieces[0];
        int id = s->nplaced++, t = c2__type(p->a, p->b);
        s->pc[id] = (c2__pc){.color = p->a, .shape = p->b, .col = p->x, .row = p->y, .on = true};
        s->cell[c2__idx(s, p->x, p->y)] = (int8_t)id;
        s->placed[t]++;
        s->onboard[t]++;
        /* Players alternate, the first placer (player 0) moves first. */
        s->to_move = s->nplaced % 2;
        if (c2__setup_done(s))
            snprintf(v->note, sizeof v->note, "all 24 pieces are down: player 1 moves first");
        return;
    }
    if (m->type == RULES_MOVE_PASS) {
        s->passes++;
        s->opp_home_run[player] = 0;
        c2__end_turn(s, player, -1);
        if (s->opt_draw_passes > 0 && s->passes >= s->opt_draw_passes) {
            s->over = true;
            s->winners = 0;
            snprintf(v->note, sizeof v->note, "%d passes in a row: the game is a draw",
                     s->passes);
        }
        return;
    }
    if (m->type == RULES_MOVE_SWAP) {
        c2__swap(s);
        snprintf(v->note, sizeof v->note,
                 "player 2 turned the board and took player 1's first move; player 1 moves "
                 "next");
        return;
    }
    {
        int from = c2__idx(s, m->from[0], m->from[1]), id = s->cell[from];
        c2__pc *p = &s->pc[id];
        int t = c2__type(p->color, p->shape);
        s->passes = 0;
        s->cell[from] = -1;
        if (m->to_off) {
            p->on = false;
            s->onboard[t]--;
            s->collected[player] |= 1u << t;
            s->opp_home_run[player] = 0;
            v->points = 1;
            v->nextra = 1;
            memset(&v->extra[0], 0, sizeof v->extra[0]);
            v->extra[0].x = p->col;
            v->extra[0].y = p->row;
            v->extra[0].a = p->color;
            v->extra[0].b = p->shape;
            v->extra[0].owner = (int8_t)player;
            if (s->collected[player] == C2__ALL) {
                s->over = true;
                s->winners = 1u << player;
            }
        } else {
            int opp = 1 - player;
            p->col = m->to[0];
            p->row = m->to[1];
            s->cell[c2__idx(s, p->col, p->row)] = (int8_t)id;
            if (c2__is_home(s, p->col, p->row, opp))
                s->opp_home_run[player]++;
            else
                s->opp_home_run[player] = 0;
        }
        c2__end_turn(s, player, id);
    }
}

/* ---- state ---- */

static void c2__status(const void *state, rules_status *out)
{
    const cube2 *s = state;
    out->to_move = s->to_move;
    out->scores[0] = c2__popcount(s->collected[0]);
    out->scores[1] = c2__popcount(s->collected[1]);
    out->moves = s->moves;
    out->over = s->over;
    out->winners = s->winners;
}

static int c2__position(const void *state, rules_piece *out, int cap)
{
    const cube2 *s = state;
    int n = 0;
    for (int cell = 0; cell < s->cols * s->rows; cell++) {
        int id = s->cell[cell];
        if (id < 0)
            continue;
        if (out && n < cap) {
            memset(&out[n], 0, sizeof out[n]);
            out[n].x = s->pc[id].col;
            out[n].y = s->pc[id].row;
            out[n].a = s->pc[id].color;
            out[n].b = s->pc[id].shape;
            out[n].owner = -1;
        }
        n++;
    }
    return n;
}

static int c2__clone(const void *state, void **out)
{
    return rules__clone_block(state, sizeof(cube2), out);
}

/* ---- the header ---- */

static int c2__square(const cJSON *it, int *c, int *r)
{
    const cJSON *a, *b;
    if (!cJSON_IsArray(it) || cJSON_GetArraySize(it) != 2)
        return -1;
    a = cJSON_GetArrayItem(it, 0);
    b = cJSON_GetArrayItem(it, 1);
    if (!cJSON_IsNumber(a) || !cJSON_IsNumber(b) || a->valuedouble != (int)a->valuedouble ||
        b->valuedouble != (int)b->valuedouble)
        return -1;
    *c = (int)a->valuedouble;
    *r = (int)b->valuedouble;
    return 0;
}

static int c2__read_board(cube2 *s, const cJSON *board, base_err *err)
{
    const cJSON *home;
    int rc;
    if (!cJSON_IsObject(board))
        return base_err_set(err, BASE_EPARSE,
                            "\"board\" must be an object like {\"cols\":6,\"rows\":6,"
                            "\"home\":[[3,5],[2,0]]}");
    if (cJSON_GetObjectItemCaseSensitive(board, "cols") &&
        (rc = rules__json_int(board, "cols", &s->cols, err)) != 0)
        goto bad;
    if (cJSON_GetObjectItemCaseSensitive(board, "rows") &&
        (rc = rules__json_int(board, "rows", &s->rows, err)) != 0)
        goto bad;
    if (s->cols < 1 || s->rows < 1 || s->cols > C2__MAXDIM || s->rows > C2__MAXDIM)
        return base_err_set(err, BASE_ERANGE,
                            "\"board\": \"cols\" and \"rows\" must be 1 to %d, not %dx%d",
                            C2__MAXDIM, s->cols, s->rows);
    if (s->cols * s->rows < C2__NPIECES + 2)
        return base_err_set(err, BASE_ERANGE,
                            "\"board\": a %dx%d board has %d squares, fewer than the 24 pieces "
                            "and 2 home squares",
                            s->cols, s->rows, s->cols * s->rows);
    home = cJSON_GetObjectItemCaseSensitive(board, "home");
    if (home) {
        if (!cJSON_IsArray(home) || cJSON_GetArraySize(home) != 2)
            return base_err_set(err, BASE_EPARSE,
                                "\"board\": \"home\" must hold two squares [[c,r],[c,r]] "
                                "(player 1's, then player 2's)");
        for (int i = 0; i < 2; i++)
            if (c2__square(cJSON_GetArrayItem(home, i), &s->home[i][0], &s->home[i][1]) != 0)
                return base_err_set(err, BASE_EPARSE,
                                    "\"board\": \"home\" item %d must be [col,row]", i + 1);
    } else if (s->cols != 6 || s->rows != 6) {
        return base_err_set(err, BASE_EPARSE,
                            "\"board\": a %dx%d board needs \"home\" (the default squares "
                            "belong to the 6x6 board)",
                            s->cols, s->rows);
    }
    for (int i = 0; i < 2; i++)
        if (!c2__inside(s, s->home[i][0], s->home[i][1]))
            return base_err_set(err, BASE_ERANGE,
                                "\"board\": home square %d (%d,%d) is not on the %dx%d board",
                                i + 1, s->home[i][0], s->home[i][1], s->cols, s->rows);
    if (s->home[0][0] == s->home[1][0] && s->home[0][1] == s->home[1][1])
        return base_err_set(err, BASE_EINVAL,
                            "\"board\": both players' home squares are (%d,%d)", s->home[0][0],
                            s->home[0][1]);
    return 0;
bad:
    base_err_prefix(err, "\"board\": ");
    return rc;
}

static int c2__read_options(cube2 *s, const cJSON *opts, base_err *err)
{
    const cJSON *it;
    if (!cJSON_IsObject(opts))
        return base_err_set(err, BASE_EPARSE, "\"options\" must be an object");
    cJSON_ArrayForEach(it, opts) {
        const char *k = it->string;
        if (strcmp(k, "swap") == 0 || strcmp(k, "free_pass") == 0) {
            if (!cJSON_IsBool(it))
                return base_err_set(err, BASE_EPARSE,
                                    "option \"%s\" must be true or false", k);
            *(k[0] == 's' ? &s->opt_swap : &s->opt_free_pass) = cJSON_IsTrue(it);
        } else if (strcmp(k, "draw_passes") == 0) {
            if (!cJSON_IsNumber(it) || it->valuedouble != (int)it->valuedouble ||
                it->valuedouble < 0 || it->valuedouble > 1000)
                return base_err_set(err, BASE_EPARSE,
                                    "option \"draw_passes\" must be a whole number from 0 "
                                    "(never) to 1000");
            s->opt_draw_passes = (int)it->valuedouble;
        } else {
            return base_err_set(err, BASE_EINVAL,
                                "unknown cube2 option \"%s\" (known: swap, free_pass, "
                                "draw_passes)",
                                k);
        }
    }
    if (s->opt_swap && (s->home[1][0] != s->cols - 1 - s->home[0][0] ||
                        s->home[1][1] != s->rows - 1 - s->home[0][1]))
        return base_err_set(err, BASE_EINVAL,
                            "option \"swap\" turns the board half round, so the home squares "
                            "must face each other: (%d,%d) would land on (%d,%d), not on (%d,%d)",
                            s->home[0][0], s->home[0][1], s->cols - 1 - s->home[0][0],
                            s->rows - 1 - s->home[0][1], s->home[1][0], s->home[1][1]);
    return 0;
}

static int c2__read_setup(cube2 *s, const cJSON *setup, base_err *err)
{
    int n;
    if (!cJSON_IsArray(setup))
        return base_err_set(err, BASE_EPARSE, "\"setup\" must be an array of pieces");
    n = cJSON_GetArraySize(setup);
    if (n > C2__NPIECES)
        return base_err_set(err, BASE_ERANGE, "\"setup\" holds %d pieces, the game has 24", n);
    for (int i = 0; i < n; i++) {
        rules_piece p;
        rules_move m;
        rules_verdict v;
        int rc;
        memset(&p, 0, sizeof p);
        p.owner = -1;
        if (!cJSON_IsObject(cJSON_GetArrayItem(setup, i)))
            return base_err_set(err, BASE_EPARSE, "\"setup\" piece %d must be an object", i + 1);
        if ((rc = rules__cube2_piece_from_json(cJSON_GetArrayItem(setup, i), &p, err)) != 0) {
            base_err_prefix(err, "\"setup\" piece %d: ", i + 1);
            return rc;
        }
        rules_move_init(&m, RULES_MOVE_PLACE);
        m.npieces = 1;
        m.pieces[0] = p;
        memset(&v, 0, sizeof v);
        v.legal = true;
        c2__check_place(s, &m, &v);
        if (!v.legal)
            return base_err_set(err, BASE_EINVAL, "\"setup\" piece %d: %s", i + 1, v.reason);
        c2__apply(s, s->to_move, &m, &v);
    }
    s->moves = 0; /* the header's setup is not an event */
    return 0;
}

static int c2__create(const cJSON *header, int nplayers, base_err *err, void **state)
{
    cube2 *s = calloc(1, sizeof *s);
    const cJSON *it;
    int rc = 0;
    (void)nplayers;
    *state = NULL;
    if (!s)
        return base_err_set(err, BASE_ENOMEM, "out of memory");
    s->cols = s->rows = 6;
    s->home[0][0] = 3;
    s->home[0][1] = 5;
    s->home[1][0] = 2;
    s->home[1][1] = 0;
    s->opt_draw_passes = 2;
    memset(s->cell, -1, sizeof s->cell);
    for (int p = 0; p < 2; p++)
        s->last[p][0] = s->last[p][1] = -1;
    if (header && (it = cJSON_GetObjectItemCaseSensitive(header, "board")) &&
        (rc = c2__read_board(s, it, err)) != 0)
        goto fail;
    if (header && (it = cJSON_GetObjectItemCaseSensitive(header, "options")) &&
        (rc = c2__read_options(s, it, err)) != 0)
        goto fail;
    if (header && (it = cJSON_GetObjectItemCaseSensitive(header, "setup")) &&
        (rc = c2__read_setup(s, it, err)) != 0)
        goto fail;
    *state = s;
    return 0;
fail:
    free(s);
    return rc;
}

const rules__engine rules__cube2_engine = {
    .id = "cube2",
    .min_players = 2,
    .max_players = 2,
    .create = c2__create,
    .destroy = free, /* one block, nothing inside it owned */
    .clone = c2__clone,
    .status = c2__status,
    .check = c2__check,
    .apply = c2__apply,
    .position = c2__position,
    .generate = c2__generate,
    .piece_from_json = rules__cube2_piece_from_json,
    .piece_to_json = rules__cube2_piece_to_json,
    .move_from_json = rules__cube2_move_from_json,
    .move_to_json = rules__cube2_move_to_json,
    .hand_from_json = rules__cube2_hand_from_json,
    .hand_to_json = rules__cube2_hand_to_json,
    .verdict_extras = rules__cube2_verdict_extras,
};
