-- cluster.gpu_speed with __len 2^31-1
cluster {
  nodes = 2, gpus_per_node = 2,
  gpu = { flops = "10TF" },
  inter = { bandwidth = "10Gbps", latency = "5us" },
  gpu_speed = setmetatable({ { gpu = 0, factor = 0.5 } }, { __len = function() return 2^31 - 1 end }),
}
workload { model = "softmax", dataset = { samples = 400, test_samples = 100 }, batch = 8 }
algorithm { name = "gradient_allreduce" }
run { iterations = 3 }
