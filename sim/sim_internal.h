/* sim/sim_internal.h: what the parts of sim share (internal to sim/).
 *
 * rng.c      the PRNG (xoshiro256** seeded by splitmix64) and hash noise
 * camera.c   the pinhole camera with lens distortion: pose, projection,
 *            the per-pixel ray map
 * render.c   the table (textures, mat, markers, cached once per stream)
 *            and the per-frame ray caster: boxes, cylinders, hands,
 *            soft shadows, glare, vignetting, noise, blur, JPEG
 * qwirkle_pieces.c, cards_pieces.c, cube2_pieces.c, cubed_pieces.c  each game's
 *            piece look (a
 *            sim__piece_kind) and player (a sim__driver)
 * cards_decks.c  the table of card decks and the rendering of a card's
 *            face or back (OpenCV drawing, librsvg)
 * play.c     what the players share (an illegal placement)
 * sequence.c the stream: match, timeline of hands and pieces, truth JSON
 * capture.c  the `sim:` camera over a stream
 *
 * Geometry: the table frame of FORMATS.md 5, millimetres, origin at marker
 * 0's centre, x toward marker 1, y toward marker 3, z up (seen from above
 * it is left-handed, which nothing here minds: the camera rotation simply
 * has determinant -1). */
#ifndef TABLECAM_SIM_INTERNAL_H
#define TABLECAM_SIM_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "rules.h"
#include "sim.h"

#define SIM__PI 3.14159265358979323846

/* ---- rng.c ---- */

typedef struct sim__rng {
    uint64_t s[4];
} sim__rng;

/* Seeds r from (seed, stream): different streams of one seed are
 * independent sequences, so that adding a draw in one part (the look)
 * never changes another (the game). */
void sim__rng_seed(sim__rng *r, uint64_t seed, uint64_t stream);
uint64_t sim__rng_u64(sim__rng *r);
double sim__rng_unit(sim__rng *r);                   /* [0, 1) */
double sim__rng_range(sim__rng *r, double lo, double hi);
int sim__rng_int(sim__rng *r, int n);                /* [0, n) */
double sim__rng_gauss(sim__rng *r);
uint32_t sim__hash32(uint32_t x);
/* Smooth value noise in [0, 1] at (x, y), lattice period 1; fbm sums
 * octaves (each half the size and weight). */
double sim__noise2(uint32_t seed, double x, double y);
double sim__fbm2(uint32_t seed, double x, double y, int octaves);

/* ---- small vectors ---- */

typedef struct sim__v3 {
    double x, y, z;
} sim__v3;

/* ---- camera.c ---- */

typedef struct sim__camera {
    int width, height;
    double fx, fy, cx, cy;
    double dist[5];  /* k1 k2 p1 p2 k3 (OpenCV's order) */
    double R[9];     /* table -> camera, row-major: Pc = R (P - C) */
    sim__v3 C;       /* camera centre in the table frame, mm */
    double elev;     /* camera height above the table, C.z, mm */
    double tilt_deg; /* optical axis from straight down */
    double yaw_deg;  /* rotation about the table's z axis */
} sim__camera;

/* The mat (FORMATS.md 5) and the printed margins. */
typedef struct sim__mat {
    double w, h, s;   /* marker centre rectangle and marker side, mm */
    double margin;    /* white margin around each marker, mm */
    unsigned char cells[4][16]; /* inner 4x4 cells of markers 0..3 */
} sim__mat;

/* Table point of marker id's corner k (0 TL, 1 TR, 2 BR, 3 BL of the
 * printed marker, which is printed upright in the table frame). */
sim__v3 sim__marker_corner(const sim__mat *m, int id, int k);

/* A random pose of set-up setup (SIM_SETUP_GOOD or SIM_SETUP_ANY) that
 * keeps the whole mat (markers and margins) inside the frame, and a random
 * lens; clean keeps the distortion mild. */
int sim__camera_sample(sim__camera *cam, sim__rng *r, int width, int height,
                       const sim__mat *mat, bool clean, int setup, base_err *err);

/* Normalised ideal coordinates -> distorted normalised coordinates. */
void sim__distort(const double dist[5], double x, double y, double *xd, double *yd);

/* Table point -> distorted pixel; false when behind the camera. */
bool sim__project(const sim__camera *cam, sim__v3 p, double *u, double *v);

/* Table point -> camera coordinates. */
sim__v3 sim__to_camera(const sim__camera *cam, sim__v3 p);

/* A new array of 2 floats per pixel (row-major): the ideal normalised
 * coordinates (x/z, y/z) of the ray that lands on each distorted pixel. */
int sim__ray_map(const sim__camera *cam, float **out);

/* ---- scene objects (render.c draws them, sequence.c places them) ---- */

enum sim__obj_kind { SIM__BOX, SIM__CYL, SIM__HAND, SIM__HEX };

enum sim__look_kind {
    SIM__LOOK_PIECE, /* a game piece: the piece kind's shade() */
    SIM__LOOK_PLAIN, /* one colour */
    SIM__LOOK_PHONE, /* dark slab with a screen */
    SIM__LOOK_PAPER, /* a sheet with lines of writing */
    SIM__LOOK_CUP    /* a mug: wall, rim, coffee */
};

#define SIM__HAND_CAPS 9

typedef struct sim__capsule {
    double ax, ay, bx, by, r;
    bool sleeve;
    double x0, y0, x1, y1; /* bounding box, radius included (renderer's) */
} sim__capsule;

struct sim__piece_kind;

typedef struct sim__obj {
    int kind, look;
    double x, y, z0;    /* footprint centre and base height, mm */
    double sx, sy, sz;  /* box size (cylinder: sx is the radius, sz height; hexagon:
                           sx across its flats, sy corner to corner) */
    double yaw;         /* radians, about z */
    float rgb[3], rgb2[3]; /* plain colours (0..1 linear) */
    float gloss;
    bool shadow;        /* casts a shadow */
    bool moving;        /* carried or moving: its pixels make a frame unstable */
    bool shaded;        /* receives the shadows of other boxes and cylinders
                           (pieces on a board; the table always does) */
    /* pieces */
    const struct sim__piece_kind *pk;
    rules_piece piece;
    uint8_t faces[6];   /* what each face shows: 0 top, 1 +x, 2 -x, 3 +y,
                           4 -y, 5 bottom; meaning per piece kind */
    const vis_image *tex; /* a printed face (cards), owned by the driver */
    bool down;          /* lies face down: its top shows the back (cards) */
    const void *style;  /* the set's design (qwirkle), owned by the driver */
    double corner_r;    /* rounded corners in plan view, mm (0: square) */
    /* hands: capsules in the plane z = z0 */
    int ncaps;
    sim__capsule caps[SIM__HAND_CAPS];
    float skin[3], sleeve[3];
    /* filled by the renderer each frame */
    double c, s;        /* cos, sin of yaw */
    float bx0, by0, bx1, by1; /* normalised image bounding box */
    double hx0, hy0, hx1, hy1; /* hand: table-plane bounding box */
} sim__obj;

/* A piece kind: one per game, behind one interface, so that the renderer
 * knows nothing of any game. */
typedef struct sim__piece_kind {
    const char *game;
    double pitch_x, pitch_y; /* grid pitch, mm */
    bool hex;                /* a pointy-top hexagonal grid in axial cells (q, r): pitch_x
                                across the flats, cell (q, r) at (q + r / 2, r sqrt 3 / 2)
                                pitches (cubed) */
    double sx, sy, sz;       /* piece box, mm */
    /* Sets faces[], tex and look details of a new piece instance;
     * dstate is the game's driver state (its texture cache). */
    void (*decorate)(void *dstate, sim__obj *o, sim__rng *r);
    /* Albedo (0..1 linear RGB) and glossiness at face point (u, v), both
     * in [-1, 1] across the face (u along the piece's x, or for side faces
     * along the edge, v up the face on sides, along y on top). */
    void (*shade)(const sim__obj *o, int face, double u, double v, float rgb[3],
                  float *gloss);
} sim__piece_kind;

/* ---- render.c ---- */

/* The randomised look of one stream. */
typedef struct sim__look {
    int table_kind;       /* 0 wood, 1 cloth, 2 plain, 3 speckle, 4 planks */
    float table_a[3], table_b[3];
    double table_scale, table_angle;
    int mat_kind;         /* 0 markers on the bare table, 1 paper, 2 felt */
    float mat_rgb[3];
    double mat_extra;     /* mat border beyond the marker margins, mm */
    sim__v3 light;        /* unit vector toward the light */
    float light_rgb[3];
    double ambient, diffuse;
    double softness;      /* penumbra width per mm of occluder height */
    double glare, glare_shine;
    double vignette;      /* darkening at the corners, 0..0.5 */
    double noise;         /* read noise sigma, 8-bit units */
    double blur;          /* focus blur sigma, px (0: none) */
    int jpeg_quality;     /* 0: none */
    double wb_drift;      /* per-frame white balance wander */
    double exposure;
    uint32_t tex_seed;
} sim__look;

void sim__look_sample(sim__look *l, sim__rng *r, bool clean);

typedef struct sim__renderer sim__renderer;

/* Builds the per-stream caches (ray map, the lit table) for a camera, a
 * look and a mat. */
int sim__renderer_new(const sim__camera *cam, const sim__look *look, const sim__mat *mat,
                      sim__renderer **out, base_err *err);
void sim__renderer_free(sim__renderer *r);

/* Per-frame effects. */
typedef struct sim__frame_fx {
    float wb[3];        /* white balance gains */
    double shake_px;    /* motion blur length, px (0: none) */
    double shake_angle;
    uint32_t noise_seed;
} sim__frame_fx;

/* Renders objs[0..n-1] over the table.  *hand_pixels receives how many
 * pixels show a hand, *moving_pixels how many show a hand or a moving
 * object (either may be NULL). */
int sim__render(sim__renderer *r, sim__obj *objs, int n, const sim__frame_fx *fx,
                vis_image **out, long *hand_pixels, long *moving_pixels, base_err *err);

/* True when the segment from the camera to table point p hits one of
 * objs (p itself lies on the table). */
bool sim__occluded(const sim__renderer *r, const sim__obj *objs, int n, sim__v3 p);

/* ---- games: pieces and players ---- */

/* A game's player: keeps what the engine only counts (hands, bag) and
 * chooses moves. */
typedef bool (*sim__fits_fn)(void *ctx, int x, int y);

typedef struct sim__driver {
    const char *game;
    const sim__piece_kind *kind;
    /* Before the match: deals, and adds the game's extras to the record
     * header ("start" for cards). */
    int (*create)(cJSON *header, int nplayers, sim__rng *r, void **state);
    /* After the match is created: checks that the counts agree. */
    int (*sync)(void *state, const rules_game *g);
    void (*destroy)(void *state);
    /* A legal move for player (with the hand where known) whose cells all
     * fit; returns 0, or BASE_ENOTFOUND when the game offers nothing. */
    int (*choose)(void *state, const rules_game *g, int player, sim__rng *r,
                  sim__fits_fn fits, void *ctx, rules_move *m);
    /* An illegal placement that fits; BASE_ENOTFOUND when none was found. */
    int (*choose_illegal)(void *state, const rules_game *g, int player, sim__rng *r,
                          sim__fits_fn fits, void *ctx, rules_move *m);
    /* The pieces player holds that lie on the table beside the mat
     * (qwirkle's open hands); may be NULL when a game keeps its hands off
     * the table.  Returns the count (at most cap). */
    int (*held)(void *state, int player, rules_piece *out, int cap);
    /* After a legal move was applied: update hands and bag. */
    int (*applied)(void *state, const rules_game *g, int player, const rules_move *m,
                   sim__rng *r);
    /* The designs of the game's set the stream can be asked for (0: the
     * game has one look, or draws its own from the seed), and the call
     * that picks one, before the first piece is decorated. */
    int ndesigns;
    void (*set_design)(void *state, int design);
    /* The stable id of a design (sim_design_name); NULL when the game's
     * designs have no names. */
    const char *(*design_name)(int design);
    /* Where pieces can lie face down (cards): each with probability p,
     * decided once a piece from r (its own seed stream); may be NULL. */
    void (*set_down)(void *state, double p, sim__rng *r);
    /* The first error met while decorating pieces (a deck that did not
     * render), copied into err, or 0; may be NULL.  decorate() cannot
     * fail, so the stream asks after it. */
    int (*failed)(void *state, base_err *err);
    /* The photos of an enrolment of the set (FORMATS.md 7; 0: sim has no
     * layout for it, enrol is NULL) and the layout of photo `image`: its
     * pieces with their grid cells (x toward marker 1, y toward marker 3:
     * read from the mat's top edge, rows top to bottom, left to right).
     * Returns the count (at most cap), or a negative error. */
    int nenrol;
    int (*enrol)(int image, rules_piece *out, int cap);
    /* A board the pieces stand on (cube2), or NULL when the grid is drawn
     * by nothing but its pieces: board() fills a slab centred at (0, 0),
     * unturned, board_cols x board_rows cells of the kind's pitch; the
     * stream lays it anywhere inside the markers, turned up to
     * board_turn_deg, and stands the pieces on its top. */
    void (*board)(void *state, sim__obj *out);
    int board_cols, board_rows;
    double board_turn_deg;
    /* Without a board, the layout lies turned by up to this (0: 6
     * degrees, pieces squared to the mat by habit; 180: any way). */
    double layout_turn_deg;
} sim__driver;

/* play.c: an illegal one-piece placement for player: a piece of held[]
 * on a free cell within `spread` cells of the board that fits and that
 * the engine refuses; BASE_ENOTFOUND when 400 tries find none. */
int sim__illegal_single(const rules_game *g, int player, const rules_piece *held, int nheld,
                        int spread, sim__rng *r, sim__fits_fn fits, void *ctx, rules_move *m);

/* play.c: weighted reservoir sampling (Efraimidis-Spirakis) of the moves
 * the engine generates, in one pass over any number of them: each offered
 * move is kept with a probability proportional to its weight. */
typedef struct sim__reservoir {
    sim__rng *r;
    rules_move *best; /* the move kept (the caller's) */
    double key;
    int count;        /* moves offered so far */
} sim__reservoir;

/* Offers m at weight w (> 0); draws one number from rv->r either way. */
void sim__reservoir_offer(sim__reservoir *rv, const rules_move *m, double w);

/* play.c: true when every piece m places lands on a cell that fits. */
bool sim__move_fits(const rules_move *m, sim__fits_fn fits, void *ctx);

/* play.c: inside an n-pointed star of outer radius ro and inner radius ri
 * with a spike along +u (the qwirkle stars, the cube2 home squares). */
bool sim__in_star(double u, double v, int n, double ro, double ri);

/* ---- cards_decks.c: the decks of cards ---- */

#define SIM__CD_W 63.0 /* a poker card, mm */
#define SIM__CD_H 88.0
#define SIM__CD_PX 4.0 /* texture pixels per mm */
#define SIM__CD_TEX_W 252 /* SIM__CD_W * SIM__CD_PX */
#define SIM__CD_TEX_H 352
#define SIM__CD_NDECKS 31 /* the designs of game "cards" */
#define SIM__CD_BACK 52   /* the card number of the back (faces: suit * 13 + rank - 1) */

/* Design's stable id ("drawn-classic", "kde-standard", ...); NULL out of
 * range. */
const char *sim__cd_deck_id(int design);
/* The colour of the card's underside (face 5), 0..1. */
void sim__cd_deck_underside(int design, float rgb[3]);

/* A deck opened for one stream: a KDE deck's parsed document. */
typedef struct sim__cd_deck sim__cd_deck;
/* Opens design's deck: BASE_ENOTFOUND when its file is missing, BASE_EIO
 * when it does not parse, err naming the file. */
int sim__cd_deck_open(int design, sim__cd_deck **out, base_err *err);
/* The same with a KDE design's document read from path instead (tests:
 * a missing or broken file); path NULL is sim__cd_deck_open. */
int sim__cd_deck_open_at(int design, const char *path, sim__cd_deck **out, base_err *err);
/* Renders card (0..51, or SIM__CD_BACK) into a new SIM__CD_TEX_W x
 * SIM__CD_TEX_H texture, 3 channels, BGR; err names the deck and card. */
int sim__cd_deck_render(sim__cd_deck *d, int card, vis_image **out, base_err *err);
void sim__cd_deck_close(sim__cd_deck *d);

extern const sim__driver sim__qwirkle_driver;
extern const sim__driver sim__cards_driver;
extern const sim__driver sim__cube2_driver;
extern const sim__driver sim__cubed_driver;

#endif
