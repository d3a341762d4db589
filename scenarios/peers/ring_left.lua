-- ring_left: each rank averages with its left neighbour, x = (x + x_left)/2.
-- Directed: rank r sends to its right neighbour, keeping half its mass.
return {
  directed = true,
  peers = function(rank, n, step)
    if n == 1 then return {} end
    return { { peer = (rank + 1) % n, weight = 0.5 } }
  end,
}
