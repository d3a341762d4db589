-- ring: both ring neighbours, weights 1/3 (the self weight is the rest).
-- Undirected: rank r lists r - 1 and r + 1, and each of them lists r.
-- Closed form: rho = 1/3 + (2/3) cos(2 pi / n).
return {
  peers = function(rank, n, step)
    if n == 1 then return {} end
    if n == 2 then return { (rank + 1) % n } end
    return { (rank - 1) % n, (rank + 1) % n }
  end,
}
