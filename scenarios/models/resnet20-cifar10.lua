-- resnet20-cifar10.lua — ResNet-20 for CIFAR-10 (He et al. 2016, section
-- 4.2: n = 3), the model of D-PSGD's, AD-PSGD's and CHOCO-SGD's CIFAR
-- experiments: a 3x3 conv of 16 filters at 32x32, then three stages of n
-- basic blocks (two 3x3 convs each) of 16, 32 and 64 filters at 32, 16 and
-- 8, global average pooling and a 64 -> 10 classifier. The shortcuts are
-- the paper's option A (identity, zero-padded where the width doubles: no
-- parameters). Each conv is k*k*cin*cout weights plus its batch-norm
-- (2*cout); FLOPs count a multiply-add as 2 and backward as twice forward.
-- Published: 0.27M parameters (Table 6; 269,722 counted so), 41e6
-- multiply-adds a 32x32 image.
local layers = {}
local function conv(name, cin, cout, hw_out)
  local params = 9 * cin * cout + 2 * cout
  local flops = 2 * 9 * cin * cout * hw_out * hw_out
  -- tensors: the conv's weight, the batch-norm's weight and bias; buffers:
  -- its running_mean and running_var (fp32, cout each) and
  -- num_batches_tracked (int64), torch.nn.BatchNorm2d's; kernels: the
  -- convolution, the batch-norm and the ReLU forward, the ReLU's, the
  -- batch-norm's, the input's and the weight's gradients backward
  layers[#layers + 1] = { name = name, params = params, fwd_flops = flops, bwd_flops = 2 * flops, tensors = 3,
                          buffers = 3, buffer_bytes = 2 * 4 * cout + 8, int64_buffers = 1,
                          kernels = 3, bwd_kernels = 4, matrices = { { cout, 9 * cin } } }
end

conv("conv1", 3, 16, 32)
local cin = 16
for s, st in ipairs({ {16, 32}, {32, 16}, {64, 8} }) do
  local width, hw = st[1], st[2]
  for b = 1, 3 do
    local p = string.format("layer%d.%d.", s, b - 1)
    conv(p .. "conv1", cin, width, hw)
    conv(p .. "conv2", width, width, hw)
    cin = width
  end
end
local fc = 2 * 64 * 10
layers[#layers + 1] = { name = "linear", params = 64 * 10 + 10, fwd_flops = fc, bwd_flops = 2 * fc, tensors = 2,
                        matrices = { { 10, 64 } } }

return { name = "resnet20-cifar10", published_params = 0.27e6, layers = layers }
