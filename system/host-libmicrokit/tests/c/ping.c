/* A client written to the Microkit manual, nothing else: it writes ten bytes into the
 * region it shares with pong, calls pong for their sum, then trades three notifications
 * with it and calls again for pong's count of them. */
#include <stdint.h>
#include <microkit.h>

#define PONG 1

uintptr_t shared; /* setvar_vaddr="shared" */

static seL4_Word rounds;

static void say(const char *what, seL4_Word n)
{
    microkit_dbg_puts(microkit_name);
    microkit_dbg_puts(what);
    microkit_dbg_put32((seL4_Uint32)n);
    microkit_dbg_puts("\n");
}

static seL4_Word call(seL4_Word n, seL4_Word *seen)
{
    microkit_mr_set(0, n);
    microkit_msginfo reply = microkit_ppcall(PONG, microkit_msginfo_new(1, 1));
    if (microkit_msginfo_get_label(reply) != 2 || microkit_msginfo_get_count(reply) != 2) {
        say(": FAIL: reply label ", microkit_msginfo_get_label(reply));
        return 0;
    }
    *seen = microkit_mr_get(1);
    return microkit_mr_get(0);
}

void init(void)
{
    volatile uint8_t *bytes = (volatile uint8_t *)shared;
    for (seL4_Word i = 0; i < 10; i++) {
        bytes[i] = (uint8_t)(i + 1);
    }
    seL4_Word seen = 0;
    say(": pong summed ", call(10, &seen));
    microkit_notify(PONG);
}

void notified(microkit_channel ch)
{
    if (ch != PONG) {
        say(": FAIL: notified on channel ", ch);
        return;
    }
    rounds++;
    if (rounds < 3) {
        microkit_notify(PONG);
        return;
    }
    seL4_Word seen = 0;
    seL4_Word sum = call(10, &seen);
    if (sum == 55 && seen == 3) {
        say(": PASS: notifications each way: ", rounds);
    } else {
        say(": FAIL: pong saw ", seen);
    }
}
