/*
 * uevdemo: a program with user-defined trace events (abi/uevent.h). It
 * registers two events with traced,
 *   uevdemo_tick u32 seq;char[16] tag
 *   uevdemo_msg u64 value;__data_loc char[] text
 * and then:
 *   uevdemo N [CPU]  runs N rounds (on CPU if given); each writes each
 *                    event only if its status byte says someone listens,
 *                    and prints how many write syscalls it made:
 *                    uevdemo: 100 rounds, 200 writes (tick 100, msg 100), 0 refused
 *   uevdemo bad      makes writes the kernel must refuse, each with its
 *                    error (with tracing off, only the ones it refuses
 *                    before it looks at the payload), and prints how many
 *                    the events counted:
 *                    uevdemo: 8 bad writes refused, 5 counted as rejected
 *   uevdemo big      writes one event of a third kind with a payload of
 *                    184 bytes, which takes continuation entries:
 *                    uevdemo_big u32 n;char[180] text
 *   uevdemo watch    prints the tick event's status byte each time it
 *                    changes, without a syscall to look, until it has
 *                    been on and off again (or 60 s pass)
 */
#include <spoor.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <trace_client.h>

#define TICK_DESC      "uevdemo_tick u32 seq;char[16] tag"
#define MSG_DESC       "uevdemo_msg u64 value;__data_loc char[] text"
#define BIG_DESC       "uevdemo_big u32 n;char[180] text"
#define BIG_TEXT       180
#define WATCH_POLL_NS  10000000ull
#define WATCH_LIMIT_NS 60000000000ull
#define EMPTY_SLOT     (CAP_SLOTS - 1)

struct __attribute__((packed)) tick {
	uint32_t seq;
	char tag[16];
};

struct __attribute__((packed)) msg {
	uint64_t value;
	uint32_t text; /* UEVENT_LOC_MAKE(size, offset from the payload's start) */
	char data[24];
};

static struct trace_uevent tick_ev, msg_ev;

static void make_msg(struct msg *m, uint64_t value, const char *text)
{
	size_t n = strlen(text) + 1;

	m->value = value;
	m->text = UEVENT_LOC_MAKE(n, offsetof(struct msg, data));
	memcpy(m->data, text, n);
}

static int rounds(unsigned long n)
{
	unsigned long ticks = 0, msgs = 0, refused = 0;

	for (unsigned long i = 0; i < n; i++) {
		if (trace_uevent_enabled(&tick_ev)) {
			struct tick t = {.seq = (uint32_t)i};
			snprintf(t.tag, sizeof(t.tag), "round %lu", i);
			refused += trace_uevent_write(&tick_ev, &t, sizeof(t)) != 0;
			ticks++;
		}
		if (trace_uevent_enabled(&msg_ev)) {
			struct msg m;
			make_msg(&m, i * i, i % 2 ? "odd" : "even");
			refused +=
			    trace_uevent_write(
				&msg_ev, &m, offsetof(struct msg, data) + strlen(m.data) + 1) != 0;
			msgs++;
		}
	}
	printf("uevdemo: %lu rounds, %lu writes (tick %lu, msg %lu), %lu refused\n", n,
	       ticks + msgs, ticks, msgs, refused);
	return refused ? 1 : 0;
}

static int failures;

static void expect(const char *what, long got, long want)
{
	if (got != want) {
		printf("uevdemo: FAIL: %s gave %ld, expected %ld\n", what, got, want);
		failures++;
	}
}

/* Writes the kernel refuses; the ones naming an event count in its rejected. */
static int bad(void)
{
	struct tick t = {.seq = 1};
	struct msg m;
	uint8_t big[UEVENT_PAYLOAD_MAX + 8] = {0};
	int counted = 0;

	expect("a write to the console's slot", sys_uevent_write(CAP_SLOT_CONSOLE, &t, sizeof(t)),
	       -ENOENT);
	expect("a write to an empty slot", sys_uevent_write(EMPTY_SLOT, &t, sizeof(t)), -ENOENT);
	expect("a write to index -1", sys_uevent_write(-1, &t, sizeof(t)), -EINVAL);
	if (!trace_uevent_enabled(&tick_ev)) {
		/* Nobody listens: refused before the kernel looks at the payload. */
		expect("a write while nobody listens", trace_uevent_write(&tick_ev, &t, sizeof(t)),
		       -EBADF);
		counted++;
	} else {
		expect("a payload shorter than the fields", trace_uevent_write(&tick_ev, &t, 3),
		       -EINVAL);
		expect("a payload too big", trace_uevent_write(&tick_ev, big, sizeof(big)), -E2BIG);
		expect("a payload at a bad address",
		       trace_uevent_write(&tick_ev, (void *)8, sizeof(t)), -EFAULT);
		make_msg(&m, 1, "text");
		m.text = UEVENT_LOC_MAKE(8, sizeof(m));
		expect("a string outside the payload", trace_uevent_write(&msg_ev, &m, sizeof(m)),
		       -EFAULT);
		make_msg(&m, 1, "text");
		m.data[4] = 'X';
		m.text = UEVENT_LOC_MAKE(5, offsetof(struct msg, data));
		expect("a string without its NUL", trace_uevent_write(&msg_ev, &m, sizeof(m)),
		       -EFAULT);
		counted += 5;
	}
	if (failures) {
		return 1;
	}
	printf("uevdemo: %d bad writes refused, %d counted as rejected\n", counted + 3, counted);
	return 0;
}

/* One event as big as a payload gets, but for 16 bytes: a head entry and three continuations. */
static int big(void)
{
	struct __attribute__((packed)) {
		uint32_t n;
		char text[BIG_TEXT];
	} payload = {.n = 7};
	struct trace_uevent ev;
	long err = trace_uevent_register(BIG_DESC, &ev);

	for (size_t i = 0; i + 1 < sizeof(payload.text); i++) {
		payload.text[i] = (char)('a' + i % 26);
	}
	if (!err) {
		err = trace_uevent_write(&ev, &payload, sizeof(payload));
	}
	if (err) {
		printf("uevdemo: big event: %s\n", trace_uevent_why(err));
		return 1;
	}
	printf("uevdemo: big event written (%zu bytes)\n", sizeof(payload));
	return 0;
}

static int watch(void)
{
	int last = -1, flips = 0;
	uint64_t start = (uint64_t)sys_clock_ns();

	while (flips < 3 && (uint64_t)sys_clock_ns() - start < WATCH_LIMIT_NS) {
		int now = trace_uevent_enabled(&tick_ev);
		if (now != last) {
			printf("uevdemo: uevdemo_tick is %s\n", now ? "on" : "off");
			last = now;
			flips++;
		}
		sys_sleep_ns(WATCH_POLL_NS);
	}
	return flips == 3 ? 0 : 1;
}

int main(int argc, char **argv)
{
	long err = trace_uevent_register(TICK_DESC, &tick_ev);

	if (!err) {
		err = trace_uevent_register(MSG_DESC, &msg_ev);
	}
	if (err) {
		printf("uevdemo: cannot register its events: %s\n", trace_uevent_why(err));
		return 1;
	}
	if (argc == 2 && !strcmp(argv[1], "bad")) {
		return bad();
	}
	if (argc == 2 && !strcmp(argv[1], "big")) {
		return big();
	}
	if (argc == 2 && !strcmp(argv[1], "watch")) {
		return watch();
	}
	if (argc < 2 || argc > 3 || argv[1][0] < '0' || argv[1][0] > '9') {
		printf("uevdemo: usage: uevdemo N [CPU] | bad | big | watch\n");
		return 2;
	}
	if (argc == 3 && sys_thread_set_cpu(atoi(argv[2]))) {
		printf("uevdemo: cannot run on cpu %s\n", argv[2]);
		return 1;
	}
	return rounds(strtoul(argv[1], NULL, 10));
}
