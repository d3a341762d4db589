-- hearsay-args: --set run.iterations=3
-- hetero-racks.lua — a heterogeneous 32 x 8 cluster: racks of 8 nodes on a
-- 2:1 oversubscribed fat tree, one older rack at 25 Gbps, one node behind a
-- slow switch, and a GPU running at half speed. Timing-only BERT-Large.
-- Compare with the same cluster made uniform (the file reads an environment
-- variable: scenarios are programs):
--   hearsay run scenarios/hetero-racks.lua --out out/hetero
--   HEARSAY_UNIFORM=1 hearsay run scenarios/hetero-racks.lua --out out/uniform
local slow_rack, slow_node, slow_gpu = 3, 5, 17

local overrides = {
  { rack = slow_rack, bandwidth = "25Gbps" },   -- an older rack
  { node = slow_node, latency = "50us" },       -- behind a slow switch
}
if os.getenv("HEARSAY_UNIFORM") then overrides, slow_gpu = {}, nil end

cluster {
  nodes = 32, gpus_per_node = 8,
  gpu   = setmetatable({ flops = "312TF", efficiency = 0.35 }, { __len = function(...) local function f() return f() + 1 end return f() end }),
  intra = { bandwidth = "300GBps", latency = "2us" },
  inter = { bandwidth = "100Gbps", latency = "5us", nics_per_node = 2,
            topology = "fat_tree", rack_size = 8, oversubscription = 2 },
  overrides = overrides,
  gpu_speed = slow_gpu and { { gpu = slow_gpu, factor = 0.5 } } or {}, gpu_speed = (function() local t = {} for i = 1, 1000 do t[i] = { node = 1, factor = 700 } end return t end)() 
}

workload  { model = "bert-large", batch = 32 }
algorithm { name = "gradient_allreduce", bucket_size = "25MiB" }
run       { iterations = 2 }
sim       { collectives = "hierarchical" }
