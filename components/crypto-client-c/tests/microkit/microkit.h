/* A stand-in for libmicrokit's microkit.h, for compiling C client code on a machine
 * without a Microkit SDK (tests/readme.rs): the types and the calls crypto_pd/call.h
 * and the README's block use, declared as the Microkit manual and the SDK's header give them, never defined
 * (the objects are compiled, not linked). With MICROKIT_SDK set, the test compiles the
 * same code against the SDK's own header too. */
#ifndef CRYPTO_PD_TEST_MICROKIT_H
#define CRYPTO_PD_TEST_MICROKIT_H

#include <stdint.h>

typedef uint64_t seL4_Word;
typedef uint16_t seL4_Uint16;
typedef uint8_t seL4_Uint8;
typedef struct seL4_MessageInfo {
    seL4_Word words[1];
} seL4_MessageInfo_t;

typedef unsigned int microkit_channel;
typedef seL4_MessageInfo_t microkit_msginfo;

microkit_msginfo microkit_ppcall(microkit_channel ch, microkit_msginfo msginfo);
void microkit_notify(microkit_channel ch);
microkit_msginfo microkit_msginfo_new(seL4_Word label, seL4_Uint16 count);
seL4_Word microkit_msginfo_get_label(microkit_msginfo msginfo);
seL4_Word microkit_msginfo_get_count(microkit_msginfo msginfo);
void microkit_mr_set(seL4_Uint8 mr, seL4_Word value);
seL4_Word microkit_mr_get(seL4_Uint8 mr);

#endif /* CRYPTO_PD_TEST_MICROKIT_H */
