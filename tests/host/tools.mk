# Host tests of the host scripts in tools/ (tests/host/tools/): each runs
# the script against stand-ins for the system commands it calls.
BENCH_DEPS_CHECK := $(BUILD)/host/tools/check_bench_deps

$(BENCH_DEPS_CHECK): tests/host/tools/check_bench_deps.py tools/bench-deps
	@mkdir -p $(dir $@)
	printf '#!/bin/sh\nexec %s %s %s\n' '$(PYTHON)' '$<' 'tools/bench-deps' > $@
	chmod +x $@

HOST_EXTRA_TESTS += $(BENCH_DEPS_CHECK)
