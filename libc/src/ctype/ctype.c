/*
 * ctype: the character classes of ASCII, the "C" locale. Written as range
 * tests rather than a 256-entry table: each is a compare or two, and the
 * classes read as the standard defines them. Values outside 0..127 (EOF,
 * bytes >= 128) are in no class.
 */
#include <ctype.h>

int isdigit(int c)
{
	return c >= '0' && c <= '9';
}

int islower(int c)
{
	return c >= 'a' && c <= 'z';
}

int isupper(int c)
{
	return c >= 'A' && c <= 'Z';
}

int isalpha(int c)
{
	return islower(c) || isupper(c);
}

int isalnum(int c)
{
	return isalpha(c) || isdigit(c);
}

int isxdigit(int c)
{
	return isdigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

int isblank(int c)
{
	return c == ' ' || c == '\t';
}

/* Space, \t, \n, \v, \f, \r. */
int isspace(int c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

int iscntrl(int c)
{
	return (c >= 0 && c < ' ') || c == 0x7f;
}

/* Everything from space to tilde; isgraph() leaves out the space. */
int isprint(int c)
{
	return c >= ' ' && c <= '~';
}

int isgraph(int c)
{
	return c > ' ' && c <= '~';
}

int ispunct(int c)
{
	return isgraph(c) && !isalnum(c);
}

int tolower(int c)
{
	return isupper(c) ? c - 'A' + 'a' : c;
}

int toupper(int c)
{
	return islower(c) ? c - 'a' + 'A' : c;
}
