/* vision/pieceset.c: an enrolled set's prototypes (vision/pieceset.h). */
#include "pieceset.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

/* The tuning values, each with its reason. */
static const struct {
    /* A classifier's "impossible" is never quite: its probabilities are
     * floored here before the set's opinion is multiplied in, so that a
     * value the set's own pieces show plainly can overturn it. */
    double pfloor;
    /* The weights the enrolment tries: 0 (the set adds nothing) and
     * nweights of 2^k, k from wlo in steps of wstep; at 1 the distance
     * counts as a Gaussian likelihood with the measured spread, which
     * over F features is far surer than a few photos warrant, so the
     * grid reaches well below it. */
    double wlo, wstep;
    int nweights;
    /* The smallest spread: pieces enrolled from one photo copied can be
     * identical, and a distance is still divided by it. */
    double min_spread;
} ps__par = {1e-6, -14, 0.5, 33, 1e-12};

typedef struct ps__head {
    char *name;
    int nv, off;       /* values, and the head's first index in probs */
    char **vname;
    int *n;              /* enrolled pieces per value */
    unsigned char *left; /* per value: an enrolment never shows it (cube2's
                            "covered"); the set does not judge it */
    double *mean;        /* nv x F */
    double spread;       /* pooled variance of one feature round its mean */
    double mspread;      /* the model's measure of it across cameras (0: none) */
    double weight;       /* 0: not used */
    int ready;           /* finished with every value enrolled */
} ps__head;

struct vis_pieceset {
    char digest[65];
    int nf, nh, nvalues;
    ps__head *h;
    /* the enrolled pieces until finished */
    float *feat, *prob;
    int *val;
    int ns, cap;
    int finished;
};

static char *ps__strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

/* A set with nh heads of the given sizes, names filled in by the caller. */
static vis_pieceset *ps__alloc(int nf, int nh, const int *sizes)
{
    vis_pieceset *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->nf = nf;
    s->nh = nh;
    if (!(s->h = calloc((size_t)nh, sizeof *s->h))) {
        free(s);
        return NULL;
    }
    for (int h = 0; h < nh; h++) {
        ps__head *hd = &s->h[h];
        hd->nv = sizes[h];
        hd->off = s->nvalues;
        s->nvalues += sizes[h];
        if (!(hd->vname = calloc((size_t)hd->nv, sizeof *hd->vname)) ||
            !(hd->n = calloc((size_t)hd->nv, sizeof *hd->n)) ||
            !(hd->left = calloc((size_t)hd->nv, sizeof *hd->left)) ||
            !(hd->mean = calloc((size_t)hd->nv * (size_t)nf, sizeof *hd->mean))) {
            vis_pieceset_free(s);
            return NULL;
        }
    }
    return s;
}

void vis_pieceset_free(vis_pieceset *s)
{
    if (!s)
        return;
    for (int h = 0; h < s->nh && s->h; h++) {
        ps__head *hd = &s->h[h];
        for (int v = 0; v < hd->nv && hd->vname; v++)
            free(hd->vname[v]);
        free(hd->vname);
        free(hd->name);
        free(hd->n);
        free(hd->left);
        free(hd->mean);
    }
    free(s->h);
    free(s->feat);
    free(s->prob);
    free(s->val);
    free(s);
}

int vis_pieceset_new(const vis_classifier *c, vis_pieceset **out, base_err *err)
{
    int sizes[VIS_CLASSIFIER_MAX_HEADS] = {0}, nh;
    vis_pieceset *s;
    if (!c || !out)
        return base_err_set(err, BASE_EINVAL, "vis_pieceset_new: %s is NULL", c ? "out" : "c");
    *out = NULL;
    if (vis_classifier_nfeatures(c) <= 0)
        return base_err_set(err, BASE_EUNSUPPORTED,
                            "the model's manifest names no features, so no set can be enrolled "
                            "for it");
    nh = vis_classifier_nheads(c);
    for (int h = 0; h < nh; h++)
        sizes[h] = vis_classifier_head_size(c, h);
    if (!(s = ps__alloc(vis_classifier_nfeatures(c), nh, sizes)))
        return base_err_set(err, BASE_ENOMEM, "out of memory for an enrolled set");
    snprintf(s->digest, sizeof s->digest, "%s", vis_classifier_digest(c));
    for (int h = 0; h < nh; h++) {
        s->h[h].mspread = vis_classifier_feature_spread(c, h);
        if (!(s->h[h].name = ps__strdup(vis_classifier_head_name(c, h)))) {
            vis_pieceset_free(s);
            return base_err_set(err, BASE_ENOMEM, "out of memory for an enrolled set");
        }
        for (int v = 0; v < s->h[h].nv; v++)
            if (!(s->h[h].vname[v] = ps__strdup(vis_classifier_value_name(c, h, v)))) {
                vis_pieceset_free(s);
                return base_err_set(err, BASE_ENOMEM, "out of memory for an enrolled set");
            }
    }
    *out = s;
    return 0;
}

int vis_pieceset_add(vis_pieceset *s, const float *feat, const float *probs, const int *values,
                     base_err *err)
{
    if (!s || !feat || !probs || !values)
        return base_err_set(err, BASE_EINVAL, "vis_pieceset_add: NULL argument");
    if (s->finished)
        return base_err_set(err, BASE_EINVAL, "vis_pieceset_add: the set is already finished");
    for (int h = 0; h < s->nh; h++)
        if (values[h] < -1 || values[h] >= s->h[h].nv)
            return base_err_set(err, BASE_EINVAL,
                                "vis_pieceset_add: value %d of head %s is outside -1..%d",
                                values[h], s->h[h].name, s->h[h].nv - 1);
    for (int h = 0; h < s->nh; h++)
        if (values[h] >= 0 && s->h[h].left[values[h]])
            return base_err_set(err, BASE_EINVAL,
                                "vis_pieceset_add: value %s of head %s is left out of the set",
                                s->h[h].vname[values[h]], s->h[h].name);
    if (s->ns == s->cap) {
        int cap = s->cap ? 2 * s->cap : 64;
        float *f = realloc(s->feat, (size_t)cap * (size_t)s->nf * sizeof *f);
        float *p = f ? realloc(s->prob, (size_t)cap * (size_t)s->nvalues * sizeof *p) : NULL;
        int *v = p ? realloc(s->val, (size_t)cap * (size_t)s->nh * sizeof *v) : NULL;
        if (f)
            s->feat = f;
        if (p)
            s->prob = p;
        if (!v)
            return base_err_set(err, BASE_ENOMEM, "out of memory for an enrolled piece");
        s->val = v;
        s->cap = cap;
    }
    memcpy(s->feat + (size_t)s->ns * s->nf, feat, (size_t)s->nf * sizeof *feat);
    memcpy(s->prob + (size_t)s->ns * s->nvalues, probs, (size_t)s->nvalues * sizeof *probs);
    memcpy(s->val + (size_t)s->ns * s->nh, values, (size_t)s->nh * sizeof *values);
    s->ns++;
    return 0;
}

/* The values of hd the set judges. */
static int ps__judged(const ps__head *hd)
{
    int n = 0;
    for (int v = 0; v < hd->nv; v++)
        n += !hd->left[v];
    return n;
}

int vis_pieceset_leave(vis_pieceset *s, int h, int v, base_err *err)
{
    if (!s || h < 0 || h >= s->nh || v < 0 || v >= s->h[h].nv)
        return base_err_set(err, BASE_EINVAL, "vis_pieceset_leave: no head %d value %d", h, v);
    if (s->finished || vis_pieceset_count(s, h, v) > 0)
        return base_err_set(err, BASE_EINVAL, "vis_pieceset_leave: value %s of head %s %s",
                            s->h[h].vname[v], s->h[h].name,
                            s->finished ? "(the set is finished)" : "has pieces");
    if (ps__judged(&s->h[h]) <= 2)
        return base_err_set(err, BASE_EINVAL,
                            "vis_pieceset_leave: head %s would judge fewer than 2 values",
                            s->h[h].name);
    s->h[h].left[v] = 1;
    return 0;
}

static double ps__d2(const float *f, const double *m, int nf)
{
    double d = 0;
    for (int k = 0; k < nf; k++)
        d += (f[k] - m[k]) * (f[k] - m[k]);
    return d;
}

/* The log-probabilities of head hd for one patch: the classifier's, then
 * the set's distances at weight w (d2[v]: squared distance to value v's
 * mean); out[v] is normalised.  A value left out keeps the classifier's
 * probability, and the judged ones share the rest in the set's opinion:
 * the set knows nothing of whether a square is covered, only which of
 * the values it saw a piece shows. */
static void ps__combine(const ps__head *hd, const float *p, const double *d2, double w,
                        double *out)
{
    double top = -INFINITY, sum = 0, kept = 0, judged = 0;
    for (int v = 0; v < hd->nv; v++) {
        double q = fmax(p[v], ps__par.pfloor);
        if (hd->left[v]) {
            kept += q;
            continue;
        }
        judged += q;
        out[v] = log(q) - w * d2[v] / (2 * hd->spread);
        top = fmax(top, out[v]);
    }
    for (int v = 0; v < hd->nv; v++)
        if (!hd->left[v])
            sum += exp(out[v] - top);
    for (int v = 0; v < hd->nv; v++)
        out[v] = hd->left[v] ? log(fmax(p[v], ps__par.pfloor) / (kept + judged))
                             : out[v] - top - log(sum) + log(judged / (kept + judged));
}

/* Leave one out: the log-likelihood of the enrolled pieces' values at
 * weight w, each judged against means made without it. */
static double ps__loo(const vis_pieceset *s, int h, double w, double *d2, double *lp)
{
    const ps__head *hd = &s->h[h];
    double ll = 0;
    for (int i = 0; i < s->ns; i++) {
        int t = s->val[(size_t)i * s->nh + h];
        const float *f = s->feat + (size_t)i * s->nf;
        if (t < 0)
            continue;
        for (int v = 0; v < hd->nv; v++)
            d2[v] = ps__d2(f, hd->mean + (size_t)v * s->nf, s->nf);
        /* f's distance to its own mean without it: (n / (n - 1)) times */
        d2[t] *= (double)hd->n[t] / (hd->n[t] - 1) * hd->n[t] / (hd->n[t] - 1);
        ps__combine(hd, s->prob + (size_t)i * s->nvalues + hd->off, d2, w, lp);
        ll += lp[t];
    }
    return ll;
}

int vis_pieceset_finish(vis_pieceset *s, base_err *err)
{
    int any = 0, shortv = -1, shorth = -1;
    if (!s)
        return base_err_set(err, BASE_EINVAL, "vis_pieceset_finish: NULL set");
    if (s->finished)
        return 0;
    for (int h = 0; h < s->nh; h++) {
        ps__head *hd = &s->h[h];
        double ss = 0, *d2, *lp, best = -INFINITY;
        int nk = 0;
        memset(hd->n, 0, (size_t)hd->nv * sizeof *hd->n);
        memset(hd->mean, 0, (size_t)hd->nv * s->nf * sizeof *hd->mean);
        for (int i = 0; i < s->ns; i++) {
            int t = s->val[(size_t)i * s->nh + h];
            if (t < 0)
                continue;
            hd->n[t]++;
            nk++;
            for (int k = 0; k < s->nf; k++)
                hd->mean[(size_t)t * s->nf + k] += s->feat[(size_t)i * s->nf + k];
        }
        hd->ready = 1;
        for (int v = 0; v < hd->nv; v++) {
            if (hd->left[v]) {
                continue;
            } else if (hd->n[v] < 2) {
                hd->ready = 0;
                if (shortv < 0) {
                    shortv = v;
                    shorth = h;
                }
            } else {
                for (int k = 0; k < s->nf; k++)
                    hd->mean[(size_t)v * s->nf + k] /= hd->n[v];
            }
        }
        if (!hd->ready)
            continue;
        for (int i = 0; i < s->ns; i++) {
            int t = s->val[(size_t)i * s->nh + h];
            if (t >= 0)
                ss += ps__d2(s->feat + (size_t)i * s->nf, hd->mean + (size_t)t * s->nf, s->nf);
        }
        /* the variance of one feature, unbiased: each value's mean took a
         * degree of freedom; floored so that identical pieces divide */
        hd->spread = fmax(ss / ((double)(nk - ps__judged(hd)) * s->nf), ps__par.min_spread);
        if (!(d2 = malloc(2 * (size_t)hd->nv * sizeof *d2)))
            return base_err_set(err, BASE_ENOMEM, "out of memory");
        lp = d2 + hd->nv;
        hd->weight = 0;
        best = ps__loo(s, h, 0, d2, lp);
        if (hd->mspread > 0) {
            /* the model measured how far a value's pieces spread across
             * cameras and lights: that is the likelihood's width (the
             * photos, one camera, spread less than later frames will),
             * and the enrolment only says whether to use it at all */
            hd->spread = hd->mspread;
            if (ps__loo(s, h, 1, d2, lp) > best)
                hd->weight = 1;
        } else {
            for (int k = 0; k < ps__par.nweights; k++) {
                double w = pow(2, ps__par.wlo + k * ps__par.wstep), ll = ps__loo(s, h, w, d2, lp);
                if (ll > best) {
                    best = ll;
                    hd->weight = w;
                }
            }
        }
        free(d2);
        any = 1;
    }
    if (!any)
        return base_err_set(err, BASE_ENOTFOUND,
                            "an enrolled set needs at least 2 pieces of every value of a head; "
                            "%s %s has %d",
                            s->h[shorth].name, s->h[shorth].vname[shortv],
                            s->h[shorth].n[shortv]);
    s->finished = 1;
    free(s->feat);
    free(s->prob);
    free(s->val);
    s->feat = s->prob = NULL;
    s->val = NULL;
    s->ns = s->cap = 0;
    return 0;
}

int vis_pieceset_count(const vis_pieceset *s, int h, int v)
{
    if (!s || h < 0 || h >= s->nh || v < 0 || v >= s->h[h].nv)
        return 0;
    if (s->finished)
        return s->h[h].n[v];
    {
        int n = 0;
        for (int i = 0; i < s->ns; i++)
            n += s->val[(size_t)i * s->nh + h] == v;
        return n;
    }
}

const char *vis_pieceset_head(const vis_pieceset *s, int h)
{
    return s && h >= 0 && h < s->nh ? s->h[h].name : NULL;
}

double vis_pieceset_weight(const vis_pieceset *s, int h)
{
    if (!s || !s->finished || h < 0 || h >= s->nh || !s->h[h].ready)
        return 0;
    return s->h[h].weight;
}

int vis_pieceset_check(const vis_pieceset *s, const vis_classifier *c, base_err *err)
{
    if (!s || !c)
        return base_err_set(err, BASE_EINVAL, "vis_pieceset_check: NULL argument");
    if (strcmp(s->digest, vis_classifier_digest(c)) != 0)
        return base_err_set(err, BASE_EINVAL,
                            "the set was enrolled with another model (sha256 %.12s..., this "
                            "one is %.12s...): enrol it again",
                            s->digest, vis_classifier_digest(c));
    if (s->nf != vis_classifier_nfeatures(c) || s->nh != vis_classifier_nheads(c))
        return base_err_set(err, BASE_EINVAL,
                            "the set has %d heads of %d features, the model %d of %d", s->nh,
                            s->nf, vis_classifier_nheads(c), vis_classifier_nfeatures(c));
    for (int h = 0; h < s->nh; h++) {
        if (strcmp(s->h[h].name, vis_classifier_head_name(c, h)) != 0 ||
            s->h[h].nv != vis_classifier_head_size(c, h))
            return base_err_set(err, BASE_EINVAL, "the set's head %d is %s, the model's %s", h,
                                s->h[h].name, vis_classifier_head_name(c, h));
        for (int v = 0; v < s->h[h].nv; v++)
            if (strcmp(s->h[h].vname[v], vis_classifier_value_name(c, h, v)) != 0)
                return base_err_set(err, BASE_EINVAL,
                                    "the set's %s value %d is %s, the model's %s", s->h[h].name,
                                    v, s->h[h].vname[v], vis_classifier_value_name(c, h, v));
    }
    return 0;
}

void vis_pieceset_apply(const vis_pieceset *s, const float *feat, float *probs)
{
    double d2[VIS_CLASSIFIER_MAX_VALUES], lp[VIS_CLASSIFIER_MAX_VALUES];
    if (!s || !s->finished || !feat || !probs)
        return;
    for (int h = 0; h < s->nh; h++) {
        const ps__head *hd = &s->h[h];
        if (!hd->ready || hd->weight <= 0)
            continue;
        for (int v = 0; v < hd->nv; v++)
            d2[v] = ps__d2(feat, hd->mean + (size_t)v * s->nf, s->nf);
        ps__combine(hd, probs + hd->off, d2, hd->weight, lp);
        for (int v = 0; v < hd->nv; v++)
            probs[hd->off + v] = (float)exp(lp[v]);
    }
}

/* ---- JSON ---- */

/* x to 7 significant digits, what a float holds, so the file stays short. */
static cJSON *ps__num(double x)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%.7g", x);
    return cJSON_CreateNumber(strtod(buf, NULL));
}

int vis_pieceset_to_json(const vis_pieceset *s, const char *game, char **json, base_err *err)
{
    cJSON *root, *heads;
    if (!s || !game || !json)
        return base_err_set(err, BASE_EINVAL, "vis_pieceset_to_json: NULL argument");
    if (!s->finished)
        return base_err_set(err, BASE_EINVAL, "vis_pieceset_to_json: the set is not finished");
    root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "kind", "pieces");
    cJSON_AddStringToObject(root, "game", game);
    cJSON_AddStringToObject(root, "model", s->digest);
    cJSON_AddNumberToObject(root, "features", s->nf);
    heads = cJSON_AddArrayToObject(root, "heads");
    for (int h = 0; h < s->nh; h++) {
        const ps__head *hd = &s->h[h];
        cJSON *o = cJSON_CreateObject(), *vals;
        cJSON_AddStringToObject(o, "name", hd->name);
        cJSON_AddItemToObject(o, "weight", ps__num(hd->ready ? hd->weight : 0));
        cJSON_AddItemToObject(o, "spread", ps__num(hd->ready ? hd->spread : 1));
        vals = cJSON_AddArrayToObject(o, "values");
        for (int v = 0; v < hd->nv; v++) {
            cJSON *e = cJSON_CreateObject(), *m;
            cJSON_AddStringToObject(e, "name", hd->vname[v]);
            cJSON_AddNumberToObject(e, "n", hd->n[v]);
            if (hd->left[v])
                cJSON_AddTrueToObject(e, "left");
            m = cJSON_AddArrayToObject(e, "mean");
            for (int k = 0; k < s->nf; k++)
                cJSON_AddItemToArray(m, ps__num(hd->mean[(size_t)v * s->nf + k]));
            cJSON_AddItemToArray(vals, e);
        }
        cJSON_AddItemToArray(heads, o);
    }
    *json = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    if (!*json)
        return base_err_set(err, BASE_ENOMEM, "out of memory for an enrolled set's JSON");
    return 0;
}

static int ps__bad(base_err *err, const char *what)
{
    return base_err_set(err, BASE_EPARSE, "pieces profile: %s", what);
}

/* A whole number in [lo, hi] into *out. */
static int ps__int(const cJSON *x, int lo, int hi, int *out)
{
    if (!cJSON_IsNumber(x) || x->valuedouble < lo || x->valuedouble > hi ||
        x->valuedouble != floor(x->valuedouble))
        return -1;
    *out = (int)x->valuedouble;
    return 0;
}

/* Fills head h of s from its JSON object o. */
static int ps__head_from(vis_pieceset *s, int h, const cJSON *o, base_err *err)
{
    ps__head *hd = &s->h[h];
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(o, "name");
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(o, "weight");
    const cJSON *sp = cJSON_GetObjectItemCaseSensitive(o, "spread");
    const cJSON *vals = cJSON_GetObjectItemCaseSensitive(o, "values");
    char what[128];
    if (!cJSON_IsString(name) || !(hd->name = ps__strdup(name->valuestring)))
        return base_err_set(err, BASE_EPARSE, "pieces profile: head %d has no \"name\"", h);
    if (!cJSON_IsNumber(w) || !(w->valuedouble >= 0) || !isfinite(w->valuedouble) ||
        !cJSON_IsNumber(sp) || !(sp->valuedouble > 0) || !isfinite(sp->valuedouble))
        return base_err_set(err, BASE_EPARSE,
                            "pieces profile: head %s: \"weight\" must be a number >= 0 and "
                            "\"spread\" one > 0",
                            hd->name);
    hd->weight = w->valuedouble;
    hd->spread = sp->valuedouble;
    hd->ready = 1;
    for (int v = 0; v < hd->nv; v++) {
        const cJSON *e = cJSON_GetArrayItem(vals, v);
        const cJSON *vn = cJSON_GetObjectItemCaseSensitive(e, "name");
        const cJSON *m = cJSON_GetObjectItemCaseSensitive(e, "mean");
        snprintf(what, sizeof what, "head %s value %d", hd->name, v);
        if (!cJSON_IsString(vn) || !(hd->vname[v] = ps__strdup(vn->valuestring)) ||
            ps__int(cJSON_GetObjectItemCaseSensitive(e, "n"), 0, 1 << 30, &hd->n[v]) != 0)
            return base_err_set(err, BASE_EPARSE,
                                "pieces profile: %s needs a \"name\" and a count \"n\"", what);
        if (!cJSON_IsArray(m) || cJSON_GetArraySize(m) != s->nf)
            return base_err_set(err, BASE_EPARSE,
                                "pieces profile: %s: \"mean\" is not %d numbers", what, s->nf);
        for (int k = 0; k < s->nf; k++) {
            const cJSON *x = cJSON_GetArrayItem(m, k);
            if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble))
                return base_err_set(err, BASE_EPARSE,
                                    "pieces profile: %s: \"mean\" item %d is not a number", what,
                                    k);
            hd->mean[(size_t)v * s->nf + k] = x->valuedouble;
        }
        {
            const cJSON *left = cJSON_GetObjectItemCaseSensitive(e, "left");
            if (left && !cJSON_IsBool(left))
                return base_err_set(err, BASE_EPARSE,
                                    "pieces profile: %s: \"left\" is not true or false", what);
            hd->left[v] = cJSON_IsTrue(left);
            if (hd->left[v] && hd->n[v] > 0)
                return base_err_set(err, BASE_EPARSE,
                                    "pieces profile: %s is left out yet has %d pieces", what,
                                    hd->n[v]);
        }
        if (hd->n[v] < 2 && !hd->left[v])
            hd->ready = 0;
    }
    return 0;
}

int vis_pieceset_from_json(const char *json, vis_pieceset **out, char *game, size_t cap,
                           base_err *err)
{
    cJSON *root;
    const cJSON *kind, *g, *model, *heads;
    int nf = 0, nh = 0, sizes[VIS_CLASSIFIER_MAX_HEADS] = {0}, rc = 0;
    vis_pieceset *s = NULL;
    if (!json || !out)
        return base_err_set(err, BASE_EINVAL, "vis_pieceset_from_json: NULL argument");
    *out = NULL;
    if (!(root = cJSON_Parse(json)))
        return ps__bad(err, "not valid JSON");
    kind = cJSON_GetObjectItemCaseSensitive(root, "kind");
    g = cJSON_GetObjectItemCaseSensitive(root, "game");
    model = cJSON_GetObjectItemCaseSensitive(root, "model");
    heads = cJSON_GetObjectItemCaseSensitive(root, "heads");
    if (!cJSON_IsString(kind) || strcmp(kind->valuestring, "pieces") != 0)
        rc = ps__bad(err, "\"kind\" is not \"pieces\"");
    else if (!cJSON_IsString(g) || !g->valuestring[0])
        rc = ps__bad(err, "\"game\" is missing");
    else if (!cJSON_IsString(model) || strlen(model->valuestring) != 64)
        rc = ps__bad(err, "\"model\" is not a sha256 of 64 hex digits");
    else if (ps__int(cJSON_GetObjectItemCaseSensitive(root, "features"), 1,
                     VIS_CLASSIFIER_MAX_FEATURES, &nf) != 0)
        rc = base_err_set(err, BASE_EPARSE,
                          "pieces profile: \"features\" is not a whole number 1..%d",
                          VIS_CLASSIFIER_MAX_FEATURES);
    else if (!cJSON_IsArray(heads) || (nh = cJSON_GetArraySize(heads)) < 1 ||
             nh > VIS_CLASSIFIER_MAX_HEADS)
        rc = base_err_set(err, BASE_EPARSE, "pieces profile: \"heads\" is not 1..%d heads",
                          VIS_CLASSIFIER_MAX_HEADS);
    if (rc == 0)
        for (int h = 0; h < nh && rc == 0; h++) {
            const cJSON *vals = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(heads, h),
                                                                 "values");
            sizes[h] = cJSON_IsArray(vals) ? cJSON_GetArraySize(vals) : 0;
            if (sizes[h] < 1 || sizes[h] > VIS_CLASSIFIER_MAX_VALUES)
                rc = base_err_set(err, BASE_EPARSE,
                                  "pieces profile: head %d: \"values\" is not 1..%d values", h,
                                  VIS_CLASSIFIER_MAX_VALUES);
        }
    if (rc == 0 && !(s = ps__alloc(nf, nh, sizes)))
        rc = base_err_set(err, BASE_ENOMEM, "out of memory for an enrolled set");
    for (int h = 0; rc == 0 && h < nh; h++)
        rc = ps__head_from(s, h, cJSON_GetArrayItem(heads, h), err);
    if (rc == 0) {
        for (const char *p = model->valuestring; *p; p++)
            if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
                rc = ps__bad(err, "\"model\" is not a sha256 of 64 lower-case hex digits");
    }
    if (rc == 0) {
        snprintf(s->digest, sizeof s->digest, "%s", model->valuestring);
        s->finished = 1;
        if (game && cap)
            snprintf(game, cap, "%s", g->valuestring);
        *out = s;
    } else {
        vis_pieceset_free(s);
    }
    cJSON_Delete(root);
    return rc;
}
