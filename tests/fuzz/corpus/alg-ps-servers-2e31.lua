-- algorithm { name = "parameter_server", servers = 2^31 }
cluster {
  nodes = 2, gpus_per_node = 2,
  gpu = { flops = "10TF" },
  inter = { bandwidth = "10Gbps", latency = "5us" },
}
workload { model = "softmax", dataset = { samples = 400, test_samples = 100 }, batch = 8 }
algorithm { name = "parameter_server", servers = 2^31 }
run { iterations = 3 }
