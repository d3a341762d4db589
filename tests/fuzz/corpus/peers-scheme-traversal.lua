-- algorithm.peers function: return hearsay.scheme("../../../etc/passwd").peers(rank, n, step)
cluster {
  nodes = 2, gpus_per_node = 2,
  gpu = { flops = "10TF" },
  inter = { bandwidth = "10Gbps", latency = "5us" },
}
workload { model = "softmax", dataset = { samples = 400, test_samples = 100 }, batch = 8 }
algorithm { name = "decentralized", peers = function(rank, n, step)
  return hearsay.scheme("../../../etc/passwd").peers(rank, n, step)
end }
run { iterations = 3 }
