/*
 * export: traced's driver of the export channel to the host.
 */
#ifndef SPOOR_TRACED_EXPORT_H
#define SPOOR_TRACED_EXPORT_H

#include <stddef.h>
#include <stdint.h>

/*
 * Maps the window on first use and gives it: 0, -ENODEV without the
 * channel's capabilities, or -E*.
 */
int export_open(uint8_t **window, size_t *size);

/*
 * Sends one line of the channel's protocol and waits for the host's
 * answer: 0 for "ok", -EIO for an error (said on the console),
 * -EHOSTDOWN when the host says nothing (a client's -ETIMEDOUT is its
 * own wait for traced, told apart).
 */
int export_request(const char *line);

/*
 * export_request() in two halves, so that work goes on while the host
 * answers: export_send() sends the line (0 or -E*), export_answer()
 * waits for its answer as export_request() does. Nothing is published
 * in the window between them (the host takes it before the line).
 */
int export_send(const char *line);
int export_answer(const char *line);

#endif
