use std::collections::BTreeSet;

use serde::de::{self, Deserialize, Deserializer, Visitor};
use serde::Serialize;
use tarmac_lens_core::{
    protocol::{FoldOp, Locate, Query, RegMark, Reply, WriteTarget},
    ParseOptions, SearchQuery, Session, SliceSource,
};

use super::*;

/// A deserializer that only records the variant names serde knows of an
/// enum: every variant, whatever the lists here say.
struct Names(&'static [&'static str]);

#[derive(Debug)]
struct Stop;

impl std::fmt::Display for Stop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("names recorded")
    }
}

impl std::error::Error for Stop {}

impl de::Error for Stop {
    fn custom<T: std::fmt::Display>(_: T) -> Self {
        Stop
    }
}

impl<'de> Deserializer<'de> for &mut Names {
    type Error = Stop;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Stop> {
        Err(Stop)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        variants: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Stop> {
        self.0 = variants;
        Err(Stop)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct identifier ignored_any
    }
}

/// Every variant of enum `T`, by name.
fn variants<'de, T: Deserialize<'de>>() -> BTreeSet<&'static str> {
    let mut names = Names(&[]);
    let _ = T::deserialize(&mut names);
    assert!(!names.0.is_empty(), "not an enum");
    names.0.iter().copied().collect()
}

/// The variant name of a value of an externally tagged enum.
fn tag(value: &impl Serialize) -> String {
    match serde_json::to_value(value).unwrap() {
        serde_json::Value::String(name) => name,
        serde_json::Value::Object(map) if map.len() == 1 => map.keys().next().unwrap().clone(),
        other => panic!("not an enum variant: {other}"),
    }
}

fn answered() -> Vec<(Query, Reply)> {
    let mut session = Session::open(SliceSource(TRACE), ParseOptions::default()).unwrap();
    while !session.index_step(4096).unwrap().complete {}
    assert!(session.load_debug_info(ELF.into(), 0).unwrap());
    ask_all(|q| session.answer(q))
}

#[test]
fn every_sample_question_is_answered_without_error() {
    let asked = answered();
    let failed: Vec<String> = asked
        .iter()
        .filter_map(|(q, r)| match r {
            Reply::Error(e) => Some(format!("{q:?}: {e}")),
            _ => None,
        })
        .collect();
    assert!(failed.is_empty(), "{failed:#?}");
    let at_line = asked
        .iter()
        .find(|(q, _)| *q == Query::Locate(Locate::Line(LINE)));
    match at_line {
        Some((_, Reply::Locate(Some(n)))) => assert_eq!(n.node, NODE, "the node of line {LINE}"),
        other => panic!("line {LINE}: {other:?}"),
    }
    let searches = asked
        .iter()
        .filter(|(q, _)| matches!(q, Query::Search(SearchQuery::More { .. })))
        .count();
    assert_eq!(searches, 1, "the follow-ups continue the last search");
}

#[test]
fn the_samples_ask_every_variant_and_get_every_kind_of_answer() {
    let asked = answered();
    let mut seen: [BTreeSet<String>; 6] = Default::default();
    for (q, _) in &asked {
        seen[0].insert(tag(q));
        match q {
            Query::Locate(l) => seen[1].insert(tag(l)),
            Query::Registers(r) => seen[2].insert(tag(&r.mark)),
            Query::Write(w) => seen[3].insert(tag(&w.target)),
            Query::Fold(f) => seen[4].insert(tag(&f.op)),
            Query::Search(s) => seen[5].insert(tag(s)),
            _ => false,
        };
    }
    let all = [
        variants::<Query>(),
        variants::<Locate>(),
        variants::<RegMark>(),
        variants::<WriteTarget>(),
        variants::<FoldOp>(),
        variants::<SearchQuery>(),
    ];
    for (all, seen) in all.iter().zip(&seen) {
        let seen: BTreeSet<&str> = seen.iter().map(String::as_str).collect();
        let missing: Vec<_> = all.difference(&seen).collect();
        assert!(missing.is_empty(), "no sample question of {missing:?}");
    }
    // Each kind of answer the page decodes, but an error.
    let replies: BTreeSet<String> = asked.iter().map(|(_, r)| tag(r)).collect();
    let mut wanted = variants::<Reply>();
    wanted.remove("Error");
    let replies: BTreeSet<&str> = replies.iter().map(String::as_str).collect();
    assert_eq!(replies, wanted);
}
