//! What ties a question to its answer. Each question the trace browser
//! asks is a type of its own ([`super::protocol::Rows`],
//! [`super::disassembly::Disassembly`], …) whose [`Question::Answer`] is the
//! type of its answer, so `session.ask(Rows { .. })` gives a
//! [`super::protocol::RowsReply`] and asking for the wrong one does not
//! compile. The wire between the page, its worker and `serve` carries the
//! [`super::Query`] and [`super::Reply`] enums, which `questions!` makes
//! from the list in `browse/mod.rs`, one variant per question on each
//! side: adding a question is its type, its [`Answerable`] impl (next to
//! the code that answers it) and one line of that list.

use crate::source::TraceSource;
use crate::Result;

use super::Session;

/// A question on the wire: its answer's type, and how both travel in
/// [`super::Query`] and [`super::Reply`] (implemented by `questions!`).
pub trait Question: Into<super::Query> + Sized {
    /// What the session answers it with.
    type Answer;
    /// The answer out of the reply to this question: `Err` is the
    /// session's message when it could not answer ([`super::Reply::Error`]),
    /// or says the reply is to another question (a broken wire).
    fn answer_of(reply: super::Reply) -> std::result::Result<Self::Answer, String>;
}

/// How a [`Session`] answers a question; implemented beside the code that
/// does it.
pub trait Answerable: Question {
    /// Answers it; `Err` when it cannot (a position beyond the part
    /// indexed, a read that failed, a bad expression).
    fn answer<S: TraceSource>(self, session: &mut Session<S>) -> Result<Self::Answer>;

    /// Whether it needs the index: all but text search, which reads the
    /// trace itself.
    const NEEDS_INDEX: bool = true;

    /// Instances of the question about the sample trace `at` describes, one
    /// of each of its forms: what the page's warm-up asks, and what the
    /// protocol's tests send over every wire.
    fn examples(at: &Example) -> Vec<Self>;
}

/// What a question's [`Answerable::examples`] may name: positions and
/// things of a sample trace with its ELF image.
#[derive(Clone, Debug)]
pub struct Example {
    /// A node well inside the trace (not its first).
    pub node: super::protocol::NodeId,
    /// Its first line.
    pub line: u64,
    /// A view of its own for questions that change a view's folds.
    pub fold_view: u32,
    /// An address the trace's stack uses.
    pub stack: u64,
    /// A function's address in the image.
    pub function: u64,
    /// A source file of the image's line table, and one of its lines with
    /// code.
    pub file: String,
    /// That line.
    pub source_line: u32,
}

/// Makes the wire enums from the list of questions: `Variant(Question)`,
/// one per line. Each gets a [`super::Query`] variant holding it and a
/// [`super::Reply`] variant of the same name holding its answer, with
/// [`Question`] implemented, [`super::Session::answer`] dispatching a
/// query to its [`Answerable::answer`], and [`super::Query::examples`]
/// gathering every question's examples.
macro_rules! questions {
    ($(
        $(#[$doc:meta])*
        $variant:ident($question:ty) -> $answer:ty;
    )*) => {
        /// A question to a [`Session`], on the wire (see
        /// [`question::Question`]). Queries that show rows name a *view*:
        /// each trace pane numbers its own (any `u32`) and has its own
        /// folds, so folding in one pane leaves another's rows alone.
        #[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
        pub enum Query {
            $($(#[$doc])* $variant($question),)*
        }

        /// An answer of a [`Session`], on the wire: the variant of the
        /// question's name, holding its [`question::Question::Answer`].
        #[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
        pub enum Reply {
            $($(#[$doc])* $variant($answer),)*
            /// The query could not be answered (bad expression, beyond the
            /// indexed part, read error): a message for the person.
            Error(String),
        }

        $(
            impl From<$question> for Query {
                fn from(q: $question) -> Query {
                    Query::$variant(q)
                }
            }

            impl question::Question for $question {
                type Answer = $answer;

                fn answer_of(reply: Reply) -> std::result::Result<$answer, String> {
                    match reply {
                        Reply::$variant(a) => Ok(a),
                        Reply::Error(e) => Err(e),
                        other => Err(format!(
                            "the answer to {} came for another question: {other:?}",
                            stringify!($variant)
                        )),
                    }
                }
            }
        )*

        impl Query {
            /// The question's name (its variant's).
            pub fn name(&self) -> &'static str {
                match self {
                    $(Query::$variant(_) => stringify!($variant),)*
                }
            }

            /// Every question's [`question::Answerable::examples`], in
            /// the list's order.
            pub fn examples(at: &question::Example) -> Vec<Query> {
                let mut all = Vec::new();
                $(all.extend(
                    <$question as question::Answerable>::examples(at)
                        .into_iter()
                        .map(Query::$variant),
                );)*
                all
            }
        }

        impl<S: TraceSource> Session<S> {
            /// Answers one query from the wire: [`Session::ask`] for the
            /// question it holds, its answer or error as a [`Reply`].
            pub fn answer(&mut self, query: Query) -> Reply {
                match query {
                    $(Query::$variant(q) => match self.ask(q) {
                        Ok(a) => Reply::$variant(a),
                        Err(e) => Reply::Error(e.to_string()),
                    },)*
                }
            }
        }
    };
}

pub(super) use questions;
