-- calibrate over ssh: speeds in (0, 1], multiples of 0.1, the fastest remote at 1; cores given back.
local H = require './remote_helpers'
require 'parallel'
parallel.ip = '127.0.0.1'

H.raises('calibrate before addremote', parallel.calibrate, 'addremote')

parallel.addremote(H.remote({ip = 'testhost', cores = 1}), H.remote({ip = 'testhost2', cores = 1}))
H.check(rawequal(parallel.remotes, remotes), 'parallel.remotes is the global remotes')
parallel.calibrate()
H.check(rawequal(parallel.remotes, remotes), 'parallel.remotes is still the global remotes')
local best = 0
for i, r in ipairs(remotes) do
   H.check(type(r.speed) == 'number', 'remotes[%d].speed is a number, got %s', i, tostring(r.speed))
   H.check(r.speed > 0 and r.speed <= 1, 'remotes[%d].speed %g in (0, 1]', i, r.speed)
   H.check(math.abs(r.speed * 10 - math.floor(r.speed * 10 + 0.5)) < 1e-9,
      'remotes[%d].speed %g is a multiple of 0.1', i, r.speed)
   best = math.max(best, r.speed)
end
H.eq(best, 1, 'the fastest remote\'s speed')
H.eq(parallel.nchildren, 0, 'nchildren after calibrate')
H.eq(remotes.cores, 2, 'remotes.cores after calibrate')

-- Children forked afterwards carry their remote's speed.
local list = parallel.sfork(2)
for _, c in ipairs(list) do H.eq(c.speed, c.remote.speed, 'child.speed after calibrate') end
list:exec(function() end)
list:sync()
print('ok')
