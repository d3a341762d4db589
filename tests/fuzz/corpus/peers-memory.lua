-- algorithm.peers function: local t = {} for i = 1, 2^40 do t[i] = i end
cluster {
  nodes = 2, gpus_per_node = 2,
  gpu = { flops = "10TF" },
  inter = { bandwidth = "10Gbps", latency = "5us" },
}
workload { model = "softmax", dataset = { samples = 400, test_samples = 100 }, batch = 8 }
algorithm { name = "decentralized", peers = function(rank, n, step)
  local t = {} for i = 1, 2^40 do t[i] = i end
end }
run { iterations = 3 }
