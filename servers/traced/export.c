/*
 * export: traced's driver of the export channel (abi/trace_file.h, THE
 * EXPORT CHANNEL): a 16550 UART at COM2 for the protocol's lines, driven
 * through the I/O-port capability in CAP_SLOT_EXPORT_PORT by polling its
 * line status, and the export window, the frame in CAP_SLOT_EXPORT_WINDOW
 * mapped read-write, whose ring (window.c) carries the bytes. The host end
 * is tools/spoor-receive.
 */
#include <errno.h>
#include <spoor.h>
#include <stdio.h>
#include <string.h>

#include "abi/trace_file.h"
#include "servers/traced/export.h"
#include "servers/traced/window.h"

/* 16550 registers and bits (PC16550D data sheet). */
#define UART_DATA	 0 /* RBR/THR, or divisor low with DLAB */
#define UART_IER	 1
#define UART_FCR	 2
#define UART_LCR	 3
#define UART_MCR	 4
#define UART_LSR	 5
#define LCR_DLAB	 0x80
#define LCR_8N1		 0x03
#define FCR_ENABLE_CLEAR 0x07
#define MCR_DTR_RTS	 0x03
#define LSR_DATA_READY	 0x01
#define LSR_THR_EMPTY	 0x20
#define DIVISOR_115200	 1
#define UART_FIFO	 16 /* bytes the transmitter takes once it is empty */

#define POLL_NS	    1000000ull	   /* between looks for the host's answer */
#define SPIN_NS	    5000000ull	   /* looks without sleeping first, for so long */
#define POLL_MAX_NS 20000000ull	   /* the most one look's sleep counts for: two ticks */
#define ANSWER_NS   10000000000ull /* the host writes a ring's worth to disk in far less */
#define DRAIN_MAX   4096	   /* stale input bytes dropped before a request */

#define REFUSED_EXISTS "error exists:" /* the file is there and may not be replaced */
#define REFUSED_LIMIT  "error limit:"  /* the host's limit for this run is reached */

static uint8_t *window; /* the mapping, or NULL before the first use */
static size_t window_size;

static int reg_read(uint32_t reg, uint8_t *v)
{
	long n = sys_ioport_read(CAP_SLOT_EXPORT_PORT, reg, v, 1);
	return n < 0 ? (int)n : 0;
}

static int reg_write(uint32_t reg, uint8_t v)
{
	long n = sys_ioport_write(CAP_SLOT_EXPORT_PORT, reg, &v, 1);
	return n < 0 ? (int)n : 0;
}

/* 115200 8N1, FIFOs on, no interrupts: traced polls. */
static int uart_setup(void)
{
	int err = reg_write(UART_IER, 0);

	err = err ? err : reg_write(UART_LCR, LCR_DLAB);
	err = err ? err : reg_write(UART_DATA, DIVISOR_115200);
	err = err ? err : reg_write(UART_IER, 0);
	err = err ? err : reg_write(UART_LCR, LCR_8N1);
	err = err ? err : reg_write(UART_FCR, FCR_ENABLE_CLEAR);
	return err ? err : reg_write(UART_MCR, MCR_DTR_RTS);
}

int export_open(uint8_t **win, size_t *size)
{
	struct cap_info port, frame;

	if (sys_cap_identify(CAP_SLOT_EXPORT_PORT, &port) ||
	    sys_cap_identify(CAP_SLOT_EXPORT_WINDOW, &frame) || port.kind != CAP_KIND_IOPORT ||
	    frame.kind != CAP_KIND_FRAME) {
		return -ENODEV;
	}
	if (!window) {
		int err = uart_setup();
		if (err) {
			return err;
		}
		long at = sys_mem_map_frame(CAP_SLOT_EXPORT_WINDOW, NULL, PROT_READ | PROT_WRITE);
		if (at < 0) {
			return (int)at;
		}
		err = window_init((uint8_t *)at, frame.size);
		if (err) {
			sys_mem_unmap((void *)at, frame.size);
			return err;
		}
		window = (uint8_t *)at;
		window_size = frame.size;
	}
	*win = window;
	*size = window_size;
	return 0;
}

/* Sends one line, UART_FIFO bytes each time the transmitter is empty. */
static int send_line(const char *line, size_t len)
{
	for (size_t done = 0; done < len;) {
		uint8_t lsr;
		int err = reg_read(UART_LSR, &lsr);
		if (err) {
			return err;
		}
		if (!(lsr & LSR_THR_EMPTY)) {
			sys_yield();
			continue;
		}
		size_t n = len - done < UART_FIFO ? len - done : UART_FIFO;
		long w = sys_ioport_write(CAP_SLOT_EXPORT_PORT, UART_DATA, line + done, n);
		if (w < 0) {
			return (int)w;
		}
		done += n;
	}
	return 0;
}

/*
 * The next byte from the host, waiting while *left (ns) lasts: 0,
 * -EHOSTDOWN or -E*. The wait is counted in the looks we made, each
 * sleep for at most POLL_MAX_NS, not by the clock: under TCG the clock
 * is the host's, and a machine the host stopped running for longer than
 * ANSWER_NS (a loaded host, a debugger) found the host's answer late by
 * the clock although it came at once (test_record's slow recording
 * stopped so: "the host does not answer"). For SPIN_NS after began it
 * yields instead of sleeping: the host answers most lines within a
 * millisecond, and a sleep lasts a whole 10 ms tick.
 */
static int recv_byte(uint8_t *c, uint64_t *left, uint64_t began)
{
	for (;;) {
		uint8_t lsr;
		int err = reg_read(UART_LSR, &lsr);
		if (err) {
			return err;
		}
		if (lsr & LSR_DATA_READY) {
			return reg_read(UART_DATA, c);
		}
		if (!*left) {
			return -EHOSTDOWN;
		}
		uint64_t before = (uint64_t)sys_clock_ns();
		if (before - began < SPIN_NS) {
			sys_yield();
		} else {
			sys_sleep_ns(POLL_NS);
		}
		uint64_t slept = (uint64_t)sys_clock_ns() - before;
		slept = slept < POLL_MAX_NS ? slept : POLL_MAX_NS;
		*left = *left > slept ? *left - slept : 0;
	}
}

/* Drops what the host sent that nobody asked for (a reply to a request a killed traced made). */
static int drain(void)
{
	uint8_t lsr, c;

	for (int i = 0; i < DRAIN_MAX; i++) {
		int err = reg_read(UART_LSR, &lsr);
		if (err || !(lsr & LSR_DATA_READY)) {
			return err;
		}
		err = reg_read(UART_DATA, &c);
		if (err) {
			return err;
		}
	}
	return 0;
}

int export_send(const char *line)
{
	int err = drain();

	return err ? err : send_line(line, strlen(line));
}

int export_request(const char *line)
{
	int err = export_send(line);

	return err ? err : export_answer(line);
}

int export_answer(const char *line)
{
	char answer[TTRACE_EXPORT_LINE_MAX];
	size_t n = 0;
	uint64_t left = ANSWER_NS, began = (uint64_t)sys_clock_ns();
	int err = 0;

	while (!err) {
		uint8_t c;
		err = recv_byte(&c, &left, began);
		if (err || c == '\n') {
			break;
		}
		if (n < sizeof(answer) - 1) {
			answer[n++] = (char)c;
		}
	}
	if (err) {
		return err;
	}
	answer[n] = '\0';
	if (!strcmp(answer, "ok")) {
		return 0;
	}
	printf("traced: the host refused '%.*s': %s\n", (int)strcspn(line, "\n"), line, answer);
	/* The refusals a client can act on start with a word (abi/trace_file.h). */
	if (!strncmp(answer, REFUSED_EXISTS, strlen(REFUSED_EXISTS))) {
		return -EEXIST;
	}
	if (!strncmp(answer, REFUSED_LIMIT, strlen(REFUSED_LIMIT))) {
		return -ENOSPC;
	}
	return -EIO;
}
