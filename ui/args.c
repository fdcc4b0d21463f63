/* ui/args.c: the flag parser and error printing every subcommand uses. */
#include "ui.h"

#include <stdarg.h>
#include <string.h>

#include <cjson/cJSON.h>

void ui_usage(const ui_command *cmd, FILE *f)
{
    fprintf(f, "usage: tablecam %s %s\n", cmd->name, cmd->usage);
}

int ui_fail(const ui_command *cmd, int status, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "tablecam %s: ", cmd->name);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return status;
}

static int ui__bad(const ui_command *cmd, const char *what, const char *arg)
{
    fprintf(stderr, "tablecam %s: %s '%s'\n", cmd->name, what, arg);
    ui_usage(cmd, stderr);
    return UI_EXIT_USAGE;
}

int ui_parse_args(const ui_command *cmd, int argc, char **argv, const ui_opt *opts,
                  int nopts, const char **pos, int maxpos, int *npos)
{
    bool only_pos = false;
    *npos = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (only_pos || a[0] != '-' || strcmp(a, "-") == 0) {
            if (*npos >= maxpos)
                return ui__bad(cmd, "unexpected argument", a);
            pos[(*npos)++] = a;
            continue;
        }
        if (strcmp(a, "--") == 0) {
            only_pos = true;
            continue;
        }
        const char *eq = strchr(a, '=');
        size_t len = eq ? (size_t)(eq - a) : strlen(a);
        const ui_opt *o = NULL;
        for (int k = 0; k < nopts; k++)
            if (strlen(opts[k].name) == len && strncmp(opts[k].name, a, len) == 0)
                o = &opts[k];
        if (!o)
            return ui__bad(cmd, "unknown option", a);
        if (o->kind == UI_OPT_FLAG) {
            if (eq)
                return ui__bad(cmd, "option takes no value", a);
            if (o->set)
                *o->set = true;
            continue;
        }
        if (eq) {
            *o->value = eq + 1;
        } else {
            if (i + 1 >= argc)
                return ui__bad(cmd, "option needs a value", a);
            *o->value = argv[++i];
        }
        if (o->set)
            *o->set = true;
    }
    return 0;
}

void ui_print_json_line(const cJSON *obj)
{
    char *s = cJSON_PrintUnformatted(obj);
    if (s) {
        fputs(s, stdout);
        fputc('\n', stdout);
        cJSON_free(s);
    }
}
