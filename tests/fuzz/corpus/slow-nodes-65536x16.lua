-- 65 536 nodes x 16 GPUs
cluster {
  nodes = 65536, gpus_per_node = 16,
  gpu = { flops = "10TF" },
  inter = { bandwidth = "10Gbps", latency = "5us", topology = "fat_tree", rack_size = 2 },
}
workload { model = "resnet50", batch = 8 }
algorithm { name = "gradient_allreduce" }
run { iterations = 3 }
