"""Tarmac (Arm CPU execution trace) analysis: the Tarmac Lens core.

Open a trace with :func:`open`; ask the :class:`Trace` for registers,
memory, lines, call stacks, conditions, watchpoints and where values came
from; get the CLI's reports; query the trace tables (docs/tables.md) in
SQL as ``pyarrow`` tables for pandas, Polars or DuckDB.

Lines are numbered from 1. "At a line" means after the instruction that
holds the line, with its register and memory lines (a *node*).
"""

import os
from typing import Any, Callable, Iterator, List, Optional, Sequence, Tuple, TypedDict, Union

import pyarrow

__version__: str

_Path = Union[str, "os.PathLike[str]"]

class Error(Exception):
    """What went wrong with a trace, an image or a question."""

    reason: str
    """The sentence saying what went wrong."""
    line: Optional[int]
    """The trace line it is about, when there is one."""

class NotATraceError(Error):
    """The file is not a Tarmac trace; the message says what it is."""

class ImageError(Error):
    """The ELF image cannot serve this trace: unreadable, or built for another architecture."""

class ConditionError(Error):
    """A condition that does not parse."""

    column: int
    """Where in the condition (1-based)."""

class QueryError(Error):
    """A SQL query that failed."""

    position: Optional[Tuple[int, int]]
    """(line, column) in the query, when known."""

class Memory(TypedDict):
    address: int
    bytes: bytes
    """The values; a byte not known there reads 0."""
    known: List[bool]

class Row(TypedDict):
    line: int
    text: str
    node: int
    first_of_node: bool
    time: int
    pc: Optional[int]
    function: Optional[str]
    source: Optional[str]

class Frame(TypedDict):
    function: int
    name: str
    call_line: int
    entry_line: int
    return_line: Optional[int]

class Hit(TypedDict):
    line: int
    node: int
    time: int
    pc: Optional[int]
    function: Optional[str]
    operands: dict[str, Optional[int]]

class Access(TypedDict):
    line: int
    node: int
    time: int
    pc: Optional[int]
    kind: str
    detail: str
    function: str

class RegisterWrite(TypedDict):
    name: str
    value: str
    """Hex, most significant byte first; ``--`` for bytes the write leaves."""

class MemoryAccess(TypedDict):
    kind: str
    """``r``, ``w`` or ``u`` (an atomic update)."""
    address: int
    size: int
    bytes: bytes
    """In address order."""
    value: str
    """As the trace writes it."""

class Instruction(TypedDict):
    line: int
    time: int
    pc: int
    encoding: int
    iset: str
    mode: Optional[str]
    executed: bool
    disassembly: str
    registers: List[RegisterWrite]
    memory: List[MemoryAccess]

class ProfileRow(TypedDict):
    address: int
    name: str
    calls: int
    time: int

class Coverage(TypedDict):
    text: str
    """``tarmac-lens coverage TRACE --image ELF``'s summary, byte for byte."""
    json: dict[str, Any]
    """Its ``--json`` document."""
    lcov: Optional[str]
    """Its ``--lcov`` file; ``None`` for an image without DWARF."""

class Profile:
    """``tarmac-lens profile``'s report."""

    text: str
    """The CLI's text, byte for byte (``str(profile)`` too)."""
    functions: List[ProfileRow]
    """Its rows: one per function."""

class Instructions(Iterator[Instruction]):
    """Instructions streamed from the trace (:meth:`Trace.iter_instructions`)."""

    def __iter__(self) -> "Instructions": ...
    def __next__(self) -> Instruction: ...

class Trace:
    """An open, indexed trace (made by :func:`open`)."""

    @property
    def path(self) -> str:
        """The trace file."""
    @property
    def lines(self) -> int:
        """Lines in the trace."""
    @property
    def instructions(self) -> int:
        """Instructions in the trace."""
    @property
    def size(self) -> int:
        """Bytes of trace text (decompressed, for a packed trace)."""
    @property
    def calls(self) -> int:
        """Calls the index found."""
    @property
    def index_reused(self) -> bool:
        """Whether the index came from the index file beside the trace."""
    def registers_at(self, line: int) -> dict[str, str]:
        """The core registers after the node holding ``line``: name to hex
        text, ``?`` for digits not known there, in display order."""
    def memory_at(self, line: int, address: int, size: int) -> Memory:
        """``size`` bytes (1 to 4096) at ``address`` after the node holding ``line``."""
    def rows(self, first: int, last: int) -> List[Row]:
        """Lines ``first`` to ``last`` (inclusive) with their node, time,
        pc and, with an image, function and source line."""
    def call_stack_at(self, line: int) -> List[Frame]:
        """The calls active at the node holding ``line``, outermost first."""
    def find(
        self,
        condition: str,
        after_line: Optional[int] = None,
        backward: bool = False,
        limit: Optional[int] = 1,
    ) -> List[Hit]:
        """The nodes where ``condition`` (``x5 == 0``, ``[sp+8:4] != 0``,
        ``pc == main && x0 == 1``) becomes true, as ``tarmac-lens find``
        finds them; ``limit=None`` for all. Raises :class:`ConditionError`."""
    def watch(
        self,
        register: Optional[str] = None,
        *,
        address: Optional[int] = None,
        size: int = 8,
        kind: str = "rw",
        first_line: int = 1,
        last_line: Optional[int] = None,
        limit: Optional[int] = None,
    ) -> List[Access]:
        """The nodes reading (``kind="r"``), writing (``"w"``) or either
        (``"rw"``) a register or ``size`` bytes at ``address``."""
    def why(
        self,
        line: int,
        register: Optional[str] = None,
        *,
        address: Optional[int] = None,
        size: int = 8,
        depth: int = 4,
    ) -> dict[str, Any]:
        """The tree of writes that made a register's or memory's value
        after the node holding ``line`` (``tarmac-lens why --json``'s steps)."""
    def coverage(self) -> Coverage:
        """The image's coverage by this trace: ``tarmac-lens coverage``'s
        summary ``text``, its ``--json`` document and its ``--lcov`` file."""
    def calltree(self) -> str:
        """``tarmac-lens calltree``'s text."""
    def profile(self) -> Profile:
        """``tarmac-lens profile``'s text and rows."""
    def sql(self, query: str) -> pyarrow.Table:
        """A SQL query over the trace tables (docs/tables.md). Raises :class:`QueryError`;
        Ctrl-C stops it (``KeyboardInterrupt``)."""
    def sql_reader(self, query: str) -> pyarrow.RecordBatchReader:
        """:meth:`sql`'s result, computed batch by batch as it is read."""
    def table(self, name: str, columns: Optional[Sequence[str]] = None) -> pyarrow.Table:
        """A whole trace table, or some of its columns."""
    def iter_instructions(self, first_line: int = 1, last_line: Optional[int] = None) -> Instructions:
        """The instructions from the one holding ``first_line`` on, each
        with its register writes and memory accesses, streamed."""

def open(
    path: _Path,
    image: Optional[_Path] = None,
    cpu: Optional[str] = None,
    progress: Optional[Callable[[int, Optional[int]], Any]] = None,
    *,
    index: bool = True,
    index_path: Optional[_Path] = None,
    force_index: bool = False,
    load_offset: int = 0,
    implicit_thumb: bool = False,
    big_endian: bool = False,
    jobs: Optional[int] = None,
) -> Trace:
    """Opens a trace (plain, gzip or Zstandard) and indexes it, or reuses
    its index file ``TRACE.index`` as the CLI does (``index=False``: never
    write it; ``force_index``: rebuild it).

    ``image``: the traced program's ELF (function names, source lines;
    one of another architecture raises :class:`ImageError`). ``cpu``: the
    core to follow in a multi-core trace. ``progress(done_bytes,
    total_bytes)`` is called with 0 before indexing starts, then about
    ten times a second while indexing, then with the whole length
    (``total_bytes`` is ``None`` for a packed trace until its end); if it
    raises, indexing stops and ``open`` raises that. Ctrl-C stops indexing
    with ``KeyboardInterrupt``.

    Raises ``FileNotFoundError``, :class:`NotATraceError` (saying what the
    file is), :class:`ImageError` or :class:`Error`.
    """
