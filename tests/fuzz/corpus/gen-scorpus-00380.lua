-- hearsay-args: --set run.iterations=3 --set run.on_failure=shrink
-- peers-1024.lua — 1024 workers (128 nodes x 8 GPUs, fat tree) training the
-- numeric softmax workload with decentralized SGD. scripts/bench runs it
-- with built-in peer schemes and with their Lua twins to measure what
-- calling a Lua scheme for every rank and step costs.
cluster {
  nodes = 128, gpus_per_node = 8,
  gpu   = { flops = "312TF", efficiency = 0.35 },
  intra = { bandwidth = "300GBps", latency = "2us" },
  inter = { bandwidth = "200Gbps", latency = "5us", topology = "fat_tree", rack_size = 16 },
}
workload  { model = "softmax", batch = 32, init_noise = 0.1,
            dataset = { classes = 10, features = 64, samples = 65536 } }
algorithm { name = "decentralized", peers = "exp2_one_peer" }
run       { iterations = 20 }

workload {}
