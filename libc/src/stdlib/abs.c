/*
 * abs: C's integer absolute value. abs(INT_MIN) has no int result; C
 * leaves it undefined and here it returns INT_MIN.
 */
#include <stdlib.h>

int abs(int v)
{
	return v < 0 ? (int)(0u - (unsigned)v) : v;
}
