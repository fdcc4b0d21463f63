/* ui/board.c: text and SVG drawings of a stored position (board.h). */
#include "board.h"

#include <limits.h>
#include <math.h>
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


/* ---- the other games: pieces through the rules codec ---- */

/* The pieces of a stored position of game, decoded; *out malloc'd. */
static int ui__pieces(const char *game, const char *json, rules_piece **out, int *n, base_err *err)
{
    cJSON *pos = cJSON_Parse(json ? json : ""), *pieces, *p;
    int k = 0, rc = 0;
    *out = NULL;
    *n = 0;
    if (!pos)
        return base_err_set(err, BASE_EPARSE, "the stored position is not valid JSON");
    pieces = cJSON_GetObjectItemCaseSensitive(pos, "pieces");
    if (!cJSON_IsArray(pieces)) {
        cJSON_Delete(pos);
        return base_err_set(err, BASE_EPARSE, "the stored position has no \"pieces\" array");
    }
    *out = calloc((size_t)cJSON_GetArraySize(pieces) + 1, sizeof **out);
    if (!*out) {
        cJSON_Delete(pos);
        return base_err_set(err, BASE_ENOMEM, "out of memory");
    }
    cJSON_ArrayForEach(p, pieces)
    {
        if ((rc = rules_piece_from_json(game, p, &(*out)[k], err)) != 0) {
            base_err_prefix(err, "piece %d: ", k + 1);
            break;
        }
        k++;
    }
    cJSON_Delete(pos);
    if (rc != 0) {
        free(*out);
        *out = NULL;
        return rc;
    }
    *n = k;
    return 0;
}

static void ui__svg_head(FILE *f, int w, int h, const char *title, const char *bg)
{
    fprintf(f,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
            "viewBox=\"0 0 %d %d\">\n<title>%s</title>\n"
            "<rect width=\"%d\" height=\"%d\" fill=\"%s\"/>\n",
            w, h, w, h, title, w, h, bg);
}

/* cards: white cards on the grid, rank and suit in the card's colour. */
static int ui__cards_svg(FILE *f, const rules_piece *p, int n)
{
    static const char *const suits[] = {"&#9824;", "&#9829;", "&#9830;", "&#9827;"};
    const int cw = 44, ch = 62, pad = 16;
    int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    char title[64];
    for (int i = 0; i < n; i++) {
        if (i == 0 || p[i].x < x0) x0 = p[i].x;
        if (i == 0 || p[i].y < y0) y0 = p[i].y;
        if (i == 0 || p[i].x > x1) x1 = p[i].x;
        if (i == 0 || p[i].y > y1) y1 = p[i].y;
    }
    snprintf(title, sizeof title, "cards position, %d cards", n);
    ui__svg_head(f, (x1 - x0 + 1) * cw + 2 * pad, (y1 - y0 + 1) * ch + 2 * pad, title, "#2e5e3e");
    for (int i = 0; i < n; i++) {
        int x = pad + (p[i].x - x0) * cw, y = pad + (p[i].y - y0) * ch;
        char name[4];
        if (p[i].c) {
            fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"4\" fill=\"#3451a1\" "
                       "stroke=\"#fff\" stroke-width=\"2\"><title>face down (%d,%d)</title></rect>\n",
                    x + 2, y + 2, cw - 4, ch - 4, p[i].x, p[i].y);
            continue;
        }
        rules_card_name(p[i].a, p[i].b, name);
        fprintf(f,
                "<g class=\"card\"><title>%s (%d,%d)</title><rect x=\"%d\" y=\"%d\" width=\"%d\" "
                "height=\"%d\" rx=\"4\" fill=\"#fdfcf7\" stroke=\"#333\"/>"
                "<text x=\"%d\" y=\"%d\" font-family=\"sans-serif\" font-size=\"17\" "
                "font-weight=\"bold\" text-anchor=\"middle\" fill=\"%s\">%.*s</text>"
                "<text x=\"%d\" y=\"%d\" font-size=\"20\" text-anchor=\"middle\" fill=\"%s\">%s</text>"
                "</g>\n",
                name, p[i].x, p[i].y, x + 2, y + 2, cw - 4, ch - 4, x + cw / 2, y + 24,
                p[i].b == RULES_HEARTS || p[i].b == RULES_DIAMONDS ? "#c62828" : "#111",
                (int)strlen(name) - 1, name, x + cw / 2, y + 48,
                p[i].b == RULES_HEARTS || p[i].b == RULES_DIAMONDS ? "#c62828" : "#111",
                suits[p[i].b & 3]);
    }
    fprintf(f, "</svg>\n");
    return 0;
}

/* cube2: the board's squares (at least 6x6), cubes square, cylinders round. */
static int ui__cube2_svg(FILE *f, const rules_piece *p, int n)
{
    const int cell = 40, pad = 16;
    int cols = 6, rows = 6;
    char title[64];
    for (int i = 0; i < n; i++) {
        if (p[i].x + 1 > cols) cols = p[i].x + 1;
        if (p[i].y + 1 > rows) rows = p[i].y + 1;
    }
    snprintf(title, sizeof title, "cube2 position, %d pieces", n);
    ui__svg_head(f, cols * cell + 2 * pad, rows * cell + 2 * pad, title, "#e9e2d0");
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++)
            fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>\n",
                    pad + c * cell, pad + r * cell, cell, cell, (r + c) % 2 ? "#cdbf9f" : "#ddd2b8");
    for (int i = 0; i < n; i++) {
        int cx = pad + p[i].x * cell + cell / 2, cy = pad + p[i].y * cell + cell / 2;
        const char *fill = p[i].a < 6 ? ui__svg_fill[p[i].a] : "#888";
        if (p[i].b == RULES_C2_CYLINDER)
            fprintf(f, "<circle cx=\"%d\" cy=\"%d\" r=\"14\" fill=\"%s\" stroke=\"#222\">", cx, cy,
                    fill);
        else
            fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"28\" height=\"28\" fill=\"%s\" "
                       "stroke=\"#222\">", cx - 14, cy - 14, fill);
        fprintf(f, "<title>%s %s (%d,%d)</title></%s>\n", rules_color_name(p[i].a),
                p[i].b == RULES_C2_CYLINDER ? "cylinder" : "cube", p[i].x, p[i].y,
                p[i].b == RULES_C2_CYLINDER ? "circle" : "rect");
    }
    fprintf(f, "</svg>\n");
    return 0;
}

/* stack4: the four levels of the 4x4x4 volume side by side, base first;
 * light pieces pale, dark pieces deep, the piece's letter in each cell. */
static int ui__stack4_svg(FILE *f, const rules_piece *p, int n)
{
    static const char *const names[] = {"I", "O", "L", "T", "S", "SR", "SL", "Y"};
    const int cell = 26, pad = 16, gap = 20;
    char title[64];
    snprintf(title, sizeof title, "stack4 position, %d pieces", n);
    ui__svg_head(f, 4 * (4 * cell + gap) - gap + 2 * pad, 4 * cell + 2 * pad + 18, title, "#f1ede4");
    for (int z = 0; z < 4; z++) {
        int ox = pad + z * (4 * cell + gap), oy = pad + 18;
        fprintf(f, "<text x=\"%d\" y=\"%d\" font-family=\"sans-serif\" font-size=\"12\">level %d</text>\n",
                ox, pad + 10, z + 1);
        for (int y = 0; y < 4; y++)
            for (int x = 0; x < 4; x++)
                fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#fff\" "
                           "stroke=\"#bbb\"/>\n", ox + x * cell, oy + y * cell, cell, cell);
        for (int i = 0; i < n; i++)
            for (int k = 0; k < p[i].ncells && k < 4; k++) {
                int x = p[i].cells[k][0], y = p[i].cells[k][1];
                if (p[i].cells[k][2] != z || x < 0 || x > 3 || y < 0 || y > 3)
                    continue;
                fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\" "
                           "stroke=\"#555\"><title>%s %s</title></rect>"
                           "<text x=\"%d\" y=\"%d\" font-family=\"sans-serif\" font-size=\"10\" "
                           "text-anchor=\"middle\" fill=\"%s\">%s</text>\n",
                        ox + x * cell, oy + y * cell, cell, cell, p[i].owner ? "#5a3d2b" : "#e8c98f",
                        p[i].owner ? "dark" : "light", names[p[i].a & 7], ox + x * cell + cell / 2,
                        oy + y * cell + cell / 2 + 4, p[i].owner ? "#fff" : "#000",
                        names[p[i].a & 7]);
            }
    }
    fprintf(f, "</svg>\n");
    return 0;
}

/* cubed: pointy-top hexagons of three rhombi each, in the parity's order. */
static int ui__cubed_svg(FILE *f, const rules_piece *p, int n)
{
    static const char *const extra[] = {"#111", "#f5f5f5"}; /* black, white */
    const double size = 22, pad = 30;
    double minx = 0, miny = 0, maxx = 0, maxy = 0;
    char title[64];
    for (int i = 0; i < n; i++) {
        double cx = size * 1.7320508 * (p[i].x + p[i].y / 2.0), cy = size * 1.5 * p[i].y;
        if (i == 0 || cx < minx) minx = cx;
        if (i == 0 || cy < miny) miny = cy;
        if (i == 0 || cx > maxx) maxx = cx;
        if (i == 0 || cy > maxy) maxy = cy;
    }
    snprintf(title, sizeof title, "cubed position, %d pieces", n);
    ui__svg_head(f, (int)(maxx - minx + 2 * pad + 2 * size), (int)(maxy - miny + 2 * pad + 2 * size),
                 title, "#e9e2d0");
    for (int i = 0; i < n; i++) {
        double cx = size * 1.7320508 * (p[i].x + p[i].y / 2.0) - minx + pad + size;
        double cy = size * 1.5 * p[i].y - miny + pad + size, vx[6], vy[6];
        const uint8_t faces[3] = {p[i].a, p[i].b, p[i].c};
        for (int k = 0; k < 6; k++) {
            double a = (-90 + 60 * k) * 3.14159265358979 / 180;
            vx[k] = cx + size * cos(a);
            vy[k] = cy + size * sin(a);
        }
        fprintf(f, "<g class=\"piece\"><title>%s %s %s (%d,%d) parity %d</title>",
                rules_color_name(faces[0]), rules_color_name(faces[1]), rules_color_name(faces[2]),
                p[i].x, p[i].y, p[i].parity);
        for (int r = 0; r < 3; r++) {
            /* parity 0: edges {5,0} {1,2} {3,4}; parity 1: {0,1} {2,3} {4,5} */
            int v0 = (p[i].parity ? 0 : 5) + 2 * r;
            const char *fill = faces[r] < 6 ? ui__svg_fill[faces[r]] : extra[(faces[r] - 6) & 1];
            fprintf(f, "<polygon points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f %.1f,%.1f\" fill=\"%s\" "
                       "stroke=\"#333\"/>",
                    cx, cy, vx[v0 % 6], vy[v0 % 6], vx[(v0 + 1) % 6], vy[(v0 + 1) % 6],
                    vx[(v0 + 2) % 6], vy[(v0 + 2) % 6], fill);
        }
        fprintf(f, "</g>\n");
    }
    fprintf(f, "</svg>\n");
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

bool ui_board_has_svg(const char *game)
{
    static const char *const drawn[] = {"qwirkle", "cards", "cube2", "stack4", "cubed"};
    for (size_t i = 0; game && i < sizeof drawn / sizeof drawn[0]; i++)
        if (strcmp(game, drawn[i]) == 0)
            return true;
    return false;
}

int ui_board_svg(FILE *f, const char *game, const char *position_json, base_err *err)
{
    rules_piece *p;
    int n, rc;
    if (strcmp(game, "qwirkle") == 0)
        return ui__qwirkle_svg(f, position_json, err);
    if (!ui_board_has_svg(game))
        return base_err_set(err, BASE_EUNSUPPORTED, "there is no SVG drawing for %s", game);
    if ((rc = ui__pieces(game, position_json, &p, &n, err)) != 0)
        return rc;
    if (strcmp(game, "cards") == 0)
        rc = ui__cards_svg(f, p, n);
    else if (strcmp(game, "cube2") == 0)
        rc = ui__cube2_svg(f, p, n);
    else if (strcmp(game, "stack4") == 0)
        rc = ui__stack4_svg(f, p, n);
    else
        rc = ui__cubed_svg(f, p, n);
    free(p);
    return rc;
}
