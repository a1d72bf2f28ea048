#!/bin/sh
# Build the trace-generator workloads.
#   ./build.sh            build every program x arch x opt into elf/
#   ./build.sh host       also build host-native checkers into build/host/
#   ./build.sh exceptions only the exceptions program (O1) into elf/
# Requires (Debian): gcc-aarch64-linux-gnu gcc-arm-none-eabi (and gcc for host).
set -eu
cd "$(dirname "$0")"
P=programs
OUT=elf
mkdir -p "$OUT"
PROGS="quicksort recursion interp hash tree float mixed"
SRCS="$P/main.c $P/rt.c $P/quicksort.c $P/recursion.c $P/interp.c $P/hash.c $P/tree.c $P/float.c"
COMMON="-g -ffile-prefix-map=$(pwd)=. -ffreestanding -nostdlib -nostartfiles -static -fno-stack-protector \
 -fno-asynchronous-unwind-tables -fno-unwind-tables -ffunction-sections -fdata-sections \
 -ffp-contract=off -fno-tree-loop-distribute-patterns -Wall -Wextra -Wno-unused-function \
 -T $P/link.ld -Wl,--gc-sections -Wl,--build-id=none -Wl,-z,max-page-size=4096 -Wl,--no-warn-rwx-segments -I$P"

build() { # prog arch opt
    prog=$1 arch=$2 opt=$3
    out="$OUT/$prog-$arch-$opt.elf"
    case $arch in
    aarch64)
        aarch64-linux-gnu-gcc -$opt $COMMON -mstrict-align -fno-pie -no-pie \
            -mbranch-protection=none -DTG_PROG=$prog \
            $P/start_a64.S $SRCS -o "$out" -lgcc ;;
    arm)
        arm-none-eabi-gcc -$opt $COMMON -marm -march=armv7-a -mfloat-abi=soft \
            -mno-unaligned-access -DTG_PROG=$prog \
            $P/start_a32.S $SRCS -o "$out" -lgcc ;;
    thumb)
        arm-none-eabi-gcc -$opt $COMMON -mthumb -march=armv7-a -mfloat-abi=soft \
            -mno-unaligned-access -DTG_PROG=$prog \
            $P/start_a32.S $SRCS -o "$out" -lgcc ;;
    esac
}

# The exceptions program, whose SVCs, SMCs and timer interrupts the tracer
# models (tracegen.py --program exceptions): AArch64 (EL3 and EL1 vector
# tables) and M-profile (Thumb, ARMv7-M: thread and handler modes).
build_exceptions() { # opt
    opt=$1
    aarch64-linux-gnu-gcc -$opt $COMMON -mstrict-align -fno-pie -no-pie \
        -mbranch-protection=none -DTG_PROG=exceptions \
        $P/start_a64_exc.S $P/main.c $P/rt.c $P/exceptions.c -o "$OUT/exceptions-aarch64-$opt.elf" -lgcc
    arm-none-eabi-gcc -$opt $COMMON -mthumb -march=armv7-m -mfloat-abi=soft \
        -mno-unaligned-access -DTG_PROG=exceptions \
        $P/start_m.S $P/main.c $P/rt.c $P/exceptions.c -o "$OUT/exceptions-cortex-m-$opt.elf" -lgcc
}

if [ "${1:-}" = exceptions ]; then
    build_exceptions O1
    exit 0
fi

if [ "${1:-}" = host ]; then
    mkdir -p build/host
    for prog in $PROGS; do
        gcc -O2 -ffp-contract=off -DTG_HOST -DTG_PROG=$prog -I$P -o build/host/$prog \
            $P/host_main.c $P/main.c $P/rt.c $P/quicksort.c $P/recursion.c \
            $P/interp.c $P/hash.c $P/tree.c $P/float.c
    done
    exit 0
fi

for prog in $PROGS; do
    for arch in aarch64 arm thumb; do
        for opt in O1 O2; do
            build $prog $arch $opt
        done
    done
done
build_exceptions O1
build_exceptions O2
ls -l "$OUT"
