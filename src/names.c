/* ================================================================================================================
 * ERRORS AND NAMES - src/names.c
 * Owns: mrc_err_is_fatal, and the strings: mrc_strerror, the names of opcodes, NACK reasons, drop reasons, states,
 * events and error details, mrc_detail_format. MRC_NO_STRINGS compiles every string out (each returns "").
 * Calls: nothing but internal.h.
 * ============================================================================================================== */
#include "names.h"

MRC_API bool mrc_err_is_fatal(int e) { return e <= MRC_ERR_FATAL; }
#ifdef MRC_NO_STRINGS
MRC_API const char *mrc_strerror(int e) { (void)e; return ""; }
MRC_API const char *mrc_opcode_name(unsigned op) { (void)op; return ""; }
MRC_API const char *mrc_nack_name(unsigned r) { (void)r; return ""; }
MRC_API const char *mrc_drop_name(unsigned r) { (void)r; return ""; }
MRC_API const char *mrc_state_name(unsigned s) { (void)s; return ""; }
MRC_API const char *mrc_event_name(unsigned t) { (void)t; return ""; }
MRC_API const char *mrc_detail_name(unsigned code) { (void)code; return ""; }
MRC_API size_t mrc_detail_format(const mrc_detail *d, char *buf, size_t cap) {
    (void)d;
    if (buf && cap) buf[0] = 0;
    return 0;
}
#else
MRC_API const char *mrc_strerror(int e) {
    switch (e) {
    case MRC_OK: return "success";
    case MRC_ERR_INVAL: return "invalid argument";
    case MRC_ERR_STATE: return "not allowed in the current state";
    case MRC_ERR_NOBUF: return "buffer too small";
    case MRC_ERR_FULL: return "queue or table full";
    case MRC_ERR_DROP: return "packet dropped";
    case MRC_ERR_NOTSUP: return "operation not supported by MRC";
    case MRC_ERR_NOENT: return "no such object";
    case MRC_ERR_TRUNC: return "truncated header";
    case MRC_ERR_MALFORMED: return "malformed header";
    case MRC_ERR_RETRY_EXC: return "retry count exceeded";
    case MRC_ERR_REMOTE_ACCESS: return "remote access error";
    case MRC_ERR_REMOTE_INVAL: return "remote invalid request";
    case MRC_ERR_REMOTE_OP: return "remote operational error";
    case MRC_ERR_FLUSH: return "flushed";
    case MRC_ERR_LOCAL_ACCESS: return "peer's write violated local access";
    case MRC_ERR_LOCAL_INVAL: return "peer's request invalid";
    case MRC_ERR_NOPATH: return "no usable path";
    default: return e <= MRC_ERR_FATAL ? "fatal error" : "unknown error";
    }
}
MRC_API const char *mrc_opcode_name(unsigned op) {
    switch (op) {
    case MRC_OP_WRITE_FIRST: return "WRITE_FIRST";
    case MRC_OP_WRITE_MIDDLE: return "WRITE_MIDDLE";
    case MRC_OP_WRITE_LAST: return "WRITE_LAST";
    case MRC_OP_WRITE_LAST_IMM: return "WRITE_LAST_IMM";
    case MRC_OP_WRITE_ONLY: return "WRITE_ONLY";
    case MRC_OP_WRITE_ONLY_IMM: return "WRITE_ONLY_IMM";
    case MRC_OP_ACK: return "ACK";
    case MRC_OP_EP_REQ: return "EP_REQ";
    case MRC_OP_EP_RSP: return "EP_RSP";
    case MRC_OP_SACK: return "SACK";
    case MRC_OP_NACK: return "NACK";
    case MRC_OP_PROBE_REQ: return "PROBE_REQ";
    default: return "?";
    }
}
MRC_API const char *mrc_nack_name(unsigned r) {
    switch (r) {
    case MRC_NACK_TRIMMED: return "TRIMMED";
    case MRC_NACK_TRIMMED_LASTHOP: return "TRIMMED_LASTHOP";
    case MRC_NACK_NO_BITMAP: return "NO_BITMAP";
    case MRC_NACK_NO_PKT_BUFFER: return "NO_PKT_BUFFER";
    case MRC_NACK_NO_RESOURCE: return "NO_RESOURCE";
    case MRC_NACK_PSN_OOR_WINDOW: return "PSN_OOR_WINDOW";
    case MRC_NACK_UNEXP_EVENT: return "UNEXP_EVENT";
    default: return "?";
    }
}
MRC_API const char *mrc_drop_name(unsigned r) {
    static const char *const n[MRC_DROP_REASONS] = {"short", "opcode", "malformed", "icrc", "qpn", "pkey",
                                                    "state", "psn_oor", "msn_oor", "trimmed", "access", "wimm",
                                                    "place", "dup", "ack_bogus", "ack_stale", "epop", "rate",
                                                    "stranger", "psu", "nak"};
    return r < MRC_DROP_REASONS ? n[r] : "?";
}
MRC_API const char *mrc_state_name(unsigned s) {
    static const char *const n[] = {"RESET", "INIT", "RTR", "RTS", "ERR"};
    return s <= MRC_QPS_ERR ? n[s] : "?";
}
MRC_API const char *mrc_event_name(unsigned t) {
    static const char *const n[] = {"NONE",     "SEND_DONE",   "RECV_IMM",   "CONN_ERROR",
                                    "EV_STATE", "EP_RESPONSE", "EP_TIMEOUT", "PEER_PORTS"};
    return t < sizeof n / sizeof n[0] ? n[t] : "?";
}
MRC_API const char *mrc_detail_name(unsigned code) {
    static const char *const n[] = {
        "no error recorded",
        "a required pointer argument is NULL",
        "the conn is not attached to an endpoint (mrc_conn_init)",
        "the conn is already attached to this endpoint",
        "every conn slot is taken (MRC_MAX_CONNS)",
        "a conn is destroyed only in RESET or ERR (move it to ERR or RESET first)",
        "state is not a value of its enum",
        "MRC_ATTR_STATE (the target state) is missing from the mask: every transition names its state, and a call "
        "without it stays in the current state, which takes none of these attributes",
        "illegal state transition (QPs: RESET->INIT->RTR->RTS, INIT->INIT, RTS->RTS, any->ERR, any->RESET; profiles: "
        "INIT->OFFLINE->ONLINE->OFFLINE->INIT)",
        "the transition requires attributes that are not in the mask",
        "the transition does not take these attributes",
        "pkey: its low 15 bits must not be 0 (default 0xFFFF)",
        "access: only MRC_ACCESS_REMOTE_WRITE may be set",
        "ev_profile_id names no ONLINE EV profile (0 = the built-in AUTO profile)",
        "cc_profile_id names no ONLINE CC profile (0 = the built-in profile)",
        "no free congestion context for this peer and CC profile (MRC_MAX_CCX)",
        "dest_qpn must be 3..0xFFFFFF (QP 0x2 is the endpoint-operation QP)",
        "PSNs are 24 bits: rq_psn and sq_psn must be 0..0xFFFFFF",
        "path_mtu must be 256, 512, 1024, 2048 or 4096",
        "mpr_dest must be 1..MRC_MAX_MPR_UNITS (units of 128 PSNs)",
        "max_wimm_dest must be 1..MRC_MAX_WIMM",
        "caps has a bit that is not an MRC_CAP_* value",
        "mpr must be at least 1 (units of 128 PSNs)",
        "max_wimm must be at least 1",
        "retry_linear must be 0..7 and retry_exp 0..25 (25 = retry for ever)",
        "timeout must be 0..24 (1.024 us x 2^timeout; 0 = never retransmit on timeout)",
        "num_ports must be 1..MRC_MAX_PORTS",
        "qpn_base must be 0 (random QPNs) or 3..0xFFFFFF - MRC_MAX_CONNS",
        "wire options: bth_m_bit 6 or 7, eeth_op_shift 2 or 4, ts_shift 0..20, tver 0..15, sack_msb_first 0 or 1",
        "a DSCP codepoint is over 63",
        "auto_ev.sport_min is above auto_ev.sport_max",
        "auto_ev.per_port must be at least 1",
        "ev.backup_pct must be 0..90",
        "ev.revive_probes must be 1..7",
        "auto_ev.event_mask takes MRC_EVS_GOOD and MRC_EVS_ASSUMED_BAD only",
        "ack.sack_every must be at least 1",
        "ev_max_width must be 0 (default) or 16..8 x MRC_EV_BYTES bits",
        "pool_blocks must be 0 (default: MRC_POOL_BLOCKS) or 1..MRC_POOL_BLOCKS",
        "profile ID 0 names the built-in profile, which cannot be modified",
        "the mask has bits this call does not define",
        "an ONLINE profile takes only STATE (and EVENT_MASK for an EV profile): take it OFFLINE first",
        "the profile is in use (by QPs, or by an ONLINE EV profile)",
        "every profile slot is taken (MRC_MAX_EV_FMTS, MRC_MAX_EV_PROFILES or MRC_MAX_CC_PROFILES)",
        "mode must be MRC_EV_FMT_UDP, MRC_EV_FMT_STEV or MRC_EV_FMT_SRV6",
        "nfields must be 1..MRC_MAX_EV_FIELDS, and a profile's at most its format's",
        "a field's width must be 1..32 bits, and a profile field at most its format field's",
        "the fields add up to more bits than the format mode allows (UDP 16, STEV 32, SRv6 256)",
        "the format is wider than the device's ev_max_width (mrc_config.ev_max_width)",
        "FIELDS must be given before the format goes ONLINE",
        "mode must be MRC_EV_MODE_EXP or MRC_EV_MODE_GEN",
        "ev_count must be 1..MRC_MAX_EVS",
        "event_mask takes MRC_EVS_GOOD and MRC_EVS_ASSUMED_BAD only",
        "ev_min_active must not exceed ev_count",
        "a field's init_val does not fit its width",
        "a field's mask has bits outside its width",
        "a field's min_val is above max_val, or max_val needs more bits than its mask has",
        "a fixed field (mask 0) must have min_val = max_val = 0",
        "the masks take more abstract EV bits than an EV holds (8 x MRC_EV_BYTES)",
        "fmt_id names no EV format",
        "the EV format must be ONLINE before the profile goes ONLINE",
        "EXP: every EV must be populated (MRC_EV_OP_REPLACE) with a port in 1..num_ports first",
        "an EV's abstract value cannot be expanded with these fields (bits left over)",
        "EXP: the mode changed, which empties the EV array: populate it before going ONLINE",
        "algorithm must be MRC_CC_NSCC, MRC_CC_FIXED or NULL (no congestion control)",
        "CC configuration out of range (fixed window: fixed_cwnd > 0; NSCC: qa_gate <= 16, max_md_jump_q16 <= 65536)",
        "CONFIG must be given before a CC profile with an algorithm goes ONLINE",
        "op must be an MRC_EV_OP_* value, and e non-NULL when *n > 0",
        "profile_id names no EV profile",
        "QUERY_ARRAY: *n (the room in e) is below the profile's ev_count, which *n now holds",
        "no EV of the profile matches the entry's ev (value and port)",
        "the entry's state must be MRC_EVS_GOOD or MRC_EVS_DENIED (and for MODIFY_STATE also MRC_EVS_ASSUMED_BAD)",
        "the entry's ev_new.port must be 1..num_ports",
        "EV policy (mrc_config.ev): a scope must be an OR of MRC_EV_KIND_* (MRC_EV_SCOPE_*), reply an "
        "MRC_EV_REPLY_* value, group_retire an MRC_EV_RETIRE_* value"};
    (void)sizeof(char[sizeof n / sizeof n[0] == MRC_DETAIL_COUNT ? 1 : -1]); /* one string per code, at build time */
    return code < MRC_DETAIL_COUNT ? n[code] : "?";
}
/* "MRC_ERR_INVAL" for MRC_ERR_INVAL, ... */
MRC__PRIVATE const char *mrc__err_sym(int e) {
    switch (e) {
    case MRC_OK: return "MRC_OK";
    case MRC_ERR_INVAL: return "MRC_ERR_INVAL";
    case MRC_ERR_STATE: return "MRC_ERR_STATE";
    case MRC_ERR_NOBUF: return "MRC_ERR_NOBUF";
    case MRC_ERR_FULL: return "MRC_ERR_FULL";
    case MRC_ERR_NOTSUP: return "MRC_ERR_NOTSUP";
    case MRC_ERR_NOENT: return "MRC_ERR_NOENT";
    case MRC_ERR_BUSY: return "MRC_ERR_BUSY";
    default: return "error";
    }
}
MRC__PRIVATE size_t mrc__cat(char *buf, size_t cap, size_t at, const char *str) {
    while (*str && at + 1u < cap) buf[at++] = *str++;
    buf[at] = 0;
    return at;
}
MRC_API size_t mrc_detail_format(const mrc_detail *d, char *buf, size_t cap) {
    static const char *const calls[MRC_CALL_COUNT] = {
        "(none)",          "mrc_endpoint_init",  "mrc_conn_init",          "mrc_conn_destroy",
        "mrc_conn_modify", "mrc_ev_fmt_modify", "mrc_ev_profile_modify", "mrc_cc_profile_modify", "mrc_ev_op"};
    static const char *const conn_attr[] = {"STATE", "PKEY", "ACCESS", "EV_PROFILE", "CC_PROFILE", "DEST_QPN",
                                            "RQ_PSN", "PATH_MTU", "MPR_DEST", "MAX_WIMM_DEST", "CAPS", "PEER",
                                            "SQ_PSN", "MPR", "MAX_WIMM", "RETRY", "TIMEOUT", "HINT"};
    static const char *const fmt_attr[] = {"STATE", "MODE", "FIELDS"};
    static const char *const prof_attr[] = {"STATE", "MODE", "FMT_ID", "COUNT", "MIN_ACTIVE", "EVENT_MASK", "FIELDS"};
    static const char *const cc_attr[] = {"STATE", "ALGORITHM", "CONFIG"};
    /* the calls with attribute bits, MRC_CALL_CONN_MODIFY .. MRC_CALL_CC_PROFILE_MODIFY in order; the counts come
     * from the tables, so a new attribute bit cannot be left out of its count */
    static const struct { const char *const *names; unsigned n; const char *prefix; } attrs[4] = {
        {conn_attr, (unsigned)(sizeof conn_attr / sizeof *conn_attr), "MRC_ATTR_"},
        {fmt_attr, (unsigned)(sizeof fmt_attr / sizeof *fmt_attr), "MRC_EV_FMT_ATTR_"},
        {prof_attr, (unsigned)(sizeof prof_attr / sizeof *prof_attr), "MRC_EV_PROF_ATTR_"},
        {cc_attr, (unsigned)(sizeof cc_attr / sizeof *cc_attr), "MRC_CC_PROF_ATTR_"}};
    const char *const *names = (const char *const *)0;
    const char *prefix = "";
    unsigned nnames = 0, i, first = 1;
    size_t at = 0;
    char num[8];
    if (!buf || !cap) return 0;
    buf[0] = 0;
    if (!d) return 0;
    at = mrc__cat(buf, cap, at, d->call < MRC_CALL_COUNT ? calls[d->call] : "?");
    at = mrc__cat(buf, cap, at, ": ");
    at = mrc__cat(buf, cap, at, mrc__err_sym(d->err));
    if (d->err == MRC_OK) return at;
    at = mrc__cat(buf, cap, at, ": ");
    at = mrc__cat(buf, cap, at, mrc_detail_name(d->code));
    if (d->call >= MRC_CALL_CONN_MODIFY && d->call <= MRC_CALL_CC_PROFILE_MODIFY) {
        names = attrs[d->call - MRC_CALL_CONN_MODIFY].names;
        nnames = attrs[d->call - MRC_CALL_CONN_MODIFY].n;
        prefix = attrs[d->call - MRC_CALL_CONN_MODIFY].prefix;
    }
    for (i = 0; i < 32; i++) {
        if (!((d->attr >> i) & 1u)) continue;
        at = mrc__cat(buf, cap, at, first ? ": " : "|");
        first = 0;
        if (i < nnames) {
            at = mrc__cat(buf, cap, at, prefix);
            at = mrc__cat(buf, cap, at, names[i]);
        } else {
            at = mrc__cat(buf, cap, at, "bit ");
            num[0] = (char)('0' + i / 10u), num[1] = (char)('0' + i % 10u), num[2] = 0;
            at = mrc__cat(buf, cap, at, i < 10 ? num + 1 : num);
        }
    }
    switch (d->code) {
    case MRC_DETAIL_FIELD_WIDTH: case MRC_DETAIL_FIELD_INIT_VAL: case MRC_DETAIL_FIELD_MASK:
    case MRC_DETAIL_FIELD_RANGE: case MRC_DETAIL_FIELD_FIXED: prefix = " (field "; break;
    case MRC_DETAIL_EV_UNPOPULATED: prefix = " (EV "; break;
    case MRC_DETAIL_EV_EXPAND: prefix = d->call == MRC_CALL_EV_OP ? " (entry " : " (EV "; break;
    case MRC_DETAIL_EV_NOT_FOUND: case MRC_DETAIL_EV_STATE: case MRC_DETAIL_EV_PORT: prefix = " (entry "; break;
    case MRC_DETAIL_CFG_DSCP: prefix = " (class "; break;
    default: prefix = (const char *)0; break;
    }
    if (prefix) {
        unsigned v = d->index, k = 0;
        char tmp[6];
        at = mrc__cat(buf, cap, at, prefix);
        do { tmp[k++] = (char)('0' + v % 10u); v /= 10u; } while (v && k < sizeof tmp);
        for (i = 0; i < k; i++) num[i] = tmp[k - 1u - i];
        num[k] = 0;
        at = mrc__cat(buf, cap, at, num);
        at = mrc__cat(buf, cap, at, ")");
    }
    return at;
}
#endif /* MRC_NO_STRINGS */
