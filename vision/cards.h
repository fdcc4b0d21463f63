/* vision/cards.h: reading playing cards (the game "cards", Cubes) off the
 * table.
 *
 * Input is the rectified top-down view of the plane of the cards (calib's
 * cal_rectify at the card thickness, ~0.3 mm), described by the same
 * vis_view as Qwirkle's (vision/qwirkle.h), and, when the view carries
 * it, the camera frame it came from.  The recogniser finds the cards
 * (which may touch edge to edge, so they are separated by their outlines
 * and the grid they lie on, not by the background alone), fits that grid
 * (pitch from the card size, rotation, phase), and reads each card with a
 * learned classifier (vision/classify.h) from the patch of its corners
 * (vis_cards_corners), either way up: rank, suit, and whether the cell
 * shows a face, a back (a face-down card) or the table.  The shipped
 * model was trained on many decks (models/train_cards.py, docs/models.md);
 * no deck's look is written into the code.  Every card gets a confidence
 * and its runner-up rank and suit; two cards read the same in one view
 * are both flagged as duplicates (a misreading: the game uses one deck),
 * and the less sure one is moved to its runner-up reading when no other
 * card reads that.  Frame after frame, a card's unsure reading is checked
 * against what the frames before read at its place. */
#ifndef TABLECAM_VISION_CARDS_H
#define TABLECAM_VISION_CARDS_H

#include <stdbool.h>

#include "base.h"
#include "cv.h"
#include "classify.h"
#include "qwirkle.h" /* vis_view, vis_survey: shared with the Qwirkle reader */

#define VIS_CARDS_MAX 64

/* One card read.  rank 1..13 (A..K) and suit 0..3 (S H D C, rules/'
 * order), 0 and -1 when unreadable or face down. */
typedef struct vis_card {
    int gx, gy;         /* grid cell: gx along the cards' short side */
    int rank, suit;
    /* the runner-up reading of an unsure card (-1: none), for a referee
     * that tries it against the rules when the first is illegal */
    int rank2, suit2;
    bool face_down;
    bool duplicate;     /* another card in this view read the same (the
                         * less sure of the two may since have taken its
                         * runner-up reading: see cards.h's top) */
    double x_mm, y_mm;  /* the card's centre on the table */
    float conf;         /* 0..1: how sure the whole reading is */
    float rank_conf, suit_conf;
    /* the runners-up's own probabilities, from the classifier (0 when not
     * known: the reading was swapped with its runner-up since) */
    float rank_p2, suit_p2;
} vis_card;

typedef struct vis_cards_reading {
    int ncards;
    vis_card cards[VIS_CARDS_MAX];
    int nduplicates;        /* cards flagged duplicate */
    bool hand;              /* something not a card lies over the cards (the
                             * hand of the survey just before this read) */
    double grid_angle_deg;  /* the grid's x axis (the short side) against the table's;
                             * the next read keeps it, one of the four ways
                             * round, when this one had no hand and a sure
                             * face-up card */
    double pitch_x_mm, pitch_y_mm;
    double phase_x_mm, phase_y_mm; /* a cell corner, in grid coordinates */
} vis_cards_reading;

typedef struct vis_cards vis_cards;

/* card_w_mm x card_h_mm: the card size and so the grid pitch; 0, 0 for
 * poker cards (63 x 88).  Loads the built-in model "cards"
 * (vis_classifier_builtin); its errors are this call's. */
int vis_cards_new(double card_w_mm, double card_h_mm, vis_cards **out, base_err *err);
void vis_cards_free(vis_cards *c);

/* Reads the cards with the model onnx_path (and its manifest; see
 * classify.h) instead of the built-in one: heads "rank" (13 values, A..K),
 * "suit" (4, in rules/' order) and "face" (up, down, table), patches of
 * VIS_CARDS_PATCH pixels, else BASE_EINVAL naming the file.  Errors as
 * vis_classifier_new's; on error c keeps its model.  What c remembered
 * of earlier frames is dropped. */
int vis_cards_use_model(vis_cards *c, const char *onnx_path, base_err *err);

/* The model c reads with (NULL for NULL). */
const vis_classifier *vis_cards_model(const vis_cards *c);

/* Where the cards are in a full view of the play area (not a roi), best at
 * about one pixel a millimetre: ncandidates is the number of card-sized
 * cells covered, x0..y1 their bounding box in table mm (only hand, hand_mm2
 * and the box are meaningful; dark is 0).  The handle keeps the mat's
 * colour and brightness learnt here for the next vis_cards_read (a view of
 * the cards' part of the table alone may be mostly cards), and the glare
 * found, for the next read only (of the same frame: a view of part of the
 * table may crop a lamp's hot spot too small to be told from cards). */
int vis_cards_survey(vis_cards *c, const vis_image *top, const vis_view *view, vis_survey *out,
                     base_err *err);

/* Reads the view: best at 2..3 pixels a millimetre (the corner indices are
 * small).  The handle remembers the cards read at each place over the
 * last frames, and an unsure rank or suit takes what they read there more
 * surely (cards lie still): one handle per camera and table, a fresh one
 * for an unrelated image.  BASE_EINVAL names a bad view or image. */
int vis_cards_read(vis_cards *c, const vis_image *top, const vis_view *view,
                   vis_cards_reading *out, base_err *err);

/* The side of the square patch a card is read from (see
 * vis_cards_corners). */
#define VIS_CARDS_PATCH 64

/* The map from table mm to the pixels of a view (its pixel centres at
 * whole numbers), for vis_cards_corners on a rectified view. */
vis_homography vis_cards_view_map(const vis_view *view);

/* Cuts the patch the classifier reads a card from: its two top corners
 * side by side (the left half the corner at the card's -x, -y; the right
 * half the +x, -y one), each 18 x 33 mm from 1.5 mm outside the card's
 * edges, upright, VIS_CARDS_PATCH pixels square, from src (3 channels)
 * through plane_to_img (table mm on the cards' plane -> src pixels).  The
 * card is card_w_mm x card_h_mm, centred at (x_mm, y_mm), its x axis (the
 * short side) rot_deg counter-clockwise from the table's; rot_deg + 180
 * gives the other two corners, the card the other way up.  Errors as
 * vis_patch_cut's, and BASE_EINVAL for a card smaller than its corners. */
int vis_cards_corners(const vis_image *src, vis_homography plane_to_img, double x_mm,
                      double y_mm, double rot_deg, double card_w_mm, double card_h_mm,
                      vis_image **out, base_err *err);

#endif
