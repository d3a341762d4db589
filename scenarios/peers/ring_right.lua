-- ring_right: each rank averages with its right neighbour, x = (x + x_right)/2.
-- Directed: rank r sends to its left neighbour, keeping half its mass.
return {
  directed = true,
  peers = function(rank, n, step)
    if n == 1 then return {} end
    return { { peer = (rank - 1) % n, weight = 0.5 } }
  end,
}
