/* firmware/fw_rv32.c - RV32 (rv32imac) startup for QEMU's virt board, machine mode: entry (_start at 0x80000000,
 * where virt's reset code jumps with -bios none), trap handler, semihosting, minstret as the instruction counter
 * (fw_platform.h). Linker script: rv32.ld.
 *
 * Output and exit go through RISC-V semihosting (the slli/ebreak/srai sequence, uncompressed and within one page;
 * QEMU needs -semihosting-config enable=on,target=native). A trap (misaligned access, illegal instruction, access
 * fault) prints mcause, mepc and mtval and exits nonzero. */
#include "fw_platform.h"

const char fw_target[] = "rv32";
const char fw_variant[] = "default";
fw_clock fw_clk;

enum { SYS_WRITE0 = 0x04, SYS_GET_CMDLINE = 0x15, SYS_EXIT = 0x18 };
enum { ADP_Stopped_ApplicationExit = 0x20026, ADP_Stopped_RunTimeErrorUnknown = 0x20023 };

__attribute__((noinline)) static long semihost(long op, const void *arg) {
    register long a0 __asm__("a0") = op;
    register const void *a1 __asm__("a1") = arg;
    __asm__ volatile(".option push\n\t"
                     ".option norvc\n\t"
                     ".balign 16\n\t"
                     "slli x0, x0, 0x1f\n\t"
                     "ebreak\n\t"
                     "srai x0, x0, 7\n\t"
                     ".option pop"
                     : "+r"(a0)
                     : "r"(a1)
                     : "memory");
    return a0;
}

void fw_puts(const char *s) { semihost(SYS_WRITE0, s); }

void fw_exit(int code) {
    semihost(SYS_EXIT, (const void *)(uintptr_t)(code == 0 ? ADP_Stopped_ApplicationExit
                                                           : ADP_Stopped_RunTimeErrorUnknown));
    for (;;) {}
}

int fw_cmdline(char *buf, size_t cap) {
    struct { char *buf; long len; } b;
    b.buf = buf;
    b.len = (long)cap;
    if (cap == 0) return -1;
    buf[0] = 0;
    return semihost(SYS_GET_CMDLINE, &b) == 0 ? 0 : -1;
}

void fw_platform_init(void) { /* minstret runs from reset */ }

/* 2 instructions per iteration: addi + bnez */
void fw_count_loop(uint32_t n) {
    __asm__ volatile("1: addi %0, %0, -1\n\tbnez %0, 1b" : "+r"(n));
}
uint32_t fw_count_loop_insns(uint32_t n) { return 2u * n; }

/* ---- traps ------------------------------------------------------------------------------------------------------ */
static void put_hex(char *p, uint32_t v) {
    int i;
    for (i = 7; i >= 0; i--, v >>= 4) p[i] = "0123456789abcdef"[v & 15u];
}

void fw_trap_report(void);
void fw_trap_report(void) {
    static char line[160];
    static const char *const causes[] = {"instruction address misaligned", "instruction access fault",
                                         "illegal instruction", "breakpoint", "load address misaligned",
                                         "load access fault", "store address misaligned", "store access fault"};
    uint32_t mcause, mepc, mtval;
    char *p = line;
    const char *s;
    __asm__ volatile(FW_CSRR("%0", "mcause") : "=r"(mcause));
    __asm__ volatile(FW_CSRR("%0", "mepc") : "=r"(mepc));
    __asm__ volatile(FW_CSRR("%0", "mtval") : "=r"(mtval));
    for (s = "FAULT: trap mcause=0x"; *s;) *p++ = *s++;
    put_hex(p, mcause); p += 8;
    for (s = " pc=0x"; *s;) *p++ = *s++;
    put_hex(p, mepc); p += 8;
    for (s = " mtval=0x"; *s;) *p++ = *s++;
    put_hex(p, mtval); p += 8;
    if (mcause < 8) {
        *p++ = ' '; *p++ = '(';
        for (s = causes[mcause]; *s;) *p++ = *s++;
        *p++ = ')';
    }
    *p++ = '\n';
    *p = 0;
    fw_puts(line);
    fw_exit(3);
}

/* ---- reset ------------------------------------------------------------------------------------------------------ */
void fw_reset(void);
void fw_reset(void) {
    uint8_t *d = __data_start, *s = __data_load;
    uint32_t *w, *lim;
    while (d < __data_end) *d++ = *s++;
    for (d = __bss_start; d < __bss_end;) *d++ = 0;
    lim = (uint32_t *)(void *)((fw_sp() - 64u) & ~(uintptr_t)3u);
    for (w = (uint32_t *)(void *)__stack_bottom; w < lim; w++) *w = FW_STACK_PAINT;
    fw_platform_init();
    fw_exit(fw_main());
}

/* entry: stack, trap vector (direct mode, 4-byte aligned), then C */
__asm__(".section .text.start, \"ax\", @progbits\n"
        ".globl _start\n"
        "_start:\n"
        "  la sp, __stack_top\n"
        "  la t0, fw_trap\n"
        "  .option push\n"
        "  .option arch, +zicsr\n"
        "  csrw mtvec, t0\n"
        "  .option pop\n"
        "  j fw_reset\n"
        ".balign 4\n"
        "fw_trap:\n"
        "  la sp, __stack_top\n"
        "  j fw_trap_report\n"
        ".previous\n");
