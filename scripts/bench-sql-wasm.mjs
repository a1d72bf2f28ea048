// Runs queries on the SQL engine's wasm module (scripts/build-sql-wasm.sh)
// in Node's V8, as a page worker would, against the CLI's answers: the
// proof that the module works outside a native build, and its speed.
//   node scripts/bench-sql-wasm.mjs TRACE [ELF] ["QUERY" ...]
// The trace's index file (TRACE.index, from `tarmac-lens index TRACE`) is
// what the engine is given, as the page's session worker would give its own.
import fs from "node:fs";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const out = process.env.SQL_WASM_DIR || path.join(root, "target/sql-wasm");
const cli = process.env.TARMAC_LENS_CLI || path.join(root, "target/release/tarmac-lens");
const [trace, elf, ...asked] = process.argv.slice(2);
if (!trace) {
  console.error("usage: node scripts/bench-sql-wasm.mjs TRACE [ELF] [QUERY...]");
  process.exit(2);
}
const queries = asked.length
  ? asked
  : [
      "SELECT count(*) AS n FROM instructions WHERE mnemonic = 'BL'",
      "SELECT function, count(*) AS n FROM calls GROUP BY function ORDER BY n DESC, function LIMIT 5",
      "SELECT count(*) AS n FROM instructions WHERE line BETWEEN 100000 AND 1100000",
    ];

const { default: init, SqlEngine } = await import(path.join(out, "tarmac_lens_sql.js"));
await init({ module_or_path: fs.readFileSync(path.join(out, "tarmac_lens_sql_bg.wasm")) });
execFileSync(cli, ["index", trace], { stdio: "ignore" });
const fd = fs.openSync(trace, "r");
const len = fs.fstatSync(fd).size;
const read = (offset, length) => {
  const buf = new Uint8Array(length);
  const n = fs.readSync(fd, buf, 0, length, offset);
  return buf.subarray(0, n);
};
const index = fs.readFileSync(trace + ".index");
const image = elf ? new Uint8Array(fs.readFileSync(elf)) : undefined;
const engine = new SqlEngine(path.basename(trace), len, read, index, image);
let failed = 0;
for (const q of queries) {
  const t0 = performance.now();
  const rows = await engine.query(q);
  const ms = performance.now() - t0;
  // The page's cells (text, null for a null) against the CLI's CSV (an
  // empty cell for a null); the queries here give no quoted cells.
  const head = JSON.parse(engine.columns()).map(([name]) => name);
  const got = [head, ...JSON.parse(engine.rows(0, rows)).map((r) => r.map((c) => c ?? ""))];
  const args = ["sql", trace, q, "--format", "csv"];
  if (elf) args.push("--image", elf);
  const want = execFileSync(cli, args, { encoding: "utf8" }).trimEnd().split("\n").map((l) => l.split(","));
  const same = JSON.stringify(got) === JSON.stringify(want);
  if (!same) failed++;
  console.log(`${ms.toFixed(0)} ms  ${rows} rows  ${same ? "same as the CLI" : "DIFFERENT from the CLI"}  ${q}`);
}
try {
  await engine.query("SELECT nosuch FROM instructions");
} catch (e) {
  console.log(`error as expected: ${e}`);
}
process.exit(failed ? 1 : 0);
