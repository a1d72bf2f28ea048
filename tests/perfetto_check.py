"""Reads a Perfetto export with Perfetto's own schema and prints what it holds.

The bindings are the official `perfetto_trace_pb2` of PyPI's `perfetto`
package (with PyPI's `protobuf`): the messages are parsed as Perfetto
defines them, not as the exporter's own copy of the .proto files does.
What a viewer would build from the packets is rebuilt here the way
Perfetto's documentation says it is: interned names per packet sequence
(reset by SEQ_INCREMENTAL_STATE_CLEARED), slices from each track's
SLICE_BEGIN/SLICE_END pairs (an END closes the innermost open slice of
its track), instants, counter values.

Usage: perfetto_check.py FILE...   (the parts of one export, in order)
Prints one JSON document on standard output:
  {"tracks": {uuid: {"name", "parent", "counter_unit"}},
   "slices": [{"track", "name", "ts", "dur", "depth", "part"}] in begin order,
   "instants": [{"track", "name", "ts", "category"}],
   "counters": [{"track", "ts", "value"}],
   "parts": [{"packets", "bytes"}]}
and exits non-zero, naming the problem, on anything a reader would reject:
an unknown field, a name id never interned on its sequence, an END without
a BEGIN, a slice left open at the end of a part, time going back on a
track, an event on a track never described.
"""

import json
import sys

from google.protobuf.unknown_fields import UnknownFieldSet
from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

TE = pb.TrackEvent
CLEARED = pb.TracePacket.SEQ_INCREMENTAL_STATE_CLEARED
NEEDS = pb.TracePacket.SEQ_NEEDS_INCREMENTAL_STATE


def fail(msg):
    print(f"perfetto_check: {msg}", file=sys.stderr)
    sys.exit(1)


def unknown_fields(msg, path):
    """Fields the official schema does not know: a wrong number or type."""
    if len(UnknownFieldSet(msg)) > 0:
        fail(f"{path}: fields Perfetto's schema does not know")
    for field, value in msg.ListFields():
        if field.type == field.TYPE_MESSAGE:
            repeated = (field.is_repeated if hasattr(field, "is_repeated")
                        else field.label == field.LABEL_REPEATED)
            if repeated:
                for i, v in enumerate(value):
                    unknown_fields(v, f"{path}.{field.name}[{i}]")
            else:
                unknown_fields(value, f"{path}.{field.name}")


def main(paths):
    tracks = {}
    slices, instants, counters, parts = [], [], [], []
    for part, path in enumerate(paths):
        data = open(path, "rb").read()
        trace = pb.Trace()
        trace.ParseFromString(data)
        if len(trace.SerializeToString()) != len(data):
            # Fields may come in another order (protobuf allows any), but
            # no byte goes unread or is read another way.
            fail(f"{path}: re-encodes to another size")
        names = {}  # sequence -> {iid: name}
        cleared = set()
        open_slices = {}  # track -> [(slice index)]
        last_ts = {}
        described = set()
        for n, p in enumerate(trace.packet):
            unknown_fields(p, f"{path}: packet {n}")
            seq = p.trusted_packet_sequence_id
            if p.sequence_flags & CLEARED:
                names[seq] = {}
                cleared.add(seq)
            if p.HasField("interned_data"):
                if seq not in cleared:
                    fail(f"{path}: packet {n}: interned data before its sequence was cleared")
                for e in p.interned_data.event_names:
                    names[seq][e.iid] = e.name
            if p.HasField("track_descriptor"):
                d = p.track_descriptor
                described.add(d.uuid)
                tracks[str(d.uuid)] = {
                    "name": d.name,
                    "parent": d.parent_uuid if d.HasField("parent_uuid") else None,
                    "counter_unit": d.counter.unit_name if d.HasField("counter") else None,
                }
                continue
            if not p.HasField("track_event"):
                fail(f"{path}: packet {n} is neither a track event nor a descriptor")
            e = p.track_event
            t = e.track_uuid
            if t not in described:
                fail(f"{path}: packet {n}: track {t} not described in this part")
            if not p.HasField("timestamp"):
                fail(f"{path}: packet {n}: an event without a timestamp")
            ts = p.timestamp
            if ts < last_ts.get(t, 0):
                fail(f"{path}: packet {n}: time goes back on track {t}")
            last_ts[t] = ts

            def name():
                if e.HasField("name_iid"):
                    if not p.sequence_flags & NEEDS:
                        fail(f"{path}: packet {n}: an interned name without SEQ_NEEDS_INCREMENTAL_STATE")
                    got = names.get(seq, {}).get(e.name_iid)
                    if got is None:
                        fail(f"{path}: packet {n}: name id {e.name_iid} not interned on sequence {seq}")
                    return got
                return e.name

            stack = open_slices.setdefault(t, [])
            if e.type == TE.TYPE_SLICE_BEGIN:
                stack.append(len(slices))
                slices.append({"track": str(t), "name": name(), "ts": ts, "dur": None,
                               "depth": len(stack) - 1, "part": part})
            elif e.type == TE.TYPE_SLICE_END:
                if not stack:
                    fail(f"{path}: packet {n}: an END with no slice open on track {t}")
                s = slices[stack.pop()]
                s["dur"] = ts - s["ts"]
            elif e.type == TE.TYPE_INSTANT:
                instants.append({"track": str(t), "name": name(), "ts": ts,
                                 "category": list(e.categories)})
            elif e.type == TE.TYPE_COUNTER:
                if not e.HasField("double_counter_value"):
                    fail(f"{path}: packet {n}: a counter without a value")
                counters.append({"track": str(t), "ts": ts, "value": e.double_counter_value})
            else:
                fail(f"{path}: packet {n}: event type {e.type}")
        for t, stack in open_slices.items():
            if stack:
                fail(f"{path}: {len(stack)} slice(s) left open on track {t}")
        parts.append({"packets": len(trace.packet), "bytes": len(data)})
    json.dump({"tracks": tracks, "slices": slices, "instants": instants,
               "counters": counters, "parts": parts}, sys.stdout)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        fail("usage: perfetto_check.py FILE...")
    main(sys.argv[1:])
