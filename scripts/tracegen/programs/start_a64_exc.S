/*
 * start_a64_exc.S - AArch64 entry for the exceptions program: boots at
 * EL3, installs the EL3 and EL1 vector tables, drops to EL1 with an
 * ERET, calls tg_main at EL1 and spins at tg_exit. The handlers save the
 * caller-saved registers, call the C handlers of exceptions.c and ERET.
 * The tracer models the exception entries and returns (see tracegen.py,
 * ExceptionModel): SVC and the timer's IRQ are taken to EL1, SMC to EL3.
 */
    .section .text.start, "ax"
    .global _start
    .type _start, %function
_start:
    mov     x0, #(3 << 20)          /* CPACR_EL1.FPEN = 0b11 */
    msr     cpacr_el1, x0
    isb
    ldr     x0, =tg_vectors_el3
    msr     vbar_el3, x0
    ldr     x0, =tg_vectors_el1
    msr     vbar_el1, x0
    ldr     x0, =__stack_top
    mov     sp, x0
    ldr     x1, =__bss_start
    ldr     x2, =__bss_end
1:  cmp     x1, x2
    b.hs    2f
    str     xzr, [x1], #8
    b       1b
2:  ldr     x0, =el1_entry
    msr     elr_el3, x0
    mov     x0, #0x5                /* EL1h, interrupts unmasked */
    msr     spsr_el3, x0
    eret
el1_entry:
    bl      tg_main
    .global tg_exit
    .type tg_exit, %function
tg_exit:
    b       tg_exit
    .size _start, . - _start
    .ltorg

/* Saves x0-x18, x29, x30 (176 bytes), calls \fn(x0 = ESR), restores, ERET. */
.macro handler name, fn, esr
    .type \name, %function
\name:
    sub     sp, sp, #176
    stp     x0, x1, [sp, #0]
    stp     x2, x3, [sp, #16]
    stp     x4, x5, [sp, #32]
    stp     x6, x7, [sp, #48]
    stp     x8, x9, [sp, #64]
    stp     x10, x11, [sp, #80]
    stp     x12, x13, [sp, #96]
    stp     x14, x15, [sp, #112]
    stp     x16, x17, [sp, #128]
    stp     x18, x29, [sp, #144]
    str     x30, [sp, #160]
    mrs     x0, \esr
    mov     x1, sp
    bl      \fn
    ldp     x0, x1, [sp, #0]
    ldp     x2, x3, [sp, #16]
    ldp     x4, x5, [sp, #32]
    ldp     x6, x7, [sp, #48]
    ldp     x8, x9, [sp, #64]
    ldp     x10, x11, [sp, #80]
    ldp     x12, x13, [sp, #96]
    ldp     x14, x15, [sp, #112]
    ldp     x16, x17, [sp, #128]
    ldp     x18, x29, [sp, #144]
    ldr     x30, [sp, #160]
    add     sp, sp, #176
    eret
    .size \name, . - \name
.endm

    .text
    handler el1_sync, tg_svc_handler, esr_el1
    handler el1_irq, tg_timer_handler, esr_el1
    handler el3_sync, tg_smc_handler, esr_el3

    .type unexpected, %function
unexpected:
    b       unexpected

/* Vector tables: 16 entries of 0x80 bytes. */
    .balign 0x800
    .global tg_vectors_el1
tg_vectors_el1:
    .rept 4
    b       unexpected
    .balign 0x80
    .endr
    b       el1_sync                /* +0x200 current EL, SPx, synchronous */
    .balign 0x80
    b       el1_irq                 /* +0x280 current EL, SPx, IRQ */
    .balign 0x80
    .rept 10
    b       unexpected
    .balign 0x80
    .endr

    .balign 0x800
    .global tg_vectors_el3
tg_vectors_el3:
    .rept 8
    b       unexpected
    .balign 0x80
    .endr
    b       el3_sync                /* +0x400 lower EL, AArch64, synchronous */
    .balign 0x80
    .rept 7
    b       unexpected
    .balign 0x80
    .endr
