-- Error plumbing every luatorch state installs (see src/runtime/errors.rs). `message(e)` turns an
-- error raised by a Rust function (a userdata) into its text; other values pass unchanged.
local M = {}

-- pcall, xpcall and coroutine.resume give Lua code string messages, as Torch code expects.
function M.install_string_errors(message)
   local rawxpcall, rawresume = xpcall, coroutine.resume
   local function finish(ok, ...)
      if ok then return true, ... end
      return false, message((...))
   end
   -- A tail call, so that this function leaves no frame of its own: `error(msg, 2)` in `f` names
   -- the caller of pcall, as with the plain one, and never this file.
   function pcall(f, ...) return rawxpcall(f, message, ...) end
   function xpcall(f, handler, ...)
      return rawxpcall(f, function(e) return handler(message(e)) end, ...)
   end
   function coroutine.resume(co, ...) return finish(rawresume(co, ...)) end
end

-- The message handler for top-level calls: any error value as text, with a traceback.
function M.traceback_handler(message)
   local traceback, tostring, type, getmetatable = debug.traceback, tostring, type, getmetatable
   return function(e)
      if type(e) == 'userdata' then e = message(e) end
      if type(e) ~= 'string' then
         local mt = getmetatable(e)
         if mt and mt.__tostring then e = tostring(e)
         elseif e == nil then e = 'nil'
         else e = '(error object is a ' .. type(e) .. ' value)' end
      end
      return traceback(e, 2)
   end
end

return M
