/* vision/recall.h: what the recognisers share to remember the pieces of a
 * still board over frames (qw__remember in qwirkle.c, cd__remember in
 * cards.c; internal to vision/): a remembered piece's place, found again
 * on the next frame as the nearest within a radius, the weight of
 * evidence a read gives, and the forgetting of what a frame no longer
 * shows. */
#ifndef TABLECAM_VISION_RECALL_H
#define TABLECAM_VISION_RECALL_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/* Where a remembered piece lies on the table (mm); the first member of
 * each reader's memory entry. */
typedef struct vis__place {
    double x, y;
    bool seen; /* read on the current frame already */
} vis__place;

/* The entry nearest (x, y), within r mm, that the current frame has not
 * read yet, of the n entries at mem, stride bytes apart, each starting
 * with its vis__place (the first of equals); -1 when none. */
static inline int vis__recall_near(const void *mem, int n, size_t stride, double x, double y,
                                   double r)
{
    double bd = r * r;
    int best = -1;
    for (int i = 0; i < n; i++) {
        const vis__place *p = (const vis__place *)((const char *)mem + (size_t)i * stride);
        double dx = p->x - x, dy = p->y - y;
        if (!p->seen && dx * dx + dy * dy < bd) {
            bd = dx * dx + dy * dy;
            best = i;
        }
    }
    return best;
}

/* A read's weight of evidence: the log-odds of its conf, none at 0.5 or
 * less (a coin's call says nothing), at most that of 0.98. */
static inline double vis__vote(double conf)
{
    const double c = fmin(0.98, fmax(0.5, conf));
    return log(c / (1 - c));
}

/* The conf of a value the memory puts in place of a frame's call: no
 * more than the frame's doubt in its own call (1 - conf, when read: the
 * frame made one) nor the odds of the evidence's lead over that call. */
static inline double vis__recall_conf(bool read, double conf, double lead)
{
    const double odds = 1 / (1 + exp(-lead));
    return read ? fmin(1 - conf, odds) : odds;
}

/* Drops the entries the current frame did not read (a piece taken away,
 * or never there), unless a hand over the board may have hidden them,
 * and clears the rest's seen for the next frame.  Returns how many are
 * left. */
static inline int vis__forget(void *mem, int n, size_t stride, bool hand)
{
    int k = 0;
    for (int i = 0; i < n; i++) {
        vis__place *p = (vis__place *)((char *)mem + (size_t)i * stride);
        if (p->seen || hand) {
            char *to = (char *)mem + (size_t)k * stride;
            if (to != (char *)p)
                memmove(to, p, stride);
            ((vis__place *)to)->seen = false;
            k++;
        }
    }
    return k;
}

#endif
