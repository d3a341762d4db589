-- resnet18-cifar10.lua — ResNet-18 for CIFAR-10 (32x32, 10 classes) as
-- most CIFAR studies train it (kuangliu/pytorch-cifar's ResNet18, which
-- PowerSGD's and many decentralized papers' code bases adapt): resnet18's
-- basic blocks, [2, 2, 2, 2] a stage, with a 3x3 stem at stride 1 and no
-- max-pool (stages at 32, 16, 8, 4), and a 512 -> 10 classifier. Each conv
-- is k*k*cin*cout weights plus its batch-norm (2*cout); FLOPs count a
-- multiply-add as 2 and backward as twice forward. Published: 11.17M
-- parameters (11,173,962: resnet18's 11,689,512 less the 7x7 stem's and
-- the 1000-way classifier's difference), 0.56e9 multiply-adds a 32x32 image.
local layers = {}
local function conv(name, k, cin, cout, hw_out)
  local params = k * k * cin * cout + 2 * cout
  local flops = 2 * k * k * cin * cout * hw_out * hw_out
  -- tensors: the conv's weight, the batch-norm's weight and bias; buffers:
  -- its running_mean and running_var (fp32, cout each) and
  -- num_batches_tracked (int64), torch.nn.BatchNorm2d's; kernels: the
  -- convolution, the batch-norm and the ReLU forward, the ReLU's, the
  -- batch-norm's, the input's and the weight's gradients backward
  layers[#layers + 1] = { name = name, params = params, fwd_flops = flops, bwd_flops = 2 * flops, tensors = 3,
                          buffers = 3, buffer_bytes = 2 * 4 * cout + 8, int64_buffers = 1,
                          kernels = 3, bwd_kernels = 4 }
end

conv("conv1", 3, 3, 64, 32)
local cin = 64
local stages = { {64, 2, 32}, {128, 2, 16}, {256, 2, 8}, {512, 2, 4} }
for s, st in ipairs(stages) do
  local width, blocks, out_hw = st[1], st[2], st[3]
  for b = 1, blocks do
    local p = string.format("layer%d.%d.", s, b - 1)
    conv(p .. "conv1", 3, cin, width, out_hw)
    conv(p .. "conv2", 3, width, width, out_hw)
    if cin ~= width then conv(p .. "shortcut", 1, cin, width, out_hw) end
    cin = width
  end
end
local fc = 2 * 512 * 10
layers[#layers + 1] = { name = "linear", params = 512 * 10 + 10, fwd_flops = fc, bwd_flops = 2 * fc, tensors = 2 }

return { name = "resnet18-cifar10", published_params = 11.17e6, layers = layers }
