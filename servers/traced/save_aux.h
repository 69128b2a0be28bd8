/*
 * save_aux: what a SELF save's aux ring keeps (save_aux.c has the design
 * note).
 */
#ifndef SPOOR_TRACED_SAVE_AUX_H
#define SPOOR_TRACED_SAVE_AUX_H

#include <stddef.h>
#include <stdint.h>
#include "common/trace_aux.h"
#include "servers/traced/scope.h"

/* Forgets the last save's references. */
void save_aux_reset(void);

/* Takes the references of a piece of binary dump (whole slots). */
void save_aux_note(const uint8_t *data, size_t len);

/*
 * Blanks, in the snapshot view walks (traced.aux_copy), every record no
 * noted reference names and that is not the name of a process in scope.
 */
void save_aux_blank(const struct ttrace_aux_view *view, const struct scope *scope);

#endif
