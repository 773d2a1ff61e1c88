local function inner()
   error('deliberate failure')
end
local function outer() inner() end
outer()
