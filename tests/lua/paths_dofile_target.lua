-- Loaded by paths_fs.lua through paths.dofile, relative to that script.
return 'target loaded'
