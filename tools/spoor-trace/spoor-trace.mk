# spoor-trace, the host tool that reads saved traces (tools/spoor-trace/),
# and its tests; the top Makefile includes this file.
#
# The tool is every .c file here and the common/ code it decodes with,
# built natively and optimised in one compiler run. The tests build the
# same sources with the sanitizers of the host unit tests (objects under
# build/host/ by the top Makefile's rule, shared with run_tests for
# common/), into binaries of their own that `make test-host` runs
# (HOST_EXTRA_TESTS):
#   build/host/spoor_trace/run_tests  unit tests: the reader's checks, the text
#   build/host/spoor_trace/fuzz       10,000 mutated files through every converter
#   build/host/spoor_trace/check_stacks  stacks named as addr2line names them,
#                                     report and folded output to the letter
#   build/host/spoor_trace/check      babeltrace2 reads the CTF; the JSON and
#                                     SVG are checked with Python's parsers, and
#                                     the JSON loads in Chrome DevTools' trace
#                                     engine (npm, installed under build/host/devtools
#                                     at the versions package-lock.json pins)
#   build/host/spoor_trace/check_pprof  the pprof profile read by go tool pprof
#   build/host/spoor_trace/check_tracedat  the trace.dat read back by libtracecmd
#                                     (read_tracedat), trace-cmd report and KernelShark
#   build/host/spoor_trace/check_filters  FILTERS on every subcommand against the text's

SPOOR_TRACE := $(BUILD)/host/spoor-trace
# pprof's own profile.proto (Debian golang-github-google-pprof-dev) in C by
# protoc-c (protobuf-c-compiler), for pprof.c.
SPOOR_TRACE_PROTO := /usr/share/gocode/src/github.com/google/pprof/proto/profile.proto
SPOOR_TRACE_PB := $(BUILD)/host/pprof/profile.pb-c.c
# elfutils (Debian libdw-dev, libelf-dev) names the addresses of call stacks;
# protobuf-c and zlib pack and gzip pprof profiles.
SPOOR_TRACE_LIBS := -ldw -lelf -lprotobuf-c -lz

$(SPOOR_TRACE_PB): $(SPOOR_TRACE_PROTO)
	@mkdir -p $(dir $@)
	cd $(dir $(SPOOR_TRACE_PROTO)) && protoc-c --c_out=$(abspath $(dir $@)) profile.proto
$(SPOOR_TRACE_PB:.c=.h): $(SPOOR_TRACE_PB)
$(BUILD)/host/tools/spoor-trace/pprof_build.c.o: $(SPOOR_TRACE_PB:.c=.h)
$(BUILD)/host/tools/spoor-trace/pprof_build.c.o: HOST_CFLAGS += -I$(dir $(SPOOR_TRACE_PB))
SPOOR_TRACE_SRCS := $(sort $(wildcard tools/spoor-trace/*.c))
SPOOR_TRACE_COMMON := $(sort $(wildcard common/*.c))
SPOOR_TRACE_HDRS := $(wildcard tools/spoor-trace/*.h common/*.h abi/*.h abi/*.def)

$(SPOOR_TRACE): $(SPOOR_TRACE_SRCS) $(SPOOR_TRACE_COMMON) $(SPOOR_TRACE_HDRS) $(SPOOR_TRACE_PB) \
		tools/spoor-trace/spoor-trace.mk
	@mkdir -p $(dir $@)
	$(CC) $(HOST_TOOL_CFLAGS) -I$(dir $(SPOOR_TRACE_PB)) -o $@ $(SPOOR_TRACE_SRCS) $(SPOOR_TRACE_COMMON) \
		$(SPOOR_TRACE_PB) $(SPOOR_TRACE_LIBS)

HOST_TOOLS += $(SPOOR_TRACE)

# The tests: the tool's sources but main.c, the generator of test files,
# the runner of tests/host.
SPOOR_TRACE_TEST_DIR := $(BUILD)/host/spoor_trace
SPOOR_TRACE_LIB_OBJS := $(patsubst %,$(BUILD)/host/%.o,\
	$(filter-out tools/spoor-trace/main.c,$(SPOOR_TRACE_SRCS)) $(SPOOR_TRACE_COMMON) \
	tests/host/spoor_trace/gen.c tests/host/spoor_trace/gen_stacks.c $(SPOOR_TRACE_PB))
SPOOR_TRACE_UNIT_OBJS := $(patsubst %,$(BUILD)/host/%.o,tests/host/runner.c \
	$(filter-out %/gen.c %/gen_stacks.c %/fuzz.c %/gen_main.c %/read_tracedat.c,\
	$(sort $(wildcard tests/host/spoor_trace/*.c))))
SPOOR_TRACE_UNIT := $(SPOOR_TRACE_TEST_DIR)/run_tests
SPOOR_TRACE_FUZZ := $(SPOOR_TRACE_TEST_DIR)/fuzz
SPOOR_TRACE_GEN := $(SPOOR_TRACE_TEST_DIR)/gen
SPOOR_TRACE_CHECK := $(SPOOR_TRACE_TEST_DIR)/check
SPOOR_TRACE_CHECK_TIMELINE := $(SPOOR_TRACE_TEST_DIR)/check_timeline
SPOOR_TRACE_CHECK_STACKS := $(SPOOR_TRACE_TEST_DIR)/check_stacks

$(SPOOR_TRACE_UNIT): $(SPOOR_TRACE_UNIT_OBJS) $(SPOOR_TRACE_LIB_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -o $@ $^ $(SPOOR_TRACE_LIBS)

$(SPOOR_TRACE_FUZZ): $(BUILD)/host/tests/host/runner.c.o \
		$(BUILD)/host/tests/host/spoor_trace/fuzz.c.o $(SPOOR_TRACE_LIB_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -o $@ $^ $(SPOOR_TRACE_LIBS)

$(SPOOR_TRACE_GEN): $(BUILD)/host/tests/host/spoor_trace/gen_main.c.o $(SPOOR_TRACE_LIB_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -o $@ $^ $(SPOOR_TRACE_LIBS)

# DevTools' trace engine, only for the check: npm ci into build/, from the
# checked-in package.json and package-lock.json (make deps installs node).
SPOOR_TRACE_DEVTOOLS_SRC := tests/host/spoor_trace/devtools
SPOOR_TRACE_DEVTOOLS := $(BUILD)/host/devtools
$(SPOOR_TRACE_DEVTOOLS)/installed: $(SPOOR_TRACE_DEVTOOLS_SRC)/package.json \
		$(SPOOR_TRACE_DEVTOOLS_SRC)/package-lock.json
	@command -v npm >/dev/null || { echo "npm is not installed: run make deps" >&2; exit 1; }
	@mkdir -p $(dir $@)
	cp $^ $(dir $@)
	cd $(dir $@) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

# The system tests put a trace the machine saved through the same checks.
system-test-needs: $(SPOOR_TRACE_DEVTOOLS)/installed

# A wrapper that runs the script on the tool and the generator just built.
$(SPOOR_TRACE_CHECK): tests/host/spoor_trace/check_converters.py $(SPOOR_TRACE) $(SPOOR_TRACE_GEN) \
		$(SPOOR_TRACE_DEVTOOLS)/installed
	@mkdir -p $(dir $@)
	printf '#!/bin/sh\nexec %s %s %s %s %s\n' '$(PYTHON)' '$<' '$(SPOOR_TRACE)' \
		'$(SPOOR_TRACE_GEN)' '$(SPOOR_TRACE_DEVTOOLS)/node_modules' > $@
	chmod +x $@

$(SPOOR_TRACE_CHECK_TIMELINE): tests/host/spoor_trace/check_timeline.py $(SPOOR_TRACE) \
		$(SPOOR_TRACE_GEN)
	@mkdir -p $(dir $@)
	printf '#!/bin/sh\nexec %s %s %s %s\n' '$(PYTHON)' '$<' '$(SPOOR_TRACE)' \
		'$(SPOOR_TRACE_GEN)' > $@
	chmod +x $@

$(SPOOR_TRACE_CHECK_STACKS): tests/host/spoor_trace/check_stacks.py $(SPOOR_TRACE) \
		$(SPOOR_TRACE_GEN)
	@mkdir -p $(dir $@)
	printf '#!/bin/sh\nexec %s %s %s %s\n' '$(PYTHON)' '$<' '$(SPOOR_TRACE)' \
		'$(SPOOR_TRACE_GEN)' > $@
	chmod +x $@

$(SPOOR_TRACE_TEST_DIR)/check_pprof: tests/host/spoor_trace/check_pprof.py \
		tests/host/spoor_trace/check_stacks.py $(SPOOR_TRACE) $(SPOOR_TRACE_GEN)
	@mkdir -p $(dir $@)
	printf '#!/bin/sh\nexec %s %s %s %s\n' '$(PYTHON)' '$<' '$(SPOOR_TRACE)' \
		'$(SPOOR_TRACE_GEN)' > $@
	chmod +x $@

# libtracecmd and libtraceevent read the trace.dat back (Debian libtracecmd-dev,
# libtraceevent-dev, libtracefs-dev: pkg-config finds them).
SPOOR_TRACE_READ_TRACEDAT := $(SPOOR_TRACE_TEST_DIR)/read_tracedat
SPOOR_TRACE_CHECK_TRACEDAT := $(SPOOR_TRACE_TEST_DIR)/check_tracedat
$(SPOOR_TRACE_READ_TRACEDAT): tests/host/spoor_trace/read_tracedat.c
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) $(shell pkg-config --cflags libtracecmd) -o $@ $< \
		$(shell pkg-config --libs libtracecmd)

# Every subcommand's FILTERS against the text's, and the text's against the script's own filter.
$(SPOOR_TRACE_TEST_DIR)/check_filters: tests/host/spoor_trace/check_filters.py \
		tests/host/spoor_trace/check_converters.py tests/host/spoor_trace/check_tracedat.py \
		$(SPOOR_TRACE) $(SPOOR_TRACE_GEN) $(SPOOR_TRACE_READ_TRACEDAT)
	@mkdir -p $(dir $@)
	printf '#!/bin/sh\nexec %s %s %s %s %s\n' '$(PYTHON)' '$<' '$(SPOOR_TRACE)' \
		'$(SPOOR_TRACE_GEN)' '$(SPOOR_TRACE_READ_TRACEDAT)' > $@
	chmod +x $@

$(SPOOR_TRACE_CHECK_TRACEDAT): tests/host/spoor_trace/check_tracedat.py $(SPOOR_TRACE) \
		$(SPOOR_TRACE_GEN) $(SPOOR_TRACE_READ_TRACEDAT)
	@mkdir -p $(dir $@)
	printf '#!/bin/sh\nexec %s %s %s %s %s\n' '$(PYTHON)' '$<' '$(SPOOR_TRACE)' \
		'$(SPOOR_TRACE_GEN)' '$(SPOOR_TRACE_READ_TRACEDAT)' > $@
	chmod +x $@

# The system tests read a saved trace back through libtracecmd too.
system-test-needs: $(SPOOR_TRACE_READ_TRACEDAT)

HOST_EXTRA_TESTS += $(SPOOR_TRACE_UNIT) $(SPOOR_TRACE_FUZZ) $(SPOOR_TRACE_CHECK) \
	$(SPOOR_TRACE_CHECK_TIMELINE) $(SPOOR_TRACE_CHECK_STACKS) $(SPOOR_TRACE_CHECK_TRACEDAT) \
	$(SPOOR_TRACE_TEST_DIR)/check_pprof $(SPOOR_TRACE_TEST_DIR)/check_filters

-include $(SPOOR_TRACE_LIB_OBJS:.o=.d) $(SPOOR_TRACE_UNIT_OBJS:.o=.d) \
	$(BUILD)/host/tests/host/spoor_trace/fuzz.c.d $(BUILD)/host/tests/host/spoor_trace/gen_main.c.d
