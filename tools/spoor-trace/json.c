/*
 * json: JSON strings (see json.h).
 */
#include "tools/spoor-trace/json.h"

void json_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		if (*c == '"' || *c == '\\') {
			fprintf(out, "\\%c", *c);
		} else if (*c < 0x20 || *c >= 0x7f) {
			fprintf(out, "\\u%04x", *c); /* bytes as Latin-1: the output stays UTF-8 */
		} else {
			fputc(*c, out);
		}
	}
	fputc('"', out);
}
