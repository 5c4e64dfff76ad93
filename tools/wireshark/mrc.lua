-- mrc.lua - Wireshark / tshark dissector for open MRC (Multipath Reliable Connection, RoCEv2 RC extended).
--
-- Decodes every header and field of docs/PROTOCOL.md section 3: BTH, METH, TSETH, RETH, ImmDt, AETH, SETH with
-- CC_STATE (the cumulative PSN, the derived ack and SACK-base PSNs, the bitmap expanded into the PSNs it
-- acknowledges), NETH, PETH, ERTH and EETH (endpoint operations, section 7.8), the pad and the RoCEv2 ICRC
-- (validated when the frame carries one and it was captured). Registered on UDP port 4791; IBTA RoCEv2 opcodes on
-- that port go on to Wireshark's own InfiniBand dissector. A heuristic for other UDP ports is there too, off until
-- the "Try heuristic" preference is set.
--
-- Install: copy this file into the personal Lua plugins folder (Wireshark: Help > About > Folders, e.g.
-- ~/.local/lib/wireshark/plugins/), or load it for one run:  tshark -X lua_script:tools/wireshark/mrc.lua -r F.pcap
--
-- The wire-layout choices of mrc_wire_opts are preferences with the core's defaults (Edit > Preferences >
-- Protocols > MRC, or tshark -o mrc.sack_msb_first:TRUE ...): BTH m bit, EETH op position, SACK bitmap order,
-- TSETH timestamp unit; and how the 32-bit EV is rebuilt from an IPv6 flow label (stev_sport_high).
--
-- Tested with Wireshark 4.0 (Debian 12's 4.0.17; Lua 5.2). MIT licence, as mrc.h.

local mrc = Proto("mrc", "Multipath Reliable Connection")

-- bit operations: Lua 5.2's bit32 (Wireshark 4.0), else Wireshark's bundled BitOp ("bit", Lua 5.1 builds)
local B = bit32
if not B then
    local bo = bit
    local function u(x) return x % 4294967296 end
    B = {
        band = function(a, b) return u(bo.band(a, b)) end,
        bor = function(a, b) return u(bo.bor(a, b)) end,
        bxor = function(a, b) return u(bo.bxor(a, b)) end,
        rshift = function(a, n) return u(bo.rshift(a, n)) end,
        lshift = function(a, n) return u(bo.lshift(a, n)) end,
    }
end
local band, bor, bxor, rshift, lshift = B.band, B.bor, B.bxor, B.rshift, B.lshift

local PSN_MASK = 0xFFFFFF
local EPOP_QPN = 2

-- ---- names ---------------------------------------------------------------------------------------------------
local OP = {
    WRITE_FIRST = 0xC6, WRITE_MIDDLE = 0xC7, WRITE_LAST = 0xC8, WRITE_LAST_IMM = 0xC9, WRITE_ONLY = 0xCA,
    WRITE_ONLY_IMM = 0xCB, ACK = 0xD1, EP_REQ = 0xD8, EP_RSP = 0xD9, SACK = 0xDC, NACK = 0xDD, PROBE_REQ = 0xDE,
}
local opcode_names = {
    [0xC6] = "WRITE_FIRST", [0xC7] = "WRITE_MIDDLE", [0xC8] = "WRITE_LAST", [0xC9] = "WRITE_LAST_IMM",
    [0xCA] = "WRITE_ONLY", [0xCB] = "WRITE_ONLY_IMM", [0xD1] = "ACK", [0xD8] = "ENDPOINT_REQUEST",
    [0xD9] = "ENDPOINT_RESPONSE", [0xDC] = "SACK", [0xDD] = "NACK", [0xDE] = "PROBE_REQ",
}
local nack_names = {
    [0x01] = "TRIMMED", [0x02] = "TRIMMED_LASTHOP", [0x06] = "NO_BITMAP", [0x07] = "NO_PKT_BUFFER",
    [0x0A] = "NO_RESOURCE", [0x0B] = "PSN_OOR_WINDOW", [0x19] = "UNEXP_EVENT",
}
local nack_retriable = { [0x01] = true, [0x02] = true, [0x06] = true, [0x07] = true, [0x0A] = true, [0x0B] = true }
local aeth_names = {
    [0x1F] = "ACK (no credit)", [0x60] = "NAK: PSN sequence error", [0x61] = "NAK: invalid request",
    [0x62] = "NAK: remote access error", [0x63] = "NAK: remote operational error",
}
local aeth_short = { [0x1F] = "ACK", [0x60] = "NAK PSN_SEQ", [0x61] = "NAK INV_REQ", [0x62] = "NAK REM_ACCESS",
                     [0x63] = "NAK REM_OP" }
local aeth_types = { [0] = "ACK", [1] = "RNR NAK", [2] = "reserved", [3] = "NAK" }
local epop_names = { [0] = "PORT_STATUS_UPDATE", [1] = "EV_PROBE", [2] = "reserved (2)", [3] = "reserved (3)" }
local seth_m_names = { [0] = "NONE", [1] = "SKIP_ONCE", [2] = "ALWAYS_SKIP", [3] = "reserved (3)" }
local icrc_status_names = { [0] = "unverified", [1] = "good", [2] = "bad" }

-- ---- preferences (the wire-layout choices of mrc_wire_opts, same defaults) ----------------------------------------
mrc.prefs.bth_m_bit = Pref.enum("BTH m bit (Q1)", 7, "Bit of BTH byte 1 that holds m; se takes the other one "
    .. "(mrc_wire_opts.bth_m_bit: 7 = third-party model, the default; 6 = IBTA order)",
    { { 1, "7", 7 }, { 2, "6", 6 } }, false)
mrc.prefs.eeth_op_shift = Pref.enum("EETH op position (Q16b)", 2, "Position of the EETH op in byte 1 "
    .. "(mrc_wire_opts.eeth_op_shift: 2 = bits 3:2, the default; 4 = bits 5:4); the other position is accepted as the core's decoder does",
    { { 1, "2", 2 }, { 2, "4", 4 } }, false)
mrc.prefs.sack_msb_first = Pref.bool("SACK bitmap MSB first (Q4)", false, "mrc_wire_opts.sack_msb_first: off "
    .. "(default) = bit 0 of the bitmap, the base PSN, is the LSB of the big-endian 64-bit word; on = the MSB")
mrc.prefs.ts_shift = Pref.uint("Timestamp unit shift (Q2)", 7, "mrc_wire_opts.ts_shift: the 16-bit timestamps "
    .. "count 2^shift ns (default 7 = 128 ns)")
mrc.prefs.stev_sport_high = Pref.bool("STEV: source port is the high half", true, "IPv6 with a flow label: EV = "
    .. "source port << 16 | flow label (on, the default; mrc_config.stev_sport_high) or the other way round")
mrc.prefs.icrc_present = Pref.bool("Frames end with an ICRC", true, "RoCEv2 frames carry a 4-byte ICRC after the "
    .. "MRC packet (default on)")
mrc.prefs.check_icrc = Pref.bool("Validate the ICRC", true, "Compute the RoCEv2 ICRC and compare (default on)")
mrc.prefs.heuristic = Pref.bool("Try heuristic on other UDP ports", false, "Also look for MRC packets on UDP "
    .. "ports other than 4791 (default off)")
mrc.prefs.track = Pref.bool("Track QPs", true, "Per-QP retransmission flags and SACK/NACK -> data references")

-- ---- fields ------------------------------------------------------------------------------------------------------
local F = {}
local function uf(kind, abbr, name, base_, vs, mask, desc)
    local f = ProtoField[kind]("mrc." .. abbr, name, base_, vs, mask, desc)
    F[abbr] = f
    return f
end
local function bf(abbr, name, width, mask, desc)
    local f = ProtoField.bool("mrc." .. abbr, name, width, nil, mask, desc)
    F[abbr] = f
    return f
end

-- BTH
uf("uint8", "opcode", "Opcode", base.HEX, opcode_names)
uf("uint8", "bth.m", "m", base.DEC, nil, nil, "BTH m (position: the BTH m bit preference)")
uf("uint8", "bth.se", "se (solicited event)", base.DEC)
uf("uint8", "bth.pad", "Pad count", base.DEC, nil, 0x30)
uf("uint8", "bth.tver", "Transport version", base.DEC, nil, 0x0F)
uf("uint16", "bth.pkey", "P_Key", base.HEX)
uf("uint8", "bth.resv8", "Reserved (byte 4)", base.HEX)
uf("uint24", "bth.dest_qp", "Destination QP", base.HEX)
uf("uint8", "bth.a", "a (ack request)", base.DEC, nil, 0x80)
uf("uint8", "bth.r", "r", base.DEC, nil, 0x40)
uf("uint8", "bth.rtx", "rtx (retransmission)", base.DEC, nil, 0x20)
uf("uint8", "bth.ts", "ts (TSETH present)", base.DEC, nil, 0x10)
uf("uint8", "bth.resv4", "Reserved", base.HEX, nil, 0x0F)
uf("uint24", "bth.psn", "PSN", base.HEX)
uf("uint16", "bth.req_id", "Request ID (PSN bits 15:0)", base.DEC)
-- METH, TSETH, RETH, ImmDt
uf("uint16", "meth.rqmsn", "RQ MSN (rqmsn)", base.DEC)
uf("uint16", "meth.msn", "MSN", base.DEC)
uf("uint16", "tseth.ts", "tx_timestamp", base.DEC)
uf("uint8", "tseth.tsr", "tsr", base.DEC, nil, 0x80)
uf("uint8", "tseth.ftype", "ftype", base.DEC, nil, 0x0F)
uf("uint64", "reth.va", "Virtual address", base.HEX)
uf("uint32", "reth.rkey", "R_Key", base.HEX)
uf("uint32", "reth.dma_len", "DMA length", base.DEC)
uf("uint32", "immdt", "Immediate data", base.HEX)
-- AETH
uf("uint8", "aeth.syndrome", "Syndrome", base.HEX, aeth_names)
uf("uint8", "aeth.type", "Syndrome type", base.DEC, aeth_types, 0xE0)
uf("uint8", "aeth.value", "Syndrome value", base.HEX, nil, 0x1F)
uf("uint24", "aeth.msn", "MSN", base.DEC)
-- the common prefix (type, nxt) of SETH, NETH, PETH, ERTH, EETH: one pair per header
for _, h in ipairs({ "seth", "neth", "peth", "erth", "eeth" }) do
    uf("uint8", h .. ".type", "type", base.DEC, nil, 0xF0)
    uf("uint16", h .. ".nxt", "nxt", base.DEC, nil, 0x0F80)
end
-- SETH
uf("uint8", "seth.m", "m (EV request)", base.DEC, seth_m_names, 0x60)
uf("uint8", "seth.pr", "pr (probe answer)", base.DEC, nil, 0x02)
uf("int16", "seth.ack_psn_offset", "ack_psn_offset", base.DEC)
uf("uint32", "seth.entropy", "Entropy (EV of the named packet)", base.DEC)
uf("uint16", "seth.spdcid", "spdcid (sender QPN, low 16 bits)", base.HEX)
uf("uint16", "seth.dpdcid", "dpdcid (destination QPN, low 16 bits)", base.HEX)
uf("uint24", "seth.cack_psn", "Cumulative ack PSN (cack_psn)", base.HEX)
uf("uint8", "seth.cc_type", "cc_type", base.DEC, nil, 0xF0)
uf("uint8", "seth.cc_fl", "cc_fl", base.DEC, nil, 0x0F)
uf("uint8", "seth.mpr", "MPR", base.DEC)
uf("int16", "seth.sack_offset", "sack_offset", base.DEC)
uf("uint64", "seth.sack_bitmap", "SACK bitmap", base.HEX)
uf("uint24", "seth.ack_psn", "Acknowledged PSN (cack + ack_psn_offset)", base.HEX)
uf("uint24", "seth.sack_base", "Bitmap base PSN (cack + sack_offset)", base.HEX)
uf("uint24", "seth.sacked_psn", "PSN acknowledged by the bitmap", base.HEX)
uf("uint8", "seth.sacked_count", "PSNs acknowledged by the bitmap", base.DEC)
F["seth.ack_frame"] = ProtoField.framenum("mrc.seth.ack_frame", "Names the data in frame", base.NONE, frametype.ACK)
-- CC_STATE
uf("uint16", "cc.ts", "tx_timestamp (echo)", base.DEC)
uf("uint16", "cc.ooo_count", "ooo_count", base.DEC, nil, 0x7FFF)
uf("uint8", "cc.r_c", "r_c", base.DEC, nil, 0x80)
uf("uint8", "cc.rcv_cwnd_pen", "rcv_cwnd_pen", base.DEC, nil, 0x7F)
uf("uint24", "cc.rcvd_bytes", "rcvd_bytes (256-byte units)", base.DEC)
-- NETH
uf("uint8", "neth.reason", "NACK reason", base.HEX, nack_names)
uf("uint8", "neth.vendor_info", "vendor_info", base.HEX)
uf("uint32", "neth.entropy", "Entropy (EV of the NACKed packet)", base.DEC)
uf("uint16", "neth.spdcid", "spdcid", base.HEX)
uf("uint16", "neth.dpdcid", "dpdcid", base.HEX)
uf("uint24", "neth.nack_psn", "NACKed PSN", base.HEX)
uf("uint8", "neth.cc_type", "cc_type", base.DEC, nil, 0xF0)
uf("uint8", "neth.cc_fl", "cc_fl", base.DEC, nil, 0x0F)
uf("uint16", "neth.ts", "tx_timestamp (echo)", base.DEC)
bf("neth.retriable", "Retriable", base.NONE)
F["neth.nack_frame"] = ProtoField.framenum("mrc.neth.nack_frame", "NACKs the data in frame", base.NONE,
    frametype.ACK)
-- PETH
uf("uint8", "peth.vendor_info", "vendor_info", base.HEX)
uf("uint16", "peth.probe_id", "probe_id", base.DEC)
uf("uint16", "peth.spdcid", "spdcid", base.HEX)
uf("uint16", "peth.dpdcid", "dpdcid", base.HEX)
uf("uint16", "peth.ts", "tx_timestamp", base.DEC)
uf("uint8", "peth.tsr", "tsr", base.DEC, nil, 0x80)
uf("uint8", "peth.ftype", "ftype", base.DEC, nil, 0x0F)
-- ERTH
uf("uint8", "erth.op", "Endpoint operation", base.DEC, epop_names, 0x03)
uf("uint8", "erth.vendor_info", "vendor_info", base.HEX)
uf("uint32", "erth.port_status_mask", "port_status_mask", base.HEX)
uf("uint8", "erth.port", "Port up (1-based)", base.DEC)
uf("uint16", "erth.ts", "tx_timestamp", base.DEC)
uf("uint8", "erth.tsr", "tsr", base.DEC, nil, 0x80)
uf("uint8", "erth.ftype", "ftype", base.DEC, nil, 0x0F)
-- EETH
uf("uint8", "eeth.op", "Endpoint operation", base.DEC, epop_names)
uf("uint8", "eeth.op_shift", "op found at bit", base.DEC)
uf("uint16", "eeth.ts", "tx_timestamp (echo of the request's)", base.DEC)
-- payload, pad, ICRC, EV, tracking
uf("bytes", "reserved", "Reserved", base.NONE)
uf("bytes", "payload", "Payload", base.NONE)
uf("uint32", "payload_len", "Payload length", base.DEC)
uf("bytes", "pad", "Pad", base.NONE)
uf("uint8", "cut", "Cut inside its pad (trimmed)", base.DEC)
uf("uint32", "icrc", "ICRC", base.HEX)
uf("uint32", "icrc.computed", "ICRC computed", base.HEX)
uf("uint8", "icrc.status", "ICRC status", base.DEC, icrc_status_names)
uf("uint32", "ev", "EV (entropy as seen on the wire)", base.DEC)
F["rtx_of"] = ProtoField.framenum("mrc.rtx_of", "Retransmission of frame", base.NONE, frametype.DUP_ACK)
uf("string", "summary", "Summary")

local fl = {}
for _, f in pairs(F) do fl[#fl + 1] = f end
mrc.fields = fl

-- ---- expert info ----------------------------------------------------------------------------------------------------
local E = {
    trunc = ProtoExpert.new("mrc.trunc", "Truncated MRC packet", expert.group.MALFORMED, expert.severity.ERROR),
    pad = ProtoExpert.new("mrc.pad_long", "Pad larger than the bytes after the headers", expert.group.MALFORMED,
        expert.severity.ERROR),
    unknown = ProtoExpert.new("mrc.unknown_opcode", "Opcode in MRC's range but not defined by MRC",
        expert.group.MALFORMED, expert.severity.ERROR),
    short = ProtoExpert.new("mrc.short", "Too short for a BTH and an ICRC", expert.group.MALFORMED,
        expert.severity.ERROR),
    snap = ProtoExpert.new("mrc.snap", "Packet cut by the capture's snapshot length", expert.group.UNDECODED,
        expert.severity.NOTE),
    cut = ProtoExpert.new("mrc.cut.expert", "Data packet cut inside its pad: trimmed (NACK TRIMMED follows)",
        expert.group.SEQUENCE, expert.severity.NOTE),
    icrc_bad = ProtoExpert.new("mrc.icrc.bad", "Bad ICRC", expert.group.CHECKSUM, expert.severity.ERROR),
    psn_mismatch = ProtoExpert.new("mrc.psn_mismatch", "Header PSN differs from the BTH PSN (the core drops it)",
        expert.group.MALFORMED, expert.severity.WARN),
    qp = ProtoExpert.new("mrc.qp_mismatch", "Opcode and destination QP disagree (QP 0x2 is for endpoint "
        .. "operations only; the core drops it)", expert.group.PROTOCOL, expert.severity.WARN),
    epop = ProtoExpert.new("mrc.epop_reserved", "Reserved endpoint operation (the core drops it)",
        expert.group.PROTOCOL, expert.severity.WARN),
    nack_unknown = ProtoExpert.new("mrc.nack_unknown", "Unknown NACK reason (the core drops it)",
        expert.group.PROTOCOL, expert.severity.WARN),
    aeth_unknown = ProtoExpert.new("mrc.aeth_unknown", "AETH syndrome MRC does not use (the core drops it)",
        expert.group.PROTOCOL, expert.severity.WARN),
    rtx = ProtoExpert.new("mrc.rtx.expert", "Retransmission", expert.group.SEQUENCE, expert.severity.NOTE),
    trailing = ProtoExpert.new("mrc.trailing", "Bytes after the headers of a control packet",
        expert.group.PROTOCOL, expert.severity.NOTE),
    eeth_pos = ProtoExpert.new("mrc.eeth_op_other", "EETH op found at the other position (Q16b)",
        expert.group.PROTOCOL, expert.severity.NOTE),
    ib_error = ProtoExpert.new("mrc.ib_malformed", "RoCEv2 packet Wireshark's InfiniBand dissector found malformed",
        expert.group.MALFORMED, expert.severity.ERROR),
    bug = ProtoExpert.new("mrc.internal_error", "MRC dissector internal error", expert.group.MALFORMED,
        expert.severity.ERROR),
}
mrc.experts = { E.trunc, E.pad, E.unknown, E.short, E.snap, E.cut, E.icrc_bad, E.psn_mismatch, E.qp, E.epop,
                E.nack_unknown, E.aeth_unknown, E.rtx, E.trailing, E.eeth_pos, E.ib_error, E.bug }

-- ---- fields of the lower layers: the ICRC covers the IP and UDP headers, the EV is the source port (+ flow label)
local f_frame = Field.new("frame")
local f_ip = Field.new("ip")
local f_ipv6 = Field.new("ipv6")
local f_udp = Field.new("udp")
local f_udp_srcport = Field.new("udp.srcport")
local f_ipv6_flow = Field.new("ipv6.flow")

-- ---- CRC-32 (IEEE 802.3, zlib form) ----------------------------------------------------------------------------------
local CRC_T = {}
for i = 0, 255 do
    local c = i
    for _ = 1, 8 do
        if band(c, 1) ~= 0 then c = bxor(0xEDB88320, rshift(c, 1)) else c = rshift(c, 1) end
    end
    CRC_T[i] = c
end
local sbyte = string.byte
local function crc32_str(crc, s)
    for i = 1, #s do
        crc = bxor(CRC_T[band(bxor(crc, sbyte(s, i)), 0xFF)], rshift(crc, 8))
    end
    return crc
end
-- bytes of s with s[i] (1-based) replaced by 0xFF for each i in idx
local function mask_ff(s, idx)
    local t = { sbyte(s, 1, #s) }
    for _, i in ipairs(idx) do if t[i] then t[i] = 0xFF end end
    return string.char((table.unpack or unpack)(t))
end

-- the last instance of a field at or before an offset of the frame
local function last_before(fis, off)
    local best
    for _, fi in ipairs(fis) do
        if fi.offset <= off and (not best or fi.offset > best.offset) then best = fi end
    end
    return best
end

-- RoCEv2 ICRC of the packet whose MRC part is tvb[0, mrc_len): nil when the IP / UDP headers are not at hand
local function compute_icrc(tvb, mrc_len)
    local frame = f_frame()
    if not frame then return nil end
    local base_off = tvb:offset()
    local udp = last_before({ f_udp() }, base_off)
    if not udp or udp.offset + 8 ~= base_off then return nil end
    local ips = { f_ip() }
    for _, fi in ipairs({ f_ipv6() }) do ips[#ips + 1] = fi end
    local ip = last_before(ips, udp.offset)
    if not ip then return nil end
    local fr = frame.range
    local ipoff = ip.offset
    if ipoff + 1 > fr:len() then return nil end
    local v = rshift(fr:range(ipoff, 1):uint(), 4)
    local iphl
    local masks
    if v == 4 then
        iphl = band(fr:range(ipoff, 1):uint(), 0x0F) * 4
        masks = { 2, 9, 11, 12 }                 -- TOS, TTL, header checksum (1-based)
    elseif v == 6 then
        iphl = 40                                -- a bare IPv6 header (as the core's mrc_icrc)
        masks = { 2, 3, 4, 8 }                   -- traffic class + flow label, hop limit (byte 1 low nibble below)
    else
        return nil
    end
    if ipoff + iphl ~= udp.offset then return nil end
    if base_off + mrc_len > fr:len() then return nil end
    local hdr = fr:raw(ipoff, iphl + 8 + 12)
    masks[#masks + 1] = iphl + 7                 -- UDP checksum
    masks[#masks + 1] = iphl + 8
    masks[#masks + 1] = iphl + 8 + 5             -- BTH byte 4
    local h = mask_ff(hdr, masks)
    if v == 6 then
        h = string.char(bor(sbyte(h, 1), 0x0F)) .. h:sub(2)
    end
    local crc = crc32_str(0xFFFFFFFF, "\255\255\255\255\255\255\255\255")
    crc = crc32_str(crc, h)
    if mrc_len > 12 then crc = crc32_str(crc, fr:raw(base_off + 12, mrc_len - 12)) end
    return bxor(crc, 0xFFFFFFFF)
end

-- ---- QP tracking (retransmissions, SACK/NACK -> data) -------------------------------------------------------------------
local track_data = {}  -- "src>dst/qp16" -> { [psn] = latest frame number }
local track_frame = {} -- frame number -> { rtx_of = n, ack_frame = n, nack_frame = n }
function mrc.init()
    track_data = {}
    track_frame = {}
end
local function endpoints(pinfo)
    local s, d = pinfo.dl_src, pinfo.dl_dst
    if not s or tostring(s) == "" then s, d = pinfo.net_src, pinfo.net_dst end
    return tostring(s), tostring(d)
end

-- ---- helpers -----------------------------------------------------------------------------------------------------------
local function hex6(v) return string.format("0x%06x", v) end
local function timestamp_text(v)
    local sh = mrc.prefs.ts_shift
    return string.format(" (%d ns mod %.3f ms)", v * 2 ^ sh, 2 ^ (16 + sh) / 1e6)
end

-- the dissection state of one packet
local Ctx = {}
Ctx.__index = Ctx

-- n bytes at the current offset: true when present; else the packet is truncated (or snap-cut): expert, false
function Ctx:need(n, what, tree)
    if self.off + n <= self.mrc_len and self.off + n <= self.cap then return true end
    if self.off + n > self.mrc_len then
        tree:add_proto_expert_info(E.trunc, string.format("%s truncated: needs %d bytes, %d left", what, n,
            math.max(self.mrc_len - self.off, 0)))
        self.malformed = true
    else
        tree:add_proto_expert_info(E.snap, string.format("%s not captured (snapshot length)", what))
        self.snapcut = true
    end
    return false
end
function Ctx:r(o, n) return self.tvb(self.off + o, n) end
function Ctx:u(o, n) return self.tvb(self.off + o, n):uint() end

-- ---- headers ---------------------------------------------------------------------------------------------------------
local function dissect_prefix(c, t, h)
    t:add(F[h .. ".type"], c:r(0, 1))
    t:add(F[h .. ".nxt"], c:r(0, 2))
end

local function dissect_meth(c, tree)
    if not c:need(4, "METH", tree) then return false end
    local t = tree:add(c:r(0, 4), "METH")
    t:add(F["meth.rqmsn"], c:r(0, 2))
    t:add(F["meth.msn"], c:r(2, 2))
    c.msn = c:u(2, 2)
    c.off = c.off + 4
    return true
end

local function dissect_tseth(c, tree)
    if not c:need(4, "TSETH", tree) then return false end
    local t = tree:add(c:r(0, 4), "TSETH")
    t:add(F["tseth.ts"], c:r(0, 2)):append_text(timestamp_text(c:u(0, 2)))
    t:add(F["tseth.tsr"], c:r(2, 1))
    t:add(F["tseth.ftype"], c:r(3, 1))
    c.off = c.off + 4
    return true
end

local function dissect_reth(c, tree)
    if not c:need(16, "RETH", tree) then return false end
    local t = tree:add(c:r(0, 16), "RETH")
    t:add(F["reth.va"], c:r(0, 8))
    t:add(F["reth.rkey"], c:r(8, 4))
    t:add(F["reth.dma_len"], c:r(12, 4))
    c.dma_len = c:u(12, 4)
    c.off = c.off + 16
    return true
end

local function dissect_immdt(c, tree)
    if not c:need(4, "ImmDt", tree) then return false end
    local t = tree:add(c:r(0, 4), "ImmDt")
    t:add(F["immdt"], c:r(0, 4))
    c.off = c.off + 4
    return true
end

local function dissect_aeth(c, tree)
    if not c:need(4, "AETH", tree) then return false end
    local t = tree:add(c:r(0, 4), "AETH")
    local syn = c:u(0, 1)
    local it = t:add(F["aeth.syndrome"], c:r(0, 1))
    it:add(F["aeth.type"], c:r(0, 1))
    it:add(F["aeth.value"], c:r(0, 1))
    if not aeth_names[syn] then it:add_proto_expert_info(E.aeth_unknown) end
    t:add(F["aeth.msn"], c:r(1, 3))
    c.summary = string.format("%s msn=%d", aeth_short[syn] or string.format("syndrome=0x%02x", syn), c:u(1, 3))
    c.off = c.off + 4
    return true
end

-- PSNs set in the bitmap (hi, lo: the big-endian word's two 32-bit halves), in bit order from the base
local function bitmap_psns(hi, lo, base_psn, msb_first)
    local out = {}
    for i = 0, 63 do
        local set
        if msb_first then
            if i < 32 then set = band(rshift(hi, 31 - i), 1) else set = band(rshift(lo, 63 - i), 1) end
        else
            if i < 32 then set = band(rshift(lo, i), 1) else set = band(rshift(hi, i - 32), 1) end
        end
        if set ~= 0 then out[#out + 1] = (base_psn + i) % 0x1000000 end
    end
    return out
end

local function s16(v) if v >= 0x8000 then return v - 0x10000 end return v end

local function dissect_seth(c, tree)
    if not c:need(28, "SETH", tree) then return false end
    local t = tree:add(c:r(0, 28), "SETH")
    dissect_prefix(c, t, "seth")
    t:add(F["seth.m"], c:r(1, 1))
    t:add(F["seth.pr"], c:r(1, 1))
    t:add(F["seth.ack_psn_offset"], c:r(2, 2))
    t:add(F["seth.entropy"], c:r(4, 4))
    t:add(F["seth.spdcid"], c:r(8, 2))
    t:add(F["seth.dpdcid"], c:r(10, 2))
    t:add(F["reserved"], c:r(12, 1))
    local cack = c:u(13, 3)
    local it = t:add(F["seth.cack_psn"], c:r(13, 3))
    if cack ~= c.psn then
        it:add_proto_expert_info(E.psn_mismatch, string.format("cack_psn %s differs from the BTH PSN %s", hex6(cack),
            hex6(c.psn)))
    end
    t:add(F["seth.cc_type"], c:r(16, 1))
    t:add(F["seth.cc_fl"], c:r(16, 1))
    t:add(F["seth.mpr"], c:r(17, 1))
    t:add(F["seth.sack_offset"], c:r(18, 2))
    local bm = t:add(F["seth.sack_bitmap"], c:r(20, 8))
    local ackoff, sackoff = s16(c:u(2, 2)), s16(c:u(18, 2))
    local ack_psn = (cack + ackoff) % 0x1000000
    local base_psn = (cack + sackoff) % 0x1000000
    t:add(F["seth.ack_psn"], c:r(2, 2), ack_psn):set_generated()
    t:add(F["seth.sack_base"], c:r(18, 2), base_psn):set_generated()
    local psns = bitmap_psns(c:u(20, 4), c:u(24, 4), base_psn, mrc.prefs.sack_msb_first)
    bm:add(F["seth.sacked_count"], c:r(20, 8), #psns):set_generated()
    for _, p in ipairs(psns) do bm:add(F["seth.sacked_psn"], c:r(20, 8), p):set_generated() end
    local m, pr = rshift(band(c:u(1, 1), 0x60), 5), band(c:u(1, 1), 0x02)
    c.seth = { cack = cack, ack_psn = ack_psn, spdcid = c:u(8, 2) }
    c.summary = string.format("cack=%s ack=%s bitmap %d of 64", hex6(cack), hex6(ack_psn), #psns)
        .. (pr ~= 0 and " probe-answer" or "") .. (m ~= 0 and (" " .. seth_m_names[m]) or "")
    c.off = c.off + 28
    return true
end

local function dissect_cc_state(c, tree)
    if not c:need(8, "CC_STATE", tree) then return false end
    local t = tree:add(c:r(0, 8), "CC_STATE")
    t:add(F["cc.ts"], c:r(0, 2)):append_text(timestamp_text(c:u(0, 2)))
    t:add(F["cc.ooo_count"], c:r(2, 2))
    t:add(F["cc.r_c"], c:r(4, 1))
    t:add(F["cc.rcv_cwnd_pen"], c:r(4, 1))
    t:add(F["cc.rcvd_bytes"], c:r(5, 3))
    c.off = c.off + 8
    return true
end

local function dissect_neth(c, tree)
    if not c:need(20, "NETH", tree) then return false end
    local t = tree:add(c:r(0, 20), "NETH")
    dissect_prefix(c, t, "neth")
    local reason = c:u(2, 1)
    local it = t:add(F["neth.reason"], c:r(2, 1))
    if not nack_names[reason] then it:add_proto_expert_info(E.nack_unknown) end
    t:add(F["neth.retriable"], c:r(2, 1), nack_retriable[reason] == true):set_generated()
    t:add(F["neth.vendor_info"], c:r(3, 1))
    t:add(F["neth.entropy"], c:r(4, 4))
    t:add(F["neth.spdcid"], c:r(8, 2))
    t:add(F["neth.dpdcid"], c:r(10, 2))
    t:add(F["reserved"], c:r(12, 1))
    local psn = c:u(13, 3)
    it = t:add(F["neth.nack_psn"], c:r(13, 3))
    if psn ~= c.psn then
        it:add_proto_expert_info(E.psn_mismatch, string.format("nack_psn %s differs from the BTH PSN %s", hex6(psn),
            hex6(c.psn)))
    end
    t:add(F["neth.cc_type"], c:r(16, 1))
    t:add(F["neth.cc_fl"], c:r(16, 1))
    t:add(F["reserved"], c:r(17, 1))
    t:add(F["neth.ts"], c:r(18, 2)):append_text(timestamp_text(c:u(18, 2)))
    c.neth = { psn = psn, spdcid = c:u(8, 2) }
    c.summary = string.format("%s psn=%s", nack_names[reason] or string.format("reason=0x%02x", reason), hex6(psn))
    c.off = c.off + 20
    return true
end

local function dissect_peth(c, tree)
    if not c:need(16, "PETH", tree) then return false end
    local t = tree:add(c:r(0, 16), "PETH")
    dissect_prefix(c, t, "peth")
    t:add(F["peth.vendor_info"], c:r(3, 1))
    t:add(F["peth.probe_id"], c:r(4, 2))
    t:add(F["peth.spdcid"], c:r(8, 2))
    t:add(F["peth.dpdcid"], c:r(10, 2))
    t:add(F["peth.ts"], c:r(12, 2)):append_text(timestamp_text(c:u(12, 2)))
    t:add(F["peth.tsr"], c:r(14, 1))
    t:add(F["peth.ftype"], c:r(15, 1))
    c.summary = string.format("next=%s probe_id=%d", hex6(c.psn), c:u(4, 2))
    c.off = c.off + 16
    return true
end

local function ports_of(mask)
    local out = {}
    for i = 0, 31 do if band(rshift(mask, i), 1) ~= 0 then out[#out + 1] = i + 1 end end
    return out
end

local function dissect_erth(c, tree)
    if not c:need(16, "ERTH", tree) then return false end
    local t = tree:add(c:r(0, 16), "ERTH")
    dissect_prefix(c, t, "erth")
    local op = band(c:u(1, 1), 3)
    local it = t:add(F["erth.op"], c:r(1, 1))
    if op > 1 then it:add_proto_expert_info(E.epop) end
    t:add(F["erth.vendor_info"], c:r(3, 1))
    local mask = c:u(4, 4)
    local mi = t:add(F["erth.port_status_mask"], c:r(4, 4))
    local ports = ports_of(mask)
    for _, p in ipairs(ports) do mi:add(F["erth.port"], c:r(4, 4), p):set_generated() end
    t:add(F["reserved"], c:r(8, 4))
    t:add(F["erth.ts"], c:r(12, 2)):append_text(timestamp_text(c:u(12, 2)))
    t:add(F["erth.tsr"], c:r(14, 1))
    t:add(F["erth.ftype"], c:r(15, 1))
    c.summary = string.format("%s req_id=%d ports=%s", epop_names[op], band(c.psn, 0xFFFF),
        #ports > 0 and table.concat(ports, ",") or "none")
    c.off = c.off + 16
    return true
end

local function dissect_eeth(c, tree)
    if not c:need(36, "EETH", tree) then return false end
    local t = tree:add(c:r(0, 36), "EETH")
    dissect_prefix(c, t, "eeth")
    local b1 = c:u(1, 1)
    local sh = mrc.prefs.eeth_op_shift == 4 and 4 or 2
    local other = sh == 2 and 4 or 2
    local op = band(rshift(b1, sh), 3)
    local at = sh
    -- as mrc_eeth_decode: the other position when the configured one reads 0 and holds the only op bits
    if op == 0 and band(b1, band(0x7F, bxor(0xFF, lshift(3, other)))) == 0 then
        op = band(rshift(b1, other), 3)
        if op ~= 0 then at = other end
    end
    local it = t:add(F["eeth.op"], c:r(1, 1), op)
    if op > 1 then it:add_proto_expert_info(E.epop) end
    local pi = t:add(F["eeth.op_shift"], c:r(1, 1), at)
    pi:set_generated()
    if at ~= sh then pi:add_proto_expert_info(E.eeth_pos) end
    t:add(F["reserved"], c:r(2, 26))
    t:add(F["eeth.ts"], c:r(28, 2)):append_text(timestamp_text(c:u(28, 2)))
    t:add(F["reserved"], c:r(30, 6))
    c.summary = string.format("%s req_id=%d", epop_names[op], band(c.psn, 0xFFFF))
    c.off = c.off + 36
    return true
end

-- ---- the packet ----------------------------------------------------------------------------------------------------
local function is_mrc_range(op) return op >= 0xC0 and op <= 0xDF end

local function ev_of(pinfo)
    local sp = f_udp_srcport()
    if not sp then return nil end
    local ev = sp.value
    local fls = { f_ipv6_flow() }
    local flf = fls[#fls]
    if flf and pinfo.net_src and tostring(pinfo.net_src):find(":", 1, true) then
        local flv = band(flf.value, 0xFFFF)
        if flv ~= 0 then
            if mrc.prefs.stev_sport_high then ev = ev * 65536 + flv else ev = flv * 65536 + ev end
        end
    end
    return ev
end

local function dissect_mrc(tvb, pinfo, tree)
    local cap, rep = tvb:len(), tvb:reported_len()
    pinfo.cols.protocol = "MRC"
    local root = tree:add(mrc, tvb(0, math.min(cap, rep)))
    local icrc_len = mrc.prefs.icrc_present and 4 or 0
    if rep < 12 + icrc_len then
        root:add_proto_expert_info(E.short, string.format("%d bytes: a BTH (12) and an ICRC (%d) need %d", rep,
            icrc_len, 12 + icrc_len))
        pinfo.cols.info = string.format("MRC malformed: %d bytes", rep)
        if cap > 0 then root:add(F["reserved"], tvb(0, cap)) end
        return
    end
    local c = setmetatable({ tvb = tvb, off = 0, cap = cap, mrc_len = rep - icrc_len }, Ctx)
    if cap < 12 then
        root:add_proto_expert_info(E.snap, "BTH not captured (snapshot length)")
        pinfo.cols.info = "MRC (not captured)"
        return
    end
    -- BTH
    local op = tvb(0, 1):uint()
    local name = opcode_names[op] or string.format("UNKNOWN_0x%02x", op)
    root:append_text(", " .. name)
    local bth = root:add(tvb(0, 12), "BTH")
    local oi = bth:add(F["opcode"], tvb(0, 1))
    local b1 = tvb(1, 1):uint()
    local mb = mrc.prefs.bth_m_bit == 6 and 6 or 7
    bth:add(F["bth.m"], tvb(1, 1), band(rshift(b1, mb), 1))
    bth:add(F["bth.se"], tvb(1, 1), band(rshift(b1, 13 - mb), 1))
    bth:add(F["bth.pad"], tvb(1, 1))
    bth:add(F["bth.tver"], tvb(1, 1))
    bth:add(F["bth.pkey"], tvb(2, 2))
    bth:add(F["bth.resv8"], tvb(4, 1))
    local qp = tvb(5, 3):uint()
    local qi = bth:add(F["bth.dest_qp"], tvb(5, 3))
    local b8 = tvb(8, 1):uint()
    bth:add(F["bth.a"], tvb(8, 1))
    bth:add(F["bth.r"], tvb(8, 1))
    bth:add(F["bth.rtx"], tvb(8, 1))
    bth:add(F["bth.ts"], tvb(8, 1))
    bth:add(F["bth.resv4"], tvb(8, 1))
    local psn = tvb(9, 3):uint()
    bth:add(F["bth.psn"], tvb(9, 3))
    c.psn = psn
    c.off = 12
    local pad = band(rshift(b1, 4), 3)
    local a, rtx, ts, se = band(b8, 0x80) ~= 0, band(b8, 0x20) ~= 0, band(b8, 0x10) ~= 0,
        band(rshift(b1, 13 - mb), 1) ~= 0
    local ev = ev_of(pinfo)
    if ev then root:add(F["ev"], tvb(0, 0), ev):set_generated() end

    local is_data = op >= 0xC6 and op <= 0xCB
    local ok = true
    if not opcode_names[op] then
        oi:add_proto_expert_info(E.unknown, string.format("Opcode 0x%02x is in the manufacturer-specific range MRC "
            .. "uses but is not an MRC opcode (the core drops it)", op))
        c.malformed = true
        ok = false
    elseif (op == OP.EP_REQ or op == OP.EP_RSP) ~= (qp == EPOP_QPN) then
        qi:add_proto_expert_info(E.qp)
    end
    if ok and (op == OP.EP_REQ or op == OP.EP_RSP) then
        bth:add(F["bth.req_id"], tvb(10, 2)):set_generated()
    end
    if ok and is_data then
        ok = dissect_meth(c, root) and (not ts or dissect_tseth(c, root)) and dissect_reth(c, root)
            and ((op ~= OP.WRITE_LAST_IMM and op ~= OP.WRITE_ONLY_IMM) or dissect_immdt(c, root))
    elseif ok and op == OP.ACK then
        ok = dissect_aeth(c, root)
    elseif ok and op == OP.SACK then
        ok = dissect_seth(c, root) and dissect_cc_state(c, root)
    elseif ok and op == OP.NACK then
        ok = dissect_neth(c, root)
    elseif ok and op == OP.PROBE_REQ then
        ok = dissect_peth(c, root)
    elseif ok and op == OP.EP_REQ then
        ok = dissect_erth(c, root)
    elseif ok and op == OP.EP_RSP then
        ok = dissect_eeth(c, root)
    end

    -- what follows the headers: payload, pad (the core's rules), ICRC
    local plen
    if ok then
        local rest = c.mrc_len - c.off
        if rest < pad then
            if is_data then
                c.cut = true
                root:add(F["cut"], tvb(0, 0), 1):set_generated()
                root:add_proto_expert_info(E.cut, string.format("%d bytes after the headers, pad %d: trimmed", rest,
                    pad))
                plen = 0
            else
                root:add_proto_expert_info(E.pad, string.format("pad %d, %d bytes after the headers", pad, rest))
                c.malformed = true
            end
        else
            plen = rest - pad
            root:add(F["payload_len"], tvb(0, 0), plen):set_generated()
            if plen > 0 then
                local n = math.min(plen, math.max(cap - c.off, 0))
                if n > 0 then root:add(F["payload"], tvb(c.off, n)) end
                if n < plen then root:add_proto_expert_info(E.snap, "payload not fully captured") c.snapcut = true end
                if not is_data then root:add_proto_expert_info(E.trailing, string.format("%d bytes", plen)) end
            end
            if pad > 0 and c.off + plen + pad <= cap then root:add(F["pad"], tvb(c.off + plen, pad)) end
        end
    end
    if icrc_len > 0 then
        local io = rep - 4
        if io + 4 <= cap then
            local wire = tvb(io, 4):le_uint()
            local ii = root:add_le(F["icrc"], tvb(io, 4))
            local status = 0
            if mrc.prefs.check_icrc then
                local comp = compute_icrc(tvb, c.mrc_len)
                if comp then
                    ii:add(F["icrc.computed"], tvb(io, 4), comp):set_generated()
                    if comp == wire then
                        status = 1
                        ii:append_text(" [correct]")
                    else
                        status = 2
                        ii:append_text(" [incorrect]")
                        ii:add_proto_expert_info(E.icrc_bad, string.format("ICRC 0x%08x, computed 0x%08x%s", wire,
                            comp, c.cut and " (a trimmed packet keeps a stale ICRC)" or ""))
                    end
                end
            end
            ii:add(F["icrc.status"], tvb(io, 4), status):set_generated()
        else
            root:add_proto_expert_info(E.snap, "ICRC not captured (snapshot length)")
        end
    end

    -- QP tracking: on the first pass only; later passes read what it found
    local num = pinfo.number
    if mrc.prefs.track and not pinfo.visited and ok then
        local s, d = endpoints(pinfo)
        local info = {}
        if is_data then
            local k = s .. ">" .. d .. "/" .. band(qp, 0xFFFF)
            local tab = track_data[k]
            if not tab then tab = {} track_data[k] = tab end
            if tab[psn] then info.rtx_of = tab[psn] end
            tab[psn] = num
        elseif c.seth or c.neth then
            local k = d .. ">" .. s .. "/" .. (c.seth or c.neth).spdcid
            local tab = track_data[k]
            if tab then
                if c.seth then info.ack_frame = tab[c.seth.ack_psn] else info.nack_frame = tab[c.neth.psn] end
            end
        end
        track_frame[num] = info
    end
    local info = track_frame[num]
    if info then
        if info.rtx_of then
            root:add(F["rtx_of"], tvb(0, 0), info.rtx_of):set_generated()
            root:add_proto_expert_info(E.rtx, string.format("PSN %s was sent before in frame %d", hex6(psn),
                info.rtx_of))
        end
        if info.ack_frame then root:add(F["seth.ack_frame"], tvb(0, 0), info.ack_frame):set_generated() end
        if info.nack_frame then root:add(F["neth.nack_frame"], tvb(0, 0), info.nack_frame):set_generated() end
    end

    -- the Info column: one line per packet
    local line
    if is_data then
        line = string.format("%s psn=%s qp=%s", name, hex6(psn), hex6(qp))
        if c.msn then line = line .. " msn=" .. c.msn end
        if plen then line = line .. " len=" .. plen end
    elseif op == OP.SACK or op == OP.NACK or op == OP.ACK or op == OP.PROBE_REQ then
        line = string.format("%s %s qp=%s", name, c.summary or ("psn=" .. hex6(psn)), hex6(qp))
    elseif op == OP.EP_REQ or op == OP.EP_RSP then
        line = name .. " " .. (c.summary or ("req_id=" .. band(psn, 0xFFFF)))
    else
        line = string.format("%s psn=%s qp=%s", name, hex6(psn), hex6(qp))
    end
    if ev then line = line .. " ev=" .. ev end
    if rtx then line = line .. " rtx" end
    if a and is_data then line = line .. " a" end
    if se then line = line .. " se" end
    if c.cut then line = line .. " cut" end
    if c.malformed then line = line .. " [malformed]" end
    if c.snapcut then line = line .. " [snap]" end
    pinfo.cols.info = line
    root:add(F["summary"], tvb(0, 0), line):set_generated()
end

-- ---- registration ----------------------------------------------------------------------------------------------------
local udp_table = DissectorTable.get("udp.port")
local roce = udp_table:get_dissector(4791) -- Wireshark's RoCEv2 (InfiniBand) dissector, before we take the port
if not roce then
    local okd, d = pcall(Dissector.get, "infiniband")
    if okd then roce = d end
end

local function dissect_guarded(tvb, pinfo, tree)
    local okp, err = pcall(dissect_mrc, tvb, pinfo, tree)
    if not okp then
        tree:add_proto_expert_info(E.bug, "MRC dissector internal error: " .. tostring(err))
    end
end

function mrc.dissector(tvb, pinfo, tree)
    -- too short for a BTH (and an ICRC): this dissector says so rather than handing the bytes on
    if tvb:len() >= 1 and tvb:reported_len() >= 12 + (mrc.prefs.icrc_present and 4 or 0) then
        local op = tvb(0, 1):uint()
        if not is_mrc_range(op) and roce then
            -- an IBTA RoCEv2 opcode: Wireshark's own dissector. An exception it raises (a malformed payload)
            -- comes back as a Lua error: shown as its own malformed-packet note, not as an error of this script
            local okc, r = pcall(Dissector.call, roce, tvb, pinfo, tree)
            if okc then return r end
            tree:add_proto_expert_info(E.ib_error, "InfiniBand dissector: " .. tostring(r):gsub("^.-Dissector_call: ", ""))
            return tvb:len()
        end
    end
    dissect_guarded(tvb, pinfo, tree)
    return tvb:len()
end

udp_table:add(4791, mrc)
udp_table:add_for_decode_as(mrc)

-- heuristic (other UDP ports), off until the preference is set: an MRC opcode, the headers it needs, an MRC-sized
-- packet, and a destination QP / opcode pairing the core would take
local hdr_len = { [0xC6] = 32, [0xC7] = 32, [0xC8] = 32, [0xC9] = 36, [0xCA] = 32, [0xCB] = 36, [0xD1] = 16,
                  [0xD8] = 28, [0xD9] = 48, [0xDC] = 48, [0xDD] = 32, [0xDE] = 28 }
local function heuristic(tvb, pinfo, tree)
    if not mrc.prefs.heuristic then return false end
    if tvb:len() < 12 then return false end
    local op = tvb(0, 1):uint()
    local need = hdr_len[op]
    if not need then return false end
    if tvb:reported_len() < need + (mrc.prefs.icrc_present and 4 or 0) then return false end
    local qp = tvb(5, 3):uint()
    if (op == OP.EP_REQ or op == OP.EP_RSP) ~= (qp == EPOP_QPN) then return false end
    if band(tvb(8, 1):uint(), 0x0F) ~= 0 then return false end -- reserved BTH bits
    dissect_guarded(tvb, pinfo, tree)
    return true
end
mrc:register_heuristic("udp", heuristic)
