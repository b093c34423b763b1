/* crypto_pd/queue.h: shm-queue's discipline in freestanding C (see the header). */
#include "crypto_pd/queue.h"

#include <stdatomic.h>

#define TAIL 0u
#define HEAD 64u
#define SIGNALLED 128u

static _Atomic uint32_t *word(const crypto_pd_queue_t *q, uint32_t offset) {
    /* A header word of a region whose base was checked to be on a cache line. */
    return (_Atomic uint32_t *)(void *)(q->region + offset);
}

uint32_t crypto_pd_slot_bytes(uint32_t item_bytes) {
    if (item_bytes >= CRYPTO_PD_CACHE_LINE) {
        uint32_t pair = 2u * CRYPTO_PD_CACHE_LINE;
        return (item_bytes + pair - 1u) / pair * pair;
    }
    uint32_t size = 1;
    while (size < item_bytes) {
        size <<= 1;
    }
    return size;
}

uint64_t crypto_pd_queue_bytes(uint32_t item_bytes, uint32_t capacity) {
    return CRYPTO_PD_QUEUE_HEADER_BYTES + (uint64_t)capacity * crypto_pd_slot_bytes(item_bytes);
}

static crypto_pd_layout_t attach(crypto_pd_queue_t *q, void *region, uint64_t len,
                                 uint32_t capacity, uint32_t item_bytes, uint32_t item_align) {
    if (capacity == 0 || (capacity & (capacity - 1u)) != 0) {
        return CRYPTO_PD_LAYOUT_CAPACITY;
    }
    if (item_bytes == 0 || item_align == 0 || (item_align & (item_align - 1u)) != 0 ||
        item_align > CRYPTO_PD_CACHE_LINE || item_bytes % item_align != 0) {
        return CRYPTO_PD_LAYOUT_SLOT_ALIGNMENT;
    }
    if ((uintptr_t)region % CRYPTO_PD_CACHE_LINE != 0) {
        return CRYPTO_PD_LAYOUT_MISALIGNED;
    }
    if (len < crypto_pd_queue_bytes(item_bytes, capacity)) {
        return CRYPTO_PD_LAYOUT_TOO_SMALL;
    }
    q->region = region;
    q->capacity = capacity;
    q->item_bytes = item_bytes;
    q->slot_bytes = crypto_pd_slot_bytes(item_bytes);
    q->bad_head = 0;
    q->bad_tail = 0;
    return CRYPTO_PD_LAYOUT_OK;
}

crypto_pd_layout_t crypto_pd_producer_attach(crypto_pd_queue_t *q, void *region, uint64_t len,
                                             uint32_t capacity, uint32_t item_bytes,
                                             uint32_t item_align) {
    crypto_pd_layout_t e = attach(q, region, len, capacity, item_bytes, item_align);
    if (e == CRYPTO_PD_LAYOUT_OK) {
        q->mine = atomic_load_explicit(word(q, TAIL), memory_order_acquire);
        /* Nothing known free until the head is read. */
        q->seen = q->mine - capacity;
    }
    return e;
}

crypto_pd_layout_t crypto_pd_consumer_attach(crypto_pd_queue_t *q, void *region, uint64_t len,
                                             uint32_t capacity, uint32_t item_bytes,
                                             uint32_t item_align) {
    crypto_pd_layout_t e = attach(q, region, len, capacity, item_bytes, item_align);
    if (e == CRYPTO_PD_LAYOUT_OK) {
        q->mine = atomic_load_explicit(word(q, HEAD), memory_order_acquire);
        q->seen = q->mine;
    }
    return e;
}

/* tail - head, or CORRUPT (recording what was seen) if that exceeds the capacity. */
static crypto_pd_queue_status_t occupancy(crypto_pd_queue_t *q, uint32_t head, uint32_t tail,
                                          uint32_t *used) {
    uint32_t n = tail - head;
    if (n > q->capacity) {
        q->bad_head = head;
        q->bad_tail = tail;
        return CRYPTO_PD_QUEUE_CORRUPT;
    }
    *used = n;
    return CRYPTO_PD_QUEUE_OK;
}

static uint8_t *slot(const crypto_pd_queue_t *q, uint32_t index) {
    return q->region + CRYPTO_PD_QUEUE_HEADER_BYTES + (index & (q->capacity - 1u)) * q->slot_bytes;
}

/* Copies between a private item and a slot, volatile on the shared side only: whole
 * words where both sides allow, else bytes. No libc: a freestanding PD has no memcpy. */
static void to_slot(volatile uint8_t *dst, const uint8_t *src, uint32_t n) {
    if (n % 4u == 0 && (uintptr_t)src % 4u == 0) {
        volatile uint32_t *d = (volatile uint32_t *)(volatile void *)dst;
        const uint32_t *s = (const uint32_t *)(const void *)src;
        for (uint32_t i = 0; i < n / 4u; i++) {
            d[i] = s[i];
        }
        return;
    }
    for (uint32_t i = 0; i < n; i++) {
        dst[i] = src[i];
    }
}

static void from_slot(uint8_t *dst, const volatile uint8_t *src, uint32_t n) {
    if (n % 4u == 0 && (uintptr_t)dst % 4u == 0) {
        uint32_t *d = (uint32_t *)(void *)dst;
        const volatile uint32_t *s = (const volatile uint32_t *)(const volatile void *)src;
        for (uint32_t i = 0; i < n / 4u; i++) {
            d[i] = s[i];
        }
        return;
    }
    for (uint32_t i = 0; i < n; i++) {
        dst[i] = src[i];
    }
}

/* Producer: free slots now, the head read, validated and remembered. */
static crypto_pd_queue_status_t look_head(crypto_pd_queue_t *q, uint32_t *room) {
    uint32_t head = atomic_load_explicit(word(q, HEAD), memory_order_acquire);
    uint32_t used;
    crypto_pd_queue_status_t s = occupancy(q, head, q->mine, &used);
    if (s == CRYPTO_PD_QUEUE_OK) {
        q->seen = head;
        *room = q->capacity - used;
    }
    return s;
}

crypto_pd_queue_status_t crypto_pd_stage(crypto_pd_queue_t *q, const void *item) {
    /* The head is read again only if the one last read leaves no slot. */
    uint32_t room = q->capacity - (q->mine - q->seen);
    if (room == 0) {
        crypto_pd_queue_status_t s = look_head(q, &room);
        if (s != CRYPTO_PD_QUEUE_OK) {
            return s;
        }
        if (room == 0) {
            return CRYPTO_PD_QUEUE_FULL;
        }
    }
    to_slot(slot(q, q->mine), item, q->item_bytes);
    q->mine++;
    return CRYPTO_PD_QUEUE_OK;
}

void crypto_pd_publish(crypto_pd_queue_t *q) {
    atomic_store_explicit(word(q, TAIL), q->mine, memory_order_release);
}

crypto_pd_queue_status_t crypto_pd_enqueue(crypto_pd_queue_t *q, const void *item) {
    crypto_pd_queue_status_t s = crypto_pd_stage(q, item);
    if (s == CRYPTO_PD_QUEUE_OK) {
        crypto_pd_publish(q);
    }
    return s;
}

crypto_pd_queue_status_t crypto_pd_free(crypto_pd_queue_t *q, uint32_t *free_slots) {
    uint32_t head = atomic_load_explicit(word(q, HEAD), memory_order_acquire);
    uint32_t used;
    crypto_pd_queue_status_t s = occupancy(q, head, q->mine, &used);
    if (s == CRYPTO_PD_QUEUE_OK) {
        *free_slots = q->capacity - used;
    }
    return s;
}

int crypto_pd_take_signal_request(crypto_pd_queue_t *q) {
    /* Dekker handshake with crypto_pd_arm_signal: the tail's store is visible before
     * the flag is read. */
    atomic_thread_fence(memory_order_seq_cst);
    _Atomic uint32_t *flag = word(q, SIGNALLED);
    if (atomic_load_explicit(flag, memory_order_relaxed) == 0) {
        atomic_store_explicit(flag, 1, memory_order_relaxed);
        return 1;
    }
    return 0;
}

/* Consumer: items ready now, the tail read, validated and remembered. */
static crypto_pd_queue_status_t look_tail(crypto_pd_queue_t *q, uint32_t *ready) {
    uint32_t tail = atomic_load_explicit(word(q, TAIL), memory_order_acquire);
    crypto_pd_queue_status_t s = occupancy(q, q->mine, tail, ready);
    if (s == CRYPTO_PD_QUEUE_OK) {
        q->seen = tail;
    }
    return s;
}

crypto_pd_queue_status_t crypto_pd_dequeue(crypto_pd_queue_t *q, void *out) {
    /* Items up to the tail last read are known ready; it is read again once they are
     * all taken. `known` is at most the capacity: `seen` only takes validated tails. */
    uint32_t ready = q->seen - q->mine;
    if (ready == 0 || ready > q->capacity) {
        crypto_pd_queue_status_t s = look_tail(q, &ready);
        if (s != CRYPTO_PD_QUEUE_OK) {
            return s;
        }
        if (ready == 0) {
            return CRYPTO_PD_QUEUE_EMPTY;
        }
    }
    from_slot(out, slot(q, q->mine), q->item_bytes);
    q->mine++;
    atomic_store_explicit(word(q, HEAD), q->mine, memory_order_release);
    return CRYPTO_PD_QUEUE_OK;
}

crypto_pd_queue_status_t crypto_pd_len(crypto_pd_queue_t *q, uint32_t *ready) {
    uint32_t tail = atomic_load_explicit(word(q, TAIL), memory_order_acquire);
    return occupancy(q, q->mine, tail, ready);
}

crypto_pd_queue_status_t crypto_pd_arm_signal(crypto_pd_queue_t *q, int *may_sleep) {
    atomic_store_explicit(word(q, SIGNALLED), 0, memory_order_relaxed);
    atomic_thread_fence(memory_order_seq_cst);
    uint32_t ready;
    crypto_pd_queue_status_t s = crypto_pd_len(q, &ready);
    if (s == CRYPTO_PD_QUEUE_OK) {
        *may_sleep = ready == 0;
    }
    return s;
}

void crypto_pd_cancel_signal(crypto_pd_queue_t *q) {
    atomic_store_explicit(word(q, SIGNALLED), 1, memory_order_relaxed);
}
