/* A C client of the Cipher and Digest drivers, over crypto-pd's C library (queue.h,
 * call.h, the generated headers) and nothing but libmicrokit's calls: it opens a CBC
 * session and encrypts SP 800-38A F.2.1's four blocks, and opens a SHA-256 session and
 * hashes FIPS 180-4's "abc", each one queued request through a link (link.h: its
 * incarnation announced, its ids tagged, a driver restart reported), and checks the
 * published answers.
 *
 * One source for both backends: on seL4 against the SDK's libmicrokit (`make image`
 * builds it into the qemu_virt_aarch64 image, where it hands its verdict to the test
 * client through the region `report` and the channel `verdict`, as the Rust known-answer
 * clients do: crypto_client::verdict's layout), on the host against host-libmicrokit
 * (its test). Its lines go through the serial driver PD where the system maps it a
 * `console` queue (console.h: in every Microkit config, as the Rust PDs' do), else to
 * microkit_dbg_puts (the debug kernel's console, or the host runner's). */
/* call.h's transport over microkit_ppcall. */
#define CRYPTO_PD_MICROKIT
#include <stddef.h>
#include <stdint.h>
#include <microkit.h>
#include "crypto_pd/call.h"
#include "crypto_pd/cipher.h"
#include "crypto_pd/console.h"
#include "crypto_pd/digest.h"
#include "crypto_pd/link.h"

#define CIPHER 0
#define DIGEST 1

uintptr_t cipher_queues; /* setvar_vaddr */
uintptr_t cipher_data;
uintptr_t digest_queues;
uintptr_t digest_data;
/* Where the verdict goes, if the system says (setvar_vaddr "report", setvar_id
 * "verdict"): crypto_client::verdict::report's words, magic last. */
uintptr_t report;
seL4_Word verdict = ~(seL4_Word)0;
/* The regions' sizes, which the system's setvar_size patches in (a link checks its
 * queue region holds the pair). */
uintptr_t cipher_queues_size, cipher_data_size, digest_queues_size, digest_data_size, report_size;
/* The console queue, if the system maps one (setvar_vaddr "console"). */
uintptr_t console, console_size;

#define REPORT_MAGIC 0x56424f54u
#define REPORT_TEXT_AT 16u

static microkit_channel cipher_channel = CIPHER, digest_channel = DIGEST;
static crypto_pd_link_t cipher_link, digest_link;
CRYPTO_PD_LINK_ASSERT_ITEMS(cipher, CIPHER);
CRYPTO_PD_LINK_ASSERT_ITEMS(digest, DIGEST);
static int passed, failed, answered;

/* Writes the line "<name><a><b>\n" in one write: to the console queue if there is one
 * (the serial driver notified if it asked), else to microkit_dbg_puts. */
static void line(const char *a, const char *b)
{
    static crypto_pd_console_t out;
    static int attached;
    char buf[256];
    size_t n = 0;
    const char *parts[3] = {microkit_name, a, b};
    for (int p = 0; p < 3; p++) {
        for (const char *c = parts[p]; *c && n + 2 < sizeof buf; c++) {
            buf[n++] = *c;
        }
    }
    buf[n++] = '\n';
    if (console != 0 && !attached) {
        attached = crypto_pd_console_attach(&out, (void *)console, console_size) == CRYPTO_PD_LAYOUT_OK;
    }
    if (!attached) {
        buf[n] = 0;
        microkit_dbg_puts(buf);
        return;
    }
    if (crypto_pd_console_write(&out, buf, n) == CRYPTO_PD_CONSOLE_NOTIFY) {
        microkit_notify(CRYPTO_PD_CONSOLE_CHANNEL);
    }
}

static void say(const char *what)
{
    line(what, "");
}

/* Writes the verdict where the system maps `report`, then notifies `verdict`. */
static void hand_in(int ok)
{
    if (report == 0 || verdict > MICROKIT_MAX_CHANNEL_ID) {
        return;
    }
    static const char text[] = "a C client: SP 800-38A F.2.1 and FIPS 180-4 through the drivers";
    volatile uint8_t *r = (volatile uint8_t *)report;
    volatile uint32_t *w = (volatile uint32_t *)report;
    uint32_t n = sizeof text - 1;
    for (uint32_t i = 0; i < n; i++) {
        r[REPORT_TEXT_AT + i] = (uint8_t)text[i];
    }
    w[2] = n;
    w[1] = ok ? 1u : 0u;
    __atomic_thread_fence(__ATOMIC_RELEASE);
    w[0] = REPORT_MAGIC;
    microkit_notify((microkit_channel)verdict);
}

static void check(const char *what, const volatile uint8_t *got, const uint8_t *want, size_t n)
{
    int same = 1;
    for (size_t i = 0; i < n; i++) {
        same &= got[i] == want[i];
    }
    line(same ? ": pass: " : ": FAIL: ", what);
    passed += same;
    failed += !same;
}

static const uint8_t KEY[16] = {0x2b, 0x7e, 0x15, 0x16, 0x28, 0xae, 0xd2, 0xa6,
                                0xab, 0xf7, 0x15, 0x88, 0x09, 0xcf, 0x4f, 0x3c};
static const uint8_t IV[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
static const uint8_t PLAIN[64] = {
    0x6b, 0xc1, 0xbe, 0xe2, 0x2e, 0x40, 0x9f, 0x96, 0xe9, 0x3d, 0x7e, 0x11, 0x73, 0x93, 0x17, 0x2a,
    0xae, 0x2d, 0x8a, 0x57, 0x1e, 0x03, 0xac, 0x9c, 0x9e, 0xb7, 0x6f, 0xac, 0x45, 0xaf, 0x8e, 0x51,
    0x30, 0xc8, 0x1c, 0x46, 0xa3, 0x5c, 0xe4, 0x11, 0xe5, 0xfb, 0xc1, 0x19, 0x1a, 0x0a, 0x52, 0xef,
    0xf6, 0x9f, 0x24, 0x45, 0xdf, 0x4f, 0x9b, 0x17, 0xad, 0x2b, 0x41, 0x7b, 0xe6, 0x6c, 0x37, 0x10};
static const uint8_t CBC[64] = {
    0x76, 0x49, 0xab, 0xac, 0x81, 0x19, 0xb2, 0x46, 0xce, 0xe9, 0x8e, 0x9b, 0x12, 0xe9, 0x19, 0x7d,
    0x50, 0x86, 0xcb, 0x9b, 0x50, 0x72, 0x19, 0xee, 0x95, 0xdb, 0x11, 0x3a, 0x91, 0x76, 0x78, 0xb2,
    0x73, 0xbe, 0xd6, 0xb8, 0xe3, 0xc1, 0x74, 0x3b, 0x71, 0x16, 0xe6, 0x9e, 0x22, 0x22, 0x95, 0x16,
    0x3f, 0xf1, 0xca, 0xa1, 0x68, 0x1f, 0xac, 0x09, 0x12, 0x0e, 0xca, 0x30, 0x75, 0x86, 0xe1, 0xa7};
static const uint8_t ABC_SHA256[32] = {
    0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea, 0x41, 0x41, 0x40, 0xde, 0x5d, 0xae, 0x22, 0x23,
    0xb0, 0x03, 0x61, 0xa3, 0x96, 0x17, 0x7a, 0x9c, 0xb4, 0x10, 0xff, 0x61, 0xf2, 0x00, 0x15, 0xad};

void init(void)
{
    crypto_pd_transport_t cipher_t = {crypto_pd_microkit_call, &cipher_channel};
    crypto_pd_transport_t digest_t = {crypto_pd_microkit_call, &digest_channel};
    uint8_t key[32];
    for (int i = 0; i < 32; i++) {
        key[i] = i < 16 ? KEY[i] : 0;
    }
    uint32_t cs = 0, ds = 0;
    if (cipher_open_session(&cipher_t, CIPHER_MODE_CBC, CIPHER_PATH_ADAPTIVE, 16, key, IV, &cs) != CRYPTO_PD_OK ||
        digest_open_session(&digest_t, DIGEST_ALGORITHM_SHA256, DIGEST_HASH_PATH_AUTO, &ds) != CRYPTO_PD_OK) {
        say(": FAIL: open_session");
        failed++;
        hand_in(0);
        return;
    }
    crypto_pd_link_items_t ci = CRYPTO_PD_LINK_ITEMS(cipher, CIPHER);
    crypto_pd_link_items_t di = CRYPTO_PD_LINK_ITEMS(digest, DIGEST);
    if (crypto_pd_link_attach(&cipher_link, (void *)cipher_queues, cipher_queues_size, &ci) != CRYPTO_PD_LAYOUT_OK ||
        crypto_pd_link_attach(&digest_link, (void *)digest_queues, digest_queues_size, &di) != CRYPTO_PD_LAYOUT_OK) {
        say(": FAIL: queue layout");
        failed++;
        hand_in(0);
        return;
    }
    volatile uint8_t *c = (volatile uint8_t *)cipher_data, *d = (volatile uint8_t *)digest_data;
    for (int i = 0; i < 64; i++) {
        c[i] = PLAIN[i];
    }
    d[0] = 'a';
    d[1] = 'b';
    d[2] = 'c';
    cipher_request_t creq = {.id = 1, .session = cs, .op = CIPHER_OP_ENCRYPT, .nsegs = 1};
    creq.segs[0].offset = 0;
    creq.segs[0].len = 64;
    digest_request_t dreq = {.id = 2, .session = ds, .op = DIGEST_OP_FINAL, .nsegs = 2};
    dreq.segs[0].offset = 0;
    dreq.segs[0].len = 3;
    dreq.segs[1].offset = 64;
    dreq.segs[1].len = 32;
    /* The links' attach armed the response queues' signals. */
    if (crypto_pd_link_queue(&cipher_link, &creq) != CRYPTO_PD_SUBMIT_OK ||
        crypto_pd_link_queue(&digest_link, &dreq) != CRYPTO_PD_SUBMIT_OK) {
        say(": FAIL: queueing");
        failed++;
        hand_in(0);
        return;
    }
    if (crypto_pd_link_flush(&cipher_link)) {
        microkit_notify(CIPHER);
    }
    if (crypto_pd_link_flush(&digest_link)) {
        microkit_notify(DIGEST);
    }
}

static void cipher_done(void *ctx, uint32_t id, const void *response)
{
    (void)ctx;
    const cipher_response_t *r = response;
    answered++;
    if (r && id == 1 && r->status == 0 && r->bytes_done == 64) {
        check("SP 800-38A F.2.1 CBC-AES128.Encrypt", (volatile uint8_t *)cipher_data, CBC, 64);
    } else {
        say(r ? ": FAIL: cipher answer" : ": FAIL: cipher request restarted");
        failed++;
    }
}

static void digest_done(void *ctx, uint32_t id, const void *response)
{
    (void)ctx;
    const digest_response_t *r = response;
    answered++;
    if (r && id == 2 && r->status == 0 && r->digest_len == 32) {
        check("FIPS 180-4 SHA-256(\"abc\")", (volatile uint8_t *)digest_data + 64, ABC_SHA256, 32);
    } else {
        say(r ? ": FAIL: digest answer" : ": FAIL: digest request restarted");
        failed++;
    }
}

void notified(microkit_channel ch)
{
    int notify = 0;
    crypto_pd_link_t *link = ch == CIPHER ? &cipher_link : ch == DIGEST ? &digest_link : 0;
    if (link && crypto_pd_link_poll(link, ch == CIPHER ? cipher_done : digest_done, 0, &notify) != CRYPTO_PD_QUEUE_OK) {
        say(": FAIL: a driver broke its queue");
        failed++;
        answered++;
    }
    if (notify) {
        microkit_notify(ch);
    }
    if (answered == 2) {
        int ok = failed == 0 && passed == 2;
        say(ok ? ": verdict: PASS: 2 published answers through the drivers" : ": verdict: FAIL");
        hand_in(ok);
        answered++;
    }
}
