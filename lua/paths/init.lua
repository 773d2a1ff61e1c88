return require 'libpaths'
