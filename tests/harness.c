/* tests/harness.c: running the real binary for end-to-end tests. */
#define _XOPEN_SOURCE 700
#include "harness.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <cmocka.h>

char *th_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t n = 0, cap = 0, got;
    if (!f)
        return NULL;
    do {
        if (n + 4096 + 1 > cap) {
            cap = (n + 4096 + 1) * 2;
            buf = realloc(buf, cap);
        }
        got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
    } while (got > 0);
    fclose(f);
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

int th_write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    fputs(text, f);
    return fclose(f);
}

char *th_tmpdir(void)
{
    char *t = strdup("/tmp/tablecam-test-XXXXXX");
    return mkdtemp(t) ? t : NULL;
}

char *th_path(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    snprintf(p, n, "%s/%s", dir, name);
    return p;
}

static int th__rm(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

void th_rmtree(const char *dir)
{
    if (dir)
        nftw(dir, th__rm, 16, FTW_DEPTH | FTW_PHYS);
}

int th_tablecam(th_run *r, const char *stdin_text, const char *const *args)
{
    char *dir = th_tmpdir();
    char *pin = th_path(dir, "stdin"), *pout = th_path(dir, "stdout"), *perr = th_path(dir, "stderr");
    const char *argv[64];
    int n = 0, st;
    pid_t pid;

    memset(r, 0, sizeof *r);
    th_write_file(pin, stdin_text ? stdin_text : "");
    argv[n++] = TABLECAM_BIN;
    while (args && args[n - 1] && n < 63) {
        argv[n] = args[n - 1];
        n++;
    }
    argv[n] = NULL;
    fflush(NULL);
    pid = fork();
    if (pid == 0) {
        int fi = open(pin, O_RDONLY), fo = open(pout, O_WRONLY | O_CREAT | O_TRUNC, 0600),
            fe = open(perr, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        dup2(fi, 0);
        dup2(fo, 1);
        dup2(fe, 2);
        execv(TABLECAM_BIN, (char *const *)argv);
        _exit(127);
    }
    waitpid(pid, &st, 0);
    r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    r->out = th_read_file(pout, NULL);
    r->err = th_read_file(perr, NULL);
    th_rmtree(dir);
    free(pin);
    free(pout);
    free(perr);
    free(dir);
    return r->out && r->err ? 0 : -1;
}

void th_run_free(th_run *r)
{
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
}

int th_count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        if (*s == '\n')
            n++;
    return n;
}

char *th_line(const char *s, int k)
{
    for (; k > 0 && *s; s++)
        if (*s == '\n')
            k--;
    const char *e = strchr(s, '\n');
    size_t len = e ? (size_t)(e - s) : strlen(s);
    char *l = malloc(len + 1);
    memcpy(l, s, len);
    l[len] = '\0';
    return l;
}

void th_case_filter(void)
{
    const char *pattern = getenv("TABLECAM_TEST_CASE");
    if (pattern && *pattern)
        cmocka_set_test_filter(pattern);
}
