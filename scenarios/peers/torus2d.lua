-- torus2d: a rows x cols torus, as square as n allows (rows = the largest
-- divisor of n not above sqrt(n)); neighbours up, down, left and right.
-- Every rank has the same degree, so the uniform weight 1/(d + 1) is also the
-- Metropolis-Hastings weight (1/5 when rows and cols are at least 3).
-- Closed form: 1 - rho ~ 4 pi^2 / (5 n) on a square torus.
return {
  peers = function(rank, n, step)
    local rows = 1
    local d = 1
    while d * d <= n do
      if n % d == 0 then rows = d end
      d = d + 1
    end
    local cols = n // rows
    local i, j = rank // cols, rank % cols
    local out, seen = {}, { [rank] = true }
    for _, p in ipairs({ ((i - 1) % rows) * cols + j, ((i + 1) % rows) * cols + j,
                         i * cols + (j - 1) % cols, i * cols + (j + 1) % cols }) do
      if not seen[p] then
        seen[p] = true
        out[#out + 1] = p
      end
    end
    return out
  end,
}
