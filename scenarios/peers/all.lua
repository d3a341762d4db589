-- all: every rank averages with every other rank, weight 1/n each.
-- The built-in `peers = "all"` runs this as one allreduce; this Lua twin
-- sends n - 1 messages per rank, so it is a template, not a fast path.
return {
  peers = function(rank, n, step)
    local out = {}
    for j = 0, n - 1 do
      if j ~= rank then out[#out + 1] = { peer = j, weight = 1 / n } end
    end
    return out
  end,
}
