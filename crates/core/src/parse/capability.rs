//! Capabilities of Arm's Morello architecture, as an FVP of it writes an
//! instruction's address: `(1|b05dc000137a0004|00120a40)`, the tag, the
//! upper 64 bits (permissions, object type, compressed bounds) and the
//! value, the address. The bounds are compressed (CHERI Concentrate, a
//! 16-bit mantissa): decoding them needs the value, and Morello reads
//! the value's low 56 bits sign-extended (the top byte is flags).
//! Test vectors in `tests` are the published ones of CHERI's reference
//! implementation of the format.

use std::fmt;

/// A Morello capability, less its value (the address it is written with,
/// which the record holds as the instruction's pc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Capability {
    /// The validity tag.
    pub tag: bool,
    /// Bits 127..64: permissions (127..110), object type (109..95) and the
    /// compressed bounds (94..64).
    pub meta: u64,
}

/// Exponents above this mean the whole address space.
const MAX_EXPONENT: u32 = 50;
const MANTISSA: u32 = 16;

impl Capability {
    /// The permission bits (Load is bit 17, Execute 15, Global 0).
    pub fn permissions(&self) -> u32 {
        (self.meta >> 46) as u32
    }

    /// The object type: 0 unsealed, 1 a sentry, 2 and 3 Morello's load
    /// (pair) and branch types, others sealed with that type.
    pub fn object_type(&self) -> u32 {
        ((self.meta >> 31) & 0x7fff) as u32
    }

    /// The bounds `[base, top)` for the capability holding `value`; `top`
    /// may be 2^64.
    pub fn bounds(&self, value: u64) -> (u64, u128) {
        let m = self.meta;
        // Bit 94 says the exponent is zero; otherwise the exponent's six
        // bits, inverted, are the low three of each of top and bottom.
        let internal_exponent = m & (1 << 30) == 0;
        let (e, b, mut t, len_msb) = if internal_exponent {
            let split = ((m >> 13) & 0b111000) | (m & 0b111);
            let e = (!split & 0x3f) as u32;
            (e, (m & 0xfff8) as u32, ((m >> 16) & 0x3ff8) as u32, 1)
        } else {
            (0, (m & 0xffff) as u32, ((m >> 16) & 0x3fff) as u32, 0)
        };
        // The top's two high bits follow from the bottom's, the carry out
        // of the low bits and the length's top bit.
        let carry = u32::from(t < (b & 0x3fff));
        t |= (((b >> 14) + carry + len_msb) & 3) << 14;
        if e > MAX_EXPONENT {
            return (0, 1 << 64);
        }
        // Flags off, sign-extended from bit 55.
        let a = ((value << 8) as i64 >> 8) as u64;
        let a_mid = ((a >> (e + MANTISSA - 3)) & 7) as u32;
        let (b3, t3) = (b >> (MANTISSA - 3), t >> (MANTISSA - 3));
        let r = b3.wrapping_sub(1) & 7;
        let hi = |x: u32| i64::from(x < r);
        let a_top = if e + MANTISSA >= 64 {
            0
        } else {
            a >> (e + MANTISSA)
        };
        let mask65 = (1u128 << 65) - 1;
        let at = |correction: i64, field: u32| -> u128 {
            let high = (a_top as i64).wrapping_add(correction) as u64;
            ((((u128::from(high)) << MANTISSA) | u128::from(field)) << e) & mask65
        };
        let base = at(hi(b3) - hi(a_mid), b);
        let mut top = at(hi(t3) - hi(a_mid), t);
        // Base and top more than an address space apart: the region
        // wrapped, and the top's bit 64 is the other way.
        let base2 = ((base >> 63) & 1) as u32;
        let top2 = ((top >> 63) & 3) as u32;
        if e < MAX_EXPONENT - 1 && top2.wrapping_sub(base2) > 1 {
            top ^= 1 << 64;
        }
        (base as u64, top)
    }
}

/// What a person reads: the tag, the bounds for `value`, the permission
/// bits and the object type if sealed.
pub struct Described(pub Capability, pub u64);

impl fmt::Display for Described {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Described(c, value) = self;
        let (base, top) = c.bounds(*value);
        write!(
            f,
            "capability tag {}, bounds 0x{base:x}-0x{top:x}, permissions 0x{:05x}",
            u8::from(c.tag),
            c.permissions()
        )?;
        match c.object_type() {
            0 => Ok(()),
            t => write!(f, ", object type {t}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bounds(meta: u64, value: u64) -> (u64, u128) {
        Capability { tag: true, meta }.bounds(value)
    }

    /// The reference implementation's decoding tests (its Morello
    /// format's `simple_test`): metadata, value, base, top.
    #[test]
    fn bounds_are_the_reference_decoder_s() {
        let max = 1u128 << 64;
        for (meta, value, base, top) in [
            (
                0x0a1a_04ff_bffa_ff07,
                0x01a4_fe02_4100_01ff,
                0xfeff_0000_0000_0000,
                0xff3f_f800_0000_0000,
            ),
            (
                0x0aff_0000_4007_0007,
                0x0080_0000_0080_0000,
                0xff80_0000_0080_0007,
                0xff80_0000_0080_0007,
            ),
            (
                0xffff_0000_4007_0007,
                0x0029_ffff_ff85_ffff,
                0x0029_ffff_ff86_0007,
                0x0029_ffff_ff86_0007,
            ),
            (
                0x8100_0100_bfe9_ffd5,
                0x0045_0000_0000_0000,
                0xff40_0000_0000_0000,
                0xffa0_0000_0000_0000,
            ),
            (
                0x9a9a_6566_2562_9a9d,
                0x0010_0a9a_9a9a_9a9a,
                0xfe6a_6000_0000_0000,
                0xff95_8000_0000_0000,
            ),
            (0x0000_0000_0001_0004, 0x003f_ffca, 0, max),
            (0x8000_0000_6002_0484, 0, 0x484, 0x2002),
            (0x8000_0000_0001_0007, 0x0040_f0e0, 0, 0x4000_0000_0000_0000),
            (0x4, 0, 0, max),
            (
                0x0030_0000_0002_23ff,
                0xff2b_55fe_ff39_ffff,
                0x0023_f800_0000_0000,
                0x0080_0000_0000_0000,
            ),
            (
                0x0030_0000_0002_23ff,
                0x9090_9090_9090_ff16,
                0xff23_f800_0000_0000,
                0xff80_0000_0000_0000,
            ),
        ] {
            assert_eq!(bounds(meta, value), (base, top), "{meta:#x} at {value:#x}");
        }
    }

    #[test]
    fn fields_and_text() {
        let c = Capability {
            tag: true,
            meta: 0xb05d_c000_137a_0004,
        };
        assert_eq!(c.permissions(), 0x2c177);
        assert_eq!(c.object_type(), 0);
        let text = Described(c, 0x120a40).to_string();
        assert!(
            text.starts_with("capability tag 1, bounds 0x0-0x"),
            "{text}"
        );
        assert!(text.ends_with("permissions 0x2c177"), "{text}");
        let sealed = Capability {
            tag: false,
            meta: 1 << 31,
        };
        assert!(Described(sealed, 0).to_string().ends_with("object type 1"));
    }
}
