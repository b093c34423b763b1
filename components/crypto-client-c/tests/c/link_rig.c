/* What tests/link.rs needs of a C link over the Cipher interface: its size, its
 * counters and its attach, for a Rust test that plays the driver. */
#include "crypto_pd/cipher.h"
#include "crypto_pd/link.h"

CRYPTO_PD_LINK_ASSERT_ITEMS(cipher, CIPHER);

uint64_t link_rig_size(void) { return sizeof(crypto_pd_link_t); }

uint64_t link_rig_bytes(void) {
    crypto_pd_link_items_t it = CRYPTO_PD_LINK_ITEMS(cipher, CIPHER);
    return crypto_pd_link_bytes(&it);
}

int link_rig_attach(crypto_pd_link_t *l, void *region, uint64_t len) {
    crypto_pd_link_items_t it = CRYPTO_PD_LINK_ITEMS(cipher, CIPHER);
    return crypto_pd_link_attach(l, region, len, &it);
}

/* submitted, answered, restarted, stray, stale, overruns, restarts, incarnation,
 * in flight. */
void link_rig_stats(const crypto_pd_link_t *l, uint64_t out[9]) {
    out[0] = l->stats.submitted;
    out[1] = l->stats.answered;
    out[2] = l->stats.restarted;
    out[3] = l->stats.stray;
    out[4] = l->stats.stale;
    out[5] = l->stats.overruns;
    out[6] = l->stats.restarts;
    out[7] = l->incarnation;
    out[8] = l->count;
}
