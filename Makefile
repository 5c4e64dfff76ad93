# open MRC - build, test and check targets. GNU make, no configure step. Outputs go to build/.
#
#   make amalgamate    write mrc.h from the layered sources in src/ (tools/amalgamate): edit src/, never mrc.h
#   make src-check     mrc.h is what src/ gives (tools/amalgamate --check) and src/ is layered: no upward include or
#                      call, no use of another layer's private functions, every source compiles alone
#                      (tools/layer_check); part of make test
#   make test          the sources' checks (src-check), the simulator's quick scenarios (sim-quick), the fuzz smoke (fuzz-smoke: corpora replayed,
#                      short libFuzzer runs), the fast paths checked against the general code per call (fast-check,
#                      fuzz-fast-check), the UDP port's loopback smoke (udp-smoke), examples/hello.c built and
#                      run (hello), the README and header snippets compiled and the README's numbers checked
#                      (docs-check), the MRC_STATIC build (static), the frame codec's tests with the Scapy check
#                      (frame-test), the ports' device-free tests (ports-test: DPDK over net_ring, ibverbs unit
#                      tests; each skips with a line without its library), the Wireshark dissector checked by
#                      tshark against the core's decoder (dissector-test; a SKIP line without tshark), then a strict
#                      build of the test suite and its run (last line: "N passed, N failed")
#   make hello         examples/hello.c: two endpoints, an in-memory lossy wire, one Write-with-Immediate
#   make demo          the main job: mrc_perf server and client over loopback UDP, 8 planes, one plane black-holed
#                      mid-run (built-in impairment: no root, no hardware); about 5 s; leaves build/demo.pcap
#   make dissector-test  tools/wireshark/mrc.lua under tshark: every field of captures from the generator, the
#                      simulator and mrc_perf over UDP compared with the core's decoder; a garbage corpus (no Lua
#                      error, expert info on every malformed packet)
#   make demo-sim      two endpoints over a lossy simulated 8-plane wire, in one process
#   make asan          the test suite under AddressSanitizer + UndefinedBehaviorSanitizer
#   make cxx           the test suite compiled and run as C++11
#   make fast-check    the test suite and sim-quick with every mrc_endpoint_recv/poll_tx call run twice - general code
#                      (mrc_config.fast_path_off), then the fast paths from the same snapshot - and every byte of state
#                      and output compared (sim/mrc_fastcheck.h; fuzz-fast-check does the same under libFuzzer)
#   make freestanding  the core cross-compiled for firmware targets; fails on any undefined symbol but mem* and
#                      compiler helpers, and on a 64-bit division on a per-packet path (tools/div_check.py, for
#                      Cortex-M4 and RV32)
#   make size          text/data/bss per firmware target, sizeof(mrc_endpoint) and sizeof(mrc_conn) per config,
#                      and what a QP costs per in-flight PSN, tracked PSN, EV, WR, immediate (tools/size_breakdown.sh)
#   make bench         instructions per 4 KiB data packet by phase (callgrind), the scaling table, ns per packet
#                      against a 4 KiB memcpy; JSON in build/bench/bench.json (bench/README.md); never in make test
#   make test-be       the test suite and the frame codec's tests for s390x (64-bit big-endian) under qemu-user
#   make test-32       the same for i686 (32-bit, x87 float); both install their cross compiler when root
#   make check         everything above (what CI runs)
#
# Variables: CC, CXX, CLANG, LLVM_NM, LLVM_SIZE, SEED (exported as MRC_TEST_SEED), TEST_ARGS (e.g. "-t sack").

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
TESTDEPS := mrc_test.c $(wildcard tests/*.inc) $(CORE) sim/mrc_wire.h sim/mrc_sim.h

ifdef SEED
export MRC_TEST_SEED := $(SEED)
endif

.PHONY: all test asan cxx fast-check freestanding size demo demo-sim check clean bench hello docs-check static dissector-test \
        amalgamate src-check
all: $(B)/mrc_test $(B)/demo $(B)/mrc_perf $(B)/hello

$(B):
	@mkdir -p $(B)

# ---- tests -------------------------------------------------------------------------------------------------------
$(B)/mrc_test: $(TESTDEPS) | $(B)
	$(CC) $(CFLAGS_T) -o $@ mrc_test.c

$(B)/mrc_test_asan: $(TESTDEPS) | $(B)
	$(CC) $(ASANFL) -o $@ mrc_test.c

$(B)/mrc_test_cxx: $(TESTDEPS) | $(B)
	$(CXX) $(CXXFL) -o $@ mrc_test.c

# ---- the sources: src/ generates mrc.h; its layering (src/README.md) ---------------------------------------------
amalgamate:
	tools/amalgamate

src-check:
	tools/amalgamate --check
	CC="$(CC)" tools/layer_check
	@tools/amalgamate --self-test
	@out=$$(CC="$(CC)" tools/layer_check --self-test) || { echo "$$out"; exit 1; }; echo "$$out" | tail -1

test: src-check $(B)/mrc_test sim-quick fuzz-smoke fast-check fuzz-fast-check udp-smoke hello docs-check static frame-test ports-test dissector-test
	./$(B)/mrc_test $(TEST_ARGS)

asan: $(B)/mrc_test_asan
	ASAN_OPTIONS=abort_on_error=1:detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ./$(B)/mrc_test_asan $(TEST_ARGS)

cxx: $(B)/mrc_test_cxx
	./$(B)/mrc_test_cxx $(TEST_ARGS)

# ---- the embedding surface: the first example, the documentation's code and numbers, MRC_STATIC ------------------
$(B)/hello: examples/hello.c $(CORE) | $(B)
	$(CC) $(CSTD) $(WARN) -O2 -I. -o $@ examples/hello.c

hello: $(B)/hello
	./$(B)/hello

docs-check: | $(B)
	CC="$(CC)" CXX="$(CXX)" SIZE_SMALL="$(SIZE_SMALL)" tools/docs_check.sh $(B)

# every API function static to one unit that calls almost none of them: must build clean as C99 and C++11
$(B)/static/unit.c: | $(B)
	@mkdir -p $(B)/static
	@printf '#define MRC_STATIC\n#define MRC_IMPLEMENTATION\n#include "mrc.h"\nint main(void) { return mrc_err_is_fatal(0); }\n' > $@

static: $(B)/static/unit.c
	$(CC) $(CSTD) $(WARN) -I. -c $(B)/static/unit.c -o $(B)/static/unit.o
	$(CXX) -x c++ -std=c++11 -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Werror -I. -c $(B)/static/unit.c \
	  -o $(B)/static/unit_cxx.o
	@echo "static: MRC_STATIC builds clean (C99 and C++11, -Werror)"

# ---- the Wireshark dissector (tools/wireshark/mrc.lua) ------------------------------------------------------------
# build/mrc_pcap: captures of every packet kind, garbage, and the core's decoder as the oracle (tools/mrc_pcap.c)
$(B)/mrc_pcap: tools/mrc_pcap.c $(CORE) ports/common/mrc_frame.h | $(B)
	$(CC) $(CSTD) $(WARN) -O2 -g -o $@ tools/mrc_pcap.c

dissector-test: $(B)/mrc_pcap $(B)/sim/mrc_simrun $(B)/mrc_perf
	B=$(B) tools/dissector_test.sh

# ---- benchmarks (timing: never part of make test) ----
# make bench: instructions per data packet (callgrind; installs valgrind when root and missing, else a SKIP line),
# the scaling table, ns per data packet (median of 7 wall-clock runs), the EV-pick micro-bench; JSON lines in
# build/bench/bench.json (bench/README.md). The large build carries 1,024 QPs, 1,024 WRs and a 4,096-PSN window.
BENCH_LARGE := -DMRC_MAX_CONNS=1024 -DMRC_MAX_SQ=1024 -DMRC_MAX_RQ=1024 -DMRC_MAX_INFLIGHT=4096
BENCH_CG    := $(if $(wildcard /usr/include/valgrind/callgrind.h),-DBENCH_CALLGRIND)

$(B)/bench_ev_pick: bench/ev_pick.c $(CORE) | $(B)
	$(CC) $(CSTD) -O2 -g -I. -o $@ bench/ev_pick.c

$(B)/mrc_bench: bench/mrc_bench.c $(CORE) | $(B)
	$(CC) $(CSTD) $(WARN) -O2 -g -I. $(BENCH_CG) -o $@ bench/mrc_bench.c

$(B)/mrc_bench_large: bench/mrc_bench.c $(CORE) | $(B)
	$(CC) $(CSTD) $(WARN) -O2 -g -I. $(BENCH_CG) $(BENCH_LARGE) -o $@ bench/mrc_bench.c

bench: $(B)/mrc_bench $(B)/mrc_bench_large $(B)/demo $(B)/bench_ev_pick
	CC="$(CC)" B=$(B) bench/bench.sh

# ---- demo --------------------------------------------------------------------------------------------------------
$(B)/demo: examples/demo.c $(CORE) sim/mrc_wire.h | $(B)
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
	  for v in "" "-DMRC_NO_STRINGS"; do \
	    o=$(B)/fs/$$t$$v.o; \
	    nf="-DMRC_NO_FLOAT"; case "$$fl" in *MRC_FLOAT_OK*) nf="";; esac; \
	    $(CLANG) --target=$$t $$fl $(FS_FLAGS) $$nf $$v -c $(B)/fs/impl.c -o $$o; \
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

size: freestanding
	@echo "== code size of the core (clang -Os, freestanding, text/data/bss in bytes)"
	@$(LLVM_SIZE) $(B)/fs/*.o
	@echo "== memory the application allocates (host build)"
	@$(CC) -std=c99 -O1 -o $(B)/sizes_default tools/mrc_sizes.c && ./$(B)/sizes_default
	@$(CC) -std=c99 -O1 -DSIZES_NAME='"small"' $(SIZE_SMALL) -o $(B)/sizes_small tools/mrc_sizes.c && \
	  ./$(B)/sizes_small
	@$(CC) -std=c99 -O1 -DSIZES_NAME='"large"' $(SIZE_LARGE) -o $(B)/sizes_large tools/mrc_sizes.c && \
	  ./$(B)/sizes_large
	@SIZE_SMALL="$(SIZE_SMALL)" B=$(B) tools/size_breakdown.sh $(CC)

# ---- subsystem makefiles (each adds its own targets) ------------------------------------------------------------
include sim/sim.mk
include fuzz/fuzz.mk
# ---- ports ---------------------------------------------------------------------------------------------------------
#   make ports         every port adapter this machine can build: UDP always, DPDK and ibverbs when pkg-config finds
#                      them (a SKIP line otherwise); mrc_perf gets --dpdk / --ibv with them
#   make ports-test    the ports' own tests that need no root and no device: DPDK over net_ring (dpdk-ring-test),
#                      ibverbs unit tests (ibv-test); part of make test
#   make dpdk-test     DPDK over net_af_packet on veths in two network namespaces, a plane black-holed (root)
# DPDK and ibverbs ports (each defines DPDK_OK / IBV_OK from pkg-config; empty when the library is missing)
-include ports/dpdk/dpdk.mk
-include ports/ibverbs/ibv.mk
include ports/common/common.mk
include ports/udp/udp.mk

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

check: asan cxx freestanding size demo demo-sim sim-quick-asan udp-asan static frame-test-asan test-be test-32 test

clean:
	rm -rf $(B)

# ---- fast paths: per-call differential check (sim/mrc_fastcheck.h; docs/PROTOCOL.md P22) --------------------------
# (after sim.mk, which defines SIM_DEPS; zeroed locals keep struct padding equal in both runs; clang 14 wants a flag)
FCFL := -DMRC_FASTCHECK $(shell printf '' | $(CC) -x c -ftrivial-auto-var-init=zero -c - -o /dev/null 2>/dev/null \
          && echo -ftrivial-auto-var-init=zero || echo -ftrivial-auto-var-init=zero \
          -enable-trivial-auto-var-init-zero-knowing-it-will-be-removed-from-clang)
$(B)/mrc_test_fc: $(TESTDEPS) sim/mrc_fastcheck.h | $(B)
	$(CC) $(CFLAGS_T) $(FCFL) -o $@ mrc_test.c
$(B)/sim/mrc_simrun_fc: $(SIM_DEPS) sim/mrc_fastcheck.h | $(B)/sim
	$(CC) $(CSTD) $(WARN) -O2 -g $(SIM_CAPS) $(FCFL) -o $@ sim/mrc_simrun.c
fast-check: $(B)/mrc_test_fc $(B)/sim/mrc_simrun_fc
	./$(B)/mrc_test_fc $(TEST_ARGS)
	./$(B)/sim/mrc_simrun_fc --suite quick --seed 1 --golden sim/golden --out $(B)/sim/quick-fc $(SIM_ARGS)
