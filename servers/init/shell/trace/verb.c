/*
 * verb: what the `trace` verbs share (verb.h): how they say a usage
 * error and a failed request, how they read filter words, and how they
 * notice a Ctrl-C while they print.
 */
#include <errno.h>
#include <spoor.h>
#include <stdio.h>
#include <string.h>

#include "servers/init/console.h"
#include "servers/init/shell/trace/verb.h"

void verb_usage(const struct verb *verb)
{
	printf("trace: usage: trace %s%s%s\n", verb->name, *verb->args ? " " : "", verb->args);
}

bool verb_failed(long err)
{
	if (!err) {
		return false;
	}
	if (err == -ETIMEDOUT || err == -EPIPE || err == -ENOENT) {
		printf("trace: traced is not running\n");
	} else if (err == -ECPUSTUCK) {
		printf("trace: nothing changed: a cpu did not stop for the tracepoints' rewrite "
		       "(stuck? cpus shows it)\n");
	} else {
		printf("trace: traced refused: %s\n", strerror((int)-err));
	}
	return true;
}

bool verb_filters(int argc, char **argv, struct traced_filter *f, struct traced_pred *pred)
{
	char why[WHY_MAX];
	long ncpus = traced_num_cpus();

	if (ncpus < 0 && verb_failed(ncpus)) {
		return false;
	}
	int err =
	    pred ? traced_filter_parse_if(argc - 1, argv + 1, (uint32_t)ncpus, f, pred, why,
					  sizeof(why))
		 : traced_filter_parse(argc - 1, argv + 1, (uint32_t)ncpus, f, why, sizeof(why));
	if (err) {
		printf("trace: %s\n", why);
		return false;
	}
	return true;
}

bool verb_interrupted(uint64_t timeout_ns)
{
	char c;

	return sys_console_read(CAP_SLOT_CONSOLE, &c, 1, timeout_ns) == 1 && c == KEY_CTRL_C;
}
