/*
 * selftest: boot-time checks chosen with selftest= on the command line,
 * for the system tests. See options.h for the kinds.
 */
#ifndef SPOOR_INIT_SELFTEST_H
#define SPOOR_INIT_SELFTEST_H

#include <stdint.h>

/* Runs one self-test; the exception kinds do not return. */
void selftest_run(uint32_t kind);

#endif
