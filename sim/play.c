/* sim/play.c: move-making shared by the games' players (the drivers,
 * one per game: qwirkle_pieces.c, cards_pieces.c, cube2_pieces.c,
 * cubed_pieces.c). */
#include "sim_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void sim__reservoir_offer(sim__reservoir *rv, const rules_move *m, double w)
{
    double key = log(sim__rng_unit(rv->r) + 1e-300) / w;
    if (rv->count++ == 0 || key > rv->key) {
        rv->key = key;
        *rv->best = *m;
    }
}

bool sim__move_fits(const rules_move *m, sim__fits_fn fits, void *ctx)
{
    for (int i = 0; i < m->npieces; i++)
        if (!fits(ctx, m->pieces[i].x, m->pieces[i].y))
            return false;
    return true;
}

int sim__illegal_single(const rules_game *g, int player, const rules_piece *held, int nheld,
                        int spread, sim__rng *r, sim__fits_fn fits, void *ctx, rules_move *m)
{
    int n = rules_position(g, NULL, 0), x0 = 0, x1 = 0, y0 = 0, y1 = 0;
    rules_piece *board;
    rules_verdict v;
    if (nheld <= 0)
        return BASE_ENOTFOUND;
    if (!(board = malloc((size_t)(n > 0 ? n : 1) * sizeof *board)))
        return BASE_ENOMEM;
    n = rules_position(g, board, n);
    for (int i = 0; i < n; i++) {
        if (i == 0 || board[i].x < x0)
            x0 = board[i].x;
        if (i == 0 || board[i].x > x1)
            x1 = board[i].x;
        if (i == 0 || board[i].y < y0)
            y0 = board[i].y;
        if (i == 0 || board[i].y > y1)
            y1 = board[i].y;
    }
    /* Random free cells around the board until the engine refuses one:
     * cut off from the board, or breaking a line or a neighbour rule. */
    for (int tries = 0; tries < 400; tries++) {
        int x = x0 - spread + sim__rng_int(r, x1 - x0 + 2 * spread + 1);
        int y = y0 - spread + sim__rng_int(r, y1 - y0 + 2 * spread + 1);
        bool taken = false;
        for (int i = 0; i < n; i++)
            taken |= board[i].x == x && board[i].y == y;
        if (taken || !fits(ctx, x, y))
            continue;
        rules_move_init(m, RULES_MOVE_PLACE);
        m->npieces = 1;
        m->pieces[0] = held[sim__rng_int(r, nheld)];
        m->pieces[0].x = (int16_t)x;
        m->pieces[0].y = (int16_t)y;
        m->nhand = nheld;
        memcpy(m->hand, held, sizeof *held * (size_t)nheld);
        if (rules_check(g, player, m, &v) == 0 && !v.legal) {
            free(board);
            return 0;
        }
    }
    free(board);
    return BASE_ENOTFOUND;
}

/* Inside an n-pointed star of outer radius ro and inner radius ri with a
 * spike along +u. */
bool sim__in_star(double u, double v, int n, double ro, double ri)
{
    double rho = sqrt(u * u + v * v), sector = 2 * SIM__PI / n;
    double th = atan2(v, u), phi;
    if (rho > ro)
        return false;
    if (rho < ri)
        return true;
    phi = fabs(th - sector * floor(th / sector + 0.5));
    {
        double px = rho * cos(phi), py = rho * sin(phi);
        double tx = ro, ty = 0, vx = ri * cos(sector / 2), vy = ri * sin(sector / 2);
        double cp = (vx - tx) * (py - ty) - (vy - ty) * (px - tx);
        double co = (vx - tx) * (0 - ty) - (vy - ty) * (0 - tx);
        return (cp >= 0) == (co >= 0);
    }
}
