/*
 * traced's protocol: how programs ask the trace server for the state of
 * tracing, change it, and read events and strings. traced is found with
 * lookup("traced") (abi/naming.h); every request is an IPC call on that
 * endpoint (abi/ipc.h).
 *
 * REQUEST. label = TRACED_OP_*, word 0 = TRACED_PROTOCOL, word 1 the
 * operation's argument (below), and for the operations that take one, the
 * request structure as the message buffer, exactly its size. Unused words
 * are ignored; no capability is taken, but by BULK (below).
 *
 * REPLY. word 0 = 0 or a negative error, word 1 the operation's result;
 * the reply buffer (room: TRACED_REPLY_MAX) carries the structure or text
 * the operation returns. Errors, for every operation:
 *   -EPROTO     word 0 is not TRACED_PROTOCOL: a client of another version
 *   -ENOSYS     an unknown operation
 *   -EINVAL     a request of the wrong size, or a value outside its range
 *               (unknown category, kind or cpu bits, a mode, a cursor that
 *               is not one traced gave out, flags it does not know, ...)
 *   -E2BIG      the client's receive buffer is too small for the reply
 *   -EACCES     the caller's level does not allow the operation (below)
 * A request that fails changes nothing.
 *
 * WHO CALLS. traced knows each caller by two things it need not take on
 * trust: the badge of the capability the call came through, which names
 * a level (TRACED_LEVEL_*) and which only init mints (its name service
 * badges every lookup with the level of the one asking), and the caller's
 * pid, which the kernel reports with the message (abi/ipc.h). A program
 * cannot forge either: it holds only badged copies, which cannot be
 * minted again, and a copy it passes on keeps the level but carries the
 * new holder's pid. Levels, and what each may do:
 *   CONTROL  everything. The init shell, and programs it starts with
 *            `run -t` (and what they spawn).
 *   READ     read every event and string (STATUS, DUMP, FOLLOW, SAVE,
 *            STRINGS, EVENTS), change nothing; user events as SELF.
 *            Programs init starts with `run -r`.
 *   SELF     every other program: STATUS; DUMP, FOLLOW and SAVE of the
 *            events of its own process and of the processes it spawned
 *            (and they, and so on: its descendants, as the kernel's
 *            aux records of spawns tell them); REGISTER; UNREGISTER of an
 *            event it registered. Anything else is -EACCES.
 * A capability without a badge names no level: every request through it
 * is -EACCES.
 *
 * OPERATIONS (argument in word 1 -> result in word 1 / the buffer). The
 * list of them, with each one's level, words and buffers, is
 * abi/traced_ops.def; `make` writes it as a table, with each one's client
 * stub (libc/include/trace_client.h), to build/docs/traced_ops.md.
 *   STATUS   -                -> struct traced_status
 *   ENABLE   category bits    -> the mask in force afterwards
 *   DISABLE  category bits    -> the mask in force afterwards
 *   MODE     TTRACE_MODE_*    -> the mask
 *   CLEAR    -                -> the mask; every ring's events are discarded
 *   DUMP     struct traced_dump_request -> struct traced_dump_reply + data
 *   BULK     struct traced_dump_request + a frame capability -> struct
 *            traced_dump_reply, the data in the frame: a binary DUMP whose
 *            pages are as large as the frame (see BULK)
 *   FOLLOW   struct traced_dump_request -> struct traced_dump_reply + data
 *   STRINGS  struct traced_strings_request -> struct traced_dump_reply + text
 *   MAP      -                -> a read-only trace-read capability (tools
 *                                that read the rings themselves)
 *   REGISTER description text (abi/uevent.h, no NUL) -> the user event's
 *            id; the reply carries a user-event capability (the write
 *            right only): its slot is the write index, its id the byte
 *            in the status page. -EADDRINUSE for a name registered with
 *            other fields, -ENOSPC, -EDQUOT, or the parser's errors.
 *            Below CONTROL, a registration that makes a new event is
 *            refused with -EDQUOT when the caller's spawn tree (abi/proc.h:
 *            the program init started and all it spawned) already made
 *            TRACED_UEVENT_TREE_MAX of the live events, and with -ENOSPC
 *            when no more than TRACED_UEVENT_CONTROL_IDS ids are free:
 *            those are CONTROL's alone, so the shell can always register.
 *            Registering a name that exists with the same fields takes no
 *            new id and is never refused so.
 *   UNREGISTER the event's name -> 0: deletes an event nobody holds (one a
 *            consumer enables stays otherwise; one nobody enables goes by
 *            itself with its last hold, abi/uevent.h); -ENOENT, or -EBUSY
 *            while a program holds it
 *   EVENT_ON the event's name -> the mask: enables that one event (and
 *            the user category). ENABLE with the user bit enables them all.
 *   EVENT_OFF the event's name -> the mask: that one event off
 *   EVENTS   struct traced_strings_request (tag 0) -> paged text, as
 *            Linux's user_events_status, one event a line and a detail
 *            line after it, then the totals:
 *              1:demo # used
 *              #   holders 2, written 100, rejected 3: demo u32 a;char[16] s
 *              Active: 1
 *              Busy: 1
 *              Max: 256
 *            "# used" marks an enabled event; Active counts events, Busy
 *            enabled ones, Max is UEVENT_MAX.
 *   TRACK    a pid        -> the mask: PID tracking of that process and
 *            what it spawns from then on (abi/trace.h TTRACE_OP_TRACK);
 *            -ENOENT for no such process
 *   UNTRACK  a pid, or TRACED_UNTRACK_ALL -> the mask: that process no
 *            longer, or none and tracking off
 *   ECHO     category bits -> the mask: the categories the kernel echoes
 *            on its console from now on (abi/trace.h TTRACE_OP_ECHO; 0:
 *            none). CONTROL.
 *   STACK    kind bits (bit k for kind k) -> the mask: the kinds whose
 *            events carry their call stack from now on (abi/trace.h
 *            TTRACE_OP_STACK, CALL STACKS; 0: none). CONTROL.
 *   STACK_ON kind bits -> the mask: those kinds carry their call stack
 *            too, beside those chosen before (TTRACE_OP_STACK_ON), as
 *            ENABLE adds categories. CONTROL.
 *   STACK_OFF kind bits -> the mask: those kinds no longer carry it,
 *            the others still do (TTRACE_OP_STACK_OFF). CONTROL.
 *   PROFILE  TTRACE_PROFILE_ARG(hz, cpus) -> the mask: the sampling
 *            profiler on those CPUs at hz, or off for hz 0 (abi/trace.h
 *            TTRACE_OP_PROFILE). CONTROL.
 *   STATS    struct traced_stats_request -> struct traced_dump_reply + text:
 *            answers over the events a DUMP with the filter would return
 *            (the window: the rings as the first page found them), paged
 *            as STRINGS is (cursor.next[0]: the text's offset). Per kind
 *            the count, and for each paired measure (TRACED_MEASURE_*) a
 *            row of count, unpaired, min, p50, p90, p99 and max, or with
 *            TRACED_STATS_HIST one measure's log2 histogram. See STATS.
 *   SAVE     struct traced_save_request -> struct traced_save_reply:
 *            writes the events the filter selects (those a DUMP with it
 *            would return, losses in place) and everything that decodes
 *            them as one file, abi/trace_file.h, to the host as NAME.spoor
 *            through the export channel (abi/trace_file.h, THE EXPORT
 *            CHANNEL). -ENODEV on a machine without the channel's devices,
 *            -EHOSTDOWN when nothing on the host answers (a client's own
 *            -ETIMEDOUT is its wait for traced), -EIO when the
 *            host refused the file, -EINVAL for a bad name or filter. It
 *            answers when the host has the whole file. Below CONTROL
 *            the file is TRACED_SAVE_PREFIX_SELF-PID-NAME.spoor
 *            (TRACED_SAVE_PREFIX_READ for READ), PID the caller's, and
 *            never replaces a file: -EEXIST if one of that name is there
 *            (CONTROL's replaces it). -ENOSPC when the host's limit of
 *            files or bytes for its run is reached (traced says which on
 *            the console). A SELF file holds, of the aux ring, only the
 *            records its events refer to (abi/trace_file.h). Each spawn
 *            tree below CONTROL may save TRACED_SAVE_BURST times, and
 *            once more each TRACED_SAVE_REFILL_S seconds after: beyond
 *            that -EAGAIN, and nothing is sent.
 *   RECORD   struct traced_save_request -> struct traced_record_status:
 *            starts a recording (abi/trace_file.h, A RECORDING) of the
 *            events the filter selects into NAME.spoor on the host, which
 *            traced then sends a chunk at a time, draining every CPU's
 *            ring continuously from the heads on, until REC_STOP;
 *            what the rings overwrite (or drop) before traced reads it
 *            is counted lost, with markers where it was. One at a time:
 *            -EBUSY while one runs (and for SAVE and CLEAR meanwhile,
 *            which would share the channel or break its count). CONTROL
 *            only; the other errors are SAVE's.
 *   REC_STOP -> struct traced_record_status: sends what the rings held
 *            up to their heads as they were when it was asked (not what
 *            came after: a stop under a busy machine ends at once), the
 *            ledger and the END, and answers with the totals; -ENOENT
 *            when nothing records. A recording that ended early (the
 *            host refused a chunk: -ENOSPC at its limit of bytes for the
 *            run, -EIO; or it stopped answering: -EHOSTDOWN) answers the
 *            first stop after it with that error, and REC_STATUS has its
 *            totals: the file ends at its last whole chunk. CONTROL.
 *   REC_STATUS -> struct traced_record_status: the recording running
 *            (active 1), or the last one (active 0), or all zero. CONTROL.
 *   SELF     1 or 0       -> 0: traced's own events (those it and the
 *            export channel cause while serving and recording) are
 *            recorded from now on, or left out, as they are by default
 *            (abi/trace.h TTRACE_OP_QUIET; trace-cmd leaves out its own
 *            threads alike). STATUS's self says which. CONTROL.
 *   FILTER   text "TARGETS if PREDICATE", or "TARGETS" alone -> the kinds
 *            it set (bit k for kind k): TARGETS, kinds and categories by
 *            name separated by commas, get the filter of PREDICATE
 *            (abi/trace_pred.h; common/trace_pred_parse.h says the
 *            language and what a category's kinds that lack a field do),
 *            compiled for each kind, or lose theirs. It changes no
 *            category (ENABLE does); a filter holds while its kind is
 *            off too. -EINVAL, having changed nothing, for an unknown
 *            target or a predicate that does not compile (the shell
 *            compiles it first, and says why); the kernel's errors. CONTROL.
 *   FILTER_TEXT a kind -> struct traced_filter_text: the text its
 *            filter was set from, len 0 for a kind without one (STATUS's
 *            filter_kinds says which have one). traced keeps the text in
 *            the kernel's note beside the filter (abi/trace_pred.h,
 *            NOTES), so a filter set before traced last started shows its
 *            text too; len 0 only if the traced that set it died between
 *            the program and its note. READ.
 *   FILTER_CODE struct traced_filter_code -> 0: kind's filter becomes
 *            the bytecode as it is (n 0: none), for a client that
 *            compiles its own: traced passes it to the kernel, whose
 *            check is the only one (abi/trace_pred.h: -EINVAL for any
 *            fault, nothing changed). Its text shows as "(bytecode)".
 *            CONTROL.
 *   FUNC_ON  patterns (abi/trace_func.h, separated by spaces) -> the
 *            number of kernel functions traced: every traceable function
 *            a pattern matches records func_entry, and the category func
 *            is on. -EINVAL for a bad pattern, -ENOENT for one that
 *            matches no traceable function: nothing changes. CONTROL.
 *   FUNC_OFF patterns, or none for all -> the number still traced: those
 *            matched are not any more; the category func goes off with
 *            the last. CONTROL.
 *   GRAPH_ON depth (0: TTRACE_GRAPH_DEPTH), patterns -> the number of the
 *            graph's roots (abi/trace_func.h, THE GRAPH): every traceable
 *            function's site is patched and the category func is on.
 *            -EINVAL (a depth past TTRACE_GRAPH_DEPTH too), -ENOENT as
 *            FUNC_ON's; -EBUSY while trace func has functions. CONTROL.
 *   GRAPH_OFF every site its NOP again; the category func goes off.
 *            CONTROL.
 *   TRIGGER  struct traced_trigger_request -> 0: kind's trigger becomes
 *            the text's predicate and the action (abi/trace_pred.h,
 *            TRIGGERS), or goes for action NONE (kind 0: every kind's).
 *            A SAVE's file is written by traced as SAVE writes one from
 *            CONTROL, of every event, after_ms after the moment (up to
 *            TRACED_TRIGGER_AFTER_MAX); one a trigger, however often it
 *            fires. The predicate is text, or (len 0) bytecode that
 *            traced passes to the kernel unchecked, as FILTER_CODE's,
 *            shown as "(bytecode)". -EINVAL, having changed nothing, for
 *            a kind, action, name or predicate that does not do (the
 *            shell checks them first, and says why); the kernel's
 *            errors. CONTROL.
 *   TRIGGER_TEXT a kind -> struct traced_trigger_status: its trigger as
 *            set (action NONE: none), how often it fired and where its
 *            save is, kept as FILTER_TEXT keeps a filter's, so a
 *            restarted traced shows it and writes its save (len 0 and n
 *            0: its note was lost, its text unknown). READ.
 *   PROBE_ON struct ttrace_probe_spec (abi/trace_probe.h) -> the number
 *            of kernel probes set: the kernel sets the probe and the
 *            category func is on. -EINVAL, with the reason
 *            (TTRACE_PROBE_WHY_*) in word 1 of the reply, for a probe the
 *            kernel refuses; nothing changes. CONTROL.
 *   PROBE_OFF a probe's name, or none for all -> the number still set.
 *            -ENOENT for a name no probe has. The category func stays
 *            as it is (FUNC_OFF and GRAPH_OFF turn it off once nothing
 *            is traced, graphed or probed). CONTROL.
 *
 * DUMP returns, page by page, the events the rings held when the dump
 * began (the first request, with a zeroed cursor; what a clear discarded
 * or what was overwritten before it is no dump's), merged from every CPU
 * in timestamp order (each CPU's own order exact), that pass the filter.
 * The reply's cursor goes into the next request with the same filter and
 * format, until TRACED_DUMP_DONE. A cursor holds ring positions only, so
 * it stays valid across a restart of traced; events overwritten between
 * pages are reported as lost, never skipped silently. FOLLOW is the same
 * without an end: a zeroed cursor starts at the newest event, each request
 * returns what has arrived since (possibly nothing: poll again), and in
 * drop mode traced publishes the position a request's cursor acknowledges
 * (the client holds what is below it) as the ring's tail, so a follower
 * that keeps up loses nothing, and a request sent again because its reply
 * was lost (traced died first) finds the same entries.
 *
 * BULK is DUMP for tools that read much: the same request, cursor, levels
 * and answers, but the page's data goes into a memory object the client
 * passes with the call (a frame capability, abi/cap.h, with the read and
 * write rights; the client reads the page through its own copy) instead
 * of the reply buffer, which carries only the reply's head. A page holds
 * as many whole events as the frame's size allows (at most
 * TRACED_BULK_MAX bytes), from offset 0, len bytes; so a full ring comes
 * in a few calls instead of one per TRACED_PAGE_DATA_MAX bytes, and the
 * pages concatenate into the stream a DUMP with the same filter returns.
 * Binary only (format TRACED_FORMAT_BINARY). Errors beyond DUMP's, and again nothing changes:
 *   -EINVAL     no capability, one of another kind, or a frame above
 *               TRACED_BULK_MAX bytes; format TRACED_FORMAT_TEXT
 *   -EACCES     a frame without the read or the write right
 *   -ENOMEM     traced has no room to map the frame
 * traced only writes the frame, never reads anything back from it, and
 * lets go of its copy (capability and mapping) before it replies: it
 * keeps no state between calls, so a restarted traced continues a bulk
 * dump as it continues any (the client sends the same request again),
 * and what the client does with its frame meanwhile concerns only it.
 *
 * LOSSES. A dump reports every entry overwritten before it could read it,
 * in place (text: a line, binary: a marker), including those before a
 * last= window, and counts them in the cursor's lost. Which of them could
 * have passed the filter is unknown in general (an overwritten entry's
 * kind and pid are gone), but some cannot have: those on a CPU the
 * filter leaves out; those before an event of their CPU older than
 * since_ns, or after one not older than until_ns (a CPU's entries are in
 * time order); and, when a last= window holds its count events, those
 * before its first event. The cursor counts these apart (outside), and
 * of the others, those already overwritten when the dump began (early:
 * below the heads it began at less a ring); the rest were overwritten
 * while the dump read.
 *
 * DATA. TRACED_FORMAT_TEXT gives lines of DESIGN.md's form, each ending
 * in '\n':
 *   [    1.234567] cpu=1 pid=3 tid=3 comm=memtest mem_pf vaddr=0x400000 rip=0x401020 err=0x6 ...
 * with lines describing the dump starting with '#':
 *   # lost N events on cpu C          (in place: N entries were overwritten)
 *   # end of dump: N events, L lost   (the last page of a dump)
 * and after the end line, when L is not 0, what the losses mean for the
 * question asked (LOSSES), one line, and when nothing was found but
 * losses may have held matching events, what keeps them, one line:
 *   # of the L lost: W could not have matched (...); E overwritten before
 *     the dump began and D while it read may have held matching events
 *   # nothing found, but the lost may have matched: ...
 * TRACED_FORMAT_BINARY gives each event as its ring slots, 64 bytes each
 * (struct ttrace_entry, then its continuations, as abi/trace.h lays them
 * out), and loss as a marker slot: a struct ttrace_entry with kind
 * TRACED_KIND_LOST, ts 0, cpu C and data[0] = the entries lost.
 */
#ifndef SPOOR_ABI_TRACED_H
#define SPOOR_ABI_TRACED_H

#include <stdint.h>

#include "abi/trace.h"
#include "abi/trace_pred.h"
#include "abi/trace_probe.h"

#define TRACED_NAME "traced"
/*
 * 2: the cursor tells losses apart; 3: STATUS says stacks, profiler; 4: SELF, and STATUS says
 * it, and STACK_ON, STACK_OFF; 5: a recording's status says its busy_ns; 6: FILTER,
 * FILTER_TEXT, FILTER_CODE, and STATUS says filter_kinds and filtered; 7: DUMP, FOLLOW, BULK,
 * STATS, SAVE and RECORD requests carry a predicate (pred)
 */
#define TRACED_PROTOCOL	 7
#define TRACED_REPLY_MAX 4096 /* = IPC_BUF_MAX: one page of a dump */

/* The operations' numbers, TRACED_OP_STATUS ..., from abi/traced_ops.def. */
enum {
#define TRACED_OP(nr, NAME, name, LEVEL, arg, request, reply, result) TRACED_OP_##NAME = nr,
#include "abi/traced_ops.def"
#undef TRACED_OP
	TRACED_OP_LIMIT /* one past the highest operation */
};

#define TRACED_UNTRACK_ALL UINT64_MAX

/* Levels (WHO CALLS), the badges init mints. 0: none. */
#define TRACED_LEVEL_SELF    1
#define TRACED_LEVEL_READ    2
#define TRACED_LEVEL_CONTROL 3

#define TRACED_KIND_LOST 0 /* a binary dump's loss marker: no event kind has it */

#define TRACED_TRACKED_MAX 32 /* tracked pids a status reply lists */

/* One CPU in a status reply, in entries, from one consistent snapshot. */
struct traced_cpu_status {
	uint64_t emitted; /* = stored + overwritten + dropped + cleared */
	uint64_t stored;
	uint64_t overwritten;
	uint64_t dropped;
	uint64_t cleared;
};

_Static_assert(sizeof(struct traced_cpu_status) == 40, "abi");

struct traced_status {
	uint64_t mask;		/* the enabled categories */
	uint64_t uptime_ns;	/* since boot, when traced answered */
	uint64_t aux_ring_size; /* bytes */
	uint64_t aux_evicted;	/* aux records overwritten */
	uint32_t mode;		/* TTRACE_MODE_* */
	uint32_t num_cpus;
	uint32_t ring_entries; /* per CPU */
	uint16_t version_major;
	uint16_t version_minor;
	struct traced_cpu_status cpu[TTRACE_MAX_CPUS];
	uint32_t level;	   /* the caller's: TRACED_LEVEL_* */
	uint32_t pid;	   /* the caller's, as the kernel gave it */
	uint32_t tracking; /* 1: PID tracking is on */
	uint32_t ntracked; /* live tracked processes; tracked[] holds the first of them */
	uint32_t tracked[TRACED_TRACKED_MAX];
	uint64_t echo;	       /* the categories the kernel echoes on its console */
	uint64_t stack_kinds;  /* the kinds whose events carry their call stack (STACK) */
	uint32_t profile_hz;   /* the profiler's rate, 0: off (PROFILE) */
	uint32_t profile_cpus; /* the CPUs it samples, bit c for CPU c */
	uint32_t self;	       /* 1: traced's own events are recorded (SELF) */
	uint32_t reserved;     /* zero */
	uint64_t filter_kinds; /* the kinds with a filter (FILTER): bit k for kind k */
	uint64_t filtered[TTRACE_MAX_CPUS]; /* each CPU's events its filters rejected (ledger) */
};

_Static_assert(sizeof(struct traced_status) ==
		   48 + 40 * TTRACE_MAX_CPUS + 16 + 4 * 32 + 32 + 8 + 8 * TTRACE_MAX_CPUS,
	       "abi");

/* FILTER_TEXT's reply: the text a kind's filter was set from. */
struct traced_filter_text {
	uint32_t len;			 /* bytes of text; 0: no filter, or none traced knows */
	uint32_t reserved;		 /* zero */
	char text[TTRACE_PRED_TEXT_MAX]; /* no NUL */
};

_Static_assert(sizeof(struct traced_filter_text) == 8 + TTRACE_PRED_TEXT_MAX, "abi");

/* FILTER_CODE's request: a kind's filter as bytecode. */
struct traced_filter_code {
	uint32_t kind; /* TTRACE_KIND_* */
	uint32_t n;    /* instructions in insn[], 0..TTRACE_PRED_INSNS_MAX */
	struct ttrace_pred_insn insn[TTRACE_PRED_INSNS_MAX];
};

_Static_assert(sizeof(struct traced_filter_code) == 8 + 40 * TTRACE_PRED_INSNS_MAX, "abi");
_Static_assert(__builtin_offsetof(struct traced_status, cpu) == 48, "abi");

/*
 * Which events a dump returns: those passing every test whose flag is
 * set. A field whose flag is clear must be zero, and no two tests may
 * contradict each other (-EINVAL, as the shell's parser refuses them):
 * COUNT or LAST, not both; with CATS and KINDS, every kind in one of the
 * categories; since_ns below until_ns.
 */
#define TRACED_F_CATS  (1u << 0) /* cats: the event's category bit is set */
#define TRACED_F_KINDS (1u << 1) /* kinds: bit k of kinds[k / 64] is set for kind k */
#define TRACED_F_CPUS  (1u << 2) /* cpus: bit c for CPU c */
#define TRACED_F_PID   (1u << 3) /* pid */
#define TRACED_F_TID   (1u << 4) /* tid */
#define TRACED_F_SINCE (1u << 5) /* ts >= since_ns, in ns since boot */
#define TRACED_F_UNTIL (1u << 6) /* ts < until_ns */
#define TRACED_F_COUNT (1u << 7) /* at most count events: the first ones */
#define TRACED_F_LAST  (1u << 8) /* at most count events: the last ones (DUMP only) */
#define TRACED_F_TREE                                                                              \
	(1u << 9) /* with TRACED_F_PID: pid and the processes it spawned,                          \
		     and they, and so on (as WHO CALLS finds descendants) */
#define TRACED_F_ALL 0x3ffu

#define TRACED_KIND_WORDS 4 /* kinds[]: room for kinds 0..255 */

struct traced_filter {
	uint32_t flags; /* TRACED_F_* */
	uint32_t cpus;
	uint64_t cats;
	uint64_t kinds[TRACED_KIND_WORDS];
	uint32_t pid;
	uint32_t tid;
	uint64_t since_ns;
	uint64_t until_ns;
	uint64_t count; /* > 0 */
};

_Static_assert(sizeof(struct traced_filter) == 80, "abi");
_Static_assert(__builtin_offsetof(struct traced_filter, kinds) == 16, "abi");
_Static_assert(__builtin_offsetof(struct traced_filter, count) == 72, "abi");

#define TRACED_CURSOR_MAGIC 0x52535543u /* "CURS" */

/*
 * Where a dump is. Zeroed: a new dump. Otherwise exactly as the last
 * reply gave it; clients never change it.
 */
struct traced_cursor {
	uint32_t magic;	  /* TRACED_CURSOR_MAGIC, or 0 for a new dump */
	uint32_t ncpus;	  /* the trace area's num_cpus */
	uint32_t synced;  /* bit c: next[c] starts an event */
	uint32_t flags;	  /* TRACED_CURSOR_* */
	uint64_t events;  /* events returned so far */
	uint64_t lost;	  /* entries reported lost so far */
	uint64_t skip;	  /* DUMP with TRACED_F_LAST: matching events still to pass over */
	uint64_t outside; /* of lost, those that cannot have matched (LOSSES) */
	uint64_t early;	  /* of lost, the others that were gone before the dump began */
	uint64_t next[TTRACE_MAX_CPUS]; /* per CPU: the next index to read */
	uint64_t end[TTRACE_MAX_CPUS];	/* per CPU: DUMP stops at this index */
};

#define TRACED_CURSOR_FOLLOW 0x1u /* a FOLLOW cursor: no end */
/*
 * DUMP with TRACED_F_LAST: the window holds count matching events, so what
 * was lost before its first cannot have been among the last count.
 */
#define TRACED_CURSOR_FULL 0x2u

_Static_assert(sizeof(struct traced_cursor) == 56 + 16 * TTRACE_MAX_CPUS, "abi");
_Static_assert(__builtin_offsetof(struct traced_cursor, next) == 56, "abi");

#define TRACED_FORMAT_TEXT   0
#define TRACED_FORMAT_BINARY 1

/*
 * A request's predicate (protocol 7): FILTERS' `if PREDICATE`
 * (common/trace_filter_pred.h), the text traced compiles for each kind
 * the filter selects, as the events a dump returns must also pass it;
 * len 0: none. -EINVAL for text that does not compile (the shell
 * compiles it first, and says why), reserved not zero, or a NUL within
 * len. The events it leaves out are not lost: a dump, a stats' window
 * and a save hold the events that pass, and their losses as ever
 * (LOSSES: a predicate cannot tell an overwritten entry either).
 * RECORD takes none (-EINVAL).
 */
struct traced_pred {
	uint32_t len;			 /* bytes of text; 0: none */
	uint32_t reserved;		 /* zero */
	char text[TTRACE_PRED_TEXT_MAX]; /* no NUL */
};

_Static_assert(sizeof(struct traced_pred) == 8 + TTRACE_PRED_TEXT_MAX, "abi");

struct traced_dump_request {
	struct traced_filter filter;
	struct traced_cursor cursor;
	uint32_t format;	 /* TRACED_FORMAT_* */
	uint32_t reserved;	 /* zero */
	struct traced_pred pred; /* the events must pass it too */
};

_Static_assert(sizeof(struct traced_dump_request) == 80 + 184 + 8 + 8 + TTRACE_PRED_TEXT_MAX,
	       "abi");

#define TRACED_DUMP_DONE 0x1u /* the dump has nothing more: stop asking */

/* The head of a DUMP, FOLLOW or STRINGS reply; len bytes of data follow. */
struct traced_dump_reply {
	struct traced_cursor cursor; /* for the next request */
	uint32_t flags;		     /* TRACED_DUMP_* */
	uint32_t len;		     /* data bytes after this structure */
	uint32_t events;	     /* events (or strings) in this page */
	uint32_t reserved;	     /* zero */
};

_Static_assert(sizeof(struct traced_dump_reply) == 184 + 16, "abi");

#define TRACED_PAGE_DATA_MAX (TRACED_REPLY_MAX - sizeof(struct traced_dump_reply))

/*
 * The largest frame BULK fills: 16384 entries. Larger calls would gain
 * little and keep traced from its other clients longer.
 */
#define TRACED_BULK_MAX (1024u * 1024u)

/*
 * STRINGS lists the aux buffer's records, one line each:
 *   syscall 7 spawn
 * the tag's name (TTRACE_AUX_* in lower case: syscall kind proc thread
 * event text), the record's id, its string. tag 0 lists every tag. The
 * reply's cursor.next[0] is the position to continue from (cursor magic
 * set), as with DUMP; records evicted between pages are reported with
 *   # some strings were evicted while listing
 */
struct traced_strings_request {
	uint32_t tag;	   /* TTRACE_AUX_*, or 0 for all */
	uint32_t reserved; /* zero */
	struct traced_cursor cursor;
};

_Static_assert(sizeof(struct traced_strings_request) == 8 + 184, "abi");

/*
 * STATS. The measures pair two events of one thread (or, for wakeup, the
 * thread woken), and a latency is the difference of the two events'
 * times in whole microseconds as a dump prints them (each time cut to
 * the microsecond, then subtracted):
 *   syscall  syscall_entry to syscall_exit of the same tid, per syscall
 *   ipc      ipc_call of a thread to the ipc_reply naming it (peer), per
 *            endpoint and path: fast if the caller's ipc_fastpath came
 *            between them, else slow; a row names the program of the
 *            thread last seen taking calls on its endpoint (an ipc_recv's
 *            thread, a caller's ipc_fastpath peer or its ipc_slowpath
 *            peer while its call on that endpoint is pending): the server
 *   pf       mem_pf_entry to the mem_pf of the same tid, per outcome
 *            (mapped, cow, fixup, killed)
 *   wakeup   sched_wakeup of a tid to the sched_switch that runs it, per
 *            CPU it ran on
 * A half whose other half is outside the window, or that a loss (on any
 * CPU) separates from it, counts as unpaired, never guessed; so does a
 * pair whose second time is below the first (both halves). An unpaired
 * half counts in its row when it tells the row (a syscall's exit, a
 * fault's mem_pf), else in the row whose key is "unknown" (a fault's
 * entry, a wakeup, a reply whose call was not seen). A switch that no wakeup came
 * before is not a half: threads are switched in after preemption too. Percentiles are by nearest
 * rank: pN is the value at rank ceil(N * count / 100) of the sorted
 * latencies. Memory is bounded whatever the window: TRACED_STATS_THREADS
 * threads with a half pending (more: unpaired), TRACED_STATS_VALUES
 * distinct microsecond values a row (more: the row's percentiles come
 * from log-linear buckets, each octave in eight, so a percentile is the
 * start of a bucket at most an eighth below the value, and its KV line
 * says approx=1; `help trace stats` says the same for people).
 *
 * Forms: TABLE, aligned columns for people (the kinds that have events
 * or that the filter names, the measures that have rows, after the head
 * line what the losses mean as after a dump's end line, and "-" for the
 * latencies of a row without a pair); KV, one line a row for scripts,
 * each "key=value" words (the same rows; lost_outside and lost_early as
 * the cursor's outside and early, LOSSES):
 *   events=N lost=L lost_outside=W lost_early=E
 *   kind=mem_pf count=N
 *   measure=syscall name=clock_ns count=N unpaired=U min_us=A p50_us=B
 *     p90_us=C p99_us=D max_us=E approx=0
 *   (ipc rows: endpoint=N server=NAME path=fast|slow, NAME ? when no
 *   thread was seen taking its calls; pf: outcome=NAME; wakeup: cpu=N)
 * and HIST, bpftrace's hist() of one measure, rows whose keys match:
 *   [0]                 12 |@@@@@@@@@@@@@@                                  |
 *   [2, 4)               3 |@@@                                             |
 */
#define TRACED_STATS_TABLE 0
#define TRACED_STATS_KV	   1
#define TRACED_STATS_HIST  2

/* The measures: value, NAME (TRACED_MEASURE_<NAME>), name, the key a row has. */
#define TRACED_MEASURES(X)                                                                         \
	X(1, SYSCALL, syscall, name)                                                               \
	X(2, IPC, ipc, endpoint)                                                                   \
	X(3, PF, pf, outcome)                                                                      \
	X(4, WAKEUP, wakeup, cpu)

enum {
#define TRACED_MEASURE_(value, NAME, name, key) TRACED_MEASURE_##NAME = value,
	TRACED_MEASURES(TRACED_MEASURE_)
#undef TRACED_MEASURE_
	    TRACED_MEASURE_LIMIT
};

/* HIST of ipc: the path word. */
#define TRACED_PATHS(X)                                                                            \
	X(0, ANY, any)                                                                             \
	X(1, FAST, fast)                                                                           \
	X(2, SLOW, slow)

enum {
#define TRACED_PATH_(value, NAME, name) TRACED_PATH_##NAME = value,
	TRACED_PATHS(TRACED_PATH_)
#undef TRACED_PATH_
	    TRACED_PATH_LIMIT
};

#define TRACED_STATS_ANY     UINT64_MAX /* key: every row of the measure */
#define TRACED_STATS_THREADS 512
#define TRACED_STATS_VALUES  256

struct traced_stats_request {
	struct traced_filter filter;
	struct traced_cursor cursor; /* zeroed for the first page, then as the reply gave it */
	uint32_t form;		     /* TRACED_STATS_* */
	uint32_t measure;	     /* HIST: TRACED_MEASURE_*; else 0 */
	uint64_t key;		     /* HIST: syscall number, endpoint, TTRACE_PF_*, cpu, or ANY */
	uint32_t path;		     /* HIST of ipc: TRACED_PATH_* */
	uint32_t reserved;	     /* zero */
	struct traced_pred pred;     /* the window's events must pass it too */
};

_Static_assert(sizeof(struct traced_stats_request) == 80 + 184 + 24 + 8 + TTRACE_PRED_TEXT_MAX,
	       "abi");

/*
 * SAVE's request. The name: 1 to TRACED_SAVE_NAME_MAX - 1 bytes of
 * [A-Za-z0-9._-], not starting with '.', then NULs to the end; the file
 * is NAME.spoor.
 */
#define TRACED_SAVE_NAME_MAX 64

/* The host name of a save below CONTROL: PREFIX-PID-NAME (SAVE above). */
#define TRACED_SAVE_PREFIX_SELF "self"
#define TRACED_SAVE_PREFIX_READ "read"
#define TRACED_SAVE_BURST	4  /* saves a tree below CONTROL may make at once */
#define TRACED_SAVE_REFILL_S	10 /* then one more each this many seconds */

/* User events below CONTROL (REGISTER). */
#define TRACED_UEVENT_TREE_MAX	  32 /* live events one spawn tree made */
#define TRACED_UEVENT_CONTROL_IDS 32 /* ids only CONTROL may take */

struct traced_save_request {
	struct traced_filter filter;
	char name[TRACED_SAVE_NAME_MAX];
	struct traced_pred pred; /* SAVE: the events must pass it too; RECORD: len 0 */
};

_Static_assert(sizeof(struct traced_save_request) == 80 + 64 + 8 + TTRACE_PRED_TEXT_MAX, "abi");

/* TRIGGER's request: a kind's trigger (abi/trace_pred.h, TRIGGERS). */
#define TRACED_TRIGGER_AFTER_MAX 60000u /* ms a SAVE trigger's save may wait */

struct traced_trigger_request {
	uint32_t kind;			 /* TTRACE_KIND_*; 0 with action NONE: every kind */
	uint32_t action;		 /* TTRACE_TRIG_* */
	uint32_t after_ms;		 /* SAVE: ms after the moment; else zero */
	uint32_t len;			 /* bytes of text; zero with action NONE, or with code */
	char name[TRACED_SAVE_NAME_MAX]; /* SAVE: the file, as SAVE's; else NULs */
	char text[TTRACE_PRED_TEXT_MAX]; /* the predicate (no NUL) */
	uint32_t n;			 /* len 0: instructions in insn[], 1..INSNS_MAX; else 0 */
	uint32_t reserved;		 /* zero */
	/* len 0: the predicate as bytecode, for a client that compiles its own, as FILTER_CODE's */
	struct ttrace_pred_insn insn[TTRACE_PRED_INSNS_MAX];
};

_Static_assert(sizeof(struct traced_trigger_request) ==
		   16 + 64 + TTRACE_PRED_TEXT_MAX + 8 + 40 * TTRACE_PRED_INSNS_MAX,
	       "abi");

/* Where a trigger's save is (struct traced_trigger_status). */
#define TRACED_TRIGGER_ARMED   0 /* it has not fired */
#define TRACED_TRIGGER_WAITING 1 /* a SAVE fired: the save waits out after_ms, or is on its way */
#define TRACED_TRIGGER_SAVED   2 /* a SAVE's file is on the host */
#define TRACED_TRIGGER_FAILED  3 /* a SAVE's save failed: err says why */

/* TRIGGER_TEXT's reply. */
struct traced_trigger_status {
	struct traced_trigger_request set; /* as TRIGGER set it (len 0: its text unknown) */
	uint64_t fired;			   /* the times its predicate held, the kernel's count */
	uint64_t events;		   /* SAVED: events in the file */
	uint32_t state;			   /* TRACED_TRIGGER_* */
	int32_t err;			   /* FAILED: the save's -E* */
};

_Static_assert(sizeof(struct traced_trigger_status) == sizeof(struct traced_trigger_request) + 24,
	       "abi");

struct traced_save_reply {
	uint64_t events;  /* events saved */
	uint64_t lost;	  /* entries the save found lost (markers in the file) */
	uint64_t bytes;	  /* the file's size */
	uint64_t outside; /* of lost, those that cannot have matched (LOSSES) */
	uint64_t early;	  /* of lost, the others that were gone before the save began */
};

_Static_assert(sizeof(struct traced_save_reply) == 40, "abi");

/* A recording's totals so far (RECORD, REC_STOP, REC_STATUS). */
struct traced_record_status {
	char name[TRACED_SAVE_NAME_MAX]; /* the host file's, without .spoor */
	uint64_t events;		 /* events in the file */
	uint64_t lost;			 /* entries lost (markers in the file) */
	uint64_t bytes;			 /* the file's size */
	uint64_t chunks;
	uint64_t started_ns; /* ns since boot when it began */
	uint64_t ended_ns;   /* when it stopped; 0 while it runs */
	uint32_t active;     /* 1 while it runs */
	int32_t error;	     /* -E* that stopped it early (the host refused), else 0 */
	uint64_t busy_ns;    /* protocol 5: traced's time taking events into the window,
			      * its waits for the host left out (under -icount, instructions) */
};

_Static_assert(sizeof(struct traced_record_status) == 64 + 48 + 16, "abi");

#endif
