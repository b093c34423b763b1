/* The console writer (include/crypto_pd/console.h): pd_runtime::console's, in C. */
#include "crypto_pd/console.h"

/* Bytes one piece carries: its `bytes` (pd_idl::serial::PIECE_BYTES). */
enum { PIECE_BYTES = sizeof(((serial_line_piece_t *)0)->bytes) };

crypto_pd_layout_t crypto_pd_console_attach(crypto_pd_console_t *c, void *region, uint64_t len)
{
    c->lost = 0;
    return crypto_pd_producer_attach(&c->queue, region, len, SERIAL_TX_QUEUE_CAPACITY,
                                     sizeof(serial_line_piece_t), _Alignof(serial_line_piece_t));
}

/* Pieces `len` bytes take (none for none). */
static uint32_t pieces(size_t len)
{
    return (uint32_t)((len + PIECE_BYTES - 1) / PIECE_BYTES);
}

/* Stages `text[..len]` as pieces (one empty piece if it is empty), the last marked
 * `last`. The room was checked: staging cannot fail. */
static void put(crypto_pd_queue_t *q, const char *text, size_t len, int last)
{
    uint32_t count = pieces(len) ? pieces(len) : 1;
    for (uint32_t i = 0; i < count; i++) {
        serial_line_piece_t piece = {0};
        size_t from = (size_t)i * PIECE_BYTES;
        size_t n = from >= len ? 0 : (len - from < PIECE_BYTES ? len - from : PIECE_BYTES);
        for (size_t k = 0; k < n; k++) {
            piece.bytes[k] = (uint8_t)text[from + k];
        }
        piece.len = (uint8_t)n;
        piece.last = (uint8_t)(last && i + 1 == count);
        (void)crypto_pd_stage(q, &piece);
    }
}

/* "console: N write(s) lost, the queue was full" into `buf`; its length. */
static size_t lost_note(uint32_t lost, char buf[64])
{
    static const char head[] = "console: ";
    static const char tail[] = " write(s) lost, the queue was full";
    char digits[10];
    size_t nd = 0, len = 0;
    do {
        digits[nd++] = (char)('0' + lost % 10);
        lost /= 10;
    } while (lost != 0);
    for (size_t i = 0; i + 1 < sizeof head; i++) {
        buf[len++] = head[i];
    }
    while (nd > 0) {
        buf[len++] = digits[--nd];
    }
    for (size_t i = 0; i + 1 < sizeof tail; i++) {
        buf[len++] = tail[i];
    }
    return len;
}

crypto_pd_console_written_t crypto_pd_console_write(crypto_pd_console_t *c, const char *text,
                                                    size_t len)
{
    int ends = len > 0 && text[len - 1] == '\n';
    size_t body = ends ? len - 1 : len;
    char note[64];
    size_t note_len = c->lost ? lost_note(c->lost, note) : 0;
    uint32_t need = pieces(note_len) + (pieces(body) ? pieces(body) : 1);
    uint32_t free_slots = 0;
    if (crypto_pd_free(&c->queue, &free_slots) != CRYPTO_PD_QUEUE_OK) {
        return CRYPTO_PD_CONSOLE_CORRUPT;
    }
    if (free_slots < need) {
        if (c->lost != UINT32_MAX) {
            c->lost++;
        }
        return CRYPTO_PD_CONSOLE_LOST;
    }
    if (note_len) {
        put(&c->queue, note, note_len, 1);
    }
    put(&c->queue, text, body, ends);
    crypto_pd_publish(&c->queue);
    c->lost = 0;
    return crypto_pd_take_signal_request(&c->queue) ? CRYPTO_PD_CONSOLE_NOTIFY
                                                     : CRYPTO_PD_CONSOLE_QUEUED;
}
