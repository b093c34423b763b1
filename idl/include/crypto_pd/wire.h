/* The message layer under every interface header, as pd_idl::wire defines it: a call is
 * label = op number and the hubpack encoding of its arguments (fixed-width little-endian
 * integers, fields in order, no padding) in the bytes of the message words, in memory
 * order; a reply's label is 0 (OK; the words hold the `ok` value), 1..=0xFFFF (the
 * interface's error, by value) or CRYPTO_PD_PROTOCOL_BASE + n (the call was malformed).
 * Written by hand, as its Rust twin pd_idl::wire is; pd-idl's c_headers test compares its
 * numbers with that module's. Freestanding C11: nothing from libc. */
#ifndef CRYPTO_PD_WIRE_H
#define CRYPTO_PD_WIRE_H

#include <stdint.h>

/* Message words in one call or reply (Microkit's limit), and the bytes they hold. */
#define CRYPTO_PD_MSG_WORDS 64u
#define CRYPTO_PD_MSG_BYTES 512u
/* Reply labels at and above this carry a protocol error. */
#define CRYPTO_PD_PROTOCOL_BASE 65536u
#define CRYPTO_PD_PROTOCOL_UNKNOWN_OP 1u
#define CRYPTO_PD_PROTOCOL_TRUNCATED 2u
#define CRYPTO_PD_PROTOCOL_OVERSIZED 3u
#define CRYPTO_PD_PROTOCOL_BAD_VALUE 4u
/* A call stub's result: 0 is OK; 1..=0xFFFF the interface's error; PROTOCOL_BASE + n a
 * protocol error; BAD_REPLY a reply the client cannot decode (pd_idl's CallError). */
#define CRYPTO_PD_OK 0u
#define CRYPTO_PD_BAD_REPLY 131072u
/* shm-queue's layout: tail, head and consumer_signalled a cache line each, then slots. */
#define CRYPTO_PD_CACHE_LINE 64u
#define CRYPTO_PD_QUEUE_HEADER_BYTES 192u

/* How a call stub reaches its server: one protected procedure call, its label and
 * `words` words in `mrs`, the reply's label and word count out, its words in `mrs`.
 * Returns 0, or nonzero if the server died before replying. */
typedef struct crypto_pd_transport {
    int (*call)(void *ctx, uint64_t label, uint32_t words, uint64_t mrs[CRYPTO_PD_MSG_WORDS],
                uint64_t *reply_label, uint32_t *reply_words);
    void *ctx;
} crypto_pd_transport_t;

/* The message words `bytes` of encoding take. */
#define CRYPTO_PD_WORDS(bytes) (((bytes) + 7u) / 8u)

/* What a generated stub tells crypto_pd_call of its op. */
typedef struct crypto_pd_op {
    uint64_t label;
    /* The words of the `ok` value an OK reply carries: any other count is BAD_REPLY. */
    uint32_t ok_words;
    /* Sent once more if the server died during the first attempt. */
    int idempotent;
    /* The interface's ServerRestarted code, for a server that died during the call. */
    uint32_t server_restarted;
    /* Whether an error reply's code is one the interface declares (else BAD_REPLY). */
    int (*error_valid)(uint32_t code);
} crypto_pd_op_t;

/* One call (the C client library's, crypto_pd/call.h) of `words` words in `mrs`:
 * returns a stub's result, with the reply's `ok` words in `mrs` when OK. */
uint32_t crypto_pd_call(const crypto_pd_transport_t *t, const crypto_pd_op_t *op,
                        uint32_t words, uint64_t mrs[CRYPTO_PD_MSG_WORDS]);

/* A queue of `item_t` has slots that hold it aligned, after shm-queue's header. */
#define CRYPTO_PD_QUEUE_LAYOUT(item_t, capacity, slot_bytes, bytes)                        \
    _Static_assert((slot_bytes) >= sizeof(item_t) && (slot_bytes) % _Alignof(item_t) == 0,  \
                   "a slot holds its item, aligned");                                      \
    _Static_assert((bytes) == CRYPTO_PD_QUEUE_HEADER_BYTES + (capacity) * (slot_bytes),     \
                   "header, then the slots")

static inline uint8_t *crypto_pd_put_u8(uint8_t *p, uint8_t v) {
    p[0] = v;
    return p + 1;
}
static inline uint8_t *crypto_pd_put_u16(uint8_t *p, uint16_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    return p + 2;
}
static inline uint8_t *crypto_pd_put_u32(uint8_t *p, uint32_t v) {
    return crypto_pd_put_u16(crypto_pd_put_u16(p, (uint16_t)v), (uint16_t)(v >> 16));
}
static inline uint8_t *crypto_pd_put_u64(uint8_t *p, uint64_t v) {
    return crypto_pd_put_u32(crypto_pd_put_u32(p, (uint32_t)v), (uint32_t)(v >> 32));
}
static inline const uint8_t *crypto_pd_get_u8(const uint8_t *p, uint8_t *v) {
    *v = p[0];
    return p + 1;
}
static inline const uint8_t *crypto_pd_get_u16(const uint8_t *p, uint16_t *v) {
    *v = (uint16_t)(p[0] | (uint16_t)p[1] << 8);
    return p + 2;
}
static inline const uint8_t *crypto_pd_get_u32(const uint8_t *p, uint32_t *v) {
    uint16_t lo, hi;
    p = crypto_pd_get_u16(crypto_pd_get_u16(p, &lo), &hi);
    *v = lo | (uint32_t)hi << 16;
    return p;
}
static inline const uint8_t *crypto_pd_get_u64(const uint8_t *p, uint64_t *v) {
    uint32_t lo, hi;
    p = crypto_pd_get_u32(crypto_pd_get_u32(p, &lo), &hi);
    *v = lo | (uint64_t)hi << 32;
    return p;
}
/* Ends an encoding at `p`: zeroes the rest of its last word, as the Rust side leaves it,
 * and returns the words used. */
static inline uint32_t crypto_pd_end(uint64_t mrs[CRYPTO_PD_MSG_WORDS], uint8_t *p, uint32_t words) {
    for (uint8_t *end = (uint8_t *)mrs + words * 8u; p < end; p++) {
        *p = 0;
    }
    return words;
}

#endif /* CRYPTO_PD_WIRE_H */
