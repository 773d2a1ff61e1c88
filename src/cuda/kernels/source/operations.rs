//! The operation tables (part of the kernel program's text): every elementwise operation and
//! reduction the kernels know, by name, as C expressions per element type. An operation's number
//! (what the kernels switch on) is its place in its table, so the table is the one list of device
//! operations.

/// An elementwise operation: its name, its expression for floating types, and for long (None:
/// not defined on integers). `x`, `y`, `z` are the operands' elements, `v`, `w` the numbers.
pub struct Pointwise {
    pub name: &'static str,
    pub float: &'static str,
    pub long: Option<&'static str>,
}

const fn pw(name: &'static str, float: &'static str, long: Option<&'static str>) -> Pointwise {
    Pointwise { name, float, long }
}

pub const POINTWISE: &[Pointwise] = &[
    pw("fill", "v", Some("v")),
    pw("copy", "x", Some("x")),
    // Numbers.
    pw("add_n", "x + v", Some("x + v")),
    pw("mul_n", "x * v", Some("x * v")),
    pw("div_n", "x / v", Some("l_div(x, v)")),
    pw("fmod_n", "fmod(x, v)", Some("l_mod(x, v)")),
    pw("remainder_n", "f_rem(x, v)", Some("l_rem(x, v)")),
    pw("pow_n", "pow(x, v)", Some("l_pow(x, v)")),
    pw("tpow_n", "pow(v, x)", Some("l_pow(v, x)")),
    pw("max_n", "big(x, v)", Some("big(x, v)")),
    pw("min_n", "small(x, v)", Some("small(x, v)")),
    pw(
        "clamp",
        "x < v ? v : (x > w ? w : x)",
        Some("x < v ? v : (x > w ? w : x)"),
    ),
    // Tensors (v: the scale of y where there is one).
    pw("add", "x + v * y", Some("x + v * y")),
    pw("cmul", "x * y", Some("x * y")),
    pw("cdiv", "x / y", Some("l_div(x, y)")),
    pw("cpow", "pow(x, y)", Some("l_pow(x, y)")),
    pw("cfmod", "fmod(x, y)", Some("l_mod(x, y)")),
    pw("cremainder", "f_rem(x, y)", Some("l_rem(x, y)")),
    pw("cmax", "big(x, y)", Some("big(x, y)")),
    pw("cmin", "small(x, y)", Some("small(x, y)")),
    pw("atan2", "atan2(x, y)", None),
    pw("lerp", "x + v * (y - x)", None),
    pw("addcmul", "x + v * y * z", Some("x + v * y * z")),
    pw("addcdiv", "x + v * y / z", Some("x + l_div(v * y, z)")),
    // Comparisons: 1 where true, 0 elsewhere, in the operand's type (as cutorch's CudaTensor
    // comparisons gave).
    pw("lt_n", "x < v", Some("x < v")),
    pw("le_n", "x <= v", Some("x <= v")),
    pw("gt_n", "x > v", Some("x > v")),
    pw("ge_n", "x >= v", Some("x >= v")),
    pw("eq_n", "x == v", Some("x == v")),
    pw("ne_n", "x != v", Some("x != v")),
    pw("lt", "x < y", Some("x < y")),
    pw("le", "x <= y", Some("x <= y")),
    pw("gt", "x > y", Some("x > y")),
    pw("ge", "x >= y", Some("x >= y")),
    pw("eq", "x == y", Some("x == y")),
    pw("ne", "x != y", Some("x != y")),
    pw("masked_fill", "y != 0 ? v : x", Some("y != 0 ? v : x")),
    // By position: `i` is the element's place in logical order, `n` the element count.
    // Triangles of a matrix with w columns, from diagonal v (0 the main one, above it positive).
    pw(
        "tril",
        "(i % (ll)w) - (i / (ll)w) <= (ll)v ? x : (T)0",
        Some("(i % w) - (i / w) <= v ? x : 0"),
    ),
    pw(
        "triu",
        "(i % (ll)w) - (i / (ll)w) >= (ll)v ? x : (T)0",
        Some("(i % w) - (i / w) >= v ? x : 0"),
    ),
    // v, v + w, v + 2w, ... (range).
    pw("arange", "v + (T)i * w", Some("v + i * w")),
    // n points from v to w, as the host computes them in the element type; logspace is 10 to
    // the power of each.
    pw("linspace", "n == 1 ? v : v + (T)i * (w - v) / (T)(n - 1)", None),
    pw(
        "logspace",
        "(T)pow(10.0, (double)(n == 1 ? v : v + (T)i * (w - v) / (T)(n - 1)))",
        None,
    ),
    // Functions of one element.
    pw("neg", "-x", Some("(ll)(0ULL - (unsigned long long)x)")),
    pw("abs", "fabs(x)", Some("l_abs(x)")),
    pw("sign", "f_sign(x)", Some("(ll)((x > 0) - (x < 0))")),
    pw("exp", "exp(x)", None),
    pw("log", "log(x)", None),
    pw("log1p", "log1p(x)", None),
    pw("sqrt", "sqrt(x)", None),
    pw("rsqrt", "1 / sqrt(x)", None),
    pw("cinv", "1 / x", None),
    pw("tanh", "tanh(x)", None),
    pw("sigmoid", "f_sigmoid(x)", None),
    pw("sinh", "sinh(x)", None),
    pw("cosh", "cosh(x)", None),
    pw("sin", "sin(x)", None),
    pw("cos", "cos(x)", None),
    pw("tan", "tan(x)", None),
    pw("asin", "asin(x)", None),
    pw("acos", "acos(x)", None),
    pw("atan", "atan(x)", None),
    pw("floor", "floor(x)", None),
    pw("ceil", "ceil(x)", None),
    pw("round", "round(x)", None),
    pw("trunc", "trunc(x)", None),
    pw("frac", "f_frac(x)", None),
];

/// A reduction: name, and its parts for floating types and for long (None: not on integers),
/// as C expressions: `init` the neutral accumulator, `map` of an element `x` (with parameter
/// `p`), `comb` of accumulators `a` and `b`, `fin` of the accumulator `acc` over `count`
/// elements. `A` is the accumulator type (double for float and double, long for long), `T` the
/// element type.
pub struct Reduction {
    pub name: &'static str,
    pub float: Option<Red>,
    pub long: Option<Red>,
}

#[derive(Clone, Copy)]
pub struct Red {
    pub init: &'static str,
    pub map: &'static str,
    pub comb: &'static str,
    pub fin: &'static str,
}

const fn red(init: &'static str, map: &'static str, comb: &'static str, fin: &'static str) -> Option<Red> {
    Some(Red { init, map, comb, fin })
}

const SUM: &str = "a + b";
const MAX: &str = "beats_max(b, a) ? b : a";
const MIN: &str = "beats_min(b, a) ? b : a";

pub const REDUCTIONS: &[Reduction] = &[
    Reduction {
        name: "sum",
        float: red("0", "(A)x", SUM, "acc"),
        long: red("0", "(A)x", SUM, "acc"),
    },
    Reduction {
        name: "mean",
        float: red("0", "(A)x", SUM, "acc / (A)count"),
        long: red("0", "(A)x", SUM, "count == 0 ? 0 : acc / count"),
    },
    Reduction {
        name: "prod",
        float: red("1", "(A)x", "a * b", "acc"),
        long: red("1", "(A)x", "a * b", "acc"),
    },
    Reduction {
        name: "max",
        float: red("-INF_D", "(A)x", MAX, "acc"),
        long: red("LL_MIN", "(A)x", MAX, "acc"),
    },
    Reduction {
        name: "min",
        float: red("INF_D", "(A)x", MIN, "acc"),
        long: red("LL_MAX", "(A)x", MIN, "acc"),
    },
    // Norms: p = 0 counts non-zeros, 1 and 2 have their own maps, others use pow; infinity is
    // the largest absolute value.
    Reduction {
        name: "norm0",
        float: red("0", "(A)(x != (T)0)", SUM, "acc"),
        long: None,
    },
    Reduction {
        name: "norm1",
        float: red("0", "fabs((A)x)", SUM, "acc"),
        long: None,
    },
    Reduction {
        name: "norm2",
        float: red("0", "(A)x * (A)x", SUM, "sqrt(acc)"),
        long: None,
    },
    Reduction {
        name: "normp",
        float: red("0", "pow(fabs((A)x), (A)p)", SUM, "pow(acc, (A)(1 / p))"),
        long: None,
    },
    Reduction {
        name: "norminf",
        float: red("0", "fabs((A)x)", MAX, "acc"),
        long: None,
    },
    // Counts the positions outside 1..=p (the check of gather's and scatter's positions).
    Reduction {
        name: "outside",
        float: None,
        long: red("0", "(A)(x < 1 || (double)x > p)", SUM, "acc"),
    },
    // Counts the zeros (the check before an integer division).
    Reduction {
        name: "zeros",
        float: red("0", "(A)(x == (T)0)", SUM, "acc"),
        long: red("0", "(A)(x == 0)", SUM, "acc"),
    },
];

/// The operation number of an elementwise operation (what the kernels switch on).
pub fn pointwise_op(name: &str) -> Option<&'static Pointwise> {
    POINTWISE.iter().find(|p| p.name == name)
}

/// The operation number and parts of a reduction.
pub fn reduction_op(name: &str) -> Option<(i32, &'static Reduction)> {
    REDUCTIONS
        .iter()
        .enumerate()
        .find(|(_, r)| r.name == name)
        .map(|(i, r)| (i as i32, r))
}

impl Pointwise {
    pub fn code(&self) -> i32 {
        POINTWISE
            .iter()
            .position(|p| std::ptr::eq(p, self))
            .unwrap_or(usize::MAX) as i32
    }
}
