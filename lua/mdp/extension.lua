-- MDP's extension mechanism: named sets of methods put on node classes while the extension is
-- active (mdp.activate_extension('parallel'), mdp.with_extension('parallel', f, ...)).
-- A method that a class defines itself (in the class table) is kept aside while the extension is
-- active and comes back when it is deactivated.
local mdp = require 'mdp'

local registry = {} -- name -> list of {class, method name, function}
local active = {}   -- name -> list of {class, method name, previous value} to restore

-- Registers `methods` (name -> function) of extension `name` for the class table `cls`.
-- If the extension is active, they are put on the class at once.
function mdp.register_extension_methods(name, cls, methods)
   -- a class's constructor table (mdp.Node) or the class itself: the methods go on the class
   local tname = type(cls) == 'table' and cls.__typename
   if type(tname) == 'string' and torch.getmetatable(tname) then cls = torch.getmetatable(tname) end
   local list = registry[name]
   if list == nil then
      list = {}
      registry[name] = list
   end
   for k, f in pairs(methods) do
      list[#list + 1] = { cls, k, f }
      if active[name] then
         local saved = active[name]
         saved[#saved + 1] = { cls, k, rawget(cls, k) }
         rawset(cls, k, f)
      end
   end
end

function mdp.get_extensions()
   local names = {}
   for k in pairs(registry) do names[#names + 1] = k end
   table.sort(names)
   return names
end

function mdp.get_active_extensions()
   local names = {}
   for k in pairs(active) do names[#names + 1] = k end
   table.sort(names)
   return names
end

function mdp.is_extension_active(name)
   return active[name] ~= nil
end

function mdp.activate_extension(name)
   local list = registry[name]
   if list == nil then
      error("mdp.activate_extension: no extension named '" .. tostring(name) .. "'", 2)
   end
   if active[name] then return end
   local saved = {}
   for i, e in ipairs(list) do
      saved[i] = { e[1], e[2], rawget(e[1], e[2]) }
      rawset(e[1], e[2], e[3])
   end
   active[name] = saved
end

function mdp.deactivate_extension(name)
   local saved = active[name]
   if saved == nil then return end
   for i = #saved, 1, -1 do
      local s = saved[i]
      rawset(s[1], s[2], s[3])
   end
   active[name] = nil
end

function mdp.activate_extensions(names)
   for _, n in ipairs(names) do mdp.activate_extension(n) end
end

function mdp.deactivate_extensions(names)
   for _, n in ipairs(names) do mdp.deactivate_extension(n) end
end

-- Runs f(...) with the extension active (MDP's `with mdp.extension(name)`), then restores the
-- previous state, also when f raises; returns what f returns.
function mdp.with_extension(name, f, ...)
   if active[name] then return f(...) end
   mdp.activate_extension(name)
   local res = { pcall(f, ...) }
   mdp.deactivate_extension(name)
   if not res[1] then error(res[2], 0) end
   return unpack(res, 2, table.maxn(res))
end
