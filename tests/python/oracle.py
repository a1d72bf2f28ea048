"""An independent reading of Tarmac trace text, for the tests: it never uses
the project's parser, only the line layouts the trace formats document
(Fast Models `IT`/`IS` and `R`/`MR`/`MW` lines, ES `ES`/`LD`/`ST` lines,
gem5's with a cpu field). It counts what the SQL tables count."""

import collections
import re

UNITS = {"clk", "ns", "ps", "cs", "cyc", "tic", "us"}
SYSTEM_OPS = {"DC", "IC", "TLBI", "AT"}
MEMORY = re.compile(r"^M([RW])(\d+)")


def records(path):
    """(type word, rest of the tokens, whole line) for each line."""
    with open(path, "r", encoding="utf-8", errors="replace") as f:
        for line in f:
            tokens = line.split()
            i = 0
            if len(tokens) > 1 and re.fullmatch(r"[0-9.]+", tokens[0]) and tokens[1] in UNITS:
                i = 2
            if i < len(tokens) and re.fullmatch(r"cpu\d+", tokens[i]):
                i += 1
            if i < len(tokens):
                yield tokens[i], tokens[i + 1:], line


def mnemonic(line):
    """The first word of an instruction line's disassembly, upper-case."""
    close = line.index(")")
    colon = line.find(":", close)
    if colon < 0:
        return ""
    words = line[colon + 1:].split()
    if words and words[0] == "CCFAIL":
        words = words[1:]
    return words[0].upper() if words else ""


def count(path):
    """Instructions by mnemonic, register writes by register, memory writes
    by 4 KiB page."""
    mnemonics = collections.Counter()
    registers = collections.Counter()
    pages = collections.Counter()
    for word, rest, line in records(path):
        if word in ("IT", "IS", "ES") and rest and rest[0].startswith("("):
            mnemonics[mnemonic(line)] += 1
        elif word == "R" and rest and rest[0] not in SYSTEM_OPS:
            name = rest[0].split("<")[0].lower()
            registers[name] += 1
        elif word == "ST" and rest:
            pages[int(rest[0], 16) // 4096] += 1
        else:
            m = MEMORY.match(word)
            if m and m.group(1) == "W" and rest:
                pages[int(rest[0].split(":")[0], 16) // 4096] += 1
    return mnemonics, registers, pages


def profile_counts(path):
    """Calls per function address from a `profile` report file."""
    with open(path) as f:
        return profile_counts_text(f.read())


def profile_counts_text(text):
    """Calls per function address from a `profile` report's text."""
    out = {}
    for line in text.splitlines()[1:]:
        fields = line.split()
        if len(fields) >= 2 and fields[0].startswith("0x"):
            out[int(fields[0], 16)] = int(fields[1])
    return out
