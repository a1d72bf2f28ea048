//! One core's tracks and what the walk puts on them: a slice per
//! activation on the track of the level it started at, an instant per
//! exception or mode change, the instruction rate; and the cut between
//! two parts (the open slices ended, the tracks, names and slices begun
//! again in the next).

use std::collections::HashMap;

use super::levels;
use super::packets::{file_len, Packets};
use super::proto::{
    counter_descriptor, trace_packet, track_descriptor, track_event, CounterDescriptor, EventName,
    InternedData, TracePacket, TrackDescriptor, TrackEvent,
};
use crate::parse::TimeUnit;
use crate::report::export::{Act, Sink, Timing};
use crate::{Error, Result};

const SEQ_INCREMENTAL_STATE_CLEARED: u32 = 1;
const SEQ_NEEDS_INCREMENTAL_STATE: u32 = 2;

/// Instructions per sample of the rate: some 2,000 samples for a few
/// million instructions, a few hundred thousand bytes for a billion.
const RATE_WINDOW: u64 = 1024;

/// Where the events' and the rate's tracks sit among a core's tracks:
/// after its tracks of calls.
const EVENTS_RANK: i32 = 1 << 20;
const RATE_RANK: i32 = EVENTS_RANK + 1;

/// What an interned name stands for.
#[derive(Clone, PartialEq, Eq, Hash)]
enum Key {
    Function(u64),
    Text(String),
}

#[derive(Clone, Copy)]
enum Kind {
    Begin(u64),
    End,
    Instant(u64, &'static str),
}

/// How trace times become nanoseconds.
#[derive(Clone, Copy)]
enum Clock {
    /// Nanoseconds, ticks (one a nanosecond) or instruction counts.
    AsIs,
    /// Picoseconds.
    Pico,
}

/// Samples of the instruction rate: instructions over time since the
/// window's start.
struct Rate {
    /// Per nanosecond times this: per microsecond for a known unit, per
    /// tick otherwise.
    scale: f64,
    unit: &'static str,
    start: Option<(u64, u64)>,
    instructions: u64,
    track: Option<u64>,
}

pub(super) struct CoreSink<'a, 'w> {
    packets: &'a mut Packets<'w>,
    next_uuid: &'a mut u64,
    name: &'a dyn Fn(u64) -> String,
    /// The sequence of the slices and instants; the rate's is the next.
    sequence: u32,
    group: u64,
    /// Every track of this core, the group first, as first described.
    tracks: Vec<TrackDescriptor>,
    /// Call tracks by level label.
    levels: HashMap<String, u64>,
    /// The call track of the mode the core runs in now.
    level: Option<u64>,
    events: Option<u64>,
    iids: HashMap<Key, u64>,
    /// Interned names sent in the current part (by iid).
    sent: Vec<bool>,
    /// Open slices, outermost first: track and name.
    open: Vec<(u64, u64)>,
    last_ns: u64,
    clock: Clock,
    rate: Option<Rate>,
    /// Bytes an END packet takes at most.
    end_len: u64,
    /// A failure in a call that cannot return one (`instruction`,
    /// `mode`): returned by the next that can.
    failed: Option<Error>,
}

impl<'a, 'w> CoreSink<'a, 'w> {
    pub(super) fn new(
        packets: &'a mut Packets<'w>,
        next_uuid: &'a mut u64,
        sequence: u32,
        label: &str,
        trace: &str,
        name: &'a dyn Fn(u64) -> String,
    ) -> Result<CoreSink<'a, 'w>> {
        let end_len = file_len(&TracePacket {
            timestamp: Some(u64::MAX),
            data: Some(trace_packet::Data::TrackEvent(TrackEvent {
                r#type: Some(track_event::Type::SliceEnd as i32),
                track_uuid: Some(u64::MAX),
                ..TrackEvent::default()
            })),
            optional_trusted_packet_sequence_id: Some(
                trace_packet::OptionalTrustedPacketSequenceId::TrustedPacketSequenceId(u32::MAX),
            ),
            sequence_flags: Some(SEQ_NEEDS_INCREMENTAL_STATE),
            ..TracePacket::default()
        });
        let mut sink = CoreSink {
            packets,
            next_uuid,
            name,
            sequence,
            group: 0,
            tracks: Vec::new(),
            levels: HashMap::new(),
            level: None,
            events: None,
            iids: HashMap::new(),
            sent: Vec::new(),
            open: Vec::new(),
            last_ns: 0,
            clock: Clock::AsIs,
            rate: None,
            end_len,
            failed: None,
        };
        sink.group = sink.add_track(
            TrackDescriptor {
                static_or_dynamic_name: Some(track_descriptor::StaticOrDynamicName::Name(
                    label.to_string(),
                )),
                description: Some(format!("{trace}: the calls and events of {label}")),
                child_ordering: Some(track_descriptor::ChildTracksOrdering::Explicit as i32),
                ..TrackDescriptor::default()
            },
            0,
        )?;
        Ok(sink)
    }

    fn uuid(&mut self) -> u64 {
        *self.next_uuid += 1;
        *self.next_uuid
    }

    fn sequence_id(id: u32) -> Option<trace_packet::OptionalTrustedPacketSequenceId> {
        Some(trace_packet::OptionalTrustedPacketSequenceId::TrustedPacketSequenceId(id))
    }

    /// A track of this core, described now and in every later part,
    /// `rank` its place among the core's tracks.
    fn add_track(&mut self, mut desc: TrackDescriptor, rank: i32) -> Result<u64> {
        let uuid = self.uuid();
        desc.uuid = Some(uuid);
        if !self.tracks.is_empty() {
            desc.parent_uuid = Some(self.group);
            desc.sibling_order_rank = Some(rank);
        }
        self.tracks.push(desc);
        let packet = self.descriptor_packet(self.tracks.len() - 1);
        if self.room_for(file_len(&packet)) {
            self.packets.write(&packet)?;
        } else {
            // The next part describes every track, this one too.
            self.cut()?;
        }
        Ok(uuid)
    }

    fn descriptor_packet(&self, n: usize) -> TracePacket {
        TracePacket {
            data: Some(trace_packet::Data::TrackDescriptor(self.tracks[n].clone())),
            optional_trusted_packet_sequence_id: Self::sequence_id(self.sequence),
            // The first packet of the sequence in a part: no name sent
            // before it counts.
            sequence_flags: (n == 0).then_some(SEQ_INCREMENTAL_STATE_CLEARED),
            ..TracePacket::default()
        }
    }

    /// Whether `bytes` fit in the part with the ends of the open slices
    /// (and of one more) after them.
    fn room_for(&self, bytes: u64) -> bool {
        self.packets
            .fits(bytes + (self.open.len() as u64 + 1) * self.end_len)
    }

    fn iid(&mut self, key: Key) -> u64 {
        let next = self.iids.len() as u64 + 1;
        *self.iids.entry(key).or_insert(next)
    }

    fn key_text(&self, key: &Key) -> String {
        match key {
            Key::Function(pc) => {
                let n = (self.name)(*pc);
                if n.is_empty() {
                    format!("0x{pc:x}")
                } else {
                    n
                }
            }
            Key::Text(t) => t.clone(),
        }
    }

    /// A track event packet on the slices' sequence; the name's interned
    /// entry goes with it if this part has not had it.
    fn event_packet(
        &self,
        ns: u64,
        track: u64,
        kind: Kind,
        name: Option<(&Key, u64)>,
    ) -> TracePacket {
        let (ty, iid, categories) = match kind {
            Kind::Begin(iid) => (track_event::Type::SliceBegin, Some(iid), Vec::new()),
            Kind::End => (track_event::Type::SliceEnd, None, Vec::new()),
            Kind::Instant(iid, category) => (
                track_event::Type::Instant,
                Some(iid),
                vec![category.to_string()],
            ),
        };
        let interned = name
            .filter(|(_, iid)| !self.sent.get(*iid as usize).copied().unwrap_or(false))
            .map(|(key, iid)| InternedData {
                event_names: vec![EventName {
                    iid: Some(iid),
                    name: Some(self.key_text(key)),
                }],
            });
        TracePacket {
            timestamp: Some(ns),
            data: Some(trace_packet::Data::TrackEvent(TrackEvent {
                categories,
                r#type: Some(ty as i32),
                track_uuid: Some(track),
                name_field: iid.map(track_event::NameField::NameIid),
                ..TrackEvent::default()
            })),
            optional_trusted_packet_sequence_id: Self::sequence_id(self.sequence),
            interned_data: interned,
            sequence_flags: Some(SEQ_NEEDS_INCREMENTAL_STATE),
        }
    }

    fn mark_sent(&mut self, iid: u64) {
        let i = iid as usize;
        if self.sent.len() <= i {
            self.sent.resize(i + 1, false);
        }
        self.sent[i] = true;
    }

    /// Writes an event, cutting the export first where the part is full.
    fn event(&mut self, ns: u64, track: u64, kind: Kind, key: Option<&Key>) -> Result<()> {
        if let Some(e) = self.failed.take() {
            return Err(e);
        }
        self.last_ns = self.last_ns.max(ns);
        let name = match kind {
            Kind::Begin(iid) | Kind::Instant(iid, _) => key.map(|k| (k, iid)),
            Kind::End => None,
        };
        let mut packet = self.event_packet(ns, track, kind, name);
        if !self.room_for(file_len(&packet)) {
            self.cut()?;
            packet = self.event_packet(ns, track, kind, name);
            if !self.room_for(file_len(&packet)) {
                return Err(self.too_small());
            }
        }
        self.packets.write(&packet)?;
        if let Some((_, iid)) = name {
            self.mark_sent(iid);
        }
        Ok(())
    }

    fn too_small(&self) -> Error {
        Error::Export(format!(
            "a part of {} bytes cannot hold the tracks and the {} calls open here: \
             give parts a larger size",
            self.packets.limit().unwrap_or(0),
            self.open.len()
        ))
    }

    /// Ends this part where the walk is and starts the next: the open
    /// slices end here and begin again there, after the tracks.
    fn cut(&mut self) -> Result<()> {
        let ns = self.last_ns;
        for i in (0..self.open.len()).rev() {
            let packet = self.event_packet(ns, self.open[i].0, Kind::End, None);
            self.packets.write(&packet)?;
        }
        self.packets.next_part()?;
        self.sent.clear();
        for n in 0..self.tracks.len() {
            let packet = self.descriptor_packet(n);
            self.packets.write(&packet)?;
        }
        let names: HashMap<u64, Key> = self.iids.iter().map(|(k, &v)| (v, k.clone())).collect();
        for i in 0..self.open.len() {
            let (track, iid) = self.open[i];
            let key = &names[&iid];
            let packet = self.event_packet(ns, track, Kind::Begin(iid), Some((key, iid)));
            self.packets.write(&packet)?;
            self.mark_sent(iid);
        }
        if !self.room_for(0) {
            return Err(self.too_small());
        }
        Ok(())
    }

    /// The call track of the current level (made the first time).
    fn level_track(&mut self, label: Option<String>) -> Result<u64> {
        let key = label.clone().unwrap_or_default();
        if let Some(&t) = self.levels.get(&key) {
            return Ok(t);
        }
        let name = match &label {
            Some(l) => format!("calls at {l}"),
            None => "calls".to_string(),
        };
        // Calls first, in the order the levels appear; then the events
        // and the rate.
        let rank = self.levels.len() as i32;
        let t = self.add_track(
            TrackDescriptor {
                static_or_dynamic_name: Some(track_descriptor::StaticOrDynamicName::Name(name)),
                ..TrackDescriptor::default()
            },
            rank,
        )?;
        self.levels.insert(key, t);
        Ok(t)
    }

    fn ns(&self, ts: u64) -> u64 {
        match self.clock {
            Clock::AsIs => ts,
            Clock::Pico => ts / 1000,
        }
    }

    /// A sample of the rate, at the start of the window it is over.
    fn sample(&mut self, at: u64, value: f64) -> Result<()> {
        let Some(rate) = &self.rate else {
            return Ok(());
        };
        let unit = rate.unit;
        let track = match rate.track {
            Some(t) => t,
            None => {
                let t = self.add_track(
                    TrackDescriptor {
                        static_or_dynamic_name: Some(track_descriptor::StaticOrDynamicName::Name(
                            "instruction rate".to_string(),
                        )),
                        counter: Some(CounterDescriptor {
                            unit: Some(counter_descriptor::Unit::Unspecified as i32),
                            unit_name: Some(unit.to_string()),
                        }),
                        ..TrackDescriptor::default()
                    },
                    RATE_RANK,
                )?;
                if let Some(r) = &mut self.rate {
                    r.track = Some(t);
                }
                t
            }
        };
        let packet = TracePacket {
            timestamp: Some(at),
            data: Some(trace_packet::Data::TrackEvent(TrackEvent {
                r#type: Some(track_event::Type::Counter as i32),
                track_uuid: Some(track),
                counter_value_field: Some(track_event::CounterValueField::DoubleCounterValue(
                    value,
                )),
                ..TrackEvent::default()
            })),
            // A sequence of its own: a sample is written when its window
            // ends, after slices that began later.
            optional_trusted_packet_sequence_id: Self::sequence_id(self.sequence + 1),
            ..TracePacket::default()
        };
        if !self.room_for(file_len(&packet)) {
            self.cut()?;
        }
        self.packets.write(&packet)
    }

    /// The last window's sample.
    pub(super) fn finish(&mut self) -> Result<()> {
        if let Some(e) = self.failed.take() {
            return Err(e);
        }
        let Some(rate) = &self.rate else {
            return Ok(());
        };
        if let Some((t0, n0)) = rate.start {
            // The last instruction's own time is not known: it is left out.
            let dt = self.last_ns.saturating_sub(t0);
            let dn = rate.instructions.saturating_sub(n0 + 1);
            if dt > 0 && dn > 0 {
                let value = dn as f64 / dt as f64 * rate.scale;
                self.sample(t0, value)?;
            }
        }
        Ok(())
    }
}

impl Sink for CoreSink<'_, '_> {
    fn enter(&mut self, open: &[Act], ts: u64, _instructions: u64) -> Result<()> {
        let pc = open.last().map_or(0, |a| a.pc);
        let track = match self.level {
            Some(t) => t,
            None => {
                let t = self.level_track(None)?;
                self.level = Some(t);
                t
            }
        };
        let key = Key::Function(pc);
        let iid = self.iid(key.clone());
        let ns = self.ns(ts);
        self.event(ns, track, Kind::Begin(iid), Some(&key))?;
        self.open.push((track, iid));
        Ok(())
    }

    fn leave(&mut self, _open: &[Act], ts: u64, _instructions: u64) -> Result<()> {
        let Some(&(track, _)) = self.open.last() else {
            return Ok(());
        };
        let ns = self.ns(ts);
        self.event(ns, track, Kind::End, None)?;
        self.open.pop();
        Ok(())
    }

    fn instruction(&mut self, _open: &[Act], _pc: u64, ts: u64) {
        let ns = self.ns(ts);
        let Some(rate) = &mut self.rate else {
            return;
        };
        // The window runs from an instruction's time (t0, n0 run before
        // it) to this one's: the instructions in between, this one out.
        let before = rate.instructions;
        rate.instructions += 1;
        let (t0, n0) = *rate.start.get_or_insert((ns, before));
        let dn = before - n0;
        if dn >= RATE_WINDOW && ns > t0 {
            let value = dn as f64 / (ns - t0) as f64 * rate.scale;
            rate.start = Some((ns, before));
            if let Err(e) = self.sample(t0, value) {
                self.failed.get_or_insert(e);
            }
        }
    }

    fn instant(&mut self, ts: u64, name: &str, category: &str) -> Result<()> {
        let track = match self.events {
            Some(t) => t,
            None => {
                let t = self.add_track(
                    TrackDescriptor {
                        static_or_dynamic_name: Some(track_descriptor::StaticOrDynamicName::Name(
                            "exceptions and mode changes".to_string(),
                        )),
                        ..TrackDescriptor::default()
                    },
                    EVENTS_RANK,
                )?;
                self.events = Some(t);
                t
            }
        };
        let category = if category == "exception" {
            "exception"
        } else {
            "mode"
        };
        let key = Key::Text(name.to_string());
        let iid = self.iid(key.clone());
        let ns = self.ns(ts);
        self.event(ns, track, Kind::Instant(iid, category), Some(&key))
    }

    fn timing(&mut self, timing: &Timing) {
        if !timing.timestamps {
            // Time counts instructions: a rate of one per unit says nothing.
            return;
        }
        let (clock, scale, unit) = match timing.unit {
            Some(TimeUnit::Ns) => (Clock::AsIs, 1000.0, "instructions/µs"),
            Some(TimeUnit::Ps) | Some(TimeUnit::Us) => (Clock::Pico, 1000.0, "instructions/µs"),
            _ => (Clock::AsIs, 1.0, "instructions/tick"),
        };
        self.clock = clock;
        self.rate = Some(Rate {
            scale,
            unit,
            start: None,
            instructions: 0,
            track: None,
        });
    }

    fn mode(&mut self, mode: &[u8]) {
        match self.level_track(Some(levels::label(mode))) {
            Ok(t) => self.level = Some(t),
            Err(e) => {
                self.failed.get_or_insert(e);
            }
        }
    }
}
