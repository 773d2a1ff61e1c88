-- The checks of a table input ({x1, x2} or {x1, x2, ...} of tensors) that the table modules and
-- the pair criterions make, in each module's own words. Each function makes the check once per
-- module file: `local checkPair = tableinput.pair('nn.CSubTable')`, then checkPair(input).
--
-- The check raises its error for whoever called the pass (opts.level, 3 by default: the check,
-- the pass, its caller), as the modules' own checks did; a check called from a helper of the
-- pass gives 4.

local tableinput = {}

-- A check that input is a table whose first two elements are tensors, else
-- "<name>: the input must be a table of two tensors<opts.shown>" (shown: how the module writes
-- the pair, ' {x1, x2}'); opts.exact also refuses a table of more than two.
function tableinput.pair(name, opts)
   opts = opts or {}
   local message = name .. ': the input must be a table of two tensors' .. (opts.shown or '')
   local exact, level = opts.exact, opts.level or 3
   return function(input)
      if type(input) ~= 'table' or (exact and #input ~= 2) or not torch.isTensor(input[1])
         or not torch.isTensor(input[2]) then
         error(message, level)
      end
   end
end

-- A check that input is a table whose first element is a tensor, else "<name>: the input must
-- be a table of tensors"; opts.sameSize also wants every element a tensor of the first's size,
-- else "<name>: the inputs must be tensors of the same size".
function tableinput.tensors(name, opts)
   opts = opts or {}
   local sameSize, level = opts.sameSize, opts.level or 3
   return function(input)
      if type(input) ~= 'table' or not torch.isTensor(input[1]) then
         error(name .. ': the input must be a table of tensors', level)
      end
      if sameSize then
         for i = 2, #input do
            if not torch.isTensor(input[i]) or not input[i]:isSameSizeAs(input[1]) then
               error(name .. ': the inputs must be tensors of the same size', level)
            end
         end
      end
   end
end

return tableinput
