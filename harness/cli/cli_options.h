/* SPDX-License-Identifier: MIT */
/* Option tables: every option of a command declared once (name, short alias, value placeholder,
 * kind and bounds, repeatable or not, where the value goes, help), and from the tables both the
 * parser and the --help text. One rule for every command: `--name value` or `--name=value`; a
 * missing or bad value, an unknown option and a repeated non-repeatable option each get one line
 * naming the option and exit code 2. Thread-safety: reentrant except for printing. */
#ifndef BITCTS_HARNESS_CLI_OPTIONS_H
#define BITCTS_HARNESS_CLI_OPTIONS_H

#include <stddef.h> /* size_t, offsetof */
#include <stdint.h> /* uint64_t */
#include <stdio.h>  /* FILE */

/* What an option's value is, and what is stored at its destination. */
typedef enum bitcts_cli_kind {
    BITCTS_CLI_FLAG,     /* no value: int set to 1 */
    BITCTS_CLI_TEXT,     /* a non-empty string (a name, a path) of at most `hi` bytes (0: any):
                          * const char * */
    BITCTS_CLI_GLOB,     /* a well-formed glob of at most `hi` bytes (0: any), appended to a
                          * bitcts_filter (repeatable: the union) */
    BITCTS_CLI_U64,      /* a whole number, decimal or 0x-hex, from `lo` to `hi`: uint64_t */
    BITCTS_CLI_INT,      /* the same, stored as int */
    BITCTS_CLI_U32,      /* the same, stored as uint32_t */
    BITCTS_CLI_SECONDS,  /* seconds from BITCTS_CLI_MIN_TIMEOUT_S to _MAX_TIMEOUT_S: double */
    BITCTS_CLI_ENUM,     /* one of `words`: its index, as int */
    BITCTS_CLI_LIST,     /* a comma list of `words`: a mask of their indexes, as unsigned */
    BITCTS_CLI_KEYVALUE, /* KEY=VALUE into a bitcts_backend_options, keys copied to the store
                          * at `aux` (char [BITCTS_MAX_OPTIONS][64]) */
    BITCTS_CLI_CUSTOM    /* `parse` decides (a flag when `value` is NULL) */
} bitcts_cli_kind;

/** A custom option's parser: the value (NULL for a flag) into dest. @return 0, or -1 with one
 * line (without the "bitcts CMD: error: " prefix) in err. */
typedef int (*bitcts_cli_parse_fn)(const char *value, void *dest, char *err, size_t cap);

typedef struct bitcts_cli_option {
    const char *name;       /* "--jobs" */
    char short_name;        /* 'j' for -j, or 0 */
    const char *value_name; /* "N"; NULL for a flag */
    bitcts_cli_kind kind;
    int repeatable;            /* else a second occurrence is refused */
    int required;              /* shown without brackets in the usage line; the command checks */
    size_t offset;             /* of the destination in the table's struct */
    uint64_t lo, hi;           /* bounds (U64, INT, U32), most bytes (TEXT, GLOB) */
    const char *const *words;  /* ENUM, LIST: NULL-terminated */
    size_t aux;                /* KEYVALUE: offset of the key store in the table's struct */
    bitcts_cli_parse_fn parse; /* CUSTOM */
    const char *help;
} bitcts_cli_option;

/* An option in one line: BITCTS_CLI_OPTION names every field, the constructors below only those
 * their kind uses. AT is the offsetof of the destination in the table's struct, VALUE the value's
 * placeholder, MAX the most bytes of a value (0: any), LO and HI the bounds of a number. */
#define BITCTS_CLI_OPTION(NAME, SHORT, VALUE, KIND, REPEATABLE, REQUIRED, AT, LO, HI, WORDS, AUX,  \
                          PARSE, HELP)                                                             \
    {                                                                                              \
        .name = (NAME), .short_name = (SHORT), .value_name = (VALUE), .kind = (KIND),              \
        .repeatable = (REPEATABLE), .required = (REQUIRED), .offset = (AT), .lo = (LO),            \
        .hi = (HI), .words = (WORDS), .aux = (AUX), .parse = (PARSE), .help = (HELP)               \
    }
#define BITCTS_OPT_FLAG(NAME, AT, HELP)                                                            \
    BITCTS_CLI_OPTION(NAME, 0, NULL, BITCTS_CLI_FLAG, 0, 0, AT, 0, 0, NULL, 0, NULL, HELP)
#define BITCTS_OPT_TEXT(NAME, VALUE, AT, MAX, HELP)                                                \
    BITCTS_CLI_OPTION(NAME, 0, VALUE, BITCTS_CLI_TEXT, 0, 0, AT, 0, MAX, NULL, 0, NULL, HELP)
/* A text option the command requires: shown without brackets in the usage line. */
#define BITCTS_OPT_REQUIRED(NAME, VALUE, AT, MAX, HELP)                                            \
    BITCTS_CLI_OPTION(NAME, 0, VALUE, BITCTS_CLI_TEXT, 0, 1, AT, 0, MAX, NULL, 0, NULL, HELP)
#define BITCTS_OPT_GLOB(NAME, VALUE, AT, MAX, HELP)                                                \
    BITCTS_CLI_OPTION(NAME, 0, VALUE, BITCTS_CLI_GLOB, 1, 0, AT, 0, MAX, NULL, 0, NULL, HELP)
/* KIND: U64, INT or U32. */
#define BITCTS_OPT_NUMBER(NAME, VALUE, KIND, AT, LO, HI, HELP)                                     \
    BITCTS_CLI_OPTION(NAME, 0, VALUE, BITCTS_CLI_##KIND, 0, 0, AT, LO, HI, NULL, 0, NULL, HELP)
#define BITCTS_OPT_SECONDS(NAME, VALUE, AT, HELP)                                                  \
    BITCTS_CLI_OPTION(NAME, 0, VALUE, BITCTS_CLI_SECONDS, 0, 0, AT, 0, 0, NULL, 0, NULL, HELP)
/* KIND: ENUM or LIST; WORDS NULL-terminated. */
#define BITCTS_OPT_WORDS(NAME, VALUE, KIND, AT, WORDS, HELP)                                       \
    BITCTS_CLI_OPTION(NAME, 0, VALUE, BITCTS_CLI_##KIND, 0, 0, AT, 0, 0, WORDS, 0, NULL, HELP)
#define BITCTS_OPT_KEYVALUE(NAME, VALUE, AT, KEYS_AT, HELP)                                        \
    BITCTS_CLI_OPTION(NAME, 0, VALUE, BITCTS_CLI_KEYVALUE, 1, 0, AT, 0, 0, NULL, KEYS_AT, NULL,    \
                      HELP)
/* VALUE NULL: a flag that PARSE handles. */
#define BITCTS_OPT_CUSTOM(NAME, VALUE, AT, PARSE, HELP)                                            \
    BITCTS_CLI_OPTION(NAME, 0, VALUE, BITCTS_CLI_CUSTOM, 0, 0, AT, 0, 0, NULL, 0, PARSE, HELP)

/** A table (or a fragment shared by several commands) and the struct its offsets point into. */
typedef struct bitcts_cli_table {
    const bitcts_cli_option *options;
    size_t count;
    void *base;
} bitcts_cli_table;

/* The table of a static option array, in an initializer (a spec's tables). */
#define BITCTS_CLI_TABLE(OPTIONS, BASE)                                                            \
    {                                                                                              \
        (OPTIONS), sizeof(OPTIONS) / sizeof((OPTIONS)[0]), (BASE)                                  \
    }

/* Defines `bitcts_cli_table FN(TYPE *base)`: the table of the static option array OPTIONS over
 * BASE, how a fragment shared by several commands is handed to them. */
#define BITCTS_CLI_TABLE_FN(FN, TYPE, OPTIONS)                                                     \
    bitcts_cli_table FN(TYPE *base)                                                                \
    {                                                                                              \
        return (bitcts_cli_table)BITCTS_CLI_TABLE(OPTIONS, base);                                  \
    }

typedef struct bitcts_cli_spec {
    const char *cmd;         /* "run", "vectors export": messages and the usage line */
    const char *operands;    /* the usage line's positional part ("DIR"), or NULL */
    size_t max_operands;     /* more are refused */
    const char *needs;       /* set: a call without an operand is refused, "needs <needs>" */
    int needs_arguments;     /* with no argument at all: the help on stderr, exit code 2 */
    const char *description; /* the paragraph after the usage line */
    const char *epilogue;    /* after the option list (exit codes), or NULL */
    const bitcts_cli_table *tables;
    size_t table_count;
    const char *const *elsewhere; /* NULL-terminated options of elsewhere_cmd, refused naming it */
    const char *elsewhere_cmd;
} bitcts_cli_spec;

#define BITCTS_CLI_HELP (-1) /* bitcts_cli_parse printed the help: exit code 0 */

/** Parses argv[1..argc-1] (argv[0] is the command's word) against the spec's tables, storing
 * each value, and the operands in order into operands (capacity argc). -h or --help prints the
 * help to stdout (n_operands may be NULL where operands is). @return 0, BITCTS_CLI_HELP, or
 * BITCTS_EXIT_USAGE after one line on stderr (or the help, for a command that needs arguments and
 * got none). */
int bitcts_cli_parse(const bitcts_cli_spec *spec, int argc, char **argv, const char **operands,
                     size_t *n_operands);
/** A comma list of o->words into a mask of their indexes (what BITCTS_CLI_LIST stores), for a
 * custom parser that also takes other words. @return 0, or -1 with one line in err. */
int bitcts_cli_parse_words(const bitcts_cli_option *o, const char *v, unsigned *mask, char *err,
                           size_t cap);
/** Prints the usage line, the description, the option list and the epilogue. */
void bitcts_cli_help(const bitcts_cli_spec *spec, FILE *out);

#endif
