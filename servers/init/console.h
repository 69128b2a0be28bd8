/*
 * console: what init's shell and its jobs share about the console: the
 * prompt, the longest line the shell reads, and the key that cancels a
 * line or interrupts the program in the foreground.
 */
#ifndef SPOOR_INIT_CONSOLE_H
#define SPOOR_INIT_CONSOLE_H

#define INIT_PROMPT "init> "
#define LINE_MAX    256

/* Ctrl-C as the console delivers it. */
#define KEY_CTRL_C 0x03

#endif
