//! The argument forms of every host tensor op, in one table: for each Lua name, how its family
//! reads arguments (`Policy`), the forms tried in order, and what each form computes
//! (`computes::Computes`). The table is the one list of ops: the host (`methods::ops`) and the
//! device (`cuda::lua::math`) install theirs by walking it, each mapping what a form computes to
//! its kernel, and bind arguments with `forms::bind`.

use super::computes::{Computes, Lapack, Order, Reduction};
use super::param::{COMPARISON, CONVOLUTION, ELEMENTWISE, LAPACK, PRODUCT, Param, Policy, REDUCTION};
use crate::torch::base::dtype::DType;
use crate::torch::kernels::conv::Orientation;
use crate::torch::kernels::linalg::Product;
use crate::torch::kernels::math::{Binary, Compare, Unary};

use Param::*;

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
    op(
        "equal",
        COMPARISON,
        &[
            form(&[Source, Tensor], Computes::Equal),
            form(&[Number, Number], Computes::EqualNumbers),
        ],
    ),
];

/// The LongTensor of the indices that max, min and the order statistics return beside their
/// values (`[resval, resind,] src, ...`).
const INDICES: Param = ResultOf(DType::Long);

/// A reduction: `whole` the parameters of its form that reduces every element to a number,
/// `along` those of its form that reduces along a dimension.
macro_rules! reduction {
    ($name:literal, $r:ident, $whole:expr, $along:expr) => {
        op(
            $name,
            REDUCTION,
            &[
                form($whole, Computes::Whole(Reduction::$r)),
                form($along, Computes::Along(Reduction::$r)),
            ],
        )
    };
}

/// An order statistic (`[resval, resind,] src, ...`).
macro_rules! order {
    ($name:literal, $o:ident, $params:expr) => {
        op($name, REDUCTION, &[form($params, Computes::Order(Order::$o))])
    };
}

const REDUCE: &[Entry] = &[
    reduction!("sum", Sum, &[Source], &[Result, Source, Dim]),
    reduction!("prod", Prod, &[Source], &[Result, Source, Dim]),
    reduction!("mean", Mean, &[Source], &[Result, Source, Dim]),
    reduction!("max", Max, &[Source], &[Result, INDICES, Source, Dim]),
    reduction!("min", Min, &[Source], &[Result, INDICES, Source, Dim]),
    // biased.
    reduction!(
        "var",
        Var,
        &[Source, OptBool(false)],
        &[Result, Source, Dim, OptBool(false)]
    ),
    reduction!(
        "std",
        Std,
        &[Source, OptBool(false)],
        &[Result, Source, Dim, OptBool(false)]
    ),
    // p.
    reduction!("norm", Norm, &[Source, OptNumber(2.0)], &[Result, Source, Number, Dim]),
    op(
        "dist",
        REDUCTION,
        &[form(&[Source, Tensor, OptNumber(2.0)], Computes::Dist)],
    ),
    op("all", REDUCTION, &[form(&[Source], Computes::Logical { any: false })]),
    op("any", REDUCTION, &[form(&[Source], Computes::Logical { any: true })]),
    op(
        "cumsum",
        REDUCTION,
        &[form(&[Result, Source, OptDim], Computes::Scan { product: false })],
    ),
    op(
        "cumprod",
        REDUCTION,
        &[form(&[Result, Source, OptDim], Computes::Scan { product: true })],
    ),
    // dim, descending.
    order!("sort", Sort, &[Result, INDICES, Source, OptDim, OptBool(false)]),
    // k, dim, largest first, sorted.
    order!(
        "topk",
        TopK,
        &[
            Result,
            INDICES,
            Source,
            OptNumber(1.0),
            OptDim,
            OptBool(false),
            OptBool(false),
        ]
    ),
    order!("kthvalue", KthValue, &[Result, INDICES, Source, Number, OptDim]),
    order!("median", Median, &[Result, INDICES, Source, OptDim]),
    order!("mode", Mode, &[Result, INDICES, Source, OptDim]),
    // p, dim, maxnorm.
    op(
        "renorm",
        REDUCTION,
        &[form(&[Result, Source, Number, Dim, Number], Computes::Renorm)],
    ),
    // nbins, min, max (min == max: the data's range).
    op(
        "histc",
        REDUCTION,
        &[form(HISTOGRAM, Computes::Histogram { rows: false })],
    ),
    op(
        "bhistc",
        REDUCTION,
        &[form(HISTOGRAM, Computes::Histogram { rows: true })],
    ),
];

const HISTOGRAM: &[Param] = &[Result, Source, OptNumber(100.0), OptNumber(0.0), OptNumber(0.0)];

/// The forms of an added product: `torch.addmm([res,] [beta,] M, [alpha,] x, y)`;
/// `res:addmm([M,] [alpha,] x, y)` or `res:addmm(beta, [M,] alpha, x, y)`, M being res when left
/// out.
const ADDED_FUNCTION: &[Param] = &[Result, OptNumber(1.0), Tensor, OptNumber(1.0), Tensor, Tensor];
const ADDED_METHOD: [&[Param]; 2] = [
    &[Result, OptTensor, OptNumber(1.0), Tensor, Tensor],
    &[Result, Number, OptTensor, Number, Tensor, Tensor],
];

/// A product of `shape` added to M (addmm, ...), in the forms above.
macro_rules! add_product {
    ($name:literal, $shape:ident) => {{
        const C: Computes = Computes::Product {
            shape: Product::$shape,
            adds: true,
        };
        Entry {
            name: $name,
            policy: PRODUCT,
            forms: &[form(ADDED_FUNCTION, C)],
            method_forms: &[form(ADDED_METHOD[0], C), form(ADDED_METHOD[1], C)],
        }
    }};
}

/// A product of `shape` alone: `torch.mm([res,] x, y)`, `res:mm(x, y)`.
macro_rules! product {
    ($name:literal, $shape:ident) => {
        op(
            $name,
            PRODUCT,
            &[form(
                &[Result, Tensor, Tensor],
                Computes::Product {
                    shape: Product::$shape,
                    adds: false,
                },
            )],
        )
    };
}

const LINALG: &[Entry] = &[
    add_product!("addmm", Mm),
    add_product!("addmv", Mv),
    add_product!("addr", Ger),
    add_product!("addbmm", AddBmm),
    add_product!("baddbmm", Bmm),
    product!("mm", Mm),
    product!("mv", Mv),
    product!("ger", Ger),
    product!("bmm", Bmm),
    op("dot", REDUCTION, &[form(&[Source, Tensor], Computes::Dot)]),
    op("trace", REDUCTION, &[form(&[Source], Computes::Trace)]),
    op(
        "cross",
        REDUCTION,
        &[form(&[Result, Source, Tensor, OptDim], Computes::Cross)],
    ),
    // k.
    op("diag", REDUCTION, &[form(DIAGONAL, Computes::Diag)]),
    op("tril", REDUCTION, &[form(DIAGONAL, Computes::Triangle { lower: true })]),
    op(
        "triu",
        REDUCTION,
        &[form(DIAGONAL, Computes::Triangle { lower: false })],
    ),
];

/// `[res,] x [, k]`.
const DIAGONAL: &[Param] = &[Result, Source, OptNumber(0.0)];

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
    ($name:literal, $f:ident, [$($result:expr),*], [$($rest:expr),*]) => {
        op(
            $name,
            LAPACK,
            &[
                form(&[$($result,)* $($rest),*], Computes::Lapack(Lapack::$f)),
                form(&[$($rest),*], Computes::Lapack(Lapack::$f)),
            ],
        )
    };
}

const LAPACK_OPS: &[Entry] = &[
    lapack!("gesv", Gesv, [Into, Into], [Tensor, Tensor]),
    lapack!("gels", Gels, [Into, Into], [Tensor, Tensor]),
    lapack!("trtrs", Trtrs, [Into, Into], [Tensor, Tensor, UPLO, TRANS, DIAG]),
    lapack!("symeig", Symeig, [Into, Into], [Tensor, JOBZ, UPLO]),
    lapack!("eig", Eig, [Into, Into], [Tensor, JOBZ]),
    lapack!("svd", Svd, [Into, Into, Into], [Tensor, JOBU]),
    lapack!("inverse", Inverse, [Into], [Tensor]),
    lapack!("potrf", Potrf, [Into], [Tensor, UPLO]),
    lapack!("potrs", Potrs, [Into], [Tensor, Tensor, UPLO]),
    lapack!("potri", Potri, [Into], [Tensor, UPLO]),
    // uplo, tolerance (negative: LAPACK's own).
    lapack!(
        "pstrf",
        Pstrf,
        [Into, IntoOf(DType::Int)],
        [Tensor, UPLO, OptNumber(-1.0)]
    ),
    lapack!("qr", Qr, [Into, Into], [Tensor]),
    lapack!("geqrf", Geqrf, [Into, Into], [Tensor]),
    lapack!("orgqr", Orgqr, [Into], [Tensor, Tensor]),
    lapack!("ormqr", Ormqr, [Into], [Tensor, Tensor, Tensor, SIDE, TRANS]),
];

/// `[res,] input, kernel [, 'V' | 'F']`: valid (the default) or full, in `dims` dimensions.
macro_rules! convolution {
    ($name:literal, $dims:literal, $o:ident) => {
        op(
            $name,
            CONVOLUTION,
            &[form(
                &[Result, Source, Tensor, Choice("VF", b'V')],
                Computes::Convolution {
                    dims: $dims,
                    orientation: Orientation::$o,
                },
            )],
        )
    };
}

const CONVOLUTIONS: &[Entry] = &[
    convolution!("conv2", 2, Convolution),
    convolution!("xcorr2", 2, Correlation),
    convolution!("conv3", 3, Convolution),
    convolution!("xcorr3", 3, Correlation),
];

/// Every op, by family.
pub const TABLE: &[&[Entry]] = &[UNARY, BINARY, COMPARE, REDUCE, LINALG, LAPACK_OPS, CONVOLUTIONS];

/// Every op.
pub fn entries() -> impl Iterator<Item = &'static Entry> {
    TABLE.iter().flat_map(|family| family.iter())
}

/// The op called `name`, if there is one.
pub fn find(name: &str) -> Option<&'static Entry> {
    // Looked up by name where a caller names its op at run time (`bindForms` from Lua): an
    // index by name, built once.
    static INDEX: std::sync::OnceLock<rustc_hash::FxHashMap<&'static str, &'static Entry>> = std::sync::OnceLock::new();
    INDEX
        .get_or_init(|| entries().map(|e| (e.name, e)).collect())
        .get(name)
        .copied()
}

/// The op called `name`, which must be in the table.
pub fn entry(name: &str) -> &'static Entry {
    find(name).unwrap_or_else(|| panic!("no argument forms for {name}"))
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
            let comparison = COMPARE.iter().any(|c| c.name == e.name) && e.name != "equal";
            for f in e.forms.iter().chain(e.method_forms) {
                // The binder enumerates the optional parameters of a form as bits.
                assert!(f.params.len() <= 16, "{}", e.name);
                assert_eq!(
                    f.computes.is_elementwise(),
                    e.policy == ELEMENTWISE || comparison,
                    "{}",
                    e.name
                );
                assert_eq!(matches!(f.computes, Computes::Compare(_)), comparison, "{}", e.name);
            }
        }
        assert_eq!(entry("add").forms.len(), 2);
        assert_eq!(entry("addmm").forms(true).len(), 2);
        assert_eq!(entry("addmm").forms(false).len(), 1);
        assert_eq!(entry("trtrs").forms(false)[1].params.len(), 5);
        assert!(find("nosuchop").is_none());
    }

    /// What the forms of `name` compute (the method's forms, then the function's where they
    /// differ).
    fn computes(name: &str) -> Vec<Computes> {
        let e = entry(name);
        e.forms.iter().chain(e.method_forms).map(|f| f.computes).collect()
    }

    #[test]
    fn every_form_names_its_computation() {
        // The elementwise ops as they were named before the others were.
        assert_eq!(computes("sqrt"), [Computes::Unary(Unary::Sqrt)]);
        assert_eq!(
            computes("add"),
            [
                Computes::WithValue(Binary::Add),
                Computes::AddScaled { subtract: false }
            ]
        );
        assert_eq!(
            computes("fmod"),
            [Computes::WithTensor(Binary::Fmod), Computes::WithValue(Binary::Fmod)]
        );
        assert_eq!(computes("pow"), [Computes::Pow, Computes::ValuePow]);
        assert_eq!(computes("lt"), [Computes::Compare(Compare::Lt); 4]);
        // A reduction: the whole tensor (cwrap's sumall), then along a dimension.
        for (name, r) in [
            ("sum", Reduction::Sum),
            ("prod", Reduction::Prod),
            ("mean", Reduction::Mean),
            ("max", Reduction::Max),
            ("min", Reduction::Min),
            ("var", Reduction::Var),
            ("std", Reduction::Std),
            ("norm", Reduction::Norm),
        ] {
            assert_eq!(computes(name), [Computes::Whole(r), Computes::Along(r)], "{name}");
        }
        let product = |shape, adds| Computes::Product { shape, adds };
        assert_eq!(computes("mm"), [product(Product::Mm, false)]);
        assert_eq!(computes("bmm"), [product(Product::Bmm, false)]);
        assert_eq!(computes("addmv"), [product(Product::Mv, true); 3]);
        assert_eq!(computes("baddbmm"), [product(Product::Bmm, true); 3]);
        assert_eq!(computes("addbmm"), [product(Product::AddBmm, true); 3]);
        assert_eq!(computes("equal"), [Computes::Equal, Computes::EqualNumbers]);
        assert_eq!(computes("cumprod"), [Computes::Scan { product: true }]);
        assert_eq!(computes("topk"), [Computes::Order(Order::TopK)]);
        assert_eq!(computes("pstrf"), [Computes::Lapack(Lapack::Pstrf); 2]);
        assert_eq!(
            computes("xcorr3"),
            [Computes::Convolution {
                dims: 3,
                orientation: Orientation::Correlation
            }]
        );
        // Apart from the elementwise ops (which share a computation between names: mod is
        // fmod), each op computes something of its own.
        let mut named: Vec<(String, &str)> = entries()
            .filter(|e| !e.forms[0].computes.is_elementwise())
            .map(|e| (format!("{:?}", e.forms[0].computes), e.name))
            .collect();
        let n = named.len();
        named.sort();
        named.dedup_by(|a, b| a.0 == b.0);
        assert_eq!(named.len(), n, "two ops compute the same");
    }
}
