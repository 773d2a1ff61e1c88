//! Fuzzes the .t7 reader through the same path as torch.deserialize/torch.load: a torch.MemoryFile
//! over the input and `readObject`, in a Lua state with torch loaded. The first input byte picks the
//! mode (binary or ASCII, 8- or 4-byte longs, references on or off, quiet or pedantic); the rest is
//! the file. Any Lua error is fine; a crash, hang, or huge allocation is a finding.

#![no_main]

use std::cell::RefCell;

use libfuzzer_sys::fuzz_target;
use mlua::{Function, Lua};

const SETUP: &str = r#"
require 'torch'
-- Classes the reader can instantiate: one with its own read method (as tds.Hash), one without.
local Hash = torch.class('tds.Hash')
function Hash:__init() self.n = 0 end
function Hash:read(f, version)
   local n = f:readLong()
   f:readObject()
   for i = 1, math.min(n, 64) do
      local k = f:readObject()
      local v = f:readObject()
      if k ~= nil then rawset(self, k, v) end
   end
end
torch.class('A')
torch.class('Blah')
io.stderr:setvbuf('full')
-- The reader must work here, or every input would stop at the same early error and the run
-- would prove nothing.
local probe = torch.serialize({ 1, 'two', torch.FloatTensor({ 3 }), A() })
assert(torch.deserialize(probe)[3][1] == 3, 'the reader does not work in the fuzz state')
return function(data, flags)
   local f = torch.MemoryFile(torch.CharStorage():string(data .. '\0'), 'r')
   if flags % 2 == 1 then f:ascii() else f:binary() end
   if math.floor(flags / 2) % 2 == 1 then f:longSize(4) end
   if math.floor(flags / 4) % 2 == 1 then f:referenced(false) end
   if math.floor(flags / 8) % 2 == 1 then f:quiet() end
   local ok, obj = pcall(f.readObject, f)
   if ok and math.floor(flags / 16) % 2 == 1 then
      -- What was read must also write back out without trouble.
      pcall(torch.serialize, obj)
   end
   f:close()
end
"#;

thread_local! {
    static STATE: RefCell<Option<(Lua, Function, u64)>> = const { RefCell::new(None) };
}

fuzz_target!(|data: &[u8]| {
    let Some((&flags, body)) = data.split_first() else { return };
    STATE.with(|s| {
        let mut s = s.borrow_mut();
        let (lua, run, count) = s.get_or_insert_with(|| {
            let lua = luatorch::runtime::new_state().expect("state");
            lua.gc_restart();
            let run: Function = lua.load(SETUP).eval().expect("setup");
            (lua, run, 0)
        });
        let body = lua.create_string(body).expect("string");
        // The function returns normally: every failure is caught by the pcall inside.
        run.call::<()>((body, flags)).expect("fuzz harness itself failed");
        *count += 1;
        if *count % 256 == 0 {
            lua.gc_collect().expect("gc");
        }
    });
});
