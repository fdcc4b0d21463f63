/* referee/still.c: when is the table still? */
#include "referee.h"

void ref_still_init(ref_still *s, const ref_still_config *cfg)
{
    s->cfg.window_s = cfg && cfg->window_s > 0 ? cfg->window_s : 0.16;
    s->cfg.motion = cfg && cfg->motion > 0 ? cfg->motion : 0.002;
    s->still_since = -1;
    s->fired = false;
}

bool ref_still_feed(ref_still *s, double t, double motion, bool hand)
{
    if (hand || motion > s->cfg.motion) {
        s->still_since = -1;
        s->fired = false;
        return false;
    }
    if (s->still_since < 0)
        s->still_since = t;
    if (!s->fired && t - s->still_since >= s->cfg.window_s) {
        s->fired = true;
        return true;
    }
    return false;
}
