/* vision/cubed.c: reading CUBED's tiles (vision/cubed.h): life cycle, the
 * learned classifier, the patches, a tile's parity and faces from its
 * edges. */
#include "cubed.h"
#include "patch.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The model's heads: what the cell shows, the parity, each edge's colour. */
#define CB__NCELL 3
#define CB__EMPTY 0
#define CB__TILE 1
#define CB__COVERED 2
#define CB__NCOLOR 8
#define CB__NHEADS 8 /* cell, parity, edge0 .. edge5 */
#define CB__NVALUES (CB__NCELL + 2 + 6 * CB__NCOLOR)

/* The tuning values, each with its reason. */
static const struct {
    float covered_min; /* a cell whose "covered" probability is above this is hidden: a hand
                          is over it, whatever else the patch shows */
    float tile_min;    /* a cell is read as a tile when "tile" is likelier than this: the
                          cell head's own even odds (its doubt is in the reading's conf) */
    float parity_sure; /* a tile's parity this sure tells the layout's; a triple's is the
                          layout's: without lines or shading between its rhombi it has
                          none that shows, and the head's guess at one is no reading */
} cb__rd = {
    .covered_min = 0.5f,
    .tile_min = 0.5f,
    .parity_sure = 0.9f,
};

struct vis_cubed {
    double pitch_mm;
    vis_classifier *model; /* NULL: no model built in */
    int size;              /* the model's patch side, px */
};

static const char *const cb__cell_names[CB__NCELL] = {"empty", "tile", "covered"};
static const char *const cb__colors[CB__NCOLOR] = {"red",  "orange", "yellow", "green",
                                                   "blue", "purple", "black",  "white"};

static int cb__check_model(const vis_classifier *c, const char *name, base_err *err)
{
    static const char *const heads[CB__NHEADS] = {"cell",  "parity", "edge0", "edge1",
                                                  "edge2", "edge3",  "edge4", "edge5"};
    if (vis_classifier_nheads(c) != CB__NHEADS)
        return base_err_set(err, BASE_EPARSE,
                            "model %s has %d heads (a cubed model has %d: cell, parity and "
                            "edge0 to edge5)",
                            name, vis_classifier_nheads(c), CB__NHEADS);
    for (int h = 0; h < CB__NHEADS; h++) {
        int size = h == 0 ? CB__NCELL : h == 1 ? 2 : CB__NCOLOR;
        if (strcmp(vis_classifier_head_name(c, h), heads[h]) != 0 ||
            vis_classifier_head_size(c, h) != size)
            return base_err_set(err, BASE_EPARSE,
                                "model %s: head %d is '%s' with %d values (expected '%s' with %d)",
                                name, h, vis_classifier_head_name(c, h),
                                vis_classifier_head_size(c, h), heads[h], size);
        for (int v = 0; v < size && h != 1; v++) {
            const char *want = h == 0 ? cb__cell_names[v] : cb__colors[v];
            if (strcmp(vis_classifier_value_name(c, h, v), want) != 0)
                return base_err_set(err, BASE_EPARSE,
                                    "model %s: %s value %d is '%s' (expected '%s')", name,
                                    heads[h], v, vis_classifier_value_name(c, h, v), want);
        }
    }
    return 0;
}

static int cb__take_model(vis_cubed *c, vis_classifier *m, const char *name, base_err *err)
{
    int rc = cb__check_model(m, name, err);
    if (rc != 0) {
        vis_classifier_free(m);
        return rc;
    }
    vis_classifier_free(c->model);
    c->model = m;
    c->size = vis_classifier_patch_size(m);
    return 0;
}

int vis_cubed_new(double pitch_mm, vis_cubed **out, base_err *err)
{
    vis_cubed *c;
    vis_classifier *m = NULL;
    int rc;
    *out = NULL;
    pitch_mm = pitch_mm > 0 ? pitch_mm : 40;
    if (!(pitch_mm >= 15 && pitch_mm <= 120))
        return base_err_set(err, BASE_ERANGE,
                            "cubed tiles %g mm across the flats: expected 15 to 120 mm", pitch_mm);
    if (!(c = calloc(1, sizeof *c)))
        return base_err_set(err, BASE_ENOMEM, "out of memory");
    c->pitch_mm = pitch_mm;
    rc = vis_classifier_builtin("cubed", &m, err);
    if (rc == 0)
        rc = cb__take_model(c, m, "the built-in cubed model", err);
    if (rc != 0 && rc != BASE_ENOTFOUND) {
        vis_cubed_free(c);
        return rc;
    }
    *out = c;
    return 0;
}

int vis_cubed_use_model(vis_cubed *c, const char *onnx_path, base_err *err)
{
    vis_classifier *m = NULL;
    int rc;
    if (!c || !onnx_path)
        return base_err_set(err, BASE_EINVAL, "vis_cubed_use_model: bad argument");
    if ((rc = vis_classifier_new(onnx_path, &m, err)) != 0)
        return rc;
    return cb__take_model(c, m, onnx_path, err);
}

void vis_cubed_free(vis_cubed *c)
{
    if (!c)
        return;
    vis_classifier_free(c->model);
    free(c);
}

double vis_cubed_pitch(const vis_cubed *c) { return c ? c->pitch_mm : 0; }

int vis_cubed_patch(const vis_image *frame, vis_homography top_to_img, const vis_cb_layout *l,
                    int q, int r, int sixths, int size, vis_image **out, base_err *err)
{
    vis_patch_at at;
    memset(&at, 0, sizeof at);
    vis_cubed_cell_mm(l, q, r, &at.x_mm, &at.y_mm);
    at.rot_deg = l->angle_deg + 60.0 * sixths;
    at.side_mm = VIS_CB_PATCH_MM * l->pitch_mm / 40.0;
    return vis_patch_cut(frame, top_to_img, &at, size, out, err);
}

void vis_cubed_edges(int parity, const int faces[3], int edge[6])
{
    for (int e = 0; e < 6; e++)
        edge[e] = faces[parity ? e / 2 : ((e + 1) % 6) / 2];
}

void vis_cubed_turn(int parity, const int faces[3], int sixths, int *parity_out, int faces_out[3])
{
    int edge[6], m = ((sixths % 6) + 6) % 6, p;
    vis_cubed_edges(parity, faces, edge);
    p = parity ^ (m & 1);
    for (int j = 0; j < 3; j++)
        faces_out[j] = edge[(2 * j + p + m) % 6];
    *parity_out = p;
}

/* The tile's reading from the edges' colour probabilities e[6][8] and the
 * parity head's ph[2] (cubed.h): parity p pairs edges (2j - 1 + p, 2j +
 * p) under face j.  force (0 or 1; -1: none) is the parity to read it
 * with, as sure. */
static void cb__tile(const float *ph, const float e[6][CB__NCOLOR], int force, vis_cb_read *t)
{
    double pp[2], face[2][3][CB__NCOLOR];
    for (int p = 0; p < 2; p++) {
        pp[p] = ph[p];
        for (int j = 0; j < 3; j++) {
            const float *a = e[(2 * j - 1 + p + 6) % 6], *b = e[(2 * j + p) % 6];
            double sum = 0;
            for (int k = 0; k < CB__NCOLOR; k++)
                sum += face[p][j][k] = (double)a[k] * b[k];
            pp[p] *= sum; /* how alike the pair is */
            for (int k = 0; k < CB__NCOLOR; k++)
                face[p][j][k] = sum > 0 ? face[p][j][k] / sum : 1.0 / CB__NCOLOR;
        }
    }
    {
        double tot = pp[0] + pp[1];
        int p = force >= 0 ? force : pp[1] > pp[0];
        t->parity = p;
        t->parity_conf = force >= 0 ? 1.f : (float)(tot > 0 ? pp[p] / tot : 0.5);
        t->conf = t->tile_conf * t->parity_conf;
        for (int j = 0; j < 3; j++) {
            float f[CB__NCOLOR];
            int best, second;
            for (int k = 0; k < CB__NCOLOR; k++)
                f[k] = (float)face[p][j][k];
            vis_classifier_best(f, CB__NCOLOR, &best, &second);
            t->faces[j] = best;
            t->face_conf[j] = f[best];
            t->face2[j] = second;
            t->face_p2[j] = second >= 0 ? f[second] : 0;
            t->conf *= f[best];
        }
    }
}

int vis_cubed_read(vis_cubed *c, const vis_image *frame, vis_homography top_to_img,
                   const vis_cb_layout *l, vis_cb_reading *out, base_err *err)
{
    vis_image **patches = NULL;
    float *probs = NULL;
    int n, rc = 0, nv, sure[2] = {0, 0};
    if (!c || !frame || !l || !out)
        return base_err_set(err, BASE_EINVAL, "vis_cubed_read: NULL argument");
    memset(out, 0, sizeof *out);
    out->layout = *l;
    if (!l->found || l->ntiles == 0)
        return 0;
    if (!c->model)
        return base_err_set(err, BASE_EUNSUPPORTED,
                            "vis_cubed_read: this build has no cubed model (models/cubed.onnx)");
    n = l->ntiles;
    nv = vis_classifier_nvalues(c->model);
    if (!(probs = malloc(sizeof *probs * (size_t)n * (size_t)nv)) ||
        !(patches = calloc((size_t)n, sizeof *patches)))
        rc = base_err_set(err, BASE_ENOMEM, "out of memory");
    for (int i = 0; rc == 0 && i < n; i++)
        rc = vis_cubed_patch(frame, top_to_img, l, l->tiles[i].q, l->tiles[i].r, 0, c->size,
                             &patches[i], err);
    if (rc == 0)
        rc = vis_classifier_run(c->model, (const vis_image *const *)patches, n, probs, err);
    for (int i = 0; rc == 0 && i < n; i++) {
        const float *pc = probs + (size_t)i * (size_t)nv, *ph = pc + CB__NCELL;
        float e[6][CB__NCOLOR];
        vis_cb_read *t = &out->tiles[out->n];
        bool covered = pc[CB__COVERED] > cb__rd.covered_min;
        if (!covered && pc[CB__TILE] <= cb__rd.tile_min)
            continue; /* the mat */
        memset(t, 0, sizeof *t);
        t->q = l->tiles[i].q;
        t->r = l->tiles[i].r;
        t->x_mm = l->tiles[i].x_mm;
        t->y_mm = l->tiles[i].y_mm;
        t->covered = covered;
        out->hand |= covered;
        t->tile_conf = covered ? 0 : pc[CB__TILE];
        for (int k = 0; k < 6; k++)
            memcpy(e[k], ph + 2 + k * CB__NCOLOR, sizeof e[k]);
        cb__tile(ph, e, -1, t);
        if (covered)
            t->conf = 0;
        else if (t->parity_conf >= cb__rd.parity_sure &&
                 (t->faces[0] != t->faces[1] || t->faces[1] != t->faces[2]))
            sure[t->parity]++;
        out->n++;
    }
    for (int k = 0, i = 0; rc == 0 && k < n && i < out->n; k++) {
        /* the tiles in step with the candidates: a triple takes the
         * layout's parity (GAMES.md: every tile has the round's first
         * tile's), told by the tiles whose colours show theirs */
        const float *pc = probs + (size_t)k * (size_t)nv, *ph = pc + CB__NCELL;
        vis_cb_read *t = &out->tiles[i];
        float e[6][CB__NCOLOR];
        if (t->q != l->tiles[k].q || t->r != l->tiles[k].r)
            continue;
        i++;
        if (t->covered || sure[0] == sure[1] || t->faces[0] != t->faces[1] ||
            t->faces[1] != t->faces[2])
            continue;
        for (int m = 0; m < 6; m++)
            memcpy(e[m], ph + 2 + m * CB__NCOLOR, sizeof e[m]);
        cb__tile(ph, e, sure[1] > sure[0], t);
    }
    if (patches)
        for (int i = 0; i < n; i++)
            vis_image_free(patches[i]);
    free(patches);
    free(probs);
    if (rc != 0)
        out->n = 0;
    return rc;
}
