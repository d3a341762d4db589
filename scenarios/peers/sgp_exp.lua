-- sgp_exp: Stochastic Gradient Push's directed exponential graph. Each rank's
-- phone book is r+1, r-1, r+2, r-2, ..., r+2^K, r-2^K (K = floor(log2(n-1)),
-- repeats dropped); at step t every rank sends to entry t mod #book and keeps
-- half. Directed: run with push-sum.
return {
  directed = true,
  peers = function(rank, n, step)
    if n == 1 then return {} end
    local book, seen = {}, {}
    for i = 0, hearsay.log2(n - 1) do
      for _, p in ipairs({ (rank + (1 << i)) % n, (rank - (1 << i)) % n }) do
        if not seen[p] then
          seen[p] = true
          book[#book + 1] = p
        end
      end
    end
    return { { peer = book[step % #book + 1], weight = 0.5 } }
  end,
}
