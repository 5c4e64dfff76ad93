/* sim/mrc_soak.c - the chaos soak: thousands of seeded random runs of two endpoints over tests/fixtures/mrc_wire.h,
 * each with heavy loss, duplication, corruption, trimming, ECN, jitter, PSNs about to wrap, and planes flapping both told
 * (the local port goes down, mrc_endpoint_port_set, and the peer learns it by PORT_STATUS_UPDATE) and untold (the
 * wire silently drops a plane in one or both directions). Every run must end with every posted write complete, the
 * bytes at the destination equal to the source, completions in order, and no QP error, unless it is a retry budget
 * spent while the path really was dead (reported with its arithmetic, not counted as a failure).
 *
 * A failure is one of:
 *   STALL       work outstanding but the wire has nothing scheduled and no endpoint has a deadline (a QP that
 *               waits silently), or no completion and no error for 30 s of virtual time after the faults ended
 *   CORRUPT     destination bytes of a completed write differ from the source, or a byte outside every write
 *               changed
 *   ORDER       SEND_DONE out of work-request order, or RECV_IMM out of Write-IMM order / wrong immediate or length
 *   QP_ERROR    a CONN_ERROR other than a retry budget exhausted while faults were active
 *
 *   build/sim/mrc_soak [--seconds S] [--seeds A-B] [-v]       (make soak: SOAK_SECONDS=600)
 * Prints one line per failing seed with the command that reproduces it, then
 *   "soak: N seeds, N stalls, N corruptions, N order errors, N QP errors (N retry budgets spent under faults)"
 * and "N passed, N failed" (a seed passes when it has no failure). Exit status 1 on any failure. */
#define MRC_IMPLEMENTATION
#include "../mrc.h"
#define MRC_WIRE_IMPLEMENTATION
#include "../tests/fixtures/mrc_wire.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define QMAX 4
#define SLICE (1u << 20)  /* bytes of destination memory per QP and direction */
#define MMAX 48           /* messages per QP and direction */
#define POSTMAX 8         /* writes outstanding per QP */
#define IOVA 0x40000000ull

typedef struct { uint32_t off, len; uint8_t imm; mrc_time at; } msg; /* at: not posted before */
typedef struct {
    mrc_conn c;
    msg m[MMAX];
    unsigned nmsg, posted, done, imm_posted, imm_seen, imm_next_check;
    int err;          /* CONN_ERROR status, 0 if none */
    mrc_time err_at;
} qp;
typedef struct {
    mrc_endpoint ep;
    qp q[QMAX];
    uint32_t rkey;
    uint8_t src[QMAX * SLICE];
    uint8_t dst[QMAX * SLICE]; /* written by the peer's QPs */
} side;

static side S[2];
static mrc_wire W;
static int verbose;
static uint64_t rng;

static uint64_t rnd(void) {
    uint64_t z = (rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static uint32_t below(uint32_t n) { return n ? (uint32_t)(rnd() % n) : 0; }

typedef struct { mrc_time at; int kind, side, port; } fault; /* kind: 0 told down, 1 told up, 2 silent, 3 restore */
static fault F[64];
static unsigned nf, fi;
static unsigned nq, nports;
static mrc_time faults_end;
static char why[512];
static int fail_kind; /* 0 none, 1 stall, 2 corrupt, 3 order, 4 qp error */
static unsigned retry_spent;

static void failf(int kind, const char *fmt, const char *a, unsigned x, unsigned y, unsigned z) {
    if (fail_kind) return;
    fail_kind = kind;
    snprintf(why, sizeof why, fmt, a, x, y, z);
}

static void post(int s, mrc_time now) {
    unsigned i, before = 0, after = 0;
    for (i = 0; i < nq; i++) before += S[s].q[i].posted;
    for (i = 0; i < nq; i++) {
        qp *x = &S[s].q[i];
        qp *peer = &S[1 - s].q[i];
        while (!x->err && x->posted < x->nmsg && x->posted - x->done < POSTMAX && x->m[x->posted].at <= now) {
            msg *m = &x->m[x->posted];
            mrc_write w;
            if (m->imm) { /* the receive first, on the peer's QP */
                if (peer->err || mrc_conn_post_recv(&peer->c, x->posted, now) != MRC_OK) break;
                peer->imm_posted++;
            }
            memset(&w, 0, sizeof w);
            w.wr_id = x->posted;
            w.opcode = m->imm ? MRC_WR_WRITE_IMM : MRC_WR_WRITE;
            w.buf = S[s].src + (size_t)i * SLICE + m->off;
            w.len = m->len;
            w.remote_va = IOVA + (uint64_t)i * SLICE + m->off;
            w.rkey = S[1 - s].rkey;
            w.imm = (uint32_t)(i << 24) | x->posted;
            if (mrc_conn_post_write(&x->c, &w, now) != MRC_OK) break;
            x->posted++;
        }
    }
    for (i = 0; i < nq; i++) after += S[s].q[i].posted;
    if (after != before) mrc_wire_kick(&W); /* only then: a kick makes the wire poll again at this instant */
}

/* expected immediates at side s's QP i: the Write-IMMs of the peer's QP i in order */
static int next_imm(const qp *sender, unsigned from) {
    unsigned k;
    for (k = from; k < sender->nmsg; k++)
        if (sender->m[k].imm) return (int)k;
    return -1;
}

static mrc_time last_progress;

static void pump(mrc_time now) {
    int s;
    mrc_event ev;
    for (s = 0; s < 2; s++) {
        while (mrc_endpoint_poll_event(&S[s].ep, &ev) > 0) {
            qp *x;
            unsigned i;
            if (ev.type != MRC_EVT_SEND_DONE && ev.type != MRC_EVT_RECV_IMM && ev.type != MRC_EVT_CONN_ERROR) continue;
            for (i = 0; i < nq && &S[s].q[i].c != ev.conn; i++) {
            }
            if (i == nq) continue;
            x = &S[s].q[i];
            if (ev.type == MRC_EVT_CONN_ERROR) {
                x->err = ev.status;
                x->err_at = now;
                last_progress = now;
                continue;
            }
            if (ev.status != MRC_OK) continue; /* flushes after an error */
            last_progress = now;
            if (ev.type == MRC_EVT_SEND_DONE) {
                if (ev.wr_id != x->done)
                    failf(3, "%s QP %u: SEND_DONE wr_id %u, expected %u", s ? "B" : "A", i, (unsigned)ev.wr_id, x->done);
                x->done++;
            } else {
                const qp *snd = &S[1 - s].q[i];
                int k = next_imm(snd, x->imm_next_check);
                if (k < 0 || ev.imm != ((uint32_t)(i << 24) | (uint32_t)k) || ev.byte_len != snd->m[k].len)
                    failf(3, "%s QP %u: RECV_IMM imm %#x, expected message %u", s ? "B" : "A", i, ev.imm,
                          (unsigned)k);
                else
                    x->imm_next_check = (unsigned)k + 1u;
                x->imm_seen++;
            }
        }
    }
}

/* the next time a message becomes ready to post, after now */
static mrc_time next_post(mrc_time now) {
    unsigned s, i;
    mrc_time t = MRC_TIME_NEVER;
    for (s = 0; s < 2; s++)
        for (i = 0; i < nq; i++) {
            const qp *x = &S[s].q[i];
            if (!x->err && x->posted < x->nmsg && x->m[x->posted].at > now && x->m[x->posted].at < t)
                t = x->m[x->posted].at;
        }
    return t;
}

static unsigned outstanding(void) {
    unsigned s, i, n = 0;
    for (s = 0; s < 2; s++)
        for (i = 0; i < nq; i++) {
            const qp *x = &S[s].q[i];
            if (!x->err) n += x->nmsg - x->done;
        }
    return n;
}

static void apply_fault(const fault *f) {
    mrc_time now = mrc_wire_now(&W);
    switch (f->kind) {
    case 0: /* told: the NIC sees its port go down; the link carries nothing either way */
        mrc_endpoint_port_set(&S[f->side].ep, (unsigned)f->port, false, now);
        mrc_wire_set_up(&W, MRC_WIRE_BOTH, (unsigned)f->port, false);
        break;
    case 1:
        mrc_wire_set_up(&W, MRC_WIRE_BOTH, (unsigned)f->port, true);
        mrc_endpoint_port_set(&S[f->side].ep, (unsigned)f->port, true, now);
        break;
    case 2: /* untold: a silent black hole in one direction (side -1: both) */
        mrc_wire_set_up(&W, f->side < 0 ? MRC_WIRE_BOTH : f->side, (unsigned)f->port, false);
        break;
    default:
        mrc_wire_set_up(&W, MRC_WIRE_BOTH, (unsigned)f->port, true);
        break;
    }
    mrc_wire_kick(&W);
}

static int fault_cmp(const void *a, const void *b) {
    const fault *x = (const fault *)a, *y = (const fault *)b;
    return x->at < y->at ? -1 : x->at > y->at;
}

/* one seed: 0 passed, else the failure kind */
static int run_seed(uint64_t seed) {
    mrc_config cfg;
    mrc_wire_config wc;
    mrc_wire_link l;
    unsigned s, i, k;
    uint32_t loss_ppm, psn_base;
    mrc_time now = 0;
    int heavy;

    rng = seed * 0xD1B54A32D192ED03ull + 1;
    fail_kind = 0;
    why[0] = 0;
    nports = 1 + below(8);
    nq = 1 + below(QMAX);
    heavy = (int)below(10);
    loss_ppm = heavy < 5 ? below(10001) : heavy < 8 ? 10000 + below(90001) : 100000 + below(200001);
    psn_base = below(3) == 0 ? 0xFFFFFFu - below(200) : below(0x1000000);

    for (s = 0; s < 2; s++) {
        mrc_config_default(&cfg);
        cfg.seed = seed * 2 + s;
        cfg.num_ports = (uint8_t)nports;
        cfg.auto_ev.per_port = (uint16_t)(1 + below(16));
        if (mrc_endpoint_init(&S[s].ep, &cfg, 0) != MRC_OK) return 4;
        if (mrc_endpoint_reg_mr(&S[s].ep, S[s].dst, IOVA, (uint64_t)nq * SLICE, MRC_ACCESS_REMOTE_WRITE, NULL,
                                &S[s].rkey) != MRC_OK)
            return 4;
        memset(S[s].dst, 0xA5, (size_t)nq * SLICE);
        for (i = 0; i < nq; i++) {
            qp *x = &S[s].q[i];
            uint32_t off = 0;
            memset(x, 0, sizeof *x);
            if (mrc_conn_init(&S[s].ep, &x->c, 0) != MRC_OK) return 4;
            x->nmsg = 1 + below(MMAX);
            for (k = 0; k < x->nmsg; k++) {
                uint32_t len = below(4) == 0 ? below(64) : below(SLICE / MMAX * 2);
                if (off + len > SLICE) len = SLICE - off;
                x->m[k].off = off;
                x->m[k].len = len;
                x->m[k].imm = (uint8_t)(below(3) == 0);
                off += len;
            }
        }
        for (k = 0; k < nq * SLICE; k++) S[s].src[k] = (uint8_t)(rnd() >> 24);
    }
    for (i = 0; i < nq; i++) {
        uint32_t mtu = 256u << below(5); /* both ends of a connection agree on the path MTU */
        for (s = 0; s < 2; s++) {
            mrc_conn_attr a;
            mrc_conn_attr_default(&a);
            a.dest_qpn = mrc_conn_qpn(&S[1 - s].q[i].c);
            a.sq_psn = (psn_base + i * 7919u + s * 104729u) & MRC_PSN_MASK;
            a.rq_psn = (psn_base + i * 7919u + (1 - s) * 104729u) & MRC_PSN_MASK;
            a.peer = 1;
            a.path_mtu = mtu;
            if (mrc_conn_connect(&S[s].q[i].c, &a, 0) != MRC_OK) return 4;
        }
    }

    mrc_wire_config_default(&wc);
    wc.seed = seed;
    wc.num_ports = (uint8_t)nports;
    wc.pool_pkts = 8192;
    wc.corrupt_undetected = false;
    for (s = 0; s < 2; s++)
        for (i = 1; i <= nports; i++) {
            mrc_wire_link_default(&l);
            l.rate_bps = 10000000000ull * (1u + below(40));
            l.delay_ns = 500 + below(5000);
            l.jitter_ns = below(4) ? below(20000) : 0;
            l.loss_ppm = loss_ppm;
            l.dup_ppm = below(3) ? below(20001) : 0;
            l.corrupt_ppm = below(3) ? below(5001) : 0;
            l.trim_ppm = below(2) ? below(50001) : 0;
            l.ce_ppm = below(2) ? below(100001) : 0;
            mrc_wire_config_set_link(&wc, (int)s, i, &l);
        }
    if (mrc_wire_init(&W, &wc, &S[0].ep, &S[1].ep, 0) != MRC_OK) return 4;

    /* faults: flaps told and untold during a window of up to 5 ms, or (one seed in four) up to 2 s with the writes
     * trickling over it; every one repaired by faults_end */
    nf = 0;
    fi = 0;
    faults_end = 0;
    {
        unsigned nflap = below(4) ? below(30) : 0;
        int slow = below(4) == 0;
        mrc_time window = 1 + (slow ? (mrc_time)below(2000000) * 1000u : below(5000000));
        if (slow) /* trickle: message k of every QP is posted at k/n of the window */
            for (s = 0; s < 2; s++)
                for (i = 0; i < nq; i++)
                    for (k = 0; k < S[s].q[i].nmsg; k++) S[s].q[i].m[k].at = window * k / S[s].q[i].nmsg;
        for (k = 0; k < nflap && nf + 2 <= sizeof F / sizeof F[0]; k++) {
            mrc_time t0 = (mrc_time)(((double)below(1000000) / 1e6) * (double)window);
            mrc_time d = 10000 + (mrc_time)(((double)below(1000000) / 1e6) * (double)window);
            int told = (int)below(2), sd = (int)below(2), port = 1 + (int)below(nports);
            F[nf].at = t0, F[nf].kind = told ? 0 : 2, F[nf].side = told ? sd : (below(3) == 0 ? -1 : sd);
            F[nf++].port = port;
            F[nf].at = t0 + d, F[nf].kind = told ? 1 : 3, F[nf].side = sd, F[nf++].port = port;
            if (t0 + d > faults_end) faults_end = t0 + d;
        }
        qsort(F, nf, sizeof F[0], fault_cmp);
        /* a told-down port must come back up even when another flap of the same port restored the wire earlier:
         * the final restore of every port puts both the wire and the NIC port up */
    }

    last_progress = 0;
    post(0, 0);
    post(1, 0);
    for (;;) {
        mrc_time limit = fi < nf ? F[fi].at : MRC_TIME_NEVER, np = next_post(mrc_wire_now(&W));
        int r;
        if (np < limit) limit = np;
        pump(mrc_wire_now(&W));
        post(0, mrc_wire_now(&W));
        post(1, mrc_wire_now(&W));
        if (fail_kind) break;
        if (!outstanding()) break;
        now = mrc_wire_now(&W);
        if (now > faults_end && now - (last_progress > faults_end ? last_progress : faults_end) > 30000000000ull) {
            failf(1, "%s: no completion and no error for 30 s of virtual time after the faults ended (%u writes "
                     "outstanding, faults ended at %u us)", "STALL", outstanding(), (unsigned)(faults_end / 1000), 0);
            break;
        }
        r = mrc_wire_step(&W, limit);
        if (r < 0) {
            failf(4, "%s: mrc_wire_step returned %u", "ERROR", (unsigned)-r, 0, 0);
            break;
        }
        if (r == 0) {
            if (np != MRC_TIME_NEVER && mrc_wire_now(&W) >= np && (fi >= nf || F[fi].at > np)) continue; /* post */
            if (fi < nf) {
                apply_fault(&F[fi++]);
                if (fi == nf) /* every flap over: every port up on both sides and on the wire */
                    for (i = 1; i <= nports; i++) {
                        mrc_wire_set_up(&W, MRC_WIRE_BOTH, i, true);
                        for (s = 0; s < 2; s++) mrc_endpoint_port_set(&S[s].ep, i, true, mrc_wire_now(&W));
                    }
                continue;
            }
            pump(mrc_wire_now(&W));
            if (outstanding())
                failf(1, "%s: %u writes outstanding, nothing scheduled: no packet in flight, no deadline (%u us)",
                      "STALL", outstanding(), (unsigned)(mrc_wire_now(&W) / 1000), 0);
            break;
        }
    }
    pump(mrc_wire_now(&W));
    if (verbose) {
        mrc_conn_stats cs;
        mrc_endpoint_stats es;
        for (s = 0; s < 2; s++) {
            mrc_endpoint_stats_get(&S[s].ep, &es);
            printf("  %c: rx %llu drops %llu:", s ? 'B' : 'A', (unsigned long long)es.rx_pkts, (unsigned long long)es.rx_drops);
            for (k = 0; k < MRC_DROP_REASONS; k++)
                if (es.drop[k]) printf(" %s %llu", mrc_drop_name(k), (unsigned long long)es.drop[k]);
            printf("\n");
            for (i = 0; i < nq; i++) {
                mrc_conn_stats_get(&S[s].q[i].c, &cs);
                printf("    QP %u: msgs %u posted %u done %u err %d; tx_data %llu rtx %llu rx_sack %llu rx_data %llu\n", i,
                       S[s].q[i].nmsg, S[s].q[i].posted, S[s].q[i].done, S[s].q[i].err, (unsigned long long)cs.tx_data,
                       (unsigned long long)cs.tx_rtx, (unsigned long long)cs.rx_sack, (unsigned long long)cs.rx_data);
            }
        }
    }
    /* errors */
    for (s = 0; s < 2 && !fail_kind; s++)
        for (i = 0; i < nq; i++) {
            const qp *x = &S[s].q[i];
            if (!x->err) continue;
            /* a retry budget (7 + 7 RTOs from 16.8 ms: 4.4 s) spent while a fault was active is explained */
            if (x->err == MRC_ERR_RETRY_EXC && nf && x->err_at <= faults_end + 4500000000ull) {
                retry_spent++;
                if (verbose)
                    printf("  seed %llu: %c QP %u retry budget spent at %.3f s (faults to %.3f s, loss %.1f%%)\n",
                           (unsigned long long)seed, s ? 'B' : 'A', i, (double)x->err_at / 1e9,
                           (double)faults_end / 1e9, loss_ppm / 1e4);
                continue;
            }
            failf(4, "%s QP %u: CONN_ERROR %u (negated mrc_err)", s ? "B" : "A", i, (unsigned)-x->err, 0);
            break;
        }
    /* bytes: every completed write placed exactly; nothing else touched */
    for (s = 0; s < 2 && !fail_kind; s++)
        for (i = 0; i < nq && !fail_kind; i++) {
            const qp *x = &S[s].q[i];
            const uint8_t *want = S[s].src + (size_t)i * SLICE, *got = S[1 - s].dst + (size_t)i * SLICE;
            uint32_t covered = x->nmsg ? x->m[x->nmsg - 1].off + x->m[x->nmsg - 1].len : 0;
            for (k = 0; k < x->done; k++)
                if (memcmp(want + x->m[k].off, got + x->m[k].off, x->m[k].len)) {
                    failf(2, "%s QP %u: message %u (completed) differs at the destination", s ? "A->B" : "B->A", i, k,
                          0);
                    break;
                }
            for (k = covered; k < SLICE && !fail_kind; k++)
                if (got[k] != 0xA5) failf(2, "%s QP %u: byte %u beyond every write changed", s ? "B" : "A", i, k, 0);
        }
    mrc_wire_free(&W);
    return fail_kind;
}

int main(int argc, char **argv) {
    double seconds = 60;
    uint64_t a = 1, b = UINT64_MAX, seed;
    unsigned n = 0, nfail = 0, kinds[5] = {0};
    time_t t0 = time(NULL);
    int i;
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seconds") && i + 1 < argc) seconds = atof(argv[++i]);
        else if (!strcmp(argv[i], "--seeds") && i + 1 < argc) {
            char *dash;
            a = strtoull(argv[++i], &dash, 10);
            b = *dash == '-' ? strtoull(dash + 1, NULL, 10) : a;
        } else if (!strcmp(argv[i], "--seed") && i + 1 < argc) a = b = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "-v")) verbose = 1;
        else {
            fprintf(stderr, "usage: mrc_soak [--seconds S] [--seeds A-B | --seed N] [-v]\n");
            return 2;
        }
    }
    for (seed = a; seed <= b && (b != UINT64_MAX || difftime(time(NULL), t0) < seconds); seed++) {
        int k = run_seed(seed);
        n++;
        if (k) {
            nfail++;
            kinds[k]++;
            printf("soak seed %llu: %s  (nports %u, QPs %u)  reproduce: build/sim/mrc_soak --seed %llu -v\n",
                   (unsigned long long)seed, why, nports, nq, (unsigned long long)seed);
            fflush(stdout);
        } else if (verbose) {
            printf("soak seed %llu: ok (nports %u, QPs %u, %u faults)\n", (unsigned long long)seed, nports, nq, nf);
        }
        if (seed == UINT64_MAX) break;
    }
    printf("soak: %u seeds in %.0f s, %u stalls, %u corruptions, %u order errors, %u QP errors (%u retry budgets "
           "spent under faults)\n",
           n, difftime(time(NULL), t0), kinds[1], kinds[2], kinds[3], kinds[4], retry_spent);
    printf("%u passed, %u failed\n", n - nfail, nfail);
    return nfail ? 1 : 0;
}
