#!/bin/sh
# Rebuilds the tiny images of tests/coverage.rs's hand-written traces
# (Debian's gcc-aarch64-linux-gnu and gcc-arm-none-eabi, GCC 12).
set -e
cd "$(dirname "$0")"
flags="-g -fdebug-prefix-map=$(pwd)=. -nostdlib -nostartfiles -static -Wl,-Ttext=0x8000 -Wl,--build-id=none"
aarch64-linux-gnu-gcc $flags -o branches-a64.elf branches-a64.S
arm-none-eabi-gcc -march=armv7-a -marm $flags -o branches-a32.elf branches-a32.S
arm-none-eabi-gcc -march=armv7-a -mthumb $flags -o branches-t32.elf branches-t32.S
