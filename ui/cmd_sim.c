/* ui/cmd_sim.c: `tablecam sim --game G --seed N --out DIR` (FORMATS.md 6).
 * Writes DIR/frame-NNNNN.png and DIR/truth.jsonl (one truth line per frame,
 * docs/sim.md), with a progress line on stderr when it is a terminal.
 * `--enrol K` renders photo K of an enrolment of the set (FORMATS.md 7)
 * instead of a match: one still frame unless --frames says otherwise.
 * `--down P`: cards lie face down with probability P (their deck's back). */
#define _POSIX_C_SOURCE 200809L
#include "ui.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim.h"

static bool ui__sim_int(const char *s, long lo, long hi, long *out)
{
    char *end;
    long v;
    if (!s)
        return true;
    errno = 0;
    v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

static bool ui__sim_double(const char *s, double lo, double hi, double *out)
{
    char *end;
    double v;
    if (!s)
        return true;
    errno = 0;
    v = strtod(s, &end);
    if (errno || end == s || *end || !(v >= lo && v <= hi))
        return false;
    *out = v;
    return true;
}

/* MAT = WxH:S in millimetres (FORMATS.md 5). */
static bool ui__sim_mat(const char *s, sim_options *o)
{
    double w, h, side;
    char x, colon, extra;
    if (!s)
        return true;
    if (sscanf(s, "%lf%c%lf%c%lf%c", &w, &x, &h, &colon, &side, &extra) != 5 || x != 'x' ||
        colon != ':')
        return false;
    o->mat_w = w;
    o->mat_h = h;
    o->mat_s = side;
    return true;
}

int ui_cmd_sim(int argc, char **argv)
{
    const ui_command *self = ui_command_find("sim");
    const char *game = NULL, *seed_s = NULL, *out = NULL, *frames_s = NULL, *moves_s = NULL;
    const char *width_s = NULL, *height_s = NULL, *illegal_s = NULL, *fps_s = NULL;
    const char *players_s = NULL, *mat_s = NULL, *design_s = NULL, *setup_s = NULL;
    const char *enrol_s = NULL, *down_s = NULL;
    bool clean = false, no_hands = false;
    ui_opt opts[] = {
        {"--game", UI_OPT_VALUE, &game, NULL},       {"--seed", UI_OPT_VALUE, &seed_s, NULL},
        {"--out", UI_OPT_VALUE, &out, NULL},         {"--frames", UI_OPT_VALUE, &frames_s, NULL},
        {"--moves", UI_OPT_VALUE, &moves_s, NULL},   {"--width", UI_OPT_VALUE, &width_s, NULL},
        {"--height", UI_OPT_VALUE, &height_s, NULL}, {"--illegal", UI_OPT_VALUE, &illegal_s, NULL},
        {"--fps", UI_OPT_VALUE, &fps_s, NULL},       {"--players", UI_OPT_VALUE, &players_s, NULL},
        {"--mat", UI_OPT_VALUE, &mat_s, NULL},       {"--clean", UI_OPT_FLAG, NULL, &clean},
        {"--no-hands", UI_OPT_FLAG, NULL, &no_hands}, {"--design", UI_OPT_VALUE, &design_s, NULL},
        {"--setup", UI_OPT_VALUE, &setup_s, NULL},   {"--enrol", UI_OPT_VALUE, &enrol_s, NULL},
        {"--down", UI_OPT_VALUE, &down_s, NULL},
    };
    const char *pos[1];
    int npos, rc, status = UI_EXIT_OK;
    sim_options o;
    unsigned long long seed = 0;
    long v;
    sim_stream *s = NULL;
    base_err err;
    char *path = NULL;
    FILE *truth = NULL;
    bool tty;

    if ((rc = ui_parse_args(self, argc, argv, opts, (int)(sizeof opts / sizeof opts[0]), pos, 0,
                            &npos)) != 0)
        return rc;
    if (!game || !seed_s || !out) {
        fprintf(stderr, "tablecam sim: --game, --seed and --out are required\n");
        ui_usage(self, stderr);
        return UI_EXIT_USAGE;
    }
    {
        char *end;
        errno = 0;
        seed = strtoull(seed_s, &end, 10);
        if (errno || end == seed_s || *end || seed_s[0] == '-') {
            fprintf(stderr, "tablecam sim: --seed wants a non-negative integer, not '%s'\n", seed_s);
            ui_usage(self, stderr);
            return UI_EXIT_USAGE;
        }
    }
    sim_options_default(&o);
    o.clean = clean;
    o.hands = !no_hands;
    if (!frames_s && !moves_s)
        o.max_moves = 4; /* a short clip unless asked otherwise */
#define UI__INT(str, name, lo, hi, field)                                                   \
    do {                                                                                    \
        v = (field);                                                                        \
        if (!ui__sim_int(str, lo, hi, &v)) {                                                \
            fprintf(stderr, "tablecam sim: %s wants an integer in %ld..%ld, not '%s'\n",    \
                    name, (long)(lo), (long)(hi), str);                                     \
            ui_usage(self, stderr);                                                         \
            return UI_EXIT_USAGE;                                                           \
        }                                                                                   \
        (field) = (int)v;                                                                   \
    } while (0)
    UI__INT(frames_s, "--frames", 0, 10000000, o.max_frames);
    UI__INT(moves_s, "--moves", 0, 100000, o.max_moves);
    UI__INT(width_s, "--width", 64, 8192, o.width);
    UI__INT(height_s, "--height", 48, 8192, o.height);
    UI__INT(players_s, "--players", 2, 6, o.players);
    UI__INT(design_s, "--design", -1, sim_designs(game) > 0 ? sim_designs(game) - 1 : 0, o.design);
    /* photo K of an enrolment; a game without a layout gets 0..0 here and
     * sim's own refusal naming the set */
    UI__INT(enrol_s, "--enrol", 0, sim_enrol_images(game) > 0 ? sim_enrol_images(game) - 1 : 0,
            o.enrol);
#undef UI__INT
    /* A still photo never ends by itself: one frame unless asked for more. */
    if (o.enrol >= 0 && !frames_s)
        o.max_frames = 1;
    if (setup_s && !sim_setup_from_name(setup_s, &o.setup)) {
        fprintf(stderr, "tablecam sim: --setup wants mixed, any or good, not '%s'\n", setup_s);
        ui_usage(self, stderr);
        return UI_EXIT_USAGE;
    }
    if (!ui__sim_double(illegal_s, 0, 1, &o.illegal)) {
        fprintf(stderr, "tablecam sim: --illegal wants a probability in 0..1, not '%s'\n",
                illegal_s);
        ui_usage(self, stderr);
        return UI_EXIT_USAGE;
    }
    if (!ui__sim_double(down_s, 0, 1, &o.down)) {
        fprintf(stderr, "tablecam sim: --down wants a probability in 0..1, not '%s'\n", down_s);
        ui_usage(self, stderr);
        return UI_EXIT_USAGE;
    }
    if (!ui__sim_double(fps_s, 0.1, 240, &o.fps)) {
        fprintf(stderr, "tablecam sim: --fps wants a number in 0.1..240, not '%s'\n", fps_s);
        ui_usage(self, stderr);
        return UI_EXIT_USAGE;
    }
    if (!ui__sim_mat(mat_s, &o)) {
        fprintf(stderr, "tablecam sim: --mat wants WxH:S in mm (e.g. 500x500:40), not '%s'\n",
                mat_s);
        ui_usage(self, stderr);
        return UI_EXIT_USAGE;
    }

    if ((rc = sim_stream_new(game, (uint64_t)seed, &o, &s, &err)) != 0) {
        /* what the user asked for cannot be simulated: a usage error; a
         * machine that lacks or cannot read what the simulator draws from
         * (a deck's file: scripts/install-deps installs them) is not */
        bool usage = rc != BASE_ENOMEM && rc != BASE_EIO && rc != BASE_ECV &&
                     rc != BASE_ENOTFOUND;
        const char *msg = strncmp(err.msg, "sim: ", 5) == 0 ? err.msg + 5 : err.msg;
        return ui_fail(self, usage ? UI_EXIT_USAGE : UI_EXIT_FAIL, "%s", msg);
    }
    if (mkdir(out, 0777) != 0 && errno != EEXIST) {
        sim_stream_free(s);
        return ui_fail(self, UI_EXIT_FAIL, "cannot create directory '%s': %s", out,
                       strerror(errno));
    }
    if (!(path = malloc(strlen(out) + 32))) {
        sim_stream_free(s);
        return ui_fail(self, UI_EXIT_FAIL, "out of memory");
    }
    sprintf(path, "%s/truth.jsonl", out);
    if (!(truth = fopen(path, "wb"))) {
        status = ui_fail(self, UI_EXIT_FAIL, "cannot write '%s': %s", path, strerror(errno));
        goto done;
    }
    tty = isatty(STDERR_FILENO);
    for (;;) {
        vis_image *img = NULL;
        char *line = NULL;
        int frame = sim_stream_frames(s);
        rc = sim_stream_next(s, &img, &line, &err);
        if (rc == BASE_EEOF)
            break;
        if (rc) {
            status = ui_fail(self, UI_EXIT_FAIL, "frame %d: %s", frame, err.msg);
            goto done;
        }
        sprintf(path, "%s/frame-%05d.png", out, frame);
        rc = vis_image_write(path, img, 0, &err);
        vis_image_free(img);
        if (rc) {
            free(line);
            status = ui_fail(self, UI_EXIT_FAIL, "%s", err.msg);
            goto done;
        }
        fputs(line, truth);
        fputc('\n', truth);
        free(line);
        if (tty) {
            if (o.max_frames > 0) {
                int width = 30, done = (frame + 1) * width / o.max_frames;
                fprintf(stderr, "\r[%.*s%*s] %d/%d frames", done,
                        "##############################", width - done, "", frame + 1,
                        o.max_frames);
            } else
                fprintf(stderr, "\rframe %d", frame + 1);
            fflush(stderr);
        }
    }
    if (tty)
        fputc('\n', stderr);
    if (fclose(truth) != 0) {
        truth = NULL;
        sprintf(path, "%s/truth.jsonl", out);
        status = ui_fail(self, UI_EXIT_FAIL, "cannot write '%s'", path);
        goto done;
    }
    truth = NULL;
done:
    if (truth)
        fclose(truth);
    free(path);
    sim_stream_free(s);
    return status;
}
