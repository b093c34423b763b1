/* crypto_pd/link.h: crypto_client::Link in freestanding C (see the header). */
#include "crypto_pd/link.h"

#include <stdatomic.h>

#define EPOCH 0u
#define CLIENT 4u
#define BOUNDARY 8u
#define CLIENT_FROM 12u

/* Most answers one poll takes: every request in flight and a response queue of stray
 * answers (a restarted driver's predecessor's). */
#define MAX_POLL(l) (CRYPTO_PD_LINK_MAX_IN_FLIGHT + (l)->items.capacity)

static _Atomic uint32_t *control(const crypto_pd_link_t *l, uint32_t offset) {
    /* The control line starts on a cache line of a region attach checked is on one. */
    return (_Atomic uint32_t *)(void *)(l->control + offset);
}

static uint64_t line_up(uint64_t n) {
    return (n + CRYPTO_PD_CACHE_LINE - 1u) / CRYPTO_PD_CACHE_LINE * CRYPTO_PD_CACHE_LINE;
}

static uint64_t response_at(const crypto_pd_link_items_t *it) {
    return line_up(crypto_pd_queue_bytes(it->request_bytes, it->capacity));
}

static uint64_t control_at(const crypto_pd_link_items_t *it) {
    return response_at(it) + line_up(crypto_pd_queue_bytes(it->response_bytes, it->capacity));
}

uint64_t crypto_pd_link_bytes(const crypto_pd_link_items_t *items) {
    return control_at(items) + CRYPTO_PD_CACHE_LINE;
}

static uint32_t wire_id(uint32_t incarnation, uint32_t id) {
    return incarnation << CRYPTO_PD_LINK_ID_BITS | (id & CRYPTO_PD_LINK_ID_MASK);
}

static int of_incarnation(uint32_t wire, uint32_t incarnation) {
    return wire >> CRYPTO_PD_LINK_ID_BITS == (incarnation & 0xFFu);
}

/* The slot of the id in flight with `id`'s low bits, or MAX_IN_FLIGHT. */
static uint32_t find(const crypto_pd_link_t *l, uint32_t id) {
    uint32_t home = (id & CRYPTO_PD_LINK_ID_MASK) % CRYPTO_PD_LINK_MAX_IN_FLIGHT;
    if (l->used[home] && ((l->ids[home] ^ id) & CRYPTO_PD_LINK_ID_MASK) == 0) {
        return home;
    }
    for (uint32_t s = 0; s < CRYPTO_PD_LINK_MAX_IN_FLIGHT; s++) {
        if (l->used[s] && ((l->ids[s] ^ id) & CRYPTO_PD_LINK_ID_MASK) == 0) {
            return s;
        }
    }
    return CRYPTO_PD_LINK_MAX_IN_FLIGHT;
}

static void release(crypto_pd_link_t *l, uint32_t slot) {
    l->used[slot] = 0;
    l->count--;
}

static void drop(void *ctx, uint32_t id, const void *response) {
    (void)ctx;
    (void)id;
    (void)response;
}

crypto_pd_layout_t crypto_pd_link_attach(crypto_pd_link_t *l, void *region, uint64_t len,
                                         const crypto_pd_link_items_t *items) {
    if (items->request_bytes > CRYPTO_PD_LINK_MAX_ITEM ||
        items->response_bytes > CRYPTO_PD_LINK_MAX_ITEM ||
        2u * (uint64_t)items->capacity > CRYPTO_PD_LINK_MAX_IN_FLIGHT) {
        return CRYPTO_PD_LAYOUT_SLOT_ALIGNMENT;
    }
    if (len < crypto_pd_link_bytes(items)) {
        return CRYPTO_PD_LAYOUT_TOO_SMALL;
    }
    uint8_t *base = region;
    crypto_pd_layout_t e = crypto_pd_producer_attach(&l->tx, base, response_at(items),
                                                     items->capacity, items->request_bytes,
                                                     items->request_align);
    if (e == CRYPTO_PD_LAYOUT_OK) {
        e = crypto_pd_consumer_attach(&l->rx, base + response_at(items),
                                      control_at(items) - response_at(items), items->capacity,
                                      items->response_bytes, items->response_align);
    }
    if (e != CRYPTO_PD_LAYOUT_OK) {
        return e;
    }
    l->control = base + control_at(items);
    l->items = *items;
    l->count = 0;
    for (uint32_t s = 0; s < CRYPTO_PD_LINK_MAX_IN_FLIGHT; s++) {
        l->used[s] = 0;
    }
    l->stats = (crypto_pd_link_stats_t){0};
    l->epoch = atomic_load_explicit(control(l, EPOCH), memory_order_acquire);
    /* From first, then the incarnation (Release), as Control::announce_client: a
     * driver that sees the new incarnation sees where it queues from. */
    atomic_store_explicit(control(l, CLIENT_FROM), l->tx.mine, memory_order_release);
    uint32_t next = atomic_load_explicit(control(l, CLIENT), memory_order_relaxed) + 1u;
    l->incarnation = next == 0 ? 1 : next;
    atomic_store_explicit(control(l, CLIENT), l->incarnation, memory_order_release);
    /* A dead incarnation may have left the response queue's signal spent: the poll
     * re-arms it. What it finds is a dead incarnation's, stale. A broken queue shows
     * again at the first poll; the first flush notifies the driver anyway. */
    int notify;
    l->fresh = 0;
    (void)crypto_pd_link_poll(l, drop, 0, &notify);
    l->fresh = 1;
    return CRYPTO_PD_LAYOUT_OK;
}

crypto_pd_submit_t crypto_pd_link_queue(crypto_pd_link_t *l, const void *request) {
    _Alignas(64) uint8_t item[CRYPTO_PD_LINK_MAX_ITEM];
    const uint8_t *from = request;
    for (uint32_t i = 0; i < l->items.request_bytes; i++) {
        item[i] = from[i];
    }
    uint32_t id = *(const uint32_t *)(const void *)item;
    if (find(l, id) != CRYPTO_PD_LINK_MAX_IN_FLIGHT) {
        return CRYPTO_PD_SUBMIT_DUPLICATE_ID;
    }
    uint32_t slot = (id & CRYPTO_PD_LINK_ID_MASK) % CRYPTO_PD_LINK_MAX_IN_FLIGHT;
    for (uint32_t s = 0; l->used[slot]; s++) {
        if (s == CRYPTO_PD_LINK_MAX_IN_FLIGHT) {
            return CRYPTO_PD_SUBMIT_FULL;
        }
        slot = s;
    }
    *(uint32_t *)(void *)item = wire_id(l->incarnation, id);
    uint32_t at = l->tx.mine;
    crypto_pd_queue_status_t q = crypto_pd_enqueue(&l->tx, item);
    if (q == CRYPTO_PD_QUEUE_FULL) {
        return CRYPTO_PD_SUBMIT_FULL;
    }
    if (q != CRYPTO_PD_QUEUE_OK) {
        return CRYPTO_PD_SUBMIT_CORRUPT;
    }
    l->used[slot] = 1;
    l->ids[slot] = id;
    l->queued_at[slot] = at;
    l->count++;
    l->stats.submitted++;
    return CRYPTO_PD_SUBMIT_OK;
}

int crypto_pd_link_flush(crypto_pd_link_t *l) {
    int fresh = l->fresh;
    l->fresh = 0;
    return crypto_pd_take_signal_request(&l->tx) | fresh;
}

crypto_pd_queue_status_t crypto_pd_link_poll(crypto_pd_link_t *l, crypto_pd_link_done_fn done,
                                             void *ctx, int *notify) {
    *notify = 0;
    /* The epoch and its boundary first: a driver publishes them only once it has
     * settled the queues, so every answer of the old incarnation is queued by now. */
    uint32_t epoch = atomic_load_explicit(control(l, EPOCH), memory_order_acquire);
    uint32_t boundary = atomic_load_explicit(control(l, BOUNDARY), memory_order_acquire);
    _Alignas(64) uint8_t item[CRYPTO_PD_LINK_MAX_ITEM];
    uint32_t taken = 0;
    int drained = 0;
    while (!drained) {
        if (taken == MAX_POLL(l)) {
            /* A driver answering more than was asked: the rest stays queued, unarmed,
             * and its restart (if any) waits so that its answers still come first. */
            l->stats.overruns++;
            break;
        }
        crypto_pd_queue_status_t q = crypto_pd_dequeue(&l->rx, item);
        if (q == CRYPTO_PD_QUEUE_EMPTY) {
            int may_sleep = 0;
            q = crypto_pd_arm_signal(&l->rx, &may_sleep);
            if (q != CRYPTO_PD_QUEUE_OK) {
                return q;
            }
            drained = may_sleep;
            continue;
        }
        if (q != CRYPTO_PD_QUEUE_OK) {
            return q;
        }
        taken++;
        uint32_t wire = *(const uint32_t *)(const void *)item;
        if (!of_incarnation(wire, l->incarnation)) {
            l->stats.stale++;
            continue;
        }
        uint32_t slot = find(l, wire);
        if (slot == CRYPTO_PD_LINK_MAX_IN_FLIGHT) {
            l->stats.stray++;
            continue;
        }
        uint32_t id = l->ids[slot];
        release(l, slot);
        *(uint32_t *)(void *)item = id;
        if (*(const uint16_t *)(const void *)(item + 4) == l->items.server_restarted) {
            l->stats.restarted++;
            done(ctx, id, 0);
        } else {
            l->stats.answered++;
            done(ctx, id, item);
        }
    }
    if (drained && epoch != l->epoch) {
        /* 0 -> 1 is the driver's first start, not a restart. */
        if (l->epoch != 0 || epoch != 1) {
            l->stats.restarts++;
        }
        /* Queued before the boundary and unanswered: taken by a dead incarnation or
         * discarded. At or after it: the new incarnation serves it. */
        for (uint32_t s = 0; s < CRYPTO_PD_LINK_MAX_IN_FLIGHT; s++) {
            uint32_t ahead = boundary - l->queued_at[s];
            if (l->used[s] && ahead != 0 && ahead <= UINT32_MAX / 2u) {
                uint32_t id = l->ids[s];
                release(l, s);
                l->stats.restarted++;
                done(ctx, id, 0);
            }
        }
        l->epoch = epoch;
    }
    uint32_t free_slots = 0;
    crypto_pd_queue_status_t q = crypto_pd_free(&l->tx, &free_slots);
    if (q != CRYPTO_PD_QUEUE_OK) {
        return q;
    }
    if (free_slots < l->tx.capacity) {
        *notify = crypto_pd_link_flush(l);
    }
    return CRYPTO_PD_QUEUE_OK;
}
