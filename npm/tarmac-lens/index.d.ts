// Types of the `tarmac-lens` package: the same API in browsers (browser.js)
// and Node (node.js). See README.md.

/**
 * A trace or an ELF image. Browsers: a `Blob`/`File` (read a slice at a
 * time), a URL or URL string (ranged requests; relative to the page), or
 * bytes. Node: a file path or `file:` URL (read a slice at a time), a
 * `Blob` (read whole first), or bytes (`Buffer` too).
 */
export type Input = Blob | ArrayBuffer | Uint8Array | URL | string;

/** How far indexing has got. */
export interface Progress {
  /** Bytes of the trace indexed so far. */
  doneBytes: number;
  /** The trace's length in bytes. */
  totalBytes: number;
  /** Lines indexed so far. */
  lines: number;
  /** Whether indexing has finished. */
  complete: boolean;
}

export interface OpenOptions {
  /** The traced program's ELF image: function names in rows and reports. */
  elf?: Input;
  /** Called with each progress report while indexing. */
  onProgress?: (progress: Progress) => void;
}

/** One trace line. */
export interface Row {
  /** Its number, 1-based. */
  line: number;
  /** The line (tabs expanded, lossily decoded as UTF-8). */
  text: string;
  /** The node (an instruction with its register and memory lines) holding it. */
  node: number;
  /** Whether this is the node's first line (where its instruction usually is). */
  firstOfNode: boolean;
  /** The node's timestamp, in the trace's unit. */
  time: number;
  /** The node's instruction address (Thumb bit set for Thumb), or null. */
  pc: bigint | null;
  /** With an ELF: the function an instruction line is in. */
  function: string | null;
  /** With an ELF's DWARF: the `file:line` an instruction was compiled from. */
  source: string | null;
}

/** Memory after an instruction; `bytes` and `known` have one entry per byte. */
export interface Memory {
  address: bigint;
  /** The values; an unknown byte reads 0. */
  bytes: Uint8Array;
  /** Whether each byte's value is known there. */
  known: boolean[];
}

/** One function of `profile()`, as a row of its table. */
export interface ProfileFunction {
  /** Entry address (Thumb bit included). */
  address: bigint;
  /** Its symbol (`name + 0x..` when entered past its start); empty without an ELF. */
  name: string;
  /** Activations that started there. */
  count: number;
  /** Their total time, wrapping as the reference tool's unsigned sum does. */
  time: bigint;
}

export interface SearchOptions {
  /** `pattern` is a regular expression (bytes, ASCII classes). */
  regex?: boolean;
  /** Letters match regardless of case (ASCII). */
  ignoreCase?: boolean;
  /** Only lines of these kinds. */
  kinds?: Array<'instructions' | 'registers' | 'memory' | 'events'>;
  /** Only lines `first..=last` (1-based). */
  lines?: [number, number];
  /** At most this many lines. */
  max?: number;
}

/** A matching line. */
export interface SearchHit {
  line: number;
  text: string;
}

/** The `progress` event of a Trace. */
export class TraceProgressEvent extends Event implements Progress {
  readonly type: 'progress';
  doneBytes: number;
  totalBytes: number;
  lines: number;
  complete: boolean;
}

/**
 * An open trace, indexed in its own worker. Every method is answered there;
 * failures reject with an `Error` whose message says why.
 */
export class Trace extends EventTarget {
  /** Resolves to this trace once it is indexed; rejects if it cannot be. */
  readonly ready: Promise<Trace>;
  /** Why the ELF image looks like another program's, if it does (it is used anyway). */
  readonly elfWarning: string | null;
  /** Lines `first .. first + count - 1` (1-based; at most 1000 at a time). */
  rows(first: number, count: number): Promise<Row[]>;
  /**
   * The core registers after the instruction holding `line`, by lower-case
   * name (`x0`..`x30`, `sp`, `pc`, `psr`; AArch32: `r0`..`r12`, `sp`, `lr`,
   * `pc`, `psr`), as hex text with `?` for unknown digits.
   */
  registersAt(line: number): Promise<Record<string, string>>;
  /** `length` (at most 4096) bytes from `address` after the instruction holding `line`. */
  memoryAt(line: number, address: bigint | number | string, length: number): Promise<Memory>;
  /** `tarmac-lens calltree` (with the ELF as `--image`): its exact text. */
  calltree(): Promise<{ text: string }>;
  /** `tarmac-lens profile`: its exact text, and its rows. */
  profile(): Promise<{ text: string; functions: ProfileFunction[] }>;
  /** The lines `tarmac-lens search` prints (as `LINE:TEXT`). */
  search(pattern: string, options?: SearchOptions): Promise<SearchHit[]>;
  /** Stops the worker (and closes a Node file); later calls reject. */
  close(): Promise<void>;
  addEventListener(type: 'progress', listener: (event: TraceProgressEvent) => void, options?: boolean | AddEventListenerOptions): void;
  addEventListener(type: string, listener: EventListenerOrEventListenerObject | null, options?: boolean | AddEventListenerOptions): void;
}

/** Opens a trace; resolves once it is indexed. */
export function openTrace(input: Input, options?: OpenOptions): Promise<Trace>;

/** Opens a trace and returns at once: listen for `progress`, await `ready`. */
export function startTrace(input: Input, options?: OpenOptions): Trace;
