/*
 * notes: the bytes traced keeps in the kernel beside each kind's filter
 * and trigger (abi/trace_pred.h, NOTES). The kernel never reads them:
 * they are traced's memory across its own restarts.
 */
#ifndef SPOOR_TRACE_NOTES_H
#define SPOOR_TRACE_NOTES_H

#include <stdint.h>

#include "abi/trace_pred.h"

/*
 * Copies buf into kind's note (op TTRACE_NOTE_SET_*) or the note into buf
 * (GET_*), TTRACE_NOTE_BYTES bytes. 0, or -EINVAL for an unknown op or
 * kind. Takes a spinlock: any context but an interrupt's.
 */
int notes_copy(uint32_t op, uint16_t kind, uint8_t buf[TTRACE_NOTE_BYTES]);

#endif
