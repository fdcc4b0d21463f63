/* vision/pieceset.h: one physical set, enrolled (FORMATS.md 7).
 *
 * The learned stage (vision/classify.h) reads pieces of sets it has never
 * seen; a user who photographs their own set laid out in a known order can
 * teach it that set.  A vis_pieceset keeps, for every value of every head
 * of a classifier (shape "clover", colour "red"), the mean of the
 * classifier's features (its embedding, vis_classifier_nfeatures) over the
 * enrolment photos' pieces that show that value, and how far pieces of one
 * value lie from their mean.  A patch is then also judged by how near its
 * features lie to each value's mean, and the two opinions are multiplied:
 *
 *   p'(v) ~ p(v) * exp(-weight * |f - mean_v|^2 / (2 spread))
 *
 * spread is how far pieces of one value lie from their mean.  The photos
 * of an enrolment share one camera and one light, and later frames do
 * not: when the model's manifest measured the spread across cameras and
 * lights (vis_classifier_feature_spread, models/feature_spread) that is
 * used, with weight 1 (a Gaussian likelihood) if it predicts each
 * enrolled piece from the others (leave one out) better than the
 * classifier alone, else 0.  Without it the spread is the photos' own
 * and the weight the best of a grid from 0 up by the same test - which
 * one session's photos judge too kindly (docs/vision.md).  No constant is
 * fitted to test frames.
 *
 * Features belong to one model: a set records the model's digest and its
 * heads, and vis_pieceset_check refuses another model.  Enrolment only
 * adds to the built-in knowledge: a head that has a value without pieces
 * enrolled is left as the classifier reads it.
 *
 * Errors follow vision/cv.h (0 or a negative BASE_E* code, a sentence in
 * the optional base_err). */
#ifndef TABLECAM_VISION_PIECESET_H
#define TABLECAM_VISION_PIECESET_H

#include "classify.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vis_pieceset vis_pieceset;

/* An empty set for classifier c's heads and features; BASE_EUNSUPPORTED
 * when c's manifest names no features. */
int vis_pieceset_new(const vis_classifier *c, vis_pieceset **out, base_err *err);

/* NULL is fine. */
void vis_pieceset_free(vis_pieceset *s);

/* Adds one enrolled piece: feat (the classifier's F features of its
 * patch), probs (the classifier's probabilities, head after head, as
 * vis_classifier_run gives them) and values[h], the value the piece shows
 * for head h (-1: not known).  BASE_EINVAL for a value out of range or a
 * set already finished; BASE_ENOMEM. */
int vis_pieceset_add(vis_pieceset *s, const float *feat, const float *probs, const int *values,
                     base_err *err);

/* Leaves value v of head h out of the set before any piece is added: an
 * enrolment that never shows it (a square covered by a hand, for cube2's
 * "color" head) still finishes the head, and the set judges only its
 * other values: v keeps the classifier's probability and the others share
 * the rest.  BASE_EINVAL for a value with pieces, a finished set, or a
 * head that would judge fewer than two values. */
int vis_pieceset_leave(vis_pieceset *s, int h, int v, base_err *err);

/* Computes the means, the spread and the weight of every head whose every
 * value not left out has at least two pieces (so that a spread can be
 * measured); after it the set can be applied, saved, and takes no more
 * pieces.
 * BASE_ENOTFOUND when no head has enough pieces, naming a value short of
 * them. */
int vis_pieceset_finish(vis_pieceset *s, base_err *err);

/* The number of pieces enrolled for value v of head h; and the weight the
 * finished set gives head h (0: the head is read as the classifier reads
 * it, or not finished). */
int vis_pieceset_count(const vis_pieceset *s, int h, int v);
/* The name of head h ("shape"), or NULL past the last. */
const char *vis_pieceset_head(const vis_pieceset *s, int h);
double vis_pieceset_weight(const vis_pieceset *s, int h);

/* 0 when s was made with classifier c (the same digest, heads and values);
 * else BASE_EINVAL saying which differs. */
int vis_pieceset_check(const vis_pieceset *s, const vis_classifier *c, base_err *err);

/* Rewrites probs (one patch's probabilities, head after head) with the set's
 * opinion of feat, as the header says; a set not finished changes
 * nothing. */
void vis_pieceset_apply(const vis_pieceset *s, const float *feat, float *probs);

/* The finished set as one JSON object, {"kind": "pieces", "game": game,
 * "model": digest, "features": F, "heads": [{"name", "weight", "spread",
 * "values": [{"name", "n", "mean": [F numbers], "left": true (only when
 * left out)}]}]}; *json is malloc'ed.
 * BASE_EINVAL when s is not finished. */
int vis_pieceset_to_json(const vis_pieceset *s, const char *game, char **json, base_err *err);

/* A finished set from such a document; *game (cap bytes, may be NULL)
 * receives its game.  BASE_EPARSE naming the field that is wrong. */
int vis_pieceset_from_json(const char *json, vis_pieceset **out, char *game, size_t cap,
                           base_err *err);

#ifdef __cplusplus
}
#endif

#endif
