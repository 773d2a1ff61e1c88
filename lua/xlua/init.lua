xlua = {}; return xlua
