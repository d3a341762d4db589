-- shift_one: Bagua's pairing, one peer per step, pairs change every step.
-- Ranks below n/2 pair with ranks above; n must be even.
return {
  peers = function(rank, n, step)
    if n % 2 == 1 then error("shift_one needs an even number of ranks, got " .. n) end
    local half = n // 2
    if rank < half then
      return { (step + rank) % ((n + 1) // 2) + half }
    end
    return { (rank - half - step) % half }
  end,
}
