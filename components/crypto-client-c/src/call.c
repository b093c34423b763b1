/* crypto_pd_invoke and crypto_pd_call: one call through a transport, its arguments
 * encoded and its reply classified as pd_idl::wire's encode and decode_reply do (see
 * wire.h). */
#include "crypto_pd/call.h"

/* `width` bytes of the integer at `p` (an object of that width: aligned), little-endian
 * at `out`. */
static uint8_t *put(uint8_t *out, const uint8_t *p, uint32_t width) {
    uint64_t v = width == 1   ? *p
                 : width == 2 ? *(const uint16_t *)(const void *)p
                 : width == 4 ? *(const uint32_t *)(const void *)p
                              : *(const uint64_t *)(const void *)p;
    for (uint32_t i = 0; i < width; i++) {
        *out++ = (uint8_t)(v >> (8 * i));
    }
    return out;
}

/* The little-endian integer of `width` bytes at `in` into the object at `p`; returns it. */
static uint64_t get(uint8_t *p, const uint8_t *in, uint32_t width) {
    uint64_t v = 0;
    for (uint32_t i = 0; i < width; i++) {
        v |= (uint64_t)in[i] << (8 * i);
    }
    if (width == 1) {
        *p = (uint8_t)v;
    } else if (width == 2) {
        *(uint16_t *)(void *)p = (uint16_t)v;
    } else if (width == 4) {
        *(uint32_t *)(void *)p = (uint32_t)v;
    } else {
        *(uint64_t *)(void *)p = v;
    }
    return v;
}

uint32_t crypto_pd_invoke(const crypto_pd_transport_t *t, const crypto_pd_op_t *op,
                          const void *const args[], void *ok) {
    uint64_t mrs[CRYPTO_PD_MSG_WORDS];
    uint32_t words = CRYPTO_PD_WORDS(op->args_bytes);
    uint8_t *out = (uint8_t *)mrs;
    for (uint32_t r = 0; r < op->arg_runs; r++) {
        const crypto_pd_run_t *run = &op->args[r];
        const uint8_t *p = (const uint8_t *)args[run->value] + run->offset;
        for (uint32_t i = 0; i < run->count; i++) {
            out = put(out, p + i * run->width, run->width);
        }
    }
    /* The rest of the last word is zero, as the Rust side leaves it. */
    for (uint8_t *end = (uint8_t *)mrs + words * 8u; out < end; out++) {
        *out = 0;
    }
    uint32_t status = crypto_pd_call(t, op, words, mrs);
    if (status != CRYPTO_PD_OK) {
        return status;
    }
    const uint8_t *in = (const uint8_t *)mrs;
    for (uint32_t r = 0; r < op->ok_runs; r++) {
        const crypto_pd_run_t *run = &op->ok[r];
        uint8_t *p = (uint8_t *)ok + run->offset;
        for (uint32_t i = 0; i < run->count; i++, in += run->width) {
            uint64_t v = get(p + i * run->width, in, run->width);
            if (op->ok_valid && !op->ok_valid((uint32_t)v)) {
                status = CRYPTO_PD_BAD_REPLY;
            }
        }
    }
    return status;
}

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
            return reply_words == CRYPTO_PD_WORDS(op->ok_bytes) ? CRYPTO_PD_OK
                                                                 : CRYPTO_PD_BAD_REPLY;
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
