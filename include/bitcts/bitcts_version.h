/* SPDX-License-Identifier: MIT */
/* The suite's version. Thread-safety: constants only. */
#ifndef BITCTS_INCLUDE_BITCTS_VERSION_H
#define BITCTS_INCLUDE_BITCTS_VERSION_H

#define BITCTS_VERSION_MAJOR 0
#define BITCTS_VERSION_MINOR 1
#define BITCTS_VERSION_PATCH 0
#define BITCTS_VERSION_STRING "0.1.0"

#endif
