// The worker's half, the same in browsers and Node: it opens the trace
// through a reader (a synchronous read(offset, length) -> Uint8Array, so the
// wasm core pulls slices and the trace never enters wasm memory whole),
// indexes it, then answers the calls of lib/trace.js one at a time.

// Bytes indexed between progress events: a few per second on a fast disk.
const STEP_BYTES = 16 << 20;
const METHODS = new Set(['rows', 'registersAt', 'memoryAt', 'calltree', 'profile', 'search']);

export function messageOf(e) {
  return e instanceof Error ? e.message : String(e);
}

/** A reader over bytes kept on the JavaScript side. */
export function bytesReader(bytes) {
  return { length: bytes.length, read: (offset, length) => bytes.subarray(offset, offset + length) };
}

/**
 * Returns the worker's message handler. `TraceCore` is the wasm class,
 * `makeReader(input)` gives `{ length, read }` for an input the main thread
 * described, `post(message)` answers.
 */
export function serve(TraceCore, makeReader, post) {
  let core = null;
  return (msg) => {
    if (msg.type === 'open') {
      try {
        const trace = makeReader(msg.input);
        core = new TraceCore(trace.length, trace.read, msg.input.name);
        let warning = null;
        if (msg.elf) {
          const elf = makeReader(msg.elf);
          // The image is small and the core parses it from memory.
          warning = core.loadElf(elf.read(0, elf.length)) ?? null;
        }
        post({ type: 'progress', progress: { doneBytes: 0, totalBytes: trace.length, lines: 0, complete: false } });
        let progress;
        do {
          progress = core.indexStep(STEP_BYTES);
          post({ type: 'progress', progress });
        } while (!progress.complete);
        post({ type: 'ready', warning });
      } catch (e) {
        post({ type: 'failed', message: messageOf(e) });
      }
      return;
    }
    const { id, method, args } = msg;
    try {
      if (!core || !METHODS.has(method)) throw new Error(`no such call: ${method}`);
      post({ id, result: core[method](...args) });
    } catch (e) {
      post({ id, error: messageOf(e) });
    }
  };
}
