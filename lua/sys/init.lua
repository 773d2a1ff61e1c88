sys = require 'libsys'; return sys
