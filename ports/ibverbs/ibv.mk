# ports/ibverbs/ibv.mk - the ibverbs port (raw Ethernet QPs, UD fallback) and its tests. Included from the top-level
# Makefile, which provides B (build), CC, CSTD (-std=c99) and WARN (the strict warning set with -Werror).
#
#   make build/mrc_ibv_test   the unit tests + the device test (needs libibverbs-dev: Debian 12's rdma-core 44)
#   make ibv-test             build and run them (last line "N passed, N failed"); the device test prints a
#                             "skip - device test: ..." line where ibv_get_device_list finds no RDMA device
#   make ibv-test-asan        the same under AddressSanitizer + UndefinedBehaviorSanitizer
#
# IBV_OK, IBV_CFLAGS, IBV_LIBS and IBV_SRC tell ports/udp/udp.mk to build mrc_perf with --ibv (examples/perf_ibv.inc).
# Without libibverbs-dev the targets print a SKIP line and succeed.

IBV_OK     := $(shell pkg-config --exists libibverbs 2>/dev/null && echo 1)
IBV_CFLAGS := $(patsubst -I%,-isystem %,$(shell pkg-config --cflags libibverbs 2>/dev/null))
IBV_LIBS   := $(shell pkg-config --libs libibverbs 2>/dev/null)
IBV_SRC    := ports/ibverbs/mrc_ibv.c
IBV_DEPS   := $(IBV_SRC) ports/ibverbs/mrc_ibv.h ports/ibverbs/mrc_ibv_test.c ports/common/mrc_frame.h mrc.h
IBV_SAN    := -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer

.PHONY: ibv-test ibv-test-asan

ifeq ($(IBV_OK),1)
$(B)/mrc_ibv_test: $(IBV_DEPS) | $(B)
	$(CC) $(CSTD) $(WARN) -O2 -g $(IBV_CFLAGS) -o $@ ports/ibverbs/mrc_ibv_test.c $(IBV_SRC) $(IBV_LIBS)

$(B)/mrc_ibv_test_asan: $(IBV_DEPS) | $(B)
	$(CC) $(CSTD) $(WARN) $(IBV_SAN) $(IBV_CFLAGS) -o $@ ports/ibverbs/mrc_ibv_test.c $(IBV_SRC) $(IBV_LIBS)

ibv-test: $(B)/mrc_ibv_test
	./$(B)/mrc_ibv_test

ibv-test-asan: $(B)/mrc_ibv_test_asan
	ASAN_OPTIONS=abort_on_error=1:detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ./$(B)/mrc_ibv_test_asan
else
ibv-test ibv-test-asan:
	@echo "$@: SKIP: libibverbs not installed (apt-get install libibverbs-dev)"
endif
