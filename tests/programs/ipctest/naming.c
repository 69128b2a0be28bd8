/*
 * naming: init's name service and the echo server it names.
 *
 * lookup("echo") must give a capability that can call echo but not
 * receive on its endpoint, and a call through it must come back as echo
 * answers (label + 1, the words, the buffer reversed, word 7 = our badge:
 * init badges every copy it hands out with the asker's level, self for
 * a program run plainly). A frame sent to echo comes back with no
 * more rights than it was sent with. Unknown, empty, overlong and
 * malformed requests get -ENOENT or -EINVAL. The shell test runs this
 * again after killing echo, to see that the restarted server answers.
 *
 * `naming [TEXT]` sends TEXT (at most TEXT_MAX bytes; "hello, echo"
 * without it) in the buffer of its first call to echo and prints what
 * came back and the badge echo saw, so that whoever chose the text can
 * check the answer without trusting these checks.
 */
#include <stdio.h>
#include <string.h>

#include "abi/naming.h"
#include "abi/traced.h"
#include "ipctest.h"

#define FRAME_SEED 0xec40
#define RO_RIGHTS  (CAP_RIGHT_READ | CAP_RIGHT_GRANT)
#define TEXT_MAX   64

/* A call to echo with text in its buffer; with report, what came back is printed. */
static void check_echo_call(int echo, const char *text, bool report)
{
	size_t len = strlen(text);
	char back[TEXT_MAX + 1] = {0};
	char want[TEXT_MAX + 1] = {0};
	struct ipc_regs m = {.info = IPC_INFO(5, 7), .words = {1, 2, 3, 4, 5, 6, 7}};
	struct ipc_extra x = extra_with(PROMPT_NS);

	for (size_t i = 0; i < len; i++) {
		want[i] = text[len - 1 - i];
	}
	x.send_buf = (uint64_t)(uintptr_t)text;
	x.send_len = (uint32_t)len;
	x.recv_buf = (uint64_t)(uintptr_t)back;
	x.recv_max = TEXT_MAX;
	if (!check("a call to echo with a buffer", sys_ipc_call(echo, &m, &x), 0)) {
		return;
	}
	check("echo's reply label", IPC_INFO_LABEL(m.info), 6);
	for (unsigned i = 0; i < 7; i++) {
		check("a word echo sent back", (long)m.words[i], (long)i + 1);
	}
	check("word 7: our badge as echo saw it", (long)m.words[7], TRACED_LEVEL_SELF);
	check("bytes echo sent back", x.recv_len, (long)len);
	check_true("echo reversed the buffer", !strcmp(back, want), "got '%s'", back);
	if (report) {
		printf("ipctest naming: echo sent back '%s', badge %llu\n", back,
		       (unsigned long long)m.words[7]);
	}

	m = (struct ipc_regs){.info = IPC_INFO(9, 1), .words = {99}};
	if (check("a register-only call to echo", sys_ipc_call(echo, &m, NULL), 0)) {
		check("its reply label", IPC_INFO_LABEL(m.info), 10);
		check("its word", (long)m.words[0], 99);
	}
}

/* A frame sent read-only through echo comes back read-only, though echo passes every right. */
static void check_echo_frame(int echo)
{
	uint8_t byte = pattern_byte(FRAME_SEED, 0);
	struct cap_info info;
	struct ipc_regs m = {.info = IPC_INFO(7, 0)};
	struct ipc_extra x = extra_with(PROMPT_NS);
	long frame = sys_frame_create(PAGE_SIZE_USER);

	if (frame < 0 || sys_frame_write((int)frame, 0, &byte, 1)) {
		fatal("frame_create or frame_write", frame);
	}
	x.send_cap = (uint32_t)frame;
	x.send_cap_rights = RO_RIGHTS;
	if (!check("a call to echo with a frame", sys_ipc_call(echo, &m, &x), 0)) {
		return;
	}
	if (!check_true("echo returned the frame", x.recv_cap != IPC_NO_CAP, "no capability")) {
		return;
	}
	check("identify the returned frame", sys_cap_identify((int)x.recv_cap, &info), 0);
	check("kind of the returned capability", info.kind, CAP_KIND_FRAME);
	check("rights of the returned frame", info.rights, RO_RIGHTS);
	byte = 0;
	check("frame_read of the returned frame", sys_frame_read((int)x.recv_cap, 0, &byte, 1), 0);
	check("it is our frame", byte, pattern_byte(FRAME_SEED, 0));
	sys_cap_delete((int)x.recv_cap);
	sys_cap_delete((int)frame);
}

static void check_bad_lookups(void)
{
	static const char name[] = "echo";
	struct ipc_regs m = {.info = IPC_INFO(NAMING_LOOKUP + 100, 0)};
	struct ipc_extra x = extra_with(PROMPT_NS);

	check("lookup of an unknown name", lookup("no-such-server"), -ENOENT);
	check("lookup of a prefix of a name", lookup("ech"), -ENOENT);
	check("lookup of an empty name", lookup(""), -EINVAL);
	check("lookup of a name longer than NAMING_NAME_MAX",
	      lookup("a-name-that-is-longer-than-31-bytes"), -EINVAL);
	x.send_buf = (uint64_t)(uintptr_t)name;
	x.send_len = sizeof(name) - 1;
	if (check("a call to the name service with an unknown label",
		  sys_ipc_call(CAP_SLOT_NAMESERVER, &m, &x), 0)) {
		check("its answer", (long)m.words[0], -EINVAL);
		check_no_cap("no capability with it", x.recv_cap);
	}
}

int test_naming(int argc, char **argv)
{
	struct cap_info info;
	struct ipc_regs m = {0};
	struct ipc_extra x = extra_with(0);
	const char *text = argc > 0 ? argv[0] : "hello, echo";

	if (strlen(text) > TEXT_MAX) {
		fatal("TEXT longer than TEXT_MAX bytes", -EINVAL);
	}
	long echo = lookup("echo");
	if (echo < 0) {
		fatal("lookup(\"echo\")", echo);
	}
	check("identify echo's capability", sys_cap_identify((int)echo, &info), 0);
	check("kind of echo's capability", info.kind, CAP_KIND_ENDPOINT);
	check("rights of echo's capability: call and grant", info.rights,
	      CAP_RIGHT_WRITE | CAP_RIGHT_GRANT);
	check("its badge: our level", (long)info.size, TRACED_LEVEL_SELF);
	check("recv on echo's endpoint through a client's capability",
	      sys_ipc_recv((int)echo, &m, &x), -EACCES);
	check_echo_call((int)echo, text, true);
	check_echo_frame((int)echo);
	long again = lookup("echo");
	if (check_true("a second lookup", again >= 0 && again != echo, "got %ld", again)) {
		check_echo_call((int)again, text, false);
		sys_cap_delete((int)again);
	}
	sys_cap_delete((int)echo);
	check_bad_lookups();
	finish();
}
