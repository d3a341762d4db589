-- resnet152.lua — ResNet-152 (He et al. 2016, Table 1), ImageNet 224x224,
-- as a layer list. ResNet-50's bottleneck blocks, [3, 8, 36, 3] a stage
-- (resnet50.lua): each conv is k*k*cin*cout weights plus its batch-norm
-- (2*cout); FLOPs count a multiply-add as 2 and backward as twice forward.
-- Published: 11.3e9 multiply-adds (Table 1 counts "FLOPs" as
-- multiply-adds); torchvision's resnet152: 60,192,808 parameters in 467
-- tensors (155 convs x 3, fc 2), 11.51 GFLOPS.
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
local cin, hw = 64, 56
local stages = { {64, 3, 56}, {128, 8, 28}, {256, 36, 14}, {512, 3, 7} }
for s, st in ipairs(stages) do
  local width, blocks, out_hw = st[1], st[2], st[3]
  for b = 1, blocks do
    local p = string.format("layer%d.%d.", s, b - 1)
    local in_hw = (b == 1 and s > 1) and hw or out_hw
    conv(p .. "conv1", 1, cin, width, in_hw)
    conv(p .. "conv2", 3, width, width, out_hw)
    conv(p .. "conv3", 1, width, 4 * width, out_hw)
    if b == 1 then conv(p .. "downsample", 1, cin, 4 * width, out_hw) end
    cin = 4 * width
  end
  hw = out_hw
end
local fc = 2 * 2048 * 1000
layers[#layers + 1] = { name = "fc", params = 2048 * 1000 + 1000, fwd_flops = fc, bwd_flops = 2 * fc, tensors = 2 }

return { name = "resnet152", published_params = 60.19e6, layers = layers }
