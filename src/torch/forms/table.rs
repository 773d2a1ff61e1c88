//! The argument forms of every host tensor op, in one table: for each Lua name, how its family
//! reads arguments (`Policy`), the forms tried in order, and for the elementwise ops what each form
//! computes. `methods/` looks its forms up here and binds arguments with `forms::bind`; a device
//! family can walk the same table.

use super::param::{COMPARISON, CONVOLUTION, ELEMENTWISE, LAPACK, PRODUCT, Param, Policy, REDUCTION};
use crate::torch::base::dtype::DType;
use crate::torch::kernels::math::{Binary, Compare, Unary};

use Param::*;

/// What a form of an elementwise op computes; `Method` for ops whose method decides.
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Computes {
    Method,
    Unary(Unary),
    /// `source (op) number`.
    WithValue(Binary),
    /// `source (op) tensor`, elementwise.
    WithTensor(Binary),
    /// `source + number * tensor`, or minus (cadd, csub).
    AddScaled {
        subtract: bool,
    },
    /// `source ^ number`.
    Pow,
    /// `number ^ source`.
    ValuePow,
    Atan2,
    Lerp,
    Clamp,
    /// `source + number * tensor1 * tensor2`, or `/ tensor2` (addcmul, addcdiv).
    AddProduct {
        divide: bool,
    },
    /// `source (cmp) number or tensor`, as 1 or 0.
    Compare(Compare),
}

/// One calling form.
#[derive(Clone, Copy, Debug)]
pub struct Form {
    pub params: &'static [Param],
    pub computes: Computes,
}

/// An op: its Lua name, policy and forms.
#[derive(Clone, Copy, Debug)]
pub struct Entry {
    pub name: &'static str,
    pub policy: Policy,
    pub forms: &'static [Form],
    /// The forms of the method call where they are not `forms` (the add* products).
    pub method_forms: &'static [Form],
}

impl Entry {
    /// The forms of a method call (`method`) or a function call.
    pub fn forms(&self, method: bool) -> &'static [Form] {
        if method && !self.method_forms.is_empty() {
            self.method_forms
        } else {
            self.forms
        }
    }
}

const fn form(params: &'static [Param], computes: Computes) -> Form {
    Form { params, computes }
}

/// A form whose method does the work.
const fn of(params: &'static [Param]) -> Form {
    form(params, Computes::Method)
}

const fn op(name: &'static str, policy: Policy, forms: &'static [Form]) -> Entry {
    Entry {
        name,
        policy,
        forms,
        method_forms: &[],
    }
}

macro_rules! unary_ops {
    ($($name:literal $u:ident),* $(,)?) => {
        &[$(op($name, ELEMENTWISE, &[form(&[Result, Source], Computes::Unary(Unary::$u))]),)*]
    };
}

const UNARY: &[Entry] = unary_ops!(
    "sqrt" Sqrt, "rsqrt" Rsqrt, "exp" Exp, "log" Log, "log1p" Log1p, "cinv" Cinv, "floor" Floor, "ceil" Ceil,
    "round" Round, "trunc" Trunc, "frac" Frac, "tanh" Tanh, "sinh" Sinh, "cosh" Cosh, "sin" Sin, "cos" Cos,
    "tan" Tan, "asin" Asin, "acos" Acos, "atan" Atan, "sigmoid" Sigmoid, "abs" Abs, "sign" Sign, "neg" Neg,
);

/// `[res,] src, number`.
macro_rules! with_value {
    ($name:literal, $b:ident) => {
        op(
            $name,
            ELEMENTWISE,
            &[form(&[Result, Source, Number], Computes::WithValue(Binary::$b))],
        )
    };
}

/// `[res,] src, tensor`.
macro_rules! with_tensor {
    ($name:literal, $b:ident) => {
        op(
            $name,
            ELEMENTWISE,
            &[form(&[Result, Source, Tensor], Computes::WithTensor(Binary::$b))],
        )
    };
}

/// `[res,] src, tensor` or `[res,] src, number`.
macro_rules! either {
    ($name:literal, $b:ident) => {
        op(
            $name,
            ELEMENTWISE,
            &[
                form(&[Result, Source, Tensor], Computes::WithTensor(Binary::$b)),
                form(&[Result, Source, Number], Computes::WithValue(Binary::$b)),
            ],
        )
    };
}

const ADD_FORMS: &[Form] = &[
    form(&[Result, Source, Number], Computes::WithValue(Binary::Add)),
    form(
        &[Result, Source, OptNumber(1.0), Tensor],
        Computes::AddScaled { subtract: false },
    ),
];

const CSUB_FORMS: &[Form] = &[
    form(&[Result, Source, Number], Computes::WithValue(Binary::Sub)),
    form(
        &[Result, Source, OptNumber(1.0), Tensor],
        Computes::AddScaled { subtract: true },
    ),
];

const BINARY: &[Entry] = &[
    op("add", ELEMENTWISE, ADD_FORMS),
    op("csub", ELEMENTWISE, CSUB_FORMS),
    with_value!("mul", Mul),
    with_value!("div", Div),
    with_tensor!("cmul", Mul),
    with_tensor!("cdiv", Div),
    with_tensor!("cpow", Pow),
    with_tensor!("cfmod", Fmod),
    with_tensor!("cmod", Fmod),
    with_tensor!("cremainder", Remainder),
    either!("fmod", Fmod),
    either!("mod", Fmod),
    either!("remainder", Remainder),
    either!("cmax", Max),
    either!("cmin", Min),
    with_value!("lshift", Lshift),
    with_value!("rshift", Rshift),
    with_value!("bitand", BitAnd),
    with_value!("bitor", BitOr),
    with_value!("bitxor", BitXor),
    with_tensor!("clshift", Lshift),
    with_tensor!("crshift", Rshift),
    with_tensor!("cbitand", BitAnd),
    with_tensor!("cbitor", BitOr),
    with_tensor!("cbitxor", BitXor),
    op(
        "atan2",
        ELEMENTWISE,
        &[form(&[Result, Source, Tensor], Computes::Atan2)],
    ),
    op(
        "clamp",
        ELEMENTWISE,
        &[form(&[Result, Source, Number, Number], Computes::Clamp)],
    ),
    op(
        "addcmul",
        ELEMENTWISE,
        &[form(
            &[Result, Source, OptNumber(1.0), Tensor, Tensor],
            Computes::AddProduct { divide: false },
        )],
    ),
    op(
        "addcdiv",
        ELEMENTWISE,
        &[form(
            &[Result, Source, OptNumber(1.0), Tensor, Tensor],
            Computes::AddProduct { divide: true },
        )],
    ),
    op(
        "pow",
        ELEMENTWISE,
        &[
            form(&[Result, Source, Number], Computes::Pow),
            form(&[Result, Number, Source], Computes::ValuePow),
        ],
    ),
    op(
        "lerp",
        ELEMENTWISE,
        &[form(&[Result, Source, Tensor, Number], Computes::Lerp)],
    ),
];

/// A comparison: a new ByteTensor, or into a ByteTensor or a tensor of the source's type.
macro_rules! compare {
    ($name:literal, $c:ident) => {
        op(
            $name,
            COMPARISON,
            &[
                form(&[ResultOf(DType::Byte), Source, Number], Computes::Compare(Compare::$c)),
                form(&[Into, Source, Number], Computes::Compare(Compare::$c)),
                form(&[ResultOf(DType::Byte), Source, Tensor], Computes::Compare(Compare::$c)),
                form(&[Into, Source, Tensor], Computes::Compare(Compare::$c)),
            ],
        )
    };
}

const COMPARE: &[Entry] = &[
    compare!("lt", Lt),
    compare!("le", Le),
    compare!("gt", Gt),
    compare!("ge", Ge),
    compare!("eq", Eq),
    compare!("ne", Ne),
    op("equal", COMPARISON, &[of(&[Source, Tensor]), of(&[Number, Number])]),
];

/// The LongTensor of the indices that max, min and the order statistics return beside their
/// values (`[resval, resind,] src, ...`).
const INDICES: Param = ResultOf(DType::Long);

const REDUCE: &[Entry] = &[
    op("sum", REDUCTION, &[of(&[Source]), of(&[Result, Source, Dim])]),
    op("prod", REDUCTION, &[of(&[Source]), of(&[Result, Source, Dim])]),
    op("mean", REDUCTION, &[of(&[Source]), of(&[Result, Source, Dim])]),
    op("max", REDUCTION, &[of(&[Source]), of(&[Result, INDICES, Source, Dim])]),
    op("min", REDUCTION, &[of(&[Source]), of(&[Result, INDICES, Source, Dim])]),
    op(
        "var",
        REDUCTION,
        &[
            of(&[Source, OptBool(false)]),
            of(&[Result, Source, Dim, OptBool(false)]),
        ],
    ),
    op(
        "std",
        REDUCTION,
        &[
            of(&[Source, OptBool(false)]),
            of(&[Result, Source, Dim, OptBool(false)]),
        ],
    ),
    op(
        "norm",
        REDUCTION,
        &[of(&[Source, OptNumber(2.0)]), of(&[Result, Source, Number, Dim])],
    ),
    op("dist", REDUCTION, &[of(&[Source, Tensor, OptNumber(2.0)])]),
    op("all", REDUCTION, &[of(&[Source])]),
    op("any", REDUCTION, &[of(&[Source])]),
    op("cumsum", REDUCTION, &[of(&[Result, Source, OptDim])]),
    op("cumprod", REDUCTION, &[of(&[Result, Source, OptDim])]),
    op(
        "sort",
        REDUCTION,
        &[of(&[Result, INDICES, Source, OptDim, OptBool(false)])],
    ),
    // k, dim, largest first, sorted.
    op(
        "topk",
        REDUCTION,
        &[of(&[
            Result,
            INDICES,
            Source,
            OptNumber(1.0),
            OptDim,
            OptBool(false),
            OptBool(false),
        ])],
    ),
    op("kthvalue", REDUCTION, &[of(&[Result, INDICES, Source, Number, OptDim])]),
    op("median", REDUCTION, &[of(&[Result, INDICES, Source, OptDim])]),
    op("mode", REDUCTION, &[of(&[Result, INDICES, Source, OptDim])]),
    // p, dim, maxnorm.
    op("renorm", REDUCTION, &[of(&[Result, Source, Number, Dim, Number])]),
    // nbins, min, max (min == max: the data's range).
    op(
        "histc",
        REDUCTION,
        &[of(&[Result, Source, OptNumber(100.0), OptNumber(0.0), OptNumber(0.0)])],
    ),
    op(
        "bhistc",
        REDUCTION,
        &[of(&[Result, Source, OptNumber(100.0), OptNumber(0.0), OptNumber(0.0)])],
    ),
];

/// `torch.addmm([res,] [beta,] M, [alpha,] x, y)`; `res:addmm([M,] [alpha,] x, y)` or
/// `res:addmm(beta, [M,] alpha, x, y)`, M being res when left out.
const fn add_product(name: &'static str) -> Entry {
    const FUNCTION: &[Form] = &[of(&[Result, OptNumber(1.0), Tensor, OptNumber(1.0), Tensor, Tensor])];
    const METHOD: &[Form] = &[
        of(&[Result, OptTensor, OptNumber(1.0), Tensor, Tensor]),
        of(&[Result, Number, OptTensor, Number, Tensor, Tensor]),
    ];
    Entry {
        name,
        policy: PRODUCT,
        forms: FUNCTION,
        method_forms: METHOD,
    }
}

const LINALG: &[Entry] = &[
    add_product("addmm"),
    add_product("addmv"),
    add_product("addr"),
    add_product("addbmm"),
    add_product("baddbmm"),
    op("mm", PRODUCT, &[of(&[Result, Tensor, Tensor])]),
    op("mv", PRODUCT, &[of(&[Result, Tensor, Tensor])]),
    op("ger", PRODUCT, &[of(&[Result, Tensor, Tensor])]),
    op("bmm", PRODUCT, &[of(&[Result, Tensor, Tensor])]),
    op("dot", REDUCTION, &[of(&[Source, Tensor])]),
    op("trace", REDUCTION, &[of(&[Source])]),
    op("cross", REDUCTION, &[of(&[Result, Source, Tensor, OptDim])]),
    // k.
    op("diag", REDUCTION, &[of(&[Result, Source, OptNumber(0.0)])]),
    op("tril", REDUCTION, &[of(&[Result, Source, OptNumber(0.0)])]),
    op("triu", REDUCTION, &[of(&[Result, Source, OptNumber(0.0)])]),
];

// LAPACK's one-letter options, with Torch7's defaults.
const UPLO: Param = Choice("UL", b'U');
const TRANS: Param = Choice("NT", b'N');
const DIAG: Param = Choice("NU", b'N');
const JOBZ: Param = Choice("NV", b'N');
const JOBU: Param = Choice("AS", b'S');
const SIDE: Param = Choice("LR", b'L');

/// A LAPACK function as Torch7's cwrap declares it: every result tensor given, or none (the
/// second form); `results` lists them, `rest` the operands and options after them.
macro_rules! lapack {
    ($name:literal, [$($result:expr),*], [$($rest:expr),*]) => {
        op($name, LAPACK, &[of(&[$($result,)* $($rest),*]), of(&[$($rest),*])])
    };
}

const LAPACK_OPS: &[Entry] = &[
    lapack!("gesv", [Into, Into], [Tensor, Tensor]),
    lapack!("gels", [Into, Into], [Tensor, Tensor]),
    lapack!("trtrs", [Into, Into], [Tensor, Tensor, UPLO, TRANS, DIAG]),
    lapack!("symeig", [Into, Into], [Tensor, JOBZ, UPLO]),
    lapack!("eig", [Into, Into], [Tensor, JOBZ]),
    lapack!("svd", [Into, Into, Into], [Tensor, JOBU]),
    lapack!("inverse", [Into], [Tensor]),
    lapack!("potrf", [Into], [Tensor, UPLO]),
    lapack!("potrs", [Into], [Tensor, Tensor, UPLO]),
    lapack!("potri", [Into], [Tensor, UPLO]),
    // uplo, tolerance (negative: LAPACK's own).
    lapack!("pstrf", [Into, IntoOf(DType::Int)], [Tensor, UPLO, OptNumber(-1.0)]),
    lapack!("qr", [Into, Into], [Tensor]),
    lapack!("geqrf", [Into, Into], [Tensor]),
    lapack!("orgqr", [Into], [Tensor, Tensor]),
    lapack!("ormqr", [Into], [Tensor, Tensor, Tensor, SIDE, TRANS]),
];

/// `[res,] input, kernel [, 'V' | 'F']`: valid (the default) or full.
const CONVOLVE: &[Form] = &[of(&[Result, Source, Tensor, Choice("VF", b'V')])];

const CONVOLUTIONS: &[Entry] = &[
    op("conv2", CONVOLUTION, CONVOLVE),
    op("xcorr2", CONVOLUTION, CONVOLVE),
    op("conv3", CONVOLUTION, CONVOLVE),
    op("xcorr3", CONVOLUTION, CONVOLVE),
];

/// Every op, by family.
pub const TABLE: &[&[Entry]] = &[UNARY, BINARY, COMPARE, REDUCE, LINALG, LAPACK_OPS, CONVOLUTIONS];

/// Every op.
pub fn entries() -> impl Iterator<Item = &'static Entry> {
    TABLE.iter().flat_map(|family| family.iter())
}

/// Whether `e` is one of the comparisons (lt, ..., equal): told by the table it is in, not by
/// its policy, which other ops may share.
pub fn is_comparison(e: &Entry) -> bool {
    COMPARE.iter().any(|c| c.name == e.name)
}

/// The op called `name`. Every name a method asks for is in the table (a unit test checks the
/// installed methods).
pub fn entry(name: &str) -> &'static Entry {
    // Looked up on every call of a reduction: an index by name, built once.
    static INDEX: std::sync::OnceLock<rustc_hash::FxHashMap<&'static str, &'static Entry>> = std::sync::OnceLock::new();
    INDEX
        .get_or_init(|| entries().map(|e| (e.name, e)).collect())
        .get(name)
        .copied()
        .unwrap_or_else(|| panic!("no argument forms for {name}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_forms_well_made() {
        let mut names: Vec<&str> = entries().map(|e| e.name).collect();
        let n = names.len();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), n, "a name is listed twice");
        for e in entries() {
            let elementwise = e.policy == ELEMENTWISE || (is_comparison(e) && e.name != "equal");
            for f in e.forms.iter().chain(e.method_forms) {
                // The binder enumerates the optional parameters of a form as bits.
                assert!(f.params.len() <= 16, "{}", e.name);
                assert_eq!(f.computes != Computes::Method, elementwise, "{}", e.name);
            }
        }
        assert_eq!(entry("add").forms.len(), 2);
        assert_eq!(entry("addmm").forms(true).len(), 2);
        assert_eq!(entry("addmm").forms(false).len(), 1);
        assert_eq!(entry("trtrs").forms(false)[1].params.len(), 5);
    }
}
