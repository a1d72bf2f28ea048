//! The EP cycle profile computed once and explored in parts, for the page's
//! Reports panel: a summary (with the SPLOOP loop-buffer against memory
//! split), the by-address table sorted and paged, the discontinuity list
//! paged, and the exact `tarmac-lens ep-profile` text.
//!
//! Replies are bounded like `report::explore`'s: at most [`MAX_PAGE`] rows.

use serde::{Deserialize, Serialize};

use super::ep_profile::{self, Discontinuity, EpProfile, PcCycles};
use super::explore::{sorted_page, MAX_PAGE};
use crate::parse::ParseOptions;
use crate::source::{SourceError, TraceSource};

/// The profile's heading numbers.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EpSummary {
    /// Records per type, named as `ep-profile` names them; types with none
    /// are left out.
    pub records: Vec<(String, u64)>,
    pub packet_cycles: u64,
    pub stall_cycles: u64,
    pub first_cycle: Option<u64>,
    pub last_cycle: Option<u64>,
    pub sploop_memory_packets: u64,
    pub sploop_memory_cycles: u64,
    pub sploop_buffer_records: u64,
    pub sploop_buffer_cycles: u64,
    pub sploop_discontinuities: u64,
    /// Discontinuities seen, and how many of them the list holds.
    pub discontinuities: u64,
    pub listed: u64,
    /// Distinct packet addresses (rows of the table).
    pub addresses: u64,
    pub unparsed: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum EpSort {
    Pc,
    Packets,
    Cycles,
    Stalls,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EpPcPage {
    pub total: u64,
    pub offset: u64,
    pub rows: Vec<PcCycles>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EpFlowPage {
    /// Discontinuities listed (the first [`ep_profile::MAX_FLOW`]).
    pub total: u64,
    pub offset: u64,
    pub rows: Vec<Discontinuity>,
}

/// The EP profile of one trace.
pub struct EpReports {
    profile: EpProfile,
}

impl EpReports {
    /// One pass over `source` (no engine: EP records carry no state).
    pub fn compute<S: TraceSource>(source: S, parse: ParseOptions) -> Result<Self, SourceError> {
        Ok(EpReports {
            profile: ep_profile::ep_profile(source, parse)?,
        })
    }

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
