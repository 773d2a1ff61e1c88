-- graph.Edge: a directed edge, `from` -> `to`, with an optional `weight`. It has no methods.

local Edge = torch.class('graph.Edge')

function Edge:__init(from, to, weight)
   self.from = from
   self.to = to
   self.weight = weight
end

return Edge
