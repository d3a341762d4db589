-- machine_exp2: the exponential-2 graph among machines. hierarchical = true
-- makes the GPUs of each machine average first (NVLink), the machine leaders
-- gossip with this function (rank = machine, n = machines), and the result
-- is broadcast back inside each machine.
return {
  directed = true,
  hierarchical = true,
  peers = function(machine, n, step)
    local out, d = {}, 1
    while d < n do
      out[#out + 1] = (machine + d) % n
      d = d * 2
    end
    return out
  end,
}
