/*
 * start_m.S - M-profile entry for the exceptions program (Thumb, ARMv7-M):
 * the vector table (initial stack pointer, then the handlers by exception
 * number: SVCall is 11, SysTick 15), then the reset handler: zero .bss,
 * call tg_main in thread mode, spin at tg_exit. The handlers are the C
 * functions of exceptions.c: an M-profile core stacks r0-r3, r12, lr, the
 * return address and xPSR itself (the tracer models it).
 */
    .syntax unified
    .thumb
    .section .text.start, "ax"
    .global tg_vectors
tg_vectors:
    .word   __stack_top
    .word   _start + 1
    .rept 9
    .word   unexpected + 1          /* NMI .. exception 10 */
    .endr
    .word   tg_svc_handler + 1      /* 11 SVCall */
    .word   unexpected + 1
    .word   unexpected + 1
    .word   unexpected + 1          /* 14 PendSV */
    .word   tg_timer_handler + 1    /* 15 SysTick */

    .global _start
    .type _start, %function
    .thumb_func
_start:
    ldr     r0, =__stack_top
    mov     sp, r0
    ldr     r1, =__bss_start
    ldr     r2, =__bss_end
    movs    r0, #0
1:  cmp     r1, r2
    it      lo
    strlo   r0, [r1], #4
    blo     1b
    bl      tg_main
    .global tg_exit
    .type tg_exit, %function
    .thumb_func
tg_exit:
    b       tg_exit
    .size _start, . - _start

    .type unexpected, %function
    .thumb_func
unexpected:
    b       unexpected
    .ltorg
