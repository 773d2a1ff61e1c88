//! The eight Torch element types and the trait that lets kernels be written once for all of them.

use std::fmt::Debug;

/// A Torch element type. The order is Torch's own (Byte, Char, Short, Int, Long, Float, Double).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DType {
    Byte,
    Char,
    Short,
    Int,
    Long,
    Float,
    Double,
    /// IEEE half precision. As in Torch7, a storage type: it is created, viewed, copied, converted
    /// and serialized, but has no maths of its own (`x:half()`, `x:float()` convert).
    Half,
}

impl DType {
    pub const ALL: [DType; 8] = [
        DType::Byte,
        DType::Char,
        DType::Short,
        DType::Int,
        DType::Long,
        DType::Float,
        DType::Double,
        DType::Half,
    ];

    /// `Byte`, `Float`, ...: the part of `torch.ByteTensor` after `torch.` and before `Tensor`.
    pub fn name(self) -> &'static str {
        match self {
            DType::Byte => "Byte",
            DType::Char => "Char",
            DType::Short => "Short",
            DType::Int => "Int",
            DType::Long => "Long",
            DType::Float => "Float",
            DType::Double => "Double",
            DType::Half => "Half",
        }
    }

    pub fn from_name(name: &str) -> Option<DType> {
        DType::ALL.into_iter().find(|d| d.name() == name)
    }

    pub fn tensor_typename(self) -> &'static str {
        match self {
            DType::Byte => "torch.ByteTensor",
            DType::Char => "torch.CharTensor",
            DType::Short => "torch.ShortTensor",
            DType::Int => "torch.IntTensor",
            DType::Long => "torch.LongTensor",
            DType::Float => "torch.FloatTensor",
            DType::Double => "torch.DoubleTensor",
            DType::Half => "torch.HalfTensor",
        }
    }

    pub fn storage_typename(self) -> &'static str {
        match self {
            DType::Byte => "torch.ByteStorage",
            DType::Char => "torch.CharStorage",
            DType::Short => "torch.ShortStorage",
            DType::Int => "torch.IntStorage",
            DType::Long => "torch.LongStorage",
            DType::Float => "torch.FloatStorage",
            DType::Double => "torch.DoubleStorage",
            DType::Half => "torch.HalfStorage",
        }
    }

    /// `torch.FloatTensor` or `torch.FloatStorage` -> (Float, is_tensor).
    pub fn from_typename(name: &str) -> Option<(DType, bool)> {
        let rest = name.strip_prefix("torch.")?;
        if let Some(d) = rest.strip_suffix("Tensor") {
            return DType::from_name(d).map(|d| (d, true));
        }
        rest.strip_suffix("Storage")
            .and_then(DType::from_name)
            .map(|d| (d, false))
    }

    pub fn size_of(self) -> usize {
        match self {
            DType::Byte | DType::Char => 1,
            DType::Short | DType::Half => 2,
            DType::Int | DType::Float => 4,
            DType::Long | DType::Double => 8,
        }
    }

    pub fn is_floating(self) -> bool {
        matches!(self, DType::Float | DType::Double | DType::Half)
    }

    /// Whether the type has Torch's maths (every type but Half).
    pub fn has_math(self) -> bool {
        self != DType::Half
    }
}

/// An element of a tensor or storage.
pub trait Element: Copy + Default + PartialOrd + PartialEq + Debug + Send + Sync + 'static {
    const DTYPE: DType;
    /// Torch's conversion of a Lua number into this type (a C cast).
    fn from_f64(v: f64) -> Self;
    fn to_f64(self) -> f64;
    fn from_i64(v: i64) -> Self;
    fn to_i64(self) -> i64;
    fn zero() -> Self {
        Self::default()
    }
    fn one() -> Self {
        Self::from_f64(1.0)
    }
    /// Largest value of the type, as a double (Torch's `random()` range for integer types).
    fn max_value() -> f64;
}

macro_rules! element {
    ($t:ty, $d:expr, $max:expr) => {
        element!($t, $d, $max, |v: f64| v as $t);
    };
    ($t:ty, $d:expr, $max:expr, $from_f64:expr) => {
        impl Element for $t {
            const DTYPE: DType = $d;
            #[inline(always)]
            fn from_f64(v: f64) -> Self {
                $from_f64(v)
            }
            #[inline(always)]
            fn to_f64(self) -> f64 {
                self as f64
            }
            #[inline(always)]
            fn from_i64(v: i64) -> Self {
                v as $t
            }
            #[inline(always)]
            fn to_i64(self) -> i64 {
                self as i64
            }
            fn max_value() -> f64 {
                $max
            }
        }
    };
}

// Small integer types convert from a double as C does on x86-64: through a wide integer, then
// keeping the low bits (so -1 becomes 255 in a ByteTensor, not 0 as Rust's saturating cast gives).
element!(u8, DType::Byte, u8::MAX as f64, |v: f64| v as i64 as u8);
element!(i8, DType::Char, i8::MAX as f64, |v: f64| v as i64 as i8);
element!(i16, DType::Short, i16::MAX as f64, |v: f64| v as i64 as i16);
element!(i32, DType::Int, i32::MAX as f64, |v: f64| v as i64 as i32);
element!(i64, DType::Long, i64::MAX as f64);
element!(f32, DType::Float, (1u64 << f32::MANTISSA_DIGITS) as f64);
element!(f64, DType::Double, (1u64 << f64::MANTISSA_DIGITS) as f64);

// Half converts through single precision, as Torch7 does (a double is first cast to float, then
// rounded to the nearest half, ties to even).
impl Element for half::f16 {
    const DTYPE: DType = DType::Half;
    #[inline(always)]
    fn from_f64(v: f64) -> Self {
        half::f16::from_f32(v as f32)
    }
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self.to_f64()
    }
    #[inline(always)]
    fn from_i64(v: i64) -> Self {
        half::f16::from_f32(v as f32)
    }
    #[inline(always)]
    fn to_i64(self) -> i64 {
        self.to_f64() as i64
    }
    fn max_value() -> f64 {
        (1u64 << f16_MANTISSA_DIGITS) as f64
    }
}

#[allow(non_upper_case_globals)]
const f16_MANTISSA_DIGITS: u32 = half::f16::MANTISSA_DIGITS;

/// Runs `$body` with `$t` bound to the Rust type of `$dtype`.
#[macro_export]
macro_rules! dispatch {
    ($dtype:expr, $t:ident => $body:expr) => {
        $crate::dispatch_math!($dtype, $t => $body, half => {
            type $t = half::f16;
            $body
        })
    };
}

/// `dispatch!` over the seven types with maths. Half, a storage type without maths as in Torch7,
/// evaluates `$half` instead (usually an early `return Err(...)`), so that no arithmetic kernel is
/// built for it.
#[macro_export]
macro_rules! dispatch_math {
    ($dtype:expr, $t:ident => $body:expr, half => $half:expr) => {
        match $dtype {
            $crate::torch::base::dtype::DType::Byte => {
                type $t = u8;
                $body
            }
            $crate::torch::base::dtype::DType::Char => {
                type $t = i8;
                $body
            }
            $crate::torch::base::dtype::DType::Short => {
                type $t = i16;
                $body
            }
            $crate::torch::base::dtype::DType::Int => {
                type $t = i32;
                $body
            }
            $crate::torch::base::dtype::DType::Long => {
                type $t = i64;
                $body
            }
            $crate::torch::base::dtype::DType::Float => {
                type $t = f32;
                $body
            }
            $crate::torch::base::dtype::DType::Double => {
                type $t = f64;
                $body
            }
            $crate::torch::base::dtype::DType::Half => $half,
        }
    };
}

/// The error of a maths operation reached with a HalfTensor (whose class has no such method; a
/// function form such as `torch.sum(h)` can still get here).
pub fn no_half_math() -> crate::error::Error {
    crate::error::Error::dtype("HalfTensor has no maths (convert it first, e.g. x:float())")
}
