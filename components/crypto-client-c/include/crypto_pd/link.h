/* crypto-pd's client link for C: one client's queue pair with a driver, and the
 * bookkeeping that makes driver and client restarts safe, as the Rust
 * crypto_client::Link does it (components/crypto-client, pair.rs for the protocol).
 *
 * The pair's region (crypto_pd_link_bytes of it):
 *   offset 0                 request queue   (client produces, driver consumes)
 *   next cache line          response queue  (driver produces, client consumes)
 *   next cache line          control line:   +0  epoch        (driver writes)
 *                                            +4  client       (client writes)
 *                                            +8  boundary     (driver writes)
 *                                            +12 client from  (client writes)
 *
 * Client restarts: crypto_pd_link_attach announces this incarnation of the client
 * (client + 1) with the request index it queues from, so the driver closes what an
 * earlier incarnation left open and drops the requests it left queued; every request's
 * id carries the incarnation's low 8 bits above its own low 24 (an answer to another
 * incarnation, left in the queue or written before the driver saw the new one, is
 * counted stale and dropped, never delivered); attach polls once, which re-arms the
 * response queue's signal a dead incarnation may have left spent, and the first flush
 * notifies the driver whatever its flag says.
 *
 * Driver restarts: when the driver's epoch moves, the answers the old incarnation
 * published are delivered first, then every request still in flight that was queued
 * before the new incarnation's boundary is reported restarted (done with a NULL
 * response); one queued at or after it is served by the new incarnation. An answer
 * `ServerRestarted` (its session died with an earlier incarnation) is reported
 * restarted too. None is dropped silently, none delivered twice (an answer for an id
 * not in flight is counted stray and dropped).
 *
 * Works for every queued interface: each one's request and response begin with the
 * u32 `id`, and the response's u16 `status` follows it (CRYPTO_PD_LINK_ITEMS asserts
 * so). Assumes one thread (a PD) and request ids chosen by the client, unique among
 * its requests in flight. Freestanding C11: nothing from libc. */
#ifndef CRYPTO_PD_LINK_H
#define CRYPTO_PD_LINK_H

#include <stddef.h>
#include <stdint.h>

#include "crypto_pd/queue.h"

/* Requests one link may have in flight: a full request queue and a full response
 * queue (a driver takes a request only when its answer has room). */
#define CRYPTO_PD_LINK_MAX_IN_FLIGHT 128u
/* Bits of a request id the client chooses; the incarnation's low 8 bits are above. */
#define CRYPTO_PD_LINK_ID_BITS 24u
#define CRYPTO_PD_LINK_ID_MASK ((1u << CRYPTO_PD_LINK_ID_BITS) - 1u)
/* The largest request or response a link carries. */
#define CRYPTO_PD_LINK_MAX_ITEM 128u

/* What a link needs to know of its interface. */
typedef struct crypto_pd_link_items {
    uint32_t capacity;
    uint32_t request_bytes, request_align;
    uint32_t response_bytes, response_align;
    /* The interface's ServerRestarted status. */
    uint32_t server_restarted;
} crypto_pd_link_items_t;

/* The items of interface `iface` (its header's prefix, lower and upper case):
 * CRYPTO_PD_LINK_ITEMS(cipher, CIPHER). */
#define CRYPTO_PD_LINK_ITEMS(iface, IFACE)                                                  \
    ((crypto_pd_link_items_t){IFACE##_REQUEST_QUEUE_CAPACITY, sizeof(iface##_request_t),    \
                              _Alignof(iface##_request_t), sizeof(iface##_response_t),      \
                              _Alignof(iface##_response_t), IFACE##_ERROR_SERVER_RESTARTED})
#define CRYPTO_PD_LINK_ASSERT_ITEMS(iface, IFACE)                                           \
    _Static_assert(offsetof(iface##_request_t, id) == 0 &&                                  \
                       offsetof(iface##_response_t, id) == 0 &&                             \
                       offsetof(iface##_response_t, status) == 4 &&                         \
                       sizeof(iface##_request_t) <= CRYPTO_PD_LINK_MAX_ITEM &&              \
                       (uint32_t)IFACE##_REQUEST_QUEUE_CAPACITY ==                  \
                           (uint32_t)IFACE##_RESPONSE_QUEUE_CAPACITY &&                 \
                       2u * IFACE##_REQUEST_QUEUE_CAPACITY <= CRYPTO_PD_LINK_MAX_IN_FLIGHT, \
                   #iface " can be carried by a link")

/* Counters a test or a log can read (crypto_client::LinkStats). */
typedef struct crypto_pd_link_stats {
    uint64_t submitted, answered, restarted;
    /* Answers for ids not in flight: dropped, never delivered. */
    uint64_t stray;
    /* Answers to another incarnation of this client: dropped, never delivered. */
    uint64_t stale;
    /* Polls that stopped at the most answers one takes (a driver answering more than
     * was asked). */
    uint64_t overruns;
    /* Driver restarts seen. */
    uint32_t restarts;
} crypto_pd_link_stats_t;

typedef struct crypto_pd_link {
    crypto_pd_queue_t tx, rx;
    uint8_t *control;
    crypto_pd_link_items_t items;
    /* The driver epoch last seen (0: the driver was not up yet when we attached). */
    uint32_t epoch;
    uint32_t incarnation;
    /* The first flush or poll with requests waiting notifies the driver whatever its
     * flag says. */
    int fresh;
    uint32_t count;
    /* Ids in flight (untagged), at their home slot id % MAX_IN_FLIGHT when free, and
     * the request index each was queued at. */
    uint8_t used[CRYPTO_PD_LINK_MAX_IN_FLIGHT];
    uint32_t ids[CRYPTO_PD_LINK_MAX_IN_FLIGHT];
    uint32_t queued_at[CRYPTO_PD_LINK_MAX_IN_FLIGHT];
    crypto_pd_link_stats_t stats;
} crypto_pd_link_t;

typedef enum crypto_pd_submit {
    CRYPTO_PD_SUBMIT_OK = 0,
    /* The request queue or the in-flight table is full: poll, then try again. */
    CRYPTO_PD_SUBMIT_FULL = 1,
    /* An id already in flight (the same low 24 bits). */
    CRYPTO_PD_SUBMIT_DUPLICATE_ID = 2,
    /* The driver broke the queue's indices. */
    CRYPTO_PD_SUBMIT_CORRUPT = 3,
} crypto_pd_submit_t;

/* What a poll hands over, in the order the driver answered: request `id` answered with
 * `response` (its id untagged), or, with `response` NULL, restarted (its sessions are
 * gone). */
typedef void (*crypto_pd_link_done_fn)(void *ctx, uint32_t id, const void *response);

/* Bytes the pair's region needs. */
uint64_t crypto_pd_link_bytes(const crypto_pd_link_items_t *items);

/* Attaches this client incarnation's link to the pair in [region, region + len): the
 * announcement, the re-arm and the first poll (whatever it finds is a dead
 * incarnation's, dropped as stale). */
crypto_pd_layout_t crypto_pd_link_attach(crypto_pd_link_t *l, void *region, uint64_t len,
                                         const crypto_pd_link_items_t *items);

/* Queues a copy of `request` (request_bytes), its id tagged with the incarnation,
 * without looking whether the driver asked to be notified. */
crypto_pd_submit_t crypto_pd_link_queue(crypto_pd_link_t *l, const void *request);
/* After the last request of a batch: 1 if the driver is to be notified. */
int crypto_pd_link_flush(crypto_pd_link_t *l);

/* Hands every answer waiting to `done`, then, if the driver restarted, a restart for
 * each request in flight queued before its boundary. *notify is 1 if the driver must be
 * notified (requests wait and it asked to be told). CRYPTO_PD_QUEUE_CORRUPT if the
 * driver broke an index. */
crypto_pd_queue_status_t crypto_pd_link_poll(crypto_pd_link_t *l, crypto_pd_link_done_fn done,
                                             void *ctx, int *notify);

#endif /* CRYPTO_PD_LINK_H */
