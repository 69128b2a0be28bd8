/*
 * echo_thread: an in-process echo server for the call and efault tests,
 * so that they can steer the server side too (its receive buffer, its
 * reply). It answers like init's echo server — label + 1, the words, word
 * 7 = the caller's badge, the buffer reversed — except for the control
 * labels below.
 */
#ifndef IPCTEST_ECHO_THREAD_H
#define IPCTEST_ECHO_THREAD_H

#include <stdint.h>

#define ECHO_PLAIN	 0x10  /* echoed, like every label but those below */
#define ECHO_REPLY_SIZE	 0x100 /* word 0: reply with a buffer of that many bytes */
#define ECHO_SMALL_RECV	 0x101 /* word 0: the next receive has room for that many bytes */
#define ECHO_BAD_RECV	 0x102 /* word 0: the next receive goes to that address */
#define ECHO_BAD_REPLY	 0x103 /* word 0: try replying from that address first */
#define ECHO_REPORT	 0x104 /* reply words: what the server saw (struct echo_report) */
#define ECHO_RECV_FAILED 0x105 /* the server's reply after its receive failed; word 0: error */

struct echo_thread {
	int endpoint; /* the server receives here */
	int tid;
};

/* What the server recorded; ECHO_REPORT returns it in words 0..2. */
struct echo_report {
	int64_t recv_err;	    /* the last failed receive's result */
	int64_t bad_reply_err;	    /* reply from the bad address */
	int64_t bad_reply_recv_err; /* reply_recv from the bad address */
};

/* Starts the server thread on endpoint; returns 0 or -E*. */
int echo_thread_start(struct echo_thread *e, int endpoint);

/* Stops it (a LABEL_STOP call) and joins it; returns its exit status or -E*. */
long echo_thread_stop(struct echo_thread *e);

#endif
