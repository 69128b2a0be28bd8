/*
 * triggers: TRIGGER and TRIGGER_TEXT (abi/traced.h), and the saves of
 * the SAVE triggers. traced compiles a trigger's predicate for its kind
 * (common/trace_pred_parse.h) and hands the kernel the bytecode and the
 * action (trace_trigger, abi/trace_pred.h); the kernel fires it and
 * tells traced of a SAVE's firing through the trace wake-up (wake.c's
 * endpoint), and traced writes the file after_ms after the moment,
 * through SAVE's own path (save.c). traced keeps each trigger's text and
 * save for `trace status`, and in the kernel's note beside the trigger
 * (abi/trace_pred.h, NOTES), so a restarted traced shows them, and
 * writes a save that was due, as the one before it would have.
 */
#ifndef SPOOR_TRACED_TRIGGERS_H
#define SPOOR_TRACED_TRIGGERS_H

#include <stdint.h>

#include "servers/traced/request.h"

/* TRIGGER: sets or removes a kind's trigger, or every kind's. */
int triggers_set(const struct request *req, struct reply *rep);

/* TRIGGER_TEXT: the trigger of the kind in word 1, as set, with its count and save. */
int triggers_text(const struct request *req, struct reply *rep);

/*
 * The wait before triggers_run() has a save to write: 0 when one is
 * due, TIMEOUT_FOREVER when none waits (a firing wakes traced).
 */
uint64_t triggers_tick_ns(void);

/*
 * After a wake-up or a timeout: notes the SAVE triggers that fired
 * since, and writes each save that is due. May take as long as a save.
 */
void triggers_run(void);

#endif
