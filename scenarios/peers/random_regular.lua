-- random_regular: a random 4-regular graph per step, the union of two
-- Hamiltonian cycles that follow permutations drawn from (seed, step).
-- An attempt whose cycles share an edge is redrawn. Random regular graphs
-- are expanders with high probability; weights are uniform, 1/5, which is
-- the Metropolis-Hastings weight on a regular graph.
local degree = 4
local built_n, built_step, adjacency
local function draw(n, step)
  for attempt = 0, 999 do
    local adj, ok = {}, true
    for r = 0, n - 1 do adj[r] = {} end
    for c = 0, degree // 2 - 1 do
      local perm = hearsay.permutation(n, (step * 1000 + attempt) * 2 + c)
      for i = 1, n do
        local a, b = perm[i], perm[i % n + 1]
        for _, x in ipairs(adj[a]) do
          if x == b then ok = false end
        end
        if not ok then break end
        adj[a][#adj[a] + 1] = b
        adj[b][#adj[b] + 1] = a
      end
      if not ok then break end
    end
    if ok then return adj end
  end
  error("no simple " .. degree .. "-regular graph in 1000 draws at n = " .. n)
end
return {
  peers = function(rank, n, step)
    if n <= degree then error("random_regular needs more than " .. degree .. " ranks, got " .. n) end
    if n ~= built_n or step ~= built_step then
      adjacency = draw(n, step)
      built_n, built_step = n, step
    end
    return adjacency[rank]
  end,
}
