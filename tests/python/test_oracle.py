"""The SQL tables' counts against an independent reading of the trace text
(`oracle.py`) on the reference samples and generated traces: instructions
by mnemonic, register writes per register, memory writes per 4 KiB page,
and calls per function against the `profile` report (Tarmac Trace
Utilities' own output for the generated traces)."""

import shutil

import pytest

from conftest import DATA, run, sql_json
import oracle

TRACES = sorted((DATA / "ttu" / "samples").glob("*.tarmac")) + sorted(
    (DATA / "tracegen").glob("*.tarmac")
)


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    """Copies of the traces, so their index files stay out of the tree."""
    d = tmp_path_factory.mktemp("oracle")

    def copy(path):
        dest = d / path.name
        if not dest.exists():
            shutil.copy(path, dest)
        elf = path.with_suffix(".elf")
        if elf.exists() and not dest.with_suffix(".elf").exists():
            shutil.copy(elf, dest.with_suffix(".elf"))
        return dest

    return copy


@pytest.mark.parametrize("trace", TRACES, ids=lambda p: p.name)
def test_counts_equal_an_independent_reading(cli, scratch, trace):
    t = scratch(trace)
    mnemonics, registers, pages = oracle.count(t)
    got = {
        r["mnemonic"]: r["n"]
        for r in sql_json(cli, t, "SELECT mnemonic, count(*) AS n FROM instructions GROUP BY mnemonic")
    }
    assert got == dict(mnemonics)
    got = {
        r["register"]: r["n"]
        for r in sql_json(cli, t, "SELECT register, count(*) AS n FROM registers GROUP BY register")
    }
    assert got == dict(registers)
    got = {
        r["page"]: r["n"]
        for r in sql_json(
            cli,
            t,
            "SELECT address >> 12 AS page, count(*) AS n FROM memory "
            "WHERE access = 'write' GROUP BY 1",
        )
    }
    assert got == dict(pages)
    assert sum(mnemonics.values()) > 1000


@pytest.mark.parametrize(
    "trace",
    sorted((DATA / "tracegen").glob("*.profile.ref")),
    ids=lambda p: p.name,
)
def test_calls_per_function_equal_the_profile(cli, scratch, trace):
    t = scratch(trace.parent / (trace.name[: -len(".profile.ref")] + ".tarmac"))
    rows = sql_json(cli, t, "SELECT target, count(*) AS n FROM calls GROUP BY target")
    got = {r["target"]: r["n"] for r in rows}
    # Our own profile report, and the reference tool's, name the same calls
    # (the reference's root activation is no call).
    ours = oracle.profile_counts_text(run(cli, "profile", t, "--image", t.with_suffix(".elf")))
    reference = oracle.profile_counts(trace)
    for counts in (ours, reference):
        called = {a: n for a, n in counts.items() if a in got or n != 1}
        assert got == called
    assert len(got) > 3
