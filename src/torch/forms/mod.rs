//! Argument forms: the table of every host op's forms (`table`, in the vocabulary of `param`, each
//! form naming what it computes in that of `computes`), and the one resolver that binds a call's
//! Lua arguments to them and words Torch7's error when none fits (`bind`). Forms are resolved in
//! Rust, where the methods are: one pass over the arguments, no Lua wrapper per call, and the same
//! table serves any tensor family (`bind::bind` is generic over `Family`).

pub mod bind;
pub mod computes;
pub mod param;
pub mod table;
