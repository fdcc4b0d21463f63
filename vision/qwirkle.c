/* vision/qwirkle.c: the Qwirkle Cubes recogniser (see qwirkle.h), stage
 * after stage (docs/vision.md; the stages' files are listed in
 * qwirkleInt.h).
 *
 * A cube's top face is a dark square with one coloured symbol at its
 * centre, so the symbols are what is looked for: saturated blobs with dark
 * body around them (qwirkle_find.c).  From the blobs: the grid the cubes
 * lie on (qwirkle_grid.c); the side faces a tilted camera sees beside the
 * tops, dropped; then each top face is cut as an upright patch on the
 * plane of the top faces (vision/patch.h) and the learned classifier
 * (vision/classify.h, the built-in models/qwirkle.onnx) gives a
 * probability for each shape and each colour.  The look of a cube is
 * learned from many simulated designs, not written here.  The cubes'
 * readings are remembered over frames, and the rules' lines break near
 * ties.  A hand or arm shows as a large region unlike the table that
 * crosses the edge of the play area. */
#include "qwirkleInt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

vis_qwirkle_profile vis_qwirkle_default_profile(void)
{
    /* Hues of typical printed/dyed colours on the cubes. */
    vis_qwirkle_profile p = {{0, 12, 27, 65, 112, 140}, {220, 230, 220, 200, 210, 180}};
    return p;
}

void vis_qwirkle_set_profile(vis_qwirkle *q, const vis_qwirkle_profile *profile)
{
    q->prof = profile ? *profile : vis_qwirkle_default_profile();
    q->learnt = profile != NULL;
}

/* ---- life cycle ---- */

/* A Qwirkle model has two heads, shape and color, with the rules' values
 * in the rules' order (what vis_qwirkle_read indexes by). */
static int vis__qw_check_model(const vis_classifier *c, const char *name, base_err *err)
{
    static const char *const heads[2] = {"shape", "color"};
    static const char *const values[2][6] = {
        {"circle", "square", "diamond", "clover", "star4", "star8"},
        {"red", "orange", "yellow", "green", "blue", "purple"}};
    if (vis_classifier_nheads(c) != 2)
        return base_err_set(err, BASE_EPARSE, "model %s has %d heads (a qwirkle model has 2: "
                            "shape and color)", name, vis_classifier_nheads(c));
    for (int h = 0; h < 2; h++) {
        if (strcmp(vis_classifier_head_name(c, h), heads[h]) != 0 ||
            vis_classifier_head_size(c, h) != 6)
            return base_err_set(err, BASE_EPARSE,
                                "model %s: head %d is '%s' with %d values (expected '%s' with 6)",
                                name, h, vis_classifier_head_name(c, h),
                                vis_classifier_head_size(c, h), heads[h]);
        for (int v = 0; v < 6; v++)
            if (strcmp(vis_classifier_value_name(c, h, v), values[h][v]) != 0)
                return base_err_set(err, BASE_EPARSE,
                                    "model %s: %s value %d is '%s' (expected '%s')", name,
                                    heads[h], v, vis_classifier_value_name(c, h, v),
                                    values[h][v]);
    }
    return 0;
}

int vis_qwirkle_new(double cube_mm, const vis_qwirkle_profile *profile, vis_qwirkle **out,
                    base_err *err)
{
    vis_qwirkle *q;
    if (!(cube_mm >= 5 && cube_mm <= 100))
        return base_err_set(err, BASE_ERANGE, "cube size %g mm: expected 5 to 100", cube_mm);
    if (!(q = calloc(1, sizeof *q)))
        return base_err_set(err, BASE_ENOMEM, "out of memory");
    q->cube_mm = cube_mm;
    vis_qwirkle_set_profile(q, profile);
    if (!(q->blobs = malloc(sizeof *q->blobs * QW__MAXBLOBS)) ||
        !(q->patch = malloc(sizeof *q->patch))) {
        free(q->patch);
        free(q->blobs);
        free(q);
        return base_err_set(err, BASE_ENOMEM, "out of memory");
    }
    {
        vis_classifier *c = NULL;
        int rc = vis_classifier_builtin("qwirkle", &c, err);
        if (rc == 0 && (rc = vis__qw_check_model(c, "the built-in qwirkle model", err)) == 0) {
            q->model = c;
        } else {
            vis_classifier_free(c);
            vis_qwirkle_free(q);
            return rc;
        }
    }
    *out = q;
    return 0;
}

int vis_qwirkle_use_model(vis_qwirkle *q, const char *onnx_path, base_err *err)
{
    vis_classifier *c = NULL;
    int rc;
    if (!q || !onnx_path)
        return base_err_set(err, BASE_EINVAL, "vis_qwirkle_use_model: bad argument");
    if ((rc = vis_classifier_new(onnx_path, &c, err)) != 0)
        return rc;
    if ((rc = vis__qw_check_model(c, onnx_path, err)) != 0) {
        vis_classifier_free(c);
        return rc;
    }
    vis_classifier_free(q->model);
    q->model = c;
    /* features are the model's own: a set enrolled with the old one, and
     * the scratch sized for it, no longer apply */
    q->pieces = NULL;
    free(q->feats);
    free(q->pfeat);
    q->feats = q->pfeat = NULL;
    return 0;
}

const vis_classifier *vis_qwirkle_model(const vis_qwirkle *q) { return q ? q->model : NULL; }

int vis_qwirkle_use_pieces(vis_qwirkle *q, const vis_pieceset *set, base_err *err)
{
    int rc;
    if (!q)
        return base_err_set(err, BASE_EINVAL, "vis_qwirkle_use_pieces: NULL reader");
    if (set && (rc = vis_pieceset_check(set, q->model, err)) != 0)
        return rc;
    q->pieces = set;
    return 0;
}

static void vis__qw_release(vis_qwirkle *q)
{
    free(q->val);
    free(q->cls);
    free(q->rgb);
    free(q->lab);
    free(q->stack);
    q->val = q->cls = NULL;
    q->rgb = NULL;
    q->lab = q->stack = NULL;
    q->cap = 0;
}

void vis_qwirkle_free(vis_qwirkle *q)
{
    if (!q)
        return;
    vis__qw_release(q);
    free(q->blobs);
    free(q->tmpl);
    free(q->atmpl);
    free(q->patch);
    vis_classifier_free(q->model);
    free(q->feats);
    free(q->pfeat);
    free(q);
}

int vis__qw_reserve(vis_qwirkle *q, int w, int h)
{
    size_t n = (size_t)w * (size_t)h, ni = (size_t)(w + 1) * (size_t)(h + 1);
    if (ni <= q->cap)
        return 0;
    vis__qw_release(q);
    q->val = malloc(ni);
    q->cls = malloc(ni);
    q->rgb = malloc(sizeof *q->rgb * 3 * ni);
    q->lab = malloc(sizeof *q->lab * ni);
    q->stack = malloc(sizeof *q->stack * ni * QW__LISTS);
    if (!q->val || !q->cls || !q->rgb || !q->lab || !q->stack) {
        vis__qw_release(q);
        return BASE_ENOMEM;
    }
    (void)n;
    q->cap = ni;
    return 0;
}

/* The cubes of a board stay where they are laid, and the camera sees
 * each of them in frame after frame: where one frame's close call between
 * two shapes goes wrong (the sensor's noise, a JPEG block rounded the
 * other way), other frames read the same cube right, and more surely.
 * Each cube read is remembered by where its face lies on the table and
 * its colour, with each shape's weight of evidence: the log-odds of the
 * confs it was read with (a read at conf 0.5 or less is no evidence for
 * its shape), the older ones fading by QW__MEM_FADE a frame.  A read less
 * sure than QW__MEM_SURE takes another shape when the remembered evidence
 * for it is at least QW__MEM_MIN (a read at conf 0.73 or more, or several
 * weaker ones) and beats the remembered evidence for its own shape plus
 * its own vote; its conf is then no more than the frame's doubt in its
 * own call (1 - conf) nor the evidence's odds, and its runner-up is the
 * frame's own call.  What the frame itself read is what is remembered
 * (the memory's choice would vote for itself), and nothing is while a
 * hand is over the board (it hides part of a symbol).  A cube of another
 * colour at the place starts afresh, and a remembered cube the frame does
 * not read is forgotten (vis__forget): a cube taken back and another laid
 * there is judged on its own.
 * A sure read is overruled too when the frame itself all but ties the two
 * shapes (the remembered one's probability within QW__MEM_TIE of the
 * read one's; all: the frame's six shape probabilities): a near tie is no
 * sure call.  The old shape then holds for a few frames at conf 1 - the
 * frame's own (the referee asks).  QW__MEM_TIE is the line rule's near
 * tie (QW__LINE_GAP). */
#define QW__MEM_FADE 0.8
#define QW__MEM_SURE 0.9
#define QW__MEM_MIN 1.0
#define QW__MEM_TIE 0.03
void vis__qw_remember(vis_qwirkle *q, vis_piece *pc, const double all[6])
{
    const double v = vis__vote(pc->conf);
    double wm[6];
    int at = vis__recall_near(q->mem, q->nmem, sizeof *q->mem, pc->x_mm, pc->y_mm,
                              0.3 * q->cube_mm);
    vis__qw_mem *m = at >= 0 ? &q->mem[at] : NULL;
    int best = pc->shape;
    if (!m) {
        if (q->nmem >= QW__NMEM)
            return;
        m = &q->mem[q->nmem++];
        m->color = -1;
    }
    if (m->color != pc->color)
        for (int s = 0; s < 6; s++)
            m->w[s] = 0;
    m->at.x = pc->x_mm;
    m->at.y = pc->y_mm;
    m->color = pc->color;
    m->at.seen = true;
    for (int s = 0; s < 6; s++)
        wm[s] = QW__MEM_FADE * m->w[s];
    for (int s = 0; s < 6; s++)
        if (wm[s] >= QW__MEM_MIN && wm[s] > wm[pc->shape] + v &&
            (best == pc->shape || wm[s] > wm[best]))
            best = s;
    if (!q->hand) {
        for (int s = 0; s < 6; s++)
            m->w[s] = (float)wm[s];
        m->w[pc->shape] += (float)v;
    }
    if (best != pc->shape &&
        (pc->conf < QW__MEM_SURE || all[pc->shape] - all[best] < QW__MEM_TIE)) {
        pc->shape2 = pc->shape;
        pc->shape = best;
        pc->shape_p2 = 0; /* (the memory's choice: the frame's odds are not its) */
        pc->conf = (float)vis__recall_conf(true, pc->conf, wm[best] - wm[pc->shape2] - v);
    }
}


/* ---- the rules as a prior on close calls ----
 *
 * Every line of a Qwirkle board (a maximal run of two or more cubes in a
 * row or a column) is one colour with distinct shapes, or one shape with
 * distinct colours.  A soft coarse camera's close call between two
 * shapes often breaks its line (a red line read with two star8s, one of
 * them a star4 whose score was all but the star8's), and the line then
 * says which way the tie goes.  Recognition still reports what it sees:
 * only near ties are turned (a shape whose probability is within
 * QW__LINE_GAP of the cube's best, on a cube read at conf below
 * QW__LINE_CONF), and only when
 * that mends more broken lines than it turns cubes (each broken line
 * counts 1.5, each turned cube 1: one cube may mend its line, two may
 * not mend one line together, which would be a guess); a cube read
 * surely stays as read, so an illegal placement is seen by the referee.
 * Among the choices that do as well, the least probability given up wins.
 * The frame's own call becomes the runner-up (shape2); conf is left as
 * it was (below QW__LINE_CONF, so the referee still checks it). */
#define QW__LINE_VARS 6 /* unsure cubes searched jointly */

/* Whether the cubes idx[0..n-1] (shapes from shp) make a legal line. */
static bool vis__qw_line_ok(const vis_piece *pc, const int *shp, const int *idx, int n)
{
    bool same_c = true, same_s = true, dist_c = true, dist_s = true;
    if (n > 6)
        return false;
    for (int i = 1; i < n; i++)
        for (int j = 0; j < i; j++) {
            const int a = idx[i], b = idx[j];
            if (pc[a].color != pc[b].color)
                same_c = false;
            else
                dist_c = false;
            if (shp[a] != shp[b])
                same_s = false;
            else
                dist_s = false;
        }
    return (same_c && dist_s) || (same_s && dist_c);
}

/* The piece read in cell (gx, gy), -1 when none (or unreadable). */
static int vis__qw_piece_in(const vis_reading *out, int gx, int gy)
{
    for (int j = 0; j < out->npieces; j++)
        if (out->pieces[j].gx == gx && out->pieces[j].gy == gy && out->pieces[j].shape >= 0 &&
            out->pieces[j].color >= 0)
            return j;
    return -1;
}

/* The search of vis__qw_lines: every choice of the unsure cubes' options
 * (the cube var[u] takes opt[u][pick[u]], 0 its shape as read), scored 3
 * a broken line and 2 a turned cube, then by the score given up; the
 * first best in the order of a count with var[0] fastest.  Depth first
 * from the last cube, a branch already scored worse than the best is
 * left (the scores only grow down a branch): all six shapes within the
 * gap on six cubes would be 6^6 choices. */
typedef struct vis__qw_lsearch {
    const vis_piece *pc;
    int *shp;
    const double (*score)[6];
    const int *lstart, *lmem, *var, *nopt;
    const int (*opt)[6];
    const double *top;
    int *pick, *best;
    int lon[2 * VIS_MAX_PIECES], low[2 * VIS_MAX_PIECES], non; /* lines through them, last cube */
    int viol0, bj;
    double bcost;
} vis__qw_lsearch;

static void vis__qw_line_search(vis__qw_lsearch *s, int u, int turned, int viol, double cost)
{
    for (int p = 0; p < s->nopt[u]; p++) {
        const int i = s->var[u];
        int v = viol, j;
        double c = cost + s->top[u] - s->score[i][s->opt[u][p]];
        s->shp[i] = s->opt[u][p];
        s->pick[u] = p;
        for (int k = 0; k < s->non; k++)
            if (s->low[k] == u) {
                const int l = s->lon[k];
                v += !vis__qw_line_ok(s->pc, s->shp, s->lmem + s->lstart[l],
                                  s->lstart[l + 1] - s->lstart[l]);
            }
        j = 2 * (turned + (p != 0)) + 3 * v;
        if (j > s->bj || (j == s->bj && c >= s->bcost))
            continue;
        if (u > 0) {
            vis__qw_line_search(s, u - 1, turned + (p != 0), v, c);
        } else if (j < s->bj || v < s->viol0) {
            s->bj = j;
            s->bcost = c;
            memcpy(s->best, s->pick, sizeof *s->pick * QW__LINE_VARS);
        }
    }
    s->shp[s->var[u]] = s->opt[u][0];
}

/* The line rule as a prior on the near ties of out's pieces; score[i]:
 * piece i's six shape probabilities (the classifier's). */
void vis__qw_lines(vis_reading *out, const double (*score)[6])
{
    enum { MAXL = 2 * VIS_MAX_PIECES };
    const int n = out->npieces;
    vis_piece *pc = out->pieces;
    int lstart[MAXL + 1], lmem[2 * VIS_MAX_PIECES], nl = 0, nm = 0, viol0 = 0, nv = 0;
    int shp[VIS_MAX_PIECES], var[QW__LINE_VARS], opt[QW__LINE_VARS][6], nopt[QW__LINE_VARS];
    int pick[QW__LINE_VARS] = {0}, best[QW__LINE_VARS] = {0};
    int fixed = 0; /* broken lines through none of them */
    double top[QW__LINE_VARS];
    vis__qw_lsearch ls = {0};
    bool broken[VIS_MAX_PIECES] = {false};
    for (int i = 0; i < n; i++)
        shp[i] = pc[i].shape;
    /* the lines: runs along x (d = 0) and along y (d = 1), from each
     * run's first cube */
    for (int d = 0; d < 2; d++)
        for (int i = 0; i < n; i++) {
            const int dx = d == 0, dy = d == 1;
            int len = 0, at;
            if (pc[i].shape < 0 || pc[i].color < 0 ||
                vis__qw_piece_in(out, pc[i].gx - dx, pc[i].gy - dy) >= 0)
                continue;
            while ((at = vis__qw_piece_in(out, pc[i].gx + len * dx, pc[i].gy + len * dy)) >= 0)
                lmem[nm + len++] = at;
            if (len >= 2) {
                lstart[nl++] = nm;
                nm += len;
            }
        }
    lstart[nl] = nm;
    for (int l = 0; l < nl; l++)
        if (!vis__qw_line_ok(pc, shp, lmem + lstart[l], lstart[l + 1] - lstart[l])) {
            viol0++;
            for (int k = lstart[l]; k < lstart[l + 1]; k++)
                broken[lmem[k]] = true;
        }
    if (viol0 == 0)
        return;
    /* the unsure cubes on broken lines with near ties, the least sure
     * kept when there are more */
    for (int i = 0; i < n; i++) {
        double t = -2;
        int o[6] = {pc[i].shape}, no = 1, k;
        if (!broken[i] || !(pc[i].conf < QW__LINE_CONF))
            continue;
        for (int s = 0; s < 6; s++)
            t = fmax(t, score[i][s]);
        /* the near ties best first: in the shapes' order, three lesser
         * ones could leave out the frame's own best, which the memory
         * may have overruled (sim seed 700010: a clover the memory took
         * for a star8 was turned to a circle, not back) */
        while (no < 6) {
            int s1 = -1;
            for (int s = 0; s < 6; s++) {
                bool in = false;
                for (int u = 0; u < no; u++)
                    in = in || o[u] == s;
                if (!in && score[i][s] > -2 && t - score[i][s] <= QW__LINE_GAP &&
                    (s1 < 0 || score[i][s] > score[i][s1]))
                    s1 = s;
            }
            if (s1 < 0)
                break;
            o[no++] = s1;
        }
        if (no < 2)
            continue;
        k = nv;
        if (nv == QW__LINE_VARS) {
            k = 0;
            for (int j = 1; j < nv; j++)
                if (pc[var[j]].conf > pc[var[k]].conf)
                    k = j;
            if (!(pc[i].conf < pc[var[k]].conf))
                continue;
        } else {
            nv++;
        }
        var[k] = i;
        nopt[k] = no;
        top[k] = t;
        memcpy(opt[k], o, sizeof o);
    }
    if (nv == 0)
        return;
    /* the lines through those cubes (the others stay as they are), each
     * judged once its last cube (the lowest index: the search below
     * chooses from the highest) has its shape */
    for (int l = 0; l < nl; l++) {
        int low = -1;
        for (int k = lstart[l]; k < lstart[l + 1]; k++)
            for (int u = 0; u < nv; u++)
                if (lmem[k] == var[u] && (low < 0 || u < low))
                    low = u;
        if (low >= 0) {
            ls.lon[ls.non] = l;
            ls.low[ls.non++] = low;
        } else {
            fixed += !vis__qw_line_ok(pc, shp, lmem + lstart[l], lstart[l + 1] - lstart[l]);
        }
    }
    ls.pc = pc;
    ls.shp = shp;
    ls.score = score;
    ls.lstart = lstart;
    ls.lmem = lmem;
    ls.var = var;
    ls.opt = opt;
    ls.nopt = nopt;
    ls.top = top;
    ls.pick = pick;
    ls.best = best;
    ls.viol0 = viol0;
    ls.bj = 3 * viol0;
    ls.bcost = 0;
    vis__qw_line_search(&ls, nv - 1, 0, fixed, 0);
    for (int u = 0; u < nv; u++)
        if (best[u] != 0) {
            vis_piece *p = &pc[var[u]];
            p->shape2 = p->shape;
            p->shape = opt[u][best[u]];
        }
}

/* Cuts the faces of bl[idx[0..n)] (upright in the grid's axes, turned by
 * angle) and classifies them into q->probs.  The patches come from the
 * camera frame when the view has it (what the model was trained on: one
 * resampling), else from the view itself. */
static int vis__qw_read_patches(vis_qwirkle *q, const vis_image *top, const vis_view *vw,
                            const vis__qw_blob *bl, const int *idx, int n, double angle,
                            base_err *err)
{
    const int size = vis_classifier_patch_size(q->model);
    const vis_image *src = top;
    vis_image *img[VIS_MAX_PIECES] = {NULL};
    vis_homography hm = vis_homography_identity();
    int rc = 0;
    if (vw->frame) {
        src = vw->frame;
        hm = vw->frame_h;
    } else {
        /* view pixel (u, v) shows table point ((u + 0.5) / ppm + x0, ...) */
        double x0, y0;
        vis__qw_origin(vw, &x0, &y0);
        hm.m[0] = vw->px_per_mm;
        hm.m[2] = -x0 * vw->px_per_mm - 0.5;
        hm.m[4] = vw->px_per_mm;
        hm.m[5] = -y0 * vw->px_per_mm - 0.5;
    }
    for (int k = 0; k < n && rc == 0; k++) {
        vis_patch_at at = {bl[idx[k]].x, bl[idx[k]].y, angle * 180 / QW__PI, QW__PATCH_MM, 0};
        if ((rc = vis_patch_cut(src, hm, &at, size, &img[k], err)) != 0)
            base_err_prefix(err, "cutting a cube's face: ");
    }
    if (rc == 0 && (q->pieces || q->want_feats)) {
        /* the features too, for the enrolled set to judge or to keep */
        size_t nf = (size_t)vis_classifier_nfeatures(q->model);
        if (!q->feats && (!(q->feats = malloc(VIS_MAX_PIECES * nf * sizeof *q->feats)) ||
                          !(q->pfeat = malloc(VIS_MAX_PIECES * nf * sizeof *q->pfeat)))) {
            free(q->feats);
            q->feats = NULL;
            rc = base_err_set(err, BASE_ENOMEM, "out of memory");
        }
        if (rc == 0)
            rc = vis_classifier_run_features(q->model, (const vis_image *const *)img, n,
                                             q->probs, q->feats, err);
    } else if (rc == 0) {
        rc = vis_classifier_run(q->model, (const vis_image *const *)img, n, q->probs, err);
    }
    for (int k = 0; k < n; k++)
        vis_image_free(img[k]);
    return rc;
}

/* Reads the cubes among bl[0..nb) that the grid (out's pitch and phase,
 * turned by angle) puts on the play area: each face classified, with
 * every cube of the frame in one pass, into out's pieces and pscore (each
 * piece's six shape probabilities), and remembered. */
static int vis__qw_read_cubes(vis_qwirkle *q, const vis_image *top, const vis_view *vw,
                              const vis__qw_blob *bl, int nb, double angle, vis_reading *out,
                              double (*pscore)[6], base_err *err)
{
    const double ca = cos(angle), sa = sin(angle), pitch = out->pitch_mm;
    int idx[VIS_MAX_PIECES], n = 0, rc;
    double cx[VIS_MAX_PIECES], cy[VIS_MAX_PIECES];
    for (int i = 0; i < nb && n < VIS_MAX_PIECES; i++) {
        const vis__qw_blob *b = &bl[i];
        double cu, cv;
        if (!b->cand || b->fake)
            continue;
        cu = (b->ku + 0.5) * pitch + out->phase_x_mm;
        cv = (b->kv + 0.5) * pitch + out->phase_y_mm;
        cx[n] = cu * ca - cv * sa;
        cy[n] = cu * sa + cv * ca;
        if (cx[n] < 0 || cy[n] < 0 || cx[n] > vw->mat_w || cy[n] > vw->mat_h ||
            vis__qw_in_marker(vw, cx[n], cy[n]))
            continue;
        idx[n++] = i;
    }
    if (n > 0 && (rc = vis__qw_read_patches(q, top, vw, bl, idx, n, angle, err)) != 0)
        return rc;
    for (int k = 0; k < n; k++) {
        const vis__qw_blob *b = &bl[idx[k]];
        float *ps = q->probs + (size_t)k * 12, *pcol = ps + 6;
        double hue, sat, val, all[6];
        int shp, shp2, col, col2;
        vis_piece *pc;
        memcpy(q->praw + (size_t)out->npieces * 12, ps, 12 * sizeof *ps);
        if (q->feats) {
            size_t nf = (size_t)vis_classifier_nfeatures(q->model);
            memcpy(q->pfeat + out->npieces * nf, q->feats + k * nf, nf * sizeof *q->feats);
            /* the enrolled set's opinion, multiplied in (vision/pieceset.h) */
            if (q->pieces)
                vis_pieceset_apply(q->pieces, q->feats + k * nf, ps);
        }
        vis_classifier_best(ps, 6, &shp, &shp2);
        vis_classifier_best(pcol, 6, &col, &col2);
        for (int v = 0; v < 6; v++)
            all[v] = ps[v];
        vis__qw_hsv(b->sb / b->sw, b->sg / b->sw, b->sr / b->sw, &hue, &sat, &val);
        if (q->learnt) {
            /* the colours learnt from this set under this light (calibrate
             * colors) name the colour, the nearest hue first; the
             * classifier's probability of that colour says how sure it
             * is, so a cube the two disagree on is read unsurely */
            float near[6];
            for (int v = 0; v < 6; v++)
                near[v] = (float)-vis__qw_hue_dist(hue, q->prof.hue[v]);
            vis_classifier_best(near, 6, &col, &col2);
        }
        memcpy(pscore[out->npieces], all, sizeof all);
        pc = &out->pieces[out->npieces++];
        pc->gx = b->ku;
        pc->gy = b->kv;
        pc->color = col;
        pc->shape = shp;
        pc->color2 = col2;
        pc->shape2 = shp2;
        pc->x_mm = cx[k];
        pc->y_mm = cy[k];
        pc->hue = (float)hue;
        pc->sat = (float)sat;
        pc->color_conf = pcol[col];
        pc->shape_conf = ps[shp];
        pc->color_p2 = col2 >= 0 ? pcol[col2] : 0;
        pc->shape_p2 = shp2 >= 0 ? ps[shp2] : 0;
        /* the classifier's own probability that both are right, times how
         * sure the side test was that this is a top and not a side face
         * (sim seed 900034: a side taken for a top on a near tie) */
        pc->conf = b->ptop * ps[shp] * pcol[col];
        vis__qw_remember(q, pc, all);
    }
    return 0;
}

int vis_qwirkle_read(vis_qwirkle *q, const vis_image *top, const vis_view *vw, vis_reading *out,
                     base_err *err)
{
    const int w = top ? top->width : 0, h = top ? top->height : 0;
    const double ppm = vw ? vw->px_per_mm : 0;
    const double cube = q ? q->cube_mm : 0;
    double angle = 0, pitch = cube, phu = 0, phv = 0, ca, sa, x0, y0;
    int dark, nb, rc, sig = 2, body_lim;
    double body_w, table_bgr[3] = {0}, table_spread[3] = {0};
    bool has_table;
    vis__qw_blob *bl;
    vis__qw_patch *patch = q ? q->patch : NULL;
    double pscore[VIS_MAX_PIECES][6]; /* each piece's six shape probabilities */
    /* blobs of the table's colour, then tinted ones (vis__qw_table_symbols) */
    vis__qw_blob tab[QW__TABSYM], tint[QW__TABSYM];
    int ntab = 0, ntint = 0;

    if (!q || !top || !vw || !out || top->channels != 3 || !(ppm > 0))
        return base_err_set(err, BASE_EINVAL, "vis_qwirkle_read: bad argument");
    memset(out, 0, sizeof *out);
    out->pitch_mm = cube;
    if ((rc = vis__qw_begin(q, top, vw, &x0, &y0, &dark, err)) != 0)
        return rc;
    if ((rc = vis__qw_templates(q)) != 0)
        return base_err_set(err, rc, "out of memory");
    q->cur = q->tmpl;
    q->aratio = 1;
    q->adir = 0;
    nb = vis__qw_blobs(q, vw, w, h, &dark, 0.45f, tint, &ntint, QW__TABSYM);
    bl = q->blobs;
    body_w = vis__qw_body_contrast(q, vw, w, h, bl, nb, &body_lim);
    has_table = vis__qw_table_colour(q, vw, w, h, table_bgr, table_spread);
    if (has_table) {
        /* The table seen between cubes, or in their shade, is no symbol.
         * On wood (a wide spread) the grain moves the colour along a line
         * of its own, and a brown table under less light is the colour of
         * a dim orange symbol (sim seed 900001: a blurred orange star4 was
         * dropped), so there the colour line is held tighter
         * (vis__qw_table_shade's grained). */
        /* On a grey table the tolerance is the blob's own level (a dim
         * symbol there is a dim saturated patch), and the edge of a cube's
         * shadow, where JPEG's half-resolution chroma pulls the table's
         * colour toward the symbols' beside it, falls outside it (sim seed
         * 300011: the penumbra beside a red cube 9.0 levels off the pale
         * table's line against a tolerance of 7.8, read as a yellow
         * diamond).  A blob within twice the tolerance is the table still
         * when no body rings it: some way out from it the view does not
         * dip below 0.8 of its peak (vis__qw_ring, as for the dim symbols): a
         * shadow's edge has the lit table on one side, a symbol its black
         * body all round. */
        const bool neutral = vis__qw_neutral_table(table_bgr);
        double lvl = (table_bgr[0] + table_bgr[1] + table_bgr[2]) / 3,
               spr = (table_spread[0] + table_spread[1] + table_spread[2]) / 3;
        int k = 0;
        for (int i = 0; i < nb; i++)
            if (!vis__qw_table_shade(&bl[i], table_bgr, table_spread, spr > 0.05 * lvl + 2, 1) &&
                !(neutral &&
                  vis__qw_table_shade(&bl[i], table_bgr, table_spread, spr > 0.05 * lvl + 2, 2) &&
                  vis__qw_ring_at(q, vw, w, h, &bl[i]) >= 0.8))
                bl[k++] = bl[i];
            else if (ntab < QW__TABSYM)
                tab[ntab++] = bl[i];
        nb = k;
    }
    for (int i = 0; i < ntint && ntab < QW__TABSYM; i++)
        tab[ntab++] = tint[i];
    if (nb == 0) {
        out->grid_angle_deg = q->have_angle ? q->last_angle * 180 / QW__PI : 0;
        return 0;
    }
    vis__qw_grid(q, bl, nb, ppm, &angle, &pitch, &phu, &phv);
    out->grid_angle_deg = angle * 180 / QW__PI;
    if (vw->has_cam && vw->cam_mm[2] > cube + 1) {
        /* the camera's foreshortening at the board's middle (see vis__qw_aniso) */
        double mx = 0, my = 0, hz = vw->cam_mm[2] - cube, rho;
        for (int i = 0; i < nb; i++) {
            mx += bl[i].x / nb;
            my += bl[i].y / nb;
        }
        rho = hypot(mx - vw->cam_mm[0], my - vw->cam_mm[1]);
        if ((rc = vis__qw_aniso(q, hypot(rho, hz) / hz,
                            atan2(my - vw->cam_mm[1], mx - vw->cam_mm[0]) - angle)) != 0)
            return base_err_set(err, rc, "out of memory");
    }
    out->pitch_mm = pitch;
    out->phase_x_mm = phu;
    out->phase_y_mm = phv;
    ca = cos(angle);
    sa = sin(angle);

    /* Cells: the blob nearest each cell centre, if near enough. */
    for (int i = 0; i < nb; i++) {
        double fu = (bl[i].u - phu) / pitch - 0.5, fv = (bl[i].v - phv) / pitch - 0.5;
        bl[i].ku = (int)floor(fu + 0.5);
        bl[i].kv = (int)floor(fv + 0.5);
        bl[i].res = pitch * sqrt((fu - bl[i].ku) * (fu - bl[i].ku) + (fv - bl[i].kv) * (fv - bl[i].kv));
        bl[i].cand = bl[i].res < 0.3 * cube;
        bl[i].fake = false;
        bl[i].ptop = 1;
    }
    for (int i = 0; i < nb; i++)
        for (int j = 0; j < nb && bl[i].cand; j++)
            if (j != i && bl[j].cand && bl[j].ku == bl[i].ku && bl[j].kv == bl[i].kv &&
                (bl[j].res < bl[i].res || (bl[j].res == bl[i].res && j < i)))
                bl[i].cand = false;
    /* A board laid by hand drifts off any one lattice: over several cells
     * the cubes' small misplacements (and a lens's distortion) add up to
     * more than the 6 mm the global grid allows (sim seed 900002, tilted
     * 40 degrees: two cubes at the board's far end dropped on 4 of 10
     * frames).  A blob off the grid but a whole step from a cube already
     * placed, within 0.25 cube of it, takes the cell that step leads to,
     * if it is free or held by a dimmer blob (repeated, so a drifting row
     * is followed).  0.25, not 0.2: a cube slides along its neighbour's
     * edge, and glare over part of a symbol moves its centroid (sim seed
     * 700013: 4.9 mm off, a cube dropped on 4 frames); 0.3 lets side faces
     * in (900038). */
    for (int pass = 0; pass < 3; pass++) {
        bool any = false;
        for (int i = 0; i < nb; i++) {
            int best = -1, su = 0, sv = 0;
            double bres = 0.25 * cube;
            if (bl[i].cand || bl[i].res >= 0.5 * cube)
                continue;
            for (int j = 0; j < nb; j++) {
                double du, dv, r;
                int ku, kv;
                if (j == i || !bl[j].cand)
                    continue;
                du = bl[i].u - bl[j].u;
                dv = bl[i].v - bl[j].v;
                ku = (int)floor(du / pitch + 0.5);
                kv = (int)floor(dv / pitch + 0.5);
                if (abs(ku) + abs(kv) != 1)
                    continue;
                r = hypot(du - ku * pitch, dv - kv * pitch);
                if (r < bres) {
                    bres = r;
                    best = j;
                    su = ku;
                    sv = kv;
                }
            }
            if (best < 0)
                continue;
            {
                int ku = bl[best].ku + su, kv = bl[best].kv + sv;
                int taken = -1;
                for (int j = 0; j < nb && taken < 0; j++)
                    if (bl[j].cand && bl[j].ku == ku && bl[j].kv == kv)
                        taken = j;
                /* taken by a blob of less than half the light: a side
                 * face's symbol or a fragment nearer the cell's centre
                 * than the cube's own symbol (sim seed 700002: a side 4
                 * mm from it, the symbol 7 mm; the cube was read from the
                 * side's patch) */
                if (taken >= 0 && !(bl[taken].sw < 0.5 * bl[i].sw))
                    continue;
                if (taken >= 0)
                    bl[taken].cand = false;
                bl[i].ku = ku;
                bl[i].kv = kv;
                bl[i].res = bres;
                bl[i].cand = true;
                any = true;
            }
        }
        if (!any)
            break;
    }

    nb = vis__qw_table_symbols(q, vw, w, h, bl, nb, tab, ntab, angle, pitch, phu, phv);

    /* Side faces, from the cubes farthest from the camera inward. */
    if (vw->has_cam) {
        int order[QW__MAXBLOBS], no = 0;
        double dist[QW__MAXBLOBS];
        for (int i = 0; i < nb; i++)
            if (bl[i].cand) {
                double dx = bl[i].x - vw->cam_mm[0], dy = bl[i].y - vw->cam_mm[1];
                dist[i] = dx * dx + dy * dy;
                int k = no++;
                while (k > 0 && dist[order[k - 1]] < dist[i]) {
                    order[k] = order[k - 1];
                    k--;
                }
                order[k] = i;
            }
        for (int oi = 0; oi < no; oi++) {
            vis__qw_blob *b = &bl[order[oi]];
            static const int dirs[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
            for (int d = 0; d < 4 && !b->fake; d++) {
                int au = b->ku - dirs[d][0], av = b->kv - dirs[d][1], behind = -1;
                bool ahead = false;
                for (int j = 0; j < nb; j++) {
                    if (!bl[j].cand || bl[j].fake)
                        continue;
                    if (bl[j].ku == au && bl[j].kv == av)
                        behind = j;
                    ahead |= bl[j].ku == b->ku + dirs[d][0] && bl[j].kv == b->kv + dirs[d][1];
                }
                if (behind < 0)
                    continue;
                /* How dark the strip just beyond b's cell is (where b's own
                 * side would show if it were a cube). */
                double bd = 0;
                {
                    int cnt = 0, dk = 0;
                    double cu = (b->ku + 0.5) * pitch + phu, cv = (b->kv + 0.5) * pitch + phv;
                    for (double s = 0.55; s <= 0.8; s += 0.05)
                        for (double t = -0.3; t <= 0.3; t += 0.1) {
                            double uu = cu + (dirs[d][0] * s + dirs[d][1] * t) * cube;
                            double vv = cv + (dirs[d][1] * s + dirs[d][0] * t) * cube;
                            double tx = uu * ca - vv * sa, ty = uu * sa + vv * ca;
                            int x = (int)floor((tx - x0) * ppm), y = (int)floor((ty - y0) * ppm);
                            if (x < 0 || y < 0 || x >= w || y >= h)
                                continue;
                            cnt++;
                            dk += (q->cls[(size_t)y * w + x] & QW__DARK) != 0;
                        }
                    bd = cnt ? (double)dk / cnt : 0;
                    if (!cnt)
                        ahead = true;
                }
                {
                    double cu = (b->ku + 0.5) * pitch + phu, cv = (b->kv + 0.5) * pitch + phv;
                    double mg = 1e9;
                    if (vis__qw_is_side(q, vw, w, h, b, &bl[behind], ca, sa, cu * ca - cv * sa,
                                    cu * sa + cv * ca, dirs[d][0], dirs[d][1], body_lim, body_w,
                                    bd, !ahead, bl, nb, &mg))
                        b->fake = true;
                    else if (mg < 20)
                        b->ptop = (float)fmin(b->ptop, 1 / (1 + exp(-mg)));
                }
            }
        }
    }

    /* How blurred the symbols are: the blur whose templates the first few
     * cubes match best, judged on a smaller disc than the reading (0.34
     * of the cube, not 0.42): the light from beyond the face (see
     * vis__qw_clean) reaches the rim, and a wider blur fits it better there,
     * whatever the shape.  Cleaning each patch first was tried: the
     * blurred sides then fit best at the widest blur, and every frame of
     * a soft tilted camera chose 2.8 mm. */
    {
        double score[QW__NSIG] = {0};
        int used = 0;
        for (int i = 0; i < nb && used < 16; i++) {
            double best[6];
            if (!bl[i].cand || bl[i].fake)
                continue;
            vis__qw_patch_of(q, vw, w, h, &bl[i], 0.34, patch);
            if (patch->n < 12)
                continue;
            for (int k = 0; k < QW__NSIG; k++) {
                double m = -2;
                vis__qw_match(q, patch, k, angle, 0, best);
                for (int s = 0; s < 6; s++)
                    m = fmax(m, best[s]);
                score[k] += m;
            }
            used++;
        }
        for (int k = 1; k < QW__NSIG; k++)
            if (score[k] > score[sig])
                sig = k;
        if (used > 0) {
            out->blur_mm = vis__qw_sigmas[sig];
            q->last_blur = out->blur_mm;
        }
    }

    if ((rc = vis__qw_read_cubes(q, top, vw, bl, nb, angle, out, pscore, err)) != 0)
        return rc;
    q->nmem = vis__forget(q->mem, q->nmem, sizeof *q->mem, q->hand);
    /* the lines of the board break the near ties they can (vis__qw_lines);
     * the memory has kept each frame's own call */
    vis__qw_lines(out, (const double(*)[6])pscore);
    return 0;
}

/* ---- learning a profile ---- */

int vis_qwirkle_learn(vis_qwirkle *q, const vis_image *top, const vis_view *view,
                      vis_qwirkle_profile *out, base_err *err)
{
    vis_reading *r;
    double cen[6], sat[6];
    int assign[VIS_MAX_PIECES], cnt[6], rc;
    if (!q || !out)
        return base_err_set(err, BASE_EINVAL, "vis_qwirkle_learn: bad argument");
    if (!(r = malloc(sizeof *r)))
        return base_err_set(err, BASE_ENOMEM, "out of memory");
    if ((rc = vis_qwirkle_read(q, top, view, r, err)) != 0) {
        free(r);
        return rc;
    }
    if (r->npieces < 6) {
        int n = r->npieces;
        free(r);
        return base_err_set(err, BASE_ENOTFOUND,
                            "learning colours needs cubes of all six colours in view; %d cube%s "
                            "seen",
                            n, n == 1 ? "" : "s");
    }
    for (int k = 0; k < 6; k++)
        cen[k] = q->prof.hue[k];
    /* k-means on the hue circle, from the current profile. */
    for (int it = 0; it < 20; it++) {
        double sx[6] = {0}, sy[6] = {0}, ss[6] = {0};
        for (int k = 0; k < 6; k++)
            cnt[k] = 0;
        for (int i = 0; i < r->npieces; i++) {
            int bk = 0;
            for (int k = 1; k < 6; k++)
                if (vis__qw_hue_dist(r->pieces[i].hue, cen[k]) < vis__qw_hue_dist(r->pieces[i].hue, cen[bk]))
                    bk = k;
            assign[i] = bk;
            cnt[bk]++;
            sx[bk] += cos(r->pieces[i].hue * QW__PI / 90);
            sy[bk] += sin(r->pieces[i].hue * QW__PI / 90);
            ss[bk] += r->pieces[i].sat;
        }
        for (int k = 0; k < 6; k++)
            if (cnt[k]) {
                double a = atan2(sy[k], sx[k]) * 90 / QW__PI;
                cen[k] = a < 0 ? a + 180 : a;
                sat[k] = ss[k] / cnt[k];
            }
    }
    (void)assign;
    for (int k = 0; k < 6; k++)
        if (!cnt[k]) {
            free(r);
            return base_err_set(err, BASE_ENOTFOUND,
                                "learning colours needs all six colours in view; no cube looked "
                                "%s enough",
                                (const char *[]){"red", "orange", "yellow", "green", "blue",
                                                 "purple"}[k]);
        }
    /* The clusters must keep the colours' order around the circle. */
    for (int k = 0; k < 6; k++) {
        double a = cen[k], b = cen[(k + 1) % 6], d = b - a;
        if (d < 0)
            d += 180;
        if (d <= 0 || d >= 90) {
            free(r);
            return base_err_set(err, BASE_ENOTFOUND,
                                "the colours seen do not separate into six hues in order");
        }
    }
    for (int k = 0; k < 6; k++) {
        out->hue[k] = (float)cen[k];
        out->sat[k] = (float)sat[k];
    }
    free(r);
    return 0;
}

