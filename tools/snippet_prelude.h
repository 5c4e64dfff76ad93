/* tools/snippet_prelude.h - what the code snippets of README.md and of mrc.h's USAGE comment assume the embedder
 * provides: a clock and the adapter's four I/O functions. tools/docs_check.sh compiles each snippet after this
 * header (C99 and C++11, -Werror), so a snippet that stops compiling against the API fails make test. */
#ifndef MRC_SNIPPET_PRELUDE_H
#define MRC_SNIPPET_PRELUDE_H
#include <stdio.h>
#include "mrc.h"
#ifdef __cplusplus
extern "C" {
#endif
mrc_time clock_ns(void);                                              /* monotonic nanoseconds */
size_t recv_packet(uint8_t *buf, size_t cap, mrc_rxinfo *ri);         /* one packet from BTH on, or 0 */
void send_packet(const mrc_txinfo *ti, const uint8_t *hdr, size_t len); /* headers, then ti's payload and pad */
void handle_event(const mrc_event *ev);
void wait_for_packet_until(mrc_time deadline);
int run(void *buf, uint64_t len, uint32_t peer_qpn, uint32_t peer_psn, uint32_t my_psn); /* README's example */
void header_loop(mrc_endpoint *ep);                                   /* wraps the USAGE comment's loop */
#ifdef __cplusplus
}
#endif
#endif
