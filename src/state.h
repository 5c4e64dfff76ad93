/* ================================================================================================================
 * ENDPOINT AND QP STATE: what src/state.c offers the layers above it
 * ============================================================================================================== */
#ifndef MRC__SRC_STATE_H
#define MRC__SRC_STATE_H
#include "internal.h"

#define MRC__EV_NONE 0xFFFFu /* no EV slot (also: no conn slot, in the lists that link conns) */
enum { MRC__PROBE_FREE = 0, MRC__PROBE_TLP = 1, MRC__PROBE_EV = 2, MRC__PROBE_VER = 3 }; /* mrc__probe.kind */

/* ---- error detail, configuration, PRNG, clock ----------------------------------------------------------------- */
MRC__PRIVATE void mrc__detail_begin(mrc_endpoint *ep, unsigned call); /* a control call starts: clear the detail */
MRC__PRIVATE int mrc__fail(mrc_endpoint *ep, int err, unsigned code, uint32_t attr); /* ... fails: detail.index 0 */
MRC__PRIVATE int mrc__fail_at(mrc_endpoint *ep, int err, unsigned code, uint32_t attr, uint32_t index); /* ... at one */
/* profiles' modify calls: the opening checks, and the state machine (1: done, MRC_OK) */
MRC__PRIVATE int mrc__prof_begin(mrc_endpoint *ep, unsigned call, const void *a, uint64_t id, uint32_t mask,
                                 uint32_t all);
MRC__PRIVATE int mrc__prof_step(mrc_endpoint *ep, unsigned cur, unsigned to, uint32_t mask, uint32_t need,
                                uint32_t fixed, bool busy);
/* Table-driven argument checks, in a table's order: a member of 1, 2 or 4 bytes (sz's low bits; 0x80: 0 is allowed
 * too) in [lo, lo + span], or (sz 0x40) one of the values below 32 whose bits span sets; checked always (bit 0) or
 * when the call's mask has bit bit - 1, which the failure then names. Checks that share a code may come in any order
 * among themselves. */
typedef struct mrc__range {
    uint32_t lo, span;
    uint16_t off;
    uint8_t sz, code, bit;
} mrc__range;
#define MRC__RNG(T, m, z, l, h, b, c)                                                                                  \
    {(uint32_t)(l), (uint32_t)(h) - (uint32_t)(l), (uint16_t)offsetof(T, m), (uint8_t)(sizeof(((T *)0)->m) | (z)),     \
     (uint8_t)(c), (uint8_t)(b)}
#define MRC__RSET(T, m, set, b, c) MRC__RNG(T, m, 0x40, 0, set, b, c)
#define MRC__NRANGES(t) (unsigned)(sizeof(t) / sizeof(t)[0]) /* a table's entries */
MRC__PRIVATE int mrc__ranges(mrc_endpoint *ep, const void *base, const mrc__range *r, unsigned n, uint32_t mask);
MRC__PRIVATE void mrc__copy(void *d, const void *s, size_t n); /* MRC_MEMCPY, out of line */
/* profile tables (an entry: the uint64_t ID at offset 0, a uint8_t used flag at offset uo, the same in each table so
 * that gcc passes it as a constant): the used entry of an ID, and a free entry claimed for an ID (zeroed, used, ID
 * set); NULL when there is none */
MRC__PRIVATE void *mrc__tab_find(const void *tab, unsigned n, size_t sz, size_t uo, uint64_t id);
MRC__PRIVATE void *mrc__tab_claim(void *tab, unsigned n, size_t sz, size_t uo, uint64_t id);
MRC__PRIVATE uint64_t mrc__splitmix(uint64_t *st); /* the generator step on a state (SplitMix64) */
MRC__PRIVATE uint64_t mrc__rand(mrc_endpoint *ep);
MRC__PRIVATE MRC__SIZE_NOINLINE uint32_t mrc__rand_below(mrc_endpoint *ep, uint32_t n);
MRC__PRIVATE MRC__INLINE mrc_time mrc__deadline_add(mrc_time t, mrc_time dt); /* saturating at MRC_TIME_NEVER */
MRC__PRIVATE mrc_time mrc__deadline_ctl(mrc_time t, mrc_time dt); /* the same, out of line (control calls) */
/* t is MRC_TIME_NEVER (all ones): its two halves ANDed, one 32-bit test on 32-bit targets (control calls) */
#define MRC__NEVER(t) (((uint32_t)(t) & (uint32_t)((t) >> 32)) == 0xFFFFFFFFu)
/* the general paths' rarer deadlines (the RTO's re-arm, a verdict's echo, a sweep's wait, the TLP's, a rate limit's,
 * an activity epoch's): out of line where the code's size is asked for (gcc -Os: 8-16 B of Cortex-M4 code each), in
 * line where speed is */
#ifdef __OPTIMIZE_SIZE__
#define MRC__DEADLINE_SZ mrc__deadline_ctl
#else
#define MRC__DEADLINE_SZ mrc__deadline_add
#endif
MRC__PRIVATE bool mrc__bucket_take(mrc_time *tat, mrc_time now, mrc_time T, mrc_time tau); /* a rate limit */
MRC__PRIVATE mrc_time mrc__clock(mrc_endpoint *ep, mrc_time now);                       /* the endpoint's now */
MRC__PRIVATE mrc_time mrc__clock_ctl(mrc_endpoint *ep, mrc_time now);                   /* ... for control calls */
MRC__PRIVATE uint32_t mrc__all_ports(const mrc_endpoint *ep); /* every port: bit p - 1 for port p */

/* ---- memory regions ------------------------------------------------------------------------------------------- */
MRC__PRIVATE int mrc__mr_find(const mrc_endpoint *ep, uint32_t rkey);
MRC__PRIVATE int mrc__mr_find_keyed(const mrc_endpoint *ep, uint32_t rkey); /* caller-chosen rkeys only */

/* ---- the in-flight pool (its waiters: src/sched.c) ------------------------------------------------------------ */
#define MRC__BTAB_IDX(psn) (((psn) >> 6) & (MRC__BTAB_LEN - 1u))
MRC__PRIVATE MRC__INLINE mrc__pblk *mrc__blk(const mrc_conn *c, uint32_t psn);
MRC__PRIVATE MRC__INLINE void mrc__pool_peak(mrc_endpoint *ep);
MRC__PRIVATE MRC__INLINE bool mrc__pool_ret(const mrc_endpoint *ep, uint32_t i);
MRC__PRIVATE void mrc__pool_unretain(mrc_endpoint *ep, uint32_t i);
MRC__PRIVATE void mrc__pool_give(mrc_conn *c, uint32_t psn, uint32_t i);
MRC__PRIVATE void mrc__pool_take(mrc_conn *c, uint32_t psn);

/* ---- conn table ----------------------------------------------------------------------------------------------- */
MRC__PRIVATE uint32_t mrc__qpn_draw(mrc_endpoint *ep, unsigned slot);
MRC__PRIVATE mrc_conn *mrc__conn_lookup(const mrc_endpoint *ep, uint32_t qpn);

/* ---- a QP's per-PSN records, work requests and bitmaps -------------------------------------------------------- */
#define MRC__PR_INFLIGHT 1u /* mrc__psnrec.flags: counted in flight; on the transmit list (c->txl) */
#define MRC__PR_LOST 2u     /* declared lost, waiting for retransmission */
#define MRC__PR_QUEUED 4u   /* on the retransmission queue (c->rtxq) */
#define MRC__PR_RTX 8u      /* transmitted more than once (no RTT sample) */
#define MRC__PR_EVLOST 16u  /* ev_lost names an EV whose loss awaits confirmation */
#define MRC__PR_NAMED 32u   /* a SACK named this (first) transmission (P38 quiet SACKs: a second one is a duplicate) */
#define MRC__PR_EVCONF 64u  /* ev_lost names an EV whose loss this PSN's verdict confirmed (P40: a later SACK echoing an
                             * earlier transmission takes it back) */
#define MRC__PR_FULL 128u   /* a full packet, not its message's last: its nominal size is mrc__nominal_full (set with the
                             * record at the first transmission; mrc__rec_nominal reads it instead of the WR's geometry) */
#define MRC__SQ(c, i) (&(c)->sq[(i) & (MRC_MAX_SQ - 1u)])
/* the record and send time of a PSN that has one (in [win_base, snd_nxt): its block is held) */
#define MRC__REC(c, psn) (&mrc__blk(c, psn)->rec[(psn) & (MRC__BLK_PSNS - 1u)])
#define MRC__REC_SENT(c, psn) (mrc__blk(c, psn)->sent[(psn) & (MRC__BLK_PSNS - 1u)])
/* a record in flight that has seen this many later transmissions without being acknowledged is lost */
#define MRC__TXL_SPAN (2u * MRC_MAX_INFLIGHT)
MRC__PRIVATE MRC__INLINE uint32_t mrc__link_psn(const mrc_conn *c, uint32_t idx); /* the PSN a record link names */
MRC__PRIVATE MRC__INLINE void mrc__plist_push(mrc_conn *c, mrc__plist *l, uint32_t psn, mrc__psnrec *r, bool front);
MRC__PRIVATE MRC__ALWAYS_INLINE mrc__psnrec *mrc__plist_nb(mrc_conn *c, mrc__pblk *bk, uint32_t psn, uint32_t q);
MRC__PRIVATE MRC__ALWAYS_INLINE void mrc__plist_unlink_bk(mrc_conn *c, mrc__plist *l, uint32_t psn,
                                                         const mrc__psnrec *r, mrc__pblk *bk);
MRC__PRIVATE MRC__INLINE void mrc__plist_unlink(mrc_conn *c, mrc__plist *l, uint32_t psn, const mrc__psnrec *r);
MRC__PRIVATE MRC__INLINE bool mrc__bit(const uint64_t *w, uint32_t nbits, uint32_t i);
MRC__PRIVATE MRC__INLINE void mrc__bit_set(uint64_t *w, uint32_t nbits, uint32_t i);
MRC__PRIVATE MRC__INLINE void mrc__bit_clr(uint64_t *w, uint32_t nbits, uint32_t i);
MRC__PRIVATE uint64_t mrc__bits64(const uint64_t *w, uint32_t nbits, uint32_t start);
MRC__PRIVATE MRC__INLINE unsigned mrc__ctz64(uint64_t v);
MRC__PRIVATE MRC__INLINE uint16_t mrc__ts(const mrc_endpoint *ep, mrc_time t);               /* 16-bit timestamp */
MRC__PRIVATE MRC__SIZE_NOINLINE uint16_t mrc__ts_ctl(const mrc_endpoint *ep, mrc_time t); /* ... out of line */
MRC__PRIVATE MRC__ALWAYS_INLINE mrc_time mrc__ts_unwrap(const mrc_endpoint *ep, uint16_t ts, mrc_time now);
MRC__PRIVATE MRC__SIZE_NOINLINE mrc_time mrc__ts_unwrap_ctl(const mrc_endpoint *ep, uint16_t ts, mrc_time now);
MRC__PRIVATE MRC__INLINE uint32_t mrc__data_hdr_len(const mrc_conn *c, bool imm);
MRC__PRIVATE MRC__INLINE uint16_t mrc__wr_msn(uint32_t i);
MRC__PRIVATE MRC__INLINE uint32_t mrc__wr_index(const mrc_conn *c, uint32_t s);
MRC__PRIVATE MRC__INLINE bool mrc__wr_started(const mrc_conn *c, uint32_t i);
MRC__PRIVATE MRC__INLINE uint32_t mrc__wr_npkts(const mrc_conn *c, const mrc__wr *wr);
MRC__PRIVATE MRC__INLINE uint32_t mrc__pkt_len(const mrc_conn *c, const mrc__wr *wr, uint32_t k);
MRC__PRIVATE MRC__ALWAYS_INLINE uint32_t mrc__nominal_full(const mrc_conn *c);
MRC__PRIVATE MRC__INLINE uint32_t mrc__nominal(const mrc_conn *c, const mrc__wr *wr, uint32_t k);
MRC__PRIVATE uint32_t mrc__rec_nominal(const mrc_conn *c, uint32_t psn, const mrc__psnrec *r);

/* ---- drops ---------------------------------------------------------------------------------------------------- */
MRC__PRIVATE MRC__NOINLINE int mrc__drop(mrc_endpoint *ep, mrc_conn *c, unsigned reason,
                                        unsigned opcode); /* MRC_ERR_DROP; out of line */
#endif /* MRC__SRC_STATE_H */
