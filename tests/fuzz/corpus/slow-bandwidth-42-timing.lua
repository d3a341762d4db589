-- 42 B/s with ResNet-50
cluster {
  nodes = 4, gpus_per_node = 2,
  gpu = { flops = "10TF" },
  inter = { bandwidth = "42", latency = "5us", topology = "fat_tree", rack_size = 2 },
}
workload { model = "resnet50", batch = 8 }
algorithm { name = "gradient_allreduce" }
run { iterations = 3 }
