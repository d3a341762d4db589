-- resnet18.lua — ResNet-18 (He et al. 2016, Table 1), ImageNet 224x224, as
-- a layer list: basic blocks of two 3x3 convs, [2, 2, 2, 2] a stage, a 1x1
-- projection where a stage starts (torchvision's resnet18). Each conv is
-- k*k*cin*cout weights plus its batch-norm (2*cout); FLOPs count a
-- multiply-add as 2 and backward as twice forward. Published: 11.7M
-- params, 1.8e9 multiply-adds (Table 1); torchvision's resnet18:
-- 11,689,512 parameters in 62 tensors (20 convs x 3, fc 2), 1.81 GFLOPS.
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

conv("conv1", 7, 3, 64, 112)
local cin = 64
local stages = { {64, 2, 56}, {128, 2, 28}, {256, 2, 14}, {512, 2, 7} }
for s, st in ipairs(stages) do
  local width, blocks, out_hw = st[1], st[2], st[3]
  for b = 1, blocks do
    local p = string.format("layer%d.%d.", s, b - 1)
    conv(p .. "conv1", 3, cin, width, out_hw)
    conv(p .. "conv2", 3, width, width, out_hw)
    if cin ~= width then conv(p .. "downsample", 1, cin, width, out_hw) end
    cin = width
  end
end
local fc = 2 * 512 * 1000
layers[#layers + 1] = { name = "fc", params = 512 * 1000 + 1000, fwd_flops = fc, bwd_flops = 2 * fc, tensors = 2 }

return { name = "resnet18", published_params = 11.69e6, layers = layers }
