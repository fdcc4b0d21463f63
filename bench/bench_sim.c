/* bench/bench_sim.c: how fast the simulated table renders at 1280x960,
 * the demo camera's size.  Target: the stream keeps up with its own
 * default frame rate (5 frames a simulated second), so that `make demo`
 * plays in real time; set-up (the lit table, the lens map) once a stream. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim.h"

#define TARGET_FPS 5.0

static int run(const char *label, bool clean, int frames)
{
    sim_options o;
    sim_stream *s = NULL;
    base_err err;
    double t0, t1, t2;
    clock_t c1, c2;
    int n = 0, hands = 0;
    sim_options_default(&o);
    o.width = 1280;
    o.height = 960;
    o.clean = clean;
    o.max_frames = frames;
    t0 = base_now();
    if (sim_stream_new("qwirkle", 42, &o, &s, &err) != 0) {
        fprintf(stderr, "bench_sim: %s\n", err.msg);
        return 1;
    }
    t1 = base_now();
    c1 = clock();
    for (;;) {
        vis_image *img = NULL;
        char *truth = NULL;
        int rc = sim_stream_next(s, &img, &truth, &err);
        if (rc == BASE_EEOF)
            break;
        if (rc) {
            fprintf(stderr, "bench_sim: %s\n", err.msg);
            sim_stream_free(s);
            return 1;
        }
        hands += strstr(truth, "\"hand_in_view\":true") != NULL;
        vis_image_free(img);
        free(truth);
        n++;
    }
    t2 = base_now();
    c2 = clock();
    sim_stream_free(s);
    /* CPU time too: on a shared machine the wall clock says more about
     * the neighbours than about sim. */
    printf("sim %-6s 1280x960: set-up %.2f s; %d frames (%d with a hand) in %.2f s = %.2f "
           "frames/s, %.2f per CPU second (target >= %.0f) %s\n",
           label, t1 - t0, n, hands, t2 - t1, n / (t2 - t1),
           n / ((double)(c2 - c1) / CLOCKS_PER_SEC), TARGET_FPS,
           n / (t2 - t1) >= TARGET_FPS ? "ok" : "SLOW");
    return 0;
}

int main(void)
{
    if (run("full", false, 40) != 0)
        return 1;
    return run("clean", true, 40);
}
