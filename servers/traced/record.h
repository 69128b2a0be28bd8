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
 * How long main.c may wait for a request: while a recording runs, until
 * the kernel's wake-up says a chunk's worth waits on some CPU (at once,
 * at the next timer interrupt, if one waits already), with a fallback
 * timeout (wake.h); TIMEOUT_FOREVER when none runs.
 */
uint64_t record_tick_ns(void);

/*
 * Sends chunks of what the rings hold while a recording runs (nothing
 * otherwise): while a chunk's worth waits, RECORD_BURST chunks at most,
 * so a request waits for that many at most.
 */
void record_drain(void);

/*
 * At start: goes on with the recording a killed traced left, if the
 * export window keeps one of this boot and the host's file is as it was
 * (record.c: struct keep). Says on the console what it did.
 */
void record_resume(void);

#endif
