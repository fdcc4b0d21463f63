/* vision/classify.h: a small learned classifier over image patches.
 *
 * The appearance stage every game shares: a recogniser cuts
 * square patches out of the rectified frame (a tile, a card corner, a
 * cube face) and asks a small CNN what each shows, head by head (a
 * Qwirkle tile's shape and its colour).  The network is an ONNX file run
 * by OpenCV's dnn module behind vision/classify_dnn.cpp; no OpenCV type
 * reaches C, and every call follows the conventions of vision/cv.h (0 or a
 * negative BASE_E* code, a sentence in the optional base_err, outputs
 * written only on success).
 *
 * A model is two files side by side: model.onnx and its manifest
 * model.json, which says how to feed the network and how to read it:
 *
 *   "input": {"size": S, "channels": 3, "mean": [b, g, r], "std": [b, g, r]}
 *       patches are BGR, 8-bit, S x S; each value v of channel c enters the
 *       network as (v / 255 - mean[c]) / std[c], in an N x 3 x S x S
 *       tensor (channel 0 blue);
 *   "heads": [{"name": "shape", "values": ["circle", ...]}, ...]
 *       the network's single output, N x K, is the concatenated logits of
 *       every head in order (K the sum of the heads' sizes);
 *   "sha256": the digest of the .onnx file, so that a retrained network
 *       never runs under an old manifest's names;
 *   "features" (optional): the layer whose output embeds a patch (see
 *       vis_classifier_nfeatures);
 * plus free-form fields the loader ignores (how it was made, seeds,
 * figures, a check patch).  models/make_test_model.py writes one.
 *
 * A vis_classifier is used by one thread at a time.  Its forward pass runs
 * on OpenCV's own thread pool as the process has sized it: the shim never
 * calls cv::setNumThreads, which is process-wide. */
#ifndef TABLECAM_VISION_CLASSIFY_H
#define TABLECAM_VISION_CLASSIFY_H

#include "cv.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vis_classifier vis_classifier;

/* Largest accepted patch side S, and number of heads and of values a head,
 * so that a hostile manifest cannot make sizes overflow. */
#define VIS_CLASSIFIER_MAX_SIZE 1024
#define VIS_CLASSIFIER_MAX_HEADS 64
#define VIS_CLASSIFIER_MAX_VALUES 4096
#define VIS_CLASSIFIER_MAX_FEATURES 1024

/* Loads onnx_path (which must end in ".onnx") and its manifest, the same
 * path ending in ".json".  It checks that the .onnx file's SHA-256 equals
 * the manifest's "sha256" and that the network, run once on a zero patch,
 * gives one output of exactly the heads' total size.  Errors name the file
 * and what is wrong: BASE_ENOTFOUND (a file is missing), BASE_EIO (it
 * cannot be read), BASE_EPARSE (the manifest is not JSON, lacks a field or
 * has one of the wrong kind; or the .onnx does not match its manifest:
 * "model file X does not match its manifest"), BASE_EUNSUPPORTED (a
 * manifest asks for other than 3 channels), BASE_ECV (OpenCV cannot read
 * the network, or its output has the wrong size).  For a well-formed
 * protobuf whose graph it cannot build (an unknown op, a broken node),
 * OpenCV's importer also logs a line on stderr before it fails: its logger
 * is process-wide, so this is the second place, with camera opening in
 * cv.h, where the shims cannot keep it quiet. */
int vis_classifier_new(const char *onnx_path, vis_classifier **out,
                       base_err *err);

/* The model shipped for name ("qwirkle": models/qwirkle.onnx and its
 * manifest, built into the library when it was compiled), checked as
 * vis_classifier_new checks a file.  BASE_ENOTFOUND for an unknown name. */
int vis_classifier_builtin(const char *name, vis_classifier **out, base_err *err);

/* NULL is fine. */
void vis_classifier_free(vis_classifier *c);

/* The patch side S in pixels. */
int vis_classifier_patch_size(const vis_classifier *c);

/* The number of heads, and head h's name and number of values (NULL and 0
 * when h is out of range). */
int vis_classifier_nheads(const vis_classifier *c);
const char *vis_classifier_head_name(const vis_classifier *c, int h);
int vis_classifier_head_size(const vis_classifier *c, int h);

/* The name of value v of head h ("circle"); NULL when out of range.  The
 * strings live as long as c. */
const char *vis_classifier_value_name(const vis_classifier *c, int h, int v);

/* The sum of the heads' sizes: how many floats one patch gets from
 * vis_classifier_run. */
int vis_classifier_nvalues(const vis_classifier *c);

/* Classifies patches[0..n-1] (n >= 1; each 3 channels BGR and exactly
 * S x S, else BASE_EINVAL naming the patch) in one forward pass.  probs
 * (n * vis_classifier_nvalues floats) receives, patch after patch, the
 * softmax of each head's logits, head after head: each head's run of
 * probabilities sums to 1. */
int vis_classifier_run(vis_classifier *c, const vis_image *const *patches,
                       int n, float *probs, base_err *err);

/* The most probable value of one head's n probabilities (p[0..n), n >= 1)
 * into *best and the runner-up into *second (-1 when n is 1); ties go to
 * the lower index.  Any scores where higher is likelier will do. */
void vis_classifier_best(const float *p, int n, int *best, int *second);

/* The length F of the features a patch gets from
 * vis_classifier_run_features: the manifest's optional
 *   "features": {"node": NAME, "size": F}
 * names the ONNX node of the network whose output is a patch's embedding
 * (what the heads read); 0 when the manifest names none.  vis_classifier_new
 * checks that the node exists and gives F values a patch. */
int vis_classifier_nfeatures(const vis_classifier *c);

/* The features' spread for head h: the manifest's optional
 * "features": {..., "spread": [one number a head]}, the variance of one
 * feature round the mean of the patches of one value of one design, over
 * many cameras and lights (models/feature_spread); 0 when not given. */
double vis_classifier_feature_spread(const vis_classifier *c, int h);

/* The SHA-256 of the network's .onnx bytes (64 lower-case hex digits):
 * what identifies a model, so that features kept from one model (an
 * enrolled set, vision/pieceset.h) are never compared with another's. */
const char *vis_classifier_digest(const vis_classifier *c);

/* As vis_classifier_run, and feats (n * F floats) receives each patch's
 * features; BASE_EUNSUPPORTED when the model has none. */
int vis_classifier_run_features(vis_classifier *c, const vis_image *const *patches, int n,
                                float *probs, float *feats, base_err *err);

#ifdef __cplusplus
}
#endif

#endif
