/*
 * ctype.h: character classes of the "C" locale, the only one there is.
 * Arguments are an unsigned char's value or EOF; anything else is in no
 * class and is returned unchanged by tolower() and toupper().
 */
#ifndef SPOOR_LIBC_CTYPE_H
#define SPOOR_LIBC_CTYPE_H

int isalnum(int c);
int isalpha(int c);
int isblank(int c);
int iscntrl(int c);
int isdigit(int c);
int isgraph(int c);
int islower(int c);
int isprint(int c);
int ispunct(int c);
int isspace(int c);
int isupper(int c);
int isxdigit(int c);
int tolower(int c);
int toupper(int c);

#endif
