//! The vocabulary of the argument forms: the kinds of parameters a form lists, and the policy of a
//! family of ops (how a method treats its receiver, how strictly tensor types must agree, whether
//! trailing nils count). Plain data: nothing here knows Lua, so a device family can read the same
//! forms (`Param::name` gives each kind a word for a table handed to Lua).

use crate::torch::base::dtype::DType;

/// One parameter of a calling form.
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Param {
    /// The result tensor. The receiver of an in-place method (`res:add(x, 1)`); otherwise an
    /// optional leading argument (left out: a new tensor).
    Result,
    /// A result tensor that must be given (`*DoubleTensor*` in a function's form).
    Into,
    /// An optional result tensor of a fixed type (a comparison's ByteTensor, the LongTensor of
    /// the indices of max or sort).
    ResultOf(DType),
    /// A result tensor of a fixed type that must be given (pstrf's IntTensor of pivots).
    IntoOf(DType),
    /// The tensor the op reads. An in-place method may leave it out: the receiver is then the
    /// source too.
    Source,
    /// Another tensor operand.
    Tensor,
    /// A tensor operand that may be left out (addmm's M, which is then the result).
    OptTensor,
    Number,
    /// A number that may be left out, and its value then.
    OptNumber(f64),
    /// A dimension (1-based, as Lua counts).
    Dim,
    /// A dimension that may be left out (the method knows which it means then).
    OptDim,
    Bool,
    /// A boolean that may be left out, and its value then.
    OptBool(bool),
    /// A one-letter option that may be left out (Torch7's charoption, LAPACK's 'U' or 'L'): a
    /// string whose first letter is one of `values`, else the letter `default`.
    Choice(&'static str, u8),
}

/// What a method's receiver is.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Receiver {
    /// The result: `x:f(...)` works in place on x (elementwise maths, the products).
    InPlace,
    /// The first argument, as in the function form (`x:sum(2)` is `torch.sum(x, 2)`).
    Argument,
}

/// How tensor arguments must agree in type.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Types {
    /// As Torch's cwrap: a tensor of another type than the source's fits no form.
    Strict,
    /// Any tensor fits; the method checks the types after (with messages of its own).
    Checked,
}

/// How a family of ops reads its arguments.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Policy {
    pub receiver: Receiver,
    pub types: Types,
    /// Whether nils at the end are left out (`x:sum(nil)` is `x:sum()`) or count as arguments.
    pub trailing_nils_absent: bool,
}

/// The elementwise maths: in place, cwrap's strict types.
pub const ELEMENTWISE: Policy = Policy {
    receiver: Receiver::InPlace,
    types: Types::Strict,
    trailing_nils_absent: false,
};

/// Comparisons and equal: the same forms as method and function, strict types.
pub const COMPARISON: Policy = Policy {
    receiver: Receiver::Argument,
    types: Types::Strict,
    trailing_nils_absent: false,
};

/// Reductions and the linear algebra that returns new tensors: the receiver is an argument.
pub const REDUCTION: Policy = Policy {
    receiver: Receiver::Argument,
    types: Types::Checked,
    trailing_nils_absent: true,
};

/// LAPACK: functions only, result tensors first, every tensor of the call's type (cwrap's).
pub const LAPACK: Policy = Policy {
    receiver: Receiver::Argument,
    types: Types::Strict,
    trailing_nils_absent: true,
};

/// The convolutions (conv2, xcorr3, ...): the method is the function, every tensor of the
/// call's type (cwrap's), trailing nils left out.
pub const CONVOLUTION: Policy = Policy {
    receiver: Receiver::Argument,
    types: Types::Strict,
    trailing_nils_absent: true,
};

/// The matrix products: in place, types checked after.
pub const PRODUCT: Policy = Policy {
    receiver: Receiver::InPlace,
    types: Types::Checked,
    trailing_nils_absent: true,
};

impl Param {
    /// Whether a call may leave it out; `in_place` is a method call of an in-place op.
    pub fn optional(self, in_place: bool) -> bool {
        match self {
            Param::Result => !in_place,
            Param::Source => in_place,
            Param::ResultOf(_)
            | Param::OptTensor
            | Param::OptNumber(_)
            | Param::OptDim
            | Param::OptBool(_)
            | Param::Choice(..) => true,
            Param::Into | Param::IntoOf(_) | Param::Tensor | Param::Number | Param::Dim | Param::Bool => false,
        }
    }

    /// Whether it takes a tensor.
    pub fn is_tensor(self) -> bool {
        matches!(
            self,
            Param::Result
                | Param::Into
                | Param::ResultOf(_)
                | Param::IntoOf(_)
                | Param::Source
                | Param::Tensor
                | Param::OptTensor
        )
    }

    /// Whether it takes a number.
    pub fn is_number(self) -> bool {
        matches!(self, Param::Number | Param::OptNumber(_) | Param::Dim | Param::OptDim)
    }

    /// Whether it is a result tensor.
    pub fn is_result(self) -> bool {
        matches!(
            self,
            Param::Result | Param::Into | Param::ResultOf(_) | Param::IntoOf(_)
        )
    }

    /// Torch7's text for it in "expected arguments", `t` naming the call's tensor type
    /// (`DoubleTensor`) and `short` any other.
    pub fn describe(self, in_place: bool, t: &str, short: impl Fn(DType) -> String) -> String {
        match self {
            Param::Result if in_place => format!("*{t}*"),
            Param::Result => format!("[*{t}*]"),
            Param::Into => format!("*{t}*"),
            Param::ResultOf(d) => format!("[*{}*]", short(d)),
            Param::IntoOf(d) => format!("*{}*", short(d)),
            Param::Source if in_place => format!("[{t}]"),
            Param::Source | Param::Tensor => t.to_string(),
            Param::OptTensor => format!("[{t}]"),
            Param::Number => "number".into(),
            Param::OptNumber(_) => "[number]".into(),
            Param::Dim => "index".into(),
            Param::OptDim => "[index]".into(),
            Param::Bool => "boolean".into(),
            Param::OptBool(_) => "[boolean]".into(),
            Param::Choice(values, _) => {
                let letters: Vec<String> = values.chars().map(String::from).collect();
                format!("[({})]", letters.join("|"))
            }
        }
    }

    /// Its kind as one word.
    pub fn name(self) -> &'static str {
        match self {
            Param::Result => "result",
            Param::Into => "into",
            Param::ResultOf(_) => "result_of",
            Param::IntoOf(_) => "into_of",
            Param::Source => "source",
            Param::Tensor => "tensor",
            Param::OptTensor => "opt_tensor",
            Param::Number => "number",
            Param::OptNumber(_) => "opt_number",
            Param::Dim => "dim",
            Param::OptDim => "opt_dim",
            Param::Bool => "boolean",
            Param::OptBool(_) => "opt_boolean",
            Param::Choice(..) => "choice",
        }
    }
}
