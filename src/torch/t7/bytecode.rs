//! A structural check of LuaJIT bytecode dumps before they reach `lua_load`.
//!
//! LuaJIT's loader trusts the section sizes inside each prototype: a corrupt dump can make it read
//! past the input or allocate according to a garbage count. Functions in .t7 files are such dumps,
//! so the reader walks the dump here first, with every size checked against the bytes present,
//! and only hands over dumps whose layout is sound. (Running a loaded function is another matter:
//! bytecode is not verified by LuaJIT, as in Torch; loading is what torch.load does.)
//!
//! Layout (LuaJIT 2.1 `lj_bcdump.h`): `ESC 'L' 'J' version`, uleb flags, the chunk name unless
//! stripped, then prototypes, each `uleb length` + body, ended by a 0 byte.

/// Flags of the dump header.
const F_BE: u32 = 0x01;
const F_STRIP: u32 = 0x02;
const F_FFI: u32 = 0x04;
const F_FR2: u32 = 0x08;
/// Set by this LuaJIT (luajit2 2.1) for prototypes that use its bitwise operators.
const F_BITOP: u32 = 0x10;
/// Flags this check understands; others may change the layout, so such dumps are refused.
const F_KNOWN: u32 = F_BITOP * 2 - 1;

/// Constant kinds in a prototype's GC constant list; larger values are strings of length tp-5.
const KGC_CHILD: u32 = 0;
const KGC_TAB: u32 = 1;
const KGC_COMPLEX: u32 = 4;
const KGC_STR: u32 = 5;
/// Kinds of table constants; larger values are strings.
const KTAB_NIL: u32 = 0;
const KTAB_INT: u32 = 3;
const KTAB_NUM: u32 = 4;
const KTAB_STR: u32 = 5;
/// Variable-info entries below this are internal names with no string.
const VARNAME_MAX: u8 = 7;

pub const INCOMPATIBLE: &str = "cannot load incompatible bytecode";
pub const MALFORMED: &str = "cannot load malformed bytecode";

/// What this LuaJIT writes: the dump version and flags of `string.dump(function() end)`.
#[derive(Clone, Copy, Debug)]
pub struct Native {
    pub version: u8,
    pub flags: u32,
}

impl Native {
    /// Reads the version and flags from a dump made by the running LuaJIT.
    pub fn from_dump(dump: &[u8]) -> Option<Native> {
        let mut c = Cursor { data: dump, pos: 4 };
        if dump.len() < 5 || &dump[..3] != b"\x1bLJ" {
            return None;
        }
        let flags = c.uleb().ok()?;
        Some(Native {
            version: dump[3],
            flags,
        })
    }
}

struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
}

type Check<T> = Result<T, &'static str>;

impl Cursor<'_> {
    fn left(&self) -> usize {
        self.data.len() - self.pos
    }

    fn byte(&mut self) -> Check<u8> {
        let b = *self.data.get(self.pos).ok_or(MALFORMED)?;
        self.pos += 1;
        Ok(b)
    }

    fn skip(&mut self, n: usize) -> Check<()> {
        if n > self.left() {
            return Err(MALFORMED);
        }
        self.pos += n;
        Ok(())
    }

    /// LuaJIT's uleb128 as a 32-bit value. Longer than 5 bytes cannot come from the dumper and
    /// would make LuaJIT shift past 32 bits: refused.
    fn uleb(&mut self) -> Check<u32> {
        let mut v: u32 = 0;
        for i in 0..5 {
            let b = self.byte()?;
            v |= ((b & 0x7f) as u32).wrapping_shl(7 * i);
            if b < 0x80 {
                return Ok(v);
            }
        }
        Err(MALFORMED)
    }

    /// The 33-bit form used for numeric constants: the low bit of the first byte is a tag.
    fn uleb33(&mut self) -> Check<bool> {
        let first = *self.data.get(self.pos).ok_or(MALFORMED)?;
        self.uleb()?;
        Ok(first & 1 != 0)
    }
}

/// Checks a whole dump. `Err` carries LuaJIT's own wording for the two kinds of failure.
pub fn check(dump: &[u8], native: Native) -> Result<(), &'static str> {
    if dump.len() < 4 || &dump[..3] != b"\x1bLJ" || dump[3] != native.version {
        return Err(INCOMPATIBLE);
    }
    let mut c = Cursor { data: dump, pos: 4 };
    let flags = c.uleb()?;
    if flags & !F_KNOWN != 0 || (flags & F_FR2) != (native.flags & F_FR2) {
        return Err(INCOMPATIBLE);
    }
    // A dump from a machine of the other byte order is swapped by LuaJIT while it reads; the
    // layout checked here does not depend on it except for 16-bit line info, which is data.
    let _ = F_BE;
    let stripped = flags & F_STRIP != 0;
    let ffi = flags & F_FFI != 0;
    if !stripped {
        let len = c.uleb()? as usize;
        c.skip(len)?;
    }
    // LuaJIT keeps finished prototypes on a stack; a child constant pops one.
    let mut stack: usize = 0;
    loop {
        // The dumper always ends with a 0 byte; without it LuaJIT reads on at the buffer's end.
        if c.left() == 0 {
            return Err(MALFORMED);
        }
        if c.data[c.pos] == 0 {
            c.pos += 1;
            break;
        }
        let len = c.uleb()? as usize;
        if len == 0 {
            break;
        }
        if len > c.left() {
            return Err(MALFORMED);
        }
        let body = &c.data[c.pos..c.pos + len];
        c.pos += len;
        let children = check_proto(body, stripped, ffi)?;
        if children > stack {
            return Err(MALFORMED);
        }
        stack = stack - children + 1;
    }
    if c.left() != 0 || stack != 1 {
        return Err(MALFORMED);
    }
    Ok(())
}

/// Checks one prototype body (exactly `body`); returns how many child prototypes it takes.
fn check_proto(body: &[u8], stripped: bool, ffi: bool) -> Check<usize> {
    let mut c = Cursor { data: body, pos: 0 };
    let _flags = c.byte()?;
    let _numparams = c.byte()?;
    let _framesize = c.byte()?;
    let sizeuv = c.byte()? as usize;
    let sizekgc = c.uleb()? as usize;
    let sizekn = c.uleb()? as usize;
    let sizebc = c.uleb()? as usize; // instructions after the implicit first one
    let (mut sizedbg, mut numline) = (0usize, 0usize);
    if !stripped {
        sizedbg = c.uleb()? as usize;
        if sizedbg > 0 {
            let _firstline = c.uleb()?;
            numline = c.uleb()? as usize;
        }
    }
    // Every count is bounded by the bytes it needs, so LuaJIT's 32-bit size arithmetic cannot wrap.
    if sizebc.checked_mul(4).is_none_or(|b| b > c.left())
        || sizekgc > c.left()
        || sizekn > c.left()
        || sizedbg > c.left()
    {
        return Err(MALFORMED);
    }
    c.skip(sizebc * 4)?;
    c.skip(sizeuv * 2)?;
    let mut children = 0;
    for _ in 0..sizekgc {
        let tp = c.uleb()?;
        match tp {
            KGC_CHILD => children += 1,
            KGC_TAB => check_table(&mut c)?,
            _ if tp >= KGC_STR => c.skip((tp - KGC_STR) as usize)?,
            _ => {
                // 64-bit integer and complex constants are FFI cdata: only in FFI dumps.
                if !ffi {
                    return Err(MALFORMED);
                }
                let words = if tp == KGC_COMPLEX { 4 } else { 2 };
                for _ in 0..words {
                    c.uleb()?;
                }
            }
        }
    }
    for _ in 0..sizekn {
        if c.uleb33()? {
            c.uleb()?;
        }
    }
    if sizedbg > 0 {
        let start = c.pos;
        c.skip(sizedbg)?;
        let dbg = &body[start..c.pos];
        check_debug(dbg, sizebc, numline, sizeuv)?;
    }
    if c.left() != 0 {
        return Err(MALFORMED);
    }
    Ok(children)
}

fn check_table(c: &mut Cursor<'_>) -> Check<()> {
    let narray = c.uleb()? as usize;
    let nhash = c.uleb()? as usize;
    // Each entry takes at least one byte (two for a hash pair): no huge preallocation.
    if narray > c.left() || nhash.saturating_mul(2) > c.left() {
        return Err(MALFORMED);
    }
    for _ in 0..narray {
        check_table_value(c)?;
    }
    for _ in 0..nhash {
        // A nil key would be an error inside the loader's table insert.
        if check_table_value(c)? == KTAB_NIL {
            return Err(MALFORMED);
        }
        check_table_value(c)?;
    }
    Ok(())
}

fn check_table_value(c: &mut Cursor<'_>) -> Check<u32> {
    let tp = c.uleb()?;
    match tp {
        KTAB_INT => {
            c.uleb()?;
        }
        KTAB_NUM => {
            let lo = c.uleb()?;
            let hi = c.uleb()?;
            // A NaN key would also fail the insert; NaN values are fine but keys are not known
            // here, so reject NaN outright (the dumper never writes one: NaN folds to 0/0).
            let bits = ((hi as u64) << 32) | lo as u64;
            if f64::from_bits(bits).is_nan() {
                return Err(MALFORMED);
            }
        }
        _ if tp >= KTAB_STR => c.skip((tp - KTAB_STR) as usize)?,
        _ => {}
    }
    Ok(tp)
}

/// Debug info: line numbers (1, 2 or 4 bytes per instruction), then `sizeuv` NUL-terminated
/// upvalue names, then variable records ended by a 0 byte. LuaJIT scans the names and records
/// without bounds, so each must end inside the section.
fn check_debug(dbg: &[u8], sizebc: usize, numline: usize, sizeuv: usize) -> Check<()> {
    let per_line = if numline < 256 {
        1
    } else if numline < 65536 {
        2
    } else {
        4
    };
    let sizeli = sizebc.checked_mul(per_line).ok_or(MALFORMED)?;
    if sizeli > dbg.len() {
        return Err(MALFORMED);
    }
    let mut c = Cursor { data: dbg, pos: sizeli };
    for _ in 0..sizeuv {
        while c.byte()? != 0 {}
    }
    loop {
        let vn = c.byte()?;
        if vn == 0 {
            break;
        }
        if vn >= VARNAME_MAX {
            while c.byte()? != 0 {}
        }
        c.uleb()?;
        c.uleb()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn native_dump(source: &str, strip: bool) -> Vec<u8> {
        let lua = mlua::Lua::new();
        lua.load(source).into_function().unwrap().dump(strip)
    }

    fn native() -> Native {
        Native::from_dump(&native_dump("return 1", false)).unwrap()
    }

    #[test]
    fn accepts_what_luajit_dumps() {
        let src = "local a, b = 1, 'x'; local t = {1, 2.5, 'three', k = true, [10] = -7}
                   local function inner(y) return y + a + 0.5 end
                   return function(...) return inner(select('#', ...)), b, t, 1e300, -2^40, a ~ 3, a & b end";
        for strip in [false, true] {
            let d = native_dump(src, strip);
            assert_eq!(check(&d, native()), Ok(()), "strip={strip}");
        }
        // Bitwise operators set a header flag of their own.
        let d = native_dump("return function(x) return x ~ 1 end", false);
        let d = {
            let lua = mlua::Lua::new();
            let f: mlua::Function = lua.load(&d[..]).eval().unwrap();
            f.dump(false)
        };
        assert_ne!(Native::from_dump(&d).unwrap().flags & F_BITOP, 0);
        assert_eq!(check(&d, native()), Ok(()));
    }

    #[test]
    fn refuses_other_versions_and_garbage() {
        let mut d = native_dump("return 1", false);
        d[3] = 1; // LuaJIT 2.0
        assert_eq!(check(&d, native()), Err(INCOMPATIBLE));
        assert_eq!(check(b"\x1bLua", native()), Err(INCOMPATIBLE));
        assert_eq!(check(b"", native()), Err(INCOMPATIBLE));
        let mut d = native_dump("return 1", false);
        d[4] ^= F_FR2 as u8;
        assert_eq!(check(&d, native()), Err(INCOMPATIBLE));
    }

    #[test]
    fn every_truncation_and_byte_flip_is_caught_or_loads() {
        let src = "local u = {1, 'a', x = 2}; return function(z) return u, z .. 'q', 3.25 end";
        let d = native_dump(src, false);
        let lua = mlua::Lua::new();
        for cut in 0..d.len() {
            assert!(check(&d[..cut], native()).is_err(), "truncated at {cut}");
        }
        // Whatever passes the check must load without crashing (it may still fail to load).
        for i in 0..d.len() {
            for v in [0u8, 0x7f, 0x80, 0xff, d[i].wrapping_add(1)] {
                let mut m = d.clone();
                m[i] = v;
                if check(&m, native()).is_ok() {
                    let _ = lua
                        .load(&m[..])
                        .set_mode(mlua::chunk::ChunkMode::Binary)
                        .into_function();
                }
            }
        }
    }
}
