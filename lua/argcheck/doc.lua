-- argcheck.doc: collects documentation strings while recording is on.
--
--   doc.record()        start collecting
--   doc(str) / doc.doc(str)  add str (ignored when not recording)
--   doc.stop()          stop, and return everything collected as one string

local doc = {}

function doc.record()
   doc.__record = {}
end

function doc.stop()
   local parts = doc.__record or {}
   doc.__record = nil
   return table.concat(parts)
end

function doc.doc(str)
   local parts = doc.__record
   if parts then
      parts[#parts + 1] = str
   end
end

setmetatable(doc, {
   __call = function(_, ...)
      return doc.doc(...)
   end
})

return doc
