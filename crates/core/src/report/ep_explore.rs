//! The EP cycle profile computed once and explored in parts, for the page's
//! Reports panel: a summary (with the SPLOOP loop-buffer against memory
//! split), the by-address table sorted and paged, the discontinuity list
//! paged, and the exact `tarmac-lens ep-profile` text.
//!
//! Replies are bounded like `report::explore`'s: at most [`MAX_PAGE`] rows.

use crate::Result;
use serde::{Deserialize, Serialize};

use super::ep_profile::{self, Discontinuity, EpProfile, PcCycles};
use super::explore::{sorted_page, MAX_PAGE};
use crate::parse::ParseOptions;
use crate::source::TraceSource;

/// The profile's heading numbers.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EpSummary {
    /// Records per type, named as `ep-profile` names them; types with none
    /// are left out.
    pub records: Vec<(String, u64)>,
    /// Cycles of all packets, loop-buffer cycles included.
    pub packet_cycles: u64,
    /// Stall cycles among them.
    pub stall_cycles: u64,
    /// Cycle of the first record, `None` without records.
    pub first_cycle: Option<u64>,
    /// Highest cycle of any record.
    pub last_cycle: Option<u64>,
    /// SPLOOP packets fetched from memory.
    pub sploop_memory_packets: u64,
    /// Their cycles.
    pub sploop_memory_cycles: u64,
    /// Records of cycles run wholly from the SPLOOP loop buffer.
    pub sploop_buffer_records: u64,
    /// Their cycles.
    pub sploop_buffer_cycles: u64,
    /// Discontinuities in SPLOOP epilogues.
    pub sploop_discontinuities: u64,
    /// Discontinuities seen, and how many of them the list holds.
    pub discontinuities: u64,
    /// How many of them the discontinuity list holds.
    pub listed: u64,
    /// Distinct packet addresses (rows of the table).
    pub addresses: u64,
    /// Lines the parser did not understand.
    pub unparsed: u64,
}

/// A column of the by-address table to sort by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum EpSort {
    /// By packet address.
    Pc,
    /// By packets.
    Packets,
    /// By cycles.
    Cycles,
    /// By stall cycles.
    Stalls,
}

/// A page of the by-address table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EpPcPage {
    /// Addresses in the table.
    pub total: u64,
    /// Position of the page's first row in the sorted table.
    pub offset: u64,
    /// The page's rows, in sort order.
    pub rows: Vec<PcCycles>,
}

/// A page of the discontinuity list.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EpFlowPage {
    /// Discontinuities listed (the first 10,000).
    pub total: u64,
    /// Position of the page's first row in the list.
    pub offset: u64,
    /// The page's discontinuities, in trace order.
    pub rows: Vec<Discontinuity>,
}

/// The EP profile of one trace.
pub struct EpReports {
    profile: EpProfile,
}

impl EpReports {
    /// One pass over `source` (no engine: EP records carry no state).
    pub fn compute<S: TraceSource>(source: S, parse: ParseOptions) -> Result<Self> {
        Ok(EpReports {
            profile: ep_profile::ep_profile(source, parse)?,
        })
    }

    /// The numbers for the panel's heading.
    pub fn summary(&self) -> EpSummary {
        let p = &self.profile;
        EpSummary {
            records: ep_profile::RECORD_NAMES
                .iter()
                .zip(p.records)
                .filter(|(_, n)| *n > 0)
                .map(|(name, n)| (name.to_string(), n))
                .collect(),
            packet_cycles: p.packet_cycles,
            stall_cycles: p.stall_cycles,
            first_cycle: p.first_cycle,
            last_cycle: p.last_cycle,
            sploop_memory_packets: p.sploop_memory_packets,
            sploop_memory_cycles: p.sploop_memory_cycles,
            sploop_buffer_records: p.sploop_buffer_records,
            sploop_buffer_cycles: p.sploop_buffer_cycles,
            sploop_discontinuities: p.sploop_discontinuities,
            discontinuities: p.discontinuity_count,
            listed: p.discontinuities.len() as u64,
            addresses: p.by_pc.len() as u64,
            unparsed: p.unparsed.count,
        }
    }

    /// Whether the trace held any EP record (`ep-profile` refuses one
    /// without).
    pub fn is_empty(&self) -> bool {
        self.profile.records.iter().sum::<u64>() == 0
    }

    /// The by-address table sorted by `sort` (ties by address), a page.
    pub fn by_pc(&self, sort: EpSort, descending: bool, offset: u64, limit: usize) -> EpPcPage {
        let (total, offset, rows) = sorted_page(
            &self.profile.by_pc,
            |a: &PcCycles, b: &PcCycles| match sort {
                EpSort::Pc => a.pc.cmp(&b.pc),
                EpSort::Packets => a.packets.cmp(&b.packets),
                EpSort::Cycles => a.cycles.cmp(&b.cycles),
                EpSort::Stalls => a.stall_cycles.cmp(&b.stall_cycles),
            },
            |r| r.pc,
            (descending, offset, limit),
        );
        EpPcPage {
            total,
            offset,
            rows,
        }
    }

    /// Discontinuities in trace order from `offset`, a page.
    pub fn flow(&self, offset: u64, limit: usize) -> EpFlowPage {
        let list = &self.profile.discontinuities;
        let start = (offset as usize).min(list.len());
        EpFlowPage {
            total: list.len() as u64,
            offset: start as u64,
            rows: list[start..]
                .iter()
                .take(limit.min(MAX_PAGE))
                .cloned()
                .collect(),
        }
    }

    /// `tarmac-lens ep-profile`'s text (its default `--top`).
    pub fn text(&self) -> String {
        ep_profile::render(&self.profile, ep_profile::DEFAULT_TOP)
    }
}
