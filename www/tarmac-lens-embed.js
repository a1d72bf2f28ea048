// <tarmac-lens-viewer>: a Tarmac trace viewer in any page, from one script
// tag and one element, with no build step:
//
//   <script src="tarmac-lens-embed.js" defer></script>
//   <tarmac-lens-viewer src="trace.tarmac" elf="prog.elf" line="120"
//                       panes="regs,mem:sp" height="420"></tarmac-lens-viewer>
//
// Each element is an <iframe> of the viewer (index.html?embed=1, from the
// directory this script was loaded from, or the `viewer` attribute's URL)
// driven by the embed mode's postMessage protocol (src/web/page/embed.rs),
// so the element and a hand-written iframe host speak one protocol. The
// frame is made only when the element comes near the viewport.
//
// Attributes (all live): src, elf, line | time | pc | source (where to go),
// panes, height, sources (base URL of the source files), viewer, loading
// ("eager" makes the frame at once). Methods: goto(target) → Promise of
// the position, open(blobOrBuffer, {name, elf}) → Promise of the ready
// state, watch(target, options), find(condition, options), why(target,
// options) → Promise of the viewer's answer (docs/embedding.md). Events: "statechange", "position", "viewererror" (CustomEvents,
// the viewer's message in `detail`). docs/embedding.md has the recipes.
(() => {
  'use strict';
  if (customElements.get('tarmac-lens-viewer')) return;

  const SCRIPT_URL = document.currentScript?.src || location.href;
  const PING_EVERY_MS = 100;
  // A viewer that never answers is misconfigured (a wrong `viewer` URL, or
  // an origin it does not allow): said once, not pinged forever.
  const GIVE_UP_MS = 30_000;
  const GOTO_KEYS = ['line', 'time', 'pc', 'source'];

  /** `420` → `420px`; any other CSS length as written. */
  const cssLength = (value) => (/^\d+(\.\d+)?$/.test(value.trim()) ? `${value.trim()}px` : value.trim());

  class TarmacLensViewer extends HTMLElement {
    static get observedAttributes() {
      return ['src', 'elf', 'panes', 'height', 'sources', 'viewer', 'loading', ...GOTO_KEYS];
    }

    constructor() {
      super();
      this._shadow = this.attachShadow({ mode: 'open' });
      // Styles are set through the CSSOM: a host page's CSP that forbids
      // inline <style> does not forbid these.
      this._placeholder = document.createElement('div');
      Object.assign(this._placeholder.style, {
        display: 'flex',
        alignItems: 'center',
        justifyContent: 'center',
        height: '100%',
        font: '0.9rem system-ui, sans-serif',
        color: '#64748b',
      });
      this._placeholder.setAttribute('part', 'placeholder');
      this._shadow.append(this._placeholder);
      this._frame = null;
      this._connected = false;
      this._state = 'unloaded';
      this._position = null;
      this._ignored = 0;
      this._trace = null; // what the viewer was asked to open: {blob, name, elf} or null for `src`
      this._waiters = [];
      // Questions asked (watch, find, why) by id, and those waiting for the trace.
      this._asked = 0;
      this._questions = new Map();
      this._afterReady = [];
      this._onMessage = (e) => this._message(e);
    }

    /** The viewer's state: "unloaded" (no frame yet), "connecting", then the viewer's own ("idle", "indexing", "ready", "error"). */
    get state() {
      return this._state;
    }

    /** The last position the viewer reported (`{line, time, pc, …}`), or null. */
    get position() {
      return this._position;
    }

    /** How many messages the viewer said it ignored (from other windows or origins). */
    get ignoredMessages() {
      return this._ignored;
    }

    connectedCallback() {
      this._connected = true;
      if (!this.style.display) this.style.display = 'block';
      this._applyHeight();
      if (this._state === 'unloaded') this.dataset.state = 'unloaded';
      this._placeholder.textContent = this.getAttribute('src') ? `Tarmac trace: ${this.getAttribute('src')}` : 'Tarmac trace';
      window.addEventListener('message', this._onMessage);
      if (this.getAttribute('loading') === 'eager' || !('IntersectionObserver' in window)) {
        this._load();
      } else {
        this._observer = new IntersectionObserver(
          (entries) => {
            if (entries.some((e) => e.isIntersecting)) this._load();
          },
          { rootMargin: '300px 0px' },
        );
        this._observer.observe(this);
      }
    }

    disconnectedCallback() {
      this._connected = false;
      window.removeEventListener('message', this._onMessage);
      this._observer?.disconnect();
      this._observer = null;
      this._unload();
    }

    attributeChangedCallback(name, before, after) {
      if (before === after || !this._connected) return;
      if (name === 'height') return this._applyHeight();
      if (name === 'loading' && after === 'eager') return this._load();
      if (['panes', 'sources', 'viewer'].includes(name)) {
        // These are the frame's URL: a new frame, opening the same trace.
        if (this._frame) {
          this._unload();
          this._load();
        }
        return;
      }
      if (name === 'src' || name === 'elf') {
        this._trace = null;
        if (this._handshaken) this._openCurrent();
        return;
      }
      // A frame still opening its trace starts where the attribute says now.
      if (GOTO_KEYS.includes(name) && after !== null && this._frame) {
        this.goto({ [name]: name === 'line' || name === 'time' ? Number(after) : after }).catch(() => {});
      }
    }

    /**
     * Moves the viewer: a line number, or `{line}`, `{time}`, `{pc}` (a
     * number or an expression such as "main+4") or `{source: "file.c:42"}`.
     * Resolves to the position reached; rejects with the viewer's reason.
     */
    goto(target) {
      const message = typeof target === 'number' ? { line: target } : { ...target };
      this._load();
      return new Promise((resolve, reject) => {
        this._waiters.push({ kind: 'position', resolve, reject });
        // Before the trace is ready, the latest goto is where it starts.
        if (this._handshaken && this._state === 'ready') this._post({ type: 'goto', ...message });
        else this._startAt = message;
      });
    }

    /**
     * Opens a trace the page already has (a Blob, File or ArrayBuffer) in
     * place of `src`; `options.elf` likewise. Resolves when it is indexed.
     */
    open(trace, options = {}) {
      this._trace = { blob: trace, name: options.name ?? trace?.name ?? 'trace.tarmac', elf: options.elf ?? null };
      this._load();
      const done = new Promise((resolve, reject) => this._waiters.push({ kind: 'ready', resolve, reject }));
      if (this._handshaken) this._openCurrent();
      return done;
    }

    /**
     * The accesses of a register or memory range (`"x5"`, `"[sp:0x40]"`,
     * `"buf:64"`): options `access` ("read", "write", "any"), `direction`
     * ("next", "previous" from the position or `line`; "all" from `line`,
     * or the start, to `to`), `max`. Resolves to `{target, hits, more,
     * complete}`.
     */
    watch(target, options = {}) {
      return this._ask({ ...options, type: 'watch', target });
    }

    /**
     * Where a condition (`"x0 == 0 && pc == main+0x20"`) next or
     * previously becomes true: options `direction`, `line`. Resolves to
     * `{hit}` (null when none).
     */
    find(condition, options = {}) {
      return this._ask({ ...options, type: 'find', condition });
    }

    /**
     * Where a register's or memory's value came from, at the position or
     * `line`: options `line`, `depth`. Resolves to `{tree}`.
     */
    why(target, options = {}) {
      return this._ask({ ...options, type: 'why', target });
    }

    _ask(message) {
      this._load();
      const id = ++this._asked;
      return new Promise((resolve, reject) => {
        this._questions.set(id, { resolve, reject });
        const post = () => this._post({ ...message, id });
        if (this._handshaken && this._state === 'ready') post();
        else this._afterReady.push(post);
      });
    }

    _applyHeight() {
      this.style.height = cssLength(this.getAttribute('height') ?? '420');
    }

    _viewerUrl() {
      const url = new URL(this.getAttribute('viewer') || 'index.html', SCRIPT_URL);
      url.searchParams.set('embed', '1');
      const panes = this.getAttribute('panes');
      if (panes) url.searchParams.set('panes', panes);
      const sources = this.getAttribute('sources');
      if (sources) url.searchParams.set('src', new URL(sources, location.href).href);
      // The viewer answers only origins it is told it may (its own, and this list).
      if (url.origin !== location.origin) url.searchParams.set('origins', location.origin);
      return url;
    }

    _load() {
      if (this._frame || !this._connected) return;
      this._observer?.disconnect();
      this._observer = null;
      this._url = this._viewerUrl();
      const frame = document.createElement('iframe');
      frame.title = `Tarmac Lens viewer: ${this.getAttribute('src') ?? 'trace'}`;
      frame.src = this._url.href;
      Object.assign(frame.style, { width: '100%', height: '100%', border: '1px solid #94a3b8', borderRadius: '0.4rem', boxSizing: 'border-box' });
      frame.setAttribute('part', 'frame');
      this._placeholder.remove();
      this._shadow.append(frame);
      this._frame = frame;
      this._handshaken = false;
      this._setState('connecting');
      // The viewer's wasm may still be loading after the frame's load
      // event: ask until it answers.
      const started = Date.now();
      this._pinger = setInterval(() => {
        if (Date.now() - started > GIVE_UP_MS) {
          clearInterval(this._pinger);
          this._fail(`the viewer at ${this._url.origin}${this._url.pathname} did not answer in ${GIVE_UP_MS / 1000} s: is it Tarmac Lens, and does it allow this page's origin?`);
          return;
        }
        this._post('PING');
      }, PING_EVERY_MS);
    }

    _unload() {
      clearInterval(this._pinger);
      this._frame?.remove();
      this._frame = null;
      this._handshaken = false;
      if (!this._placeholder.isConnected) this._shadow.append(this._placeholder);
      this._setState('unloaded');
    }

    _post(message, transfer) {
      // An opaque viewer origin (a file:// viewer) cannot be named.
      const target = this._url.origin === 'null' ? '*' : this._url.origin;
      this._frame?.contentWindow?.postMessage(message, target, transfer);
    }

    _message(e) {
      if (!this._frame || e.source !== this._frame.contentWindow) return;
      if (e.origin !== this._url.origin && !(this._url.origin === 'null' && e.origin === 'null')) return;
      const data = e.data;
      if (data === 'PONG') {
        if (!this._handshaken) {
          this._handshaken = true;
          clearInterval(this._pinger);
          this._openCurrent();
        }
        return;
      }
      switch (data?.type) {
        case 'state':
          this._setState(data.state, data);
          if (data.state === 'ready') {
            this._settle('ready', data);
            for (const post of this._afterReady.splice(0)) post();
            this._start();
          } else if (data.state === 'error') {
            this._settle('ready', null, data.message);
          }
          break;
        case 'position':
          this._position = data;
          this.dispatchEvent(new CustomEvent('position', { detail: data }));
          this._settle('position', data);
          break;
        case 'answer': {
          const q = this._questions.get(data.id);
          this._questions.delete(data.id);
          q?.resolve(data.result);
          break;
        }
        case 'error': {
          // An error about one question rejects it alone.
          const q = data.id !== undefined && this._questions.get(data.id);
          if (q) {
            this._questions.delete(data.id);
            q.reject(new Error(data.message));
          } else this._fail(data.message);
          break;
        }
        case 'ignored':
          this._ignored = data.count;
          break;
      }
    }

    /** Where a trace about to be opened starts: the latest goto() asked
     * before, else the attributes (taken once). */
    _takeStart() {
      const key = GOTO_KEYS.find((k) => this.hasAttribute(k));
      const fromAttribute = key && { [key]: key === 'line' || key === 'time' ? Number(this.getAttribute(key)) : this.getAttribute(key) };
      const target = this._startAt ?? fromAttribute;
      this._startAt = null;
      return target || {};
    }

    /** Once per opened trace: a goto() asked after the trace was sent
     * (where it starts went with it, so the panes are read there). */
    _start() {
      if (!this._starting) return;
      this._starting = false;
      const target = this._startAt;
      this._startAt = null;
      if (target) this._post({ type: 'goto', ...target });
    }

    /** Settles every waiter of a kind (all, when `kind` is null). */
    _settle(kind, value, error) {
      if (kind === null) {
        for (const q of this._questions.values()) q.reject(new Error(error ?? 'the viewer stopped'));
        this._questions.clear();
        this._afterReady = [];
      }
      const settled = this._waiters.filter((w) => kind === null || w.kind === kind);
      this._waiters = this._waiters.filter((w) => !settled.includes(w));
      for (const w of settled) {
        if (error) w.reject(new Error(error));
        else w.resolve(value);
      }
    }

    _fail(message) {
      this.dispatchEvent(new CustomEvent('viewererror', { detail: { message } }));
      this._settle(null, null, message);
    }

    _setState(state, detail = {}) {
      this._state = state;
      this.dataset.state = state;
      this.dispatchEvent(new CustomEvent('statechange', { detail: { ...detail, state } }));
    }

    /** Sends the trace: `open()`'s, else `src` (and `elf`). */
    async _openCurrent() {
      this._starting = true;
      try {
        if (this._trace) {
          const { blob, name, elf } = this._trace;
          this._post({ type: 'open', trace: blob, name, elf: elf ?? undefined, ...this._takeStart() });
          return;
        }
        const src = this.getAttribute('src');
        if (!src) return;
        const name = decodeURIComponent(new URL(src, location.href).pathname.split('/').pop() || 'trace');
        const elf = this.getAttribute('elf');
        const [trace, image] = [await this._payload(src), elf ? await this._payload(elf) : undefined];
        this._post({ type: 'open', trace, name, elf: image, ...this._takeStart() });
      } catch (error) {
        this._fail(`cannot open ${this.getAttribute('src')}: ${error.message}`);
      }
    }

    /**
     * A file for the viewer: its URL when the viewer is on the same origin
     * (read by byte ranges, never whole), else its bytes, fetched here: a
     * viewer on another origin may not fetch for its host (see
     * model::host_origins), and its CSP would not let it.
     */
    async _payload(relative) {
      const url = new URL(relative, location.href);
      if (url.origin === this._url.origin && url.origin !== 'null') return url.href;
      const response = await fetch(url);
      if (!response.ok) throw new Error(`${url.href}: HTTP ${response.status}`);
      return await response.blob();
    }
  }

  customElements.define('tarmac-lens-viewer', TarmacLensViewer);
})();
