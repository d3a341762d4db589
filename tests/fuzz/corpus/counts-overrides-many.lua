-- mismatched counts: overrides = (function() local t = {} for i = 1, 100000 do t[i] = { nod
cluster {
  nodes = 2, gpus_per_node = 2,
  gpu = { flops = "10TF" },
  inter = { bandwidth = "10Gbps", latency = "5us" },
  overrides = (function() local t = {} for i = 1, 100000 do t[i] = { node = i % 2, latency = "1us" } end return t end)(),
}
workload { model = "softmax", dataset = { samples = 400, test_samples = 100 }, batch = 8 }
algorithm { name = "gradient_allreduce" }
run { iterations = 3 }
