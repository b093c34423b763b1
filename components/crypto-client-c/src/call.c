/* crypto_pd_call: one call through a transport, its reply classified as pd_idl::wire's
 * decode_reply does (see wire.h). */
#include "crypto_pd/call.h"

uint32_t crypto_pd_call(const crypto_pd_transport_t *t, const crypto_pd_op_t *op,
                        uint32_t words, uint64_t mrs[CRYPTO_PD_MSG_WORDS]) {
    if (words > CRYPTO_PD_MSG_WORDS) {
        words = CRYPTO_PD_MSG_WORDS;
    }
    /* The reply overwrites the words: keep the call's for a second attempt. */
    uint64_t sent[CRYPTO_PD_MSG_WORDS];
    for (uint32_t i = 0; i < words; i++) {
        sent[i] = mrs[i];
    }
    for (int attempt = 0; attempt < (op->idempotent ? 2 : 1); attempt++) {
        for (uint32_t i = 0; i < words; i++) {
            mrs[i] = sent[i];
        }
        uint64_t reply_label = 0;
        uint32_t reply_words = 0;
        if (t->call(t->ctx, op->label, words, mrs, &reply_label, &reply_words) != 0) {
            continue;
        }
        if (reply_label == 0) {
            /* Exactly the ok value's words, as decode_args wants. */
            return reply_words == op->ok_words ? CRYPTO_PD_OK : CRYPTO_PD_BAD_REPLY;
        }
        if (reply_label <= 0xFFFFu) {
            return op->error_valid((uint32_t)reply_label) ? (uint32_t)reply_label
                                                          : CRYPTO_PD_BAD_REPLY;
        }
        if (reply_label >= CRYPTO_PD_PROTOCOL_BASE + CRYPTO_PD_PROTOCOL_UNKNOWN_OP &&
            reply_label <= CRYPTO_PD_PROTOCOL_BASE + CRYPTO_PD_PROTOCOL_BAD_VALUE) {
            return (uint32_t)reply_label;
        }
        return CRYPTO_PD_BAD_REPLY;
    }
    return op->server_restarted;
}
