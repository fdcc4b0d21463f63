/* ui/pdf.h: a tiny PDF writer for printouts at true size (the table mat,
 * calibration boards): pages in millimetres, filled rectangles, lines and
 * Helvetica text.  Nothing else is needed to print a marker exactly. */
#ifndef TABLECAM_UI_PDF_H
#define TABLECAM_UI_PDF_H

#include "base.h"

typedef struct ui_pdf ui_pdf;

int ui_pdf_new(ui_pdf **out);
void ui_pdf_free(ui_pdf *p);

/* Starts a new page of w x h mm; later calls draw on it.  Coordinates are
 * mm from the page's top-left corner, y downward. */
int ui_pdf_page(ui_pdf *p, double w_mm, double h_mm);
/* A filled rectangle, grey 0 (black) .. 1 (white). */
int ui_pdf_rect(ui_pdf *p, double x, double y, double w, double h, double grey);
int ui_pdf_line(ui_pdf *p, double x0, double y0, double x1, double y1, double width_mm);
/* Text with its baseline starting at (x, y), size in points; ASCII only. */
int ui_pdf_text(ui_pdf *p, double x, double y, double size_pt, const char *text);

/* Writes the document; err names the path when it cannot. */
int ui_pdf_save(ui_pdf *p, const char *path, base_err *err);

#endif
