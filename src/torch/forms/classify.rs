//! The older resolver by counts that `crate::cuda::sort` still uses for the device order
//! statistics: the arguments sorted into leading tensors, then numbers, then booleans, and its
//! message "invalid arguments (X, Y); expected <forms>". Host methods bind with `forms::bind`;
//! this goes once the device family reads `forms::table` too.

use mlua::Value;

use super::bind::given;
use crate::torch::args::{error, number, type_name};

/// The Lua arguments as cwrap classifies them: leading tensors (with their Lua values), then
/// numbers, then booleans. Trailing nils are ignored.
pub struct Classified<T> {
    pub tensors: Vec<(Value, T)>,
    pub nums: Vec<f64>,
    pub bools: Vec<bool>,
}

/// The error of a call whose arguments fit none of `forms`.
pub fn invalid(a: &[Value], method: &str, forms: &str) -> mlua::Error {
    let got: Vec<String> = a[..given(a)].iter().map(type_name).collect();
    error(
        method,
        format!("invalid arguments ({}); expected {forms}", got.join(", ")),
    )
}

/// `a` classified, the tensors being what `tensor_of` recognizes (a tensor family's own); an
/// invalid-arguments error naming `method` and its `forms` when they come out of that order.
pub fn classify<T>(
    a: &[Value],
    method: &str,
    forms: &str,
    tensor_of: impl Fn(&Value) -> Option<T>,
) -> mlua::Result<Classified<T>> {
    let mut c = Classified {
        tensors: Vec::new(),
        nums: Vec::new(),
        bools: Vec::new(),
    };
    for v in &a[..given(a)] {
        if let Some(t) = tensor_of(v) {
            if c.nums.is_empty() && c.bools.is_empty() {
                c.tensors.push((v.clone(), t));
                continue;
            }
        } else if let Some(x) = number(v) {
            if c.bools.is_empty() {
                c.nums.push(x);
                continue;
            }
        } else if let Value::Boolean(b) = v {
            c.bools.push(*b);
            continue;
        }
        return Err(invalid(a, method, forms));
    }
    Ok(c)
}
