/*
 * tg.h - shared declarations for the freestanding trace-generator
 * workloads.  No libc: everything needed lives in rt.c.
 *
 * All workload arithmetic uses fixed-width unsigned types so that the
 * same source produces bit-identical results on AArch64, AArch32 and
 * on the host (see tests/host_check.c), which lets the generator
 * cross-check the emulator.
 */
#ifndef TG_H
#define TG_H

typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;
typedef int s32;
typedef __SIZE_TYPE__ size_t;

#define NOINLINE __attribute__((noinline))
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Runtime (rt.c). */
void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
void *tg_alloc(size_t n);
void tg_alloc_reset(void);
u32 tg_rand(u32 *state);

/* Knobs patched by tracegen.py into emulated memory before the run.
 * tg_iterations: how many times the workload's outer loop runs (this is
 *                what controls the trace length).
 * tg_status:     non-zero if a workload self-check failed.
 * tg_result:     running checksum, compared with a host-native run. */
extern volatile u32 tg_iterations;
extern volatile u32 tg_status;
extern volatile u32 tg_result;

/* Workloads: each returns a checksum of what it computed for one
 * iteration and sets bits in tg_status if its self-check fails. */
u32 prog_quicksort(u32 iter);
u32 prog_recursion(u32 iter);
u32 prog_interp(u32 iter);
u32 prog_hash(u32 iter);
u32 prog_tree(u32 iter);
u32 prog_float(u32 iter);
u32 prog_exceptions(u32 iter);

#endif
