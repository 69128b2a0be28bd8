/*
 * timeline_opts: the options of `spoor-trace timeline`, which choose the
 * part of a trace the picture shows, so that a person zooms in without
 * saving the trace again:
 *
 *   --since T, --until T  the window drawn. T is seconds since boot
 *                         (0.25), or, after a '+', seconds after the
 *                         trace's first event (+0.5); a unit may follow
 *                         the number: s (the default), ms, us or ns
 *                         (+20ms). Default: the first and last event.
 *   --cpu LIST            only these CPUs' lanes: numbers and ranges,
 *                         comma-separated (0,2-3)
 *   --pid LIST            only these processes' work in colour and
 *                         their faults and IPC counted; other programs'
 *                         work is one grey, so the CPU still shows busy
 *   --width PX            the plot's width in pixels (default 1200)
 *
 * Parsing checks each value alone; timeline_opts_check() checks them
 * against the trace (a CPU it has, a process in it, a window that meets
 * its events). Each refusal is one line naming the option and value.
 */
#ifndef SPOOR_TOOLS_SPOOR_TRACE_TIMELINE_OPTS_H
#define SPOOR_TOOLS_SPOOR_TRACE_TIMELINE_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tools/spoor-trace/view.h"

#define TIMELINE_WIDTH_DEFAULT 1200
#define TIMELINE_WIDTH_MIN     100
#define TIMELINE_WIDTH_MAX     100000
#define TIMELINE_PIDS_MAX      64

/* The options' synopsis, for the usage line: "[--since T] ... " */
#define TIMELINE_OPTS_USAGE "[--since T] [--until T] [--cpu LIST] [--pid LIST] [--width PX]"

/* A window edge as given: ns since boot, or after the first event when rel. */
struct timeline_edge {
	bool set;
	bool rel;
	uint64_t ns;
};

struct timeline_opts {
	struct timeline_edge since, until;
	uint32_t cpus; /* bit N: cpu N is drawn; 0: every CPU */
	uint32_t pids[TIMELINE_PIDS_MAX];
	size_t npids; /* 0: every process */
	uint32_t width;
};

/* The defaults: the whole trace, every CPU and process, TIMELINE_WIDTH_DEFAULT. */
void timeline_opts_init(struct timeline_opts *o);

/*
 * Parses the options among argv[1..argc) (argv[0] is the subcommand),
 * in any order with the operands, as "--name VALUE" or "--name=VALUE",
 * and moves the operands to argv[1..]. Returns the operands' count plus
 * one, or -1 with the refusal in why (cut to size).
 */
int timeline_opts_parse(struct timeline_opts *o, int argc, char **argv, char *why, size_t size);

/*
 * Checks o against v's trace: CPUs it has, processes that wrote events
 * or were named in it, a window that ends after it starts and meets the
 * trace's events. Fills v's names (tview_names()). Returns 0, or -EINVAL
 * or -ENOMEM with the refusal in why.
 */
int timeline_opts_check(const struct timeline_opts *o, struct tview *v, char *why, size_t size);

/* The window o asks of v's trace, in ns since boot. */
void timeline_opts_window(const struct timeline_opts *o, const struct tview *v, uint64_t *since,
			  uint64_t *until);

/* Whether o draws process pid's work (in colour) and CPU cpu's lane. */
bool timeline_opts_pid(const struct timeline_opts *o, uint32_t pid);
bool timeline_opts_cpu(const struct timeline_opts *o, uint32_t cpu);

#endif
