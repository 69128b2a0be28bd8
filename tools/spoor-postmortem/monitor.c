/*
 * monitor: dump-guest-memory over QMP (monitor.h).
 */
#include "tools/spoor-postmortem/monitor.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "tools/spoor-postmortem/why.h"

#define LINE_MAX_BYTES	4096
#define DUMP_TIMEOUT_MS (5 * 60 * 1000) /* a dump of a few hundred MiB takes seconds */

struct conn {
	int fd;
	char buf[LINE_MAX_BYTES];
	size_t len;
};

/* The next line QEMU sends, NUL-terminated, without its "\r\n"; NULL on EOF or timeout. */
static char *next_line(struct conn *c)
{
	for (;;) {
		char *nl = memchr(c->buf, '\n', c->len);
		if (nl) {
			static char line[LINE_MAX_BYTES];
			size_t n = (size_t)(nl - c->buf);
			memcpy(line, c->buf, n);
			line[n && line[n - 1] == '\r' ? n - 1 : n] = '\0';
			memmove(c->buf, nl + 1, c->len - n - 1);
			c->len -= n + 1;
			return line;
		}
		if (c->len == sizeof(c->buf)) {
			c->len = 0; /* a line longer than any answer awaited: not one of them */
		}
		struct pollfd p = {.fd = c->fd, .events = POLLIN};
		if (poll(&p, 1, DUMP_TIMEOUT_MS) <= 0) {
			return NULL;
		}
		ssize_t r = read(c->fd, c->buf + c->len, sizeof(c->buf) - c->len);
		if (r <= 0) {
			return NULL;
		}
		c->len += (size_t)r;
	}
}

/* Sends a command and waits for its answer, skipping events. 0, or -1 with why set. */
static int execute(struct conn *c, const char *cmd, char *why, size_t why_size)
{
	size_t len = strlen(cmd);

	if (write(c->fd, cmd, len) != (ssize_t)len) {
		return why_fail(why, why_size, "cannot write to QEMU's monitor: %s",
				strerror(errno));
	}
	for (;;) {
		const char *line = next_line(c);
		if (!line) {
			return why_fail(why, why_size, "QEMU's monitor closed or did not answer");
		}
		if (!strncmp(line, "{\"return\"", 9)) {
			return 0;
		}
		if (!strncmp(line, "{\"error\"", 8)) {
			return why_fail(why, why_size, "QEMU refused: %.300s", line);
		}
	}
}

int monitor_dump(const char *socket_path, const char *out, char *why, size_t why_size)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct conn c = {.fd = -1};
	char cmd[LINE_MAX_BYTES];
	int rc = -1;

	if (strlen(socket_path) >= sizeof(sa.sun_path)) {
		return why_fail(why, why_size, "the monitor socket's path is too long: %s",
				socket_path);
	}
	if (strchr(out, '"') || strchr(out, '\\')) {
		return why_fail(why, why_size, "the dump's path may not hold '\"' or '\\': %s",
				out);
	}
	strcpy(sa.sun_path, socket_path);
	c.fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c.fd < 0 || connect(c.fd, (struct sockaddr *)&sa, sizeof(sa))) {
		why_fail(why, why_size,
			 "cannot connect to QEMU's monitor %s: %s (is the machine running?)",
			 socket_path, strerror(errno));
		goto out;
	}
	const char *greeting = next_line(&c);
	if (!greeting || strncmp(greeting, "{\"QMP\"", 6)) {
		why_fail(why, why_size, "%s is not a QMP monitor", socket_path);
		goto out;
	}
	if (execute(&c, "{\"execute\": \"qmp_capabilities\"}\n", why, why_size)) {
		goto out;
	}
	/*
	 * QEMU creates the file owner-read-only: an old one (a dump kept with
	 * -k) could not be opened again. Removed only now, with a machine to
	 * dump it again.
	 */
	unlink(out);
	/* Not detached: the answer comes once the file is whole. */
	snprintf(cmd, sizeof(cmd),
		 "{\"execute\": \"dump-guest-memory\", \"arguments\": "
		 "{\"paging\": false, \"protocol\": \"file:%s\"}}\n",
		 out);
	rc = execute(&c, cmd, why, why_size);
out:
	if (c.fd >= 0) {
		close(c.fd);
	}
	return rc;
}
