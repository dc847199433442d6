/* SPDX-License-Identifier: MIT */
/* A test build of `bitcts vectors verify|regen` (harness/cli/cmd_golden.c) whose reference is
 * deliberately moved (BITCTS_REF_MOVE_OP, BITCTS_REF_MOVE_WIDTH: reference/ref_ops.c), so that
 * tests/vectors/golden_moved.sh can show verify names exactly the cases that moved. */
#include <stdio.h>  /* fprintf */
#include <string.h> /* strcmp */

#include "commands.h"

int main(int argc, char **argv)
{
    if (argc < 3 || strcmp(argv[1], "vectors") != 0 ||
        (strcmp(argv[2], "verify") != 0 && strcmp(argv[2], "regen") != 0)) {
        fprintf(stderr, "usage: %s vectors verify|regen [--golden FILE]\n", argv[0]);
        return 2;
    }
    return bitcts_cmd_golden(argc - 2, argv + 2);
}
