/*
 * uevent_types: the field types of user events as one table, generated
 * from UEVENT_TYPES of abi/uevent.h (each type's spelling and size), and
 * the questions the description parser (uevent_parse.h) and the payload
 * code (uevent_payload.h) ask of a type. The spellings the parser accepts
 * and the ones uevent_def_format() prints are this one list. Pure code:
 * no allocation, no locks; compiled by the kernel, libc and the host
 * tests.
 */
#ifndef SPOOR_COMMON_UEVENT_TYPES_H
#define SPOOR_COMMON_UEVENT_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "abi/uevent.h"

/* Printable ASCII, from ' ' to '~': what descriptions hold and payload strings print as is. */
#define UEVENT_ASCII_FIRST 0x20
#define UEVENT_ASCII_LAST  0x7e

/*
 * The arguments of "%.*s" for a name array of a definition: printing
 * reads no further than the array, even in a broken definition.
 */
#define UEVENT_NAME_ARG(a) (int)(sizeof(a) - 1), (a)

/* The text of type t ("unsigned char", "char[]"), "?" for a number no type has. */
const char *uevent_type_spelling(uint16_t t);

/*
 * The bytes a field of type t takes; 0 when the description gives them
 * (arrays, structs) or t is no type.
 */
uint16_t uevent_type_size(uint16_t t);

/* __data_loc or __rel_loc: a location word in the payload, the data after the fixed fields. */
bool uevent_type_is_dynamic(uint16_t t);

/* __rel_loc: the location counts from the end of the field, not the payload's start. */
bool uevent_type_is_rel_loc(uint16_t t);

/* Text, printed quoted up to its first NUL: char[N] and the dynamic char[]. */
bool uevent_type_is_string(uint16_t t);

/* char[N] or unsigned char[N]: a fixed array whose size the description gives. */
bool uevent_type_is_array(uint16_t t);

/* An integer printed with its sign (s8..s64, char, short, int). */
bool uevent_type_is_signed(uint16_t t);

/* A scalar: an integer of a size the type fixes, printed in decimal. */
bool uevent_type_is_scalar(uint16_t t);

#endif
