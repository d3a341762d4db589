-- algorithm.peers function: local function f() return f() + 1 end
cluster {
  nodes = 2, gpus_per_node = 2,
  gpu = { flops = "10TF" },
  inter = { bandwidth = "10Gbps", latency = "5us" },
}
workload { model = "softmax", dataset = { samples = 400, test_samples = 100 }, batch = 8 }
algorithm { name = "decentralized", peers = function(rank, n, step)
  local function f() return f() + 1 end
  return f()
end }
run { iterations = 3 }
