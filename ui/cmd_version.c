/* ui/cmd_version.c: `tablecam version` and `tablecam --version`. */
#include "ui.h"

int ui_cmd_version(int argc, char **argv)
{
    const char *pos[1];
    int npos, rc;
    if ((rc = ui_parse_args(ui_command_find("version"), argc, argv, NULL, 0, pos, 0, &npos)) != 0)
        return rc;
    printf("tablecam %s\n", TABLECAM_VERSION);
    return UI_EXIT_OK;
}
