-- a bad inter.latency below an intra table that has a latency too (the line named must be the inter one)
cluster {
  nodes = 2, gpus_per_node = 2,
  gpu = { flops = "10TF" },
  intra = { bandwidth = "150GBps", latency = "2us" },
  inter = { bandwidth = "10Gbps", latency = "1e308h" },
}
workload { model = "softmax", dataset = { samples = 400, test_samples = 100 }, batch = 8 }
algorithm { name = "gradient_allreduce" }
run { iterations = 3 }
