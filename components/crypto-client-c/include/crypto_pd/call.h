/* crypto-pd's calls for C: crypto_pd_invoke and crypto_pd_call (declared in wire.h;
 * every generated interface header's stubs use them) and a transport over libmicrokit's protected procedure
 * call. Freestanding C11.
 *
 * A server that dies during a call: on the host backend the runtime reports it and the
 * transport returns nonzero, which a stub reports as the interface's ServerRestarted
 * (after one more attempt for an idempotent op). On seL4 a PPC to a dead server does not
 * return, as with every Microkit PD; the epoch in the queue pair's control line is what
 * tells a client its driver restarted (crypto_pd/link.h). */
#ifndef CRYPTO_PD_CALL_H
#define CRYPTO_PD_CALL_H

#include "crypto_pd/wire.h"

#ifdef CRYPTO_PD_MICROKIT
#include <microkit.h>

/* A transport over microkit_ppcall on the channel `ctx` points at (a microkit_channel). */
static inline int crypto_pd_microkit_call(void *ctx, uint64_t label, uint32_t words,
                                          uint64_t mrs[CRYPTO_PD_MSG_WORDS],
                                          uint64_t *reply_label, uint32_t *reply_words) {
    for (uint32_t i = 0; i < words; i++) {
        microkit_mr_set(i, mrs[i]);
    }
    microkit_msginfo reply = microkit_ppcall(*(microkit_channel *)ctx,
                                             microkit_msginfo_new(label, words));
    *reply_label = microkit_msginfo_get_label(reply);
    *reply_words = (uint32_t)microkit_msginfo_get_count(reply);
    for (uint32_t i = 0; i < *reply_words && i < CRYPTO_PD_MSG_WORDS; i++) {
        mrs[i] = microkit_mr_get(i);
    }
    return 0;
}
#endif

#endif /* CRYPTO_PD_CALL_H */
