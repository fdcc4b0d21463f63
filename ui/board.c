/* ui/board.c: text and SVG drawings of a stored position (board.h). */
#include "board.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "rules.h"

typedef struct ui__cube {
    int x, y, color, shape;
} ui__cube;

/* Reads the "pieces" of a qwirkle position with the names alone: a stored
 * position must stay drawable whether or not the engine is built. */
static int ui__qwirkle_cubes(const char *json, ui__cube **out, int *n, base_err *err)
{
    cJSON *pos = cJSON_Parse(json ? json : "");
    const cJSON *pieces, *p;
    ui__cube *cubes;
    int k = 0;

    *out = NULL;
    *n = 0;
    if (!pos)
        return base_err_set(err, BASE_EPARSE, "the stored position is not valid JSON");
    pieces = cJSON_GetObjectItemCaseSensitive(pos, "pieces");
    if (!cJSON_IsArray(pieces)) {
        cJSON_Delete(pos);
        return base_err_set(err, BASE_EPARSE, "the stored position has no \"pieces\" array");
    }
    cubes = calloc((size_t)cJSON_GetArraySize(pieces) + 1, sizeof *cubes);
    if (!cubes) {
        cJSON_Delete(pos);
        return base_err_set(err, BASE_ENOMEM, "out of memory");
    }
    cJSON_ArrayForEach(p, pieces)
    {
        const cJSON *x = cJSON_GetObjectItemCaseSensitive(p, "x");
        const cJSON *y = cJSON_GetObjectItemCaseSensitive(p, "y");
        const cJSON *c = cJSON_GetObjectItemCaseSensitive(p, "color");
        const cJSON *s = cJSON_GetObjectItemCaseSensitive(p, "shape");
        ui__cube *q = &cubes[k];
        if (!cJSON_IsNumber(x) || !cJSON_IsNumber(y) || !cJSON_IsString(c) ||
            !cJSON_IsString(s) || x->valuedouble < -10000 ||
            x->valuedouble > 10000 || y->valuedouble < -10000 || y->valuedouble > 10000) {
            free(cubes);
            cJSON_Delete(pos);
            return base_err_set(err, BASE_EPARSE,
                                "piece %d of the stored position is not a qwirkle cube "
                                "(x, y, color, shape)",
                                k + 1);
        }
        q->x = x->valueint;
        q->y = y->valueint;
        q->color = rules_color_from_name(c->valuestring);
        q->shape = rules_shape_from_name(s->valuestring);
        if (q->color < 0 || q->color > RULES_PURPLE || q->shape < 0) {
            free(cubes);
            cJSON_Delete(pos);
            return base_err_set(err, BASE_EPARSE,
                                "piece %d of the stored position: unknown colour or shape "
                                "('%s', '%s')",
                                k + 1, c->valuestring, s->valuestring);
        }
        k++;
    }
    cJSON_Delete(pos);
    *out = cubes;
    *n = k;
    return 0;
}

static void ui__bounds(const ui__cube *c, int n, int *x0, int *y0, int *x1, int *y1)
{
    *x0 = *y0 = INT_MAX;
    *x1 = *y1 = INT_MIN;
    for (int i = 0; i < n; i++) {
        *x0 = c[i].x < *x0 ? c[i].x : *x0;
        *y0 = c[i].y < *y0 ? c[i].y : *y0;
        *x1 = c[i].x > *x1 ? c[i].x : *x1;
        *y1 = c[i].y > *y1 ? c[i].y : *y1;
    }
}

static const char ui__color_letter[] = "ROYGBP";
static const char ui__shape_symbol[] = "osdc48";

static int ui__qwirkle_text(FILE *f, const char *json, base_err *err)
{
    ui__cube *c;
    int n, rc, x0, y0, x1, y1;
    if ((rc = ui__qwirkle_cubes(json, &c, &n, err)) != 0)
        return rc;
    if (n == 0) {
        fprintf(f, "(the table is empty)\n");
        free(c);
        return 0;
    }
    ui__bounds(c, n, &x0, &y0, &x1, &y1);
    fprintf(f, "    ");
    for (int x = x0; x <= x1; x++)
        fprintf(f, "%3d", x);
    fputc('\n', f);
    for (int y = y0; y <= y1; y++) {
        fprintf(f, "%4d", y);
        for (int x = x0; x <= x1; x++) {
            const ui__cube *q = NULL;
            for (int i = 0; i < n; i++)
                if (c[i].x == x && c[i].y == y)
                    q = &c[i];
            if (q)
                fprintf(f, " %c%c", ui__color_letter[q->color], ui__shape_symbol[q->shape]);
            else
                fprintf(f, "  .");
        }
        fputc('\n', f);
    }
    fprintf(f, "%d cubes.  colours R red, O orange, Y yellow, G green, B blue, P purple; "
               "shapes o circle, s square, d diamond, c clover, 4 star4, 8 star8\n",
            n);
    free(c);
    return 0;
}

static const char *const ui__svg_fill[] = {"#e53935", "#fb8c00", "#fdd835",
                                           "#43a047", "#1e88e5", "#8e24aa"};

/* Unit vectors every 22.5 degrees from straight up, clockwise: stars need
 * no libm. */
static const double ui__dir[16][2] = {
    {0, -1},        {0.3827, -0.9239}, {0.7071, -0.7071}, {0.9239, -0.3827},
    {1, 0},         {0.9239, 0.3827},  {0.7071, 0.7071},  {0.3827, 0.9239},
    {0, 1},         {-0.3827, 0.9239}, {-0.7071, 0.7071}, {-0.9239, 0.3827},
    {-1, 0},        {-0.9239, -0.3827}, {-0.7071, -0.7071}, {-0.3827, -0.9239},
};

/* A star of k points (4 or 8), outer radius ro, inner ri, centred on 0,0. */
static void ui__svg_star(FILE *f, int k, double ro, double ri, const char *fill)
{
    int step = 16 / (2 * k);
    fprintf(f, "<polygon fill=\"%s\" points=\"", fill);
    for (int i = 0; i < 2 * k; i++) {
        double r = i % 2 ? ri : ro;
        fprintf(f, "%s%.1f,%.1f", i ? " " : "", r * ui__dir[i * step][0], r * ui__dir[i * step][1]);
    }
    fprintf(f, "\"/>");
}

static void ui__svg_shape(FILE *f, int shape, const char *fill)
{
    switch (shape) {
    case RULES_CIRCLE:
        fprintf(f, "<circle r=\"11\" fill=\"%s\"/>", fill);
        break;
    case RULES_SQUARE:
        fprintf(f, "<rect x=\"-10\" y=\"-10\" width=\"20\" height=\"20\" fill=\"%s\"/>", fill);
        break;
    case RULES_DIAMOND:
        fprintf(f, "<polygon points=\"0,-13 13,0 0,13 -13,0\" fill=\"%s\"/>", fill);
        break;
    case RULES_CLOVER:
        fprintf(f,
                "<g fill=\"%s\"><circle cx=\"-6\" r=\"6\"/><circle cx=\"6\" r=\"6\"/>"
                "<circle cy=\"-6\" r=\"6\"/><circle cy=\"6\" r=\"6\"/></g>",
                fill);
        break;
    case RULES_STAR4:
        ui__svg_star(f, 4, 14, 5, fill);
        break;
    default:
        ui__svg_star(f, 8, 14, 7, fill);
        break;
    }
}

static int ui__qwirkle_svg(FILE *f, const char *json, base_err *err)
{
    const int cell = 40, pad = 20;
    ui__cube *c;
    int n, rc, x0 = 0, y0 = 0, x1 = 0, y1 = 0, w, h;
    if ((rc = ui__qwirkle_cubes(json, &c, &n, err)) != 0)
        return rc;
    if (n > 0)
        ui__bounds(c, n, &x0, &y0, &x1, &y1);
    w = (x1 - x0 + 1) * cell + 2 * pad;
    h = (y1 - y0 + 1) * cell + 2 * pad;
    fprintf(f,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
            "viewBox=\"0 0 %d %d\">\n"
            "<title>qwirkle position, %d cubes</title>\n"
            "<rect width=\"%d\" height=\"%d\" fill=\"#d8cfc0\"/>\n",
            w, h, w, h, n, w, h);
    for (int i = 0; i < n; i++) {
        int cx = pad + (c[i].x - x0) * cell + cell / 2, cy = pad + (c[i].y - y0) * cell + cell / 2;
        fprintf(f, "<g class=\"cube\" transform=\"translate(%d,%d)\"><title>%s %s (%d,%d)</title>",
                cx, cy, rules_color_name(c[i].color), rules_shape_name(c[i].shape), c[i].x,
                c[i].y);
        fprintf(f, "<rect x=\"-18\" y=\"-18\" width=\"36\" height=\"36\" rx=\"5\" fill=\"#111\"/>");
        ui__svg_shape(f, c[i].shape, ui__svg_fill[c[i].color]);
        fprintf(f, "</g>\n");
    }
    fprintf(f, "</svg>\n");
    free(c);
    return 0;
}

/* Games without a drawing: their pieces, one a line, as stored. */
static int ui__list_text(FILE *f, const char *game, const char *json, base_err *err)
{
    cJSON *pos = cJSON_Parse(json ? json : "");
    const cJSON *pieces, *p;
    int n = 0;
    if (!pos)
        return base_err_set(err, BASE_EPARSE, "the stored position is not valid JSON");
    pieces = cJSON_GetObjectItemCaseSensitive(pos, "pieces");
    if (!cJSON_IsArray(pieces)) {
        cJSON_Delete(pos);
        return base_err_set(err, BASE_EPARSE, "the stored position has no \"pieces\" array");
    }
    fprintf(f, "(no board drawing for %s yet; the pieces on the table:)\n", game);
    cJSON_ArrayForEach(p, pieces)
    {
        char *s = cJSON_PrintUnformatted(p);
        fprintf(f, "  %s\n", s ? s : "?");
        cJSON_free(s);
        n++;
    }
    fprintf(f, "%d piece%s\n", n, n == 1 ? "" : "s");
    cJSON_Delete(pos);
    return 0;
}

int ui_board_text(FILE *f, const char *game, const char *position_json, base_err *err)
{
    if (strcmp(game, "qwirkle") == 0)
        return ui__qwirkle_text(f, position_json, err);
    return ui__list_text(f, game, position_json, err);
}

bool ui_board_has_svg(const char *game) { return strcmp(game, "qwirkle") == 0; }

int ui_board_svg(FILE *f, const char *game, const char *position_json, base_err *err)
{
    if (strcmp(game, "qwirkle") == 0)
        return ui__qwirkle_svg(f, position_json, err);
    return base_err_set(err, BASE_EUNSUPPORTED, "there is no SVG drawing for %s yet", game);
}
