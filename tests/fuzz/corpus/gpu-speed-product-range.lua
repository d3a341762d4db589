-- A thousand gpu_speed factors of 1e6 on one node multiplied to an
-- infinite speed and SimGrid aborted (exit 70; scripts/fuzz, seed 4444,
-- case 4698): refused, the product must lie in [1e-6, 1e6]
cluster {
  nodes = 2, gpus_per_node = 2,
  gpu = { flops = "10TF" },
  inter = { bandwidth = "10Gbps", latency = "5us" },
  gpu_speed = (function() local t = {} for i = 1, 1000 do t[i] = { node = 1, factor = 1e6 } end return t end)(),
}
workload { model = "softmax", dataset = { samples = 400, test_samples = 100 }, batch = 8 }
algorithm { name = "gradient_allreduce" }
run { iterations = 3 }
