-- nn.utils, Torch7's helpers for modules and scripts: walking nested tables of tensors (a
-- module's input and output may be a tensor or a table of them, to any depth), type conversion
-- that keeps shared storages shared, and small shape helpers. The passes the modules share are
-- in nn/engine/.

local utils = {}
nn.utils = utils

-- Converts `param` (a tensor, or a table holding tensors) to tensor type `type_name`. Tensors
-- that share a storage before the conversion share one after it, and a tensor held in two places
-- becomes one tensor: `cache` maps a storage to its converted storage and a tensor to its
-- converted tensor (a caller converting a whole network passes one cache for all of it).
function utils.recursiveType(param, type_name, cache)
   cache = cache or {}
   if type(param) == 'table' and not torch.isTensor(param) and not torch.typename(param) then
      for k, v in pairs(param) do
         param[k] = utils.recursiveType(v, type_name, cache)
      end
   elseif torch.typename(param) and torch.typename(param):find('torch%..+Tensor') then
      if torch.typename(param) ~= type_name then
         local converted
         local storage = param:storage()
         if cache[param] then
            -- the same tensor object met again (two fields holding it): the same result
            converted = cache[param]
         elseif storage then
            local key = torch.pointer(storage)
            local cached = cache[key]
            if cached then
               converted = torch[type_name:match('torch%.(.+)')]():set(cached, param:storageOffset(),
                  param:size(), param:stride())
            else
               -- Convert the whole storage so that every view of it can point into the result.
               local whole = torch[torch.typename(param):match('torch%.(.+)')]():set(storage, 1, storage:size())
               local new_whole = whole:type(type_name)
               cache[key] = new_whole:storage()
               converted = torch[type_name:match('torch%.(.+)')]():set(cache[key], param:storageOffset(),
                  param:size(), param:stride())
            end
         else
            converted = torch[type_name:match('torch%.(.+)')]()
         end
         cache[param] = converted
         param = converted
      end
   elseif torch.typename(param) and type(param.type) == 'function' and param ~= nil then
      -- A module or criterion held in a field: it converts its own fields, in place. What its
      -- :type() returns is not used, as in Torch7 (a custom :type() may return nothing).
      param:type(type_name, cache)
   end
   return param
end

-- Resizes `t1` (tensors, or tables of them, created as needed) to the shape of `t2`.
function utils.recursiveResizeAs(t1, t2)
   if type(t2) == 'table' then
      t1 = type(t1) == 'table' and t1 or {}
      for k, v in pairs(t2) do
         t1[k], t2[k] = utils.recursiveResizeAs(t1[k], v)
      end
      for k in pairs(t1) do
         if t2[k] == nil then t1[k] = nil end
      end
   elseif torch.isTensor(t2) then
      t1 = torch.isTensor(t1) and t1 or t2.new()
      t1:resizeAs(t2)
   else
      error('nn.utils.recursiveResizeAs: expecting nested tensors or tables, got ' .. torch.type(t1) .. ' and '
         .. torch.type(t2))
   end
   return t1, t2
end

function utils.recursiveFill(t2, val)
   if type(t2) == 'table' then
      for k, v in pairs(t2) do t2[k] = utils.recursiveFill(v, val) end
   elseif torch.isTensor(t2) then
      t2:fill(val)
   else
      error('nn.utils.recursiveFill: expecting tensor or table thereof, got ' .. torch.type(t2))
   end
   return t2
end

-- t1 = t1 + val * t2, elementwise through nested tables.
function utils.recursiveAdd(t1, val, t2)
   if not t2 then
      t2, val = val, 1
   end
   if type(t2) == 'table' then
      t1 = type(t1) == 'table' and t1 or {}
      for k, v in pairs(t2) do
         t1[k], t2[k] = utils.recursiveAdd(t1[k], val, v)
      end
   elseif torch.isTensor(t1) and torch.isTensor(t2) then
      t1:add(val, t2)
   else
      error('nn.utils.recursiveAdd: expecting nested tensors or tables, got ' .. torch.type(t1) .. ' and '
         .. torch.type(t2))
   end
   return t1, t2
end

-- Copies t2 into t1 (tensors resized, tables made as needed).
function utils.recursiveCopy(t1, t2, async)
   if type(t2) == 'table' then
      t1 = type(t1) == 'table' and t1 or {}
      for k, v in pairs(t2) do
         t1[k] = utils.recursiveCopy(t1[k], v, async)
      end
   elseif torch.isTensor(t2) then
      t1 = torch.isTensor(t1) and t1 or t2.new()
      t1:resizeAs(t2):copy(t2)
   else
      error('nn.utils.recursiveCopy: expecting nested tensors or tables, got ' .. torch.type(t1) .. ' and '
         .. torch.type(t2))
   end
   return t1
end

-- Adds a dimension of size 1 at `dim` to `t` (default 1), as a view into `view` (made if nil).
function utils.addSingletonDimension(...)
   local view, t, dim
   local args = { ... }
   if select('#', ...) >= 2 and torch.isTensor(args[2]) then
      view, t, dim = args[1], args[2], args[3]
   else
      t, dim = args[1], args[2]
      assert(torch.isTensor(t), 'nn.utils.addSingletonDimension: input tensor expected')
      view = t.new()
   end
   dim = dim or 1
   assert(dim > 0 and dim <= t:dim() + 1,
      'nn.utils.addSingletonDimension: invalid dimension ' .. tostring(dim))
   local size = torch.LongStorage(t:dim() + 1)
   local stride = torch.LongStorage(t:dim() + 1)
   for d = 1, dim - 1 do
      size[d] = t:size(d)
      stride[d] = t:stride(d)
   end
   size[dim] = 1
   stride[dim] = 1
   for d = dim + 1, t:dim() + 1 do
      size[d] = t:size(d - 1)
      stride[d] = t:stride(d - 1)
   end
   view:set(t:storage(), t:storageOffset(), size, stride)
   return view
end

-- A view of `t` with sizes `sizes` (a LongStorage), through a contiguous copy if needed.
function utils.contiguousView(output, input, ...)
   output = output or input.new()
   if input:isContiguous() then
      output:view(input, ...)
   else
      output:resize(input:size())
      output:copy(input)
      output:view(output, ...)
   end
   return output
end

-- Empties the named fields (tensors become empty tensors of their type, tables are emptied),
-- or every field named in the table `names`.
function utils.clear(self, ...)
   local names = { ... }
   if #names == 1 and type(names[1]) == 'table' then names = names[1] end
   local function clear(f)
      if self[f] then
         if torch.isTensor(self[f]) then
            self[f]:set()
         elseif type(self[f]) == 'table' then
            self[f] = {}
         else
            self[f] = nil
         end
      end
   end
   for _, f in ipairs(names) do clear(f) end
   return self
end

-- A view of `t` without its dimensions of size 1 (one dimension is kept for a single element);
-- `t` itself is left as it is.
function utils.squeezeView(t)
   local sizes = {}
   for d = 1, t:dim() do
      if t:size(d) ~= 1 then sizes[#sizes + 1] = t:size(d) end
   end
   if #sizes == t:dim() then return t end
   if #sizes == 0 then sizes[1] = 1 end
   if t:isContiguous() then return t:view(torch.LongStorage(sizes)) end
   local strides = {}
   for d = 1, t:dim() do
      if t:size(d) ~= 1 then strides[#strides + 1] = t:stride(d) end
   end
   if #strides == 0 then strides[1] = 1 end
   return t.new():set(t:storage(), t:storageOffset(), torch.LongStorage(sizes), torch.LongStorage(strides))
end

-- Whether `t` is a tensor or a table of tensors (to any depth).
function utils.istensor(t)
   return torch.isTensor(t)
end

function utils.istable(x)
   return type(x) == 'table' and not torch.typename(x)
end

-- The number of elements of nested tensors.
function utils.tableSize(t)
   local n = 0
   for _ in pairs(t) do n = n + 1 end
   return n
end

return utils
