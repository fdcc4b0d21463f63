/* ui/cmd_mat.c: `tablecam mat --out FILE.pdf|png [--mat WxH:S] [--dpi N]`
 * prints the table mat's four markers at true size, each with a one-line
 * instruction.  PDF: one A4 page a marker (vector, exact size when printed
 * at 100%).  PNG: the whole mat laid out at --dpi (default 150). */
#include "ui.h"

#include <stdlib.h>
#include <string.h>

#include "calib.h"
#include "pdf.h"

static const char *const ui__corner[4] = {"TOP-LEFT", "TOP-RIGHT", "BOTTOM-RIGHT",
                                          "BOTTOM-LEFT"};

static void ui__instruction(cal_mat m, int id, char *buf, size_t n)
{
    snprintf(buf, n,
             "Marker %d: lay it flat at the %s corner of the play area, upright; "
             "marker centres are %g mm apart across and %g mm apart down.",
             id, ui__corner[id], m.w, m.h);
}

static int ui__mat_pdf(cal_mat m, const char *path, base_err *err)
{
    const double pw = 210, ph = 297; /* A4 */
    ui_pdf *p = NULL;
    int rc = ui_pdf_new(&p);
    if (rc)
        return base_err_set(err, rc, "out of memory");
    if (m.s + 20 > pw - 20)
        rc = base_err_set(err, BASE_ERANGE, "a %g mm marker does not fit on an A4 page", m.s);
    for (int id = 0; id < 4 && rc == 0; id++) {
        unsigned char cells[16];
        char line[256];
        double cell = m.s / 6, x0 = (pw - m.s) / 2, y0 = 60;
        if ((rc = vis_aruco_marker_cells(id, cells, err)) != 0)
            break;
        ui_pdf_page(p, pw, ph);
        ui_pdf_text(p, 15, 20, 16, "tablecam table mat");
        ui__instruction(m, id, line, sizeof line);
        ui_pdf_text(p, 15, 30, 8.5, line);
        snprintf(line, sizeof line,
                 "Print at 100%% (actual size, no scaling): the black square must measure "
                 "%g mm; the ruler below is 100 mm.",
                 m.s);
        ui_pdf_text(p, 15, 38, 8.5, line);
        /* The black border and the black inner cells. */
        ui_pdf_rect(p, x0, y0, m.s, m.s, 0);
        for (int r = 0; r < 4; r++)
            for (int c = 0; c < 4; c++)
                if (cells[r * 4 + c])
                    ui_pdf_rect(p, x0 + (c + 1) * cell, y0 + (r + 1) * cell, cell, cell, 1);
        /* A 100 mm ruler with 10 mm ticks, to check the printer's scale. */
        {
            double ry = y0 + m.s + 30;
            ui_pdf_line(p, 55, ry, 155, ry, 0.3);
            for (int k = 0; k <= 10; k++)
                ui_pdf_line(p, 55 + 10 * k, ry - (k % 5 ? 2 : 4), 55 + 10 * k, ry, 0.3);
            ui_pdf_text(p, 55, ry + 6, 8, "0");
            ui_pdf_text(p, 150, ry + 6, 8, "100 mm");
        }
        snprintf(line, sizeof line, "id %d, dictionary ArUco 4x4_50, side %g mm", id, m.s);
        ui_pdf_text(p, x0, y0 + m.s + 8, 8, line);
    }
    if (rc == 0)
        rc = ui_pdf_save(p, path, err);
    ui_pdf_free(p);
    return rc;
}

static int ui__mat_png(cal_mat m, double dpi, const char *path, base_err *err)
{
    const double ppm = dpi / 25.4, margin = m.s; /* mm of paper around the markers */
    int w = (int)((m.w + 2 * margin) * ppm + 0.5), h = (int)((m.h + 2 * margin) * ppm + 0.5);
    vis_image *img = NULL;
    int rc;

    if (w > VIS_IMAGE_MAX_SIDE || h > VIS_IMAGE_MAX_SIDE)
        return base_err_set(err, BASE_ERANGE, "a %d x %d px image is too large: lower --dpi", w, h);
    if ((rc = vis_image_new(w, h, 3, &img, err)) != 0)
        return rc;
    vis_image_fill(img, vis_grey(255), NULL);
    for (int id = 0; id < 4 && rc == 0; id++) {
        vis_point c[4];
        unsigned char cells[16];
        char line[256];
        double cell = m.s / 6;
        if ((rc = vis_aruco_marker_cells(id, cells, err)) != 0)
            break;
        cal_mat_marker_corners(m, id, c);
        for (int r = 0; r < 6; r++)
            for (int k = 0; k < 6; k++) {
                bool white = r > 0 && r < 5 && k > 0 && k < 5 && cells[(r - 1) * 4 + (k - 1)];
                double x0 = (c[0].x + margin + k * cell) * ppm, y0 = (c[0].y + margin + r * cell) * ppm;
                vis_point q[4] = {{x0, y0}, {x0 + cell * ppm, y0}, {x0 + cell * ppm, y0 + cell * ppm},
                                  {x0, y0 + cell * ppm}};
                if (!white)
                    vis_draw_polygon(img, q, 4, vis_grey(0), VIS_FILLED, 1, 0, NULL);
            }
        snprintf(line, sizeof line, "Marker %d: %s corner", id, ui__corner[id]);
        /* Labels of the right-hand markers run leftward into the mat. */
        vis_draw_text(img, line,
                      (vis_point){(c[0].x + margin - (id == 1 || id == 2 ? 2.6 * m.s : 0)) * ppm,
                                  (c[3].y + margin) * ppm + 0.25 * m.s * ppm},
                      0.004 * m.s * ppm, vis_grey(0), 1, VIS_DRAW_AA, NULL);
    }
    if (rc == 0) {
        char line[160];
        snprintf(line, sizeof line, "tablecam mat %gx%g:%g mm at %g dpi: print at 100%%", m.w, m.h,
                 m.s, dpi);
        vis_draw_text(img, line, (vis_point){(margin + m.s) * ppm, (margin + 0.5 * m.h) * ppm},
                      0.004 * m.s * ppm, vis_grey(0), 1, VIS_DRAW_AA, NULL);
        rc = vis_image_write(path, img, 0, err);
    }
    vis_image_free(img);
    return rc;
}

static bool ui__ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    if (n < k)
        return false;
    for (size_t i = 0; i < k; i++)
        if ((s[n - k + i] | 0x20) != suffix[i])
            return false;
    return true;
}

int ui_cmd_mat(int argc, char **argv)
{
    const ui_command *self = ui_command_find("mat");
    const char *out = NULL, *mat = NULL, *dpi_s = NULL, *pos[1];
    ui_opt opts[] = {
        {"--out", UI_OPT_VALUE, &out, NULL},
        {"--mat", UI_OPT_VALUE, &mat, NULL},
        {"--dpi", UI_OPT_VALUE, &dpi_s, NULL},
    };
    int npos, rc;
    cal_mat m = cal_mat_default();
    base_err err;
    double dpi = 150;

    if ((rc = ui_parse_args(self, argc, argv, opts, 3, pos, 0, &npos)) != 0)
        return rc;
    if (!out) {
        ui_usage(self, stderr);
        return UI_EXIT_USAGE;
    }
    if (mat && cal_mat_parse(mat, &m, &err) != 0)
        return ui_fail(self, UI_EXIT_USAGE, "--mat: %s", err.msg);
    if (dpi_s) {
        char *end;
        dpi = strtod(dpi_s, &end);
        if (*end || !(dpi >= 50 && dpi <= 1200))
            return ui_fail(self, UI_EXIT_USAGE, "--dpi '%s': a number from 50 to 1200", dpi_s);
    }
    if (ui__ends_with(out, ".pdf"))
        rc = ui__mat_pdf(m, out, &err);
    else if (ui__ends_with(out, ".png"))
        rc = ui__mat_png(m, dpi, out, &err);
    else
        return ui_fail(self, UI_EXIT_USAGE, "--out '%s': the file must end in .pdf or .png", out);
    if (rc != 0)
        return ui_fail(self, UI_EXIT_FAIL, "%s", err.msg);
    printf("wrote %s: markers 0-3, %g mm, centres %g x %g mm apart\n", out, m.s, m.w, m.h);
    return UI_EXIT_OK;
}
