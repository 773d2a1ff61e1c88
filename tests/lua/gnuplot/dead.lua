-- A gnuplot that dies: the next write to it fails with an error naming the function (and what
-- gnuplot said), nothing waits on it, and a new figure can be started after. The "gnuplot" here
-- is a shell script that answers --version, reads one line and exits.
local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. 'helpers.lua')
local dir = H.tempdir('dead')
local fake = dir .. '/gnuplot'
local f = assert(io.open(fake, 'w'))
f:write([[#!/bin/sh
case "$1" in
  --version) echo "gnuplot 5.4 patchlevel 4"; exit 0;;
  -e) printf 'Available terminal types:\n           png  PNG images\n' >&2; exit 0;;
esac
read -r line
echo "fake gnuplot: exiting" >&2
exit 3
]])
f:close()
os.execute('chmod +x ' .. fake)
gnuplot.setgnuplotexe(fake)

gnuplot.pngfigure(dir .. '/x.png')
-- The first writes may still reach the pipe before the script has exited: try for a while.
local ok, err
for _ = 1, 500 do
   ok, err = pcall(gnuplot.plot, torch.randn(10))
   if not ok then break end
   os.execute('sleep 0.01')
end
assert(not ok, 'writing to a dead gnuplot never failed')
assert(err:find('gnuplot.plot: gnuplot (figure 1) is no longer running', 1, true), err)
assert(err:find('fake gnuplot: exiting', 1, true), 'the error shows what gnuplot said: ' .. err)
-- The dead figure is forgotten: closing is quiet, and the next plot starts a new gnuplot (which
-- dies again).
gnuplot.close()
local ok2, err2 = pcall(function()
   for _ = 1, 500 do
      gnuplot.title('again')
      os.execute('sleep 0.01')
   end
end)
assert(not ok2 and err2:find('gnuplot.title: gnuplot (figure 1) is no longer running', 1, true),
   tostring(err2))
gnuplot.closeall()
os.execute('rm -rf ' .. dir)
print('ok')
