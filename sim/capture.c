/* sim/capture.c: the `sim:` camera, a capture backend over a sim stream,
 * for `tablecam watch --camera sim:GAME[:seed=N][:fps=F][:WxH][:moves=M]
 * [:illegal=P][:design=D][:down=P][:setup=S]` and the demo. */
#define _POSIX_C_SOURCE 200809L
#include "sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct sim__cap {
    sim_stream *s;
    int frame;
    double fps;
} sim__cap;

static int sim__cap_read(void *self, vis_image **frame, double *t, base_err *err)
{
    sim__cap *c = self;
    char *truth = NULL;
    int rc = sim_stream_next(c->s, frame, &truth, err);
    if (rc == 0) {
        *t = c->frame++ / c->fps;
        free(truth);
    }
    return rc;
}

static void sim__cap_close(void *self)
{
    sim__cap *c = self;
    sim_stream_free(c->s);
    free(c);
}

int sim_capture_open(const char *spec, vis_capture **out, base_err *err)
{
    static const vis_capture_ops ops = {sim__cap_read, sim__cap_close, false};
    char game[16] = "", buf[256];
    unsigned long long seed = 1;
    sim_options o;
    sim__cap *c;
    char *tok, *save = NULL;
    int rc;

    *out = NULL;
    sim_options_default(&o);
    if (!spec || strncmp(spec, "sim:", 4) != 0 || strlen(spec) >= sizeof buf)
        return base_err_set(err, BASE_EINVAL, "camera '%s': expected sim:GAME[:seed=N]",
                            spec ? spec : "");
    snprintf(buf, sizeof buf, "%s", spec + 4);
    for (tok = strtok_r(buf, ":", &save); tok; tok = strtok_r(NULL, ":", &save)) {
        int w, h;
        char tail;
        if (!game[0]) {
            snprintf(game, sizeof game, "%s", tok);
        } else if (sscanf(tok, "seed=%llu%c", &seed, &tail) == 1) {
        } else if (sscanf(tok, "fps=%lf%c", &o.fps, &tail) == 1 && o.fps > 0) {
        } else if (sscanf(tok, "moves=%d%c", &o.max_moves, &tail) == 1 && o.max_moves >= 0) {
        } else if (sscanf(tok, "illegal=%lf%c", &o.illegal, &tail) == 1) {
        } else if (sscanf(tok, "design=%d%c", &o.design, &tail) == 1) {
        } else if (sscanf(tok, "down=%lf%c", &o.down, &tail) == 1) {
        } else if (strncmp(tok, "setup=", 6) == 0 && sim_setup_from_name(tok + 6, &o.setup)) {
        } else if (sscanf(tok, "%dx%d%c", &w, &h, &tail) == 2) {
            o.width = w;
            o.height = h;
        } else {
            return base_err_set(err, BASE_EINVAL,
                                "camera '%s': unknown option '%s' (seed=N, fps=F, WxH, moves=M, "
                                "illegal=P, design=D, down=P, setup=mixed|any|good)",
                                spec, tok);
        }
    }
    if (!(c = calloc(1, sizeof *c)))
        return base_err_set(err, BASE_ENOMEM, "out of memory");
    c->fps = o.fps;
    if ((rc = sim_stream_new(game, seed, &o, &c->s, err)) != 0) {
        free(c);
        return rc;
    }
    return vis_capture_wrap(&ops, c, spec, out);
}
