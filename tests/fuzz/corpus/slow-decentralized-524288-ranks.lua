-- hearsay-args: --set cluster.nodes=65536 --set cluster.gpus_per_node=8
-- 524 288 ranks, decentralized: the load-time check of the peer scheme must not take quadratic time
cluster {
  nodes = 2, gpus_per_node = 2,
  gpu = { flops = "10TF" },
  inter = { bandwidth = "10Gbps", latency = "5us" },
}
workload { model = "softmax", dataset = { samples = 400, test_samples = 100 }, batch = 8 }
algorithm { name = "decentralized" }
run { iterations = 3 }
