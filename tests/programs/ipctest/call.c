/*
 * call: the basic exchange, against the in-process echo server
 * (echo_thread.c).
 *
 * `call [SEED [BADGE]]` checks what a message carries — label, words, a
 * badge, buffers of 0, 1 and 4096 bytes — and the limits: a 4097-byte
 * buffer, a reply or call bigger than the other side's room (-E2BIG),
 * malformed message info (-EINVAL), and slots that are empty, of the wrong
 * kind or lacking the right. The words and buffers are made from SEED and
 * the badged capability carries BADGE, and it prints what came back (the
 * badged call's reply words, the last 4096-byte buffer's FNV-1a), so that
 * whoever chose them can check the answers without trusting these checks.
 * `efault` hands bad addresses to both sides and checks that each gets
 * -EFAULT and that the server then serves the next call as usual; it
 * observes (observe()) every result that must be -EFAULT, the caller's
 * 13, the server's 3 (as it reports them), then recv's and reply's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fnv.h"
#include "echo_thread.h"
#include "ipctest.h"

#define EMPTY_SLOT    (CAP_SLOTS - 1)
#define TEST_SEED     0x9e3779b97f4a7c15ull /* without SEED: word i is (i + 1) times it */
#define TEST_BADGE    0xb0d9e
#define KERNEL_ADDR   0xffffffff80000000ull
#define UNMAPPED_ADDR USER_MAP_END /* above every mapping, below the stack */
#define TRANSFER_MAX  (IPC_BUF_MAX + 1)
#define RESERVED_BIT  (IPC_INFO_RESERVED & -IPC_INFO_RESERVED) /* the lowest one */

static uint8_t send_buf[TRANSFER_MAX];
static uint8_t recv_buf[TRANSFER_MAX];

/* One echoed call with a buffer of len bytes and room for recv_max; returns the result. */
static long call_buf(int slot, uint32_t len, uint32_t recv_max, struct ipc_extra *x)
{
	struct ipc_regs m = {.info = IPC_INFO(ECHO_PLAIN, 0)};

	*x = extra_with(PROMPT_NS);
	x->send_buf = (uint64_t)(uintptr_t)send_buf;
	x->send_len = len;
	x->recv_buf = (uint64_t)(uintptr_t)recv_buf;
	x->recv_max = recv_max;
	return sys_ipc_call(slot, &m, x);
}

/*
 * A call with words seed * (i + 1), one reply checked word by word. With
 * report, the reply's words are printed too, for the host to hold against
 * the seed and badge it asked for.
 */
static void check_registers(int slot, uint64_t seed, uint64_t badge, bool report)
{
	struct ipc_regs m = {.info = IPC_INFO(ECHO_PLAIN, IPC_WORDS)};
	char what[64];

	for (unsigned i = 0; i < IPC_WORDS; i++) {
		m.words[i] = seed * (i + 1);
	}
	struct ipc_regs sent = m;
	if (!check("register-only call", sys_ipc_call(slot, &m, NULL), 0)) {
		return;
	}
	check("reply label", IPC_INFO_LABEL(m.info), ECHO_PLAIN + 1);
	check("reply word count", IPC_INFO_WORDS(m.info), IPC_WORDS);
	for (unsigned i = 0; i < IPC_WORDS - 1; i++) {
		snprintf(what, sizeof(what), "word %u came back", i);
		check(what, (long)m.words[i], (long)sent.words[i]);
	}
	check("word 7: the badge the server saw", (long)m.words[7], (long)badge);
	if (report) {
		printf("ipctest call: reply words");
		for (unsigned i = 0; i < IPC_WORDS; i++) {
			printf(" 0x%llx", (unsigned long long)m.words[i]);
		}
		printf("\n");
	}
}

static void check_word_count(int slot)
{
	struct ipc_regs m = {.info = IPC_INFO(ECHO_PLAIN, 2)};

	for (unsigned i = 0; i < IPC_WORDS; i++) {
		m.words[i] = 0xdead0000u + i;
	}
	if (!check("call with 2 of 8 words", sys_ipc_call(slot, &m, NULL), 0)) {
		return;
	}
	check("word 1 arrived", (long)m.words[1], 0xdead0001l);
	for (unsigned i = 2; i < IPC_WORDS - 1; i++) {
		check("a word past the count reached the server as 0", (long)m.words[i], 0);
	}
	m = (struct ipc_regs){.info = IPC_INFO(ECHO_PLAIN, 0)};
	check("call with no words", sys_ipc_call(slot, &m, NULL), 0);
	check("reply label to a call with no words", IPC_INFO_LABEL(m.info), ECHO_PLAIN + 1);
}

/*
 * A call with a buffer of len bytes of the pattern seed + len, echoed back
 * reversed. With report, the FNV-1a of the bytes that came back is printed
 * too, for the host to hold against the pattern it asked for.
 */
static void check_buffer(int slot, uint64_t seed, uint32_t len, bool report)
{
	struct ipc_extra x;
	char what[64];

	for (uint32_t i = 0; i < len; i++) {
		send_buf[i] = pattern_byte(seed + len, i);
	}
	memset(recv_buf, 0, sizeof(recv_buf));
	snprintf(what, sizeof(what), "call with a %u-byte buffer", len);
	if (!check(what, call_buf(slot, len, IPC_BUF_MAX, &x), 0)) {
		return;
	}
	snprintf(what, sizeof(what), "bytes received back for %u sent", len);
	check(what, x.recv_len, len);
	check_no_cap("no capability came back", x.recv_cap);
	for (uint32_t i = 0; i < len && i < x.recv_len; i++) {
		if (!check_true("the buffer came back reversed",
				recv_buf[i] == send_buf[len - 1 - i],
				"%u bytes, byte %u is %#x, want %#x", len, i, recv_buf[i],
				send_buf[len - 1 - i])) {
			break;
		}
	}
	if (report) {
		printf("ipctest call: %u bytes back, fnv1a 0x%llx\n", x.recv_len,
		       (unsigned long long)ttrace_fnv1a(TTRACE_FNV_OFFSET, recv_buf, x.recv_len));
	}
}

static void check_sizes(int slot)
{
	struct ipc_extra x;
	struct ipc_regs m;

	check("call with a 4097-byte buffer", call_buf(slot, TRANSFER_MAX, 0, &x), -E2BIG);
	check("call with room for 4097 bytes", call_buf(slot, 0, TRANSFER_MAX, &x), -E2BIG);

	m = (struct ipc_regs){.info = IPC_INFO(ECHO_REPLY_SIZE, 1), .words = {100}};
	x = extra_with(PROMPT_NS);
	x.recv_buf = (uint64_t)(uintptr_t)recv_buf;
	x.recv_max = 99;
	check("a 100-byte reply to a caller with room for 99", sys_ipc_call(slot, &m, &x), -E2BIG);
	m = (struct ipc_regs){.info = IPC_INFO(ECHO_REPLY_SIZE, 1), .words = {IPC_BUF_MAX}};
	x.recv_max = 0;
	x.recv_buf = 0;
	check("a 4096-byte reply to a caller with no room", sys_ipc_call(slot, &m, &x), -E2BIG);
	m = (struct ipc_regs){.info = IPC_INFO(ECHO_REPLY_SIZE, 1), .words = {100}};
	check("a 100-byte reply to a register-only call", sys_ipc_call(slot, &m, NULL), -E2BIG);
	m = (struct ipc_regs){.info = IPC_INFO(ECHO_REPLY_SIZE, 1), .words = {100}};
	x.recv_buf = (uint64_t)(uintptr_t)recv_buf;
	x.recv_max = 100;
	check("a 100-byte reply to a caller with room for 100", sys_ipc_call(slot, &m, &x), 0);
	check("bytes of the 100-byte reply", x.recv_len, 100);

	m = (struct ipc_regs){.info = IPC_INFO(ECHO_SMALL_RECV, 1), .words = {16}};
	check("asking the server to receive at most 16 bytes", sys_ipc_call(slot, &m, NULL), 0);
	check("a 17-byte call to a server with room for 16", call_buf(slot, 17, 64, &x), -E2BIG);
	check("a 16-byte call to a server with room for 16", call_buf(slot, 16, 64, &x), 0);
	check("bytes back from the 16-byte call", x.recv_len, 16);
}

static void check_bad_requests(int slot)
{
	struct ipc_regs m = {.info = IPC_INFO(ECHO_PLAIN, 0) | RESERVED_BIT};
	long read_only = sys_cap_copy(slot, CAP_RIGHT_READ);
	long write_only = sys_cap_copy(slot, CAP_RIGHT_WRITE);

	check("call with reserved info bits set", sys_ipc_call(slot, &m, NULL), -EINVAL);
	m = (struct ipc_regs){.info = IPC_INFO(ECHO_PLAIN, IPC_WORDS + 1)};
	check("call with 9 words", sys_ipc_call(slot, &m, NULL), -EINVAL);
	m = (struct ipc_regs){.info = IPC_INFO(ECHO_PLAIN, 0)};
	check("call through the console", sys_ipc_call(CAP_SLOT_CONSOLE, &m, NULL), -ECAPKIND);
	check("call through an empty slot", sys_ipc_call(EMPTY_SLOT, &m, NULL), -EBADF);
	check("call through slot CAP_SLOTS", sys_ipc_call(CAP_SLOTS, &m, NULL), -EBADF);
	check("call through a receive-only copy", sys_ipc_call((int)read_only, &m, NULL), -EACCES);
	struct ipc_extra x = extra_with(0);
	check("recv through a call-only copy", sys_ipc_recv((int)write_only, &m, &x), -EACCES);
	m = (struct ipc_regs){.info = IPC_INFO(ECHO_PLAIN, 0)};
	check("reply with nobody to reply to (dropped)", sys_ipc_reply(&m, NULL), 0);
	check("mint with badge 0", sys_endpoint_mint(slot, 0, CAP_RIGHTS_ALL), -EINVAL);
	sys_cap_delete((int)read_only);
	sys_cap_delete((int)write_only);
}

int test_call(int argc, char **argv)
{
	struct echo_thread server;
	uint64_t seed = argc > 0 ? strtoull(argv[0], NULL, 0) : TEST_SEED;
	uint64_t badge = argc > 1 ? strtoull(argv[1], NULL, 0) : TEST_BADGE;
	long ep = sys_endpoint_create();

	if (ep < 0) {
		fatal("endpoint_create", ep);
	}
	long badged = sys_endpoint_mint((int)ep, badge, CALL_RIGHTS);
	if (badged < 0) {
		fatal("endpoint_mint", badged);
	}
	check("mint from a badged capability", sys_endpoint_mint((int)badged, 1, CALL_RIGHTS),
	      -EINVAL);
	long err = echo_thread_start(&server, (int)ep);
	if (err) {
		fatal("thread_spawn of the server", err);
	}
	check_registers((int)ep, seed, 0, false);
	check_registers((int)badged, seed, badge, true);
	check_word_count((int)ep);
	check_buffer((int)ep, seed, 0, false);
	check_buffer((int)ep, seed, 1, false);
	check_buffer((int)ep, seed, IPC_BUF_MAX, false);
	check_sizes((int)ep);
	check_bad_requests((int)ep);
	/* After every refusal the server still answers. */
	check_buffer((int)ep, seed, IPC_BUF_MAX, true);
	check("the server thread's end", echo_thread_stop(&server), 0);
	finish();
}

/*
 * Two pages: the first readable and writable, the second inaccessible
 * (PROT_NONE), so a buffer can end in memory it may not touch. A page
 * left unmapped instead could be handed out again by the next mapping.
 */
static uint8_t *page_before_guard(void)
{
	long addr = sys_mem_map_anon(NULL, 2 * PAGE_SIZE_USER, PROT_READ | PROT_WRITE);
	long err =
	    addr < 0 ? addr
		     : sys_mem_protect((void *)(addr + PAGE_SIZE_USER), PAGE_SIZE_USER, PROT_NONE);

	if (err) {
		fatal("mem_map_anon and mem_protect of a guard page", err);
	}
	memset((uint8_t *)addr, 'p', PAGE_SIZE_USER);
	return (uint8_t *)addr;
}

/* A good call still gets its echo: the last failure broke nothing. */
static void still_serves(int slot, const char *after)
{
	struct ipc_extra x;
	char what[96];

	snprintf(what, sizeof(what), "a good call after %s", after);
	memcpy(send_buf, "abc", 3);
	if (check(what, call_buf(slot, 3, 16, &x), 0)) {
		check_true(what, x.recv_len == 3 && !memcmp(recv_buf, "cba", 3),
			   "got %u bytes '%.3s', want 'cba'", x.recv_len, (const char *)recv_buf);
	}
}

static void check_caller_side(int slot, uint8_t *page)
{
	const uint64_t guard = (uint64_t)(uintptr_t)(page + PAGE_SIZE_USER);
	const uint64_t good = (uint64_t)(uintptr_t)send_buf;
	struct ipc_regs m;
	struct ipc_extra x;
	const struct {
		const char *what;
		uint64_t send, recv;
		uint32_t len;
	} bad[] = {
	    {"call sending from NULL", 0, 0, 16},
	    {"call sending from a kernel address", KERNEL_ADDR, 0, 16},
	    {"call sending from unmapped memory", UNMAPPED_ADDR, 0, 16},
	    {"call sending from an inaccessible page", guard, 0, 16},
	    {"call sending across into an inaccessible page", guard - 8, 0, 16},
	    {"call receiving into a kernel address", good, KERNEL_ADDR, 16},
	    {"call receiving into unmapped memory", good, UNMAPPED_ADDR, 16},
	    {"call receiving into an inaccessible page", good, guard, 16},
	    {"call receiving across into an inaccessible page", good, guard - 8, 16},
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		m = (struct ipc_regs){.info = IPC_INFO(ECHO_PLAIN, 0)};
		x = extra_with(PROMPT_NS);
		x.send_buf = bad[i].send;
		x.send_len = bad[i].len;
		x.recv_buf = bad[i].recv;
		x.recv_max = IPC_BUF_MAX;
		check(bad[i].what, observe(sys_ipc_call(slot, &m, &x)), -EFAULT);
		still_serves(slot, bad[i].what);
	}
	m = (struct ipc_regs){.info = IPC_INFO(ECHO_PLAIN, 0)};
	check("call with its ipc_extra at a kernel address",
	      observe(sys_ipc_call(slot, &m, (struct ipc_extra *)KERNEL_ADDR)), -EFAULT);
	check("call with its ipc_extra in unmapped memory",
	      observe(sys_ipc_call(slot, &m, (struct ipc_extra *)UNMAPPED_ADDR)), -EFAULT);
	check("call with its ipc_extra in an inaccessible page",
	      observe(sys_ipc_call(slot, &m, (struct ipc_extra *)guard)), -EFAULT);
	/* The reply arrives but recv_len cannot be written back. */
	struct ipc_extra *ro = (struct ipc_extra *)page;
	*ro = extra_with(PROMPT_NS);
	long err = sys_mem_protect(page, PAGE_SIZE_USER, PROT_READ);
	if (err) {
		fatal("mem_protect", err);
	}
	check("call with its ipc_extra in read-only memory", observe(sys_ipc_call(slot, &m, ro)),
	      -EFAULT);
	still_serves(slot, "an ipc_extra in read-only memory");
	sys_mem_protect(page, PAGE_SIZE_USER, PROT_READ | PROT_WRITE);
}

static void check_server_side(int slot)
{
	struct ipc_regs m = {.info = IPC_INFO(ECHO_BAD_REPLY, 1), .words = {UNMAPPED_ADDR}};
	struct ipc_extra x = extra_with(PROMPT_NS);

	x.recv_buf = (uint64_t)(uintptr_t)recv_buf;
	x.recv_max = 16;
	check("a call whose server first replies from unmapped memory", sys_ipc_call(slot, &m, &x),
	      0);
	check("its reply, sent again from good memory", IPC_INFO_LABEL(m.info), ECHO_BAD_REPLY + 1);

	m = (struct ipc_regs){.info = IPC_INFO(ECHO_BAD_RECV, 1), .words = {UNMAPPED_ADDR}};
	check("asking the server to receive into unmapped memory", sys_ipc_call(slot, &m, NULL), 0);
	memcpy(send_buf, "0123456789abcdef", 16);
	m = (struct ipc_regs){.info = IPC_INFO(ECHO_PLAIN, 0)};
	x = extra_with(PROMPT_NS);
	x.send_buf = (uint64_t)(uintptr_t)send_buf;
	x.send_len = 16;
	long err = sys_ipc_call(slot, &m, &x);
	/* The server lost the message; its caller must hear back, one way or the other. */
	check_true("a call the server could not store: the caller is not left waiting",
		   err != -ETIMEDOUT && (err || IPC_INFO_LABEL(m.info) == ECHO_RECV_FAILED),
		   "call returned %ld, reply label %#x", err, IPC_INFO_LABEL(m.info));

	m = (struct ipc_regs){.info = IPC_INFO(ECHO_REPORT, 0)};
	if (check("asking the server what it saw", sys_ipc_call(slot, &m, NULL), 0)) {
		check("server: recv into unmapped memory", observe((long)m.words[0]), -EFAULT);
		check("server: reply from unmapped memory", observe((long)m.words[1]), -EFAULT);
		check("server: reply_recv from unmapped memory", observe((long)m.words[2]),
		      -EFAULT);
	}
	still_serves(slot, "the server's own bad buffers");
}

/* Bad pointers to the ipc_extra itself, on the receiving side: refused before anything happens. */
static void check_bad_extra(int slot)
{
	struct ipc_regs m = {0};

	check("recv with its ipc_extra at a kernel address",
	      observe(sys_ipc_recv(slot, &m, (struct ipc_extra *)KERNEL_ADDR)), -EFAULT);
	m = (struct ipc_regs){.info = IPC_INFO(ECHO_PLAIN, 0)};
	check("reply with its ipc_extra at a kernel address",
	      observe(sys_ipc_reply(&m, (struct ipc_extra *)KERNEL_ADDR)), -EFAULT);
}

int test_efault(int argc, char **argv)
{
	struct echo_thread server;
	long ep = sys_endpoint_create();

	(void)argc;
	(void)argv;
	if (ep < 0) {
		fatal("endpoint_create", ep);
	}
	uint8_t *page = page_before_guard();
	long err = echo_thread_start(&server, (int)ep);
	if (err) {
		fatal("thread_spawn of the server", err);
	}
	check_caller_side((int)ep, page);
	check_server_side((int)ep);
	check_bad_extra((int)ep);
	still_serves((int)ep, "everything");
	check("the server thread's end", echo_thread_stop(&server), 0);
	finish();
}
