# ports/dpdk/dpdk.mk - the DPDK port adapter, its tests and mrc_perf --dpdk. Included from the top-level Makefile,
# which provides B (build), CC, CSTD (-std=c99) and WARN (the strict warning set with -Werror).
#
#   make build/mrc_dpdk_test   the single-process test over net_ring (needs DPDK: apt-get install dpdk-dev libdpdk-dev)
#   make dpdk-ring-test        runs it (deterministic, ~10 s; part of make check when DPDK is installed; a SKIP line
#                              and exit 0 without DPDK, or when the EAL cannot start)
#   make dpdk-ring-asan        the same under AddressSanitizer + UndefinedBehaviorSanitizer
#   make dpdk-test             root: mrc_perf --dpdk between two network namespaces over net_af_packet on 8 veth
#                              pairs: a verified transfer, one plane black-holed by nftables, goodput against the UDP
#                              port and the raw DPDK baseline (tools/dpdk_netns.sh; ~1-2 min; SKIP when it cannot run)
#   make dpdk-bench            copy vs zero-copy over net_ring (mrc_dpdk_test --bench)
#
# DPDK's pkg-config include directories are passed with -isystem so that the strict warnings apply to our code only;
# its other flags (-include rte_config.h -march=corei7) are kept as they are.

DPDK_OK     := $(shell pkg-config --exists libdpdk 2>/dev/null && echo 1)
DPDK_CFLAGS := $(patsubst -I%,-isystem %,$(shell pkg-config --cflags libdpdk 2>/dev/null))
DPDK_LIBS   := $(shell pkg-config --libs libdpdk 2>/dev/null)
DPDK_SRC    := ports/dpdk/mrc_dpdk.c
DPDK_DEPS   := $(DPDK_SRC) ports/dpdk/mrc_dpdk.h ports/common/mrc_frame.h mrc.h
DPDK_SAN    := -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
DPDK_SKIP   := SKIP: DPDK not installed (apt-get install dpdk-dev libdpdk-dev)
# the test uses rte_eth_from_rings (the net_ring PMD's own API)
DPDK_RING_LIB := -lrte_net_ring
# the mrc_perf make dpdk-test runs: ports/udp/udp.mk builds it with -DMRC_PERF_DPDK when DPDK_OK is set
DPDK_PERF   ?= $(B)/mrc_perf

.PHONY: dpdk-ring-test dpdk-ring-asan dpdk-test dpdk-bench

ifeq ($(DPDK_OK),1)
$(B)/mrc_dpdk_test: ports/dpdk/mrc_dpdk_test.c $(DPDK_DEPS) | $(B)
	$(CC) $(CSTD) $(WARN) -O2 -g $(DPDK_CFLAGS) -o $@ ports/dpdk/mrc_dpdk_test.c $(DPDK_SRC) \
	  $(DPDK_LIBS) $(DPDK_RING_LIB)

$(B)/mrc_dpdk_test_asan: ports/dpdk/mrc_dpdk_test.c $(DPDK_DEPS) | $(B)
	$(CC) $(CSTD) $(WARN) $(DPDK_SAN) -DMRC_CHECK_INVARIANTS $(DPDK_CFLAGS) -o $@ ports/dpdk/mrc_dpdk_test.c \
	  $(DPDK_SRC) $(DPDK_LIBS) $(DPDK_RING_LIB)

dpdk-ring-test: $(B)/mrc_dpdk_test
	./$(B)/mrc_dpdk_test

# DPDK's own libraries are not instrumented; LeakSanitizer would report the EAL's allocations, so leaks are off
dpdk-ring-asan: $(B)/mrc_dpdk_test_asan
	ASAN_OPTIONS=abort_on_error=1:detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ./$(B)/mrc_dpdk_test_asan

dpdk-bench: $(B)/mrc_dpdk_test
	./$(B)/mrc_dpdk_test --bench 256

dpdk-test: $(DPDK_PERF) $(B)/mrc_pcap
	BUILD=$(B) tools/dpdk_netns.sh $(DPDK_PERF)
else
dpdk-ring-test dpdk-ring-asan dpdk-bench:
	@echo "$@: $(DPDK_SKIP)"

dpdk-test:
	@echo "dpdk-test: $(DPDK_SKIP)"
endif
