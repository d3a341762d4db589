-- exp2_one_peer: BlueFog's dynamic one-peer exponential-2 graph. At step t
-- rank r sends to r + 2^(t mod (floor(log2(n-1)) + 1)) and keeps half; it
-- receives from the one rank that targets it. For n a power of 2 the
-- log2(n) steps of a period multiply to the exact average.
return {
  directed = true,
  peers = function(rank, n, step)
    if n == 1 then return {} end
    local exponents = hearsay.log2(n - 1) + 1
    return { { peer = (rank + (1 << (step % exponents))) % n, weight = 0.5 } }
  end,
}
