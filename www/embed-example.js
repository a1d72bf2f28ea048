// Drives the two embedded viewers of embed-example.html. An external file:
// the page's Content-Security-Policy allows no inline script.
'use strict';

/** Everything the viewers said, per viewer ("a", "b"), for the curious (and the tests). */
window.tarmacLensHost = { messages: { a: [], b: [] } };

for (const section of document.querySelectorAll('[data-viewer]')) {
  const id = section.dataset.viewer;
  const frame = section.querySelector('iframe');
  const stateEl = section.querySelector('[data-testid=state]');
  const positionEl = section.querySelector('[data-testid=position]');
  const log = window.tarmacLensHost.messages[id];
  let ready = false;
  let pinger = null;

  const post = (msg) => frame.contentWindow.postMessage(msg, location.origin === 'null' ? '*' : location.origin);

  window.addEventListener('message', (e) => {
    if (e.source !== frame.contentWindow) return;
    log.push(e.data);
    if (e.data === 'PONG') {
      if (!ready) {
        ready = true;
        clearInterval(pinger);
        stateEl.textContent = 'connected';
        section.dataset.connected = 'true';
        open();
      }
      return;
    }
    if (e.data?.type === 'state') {
      stateEl.textContent = e.data.state + (e.data.message ? `: ${e.data.message}` : '');
      section.dataset.state = e.data.state;
    } else if (e.data?.type === 'position') {
      // `asked`: the goto's line, when the viewer shows another (a line is
      // part of its instruction; lines before the first one, the start).
      const asked = e.data.asked === undefined ? '' : ` (asked for line ${e.data.asked})`;
      positionEl.textContent = `line ${e.data.line}${asked} · time ${e.data.time} · pc ${e.data.pc ?? '—'}`;
      section.dataset.line = e.data.line;
    } else if (e.data?.type === 'error') {
      stateEl.textContent = `error: ${e.data.message}`;
    }
  });

  // The viewer's wasm may still be loading after the frame's load event:
  // ask until it answers (the Perfetto UI's handshake).
  const ping = () => {
    if (!pinger) pinger = setInterval(() => post('PING'), 100);
  };
  frame.addEventListener('load', ping);
  ping();

  async function open() {
    const url = frame.dataset.trace;
    const name = url.split('/').pop();
    if (frame.dataset.send === 'buffer') {
      const response = await fetch(url);
      const buffer = await response.arrayBuffer();
      // Transferred, not copied.
      frame.contentWindow.postMessage({ type: 'open', trace: buffer, name }, location.origin === 'null' ? '*' : location.origin, [buffer]);
    } else {
      post({ type: 'open', trace: new URL(url, location.href).href, name });
    }
  }

  section.querySelector('[data-action=open]').addEventListener('click', open);
  section.querySelector('[data-action=goto]').addEventListener('click', () => {
    post({ type: 'goto', line: Number(section.querySelector('[data-input=line]').value) });
  });
}
