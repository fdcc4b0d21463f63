/* rules/stack4.c: the stack4 engine, the 4x4x4 stacking game (GAMES.md
 * "stack4", docs/rules-stack4.md).
 *
 * The eight tetracubes are data; their rotations and every placement inside
 * the volume are computed from it when a game starts (once per game family:
 * clones share the tables).  Legality of a placement is then a handful of
 * AND operations on the 64-bit occupancy board; the slow, wordy path that
 * names the offending cell only runs for moves that are illegal. */
#include "stack4_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the catalogue ---- */

static const char *const stack4__names[STACK4_KINDS] = {"I", "O", "L", "T", "S", "SR", "SL", "Y"};

/* The cells of GAMES.md; SL is SR mirrored in z, a different piece. */
static const int8_t stack4__cells[STACK4_KINDS][4][3] = {
    {{0, 0, 0}, {1, 0, 0}, {2, 0, 0}, {3, 0, 0}}, /* I */
    {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}}, /* O */
    {{0, 0, 0}, {1, 0, 0}, {2, 0, 0}, {2, 1, 0}}, /* L */
    {{0, 0, 0}, {1, 0, 0}, {2, 0, 0}, {1, 1, 0}}, /* T */
    {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {2, 1, 0}}, /* S */
    {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {1, 1, 1}}, /* SR */
    {{0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {1, 1, 0}}, /* SL */
    {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, /* Y */
};

static const char *const stack4__owners[2] = {"light", "dark"};

int rules__stack4_kind_from_name(const char *name)
{
    for (int k = 0; name && k < STACK4_KINDS; k++)
        if (strcmp(stack4__names[k], name) == 0)
            return k;
    return -1;
}

const char *rules__stack4_kind_name(int kind)
{
    return kind >= 0 && kind < STACK4_KINDS ? stack4__names[kind] : NULL;
}

int rules__stack4_owner_from_name(const char *name)
{
    for (int k = 0; name && k < 2; k++)
        if (strcmp(stack4__owners[k], name) == 0)
            return k;
    return -1;
}

const char *rules__stack4_owner_name(int owner)
{
    return owner >= 0 && owner < 2 ? stack4__owners[owner] : NULL;
}

static int stack4__bit(int x, int y, int z) { return x + STACK4_N * y + STACK4_N * STACK4_N * z; }

static int stack4__inside(int x, int y, int z)
{
    return x >= 0 && x < STACK4_N && y >= 0 && y < STACK4_N && z >= 0 && z < STACK4_N;
}

static int stack4__cell_cmp(const void *a, const void *b)
{
    const int8_t *p = a, *q = b;
    for (int i = 2; i >= 0; i--) /* z, then y, then x: the bit order */
        if (p[i] != q[i])
            return p[i] - q[i];
    return 0;
}

/* Moves the cells so that each axis starts at 0, then sorts them: two cell
 * sets are the same shape at the same rotation iff their normal forms are
 * equal. */
static void stack4__normalise(int8_t c[4][3])
{
    for (int a = 0; a < 3; a++) {
        int lo = c[0][a];
        for (int i = 1; i < 4; i++)
            if (c[i][a] < lo)
                lo = c[i][a];
        for (int i = 0; i < 4; i++)
            c[i][a] = (int8_t)(c[i][a] - lo);
    }
    qsort(c, 4, sizeof c[0], stack4__cell_cmp);
}

/* The 24 proper rotations of the cube: signed permutation matrices of
 * determinant +1 (the other 24 are mirrors, which a real piece cannot do). */
static int stack4__rotations(int m[24][3][3])
{
    static const int perms[6][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1},
                                    {0, 2, 1}, {2, 1, 0}, {1, 0, 2}};
    int n = 0;
    for (int p = 0; p < 6; p++)
        for (int s = 0; s < 8; s++) {
            int parity = p < 3 ? 1 : -1, sign = 1;
            for (int i = 0; i < 3; i++)
                sign *= (s >> i & 1) ? -1 : 1;
            if (parity * sign != 1)
                continue;
            memset(m[n], 0, sizeof m[n]);
            for (int i = 0; i < 3; i++)
                m[n][i][perms[p][i]] = (s >> i & 1) ? -1 : 1;
            n++;
        }
    return n;
}

/* The legality masks of four cells, all inside the volume. */
static void stack4__make_place(const int8_t c[4][3], int kind, stack4_place *p)
{
    static const int d[STACK4_NDIRS][3] = {{0, 0, 1}, {1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}};
    memset(p, 0, sizeof *p);
    p->kind = (uint8_t)kind;
    for (int i = 0; i < 4; i++) {
        p->mask |= 1ull << stack4__bit(c[i][0], c[i][1], c[i][2]);
        if (c[i][2] == 0)
            p->on_base = 1;
    }
    for (int i = 0; i < 4; i++)
        if (c[i][2] > 0) {
            uint64_t under = 1ull << stack4__bit(c[i][0], c[i][1], c[i][2] - 1);
            if (!(under & p->mask))
                p->below |= under;
        }
    /* The slide towards the target from direction dir passes the piece
     * shifted by k*dir, k = 1.. until it has left the volume. */
    for (int dir = 0; dir < STACK4_NDIRS; dir++)
        for (int k = 1; k < STACK4_N; k++)
            for (int i = 0; i < 4; i++) {
                int x = c[i][0] + k * d[dir][0], y = c[i][1] + k * d[dir][1],
                    z = c[i][2] + k * d[dir][2];
                if (stack4__inside(x, y, z))
                    p->sweep[dir] |= 1ull << stack4__bit(x, y, z);
            }
}

static int stack4__tables_new(stack4_tables **out)
{
    int m[24][3][3], nm = stack4__rotations(m), n = 0;
    stack4_tables *t = calloc(1, sizeof *t);

    *out = NULL;
    if (!t)
        return BASE_ENOMEM;
    for (int k = 0; k < STACK4_KINDS; k++)
        for (int r = 0; r < nm; r++) {
            int8_t c[4][3];
            int dup = 0;
            for (int i = 0; i < 4; i++)
                for (int a = 0; a < 3; a++)
                    c[i][a] = (int8_t)(m[r][a][0] * stack4__cells[k][i][0] +
                                       m[r][a][1] * stack4__cells[k][i][1] +
                                       m[r][a][2] * stack4__cells[k][i][2]);
            stack4__normalise(c);
            for (int j = 0; j < t->nrot[k] && !dup; j++)
                dup = memcmp(t->rot[k][j], c, sizeof c) == 0;
            if (!dup)
                memcpy(t->rot[k][t->nrot[k]++], c, sizeof c);
        }
    /* Count, then fill, every translation of every rotation. */
    for (int pass = 0; pass < 2; pass++) {
        n = 0;
        for (int k = 0; k < STACK4_KINDS; k++) {
            t->first[k] = n;
            for (int r = 0; r < t->nrot[k]; r++) {
                int ext[3] = {0, 0, 0};
                for (int i = 0; i < 4; i++)
                    for (int a = 0; a < 3; a++)
                        if (t->rot[k][r][i][a] > ext[a])
                            ext[a] = t->rot[k][r][i][a];
                for (int z = 0; z + ext[2] < STACK4_N; z++)
                    for (int y = 0; y + ext[1] < STACK4_N; y++)
                        for (int x = 0; x + ext[0] < STACK4_N; x++, n++) {
                            int8_t c[4][3];
                            if (!pass)
                                continue;
                            for (int i = 0; i < 4; i++) {
                                c[i][0] = (int8_t)(t->rot[k][r][i][0] + x);
                                c[i][1] = (int8_t)(t->rot[k][r][i][1] + y);
                                c[i][2] = (int8_t)(t->rot[k][r][i][2] + z);
                            }
                            stack4__make_place((const int8_t(*)[3])c, k, &t->place[n]);
                        }
            }
        }
        t->first[STACK4_KINDS] = n;
        if (!pass && !(t->place = calloc((size_t)n, sizeof *t->place))) {
            free(t);
            return BASE_ENOMEM;
        }
    }
    t->nplace = n;
    atomic_init(&t->refs, 1);
    *out = t;
    return 0;
}

static void stack4__tables_release(stack4_tables *t)
{
    if (t && atomic_fetch_sub(&t->refs, 1) == 1) {
        free(t->place);
        free(t);
    }
}

int rules__stack4_can_move(const stack4_tables *t, uint64_t occ, unsigned left, int entry)
{
    for (int k = 0; k < STACK4_KINDS; k++) {
        if (!(left >> k & 1))
            continue;
        for (int i = t->first[k]; i < t->first[k + 1]; i++)
            if (stack4__legal(&t->place[i], occ, entry))
                return 1;
    }
    return 0;
}

void rules__stack4_move_of(const stack4_tables *t, int i, int player, rules_move *m)
{
    const stack4_place *p = &t->place[i];
    rules_piece *pc;
    uint64_t mask = p->mask;
    int n = 0;

    rules_move_init(m, RULES_MOVE_PLACE);
    m->npieces = 1;
    pc = &m->pieces[0];
    pc->a = p->kind;
    pc->owner = (int8_t)player;
    pc->ncells = 4;
    while (mask && n < 4) {
        int b = __builtin_ctzll(mask);
        mask &= mask - 1;
        pc->cells[n][0] = (int8_t)(b % STACK4_N);
        pc->cells[n][1] = (int8_t)(b / STACK4_N % STACK4_N);
        pc->cells[n][2] = (int8_t)(b / (STACK4_N * STACK4_N));
        n++;
    }
}

const stack4_state *rules__stack4_state(const rules_game *g)
{
    if (!g || strcmp(rules_game_id(g), "stack4") != 0)
        return NULL;
    return rules__game_state(g);
}

/* ---- state ---- */

static int stack4__option(const cJSON *opts, const char *key, const char *const *names, int n,
                          int *out, base_err *err)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(opts, key);
    char list[96] = "";
    if (!it)
        return 0;
    for (int i = 0; i < n; i++) {
        if (cJSON_IsString(it) && strcmp(it->valuestring, names[i]) == 0) {
            *out = i;
            return 0;
        }
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s\"%s\"", i ? ", " : "",
                 names[i]);
    }
    return base_err_set(err, BASE_EINVAL, "stack4 option \"%s\" must be one of %s", key, list);
}

static int stack4__create(const cJSON *header, int nplayers, base_err *err, void **state)
{
    static const char *const entries[] = {"slide", "drop", "free"};
    static const char *const fulls[] = {"lose", "draw"};
    const cJSON *opts = header ? cJSON_GetObjectItemCaseSensitive(header, "options") : NULL;
    stack4_state *s;
    int entry = STACK4_ENTRY_SLIDE, full = STACK4_FULL_LOSE, rc;

    (void)nplayers;
    *state = NULL;
    if (opts && !cJSON_IsObject(opts))
        return base_err_set(err, BASE_EPARSE, "\"options\" must be a JSON object");
    if (opts) {
        const cJSON *it;
        cJSON_ArrayForEach(it, opts) {
            if (strcmp(it->string, "entry") != 0 && strcmp(it->string, "all-placed") != 0)
                return base_err_set(err, BASE_EINVAL,
                                    "unknown stack4 option \"%s\" (known: entry, all-placed)",
                                    it->string);
        }
        if ((rc = stack4__option(opts, "entry", entries, 3, &entry, err)) != 0 ||
            (rc = stack4__option(opts, "all-placed", fulls, 2, &full, err)) != 0)
            return rc;
    }
    if (!(s = calloc(1, sizeof *s)))
        return base_err_set(err, BASE_ENOMEM, "out of memory");
    if ((rc = stack4__tables_new(&s->t)) != 0) {
        free(s);
        return base_err_set(err, rc, "out of memory");
    }
    s->entry = entry;
    s->full = full;
    s->left[0] = s->left[1] = STACK4_ALL_KINDS;
    memset(s->owner_of, -1, sizeof s->owner_of);
    *state = s;
    return 0;
}

static void stack4__destroy(void *state)
{
    stack4_state *s = state;
    if (!s)
        return;
    stack4__tables_release(s->t);
    free(s);
}

static int stack4__clone(const void *state, void **out)
{
    stack4_state *c = malloc(sizeof *c);
    *out = NULL;
    if (!c)
        return BASE_ENOMEM;
    memcpy(c, state, sizeof *c);
    atomic_fetch_add(&c->t->refs, 1);
    *out = c;
    return 0;
}

static void stack4__status(const void *state, rules_status *out)
{
    const stack4_state *s = state;
    out->to_move = s->to_move;
    for (int p = 0; p < 2; p++) {
        out->hand[p] = __builtin_popcount(s->left[p]);
        out->scores[p] = STACK4_KINDS - out->hand[p];
    }
    out->moves = s->moves;
    out->over = s->over;
    out->winners = s->winners;
}

/* ---- checking a move ---- */

static void stack4__cell_text(const int8_t c[3], char buf[32])
{
    snprintf(buf, 32, "(%d,%d,%d)", c[0], c[1], c[2]);
}

/* "light's T", for the piece covering bit b. */
static void stack4__who(const stack4_state *s, int b, char buf[32])
{
    const rules_piece *p = &s->pos[s->owner_of[b]];
    snprintf(buf, 32, "%s's %s", rules__stack4_owner_name(p->owner),
             rules__stack4_kind_name(p->a));
}

static void stack4__bit_cell(int b, int8_t c[3])
{
    c[0] = (int8_t)(b % STACK4_N);
    c[1] = (int8_t)(b / STACK4_N % STACK4_N);
    c[2] = (int8_t)(b / (STACK4_N * STACK4_N));
}

/* Which rotation of kind k the cells are, or -1. */
static int stack4__rotation_of(const stack4_tables *t, int k, const int8_t cells[4][3])
{
    int8_t c[4][3];
    memcpy(c, cells, sizeof c);
    stack4__normalise(c);
    for (int r = 0; r < t->nrot[k]; r++)
        if (memcmp(t->rot[k][r], c, sizeof c) == 0)
            return r;
    return -1;
}

/* The cell that keeps the other three from being part of kind k, if the
 * other three do fit some rotation of it; -1 when no single cell is to
 * blame. */
static int stack4__misfit(const stack4_tables *t, int k, const int8_t g[4][3])
{
    for (int r = 0; r < t->nrot[k]; r++)
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++) {
                int tr[3], hit = 0, miss = -1;
                for (int a = 0; a < 3; a++)
                    tr[a] = g[i][a] - t->rot[k][r][j][a];
                for (int q = 0; q < 4; q++) {
                    int found = 0;
                    for (int u = 0; u < 4 && !found; u++)
                        found = g[q][0] == t->rot[k][r][u][0] + tr[0] &&
                                g[q][1] == t->rot[k][r][u][1] + tr[1] &&
                                g[q][2] == t->rot[k][r][u][2] + tr[2];
                    if (found)
                        hit++;
                    else
                        miss = q;
                }
                if (hit == 3)
                    return miss;
            }
    return -1;
}

/* "an L", "an I", "an O", "an S...", "a T", "a Y": by the sound of the name. */
static const char *stack4__article(int kind) { return kind == 3 || kind == 7 ? "a" : "an"; }

static void stack4__check_shape(const stack4_state *s, const rules_piece *pc, rules_verdict *v)
{
    const char *name = rules__stack4_kind_name(pc->a);
    char cell[32];
    int bad;

    for (int i = 0; i < 4; i++)
        for (int j = i + 1; j < 4; j++)
            if (memcmp(pc->cells[i], pc->cells[j], 3) == 0) {
                stack4__cell_text(pc->cells[i], cell);
                rules__illegal(v, "wrong-shape", "cell %s is listed twice: %s %s covers 4 cells",
                               cell, stack4__article(pc->a), name);
                return;
            }
    if (stack4__rotation_of(s->t, pc->a, (const int8_t(*)[3])pc->cells) >= 0)
        return;
    for (int k = 0; k < STACK4_KINDS; k++)
        if (stack4__rotation_of(s->t, k, (const int8_t(*)[3])pc->cells) >= 0) {
            rules__illegal(v, "wrong-shape",
                           "the cells form %s %s, not %s %s%s", stack4__article(k),
                           rules__stack4_kind_name(k), stack4__article(pc->a), name,
                           (k == 5 || k == 6) && (pc->a == 5 || pc->a == 6)
                               ? " (mirror images are different pieces)"
                               : "");
            return;
        }
    bad = stack4__misfit(s->t, pc->a, (const int8_t(*)[3])pc->cells);
    if (bad >= 0) {
        stack4__cell_text(pc->cells[bad], cell);
        rules__illegal(v, "wrong-shape",
                       "the cells are not %s %s in any rotation: cell %s does not fit the shape",
                       stack4__article(pc->a), name, cell);
    } else {
        rules__illegal(v, "wrong-shape", "the cells are not %s %s in any rotation",
                       stack4__article(pc->a), name);
    }
}

static void stack4__check(const void *state, int player, const rules_move *m, rules_verdict *v)
{
    const stack4_state *s = state;
    const rules_piece *pc = &m->pieces[0];
    const char *name, *me = rules__stack4_owner_name(player);
    stack4_place pl;
    char cell[32], who[32];

    if (m->type != RULES_MOVE_PLACE) {
        rules__illegal(v, "not-a-place", "in stack4 every turn places one piece");
        return;
    }
    if (m->npieces != 1) {
        rules__illegal(v, "one-piece", "a turn places exactly one piece, this move has %d",
                       m->npieces);
        return;
    }
    name = rules__stack4_kind_name(pc->a);
    if (!name) {
        rules__illegal(v, "unknown-piece", "piece kind %d is not one of I O L T S SR SL Y",
                       pc->a);
        return;
    }
    if (pc->owner != player) {
        if (!rules__stack4_owner_name(pc->owner)) {
            rules__illegal(v, "wrong-player", "player %d plays %s, but the %s has no owner",
                           player, me, name);
            return;
        }
        rules__illegal(v, "wrong-player", "player %d plays %s, but the %s is %s's", player, me,
                       name, rules__stack4_owner_name(pc->owner));
        return;
    }
    if (!(s->left[player] >> pc->a & 1)) {
        rules__illegal(v, "piece-used", "%s has already placed its %s", me, name);
        return;
    }
    if (m->nhand >= 0) {
        int in = 0;
        for (int i = 0; i < m->nhand && !in; i++)
            in = m->hand[i].a == pc->a;
        if (!in) {
            rules__illegal(v, "not-in-hand", "the %s is not in the hand %s shows", name, me);
            return;
        }
    }
    if (pc->ncells != 4) {
        rules__illegal(v, "wrong-shape", "%s %s covers 4 cells, this one lists %d",
                       stack4__article(pc->a), name, pc->ncells);
        return;
    }
    stack4__check_shape(s, pc, v);
    if (!v->legal)
        return;
    for (int i = 0; i < 4; i++) {
        const int8_t *c = pc->cells[i];
        if (!stack4__inside(c[0], c[1], c[2])) {
            stack4__cell_text(c, cell);
            rules__illegal(v, "out-of-bounds", "cell %s is out of bounds: %s", cell,
                           c[2] < 0                                ? "it is below the base"
                           : c[2] >= STACK4_N                      ? "it is more than 4 cubes above the base"
                                                                   : "it overhangs the edge of the 4x4 base");
            return;
        }
    }
    stack4__make_place((const int8_t(*)[3])pc->cells, pc->a, &pl);
    if (pl.mask & s->occ) {
        int b = __builtin_ctzll(pl.mask & s->occ);
        int8_t c[3];
        stack4__bit_cell(b, c);
        stack4__cell_text(c, cell);
        stack4__who(s, b, who);
        rules__illegal(v, "cell-occupied", "cell %s is already taken by %s", cell, who);
        return;
    }
    if (!pl.on_base && !(pl.below & s->occ)) {
        int b = __builtin_ctzll(pl.mask); /* the lowest cell */
        int8_t c[3];
        stack4__bit_cell(b, c);
        stack4__cell_text(c, cell);
        rules__illegal(v, "unsupported",
                       "the piece would float: no cell rests on the base or on a piece "
                       "(its lowest cell %s has nothing under it)",
                       cell);
        return;
    }
    if (!stack4__legal(&pl, s->occ, s->entry)) {
        int b = __builtin_ctzll(pl.sweep[0] & s->occ); /* the lowest blocker */
        int8_t c[3];
        stack4__bit_cell(b, c);
        stack4__cell_text(c, cell);
        stack4__who(s, b, who);
        rules__illegal(v, "unreachable",
                       "the %s cannot get there: dropped from above it hits %s at %s%s", name,
                       who, cell,
                       s->entry == STACK4_ENTRY_SLIDE
                           ? ", and sliding in from each of the four sides is blocked too"
                           : " (this game allows only drops from above)");
    }
}

static void stack4__apply(void *state, int player, const rules_move *m, rules_verdict *v)
{
    stack4_state *s = state;
    const rules_piece *pc = &m->pieces[0];
    int other = 1 - player, idx = s->npos;
    uint64_t mask = 0;

    for (int i = 0; i < 4; i++) {
        int b = stack4__bit(pc->cells[i][0], pc->cells[i][1], pc->cells[i][2]);
        mask |= 1ull << b;
        s->owner_of[b] = (int8_t)idx;
    }
    s->pos[s->npos++] = *pc;
    s->occ |= mask;
    s->occ_by[player] |= mask;
    s->left[player] &= ~(1u << pc->a);
    s->moves++;
    s->to_move = other;
    v->points = 1;
    if (!rules__stack4_can_move(s->t, s->occ, s->left[other], s->entry)) {
        s->over = 1;
        if (s->left[other] == 0 && s->full == STACK4_FULL_DRAW) {
            s->winners = 0;
            snprintf(v->note, sizeof v->note, "the volume is full: a draw");
        } else {
            s->winners = 1u << player;
            if (s->left[other] == 0)
                snprintf(v->note, sizeof v->note, "%s has placed all 8 pieces: %s wins",
                         rules__stack4_owner_name(other), rules__stack4_owner_name(player));
            else
                snprintf(v->note, sizeof v->note,
                         "%s cannot place any of its %d remaining pieces: %s wins",
                         rules__stack4_owner_name(other), __builtin_popcount(s->left[other]),
                         rules__stack4_owner_name(player));
        }
    }
}

static int stack4__position(const void *state, rules_piece *out, int cap)
{
    const stack4_state *s = state;
    for (int i = 0; i < s->npos && i < cap; i++)
        out[i] = s->pos[i];
    return s->npos;
}

static int stack4__generate(const void *state, int player, const rules_piece *hand, int nhand,
                            rules_move_fn fn, void *ctx)
{
    const stack4_state *s = state;
    unsigned kinds = s->left[player];
    int count = 0;

    if (s->over)
        return 0;
    if (nhand >= 0) {
        unsigned h = 0;
        for (int i = 0; i < nhand; i++)
            if (hand[i].a < STACK4_KINDS)
                h |= 1u << hand[i].a;
        kinds &= h;
    }
    for (int k = 0; k < STACK4_KINDS; k++) {
        if (!(kinds >> k & 1))
            continue;
        for (int i = s->t->first[k]; i < s->t->first[k + 1]; i++)
            if (stack4__legal(&s->t->place[i], s->occ, s->entry)) {
                rules_move m;
                rules__stack4_move_of(s->t, i, player, &m);
                count++;
                if (fn && fn(ctx, &m) != 0)
                    return count;
            }
    }
    return count;
}

const rules__engine rules__stack4_engine = {
    .id = "stack4",
    .min_players = 2,
    .max_players = 2,
    .create = stack4__create,
    .destroy = stack4__destroy,
    .clone = stack4__clone,
    .status = stack4__status,
    .check = stack4__check,
    .apply = stack4__apply,
    .position = stack4__position,
    .generate = stack4__generate,
    .piece_from_json = rules__stack4_piece_from_json,
    .piece_to_json = rules__stack4_piece_to_json,
    .move_from_json = rules__stack4_move_from_json,
    .move_to_json = rules__stack4_move_to_json,
    .hand_from_json = rules__stack4_hand_from_json,
    .hand_to_json = rules__stack4_hand_to_json,
    .verdict_extras = NULL,
};
