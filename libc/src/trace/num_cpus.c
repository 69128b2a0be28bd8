/*
 * num_cpus: the trace area's CPU count, asked of traced once through its
 * STATUS stub and then remembered (trace_client.h).
 */
#include <trace_client.h>

long traced_num_cpus(void)
{
	static uint32_t ncpus; /* the trace area's: it never changes */
	struct traced_status st;

	if (!ncpus) {
		long err = traced_call_status(&st);
		if (err) {
			return err;
		}
		ncpus = st.num_cpus;
	}
	return ncpus;
}
