/*
 * request: what an operation of main.c's table gets (the request, who
 * made it) and what it gives back (its reply). Every operation is a
 * function int (*)(const struct request *, struct reply *) returning 0 or
 * -E*; main.c sends the reply only on 0.
 */
#ifndef SPOOR_TRACED_REQUEST_H
#define SPOOR_TRACED_REQUEST_H

#include <stdbool.h>
#include <stdint.h>

struct request {
	uint64_t arg;	  /* word 1 */
	const void *body; /* the request buffer */
	uint32_t len;
	uint32_t level; /* TRACED_LEVEL_*, from the badge init minted */
	uint32_t pid;	/* the caller, as the kernel reported it */
	uint32_t cap;	/* the slot of the capability the request carried, or IPC_NO_CAP:
			   main.c deletes it after the operation */
};

struct reply {
	uint64_t result;     /* word 1 */
	uint8_t *buf;	     /* TRACED_REPLY_MAX bytes */
	uint32_t len;	     /* bytes of buf to send */
	uint32_t cap;	     /* a slot whose capability goes along, or IPC_NO_CAP */
	uint32_t cap_rights; /* the rights the client's copy keeps */
	bool cap_delete;     /* traced's copy goes once sent */
};

#endif
