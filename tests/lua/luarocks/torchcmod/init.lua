require 'libtorchcmod'
