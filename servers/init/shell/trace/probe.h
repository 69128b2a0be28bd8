/*
 * probe: `trace probe`, the kernel probes' verb (abi/trace_probe.h).
 */
#ifndef SPOOR_INIT_SHELL_TRACE_PROBE_H
#define SPOOR_INIT_SHELL_TRACE_PROBE_H

#include "servers/init/shell/trace/verb.h"

/*
 * probe SYMBOL[+OFFSET] [as NAME] [REG...]: a probe there recording those
 * registers; probe off [NAME]: that probe, or every one, removed; probe
 * list: the probes set, with their hits.
 */
void probe_verb(const struct verb *verb, int argc, char **argv);

/* `trace status`'s lines of the probes set (none when there are none). */
void probe_status(void);

#endif
