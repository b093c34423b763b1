/* crypto-pd's shared-memory queues for C: the same layout, signalling protocol and
 * checks against a hostile peer as the Rust shm-queue crate (components/shm-queue),
 * so a C client and a Rust driver (or the reverse) share one queue.
 *
 * Layout (CRYPTO_PD_QUEUE_HEADER_BYTES of header, then the slots):
 *   offset   0  tail                written by the producer only
 *   offset  64  head                written by the consumer only
 *   offset 128  consumer_signalled  cleared by the consumer, set by the producer
 *   offset 192  slots[capacity]     crypto_pd_slot_bytes(item) apart
 *
 * Each side keeps its own index privately and only publishes it; the peer's index is
 * read and validated on every use: tail - head > capacity is CRYPTO_PD_QUEUE_CORRUPT
 * (the values seen are kept in bad_head and bad_tail), never an access out of the
 * region. Items are copied out with volatile reads before anyone looks at them; what
 * their fields mean is the caller's to check (the headers' _valid functions).
 *
 * Signalling (sDDF's, model-checked there and in shm-queue's signal_model test): a
 * producer publishes, then crypto_pd_take_signal_request (a SeqCst fence, then the flag)
 * says whether to notify; a consumer that finds the queue empty calls
 * crypto_pd_arm_signal (flag cleared, SeqCst fence, re-check) and sleeps only if it
 * still finds it empty. At least one side sees the other's store, so no wake-up is lost.
 *
 * Assumes one producer and one consumer, both of this CPU's byte order, and a region at
 * least 64-byte aligned. Freestanding C11: nothing from libc. */
#ifndef CRYPTO_PD_QUEUE_H
#define CRYPTO_PD_QUEUE_H

#include <stdint.h>

#include "crypto_pd/wire.h"

typedef enum crypto_pd_queue_status {
    CRYPTO_PD_QUEUE_OK = 0,
    /* No free slot (producer). */
    CRYPTO_PD_QUEUE_FULL = 1,
    /* Nothing to take (consumer). */
    CRYPTO_PD_QUEUE_EMPTY = 2,
    /* The peer's index cannot be right: it is broken or hostile. */
    CRYPTO_PD_QUEUE_CORRUPT = 3,
} crypto_pd_queue_status_t;

/* Why a region cannot hold the queue asked for (shm-queue's LayoutError). */
typedef enum crypto_pd_layout {
    CRYPTO_PD_LAYOUT_OK = 0,
    CRYPTO_PD_LAYOUT_CAPACITY = 1,       /* zero or not a power of two */
    CRYPTO_PD_LAYOUT_MISALIGNED = 2,     /* base not on a cache line */
    CRYPTO_PD_LAYOUT_TOO_SMALL = 3,      /* fewer than crypto_pd_queue_bytes */
    CRYPTO_PD_LAYOUT_SLOT_ALIGNMENT = 4, /* item alignment not a power of two up to 64 */
} crypto_pd_layout_t;

/* The private state of one end: its own index is the truth, the shared word only where
 * it is published. */
typedef struct crypto_pd_queue {
    uint8_t *region;
    uint32_t capacity;
    uint32_t item_bytes;
    uint32_t slot_bytes;
    /* Producer: tail. Consumer: head. */
    uint32_t mine;
    /* The peer's index when last read and validated (producer: the head, so free slots
     * are at least capacity - (tail - seen); consumer: the tail). */
    uint32_t seen;
    /* The indices a CRYPTO_PD_QUEUE_CORRUPT saw. */
    uint32_t bad_head;
    uint32_t bad_tail;
} crypto_pd_queue_t;

/* shm-queue's slot_size: the item's size rounded so that no slot straddles a cache line
 * (a power of two below a line; whole pairs of lines from a line up). */
uint32_t crypto_pd_slot_bytes(uint32_t item_bytes);
/* Bytes a queue of `capacity` items of `item_bytes` needs. */
uint64_t crypto_pd_queue_bytes(uint32_t item_bytes, uint32_t capacity);

/* Attaches to a queue in [region, region + len), resuming from the published index. */
crypto_pd_layout_t crypto_pd_producer_attach(crypto_pd_queue_t *q, void *region, uint64_t len,
                                             uint32_t capacity, uint32_t item_bytes,
                                             uint32_t item_align);
crypto_pd_layout_t crypto_pd_consumer_attach(crypto_pd_queue_t *q, void *region, uint64_t len,
                                             uint32_t capacity, uint32_t item_bytes,
                                             uint32_t item_align);

/* Producer: writes `item` (item_bytes) without publishing it. */
crypto_pd_queue_status_t crypto_pd_stage(crypto_pd_queue_t *q, const void *item);
/* Producer: makes every staged item visible. */
void crypto_pd_publish(crypto_pd_queue_t *q);
/* Producer: stage and publish. */
crypto_pd_queue_status_t crypto_pd_enqueue(crypto_pd_queue_t *q, const void *item);
/* Producer: free slots against the consumer's head, read now. */
crypto_pd_queue_status_t crypto_pd_free(crypto_pd_queue_t *q, uint32_t *free_slots);
/* Producer: 1 if the consumer asked to be woken (notify it), clearing the request. */
int crypto_pd_take_signal_request(crypto_pd_queue_t *q);

/* Consumer: takes one item into `out` (item_bytes). */
crypto_pd_queue_status_t crypto_pd_dequeue(crypto_pd_queue_t *q, void *out);
/* Consumer: items ready against the producer's tail, read now. */
crypto_pd_queue_status_t crypto_pd_len(crypto_pd_queue_t *q, uint32_t *ready);
/* Consumer: asks for a notification, then re-checks: *may_sleep is 1 if the queue is
 * still empty (sleeping until notified is safe), 0 if items arrived meanwhile. */
crypto_pd_queue_status_t crypto_pd_arm_signal(crypto_pd_queue_t *q, int *may_sleep);
/* Consumer: withdraws a request for notification. */
void crypto_pd_cancel_signal(crypto_pd_queue_t *q);

#endif /* CRYPTO_PD_QUEUE_H */
