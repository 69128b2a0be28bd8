/*
 * services: init as keeper of the servers and as name service (the
 * design note is at the top of services.c). The keeper thread and the
 * shell share its state under one lock, which stays inside services.c.
 */
#ifndef SPOOR_INIT_SERVICES_H
#define SPOOR_INIT_SERVICES_H

#include <stddef.h>
#include <stdint.h>

#include "abi/cap.h"

/* The capabilities every program init starts gets: console, name service. */
#define CHILD_CONSOLE_RIGHTS (CAP_RIGHT_READ | CAP_RIGHT_WRITE | CAP_RIGHT_GRANT)
#define CHILD_NAMING_RIGHTS  (CAP_RIGHT_WRITE | CAP_RIGHT_GRANT)

/*
 * Starts the server programs of the boot image and the keeper thread,
 * which restarts them when they exit and answers the name service.
 * Returns 0 or -E*.
 */
int services_init(void);

/* A copy of the name service for a child at level (TRACED_LEVEL_*). */
int naming_for(uint32_t level);

/*
 * A call-only copy of the endpoint of the server called name, badged with
 * level (init's own requests: the shell's trace verbs are CONTROL), while
 * it runs: its slot, or -ENOENT.
 */
int services_client(const char *name, uint32_t level);

/*
 * Starts the server called name again, now: killing it first if it runs,
 * or one init gave up on or waits to restart; its crash count starts
 * over. 0 with its new pid in *pid, -ENOENT (no such server), or the
 * -E* of the kill, wait or spawn that failed.
 */
int services_restart(const char *name, uint32_t *pid);

/* Kills the server with that pid (init restarts it); -ENOENT if none. */
int services_kill(uint32_t pid);

/* Copies the name of the running server with that pid into name: 0, or -ENOENT if none. */
int services_name(uint32_t pid, char *name, size_t size);

#endif
