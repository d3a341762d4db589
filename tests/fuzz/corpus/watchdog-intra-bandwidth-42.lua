-- hearsay-args: --set run.iterations=3
-- resnet50-16x8.lua — timing-only: 128 GPUs (16 DGX-like nodes of 8) train
-- ResNet-50 with bucketed gradient allreduce; nothing is computed for real,
-- only the FLOPs and bytes are simulated. Try:
--   hearsay run scenarios/resnet50-16x8.lua --set cluster.inter.bandwidth=25Gbps
--   hearsay run scenarios/resnet50-16x8.lua --set algorithm.overlap=false

cluster {
  nodes = 16, gpus_per_node = 8,
  gpu   = { flops = "312TF", efficiency = 0.35 },          -- A100 bf16 tensor cores
  intra = { bandwidth = "42", latency = "2us" },      -- NVLink 3 / NVSwitch
  inter = { bandwidth = "200Gbps", latency = "5us",        -- one HDR NIC per node
            topology = "fat_tree", rack_size = 4, oversubscription = 2 },
}

workload { model = "resnet50", batch = 64 }

algorithm { name = "gradient_allreduce", bucket_size = "25MiB", overlap = true }

run { iterations = 20, seed = 1 }

sim { collectives = "hierarchical" }
