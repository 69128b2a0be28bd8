/*
 * tracebulk [ROUNDS]: what BULK (abi/traced.h) does with frames it must
 * refuse, and with one a client takes away while traced fills it. Each
 * round sends BULK without a capability, with an empty slot, with a
 * capability of another kind, with frame copies lacking the read or the
 * write right, with a frame above TRACED_BULK_MAX bytes, and asking for
 * text; each must get its documented error and leave the frame as it was
 * (all zero) and tracing's ledger as it was. ROUNDS (default 20) rounds
 * pass more capabilities than a capability table holds, so traced keeping
 * any would show. Then a second thread unmaps and deletes its frames
 * while the main thread sends them in BULK requests, and traced must
 * still answer a whole bulk dump. Prints
 *   tracebulk: ok (N checks)
 * or each check that failed (exit 1). Run with -r: a dump reads everyone.
 */
#include <errno.h>
#include <spoor.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <trace_client.h>

#define DEFAULT_ROUNDS 20
#define SMALL	       4096	       /* a frame BULK takes: one page */
#define RACES	       50	       /* frames taken away while traced may be filling them */
#define EMPTY_SLOT     (CAP_SLOTS - 1) /* never filled: slots are handed out lowest first */

static int checks, failures;

static void expect(const char *what, long got, long want)
{
	checks++;
	if (got != want) {
		printf("tracebulk: FAIL %s: got %ld (%s), want %ld (%s)\n", what, got,
		       strerror((int)-got), want, strerror((int)-want));
		failures++;
	}
}

/* BULK of a whole new dump with the capability in slot (IPC_NO_CAP: none) keeping rights. */
static long bulk(uint32_t slot, uint32_t rights, uint32_t format)
{
	static struct traced_dump_request r;
	static uint8_t reply[TRACED_REPLY_MAX];
	struct ipc_regs m = {.info = IPC_INFO(TRACED_OP_BULK, 2)};
	struct ipc_extra x = {.timeout_ns = TRACED_TIMEOUT_NS,
			      .send_buf = (uint64_t)(uintptr_t)&r,
			      .send_len = sizeof(r),
			      .send_cap = slot,
			      .send_cap_rights = rights,
			      .recv_buf = (uint64_t)(uintptr_t)reply,
			      .recv_max = sizeof(reply)};
	static long ep = -1;

	memset(&r, 0, sizeof(r));
	r.format = format;
	ep = ep < 0 ? lookup(TRACED_NAME) : ep;
	if (ep < 0) {
		return ep;
	}
	m.words[0] = TRACED_PROTOCOL;
	long err = sys_ipc_call((int)ep, &m, &x);
	if (err) {
		return err; /* x's [out] fields are unwritten: recv_cap is still 0, the console */
	}
	if (x.recv_cap != IPC_NO_CAP) {
		sys_cap_delete((int)x.recv_cap);
	}
	return (long)(int64_t)m.words[0];
}

static bool all_zero(const uint8_t *p, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (p[i]) {
			return false;
		}
	}
	return true;
}

/* One round of refused requests; frame is mapped at window, SMALL bytes. */
static void refusals(uint32_t frame, const uint8_t *window, uint32_t big, uint32_t endpoint)
{
	const uint32_t rw = CAP_RIGHT_READ | CAP_RIGHT_WRITE;

	expect("no capability", bulk(IPC_NO_CAP, 0, TRACED_FORMAT_BINARY), -EINVAL);
	expect("an empty slot", bulk(EMPTY_SLOT, rw, TRACED_FORMAT_BINARY), -EBADF);
	expect("an endpoint", bulk(endpoint, CAP_RIGHT_WRITE, TRACED_FORMAT_BINARY), -EINVAL);
	expect("a frame without the write right", bulk(frame, CAP_RIGHT_READ, TRACED_FORMAT_BINARY),
	       -EACCES);
	expect("a frame without the read right", bulk(frame, CAP_RIGHT_WRITE, TRACED_FORMAT_BINARY),
	       -EACCES);
	expect("a frame above TRACED_BULK_MAX", bulk(big, rw, TRACED_FORMAT_BINARY), -EINVAL);
	expect("text", bulk(frame, rw, TRACED_FORMAT_TEXT), -EINVAL);
	expect("the frame untouched", all_zero(window, SMALL), 1);
}

/*
 * The frame the main thread races with: its window is written before the
 * slot is published (release). The taker reads both (acquire) before it
 * gives the slot back (-1), since the main thread then maps the next frame.
 */
static volatile uint8_t *racing_window;
static long racing_frame = -1;
static bool racing_done;

/* Takes each frame the main thread publishes away: unmapped and deleted, maybe mid-call. */
static int taker(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&racing_done, __ATOMIC_ACQUIRE)) {
		long slot = __atomic_load_n(&racing_frame, __ATOMIC_ACQUIRE);
		if (slot >= 0) {
			void *window = (void *)racing_window;
			__atomic_store_n(&racing_frame, -1, __ATOMIC_RELEASE);
			sys_mem_unmap(window, TRACED_BULK_MAX);
			sys_cap_delete((int)slot);
		}
		sys_yield();
	}
	return 0;
}

static void races(void)
{
	int tid = thread_spawn(taker, NULL, 0);

	expect("start the taker", tid >= 0, 1);
	for (int i = 0; i < RACES && tid >= 0; i++) {
		long slot = sys_frame_create(TRACED_BULK_MAX);
		long window = slot < 0 ? slot : sys_mem_map_frame((int)slot, NULL, PROT_READ);
		if (window < 0) {
			expect("a frame to race with", window, 0);
			break;
		}
		racing_window = (volatile uint8_t *)window;
		__atomic_store_n(&racing_frame, slot, __ATOMIC_RELEASE);
		/* Sent or taken first: either answer is fine, as long as traced answers. */
		long err =
		    bulk((uint32_t)slot, CAP_RIGHT_READ | CAP_RIGHT_WRITE, TRACED_FORMAT_BINARY);
		expect("BULK of a frame taken away answers", err == 0 || err == -EBADF, 1);
		while (__atomic_load_n(&racing_frame, __ATOMIC_ACQUIRE) >= 0) {
			sys_yield();
		}
	}
	__atomic_store_n(&racing_done, true, __ATOMIC_RELEASE);
	if (tid >= 0) {
		expect("the taker ends", thread_join(tid, NULL), 0);
	}
}

/* A whole bulk dump still comes: traced lives, and its capability table has room. */
static void whole_dump(void)
{
	static struct traced_pager pager;
	struct traced_filter all = {0};
	const uint8_t *data;
	size_t len;
	uint32_t flags = 0;
	long err = traced_pager_bulk(&pager, &all, SMALL);

	for (int page = 0; !err && !(flags & TRACED_DUMP_DONE); page++) {
		err = traced_pager_next(&pager, &data, &len, &flags);
	}
	traced_pager_close(&pager);
	expect("a whole bulk dump afterwards", err, 0);
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : DEFAULT_ROUNDS;
	struct traced_status before, after;
	long frame = sys_frame_create(SMALL);
	long big = sys_frame_create(2 * TRACED_BULK_MAX);
	long endpoint = sys_endpoint_create();
	long window = frame < 0 ? frame : sys_mem_map_frame((int)frame, NULL, PROT_READ);

	if (frame < 0 || big < 0 || endpoint < 0 || window < 0) {
		printf("tracebulk: cannot set up: %ld %ld %ld %ld\n", frame, big, endpoint, window);
		return 1;
	}
	expect("status before", traced_call_status(&before), 0);
	for (int i = 0; i < rounds; i++) {
		refusals((uint32_t)frame, (const uint8_t *)window, (uint32_t)big,
			 (uint32_t)endpoint);
	}
	expect("status after", traced_call_status(&after), 0);
	expect("the ledger as it was", !memcmp(before.cpu, after.cpu, sizeof(before.cpu)), 1);
	races();
	whole_dump();
	if (failures) {
		printf("tracebulk: %d of %d checks failed\n", failures, checks);
		return 1;
	}
	printf("tracebulk: ok (%d checks)\n", checks);
	return 0;
}
