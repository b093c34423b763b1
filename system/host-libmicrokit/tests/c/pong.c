/* A passive-style server written to the Microkit manual, nothing else: it answers a
 * protected call with the sum of the bytes its caller put in the shared region (read
 * only here) and how many notifications it has had, and notifies back each one. */
#include <stdint.h>
#include <microkit.h>

#define PING 0

uintptr_t shared; /* setvar_vaddr="shared" */

static seL4_Word seen;

void init(void)
{
    microkit_dbg_puts(microkit_name);
    microkit_dbg_puts(": ready\n");
}

void notified(microkit_channel ch)
{
    if (ch == PING) {
        seen++;
        microkit_notify(PING);
    }
}

microkit_msginfo protected(microkit_channel ch, microkit_msginfo msginfo)
{
    if (ch != PING || microkit_msginfo_get_label(msginfo) != 1 || microkit_msginfo_get_count(msginfo) != 1) {
        return microkit_msginfo_new(0xbad, 0);
    }
    volatile const uint8_t *bytes = (volatile const uint8_t *)shared;
    seL4_Word n = microkit_mr_get(0), sum = 0;
    for (seL4_Word i = 0; i < n && i < 4096; i++) {
        sum += bytes[i];
    }
    microkit_mr_set(0, sum);
    microkit_mr_set(1, seen);
    return microkit_msginfo_new(2, 2);
}
