/*
 * func: see func.h. The shell checks every pattern of a command first,
 * with the kernel's own matcher (common/func_glob.h) over the names the
 * kernel lists (func_info), so that it can name the wrong one; only then
 * does the command go to traced, and the kernel checks it all again.
 */
#include <errno.h>
#include <spoor.h>
#include <stdio.h>
#include <string.h>
#include <trace_client.h>

#include "common/func_glob.h"
#include "servers/init/console.h"
#include "servers/init/shell/trace/func.h"

/* What each TTRACE_FUNC_WHY_* prints. */
static const char *const whys[] = {
#define WHY_TEXT_(n, NAME, text) [n] = text,
    TTRACE_FUNC_WHYS(WHY_TEXT_)
#undef WHY_TEXT_
};

/* Whether argv[0] is a pattern; if not, says so. */
static bool valid(const char *p)
{
	if (func_glob_valid(p, strlen(p))) {
		return true;
	}
	printf("trace: bad function pattern '%s' (letters, digits, _ and . with the globs * and ?, "
	       "at most %d characters)\n",
	       p, TTRACE_FUNC_PATTERN_MAX);
	return false;
}

/* Whether a function in state why (TTRACE_FUNC_WHY_*) may be traced. */
static bool may_trace(uint32_t why)
{
	return why <= TTRACE_FUNC_WHY_ON || why == TTRACE_FUNC_WHY_ROOT;
}

/* Whether p matches a function the kernel may trace; if not, says so. */
static bool traceable(const char *p)
{
	struct ttrace_func_info info;

	for (uint32_t i = 0; !sys_func_info(i, &info); i++) {
		if (may_trace(info.why) && func_glob_match(p, strlen(p), info.name)) {
			return true;
		}
	}
	printf("trace: no traceable kernel function matches '%s' (trace func list %s says why)\n",
	       p, p);
	return false;
}

bool func_patterns(int argc, char **argv, bool on, char *list, size_t size)
{
	size_t len = 0;

	list[0] = '\0';
	for (int i = 0; i < argc; i++) {
		if (!valid(argv[i]) || (on && !traceable(argv[i]))) {
			return false;
		}
		len += (size_t)snprintf(list + len, size - len, "%s%s", i ? " " : "", argv[i]);
	}
	return true;
}

/* func list PATTERN: a line a function that matches, then the counts. */
static void list(const char *p)
{
	struct ttrace_func_info info = {0};
	uint32_t n = 0, ok = 0, on = 0;
	long err;

	if (!valid(p)) {
		return;
	}
	for (uint32_t i = 0; (err = sys_func_info(i, &info)) != -ENOENT; i++) {
		if (err || !func_glob_match(p, strlen(p), info.name)) {
			continue;
		}
		n++;
		ok += may_trace(info.why);
		on += info.why == TTRACE_FUNC_WHY_ON;
		printf("%s %s\n", info.name,
		       info.why < TTRACE_FUNC_WHY_LIMIT ? whys[info.why] : "not traceable");
	}
	printf("# %u functions match '%s': %u traceable (%u traced), %u not traceable; %llu "
	       "entries missed\n",
	       n, p, ok, on, n - ok, (unsigned long long)info.missed);
}

void func_verb(const struct verb *verb, int argc, char **argv)
{
	char words[LINE_MAX];
	uint64_t traced = 0;
	bool off = argc > 1 && !strcmp(argv[1], "off");

	if (argc < 2 || (!strcmp(argv[1], "list") && argc != 3)) {
		verb_usage(verb);
		return;
	}
	if (!strcmp(argv[1], "list")) {
		list(argv[2]);
		return;
	}
	if (!func_patterns(argc - 1 - off, argv + 1 + off, !off, words, sizeof(words))) {
		return;
	}
	long err = off ? traced_call_func_off(words, &traced) : traced_call_func_on(words, &traced);
	if (err == -EINVAL || err == -ENOENT) {
		printf("trace: the kernel refused the patterns '%s'\n", words);
	} else if (err == -EBUSY) {
		printf("trace: the graph is on (trace graph off first)\n");
	} else if (!verb_failed(err)) {
		printf("trace: %llu kernel functions traced\n", (unsigned long long)traced);
	}
}
