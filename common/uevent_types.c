/*
 * uevent_types: the type table and its predicates (see uevent_types.h).
 */
#include "common/uevent_types.h"

struct type_info {
	const char *spelling;
	uint16_t size; /* 0: from the description */
};

#define TYPE_INFO(value, NAME, spell, sz) [value] = {.spelling = spell, .size = sz},
static const struct type_info types[UEVENT_TYPE_LIMIT] = {UEVENT_TYPES(TYPE_INFO)};
#undef TYPE_INFO

static bool is_type(uint16_t t)
{
	return t > UEVENT_TYPE_NONE && t < UEVENT_TYPE_LIMIT;
}

const char *uevent_type_spelling(uint16_t t)
{
	return is_type(t) ? types[t].spelling : "?";
}

uint16_t uevent_type_size(uint16_t t)
{
	return is_type(t) ? types[t].size : 0;
}

bool uevent_type_is_dynamic(uint16_t t)
{
	return t == UEVENT_TYPE_DATA_LOC_STRING || t == UEVENT_TYPE_DATA_LOC_UBYTES ||
	       t == UEVENT_TYPE_REL_LOC_STRING || t == UEVENT_TYPE_REL_LOC_UBYTES;
}

bool uevent_type_is_rel_loc(uint16_t t)
{
	return t == UEVENT_TYPE_REL_LOC_STRING || t == UEVENT_TYPE_REL_LOC_UBYTES;
}

bool uevent_type_is_string(uint16_t t)
{
	return t == UEVENT_TYPE_CHAR_ARRAY || t == UEVENT_TYPE_DATA_LOC_STRING ||
	       t == UEVENT_TYPE_REL_LOC_STRING;
}

bool uevent_type_is_array(uint16_t t)
{
	return t == UEVENT_TYPE_CHAR_ARRAY || t == UEVENT_TYPE_UCHAR_ARRAY;
}

bool uevent_type_is_signed(uint16_t t)
{
	return t == UEVENT_TYPE_S8 || t == UEVENT_TYPE_S16 || t == UEVENT_TYPE_S32 ||
	       t == UEVENT_TYPE_S64 || t == UEVENT_TYPE_CHAR || t == UEVENT_TYPE_SHORT ||
	       t == UEVENT_TYPE_INT;
}

bool uevent_type_is_scalar(uint16_t t)
{
	return is_type(t) && types[t].size && !uevent_type_is_dynamic(t);
}
