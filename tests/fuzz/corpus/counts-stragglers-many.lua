-- issue 16: mismatched counts: local t = {} for i = 1, 100000 do t[i] = { gpu = i % 4, slowdown = 1.0
cluster {
  nodes = 2, gpus_per_node = 2,
  gpu = { flops = "10TF" },
  inter = { bandwidth = "10Gbps", latency = "5us" },
}
workload { model = "softmax", dataset = { samples = 400, test_samples = 100 }, batch = 8 }
algorithm { name = "gradient_allreduce" }
run { iterations = 3 }
local t = {} for i = 1, 100000 do t[i] = { gpu = i % 4, slowdown = 1.01 } end
stragglers(t)
