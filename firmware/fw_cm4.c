/* firmware/fw_cm4.c - Cortex-M4 startup for QEMU's mps2-an386 board: vector table, reset, fault handler,
 * semihosting, SysTick as the instruction counter (fw_platform.h). Linker script: cm4.ld.
 *
 * FW_STRICT_ALIGN (the strict-align image, built with -mno-unaligned-access): the reset code sets SCB->CCR
 * UNALIGN_TRP, so any unaligned LDR/STR/LDRH/STRH faults; the fault handler prints CFSR (UNALIGNED is bit 24), HFSR,
 * the faulting PC and LR, and exits nonzero. LDRD/STRD/LDM/STM fault when unaligned in every image. */
#include "fw_platform.h"

#ifdef FW_STRICT_ALIGN
const char fw_variant[] = "strict-align";
#else
const char fw_variant[] = "default";
#endif
const char fw_target[] = "cortex-m4";
fw_clock fw_clk;

#define REG(a) (*(volatile uint32_t *)(a))
#define SYST_CSR REG(0xE000E010u)
#define SYST_RVR REG(0xE000E014u)
#define SCB_CCR REG(0xE000ED14u)
#define SCB_SHCSR REG(0xE000ED24u)
#define SCB_CFSR REG(0xE000ED28u)
#define SCB_HFSR REG(0xE000ED2Cu)
#define SCB_MMFAR REG(0xE000ED34u)
#define SCB_BFAR REG(0xE000ED38u)

enum { SYS_WRITE0 = 0x04, SYS_GET_CMDLINE = 0x15, SYS_EXIT = 0x18 };
enum { ADP_Stopped_ApplicationExit = 0x20026, ADP_Stopped_RunTimeErrorUnknown = 0x20023 };

static int semihost(int op, const void *arg) {
    register int r0 __asm__("r0") = op;
    register const void *r1 __asm__("r1") = arg;
    __asm__ volatile("bkpt 0xAB" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

void fw_puts(const char *s) { semihost(SYS_WRITE0, s); }

void fw_exit(int code) {
    semihost(SYS_EXIT, (const void *)(uintptr_t)(code == 0 ? ADP_Stopped_ApplicationExit
                                                           : ADP_Stopped_RunTimeErrorUnknown));
    for (;;) {}
}

int fw_cmdline(char *buf, size_t cap) {
    struct { char *buf; int len; } b;
    b.buf = buf;
    b.len = (int)cap;
    if (cap == 0) return -1;
    buf[0] = 0;
    return semihost(SYS_GET_CMDLINE, &b) == 0 ? 0 : -1;
}

void fw_platform_init(void) {
    SYST_RVR = 0xFFFFFFu;
    SYST_CSR = 5u;          /* ENABLE | CLKSOURCE (processor clock), no interrupt */
    fw_clk.last = 0xFFFFFFu;
    fw_clk.base = 0;
#ifdef FW_STRICT_ALIGN
    SCB_CCR |= 1u << 3;     /* UNALIGN_TRP */
#endif
    SCB_SHCSR |= 7u << 16;  /* MemManage, BusFault and UsageFault enabled: the handler names which */
    __asm__ volatile("dsb\n\tisb" ::: "memory");
}

/* 2 instructions per iteration: subs + bne */
void fw_count_loop(uint32_t n) {
    __asm__ volatile("1: subs %0, %0, #1\n\tbne 1b" : "+r"(n) : : "cc");
}
uint32_t fw_count_loop_insns(uint32_t n) { return 2u * n; }

/* ---- faults --------------------------------------------------------------------------------------------------- */
static void put_hex(char *p, uint32_t v) {
    int i;
    for (i = 7; i >= 0; i--, v >>= 4) p[i] = "0123456789abcdef"[v & 15u];
}

void fw_fault_report(const uint32_t *frame, uint32_t exc);
void fw_fault_report(const uint32_t *frame, uint32_t exc) {
    static char line[200];
    static const char *const names[] = {"?", "?", "NMI", "HardFault", "MemManage", "BusFault", "UsageFault"};
    uint32_t cfsr = SCB_CFSR, what = exc < 7 ? exc : 0;
    char *p = line;
    const char *s;
    for (s = "FAULT: "; *s;) *p++ = *s++;
    for (s = names[what]; *s;) *p++ = *s++;
    for (s = " CFSR=0x"; *s;) *p++ = *s++;
    put_hex(p, cfsr); p += 8;
    for (s = " HFSR=0x"; *s;) *p++ = *s++;
    put_hex(p, SCB_HFSR); p += 8;
    for (s = " pc=0x"; *s;) *p++ = *s++;
    put_hex(p, frame[6]); p += 8;
    for (s = " lr=0x"; *s;) *p++ = *s++;
    put_hex(p, frame[5]); p += 8;
    if (cfsr & 0x80u) { for (s = " MMFAR=0x"; *s;) *p++ = *s++; put_hex(p, SCB_MMFAR); p += 8; }
    if (cfsr & 0x8000u) { for (s = " BFAR=0x"; *s;) *p++ = *s++; put_hex(p, SCB_BFAR); p += 8; }
    if (cfsr & (1u << 24)) for (s = " (UNALIGNED access)"; *s;) *p++ = *s++;
    if (cfsr & (1u << 25)) for (s = " (DIVBYZERO)"; *s;) *p++ = *s++;
    if (cfsr & (1u << 16)) for (s = " (UNDEFINSTR)"; *s;) *p++ = *s++;
    if (cfsr & (1u << 17)) for (s = " (INVSTATE)"; *s;) *p++ = *s++;
    if (cfsr & (1u << 1)) for (s = " (DACCVIOL)"; *s;) *p++ = *s++;
    if (cfsr & (1u << 9)) for (s = " (PRECISERR)"; *s;) *p++ = *s++;
    *p++ = '\n';
    *p = 0;
    fw_puts(line);
    fw_exit(3);
}

/* every fault lands here: the stacked frame (MSP or PSP per EXC_RETURN bit 2) and the exception number */
__attribute__((naked)) void fw_fault(void);
__attribute__((naked)) void fw_fault(void) {
    __asm__ volatile("tst lr, #4\n\t"
                     "ite eq\n\t"
                     "mrseq r0, msp\n\t"
                     "mrsne r0, psp\n\t"
                     "mrs r1, ipsr\n\t"
                     "b fw_fault_report\n\t");
}

/* ---- reset ------------------------------------------------------------------------------------------------------ */
void fw_reset(void);
void fw_reset(void) {
    uint8_t *d = __data_start, *s = __data_load;
    uint32_t *w, *lim;
    while (d < __data_end) *d++ = *s++;
    for (d = __bss_start; d < __bss_end;) *d++ = 0;
    /* paint the stack below the reset frame, so fw_test.c can find its high-water mark */
    lim = (uint32_t *)(void *)((fw_sp() - 64u) & ~(uintptr_t)3u);
    for (w = (uint32_t *)(void *)__stack_bottom; w < lim; w++) *w = FW_STACK_PAINT;
    fw_platform_init();
    fw_exit(fw_main());
}

typedef void (*fw_vector)(void);
__attribute__((section(".vectors"), used)) static const fw_vector fw_vectors[16] = {
    (fw_vector)(uintptr_t)__stack_top, fw_reset,
    fw_fault, fw_fault, fw_fault, fw_fault, fw_fault, /* NMI, HardFault, MemManage, BusFault, UsageFault */
    0, 0, 0, 0,
    fw_fault, fw_fault, 0, fw_fault, fw_fault};       /* SVCall, DebugMon, -, PendSV, SysTick */
