//! The Reports panel's Statistics tab, UI-free: the reports it offers
//! (the CLI's statistics commands, `report::stats`), the name each one
//! downloads as, and the picture of a function's executed control-flow
//! graph: blocks in a column in address order, so the code reads top to
//! bottom as in the disassembly, each branch an arrow on the right in a
//! lane of its own wherever it would cross another.

use crate::i18n::t;
use tarmac_lens_core::{
    report::stats::cfg::{CfgReport, Target},
    report::stats::Report,
};

/// The reports of the tab, in its order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StatisticKind {
    /// The instruction mix.
    Mix,
    /// Time by exception level and security state.
    Levels,
    /// Exceptions and interrupts.
    Exceptions,
    /// Function statistics.
    Functions,
    /// Conditional branches and loops.
    Loops,
    /// Translation and cache events.
    CacheTlb,
    /// A function's executed control-flow graph, drawn.
    Cfg,
}

impl StatisticKind {
    /// Every report, in the tab's order.
    pub const ALL: [StatisticKind; 7] = [
        StatisticKind::Mix,
        StatisticKind::Levels,
        StatisticKind::Exceptions,
        StatisticKind::Functions,
        StatisticKind::Loops,
        StatisticKind::CacheTlb,
        StatisticKind::Cfg,
    ];

    /// The CLI command printing it, also its test id.
    pub fn id(self) -> &'static str {
        match self {
            StatisticKind::Mix => "mix",
            StatisticKind::Levels => "levels",
            StatisticKind::Exceptions => "exceptions",
            StatisticKind::Functions => "functions",
            StatisticKind::Loops => "loops",
            StatisticKind::CacheTlb => "cache-tlb",
            StatisticKind::Cfg => "cfg",
        }
    }

    /// Its name, in the page's language.
    pub fn label(self) -> &'static str {
        match self {
            StatisticKind::Mix => t("Instruction mix"),
            StatisticKind::Levels => t("Exception levels"),
            StatisticKind::Exceptions => t("Exceptions"),
            StatisticKind::Functions => t("Functions"),
            StatisticKind::Loops => t("Branches and loops"),
            StatisticKind::CacheTlb => t("Cache and TLB"),
            StatisticKind::Cfg => t("Control flow"),
        }
    }

    /// The report to ask for: the CLI's defaults, `exceptions_in_calls`
    /// the functions' switch; the graph's `function` as typed (`None`
    /// until one is).
    pub fn report(self, exceptions_in_calls: bool, function: &str) -> Option<Report> {
        Some(match self {
            StatisticKind::Mix => Report::Mix,
            StatisticKind::Levels => Report::Levels,
            StatisticKind::Exceptions => Report::Exceptions,
            StatisticKind::Functions => Report::Functions {
                exceptions_in_calls,
            },
            StatisticKind::Loops => Report::Loops,
            // `tarmac-lens cache-tlb`'s `--max` default.
            StatisticKind::CacheTlb => Report::CacheTlb { max: 20 },
            StatisticKind::Cfg => {
                let function = function.trim();
                if function.is_empty() {
                    return None;
                }
                Report::Cfg {
                    function: function.to_string(),
                }
            }
        })
    }
}

/// The file a report downloads as: `TRACE.mix.txt`, a graph
/// `TRACE.cfg.FUNCTION.dot` (the function's name kept to characters a
/// file name can hold everywhere).
pub fn file_name(trace: &str, report: &Report) -> String {
    match report {
        Report::Cfg { function } => {
            let safe: String = function
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || "_-.+".contains(c) {
                        c
                    } else {
                        '_'
                    }
                })
                .collect();
            format!("{trace}.cfg.{safe}.dot")
        }
        r => format!("{trace}.{}.txt", r.command()),
    }
}

/// A box of the picture.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// Its left edge.
    pub x: f64,
    /// Its top edge.
    pub y: f64,
    /// Its width.
    pub w: f64,
    /// Its height.
    pub h: f64,
    /// Its text, a line each.
    pub lines: Vec<String>,
    /// The function's entry, a return or a place out of the function
    /// (drawn round), not a block.
    pub oval: bool,
    /// What `data-node` says of it: a block's start in hex, `entry`,
    /// `return` or `out 0x…`.
    pub id: String,
}

/// An arrow of the picture.
#[derive(Clone, Debug, PartialEq)]
pub struct Arrow {
    /// Its path, from its tail to its head.
    pub points: Vec<(f64, f64)>,
    /// Times taken.
    pub label: String,
    /// Where its label is drawn.
    pub label_at: (f64, f64),
    /// A fall-through, not a branch.
    pub dashed: bool,
}

/// The graph laid out, in pixels.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Picture {
    /// The picture's width.
    pub width: f64,
    /// The picture's height.
    pub height: f64,
    /// The boxes, top to bottom.
    pub nodes: Vec<Node>,
    /// The arrows: branches and fall-throughs.
    pub arrows: Vec<Arrow>,
}

const BOX_W: f64 = 250.0;
const LINE_H: f64 = 15.0;
const GAP: f64 = 26.0;
const LANE_W: f64 = 16.0;
const MARGIN: f64 = 8.0;

/// Lays `cfg` out; `name` names an address out of the function.
pub fn picture(cfg: &CfgReport, name: &dyn Fn(u64) -> String) -> Picture {
    let mut nodes = Vec::new();
    let push = |nodes: &mut Vec<Node>, lines: Vec<String>, oval: bool, id: String| {
        let y = nodes.last().map_or(MARGIN, |n: &Node| n.y + n.h + GAP);
        let h = LINE_H * lines.len() as f64 + 8.0;
        nodes.push(Node {
            x: MARGIN,
            y,
            w: BOX_W,
            h,
            lines,
            oval,
            id,
        });
        nodes.len() - 1
    };
    if cfg.blocks.is_empty() {
        push(
            &mut nodes,
            vec![
                cfg.function.clone(),
                t("no instruction of it ran").to_string(),
            ],
            true,
            "none".into(),
        );
        return finish(nodes, Vec::new(), 0);
    }
    let entry = (cfg.entries > 0)
        .then(|| push(&mut nodes, vec![cfg.function.clone()], true, "entry".into()));
    let first_block = nodes.len();
    for b in &cfg.blocks {
        push(
            &mut nodes,
            vec![
                format!("0x{:x}-0x{:x}", b.start, b.last),
                format!("{} instructions, ran {}", b.instructions, b.count),
            ],
            false,
            format!("0x{:x}", b.start),
        );
    }
    // Where each edge goes, its exits placed under the blocks, once each.
    let mut exits: Vec<(Target, usize)> = Vec::new();
    let mut edges = Vec::new();
    if let Some(e) = entry {
        edges.push((e, first_block, cfg.entries, false));
    }
    for e in &cfg.edges {
        let Some(from) = cfg.blocks.iter().position(|b| b.start == e.from) else {
            continue;
        };
        let to = match &e.to {
            Target::Block(s) => match cfg.blocks.iter().position(|b| b.start == *s) {
                Some(i) => first_block + i,
                None => continue,
            },
            other => match exits.iter().find(|(t, _)| t == other) {
                Some(&(_, i)) => i,
                None => {
                    let (lines, id) = match other {
                        Target::Out(a) => {
                            let n = name(*a);
                            let mut lines = vec![format!("0x{a:x}")];
                            if !n.is_empty() {
                                lines.insert(0, n);
                            }
                            (lines, format!("out 0x{a:x}"))
                        }
                        _ => (vec![t("return").to_string()], "return".to_string()),
                    };
                    let i = push(&mut nodes, lines, true, id);
                    exits.push((other.clone(), i));
                    i
                }
            },
        };
        edges.push((first_block + from, to, e.count, e.fall_through));
    }
    let mut arrows = Vec::new();
    // Lanes right of the boxes: each holds arrows whose spans do not meet.
    let mut lanes: Vec<Vec<(usize, usize)>> = Vec::new();
    let right = MARGIN + BOX_W;
    for &(from, to, count, dashed) in &edges {
        let (a, b) = (&nodes[from], &nodes[to]);
        if to == from + 1 {
            let x = a.x + a.w / 2.0;
            let (y0, y1) = (a.y + a.h, b.y);
            arrows.push(Arrow {
                points: vec![(x, y0), (x, y1)],
                label: count.to_string(),
                label_at: (x + 4.0, (y0 + y1) / 2.0 + 4.0),
                dashed,
            });
            continue;
        }
        let span = (from.min(to), from.max(to));
        let lane = match lanes
            .iter()
            .position(|l| l.iter().all(|&(lo, hi)| span.1 < lo || span.0 > hi))
        {
            Some(i) => i,
            None => {
                lanes.push(Vec::new());
                lanes.len() - 1
            }
        };
        lanes[lane].push(span);
        let x = right + LANE_W * (lane as f64 + 1.0);
        let y0 = a.y + a.h / 2.0;
        let y1 = b.y + b.h / 2.0;
        arrows.push(Arrow {
            points: vec![(right, y0), (x, y0), (x, y1), (right, y1)],
            label: count.to_string(),
            label_at: (x + 3.0, (y0 + y1) / 2.0),
            dashed,
        });
    }
    finish(nodes, arrows, lanes.len())
}

fn finish(nodes: Vec<Node>, arrows: Vec<Arrow>, lanes: usize) -> Picture {
    let height = nodes.last().map_or(0.0, |n| n.y + n.h) + MARGIN;
    // Room for the last lane's counts.
    let width = MARGIN + BOX_W + LANE_W * lanes as f64 + 60.0;
    Picture {
        width,
        height,
        nodes,
        arrows,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tarmac_lens_core::report::stats::cfg::{Block, Edge};

    fn block(start: u64) -> Block {
        Block {
            start,
            last: start + 4,
            instructions: 2,
            count: 3,
        }
    }

    fn edge(from: u64, to: Target, fall_through: bool) -> Edge {
        Edge {
            from,
            to,
            count: 7,
            fall_through,
        }
    }

    /// A loop (0x20 back to 0x10) and a branch over it (0x0 to 0x30),
    /// whose spans meet, and a return.
    fn graph() -> CfgReport {
        CfgReport {
            function: "f".into(),
            start: 0,
            end: 0x40,
            entries: 1,
            blocks: vec![block(0), block(0x10), block(0x20), block(0x30)],
            edges: vec![
                edge(0, Target::Block(0x10), true),
                edge(0, Target::Block(0x30), false),
                edge(0x10, Target::Block(0x20), true),
                edge(0x20, Target::Block(0x10), false),
                edge(0x30, Target::Return, false),
                edge(0x20, Target::Out(0x100), false),
            ],
        }
    }

    #[test]
    fn blocks_stand_in_address_order_under_the_entry_and_above_the_exits() {
        let p = picture(&graph(), &|a| {
            if a == 0x100 {
                "g".into()
            } else {
                String::new()
            }
        });
        let ids: Vec<&str> = p.nodes.iter().map(|n| n.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "entry",
                "0x0",
                "0x10",
                "0x20",
                "0x30",
                "return",
                "out 0x100"
            ]
        );
        assert!(p.nodes.windows(2).all(|w| w[0].y + w[0].h < w[1].y));
        assert_eq!(p.nodes[6].lines, ["g", "0x100"]);
        assert!(p.nodes.iter().all(|n| n.y + n.h <= p.height));
    }

    #[test]
    fn a_fall_through_goes_straight_down_and_crossing_branches_take_lanes_apart() {
        let p = picture(&graph(), &|_| String::new());
        // entry, then the six edges in order.
        assert_eq!(p.arrows.len(), 7);
        let down = &p.arrows[1];
        assert_eq!(down.points.len(), 2);
        assert_eq!(down.points[0].0, down.points[1].0);
        assert!(down.dashed);
        let lane = |a: &Arrow| a.points[1].0;
        let over = &p.arrows[2];
        let back = &p.arrows[4];
        assert_ne!(lane(over), lane(back), "their spans meet");
        // The back edge points up, to its target's middle.
        assert!(back.points[3].1 < back.points[0].1);
        let target = &p.nodes[2];
        assert_eq!(back.points[3].1, target.y + target.h / 2.0);
        assert!(p.arrows.iter().all(|a| a.label == "7" || a.label == "1"));
        assert!(p
            .arrows
            .iter()
            .flat_map(|a| &a.points)
            .all(|&(x, _)| x <= p.width));
    }

    #[test]
    fn spans_that_do_not_meet_share_a_lane() {
        let cfg = CfgReport {
            function: "f".into(),
            start: 0,
            end: 0x60,
            entries: 0,
            blocks: (0..6).map(|i| block(i * 0x10)).collect(),
            edges: vec![
                edge(0x10, Target::Block(0), false),
                edge(0x50, Target::Block(0x30), false),
            ],
        };
        let p = picture(&cfg, &|_| String::new());
        assert_eq!(p.arrows[0].points[1].0, p.arrows[1].points[1].0);
    }

    #[test]
    fn a_function_that_never_ran_is_said_so() {
        let cfg = CfgReport {
            function: "idle".into(),
            ..CfgReport::default()
        };
        let p = picture(&cfg, &|_| String::new());
        assert_eq!(p.nodes.len(), 1);
        assert_eq!(p.nodes[0].lines[1], "no instruction of it ran");
        assert!(p.arrows.is_empty());
    }

    #[test]
    fn downloads_are_named_for_the_command_and_the_function() {
        assert_eq!(file_name("t.log", &Report::Mix), "t.log.mix.txt");
        assert_eq!(
            file_name("t.log", &Report::CacheTlb { max: 20 }),
            "t.log.cache-tlb.txt"
        );
        let cfg = Report::Cfg {
            function: "a/b c".into(),
        };
        assert_eq!(file_name("t", &cfg), "t.cfg.a_b_c.dot");
        assert_eq!(StatisticKind::Cfg.report(true, "  "), None);
        assert_eq!(
            StatisticKind::Functions.report(false, ""),
            Some(Report::Functions {
                exceptions_in_calls: false
            })
        );
    }
}
