/*
 * exceptions.c - a program whose exceptions are known by construction:
 * each iteration makes supervisor calls (SVC #1 adds, SVC #2 runs a loop
 * of SVC_SPIN iterations with interrupts enabled, so the timer's
 * interrupt is taken inside it: a nested exception), on AArch64 a secure
 * monitor call (SMC #3, taken to EL3), and a loop of WORK_LOOP
 * iterations that the timer interrupts. The tracer raises the timer's
 * interrupt every --timer-period instructions while interrupts are
 * unmasked; its handler counts ticks and runs TICK_LOOP iterations.
 * Built for AArch64 (start_a64_exc.S) and M-profile (start_m.S).
 */
#include "tg.h"

#define SVC_SPIN 40
#define WORK_LOOP 64
#define TICK_LOOP 8

volatile u32 tg_ticks;
volatile u32 tg_svcs;
volatile u32 tg_smcs;
static volatile u32 sink;

#ifdef __aarch64__
#define SVC(n, a) ({ register u64 x0 __asm__("x0") = (a); \
    __asm__ volatile("svc #" #n : "+r"(x0) : : "memory"); (u32)x0; })
#define SMC(n, a) ({ register u64 x0 __asm__("x0") = (a); \
    __asm__ volatile("smc #" #n : "+r"(x0) : : "memory"); (u32)x0; })
#define IRQ_ON() __asm__ volatile("msr daifclr, #2" ::: "memory")
#define IRQ_OFF() __asm__ volatile("msr daifset, #2" ::: "memory")

/* The handlers get the syndrome and the saved registers (x0 first). */
void tg_svc_handler(u64 esr, u64 *regs)
{
    u32 imm = esr & 0xffff;
    tg_svcs++;
    if (imm == 1) {
        regs[0] = regs[0] + 1;
    } else if (imm == 2) {
        u32 acc = (u32)regs[0];
        IRQ_ON();
        for (u32 i = 0; i < SVC_SPIN; i++)
            sink = acc = acc * 3 + i;
        IRQ_OFF();
        regs[0] = acc;
    }
}

void tg_smc_handler(u64 esr, u64 *regs)
{
    tg_smcs++;
    regs[0] = regs[0] ^ (esr & 0xffff);
}

void tg_timer_handler(u64 esr, u64 *regs)
{
    (void)esr;
    (void)regs;
    u32 t = tg_ticks + 1;
    for (u32 i = 0; i < TICK_LOOP; i++)
        sink = t + i;
    tg_ticks = t;
}
#else
/* M-profile: the core stacks the caller-saved registers itself, so the
 * handlers are plain functions; SVC's argument is in the stacked r0. */
#define SVC(n, a) ({ register u32 r0 __asm__("r0") = (a); \
    __asm__ volatile("svc #" #n : "+r"(r0) : : "memory"); r0; })
#define IRQ_ON() __asm__ volatile("cpsie i" ::: "memory")
#define IRQ_OFF() __asm__ volatile("cpsid i" ::: "memory")

void tg_svc_handler(void)
{
    u32 acc = tg_svcs;
    tg_svcs = acc + 1;
    for (u32 i = 0; i < SVC_SPIN; i++)
        sink = acc = acc * 3 + i;
}

void tg_timer_handler(void)
{
    u32 t = tg_ticks + 1;
    for (u32 i = 0; i < TICK_LOOP; i++)
        sink = t + i;
    tg_ticks = t;
}
#endif

NOINLINE static u32 work(u32 seed)
{
    u32 h = seed;
    for (u32 i = 0; i < WORK_LOOP; i++)
        h = (h ^ i) * 0x01000193u;
    return h;
}

u32 prog_exceptions(u32 iter)
{
    u32 h = work(iter);
    h += SVC(1, iter);
    h ^= SVC(2, h);
#ifdef __aarch64__
    h += SMC(3, iter);
#endif
    sink = h;
    return h;
}
