-- issue 16: algorithm.communication_interval = math.huge (SIGFPE)
cluster {
  nodes = 2, gpus_per_node = 2,
  gpu = { flops = "10TF" },
  inter = { bandwidth = "10Gbps", latency = "5us" },
}
workload { model = "softmax", dataset = { samples = 400, test_samples = 100 }, batch = 8 }
algorithm { name = "decentralized", communication_interval = math.huge }
run { iterations = 3 }
