//! Dialect detection and the extra record types end to end: through
//! `Parser::parse_line` and the dump renderer, on the spec worked examples
//! (inlined) and on the sample traces in the repository.

use tarmac_lens_core::{detect_dialect, Dialect, Dumper, ParseOptions, Parser, RecordKind};

/// Detection reads the first lines of a trace; give it a generous prefix.
fn head(bytes: &[u8]) -> &[u8] {
    &bytes[..bytes.len().min(64 * 1024)]
}

fn dump_all(dialect: Dialect, text: &[u8]) -> String {
    let opts = ParseOptions::default();
    let mut p = Parser::new(opts, dialect);
    let mut d = Dumper::new(&opts);
    let mut out = Vec::new();
    for line in text.split(|&b| b == b'\n') {
        let rec = p.parse_line(line);
        assert!(
            !matches!(rec.kind, RecordKind::Unparsed(_)),
            "{}: {:?}",
            String::from_utf8_lossy(line),
            rec.kind
        );
        d.line(line, &rec, &mut out);
    }
    String::from_utf8(out).unwrap()
}

#[test]
fn repository_tarmac_samples_detect_as_tarmac() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/ttu");
    let mut files = vec![
        format!("{dir}/parsertest.txt"),
        format!("{dir}/indextest.tarmac"),
    ];
    for e in std::fs::read_dir(format!("{dir}/samples")).unwrap() {
        files.push(e.unwrap().path().display().to_string());
    }
    // Traces generated outside the repository, when this machine has them.
    if let Ok(dir) = std::fs::read_dir("/work/shared/generated") {
        for e in dir {
            let path = e.unwrap().path();
            if path.extension().is_some_and(|x| x == "tarmac") {
                files.push(path.display().to_string());
            }
        }
    }
    for f in files {
        let bytes = std::fs::read(&f).unwrap();
        assert_eq!(detect_dialect(head(&bytes)), Dialect::Tarmac, "{f}");
    }
}

#[test]
fn parsertest_lines_are_not_armulator_or_ep() {
    let text = include_bytes!("data/ttu/parsertest.txt");
    for line in text.split(|&b| b == b'\n') {
        assert_eq!(
            detect_dialect(line),
            Dialect::Tarmac,
            "{}",
            String::from_utf8_lossy(line)
        );
    }
}

const ARMULATOR: &[u8] = b"Date: Thu Aug  9 16:41:36 2001
Source: Armul
Options: Trace Instructions  (Disassemble)  Trace Memory Cycles
BNR8O___ 00008000 E28F8090 E898000F
MNR4O___ 00008000 E28F8090
IT 00008000 e28f8090 ADD      r8,pc,#0x90 ; #0x8098
MNR8____ 00008098 00007804 00007828
E 00000048 00000000 10005
R r14=20000060, cpsr=200000d3
MI
";

#[test]
fn armulator_end_to_end() {
    assert_eq!(detect_dialect(ARMULATOR), Dialect::Armulator);
    let out = dump_all(Dialect::Armulator, ARMULATOR);
    assert!(out.contains(
        "* BusEvent time=0 type=\"MNR4O___\" read=true size=4 sequential=false fetch=true"
    ));
    assert!(out.contains("* RegisterEvent time=0 reg=r14 offset=0 bytes=20:00:00:60\n"));
    assert!(out.contains("* RegisterEvent time=0 reg=psr offset=0 bytes=20:00:00:d3\n"));
    assert!(out.contains("pc=8000 iset=ARM width=32 instruction=e28f8090"));
}

const EP: &[u8] = b"###############################################
#### Absolute CPU Cycle: PC\xc2\xa0 : Record Type\xc2\xa0 : EP cycles : Address : EP Size : CPU Stall Cycle####
###############################################
####Version:3
531:0xe0001440:0:0:0xe0001440:110:0
531:0xe0001440:2:1:0xe0001440:4:0
";

#[test]
fn ep_end_to_end() {
    assert_eq!(detect_dialect(EP), Dialect::TiEp);
    let out = dump_all(Dialect::TiEp, EP);
    assert!(out.contains(
        "* EpTraceEvent time=531 pc=e0001440 type=normal ep_cycles=1 addr=e0001440 size=4 stall=0\n"
    ));
}

const FAST_MODELS: &[u8] = b"1947 clk cpu0 CACHE cpu.cpu0.l1icache LINE 0096 ALLOC 0x0000152112c0
1951 clk cpu0 TTW ITLB LPAE 1:3 000016390010 00000000152204c3 : BLOCK ATTRIDX=0 NS=0 AP=3 SH=0 AF=1 nG=0 16E=0 PXN=0 XN=0 ADDR=0x0000000015220000
1953 clk cpu0 TLB FILL cpu.cpu0.DTLB 64K 0x06200000, nG asid=0:0x0016000000_NS Normal NonShareable Inner=WriteBackWriteAllocate Outer=WriteBackWriteAllocate xn=0 pxn=0 ContiguousHint =0
1954 clk cpu0 CACHE MAINTENANCE D CLEAN MVA_PoC 00023000:000015223000 4K Normal
1955 clk cpu0 FD (1930) 00023064:000015223064 00023038:000015223038 O
1956 clk cpu0 BR4I__S I__CB_ O__CB_ 0 15223040 1f2003d5
                    BR (00000080) A
";

#[test]
fn fast_models_extra_records_end_to_end() {
    assert_eq!(detect_dialect(FAST_MODELS), Dialect::Tarmac);
    let out = dump_all(Dialect::Tarmac, FAST_MODELS);
    for want in [
        "* CacheEvent time=1947 cpu=cpu0 cache=\"cpu.cpu0.l1icache\" line=96 op=ALLOC paddr=152112c0 ns=false\n",
        "* TableWalkEvent time=1951 cpu=cpu0 update=false side=\"ITLB\" format=\"LPAE\" stage=1 level=3 addr=16390010 data=152204c3 result=\"BLOCK ATTRIDX=0 ",
        "* TlbEvent time=1953 cpu=cpu0 cache=tlb op=FILL id=\"cpu.cpu0.DTLB\" size=\"64K\" vaddr=6200000 ns=false rest=\"nG asid=0:0x0016000000_NS Normal",
        "* CacheMaintenanceEvent time=1954 cpu=cpu0 side=\"D\" op=\"CLEAN\" scope=\"MVA_PoC\" data=23000 paddr=15223000 rest=\"4K Normal\"\n",
        "* BranchEvent time=1955 cpu=cpu0 kind=direct inst_id=1930 from=23064 target=23038 iset=A64 ",
        "* BusEvent time=1956 cpu=cpu0 type=\"BR4I__S\" read=true size=4 fetch=true ",
        "* TextOnlyEvent time=1956 type=\"BR\" text=\"(00000080) A\"\n",
    ] {
        assert!(out.contains(want), "missing {want:?} in\n{out}");
    }
}

/// The worked examples of the format descriptions (a few lines of each):
/// every line parses to the record it shows.
#[test]
fn spec_worked_examples() {
    use tarmac_lens_core::{ParseOptions, Parser, RecordKind};
    let cases: &[(&str, &str)] = &[
        // Fast Models v8.1 guide example.
        ("10 clk IT (10) 00001088 e89d00ff A mon_ns : LDMIA sp,{r0-r7}", "instruction"),
        ("10 clk MR8 00103fbc 0000000000000060", "memory"),
        ("11 clk R r13_mon 00103ff8", "register"),
        ("12 clk IT (12) 00001090 f8bd0a00 A mon_ns : RFEIA sp!", "instruction"),
        ("12 clk R cpsr 00000013", "register"),
        ("12 clk E 00001090 00000019 CoreEvent_ModeChange", "exception"),
        ("25 clk IS (25) 000010c0 13a00000 A svc_ns : MOVNE r0,#0", "instruction"),
        ("26 clk R fpexc 01c00000", "register"),
        ("33 clk MR8 00105018 eeeeefffcccdddd", "memory"),
        ("33 clk R d7 eeeeefffcccdddd", "register"),
        ("34 clk R d0 487201bf46b94bfb", "register"),
        ("47 clk IT (47) 00001240 5a0a T abt_s : LDRH r2, [r0,r1]", "instruction"),
        ("47 clk MR2 00105000 1111", "memory"),
        // The reference tools' introduction.
        ("53 clk IT (53) 002109f0 f94003e1 O EL3h_s : LDR      x1,[sp,#0]", "instruction"),
        ("53 clk MR8 000ffb80:0000000ffb80 00000000_000ffbb8", "memory"),
        ("55 clk MW8 000ffb88:0000000ffb88 00000000_000ffba0", "memory"),
        ("0 tic ES  (00000000002109f0:f94003e1) O el3h_s:         LDR      x1,[sp,#0]", "instruction"),
        ("          LD 00000000000ffb80 ........ ........ 00000000 000ffbb8    S:00000ffb80    nGnRnE OSH", "memory"),
        ("          ST 00000000000ffb80 00000000 000ffba0 ........ ........    S:00000ffb80    nGnRnE OSH", "memory"),
        // The current Fast Models format page.
        ("1939 clk cpu0 IT (1915) 0001129c:00001521129c d51bd061 O EL3h_s : MSR TPIDRRO_EL0,x1", "instruction"),
        ("1939 clk cpu0 R TPIDRRO_EL0 00000000:00000000", "register"),
        ("1947 clk cpu0 CACHE cpu.cpu0.l1icache LINE 0096 ALLOC 0x0000152112c0", "cache"),
        ("1951 clk cpu0 TTW ITLB LPAE 1:3 000016390010 00000000152204c3 : BLOCK ATTRIDX=0 NS=0 AP=3 SH=0 AF=1 nG=0 16E=0 PXN=0 XN=0 ADDR=0x0000000015220000", "table_walk"),
        ("1951 clk cpu0 TLB FILL cpu.cpu0.ITLB 64K 0x00020000, nG asid=0:0x0015220000 Normal NonShareable Inner=WriteBackWriteAllocate Outer=WriteBackWriteAllocate xn=0 pxn=0 ContiguousHint =0", "tlb"),
        ("1953 clk cpu0 MW8 0620e000:00001600e000_NS 00000000_13000000", "memory"),
        ("8463 clk cpu0 R z31 00000000_00000000_00000000_00000000", "register"),
        ("9756 clk cpu0 R p0 ffff", "register"),
    ];
    for (line, kind) in cases {
        let mut p = Parser::new(ParseOptions::default(), Dialect::Tarmac);
        let rec = p.parse_line(line.as_bytes());
        assert_eq!(rec.kind.name(), *kind, "{line}: {:?}", rec.kind);
        if let RecordKind::Register(r) = &rec.kind {
            assert!(!r.bytes.is_empty(), "{line}");
        }
    }
    // The 15-digit value is zero-extended, not rejected.
    let mut p = Parser::new(ParseOptions::default(), Dialect::Tarmac);
    if let RecordKind::Register(r) = p.parse_line(b"33 clk R d7 eeeeefffcccdddd").kind {
        assert_eq!(r.bytes, &[0xdd, 0xdd, 0xcc, 0xfc, 0xff, 0xee, 0xee, 0x0e]);
    } else {
        panic!("register");
    }
}
