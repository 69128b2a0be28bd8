/*
 * record: the recorder, RECORD, REC_STOP and REC_STATUS, and the drain
 * that main.c runs between requests (record.c has the design note).
 */
#ifndef SPOOR_TRACED_RECORD_H
#define SPOOR_TRACED_RECORD_H

#include <stdbool.h>
#include <stdint.h>
#include "servers/traced/request.h"

/* RECORD, REC_STOP and REC_STATUS, each 0 or -E*. */
int record_start(const struct request *req, struct reply *rep);
int record_stop(const struct request *req, struct reply *rep);
int record_status(const struct request *req, struct reply *rep);

/* Whether a recording runs. */
bool record_active(void);

/*
 * How long main.c may wait for a request: while a recording runs, 0 (a
 * look) when a chunk's worth waits in the rings, else until the kernel's
 * wake-up says a chunk's worth waits on some CPU, with a fallback timeout
 * (wake.h); TIMEOUT_FOREVER when none runs.
 */
uint64_t record_tick_ns(void);

/* Sends a chunk of what the rings hold while a recording runs (nothing otherwise). */
void record_drain(void);

/*
 * At start: goes on with the recording a killed traced left, if the
 * export window keeps one of this boot and the host's file is as it was
 * (record.c: struct keep). Says on the console what it did.
 */
void record_resume(void);

#endif
