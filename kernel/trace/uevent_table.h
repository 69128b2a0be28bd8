/*
 * uevent_table: user-defined trace events in the kernel (the contract is
 * abi/uevent.h). A table of up to UEVENT_MAX events, each a definition
 * parsed by common/uevent_parse.c; capabilities of kind CAP_KIND_UEVENT
 * name them, and a process holds an event by holding such a capability. The
 * status page, one byte an event, tells programs without a syscall
 * whether a write would be stored.
 *
 * Locking: one spinlock (taken with interrupts off) guards the table,
 * the selection and the status bytes; ttrace_control() calls
 * uevent_refresh() with its own lock held, so the order is trace control,
 * then uevent. Writes take no lock: the writer's capability keeps its
 * event alive, and the definition never changes.
 */
#ifndef SPOOR_TRACE_UEVENT_TABLE_H
#define SPOOR_TRACE_UEVENT_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "abi/uevent.h"

struct uevent;

/*
 * Boot, after ttrace_init(): makes the status page, and selects every event
 * if the boot mask has the user category. Tracing works without the page;
 * user events then do not.
 */
void uevent_init(void);

/*
 * Finds or makes the event desc (len bytes) describes, with one reference
 * for the caller's new capability in *out. Returns 0, -EADDRINUSE for the
 * name of an event with other fields, -ENOSPC, -ENOMEM, or the parser's
 * error. Never blocks.
 */
int uevent_register(const char *desc, size_t len, struct uevent **out);

/* References held by capabilities (cap_get / cap_put). */
void uevent_get(struct uevent *ev);
void uevent_put(struct uevent *ev);

/* The event's id: its byte in the status page. */
uint32_t uevent_id(const struct uevent *ev);

/*
 * Writes len payload bytes from user address payload as one event of
 * kind user on this CPU, after the checks of abi/uevent.h; a refused
 * write counts in the event's rejected. 0 or -E*.
 */
int uevent_write(struct uevent *ev, uint64_t payload, uint64_t len);

/* UEVENT_OP_* of abi/uevent.h; INFO fills *info. 0 or -E*. */
int uevent_control(uint32_t op, uint64_t id, struct uevent_info *info);

/* The category mask changed: recomputes every status byte. */
void uevent_refresh(void);

/* The frame object of the status page, or NULL if it could not be made. */
struct memobj *uevent_status_object(void);

#endif
