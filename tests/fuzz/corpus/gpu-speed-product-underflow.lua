-- hearsay-args: --set run.iterations=3
-- bench-1024.lua — the scale benchmark's cluster: 128 nodes x 8 GPUs = 1024
-- GPUs, NVSwitch inside nodes, 200 Gbps per node on a two-level fat tree
-- (racks of 16 nodes, non-blocking). Used by scripts/bench with
-- `hearsay collective`; as a training scenario it runs ResNet-50 timing-only.
cluster {
  nodes = 128, gpus_per_node = 8,
  gpu   = { flops = "312TF", efficiency = 0.35 },
  intra = { bandwidth = "300GBps", latency = "2us" },
  inter = { bandwidth = "200Gbps", latency = "5us", topology = "fat_tree", rack_size = 16 }, gpu_speed = (function() local t = {} for i = 1, 1000 do t[i] = { gpu = 0, factor = 0.5 } end return t end)() 
}
workload  { model = "resnet50", batch = 64 }
algorithm { name = "gradient_allreduce", bucket_size = "25MiB" }
run       { iterations = 2 }
