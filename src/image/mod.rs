//! torch/image, built in: `require 'image'` (lua/image/) over the native module `libimage`.
//! `kernels/` holds the codecs and pixel kernels (no Lua); `lua/` turns Lua arguments into their
//! calls.

pub mod kernels;
pub mod lua;

pub use lua::open;
