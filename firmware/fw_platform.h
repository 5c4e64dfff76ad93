/* firmware/fw_platform.h - what fw_test.c needs from the bare-metal platform (fw_cm4.c, fw_rv32.c).
 *
 * Each image has its own startup code and linker script (cm4.ld, rv32.ld), no libc (fw_mem.c supplies the mem*
 * functions) and talks to the outside world through semihosting only: text out (SYS_WRITE0), the command line
 * (SYS_GET_CMDLINE) and the exit status (SYS_EXIT). Instructions are counted with a free-running counter:
 *   Cortex-M4 (QEMU mps2-an386, -icount shift=0): SysTick on the processor clock (25 MHz); with shift=0 the guest
 *              runs one instruction per virtual ns, so one SysTick count = 40 instructions. fw_ticks() extends the
 *              24-bit down-counter to 64 bits (it is read far more often than once per 2^24 counts).
 *   RV32 (QEMU virt, -icount shift=0): the minstret/minstreth CSRs, one count per instruction.
 * fw_test.c calibrates the counter at startup against a loop of known length and converts with the measured ratio.
 */
#ifndef FW_PLATFORM_H
#define FW_PLATFORM_H
#include <stddef.h>
#include <stdint.h>

/* set by each platform file */
extern const char fw_target[];  /* "cortex-m4", "rv32" */
extern const char fw_variant[]; /* "default", "strict-align" */

void fw_platform_init(void);                 /* starts the counter; the strict variant turns the alignment trap on */
void fw_puts(const char *s);                 /* NUL-terminated text out (semihosting SYS_WRITE0: QEMU's stderr) */
void fw_exit(int code) __attribute__((noreturn)); /* 0: QEMU exits 0; anything else: QEMU exits nonzero */
int fw_cmdline(char *buf, size_t cap);       /* the semihosting command line (QEMU -semihosting-config arg=...) */
void fw_count_loop(uint32_t n);              /* exactly 2 * n + a few instructions (calibration) */
uint32_t fw_count_loop_insns(uint32_t n);    /* ... how many exactly */
int fw_main(void);                           /* fw_test.c */

/* linker-script symbols (cm4.ld, rv32.ld) */
extern uint8_t __flash_start[], __flash_end[];         /* .text + .rodata + .data's load image */
extern uint8_t __text_start[], __text_end[], __rodata_start[], __rodata_end[];
extern uint8_t __core_text_start[], __core_text_end[]; /* the core's functions (.text.mrc_*) */
extern uint8_t __data_start[], __data_end[], __data_load[], __bss_start[], __bss_end[];
extern uint8_t __stack_bottom[], __stack_top[];
extern uint8_t __sram_start[], __sram_end[];
extern uint8_t __host_start[], __host_end[];         /* "host memory": the payload buffers, outside SRAM */

#define FW_STACK_PAINT 0xC5C5C5C5u

/* ---- the instruction counter -------------------------------------------------------------------------------- */
typedef struct fw_clock { uint64_t base; uint32_t last; } fw_clock;
extern fw_clock fw_clk;

#if defined(__arm__)
#define FW_SYST_CVR (*(volatile uint32_t *)0xE000E018u)
__attribute__((always_inline)) static inline uint64_t fw_ticks(void) { /* SysTick counts down from 0xFFFFFF */
    uint32_t v = FW_SYST_CVR;
    if (v > fw_clk.last) fw_clk.base += 0x1000000u; /* it wrapped */
    fw_clk.last = v;
    return fw_clk.base + (0xFFFFFFu - v);
}
#elif defined(__riscv)
/* csrr without -march=..._zicsr (Debian's multilibs are plain rv32imac; binutils 2.40 wants Zicsr named) */
#define FW_CSRR(rd, csr) ".option push\n\t.option arch, +zicsr\n\tcsrr " rd ", " csr "\n\t.option pop"
__attribute__((always_inline)) static inline uint64_t fw_ticks(void) {
    uint32_t hi, lo, hi2;
    do {
        __asm__ volatile(FW_CSRR("%0", "minstreth") : "=r"(hi));
        __asm__ volatile(FW_CSRR("%0", "minstret") : "=r"(lo));
        __asm__ volatile(FW_CSRR("%0", "minstreth") : "=r"(hi2));
    } while (hi != hi2);
    return (uint64_t)hi << 32 | lo;
}
#else
#error "fw_platform.h: a Cortex-M or RV32 target"
#endif

static inline uintptr_t fw_sp(void) {
    uintptr_t sp;
#if defined(__arm__)
    __asm__ volatile("mov %0, sp" : "=r"(sp));
#else
    __asm__ volatile("mv %0, sp" : "=r"(sp));
#endif
    return sp;
}

/* fw_mem.c: a copy of at least FW_BIG_COPY bytes made while fw_copy_watch is nonzero (fw_test.c sets it to the
 * category of the core call it is timing, plus one) is timed apart, in fw_copy_ticks[fw_copy_watch - 1]: that is
 * the payload placement inside mrc_endpoint_recv, which fw_test.c reports separately from the core's own work */
#define FW_BIG_COPY 1024u
void *memcpy(void *restrict d, const void *restrict s, size_t n);
void *memmove(void *d, const void *s, size_t n);
void *memset(void *d, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
#define FW_COPY_KINDS 8
extern volatile unsigned fw_copy_watch;
extern uint64_t fw_copy_ticks[FW_COPY_KINDS], fw_copy_calls[FW_COPY_KINDS];

#endif /* FW_PLATFORM_H */
