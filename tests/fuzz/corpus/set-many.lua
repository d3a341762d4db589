-- hearsay-args: --set run.seed=0 --set run.seed=1 --set run.seed=2 --set run.seed=3 --set run.seed=4 --set run.seed=5 --set run.seed=6 --set run.seed=7 --set run.seed=8 --set run.seed=9 --set run.seed=10 --set run.seed=11 --set run.seed=12 --set run.seed=13 --set run.seed=14 --set run.seed=15 --set run.seed=16 --set run.seed=17 --set run.seed=18 --set run.seed=19 --set run.seed=20 --set run.seed=21 --set run.seed=22 --set run.seed=23 --set run.seed=24 --set run.seed=25 --set run.seed=26 --set run.seed=27 --set run.seed=28 --set run.seed=29 --set run.seed=30 --set run.seed=31 --set run.seed=32 --set run.seed=33 --set run.seed=34 --set run.seed=35 --set run.seed=36 --set run.seed=37 --set run.seed=38 --set run.seed=39 --set run.seed=40 --set run.seed=41 --set run.seed=42 --set run.seed=43 --set run.seed=44 --set run.seed=45 --set run.seed=46 --set run.seed=47 --set run.seed=48 --set run.seed=49 --set run.seed=50 --set run.seed=51 --set run.seed=52 --set run.seed=53 --set run.seed=54 --set run.seed=55 --set run.seed=56 --set run.seed=57 --set run.seed=58 --set run.seed=59
-- 60 overrides
cluster {
  nodes = 2, gpus_per_node = 2,
  gpu = { flops = "10TF" },
  inter = { bandwidth = "10Gbps", latency = "5us" },
}
workload { model = "softmax", dataset = { samples = 400, test_samples = 100 }, batch = 8 }
algorithm { name = "gradient_allreduce" }
run { iterations = 3 }
