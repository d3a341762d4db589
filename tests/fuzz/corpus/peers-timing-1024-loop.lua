-- a scheme that loops at step 1 on 1024 ranks
cluster {
  nodes = 128, gpus_per_node = 8,
  gpu = { flops = "10TF" },
  inter = { bandwidth = "10Gbps", latency = "5us", topology = "fat_tree", rack_size = 2 },
}
workload { model = "resnet50", batch = 8 }
algorithm { name = "decentralized", peers = function(rank, n, step)
  if step >= 1 then while true do end end
  return { rank ~ 1 }
end }
run { iterations = 3 }
