# ports/udp/udp.mk - the Linux UDP port and mrc_perf (issue 7). Included from the top-level Makefile, which
# provides B (build), CC, CSTD (-std=c99) and WARN (the strict warning set with -Werror).
#
#   make build/mrc_perf   the perftest-style tool (examples/mrc_perf.c + ports/udp/mrc_udp.c)
#   make demo-udp         loopback, 8 planes, one plane black-holed mid-run: goodput before/after, verification (< 15 s)
#   make perf-report-test  the report's figures (BW peak, failover verdict and timeline, retransmission lines, JSON)
#   make perf-cli-test    mrc_perf's perftest flags, refusals, contradictions; its table and JSON on loopback runs
#   make udp-test         the adapter's own test (ports/udp/mrc_udp_test.c, part of make test): an acknowledgement
#                         waiting in a socket when the RTO's deadline passes is read before the timers run
#   make udp-smoke        ~5 s of loopback runs with verification, and the error paths (part of 'make check')
#   make udp-asan         mrc_perf under AddressSanitizer + UndefinedBehaviorSanitizer on a loopback run
#   make test-netns       2 netns, 8 veths, one plane silently dropped by nftables: MRC vs Linux MPTCP (root)
#   make bench-udp        goodput vs a raw UDP blast on the same sockets, then the failover comparison
#   make test-hostile     root: a forging attacker (tools/mrc_attack.c) against live loopback transfers, one per
#                         attack; checks no stall, bit-exact data and the drop counters (~25 s; SKIP when not root)
#
# The adapter and the tool need Linux (recvmmsg/sendmmsg, epoll, timerfd) and _GNU_SOURCE, which they define.

UDP_SRC  := ports/udp/mrc_udp.c
UDP_DEPS := $(UDP_SRC) ports/udp/mrc_udp.h examples/mrc_perf.c mrc.h
UDP_SAN  := -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer

.PHONY: perf-report-test perf-cli-test demo-udp udp-smoke udp-asan test-netns bench-udp test-hostile udp-test

# mrc_perf carries MRC over UDP always, and over DPDK (--dpdk) and ibverbs (--ibv) when those libraries are
# installed (ports/dpdk/dpdk.mk, ports/ibverbs/ibv.mk set DPDK_OK / IBV_OK)
PERF_XFL  :=
PERF_XSRC :=
PERF_XLIB :=
ifeq ($(DPDK_OK)$(wildcard examples/perf_dpdk.inc),1examples/perf_dpdk.inc)
PERF_XFL  += -DMRC_PERF_DPDK $(DPDK_CFLAGS)
PERF_XSRC += $(DPDK_SRC)
PERF_XLIB += $(DPDK_LIBS)
endif
ifeq ($(IBV_OK)$(wildcard examples/perf_ibv.inc),1examples/perf_ibv.inc)
PERF_XFL  += -DMRC_PERF_IBV $(IBV_CFLAGS)
PERF_XSRC += $(IBV_SRC)
PERF_XLIB += $(IBV_LIBS)
endif
PERF_DEPS := $(UDP_DEPS) examples/perf_carrier.h examples/perf_report.h ports/common/mrc_frame.h $(wildcard examples/perf_*.inc) $(PERF_XSRC)

$(B)/mrc_perf: $(PERF_DEPS) | $(B)
	$(CC) $(CSTD) $(WARN) -O2 -g $(PERF_XFL) -o $@ examples/mrc_perf.c $(UDP_SRC) $(PERF_XSRC) $(PERF_XLIB)

# the same with the core's trace hook compiled in (mrc_perf --trace FILE)
$(B)/mrc_perf_trace: $(PERF_DEPS) | $(B)
	$(CC) $(CSTD) $(WARN) -O2 -g -DMRC_ENABLE_TRACE -o $@ examples/mrc_perf.c $(UDP_SRC)

$(B)/mrc_perf_asan: $(PERF_DEPS) | $(B)
	$(CC) $(CSTD) $(WARN) $(UDP_SAN) -DMRC_CHECK_INVARIANTS -o $@ examples/mrc_perf.c $(UDP_SRC)

# the report's figures as functions (examples/perf_report.h) on the cases that once printed wrong numbers, under
# ASan + UBSan; and mrc_perf's perftest command line and its table and JSON on short loopback runs (part of make test)
$(B)/perf_report_test: examples/perf_report_test.c examples/perf_report.h | $(B)
	$(CC) $(CSTD) $(WARN) $(UDP_SAN) -o $@ examples/perf_report_test.c

# the adapter's own test, under ASan + UBSan (loopback, about 5 ms)
$(B)/mrc_udp_test: ports/udp/mrc_udp_test.c $(UDP_SRC) ports/udp/mrc_udp.h mrc.h | $(B)
	$(CC) $(CSTD) $(WARN) $(UDP_SAN) -o $@ ports/udp/mrc_udp_test.c $(UDP_SRC)

udp-test: $(B)/mrc_udp_test
	ASAN_OPTIONS=detect_leaks=1 ./$(B)/mrc_udp_test

perf-report-test: $(B)/perf_report_test
	./$(B)/perf_report_test

perf-cli-test: $(B)/mrc_perf
	tools/perf_cli_test.sh $(B)/mrc_perf

demo-udp: $(B)/mrc_perf
	tools/udp_demo.sh $(B)/mrc_perf

udp-smoke: $(B)/mrc_perf
	tools/udp_smoke.sh $(B)/mrc_perf

udp-asan: $(B)/mrc_perf_asan
	ASAN_OPTIONS=abort_on_error=1:detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  tools/udp_smoke.sh $(B)/mrc_perf_asan --quick

test-netns: $(B)/mrc_perf
	tools/netns_failover.sh $(B)/mrc_perf

bench-udp: $(B)/mrc_perf
	tools/bench_udp.sh $(B)/mrc_perf

# the forging attacker of make test-hostile (tools/mrc_attack.c: sniffs loopback with AF_PACKET, forges with the
# core's own encoders) and the test that runs it against live mrc_perf transfers (root; SKIP otherwise)
$(B)/mrc_attack: tools/mrc_attack.c mrc.h | $(B)
	$(CC) $(CSTD) $(WARN) -O2 -g -I. -o $@ tools/mrc_attack.c

test-hostile: $(B)/mrc_perf $(B)/mrc_attack
	tools/hostile_test.sh $(B)/mrc_perf $(B)/mrc_attack
