# firmware/fw.mk - the core bare-metal on emulated Cortex-M4 and RV32 (firmware/README.md); included by the Makefile.
#
#   make firmware-test   builds three images (Cortex-M4; Cortex-M4 with -mno-unaligned-access and the alignment trap
#                        on; RV32IMAC), runs each under QEMU with a timeout and fails on FAIL, a fault or a timeout;
#                        a missing cross compiler or QEMU is a SKIP line, not a failure
#   make firmware-bench  the same images, only their JSON lines on stdout (make bench shows them)
#   make firmware-size   the per-packet code path on Cortex-M4 (the core's functions a QEMU execution trace finds in
#                        the steady state of a clean transfer, their .text summed) and the core's whole .text
#
# Variables: FW_ARM_CC, FW_RV_CC, FW_QEMU_ARM, FW_QEMU_RV, FW_TIMEOUT (seconds per image run, default 60).

FW_ARM_CC   ?= arm-none-eabi-gcc
FW_RV_CC    ?= riscv64-unknown-elf-gcc
FW_QEMU_ARM ?= qemu-system-arm
FW_QEMU_RV  ?= qemu-system-riscv32
FW_TIMEOUT  ?= 60
FW_B        := $(B)/fw

# the firmware build: no strings, no statistics counters, no invariant checker (docs/EVALUATION.md#issue36-nov30c)
FW_BUILD  := -DMRC_NO_STRINGS -DMRC_NO_STATS -DMRC_NO_CHECK
FW_WARN   := -std=c99 -Wall -Wextra -Wpedantic -Wconversion -Wsign-conversion -Wshadow -Wcast-align -Wundef -Wvla \
             -Wstrict-prototypes -Wmissing-prototypes -Werror
FW_CFLAGS := -Os -g -fdebug-prefix-map=$(CURDIR)=. -ffreestanding -nostdlib -ffunction-sections -fdata-sections \
             -DMRC_NO_FLOAT $(FW_BUILD) \
             $(FW_WARN)
# the platform files and our mem* functions: no loop turned into a call to memcpy/memset
FW_PLATFL := -fno-tree-loop-distribute-patterns
FW_CM4    := -mcpu=cortex-m4 -mthumb
FW_RV32   := -march=rv32imac -mabi=ilp32
FW_DEPS   := firmware/fw_test.c firmware/fw_config.h firmware/fw_platform.h firmware/fw.mk $(CORE)

# $(call FW_IMAGE,name,compiler,target flags,platform source,linker script): $(FW_B)/name.elf
define FW_IMAGE
$(FW_B)/$(1)/fw_test.o: $(FW_DEPS)
	@mkdir -p $$(@D)
	$(2) $(3) $(FW_CFLAGS) -c firmware/fw_test.c -o $$@
$(FW_B)/$(1)/fw_mem.o: firmware/fw_mem.c firmware/fw_platform.h
	@mkdir -p $$(@D)
	$(2) $(3) $(FW_CFLAGS) $(FW_PLATFL) -c firmware/fw_mem.c -o $$@
$(FW_B)/$(1)/fw_plat.o: firmware/$(4) firmware/fw_platform.h
	@mkdir -p $$(@D)
	$(2) $(3) $(FW_CFLAGS) $(FW_PLATFL) -c firmware/$(4) -o $$@
$(FW_B)/$(1).elf: $(FW_B)/$(1)/fw_test.o $(FW_B)/$(1)/fw_mem.o $(FW_B)/$(1)/fw_plat.o firmware/$(5)
	$(2) $(3) -nostdlib -T firmware/$(5) -Wl,--gc-sections -Wl,-Map=$(FW_B)/$(1).map -o $$@ \
	  $(FW_B)/$(1)/fw_test.o $(FW_B)/$(1)/fw_mem.o $(FW_B)/$(1)/fw_plat.o -lgcc
endef
$(eval $(call FW_IMAGE,cm4,$(FW_ARM_CC),$(FW_CM4),fw_cm4.c,cm4.ld))
$(eval $(call FW_IMAGE,cm4-strict,$(FW_ARM_CC),$(FW_CM4) -mno-unaligned-access -DFW_STRICT_ALIGN,fw_cm4.c,cm4.ld))
$(eval $(call FW_IMAGE,rv32,$(FW_RV_CC),$(FW_RV32),fw_rv32.c,rv32.ld))

# the core alone, for its whole .text (firmware-size): default and firmware capacities, with and without strings,
# and the firmware build
FW_CORE_FL := $(FW_CM4) -Os -ffreestanding -DMRC_NO_FLOAT $(FW_WARN) -I.
$(FW_B)/core/impl.c:
	@mkdir -p $(@D)
	@printf '#define MRC_IMPLEMENTATION\n#include "mrc.h"\n' > $@
$(FW_B)/core/core.o: $(FW_B)/core/impl.c $(CORE) firmware/fw_config.h firmware/fw.mk
	$(FW_ARM_CC) $(FW_CORE_FL) $(FW_BUILD) -include firmware/fw_config.h -c $< -o $@
$(FW_B)/core/core-default-fw.o: $(FW_B)/core/impl.c $(CORE) firmware/fw.mk
	$(FW_ARM_CC) $(FW_CORE_FL) $(FW_BUILD) -c $< -o $@
$(FW_B)/core/core-strings.o: $(FW_B)/core/impl.c $(CORE) firmware/fw_config.h firmware/fw.mk
	$(FW_ARM_CC) $(FW_CORE_FL) -include firmware/fw_config.h -c $< -o $@
$(FW_B)/core/core-default.o: $(FW_B)/core/impl.c $(CORE) firmware/fw.mk
	$(FW_ARM_CC) $(FW_CORE_FL) -DMRC_NO_STRINGS -c $< -o $@
$(FW_B)/core/core-default-strings.o: $(FW_B)/core/impl.c $(CORE) firmware/fw.mk
	$(FW_ARM_CC) $(FW_CORE_FL) -c $< -o $@

.PHONY: firmware-test firmware-bench firmware-size fw-images-cm4 fw-images-rv32 fw-size-objs
fw-images-cm4: $(FW_B)/cm4.elf $(FW_B)/cm4-strict.elf
fw-images-rv32: $(FW_B)/rv32.elf
fw-size-objs: $(FW_B)/cm4.elf $(FW_B)/core/core.o $(FW_B)/core/core-strings.o $(FW_B)/core/core-default.o \
              $(FW_B)/core/core-default-strings.o $(FW_B)/core/core-default-fw.o

FW_RUN = MAKE="$(MAKE)" B="$(B)" FW_ARM_CC="$(FW_ARM_CC)" FW_RV_CC="$(FW_RV_CC)" FW_QEMU_ARM="$(FW_QEMU_ARM)" \
         FW_QEMU_RV="$(FW_QEMU_RV)" FW_TIMEOUT="$(FW_TIMEOUT)" JOBS="$(JOBS)" firmware/fw_run.sh

firmware-test:
	@$(FW_RUN) test

firmware-bench:
	@$(FW_RUN) bench

firmware-size:
	@$(FW_RUN) size
