/* vision/qwirkle_grid.c: the grid the cubes lie on: its rotation from the
 * directions between neighbouring symbols (a circular mean of 4x the
 * angle), its phase from where they fall modulo the pitch, then a
 * least-squares refit of pitch and phase. */
#include "qwirkleInt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- grid ---- */

double vis__qw_wrap(double a, double p) { return a - p * floor(a / p + 0.5); }

void vis__qw_grid(vis_qwirkle *q, vis__qw_blob *bl, int nb, double ppm, double *angle,
                     double *pitch, double *phu, double *phv)
{
    const double cube = q->cube_mm;
    double sr = 0, si = 0, sw = 0, ca, sa, big = 0, big_th = 0;
    int npairs = 0;
    /* Rotation from neighbouring symbols, each pair weighted by its
     * smaller blob's area up to a small symbol's (QW__GRID_AREA): side
     * faces and table seen in shade are fragments, and on a small board
     * their pairs (with each other and, diagonally, with the tops)
     * outnumber the tops' own (sim seed 300016: 2 cubes, 6 pairs, the
     * mean turned 16 degrees and one cube lost its cell). */
    const double amax = QW__GRID_AREA * cube * cube * ppm * ppm;
    for (int pass = 0; pass < 2; pass++) {
        /* the second pass keeps the pairs within 10 degrees of the first's
         * mean: a trimmed mean, the same on a board whose pairs agree */
        double mr = sr, mi = si, mn = hypot(sr, si);
        double mw = sw;
        int mp = npairs;
        if (pass == 1 && !(npairs > 2 && mn > 0))
            break;
        sr = si = sw = 0;
        npairs = 0;
        for (int i = 0; i < nb; i++)
            for (int j = i + 1; j < nb; j++) {
                double dx = bl[j].x - bl[i].x, dy = bl[j].y - bl[i].y, d = sqrt(dx * dx + dy * dy);
                if (d < 0.8 * cube || d > 1.25 * cube)
                    continue;
                double th = atan2(dy, dx), wt = fmin(fmin(bl[i].n, bl[j].n), amax);
                if (pass == 1 && (cos(4 * th) * mr + sin(4 * th) * mi) / mn < cos(40 * QW__PI / 180))
                    continue;
                sr += wt * cos(4 * th);
                si += wt * sin(4 * th);
                sw += wt;
                npairs++;
                if (pass == 0 && fmin(bl[i].n, bl[j].n) > big) {
                    big = fmin(bl[i].n, bl[j].n);
                    big_th = th;
                }
            }
        if (npairs == 0) { /* none near the mean: keep it */
            sr = mr;
            si = mi;
            sw = mw;
            npairs = mp;
        }
    }
    if (npairs == 2 && sqrt(sr * sr + si * si) < 0.75 * sw)
        /* Two pairs that disagree by more than 20 degrees: their mean is
         * wrong for both.  A side face's fragment beside a first move is
         * small, so the pair of larger blobs (sim seeds 500000, 500014:
         * 2-cube boards turned 17 degrees, a cube misread at conf 0.91). */
        *angle = atan2(sin(4 * big_th), cos(4 * big_th)) / 4;
    else if (npairs > 0 && sqrt(sr * sr + si * si) > 0.3 * sw)
        *angle = atan2(si, sr) / 4;
    else
        /* Too little to tell: the mat's axes.  Not the last reading's
         * angle, which may have come from a hand or another board (on the
         * benches: 1.5 points better, both seed sets). */
        *angle = 0;
    if (q->have_angle) {
        /* Keep the axes of the last reading. */
        while (*angle - q->last_angle > QW__PI / 4)
            *angle -= QW__PI / 2;
        while (*angle - q->last_angle < -QW__PI / 4)
            *angle += QW__PI / 2;
    }
    if (npairs > 0) {
        q->have_angle = true;
        q->last_angle = *angle;
    }
    ca = cos(*angle);
    sa = sin(*angle);
    *pitch = cube;
    for (int i = 0; i < nb; i++) {
        bl[i].u = bl[i].x * ca + bl[i].y * sa;
        bl[i].v = -bl[i].x * sa + bl[i].y * ca;
    }
    /* Phase: circular mean of the positions modulo the pitch (weighted as
     * the pairs are), then again
     * without the blobs far off it (side faces), then a least-squares refit
     * of pitch and phase on the cells found. */
    {
        double keep = 0.5 * cube;
        for (int it = 0; it < 3; it++) {
            double ur = 0, ui = 0, vr = 0, vi = 0, k2 = 2 * QW__PI / *pitch;
            for (int i = 0; i < nb; i++) {
                if (it > 0 && (fabs(vis__qw_wrap(bl[i].u - *phu, *pitch)) > keep ||
                               fabs(vis__qw_wrap(bl[i].v - *phv, *pitch)) > keep))
                    continue;
                double wt = fmin(bl[i].n, amax); /* as the pairs above */
                ur += wt * cos(k2 * bl[i].u);
                ui += wt * sin(k2 * bl[i].u);
                vr += wt * cos(k2 * bl[i].v);
                vi += wt * sin(k2 * bl[i].v);
            }
            if (ur == 0 && ui == 0)
                break;
            *phu = atan2(ui, ur) / k2;
            *phv = atan2(vi, vr) / k2;
            keep = 0.25 * cube;
        }
    }
    {
        /* u = phu + k pitch: fit over the blobs close to a cell centre. */
        double n = 0, sk = 0, skk = 0, su = 0, sku = 0, m = 0, sl = 0, sll = 0, sv = 0, slv = 0;
        for (int i = 0; i < nb; i++) {
            double ku = floor((bl[i].u - *phu) / *pitch + 0.5), kv = floor((bl[i].v - *phv) / *pitch + 0.5);
            if (fabs(bl[i].u - *phu - ku * *pitch) < 0.2 * cube) {
                n++;
                sk += ku;
                skk += ku * ku;
                su += bl[i].u;
                sku += ku * bl[i].u;
            }
            if (fabs(bl[i].v - *phv - kv * *pitch) < 0.2 * cube) {
                m++;
                sl += kv;
                sll += kv * kv;
                sv += bl[i].v;
                slv += kv * bl[i].v;
            }
        }
        double du = n * skk - sk * sk, dv = m * sll - sl * sl, p1 = 0, p2 = 0, w1 = 0, w2 = 0;
        if (n >= 3 && du > 1e-9) {
            p1 = (n * sku - sk * su) / du;
            w1 = du / n;
        }
        if (m >= 3 && dv > 1e-9) {
            p2 = (m * slv - sl * sv) / dv;
            w2 = dv / m;
        }
        if (w1 + w2 > 4) { /* the board spans a few cells: trust the fit */
            double p = (p1 * w1 + p2 * w2) / (w1 + w2);
            if (p > 0.97 * cube && p < 1.08 * cube)
                *pitch = p;
        }
        if (n > 0)
            *phu = (su - *pitch * sk) / n;
        if (m > 0)
            *phv = (sv - *pitch * sl) / m;
    }
    /* From cell centres to cell corners: cell k spans phase + [k, k+1) pitch. */
    *phu -= 0.5 * *pitch;
    *phv -= 0.5 * *pitch;
}

