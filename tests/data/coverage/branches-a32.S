@ Conditional branches and conditional instructions with known outcomes for
@ tests/coverage.rs, and a literal pool: branches-a32.tarmac runs it once.
    .arm
    .text
    .global _start
    .type _start, %function
_start:
    ldr r0, =0x12345678
    mov r0, #2
loop:
    subs r0, r0, #1
    bne loop            @ taken once, then not taken
    cmp r0, #0
    moveq r1, #1        @ executed
    movne r1, #2        @ fails its condition
    b skip
    bne loop            @ never reached
skip:
    bleq done           @ taken
    nop                 @ never reached
done:
    b .
    .ltorg
    .size _start, .-_start
