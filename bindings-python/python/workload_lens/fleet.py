"""Many clusters' workloads as Arrow tables (``pip install workload-lens[fleet]``).

Snapshots (``workload-lens snapshot``) are read into a table of records,
one per object, and batches of records resolve into three tables, with the
engine's rules: ``workloads``, component ``instances`` and ``pods``. A batch
crosses into the engine once, and is resolved without the GIL; an object
that fails is a row with its error, never an exception for the batch.

    from workload_lens import fleet
    snap = fleet.read_snapshot("prod-eu.jsonl.gz")
    tables = fleet.resolve(snap.records)
    tables.workloads.group_by("namespace").aggregate([("gpus", "sum")])

A batch must hold whole namespaces: pods join their workloads by controller
uid within a cluster, and an owner missing from the batch makes a workload
of its own (``owner_state = "orphaned"``). :func:`partition` gives each
record its (cluster, namespace) partition, cluster-scoped records in every
partition of their cluster, for distributed engines that group by it
(docs/fleet.md has the Ray and Spark recipes).

The schemas are versioned (:data:`SCHEMA_VERSION`, also in each schema's
metadata); docs/fleet.md lists every column.
"""

from __future__ import annotations

import gzip
import io
import json
import os
from dataclasses import dataclass
from typing import Any, Dict, Iterable, Iterator, List, Mapping, Optional, Union

import importlib.util

if importlib.util.find_spec("pyarrow") is None:  # pragma: no cover - without the extra
    raise ImportError("workload_lens.fleet needs pyarrow: pip install 'workload-lens[fleet]'")

import pyarrow as pa  # type: ignore[import-untyped]  # noqa: E402
import pyarrow.compute as pc  # type: ignore[import-untyped]  # noqa: E402

from . import _native  # noqa: E402
from ._api import Catalog, Definition  # noqa: E402

__all__ = [
    "SCHEMA_VERSION",
    "RECORDS_SCHEMA",
    "WORKLOADS_SCHEMA",
    "INSTANCES_SCHEMA",
    "PODS_SCHEMA",
    "Snapshot",
    "FleetTables",
    "Resolver",
    "SnapshotResolver",
    "read_snapshot",
    "resolve",
    "partition",
    "signed",
]

#: The version of the tables' columns.
SCHEMA_VERSION = 1

# Bytes of a snapshot (decompressed) read per crossing into the engine.
_BLOCK_BYTES = 4 << 20


def _meta(table: str) -> Dict[bytes, bytes]:
    return {
        b"workload_lens.schema_version": str(SCHEMA_VERSION).encode(),
        b"workload_lens.table": table.encode(),
    }


#: One row per record of a snapshot: its cluster, its namespace (null for a
#: cluster-scoped object), its roles (comma-separated: object, pod, owner,
#: definition, unreadable) and the object's JSON text.
RECORDS_SCHEMA = pa.schema(
    [
        pa.field("cluster", pa.string(), nullable=False),
        pa.field("namespace", pa.string()),
        pa.field("roles", pa.string(), nullable=False),
        pa.field("object", pa.large_string(), nullable=False),
    ],
    metadata=_meta("records"),
)

_U64 = pa.uint64()

#: One row per workload (a top-level object, or one whose owner is
#: missing), or per record that failed (``error_code`` set).
WORKLOADS_SCHEMA = pa.schema(
    [
        pa.field("cluster", pa.string(), nullable=False),
        pa.field("namespace", pa.string()),
        pa.field("api_version", pa.string()),
        pa.field("kind", pa.string()),
        pa.field("name", pa.string()),
        pa.field("uid", pa.string()),
        pa.field("created", pa.string()),
        pa.field("definition", pa.string()),
        pa.field("origin", pa.string()),
        pa.field("phase", pa.string()),
        pa.field("statuses", pa.list_(pa.string()), nullable=False),
        pa.field("desired_pods", _U64),
        pa.field("live_pods", _U64),
        pa.field("ready_pods", _U64),
        pa.field("running_pods", _U64),
        pa.field("gpus", _U64),
        pa.field("gpus_held", _U64),
        pa.field("gpus_pending", _U64),
        pa.field("cpu_millis", _U64),
        pa.field("memory_bytes", _U64),
        pa.field("owner_state", pa.string()),
        pa.field("look_alike_pods", _U64),
        pa.field("reason", pa.string()),
        pa.field("error_code", pa.string()),
        pa.field("error_message", pa.string()),
    ],
    metadata=_meta("workloads"),
)

#: One row per component instance of a workload that resolved.
INSTANCES_SCHEMA = pa.schema(
    [
        pa.field("cluster", pa.string(), nullable=False),
        pa.field("namespace", pa.string()),
        pa.field("kind", pa.string(), nullable=False),
        pa.field("workload", pa.string(), nullable=False),
        pa.field("workload_uid", pa.string()),
        pa.field("component", pa.string(), nullable=False),
        pa.field("instance", pa.string(), nullable=False),
        pa.field("replicas_desired", _U64, nullable=False),
        pa.field("replicas_min", _U64),
        pa.field("replicas_max", _U64),
        pa.field("pods", _U64, nullable=False),
        pa.field("ready_pods", _U64, nullable=False),
        pa.field("gpus", _U64, nullable=False),
    ],
    metadata=_meta("instances"),
)

#: One row per pod of a workload that has not finished.
PODS_SCHEMA = pa.schema(
    [
        pa.field("cluster", pa.string(), nullable=False),
        pa.field("namespace", pa.string()),
        pa.field("pod", pa.string(), nullable=False),
        pa.field("kind", pa.string(), nullable=False),
        pa.field("workload", pa.string(), nullable=False),
        pa.field("workload_uid", pa.string()),
        pa.field("component", pa.string()),
        pa.field("instance", pa.string()),
        pa.field("phase", pa.string(), nullable=False),
        pa.field("ready", pa.bool_(), nullable=False),
        pa.field("node", pa.string()),
        pa.field("gpus", _U64, nullable=False),
        pa.field("looks_like_kind", pa.string()),
        pa.field("looks_like", pa.string()),
        pa.field("looks_like_uid", pa.string()),
    ],
    metadata=_meta("pods"),
)

_SCHEMAS = {"workloads": WORKLOADS_SCHEMA, "instances": INSTANCES_SCHEMA, "pods": PODS_SCHEMA}


@dataclass(frozen=True)
class Snapshot:
    """A snapshot read: its header and end (as written), and its records
    (:data:`RECORDS_SCHEMA`; the end's unreadable owner kinds are records of
    the role ``unreadable``)."""

    header: Dict[str, Any]
    end: Dict[str, Any]
    records: "pa.Table"


@dataclass(frozen=True)
class FleetTables:
    """The three tables of a batch."""

    workloads: "pa.Table"
    instances: "pa.Table"
    pods: "pa.Table"


def _open(path: Union[str, "os.PathLike[str]", io.IOBase]) -> Any:
    raw: Any = path if hasattr(path, "read") else open(os.fspath(path), "rb")
    buffered = raw if hasattr(raw, "peek") else io.BufferedReader(raw)
    if buffered.peek(2)[:2] == b"\x1f\x8b":
        return gzip.GzipFile(fileobj=buffered)
    return buffered


def read_snapshot(
    path: Union[str, "os.PathLike[str]", io.IOBase],
    *,
    cluster: Optional[str] = None,
    limits: Optional[Mapping[str, int]] = None,
) -> Snapshot:
    """Read a snapshot file (gzip or plain JSON Lines) into its records.

    The engine checks every line as ``get --snapshot`` does (the header,
    the version, each record, the end and its count; each line within
    ``maxInputBytes``) and a bad file raises the engine's error, located by
    line. ``cluster`` overrides the header's cluster name."""
    lines_state = _native.SnapshotLines(None if limits is None else json.dumps(dict(limits)))
    roles: List[str] = []
    namespaces: List[Optional[str]] = []
    # The objects stay bytes: the engine gives each block's records as a
    # large_string column's buffers (offsets, text), wrapped without a copy.
    objects: List["pa.Array"] = []

    def cross(block: bytes) -> None:
        r, n, offsets, text = lines_state.read_block(block)
        roles.extend(r)
        namespaces.extend(n)
        objects.append(pa.Array.from_buffers(pa.large_string(), len(r), [None, pa.py_buffer(offsets), pa.py_buffer(text)]))

    with _open(path) as f:
        rest = b""
        while True:
            block = f.read(_BLOCK_BYTES)
            if not block:
                break
            block = rest + block
            cut = block.rfind(b"\n") + 1
            if cut == 0:
                rest = block
                continue
            rest = block[cut:]
            cross(block[:cut])
        if rest:
            cross(rest)
    header_text, end_text = lines_state.finish()
    header, end = json.loads(header_text), json.loads(end_text)
    name = cluster if cluster is not None else str(header["cluster"])
    unreadable = [json.dumps(kind, separators=(",", ":")) for kind in end.get("unreadable") or []]
    roles.extend(["unreadable"] * len(unreadable))
    namespaces.extend([None] * len(unreadable))
    objects.append(pa.array(unreadable, pa.large_string()))
    meta = dict(RECORDS_SCHEMA.metadata or {})
    meta[b"workload_lens.snapshot_header"] = header_text.encode()
    table = pa.table(
        {
            "cluster": pa.array([name] * len(roles), pa.string()),
            "namespace": pa.array(namespaces, pa.string()),
            "roles": pa.array(roles, pa.string()),
            "object": pa.chunked_array([o for o in objects if len(o)] or [pa.array([], pa.large_string())], pa.large_string()),
        },
        schema=RECORDS_SCHEMA.with_metadata(meta),
    )
    return Snapshot(header=header, end=end, records=table)


def _dictionary(column: Any) -> Any:
    """A string column as the engine takes it: its words and each row's
    index into them (little-endian int32 bytes). A null is the empty word."""
    col = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    encoded = pc.dictionary_encode(pc.fill_null(col, ""))
    indices = encoded.indices.cast(pa.int32())
    if len(indices) == 0:
        return [], b""
    buf = indices.buffers()[1]
    return encoded.dictionary.to_pylist(), buf.slice(indices.offset * 4, len(indices) * 4).to_pybytes()


def _texts(column: Any) -> List[Any]:
    """A string column as the engine takes it, chunk by chunk: the offsets
    (little-endian int64) and the text they point into, as bytes (one copy
    of the text, no Python object per row). A null is the empty text."""
    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    out = []
    for chunk in chunks:
        if len(chunk) == 0:
            continue
        if chunk.null_count:
            chunk = pc.fill_null(chunk, "")
        if chunk.type != pa.large_string():
            chunk = chunk.cast(pa.large_string())
        offsets_buf, text_buf = chunk.buffers()[1:3]
        offsets = offsets_buf.slice(chunk.offset * 8, (len(chunk) + 1) * 8)
        at = memoryview(offsets).cast("q")
        first, last = at[0], at[len(chunk)]
        text = text_buf.slice(first, last - first).to_pybytes() if text_buf is not None else b""
        out.append((offsets.to_pybytes(), text))
    return out


def _tables(raw: Dict[str, Any]) -> FleetTables:
    if raw.get("schema_version") != SCHEMA_VERSION:  # pragma: no cover - a build mismatch
        raise RuntimeError(f"the engine gives fleet schema {raw.get('schema_version')}, this module reads {SCHEMA_VERSION}")
    out = {}
    for name, schema in _SCHEMAS.items():
        cols = raw[name]
        out[name] = pa.table({f.name: pa.array(cols[f.name], f.type) for f in schema}, schema=schema)
    return FleetTables(**out)


def resolve(
    records: Union["pa.Table", "pa.RecordBatch"],
    *,
    catalog: Optional[Catalog] = None,
) -> FleetTables:
    """Resolve a batch of records (:data:`RECORDS_SCHEMA`: ``cluster``,
    ``roles`` and ``object`` are read) into the three tables. One crossing
    into the engine, without the GIL. ``catalog`` gives the definitions and
    limits (default: the bundled catalog); each cluster's stored
    definitions (``definition`` records) go over them."""
    c = catalog if catalog is not None else _default_catalog()
    raw = c._native.fleet_tables_arrow(
        _dictionary(records.column("cluster")), _dictionary(records.column("roles")), _texts(records.column("object"))
    )
    return _tables(raw)


_CATALOG: Optional[Catalog] = None


def _default_catalog() -> Catalog:
    global _CATALOG
    if _CATALOG is None:
        _CATALOG = Catalog()
    return _CATALOG


def partition(records: Union["pa.Table", "pa.RecordBatch"]) -> "pa.Table":
    """The records with a ``partition`` column, ``cluster/namespace``: the
    unit a batch must hold whole. A cluster-scoped record (no namespace: a
    Node above a static pod, a definition, an unreadable kind) is repeated
    in every partition of its cluster, so each partition resolves alone."""
    t = records if isinstance(records, pa.Table) else pa.Table.from_batches([records])
    namespaced = t.filter(pc.is_valid(t.column("namespace")))
    scoped = t.filter(pc.is_null(t.column("namespace")))
    key = pc.binary_join_element_wise(namespaced.column("cluster"), namespaced.column("namespace"), "/")
    parts = [namespaced.append_column("partition", key)]
    if scoped.num_rows:
        keys = pa.table({"cluster": namespaced.column("cluster"), "partition": key}).group_by(["cluster", "partition"]).aggregate([])
        joined = scoped.join(keys, "cluster", join_type="inner")
        parts.append(joined.select(t.column_names + ["partition"]))
    return pa.concat_tables([p.cast(parts[0].schema) for p in parts])


def signed(schema: "pa.Schema") -> "pa.Schema":
    """The schema with its unsigned counts as signed 64-bit integers, for
    engines without unsigned types (Spark)."""
    fields = [pa.field(f.name, pa.int64(), f.nullable) if pa.types.is_unsigned_integer(f.type) else f for f in schema]
    return pa.schema(fields, metadata=schema.metadata)


class Resolver:
    """A callable for distributed engines: records in, one table out.

    ``Resolver(table="workloads")(batch)`` resolves a batch of records
    (a ``pyarrow.Table`` or ``RecordBatch`` holding whole partitions, see
    :func:`partition`) and returns that table (``workloads``, ``instances``
    or ``pods``). Ray Data's ``map_batches`` and Spark's Arrow functions
    construct it once per worker; it pickles as its catalog does
    (definitions and limits), so the catalog is compiled once per worker.
    ``signed=True`` gives the counts as ``int64`` (:func:`signed`), as
    Spark needs them."""

    def __init__(
        self,
        table: str = "workloads",
        *,
        definitions: Iterable[Union[Definition, str]] = (),
        limits: Optional[Mapping[str, int]] = None,
        catalog: Optional[Catalog] = None,
        signed: bool = False,
    ) -> None:
        if table not in _SCHEMAS:
            raise ValueError(f"table must be one of {', '.join(_SCHEMAS)}, not {table!r}")
        self.table = table
        self.signed = signed
        if catalog is None:
            catalog = Catalog(limits=limits)
            for d in definitions:
                catalog.add(d)
        self.catalog = catalog

    @property
    def schema(self) -> "pa.Schema":
        """The schema of what a call returns."""
        s: pa.Schema = _SCHEMAS[self.table]
        return signed(s) if self.signed else s

    @property
    def spark_schema(self) -> Any:
        """:attr:`schema` as a Spark ``StructType`` (needs pyspark, and
        ``signed=True``: Spark has no unsigned integers)."""
        if not self.signed:
            raise ValueError("Spark has no unsigned integers: make the resolver with signed=True")
        from pyspark.sql.pandas.types import from_arrow_schema  # type: ignore[import-untyped,import-not-found,unused-ignore]

        return from_arrow_schema(self.schema)

    def __call__(self, batch: Union["pa.Table", "pa.RecordBatch"]) -> "pa.Table":
        t: pa.Table = getattr(resolve(batch, catalog=self.catalog), self.table)
        return t.cast(self.schema) if self.signed else t

    def batches(self, batches: Iterable["pa.RecordBatch"]) -> Iterator["pa.RecordBatch"]:
        """For Spark's ``mapInArrow``: every batch of a partition is read,
        then resolved at once (a Spark partition holds whole fleet
        partitions when repartitioned by the ``partition`` column), and the
        table comes back as record batches."""
        held = list(batches)
        if not held:
            return
        out = self(pa.Table.from_batches(held))
        yield from out.to_batches()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.table}, {len(self.catalog.definitions())} definitions>"


class SnapshotResolver(Resolver):
    """A :class:`Resolver` whose batches name snapshot files: a batch with a
    ``path`` column in, the chosen table of those snapshots out (each read
    and resolved whole, in the worker). For Ray Data's ``map_batches`` over
    a dataset of paths: no shuffle, and a worker holds one cluster at a
    time (``batch_size=1``)."""

    def __call__(self, batch: Union["pa.Table", "pa.RecordBatch"]) -> "pa.Table":
        tables = [
            super(SnapshotResolver, self).__call__(read_snapshot(p, limits=self.catalog.limits()).records)
            for p in batch.column("path").to_pylist()
        ]
        if not tables:
            return self.schema.empty_table()
        return pa.concat_tables(tables)
