# ports/common/common.mk - the shared frame codec (ports/common/mrc_frame.h) and its tests. Included from the
# top-level Makefile, which provides B, CC, CSTD and WARN.
#
#   make frame-test        unit tests: CRC/ICRC against the core, round trips of every EV format, every malformed case
#                          counted, mutation fuzz, transfers whose every packet crosses the codec (last line N passed,
#                          N failed); also runs frame-scapy
#   make frame-test-asan   the same under AddressSanitizer + UndefinedBehaviorSanitizer
#   make frame-scapy       the ICRC and headers checked by an independent implementation: Scapy verifies frames the
#                          codec built, the codec parses frames Scapy built (SKIP without python3-scapy)

FRAME_DEPS := ports/common/mrc_frame.h ports/common/mrc_frame_test.c mrc.h
SCAPY_PY   ?= /usr/bin/python3

.PHONY: frame-test frame-test-asan frame-scapy

$(B)/mrc_frame_test: $(FRAME_DEPS) | $(B)
	$(CC) $(CSTD) $(WARN) -O2 -g -o $@ ports/common/mrc_frame_test.c

$(B)/mrc_frame_test_asan: $(FRAME_DEPS) | $(B)
	$(CC) $(CSTD) $(WARN) -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=undefined -o $@ \
	  ports/common/mrc_frame_test.c

frame-test: $(B)/mrc_frame_test frame-scapy
	./$(B)/mrc_frame_test

frame-test-asan: $(B)/mrc_frame_test_asan
	./$(B)/mrc_frame_test_asan

frame-scapy: $(B)/mrc_frame_test
	tools/frame_scapy.sh $(B)/mrc_frame_test $(SCAPY_PY)

# instructions per frame of the codec (callgrind, deterministic): header build, ICRC, parse with its ICRC check,
# for a 4 KiB data packet and a SACK-sized control packet (tools/frame_cost.sh)
# (built without inlining of the codec's API functions into each other, so callgrind can attribute them)
.PHONY: frame-cost
$(B)/mrc_frame_cost: $(FRAME_DEPS) | $(B)
	$(CC) $(CSTD) $(WARN) -O2 -g -fno-inline-functions -fno-inline-functions-called-once -o $@ \
	  ports/common/mrc_frame_test.c

frame-cost: $(B)/mrc_frame_cost
	tools/frame_cost.sh $(B)/mrc_frame_cost
