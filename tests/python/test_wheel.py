"""The Python package (crates/python, the wheel scripts/build-python.sh
builds; scripts/test.sh installs it into .venv first) against the CLI:
registers, memory, rows and the instruction stream equal what `tarmac-lens
sql` reads from the same trace, the reports are the CLI's text byte for
byte, `sql()` gives `tarmac-lens sql`'s rows, the tables keep their Arrow
types through pandas and Polars, the index file is shared with the CLI
both ways, bad input raises a clear exception, and indexing stops on
Ctrl-C."""

import bisect
import collections
import gzip
import json
import os
import pathlib
import shutil
import signal
import subprocess
import sys

import pytest

from conftest import DATA, run, sql_json

try:
    import tarmac_lens
except ImportError:  # pragma: no cover - said, not skipped
    tarmac_lens = None

TRACEGEN = DATA / "tracegen"
A64 = "quicksort-aarch64-O2-fastmodel-2M"
A32 = "quicksort-arm-O2-fastmodel-2M"


@pytest.fixture(scope="session", autouse=True)
def wheel_installed():
    if tarmac_lens is None:
        pytest.fail("tarmac_lens is not installed: scripts/build-python.sh --dev, then pip install the wheel (scripts/test.sh does)")


def copy(tmp_path, name, ext="tarmac"):
    """A copy of a test trace (and its ELF) in a directory of the test's own,
    so index files are written there."""
    trace = tmp_path / f"{name}.{ext}"
    shutil.copy(TRACEGEN / f"{name}.{ext}", trace)
    elf = tmp_path / f"{name}.elf"
    shutil.copy(TRACEGEN / f"{name}.elf", elf)
    return trace, elf


@pytest.fixture(scope="module")
def a64(tmp_path_factory):
    trace, elf = copy(tmp_path_factory.mktemp("a64"), A64)
    return trace, elf, tarmac_lens.open(trace, image=elf)


def cli_rows(cli, trace, elf, query):
    return sql_json(cli, str(trace), query, "--image", str(elf), "-q")


def test_registers_and_memory_at_lines_are_the_clis(cli, a64):
    trace, elf, t = a64
    probes = [100, 1001, 5003, 20000, t.lines]
    for line in probes:
        # The node holding the line ends where the next instruction starts.
        [end] = cli_rows(
            cli, trace, elf,
            f"SELECT coalesce(min(line) - 1, {t.lines}) AS last FROM instructions WHERE line > {line}",
        )
        written = cli_rows(
            cli, trace, elf,
            "SELECT register, value_hex FROM registers r WHERE line <= "
            f"{end['last']} AND line = (SELECT max(line) FROM registers s "
            f"WHERE s.register = r.register AND s.line <= {end['last']})",
        )
        regs = t.registers_at(line)
        checked = 0
        for w in written:
            name = w["register"]
            if name in regs and "-" not in w["value_hex"]:
                assert regs[name] == w["value_hex"], f"{name} after line {line}"
                checked += 1
        assert line < 1000 or checked >= 10, f"after line {line}, {checked} registers compared"
    # Memory: the bytes of the last store to a word, known from its line on.
    stores = cli_rows(
        cli, trace, elf,
        "SELECT line, address, value_hex FROM memory WHERE access = 'write' AND size = 4 ORDER BY line LIMIT 5",
    )
    assert stores
    for s in stores:
        got = t.memory_at(s["line"], s["address"], 4)
        assert got["address"] == s["address"]
        assert got["bytes"] == bytes.fromhex(s["value_hex"])[::-1], s
        assert got["known"] == [True] * 4
    first = stores[0]
    before = cli_rows(
        cli, trace, elf,
        f"SELECT count(*) AS n FROM memory WHERE line < {first['line']} "
        f"AND address < {first['address'] + 4} AND address + size > {first['address']}",
    )[0]["n"]
    if before == 0:
        assert t.memory_at(first["line"] - 3, first["address"], 4)["known"] == [False] * 4


def test_rows_are_the_trace_lines_with_the_clis_times_pcs_and_functions(cli, a64):
    trace, elf, t = a64
    lines = trace.read_text().split("\n")
    for first in [1, 1000, t.lines - 10]:
        last = min(first + 1499, t.lines)
        rows = t.rows(first, last)
        assert [r["text"] for r in rows] == lines[first - 1:last]
        assert [r["line"] for r in rows] == list(range(first, last + 1))
        want = {
            r["line"]: r
            for r in cli_rows(
                cli, trace, elf,
                f"SELECT line, time, pc, function FROM instructions WHERE line BETWEEN {first} AND {last}",
            )
        }
        starts = [r for r in rows if r["line"] in want]
        assert starts
        for r in starts:
            w = want[r["line"]]
            assert (r["time"], r["pc"], r["first_of_node"]) == (w["time"], w["pc"], True)
            assert r["function"] == w["function"], r
    with pytest.raises(tarmac_lens.Error, match="no lines") as e:
        t.rows(t.lines + 5, t.lines + 6)
    with pytest.raises(tarmac_lens.Error, match=f"no line {t.lines + 5}") as e:
        t.registers_at(t.lines + 5)
    assert e.value.line == t.lines + 5


def test_streamed_instructions_carry_the_clis_register_and_memory_effects(cli, a64):
    trace, elf, t = a64
    first, last = 3000, 9000
    got = list(t.iter_instructions(first, last))
    want = cli_rows(cli, trace, elf, f"SELECT line, pc, opcode, mnemonic FROM instructions WHERE line BETWEEN {first} AND {last} ORDER BY line")
    # The stream starts at the node holding `first`.
    assert [(i["line"], i["pc"], i["encoding"]) for i in got if i["line"] >= first] == [
        (w["line"], w["pc"], w["opcode"]) for w in want
    ]
    assert all(i["disassembly"].upper().startswith(w["mnemonic"]) for i, w in zip(got[-len(want):], want))
    regs = cli_rows(cli, trace, elf, f"SELECT register, value_hex FROM registers WHERE line BETWEEN {got[0]['line']} AND {last} ORDER BY line")
    assert [(r["name"], r["value"]) for i in got for r in i["registers"]] == [(r["register"], r["value_hex"]) for r in regs]
    mem = cli_rows(cli, trace, elf, f"SELECT address, size, access, value_hex FROM memory WHERE line BETWEEN {got[0]['line']} AND {last} ORDER BY line")
    assert mem
    streamed = [(m["address"], m["size"], m["kind"], m["bytes"][::-1].hex()) for i in got for m in i["memory"]]
    assert streamed == [(m["address"], m["size"], m["access"][0], m["value_hex"]) for m in mem]


def test_reports_are_the_clis_text_byte_for_byte(cli, a64):
    trace, elf, t = a64
    profile = t.profile()
    assert profile.text == run(cli, "profile", trace, "--image", elf, "--no-index", "-q")
    assert str(profile) == profile.text
    assert len(profile.functions) == len(profile.text.strip().split("\n")) - 1
    main = next(f for f in profile.functions if f["name"] == "tg_main")
    assert main["calls"] == 1 and isinstance(main["address"], int)
    assert t.calltree() == run(cli, "calltree", trace, "--image", elf, "--no-index", "-q")
    # table('calls') holds every call the profile counts, but the root
    # activation (the function the trace starts in, which no call entered).
    calls = t.table("calls", columns=["target"])
    assert calls.num_rows == sum(f["calls"] for f in profile.functions) - 1
    per_target = collections.Counter(calls.column("target").to_pylist())
    missing = {f["address"]: f["calls"] - per_target[f["address"]] for f in profile.functions}
    assert sorted(missing.values())[-1] == 1 and sum(missing.values()) == 1


def test_coverage_is_the_clis(cli, a64, tmp_path):
    trace, elf, t = a64
    cov = t.coverage()
    lcov, doc = tmp_path / "cov.info", tmp_path / "cov.json"
    assert cov["text"] == run(cli, "coverage", trace, "--image", elf, "--lcov", lcov, "--json", doc)
    assert cov["lcov"] == lcov.read_text()
    assert cov["json"] == json.loads(doc.read_text())
    plain = tarmac_lens.open(trace, index=False)
    with pytest.raises(tarmac_lens.Error, match="image"):
        plain.coverage()


QUERIES = [
    "SELECT mnemonic, count(*) AS n FROM instructions GROUP BY mnemonic ORDER BY n DESC, mnemonic",
    "SELECT function, count(*) AS calls, sum(own_instructions) AS own FROM calls GROUP BY function ORDER BY own DESC, function",
    "SELECT address, size, access, value FROM memory WHERE line BETWEEN 2000 AND 2600 ORDER BY line, address",
    "SELECT el, function, count(*) AS n FROM instructions GROUP BY el, function ORDER BY n DESC, function",
]


@pytest.mark.parametrize("query", QUERIES)
def test_sql_gives_the_clis_rows(cli, a64, query):
    trace, elf, t = a64
    got = t.sql(query).to_pylist()
    assert got == cli_rows(cli, trace, elf, query)
    assert got


def test_tables_keep_their_types_in_pandas_and_polars(a64):
    import pandas
    import polars
    import pyarrow

    _, _, t = a64
    table = t.table("memory", columns=["line", "address", "size", "value"])
    assert isinstance(table, pyarrow.Table)
    assert table.schema.field("address").type == pyarrow.uint64()
    df = table.to_pandas()
    assert str(df["address"].dtype) == "uint64"
    assert str(df["line"].dtype) == "uint64"
    # A value column with nulls stays integer (a nullable UInt64) in pandas
    # when asked to, and never turns into floats in Polars.
    pl = polars.from_arrow(table)
    assert pl.schema["address"] == polars.UInt64
    assert pl.schema["value"] == polars.UInt64
    high = t.sql("SELECT max(pc) AS pc FROM instructions")
    assert high.to_pandas()["pc"].dtype == "uint64"
    assert polars.from_arrow(t.table("calls"))["target"].dtype == polars.UInt64
    # An address above 2^63 survives both.
    big = t.sql("SELECT arrow_cast(18446744073709551615, 'UInt64') AS a")
    assert int(big.to_pandas()["a"][0]) == 2**64 - 1
    assert polars.from_arrow(big)["a"][0] == 2**64 - 1
    # A result streams batch by batch.
    reader = t.sql_reader("SELECT line, pc FROM instructions")
    assert sum(b.num_rows for b in reader) == t.instructions


def test_find_watch_why_and_the_call_stack_agree_with_the_cli(cli, a64):
    trace, elf, t = a64
    for cond in ["x0 == 0 && x1 != 0", "pc == tg_main", "[sp:8] == 0"]:
        hits = t.find(cond, limit=None)
        out = json.loads(run(cli, "find", trace, cond, "--image", elf, "--all", "--json", "--no-index"))
        assert [(h["line"], h["time"], h["function"]) for h in hits] == [
            (h["line"], h["time"], h["function"]) for h in out["hits"]
        ]
        assert [{k: hex(v) for k, v in h["operands"].items()} for h in hits] == [h["operands"] for h in out["hits"]]
        assert hits and t.find(cond)[0] == hits[0]
    later = t.find("x0 == 1", after_line=6000, limit=3)
    out = json.loads(run(cli, "find", trace, "x0 == 1", "--from", 6000, "--max", 3, "--json", "--no-index"))
    assert [h["line"] for h in later] == [h["line"] for h in out["hits"]] and len(later) == 3
    with pytest.raises(tarmac_lens.ConditionError) as e:
        t.find("x0 == == 1")
    assert e.value.column > 0 and "column" in str(e.value)
    # A watch on x19's writes lists the nodes of the registers table's
    # x19 lines.
    writes = t.watch("x19", kind="w", first_line=1, last_line=30000)
    # Lines before the first instruction are node 0's, from line 1.
    starts = [1] + [r["line"] for r in cli_rows(cli, trace, elf, "SELECT line FROM instructions WHERE line <= 30000 ORDER BY line")]
    written = cli_rows(cli, trace, elf, "SELECT line FROM registers WHERE register = 'x19' AND line <= 30000 ORDER BY line")
    nodes = sorted({starts[bisect.bisect_right(starts, r["line"]) - 1] for r in written})
    assert nodes and [w["line"] for w in writes] == nodes
    # Why: the CLI's JSON tree.
    line = writes[-1]["line"]
    tree = t.why(line, "x19")
    doc = json.loads(run(cli, "why", trace, "--line", line, "x19", "--image", elf, "--json", "--no-index"))

    def steps(n):
        w = n.get("writer") or {}
        return [(n["what"], n["value"], w.get("line"))] + [s for i in n["inputs"] for s in steps(i)]

    assert steps(tree) == steps(doc)
    assert len(steps(tree)) > 1
    # The call stack at tg_main's first instruction ends in tg_main.
    [entry] = [f for f in t.table("calls").to_pylist() if f["function"] == "tg_main"]
    stack = t.call_stack_at(entry["entry_line"])
    assert stack[-1]["name"].startswith("tg_main")
    assert stack[-1]["entry_line"] == entry["entry_line"]


def test_the_index_file_is_shared_with_the_cli(cli, tmp_path):
    trace, elf = copy(tmp_path, A32)
    t = tarmac_lens.open(trace)
    assert not t.index_reused
    assert pathlib.Path(f"{trace}.index").exists()
    again = tarmac_lens.open(trace)
    assert again.index_reused
    assert again.registers_at(5000) == t.registers_at(5000)
    assert json.loads(run(cli, "index", trace))["reused"] is True
    # And the other way: an index the CLI wrote is reused here.
    os.remove(f"{trace}.index")
    assert json.loads(run(cli, "index", trace))["reused"] is False
    assert tarmac_lens.open(trace).index_reused
    assert not tarmac_lens.open(trace, force_index=True, index=False).index_reused


def test_a_gzip_trace_reads_as_the_plain_one(cli, tmp_path):
    trace, elf = copy(tmp_path, A32)
    packed = tmp_path / "packed.tarmac.gz"
    packed.write_bytes(gzip.compress(trace.read_bytes()))
    plain = tarmac_lens.open(trace, image=elf, index=False)
    t = tarmac_lens.open(packed, image=elf)
    assert t.size == plain.size and t.lines == plain.lines
    assert t.registers_at(7000) == plain.registers_at(7000)
    assert t.rows(100, 120) == plain.rows(100, 120)
    assert t.profile().text == plain.profile().text
    assert t.sql(QUERIES[0]).equals(plain.sql(QUERIES[0]))
    assert json.loads(run(cli, "index", packed))["reused"] is True
    assert tarmac_lens.open(packed).index_reused


def test_bad_input_raises_a_clear_exception(tmp_path):
    root = DATA.parent.parent
    with pytest.raises(FileNotFoundError, match="missing.tarmac"):
        tarmac_lens.open(tmp_path / "missing.tarmac")
    with pytest.raises(tarmac_lens.NotATraceError, match=r"README\.md: this is not a Tarmac trace: line \d+") as e:
        tarmac_lens.open(root / "README.md", index=False)
    assert isinstance(e.value.line, int) and e.value.reason in str(e.value)
    with pytest.raises(tarmac_lens.NotATraceError, match=r"\.elf is an ELF executable, not a Tarmac trace"):
        tarmac_lens.open(TRACEGEN / f"{A64}.elf", index=False)
    # An AArch32 program's image for an AArch64 trace.
    with pytest.raises(tarmac_lens.ImageError, match=f"{A32}.elf"):
        tarmac_lens.open(TRACEGEN / f"{A64}.tarmac", image=TRACEGEN / f"{A32}.elf", index=False)
    with pytest.raises(tarmac_lens.ImageError, match="README"):
        tarmac_lens.open(TRACEGEN / f"{A64}.tarmac", image=root / "README.md", index=False)
    t = tarmac_lens.open(TRACEGEN / f"{A64}.tarmac", index=False)
    with pytest.raises(tarmac_lens.QueryError, match="line 1, column") as e:
        t.sql("SELECT nope FROM instructions")
    assert e.value.position[0] == 1
    with pytest.raises(tarmac_lens.Error, match="no table 'instruction'"):
        t.table("instruction")
    with pytest.raises(tarmac_lens.ConditionError):
        t.find("[sp")


def big_trace(tmp_path, copies):
    """A trace of `copies` copies of a test trace (some hundreds of MB)."""
    one = (TRACEGEN / f"{A64}.tarmac").read_bytes()
    path = tmp_path / "big.tarmac"
    with open(path, "wb") as f:
        for _ in range(copies):
            f.write(one)
    return path


def test_a_progress_callback_that_raises_stops_indexing(tmp_path):
    path = big_trace(tmp_path, 60)
    seen = []

    class Stop(Exception):
        pass

    def progress(done, total):
        seen.append((done, total))
        raise Stop()

    # The first call comes before indexing starts, however fast it is.
    with pytest.raises(Stop):
        tarmac_lens.open(path, progress=progress)
    assert seen == [(0, path.stat().st_size)]
    assert not pathlib.Path(f"{path}.index").exists()
    # A callback that lets it finish hears the whole file last.
    seen.clear()
    t = tarmac_lens.open(TRACEGEN / f"{A32}.tarmac", progress=lambda d, n: seen.append((d, n)), index=False)
    assert seen[0] == (0, t.size) and seen[-1] == (t.size, t.size)


def test_ctrl_c_stops_indexing(tmp_path):
    path = big_trace(tmp_path, 60)
    # The child says when open has begun, before indexing starts, and
    # waits there for SIGINT: a state, however fast indexing would be.
    child = subprocess.Popen(
        [sys.executable, "-c", (
            "import time, tarmac_lens\n"
            "def progress(done, total):\n"
            "    if done == 0:\n"
            "        print('indexing', flush=True)\n"
            "        time.sleep(600)\n"
            f"tarmac_lens.open({str(path)!r}, progress=progress)\n"
            "print('finished', flush=True)\n"
        )],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    assert child.stdout.readline() == "indexing\n"
    child.send_signal(signal.SIGINT)
    out, err = child.communicate(timeout=600)
    assert "finished" not in out
    assert "KeyboardInterrupt" in err, err
    assert child.returncode != 0
    assert not pathlib.Path(f"{path}.index").exists()


def test_ctrl_c_stops_a_query():
    """A query of some 10^13 rows (three instruction tables crossed) runs
    for hours: SIGINT, sent once the child is about to query, must raise
    `KeyboardInterrupt` out of `sql()` instead of waiting for it."""
    trace = TRACEGEN / f"{A64}.tarmac"
    child = subprocess.Popen(
        [sys.executable, "-c", (
            "import tarmac_lens\n"
            f"t = tarmac_lens.open({str(trace)!r}, index=False)\n"
            # Inside the `try`: a SIGINT that comes before the query starts
            # is still caught (one did, between the print and the `try`).
            "try:\n"
            "    print('querying', flush=True)\n"
            "    t.sql('SELECT max(a.line + b.line + c.line) FROM instructions a, instructions b, instructions c')\n"
            "    print('finished', flush=True)\n"
            "except KeyboardInterrupt:\n"
            "    print('interrupted', flush=True)\n"
            # A second query on the same trace still works.
            "print(t.sql('SELECT count(*) AS n FROM instructions').column('n')[0].as_py(), flush=True)\n"
        )],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        assert child.stdout.readline() == "querying\n"
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=600)
    finally:
        child.kill()
    assert out.splitlines() == ["interrupted", str(tarmac_lens.open(trace, index=False).instructions)], (out, err)
    assert child.returncode == 0, err


def test_the_docs_example_runs_its_query_as_the_cli_does(cli, a64):
    """docs/python.md's notebook example without the plot: its query (read
    from the page) gives `tarmac-lens sql`'s rows, and its table counts
    every instruction once."""
    trace, elf, t = a64
    page = (DATA.parent.parent / "docs" / "python.md").read_text()
    example = page[page.index("## Example: instructions per function"):]
    query = example[example.index('t.sql("""') + 9: example.index('""")')]
    df = t.sql(query).to_pandas()
    assert df.to_dict("records") == cli_rows(cli, trace, elf, query)
    assert int(df["n"].sum()) == t.instructions
    top = df.groupby("function")["n"].sum().nlargest(10).index
    table = df[df["function"].isin(top)].pivot_table(index="function", columns="el", values="n", fill_value=0)
    assert len(table) == min(10, df["function"].nunique()) and (table.to_numpy() >= 0).all()


def test_the_stub_declares_what_the_module_has():
    """The wheel carries its type stub and py.typed, and the stub names
    every public function, class and method the module has."""
    import ast

    pkg = pathlib.Path(tarmac_lens.__file__).parent
    assert (pkg / "py.typed").exists()
    stub = ast.parse((pkg / "__init__.pyi").read_text())
    declared = {n.name: n for n in stub.body if isinstance(n, (ast.ClassDef, ast.FunctionDef))}
    for name in tarmac_lens.__all__:
        if not name.startswith("_"):
            assert name in declared, f"tarmac_lens.{name} is not in the stub"
    methods = {n.name for n in declared["Trace"].body if isinstance(n, ast.FunctionDef)}
    for name in dir(tarmac_lens.Trace):
        if not name.startswith("_"):
            assert name in methods, f"Trace.{name} is not in the stub"
            assert getattr(tarmac_lens.Trace, name).__doc__, f"Trace.{name} has no docstring"
