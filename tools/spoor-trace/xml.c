/*
 * xml: text for the SVG pictures (see xml.h).
 */
#include "tools/spoor-trace/xml.h"

void xml_text(FILE *out, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		switch (s[i]) {
		case '&':
			fputs("&amp;", out);
			break;
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		case '\'':
			fputs("&apos;", out);
			break;
		default:
			fputc(s[i] >= ' ' && s[i] <= '~' ? s[i] : '?', out);
			break;
		}
	}
}
