//! `tarmac-lens serve TRACE`: the trace browser's page, served on
//! 127.0.0.1, its questions answered here from the native index by the
//! same `Session::answer` a session worker runs (`serve_protocol.rs` says
//! what travels). Indexing uses every core and the index file, as `index`
//! does; the trace is never sent whole, only what each answer needs.
//!
//! Access: every URL sits under a random 128-bit token, the URL's first
//! path segment, so other users of the machine, who can reach the port
//! but not read the printed URL, get `403`. The token is a path segment,
//! not a query parameter, because the page's relative URLs (scripts, wasm,
//! workers, the API) then carry it with no cookie and no rewriting.

use std::borrow::Cow;
use std::io::Read;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use clap::Args;
use tiny_http::{Header, Method, Request, Response, Server, StatusCode};

use tarmac_lens::serve_protocol::{self, ElfOutcome, Opening, ServedElf};
use tarmac_lens_core::{
    protocol::{Fold, Query, Reply, RowOfNode, Rows, Step},
    BlockCache, Session, Stats, TraceSource,
};

use super::{display_name, index, input, Common};

mod socket;

#[derive(Args)]
pub struct ServeArgs {
    /// Port to listen on, on 127.0.0.1 only (default 0: a free port; the
    /// URL printed says which).
    #[arg(long, value_name = "N", default_value_t = 0)]
    port: u16,
    /// Serve the page from DIR (a `trunk build --release` dist directory,
    /// or the single-file build) instead of the one built into the binary.
    #[arg(long, value_name = "DIR")]
    page: Option<PathBuf>,
}

/// The page built in (build.rs: TARMAC_LENS_PAGE), by path below the root.
static EMBEDDED: &[(&str, &[u8])] = include!(concat!(env!("OUT_DIR"), "/page_files.rs"));

/// Largest question batch accepted: a page task asks a few dozen.
const MAX_ASK_BYTES: u64 = 16 << 20;

/// Largest ELF image the page may send.
const MAX_ELF_BYTES: u64 = 1 << 30;

/// Largest range read for one `trace` request; a request for more is
/// answered with this much (a range reader asks again from there).
const MAX_RANGE: u64 = 64 << 20;

/// Where the page's files come from.
enum Page {
    Dir(PathBuf),
    /// The single-file build: all of the page in one HTML file.
    File(PathBuf),
    Embedded,
}

impl Page {
    fn find(arg: Option<&Path>) -> Result<Page, String> {
        match arg {
            Some(p) if p.is_dir() => {
                if !p.join("index.html").is_file() {
                    return Err(format!(
                        "--page {}: no index.html in it (give a `trunk build --release` dist directory)",
                        p.display()
                    ));
                }
                Ok(Page::Dir(p.to_path_buf()))
            }
            Some(p) if p.is_file() => Ok(Page::File(p.to_path_buf())),
            Some(p) => Err(format!("--page {}: no such directory or file", p.display())),
            None if !EMBEDDED.is_empty() => Ok(Page::Embedded),
            None => Err(
                "this tarmac-lens has no web page built in: give --page DIR (a `trunk build \
                 --release` dist directory), or build it with scripts/build-serve.sh"
                    .into(),
            ),
        }
    }

    /// The file at `name` (a path below the page's root, `/`-separated).
    fn get(&self, name: &str) -> Option<Cow<'static, [u8]>> {
        // Only plain names below the root: never `..`, never absolute.
        let rel = Path::new(name);
        if name.is_empty() || !rel.components().all(|c| matches!(c, Component::Normal(_))) {
            return None;
        }
        let bytes: Cow<'static, [u8]> = match self {
            Page::Dir(dir) => Cow::Owned(std::fs::read(dir.join(rel)).ok()?),
            Page::File(file) if name == "index.html" => Cow::Owned(std::fs::read(file).ok()?),
            Page::File(_) => return None,
            Page::Embedded => Cow::Borrowed(EMBEDDED.iter().find(|(n, _)| *n == name)?.1),
        };
        if name == "index.html" {
            return Some(Cow::Owned(allow_self_connections(&bytes)));
        }
        Some(bytes)
    }
}

/// The single-file build's policy lets the page connect to nothing but
/// `blob:`; served, it talks to this server.
fn allow_self_connections(html: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(html);
    if text.contains("connect-src 'self'") {
        return html.to_vec();
    }
    text.replacen("connect-src ", "connect-src 'self' ", 1)
        .into_bytes()
}

/// The page with the [`Opening`] written into it
/// ([`serve_protocol::OPENING_ELEMENT`]), at the end of its body.
fn with_opening(html: &[u8], opening: &Opening) -> Vec<u8> {
    // `<` only occurs inside JSON strings, where `\u003c` means the same:
    // no `</script>` in a file name can end the element early.
    let json = serde_json::to_string(opening)
        .unwrap_or_default()
        .replace('<', "\\u003c");
    let element = format!(
        "<script type=\"application/json\" id=\"{}\">{json}</script>",
        serve_protocol::OPENING_ELEMENT
    );
    let at = html
        .windows(7)
        .rposition(|w| w.eq_ignore_ascii_case(b"</body>"))
        .unwrap_or(html.len());
    [&html[..at], element.as_bytes(), &html[at..]].concat()
}

fn content_type(name: &str) -> &'static str {
    match name.rsplit_once('.').map_or("", |(_, ext)| ext) {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "wasm" => "application/wasm",
        "css" => "text/css; charset=utf-8",
        "json" | "webmanifest" => "application/json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "ico" => "image/x-icon",
        "txt" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

/// 128 random bits from the OS, as hex.
fn new_token() -> Result<String, String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| format!("no random numbers from the OS: {e}"))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Compares without stopping at the first difference, so the time taken
/// says nothing about how much of a guess was right.
fn same_secret(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Record statistics, counted by a thread of their own while the page is
/// already answered.
enum Counted {
    Counting,
    Done(Box<Stats>),
    Failed(String),
}

/// The session and the views of the pages that ask it: one at a time,
/// whether a question comes by `api/ask` or by a page's socket.
struct Answers<S: TraceSource> {
    session: Session<BlockCache<S>>,
    views: Views,
}

impl<S: TraceSource> Answers<S> {
    /// A batch of questions (JSON), answered in order as a session worker
    /// does (JSON).
    fn batch(&mut self, page: &str, body: &[u8]) -> Result<Vec<u8>, String> {
        let asks: Vec<(u32, Query)> =
            serde_json::from_slice(body).map_err(|e| format!("not a list of questions: {e}"))?;
        let answers: Vec<(u32, Reply)> = asks
            .into_iter()
            .map(|(id, mut q)| {
                if let Some(view) = view_of(&mut q) {
                    *view = self.views.of(page, *view);
                }
                (id, self.session.answer(q))
            })
            .collect();
        serde_json::to_vec(&answers).map_err(|e| format!("an answer cannot be written: {e}"))
    }
}

type Shared<S> = Arc<Mutex<Answers<S>>>;

fn lock<S: TraceSource>(answers: &Shared<S>) -> std::sync::MutexGuard<'_, Answers<S>> {
    // A panic while answering leaves nothing half-changed that a later
    // question could misread: each answer is computed whole.
    answers.lock().unwrap_or_else(|e| e.into_inner())
}

struct Served<S: TraceSource> {
    token: String,
    page: Page,
    answers: Shared<S>,
    opening: Opening,
    /// `trace` requests, answered by a thread of their own with a second
    /// reader of the trace: a report reading the whole trace through a slow
    /// tunnel would otherwise hold every step back.
    text: std::sync::mpsc::Sender<Request>,
    elf: Option<Arc<[u8]>>,
    stats: Arc<Mutex<Counted>>,
    /// `--bi`, which images are checked against.
    big_endian: bool,
    verbose: bool,
}

pub fn cmd_serve(common: &Common, args: &ServeArgs) -> Result<(), String> {
    let page = Page::find(args.page.as_deref())?;
    let name = display_name(&common.trace);
    if input::is_stdin(&common.trace) {
        return Err("serve needs a trace file: standard input cannot be read again".into());
    }
    let started = Instant::now();
    let built = index::obtain(common)?;
    let parse = common.parse_options();
    let source = BlockCache::new(common.open_random()?);
    let mut session =
        Session::from_index(source, built.index, parse).map_err(|e| format!("{name}: {e}"))?;
    let (elf, elf_outcome) = match &common.image {
        Some(path) => {
            let elf_name = display_name(path);
            match std::fs::read(path) {
                Ok(bytes) => {
                    let bytes: Arc<[u8]> = bytes.into();
                    let load_offset = common.load_offset.unwrap_or(0);
                    let outcome = load_elf(&mut session, &bytes, load_offset, common.bi);
                    if let ElfOutcome::Failed(why) = &outcome {
                        eprintln!("tarmac-lens: warning: {}: {why}", path.display());
                    }
                    let served = ServedElf {
                        name: elf_name,
                        load_offset,
                        outcome,
                    };
                    (Some(bytes), Some(served))
                }
                Err(e) => return Err(format!("{}: {e}", path.display())),
            }
        }
        None => (None, None),
    };
    let opening = Opening {
        // The page shows the file's name, as for a dropped file.
        name: common
            .trace
            .file_name()
            .map_or_else(|| name.clone(), |n| n.to_string_lossy().into_owned()),
        bytes: session.progress().total_bytes,
        kind: session.file_kind().clone(),
        progress: session.progress(),
        elf: elf_outcome,
        implicit_thumb: parse.implicit_thumb,
        big_endian: parse.big_endian,
        cpu: parse.cpu,
    };
    let text = {
        let mut source = common.open_random()?;
        let verbose = common.verbose;
        let (tx, rx) = std::sync::mpsc::channel::<Request>();
        std::thread::spawn(move || {
            for request in rx {
                serve_text(&mut source, request, verbose);
            }
        });
        tx
    };
    let listener = std::net::TcpListener::bind(("127.0.0.1", args.port))
        .map_err(|e| format!("cannot listen on 127.0.0.1:{}: {e}", args.port))?;
    no_delay(&listener);
    let server = Server::from_listener(listener, None)
        .map_err(|e| format!("cannot listen on 127.0.0.1:{}: {e}", args.port))?;
    let port = server
        .server_addr()
        .to_ip()
        .map(|a| a.port())
        .ok_or("the server has no IP address")?;
    let token = new_token()?;
    let stats = Arc::new(Mutex::new(Counted::Counting));
    {
        let (stats, trace, quiet) = (stats.clone(), common.trace.clone(), common.quiet);
        std::thread::spawn(move || {
            yield_to_answers();
            let counted = input::Cache::default()
                .open(&trace, parse, input::Mode::Stream, quiet)
                .and_then(|s| {
                    tarmac_lens_core::compute_stats(s, parse, |_| {}).map_err(|e| e.to_string())
                });
            *stats.lock().unwrap_or_else(|e| e.into_inner()) = match counted {
                Ok(s) => Counted::Done(Box::new(s)),
                Err(e) => Counted::Failed(e),
            };
        });
    }
    super::write_stdout(&format!(
        "http://127.0.0.1:{port}/{token}/?{}=1\n",
        serve_protocol::PARAM
    ))?;
    if !common.quiet {
        eprintln!(
            "tarmac-lens: serving {name} on 127.0.0.1:{port} (ready in {:.1} s; Ctrl-C stops). \
             From another machine: ssh -L {port}:127.0.0.1:{port} THIS-HOST, then open the URL there.",
            started.elapsed().as_secs_f64()
        );
    }
    let mut served = Served {
        token,
        page,
        answers: Arc::new(Mutex::new(Answers {
            session,
            views: Views::default(),
        })),
        opening,
        text,
        elf,
        stats,
        big_endian: common.bi,
        verbose: common.verbose,
    };
    for request in server.incoming_requests() {
        served.handle(request);
    }
    Ok(())
}

/// Sends what is written at once: with Nagle's algorithm the end of an
/// answer longer than a segment waited for the browser's delayed ACK on a
/// kept-alive connection, about 40 ms a step (measured: step p50 56 ms).
/// Connections accepted inherit the option from the listening socket.
#[cfg(unix)]
fn no_delay(listener: &std::net::TcpListener) {
    use std::os::fd::AsRawFd;
    let one: libc::c_int = 1;
    // SAFETY: `setsockopt` on a socket `listener` keeps open for the call,
    // with a value of the type and size TCP_NODELAY takes.
    let done = unsafe {
        libc::setsockopt(
            listener.as_raw_fd(),
            libc::IPPROTO_TCP,
            libc::TCP_NODELAY,
            (&one as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        )
    };
    if done != 0 {
        eprintln!(
            "tarmac-lens: warning: TCP_NODELAY: {}",
            std::io::Error::last_os_error()
        );
    }
}

#[cfg(not(unix))]
fn no_delay(_: &std::net::TcpListener) {}

/// Gives the calling thread the lowest priority that still progresses
/// (nice 19): counting the statistics of a big trace takes a core for as
/// long as indexing took, and the answers (and a browser on the same
/// machine loading the page) come first. At nice 10 a fresh browser's first
/// screen, opened as `serve` started, came 40-80 ms later; at `SCHED_IDLE`
/// a busy machine starved the count (45 ms of work took 21 s beside ten
/// busy loops), and the page says it is ready only once it is counted.
#[cfg(target_os = "linux")]
fn yield_to_answers() {
    // SAFETY: a plain system call on the calling thread (Linux gives each
    // thread its own nice value, named by its thread id).
    unsafe {
        libc::setpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t, 19);
    }
}

#[cfg(not(target_os = "linux"))]
fn yield_to_answers() {}

/// Loads symbols and source lines as the session worker does
/// (`web/worker/session`).
fn load_elf<S: TraceSource>(
    session: &mut Session<S>,
    bytes: &Arc<[u8]>,
    load_offset: i64,
    big_endian: bool,
) -> ElfOutcome {
    match session.load_elf(bytes, load_offset, big_endian) {
        Ok((symbols, warning)) => {
            let warning = match session.load_debug_info(bytes.clone(), load_offset) {
                Ok(_) => warning,
                Err(e) => {
                    let dwarf = format!("no source lines: {e}");
                    Some(warning.map_or(dwarf.clone(), |w| format!("{w}; {dwarf}")))
                }
            };
            ElfOutcome::Loaded { symbols, warning }
        }
        Err(e) => ElfOutcome::Failed(e.to_string()),
    }
}

fn header(name: &str, value: &str) -> Header {
    Header::from_bytes(name.as_bytes(), value.as_bytes())
        .expect("header names and values are ASCII")
}

fn text(status: u16, body: &str) -> Response<std::io::Cursor<Vec<u8>>> {
    Response::from_string(body)
        .with_status_code(StatusCode(status))
        .with_header(header("Content-Type", "text/plain; charset=utf-8"))
}

/// A request's body of at most `max` bytes, or the answer refusing it.
fn body(
    request: &mut Request,
    max: u64,
    what: &str,
) -> Result<Vec<u8>, Response<std::io::Cursor<Vec<u8>>>> {
    let mut body = Vec::new();
    if let Err(e) = request.as_reader().take(max + 1).read_to_end(&mut body) {
        return Err(text(400, &format!("reading {what}: {e}\n")));
    }
    if body.len() as u64 > max {
        return Err(text(413, &format!("{what}: more than {max} bytes\n")));
    }
    Ok(body)
}

fn json(body: Vec<u8>) -> Response<std::io::Cursor<Vec<u8>>> {
    Response::from_data(body).with_header(header("Content-Type", "application/json"))
}

impl<S: TraceSource + Send + 'static> Served<S> {
    fn handle(&mut self, mut request: Request) {
        let started = Instant::now();
        let url = request.url().to_string();
        let (path, query) = url.split_once('?').unwrap_or((&url, ""));
        let rest = path.strip_prefix('/').unwrap_or(path);
        let (secret, rest) = match rest.split_once('/') {
            Some((secret, rest)) => (secret, Some(rest)),
            None => (rest, None),
        };
        if !same_secret(secret.as_bytes(), self.token.as_bytes()) {
            respond(
                request,
                text(
                    403,
                    "403 Forbidden: this Tarmac Lens server answers only the URL it printed \
                     (with its token).\n",
                ),
            );
            return;
        }
        let Some(rest) = rest else {
            // `/TOKEN`: the page's relative URLs need the slash.
            let to = if query.is_empty() {
                format!("/{secret}/")
            } else {
                format!("/{secret}/?{query}")
            };
            respond(
                request,
                Response::empty(StatusCode(308)).with_header(header("Location", &to)),
            );
            return;
        };
        let method = request.method().clone();
        let what = rest.to_string();
        match (&method, rest) {
            (Method::Post, serve_protocol::ASK) => {
                let reply = self.ask(&mut request, query);
                respond(request, reply);
            }
            (Method::Post, serve_protocol::ELF) => {
                let reply = self.post_elf(&mut request, query);
                respond(request, reply);
            }
            (Method::Get, serve_protocol::SOCKET) => {
                let page = param(query, "page").unwrap_or_default();
                socket::accept(request, self.answers.clone(), page, self.verbose);
            }
            (Method::Get, serve_protocol::OPEN) => {
                let body = serde_json::to_vec(&self.opening).unwrap_or_default();
                respond(request, json(body));
            }
            (Method::Get, serve_protocol::STATS) => {
                let reply = match &*self.stats.lock().unwrap_or_else(|e| e.into_inner()) {
                    Counted::Counting => text(204, ""),
                    Counted::Done(stats) => json(serde_json::to_vec(stats).unwrap_or_default()),
                    Counted::Failed(why) => text(500, &format!("counting records: {why}\n")),
                };
                respond(request, reply);
            }
            (Method::Get | Method::Head, serve_protocol::TRACE) => {
                if let Err(back) = self.text.send(request) {
                    respond(back.0, text(500, "the trace's reader stopped\n"));
                }
            }
            (Method::Get | Method::Head, serve_protocol::ELF) => match &self.elf {
                Some(bytes) => respond(
                    request,
                    Response::from_data(bytes.to_vec())
                        .with_header(header("Content-Type", "application/octet-stream")),
                ),
                None => respond(
                    request,
                    text(404, "no ELF image: serve was given no --image\n"),
                ),
            },
            (Method::Get | Method::Head, name) => {
                let name = if name.is_empty() { "index.html" } else { name };
                match self.page.get(name) {
                    Some(bytes) => {
                        let bytes = match name {
                            "index.html" => with_opening(&bytes, &self.opening),
                            _ => bytes.into_owned(),
                        };
                        respond(
                            request,
                            Response::from_data(bytes)
                                .with_header(header("Content-Type", content_type(name))),
                        )
                    }
                    None => respond(request, text(404, "404 Not Found\n")),
                }
            }
            _ => respond(request, text(405, "405 Method Not Allowed\n")),
        }
        if self.verbose {
            eprintln!(
                "tarmac-lens: {method} {what}: {:.2} ms",
                started.elapsed().as_secs_f64() * 1e3
            );
        }
    }

    /// Answers a batch of questions in order, as a session worker does.
    fn ask(&mut self, request: &mut Request, query: &str) -> Response<std::io::Cursor<Vec<u8>>> {
        let body = match body(request, MAX_ASK_BYTES, "the questions") {
            Ok(b) => b,
            Err(refused) => return refused,
        };
        let page = param(query, "page").unwrap_or_default();
        match lock(&self.answers).batch(&page, &body) {
            Ok(answers) => json(answers),
            Err(why) => text(400, &format!("{why}\n")),
        }
    }

    /// Loads an ELF image the page was given (`?name=N&offset=O`, the
    /// image as the body), as the command's `--image`.
    fn post_elf(
        &mut self,
        request: &mut Request,
        query: &str,
    ) -> Response<std::io::Cursor<Vec<u8>>> {
        let param = |key: &str| param(query, key);
        let Ok(load_offset) = param("offset").unwrap_or_default().parse::<i64>() else {
            return text(400, "the load offset is not a number\n");
        };
        let name = param("name").unwrap_or_else(|| "image.elf".into());
        let body = match body(request, MAX_ELF_BYTES, "the image") {
            Ok(b) => b,
            Err(refused) => return refused,
        };
        let bytes: Arc<[u8]> = body.into();
        let big_endian = self.big_endian;
        let outcome = load_elf(
            &mut lock(&self.answers).session,
            &bytes,
            load_offset,
            big_endian,
        );
        if matches!(outcome, ElfOutcome::Loaded { .. }) {
            self.elf = Some(bytes);
            self.opening.elf = Some(ServedElf {
                name,
                load_offset,
                outcome: outcome.clone(),
            });
        }
        json(serde_json::to_vec(&outcome).unwrap_or_default())
    }
}

/// The trace's text (a compressed trace's decompressed text), whole or
/// the byte range asked for.
fn serve_text<S: TraceSource>(source: &mut S, request: Request, verbose: bool) {
    let total = source.len();
    let range = request
        .headers()
        .iter()
        .find(|h| h.field.equiv("Range"))
        .map(|h| h.value.as_str().to_string());
    let (from, to, partial) = match range.as_deref().map(|r| parse_range(r, total)) {
        None => (0, total, false),
        Some(Some((from, to))) => (from, to.min(from + MAX_RANGE), true),
        Some(None) => {
            respond(
                request,
                text(416, "416 Range Not Satisfiable\n")
                    .with_header(header("Content-Range", &format!("bytes */{total}"))),
            );
            return;
        }
    };
    let mut headers = vec![
        header("Content-Type", "text/plain; charset=utf-8"),
        header("Accept-Ranges", "bytes"),
    ];
    headers.extend(guard_headers());
    if partial {
        headers.push(header(
            "Content-Range",
            &format!("bytes {from}-{}/{total}", to - 1),
        ));
    }
    let len = to - from;
    let reader = SourceReader {
        source,
        at: from,
        end: to,
    };
    let status = if partial { 206 } else { 200 };
    let response = Response::new(
        StatusCode(status),
        headers,
        reader,
        usize::try_from(len).ok(),
        None,
    );
    if let Err(e) = request.respond(response) {
        if verbose {
            eprintln!("tarmac-lens: sending the trace: {e}");
        }
    }
}

/// Nothing kept in caches, nothing guessed from a body, the token never
/// sent on as a referrer.
fn guard_headers() -> [Header; 3] {
    [
        header("Cache-Control", "no-store"),
        header("X-Content-Type-Options", "nosniff"),
        header("Referrer-Policy", "no-referrer"),
    ]
}

fn respond<R: Read>(request: Request, mut response: Response<R>) {
    for h in guard_headers() {
        response.add_header(h);
    }
    // A page closed mid-answer is no error of the server's.
    let _ = request.respond(response);
}

/// `bytes=A-B`, `bytes=A-` or `bytes=-N` as `[from, to)` within `total`;
/// `None` for a range outside it or one this server does not serve
/// (several ranges).
fn parse_range(header: &str, total: u64) -> Option<(u64, u64)> {
    let spec = header.trim().strip_prefix("bytes=")?.trim();
    if spec.contains(',') {
        return None;
    }
    let (a, b) = spec.split_once('-')?;
    let (from, to) = match (a.trim(), b.trim()) {
        ("", n) => {
            let n: u64 = n.parse().ok()?;
            (total.saturating_sub(n), total)
        }
        (a, "") => (a.parse().ok()?, total),
        (a, b) => (
            a.parse().ok()?,
            b.parse::<u64>().ok()?.saturating_add(1).min(total),
        ),
    };
    (from < to).then_some((from, to))
}

/// The value of query parameter `key`.
fn param(query: &str, key: &str) -> Option<String> {
    query
        .split('&')
        .find_map(|kv| kv.strip_prefix(key)?.strip_prefix('='))
        .map(percent_decoded)
}

/// The view a question's folds belong to.
fn view_of(q: &mut Query) -> Option<&mut u32> {
    match q {
        Query::Rows(Rows { view, .. })
        | Query::RowOfNode(RowOfNode { view, .. })
        | Query::Step(Step { view, .. })
        | Query::Fold(Fold { view, .. }) => Some(view),
        _ => None,
    }
}

/// Each page numbers its views from 0 (`?page=` says which page asks):
/// the session's view numbers keep two pages' folds apart, as two tabs
/// with a worker each would be.
#[derive(Default)]
struct Views {
    of: std::collections::HashMap<(String, u32), u32>,
}

impl Views {
    fn of(&mut self, page: &str, view: u32) -> u32 {
        let next = u32::try_from(self.of.len()).unwrap_or(u32::MAX);
        *self.of.entry((page.to_string(), view)).or_insert(next)
    }
}

/// `%XX` escapes undone (a query parameter's value); `+` is a space.
fn percent_decoded(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match bytes[i] {
            b'%' if i + 2 < bytes.len() => match (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                (Some(h), Some(l)) => {
                    out.push((h * 16 + l) as u8);
                    i += 3;
                    continue;
                }
                _ => out.push(b'%'),
            },
            b'+' => out.push(b' '),
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A byte range of a trace source as a reader, for a response body.
struct SourceReader<'a, S> {
    source: &'a mut S,
    at: u64,
    end: u64,
}

impl<S: TraceSource> Read for SourceReader<'_, S> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let want = buf
            .len()
            .min(usize::try_from(self.end - self.at).unwrap_or(usize::MAX));
        if want == 0 {
            return Ok(0);
        }
        let n = self
            .source
            .read_at(self.at, &mut buf[..want])
            .map_err(|e| std::io::Error::other(e.to_string()))?;
        if n == 0 {
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "the trace ended early (was it cut since it was indexed?)",
            ));
        }
        self.at += n as u64;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tarmac_lens_core::SliceSource;

    #[test]
    fn ranges() {
        assert_eq!(parse_range("bytes=0-0", 10), Some((0, 1)));
        assert_eq!(parse_range("bytes=2-", 10), Some((2, 10)));
        assert_eq!(parse_range("bytes=-3", 10), Some((7, 10)));
        assert_eq!(parse_range("bytes=5-100", 10), Some((5, 10)));
        assert_eq!(parse_range("bytes=10-", 10), None);
        assert_eq!(parse_range("bytes=0-1,3-4", 10), None);
        assert_eq!(parse_range("lines=0-1", 10), None);
        assert_eq!(parse_range("bytes=x-1", 10), None);
    }

    #[test]
    fn query_values_are_decoded() {
        assert_eq!(percent_decoded("a%20b+c"), "a b c");
        assert_eq!(percent_decoded("caf%C3%A9.elf"), "café.elf");
        assert_eq!(percent_decoded("100%"), "100%");
        assert_eq!(percent_decoded("%zz%4"), "%zz%4");
    }

    #[test]
    fn each_page_has_views_of_its_own() {
        let mut views = Views::default();
        assert_eq!(views.of("a", 0), 0);
        assert_eq!(views.of("b", 0), 1);
        assert_eq!(views.of("a", 1), 2);
        assert_eq!(views.of("a", 0), 0);
        assert_eq!(views.of("b", 0), 1);
    }

    #[test]
    fn secrets_compare_whole() {
        assert!(same_secret(b"abcd", b"abcd"));
        assert!(!same_secret(b"abcd", b"abce"));
        assert!(!same_secret(b"abc", b"abcd"));
        assert!(!same_secret(b"", b"abcd"));
    }

    #[test]
    fn a_page_file_is_never_outside_the_page() {
        let page = Page::Dir(PathBuf::from("/"));
        assert!(page.get("../etc/passwd").is_none());
        assert!(page.get("/etc/passwd").is_none());
        assert!(page.get("").is_none());
    }

    #[test]
    fn the_single_file_build_may_talk_to_its_server() {
        let html = br#"<meta http-equiv="Content-Security-Policy" content="default-src 'none'; connect-src blob:">"#;
        let served = String::from_utf8(allow_self_connections(html)).unwrap();
        assert!(served.contains("connect-src 'self' blob:"), "{served}");
        let dist = br#"content="connect-src 'self' blob: data:""#;
        assert_eq!(allow_self_connections(dist), dist.to_vec());
    }

    #[test]
    fn a_range_reads_its_bytes() {
        let mut source = SliceSource(b"0123456789");
        let mut out = Vec::new();
        SourceReader {
            source: &mut source,
            at: 3,
            end: 7,
        }
        .read_to_end(&mut out)
        .unwrap();
        assert_eq!(out, b"3456");
    }
}
