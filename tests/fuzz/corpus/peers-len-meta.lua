-- algorithm.peers function: return setmetatable({}, { __len = function() return 2^31 end })
cluster {
  nodes = 2, gpus_per_node = 2,
  gpu = { flops = "10TF" },
  inter = { bandwidth = "10Gbps", latency = "5us" },
}
workload { model = "softmax", dataset = { samples = 400, test_samples = 100 }, batch = 8 }
algorithm { name = "decentralized", peers = function(rank, n, step)
  return setmetatable({}, { __len = function() return 2^31 end })
end }
run { iterations = 3 }
