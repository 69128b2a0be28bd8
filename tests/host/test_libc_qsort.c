/*
 * Tests libc's qsort (libc/src/stdlib/qsort.c): every array length up to
 * a few hundred and some larger, in the orders that break sorts (sorted,
 * reversed, all equal, few distinct keys, random), for element sizes of
 * one byte up to past the 64-byte swap buffer. The result must equal the
 * host qsort's under a total order, the comparison count must stay within
 * heapsort's bound, and every pointer compared must be an element.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libc_host.h"
#include "rand.h"
#include "test.h"

#define MAX_N	 600
#define MAX_SIZE 100

/* The array being sorted, so the comparison can check its arguments. */
static const uint8_t *sort_base;
static size_t sort_n, sort_size;
static size_t compares;
static bool stray_pointer;

static bool is_element(const void *p)
{
	size_t off = (size_t)((const uint8_t *)p - sort_base);

	return (const uint8_t *)p >= sort_base && off < sort_n * sort_size && off % sort_size == 0;
}

/* A total order on whole elements: the first byte is the key, memcmp breaks ties. */
static int compare(const void *a, const void *b)
{
	compares++;
	if (!is_element(a) || !is_element(b)) {
		stray_pointer = true;
	}
	return memcmp(a, b, sort_size);
}

static int host_compare(const void *a, const void *b)
{
	return memcmp(a, b, sort_size);
}

enum order { RANDOM, SORTED, REVERSED, EQUAL, FEW_KEYS, ORDERS };

static const char *const order_names[] = {"random", "sorted", "reversed", "equal", "few keys"};

static void make_array(uint8_t *a, size_t n, size_t size, enum order order, uint64_t *rng)
{
	for (size_t i = 0; i < n; i++) {
		uint8_t *e = a + i * size;

		for (size_t j = 0; j < size; j++) {
			e[j] = (uint8_t)test_random(rng);
		}
		if (order == EQUAL) {
			memset(e, 0x55, size);
		} else if (order == FEW_KEYS) {
			memset(e, (uint8_t)(test_random(rng) % 3), size);
		}
	}
	if (order == SORTED || order == REVERSED) {
		qsort(a, n, size, host_compare);
	}
	if (order == REVERSED) {
		for (size_t i = 0; i < n / 2; i++) {
			uint8_t tmp[MAX_SIZE];

			memcpy(tmp, a + i * size, size);
			memcpy(a + i * size, a + (n - 1 - i) * size, size);
			memcpy(a + (n - 1 - i) * size, tmp, size);
		}
	}
}

/* Heapsort's bound: 2n comparisons to build the heap, 2 per level per element to empty it. */
static size_t compare_bound(size_t n)
{
	size_t levels = 0;

	while (((size_t)1 << levels) < n) {
		levels++;
	}
	return 2 * n + 2 * n * levels;
}

static void check_sort(size_t n, size_t size, enum order order, uint64_t *rng)
{
	static uint8_t got[MAX_N * MAX_SIZE], want[MAX_N * MAX_SIZE];

	make_array(got, n, size, order, rng);
	memcpy(want, got, n * size);
	sort_base = got;
	sort_n = n;
	sort_size = size;
	compares = 0;
	stray_pointer = false;
	spoor_qsort(got, n, size, compare);
	qsort(want, n, size, host_compare);
	CHECK(memcmp(got, want, n * size) == 0, "n %zu size %zu %s: not sorted", n, size,
	      order_names[order]);
	CHECK(compares <= compare_bound(n), "n %zu size %zu %s: %zu comparisons", n, size,
	      order_names[order], compares);
	CHECK(!stray_pointer, "n %zu size %zu %s: compared a pointer that is no element", n, size,
	      order_names[order]);
}

TEST(libc_qsort)
{
	static const size_t sizes[] = {1, 4, 8, 12, 64, 65, MAX_SIZE};
	uint64_t rng = 0x50f70001;

	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		for (enum order o = RANDOM; o < ORDERS; o++) {
			for (size_t n = 0; n <= 70; n++) {
				check_sort(n, sizes[s], o, &rng);
			}
			check_sort(MAX_N, sizes[s], o, &rng);
			check_sort(MAX_N - 1, sizes[s], o, &rng);
		}
	}
}

/* Sorting ints the usual way, as a program would. */
static int compare_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

TEST(libc_qsort_ints)
{
	int v[] = {5, -3, 2147483647, 0, -2147483647 - 1, 5, 42, -3};
	const int want[] = {-2147483647 - 1, -3, -3, 0, 5, 5, 42, 2147483647};

	spoor_qsort(v, sizeof(v) / sizeof(v[0]), sizeof(v[0]), compare_int);
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		CHECK_EQ_INT(v[i], want[i], "ints");
	}
	spoor_qsort(NULL, 0, sizeof(int), compare_int); /* nothing to sort, nothing read */
}
