/* crypto-pd's console for C: a PD's lines into its console queue (idl's Serial, the
 * serial driver PD drains it into the board's UART), as the Rust runtime's
 * pd_runtime::console::ConsoleWriter writes them, so a C PD prints through the serial
 * driver in every Microkit configuration, not only where the debug kernel's
 * microkit_dbg_puts does.
 *
 * What a writer promises the driver, which keeps lines whole on that promise:
 *  - the pieces of one write are published together (one tail store), so the driver
 *    never sees half of a write;
 *  - a write that does not fit in the free slots is dropped whole, never cut, and
 *    counted; the next write that fits is preceded by a line saying how many were lost.
 *    A writer never waits for the driver.
 *
 * The queue is the page the .system file maps as `console`; the driver is on channel
 * CRYPTO_PD_CONSOLE_CHANNEL (61), notified when a write returns
 * CRYPTO_PD_CONSOLE_NOTIFY. Freestanding C11: nothing from libc. */
#ifndef CRYPTO_PD_CONSOLE_H
#define CRYPTO_PD_CONSOLE_H

#include <stddef.h>
#include <stdint.h>

#include "crypto_pd/queue.h"
#include "crypto_pd/serial.h"

/* The channel id by which a PD reaches the serial driver (pd_runtime's CHANNEL). */
enum { CRYPTO_PD_CONSOLE_CHANNEL = 61 };

typedef enum crypto_pd_console_written {
    /* Queued; the driver did not ask to be woken. */
    CRYPTO_PD_CONSOLE_QUEUED = 0,
    /* Queued; notify CRYPTO_PD_CONSOLE_CHANNEL. */
    CRYPTO_PD_CONSOLE_NOTIFY = 1,
    /* No room for the whole write: dropped, counted, reported with the next that fits. */
    CRYPTO_PD_CONSOLE_LOST = 2,
    /* The driver's index cannot be right: dropped. */
    CRYPTO_PD_CONSOLE_CORRUPT = 3,
} crypto_pd_console_written_t;

typedef struct crypto_pd_console {
    crypto_pd_queue_t queue;
    /* Writes dropped since the last one that went in. */
    uint32_t lost;
} crypto_pd_console_t;

/* Attaches to the queue at the start of `region` (`len` bytes); CRYPTO_PD_LAYOUT_OK or
 * why the region cannot hold it. */
crypto_pd_layout_t crypto_pd_console_attach(crypto_pd_console_t *c, void *region, uint64_t len);

/* Writes `text[..len]`: a line if it ends with a newline (which the driver writes
 * back), else the start of one that the next write goes on with. */
crypto_pd_console_written_t crypto_pd_console_write(crypto_pd_console_t *c, const char *text,
                                                    size_t len);

#endif /* CRYPTO_PD_CONSOLE_H */
