// What Chromium's processes and threads spend, read from /proc (the
// browser's memory and CPU APIs need cross-origin isolation, and do not see
// the browser process that reads a dropped file): for the benchmarks.

import fs from 'node:fs';

/** Processes descended from this one (the browser and its children). */
export function descendants() {
  const procs = [];
  for (const pid of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      procs.push({ pid: Number(pid), ppid });
    } catch {
      // The process ended meanwhile.
    }
  }
  const mine = new Set([process.pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const p of procs) {
      if (!mine.has(p.pid) && mine.has(p.ppid)) {
        mine.add(p.pid);
        grew = true;
      }
    }
  }
  mine.delete(process.pid);
  return [...mine];
}

/** CPU seconds (user + system) of a process. */
export function processCpu(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return 0;
  }
}

/** Renderer processes descended from this one (or among `pids`), with
 * their resident bytes. */
export function renderers(pids = descendants()) {
  const out = [];
  for (const pid of pids) {
    try {
      if (!fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('--type=renderer')) continue;
      const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
      const kb = (key) => Number(status.match(new RegExp(`${key}:\\s+(\\d+)`))?.[1] ?? 0) * 1024;
      out.push({ pid, rss: kb('VmRSS'), hwm: kb('VmHWM'), cpu: processCpu(pid) });
    } catch {
      // Gone.
    }
  }
  return out;
}

/** CPU seconds of every thread of every Chromium process, by
 * `pid/tid`, with a name: the process type (`--type=`, `browser` for the
 * first) and the thread's name. Sampled often during a drop, so a sampler
 * can pass the processes and a cache of the names it has read: each
 * sampling then reads one file per thread (1.8 ms of the benchmark's CPU
 * here instead of 4.5 ms, every 100 ms of a drop on a 2-core machine). */
export function chromiumThreads(pids = descendants(), names = new Map()) {
  const out = new Map();
  for (const pid of pids) {
    let tids = [];
    try {
      if (!names.has(pid)) {
        names.set(pid, fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').match(/--type=([\w-]+)/)?.[1] ?? 'browser');
      }
      tids = fs.readdirSync(`/proc/${pid}/task`);
    } catch {
      continue;
    }
    const type = names.get(pid);
    for (const tid of tids) {
      const key = `${pid}/${tid}`;
      try {
        if (!names.has(key)) names.set(key, fs.readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim());
        const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
        const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        out.set(key, { name: `${type}:${names.get(key)}`, cpu: (Number(f[11]) + Number(f[12])) / 100 });
      } catch {
        // Gone.
      }
    }
  }
  return out;
}

/** CPU seconds of each worker thread of the renderers, by thread id. */
export function workerThreads(all = chromiumThreads()) {
  const out = new Map();
  for (const [t, { name, cpu }] of all) if (name.startsWith('renderer:DedicatedWorker')) out.set(t, cpu);
  return out;
}

/** Where Chromium's CPU went between two samplings of every thread (threads
 * that ended meanwhile as last seen): seconds by process type and thread
 * name, the largest first. */
export function cpuByThreadName(before, last) {
  const sums = new Map();
  for (const [t, { name, cpu }] of last) {
    const d = cpu - (before.get(t)?.cpu ?? 0);
    if (d > 0) sums.set(name, (sums.get(name) ?? 0) + d);
  }
  return Object.fromEntries(
    [...sums]
      .filter(([, c]) => c >= 0.02)
      .sort((a, b) => b[1] - a[1])
      .map(([n, c]) => [n, Math.round(c * 100) / 100]),
  );
}

/** A process's mappings by resident size, largest first (MB): the
 * `count` largest, each with its reserved size and name (`[anon]` for
 * anonymous memory: a wasm memory is one anonymous mapping of many GB
 * reserved, a V8 heap cage one of 4 GB), and the rest summed. */
export function mappings(pid, count = 12) {
  const all = [];
  let text;
  try {
    text = fs.readFileSync(`/proc/${pid}/smaps`, 'utf8');
  } catch {
    return null;
  }
  let cur = null;
  for (const line of text.split('\n')) {
    const head = line.match(/^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/);
    if (head) {
      cur = { name: head[1] || '[anon]', size: 0, rss: 0 };
      all.push(cur);
      continue;
    }
    const kv = line.match(/^(Size|Rss):\s+(\d+) kB/);
    if (kv && cur) cur[kv[1] === 'Size' ? 'size' : 'rss'] = Number(kv[2]) / 1024;
  }
  all.sort((a, b) => b.rss - a.rss);
  const mb = (x) => Math.round(x * 10) / 10;
  const top = all.slice(0, count).map((m) => ({ rss_mb: mb(m.rss), size_mb: Math.round(m.size), name: m.name }));
  const rest = all.slice(count).reduce((s, m) => s + m.rss, 0);
  return { top, rest_rss_mb: mb(rest), total_rss_mb: mb(all.reduce((s, m) => s + m.rss, 0)) };
}
