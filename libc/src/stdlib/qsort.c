/*
 * qsort as heapsort: O(n log n) comparisons even on the inputs that make
 * quicksort quadratic, no recursion and no extra memory, which matters on
 * the small stacks of threads. Not stable, as C allows.
 */
#include <stdlib.h>
#include <string.h>

typedef int (*compare_fn)(const void *a, const void *b);

struct array {
	unsigned char *base;
	size_t size; /* bytes per element */
	compare_fn compare;
};

static unsigned char *at(const struct array *a, size_t i)
{
	return a->base + i * a->size;
}

/* Swaps elements i and j through a small buffer, a piece at a time for large elements. */
static void swap(const struct array *a, size_t i, size_t j)
{
	unsigned char tmp[64];
	unsigned char *x = at(a, i), *y = at(a, j);

	for (size_t left = a->size; left > 0;) {
		size_t n = left < sizeof(tmp) ? left : sizeof(tmp);

		memcpy(tmp, x, n);
		memcpy(x, y, n);
		memcpy(y, tmp, n);
		x += n;
		y += n;
		left -= n;
	}
}

/* Moves element root down the max-heap of the first n elements until both children are smaller. */
static void sift_down(const struct array *a, size_t root, size_t n)
{
	for (;;) {
		size_t child = 2 * root + 1;

		if (child >= n) {
			return;
		}
		if (child + 1 < n && a->compare(at(a, child), at(a, child + 1)) < 0) {
			child++;
		}
		if (a->compare(at(a, root), at(a, child)) >= 0) {
			return;
		}
		swap(a, root, child);
		root = child;
	}
}

void qsort(void *base, size_t n, size_t size, compare_fn compare)
{
	struct array a = {.base = base, .size = size, .compare = compare};

	if (n < 2 || size == 0) {
		return;
	}
	/* Build the heap bottom up, then move its maximum to the end one element at a time. */
	for (size_t i = n / 2; i-- > 0;) {
		sift_down(&a, i, n);
	}
	for (size_t end = n - 1; end > 0; end--) {
		swap(&a, 0, end);
		sift_down(&a, 0, end);
	}
}
