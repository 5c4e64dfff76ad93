#!/usr/bin/env python3
"""bench/mechanisms.py - where a stream's instructions go, by mechanism (make bench, section 6; bench/README.md).

    bench/mechanisms.py --bin BIN --pkts N --expect ALLIN --stream NAME [--json FILE] [--show MECH] CALLGRIND.OUT...
    bench/mechanisms.py --self-test     the rules on mrc.h's functions and lines (make test runs it: bench-mech-test)

--show MECH also prints the 40 source lines of mrc.h charged most to that mechanism (to check the rules).

Each CALLGRIND.OUT is a callgrind run with --dump-instr=yes over the stream's all-in phases only (its toggles name
them). Every instruction counted is charged to a mechanism: the innermost source function it was compiled from
(`addr2line -i`, inlined code included) when that function belongs to one, else - in the fast paths' own bodies,
which do a bit of everything - by what its source line touches (the rules below). Instructions outside mrc.h are the
payload copy (libc's memcpy/memmove), the harness (its wrappers' own code) - neither is the core's - or a library
function the core calls (memset: charged to 'rest').

The attribution is approximate - a source line can touch two mechanisms, and is charged to the first rule it
matches - but it is complete: the mechanisms add up to callgrind's count of the core's instructions, which must be
the stream's ALL-IN figure (--expect, from the instruction table) within 0.1%, else a FAIL line and exit status 1.

The four mechanisms the firmware-speed levers of issue 36 address (per-block PSN bitmaps, NSCC per batch, EV choice
per chunk, lazy deadlines) are marked; the 'bound' lines say what would be left if those four cost nothing at all,
and if they cost half of what they do: no lever on those four can take the stream under the first.
"""
import collections
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
MRC_H = os.path.join(HERE, '..', 'mrc.h')

# mechanism, whether a lever of issue 36 addresses it, what it holds
MECHS = [
    ('psn', True, "requester's per-PSN state: blocks, records, transmit list, acknowledged bits, window"),
    ('cc', True, 'congestion control: NSCC, the window test, the rcvd credit'),
    ('ev', True, 'EV choice and per-EV accounting (rotation, recycling, delivery)'),
    ('timers', True, 'timers, deadlines, RTT samples, timestamps'),
    ('codec', False, 'header bytes: encode, decode, the transmit template'),
    ('api', False, 'API entry and checks, connection lookup, queues and scheduling'),
    ('rest', False, "the responder's state (cumulative PSN, SACKs owed, placement bounds, immediates) and the rest"),
]
LEVERS = [m for m, lever, _ in MECHS if lever]

# by innermost function name (first match)
FN_RULES = [
    ('psn', r'^mrc__(blk|txl_\w+|plist_\w+|link_psn|sack_one_head|req_release|pool_\w+|sack_blk|req_acked\w*|'
            r'sack_cum\w*|sack_run\w*|rec_nominal|sack_nominal|nominal_full|sack_complete|wr_npkts|req_sack_bits|'
            r'req_sack_inr|acked64_of|sack_losses\w*|req_losses\w*|req_slack_steady|req_ack_one|sack_ack\w*)$'),
    ('cc', r'^mrc__(nscc_\w+|cc_\w+|sack_fast_rcvd|rcvd_newly|inc_add|sack_cc\w*|fast_data_sent|sack_fast_bcc)$'),
    ('ev', r'^mrc__(ev_\w+|evr_\w+|fast_ev_next|splitmix|rand\w*|sack_fast_ev0)$'),
    ('timers', r'^mrc__(timer\w*|deadline\w*|rto_\w+|tlp\w*|reo_\w+|req_timers\w*|req_progress|req_rtt_sample|'
               r'sack_fast_time|ts_unwrap|clock|ts|timers_min)$'),
    ('codec', r'^mrc__(ld\d\w*|st\d\w*|tx_tpl\w*|fast_data_hdrs|fast_data_ti|data_hdr_len|ti_zero|seth_fast_ok|'
              r'bits64|sack_slice|ri_word|pkt_decode\w*|bth_get)$|^mrc_psn_(add|diff)$'),
    ('api', r'^mrc_endpoint_\w+$|^mrc__(recv_one|recv|ring_push\w*|sched_\w+|req_idle|conn_lookup|poll_tx|req_new|'
            r'conn_ccx|conn_prof|all_ports|burst_\w+|check_all)$'),
]
# in the fast paths' own bodies, by the source line's text (first match)
LINE_RULES = [
    ('psn', r'txl|->acked|bk->|rec\[|r->flags|->sent\[|REC_SENT|\buna\b|snd_una|win_base|old_base|snd_nxt|->prev|'
            r'->next|\.next\b|txseq|r->wr|r->ev\b|ev_lost|first_psn|sq_done|sq_sent|sq_send|wr_idx|nxt_ret|'
            r'\bprogress\b|\btln?\b|\btxc\b|room_w'),
    ('cc', r'cc_|x->|nominal|inflight|rcvd|cs\.'),
    ('ev', r'\bev\b|evs\[|plane_rr|rc_n|slot|port_ok|ENTROPY|ev_|n_act|n_skip|\bnp\b'),
    ('timers', r'rtt|deadline|lat_acked|\bnow\b|_TS\b|\bts\b|timer'),
    ('codec', r'MRC__FX|MRC__FPUT|mrc__st|mrc__ld|MRC_MEMCPY|hdr|ti->|\bpad\b|plen|opcode|MRC__FW|_LEN\b|'
              r'\blike\b|kl->'),
    ('api', r'ep->|in_txq|ctlq|sched|txq|TX_RUN_RING|e->cap|e->len|rc\[j\]|TRACE|CNT|st\.|return MRC_ERR'),
]


def charge(f, text):
    """the mechanism of an instruction compiled from function f's source line text"""
    mech = next((m for m, rx in FN_RULES if re.search(rx, f)), None)
    return mech or next((m for m, rx in LINE_RULES if re.search(rx, text)), 'rest')


def reconciles(core, expect):
    return expect > 0 and abs(core - expect) <= 0.001 * expect


def self_test():
    """what the rules charge: named functions of each mechanism, lines of the fast paths' bodies; the functions named
    must exist in mrc.h (a rename shows here, not as a silent move to 'rest')"""
    src, fn_at = functions_by_line(MRC_H)
    names = set(f for f in fn_at if f)
    cases = [('mrc__blk', 'psn'), ('mrc__txl_room', 'psn'), ('mrc__sack_run', 'psn'), ('mrc__nscc_ack', 'cc'),
             ('mrc__cc_fits', 'cc'), ('mrc__ev_rc_pop', 'ev'), ('mrc__ev_new_round', 'ev'), ('mrc__splitmix', 'ev'),
             ('mrc__req_timers_arm', 'timers'), ('mrc__deadline_add', 'timers'), ('mrc__ts_unwrap', 'timers'),
             ('mrc__tx_tpl_pkt', 'codec'), ('mrc__ld4', 'codec'), ('mrc_psn_diff', 'codec'),
             ('mrc_endpoint_recv', 'api'), ('mrc__poll_tx', 'api'), ('mrc__conn_lookup', 'api')]
    lines = [('c->txl.tail = psn;', 'psn'), ('bk->acked |= (uint64_t)1 << (cack & 63u);', 'psn'),
             ('x->inflight += nominal;', 'cc'), ('ti->port = c->evs[slot].port;', 'ev'),
             ('c->lat_acked_rtt = now - acked_sent;', 'timers'), ('MRC__FPUT(q, MRC__RETH_VA, va);', 'codec'),
             ('if (!buf || e->cap < room) break;', 'api'), ('c->sack_pending++;', 'rest')]
    bad = []
    for f, want in cases:
        if f not in names:
            bad.append('%s: no such function in mrc.h' % f)
        elif charge(f, '') != want:
            bad.append('%s: charged to %s, not %s' % (f, charge(f, ''), want))
    for body in ('mrc__req_sack_fast', 'mrc__req_tx_fast', 'mrc__rsp_fast_data', 'mrc__req_tx_run',
                 'mrc__rsp_fast_run'):
        if body not in names:
            bad.append('%s: no such function in mrc.h' % body)
        for text, want in lines:
            if charge(body, text) != want:
                bad.append('%s: "%s" charged to %s, not %s' % (body, text, charge(body, text), want))
    if not reconciles(1652.6, 1652.6) or reconciles(1600.0, 1652.6) or reconciles(1.0, 0.0):
        bad.append('the reconciliation test')
    for b in bad:
        print('FAIL mechanisms self-test: %s' % b)
    print('mechanisms self-test: %d functions and %d line rules checked, %d failed' %
          (len(cases) + 5, len(lines) * 5, len(bad)))
    return 1 if bad else 0


def fail(msg):
    print('  mechanisms: FAIL: %s' % msg)
    sys.exit(1)


def functions_by_line(path):
    """the name of the mrc.h function whose body holds each line (None outside one)"""
    pat = re.compile(r'^(?:MRC__PRIVATE|MRC_API|static)[^(;]*?\b(mrc_\w+)\s*\(')
    lines = open(path, encoding='utf-8').read().split('\n')
    fn, cur = [None] * (len(lines) + 2), None
    for i, text in enumerate(lines, 1):
        m = pat.match(text)
        if m and not text.rstrip().endswith(';'):
            cur = m.group(1)
        elif text.startswith('}'):
            fn[i] = cur
            cur = None
            continue
        fn[i] = cur
    return lines, fn


def costs(paths):
    """instruction address -> Ir, and -> the callgrind function name it was counted under, over callgrind outputs
    written with --dump-instr=yes --compress-strings=no"""
    cnt, name = collections.Counter(), {}
    for path in paths:
        after_calls, fn = False, ''
        for line in open(path, encoding='utf-8', errors='replace'):
            if line.startswith('fn='):
                fn = line[3:].strip()
                continue
            if line.startswith('calls='):
                after_calls = True  # the next cost line is the call's inclusive cost: not this function's own
                continue
            if line[:2] == '0x':
                if after_calls:
                    after_calls = False
                    continue
                p = line.split()
                if len(p) >= 3:
                    a = int(p[0], 16)
                    cnt[a] += int(p[2])
                    name.setdefault(a, fn)
    return cnt, name




def main(argv):
    if argv == ['--self-test']:
        return self_test()
    args, files, i = {}, [], 0
    while i < len(argv):
        if argv[i].startswith('--'):
            if i + 1 >= len(argv):
                fail('%s needs a value' % argv[i])
            args[argv[i][2:]] = argv[i + 1]
            i += 2
        else:
            files.append(argv[i])
            i += 1
    for k in args:
        if k not in ('bin', 'pkts', 'expect', 'stream', 'json', 'show'):
            fail('unknown option --%s (usage: see the top of bench/mechanisms.py)' % k)
    if args.get('show', 'psn') not in [m for m, _, _ in MECHS]:
        fail('--show takes one of %s' % ', '.join(m for m, _, _ in MECHS))
    for k in ('bin', 'pkts', 'expect', 'stream'):
        if k not in args:
            fail('--%s is missing (usage: see the top of bench/mechanisms.py)' % k)
    if not files:
        fail('no callgrind output named')
    pkts = float(args['pkts'])
    src, fn_at = functions_by_line(MRC_H)
    cnt, fname = costs(files)
    addrs = sorted(cnt)
    try:  # -a: each address's line first, then its frames, innermost first
        out = subprocess.run(['addr2line', '-a', '-i', '-e', args['bin']], input='\n'.join('0x%x' % a for a in addrs),
                             capture_output=True, text=True, check=True).stdout.split('\n')
    except (OSError, subprocess.CalledProcessError) as e:
        fail('addr2line: %s' % e)
    first = {}  # address -> its innermost frame "file:line"
    cur = None
    for line in out:
        if line.startswith('0x'):
            cur = int(line, 16)
        elif cur is not None and cur not in first:
            first[cur] = line
    per = collections.Counter()
    by_line = collections.defaultdict(collections.Counter)
    by_fn = collections.defaultdict(collections.Counter)
    copy = harness = 0
    for a in addrs:
        loc = first.get(a, '??:0')
        c = cnt[a]
        path, _, num = loc.rpartition(':')
        num = num.split()[0] if num else '0'
        if os.path.basename(path) not in ('mrc.h', 'core.c'):  # (bench/core.c's code is mrc.h's, by mrc.h's lines)
            f = fname.get(a, '')
            if re.search(r'mem(cpy|move)', f):
                copy += c  # the payload's copy, as the instruction table counts it
            elif path not in ('??', ''):
                harness += c  # the harness's wrappers (their own source)
            else:  # a library function the core calls (memset): the core's
                per['rest'] += c
                by_fn['rest']['libc ' + re.sub(r"'.*", '', f)] += c
            continue
        n = int(num) if num.isdigit() else 0
        if not 0 < n < len(fn_at):
            per['rest'] += c
            by_fn['rest']['?'] += c
            continue
        f, text = fn_at[n] or '?', src[n - 1]
        mech = charge(f, text)
        per[mech] += c
        by_fn[mech][f] += c
        by_line[mech][n] += c
    core = sum(per.values()) / pkts
    expect = float(args['expect'])
    ok = reconciles(core, expect)
    lever = sum(per[m] for m in LEVERS) / pkts
    name = args['stream']
    print('  %-8s %8s  %-s' % (name, 'Ir/pkt', 'mechanism (the functions it is charged most in)'))
    for m, is_lever, what in MECHS:
        top = ', '.join('%s %.0f' % (f.replace('mrc__', ''), v / pkts) for f, v in by_fn[m].most_common(3))
        print('  %-8s %8.1f  %s%s: %s' % (m, per[m] / pkts, '*' if is_lever else ' ', what, top))
    print('  %-8s %8.1f  (the ALL-IN figure: %.1f, %s)' % ('total', core, expect, 'matches' if ok else 'DIFFERS'))
    print('  %-8s %8.1f  the starred ones together; left if they cost nothing: %.1f, if they cost half: %.1f' %
          ('levers', lever, core - lever, core - lever / 2))
    if 'show' in args:
        for n, v in by_line[args['show']].most_common(40):
            print('    %6d %6.1f  %s' % (n, v / pkts, src[n - 1].strip()[:100]))
    if 'json' in args:
        with open(args['json'], 'a', encoding='utf-8') as j:
            rec = {'bench': 'mechanisms', 'stream': name, 'unit': 'Ir per data packet', 'all_in': round(core, 1),
                   'expect': expect, 'ok': ok, 'levers': round(lever, 1), 'bound_none': round(core - lever, 1),
                   'bound_half': round(core - lever / 2, 1), 'copy': round(copy / pkts, 1),
                   'harness': round(harness / pkts, 1)}
            rec.update({m: round(per[m] / pkts, 1) for m, _, _ in MECHS})
            j.write(json.dumps(rec, separators=(',', ':')) + '\n')
    if not ok:
        fail('%s: the mechanisms add up to %.1f instructions per data packet, the table says %.1f' %
             (name, core, expect))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
