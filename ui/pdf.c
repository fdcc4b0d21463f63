/* ui/pdf.c: a minimal PDF 1.4 writer (uncompressed content streams). */
#include "pdf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define UI__PT_PER_MM (72.0 / 25.4)

typedef struct ui__buf {
    char *s;
    size_t len, cap;
} ui__buf;

typedef struct ui__page {
    double w, h; /* points */
    ui__buf content;
} ui__page;

struct ui_pdf {
    ui__page *pages;
    int npages, cap;
};

static int ui__printf(ui__buf *b, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        int n;
        size_t room = b->cap - b->len;
        va_start(ap, fmt);
        n = vsnprintf(b->s ? b->s + b->len : NULL, room, fmt, ap);
        va_end(ap);
        if (n < 0)
            return BASE_EINVAL;
        if ((size_t)n < room) {
            b->len += (size_t)n;
            return 0;
        }
        size_t cap = (b->cap + (size_t)n + 1) * 2;
        char *s = realloc(b->s, cap);
        if (!s)
            return BASE_ENOMEM;
        b->s = s;
        b->cap = cap;
    }
}

int ui_pdf_new(ui_pdf **out)
{
    *out = calloc(1, sizeof **out);
    return *out ? 0 : BASE_ENOMEM;
}

void ui_pdf_free(ui_pdf *p)
{
    if (!p)
        return;
    for (int i = 0; i < p->npages; i++)
        free(p->pages[i].content.s);
    free(p->pages);
    free(p);
}

int ui_pdf_page(ui_pdf *p, double w_mm, double h_mm)
{
    if (p->npages == p->cap) {
        int cap = p->cap ? p->cap * 2 : 4;
        ui__page *pg = realloc(p->pages, sizeof *pg * (size_t)cap);
        if (!pg)
            return BASE_ENOMEM;
        p->pages = pg;
        p->cap = cap;
    }
    memset(&p->pages[p->npages], 0, sizeof p->pages[0]);
    p->pages[p->npages].w = w_mm * UI__PT_PER_MM;
    p->pages[p->npages].h = h_mm * UI__PT_PER_MM;
    p->npages++;
    return 0;
}

static ui__page *ui__cur(ui_pdf *p) { return p->npages ? &p->pages[p->npages - 1] : NULL; }

int ui_pdf_rect(ui_pdf *p, double x, double y, double w, double h, double grey)
{
    ui__page *pg = ui__cur(p);
    if (!pg)
        return BASE_ESTATE;
    /* PDF's y grows upward from the bottom of the page. */
    return ui__printf(&pg->content, "%.3f g %.4f %.4f %.4f %.4f re f\n", grey,
                      x * UI__PT_PER_MM, pg->h - (y + h) * UI__PT_PER_MM, w * UI__PT_PER_MM,
                      h * UI__PT_PER_MM);
}

int ui_pdf_line(ui_pdf *p, double x0, double y0, double x1, double y1, double width_mm)
{
    ui__page *pg = ui__cur(p);
    if (!pg)
        return BASE_ESTATE;
    return ui__printf(&pg->content, "0 G %.4f w %.4f %.4f m %.4f %.4f l S\n",
                      width_mm * UI__PT_PER_MM, x0 * UI__PT_PER_MM, pg->h - y0 * UI__PT_PER_MM,
                      x1 * UI__PT_PER_MM, pg->h - y1 * UI__PT_PER_MM);
}

int ui_pdf_text(ui_pdf *p, double x, double y, double size_pt, const char *text)
{
    ui__page *pg = ui__cur(p);
    int rc;
    if (!pg)
        return BASE_ESTATE;
    if ((rc = ui__printf(&pg->content, "0 g BT /F1 %.2f Tf %.4f %.4f Td (", size_pt,
                         x * UI__PT_PER_MM, pg->h - y * UI__PT_PER_MM)) != 0)
        return rc;
    for (const char *c = text; *c; c++) {
        unsigned char ch = (unsigned char)*c;
        if (ch == '(' || ch == ')' || ch == '\\')
            rc = ui__printf(&pg->content, "\\%c", ch);
        else if (ch < 32 || ch > 126)
            rc = ui__printf(&pg->content, "?");
        else
            rc = ui__printf(&pg->content, "%c", ch);
        if (rc)
            return rc;
    }
    return ui__printf(&pg->content, ") Tj ET\n");
}

int ui_pdf_save(ui_pdf *p, const char *path, base_err *err)
{
    /* Objects: 1 catalog, 2 pages, 3 font, then per page: page, content. */
    int nobj = 3 + 2 * p->npages;
    long *off = calloc((size_t)nobj + 1, sizeof *off);
    FILE *f;
    long xref;

    if (!off)
        return base_err_set(err, BASE_ENOMEM, "out of memory");
    if (!(f = fopen(path, "wb"))) {
        free(off);
        return base_err_set(err, BASE_EIO, "cannot write %s: %s", path, strerror(errno));
    }
    fputs("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n", f);
    off[1] = ftell(f);
    fputs("1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n", f);
    off[2] = ftell(f);
    fputs("2 0 obj << /Type /Pages /Kids [", f);
    for (int i = 0; i < p->npages; i++)
        fprintf(f, " %d 0 R", 4 + 2 * i);
    fprintf(f, " ] /Count %d >> endobj\n", p->npages);
    off[3] = ftell(f);
    fputs("3 0 obj << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> endobj\n", f);
    for (int i = 0; i < p->npages; i++) {
        const ui__page *pg = &p->pages[i];
        off[4 + 2 * i] = ftell(f);
        fprintf(f,
                "%d 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 %.4f %.4f] "
                "/Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >> endobj\n",
                4 + 2 * i, pg->w, pg->h, 5 + 2 * i);
        off[5 + 2 * i] = ftell(f);
        fprintf(f, "%d 0 obj << /Length %zu >> stream\n", 5 + 2 * i, pg->content.len);
        if (pg->content.len)
            fwrite(pg->content.s, 1, pg->content.len, f);
        fputs("\nendstream endobj\n", f);
    }
    xref = ftell(f);
    fprintf(f, "xref\n0 %d\n0000000000 65535 f \n", nobj + 1);
    for (int i = 1; i <= nobj; i++)
        fprintf(f, "%010ld 00000 n \n", off[i]);
    fprintf(f, "trailer << /Size %d /Root 1 0 R >>\nstartxref\n%ld\n%%%%EOF\n", nobj + 1, xref);
    free(off);
    if (ferror(f) | fclose(f))
        return base_err_set(err, BASE_EIO, "cannot write %s: %s", path, strerror(errno));
    return 0;
}
