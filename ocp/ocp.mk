# ocp/ocp.mk - OCP's MRC application and controller API over the core (issue 37). Included from the top-level
# Makefile, which provides B and CC.
#
#   make ocp             build/ocp/lib_mrc.so, lib_mrc.a, and the stand-in build/ocp/libibverbs.so.1 (soft devices)
#   make ocp-test        our test program, written only against ocp/include: errors, controller, two-process
#                        bandwidth/latency sweep with checked data and immediates (last line "N passed, N failed")
#   make ocp-test-asan   the same, everything built with AddressSanitizer + UndefinedBehaviorSanitizer
#   make ocp-example OCP_SRC=<checkout of OCP's repository>
#                        builds OCP's examples/benchmark unmodified with its own makefile against ocp/include and
#                        lib_mrc.so, and runs it between two processes on soft devices (skips without OCP_SRC)

OCP_B      := $(B)/ocp
OCP_CFLAGS := -std=c11 -Wall -Wextra -Werror -O2 -g -fPIC -pthread
OCP_SAN    := -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
OCP_HDRS   := $(wildcard ocp/include/*.h) ocp/bridge.h ocp/lib_mrc_int.h ocp/core_int.h
OCP_PORT   ?= $$((20000 + $$$$ % 20000))
OCP_SYS_IBV := $(shell pkg-config --libs libibverbs 2>/dev/null || echo -libverbs)
OCP_OBJS   := core_bridge.o core_calls.o core_ibv.o lib_mrc.o lib_mrc_ctl.o lib_mrc_verbs.o
OCP_IBV_SRC := ports/ibverbs/mrc_ibv.c ports/ibverbs/mrc_ibv.h ports/common/mrc_frame.h

.PHONY: ocp ocp-test ocp-test-asan ocp-example ocp-headers

ocp: $(OCP_B)/lib_mrc.so $(OCP_B)/lib_mrc.a $(OCP_B)/libibverbs.so.1 $(OCP_B)/ocp_test $(OCP_B)/ocp_test_v100 \
     $(OCP_B)/ocp_test_static $(OCP_B)/ocp_unit $(OCP_B)-nic/ocp_test

# $(1): output dir, $(2): extra flags
define OCP_RULES
$(1)/libibverbs.so.1: ocp/softverbs/softverbs.c ocp/softverbs/softverbs.map
	@mkdir -p $(1)
	$$(CC) $$(OCP_CFLAGS) $(2) -shared -Wl,-soname,libibverbs.so.1 -Wl,--version-script=ocp/softverbs/softverbs.map \
	    -o $$@ ocp/softverbs/softverbs.c
$(1)/core_bridge.o: ocp/core_bridge.c ocp/bridge.h ocp/core_int.h mrc.h
	@mkdir -p $(1)
	$$(CC) $$(OCP_CFLAGS) $(2) -c -o $$@ ocp/core_bridge.c
$(1)/core_calls.o: ocp/core_calls.c ocp/bridge.h ocp/core_int.h mrc.h
	@mkdir -p $(1)
	$$(CC) $$(OCP_CFLAGS) $(2) -c -o $$@ ocp/core_calls.c
$(1)/lib_mrc.o: ocp/lib_mrc.c $$(OCP_HDRS)
	@mkdir -p $(1)
	$$(CC) $$(OCP_CFLAGS) $(2) -Iocp/include -c -o $$@ ocp/lib_mrc.c
$(1)/lib_mrc_ctl.o: ocp/lib_mrc_ctl.c $$(OCP_HDRS)
	@mkdir -p $(1)
	$$(CC) $$(OCP_CFLAGS) $(2) -Iocp/include -c -o $$@ ocp/lib_mrc_ctl.c
$(1)/lib_mrc_verbs.o: ocp/lib_mrc_verbs.c $$(OCP_HDRS)
	@mkdir -p $(1)
	$$(CC) $$(OCP_CFLAGS) $(2) -Iocp/include -c -o $$@ ocp/lib_mrc_verbs.c
$(1)/core_ibv.o: ocp/core_ibv.c ocp/bridge.h ocp/core_int.h mrc.h $$(OCP_IBV_SRC)
	@mkdir -p $(1)
	$$(CC) $$(OCP_CFLAGS) $(2) -c -o $$@ ocp/core_ibv.c
$(1)/lib_mrc.so: $$(addprefix $(1)/,$$(OCP_OBJS)) $(1)/libibverbs.so.1 ocp/lib_mrc.map
	$$(CC) $(2) -shared -pthread -Wl,-soname,lib_mrc.so -Wl,-rpath,'$$$$ORIGIN' -Wl,--version-script=ocp/lib_mrc.map \
	    -o $$@ $$(addprefix $(1)/,$$(OCP_OBJS)) -L$(1) -l:libibverbs.so.1 -ldl
$(1)/lib_mrc.a: $$(addprefix $(1)/,$$(OCP_OBJS))
	rm -f $$@ && ar rcs $$@ $$^
$(1)/ocp_test: ocp/tests/ocp_test.c $(wildcard ocp/include/*.h) $(1)/lib_mrc.so
	$$(CC) -std=gnu11 -Wall -Wextra -Werror -O2 -g $(2) -Iocp/include -o $$@ ocp/tests/ocp_test.c \
	    $(1)/lib_mrc.so -Wl,-rpath,'$$$$ORIGIN' -L$(1) -l:libibverbs.so.1
$(1)/ocp_test_static: ocp/tests/ocp_test.c $(wildcard ocp/include/*.h) $(1)/lib_mrc.a $(1)/libibverbs.so.1
	$$(CC) -std=gnu11 -Wall -Wextra -Werror -O2 -g $(2) -Iocp/include -o $$@ ocp/tests/ocp_test.c \
	    $(1)/lib_mrc.a -pthread -ldl -Wl,-rpath,'$$$$ORIGIN' -L$(1) -l:libibverbs.so.1
# the NIC path without a NIC: lib_mrc's objects with the real libibverbs (ocp/tests/ocp_unit.c)
$(1)/ocp_unit: ocp/tests/ocp_unit.c $$(addprefix $(1)/,$$(OCP_OBJS)) $$(OCP_HDRS)
	$$(CC) -std=gnu11 -Wall -Wextra -Werror -O2 -g $(2) -Iocp/include -rdynamic -o $$@ ocp/tests/ocp_unit.c \
	    $$(addprefix $(1)/,$$(OCP_OBJS)) $$(OCP_SYS_IBV) -ldl -pthread
# ocp_test linked as OCP's makefile links a program (lib_mrc.so, then libibverbs), in a directory of its own with
# lib_mrc.so and no soft libibverbs beside it: the real libibverbs is the one loaded (its test "nic")
$(1)-nic/lib_mrc.so: $(1)/lib_mrc.so
	@mkdir -p $(1)-nic
	cp $$< $$@
$(1)-nic/ocp_test: ocp/tests/ocp_test.c $(wildcard ocp/include/*.h) $(1)-nic/lib_mrc.so
	$$(CC) -std=gnu11 -Wall -Wextra -Werror -O2 -g $(2) -Iocp/include -o $$@ ocp/tests/ocp_test.c \
	    $(1)-nic/lib_mrc.so -Wl,-rpath,'$$$$ORIGIN' $$(OCP_SYS_IBV)
$(1)/ocp_test_v100: ocp/tests/ocp_test.c $(wildcard ocp/include/*.h) $(1)/lib_mrc.so
	$$(CC) -std=gnu11 -Wall -Wextra -Werror -O2 -g $(2) -Iocp/include -o $$@ ocp/tests/ocp_test.c \
	    -DMRC_API_VER_USED='MRC_API_VER(1, 0, 0)' -DMRC_CTL_API_VER_USED='MRC_CTL_API_VER(1, 0, 0)' \
	    $(1)/lib_mrc.so -Wl,-rpath,'$$$$ORIGIN' -L$(1) -l:libibverbs.so.1
endef

$(eval $(call OCP_RULES,$(OCP_B),))
$(eval $(call OCP_RULES,$(OCP_B)-asan,$(OCP_SAN)))

# soft devices of 4 planes on UDP ports of this run's own, so parallel runs do not meet
OCP_DEVS = MRC_SOFT_DEVICES="mrcudp0=127.0.0.1:$$p/4,mrcudp1=127.0.0.2:$$p/4"
# the black-holed plane: devices of 8 planes, as issue 37 has it (goodput keeps 7/8)
OCP_DEVS8 = MRC_SOFT_DEVICES="mrcudp0=127.0.0.1:$$p/8,mrcudp1=127.0.0.2:$$p/8"
ocp-test: $(OCP_B)/ocp_test $(OCP_B)/ocp_test_v100 $(OCP_B)/ocp_test_static $(OCP_B)/ocp_unit $(OCP_B)-nic/ocp_test \
          ocp-headers
	@p=$(OCP_PORT); $(OCP_B)/ocp_unit && $(OCP_B)-nic/ocp_test nic && \
	    $(OCP_DEVS) MRC_OCP_MR=lib $(OCP_B)/ocp_test_static errors && $(OCP_DEVS) MRC_OCP_MR=lib $(OCP_B)/ocp_test bw && \
	    $(OCP_DEVS) $(OCP_B)/ocp_test_static errors && $(OCP_DEVS) $(OCP_B)/ocp_test_v100 v100 layout && \
	    $(OCP_DEVS8) $(OCP_B)/ocp_test blackhole && $(OCP_DEVS) $(OCP_B)/ocp_test

# the headers alone, as C99 with -Wpedantic and as C++11 (network plugins are often C++)
ocp-headers:
	@for h in mrc.h mrc_ctl.h; do \
	    $(CC) -std=c99 -Wall -Wextra -Wpedantic -Werror -fsyntax-only -Iocp/include -x c ocp/include/$$h && \
	    $(CXX) -std=c++11 -Wall -Wextra -Werror -fsyntax-only -Iocp/include -x c++ ocp/include/$$h || exit 1; \
	done; echo "ocp-headers: mrc.h and mrc_ctl.h compile alone as C99 and C++11"


ocp-test-asan: $(OCP_B)-asan/ocp_test $(OCP_B)-asan/ocp_test_v100 $(OCP_B)-asan/ocp_unit
	@p=$(OCP_PORT); export ASAN_OPTIONS=detect_leaks=1; $(OCP_B)-asan/ocp_unit && \
	    $(OCP_DEVS) MRC_OCP_MR=lib $(OCP_B)-asan/ocp_test errors && \
	    $(OCP_DEVS) $(OCP_B)-asan/ocp_test_v100 v100 layout && \
	    $(OCP_DEVS8) $(OCP_B)-asan/ocp_test blackhole && $(OCP_DEVS) $(OCP_B)-asan/ocp_test

ocp-example: $(OCP_B)/lib_mrc.so
	@sh ocp/tests/ocp_example.sh "$(OCP_SRC)" "$(OCP_B)"
