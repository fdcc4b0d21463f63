/* sim/sequence.c: the stream.  One match, one camera, one look; a timeline
 * of hand keyframes and table events per move, rendered at a fixed frame
 * rate, with a truth line per frame (docs/sim.md).
 *
 * A move is planned when the previous one is over: the driver picks it
 * from the engine's generator (or makes an illegal one on request), then
 * the hand travels from the player's seat to each target cell carrying one
 * piece, lowers it, lets go and returns (between two pieces of one move
 * only to the edge of the mat, so that a move is one unstable stretch).
 * The engine applies the move when the last piece is let go (that frame's
 * truth carries "move"); what it captures is then gathered by the same
 * hand, and a pause of still frames follows.  An injected illegal
 * placement is taken back by the same hand before the player's real
 * move. */
#include "sim_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#define SIM__MAXOBJ 160

typedef struct sim__placed {
    int id;
    sim__obj obj;
    bool illegal;
    bool picked; /* taken off the table, in the hand */
    bool has_back; /* moved by an illegal move: back[] is where it stood */
    int16_t back[2];
} sim__placed;

enum { SIM__EV_PLACE, SIM__EV_REMOVE, SIM__EV_DONE };

typedef struct sim__key {
    double t;
    double kx, ky, z;  /* the carried point (the cube under the fingers), hand height */
    int carry;         /* id of the carried piece, or -1 */
} sim__key;

typedef struct sim__event {
    double t;
    int kind;
    int id;            /* PLACE / REMOVE: the piece */
    /* PLACE of a picked-up piece (a move on a board): where it goes */
    bool dest;
    bool illegal;      /* the move is illegal: the piece will go back */
    double x, y, yaw;
    int16_t gx, gy;
} sim__event;

typedef struct sim__seat {
    double sx, sy;     /* where the hand rests, off the mat */
    double shx, shy;   /* the shoulder */
    float skin[3], sleeve[3];
    bool left;         /* thumb side */
} sim__seat;

struct sim_stream {
    char game[16];
    uint64_t seed;
    sim_options o;
    const sim__driver *drv;
    void *dstate;
    int design;        /* the set's design (drivers with designs) */
    int setup;         /* the camera's set-up, SIM_SETUP_GOOD or _ANY */
    rules_game *g;
    sim__rng rng_game, rng_move, rng_look;
    sim__camera cam;
    sim__look look;
    sim__mat mat;
    sim__renderer *rend;
    double board_x, board_y, board_rot;
    sim__obj board;    /* the driver's board (has_board), pieces on its top */
    bool has_board;
    double base_z;     /* where pieces stand: 0, or the board's top */
    sim__seat seats[RULES_MAX_PLAYERS];
    sim__obj distract[4];
    int ndistract;
    /* the players' open hands, in a row beside the mat */
    sim__obj row[RULES_MAX_PLAYERS][RULES_MAX_HAND];
    int nrow[RULES_MAX_PLAYERS];
    double wb_phase[3], wb_period[3];
    /* the table */
    sim__placed *placed;
    int nplaced, capplaced;
    /* pieces of the current plan that are not on the table (carried or
     * waiting at the seat), by id */
    sim__placed pending[RULES_MAX_MOVE_PIECES];
    int npending;
    int next_id;
    /* the current plan */
    sim__key keys[4 * RULES_MAX_MOVE_PIECES + 8];
    int nkeys;
    sim__event events[3 * RULES_MAX_MOVE_PIECES + 4];
    int nevents, next_event;
    double plan_end;
    int player;        /* who moves in the current plan */
    rules_move *move;  /* the event being played */
    bool injected;
    bool finished;
    int events_done;
    cJSON *done_json;  /* the "move" of the next truth line */
    bool hand_now;     /* this frame has a hand: where its carried point is */
    double hand_x, hand_y, hand_z;
    int frame;
};

void sim_options_default(sim_options *o)
{
    memset(o, 0, sizeof *o);
    o->width = 640;
    o->height = 480;
    o->fps = 5;
    o->players = 2;
    o->mat_w = 500;
    o->mat_h = 500;
    o->mat_s = 40;
    o->hands = true;
    o->enrol = -1;
}

/* The set-ups' names, SIM_SETUP_MIXED first. */
static const char *const sim__setup_names[] = {"mixed", "any", "good"};

bool sim_setup_from_name(const char *name, int *setup)
{
    for (int i = 0; i < 3; i++)
        if (name && strcmp(name, sim__setup_names[i]) == 0) {
            *setup = i + SIM_SETUP_MIXED;
            return true;
        }
    return false;
}

const char *sim_setup_name(int setup)
{
    return setup >= SIM_SETUP_MIXED && setup <= SIM_SETUP_GOOD
               ? sim__setup_names[setup - SIM_SETUP_MIXED]
               : NULL;
}

static const sim__driver *sim__driver_for(const char *game)
{
    if (game && strcmp(game, "qwirkle") == 0)
        return &sim__qwirkle_driver;
    if (game && strcmp(game, "cards") == 0)
        return &sim__cards_driver;
    if (game && strcmp(game, "cube2") == 0)
        return &sim__cube2_driver;
    if (game && strcmp(game, "cubed") == 0)
        return &sim__cubed_driver;
    return NULL;
}

int sim_designs(const char *game)
{
    const sim__driver *d = sim__driver_for(game);
    return d ? d->ndesigns : 0;
}

const char *sim_design_name(const char *game, int design)
{
    const sim__driver *d = sim__driver_for(game);
    if (!d || !d->design_name || design < 0 || design >= d->ndesigns)
        return NULL;
    return d->design_name(design);
}

int sim_enrol_images(const char *game)
{
    const sim__driver *d = sim__driver_for(game);
    return d && d->enrol ? d->nenrol : 0;
}

bool sim_game_supported(const char *game)
{
    return sim__driver_for(game) != NULL && rules_game_available(game);
}

int sim_stream_frames(const sim_stream *s) { return s ? s->frame : 0; }

/* ---- geometry of the board ---- */

static void sim__cell_mm(const sim_stream *s, double gx, double gy, double *x, double *y)
{
    const sim__piece_kind *k = s->drv->kind;
    double u = k->hex ? (gx + gy / 2.0) * k->pitch_x : gx * k->pitch_x;
    double v = k->hex ? gy * k->pitch_x * 0.86602540378443865 : gy * k->pitch_y;
    double c = cos(s->board_rot), sn = sin(s->board_rot);
    *x = s->board_x + c * u - sn * v;
    *y = s->board_y + sn * u + c * v;
}

/* A cell fits when its piece lies inside the play area, clear of the
 * markers and their margins. */
static bool sim__fits(void *ctx, int gx, int gy)
{
    const sim_stream *s = ctx;
    const sim__piece_kind *k = s->drv->kind;
    double c = fabs(cos(s->board_rot)) + 0.07, sn = fabs(sin(s->board_rot)) + 0.07;
    double band = s->mat.s / 2 + s->mat.margin + 3;
    double ex = band + (c * k->sx + sn * k->sy) / 2, ey = band + (sn * k->sx + c * k->sy) / 2;
    double x, y;
    if (s->drv->board && (gx < 0 || gy < 0 || gx >= s->drv->board_cols || gy >= s->drv->board_rows))
        return false;
    sim__cell_mm(s, gx, gy, &x, &y);
    return x >= ex && y >= ey && x <= s->mat.w - ex && y <= s->mat.h - ey;
}

/* ---- pieces ---- */

/* Where a piece put on cell (gx, gy) lies: its centre, jittered, and its
 * turn (cards, thin, lie straighter than cubes). */
static void sim__landing(sim_stream *s, int gx, int gy, double *x, double *y, double *yaw)
{
    const sim__piece_kind *k = s->drv->kind;
    double jit = s->o.clean ? 0.5 : 1.5, rot = s->o.clean ? 1.0 : k->sz < 2 ? 2.0 : 4.0;
    sim__cell_mm(s, gx, gy, x, y);
    *x += sim__rng_range(&s->rng_move, -jit, jit);
    *y += sim__rng_range(&s->rng_move, -jit, jit);
    *yaw = s->board_rot + sim__rng_range(&s->rng_move, -rot, rot) * SIM__PI / 180;
}

static void sim__make_piece(sim_stream *s, const rules_piece *p, bool illegal, sim__placed *out)
{
    const sim__piece_kind *k = s->drv->kind;
    memset(out, 0, sizeof *out);
    out->id = s->next_id++;
    out->illegal = illegal;
    out->obj.kind = SIM__BOX;
    out->obj.look = SIM__LOOK_PIECE;
    out->obj.pk = k;
    out->obj.piece = *p;
    out->obj.sx = k->sx;
    out->obj.sy = k->sy;
    out->obj.sz = k->sz;
    out->obj.shadow = true;
    sim__landing(s, p->x, p->y, &out->obj.x, &out->obj.y, &out->obj.yaw);
    k->decorate(s->dstate, &out->obj, &s->rng_move);
}

/* Where piece i of player p's row lies (before its jitter): beyond the
 * mat on their side.  False when the seat is at the mat's centre. */
static bool sim__row_spot(const sim_stream *s, int p, int i, double *x, double *y)
{
    const sim__seat *se = &s->seats[p];
    double cx = s->mat.w / 2, cy = s->mat.h / 2, dx = se->sx - cx, dy = se->sy - cy;
    double len = hypot(dx, dy), edge;
    if (len < 1)
        return false;
    dx /= len;
    dy /= len;
    edge = fabs(dx) * s->mat.w / 2 + fabs(dy) * s->mat.h / 2 + s->mat.s / 2 + s->mat.margin +
           s->look.mat_extra + 40;
    *x = cx + dx * edge - dy * (i - 2.5) * 26;
    *y = cy + dy * edge + dx * (i - 2.5) * 26;
    return true;
}

/* Lays out each player's held pieces in a row on their side, beyond the
 * mat; `skip` (may be NULL) are pieces of player `mover` already on their
 * way to the board. */
static void sim__rows(sim_stream *s, int mover, const rules_move *skip)
{
    rules_status st;
    if (!s->drv->held)
        return;
    rules_game_status(s->g, &st);
    for (int p = 0; p < st.nplayers && p < RULES_MAX_PLAYERS; p++) {
        rules_piece h[RULES_MAX_HAND];
        bool used[RULES_MAX_MOVE_PIECES] = {false};
        int n = s->drv->held(s->dstate, p, h, RULES_MAX_HAND);
        double x, y;
        s->nrow[p] = 0;
        if (!sim__row_spot(s, p, 0, &x, &y))
            continue;
        for (int i = 0; i < n; i++) {
            sim__placed tmp;
            bool skipped = false;
            for (int j = 0; p == mover && skip && j < skip->npieces && !skipped; j++)
                if (!used[j] && skip->pieces[j].a == h[i].a && skip->pieces[j].b == h[i].b)
                    skipped = used[j] = true;
            if (skipped)
                continue;
            sim__make_piece(s, &h[i], false, &tmp);
            sim__row_spot(s, p, i, &x, &y);
            tmp.obj.x = x + sim__rng_range(&s->rng_move, -3, 3);
            tmp.obj.y = y + sim__rng_range(&s->rng_move, -3, 3);
            tmp.obj.yaw = sim__rng_range(&s->rng_move, 0, 2 * SIM__PI);
            tmp.obj.z0 = 0; /* beside the mat, on the table */
            s->row[p][s->nrow[p]++] = tmp.obj;
        }
    }
}

static sim__placed *sim__pending_find(sim_stream *s, int id)
{
    for (int i = 0; i < s->npending; i++)
        if (s->pending[i].id == id)
            return &s->pending[i];
    return NULL;
}

static int sim__table_add(sim_stream *s, const sim__placed *p)
{
    if (s->nplaced == s->capplaced) {
        int cap = s->capplaced ? 2 * s->capplaced : 64;
        sim__placed *n = realloc(s->placed, (size_t)cap * sizeof *n);
        if (!n)
            return BASE_ENOMEM;
        s->placed = n;
        s->capplaced = cap;
    }
    s->placed[s->nplaced++] = *p;
    return 0;
}

/* ---- planning ---- */

static void sim__key_add(sim_stream *s, double t, double kx, double ky, double z, int carry)
{
    sim__key *k = &s->keys[s->nkeys++];
    k->t = t;
    k->kx = kx;
    k->ky = ky;
    k->z = z;
    k->carry = carry;
}

static void sim__event_add(sim_stream *s, double t, int kind, int id)
{
    sim__event *e = &s->events[s->nevents++];
    memset(e, 0, sizeof *e);
    e->t = t;
    e->kind = kind;
    e->id = id;
}

/* A picked-up piece put down on cell (gx, gy) at (x, y), turned yaw. */
static void sim__event_dest(sim_stream *s, double t, int id, double x, double y, double yaw,
                            int gx, int gy, bool illegal)
{
    sim__event *e = &s->events[s->nevents];
    sim__event_add(s, t, SIM__EV_PLACE, id);
    e->dest = true;
    e->illegal = illegal;
    e->x = x;
    e->y = y;
    e->yaw = yaw;
    e->gx = (int16_t)gx;
    e->gy = (int16_t)gy;
}

static double sim__travel(sim_stream *s, double ax, double ay, double bx, double by)
{
    double speed = sim__rng_range(&s->rng_move, 450, 800); /* mm/s */
    return 0.25 + hypot(bx - ax, by - ay) / speed;
}

#define SIM__Z_HIGH 90.0
#define SIM__Z_LOW 26.0 /* the carried cube's base touches the table */
/* A board's square is covered when a hand hides the point this high
 * above its centre: the pieces' tops (20-26 mm), where a reader looks. */
#define SIM__COVER_Z 22.0

/* The hand brings piece `id` (waiting in pending[]) from (*hx, *hy) to
 * (x, y) and lets go; or, with remove, picks up table piece `id` at (x, y)
 * and carries it away.  It then goes back to (bx, by), which becomes the
 * new (*hx, *hy).  Returns the time it gets there. */
static double sim__plan_trip(sim_stream *s, double t, double *hx, double *hy, int id, double x,
                             double y, bool remove, double bx, double by, double *release)
{
    double lower = sim__rng_range(&s->rng_move, 0.2, 0.4);
    sim__key_add(s, t, *hx, *hy, SIM__Z_HIGH + 30, remove ? -1 : id);
    t += sim__travel(s, *hx, *hy, x, y);
    sim__key_add(s, t, x, y, SIM__Z_HIGH, remove ? -1 : id);
    t += lower;
    sim__key_add(s, t, x, y, SIM__Z_LOW + s->base_z, -1);
    sim__event_add(s, t, remove ? SIM__EV_REMOVE : SIM__EV_PLACE, id);
    if (release)
        *release = t;
    t += lower;
    sim__key_add(s, t, x, y, SIM__Z_HIGH, -1);
    t += sim__travel(s, x, y, bx, by);
    *hx = bx;
    *hy = by;
    return t;
}

/* A move on a board: the hand picks table piece `id` up at (x, y) and
 * puts it down at (dx, dy), on cell (gx, gy) with turn dyaw, or with off
 * on the table beside the mat (where the DONE event at *release shows
 * it); then it goes back to (bx, by).  Returns the time it gets there. */
static double sim__plan_shift(sim_stream *s, double t, double *hx, double *hy, int id, double x,
                              double y, double dx, double dy, double dyaw, int gx, int gy,
                              bool off, bool illegal, double bx, double by, double *release)
{
    double lower = sim__rng_range(&s->rng_move, 0.2, 0.4);
    sim__key_add(s, t, *hx, *hy, SIM__Z_HIGH + 30, -1);
    t += sim__travel(s, *hx, *hy, x, y);
    sim__key_add(s, t, x, y, SIM__Z_HIGH, -1);
    t += lower;
    sim__key_add(s, t, x, y, SIM__Z_LOW + s->base_z, -1);
    sim__event_add(s, t, SIM__EV_REMOVE, id);
    t += lower;
    sim__key_add(s, t, x, y, SIM__Z_HIGH, -1);
    t += sim__travel(s, x, y, dx, dy);
    sim__key_add(s, t, dx, dy, SIM__Z_HIGH, -1);
    t += lower;
    sim__key_add(s, t, dx, dy, SIM__Z_LOW + (off ? 0 : s->base_z), -1);
    if (!off)
        sim__event_dest(s, t, id, dx, dy, dyaw, gx, gy, illegal);
    *release = t;
    t += lower;
    sim__key_add(s, t, dx, dy, SIM__Z_HIGH, -1);
    t += sim__travel(s, dx, dy, bx, by);
    *hx = bx;
    *hy = by;
    return t;
}

/* Between two pieces of one move the hand only goes back to the edge of
 * the mat, where it stays in view: a move is one unstable stretch. */
static void sim__via(const sim_stream *s, double *x, double *y)
{
    const sim__seat *st = &s->seats[s->player];
    *x = st->sx + (s->mat.w / 2 - st->sx) * 0.5;
    *y = st->sy + (s->mat.h / 2 - st->sy) * 0.5;
}

static void sim__plan_reset(sim_stream *s)
{
    s->nkeys = 0;
    s->nevents = 0;
    s->next_event = 0;
    s->npending = 0;
}

/* The table pieces a legal move takes off (captures), found by playing it
 * on a copy of the match: ids into rem[]. */
static int sim__captures(sim_stream *s, int *rem, int *nrem)
{
    rules_game *cl = NULL;
    rules_verdict v;
    rules_piece *after;
    int n, rc;
    *nrem = 0;
    if ((rc = rules_game_clone(s->g, &cl)) != 0)
        return rc;
    if ((rc = rules_apply(cl, s->player, s->move, &v)) != 0 || !v.legal) {
        rules_game_free(cl);
        return rc;
    }
    n = rules_position(cl, NULL, 0);
    if (!(after = malloc((size_t)(n > 0 ? n : 1) * sizeof *after))) {
        rules_game_free(cl);
        return BASE_ENOMEM;
    }
    n = rules_position(cl, after, n);
    /* the table, then the pieces of this move (a card may capture itself) */
    for (int i = 0; i < s->nplaced + s->npending && *nrem < RULES_MAX_MOVE_PIECES; i++) {
        const sim__placed *q = i < s->nplaced ? &s->placed[i] : &s->pending[i - s->nplaced];
        const rules_piece *p = &q->obj.piece;
        bool kept = false;
        for (int j = 0; j < n && !kept; j++)
            kept = after[j].x == p->x && after[j].y == p->y && after[j].a == p->a &&
                   after[j].b == p->b;
        if (!kept)
            rem[(*nrem)++] = q->id;
    }
    free(after);
    rules_game_free(cl);
    return 0;
}

/* Plans the next event starting at time t.  Returns 0, BASE_EEOF when the
 * stream is over, or an error. */
static int sim__plan(sim_stream *s, double t)
{
    rules_status st;
    bool any_illegal = false;
    int rc;

    rules_game_status(s->g, &st);
    sim__plan_reset(s);
    for (int i = 0; i < s->nplaced; i++)
        any_illegal |= s->placed[i].illegal;
    if (any_illegal) {
        /* Take the illegal pieces back, as the referee asked. */
        int left = 0;
        double hx, hy, vx, vy;
        s->player = st.to_move;
        hx = s->seats[s->player].sx;
        hy = s->seats[s->player].sy;
        sim__via(s, &vx, &vy);
        for (int i = 0; i < s->nplaced; i++)
            left += s->placed[i].illegal;
        for (int i = 0; i < s->nplaced; i++)
            if (s->placed[i].illegal) {
                const sim__placed *q = &s->placed[i];
                bool last = --left == 0;
                double bx = last ? s->seats[s->player].sx : vx;
                double by = last ? s->seats[s->player].sy : vy, x, y, yaw, rel;
                if (q->has_back) { /* a moved piece goes back to its square */
                    sim__landing(s, q->back[0], q->back[1], &x, &y, &yaw);
                    t = sim__plan_shift(s, t, &hx, &hy, q->id, q->obj.x, q->obj.y, x, y, yaw,
                                        q->back[0], q->back[1], false, false, bx, by, &rel);
                } else {
                    t = sim__plan_trip(s, t, &hx, &hy, q->id, q->obj.x, q->obj.y, true, bx, by,
                                       NULL);
                }
            }
        sim__key_add(s, t, s->seats[s->player].sx, s->seats[s->player].sy, SIM__Z_HIGH + 30, -1);
        t += fmax(sim__rng_range(&s->rng_move, 0.6, 1.2), 1.5 / s->o.fps);
        s->plan_end = t;
        return 0;
    }
    if (st.over || (s->o.max_moves > 0 && s->events_done >= s->o.max_moves))
        return BASE_EEOF;
    s->player = st.to_move;
    s->injected = false;
    sim__rows(s, -1, NULL); /* a taken-back piece is in its hand again */
    if (s->o.illegal > 0 && sim__rng_unit(&s->rng_move) < s->o.illegal) {
        rc = s->drv->choose_illegal(s->dstate, s->g, s->player, &s->rng_move, sim__fits, s,
                                    s->move);
        if (rc == 0)
            s->injected = true;
        else if (rc != BASE_ENOTFOUND)
            return rc;
    }
    if (!s->injected) {
        rc = s->drv->choose(s->dstate, s->g, s->player, &s->rng_move, sim__fits, s, s->move);
        if (rc == BASE_ENOTFOUND)
            return BASE_EEOF;
        if (rc)
            return rc;
    }
    if (s->move->type == RULES_MOVE_PLACE) {
        double release = t, hx = s->seats[s->player].sx, hy = s->seats[s->player].sy, vx, vy;
        int rem[RULES_MAX_MOVE_PIECES], nrem = 0;
        sim__rows(s, s->player, s->move);
        for (int i = 0; i < s->move->npieces; i++) {
            sim__placed *p = &s->pending[s->npending++];
            sim__make_piece(s, &s->move->pieces[i], s->injected, p);
            p->obj.moving = true;
        }
        if (!s->injected && (rc = sim__captures(s, rem, &nrem)) != 0)
            return rc;
        sim__via(s, &vx, &vy);
        for (int i = 0; i < s->move->npieces; i++) {
            const sim__placed *p = &s->pending[i];
            bool last = i + 1 == s->move->npieces && nrem == 0;
            t = sim__plan_trip(s, t, &hx, &hy, p->id, p->obj.x, p->obj.y, false,
                               last ? s->seats[s->player].sx : vx,
                               last ? s->seats[s->player].sy : vy, &release);
        }
        /* The move is made when the last piece is let go. */
        sim__event_add(s, release, SIM__EV_DONE, -1);
        /* Then the hand gathers what the move captured (cards). */
        for (int j = 0; j < nrem; j++) {
            const sim__placed *q = sim__pending_find(s, rem[j]);
            bool last = j + 1 == nrem;
            for (int i = 0; i < s->nplaced; i++)
                if (s->placed[i].id == rem[j])
                    q = &s->placed[i];
            if (!q)
                continue;
            t = sim__plan_trip(s, t, &hx, &hy, q->id, q->obj.x, q->obj.y, true,
                               last ? s->seats[s->player].sx : vx,
                               last ? s->seats[s->player].sy : vy, NULL);
        }
    } else if (s->move->type == RULES_MOVE_MOVE) {
        /* A piece moved on the board, or off it to the mover's row. */
        const sim__seat *se = &s->seats[s->player];
        const sim__placed *p = NULL;
        double hx = se->sx, hy = se->sy, x = se->sx, y = se->sy, yaw = 0, release = t;
        for (int i = 0; i < s->nplaced && !p; i++)
            if (s->placed[i].obj.piece.x == s->move->from[0] &&
                s->placed[i].obj.piece.y == s->move->from[1])
                p = &s->placed[i];
        if (!p)
            return BASE_EINVAL;
        if (s->move->to_off) {
            rules_piece h[RULES_MAX_HAND];
            int n = s->drv->held ? s->drv->held(s->dstate, s->player, h, RULES_MAX_HAND) : 0;
            sim__row_spot(s, s->player, n, &x, &y);
            yaw = sim__rng_range(&s->rng_move, 0, 2 * SIM__PI);
        } else {
            sim__landing(s, s->move->to[0], s->move->to[1], &x, &y, &yaw);
        }
        t = sim__plan_shift(s, t, &hx, &hy, p->id, p->obj.x, p->obj.y, x, y, yaw,
                            s->move->to[0], s->move->to[1], s->move->to_off, s->injected, se->sx,
                            se->sy, &release);
        sim__event_add(s, release, SIM__EV_DONE, -1);
    } else {
        /* No table change (re-roll, draw, pass): the hand reaches over the
         * edge of the mat to its own cubes and back. */
        const sim__seat *se = &s->seats[s->player];
        double mx = s->mat.w / 2, my = s->mat.h / 2;
        double ex = se->sx + (mx - se->sx) * 0.45, ey = se->sy + (my - se->sy) * 0.45;
        sim__key_add(s, t, se->sx, se->sy, SIM__Z_HIGH + 30, -1);
        t += sim__travel(s, se->sx, se->sy, ex, ey);
        sim__key_add(s, t, ex, ey, SIM__Z_HIGH, -1);
        t += sim__rng_range(&s->rng_move, 0.3, 0.8);
        sim__key_add(s, t, ex, ey, SIM__Z_HIGH, -1);
        t += sim__travel(s, ex, ey, se->sx, se->sy);
        sim__event_add(s, t, SIM__EV_DONE, -1);
    }
    sim__key_add(s, t, s->seats[s->player].sx, s->seats[s->player].sy, SIM__Z_HIGH + 30, -1);
    /* still frames: at least one, and never two events in one frame */
    t += fmax(sim__rng_range(&s->rng_move, 1.0, 2.0), 1.5 / s->o.fps);
    s->plan_end = t;
    return 0;
}

/* ---- events ---- */

static int sim__done(sim_stream *s)
{
    rules_verdict v;
    cJSON *obj, *ev;
    int rc = rules_apply(s->g, s->player, s->move, &v);
    if (rc)
        return rc;
    if (v.legal && (rc = s->drv->applied(s->dstate, s->g, s->player, s->move, &s->rng_move)) != 0)
        return rc;
    if (v.legal) /* an illegal piece stays on the board until taken back */
        sim__rows(s, -1, NULL);
    s->events_done++;
    obj = cJSON_CreateObject();
    ev = cJSON_AddObjectToObject(obj, "event");
    cJSON_AddNumberToObject(ev, "player", s->player);
    cJSON_AddItemToObject(ev, "move", rules_move_to_json(s->game, s->move));
    cJSON_AddNumberToObject(obj, "seq", s->events_done);
    cJSON_AddBoolToObject(obj, "legal", v.legal);
    cJSON_AddBoolToObject(obj, "injected", s->injected);
    if (!v.legal) {
        cJSON_AddStringToObject(obj, "rule", v.rule);
        cJSON_AddStringToObject(obj, "reason", v.reason);
    }
    cJSON_AddNumberToObject(obj, "points", v.legal ? v.points : 0);
    cJSON_AddItemToObject(obj, "scores", cJSON_CreateIntArray(v.scores, v.nplayers));
    if (v.over)
        cJSON_AddBoolToObject(obj, "over", true);
    if (s->done_json) /* two events between frames: keep the later */
        cJSON_Delete(s->done_json);
    s->done_json = obj;
    return 0;
}

static int sim__run_events(sim_stream *s, double t)
{
    int rc;
    while (s->next_event < s->nevents && s->events[s->next_event].t <= t + 1e-9) {
        const sim__event *e = &s->events[s->next_event++];
        sim__placed *p;
        switch (e->kind) {
        case SIM__EV_PLACE:
            if ((p = sim__pending_find(s, e->id)) != NULL) {
                sim__placed q = *p;
                if (e->dest) { /* moved on the board */
                    q.has_back = q.illegal = e->illegal;
                    q.back[0] = q.obj.piece.x;
                    q.back[1] = q.obj.piece.y;
                    q.obj.x = e->x;
                    q.obj.y = e->y;
                    q.obj.yaw = e->yaw;
                    q.obj.piece.x = e->gx;
                    q.obj.piece.y = e->gy;
                    q.picked = p->picked = false;
                }
                q.obj.moving = false;
                /* thin pieces (cards) overlap a little: the later lies on
                 * top; others stand where the driver puts them (a board) */
                q.obj.z0 = q.obj.sz < 2 ? 0.01 * (q.id % 64) : q.obj.z0;
                if ((rc = sim__table_add(s, &q)) != 0)
                    return rc;
            }
            break;
        case SIM__EV_REMOVE:
            for (int i = 0; i < s->nplaced; i++)
                if (s->placed[i].id == e->id) {
                    if (s->npending < RULES_MAX_MOVE_PIECES) {
                        s->pending[s->npending] = s->placed[i];
                        s->pending[s->npending].obj.moving = true;
                        s->pending[s->npending].picked = true;
                        s->npending++;
                    }
                    s->placed[i] = s->placed[--s->nplaced];
                    break;
                }
            break;
        default:
            /* a piece taken off lies in the mover's row from now on */
            for (int i = 0; s->move->type == RULES_MOVE_MOVE && s->move->to_off && i < s->npending;
                 i++)
                s->pending[i].picked = false;
            if ((rc = sim__done(s)) != 0)
                return rc;
            break;
        }
    }
    return 0;
}

/* ---- the hand ---- */

static double sim__ease(double x) { return x <= 0 ? 0 : x >= 1 ? 1 : x * x * (3 - 2 * x); }

static void sim__make_hand(const sim_stream *s, double kx, double ky, double z, sim__obj *h)
{
    const sim__seat *st = &s->seats[s->player];
    double ax = kx - st->shx, ay = ky - st->shy, len = hypot(ax, ay);
    double bx, by, fx, fy, wx, wy, side = st->left ? -1 : 1;
    sim__capsule *c = h->caps;
    if (len < 1)
        len = 1;
    ax /= len;
    ay /= len;
    bx = -ay * side;
    by = ax * side;
    fx = kx + 15 * ax; /* fingertips just beyond the carried cube's centre */
    fy = ky + 15 * ay;
    wx = fx - 135 * ax;
    wy = fy - 135 * ay;
    memset(h, 0, sizeof *h);
    h->kind = SIM__HAND;
    h->z0 = z;
    h->shadow = true;
    h->moving = true;
    memcpy(h->skin, st->skin, sizeof h->skin);
    memcpy(h->sleeve, st->sleeve, sizeof h->sleeve);
#define SIM__CAP(AX, AY, BX, BY, R, SL)                                                      \
    do {                                                                                    \
        c->ax = (AX);                                                                       \
        c->ay = (AY);                                                                       \
        c->bx = (BX);                                                                       \
        c->by = (BY);                                                                       \
        c->r = (R);                                                                         \
        c->sleeve = (SL);                                                                   \
        c++;                                                                                \
    } while (0)
    /* sleeve, forearm, palm, four fingers, thumb (an adult hand: palm
     * about 85 mm wide, fingers 50-75 mm) */
    SIM__CAP(st->shx, st->shy, wx - 110 * ax, wy - 110 * ay, 45, true);
    SIM__CAP(wx - 110 * ax, wy - 110 * ay, wx, wy, 31, false);
    SIM__CAP(wx + 22 * ax, wy + 22 * ay, wx + 58 * ax, wy + 58 * ay, 38, false);
    for (int f = 0; f < 4; f++) {
        double off = (f - 1.5) * 19, lenf = f == 0 ? 40 : f == 3 ? 45 : 55;
        double bx0 = wx + 80 * ax + off * bx, by0 = wy + 80 * ay + off * by;
        SIM__CAP(bx0, by0, bx0 + lenf * ax + off * 0.2 * bx, by0 + lenf * ay + off * 0.2 * by,
                 8.5, false);
    }
    SIM__CAP(wx + 30 * ax + 36 * bx, wy + 30 * ay + 36 * by, wx + 75 * ax + 58 * bx,
             wy + 75 * ay + 58 * by, 11, false);
#undef SIM__CAP
    h->ncaps = (int)(c - h->caps);
}

/* Builds this frame's objects: table pieces, distractors, the hand and
 * what it carries.  Returns the count. */
static int sim__scene(sim_stream *s, double t, sim__obj *objs, int cap)
{
    int n = 0;
    s->hand_now = false;
    if (s->has_board && n < cap)
        objs[n++] = s->board;
    for (int i = 0; i < s->nplaced && n < cap; i++)
        objs[n++] = s->placed[i].obj;
    for (int i = 0; i < s->ndistract && n < cap; i++)
        objs[n++] = s->distract[i];
    for (int p = 0; p < RULES_MAX_PLAYERS; p++)
        for (int i = 0; i < s->nrow[p] && n < cap; i++)
            objs[n++] = s->row[p][i];
    if (s->nkeys >= 2 && t >= s->keys[0].t && t < s->keys[s->nkeys - 1].t) {
        int k = 0;
        while (k + 1 < s->nkeys && s->keys[k + 1].t <= t)
            k++;
        const sim__key *a = &s->keys[k], *b = &s->keys[k + 1 < s->nkeys ? k + 1 : k];
        double span = b->t - a->t, e = span > 0 ? sim__ease((t - a->t) / span) : 1;
        double kx = a->kx + (b->kx - a->kx) * e, ky = a->ky + (b->ky - a->ky) * e;
        double z = a->z + (b->z - a->z) * e;
        sim__placed *p = a->carry >= 0 ? sim__pending_find(s, a->carry) : NULL;
        s->hand_now = true;
        s->hand_x = kx;
        s->hand_y = ky;
        s->hand_z = z;
        if (p && n < cap) {
            sim__obj *o = &objs[n++];
            *o = p->obj;
            o->x = kx;
            o->y = ky;
            o->z0 = z - SIM__Z_LOW;
            o->moving = true;
        }
        /* what the hand has picked up travels with it, stacked */
        for (int i = 0, k2 = 0; i < s->npending && n < cap; i++)
            if (s->pending[i].picked) {
                sim__obj *o = &objs[n++];
                *o = s->pending[i].obj;
                o->x = kx;
                o->y = ky;
                o->z0 = z - SIM__Z_LOW + 0.5 * k2++;
                o->moving = true;
                }
        if (s->o.hands && n < cap)
            sim__make_hand(s, kx, ky, z, &objs[n++]);
    }
    return n;
}

/* ---- truth ---- */

static double sim__round(double x, double unit) { return round(x / unit) * unit; }

static cJSON *sim__nums(const double *v, int n, double unit)
{
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; i < n; i++)
        cJSON_AddItemToArray(a, cJSON_CreateNumber(sim__round(v[i], unit)));
    return a;
}

static cJSON *sim__truth(sim_stream *s, double t, const sim__obj *objs, int n, bool stable,
                         bool hand_in_view, const sim__frame_fx *fx)
{
    cJSON *o = cJSON_CreateObject(), *pos, *pieces, *pl, *x;
    rules_status st;
    const sim__camera *cam = &s->cam;
    const sim__look *l = &s->look;

    cJSON_AddNumberToObject(o, "frame", s->frame);
    cJSON_AddNumberToObject(o, "time", sim__round(t, 0.001));
    cJSON_AddStringToObject(o, "game", s->game);
    cJSON_AddBoolToObject(o, "stable", stable);
    cJSON_AddBoolToObject(o, "hand_in_view", hand_in_view);
    if (s->drv->ndesigns > 0)
        cJSON_AddNumberToObject(o, "design", s->design);
    if (s->drv->ndesigns > 0 && s->drv->design_name)
        cJSON_AddStringToObject(o, "deck", s->drv->design_name(s->design));
    if (s->o.enrol >= 0)
        cJSON_AddNumberToObject(o, "enrol", s->o.enrol);
    if (s->hand_now) {
        /* where the hand is (in view or not): the point under its fingers
         * that carries a piece, and the height of the hand */
        double at[2] = {s->hand_x, s->hand_y};
        x = cJSON_AddObjectToObject(o, "hand");
        cJSON_AddNumberToObject(x, "player", s->player);
        cJSON_AddItemToObject(x, "at_mm", sim__nums(at, 2, 0.01));
        cJSON_AddNumberToObject(x, "z_mm", sim__round(s->hand_z, 0.01));
        cJSON_AddBoolToObject(x, "drawn", s->o.hands);
    }

    pos = cJSON_AddObjectToObject(o, "position");
    cJSON_AddStringToObject(pos, "game", s->game);
    pieces = cJSON_AddArrayToObject(pos, "pieces");
    pl = cJSON_AddArrayToObject(o, "placement");
    for (int i = 0; i < s->nplaced; i++) {
        const sim__placed *p = &s->placed[i];
        double mm[2] = {p->obj.x, p->obj.y};
        cJSON *e;
        cJSON_AddItemToArray(pieces, rules_piece_to_json(s->game, &p->obj.piece));
        e = cJSON_CreateObject();
        cJSON_AddItemToObject(e, "mm", sim__nums(mm, 2, 0.01));
        cJSON_AddNumberToObject(e, "rot_deg", sim__round(p->obj.yaw * 180 / SIM__PI, 0.01));
        if (p->illegal)
            cJSON_AddBoolToObject(e, "illegal", true);
        if (p->has_back) /* moved by an illegal move: where it stood */
            cJSON_AddItemToObject(e, "from", cJSON_CreateIntArray((int[]){p->back[0], p->back[1]}, 2));
        if (p->obj.down)
            cJSON_AddBoolToObject(e, "down", true);
        if (s->has_board || p->obj.kind == SIM__HEX) /* pieces on a board; tiles 3-8 mm */
            cJSON_AddNumberToObject(e, "top_mm", sim__round(p->obj.z0 + p->obj.sz, 0.01));
        {
            /* covered (by a hand, mostly): the centre of its top face
             * cannot be seen */
            sim__v3 top = {p->obj.x, p->obj.y, p->obj.z0 + p->obj.sz};
            if (sim__occluded(s->rend, objs, n, top))
                cJSON_AddBoolToObject(e, "hidden", true);
        }
        cJSON_AddItemToArray(pl, e);
    }

    x = cJSON_AddObjectToObject(o, "board");
    {
        double org[2] = {s->board_x, s->board_y},
               pitch[2] = {s->drv->kind->pitch_x, s->drv->kind->pitch_y};
        cJSON_AddItemToObject(x, "origin_mm", sim__nums(org, 2, 0.01));
        cJSON_AddNumberToObject(x, "rotation_deg", sim__round(s->board_rot * 180 / SIM__PI, 0.001));
        cJSON_AddItemToObject(x, "pitch_mm", sim__nums(pitch, 2, 0.01));
        if (s->has_board) {
            /* squares a hand (or what it carries) hides at the height of
             * the pieces' tops: what a reader cannot see there */
            sim__obj mv[8];
            int nmv = 0;
            cJSON *cov = cJSON_AddArrayToObject(x, "covered");
            for (int i = 0; i < n && nmv < 8; i++)
                if (objs[i].moving)
                    mv[nmv++] = objs[i];
            for (int r = 0; nmv > 0 && r < s->drv->board_rows; r++)
                for (int c = 0; c < s->drv->board_cols; c++) {
                    sim__v3 p;
                    sim__cell_mm(s, c, r, &p.x, &p.y);
                    p.z = s->base_z + SIM__COVER_Z;
                    if (sim__occluded(s->rend, mv, nmv, p))
                        cJSON_AddItemToArray(cov, cJSON_CreateIntArray((int[]){c, r}, 2));
                }
        }
        if (s->has_board) {
            double size[3] = {s->board.sx, s->board.sy, s->board.sz};
            double ctr[2] = {s->board.x, s->board.y};
            cJSON_AddItemToObject(x, "centre_mm", sim__nums(ctr, 2, 0.01));
            cJSON_AddItemToObject(x, "size_mm", sim__nums(size, 3, 0.01));
        }
    }
    x = cJSON_AddObjectToObject(o, "mat");
    cJSON_AddNumberToObject(x, "w", s->mat.w);
    cJSON_AddNumberToObject(x, "h", s->mat.h);
    cJSON_AddNumberToObject(x, "s", s->mat.s);
    cJSON_AddNumberToObject(x, "margin", sim__round(s->mat.margin, 0.01));

    x = cJSON_AddObjectToObject(o, "camera");
    {
        double pc[3] = {cam->C.x, cam->C.y, cam->C.z};
        cJSON_AddNumberToObject(x, "width", cam->width);
        cJSON_AddNumberToObject(x, "height", cam->height);
        cJSON_AddStringToObject(x, "setup", sim_setup_name(s->setup));
        cJSON_AddNumberToObject(x, "height_mm", sim__round(cam->elev, 0.001));
        cJSON_AddNumberToObject(x, "tilt_deg", sim__round(cam->tilt_deg, 0.001));
        cJSON_AddNumberToObject(x, "yaw_deg", sim__round(cam->yaw_deg, 0.001));
        cJSON_AddItemToObject(x, "position_mm", sim__nums(pc, 3, 1e-6));
        cJSON_AddItemToObject(x, "R", sim__nums(cam->R, 9, 1e-12));
        cJSON_AddNumberToObject(x, "fx", sim__round(cam->fx, 1e-9));
        cJSON_AddNumberToObject(x, "fy", sim__round(cam->fy, 1e-9));
        cJSON_AddNumberToObject(x, "cx", sim__round(cam->cx, 1e-9));
        cJSON_AddNumberToObject(x, "cy", sim__round(cam->cy, 1e-9));
        cJSON_AddItemToObject(x, "dist", sim__nums(cam->dist, 5, 1e-12));
    }
    x = cJSON_AddObjectToObject(o, "lighting");
    {
        double dir[3] = {l->light.x, l->light.y, l->light.z};
        double col[3] = {l->light_rgb[0], l->light_rgb[1], l->light_rgb[2]};
        double wb[3] = {fx->wb[0], fx->wb[1], fx->wb[2]};
        cJSON_AddItemToObject(x, "dir", sim__nums(dir, 3, 1e-4));
        cJSON_AddItemToObject(x, "color", sim__nums(col, 3, 1e-4));
        cJSON_AddNumberToObject(x, "ambient", sim__round(l->ambient, 1e-4));
        cJSON_AddNumberToObject(x, "diffuse", sim__round(l->diffuse, 1e-4));
        cJSON_AddNumberToObject(x, "softness", sim__round(l->softness, 1e-4));
        cJSON_AddNumberToObject(x, "glare", sim__round(l->glare, 1e-4));
        cJSON_AddNumberToObject(x, "vignette", sim__round(l->vignette, 1e-4));
        cJSON_AddNumberToObject(x, "noise", sim__round(l->noise, 1e-4));
        cJSON_AddNumberToObject(x, "blur", sim__round(l->blur, 1e-4));
        cJSON_AddNumberToObject(x, "motion_blur_px", sim__round(fx->shake_px, 1e-3));
        cJSON_AddNumberToObject(x, "jpeg_quality", l->jpeg_quality);
        cJSON_AddNumberToObject(x, "exposure", sim__round(l->exposure, 1e-4));
        cJSON_AddItemToObject(x, "wb", sim__nums(wb, 3, 1e-4));
        cJSON_AddNumberToObject(x, "table", l->table_kind);
        cJSON_AddNumberToObject(x, "mat", l->mat_kind);
    }
    x = cJSON_AddObjectToObject(o, "markers");
    {
        cJSON *inview = cJSON_AddArrayToObject(x, "in_view");
        cJSON *vis = cJSON_AddArrayToObject(x, "visible");
        cJSON *corners = cJSON_AddArrayToObject(x, "corners");
        for (int id = 0; id < 4; id++) {
            cJSON *mc = cJSON_CreateArray();
            bool ok = true;
            double uv[4][2], side = INFINITY;
            for (int k = 0; k < 4; k++) {
                uv[k][0] = uv[k][1] = -1;
                if (!sim__project(cam, sim__marker_corner(&s->mat, id, k), &uv[k][0], &uv[k][1]))
                    ok = false;
                if (uv[k][0] < 1 || uv[k][1] < 1 || uv[k][0] > cam->width - 2 ||
                    uv[k][1] > cam->height - 2)
                    ok = false;
                cJSON_AddItemToArray(mc, sim__nums(uv[k], 2, 0.001));
            }
            for (int k = 0; k < 4; k++)
                side = fmin(side, hypot(uv[(k + 1) % 4][0] - uv[k][0], uv[(k + 1) % 4][1] - uv[k][1]));
            /* Covered anywhere (a hand, an arm): not visible. */
            for (int a = 0; a <= 6 && ok; a++)
                for (int b = 0; b <= 6 && ok; b++) {
                    sim__v3 c0 = sim__marker_corner(&s->mat, id, 0);
                    double side = s->mat.s + 2 * s->mat.margin * 0.5;
                    sim__v3 p = {c0.x - s->mat.margin * 0.5 + side * a / 6,
                                 c0.y - s->mat.margin * 0.5 + side * b / 6, 0};
                    if (sim__occluded(s->rend, objs, n, p))
                        ok = false;
                }
            if (ok)
                cJSON_AddItemToArray(inview, cJSON_CreateNumber(id));
            /* Readable: a cell of the 6x6 grid spans at least 3 pixels
             * plus what the focus blur and camera shake smear. */
            if (ok && side / 6 >= 3 + 2 * l->blur + 0.75 * fx->shake_px)
                cJSON_AddItemToArray(vis, cJSON_CreateNumber(id));
            cJSON_AddItemToArray(corners, mc);
        }
    }
    rules_game_status(s->g, &st);
    cJSON_AddNumberToObject(o, "to_move", st.to_move);
    cJSON_AddItemToObject(o, "scores", cJSON_CreateIntArray(st.scores, st.nplayers));
    cJSON_AddNumberToObject(o, "moves", s->events_done);
    if (s->done_json) {
        cJSON_AddItemToObject(o, "move", s->done_json);
        s->done_json = NULL;
    }
    return o;
}

/* ---- the stream ---- */

static int sim__check_options(const sim__driver *d, const sim_options *o, base_err *err)
{
    if (o->width < 64 || o->height < 48 || o->width > 8192 || o->height > 8192)
        return base_err_set(err, BASE_EINVAL, "sim: frame size %dx%d is outside 64x48..8192x8192",
                            o->width, o->height);
    if (!(o->fps > 0.1 && o->fps <= 240))
        return base_err_set(err, BASE_EINVAL, "sim: fps %g is outside 0.1..240", o->fps);
    if (o->players < 2 || o->players > RULES_MAX_PLAYERS)
        return base_err_set(err, BASE_EINVAL, "sim: players %d is outside 2..%d", o->players,
                            RULES_MAX_PLAYERS);
    if (o->max_frames < 0 || o->max_moves < 0)
        return base_err_set(err, BASE_EINVAL, "sim: frame and move limits must be >= 0");
    if (o->setup < SIM_SETUP_MIXED || o->setup > SIM_SETUP_GOOD)
        return base_err_set(err, BASE_EINVAL,
                            "sim: setup %d is not -1 (mixed), 0 (any) or 1 (good)", o->setup);
    if (d->ndesigns > 0 && (o->design < -1 || o->design >= d->ndesigns))
        return base_err_set(err, BASE_EINVAL,
                            "sim: design %d is outside -1..%d (-1: drawn from the seed)",
                            o->design, d->ndesigns - 1);
    if (d->ndesigns == 0 && o->design != 0)
        return base_err_set(err, BASE_EINVAL, "sim: design %d: %s has one look (design 0)",
                            o->design, d->game);
    if (!(o->illegal >= 0 && o->illegal <= 1))
        return base_err_set(err, BASE_EINVAL, "sim: illegal probability %g is outside 0..1",
                            o->illegal);
    if (!(o->down >= 0 && o->down <= 1))
        return base_err_set(err, BASE_EINVAL, "sim: down probability %g is outside 0..1",
                            o->down);
    if (o->down > 0 && !d->set_down)
        return base_err_set(err, BASE_EINVAL, "sim: down %g: %s pieces never lie face down",
                            o->down, d->game);
    if (o->enrol >= 0 && (d->nenrol <= 0 || !d->enrol))
        return base_err_set(err, BASE_EUNSUPPORTED,
                            "sim: enrol %d: the %s set has no enrolment layout yet", o->enrol,
                            d->game);
    if (o->enrol < -1 || o->enrol >= d->nenrol)
        return base_err_set(err, BASE_EINVAL,
                            "sim: enrol %d is outside -1..%d (-1: a match, else a photo of "
                            "the %s enrolment)",
                            o->enrol, d->nenrol - 1, d->game);
    if (!(o->mat_s >= 10 && o->mat_w >= 4 * o->mat_s && o->mat_h >= 4 * o->mat_s &&
          o->mat_w <= 3000 && o->mat_h <= 3000))
        return base_err_set(err, BASE_EINVAL,
                            "sim: mat %gx%g:%g needs a side >= 10 mm and a play area at least "
                            "4 marker sides across (at most 3000 mm)",
                            o->mat_w, o->mat_h, o->mat_s);
    return 0;
}

static void sim__distractors(sim_stream *s, sim__rng *r)
{
    double e = s->mat.s / 2 + s->mat.margin + s->look.mat_extra + 20;
    int want = s->o.clean ? 0 : sim__rng_int(r, 4);
    for (int tries = 0; tries < 50 && s->ndistract < want; tries++) {
        sim__obj *o = &s->distract[s->ndistract];
        int kind = sim__rng_int(r, 3);
        double rad;
        memset(o, 0, sizeof *o);
        o->shadow = true;
        o->yaw = sim__rng_range(r, 0, SIM__PI);
        o->x = sim__rng_range(r, -e - 250, s->mat.w + e + 250);
        o->y = sim__rng_range(r, -e - 250, s->mat.h + e + 250);
        if (kind == 0) {
            o->kind = SIM__CYL;
            o->look = SIM__LOOK_CUP;
            o->sx = sim__rng_range(r, 35, 45);
            o->sz = sim__rng_range(r, 80, 105);
            rad = o->sx;
            o->rgb[0] = (float)sim__rng_range(r, 0.2, 0.9);
            o->rgb[1] = (float)sim__rng_range(r, 0.2, 0.9);
            o->rgb[2] = (float)sim__rng_range(r, 0.2, 0.9);
            o->rgb2[0] = 0.12f;
            o->rgb2[1] = 0.07f;
            o->rgb2[2] = 0.04f;
        } else if (kind == 1) {
            o->kind = SIM__BOX;
            o->look = SIM__LOOK_PHONE;
            o->sx = 150;
            o->sy = 72;
            o->sz = 8;
            rad = 85;
            o->rgb[0] = o->rgb[1] = o->rgb[2] = (float)sim__rng_range(r, 0.05, 0.6);
        } else {
            o->kind = SIM__BOX;
            o->look = SIM__LOOK_PAPER;
            o->sx = 210;
            o->sy = 297;
            o->sz = 0.3;
            o->shadow = false;
            rad = 185;
            o->rgb[0] = o->rgb[1] = 0.9f;
            o->rgb[2] = 0.88f;
            o->rgb2[0] = o->rgb2[1] = 0.25f;
            o->rgb2[2] = 0.45f;
            o->piece.x = (int16_t)sim__rng_int(r, 30000);
            o->piece.y = (int16_t)sim__rng_int(r, 30000);
        }
        /* off the mat */
        if (o->x + rad > -e && o->x - rad < s->mat.w + e && o->y + rad > -e &&
            o->y - rad < s->mat.h + e)
            continue;
        s->ndistract++;
    }
}

/* An enrolment photo: the layout of photo s->o.enrol laid on the board
 * grid as a match's pieces are (offset, turn, jitter, decorated faces),
 * and nothing else: the user clears the table of the game before taking
 * the photos, so neither a start position nor the open hands lie beside
 * the mat. */
static int sim__enrol_layout(sim_stream *s, base_err *err)
{
    rules_piece lay[RULES_MAX_MOVE_PIECES];
    int n = s->drv->enrol(s->o.enrol, lay, RULES_MAX_MOVE_PIECES), rc;
    if (n < 0)
        return base_err_set(err, n, "sim: no layout for %s enrolment photo %d", s->game,
                            s->o.enrol);
    for (int i = 0; i < n; i++) {
        sim__placed p;
        /* A photo that does not fit the mat cannot be taken: refuse it
         * rather than lay a cube over a marker. */
        if (!sim__fits(s, lay[i].x, lay[i].y))
            return base_err_set(err, BASE_EINVAL,
                                "sim: %s enrolment photo %d does not fit on the mat %gx%g:%g "
                                "(cell %d,%d is outside the play area)",
                                s->game, s->o.enrol, s->mat.w, s->mat.h, s->mat.s, lay[i].x,
                                lay[i].y);
        sim__make_piece(s, &lay[i], false, &p);
        if ((rc = sim__table_add(s, &p)) != 0)
            return base_err_set(err, rc, "sim: out of memory");
    }
    /* No plan: nothing moves, no hand comes. */
    s->nkeys = s->nevents = s->next_event = 0;
    return 0;
}

/* 0, or the error the driver met decorating pieces (a card deck that did
 * not render). */
static int sim__driver_ok(sim_stream *s, base_err *err)
{
    return s->drv->failed && s->dstate ? s->drv->failed(s->dstate, err) : 0;
}

/* Lays the driver's board anywhere inside the markers and their margins
 * (at the centre when it does not fit), turned up to its limit; the grid's
 * cell (0, 0) follows from the board's centre. */
static void sim__board_place(sim_stream *s, sim__rng *r)
{
    const sim__driver *d = s->drv;
    double turn = d->board_turn_deg * SIM__PI / 180, c, sn, ex, ey, band, u, v;
    d->board(s->dstate, &s->board);
    s->board_rot = sim__rng_range(r, -turn, turn);
    c = cos(s->board_rot);
    sn = sin(s->board_rot);
    ex = (fabs(c) * s->board.sx + fabs(sn) * s->board.sy) / 2;
    ey = (fabs(sn) * s->board.sx + fabs(c) * s->board.sy) / 2;
    band = s->mat.s / 2 + s->mat.margin + 3;
    s->board.x = band + ex < s->mat.w - band - ex
                     ? sim__rng_range(r, band + ex, s->mat.w - band - ex)
                     : s->mat.w / 2;
    s->board.y = band + ey < s->mat.h - band - ey
                     ? sim__rng_range(r, band + ey, s->mat.h - band - ey)
                     : s->mat.h / 2;
    s->board.yaw = s->board_rot;
    u = -(d->board_cols - 1) / 2.0 * d->kind->pitch_x;
    v = -(d->board_rows - 1) / 2.0 * d->kind->pitch_y;
    s->board_x = s->board.x + c * u - sn * v;
    s->board_y = s->board.y + sn * u + c * v;
    s->has_board = true;
    s->base_z = s->board.z0 + s->board.sz;
}

static void sim__seats(sim_stream *s, sim__rng *r)
{
    static const double skins[][3] = {{0.93, 0.75, 0.62}, {0.85, 0.64, 0.5}, {0.72, 0.52, 0.38},
                                      {0.55, 0.38, 0.26}, {0.4, 0.27, 0.18}, {0.28, 0.18, 0.12}};
    double cx = s->mat.w / 2, cy = s->mat.h / 2;
    for (int p = 0; p < RULES_MAX_PLAYERS; p++) {
        sim__seat *st = &s->seats[p];
        /* sides: bottom, top, left, right, then the corners */
        static const double dx[6] = {0, 0, -1, 1, -0.7, 0.7}, dy[6] = {1, -1, 0, 0, 0.7, -0.7};
        double reach = (fabs(dx[p]) > 0 ? s->mat.w : s->mat.h) / 2 + 450;
        double lat = sim__rng_range(r, -120, 120);
        const double *sk = skins[sim__rng_int(r, 6)];
        st->sx = cx + dx[p] * reach - dy[p] * lat;
        st->sy = cy + dy[p] * reach + dx[p] * lat;
        st->shx = cx + dx[p] * (reach + 300) - dy[p] * (lat + sim__rng_range(r, -100, 100));
        st->shy = cy + dy[p] * (reach + 300) + dx[p] * (lat + sim__rng_range(r, -100, 100));
        for (int k = 0; k < 3; k++) {
            st->skin[k] = (float)(sk[k] * sim__rng_range(r, 0.93, 1.05));
            st->sleeve[k] = (float)sim__rng_range(r, 0.05, 0.85);
        }
        st->left = sim__rng_unit(r) < 0.15;
    }
}

int sim_stream_new(const char *game, uint64_t seed, const sim_options *opt, sim_stream **out,
                   base_err *err)
{
    sim_options def;
    sim_stream *s;
    sim__rng rscene;
    cJSON *header, *names;
    int rc;

    *out = NULL;
    if (!opt) {
        sim_options_default(&def);
        opt = &def;
    }
    if (!game || !sim__driver_for(game))
        return base_err_set(err, BASE_EUNSUPPORTED,
                            "sim: cannot simulate game '%s' (supported: qwirkle, cards, cube2, cubed)",
                            game ? game : "(none)");
    if (!rules_game_available(game))
        return base_err_set(err, BASE_EUNSUPPORTED, "sim: the %s engine is not built", game);
    if ((rc = sim__check_options(sim__driver_for(game), opt, err)) != 0)
        return rc;
    if (!(s = calloc(1, sizeof *s)) || !(s->move = malloc(sizeof *s->move))) {
        if (s)
            free(s);
        return base_err_set(err, BASE_ENOMEM, "sim: out of memory");
    }
    snprintf(s->game, sizeof s->game, "%s", game);
    s->seed = seed;
    s->o = *opt;
    s->drv = sim__driver_for(game);
    sim__rng_seed(&rscene, seed, 1);
    sim__rng_seed(&s->rng_look, seed, 2);
    sim__rng_seed(&s->rng_game, seed, 3);
    sim__rng_seed(&s->rng_move, seed, 4);

    header = cJSON_CreateObject();
    names = cJSON_AddArrayToObject(header, "players");
    for (int i = 0; i < opt->players; i++) {
        char name[16];
        snprintf(name, sizeof name, "P%d", i + 1);
        cJSON_AddItemToArray(names, cJSON_CreateString(name));
    }
    if ((rc = s->drv->create(header, opt->players, &s->rng_game, &s->dstate)) != 0) {
        cJSON_Delete(header);
        sim_stream_free(s);
        return base_err_set(err, rc, "sim: cannot deal the %s game", game);
    }
    if (s->drv->ndesigns > 0) {
        /* its own stream: drawing a design changes nothing else */
        sim__rng rd;
        sim__rng_seed(&rd, seed, 5);
        s->design = opt->design >= 0 ? opt->design : sim__rng_int(&rd, s->drv->ndesigns);
        s->drv->set_design(s->dstate, s->design);
    }
    if (s->drv->set_down) {
        sim__rng rdown; /* its own stream too: down=0 changes nothing else */
        sim__rng_seed(&rdown, seed, 7);
        s->drv->set_down(s->dstate, opt->down, &rdown);
    }
    if ((rc = sim__driver_ok(s, err)) != 0) {
        cJSON_Delete(header);
        sim_stream_free(s);
        return rc;
    }
    rc = rules_game_new(game, header, err, &s->g);
    cJSON_Delete(header);
    if (rc) {
        base_err_prefix(err, "sim: ");
        sim_stream_free(s);
        return rc;
    }
    if ((rc = s->drv->sync(s->dstate, s->g)) != 0) {
        sim_stream_free(s);
        return base_err_set(err, rc, "sim: the %s players disagree with the engine", game);
    }

    s->mat.w = opt->mat_w;
    s->mat.h = opt->mat_h;
    s->mat.s = opt->mat_s;
    s->mat.margin = opt->mat_s * sim__rng_range(&rscene, 0.2, 0.35);
    for (int id = 0; id < 4; id++)
        if ((rc = vis_aruco_marker_cells(id, s->mat.cells[id], err)) != 0) {
            sim_stream_free(s);
            return rc;
        }
    sim__look_sample(&s->look, &s->rng_look, opt->clean);
    s->look.blur *= opt->width / 1280.0;
    if (s->look.blur > 0 && s->look.blur < 0.3)
        s->look.blur = 0.3;
    if (opt->setup == SIM_SETUP_MIXED) {
        sim__rng rs; /* its own stream, like the design */
        sim__rng_seed(&rs, seed, 6);
        s->setup = sim__rng_range(&rs, 0, 1) < SIM_SETUP_GOOD_SHARE ? SIM_SETUP_GOOD : SIM_SETUP_ANY;
    } else {
        s->setup = opt->setup;
    }
    if ((rc = sim__camera_sample(&s->cam, &rscene, opt->width, opt->height, &s->mat, opt->clean,
                                 s->setup, err)) != 0) {
        sim_stream_free(s);
        return rc;
    }
    if (s->drv->board) {
        sim__board_place(s, &rscene);
    } else {
        s->board_x = s->mat.w / 2 + sim__rng_range(&rscene, -30, 30);
        s->board_y = s->mat.h / 2 + sim__rng_range(&rscene, -30, 30);
        double turn = s->drv->layout_turn_deg > 0 ? s->drv->layout_turn_deg : 6;
        s->board_rot = sim__rng_range(&rscene, -turn, turn) * SIM__PI / 180;
    }
    sim__seats(s, &rscene);
    sim__distractors(s, &rscene);
    for (int k = 0; k < 3; k++) {
        s->wb_phase[k] = sim__rng_range(&rscene, 0, 2 * SIM__PI);
        s->wb_period[k] = sim__rng_range(&rscene, 5, 20);
    }
    if ((rc = sim__renderer_new(&s->cam, &s->look, &s->mat, &s->rend, err)) != 0) {
        sim_stream_free(s);
        return rc;
    }
    if (opt->enrol >= 0) {
        rc = sim__enrol_layout(s, err);
        if (rc == 0)
            rc = sim__driver_ok(s, err);
        if (rc) {
            sim_stream_free(s);
            return rc;
        }
        *out = s;
        return 0;
    }
    /* What the match starts with on the table (the cards' start card). */
    {
        rules_piece start[RULES_MAX_MOVE_PIECES];
        int n0 = rules_position(s->g, start, RULES_MAX_MOVE_PIECES);
        for (int i = 0; i < n0 && i < RULES_MAX_MOVE_PIECES; i++) {
            sim__placed p;
            sim__make_piece(s, &start[i], false, &p);
            if ((rc = sim__table_add(s, &p)) != 0) {
                sim_stream_free(s);
                return base_err_set(err, rc, "sim: out of memory");
            }
        }
    }
    sim__rows(s, -1, NULL);
    if ((rc = sim__driver_ok(s, err)) != 0) {
        sim_stream_free(s);
        return rc;
    }
    /* The first still frames: the table before the first move. */
    s->nkeys = s->nevents = s->next_event = 0;
    s->plan_end = sim__rng_range(&s->rng_move, 0.6, 1.5);
    *out = s;
    return 0;
}

/* Brings the match up to the time of frame s->frame: the events due by
 * then are made and the next moves planned.  Returns 0, BASE_EEOF at the
 * end of the stream, or an error.  Nothing here depends on the pictures,
 * so a frame reached by skipping is the frame reached by rendering. */
static int sim__advance_match(sim_stream *s, double t, base_err *err);

static int sim__advance(sim_stream *s, double t, base_err *err)
{
    int rc = sim__advance_match(s, t, err);
    return rc ? rc : sim__driver_ok(s, err);
}

static int sim__advance_match(sim_stream *s, double t, base_err *err)
{
    int rc;

    if (s->finished || (s->o.max_frames > 0 && s->frame >= s->o.max_frames))
        return BASE_EEOF;
    if (s->o.enrol >= 0) /* a still photo: no events, no plans */
        return 0;
    if ((rc = sim__run_events(s, t)) != 0)
        return base_err_set(err, rc, "sim: the game went wrong at frame %d", s->frame);
    while (t >= s->plan_end - 1e-9) {
        rc = sim__plan(s, s->plan_end);
        if (rc == BASE_EEOF) {
            s->finished = true;
            return BASE_EEOF;
        }
        if (rc)
            return base_err_set(err, rc, "sim: cannot plan move %d", s->events_done + 1);
        if ((rc = sim__run_events(s, t)) != 0)
            return base_err_set(err, rc, "sim: the game went wrong at frame %d", s->frame);
    }
    return 0;
}

int sim_stream_skip(sim_stream *s, int n, base_err *err)
{
    int rc;

    if (!s || n < 0)
        return base_err_set(err, BASE_EINVAL, "sim_stream_skip: %s",
                            s ? "a negative number of frames" : "NULL stream");
    for (int i = 0; i < n; i++) {
        if ((rc = sim__advance(s, s->frame / s->o.fps, err)) != 0)
            return rc;
        /* A move made here went on this unseen frame's truth line. */
        cJSON_Delete(s->done_json);
        s->done_json = NULL;
        s->frame++;
    }
    return 0;
}

int sim_stream_next(sim_stream *s, vis_image **image, char **truth_json, base_err *err)
{
    double t;
    sim__obj *objs;
    sim__frame_fx fx;
    long hand_px = 0, moving_px = 0;
    vis_image *img = NULL;
    cJSON *truth;
    char *text;
    int n, rc;

    if (!s || !image || !truth_json)
        return base_err_set(err, BASE_EINVAL, "sim_stream_next: NULL argument");
    t = s->frame / s->o.fps;
    if ((rc = sim__advance(s, t, err)) != 0)
        return rc;
    if (!(objs = malloc(SIM__MAXOBJ * sizeof *objs)))
        return base_err_set(err, BASE_ENOMEM, "sim: out of memory");
    n = sim__scene(s, t, objs, SIM__MAXOBJ);
    for (int k = 0; k < 3; k++)
        fx.wb[k] = (float)(1 + s->look.wb_drift *
                                   sin(2 * SIM__PI * t / s->wb_period[k] + s->wb_phase[k]));
    {
        sim__rng fr;
        sim__rng_seed(&fr, s->seed, 1000 + (uint64_t)s->frame);
        fx.noise_seed = (uint32_t)sim__rng_u64(&fr);
        fx.shake_px = 0;
        fx.shake_angle = 0;
        if (!s->o.clean && sim__rng_unit(&fr) < 0.04) {
            fx.shake_px = sim__rng_range(&fr, 2, 6);
            fx.shake_angle = sim__rng_range(&fr, 0, SIM__PI);
        }
    }
    rc = sim__render(s->rend, objs, n, &fx, &img, &hand_px, &moving_px, err);
    if (rc) {
        free(objs);
        return rc;
    }
    truth = sim__truth(s, t, objs, n, moving_px == 0, hand_px > 0, &fx);
    free(objs);
    text = truth ? cJSON_PrintUnformatted(truth) : NULL;
    cJSON_Delete(truth);
    if (!text) {
        vis_image_free(img);
        return base_err_set(err, BASE_ENOMEM, "sim: out of memory for the truth");
    }
    s->frame++;
    *image = img;
    *truth_json = text;
    return 0;
}

void sim_stream_free(sim_stream *s)
{
    if (!s)
        return;
    if (s->drv && s->dstate)
        s->drv->destroy(s->dstate);
    rules_game_free(s->g);
    sim__renderer_free(s->rend);
    cJSON_Delete(s->done_json);
    free(s->placed);
    free(s->move);
    free(s);
}
