/* firmware/fw_mem.c - memcpy, memset, memmove and memcmp for the bare-metal images (no libc).
 *
 * Word copies only between equally aligned pointers, halfword copies when both are even, bytes otherwise: never an
 * unaligned access, so the strict-align image (alignment trap on) runs them too. Built with
 * -fno-tree-loop-distribute-patterns so gcc does not turn these loops back into calls to themselves.
 *
 * A copy of at least FW_BIG_COPY bytes made while fw_copy_watch is nonzero (fw_test.c sets it around the core's
 * calls) is timed apart in fw_copy_ticks: that is the payload placement, which fw_test.c reports separately. */
#include "fw_platform.h"

volatile unsigned fw_copy_watch;
uint64_t fw_copy_ticks[FW_COPY_KINDS], fw_copy_calls[FW_COPY_KINDS];

static void copy_fwd(uint8_t *d, const uint8_t *s, size_t n) {
    uintptr_t rel = (uintptr_t)d ^ (uintptr_t)s;
    if (n >= 8 && (rel & 3u) == 0) {
        while ((uintptr_t)d & 3u) { *d++ = *s++; n--; }
        {
            uint32_t *dw = (uint32_t *)(void *)d;
            const uint32_t *sw = (const uint32_t *)(const void *)s;
            for (; n >= 16; n -= 16, dw += 4, sw += 4) {
                uint32_t a = sw[0], b = sw[1], c = sw[2], e = sw[3];
                dw[0] = a; dw[1] = b; dw[2] = c; dw[3] = e;
            }
            for (; n >= 4; n -= 4) *dw++ = *sw++;
            d = (uint8_t *)dw;
            s = (const uint8_t *)sw;
        }
    } else if (n >= 8 && (rel & 1u) == 0) {
        if ((uintptr_t)d & 1u) { *d++ = *s++; n--; }
        {
            uint16_t *dh = (uint16_t *)(void *)d;
            const uint16_t *sh = (const uint16_t *)(const void *)s;
            for (; n >= 8; n -= 8, dh += 4, sh += 4) {
                uint16_t a = sh[0], b = sh[1], c = sh[2], e = sh[3];
                dh[0] = a; dh[1] = b; dh[2] = c; dh[3] = e;
            }
            for (; n >= 2; n -= 2) *dh++ = *sh++;
            d = (uint8_t *)dh;
            s = (const uint8_t *)sh;
        }
    }
    while (n--) *d++ = *s++;
}

void *memcpy(void *restrict d, const void *restrict s, size_t n) {
    unsigned k = fw_copy_watch;
    if (n >= FW_BIG_COPY && k - 1u < FW_COPY_KINDS) {
        uint64_t t0 = fw_ticks();
        copy_fwd((uint8_t *)d, (const uint8_t *)s, n);
        fw_copy_ticks[k - 1u] += fw_ticks() - t0;
        fw_copy_calls[k - 1u]++;
        return d;
    }
    copy_fwd((uint8_t *)d, (const uint8_t *)s, n);
    return d;
}

void *memmove(void *d, const void *s, size_t n) {
    uint8_t *dp = (uint8_t *)d;
    const uint8_t *sp = (const uint8_t *)s;
    if (dp == sp || n == 0) return d;
    if (dp < sp || dp >= sp + n) return memcpy(d, s, n); /* no overlap that a forward copy would spoil */
    dp += n;
    sp += n;
    while (n--) *--dp = *--sp;
    return d;
}

void *memset(void *d, int c, size_t n) {
    uint8_t *p = (uint8_t *)d;
    uint8_t b = (uint8_t)c;
    if (n >= 8) {
        uint32_t w = 0x01010101u * b, *pw;
        while ((uintptr_t)p & 3u) { *p++ = b; n--; }
        pw = (uint32_t *)(void *)p;
        for (; n >= 4; n -= 4) *pw++ = w;
        p = (uint8_t *)pw;
    }
    while (n--) *p++ = b;
    return d;
}

int memcmp(const void *a, const void *b, size_t n) {
    const uint8_t *x = (const uint8_t *)a, *y = (const uint8_t *)b;
    for (; n; n--, x++, y++)
        if (*x != *y) return *x < *y ? -1 : 1;
    return 0;
}
