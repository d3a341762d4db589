-- exp2: BlueFog's static exponential-2 graph. Rank r sends to r + 2^k for
-- every 2^k < n; with the self weight, every weight is 1/(log2(n) + 1).
-- Directed, but every rank also receives log2(n) messages, so W is doubly
-- stochastic. Closed form for n a power of 2: rho = 1 - 2/(1 + log2 n).
return {
  directed = true,
  peers = function(rank, n, step)
    local out, d = {}, 1
    while d < n do
      out[#out + 1] = (rank + d) % n
      d = d * 2
    end
    return out
  end,
}
