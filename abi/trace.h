/*
 * Tracing as the kernel lays it out and every reader sees it: the trace
 * area's regions, the header, the 64-byte ring entries, the aux buffer's
 * records, categories, contexts, modes and event kinds, and the protocols
 * below. A reader written only from this file must work; common/trace_*.c
 * is one implementation, shared by the kernel, libc and the host tests.
 * Everything is little-endian (x86_64).
 *
 * THE TRACE AREA. Four regions, each starting page aligned; offsets are
 * from the start of the area, as the header records them (rings of 64
 * entries or more are whole pages, so then every CPU's ring is aligned):
 *
 *   0              header      struct ttrace_header, header_bytes long.
 *   reader_offset  reader page struct ttrace_reader: the only memory a
 *                              reader writes (its drop-mode tails).
 *   ring_offset    rings       num_cpus rings, ring_bytes each: CPU c's
 *                              ring starts at ring_offset + c * ring_bytes
 *                              and holds ring_entries 64-byte slots.
 *   aux_offset     aux         aux_durable_size bytes of durable records,
 *                              then aux_ring_size bytes of the aux ring.
 *
 * A reader maps the header, rings and aux read-only. The reader page is a
 * separate page so that it alone can be mapped writable, and only by the
 * single privileged reader (traced): the kernel hands it out with the
 * trace-control capability, because a reader's tail decides what the
 * writers drop. A reader without it reads all the same; in drop mode the
 * writers then stop storing once the ring is full (see DROP MODE).
 *
 * Field legend: [I] set before the area is handed out, then immutable;
 * [W] the owning CPU's ring writer, atomically; [C] the control path (mask,
 * mode, clear), one at a time under the kernel's trace-control lock; [A]
 * the aux writer, under the kernel's aux lock; [R] the reader, in the
 * reader page. [I] fields may be read plainly; every other field is read
 * with atomic loads by everyone but its writer.
 *
 * VERSIONS. A reader refuses a header whose magic is not TTRACE_MAGIC or
 * whose version_major differs from its own, and one whose version_minor is
 * older than its own (fields it knows would be missing). A newer minor only
 * appends fields (header_size grows) and is accepted. shared_layout is the
 * format of ring entries and aux records, cpu_layout that of struct
 * ttrace_cpu and the rings; a reader refuses a layout it does not know.
 *
 * ENTRIES. A slot is 64 bytes: either a head entry (struct ttrace_entry) or
 * a continuation (struct ttrace_cont), told apart by bit 0 of ts. An event
 * is a head entry followed by 0..TTRACE_CONT_MAX continuations in the next
 * indices (wrapping the ring end like any index); the head entry's ctx
 * says how many. Data words run head.data[0..4], then each continuation's
 * data[0..6]: an event carries up to TTRACE_EVENT_WORDS_MAX words, and
 * unused words are zero. A continuation has no seq or kind of its own: it
 * belongs to the head entry exactly ncont or fewer indices before it, and
 * carries that entry's ts with bit 0 set, so a reader checks it by its
 * index and its ts. ts bit 63 is always clear, so the only all-ones ts is
 * TTRACE_TS_WRITING: a slot being written, or never written.
 *
 * Index i of CPU c's ring (0, 1, 2, ... for ever) lives in slot
 * i & (ring_entries - 1); a head entry's seq is the low 32 bits of i, which
 * tells a reader whether a slot holds the lap it expects.
 *
 * WRITING AN EVENT (the kernel, on the ring's own CPU with preemption off;
 * interrupts may nest other writes inside it).
 *  W1. Reserve all n = 1 + ncont indices on cpu[c].head in one step that
 *      an interrupt on this CPU cannot split, so a nested write gets the
 *      indices after them. Only this CPU stores head and dropped, so the
 *      step needs no lock: a CPU-local read-modify-write in one
 *      instruction, as Linux's local_t (on x86 xadd and cmpxchg without
 *      the lock prefix); other CPUs only load the two, and an aligned
 *      8-byte store is never torn. Its store of head is a release (pairs
 *      with the acquire loads of head in R1-R5; on x86 every store is).
 *      Overwrite mode: add n to head. Drop mode: load head; load the
 *      reader's tail and clear_index with acquire (pairing with the
 *      release stores of DROP MODE and CLEAR); with keep = max(tail,
 *      clear_index), at most head: if head + n - keep > ring_entries, add
 *      n to cpu[c].dropped (CPU-local too) and stop; else compare-and-
 *      exchange head from the value loaded to it + n, which a nested
 *      write that moved head in between makes fail: then start W1 again
 *      (a reader that sees the reservation sees the clear it used).
 *  W2. In each slot store ts = TTRACE_TS_WRITING, then the other seven
 *      words, all with release ordering: whoever sees one of them also sees
 *      the reservation, and the marking before it (pairs with the acquire
 *      loads of R3/R4).
 *  W3. Publish: store each continuation's ts, then the head entry's ts,
 *      with release ordering (pairs with the acquire loads of ts in R3/R4).
 *      A head entry's ts never equals the ts its slot held before the
 *      write (bit 1 is flipped if it would: a clock that stood still for a
 *      lap), so R5 cannot take the old entry's ts for the new one's.
 *
 * READING A RING. A reader keeps a cursor: the next index i, and whether
 * i is known to start an event ("synced": 0, a head value, a clear_index,
 * or the end of an event it read are; a position it jumped to is not).
 * With N = ring_entries:
 *  R1. Load cpu[c].clear_index (acquire: pairs with the release store in
 *      a clear), then cpu[c].head as H (acquire: pairs with W1; and
 *      sequentially consistent, for R2). If
 *      i < clear_index, the entries up to it are gone, and count as the
 *      ledger counts them (ACCOUNTING): take clear_index, cleared and the
 *      CLEAR LOG as one snapshot (the seqlock of CLEAR); while a clear
 *      stays in progress, stop and retry later (R6). A cursor that
 *      knows the ledger's cleared count below i ("settled": i is 0, or a
 *      clear_index or R2 position reached with that count in the same
 *      snapshot, nothing read since) counts the difference as cleared and
 *      the rest lost. Any other takes the split from the log: of each
 *      logged clear with to > i, its entries from max(from, i) on are
 *      cleared; every other entry it skips is lost. Only those clears can
 *      have discarded an entry at or above i, and clear_index only grows,
 *      so the split is exact when the log holds all of them: it holds
 *      every clear there was, or its oldest has to <= i. Otherwise more
 *      than TTRACE_CLEAR_LOG clears ended since the reader was at i, and
 *      what came before the oldest logged one's from counts cleared (how
 *      much of it was overwritten first is kept nowhere). Then
 *      i = clear_index, synced, settled with the snapshot's cleared.
 *  R2. If i >= H, nothing more is written yet. If H - i > N, entries from
 *      i on are gone: load clear_seq (sequentially consistent, as the
 *      load of head that showed it), then reload clear_index (acquire);
 *      if i is below it now, a clear let the writer reuse them: go to R1.
 *      If clear_seq is odd, a clear is taking head meanwhile and may count
 *      some of them cleared: stop and retry later, as for a slot being
 *      written. Otherwise the entries up to H - N were overwritten: count
 *      them lost, i = H - N, not
 *      synced; settled if a snapshot as in R1 shows clear_index <= i (no
 *      entry below i can be cleared any more).
 *      A reader may stop at an end of its own (a head value: a dump up to
 *      the heads it began with): no jump goes past it, and of a stretch R1
 *      cuts there, it counts only the entries below its end, split by the
 *      log as above.
 *  R3. Load word 1 of slot i (seq, kind, cpu, ctx) with acquire, then ts
 *      with acquire, and test them in this order:
 *      - ts == TTRACE_TS_WRITING: the slot is being written. Reload head;
 *        if now H - i > N go to R2 (lapped), else stop and retry later.
 *      - ts bit 0 set: a continuation (its word 1 is payload, not a seq).
 *        Synced: an older lap, as above. Not synced: its head entry was
 *        overwritten: count 1 lost, i++.
 *      - seq != low 32 bits of i: the slot still holds an older lap, as
 *        for a slot being written.
 *      A match is not proof yet: word 1 may be an older continuation's
 *      payload that happens to look like seq i, read just before the
 *      writer of i began. R5 settles it.
 *  R4. Copy words 2..7 with acquire loads. For each continuation j of the
 *      event (ncont from ctx), load its ts with acquire: it must equal the
 *      head's ts | 1. If not, do R5's check of word 1 and ts first (ncont
 *      may not be the writer's); if that passes, the continuation was
 *      reused (the head was published after it, W3) and the event is gone,
 *      as in R5. Copy its words 1..7 with acquire loads.
 *  R5. Re-check, each load after the ones before it (acquire): word 1 and
 *      then ts of slot i must be unchanged, else a writer started on the
 *      slot since R3: go to R3. One write since R3 always shows (W2 stored
 *      TTRACE_TS_WRITING first, and W3 publishes a ts unlike the one the
 *      slot held); two or more could bring an old ts back, but each needs
 *      the ring to lap, which the head check that follows catches. Then
 *      reload head as H2. If
 *      H2 - i > N, a writer reserved one of the event's slots again and may
 *      have written into the copy (it would have been seen: W2): discard
 *      the copy; check clear_seq and clear_index as in R2 (go to R1, or
 *      stop), else count the event's 1 + ncont entries lost and skip them.
 *      Otherwise the copy is exactly event i: return it; i += 1 + ncont,
 *      synced.
 *  R6. A reader held up at i below H (a slot being written, or a clear in
 *      progress) waits a bounded while of its choosing for i to move; if
 *      it does not, the write (or the clear) may never end, its CPU
 *      wedged or stopped. Then it skips: i + 1, or H - N if lapped;
 *      counts what it skipped lost, not synced, and says so. Below
 *      clear_index it skips up to clear_index, synced: the N entries below
 *      it count cleared and the rest lost (the log that would split them
 *      is what the clear was writing). If the write
 *      completes after all, the entry is this reader's loss though the
 *      ledger counts it stored.
 *  A reader never returns a slot it did not validate this way, so never a
 *  torn or lapped record. An orphan continuation can be misjudged only if
 *  a write stalls while N further entries are reserved on its CPU; the
 *  kernel keeps interrupt nesting far below that, and even then the entry
 *  is counted lost, not returned. In drop mode a streaming reader counts
 *  nothing lost: only cleared entries at or above its tail are reused.
 *
 * DROP MODE. The streaming reader publishes its cursor as
 * reader->cpu[c].tail with a release store after copying the entries
 * below it (pairs with the writer's acquire load in W1, so no slot is
 * reused before its copy is done). Writers then never overwrite an entry
 * at or above the tail that was not cleared; what does not fit is counted
 * in dropped. A tail above head is taken as head.
 *
 * CLEAR (control path). Snapshot head as h; cleared += h - lo, with
 * lo = max(h - N if h > N, else 0; the old clear_index); clear_index = h;
 * and the clear's entry in the log, clear_log[c].clear[(n - 1) %
 * TTRACE_CLEAR_LOG] for the n-th clear of the ring, = {lo, h}. The stores
 * sit inside cpu[c].clear_seq going odd, then even (a seqlock): clear_seq
 * is stored odd and head loaded, both sequentially consistent (so the
 * store is seen before the load; pairs with the readers' loads of head,
 * then clear_seq, in R2 and ACCOUNTING: whoever loads a head newer than h
 * sees the clear in progress), the fields are stored with release,
 * clear_seq even with release. So clear_seq / 2
 * clears have ended when it is even.
 *
 * THE CLEAR LOG keeps each ring's last TTRACE_CLEAR_LOG clears, {from,
 * to}: the entries [from, to) that clear discarded while they were
 * stored. It lets a reader that consumed entries and then missed clears
 * split what it skips exactly (R1): the ledger's cleared count is the sum
 * of every clear's to - from, but which entries a clear took depends on
 * where head was when it ran.
 *
 * ACCOUNTING, in entries, for each CPU, from one consistent snapshot: load
 * clear_seq (acquire), clear_index and cleared (acquire), then head
 * (sequentially consistent), dropped and filtered, then clear_seq again
 * (sequentially consistent); retry while it was odd or changed. Then
 *   emitted     = head + dropped + filtered
 *   lo          = max(head - N if head > N, else 0; clear_index)
 *   stored      = head - lo          (readable, or being written)
 *   overwritten = lo - cleared
 * and emitted = stored + overwritten + dropped + cleared + filtered,
 * exactly, at any moment. A filter rejects an event before it reserves,
 * so a rejected event takes no entry: filtered counts each one as one
 * entry, its head (the continuations of a call stack are never made for
 * it: its stack is not walked). The writer adds to it CPU-locally, as to
 * dropped. Each entry below lo is one or the other for good: overwritten
 * if its slot was reserved again before a clear came past it, cleared if
 * a clear discarded it while stored; a clear that follows overwrites
 * leaves them overwritten. In drop mode, entries are overwritten only
 * below the tail, once the streaming reader has consumed them. A
 * streaming reader's own count adds up too: received + lost + cleared (as
 * R1-R5 count them) = head. A reader from index 0 that has read nothing
 * yet counts, in one pass, cleared = cleared and lost = overwritten plus
 * the few orphan continuations whose head entry was overwritten (stored,
 * but not readable as an event).
 *
 * THE WAKE-UP. A streaming reader need not poll: trace_wake (below)
 * binds the kernel's one trace wake-up to an endpoint the reader
 * receives on and arms it with a watermark. While armed, each CPU's
 * timer tick compares its ring's unread entries, head - max(the
 * reader's tail, clear_index), with the watermark; the first CPU to
 * find more disarms it and signals the endpoint (abi/ipc.h, SIGNALS)
 * with bit c for CPU c. One signal per arming: the reader publishes its
 * tails, arms, then receives, and arms again before each wait. The
 * check is of a level at every tick, and a signal that finds no
 * receiver stays pending on the endpoint, so a ring that passed the
 * watermark before the arming, or while the reader was busy, wakes it
 * all the same: no wake-up is lost. The tracepoints do nothing for it;
 * a ring is noticed at most one tick (10 ms) after it passes the mark,
 * so a watermark leaves the writers that much room. Tails publish as in
 * DROP MODE, in either mode (overwrite mode's writers ignore them).
 *
 * THE AUX BUFFER. Records name things events refer to. Positions form one
 * byte space: the durable part holds positions [0, aux_durable_end), at
 * aux_offset + p; the ring holds [aux_first, aux_last), all at least
 * aux_durable_size, position p at aux_offset + aux_durable_size +
 * ((p - aux_durable_size) & aux_mask). A record is struct ttrace_aux_record
 * then len string bytes (no NUL), zero padded to 8 bytes; records are
 * 8-byte aligned and may wrap the ring end. A reference to a record is its
 * position, which the record repeats in its pos field.
 *  The durable part is written at boot (syscall and kind names) and never
 *  overwritten; the ring overwrites its oldest records when full, except
 *  the program names (PROC) a dump may still need, which it moves.
 *  AW1. (aux writer) For a record of size bytes at last: while
 *       last + size - first > aux_ring_size, move first past the oldest
 *       record (relaxed store) and count it in aux_evicted; or, for a
 *       program name still needed (its process lives, or some ring still
 *       holds an entry written before the process was freed), write it
 *       again at last as a new record (AW2, AW3) instead of counting it,
 *       at most one ring's worth of such moves per record written. So
 *       the newest record of an id is the one to read, and records are in
 *       the order written except for moved ones.
 *  AW2. Store the record's words with release ordering: whoever sees one
 *       also sees the moved first (pairs with the acquire loads of A2/A3).
 *  AW3. Store aux_last (or aux_durable_end) past it with release (pairs
 *       with the acquire loads of A1/A2).
 *  A1. Durable part: load aux_durable_end (acquire); the records below it
 *      are complete and never change.
 *  A2. Window: load aux_last (acquire), then aux_first; copy [first, last)
 *      word by word with acquire loads, then reload aux_first as first2.
 *      The records in [max(first, first2), last) are intact (first2 is
 *      always a record start); the rest of the copy is discarded.
 *  A3. Lookup of a reference r: below aux_durable_size, as A1; in the
 *      ring, as A2 for the record at r alone, and r < first or r < first2
 *      means the record was evicted. The record must have TTRACE_AUX_VALID
 *      set, pos == r and end by aux_durable_end or last; if not, r was
 *      never a record reference. Never print bytes that failed this.
 */
#ifndef SPOOR_ABI_TRACE_H
#define SPOOR_ABI_TRACE_H

#include <stddef.h>
#include <stdint.h>

#define TTRACE_MAGIC	     0x43525454u /* "TTRC" */
#define TTRACE_VERSION_MAJOR 1
#define TTRACE_VERSION_MINOR 4
#define TTRACE_SHARED_LAYOUT 1 /* struct ttrace_entry, ttrace_cont, ttrace_aux_record */
#define TTRACE_CPU_LAYOUT    1 /* struct ttrace_cpu, ttrace_reader_cpu, the rings */

#define TTRACE_MAX_CPUS		8
#define TTRACE_PAGE_SIZE	4096 /* every region starts and ends on one */
#define TTRACE_RING_ENTRIES_MIN 16
#define TTRACE_AUX_RING_MIN	4096
#define TTRACE_CLEAR_LOG	16 /* clears each CPU's log keeps */

/* Categories: bit, NAME, name. `trace on mem` sets TTRACE_CAT(MEM). */
#define TTRACE_CATEGORIES(X)                                                                       \
	X(0, MEM, mem)	       /* page faults, map, unmap, cow, user copies, frames */             \
	X(1, SCHED, sched)     /* switch, wakeup, migrate */                                       \
	X(2, SYSCALL, syscall) /* entry, exit */                                                   \
	X(3, IPC, ipc)	       /* call, recv, reply, and the fast IPC path's switches */           \
	X(4, IRQ, irq)	       /* interrupt entry and exit, timer */                               \
	X(5, PROC, proc)       /* spawn, exit, fault */                                            \
	X(6, USER, user)       /* user-defined events */                                           \
	X(7, TEST, test)       /* events of test workloads */                                      \
	X(8, PROF, prof)       /* the sampling profiler's samples (TTRACE_OP_PROFILE) */           \
	X(9, FUNC, func)       /* kernel function entries (abi/trace_func.h) */

enum {
#define TTRACE_CAT_BIT_(bit, NAME, name) TTRACE_CAT_BIT_##NAME = bit,
	TTRACE_CATEGORIES(TTRACE_CAT_BIT_)
#undef TTRACE_CAT_BIT_
};

#define TTRACE_CAT(NAME)		(1ull << TTRACE_CAT_BIT_##NAME)
#define TTRACE_CAT_OR_(bit, NAME, name) | (1ull << (bit))
#define TTRACE_CAT_ALL			(0 TTRACE_CATEGORIES(TTRACE_CAT_OR_))

/* Event kinds: TTRACE_KIND_mem_pf, ... from abi/trace_kinds.def. */
enum {
#define TTRACE_KIND(id, name, cat, args) TTRACE_KIND_##name = id,
#include "trace_kinds.def"
#undef TTRACE_KIND
	TTRACE_KIND_LIMIT /* one past the highest id */
};

/* mem_pf's outcomes: value, NAME (TTRACE_PF_<NAME>), the name readers print. */
#define TTRACE_PF_OUTCOMES(X)                                                                      \
	X(0, MAPPED, mapped) /* demand paging mapped a page */                                     \
	X(1, COW, cow)	     /* a copy-on-write page was copied */                                 \
	X(2, FIXUP, fixup)   /* a kernel access to user memory failed: -EFAULT */                  \
	X(3, KILLED, killed) /* a bad user access: the process is killed */

enum {
#define TTRACE_PF_(value, NAME, name) TTRACE_PF_##NAME = value,
	TTRACE_PF_OUTCOMES(TTRACE_PF_)
#undef TTRACE_PF_
	    TTRACE_PF_LIMIT
};

/* mem_copy's directions: value, NAME (TTRACE_COPY_<NAME>), the name readers print. */
#define TTRACE_COPY_DIRS(X)                                                                        \
	X(0, FROM_USER, from_user) /* the kernel read user memory */                               \
	X(1, TO_USER, to_user)	   /* the kernel wrote user memory */

enum {
#define TTRACE_COPY_(value, NAME, name) TTRACE_COPY_##NAME = value,
	TTRACE_COPY_DIRS(TTRACE_COPY_)
#undef TTRACE_COPY_
	    TTRACE_COPY_LIMIT
};

/* prof_sample's modes: value, NAME (TTRACE_PROF_<NAME>), the name readers print. */
#define TTRACE_PROF_MODES(X)                                                                       \
	X(0, KERNEL, kernel) /* the CPU was running kernel code */                                 \
	X(1, USER, user)     /* ... a program's code */                                            \
	X(2, IDLE, idle)     /* ... the idle thread: no stack is recorded */

enum {
#define TTRACE_PROF_(value, NAME, name) TTRACE_PROF_##NAME = value,
	TTRACE_PROF_MODES(TTRACE_PROF_)
#undef TTRACE_PROF_
	    TTRACE_PROF_LIMIT
};

/* Contexts: the low nibble of an entry's ctx. */
#define TTRACE_CTX_KERNEL  0 /* a kernel thread, or boot: pid 0 */
#define TTRACE_CTX_IRQ	   1 /* an interrupt handler; pid, tid: whom it interrupted */
#define TTRACE_CTX_SYSCALL 2 /* a system call of pid, tid */
#define TTRACE_CTX_TRAP	   3 /* an exception taken by pid, tid (page fault, ...) */
#define TTRACE_CTX_USER	   4 /* a user event written by pid, tid */

/* ctx: bits 0-3 the context, bits 4-5 the number of continuations, 6-7 zero. */
#define TTRACE_CTX_MASK		  0x0fu
#define TTRACE_CTX_NCONT_SHIFT	  4
#define TTRACE_CTX_OF(ctx)	  (TTRACE_CTX_MASK & (ctx))
#define TTRACE_NCONT_OF(ctx)	  (((ctx) >> TTRACE_CTX_NCONT_SHIFT) & 3u)
#define TTRACE_CTX_MAKE(c, ncont) ((uint8_t)((c) | (ncont) << TTRACE_CTX_NCONT_SHIFT))

/* Modes (header mode). */
#define TTRACE_MODE_OVERWRITE 0 /* the flight recorder, the default: newest events win */
#define TTRACE_MODE_DROP      1 /* no overwrite: oldest unread events win, new ones are dropped */

/* ts values. */
#define TTRACE_TS_WRITING UINT64_MAX		/* being written, or never written */
#define TTRACE_TS_CONT	  1ull			/* bit 0: a continuation entry */
#define TTRACE_TS_MASK	  0x7ffffffffffffffeull /* what a head entry keeps of its timestamp */

#define TTRACE_ENTRY_SIZE      64
#define TTRACE_HEAD_WORDS      5
#define TTRACE_CONT_WORDS      7
#define TTRACE_CONT_MAX	       3
#define TTRACE_EVENT_WORDS_MAX (TTRACE_HEAD_WORDS + TTRACE_CONT_MAX * TTRACE_CONT_WORDS)
/* Slots an event of nwords data words takes (nwords <= TTRACE_EVENT_WORDS_MAX). */
#define TTRACE_EVENT_SLOTS(nwords)                                                                 \
	((nwords) <= TTRACE_HEAD_WORDS                                                             \
	     ? 1u                                                                                  \
	     : 1u + (TTRACE_CONT_WORDS - 1 - TTRACE_HEAD_WORDS + (nwords)) / TTRACE_CONT_WORDS)

/*
 * CALL STACKS (TTRACE_OP_STACK, and every prof_sample). An event of a
 * kernel kind (any kind but user, whose words are the writer's) that has
 * continuations carries its call stack in them: data[TTRACE_STACK_WORD]
 * is the stack word below, and the frames follow it, innermost first:
 * the kernel's nkernel return addresses (when the event happened in the
 * kernel), then the user's nuser (the thread's user instruction pointer,
 * then the return addresses its frame pointers lead to). A reader that
 * skips continuations sees the event as without a stack. A stack is
 * whole, or says which part was cut: KCUT, the kernel's frames went on
 * past the room; UCUT, the user's walk stopped at a frame it could not
 * read, one not above the one before, one outside user memory, or the
 * room. A user frame is always below USER_TOP: no kernel address.
 */
#define TTRACE_STACK_WORD	TTRACE_HEAD_WORDS
#define TTRACE_STACK_FRAMES_MAX (TTRACE_EVENT_WORDS_MAX - TTRACE_STACK_WORD - 1)
#define TTRACE_STACK_USER_MAX	32	  /* user frames walked at most (within the room) */
#define TTRACE_STACK_TAG	0x5354ull /* "ST", bits 48-63 of the stack word */
#define TTRACE_STACK_KCUT	(1ull << 16)
#define TTRACE_STACK_UCUT	(1ull << 17)
#define TTRACE_STACK_NKERNEL(w) ((uint32_t)(w)&0xffu)
#define TTRACE_STACK_NUSER(w)	((uint32_t)((w) >> 8) & 0xffu)
#define TTRACE_STACK_IS(w)	((w) >> 48 == TTRACE_STACK_TAG)
#define TTRACE_STACK_MAKE(nk, nu, cut)                                                             \
	(TTRACE_STACK_TAG << 48 | (uint64_t)(cut) | (uint64_t)(nu) << 8 | (uint64_t)(nk))

/* A head entry: one event, or its first part. */
struct ttrace_entry {
	uint64_t ts;   /* TSC & TTRACE_TS_MASK; TTRACE_TS_WRITING while written */
	uint32_t seq;  /* low 32 bits of the entry's per-CPU index */
	uint16_t kind; /* TTRACE_KIND_* */
	uint8_t cpu;   /* the ring's CPU */
	uint8_t ctx;   /* TTRACE_CTX_MAKE(context, continuations) */
	uint32_t pid;  /* 0: the kernel */
	uint32_t tid;  /* 0: none (boot, idle) */
	uint64_t data[TTRACE_HEAD_WORDS];
};

/*
 * Continuation j (1..TTRACE_CONT_MAX) of the head entry j indices before it:
 * that event's data words 5 + 7 * (j - 1) to 11 + 7 * (j - 1).
 */
struct ttrace_cont {
	uint64_t ts; /* the head entry's ts | TTRACE_TS_CONT */
	uint64_t data[TTRACE_CONT_WORDS];
};

/* A ring slot. word[] is how it is copied: one atomic load or store per word. */
union ttrace_slot {
	struct ttrace_entry e;
	struct ttrace_cont c;
	uint64_t word[TTRACE_ENTRY_SIZE / 8];
};

_Static_assert(sizeof(struct ttrace_entry) == TTRACE_ENTRY_SIZE, "abi");
_Static_assert(offsetof(struct ttrace_entry, ts) == 0, "abi");
_Static_assert(offsetof(struct ttrace_entry, seq) == 8, "abi");
_Static_assert(offsetof(struct ttrace_entry, kind) == 12, "abi");
_Static_assert(offsetof(struct ttrace_entry, cpu) == 14, "abi");
_Static_assert(offsetof(struct ttrace_entry, ctx) == 15, "abi");
_Static_assert(offsetof(struct ttrace_entry, pid) == 16, "abi");
_Static_assert(offsetof(struct ttrace_entry, tid) == 20, "abi");
_Static_assert(offsetof(struct ttrace_entry, data) == 24, "abi");
_Static_assert(sizeof(struct ttrace_cont) == TTRACE_ENTRY_SIZE, "abi");
_Static_assert(offsetof(struct ttrace_cont, ts) == 0, "abi");
_Static_assert(offsetof(struct ttrace_cont, data) == 8, "abi");
_Static_assert(sizeof(union ttrace_slot) == TTRACE_ENTRY_SIZE, "abi");
_Static_assert(TTRACE_EVENT_SLOTS(TTRACE_EVENT_WORDS_MAX) == 1 + TTRACE_CONT_MAX, "abi");

/* One CPU's counters in the header: one cache line, so CPUs do not share one. */
struct ttrace_cpu {
	uint64_t head;	      /* [W] entries ever reserved in the ring */
	uint64_t dropped;     /* [W] entries the writer dropped (drop mode) */
	uint64_t clear_index; /* [C] head at the last clear: the entries below are discarded */
	uint64_t cleared;     /* [C] entries discarded by clears while still stored */
	uint32_t clear_seq;   /* [C] odd while a clear updates clear_index and cleared */
	uint32_t reserved0;   /* zero */
	uint64_t filtered;    /* [W] events a filter rejected (abi/trace_pred.h); minor 4 on */
	uint64_t reserved[2]; /* zero */
};

_Static_assert(sizeof(struct ttrace_cpu) == 64, "abi");
_Static_assert(offsetof(struct ttrace_cpu, head) == 0, "abi");
_Static_assert(offsetof(struct ttrace_cpu, dropped) == 8, "abi");
_Static_assert(offsetof(struct ttrace_cpu, clear_index) == 16, "abi");
_Static_assert(offsetof(struct ttrace_cpu, cleared) == 24, "abi");
_Static_assert(offsetof(struct ttrace_cpu, clear_seq) == 32, "abi");
_Static_assert(offsetof(struct ttrace_cpu, reserved0) == 36, "abi");
_Static_assert(offsetof(struct ttrace_cpu, filtered) == 40, "abi");
_Static_assert(offsetof(struct ttrace_cpu, reserved) == 48, "abi");

/* Entries [from, to) of one ring, which one clear discarded while they were stored. */
struct ttrace_clear {
	uint64_t from;
	uint64_t to; /* head when the clear ran: the clear_index it left */
};

/* One CPU's last TTRACE_CLEAR_LOG clears: clear n (from 1) in clear[(n - 1) % TTRACE_CLEAR_LOG]. */
struct ttrace_clear_log {
	struct ttrace_clear clear[TTRACE_CLEAR_LOG];
};

_Static_assert(sizeof(struct ttrace_clear) == 16, "abi");
_Static_assert(sizeof(struct ttrace_clear_log) == 256, "abi");

struct ttrace_header {
	/* Identification: at these offsets in every version. */
	uint32_t magic;		/* [I] TTRACE_MAGIC */
	uint16_t version_major; /* [I] TTRACE_VERSION_MAJOR */
	uint16_t version_minor; /* [I] TTRACE_VERSION_MINOR */
	uint16_t shared_layout; /* [I] TTRACE_SHARED_LAYOUT */
	uint16_t cpu_layout;	/* [I] TTRACE_CPU_LAYOUT */
	uint32_t header_size;	/* [I] sizeof(struct ttrace_header) of the kernel */

	/* Geometry. */
	uint32_t num_cpus;     /* [I] rings, 1..TTRACE_MAX_CPUS */
	uint32_t entry_size;   /* [I] TTRACE_ENTRY_SIZE */
	uint32_t ring_entries; /* [I] slots per ring: a power of two, >= TTRACE_RING_ENTRIES_MIN */
	uint32_t cont_max;     /* [I] TTRACE_CONT_MAX */
	uint64_t tsc_hz;       /* [I] TSC ticks a second; 0 if unknown */
	uint64_t boot_tsc;     /* [I] the TSC at boot: time 0 */

	/* Regions, in bytes from the start of the area, each page aligned. */
	uint64_t area_size;	   /* [I] the whole area */
	uint64_t header_bytes;	   /* [I] the header region, at offset 0 */
	uint64_t reader_offset;	   /* [I] struct ttrace_reader */
	uint64_t reader_bytes;	   /* [I] */
	uint64_t ring_offset;	   /* [I] CPU 0's ring */
	uint64_t ring_bytes;	   /* [I] one ring: ring_entries * entry_size */
	uint64_t aux_offset;	   /* [I] the durable part, then the aux ring */
	uint64_t aux_durable_size; /* [I] bytes of the durable part, a multiple of 8 */
	uint64_t aux_ring_size;	   /* [I] bytes of the aux ring: a power of two */
	uint64_t aux_mask;	   /* [I] aux_ring_size - 1 */

	/* Control. */
	uint64_t mask;	   /* [C] the enabled categories, TTRACE_CAT() bits */
	uint32_t mode;	   /* [C] TTRACE_MODE_* */
	uint32_t tracking; /* [C] 1: PID tracking is on (TTRACE_OP_TRACK); minor 1 on */

	/* The aux buffer: positions as in THE AUX BUFFER above. */
	uint64_t aux_durable_end; /* [A] end of the durable records */
	uint64_t aux_first;	  /* [A] the oldest record in the ring */
	uint64_t aux_last;	  /* [A] end of the newest record in the ring */
	uint64_t aux_evicted;	  /* [A] records the ring has overwritten */
	uint64_t echo;		  /* [C] categories echoed on the console (TTRACE_OP_ECHO) */

	/* Minor 3 on. */
	uint64_t stack_kinds;  /* [C] kinds whose events carry their call stack (TTRACE_OP_STACK) */
	uint32_t profile_hz;   /* [C] the profiler's rate (TTRACE_OP_PROFILE); 0: off */
	uint32_t profile_cpus; /* [C] the CPUs it samples, bit c for CPU c; 0: off */

	/* Minor 4 on. */
	uint64_t filter_kinds; /* [C] kinds with a filter, bit k for kind k (abi/trace_pred.h) */
	uint64_t reserved1[6]; /* zero */

	struct ttrace_cpu cpu[TTRACE_MAX_CPUS];

	/* Minor 2 on. */
	struct ttrace_clear_log clear_log[TTRACE_MAX_CPUS]; /* [C] the CLEAR LOG */
};

_Static_assert(sizeof(struct ttrace_header) == 0x300 + 256 * TTRACE_MAX_CPUS, "abi");
_Static_assert(offsetof(struct ttrace_header, magic) == 0x00, "abi");
_Static_assert(offsetof(struct ttrace_header, version_major) == 0x04, "abi");
_Static_assert(offsetof(struct ttrace_header, version_minor) == 0x06, "abi");
_Static_assert(offsetof(struct ttrace_header, shared_layout) == 0x08, "abi");
_Static_assert(offsetof(struct ttrace_header, cpu_layout) == 0x0a, "abi");
_Static_assert(offsetof(struct ttrace_header, header_size) == 0x0c, "abi");
_Static_assert(offsetof(struct ttrace_header, num_cpus) == 0x10, "abi");
_Static_assert(offsetof(struct ttrace_header, entry_size) == 0x14, "abi");
_Static_assert(offsetof(struct ttrace_header, ring_entries) == 0x18, "abi");
_Static_assert(offsetof(struct ttrace_header, cont_max) == 0x1c, "abi");
_Static_assert(offsetof(struct ttrace_header, tsc_hz) == 0x20, "abi");
_Static_assert(offsetof(struct ttrace_header, boot_tsc) == 0x28, "abi");
_Static_assert(offsetof(struct ttrace_header, area_size) == 0x30, "abi");
_Static_assert(offsetof(struct ttrace_header, header_bytes) == 0x38, "abi");
_Static_assert(offsetof(struct ttrace_header, reader_offset) == 0x40, "abi");
_Static_assert(offsetof(struct ttrace_header, reader_bytes) == 0x48, "abi");
_Static_assert(offsetof(struct ttrace_header, ring_offset) == 0x50, "abi");
_Static_assert(offsetof(struct ttrace_header, ring_bytes) == 0x58, "abi");
_Static_assert(offsetof(struct ttrace_header, aux_offset) == 0x60, "abi");
_Static_assert(offsetof(struct ttrace_header, aux_durable_size) == 0x68, "abi");
_Static_assert(offsetof(struct ttrace_header, aux_ring_size) == 0x70, "abi");
_Static_assert(offsetof(struct ttrace_header, aux_mask) == 0x78, "abi");
_Static_assert(offsetof(struct ttrace_header, mask) == 0x80, "abi");
_Static_assert(offsetof(struct ttrace_header, mode) == 0x88, "abi");
_Static_assert(offsetof(struct ttrace_header, tracking) == 0x8c, "abi");
_Static_assert(offsetof(struct ttrace_header, aux_durable_end) == 0x90, "abi");
_Static_assert(offsetof(struct ttrace_header, aux_first) == 0x98, "abi");
_Static_assert(offsetof(struct ttrace_header, aux_last) == 0xa0, "abi");
_Static_assert(offsetof(struct ttrace_header, aux_evicted) == 0xa8, "abi");
_Static_assert(offsetof(struct ttrace_header, echo) == 0xb0, "abi");
_Static_assert(offsetof(struct ttrace_header, stack_kinds) == 0xb8, "abi");
_Static_assert(offsetof(struct ttrace_header, profile_hz) == 0xc0, "abi");
_Static_assert(offsetof(struct ttrace_header, profile_cpus) == 0xc4, "abi");
_Static_assert(offsetof(struct ttrace_header, filter_kinds) == 0xc8, "abi");
_Static_assert(offsetof(struct ttrace_header, reserved1) == 0xd0, "abi");
_Static_assert(offsetof(struct ttrace_header, cpu) == 0x100, "abi");
_Static_assert(offsetof(struct ttrace_header, clear_log) == 0x300, "abi");
_Static_assert(sizeof(struct ttrace_header) <= TTRACE_PAGE_SIZE, "abi");

/* The reader page: one cache line a CPU, written by the streaming reader only. */
struct ttrace_reader_cpu {
	uint64_t tail;	      /* [R] the reader has consumed the entries below this index */
	uint64_t reserved[7]; /* zero */
};

struct ttrace_reader {
	struct ttrace_reader_cpu cpu[TTRACE_MAX_CPUS];
};

_Static_assert(sizeof(struct ttrace_reader_cpu) == 64, "abi");
_Static_assert(offsetof(struct ttrace_reader_cpu, tail) == 0, "abi");
_Static_assert(offsetof(struct ttrace_reader_cpu, reserved) == 8, "abi");
_Static_assert(sizeof(struct ttrace_reader) == 512, "abi");
_Static_assert(sizeof(struct ttrace_reader) <= TTRACE_PAGE_SIZE, "abi");

/*
 * Aux record tags: value, NAME (TTRACE_AUX_<NAME>), the name a listing
 * prints for one record and the name of the whole set (`trace strings
 * procs`), and what id means for each.
 */
#define TTRACE_AUX_TAGS(X)                                                                         \
	X(1, SYSCALL, syscall, syscalls) /* id: syscall number; the name (durable) */              \
	X(2, KIND, kind, kinds)		 /* id: TTRACE_KIND_*; "name category args" (durable) */   \
	X(3, PROC, proc, procs)		/* id: pid | parent pid << 32; the name, at every spawn */ \
	X(4, THREAD, thread, threads)	/* id: tid; the thread name, at every thread's start */    \
	X(5, USER_EVENT, event, events) /* id: UEVENT_AUX_ID(); its definition */                  \
	X(6, TEXT, text, text)		/* id: the writer's choice; free text */

enum {
#define TTRACE_AUX_TAG_(value, NAME, one, all) TTRACE_AUX_##NAME = value,
	TTRACE_AUX_TAGS(TTRACE_AUX_TAG_)
#undef TTRACE_AUX_TAG_
	    TTRACE_AUX_TAG_LIMIT /* one past the highest tag */
};

#define TTRACE_AUX_VALID   0x01u /* flags: a written record (zeroed memory is not one) */
#define TTRACE_AUX_LEN_MAX 1024	 /* string bytes in one record */

/* An aux record's header; len string bytes follow, zero padded to 8. */
struct ttrace_aux_record {
	uint64_t pos;	   /* its own position: what references to it hold */
	uint64_t ts;	   /* TSC when written */
	uint64_t id;	   /* see the tags */
	uint16_t tag;	   /* TTRACE_AUX_* */
	uint16_t len;	   /* string bytes, at most TTRACE_AUX_LEN_MAX */
	uint8_t cpu;	   /* the CPU that wrote it */
	uint8_t flags;	   /* TTRACE_AUX_VALID */
	uint16_t reserved; /* zero */
};

_Static_assert(sizeof(struct ttrace_aux_record) == 32, "abi");
_Static_assert(offsetof(struct ttrace_aux_record, pos) == 0, "abi");
_Static_assert(offsetof(struct ttrace_aux_record, ts) == 8, "abi");
_Static_assert(offsetof(struct ttrace_aux_record, id) == 16, "abi");
_Static_assert(offsetof(struct ttrace_aux_record, tag) == 24, "abi");
_Static_assert(offsetof(struct ttrace_aux_record, len) == 26, "abi");
_Static_assert(offsetof(struct ttrace_aux_record, cpu) == 28, "abi");
_Static_assert(offsetof(struct ttrace_aux_record, flags) == 29, "abi");
_Static_assert(offsetof(struct ttrace_aux_record, reserved) == 30, "abi");

/* Bytes a record with a string of len bytes takes. */
#define TTRACE_AUX_RECORD_SIZE(len) (sizeof(struct ttrace_aux_record) + (((len) + 7) & ~7ull))

_Static_assert(TTRACE_AUX_RECORD_SIZE(TTRACE_AUX_LEN_MAX) <= TTRACE_AUX_RING_MIN, "abi");

/*
 * Trace capabilities (abi/cap.h) and their syscalls (abi/syscalls.def).
 *
 * trace_map(slot, what, addr) maps, at addr or wherever it fits for 0:
 *   TTRACE_MAP_AREA    the whole area (header first), read-only; needs a
 *                      trace-read capability with CAP_RIGHT_READ. Writable
 *                      mappings of it are refused (-EACCES), also later.
 *   TTRACE_MAP_READER  the reader page alone, read-write; needs a
 *                      trace-control capability: the drop-mode tail decides
 *                      what the kernel drops.
 *   TTRACE_MAP_UEVENT_STATUS  the user-event status page, read-only; needs
 *                      a user-event capability (abi/uevent.h).
 * trace_control(slot, op, arg), with a trace-control capability:
 *   TTRACE_OP_ENABLE   arg: category bits to turn on
 *   TTRACE_OP_DISABLE  arg: category bits to turn off
 *   TTRACE_OP_MODE     arg: TTRACE_MODE_*
 *   TTRACE_OP_CLEAR    discards what every ring holds (counted as cleared)
 *   TTRACE_OP_TRACK    arg: a pid. Tracks that process and turns PID
 *                      tracking on: from then on a tracepoint records an
 *                      event only if the process it names (the entry's
 *                      pid) is tracked. A process starts tracked when the
 *                      one that spawned it is. Kernel threads and idle
 *                      (pid 0) are never tracked; an interrupt's events
 *                      name the process it interrupted and follow it.
 *                      Events not recorded this way are not emitted at
 *                      all: no ledger counts them. -ENOENT: no such live
 *                      process.
 *   TTRACE_OP_UNTRACK  arg: a pid. That process is no longer tracked
 *                      (tracking stays on). -ENOENT as above.
 *   TTRACE_OP_UNTRACK_ALL  no process is tracked and tracking is off:
 *                      every event is recorded again.
 * The tracked processes are those whose thread_info (abi/proc.h) has
 * THREAD_INFO_TRACKED.
 *   TTRACE_OP_ECHO     arg: the categories whose recorded events the
 *                      kernel also prints on its console as it records
 *                      them, in a dump's line format (for a boot that
 *                      never reaches traced; ttrace.echo= at boot). At
 *                      most TTRACE_ECHO_RATE lines a second: past it,
 *                      events are recorded but not echoed, counted, and
 *                      "ttrace: echo skipped N events" says how many.
 *   TTRACE_OP_STACK    arg: kind bits (bit k for kind k, user excepted):
 *                      from then on each event of those kinds carries
 *                      its call stack (CALL STACKS); 0 for none. The
 *                      header's stack_kinds says which.
 *   TTRACE_OP_STACK_ON  arg: kind bits as STACK's, added to those
 *                      that carry their stack (as ENABLE adds
 *                      categories): the kernel joins the two under its
 *                      control lock, so two controllers never lose each
 *                      other's kinds.
 *   TTRACE_OP_STACK_OFF  arg: kind bits as STACK's, taken out of them.
 *   TTRACE_OP_PROFILE  arg: TTRACE_PROFILE_ARG(hz, cpus): every CPU in
 *                      cpus takes a timer interrupt hz times a second
 *                      and records a prof_sample with its stack (while
 *                      the prof category is on: PROFILE turns it on, or
 *                      off for hz 0). hz TTRACE_PROFILE_HZ_MIN..MAX;
 *                      cpus a nonempty set of the running CPUs. The
 *                      header's profile_hz and profile_cpus say which.
 *   TTRACE_OP_QUIET    arg: a pid. That process's events are left out
 *                      from then on: those of its threads, of the
 *                      interrupts that interrupt them, and their user
 *                      events (a tracer's own activity: traced is quiet
 *                      unless asked, as trace-cmd leaves out its own
 *                      threads). A switch to or from one of its threads
 *                      is still recorded, one away from it as an event of
 *                      the thread switched to, so that no event carries
 *                      the quiet pid. As with PID tracking, events
 *                      left out are not emitted: no ledger counts them.
 *                      For the caller's own process it holds at once;
 *                      a thread of it running on another CPU follows at
 *                      its next switch. Not inherited by children; the
 *                      thread_info of its threads has THREAD_INFO_QUIET.
 *                      It costs the straight path nothing: each CPU
 *                      writes through a view of its ring that the
 *                      switch points elsewhere. -ENOENT as for TRACK.
 *   TTRACE_OP_UNQUIET  arg: a pid. Its events are recorded again.
 * It returns the mask in force afterwards, or -EINVAL for an unknown op,
 * mode or category bit, or -ECPUSTUCK, having changed nothing, when an op
 * that rewrites the tracepoints (a category on or off, the first extra on)
 * found a CPU that did not stop for it within a bound (one stuck with
 * interrupts masked). MODE (drop), TRACK, ECHO and STACK that turn the
 * first such setting on move the kernel's tracepoints off their straight
 * path (kernel/trace/tracepoint.h) before the change: one under way on
 * another CPU then either reserved its slot (W1) before the move and
 * finishes that event, or starts again on the full path, which checks the
 * settings. So once the call has returned, no straight path overwrites in
 * drop mode or records a process PID tracking leaves out. (The full path
 * reads each setting once: an event racing a change may see it or not, as
 * one racing ENABLE or DISABLE of its category.)
 *
 * trace_wake(control slot, endpoint slot, watermark) binds the wake-up
 * to the endpoint (in place of the one it was bound to) and arms it
 * (THE WAKE-UP): needs a trace-control capability with CAP_RIGHT_WRITE
 * and an endpoint capability with CAP_RIGHT_READ (a signal wakes the
 * endpoint's receiver, so only a receiver may ask for one). The
 * watermark, in entries of one CPU's ring, is 1..ring_entries - 1, and
 * is checked before the capabilities: -EINVAL otherwise. -ENOMEM
 * without a trace area (tracing could not be set up), then the slot
 * errors of abi/cap.h. Returns 0; never blocks. The kernel's reference
 * to the endpoint carries no rights: it keeps no caller of a dead
 * server from -EPIPE.
 *
 * trace_filter(control slot, kind, insns, n) sets or removes a kind's
 * filter: abi/trace_pred.h.
 */
#define TTRACE_MAP_AREA		 0
#define TTRACE_MAP_READER	 1
#define TTRACE_MAP_UEVENT_STATUS 2 /* with a user-event capability: abi/uevent.h */

#define TTRACE_OP_ENABLE      0
#define TTRACE_OP_DISABLE     1
#define TTRACE_OP_MODE	      2
#define TTRACE_OP_CLEAR	      3
#define TTRACE_OP_TRACK	      4
#define TTRACE_OP_UNTRACK     5
#define TTRACE_OP_UNTRACK_ALL 6
#define TTRACE_OP_ECHO	      7
#define TTRACE_OP_STACK	      8
#define TTRACE_OP_PROFILE     9
#define TTRACE_OP_STACK_ON    10
#define TTRACE_OP_STACK_OFF   11
#define TTRACE_OP_QUIET	      12
#define TTRACE_OP_UNQUIET     13

#define TTRACE_PROFILE_HZ_DEFAULT    997 /* prime: not in step with the 100 Hz tick's work */
#define TTRACE_PROFILE_HZ_MIN	     100 /* the scheduler's tick: the timer never runs slower */
#define TTRACE_PROFILE_HZ_MAX	     10000
#define TTRACE_PROFILE_ARG(hz, cpus) ((uint64_t)(hz) | (uint64_t)(cpus) << 32)
#define TTRACE_PROFILE_HZ(arg)	     ((uint32_t)(arg))
#define TTRACE_PROFILE_CPUS(arg)     ((uint32_t)((arg) >> 32))

#define TTRACE_ECHO_RATE 50 /* lines a second: the 115200-baud console prints about 100 */

/*
 * trace_test(n) emits n test_tick events, seq 0..n-1, in a row on the
 * caller's CPU: a workload whose count tests know exactly. Each is emitted
 * only while the test category is enabled; the result says how many were.
 * n above TTRACE_TEST_MAX gives -EINVAL (the kernel is not preemptible).
 */
#define TTRACE_TEST_MAX 65536

#endif
