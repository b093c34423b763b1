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

/* In the generated headers: each enum type `x_t` has `x_valid(v)`, whether `v` is one
 * of its declared values (a peer may write any value); each op `OP` of interface `IF`
 * its label and encoded sizes (IF_LABEL_OP, IF_OP_ARGS_BYTES, IF_OP_OK_BYTES), its
 * descriptor IF_OP_OP and a typed stub `if_op(transport, arguments..., ok)` returning
 * crypto_pd_invoke's result. */

/* One run of an argument's or an `ok` value's wire form: `count` integers of `width`
 * bytes (1, 2, 4 or 8), next to each other in memory from `offset` bytes into value
 * `value` (the stub's argument of that index; 0 for the `ok` value). A value's runs, in
 * order, are its integers in field and element order, as hubpack encodes them. */
typedef struct crypto_pd_run {
    uint8_t value;
    uint8_t width;
    uint16_t count;
    uint32_t offset;
} crypto_pd_run_t;

/* What a generated stub tells crypto_pd_invoke of its op. */
typedef struct crypto_pd_op {
    uint64_t label;
    /* The arguments' encoded bytes (at most CRYPTO_PD_MSG_BYTES: idlc checks) and runs. */
    uint32_t args_bytes;
    const crypto_pd_run_t *args;
    uint32_t arg_runs;
    /* The `ok` value's: an OK reply of any other word count is BAD_REPLY. */
    uint32_t ok_bytes;
    const crypto_pd_run_t *ok;
    uint32_t ok_runs;
    /* Sent once more if the server died during the first attempt. */
    int idempotent;
    /* The interface's ServerRestarted code, for a server that died during the call. */
    uint32_t server_restarted;
    /* Whether an error reply's code is one the interface declares (else BAD_REPLY). */
    int (*error_valid)(uint32_t code);
    /* For an `ok` value that is an enum: whether it is declared (else BAD_REPLY). */
    int (*ok_valid)(uint32_t v);
} crypto_pd_op_t;

/* Every generated stub: encodes the arguments `args` point at (by `op`'s runs) into
 * the message words, calls, and decodes an OK reply's value into `ok`. Returns
 * CRYPTO_PD_OK, the interface's error code, CRYPTO_PD_PROTOCOL_BASE + n (the server
 * found the call malformed) or CRYPTO_PD_BAD_REPLY (a reply the client cannot decode:
 * an undeclared error or enum value, a wrong word count). A server that died during the
 * call is the interface's ServerRestarted, after one more attempt for an idempotent op.
 * The C client library's (crypto_pd/call.h). */
uint32_t crypto_pd_invoke(const crypto_pd_transport_t *t, const crypto_pd_op_t *op,
                          const void *const args[], void *ok);

/* One call of `words` words in `mrs`: returns a stub's result, with the reply's `ok`
 * words in `mrs` when OK. What crypto_pd_invoke sends its encoding through. */
uint32_t crypto_pd_call(const crypto_pd_transport_t *t, const crypto_pd_op_t *op,
                        uint32_t words, uint64_t mrs[CRYPTO_PD_MSG_WORDS]);

/* A queue of `item_t` has slots that hold it aligned, after shm-queue's header. */
#define CRYPTO_PD_QUEUE_LAYOUT(item_t, capacity, slot_bytes, bytes)                        \
    _Static_assert((slot_bytes) >= sizeof(item_t) && (slot_bytes) % _Alignof(item_t) == 0,  \
                   "a slot holds its item, aligned");                                      \
    _Static_assert((bytes) == CRYPTO_PD_QUEUE_HEADER_BYTES + (capacity) * (slot_bytes),     \
                   "header, then the slots")

#endif /* CRYPTO_PD_WIRE_H */
