// Conditional branches with known outcomes for tests/coverage.rs: the
// hand-written trace branches-a64.tarmac runs it once.
    .text
    .global _start
    .type _start, %function
_start:
    mov x0, #2
loop:
    subs x0, x0, #1
    b.ne loop           // taken once, then not taken
    cbz x0, done        // taken
    tbnz x0, #0, never  // never reached
done:
    cbnz x0, never      // not taken
    b finish
never:
    nop
finish:
    b .
    .size _start, .-_start
