/*
 * uevents: traced's user-event operations (uevents.c has the design note).
 */
#ifndef SPOOR_TRACED_UEVENTS_H
#define SPOOR_TRACED_UEVENTS_H

#include <stdbool.h>
#include "servers/traced/request.h"

/* REGISTER, UNREGISTER, EVENT_ON, EVENT_OFF and EVENTS, each 0 or -E*. */
int uevents_register(const struct request *req, struct reply *rep);
int uevents_unregister(const struct request *req, struct reply *rep);
int uevents_on(const struct request *req, struct reply *rep);
int uevents_off(const struct request *req, struct reply *rep);
int uevents_list(const struct request *req, struct reply *rep);

/* Turns every user event on or off, as the user category goes: 0 or -E*. */
int uevents_all(bool on);

#endif
