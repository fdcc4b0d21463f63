/* calib/profile.c: calibration profiles as JSON documents (see calib.h). */
#include "calib.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

static const char *const cal__colors[6] = {"red", "orange", "yellow", "green", "blue", "purple"};

static int cal__dup(cJSON *root, char **out, base_err *err)
{
    char *s = root ? cJSON_PrintUnformatted(root) : NULL;
    cJSON_Delete(root);
    if (!s)
        return base_err_set(err, BASE_ENOMEM, "out of memory");
    *out = malloc(strlen(s) + 1);
    if (*out)
        strcpy(*out, s);
    cJSON_free(s);
    return *out ? 0 : base_err_set(err, BASE_ENOMEM, "out of memory");
}

int cal_colors_to_json(const vis_qwirkle_profile *p, char **json, base_err *err)
{
    cJSON *root = cJSON_CreateObject(), *hue = cJSON_CreateObject(), *sat = cJSON_CreateObject();
    if (!root || !hue || !sat) {
        cJSON_Delete(root);
        cJSON_Delete(hue);
        cJSON_Delete(sat);
        return base_err_set(err, BASE_ENOMEM, "out of memory");
    }
    cJSON_AddStringToObject(root, "kind", CAL_KIND_COLORS);
    cJSON_AddStringToObject(root, "game", "qwirkle");
    for (int k = 0; k < 6; k++) {
        cJSON_AddNumberToObject(hue, cal__colors[k], round(p->hue[k] * 100) / 100);
        cJSON_AddNumberToObject(sat, cal__colors[k], round(p->sat[k] * 100) / 100);
    }
    cJSON_AddItemToObject(root, "hue", hue);
    cJSON_AddItemToObject(root, "sat", sat);
    return cal__dup(root, json, err);
}

static cJSON *cal__parse_kind(const char *json, const char *kind, base_err *err)
{
    cJSON *root = json ? cJSON_Parse(json) : NULL;
    const cJSON *k;
    if (!cJSON_IsObject(root)) {
        cJSON_Delete(root);
        base_err_set(err, BASE_EPARSE, "a calibration profile must be a JSON object");
        return NULL;
    }
    k = cJSON_GetObjectItemCaseSensitive(root, "kind");
    if (!cJSON_IsString(k) || strcmp(k->valuestring, kind) != 0) {
        base_err_set(err, BASE_EPARSE, "the profile's \"kind\" is %s%s%s, expected \"%s\"",
                     cJSON_IsString(k) ? "\"" : "", cJSON_IsString(k) ? k->valuestring : "missing",
                     cJSON_IsString(k) ? "\"" : "", kind);
        cJSON_Delete(root);
        return NULL;
    }
    return root;
}

int cal_colors_from_json(const char *json, vis_qwirkle_profile *out, base_err *err)
{
    cJSON *root = cal__parse_kind(json, CAL_KIND_COLORS, err);
    vis_qwirkle_profile p;
    if (!root)
        return err ? err->code : BASE_EPARSE;
    for (int k = 0; k < 6; k++) {
        const cJSON *h = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(root, "hue"), cal__colors[k]);
        const cJSON *s = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(root, "sat"), cal__colors[k]);
        if (!cJSON_IsNumber(h) || h->valuedouble < 0 || h->valuedouble >= 180) {
            cJSON_Delete(root);
            return base_err_set(err, BASE_EPARSE,
                                "colour profile: \"hue\".\"%s\" must be a number 0..179",
                                cal__colors[k]);
        }
        if (!cJSON_IsNumber(s) || s->valuedouble < 0 || s->valuedouble > 255) {
            cJSON_Delete(root);
            return base_err_set(err, BASE_EPARSE,
                                "colour profile: \"sat\".\"%s\" must be a number 0..255",
                                cal__colors[k]);
        }
        p.hue[k] = (float)h->valuedouble;
        p.sat[k] = (float)s->valuedouble;
    }
    cJSON_Delete(root);
    *out = p;
    return 0;
}

int cal_camera_to_json(const vis_camera *c, int width, int height, double rms, char **json,
                       base_err *err)
{
    cJSON *root = cJSON_CreateObject(), *d = cJSON_CreateArray();
    if (!root || !d) {
        cJSON_Delete(root);
        cJSON_Delete(d);
        return base_err_set(err, BASE_ENOMEM, "out of memory");
    }
    cJSON_AddStringToObject(root, "kind", CAL_KIND_CAMERA);
    cJSON_AddNumberToObject(root, "width", width);
    cJSON_AddNumberToObject(root, "height", height);
    cJSON_AddNumberToObject(root, "fx", c->fx);
    cJSON_AddNumberToObject(root, "fy", c->fy);
    cJSON_AddNumberToObject(root, "cx", c->cx);
    cJSON_AddNumberToObject(root, "cy", c->cy);
    for (int i = 0; i < 8; i++)
        cJSON_AddItemToArray(d, cJSON_CreateNumber(c->dist[i]));
    cJSON_AddItemToObject(root, "dist", d);
    cJSON_AddNumberToObject(root, "rms_px", rms);
    return cal__dup(root, json, err);
}

int cal_camera_from_json(const char *json, vis_camera *out, int *width, int *height,
                         base_err *err)
{
    static const char *const keys[4] = {"fx", "fy", "cx", "cy"};
    cJSON *root = cal__parse_kind(json, CAL_KIND_CAMERA, err);
    const cJSON *d, *w, *h;
    vis_camera c;
    double v[4];
    if (!root)
        return err ? err->code : BASE_EPARSE;
    memset(&c, 0, sizeof c);
    for (int i = 0; i < 4; i++) {
        const cJSON *x = cJSON_GetObjectItemCaseSensitive(root, keys[i]);
        if (!cJSON_IsNumber(x) || !(x->valuedouble > 0)) {
            cJSON_Delete(root);
            return base_err_set(err, BASE_EPARSE, "camera profile: \"%s\" must be a positive number",
                                keys[i]);
        }
        v[i] = x->valuedouble;
    }
    c.fx = v[0];
    c.fy = v[1];
    c.cx = v[2];
    c.cy = v[3];
    d = cJSON_GetObjectItemCaseSensitive(root, "dist");
    if (!cJSON_IsArray(d) || cJSON_GetArraySize(d) < 4 || cJSON_GetArraySize(d) > 8) {
        cJSON_Delete(root);
        return base_err_set(err, BASE_EPARSE, "camera profile: \"dist\" must be 4 to 8 numbers");
    }
    for (int i = 0; i < cJSON_GetArraySize(d); i++) {
        const cJSON *x = cJSON_GetArrayItem(d, i);
        if (!cJSON_IsNumber(x)) {
            cJSON_Delete(root);
            return base_err_set(err, BASE_EPARSE, "camera profile: \"dist\"[%d] is not a number", i);
        }
        c.dist[i] = x->valuedouble;
    }
    w = cJSON_GetObjectItemCaseSensitive(root, "width");
    h = cJSON_GetObjectItemCaseSensitive(root, "height");
    if (width)
        *width = cJSON_IsNumber(w) ? w->valueint : 0;
    if (height)
        *height = cJSON_IsNumber(h) ? h->valueint : 0;
    cJSON_Delete(root);
    *out = c;
    return 0;
}

int cal_profile_kind(const char *json, char *kind, size_t cap, base_err *err)
{
    cJSON *root = json ? cJSON_Parse(json) : NULL;
    const cJSON *k = cJSON_GetObjectItemCaseSensitive(root, "kind");
    if (!cJSON_IsString(k)) {
        cJSON_Delete(root);
        return base_err_set(err, BASE_EPARSE,
                            "not a calibration profile (a JSON object with a \"kind\")");
    }
    snprintf(kind, cap, "%s", k->valuestring);
    cJSON_Delete(root);
    return 0;
}

int cal_profile_read(const char *path, char **json, base_err *err)
{
    FILE *f = fopen(path, "rb");
    long n;
    char *buf;
    if (!f)
        return base_err_set(err, errno == ENOENT ? BASE_ENOTFOUND : BASE_EIO, "%s: %s", path,
                            strerror(errno));
    if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || n > (1 << 20) ||
        fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return base_err_set(err, BASE_EIO, "%s: not a readable profile file (at most 1 MiB)", path);
    }
    if (!(buf = malloc((size_t)n + 1))) {
        fclose(f);
        return base_err_set(err, BASE_ENOMEM, "out of memory");
    }
    if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
        fclose(f);
        free(buf);
        return base_err_set(err, BASE_EIO, "%s: read error", path);
    }
    fclose(f);
    buf[n] = 0;
    *json = buf;
    return 0;
}

int cal_profile_write(const char *path, const char *json, base_err *err)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return base_err_set(err, BASE_EIO, "%s: %s", path, strerror(errno));
    if (fputs(json, f) < 0 || fputc('\n', f) < 0) {
        fclose(f);
        return base_err_set(err, BASE_EIO, "%s: write error", path);
    }
    if (fclose(f) != 0)
        return base_err_set(err, BASE_EIO, "%s: write error", path);
    return 0;
}
