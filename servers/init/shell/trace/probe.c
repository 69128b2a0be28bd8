/*
 * probe: see probe.h. The shell checks the words it can (the registers,
 * the offset's number, the name's length) and says which one is wrong;
 * the kernel checks the place against its instruction table and says
 * why it refuses, in the reply's word 1 (abi/traced.h, PROBE_ON), which
 * this prints as one line.
 */
#include <errno.h>
#include <spoor.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <trace_client.h>

#include "servers/init/shell/trace/probe.h"

#define REGS_LINE (TTRACE_PROBE_REG_LIMIT * 7) /* every register's name and a comma */

static const char *const reg_names[TTRACE_PROBE_REG_LIMIT] = {
#define REG_NAME_(n, name) [n] = #name,
    TTRACE_PROBE_REGS(REG_NAME_)
#undef REG_NAME_
};

static const char *const whys[TTRACE_PROBE_WHY_LIMIT] = {
#define WHY_TEXT_(n, NAME, text) [n] = text,
    TTRACE_PROBE_WHYS(WHY_TEXT_)
#undef WHY_TEXT_
};

/* The register named word, or -1 when none is (said, with the names there are). */
static int reg_of(const char *word)
{
	char all[REGS_LINE];
	size_t n = 0;

	for (int i = 0; i < TTRACE_PROBE_REG_LIMIT; i++) {
		if (!strcmp(word, reg_names[i])) {
			return i;
		}
		n += (size_t)snprintf(all + n, sizeof(all) - n, "%s%s", i ? " " : "", reg_names[i]);
	}
	printf("trace: unknown register '%s' (known: %s)\n", word, all);
	return -1;
}

/* "rdi,rsi" of a probe's registers, into buf. */
static void regs_format(const uint8_t *regs, uint32_t n, char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	for (uint32_t i = 0; i < n && i < TTRACE_PROBE_REGS_MAX && used < size; i++) {
		used +=
		    (size_t)snprintf(buf + used, size - used, "%s%s", i ? "," : "",
				     regs[i] < TTRACE_PROBE_REG_LIMIT ? reg_names[regs[i]] : "?");
	}
}

/* SYMBOL[+OFFSET] into spec: false, having said why, when it is not one. */
static bool place_of(const char *word, struct ttrace_probe_spec *spec)
{
	const char *plus = strchr(word, '+');
	size_t len = plus ? (size_t)(plus - word) : strlen(word);

	if (!len || len >= sizeof(spec->symbol)) {
		printf("trace: bad probe place '%s' (SYMBOL[+OFFSET], the symbol 1 to %d "
		       "characters)\n",
		       word, TTRACE_PROBE_SYM_MAX - 1);
		return false;
	}
	memcpy(spec->symbol, word, len);
	if (plus) {
		char *end;
		unsigned long off = strtoul(plus + 1, &end, 0);
		if (end == plus + 1 || *end || off > UINT32_MAX) {
			printf(
			    "trace: bad probe offset '%s' (a number: decimal, or hexadecimal after "
			    "0x)\n",
			    plus + 1);
			return false;
		}
		spec->offset = (uint32_t)off;
		spec->has_offset = 1;
	}
	return true;
}

/* The words after the place: [as NAME] [REG...], into spec; false, having said why. */
static bool rest_of(int argc, char **argv, const char *place, struct ttrace_probe_spec *spec)
{
	const char *name = place;
	int i = 0;

	if (argc >= 2 && !strcmp(argv[0], "as")) {
		name = argv[1];
		i = 2;
	}
	if (strlen(name) >= sizeof(spec->name)) {
		printf("trace: probe name '%s' too long (at most %d characters: name it with 'as "
		       "NAME')\n",
		       name, TTRACE_PROBE_NAME_MAX - 1);
		return false;
	}
	memcpy(spec->name, name, strlen(name));
	if (argc - i > TTRACE_PROBE_REGS_MAX) {
		printf(
		    "trace: %d registers named, at most %d fit a probe event (its five data words: "
		    "the probe and %d values)\n",
		    argc - i, TTRACE_PROBE_REGS_MAX, TTRACE_PROBE_REGS_MAX);
		return false;
	}
	for (; i < argc; i++) {
		int r = reg_of(argv[i]);
		if (r < 0) {
			return false;
		}
		spec->regs[spec->nregs++] = (uint8_t)r;
	}
	return true;
}

static void probe_on(int argc, char **argv)
{
	struct ttrace_probe_spec spec = {0};
	uint64_t result = 0;
	char regs[REGS_LINE];

	if (!place_of(argv[0], &spec) || !rest_of(argc - 1, argv + 1, argv[0], &spec)) {
		return;
	}
	long err = traced_call_probe_on(&spec, &result);
	if (err == -EINVAL && result && result < TTRACE_PROBE_WHY_LIMIT) {
		printf("trace: no probe at %s: %s\n", argv[0], whys[result]);
		return;
	}
	if (verb_failed(err)) {
		return;
	}
	regs_format(spec.regs, spec.nregs, regs, sizeof(regs));
	printf("trace: probe %s at %s, recording (%s); %llu probes set\n", spec.name, argv[0], regs,
	       (unsigned long long)result);
}

static void probe_off(int argc, char **argv)
{
	uint64_t left = 0;
	const char *name = argc ? argv[0] : "";
	long err = traced_call_probe_off(name, &left);

	if (err == -ENOENT) {
		printf("trace: no probe named '%s' (trace probe list: the probes set)\n", name);
		return;
	}
	if (!verb_failed(err)) {
		printf("trace: %s off; %llu probes set\n", argc ? name : "every probe",
		       (unsigned long long)left);
	}
}

/* Each probe set, a line each, then the count; the prefix before each line. */
static void probe_lines(const char *prefix, bool always)
{
	struct ttrace_probe_info info;
	uint64_t missed = 0;
	uint32_t n = 0;
	char regs[REGS_LINE];

	for (uint32_t i = 0; !sys_probe_info(i, &info); i++) {
		missed = info.missed;
		if (!info.addr) {
			continue;
		}
		regs_format(info.regs, info.nregs, regs, sizeof(regs));
		printf("%s%s at %s+0x%x (0x%llx, %u bytes) regs=(%s) hits=%llu\n", prefix,
		       info.name, info.symbol, info.offset, (unsigned long long)info.addr, info.len,
		       regs, (unsigned long long)info.hits);
		n++;
	}
	if (n || always) {
		printf("# %u probes set (at most %d); %llu hits missed\n", n, TTRACE_PROBE_MAX,
		       (unsigned long long)missed);
	}
}

void probe_status(void)
{
	probe_lines("probe: ", false);
}

void probe_verb(const struct verb *verb, int argc, char **argv)
{
	if (argc < 2 || (!strcmp(argv[1], "list") && argc != 2) ||
	    (!strcmp(argv[1], "off") && argc > 3)) {
		verb_usage(verb);
		return;
	}
	if (!strcmp(argv[1], "list")) {
		probe_lines("", true);
	} else if (!strcmp(argv[1], "off")) {
		probe_off(argc - 2, argv + 2);
	} else {
		probe_on(argc - 1, argv + 1);
	}
}
