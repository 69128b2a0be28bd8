/*
 * filter: libc's names for the FILTERS words (trace_client.h), which
 * common/trace_filter.h parses for every reader. A program's filter goes
 * to traced, so it takes the keys traced decides (not comm=).
 */
#include <string.h>
#include <trace_client.h>

#include "common/trace_filter.h"

int traced_categories_parse(const char *list, uint64_t *mask, char *why, size_t why_size)
{
	return ttrace_filter_categories(list, mask, why, why_size);
}

void traced_filter_usage(char *buf, size_t size)
{
	ttrace_filter_usage(buf, size, TTRACE_FILTER_GUEST);
}

int traced_filter_parse(int argc, char *const argv[], uint32_t ncpus, struct traced_filter *f,
			char *why, size_t why_size)
{
	struct ttrace_filter words;
	int err =
	    ttrace_filter_parse(argc, argv, ncpus, TTRACE_FILTER_GUEST, &words, why, why_size);

	*f = words.f;
	return err;
}

int traced_filter_parse_if(int argc, char *const argv[], uint32_t ncpus, struct traced_filter *f,
			   struct traced_pred *pred, char *why, size_t why_size)
{
	struct ttrace_filter words;
	int err = ttrace_filter_parse(argc, argv, ncpus, TTRACE_FILTER_GUEST | TTRACE_FILTER_PRED,
				      &words, why, why_size);

	*f = words.f;
	*pred = (struct traced_pred){.len = (uint32_t)strlen(words.pred)};
	memcpy(pred->text, words.pred, pred->len);
	return err;
}
