/*
 * ceiling: tracecat -c (ceiling.c), the in-process copy a dump's rate is
 * measured against.
 */
#ifndef SPOOR_TRACECAT_CEILING_H
#define SPOOR_TRACECAT_CEILING_H

/* Copies every event of every ring and prints how long it took; the exit status. */
int ceiling(void);

#endif
