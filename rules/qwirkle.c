/* rules/qwirkle.c: the Qwirkle Cubes engine (game id "qwirkle", GAMES.md;
 * docs/rules-qwirkle.md lists its rule ids and options).
 *
 * The table is an unbounded grid, but a game holds at most 90 cubes and
 * every placement after the first touches the cubes already down, so the
 * board never reaches further than 89 cells from its first cube.  The grid
 * is therefore a fixed 256 x 256 byte array whose origin is set at the first
 * placement (that cube at its centre): a lookup is a subtraction and a load,
 * cells outside the window read as empty, and the board may sit anywhere in
 * int16 coordinates.  The JSON codec is in qwirkle_json.c. */
#include "engine.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define QW__N 256          /* grid window side; see the file comment */
#define QW__CUBES 90       /* cubes in the game */
#define QW__HAND 6         /* a full hand */
#define QW__LINE 6         /* longest line */
#define QW__COLORS 6
#define QW__SHAPES 6
#define QW__TYPES 36       /* a cube type is colour * 6 + shape */
#define QW__ALL ((UINT64_C(1) << QW__TYPES) - 1)
#define QW__REC 8          /* cubes of a line kept for the reason sentence */

typedef struct qw__opts {
    bool deadlock_end;   /* a full round without placing, bag empty, ends the game */
    bool first_turn_max; /* the first placement places the most it can (hand known) */
    int end_bonus;       /* for emptying the hand with the bag empty */
    int qwirkle_bonus;   /* for completing a line of 6 */
} qw__opts;

typedef struct qw__state {
    int nplayers, to_move;
    int scores[RULES_MAX_PLAYERS];
    int hand[RULES_MAX_PLAYERS];
    int bag, moves;
    int idle; /* turns in a row without placing, taken with the bag empty */
    bool over;
    unsigned winners;
    qw__opts opt;
    int ox, oy; /* cell (x,y) is grid[(y - oy) * QW__N + (x - ox)] */
    int ncubes;
    int minx, maxx, miny, maxy; /* bounding box of the board when ncubes > 0 */
    rules_piece cubes[QW__CUBES]; /* in the order they were placed */
    uint8_t grid[QW__N * QW__N];  /* 0 empty, else 1 + cube type */
} qw__state;

/* ---- small helpers ---- */

/* Bits set in a colour or shape mask (6 bits).  A table, because without
 * a popcount instruction the builtin is a library call, and this is the
 * inner loop of both the checker and the generator. */
static const uint8_t qw__bits[64] = {
    0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 1, 2, 2, 3, 2, 3, 3, 4, 2, 3, 3, 4, 3, 4, 4, 5,
    1, 2, 2, 3, 2, 3, 3, 4, 2, 3, 3, 4, 3, 4, 4, 5, 2, 3, 3, 4, 3, 4, 4, 5, 3, 4, 4, 5, 4, 5, 5, 6,
};

static int qw__pc(unsigned v) { return qw__bits[v & 63]; }

static inline int qw__at(const qw__state *s, int x, int y)
{
    unsigned gx = (unsigned)(x - s->ox), gy = (unsigned)(y - s->oy);
    if (gx >= QW__N || gy >= QW__N)
        return 0;
    return s->grid[gy * QW__N + gx];
}

/* The cell at position u along a line on axis (0 a row: u is x and v is y;
 * 1 a column: u is y and v is x). */
static inline int qw__at_axis(const qw__state *s, int axis, int u, int v)
{
    return axis == 0 ? qw__at(s, u, v) : qw__at(s, v, u);
}

static bool qw__in_window(const qw__state *s, int x, int y)
{
    return (unsigned)(x - s->ox) < QW__N && (unsigned)(y - s->oy) < QW__N;
}

/* A set of cubes (colour mask cm, shape mask sm, n of them) can be one line:
 * one colour with distinct shapes, or one shape with distinct colours. */
static bool qw__line_ok(unsigned cm, unsigned sm, int n)
{
    return n <= 1 || (qw__pc(cm) == 1 && qw__pc(sm) == n) || (qw__pc(sm) == 1 && qw__pc(cm) == n);
}

/* The cube types that may join a valid line of n cubes (masks cm, sm). */
static uint64_t qw__fit_mask(unsigned cm, unsigned sm, int n)
{
    uint64_t mask = 0;
    if (n == 0)
        return QW__ALL;
    if (n >= QW__LINE)
        return 0;
    if (qw__pc(cm) == 1 && qw__pc(sm) == n) {
        int c = __builtin_ctz(cm);
        for (int sh = 0; sh < QW__SHAPES; sh++)
            if (!(sm & (1u << sh)))
                mask |= UINT64_C(1) << (c * QW__SHAPES + sh);
    }
    if (qw__pc(sm) == 1 && qw__pc(cm) == n) {
        int sh = __builtin_ctz(sm);
        for (int c = 0; c < QW__COLORS; c++)
            if (!(cm & (1u << c)))
                mask |= UINT64_C(1) << (c * QW__SHAPES + sh);
    }
    return mask;
}

static const char *const qw__plural[QW__SHAPES] = {
    "circles", "squares", "diamonds", "clovers", "star4s", "star8s",
};

/* "the row at y=0" / "the column at x=3" */
static void qw__line_name(char *buf, size_t cap, int axis, int v)
{
    if (axis == 0)
        snprintf(buf, cap, "the row at y=%d", v);
    else
        snprintf(buf, cap, "the column at x=%d", v);
}

/* Hand multiset: counts per cube type; pieces that are not qwirkle cubes
 * are left out (they can match nothing). */
static void qw__hand_counts(const rules_piece *hand, int nhand, int cnt[QW__TYPES])
{
    memset(cnt, 0, sizeof(int) * QW__TYPES);
    for (int i = 0; i < nhand; i++)
        if (hand[i].a < QW__COLORS && hand[i].b < QW__SHAPES)
            cnt[hand[i].a * QW__SHAPES + hand[i].b]++;
}

/* The most cubes of a hand that can form one line: the most distinct shapes
 * of one colour or distinct colours of one shape.  On an empty table this is
 * the largest placement the move generator finds, so the first-turn rule
 * uses it directly instead of listing every placement. */
static int qw__max_line(const int cnt[QW__TYPES], int *best_axis, int *best_attr)
{
    int best = 0;
    *best_axis = 0;
    *best_attr = 0;
    for (int c = 0; c < QW__COLORS; c++) {
        int n = 0;
        for (int sh = 0; sh < QW__SHAPES; sh++)
            n += cnt[c * QW__SHAPES + sh] > 0;
        if (n > best) {
            best = n;
            *best_axis = 0;
            *best_attr = c;
        }
    }
    for (int sh = 0; sh < QW__SHAPES; sh++) {
        int n = 0;
        for (int c = 0; c < QW__COLORS; c++)
            n += cnt[c * QW__SHAPES + sh] > 0;
        if (n > best) {
            best = n;
            *best_axis = 1;
            *best_attr = sh;
        }
    }
    return best;
}

/* ---- options ---- */

static int qw__opt_bool(const cJSON *it, bool *out, base_err *err)
{
    if (!cJSON_IsBool(it))
        return base_err_set(err, BASE_EPARSE, "option \"%s\" in \"options\" must be true or false",
                            it->string);
    *out = cJSON_IsTrue(it);
    return 0;
}

static int qw__opt_int(const cJSON *it, int lo, int hi, int *out, base_err *err)
{
    if (!cJSON_IsNumber(it) || it->valuedouble != (double)(int)it->valuedouble ||
        it->valueint < lo || it->valueint > hi)
        return base_err_set(err, BASE_EPARSE,
                            "option \"%s\" in \"options\" must be a whole number from %d to %d",
                            it->string, lo, hi);
    *out = it->valueint;
    return 0;
}

static int qw__read_options(const cJSON *header, qw__opts *o, base_err *err)
{
    const cJSON *opts, *it;
    o->deadlock_end = true;
    o->first_turn_max = true;
    o->end_bonus = 6;
    o->qwirkle_bonus = 6;
    if (!header)
        return 0;
    opts = cJSON_GetObjectItemCaseSensitive(header, "options");
    if (!opts || cJSON_IsNull(opts))
        return 0;
    if (!cJSON_IsObject(opts))
        return base_err_set(err, BASE_EPARSE, "\"options\" must be a JSON object");
    cJSON_ArrayForEach(it, opts) {
        int rc;
        if (strcmp(it->string, "deadlock_end") == 0)
            rc = qw__opt_bool(it, &o->deadlock_end, err);
        else if (strcmp(it->string, "first_turn_max") == 0)
            rc = qw__opt_bool(it, &o->first_turn_max, err);
        else if (strcmp(it->string, "end_bonus") == 0)
            rc = qw__opt_int(it, 0, 100, &o->end_bonus, err);
        else if (strcmp(it->string, "qwirkle_bonus") == 0)
            rc = qw__opt_int(it, 0, 100, &o->qwirkle_bonus, err);
        else
            rc = base_err_set(err, BASE_EPARSE,
                              "unknown option \"%s\" in \"options\" (qwirkle has: deadlock_end, "
                              "first_turn_max, end_bonus, qwirkle_bonus)",
                              it->string);
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* ---- state ---- */

static int qw__create(const cJSON *header, int nplayers, base_err *err, void **state)
{
    qw__state *s;
    qw__opts o;
    int rc;
    *state = NULL;
    /* "seed" may be present: the referee does not see draws, so it is
     * ignored. */
    if ((rc = qw__read_options(header, &o, err)) != 0)
        return rc;
    if (!(s = calloc(1, sizeof *s)))
        return base_err_set(err, BASE_ENOMEM, "out of memory");
    s->nplayers = nplayers;
    s->opt = o;
    for (int i = 0; i < nplayers; i++)
        s->hand[i] = QW__HAND;
    s->bag = QW__CUBES - QW__HAND * nplayers;
    s->ox = -QW__N / 2;
    s->oy = -QW__N / 2;
    *state = s;
    return 0;
}

static int qw__clone(const void *state, void **out)
{
    return rules__clone_block(state, sizeof(qw__state), out);
}

static void qw__status(const void *state, rules_status *out)
{
    const qw__state *s = state;
    out->to_move = s->to_move;
    for (int i = 0; i < s->nplayers; i++) {
        out->scores[i] = s->scores[i];
        out->hand[i] = s->hand[i];
    }
    out->bag = s->bag;
    out->moves = s->moves;
    out->over = s->over;
    out->winners = s->winners;
}

static int qw__position(const void *state, rules_piece *out, int cap)
{
    const qw__state *s = state;
    for (int i = 0; i < s->ncubes && i < cap; i++)
        out[i] = s->cubes[i];
    return s->ncubes;
}

/* ---- checking a placement ---- */

/* One line through the placement: where it lies, how long it is and (the
 * first QW__REC of) its cubes, for the verdict and the score. */
typedef struct qw__line {
    int axis, v; /* axis 0: a row at y=v; 1: a column at x=v */
    int len;
    int n;
    uint8_t t[QW__REC];
    unsigned cm, sm;
} qw__line;

static void qw__line_add(qw__line *l, int t)
{
    if (l->n < QW__REC) {
        l->t[l->n] = (uint8_t)t;
        l->n++;
    }
    l->cm |= 1u << (t / QW__SHAPES);
    l->sm |= 1u << (t % QW__SHAPES);
    l->len++;
}

/* Says what is wrong with a line of 2 or more cubes, or returns true. */
static bool qw__line_verdict(const qw__line *l, rules_verdict *v)
{
    char name[48];
    if (qw__line_ok(l->cm, l->sm, l->len) && l->len <= QW__LINE)
        return true;
    qw__line_name(name, sizeof name, l->axis, l->v);
    if (l->len > QW__LINE) {
        rules__illegal(v, "line-too-long", "%s would be %d cubes long (a line holds at most %d)",
                       name, l->len, QW__LINE);
        return false;
    }
    /* One attribute is shared but the other repeats: two identical cubes. */
    if (qw__pc(l->cm) == 1 || qw__pc(l->sm) == 1) {
        for (int i = 0; i < l->n; i++)
            for (int j = i + 1; j < l->n; j++)
                if (l->t[i] == l->t[j]) {
                    rules__illegal(v, "line-duplicate", "%s would hold two %s %s", name,
                                   rules_color_name(l->t[i] / QW__SHAPES),
                                   qw__plural[l->t[i] % QW__SHAPES]);
                    return false;
                }
    }
    /* Neither one colour nor one shape: some two cubes share nothing. */
    for (int i = 0; i < l->n; i++)
        for (int j = i + 1; j < l->n; j++) {
            int a = l->t[i], b = l->t[j];
            if (a / QW__SHAPES != b / QW__SHAPES && a % QW__SHAPES != b % QW__SHAPES) {
                rules__illegal(v, "line-mixed",
                               "%s would hold %s %s %s and %s %s %s, which share neither "
                               "colour nor shape",
                               name, rules__a(rules_color_name(a / QW__SHAPES)),
                               rules_color_name(a / QW__SHAPES), rules_shape_name(a % QW__SHAPES),
                               rules__a(rules_color_name(b / QW__SHAPES)),
                               rules_color_name(b / QW__SHAPES), rules_shape_name(b % QW__SHAPES));
                return false;
            }
        }
    rules__illegal(v, "line-mixed", "%s would be neither one colour nor one shape", name);
    return false;
}

/* What a legal placement does, for apply(). */
typedef struct qw__result {
    int points;
    int nqwirkle;
    char qwirkle_line[48];
} qw__result;

static int qw__type(const rules_piece *p) { return p->a * QW__SHAPES + p->b; }

/* Checks a placement: the verdict when illegal; points when legal. */
static bool qw__check_place(const qw__state *s, int player, const rules_move *m, rules_verdict *v,
                            qw__result *res)
{
    const rules_piece *pc = m->pieces;
    int k = m->npieces, axis, order[RULES_MAX_MOVE_PIECES];
    qw__line main, perp[RULES_MAX_MOVE_PIECES];
    bool touching = false;

    memset(res, 0, sizeof *res);
    if (k <= 0) {
        rules__illegal(v, "no-cubes", "a placement needs at least one cube");
        return false;
    }
    if (k > RULES_MAX_MOVE_PIECES || k > s->hand[player]) {
        rules__illegal(v, "too-many-cubes", "player %d holds %d cubes, but the move places %d",
                       player + 1, s->hand[player], k);
        return false;
    }
    for (int i = 0; i < k; i++)
        if (pc[i].a >= QW__COLORS || pc[i].b >= QW__SHAPES) {
            rules__illegal(v, "bad-piece",
                           "the cube at (%d,%d) is not a qwirkle cube (colours red to purple, "
                           "shapes circle to star8)",
                           pc[i].x, pc[i].y);
            return false;
        }
    for (int i = 0; i < k; i++)
        for (int j = i + 1; j < k; j++)
            if (pc[i].x == pc[j].x && pc[i].y == pc[j].y) {
                rules__illegal(v, "duplicate-cell", "the cell (%d,%d) is used twice in this move",
                               pc[i].x, pc[i].y);
                return false;
            }
    for (int i = 0; i < k; i++) {
        int t = qw__at(s, pc[i].x, pc[i].y);
        if (t) {
            rules__illegal(v, "cell-taken", "the cell (%d,%d) already holds %s %s %s", pc[i].x,
                           pc[i].y, rules__a(rules_color_name((t - 1) / QW__SHAPES)),
                           rules_color_name((t - 1) / QW__SHAPES),
                           rules_shape_name((t - 1) % QW__SHAPES));
            return false;
        }
    }
    /* The axis: a row when the first two share y, a column when they share
     * x; a single cube is looked at as a row (its column is a crossing). */
    axis = 0;
    if (k >= 2) {
        if (pc[0].y == pc[1].y) {
            axis = 0;
        } else if (pc[0].x == pc[1].x) {
            axis = 1;
        } else {
            rules__illegal(v, "not-in-line",
                           "the cubes at (%d,%d) and (%d,%d) are neither in one row nor in one "
                           "column",
                           pc[0].x, pc[0].y, pc[1].x, pc[1].y);
            return false;
        }
        for (int i = 2; i < k; i++)
            if ((axis == 0 && pc[i].y != pc[0].y) || (axis == 1 && pc[i].x != pc[0].x)) {
                rules__illegal(v, "not-in-line", "the cube at (%d,%d) is not in the %s %s=%d of "
                               "the other cubes",
                               pc[i].x, pc[i].y, axis == 0 ? "row" : "column",
                               axis == 0 ? "y" : "x", axis == 0 ? pc[0].y : pc[0].x);
                return false;
            }
    }
    /* The hand: counted always, its cubes checked when it is shown. */
    if (m->nhand >= 0 && m->nhand != s->hand[player]) {
        rules__illegal(v, "hand-count", "the hand shows %d cubes, but player %d holds %d",
                       m->nhand, player + 1, s->hand[player]);
        return false;
    }
    if (m->nhand >= 0) {
        int cnt[QW__TYPES], have[QW__TYPES];
        qw__hand_counts(m->hand, m->nhand, cnt);
        memcpy(have, cnt, sizeof have);
        for (int i = 0; i < k; i++) {
            int t = qw__type(&pc[i]);
            if (--cnt[t] < 0) {
                if (have[t] == 0)
                    rules__illegal(v, "not-in-hand", "the hand holds no %s %s for the cube at "
                                   "(%d,%d)",
                                   rules_color_name(pc[i].a), rules_shape_name(pc[i].b),
                                   pc[i].x, pc[i].y);
                else
                    rules__illegal(v, "not-in-hand",
                                   "the hand holds %d %s %s, the move places more",
                                   have[t], rules_color_name(pc[i].a),
                                   have[t] == 1 ? rules_shape_name(pc[i].b) : qw__plural[pc[i].b]);
                return false;
            }
        }
    }

    /* The main line: sort the placed cubes along the axis, fill the gaps
     * between them from the table, then extend both ends. */
    for (int i = 0; i < k; i++) {
        int j = i, ui = axis == 0 ? pc[i].x : pc[i].y;
        while (j > 0 && (axis == 0 ? pc[order[j - 1]].x : pc[order[j - 1]].y) > ui) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = i;
    }
    memset(&main, 0, sizeof main);
    main.axis = axis;
    main.v = axis == 0 ? pc[0].y : pc[0].x;
    {
        int u0 = axis == 0 ? pc[order[0]].x : pc[order[0]].y;
        int u1 = axis == 0 ? pc[order[k - 1]].x : pc[order[k - 1]].y;
        int lo = u0, hi = u1, next = 0, t;
        while ((t = qw__at_axis(s, axis, lo - 1, main.v)) != 0 && u0 - lo < QW__CUBES)
            lo--;
        while ((t = qw__at_axis(s, axis, hi + 1, main.v)) != 0 && hi - u1 < QW__CUBES)
            hi++;
        for (int u = lo; u <= hi; u++) {
            const rules_piece *p = next < k ? &pc[order[next]] : NULL;
            if (p && (axis == 0 ? p->x : p->y) == u) {
                qw__line_add(&main, qw__type(p));
                next++;
            } else if ((t = qw__at_axis(s, axis, u, main.v)) != 0) {
                qw__line_add(&main, t - 1);
                if (u > u0 && u < u1)
                    touching = true;
            } else {
                char name[48];
                qw__line_name(name, sizeof name, axis, main.v);
                rules__illegal(v, "gap", "%s would have a gap at (%d,%d) between the placed cubes",
                               name, axis == 0 ? u : main.v, axis == 0 ? main.v : u);
                return false;
            }
            /* A line this long is illegal whatever else; stop counting. */
            if (main.len > QW__CUBES)
                break;
        }
        if (lo < u0 || hi > u1)
            touching = true;
    }
    /* The crossing lines, one through each placed cube. */
    for (int i = 0; i < k; i++) {
        qw__line *l = &perp[i];
        int pu = axis == 0 ? pc[i].y : pc[i].x, pv = axis == 0 ? pc[i].x : pc[i].y;
        int lo = pu, hi = pu, t;
        memset(l, 0, sizeof *l);
        l->axis = 1 - axis;
        l->v = pv;
        while (qw__at_axis(s, l->axis, lo - 1, pv) && pu - lo < QW__CUBES)
            lo--;
        while (qw__at_axis(s, l->axis, hi + 1, pv) && hi - pu < QW__CUBES)
            hi++;
        for (int u = lo; u <= hi; u++) {
            if (u == pu)
                qw__line_add(l, qw__type(&pc[i]));
            else if ((t = qw__at_axis(s, l->axis, u, pv)) != 0)
                qw__line_add(l, t - 1);
        }
        if (l->len >= 2)
            touching = true;
    }
    if (s->ncubes > 0 && !touching) {
        rules__illegal(v, "not-touching",
                       "no placed cube touches a cube on the table side to side (the cube at "
                       "(%d,%d) is alone)",
                       pc[0].x, pc[0].y);
        return false;
    }
    if (main.len >= 2 && !qw__line_verdict(&main, v))
        return false;
    for (int i = 0; i < k; i++)
        if (perp[i].len >= 2 && !qw__line_verdict(&perp[i], v))
            return false;

    /* First placement with the hand known: the most cubes it can. */
    if (s->ncubes == 0 && m->nhand >= 0 && s->opt.first_turn_max) {
        int cnt[QW__TYPES], bax, battr, best;
        qw__hand_counts(m->hand, m->nhand, cnt);
        best = qw__max_line(cnt, &bax, &battr);
        if (best < 2) {
            rules__illegal(v, "first-turn-min",
                           "no two cubes of this hand can share a line: the first player "
                           "re-rolls until at least 2 cubes can be placed");
            return false;
        }
        if (k < best) {
            char which[48];
            if (bax == 0)
                snprintf(which, sizeof which, "the %s ones", rules_color_name(battr));
            else
                snprintf(which, sizeof which, "%s of different colours", qw__plural[battr]);
            rules__illegal(v, "first-turn-max",
                           "the first placement must place as many cubes as the hand allows: "
                           "%d (%s), not %d",
                           best, which, k);
            return false;
        }
    }
    /* Cannot happen for a placement that touches the board (see the file
     * comment); kept so that apply() never writes outside the grid. */
    if (s->ncubes > 0)
        for (int i = 0; i < k; i++)
            if (!qw__in_window(s, pc[i].x, pc[i].y)) {
                rules__illegal(v, "too-far", "the cube at (%d,%d) lies too far from the table",
                               pc[i].x, pc[i].y);
                return false;
            }

    /* Score: every line of 2 or more the placement made or extended. */
    {
        const qw__line *lines[RULES_MAX_MOVE_PIECES + 1];
        int nl = 0;
        if (main.len >= 2)
            lines[nl++] = &main;
        for (int i = 0; i < k; i++)
            if (perp[i].len >= 2)
                lines[nl++] = &perp[i];
        for (int i = 0; i < nl; i++) {
            res->points += lines[i]->len;
            if (lines[i]->len == QW__LINE) {
                res->points += s->opt.qwirkle_bonus;
                if (res->nqwirkle++ == 0)
                    qw__line_name(res->qwirkle_line, sizeof res->qwirkle_line, lines[i]->axis,
                                  lines[i]->v);
            }
        }
        if (nl == 0)
            res->points = 1; /* a lone first cube */
    }
    return true;
}

static void qw__check(const void *state, int player, const rules_move *m, rules_verdict *v)
{
    const qw__state *s = state;
    qw__result res;
    switch (m->type) {
    case RULES_MOVE_PLACE:
        if (qw__check_place(s, player, m, v, &res))
            v->points = res.points;
        break;
    case RULES_MOVE_REROLL:
        break; /* always legal: a re-roll only changes shapes in the hand */
    case RULES_MOVE_DRAW:
        if (s->hand[player] >= QW__HAND)
            rules__illegal(v, "hand-full",
                           "player %d's hand is full (%d cubes): there is nothing to draw",
                           player + 1, s->hand[player]);
        else if (s->bag == 0)
            rules__illegal(v, "bag-empty",
                           "the bag is empty: there is nothing to draw (re-roll instead)");
        break;
    default:
        rules__illegal(v, "unknown-move", "qwirkle has no \"%s\" move (place, reroll or draw)",
                       rules__move_type_name(m->type));
        break;
    }
}

static void qw__finish(qw__state *s)
{
    int best = s->scores[0];
    s->over = true;
    s->winners = 0;
    for (int i = 1; i < s->nplayers; i++)
        if (s->scores[i] > best)
            best = s->scores[i];
    for (int i = 0; i < s->nplayers; i++)
        if (s->scores[i] == best)
            s->winners |= 1u << i;
}

static void qw__place(qw__state *s, const rules_move *m)
{
    if (s->ncubes == 0) {
        /* The first cube goes to the centre of the window. */
        s->ox = m->pieces[0].x - QW__N / 2;
        s->oy = m->pieces[0].y - QW__N / 2;
        s->minx = s->maxx = m->pieces[0].x;
        s->miny = s->maxy = m->pieces[0].y;
    }
    for (int i = 0; i < m->npieces && s->ncubes < QW__CUBES; i++) {
        const rules_piece *p = &m->pieces[i];
        rules_piece *c = &s->cubes[s->ncubes++];
        s->grid[(p->y - s->oy) * QW__N + (p->x - s->ox)] = (uint8_t)(1 + qw__type(p));
        memset(c, 0, sizeof *c);
        c->x = p->x;
        c->y = p->y;
        c->a = p->a;
        c->b = p->b;
        c->owner = -1;
        if (p->x < s->minx)
            s->minx = p->x;
        if (p->x > s->maxx)
            s->maxx = p->x;
        if (p->y < s->miny)
            s->miny = p->y;
        if (p->y > s->maxy)
            s->maxy = p->y;
    }
}

static void qw__apply(void *state, int player, const rules_move *m, rules_verdict *v)
{
    qw__state *s = state;
    bool bag_was_empty = s->bag == 0;

    if (m->type == RULES_MOVE_PLACE) {
        qw__result res;
        int drawn;
        if (!qw__check_place(s, player, m, v, &res))
            return; /* not reached: apply() follows a legal check() */
        qw__place(s, m);
        s->hand[player] -= m->npieces;
        drawn = m->npieces < s->bag ? m->npieces : s->bag;
        s->hand[player] += drawn;
        s->bag -= drawn;
        s->idle = 0;
        if (s->hand[player] == 0) {
            res.points += s->opt.end_bonus;
            s->scores[player] += res.points;
            qw__finish(s);
            snprintf(v->note, sizeof v->note,
                     "%s%.48s%splayer %d emptied their hand with the bag empty: +%d, the game "
                     "is over",
                     res.nqwirkle ? "Qwirkle: " : "", res.qwirkle_line,
                     res.nqwirkle ? " is complete; " : "", player + 1, s->opt.end_bonus);
        } else {
            s->scores[player] += res.points;
            if (res.nqwirkle)
                snprintf(v->note, sizeof v->note, "Qwirkle: %.48s is complete",
                         res.qwirkle_line);
        }
        v->points = res.points;
    } else if (m->type == RULES_MOVE_DRAW) {
        int want = QW__HAND - s->hand[player];
        int drawn = want < s->bag ? want : s->bag;
        s->hand[player] += drawn;
        s->bag -= drawn;
        s->idle = 0;
        v->points = 0;
    } else {
        v->points = 0;
        s->idle = bag_was_empty ? s->idle + 1 : 0;
    }
    s->moves++;
    s->to_move = (player + 1) % s->nplayers;
    if (!s->over && s->opt.deadlock_end && s->idle >= s->nplayers) {
        qw__finish(s);
        snprintf(v->note, sizeof v->note,
                 "every player took a turn without placing while the bag is empty: the game "
                 "is over");
    }
}

/* ---- the move generator ---- */

typedef struct qw__gen {
    const qw__state *s;
    int cnt[QW__TYPES];
    int types[QW__TYPES], ntypes; /* distinct cube types of the hand */
    int nh;
    rules_move_fn fn;
    void *ctx;
    rules_move *m;
    int count;
    bool stop;
    /* the segment being filled */
    int axis, v, k;
    int cell[QW__LINE];
    uint64_t allow[QW__LINE];
    uint8_t pick[QW__LINE];
} qw__gen;

static void qw__emit(qw__gen *g)
{
    rules_move *m = g->m;
    for (int i = 0; i < g->k; i++) {
        rules_piece *p = &m->pieces[i];
        int x = g->axis == 0 ? g->cell[i] : g->v, y = g->axis == 0 ? g->v : g->cell[i];
        if (x < INT16_MIN || x > INT16_MAX || y < INT16_MIN || y > INT16_MAX)
            return; /* not expressible as a move */
        p->x = (int16_t)x;
        p->y = (int16_t)y;
        p->a = (uint8_t)(g->pick[i] / QW__SHAPES);
        p->b = (uint8_t)(g->pick[i] % QW__SHAPES);
    }
    m->npieces = g->k;
    g->count++;
    if (g->fn(g->ctx, m) != 0)
        g->stop = true;
}

/* Assigns hand cubes to cells i.. of the segment; cm, sm, n describe the
 * line so far (cubes on the table and those already assigned). */
static void qw__fill(qw__gen *g, int i, unsigned cm, unsigned sm, int n)
{
    if (i == g->k) {
        qw__emit(g);
        return;
    }
    for (int j = 0; j < g->ntypes && !g->stop; j++) {
        int t = g->types[j];
        unsigned ncm, nsm;
        if (!g->cnt[t] || !(g->allow[i] & (UINT64_C(1) << t)))
            continue;
        ncm = cm | 1u << (t / QW__SHAPES);
        nsm = sm | 1u << (t % QW__SHAPES);
        if (!qw__line_ok(ncm, nsm, n + 1))
            continue;
        g->cnt[t]--;
        g->pick[i] = (uint8_t)t;
        qw__fill(g, i + 1, ncm, nsm, n + 1);
        g->cnt[t]++;
    }
}

/* The cube types that fit the crossing line through (u, v) of a line on
 * axis, and whether that cell has a neighbour across. */
static uint64_t qw__cross_mask(const qw__state *s, int axis, int u, int v, bool *nb)
{
    int cross = 1 - axis, t, n = 0;
    unsigned cm = 0, sm = 0;
    for (int w = v - 1; (t = qw__at_axis(s, cross, w, u)) != 0 && n <= QW__LINE; w--, n++) {
        cm |= 1u << ((t - 1) / QW__SHAPES);
        sm |= 1u << ((t - 1) % QW__SHAPES);
    }
    for (int w = v + 1; (t = qw__at_axis(s, cross, w, u)) != 0 && n <= QW__LINE; w++, n++) {
        cm |= 1u << ((t - 1) / QW__SHAPES);
        sm |= 1u << ((t - 1) % QW__SHAPES);
    }
    *nb = n > 0;
    return qw__fit_mask(cm, sm, n);
}

/* Every placement along lines on axis, rows/columns v0..v1, cells u0..u1;
 * with singles, also every one-cube placement (done on one axis only, so
 * that none is listed twice). */
static void qw__gen_axis(qw__gen *g, int axis, int v0, int v1, int u0, int u1, bool singles)
{
    const qw__state *s = g->s;
    int span = u1 - u0 + 1;
    uint8_t occ[QW__N + 2 * QW__LINE + 4];
    uint64_t cross[QW__N + 2 * QW__LINE + 4];
    bool nb[QW__N + 2 * QW__LINE + 4];

    for (int v = v0; v <= v1 && !g->stop; v++) {
        for (int i = 0; i < span; i++) {
            occ[i] = (uint8_t)qw__at_axis(s, axis, u0 + i, v);
            cross[i] = occ[i] ? 0 : qw__cross_mask(s, axis, u0 + i, v, &nb[i]);
            if (occ[i])
                nb[i] = false;
        }
        for (int a = 0; a < span && !g->stop; a++) {
            int l = a - 1, left, k = 0;
            unsigned lcm = 0, lsm = 0;
            if (occ[a])
                continue;
            while (l >= 0 && occ[l]) {
                lcm |= 1u << ((occ[l] - 1) / QW__SHAPES);
                lsm |= 1u << ((occ[l] - 1) % QW__SHAPES);
                l--;
            }
            left = a - 1 - l;
            if (singles) {
                int r = a + 1;
                unsigned cm = lcm, sm = lsm;
                while (r < span && occ[r]) {
                    cm |= 1u << ((occ[r] - 1) / QW__SHAPES);
                    sm |= 1u << ((occ[r] - 1) % QW__SHAPES);
                    r++;
                }
                if ((nb[a] || r - l - 2 > 0) && r - l - 1 <= QW__LINE) {
                    uint64_t ok = cross[a] & qw__fit_mask(cm, sm, r - l - 2);
                    g->axis = axis;
                    g->v = v;
                    g->k = 1;
                    g->cell[0] = u0 + a;
                    for (int j = 0; j < g->ntypes && !g->stop; j++)
                        if (ok & (UINT64_C(1) << g->types[j])) {
                            g->pick[0] = (uint8_t)g->types[j];
                            qw__emit(g);
                        }
                }
            }
            /* Segments a..b with both ends free: the free cells between are
             * the placement, the taken ones join its line. */
            k = 1;
            for (int b = a + 1; b < span && !g->stop; b++) {
                int r, total, n = 0;
                unsigned cm = 0, sm = 0;
                bool touch;
                if (b - a + 1 + left > QW__LINE)
                    break;
                if (occ[b])
                    continue;
                if (++k > g->nh)
                    break;
                for (r = b + 1; r < span && occ[r]; r++)
                    ;
                total = r - l - 1;
                if (total > QW__LINE)
                    break; /* a longer segment only makes the line longer */
                touch = total > k;
                for (int i = l + 1, c = 0; i < r; i++) {
                    if (occ[i]) {
                        cm |= 1u << ((occ[i] - 1) / QW__SHAPES);
                        sm |= 1u << ((occ[i] - 1) % QW__SHAPES);
                        n++;
                    } else {
                        touch |= nb[i];
                        g->cell[c] = u0 + i;
                        g->allow[c] = cross[i];
                        c++;
                    }
                }
                if (!touch || !qw__line_ok(cm, sm, n))
                    continue;
                g->axis = axis;
                g->v = v;
                g->k = k;
                qw__fill(g, 0, cm, sm, n);
            }
        }
    }
}

static int qw__generate(const void *state, int player, const rules_piece *hand, int nhand,
                        rules_move_fn fn, void *ctx)
{
    const qw__state *s = state;
    qw__gen g;
    rules_move *m;

    /* The hand must be known (the generator lists placements of real
     * cubes) and agree with the count, or every move would be illegal. */
    if (nhand < 0 || nhand > RULES_MAX_HAND || (nhand > 0 && !hand) || !fn)
        return BASE_EINVAL;
    if (nhand != s->hand[player])
        return BASE_EINVAL;
    if (s->over || nhand == 0)
        return 0;
    if (!(m = malloc(sizeof *m)))
        return BASE_ENOMEM;
    rules_move_init(m, RULES_MOVE_PLACE);
    for (int i = 0; i < RULES_MAX_MOVE_PIECES; i++)
        m->pieces[i].owner = -1;
    m->nhand = nhand;
    memcpy(m->hand, hand, sizeof *hand * (size_t)nhand);

    memset(&g, 0, sizeof g);
    g.s = s;
    g.fn = fn;
    g.ctx = ctx;
    g.m = m;
    g.nh = nhand;
    qw__hand_counts(hand, nhand, g.cnt);
    for (int t = 0; t < QW__TYPES; t++)
        if (g.cnt[t])
            g.types[g.ntypes++] = t;

    if (s->ncubes == 0) {
        /* An empty table: the placements are the same anywhere, so they are
         * listed from (0,0) to the right and downward. */
        int bax, battr, best = qw__max_line(g.cnt, &bax, &battr);
        int kmin = 2, kmax = nhand < QW__LINE ? nhand : QW__LINE;
        if (s->opt.first_turn_max) {
            /* Only the largest lines, and none when that is one cube. */
            kmin = kmax = best;
        } else {
            for (int j = 0; j < g.ntypes && !g.stop; j++) {
                g.axis = 0;
                g.v = 0;
                g.k = 1;
                g.cell[0] = 0;
                g.pick[0] = (uint8_t)g.types[j];
                qw__emit(&g);
            }
        }
        for (int k = kmin; k <= kmax && k >= 2 && !g.stop; k++)
            for (int axis = 0; axis < 2 && !g.stop; axis++) {
                g.axis = axis;
                g.v = 0;
                g.k = k;
                for (int i = 0; i < k; i++) {
                    g.cell[i] = i;
                    g.allow[i] = QW__ALL;
                }
                qw__fill(&g, 0, 0, 0, 0);
            }
    } else {
        /* A placement touches the board, so its cells lie within one line
         * length of the bounding box, and its line within one cell. */
        qw__gen_axis(&g, 0, s->miny - 1, s->maxy + 1, s->minx - QW__LINE, s->maxx + QW__LINE,
                     true);
        qw__gen_axis(&g, 1, s->minx - 1, s->maxx + 1, s->miny - QW__LINE, s->maxy + QW__LINE,
                     false);
    }
    free(m);
    return g.count;
}

const rules__engine rules__qwirkle_engine = {
    .id = "qwirkle",
    .min_players = 2,
    .max_players = 4,
    .create = qw__create,
    .destroy = free, /* one block, nothing inside it owned */
    .clone = qw__clone,
    .status = qw__status,
    .check = qw__check,
    .apply = qw__apply,
    .position = qw__position,
    .generate = qw__generate,
    .piece_from_json = rules__qwirkle_piece_from_json,
    .piece_to_json = rules__qwirkle_piece_to_json,
    .move_from_json = rules__qwirkle_move_from_json,
    .move_to_json = rules__qwirkle_move_to_json,
    .hand_from_json = rules__qwirkle_hand_from_json,
    .hand_to_json = rules__qwirkle_hand_to_json,
    .verdict_extras = NULL,
    .piece_text = rules__qwirkle_piece_text,
};
