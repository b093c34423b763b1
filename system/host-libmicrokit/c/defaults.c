/* libmicrokit's defaults for the entry points a PD need not define, weak as theirs are:
 * a call nobody serves is answered with an empty message, a child's fault leaves it
 * stopped. */
#include <microkit.h>

__attribute__((weak)) microkit_msginfo protected(microkit_channel ch, microkit_msginfo msginfo)
{
    (void)ch;
    (void)msginfo;
    microkit_dbg_puts(microkit_name);
    microkit_dbg_puts(": protected called, but this PD defines no protected()\n");
    return microkit_msginfo_new(0, 0);
}

__attribute__((weak)) seL4_Bool fault(microkit_child child, microkit_msginfo msginfo,
                                      microkit_msginfo *reply_msginfo)
{
    (void)child;
    (void)msginfo;
    (void)reply_msginfo;
    microkit_dbg_puts(microkit_name);
    microkit_dbg_puts(": a child faulted, but this PD defines no fault()\n");
    return seL4_False;
}
