//! Element arithmetic with Torch's (C's) semantics for each of the seven types: integers wrap and
//! divide by truncation, floats follow IEEE and the C maths library. Kernels are written once over
//! these traits and monomorphised, so the hot loops contain no dispatch.

use crate::torch::base::dtype::Element;

/// Arithmetic every tensor type supports.
pub trait Arith: Element {
    /// A Lua number converted as C converts a double to this type: truncation toward zero, then
    /// (for the narrow integer types) wrapping, as x86 does for `(unsigned char)-1.0`.
    fn from_lua(v: f64) -> Self;
    fn add(self, o: Self) -> Self;
    fn sub(self, o: Self) -> Self;
    fn mul(self, o: Self) -> Self;
    /// Integer division truncates; a zero divisor gives 0 (callers report it as an error first).
    fn div(self, o: Self) -> Self;
    /// C `fmod` for floats, `%` for integers (the sign of the dividend).
    fn fmod(self, o: Self) -> Self;
    /// The remainder with the sign of the divisor (Torch's `remainder`); NaN for a float zero.
    fn remainder(self, o: Self) -> Self;
    fn neg(self) -> Self;
    fn abs(self) -> Self;
    /// 1, -1 or 0 (0 for NaN).
    fn sign(self) -> Self;
    /// C `pow`; integers go through double and back, as in Torch.
    fn pow(self, e: Self) -> Self;
    /// Torch's `lshift`: an integer's bits shifted left as C's unsigned type of its width shifts
    /// them (Byte, Char and Short promoted to int first, the bits past their width lost when
    /// stored); a count outside `0..bits` gives 0, where C leaves it undefined. Float and
    /// Double multiply by `2^o` instead.
    fn shl(self, o: Self) -> Self;
    /// Torch's `rshift`: a logical shift right, as `shl`; Float and Double divide by `2^o`.
    fn shr(self, o: Self) -> Self;
    /// Bitwise and, or, xor: the integer types only (the callers refuse Float and Double, as
    /// Torch does; their versions here give NaN).
    fn bit_and(self, o: Self) -> Self;
    fn bit_or(self, o: Self) -> Self;
    fn bit_xor(self, o: Self) -> Self;
    fn is_zero(self) -> bool;
    fn from_bool(b: bool) -> Self;
    #[inline(always)]
    fn max_of(self, o: Self) -> Self {
        if self > o { self } else { o }
    }
    #[inline(always)]
    fn min_of(self, o: Self) -> Self {
        if self < o { self } else { o }
    }
}

macro_rules! int_arith {
    ($t:ty, signed: $signed:expr, unsigned: $u:ty, promoted: $w:ty) => {
        impl Arith for $t {
            #[inline(always)]
            fn from_lua(v: f64) -> Self {
                // NaN becomes 0 and out-of-range values saturate in i64 before wrapping.
                (v as i64) as $t
            }
            #[inline(always)]
            fn add(self, o: Self) -> Self {
                self.wrapping_add(o)
            }
            #[inline(always)]
            fn sub(self, o: Self) -> Self {
                self.wrapping_sub(o)
            }
            #[inline(always)]
            fn mul(self, o: Self) -> Self {
                self.wrapping_mul(o)
            }
            #[inline(always)]
            fn div(self, o: Self) -> Self {
                if o == 0 { 0 } else { self.wrapping_div(o) }
            }
            #[inline(always)]
            fn fmod(self, o: Self) -> Self {
                if o == 0 { 0 } else { self.wrapping_rem(o) }
            }
            #[inline(always)]
            fn remainder(self, o: Self) -> Self {
                let r = self.fmod(o);
                #[allow(unused_comparisons)]
                let wrap = r != 0 && (r < 0) != (o < 0);
                if wrap { r.wrapping_add(o) } else { r }
            }
            #[inline(always)]
            fn neg(self) -> Self {
                (0 as $t).wrapping_sub(self)
            }
            #[inline(always)]
            fn abs(self) -> Self {
                #[allow(unused_comparisons)]
                let negative = $signed && self < 0;
                if negative { self.neg() } else { self }
            }
            #[inline(always)]
            fn sign(self) -> Self {
                #[allow(unused_comparisons)]
                let negative = self < 0;
                if self > 0 {
                    1
                } else if negative {
                    (0 as $t).wrapping_sub(1)
                } else {
                    0
                }
            }
            #[inline(always)]
            fn pow(self, e: Self) -> Self {
                // Exact integer power (wrapping), which is what C's double pow gives whenever the
                // result fits; a negative power truncates to 0 except for 1 and -1.
                #[allow(unused_comparisons)]
                if e < 0 {
                    let minus_one = (0 as $t).wrapping_sub(1);
                    return if self == 1 {
                        1
                    } else if $signed && self == minus_one {
                        if e % 2 == 0 { 1 } else { minus_one }
                    } else {
                        0
                    };
                }
                let (mut base, mut e, mut acc) = (self, e as u64, 1 as $t);
                while e > 0 {
                    if e & 1 == 1 {
                        acc = acc.wrapping_mul(base);
                    }
                    base = base.wrapping_mul(base);
                    e >>= 1;
                }
                acc
            }
            #[inline(always)]
            fn shl(self, o: Self) -> Self {
                #[allow(unused_comparisons)]
                let out_of_range = o < 0 || (o as u64) >= <$w>::BITS as u64;
                if out_of_range {
                    0
                } else {
                    ((self as $u as $w) << (o as u32)) as $t
                }
            }
            #[inline(always)]
            fn shr(self, o: Self) -> Self {
                #[allow(unused_comparisons)]
                let out_of_range = o < 0 || (o as u64) >= <$w>::BITS as u64;
                if out_of_range {
                    0
                } else {
                    ((self as $u as $w) >> (o as u32)) as $t
                }
            }
            #[inline(always)]
            fn bit_and(self, o: Self) -> Self {
                self & o
            }
            #[inline(always)]
            fn bit_or(self, o: Self) -> Self {
                self | o
            }
            #[inline(always)]
            fn bit_xor(self, o: Self) -> Self {
                self ^ o
            }
            #[inline(always)]
            fn is_zero(self) -> bool {
                self == 0
            }
            #[inline(always)]
            fn from_bool(b: bool) -> Self {
                b as $t
            }
        }
    };
}

int_arith!(u8, signed: false, unsigned: u8, promoted: u32);
int_arith!(i8, signed: true, unsigned: u8, promoted: u32);
int_arith!(i16, signed: true, unsigned: u16, promoted: u32);
int_arith!(i32, signed: true, unsigned: u32, promoted: u32);
int_arith!(i64, signed: true, unsigned: u64, promoted: u64);

/// The maths functions, for Float and Double only.
pub trait Float: Arith {
    fn sqrt(self) -> Self;
    fn rsqrt(self) -> Self;
    fn exp(self) -> Self;
    fn log(self) -> Self;
    fn log1p(self) -> Self;
    fn cinv(self) -> Self;
    fn floor(self) -> Self;
    fn ceil(self) -> Self;
    fn round(self) -> Self;
    fn trunc(self) -> Self;
    fn frac(self) -> Self;
    fn tanh(self) -> Self;
    fn sinh(self) -> Self;
    fn cosh(self) -> Self;
    fn sin(self) -> Self;
    fn cos(self) -> Self;
    fn tan(self) -> Self;
    fn asin(self) -> Self;
    fn acos(self) -> Self;
    fn atan(self) -> Self;
    fn sigmoid(self) -> Self;
    fn atan2(self, x: Self) -> Self;
    fn lerp(self, b: Self, w: Self) -> Self;
}

macro_rules! float_arith {
    ($t:ident) => {
        impl Arith for $t {
            #[inline(always)]
            fn from_lua(v: f64) -> Self {
                v as $t
            }
            #[inline(always)]
            fn add(self, o: Self) -> Self {
                self + o
            }
            #[inline(always)]
            fn sub(self, o: Self) -> Self {
                self - o
            }
            #[inline(always)]
            fn mul(self, o: Self) -> Self {
                self * o
            }
            #[inline(always)]
            fn div(self, o: Self) -> Self {
                self / o
            }
            #[inline(always)]
            fn fmod(self, o: Self) -> Self {
                // Rust's float `%` is C's fmod.
                self % o
            }
            #[inline(always)]
            fn remainder(self, o: Self) -> Self {
                if o == 0.0 {
                    $t::NAN
                } else {
                    self - o * (self / o).floor()
                }
            }
            #[inline(always)]
            fn neg(self) -> Self {
                -self
            }
            #[inline(always)]
            fn abs(self) -> Self {
                $t::abs(self)
            }
            #[inline(always)]
            fn sign(self) -> Self {
                if self > 0.0 {
                    1.0
                } else if self < 0.0 {
                    -1.0
                } else {
                    0.0
                }
            }
            #[inline(always)]
            fn pow(self, e: Self) -> Self {
                $t::powf(self, e)
            }
            #[inline(always)]
            fn shl(self, o: Self) -> Self {
                self * (2.0 as $t).powf(o)
            }
            #[inline(always)]
            fn shr(self, o: Self) -> Self {
                self / (2.0 as $t).powf(o)
            }
            #[inline(always)]
            fn bit_and(self, _: Self) -> Self {
                $t::NAN
            }
            #[inline(always)]
            fn bit_or(self, _: Self) -> Self {
                $t::NAN
            }
            #[inline(always)]
            fn bit_xor(self, _: Self) -> Self {
                $t::NAN
            }
            #[inline(always)]
            fn is_zero(self) -> bool {
                self == 0.0
            }
            #[inline(always)]
            fn from_bool(b: bool) -> Self {
                if b { 1.0 } else { 0.0 }
            }
        }

        impl Float for $t {
            #[inline(always)]
            fn sqrt(self) -> Self {
                $t::sqrt(self)
            }
            #[inline(always)]
            fn rsqrt(self) -> Self {
                1.0 / $t::sqrt(self)
            }
            #[inline(always)]
            fn exp(self) -> Self {
                $t::exp(self)
            }
            #[inline(always)]
            fn log(self) -> Self {
                $t::ln(self)
            }
            #[inline(always)]
            fn log1p(self) -> Self {
                $t::ln_1p(self)
            }
            #[inline(always)]
            fn cinv(self) -> Self {
                1.0 / self
            }
            #[inline(always)]
            fn floor(self) -> Self {
                $t::floor(self)
            }
            #[inline(always)]
            fn ceil(self) -> Self {
                $t::ceil(self)
            }
            #[inline(always)]
            fn round(self) -> Self {
                // C's round: halves away from zero.
                $t::round(self)
            }
            #[inline(always)]
            fn trunc(self) -> Self {
                $t::trunc(self)
            }
            #[inline(always)]
            fn frac(self) -> Self {
                self - $t::trunc(self)
            }
            #[inline(always)]
            fn tanh(self) -> Self {
                $t::tanh(self)
            }
            #[inline(always)]
            fn sinh(self) -> Self {
                $t::sinh(self)
            }
            #[inline(always)]
            fn cosh(self) -> Self {
                $t::cosh(self)
            }
            #[inline(always)]
            fn sin(self) -> Self {
                $t::sin(self)
            }
            #[inline(always)]
            fn cos(self) -> Self {
                $t::cos(self)
            }
            #[inline(always)]
            fn tan(self) -> Self {
                $t::tan(self)
            }
            #[inline(always)]
            fn asin(self) -> Self {
                $t::asin(self)
            }
            #[inline(always)]
            fn acos(self) -> Self {
                $t::acos(self)
            }
            #[inline(always)]
            fn atan(self) -> Self {
                $t::atan(self)
            }
            #[inline(always)]
            fn sigmoid(self) -> Self {
                1.0 / (1.0 + $t::exp(-self))
            }
            #[inline(always)]
            fn atan2(self, x: Self) -> Self {
                $t::atan2(self, x)
            }
            #[inline(always)]
            fn lerp(self, b: Self, w: Self) -> Self {
                self + w * (b - self)
            }
        }
    };
}

float_arith!(f32);
float_arith!(f64);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_follow_c() {
        assert_eq!(7i32.div(-2), -3);
        assert_eq!((-7i32).fmod(3), -1);
        assert_eq!((-7i32).remainder(3), 2);
        assert_eq!(7i32.remainder(-3), -2);
        assert_eq!(5u8.remainder(3), 2);
        assert_eq!(i32::MIN.div(-1), i32::MIN);
        assert_eq!(3i64.div(0), 0);
        assert_eq!(250u8.add(10), 4);
        assert_eq!(u8::from_lua(-1.0), 255);
        assert_eq!(i32::from_lua(2.9), 2);
        assert_eq!(i32::from_lua(-2.9), -2);
        assert_eq!(Arith::abs(i8::MIN), i8::MIN);
        assert_eq!(200u8.abs(), 200);
        assert_eq!((-5i16).sign(), -1);
        assert_eq!(0u8.sign(), 0);
        assert_eq!(Arith::pow(3i32, 2), 9);
        assert_eq!(Arith::pow(2i32, -1), 0);
        assert_eq!(Arith::pow(-1i32, -3), -1);
        assert_eq!(Arith::pow(3i64, 40), 12157665459056928801u64 as i64);
        assert_eq!(Arith::pow(2u8, 9), 0);
    }

    #[test]
    fn shifts_follow_c_unsigned_shifts() {
        assert_eq!(5i64.shl(2), 20);
        assert_eq!(200u8.shl(1), 144);
        assert_eq!(200u8.shr(3), 25);
        // Char and Short shift their unsigned bits: no sign extension on the way right.
        assert_eq!((-128i8).shr(1), 64);
        assert_eq!((-1i16).shr(8), 255);
        assert_eq!((-4i32).shr(1), 0x7fff_fffe);
        assert_eq!((-1i64).shr(63), 1);
        assert_eq!(1i32.shl(31), i32::MIN);
        assert_eq!(1i8.shl(7), -128);
        // Counts past the width, or negative, give 0.
        assert_eq!(1i32.shl(32), 0);
        assert_eq!(1u8.shl(8), 0);
        assert_eq!(8i64.shr(-1), 0);
        assert_eq!(3.0f64.shl(2.0), 12.0);
        assert_eq!(3.0f32.shr(1.0), 1.5);
        assert_eq!(0b1100i16.bit_and(0b1010), 0b1000);
        assert_eq!(0b1100u8.bit_or(0b1010), 0b1110);
        assert_eq!((-1i64).bit_xor(5), -6);
    }

    #[test]
    fn floats_follow_c() {
        assert_eq!((-7.5f64).fmod(2.0), -1.5);
        assert_eq!((-7.5f64).remainder(2.0), 0.5);
        assert!(1.0f32.remainder(0.0).is_nan());
        assert_eq!(Float::round(2.5f64), 3.0);
        assert_eq!(Float::round(-2.5f64), -3.0);
        assert_eq!((-1.25f64).frac(), -0.25);
        assert_eq!(f64::NAN.sign(), 0.0);
        assert_eq!(0.0f64.sigmoid(), 0.5);
        assert_eq!(Float::lerp(1.0f64, 3.0, 0.25), 1.5);
    }
}
