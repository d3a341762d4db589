-- issue 16: inter.rack_size = 1e10 aborted in SimGrid
cluster {
  nodes = 4, gpus_per_node = 2,
  gpu = { flops = "10TF" },
  inter = { bandwidth = "10Gbps", latency = "5us", topology = "fat_tree", rack_size = 1e10 },
}
workload { model = "resnet50", batch = 8 }
algorithm { name = "gradient_allreduce" }
run { iterations = 3 }
