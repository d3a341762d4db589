-- the workload declaration deleted
cluster {
  nodes = 2, gpus_per_node = 2,
  gpu = { flops = "10TF" },
  inter = { bandwidth = "10Gbps", latency = "5us" },
}
algorithm { name = "gradient_allreduce" }
run { iterations = 3 }
