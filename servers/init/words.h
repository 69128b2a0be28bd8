/*
 * words: how init says a process ended and how long the machine has been
 * up, one wording each, so that a job's end, a server's end, `cpus` and
 * `trace status` read alike.
 */
#ifndef SPOOR_INIT_WORDS_H
#define SPOOR_INIT_WORDS_H

#include <stddef.h>
#include <stdint.h>

/*
 * Says how a process ended, from its wait status: "killed", "killed by a
 * fault (vector 14)" or "exited with status 3". Returns buf (size bytes).
 */
#define EXIT_WORDS_MAX 48
const char *exit_words(int64_t status, char *buf, size_t size);

/* "up 5.427 s": the one unit uptime is shown in. Returns buf. */
#define UPTIME_WORDS_MAX 32
const char *uptime_words(uint64_t ns, char *buf, size_t size);

#endif
