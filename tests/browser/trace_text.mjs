// Expectations for the browser tests computed from the trace text itself,
// independently of the Rust core: instruction lines, register values and
// memory bytes as the trace states them.

import fs from 'node:fs';

const INSTRUCTION = /^\s*(\d+)\s+\S+\s+I[TS]\s/;
const REGISTER = /^\s*\d+\s+\S+\s+R\s+(\S+)\s+([0-9a-fA-F_]+)/;
const MEMORY = /^\s*\d+\s+\S+\s+M([RW])(\d+)\S*\s+([0-9a-fA-F]+)(?::[0-9a-fA-F]+)?\s+([0-9a-fA-F_]+)/;

/** A trace as lines (index 0 is line 1) with its instruction lines. */
export function readTrace(file) {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  const instructions = [];
  lines.forEach((text, i) => {
    const m = INSTRUCTION.exec(text);
    if (m) instructions.push({ line: i + 1, time: Number(m[1]), text });
  });
  return { lines, instructions };
}

/** The instruction line whose block holds `line`: the last one at or before it. */
export function instructionOf(trace, line) {
  let found = null;
  for (const ins of trace.instructions) {
    if (ins.line > line) break;
    found = ins;
  }
  return found;
}

/** The last line of the block starting at instruction line `line`. */
export function blockEnd(trace, line) {
  const next = trace.instructions.find((i) => i.line > line);
  return next ? next.line - 1 : trace.lines.length;
}

/** Register values (lower-case hex, as written) after line `upTo`. */
export function registersAt(trace, upTo) {
  const regs = {};
  for (let i = 0; i < upTo; i++) {
    const m = REGISTER.exec(trace.lines[i]);
    if (m) regs[m[1].toLowerCase()] = m[2].replaceAll('_', '').toLowerCase();
  }
  return regs;
}

/** Every `R name` line, 1-based, up to `upTo`. */
export function registerWrites(trace, name, upTo) {
  const out = [];
  for (let i = 0; i < upTo; i++) {
    const m = REGISTER.exec(trace.lines[i]);
    if (m && m[1].toLowerCase() === name) out.push(i + 1);
  }
  return out;
}

/** Where a click on register `name` in a pane at instruction line `line`
 * goes: the instruction that last wrote it before `line`'s own (a write
 * at the position itself is where the view already is, so the page goes
 * to the one before). */
export function previousWrite(trace, name, line) {
  // (Writes before the first instruction set the start state: not one.)
  const writers = registerWrites(trace, name, line - 1)
    .map((l) => instructionOf(trace, l)?.line)
    .filter((l) => l !== undefined);
  return writers.length ? writers[writers.length - 1] : null;
}

/** Memory accesses: { line, write, addr (BigInt), size, bytes (little-endian) }. */
export function memoryAccesses(trace) {
  const out = [];
  trace.lines.forEach((text, i) => {
    const m = MEMORY.exec(text);
    if (!m) return;
    const size = Number(m[2]);
    const value = BigInt('0x' + m[4].replaceAll('_', ''));
    const bytes = [];
    for (let b = 0; b < size; b++) bytes.push(Number((value >> BigInt(8 * b)) & 0xffn));
    out.push({ line: i + 1, write: m[1] === 'W', addr: BigInt('0x' + m[3]), size, bytes });
  });
  return out;
}

/** Byte values the trace has stated by line `upTo` (later accesses win). */
export function memoryAt(trace, upTo) {
  const mem = new Map();
  for (const a of memoryAccesses(trace)) {
    if (a.line > upTo) break;
    a.bytes.forEach((b, k) => mem.set(a.addr + BigInt(k), b));
  }
  return mem;
}
