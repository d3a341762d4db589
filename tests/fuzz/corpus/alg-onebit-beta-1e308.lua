-- algorithm { name = "onebit_adam", warmup_steps = 0, beta1 = 1e308 }
cluster {
  nodes = 2, gpus_per_node = 2,
  gpu = { flops = "10TF" },
  inter = { bandwidth = "10Gbps", latency = "5us" },
}
workload { model = "softmax", dataset = { samples = 400, test_samples = 100 }, batch = 8 }
algorithm { name = "onebit_adam", warmup_steps = 0, beta1 = 1e308 }
run { iterations = 3 }
