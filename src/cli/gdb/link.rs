//! The byte stream to gdb: a TCP connection or standard input and output.
//! A thread reads the input into a channel, so the stub can ask whether a
//! byte (an interrupt) waits without blocking, whatever the stream is.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::io::{self, Read, Write};
use std::rc::Rc;
use std::sync::mpsc::{self, Receiver, TryRecvError};

use gdbstub::conn::{Connection, ConnectionExt};

pub struct Link {
    incoming: Receiver<Vec<u8>>,
    pending: VecDeque<u8>,
    out: io::BufWriter<Box<dyn Write + Send>>,
}

impl Link {
    /// Reads `input` on a thread of its own until it ends or fails.
    pub fn new(mut input: Box<dyn Read + Send>, out: Box<dyn Write + Send>) -> Link {
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut buf = vec![0u8; 64 << 10];
            loop {
                match input.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        if tx.send(buf[..n].to_vec()).is_err() {
                            break;
                        }
                    }
                }
            }
        });
        Link {
            incoming: rx,
            pending: VecDeque::new(),
            out: io::BufWriter::new(out),
        }
    }

    fn closed() -> io::Error {
        io::Error::new(io::ErrorKind::UnexpectedEof, "gdb closed the connection")
    }
}

impl Connection for Link {
    type Error = io::Error;

    fn write(&mut self, byte: u8) -> io::Result<()> {
        self.out.write_all(&[byte])
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.out.write_all(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

impl ConnectionExt for Link {
    fn read(&mut self) -> io::Result<u8> {
        while self.pending.is_empty() {
            let chunk = self.incoming.recv().map_err(|_| Link::closed())?;
            self.pending.extend(chunk);
        }
        Ok(self.pending.pop_front().expect("not empty"))
    }

    fn peek(&mut self) -> io::Result<Option<u8>> {
        if self.pending.is_empty() {
            match self.incoming.try_recv() {
                Ok(chunk) => self.pending.extend(chunk),
                Err(TryRecvError::Empty) => return Ok(None),
                Err(TryRecvError::Disconnected) => return Err(Link::closed()),
            }
        }
        Ok(self.pending.front().copied())
    }
}

/// A [`Link`] gdbstub can own while the session keeps it: gdbstub ends
/// its state machine on a packet it cannot parse, and the session goes on
/// with a new one over the same link.
#[derive(Clone)]
pub struct Shared(pub Rc<RefCell<Link>>);

impl Connection for Shared {
    type Error = io::Error;

    fn write(&mut self, byte: u8) -> io::Result<()> {
        self.0.borrow_mut().write(byte)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.0.borrow_mut().write_all(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        Connection::flush(&mut *self.0.borrow_mut())
    }
}

impl ConnectionExt for Shared {
    fn read(&mut self) -> io::Result<u8> {
        self.0.borrow_mut().read()
    }

    fn peek(&mut self) -> io::Result<Option<u8>> {
        self.0.borrow_mut().peek()
    }
}
