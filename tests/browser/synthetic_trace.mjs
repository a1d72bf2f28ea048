// A trace of any size that exists nowhere: copies of the checked-in 2 MB
// quicksort trace, each copy's times and instruction ticks carrying on from
// the last, byte for byte what `repeatedTrace` (tracegen.mjs) writes to
// disk (`SyntheticTrace.likeRepeatedTrace`), made on demand for the byte ranges asked. So the page can be given
// a 100 GB trace by `?url=` on a machine without 100 GB of disk.
//
// Copy k is the base text with every time and tick v written as v + k·P
// (P one past the base's last time). Its length differs from the base's
// only by the digits those numbers gain, counted without making it: with
// the base's numbers sorted, how many reach each power of ten is a binary
// search, so the offsets of 50,000 copies take milliseconds.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const PIECE = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  '../data/tracegen/quicksort-aarch64-O2-fastmodel-2M.tarmac',
);
// The numbers repeatedTrace shifts: a line's time, and an instruction's tick.
const SHIFTED = /^(\d+)( clk IT \()?(\d+)?/gm;

/** How many of the sorted `values` are at least `x`. */
function atLeast(values, x) {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (values[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return values.length - lo;
}

export class SyntheticTrace {
  /** `bytes` bytes or a little more (whole copies), or `copies` copies. */
  constructor({ bytes = 0, copies = 0 }) {
    const piece = fs.readFileSync(PIECE, 'latin1');
    // The base as text between numbers: texts[0] n0 texts[1] n1 ...
    this.texts = [];
    this.numbers = [];
    let at = 0;
    for (const m of piece.matchAll(SHIFTED)) {
      this.texts.push(piece.slice(at, m.index));
      this.numbers.push(Number(m[1]));
      if (m[2]) {
        this.texts.push(m[2]);
        this.numbers.push(Number(m[3]));
      }
      at = m.index + m[0].length;
    }
    this.texts.push(piece.slice(at));
    this.texts = this.texts.map((text) => Buffer.from(text, 'latin1'));
    const last = piece.trimEnd().split('\n').at(-1);
    this.period = Number(last.slice(0, last.indexOf(' '))) + 1;
    this.pieceLength = piece.length;
    const sorted = Float64Array.from(this.numbers).sort();
    const digits = (k) => {
      let n = 0;
      for (let p = 10; p <= 1e17; p *= 10) n += atLeast(sorted, p - k * this.period);
      return n;
    };
    const base = digits(0);
    // offsets[k]: where copy k starts; the last: the length.
    const offsets = [0];
    while (copies ? offsets.length <= copies : offsets.at(-1) < bytes || offsets.length < 2) {
      const k = offsets.length - 1;
      offsets.push(offsets[k] + piece.length + digits(k) - base);
    }
    this.offsets = Float64Array.from(offsets);
    this.cache = new Map();
  }

  /** The bytes `repeatedTrace(mb)` writes. */
  static likeRepeatedTrace(mb) {
    const piece = fs.statSync(PIECE).size;
    return new SyntheticTrace({ copies: Math.ceil((mb * 1024 * 1024) / piece) });
  }

  get length() {
    return this.offsets[this.offsets.length - 1];
  }

  /** Copy k's bytes (the last few are kept: ranges come in order). Written
   * into one buffer number by number: joining strings made half the speed. */
  copy(k) {
    let bytes = this.cache.get(k);
    if (bytes) return bytes;
    const shift = k * this.period;
    bytes = Buffer.allocUnsafe(this.offsets[k + 1] - this.offsets[k]);
    let at = 0;
    for (let i = 0; i < this.numbers.length; i++) {
      at += this.texts[i].copy(bytes, at);
      let v = this.numbers[i] + shift;
      let end = at;
      do {
        end += 1;
        v = Math.floor(v / 10);
      } while (v > 0);
      v = this.numbers[i] + shift;
      for (let j = end - 1; j >= at; j--) {
        bytes[j] = 48 + (v % 10);
        v = Math.floor(v / 10);
      }
      at = end;
    }
    at += this.texts[this.texts.length - 1].copy(bytes, at);
    if (at !== bytes.length) throw new Error(`copy ${k} is ${at} bytes, not the ${bytes.length} counted`);
    if (this.cache.size >= 4) this.cache.delete(this.cache.keys().next().value);
    this.cache.set(k, bytes);
    return bytes;
  }

  /** Bytes [start, end) (cut at the length). */
  read(start, end) {
    end = Math.min(end, this.length);
    const out = [];
    // The copy holding `start`: the last offset at or before it.
    let lo = 0;
    let hi = this.offsets.length - 2;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.offsets[mid] <= start) lo = mid;
      else hi = mid - 1;
    }
    for (let k = lo, at = start; at < end; k++) {
      const from = at - this.offsets[k];
      const to = Math.min(end, this.offsets[k + 1]) - this.offsets[k];
      out.push(this.copy(k).subarray(from, to));
      at = this.offsets[k] + to;
    }
    return out.length === 1 ? out[0] : Buffer.concat(out);
  }
}

/**
 * A handler for `serveDist`'s `extra` that serves `trace` at `urlPath` by
 * byte ranges (a request without one gets 416: the page must ask for
 * ranges, never for 100 GB whole). `stats` counts what was sent.
 */
export function syntheticHandler(trace, urlPath = '/synthetic.tarmac') {
  const stats = { bytes: 0, requests: 0 };
  const handler = (req, res) => {
    if (new URL(req.url, 'http://x').pathname !== urlPath) return false;
    const length = trace.length;
    if (req.method === 'HEAD') {
      res.writeHead(200, { 'accept-ranges': 'bytes', 'content-length': length, 'content-type': 'text/plain' }).end();
      return true;
    }
    const m = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
    if (!m || Number(m[1]) >= length) {
      res.writeHead(416, { 'content-range': `bytes */${length}` }).end();
      return true;
    }
    const start = Number(m[1]);
    const end = Math.min(length - 1, m[2] ? Number(m[2]) : length - 1);
    const body = trace.read(start, end + 1);
    stats.bytes += body.length;
    stats.requests += 1;
    res.writeHead(206, {
      'accept-ranges': 'bytes',
      'content-range': `bytes ${start}-${end}/${length}`,
      'content-length': body.length,
      'content-type': 'text/plain',
    });
    res.end(body);
    return true;
  };
  return { handler, stats };
}
