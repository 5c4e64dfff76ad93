/* fuzz_ev.c - EV Format profiles, EV profiles, the EV expansion algorithm and the EV header encoder, against a
 * reference written here from the protocol notes (4.16 EV expansion, 3.10 EV encodings) and the API comments.
 *
 * Input: [mode][...]. Mode bit 0 clear: one expansion. Mode bit 0 set: a control-plane session on one endpoint.
 *
 * Expansion: an arbitrary EV Format (mode, field widths) and EV profile (width, init_val, min/max, mask per field),
 * shaped so that most are valid and many are just invalid, an abstract EV of 0..34 bytes and an output buffer of
 * 0..40 bytes (exact-size heap copies, so ASan sees any read or write past them). Oracles:
 *   - mrc_ev_profile_check accepts exactly what the reference validation accepts (format: 1..MRC_MAX_EV_FIELDS
 *     fields of 1..32 bits, at most the mode's width - UDP 16, STEV 32, SRv6 256; profile: 1..format fields, each
 *     1..32 bits and at most its format field, init_val and mask inside the width, a masked field min <= max <
 *     2^popcount(mask), a fixed field min = max = 0, at most 8 x MRC_EV_BYTES abstract bits);
 *   - mrc_ev_expand returns what the reference returns (INVAL for an invalid profile or abstract EV, NOBUF for a short
 *     output, else the format's width) and writes exactly the reference bits; an invalid profile or a short output
 *     leaves the output untouched;
 *   - independently of the reference, every valid expansion keeps each field's fixed bits (init_val outside the
 *     mask), fits each field in its profile width, takes the abstract bits in order (highest mask bit first), and
 *     leaves the bits past the last field zero.
 *
 * Session: an endpoint with 1..4 ports and three QPs; records of EV Format / EV profile modify and query calls with
 * shaped attributes and masks, EV operations (REPLACE with ALL_COPIES, MODIFY_STATE, QUERY_STATE, QUERY_ARRAY), QPs
 * moving between RESET and RTS on a chosen profile (AUTO or a controller's), posted writes and poll_tx, ports going
 * down and up, time, and the header encoder on arbitrary txinfo. Oracles:
 *   - any call that fails (and an EV operation that fails on its first entry) leaves the endpoint and every QP
 *     byte-identical (the endpoint's clock excepted); return codes are the documented ones;
 *   - after every call: an ONLINE format has a valid width; an ONLINE profile's format exists and is ONLINE, its
 *     fields pass the reference check, and every EV is populated on a real port and stored expanded exactly as the
 *     reference expands it (path bytes, path length, wire entropy); a GEN profile that just went ONLINE generated each
 *     field inside [min_val, max_val] (non-zero for 0, 0); profile reference counts equal the QPs using them and
 *     only ONLINE profiles are used; each QP's EV set mirrors its profile (value, port, DENIED), the ASSUMED_BAD
 *     counts of the profile equal the QPs holding each EV bad, and mrc_conn_check passes;
 *   - every packet a QP emits leaves on an up port through one of its EVs that is not DENIED; its txinfo carries the
 *     profile's format, path length and the reference path of that EV (AUTO: a UDP source port in the configured
 *     range); mrc_endpoint_ev_headers derives the UDP source port, flow label and SRv6 DA/SRH exactly as the reference
 *     mapping does (Q16 stev_sport_high either way), and rejects what it must. */
#include "fuzz_common.h"

#define FZ_MAX_OPS 200
#define FZ_NQ 3
#define FZ_MAXBITS (8u * MRC_EV_BYTES)

/* ---- reference: docs/PROTOCOL.md 7.1 ------------------------------------------------------------------------------------ */
static unsigned ref_mode_max(unsigned mode) {
    unsigned m = mode == MRC_EV_FMT_UDP ? 16u : mode == MRC_EV_FMT_STEV ? 32u : mode == MRC_EV_FMT_SRV6 ? 256u : 0u;
    return m < FZ_MAXBITS ? m : FZ_MAXBITS;
}
static unsigned ref_fmt_bits(const mrc_ev_fmt_attr *f) {
    unsigned i, sum = 0;
    if (f->nfields < 1 || f->nfields > MRC_MAX_EV_FIELDS) return 0;
    for (i = 0; i < f->nfields; i++) {
        if (f->width[i] < 1 || f->width[i] > 32) return 0;
        sum += f->width[i];
    }
    return sum <= ref_mode_max(f->mode) ? sum : 0u;
}
static unsigned ref_popcount(uint32_t v) {
    unsigned i, n = 0;
    for (i = 0; i < 32; i++) n += (v >> i) & 1u;
    return n;
}
static int ref_check(const mrc_ev_fmt_attr *fmt, const mrc_ev_field *f, unsigned nf) {
    unsigned i, abits = 0;
    if (!ref_fmt_bits(fmt) || nf < 1 || nf > fmt->nfields) return 0;
    for (i = 0; i < nf; i++) {
        uint64_t lim = (uint64_t)1 << f[i].width % 64u;
        unsigned k = ref_popcount(f[i].mask);
        if (f[i].width < 1 || f[i].width > 32 || f[i].width > fmt->width[i]) return 0;
        if ((uint64_t)f[i].init_val >= lim || (uint64_t)f[i].mask >= lim) return 0;
        if (f[i].mask) {
            if (f[i].min_val > f[i].max_val || (uint64_t)f[i].max_val >= ((uint64_t)1 << k)) return 0;
        } else if (f[i].min_val || f[i].max_val) {
            return 0;
        }
        abits += k;
    }
    return abits <= FZ_MAXBITS;
}
/* bit-by-bit: the highest set mask bit takes the first abstract bit read */
static int ref_expand(const mrc_ev_fmt_attr *fmt, const mrc_ev_field *f, unsigned nf, const uint8_t *abs,
                      size_t abs_len, uint8_t *out, size_t out_len) {
    static uint8_t ab[8 * (MRC_EV_BYTES + 8)], ob[8 * (MRC_EV_BYTES + 8)];
    unsigned i, b, s = 0, d = 0, nabs, bits;
    if (!ref_check(fmt, f, nf)) return MRC_ERR_INVAL;
    if (!abs || !out || abs_len > MRC_EV_BYTES) return MRC_ERR_INVAL;
    bits = ref_fmt_bits(fmt);
    if (out_len * 8u < bits) return MRC_ERR_NOBUF;
    nabs = (unsigned)abs_len * 8u;
    for (b = 0; b < nabs; b++) ab[b] = (uint8_t)((abs[b / 8u] >> (7u - b % 8u)) & 1u);
    memset(ob, 0, sizeof ob);
    for (i = 0; i < fmt->nfields; i++) {
        uint64_t v = 0;
        unsigned fw = fmt->width[i], j;
        if (i < nf) {
            v = f[i].init_val;
            for (j = 32; j-- > 0;) {
                if (!((f[i].mask >> j) & 1u)) continue;
                if (s >= nabs) return MRC_ERR_INVAL;
                v = (v & ~((uint64_t)1 << j)) | ((uint64_t)ab[s++] << j);
            }
        }
        for (j = 0; j < fw; j++) ob[d + j] = (uint8_t)((v >> (fw - 1u - j)) & 1u);
        d += fw;
    }
    for (; s < nabs; s++)
        if (ab[s]) return MRC_ERR_INVAL;
    memset(out, 0, out_len);
    for (b = 0; b < d; b++) out[b / 8u] = (uint8_t)(out[b / 8u] | (ob[b] << (7u - b % 8u)));
    return (int)bits;
}
static uint32_t ref_bits(const uint8_t *p, unsigned s, unsigned k) {
    uint32_t v = 0;
    unsigned i;
    for (i = 0; i < k; i++) v = (v << 1) | ((p[(s + i) / 8u] >> (7u - (s + i) % 8u)) & 1u);
    return v;
}
/* the wire entropy of an expanded EV (Q18): the whole expansion (<= 32 bits), or in SRv6 mode the first 1..32
 * abstract bits, else the EV's index */
static uint32_t ref_entropy(const mrc_ev_fmt_attr *fmt, const mrc_ev_field *f, unsigned nf, const uint8_t *val,
                            const uint8_t *path, unsigned idx) {
    unsigned i, abits = 0;
    if (fmt->mode != MRC_EV_FMT_SRV6) return ref_bits(path, 0, ref_fmt_bits(fmt));
    for (i = 0; i < nf; i++) abits += ref_popcount(f[i].mask);
    return abits >= 1 && abits <= 32 ? ref_bits(val, 0, abits) : idx;
}

/* ---- shaped inputs ---------------------------------------------------------------------------------------------- */
static uint32_t fz_wmask(unsigned w) { return w >= 32 ? 0xFFFFFFFFu : (1u << w) - 1u; }

static void fz_gen_fmt(fz_in *in, mrc_ev_fmt_attr *f) {
    static const uint8_t modes[4] = {MRC_EV_FMT_UDP, MRC_EV_FMT_STEV, MRC_EV_FMT_SRV6, 0};
    uint8_t sel = fz_u8(in);
    unsigned i, budget;
    memset(f, 0, sizeof *f);
    f->mode = (sel & 3u) == 3u ? fz_u8(in) : modes[sel & 3u];
    f->nfields = (sel & 0x80u) ? fz_u8(in) : (uint8_t)(1u + (sel >> 2) % MRC_MAX_EV_FIELDS);
    budget = ref_mode_max(f->mode);
    for (i = 0; i < MRC_MAX_EV_FIELDS; i++) {
        unsigned w = fz_u8(in);
        if (!(sel & 0x40u)) { /* shaped: fields that share the mode's width, most of the time */
            unsigned left = f->nfields > i ? (unsigned)f->nfields - i : 1u, share = budget / left;
            w = w % 4u == 0 ? (share > 32u ? 32u : share ? share : 1u) : 1u + w % 32u;
            budget = budget > w ? budget - w : 0u;
        }
        f->width[i] = (uint8_t)w;
    }
}

static void fz_gen_field(fz_in *in, mrc_ev_field *f, unsigned fw) {
    uint8_t sel = fz_u8(in);
    unsigned w, k;
    uint32_t wm, r;
    memset(f, 0, sizeof *f);
    if ((sel & 0xE0u) == 0xE0u) { /* raw */
        f->width = fz_u8(in);
        f->init_val = fz_u32(in);
        f->min_val = fz_u32(in);
        f->max_val = fz_u32(in);
        f->mask = fz_u32(in);
        return;
    }
    w = (sel & 0x10u) ? 1u + fz_u8(in) % 33u : (fw >= 1 && fw <= 32 ? fw : 16u);
    f->width = w;
    wm = fz_wmask(w);
    switch (sel & 7u) {
    case 0: f->mask = 0; break;               /* fixed */
    case 1: case 2: f->mask = wm; break;      /* full */
    case 3: f->mask = 0xFu & wm; break;       /* low nibble */
    case 4: f->mask = 0x0F0Fu & wm; break;    /* non-contiguous */
    default: f->mask = fz_u32(in) & ((sel & 8u) ? 0xFFFFFFFFu : wm); break;
    }
    r = fz_u32(in);
    f->init_val = (sel & 0x08u) && (sel & 7u) == 0 ? r : r & wm;
    k = ref_popcount(f->mask);
    if (f->mask) {
        uint32_t km = fz_wmask(k), a, b;
        switch ((sel >> 5) & 3u) {
        case 0: break; /* 0, 0: any non-zero value */
        case 1:
            a = fz_u32(in) & km;
            b = fz_u32(in) & km;
            f->min_val = a < b ? a : b;
            f->max_val = a < b ? b : a;
            break;
        case 2: f->min_val = f->max_val = fz_u32(in) & km; break;
        default: f->min_val = fz_u32(in); f->max_val = fz_u32(in); break;
        }
    } else if (((sel >> 5) & 3u) == 3u) {
        f->max_val = fz_u8(in);
    }
}

/* ---- mode 0: one expansion ------------------------------------------------------------------------------------ */
static void fz_expand_one(fz_in *in) {
    mrc_ev_fmt_attr fmt;
    mrc_ev_field f[MRC_MAX_EV_FIELDS + 1];
    uint8_t sel, *abs, *out, want[MRC_EV_BYTES + 8], *abs_arg;
    size_t abs_len, out_len, n, i;
    unsigned nf;
    int ok, rc, wrc;
    fz_gen_fmt(in, &fmt);
    sel = fz_u8(in);
    nf = (sel & 0x80u) ? fz_u8(in) % (MRC_MAX_EV_FIELDS + 2u) : (fmt.nfields >= 1 && fmt.nfields <= MRC_MAX_EV_FIELDS
                                                                    ? fmt.nfields - (unsigned)((sel >> 4) & 1u)
                                                                    : 1u);
    if (nf > MRC_MAX_EV_FIELDS) nf = MRC_MAX_EV_FIELDS + 1u; /* one too many: must be rejected */
    for (i = 0; i < nf; i++) fz_gen_field(in, &f[i], i < MRC_MAX_EV_FIELDS ? fmt.width[i] : 16u);
    /* the abstract EV: shaped to the masks, or raw */
    abs_len = (sel & 0x40u) ? fz_u8(in) % (MRC_EV_BYTES + 3u) : MRC_EV_BYTES;
    abs = (uint8_t *)malloc(abs_len ? abs_len : 1u);
    if (!abs) return;
    memset(abs, 0, abs_len ? abs_len : 1u);
    if (sel & 0x20u) {
        n = abs_len;
        memcpy(abs, fz_bytes(in, &n), n);
    } else { /* field by field: a k-bit value at the cursor, the rest zero */
        unsigned s = 0;
        for (i = 0; i < nf && i < MRC_MAX_EV_FIELDS; i++) {
            unsigned k = ref_popcount(f[i].mask), j;
            uint32_t v = fz_u32(in);
            for (j = 0; j < k && s < abs_len * 8u; j++, s++)
                if ((v >> (k - 1u - j)) & 1u) abs[s / 8u] = (uint8_t)(abs[s / 8u] | (0x80u >> (s % 8u)));
        }
        if (sel & 0x08u && abs_len) abs[abs_len - 1u] ^= 1u; /* a stray bit at the end */
    }
    out_len = (sel & 0x04u) ? fz_u8(in) % 41u : MRC_EV_BYTES;
    out = (uint8_t *)malloc(out_len ? out_len : 1u);
    if (!out) {
        free(abs);
        return;
    }
    memset(out, 0xA5, out_len ? out_len : 1u);
    abs_arg = (sel & 0x02u) && (sel & 0x01u) ? (uint8_t *)0 : abs;

    ok = ref_check(&fmt, f, nf);
    rc = mrc_ev_profile_check(&fmt, f, nf);
    FZ_CHECK(rc == (ok ? MRC_OK : MRC_ERR_INVAL), "profile_check returned %d, the reference says %s", rc,
             ok ? "valid" : "invalid");
    memset(want, 0, sizeof want);
    wrc = ref_expand(&fmt, f, nf, abs_arg, abs_len, want, out_len < sizeof want ? out_len : sizeof want);
    if (out_len > sizeof want && wrc == MRC_ERR_NOBUF) wrc = MRC_ERR_INVAL; /* cannot happen: out_len <= 40 */
    rc = mrc_ev_expand(&fmt, f, nf, abs_arg, abs_len, out, out_len);
    FZ_CHECK(rc == wrc, "mrc_ev_expand returned %d, the reference %d (fmt mode %u nfields %u, %u fields, abs %zu "
                        "bytes, out %zu bytes)",
             rc, wrc, fmt.mode, fmt.nfields, nf, abs_len, out_len);
    if (!ok || !abs_arg || abs_len > MRC_EV_BYTES || rc == MRC_ERR_NOBUF) {
        for (i = 0; i < out_len; i++) FZ_CHECK(out[i] == 0xA5u, "a rejected expansion wrote output byte %zu", i);
    }
    if (rc >= 0) {
        unsigned d = 0, s = 0, fi;
        FZ_CHECK((unsigned)rc == ref_fmt_bits(&fmt), "width %d", rc);
        FZ_CHECK(memcmp(out, want, out_len) == 0, "expanded bytes differ from the reference");
        /* the rules, restated without the reference */
        for (fi = 0; fi < fmt.nfields; fi++) {
            unsigned fw = fmt.width[fi];
            uint32_t v = ref_bits(out, d, fw);
            if (fi < nf) {
                uint32_t m = f[fi].mask, got = 0, j;
                unsigned k = ref_popcount(m);
                FZ_CHECK((uint64_t)v < ((uint64_t)1 << f[fi].width), "field %u: %#x does not fit %u bits", fi, v,
                         f[fi].width);
                FZ_CHECK((v & ~m) == (f[fi].init_val & ~m), "field %u: fixed bits %#x, init_val %#x mask %#x", fi, v,
                         f[fi].init_val, m);
                for (j = 32; j-- > 0;)
                    if ((m >> j) & 1u) got = (got << 1) | ((v >> j) & 1u);
                FZ_CHECK(!k || got == ref_bits(abs, s, k), "field %u: EV bits %#x, abstract bits %#x", fi, got,
                         ref_bits(abs, s, k));
                s += k;
            } else {
                FZ_CHECK(v == 0, "format field %u past the profile's fields is %#x", fi, v);
            }
            d += fw;
        }
        for (; d < out_len * 8u; d++) FZ_CHECK(!ref_bits(out, d, 1), "output bit %u past the format is set", d);
        for (; s < abs_len * 8u; s++) FZ_CHECK(!ref_bits(abs, s, 1), "abstract bit %u left over, yet accepted", s);
    }
    free(abs);
    free(out);
}

/* ---- mode 1: a control-plane session ---------------------------------------------------------------------------- */
static struct {
    mrc_config cfg;
    mrc_endpoint ep;
    mrc_conn q[FZ_NQ];
    int attached[FZ_NQ];
    mrc_time now;
    uint8_t region[4096];
    uint8_t src[4096];
    uint32_t rkey;
    uint8_t txbuf[MRC_HDR_MAX + 4096 + 8];
    /* snapshots for "a failed call changes nothing" */
    mrc_endpoint ep0;
    mrc_conn q0[FZ_NQ];
    /* GEN profiles that just went ONLINE */
    int gen_check;
} g;

static uint64_t fz_pick_id(fz_in *in) {
    uint8_t b = fz_u8(in);
    if ((b & 0xC0u) == 0xC0u) return fz_u64(in);
    return b % 5u; /* 0 (AUTO / invalid), 1..4 */
}

static void fz_snap(void) {
    memcpy(&g.ep0, &g.ep, sizeof g.ep);
    memcpy(g.q0, g.q, sizeof g.q);
}
static void fz_unchanged(const char *what, int rc) {
    mrc_endpoint e = g.ep0;
    mrc_detail d;
    e.now = g.ep.now; /* the clock may move */
    /* the one thing a failed call writes: its error detail, which must name that error and a rule (a successful
     * query, also checked here, may reset it) */
    FZ_CHECK(mrc_endpoint_last_error(&g.ep, &d) == MRC_OK, "last_error");
    if (rc < 0)
        FZ_CHECK(d.err == rc && d.code != MRC_DETAIL_NONE && d.code < MRC_DETAIL_COUNT,
                 "%s failed (%d) but its error detail says err %d code %u", what, rc, d.err, d.code);
    e.detail = g.ep.detail;
    FZ_CHECK(memcmp(&e, &g.ep, sizeof e) == 0, "%s failed (%d) but changed the endpoint", what, rc);
    FZ_CHECK(memcmp(g.q0, g.q, sizeof g.q) == 0, "%s failed (%d) but changed a QP", what, rc);
}

static const mrc__evfmt *fz_fmt(uint64_t id) {
    unsigned i;
    for (i = 0; i < MRC_MAX_EV_FMTS; i++)
        if (g.ep.fmts[i].used && g.ep.fmts[i].id == id) return &g.ep.fmts[i];
    return (const mrc__evfmt *)0;
}

/* the profile's EVs and the fields they expand through, read through the public API */
typedef struct fz_pview {
    mrc_ev_profile_attr a;
    mrc_ev_fmt_attr f;
    mrc_ev_op_entry e[MRC_MAX_EVS];
    uint32_t n;
} fz_pview;
static int fz_view(uint64_t id, fz_pview *v) {
    uint32_t n = MRC_MAX_EVS;
    if (id == 0) return 0; /* AUTO: no array the controller can see */
    if (mrc_ev_profile_query(&g.ep, id, &v->a) != MRC_OK) return 0;
    if (mrc_ev_fmt_query(&g.ep, v->a.fmt_id, &v->f) != MRC_OK) memset(&v->f, 0, sizeof v->f);
    FZ_CHECK(mrc_ev_op(&g.ep, id, MRC_EV_OP_QUERY_ARRAY, v->e, &n, g.now) == MRC_OK && n == v->a.ev_count,
             "QUERY_ARRAY of profile %llu: %u entries, ev_count %u", (unsigned long long)id, n, v->a.ev_count);
    v->n = n;
    return 1;
}

FZ_NOCOV static void fz_check_profiles(int deep) {
    unsigned i, j, k;
    uint16_t refs[MRC_MAX_EV_PROFILES];
    memset(refs, 0, sizeof refs);
    for (i = 0; i < MRC_MAX_EV_FMTS; i++) {
        const mrc__evfmt *f = &g.ep.fmts[i];
        if (!f->used) continue;
        FZ_CHECK(f->id != 0 && f->a.state >= MRC_PROFILE_OFFLINE && f->a.state <= MRC_PROFILE_ONLINE,
                 "format %llu in state %u", (unsigned long long)f->id, f->a.state);
        FZ_CHECK(f->a.mode == MRC_EV_FMT_UDP || f->a.mode == MRC_EV_FMT_STEV || f->a.mode == MRC_EV_FMT_SRV6,
                 "format mode %u", f->a.mode);
        if (f->a.nfields || f->a.state == MRC_PROFILE_ONLINE)
            FZ_CHECK(ref_fmt_bits(&f->a) != 0, "format %llu (state %u) holds an invalid width", (unsigned long long)f->id,
                     f->a.state);
        for (j = i + 1u; j < MRC_MAX_EV_FMTS; j++)
            FZ_CHECK(!g.ep.fmts[j].used || g.ep.fmts[j].id != f->id, "two formats with ID %llu",
                     (unsigned long long)f->id);
    }
    for (k = 0; k < FZ_NQ; k++)
        if (g.attached[k] && g.q[k].ev_prof) refs[g.q[k].ev_prof - 1u]++;
    for (i = 0; i < MRC_MAX_EV_PROFILES; i++) {
        const mrc__evprof *p = &g.ep.profs[i];
        const mrc__evfmt *f;
        if (!p->used) {
            FZ_CHECK(refs[i] == 0, "a QP uses an unused profile slot");
            continue;
        }
        FZ_CHECK(p->refs == refs[i], "profile %llu: refs %u, %u QPs use it", (unsigned long long)p->id, p->refs, refs[i]);
        FZ_CHECK(!refs[i] || p->state == MRC_PROFILE_ONLINE, "QPs use profile %llu in state %u",
                 (unsigned long long)p->id, p->state);
        FZ_CHECK(p->id != 0 && p->state >= MRC_PROFILE_OFFLINE && p->state <= MRC_PROFILE_ONLINE, "profile state %u",
                 p->state);
        FZ_CHECK(p->ev_count >= 1 && p->ev_count <= MRC_MAX_EVS && p->ev_min_active <= p->ev_count,
                 "profile count %u min_active %u", p->ev_count, p->ev_min_active);
        if (p->state != MRC_PROFILE_ONLINE) continue;
        f = fz_fmt(p->fmt_id);
        FZ_CHECK(f && f->a.state == MRC_PROFILE_ONLINE, "ONLINE profile %llu on format %llu, which is not ONLINE",
                 (unsigned long long)p->id, (unsigned long long)p->fmt_id);
        FZ_CHECK(ref_check(&f->a, p->field, p->nfields), "ONLINE profile %llu: its fields fail the reference check",
                 (unsigned long long)p->id);
        FZ_CHECK(p->fmt_mode == f->a.mode, "profile fmt_mode %u, format %u", p->fmt_mode, f->a.mode);
        FZ_CHECK(p->path_len == (f->a.mode != MRC_EV_FMT_SRV6 ? 0u : ref_fmt_bits(&f->a) > 128u ? 32u : 16u),
                 "path_len %u for mode %u width %u", p->path_len, f->a.mode, ref_fmt_bits(&f->a));
        for (j = 0; j < p->ev_count; j++) {
            const mrc__event *e = &p->ev[j];
            unsigned bad = 0;
            FZ_CHECK(e->port >= 1 && e->port <= g.cfg.num_ports, "profile %llu EV %u on port %u",
                     (unsigned long long)p->id, j, e->port);
            if (deep) { /* after calls that may change profiles: the stored expansion */
                uint8_t path[MRC_EV_BYTES];
                int rc = ref_expand(&f->a, p->field, p->nfields, e->val, MRC_EV_BYTES, path, sizeof path);
                FZ_CHECK(rc > 0, "profile %llu EV %u does not expand (%d)", (unsigned long long)p->id, j, rc);
                FZ_CHECK(memcmp(path, e->path, sizeof path) == 0, "profile %llu EV %u: stored path differs",
                         (unsigned long long)p->id, j);
                FZ_CHECK(e->entropy == ref_entropy(&f->a, p->field, p->nfields, e->val, path, j),
                         "profile %llu EV %u: entropy %#x, want %#x", (unsigned long long)p->id, j, e->entropy,
                         ref_entropy(&f->a, p->field, p->nfields, e->val, path, j));
            }
            if (f->a.mode == MRC_EV_FMT_UDP) FZ_CHECK(e->entropy <= 0xFFFFu, "UDP entropy %#x", e->entropy);
            for (k = 0; k < FZ_NQ; k++) {
                uint32_t st;
                if (!g.attached[k] || g.q[k].ev_prof != i + 1u) continue;
                FZ_CHECK(mrc_conn_ev_get(&g.q[k], j, (uint32_t *)0, (uint8_t *)0, &st) == MRC_OK, "ev_get");
                bad += st == MRC_EVS_ASSUMED_BAD;
                FZ_CHECK((st == MRC_EVS_DENIED) == (e->denied != 0), "QP %u EV %u state %#x, profile denied %u", k, j,
                         st, e->denied);
            }
            FZ_CHECK(e->bad_refs == bad, "profile %llu EV %u: bad_refs %u, %u QPs hold it bad",
                     (unsigned long long)p->id, j, e->bad_refs, bad);
            if (g.gen_check == (int)i + 1 && p->mode == MRC_EV_MODE_GEN) { /* generated within the ranges */
                unsigned s = 0, fi;
                for (fi = 0; fi < p->nfields; fi++) {
                    unsigned kk = ref_popcount(p->field[fi].mask);
                    uint32_t v;
                    if (!kk) continue;
                    v = ref_bits(e->val, s, kk);
                    if (!p->field[fi].min_val && !p->field[fi].max_val)
                        FZ_CHECK(v != 0, "GEN EV %u field %u: zero, want any non-zero value", j, fi);
                    else
                        FZ_CHECK(v >= p->field[fi].min_val && v <= p->field[fi].max_val,
                                 "GEN EV %u field %u: %#x outside [%#x, %#x]", j, fi, v, p->field[fi].min_val,
                                 p->field[fi].max_val);
                    s += kk;
                }
                FZ_CHECK(e->port == j % g.cfg.num_ports + 1u, "GEN EV %u on port %u", j, e->port);
            }
        }
    }
    g.gen_check = 0;
    for (k = 0; k < FZ_NQ; k++) {
        const mrc_conn *c = &g.q[k];
        int rc;
        if (!g.attached[k]) continue;
        rc = mrc_conn_check(c);
        FZ_CHECK(rc == 0, "mrc_conn_check of QP %u: rule %d", k, rc);
        if (c->ev_prof && mrc_conn_state(c) != MRC_QPS_RESET) {
            const mrc__evprof *p = &g.ep.profs[c->ev_prof - 1u];
            FZ_CHECK(mrc_conn_ev_count(c) == p->ev_count, "QP %u has %u EVs, its profile %u", k, mrc_conn_ev_count(c),
                     p->ev_count);
            for (j = 0; j < p->ev_count; j++) {
                uint32_t ev;
                uint8_t port;
                FZ_CHECK(mrc_conn_ev_get(c, j, &ev, &port, (uint32_t *)0) == MRC_OK && ev == p->ev[j].entropy &&
                             port == p->ev[j].port,
                         "QP %u EV %u: %#x on port %u, the profile's %#x on %u", k, j, ev, port, p->ev[j].entropy,
                         p->ev[j].port);
            }
        }
    }
}

/* ---- the encoder ------------------------------------------------------------------------------------------------ */
static void fz_ref_headers(const mrc_txinfo *ti, int *rc, mrc_ev_hdrs *h) {
    uint32_t hi = ti->ev >> 16, lo = ti->ev & 0xFFFFu;
    memset(h, 0, sizeof *h);
    *rc = MRC_OK;
    if (ti->ev_fmt == MRC_EV_FMT_UDP) {
        h->udp_sport = (uint16_t)lo;
        return;
    }
    if (ti->ev_fmt == MRC_EV_FMT_SRV6) {
        if ((ti->path_len != 16 && ti->path_len != 32) || !ti->path) {
            *rc = MRC_ERR_INVAL;
            return;
        }
        h->has_srv6 = 1;
        memcpy(h->srv6_da, ti->path, 16);
        if (ti->path_len == 32) {
            h->has_srh = 1;
            memcpy(h->srh_seg, ti->path + 16, 16);
        }
    } else if (ti->ev_fmt != MRC_EV_FMT_STEV) {
        *rc = MRC_ERR_INVAL;
        return;
    }
    h->udp_sport = (uint16_t)(g.cfg.stev_sport_high ? hi : lo);
    h->flow_label = g.cfg.stev_sport_high ? lo : hi;
}
static void fz_check_headers(const mrc_txinfo *ti) {
    mrc_ev_hdrs h, want;
    int rc, wrc;
    memset(&h, 0x5C, sizeof h);
    rc = mrc_endpoint_ev_headers(&g.ep, ti, &h);
    fz_ref_headers(ti, &wrc, &want);
    FZ_CHECK(rc == wrc, "ev_headers returned %d, want %d (fmt %u path_len %u)", rc, wrc, ti->ev_fmt, ti->path_len);
    if (rc == MRC_OK) {
        FZ_CHECK(h.udp_sport == want.udp_sport && h.flow_label == want.flow_label && h.has_srv6 == want.has_srv6 &&
                     h.has_srh == want.has_srh,
                 "ev_headers: sport %#x flow %#x srv6 %u srh %u, want %#x %#x %u %u", h.udp_sport, h.flow_label,
                 h.has_srv6, h.has_srh, want.udp_sport, want.flow_label, want.has_srv6, want.has_srh);
        FZ_CHECK(h.flow_label <= 0xFFFFFu, "flow label %#x wider than 20 bits", h.flow_label);
        FZ_CHECK(!want.has_srv6 || memcmp(h.srv6_da, want.srv6_da, 16) == 0, "SRv6 DA differs");
        FZ_CHECK(!want.has_srh || memcmp(h.srh_seg, want.srh_seg, 16) == 0, "SRH segment differs");
    }
}

static void fz_check_tx(const mrc_txinfo *ti) {
    unsigned k, j;
    const mrc_conn *c = (const mrc_conn *)0;
    fz_check_headers(ti);
    FZ_CHECK(mrc_endpoint_port_up(&g.ep, ti->port), "sent on port %u, which is down", ti->port);
    if (ti->qpn == MRC_EPOP_QPN) return;
    for (k = 0; k < FZ_NQ; k++)
        if (g.attached[k] && mrc_conn_qpn(&g.q[k]) == ti->qpn) c = &g.q[k];
    FZ_CHECK(c != (const mrc_conn *)0, "a packet from qpn %#x, no such QP", ti->qpn);
    if (!c->ev_prof) { /* AUTO */
        int found = 0;
        FZ_CHECK(ti->ev_fmt == MRC_EV_FMT_UDP && ti->path_len == 0, "AUTO EV with format %u path %u", ti->ev_fmt,
                 ti->path_len);
        FZ_CHECK(ti->ev >= g.cfg.auto_ev.sport_min && ti->ev <= g.cfg.auto_ev.sport_max, "AUTO EV %#x outside [%#x, %#x]", ti->ev,
                 g.cfg.auto_ev.sport_min, g.cfg.auto_ev.sport_max);
        for (j = 0; j < mrc_conn_ev_count(c) && !found; j++) {
            uint32_t ev, st;
            uint8_t port;
            (void)mrc_conn_ev_get(c, j, &ev, &port, &st);
            found = ev == ti->ev && port == ti->port;
        }
        FZ_CHECK(found, "AUTO EV %#x on port %u is none of the QP's", ti->ev, ti->port);
    } else {
        const mrc__evprof *p = &g.ep.profs[c->ev_prof - 1u];
        const mrc__evfmt *f = fz_fmt(p->fmt_id);
        int found = 0;
        FZ_CHECK(f != (const mrc__evfmt *)0, "profile without a format");
        FZ_CHECK(ti->ev_fmt == f->a.mode, "txinfo format %u, the profile's %u", ti->ev_fmt, f->a.mode);
        FZ_CHECK(ti->path_len == p->path_len && (!ti->path_len || ti->path), "txinfo path_len %u, want %u",
                 ti->path_len, p->path_len);
        for (j = 0; j < p->ev_count && !found; j++) {
            uint8_t path[MRC_EV_BYTES];
            if (p->ev[j].port != ti->port || p->ev[j].denied) continue;
            if (ref_expand(&f->a, p->field, p->nfields, p->ev[j].val, MRC_EV_BYTES, path, sizeof path) <= 0) continue;
            if (ref_entropy(&f->a, p->field, p->nfields, p->ev[j].val, path, j) != ti->ev) continue;
            found = !ti->path_len || memcmp(ti->path, path, ti->path_len) == 0;
        }
        FZ_CHECK(found, "EV %#x on port %u (path %u bytes) is none of the profile's usable EVs", ti->ev, ti->port,
                 ti->path_len);
    }
}

static void fz_poll(unsigned max) {
    unsigned i;
    for (i = 0; i < max; i++) {
        mrc_txinfo ti;
        int r = mrc_endpoint_poll_tx(&g.ep, g.txbuf, sizeof g.txbuf, 0u, &ti, g.now);
        FZ_CHECK(r >= 0, "poll_tx %d", r);
        if (r == 0) break;
        fz_check_tx(&ti);
    }
}

/* ---- session operations ----------------------------------------------------------------------------------------- */
static void fz_op_fmt(fz_in *in) {
    mrc_ev_fmt_attr a, q;
    uint64_t id = fz_pick_id(in);
    uint8_t sel = fz_u8(in);
    uint32_t mask = sel & 7u;
    const mrc__evfmt *old = fz_fmt(id);
    unsigned to, cur = old ? old->a.state : (unsigned)MRC_PROFILE_INIT;
    int rc;
    fz_gen_fmt(in, &a);
    a.state = (sel & 0x80u) ? fz_u8(in) : (uint8_t)((sel >> 3) % 3u);
    if (sel & 0x40u) mask |= (uint32_t)fz_u8(in) << 3;
    fz_snap();
    rc = mrc_ev_fmt_modify(&g.ep, id, &a, mask);
    FZ_CHECK(rc == MRC_OK || rc == MRC_ERR_INVAL || rc == MRC_ERR_STATE || rc == MRC_ERR_FULL || rc == MRC_ERR_BUSY,
             "ev_fmt_modify returned %d", rc);
    if (rc != MRC_OK) {
        fz_unchanged("ev_fmt_modify", rc);
        return;
    }
    FZ_CHECK(id != 0 && !(mask & ~7u), "ev_fmt_modify accepted ID %llu mask %#x", (unsigned long long)id, mask);
    if ((mask & MRC_EV_FMT_ATTR_MODE))
        FZ_CHECK(a.mode == MRC_EV_FMT_UDP || a.mode == MRC_EV_FMT_STEV || a.mode == MRC_EV_FMT_SRV6,
                 "accepted mode %u", a.mode);
    if (mask & MRC_EV_FMT_ATTR_FIELDS) {
        unsigned i;
        FZ_CHECK(a.nfields >= 1 && a.nfields <= MRC_MAX_EV_FIELDS, "accepted %u fields", a.nfields);
        for (i = 0; i < a.nfields; i++) FZ_CHECK(a.width[i] >= 1 && a.width[i] <= 32, "accepted width %u", a.width[i]);
    }
    rc = mrc_ev_fmt_query(&g.ep, id, &q);
    to = (mask & MRC_EV_FMT_ATTR_STATE) ? a.state : cur;
    if (to == MRC_PROFILE_INIT) {
        FZ_CHECK(rc == MRC_ERR_NOENT, "a format sent to INIT is still there (%d)", rc);
        return;
    }
    FZ_CHECK(rc == MRC_OK, "query after modify %d", rc);
    FZ_CHECK(q.state == to, "state %u after modify to %u", q.state, to);
    FZ_CHECK(!(mask & MRC_EV_FMT_ATTR_MODE) || q.mode == a.mode, "mode %u after modify to %u", q.mode, a.mode);
    if (mask & MRC_EV_FMT_ATTR_FIELDS)
        FZ_CHECK(q.nfields == a.nfields && memcmp(q.width, a.width, a.nfields) == 0, "fields not as set");
}

static void fz_op_prof(fz_in *in) {
    mrc_ev_profile_attr a, q;
    uint64_t id = fz_pick_id(in);
    uint8_t sel = fz_u8(in), s2 = fz_u8(in);
    uint32_t mask;
    unsigned i, to;
    int rc, cur;
    const mrc__evfmt *f;
    memset(&a, 0, sizeof a);
    a.state = (sel & 0x80u) ? fz_u8(in) : (uint8_t)(sel % 3u);
    a.mode = (s2 & 0x80u) ? fz_u8(in) : ((s2 & 1u) ? MRC_EV_MODE_GEN : MRC_EV_MODE_EXP);
    a.fmt_id = (s2 & 0x40u) ? fz_pick_id(in) : 1u + (s2 >> 1) % 4u;
    a.ev_count = (s2 & 0x20u) ? fz_u32(in) % (MRC_MAX_EVS + 3u) : 1u + fz_u8(in) % MRC_MAX_EVS;
    a.ev_min_active = fz_u8(in) % (a.ev_count + 2u);
    a.event_mask = (s2 & 0x10u) ? fz_u32(in) : (uint32_t)(fz_u8(in) & 3u);
    f = fz_fmt(a.fmt_id);
    a.nfields = (sel & 0x40u) ? fz_u8(in) : (f && f->a.nfields ? f->a.nfields : (uint8_t)(1u + fz_u8(in) % 4u));
    for (i = 0; i < MRC_MAX_EV_FIELDS; i++) fz_gen_field(in, &a.field[i], f && i < f->a.nfields ? f->a.width[i] : 16u);
    mask = (sel & 0x20u) ? (uint32_t)fz_u8(in) : 0x7Fu & ~(uint32_t)(fz_u8(in) & 0x3Fu);
    if (!(sel & 0x10u)) { /* the common shapes: create OFFLINE with everything; go ONLINE; go OFFLINE */
        switch ((sel >> 2) & 3u) {
        case 0: mask = 0x7Fu; a.state = MRC_PROFILE_OFFLINE; break;
        case 1: mask = MRC_EV_PROF_ATTR_STATE; a.state = MRC_PROFILE_ONLINE; break;
        case 2: mask = MRC_EV_PROF_ATTR_STATE; a.state = (uint8_t)(sel & 1u); break;
        default: break;
        }
    }
    {
        mrc_ev_profile_attr cq;
        cur = mrc_ev_profile_query(&g.ep, id, &cq) == MRC_OK ? (int)cq.state : -1;
    }
    fz_snap();
    rc = mrc_ev_profile_modify(&g.ep, id, &a, mask, g.now);
#ifdef FZ_DEBUG
    fprintf(stderr, "  profile_modify id %llu mask %#x state %u mode %u fmt %llu count %u min %u nf %u -> %d\n",
            (unsigned long long)id, mask, a.state, a.mode, (unsigned long long)a.fmt_id, a.ev_count, a.ev_min_active,
            a.nfields, rc);
#endif
    FZ_CHECK(rc == MRC_OK || rc == MRC_ERR_INVAL || rc == MRC_ERR_STATE || rc == MRC_ERR_FULL || rc == MRC_ERR_BUSY ||
                 rc == MRC_ERR_NOENT,
             "ev_profile_modify returned %d", rc);
    if (rc != MRC_OK) {
        fz_unchanged("ev_profile_modify", rc);
        return;
    }
    FZ_CHECK(id != 0 && !(mask & ~0x7Fu), "ev_profile_modify accepted ID %llu mask %#x", (unsigned long long)id, mask);
    to = (mask & MRC_EV_PROF_ATTR_STATE) ? a.state : (unsigned)(cur < 0 ? 0 : cur);
    rc = mrc_ev_profile_query(&g.ep, id, &q);
    if (to == MRC_PROFILE_INIT) {
        FZ_CHECK(rc == MRC_ERR_NOENT, "a profile sent to INIT is still there (%d)", rc);
        return;
    }
    FZ_CHECK(rc == MRC_OK && q.state == to, "profile state %u after modify to %u", q.state, to);
    if (mask & MRC_EV_PROF_ATTR_FIELDS) {
        f = fz_fmt(q.fmt_id);
        FZ_CHECK(q.nfields == a.nfields && memcmp(q.field, a.field, a.nfields * sizeof a.field[0]) == 0,
                 "fields not as set");
        if (f && f->a.nfields)
            FZ_CHECK(ref_check(&f->a, a.field, a.nfields), "accepted fields the reference rejects against format %llu",
                     (unsigned long long)q.fmt_id);
    }
    if (mask & MRC_EV_PROF_ATTR_MODE) FZ_CHECK(q.mode == a.mode, "mode");
    if (mask & MRC_EV_PROF_ATTR_COUNT) FZ_CHECK(q.ev_count == a.ev_count, "count");
    if (mask & MRC_EV_PROF_ATTR_EVENT_MASK) FZ_CHECK(q.event_mask == a.event_mask, "event mask");
    if (to == MRC_PROFILE_ONLINE && cur == MRC_PROFILE_OFFLINE) {
        for (i = 0; i < MRC_MAX_EV_PROFILES; i++)
            if (g.ep.profs[i].used && g.ep.profs[i].id == id) g.gen_check = (int)i + 1;
    }
}

/* an abstract EV shaped to a profile's fields: each field's k bits in turn, the rest zero; or raw bytes */
static void fz_gen_val(fz_in *in, const fz_pview *v, uint8_t *val) {
    uint8_t sel = fz_u8(in);
    unsigned i, s = 0;
    memset(val, 0, MRC_EV_BYTES);
    if (sel & 0x80u) {
        size_t n = MRC_EV_BYTES;
        memcpy(val, fz_bytes(in, &n), n);
        return;
    }
    for (i = 0; i < v->a.nfields && i < MRC_MAX_EV_FIELDS; i++) {
        unsigned k = ref_popcount(v->a.field[i].mask), j;
        uint32_t x = fz_u32(in);
        for (j = 0; j < k && s < FZ_MAXBITS; j++, s++)
            if ((x >> (k - 1u - j)) & 1u) val[s / 8u] = (uint8_t)(val[s / 8u] | (0x80u >> (s % 8u)));
    }
}

static void fz_op_evop(fz_in *in) {
    uint64_t id = fz_pick_id(in);
    uint8_t sel = fz_u8(in);
    unsigned op = sel & 3u, i;
    uint32_t n = 1u + ((sel >> 2) & 3u), n_in;
    mrc_ev_op_entry e[MRC_MAX_EVS + 2];
    fz_pview v;
    int rc, have = fz_view(id, &v);
    memset(e, 0, sizeof e);
    if (sel & 0x80u) op = fz_u8(in); /* maybe not an operation at all */
    for (i = 0; i < n; i++) {
        uint8_t b = fz_u8(in);
        if (have && v.n && !(b & 0x80u)) { /* an existing EV */
            e[i].ev = v.e[b % v.n].ev;
        } else {
            if (have) fz_gen_val(in, &v, e[i].ev.val);
            e[i].ev.port = fz_u8(in) % 6u;
        }
        if (have) fz_gen_val(in, &v, e[i].ev_new.val);
        e[i].ev_new.port = (uint8_t)((b & 0x40u) ? fz_u8(in) : 1u + (b >> 3) % g.cfg.num_ports);
        switch ((b >> 4) & 3u) {
        case 0: e[i].state = MRC_EVS_GOOD; break;
        case 1: e[i].state = MRC_EVS_DENIED; break;
        case 2: e[i].state = MRC_EVS_ASSUMED_BAD; break;
        default: e[i].state = fz_u32(in); break;
        }
        e[i].flags = b & 1u;
    }
    if (op == MRC_EV_OP_QUERY_ARRAY) n = fz_u8(in) % (MRC_MAX_EVS + 2u);
    n_in = n;
    fz_snap();
    rc = mrc_ev_op(&g.ep, id, op, n ? e : (mrc_ev_op_entry *)0, &n, g.now);
#ifdef FZ_DEBUG
    fprintf(stderr, "  ev_op id %llu op %u n %u -> %d (n %u) port %u new port %u state %#x\n", (unsigned long long)id, op,
            n_in, rc, n, e[0].ev.port, e[0].ev_new.port, e[0].state);
#endif
    FZ_CHECK(rc == MRC_OK || rc == MRC_ERR_INVAL || rc == MRC_ERR_NOENT || rc == MRC_ERR_NOBUF,
             "ev_op %u returned %d", op, rc);
    if (op == MRC_EV_OP_QUERY_ARRAY || op == MRC_EV_OP_QUERY_STATE) fz_unchanged("an EV query", rc);
    if (rc != MRC_OK && op != MRC_EV_OP_QUERY_ARRAY) {
        FZ_CHECK(n < n_in || op > MRC_EV_OP_QUERY_ARRAY, "ev_op failed with %u of %u entries done", n, n_in);
        if (n == 0) fz_unchanged("ev_op", rc);
    }
    if (rc == MRC_OK && op != MRC_EV_OP_QUERY_ARRAY) FZ_CHECK(n == n_in, "ev_op OK with %u of %u entries", n, n_in);
    if (rc == MRC_OK && op == MRC_EV_OP_QUERY_ARRAY) FZ_CHECK(have && n == v.a.ev_count, "QUERY_ARRAY count");
    if (rc == MRC_ERR_NOBUF) FZ_CHECK(op == MRC_EV_OP_QUERY_ARRAY && have && n_in < v.a.ev_count && n == v.a.ev_count,
                                      "NOBUF");
    if (rc == MRC_OK && op == MRC_EV_OP_QUERY_STATE)
        for (i = 0; i < n; i++)
            FZ_CHECK(e[i].state == MRC_EVS_GOOD || e[i].state == MRC_EVS_DENIED || e[i].state == MRC_EVS_ASSUMED_BAD,
                     "QUERY_STATE %#x", e[i].state);
}

static void fz_op_conn(fz_in *in) {
    uint8_t sel = fz_u8(in);
    unsigned k = sel % FZ_NQ;
    mrc_conn *c = &g.q[k];
    mrc_conn_attr a;
    int rc, st;
    if (!g.attached[k]) {
        FZ_CHECK(mrc_conn_init(&g.ep, c, g.now) == MRC_OK, "conn_init");
        g.attached[k] = 1;
    }
    st = mrc_conn_state(c);
    memset(&a, 0, sizeof a);
    if (st == MRC_QPS_RESET) {
        uint64_t pid = fz_pick_id(in);
        mrc_ev_profile_attr pq;
        int online = pid == 0 || (mrc_ev_profile_query(&g.ep, pid, &pq) == MRC_OK && pq.state == MRC_PROFILE_ONLINE);
        a.state = MRC_QPS_INIT;
        a.ev_profile_id = pid;
        fz_snap();
        rc = mrc_conn_modify(c, &a, MRC_ATTR_STATE | MRC_ATTR_EV_PROFILE | MRC_ATTR_CC_PROFILE, g.now);
        FZ_CHECK(rc == (online ? MRC_OK : MRC_ERR_NOENT), "RESET->INIT on EV profile %llu (online %d) returned %d",
                 (unsigned long long)pid, online, rc);
        if (rc != MRC_OK) {
            fz_unchanged("conn_modify", rc);
            return;
        }
        fz_conn_rts(c, 0x500u + k, 256, k & 1u, 8, g.now);
        return;
    }
    switch ((sel >> 2) & 3u) {
    case 0: case 1: { /* a write: its packets go out on the QP's EVs */
        mrc_write w;
        memset(&w, 0, sizeof w);
        w.opcode = MRC_WR_WRITE;
        w.flags = MRC_WR_UNSIGNALED;
        w.buf = g.src;
        w.len = 1u + fz_u16(in) % 2048u;
        w.remote_va = 0x1000u;
        w.rkey = 0x100u;
        rc = mrc_conn_post_write(c, &w, g.now);
        FZ_CHECK(rc == MRC_OK || rc == MRC_ERR_FULL || rc == MRC_ERR_STATE, "post_write %d", rc);
        break;
    }
    case 2: /* to RESET (gives the profile back) */
        a.state = MRC_QPS_RESET;
        FZ_CHECK(mrc_conn_modify(c, &a, MRC_ATTR_STATE, g.now) == MRC_OK, "to RESET");
        break;
    default: /* to ERR, then destroyed */
        a.state = MRC_QPS_ERR;
        FZ_CHECK(mrc_conn_modify(c, &a, MRC_ATTR_STATE, g.now) == MRC_OK, "to ERR");
        if (sel & 0x80u) {
            mrc_event ev;
            while (mrc_endpoint_poll_event(&g.ep, &ev) == 1) {
            }
            FZ_CHECK(mrc_conn_destroy(c) == MRC_OK, "destroy");
            g.attached[k] = 0;
        }
        break;
    }
}

/* A whole valid set-up in one record: a format (made ONLINE unless it already is), a profile on it with fields
 * shaped to be valid, the EXP array filled by REPLACE, then ONLINE. Every step the reference deems valid must be
 * accepted (FULL and BUSY excepted: other objects hold the slots). */
static void fz_op_build(fz_in *in) {
    uint64_t fid = 1u + fz_u8(in) % 4u, pid = 1u + fz_u8(in) % 4u;
    uint8_t sel = fz_u8(in);
    const mrc__evfmt *f = fz_fmt(fid);
    mrc_ev_fmt_attr fa;
    mrc_ev_profile_attr pa, pq;
    unsigned i, valid;
    int rc;
    if (!f || f->a.state != MRC_PROFILE_ONLINE) {
        fz_gen_fmt(in, &fa);
        if (!(sel & 0x80u)) { /* a mode it fits */
            unsigned bits = 0;
            fa.nfields = (uint8_t)(1u + fa.nfields % (MRC_MAX_EV_FIELDS < 4 ? MRC_MAX_EV_FIELDS : 4u));
            for (i = 0; i < fa.nfields; i++) bits += fa.width[i] = (uint8_t)(1u + (fa.width[i] - 1u) % 32u);
            fa.mode = bits <= 16u && (sel & 1u) ? MRC_EV_FMT_UDP : bits <= 32u && (sel & 2u) ? MRC_EV_FMT_STEV
                                                                                             : MRC_EV_FMT_SRV6;
        }
        if (f) { /* OFFLINE: forget it first */
            fa.state = MRC_PROFILE_INIT;
            if (mrc_ev_fmt_modify(&g.ep, fid, &fa, MRC_EV_FMT_ATTR_STATE) != MRC_OK) return;
        }
        valid = ref_fmt_bits(&fa) != 0;
        fa.state = MRC_PROFILE_OFFLINE;
        rc = mrc_ev_fmt_modify(&g.ep, fid, &fa, MRC_EV_FMT_ATTR_STATE | MRC_EV_FMT_ATTR_MODE | MRC_EV_FMT_ATTR_FIELDS);
        FZ_CHECK(valid ? rc == MRC_OK || rc == MRC_ERR_FULL : rc == MRC_ERR_INVAL,
                 "creating a %s format returned %d", valid ? "valid" : "invalid", rc);
        if (rc != MRC_OK) return;
        fa.state = MRC_PROFILE_ONLINE;
        rc = mrc_ev_fmt_modify(&g.ep, fid, &fa, MRC_EV_FMT_ATTR_STATE);
        FZ_CHECK(rc == MRC_OK, "format OFFLINE -> ONLINE returned %d", rc);
        f = fz_fmt(fid);
        FZ_CHECK(f != (const mrc__evfmt *)0, "format gone");
    }
    fa = f->a;
    /* the profile: OFFLINE -> INIT first when it exists (may be BUSY) */
    if (mrc_ev_profile_query(&g.ep, pid, &pq) == MRC_OK) {
        memset(&pa, 0, sizeof pa);
        if (pq.state == MRC_PROFILE_ONLINE) {
            pa.state = MRC_PROFILE_OFFLINE;
            if (mrc_ev_profile_modify(&g.ep, pid, &pa, MRC_EV_PROF_ATTR_STATE, g.now) != MRC_OK) return;
        }
        pa.state = MRC_PROFILE_INIT;
        FZ_CHECK(mrc_ev_profile_modify(&g.ep, pid, &pa, MRC_EV_PROF_ATTR_STATE, g.now) == MRC_OK, "OFFLINE -> INIT");
    }
    memset(&pa, 0, sizeof pa);
    pa.state = MRC_PROFILE_OFFLINE;
    pa.mode = (sel & 4u) ? MRC_EV_MODE_GEN : MRC_EV_MODE_EXP;
    pa.fmt_id = fid;
    pa.ev_count = 1u + fz_u8(in) % MRC_MAX_EVS;
    pa.ev_min_active = fz_u8(in) % (pa.ev_count + 1u);
    pa.event_mask = fz_u8(in) & 3u;
    pa.nfields = (uint8_t)(fa.nfields - ((sel & 8u) && fa.nfields > 1 ? 1u : 0u));
    for (i = 0; i < pa.nfields; i++) {
        fz_gen_field(in, &pa.field[i], fa.width[i]);
        if (!(sel & 0x40u)) { /* keep it valid */
            mrc_ev_field *x = &pa.field[i];
            uint32_t wm;
            if (x->width < 1 || x->width > fa.width[i]) x->width = fa.width[i];
            wm = fz_wmask(x->width);
            x->mask &= wm;
            x->init_val &= wm;
            if (!x->mask) x->min_val = x->max_val = 0;
            else {
                uint32_t km = fz_wmask(ref_popcount(x->mask));
                x->min_val &= km;
                x->max_val &= km;
                if (x->min_val > x->max_val) x->min_val = x->max_val;
            }
        }
    }
    valid = ref_check(&fa, pa.field, pa.nfields) != 0;
    rc = mrc_ev_profile_modify(&g.ep, pid, &pa, 0x7Fu, g.now);
    FZ_CHECK(valid ? rc == MRC_OK || rc == MRC_ERR_FULL : rc == MRC_ERR_INVAL, "creating a %s profile returned %d",
             valid ? "valid" : "invalid", rc);
    if (rc != MRC_OK) return;
    if (pa.mode == MRC_EV_MODE_EXP) { /* fill the array: each REPLACE takes the first unpopulated entry */
        fz_pview v;
        FZ_CHECK(fz_view(pid, &v), "view");
        for (i = 0; i < pa.ev_count; i++) {
            mrc_ev_op_entry e;
            uint32_t n = 1;
            memset(&e, 0, sizeof e);
            fz_gen_val(in, &v, e.ev_new.val);
            {
                uint8_t b = fz_u8(in);
                e.ev_new.port = (uint8_t)(1u + (b & 0x7Fu) % g.cfg.num_ports);
                e.state = (b & 0x80u) ? MRC_EVS_DENIED : MRC_EVS_GOOD;
            }
            rc = mrc_ev_op(&g.ep, pid, MRC_EV_OP_REPLACE, &e, &n, g.now);
            if (rc == MRC_ERR_INVAL) { /* a value the fields cannot expand: the reference must agree */
                uint8_t path[MRC_EV_BYTES];
                FZ_CHECK(ref_expand(&fa, pa.field, pa.nfields, e.ev_new.val, MRC_EV_BYTES, path, sizeof path) < 0,
                         "REPLACE refused a value the reference expands");
                memset(e.ev_new.val, 0, sizeof e.ev_new.val);
                n = 1;
                rc = mrc_ev_op(&g.ep, pid, MRC_EV_OP_REPLACE, &e, &n, g.now);
            }
            FZ_CHECK(rc == MRC_OK && n == 1, "REPLACE of EV %u returned %d", i, rc);
        }
    }
    pa.state = MRC_PROFILE_ONLINE;
    rc = mrc_ev_profile_modify(&g.ep, pid, &pa, MRC_EV_PROF_ATTR_STATE, g.now);
    FZ_CHECK(rc == MRC_OK, "a complete profile refused ONLINE: %d", rc);
    for (i = 0; i < MRC_MAX_EV_PROFILES; i++)
        if (g.ep.profs[i].used && g.ep.profs[i].id == pid) g.gen_check = (int)i + 1;
}

/* P26 hop groups on a profile (a few small group ids, so groups have several members), then the oracle: every
 * EV of a group is on one ring that visits exactly its group's EVs in index order, round to the first */
static void fz_op_groups(fz_in *in) {
    uint64_t id = fz_pick_id(in);
    uint16_t grp[MRC_MAX_EVS];
    unsigned n = fz_u8(in), i, j, k;
    const mrc__evprof *pf = (const mrc__evprof *)0;
    int rc;
    for (i = 0; i < MRC_MAX_EV_PROFILES; i++)
        if (g.ep.profs[i].used && g.ep.profs[i].id == id && g.ep.profs[i].state != MRC_PROFILE_INIT)
            pf = &g.ep.profs[i];
    if (n > MRC_MAX_EVS) n = MRC_MAX_EVS;
    for (i = 0; i < n; i++) grp[i] = (uint16_t)(fz_u8(in) % 5u);
    rc = mrc_ev_profile_groups(&g.ep, id, grp, n);
    if (!id) {
        FZ_CHECK(rc == MRC_ERR_INVAL, "groups on profile 0: %d", rc);
        return;
    }
    if (!pf) {
        FZ_CHECK(rc == MRC_ERR_NOENT, "groups on no profile: %d", rc);
        return;
    }
    FZ_CHECK(rc == (n > pf->ev_count ? MRC_ERR_INVAL : MRC_OK), "groups (%u of %u EVs): %d", n,
             (unsigned)pf->ev_count, rc);
    if (rc) return;
    for (i = 0; i < pf->ev_count; i++) {
        unsigned want = i < n ? grp[i] : 0u, members = 0, steps = 0, wraps = 0;
        FZ_CHECK(pf->ev[i].group == want, "EV %u in group %u, given %u", i, pf->ev[i].group, want);
        if (!want) {
            FZ_CHECK(pf->ev[i].grp_nx == 0, "EV %u without a group on a ring", i);
            continue;
        }
        for (j = 0; j < pf->ev_count; j++) members += pf->ev[j].group == want;
        for (j = i;;) {
            FZ_CHECK(pf->ev[j].grp_nx >= 1 && pf->ev[j].grp_nx <= pf->ev_count, "EV %u: ring link %u", j,
                     pf->ev[j].grp_nx);
            k = pf->ev[j].grp_nx - 1u;
            FZ_CHECK(pf->ev[k].group == want, "ring of group %u reaches EV %u of group %u", want, k, pf->ev[k].group);
            wraps += k <= j;
            steps++;
            j = k;
            if (j == i || steps > pf->ev_count) break;
        }
        FZ_CHECK(j == i && steps == members && wraps == 1, "EV %u: ring of %u steps (%u wraps), group has %u", i,
                 steps, wraps, members);
    }
}

/* the encoder on arbitrary txinfo (including formats and path lengths the core never emits) */
static void fz_op_encode(fz_in *in) {
    mrc_txinfo ti;
    uint8_t path[MRC_EV_BYTES], sel = fz_u8(in);
    size_t n = sizeof path;
    memset(&ti, 0, sizeof ti);
    memset(path, 0, sizeof path);
    memcpy(path, fz_bytes(in, &n), n);
    ti.ev = fz_u32(in);
    ti.ev_fmt = (sel & 0x80u) ? fz_u8(in) : (uint8_t)(1u << (sel % 3u));
    ti.path_len = (sel & 0x40u) ? fz_u8(in) : (uint8_t)(16u * ((sel >> 2) % 3u));
    ti.path = (sel & 0x20u) ? (const uint8_t *)0 : path;
    if (ti.path_len > sizeof path && ti.path) ti.path_len = 32; /* the core reads at most 32 path bytes */
    fz_check_headers(&ti);
}

static void fz_session(fz_in *in) {
    uint8_t c0 = fz_u8(in), c1 = fz_u8(in);
    unsigned ops, i;
    int rc;
    memset(&g, 0, sizeof g);
    mrc_config_default(&g.cfg);
    g.cfg.seed = 0xE5u + c1;
    g.cfg.num_ports = (uint8_t)(1u + (c0 & 3u));
    g.cfg.auto_ev.per_port = (uint16_t)(1u + ((c0 >> 2) & 3u));
    g.cfg.stev_sport_high = !((c0 >> 4) & 1u);
    g.cfg.ev.backup_pct = (uint8_t)(((c0 >> 5) & 3u) * 25u);
    g.cfg.cc.algo = (c1 & 1u) ? MRC_CC_ALGO_NONE : MRC_CC_ALGO_NSCC;
    /* Q19, P28: replies echo the arrival's entropy, go on its mirror (EV profiles), or rotate */
    g.cfg.ev.reply = (uint8_t)(((c1 >> 1) & 1u) ? MRC_EV_REPLY_ECHO
                               : !((c1 >> 2) & 1u) ? MRC_EV_REPLY_MIRROR : MRC_EV_REPLY_ROTATE);
    g.cfg.ev.hold = fz_scope_npa[(c1 >> 3) & 3u]; /* P29: suspect EVs sit out until the verdict */
    /* ... and the plane-size minimum (default 32) small enough for this harness's planes: 3 none, 2 two EVs */
    if ((c1 >> 3) & 2u) g.cfg.research.hold_min_evs = ((c1 >> 3) & 3u) == 3u ? 0u : 2u;
    g.cfg.ev.sweep = fz_scope_nha[((c0 ^ c1) >> 5) % 3u]; /* P35: off, hashed EVs (the default), every EV */
    if (c0 & 0x80u) {
        g.cfg.auto_ev.sport_min = fz_u16(in);
        g.cfg.auto_ev.sport_max = (uint16_t)(g.cfg.auto_ev.sport_min + fz_u8(in));
        if (g.cfg.auto_ev.sport_max < g.cfg.auto_ev.sport_min) g.cfg.auto_ev.sport_max = 0xFFFFu;
    }
    g.now = 1000000;
    rc = mrc_endpoint_init(&g.ep, &g.cfg, g.now);
    FZ_CHECK(rc == MRC_OK, "endpoint_init %d", rc);
    for (i = 0; i < sizeof g.src; i++) g.src[i] = (uint8_t)i;
    FZ_CHECK(mrc_endpoint_reg_mr(&g.ep, g.region, 0x1000u, sizeof g.region, MRC_ACCESS_REMOTE_WRITE, (void *)0,
                                 &g.rkey) == MRC_OK,
             "reg_mr");
    for (ops = 0; ops < FZ_MAX_OPS && fz_left(in) > 0; ops++) {
        uint8_t op = fz_u8(in);
#ifdef FZ_DEBUG
        fprintf(stderr, "op %u: %u at %zu\n", ops, op % 13u, in->i);
#endif
        switch (op % 13u) {
        case 12: fz_op_build(in); break;
        case 0: case 1: fz_op_fmt(in); break;
        case 2: case 3: case 4: fz_op_prof(in); break;
        case 5: case 6: fz_op_evop(in); break;
        case 7: case 8: fz_op_conn(in); break;
        case 9: fz_poll(1u + (op >> 4)); break;
        case 10: { /* ports */
            unsigned p = 1u + (op >> 4) % g.cfg.num_ports;
            FZ_CHECK(mrc_endpoint_port_set(&g.ep, p, !mrc_endpoint_port_up(&g.ep, p), g.now) == MRC_OK, "port_set");
            break;
        }
        default:
            if ((op & 0x70u) == 0x70u) {
                fz_op_groups(in);
            } else if (op & 0x10u) {
                fz_op_encode(in);
            } else {
                g.now += (mrc_time)fz_u16(in) << (op >> 5);
                FZ_CHECK(mrc_endpoint_on_timeout(&g.ep, g.now) == MRC_OK, "on_timeout");
            }
            break;
        }
        if (!(op & 0x80u)) { /* completions and EV events pile up otherwise */
            mrc_event ev;
            while (mrc_endpoint_poll_event(&g.ep, &ev) == 1) {
            }
        }
        fz_check_profiles(op % 13u <= 6u || op % 13u == 12u);
        fz_invariants(&g.ep);
    }
    fz_poll(64);
    fz_check_profiles(1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_in in;
    uint8_t mode;
    fz_init(&in, data, size);
    mode = fz_u8(&in);
    if (mode & 1u) {
        fz_session(&in);
    } else {
        do fz_expand_one(&in);
        while ((mode & 0x80u) && fz_left(&in) > 0);
    }
    return 0;
}
