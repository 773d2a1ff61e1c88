local tester = torch.Tester()
local tests = torch.TestSuite()

function tests.doubler()
   local m = nn.Doubler()
   local x = torch.randn(3, 4)
   tester:eq(m:forward(x), x * 2, 1e-12)
   tester:eq(m:backward(x, torch.ones(3, 4)), torch.ones(3, 4) * 2, 1e-12)
end

function tests.count()
   local c = torchhello.count({'a', 'b', 'a'})
   tester:eq(c.a, 2)
   tester:eq(c.b, 1)
end

tester:add(tests)
function torchhello.test() return tester:run() end
return tests
