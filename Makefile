# open MRC - build, test and check targets. GNU make, no configure step. Outputs go to build/.
#
#   make amalgamate    write mrc.h from the layered sources in src/ (tools/amalgamate): edit src/, never mrc.h
#   make src-check     mrc.h is what src/ gives (tools/amalgamate --check) and src/ is layered: no upward include or
#                      call, no use of another layer's private functions, every source compiles alone
#                      (tools/layer_check); part of make test
#   make test          the quick gate (about 1.5 min on 2 cores from a fresh clone): builds what it needs in parallel
#                      (JOBS, default nproc), then runs, in parallel with their output kept together: the sources'
#                      checks (src-check), the simulator's quick scenarios against sim/golden (sim-quick), the fuzz
#                      corpora and regression inputs replayed under ASan + UBSan (fuzz-replay), the test suite with
#                      every mrc_endpoint_recv/poll_tx call checked against the general code (fast-check-suite, in
#                      two halves), examples/hello.c built and run (hello), the README and header snippets compiled
#                      and the README's numbers checked (docs-check), the MRC_STATIC build (static), the UDP
#                      adapter's own test (udp-test); last, the strict build of the test suite runs (last line:
#                      "N passed, N failed")
#   make check         everything: the long suites CI runs - asan, cxx, test-trace, freestanding, size, demo, demo-sim,
#                      sim-quick-asan, fast-check-sim, fuzz-short (libFuzzer runs), fuzz-fast-check, udp-smoke,
#                      udp-asan, frame-test (+ Scapy), frame-test-asan, ports-test, dissector-test, test-be, test-32,
#                      firmware-test - then make test (its last line is the runner's)
#   make help          this list
#   make install       PREFIX (/usr/local) and DESTDIR: include/mrc.h, bin/mrc_perf, share/man/man1/mrc_perf.1,
#                      share/pkgconfig/mrc.pc, lib/wireshark/plugins/mrc.lua (WIRESHARK_PLUGINDIR), the LICENSE,
#                      README and CHANGELOG in share/doc/mrc; make uninstall removes them; make install-test installs
#                      into a scratch DESTDIR and checks it (pkg-config, a program built against it; part of make test)
#   make perf-report-test, make perf-cli-test   mrc_perf's report figures and its perftest interface (make test)
#   make hello         examples/hello.c: two endpoints, an in-memory lossy wire, one Write-with-Immediate
#   make demo          the main job: mrc_perf server and client over loopback UDP, 8 planes, one plane black-holed
#                      mid-run (built-in impairment: no root, no hardware); about 5 s; leaves build/demo.pcap
#   make dissector-test  tools/wireshark/mrc.lua under tshark: every field of captures from the generator, the
#                      simulator and mrc_perf over UDP compared with the core's decoder; a garbage corpus (no Lua
#                      error, expert info on every malformed packet)
#   make demo-sim      two endpoints over a lossy simulated 8-plane wire, in one process
#   make asan          the test suite under AddressSanitizer + UndefinedBehaviorSanitizer
#   make cxx           the test suite compiled and run as C++11
#   make fast-check    the test suite (fast-check-suite) and sim-quick (fast-check-sim) with every
#                      mrc_endpoint_recv/poll_tx call run twice - general code (mrc_config.fast_path_off), then the
#                      fast paths from the same snapshot - and every byte of state and output compared
#                      (tests/fixtures/mrc_fastcheck.h; fuzz-fast-check does the same under libFuzzer)
#   make freestanding  the core cross-compiled for firmware targets; fails on any undefined symbol but mem* and
#                      compiler helpers, and on a 64-bit division on a per-packet path (tools/div_check.py, for
#                      Cortex-M4 and RV32)
#   make size          first the core as firmware builds it (arm-none-eabi-gcc -Os, Cortex-M4, with and without
#                      MRC_NO_STRINGS: .text against the 48 KB target, the 30 largest functions, .text per layer of
#                      src/; tools/size_gcc.sh), then text/data/bss per firmware target (clang -Os),
#                      sizeof(mrc_endpoint) and sizeof(mrc_conn) per config, what a QP costs per in-flight PSN, tracked
#                      PSN, EV, WR, immediate (tools/size_breakdown.sh), and last make firmware-size when present
#   make bench         instructions per 4 KiB data packet by phase (callgrind; the core linked as its own unit),
#                      reconciled every run with callgrind over the API calls alone, the scaling table, the targets,
#                      x86-64 beside the firmware figures (make firmware-bench, when present), ns per packet against
#                      a 4 KiB memcpy; JSON in build/bench/bench.json (bench/README.md); never in make test
#   make test-be       the test suite and the frame codec's tests for s390x (64-bit big-endian) under qemu-user
#   make test-32       the same for i686 (32-bit, x87 float); both install their cross compiler when root
#   make firmware-test the core bare-metal under QEMU: Cortex-M4, Cortex-M4 with the alignment trap, RV32 (a lossy
#                      transfer checked byte for byte, instructions per data packet); firmware-bench, firmware-size
#                      (firmware/README.md)
#
# Variables: CC, CXX, CLANG, LLVM_NM, LLVM_SIZE, SEED (exported as MRC_TEST_SEED), TEST_ARGS (e.g. "-t sack"),
# JOBS (parallel jobs of make test's and make check's builds; default: nproc).

CC        ?= cc
CXX       ?= c++
CLANG     ?= clang
LLVM_NM   ?= llvm-nm
LLVM_SIZE ?= llvm-size
LLVM_OBJDUMP ?= llvm-objdump
B         := build

WARN := -Wall -Wextra -Wpedantic -Wconversion -Wsign-conversion -Wshadow -Wcast-align -Wstrict-prototypes \
        -Wmissing-prototypes -Wundef -Wvla -Wswitch-enum -Wdouble-promotion -Werror
CSTD     := -std=c99
CFLAGS_T := $(CSTD) $(WARN) -O2 -g
ASANFL   := $(CSTD) $(WARN) -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=undefined \
            -fno-omit-frame-pointer -DMRC_CHECK_INVARIANTS
CXXFL    := -x c++ -std=c++11 -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Werror -O2 -g

CORE     := mrc.h

# the fast-path checker's build (tests/fixtures/mrc_fastcheck.h; docs/PROTOCOL.md P22): zeroed locals keep struct
# padding equal in both runs of a call (clang 14 wants the extra flag)
FCFL := -DMRC_FASTCHECK $(shell printf '' | $(CC) -x c -ftrivial-auto-var-init=zero -c - -o /dev/null 2>/dev/null \
          && echo -ftrivial-auto-var-init=zero || echo -ftrivial-auto-var-init=zero \
          -enable-trivial-auto-var-init-zero-knowing-it-will-be-removed-from-clang)

ifdef SEED
export MRC_TEST_SEED := $(SEED)
endif

# make test and make check build with JOBS parallel jobs, unless make already runs with -j
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
SUBJ = $(if $(filter -j%,$(MAKEFLAGS)),,-j$(JOBS))

.PHONY: all test test-parts test-research test-trace test-variants asan cxx fast-check fast-check-suite fast-check-sim fc-half-1 fc-half-2 freestanding size \
        demo demo-sim check check-build clean bench bench-mech-test hello docs-check static dissector-test amalgamate src-check
all: $(B)/mrc_test $(B)/demo $(B)/mrc_perf $(B)/hello

$(B):
	@mkdir -p $(B)

# ---- the test suite --------------------------------------------------------------------------------------------------
# mrc_test.c (the runner, the registry of the modules, the implementation unit of mrc.h) and tests/*.c (one
# translation unit per module, plus the helpers tests/util.c and tests/harness.c; tests/test.h says how they fit).
# Each build of the suite compiles every unit into its own object directory, so make -j compiles them in parallel and
# a changed module recompiles alone: $(call TEST_BUILD,objects dir,compiler and flags,binary,link command).
TEST_SRCS  := mrc_test.c $(sort $(wildcard tests/*.c))
TEST_UNITS := $(basename $(notdir $(TEST_SRCS)))
TEST_HDRS  := tests/test.h tests/fixtures/mrc_wire.h tests/fixtures/mrc_fastcheck.h sim/mrc_sim.h $(CORE)
define TEST_BUILD
$(B)/$(1)/mrc_test.o: mrc_test.c $(TEST_HDRS)
	@mkdir -p $$(@D)
	$(2) -c -o $$@ mrc_test.c
$(B)/$(1)/%.o: tests/%.c $(TEST_HDRS)
	@mkdir -p $$(@D)
	$(2) -c -o $$@ $$<
$(B)/$(3): $(TEST_UNITS:%=$(B)/$(1)/%.o)
	$(4) -o $$@ $$^
endef
$(eval $(call TEST_BUILD,test,$(CC) $(CFLAGS_T),mrc_test,$(CC) $(CFLAGS_T)))
$(eval $(call TEST_BUILD,test-asan,$(CC) $(ASANFL),mrc_test_asan,$(CC) $(ASANFL)))
$(eval $(call TEST_BUILD,test-cxx,$(CXX) $(CXXFL),mrc_test_cxx,$(CXX)))
$(eval $(call TEST_BUILD,test-fc,$(CC) $(CFLAGS_T) $(FCFL),mrc_test_fc,$(CC) $(CFLAGS_T) $(FCFL)))
# the trace build (MRC_ENABLE_TRACE: the numeric trace hook is called): every test; bu_sack_run also checks what the
# hook sees of the QP during a burst's runs (make check)
$(eval $(call TEST_BUILD,test-trace,$(CC) $(CFLAGS_T) -DMRC_ENABLE_TRACE,mrc_test_trace,$(CC) $(CFLAGS_T)))
# the research build (MRC_RESEARCH: mrc_config.research's knobs exist): every test, those of the research knobs too
$(eval $(call TEST_BUILD,test-research,$(CC) $(CFLAGS_T) -DMRC_RESEARCH,mrc_test_research,$(CC) $(CFLAGS_T)))

# ---- the sources: src/ generates mrc.h; its layering (src/README.md) ---------------------------------------------
amalgamate:
	tools/amalgamate

src-check:
	tools/amalgamate --check
	CC="$(CC)" tools/layer_check
	@tools/amalgamate --self-test
	@out=$$(CC="$(CC)" tools/layer_check --self-test) || { echo "$$out"; exit 1; }; echo "$$out" | tail -1

# make test: one parallel make builds and runs the parts (-Otarget: each part's output stays together), then the
# strict suite runs last, so the last line is its "N passed, N failed"
test:
	@$(MAKE) --no-print-directory $(SUBJ) -Otarget test-parts
	./$(B)/mrc_test $(TEST_ARGS)

test-parts: fc-half-1 fc-half-2 $(B)/mrc_test src-check sim-quick fuzz-replay hello docs-check static test-research \
            test-variants bench-mech-test \
            perf-report-test perf-cli-test install-test udp-test

# the suite built with MRC_RESEARCH: the tests of the research knobs (P24, P29, P32, P33 set away from their
# defaults) run here; the default build (the final run of make test) compiles them out
test-research: $(B)/mrc_test_research
	./$(B)/mrc_test_research $(TEST_ARGS)
test-trace: $(B)/mrc_test_trace
	./$(B)/mrc_test_trace $(TEST_ARGS)

# the core as a firmware builds it for size (MRC_NO_STATS, MRC_NO_CHECK): the suite reads counters and asserts
# mrc_conn_check, so tests/variants/no_stats.c checks what the two macros promise on its own
$(B)/no_stats: tests/variants/no_stats.c tests/fixtures/mrc_wire.h $(CORE) | $(B)
	$(CC) $(CFLAGS_T) -o $@ tests/variants/no_stats.c

test-variants: $(B)/no_stats
	./$(B)/no_stats

asan: $(B)/mrc_test_asan
	ASAN_OPTIONS=abort_on_error=1:detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ./$(B)/mrc_test_asan $(TEST_ARGS)

cxx: $(B)/mrc_test_cxx
	./$(B)/mrc_test_cxx $(TEST_ARGS)

# ---- the embedding surface: the first example, the documentation's code and numbers, MRC_STATIC ------------------
$(B)/hello: examples/hello.c $(CORE) | $(B)
	$(CC) $(CSTD) $(WARN) -O2 -I. -o $@ examples/hello.c

hello: $(B)/hello
	./$(B)/hello

docs-check: $(B)/mrc_pcap | $(B)
	CC="$(CC)" CXX="$(CXX)" SIZE_SMALL="$(SIZE_SMALL)" tools/docs_check.sh $(B)

# every API function static to one unit that calls almost none of them: must build clean as C99 and C++11 (and with
# MRC_FAST_PATH 0: a user may turn the fast paths off)
$(B)/static/unit.c: | $(B)
	@mkdir -p $(B)/static
	@printf '#define MRC_STATIC\n#define MRC_IMPLEMENTATION\n#include "mrc.h"\nint main(void) { return mrc_err_is_fatal(0); }\n' > $@

static: $(B)/static/unit.c
	$(CC) $(CSTD) $(WARN) -I. -c $(B)/static/unit.c -o $(B)/static/unit.o
	$(CXX) -x c++ -std=c++11 -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Werror -I. -c $(B)/static/unit.c \
	  -o $(B)/static/unit_cxx.o
	$(CC) $(CSTD) $(WARN) -DMRC_FAST_PATH=0 -I. -c $(B)/static/unit.c -o $(B)/static/unit_nofast.o
	$(CC) $(CSTD) $(WARN) $(FW_BUILD) -I. -c $(B)/static/unit.c -o $(B)/static/unit_fw.o
	$(CXX) -x c++ -std=c++11 -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Werror $(FW_BUILD) -I. \
	  -c $(B)/static/unit.c -o $(B)/static/unit_fw_cxx.o
	@echo "static: MRC_STATIC builds clean (C99 and C++11, -Werror; and without the fast paths, MRC_FAST_PATH 0;" \
	  "and as the firmware build, $(FW_BUILD))"

# ---- the Wireshark dissector (tools/wireshark/mrc.lua) ------------------------------------------------------------
# build/mrc_pcap: captures of every packet kind, garbage, and the core's decoder as the oracle (tools/mrc_pcap.c)
$(B)/mrc_pcap: tools/mrc_pcap.c $(CORE) ports/common/mrc_frame.h | $(B)
	$(CC) $(CSTD) $(WARN) -O2 -g -o $@ tools/mrc_pcap.c

dissector-test: $(B)/mrc_pcap $(B)/sim/mrc_simrun $(B)/mrc_perf
	B=$(B) tools/dissector_test.sh

# ---- benchmarks (timing: never part of make test) ----
# make bench-mech-test: the rules of make bench's table by mechanism (bench/mechanisms.py) on this mrc.h's functions
bench-mech-test:
	@if command -v python3 >/dev/null 2>&1; then python3 bench/mechanisms.py --self-test; \
	else echo "bench-mech-test: SKIP: needs python3"; fi

# make bench: instructions per data packet (callgrind; installs valgrind when root and missing, else a SKIP line)
# and their reconciliation, the scaling table, the targets, the firmware figures beside them (make -s firmware-bench
# when this Makefile has it), the bursts, the targets' streams by mechanism (bench/mechanisms.py), ns per data packet
# (median of 7 wall-clock runs), the EV-pick micro-bench; JSON lines in
# build/bench/bench.json (bench/README.md). The large build carries 1,024 QPs, 1,024 WRs and a 4,096-PSN window.
BENCH_LARGE := -DMRC_MAX_CONNS=1024 -DMRC_MAX_SQ=1024 -DMRC_MAX_RQ=1024 -DMRC_MAX_INFLIGHT=4096
BENCH_CG    := $(if $(wildcard /usr/include/valgrind/callgrind.h),-DBENCH_CALLGRIND)

$(B)/bench_ev_pick: bench/ev_pick.c $(CORE) | $(B)
	$(CC) $(CSTD) -O2 -g -I. -o $@ bench/ev_pick.c

# The core is its own translation unit (bench/core.c, no LTO): the harness's phase wrappers can only call its API
# functions, never carry inlined core code, so a wrapper's inclusive Ir minus its own is exactly the core's.
$(B)/bench/core.o: bench/core.c $(CORE) | $(B)
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(WARN) -O2 -g -fno-lto -I. -c -o $@ bench/core.c

$(B)/bench/core_large.o: bench/core.c $(CORE) | $(B)
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(WARN) -O2 -g -fno-lto -I. $(BENCH_LARGE) -c -o $@ bench/core.c

$(B)/mrc_bench: bench/mrc_bench.c $(B)/bench/core.o $(CORE) | $(B)
	$(CC) $(CSTD) $(WARN) -O2 -g -fno-lto -I. $(BENCH_CG) -o $@ bench/mrc_bench.c $(B)/bench/core.o

$(B)/mrc_bench_large: bench/mrc_bench.c $(B)/bench/core_large.o $(CORE) | $(B)
	$(CC) $(CSTD) $(WARN) -O2 -g -fno-lto -I. $(BENCH_CG) $(BENCH_LARGE) -o $@ bench/mrc_bench.c \
	  $(B)/bench/core_large.o

# P37 bursts beside single calls (bench/burst.c)
$(B)/bench_burst: bench/burst.c $(B)/bench/core.o $(CORE) | $(B)
	$(CC) $(CSTD) $(WARN) -O2 -g -fno-lto -I. -o $@ bench/burst.c $(B)/bench/core.o

BENCH_BINS := $(B)/mrc_bench $(B)/mrc_bench_large $(B)/demo $(B)/bench_ev_pick $(B)/bench_burst
bench:
	@$(MAKE) --no-print-directory $(SUBJ) $(BENCH_BINS)
	CC="$(CC)" B=$(B) bench/bench.sh

# ---- demo --------------------------------------------------------------------------------------------------------
$(B)/demo: examples/demo.c $(CORE) tests/fixtures/mrc_wire.h | $(B)
	$(CC) $(CSTD) $(WARN) -O2 -g -o $@ examples/demo.c

demo: demo-udp

demo-sim: $(B)/demo
	./$(B)/demo $(DEMO_ARGS)

# ---- firmware targets ----------------------------------------------------------------------------------------------
# A 16-bit target has 64 KB of address space: it gets the capacities a small NIC controller would use (one word,
# ':'-separated, since the list below is split on spaces).
FS_SMALL16 := -DMRC_MAX_PORTS=2:-DMRC_MAX_CONNS=2:-DMRC_MAX_EVS=16:-DMRC_MAX_INFLIGHT=64:-DMRC_MAX_MPR_UNITS=1:-DMRC_MAX_WIMM=4:-DMRC_MAX_SQ=4:-DMRC_MAX_RQ=4:-DMRC_MAX_EV_PROFILES=1:-DMRC_MAX_EV_FMTS=1:-DMRC_EV_BYTES=4:-DMRC_NOTIFYQ_LEN=4:-DMRC_EPQ_LEN=4:-DMRC_MAX_EP_REQS=2:-DMRC_MAX_PROBES=2:-DMRC_CTLQ_LEN=4:-DMRC_MAX_MRS=2
# clang triple | extra flags. Cortex-M0+ and M4, Cortex-M4F (hard float: the one built with the float NSCC entry
# points; the others are FPU-less and build with MRC_NO_FLOAT), RV32IMC and RV64, big-endian ARMv7-M, 16-bit MSP430.
FS_TARGETS := thumbv6m-none-eabi:-mcpu=cortex-m0plus \
              thumbv7em-none-eabi:-mcpu=cortex-m4 \
              thumbv7em-none-eabihf:-mcpu=cortex-m4:-mfpu=fpv4-sp-d16:-mfloat-abi=hard:-DMRC_FLOAT_OK \
              riscv32-unknown-elf:-march=rv32imc:-mabi=ilp32 \
              riscv64-unknown-elf:-march=rv64imac:-mabi=lp64 \
              armebv7m-none-eabi: \
              msp430-none-elf:$(FS_SMALL16)
# Undefined symbols a freestanding object may need: the mem* functions (and their ARM EABI aliases) and the
# compiler's integer helpers (64-bit shifts, multiplies and divisions on 32- and 16-bit targets).
FS_ALLOW := ^(memcpy|memset|memmove|memcmp|__aeabi_mem(cpy|set|move|clr)[48]?|__aeabi_(l|ui|ul|i)(div|divmod|mod|mul|lsl|lsr|asr|cmp|ucmp)|__(u)?(div|mod|mul)[sd]i3|__(ashl|ashr|lshr)[sd]i3|__mspabi_[a-z0-9]+|__(u)?cmpdi2)$$
FS_FLAGS := -std=c99 -ffreestanding -nostdlib -fno-builtin-printf -Os -Wall -Wextra -Wpedantic -Wconversion \
            -Wsign-conversion -Wshadow -Wcast-align -Wundef -Wvla -Werror

$(B)/fs/impl.c: | $(B)
	@mkdir -p $(B)/fs
	@printf '#define MRC_IMPLEMENTATION\n#include "../../mrc.h"\n' > $@

freestanding: $(B)/fs/impl.c
	@command -v $(CLANG) >/dev/null && command -v $(LLVM_NM) >/dev/null || \
	  { echo "make freestanding needs $(CLANG) and $(LLVM_NM) (Debian: apt-get install clang llvm)"; exit 1; }
	@set -e; fail=0; for spec in $(FS_TARGETS); do \
	  t=$${spec%%:*}; fl=$$(echo "$${spec#*:}" | tr ':' ' '); \
	  for v in "" "-DMRC_NO_STRINGS" "$$(echo '$(FW_BUILD)' | tr ' ' ',')"; do \
	    o=$(B)/fs/$$t$$v.o; \
	    nf="-DMRC_NO_FLOAT"; case "$$fl" in *MRC_FLOAT_OK*) nf="";; esac; \
	    $(CLANG) --target=$$t $$fl $(FS_FLAGS) $$nf $$(echo "$$v" | tr ',' ' ') -c $(B)/fs/impl.c -o $$o; \
	    bad=$$($(LLVM_NM) -u $$o | awk '{print $$NF}' | grep -Ev '$(FS_ALLOW)' || true); \
	    if [ -n "$$bad" ]; then echo "FAIL $$t $$v: undefined symbols outside the allowlist: $$bad"; fail=1; \
	    else echo "ok   $$t $$v: undefined = $$($(LLVM_NM) -u $$o | awk '{print $$NF}' | tr '\n' ' ')"; fi; \
	  done; \
	done; \
	mkdir -p $(B)/fs/div; \
	for spec in thumbv7em-none-eabi:-mcpu=cortex-m4 riscv32-unknown-elf:-march=rv32imc:-mabi=ilp32; do \
	  t=$${spec%%:*}; fl=$$(echo "$${spec#*:}" | tr ':' ' '); o=$(B)/fs/div/$$t.o; \
	  $(CLANG) --target=$$t $$fl $(FS_FLAGS) -DMRC_NO_FLOAT -ffunction-sections -c $(B)/fs/impl.c -o $$o; \
	  printf '%s ' "$$t:"; python3 tools/div_check.py $(LLVM_OBJDUMP) $$o || fail=1; \
	done; exit $$fail

# ---- sizes -------------------------------------------------------------------------------------------------------
SIZE_SMALL := -DMRC_MAX_PORTS=4 -DMRC_MAX_CONNS=4 -DMRC_MAX_EVS=32 -DMRC_MAX_INFLIGHT=256 -DMRC_MAX_MPR_UNITS=2 \
              -DMRC_MAX_WIMM=16 -DMRC_MAX_SQ=16 -DMRC_MAX_RQ=16 -DMRC_CTLQ_LEN=8 -DMRC_MAX_MRS=4
SIZE_LARGE := -DMRC_MAX_CONNS=256 -DMRC_MAX_INFLIGHT=4096 -DMRC_MAX_MPR_UNITS=32 -DMRC_MAX_WIMM=256 \
              -DMRC_MAX_SQ=256 -DMRC_MAX_RQ=256

# size-gcc before freestanding: make size prints the GCC figures first (prerequisites run left to right without -j)
.PHONY: size-gcc
size-gcc:
	@B=$(B) FW_BUILD="$(FW_BUILD)" tools/size_gcc.sh

size: size-gcc freestanding
	@echo "== code size of the core (clang -Os, freestanding, text/data/bss in bytes)"
	@$(LLVM_SIZE) $(B)/fs/*.o
	@echo "== memory the application allocates (host build)"
	@$(CC) -std=c99 -O1 -o $(B)/sizes_default tools/mrc_sizes.c && ./$(B)/sizes_default
	@$(CC) -std=c99 -O1 -DSIZES_NAME='"small"' $(SIZE_SMALL) -o $(B)/sizes_small tools/mrc_sizes.c && \
	  ./$(B)/sizes_small
	@$(CC) -std=c99 -O1 -DSIZES_NAME='"large"' $(SIZE_LARGE) -o $(B)/sizes_large tools/mrc_sizes.c && \
	  ./$(B)/sizes_large
	@SIZE_SMALL="$(SIZE_SMALL)" B=$(B) tools/size_breakdown.sh $(CC)
	@if $(MAKE) --no-print-directory -n firmware-size >/dev/null 2>&1; then \
	  $(MAKE) -s --no-print-directory firmware-size; \
	else echo "== per-packet path size (make firmware-size): SKIP: this Makefile has no firmware-size target" \
	  "(firmware/ is not in this tree)"; fi

# ---- subsystem makefiles (each adds its own targets) ------------------------------------------------------------
include sim/sim.mk
include fuzz/fuzz.mk
include firmware/fw.mk
# ---- ports ---------------------------------------------------------------------------------------------------------
#   make ports         every port adapter this machine can build: UDP always, DPDK and ibverbs when pkg-config finds
#                      them (a SKIP line otherwise); mrc_perf gets --dpdk / --ibv with them
#   make ports-test    the ports' own tests that need no root and no device: DPDK over net_ring (dpdk-ring-test),
#                      ibverbs unit tests (ibv-test); part of make check
#   make dpdk-test     DPDK over net_af_packet on veths in two network namespaces, a plane black-holed (root)
# DPDK and ibverbs ports (each defines DPDK_OK / IBV_OK from pkg-config; empty when the library is missing)
-include ports/dpdk/dpdk.mk
-include ports/ibverbs/ibv.mk
include ports/common/common.mk
include ports/udp/udp.mk
include ocp/ocp.mk

.PHONY: ports ports-test
ports: $(B)/mrc_perf $(B)/mrc_frame_test $(if $(DPDK_OK),$(B)/mrc_dpdk_test) $(if $(IBV_OK),$(B)/mrc_ibv_test)
	@echo "ports: udp built (build/mrc_perf)"
	@if [ -n "$(DPDK_OK)" ]; then echo "ports: dpdk built (mrc_perf --dpdk, build/mrc_dpdk_test)"; \
	 else echo "ports: dpdk: SKIP: pkg-config finds no libdpdk (apt-get install dpdk-dev libdpdk-dev)"; fi
	@if [ -n "$(IBV_OK)" ]; then echo "ports: ibverbs built (mrc_perf --ibv, build/mrc_ibv_test)"; \
	 else echo "ports: ibverbs: SKIP: pkg-config finds no libibverbs (apt-get install libibverbs-dev)"; fi

ports-test: $(if $(wildcard ports/dpdk/dpdk.mk),dpdk-ring-test) $(if $(wildcard ports/ibverbs/ibv.mk),ibv-test)

# ---- everything ---------------------------------------------------------------------------------------------------
.PHONY: test-be test-32
test-be:
	B=$(B) tools/cross_test.sh be

test-32:
	B=$(B) tools/cross_test.sh 32

# make check: what CI runs. Its builds first, in parallel (JOBS); then the long suites one after another; then make
# test, whose last line is the runner's.
CHECK_BINS  := $(B)/ocp/ocp_test $(B)/ocp/ocp_test_v100 $(B)/ocp-asan/ocp_test $(B)/ocp-asan/ocp_test_v100 \
               $(B)/mrc_test_asan $(B)/mrc_test_cxx $(B)/demo $(B)/mrc_perf $(B)/mrc_perf_asan $(B)/mrc_pcap \
               $(B)/sim/mrc_simrun $(B)/sim/mrc_simrun_asan $(B)/sim/mrc_simrun_fc $(B)/mrc_frame_test \
               $(B)/mrc_frame_test_asan $(B)/mrc_test_trace $(if $(DPDK_OK),$(B)/mrc_dpdk_test) $(if $(IBV_OK),$(B)/mrc_ibv_test)
CHECK_PARTS := asan cxx test-trace freestanding size demo demo-sim sim-quick-asan fast-check-sim fuzz-short fuzz-fast-check \
               ocp-test ocp-test-asan udp-smoke udp-asan frame-test frame-test-asan ports-test dissector-test test-be test-32 firmware-test
check-build: $(CHECK_BINS)
check:
	@$(MAKE) --no-print-directory $(SUBJ) check-build
	@$(MAKE) --no-print-directory $(CHECK_PARTS)
	@$(MAKE) --no-print-directory test

clean:
	rm -rf $(B)

# ---- release: make help, make install (PREFIX, DESTDIR), make uninstall, make install-test -------------------------
.PHONY: help install uninstall install-test
help:
	@sed -n '1,/^$$/{s/^# \{0,1\}//;p}' Makefile

PREFIX  ?= /usr/local
DESTDIR ?=
WIRESHARK_PLUGINDIR ?= $(PREFIX)/lib/wireshark/plugins
MRC_VERSION = $(shell sed -n 's/^\#define MRC_VERSION_STRING "\(.*\)"/\1/p' mrc.h)

install: $(B)/mrc_perf
	install -d $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
	  $(DESTDIR)$(PREFIX)/share/pkgconfig $(DESTDIR)$(WIRESHARK_PLUGINDIR) $(DESTDIR)$(PREFIX)/share/doc/mrc
	install -m 644 mrc.h $(DESTDIR)$(PREFIX)/include/mrc.h
	install -m 755 $(B)/mrc_perf $(DESTDIR)$(PREFIX)/bin/mrc_perf
	install -m 644 docs/mrc_perf.1 $(DESTDIR)$(PREFIX)/share/man/man1/mrc_perf.1
	@printf 'prefix=%s\nincludedir=$${prefix}/include\n\nName: mrc\nDescription: %s\nVersion: %s\nCflags: -I$${includedir}\n' \
	  '$(PREFIX)' 'open MRC: the single-header Multipath Reliable Connection (RDMA) transport core; define MRC_IMPLEMENTATION in one file' \
	  '$(MRC_VERSION)' > $(DESTDIR)$(PREFIX)/share/pkgconfig/mrc.pc
	@echo "wrote $(DESTDIR)$(PREFIX)/share/pkgconfig/mrc.pc (prefix=$(PREFIX))"
	install -m 644 tools/wireshark/mrc.lua $(DESTDIR)$(WIRESHARK_PLUGINDIR)/mrc.lua
	install -m 644 LICENSE README.md CHANGELOG.md $(DESTDIR)$(PREFIX)/share/doc/mrc/

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/include/mrc.h $(DESTDIR)$(PREFIX)/bin/mrc_perf \
	  $(DESTDIR)$(PREFIX)/share/man/man1/mrc_perf.1 $(DESTDIR)$(PREFIX)/share/pkgconfig/mrc.pc \
	  $(DESTDIR)$(WIRESHARK_PLUGINDIR)/mrc.lua
	rm -rf $(DESTDIR)$(PREFIX)/share/doc/mrc

install-test: $(B)/mrc_perf
	CC="$(CC)" B=$(B) tools/install_test.sh

# ---- fast paths: per-call differential check (tests/fixtures/mrc_fastcheck.h; docs/PROTOCOL.md P22) --------------
# make test runs the suite under the checker in two halves at once (-t LIST and -x LIST: together, every test once;
# about 35 s of CPU each); make fast-check-suite runs it whole (TEST_ARGS apply), make fast-check-sim runs sim-quick
FC_HALF := -t live_ -t sc_random_config
$(B)/sim/mrc_simrun_fc: $(SIM_DEPS) tests/fixtures/mrc_fastcheck.h | $(B)/sim
	$(CC) $(CSTD) $(WARN) -O2 -g $(SIM_CAPS) $(FCFL) -o $@ sim/mrc_simrun.c
fast-check: fast-check-suite fast-check-sim
fast-check-suite: $(B)/mrc_test_fc
	./$(B)/mrc_test_fc $(TEST_ARGS)
fast-check-sim: $(B)/sim/mrc_simrun_fc
	./$(B)/sim/mrc_simrun_fc --suite quick --seed 1 --golden sim/golden --out $(B)/sim/quick-fc $(SIM_ARGS)
fc-half-1: $(B)/mrc_test_fc
	./$(B)/mrc_test_fc $(FC_HALF)
fc-half-2: $(B)/mrc_test_fc
	./$(B)/mrc_test_fc $(subst -t ,-x ,$(FC_HALF))
