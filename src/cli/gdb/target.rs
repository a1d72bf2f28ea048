//! gdbstub's side: the protocol's target traits answered from a
//! [`Timeline`]. Cores are threads (thread id = core number + 1), writes
//! are refused (a trace is history), a resume is carried out when the
//! event loop asks for its stop.

use std::marker::PhantomData;
use std::num::NonZeroUsize;

use gdbstub::arch::Arch;
use gdbstub::common::{Signal, Tid};
use gdbstub::conn::ConnectionExt;
use gdbstub::stub::run_blocking::{self, BlockingEventLoop};
use gdbstub::stub::MultiThreadStopReason;
use gdbstub::target::ext::base::multithread::{
    MultiThreadBase, MultiThreadRangeStepping, MultiThreadRangeSteppingOps, MultiThreadResume,
    MultiThreadResumeOps, MultiThreadSchedulerLocking, MultiThreadSchedulerLockingOps,
    MultiThreadSingleStep, MultiThreadSingleStepOps,
};
use gdbstub::target::ext::base::reverse_exec::ReplayLogPosition;
use gdbstub::target::ext::base::reverse_exec::{
    ReverseCont, ReverseContOps, ReverseStep, ReverseStepOps,
};
use gdbstub::target::ext::base::BaseOps;
use gdbstub::target::ext::breakpoints::{
    Breakpoints, BreakpointsOps, HwBreakpoint, HwBreakpointOps, HwWatchpoint, HwWatchpointOps,
    SwBreakpoint, SwBreakpointOps, WatchKind,
};
use gdbstub::target::ext::monitor_cmd::{outputln, ConsoleOutput, MonitorCmd, MonitorCmdOps};
use gdbstub::target::ext::target_description_xml_override::{
    TargetDescriptionXmlOverride, TargetDescriptionXmlOverrideOps,
};
use gdbstub::target::ext::thread_extra_info::{ThreadExtraInfo, ThreadExtraInfoOps};
use gdbstub::target::{Target, TargetError, TargetResult};

use super::link::Shared;
use super::monitor;
use super::regs::{Addr, RegBlock};
use super::timeline::{Motion, Stop, Timeline};

/// EFAULT: what gdb reads as memory it cannot access.
const EFAULT: u8 = 14;

/// A resume asked for, carried out by the event loop.
#[derive(Clone, Copy, Debug)]
struct Pending {
    core: usize,
    motion: Motion,
    forward: bool,
}

pub struct Debugger<A> {
    pub timeline: Timeline,
    xml: String,
    pending: Option<Pending>,
    /// The resume actions of the `vCont` being read.
    step: Option<usize>,
    range: Option<(usize, u64, u64)>,
    _arch: PhantomData<A>,
}

impl<A> Debugger<A> {
    pub fn new(timeline: Timeline, xml: String) -> Debugger<A> {
        Debugger {
            timeline,
            xml,
            pending: None,
            step: None,
            range: None,
            _arch: PhantomData,
        }
    }
}

fn core_of(tid: Tid) -> usize {
    tid.get() - 1
}

fn tid_of(core: usize) -> Tid {
    NonZeroUsize::new(core + 1).expect("core + 1 is not zero")
}

/// A query that failed on the trace (a read error): said on standard
/// error, answered to gdb as an error reply.
fn nonfatal<E>(e: String) -> TargetError<E> {
    eprintln!("tarmac-lens: gdbserver: {e}");
    TargetError::NonFatal
}

impl<A> Target for Debugger<A>
where
    A: Arch<Registers = RegBlock<<A as Arch>::Usize>>,
    A::Usize: Addr,
{
    type Arch = A;
    type Error = String;

    fn base_ops(&mut self) -> BaseOps<'_, A, String> {
        BaseOps::MultiThread(self)
    }

    fn support_breakpoints(&mut self) -> Option<BreakpointsOps<'_, Self>> {
        Some(self)
    }

    fn support_monitor_cmd(&mut self) -> Option<MonitorCmdOps<'_, Self>> {
        Some(self)
    }

    fn support_target_description_xml_override(
        &mut self,
    ) -> Option<TargetDescriptionXmlOverrideOps<'_, Self>> {
        Some(self)
    }
}

impl<A> MultiThreadBase for Debugger<A>
where
    A: Arch<Registers = RegBlock<<A as Arch>::Usize>>,
    A::Usize: Addr,
{
    fn read_registers(
        &mut self,
        regs: &mut RegBlock<A::Usize>,
        tid: Tid,
    ) -> TargetResult<(), Self> {
        let core = core_of(tid);
        if core >= self.timeline.cores.len() {
            return Err(TargetError::NonFatal);
        }
        regs.bytes = self.timeline.registers(core).map_err(nonfatal)?;
        regs.pc = A::Usize::from_u64(self.timeline.pc(core).map_err(nonfatal)?);
        Ok(())
    }

    fn write_registers(&mut self, _regs: &RegBlock<A::Usize>, _tid: Tid) -> TargetResult<(), Self> {
        Err(TargetError::NonFatal)
    }

    fn read_addrs(
        &mut self,
        start: A::Usize,
        data: &mut [u8],
        tid: Tid,
    ) -> TargetResult<usize, Self> {
        let core = core_of(tid);
        if core >= self.timeline.cores.len() {
            return Err(TargetError::NonFatal);
        }
        let n = (self.timeline)
            .read_memory(core, start.to_u64(), data)
            .map_err(nonfatal)?;
        if n == 0 && !data.is_empty() {
            return Err(TargetError::Errno(EFAULT));
        }
        Ok(n)
    }

    fn write_addrs(&mut self, _start: A::Usize, _data: &[u8], _tid: Tid) -> TargetResult<(), Self> {
        Err(TargetError::NonFatal)
    }

    fn list_active_threads(&mut self, active: &mut dyn FnMut(Tid)) -> Result<(), String> {
        for c in 0..self.timeline.cores.len() {
            active(tid_of(c));
        }
        Ok(())
    }

    fn support_resume(&mut self) -> Option<MultiThreadResumeOps<'_, Self>> {
        Some(self)
    }

    fn support_thread_extra_info(&mut self) -> Option<ThreadExtraInfoOps<'_, Self>> {
        Some(self)
    }
}

impl<A> MultiThreadResume for Debugger<A>
where
    A: Arch<Registers = RegBlock<<A as Arch>::Usize>>,
    A::Usize: Addr,
{
    fn resume(&mut self) -> Result<(), String> {
        let current = self.timeline.current();
        let (core, motion) = match (self.step, self.range) {
            (Some(c), _) => (c, Motion::Step),
            (None, Some((c, s, e))) => (c, Motion::Range(s, e)),
            (None, None) => (current, Motion::Continue),
        };
        self.pending = Some(Pending {
            core,
            motion,
            forward: true,
        });
        Ok(())
    }

    fn clear_resume_actions(&mut self) -> Result<(), String> {
        self.step = None;
        self.range = None;
        Ok(())
    }

    fn set_resume_action_continue(
        &mut self,
        _tid: Tid,
        _signal: Option<Signal>,
    ) -> Result<(), String> {
        Ok(())
    }

    fn support_single_step(&mut self) -> Option<MultiThreadSingleStepOps<'_, Self>> {
        Some(self)
    }

    fn support_range_step(&mut self) -> Option<MultiThreadRangeSteppingOps<'_, Self>> {
        Some(self)
    }

    fn support_reverse_step(&mut self) -> Option<ReverseStepOps<'_, Tid, Self>> {
        Some(self)
    }

    fn support_reverse_cont(&mut self) -> Option<ReverseContOps<'_, Tid, Self>> {
        Some(self)
    }

    fn support_scheduler_locking(&mut self) -> Option<MultiThreadSchedulerLockingOps<'_, Self>> {
        Some(self)
    }
}

impl<A> MultiThreadSingleStep for Debugger<A>
where
    A: Arch<Registers = RegBlock<<A as Arch>::Usize>>,
    A::Usize: Addr,
{
    fn set_resume_action_step(&mut self, tid: Tid, _signal: Option<Signal>) -> Result<(), String> {
        self.step = Some(core_of(tid).min(self.timeline.cores.len() - 1));
        Ok(())
    }
}

impl<A> MultiThreadRangeStepping for Debugger<A>
where
    A: Arch<Registers = RegBlock<<A as Arch>::Usize>>,
    A::Usize: Addr,
{
    fn set_resume_action_range_step(
        &mut self,
        tid: Tid,
        start: A::Usize,
        end: A::Usize,
    ) -> Result<(), String> {
        let core = core_of(tid).min(self.timeline.cores.len() - 1);
        self.range = Some((core, start.to_u64(), end.to_u64()));
        Ok(())
    }
}

impl<A> MultiThreadSchedulerLocking for Debugger<A>
where
    A: Arch<Registers = RegBlock<<A as Arch>::Usize>>,
    A::Usize: Addr,
{
    // A recorded run moves one core at a time anyway: a step moves the
    // stepped core, a continue stops at the first event of any.
    fn set_resume_action_scheduler_lock(&mut self) -> Result<(), String> {
        Ok(())
    }
}

impl<A> ReverseStep<Tid> for Debugger<A>
where
    A: Arch<Registers = RegBlock<<A as Arch>::Usize>>,
    A::Usize: Addr,
{
    fn reverse_step(&mut self, tid: Tid) -> Result<(), String> {
        self.pending = Some(Pending {
            core: core_of(tid).min(self.timeline.cores.len() - 1),
            motion: Motion::Step,
            forward: false,
        });
        Ok(())
    }
}

impl<A> ReverseCont<Tid> for Debugger<A>
where
    A: Arch<Registers = RegBlock<<A as Arch>::Usize>>,
    A::Usize: Addr,
{
    fn reverse_cont(&mut self) -> Result<(), String> {
        self.pending = Some(Pending {
            core: self.timeline.current(),
            motion: Motion::Continue,
            forward: false,
        });
        Ok(())
    }
}

impl<A> Breakpoints for Debugger<A>
where
    A: Arch<Registers = RegBlock<<A as Arch>::Usize>>,
    A::Usize: Addr,
{
    fn support_sw_breakpoint(&mut self) -> Option<SwBreakpointOps<'_, Self>> {
        Some(self)
    }
    fn support_hw_breakpoint(&mut self) -> Option<HwBreakpointOps<'_, Self>> {
        Some(self)
    }
    fn support_hw_watchpoint(&mut self) -> Option<HwWatchpointOps<'_, Self>> {
        Some(self)
    }
}

impl<A> SwBreakpoint for Debugger<A>
where
    A: Arch<Registers = RegBlock<<A as Arch>::Usize>>,
    A::Usize: Addr,
{
    fn add_sw_breakpoint(
        &mut self,
        addr: A::Usize,
        _kind: A::BreakpointKind,
    ) -> TargetResult<bool, Self> {
        self.timeline.add_break(addr.to_u64(), false);
        Ok(true)
    }
    fn remove_sw_breakpoint(
        &mut self,
        addr: A::Usize,
        _kind: A::BreakpointKind,
    ) -> TargetResult<bool, Self> {
        Ok(self.timeline.remove_break(addr.to_u64(), false))
    }
}

impl<A> HwBreakpoint for Debugger<A>
where
    A: Arch<Registers = RegBlock<<A as Arch>::Usize>>,
    A::Usize: Addr,
{
    fn add_hw_breakpoint(
        &mut self,
        addr: A::Usize,
        _kind: A::BreakpointKind,
    ) -> TargetResult<bool, Self> {
        self.timeline.add_break(addr.to_u64(), true);
        Ok(true)
    }
    fn remove_hw_breakpoint(
        &mut self,
        addr: A::Usize,
        _kind: A::BreakpointKind,
    ) -> TargetResult<bool, Self> {
        Ok(self.timeline.remove_break(addr.to_u64(), true))
    }
}

impl<A> HwWatchpoint for Debugger<A>
where
    A: Arch<Registers = RegBlock<<A as Arch>::Usize>>,
    A::Usize: Addr,
{
    fn add_hw_watchpoint(
        &mut self,
        addr: A::Usize,
        len: A::Usize,
        kind: WatchKind,
    ) -> TargetResult<bool, Self> {
        self.timeline.add_watch(addr.to_u64(), len.to_u64(), kind);
        Ok(true)
    }
    fn remove_hw_watchpoint(
        &mut self,
        addr: A::Usize,
        len: A::Usize,
        kind: WatchKind,
    ) -> TargetResult<bool, Self> {
        Ok(self
            .timeline
            .remove_watch(addr.to_u64(), len.to_u64(), kind))
    }
}

impl<A> MonitorCmd for Debugger<A>
where
    A: Arch<Registers = RegBlock<<A as Arch>::Usize>>,
    A::Usize: Addr,
{
    fn handle_monitor_cmd(&mut self, cmd: &[u8], mut out: ConsoleOutput<'_>) -> Result<(), String> {
        let text = monitor::run(&mut self.timeline, &String::from_utf8_lossy(cmd));
        for line in text.lines() {
            outputln!(out, "{line}");
        }
        Ok(())
    }
}

impl<A> TargetDescriptionXmlOverride for Debugger<A>
where
    A: Arch<Registers = RegBlock<<A as Arch>::Usize>>,
    A::Usize: Addr,
{
    fn target_description_xml(
        &self,
        annex: &[u8],
        offset: u64,
        length: usize,
        buf: &mut [u8],
    ) -> TargetResult<usize, Self> {
        if annex != b"target.xml" {
            return Err(TargetError::NonFatal);
        }
        let xml = self.xml.as_bytes();
        let start = (offset as usize).min(xml.len());
        let end = start.saturating_add(length).min(xml.len());
        let n = (end - start).min(buf.len());
        buf[..n].copy_from_slice(&xml[start..start + n]);
        Ok(n)
    }
}

impl<A> ThreadExtraInfo for Debugger<A>
where
    A: Arch<Registers = RegBlock<<A as Arch>::Usize>>,
    A::Usize: Addr,
{
    fn thread_extra_info(&self, tid: Tid, buf: &mut [u8]) -> Result<usize, String> {
        let core = core_of(tid);
        if core >= self.timeline.cores.len() {
            return Ok(0);
        }
        let name = self.timeline.core_name(core);
        let n = name.len().min(buf.len());
        buf[..n].copy_from_slice(&name.as_bytes()[..n]);
        Ok(n)
    }
}

/// The event loop: a resume is carried out at once (a search over the
/// index, not a run), so the stop is known when gdb waits for it.
pub struct EventLoop<A>(PhantomData<A>);

impl<A> BlockingEventLoop for EventLoop<A>
where
    A: Arch<Registers = RegBlock<<A as Arch>::Usize>>,
    A::Usize: Addr,
{
    type Target = Debugger<A>;
    type Connection = Shared;
    type StopReason = MultiThreadStopReason<A::Usize>;

    fn wait_for_stop_reason(
        target: &mut Debugger<A>,
        conn: &mut Shared,
    ) -> Result<
        run_blocking::Event<MultiThreadStopReason<A::Usize>>,
        run_blocking::WaitForStopReasonError<String, std::io::Error>,
    > {
        let Some(p) = target.pending.take() else {
            let byte = conn
                .read()
                .map_err(run_blocking::WaitForStopReasonError::Connection)?;
            return Ok(run_blocking::Event::IncomingData(byte));
        };
        let stop = match target.timeline.resume(p.core, p.motion, p.forward) {
            Ok(stop) => stop,
            Err(e) => {
                // A read error mid-search: the stop is where it started.
                eprintln!("tarmac-lens: gdbserver: {e}");
                Stop::Step(p.core)
            }
        };
        let reason = match stop {
            Stop::Step(c) => MultiThreadStopReason::SignalWithThread {
                tid: tid_of(c),
                signal: Signal::SIGTRAP,
            },
            Stop::Break(c, false) => MultiThreadStopReason::SwBreak(tid_of(c)),
            Stop::Break(c, true) => MultiThreadStopReason::HwBreak(tid_of(c)),
            Stop::Watch(c, kind, addr) => MultiThreadStopReason::Watch {
                tid: tid_of(c),
                kind,
                addr: A::Usize::from_u64(addr),
            },
            Stop::Begin(c) => MultiThreadStopReason::ReplayLog {
                tid: Some(tid_of(c)),
                pos: ReplayLogPosition::Begin,
            },
            Stop::End(c) => MultiThreadStopReason::ReplayLog {
                tid: Some(tid_of(c)),
                pos: ReplayLogPosition::End,
            },
        };
        Ok(run_blocking::Event::TargetStopped(reason))
    }

    fn on_interrupt(
        _target: &mut Debugger<A>,
    ) -> Result<Option<MultiThreadStopReason<A::Usize>>, String> {
        Ok(Some(MultiThreadStopReason::Signal(Signal::SIGINT)))
    }
}
