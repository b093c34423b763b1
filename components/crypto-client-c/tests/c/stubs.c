/* The generated call stubs (static inline in the headers) given symbols, for
 * tests/call.rs to call against the Rust servers' dispatch. */
#include "crypto_pd/call.h"
#include "crypto_pd/cipher.h"
#include "crypto_pd/power.h"

uint32_t test_cipher_open_session(const crypto_pd_transport_t *t, uint8_t mode, uint8_t path,
                                  uint8_t key_len, const uint8_t key[32], const uint8_t iv[16],
                                  uint32_t *session);
uint32_t test_cipher_open_session(const crypto_pd_transport_t *t, uint8_t mode, uint8_t path,
                                  uint8_t key_len, const uint8_t key[32], const uint8_t iv[16],
                                  uint32_t *session) {
    return cipher_open_session(t, mode, path, key_len, key, iv, session);
}

uint32_t test_cipher_open_session_by_key(const crypto_pd_transport_t *t, uint8_t mode,
                                         uint8_t path, uint32_t handle, uint8_t usage,
                                         const uint8_t iv[16], uint32_t *session);
uint32_t test_cipher_open_session_by_key(const crypto_pd_transport_t *t, uint8_t mode,
                                         uint8_t path, uint32_t handle, uint8_t usage,
                                         const uint8_t iv[16], uint32_t *session) {
    return cipher_open_session_by_key(t, mode, path, handle, usage, iv, session);
}

uint32_t test_cipher_close_session(const crypto_pd_transport_t *t, uint32_t session);
uint32_t test_cipher_close_session(const crypto_pd_transport_t *t, uint32_t session) {
    return cipher_close_session(t, session);
}

uint32_t test_power_acquire(const crypto_pd_transport_t *t, uint8_t engine, power_grant_t *grant);
uint32_t test_power_acquire(const crypto_pd_transport_t *t, uint8_t engine, power_grant_t *grant) {
    return power_acquire(t, engine, grant);
}

uint32_t test_power_release(const crypto_pd_transport_t *t, const power_grant_t *grant);
uint32_t test_power_release(const crypto_pd_transport_t *t, const power_grant_t *grant) {
    return power_release(t, grant);
}
