-- Tab completion candidates for the REPL (src/repl/complete.rs calls this).
--
-- Completing must never run user code nor raise: only raw accesses are used (rawget, next,
-- debug.getmetatable, type), every loop is bounded, and the Rust side calls this protected.

local rawget, next, type, ipairs = rawget, next, type, ipairs
local getmetatable, getupvalue = debug.getmetatable, debug.getupvalue
local sort = table.sort

local MAX_KEYS = 20000 -- keys looked at per table
local MAX_CHAIN = 32 -- metatables followed per value
local MAX_UPVALUES = 16 -- upvalues of an `__index` function looked at

local keywords = {
   'and', 'break', 'do', 'else', 'elseif', 'end', 'false', 'for', 'function', 'goto', 'if', 'in',
   'local', 'nil', 'not', 'or', 'repeat', 'return', 'then', 'true', 'until', 'while',
}
local is_keyword = {}
for _, k in ipairs(keywords) do is_keyword[k] = true end

-- The tables whose keys read as fields of `v`: `v` itself when it is a table, then along its
-- metatables: an `__index` table (and that table's own metatable after it), or, when `__index` is a
-- function, the metatable itself (where luaT-style classes keep their methods) and the tables among
-- the function's upvalues (where mlua's userdata `__index` keeps its methods and fields).
local function sources(v)
   local out, seen = {}, {}
   local function add(t)
      if type(t) ~= 'table' or seen[t] then return false end
      seen[t] = true
      out[#out + 1] = t
      return true
   end
   if type(v) == 'table' then add(v) end
   local mt = getmetatable(v)
   for _ = 1, MAX_CHAIN do
      if type(mt) ~= 'table' then break end
      local index = rawget(mt, '__index')
      if type(index) == 'table' then
         if not add(index) then break end
         mt = getmetatable(index)
      else
         if not add(mt) then break end
         if type(index) == 'function' then
            for i = 1, MAX_UPVALUES do
               local name, up = getupvalue(index, i)
               if name == nil then break end
               add(up)
            end
         end
         mt = getmetatable(mt)
      end
   end
   return out
end

local function lookup(v, name)
   for _, t in ipairs(sources(v)) do
      local x = rawget(t, name)
      if x ~= nil then return x end
   end
   return nil
end

-- complete(path, sep, partial): names that can follow `path .. sep`, starting with `partial`.
--   path: a dotted name ('torch', 'a.b') or '' for a bare word; sep: '.', ':' or ''.
-- Method completion (':') keeps functions only. Names starting with '__' only when asked for.
return function(path, sep, partial)
   local found, list = {}, {}
   local function offer(k, v)
      if type(k) == 'string' and not found[k] and k:sub(1, #partial) == partial
         and k:find('^[%a_][%w_]*$') and not is_keyword[k]
         and (partial:sub(1, 2) == '__' or k:sub(1, 2) ~= '__')
         and (sep ~= ':' or type(v) == 'function') then
         found[k] = true
         list[#list + 1] = k
      end
   end
   local target = _G
   if path ~= '' then
      for name in path:gmatch('[^.]+') do
         target = lookup(target, name)
         if target == nil then return list end
      end
   end
   for _, t in ipairs(sources(target)) do
      local n = 0
      for k, v in next, t do
         offer(k, v)
         n = n + 1
         if n >= MAX_KEYS then break end
      end
   end
   if path == '' then
      for _, k in ipairs(keywords) do
         if k:sub(1, #partial) == partial and not found[k] then
            found[k] = true
            list[#list + 1] = k
         end
      end
   end
   sort(list)
   return list
end
