/* sim: a simulated table seen by a simulated camera, with exact ground truth.
 *
 * sim plays random legal games with the rules engines (qwirkle and cards
 * so far; optionally injecting illegal moves) and renders the camera
 * frames of every move: the mat with
 * its four ArUco markers (FORMATS.md 5), the pieces in 3D at their true
 * sizes, hands and arms that place them, distractors beside the mat, and a
 * randomised look (table texture, light, shadows, glare, vignetting, white
 * balance drift, noise, blur, JPEG, lens distortion).  Each frame comes with
 * a truth line (docs/sim.md): the position it shows, whether it is stable,
 * the camera pose, the lighting, the board origin, the visible markers and
 * the move just made.  It is how vision is tested before a real camera
 * exists, and the camera of `make demo`.  It also renders the still photos
 * of a set's enrolment (sim_options.enrol, FORMATS.md 7).
 *
 * Everything follows from the seed: the same game, seed and options give
 * the same frames and truth, byte for byte (own PRNG, no clock, no global
 * state).  A stream is one camera over one match; streams are independent
 * values, one thread each. */
#ifndef TABLECAM_SIM_H
#define TABLECAM_SIM_H

#include <stdbool.h>
#include <stdint.h>

#include "base.h"
#include "cv.h"
#include "rules.h"

/* What a stream renders.  Start from sim_options_default() and change what
 * you need; unknown combinations are rejected by sim_stream_new with err
 * naming the field. */
typedef struct sim_options {
    int width, height;  /* frame size in pixels; default 640 x 480 */
    double fps;         /* frames per simulated second; default 5 */
    int max_frames;     /* stop after this many frames; 0: no limit */
    int max_moves;      /* stop after this many events (legal or not) and
                           the stable frames after the last; 0: until the
                           game is over */
    double illegal;     /* probability that a turn starts with an injected
                           illegal placement (taken back afterwards); 0..1 */
    int players;        /* 2..the game's maximum; default 2 */
    double mat_w, mat_h, mat_s; /* the mat, mm (FORMATS.md 5): 500 500 40 */
    /* clean: no sensor noise, blur, JPEG, glare, vignetting, white balance
     * drift, camera shake or distractors, soft light from high up, a mild
     * lens: frames in which a test can read colours at projected points. */
    bool clean;
    bool hands;         /* draw hands and arms during moves; default true */
    /* The design of the set (the look of its pieces: docs/sim.md), 0 to
     * sim_designs(game) - 1; -1 draws one from the seed.  Default 0, the
     * classic set (cards: the deck "drawn-classic").  Games with one look
     * (sim_designs 0) take 0 only. */
    int design;
    /* The probability that a placed card lies face down, showing its
     * deck's back (for readers that must tell backs from faces and from
     * the table); decided once a card from its own seed stream, so that 0
     * (the default) changes nothing else.  Cards only; 0..1. */
    double down;
    /* How the camera is set up: SIM_SETUP_ANY (default: any yaw, tilt up
     * to 40 degrees, the mat filling 70-95 % of what fits), SIM_SETUP_GOOD
     * (square to one side of the mat, tilt up to 20 degrees, the mat
     * filling 88-97 %) or SIM_SETUP_MIXED (good in 85 % of seeds, any in
     * the rest, drawn from its own seed stream: what models and benches
     * train and measure on). */
    int setup;
    /* -1 (default): a match is played.  k >= 0: the stream shows photo k
     * of an enrolment of the set (FORMATS.md 7; 0 to sim_enrol_images(game)
     * - 1): the table holds only that photo's layout, no start position and
     * no open hands beside the mat, and the frames are still (no hands, no
     * moves; max_moves is not used) until max_frames, or without end when
     * it is 0, as a camera on a tripod would go on.  Camera, look, design,
     * set-up and distractors are those of a match of the same seed. */
    int enrol;
} sim_options;

enum { SIM_SETUP_MIXED = -1, SIM_SETUP_ANY = 0, SIM_SETUP_GOOD = 1 };

/* The share of SIM_SETUP_MIXED seeds that get the good set-up: most users
 * follow the README's advice, some do not. */
#define SIM_SETUP_GOOD_SHARE 0.85

/* "mixed", "any" or "good" -> SIM_SETUP_*; false for any other name. */
bool sim_setup_from_name(const char *name, int *setup);

/* SIM_SETUP_* -> its name ("mixed", "any", "good"); NULL when out of range. */
const char *sim_setup_name(int setup);

/* How many designs of game's set sim can draw (0: one look only). */
int sim_designs(const char *game);

/* The stable id of design of game's set (cards: "drawn-classic",
 * "kde-standard", ...: docs/sim.md); NULL when design is out of range or
 * the game's designs have no names. */
const char *sim_design_name(const char *game, int design);

/* How many photos an enrolment of game's set takes (FORMATS.md 7: 6 for
 * qwirkle, one per shape), that sim_options.enrol can render; 0 when sim
 * has no enrolment layout for game (or does not know it). */
int sim_enrol_images(const char *game);

void sim_options_default(sim_options *o);

/* True when sim can render game (a rules game id whose engine is built and
 * whose pieces sim knows how to draw). */
bool sim_game_supported(const char *game);

typedef struct sim_stream sim_stream;

/* Starts a simulated match of game seen by one randomly posed camera; o may
 * be NULL for the defaults.  On failure *out is NULL and err says why
 * (unknown game, a bad option naming the field). */
int sim_stream_new(const char *game, uint64_t seed, const sim_options *o,
                   sim_stream **out, base_err *err);

/* Renders the next frame.  *image (3 channels, BGR) and *truth_json (one
 * JSON object on one line, NUL-terminated, no newline) belong to the
 * caller: free them with vis_image_free() and free().  Returns 0, or
 * BASE_EEOF when the stream is finished (max_frames, max_moves or the end
 * of the game), leaving both untouched. */
int sim_stream_next(sim_stream *s, vis_image **image, char **truth_json,
                    base_err *err);

/* Moves the stream n frames on without drawing them: the match goes on
 * exactly as if they had been rendered, so the next sim_stream_next
 * returns the same picture and truth as it would have then (a move made
 * within the n frames is on their truth lines, so it is not seen).  Returns 0,
 * BASE_EEOF when the stream ends within the n frames, or an error. */
int sim_stream_skip(sim_stream *s, int n, base_err *err);

/* Frames rendered or skipped so far. */
int sim_stream_frames(const sim_stream *s);

void sim_stream_free(sim_stream *s);

/* A truth line read back: whether the frame is stable and, on the frame
 * where an event was made, that event (has_move): the player, the move,
 * legal or not, the points, and the rule an illegal move broke.  err names
 * what is malformed. */
typedef struct sim_truth {
    bool stable, has_move, legal;
    int player, points;
    rules_move move;
    char rule[40]; /* as rules_verdict.rule */
} sim_truth;

int sim_truth_read(const char *game, const char *truth_json, sim_truth *out, base_err *err);

/* The `sim:` camera: a capture (vision/capture.h) over a stream, from a
 * spec "sim:GAME[:seed=N][:fps=F][:WxH][:moves=M][:illegal=P][:design=D]
 * [:down=P][:setup=S]".  err names a bad option. */
#include "capture.h"
int sim_capture_open(const char *spec, vis_capture **out, base_err *err);

#endif
