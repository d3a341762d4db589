-- a model profile that is /dev/zero
cluster {
  nodes = 2, gpus_per_node = 2,
  gpu = { flops = "10TF" },
  inter = { bandwidth = "10Gbps", latency = "5us" },
}
workload { model = "/dev/zero", batch = 8 }
algorithm { name = "gradient_allreduce" }
run { iterations = 3 }
