-- inception_v3.lua — Inception V3 (Szegedy et al. 2016, "Rethinking the
-- Inception Architecture for Computer Vision"), ImageNet 299x299, as
-- trained: with its auxiliary classifier. Built block by block from the
-- architecture as torchvision and TF-slim write it (every conv without
-- bias, with a batch-norm: k_h*k_w*cin*cout weights plus 2*cout); FLOPs
-- count a multiply-add as 2 and backward as twice forward. Published:
-- torchvision's inception_v3, 27,161,264 parameters with the auxiliary
-- head (23.8M without), 5.71 GFLOPS (multiply-adds) a 299x299 image.
local layers = {}
local function conv(name, kh, kw, cin, cout, hw)
  local flops = 2 * kh * kw * cin * cout * hw * hw
  -- tensors: the conv's weight, the batch-norm's weight and bias; buffers:
  -- its running_mean and running_var (fp32, cout each) and
  -- num_batches_tracked (int64), torch.nn.BatchNorm2d's; kernels: the
  -- convolution, the batch-norm and the ReLU forward (torchvision's
  -- BasicConv2d), their gradients and the weight's backward
  layers[#layers + 1] = { name = name, params = kh * kw * cin * cout + 2 * cout, fwd_flops = flops,
                          bwd_flops = 2 * flops, tensors = 3, buffers = 3, buffer_bytes = 2 * 4 * cout + 8,
                          int64_buffers = 1, kernels = 3, bwd_kernels = 4, matrices = { { cout, cin * kh * kw } } }
end
local function fc(name, cin, cout)
  local flops = 2 * cin * cout
  layers[#layers + 1] = { name = name, params = cin * cout + cout, fwd_flops = flops, bwd_flops = 2 * flops,
                          tensors = 2, matrices = { { cout, cin } } }
end

-- stem: 299 -> 149 -> 147 -> 147 -> pool 73 -> 73 -> 71 -> pool 35
conv("Conv2d_1a_3x3", 3, 3, 3, 32, 149)
conv("Conv2d_2a_3x3", 3, 3, 32, 32, 147)
conv("Conv2d_2b_3x3", 3, 3, 32, 64, 147)
conv("Conv2d_3b_1x1", 1, 1, 64, 80, 73)
conv("Conv2d_4a_3x3", 3, 3, 80, 192, 71)

-- 35x35: Mixed_5b/c/d (InceptionA)
local function block_a(p, cin, pool_features)
  conv(p .. ".branch1x1", 1, 1, cin, 64, 35)
  conv(p .. ".branch5x5_1", 1, 1, cin, 48, 35)
  conv(p .. ".branch5x5_2", 5, 5, 48, 64, 35)
  conv(p .. ".branch3x3dbl_1", 1, 1, cin, 64, 35)
  conv(p .. ".branch3x3dbl_2", 3, 3, 64, 96, 35)
  conv(p .. ".branch3x3dbl_3", 3, 3, 96, 96, 35)
  conv(p .. ".branch_pool", 1, 1, cin, pool_features, 35)
  return 64 + 64 + 96 + pool_features
end
local c = block_a("Mixed_5b", 192, 32)
c = block_a("Mixed_5c", c, 64)
c = block_a("Mixed_5d", c, 64)

-- 35 -> 17: Mixed_6a (InceptionB)
conv("Mixed_6a.branch3x3", 3, 3, c, 384, 17)
conv("Mixed_6a.branch3x3dbl_1", 1, 1, c, 64, 35)
conv("Mixed_6a.branch3x3dbl_2", 3, 3, 64, 96, 35)
conv("Mixed_6a.branch3x3dbl_3", 3, 3, 96, 96, 17)
c = 384 + 96 + c

-- 17x17: Mixed_6b..e (InceptionC, factorized 7x7)
local function block_c(p, cin, c7)
  conv(p .. ".branch1x1", 1, 1, cin, 192, 17)
  conv(p .. ".branch7x7_1", 1, 1, cin, c7, 17)
  conv(p .. ".branch7x7_2", 1, 7, c7, c7, 17)
  conv(p .. ".branch7x7_3", 7, 1, c7, 192, 17)
  conv(p .. ".branch7x7dbl_1", 1, 1, cin, c7, 17)
  conv(p .. ".branch7x7dbl_2", 7, 1, c7, c7, 17)
  conv(p .. ".branch7x7dbl_3", 1, 7, c7, c7, 17)
  conv(p .. ".branch7x7dbl_4", 7, 1, c7, c7, 17)
  conv(p .. ".branch7x7dbl_5", 1, 7, c7, 192, 17)
  conv(p .. ".branch_pool", 1, 1, cin, 192, 17)
  return 768
end
c = block_c("Mixed_6b", c, 128)
c = block_c("Mixed_6c", c, 160)
c = block_c("Mixed_6d", c, 160)
c = block_c("Mixed_6e", c, 192)

-- the auxiliary classifier on Mixed_6e's output: pool 17 -> 5, 1x1, 5x5 -> 1
conv("AuxLogits.conv0", 1, 1, 768, 128, 5)
conv("AuxLogits.conv1", 5, 5, 128, 768, 1)
fc("AuxLogits.fc", 768, 1000)

-- 17 -> 8: Mixed_7a (InceptionD)
conv("Mixed_7a.branch3x3_1", 1, 1, c, 192, 17)
conv("Mixed_7a.branch3x3_2", 3, 3, 192, 320, 8)
conv("Mixed_7a.branch7x7x3_1", 1, 1, c, 192, 17)
conv("Mixed_7a.branch7x7x3_2", 1, 7, 192, 192, 17)
conv("Mixed_7a.branch7x7x3_3", 7, 1, 192, 192, 17)
conv("Mixed_7a.branch7x7x3_4", 3, 3, 192, 192, 8)
c = 320 + 192 + c

-- 8x8: Mixed_7b/c (InceptionE)
local function block_e(p, cin)
  conv(p .. ".branch1x1", 1, 1, cin, 320, 8)
  conv(p .. ".branch3x3_1", 1, 1, cin, 384, 8)
  conv(p .. ".branch3x3_2a", 1, 3, 384, 384, 8)
  conv(p .. ".branch3x3_2b", 3, 1, 384, 384, 8)
  conv(p .. ".branch3x3dbl_1", 1, 1, cin, 448, 8)
  conv(p .. ".branch3x3dbl_2", 3, 3, 448, 384, 8)
  conv(p .. ".branch3x3dbl_3a", 1, 3, 384, 384, 8)
  conv(p .. ".branch3x3dbl_3b", 3, 1, 384, 384, 8)
  conv(p .. ".branch_pool", 1, 1, cin, 192, 8)
  return 320 + 768 + 768 + 192
end
c = block_e("Mixed_7b", c)
c = block_e("Mixed_7c", c)
fc("fc", c, 1000)

return { name = "inception_v3", published_params = 27.16e6, layers = layers }
