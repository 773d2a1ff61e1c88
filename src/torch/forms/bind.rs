//! Binding a call's Lua arguments to the first form of its op that fits, as Torch's cwrap does:
//! forms are tried in order; within a form, the parameters that may be left out are tried present
//! before absent (the earlier ones first), and the arguments must then match the parameters one
//! for one. Arguments that fit no form raise Torch7's error:
//! `"<op>: invalid arguments: <given>\nexpected arguments: <form> | <form>"`.

use mlua::Value;
use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use super::computes::Computes;
use super::param::{Param, Receiver, Types};
use super::table::{Entry, Form};
use crate::args::{error, number, type_name};
use crate::torch::base::dtype::DType;
use crate::torch::base::tensor::Tensor;
use crate::torch::family::Family;

/// How the op was called: `x:f(...)` or `torch.f(...)`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Mode {
    Method,
    Function,
}

/// What an argument is, as the forms see it.
enum Kind {
    Tensor(Tensor),
    Number(f64),
    Bool(bool),
    /// A string, by its first byte (0 for the empty string).
    Letter(u8),
    Other,
}

impl Kind {
    fn of<K: Family>(v: &Value) -> Kind {
        if let Some(x) = number(v) {
            return Kind::Number(x);
        }
        if let Some(t) = K::tensor_of(v) {
            return Kind::Tensor(t);
        }
        match v {
            Value::Boolean(b) => Kind::Bool(*b),
            Value::String(s) => Kind::Letter(s.as_bytes().first().copied().unwrap_or(0)),
            _ => Kind::Other,
        }
    }

    fn tensor(&self) -> Option<&Tensor> {
        match self {
            Kind::Tensor(t) => Some(t),
            _ => None,
        }
    }
}

/// A tensor argument: its Lua value and its view.
pub type Dest = (Value, Tensor);

/// The value a parameter of the bound form took.
#[derive(Clone, Copy, Debug)]
enum Slot {
    /// Left out (its default applies).
    Absent,
    /// The tensor at this place in `Bound::given`.
    Tensor(u8),
    Number(f64),
    Bool(bool),
    Letter(u8),
}

/// Room for the arguments and parameters of every form in the table without a heap allocation:
/// binding runs on every method call, and small tensors make its cost visible.
const INLINE: usize = 8;

/// A call bound to one form of its op. The accessors lend what the call was given: nothing is
/// copied unless the method asks.
pub struct Bound {
    /// The form (of the op's forms for this mode) that fitted.
    form: &'static Form,
    slots: SmallVec<[Slot; INLINE]>,
    /// The tensors given, apart from the slots so that a slot stays small.
    given: SmallVec<[Dest; 3]>,
    /// The slot of the receiver of an in-place method, which is also the source when that is
    /// left out.
    receiver: Option<usize>,
}

impl Bound {
    /// What the form that fitted computes.
    pub fn computes(&self) -> Computes {
        self.form.computes
    }

    /// The result tensors given, in order (the receiver of an in-place method among them).
    pub fn results(&self) -> impl Iterator<Item = &Dest> {
        self.of(|p| p.is_result()).filter_map(|s| self.dest(s))
    }

    /// The first result tensor given.
    pub fn result(&self) -> Option<&Dest> {
        self.results().next()
    }

    /// The source tensor: the one given, or the receiver of an in-place method.
    pub fn source(&self) -> Option<&Tensor> {
        self.source_arg().map(|(_, t)| t)
    }

    /// The source tensor and its Lua value.
    pub fn source_arg(&self) -> Option<&Dest> {
        let given = self.of(|p| p == Param::Source).find_map(|s| self.dest(s));
        given.or_else(|| self.receiver.and_then(|i| self.dest(&self.slots[i])))
    }

    /// The other tensor operands given, in order.
    pub fn tensors(&self) -> impl Iterator<Item = &Tensor> {
        self.tensor_args().map(|(_, t)| t)
    }

    /// The other tensor operands given and their Lua values, in order.
    pub fn tensor_args(&self) -> impl Iterator<Item = &Dest> {
        self.of(|p| matches!(p, Param::Tensor | Param::OptTensor))
            .filter_map(|s| self.dest(s))
    }

    /// The other tensor operand `i` (0-based) given.
    pub fn tensor(&self, i: usize) -> Option<&Tensor> {
        self.tensors().nth(i)
    }

    /// The number parameters in order: the value given, the default, or None (an optional
    /// dimension left out).
    pub fn numbers(&self) -> impl Iterator<Item = Option<f64>> + '_ {
        self.params()
            .iter()
            .zip(&self.slots)
            .filter(|(p, _)| p.is_number())
            .map(|(p, s)| match (s, p) {
                (Slot::Number(x), _) => Some(*x),
                (_, Param::OptNumber(d)) => Some(*d),
                _ => None,
            })
    }

    /// Number parameter `i` (0-based): given, its default, or None.
    pub fn number(&self, i: usize) -> Option<f64> {
        self.numbers().nth(i).flatten()
    }

    /// The numbers that have a value (given or by default), in order.
    pub fn values(&self) -> SmallVec<[f64; 4]> {
        self.numbers().flatten().collect()
    }

    /// The boolean parameters in order: the value given or the default.
    pub fn booleans(&self) -> impl Iterator<Item = bool> + '_ {
        self.params().iter().zip(&self.slots).filter_map(|(p, s)| match (s, p) {
            (Slot::Bool(b), _) => Some(*b),
            (_, Param::OptBool(d)) => Some(*d),
            (_, Param::Bool) => Some(false),
            _ => None,
        })
    }

    /// Boolean parameter `i` (0-based): the value given or the default.
    pub fn boolean(&self, i: usize) -> bool {
        self.booleans().nth(i).expect("the form has that boolean")
    }

    /// The one-letter options in order: the letter given or the default.
    pub fn letters(&self) -> impl Iterator<Item = u8> + '_ {
        self.params().iter().zip(&self.slots).filter_map(|(p, s)| match (s, p) {
            (Slot::Letter(c), _) => Some(*c),
            (_, Param::Choice(_, d)) => Some(*d),
            _ => None,
        })
    }

    /// One-letter option `i` (0-based): the letter given or the default.
    pub fn letter(&self, i: usize) -> u8 {
        self.letters().nth(i).expect("the form has that option")
    }

    fn params(&self) -> &'static [Param] {
        self.form.params
    }

    fn dest(&self, s: &Slot) -> Option<&Dest> {
        match s {
            Slot::Tensor(i) => Some(&self.given[*i as usize]),
            _ => None,
        }
    }

    fn of(&self, keep: impl Fn(Param) -> bool) -> impl Iterator<Item = &Slot> {
        self.params()
            .iter()
            .zip(&self.slots)
            .filter(move |(p, _)| keep(**p))
            .map(|(_, s)| s)
    }
}

/// How many arguments there are, nils at the end left out.
pub fn given(a: &[Value]) -> usize {
    let mut n = a.len();
    while n > 0 && matches!(a[n - 1], Value::Nil) {
        n -= 1;
    }
    n
}

/// The ways to take `present` of a form's `optional` parameters, as bit masks, the earlier
/// parameters taken first.
fn choices(optional: usize, present: usize) -> Vec<u32> {
    let mut masks: Vec<u32> = (0..1u32 << optional)
        .filter(|m| m.count_ones() as usize == present)
        .collect();
    masks.sort_by_key(|m| std::cmp::Reverse(m.reverse_bits()));
    masks
}

/// Every way to spread a call's arguments over a form (see `spread_list`), shared.
type Spreads = std::rc::Rc<Vec<Vec<Option<usize>>>>;

/// The spreads of a form (see `spread_list`), computed once per form, mode and argument count:
/// every method call binds, and most calls of one op look alike.
fn spreads(params: &'static [Param], in_place: bool, n: usize) -> Spreads {
    type Key = (usize, usize, bool, usize);
    thread_local! {
        static CACHE: std::cell::RefCell<FxHashMap<Key, Spreads>> = Default::default();
    }
    if n > params.len() {
        // More arguments than parameters: no spread (and nothing to remember).
        return std::rc::Rc::new(Vec::new());
    }
    let key = (params.as_ptr() as usize, params.len(), in_place, n);
    CACHE.with(|c| {
        if let Some(s) = c.borrow().get(&key) {
            return s.clone();
        }
        let s = std::rc::Rc::new(spread_list(params, in_place, n));
        c.borrow_mut().insert(key, s.clone());
        s
    })
}

/// For each parameter of `params`, the argument it takes (None: left out), for every way the
/// arguments can be spread over the form, in the order they are tried.
fn spread_list(params: &[Param], in_place: bool, n: usize) -> Vec<Vec<Option<usize>>> {
    let optional = params.iter().filter(|p| p.optional(in_place)).count();
    let required = params.len() - optional;
    if n < required || n - required > optional {
        return Vec::new();
    }
    choices(optional, n - required)
        .into_iter()
        .map(|mask| {
            let (mut bit, mut pos) = (0, 0);
            params
                .iter()
                .map(|p| {
                    let present = !p.optional(in_place) || {
                        bit += 1;
                        mask & (1 << (bit - 1)) != 0
                    };
                    present.then(|| {
                        pos += 1;
                        pos - 1
                    })
                })
                .collect()
        })
        .collect()
}

/// The call's tensor type in a spread: the source's, else the receiver's, else the first
/// tensor's.
fn spread_dtype(params: &[Param], spread: &[Option<usize>], kinds: &[Kind], receiver: Option<DType>) -> Option<DType> {
    let at = |i: usize| spread[i].and_then(|a| kinds[a].tensor()).map(|t| t.dtype);
    let source = params.iter().position(|&p| p == Param::Source).and_then(at);
    source
        .or(receiver)
        .or_else(|| (0..params.len()).filter(|&i| params[i].is_tensor()).find_map(at))
}

fn fits(p: Param, k: &Kind, types: Types, dtype: Option<DType>) -> bool {
    match (p, k) {
        (Param::ResultOf(d) | Param::IntoOf(d), Kind::Tensor(t)) => types == Types::Checked || t.dtype == d,
        (p, Kind::Tensor(t)) if p.is_tensor() => types == Types::Checked || Some(t.dtype) == dtype,
        (p, Kind::Number(_)) => p.is_number(),
        (Param::Bool | Param::OptBool(_), Kind::Bool(_)) => true,
        (Param::Choice(values, _), Kind::Letter(c)) => values.as_bytes().contains(c),
        _ => false,
    }
}

/// Binds the arguments `a` of a call of `entry` (the receiver first for a method) to its first
/// form that fits; tensors are those of family `K`.
pub fn bind<K: Family>(a: &[Value], mode: Mode, entry: &Entry) -> mlua::Result<Bound> {
    let name = entry.name;
    let policy = entry.policy;
    let a = if policy.trailing_nils_absent { &a[..given(a)] } else { a };
    let in_place = mode == Mode::Method && policy.receiver == Receiver::InPlace;
    // Most calls pass at most four arguments; a kind is as large as a tensor's view, so room for
    // more would only be copied about.
    let mut kinds: SmallVec<[Kind; 4]> = a.iter().map(Kind::of::<K>).collect();
    let receiver = match (in_place, kinds.first()) {
        (false, _) => None,
        (true, Some(Kind::Tensor(t))) => Some(t.dtype),
        (true, _) => {
            let got = type_name(a.first().unwrap_or(&Value::Nil));
            return Err(error(name, format!("bad argument #1 (tensor expected, got {got})")));
        }
    };
    let forms = entry.forms(mode == Mode::Method);
    for form in forms {
        for spread in spreads(form.params, in_place, a.len()).iter() {
            let dtype = spread_dtype(form.params, spread, &kinds, receiver);
            let fit = form
                .params
                .iter()
                .zip(spread)
                .all(|(&p, at)| at.is_none_or(|i| fits(p, &kinds[i], policy.types, dtype)));
            if !fit {
                continue;
            }
            // The tensors move out of `kinds`: each argument is taken by one parameter.
            let mut given = SmallVec::new();
            let slots = spread
                .iter()
                .map(
                    |at| match at.map(|i| (&a[i], std::mem::replace(&mut kinds[i], Kind::Other))) {
                        None | Some((_, Kind::Other)) => Slot::Absent,
                        Some((v, Kind::Tensor(t))) => {
                            given.push((v.clone(), t));
                            Slot::Tensor((given.len() - 1) as u8)
                        }
                        Some((_, Kind::Number(x))) => Slot::Number(x),
                        Some((_, Kind::Bool(b))) => Slot::Bool(b),
                        Some((_, Kind::Letter(c))) => Slot::Letter(c),
                    },
                )
                .collect();
            return Ok(Bound {
                form,
                slots,
                given,
                receiver: receiver.and_then(|_| spread.iter().position(|&at| at == Some(0))),
            });
        }
    }
    let dtype = message_dtype(forms, in_place, &kinds, receiver);
    Err(invalid::<K>(name, a, &describe_forms::<K>(forms, in_place, dtype)))
}

/// The tensor type the message of a call that fits no form names: the receiver's for an in-place
/// method; else that of the tensor where a form of as many parameters as there are arguments
/// takes its source; else the first tensor's; else Double.
fn message_dtype(forms: &[Form], in_place: bool, kinds: &[Kind], receiver: Option<DType>) -> DType {
    if let Some(d) = receiver {
        return d;
    }
    let at_source = forms.iter().find_map(|f| {
        let source = f.params.iter().position(|&p| p == Param::Source)?;
        spreads(f.params, in_place, kinds.len())
            .iter()
            .find_map(|s| s[source].and_then(|i| kinds[i].tensor()).map(|t| t.dtype))
    });
    at_source
        .or_else(|| kinds.iter().find_map(|k| k.tensor().map(|t| t.dtype)))
        .unwrap_or(DType::Double)
}

/// `DoubleTensor` for `torch.DoubleTensor` (and `CudaTensor` for `torch.CudaTensor`).
fn short<K: Family>(d: DType) -> String {
    let name = K::tensor_typename(d);
    name.strip_prefix("torch.").unwrap_or(name).to_string()
}

/// The forms as Torch7 lists them: `*DoubleTensor* [DoubleTensor] number | ...`.
pub fn describe_forms<K: Family>(forms: &[Form], in_place: bool, dtype: DType) -> String {
    let t = short::<K>(dtype);
    forms
        .iter()
        .map(|f| {
            let parts: Vec<String> = f.params.iter().map(|p| p.describe(in_place, &t, short::<K>)).collect();
            parts.join(" ")
        })
        .collect::<Vec<_>>()
        .join(" | ")
}

/// The arguments as Torch7 lists them: `DoubleTensor number string`, or `no arguments`.
pub fn describe_args<K: Family>(a: &[Value]) -> String {
    let names: Vec<String> = a
        .iter()
        .map(|v| match K::tensor_of(v) {
            Some(t) => short::<K>(t.dtype),
            None if number(v).is_some() => "number".to_string(),
            // Another family's tensor (a host tensor given to a device op) by its class.
            None if matches!(v, Value::UserData(_)) => {
                let name = type_name(v);
                name.strip_prefix("torch.").map_or(name.clone(), str::to_string)
            }
            None => v.type_name().to_string(),
        })
        .collect();
    if names.is_empty() {
        "no arguments".into()
    } else {
        names.join(" ")
    }
}

/// Torch7's error for arguments `a` that fit none of the forms `expected`.
pub fn invalid<K: Family>(name: &str, a: &[Value], expected: &str) -> mlua::Error {
    error(
        name,
        format!(
            "invalid arguments: {}\nexpected arguments: {expected}",
            describe_args::<K>(a)
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::torch::forms::table::entry;
    use crate::torch::userdata::Host;

    #[test]
    fn optional_parameters_are_taken_earlier_first() {
        // Two of three optional parameters: (0, 1) before (0, 2) before (1, 2).
        assert_eq!(choices(3, 2), vec![0b011, 0b101, 0b110]);
        assert_eq!(choices(2, 1), vec![0b01, 0b10]);
        assert_eq!(choices(0, 0), vec![0]);
        let topk = entry("topk").forms[0].params;
        // Two arguments: the second is tried as a result, as the indices, then as k before the
        // dimension (`t:topk(2)` asks for 2 elements).
        let s = spreads(topk, false, 2);
        assert_eq!(s[0], vec![Some(0), None, Some(1), None, None, None, None]);
        assert_eq!(s[2], vec![None, None, Some(0), Some(1), None, None, None]);
        assert_eq!(s[3], vec![None, None, Some(0), None, Some(1), None, None]);
        assert!(spreads(topk, false, 9).is_empty());
    }

    #[test]
    fn forms_read_like_torch() {
        let add = entry("add");
        assert_eq!(
            describe_forms::<Host>(add.forms, true, DType::Double),
            "*DoubleTensor* [DoubleTensor] number | *DoubleTensor* [DoubleTensor] [number] DoubleTensor"
        );
        assert_eq!(
            describe_forms::<Host>(add.forms, false, DType::Float),
            "[*FloatTensor*] FloatTensor number | [*FloatTensor*] FloatTensor [number] FloatTensor"
        );
        assert_eq!(
            describe_forms::<Host>(entry("max").forms, false, DType::Double),
            "DoubleTensor | [*DoubleTensor*] [*LongTensor*] DoubleTensor index"
        );
        assert_eq!(describe_args::<Host>(&[]), "no arguments");
    }
}
