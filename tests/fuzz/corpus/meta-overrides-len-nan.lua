-- cluster.overrides with __len: return 0/0
cluster {
  nodes = 2, gpus_per_node = 2,
  gpu = { flops = "10TF" },
  inter = { bandwidth = "10Gbps", latency = "5us" },
  overrides = setmetatable({ { node = 0, bandwidth = "1Gbps" } }, { __len = function() return 0/0 end }),
}
workload { model = "softmax", dataset = { samples = 400, test_samples = 100 }, batch = 8 }
algorithm { name = "gradient_allreduce" }
run { iterations = 3 }
