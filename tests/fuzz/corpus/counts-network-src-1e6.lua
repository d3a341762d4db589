-- issue 16: mismatched counts: network { { src = 0, dst = 10^6, streams = 2, from = 0, to = 1 } }
cluster {
  nodes = 2, gpus_per_node = 2,
  gpu = { flops = "10TF" },
  inter = { bandwidth = "10Gbps", latency = "5us" },
}
workload { model = "softmax", dataset = { samples = 400, test_samples = 100 }, batch = 8 }
algorithm { name = "gradient_allreduce" }
run { iterations = 3 }
network { { src = 0, dst = 10^6, streams = 2, from = 0, to = 1 } }
