@ Conditional branches, an IT block and a literal pool with known outcomes
@ for tests/coverage.rs: branches-t32.tarmac runs it once.
    .syntax unified
    .thumb
    .text
    .global _start
    .type _start, %function
    .thumb_func
_start:
    ldr r0, =0x12345678
    movs r0, #2
loop:
    subs r0, #1
    bne loop            @ taken once, then not taken
    cmp r0, #0
    ite eq
    moveq r1, #1        @ executed
    movne r1, #2        @ fails its condition
    cbz r0, skip        @ taken
    bne.w loop          @ never reached
skip:
    cbnz r0, done       @ not taken
    nop
done:
    b .
    .align 2
    .ltorg
    .size _start, .-_start
