-- 1-byte buckets, ResNet-50
cluster {
  nodes = 4, gpus_per_node = 2,
  gpu = { flops = "10TF" },
  inter = { bandwidth = "10Gbps", latency = "5us", topology = "fat_tree", rack_size = 2 },
}
workload { model = "resnet50", batch = 8 }
algorithm { name = "gradient_allreduce", bucket_size = "1B" }
run { iterations = 3 }
