/* sim/render.c: the ray caster.  Each output pixel looks up the ideal ray
 * that lands on it through the lens (camera.c's map, so lens distortion
 * costs nothing per frame and needs no resampling), then finds the nearest
 * object along it, or the table.
 *
 * The camera, the light and the table do not move during a stream, so the
 * lit table (texture, mat, markers, glare) is computed once, anti-aliased
 * by supersampling, and kept per pixel as two colours: fully lit and in
 * full shadow.  A frame then only blends those by the soft shadow of the
 * objects and casts rays at the objects whose screen box covers the pixel's
 * 16x16 tile. */
#include "sim_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SIM__TILE 16
#define SIM__MAXEDGES 8

typedef struct sim__hull {
    int n;
    double nx[SIM__MAXEDGES], ny[SIM__MAXEDGES], c[SIM__MAXEDGES];
    double w;                /* penumbra width, mm */
    double x0, y0, x1, y1;   /* bounding box, penumbra included */
} sim__hull;

struct sim__renderer {
    sim__camera cam;
    sim__look look;
    sim__mat mat;
    int w, h;
    float *map;  /* 2 per pixel: ideal normalised ray */
    float *tpt;  /* 2 per pixel: table point, mm (NAN above the horizon) */
    float *lit;  /* 3 per pixel: table colour fully lit, RGB */
    float *shad; /* 3 per pixel: table colour in full shadow */
    int tw, th;
    float *tbox; /* 4 per tile: normalised bounding box */
    /* per frame */
    int *tcount, *tstart, *titems;
    size_t titems_cap;
    sim__hull *hulls;
    int hulls_cap;
    double bin, bx0, by0;
    int bw, bh;
    int *bcount, *bstart, *bitems;
    size_t bcap, bitems_cap;
    float *buf;  /* 3 per pixel, the frame before quantisation */
    int16_t *ids; /* per pixel: the object hit at its centre, -1 the table */
};

/* ---- the look ---- */

static void sim__set3(float *d, double r, double g, double b)
{
    d[0] = (float)r;
    d[1] = (float)g;
    d[2] = (float)b;
}

static void sim__jitter3(float *d, sim__rng *r, double amount)
{
    for (int i = 0; i < 3; i++) {
        double v = d[i] * (1 + sim__rng_range(r, -amount, amount));
        d[i] = (float)(v < 0 ? 0 : v > 1 ? 1 : v);
    }
}

void sim__look_sample(sim__look *l, sim__rng *r, bool clean)
{
    static const double woods[][3] = {{0.62, 0.45, 0.28}, {0.36, 0.22, 0.13}, {0.75, 0.6, 0.42},
                                      {0.5, 0.3, 0.18},   {0.28, 0.2, 0.16}};
    static const double cloths[][3] = {{0.12, 0.3, 0.15}, {0.55, 0.12, 0.1}, {0.15, 0.2, 0.45},
                                       {0.7, 0.68, 0.6},  {0.3, 0.3, 0.32}, {0.55, 0.45, 0.3}};
    static const double plains[][3] = {{0.85, 0.85, 0.83}, {0.25, 0.25, 0.27}, {0.6, 0.62, 0.6},
                                       {0.08, 0.08, 0.09}, {0.7, 0.55, 0.45}};
    static const double felts[][3] = {{0.1, 0.33, 0.15}, {0.33, 0.33, 0.35}, {0.1, 0.18, 0.4},
                                      {0.07, 0.07, 0.07}, {0.6, 0.55, 0.45}};
    double az, el, warm;
    const double *c;

    memset(l, 0, sizeof *l);
    l->tex_seed = (uint32_t)sim__rng_u64(r);
    l->table_kind = sim__rng_int(r, 5);
    l->table_scale = sim__rng_range(r, 0.7, 1.4);
    l->table_angle = sim__rng_range(r, 0, SIM__PI);
    switch (l->table_kind) {
    case 0:
    case 4:
        c = woods[sim__rng_int(r, 5)];
        sim__set3(l->table_a, c[0], c[1], c[2]);
        sim__set3(l->table_b, c[0] * 0.7, c[1] * 0.65, c[2] * 0.6);
        break;
    case 1:
        c = cloths[sim__rng_int(r, 6)];
        sim__set3(l->table_a, c[0], c[1], c[2]);
        sim__set3(l->table_b, c[0] * 0.8, c[1] * 0.8, c[2] * 0.8);
        break;
    default:
        c = plains[sim__rng_int(r, 5)];
        sim__set3(l->table_a, c[0], c[1], c[2]);
        c = plains[sim__rng_int(r, 5)];
        sim__set3(l->table_b, c[0], c[1], c[2]);
        break;
    }
    sim__jitter3(l->table_a, r, 0.1);
    sim__jitter3(l->table_b, r, 0.1);
    l->mat_kind = sim__rng_int(r, 3);
    if (l->mat_kind == 1)
        sim__set3(l->mat_rgb, 0.86, 0.86, 0.83);
    else {
        c = felts[sim__rng_int(r, 5)];
        sim__set3(l->mat_rgb, c[0], c[1], c[2]);
    }
    sim__jitter3(l->mat_rgb, r, 0.08);
    l->mat_extra = sim__rng_range(r, 10, 60);

    az = sim__rng_range(r, 0, 2 * SIM__PI);
    el = (clean ? sim__rng_range(r, 60, 88) : sim__rng_range(r, 30, 88)) * SIM__PI / 180;
    l->light.x = cos(el) * cos(az);
    l->light.y = cos(el) * sin(az);
    l->light.z = sin(el);
    warm = clean ? sim__rng_range(r, 0.4, 0.6) : sim__rng_unit(r);
    sim__set3(l->light_rgb, 0.88 + 0.12 * warm, 0.92, 1.0 - 0.25 * warm);
    l->ambient = clean ? 0.5 : sim__rng_range(r, 0.3, 0.6);
    l->diffuse = (clean ? 0.55 : sim__rng_range(r, 0.4, 0.8)) / (l->light.z > 0.3 ? l->light.z : 0.3);
    if (l->ambient + l->diffuse * l->light.z > 1.15)
        l->diffuse = (1.15 - l->ambient) / l->light.z;
    l->softness = clean ? 0.3 : (sim__rng_unit(r) < 0.5 ? sim__rng_range(r, 0.02, 0.1)
                                                          : sim__rng_range(r, 0.2, 0.8));
    l->glare = clean ? 0 : (sim__rng_unit(r) < 0.6 ? sim__rng_range(r, 0.05, 0.5) : 0);
    l->glare_shine = sim__rng_range(r, 15, 250);
    l->vignette = clean ? 0 : sim__rng_range(r, 0, 0.45);
    l->noise = clean ? 0 : sim__rng_range(r, 0.5, 5);
    /* focus blur in pixels of a 1280-wide frame; the stream scales it to
     * its frame */
    l->blur = clean ? 0 : (sim__rng_unit(r) < 0.3 ? 0 : sim__rng_range(r, 0.4, 1.8));
    l->jpeg_quality = clean ? 0 : (sim__rng_unit(r) < 0.3 ? 0 : 55 + sim__rng_int(r, 41));
    l->wb_drift = clean ? 0 : sim__rng_range(r, 0, 0.03);
    l->exposure = clean ? 1.0 : sim__rng_range(r, 0.8, 1.15);
}

/* ---- the table: texture, mat, markers ---- */

static void sim__mix3(float *out, const float *a, const float *b, double t)
{
    for (int i = 0; i < 3; i++)
        out[i] = (float)(a[i] + (b[i] - a[i]) * t);
}

static void sim__table_texture(const sim__look *l, double x, double y, float out[3])
{
    uint32_t sd = l->tex_seed;
    double ca = cos(l->table_angle), sa = sin(l->table_angle), k = l->table_scale;
    double a = (x * ca + y * sa) / k, b = (-x * sa + y * ca) / k;
    double t;
    switch (l->table_kind) {
    case 0:
    case 4: { /* wood grain, type 4 in planks */
        double shift = 0;
        if (l->table_kind == 4) {
            double pw = 110, q = b / pw;
            double fq = q - floor(q);
            uint32_t plank = sim__hash32(sd ^ (uint32_t)(int32_t)floor(q));
            shift = (plank & 0xffff) * 0.05;
            if (fq < 0.012 || fq > 0.988) { /* the seam */
                sim__set3(out, l->table_b[0] * 0.4, l->table_b[1] * 0.4, l->table_b[2] * 0.4);
                return;
            }
        }
        t = sin(2 * SIM__PI * (b + 30 * sim__fbm2(sd, a / 300 + shift, b / 40, 3)) / 7.0);
        t = 0.5 + 0.5 * t;
        t = 0.6 * t * t * t + 0.4 * sim__fbm2(sd + 7, a / 40 + shift, b / 2.5, 2);
        sim__mix3(out, l->table_a, l->table_b, t);
        return;
    }
    case 1: /* cloth: weave and mottling */
        t = 0.5 + 0.25 * sin(2 * SIM__PI * a / 1.6) * sin(2 * SIM__PI * b / 1.6) +
            0.5 * (sim__fbm2(sd, a / 90, b / 90, 3) - 0.5);
        sim__mix3(out, l->table_a, l->table_b, t < 0 ? 0 : t > 1 ? 1 : t);
        return;
    case 2: /* plain, with a gentle unevenness */
        t = 0.15 * sim__fbm2(sd, a / 250, b / 250, 2);
        sim__mix3(out, l->table_a, l->table_b, t);
        return;
    default: /* speckled laminate */
        t = 0.2 * sim__fbm2(sd, a / 120, b / 120, 2);
        if (sim__noise2(sd + 3, a / 1.3, b / 1.3) > 0.78)
            t = 0.8;
        sim__mix3(out, l->table_a, l->table_b, t);
        return;
    }
}

/* What the mat shows at (x, y): 0 nothing (table), 1 mat, 2 white margin,
 * 3 black ink. */
static int sim__mat_at(const sim__mat *m, const sim__look *l, double x, double y)
{
    double half = m->s / 2, cell = m->s / 6;
    for (int id = 0; id < 4; id++) {
        double mx = (id == 1 || id == 2) ? m->w : 0, my = (id >= 2) ? m->h : 0;
        double lx = x - mx, ly = y - my;
        if (fabs(lx) <= half && fabs(ly) <= half) {
            int col = (int)floor((lx + half) / cell), row = (int)floor((ly + half) / cell);
            if (col < 0)
                col = 0;
            if (col > 5)
                col = 5;
            if (row < 0)
                row = 0;
            if (row > 5)
                row = 5;
            if (col == 0 || row == 0 || col == 5 || row == 5)
                return 3;
            return m->cells[id][(row - 1) * 4 + (col - 1)] ? 2 : 3;
        }
        if (fabs(lx) <= half + m->margin && fabs(ly) <= half + m->margin)
            return 2;
    }
    if (l->mat_kind > 0) {
        double e = half + m->margin + l->mat_extra;
        if (x >= -e && y >= -e && x <= m->w + e && y <= m->h + e)
            return 1;
    }
    return 0;
}

static void sim__ray(const sim__camera *cam, double xn, double yn, sim__v3 *d)
{
    const double *R = cam->R;
    /* d = R^T (xn, yn, 1) */
    d->x = R[0] * xn + R[3] * yn + R[6];
    d->y = R[1] * xn + R[4] * yn + R[7];
    d->z = R[2] * xn + R[5] * yn + R[8];
}

/* Where the ray of normalised point (xn, yn) meets the table. */
static void sim__table_at(const sim__camera *cam, double xn, double yn, double *x, double *y)
{
    sim__v3 d;
    double t;
    sim__ray(cam, xn, yn, &d);
    if (d.z > -1e-6)
        d.z = -1e-6;
    t = -cam->C.z / d.z;
    *x = cam->C.x + t * d.x;
    *y = cam->C.y + t * d.y;
}

static void sim__table_cache(sim__renderer *r)
{
    const sim__camera *cam = &r->cam;
    const sim__look *l = &r->look;
    static const float white[3] = {0.86f, 0.86f, 0.84f}, ink[3] = {0.05f, 0.05f, 0.055f};
    for (int v = 0; v < r->h; v++)
        for (int u = 0; u < r->w; u++) {
            size_t i = (size_t)v * (size_t)r->w + (size_t)u;
            float *lit = r->lit + 3 * i, *shad = r->shad + 3 * i;
            double xn = r->map[2 * i], yn = r->map[2 * i + 1];
            /* Map steps to the neighbours, for the supersampling. */
            size_t iu = u + 1 < r->w ? i + 1 : i - 1, iv = v + 1 < r->h ? i + (size_t)r->w
                                                                        : i - (size_t)r->w;
            double dxu = (r->map[2 * iu] - xn) * (u + 1 < r->w ? 1 : -1);
            double dyu = (r->map[2 * iu + 1] - yn) * (u + 1 < r->w ? 1 : -1);
            double dxv = (r->map[2 * iv] - xn) * (v + 1 < r->h ? 1 : -1);
            double dyv = (r->map[2 * iv + 1] - yn) * (v + 1 < r->h ? 1 : -1);
            sim__v3 d;
            double t, px, py, acc[3] = {0, 0, 0};
            float tex[3];
            bool have_tex = false;
            sim__ray(cam, xn, yn, &d);
            if (d.z > -1e-6) { /* above the horizon: a dim room */
                r->tpt[2 * i] = r->tpt[2 * i + 1] = NAN;
                sim__set3(lit, 0.25, 0.25, 0.27);
                sim__set3(shad, 0.25, 0.25, 0.27);
                continue;
            }
            t = -cam->C.z / d.z;
            px = cam->C.x + t * d.x;
            py = cam->C.y + t * d.y;
            r->tpt[2 * i] = (float)px;
            r->tpt[2 * i + 1] = (float)py;
            /* 4x4 samples of the mat where its edges cross the pixel (the
             * four corners disagree), else one; the texture once. */
            int ns = 4, corner[4];
            for (int k = 0; k < 4; k++) {
                double qx, qy;
                sim__table_at(cam, xn + ((k & 1) - 0.5) * dxu + ((k >> 1) - 0.5) * dxv,
                              yn + ((k & 1) - 0.5) * dyu + ((k >> 1) - 0.5) * dyv, &qx, &qy);
                corner[k] = sim__mat_at(&r->mat, l, qx, qy);
            }
            if (corner[0] == corner[1] && corner[0] == corner[2] && corner[0] == corner[3])
                ns = 1;
            for (int sy = 0; sy < ns; sy++)
                for (int sx = 0; sx < ns; sx++) {
                    double ou = (sx + 0.5) / ns - 0.5, ov = (sy + 0.5) / ns - 0.5;
                    double sxn = xn + ou * dxu + ov * dxv, syn = yn + ou * dyu + ov * dyv;
                    double qx, qy;
                    const float *c;
                    float mc[3];
                    sim__table_at(cam, sxn, syn, &qx, &qy);
                    switch (ns == 1 ? corner[0] : sim__mat_at(&r->mat, l, qx, qy)) {
                    case 3:
                        c = ink;
                        break;
                    case 2:
                        c = white;
                        break;
                    case 1:
                        /* felt has a fine nap; paper is smooth */
                        memcpy(mc, l->mat_rgb, sizeof mc);
                        if (l->mat_kind == 2) {
                            double n = 0.92 + 0.16 * sim__noise2(l->tex_seed + 99, qx / 0.8, qy / 0.8);
                            for (int k = 0; k < 3; k++)
                                mc[k] = (float)(mc[k] * n);
                        }
                        c = mc;
                        break;
                    default:
                        if (!have_tex) {
                            sim__table_texture(l, px, py, tex);
                            have_tex = true;
                        }
                        c = tex;
                        break;
                    }
                    for (int k = 0; k < 3; k++)
                        acc[k] += c[k] / (double)(ns * ns);
                }
            {
                double len = sqrt(d.x * d.x + d.y * d.y + d.z * d.z);
                sim__v3 V = {-d.x / len, -d.y / len, -d.z / len};
                sim__v3 H = {V.x + l->light.x, V.y + l->light.y, V.z + l->light.z};
                double hl = sqrt(H.x * H.x + H.y * H.y + H.z * H.z);
                double spec = l->glare > 0 ? l->glare * pow(H.z / hl, l->glare_shine) : 0;
                for (int k = 0; k < 3; k++) {
                    double a = acc[k] * l->ambient * l->light_rgb[k];
                    double df = acc[k] * l->diffuse * l->light.z * l->light_rgb[k];
                    lit[k] = (float)(a + df + spec * l->light_rgb[k]);
                    shad[k] = (float)a;
                }
            }
        }
}

int sim__renderer_new(const sim__camera *cam, const sim__look *look, const sim__mat *mat,
                      sim__renderer **out, base_err *err)
{
    sim__renderer *r = calloc(1, sizeof *r);
    size_t n = (size_t)cam->width * (size_t)cam->height;
    *out = NULL;
    if (!r)
        return base_err_set(err, BASE_ENOMEM, "sim: out of memory for the renderer");
    r->cam = *cam;
    r->look = *look;
    r->mat = *mat;
    r->w = cam->width;
    r->h = cam->height;
    r->tw = (r->w + SIM__TILE - 1) / SIM__TILE;
    r->th = (r->h + SIM__TILE - 1) / SIM__TILE;
    r->tpt = malloc(n * 2 * sizeof *r->tpt);
    r->lit = malloc(n * 3 * sizeof *r->lit);
    r->shad = malloc(n * 3 * sizeof *r->shad);
    r->buf = malloc(n * 3 * sizeof *r->buf);
    r->ids = malloc(n * sizeof *r->ids);
    r->tbox = malloc((size_t)r->tw * (size_t)r->th * 4 * sizeof *r->tbox);
    r->tcount = calloc((size_t)r->tw * (size_t)r->th, sizeof *r->tcount);
    r->tstart = calloc((size_t)r->tw * (size_t)r->th + 1, sizeof *r->tstart);
    if (!r->tpt || !r->lit || !r->shad || !r->buf || !r->ids || !r->tbox || !r->tcount || !r->tstart ||
        sim__ray_map(cam, &r->map) != 0) {
        sim__renderer_free(r);
        return base_err_set(err, BASE_ENOMEM, "sim: out of memory for a %dx%d frame",
                            cam->width, cam->height);
    }
    for (int ty = 0; ty < r->th; ty++)
        for (int tx = 0; tx < r->tw; tx++) {
            float *b = r->tbox + 4 * ((size_t)ty * (size_t)r->tw + (size_t)tx);
            b[0] = b[1] = INFINITY;
            b[2] = b[3] = -INFINITY;
            /* one pixel beyond the tile, for safety at the edges */
            for (int v = ty * SIM__TILE - 1; v <= (ty + 1) * SIM__TILE; v++)
                for (int u = tx * SIM__TILE - 1; u <= (tx + 1) * SIM__TILE; u++) {
                    int cu = u < 0 ? 0 : u >= r->w ? r->w - 1 : u;
                    int cv = v < 0 ? 0 : v >= r->h ? r->h - 1 : v;
                    const float *m = r->map + 2 * ((size_t)cv * (size_t)r->w + (size_t)cu);
                    b[0] = fminf(b[0], m[0]);
                    b[1] = fminf(b[1], m[1]);
                    b[2] = fmaxf(b[2], m[0]);
                    b[3] = fmaxf(b[3], m[1]);
                }
        }
    sim__table_cache(r);
    *out = r;
    return 0;
}

void sim__renderer_free(sim__renderer *r)
{
    if (!r)
        return;
    free(r->map);
    free(r->tpt);
    free(r->lit);
    free(r->shad);
    free(r->buf);
    free(r->ids);
    free(r->tbox);
    free(r->tcount);
    free(r->tstart);
    free(r->titems);
    free(r->hulls);
    free(r->bcount);
    free(r->bstart);
    free(r->bitems);
    free(r);
}

/* ---- objects: intersections ---- */

typedef struct sim__hit {
    double t;
    int face;         /* box face; cylinder 0 top 1 wall; hand capsule index */
    double lx, ly, lz; /* local point (box: centred; hand: plane point) */
} sim__hit;

static bool sim__hit_box(const sim__obj *o, sim__v3 O, sim__v3 d, sim__hit *h)
{
    double hx = o->sx / 2, hy = o->sy / 2, hz = o->sz / 2;
    double px = O.x - o->x, py = O.y - o->y, pz = O.z - (o->z0 + hz);
    double ox = o->c * px + o->s * py, oy = -o->s * px + o->c * py;
    double dx = o->c * d.x + o->s * d.y, dy = -o->s * d.x + o->c * d.y, dz = d.z;
    double tn = -INFINITY, tf = INFINITY;
    int face = -1;
    double orig[3] = {ox, oy, pz}, dir[3] = {dx, dy, dz}, half[3] = {hx, hy, hz};
    /* faces: 0 top (+z), 1 +x, 2 -x, 3 +y, 4 -y, 5 bottom */
    static const int fpos[3] = {1, 3, 0}, fneg[3] = {2, 4, 5};
    for (int a = 0; a < 3; a++) {
        if (fabs(dir[a]) < 1e-12) {
            if (fabs(orig[a]) > half[a])
                return false;
            continue;
        }
        double t1 = (-half[a] - orig[a]) / dir[a], t2 = (half[a] - orig[a]) / dir[a];
        int f1 = fneg[a], f2 = fpos[a];
        if (t1 > t2) {
            double tt = t1;
            int ff = f1;
            t1 = t2;
            t2 = tt;
            f1 = f2;
            f2 = ff;
        }
        (void)f2;
        if (t1 > tn) {
            tn = t1;
            face = f1;
        }
        if (t2 < tf)
            tf = t2;
        if (tn > tf)
            return false;
    }
    if (tn <= 1e-9 || face < 0)
        return false;
    h->t = tn;
    h->face = face;
    h->lx = ox + tn * dx;
    h->ly = oy + tn * dy;
    h->lz = pz + tn * dz;
    if (o->corner_r > 0) { /* a rounded corner: the ray passes by */
        double ex = fabs(h->lx) - (hx - o->corner_r), ey = fabs(h->ly) - (hy - o->corner_r);
        if (ex > 0 && ey > 0 && ex * ex + ey * ey > o->corner_r * o->corner_r)
            return false;
    }
    return true;
}

static bool sim__hit_cyl(const sim__obj *o, sim__v3 O, sim__v3 d, sim__hit *h)
{
    double r = o->sx, top = o->z0 + o->sz;
    double px = O.x - o->x, py = O.y - o->y;
    /* the open top first: the camera is always above it */
    if (d.z < 0) {
        double t = (top - O.z) / d.z;
        double qx = px + t * d.x, qy = py + t * d.y;
        if (t > 0 && qx * qx + qy * qy <= r * r) {
            h->t = t;
            h->face = 0;
            h->lx = qx;
            h->ly = qy;
            h->lz = top;
            return true;
        }
    }
    {
        double a = d.x * d.x + d.y * d.y, b = 2 * (px * d.x + py * d.y);
        double c = px * px + py * py - r * r, disc = b * b - 4 * a * c;
        if (a < 1e-12 || disc < 0)
            return false;
        double t = (-b - sqrt(disc)) / (2 * a), z = O.z + t * d.z;
        if (t <= 0 || z < o->z0 || z > top)
            return false;
        h->t = t;
        h->face = 1;
        h->lx = px + t * d.x;
        h->ly = py + t * d.y;
        h->lz = z;
        return true;
    }
}

/* A hexagonal prism (CUBED's tiles), pointy-top in its own frame: flats
 * o->sx apart across x and at +-60 degrees from it, corners along y.
 * Faces: 0 top, 5 bottom, 1 + j the side whose outward normal points
 * 60 j degrees from the local x axis. */
static bool sim__hit_hex(const sim__obj *o, sim__v3 O, sim__v3 d, sim__hit *h)
{
    static const double nx[3] = {1, 0.5, -0.5}, ny[3] = {0, 0.86602540378443865, 0.86602540378443865};
    double half = o->sx / 2, hz = o->sz / 2;
    double px = O.x - o->x, py = O.y - o->y, pz = O.z - (o->z0 + hz);
    double ox = o->c * px + o->s * py, oy = -o->s * px + o->c * py;
    double dx = o->c * d.x + o->s * d.y, dy = -o->s * d.x + o->c * d.y;
    double tn = -INFINITY, tf = INFINITY;
    int face = -1;
    for (int a = 0; a < 4; a++) {
        /* slabs: the three pairs of flats, then top and bottom */
        double po = a < 3 ? ox * nx[a] + oy * ny[a] : pz, dd = a < 3 ? dx * nx[a] + dy * ny[a] : d.z;
        double w = a < 3 ? half : hz, t1, t2;
        int f1, f2;
        if (fabs(dd) < 1e-12) {
            if (fabs(po) > w)
                return false;
            continue;
        }
        t1 = (-w - po) / dd;
        t2 = (w - po) / dd;
        f1 = a < 3 ? 1 + a + 3 : 5; /* the face of -w: the normal turned half round */
        f2 = a < 3 ? 1 + a : 0;
        if (t1 > t2) {
            double tt = t1;
            t1 = t2;
            t2 = tt;
            f1 = f2;
        }
        if (t1 > tn) {
            tn = t1;
            face = f1;
        }
        if (t2 < tf)
            tf = t2;
        if (tn > tf)
            return false;
    }
    if (tn <= 1e-9 || face < 0)
        return false;
    h->t = tn;
    h->face = face;
    h->lx = ox + tn * dx;
    h->ly = oy + tn * dy;
    h->lz = pz + tn * d.z;
    return true;
}

/* Signed distance from (x, y) to the hand's nearest capsule surface, and
 * which capsule; capsules whose box lies farther than lim are skipped
 * (INFINITY when all are). */
static double sim__hand_dist(const sim__obj *o, double x, double y, int *which, double lim)
{
    double best = INFINITY;
    for (int k = 0; k < o->ncaps; k++) {
        const sim__capsule *c = &o->caps[k];
        /* far outside this capsule's box: it cannot be the nearest within
         * lim, which is all the callers need */
        if (x < c->x0 - lim || x > c->x1 + lim || y < c->y0 - lim || y > c->y1 + lim)
            continue;
        double vx = c->bx - c->ax, vy = c->by - c->ay, wx = x - c->ax, wy = y - c->ay;
        double l2 = vx * vx + vy * vy, t = l2 > 0 ? (wx * vx + wy * vy) / l2 : 0;
        double dx, dy, dd;
        if (t < 0)
            t = 0;
        if (t > 1)
            t = 1;
        dx = wx - t * vx;
        dy = wy - t * vy;
        dd = sqrt(dx * dx + dy * dy);
        if (dd - c->r < best) {
            best = dd - c->r;
            if (which)
                *which = k;
        }
    }
    return best;
}

static bool sim__hit_hand(const sim__obj *o, sim__v3 O, sim__v3 d, sim__hit *h)
{
    double t, x, y;
    int which = 0;
    if (d.z >= 0)
        return false;
    t = (o->z0 - O.z) / d.z;
    if (t <= 0)
        return false;
    x = O.x + t * d.x;
    y = O.y + t * d.y;
    if (sim__hand_dist(o, x, y, &which, 0) > 0)
        return false;
    h->t = t;
    h->face = which;
    h->lx = x;
    h->ly = y;
    h->lz = o->z0;
    return true;
}

static bool sim__hit_obj(const sim__obj *o, sim__v3 O, sim__v3 d, sim__hit *h)
{
    switch (o->kind) {
    case SIM__BOX:
        return sim__hit_box(o, O, d, h);
    case SIM__CYL:
        return sim__hit_cyl(o, O, d, h);
    case SIM__HEX:
        return sim__hit_hex(o, O, d, h);
    default:
        return sim__hit_hand(o, O, d, h);
    }
}

/* ---- per-frame set-up: screen boxes, tiles, shadows ---- */

/* Yaw and, for a hand, the capsules' boxes: what the intersections use. */
static void sim__obj_basics(sim__obj *o)
{
    o->c = cos(o->yaw);
    o->s = sin(o->yaw);
    if (o->kind != SIM__HAND)
        return;
    o->hx0 = o->hy0 = INFINITY;
    o->hx1 = o->hy1 = -INFINITY;
    for (int k = 0; k < o->ncaps; k++) {
        sim__capsule *c = &o->caps[k];
        c->x0 = fmin(c->ax, c->bx) - c->r;
        c->y0 = fmin(c->ay, c->by) - c->r;
        c->x1 = fmax(c->ax, c->bx) + c->r;
        c->y1 = fmax(c->ay, c->by) + c->r;
        o->hx0 = fmin(o->hx0, c->x0);
        o->hy0 = fmin(o->hy0, c->y0);
        o->hx1 = fmax(o->hx1, c->x1);
        o->hy1 = fmax(o->hy1, c->y1);
    }
}

static void sim__obj_prepare(const sim__renderer *r, sim__obj *o)
{
    sim__v3 pts[8];
    int n = 0;
    sim__obj_basics(o);
    if (o->kind == SIM__HAND) {
        double x0 = o->hx0, y0 = o->hy0, x1 = o->hx1, y1 = o->hy1;
        sim__v3 a = {x0, y0, o->z0}, b = {x1, y0, o->z0}, c = {x1, y1, o->z0},
                d = {x0, y1, o->z0};
        pts[n++] = a;
        pts[n++] = b;
        pts[n++] = c;
        pts[n++] = d;
    } else {
        double hx = o->kind == SIM__CYL ? o->sx : o->sx / 2;
        double hy = o->kind == SIM__CYL ? o->sx : o->sy / 2;
        for (int k = 0; k < 8; k++) {
            double lx = (k & 1) ? hx : -hx, ly = (k & 2) ? hy : -hy;
            sim__v3 p = {o->x + o->c * lx - o->s * ly, o->y + o->s * lx + o->c * ly,
                         o->z0 + ((k & 4) ? o->sz : 0)};
            pts[n++] = p;
        }
    }
    o->bx0 = o->by0 = INFINITY;
    o->bx1 = o->by1 = -INFINITY;
    for (int k = 0; k < n; k++) {
        sim__v3 c = sim__to_camera(&r->cam, pts[k]);
        if (c.z < 1) { /* reaches behind the camera: everywhere */
            o->bx0 = o->by0 = -INFINITY;
            o->bx1 = o->by1 = INFINITY;
            return;
        }
        o->bx0 = fminf(o->bx0, (float)(c.x / c.z));
        o->by0 = fminf(o->by0, (float)(c.y / c.z));
        o->bx1 = fmaxf(o->bx1, (float)(c.x / c.z));
        o->by1 = fmaxf(o->by1, (float)(c.y / c.z));
    }
}

static int sim__tiles(sim__renderer *r, const sim__obj *objs, int n)
{
    size_t nt = (size_t)r->tw * (size_t)r->th, total = 0;
    memset(r->tcount, 0, nt * sizeof *r->tcount);
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) {
            r->tstart[0] = 0;
            for (size_t t = 0; t < nt; t++)
                r->tstart[t + 1] = r->tstart[t] + r->tcount[t];
            total = (size_t)r->tstart[nt];
            if (total > r->titems_cap) {
                int *p = realloc(r->titems, total * sizeof *p);
                if (!p)
                    return BASE_ENOMEM;
                r->titems = p;
                r->titems_cap = total;
            }
            memset(r->tcount, 0, nt * sizeof *r->tcount);
        }
        for (size_t t = 0; t < nt; t++) {
            const float *b = r->tbox + 4 * t;
            for (int k = 0; k < n; k++) {
                const sim__obj *o = &objs[k];
                if (o->bx1 < b[0] || o->bx0 > b[2] || o->by1 < b[1] || o->by0 > b[3])
                    continue;
                if (pass == 1)
                    r->titems[r->tstart[t] + r->tcount[t]] = k;
                r->tcount[t]++;
            }
        }
    }
    return 0;
}

/* Convex hull of n <= 12 points (gift wrapping), as inward edges. */
static void sim__hull_make(const double *px, const double *py, int n, double w, sim__hull *h)
{
    int start = 0, cur, hullpts[SIM__MAXEDGES + 1], nh = 0;
    for (int i = 1; i < n; i++)
        if (px[i] < px[start] || (px[i] == px[start] && py[i] < py[start]))
            start = i;
    cur = start;
    do {
        int next = (cur + 1) % n;
        hullpts[nh++] = cur;
        for (int i = 0; i < n; i++) {
            double cr = (px[next] - px[cur]) * (py[i] - py[cur]) -
                        (py[next] - py[cur]) * (px[i] - px[cur]);
            if (cr < 0 || (cr == 0 && hypot(px[i] - px[cur], py[i] - py[cur]) >
                                          hypot(px[next] - px[cur], py[next] - py[cur])))
                next = i;
        }
        cur = next;
    } while (cur != start && nh < SIM__MAXEDGES);
    h->n = 0;
    h->w = w;
    h->x0 = h->y0 = INFINITY;
    h->x1 = h->y1 = -INFINITY;
    for (int k = 0; k < nh; k++) {
        int a = hullpts[k], b = hullpts[(k + 1) % nh];
        double ex = px[b] - px[a], ey = py[b] - py[a], len = hypot(ex, ey);
        if (len < 1e-9)
            continue;
        /* outward normal of a counter-clockwise (in x-right y-down: the
         * wrap above turns the other way) edge: pick the side away from
         * the centroid below. */
        h->nx[h->n] = ey / len;
        h->ny[h->n] = -ex / len;
        h->c[h->n] = h->nx[h->n] * px[a] + h->ny[h->n] * py[a];
        h->n++;
        h->x0 = fmin(h->x0, px[a] - w);
        h->y0 = fmin(h->y0, py[a] - w);
        h->x1 = fmax(h->x1, px[a] + w);
        h->y1 = fmax(h->y1, py[a] + w);
    }
    {
        double cx = 0, cy = 0;
        for (int k = 0; k < n; k++) {
            cx += px[k] / n;
            cy += py[k] / n;
        }
        for (int k = 0; k < h->n; k++)
            if (h->nx[k] * cx + h->ny[k] * cy - h->c[k] > 0) {
                h->nx[k] = -h->nx[k];
                h->ny[k] = -h->ny[k];
                h->c[k] = -h->c[k];
            }
    }
}

static int sim__shadows(sim__renderer *r, const sim__obj *objs, int n)
{
    const sim__look *l = &r->look;
    double lx = l->light.x / l->light.z, ly = l->light.y / l->light.z;
    double x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
    size_t total = 0, nb;
    if (n > r->hulls_cap) {
        sim__hull *p = realloc(r->hulls, (size_t)n * sizeof *p);
        if (!p)
            return BASE_ENOMEM;
        r->hulls = p;
        r->hulls_cap = n;
    }
    for (int k = 0; k < n; k++) {
        const sim__obj *o = &objs[k];
        sim__hull *h = &r->hulls[k];
        double px[12], py[12];
        int np = 0;
        h->n = 0;
        if (!o->shadow || o->kind == SIM__HAND)
            continue;
        double hx = o->kind == SIM__CYL ? o->sx : o->sx / 2;
        double hy = o->kind == SIM__CYL ? o->sx : o->sy / 2;
        for (int c = 0; c < (o->kind == SIM__HEX ? 12 : 8); c++, np++) {
            /* a hexagon's corners lie at 30 + 60 k degrees, o->sx / sqrt 3 out */
            double ax = (c & 1) ? hx : -hx, ay = (c & 2) ? hy : -hy, z;
            if (o->kind == SIM__HEX) {
                double a = (30 + 60 * (c % 6)) * SIM__PI / 180, rad = o->sx / sqrt(3.0);
                ax = rad * cos(a);
                ay = rad * sin(a);
                z = o->z0 + (c >= 6 ? o->sz : 0);
            } else {
                z = o->z0 + ((c & 4) ? o->sz : 0);
            }
            px[c] = o->x + o->c * ax - o->s * ay - z * lx;
            py[c] = o->y + o->s * ax + o->c * ay - z * ly;
        }
        sim__hull_make(px, py, np, 0.5 + l->softness * (o->z0 + o->sz), h);
        x0 = fmin(x0, h->x0);
        y0 = fmin(y0, h->y0);
        x1 = fmax(x1, h->x1);
        y1 = fmax(y1, h->y1);
    }
    r->bw = r->bh = 0;
    if (x0 > x1)
        return 0;
    r->bin = 16;
    while ((x1 - x0) / r->bin > 256 || (y1 - y0) / r->bin > 256)
        r->bin *= 2;
    r->bx0 = x0;
    r->by0 = y0;
    r->bw = (int)((x1 - x0) / r->bin) + 1;
    r->bh = (int)((y1 - y0) / r->bin) + 1;
    nb = (size_t)r->bw * (size_t)r->bh;
    if (nb + 1 > r->bcap) {
        int *a = realloc(r->bcount, nb * sizeof *a), *b;
        if (!a)
            return BASE_ENOMEM;
        r->bcount = a;
        b = realloc(r->bstart, (nb + 1) * sizeof *b);
        if (!b)
            return BASE_ENOMEM;
        r->bstart = b;
        r->bcap = nb + 1;
    }
    memset(r->bcount, 0, nb * sizeof *r->bcount);
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) {
            r->bstart[0] = 0;
            for (size_t b = 0; b < nb; b++)
                r->bstart[b + 1] = r->bstart[b] + r->bcount[b];
            total = (size_t)r->bstart[nb];
            if (total > r->bitems_cap) {
                int *p = realloc(r->bitems, total * sizeof *p);
                if (!p)
                    return BASE_ENOMEM;
                r->bitems = p;
                r->bitems_cap = total;
            }
            memset(r->bcount, 0, nb * sizeof *r->bcount);
        }
        for (int k = 0; k < n; k++) {
            const sim__hull *h = &r->hulls[k];
            if (h->n == 0)
                continue;
            int i0 = (int)((h->x0 - x0) / r->bin), i1 = (int)((h->x1 - x0) / r->bin);
            int j0 = (int)((h->y0 - y0) / r->bin), j1 = (int)((h->y1 - y0) / r->bin);
            for (int j = j0; j <= j1 && j < r->bh; j++)
                for (int i = i0; i <= i1 && i < r->bw; i++) {
                    size_t b = (size_t)j * (size_t)r->bw + (size_t)i;
                    if (pass == 1)
                        r->bitems[r->bstart[b] + r->bcount[b]] = k;
                    r->bcount[b]++;
                }
        }
    }
    return 0;
}

static double sim__smooth01(double x) { return x <= 0 ? 0 : x >= 1 ? 1 : x * x * (3 - 2 * x); }

/* Shadow in [0, 1] at point (x, y, z) on object self from the other boxes
 * and cylinders that stand higher (pieces on a board): their hulls are
 * cast on the table, so the point is looked up where the light through it
 * meets the table.  With objs NULL, a point of the table itself (z 0),
 * which every hull shades. */
static double sim__obj_shadow(const sim__renderer *r, const sim__obj *objs, const sim__obj *self,
                              double x, double y, double z)
{
    const sim__look *l = &r->look;
    double s = 0, tx = x - z * l->light.x / l->light.z, ty = y - z * l->light.y / l->light.z;
    if (r->bw == 0 || tx < r->bx0 || ty < r->by0)
        return 0;
    int i = (int)((tx - r->bx0) / r->bin), j = (int)((ty - r->by0) / r->bin);
    if (i >= r->bw || j >= r->bh)
        return 0;
    size_t b = (size_t)j * (size_t)r->bw + (size_t)i;
    for (int q = r->bstart[b]; q < r->bstart[b + 1]; q++) {
        const sim__hull *h = &r->hulls[r->bitems[q]];
        const sim__obj *o = objs ? &objs[r->bitems[q]] : NULL;
        double sd = -INFINITY;
        /* only what rises above the point can shade it (0.5 mm: a face
         * does not shade itself) */
        if ((objs && (o == self || o->z0 + o->sz <= z + 0.5)) || tx < h->x0 || tx > h->x1 ||
            ty < h->y0 || ty > h->y1)
            continue;
        for (int k = 0; k < h->n; k++) {
            double e = h->nx[k] * tx + h->ny[k] * ty - h->c[k];
            if (e > sd)
                sd = e;
        }
        double v = sim__smooth01(0.5 - sd / h->w);
        if (v > s)
            s = v;
    }
    return s;
}

/* Shadow in [0, 1] of the hands at a point at height z. */
static double sim__hand_shadow(const sim__renderer *r, const sim__obj *objs, int n, double x,
                               double y, double z)
{
    const sim__look *l = &r->look;
    double s = 0;
    for (int k = 0; k < n; k++) {
        const sim__obj *o = &objs[k];
        if (o->kind != SIM__HAND || o->z0 <= z)
            continue;
        double dz = o->z0 - z, w = 1 + l->softness * dz;
        double qx = x + dz * l->light.x / l->light.z, qy = y + dz * l->light.y / l->light.z;
        if (qx < o->hx0 - w || qx > o->hx1 + w || qy < o->hy0 - w || qy > o->hy1 + w)
            continue;
        double v = sim__smooth01(0.5 - sim__hand_dist(o, qx, qy, NULL, w) / w);
        if (v > s)
            s = v;
    }
    return s;
}

/* ---- shading ---- */

static void sim__shade(const sim__renderer *r, const sim__obj *objs, int n, const sim__obj *o,
                       const sim__hit *h, sim__v3 O, sim__v3 d, float out[3])
{
    const sim__look *l = &r->look;
    float alb[3] = {0.5f, 0.5f, 0.5f}, gloss = 0;
    sim__v3 N = {0, 0, 1}, P = {O.x + h->t * d.x, O.y + h->t * d.y, O.z + h->t * d.z};
    double shadow;
    if (o->kind == SIM__BOX) {
        static const double lnx[6] = {0, 1, -1, 0, 0, 0}, lny[6] = {0, 0, 0, 1, -1, 0},
                            lnz[6] = {1, 0, 0, 0, 0, -1};
        double hx = o->sx / 2, hy = o->sy / 2, hz = o->sz / 2, u = 0, v = 0;
        N.x = o->c * lnx[h->face] - o->s * lny[h->face];
        N.y = o->s * lnx[h->face] + o->c * lny[h->face];
        N.z = lnz[h->face];
        switch (h->face) {
        case 0:
        case 5:
            u = h->lx / hx;
            v = h->ly / hy;
            break;
        case 1:
            u = h->ly / hy;
            v = h->lz / hz;
            break;
        case 2:
            u = -h->ly / hy;
            v = h->lz / hz;
            break;
        case 3:
            u = -h->lx / hx;
            v = h->lz / hz;
            break;
        default:
            u = h->lx / hx;
            v = h->lz / hz;
            break;
        }
        switch (o->look) {
        case SIM__LOOK_PIECE:
            o->pk->shade(o, h->face, u, v, alb, &gloss);
            break;
        case SIM__LOOK_PHONE:
            if (h->face == 0 && fabs(h->lx) < hx - 4 && fabs(h->ly) < hy - 8) {
                sim__set3(alb, 0.03, 0.035, 0.04);
                gloss = 0.8f;
            } else {
                memcpy(alb, o->rgb, sizeof alb);
                gloss = 0.3f;
            }
            break;
        case SIM__LOOK_PAPER: {
            memcpy(alb, o->rgb, sizeof alb);
            if (h->face == 0 && fabs(h->lx) < hx - 20 && h->ly > -hy + 25 && h->ly < hy - 20) {
                double row = (h->ly + hy) / 8.0, f = row - floor(row);
                double len = sim__noise2((uint32_t)o->piece.x, floor(row) * 1.7, 0.5);
                if (f < 0.22 && (h->lx + hx - 20) / (2 * hx - 40) < 0.3 + 0.7 * len &&
                    sim__noise2((uint32_t)o->piece.y, h->lx / 3.0, floor(row)) > 0.35)
                    sim__set3(alb, o->rgb2[0], o->rgb2[1], o->rgb2[2]);
            }
            break;
        }
        default:
            memcpy(alb, o->rgb, sizeof alb);
            gloss = o->gloss;
            break;
        }
    } else if (o->kind == SIM__HEX) {
        /* a hexagonal tile: top u, v over the flats (+-1 at them); a side
         * u along it from -1 to 1, v up it */
        if (h->face == 0 || h->face == 5) {
            N.z = h->face == 0 ? 1 : -1;
            o->pk->shade(o, h->face, h->lx / (o->sx / 2), h->ly / (o->sx / 2), alb, &gloss);
        } else {
            double a = (h->face - 1) * SIM__PI / 3, cx = cos(a), cy = sin(a);
            N.x = o->c * cx - o->s * cy;
            N.y = o->s * cx + o->c * cy;
            N.z = 0;
            o->pk->shade(o, h->face, (-h->lx * cy + h->ly * cx) / (o->sx / (2 * sqrt(3.0))),
                         h->lz / (o->sz / 2), alb, &gloss);
        }
    } else if (o->kind == SIM__CYL && o->look == SIM__LOOK_PIECE) {
        /* a game's cylinder: top u, v across the disc; side u around it
         * (from -1 to 1), v up it */
        double rr = sqrt(h->lx * h->lx + h->ly * h->ly);
        if (h->face == 0) {
            o->pk->shade(o, 0, h->lx / o->sx, h->ly / o->sx, alb, &gloss);
        } else {
            N.x = h->lx / rr;
            N.y = h->ly / rr;
            N.z = 0;
            o->pk->shade(o, 1, atan2(h->ly, h->lx) / SIM__PI,
                         2 * (h->lz - o->z0) / o->sz - 1, alb, &gloss);
        }
    } else if (o->kind == SIM__CYL) {
        if (h->face == 0) {
            double rr = sqrt(h->lx * h->lx + h->ly * h->ly);
            if (rr > o->sx - 4)
                memcpy(alb, o->rgb, sizeof alb);
            else
                memcpy(alb, o->rgb2, sizeof alb);
            gloss = 0.4f;
        } else {
            double rr = sqrt(h->lx * h->lx + h->ly * h->ly);
            N.x = h->lx / rr;
            N.y = h->ly / rr;
            N.z = 0;
            memcpy(alb, o->rgb, sizeof alb);
            gloss = 0.3f;
        }
    } else { /* hand: a rounded cross-section */
        const sim__capsule *c = &o->caps[h->face];
        double vx = c->bx - c->ax, vy = c->by - c->ay, wx = h->lx - c->ax, wy = h->ly - c->ay;
        double l2 = vx * vx + vy * vy, t = l2 > 0 ? (wx * vx + wy * vy) / l2 : 0, dx, dy, dd;
        t = t < 0 ? 0 : t > 1 ? 1 : t;
        dx = wx - t * vx;
        dy = wy - t * vy;
        dd = sqrt(dx * dx + dy * dy) / c->r;
        if (dd > 1)
            dd = 1;
        N.x = dx / c->r;
        N.y = dy / c->r;
        N.z = sqrt(1 - dd * dd);
        memcpy(alb, c->sleeve ? o->sleeve : o->skin, sizeof alb);
        gloss = 0.15f;
    }
    shadow = sim__hand_shadow(r, objs, n, P.x, P.y, P.z);
    if (o->shaded)
        shadow = fmax(shadow, sim__obj_shadow(r, objs, o, P.x, P.y, P.z));
    {
        double ndl = N.x * l->light.x + N.y * l->light.y + N.z * l->light.z;
        double len = sqrt(d.x * d.x + d.y * d.y + d.z * d.z);
        sim__v3 H = {l->light.x - d.x / len, l->light.y - d.y / len, l->light.z - d.z / len};
        double hl = sqrt(H.x * H.x + H.y * H.y + H.z * H.z);
        double ndh = (N.x * H.x + N.y * H.y + N.z * H.z) / hl;
        double spec = 0;
        if (ndl < 0)
            ndl = 0;
        if (gloss > 0 && ndh > 0 && l->glare > 0)
            spec = gloss * (0.2 + l->glare) * pow(ndh, 40);
        for (int k = 0; k < 3; k++)
            out[k] = (float)((alb[k] * (l->ambient + l->diffuse * ndl * (1 - shadow)) +
                              spec * (1 - shadow)) *
                             l->light_rgb[k]);
    }
}

/* ---- the frame ---- */

static int sim__post(sim__renderer *r, const sim__frame_fx *fx, vis_image **out, base_err *err)
{
    const sim__look *l = &r->look;
    vis_image *img = NULL;
    int rc = vis_image_new(r->w, r->h, 3, &img, err);
    double rmax2 = (double)r->cam.cx * r->cam.cx + (double)r->cam.cy * r->cam.cy;
    if (rc)
        return rc;
    for (int v = 0; v < r->h; v++) {
        unsigned char *row = img->data + (size_t)v * (size_t)img->stride;
        for (int u = 0; u < r->w; u++) {
            size_t i = (size_t)v * (size_t)r->w + (size_t)u;
            const float *c = r->buf + 3 * i;
            double du = u - r->cam.cx, dv = v - r->cam.cy;
            double g = 255.0 * l->exposure * (1 - l->vignette * (du * du + dv * dv) / rmax2);
            uint32_t hsh = l->noise > 0 ? sim__hash32(fx->noise_seed ^ (uint32_t)i * 0x9E3779B1U)
                                        : 0;
            for (int k = 0; k < 3; k++) {
                double val = c[k] * g * fx->wb[k];
                if (l->noise > 0) {
                    uint32_t h2 = sim__hash32(hsh + (uint32_t)k * 0x632BE5ABU);
                    double gs = ((double)(h2 & 0xff) + ((h2 >> 8) & 0xff) + ((h2 >> 16) & 0xff) +
                                 (h2 >> 24) - 510.0) /
                                147.8;
                    val += gs * sqrt(l->noise * l->noise + 0.02 * (val > 0 ? val : 0));
                }
                int q = val <= 0 ? 0 : (int)(val + 0.5);
                row[3 * u + (2 - k)] = (unsigned char)(q < 0 ? 0 : q > 255 ? 255 : q);
            }
        }
    }
    if (fx->shake_px >= 1) { /* motion blur: average along a line */
        vis_image *src = NULL;
        int len = (int)fx->shake_px + 1;
        if ((rc = vis_image_clone(img, &src, err)) != 0) {
            vis_image_free(img);
            return rc;
        }
        for (int v = 0; v < r->h; v++)
            for (int u = 0; u < r->w; u++)
                for (int k = 0; k < 3; k++) {
                    int sum = 0;
                    for (int j = 0; j < len; j++) {
                        int su = u + (int)lrint((j - len / 2) * cos(fx->shake_angle));
                        int sv = v + (int)lrint((j - len / 2) * sin(fx->shake_angle));
                        su = su < 0 ? 0 : su >= r->w ? r->w - 1 : su;
                        sv = sv < 0 ? 0 : sv >= r->h ? r->h - 1 : sv;
                        sum += src->data[(size_t)sv * (size_t)src->stride + (size_t)su * 3 + (size_t)k];
                    }
                    img->data[(size_t)v * (size_t)img->stride + (size_t)u * 3 + (size_t)k] =
                        (unsigned char)((sum + len / 2) / len);
                }
        vis_image_free(src);
    }
    if (l->blur > 0.05) {
        vis_image *b = NULL;
        if ((rc = vis_gaussian_blur(img, 0, l->blur, &b, err)) != 0) {
            vis_image_free(img);
            return rc;
        }
        vis_image_free(img);
        img = b;
    }
    if (l->jpeg_quality > 0) {
        unsigned char *jb = NULL;
        size_t jl = 0;
        vis_image *d = NULL;
        if ((rc = vis_image_encode(img, VIS_FORMAT_JPEG, l->jpeg_quality, &jb, &jl, err)) != 0 ||
            (rc = vis_image_decode(jb, jl, 3, &d, err)) != 0) {
            vis_buffer_free(jb);
            vis_image_free(img);
            return rc;
        }
        vis_buffer_free(jb);
        vis_image_free(img);
        img = d;
    }
    *out = img;
    return 0;
}

/* The table's colour at pixel i, shadows included. */
static void sim__table_pixel(const sim__renderer *r, const sim__obj *objs, int n, bool any_hand,
                             size_t i, float c[3])
{
    const float *lit = r->lit + 3 * i, *sh = r->shad + 3 * i;
    double px = r->tpt[2 * i], py = r->tpt[2 * i + 1], s = 0;
    if (!isnan(px)) {
        s = sim__obj_shadow(r, NULL, NULL, px, py, 0);
        if (any_hand && s < 1) {
            double hs = sim__hand_shadow(r, objs, n, px, py, 0);
            if (hs > s)
                s = hs;
        }
    }
    for (int k = 0; k < 3; k++)
        c[k] = (float)(lit[k] + (sh[k] - lit[k]) * s);
}

/* Adaptive anti-aliasing: where the object hit changes between neighbours
 * or an object's colour jumps (a symbol's edge, a card's pip), the pixel
 * becomes the mean of four rays (a rotated grid), as a lens and a sensor
 * would average it.  The table was anti-aliased once, in its cache. */
static void sim__antialias(sim__renderer *r, const sim__obj *objs, int n, bool any_hand)
{
    static const double so[4][2] = {{-0.375, -0.125}, {0.125, -0.375}, {0.375, 0.125},
                                     {-0.125, 0.375}};
    const sim__camera *cam = &r->cam;
    size_t w = (size_t)r->w;
    for (int v = 0; v < r->h; v++)
        for (int u = 0; u < r->w; u++) {
            size_t i = (size_t)v * w + (size_t)u;
            size_t nb[4] = {u + 1 < r->w ? i + 1 : i, v + 1 < r->h ? i + w : i,
                            u > 0 ? i - 1 : i, v > 0 ? i - w : i};
            int id = r->ids[i];
            bool edge = false;
            for (int k = 0; k < 4 && !edge; k++)
                edge = r->ids[nb[k]] != id;
            for (int k = 0; k < 2 && !edge; k++) {
                const float *a = r->buf + 3 * i, *b = r->buf + 3 * nb[k];
                if (id >= 0 && fabsf(a[0] - b[0]) + fabsf(a[1] - b[1]) + fabsf(a[2] - b[2]) > 0.25f)
                    edge = true;
            }
            if (!edge)
                continue;
            {
                size_t t = (size_t)(v / SIM__TILE) * (size_t)r->tw + (size_t)(u / SIM__TILE);
                int q0 = r->tstart[t], q1 = r->tstart[t] + r->tcount[t];
                size_t iu = u + 1 < r->w ? i + 1 : i - 1, iv = v + 1 < r->h ? i + w : i - w;
                double su = u + 1 < r->w ? 1 : -1, sv = v + 1 < r->h ? 1 : -1;
                double xn = r->map[2 * i], yn = r->map[2 * i + 1];
                double dxu = (r->map[2 * iu] - xn) * su, dyu = (r->map[2 * iu + 1] - yn) * su;
                double dxv = (r->map[2 * iv] - xn) * sv, dyv = (r->map[2 * iv + 1] - yn) * sv;
                float acc[3] = {0, 0, 0}, table[3];
                bool have_table = false;
                if (id < 0) {
                    memcpy(table, r->buf + 3 * i, sizeof table);
                    have_table = true;
                }
                for (int k = 0; k < 4; k++) {
                    double sx = xn + so[k][0] * dxu + so[k][1] * dxv;
                    double sy = yn + so[k][0] * dyu + so[k][1] * dyv;
                    sim__hit best = {INFINITY, 0, 0, 0, 0}, h;
                    int bo = -1;
                    sim__v3 d;
                    float c[3];
                    sim__ray(cam, sx, sy, &d);
                    for (int q = q0; q < q1; q++) {
                        const sim__obj *o = &objs[r->titems[q]];
                        if (sx < o->bx0 || sx > o->bx1 || sy < o->by0 || sy > o->by1)
                            continue;
                        if (sim__hit_obj(o, cam->C, d, &h) && h.t < best.t) {
                            best = h;
                            bo = r->titems[q];
                        }
                    }
                    if (bo >= 0)
                        sim__shade(r, objs, n, &objs[bo], &best, cam->C, d, c);
                    else {
                        if (!have_table) {
                            sim__table_pixel(r, objs, n, any_hand, i, table);
                            have_table = true;
                        }
                        memcpy(c, table, sizeof c);
                    }
                    for (int ch = 0; ch < 3; ch++)
                        acc[ch] += c[ch] / 4;
                }
                memcpy(r->buf + 3 * i, acc, sizeof acc);
            }
        }
}

int sim__render(sim__renderer *r, sim__obj *objs, int n, const sim__frame_fx *fx,
                vis_image **out, long *hand_pixels, long *moving_pixels, base_err *err)
{
    const sim__camera *cam = &r->cam;
    sim__v3 O = cam->C;
    long hp = 0, mp = 0;
    int rc;
    for (int k = 0; k < n; k++)
        sim__obj_prepare(r, &objs[k]);
    if ((rc = sim__tiles(r, objs, n)) != 0 || (rc = sim__shadows(r, objs, n)) != 0)
        return base_err_set(err, rc, "sim: out of memory for the scene");
    bool any_hand = false;
    for (int k = 0; k < n; k++)
        any_hand |= objs[k].kind == SIM__HAND;

    for (int ty = 0; ty < r->th; ty++)
        for (int tx = 0; tx < r->tw; tx++) {
            size_t t = (size_t)ty * (size_t)r->tw + (size_t)tx;
            int q0 = r->tstart[t], q1 = r->tstart[t] + r->tcount[t];
            for (int v = ty * SIM__TILE; v < (ty + 1) * SIM__TILE && v < r->h; v++)
                for (int u = tx * SIM__TILE; u < (tx + 1) * SIM__TILE && u < r->w; u++) {
                    size_t i = (size_t)v * (size_t)r->w + (size_t)u;
                    float *c = r->buf + 3 * i;
                    sim__hit best = {INFINITY, 0, 0, 0, 0}, h;
                    int bo = -1;
                    sim__v3 d = {0, 0, -1};
                    bool have_d = false;
                    if (q1 > q0) {
                        float xn = r->map[2 * i], yn = r->map[2 * i + 1];
                        for (int q = q0; q < q1; q++) {
                            const sim__obj *o = &objs[r->titems[q]];
                            if (xn < o->bx0 || xn > o->bx1 || yn < o->by0 || yn > o->by1)
                                continue;
                            if (!have_d) {
                                sim__ray(cam, xn, yn, &d);
                                have_d = true;
                            }
                            if (sim__hit_obj(o, O, d, &h) && h.t < best.t) {
                                best = h;
                                bo = r->titems[q];
                            }
                        }
                    }
                    r->ids[i] = (int16_t)bo;
                    if (bo >= 0) {
                        sim__shade(r, objs, n, &objs[bo], &best, O, d, c);
                        if (objs[bo].kind == SIM__HAND)
                            hp++;
                        if (objs[bo].kind == SIM__HAND || objs[bo].moving)
                            mp++;
                        continue;
                    }
                    sim__table_pixel(r, objs, n, any_hand, i, c);
                }
        }
    sim__antialias(r, objs, n, any_hand);
    if (hand_pixels)
        *hand_pixels = hp;
    if (moving_pixels)
        *moving_pixels = mp;
    return sim__post(r, fx, out, err);
}

bool sim__occluded(const sim__renderer *r, const sim__obj *objs, int n, sim__v3 p)
{
    sim__v3 O = r->cam.C, d = {p.x - O.x, p.y - O.y, p.z - O.z};
    sim__hit h;
    for (int k = 0; k < n; k++) {
        sim__obj o = objs[k];
        sim__obj_basics(&o);
        if (sim__hit_obj(&o, O, d, &h) && h.t < 0.999)
            return true;
    }
    return false;
}
