/* vision/light.h: a colour seen as a surface's own colour under more or
 * other light, for the recognisers' tests of what is a hand and what is
 * the table lit unevenly (internal to vision/). */
#ifndef TABLECAM_VISION_LIGHT_H
#define TABLECAM_VISION_LIGHT_H

#include <math.h>

/* Colour p (B G R) as a m + b (1, 1, 1): the surface's colour m under a
 * times its light, with b of white added (a lamp's reflection, glare).
 * The least-squares (a, b), with b held at 0 when it would be negative
 * (no negative white) and a at amin when it would be below that (the
 * fit on the bound); a grey m (no line to fit) takes a alone.  Returns
 * the root mean square of what is left over, in levels. */
static inline double vis__light_fit(const unsigned char *p, const double *m, double amin,
                                    double *a_out, double *b_out)
{
    double sm = 0, sp = 0, smm = 0, smp = 0, a, b, res = 0, det;
    for (int c = 0; c < 3; c++) {
        sm += m[c];
        sp += p[c];
        smm += m[c] * m[c];
        smp += m[c] * p[c];
    }
    det = 3 * smm - sm * sm;
    if (det < 1e-6) { /* a grey surface: any grey is it, lit */
        a = sp / fmax(sm, 1);
        b = 0;
    } else {
        a = (3 * smp - sm * sp) / det;
        b = (sp - a * sm) / 3;
    }
    if (b < 0) {
        /* no negative white: the best fit with b = 0 (more of the same
         * light; the least-squares line through the three channels may
         * dip below zero where the plain product fits within the noise) */
        b = 0;
        a = smp / fmax(smm, 1e-6);
    }
    if (a < amin) {
        /* the least squares under a >= amin lie on that bound.  On a
         * near-grey surface the free line through the three channels is
         * ill-conditioned (their levels all but equal), and a pixel's
         * noise of a few levels sets its slope anywhere: whether the
         * colour fits is then the residual's to say. */
        a = amin;
        b = fmax(0, (sp - a * sm) / 3);
    }
    for (int c = 0; c < 3; c++) {
        double e = p[c] - a * m[c] - b;
        res += e * e;
    }
    *a_out = a;
    *b_out = b;
    return sqrt(res / 3);
}

#endif
