// The main thread's half, the same in browsers and Node: a Trace is a
// handle on a worker that holds the wasm core; each method is a message
// there and a Promise here. The entry points (browser.js, node.js) make
// the worker and describe the input in a form it can read.

/** The `progress` event of a Trace: indexing has got this far. */
export class TraceProgressEvent extends Event {
  constructor(progress) {
    super('progress');
    this.doneBytes = progress.doneBytes;
    this.totalBytes = progress.totalBytes;
    this.lines = progress.lines;
    this.complete = progress.complete;
  }
}

export class Trace extends EventTarget {
  #worker;
  #pending = new Map();
  #nextId = 0;
  #closed = null;
  #cleanup;

  /**
   * `worker`: `{ post(message), listen(onMessage, onError), terminate(),
   * busy(bool) }`; `open`: the open message, or a Promise of it (Node reads
   * a Blob first); `cleanup()` runs once the worker is gone.
   */
  constructor(worker, open, { onProgress } = {}, cleanup = () => {}) {
    super();
    this.#worker = worker;
    this.#cleanup = cleanup;
    /** Why the ELF image looks like another program's, if it does. */
    this.elfWarning = null;
    let settle;
    this.ready = new Promise((resolve, reject) => (settle = { resolve, reject }));
    // Unhandled only if nobody awaits `ready`: openTrace does.
    this.ready.catch(() => {});
    worker.busy(true);
    worker.listen(
      (msg) => {
        if (msg.type === 'progress') {
          onProgress?.(msg.progress);
          this.dispatchEvent(new TraceProgressEvent(msg.progress));
        } else if (msg.type === 'ready') {
          this.elfWarning = msg.warning;
          this.#idle();
          settle.resolve(this);
        } else if (msg.type === 'failed') {
          settle.reject(new Error(msg.message));
          this.close();
        } else {
          const call = this.#pending.get(msg.id);
          this.#pending.delete(msg.id);
          this.#idle();
          if ('error' in msg) call?.reject(new Error(msg.error));
          else call?.resolve(msg.result);
        }
      },
      (error) => {
        const e = new Error(`the trace worker failed: ${error?.message ?? error}`);
        settle.reject(e);
        for (const call of this.#pending.values()) call.reject(e);
        this.#pending.clear();
        this.close();
      },
    );
    Promise.resolve(open).then(
      (message) => worker.post(message),
      (error) => {
        settle.reject(error);
        this.close();
      },
    );
  }

  #idle() {
    if (this.#pending.size === 0) this.#worker.busy(false);
  }

  #call(method, ...args) {
    if (this.#closed) return Promise.reject(new Error('the trace is closed'));
    return new Promise((resolve, reject) => {
      const id = this.#nextId++;
      this.#pending.set(id, { resolve, reject });
      this.#worker.busy(true);
      this.#worker.post({ id, method, args });
    });
  }

  /** Lines `first .. first + count - 1` (1-based; at most 1000 at a time). */
  rows(first, count) {
    return this.#call('rows', first, count);
  }

  /** The core registers after the instruction holding `line`. */
  registersAt(line) {
    return this.#call('registersAt', line);
  }

  /** `length` bytes of memory from `address` after the instruction holding `line`. */
  async memoryAt(line, address, length) {
    return this.#call('memoryAt', line, BigInt(address), length);
  }

  /** `tarmac-lens calltree`: `{ text }`. */
  async calltree() {
    return { text: await this.#call('calltree') };
  }

  /** `tarmac-lens profile`: `{ text, functions }`. */
  profile() {
    return this.#call('profile');
  }

  /** `tarmac-lens search`: the matching lines, `[{ line, text }]`. */
  search(pattern, options = {}) {
    return this.#call('search', String(pattern), options);
  }

  /** Stops the worker; pending calls reject. Safe to call twice. */
  close() {
    this.#closed ??= (async () => {
      for (const call of this.#pending.values()) call.reject(new Error('the trace is closed'));
      this.#pending.clear();
      await this.#worker.terminate();
      this.#cleanup();
    })();
    return this.#closed;
  }
}

/** A file name for messages ("x.tarmac is an ELF executable..."). */
export function nameOf(input, fallback = 'the trace') {
  if (typeof input?.name === 'string' && input.name) return input.name;
  if (input instanceof URL || typeof input === 'string') {
    const path = input instanceof URL ? input.pathname : input;
    return decodeURIComponent(path.split(/[\\/]/).pop() || '') || fallback;
  }
  return fallback;
}

/** Bytes given as an ArrayBuffer or a view, as a Uint8Array. */
export function bytesOf(input) {
  if (input instanceof ArrayBuffer) return new Uint8Array(input);
  if (ArrayBuffer.isView(input)) return new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
  return null;
}
