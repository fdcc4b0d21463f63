// vision/classify_dnn.cpp: vision/classify.h over OpenCV's dnn module.
//
// As in vision/cv.cpp, every extern "C" entry point validates its
// arguments, then runs its body inside vis__cv_guard (cv_guard.hpp), which
// turns every C++ exception into a BASE_E* code: no exception and no C++
// type leaves this file.  Both files are read with stdio, and the network is parsed from
// the very bytes whose digest was checked, so errors name the path and
// errno, and a file replaced between the check and the load cannot slip
// through.

#include "classify.h"
#include "cv_guard.hpp"
#include "sha256.h"

#include <cjson/cJSON.h>
#include <opencv2/core.hpp>
#include <opencv2/dnn.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <vector>

struct vis_classifier {
    cv::dnn::Net net;
    int size = 0;
    float scale[3] = {0, 0, 0}; // 1 / (255 std[c])
    float shift[3] = {0, 0, 0}; // mean[c] / std[c]
    struct head {
        std::string name;
        std::vector<std::string> values;
    };
    std::vector<head> heads;
    int nvalues = 0;
    std::string digest;      // the .onnx file's sha256, lower-case hex
    std::string out_name;    // the logits' layer
    std::string feat_name;   // the features' layer ("" when none)
    std::string feat_node;   // the ONNX node the manifest names
    std::vector<double> feat_spread; // per head, or empty
    int nfeatures = 0;
    std::vector<float> blob; // the input tensor, kept between calls
};

namespace {

const char *const cls__new = "vis_classifier_new";

// Reads the whole of path into buf.
int cls__read_file(const char *path, const char *what, std::vector<char> &buf,
                   base_err *err)
{
    FILE *f = std::fopen(path, "rb");
    if (!f) {
        int e = errno;
        return base_err_set(err, e == ENOENT ? BASE_ENOTFOUND : BASE_EIO,
                            "%s: cannot open %s %s: %s", cls__new, what, path,
                            std::strerror(e));
    }
    buf.clear();
    char chunk[65536];
    size_t n;
    while ((n = std::fread(chunk, 1, sizeof chunk, f)) > 0)
        buf.insert(buf.end(), chunk, chunk + n);
    int bad = std::ferror(f);
    int e = errno;
    std::fclose(f);
    if (bad)
        return base_err_set(err, BASE_EIO, "%s: cannot read %s %s: %s",
                            cls__new, what, path, std::strerror(e));
    return 0;
}

// Frees a cJSON tree when it goes out of scope.
struct cls__json {
    cJSON *p = nullptr;
    ~cls__json() { cJSON_Delete(p); }
};

int cls__field_error(const char *json, const char *field, const char *want,
                     base_err *err)
{
    return base_err_set(err, BASE_EPARSE, "%s: manifest %s: %s %s", cls__new,
                        json, field,
                        want ? want : "is missing");
}

// A number array of exactly 3 into v, each > 0 when positive is set.
int cls__triple(const char *json, const cJSON *input, const char *name,
                bool positive, double v[3], base_err *err)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(input, name);
    std::string field = std::string("\"input\".\"") + name + "\"";
    if (!a)
        return cls__field_error(json, field.c_str(), nullptr, err);
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != 3)
        return cls__field_error(json, field.c_str(),
                                "is not an array of 3 numbers (b, g, r)",
                                err);
    for (int i = 0; i < 3; i++) {
        const cJSON *x = cJSON_GetArrayItem(a, i);
        if (!cJSON_IsNumber(x) || !std::isfinite(x->valuedouble) ||
            (positive && !(x->valuedouble > 0)))
            return cls__field_error(
                json, field.c_str(),
                positive ? "is not an array of 3 positive numbers (b, g, r)"
                         : "is not an array of 3 numbers (b, g, r)",
                err);
        v[i] = x->valuedouble;
    }
    return 0;
}

// Reads the manifest text (from file json) into c; digest receives the
// manifest's "sha256".
int cls__parse_manifest(const char *json, const std::vector<char> &text,
                        vis_classifier &c, std::string &digest,
                        base_err *err)
{
    cls__json root;
    const char *end = nullptr;
    root.p = cJSON_ParseWithLengthOpts(text.data(), text.size(), &end, 0);
    if (!root.p) {
        int line = 1;
        size_t at = end && end >= text.data() ? size_t(end - text.data())
                                              : text.size();
        for (size_t i = 0; i < at && i < text.size(); i++)
            line += text[i] == '\n';
        return base_err_set(err, BASE_EPARSE,
                            "%s: manifest %s is not valid JSON (line %d)",
                            cls__new, json, line);
    }
    if (!cJSON_IsObject(root.p))
        return base_err_set(err, BASE_EPARSE,
                            "%s: manifest %s is not a JSON object", cls__new,
                            json);

    const cJSON *input = cJSON_GetObjectItemCaseSensitive(root.p, "input");
    if (!input)
        return cls__field_error(json, "\"input\"", nullptr, err);
    if (!cJSON_IsObject(input))
        return cls__field_error(json, "\"input\"", "is not an object", err);
    const cJSON *size = cJSON_GetObjectItemCaseSensitive(input, "size");
    if (!size)
        return cls__field_error(json, "\"input\".\"size\"", nullptr, err);
    if (!cJSON_IsNumber(size) || size->valuedouble < 1 ||
        size->valuedouble > VIS_CLASSIFIER_MAX_SIZE ||
        size->valuedouble != std::floor(size->valuedouble))
        return base_err_set(err, BASE_EPARSE,
                            "%s: manifest %s: \"input\".\"size\" is not a "
                            "whole number 1..%d",
                            cls__new, json, VIS_CLASSIFIER_MAX_SIZE);
    c.size = static_cast<int>(size->valuedouble);
    const cJSON *ch = cJSON_GetObjectItemCaseSensitive(input, "channels");
    if (!ch)
        return cls__field_error(json, "\"input\".\"channels\"", nullptr, err);
    if (!cJSON_IsNumber(ch))
        return cls__field_error(json, "\"input\".\"channels\"",
                                "is not a number", err);
    if (ch->valuedouble != 3)
        return base_err_set(err, BASE_EUNSUPPORTED,
                            "%s: manifest %s: \"input\".\"channels\" is %g "
                            "(only 3, BGR, is supported)",
                            cls__new, json, ch->valuedouble);
    double mean[3], std[3];
    int rc = cls__triple(json, input, "mean", false, mean, err);
    if (rc)
        return rc;
    if ((rc = cls__triple(json, input, "std", true, std, err)))
        return rc;
    for (int i = 0; i < 3; i++) {
        c.scale[i] = static_cast<float>(1.0 / (255.0 * std[i]));
        c.shift[i] = static_cast<float>(mean[i] / std[i]);
    }

    const cJSON *heads = cJSON_GetObjectItemCaseSensitive(root.p, "heads");
    if (!heads)
        return cls__field_error(json, "\"heads\"", nullptr, err);
    int nh = cJSON_IsArray(heads) ? cJSON_GetArraySize(heads) : 0;
    if (nh < 1 || nh > VIS_CLASSIFIER_MAX_HEADS)
        return base_err_set(err, BASE_EPARSE,
                            "%s: manifest %s: \"heads\" is not an array of "
                            "1..%d heads",
                            cls__new, json, VIS_CLASSIFIER_MAX_HEADS);
    c.heads.clear();
    c.nvalues = 0;
    for (int h = 0; h < nh; h++) {
        const cJSON *hd = cJSON_GetArrayItem(heads, h);
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(hd, "name");
        const cJSON *values = cJSON_GetObjectItemCaseSensitive(hd, "values");
        if (!cJSON_IsString(name) || !name->valuestring[0])
            return base_err_set(err, BASE_EPARSE,
                                "%s: manifest %s: head %d has no \"name\" "
                                "string",
                                cls__new, json, h);
        int nv = cJSON_IsArray(values) ? cJSON_GetArraySize(values) : 0;
        if (nv < 1 || nv > VIS_CLASSIFIER_MAX_VALUES)
            return base_err_set(err, BASE_EPARSE,
                                "%s: manifest %s: head \"%s\": \"values\" is "
                                "not an array of 1..%d names",
                                cls__new, json, name->valuestring,
                                VIS_CLASSIFIER_MAX_VALUES);
        vis_classifier::head head;
        head.name = name->valuestring;
        for (int v = 0; v < nv; v++) {
            const cJSON *s = cJSON_GetArrayItem(values, v);
            if (!cJSON_IsString(s))
                return base_err_set(err, BASE_EPARSE,
                                    "%s: manifest %s: head \"%s\": value %d "
                                    "is not a string",
                                    cls__new, json, name->valuestring, v);
            head.values.push_back(s->valuestring);
        }
        c.nvalues += nv;
        c.heads.push_back(std::move(head));
    }

    const cJSON *sha = cJSON_GetObjectItemCaseSensitive(root.p, "sha256");
    if (!sha)
        return cls__field_error(json, "\"sha256\"", nullptr, err);
    if (!cJSON_IsString(sha) || std::strlen(sha->valuestring) != 64)
        return cls__field_error(json, "\"sha256\"",
                                "is not a string of 64 hex digits", err);
    digest = sha->valuestring;
    for (char &ch2 : digest) {
        if (ch2 >= 'A' && ch2 <= 'F')
            ch2 = static_cast<char>(ch2 - 'A' + 'a');
        if (!((ch2 >= '0' && ch2 <= '9') || (ch2 >= 'a' && ch2 <= 'f')))
            return cls__field_error(json, "\"sha256\"",
                                    "is not a string of 64 hex digits", err);
    }

    const cJSON *feat = cJSON_GetObjectItemCaseSensitive(root.p, "features");
    c.feat_node.clear();
    c.nfeatures = 0;
    if (feat) {
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(feat, "node");
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(feat, "size");
        if (!cJSON_IsObject(feat) || !cJSON_IsString(t) || !t->valuestring[0])
            return cls__field_error(json, "\"features\"",
                                    "is not an object with a \"node\" name",
                                    err);
        if (!cJSON_IsNumber(n) || n->valuedouble < 1 ||
            n->valuedouble > VIS_CLASSIFIER_MAX_FEATURES ||
            n->valuedouble != std::floor(n->valuedouble))
            return base_err_set(err, BASE_EPARSE,
                                "%s: manifest %s: \"features\".\"size\" is "
                                "not a whole number 1..%d",
                                cls__new, json, VIS_CLASSIFIER_MAX_FEATURES);
        c.feat_node = t->valuestring;
        c.nfeatures = static_cast<int>(n->valuedouble);
        const cJSON *sp = cJSON_GetObjectItemCaseSensitive(feat, "spread");
        c.feat_spread.clear();
        if (sp) {
            if (!cJSON_IsArray(sp) || cJSON_GetArraySize(sp) != nh)
                return base_err_set(err, BASE_EPARSE,
                                    "%s: manifest %s: \"features\".\"spread\" is "
                                    "not %d numbers (one a head)",
                                    cls__new, json, nh);
            for (int h = 0; h < nh; h++) {
                const cJSON *x = cJSON_GetArrayItem(sp, h);
                if (!cJSON_IsNumber(x) || !(x->valuedouble > 0) ||
                    !std::isfinite(x->valuedouble))
                    return base_err_set(err, BASE_EPARSE,
                                        "%s: manifest %s: \"features\".\"spread\" "
                                        "item %d is not a number > 0",
                                        cls__new, json, h);
                c.feat_spread.push_back(x->valuedouble);
            }
        }
    }
    return 0;
}

// Runs c's network on the n patches already in c.blob; out receives the
// N x K logits and, when feat is not NULL, *feat the N x F features.
void cls__forward(vis_classifier &c, int n, cv::Mat &out, cv::Mat *feat = nullptr)
{
    int shape[4] = {n, 3, c.size, c.size};
    cv::Mat in(4, shape, CV_32F, c.blob.data());
    c.net.setInput(in);
    if (!feat) {
        out = c.net.forward(c.out_name);
        return;
    }
    std::vector<cv::Mat> outs;
    c.net.forward(outs, std::vector<cv::String>{c.out_name, c.feat_name});
    out = outs.at(0);
    *feat = outs.at(1);
}

// The features' shape as text, for errors.
std::string cls__shape(const cv::Mat &m)
{
    std::string shape;
    for (int i = 0; i < m.dims; i++)
        shape += (i ? "x" : "") + std::to_string(m.size[i]);
    return shape;
}

// Checks the network on one zero patch.
int cls__check_net(vis_classifier &c, const char *onnx, base_err *err)
{
    std::vector<cv::String> outs = c.net.getUnconnectedOutLayersNames();
    if (outs.size() != 1)
        return base_err_set(err, BASE_ECV,
                            "%s: model %s has %zu outputs (expected 1, the "
                            "heads' logits)",
                            cls__new, onnx, outs.size());
    c.out_name = outs[0];
    if (c.nfeatures > 0) {
        // OpenCV 4.6's importer names the layer of a named ONNX node
        // "onnx_node!" and the node's name, that of an unnamed one by its
        // first output.
        std::vector<cv::String> names = c.net.getLayerNames();
        c.feat_name.clear();
        for (const std::string &cand : {"onnx_node!" + c.feat_node, c.feat_node})
            if (std::find(names.begin(), names.end(), cand) != names.end()) {
                c.feat_name = cand;
                break;
            }
        if (c.feat_name.empty())
            return base_err_set(err, BASE_ECV,
                                "%s: model %s has no node \"%s\" (the "
                                "manifest's \"features\")",
                                cls__new, onnx, c.feat_node.c_str());
    }
    size_t one = size_t(3) * c.size * c.size;
    c.blob.assign(one, 0.0f);
    cv::Mat out, feat;
    try {
        cls__forward(c, 1, out, c.nfeatures > 0 ? &feat : nullptr);
    } catch (const cv::Exception &e) {
        return base_err_set(err, BASE_ECV,
                            "%s: model %s fails on a 1x3x%dx%d input (the "
                            "manifest's size): %s",
                            cls__new, onnx, c.size, c.size, e.err.c_str());
    }
    if (c.nfeatures > 0 &&
        (feat.type() != CV_32F || feat.total() != size_t(c.nfeatures)))
        return base_err_set(err, BASE_ECV,
                            "%s: model %s gives %s features for one patch "
                            "(the manifest says %d)",
                            cls__new, onnx, cls__shape(feat).c_str(),
                            c.nfeatures);
    if (out.type() != CV_32F || out.dims < 1 || out.size[0] != 1 ||
        out.total() != size_t(c.nvalues)) {
        return base_err_set(err, BASE_ECV,
                            "%s: model %s gives a %s output for one patch "
                            "(expected 1x%d, the manifest's heads)",
                            cls__new, onnx, cls__shape(out).c_str(), c.nvalues);
    }
    return 0;
}

// Checks one input patch; i names it.
int cls__check_patch(const vis_classifier &c, const vis_image *p, int i,
                     base_err *err)
{
    const char *fn = "vis_classifier_run";
    if (!p)
        return base_err_set(err, BASE_EINVAL, "%s: patch %d is NULL", fn, i);
    if (p->width != c.size || p->height != c.size || p->channels != 3)
        return base_err_set(err, BASE_EINVAL,
                            "%s: patch %d is %dx%d with %d channels "
                            "(expected %dx%d, 3 channels BGR)",
                            fn, i, p->width, p->height, p->channels, c.size,
                            c.size);
    if (p->stride < p->width * 3 || !p->data)
        return base_err_set(err, BASE_EINVAL,
                            "%s: patch %d has stride %d or no pixel data", fn,
                            i, p->stride);
    return 0;
}

} // namespace

namespace {

// Builds a classifier from a model's bytes and its manifest's; onnx_name
// and json_name name them in errors (paths, or "built-in model X").
int cls__load(const char *onnx_name, const char *json_name, const char *model,
              size_t nmodel, const std::vector<char> &manifest,
              vis_classifier **out, base_err *err)
{
    vis_classifier *c = new vis_classifier;
    struct owner {
        vis_classifier *p;
        ~owner() { delete p; }
    } own{c};
    std::string want;
    int rc;
    if ((rc = cls__parse_manifest(json_name, manifest, *c, want, err)))
        return rc;
    char got[65];
    vis__sha256_hex(model, nmodel, got);
    if (want != got)
        return base_err_set(err, BASE_EPARSE,
                            "%s: model file %s does not match its "
                            "manifest %s (sha256 %.12s..., manifest says "
                            "%.12s...)",
                            cls__new, onnx_name, json_name, got, want.c_str());
    c->digest = got;
    try {
        c->net = cv::dnn::readNetFromONNX(model, nmodel);
    } catch (const cv::Exception &e) {
        return base_err_set(err, BASE_ECV, "%s: OpenCV cannot read model %s: %s",
                            cls__new, onnx_name, e.err.c_str());
    }
    if (c->net.empty())
        return base_err_set(err, BASE_ECV,
                            "%s: OpenCV read no network from model %s",
                            cls__new, onnx_name);
    c->net.setPreferableBackend(cv::dnn::DNN_BACKEND_OPENCV);
    c->net.setPreferableTarget(cv::dnn::DNN_TARGET_CPU);
    if ((rc = cls__check_net(*c, onnx_name, err)))
        return rc;
    own.p = nullptr;
    *out = c;
    return 0;
}

} // namespace

extern "C" int vis_classifier_new(const char *onnx_path, vis_classifier **out,
                                  base_err *err)
{
    if (!onnx_path || !out)
        return base_err_set(err, BASE_EINVAL, "%s: %s is NULL", cls__new,
                            onnx_path ? "out" : "onnx_path");
    size_t len = std::strlen(onnx_path);
    if (len < 5 || std::strcmp(onnx_path + len - 5, ".onnx") != 0)
        return base_err_set(err, BASE_EINVAL,
                            "%s: %s does not end in .onnx", cls__new,
                            onnx_path);
    return vis__cv_guard(err, cls__new, [&]() -> int {
        std::string json = std::string(onnx_path, len - 5) + ".json";
        std::vector<char> model, manifest;
        int rc = cls__read_file(onnx_path, "model", model, err);
        if (rc)
            return rc;
        if ((rc = cls__read_file(json.c_str(), "manifest", manifest, err)))
            return rc;
        return cls__load(onnx_path, json.c_str(), model.data(), model.size(),
                         manifest, out, err);
    });
}

// The shipped models, built in by vision/embed_models.cmake.
struct vis__builtin_model {
    const char *name;
    const unsigned char *onnx;
    size_t onnx_len;
    const unsigned char *json;
    size_t json_len;
};
extern "C" const struct vis__builtin_model vis__builtin_models[];

extern "C" int vis_classifier_builtin(const char *name, vis_classifier **out,
                                      base_err *err)
{
    if (!name || !out)
        return base_err_set(err, BASE_EINVAL, "vis_classifier_builtin: %s is NULL",
                            name ? "out" : "name");
    for (const vis__builtin_model *m = vis__builtin_models; m->name; m++)
        if (std::strcmp(m->name, name) == 0)
            return vis__cv_guard(err, cls__new, [&]() -> int {
                std::string on = std::string("built-in model ") + name + ".onnx";
                std::string jn = std::string("built-in model ") + name + ".json";
                std::vector<char> manifest(reinterpret_cast<const char *>(m->json),
                                           reinterpret_cast<const char *>(m->json) +
                                               m->json_len);
                return cls__load(on.c_str(), jn.c_str(),
                                 reinterpret_cast<const char *>(m->onnx), m->onnx_len,
                                 manifest, out, err);
            });
    return base_err_set(err, BASE_ENOTFOUND,
                        "vis_classifier_builtin: no built-in model '%s'", name);
}

extern "C" void vis_classifier_free(vis_classifier *c)
{
    try {
        delete c;
    } catch (...) {
    }
}

extern "C" int vis_classifier_patch_size(const vis_classifier *c)
{
    return c ? c->size : 0;
}

extern "C" int vis_classifier_nheads(const vis_classifier *c)
{
    return c ? static_cast<int>(c->heads.size()) : 0;
}

extern "C" const char *vis_classifier_head_name(const vis_classifier *c,
                                                int h)
{
    if (!c || h < 0 || h >= static_cast<int>(c->heads.size()))
        return nullptr;
    return c->heads[h].name.c_str();
}

extern "C" int vis_classifier_head_size(const vis_classifier *c, int h)
{
    if (!c || h < 0 || h >= static_cast<int>(c->heads.size()))
        return 0;
    return static_cast<int>(c->heads[h].values.size());
}

extern "C" const char *vis_classifier_value_name(const vis_classifier *c,
                                                 int h, int v)
{
    if (!c || h < 0 || h >= static_cast<int>(c->heads.size()) || v < 0 ||
        v >= static_cast<int>(c->heads[h].values.size()))
        return nullptr;
    return c->heads[h].values[v].c_str();
}

extern "C" int vis_classifier_nvalues(const vis_classifier *c)
{
    return c ? c->nvalues : 0;
}

extern "C" int vis_classifier_nfeatures(const vis_classifier *c)
{
    return c ? c->nfeatures : 0;
}

extern "C" double vis_classifier_feature_spread(const vis_classifier *c, int h)
{
    if (!c || h < 0 || h >= static_cast<int>(c->feat_spread.size()))
        return 0;
    return c->feat_spread[h];
}

extern "C" const char *vis_classifier_digest(const vis_classifier *c)
{
    return c ? c->digest.c_str() : nullptr;
}

namespace {

// vis_classifier_run and vis_classifier_run_features: feats NULL for none.
int cls__run(const char *fn, vis_classifier *c, const vis_image *const *patches,
             int n, float *probs, float *feats, base_err *err)
{
    if (!c || !patches || !probs)
        return base_err_set(err, BASE_EINVAL, "%s: %s is NULL", fn,
                            !c ? "c" : !patches ? "patches" : "probs");
    if (n < 1)
        return base_err_set(err, BASE_EINVAL,
                            "%s: n is %d (expected at least 1 patch)", fn, n);
    for (int i = 0; i < n; i++) {
        int rc = cls__check_patch(*c, patches[i], i, err);
        if (rc)
            return rc;
    }
    return vis__cv_guard(err, fn, [&]() -> int {
        const int s = c->size;
        const size_t plane = size_t(s) * s;
        c->blob.resize(size_t(n) * 3 * plane);
        // HWC bytes -> normalised CHW floats, patch after patch.
        for (int i = 0; i < n; i++) {
            const vis_image *p = patches[i];
            float *dst = c->blob.data() + size_t(i) * 3 * plane;
            for (int y = 0; y < s; y++) {
                const unsigned char *row = p->data + size_t(y) * p->stride;
                for (int x = 0; x < s; x++)
                    for (int ch = 0; ch < 3; ch++)
                        dst[ch * plane + size_t(y) * s + x] =
                            row[3 * x + ch] * c->scale[ch] - c->shift[ch];
            }
        }
        cv::Mat out, feat;
        cls__forward(*c, n, out, feats ? &feat : nullptr);
        if (out.type() != CV_32F || !out.isContinuous() ||
            out.total() != size_t(n) * c->nvalues)
            return base_err_set(err, BASE_ECV,
                                "%s: the network gave %zu values for %d "
                                "patches (expected %d each)",
                                fn, out.total(), n, c->nvalues);
        if (feats && (feat.type() != CV_32F || !feat.isContinuous() ||
                      feat.total() != size_t(n) * c->nfeatures))
            return base_err_set(err, BASE_ECV,
                                "%s: the network gave %zu features for %d "
                                "patches (expected %d each)",
                                fn, feat.total(), n, c->nfeatures);
        const float *logits = out.ptr<float>();
        std::vector<float> res(size_t(n) * c->nvalues);
        for (int i = 0; i < n; i++) {
            size_t at = size_t(i) * c->nvalues;
            for (const vis_classifier::head &h : c->heads) {
                size_t k = h.values.size();
                double top = logits[at];
                for (size_t v = 1; v < k; v++)
                    top = std::max(top, double(logits[at + v]));
                double sum = 0;
                for (size_t v = 0; v < k; v++)
                    sum += std::exp(double(logits[at + v]) - top);
                for (size_t v = 0; v < k; v++)
                    res[at + v] = static_cast<float>(
                        std::exp(double(logits[at + v]) - top) / sum);
                at += k;
            }
        }
        std::memcpy(probs, res.data(), res.size() * sizeof(float));
        if (feats)
            std::memcpy(feats, feat.ptr<float>(),
                        size_t(n) * c->nfeatures * sizeof(float));
        return 0;
    });
}

} // namespace

extern "C" int vis_classifier_run(vis_classifier *c,
                                  const vis_image *const *patches, int n,
                                  float *probs, base_err *err)
{
    return cls__run("vis_classifier_run", c, patches, n, probs, nullptr, err);
}

extern "C" int vis_classifier_run_features(vis_classifier *c,
                                           const vis_image *const *patches,
                                           int n, float *probs, float *feats,
                                           base_err *err)
{
    const char *fn = "vis_classifier_run_features";
    if (c && c->nfeatures == 0)
        return base_err_set(err, BASE_EUNSUPPORTED,
                            "%s: the model's manifest names no features", fn);
    if (!feats)
        return base_err_set(err, BASE_EINVAL, "%s: feats is NULL", fn);
    return cls__run(fn, c, patches, n, probs, feats, err);
}

extern "C" void vis_classifier_best(const float *p, int n, int *best, int *second)
{
    int b = 0, s = -1;
    for (int v = 1; v < n; v++)
        if (p[v] > p[b])
            b = v;
    for (int v = 0; v < n; v++)
        if (v != b && (s < 0 || p[v] > p[s]))
            s = v;
    *best = b;
    *second = s;
}
