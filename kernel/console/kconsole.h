/*
 * kconsole: the temporary kernel console on COM1 (prompt "kernel> "),
 * until the init shell takes over the console.
 */
#ifndef SPOOR_CONSOLE_KCONSOLE_H
#define SPOOR_CONSOLE_KCONSOLE_H

/* Reads and runs commands forever; "halt" powers the machine off. */
__attribute__((noreturn)) void kconsole_run(void);

#endif
