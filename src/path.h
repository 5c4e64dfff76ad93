/* ================================================================================================================
 * EV / PATH MANAGER: what src/path.c offers the layers above it (the policies among them: src/path_policy.c)
 * ============================================================================================================== */
#ifndef MRC__SRC_PATH_H
#define MRC__SRC_PATH_H
#include "internal.h"

/* ---- EV slots, their states, the QP's profile, the ports ------------------------------------------------------ */
enum { MRC__EVS_ACTIVE = 0, MRC__EVS_SKIP, MRC__EVS_BACKUP, MRC__EVS_BAD, MRC__EVS_PROBING, MRC__EVS_DENIED,
       MRC__EVS_OFF };        /* mrc__ev.st bits 2:0 (the banner of src/path.c says where each state lives) */
#define MRC__EVF_SKIP2 0x08u  /* skipped after its turn in this round: it sits the next round out too */
#define MRC__EVF_OKC 0x70u    /* consecutive probe answers of an ASSUMED_BAD EV */
#define MRC__EVST(e) ((unsigned)((e)->st & 7u))
MRC__PRIVATE MRC__INLINE bool mrc__ev_hashed(const mrc_conn *c); /* the fabric's hash picks its EVs' paths */
MRC__PRIVATE MRC__INLINE bool mrc__ev_in_scope(const mrc_conn *c, unsigned scope); /* mrc_ev_policy scopes */
MRC__PRIVATE MRC__INLINE mrc__evprof *mrc__conn_prof(const mrc_conn *c);
MRC__PRIVATE mrc__evprof *mrc__prof_find(const mrc_endpoint *ep, uint64_t id);
MRC__PRIVATE uint32_t mrc__auto_evs(const mrc_endpoint *ep, uint32_t *min_active); /* the AUTO profile's EVs */
MRC__PRIVATE MRC__INLINE uint32_t mrc__ev_value(const mrc_conn *c, unsigned slot);
MRC__PRIVATE MRC__INLINE void mrc__ev_set(mrc__ev *e, unsigned st);
MRC__PRIVATE MRC__INLINE bool mrc__ev_is_bad(const mrc__ev *e);
MRC__PRIVATE void mrc__ev_badref(mrc_conn *c, unsigned slot, int delta);
#define MRC__EVP_NOPATH_BACKOFF 3u /* probe rounds stretch at most 8 x while a QP has no EV carrying data (7.11) */
MRC__PRIVATE bool mrc__ev_can_carry(const mrc_conn *c); /* an EV of some port can carry data */
/* ++*n out of line: a rare event's counter; MRC__EV_COUNT(n) is nothing under MRC_NO_STATS (a lost control packet,
 * endpoint operation or event calls mrc__ev_count itself: counted whatever the macro, as drops are) */
MRC__PRIVATE void mrc__ev_count(uint64_t *n);
#ifdef MRC_NO_STATS
#define MRC__EV_COUNT(n) ((void)0)
#else
#define MRC__EV_COUNT(n) mrc__ev_count(&(n))
#endif

/* ---- controller events ---------------------------------------------------------------------------------------- */
MRC__PRIVATE void mrc__notify(mrc_endpoint *ep, mrc_event *e);
MRC__PRIVATE void mrc__ev_event(mrc_conn *c, uint16_t slot, uint32_t state);

/* ---- the rotation --------------------------------------------------------------------------------------------- */
MRC__PRIVATE MRC__INLINE void mrc__evr_put(mrc_conn *c, unsigned p, unsigned pos, uint16_t slot);
MRC__PRIVATE MRC__INLINE uint16_t mrc__evr_at(const mrc_conn *c, unsigned p, unsigned pos);
MRC__PRIVATE MRC__INLINE void mrc__evr_swap(mrc_conn *c, unsigned p, unsigned a, unsigned b);
MRC__PRIVATE void mrc__evr_del(mrc_conn *c, uint16_t slot);
MRC__PRIVATE void mrc__evr_add(mrc_conn *c, uint16_t slot);
MRC__PRIVATE void mrc__ev_new_round(mrc_conn *c, unsigned p);
MRC__PRIVATE void mrc__ev_rc_clear(mrc_conn *c); /* empty the recycle rings (P23 EV recycling) */

/* ---- the backup stacks, the bad FIFO, the probe clock, probes and the EVs of control packets ------------------- */
enum { MRC__TLP2_DUE = 1, MRC__TLP2_OUT = 2, MRC__TLP2_MATCH = MRC_MAX_PROBES }; /* c->tlp2; mrc__probe_match */
MRC__PRIVATE void mrc__bad_push(mrc_conn *c, uint16_t slot);
MRC__PRIVATE uint16_t mrc__bad_pop(mrc_conn *c);
MRC__PRIVATE void mrc__bk_push(mrc_conn *c, uint16_t slot);
MRC__PRIVATE mrc_time mrc__evp_interval(const mrc_conn *c);
MRC__PRIVATE mrc_time mrc__ev_ver_to(const mrc_conn *c);
MRC__PRIVATE void mrc__evp_arm(mrc_conn *c);
MRC__PRIVATE MRC__SIZE_NOINLINE int mrc__probe_match(const mrc_conn *c, uint32_t entropy, uint16_t ts);
MRC__PRIVATE uint16_t mrc__ev_ctl(mrc_conn *c, unsigned port);
MRC__PRIVATE MRC__INLINE uint32_t mrc__ent_hash(uint32_t ent);
MRC__PRIVATE MRC__SIZE_NOINLINE uint32_t mrc__ent_next(uint32_t h);
MRC__PRIVATE int mrc__prof_lookup(const mrc__evprof *pf, uint32_t ent, unsigned port);
MRC__PRIVATE uint16_t mrc__ev_mirror(const mrc_conn *c, uint32_t ent, unsigned port);

/* ---- building the set ----------------------------------------------------------------------------------------- */
MRC__PRIVATE void mrc__ev_lists_empty(mrc_conn *c);
MRC__PRIVATE void mrc__ev_rebuild(mrc_conn *c);
MRC__PRIVATE void mrc__ev_setup(mrc_conn *c);
MRC__PRIVATE void mrc__ev_release(mrc_conn *c);
MRC__PRIVATE MRC__INLINE void mrc__ev_txinfo(const mrc_conn *c, uint16_t slot, mrc_txinfo *ti);

/* ---- EV expansion (docs/PROTOCOL.md 7.1) ---------------------------------------------------------------------- */
MRC__PRIVATE uint32_t mrc__bits_get(const uint8_t *p, uint32_t s, uint32_t k);
MRC__PRIVATE void mrc__bits_put(uint8_t *p, uint32_t d, uint32_t k, uint32_t v);
MRC__PRIVATE unsigned mrc__popcount32(uint32_t v);
MRC__PRIVATE uint32_t mrc__wmask(uint32_t w);
MRC__PRIVATE unsigned mrc__fmt_bits(const mrc_ev_fmt_attr *f);
MRC__PRIVATE unsigned mrc__prof_check(const mrc_ev_fmt_attr *fmt, const mrc_ev_field *f, unsigned nfields,
                                      unsigned *idx);
#endif /* MRC__SRC_PATH_H */
