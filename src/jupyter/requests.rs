//! The shell requests that answer from the Lua state without running a cell: kernel_info,
//! complete (the REPL's completion), inspect, is_complete (the REPL's test for multi-line input).

use mlua::{Function, Lua};
use serde_json::{Value, json};

use crate::repl::complete::{LuaHelper, Target, file_names, target};
use crate::repl::eval;

pub fn kernel_info(lua: &Lua) -> Value {
    let jit = lua
        .load("return jit and jit.version or _VERSION")
        .eval::<String>()
        .unwrap_or_else(|_| "LuaJIT".into());
    let version = jit.strip_prefix("LuaJIT ").unwrap_or(&jit).to_string();
    json!({
        "status": "ok",
        "protocol_version": super::wire::PROTOCOL_VERSION,
        "implementation": "luatorch",
        "implementation_version": env!("CARGO_PKG_VERSION"),
        "banner": crate::repl::banner(lua),
        "help_links": [],
        "language_info": {
            "name": "lua",
            "version": version,
            "mimetype": "text/x-lua",
            "file_extension": ".lua",
            "pygments_lexer": "lua",
            "codemirror_mode": "lua",
            "nbconvert_exporter": "script",
        },
    })
}

/// The byte offset of the `chars`th code point (the protocol counts code points since 5.2).
fn byte_offset(code: &str, chars: usize) -> usize {
    code.char_indices().nth(chars).map_or(code.len(), |(i, _)| i)
}

fn char_count(code: &str, bytes: usize) -> usize {
    code.get(..bytes).map_or(0, |s| s.chars().count())
}

fn cursor(content: &Value, code: &str) -> usize {
    let pos = content["cursor_pos"].as_u64().map_or(usize::MAX, |p| p as usize);
    byte_offset(code, pos)
}

pub fn complete(helper: &LuaHelper, content: &Value) -> Value {
    let code = content["code"].as_str().unwrap_or("");
    let pos = cursor(content, code);
    let (start, matches): (usize, Vec<String>) = match target(code, pos) {
        Target::Name {
            start,
            path,
            sep,
            partial,
        } => (start, helper.lua_names(path, sep, partial)),
        Target::File { start, text } => {
            let (offset, names) = file_names(text);
            (start + offset, names.into_iter().map(|p| p.replacement).collect())
        }
        Target::Nothing => (pos, Vec::new()),
    };
    json!({
        "status": "ok",
        "matches": matches,
        "cursor_start": char_count(code, start),
        "cursor_end": char_count(code, pos),
        "metadata": {},
    })
}

pub fn is_complete(lua: &Lua, content: &Value) -> Value {
    let code = content["code"].as_str().unwrap_or("");
    if eval::needs_more(lua, code) {
        json!({ "status": "incomplete", "indent": "  " })
    } else if code.trim().is_empty() || code.trim_start().starts_with('$') || eval::compiles(lua, code) {
        json!({ "status": "complete" })
    } else {
        json!({ "status": "invalid" })
    }
}

/// Describes the value a dotted name holds: its type, where a function was defined, a class's
/// name, a tensor's size, a table's fields.
const DESCRIBE: &str = r#"
local path = ...
local v = _G
for part in path:gmatch('[^.:]+') do
   local ok, next = pcall(function() return v[part] end)
   if not ok or next == nil then return nil end
   v = next
end
local t = type(v)
local lines = { path .. ': ' .. (torch and torch.typename and torch.typename(v) or t) }
if t == 'function' then
   local info = debug.getinfo(v, 'S')
   if info.what == 'C' then
      lines[#lines + 1] = 'a built-in function'
   else
      lines[#lines + 1] = 'defined at ' .. info.short_src .. ':' .. info.linedefined
   end
elseif t == 'table' then
   local keys = {}
   for k in pairs(v) do
      if type(k) == 'string' then keys[#keys + 1] = k end
      if #keys > 200 then break end
   end
   table.sort(keys)
   if #keys > 0 then lines[#lines + 1] = 'fields: ' .. table.concat(keys, ', ') end
else
   local ok, s = pcall(tostring, v)
   if ok then lines[#lines + 1] = s end
end
return table.concat(lines, '\n')
"#;

fn name_at(code: &str, pos: usize) -> &str {
    let is_name = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == ':';
    let start = code[..pos]
        .char_indices()
        .rev()
        .take_while(|&(_, c)| is_name(c))
        .last()
        .map_or(pos, |(i, _)| i);
    let end = code[pos..].find(|c: char| !is_name(c)).map_or(code.len(), |i| pos + i);
    code[start..end].trim_matches(|c| c == '.' || c == ':')
}

pub fn inspect(lua: &Lua, content: &Value) -> Value {
    let code = content["code"].as_str().unwrap_or("");
    let name = name_at(code, cursor(content, code));
    let text = if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
        None
    } else {
        lua.load(DESCRIBE)
            .set_name("=[inspect]")
            .into_function()
            .and_then(|f: Function| f.call::<Option<String>>(name))
            .ok()
            .flatten()
    };
    match text {
        Some(text) => json!({ "status": "ok", "found": true, "data": { "text/plain": text }, "metadata": {} }),
        None => json!({ "status": "ok", "found": false, "data": {}, "metadata": {} }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_offsets() {
        assert_eq!(name_at("x = torch.Tensor(3)", 12), "torch.Tensor");
        assert_eq!(name_at("a:size()", 8), "");
        assert_eq!(name_at("print", 2), "print");
        assert_eq!(byte_offset("é = 1", 1), 2);
        assert_eq!(char_count("é = 1", 2), 1);
    }
}
