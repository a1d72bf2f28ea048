//! `tarmac-lens serve`: every request without the printed URL's token is
//! refused; the questions posted get the answers a `browse::Session` gives
//! over the same trace in this process (every `Query` variant, through the
//! sample's questions); a gzip or Zstandard copy answers as the plain
//! trace; the trace's text by byte ranges is the file's (a compressed
//! copy's decompressed text); the statistics are `stats`'.
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use tarmac_lens::serve_protocol::{ElfOutcome, Opening};
use tarmac_lens_core::{
    protocol::{
        CallStack, Fold, FoldOp, Locate, Memory, Query, RegMark, Registers, Reply, Rows, Step,
        WriteTarget,
    },
    ParseOptions, Session, SliceSource, Stats,
};

use crate::common::{data, tarmac_lens, Dir};

const TRACE: &str = "tracegen/quicksort-aarch64-O2-fastmodel-2M";

const PAGE: &str =
    "<!doctype html><title>served page</title><body><div id=app></div></body></html>";

/// A running `serve`, stopped when dropped.
struct Server {
    child: Child,
    port: u16,
    /// The URL's path: `/TOKEN/`.
    base: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve(dir: &Dir, trace: &Path, elf: Option<&[u8]>) -> Server {
    let page = dir.write("page/index.html", PAGE.as_bytes());
    let mut cmd = tarmac_lens();
    cmd.arg("serve")
        .arg(trace)
        .arg("--page")
        .arg(page.parent().unwrap())
        .arg("-q");
    if let Some(elf) = elf {
        cmd.arg("--image").arg(dir.write("image.elf", elf));
    }
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("tarmac-lens starts");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line.trim();
    let rest = url
        .strip_prefix("http://127.0.0.1:")
        .unwrap_or_else(|| panic!("not a local URL: {url:?}"));
    let (port, path) = rest.split_once('/').unwrap();
    let (path, query) = path.split_once('?').unwrap();
    assert_eq!(query, "serve=1", "{url}");
    let token = path.trim_end_matches('/');
    assert_eq!(token.len(), 32, "128 bits in hex: {url}");
    assert!(token.bytes().all(|b| b.is_ascii_hexdigit()), "{url}");
    Server {
        child,
        port: port.parse().unwrap(),
        base: format!("/{token}/"),
    }
}

struct Answer {
    status: u16,
    headers: String,
    body: Vec<u8>,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.lines().find_map(|l| {
            let (n, v) = l.split_once(':')?;
            n.eq_ignore_ascii_case(name).then(|| v.trim())
        })
    }
}

/// One HTTP/1.1 request on a connection of its own.
fn http(port: u16, method: &str, path: &str, extra: &str, body: &[u8]) -> Answer {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n{extra}Content-Length: {}\r\n\r\n",
        body.len()
    )
    .unwrap();
    s.write_all(body).unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a header");
    let headers = String::from_utf8_lossy(&raw[..split]).into_owned();
    let status = headers.split(' ').nth(1).unwrap().parse().unwrap();
    let mut body = raw[split + 4..].to_vec();
    if headers
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        body = unchunk(&body);
    }
    Answer {
        status,
        headers,
        body,
    }
}

fn unchunk(mut raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let eol = raw.windows(2).position(|w| w == b"\r\n").unwrap();
        let size =
            usize::from_str_radix(std::str::from_utf8(&raw[..eol]).unwrap().trim(), 16).unwrap();
        if size == 0 {
            return out;
        }
        out.extend_from_slice(&raw[eol + 2..eol + 2 + size]);
        raw = &raw[eol + 4 + size..];
    }
}

impl Server {
    fn get(&self, what: &str) -> Answer {
        self.request("GET", what, "", b"")
    }

    /// `method` of `what` below the token, with `extra` header lines.
    fn request(&self, method: &str, what: &str, extra: &str, body: &[u8]) -> Answer {
        http(
            self.port,
            method,
            &format!("{}{what}", self.base),
            extra,
            body,
        )
    }

    fn ask(&self, questions: &[Query]) -> Vec<Reply> {
        self.ask_as("p", questions)
    }

    /// `questions` asked by page `page`.
    fn ask_as(&self, page: &str, questions: &[Query]) -> Vec<Reply> {
        let batch: Vec<(u32, Query)> = questions
            .iter()
            .cloned()
            .enumerate()
            .map(|(i, q)| (i as u32 + 7, q))
            .collect();
        let a = self.request(
            "POST",
            &format!("api/ask?page={page}"),
            "",
            serde_json::to_string(&batch).unwrap().as_bytes(),
        );
        assert_eq!(a.status, 200, "{}", String::from_utf8_lossy(&a.body));
        let answers: Vec<(u32, Reply)> = serde_json::from_slice(&a.body).unwrap();
        let ids: Vec<u32> = answers.iter().map(|(id, _)| *id).collect();
        assert_eq!(ids, (7..7 + questions.len() as u32).collect::<Vec<_>>());
        answers.into_iter().map(|(_, r)| r).collect()
    }

    fn stats(&self) -> Stats {
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            let a = self.get("api/stats");
            match a.status {
                200 => return serde_json::from_slice(&a.body).unwrap(),
                204 if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(50)),
                s => panic!("api/stats: {s} {}", String::from_utf8_lossy(&a.body)),
            }
        }
    }
}

/// The answers of a session in this process, indexed here.
fn native_session<'a>(trace: &'a [u8], elf: Option<&[u8]>) -> Session<SliceSource<'a>> {
    let mut s = Session::open(SliceSource(trace), ParseOptions::default()).unwrap();
    while !s.index_step(1 << 20).unwrap().complete {}
    if let Some(elf) = elf {
        s.load_elf(elf, 0, false).unwrap();
        s.load_debug_info(elf.into(), 0).unwrap();
    }
    s
}

/// Questions about the quicksort trace: its rows, a step, registers,
/// memory, a write, the call stack, a search.
fn quicksort_questions() -> Vec<Query> {
    vec![
        Query::Rows(Rows {
            view: 0,
            first: 0,
            count: 60,
        }),
        Query::Locate(Locate::Line(5000)),
        Query::Step(Step {
            view: 0,
            node: 2000,
            delta: 1,
        }),
        Query::Registers(Registers {
            node: 2001,
            mark: RegMark::Written,
        }),
        Query::Memory(Memory {
            node: 2001,
            addr: 0x8_0000,
            len: 256,
            compare: Some(2000),
        }),
        Query::Write(tarmac_lens_core::protocol::Write {
            node: 2001,
            target: WriteTarget::Register("x0".into()),
            forward: false,
        }),
        Query::CallStack(CallStack { node: 2001 }),
        Query::Locate(Locate::End),
    ]
}

#[test]
fn requests_without_the_token_are_refused() {
    let dir = Dir::new("refused");
    let trace = dir.write(
        "t.tarmac",
        std::fs::read(data(&format!("{TRACE}.tarmac"))).unwrap(),
    );
    let server = serve(&dir, &trace, None);
    let token = server.base.trim_matches('/').to_string();
    let mut wrong = token.clone().into_bytes();
    wrong[31] = if wrong[31] == b'0' { b'1' } else { b'0' };
    let wrong = String::from_utf8(wrong).unwrap();
    let asks = serde_json::to_string(&vec![(1u32, Query::Locate(Locate::Start))]).unwrap();
    for (method, path, body) in [
        ("GET", "/".to_string(), ""),
        ("GET", "/index.html".to_string(), ""),
        ("GET", "/api/open".to_string(), ""),
        ("GET", format!("/{wrong}/"), ""),
        ("GET", format!("/{wrong}/api/open"), ""),
        ("GET", format!("/{wrong}/trace"), ""),
        ("POST", format!("/{wrong}/api/ask"), asks.as_str()),
        ("GET", format!("/{}/", &token[..31]), ""),
        ("GET", format!("/{token}0/"), ""),
        ("GET", format!("/x/../{token}/api/open"), ""),
    ] {
        let a = http(server.port, method, &path, "", body.as_bytes());
        assert_eq!(a.status, 403, "{method} {path}");
        let text = String::from_utf8_lossy(&a.body);
        assert!(text.contains("Forbidden"), "{method} {path}: {text}");
        assert!(!text.contains("served page") && !text.contains("quicksort"));
    }
    // With the token: the page, and the slash its relative URLs need.
    let page = server.get("");
    assert_eq!(page.status, 200);
    let (before, rest) = PAGE.split_once("</body>").unwrap();
    let body = String::from_utf8(page.body.clone()).unwrap();
    let written = body
        .strip_prefix(before)
        .and_then(|b| b.strip_suffix(&format!("</body>{rest}")))
        .unwrap_or_else(|| panic!("the page, with one element more: {body}"));
    assert!(written.starts_with(&format!(
        "<script type=\"application/json\" id=\"{}\">",
        tarmac_lens::serve_protocol::OPENING_ELEMENT
    )));
    assert_eq!(
        page.header("Content-Type"),
        Some("text/html; charset=utf-8")
    );
    let bare = http(server.port, "GET", &format!("/{token}?serve=1"), "", b"");
    assert_eq!(bare.status, 308);
    assert_eq!(
        bare.header("Location"),
        Some(format!("/{token}/?serve=1").as_str())
    );
    assert_eq!(server.get("../page/index.html").status, 404);
    assert_eq!(server.get("nothing.js").status, 404);
    // Questions that are not questions: refused, the server still answers.
    let bad = server.request("POST", "api/ask", "", b"{\"not\": \"a list\"}");
    assert_eq!(bad.status, 400);
    assert_eq!(server.ask(&[Query::Locate(Locate::Start)]).len(), 1);
}

/// The page carries what `api/open` says, so that it opens the trace as it
/// starts; nothing in a name ends its element early.
#[test]
fn the_page_carries_the_opening() {
    let dir = Dir::new("carries");
    let name = "a<!--<script>b&amp;.tarmac";
    let trace = dir.write(name, tarmac_lens::sample::TRACE);
    let server = serve(&dir, &trace, None);
    let page = String::from_utf8(server.get("").body).unwrap();
    let start = format!(
        "<script type=\"application/json\" id=\"{}\">",
        tarmac_lens::serve_protocol::OPENING_ELEMENT
    );
    let json = page.split_once(&start).expect("the element").1;
    let json = json.split_once("</script>").expect("its end").0;
    assert!(!json.contains('<'), "{json}");
    let written: Opening = serde_json::from_str(json).unwrap();
    let asked: Opening = serde_json::from_slice(&server.get("api/open").body).unwrap();
    assert_eq!(written, asked);
    assert_eq!(written.name, name);
}

#[test]
fn answers_are_a_native_sessions() {
    let dir = Dir::new("sample");
    let trace = dir.write("sample.tarmac", tarmac_lens::sample::TRACE);
    let elf = tarmac_lens::sample::ELF;
    let server = serve(&dir, &trace, Some(elf));
    let opening: Opening = serde_json::from_slice(&server.get("api/open").body).unwrap();
    assert_eq!(opening.name, "sample.tarmac");
    assert_eq!(opening.bytes, tarmac_lens::sample::TRACE.len() as u64);
    assert!(opening.progress.complete);
    let served_elf = opening.elf.expect("the image");
    assert!(
        matches!(served_elf.outcome, ElfOutcome::Loaded { symbols, .. } if symbols > 0),
        "{served_elf:?}"
    );
    let mut native = native_session(tarmac_lens::sample::TRACE, Some(elf));
    assert_eq!(&opening.kind, native.file_kind());
    // Every question of the sample (every `Query` variant), in one batch,
    // then its follow-ups in another, as a page task would ask them.
    let questions = tarmac_lens::sample::questions();
    let want: Vec<Reply> = questions.iter().map(|q| native.answer(q.clone())).collect();
    let got = server.ask(&questions);
    for ((q, g), w) in questions.iter().zip(&got).zip(&want) {
        assert_eq!(g, w, "{q:?}");
    }
    let follow = tarmac_lens::sample::follow_ups(&want);
    assert!(!follow.is_empty());
    let want: Vec<Reply> = follow.iter().map(|q| native.answer(q.clone())).collect();
    assert_eq!(server.ask(&follow), want);
    // Not all errors: the comparison means something.
    assert!(got.iter().filter(|r| matches!(r, Reply::Error(_))).count() < got.len() / 4);
    // The image is served for the panes that read it themselves.
    assert_eq!(server.get("elf").body, elf);
}

/// The page's socket to the server, with the page name `page`, or the
/// HTTP status refusing it.
fn socket(
    server: &Server,
    token: &str,
    page: &str,
) -> Result<tungstenite::WebSocket<TcpStream>, u16> {
    let stream = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    let url = format!(
        "ws://127.0.0.1:{}/{token}/api/socket?page={page}",
        server.port
    );
    match tungstenite::client(url, stream) {
        Ok((socket, _)) => Ok(socket),
        Err(tungstenite::HandshakeError::Failure(tungstenite::Error::Http(r))) => {
            Err(r.status().as_u16())
        }
        Err(e) => panic!("the handshake failed: {e}"),
    }
}

#[test]
fn a_socket_answers_batches_in_order_as_posted() {
    let dir = Dir::new("socket");
    let trace = dir.write("sample.tarmac", tarmac_lens::sample::TRACE);
    let elf = tarmac_lens::sample::ELF;
    let server = serve(&dir, &trace, Some(elf));
    let token = server.base.trim_matches('/').to_string();
    let mut native = native_session(tarmac_lens::sample::TRACE, Some(elf));
    let questions = tarmac_lens::sample::questions();
    let want: Vec<Reply> = questions.iter().map(|q| native.answer(q.clone())).collect();
    // Three batches sent before any answer is read (as a page sends its
    // next task's questions), answered in order, one message each.
    let mut ws = socket(&server, &token, "s").expect("the socket opens");
    let batches: Vec<Vec<(u32, Query)>> = questions
        .iter()
        .cloned()
        .enumerate()
        .map(|(i, q)| (i as u32 + 100, q))
        .collect::<Vec<_>>()
        .chunks(questions.len().div_ceil(3))
        .map(<[_]>::to_vec)
        .collect();
    assert_eq!(batches.len(), 3);
    for batch in &batches {
        let text = serde_json::to_string(batch).unwrap();
        ws.send(tungstenite::Message::text(text)).unwrap();
    }
    let mut got = Vec::new();
    for batch in &batches {
        let tungstenite::Message::Text(text) = ws.read().unwrap() else {
            panic!("answers are text");
        };
        let answers: Vec<(u32, Reply)> = serde_json::from_str(text.as_str()).unwrap();
        let ids: Vec<u32> = answers.iter().map(|(id, _)| *id).collect();
        assert_eq!(ids, batch.iter().map(|(id, _)| *id).collect::<Vec<_>>());
        got.extend(answers.into_iter().map(|(_, r)| r));
    }
    for ((q, g), w) in questions.iter().zip(&got).zip(&want) {
        assert_eq!(g, w, "{q:?}");
    }
    // Posting still works while a socket is open.
    assert_eq!(server.ask(&[Query::Locate(Locate::Start)]).len(), 1);
    // Not JSON text: the socket closes saying why; the server goes on.
    ws.send(tungstenite::Message::text("{\"not\": \"a list\"}"))
        .unwrap();
    match ws.read() {
        Ok(tungstenite::Message::Close(Some(frame))) => {
            assert_eq!(u16::from(frame.code), 1007, "{frame:?}");
            assert!(
                frame.reason.contains("not a list of questions"),
                "{frame:?}"
            );
        }
        other => panic!("a close frame, not {other:?}"),
    }
    let mut ws = socket(&server, &token, "s").expect("a second socket opens");
    ws.send(tungstenite::Message::binary(vec![1u8, 2, 3]))
        .unwrap();
    match ws.read() {
        Ok(tungstenite::Message::Close(Some(frame))) => assert_eq!(u16::from(frame.code), 1003),
        other => panic!("a close frame, not {other:?}"),
    }
    // Without the token, no socket; without an upgrade, a clear refusal.
    let mut wrong = token.clone().into_bytes();
    wrong[0] = if wrong[0] == b'a' { b'b' } else { b'a' };
    let refused = socket(&server, std::str::from_utf8(&wrong).unwrap(), "s");
    assert_eq!(refused.err(), Some(403));
    let plain = server.get("api/socket?page=s");
    assert_eq!(plain.status, 426);
    assert!(String::from_utf8_lossy(&plain.body).contains("WebSocket"));
    assert_eq!(server.ask(&[Query::Locate(Locate::End)]).len(), 1);
}

#[test]
fn a_compressed_trace_answers_as_the_plain_one() {
    let text = std::fs::read(data(&format!("{TRACE}.tarmac"))).unwrap();
    let elf = std::fs::read(data(&format!("{TRACE}.elf"))).unwrap();
    let dir = Dir::new("compressed");
    let plain = dir.write("q.tarmac", &text);
    let gz = {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(&text).unwrap();
        dir.write("q.tarmac.gz", e.finish().unwrap())
    };
    let zst = dir.write("q.tarmac.zst", zstd::encode_all(&text[..], 3).unwrap());
    let questions = quicksort_questions();
    let mut native = native_session(&text, Some(&elf));
    let want: Vec<Reply> = questions.iter().map(|q| native.answer(q.clone())).collect();
    assert!(
        want.iter().all(|r| !matches!(r, Reply::Error(_))),
        "{want:?}"
    );
    let stats =
        tarmac_lens_core::compute_stats(SliceSource(&text), ParseOptions::default(), |_| {})
            .unwrap();
    for trace in [&plain, &gz, &zst] {
        let name = trace.file_name().unwrap().to_string_lossy().into_owned();
        for run in ["built", "reused"] {
            let server = serve(&dir, trace, Some(&elf));
            let got = server.ask(&questions);
            for ((q, g), w) in questions.iter().zip(&got).zip(&want) {
                assert_eq!(g, w, "{name} ({run} index): {q:?}");
            }
            let opening: Opening = serde_json::from_slice(&server.get("api/open").body).unwrap();
            assert_eq!(opening.name, name);
            assert_eq!(opening.bytes, text.len() as u64, "{name}");
            // The text by ranges, as the report worker reads it: the
            // decompressed text of a compressed trace.
            let head = server.request("GET", "trace", "Range: bytes=0-0\r\n", b"");
            assert_eq!(head.status, 206, "{name}");
            assert_eq!(
                head.header("Content-Range"),
                Some(format!("bytes 0-0/{}", text.len()).as_str())
            );
            assert_eq!(head.body, &text[..1]);
            let mid = server.request("GET", "trace", "Range: bytes=100000-165535\r\n", b"");
            assert_eq!(mid.status, 206);
            assert_eq!(mid.body, &text[100_000..165_536], "{name}");
            let past = server.request(
                "GET",
                "trace",
                &format!("Range: bytes={}-\r\n", text.len()),
                b"",
            );
            assert_eq!(past.status, 416);
            assert_eq!(server.stats(), stats, "{name}");
        }
        // The second run reused the index file the first wrote.
        let mut index = trace.clone().into_os_string();
        index.push(".index");
        assert!(Path::new(&index).exists(), "{name}");
    }
    let server = serve(&dir, &plain, None);
    let whole = server.get("trace");
    assert_eq!(whole.status, 200);
    assert_eq!(whole.body, text);
}

#[test]
fn serve_without_a_page_says_how_to_get_one() {
    let dir = Dir::new("nopage");
    let trace = dir.write("t.tarmac", tarmac_lens::sample::TRACE);
    let out = tarmac_lens()
        .arg("serve")
        .arg(&trace)
        .arg("--page")
        .arg(dir.path().join("missing"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--page") && err.contains("missing"), "{err}");
    assert!(out.stdout.is_empty());
}

#[test]
fn each_page_folds_its_own_views() {
    let dir = Dir::new("views");
    let text = std::fs::read(data(&format!("{TRACE}.tarmac"))).unwrap();
    let trace = dir.write("q.tarmac", &text);
    let server = serve(&dir, &trace, None);
    let opening: Opening = serde_json::from_slice(&server.get("api/open").body).unwrap();
    assert_eq!(
        (opening.implicit_thumb, opening.big_endian, opening.cpu),
        (false, false, None)
    );
    let rows = Query::Rows(Rows {
        view: 0,
        first: 0,
        count: 200,
    });
    let before = server.ask_as("b", std::slice::from_ref(&rows));
    let fold = Query::Fold(Fold {
        view: 0,
        node: 2000,
        op: FoldOp::FoldAll,
    });
    let folded = server.ask_as("a", &[fold, rows.clone()]);
    assert!(matches!(folded[0], Reply::Fold(_)), "{:?}", folded[0]);
    assert_ne!(folded[1], before[0], "page a's view 0 is folded");
    assert_eq!(server.ask_as("b", std::slice::from_ref(&rows)), before);
    // As a session in this process with page a's folds.
    let mut native = native_session(&text, None);
    let fold = Query::Fold(Fold {
        view: 9,
        node: 2000,
        op: FoldOp::FoldAll,
    });
    native.answer(fold);
    let rows9 = Query::Rows(Rows {
        view: 9,
        first: 0,
        count: 200,
    });
    assert_eq!(native.answer(rows9), folded[1]);
}

#[test]
fn an_image_posted_by_the_page_is_loaded_as_image_is() {
    let dir = Dir::new("elf");
    let trace = dir.write("sample.tarmac", tarmac_lens::sample::TRACE);
    let elf = tarmac_lens::sample::ELF;
    let server = serve(&dir, &trace, None);
    assert_eq!(server.get("elf").status, 404);
    let questions = tarmac_lens::sample::questions();
    let bare = server.ask(&questions);
    let a = server.request("POST", "elf?name=caf%C3%A9.elf&offset=0", "", elf);
    assert_eq!(a.status, 200, "{}", String::from_utf8_lossy(&a.body));
    let outcome: ElfOutcome = serde_json::from_slice(&a.body).unwrap();
    assert!(
        matches!(outcome, ElfOutcome::Loaded { symbols, .. } if symbols > 0),
        "{outcome:?}"
    );
    let opening: Opening = serde_json::from_slice(&server.get("api/open").body).unwrap();
    assert_eq!(opening.elf.map(|e| e.name), Some("café.elf".to_string()));
    assert_eq!(server.get("elf").body, elf);
    // Answers now name symbols, as a session given the image does.
    let mut native = native_session(tarmac_lens::sample::TRACE, Some(elf));
    let want: Vec<Reply> = questions.iter().map(|q| native.answer(q.clone())).collect();
    let got = server.ask(&questions);
    assert_ne!(got, bare, "the image changed some answer");
    for ((q, g), w) in questions.iter().zip(&got).zip(&want) {
        // The server's session numbered the searches asked before it.
        let (mut g, mut w) = (g.clone(), w.clone());
        if let (Reply::Search(g), Reply::Search(w)) = (&mut g, &mut w) {
            g.id = w.id;
        }
        assert_eq!(g, w, "{q:?}");
    }
    // Not an ELF image: said, and the session keeps the one it has.
    let bad = server.request("POST", "elf?name=x&offset=0", "", b"not an image");
    let outcome: ElfOutcome = serde_json::from_slice(&bad.body).unwrap();
    assert!(matches!(outcome, ElfOutcome::Failed(_)), "{outcome:?}");
    assert_eq!(server.get("elf").body, elf);
    let offset = server.request("POST", "elf?offset=x", "", elf);
    assert_eq!(offset.status, 400);
}
