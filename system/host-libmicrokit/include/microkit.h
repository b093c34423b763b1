/* Microkit's C API (libmicrokit 2.3.0's microkit.h) for a PD built for the host backend:
 * the same types, entry points and calls, implemented by host-libmicrokit over
 * crypto-pd's host runtime instead of seL4 system calls. A PD written to the Microkit
 * manual builds against this header unchanged and runs under host-runner.
 *
 * Not here: the vCPU, SMC and x86 I/O port calls (no such hardware on the host), and
 * microkit_pd_restart's entry point (a host child restarts from its start). */
#ifndef MICROKIT_H
#define MICROKIT_H

#include <stdint.h>

typedef uint64_t seL4_Word;
typedef uint8_t seL4_Uint8;
typedef uint16_t seL4_Uint16;
typedef uint32_t seL4_Uint32;
typedef uint64_t seL4_Uint64;
typedef seL4_Word seL4_CPtr;
typedef uint8_t seL4_Bool;
#define seL4_True ((seL4_Bool)1)
#define seL4_False ((seL4_Bool)0)

/* seL4's message info word on 64-bit targets: label above bit 12, length in the low 7. */
typedef struct seL4_MessageInfo {
    seL4_Word words[1];
} seL4_MessageInfo_t;

typedef unsigned int microkit_channel;
typedef unsigned int microkit_child;
typedef seL4_MessageInfo_t microkit_msginfo;

#define MICROKIT_MAX_CHANNELS 62
#define MICROKIT_MAX_CHANNEL_ID (MICROKIT_MAX_CHANNELS - 1)
#define MICROKIT_PD_NAME_LENGTH 64

/* A PD's entry points: `init` and `notified` it must define; `protected` and `fault`
 * have defaults (host-libmicrokit's c/defaults.c, weak, as libmicrokit's are). */
void init(void);
void notified(microkit_channel ch);
microkit_msginfo protected(microkit_channel ch, microkit_msginfo msginfo);
seL4_Bool fault(microkit_child child, microkit_msginfo msginfo, microkit_msginfo *reply_msginfo);

extern char microkit_name[MICROKIT_PD_NAME_LENGTH];

void microkit_dbg_putc(int c);
void microkit_dbg_puts(const char *s);
void microkit_dbg_put8(seL4_Uint8 x);
void microkit_dbg_put32(seL4_Uint32 x);

void microkit_notify(microkit_channel ch);
void microkit_irq_ack(microkit_channel ch);
void microkit_deferred_notify(microkit_channel ch);
void microkit_deferred_irq_ack(microkit_channel ch);
microkit_msginfo microkit_ppcall(microkit_channel ch, microkit_msginfo msginfo);
void microkit_pd_restart(microkit_child pd, seL4_Word entry_point);
void microkit_pd_stop(microkit_child pd);
void microkit_mr_set(seL4_Uint8 mr, seL4_Word value);
seL4_Word microkit_mr_get(seL4_Uint8 mr);

static inline microkit_msginfo microkit_msginfo_new(seL4_Word label, seL4_Uint16 count)
{
    microkit_msginfo m;
    m.words[0] = (label << 12) | ((seL4_Word)count & 0x7fu);
    return m;
}

static inline seL4_Word microkit_msginfo_get_label(microkit_msginfo msginfo)
{
    return msginfo.words[0] >> 12;
}

static inline seL4_Word microkit_msginfo_get_count(microkit_msginfo msginfo)
{
    return msginfo.words[0] & 0x7fu;
}

#endif
