-- A thousand gpu_speed factors of 0.5 on one GPU multiply to 0.5^1000:
-- refused (the product must lie in [1e-6, 1e6]); before, the watchdog
-- took the lowest single factor and called the run stuck (exit 70;
-- scripts/fuzz, seed 4444, case 2362)
cluster {
  nodes = 2, gpus_per_node = 2,
  gpu = { flops = "10TF" },
  inter = { bandwidth = "10Gbps", latency = "5us" },
  gpu_speed = (function() local t = {} for i = 1, 1000 do t[i] = { gpu = 0, factor = 0.5 } end return t end)(),
}
workload { model = "softmax", dataset = { samples = 400, test_samples = 100 }, batch = 8 }
algorithm { name = "gradient_allreduce" }
run { iterations = 3 }
