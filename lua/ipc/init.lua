-- `require 'ipc'` is torch-ipc's `require 'libipc'`: the same module table.
return require 'libipc'
