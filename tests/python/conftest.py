"""What the Python tests share: the CLI under test and the test data."""

import json
import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"


def cli_path():
    return os.environ.get("TARMAC_LENS_CLI", str(ROOT / "target" / "debug" / "tarmac-lens"))


@pytest.fixture(scope="session")
def cli():
    path = cli_path()
    if not os.path.exists(path):
        pytest.fail(f"{path} is missing: cargo build --bin tarmac-lens (or set TARMAC_LENS_CLI)")
    return path


def run(cli, *args):
    out = subprocess.run([cli, *map(str, args)], capture_output=True, text=True)
    assert out.returncode == 0, f"{args}: {out.stderr}"
    return out.stdout


def sql_json(cli, *args):
    """The rows of `tarmac-lens sql ... --format json`."""
    return json.loads(run(cli, "sql", *args, "--format", "json"))
