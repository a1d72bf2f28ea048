"""The farm recipe of docs/farm.md, run: 50 traces of five programs (three
AArch64 exception levels, A32 and T32), each exported to Parquet by its own
process, then three questions answered alike by `tarmac-lens sql --farm`
over the traces, by DuckDB over the Parquet, and by Apache Spark (local
mode) over the Parquet."""

import decimal
import gzip
import os
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor

import pytest

from conftest import DATA, sql_json

FARM = DATA / "farm"
TABLES = ["instructions", "calls", "functions"]

# The same text in the three engines.
QUERIES = {
    "top functions by own instructions": """
        SELECT function, sum(own_instructions) AS own
        FROM calls WHERE function IS NOT NULL
        GROUP BY function ORDER BY own DESC, function LIMIT 12""",
    "runs in which partition never ran": """
        SELECT run FROM instructions
        EXCEPT
        SELECT run FROM instructions WHERE function = 'partition'
        ORDER BY run""",
    "instructions per run and exception level": """
        SELECT run, el, count(*) AS instructions
        FROM instructions GROUP BY run, el ORDER BY run, el""",
}


@pytest.fixture(scope="module")
def farm(tmp_path_factory, cli):
    """The traces laid out as a test farm leaves them (each with its ELF
    beside it), and their Parquet, one `export` process per trace."""
    root = tmp_path_factory.mktemp("farm")
    traces = root / "traces"
    traces.mkdir()
    names = []
    for gz in sorted(FARM.glob("*.tarmac.gz")):
        name = gz.name[: -len(".tarmac.gz")]
        with gzip.open(gz, "rb") as src, open(traces / f"{name}.tarmac", "wb") as dst:
            shutil.copyfileobj(src, dst)
        program, arch = name.split("-")[:2]
        shutil.copy(FARM / "elf" / f"{program}-{arch}-O2.elf", traces / f"{name}.elf")
        names.append(name)
    assert len(names) == 50
    parquet = root / "parquet"

    def export(name):
        t = traces / f"{name}.tarmac"
        return subprocess.run(
            [cli, "export", "--format", "parquet", "-o", str(parquet), str(t),
             "--image", str(t.with_suffix(".elf")), "--jobs", "1", "--quiet"],
            capture_output=True,
            text=True,
        )

    with ThreadPoolExecutor(max_workers=2) as pool:
        for name, out in zip(names, pool.map(export, names)):
            assert out.returncode == 0, f"{name}: {out.stderr}"
    return traces, parquet, names


def normal(rows):
    """Rows as tuples of plain ints and strings (Spark reads UInt64 as
    decimals)."""
    def value(v):
        if isinstance(v, decimal.Decimal):
            return int(v)
        return v

    return [tuple(value(v) for v in r) for r in rows]


@pytest.fixture(scope="module")
def answers_cli(farm, cli):
    traces, _, _ = farm
    return {
        q: normal(tuple(r.values()) for r in sql_json(cli, "--farm", traces, "--jobs", "2", sql))
        for q, sql in QUERIES.items()
    }


def test_the_questions_have_answers_worth_checking(answers_cli, farm):
    _, _, names = farm
    top = answers_cli["top functions by own instructions"]
    assert len(top) == 12 and top[0][1] > top[-1][1] > 0
    never = [r[0] for r in answers_cli["runs in which partition never ran"]]
    others = [n for n in names if not n.startswith("quicksort")]
    # Only quicksort has a `partition`, and some of its runs reach it.
    assert set(others) <= set(never) and len(never) < len(names)
    levels = answers_cli["instructions per run and exception level"]
    assert {r[1] for r in levels} == {1, 2, 3}
    assert {r[0] for r in levels} == set(names)


def test_duckdb_over_the_parquet_gives_the_same_answers(farm, answers_cli):
    import duckdb

    _, parquet, _ = farm
    db = duckdb.connect()
    for t in TABLES:
        db.execute(
            f"CREATE VIEW {t} AS SELECT * FROM read_parquet('{parquet}/{t}/*/*.parquet', "
            "hive_partitioning = true, hive_types = {'run': VARCHAR})"
        )
    for q, sql in QUERIES.items():
        assert normal(db.execute(sql).fetchall()) == answers_cli[q], q


def test_spark_over_the_parquet_gives_the_same_answers(farm, answers_cli):
    from pyspark.sql import SparkSession

    _, parquet, _ = farm
    spark = (
        SparkSession.builder.master("local[2]")
        .appName("tarmac-lens-farm")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "4")
        # `run` names stay text, even where one looks like a number.
        .config("spark.sql.sources.partitionColumnTypeInference.enabled", "false")
        .getOrCreate()
    )
    try:
        for t in TABLES:
            spark.read.parquet(f"{parquet}/{t}").createOrReplaceTempView(t)
        for q, sql in QUERIES.items():
            rows = [tuple(r) for r in spark.sql(sql).collect()]
            assert normal(rows) == answers_cli[q], q
    finally:
        spark.stop()
