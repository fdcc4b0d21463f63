/* tests/harness.h: what end-to-end tests share: run the real `tablecam`
 * binary with arguments and standard input, and collect its output. */
#ifndef TABLECAM_TEST_HARNESS_H
#define TABLECAM_TEST_HARNESS_H

#include <stddef.h>

typedef struct th_run {
    int status;  /* exit status, or 128 + signal */
    char *out;   /* standard output, NUL-terminated */
    char *err;   /* standard error */
} th_run;

/* Runs TABLECAM_BIN with args (NULL-terminated, without the program name);
 * stdin_text may be NULL for an empty standard input.  Returns 0 when the
 * program could be run. */
int th_tablecam(th_run *r, const char *stdin_text, const char *const *args);
void th_run_free(th_run *r);

/* A fresh temporary directory (free() the result) and a file in it. */
char *th_tmpdir(void);
char *th_path(const char *dir, const char *name);
int th_write_file(const char *path, const char *text);
char *th_read_file(const char *path, size_t *len);

/* Removes a directory tree made by a test. */
void th_rmtree(const char *dir);

/* Number of lines in s; the k-th line (0-based) copied into a new string. */
int th_count_lines(const char *s);
char *th_line(const char *s, int k);

/* Runs only the cases whose names match TABLECAM_TEST_CASE (a cmocka
 * pattern: * and ? wildcards) when it is set; call before
 * cmocka_run_group_tests. */
void th_case_filter(void);

#endif
